/* expf/logf of wire/wse_math.c on QEMU rv32imf: prints
 * "expf-bits logf-bits" per sample of math_sample.h over HTIF. */
#include "math_sample.h"
#include "wsemu/wse_math.h"

extern volatile unsigned long long tohost;

static void putch(char ch)
{
	volatile unsigned int *th = (volatile unsigned int *)&tohost;

	th[0] = (unsigned int)(unsigned char)ch;
	th[1] = 0x01010000u; /* device 1 (console), command 1 (putchar) */
}

static void puthex(unsigned int v)
{
	for (int i = 7; i >= 0; i--)
		putch("0123456789abcdef"[(v >> (4 * i)) & 0xfu]);
}

static unsigned int bits(float f)
{
	union { float f; unsigned int u; } c;

	c.f = f;
	return c.u;
}

static float flt(unsigned int u)
{
	union { float f; unsigned int u; } c;

	c.u = u;
	return c.f;
}

int main(void)
{
	unsigned int s = 0x12345678u;

	for (unsigned int k = 0; k < MATH_SAMPLE_N; k++) {
		unsigned int ex, lx;

		ms_inputs(&s, k, &ex, &lx);
		puthex(bits(wse_expf(flt(ex))));
		putch(' ');
		puthex(bits(wse_logf(flt(lx))));
		putch('\n');
	}
	return 0;
}

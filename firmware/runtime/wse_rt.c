/* Bare-metal runtime of a wsemu tile core: tohost exit, HTIF console and
 * the signature dump that the QEMU comparison reads. */
#include "wse_rt.h"

extern volatile uint32_t tohost[2];
extern uint32_t begin_signature[] __attribute__((weak));
extern uint32_t end_signature[] __attribute__((weak));

/* HTIF commands are 64-bit: the low word first, then the high word, whose
 * store makes QEMU (and the tile) act on the command. */
static void htif_cmd(uint32_t hi, uint32_t lo)
{
	tohost[0] = lo;
	tohost[1] = hi;
}

void wse_putc(char c)
{
	htif_cmd(0x01010000u, (uint8_t)c); /* device 1 (console), command 1 (write) */
}

void wse_puts(const char *s)
{
	while (*s)
		wse_putc(*s++);
}

void wse_puthex(uint32_t v)
{
	for (int i = 28; i >= 0; i -= 4)
		wse_putc("0123456789abcdef"[(v >> i) & 0xf]);
}

void wse_putu(uint32_t v)
{
	char b[12];
	int n = 0;
	do {
		b[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	while (n)
		wse_putc(b[--n]);
}

void wse_exit(int code)
{
	if (code == 0 && begin_signature && end_signature) {
		for (uint32_t *p = begin_signature; p < end_signature; p++) {
			wse_putc('S');
			wse_putc(':');
			wse_puthex(*p);
			wse_putc('\n');
		}
	}
	htif_cmd(0, code == 0 ? 1u : (((uint32_t)code << 1) | 1u));
	for (;;)
		;
}

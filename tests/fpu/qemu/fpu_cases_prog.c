/* Runs a table of FPU cases (fpu_cases.h, generated from the C model's case
 * generator) on QEMU and prints "result flags" per case over the HTIF
 * console (see fpu_run_case.h). */
#include <stdint.h>

#include "fpu_cases.h"

extern volatile uint64_t tohost;

static void putch(char ch)
{
	volatile uint32_t *th = (volatile uint32_t *)&tohost;

	th[0] = (uint32_t)(uint8_t)ch;
	th[1] = 0x01010000u; /* device 1 (console), command 1 (putchar) */
}

static void puthex(uint32_t v, int digits)
{
	for (int i = digits - 1; i >= 0; i--)
		putch("0123456789abcdef"[(v >> (4 * i)) & 0xfu]);
}

#include "fpu_run_case.h"

int main(void)
{
	for (uint32_t i = 0; i < FPU_NUM_CASES; i++) {
		uint32_t fl, r = fpu_run_case(&fpu_cases[i], &fl);

		puthex(r, 8);
		putch(' ');
		puthex(fl, 2);
		putch('\n');
	}
	return 0;
}

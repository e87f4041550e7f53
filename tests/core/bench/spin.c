/*
 * spin: an endless integer compute loop for the simulation-speed benchmark
 * (every tile busy with ALU, multiply, load and store work every cycle).
 */
#include <stdint.h>
#include "wse_rt.h"

static volatile uint32_t buf[64];

int main(void)
{
	uint32_t a = wse_csr_read(mhartid) + 1, b = 0x9e3779b9u;
	for (uint32_t i = 0;; i++) {
		a = a * 1664525u + 1013904223u;
		b ^= a >> 7;
		buf[i & 63] = a + b;
		b += buf[(i * 7) & 63];
	}
	return 0;
}

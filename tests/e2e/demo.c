/*
 * demo: the program `make run` runs on every tile of sim-4x4. Each tile
 * takes its own range of numbers (by its coordinates), counts the primes
 * in it and prints the count and the largest one on its console.
 */
#include <stdint.h>
#include "wse_rt.h"

static void put(const char *s)
{
	while (*s)
		wse_tile_putc(*s++);
}

static void putu(uint32_t v)
{
	char b[11];
	int n = 0;
	do {
		b[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		wse_tile_putc(b[--n]);
}

static int prime(uint32_t n)
{
	if (n < 2)
		return 0;
	for (uint32_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

int main(void)
{
	uint32_t x = wse_tile_x(), y = wse_tile_y();
	uint32_t t = y * 4 + x, lo = t * 250, hi = lo + 250, count = 0, last = 0;
	for (uint32_t n = lo; n < hi; n++)
		if (prime(n)) {
			count++;
			last = n;
		}
	put("tile ");
	putu(x);
	wse_tile_putc(',');
	putu(y);
	put(": ");
	putu(count);
	put(" primes in [");
	putu(lo);
	wse_tile_putc(',');
	putu(hi);
	put("), largest ");
	putu(last);
	wse_tile_putc('\n');
	wse_exit(0);
}

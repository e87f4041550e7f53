/*
 * mix: a mixed integer workload for the tile core (loads/stores, branches,
 * multiplies, divides, calls): CRC-32, insertion sort, a small integer
 * matrix product, a prime sieve and gcds. Self-checking where a known
 * answer exists; every result also goes to the signature compared with
 * QEMU. Also the program behind `BENCH core.cpi`.
 */
#include <stdint.h>
#include "wse_rt.h"

WSE_SIGNATURE(8);

static uint32_t crc32(const uint8_t *p, unsigned n)
{
	uint32_t c = 0xffffffffu;
	for (unsigned i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static uint32_t lcg_state = 12345;
static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return lcg_state >> 8;
}

#define NSORT 96
static int32_t arr[NSORT];

#define MN 10
static int32_t ma[MN][MN], mb[MN][MN], mc[MN][MN];

#define NSIEVE 1000
static uint8_t composite[NSIEVE];

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int main(void)
{
	static const char digits[] = "123456789";
	uint32_t *sig = begin_signature;

	uint32_t c = crc32((const uint8_t *)digits, 9);
	if (c != 0xcbf43926u)
		return 1;
	*sig++ = c;

	for (int i = 0; i < NSORT; i++)
		arr[i] = (int32_t)lcg() - (1 << 23);
	for (int i = 1; i < NSORT; i++) {
		int32_t v = arr[i];
		int j = i - 1;
		while (j >= 0 && arr[j] > v) {
			arr[j + 1] = arr[j];
			j--;
		}
		arr[j + 1] = v;
	}
	for (int i = 1; i < NSORT; i++)
		if (arr[i - 1] > arr[i])
			return 2;
	*sig++ = crc32((const uint8_t *)arr, sizeof(arr));

	for (int i = 0; i < MN; i++)
		for (int j = 0; j < MN; j++) {
			ma[i][j] = (int32_t)(lcg() % 2001) - 1000;
			mb[i][j] = (int32_t)(lcg() % 2001) - 1000;
		}
	int64_t trace = 0;
	for (int i = 0; i < MN; i++)
		for (int j = 0; j < MN; j++) {
			int32_t s = 0;
			for (int k = 0; k < MN; k++)
				s += ma[i][k] * mb[k][j];
			mc[i][j] = s;
		}
	for (int i = 0; i < MN; i++)
		trace += (int64_t)mc[i][i] * (i + 1);
	*sig++ = (uint32_t)trace;
	*sig++ = (uint32_t)((uint64_t)trace >> 32);
	*sig++ = crc32((const uint8_t *)mc, sizeof(mc));

	unsigned primes = 0;
	for (unsigned i = 2; i < NSIEVE; i++) {
		if (composite[i])
			continue;
		primes++;
		for (unsigned j = i * i; j < NSIEVE; j += i)
			composite[j] = 1;
	}
	if (primes != 168)
		return 3;
	*sig++ = primes;

	uint32_t g = 0;
	for (int i = 0; i < 40; i++) {
		uint32_t a = lcg() | 1, b = lcg() % 100000u + 1;
		g += gcd(a * 6u, b * 6u);
		g ^= (uint32_t)((int32_t)a / -(int32_t)(b | 1));
	}
	*sig++ = g;

	wse_puts("mix ok\n");
	return 0;
}

/*
 * tiles: the program every tile of the mesh runs in `make test-core`. A
 * short integer workload whose results (the signature) are the same on
 * every tile and on QEMU; each tile also greets on the tile's own putchar
 * word with its coordinates from mhartid (nothing is printed on QEMU).
 */
#include <stdint.h>
#include "wse_rt.h"

WSE_SIGNATURE(8);

static uint32_t work[256];

int main(void)
{
	uint32_t h = wse_csr_read(mhartid);
	const char msg[] = "tile x,y\n";
	for (const char *p = msg; *p; p++) {
		char c = *p;
		if (c == 'x')
			c = (char)('0' + (h & 0xff));
		else if (c == 'y')
			c = (char)('0' + ((h >> 8) & 0xff));
		wse_tile_putc(c);
	}

	uint32_t s = 0x12345678u, acc = 0, prod = 1;
	for (int i = 0; i < 256; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		work[i] = s;
	}
	for (int i = 0; i < 256; i++) {
		acc += work[i] / (uint32_t)(i + 1) + work[255 - i] % 97u;
		prod = prod * (work[i] | 1u);
	}
	int32_t m = 0;
	for (int i = 0; i < 256; i += 2)
		m += (int32_t)work[i] >> (i & 31);

	begin_signature[0] = acc;
	begin_signature[1] = prod;
	begin_signature[2] = (uint32_t)m;
	begin_signature[3] = work[17] ^ work[200];
	return 0;
}

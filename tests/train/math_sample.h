/* Sample inputs of expf/logf shared by the host and the rv32 program
 * (tests/train/math_rv32.c): the same bits must come out of both. */
#ifndef MATH_SAMPLE_H
#define MATH_SAMPLE_H

#define MATH_SAMPLE_N 3000u

static unsigned int ms_next(unsigned int *s)
{
	unsigned int x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* Sample k: expf input in [-110, 95] or special, logf input any positive
 * float (subnormals included) or special. */
static void ms_inputs(unsigned int *s, unsigned int k, unsigned int *ex, unsigned int *lx)
{
	static const unsigned int special[] = {
		0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
		0x3f800000u, 0x00000001u, 0x007fffffu, 0x42b17218u, 0xc2cff1b5u,
		0x42b17217u, 0xc2aeac50u, 0x3f3504f3u, 0x3fb504f3u, 0x7f7fffffu,
		0xbf800000u,
	};
	unsigned int r = ms_next(s), q = ms_next(s);

	if (k < sizeof(special) / sizeof(special[0])) {
		*ex = *lx = special[k];
		return;
	}
	/* expf: sign, exponent in [2^-30, 2^7), random mantissa */
	*ex = (r & 0x80000000u) | ((97u + (r >> 8) % 37u) << 23) | (q & 0x7fffffu);
	/* logf: any positive finite float */
	*lx = (ms_next(s) % 0x7f7fffffu) + 1u;
}
#endif

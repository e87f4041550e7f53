/* Biased case generator in the style of TestFloat: operands are drawn from
 * special values, exponent extremes, subnormals, sparse/dense significand
 * patterns (which make ties and carries likely) and plain random bits, and
 * related per operation so that near-overflow, underflow into subnormals,
 * catastrophic cancellation and rounding ties actually occur. */
#include "fpu_model.h"

uint64_t fpu_rand64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd(uint64_t *s, uint32_t n) { return (uint32_t)((fpu_rand64(s) >> 16) % n); }

static uint32_t rnd_frac(uint64_t *s)
{
	uint32_t i, j, v;

	switch (rnd(s, 8)) {
	case 0: return 0;
	case 1: return 0x7fffffu;
	case 2: return 1u << rnd(s, 23);
	case 3: return 0x7fffffu & ~(1u << rnd(s, 23));
	case 4: /* a run of ones */
	case 5:
		i = rnd(s, 23);
		j = rnd(s, 23);
		if (i > j) {
			v = i;
			i = j;
			j = v;
		}
		v = ((2u << j) - 1) & ~((1u << i) - 1);
		return (rnd(s, 2) ? v : ~v) & 0x7fffffu;
	default: return (uint32_t)fpu_rand64(s) & 0x7fffffu;
	}
}

static uint32_t rnd_exp(uint64_t *s)
{
	static const uint32_t ext[] = { 0, 1, 2, 3, 23, 24, 25, 26, 100, 103,
					150, 151, 152, 153, 160, 250, 251, 252, 253, 254 };
	switch (rnd(s, 4)) {
	case 0: return ext[rnd(s, sizeof ext / sizeof ext[0])];
	case 1: return 112 + rnd(s, 32);
	default: return rnd(s, 255);
	}
}

static uint32_t special(uint64_t *s)
{
	static const uint32_t sp[] = {
		0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
		0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u,
		0x3f800000u, 0xbf800000u, 0x00000001u, 0x807fffffu,
		0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu,
		0x4b000000u, 0x4f000000u, 0xcf000000u, 0x4f800000u,
		0x3f000000u, 0xbf000000u, 0x00400000u, 0x7fffffffu,
	};
	uint32_t v = sp[rnd(s, sizeof sp / sizeof sp[0])];

	if ((v & 0x7fffffffu) > 0x7f800000u && rnd(s, 2)) /* NaN payloads */
		v = (v & 0xffc00000u) | (rnd_frac(s) & 0x3fffffu) | ((v & 0x3fffffu) ? 0 : 1);
	return v;
}

static uint32_t rnd_float(uint64_t *s)
{
	uint32_t sign = rnd(s, 2) << 31;

	switch (rnd(s, 16)) {
	case 0: case 1: return special(s);
	case 2: case 3: return sign | rnd_frac(s); /* subnormal or zero */
	case 4: case 5: return (uint32_t)fpu_rand64(s);
	default: return sign | (rnd_exp(s) << 23) | rnd_frac(s);
	}
}

static uint32_t with_exp(uint32_t x, int e)
{
	if (e < 0)
		e = 0;
	if (e > 254)
		e = 254;
	return (x & 0x807fffffu) | ((uint32_t)e << 23);
}

static int get_exp(uint32_t x) { return (int)((x >> 23) & 0xffu); }

/* x moved by a few units in the last place (either way, never past 0). */
static uint32_t nudge(uint64_t *s, uint32_t x)
{
	int d = (int)rnd(s, 9) - 4;
	uint32_t m = x & 0x7fffffffu;

	if (d < 0 && m < (uint32_t)-d)
		return x;
	if (d > 0 && m + (uint32_t)d >= 0x7f800000u)
		return x;
	return (x & 0x80000000u) | (m + (uint32_t)d);
}

static uint32_t rnd_int(uint64_t *s)
{
	static const uint32_t sp[] = { 0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu,
				       0x00ffffffu, 0x01000000u, 0x01000001u, 0x01000003u,
				       0xfeffffffu, 0x7fffffc0u, 0xffffff80u };
	uint32_t v;
	int n;

	switch (rnd(s, 6)) {
	case 0: return sp[rnd(s, sizeof sp / sizeof sp[0])];
	case 1: return (uint32_t)fpu_rand64(s);
	default:
		n = 1 + (int)rnd(s, 32);
		v = ((uint32_t)fpu_rand64(s) | 1u << (n - 1)) & (uint32_t)((2ull << (n - 1)) - 1);
		if (rnd(s, 2)) /* tie-prone patterns: sparse low bits */
			v = (v & ~0xffu) | (rnd(s, 2) ? 0x80u : 0x7fu) << rnd(s, 4);
		if (rnd(s, 2))
			v = 0u - v;
		return v;
	}
}

void fpu_gen_case(uint64_t *s, int op, uint32_t *pa, uint32_t *pb, uint32_t *pc)
{
	uint32_t a = rnd_float(s), b = rnd_float(s), c = rnd_float(s), fl, p;
	int k = (int)rnd(s, 8);

	switch (op) {
	case FPU_ADD: case FPU_SUB:
		if (k < 2) /* nearby exponents: alignment, ties, carries */
			b = with_exp(b, get_exp(a) + (int)rnd(s, 53) - 26);
		else if (k < 4) { /* cancellation */
			b = nudge(s, a) ^ (op == FPU_ADD ? 0x80000000u : 0);
			if (rnd(s, 2))
				b = with_exp(b, get_exp(a) - (int)rnd(s, 2));
		}
		break;
	case FPU_MUL: case FPU_DIV:
		if (k < 2) { /* result near overflow */
			int ea = get_exp(a);
			int t = op == FPU_MUL ? 254 + 127 - ea : ea - 254 + 127;
			b = with_exp(b, t + (int)rnd(s, 5) - 2);
		} else if (k < 4) { /* result near or below the normal range */
			int ea = get_exp(a);
			int t = op == FPU_MUL ? 127 - ea : ea + 127;
			b = with_exp(b, t + (op == FPU_MUL ? 1 : -1) * ((int)rnd(s, 30) - 4));
			if (rnd(s, 4) == 0)
				b &= 0xff800000u | (0x7fffffu << rnd(s, 23));
		}
		break;
	case FPU_SQRT:
		if (k < 7)
			a &= 0x7fffffffu;
		break;
	case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD:
		if (k < 3) { /* c cancels most of a*b */
			p = fpu_model(FPU_MUL, (int)rnd(s, 5), a, b, 0, &fl);
			if ((p & 0x7fffffffu) < 0x7f800000u) {
				c = nudge(s, p);
				if (op == FPU_MADD || op == FPU_NMSUB)
					c ^= 0x80000000u;
				if (rnd(s, 3) == 0)
					c = with_exp(c, get_exp(c) + (int)rnd(s, 5) - 2);
			}
		} else if (k < 5) { /* c overlaps the product */
			int ep = get_exp(a) + get_exp(b) - 127;
			c = with_exp(c, ep + (int)rnd(s, 61) - 30);
		} else if (k == 5) { /* product near overflow or underflow */
			int ea = get_exp(a);
			b = with_exp(b, (rnd(s, 2) ? 254 + 127 - ea : 127 - ea) + (int)rnd(s, 30) - 15);
			if (rnd(s, 2))
				c = with_exp(c, rnd(s, 2) ? 253 + rnd(s, 2) : rnd(s, 3));
		}
		break;
	case FPU_MIN: case FPU_MAX: case FPU_EQ: case FPU_LT: case FPU_LE:
		if (k == 0)
			b = a;
		else if (k == 1)
			b = a ^ 0x80000000u;
		else if (k == 2)
			b = nudge(s, a);
		break;
	case FPU_CVT_W_S: case FPU_CVT_WU_S:
		if (k < 5) { /* integer range, halves, bounds */
			a = (a & 0x807fffffu) | ((uint32_t)(120 + rnd(s, 40)) << 23);
			if (rnd(s, 4) == 0)
				a = (a & 0xfffffe00u) | (rnd(s, 2) ? 0x100u : 0);
		}
		if (k == 5)
			a = (a & 0x807fffffu) | ((uint32_t)(156 + rnd(s, 3)) << 23);
		break;
	case FPU_CVT_S_W: case FPU_CVT_S_WU:
		a = rnd_int(s);
		break;
	case FPU_MV_W_X:
		if (k < 4)
			a = rnd_int(s);
		break;
	default:
		break;
	}
	*pa = a;
	*pb = b;
	*pc = c;
}

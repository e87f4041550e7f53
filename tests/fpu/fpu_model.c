/* Bit-exact RISC-V binary32 model, integer arithmetic only (see fpu_model.h).
 * Every value is handled as an exact integer significand times a power of
 * two; rounding happens once, in round_pack(). The formulation deliberately
 * differs from the RTL datapath (exact 128-bit sums instead of a fixed
 * alignment window), so that the two check each other. */
#include "fpu_model.h"

typedef unsigned __int128 u128;

#define EXP_MASK 0x7f800000u
#define FRAC_MASK 0x007fffffu
#define QUIET_BIT 0x00400000u

static int f_is_nan(uint32_t x) { return (x & EXP_MASK) == EXP_MASK && (x & FRAC_MASK); }
static int f_is_snan(uint32_t x) { return f_is_nan(x) && !(x & QUIET_BIT); }
static int f_is_inf(uint32_t x) { return (x & 0x7fffffffu) == EXP_MASK; }
static int f_is_zero(uint32_t x) { return (x & 0x7fffffffu) == 0; }
static int f_sign(uint32_t x) { return (int)(x >> 31); }

/* Finite non-zero x == sig * 2^exp exactly. */
static void unpack(uint32_t x, uint64_t *sig, int *exp)
{
	uint32_t e = (x >> 23) & 0xffu, f = x & FRAC_MASK;
	if (e == 0) {
		*sig = f;
		*exp = -149;
	} else {
		*sig = f | 0x800000u;
		*exp = (int)e - 150;
	}
}

static int msb128(u128 v)
{
	int k = -1;
	while (v) {
		v >>= 1;
		k++;
	}
	return k;
}

static int round_inc(int rm, int sign, int lsb, int r, int s)
{
	switch (rm) {
	case FPU_RNE: return r && (s || lsb);
	case FPU_RTZ: return 0;
	case FPU_RDN: return sign && (r || s);
	case FPU_RUP: return !sign && (r || s);
	default: return r; /* RMM */
	}
}

/* Shift v right by sh >= 0, returning the kept part and the round bit
 * (the highest dropped bit) and sticky (OR of the rest). */
static u128 shift_rs(u128 v, int sh, int *r, int *s)
{
	if (sh <= 0) {
		*r = 0;
		*s = 0;
		return v;
	}
	if (sh > 127) {
		*r = 0;
		*s = v != 0;
		return 0;
	}
	*r = (int)((v >> (sh - 1)) & 1u);
	*s = sh >= 2 && (v & (((u128)1 << (sh - 1)) - 1)) != 0;
	return v >> sh;
}

/* Round (-1)^sign * sig * 2^exp (sig != 0) to binary32 per rm, with
 * RISC-V flags (tininess detected after rounding). */
static uint32_t round_pack(int sign, int exp, u128 sig, int rm, uint32_t *fl)
{
	int k = msb128(sig);
	int e_msb = exp + k;
	int lsb = e_msb - 23 < -149 ? -149 : e_msb - 23;
	int r, s, inexact, tiny, biased;
	u128 q;

	if (lsb - exp > 0)
		q = shift_rs(sig, lsb - exp, &r, &s);
	else {
		q = sig << (exp - lsb);
		r = s = 0;
	}
	inexact = r || s;
	q += (u128)round_inc(rm, sign, (int)(q & 1u), r, s);
	if (q >> 24) { /* carried out of 24 bits: exact halving */
		q >>= 1;
		lsb++;
	}
	biased = (q >> 23) ? lsb + 150 : 0;
	if (biased >= 255) {
		int to_inf = rm == FPU_RNE || rm == FPU_RMM ||
			     (rm == FPU_RDN && sign) || (rm == FPU_RUP && !sign);
		*fl |= FPU_OF | FPU_NX;
		return ((uint32_t)sign << 31) | (to_inf ? EXP_MASK : 0x7f7fffffu);
	}
	/* Tiny after rounding: the result rounded to 24 bits with an unbounded
	 * exponent range would still be below 2^-126. */
	tiny = 0;
	if (e_msb < -126) {
		tiny = 1;
		if (e_msb == -127) {
			int ru, su;
			u128 qu = k >= 23 ? shift_rs(sig, k - 23, &ru, &su)
					  : sig << (23 - k);
			if (k < 23)
				ru = su = 0;
			qu += (u128)round_inc(rm, sign, (int)(qu & 1u), ru, su);
			if (qu >> 24)
				tiny = 0;
		}
	}
	if (inexact) {
		*fl |= FPU_NX;
		if (tiny)
			*fl |= FPU_UF;
	}
	return ((uint32_t)sign << 31) | ((uint32_t)biased << 23) | (uint32_t)(q & FRAC_MASK);
}

/* Exact sum of two signed terms sx*2^ex and sy*2^ey (non-zero sigs of at
 * most 48 bits), rounded once. */
static uint32_t add_terms(int sgx, int ex, uint64_t sx, int sgy, int ey,
			  uint64_t sy, int rm, uint32_t *fl)
{
	u128 vx, vy, sum;
	int e, sign;

	/* A term far below the other's LSB only decides the rounding direction
	 * (see docs/fpu.md): replace it by a smaller stand-in of the same sign. */
	if (ex - ey > 78) {
		sy = 1;
		ey = ex - 40;
	} else if (ey - ex > 78) {
		sx = 1;
		ex = ey - 40;
	}
	e = ex < ey ? ex : ey;
	vx = (u128)sx << (ex - e);
	vy = (u128)sy << (ey - e);
	if (sgx == sgy) {
		sum = vx + vy;
		sign = sgx;
	} else if (vx >= vy) {
		sum = vx - vy;
		sign = sgx;
	} else {
		sum = vy - vx;
		sign = sgy;
	}
	if (sum == 0)
		return rm == FPU_RDN ? 0x80000000u : 0;
	return round_pack(sign, e, sum, rm, fl);
}

static uint32_t op_fma(int op, int rm, uint32_t a, uint32_t b, uint32_t c,
		       uint32_t *fl)
{
	int neg_p = op == FPU_NMSUB || op == FPU_NMADD;
	int neg_c = op == FPU_MSUB || op == FPU_NMADD;
	int sp = f_sign(a) ^ f_sign(b) ^ neg_p, sc = f_sign(c) ^ neg_c;
	int p_inf = f_is_inf(a) || f_is_inf(b);
	int p_zero = f_is_zero(a) || f_is_zero(b);
	uint64_t ma, mb, mc;
	int ea, eb, ec;

	if ((f_is_inf(a) && f_is_zero(b)) || (f_is_zero(a) && f_is_inf(b))) {
		/* invalid even if c is a quiet NaN (RISC-V) */
		*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_nan(a) || f_is_nan(b) || f_is_nan(c)) {
		if (f_is_snan(a) || f_is_snan(b) || f_is_snan(c))
			*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (p_inf) {
		if (f_is_inf(c) && sc != sp) {
			*fl |= FPU_NV;
			return FPU_CANON_NAN;
		}
		return ((uint32_t)sp << 31) | EXP_MASK;
	}
	if (f_is_inf(c))
		return ((uint32_t)sc << 31) | EXP_MASK;
	if (p_zero) {
		if (f_is_zero(c))
			return sp == sc ? (uint32_t)sp << 31
					: (rm == FPU_RDN ? 0x80000000u : 0);
		return ((uint32_t)sc << 31) | (c & 0x7fffffffu);
	}
	unpack(a, &ma, &ea);
	unpack(b, &mb, &eb);
	if (f_is_zero(c))
		return round_pack(sp, ea + eb, (u128)(ma * mb), rm, fl);
	unpack(c, &mc, &ec);
	return add_terms(sp, ea + eb, ma * mb, sc, ec, mc, rm, fl);
}

static uint32_t op_add(int sub, int rm, uint32_t a, uint32_t b, uint32_t *fl)
{
	int sa = f_sign(a), sb = f_sign(b) ^ sub;
	uint64_t ma, mb;
	int ea, eb;

	if (f_is_nan(a) || f_is_nan(b)) {
		if (f_is_snan(a) || f_is_snan(b))
			*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_inf(a) && f_is_inf(b) && sa != sb) {
		*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_inf(a))
		return a;
	if (f_is_inf(b))
		return ((uint32_t)sb << 31) | EXP_MASK;
	if (f_is_zero(a) && f_is_zero(b))
		return sa == sb ? (uint32_t)sa << 31 : (rm == FPU_RDN ? 0x80000000u : 0);
	if (f_is_zero(a))
		return ((uint32_t)sb << 31) | (b & 0x7fffffffu);
	if (f_is_zero(b))
		return a;
	unpack(a, &ma, &ea);
	unpack(b, &mb, &eb);
	return add_terms(sa, ea, ma, sb, eb, mb, rm, fl);
}

static uint32_t op_mul(int rm, uint32_t a, uint32_t b, uint32_t *fl)
{
	int s = f_sign(a) ^ f_sign(b);
	uint64_t ma, mb;
	int ea, eb;

	if (f_is_nan(a) || f_is_nan(b)) {
		if (f_is_snan(a) || f_is_snan(b))
			*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if ((f_is_inf(a) && f_is_zero(b)) || (f_is_zero(a) && f_is_inf(b))) {
		*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_inf(a) || f_is_inf(b))
		return ((uint32_t)s << 31) | EXP_MASK;
	if (f_is_zero(a) || f_is_zero(b))
		return (uint32_t)s << 31;
	unpack(a, &ma, &ea);
	unpack(b, &mb, &eb);
	return round_pack(s, ea + eb, (u128)(ma * mb), rm, fl);
}

static uint32_t op_div(int rm, uint32_t a, uint32_t b, uint32_t *fl)
{
	int s = f_sign(a) ^ f_sign(b);
	uint64_t ma, mb;
	int ea, eb;
	u128 num, q;

	if (f_is_nan(a) || f_is_nan(b)) {
		if (f_is_snan(a) || f_is_snan(b))
			*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if ((f_is_inf(a) && f_is_inf(b)) || (f_is_zero(a) && f_is_zero(b))) {
		*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_inf(a) || f_is_zero(b)) {
		if (f_is_zero(b) && !f_is_inf(a))
			*fl |= FPU_DZ;
		return ((uint32_t)s << 31) | EXP_MASK;
	}
	if (f_is_inf(b) || f_is_zero(a))
		return (uint32_t)s << 31;
	unpack(a, &ma, &ea);
	unpack(b, &mb, &eb);
	/* 24-bit / 24-bit with 64 extra bits: at least 41 quotient bits, and a
	 * non-zero remainder becomes a sticky 1 appended below them. */
	num = (u128)ma << 64;
	q = num / mb;
	q = (q << 1) | (u128)(num % mb != 0);
	return round_pack(s, ea - eb - 65, q, rm, fl);
}

static u128 isqrt128(u128 x, int *exact)
{
	u128 r = 0, bit = (u128)1 << 126, rem = x;

	while (bit > rem)
		bit >>= 2;
	while (bit) {
		if (rem >= r + bit) {
			rem -= r + bit;
			r = (r >> 1) + bit;
		} else
			r >>= 1;
		bit >>= 2;
	}
	*exact = rem == 0;
	return r;
}

static uint32_t op_sqrt(int rm, uint32_t a, uint32_t *fl)
{
	uint64_t m;
	int e, exact;
	u128 r;

	if (f_is_nan(a)) {
		if (f_is_snan(a))
			*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_zero(a))
		return a;
	if (f_sign(a)) {
		*fl |= FPU_NV;
		return FPU_CANON_NAN;
	}
	if (f_is_inf(a))
		return a;
	unpack(a, &m, &e);
	if (e & 1) {
		m <<= 1;
		e -= 1;
	}
	/* sqrt(m * 2^100) has at least 50 bits; inexactness becomes a sticky
	 * bit below them. */
	r = isqrt128((u128)m << 100, &exact);
	r = (r << 1) | (u128)!exact;
	return round_pack(0, (e - 100) / 2 - 1, r, rm, fl);
}

static uint32_t op_minmax(int is_max, uint32_t a, uint32_t b, uint32_t *fl)
{
	int lt;

	if (f_is_snan(a) || f_is_snan(b))
		*fl |= FPU_NV;
	if (f_is_nan(a) && f_is_nan(b))
		return FPU_CANON_NAN;
	if (f_is_nan(a))
		return b;
	if (f_is_nan(b))
		return a;
	/* total order on non-NaN values with -0 < +0 */
	if (f_sign(a) != f_sign(b))
		lt = f_sign(a);
	else if (f_sign(a))
		lt = (a & 0x7fffffffu) > (b & 0x7fffffffu);
	else
		lt = a < b;
	return (is_max ? !lt : lt) ? a : b;
}

static uint32_t op_cmp(int op, uint32_t a, uint32_t b, uint32_t *fl)
{
	int eq, lt;

	if (f_is_nan(a) || f_is_nan(b)) {
		if (op != FPU_EQ || f_is_snan(a) || f_is_snan(b))
			*fl |= FPU_NV;
		return 0;
	}
	eq = a == b || (f_is_zero(a) && f_is_zero(b));
	if (eq)
		lt = 0;
	else if (f_sign(a) != f_sign(b))
		lt = f_sign(a);
	else if (f_sign(a))
		lt = (a & 0x7fffffffu) > (b & 0x7fffffffu);
	else
		lt = a < b;
	switch (op) {
	case FPU_EQ: return (uint32_t)eq;
	case FPU_LT: return (uint32_t)lt;
	default: return (uint32_t)(lt || eq);
	}
}

uint32_t fpu_classify(uint32_t x)
{
	int s = f_sign(x);
	uint32_t e = (x >> 23) & 0xffu, f = x & FRAC_MASK;

	if (e == 0xffu) {
		if (f == 0)
			return s ? 1u << 0 : 1u << 7;
		return (f & QUIET_BIT) ? 1u << 9 : 1u << 8;
	}
	if (e == 0)
		return f == 0 ? (s ? 1u << 3 : 1u << 4) : (s ? 1u << 2 : 1u << 5);
	return s ? 1u << 1 : 1u << 6;
}

static uint32_t op_cvt_to_int(int is_unsigned, int rm, uint32_t a, uint32_t *fl)
{
	int s = f_sign(a), e, r, st;
	uint64_t m;
	u128 q, lim;

	if (f_is_nan(a)) {
		*fl |= FPU_NV;
		return is_unsigned ? 0xffffffffu : 0x7fffffffu;
	}
	if (f_is_zero(a))
		return 0;
	if (f_is_inf(a)) {
		*fl |= FPU_NV;
		return is_unsigned ? (s ? 0 : 0xffffffffu) : (s ? 0x80000000u : 0x7fffffffu);
	}
	unpack(a, &m, &e);
	if (e >= 0) {
		q = e > 40 ? (u128)1 << 80 : (u128)m << e;
		r = st = 0;
	} else
		q = shift_rs((u128)m, -e, &r, &st);
	q += (u128)round_inc(rm, s, (int)(q & 1u), r, st);
	if (is_unsigned)
		lim = s ? 0 : 0xffffffffu;
	else
		lim = s ? 0x80000000u : 0x7fffffffu;
	if (q > lim) {
		*fl |= FPU_NV;
		return is_unsigned ? (s ? 0 : 0xffffffffu) : (s ? 0x80000000u : 0x7fffffffu);
	}
	if (r || st)
		*fl |= FPU_NX;
	return s ? (uint32_t)(0u - (uint32_t)q) : (uint32_t)q;
}

static uint32_t op_cvt_from_int(int is_unsigned, int rm, uint32_t a, uint32_t *fl)
{
	int s = !is_unsigned && (a >> 31);
	uint32_t mag = s ? 0u - a : a;

	if (mag == 0)
		return 0;
	return round_pack(s, 0, (u128)mag, rm, fl);
}

uint32_t fpu_model(int op, int rm, uint32_t a, uint32_t b, uint32_t c,
		   uint32_t *flags)
{
	uint32_t fl = 0, r;

	switch (op) {
	case FPU_ADD: r = op_add(0, rm, a, b, &fl); break;
	case FPU_SUB: r = op_add(1, rm, a, b, &fl); break;
	case FPU_MUL: r = op_mul(rm, a, b, &fl); break;
	case FPU_DIV: r = op_div(rm, a, b, &fl); break;
	case FPU_SQRT: r = op_sqrt(rm, a, &fl); break;
	case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD:
		r = op_fma(op, rm, a, b, c, &fl);
		break;
	case FPU_SGNJ: r = (a & 0x7fffffffu) | (b & 0x80000000u); break;
	case FPU_SGNJN: r = (a & 0x7fffffffu) | (~b & 0x80000000u); break;
	case FPU_SGNJX: r = a ^ (b & 0x80000000u); break;
	case FPU_MIN: r = op_minmax(0, a, b, &fl); break;
	case FPU_MAX: r = op_minmax(1, a, b, &fl); break;
	case FPU_EQ: case FPU_LT: case FPU_LE: r = op_cmp(op, a, b, &fl); break;
	case FPU_CLASS: r = fpu_classify(a); break;
	case FPU_CVT_W_S: r = op_cvt_to_int(0, rm, a, &fl); break;
	case FPU_CVT_WU_S: r = op_cvt_to_int(1, rm, a, &fl); break;
	case FPU_CVT_S_W: r = op_cvt_from_int(0, rm, a, &fl); break;
	case FPU_CVT_S_WU: r = op_cvt_from_int(1, rm, a, &fl); break;
	default: r = a; break; /* fmv.x.w, fmv.w.x: raw bits */
	}
	*flags = fl;
	return r;
}

static const char *const op_names[FPU_NUM_OPS] = {
	"fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fsqrt.s",
	"fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s",
	"fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s",
	"feq.s", "flt.s", "fle.s", "fclass.s",
	"fcvt.w.s", "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu",
	"fmv.x.w", "fmv.w.x",
};

const char *fpu_op_name(int op)
{
	return op >= 0 && op < FPU_NUM_OPS ? op_names[op] : "?";
}

int fpu_op_arity(int op)
{
	switch (op) {
	case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD: return 3;
	case FPU_SQRT: case FPU_CLASS: case FPU_CVT_W_S: case FPU_CVT_WU_S:
	case FPU_CVT_S_W: case FPU_CVT_S_WU: case FPU_MV_X_W: case FPU_MV_W_X:
		return 1;
	default: return 2;
	}
}

int fpu_op_float_result(int op)
{
	switch (op) {
	case FPU_EQ: case FPU_LT: case FPU_LE: case FPU_CLASS:
	case FPU_CVT_W_S: case FPU_CVT_WU_S: case FPU_MV_X_W:
		return 0;
	default: return 1;
	}
}

int fpu_op_uses_rm(int op)
{
	switch (op) {
	case FPU_ADD: case FPU_SUB: case FPU_MUL: case FPU_DIV: case FPU_SQRT:
	case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD:
	case FPU_CVT_W_S: case FPU_CVT_WU_S: case FPU_CVT_S_W: case FPU_CVT_S_WU:
		return 1;
	default: return 0;
	}
}

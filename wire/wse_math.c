/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_math.c - expf and logf for the PEs and the host (see wse_math.h).
 * Compile with -ffp-contract=off -fno-builtin: every operation below must
 * be one IEEE binary32 operation rounded to nearest even.
 */
#include "wsemu/wse_math.h"

typedef unsigned int wm_u32;

static wm_u32 f2u(float f)
{
	union { float f; wm_u32 u; } c;

	c.f = f;
	return c.u;
}

static float u2f(wm_u32 u)
{
	union { float f; wm_u32 u; } c;

	c.u = u;
	return c.f;
}

/* 2^k for -126 <= k <= 127, exactly. */
static float pow2i(int k)
{
	return u2f((wm_u32)(k + 127) << 23);
}

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^11. */
#define LN2_HI 0.693145751953125f      /* 0x3f317200 */
#define LN2_LO 1.428606765330187e-06f  /* 0x35bfbe8e */
#define LOG2E 1.44269502162933349609375f

/*
 * expf: x = k ln2 + r, |r| <= ln2/2 (Cody-Waite, two-part ln2);
 * e^r by its degree-7 Taylor polynomial in Horner form; times 2^k.
 */
float wse_expf(float x)
{
	wm_u32 ux = f2u(x);
	wm_u32 ax = ux & 0x7fffffffu;

	if (ax > 0x7f800000u)
		return u2f(0x7fc00000u); /* NaN -> canonical NaN */
	if (x > 88.72283935546875f)
		return u2f(0x7f800000u); /* overflow -> +inf */
	if (x < -103.97283935546875f)
		return 0.0f; /* underflow -> +0 */
	if (ax < 0x31800000u)
		return 1.0f + x; /* |x| < 2^-28 */

	float kf = x * LOG2E;
	int k = (int)(kf + (x < 0.0f ? -0.5f : 0.5f));
	float fk = (float)k;
	float r = (x - fk * LN2_HI) - fk * LN2_LO;
	float p = 1.0f / 5040.0f + r * (1.0f / 40320.0f);

	p = 1.0f / 720.0f + r * p;
	p = 1.0f / 120.0f + r * p;
	p = 1.0f / 24.0f + r * p;
	p = 1.0f / 6.0f + r * p;
	p = 0.5f + r * p;
	p = r + (r * r) * p; /* e^r - 1 */
	p = 1.0f + p;
	if (k > 127)
		return p * pow2i(k - 1) * 2.0f;
	if (k < -125)
		return p * pow2i(k + 64) * pow2i(-64);
	return p * pow2i(k);
}

/*
 * logf: x = m 2^e with m in [sqrt(1/2), sqrt(2)); f = m - 1,
 * s = f / (2 + f), log m = 2 atanh s = 2s (1 + z/3 + z^2/5 + ... + z^5/11)
 * with z = s^2, written as f - s (f - R) with R = 2s^2 (z/3 ... ) / s;
 * log x = e ln2_hi + (log m + e ln2_lo).
 */
float wse_logf(float x)
{
	wm_u32 ux = f2u(x);
	int e = 0;

	if ((ux & 0x7fffffffu) > 0x7f800000u)
		return u2f(0x7fc00000u); /* NaN */
	if ((ux & 0x7fffffffu) == 0)
		return u2f(0xff800000u); /* +-0 -> -inf */
	if (ux & 0x80000000u)
		return u2f(0x7fc00000u); /* x < 0 -> NaN */
	if (ux == 0x7f800000u)
		return x; /* +inf */
	if (ux < 0x00800000u) { /* subnormal: scale by 2^25 */
		x = x * 33554432.0f;
		ux = f2u(x);
		e = -25;
	}
	e += (int)(ux >> 23) - 127;
	ux &= 0x007fffffu;
	/* m in [1, 2); if m >= sqrt(2) use m/2 and e+1 */
	if (ux >= 0x3504f3u) {
		ux |= 0x3f000000u; /* m/2 in [sqrt(1/2), 1) */
		e += 1;
	} else {
		ux |= 0x3f800000u;
	}
	float m = u2f(ux);
	float f = m - 1.0f;
	float s = f / (2.0f + f);
	float z = s * s;
	float q = 1.0f / 9.0f + z * (1.0f / 11.0f);

	q = 1.0f / 7.0f + z * q;
	q = 1.0f / 5.0f + z * q;
	q = 1.0f / 3.0f + z * q;
	/* log m = 2s + 2s z q = f - (f - 2s) + 2 s z q; f - 2s = s f exactly
	 * in real arithmetic (since 2s + sf = f), so log m = f - s (f - 2zq). */
	float hf = 2.0f * z * q;
	float lm = f - s * (f - hf);
	float fe = (float)e;

	return fe * LN2_HI + (lm + fe * LN2_LO);
}

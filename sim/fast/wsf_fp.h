/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_fp.h - the vector engine's common elements on the host's floating
 * point in wsemu-fast (used by wsf_df.c; checked against the FPU's C
 * model by tests/fast/test_fast_df.c).
 */
#ifndef WSEMU_WSF_FP_H
#define WSEMU_WSF_FP_H

#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vec_model.h"

#define WSF_FLAG_NX 0x01u /* VFLAGS: the FPU's flags, NX in bit 0 */

/*
 * The common elements on the host's IEEE binary32 arithmetic: FADDS, FMULS
 * and FMACS (fmaf: one rounding) in round-to-nearest-even, where the
 * result is the FPU's: every operand finite, the result normal and at
 * least 2^-125 in magnitude (neither zero, subnormal, infinite, NaN nor
 * near the underflow threshold, so no underflow, overflow, invalid or
 * NaN rule is involved). The only flag then is NX, taken from the host's
 * inexact flag unless VFLAGS already holds it (sticky). Everything else,
 * and any other rounding mode, goes to the FPU's C model (vm_elem). make
 * test-fast-df checks the two against each other (tests/fast/test_fast_df.c).
 */
static inline bool wsf_fp_fast(int op, int rm, uint32_t a, uint32_t b, uint32_t d, bool have_nx,
			uint32_t *res, uint32_t *fl)
{
	if (rm != 0 || (op != VM_FADDS && op != VM_FMULS && op != VM_FMACS) ||
	    (a >> 23 & 0xffu) == 0xffu || (b >> 23 & 0xffu) == 0xffu ||
	    (op == VM_FMACS && (d >> 23 & 0xffu) == 0xffu))
		return false;
	float fa, fb, fd;
	memcpy(&fa, &a, 4);
	memcpy(&fb, &b, 4);
	memcpy(&fd, &d, 4);
	if (!have_nx)
		feclearexcept(FE_INEXACT);
	/* volatile: the operation happens between the flag's clear and test */
	volatile float va = fa, vb = fb, vd = fd;
	volatile float vr = op == VM_FADDS ? va + vb : op == VM_FMULS ? va * vb : fmaf(va, vb, vd);
	float r = vr;
	uint32_t u;
	memcpy(&u, &r, 4);
	uint32_t e = u >> 23 & 0xffu;
	if (e <= 1 || e == 0xffu)
		return false; /* below 2^-125 a result may be tiny before rounding */
	*res = u;
	*fl = !have_nx && fetestexcept(FE_INEXACT) ? WSF_FLAG_NX : 0;
	return true;
}

#endif

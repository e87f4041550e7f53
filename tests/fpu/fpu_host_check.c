/* Checks the FPU C model against the host CPU's SSE/FMA arithmetic.
 *
 * Compared: every operation x86 defines the same way as RISC-V, in RNE,
 * RTZ, RDN and RUP (x86 has no RMM), result bits and the five flags, with
 * MXCSR's denormal-operand flag masked out. Excluded, by design:
 *  - any case with a NaN among the inputs or the result (x86 propagates
 *    payloads, RISC-V returns the canonical NaN; the invalid flag for
 *    inf*0+qNaN also differs);
 *  - fmin/fmax when both operands are zeros (minss/maxss return the second
 *    operand, RISC-V orders -0 < +0);
 *  - fcvt.w[u].s whose result is out of range (x86 returns the integer
 *    indefinite value, RISC-V saturates);
 *  - fclass, fsgnj*, fmv (no x86 counterpart; pure bit manipulation).
 * The host side uses inline SSE/FMA instructions under an explicit MXCSR so
 * the compiler can neither reorder nor contract them; the file is also built
 * with -ffp-contract=off -frounding-math. glibc's fmaf is compared with the
 * instruction as well and the count of differences reported (it is not the
 * reference: it may be a software path on hosts without FMA).
 * Usage: fpu_host_check [cases-per-op-per-mode] [seed] */
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpu_model.h"

static uint32_t mxcsr_run(int rm, unsigned *flags, int op, uint32_t a, uint32_t b, uint32_t c)
{
	static const unsigned rc[4] = { 0u << 13, 3u << 13, 1u << 13, 2u << 13 };
	unsigned csr = 0x1f80u | rc[rm], out;
	float fa, fb, fc;
	uint32_t r = 0;
	int32_t i32;
	int64_t i64;

	memcpy(&fa, &a, 4);
	memcpy(&fb, &b, 4);
	memcpy(&fc, &c, 4);
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
	switch (op) {
	case FPU_ADD: __asm__ volatile("addss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_SUB: __asm__ volatile("subss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_MUL: __asm__ volatile("mulss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_DIV: __asm__ volatile("divss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_SQRT: __asm__ volatile("sqrtss %0, %0" : "+x"(fa)); break;
	case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD:
		/* fa = fa * fb + fc; signs applied by exact negation beforehand */
		__asm__ volatile("vfmadd213ss %2, %1, %0" : "+x"(fa) : "x"(fb), "x"(fc));
		break;
	case FPU_CVT_W_S:
		__asm__ volatile("cvtss2si %1, %0" : "=r"(i32) : "x"(fa));
		r = (uint32_t)i32;
		break;
	case FPU_CVT_WU_S:
		__asm__ volatile("cvtss2si %1, %0" : "=r"(i64) : "x"(fa));
		r = (uint32_t)i64;
		break;
	case FPU_CVT_S_W:
		i32 = (int32_t)a;
		__asm__ volatile("cvtsi2ssl %1, %0" : "=x"(fa) : "r"(i32));
		break;
	case FPU_CVT_S_WU:
		i64 = (int64_t)(uint64_t)a;
		__asm__ volatile("cvtsi2ssq %1, %0" : "=x"(fa) : "r"(i64));
		break;
	case FPU_MIN: __asm__ volatile("minss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_MAX: __asm__ volatile("maxss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_EQ: __asm__ volatile("cmpeqss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_LT: __asm__ volatile("cmpltss %1, %0" : "+x"(fa) : "x"(fb)); break;
	case FPU_LE: __asm__ volatile("cmpless %1, %0" : "+x"(fa) : "x"(fb)); break;
	default: break;
	}
	__asm__ volatile("stmxcsr %0" : "=m"(out));
	if (op != FPU_CVT_W_S && op != FPU_CVT_WU_S)
		memcpy(&r, &fa, 4);
	if (op == FPU_EQ || op == FPU_LT || op == FPU_LE)
		r &= 1u;
	*flags = ((out & 0x01u) ? FPU_NV : 0) | ((out & 0x04u) ? FPU_DZ : 0) |
		 ((out & 0x08u) ? FPU_OF : 0) | ((out & 0x10u) ? FPU_UF : 0) |
		 ((out & 0x20u) ? FPU_NX : 0); /* bit 1 (denormal operand) masked */
	csr = 0x1f80u;
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
	return r;
}

static int is_nan(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }

/* glibc's fmaf under fesetround/fetestexcept, for comparison with the
 * instruction (glibc selects a hardware or a software fmaf at run time). */
static uint32_t glibc_fmaf(int rm, unsigned *flags, uint32_t a, uint32_t b, uint32_t c)
{
	static const int mode[4] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };
	volatile float fa, fb, fc, fr;
	uint32_t r;
	int ex;

	memcpy((void *)&fa, &a, 4);
	memcpy((void *)&fb, &b, 4);
	memcpy((void *)&fc, &c, 4);
	fesetround(mode[rm]);
	feclearexcept(FE_ALL_EXCEPT);
	fr = fmaf(fa, fb, fc);
	ex = fetestexcept(FE_ALL_EXCEPT);
	fesetround(FE_TONEAREST);
	memcpy(&r, (const void *)&fr, 4);
	*flags = ((ex & FE_INVALID) ? FPU_NV : 0) | ((ex & FE_DIVBYZERO) ? FPU_DZ : 0) |
		 ((ex & FE_OVERFLOW) ? FPU_OF : 0) | ((ex & FE_UNDERFLOW) ? FPU_UF : 0) |
		 ((ex & FE_INEXACT) ? FPU_NX : 0);
	return r;
}

int main(int argc, char **argv)
{
	static const int ops[] = { FPU_ADD, FPU_SUB, FPU_MUL, FPU_DIV, FPU_SQRT,
				   FPU_MADD, FPU_MSUB, FPU_NMSUB, FPU_NMADD,
				   FPU_MIN, FPU_MAX, FPU_EQ, FPU_LT, FPU_LE,
				   FPU_CVT_W_S, FPU_CVT_WU_S, FPU_CVT_S_W, FPU_CVT_S_WU };
	long n = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	long fails = 0, total = 0, glibc_cmp = 0, glibc_diff = 0;
	unsigned oi;

	if (!__builtin_cpu_supports("fma")) {
		fprintf(stderr, "fpu_host_check: host CPU lacks FMA; fused ops not checked\n");
	}
	printf("%-10s %4s %10s %10s\n", "op", "rm", "compared", "excluded");
	for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
		int op = ops[oi], rm;
		int fused = op >= FPU_MADD && op <= FPU_NMADD;

		if (fused && !__builtin_cpu_supports("fma"))
			continue;
		for (rm = 0; rm < 4; rm++) {
			uint64_t st = seed * 0x9e3779b97f4a7c15ull + (uint64_t)(op * 8 + rm) + 1;
			long cmp = 0, skip = 0, i;

			if (!fpu_op_uses_rm(op) && rm)
				continue;
			for (i = 0; i < n; i++) {
				uint32_t a, b, c, m, h, mf, ha = 0, hc = 0;
				unsigned hf;
				int ar = fpu_op_arity(op);

				fpu_gen_case(&st, op, &a, &b, &c);
				m = fpu_model(op, rm, a, b, c, &mf);
				if ((op != FPU_CVT_S_W && op != FPU_CVT_S_WU &&
				     (is_nan(a) || (ar > 1 && is_nan(b)) || (ar > 2 && is_nan(c)))) ||
				    (fpu_op_float_result(op) && is_nan(m)) ||
				    ((op == FPU_MIN || op == FPU_MAX) &&
				     !((a | b) & 0x7fffffffu)) ||
				    ((op == FPU_CVT_W_S || op == FPU_CVT_WU_S) && (mf & FPU_NV))) {
					skip++;
					continue;
				}
				ha = a;
				hc = c;
				if (op == FPU_NMSUB || op == FPU_NMADD)
					ha ^= 0x80000000u;
				if (op == FPU_MSUB || op == FPU_NMADD)
					hc ^= 0x80000000u;
				h = mxcsr_run(rm, &hf, op, ha, b, hc);
				cmp++;
				if (fused) {
					unsigned gf;
					uint32_t g = glibc_fmaf(rm, &gf, ha, b, hc);

					glibc_cmp++;
					if (g != h || gf != hf)
						glibc_diff++;
				}
				if (h != m || hf != mf) {
					if (fails++ < 20)
						printf("MISMATCH %s rm=%d a=%08" PRIx32 " b=%08" PRIx32
						       " c=%08" PRIx32 ": model %08" PRIx32 "/%02" PRIx32
						       " host %08" PRIx32 "/%02x\n",
						       fpu_op_name(op), rm, a, b, c, m, mf, h, hf);
				}
			}
			total += cmp;
			printf("%-10s %4d %10ld %10ld\n", fpu_op_name(op), rm, cmp, skip);
		}
	}
	printf("glibc fmaf vs vfmadd213ss: %ld cases, %ld differ (information only)\n",
	       glibc_cmp, glibc_diff);
	printf("fpu_host_check: %ld cases compared, %ld mismatches\n", total, fails);
	return fails ? 1 : 0;
}

/* Bit-exact model of the wsemu FPU: RISC-V F-extension semantics for IEEE
 * binary32, computed with integer arithmetic only (no host floating point),
 * so that its results never depend on the host's rounding mode or flags.
 * Operation and rounding-mode codes match rtl/pe/fpu/fpu_pkg.sv. */
#ifndef WSEMU_FPU_MODEL_H
#define WSEMU_FPU_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum fpu_op {
	FPU_ADD = 0, FPU_SUB, FPU_MUL, FPU_DIV, FPU_SQRT,
	FPU_MADD, FPU_MSUB, FPU_NMSUB, FPU_NMADD,
	FPU_SGNJ, FPU_SGNJN, FPU_SGNJX, FPU_MIN, FPU_MAX,
	FPU_EQ, FPU_LT, FPU_LE, FPU_CLASS,
	FPU_CVT_W_S, FPU_CVT_WU_S, FPU_CVT_S_W, FPU_CVT_S_WU,
	FPU_MV_X_W, FPU_MV_W_X,
	FPU_NUM_OPS
};

/* Rounding modes as encoded in the RISC-V rm field / frm. */
enum fpu_rm { FPU_RNE = 0, FPU_RTZ = 1, FPU_RDN = 2, FPU_RUP = 3, FPU_RMM = 4 };

/* fflags bits as in the RISC-V fcsr. */
#define FPU_NX 0x01u
#define FPU_UF 0x02u
#define FPU_OF 0x04u
#define FPU_DZ 0x08u
#define FPU_NV 0x10u

#define FPU_CANON_NAN 0x7fc00000u

/* Compute one operation. a, b, c are the rs1, rs2, rs3 operands (raw bits;
 * for fcvt.s.w[u] and fmv.w.x, a is the integer source). Returns the raw
 * result (integer result for compares, fclass, fcvt.w[u].s, fmv.x.w) and
 * stores the exception flags in *flags. rm must be 0..4 (no DYN). */
uint32_t fpu_model(int op, int rm, uint32_t a, uint32_t b, uint32_t c,
		   uint32_t *flags);

/* Number of operands an operation reads (1..3). */
int fpu_op_arity(int op);
/* Whether the result of op is a float (1) or an integer (0). */
int fpu_op_float_result(int op);
/* Whether the rounding mode affects op (only those ops are swept over rm). */
int fpu_op_uses_rm(int op);
/* Lower-case mnemonic ("fadd.s", "fcvt.w.s", ...). */
const char *fpu_op_name(int op);
/* RISC-V fclass.s mask of x (bit 0 = -inf ... bit 9 = quiet NaN). */
uint32_t fpu_classify(uint32_t x);

/* Biased TestFloat-style case generator: exponent extremes, subnormals,
 * ties, near-overflow, cancellation, special values and plain random bits.
 * *state is an xorshift64 state (non-zero). */
void fpu_gen_case(uint64_t *state, int op, uint32_t *a, uint32_t *b,
		  uint32_t *c);
uint64_t fpu_rand64(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif

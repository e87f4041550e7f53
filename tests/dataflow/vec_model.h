/* C model of the PE's vector (DSD) engine and its move channel: the element
 * order, operand addressing and operations of rtl/pe/dataflow/wse_df_vec.sv
 * and wse_df_mov.sv, computed with
 * the FPU's C model (tests/fpu/fpu_model.c), so that results and flags are
 * bit-exact. FMACS is fused: one fmadd.s (a * B + dst), one rounding. */
#ifndef WSEMU_VEC_MODEL_H
#define WSEMU_VEC_MODEL_H

#include <stdint.h>

enum { VM_FMOVS = 0, VM_FADDS, VM_FMULS, VM_FMACS, VM_FMAXS, VM_RELU, VM_SPMACS, VM_SPIDX };
/* VM_SPMACS (docs/pe-programming.md, "Sparse streams"): b is a fabric
 * descriptor carrying one sparse share (docs/training-dataflow.md section
 * 13); dst (memory, LEN0 x LEN1 = tokens x slots) and a (memory) are
 * addressed at (i0, slot). For each value, at the slot its gap codes name,
 * one pass: dst = a * value (the share's first value), else dst = fma(a,
 * value, dst). An empty share (one control wavelet) writes +0 to the pass
 * at slot 0. With bmode VM_SP_ACC every value is fma(a, value, dst) and an
 * empty share writes nothing (a chain from what dst holds). A malformed
 * share or operand types the mode does not take set VM_FLAG_SPARSE
 * (below). */
#define VM_SP_ACC 1
/* VM_SPIDX (docs/pe-programming.md, "Sparse gathers"): b is a fabric
 * descriptor carrying one index-only share (gap-coded index wavelets, no
 * values, the last index wavelet with the control bit; an empty share is
 * one control wavelet of four escapes). The named slots below dst's LEN0
 * go, ascending, into the gather table (struct vm_gather), their number
 * becomes its count n; dst is not written. With op->gather set on one of
 * VM_FMOVS..VM_RELU, the operation's LEN0 is n (dst's LEN0 ignored) and
 * a's element (i1, i0) is at a.base + table[i0]*a.st0 + i1*a.st1. */
#define VM_GATHER_MAX 1024u
struct vm_gather {
	uint16_t slot[VM_GATHER_MAX];
	uint32_t n;      /* the gather count (reset: 0) */
};
/* Sticky flag of the engine (VFLAGS bit 8): a sparse share the PE refuses:
 * a value at a slot >= LEN1 (not computed), a control wavelet where an
 * index wavelet is due (the share ends there), or an SPMACS whose b is not
 * on the fabric or whose dst or a is (nothing done); for SPIDX a slot at
 * or beyond dst's LEN0 or beyond the table's VM_GATHER_MAX entries
 * (consumed, not stored), an SPIDX whose b is in memory (nothing popped,
 * table and count unchanged); a gathered operation whose a is on the
 * fabric, and the gather flag on SPMACS or SPIDX (nothing done, nothing
 * popped). */
#define VM_FLAG_SPARSE 0x100u
/* Gap codes of a sparse share: 255 skips 255 slots without a value. */
#define VM_SP_ESC 255u
/* VM_B_ADDEND: FMACS computes dst = b + a * scalar (dst not read); any
 * other operation takes the scalar as B, as with VM_B_SCALAR. */
enum { VM_B_VEC = 0, VM_B_SCALAR, VM_B_PERPASS, VM_B_ADDEND };

struct vm_dsd {
	uint32_t base;   /* word index into mem, or color */
	uint32_t len0, len1;
	int32_t st0, st1;
	int fab;
};

struct vm_op {
	int op, bmode, rm;
	int gather;      /* WSE_VOP_GATHER: a addressed through the gather table */
	struct vm_dsd d, a, b;
	uint32_t scalar;
};

/* A fabric FIFO per color: wavelets the engine sends, in order, and pops;
 * ctrl[c][k] is the control bit of q[c][k] (the engine sends data). */
struct vm_fabric {
	uint32_t q[32][1024];
	uint8_t ctrl[32][1024];
	unsigned head[32], tail[32];
};

/* One element of operation op (VM_*) in rounding mode rm: a, the B
 * operand b, and for FMACS the addend d (a * b + d, one rounding); sets
 * *flags to its FPU flags. */
uint32_t vm_elem(int op, int rm, uint32_t a, uint32_t b, uint32_t d, uint32_t *flags);

/* Runs one operation on mem (words) with the engine's gather table gt
 * (read by gathered operations, written by VM_SPIDX). Returns 0, or -1 if
 * it pops an empty fabric queue. ORs the flags of every element into
 * *flags. */
int vm_run(uint32_t *mem, uint32_t mem_words, struct vm_fabric *fab, struct vm_gather *gt,
	   const struct vm_op *op, uint32_t *flags);

/* The move channel (rtl/pe/dataflow/wse_df_mov.sv): FMOVS fabric -> memory,
 * mv->d a memory descriptor, mv->a a fabric one (op, bmode, b unused).
 * Returns 0; -2 when the hardware rejects the move (dst on the fabric, a in
 * memory, a zero length): nothing is popped or written; -1 if it pops an
 * empty queue. Flags are not touched (a copy raises none). */
int vm_move(uint32_t *mem, uint32_t mem_words, struct vm_fabric *fab,
	    const struct vm_op *mv);

/* The ordering contract between the channels: nonzero when op reads or
 * writes a word that the move mv writes, i.e. when op may not run before mv
 * has completed. A gathered operation (its a rows depend on the table) is
 * counted as a conflict; an SPIDX reads no memory. */
int vm_move_conflicts(const struct vm_op *mv, const struct vm_op *op, uint32_t mem_words);

#endif

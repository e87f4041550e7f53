/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_mlp_abi.h - the contract between libwsehost's mesh training backend
 * (train/src/train_mesh.c) and the MLP kernel that runs on every PE
 * (firmware/kernels/mlp/mlp_train.c): the parameter block the host writes
 * into each tile before a pass, the colors the kernel uses, and the order
 * of what the host streams in and out. docs/training-dataflow.md is the
 * text both are written against. Self-contained: fixed-width types only.
 */
#ifndef WSEMU_WSE_MLP_ABI_H
#define WSEMU_WSE_MLP_ABI_H

#include "wse_wire.h"

#define WSE_MLP_MAGIC 0x4d4c5031u /* "MLP1" */
#define WSE_MLP_MAX_LAYERS 8
#define WSE_MLP_MAX_ROWS 8 /* the owner colors 1 .. R-1 end below C_REDUCE_A */

/* Colors (docs/training-dataflow.md section 6). */
#define WSE_MLP_C_WEIGHTS 0u   /* west edge -> row multicast: weights, biases */
#define WSE_MLP_C_OWNER 1u     /* 1 .. R-1: row R-1 straight north to row k (forward totals) */
#define WSE_MLP_C_REDUCE_A 8u  /* column chain southward, hop k even */
#define WSE_MLP_C_REDUCE_B 9u  /*   hop k odd */
#define WSE_MLP_C_GRAD_A 10u   /* row chain eastward (to the outlet), column even */
#define WSE_MLP_C_GRAD_B 11u   /*   column odd */
#define WSE_MLP_C_RETURN_A 16u /* column chain northward, by distance from row R-1 */
#define WSE_MLP_C_RETURN_B 17u
#define WSE_MLP_C_DELTA 18u    /* column multicast from row 0 southward */
#define WSE_MLP_C_SHARE 19u    /* 19 + c: west edge -> column c alone: index-only shares */
/* Columns up to which every column gets its own copy of the
 * backward-weights pass's index-only shares (colors 19 .. 23); on a wider
 * mesh the one copy goes down color 0 to the whole row. */
#define WSE_MLP_MAX_SHARE_COLS 5u

/* What a pass does. */
#define WSE_MLP_MODE_FORWARD 0u /* forward and loss: metrics only */
#define WSE_MLP_MODE_TRAIN 1u   /* forward, loss, backward: gradients out */
/* Or-ed into mode with prof set: time every output feature's FMACS and
 * reduction apart (the engine drains between them). */
#define WSE_MLP_MODE_DETAIL 0x100u

/* Profile words (prof != 0): cycles of the pass's phases on this tile,
 * each phase ended by waiting for the vector engine (docs/training.md). */
#define WSE_MLP_PROF_WORDS 48u
#define WSE_MLP_PROF_LOAD 0u                  /* batch and labels in */
#define WSE_MLP_PROF_FWD(l) (1u + (l))        /* forward of layer l */
#define WSE_MLP_PROF_SOFTMAX 5u
#define WSE_MLP_PROF_BWW(l) (6u + (l))        /* backward, weights of layer l */
#define WSE_MLP_PROF_BWI(l) (10u + (l))       /* backward, inputs of layer l */
#define WSE_MLP_PROF_FWD_FMACS(l) (14u + (l)) /* DETAIL: forward FMACS of all features */
#define WSE_MLP_PROF_FWD_RED(l) (18u + (l))   /* DETAIL: their reductions (+ bias, ReLU) */
/* words 22 .. 29 unused */
#define WSE_MLP_PROF_LOCAL 30u  /* after the pass: layer 0's forward FMACS with the
				 * weights from memory (zeros), no fabric */
#define WSE_MLP_PROF_LOCAL_ELEMS 31u /* its elements (multiply-adds) */
#define WSE_MLP_PROF_BWW_DZ(l) (32u + (l))    /* DETAIL: backward weights, the deltas' gather */
#define WSE_MLP_PROF_BWW_FMACS(l) (36u + (l)) /* DETAIL: the chain's passes but the last */
#define WSE_MLP_PROF_BWW_CHAIN(l) (40u + (l)) /* DETAIL: its last pass, sent east */
#define WSE_MLP_PROF_BWW_BIAS(l) (44u + (l))  /* DETAIL: the bias gradients */

/*
 * The parameter block, symbol `wse_mlp_params` of the kernel ELF (in .data,
 * so a core reset keeps it). The host fills it for each tile. Addresses are
 * byte addresses in the tile's DMEM, word aligned; the host lays the buffers
 * out in the free DMEM between the kernel's data and its stack. Buffers of
 * "a(n) x Fw" words (Fw = wse_mlp_feature_words(Tc)) hold feature slot s
 * (feature r + s R) of token slot j (token c + j C) at word s Fw + j.
 */
struct wse_mlp_params {
	wse_u32 magic;          /* WSE_MLP_MAGIC */
	wse_u32 mode;           /* WSE_MLP_MODE_* */
	wse_u32 rows, cols;     /* R, C */
	wse_u32 x, y;           /* this tile */
	wse_u32 tc;             /* token slots per column */
	wse_u32 nvalid;         /* slots j < nvalid hold real tokens */
	wse_u32 nlayers;        /* L */
	wse_u32 dims[WSE_MLP_MAX_LAYERS + 1];
	wse_u32 inv_n;          /* binary32 bits of 1 / N (output deltas) */
	wse_u32 act[WSE_MLP_MAX_LAYERS + 1]; /* (a(dims[l]) + 1) x Fw: layer inputs, then
				* +1.0 in slot a(dims[l]); act[L]: a(dims[L]) x Fw logits */
	wse_u32 delta[2];       /* a(max dims[l>=1]) x Fw each */
	wse_u32 part;           /* Tc: partial sums */
	wse_u32 dall;           /* max dims[l>=1] x Fw: every output feature's deltas,
				 * gathered to every row (backward) */
	wse_u32 grad;           /* a(max dims[l<L]): weight-gradient partials */
	wse_u32 bsum;           /* A(n): bias-gradient partials of the row's outputs */
	wse_u32 zeros;          /* max(Tc, a(max dims)) words of +0, set by the kernel */
	wse_u32 labels;         /* Tc u32: class of token slot j (streamed in) */
	wse_u32 loss;           /* Tc out: per-token loss on the label's row */
	wse_u32 cand;           /* Tc out: lowest local class k with z[k] == max, else K */
	wse_u32 scratch;        /* 2 Tc: softmax max and sum */
	wse_u32 cycles;         /* out: mcycle when the pass ended */
	wse_u32 gemm_cycles;    /* out: cycles of the streamed GEMMs: forward, and
				 * backward from the end of the softmax */
	wse_u32 prof;           /* 0, or WSE_MLP_PROF_WORDS words: the profile */
	wse_u32 sparse;         /* bit l: layer l's weights come as sparse shares
				 * (docs/training-dataflow.md section 13), its
				 * forward and backward-inputs streams */
};

/* The kernel's failure code (the tile's exit value) when its vector engine
 * refused a sparse share (WSE_VFLAG_SPARSE: a slot out of range, a control
 * wavelet where an index wavelet was due). */
#define WSE_MLP_FAIL_SPARSE 5u

/* Features of n on row r of R rows: a(n) = ceil((n - r) / R). */
static inline wse_u32 wse_mlp_count(wse_u32 n, wse_u32 r, wse_u32 R)
{
	return n > r ? (n - r + R - 1) / R : 0u;
}

/* Words one feature's Tc token slots take in act[] and delta[]: Tc rounded
 * up to odd. DMEM banks are word-interleaved (an even number of them), so a
 * walk across features at this stride alternates banks like the stride-1
 * walk of grad[] beside it; at an even stride the backward FMACS (grad[s] +=
 * act[s][j] * dz[j]) would read one bank twice as often as the other and
 * run at 2/3 element per cycle (docs/training-dataflow.md). */
static inline wse_u32 wse_mlp_feature_words(wse_u32 tc)
{
	return tc | 1u;
}

/* Color of the column-chain hop sent by row r southward (reduction). */
static inline wse_u32 wse_mlp_reduce_color(wse_u32 r)
{
	return (r & 1u) ? WSE_MLP_C_REDUCE_B : WSE_MLP_C_REDUCE_A;
}
/* Color of the hop sent by row r northward (return chain from row R-1). */
static inline wse_u32 wse_mlp_return_color(wse_u32 r, wse_u32 R)
{
	return ((R - 1u - r) & 1u) ? WSE_MLP_C_RETURN_B : WSE_MLP_C_RETURN_A;
}
/* Color on which row R-1 sends the forward totals owned by row k < R-1
 * north to row k, past the rows in between (R <= WSE_MLP_MAX_ROWS). */
static inline wse_u32 wse_mlp_owner_color(wse_u32 k)
{
	return WSE_MLP_C_OWNER + k;
}
/* Color of the row-chain hop sent by column c eastward (gradients). */
static inline wse_u32 wse_mlp_grad_color(wse_u32 c)
{
	return (c & 1u) ? WSE_MLP_C_GRAD_B : WSE_MLP_C_GRAD_A;
}

/* Copies of each index-only share of the backward-weights pass a row
 * takes on a mesh of C columns (docs/training-dataflow.md section 13): one
 * per column while C <= WSE_MLP_MAX_SHARE_COLS, so a column never waits
 * for room in another column's queue; else one, the row's multicast. */
static inline wse_u32 wse_mlp_share_copies(wse_u32 C)
{
	return C <= WSE_MLP_MAX_SHARE_COLS ? C : 1u;
}

/* Color on which column c of C takes those shares: its own copy's, or
 * the multicast's (color 0). */
static inline wse_u32 wse_mlp_share_color(wse_u32 c, wse_u32 C)
{
	return C <= WSE_MLP_MAX_SHARE_COLS ? WSE_MLP_C_SHARE + c : WSE_MLP_C_WEIGHTS;
}

#endif /* WSEMU_WSE_MLP_ABI_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_ref.h - the C reference trainer of wsemu.
 *
 * Computes an MLP's forward pass, softmax cross-entropy loss, backward pass
 * and (for the tests) optimizer updates with exactly the operations and the
 * summation order of docs/training-dataflow.md for a mesh of R rows x C
 * columns, so a mesh that follows that text is bit-identical to it. It has
 * its own mapping functions and shares no code with the mesh runtime.
 * Compile with -ffp-contract=off -fno-builtin; fused multiply-adds are
 * C99 fmaf (correctly rounded, as the PE's fmadd.s and FMACS).
 */
#ifndef WSE_TRAIN_REF_H
#define WSE_TRAIN_REF_H

#include <stddef.h>
#include <stdint.h>

#define TRAIN_REF_MAX_LAYERS 8

struct train_ref_net {
	unsigned rows, cols;      /* mesh R x C whose order is reproduced */
	unsigned nlayers;         /* weight layers L (>= 1) */
	unsigned dims[TRAIN_REF_MAX_LAYERS + 1]; /* dims[0] input ... dims[L] classes */
	float *w[TRAIN_REF_MAX_LAYERS];  /* w[l][o * dims[l] + i] */
	float *b[TRAIN_REF_MAX_LAYERS];  /* b[l][o] */
	/* mask[l] (same shape as w[l], +1.0 kept, +0.0 masked) or NULL (dense):
	 * a product with a masked weight is not computed, the gradient of a
	 * masked weight is +0 (docs/training-dataflow.md, section 13) */
	const float *mask[TRAIN_REF_MAX_LAYERS];
	/* the weights' version: two passes given the same nonzero version
	 * read the same weights (a backend whose device keeps a copy sends
	 * them once); 0: unknown */
	uint64_t version;
};

struct train_ref_out {
	float loss_sum;      /* sum of per-token losses, tokens in order */
	float loss;          /* loss_sum / B */
	uint32_t correct;    /* tokens whose arg max is the label */
	uint64_t cycles;     /* a device's cycles for the pass (0 on the host) */
	/* the pass's wall time where it ran, set by a backend whose passes
	 * run elsewhere (an MPI rank); 0: the caller times the pass */
	double ms;
	float *dw[TRAIN_REF_MAX_LAYERS]; /* gradients (NULL: forward only) */
	float *db[TRAIN_REF_MAX_LAYERS];
	/* the logits of the B tokens, logits[t * dims[L] + k] (NULL: not
	 * wanted); a device backend reads them from the device */
	float *logits;
};

/*
 * One forward (and, if out->dw[0] != NULL, backward) pass over a batch of
 * B tokens: x[t * dims[0] + i], labels[t] < dims[L]. norm is the number of
 * examples the loss is averaged over (B, or B times the micro-batches of an
 * accumulated step): the output deltas are multiplied by 1.0f / norm, and
 * out->loss = loss_sum / norm. Gradients go to out->dw, out->db, the
 * logits to out->logits when it is not NULL.
 * Returns 0 or a negative enum wse_error (wsehost.h):
 *   WSE_ERROR_INVALID_PARAM  a NULL pointer, B or norm 0, rows, columns or
 *                            layers 0 (or layers over TRAIN_REF_MAX_LAYERS),
 *                            a layer of width 0, a label >= dims[L]
 *   WSE_ERROR_NO_MEM         memory ran out
 * On error out is left as it was.
 */
int train_ref_pass(const struct train_ref_net *net, const float *x,
		   const uint8_t *labels, unsigned B, unsigned norm,
		   struct train_ref_out *out);

/* Element-wise optimizer updates of the reference (docs/training-dataflow.md,
 * "MemoryX"): written independently of train/src/memoryx.c. */
void train_ref_sgd(size_t n, float *w, float *mom, const float *g, float lr,
		   float momentum, float wd);
void train_ref_adam(size_t n, float *w, float *m, float *v, const float *g,
		    float lr, float beta1, float beta2, float eps, float wd,
		    int decoupled, float beta1_pow, float beta2_pow);

#endif /* WSE_TRAIN_REF_H */

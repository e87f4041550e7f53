/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sparse.h - weight masks and the sparse weight stream of libwsetrain
 * (docs/training-dataflow.md, "13. Sparse weight streams"; docs/training.md,
 * "Sparsity"). Internal to the library.
 *
 * A mask is a float array of the weight matrix's shape holding 1.0 (kept)
 * or 0.0 (masked), so that MemoryX keeps, saves and restores it as one
 * more tensor. Everything here is a pure function of its arguments.
 */
#ifndef WSE_SPARSE_H
#define WSE_SPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Number of masked elements of an n-element matrix at sparsity s:
 * floor(s * n), computed in double. */
size_t sp_masked_count(size_t n, float s);

/* A fixed random mask: exactly sp_masked_count(n, s) elements masked,
 * chosen by a partial Fisher-Yates shuffle driven by splitmix64 from seed.
 * Returns 0 or WSE_ERROR_NO_MEM (mask unchanged). */
int sp_mask_random(size_t n, float s, uint64_t seed, float *mask);

/* Magnitude pruning: the sp_masked_count(n, s) elements of smallest |w|
 * masked (ties: lower index masked first; NaN counts as largest).
 * Returns 0 or WSE_ERROR_NO_MEM (mask unchanged). */
int sp_mask_magnitude(size_t n, float s, const float *w, float *mask);

/* 0 if every element of mask is +1.0 or +0.0, else the index of the first
 * other value plus one. */
size_t sp_mask_check(size_t n, const float *mask);

/* Nonzero-balanced order: cnt[k] is the nonzero count of item k (a row of
 * a matrix); order[] gets the items sorted by count, largest first (ties:
 * lower index first), and lane[k] the lane (mesh row) item k is dealt to:
 * the item at sorted position p goes to lane p mod R. Returns 0, or
 * WSE_ERROR_INVALID_PARAM for R = 0, WSE_ERROR_NO_MEM. */
int sp_row_order(unsigned n, const uint32_t *cnt, unsigned R, uint32_t *order,
		 uint32_t *lane);

/* Wavelets of a layer's sparse streams (section 13), by category: the
 * forward stream (total is its sum), and the backward-weights pass's
 * index-only shares in and kept gradients out. */
struct sp_stream_bytes {
	uint64_t index;   /* index wavelets (four 8-bit gap codes each), bytes */
	uint64_t weights; /* nonzero weight values, bytes */
	uint64_t biases;  /* bias values (dense), bytes */
	uint64_t empty;   /* control wavelets of shares with no value, bytes */
	uint64_t total;   /* the forward stream: index + weights + biases + empty */
	uint64_t bww_index; /* index-only shares with a kept slot: their index wavelets */
	uint64_t bww_empty; /* index-only shares with none: one control wavelet each */
	uint64_t grads;     /* the weight gradients streamed out: the kept ones */
};

/* The link bytes (4 per wavelet) of the sparse streams of an n_o x n_i
 * matrix with mask (NULL: dense) on R mesh rows: the forward stream,
 * biases included, and the backward-weights pass's index-only shares and
 * kept gradients. WSE_ERROR_INVALID_PARAM for R or a size 0. */
int sp_stream_bytes(unsigned n_o, unsigned n_i, const float *mask, unsigned R,
		    struct sp_stream_bytes *out);

/* One wavelet of a sparse stream as the host builds it: 32 data bits and
 * the control bit (the color is the row's stream color). */
struct sp_wavelet {
	uint32_t data;
	uint8_t ctrl;
};

/* The share of output o for mesh row r (section 13) encoded: values of
 * W[o][i] for i = r, r+R, ... whose mask is 1, plus the bias b (pass NULL
 * for a row that does not own o) at the one-slot. At most cap wavelets
 * into out; returns the number written (0 for a row with no input feature
 * of a layer with n_i < R that does not own o), or WSE_ERROR_OVERFLOW. */
int sp_share_encode(unsigned n_i, unsigned R, unsigned r, const float *wo,
		    const float *mo, const float *bias, struct sp_wavelet *out,
		    size_t cap);

/* The index-only share of output o for mesh row r (section 13, the
 * backward-weights pass): the gap codes of the forward share of (o, r)
 * for the kept slots of mo (NULL: every slot), without values and without
 * the bias's slot; the last index wavelet carries the control bit, its
 * unused codes escapes; a share with no kept slot is one control wavelet
 * 0xffffffff. At most cap wavelets into out; returns the number written
 * (0 for a row with no input feature), or WSE_ERROR_OVERFLOW. */
int sp_index_encode(unsigned n_i, unsigned R, unsigned r, const float *mo,
		    struct sp_wavelet *out, size_t cap);

/* Decode and check one share of n wavelets for mesh row r of a layer with
 * n_i inputs (owner: the row owns the output, so its share ends with the
 * bias): the (slot, value) pairs into slot[] and val[] (at most cap;
 * slot n_r = the one-slot, the bias). Returns the number of pairs, or
 * WSE_ERROR_MALFORMED (err says why: a slot out of range, a missing or
 * early control wavelet, an index wavelet with no value after it) or
 * WSE_ERROR_OVERFLOW. */
int sp_share_decode(unsigned n_i, unsigned R, unsigned r, int owner,
		    const struct sp_wavelet *w,
		    size_t n, uint32_t *slot, float *val, size_t cap, char *err,
		    size_t errlen);

#endif /* WSE_SPARSE_H */

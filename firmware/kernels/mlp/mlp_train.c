/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mlp_train.c - the MLP training kernel: one pass (forward, softmax
 * cross-entropy, backward) of a batch on every PE of the mesh, following
 * docs/training-dataflow.md operation for operation.
 *
 * The core only issues vector operations (the engine runs them in order,
 * so a PE's fabric traffic is in program order on both ends of every
 * link); it computes the softmax itself and masks deltas by the ReLU.
 * Every streamed weight drives one FMACS pass over the PE's token slots.
 * The host fills wse_mlp_params (include/wsemu/wse_mlp_abi.h), resets the
 * core, streams the weights in and takes the gradients out; the kernel
 * ends with wse_exit(0), which the host sees as the tile's DONE.
 */
#include "wse_rt.h"
#include "wse_df.h"
#include "wsemu/wse_math.h"
#include <wsemu/wse_mlp_abi.h>

struct wse_mlp_params wse_mlp_params __attribute__((section(".data.wse_mlp_params"), used));

#define P wse_mlp_params
#define F(a) ((float *)(uintptr_t)(a))

/* Descriptor roles: 0 dst, 1 a, 2 B. */
#define MEM(d, base, l0, s0, l1, s1) wse_dsd_mem(d, (uint32_t)(base), l0, s0, l1, s1, 0)
#define FAB(d, color, l0, l1) wse_dsd_fabric(d, color, l0, l1)
#define OP(op, bmode) wse_vop(WSE_VOP(op, 0, 1, 2, bmode))

static uint32_t R, C, r, c, Tc;
static uint32_t FW; /* words per feature: wse_mlp_feature_words(Tc) */
static uint32_t *prof; /* profiling run: P.prof */
static int detail;     /* WSE_MLP_MODE_DETAIL */

/* Profiling: the engine drained, the cycle count. */
static uint32_t mark(void)
{
	wse_vwait();
	return wse_cycles();
}

/* Profiling: add the cycles since *t to profile word k; *t = now. */
static void lap(uint32_t *t, uint32_t k)
{
	uint32_t n = mark();

	prof[k] += n - *t;
	*t = n;
}

/* dst[0..n) = +0 */
static void vzero(uint32_t dst, uint32_t n)
{
	MEM(0, dst, n, 1, 1, 0);
	MEM(1, P.zeros, n, 1, 1, 0);
	OP(WSE_V_FMOVS, WSE_B_VEC);
}

/* dst[j] = the fused chain over the k streamed scalars w_s (one pass per
 * wavelet of color 0): the first product src[0][j] * w_0, then
 * fma(src[s][j], w_s, dst[j]) for s = 1 .. k-1; +0 when k = 0. */
static void stream_fmacs(uint32_t dst, uint32_t src, uint32_t k)
{
	if (!k) {
		vzero(dst, Tc);
		return;
	}
	MEM(0, dst, Tc, 1, 1, 0);
	MEM(1, src, Tc, 1, 1, 0);
	FAB(2, WSE_MLP_C_WEIGHTS, 1, 1);
	OP(WSE_V_FMULS, WSE_B_PERPASS);
	if (k > 1) {
		MEM(0, dst, Tc, 1, k - 1, 0);
		MEM(1, src + 4 * FW, Tc, 1, k - 1, FW);
		FAB(2, WSE_MLP_C_WEIGHTS, 1, k - 1);
		OP(WSE_V_FMACS, WSE_B_PERPASS);
	}
}

/* The same chain over a sparse share on color 0 (docs/training-dataflow.md
 * section 13): the kept slots' products only, one SPMACS over the row's k
 * slots; an empty share gives +0, k = 0 (no share sent) too. */
static void stream_spmacs(uint32_t dst, uint32_t src, uint32_t k)
{
	if (!k) {
		vzero(dst, Tc);
		return;
	}
	MEM(0, dst, Tc, 1, k, 0);
	MEM(1, src, Tc, 1, k, FW);
	FAB(2, WSE_MLP_C_WEIGHTS, 1, 1);
	OP(WSE_V_SPMACS, WSE_SP_FIRST);
}

/*
 * Reduce part down the column (rows 0 -> R-1, s_r = s_{r-1} + p_r); row
 * R-1 writes the total to `out` when it owns the feature, else sends it on
 * the owner's color straight north to the owner, whose move channel takes
 * it (forward() issues that move). Rows in between only pass it through
 * their routers.
 */
static void column_reduce(uint32_t owner, uint32_t out)
{
	if (r == 0) {
		FAB(0, wse_mlp_reduce_color(0), Tc, 1);
		MEM(1, P.part, Tc, 1, 1, 0);
		OP(WSE_V_FMOVS, WSE_B_VEC);
		return;
	}
	if (r < R - 1)
		FAB(0, wse_mlp_reduce_color(r), Tc, 1);
	else if (owner == R - 1)
		MEM(0, out, Tc, 1, 1, 0);
	else
		FAB(0, wse_mlp_owner_color(owner), Tc, 1);
	MEM(1, P.part, Tc, 1, 1, 0);
	FAB(2, wse_mlp_reduce_color(r - 1), Tc, 1);
	OP(WSE_V_FADDS, WSE_B_VEC);
}

/* The row's input batch and labels arrive on color 0 ahead of the weights:
 * for each of the row's input features, the values of all Tc C tokens in
 * token order, then the labels of all tokens. Each PE keeps its column's
 * tokens (t = c + j C), straight from the fabric on the move channel: a
 * pass of C wavelets written at element stride 0 lands in one word, and
 * its last wavelet is what stays there. Passes that end at this column's
 * tokens tile the whole stream (the last tokens of one feature and the
 * first of the next share a pass) but for its first c + 1 wavelets, one
 * shorter pass, and the C - 1 - c after this column's last label. So one
 * move per feature, no vector operation and no staging buffer: the load
 * runs at the fabric's rate. pass() waits for the moves before the
 * forward pass, whose weights come on the same color. */
static void load_batch(void)
{
	uint32_t a0 = wse_mlp_count(P.dims[0], r, R);
	uint32_t first = a0 ? P.act[0] : P.labels; /* where slot 0 of the stream goes */

	FAB(4, WSE_MLP_C_WEIGHTS, 1, 1);
	/* token slot 0 of the first feature: c + 1 wavelets */
	MEM(3, first, c + 1, 0, 1, 0);
	wse_vmov(WSE_VMOV(3, 4));
	/* from here passes of C wavelets, one word each */
	wse_dsd_set(3, WSE_DSD_LEN0, C);
	wse_dsd_set(3, WSE_DSD_STRIDE1, 1);
	if (Tc > 1) {
		wse_dsd_set(3, WSE_DSD_BASE, first + 4);
		wse_dsd_set(3, WSE_DSD_LEN1, Tc - 1);
		wse_vmov(WSE_VMOV(3, 4));
	}
	/* features 1 .. a0-1, the base advancing by a feature (ADV) */
	wse_dsd_set(3, WSE_DSD_LEN1, Tc);
	wse_dsd_set(3, WSE_DSD_BASE, P.act[0] + 4 * FW);
	wse_dsd_set(3, WSE_DSD_ADV, FW);
	for (uint32_t s = 1; s < a0; s++)
		wse_vmov(WSE_VMOV(3, 4));
	if (a0) {
		wse_dsd_set(3, WSE_DSD_BASE, P.labels);
		wse_vmov(WSE_VMOV(3, 4));
	}
	/* the tokens of the columns east of this one after the last label,
	 * into part (not live before the forward pass) */
	if (c + 1 < C) {
		MEM(3, P.part, C - 1 - c, 0, 1, 0);
		wse_vmov(WSE_VMOV(3, 4));
	}
}

/* Forward of layer l: z[o] = the chain of the row partials, o's owner
 * row folding the bias into its own partial as one more pass (its input
 * slot ai holds +1.0, pass() sets it); ReLU of the row's outputs at the
 * end for hidden layers. */
static void forward(uint32_t l)
{
	uint32_t ni = P.dims[l], no = P.dims[l + 1];
	uint32_t ai = wse_mlp_count(ni, r, R), ao = wse_mlp_count(no, r, R);
	int hidden = l + 1 < P.nlayers;
	void (*chain)(uint32_t, uint32_t, uint32_t) =
		P.sparse >> l & 1u ? stream_spmacs : stream_fmacs;

	uint32_t t = detail ? mark() : 0;

	/* every total this row owns, by one move from its color (row R-1
	 * forms its own) */
	if (R > 1 && r < R - 1 && ao) {
		MEM(3, P.act[l + 1], Tc, 1, ao, FW);
		FAB(4, wse_mlp_owner_color(r), 1, 1);
		wse_vmov(WSE_VMOV(3, 4));
	}
	for (uint32_t o = 0, owner = 0; o < no; o++) {
		uint32_t out = P.act[l + 1] + 4 * (o / R) * FW;
		uint32_t k = ai + (r == owner);

		if (R == 1) {
			chain(out, P.act[l], k);
		} else {
			chain(P.part, P.act[l], k);
			if (detail)
				lap(&t, WSE_MLP_PROF_FWD_FMACS(l));
			column_reduce(owner, out);
		}
		if (detail)
			lap(&t, WSE_MLP_PROF_FWD_RED(l));
		owner = owner + 1 == R ? 0 : owner + 1;
	}
	if (R > 1 && r < R - 1 && ao)
		wse_mwait();
	if (hidden && ao) {
		MEM(0, P.act[l + 1], Tc, 1, ao, FW);
		MEM(1, P.act[l + 1], Tc, 1, ao, FW);
		OP(WSE_V_RELU, WSE_B_VEC);
	}
}

static float fmax_rv(float a, float b)
{
	float m;
	__asm__("fmax.s %0, %1, %2" : "=f"(m) : "f"(a), "f"(b));
	return m;
}

/* All-reduce of v[0..Tc) down the column: rows 0 -> R-1 combine with
 * op (max or add), row R-1 sends the result back north, every row keeps
 * it. */
static void column_allreduce(float *v, int is_max)
{
	if (R == 1)
		return;
	if (r > 0)
		for (uint32_t j = 0; j < Tc; j++) {
			float in = wse_recv_f(wse_mlp_reduce_color(r - 1));
			v[j] = is_max ? fmax_rv(in, v[j]) : in + v[j];
		}
	if (r < R - 1) {
		for (uint32_t j = 0; j < Tc; j++)
			wse_send_f(wse_mlp_reduce_color(r), v[j]);
		for (uint32_t j = 0; j < Tc; j++)
			v[j] = wse_recv_f(wse_mlp_return_color(r + 1, R));
	}
	if (r > 0)
		for (uint32_t j = 0; j < Tc; j++)
			wse_send_f(wse_mlp_return_color(r, R), v[j]);
}

/* Softmax cross-entropy of the logits act[L]; deltas to delta[0]. */
static void softmax(void)
{
	uint32_t K = P.dims[P.nlayers], ak = wse_mlp_count(K, r, R);
	float *z = F(P.act[P.nlayers]), *dz = F(P.delta[0]);
	float *M = F(P.scratch), *S = M + Tc;
	const uint32_t *lab = (const uint32_t *)(uintptr_t)P.labels;
	float *loss = F(P.loss);
	uint32_t *cand = (uint32_t *)(uintptr_t)P.cand;
	union { uint32_t u; float f; } invn = { P.inv_n };

	for (uint32_t j = 0; j < Tc; j++) {
		float m = -__builtin_inff();

		for (uint32_t s = 0; s < ak; s++)
			m = fmax_rv(m, z[s * FW + j]);
		M[j] = m;
	}
	column_allreduce(M, 1);
	for (uint32_t j = 0; j < Tc; j++) {
		float s = 0.0f;

		for (uint32_t q = 0; q < ak; q++) {
			float e = wse_expf(z[q * FW + j] - M[j]);

			dz[q * FW + j] = e;
			s = s + e;
		}
		S[j] = s;
	}
	column_allreduce(S, 0);
	for (uint32_t j = 0; j < Tc; j++) {
		float rinv = 1.0f / S[j];
		uint32_t y = lab[j];

		cand[j] = K;
		for (uint32_t q = 0; q < ak; q++) {
			uint32_t k = r + q * R;

			if (j >= P.nvalid) {
				dz[q * FW + j] = 0.0f;
				continue;
			}
			if (cand[j] == K && z[q * FW + j] == M[j])
				cand[j] = k;
			float p = dz[q * FW + j] * rinv;
			float g = (k == y) ? p - 1.0f : p;

			dz[q * FW + j] = g * invn.f;
		}
		if (j < P.nvalid && y % R == r)
			loss[j] = wse_logf(S[j]) - (z[(y / R) * FW + j] - M[j]);
	}
}

/* Every output feature's deltas dz[o] (o = 0 .. no-1) to every row, into
 * dall[o] (Fw words each), in two sweeps: every owner row sends its
 * features north to row 0 on the return chain (rows in between forward),
 * in feature order; then row 0 multicasts all of dall down the column in
 * one operation. Each sweep flows one way, so no row waits for a round
 * trip per feature, and the rows meet once per layer rather than once per
 * output feature. */
static void gather_deltas(uint32_t no, uint32_t dz)
{
	/* descriptors set once, their bases advancing by themselves (ADV):
	 * 3 the row's own deltas, 4 the return chain from the south, 5 where
	 * every feature goes (dall on row 0, the return chain north else);
	 * the loop only issues, so it keeps up with 8-element moves */
	wse_dsd_mem(3, dz, Tc, 1, 1, 0, FW);
	if (r < R - 1)
		FAB(4, wse_mlp_return_color(r + 1, R), Tc, 1);
	if (r == 0)
		wse_dsd_mem(5, P.dall, Tc, 1, 1, 0, FW);
	else
		FAB(5, wse_mlp_return_color(r, R), Tc, 1);
	for (uint32_t o = 0, owner = 0; o < no; o++) {
		if (owner == r)
			wse_vop(WSE_VOP(WSE_V_FMOVS, 5, 3, 0, WSE_B_VEC));
		else if (owner > r)
			wse_vop(WSE_VOP(WSE_V_FMOVS, 5, 4, 0, WSE_B_VEC));
		owner = owner + 1 == R ? 0 : owner + 1;
	}
	if (R == 1)
		return;
	if (r == 0) {
		FAB(0, WSE_MLP_C_DELTA, Tc, no);
		MEM(1, P.dall, Tc, 1, no, FW);
	} else {
		MEM(0, P.dall, Tc, 1, no, FW);
		FAB(1, WSE_MLP_C_DELTA, Tc, no);
	}
	OP(WSE_V_FMOVS, WSE_B_VEC);
}

/* Backward, weights and biases of layer l from the deltas at dz. A masked
 * layer (docs/training-dataflow.md section 13) takes, per output, the
 * row's index-only share on color 0 into the engine's gather table
 * (SPIDX) and runs the chain gathered: over the kept slots alone, their
 * gradients the only ones sent east. */
static void backward_weights(uint32_t l, uint32_t dz)
{
	uint32_t ni = P.dims[l], no = P.dims[l + 1];
	uint32_t ai = wse_mlp_count(ni, r, R);
	uint32_t gout = wse_mlp_grad_color(c), gin = c ? wse_mlp_grad_color(c - 1) : 0;
	int sparse = P.sparse >> l & 1u;
	uint32_t g = sparse ? WSE_VOP_GATHER : 0; /* the chain's operations gathered */

	uint32_t t = detail ? mark() : 0;

	/* 1. dz of every output feature to every row; the core reads them
	 * (VSCALAR of the chain's first and last passes) */
	gather_deltas(no, dz);
	wse_vwait();
	if (detail)
		lap(&t, WSE_MLP_PROF_BWW_DZ(l));
	/* the bias partials of the row's own outputs o = r + kR, all at once:
	 * bsum[k] = ((+0 + dz[o][0]) + dz[o][1]) + ... over the token slots,
	 * one pass per slot across the outputs (no element waits for the one
	 * before it, as it would in a chain over one word) */
	uint32_t nown = wse_mlp_count(no, r, R);

	if (nown) {
		MEM(0, P.bsum, nown, 1, 1, 0);
		MEM(1, P.zeros, nown, 1, 1, 0);
		OP(WSE_V_FMOVS, WSE_B_VEC);
		MEM(0, P.bsum, nown, 1, Tc, 0);
		MEM(1, P.bsum, nown, 1, Tc, 0);
		MEM(2, P.dall + 4 * r * FW, nown, R * FW, Tc, 1);
		OP(WSE_V_FADDS, WSE_B_VEC);
	}
	/* the chain's descriptors, set once for the layer (the core only
	 * issues per output, so it keeps ahead of the engine even when a
	 * masked layer's outputs take a few elements each): 0 the first
	 * pass's dst and the last pass's addend, 1 and 2 its a and (column
	 * c > 0) the west operand, 3 4 5 the middle passes' dst, a and
	 * per-pass delta (advancing by itself to the next output's), 6 the
	 * last pass's dst east, 7 its a; 3 is SPIDX's dst too (LEN0 bounds the
	 * row's slots) */
	uint32_t alast = P.act[l] + 4 * (Tc - 1);

	MEM(0, P.grad, ai, 1, 1, 0);
	MEM(1, P.act[l], ai, FW, 1, 0);
	if (c)
		FAB(2, gin, ai, 1);
	MEM(3, P.grad, ai, 1, Tc > 2 ? Tc - 2 : 1, 0);
	MEM(4, P.act[l] + 4, ai, FW, Tc > 2 ? Tc - 2 : 1, 1);
	wse_dsd_mem(5, P.dall + 4, 1, 0, Tc > 2 ? Tc - 2 : 1, 1, FW);
	FAB(6, gout, ai, 1);
	MEM(7, alast, ai, FW, 1, 0);
	for (uint32_t o = 0; o < no; o++) {
		uint32_t owner = o % R;
		const uint32_t *dbits = (const uint32_t *)(uintptr_t)(P.dall + 4 * o * FW);

		/* 2. the weight-gradient chain with the row chain fused in:
		 * g[s] = fma(dz[j], x[s][j], g[s]) over the column's token slots
		 * j = 0 .. Tc-1, g starting from the west neighbour's g (column 0:
		 * from its first product dz[0] * x[s][0]); the last pass goes
		 * east, toward the outlet. One pass per slot, no separate
		 * addition. A masked layer first takes the row's index-only
		 * share of o (descriptor 6, for that operation, on the column's
		 * own share color: wse_mlp_share_color). */
		if (ai && sparse) {
			wse_dsd_set(6, WSE_DSD_BASE, wse_mlp_share_color(c, C));
			wse_vop(WSE_VOP(WSE_V_SPIDX, 3, 3, 6, 0));
			wse_dsd_set(6, WSE_DSD_BASE, gout);
		}
		if (ai) {
			uint32_t first = Tc == 1 ? 6 : 0; /* Tc = 1: the first pass is the last */

			wse_vscalar(dbits[0]);
			if (c == 0)
				wse_vop(WSE_VOP(WSE_V_FMULS, first, 1, 0, WSE_B_SCALAR) | g);
			else
				wse_vop(WSE_VOP(WSE_V_FMACS, first, 1, 2, WSE_B_ADDEND) | g);
			if (Tc > 2)
				wse_vop(WSE_VOP(WSE_V_FMACS, 3, 4, 5, WSE_B_PERPASS) | g);
			if (detail)
				lap(&t, WSE_MLP_PROF_BWW_FMACS(l));
			if (Tc > 1) {
				wse_vscalar(dbits[Tc - 1]);
				wse_vop(WSE_VOP(WSE_V_FMACS, 6, 7, 0, WSE_B_ADDEND) | g);
			}
			if (detail)
				lap(&t, WSE_MLP_PROF_BWW_CHAIN(l));
		}
		/* 3. bias gradient on the owner row, its partial along the row
		 * (descriptors 6 and 7 for one element, then back) */
		if (r == owner) {
			wse_dsd_set(6, WSE_DSD_LEN0, 1);
			wse_dsd_set(7, WSE_DSD_BASE, P.bsum + 4 * (o / R));
			if (c == 0)
				wse_vop(WSE_VOP(WSE_V_FMOVS, 6, 7, 0, WSE_B_VEC));
			else
				wse_vop(WSE_VOP(WSE_V_FADDS, 6, 7, 2, WSE_B_VEC));
			wse_dsd_set(6, WSE_DSD_LEN0, ai);
			wse_dsd_set(7, WSE_DSD_BASE, alast);
		}
		if (detail)
			lap(&t, WSE_MLP_PROF_BWW_BIAS(l));
	}
}

/* d[k] = (h[k] > 0.0f) ? d[k] : +0 for k < n, on the bits: h > 0 is
 * "sign clear, not +0, not NaN" (so the core needs no float compare). */
static void relu_mask(uint32_t d, uint32_t h, uint32_t n)
{
	uint32_t *dv = (uint32_t *)(uintptr_t)d;
	const int32_t *hv = (const int32_t *)(uintptr_t)h;

	for (uint32_t k = 0; k < n; k++)
		if (hv[k] <= 0 || (uint32_t)hv[k] > 0x7f800000u)
			dv[k] = 0;
}

/* Backward, inputs of layer l >= 1, from the deltas backward_weights(l)
 * gathered into dall: the row's input features i = r + qR in order, each
 * one FMACS from +0 over all no output features with W[o][i] streamed to
 * this row alone (a sparse layer: one SPMACS accumulating over the kept
 * W[o][i], a share of no slots o), so the delta of i forms at its owner
 * with no reduction; then masked by the ReLU of the input, feature q on
 * the core while the engine runs feature q+1. */
static void backward_inputs(uint32_t l, uint32_t dz_in)
{
	uint32_t no = P.dims[l + 1], ai = wse_mlp_count(P.dims[l], r, R);

	/* descriptors set once, dst advancing by itself (ADV): 3/4 zero the
	 * feature's deltas, 0/1/2 its FMACS */
	wse_dsd_mem(3, dz_in, Tc, 1, 1, 0, FW);
	MEM(4, P.zeros, Tc, 1, 1, 0);
	int sparse = P.sparse >> l & 1u;
	wse_dsd_mem(0, dz_in, Tc, 1, no, 0, FW);
	MEM(1, P.dall, Tc, 1, no, FW);
	FAB(2, WSE_MLP_C_WEIGHTS, 1, sparse ? 1 : no);
	wse_vwait();
	uint32_t base = wse_vdone(); /* two operations per feature from here */

	/* step q issues feature q (q < ai), then masks feature q-1 once its
	 * two operations are done; the last step only waits and masks */
	for (uint32_t q = 0; q <= ai; q++) {
		if (q < ai) {
			wse_vop(WSE_VOP(WSE_V_FMOVS, 3, 4, 0, WSE_B_VEC));
			if (sparse)
				OP(WSE_V_SPMACS, WSE_SP_ACC);
			else
				OP(WSE_V_FMACS, WSE_B_PERPASS);
		}
		if (q) {
			while (wse_vdone() - base < 2 * q)
				;
			relu_mask(dz_in + 4 * (q - 1) * FW, P.act[l] + 4 * (q - 1) * FW, Tc);
		}
	}
}

static int __attribute__((noinline)) pass(void)
{
	if (P.magic != WSE_MLP_MAGIC || P.nlayers == 0 || P.nlayers > WSE_MLP_MAX_LAYERS)
		return 3;
	R = P.rows;
	C = P.cols;
	r = P.y;
	c = P.x;
	Tc = P.tc;
	FW = wse_mlp_feature_words(Tc);
	prof = P.prof ? (uint32_t *)(uintptr_t)P.prof : 0;
	detail = prof && (P.mode & WSE_MLP_MODE_DETAIL);
	for (uint32_t k = 0; prof && k < WSE_MLP_PROF_WORDS; k++)
		prof[k] = 0;

	uint32_t nz = Tc;
	for (uint32_t l = 0; l <= P.nlayers; l++)
		if (wse_mlp_count(P.dims[l], r, R) > nz)
			nz = wse_mlp_count(P.dims[l], r, R);
	float *zeros = F(P.zeros);
	for (uint32_t k = 0; k < nz; k++)
		zeros[k] = 0.0f;
	/* every layer input's slot after the row's features: +1.0, the input
	 * the bias multiplies */
	for (uint32_t l = 0; l < P.nlayers; l++) {
		float *one = F(P.act[l] + 4 * wse_mlp_count(P.dims[l], r, R) * FW);

		for (uint32_t j = 0; j < Tc; j++)
			one[j] = 1.0f;
	}

	/* sparse shares end with a control wavelet that the engine reads on
	 * color 0; the engine's flags (its sparse-stream error) from +0 */
	wse_bind_ctrl_data(WSE_MLP_C_WEIGHTS);
	wse_bind_ctrl_data(wse_mlp_share_color(c, C));
	wse_vflags_clear();

	uint32_t tp = wse_cycles();

	load_batch();
	wse_mwait();
	uint32_t t0 = wse_cycles();
	if (prof)
		prof[WSE_MLP_PROF_LOAD] = t0 - tp;
	tp = t0;
	for (uint32_t l = 0; l < P.nlayers; l++) {
		forward(l);
		if (prof)
			lap(&tp, WSE_MLP_PROF_FWD(l));
	}
	wse_vwait();
	uint32_t gemm = wse_cycles() - t0;
	softmax();
	t0 = wse_cycles();
	if (prof)
		prof[WSE_MLP_PROF_SOFTMAX] = t0 - tp;
	tp = t0;
	if ((P.mode & 0xffu) == WSE_MLP_MODE_TRAIN) {
		uint32_t cur = 0;

		for (uint32_t l = P.nlayers; l-- > 0;) {
			backward_weights(l, P.delta[cur]);
			if (prof)
				lap(&tp, WSE_MLP_PROF_BWW(l));
			if (l > 0) {
				backward_inputs(l, P.delta[cur ^ 1]);
				cur ^= 1;
				if (prof)
					lap(&tp, WSE_MLP_PROF_BWI(l));
			}
		}
	}
	uint32_t vflags = wse_vwait();
	P.cycles = wse_cycles();
	P.gemm_cycles = gemm + (P.cycles - t0);
	if (prof) {
		/* layer 0's forward FMACS once more (into part, scratch), the
		 * weights from memory: the engine's own rate on that shape */
		uint32_t k = wse_mlp_count(P.dims[0], r, R);

		if (k) {
			uint32_t t = wse_cycles();

			MEM(0, P.part, Tc, 1, k, 0);
			MEM(1, P.act[0], Tc, 1, k, FW);
			MEM(2, P.zeros, 1, 0, k, 1);
			OP(WSE_V_FMACS, WSE_B_PERPASS);
			lap(&t, WSE_MLP_PROF_LOCAL);
			prof[WSE_MLP_PROF_LOCAL_ELEMS] = k * Tc;
		}
	}
	return vflags & WSE_VFLAG_SPARSE ? (int)WSE_MLP_FAIL_SPARSE : 0;
}

int main(void)
{
	/* mstatus.FS resets Off (docs/core.md): turn the F extension on before
	 * any floating-point instruction */
	__asm__ volatile("csrs mstatus, %0" :: "r"(1u << 13) : "memory");
	return pass();
}

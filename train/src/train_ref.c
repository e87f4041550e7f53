/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_ref.c - the C reference trainer (train_ref.h).
 *
 * Every loop below is a transcription of docs/training-dataflow.md: which
 * PE holds what (ref_row/ref_col), the order of the fused multiply-adds in
 * a PE, and the fixed chains that reduce partial sums along columns (rows
 * 0 -> R-1) and along rows (columns 0 -> C-1). Padded tokens are computed
 * like real ones (input 0) and masked at the loss, as on the mesh.
 *
 * It is also the training API's "host-reference" backend (train_backend.h,
 * at the end of this file): its passes are train_ref_pass().
 */
#include "train_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_backend.h"
#include "wsehost.h"
#include "wsemu/wse_math.h"

/* The reference's own mapping: feature f lives on row f mod R, token t on
 * column t mod C (slot t div C). */
static unsigned ref_row(unsigned f, unsigned R) { return f % R; }

/* fmax.s of RISC-V: a NaN operand yields the other; max(-0, +0) = +0. */
static float ref_fmax(float a, float b)
{
	if (a != a)
		return b;
	if (b != b)
		return a;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

/* z[o][t] = sum over rows r (chain 0..R-1) of the partial of row r: the
 * first product, then fused multiply-adds, over the row's streamed scalars
 * in order: W[o][i] * x[i][t] for i = r, r+R, r+2R, ... < n_i, then at
 * o's owner row (o mod R) the bias as one more, b[o] * 1.0 (+0 for a row
 * with none). With a mask (m not NULL) the masked weights are not streamed:
 * the chain runs over the kept ones only, and a row with none kept is a row
 * with no input. y is [n_o][Bp], x is [n_i][Bp]. */
static void ref_forward(unsigned R, unsigned n_i, unsigned n_o, unsigned Bp,
			const float *w, const float *m, const float *bias,
			const float *x, float *z)
{
	for (unsigned o = 0; o < n_o; o++) {
		const float *wo = w + (size_t)o * n_i;
		const float *mo = m ? m + (size_t)o * n_i : NULL;

		for (unsigned t = 0; t < Bp; t++) {
			float s = 0.0f;

			for (unsigned r = 0; r < R; r++) {
				float p = 0.0f;
				int any = 0;

				for (unsigned i = r; i < n_i; i += R) {
					if (mo && mo[i] == 0.0f)
						continue;
					p = any ? fmaf(wo[i], x[(size_t)i * Bp + t], p)
						: wo[i] * x[(size_t)i * Bp + t];
					any = 1;
				}
				if (ref_row(o, R) == r)
					p = any ? fmaf(bias[o], 1.0f, p) : bias[o] * 1.0f;
				s = (r == 0) ? p : s + p;
			}
			z[(size_t)o * Bp + t] = s;
		}
	}
}

/* dx[i][t] = fused multiply-adds over o = 0 .. n_o-1 (ascending, from +0)
 * of W[o][i] * dz[o][t], all at i's owner row, skipping the masked W[o][i]
 * (m not NULL); then masked by the ReLU of the layer input. */
static void ref_backward_inputs(unsigned n_i, unsigned n_o, unsigned Bp, const float *w,
				const float *m, const float *dz, const float *h_in,
				float *dz_in)
{
	for (unsigned i = 0; i < n_i; i++) {
		for (unsigned t = 0; t < Bp; t++) {
			float q = 0.0f;

			for (unsigned o = 0; o < n_o; o++)
				if (!m || m[(size_t)o * n_i + i] != 0.0f)
					q = fmaf(w[(size_t)o * n_i + i], dz[(size_t)o * Bp + t], q);
			size_t k = (size_t)i * Bp + t;

			dz_in[k] = (h_in[k] > 0.0f) ? q : 0.0f;
		}
	}
}

/* dW[o][i] = one fused chain over the tokens in column order, t = c + jC
 * for c = 0..C-1, j = 0..Tc-1: the first product dz[o][0] * x[i][0], then
 * fma(dz[o][t], x[i][t], .) for every later token (each column goes on
 * from its west neighbour's sums); a masked weight's gradient is +0, not
 * computed (m not NULL); db[o] = chain over columns c of (additions of
 * dz[o][t] over the column's slots, from +0). */
static void ref_backward_weights(unsigned C, unsigned n_i, unsigned n_o,
				 unsigned Bp, const float *m, const float *dz,
				 const float *x, float *dw, float *db)
{
	unsigned Tc = Bp / C;

	for (unsigned o = 0; o < n_o; o++) {
		const float *d = dz + (size_t)o * Bp;

		for (unsigned i = 0; i < n_i; i++) {
			const float *xi = x + (size_t)i * Bp;

			if (m && m[(size_t)o * n_i + i] == 0.0f) {
				dw[(size_t)o * n_i + i] = 0.0f;
				continue;
			}
			float g = d[0] * xi[0];

			for (unsigned c = 0; c < C; c++)
				for (unsigned j = (c == 0); j < Tc; j++)
					g = fmaf(d[c + j * C], xi[c + j * C], g);
			dw[(size_t)o * n_i + i] = g;
		}
		float G = 0.0f;

		for (unsigned c = 0; c < C; c++) {
			float s = 0.0f;

			for (unsigned j = 0; j < Tc; j++)
				s = s + d[c + j * C];
			G = (c == 0) ? s : G + s;
		}
		db[o] = G;
	}
}

int train_ref_pass(const struct train_ref_net *net, const float *x,
		   const uint8_t *labels, unsigned B, unsigned norm,
		   struct train_ref_out *out)
{
	if (!net || !x || !labels || !out || B == 0 || norm == 0 || net->rows == 0 ||
	    net->cols == 0 || net->nlayers == 0 ||
	    net->nlayers > TRAIN_REF_MAX_LAYERS)
		return WSE_ERROR_INVALID_PARAM;
	const unsigned R = net->rows, C = net->cols, L = net->nlayers;
	const unsigned Bp = (B + C - 1) / C * C; /* padded token count */
	const unsigned K = net->dims[L];
	int backward = out->dw[0] != NULL;
	float *act[TRAIN_REF_MAX_LAYERS + 1] = { 0 };
	float *dz = NULL, *dz2 = NULL;
	size_t maxd = 0;
	int ret = WSE_ERROR_NO_MEM;

	for (unsigned l = 0; l <= L; l++) {
		if (net->dims[l] == 0)
			return WSE_ERROR_INVALID_PARAM;
		if (net->dims[l] > maxd)
			maxd = net->dims[l];
	}
	for (unsigned t = 0; t < B; t++)
		if (labels[t] >= K)
			return WSE_ERROR_INVALID_PARAM;
	for (unsigned l = 0; l <= L; l++)
		if (!(act[l] = calloc((size_t)net->dims[l] * Bp, sizeof(float))))
			goto out;
	if (!(dz = calloc(maxd * Bp, sizeof(float))) ||
	    !(dz2 = calloc(maxd * Bp, sizeof(float))))
		goto out;

	/* input batch, transposed to [feature][token]; padded tokens are 0 */
	for (unsigned t = 0; t < B; t++)
		for (unsigned i = 0; i < net->dims[0]; i++)
			act[0][(size_t)i * Bp + t] = x[(size_t)t * net->dims[0] + i];

	/* forward; act[l+1] holds ReLU(z) for hidden layers, z for logits */
	for (unsigned l = 0; l < L; l++) {
		float *z = act[l + 1];
		size_t n = (size_t)net->dims[l + 1] * Bp;

		ref_forward(R, net->dims[l], net->dims[l + 1], Bp, net->w[l],
			    net->mask[l], net->b[l], act[l], z);
		if (l + 1 < L)
			for (size_t k = 0; k < n; k++)
				z[k] = (z[k] > 0.0f) ? z[k] : 0.0f;
	}

	/* softmax cross-entropy per token (column), max and sum reduced down
	 * the column in the row chain */
	const float *zl = act[L];

	for (unsigned t = 0; out->logits && t < B; t++)
		for (unsigned k = 0; k < K; k++)
			out->logits[(size_t)t * K + k] = zl[(size_t)k * Bp + t];
	const float invB = 1.0f / (float)norm;
	float loss_sum = 0.0f;
	uint32_t correct = 0;

	for (unsigned t = 0; t < Bp; t++) {
		float M = 0.0f, S = 0.0f;

		for (unsigned r = 0; r < R; r++) {
			float m = -INFINITY;

			for (unsigned k = r; k < K; k += R)
				m = ref_fmax(m, zl[(size_t)k * Bp + t]);
			M = (r == 0) ? m : ref_fmax(M, m);
		}
		for (unsigned k = 0; k < K; k++)
			dz[(size_t)k * Bp + t] = wse_expf(zl[(size_t)k * Bp + t] - M);
		for (unsigned r = 0; r < R; r++) {
			float s = 0.0f;

			for (unsigned k = ref_row(r, R); k < K; k += R) /* = r */
				s = s + dz[(size_t)k * Bp + t];
			S = (r == 0) ? s : S + s;
		}
		float rinv = 1.0f / S;

		if (t >= B) { /* padded token: masked */
			for (unsigned k = 0; k < K; k++)
				dz[(size_t)k * Bp + t] = 0.0f;
			continue;
		}
		unsigned y = labels[t], pred = K;

		for (unsigned k = 0; k < K && pred == K; k++)
			if (zl[(size_t)k * Bp + t] == M)
				pred = k;
		correct += (pred == y);
		float lt = wse_logf(S) - (zl[(size_t)y * Bp + t] - M);

		loss_sum = loss_sum + lt;
		for (unsigned k = 0; k < K; k++) {
			float p = dz[(size_t)k * Bp + t] * rinv;
			float g = (k == y) ? p - 1.0f : p;

			dz[(size_t)k * Bp + t] = g * invB;
		}
	}
	out->loss_sum = loss_sum;
	out->loss = loss_sum / (float)norm;
	out->correct = correct;

	if (backward) {
		for (unsigned l = L; l-- > 0;) {
			ref_backward_weights(C, net->dims[l], net->dims[l + 1], Bp,
					     net->mask[l], dz, act[l], out->dw[l], out->db[l]);
			if (l > 0) {
				ref_backward_inputs(net->dims[l], net->dims[l + 1], Bp,
						    net->w[l], net->mask[l], dz, act[l], dz2);
				float *tmp = dz;

				dz = dz2;
				dz2 = tmp;
			}
		}
	}
	ret = 0;
out:
	for (unsigned l = 0; l <= L; l++)
		free(act[l]);
	free(dz);
	free(dz2);
	return ret;
}

void train_ref_sgd(size_t n, float *w, float *mom, const float *g, float lr,
		   float momentum, float wd)
{
	for (size_t k = 0; k < n; k++) {
		float d = g[k];

		if (wd != 0.0f)
			d = d + wd * w[k];
		if (momentum != 0.0f) {
			mom[k] = momentum * mom[k] + d;
			d = mom[k];
		}
		w[k] = w[k] - lr * d;
	}
}

void train_ref_adam(size_t n, float *w, float *m, float *v, const float *g,
		    float lr, float beta1, float beta2, float eps, float wd,
		    int decoupled, float beta1_pow, float beta2_pow)
{
	const float c1 = 1.0f - beta1, c2 = 1.0f - beta2;
	const float bc1 = 1.0f - beta1_pow, bc2 = 1.0f - beta2_pow;
	const float decay = 1.0f - lr * wd;

	for (size_t k = 0; k < n; k++) {
		float d = g[k];

		if (wd != 0.0f) {
			if (decoupled)
				w[k] = w[k] * decay;
			else
				d = d + wd * w[k];
		}
		m[k] = beta1 * m[k] + c1 * d;
		v[k] = beta2 * v[k] + (c2 * d) * d;
		float mh = m[k] / bc1;
		float vh = v[k] / bc2;

		w[k] = w[k] - lr * (mh / (sqrtf(vh) + eps));
	}
}

/* ---- the "host-reference" backend (train_backend.h) ------------------- */

/* No state: the passes follow the params' rows and columns. */
static int ref_open(void **state, struct train_backend_cfg *cfg, char *err,
		    size_t errlen)
{
	(void)cfg, (void)err, (void)errlen;
	*state = NULL;
	return 0;
}

/* The reference pass is one piece: every layer's weights are waited for
 * before it, every layer's gradients reported after it. */
static int ref_pass(void *state, const struct train_ref_net *net,
		    const float *x, const uint8_t *labels, unsigned B,
		    unsigned norm, struct train_ref_out *out,
		    const struct train_pass_hooks *hooks, char *err,
		    size_t errlen)
{
	(void)state;
	int rc = 0;

	for (unsigned l = 0; hooks && !rc && l < net->nlayers; l++)
		rc = hooks->weights_ready(hooks->user, l);
	if (rc) {
		snprintf(err, errlen, "host-reference backend: waiting for the update of the weights: %s",
			 wse_strerror(rc));
		return rc;
	}
	rc = train_ref_pass(net, x, labels, B, norm, out);
	if (rc)
		snprintf(err, errlen, "host-reference backend: pass failed: %s",
			 wse_strerror(rc));
	for (unsigned l = net->nlayers; hooks && !rc && out->dw[0] && l-- > 0;)
		hooks->grads_out(hooks->user, l);
	return rc;
}

static void ref_close(void *state)
{
	(void)state;
}

const struct train_backend_ops train_backend_ref = {
	.name = "host-reference",
	.open = ref_open,
	.pass = ref_pass,
	.close = ref_close,
};

/* Sparse weights (docs/training.md "Sparsity", docs/training-dataflow.md
 * section 13): the sparse stream's encoder, decoder and link bytes on
 * crafted masks, the row order, the masks, the reference trainer's sparse
 * arithmetic against a smaller dense network, and the training API on the
 * host-reference backend: 196-64-10 at sparsities 0, 0.5, 0.9 and 0.99,
 * masks through checkpoints, magnitude pruning and the refusals. */
#include "tr_test.h"

#include <math.h>

#include "memoryx.h"
#include "npz.h"
#include "sparse.h"
#include "train_ref.h"
#include "wsehost.h"
#include "wsehost_train.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "sptest");
}

static int teardown(void **state)
{
	(void)state;
	return tr_rmdir(dir);
}

/* ---- the stream format --------------------------------------------------- */

/* The link bytes of section 13 by category, counted here from the mask
 * independently of sp_stream_bytes: per share, its kept slots, the gap
 * code bytes and the index wavelets; per index-only share (a row with a
 * slot), the same without the bias's code, or one control wavelet. */
static void bytes_by_hand(unsigned n_o, unsigned n_i, const float *mask, unsigned R,
			  struct sp_stream_bytes *b)
{
	memset(b, 0, sizeof(*b));
	for (unsigned o = 0; o < n_o; o++)
		for (unsigned r = 0; r < R; r++) {
			unsigned codes = 0, vals = 0, last = 0; /* last: next slot after a value */

			for (unsigned i = r, j = 0; i < n_i; i += R, j++)
				if (!mask || mask[o * n_i + i] != 0.0f) {
					codes += (j - last) / 255 + 1;
					last = j + 1;
					vals++;
				}
			int own = o % R == r;
			unsigned slots = r < n_i ? (n_i - r + R - 1) / R : 0;

			b->grads += 4 * vals;
			if (slots && vals)
				b->bww_index += 4 * ((codes + 3) / 4);
			else if (slots)
				b->bww_empty += 4;
			if (own)
				codes += (slots - last) / 255 + 1;
			if (!slots && !own)
				continue; /* a row with no input feature gets nothing */
			if (!vals && !own) {
				b->empty += 4;
				continue;
			}
			b->index += 4 * ((codes + 3) / 4);
			b->weights += 4 * vals;
			b->biases += own ? 4 : 0;
		}
	b->total = b->index + b->weights + b->biases + b->empty;
}

/* The slots an index-only share names, decoded here: n wavelets, the last
 * (only) one with the control bit; returns the count into slot[]. */
static unsigned index_decode(const struct sp_wavelet *w, int n, uint32_t *slot)
{
	unsigned long pos = 0;
	unsigned k = 0;

	for (int q = 0; q < n; q++) {
		assert_int_equal(w[q].ctrl, q == n - 1);
		for (unsigned b = 0; b < 4; b++) {
			uint32_t c = (w[q].data >> (8 * b)) & 0xff;

			if (c == 255) {
				pos += 255;
				continue;
			}
			slot[k++] = (uint32_t)(pos + c);
			pos += c + 1;
		}
	}
	return k;
}

/* Every share of the matrix encoded, decoded and compared with the kept
 * weights and the bias, every index-only share with the kept slots; the
 * wavelets counted against sp_stream_bytes. */
static void round_trip(unsigned n_o, unsigned n_i, const float *w, const float *mask,
		       const float *bias, unsigned R)
{
	struct sp_stream_bytes sb, hb;
	uint64_t wavelets = 0, iwavelets = 0;
	size_t cap = 2 * (size_t)n_i + 16;
	struct sp_wavelet *wv = calloc(cap, sizeof(*wv));
	uint32_t *slot = calloc(cap, sizeof(*slot));
	float *val = calloc(cap, sizeof(*val));
	char err[200];

	assert_non_null(wv);
	assert_non_null(slot);
	assert_non_null(val);
	assert_int_equal(sp_stream_bytes(n_o, n_i, mask, R, &sb), 0);
	bytes_by_hand(n_o, n_i, mask, R, &hb);
	assert_memory_equal(&sb, &hb, sizeof(sb));
	for (unsigned o = 0; o < n_o; o++)
		for (unsigned r = 0; r < R; r++) {
			int own = o % R == r;
			int ni = sp_index_encode(n_i, R, r, mask ? mask + (size_t)o * n_i : NULL, wv,
						 cap);

			if (r >= n_i) {
				assert_int_equal(ni, 0); /* no input feature: no index-only share */
			} else {
				unsigned ki = index_decode(wv, ni, slot), kk = 0;

				for (unsigned i = r, j = 0; i < n_i; i += R, j++)
					if (!mask || mask[(size_t)o * n_i + i] != 0.0f) {
						assert_true(kk < ki);
						assert_int_equal(slot[kk++], j);
					}
				assert_int_equal(kk, ki);
				if (!ki) /* no kept slot: one control wavelet of four escapes */
					assert_true(ni == 1 && wv[0].data == 0xffffffffu);
				iwavelets += (uint64_t)ni;
			}
			int n = sp_share_encode(n_i, R, r, w + (size_t)o * n_i,
						mask ? mask + (size_t)o * n_i : NULL,
						own ? &bias[o] : NULL, wv, cap);

			if (r >= n_i && !own) {
				assert_int_equal(n, 0); /* no input feature: nothing */
				continue;
			}
			assert_true(n > 0);
			assert_int_equal(wv[n - 1].ctrl, 1); /* the row ends with a control wavelet */
			for (int k = 0; k < n - 1; k++)
				assert_int_equal(wv[k].ctrl, 0);
			wavelets += (uint64_t)n;
			int nv = sp_share_decode(n_i, R, r, own, wv, (size_t)n, slot, val, cap, err,
						 sizeof(err));

			assert_true(nv >= 0);
			int k = 0;

			for (unsigned i = r, j = 0; i < n_i; i += R, j++) {
				if (mask && mask[(size_t)o * n_i + i] == 0.0f)
					continue;
				assert_true(k < nv);
				assert_int_equal(slot[k], j);
				assert_memory_equal(&val[k], &w[(size_t)o * n_i + i], 4);
				k++;
			}
			if (own) {
				assert_true(k < nv);
				assert_memory_equal(&val[k], &bias[o], 4);
				k++;
			}
			assert_int_equal(k, nv);
		}
	assert_true(wavelets * 4 == sb.total);
	assert_true(iwavelets * 4 == sb.bww_index + sb.bww_empty);
	assert_int_equal(sp_index_encode(n_i, R, 0, mask, wv, 0), n_i ? WSE_ERROR_OVERFLOW : 0);
	free(wv);
	free(slot);
	free(val);
}

static void test_stream_crafted(void **state)
{
	(void)state;
	enum { NO = 6, NI = 11 };
	float w[NO * NI], m[NO * NI], b[NO];
	uint64_t s = 7;
	struct sp_stream_bytes sb;

	for (int k = 0; k < NO * NI; k++)
		w[k] = tr_uniform(&s, -1, 1);
	w[3] = -0.0f; /* kept zeros and signed zeros are streamed as they are */
	w[4] = 0.0f;
	for (int k = 0; k < NO; k++)
		b[k] = tr_uniform(&s, -1, 1);
	for (unsigned R = 1; R <= 4; R++) {
		/* fully dense: every slot a value, gap code 0 */
		round_trip(NO, NI, w, NULL, b, R);
		for (int k = 0; k < NO * NI; k++)
			m[k] = 1.0f;
		round_trip(NO, NI, w, m, b, R);
		assert_int_equal(sp_stream_bytes(NO, NI, m, R, &sb), 0);
		assert_true(sb.weights == 4u * NO * NI && sb.biases == 4u * NO && sb.empty == 0);
		assert_true(sb.grads == 4u * NO * NI && sb.bww_empty == 0);
		/* a row with no nonzeros (row 2), and scattered ones */
		for (int k = 0; k < NO * NI; k++)
			m[k] = (k / NI == 2) ? 0.0f : (float)((k * 7 % 3) != 0);
		round_trip(NO, NI, w, m, b, R);
		/* all zeros: only the biases, and a control wavelet per other share */
		memset(m, 0, sizeof(m));
		round_trip(NO, NI, w, m, b, R);
		assert_int_equal(sp_stream_bytes(NO, NI, m, R, &sb), 0);
		assert_true(sb.weights == 0 && sb.biases == 4u * NO && sb.index == 4u * NO);
		assert_true(sb.empty == 4u * NO * (R - 1));
		/* no gradient out, an empty index-only share per row and output */
		assert_true(sb.grads == 0 && sb.bww_index == 0 && sb.bww_empty == 4u * NO * R);
	}
	/* gaps of 255 and more: escapes */
	enum { WI = 700 };
	static float ww[2 * WI], mm[2 * WI];

	for (int k = 0; k < 2 * WI; k++) {
		ww[k] = (float)k;
		mm[k] = (k == 0 || k == 255 || k == 256 || k == 699 || k == WI + 600) ? 1.0f : 0.0f;
	}
	round_trip(2, WI, ww, mm, b, 1);
	round_trip(2, WI, ww, mm, b, 3);
	/* more rows than inputs: rows 2..4 hold no input feature */
	round_trip(NO, 2, w, NULL, b, 5);
	memset(m, 0, sizeof(m));
	round_trip(NO, 2, w, m, b, 5);
	assert_int_equal(sp_stream_bytes(NO, 2, m, 5, &sb), 0);
	/* empty shares only on rows 0 and 1, when they do not own o: o = 0, 1, 5
	 * leave one, o = 2, 3, 4 two */
	assert_true(sb.empty == 4u * 9 && sb.biases == 4u * NO);
	assert_true(sb.bww_empty == 4u * NO * 2 && sb.bww_index == 0 && sb.grads == 0);
	assert_int_equal(sp_stream_bytes(0, 3, NULL, 1, &sb), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(sp_stream_bytes(3, 3, NULL, 0, &sb), WSE_ERROR_INVALID_PARAM);
}

/* The decoder refuses what the encoder never writes. */
static void test_stream_bad(void **state)
{
	(void)state;
	uint32_t slot[8];
	float val[8];
	char err[200] = "";
	float one = 1.0f;
	uint32_t u1;

	memcpy(&u1, &one, 4);
	/* row 0 of 10 inputs on R = 2 has 5 slots (6 with the bias) */
	struct sp_wavelet ok[] = { { 0xffffff01u, 0 }, { u1, 1 } };

	assert_int_equal(sp_share_decode(10, 2, 0, 0, ok, 2, slot, val, 8, err, sizeof(err)), 1);
	assert_int_equal(slot[0], 1);
	struct sp_wavelet out_of_range[] = { { 0xffffff05u, 0 }, { u1, 1 } };

	assert_int_equal(sp_share_decode(10, 2, 0, 0, out_of_range, 2, slot, val, 8, err,
					 sizeof(err)),
			 WSE_ERROR_MALFORMED);
	assert_non_null(strstr(err, "slot 5 out of range"));
	/* slot 5 is the bias at the owner */
	assert_int_equal(sp_share_decode(10, 2, 0, 1, out_of_range, 2, slot, val, 8, err,
					 sizeof(err)),
			 1);
	struct sp_wavelet no_end[] = { { 0xffff0000u, 0 }, { u1, 0 }, { u1, 0 } };

	assert_int_equal(sp_share_decode(10, 2, 0, 0, no_end, 3, slot, val, 8, err, sizeof(err)),
			 WSE_ERROR_MALFORMED);
	assert_non_null(strstr(err, "no control wavelet"));
	struct sp_wavelet early[] = { { 0xffff0000u, 0 }, { u1, 1 }, { u1, 0 } };

	assert_int_equal(sp_share_decode(10, 2, 0, 0, early, 3, slot, val, 8, err, sizeof(err)),
			 WSE_ERROR_MALFORMED);
	assert_non_null(strstr(err, "after the row's control wavelet"));
	struct sp_wavelet no_value[] = { { 0xffffff00u, 0 } };

	assert_int_equal(sp_share_decode(10, 2, 0, 0, no_value, 1, slot, val, 8, err, sizeof(err)),
			 WSE_ERROR_MALFORMED);
	struct sp_wavelet empty[] = { { 0, 1 } };

	assert_int_equal(sp_share_decode(10, 2, 1, 0, empty, 1, slot, val, 8, err, sizeof(err)), 0);
}

static void test_row_order(void **state)
{
	(void)state;
	const uint32_t cnt[5] = { 3, 7, 7, 0, 5 };
	uint32_t order[5], lane[5];

	assert_int_equal(sp_row_order(5, cnt, 2, order, lane), 0);
	const uint32_t eo[5] = { 1, 2, 4, 0, 3 }, el[5] = { 1, 0, 1, 0, 0 };

	assert_memory_equal(order, eo, sizeof(eo));
	assert_memory_equal(lane, el, sizeof(el));
	/* random counts: sorted, and every lane within one row of the others */
	uint32_t c2[97], o2[97], l2[97], per[4] = { 0 };
	uint64_t s = 3;

	for (int k = 0; k < 97; k++)
		c2[k] = (uint32_t)(tr_rng(&s) % 50);
	assert_int_equal(sp_row_order(97, c2, 4, o2, l2), 0);
	for (int p = 1; p < 97; p++)
		assert_true(c2[o2[p - 1]] > c2[o2[p]] ||
			    (c2[o2[p - 1]] == c2[o2[p]] && o2[p - 1] < o2[p]));
	for (int k = 0; k < 97; k++)
		per[l2[k]]++;
	for (int q = 0; q < 4; q++)
		assert_true(per[q] == 24 || per[q] == 25);
	assert_int_equal(sp_row_order(5, cnt, 0, order, lane), WSE_ERROR_INVALID_PARAM);
}

static size_t zeros(size_t n, const float *m)
{
	size_t z = 0;

	for (size_t k = 0; k < n; k++)
		z += m[k] == 0.0f;
	return z;
}

static void test_masks(void **state)
{
	(void)state;
	enum { N = 1000 };
	static float a[N], b[N], w[N];

	assert_int_equal(sp_mask_random(N, 0.9f, 5, a), 0);
	assert_int_equal(sp_mask_random(N, 0.9f, 5, b), 0);
	assert_int_equal(zeros(N, a), sp_masked_count(N, 0.9f));
	assert_int_equal(sp_masked_count(N, 0.9f), 899); /* 0.9f is below 0.9 */
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(sp_mask_random(N, 0.9f, 6, b), 0);
	assert_true(memcmp(a, b, sizeof(a)) != 0);
	assert_int_equal(sp_mask_check(N, a), 0);
	assert_int_equal(sp_mask_random(N, 0.0f, 5, a), 0);
	assert_int_equal(zeros(N, a), 0);
	/* magnitude: the smallest |w| masked, ties by index */
	for (int k = 0; k < N; k++)
		w[k] = (k % 2 ? -1.0f : 1.0f) * (float)(k % 100);
	assert_int_equal(sp_mask_magnitude(N, 0.5f, w, a), 0);
	for (int k = 0; k < N; k++)
		assert_true(a[k] == ((k % 100) < 50 ? 0.0f : 1.0f));
	a[17] = 0.5f;
	assert_int_equal(sp_mask_check(N, a), 18);
	a[17] = -0.0f;
	assert_int_equal(sp_mask_check(N, a), 18);
}

/* ---- the reference's sparse arithmetic --------------------------------- */

/* On a 1-row mesh, masking input feature d in every row of layer 0 is the
 * network without that input, bit for bit: the masked products are not
 * computed (an input of +inf there would make 0 * inf = NaN otherwise).
 * Masking hidden unit h's outgoing weights in layer 1 gives the network
 * without h for everything but h's own layer-0 row. */
static void test_ref_sparse_is_smaller_net(void **state)
{
	(void)state;
	enum { NI = 9, NH = 5, NK = 3, B = 7, D = 4, H = 2 };
	float w0[NH * NI], b0[NH], w1[NK * NH], b1[NK], x[B * NI];
	float m0[NH * NI], m1[NK * NH];
	float sw0[NH * (NI - 1)], sx[B * (NI - 1)], sw1[NK * (NH - 1)], sw0h[(NH - 1) * NI];
	float sb0h[NH - 1];
	uint8_t y[B];
	uint64_t s = 11;

	for (int k = 0; k < NH * NI; k++)
		w0[k] = tr_uniform(&s, -1, 1);
	for (int k = 0; k < NK * NH; k++)
		w1[k] = tr_uniform(&s, -1, 1);
	for (int k = 0; k < NH; k++)
		b0[k] = tr_uniform(&s, -0.1f, 0.1f);
	for (int k = 0; k < NK; k++)
		b1[k] = tr_uniform(&s, -0.1f, 0.1f);
	for (int k = 0; k < B * NI; k++)
		x[k] = tr_uniform(&s, -1, 1);
	for (int t = 0; t < B; t++) {
		y[t] = (uint8_t)(t % NK);
		x[t * NI + D] = INFINITY;
	}
	for (int o = 0; o < NH; o++)
		for (int i = 0; i < NI; i++)
			m0[o * NI + i] = i == D ? 0.0f : 1.0f;
	for (int k = 0; k < NK * NH; k++)
		m1[k] = 1.0f;
	/* the net without input D */
	for (int o = 0; o < NH; o++)
		for (int i = 0, j = 0; i < NI; i++)
			if (i != D)
				sw0[o * (NI - 1) + j++] = w0[o * NI + i];
	for (int t = 0; t < B; t++)
		for (int i = 0, j = 0; i < NI; i++)
			if (i != D)
				sx[t * (NI - 1) + j++] = x[t * NI + i];
	for (unsigned C = 1; C <= 3; C += 2) {
		float g0[NH * NI], gb0[NH], g1[NK * NH], gb1[NK];
		float h0[NH * (NI - 1)], hb0[NH], h1[NK * NH], hb1[NK];
		struct train_ref_net n = { .rows = 1, .cols = C, .nlayers = 2, .dims = { NI, NH, NK },
					   .w = { w0, w1 }, .b = { b0, b1 }, .mask = { m0, m1 } };
		struct train_ref_net sn = { .rows = 1, .cols = C, .nlayers = 2,
					    .dims = { NI - 1, NH, NK }, .w = { sw0, w1 },
					    .b = { b0, b1 } };
		struct train_ref_out o = { .dw = { g0, g1 }, .db = { gb0, gb1 } };
		struct train_ref_out so = { .dw = { h0, h1 }, .db = { hb0, hb1 } };

		assert_int_equal(train_ref_pass(&n, x, y, B, B, &o), 0);
		assert_int_equal(train_ref_pass(&sn, sx, y, B, B, &so), 0);
		assert_true(isfinite(o.loss));
		assert_memory_equal(&o.loss, &so.loss, 4);
		assert_memory_equal(g1, h1, sizeof(g1));
		assert_memory_equal(gb0, hb0, sizeof(gb0));
		for (int oo = 0; oo < NH; oo++)
			for (int i = 0, j = 0; i < NI; i++) {
				uint32_t zero = 0;

				if (i == D)
					assert_memory_equal(&g0[oo * NI + i], &zero, 4); /* +0 */
				else
					assert_memory_equal(&g0[oo * NI + i], &h0[oo * (NI - 1) + j++], 4);
			}
	}
	/* layer 1: hidden unit H's outgoing weights masked */
	for (int k = 0; k < NK * NH; k++)
		m1[k] = (k % NH == H) ? 0.0f : 1.0f;
	for (int o = 0; o < NH * NI; o++)
		m0[o] = 1.0f;
	for (int k = 0; k < B; k++)
		x[k * NI + D] = 0.5f;
	for (int o = 0, j = 0; o < NH; o++)
		if (o != H) {
			memcpy(&sw0h[j * NI], &w0[o * NI], NI * sizeof(float));
			sb0h[j++] = b0[o];
		}
	for (int k = 0; k < NK; k++)
		for (int h = 0, j = 0; h < NH; h++)
			if (h != H)
				sw1[k * (NH - 1) + j++] = w1[k * NH + h];
	float g0[NH * NI], gb0[NH], g1[NK * NH], gb1[NK];
	float h0[(NH - 1) * NI], hb0[NH - 1], h1[NK * (NH - 1)], hb1[NK];
	struct train_ref_net n = { .rows = 1, .cols = 2, .nlayers = 2, .dims = { NI, NH, NK },
				   .w = { w0, w1 }, .b = { b0, b1 }, .mask = { NULL, m1 } };
	struct train_ref_net sn = { .rows = 1, .cols = 2, .nlayers = 2, .dims = { NI, NH - 1, NK },
				    .w = { sw0h, sw1 }, .b = { sb0h, b1 } };
	struct train_ref_out o = { .dw = { g0, g1 }, .db = { gb0, gb1 } };
	struct train_ref_out so = { .dw = { h0, h1 }, .db = { hb0, hb1 } };

	assert_int_equal(train_ref_pass(&n, x, y, B, B, &o), 0);
	assert_int_equal(train_ref_pass(&sn, x, y, B, B, &so), 0);
	assert_memory_equal(&o.loss, &so.loss, 4);
	assert_memory_equal(gb1, hb1, sizeof(gb1));
	for (int oo = 0, j = 0; oo < NH; oo++)
		if (oo != H) {
			assert_memory_equal(&g0[oo * NI], &h0[j * NI], NI * sizeof(float));
			assert_memory_equal(&gb0[oo], &hb0[j++], 4);
		}
	for (int k = 0; k < NK; k++)
		for (int h = 0, j = 0; h < NH; h++) {
			if (h == H)
				assert_true(g1[k * NH + h] == 0.0f && !signbit(g1[k * NH + h]));
			else
				assert_memory_equal(&g1[k * NH + h], &h1[k * (NH - 1) + j++], 4);
		}
}

/* ---- the training API, host-reference ----------------------------------- */

enum { NI = 196, NH = 64, NK = 10, BATCH = 8 };

static void spec_196(struct wse_train_spec *s, float sparsity)
{
	wse_train_spec_init(s, sizeof(*s));
	s->num_layers = 2;
	s->widths[0] = NI;
	s->widths[1] = NH;
	s->widths[2] = NK;
	s->batch_size = BATCH;
	s->lr = 0.1f;
	s->momentum = 0.9f;
	s->mesh_rows = 4;
	s->mesh_cols = 4;
	s->sparsity = sparsity;
	s->sparsity_seed = 9;
}

static wse_train *create(const struct wse_train_spec *s)
{
	wse_train *t = NULL;
	char err[512];
	int rc = wse_train_create_model(&t, s, NULL, err, sizeof(err));

	if (rc)
		print_error("create: %s\n", err);
	assert_int_equal(rc, 0);
	return t;
}

static void batch(uint64_t *s, float *x, int32_t *y)
{
	for (int k = 0; k < BATCH * NI; k++)
		x[k] = tr_uniform(s, 0, 1);
	for (int k = 0; k < BATCH; k++)
		y[k] = (int32_t)(tr_rng(s) % NK);
}

struct p196 {
	float w0[NH * NI], b0[NH], w1[NK * NH], b1[NK];
};

static void get_all(wse_train *t, struct p196 *p)
{
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", p->w0, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.bias", p->b0, NH), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.weight", p->w1, NK * NH), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias", p->b1, NK), 0);
}

/* One pass and a few steps at each sparsity: the loss and every weight
 * as the reference computes them from the masks (SGD with momentum, the
 * masked gradients dropped and the masked weights and momenta +0). */
static void run_sparsity(float sp)
{
	struct wse_train_spec s;
	static struct p196 p, mom, g, got;
	static float m0[NH * NI], m1[NK * NH], x[BATCH * NI];
	int32_t y[BATCH];
	uint8_t y8[BATCH];
	uint64_t rs = 21;

	spec_196(&s, sp);
	wse_train *t = create(&s);

	get_all(t, &p);
	memset(&mom, 0, sizeof(mom));
	if (sp > 0.0f) {
		assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
		assert_int_equal(wse_train_get_tensor(t, "layer1.weight.mask", m1, NK * NH), 0);
		assert_int_equal(zeros(NH * NI, m0), sp_masked_count(NH * NI, sp));
		assert_int_equal(zeros(NK * NH, m1), sp_masked_count(NK * NH, sp));
	} else {
		float dummy[NH * NI];

		assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", dummy, NH * NI),
				 WSE_ERROR_NOT_FOUND);
		for (int k = 0; k < NH * NI; k++)
			m0[k] = 1.0f;
		for (int k = 0; k < NK * NH; k++)
			m1[k] = 1.0f;
	}
	for (int k = 0; k < NH * NI; k++)
		if (m0[k] == 0.0f)
			assert_true(p.w0[k] == 0.0f && !signbit(p.w0[k]));
	struct train_ref_net n = { .rows = 4, .cols = 4, .nlayers = 2, .dims = { NI, NH, NK },
				   .w = { p.w0, p.w1 }, .b = { p.b0, p.b1 },
				   .mask = { sp > 0.0f ? m0 : NULL, sp > 0.0f ? m1 : NULL } };
	struct train_ref_out o = { .dw = { g.w0, g.w1 }, .db = { g.b0, g.b1 } };

	for (int step = 0; step < 10; step++) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		batch(&rs, x, y);
		for (int k = 0; k < BATCH; k++)
			y8[k] = (uint8_t)y[k];
		assert_int_equal(train_ref_pass(&n, x, y8, BATCH, BATCH, &o), 0);
		for (int k = 0; k < NH * NI; k++)
			if (m0[k] == 0.0f)
				assert_true(g.w0[k] == 0.0f);
		for (int k = 0; k < NK * NH; k++)
			if (m1[k] == 0.0f)
				assert_true(g.w1[k] == 0.0f);
		train_ref_sgd(NH * NI, p.w0, mom.w0, g.w0, 0.1f, 0.9f, 0.0f);
		train_ref_sgd(NH, p.b0, mom.b0, g.b0, 0.1f, 0.9f, 0.0f);
		train_ref_sgd(NK * NH, p.w1, mom.w1, g.w1, 0.1f, 0.9f, 0.0f);
		train_ref_sgd(NK, p.b1, mom.b1, g.b1, 0.1f, 0.9f, 0.0f);
		assert_int_equal(wse_train_step_batch(t, x, y, BATCH, &m), 0);
		assert_memory_equal(&m.loss, &o.loss, 4);
		get_all(t, &got);
		assert_memory_equal(&got, &p, sizeof(p));
		for (int k = 0; k < NH * NI; k++)
			if (m0[k] == 0.0f)
				assert_true(got.w0[k] == 0.0f && !signbit(got.w0[k]));
	}
	float mm[NH * NI];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.momentum", mm, NH * NI), 0);
	for (int k = 0; k < NH * NI; k++)
		if (m0[k] == 0.0f)
			assert_true(mm[k] == 0.0f);
	wse_train_destroy(t);
}

static void test_api_sparsity_0(void **state)
{
	(void)state;
	run_sparsity(0.0f);
}

static void test_api_sparsity_50(void **state)
{
	(void)state;
	run_sparsity(0.5f);
}

static void test_api_sparsity_90(void **state)
{
	(void)state;
	run_sparsity(0.9f);
}

static void test_api_sparsity_99(void **state)
{
	(void)state;
	run_sparsity(0.99f);
}

/* Sparsity 0 and a sparse model whose masks keep everything (pruning not
 * yet due) train to the same bits. */
static void test_api_all_kept_is_dense(void **state)
{
	(void)state;
	struct wse_train_spec s;
	static struct p196 a, b;
	static float x[BATCH * NI];
	int32_t y[BATCH];
	uint64_t rs = 5;

	spec_196(&s, 0.0f);
	wse_train *d = create(&s);

	s.sparsity = 0.9f;
	s.prune_step = 1000;
	wse_train *k = create(&s);

	for (int step = 0; step < 3; step++) {
		struct wse_train_metrics m1 = { .size = sizeof(m1) }, m2 = { .size = sizeof(m2) };

		batch(&rs, x, y);
		assert_int_equal(wse_train_step_batch(d, x, y, BATCH, &m1), 0);
		assert_int_equal(wse_train_step_batch(k, x, y, BATCH, &m2), 0);
		assert_memory_equal(&m1.loss, &m2.loss, 4);
	}
	get_all(d, &a);
	get_all(k, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	wse_train_destroy(d);
	wse_train_destroy(k);
}

/* model.prune_step = 2: dense for two steps, then the smallest
 * magnitudes of every matrix masked and their weights +0. */
static void test_api_prune(void **state)
{
	(void)state;
	struct wse_train_spec s;
	static struct p196 p;
	static float x[BATCH * NI], m0[NH * NI], want[NH * NI];
	int32_t y[BATCH];
	uint64_t rs = 8;

	spec_196(&s, 0.75f);
	s.prune_step = 2;
	wse_train *t = create(&s);

	for (int step = 0; step < 2; step++) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
		assert_int_equal(zeros(NH * NI, m0), 0);
		get_all(t, &p);
		batch(&rs, x, y);
		assert_int_equal(wse_train_step_batch(t, x, y, BATCH, &m), 0);
	}
	/* the weights after step 2, before pruning: the reference's step */
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
	assert_int_equal(zeros(NH * NI, m0), sp_masked_count(NH * NI, 0.75f));
	get_all(t, &p);
	/* every kept |w| is at least every masked one was: the masked weights
	 * are now 0, so compare against the mask sp_mask_magnitude picks on a
	 * copy where the masked ones are restored to 0 (their ranks unchanged) */
	assert_int_equal(sp_mask_magnitude(NH * NI, 0.75f, p.w0, want), 0);
	assert_memory_equal(want, m0, sizeof(want));
	for (int k = 0; k < NH * NI; k++)
		if (m0[k] == 0.0f)
			assert_true(p.w0[k] == 0.0f);
	wse_train_destroy(t);
}

/* Masks go into checkpoints and come back; a checkpoint of a dense model
 * loads into a sparse one (its masks kept, the masked weights +0). */
static void test_api_checkpoint(void **state)
{
	(void)state;
	struct wse_train_spec s;
	static float x[BATCH * NI], m0[NH * NI], m0b[NH * NI];
	static struct p196 a, b;
	int32_t y[BATCH];
	uint64_t rs = 13;
	struct wse_train_metrics m = { .size = sizeof(m) };

	spec_196(&s, 0.9f);
	wse_train *t = create(&s);

	batch(&rs, x, y);
	assert_int_equal(wse_train_step_batch(t, x, y, BATCH, &m), 0);
	assert_int_equal(wse_train_save(t, tr_path(dir, "sp.ckpt")), 0);
	s.sparsity_seed = 10; /* another mask at creation */
	wse_train *u = create(&s);

	assert_int_equal(wse_train_get_tensor(u, "layer0.weight.mask", m0b, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
	assert_true(memcmp(m0, m0b, sizeof(m0)) != 0);
	assert_int_equal(wse_train_load(u, tr_path(dir, "sp.ckpt")), 0);
	assert_int_equal(wse_train_get_tensor(u, "layer0.weight.mask", m0b, NH * NI), 0);
	assert_memory_equal(m0, m0b, sizeof(m0));
	get_all(t, &a);
	get_all(u, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	/* the same next step */
	struct wse_train_metrics m1 = { .size = sizeof(m1) }, m2 = { .size = sizeof(m2) };

	batch(&rs, x, y);
	assert_int_equal(wse_train_step_batch(t, x, y, BATCH, &m1), 0);
	assert_int_equal(wse_train_step_batch(u, x, y, BATCH, &m2), 0);
	assert_memory_equal(&m1.loss, &m2.loss, 4);
	/* a dense checkpoint into the sparse model */
	spec_196(&s, 0.0f);
	wse_train *d = create(&s);

	assert_int_equal(wse_train_save(d, tr_path(dir, "dense.ckpt")), 0);
	assert_int_equal(wse_train_load(u, tr_path(dir, "dense.ckpt")), 0);
	get_all(u, &b);
	get_all(d, &a);
	for (int k = 0; k < NH * NI; k++)
		assert_true(m0[k] == 0.0f ? b.w0[k] == 0.0f && !signbit(b.w0[k])
					  : !memcmp(&b.w0[k], &a.w0[k], 4));
	/* and the sparse checkpoint does not fit the dense model */
	assert_int_equal(wse_train_load(d, tr_path(dir, "sp.ckpt")), WSE_ERROR_MALFORMED);
	assert_non_null(strstr(wse_train_last_error(d), "tensors, the model has"));
	wse_train_destroy(d);
	wse_train_destroy(t);
	wse_train_destroy(u);
}

static void expect_refused(const struct wse_train_spec *s, int code, const char *words)
{
	wse_train *t = (wse_train *)1;
	char err[512] = "";

	assert_int_equal(wse_train_create_model(&t, s, NULL, err, sizeof(err)), code);
	assert_null(t);
	if (!strstr(err, words))
		print_error("error '%s' lacks '%s'\n", err, words);
	assert_non_null(strstr(err, words));
}

static void test_api_refusals(void **state)
{
	(void)state;
	struct wse_train_spec s;

	spec_196(&s, 1.0f);
	expect_refused(&s, WSE_ERROR_INVALID_PARAM, "sparsity");
	s.sparsity = -0.125f;
	expect_refused(&s, WSE_ERROR_INVALID_PARAM, "[0, 1)");
	s.sparsity = NAN;
	expect_refused(&s, WSE_ERROR_INVALID_PARAM, "sparsity");

	/* the params file */
	const char *pf = tr_path(dir, "sp.params");
	FILE *f = fopen(pf, "w");

	assert_non_null(f);
	fputs("model.layers = 196,64,10\nmodel.sparsity = 1\n", f);
	fclose(f);
	wse_train *t = NULL;
	char err[512] = "";

	assert_int_equal(wse_train_create(&t, pf, NULL, err, sizeof(err)), WSE_ERROR_INVALID_PARAM);
	assert_non_null(strstr(err, "model.sparsity"));

	/* a mask set by the caller: shape and values checked, nothing changed */
	spec_196(&s, 0.5f);
	t = create(&s);
	static float m0[NH * NI], before[NH * NI], w0[NH * NI];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", before, NH * NI), 0);
	memcpy(m0, before, sizeof(m0));
	assert_int_equal(wse_train_set_tensor(t, "layer0.weight.mask", m0, NH * NI - 1),
			 WSE_ERROR_LENGTH);
	m0[5] = 0.5f;
	assert_int_equal(wse_train_set_tensor(t, "layer0.weight.mask", m0, NH * NI),
			 WSE_ERROR_INVALID_PARAM);
	assert_non_null(strstr(wse_train_last_error(t), "mask holds only 1"));
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
	assert_memory_equal(m0, before, sizeof(m0));
	/* a valid mask: the weights it masks become +0 */
	for (int k = 0; k < NH * NI; k++)
		m0[k] = k % 2 ? 1.0f : 0.0f;
	assert_int_equal(wse_train_set_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w0, NH * NI), 0);
	for (int k = 0; k < NH * NI; k += 2)
		assert_true(w0[k] == 0.0f);
	wse_train_destroy(t);
}

/* AdamW with weight decay: the masked weights and both moments stay +0. */
static void test_api_adamw_zeros(void **state)
{
	(void)state;
	struct wse_train_spec s;
	static float x[BATCH * NI], m0[NH * NI], w0[NH * NI], am[NH * NI], av[NH * NI];
	int32_t y[BATCH];
	uint64_t rs = 17;
	uint32_t zero = 0;

	spec_196(&s, 0.9f);
	s.optimizer = "adamw";
	s.lr = 0.01f;
	s.weight_decay = 0.01f;
	wse_train *t = create(&s);

	for (int step = 0; step < 3; step++) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		batch(&rs, x, y);
		assert_int_equal(wse_train_step_batch(t, x, y, BATCH, &m), 0);
	}
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", m0, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w0, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.adam_m", am, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.adam_v", av, NH * NI), 0);
	size_t moved = 0;

	for (int k = 0; k < NH * NI; k++) {
		if (m0[k] == 0.0f) {
			assert_memory_equal(&w0[k], &zero, 4);
			assert_memory_equal(&am[k], &zero, 4);
			assert_memory_equal(&av[k], &zero, 4);
		} else {
			moved += am[k] != 0.0f;
		}
	}
	assert_true(moved > 0); /* the kept weights did train */
	wse_train_destroy(t);
}

/* A .npz whose mask holds 0.5 is refused and changes nothing. */
static void test_api_npz_bad_mask(void **state)
{
	(void)state;
	struct wse_train_spec s;
	struct mx_store st;
	const uint32_t dims[2] = { NH, NI };
	static float before[NH * NI], after[NH * NI], w0[NH * NI];
	char err[300];

	mx_store_init(&st);
	assert_true(mx_store_add(&st, "layer0.weight.mask", 2, dims) >= 0);
	assert_true(mx_store_add(&st, "layer0.weight", 2, dims) >= 0);
	assert_int_equal(mx_store_commit(&st, NULL, err, sizeof(err)), 0);
	float *m = mx_store_data(&st, 0);

	for (int k = 0; k < NH * NI; k++)
		m[k] = k == 100 ? 0.5f : 1.0f;
	assert_int_equal(npz_write(tr_path(dir, "bad.npz"), &st, err, sizeof(err)), 0);
	mx_store_free(&st);
	spec_196(&s, 0.5f);
	wse_train *t = create(&s);

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", before, NH * NI), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w0, NH * NI), 0);
	assert_int_equal(wse_train_import_npz(t, tr_path(dir, "bad.npz")), WSE_ERROR_INVALID_PARAM);
	assert_non_null(strstr(wse_train_last_error(t), "element 100 is 0.5"));
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight.mask", after, NH * NI), 0);
	assert_memory_equal(before, after, sizeof(after));
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", after, NH * NI), 0);
	assert_memory_equal(w0, after, sizeof(after));
	wse_train_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_crafted),
		cmocka_unit_test(test_stream_bad),
		cmocka_unit_test(test_row_order),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_ref_sparse_is_smaller_net),
		cmocka_unit_test(test_api_sparsity_0),
		cmocka_unit_test(test_api_sparsity_50),
		cmocka_unit_test(test_api_sparsity_90),
		cmocka_unit_test(test_api_sparsity_99),
		cmocka_unit_test(test_api_all_kept_is_dense),
		cmocka_unit_test(test_api_prune),
		cmocka_unit_test(test_api_checkpoint),
		cmocka_unit_test(test_api_refusals),
		cmocka_unit_test(test_api_adamw_zeros),
		cmocka_unit_test(test_api_npz_bad_mask),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

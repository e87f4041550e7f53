/* The reference trainer (train/src/train_ref.c) against float64 code,
 * finite differences, and the documented summation tree written out. */
#include "tr_test.h"

#include <math.h>

#include "fpu_model.h"
#include "train_ref.h"
#include "wsehost.h"

#define NL 3
static const unsigned DIMS[NL + 1] = { 20, 12, 7, 5 };
#define B 9

struct net64 {
	float *w[NL], *b[NL];
};

static float *W[NL], *Bi[NL], *DW[NL], *DB[NL];
static float X[B * 20];
static uint8_t Y[B];

static void setup_net(uint64_t seed)
{
	uint64_t s = seed;

	for (unsigned l = 0; l < NL; l++) {
		size_t n = (size_t)DIMS[l] * DIMS[l + 1];

		free(W[l]); free(Bi[l]); free(DW[l]); free(DB[l]);
		W[l] = malloc(n * 4);
		DW[l] = malloc(n * 4);
		Bi[l] = malloc(DIMS[l + 1] * 4);
		DB[l] = malloc(DIMS[l + 1] * 4);
		for (size_t k = 0; k < n; k++)
			W[l][k] = tr_uniform(&s, -0.6f, 0.6f);
		for (unsigned k = 0; k < DIMS[l + 1]; k++)
			Bi[l][k] = tr_uniform(&s, -0.2f, 0.2f);
	}
	for (unsigned k = 0; k < B * 20; k++)
		X[k] = tr_uniform(&s, 0.0f, 1.0f);
	for (unsigned t = 0; t < B; t++)
		Y[t] = (uint8_t)(tr_rng(&s) % DIMS[NL]);
}

static void free_net(void)
{
	for (unsigned l = 0; l < NL; l++) {
		free(W[l]); free(Bi[l]); free(DW[l]); free(DB[l]);
		W[l] = Bi[l] = DW[l] = DB[l] = NULL;
	}
}

static void make_net(struct train_ref_net *n, unsigned R, unsigned C)
{
	memset(n, 0, sizeof(*n));
	n->rows = R;
	n->cols = C;
	n->nlayers = NL;
	for (unsigned l = 0; l <= NL; l++)
		n->dims[l] = DIMS[l];
	for (unsigned l = 0; l < NL; l++) {
		n->w[l] = W[l];
		n->b[l] = Bi[l];
	}
}

static float ref_run(unsigned R, unsigned C)
{
	struct train_ref_net n;
	struct train_ref_out o;

	make_net(&n, R, C);
	memset(&o, 0, sizeof(o));
	for (unsigned l = 0; l < NL; l++) {
		o.dw[l] = DW[l];
		o.db[l] = DB[l];
	}
	assert_int_equal(train_ref_pass(&n, X, Y, B, B, &o), 0);
	return o.loss;
}

/* float64 model: mean loss, and gradients if gw != NULL. dp is an optional
 * perturbation (layer, index (weights then bias), delta). */
static double loss64(double *gw[NL], double *gb[NL], int pl, long pk, double pd)
{
	double *a[NL + 1], *z[NL + 1];
	double loss = 0;

	for (unsigned l = 0; l <= NL; l++) {
		a[l] = calloc((size_t)DIMS[l] * B, sizeof(double));
		z[l] = calloc((size_t)DIMS[l] * B, sizeof(double));
	}
	for (unsigned t = 0; t < B; t++)
		for (unsigned i = 0; i < DIMS[0]; i++)
			a[0][t * DIMS[0] + i] = X[t * DIMS[0] + i];
	for (unsigned l = 0; l < NL; l++) {
		unsigned ni = DIMS[l], no = DIMS[l + 1];

		for (unsigned t = 0; t < B; t++)
			for (unsigned o = 0; o < no; o++) {
				long kb = (long)ni * no + o;
				double s = Bi[l][o] + ((int)l == pl && pk == kb ? pd : 0);

				for (unsigned i = 0; i < ni; i++) {
					long kw = (long)o * ni + i;
					double w = W[l][kw] + ((int)l == pl && pk == kw ? pd : 0);

					s += w * a[l][t * ni + i];
				}
				z[l + 1][t * no + o] = s;
				a[l + 1][t * no + o] = (l + 1 < NL) ? (s > 0 ? s : 0) : s;
			}
	}
	unsigned K = DIMS[NL];
	double *d = calloc((size_t)K * B, sizeof(double));

	for (unsigned t = 0; t < B; t++) {
		double m = -INFINITY, s = 0;

		for (unsigned k = 0; k < K; k++)
			m = fmax(m, z[NL][t * K + k]);
		for (unsigned k = 0; k < K; k++)
			s += exp(z[NL][t * K + k] - m);
		loss += log(s) - (z[NL][t * K + Y[t]] - m);
		for (unsigned k = 0; k < K; k++)
			d[t * K + k] = (exp(z[NL][t * K + k] - m) / s - (k == Y[t])) / B;
	}
	if (gw) {
		for (unsigned l = NL; l-- > 0;) {
			unsigned ni = DIMS[l], no = DIMS[l + 1];
			double *dn = calloc((size_t)ni * B, sizeof(double));

			for (unsigned o = 0; o < no; o++) {
				gb[l][o] = 0;
				for (unsigned i = 0; i < ni; i++)
					gw[l][o * ni + i] = 0;
				for (unsigned t = 0; t < B; t++) {
					gb[l][o] += d[t * no + o];
					for (unsigned i = 0; i < ni; i++) {
						gw[l][o * ni + i] += d[t * no + o] * a[l][t * ni + i];
						dn[t * ni + i] += W[l][o * ni + i] * d[t * no + o];
					}
				}
			}
			for (unsigned k = 0; k < ni * B; k++)
				if (l > 0 && !(z[l][k] > 0))
					dn[k] = 0;
			free(d);
			d = dn;
		}
	}
	free(d);
	for (unsigned l = 0; l <= NL; l++) {
		free(a[l]);
		free(z[l]);
	}
	return loss / B;
}

static void compare_tensor(const float *f, const double *d, size_t n, double tol,
			   const char *what)
{
	double num = 0, den = 0, maxd = 0;

	for (size_t k = 0; k < n; k++) {
		num += (f[k] - d[k]) * (f[k] - d[k]);
		den += d[k] * d[k];
		if (fabs(d[k]) > maxd)
			maxd = fabs(d[k]);
	}
	double rel = sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1e-30);

	if (rel > tol) {
		print_error("%s: relative error %.3g > %.3g\n", what, rel, tol);
		fail();
	}
	for (size_t k = 0; k < n; k++)
		if (fabs(f[k] - d[k]) > tol * maxd + 1e-12) {
			print_error("%s[%zu]: %.9g vs %.9g\n", what, k, f[k], d[k]);
			fail();
		}
}

static void test_vs_float64(void **state)
{
	(void)state;
	static const unsigned meshes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 4 }, { 8, 8 }, { 2, 5 } };

	for (unsigned seed = 1; seed <= 4; seed++) {
		setup_net(seed);
		double *gw[NL], *gb[NL];

		for (unsigned l = 0; l < NL; l++) {
			gw[l] = calloc((size_t)DIMS[l] * DIMS[l + 1], sizeof(double));
			gb[l] = calloc(DIMS[l + 1], sizeof(double));
		}
		double L64 = loss64(gw, gb, -1, 0, 0);

		for (unsigned m = 0; m < sizeof(meshes) / sizeof(meshes[0]); m++) {
			float L = ref_run(meshes[m][0], meshes[m][1]);

			assert_true(fabs(L - L64) <= 1e-5 * fabs(L64));
			for (unsigned l = 0; l < NL; l++) {
				compare_tensor(DW[l], gw[l], (size_t)DIMS[l] * DIMS[l + 1], 1e-5, "dW");
				compare_tensor(DB[l], gb[l], DIMS[l + 1], 1e-5, "db");
			}
		}
		for (unsigned l = 0; l < NL; l++) {
			free(gw[l]);
			free(gb[l]);
		}
	}
	free_net();
}

static void test_finite_differences(void **state)
{
	(void)state;
	setup_net(11);
	ref_run(3, 2);
	const double h = 1e-6;
	double gmax = 0, worst = 0;

	for (unsigned l = 0; l < NL; l++)
		for (size_t k = 0; k < (size_t)DIMS[l] * DIMS[l + 1]; k++)
			gmax = fmax(gmax, fabs(DW[l][k]));
	for (unsigned l = 0; l < NL; l++) {
		size_t nw = (size_t)DIMS[l] * DIMS[l + 1];

		for (size_t k = 0; k < nw + DIMS[l + 1]; k++) {
			double fd = (loss64(NULL, NULL, (int)l, (long)k, h) -
				     loss64(NULL, NULL, (int)l, (long)k, -h)) / (2 * h);
			double g = k < nw ? DW[l][k] : DB[l][k - nw];
			double e = fabs(fd - g) / gmax;

			if (e > worst)
				worst = e;
			if (e > 1e-4) {
				print_error("layer %u param %zu: fd %.8g, gradient %.8g\n", l, k, fd, g);
				fail();
			}
		}
	}
	print_message("finite differences: worst |fd - g| / max|g| = %.2g\n", worst);
	free_net();
}

/* The summation tree of docs/training-dataflow.md sections 2, 3 and 5
 * written out for R rows and C = 3 columns on a one-layer net 20 -> 5: the
 * logits, the loss and every weight gradient. */
static void check_documented_tree(unsigned R)
{
	setup_net(5);
	/* a one-layer net 20 -> 5 made of layer 0's first 5 outputs */
	struct train_ref_net n;
	struct train_ref_out o;
	float dw[5 * 20], db[5];
	float wl[5 * 20], bl[5];
	uint8_t y[B];

	memcpy(wl, W[0], sizeof(wl));
	memcpy(bl, Bi[0], sizeof(bl));
	for (unsigned t = 0; t < B; t++)
		y[t] = Y[t] % 5;
	memset(&n, 0, sizeof(n));
	n.rows = R;
	n.cols = 3;
	n.nlayers = 1;
	n.dims[0] = 20;
	n.dims[1] = 5;
	n.w[0] = wl;
	n.b[0] = bl;
	memset(&o, 0, sizeof(o));
	o.dw[0] = dw;
	o.db[0] = db;
	assert_int_equal(train_ref_pass(&n, X, y, B, B, &o), 0);

	/* logits by the tree (section 2): row r's chain starts with the
	 * product of its first input r and goes on through r+R, r+2R, ...;
	 * the owner row (k mod R) takes the bias last as fma(b, 1.0, p); the
	 * column chain adds the rows in order: z = ((p0 + p1) + ...) + p(R-1) */
	float z[B][5];

	for (unsigned t = 0; t < B; t++)
		for (unsigned k = 0; k < 5; k++) {
			float zk = 0.0f;

			for (unsigned r = 0; r < R; r++) {
				float p = wl[k * 20 + r] * X[t * 20 + r];

				for (unsigned i = r + R; i < 20; i += R)
					p = fmaf(wl[k * 20 + i], X[t * 20 + i], p);
				if (k % R == r)
					p = fmaf(bl[k], 1.0f, p);
				zk = r == 0 ? p : zk + p;
			}
			z[t][k] = zk;
		}
	/* softmax (section 3): the max is exact; row r sums its classes
	 * k = r, r+R, ... from +0, the chain adds the rows in order; then the
	 * deltas, and the loss summed in token order from +0 */
	float d[B][5];
	float lsum = 0.0f;

	for (unsigned t = 0; t < B; t++) {
		float m = z[t][0];

		for (unsigned k = 1; k < 5; k++)
			m = z[t][k] > m ? z[t][k] : m;
		float e[5], S = 0.0f;
		extern float wse_expf(float), wse_logf(float);

		for (unsigned k = 0; k < 5; k++)
			e[k] = wse_expf(z[t][k] - m);
		for (unsigned r = 0; r < R; r++) {
			float sr = 0.0f;

			for (unsigned k = r; k < 5; k += R)
				sr = sr + e[k];
			S = r == 0 ? sr : S + sr;
		}
		float rinv = 1.0f / S;

		lsum = lsum + (wse_logf(S) - (z[t][y[t]] - m));
		for (unsigned k = 0; k < 5; k++) {
			float p = e[k] * rinv;

			d[t][k] = ((k == y[t]) ? p - 1.0f : p) * (1.0f / (float)B);
		}
	}
	assert_true(memcmp(&lsum, &o.loss_sum, 4) == 0);
	/* weight gradients (section 5): the first product, then one fused
	 * chain through the tokens of column 0 (0, 3, 6), 1 (1, 4, 7) and 2
	 * (2, 5, 8); B = 9 needs no padding */
	static const unsigned order[B] = { 0, 3, 6, 1, 4, 7, 2, 5, 8 };

	for (unsigned k = 0; k < 5; k++)
		for (unsigned i = 0; i < 20; i++) {
			float G = d[0][k] * X[0 * 20 + i];

			for (unsigned q = 1; q < B; q++)
				G = fmaf(d[order[q]][k], X[order[q] * 20 + i], G);
			if (memcmp(&G, &dw[k * 20 + i], 4)) {
				print_error("R = %u: dW[%u][%u] %a, the reference %a\n", R, k, i,
					    (double)G, (double)dw[k * 20 + i]);
				fail();
			}
		}
	free_net();
}

/* R = 2 (rows in the chain's two end roles only) and R = 4 (sim-4x4: rows
 * 1 and 2 in the middle of the column chain, row 0 owning two classes). */
static void test_documented_tree(void **state)
{
	(void)state;
	check_documented_tree(2);
	check_documented_tree(4);
}

/* R = 1, C = 1: every sum is one sequential chain in index order. */
static void test_single_pe_sequential(void **state)
{
	(void)state;
	setup_net(3);
	ref_run(1, 1);
	/* the forward pass as plain sequential chains over i from the first
	 * product */
	float h[B][12], h2[B][7];

	for (unsigned t = 0; t < B; t++) {
		for (unsigned o = 0; o < 12; o++) {
			float s = W[0][o * 20 + 0] * X[t * 20 + 0];

			for (unsigned i = 1; i < 20; i++)
				s = fmaf(W[0][o * 20 + i], X[t * 20 + i], s);
			s = s + Bi[0][o];
			h[t][o] = s > 0.0f ? s : 0.0f;
		}
		for (unsigned o = 0; o < 7; o++) {
			float s = W[1][o * 12 + 0] * h[t][0];

			for (unsigned i = 1; i < 12; i++)
				s = fmaf(W[1][o * 12 + i], h[t][i], s);
			s = s + Bi[1][o];
			h2[t][o] = s > 0.0f ? s : 0.0f;
		}
	}
	/* softmax deltas, then db and dW of the last layer as sequential
	 * chains over the tokens */
	float z[B][5], d[B][5];
	extern float wse_expf(float);

	for (unsigned t = 0; t < B; t++) {
		float m = -INFINITY, S = 0.0f, e[5];

		for (unsigned o = 0; o < 5; o++) {
			float s = W[2][o * 7 + 0] * h2[t][0];

			for (unsigned i = 1; i < 7; i++)
				s = fmaf(W[2][o * 7 + i], h2[t][i], s);
			z[t][o] = s + Bi[2][o];
			m = z[t][o] > m ? z[t][o] : m;
		}
		for (unsigned o = 0; o < 5; o++) {
			e[o] = wse_expf(z[t][o] - m);
			S = S + e[o];
		}
		float r = 1.0f / S;

		for (unsigned o = 0; o < 5; o++) {
			float p = e[o] * r;

			d[t][o] = ((o == Y[t]) ? p - 1.0f : p) * (1.0f / (float)B);
		}
	}
	for (unsigned o = 0; o < 5; o++) {
		float sb = 0.0f;

		for (unsigned t = 0; t < B; t++)
			sb = sb + d[t][o];
		assert_true(memcmp(&sb, &DB[2][o], 4) == 0);
		for (unsigned i = 0; i < 7; i++) {
			float g = d[0][o] * h2[0][i];

			for (unsigned t = 1; t < B; t++)
				g = fmaf(d[t][o], h2[t][i], g);
			assert_true(memcmp(&g, &DW[2][o * 7 + i], 4) == 0);
		}
	}
	free_net();
}

static void test_bad_args(void **state)
{
	(void)state;
	setup_net(1);
	struct train_ref_net n;
	struct train_ref_out o;

	make_net(&n, 2, 2);
	memset(&o, 0, sizeof(o));
	uint8_t bad[B];

	memcpy(bad, Y, B);
	bad[3] = 5; /* >= classes */
	assert_int_equal(train_ref_pass(&n, X, bad, B, B, &o), WSE_ERROR_INVALID_PARAM);
	n.rows = 0;
	assert_int_equal(train_ref_pass(&n, X, Y, B, B, &o), WSE_ERROR_INVALID_PARAM);
	free_net();
}

/* The optimizer reference on a known case: SGD momentum by hand. */
static void test_ref_sgd_by_hand(void **state)
{
	(void)state;
	float w[1] = { 1.0f }, m[1] = { 0.5f }, g[1] = { 0.25f };

	train_ref_sgd(1, w, m, g, 0.5f, 0.5f, 0.0f);
	/* m = 0.5*0.5 + 0.25 = 0.5; w = 1 - 0.5*0.5 = 0.75 */
	assert_true(m[0] == 0.5f && w[0] == 0.75f);
}

/* The reference's fused multiply-add (C99 fmaf) is the FPU's fmadd.s:
 * compare with the FPU's bit-exact C model on its biased case generator. */
static void test_fmaf_is_fmadd(void **state)
{
	(void)state;
	uint64_t st = 0x5eed5eedull;
	unsigned n = 0;

	for (int k = 0; k < 200000; k++) {
		uint32_t a, b, c, fl;
		float fa, fb, fc, r;

		fpu_gen_case(&st, FPU_MADD, &a, &b, &c);
		uint32_t want = fpu_model(FPU_MADD, FPU_RNE, a, b, c, &fl);

		memcpy(&fa, &a, 4);
		memcpy(&fb, &b, 4);
		memcpy(&fc, &c, 4);
		r = fmaf(fa, fb, fc);
		uint32_t got;

		memcpy(&got, &r, 4);
		if (isnan(r) && (want & 0x7fffffffu) > 0x7f800000u)
			continue; /* NaN payloads: RISC-V canonicalizes, x86 does not */
		if (got != want) {
			print_error("fmaf(%08x, %08x, %08x) = %08x, fmadd.s = %08x\n", a, b, c, got,
				    want);
			fail();
		}
		n++;
	}
	print_message("fmaf equals the FPU model's fmadd.s on %u non-NaN cases\n", n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmaf_is_fmadd),
		cmocka_unit_test(test_vs_float64),
		cmocka_unit_test(test_finite_differences),
		cmocka_unit_test(test_documented_tree),
		cmocka_unit_test(test_single_pe_sequential),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_ref_sgd_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

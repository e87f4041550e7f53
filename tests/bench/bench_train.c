/* bench_train - training on the simulated mesh (docs/training.md):
 *
 *   bench_train gemm  STEPS        784-128-10, batch 32, SGD lr 0.05, examples
 *                                  in file order: cycles and utilization
 *   bench_train accuracy STEPS N   196-64-10 on pooled images, batch 32: the
 *                                  first 10 steps checked bit for bit against
 *                                  the reference, STEPS steps, test accuracy on
 *                                  the first N test images, all on the mesh
 *   bench_train epoch              784-128-10, batch 32, SGD lr 0.05 momentum
 *                                  0.9, examples in file order: one epoch
 *                                  (1,875 steps), then all 10,000 test images
 *   bench_train load               the time to open the device, load the
 *                                  kernel on every tile and write the routes
 *   bench_train sparse STEPS       784-128-10, batch 32, SGD lr 0.05: cycles
 *                                  of a step dense and at sparsities 0.5,
 *                                  0.75, 0.9, 0.95 (fixed random masks,
 *                                  sparse weight streams), the speed-ups and
 *                                  the format's bound at 0.9
 *   bench_train sparse-accuracy STEPS N
 *                                  196-64-10 as `accuracy`, dense and at
 *                                  sparsity 0.9: test accuracy on the first
 *                                  N test images
 *
 * Prints "BENCH <name> <value> <unit>" lines. WSE_BENCH_URI picks the device
 * (default sim:board=sim-4x4), TR_FM_DIR the dataset. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmnist.h"
#include "sparse.h"
#include "train_mesh.h"
#include "train_ref.h"
#include "wsehost.h"
#include <wsemu/wse_mlp_abi.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_train: %s: %s\n", what, msg);
	return 1;
}

struct model {
	struct train_ref_net net;
	struct train_ref_out g;
	float *mom[TRAIN_REF_MAX_LAYERS * 2];
};

/* PyTorch Linear initialization from the project's RNG. */
static void model_init(struct model *md, unsigned L, const unsigned *dims, unsigned R,
		       unsigned C)
{
	uint64_t rng = 1;

	memset(md, 0, sizeof(*md));
	md->net.rows = R;
	md->net.cols = C;
	md->net.nlayers = L;
	memcpy(md->net.dims, dims, (L + 1) * sizeof(unsigned));
	for (unsigned l = 0; l < L; l++) {
		size_t nw = (size_t)dims[l] * dims[l + 1];
		float bound = 1.0f / sqrtf((float)dims[l]);

		md->net.w[l] = malloc(nw * 4);
		md->net.b[l] = malloc(dims[l + 1] * 4);
		md->g.dw[l] = calloc(nw, 4);
		md->g.db[l] = calloc(dims[l + 1], 4);
		md->mom[2 * l] = calloc(nw, 4);
		md->mom[2 * l + 1] = calloc(dims[l + 1], 4);
		for (size_t k = 0; k < nw; k++)
			md->net.w[l][k] = (2.0f * ((float)(fm_splitmix64(&rng) >> 40) / 16777216.0f) - 1.0f) * bound;
		for (unsigned k = 0; k < dims[l + 1]; k++)
			md->net.b[l][k] = (2.0f * ((float)(fm_splitmix64(&rng) >> 40) / 16777216.0f) - 1.0f) * bound;
	}
}

static void model_sgd(struct model *md, float lr, float momentum)
{
	for (unsigned l = 0; l < md->net.nlayers; l++) {
		size_t nw = (size_t)md->net.dims[l] * md->net.dims[l + 1];

		train_ref_sgd(nw, md->net.w[l], md->mom[2 * l], md->g.dw[l], lr, momentum, 0.0f);
		train_ref_sgd(md->net.dims[l + 1], md->net.b[l], md->mom[2 * l + 1], md->g.db[l], lr,
			      momentum, 0.0f);
	}
}

static int same(const struct model *a, const struct train_ref_out *o)
{
	for (unsigned l = 0; l < a->net.nlayers; l++) {
		size_t nw = (size_t)a->net.dims[l] * a->net.dims[l + 1];

		if (memcmp(a->g.dw[l], o->dw[l], nw * 4) ||
		    memcmp(a->g.db[l], o->db[l], a->net.dims[l + 1] * 4))
			return 0;
	}
	return 1;
}

static struct train_mesh *open_mesh(unsigned L, const unsigned *dims, unsigned *R, unsigned *C)
{
	const char *uri = getenv("WSE_BENCH_URI");
	struct train_mesh *m;
	char err[512];

	if (train_mesh_open(&m, uri, L, dims, 32, 1800000, R, C, err, sizeof(err))) {
		die("open", err);
		return NULL;
	}
	return m;
}

static void print_link(void)
{
	/* the board's link, as the device tree gives it */
	const char *uri = getenv("WSE_BENCH_URI");
	wse_device *d;
	struct wse_info in = { .size = sizeof(in) };

	if (wse_open(&d, uri, NULL) == 0) {
		wse_get_info(d, &in);
		printf("link: %s, %u bits, %u bytes/cycle, latency %u cycles (board %s)\n",
		       in.link_compatible, in.link_width_bits, in.link_bytes_per_cycle,
		       in.link_latency_cycles, in.compatible);
		wse_close(d);
	}
}

/* With $WSE_MLP_PROFILE: the kernel's phase cycles (largest over the
 * tiles; docs/training.md). */
static void print_profile(const struct train_mesh_stats *st)
{
	const uint32_t *p = st->prof;

	if (!p[WSE_MLP_PROF_FWD(0)])
		return;
	printf("PROFILE load %u | fwd0 %u (fmacs %u, reduce %u) | fwd1 %u (fmacs %u, reduce %u) | "
	       "softmax %u | bw-weights1 %u | bw-inputs1 %u | bw-weights0 %u (dz %u, fmacs %u, chain %u, bias %u) | "
	       "local fmacs %u cycles for %u multiply-adds\n",
	       p[WSE_MLP_PROF_LOAD], p[WSE_MLP_PROF_FWD(0)], p[WSE_MLP_PROF_FWD_FMACS(0)],
	       p[WSE_MLP_PROF_FWD_RED(0)], p[WSE_MLP_PROF_FWD(1)], p[WSE_MLP_PROF_FWD_FMACS(1)],
	       p[WSE_MLP_PROF_FWD_RED(1)], p[WSE_MLP_PROF_SOFTMAX], p[WSE_MLP_PROF_BWW(1)],
	       p[WSE_MLP_PROF_BWI(1)],
	       p[WSE_MLP_PROF_BWW(0)], p[WSE_MLP_PROF_BWW_DZ(0)], p[WSE_MLP_PROF_BWW_FMACS(0)],
	       p[WSE_MLP_PROF_BWW_CHAIN(0)], p[WSE_MLP_PROF_BWW_BIAS(0)], p[WSE_MLP_PROF_LOCAL], p[WSE_MLP_PROF_LOCAL_ELEMS]);
}

/* Forward passes over the first n test examples in batches of 32: the
 * examples predicted right, or -1 after an error. */
static int64_t eval_mesh(struct train_mesh *m, struct model *md, const struct fm_data *te,
			 unsigned n)
{
	uint32_t correct = 0;

	for (unsigned e = 0; e < n; e += 32) {
		unsigned k = n - e < 32 ? n - e : 32;
		struct train_ref_out o;

		memset(&o, 0, sizeof(o));
		if (train_mesh_pass(m, &md->net, te->x + (size_t)e * te->features, te->y + e, k, k, &o)) {
			die("eval", train_mesh_last_error(m));
			return -1;
		}
		correct += o.correct;
	}
	return correct;
}

static int bench_gemm(const char *fm, unsigned steps)
{
	static const unsigned dims[] = { 784, 128, 10 };
	const unsigned B = 32;
	struct fm_data tr;
	char err[512];
	unsigned R, C;

	if (fm_load(fm, 1, 1, &tr, err, sizeof(err)))
		return die("dataset", err);
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	struct model md;

	model_init(&md, 2, dims, R, C);
	uint64_t cycles = 0, gemm = 0, wav = 0, bytes = 0;
	double macs = (double)B * (2.0 * (784 * 128 + 128 * 10) + 128 * 10);

	for (unsigned s = 0; s < steps; s++) {
		struct train_mesh_stats st;

		if (train_mesh_pass(m, &md.net, tr.x + (size_t)s * B * 784, tr.y + (size_t)s * B, B, B,
				    &md.g))
			return die("pass", train_mesh_last_error(m));
		model_sgd(&md, 0.05f, 0.0f);
		train_mesh_get_stats(m, &st);
		cycles += st.cycles;
		gemm += st.gemm_cycles;
		wav += st.weight_wavelets;
		for (int k = 0; k < TM_NUM_BYTES; k++)
			bytes += st.bytes[k];
		fprintf(stderr, "step %u: %u cycles (%u in streamed GEMMs), host ms: load %.0f, stream %.0f, collect %.0f, finish %.0f\n",
			s + 1, st.cycles, st.gemm_cycles, st.ms_load, st.ms_stream, st.ms_collect,
			st.ms_finish);
		print_profile(&st);
	}
	printf("model 784-128-10, batch %u, %ux%u mesh, %u steps, %.0f multiply-adds per step\n", B,
	       C, R, steps, macs);
	printf("BENCH train.cycles_per_step %.0f cycles\n", (double)cycles / steps);
	printf("BENCH train.step_utilization %.4f ratio\n", macs * steps / ((double)R * C * cycles));
	printf("BENCH train.gemm_utilization %.4f ratio\n", macs * steps / ((double)R * C * gemm));
	printf("BENCH train.weight_wavelets_per_step %.0f wavelets\n", (double)wav / steps);
	printf("BENCH train.link_bytes_per_step %.0f bytes\n", (double)bytes / steps);
	train_mesh_close(m);
	fm_free(&tr);
	return 0;
}

static int bench_accuracy(const char *fm, unsigned steps, unsigned neval)
{
	static const unsigned dims[] = { 196, 64, 10 };
	const unsigned B = 32;
	struct fm_data tr, te;
	char err[512];
	unsigned R, C;

	if (fm_load(fm, 1, 2, &tr, err, sizeof(err)) || fm_load(fm, 0, 2, &te, err, sizeof(err)))
		return die("dataset", err);
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	struct model md;
	struct train_ref_out ro;
	unsigned exact = 0;

	model_init(&md, 2, dims, R, C);
	memset(&ro, 0, sizeof(ro));
	for (unsigned l = 0; l < 2; l++) {
		ro.dw[l] = calloc((size_t)dims[l] * dims[l + 1], 4);
		ro.db[l] = calloc(dims[l + 1], 4);
	}
	double t0 = now_s();

	for (unsigned s = 0; s < steps; s++) {
		const float *x = tr.x + (size_t)(s * B % tr.n) * 196;
		const uint8_t *y = tr.y + (s * B % tr.n);

		if (train_mesh_pass(m, &md.net, x, y, B, B, &md.g))
			return die("pass", train_mesh_last_error(m));
		if (s < 10) {
			if (train_ref_pass(&md.net, x, y, B, B, &ro))
				return die("reference", "pass failed");
			exact += same(&md, &ro) && exact == s;
		}
		model_sgd(&md, 0.05f, 0.9f);
		if ((s + 1) % 10 == 0)
			fprintf(stderr, "step %u/%u, %.1f s per step\n", s + 1, steps,
				(now_s() - t0) / (s + 1));
	}
	double per_step = (now_s() - t0) / steps;
	int64_t correct = eval_mesh(m, &md, &te, neval);

	if (correct < 0)
		return 1;
	printf("model 196-64-10 (pooled 14x14), batch %u, SGD lr 0.05 momentum 0.9, %ux%u mesh\n", B,
	       C, R);
	printf("BENCH train.bitexact_steps %u steps\n", exact);
	printf("BENCH train.test_accuracy %.4f ratio (%u steps, first %u test images)\n",
	       (double)correct / neval, steps, neval);
	printf("BENCH train.sim_seconds_per_step %.2f s\n", per_step);
	train_mesh_close(m);
	fm_free(&tr);
	fm_free(&te);
	return 0;
}

/* One epoch of 784-128-10 and the whole test set (meant for wsemu-fast). */
static int bench_epoch(const char *fm)
{
	static const unsigned dims[] = { 784, 128, 10 };
	const unsigned B = 32;
	struct fm_data tr, te;
	char err[512];
	unsigned R, C;

	if (fm_load(fm, 1, 1, &tr, err, sizeof(err)) || fm_load(fm, 0, 1, &te, err, sizeof(err)))
		return die("dataset", err);
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	struct model md;
	unsigned steps = tr.n / B;

	model_init(&md, 2, dims, R, C);
	double t0 = now_s();

	for (unsigned s = 0; s < steps; s++) {
		if (train_mesh_pass(m, &md.net, tr.x + (size_t)s * B * 784, tr.y + (size_t)s * B, B, B,
				    &md.g))
			return die("pass", train_mesh_last_error(m));
		model_sgd(&md, 0.05f, 0.9f);
		if ((s + 1) % 200 == 0)
			fprintf(stderr, "step %u/%u, %.3f s per step\n", s + 1, steps,
				(now_s() - t0) / (s + 1));
	}
	double per_step = (now_s() - t0) / steps;
	int64_t correct = eval_mesh(m, &md, &te, te.n);

	if (correct < 0)
		return 1;
	printf("model 784-128-10, batch %u, SGD lr 0.05 momentum 0.9, %ux%u mesh, %u steps (one epoch)\n",
	       B, C, R, steps);
	printf("BENCH train.fast_epoch_accuracy %.4f ratio (%u test images)\n",
	       (double)correct / te.n, te.n);
	printf("BENCH sim.fast_step_seconds_784_128_10 %.4f s\n", per_step);
	train_mesh_close(m);
	fm_free(&tr);
	fm_free(&te);
	return 0;
}

/* A fixed random mask of sparsity s per matrix (none for s = 0), the
 * masked weights set to +0 as MemoryX keeps them; SGD then leaves them at
 * +0 (their gradients are +0). Returns 0 or -1 (out of memory). */
static int model_mask(struct model *md, float s, uint64_t seed)
{
	for (unsigned l = 0; l < md->net.nlayers && s > 0.0f; l++) {
		size_t nw = (size_t)md->net.dims[l] * md->net.dims[l + 1];
		float *mk = malloc(nw * 4);

		if (!mk || sp_mask_random(nw, s, seed + l, mk))
			return -1;
		for (size_t k = 0; k < nw; k++)
			md->net.w[l][k] *= mk[k];
		md->net.mask[l] = mk;
	}
	return 0;
}

static void model_free(struct model *md)
{
	for (unsigned l = 0; l < md->net.nlayers; l++) {
		free(md->net.w[l]);
		free(md->net.b[l]);
		free((void *)md->net.mask[l]);
		free(md->g.dw[l]);
		free(md->g.db[l]);
		free(md->mom[2 * l]);
		free(md->mom[2 * l + 1]);
	}
}

/* Cycles of a 784-128-10 step (batch 32, examples in file order), dense
 * over sparse, on the device (meant for wsemu-fast: the RTL engine has no
 * sparse mode). */
static int bench_sparse(const char *fm, unsigned steps)
{
	static const unsigned dims[] = { 784, 128, 10 };
	static const float sp[] = { 0.0f, 0.5f, 0.75f, 0.9f, 0.95f };
	const unsigned B = 32;
	struct fm_data tr;
	char err[512];
	unsigned R, C;
	double cyc[5], gemm[5], wav[5];

	if (fm_load(fm, 1, 1, &tr, err, sizeof(err)))
		return die("dataset", err);
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	for (unsigned k = 0; k < 5; k++) {
		struct model md;

		model_init(&md, 2, dims, R, C);
		if (model_mask(&md, sp[k], 77))
			return die("masks", "out of memory");
		cyc[k] = gemm[k] = wav[k] = 0;
		for (unsigned s = 0; s < steps; s++) {
			struct train_mesh_stats st;

			if (train_mesh_pass(m, &md.net, tr.x + (size_t)s * B * 784, tr.y + (size_t)s * B,
					    B, B, &md.g))
				return die("pass", train_mesh_last_error(m));
			model_sgd(&md, 0.05f, 0.0f);
			train_mesh_get_stats(m, &st);
			cyc[k] += st.cycles;
			gemm[k] += st.gemm_cycles;
			wav[k] += (double)st.weight_wavelets;
			print_profile(&st);
		}
		fprintf(stderr, "sparsity %.2f: %.0f cycles a step (%.0f in streamed GEMMs), "
			"%.0f weight wavelets\n", (double)sp[k], cyc[k] / steps, gemm[k] / steps,
			wav[k] / steps);
		model_free(&md);
	}
	printf("model 784-128-10, batch %u, %ux%u mesh, %u steps per sparsity\n", B, C, R, steps);
	printf("BENCH sparse.cycles_dense %.0f cycles\n", cyc[0] / steps);
	for (unsigned k = 1; k < 5; k++)
		printf("BENCH sparse.speedup_%02.0f %.3f ratio (%.0f cycles a step; streamed GEMMs %.3f, "
		       "weight wavelets %.3f)\n", (double)sp[k] * 100.0, cyc[0] / cyc[k],
		       cyc[k] / steps, gemm[0] / gemm[k], wav[0] / wav[k]);
	/* the format's bound: 1.25 wavelets per nonzero (docs/training-dataflow.md) */
	printf("BENCH sparse.bound_90 %.3f ratio\n", 1.0 / (1.25 * (1.0 - 0.9)));
	train_mesh_close(m);
	fm_free(&tr);
	return 0;
}

/* 196-64-10 (pooled) trained dense and at sparsity 0.9, then scored. */
static int bench_sparse_accuracy(const char *fm, unsigned steps, unsigned neval)
{
	static const unsigned dims[] = { 196, 64, 10 };
	static const float sp[] = { 0.0f, 0.9f };
	const unsigned B = 32;
	struct fm_data tr, te;
	char err[512];
	unsigned R, C;
	double acc[2];

	if (fm_load(fm, 1, 2, &tr, err, sizeof(err)) || fm_load(fm, 0, 2, &te, err, sizeof(err)))
		return die("dataset", err);
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	for (unsigned k = 0; k < 2; k++) {
		struct model md;

		model_init(&md, 2, dims, R, C);
		if (model_mask(&md, sp[k], 78))
			return die("masks", "out of memory");
		for (unsigned s = 0; s < steps; s++) {
			const float *x = tr.x + (size_t)(s * B % tr.n) * 196;
			const uint8_t *y = tr.y + (s * B % tr.n);

			if (train_mesh_pass(m, &md.net, x, y, B, B, &md.g))
				return die("pass", train_mesh_last_error(m));
			model_sgd(&md, 0.05f, 0.9f);
		}
		int64_t correct = eval_mesh(m, &md, &te, neval);

		if (correct < 0)
			return 1;
		acc[k] = (double)correct / neval;
		model_free(&md);
	}
	printf("model 196-64-10 (pooled 14x14), batch %u, SGD lr 0.05 momentum 0.9, %ux%u mesh, "
	       "%u steps\n", B, C, R, steps);
	printf("BENCH sparse.accuracy_dense %.4f ratio (first %u test images)\n", acc[0], neval);
	printf("BENCH sparse.accuracy_90 %.4f ratio (first %u test images)\n", acc[1], neval);
	train_mesh_close(m);
	fm_free(&tr);
	fm_free(&te);
	return 0;
}

/* Open, kernel on every tile, routes: train_mesh_open, timed. */
static int bench_load(const char *name)
{
	static const unsigned dims[] = { 196, 64, 10 };
	unsigned R, C;
	double t0 = now_s();
	struct train_mesh *m = open_mesh(2, dims, &R, &C);

	if (!m)
		return 1;
	printf("BENCH %s %.0f ms (%ux%u tiles)\n", name, (now_s() - t0) * 1000, C, R);
	train_mesh_close(m);
	return 0;
}

int main(int argc, char **argv)
{
	const char *fm = getenv("TR_FM_DIR") ? getenv("TR_FM_DIR") : FM_DEFAULT_DIR;

	if (argc >= 3 && !strcmp(argv[1], "gemm")) {
		print_link();
		return bench_gemm(fm, (unsigned)atoi(argv[2]));
	}
	if (argc >= 4 && !strcmp(argv[1], "accuracy"))
		return bench_accuracy(fm, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	if (argc >= 2 && !strcmp(argv[1], "epoch"))
		return bench_epoch(fm);
	if (argc >= 3 && !strcmp(argv[1], "load"))
		return bench_load(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "sparse"))
		return bench_sparse(fm, (unsigned)atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "sparse-accuracy"))
		return bench_sparse_accuracy(fm, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	fprintf(stderr, "usage: bench_train gemm STEPS | accuracy STEPS EVAL_IMAGES | epoch | load NAME"
		" | sparse STEPS | sparse-accuracy STEPS EVAL_IMAGES\n");
	return 2;
}

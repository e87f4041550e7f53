/* The mesh backend against the reference trainer, on wsemu-sim: one pass
 * (forward, loss, backward) on the RTL gives the same loss, predictions,
 * weight and bias gradients as train_ref_pass() for the device's rows and
 * columns, bit for bit; odd batches; what crossed the link by category.
 * WSE_TEST_URI picks the device (default sim:board=sim-4x4). */
#include "tr_test.h"

#include <math.h>

#include <wsemu/wse_mlp_abi.h>

#include "fmnist.h"
#include "sparse.h"
#include "train_mesh.h"
#include "train_ref.h"
#include "wsehost.h"
#include "wsehost_train.h"

static const char *uri(void)
{
	const char *u = getenv("WSE_TEST_URI");

	return u && *u ? u : "sim:board=sim-4x4";
}

/* The cross-check: with WSE_TEST_URI_FAST set (the functional model of the
 * same board), every pass and step also runs there and must give the
 * device's bits (docs/wsemu-fast.md). */
static const char *uri_fast(void)
{
	const char *u = getenv("WSE_TEST_URI_FAST");

	return u && *u ? u : NULL;
}

struct net_buf {
	struct train_ref_net net;
	float *x;
	uint8_t *y;
};

static void make_net(struct net_buf *nb, unsigned L, const unsigned *dims, unsigned R,
		     unsigned C, unsigned B, uint64_t seed)
{
	memset(nb, 0, sizeof(*nb));
	nb->net.rows = R;
	nb->net.cols = C;
	nb->net.nlayers = L;
	for (unsigned l = 0; l <= L; l++)
		nb->net.dims[l] = dims[l];
	for (unsigned l = 0; l < L; l++) {
		float bound = 1.0f / sqrtf((float)dims[l]);

		nb->net.w[l] = malloc(sizeof(float) * dims[l] * dims[l + 1]);
		nb->net.b[l] = malloc(sizeof(float) * dims[l + 1]);
		for (unsigned k = 0; k < dims[l] * dims[l + 1]; k++)
			nb->net.w[l][k] = tr_uniform(&seed, -bound, bound);
		for (unsigned k = 0; k < dims[l + 1]; k++)
			nb->net.b[l][k] = tr_uniform(&seed, -bound, bound);
	}
	nb->x = malloc(sizeof(float) * B * dims[0]);
	nb->y = malloc(B);
	for (unsigned k = 0; k < B * dims[0]; k++)
		nb->x[k] = tr_uniform(&seed, 0.0f, 1.0f) < 0.3f ? 0.0f : tr_uniform(&seed, 0.0f, 1.0f);
	for (unsigned t = 0; t < B; t++)
		nb->y[t] = (uint8_t)(tr_rng(&seed) % dims[L]);
}

static void free_net(struct net_buf *nb)
{
	for (unsigned l = 0; l < nb->net.nlayers; l++) {
		free(nb->net.w[l]);
		free(nb->net.b[l]);
	}
	free(nb->x);
	free(nb->y);
}

static void alloc_out(struct train_ref_out *o, const struct train_ref_net *n)
{
	memset(o, 0, sizeof(*o));
	for (unsigned l = 0; l < n->nlayers; l++) {
		o->dw[l] = calloc((size_t)n->dims[l] * n->dims[l + 1], sizeof(float));
		o->db[l] = calloc(n->dims[l + 1], sizeof(float));
	}
}

static void free_out(struct train_ref_out *o, unsigned L)
{
	for (unsigned l = 0; l < L; l++) {
		free(o->dw[l]);
		free(o->db[l]);
	}
}

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* Equal bit for bit; the first mismatch is reported as layer, index, hex. */
static void same_bits_of(const char *what, unsigned l, const float *a, const float *b, size_t n,
			 const char *na, const char *nb)
{
	for (size_t k = 0; k < n; k++)
		if (bits(a[k]) != bits(b[k])) {
			print_error("%s of layer %u differ first at index %zu: %s 0x%08x, %s 0x%08x\n",
				    what, l, k, na, bits(a[k]), nb, bits(b[k]));
			fail();
		}
}

static void same_bits(const char *what, unsigned l, const float *a, const float *b, size_t n)
{
	same_bits_of(what, l, a, b, n, "mesh", "reference");
}

/* The same pass on the functional model: the device's bits (om). */
static void cross_check_pass(unsigned L, const unsigned *dims, unsigned B, int train,
			     const struct net_buf *nb, const struct train_ref_out *om)
{
	struct train_mesh *m;
	unsigned R, C;
	char err[512];
	struct train_ref_out of;
	int rc = train_mesh_open(&m, uri_fast(), L, dims, B, 60000, &R, &C, err, sizeof(err));

	if (rc) {
		print_error("%s: %s\n", uri_fast(), err);
		fail();
	}
	assert_int_equal(R, nb->net.rows);
	assert_int_equal(C, nb->net.cols);
	if (train)
		alloc_out(&of, &nb->net);
	else
		memset(&of, 0, sizeof(of));
	rc = train_mesh_pass(m, &nb->net, nb->x, nb->y, B, B, &of);
	if (rc)
		print_error("%s\n", train_mesh_last_error(m));
	assert_int_equal(rc, 0);
	if (bits(of.loss_sum) != bits(om->loss_sum) || of.correct != om->correct) {
		print_error("loss sum RTL 0x%08x, functional model 0x%08x; correct %u, %u\n",
			    bits(om->loss_sum), bits(of.loss_sum), om->correct, of.correct);
		fail();
	}
	for (unsigned l = 0; train && l < L; l++) {
		same_bits_of("weight gradients", l, om->dw[l], of.dw[l], (size_t)dims[l] * dims[l + 1],
			     "RTL", "functional model");
		same_bits_of("bias gradients", l, om->db[l], of.db[l], dims[l + 1], "RTL",
			     "functional model");
	}
	print_message("    the same bits on %s (%llu cycles there)\n", uri_fast(),
		      (unsigned long long)of.cycles);
	if (train)
		free_out(&of, L);
	train_mesh_close(m);
}

/* One pass of dims at batch B on the device vs the reference. */
static void check_pass(unsigned L, const unsigned *dims, unsigned B, uint64_t seed, int train,
		       int second)
{
	struct train_mesh *m;
	unsigned R, C;
	char err[512];
	int rc = train_mesh_open(&m, uri(), L, dims, B, getenv("TM_TIMEOUT") ? atoi(getenv("TM_TIMEOUT")) : 300000, &R, &C, err, sizeof(err));

	if (rc) {
		print_error("%s\n", err);
		fail();
	}
	struct net_buf nb;
	struct train_ref_out om, orf;

	make_net(&nb, L, dims, R, C, B, seed);
	if (train) {
		alloc_out(&om, &nb.net);
		alloc_out(&orf, &nb.net);
	} else {
		memset(&om, 0, sizeof(om));
		memset(&orf, 0, sizeof(orf));
	}
	rc = train_mesh_pass(m, &nb.net, nb.x, nb.y, B, B, &om);
	if (rc)
		print_error("%s\n", train_mesh_last_error(m));
	assert_int_equal(rc, 0);
	assert_int_equal(train_ref_pass(&nb.net, nb.x, nb.y, B, B, &orf), 0);

	struct train_mesh_stats st;

	train_mesh_get_stats(m, &st);
	print_message("%ux%u, %u layers, batch %u, %s: loss %.6f (0x%08x), %u correct, %u cycles; "
		      "host ms: load %.0f, stream %.0f, collect %.0f, finish %.0f\n", C, R, L, B,
		      train ? "train" : "forward", (double)om.loss, bits(om.loss), om.correct,
		      st.cycles, st.ms_load, st.ms_stream, st.ms_collect, st.ms_finish);
	assert_int_equal(bits(om.loss_sum), bits(orf.loss_sum));
	assert_int_equal(bits(om.loss), bits(orf.loss));
	assert_int_equal(om.correct, orf.correct);
	if (uri_fast())
		cross_check_pass(L, dims, B, train, &nb, &om);
	for (unsigned l = 0; train && l < L; l++) {
		same_bits("weight gradients", l, om.dw[l], orf.dw[l], (size_t)dims[l] * dims[l + 1]);
		same_bits("bias gradients", l, om.db[l], orf.db[l], dims[l + 1]);
	}
	/* what crossed the link: the formulas of docs/training-dataflow.md */
	uint64_t Bp = (B + C - 1) / C * C, fw = 0, bw = 0, bias = 0;

	for (unsigned l = 0; l < L; l++) {
		fw += 4ull * dims[l] * dims[l + 1];
		bw += l > 0 ? 4ull * dims[l] * dims[l + 1] : 0;
		bias += 4ull * dims[l + 1];
	}
	assert_int_equal(st.bytes[TM_WEIGHTS], fw + (train ? bw : 0));
	assert_int_equal(st.bytes[TM_BIASES], bias);
	assert_int_equal(st.bytes[TM_GRADIENTS], train ? fw : 0);
	assert_int_equal(st.bytes[TM_BIAS_GRADS], train ? bias : 0);
	assert_int_equal(st.bytes[TM_BATCH], 4ull * dims[0] * Bp);
	assert_int_equal(st.bytes[TM_LABELS], 4ull * R * Bp);
	assert_int_equal(st.bytes[TM_METRICS], 8ull * R * Bp);
	assert_int_equal(st.bytes[TM_PARAMS], (uint64_t)R * C * sizeof(struct wse_mlp_params));
	/* a second pass of the same shape writes no parameter block */
	if (train && second) {
		assert_int_equal(train_mesh_pass(m, &nb.net, nb.x, nb.y, B, B, &om), 0);
		train_mesh_get_stats(m, &st);
		assert_int_equal(st.bytes[TM_PARAMS], 0);
		for (unsigned l = 0; l < L; l++)
			same_bits("weight gradients (second pass)", l, om.dw[l], orf.dw[l],
				  (size_t)dims[l] * dims[l + 1]);
	}
	if (train)
		free_out(&om, L), free_out(&orf, L);
	free_net(&nb);
	train_mesh_close(m);
}

static void test_small_pass(void **state)
{
	(void)state;
	static const unsigned dims[] = { 12, 8, 5 };

	check_pass(2, dims, 8, 11, 1, 0);
}

/* Three layers (two backward-input passes), batch 20: columns hold
 * different numbers of real tokens, padded slots are masked. */
static void test_three_layers_odd_batch(void **state)
{
	(void)state;
	static const unsigned dims[] = { 20, 12, 9, 7 };

	check_pass(3, dims, 20, 12, 1, 0);
}

/* Fewer features than rows: rows without inputs, rows without classes. */
static void test_narrow(void **state)
{
	(void)state;
	static const unsigned dims[] = { 3, 6, 2 };

	check_pass(2, dims, 5, 13, 1, 0);
}

/* Forward and loss only (evaluation): no gradients cross the link. */
static void test_forward_only(void **state)
{
	(void)state;
	static const unsigned dims[] = { 64, 16, 10 };

	check_pass(2, dims, 16, 14, 0, 0);
}

/* The small MLP of the training tests, at batch 16. */
static void test_64_16_10(void **state)
{
	(void)state;
	static const unsigned dims[] = { 64, 16, 10 };

	check_pass(2, dims, 16, 15, 1, 1);
}

/* The default model of make run, one step: 196-64-10 at batch 32 (long on
 * the regression model: in make test-full). */
static void full_196_64_10(void **state)
{
	(void)state;
	static const unsigned dims[] = { 196, 64, 10 };

	check_pass(2, dims, 32, 16, 1, 0);
}

/* A model whose buffers exceed DMEM is refused with both byte counts. */
static void test_does_not_fit(void **state)
{
	(void)state;
	static const unsigned dims[] = { 784, 1024, 10 };
	struct train_mesh *m = (struct train_mesh *)1;
	unsigned R, C;
	char err[512] = "";
	int rc = train_mesh_open(&m, uri(), 2, dims, 512, 60000, &R, &C, err, sizeof(err));

	print_message("%s\n", err);
	assert_int_equal(rc, WSE_ERROR_NO_MEM);
	assert_null(m);
	assert_non_null(strstr(err, "does not fit"));
	assert_non_null(strstr(err, "bytes of DMEM"));
	assert_non_null(strstr(err, "are available"));
}

/* ---- wse_load_elf / wse_elf_symbol with the kernel image ---- */

extern const unsigned char wse_mlp_kernel_elf[];
extern const size_t wse_mlp_kernel_elf_len;

static void put32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A good image loads and reads back; bad images are refused with their
 * error and change nothing in the tile. */
static void test_load_elf(void **state)
{
	(void)state;
	const uint8_t *img = wse_mlp_kernel_elf;
	size_t len = wse_mlp_kernel_elf_len;
	uint32_t params, entry = 0x80000000u, word, before;
	wse_device *d;
	/* the backend's default bound (runtime.timeout_ms): loading the image
	 * is one management access per word, about 20 s of the regression
	 * model alone and several times that beside other simulations */
	struct wse_open_opts o = { .size = sizeof(o), .timeout_ms = 600000 };

	assert_int_equal(wse_elf_symbol(img, len, "wse_mlp_params", &params), 0);
	assert_true(params >= 0x80100000u);
	assert_int_equal(wse_elf_symbol(img, len, "no_such_symbol", &word), WSE_ERROR_NOT_FOUND);
	assert_int_equal(wse_elf_symbol(img, 40, "wse_mlp_params", &word), WSE_ERROR_MALFORMED);
	assert_int_equal(wse_open(&d, uri(), &o), 0);
	assert_int_equal(wse_tile_halt(d, 0, 0), 0);
	word = 0x5a5a1234u;
	assert_int_equal(wse_mem_write(d, 0, 0, entry, &word, 4), 0);

	uint8_t *bad = malloc(len);

	memcpy(bad, img, len);
	assert_int_equal(wse_load_elf(d, 0, 0, bad, 51), WSE_ERROR_MALFORMED); /* truncated */
	put32(bad + 28, (uint32_t)len);                                        /* phoff past the end */
	assert_int_equal(wse_load_elf(d, 0, 0, bad, len), WSE_ERROR_MALFORMED);
	memcpy(bad, img, len);
	bad[18] = 62; /* e_machine x86-64, not RISC-V */
	bad[19] = 0;
	assert_int_equal(wse_load_elf(d, 0, 0, bad, len), WSE_ERROR_MALFORMED);
	memcpy(bad, img, len);
	/* move the last loadable segment beyond DMEM: refused before any write */
	uint32_t phoff = get32(bad + 28);
	unsigned phn = bad[44] | bad[45] << 8, phe = bad[42] | bad[43] << 8, last = phn;

	for (unsigned i = 0; i < phn; i++)
		if (get32(bad + phoff + i * phe) == 1 && get32(bad + phoff + i * phe + 16))
			last = i;
	assert_true(last < phn);
	put32(bad + phoff + last * phe + 12, 0x80100000u + 0x100000u);
	assert_int_equal(wse_load_elf(d, 0, 0, bad, len), WSE_ERROR_RANGE);
	assert_int_equal(wse_mem_read(d, 0, 0, entry, &before, 4), 0);
	assert_int_equal(before, 0x5a5a1234u); /* nothing was written */
	/* the good image loads: IMEM holds its first instruction word */
	assert_int_equal(wse_load_elf(d, 0, 0, img, len), 0);
	assert_int_equal(wse_mem_read(d, 0, 0, entry, &word, 4), 0);
	uint32_t off0 = get32(img + phoff + 4);

	for (unsigned i = 0; i < phn; i++)
		if (get32(img + phoff + i * phe) == 1 && get32(img + phoff + i * phe + 12) == entry)
			off0 = get32(img + phoff + i * phe + 4);
	assert_int_equal(word, get32(img + off0));
	print_message("kernel image: %zu bytes, %u program headers, parameter block at 0x%08x\n",
		      len, phn, params);
	free(bad);
	wse_close(d);
}

/* ---- the training API: mesh backend vs host-reference backend ---- */

static const char *fm_dir(void)
{
	const char *d = getenv("TR_FM_DIR");

	return d ? d : FM_DEFAULT_DIR;
}

/* Write a params file for backend (mesh or host-reference). */
static void write_params(const char *path, const char *layers, const char *opt,
			 const char *backend, const char *device)
{
	const char *mesh = getenv("WSE_TEST_MESH");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "model.layers = %s\nmodel.init_seed = 5\ndata.dir = %s\n"
		   "data.pool = 2\ndata.shuffle = 1\ndata.shuffle_seed = 3\n"
		   "train.batch_size = 16\n%s\nruntime.backend = %s\n"
		   "runtime.device = %s\nruntime.mesh = %s\n",
		layers, fm_dir(), opt, backend, device, mesh && *mesh ? mesh : "4x4");
	fclose(f);
}

/* After every one of 10 steps: loss, weights, biases and optimizer state
 * of the mesh run equal the host-reference run bit for bit. */
static void check_steps(const char *layers, const char *opt)
{
	char pm[] = "/tmp/wsemesh-XXXXXX", path[64], err[768];
	wse_train *tm, *tr;
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = 1 };

	assert_non_null(mkdtemp(pm));
	snprintf(path, sizeof(path), "%s/mesh.params", pm);
	write_params(path, layers, opt, "mesh", uri());
	if (wse_train_create(&tm, path, &o, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	assert_string_equal(wse_train_backend(tm), "mesh");
	snprintf(path, sizeof(path), "%s/ref.params", pm);
	write_params(path, layers, opt, "host-reference", uri());
	assert_int_equal(wse_train_create(&tr, path, &o, err, sizeof(err)), 0);
	wse_train *tf = NULL; /* the cross-check on the functional model */

	if (uri_fast()) {
		snprintf(path, sizeof(path), "%s/fast.params", pm);
		write_params(path, layers, opt, "mesh", uri_fast());
		if (wse_train_create(&tf, path, &o, err, sizeof(err))) {
			print_error("%s\n", err);
			fail();
		}
	}
	for (int step = 1; step <= 10; step++) {
		struct wse_train_metrics a = { .size = sizeof(a) }, b = { .size = sizeof(b) };

		if (wse_train_step(tm, &a)) {
			print_error("%s\n", wse_train_last_error(tm));
			fail();
		}
		assert_int_equal(wse_train_step(tr, &b), 0);
		assert_int_equal(bits(a.loss), bits(b.loss));
		assert_int_equal(a.correct, b.correct);
		struct wse_train_metrics c = { .size = sizeof(c) };

		if (tf && wse_train_step(tf, &c)) {
			print_error("%s\n", wse_train_last_error(tf));
			fail();
		}
		if (tf && (bits(c.loss) != bits(a.loss) || c.correct != a.correct)) {
			print_error("step %d: loss RTL 0x%08x, functional model 0x%08x; correct %u, %u\n",
				    step, bits(a.loss), bits(c.loss), a.correct, c.correct);
			fail();
		}
		const char *name;
		unsigned nd, checked = 0;
		uint32_t dims[4];

		for (unsigned k = 0; wse_train_tensor_info(tm, k, &name, &nd, dims) > 0; k++) {
			size_t n = (size_t)wse_train_tensor_info(tm, k, &name, &nd, dims);
			float *x = malloc(n * 4), *y = malloc(n * 4);

			assert_int_equal(wse_train_get_tensor(tm, name, x, n), 0);
			assert_int_equal(wse_train_get_tensor(tr, name, y, n), 0);
			for (size_t q = 0; q < n; q++)
				if (bits(x[q]) != bits(y[q])) {
					print_error("step %d: %s differs first at index %zu: mesh 0x%08x, "
						    "reference 0x%08x\n", step, name, q, bits(x[q]), bits(y[q]));
					fail();
				}
			if (tf) {
				assert_int_equal(wse_train_get_tensor(tf, name, y, n), 0);
				for (size_t q = 0; q < n; q++)
					if (bits(x[q]) != bits(y[q])) {
						print_error("step %d: %s differs first at index %zu: RTL 0x%08x, "
							    "functional model 0x%08x\n", step, name, q,
							    bits(x[q]), bits(y[q]));
						fail();
					}
			}
			free(x);
			free(y);
			checked++;
		}
		if (step == 1 || step == 10)
			print_message("%.12s step %d: loss %.6f (0x%08x), %u tensors equal%s\n", opt, step,
				      (double)a.loss, bits(a.loss), checked,
				      tf ? " (and on the functional model)" : "");
	}
	wse_train_destroy(tm);
	wse_train_destroy(tr);
	wse_train_destroy(tf);
	snprintf(path, sizeof(path), "rm -rf %s", pm);
	assert_int_equal(system(path), 0);
}

static void api_steps_sgd(void **state)
{
	(void)state;
	check_steps("196, 16, 10", "optimizer.name = sgd\noptimizer.lr = 0.1\noptimizer.momentum = 0.9");
}

static void api_steps_adam(void **state)
{
	(void)state;
	check_steps("196, 16, 10",
		    "optimizer.name = adamw\noptimizer.lr = 0.003\noptimizer.weight_decay = 0.01");
}

/* ---- sparse weight streams (docs/training-dataflow.md section 13) ---- */

/* One pass of nb with masks mk[l] (NULL: dense) on the device: loss,
 * predictions and every gradient equal the reference's bit for bit (the
 * gradients of masked weights +0); the link bytes by category: the kept
 * weights of the forward and backward-inputs streams, the backward-weights
 * pass's index-only shares in (a copy per column up to
 * WSE_MLP_MAX_SHARE_COLS columns) and kept gradients out as
 * sp_stream_bytes() counts them, and, in a forward pass of the same model, index wavelets,
 * weights, biases and empty shares as it counts them (a layer without a
 * mask: no index wavelet, no empty share, every gradient). */
static void sparse_pass_of(struct train_mesh *m, struct net_buf *nb, unsigned B, float **mk,
			   const char *what)
{
	unsigned L = nb->net.nlayers, R = nb->net.rows;
	const unsigned *dims = nb->net.dims;
	struct train_ref_out om, orf, of;
	struct train_mesh_stats st;
	uint64_t kept_f = 0, kept_b = 0;
	struct sp_stream_bytes sb, sum = { 0 };

	for (unsigned l = 0; l < L; l++) {
		size_t n = (size_t)dims[l] * dims[l + 1], k = 0;

		nb->net.mask[l] = mk[l];
		for (size_t q = 0; q < n; q++)
			k += !mk[l] || mk[l][q] != 0.0f;
		kept_f += k;
		kept_b += l ? k : 0;
		assert_int_equal(sp_stream_bytes(dims[l + 1], dims[l], mk[l], R, &sb), 0);
		if (!mk[l]) /* a layer with no mask is streamed dense */
			sb.index = sb.empty = sb.bww_index = sb.bww_empty = 0;
		sum.index += sb.index;
		sum.bww_index += sb.bww_index;
		sum.bww_empty += sb.bww_empty;
		sum.grads += sb.grads;
		sum.weights += sb.weights;
		sum.biases += sb.biases;
		sum.empty += sb.empty;
	}
	alloc_out(&om, &nb->net);
	alloc_out(&orf, &nb->net);
	int rc = train_mesh_pass(m, &nb->net, nb->x, nb->y, B, B, &om);

	if (rc)
		print_error("%s\n", train_mesh_last_error(m));
	assert_int_equal(rc, 0);
	assert_int_equal(train_ref_pass(&nb->net, nb->x, nb->y, B, B, &orf), 0);
	train_mesh_get_stats(m, &st);
	print_message("%s: loss %.6f (0x%08x), %u correct, %u cycles, %llu weight wavelets\n", what,
		      (double)om.loss, bits(om.loss), om.correct, st.cycles,
		      (unsigned long long)st.weight_wavelets);
	assert_int_equal(bits(om.loss_sum), bits(orf.loss_sum));
	assert_int_equal(om.correct, orf.correct);
	for (unsigned l = 0; l < L; l++) {
		same_bits("weight gradients", l, om.dw[l], orf.dw[l], (size_t)dims[l] * dims[l + 1]);
		same_bits("bias gradients", l, om.db[l], orf.db[l], dims[l + 1]);
	}
	assert_int_equal(st.bytes[TM_WEIGHTS], 4 * (kept_f + kept_b));
	assert_int_equal(st.bytes[TM_BIASES], sum.biases);
	/* one copy of the index-only shares per column on meshes of up to
	 * WSE_MLP_MAX_SHARE_COLS columns, else one for the row */
	assert_int_equal(st.bytes[TM_GRAD_INDEX],
			 wse_mlp_share_copies(nb->net.cols) * (sum.bww_index + sum.bww_empty));
	assert_int_equal(st.bytes[TM_GRADIENTS], sum.grads);
	/* forward only: the stream is exactly the formula's */
	memset(&of, 0, sizeof(of));
	assert_int_equal(train_mesh_pass(m, &nb->net, nb->x, nb->y, B, B, &of), 0);
	assert_int_equal(bits(of.loss_sum), bits(orf.loss_sum));
	train_mesh_get_stats(m, &st);
	assert_int_equal(st.bytes[TM_INDEX], sum.index);
	assert_int_equal(st.bytes[TM_WEIGHTS], sum.weights);
	assert_int_equal(st.bytes[TM_BIASES], sum.biases);
	assert_int_equal(st.bytes[TM_EMPTY], sum.empty);
	assert_int_equal(st.bytes[TM_GRAD_INDEX], 0);
	free_out(&om, L);
	free_out(&orf, L);
}

static struct train_mesh *sparse_open(unsigned L, const unsigned *dims, unsigned B,
				      struct net_buf *nb, uint64_t seed)
{
	struct train_mesh *m;
	unsigned R, C;
	char err[512];

	if (train_mesh_open(&m, uri(), L, dims, B, 300000, &R, &C, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	make_net(nb, L, dims, R, C, B, seed);
	return m;
}

/* 196-64-10 at batch 32, random masks at sparsities 0, 0.5, 0.9, 0.99
 * (0: no mask, the dense stream). */
static void sparse_passes(void **state)
{
	(void)state;
	static const unsigned dims[] = { 196, 64, 10 };
	static const float sp[] = { 0.0f, 0.5f, 0.9f, 0.99f };
	struct net_buf nb;
	struct train_mesh *m = sparse_open(2, dims, 32, &nb, 21);

	for (unsigned k = 0; k < sizeof(sp) / sizeof(sp[0]); k++) {
		float *mk[2] = { NULL, NULL };
		char what[64];

		for (unsigned l = 0; l < 2 && sp[k] > 0.0f; l++) {
			size_t n = (size_t)dims[l] * dims[l + 1];

			mk[l] = malloc(n * sizeof(float));
			assert_int_equal(sp_mask_random(n, sp[k], 100 + l + k, mk[l]), 0);
		}
		snprintf(what, sizeof(what), "196-64-10, sparsity %.2f", (double)sp[k]);
		sparse_pass_of(m, &nb, 32, mk, what);
		free(mk[0]);
		free(mk[1]);
	}
	free_net(&nb);
	train_mesh_close(m);
}

/* Crafted masks on a small model with rows that hold no input feature
 * (3 inputs on the mesh's rows): a fully dense mask streamed sparse (the
 * dense bits), output rows with no kept weight, an all-zero matrix (the
 * logits are the biases), one kept weight per matrix, at 7 tokens and 3. */
static void sparse_small_crafted(void **state)
{
	(void)state;
	static const unsigned dims[] = { 3, 6, 5 };
	struct net_buf nb;
	struct train_mesh *m = sparse_open(2, dims, 7, &nb, 22);
	float m0[18], m1[30];
	float *mk[2] = { m0, m1 };

	for (unsigned q = 0; q < 18; q++)
		m0[q] = 1.0f;
	for (unsigned q = 0; q < 30; q++)
		m1[q] = 1.0f;
	sparse_pass_of(m, &nb, 7, mk, "fully dense masks");
	for (unsigned q = 0; q < 3; q++)
		m0[3 * 2 + q] = m0[3 * 4 + q] = 0.0f; /* outputs 2 and 4: no kept weight */
	for (unsigned q = 0; q < 30; q++)
		m1[q] = 0.0f;
	sparse_pass_of(m, &nb, 7, mk, "empty rows, an all-zero matrix");
	for (unsigned q = 0; q < 18; q++)
		m0[q] = q == 10 ? 1.0f : 0.0f;
	m1[29] = 1.0f;
	sparse_pass_of(m, &nb, 7, mk, "one kept weight per matrix");
	/* 3 tokens: one token slot per PE on a mesh of 3 or more columns (the
	 * gathered chain's first pass is its last) */
	sparse_pass_of(m, &nb, 3, mk, "one kept weight per matrix, 3 tokens");
	free_net(&nb);
	train_mesh_close(m);
}

/* An index out of range in a share, of the forward stream and of the
 * backward-weights pass's index-only stream: the PE flags it, the host
 * reports it with the tile; the next pass is right again. */
static void sparse_small_fault(void **state)
{
	(void)state;
	static const unsigned dims[] = { 64, 16, 10 };
	struct net_buf nb;
	struct train_mesh *m = sparse_open(2, dims, 16, &nb, 23);
	float *mk[2];
	struct train_ref_out om;

	for (unsigned l = 0; l < 2; l++) {
		size_t n = (size_t)dims[l] * dims[l + 1];

		mk[l] = malloc(n * sizeof(float));
		assert_int_equal(sp_mask_random(n, 0.5f, 7 + l, mk[l]), 0);
		nb.net.mask[l] = mk[l];
	}
	alloc_out(&om, &nb.net);
	train_mesh_fault_sparse(m, 0);
	assert_int_equal(train_mesh_pass(m, &nb.net, nb.x, nb.y, 16, 16, &om), WSE_ERROR_DEVICE);
	print_message("refused: %s\n", train_mesh_last_error(m));
	assert_non_null(strstr(train_mesh_last_error(m), "refused a sparse weight stream"));
	assert_non_null(strstr(train_mesh_last_error(m), ",0)"));
	sparse_pass_of(m, &nb, 16, mk, "the pass after the fault");
	train_mesh_fault_index(m, 0);
	assert_int_equal(train_mesh_pass(m, &nb.net, nb.x, nb.y, 16, 16, &om), WSE_ERROR_DEVICE);
	print_message("refused: %s\n", train_mesh_last_error(m));
	assert_non_null(strstr(train_mesh_last_error(m), "refused a sparse weight stream"));
	assert_non_null(strstr(train_mesh_last_error(m), ",0)"));
	free_out(&om, 2);
	sparse_pass_of(m, &nb, 16, mk, "the pass after the index fault");
	free(mk[0]);
	free(mk[1]);
	free_net(&nb);
	train_mesh_close(m);
}

/* 10 steps of 196-64-10 through the API at each sparsity: loss, weights,
 * masks and optimizer state equal the reference's after every step. */
static void sparse_steps(void **state)
{
	(void)state;
	static const char *const sp[] = { "0", "0.5", "0.9", "0.99" };
	char opt[160];

	for (unsigned k = 0; k < 4; k++) {
		snprintf(opt, sizeof(opt),
			 "optimizer.name = sgd\noptimizer.lr = 0.1\noptimizer.momentum = 0.9\n"
			 "model.sparsity = %s\nmodel.sparsity_seed = 9", sp[k]);
		check_steps("196, 64, 10", opt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_elf),
		cmocka_unit_test(test_small_pass),
		cmocka_unit_test(test_three_layers_odd_batch),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_forward_only),
		cmocka_unit_test(test_64_16_10),
		cmocka_unit_test(test_does_not_fit),
		cmocka_unit_test(full_196_64_10),
		cmocka_unit_test(api_steps_sgd),
		cmocka_unit_test(api_steps_adam),
		cmocka_unit_test(sparse_passes),
		cmocka_unit_test(sparse_small_crafted),
		cmocka_unit_test(sparse_small_fault),
		cmocka_unit_test(sparse_steps),
	};

	/* TM_FILTER: run only the tests matching; TM_SKIP: skip those matching
	 * (cmocka patterns: * and ?) */
	if (getenv("TM_FILTER"))
		cmocka_set_test_filter(getenv("TM_FILTER"));
	if (getenv("TM_SKIP"))
		cmocka_set_skip_filter(getenv("TM_SKIP"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}

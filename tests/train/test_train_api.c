/* The training API (wsehost_train.h) on the host-reference backend: one
 * step equals the reference trainer plus the reference optimizer, runs are
 * reproducible, save/load resumes bit for bit, tensors get and set, and bad
 * params, devices and datasets give clear errors; the mesh backend refuses
 * a device with more rows than its kernel runs on (the mock device of
 * tests/hostlib serving a 9-row tree), and route plans reach that device
 * only through the checked writer. A model from a struct wse_train_spec
 * equals the params file's, trains on the caller's arrays as on the
 * dataset (any input width and class count), refuses bad arrays and specs
 * with nothing changed, and gives the same bits on the mesh backend over
 * the functional model (when WSEMU_FAST is set). */
#include "tr_test.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <wsemu/wse_wire.h>

#include "fake_dev.h"
#include "fmnist.h"
#include "train_mesh.h"
#include "train_ref.h"
#include "train_stats.h"
#include "wse_route.h"
#include "wsehost.h"
#include "wsehost_train.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "trapi");
}

static int teardown(void **state)
{
	(void)state;
	return tr_rmdir(dir);
}

static const char *fm_dir(void)
{
	const char *d = getenv("TR_FM_DIR");

	return d ? d : FM_DEFAULT_DIR;
}

/* Write params (body + data.dir) to dir/name; returns the path. */
static const char *params(const char *name, const char *body)
{
	static char p[700];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fprintf(f, "%s", body);
	if (!strstr(body, "data.dir"))
		fprintf(f, "data.dir = %s\n", fm_dir());
	fclose(f);
	return p;
}

/* Every tensor of a and b equal bit for bit. */
static void same_tensors(wse_train *a, wse_train *b)
{
	const char *name;
	unsigned k;

	for (k = 0; wse_train_tensor_info(a, k, &name, NULL, NULL) >= 0; k++) {
		int n = wse_train_tensor_info(a, k, NULL, NULL, NULL);
		float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);

		assert_int_equal(wse_train_get_tensor(a, name, x, (size_t)n), 0);
		assert_int_equal(wse_train_get_tensor(b, name, y, (size_t)n), 0);
		assert_memory_equal(x, y, (size_t)n * 4);
		free(x);
		free(y);
	}
	assert_int_equal(wse_train_tensor_info(b, k, NULL, NULL, NULL), WSE_ERROR_RANGE);
}

static const char *SMALL =
	"# small model\n"
	"model.layers = 196, 16, 10\n"
	"data.pool = 2\n"
	"train.batch_size = 20   # odd shape on 4x4: padded to 20\n"
	"optimizer.name = sgd\n"
	"optimizer.lr = 0.1\n"
	"optimizer.momentum = 0.9\n"
	"runtime.mesh = 4x4\n";

static void test_step_is_reference(void **state)
{
	(void)state;
	char err[512];
	wse_train *t;
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = 1 };

	assert_int_equal(wse_train_create(&t, params("a.params", SMALL), &o, err, sizeof(err)), 0);
	assert_string_equal(wse_train_backend(t), "host-reference");
	float w0[16 * 196], b0[16], w1[10 * 16], b1[10];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w0, 16 * 196), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.bias", b0, 16), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.weight", w1, 160), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias", b1, 10), 0);
	/* PyTorch-style init bounds */
	for (int k = 0; k < 16 * 196; k++)
		assert_true(w0[k] > -0.0715f && w0[k] < 0.0715f);
	for (int k = 0; k < 160; k++)
		assert_true(w1[k] > -0.25f && w1[k] <= 0.25f);

	/* reference: first 20 training examples in file order */
	struct fm_data d;

	assert_int_equal(fm_load(fm_dir(), 1, 2, &d, err, sizeof(err)), 0);
	struct train_ref_net n = { .rows = 4, .cols = 4, .nlayers = 2, .dims = { 196, 16, 10 },
				   .w = { w0, w1 }, .b = { b0, b1 } };
	float gw0[16 * 196], gb0[16], gw1[160], gb1[10];
	struct train_ref_out ro = { .dw = { gw0, gw1 }, .db = { gb0, gb1 } };

	assert_int_equal(train_ref_pass(&n, d.x, d.y, 20, 20, &ro), 0);
	float m0[16 * 196] = { 0 }, mb0[16] = { 0 }, m1[160] = { 0 }, mb1[10] = { 0 };

	train_ref_sgd(16 * 196, w0, m0, gw0, 0.1f, 0.9f, 0.0f);
	train_ref_sgd(16, b0, mb0, gb0, 0.1f, 0.9f, 0.0f);
	train_ref_sgd(160, w1, m1, gw1, 0.1f, 0.9f, 0.0f);
	train_ref_sgd(10, b1, mb1, gb1, 0.1f, 0.9f, 0.0f);

	struct wse_train_metrics m = { .size = sizeof(m), .device_cycles = 7 };

	assert_int_equal(wse_train_step(t, &m), 0);
	assert_int_equal(m.step, 1);
	assert_int_equal(m.examples, 20);
	assert_true(memcmp(&m.loss, &ro.loss, 4) == 0);
	assert_int_equal(m.device_cycles, 0); /* the host backend has no device */
	float a[16 * 196];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", a, 16 * 196), 0);
	assert_memory_equal(a, w0, sizeof(w0));
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias", a, 10), 0);
	assert_memory_equal(a, b1, sizeof(b1));
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias.momentum", a, 10), 0);
	assert_memory_equal(a, mb1, sizeof(mb1));
	/* tensor errors */
	assert_int_equal(wse_train_get_tensor(t, "nope", a, 1), WSE_ERROR_NOT_FOUND);
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias", a, 11), WSE_ERROR_LENGTH);
	assert_non_null(strstr(wse_train_last_error(t), "10 elements"));
	const char *name;
	unsigned nd;
	uint32_t dims[4];

	assert_int_equal(wse_train_tensor_info(t, 0, &name, &nd, dims), 16 * 196);
	assert_string_equal(name, "layer0.weight");
	assert_true(nd == 2 && dims[0] == 16 && dims[1] == 196);
	int cnt = 0;

	while (wse_train_tensor_info(t, (unsigned)cnt, NULL, NULL, NULL) >= 0)
		cnt++;
	assert_int_equal(cnt, 9); /* 4 params, 4 momentum buffers, beta_pow */
	fm_free(&d);
	wse_train_destroy(t);
}

static void test_save_load_resume(void **state)
{
	(void)state;
	char err[512], ck[700];
	wse_train *a, *b, *c;
	const char *body =
		"model.layers = 196, 12, 10\ndata.pool = 2\ndata.shuffle = 1\n"
		"data.shuffle_seed = 9\ntrain.batch_size = 16\ntrain.micro_batches = 2\n"
		"optimizer.name = adamw\noptimizer.lr = 0.003\noptimizer.weight_decay = 0.01\n"
		"runtime.mesh = 3x2\n";
	const char *p = params("b.params", body);
	struct wse_train_metrics m = { .size = sizeof(m) };

	snprintf(ck, sizeof(ck), "%s/b.ckpt", dir);
	assert_int_equal(wse_train_create(&a, p, NULL, err, sizeof(err)), 0);
	assert_int_equal(wse_train_create(&b, p, NULL, err, sizeof(err)), 0);
	assert_int_equal(wse_train_create(&c, p, NULL, err, sizeof(err)), 0);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(wse_train_step(a, &m), 0);
		assert_int_equal(wse_train_step(b, &m), 0);
	}
	assert_int_equal(wse_train_save(b, ck), 0);
	wse_train_destroy(b);
	assert_int_equal(wse_train_load(c, ck), 0);
	assert_int_equal(wse_train_get_step(c), 5);
	for (int k = 0; k < 4; k++) {
		struct wse_train_metrics ma = { .size = sizeof(ma) }, mc = { .size = sizeof(mc) };

		assert_int_equal(wse_train_step(a, &ma), 0);
		assert_int_equal(wse_train_step(c, &mc), 0);
		assert_memory_equal(&ma.loss, &mc.loss, 4);
	}
	same_tensors(a, c);
	/* set_tensor then eval uses it */
	struct wse_train_metrics e1 = { .size = sizeof(e1) };

	assert_int_equal(wse_train_eval(a, 100, &e1), 0);
	assert_int_equal(e1.examples, 100);
	float z[10] = { 0 };

	assert_int_equal(wse_train_set_tensor(a, "layer1.bias", z, 10), 0);
	float zz[10];

	assert_int_equal(wse_train_get_tensor(a, "layer1.bias", zz, 10), 0);
	assert_memory_equal(z, zz, sizeof(z));
	/* a checkpoint of another model is refused, the handle unchanged */
	wse_train *d;

	assert_int_equal(wse_train_create(&d, params("d.params", SMALL), NULL, err, sizeof(err)), 0);
	assert_true(wse_train_load(d, ck) < 0);
	print_message("  -> %s\n", wse_train_last_error(d));
	assert_int_equal(wse_train_get_step(d), 0);
	wse_train_destroy(d);
	wse_train_destroy(a);
	wse_train_destroy(c);
}

/* Gradient accumulation: 2 micro-batches of 8 = sum of the two reference
 * passes with invN = 1/16, in micro-batch order, then one update. */
static void test_micro_batches(void **state)
{
	(void)state;
	char err[512];
	wse_train *t;
	const char *body = "model.layers = 196, 10\ndata.pool = 2\ntrain.batch_size = 8\n"
			   "train.micro_batches = 2\noptimizer.lr = 0.5\nruntime.mesh = 2x3\n";

	assert_int_equal(wse_train_create(&t, params("m.params", body), NULL, err, sizeof(err)), 0);
	float w[1960], b[10], g1[1960], c1[10], g2[1960], c2[10];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w, 1960), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.bias", b, 10), 0);
	struct fm_data d;

	assert_int_equal(fm_load(fm_dir(), 1, 2, &d, err, sizeof(err)), 0);
	struct train_ref_net n = { .rows = 2, .cols = 3, .nlayers = 1, .dims = { 196, 10 },
				   .w = { w }, .b = { b } };
	struct train_ref_out o1 = { .dw = { g1 }, .db = { c1 } }, o2 = { .dw = { g2 }, .db = { c2 } };

	assert_int_equal(train_ref_pass(&n, d.x, d.y, 8, 16, &o1), 0);
	assert_int_equal(train_ref_pass(&n, d.x + 8 * 196, d.y + 8, 8, 16, &o2), 0);
	for (int k = 0; k < 1960; k++)
		w[k] = w[k] - 0.5f * (g1[k] + g2[k]);
	for (int k = 0; k < 10; k++)
		b[k] = b[k] - 0.5f * (c1[k] + c2[k]);
	struct wse_train_metrics m = { .size = sizeof(m) };

	assert_int_equal(wse_train_step(t, &m), 0);
	assert_int_equal(m.examples, 16);
	float loss = (o1.loss_sum + o2.loss_sum) / 16.0f;

	assert_memory_equal(&loss, &m.loss, 4);
	float x[1960];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", x, 1960), 0);
	assert_memory_equal(x, w, sizeof(w));
	assert_int_equal(wse_train_get_tensor(t, "layer0.bias", x, 10), 0);
	assert_memory_equal(x, b, sizeof(b));
	fm_free(&d);
	wse_train_destroy(t);
}

/* An error message, shown, must contain needle. */
static void expect_message(const char *msg, const char *needle)
{
	print_message("  -> %s\n", msg);
	if (!strstr(msg, needle)) {
		print_error("'%s' not in '%s'\n", needle, msg);
		fail();
	}
}

static void expect_create_error(const char *body, int code, const char *needle)
{
	char err[512] = "";
	wse_train *t = (wse_train *)1;

	assert_int_equal(wse_train_create(&t, params("bad.params", body), NULL, err, sizeof(err)),
			 code);
	assert_null(t);
	expect_message(err, needle);
}

static void test_bad_params(void **state)
{
	(void)state;
	const int IP = WSE_ERROR_INVALID_PARAM;

	expect_create_error("model.layers = 196, 10\nfoo.bar = 1\n", IP, "bad.params:2: foo.bar = '1': unknown key");
	expect_create_error("model.layers = 196, x, 10\n", IP, "bad.params:1: model.layers");
	expect_create_error("data.pool = 2\n", IP, "model.layers is missing");
	expect_create_error("model.layers = 784, 10\ndata.pool = 2\n", IP, "196 features");
	expect_create_error("model.layers = 784, 7\n", IP, "10");
	expect_create_error("model.layers = 784, 10\noptimizer.lr = -1\n", IP, "optimizer.lr");
	expect_create_error("model.layers = 784, 10\noptimizer.name = rmsprop\n", IP, "sgd, adam or adamw");
	expect_create_error("model.layers = 784, 10\nruntime.backend = gpu\n", IP,
			    "must be mesh or host-reference");
	expect_create_error("model.layers = 784, 10\nruntime.backend = mesh\n"
			    "runtime.device = sim:attach=/nonexistent/wse.sock\n",
			    WSE_ERROR_NOT_FOUND, "cannot open device sim:attach=/nonexistent/wse.sock");
	expect_create_error("model.layers = 784, 10\nruntime.mesh = 4by4\n", IP, "ROWSxCOLUMNS");
	expect_create_error("model.layers = 784, 10\nmodel.layers = 784, 10\n", IP, "given twice");
	expect_create_error("model.layers 784\n", IP, "expected 'key = value'");
	expect_create_error("model.layers = 784, 10\ndata.dir = /nonexistent/fm\n", WSE_ERROR_NOT_FOUND,
			    "/nonexistent/fm/train-images-idx3-ubyte.gz");
	char err[512];
	wse_train *t;

	assert_int_equal(wse_train_create(&t, "/nonexistent.params", NULL, err, sizeof(err)),
			 WSE_ERROR_NOT_FOUND);
	assert_non_null(strstr(err, "/nonexistent.params"));
	/* device lists */
	expect_create_error("model.layers = 784, 10\nruntime.devices = board=sim-2x2\n", IP,
			    "runtime.devices = 'board=sim-2x2': each device must be a URI");
	expect_create_error("model.layers = 784, 10\nruntime.devices = sim:board=sim-2x2,\n", IP,
			    "an empty entry");
	expect_create_error("model.layers = 784, 10\nruntime.device = sim:board=sim-2x2\n"
			    "runtime.devices = sim:board=sim-2x2, sim:board=sim-2x2\n", IP,
			    "runtime.device and runtime.devices: give one of them");
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = 3 };

	assert_int_equal(wse_train_create(&t, params("l.params", "model.layers = 196, 10\ndata.pool = 2\n"
					      "runtime.devices = sim:board=sim-2x2,model=fast, sim:board=sim-2x2\n"),
					      &o, err, sizeof(err)), IP);
	expect_message(err, "num_devices 3, but runtime.devices lists 2 devices");
	o.num_devices = 65;
	assert_int_equal(wse_train_create(&t, params("a.params", SMALL), &o, err, sizeof(err)), IP);
	expect_message(err, "num_devices 65: at most 64 devices");
}

/* A 9-row device: refused by the mesh backend with both numbers, after
 * INFO and before any write to the device. */
static void test_mesh_refuses_rows(void **state)
{
	(void)state;
	char sock[600], body[1200];

	snprintf(sock, sizeof(sock), "%s/wse.sock", dir);
	struct fake_dev *f = fake_dev_start(sock, TR_DTB_2X9);

	assert_non_null(f);
	snprintf(body, sizeof(body),
		 "model.layers = 196, 16, 10\ndata.pool = 2\nruntime.backend = mesh\n"
		 "runtime.device = sim:attach=%s\n", sock);
	/* what opening the device and reading its description take */
	char uri[640];
	wse_device *dev;
	struct wse_info info = { .size = sizeof(info) };

	snprintf(uri, sizeof(uri), "sim:attach=%s", sock);
	assert_int_equal(wse_open(&dev, uri, NULL), 0);
	assert_int_equal(wse_get_info(dev, &info), 0);
	assert_int_equal(info.rows, 9);
	wse_close(dev);
	unsigned long opening = fake_dev_requests(f);

	expect_create_error(body, WSE_ERROR_NOT_SUPPORTED,
			    "the kernel runs on at most 8 rows, the device has 9");
	/* no reset, load or route write followed */
	assert_int_equal(fake_dev_requests(f), 2 * opening);
	fake_dev_stop(f);
}

/* Route plans reach a device only through the checked writer: an unsafe
 * plan (a one-color ring) is refused with nothing sent, a plan for another
 * mesh size is refused with RANGE, and a safe plan lands in every tile's
 * table as planned. */
static void test_route_plan_write(void **state)
{
	(void)state;
	char sock[600], uri[640];

	snprintf(sock, sizeof(sock), "%s/wse-routes.sock", dir);
	struct fake_dev *f = fake_dev_start(sock, TR_DTB_2X9);
	wse_device *dev;
	struct wse_info info = { .size = sizeof(info) };

	assert_non_null(f);
	snprintf(uri, sizeof(uri), "sim:attach=%s", sock);
	assert_int_equal(wse_open(&dev, uri, NULL), 0);
	assert_int_equal(wse_get_info(dev, &info), 0);
	const unsigned C = info.columns, R = info.rows;
	const unsigned N = 1u << WSE_PORT_NORTH, E = 1u << WSE_PORT_EAST,
		       S = 1u << WSE_PORT_SOUTH, W = 1u << WSE_PORT_WEST,
		       P = 1u << WSE_PORT_RAMP;
	struct wse_route_plan *p = wse_route_plan_new(C, R, info.color_vc, info.num_vc);
	struct wse_route_report rep;
	unsigned long sent = fake_dev_requests(f);

	assert_non_null(p);
	assert_int_equal(wse_route_set(p, 0, 0, 3, S | P, E), 0);
	assert_int_equal(wse_route_set(p, 1, 0, 3, W, S), 0);
	assert_int_equal(wse_route_set(p, 1, 1, 3, N, W), 0);
	assert_int_equal(wse_route_set(p, 0, 1, 3, E, N), 0);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(wse_route_plan_write(dev, p, WSE_FIRST_INFRA_COLOR, &rep),
			 WSE_ERROR_INVALID_PARAM);
	assert_true(rep.cycle_len > 0);
	assert_int_equal(fake_dev_requests(f), sent);
	wse_route_plan_free(p);

	struct wse_route_plan *small = wse_route_plan_new(C, R - 1, info.color_vc, info.num_vc);

	assert_non_null(small);
	assert_int_equal(wse_route_plan_write(dev, small, WSE_FIRST_INFRA_COLOR, NULL),
			 WSE_ERROR_RANGE);
	assert_int_equal(fake_dev_requests(f), sent);
	wse_route_plan_free(small);

	p = wse_route_plan_new(C, R, info.color_vc, info.num_vc);
	assert_non_null(p);
	for (unsigned y = 0; y < R; y++)
		assert_int_equal(wse_route_row_multicast(p, 0, y), 0);
	assert_int_equal(wse_route_plan_write(dev, p, WSE_FIRST_INFRA_COLOR, NULL), 0);
	for (unsigned y = 0; y < R; y++)
		for (unsigned x = 0; x < C; x++) {
			uint32_t e[WSE_FIRST_INFRA_COLOR];
			unsigned rx, tx;

			assert_int_equal(wse_route_read(dev, x, y, 0, e, WSE_FIRST_INFRA_COLOR), 0);
			for (unsigned c = 0; c < WSE_FIRST_INFRA_COLOR; c++) {
				assert_int_equal(wse_route_get(p, x, y, c, &rx, &tx), 0);
				assert_int_equal(e[c], rx << 8 | tx);
			}
		}
	wse_route_plan_free(p);
	wse_close(dev);
	fake_dev_stop(f);
}

/* ---- the model from code, the caller's data ----------------------------- */

/* A spec (of the caller's size) with defaults and the layers in-hid-out. */
static void spec_mlp(struct wse_train_spec *s, size_t size, uint32_t in, uint32_t hid,
		     uint32_t out, uint32_t batch)
{
	wse_train_spec_init(s, size);
	s->num_layers = 2;
	s->widths[0] = in;
	s->widths[1] = hid;
	s->widths[2] = out;
	s->batch_size = batch;
}

/* The spec of the ADAM params below, with or without the dataset. */
static const char *ADAM =
	"model.layers = 196, 12, 10\ndata.pool = 2\ntrain.batch_size = 20\n"
	"model.init_seed = 77\noptimizer.name = adam\noptimizer.lr = 0.003\n"
	"optimizer.beta1 = 0.8\noptimizer.beta2 = 0.99\noptimizer.eps = 1e-6\n"
	"optimizer.weight_decay = 0.001\nruntime.mesh = 3x2\n";

static void adam_spec(struct wse_train_spec *s, int with_data)
{
	spec_mlp(s, sizeof(*s), 196, 12, 10, 20);
	s->init_seed = 77;
	s->optimizer = "adam";
	s->lr = 0.003f;
	s->beta1 = 0.8f;
	s->beta2 = 0.99f;
	s->eps = 1e-6f;
	s->weight_decay = 0.001f;
	s->mesh_rows = 3;
	s->mesh_cols = 2;
	if (with_data) {
		s->data_dir = fm_dir();
		s->data_pool = 2;
	}
}

/* The params file and the spec that says the same give the same model:
 * the same weights after 3 steps on the dataset, and the same weights
 * after 3 steps of wse_train_step_batch on the dataset's first 60
 * examples (the file order of wse_train_step). */
static void test_create_model_is_params(void **state)
{
	(void)state;
	char err[512];
	wse_train *a, *b, *c;
	struct wse_train_spec s;
	struct wse_train_metrics ma = { .size = sizeof(ma) }, mb = { .size = sizeof(mb) };

	assert_int_equal(wse_train_create(&a, params("adam.params", ADAM), NULL, err, sizeof(err)), 0);
	adam_spec(&s, 1);
	assert_int_equal(wse_train_create_model(&b, &s, NULL, err, sizeof(err)), 0);
	adam_spec(&s, 0);
	assert_int_equal(wse_train_create_model(&c, &s, NULL, err, sizeof(err)), 0);
	assert_string_equal(wse_train_backend(c), "host-reference");
	assert_null(wse_train_get_param(c, "model.layers"));
	same_tensors(a, c);
	struct fm_data d;

	assert_int_equal(fm_load(fm_dir(), 1, 2, &d, err, sizeof(err)), 0);
	int32_t y[20];

	for (int k = 0; k < 3; k++) {
		assert_int_equal(wse_train_step(a, &ma), 0);
		assert_int_equal(wse_train_step(b, &mb), 0);
		assert_memory_equal(&ma.loss, &mb.loss, 4);
		for (int e = 0; e < 20; e++)
			y[e] = d.y[20 * k + e];
		struct wse_train_metrics mc = { .size = sizeof(mc), .device_cycles = 5 };

		assert_int_equal(wse_train_step_batch(c, d.x + (size_t)20 * k * 196, y, 20, &mc), 0);
		assert_memory_equal(&ma.loss, &mc.loss, 4);
		assert_int_equal(mc.correct, ma.correct);
		assert_int_equal(mc.examples, 20);
		assert_int_equal(mc.step, k + 1);
		assert_int_equal(mc.device_cycles, 0);
	}
	same_tensors(a, b);
	same_tensors(a, c);
	/* evaluation on the caller's copy of the first 50 test images */
	struct fm_data te;
	int32_t yt[50];

	assert_int_equal(fm_load(fm_dir(), 0, 2, &te, err, sizeof(err)), 0);
	for (int e = 0; e < 50; e++)
		yt[e] = te.y[e];
	assert_int_equal(wse_train_eval(a, 50, &ma), 0);
	assert_int_equal(wse_train_eval_batch(c, te.x, yt, 50, &mb), 0);
	assert_memory_equal(&ma.loss, &mb.loss, 4);
	assert_int_equal(ma.correct, mb.correct);
	assert_int_equal(mb.examples, 50);
	assert_int_equal(wse_train_get_step(c), 3);
	/* no dataset: the dataset calls are refused, and say what to use */
	assert_int_equal(wse_train_step(c, &mb), WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(wse_train_last_error(c), "wse_train_step_batch"));
	assert_int_equal(wse_train_eval(c, 10, &mb), WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(wse_train_last_error(c), "without a dataset"));
	print_message("  -> %s\n", wse_train_last_error(c));
	/* a checkpoint of the params trainer loads into the spec trainers */
	char ck[700];

	snprintf(ck, sizeof(ck), "%s/adam.ckpt", dir);
	assert_int_equal(wse_train_save(a, ck), 0);
	assert_int_equal(wse_train_load(b, ck), 0);
	same_tensors(a, b);
	assert_int_equal(wse_train_load(c, ck), 0);
	same_tensors(a, c);
	fm_free(&te);
	fm_free(&d);
	wse_train_destroy(a);
	wse_train_destroy(b);
	wse_train_destroy(c);
}

/* 7-5-3: an odd input width and three classes, on the caller's random
 * data; a step of 5 examples (batch 8) is the reference pass plus the
 * reference SGD, an evaluation of 19 is three reference passes. */
static void spec_753(struct wse_train_spec *s)
{
	spec_mlp(s, sizeof(*s), 7, 5, 3, 8);
	s->lr = 0.25f;
	s->momentum = 0.5f;
	s->init_seed = 3;
	s->mesh_rows = 2;
	s->mesh_cols = 2;
}

static void random_data(uint64_t seed, unsigned n, unsigned in, unsigned classes, float *x,
			int32_t *y)
{
	for (unsigned k = 0; k < n * in; k++)
		x[k] = tr_uniform(&seed, -1.0f, 1.0f);
	for (unsigned e = 0; e < n; e++)
		y[e] = (int32_t)(tr_rng(&seed) % classes);
}

/* The four tensors of 7-5-3 (weights, gradients or momentum), the
 * handle's into the reference trainer's net and out, and its SGD. */
struct t753 {
	float w0[35], b0[5], w1[15], b1[3];
};

static struct train_ref_net get_753(wse_train *t, struct t753 *w)
{
	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", w->w0, 35), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer0.bias", w->b0, 5), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.weight", w->w1, 15), 0);
	assert_int_equal(wse_train_get_tensor(t, "layer1.bias", w->b1, 3), 0);
	return (struct train_ref_net){ .rows = 2, .cols = 2, .nlayers = 2, .dims = { 7, 5, 3 },
				       .w = { w->w0, w->w1 }, .b = { w->b0, w->b1 } };
}

static struct train_ref_out out_753(struct t753 *g)
{
	return (struct train_ref_out){ .dw = { g->w0, g->w1 }, .db = { g->b0, g->b1 } };
}

/* spec_753's SGD (lr 0.25, momentum 0.5) */
static void sgd_753(struct t753 *w, struct t753 *mom, const struct t753 *g)
{
	train_ref_sgd(35, w->w0, mom->w0, g->w0, 0.25f, 0.5f, 0.0f);
	train_ref_sgd(5, w->b0, mom->b0, g->b0, 0.25f, 0.5f, 0.0f);
	train_ref_sgd(15, w->w1, mom->w1, g->w1, 0.25f, 0.5f, 0.0f);
	train_ref_sgd(3, w->b1, mom->b1, g->b1, 0.25f, 0.5f, 0.0f);
}

/* t's tensors are w, its momentum of layer1.weight mom's */
static void same_753(wse_train *t, const struct t753 *w, const struct t753 *mom)
{
	struct t753 a, am;

	get_753(t, &a);
	assert_memory_equal(&a, w, sizeof(a));
	assert_int_equal(wse_train_get_tensor(t, "layer1.weight.momentum", am.w1, 15), 0);
	assert_memory_equal(am.w1, mom->w1, sizeof(am.w1));
}

/* A program built with an older, shorter spec (one that ended before
 * `devices`): wse_train_spec_init writes no byte past it, and
 * wse_train_create_model takes it, the later fields at their defaults. */
static void test_spec_older_caller(void **state)
{
	(void)state;
	size_t old = offsetof(struct wse_train_spec, devices);
	unsigned char buf[sizeof(struct wse_train_spec) + 16];

	memset(buf, 0xA5, sizeof(buf));
	struct wse_train_spec *s = (struct wse_train_spec *)(void *)buf;

	spec_mlp(s, old, 7, 5, 3, 4);
	assert_int_equal(s->size, old);
	for (size_t k = old; k < sizeof(buf); k++)
		assert_int_equal(buf[k], 0xA5);
	wse_train *t;
	char err[256];

	assert_int_equal(wse_train_create_model(&t, s, NULL, err, sizeof(err)), 0);
	wse_train_destroy(t);
	wse_train_spec_init(NULL, sizeof(*s)); /* ignored */
	wse_train_spec_init(s, 2);               /* too small: ignored */
	assert_int_equal(s->size, old);
}

/* Examples of n whose logits' arg max (the lowest class at the maximum)
 * is the label. */
static uint32_t argmax_correct(const float *z, const int32_t *y, unsigned n, unsigned K)
{
	uint32_t correct = 0;

	for (unsigned e = 0; e < n; e++) {
		unsigned best = 0;

		for (unsigned k = 1; k < K; k++)
			best = z[e * K + k] > z[e * K + best] ? k : best;
		correct += (int32_t)best == y[e];
	}
	return correct;
}

static void test_step_batch_753(void **state)
{
	(void)state;
	char err[512];
	wse_train *t;
	struct wse_train_spec s;
	float x[19 * 7];
	struct t753 w, g, mom = { 0 };
	int32_t y[19];
	uint8_t y8[19];

	spec_753(&s);
	s.size = offsetof(struct wse_train_spec, data_dir); /* an older, shorter struct */
	assert_int_equal(wse_train_create_model(&t, &s, NULL, err, sizeof(err)), 0);
	random_data(11, 19, 7, 3, x, y);
	for (int e = 0; e < 19; e++)
		y8[e] = (uint8_t)y[e];
	struct train_ref_net n = get_753(t, &w);
	struct wse_train_metrics m = { .size = sizeof(m) };
	float ls = 0.0f;
	uint32_t correct = 0;

	float zr[19 * 3], z[19 * 3];

	/* evaluation: batches of 8, 8, 3 */
	for (unsigned e = 0; e < 19; e += 8) {
		struct train_ref_out o = { .logits = zr + e * 3 };
		unsigned B = 19 - e < 8 ? 19 - e : 8;

		assert_int_equal(train_ref_pass(&n, x + e * 7, y8 + e, B, B, &o), 0);
		ls = ls + o.loss_sum;
		correct += o.correct;
	}
	assert_int_equal(wse_train_eval_batch(t, x, y, 19, &m), 0);
	assert_int_equal(m.examples, 19);
	assert_int_equal(m.correct, correct);
	ls = ls / 19.0f;
	assert_memory_equal(&ls, &m.loss, 4);
	/* predict: the reference's logits, bit for bit; their arg max is
	 * what the evaluation counted */
	assert_int_equal(wse_train_predict(t, x, 19, z), 0);
	assert_memory_equal(z, zr, sizeof(z));
	assert_int_equal(argmax_correct(z, y, 19, 3), m.correct);
	assert_int_equal(wse_train_get_step(t), 0);
	/* one step on 5 examples */
	struct train_ref_out o = out_753(&g);

	assert_int_equal(train_ref_pass(&n, x, y8, 5, 5, &o), 0);
	sgd_753(&w, &mom, &g);
	assert_int_equal(wse_train_step_batch(t, x, y, 5, &m), 0);
	assert_int_equal(m.examples, 5);
	assert_int_equal(m.step, 1);
	assert_int_equal(m.correct, o.correct);
	assert_memory_equal(&o.loss, &m.loss, 4);
	same_753(t, &w, &mom);
	wse_train_destroy(t);
}

/* All tensors and the step of t, to check that a failed call changed
 * nothing. */
static float *snapshot(wse_train *t, size_t *len)
{
	size_t total = 0;
	const char *name;

	for (unsigned k = 0; wse_train_tensor_info(t, k, &name, NULL, NULL) >= 0; k++)
		total += (size_t)wse_train_tensor_info(t, k, NULL, NULL, NULL);
	float *buf = malloc((total + 2) * sizeof(float)), *q = buf;

	assert_non_null(buf);
	for (unsigned k = 0; wse_train_tensor_info(t, k, &name, NULL, NULL) >= 0; k++) {
		int n = wse_train_tensor_info(t, k, NULL, NULL, NULL);

		assert_int_equal(wse_train_get_tensor(t, name, q, (size_t)n), 0);
		q += n;
	}
	uint64_t st = wse_train_get_step(t);

	memcpy(q, &st, sizeof(st));
	*len = (total + 2) * sizeof(float);
	return buf;
}

/* t's tensors and step are still before (of l0 bytes, from snapshot());
 * before is freed. */
static void expect_unchanged(wse_train *t, float *before, size_t l0)
{
	size_t l1;
	float *after = snapshot(t, &l1);

	assert_int_equal(l0, l1);
	assert_memory_equal(before, after, l0);
	free(before);
	free(after);
}

static void expect_batch_error(wse_train *t, int eval, const float *x, const int32_t *y,
			       uint32_t n, int code, const char *needle)
{
	size_t l0, l1;
	float *before = snapshot(t, &l0);
	struct wse_train_metrics m = { .size = sizeof(m), .loss = 42.0f };
	int rc = eval ? wse_train_eval_batch(t, x, y, n, &m) : wse_train_step_batch(t, x, y, n, &m);

	assert_int_equal(rc, code);
	expect_message(wse_train_last_error(t), needle);
	assert_true(m.loss == 42.0f);
	float *after = snapshot(t, &l1);

	assert_int_equal(l0, l1);
	assert_memory_equal(before, after, l0);
	free(before);
	free(after);
}

static void expect_spec_error(const struct wse_train_spec *s, int code, const char *needle)
{
	char err[512] = "";
	wse_train *t = (wse_train *)1;

	assert_int_equal(wse_train_create_model(&t, s, NULL, err, sizeof(err)), code);
	assert_null(t);
	expect_message(err, needle);
}

static void test_bad_batch_and_spec(void **state)
{
	(void)state;
	const int IP = WSE_ERROR_INVALID_PARAM, RG = WSE_ERROR_RANGE;
	char err[512];
	wse_train *t;
	struct wse_train_spec s;
	float x[9 * 7];
	int32_t y[9];

	spec_753(&s);
	assert_int_equal(wse_train_create_model(&t, &s, NULL, err, sizeof(err)), 0);
	random_data(5, 9, 7, 3, x, y);
	assert_int_equal(wse_train_step_batch(t, x, y, 8, NULL), 0); /* metrics are optional */
	for (int eval = 0; eval < 2; eval++) {
		expect_batch_error(t, eval, NULL, y, 4, IP, "x or labels is NULL");
		expect_batch_error(t, eval, x, NULL, 4, IP, "x or labels is NULL");
		expect_batch_error(t, eval, x, y, 0, IP, "no examples (n = 0)");
		y[6] = 3;
		expect_batch_error(t, eval, x, y, 8, RG, "example 6 has label 3; the model has 3 classes (0..2)");
		y[6] = -1;
		expect_batch_error(t, eval, x, y, 7, RG, "example 6 has label -1");
		y[6] = 2;
	}
	expect_batch_error(t, 0, x, y, 9, RG, "n = 9 examples, above the batch size 8");
	assert_int_equal(wse_train_eval_batch(t, x, y, 9, NULL), 0); /* any n */
	assert_int_equal(wse_train_step_batch(NULL, x, y, 1, NULL), IP);
	assert_int_equal(wse_train_eval_batch(NULL, x, y, 1, NULL), IP);
	float z[9 * 3];
	size_t l0;
	float *before = snapshot(t, &l0);

	assert_int_equal(wse_train_predict(NULL, x, 1, z), IP);
	assert_int_equal(wse_train_predict(t, NULL, 1, z), IP);
	expect_message(wse_train_last_error(t), "wse_train_predict: x or logits is NULL");
	assert_int_equal(wse_train_predict(t, x, 1, NULL), IP);
	expect_message(wse_train_last_error(t), "wse_train_predict: x or logits is NULL");
	assert_int_equal(wse_train_predict(t, x, 0, z), IP);
	expect_message(wse_train_last_error(t), "wse_train_predict: no examples (n = 0)");
	assert_int_equal(wse_train_predict(t, x, 9, z), 0); /* changes nothing either */
	expect_unchanged(t, before, l0);
	wse_train_destroy(t);

	/* specs */
	expect_spec_error(NULL, IP, "NULL argument");
	assert_int_equal(wse_train_create_model(NULL, &s, NULL, NULL, 0), IP);
	/* each of these changes to the 7-5-3 spec, and its error */
#define BAD_SPEC(change, code, needle) \
	do { \
		spec_753(&s); \
		change; \
		expect_spec_error(&s, code, needle); \
	} while (0)
	BAD_SPEC(s.size = 8, IP, "spec.size too small");
	BAD_SPEC(s.num_layers = 0, IP, "spec.num_layers = 0: must be 1..8");
	BAD_SPEC(s.num_layers = 9, IP, "spec.num_layers = 9");
	BAD_SPEC(s.widths[1] = 0, IP, "spec.widths[1] = 0: must be 1..65536");
	BAD_SPEC(s.widths[2] = 1, IP, "spec.widths[2] = 1 classes: must be 2..256");
	BAD_SPEC(s.widths[2] = 257, IP, "spec.widths[2] = 257 classes");
	BAD_SPEC(s.optimizer = "rmsprop", IP,
		 "spec.optimizer = 'rmsprop': must be sgd, adam or adamw");
	BAD_SPEC(s.lr = 0.0f, IP, "spec.lr = 0: must be a number in (0, 1000]");
	BAD_SPEC(s.beta2 = 1.0f, IP, "spec.beta2 = 1: must be a number in [0, 1)");
	BAD_SPEC(s.momentum = NAN, IP, "spec.momentum");
	BAD_SPEC(s.batch_size = 0, IP, "spec.batch_size = 0: must be an integer 1..65536");
	BAD_SPEC(s.timeout_ms = 5, IP, "spec.timeout_ms = 5");
	BAD_SPEC(s.backend = "gpu", IP,
		 "spec.backend = 'gpu': must be mesh or host-reference");
	BAD_SPEC(s.mesh_cols = 0, IP, "spec.mesh_rows, mesh_cols = 2, 0");
	BAD_SPEC(s.data_dir = fm_dir(), IP,
		 "spec.widths: 7 inputs and 3 classes; Fashion-MNIST with data_pool = 1 has 784 features");
#undef BAD_SPEC
	adam_spec(&s, 1);
	s.data_dir = "/nonexistent/fm";
	expect_spec_error(&s, WSE_ERROR_NOT_FOUND, "/nonexistent/fm/train-images-idx3-ubyte.gz");
	spec_753(&s);
	s.backend = "mesh";
	s.device = "sim:attach=/nonexistent/wse.sock";
	expect_spec_error(&s, WSE_ERROR_NOT_FOUND, "cannot open device sim:attach=/nonexistent/wse.sock");
	s.devices = "sim:board=sim-2x2,model=fast";
	expect_spec_error(&s, IP, "spec.devices (runtime.devices) = 'sim:board=sim-2x2,model=fast': not with spec.device");
	/* two devices: n up to twice the batch size, a multiple of 2 */
	spec_753(&s);
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = 2 };

	assert_int_equal(wse_train_create_model(&t, &s, &o, err, sizeof(err)), 0);
	expect_batch_error(t, 0, x, y, 7, RG, "n = 7 examples is not a multiple of the 2 devices");
	float x2[17 * 7];
	int32_t y2[17];

	random_data(6, 17, 7, 3, x2, y2);
	expect_batch_error(t, 0, x2, y2, 17, RG, "n = 17 examples, above the batch size 8 times the 2 devices");
	wse_train_destroy(t);
}

/* The mesh backend on the functional model (WSEMU_FAST) of sim-2x2 gives
 * the host-reference backend's bits for 7-5-3 on the caller's data. */
static void test_step_batch_mesh_fast(void **state)
{
	(void)state;
	if (!getenv("WSEMU_FAST") || !*getenv("WSEMU_FAST")) {
		print_message("  WSEMU_FAST is not set: skipped\n");
		skip();
	}
	char err[512];
	wse_train *h, *d;
	struct wse_train_spec s;
	float x[8 * 7 * 3];
	int32_t y[8 * 3];

	spec_753(&s);
	s.optimizer = "adamw";
	s.lr = 0.01f;
	s.weight_decay = 0.01f;
	assert_int_equal(wse_train_create_model(&h, &s, NULL, err, sizeof(err)), 0);
	s.backend = "mesh";
	s.device = "sim:board=sim-2x2,model=fast";
	s.mesh_rows = s.mesh_cols = 0;
	if (wse_train_create_model(&d, &s, NULL, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	assert_string_equal(wse_train_backend(d), "mesh");
	random_data(17, 24, 7, 3, x, y);
	for (unsigned k = 0; k < 3; k++) {
		struct wse_train_metrics mh = { .size = sizeof(mh) }, md = { .size = sizeof(md) };
		unsigned n = 8 - k; /* 8, 7, 6 */

		assert_int_equal(wse_train_step_batch(h, x + 8 * 7 * k, y + 8 * k, n, &mh), 0);
		assert_int_equal(wse_train_step_batch(d, x + 8 * 7 * k, y + 8 * k, n, &md), 0);
		assert_memory_equal(&mh.loss, &md.loss, 4);
		assert_int_equal(mh.correct, md.correct);
		assert_true(md.device_cycles > 0);
	}
	same_tensors(h, d);
	struct wse_train_metrics eh = { .size = sizeof(eh) }, ed = { .size = sizeof(ed) };

	assert_int_equal(wse_train_eval_batch(h, x, y, 24, &eh), 0);
	assert_int_equal(wse_train_eval_batch(d, x, y, 24, &ed), 0);
	assert_memory_equal(&eh.loss, &ed.loss, 4);
	assert_int_equal(eh.correct, ed.correct);
	/* logits from the device's forward pass: 8, 8 and a partial 5 */
	float zh[21 * 3], zd[21 * 3];

	memset(zd, 0xff, sizeof(zd));
	assert_int_equal(wse_train_predict(h, x, 21, zh), 0);
	if (wse_train_predict(d, x, 21, zd)) {
		print_error("%s\n", wse_train_last_error(d));
		fail();
	}
	assert_memory_equal(zh, zd, sizeof(zh));
	assert_int_equal(wse_train_eval_batch(d, x, y, 21, &ed), 0);
	assert_int_equal(argmax_correct(zd, y, 21, 3), ed.correct);
	print_message("  mesh (fast model, sim-2x2) = host-reference: 3 steps, loss %.6f, 21 predictions\n", eh.loss);
	wse_train_destroy(h);
	wse_train_destroy(d);
}


/* Steps of a and b give the same bits: loss, correct count, every tensor
 * (weights and optimizer state) after every step whose number is a
 * multiple of every and after the last; then the same evaluation. */
static void same_runs_every(wse_train *a, wse_train *b, unsigned steps, unsigned examples,
			    unsigned every)
{
	for (unsigned k = 1; k <= steps; k++) {
		struct wse_train_metrics ma = { .size = sizeof(ma) }, mb = { .size = sizeof(mb) };

		if (wse_train_step(a, &ma)) {
			print_error("%s\n", wse_train_last_error(a));
			fail();
		}
		assert_int_equal(wse_train_step(b, &mb), 0);
		assert_int_equal(ma.step, k);
		assert_int_equal(ma.examples, examples);
		assert_int_equal(mb.examples, examples);
		assert_memory_equal(&ma.loss, &mb.loss, 4);
		assert_int_equal(ma.correct, mb.correct);
		if (k % every == 0 || k == steps)
			same_tensors(a, b);
	}
	struct wse_train_metrics ea = { .size = sizeof(ea) }, eb = { .size = sizeof(eb) };

	assert_int_equal(wse_train_eval(a, 100, &ea), 0);
	assert_int_equal(wse_train_eval(b, 100, &eb), 0);
	assert_int_equal(ea.examples, 100);
	assert_memory_equal(&ea.loss, &eb.loss, 4);
	assert_int_equal(ea.correct, eb.correct);
}

/* The same, every tensor after every step: a (N devices) and b (one
 * device with N times the micro-batches). */
static void same_runs(wse_train *a, wse_train *b, unsigned steps, unsigned examples)
{
	same_runs_every(a, b, steps, examples, 1);
}

/* N host-reference devices with k micro-batches each = one with N * k. */
static void check_devices_ref(unsigned N, unsigned k, const char *opt)
{
	char err[512], body[600];
	wse_train *a, *b;
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = N };
	const char *fmt = "model.layers = 196, 16, 10\ndata.pool = 2\ndata.shuffle = 1\n"
			  "train.batch_size = 12\ntrain.micro_batches = %u\n%s\nruntime.mesh = 4x3\n";

	snprintf(body, sizeof(body), fmt, k, opt);
	if (wse_train_create(&a, params("n.params", body), &o, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	snprintf(body, sizeof(body), fmt, N * k, opt);
	o.num_devices = 1;
	assert_int_equal(wse_train_create(&b, params("one.params", body), &o, err, sizeof(err)), 0);
	same_runs(a, b, 4, 12 * N * k);
	print_message("  %u devices x %u micro-batches = 1 device x %u: 4 steps, same bits\n", N, k,
		      N * k);
	wse_train_destroy(a);
	wse_train_destroy(b);
}

static void test_devices_ref(void **state)
{
	(void)state;
	check_devices_ref(2, 1, "optimizer.name = sgd\noptimizer.lr = 0.1\noptimizer.momentum = 0.9");
	check_devices_ref(3, 2, "optimizer.name = adamw\noptimizer.lr = 0.003\noptimizer.weight_decay = 0.01");
}

/* wse_train_step_batch on 2 devices: each takes half of the examples as
 * one micro-batch; the gradients are summed in device order. */
static void test_devices_step_batch(void **state)
{
	(void)state;
	char err[512];
	wse_train *t;
	struct wse_train_spec s;
	struct wse_train_opts op = { .size = sizeof(op), .num_devices = 2 };
	float x[12 * 7];
	struct t753 w, g, h, mom = { 0 };
	int32_t y[12];
	uint8_t y8[12];

	spec_753(&s);
	assert_int_equal(wse_train_create_model(&t, &s, &op, err, sizeof(err)), 0);
	random_data(21, 12, 7, 3, x, y);
	for (int e = 0; e < 12; e++)
		y8[e] = (uint8_t)y[e];
	struct train_ref_net n = get_753(t, &w);
	struct train_ref_out o1 = out_753(&g), o2 = out_753(&h);

	assert_int_equal(train_ref_pass(&n, x, y8, 6, 12, &o1), 0);
	assert_int_equal(train_ref_pass(&n, x + 6 * 7, y8 + 6, 6, 12, &o2), 0);
	float *gs = (float *)&g;
	const float *hs = (const float *)&h;

	for (size_t k = 0; k < sizeof(g) / sizeof(float); k++)
		gs[k] = gs[k] + hs[k];
	sgd_753(&w, &mom, &g);
	struct wse_train_metrics m = { .size = sizeof(m) };

	assert_int_equal(wse_train_step_batch(t, x, y, 12, &m), 0);
	assert_int_equal(m.examples, 12);
	assert_int_equal(m.correct, o1.correct + o2.correct);
	float loss = (o1.loss_sum + o2.loss_sum) / 12.0f;

	assert_memory_equal(&loss, &m.loss, 4);
	same_753(t, &w, &mom);
	wse_train_destroy(t);
}

/* The simulator processes (wsemu-fast) this process started and that
 * still run: their count; *newest gets the last started. */
static unsigned fast_children(pid_t *newest)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	*newest = 0;
	while ((e = readdir(d))) {
		char path[300], buf[512], comm[64], st;
		int pid, ppid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");

		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[len] = 0;
		if (sscanf(buf, "%d (%63[^)]) %c %d", &pid, comm, &st, &ppid) == 4 &&
		    ppid == (int)getpid() && !strcmp(comm, "wsemu-fast") && st != 'Z') {
			n++;
			if (pid > *newest)
				*newest = pid;
		}
	}
	closedir(d);
	return n;
}

/* Two functional models of sim-2x2 (WSEMU_FAST) give one's bits with
 * twice the micro-batches; a list of two meshes is refused with both
 * named; a device lost mid-step fails the step naming it. */
static void test_devices_mesh_fast(void **state)
{
	(void)state;
	if (!getenv("WSEMU_FAST") || !*getenv("WSEMU_FAST")) {
		print_message("  WSEMU_FAST is not set: skipped\n");
		skip();
	}
	char err[512], body[1000];
	wse_train *a, *b, *c;
	const char *base = "model.layers = 196, 16, 10\ndata.pool = 2\ndata.shuffle = 1\n"
			   "train.batch_size = 8\noptimizer.name = adamw\noptimizer.lr = 0.003\n"
			   "optimizer.weight_decay = 0.01\nruntime.backend = mesh\n";
	const char *F2 = "sim:board=sim-2x2,model=fast";
	struct wse_train_opts o2 = { .size = sizeof(o2), .num_devices = 2 };

	snprintf(body, sizeof(body), "%sruntime.devices = %s, %s\n", base, F2, F2);
	if (wse_train_create(&a, params("a.params", body), NULL, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	snprintf(body, sizeof(body), "%sruntime.device = %s\ntrain.micro_batches = 2\n", base, F2);
	assert_int_equal(wse_train_create(&b, params("b.params", body), NULL, err, sizeof(err)), 0);
	snprintf(body, sizeof(body), "%sruntime.device = %s\n", base, F2);
	assert_int_equal(wse_train_create(&c, params("c.params", body), &o2, err, sizeof(err)), 0);
	pid_t newest;

	assert_int_equal(fast_children(&newest), 5);
	same_runs(a, b, 4, 16);
	wse_train_destroy(b);
	snprintf(body, sizeof(body), "%sruntime.device = %s\ntrain.micro_batches = 2\n", base, F2);
	assert_int_equal(wse_train_create(&b, params("b.params", body), NULL, err, sizeof(err)), 0);
	same_runs(c, b, 4, 16);
	struct wse_train_metrics m1 = { .size = sizeof(m1) };

	assert_int_equal(wse_train_step(b, &m1), 0); /* one device: the max is the sum */
	assert_true(m1.device_cycles > 0 && m1.device_cycles_max == m1.device_cycles);
	print_message("  2 fast sim-2x2 devices = 1 with 2 micro-batches: 4 steps, same bits\n");
	wse_train_destroy(a);
	wse_train_destroy(b);
	wse_train_destroy(c);
	assert_int_equal(fast_children(&newest), 0);

	/* meshes that differ */
	snprintf(body, sizeof(body), "%sruntime.devices = %s, sim:board=sim-4x4,model=fast\n", base, F2);
	assert_int_equal(wse_train_create(&a, params("d.params", body), NULL, err, sizeof(err)),
			 WSE_ERROR_NOT_SUPPORTED);
	expect_message(err, "device 1 (sim:board=sim-4x4,model=fast) has a 4x4 mesh (rows x columns) but device 0 (sim:board=sim-2x2,model=fast) has 2x2");
	assert_int_equal(fast_children(&newest), 0);

	/* device 1's simulator killed between steps */
	snprintf(body, sizeof(body), "%sruntime.devices = %s, %s\n", base, F2, F2);
	assert_int_equal(wse_train_create(&a, params("a.params", body), NULL, err, sizeof(err)), 0);
	struct wse_train_metrics m = { .size = sizeof(m) };

	/* device_cycles sums both devices' passes, device_cycles_max is the
	 * larger of the two */
	assert_int_equal(wse_train_step(a, &m), 0);
	assert_true(m.device_cycles_max > 0 && m.device_cycles_max < m.device_cycles &&
		    2 * m.device_cycles_max >= m.device_cycles);
	assert_int_equal(fast_children(&newest), 2);
	assert_int_equal(kill(newest, SIGKILL), 0);
	for (int k = 0; k < 500 && fast_children(&(pid_t){ 0 }) == 2; k++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	size_t l0, l1;
	float *before = snapshot(a, &l0);

	assert_true(wse_train_step(a, NULL) < 0);
	expect_message(wse_train_last_error(a), "device 1 of 2 (sim:board=sim-2x2,model=fast), micro-batch 1: ");
	float *after = snapshot(a, &l1);

	assert_memory_equal(before, after, l0); /* no update */
	free(before);
	free(after);
	wse_train_destroy(a);
}

/* The host update beside the device (runtime.host_update = overlap, the
 * default) against the serial order: every step's loss and correct count,
 * and every tensor after steps 3 and 6 (between them the steps run back to
 * back, each update overlapping the next step's passes), bit for bit, an
 * evaluation; then the figures of the updates. */
static void check_host_update(const char *body, unsigned ndev, unsigned steps, unsigned L,
			      unsigned examples)
{
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = ndev };
	char err[512], b2[1200];
	wse_train *a, *b;
	struct train_update_stats sa, sb;

	snprintf(b2, sizeof(b2), "%sruntime.host_update = overlap\n", body);
	if (wse_train_create(&a, params("ov.params", b2), &o, err, sizeof(err))) {
		print_error("%s\n", err);
		fail();
	}
	snprintf(b2, sizeof(b2), "%sruntime.host_update = serial\n", body);
	assert_int_equal(wse_train_create(&b, params("se.params", b2), &o, err, sizeof(err)), 0);
	same_runs_every(a, b, steps, examples, 3);
	assert_int_equal(train_update_stats(a, &sa), 0);
	assert_int_equal(train_update_stats(b, &sb), 0);
	assert_int_equal(sa.updates, (uint64_t)steps * L);
	assert_int_equal(sb.updates, (uint64_t)steps * L);
	assert_true(sa.busy_ms > 0);
	assert_true(sb.exposed_ms == sb.busy_ms);
	print_message("  overlap = serial: %u steps; update %.3f ms, waited for %.3f ms (serial: %.3f ms)\n",
		      steps, sa.busy_ms, sa.exposed_ms, sb.busy_ms);
	wse_train_destroy(a);
	wse_train_destroy(b);
}

static void test_devices_host_update_ref(void **state)
{
	(void)state;
	const char *base = "model.layers = 196, 24, 12, 10\ndata.pool = 2\ndata.shuffle = 1\n"
			   "train.batch_size = 12\nruntime.mesh = 4x3\n";
	char body[600];

	/* one device, AdamW */
	snprintf(body, sizeof(body), "%soptimizer.name = adamw\noptimizer.lr = 0.003\n"
		 "optimizer.weight_decay = 0.01\n", base);
	check_host_update(body, 1, 6, 3, 12);
	/* two devices with two micro-batches each: the gradients of three
	 * passes are added on the update thread */
	snprintf(body, sizeof(body), "%soptimizer.name = sgd\noptimizer.lr = 0.1\n"
		 "optimizer.momentum = 0.9\ntrain.micro_batches = 2\n", base);
	check_host_update(body, 2, 6, 3, 48);
	/* a step that fails after its passes reported every layer (fault
	 * injection) is undone: weights, optimizer state and step as before */
	char err[512];
	wse_train *t;
	size_t l0;

	snprintf(body, sizeof(body), "%soptimizer.name = adam\noptimizer.lr = 0.003\n", base);
	setenv("WSE_TRAIN_FAULT_FAIL_STEP", "3", 1);
	int rc = wse_train_create(&t, params("fail.params", body), NULL, err, sizeof(err));

	unsetenv("WSE_TRAIN_FAULT_FAIL_STEP");
	assert_int_equal(rc, 0);
	assert_int_equal(wse_train_step(t, NULL), 0);
	assert_int_equal(wse_train_step(t, NULL), 0);
	float *before = snapshot(t, &l0);

	assert_int_equal(wse_train_step(t, NULL), WSE_ERROR_DEVICE);
	expect_message(wse_train_last_error(t), "fault injection: step 3 fails after its last passes");
	expect_unchanged(t, before, l0);
	wse_train_destroy(t);
	/* a bad value */

	snprintf(body, sizeof(body), "%sruntime.host_update = later\n", base);
	assert_int_equal(wse_train_create(&t, params("bad.params", body), NULL, err, sizeof(err)),
			 WSE_ERROR_INVALID_PARAM);
	expect_message(err, "runtime.host_update = 'later': must be overlap or serial");
}

/* The same on the mesh backend over the functional model of sim-2x2,
 * where the update of a layer runs while the device computes the layers
 * below. */
static void test_devices_host_update_mesh(void **state)
{
	(void)state;
	if (!getenv("WSEMU_FAST") || !*getenv("WSEMU_FAST")) {
		print_message("  WSEMU_FAST is not set: skipped\n");
		skip();
	}
	check_host_update("model.layers = 196, 24, 12, 10\ndata.pool = 2\ndata.shuffle = 1\n"
			  "train.batch_size = 8\noptimizer.name = adam\noptimizer.lr = 0.003\n"
			  "runtime.backend = mesh\nruntime.device = sim:board=sim-2x2,model=fast\n",
			  1, 6, 3, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_is_reference),
		cmocka_unit_test(test_save_load_resume),
		cmocka_unit_test(test_micro_batches),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_mesh_refuses_rows),
		cmocka_unit_test(test_route_plan_write),
		cmocka_unit_test(test_create_model_is_params),
		cmocka_unit_test(test_spec_older_caller),
		cmocka_unit_test(test_step_batch_753),
		cmocka_unit_test(test_bad_batch_and_spec),
		cmocka_unit_test(test_step_batch_mesh_fast),
		cmocka_unit_test(test_devices_ref),
		cmocka_unit_test(test_devices_step_batch),
		cmocka_unit_test(test_devices_mesh_fast),
		cmocka_unit_test(test_devices_host_update_ref),
		cmocka_unit_test(test_devices_host_update_mesh),
	};

	/* TR_FILTER: run only the tests matching (cmocka patterns: * and ?) */
	if (getenv("TR_FILTER"))
		cmocka_set_test_filter(getenv("TR_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* The training API (wsehost_train.h) on the host-reference backend: one
 * step equals the reference trainer plus the reference optimizer, runs are
 * reproducible, save/load resumes bit for bit, tensors get and set, and bad
 * params, devices and datasets give clear errors; the mesh backend refuses
 * a device with more rows than its kernel runs on (the mock device of
 * tests/hostlib serving a 9-row tree), and route plans reach that device
 * only through the checked writer. */
#include "tr_test.h"

#include <unistd.h>

#include <wsemu/wse_wire.h>

#include "fake_dev.h"
#include "fmnist.h"
#include "train_mesh.h"
#include "train_ref.h"
#include "wse_route.h"
#include "wsehost.h"
#include "wsehost_train.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/trapi.XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
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
	const char *name;

	for (unsigned k = 0; wse_train_tensor_info(a, k, &name, NULL, NULL) >= 0; k++) {
		int n = wse_train_tensor_info(a, k, NULL, NULL, NULL);
		float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);

		assert_int_equal(wse_train_get_tensor(a, name, x, (size_t)n), 0);
		assert_int_equal(wse_train_get_tensor(c, name, y, (size_t)n), 0);
		assert_memory_equal(x, y, (size_t)n * 4);
		free(x);
		free(y);
	}
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

static void expect_create_error(const char *body, int code, const char *needle)
{
	char err[512] = "";
	wse_train *t = (wse_train *)1;

	assert_int_equal(wse_train_create(&t, params("bad.params", body), NULL, err, sizeof(err)),
			 code);
	assert_null(t);
	print_message("  -> %s\n", err);
	if (!strstr(err, needle)) {
		print_error("'%s' not in '%s'\n", needle, err);
		fail();
	}
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
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = 2 };

	assert_int_equal(wse_train_create(&t, params("a.params", SMALL), &o, err, sizeof(err)),
			 WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(err, "num-devices 2"));
	print_message("  -> %s\n", err);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_is_reference),
		cmocka_unit_test(test_save_load_resume),
		cmocka_unit_test(test_micro_batches),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_mesh_refuses_rows),
		cmocka_unit_test(test_route_plan_write),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

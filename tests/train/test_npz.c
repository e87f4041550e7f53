/* Tensors as NumPy .npz (wse_train_export_npz, wse_train_import_npz): the
 * zip CRC-32, a round trip between two models, and every kind of bad file
 * refused with its file, entry and problem named and the model unchanged.
 * (tests/python checks the files against numpy.load and numpy.savez.) */
#include "tr_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "npz.h"
#include "wsehost.h"
#include "wsehost_train.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "trnpz");
}

static int teardown(void **state)
{
	(void)state;
	return tr_rmdir(dir);
}

static const char *path(const char *name)
{
	return tr_path(dir, name);
}

/* in-hidden-3 with Adam (or SGD), a few steps taken */
static wse_train *model(unsigned hidden, const char *opt, unsigned steps)
{
	struct wse_train_spec s;
	wse_train *t;
	char err[512];

	wse_train_spec_init(&s, sizeof(s));
	s.num_layers = 2;
	s.widths[0] = 5;
	s.widths[1] = hidden;
	s.widths[2] = 3;
	s.optimizer = opt;
	s.lr = 0.01f;
	s.batch_size = 4;
	assert_int_equal(wse_train_create_model(&t, &s, NULL, err, sizeof(err)), 0);
	uint64_t rng = 3;
	float x[20];
	int32_t y[4] = { 0, 1, 2, 1 };

	for (unsigned k = 0; k < steps; k++) {
		for (unsigned j = 0; j < 20; j++)
			x[j] = tr_uniform(&rng, -1, 1);
		assert_int_equal(wse_train_step_batch(t, x, y, 4, NULL), 0);
	}
	return t;
}

/* All tensors of t, concatenated, into a new buffer; *n floats. */
static float *snapshot(wse_train *t, size_t *n)
{
	const char *name;
	float *all = NULL;
	int c;

	*n = 0;
	for (unsigned k = 0; (c = wse_train_tensor_info(t, k, &name, NULL, NULL)) >= 0; k++) {
		all = realloc(all, (*n + (size_t)c) * sizeof(float));
		assert_non_null(all);
		assert_int_equal(wse_train_get_tensor(t, name, all + *n, (size_t)c), 0);
		*n += (size_t)c;
	}
	return all;
}

static void test_crc32(void **state)
{
	(void)state;
	assert_int_equal(npz_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(npz_crc32(npz_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
	assert_int_equal(npz_crc32(0, "", 0), 0);
}

static void test_round_trip(void **state)
{
	(void)state;
	wse_train *a = model(6, "adam", 5), *b = model(6, "adam", 0);
	size_t na, nb;
	struct stat st;

	assert_int_equal(wse_train_export_npz(a, path("a.npz")), 0);
	assert_int_not_equal(stat(path("a.npz.tmp"), &st), 0);
	float *va = snapshot(a, &na), *vb = snapshot(b, &nb);

	assert_int_equal(na, nb);
	assert_memory_not_equal(va, vb, na * sizeof(float));
	free(vb);
	assert_int_equal(wse_train_import_npz(b, path("a.npz")), 0);
	vb = snapshot(b, &nb);
	assert_memory_equal(va, vb, na * sizeof(float));
	/* exported again: the same bytes */
	assert_int_equal(wse_train_export_npz(b, path("b.npz")), 0);
	char cmd[1600];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", path("a.npz"), path("b.npz"));
	assert_int_equal(system(cmd), 0);
	free(va);
	free(vb);
	wse_train_destroy(a);
	wse_train_destroy(b);
}

/* Copy a.npz to name with byte `at` (from the end when negative) xor'ed
 * with x, or cut to `cut` bytes when cut >= 0. */
static const char *mangle(const char *name, long at, uint8_t x, long cut)
{
	FILE *f = fopen(path("a.npz"), "rb");
	static uint8_t b[1 << 16];
	size_t n;

	assert_non_null(f);
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	assert_true(n < sizeof(b));
	if (at < 0)
		at += (long)n;
	b[at] ^= x;
	if (cut >= 0)
		n = (size_t)cut;
	f = fopen(path(name), "wb");
	assert_non_null(f);
	fwrite(b, 1, n, f);
	fclose(f);
	return path(name);
}

static void expect_import_error(wse_train *t, const char *file, int code, const char *n1,
				const char *n2)
{
	size_t n0, n1c;
	float *before = snapshot(t, &n0);
	int rc = wse_train_import_npz(t, file);
	const char *msg = wse_train_last_error(t);

	print_message("  -> %s\n", msg);
	assert_int_equal(rc, code);
	assert_non_null(strstr(msg, n1));
	if (n2)
		assert_non_null(strstr(msg, n2));
	float *after = snapshot(t, &n1c);

	assert_memory_equal(before, after, n0 * sizeof(float));
	free(before);
	free(after);
}

static void test_bad_files(void **state)
{
	(void)state;
	wse_train *a = model(6, "adam", 3), *b = model(6, "adam", 0);

	assert_int_equal(wse_train_export_npz(a, path("a.npz")), 0);
	/* a's file: layer0.weight.npy is the first entry: local header 30 +
	 * name 17, then the .npy header of 128 bytes, then the data */
	expect_import_error(b, path("none.npz"), WSE_ERROR_NOT_FOUND, "none.npz: cannot open", NULL);
	expect_import_error(b, mangle("crc.npz", 30 + 17 + 128 + 5, 0x40, -1), WSE_ERROR_PAYLOAD_CRC,
			    "crc.npz: offset 47: entry 'layer0.weight.npy': CRC-32", NULL);
	expect_import_error(b, mangle("cut.npz", 0, 0, 500), WSE_ERROR_TRUNCATED,
			    "cut.npz: offset 500: truncated", NULL);
	expect_import_error(b, mangle("hdr.npz", 0, 'P' ^ 'p', -1), WSE_ERROR_MALFORMED,
			    "hdr.npz: offset 0: entry 'layer0.weight.npy': no local header", NULL);
	FILE *t = fopen(path("txt.npz"), "w");

	fputs("these are not the tensors you are looking for\n", t);
	fclose(t);
	expect_import_error(b, path("txt.npz"), WSE_ERROR_BAD_MAGIC,
			    "txt.npz: offset 46: not a zip file", NULL);
	/* the end record's directory offset moved into the data */
	expect_import_error(b, mangle("cd.npz", -6, 0x1, -1), WSE_ERROR_MALFORMED,
			    "not a zip central directory entry", NULL);
	/* the .npy magic of the first entry */
	expect_import_error(b, mangle("npy.npz", 30 + 17 + 1, 0x20, -1), WSE_ERROR_PAYLOAD_CRC,
			    "layer0.weight.npy", NULL);
	/* another model's tensors: a shape, a name */
	wse_train *c = model(7, "adam", 0), *d = model(6, "sgd", 0);

	expect_import_error(c, path("a.npz"), WSE_ERROR_LENGTH,
			    "entry 'layer0.weight.npy': shape (6, 5), the tensor's is (7, 5)", NULL);
	expect_import_error(d, path("a.npz"), WSE_ERROR_NOT_FOUND,
			    "entry 'layer0.weight.adam_m.npy': the model has no tensor 'layer0.weight.adam_m'",
			    NULL);
	/* a model with fewer tensors exports a subset, which imports */
	assert_int_equal(wse_train_export_npz(d, path("d.npz")), 0);
	assert_int_equal(wse_train_import_npz(b, path("d.npz")), 0);
	float wd[30], wb[30];

	assert_int_equal(wse_train_get_tensor(d, "layer0.weight", wd, 30), 0);
	assert_int_equal(wse_train_get_tensor(b, "layer0.weight", wb, 30), 0);
	assert_memory_equal(wd, wb, sizeof(wd));
	/* a compressed entry (method 8 in the first directory entry) */
	FILE *f = fopen(path("a.npz"), "rb");
	uint8_t z[1 << 16];
	size_t n = fread(z, 1, sizeof(z), f);

	fclose(f);
	uint32_t cd = z[n - 6] | (uint32_t)z[n - 5] << 8 | (uint32_t)z[n - 4] << 16 |
		      (uint32_t)z[n - 3] << 24;

	expect_import_error(b, mangle("defl.npz", (long)cd + 10, 8, -1), WSE_ERROR_NOT_SUPPORTED,
			    "entry 'layer0.weight.npy' is compressed (method 8)", "savez_compressed");
	/* NULL arguments; a directory that does not exist */
	assert_int_equal(wse_train_export_npz(NULL, path("x.npz")), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_train_import_npz(b, NULL), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_train_export_npz(b, "/nonexistent/dir/x.npz"), WSE_ERROR_NOT_FOUND);
	assert_non_null(strstr(wse_train_last_error(b), "/nonexistent/dir/x.npz.tmp: cannot create"));
	wse_train_destroy(a);
	wse_train_destroy(b);
	wse_train_destroy(c);
	wse_train_destroy(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

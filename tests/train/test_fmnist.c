/* Fashion-MNIST loader (train/src/fmnist.c): the real files of Debian's
 * dataset-fashion-mnist (directory $TR_FM_DIR), pooling, shuffle, and
 * missing, truncated and malformed copies. */
#include "tr_test.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fmnist.h"
#include "wsehost.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "fmtest");
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

static void test_real_files(void **state)
{
	(void)state;
	struct fm_data tr, te, tp;
	char err[512];
	unsigned hist[10] = { 0 };

	assert_int_equal(fm_load(fm_dir(), 1, 1, &tr, err, sizeof(err)), 0);
	assert_int_equal(tr.n, 60000);
	assert_int_equal(tr.features, 784);
	for (uint32_t e = 0; e < tr.n; e++)
		hist[tr.y[e]]++;
	for (int k = 0; k < 10; k++)
		assert_int_equal(hist[k], 6000); /* Fashion-MNIST is balanced */
	for (size_t k = 0; k < (size_t)tr.n * 784; k++) {
		float p = tr.x[k] * 255.0f;

		assert_true(tr.x[k] >= 0.0f && tr.x[k] <= 1.0f);
		assert_true(fabsf(p - roundf(p)) < 1e-3f);
	}
	assert_int_equal(fm_load(fm_dir(), 0, 2, &te, err, sizeof(err)), 0);
	assert_int_equal(te.n, 10000);
	assert_int_equal(te.features, 196);
	/* pooling: (sum of the 2x2 pixels) / 1020 */
	assert_int_equal(fm_load(fm_dir(), 0, 1, &tp, err, sizeof(err)), 0);
	for (uint32_t e = 0; e < 50; e++)
		for (unsigned r = 0; r < 14; r++)
			for (unsigned c = 0; c < 14; c++) {
				const float *x = tp.x + (size_t)e * 784;
				unsigned s = 0;

				for (unsigned dr = 0; dr < 2; dr++)
					for (unsigned dc = 0; dc < 2; dc++)
						s += (unsigned)roundf(x[(2 * r + dr) * 28 + 2 * c + dc] * 255.0f);
				float want = (float)s / 1020.0f;

				assert_true(memcmp(&want, &te.x[(size_t)e * 196 + r * 14 + c], 4) == 0);
			}
	assert_memory_equal(te.y, tp.y, 10000);
	fm_free(&tr);
	fm_free(&te);
	fm_free(&tp);
}

static void test_shuffle(void **state)
{
	(void)state;
	uint32_t a[1000], b[1000], c[1000];
	uint8_t seen[1000] = { 0 };

	fm_epoch_order(1000, 0, 5, 0, a);
	for (uint32_t k = 0; k < 1000; k++)
		assert_int_equal(a[k], k);
	fm_epoch_order(1000, 1, 5, 0, a);
	fm_epoch_order(1000, 1, 5, 0, b);
	fm_epoch_order(1000, 1, 5, 1, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	for (uint32_t k = 0; k < 1000; k++)
		seen[a[k]]++;
	for (uint32_t k = 0; k < 1000; k++)
		assert_int_equal(seen[k], 1);
}

/* Write an IDX file gzip-compressed: magic, dims, data. */
static void write_idx(const char *name, uint32_t magic, unsigned nd, const uint32_t *dims,
		      const uint8_t *data, size_t n, size_t cut)
{
	char p[700];
	uint8_t hdr[16];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (int k = 0; k < 4; k++)
		hdr[k] = (uint8_t)(magic >> (24 - 8 * k));
	for (unsigned d = 0; d < nd; d++)
		for (int k = 0; k < 4; k++)
			hdr[4 + 4 * d + k] = (uint8_t)(dims[d] >> (24 - 8 * k));
	gzFile g = gzopen(p, "wb");

	assert_non_null(g);
	gzwrite(g, hdr, 4 + 4 * nd);
	if (n)
		gzwrite(g, data, (unsigned)n);
	gzclose(g);
	if (cut) { /* keep only the first `cut` bytes of the .gz */
		FILE *f = fopen(p, "r+b");

		assert_non_null(f);
		assert_int_equal(ftruncate(fileno(f), (off_t)cut), 0);
		fclose(f);
	}
}

static void small_set(uint32_t n_img, uint32_t n_lab, uint32_t img_magic, uint8_t bad_label,
		      size_t cut_img)
{
	static uint8_t pix[5 * 784], lab[5];
	uint32_t di[3] = { n_img, 28, 28 }, dl[1] = { n_lab };

	for (unsigned k = 0; k < sizeof(pix); k++)
		pix[k] = (uint8_t)(k * 7);
	for (unsigned k = 0; k < 5; k++)
		lab[k] = (uint8_t)k;
	lab[2] = bad_label ? bad_label : 2;
	write_idx("t10k-images-idx3-ubyte.gz", img_magic, 3, di, pix, 784 * 5, cut_img);
	write_idx("t10k-labels-idx1-ubyte.gz", 0x801, 1, dl, lab, 5, 0);
}

static void expect_error(int code, const char *needle)
{
	struct fm_data d;
	char err[512] = "";
	int rc = fm_load(dir, 0, 1, &d, err, sizeof(err));

	print_message("  -> %s\n", err);
	assert_int_equal(rc, code);
	assert_non_null(strstr(err, needle));
	assert_null(d.x);
}

static void test_bad_files(void **state)
{
	(void)state;
	struct fm_data d;
	char err[512];

	/* a good small set loads */
	small_set(5, 5, 0x803, 0, 0);
	assert_int_equal(fm_load(dir, 0, 2, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 5);
	assert_true(d.x[0] == (float)(0 + 7 + 28 * 7 + 29 * 7) / 1020.0f);
	fm_free(&d);
	/* missing directory */
	assert_int_equal(fm_load("/nonexistent/fm", 1, 1, &d, err, sizeof(err)),
			 WSE_ERROR_NOT_FOUND);
	assert_non_null(strstr(err, "/nonexistent/fm/train-images-idx3-ubyte.gz"));
	assert_non_null(strstr(err, "dataset-fashion-mnist"));
	print_message("  -> %s\n", err);
	/* bad magic */
	small_set(5, 5, 0x804, 0, 0);
	expect_error(WSE_ERROR_BAD_MAGIC, "magic");
	/* image count and label count differ */
	small_set(5, 4, 0x803, 0, 0);
	expect_error(WSE_ERROR_MALFORMED, "labels-idx1");
	/* the header promises more images than there are */
	small_set(6, 6, 0x803, 0, 0);
	expect_error(WSE_ERROR_TRUNCATED, "the IDX header says");
	/* label out of range */
	small_set(5, 5, 0x803, 12, 0);
	expect_error(WSE_ERROR_MALFORMED, "label 12");
	/* truncated gzip stream, at several lengths */
	for (size_t cut = 5; cut < 200; cut += 37) {
		small_set(5, 5, 0x803, 0, cut);
		struct fm_data q;
		int rc = fm_load(dir, 0, 1, &q, err, sizeof(err));

		assert_true(rc == WSE_ERROR_TRUNCATED || rc == WSE_ERROR_BAD_MAGIC);
		assert_non_null(strstr(err, "t10k-images-idx3-ubyte.gz"));
	}
	print_message("  -> %s\n", err);
	/* not gzip at all: plain bytes are read as they are (zlib transparent
	 * mode), so a random file fails on its magic */
	char p[700];

	snprintf(p, sizeof(p), "%s/t10k-images-idx3-ubyte.gz", dir);
	FILE *f = fopen(p, "wb");

	fputs("this is not an IDX file at all", f);
	fclose(f);
	expect_error(WSE_ERROR_BAD_MAGIC, "magic");
	assert_int_equal(fm_load(dir, 0, 3, &d, err, sizeof(err)), WSE_ERROR_INVALID_PARAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

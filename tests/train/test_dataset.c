/* The caller's datasets (dataset.h): small IDX (plain and gzip, ubyte and
 * float32), NumPy .npy (versions 1.0 and 2.0) and CSV files written here
 * load to the expected values, and each kind of bad file or mismatch with
 * the model is refused with the file, the offset or line and the problem
 * in the message. Through the API: a model trains and evaluates from
 * .npy files named in a params file and in a spec, and bad data keys are
 * refused. */
#include "tr_test.h"

#include <unistd.h>
#include <zlib.h>

#include "dataset.h"
#include "wsehost.h"
#include "wsehost_train.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "trds");
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

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* An IDX file: magic, dims, then len bytes of data (gzip when gz). */
static void write_idx(const char *name, uint32_t magic, unsigned ndim, const uint32_t *dims,
		      const void *data, size_t len, int gz)
{
	uint8_t hdr[64];

	put_be32(hdr, magic);
	for (unsigned d = 0; d < ndim; d++)
		put_be32(hdr + 4 + 4 * d, dims[d]);
	if (gz) {
		gzFile g = gzopen(path(name), "wb");

		assert_non_null(g);
		gzwrite(g, hdr, 4 + 4 * ndim);
		if (len)
			gzwrite(g, data, (unsigned)len);
		gzclose(g);
		return;
	}
	FILE *f = fopen(path(name), "wb");

	assert_non_null(f);
	fwrite(hdr, 1, 4 + 4 * ndim, f);
	fwrite(data, 1, len, f);
	fclose(f);
}

/* A .npy file of version major.0: the header dict, padded as numpy pads
 * it, then len bytes of data. */
static void write_npy(const char *name, unsigned major, const char *descr, int fortran,
		      const char *shape, const void *data, size_t len)
{
	char dict[256];
	unsigned hs = major == 1 ? 10 : 12;
	int n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
			 descr, fortran ? "True" : "False", shape);

	while ((hs + (unsigned)n + 1) % 64)
		dict[n++] = ' ';
	dict[n++] = '\n';
	FILE *f = fopen(path(name), "wb");
	uint8_t h[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)major, 0, (uint8_t)n,
			  (uint8_t)(n >> 8), 0, 0 };

	assert_non_null(f);
	fwrite(h, 1, hs, f);
	fwrite(dict, 1, (size_t)n, f);
	fwrite(data, 1, len, f);
	fclose(f);
}

static void write_text(const char *name, const char *text)
{
	FILE *f = fopen(path(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Load and expect success. */
static void load_ok(enum ds_format f, const char *x, const char *y, uint32_t col, uint32_t width,
		    uint32_t classes, struct fm_data *d)
{
	char err[512] = "";
	int rc = ds_load(f, path(x), y ? path(y) : NULL, col, width, classes, d, err, sizeof(err));

	if (rc)
		print_message("unexpected: %s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(d->features, width);
}

/* Load and expect error code with every needle in the message. */
static void load_bad(enum ds_format f, const char *x, const char *y, uint32_t col, uint32_t width,
		     uint32_t classes, int code, const char *n1, const char *n2)
{
	struct fm_data d;
	char err[512] = "";
	int rc = ds_load(f, path(x), y ? path(y) : NULL, col, width, classes, &d, err,
			 sizeof(err));

	print_message("  -> %s\n", err);
	assert_int_equal(rc, code);
	assert_non_null(strstr(err, n1));
	if (n2)
		assert_non_null(strstr(err, n2));
	assert_null(d.x);
	assert_null(d.y);
	assert_int_equal(d.n, 0);
}

/* x and y fit a model of width inputs and classes classes: with one class
 * fewer a label is outside (label_at, label_msg), with one input more the
 * width differs (width_msg). */
static void model_mismatch(enum ds_format f, const char *x, const char *y, uint32_t width,
			   uint32_t classes, const char *label_at, const char *label_msg,
			   const char *width_msg)
{
	load_bad(f, x, y, 0, width, classes - 1, WSE_ERROR_MALFORMED, label_at, label_msg);
	load_bad(f, x, y, 0, width + 1, classes, WSE_ERROR_INVALID_PARAM, x, width_msg);
}

static void test_idx(void **state)
{
	(void)state;
	struct fm_data d;
	uint8_t pix[24], lab[4] = { 0, 2, 1, 2 };
	uint32_t dx[3] = { 4, 2, 3 }, dy[1] = { 4 };

	for (unsigned k = 0; k < sizeof(pix); k++)
		pix[k] = (uint8_t)(k * 10);
	/* ubyte, 3 dimensions, gzip: width 2 * 3, data / 255 */
	write_idx("x.idx.gz", 0x803, 3, dx, pix, sizeof(pix), 1);
	write_idx("y.idx", 0x801, 1, dy, lab, sizeof(lab), 0);
	load_ok(DS_IDX, "x.idx.gz", "y.idx", 0, 6, 3, &d);
	assert_int_equal(d.n, 4);
	for (unsigned k = 0; k < 24; k++)
		assert_true(d.x[k] == (float)(k * 10) / 255.0f);
	assert_memory_equal(d.y, lab, 4);
	fm_free(&d);
	/* float32 (big-endian), 2 dimensions, plain: values as they are */
	float v[8] = { 0.5f, -1.25f, 3.0f, 1e-3f, 7.0f, 0.0f, -0.0f, 100.5f };
	uint8_t be[32];
	uint32_t dxf[2] = { 4, 2 };

	for (unsigned k = 0; k < 8; k++) {
		uint32_t u;

		memcpy(&u, &v[k], 4);
		put_be32(be + 4 * k, u);
	}
	write_idx("xf.idx", 0xD02, 2, dxf, be, sizeof(be), 0);
	load_ok(DS_IDX, "xf.idx", "y.idx", 0, 2, 3, &d);
	assert_memory_equal(d.x, v, sizeof(v));
	fm_free(&d);
	/* not an IDX type (0x0b: int16) */
	write_idx("bad.idx", 0xB02, 2, dxf, be, 16, 0);
	load_bad(DS_IDX, "bad.idx", "y.idx", 0, 2, 3, WSE_ERROR_BAD_MAGIC, "bad.idx: offset 0",
		 "ubyte (0x08) or float32 (0x0d)");
	/* truncated data: the header says 4 x 2 floats, 20 bytes follow */
	write_idx("short.idx", 0xD02, 2, dxf, be, 20, 0);
	load_bad(DS_IDX, "short.idx", "y.idx", 0, 2, 3, WSE_ERROR_TRUNCATED, "short.idx: offset 32",
		 "truncated: 20 data bytes, the IDX header says 32");
	/* truncated in the dimensions */
	write_idx("hdr.idx", 0x803, 1, dx, NULL, 0, 0);
	load_bad(DS_IDX, "hdr.idx", "y.idx", 0, 6, 3, WSE_ERROR_TRUNCATED, "hdr.idx: offset 8",
		 "truncated");
	/* float labels: wrong dtype */
	load_bad(DS_IDX, "x.idx.gz", "xf.idx", 0, 6, 3, WSE_ERROR_MALFORMED, "xf.idx: offset 2",
		 "wrong dtype");
	/* 4 examples, 3 labels */
	uint32_t d3[1] = { 3 };

	write_idx("y3.idx", 0x801, 1, d3, lab, 3, 0);
	load_bad(DS_IDX, "x.idx.gz", "y3.idx", 0, 6, 3, WSE_ERROR_MALFORMED, "shape mismatch",
		 "x.idx.gz has 4 examples but");
	/* label 2 with 2 classes: example 1, byte 8 + 1; 7 inputs */
	model_mismatch(DS_IDX, "x.idx.gz", "y.idx", 6, 3, "y.idx: offset 9",
		       "label 2 of example 1 outside 0..1",
		       "examples have 6 inputs, but the model's input width (model.layers' first) is 7");
	/* missing file */
	load_bad(DS_IDX, "none.idx", "y.idx", 0, 5, 3, WSE_ERROR_NOT_FOUND, "none.idx: cannot open",
		 NULL);
}

/* Inputs xname with y.npy of test_npy (3 examples, 4 inputs, 3 classes). */
static void npy_bad_x(const char *xname, int code, const char *at, const char *msg)
{
	load_bad(DS_NPY, xname, "y.npy", 0, 4, 3, code, at, msg);
}

static void test_npy(void **state)
{
	(void)state;
	struct fm_data d;
	float x[12];
	int64_t y8[3] = { 1, 0, 2 };
	uint16_t y2[3] = { 2, 2, 0 };
	uint8_t u[12];

	for (unsigned k = 0; k < 12; k++) {
		x[k] = (float)k * 0.25f - 1.0f;
		u[k] = (uint8_t)(255 - k);
	}
	/* version 1.0, float32 [3, 2, 2], int64 labels */
	write_npy("x.npy", 1, "<f4", 0, "(3, 2, 2)", x, sizeof(x));
	write_npy("y.npy", 1, "<i8", 0, "(3,)", y8, sizeof(y8));
	load_ok(DS_NPY, "x.npy", "y.npy", 0, 4, 3, &d);
	assert_int_equal(d.n, 3);
	assert_memory_equal(d.x, x, sizeof(x));
	assert_int_equal(d.y[0], 1);
	assert_int_equal(d.y[2], 2);
	fm_free(&d);
	/* version 2.0, uint8 [3, 4] scaled, uint16 labels */
	write_npy("u.npy", 2, "|u1", 0, "(3, 4)", u, sizeof(u));
	write_npy("y2.npy", 2, "<u2", 0, "(3,)", y2, sizeof(y2));
	load_ok(DS_NPY, "u.npy", "y2.npy", 0, 4, 3, &d);
	for (unsigned k = 0; k < 12; k++)
		assert_true(d.x[k] == (float)(255 - k) / 255.0f);
	assert_int_equal(d.y[0], 2);
	assert_int_equal(d.y[2], 0);
	fm_free(&d);
	/* wrong dtypes: float64 and big-endian float32 inputs, float labels */
	double x64[12] = { 0 };

	write_npy("f8.npy", 1, "<f8", 0, "(3, 4)", x64, sizeof(x64));
	npy_bad_x("f8.npy", WSE_ERROR_MALFORMED, "f8.npy: offset 20", "wrong dtype '<f8'");
	write_npy("be.npy", 1, ">f4", 0, "(3, 4)", x, sizeof(x));
	npy_bad_x("be.npy", WSE_ERROR_MALFORMED, "be.npy: offset 20", "wrong dtype '>f4'");
	load_bad(DS_NPY, "x.npy", "x.npy", 0, 4, 3, WSE_ERROR_MALFORMED, "x.npy: offset 20",
		 "labels must be little-endian integers");
	/* Fortran order */
	write_npy("fo.npy", 1, "<f4", 1, "(3, 4)", x, sizeof(x));
	npy_bad_x("fo.npy", WSE_ERROR_MALFORMED, "fo.npy: offset 44", "Fortran order");
	/* shape mismatch: 3 examples, 2 labels */
	write_npy("y2l.npy", 1, "<i8", 0, "(2,)", y8, 16);
	load_bad(DS_NPY, "x.npy", "y2l.npy", 0, 4, 3, WSE_ERROR_MALFORMED, "shape mismatch",
		 "x.npy has 3 examples but");
	/* a label outside the classes, negative and too large (offset: the
	 * 128-byte header, then 4 bytes per label) */
	int32_t yn[3] = { 0, 1, -1 };

	write_npy("yn.npy", 1, "<i4", 0, "(3,)", yn, sizeof(yn));
	load_bad(DS_NPY, "x.npy", "yn.npy", 0, 4, 3, WSE_ERROR_MALFORMED, "yn.npy: offset 136",
		 "label -1 of example 2 outside 0..2");
	/* and [3, 2, 2] is 4 inputs, not 5 */
	model_mismatch(DS_NPY, "x.npy", "y.npy", 4, 3, "y.npy: offset 144",
		       "label 2 of example 2 outside 0..1 (model.layers' last width: 2 classes)",
		       "examples have 4 inputs, but the model's input width (model.layers' first) is 5");
	/* truncation: data, header, magic; trailing bytes */
	write_npy("tr.npy", 1, "<f4", 0, "(3, 4)", x, 40);
	npy_bad_x("tr.npy", WSE_ERROR_TRUNCATED, "tr.npy: offset 168",
		  "truncated: 40 data bytes, the shape needs 48");
	FILE *f = fopen(path("tr.npy"), "r+b");

	assert_int_equal(ftruncate(fileno(f), 30), 0);
	fclose(f);
	npy_bad_x("tr.npy", WSE_ERROR_TRUNCATED, "tr.npy: offset 30",
		  "truncated: the header is 118 bytes long");
	write_text("tr.npy", "\x93NUM");
	npy_bad_x("tr.npy", WSE_ERROR_TRUNCATED, "tr.npy: offset 0", "truncated");
	write_npy("long.npy", 1, "<f4", 0, "(2, 4)", x, sizeof(x));
	npy_bad_x("long.npy", WSE_ERROR_MALFORMED, "long.npy: offset 160",
		  "16 bytes past the data");
	/* not .npy; an unknown version */
	write_text("txt.npy", "just some text, not numpy");
	npy_bad_x("txt.npy", WSE_ERROR_BAD_MAGIC, "txt.npy: offset 0", "not a .npy file");
	write_npy("v3.npy", 4, "<f4", 0, "(3, 4)", x, sizeof(x));
	npy_bad_x("v3.npy", WSE_ERROR_VERSION, "v3.npy: offset 6", "version 4.0");
}

static void test_csv(void **state)
{
	(void)state;
	struct fm_data d;

	/* a header line, the label in column 1, blank lines and CRLF */
	write_text("a.csv", "f0,label,f1,f2\n0.5,2,1,-3e-1\r\n\n1, 0 ,2,3\n-1,1,0,0.25\n");
	load_ok(DS_CSV, "a.csv", NULL, 1, 3, 3, &d);
	assert_int_equal(d.n, 3);
	float want[9] = { 0.5f, 1, -0.3f, 1, 2, 3, -1, 0, 0.25f };

	assert_memory_equal(d.x, want, sizeof(want));
	assert_int_equal(d.y[0], 2);
	assert_int_equal(d.y[1], 0);
	assert_int_equal(d.y[2], 1);
	fm_free(&d);
	/* no header, the label last */
	write_text("b.csv", "1,2,1\n3,4,0\n");
	load_ok(DS_CSV, "b.csv", NULL, DS_LAST_COLUMN, 2, 2, &d);
	assert_int_equal(d.n, 2);
	assert_true(d.x[2] == 3.0f && d.y[0] == 1 && d.y[1] == 0);
	fm_free(&d);
	/* errors by line */
	write_text("c.csv", "a,b,c\n1,2,1\n1,x,0\n");
	load_bad(DS_CSV, "c.csv", NULL, 2, 2, 2, WSE_ERROR_MALFORMED, "c.csv:3:",
		 "field 2 'x' is not a number");
	write_text("c.csv", "1,2,1\n1,2\n");
	load_bad(DS_CSV, "c.csv", NULL, 2, 2, 2, WSE_ERROR_INVALID_PARAM, "c.csv:2:",
		 "2 fields; the model's 2 inputs and the label make 3");
	write_text("c.csv", "1,2,1\n1,2,7\n");
	load_bad(DS_CSV, "c.csv", NULL, 2, 2, 3, WSE_ERROR_MALFORMED, "c.csv:2:",
		 "label 7 outside 0..2");
	write_text("c.csv", "1,2,1.5\n");
	load_bad(DS_CSV, "c.csv", NULL, 2, 2, 3, WSE_ERROR_MALFORMED, "c.csv:1:", "label 1.5");
	write_text("c.csv", "1,2,1\n");
	load_bad(DS_CSV, "c.csv", NULL, 5, 2, 3, WSE_ERROR_INVALID_PARAM, "c.csv:1:",
		 "data.label_column 5 past the 3 fields");
	write_text("c.csv", "x,y,label\n");
	load_bad(DS_CSV, "c.csv", NULL, 2, 2, 3, WSE_ERROR_MALFORMED, "c.csv", "no examples");
	load_bad(DS_CSV, "none.csv", NULL, 2, 2, 3, WSE_ERROR_NOT_FOUND, "none.csv: cannot open",
		 NULL);
}

/* Params with the data files of dir. */
static const char *params(const char *name, const char *body)
{
	const char *p = path(name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fprintf(f, "%s", body);
	fclose(f);
	return p;
}

static void test_api(void **state)
{
	(void)state;
	enum { N = 40, IN = 3 };
	float x[N * IN];
	int64_t y[N];
	uint64_t rng = 5;

	for (unsigned e = 0; e < N; e++) {
		for (unsigned k = 0; k < IN; k++)
			x[e * IN + k] = tr_uniform(&rng, -1, 1);
		y[e] = x[e * IN] > 0;
	}
	char shape[32];

	snprintf(shape, sizeof(shape), "(%u, %u)", N, IN);
	write_npy("ax.npy", 1, "<f4", 0, shape, x, sizeof(x));
	snprintf(shape, sizeof(shape), "(%u,)", N);
	write_npy("ay.npy", 1, "<i8", 0, shape, y, sizeof(y));
	char body[2048], err[768];

	snprintf(body, sizeof(body),
		 "model.layers = 3, 8, 2\ndata.format = npy\ndata.train_x = %s\ndata.train_y = %s\n"
		 "data.test_x = %s\ndata.test_y = %s\ntrain.batch_size = 8\noptimizer.lr = 0.5\n",
		 path("ax.npy"), path("ay.npy"), path("ax.npy"), path("ay.npy"));
	wse_train *t, *u;
	struct wse_train_metrics m = { .size = sizeof(m) };

	assert_int_equal(wse_train_create(&t, params("a.params", body), NULL, err, sizeof(err)), 0);
	for (unsigned s = 0; s < 30; s++)
		assert_int_equal(wse_train_step(t, &m), 0);
	assert_int_equal(wse_train_eval(t, 0, &m), 0);
	assert_int_equal(m.examples, N);
	print_message("  npy model: accuracy %u/%u after 30 steps\n", m.correct, m.examples);
	assert_true(m.correct >= N * 3 / 4);
	/* the same from a spec, without a test split */
	struct wse_train_spec s;

	wse_train_spec_init(&s, sizeof(s));
	s.num_layers = 2;
	s.widths[0] = 3;
	s.widths[1] = 8;
	s.widths[2] = 2;
	s.batch_size = 8;
	s.lr = 0.5f;
	s.data_format = "npy";
	s.data_train_x = path("ax.npy");
	s.data_train_y = path("ay.npy");
	assert_int_equal(wse_train_create_model(&u, &s, NULL, err, sizeof(err)), 0);
	for (unsigned k = 0; k < 30; k++)
		assert_int_equal(wse_train_step(u, &m), 0);
	float wa[24], wb[24];

	assert_int_equal(wse_train_get_tensor(t, "layer0.weight", wa, 24), 0);
	assert_int_equal(wse_train_get_tensor(u, "layer0.weight", wb, 24), 0);
	assert_memory_equal(wa, wb, sizeof(wa));
	assert_int_equal(wse_train_eval(u, 0, &m), WSE_ERROR_NOT_FOUND);
	assert_non_null(strstr(wse_train_last_error(u), "no test split"));
	wse_train_destroy(t);
	wse_train_destroy(u);
	/* bad data keys and files */
	static const struct {
		const char *body;
		int code;
		const char *needle;
	} bad[] = {
		{ "data.format = parquet\n", WSE_ERROR_INVALID_PARAM,
		  "data.format = 'parquet': must be fmnist, idx, npy or csv" },
		{ "data.format = npy\ndata.dir = /tmp\n", WSE_ERROR_INVALID_PARAM,
		  "data.dir is for data.format = fmnist" },
		{ "data.format = npy\n", WSE_ERROR_INVALID_PARAM, "data.train_x): required" },
		{ "data.format = npy\ndata.train_x = a.npy\n", WSE_ERROR_INVALID_PARAM,
		  "needs a labels file for each inputs file" },
		{ "data.format = csv\ndata.train_x = a.csv\ndata.train_y = b.csv\n",
		  WSE_ERROR_INVALID_PARAM, "not with data_format (data.format) csv" },
		{ "data.format = csv\ndata.train_x = a.csv\ndata.pool = 2\n", WSE_ERROR_INVALID_PARAM,
		  "pooling is for data_format fmnist" },
		{ "data.train_x = a.npy\n", WSE_ERROR_INVALID_PARAM,
		  "only with data.format idx, npy or csv" },
		{ "data.format = csv\ndata.label_column = first\n", WSE_ERROR_INVALID_PARAM,
		  "must be a column number from 0, or last" },
		{ "data.format = npy\ndata.train_x = /nonexistent/x.npy\ndata.train_y = y.npy\n",
		  WSE_ERROR_NOT_FOUND, "dataset file /nonexistent/x.npy: cannot open" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(body, sizeof(body), "model.layers = 3, 8, 2\n%s", bad[k].body);
		int rc = wse_train_create(&t, params("bad.params", body), NULL, err, sizeof(err));

		print_message("  -> %s\n", err);
		assert_int_equal(rc, bad[k].code);
		assert_null(t);
		assert_non_null(strstr(err, bad[k].needle));
	}
	/* a bad file found at create: the handle is not made */
	snprintf(body, sizeof(body),
		 "model.layers = 3, 8, 3\ndata.format = npy\ndata.train_x = %s\ndata.train_y = %s\n",
		 path("ax.npy"), path("f8.npy"));
	write_npy("f8.npy", 1, "<f8", 0, "(3,)", x, 24);
	assert_int_equal(wse_train_create(&t, params("bad.params", body), NULL, err, sizeof(err)),
			 WSE_ERROR_MALFORMED);
	assert_non_null(strstr(err, "f8.npy: offset 20: wrong dtype '<f8'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idx),
		cmocka_unit_test(test_npy),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_api),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

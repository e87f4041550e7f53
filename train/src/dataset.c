/* SPDX-License-Identifier: Apache-2.0 */
/* dataset.c - IDX, NumPy .npy and CSV datasets (dataset.h). */
#define _GNU_SOURCE
#include "dataset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"


int ds_format_parse(const char *name, enum ds_format *f)
{
	static const char *const names[] = { "fmnist", "idx", "npy", "csv" };

	if (!name) {
		*f = DS_FMNIST;
		return 0;
	}
	for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k])) {
			*f = (enum ds_format)k;
			return 0;
		}
	return -1;
}

/* An array read from a file, before conversion. */
struct ds_arr {
	const char *path;
	char kind;            /* 'f' float, 'u' unsigned, 'i' signed integer */
	unsigned esize;       /* bytes per element */
	int big;              /* big-endian elements (IDX) */
	unsigned ndim;
	uint64_t dims[FM_IDX_MAX_DIMS];
	size_t count;
	size_t off;           /* offset of the data in the file */
	size_t dtype_off;     /* where the file states the type */
	uint8_t *buf;         /* owned */
	const uint8_t *data;
};

static uint64_t ds_raw(const struct ds_arr *a, size_t k)
{
	const uint8_t *p = a->data + k * a->esize;
	uint64_t v = 0;

	for (unsigned b = 0; b < a->esize; b++)
		v |= (uint64_t)p[a->big ? a->esize - 1 - b : b] << (8 * b);
	return v;
}

static float ds_float(const struct ds_arr *a, size_t k)
{
	if (a->kind == 'u')
		return (float)a->data[k] / 255.0f;
	uint32_t u = (uint32_t)ds_raw(a, k);
	float x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* The inputs of x and the labels of y into out, checked against the model. */
static int ds_fill(const struct ds_arr *x, const struct ds_arr *y, uint32_t width,
		   uint32_t classes, struct fm_data *out, char *err, size_t errlen)
{
	uint64_t n = x->dims[0], w = 1;

	for (unsigned d = 1; d < x->ndim; d++)
		w *= x->dims[d];
	if (n > UINT32_MAX)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "dataset file %s: %llu examples, more than %u", x->path,
			       (unsigned long long)n, UINT32_MAX);
	if (w != width)
		return fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "dataset file %s: examples have %llu inputs, but the model's input width (model.layers' first) is %u",
			       x->path, (unsigned long long)w, width);
	if (y->kind == 'f')
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "dataset file %s: offset %zu: wrong dtype: labels must be integers",
			       y->path, y->dtype_off);
	if (y->ndim != 1 && !(y->ndim == 2 && y->dims[1] == 1))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "dataset file %s: labels have %u dimensions; expected one label per example (shape (n,))",
			       y->path, y->ndim);
	if (y->dims[0] != n)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "dataset: shape mismatch: %s has %llu examples but %s has %llu labels",
			       x->path, (unsigned long long)n, y->path,
			       (unsigned long long)y->dims[0]);
	out->x = malloc((size_t)n * w * sizeof(float) + 1);
	out->y = malloc((size_t)n + 1);
	if (!out->x || !out->y)
		return fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset file %s: no memory",
			       x->path);
	for (uint64_t e = 0; e < n; e++) {
		uint64_t v = ds_raw(y, e);
		int neg = 0;

		if (y->kind == 'i' && y->esize < 8 && (v >> (8 * y->esize - 1)))
			neg = 1; /* sign bit set */
		if (y->kind == 'i' && y->esize == 8 && (int64_t)v < 0)
			neg = 1;
		if (neg || v >= classes) {
			long long s = neg ? (long long)(v | ~0ull << (8 * y->esize - 1)) : 0;

			if (neg)
				return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
					       "dataset file %s: offset %zu: label %lld of example %llu outside 0..%u (model.layers' last width: %u classes)",
					       y->path, y->off + (size_t)e * y->esize, s,
					       (unsigned long long)e, classes - 1, classes);
			return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				       "dataset file %s: offset %zu: label %llu of example %llu outside 0..%u (model.layers' last width: %u classes)",
				       y->path, y->off + (size_t)e * y->esize, (unsigned long long)v,
				       (unsigned long long)e, classes - 1, classes);
		}
		out->y[e] = (uint8_t)v;
	}
	for (size_t k = 0; k < (size_t)n * w; k++)
		out->x[k] = ds_float(x, k);
	out->n = (uint32_t)n;
	out->features = width;
	return 0;
}

/* ---- IDX (fmnist.c's reader) -------------------------------------------- */

static int idx_read(const char *path, struct ds_arr *a, char *err, size_t errlen)
{
	struct fm_idx ix;
	int rc = fm_read_idx(path, 0, &ix, (size_t)1 << 34, err, errlen);

	if (rc)
		return rc;
	a->path = path;
	a->kind = ix.type == FM_IDX_FLOAT ? 'f' : 'u';
	a->esize = ix.type == FM_IDX_FLOAT ? 4 : 1;
	a->big = 1;
	a->ndim = ix.ndim;
	for (unsigned d = 0; d < ix.ndim; d++)
		a->dims[d] = ix.dims[d];
	a->count = ix.count;
	a->off = ix.data_offset;
	a->dtype_off = 2;
	a->buf = ix.data;
	a->data = ix.data;
	return 0;
}

/* ---- NumPy .npy ------------------------------------------------------------ */

int ds_slurp(const char *path, const char *name, uint8_t **buf, size_t *size, char *err,
	     size_t errlen)
{
	FILE *f = fopen(path, "rb");

	*buf = NULL;
	*size = 0;
	if (!f)
		return fm_fail(err, errlen, errno == ENOENT ? WSE_ERROR_NOT_FOUND : WSE_ERROR_IO,
			       "%s: cannot open: %s", name, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);

	while (b) {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
		size_t k = fread(b + n, 1, cap - n, f);

		n += k;
		if (k == 0)
			break;
	}
	int bad = ferror(f);

	fclose(f);
	if (!b)
		return fm_fail(err, errlen, WSE_ERROR_NO_MEM, "%s: no memory", name);
	if (bad) {
		free(b);
		return fm_fail(err, errlen, WSE_ERROR_IO, "%s: read error", name);
	}
	*buf = b;
	*size = n;
	return 0;
}

/* The value of 'key' in the header dict hdr: a pointer after the colon
 * and blanks, or NULL. */
static const char *npy_key(const char *hdr, const char *key)
{
	const char *p = strstr(hdr, key);

	if (!p)
		return NULL;
	p += strlen(key);
	while (*p == ' ')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

/* The header dict's 'fortran_order' and 'shape' into h; 0 or an error. */
static int npy_dict(const char *name, const char *hdr, size_t hs, struct ds_npy *h, char *err,
		    size_t errlen)
{
	const char *d = npy_key(hdr, "'descr'"), *fo = npy_key(hdr, "'fortran_order'"),
		   *sh = npy_key(hdr, "'shape'");

	if (!d || !fo || !sh || *d != '\'' || *sh != '(')
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: header is not a dict with 'descr', 'fortran_order' and 'shape'",
			       name, hs);
	h->descr_off = hs + (size_t)(d - hdr);
	const char *q = strchr(d + 1, '\'');

	if (q && q - d - 1 < (long)sizeof(h->descr))
		memcpy(h->descr, d + 1, (size_t)(q - d - 1));
	if (strncmp(fo, "False", 5))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: Fortran order; only C order is read (numpy.ascontiguousarray)",
			       name, hs + (size_t)(fo - hdr));
	const char *p = sh + 1;

	h->count = 1;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p || h->ndim == FM_IDX_MAX_DIMS || v > UINT32_MAX)
			return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				       "%s: offset %zu: shape not read (at most %u dimensions, each below 2^32)",
				       name, hs + (size_t)(sh - hdr), FM_IDX_MAX_DIMS);
		h->dims[h->ndim++] = v;
		h->count *= (size_t)v;
		p = end;
	}
	return 0;
}

int ds_npy_parse(const char *name, const uint8_t *b, size_t size, size_t base, struct ds_npy *h,
		 char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (size < 8 || memcmp(b, "\x93NUMPY", 6))
		return fm_fail(err, errlen, size < 8 ? WSE_ERROR_TRUNCATED : WSE_ERROR_BAD_MAGIC,
			       "%s: offset %zu: %s", name, base,
			       size < 8 ? "truncated: shorter than the .npy magic"
					: "not a .npy file (no \\x93NUMPY magic)");
	unsigned hs = b[6] == 1 ? 10 : 12;

	if (b[6] != 1 && b[6] != 2)
		return fm_fail(err, errlen, WSE_ERROR_VERSION,
			       "%s: offset %zu: .npy version %u.%u; versions 1.0 and 2.0 are read", name,
			       base + 6, b[6], b[7]);
	if (size < hs)
		return fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "%s: offset %zu: truncated in the header length", name, base + size);
	size_t hl = b[8] | (size_t)b[9] << 8;

	if (hs == 12)
		hl |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
	if (size < hs + hl)
		return fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "%s: offset %zu: truncated: the header is %zu bytes long", name,
			       base + size, hl);
	char *hdr = strndup((const char *)b + hs, hl);

	if (!hdr)
		return fm_fail(err, errlen, WSE_ERROR_NO_MEM, "%s: no memory", name);
	int rc = npy_dict(name, hdr, base + hs, h, err, errlen);

	free(hdr);
	h->off = base + hs + hl;
	return rc;
}

int ds_npy_data(const char *name, const struct ds_npy *h, size_t esize, size_t end, char *err,
		size_t errlen)
{
	size_t want = h->count * esize, have = end - h->off;

	if (have < want)
		return fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "%s: offset %zu: truncated: %zu data bytes, the shape needs %zu", name,
			       end, have, want);
	if (have > want)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: %zu bytes past the data the shape says", name,
			       h->off + want, have - want);
	return 0;
}

/* Read a .npy file; inputs (is_x) must be '<f4' or '|u1', labels any
 * integer type of 1..8 bytes, little-endian. */
static int npy_read(const char *path, int is_x, struct ds_arr *a, char *err, size_t errlen)
{
	size_t size;
	char name[1100];
	struct ds_npy h;

	snprintf(name, sizeof(name), "dataset file %s", path);
	int rc = ds_slurp(path, name, &a->buf, &size, err, errlen);

	if (rc)
		return rc;
	a->path = path;
	rc = ds_npy_parse(name, a->buf, size, 0, &h, err, errlen);
	if (rc)
		return rc;
	const char *dt = h.descr;
	char order = dt[0], kind = dt[0] ? dt[1] : 0;
	unsigned es = dt[0] && dt[1] ? (unsigned)atoi(dt + 2) : 0;
	int one = es == 1 && (order == '|' || order == '<' || order == '=');
	int little = one || (es > 1 && (order == '<' || order == '='));

	if (is_x && !((kind == 'f' && es == 4 && little) || (kind == 'u' && one)))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: wrong dtype '%s': inputs must be float32 ('<f4') or uint8 ('|u1')",
			       name, h.descr_off, dt);
	if (!is_x && !((kind == 'i' || kind == 'u') && little &&
		       (es == 1 || es == 2 || es == 4 || es == 8)))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: wrong dtype '%s': labels must be little-endian integers of 8 to 64 bits ('<i8', '|u1', ...)",
			       name, h.descr_off, dt);
	if (h.ndim == 0)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: shape (): a scalar, not examples", name, h.descr_off);
	rc = ds_npy_data(name, &h, es, size, err, errlen);
	if (rc)
		return rc;
	a->kind = kind;
	a->esize = es;
	a->dtype_off = h.descr_off;
	a->ndim = h.ndim;
	memcpy(a->dims, h.dims, sizeof(a->dims));
	a->count = h.count;
	a->off = h.off;
	a->data = a->buf + a->off;
	return 0;
}

/* ---- CSV ------------------------------------------------------------------- */

/* The fields of line (modified in place) into f[]; returns their count,
 * or more than max when there are too many. */
static unsigned csv_split(char *line, char **f, unsigned max)
{
	unsigned n = 0;

	for (char *p = line;; p++) {
		if (n < max)
			f[n] = p;
		n++;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = 0;
	}
	return n;
}

static int csv_num(const char *s, double *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return end == s || *end || errno == ERANGE;
}

static int csv_read(const char *path, uint32_t label_column, uint32_t width, uint32_t classes,
		    struct fm_data *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return fm_fail(err, errlen, errno == ENOENT ? WSE_ERROR_NOT_FOUND : WSE_ERROR_IO,
			       "dataset file %s: cannot open: %s", path, strerror(errno));
	unsigned max = width + 1;
	char **fld = malloc((size_t)max * sizeof(char *));
	char *line = NULL;
	size_t cap = 0, ncap = 0;
	unsigned long ln = 0;
	uint32_t n = 0, lc = 0;
	int rc = 0;

	if (!fld) {
		fclose(f);
		return fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset file %s: no memory", path);
	}
	while (getline(&line, &cap, f) > 0) {
		ln++;
		size_t len = strlen(line);

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		unsigned nf = csv_split(line, fld, max);

		if (nf != max) {
			rc = fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
				     "dataset file %s:%lu: %u fields; the model's %u inputs and the label make %u",
				     path, ln, nf, width, max);
			break;
		}
		lc = label_column == DS_LAST_COLUMN ? max - 1 : label_column;
		if (lc >= max) {
			rc = fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
				     "dataset file %s:%lu: data.label_column %u past the %u fields",
				     path, ln, label_column, max);
			break;
		}
		double v, lab = 0;
		unsigned bad = max;

		for (unsigned k = 0; k < max && bad == max; k++)
			if (csv_num(fld[k], k == lc ? &lab : &v))
				bad = k;
		if (bad < max && ln == 1 && n == 0)
			continue; /* a header line */
		if (bad < max) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "dataset file %s:%lu: field %u '%s' is not a number", path, ln,
				     bad + 1, fld[bad]);
			break;
		}
		if (lab != floor(lab) || lab < 0 || lab >= classes) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "dataset file %s:%lu: label %s outside 0..%u (model.layers' last width: %u classes)",
				     path, ln, fld[lc], classes - 1, classes);
			break;
		}
		if (n == ncap) {
			size_t nc = ncap ? 2 * ncap : 256;
			float *nx = realloc(out->x, nc * width * sizeof(float));

			if (nx)
				out->x = nx;
			uint8_t *ny = nx ? realloc(out->y, nc) : NULL;

			if (ny)
				out->y = ny;
			if (!nx || !ny || n == UINT32_MAX) {
				rc = fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset file %s:%lu: no memory",
					     path, ln);
				break;
			}
			ncap = nc;
		}
		float *x = out->x + (size_t)n * width;

		for (unsigned k = 0; k < max; k++)
			if (k != lc) {
				csv_num(fld[k], &v);
				*x++ = (float)v;
			}
		out->y[n++] = (uint8_t)lab;
	}
	if (!rc && ferror(f))
		rc = fm_fail(err, errlen, WSE_ERROR_IO, "dataset file %s:%lu: read error", path, ln);
	if (!rc && n == 0)
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED, "dataset file %s: no examples", path);
	free(line);
	free(fld);
	fclose(f);
	out->n = n;
	out->features = width;
	return rc;
}

int ds_load(enum ds_format f, const char *xpath, const char *ypath, uint32_t label_column,
	    uint32_t width, uint32_t classes, struct fm_data *out, char *err, size_t errlen)
{
	struct ds_arr x, y;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	if (f == DS_CSV)
		rc = csv_read(xpath, label_column, width, classes, out, err, errlen);
	else if (f == DS_IDX || f == DS_NPY) {
		rc = f == DS_IDX ? idx_read(xpath, &x, err, errlen) : npy_read(xpath, 1, &x, err, errlen);
		if (!rc)
			rc = f == DS_IDX ? idx_read(ypath, &y, err, errlen)
					 : npy_read(ypath, 0, &y, err, errlen);
	} else
		rc = fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM, "dataset: unknown format");
	if (!rc && f != DS_CSV)
		rc = ds_fill(&x, &y, width, classes, out, err, errlen);
	free(x.buf);
	free(y.buf);
	if (rc)
		fm_free(out);
	return rc;
}

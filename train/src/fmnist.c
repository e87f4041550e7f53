/* SPDX-License-Identifier: Apache-2.0 */
/* fmnist.c - Fashion-MNIST loader (fmnist.h). */
#include "fmnist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "wsehost.h"

int fm_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int fm_read_idx(const char *path, uint32_t magic, struct fm_idx *out, size_t max_bytes,
		char *err, size_t errlen)
{
	gzFile g = gzopen(path, "rb");
	uint8_t hdr[4 + 4 * FM_IDX_MAX_DIMS];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!g)
		return fm_fail(err, errlen, WSE_ERROR_NOT_FOUND,
			       "dataset file %s: cannot open: %s%s", path,
			       errno ? strerror(errno) : "no memory",
			       magic ? " (install Debian's dataset-fashion-mnist or set data.dir)" : "");
	int k = gzread(g, hdr, 4);
	int zerr;
	const char *m;

	if (k != 4) {
		m = gzerror(g, &zerr);
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: offset %d: truncated or not gzip IDX (header: %s)", path,
			     k > 0 ? k : 0, zerr ? m : "end of file");
		goto out;
	}
	uint32_t got_magic = be32(hdr);

	out->type = hdr[2];
	out->ndim = hdr[3];
	if (magic && got_magic != magic) {
		rc = fm_fail(err, errlen, WSE_ERROR_BAD_MAGIC,
			     "dataset file %s: IDX magic 0x%08x, expected 0x%08x", path,
			     got_magic, magic);
		goto out;
	}
	if (hdr[0] || hdr[1] || (out->type != FM_IDX_UBYTE && out->type != FM_IDX_FLOAT) ||
	    out->ndim < 1 || out->ndim > FM_IDX_MAX_DIMS) {
		rc = fm_fail(err, errlen, WSE_ERROR_BAD_MAGIC,
			     "dataset file %s: offset 0: IDX magic 0x%08x: not IDX data of type ubyte (0x08) or float32 (0x0d) with 1..%u dimensions",
			     path, got_magic, FM_IDX_MAX_DIMS);
		goto out;
	}
	unsigned hb = 4 + 4 * out->ndim;

	k = gzread(g, hdr + 4, hb - 4);
	if (k != (int)hb - 4) {
		m = gzerror(g, &zerr);
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: offset %d: truncated or not gzip IDX (header: %s)", path,
			     4 + (k > 0 ? k : 0), zerr ? m : "end of file");
		goto out;
	}
	size_t esize = out->type == FM_IDX_FLOAT ? 4 : 1, want = esize;

	out->count = 1;
	for (unsigned d = 0; d < out->ndim; d++) {
		out->dims[d] = be32(hdr + 4 + 4 * d);
		if (out->dims[d] == 0 || want > max_bytes / out->dims[d]) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "dataset file %s: offset %u: dimension %u = %u out of range", path,
				     4 + 4 * d, d, out->dims[d]);
			goto out;
		}
		want *= out->dims[d];
		out->count *= out->dims[d];
	}
	out->data = malloc(want + 1);
	if (!out->data) {
		rc = fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset file %s: no memory", path);
		goto out;
	}
	size_t got = 0;

	while (got < want + 1) {
		size_t chunk = want + 1 - got;

		if (chunk > (1u << 30))
			chunk = 1u << 30;
		k = gzread(g, out->data + got, (unsigned)chunk);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	zerr = 0;
	m = gzerror(g, &zerr);
	if (zerr != Z_OK && zerr != Z_STREAM_END) {
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: offset %zu: corrupt or truncated gzip data: %s", path,
			     hb + got, m);
		goto out;
	}
	if (got < want) {
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: offset %zu: truncated: %zu data bytes, the IDX header says %zu",
			     path, hb + got, got, want);
		goto out;
	}
	if (got > want) {
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			     "dataset file %s: offset %zu: more data than the %zu bytes the IDX header says",
			     path, hb + want, want);
		goto out;
	}
	out->data_offset = hb;
	rc = 0;
out:
	gzclose(g);
	if (rc)
		fm_idx_free(out);
	return rc;
}

void fm_idx_free(struct fm_idx *x)
{
	free(x->data);
	memset(x, 0, sizeof(*x));
}

int fm_load(const char *dir, int train, unsigned pool, struct fm_data *out,
	    char *err, size_t errlen)
{
	char ip[4096], lp[4096];
	struct fm_idx ix, lx;
	uint32_t *idim = ix.dims, *ldim = lx.dims;
	uint8_t *img, *lab;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!dir || (pool != 1 && pool != 2))
		return fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "dataset: pool must be 1 or 2 (got %u)", pool);
	const char *pre = train ? "train" : "t10k";

	snprintf(ip, sizeof(ip), "%s/%s-images-idx3-ubyte.gz", dir, pre);
	snprintf(lp, sizeof(lp), "%s/%s-labels-idx1-ubyte.gz", dir, pre);
	memset(&lx, 0, sizeof(lx));
	rc = fm_read_idx(ip, 0x00000803u, &ix, (size_t)1 << 31, err, errlen);
	if (rc)
		return rc;
	img = ix.data;
	rc = fm_read_idx(lp, 0x00000801u, &lx, (size_t)1 << 31, err, errlen);
	lab = lx.data;
	if (rc)
		goto out;
	if (idim[1] != 28 || idim[2] != 28) {
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			     "dataset file %s: images are %ux%u, expected 28x28", ip, idim[1],
			     idim[2]);
		goto out;
	}
	if (ldim[0] != idim[0]) {
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			     "dataset: %s has %u images but %s has %u labels", ip, idim[0], lp,
			     ldim[0]);
		goto out;
	}
	for (uint32_t e = 0; e < ldim[0]; e++)
		if (lab[e] > 9) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "dataset file %s: label %u of example %u out of range 0..9",
				     lp, lab[e], e);
			goto out;
		}
	uint32_t side = 28 / pool, nf = side * side, n = idim[0];

	out->x = malloc((size_t)n * nf * sizeof(float));
	if (!out->x) {
		rc = fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset: no memory");
		goto out;
	}
	for (uint32_t e = 0; e < n; e++) {
		const uint8_t *p = img + (size_t)e * 784;
		float *x = out->x + (size_t)e * nf;

		for (uint32_t r = 0; r < side; r++)
			for (uint32_t c = 0; c < side; c++) {
				if (pool == 1) {
					x[r * side + c] = (float)p[r * 28 + c] / 255.0f;
				} else {
					unsigned s = p[(2 * r) * 28 + 2 * c] +
						     p[(2 * r) * 28 + 2 * c + 1] +
						     p[(2 * r + 1) * 28 + 2 * c] +
						     p[(2 * r + 1) * 28 + 2 * c + 1];
					x[r * side + c] = (float)s / 1020.0f;
				}
			}
	}
	out->n = n;
	out->features = nf;
	out->y = lab;
	lx.data = NULL;
	rc = 0;
out:
	fm_idx_free(&ix);
	fm_idx_free(&lx);
	if (rc)
		fm_free(out);
	return rc;
}

void fm_free(struct fm_data *d)
{
	if (!d)
		return;
	free(d->x);
	free(d->y);
	memset(d, 0, sizeof(*d));
}

uint64_t fm_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void fm_epoch_order(uint32_t n, int shuffle, uint64_t seed, uint64_t epoch,
		    uint32_t *perm)
{
	for (uint32_t k = 0; k < n; k++)
		perm[k] = k;
	if (!shuffle)
		return;
	uint64_t st = seed + epoch * 0x9E3779B97F4A7C15ull;

	for (uint32_t k = n; k > 1; k--) {
		uint32_t j = (uint32_t)(fm_splitmix64(&st) % k);
		uint32_t t = perm[k - 1];

		perm[k - 1] = perm[j];
		perm[j] = t;
	}
}

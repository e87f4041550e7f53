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

static int fm_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fm_fail(char *err, size_t errlen, int code, const char *fmt, ...)
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

/* Read a whole gzip file; exactly `want` bytes must follow the header of
 * hdr_bytes, nothing more. */
static int read_idx(const char *path, uint32_t magic, unsigned ndims,
		    uint32_t *dims, uint8_t **data, size_t max_bytes, char *err,
		    size_t errlen)
{
	gzFile g = gzopen(path, "rb");
	uint8_t hdr[16];
	int rc;

	*data = NULL;
	if (!g)
		return fm_fail(err, errlen, WSE_ERROR_NOT_FOUND,
			       "dataset file %s: cannot open: %s (install Debian's dataset-fashion-mnist or set data.dir)",
			       path, errno ? strerror(errno) : "no memory");
	unsigned hb = 4 + 4 * ndims;
	int k = gzread(g, hdr, hb);

	if (k != (int)hb) {
		int zerr;
		const char *m = gzerror(g, &zerr);

		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: truncated or not gzip IDX (header: %s)", path,
			     zerr ? m : "end of file");
		goto out;
	}
	if (be32(hdr) != magic) {
		rc = fm_fail(err, errlen, WSE_ERROR_BAD_MAGIC,
			     "dataset file %s: IDX magic 0x%08x, expected 0x%08x", path,
			     be32(hdr), magic);
		goto out;
	}
	size_t want = 1;

	for (unsigned d = 0; d < ndims; d++) {
		dims[d] = be32(hdr + 4 + 4 * d);
		if (dims[d] == 0 || want > max_bytes / dims[d]) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "dataset file %s: dimension %u = %u out of range", path, d,
				     dims[d]);
			goto out;
		}
		want *= dims[d];
	}
	*data = malloc(want + 1);
	if (!*data) {
		rc = fm_fail(err, errlen, WSE_ERROR_NO_MEM, "dataset file %s: no memory", path);
		goto out;
	}
	size_t got = 0;

	while (got < want + 1) {
		size_t chunk = want + 1 - got;

		if (chunk > (1u << 30))
			chunk = 1u << 30;
		k = gzread(g, *data + got, (unsigned)chunk);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	int zerr = 0;
	const char *m = gzerror(g, &zerr);

	if (zerr != Z_OK && zerr != Z_STREAM_END) {
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: corrupt or truncated gzip data: %s", path, m);
		goto out;
	}
	if (got < want) {
		rc = fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "dataset file %s: %zu data bytes, the IDX header says %zu", path,
			     got, want);
		goto out;
	}
	if (got > want) {
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			     "dataset file %s: more data than the %zu bytes the IDX header says",
			     path, want);
		goto out;
	}
	rc = 0;
out:
	gzclose(g);
	if (rc) {
		free(*data);
		*data = NULL;
	}
	return rc;
}

int fm_load(const char *dir, int train, unsigned pool, struct fm_data *out,
	    char *err, size_t errlen)
{
	char ip[4096], lp[4096];
	uint32_t idim[3], ldim[1];
	uint8_t *img = NULL, *lab = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!dir || (pool != 1 && pool != 2))
		return fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "dataset: pool must be 1 or 2 (got %u)", pool);
	const char *pre = train ? "train" : "t10k";

	snprintf(ip, sizeof(ip), "%s/%s-images-idx3-ubyte.gz", dir, pre);
	snprintf(lp, sizeof(lp), "%s/%s-labels-idx1-ubyte.gz", dir, pre);
	rc = read_idx(ip, 0x00000803u, 3, idim, &img, (size_t)1 << 31, err, errlen);
	if (rc)
		return rc;
	rc = read_idx(lp, 0x00000801u, 1, ldim, &lab, (size_t)1 << 31, err, errlen);
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
	lab = NULL;
	rc = 0;
out:
	free(img);
	free(lab);
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

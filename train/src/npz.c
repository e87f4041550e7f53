/* SPDX-License-Identifier: Apache-2.0 */
/* npz.c - tensors as NumPy .npz (npz.h): zip "stored" entries only. */
#define _GNU_SOURCE
#include "npz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset.h"
#include "fmnist.h"
#include "wsehost.h"

/* tensors are written and read as the host's float bytes */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npz.c: little-endian hosts only"
#endif

#define ZIP_LOCAL   0x04034b50u
#define ZIP_CENTRAL 0x02014b50u
#define ZIP_END     0x06054b50u
#define ZIP_DATE    0x0021u /* 1980-01-01, the earliest DOS date */
#define ZIP_VERSION 20u     /* 2.0: stored entries */

uint32_t npz_crc32(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	static int ready;
	const uint8_t *b = p;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		for (uint32_t k = 0; k < 256; k++) {
			uint32_t c = k;

			for (int j = 0; j < 8; j++)
				c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			table[k] = c; /* every thread writes the same values */
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	crc = ~crc;
	for (size_t k = 0; k < n; k++)
		crc = table[(crc ^ b[k]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
}

static unsigned rd16(const uint8_t *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

/* "(2, 3)" or "(3,)" into buf. */
static void fmt_shape(char *buf, size_t size, unsigned ndim, const uint64_t *dims)
{
	size_t n = (size_t)snprintf(buf, size, "(");

	for (unsigned d = 0; d < ndim && n < size; d++)
		n += (size_t)snprintf(buf + n, size - n, "%s%llu", d ? ", " : "",
				      (unsigned long long)dims[d]);
	if (n < size)
		snprintf(buf + n, size - n, "%s)", ndim == 1 ? "," : "");
}

static void tensor_dims(const struct mx_tensor *x, uint64_t *dims)
{
	for (unsigned d = 0; d < x->ndim; d++)
		dims[d] = x->dims[d];
}

/* The .npy header of tensor x (version 1.0, padded to 64 bytes as numpy
 * pads it) into h; returns its length. */
static size_t npy_header(const struct mx_tensor *x, uint8_t h[192])
{
	char shape[96];
	uint64_t dims[MX_MAX_DIMS];

	tensor_dims(x, dims);
	fmt_shape(shape, sizeof(shape), x->ndim, dims);
	char *dict = (char *)h + 10;
	int k = snprintf(dict, 180, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
			 shape);

	while ((10 + k + 1) % 64)
		dict[k++] = ' ';
	dict[k++] = '\n';
	memcpy(h, "\x93NUMPY\x01\x00", 8);
	le16(h + 8, (unsigned)k);
	return 10 + (size_t)k;
}

/* The local header (30 bytes) or the central one (46) of an entry. */
static size_t zip_header(uint8_t *p, int central, uint32_t crc, uint32_t size, size_t nlen,
			 uint32_t offset)
{
	unsigned o = central ? 2 : 0; /* the central header adds "version made by" */

	memset(p, 0, 46);
	le32(p, central ? ZIP_CENTRAL : ZIP_LOCAL);
	if (central)
		le16(p + 4, ZIP_VERSION);
	le16(p + 4 + o, ZIP_VERSION);
	le16(p + 12 + o, ZIP_DATE);
	le32(p + 14 + o, crc);
	le32(p + 18 + o, size);
	le32(p + 22 + o, size);
	le16(p + 26 + o, (unsigned)nlen);
	if (central)
		le32(p + 42, offset);
	return central ? 46 : 30;
}

static float *data_of(const struct mx_store *st, unsigned k)
{
	return mx_store_data(st, (int)k);
}

int npz_write(const char *path, const struct mx_store *st, char *err, size_t errlen)
{
	char tmp[4200];
	uint32_t crc[MX_MAX_TENSORS], off[MX_MAX_TENSORS], len[MX_MAX_TENSORS];
	uint8_t h[192], z[64];
	int rc = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return fm_fail(err, errlen, WSE_ERROR_INVALID_PARAM, "npz %s: path too long", path);
	FILE *f = fopen(tmp, "wb");

	if (!f)
		return fm_fail(err, errlen, errno == ENOENT ? WSE_ERROR_NOT_FOUND : WSE_ERROR_IO,
			       "npz %s: cannot create: %s", tmp, strerror(errno));
	uint64_t pos = 0;

	for (unsigned k = 0; k < st->n && !rc; k++) {
		const struct mx_tensor *x = &st->t[k];
		size_t hl = npy_header(x, h), nl = strlen(x->name) + 4;
		uint64_t bytes = hl + (uint64_t)x->count * sizeof(float);

		if (bytes > UINT32_MAX || pos > UINT32_MAX) {
			rc = fm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
				     "npz %s: tensor %s: past 4 GiB, beyond a zip without zip64", path,
				     x->name);
			break;
		}
		crc[k] = npz_crc32(npz_crc32(0, h, hl), data_of(st, k), x->count * sizeof(float));
		off[k] = (uint32_t)pos;
		len[k] = (uint32_t)bytes;
		size_t zl = zip_header(z, 0, crc[k], len[k], nl, 0);

		if (fwrite(z, 1, zl, f) != zl || fprintf(f, "%s.npy", x->name) < 0 ||
		    fwrite(h, 1, hl, f) != hl ||
		    fwrite(data_of(st, k), sizeof(float), x->count, f) != x->count)
			rc = fm_fail(err, errlen, WSE_ERROR_IO, "npz %s: write: %s", tmp,
				     strerror(errno));
		pos += zl + nl + bytes;
	}
	uint64_t cd = pos;

	for (unsigned k = 0; k < st->n && !rc; k++) {
		size_t nl = strlen(st->t[k].name) + 4, zl = zip_header(z, 1, crc[k], len[k], nl, off[k]);

		if (fwrite(z, 1, zl, f) != zl || fprintf(f, "%s.npy", st->t[k].name) < 0)
			rc = fm_fail(err, errlen, WSE_ERROR_IO, "npz %s: write: %s", tmp,
				     strerror(errno));
		pos += zl + nl;
	}
	if (!rc && pos > UINT32_MAX)
		rc = fm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
			     "npz %s: past 4 GiB, beyond a zip without zip64", path);
	memset(z, 0, 22);
	le32(z, ZIP_END);
	le16(z + 8, st->n);
	le16(z + 10, st->n);
	le32(z + 12, (uint32_t)(pos - cd));
	le32(z + 16, (uint32_t)cd);
	if (!rc && (fwrite(z, 1, 22, f) != 22 || fflush(f) || fsync(fileno(f))))
		rc = fm_fail(err, errlen, WSE_ERROR_IO, "npz %s: write: %s", tmp, strerror(errno));
	if (fclose(f) && !rc)
		rc = fm_fail(err, errlen, WSE_ERROR_IO, "npz %s: close: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = fm_fail(err, errlen, WSE_ERROR_IO, "npz %s: rename from %s: %s", path, tmp,
			     strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

/* One central-directory entry at cd (within b[0..size)) checked against
 * st; its tensor's index into *tensor and its data into *data. Returns
 * the entry's length in the directory, or a negative error. */
static long npz_entry(const char *path, const uint8_t *b, size_t size, size_t cd,
		      const struct mx_store *st, const uint8_t **data, int *tensor, char *err,
		      size_t errlen)
{
	const uint8_t *p = b + cd;

	if (cd + 46 > size || rd32(p) != ZIP_CENTRAL)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "npz %s: offset %zu: not a zip central directory entry", path, cd);
	unsigned flags = rd16(p + 8), method = rd16(p + 10), nl = rd16(p + 28);
	uint32_t crc = rd32(p + 16), csize = rd32(p + 20), usize = rd32(p + 24), lho = rd32(p + 42);
	size_t elen = 46 + (size_t)nl + rd16(p + 30) + rd16(p + 32);
	char name[MX_NAME_MAX + 8] = "";

	if (cd + elen > size)
		return fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "npz %s: offset %zu: truncated central directory", path, cd);
	memcpy(name, p + 46, nl < sizeof(name) - 1 ? nl : sizeof(name) - 1);
	if (nl < 5 || nl >= sizeof(name) - 1 || strcmp(name + nl - 4, ".npy"))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "npz %s: offset %zu: entry '%s' is not NAME.npy of a tensor", path,
			       cd + 46, name);
	name[nl - 4] = 0;
	int k = mx_store_find(st, name);

	if (k < 0)
		return fm_fail(err, errlen, WSE_ERROR_NOT_FOUND,
			       "npz %s: offset %zu: entry '%s.npy': the model has no tensor '%s'", path,
			       cd + 46, name, name);
	if (method != 0 || (flags & 1))
		return fm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
			       "npz %s: offset %zu: entry '%s.npy' is %s (method %u): only stored entries are read (numpy.savez, not savez_compressed)",
			       path, cd, name, flags & 1 ? "encrypted" : "compressed", method);
	if (csize == 0xffffffffu || usize == 0xffffffffu || lho == 0xffffffffu)
		return fm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
			       "npz %s: offset %zu: entry '%s.npy' is zip64: larger than 4 GiB", path,
			       cd, name);
	const uint8_t *l = b + lho;

	if ((size_t)lho + 30 > size || rd32(l) != ZIP_LOCAL)
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "npz %s: offset %u: entry '%s.npy': no local header", path, lho, name);
	size_t doff = (size_t)lho + 30 + rd16(l + 26) + rd16(l + 28);

	if (csize != usize || doff + csize > size)
		return fm_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "npz %s: offset %zu: entry '%s.npy': truncated (%u bytes past the end)",
			       path, doff, name, (unsigned)(doff + csize > size ? doff + csize - size : 0));
	if (npz_crc32(0, b + doff, csize) != crc)
		return fm_fail(err, errlen, WSE_ERROR_PAYLOAD_CRC,
			       "npz %s: offset %zu: entry '%s.npy': CRC-32 0x%08x, the directory says 0x%08x",
			       path, doff, name, npz_crc32(0, b + doff, csize), crc);
	char ename[MX_NAME_MAX + 4200];
	struct ds_npy h;

	snprintf(ename, sizeof(ename), "npz %s: entry '%s.npy'", path, name);
	int rc = ds_npy_parse(ename, b + doff, csize, doff, &h, err, errlen);

	if (rc)
		return rc;
	const struct mx_tensor *x = &st->t[k];
	int same = h.ndim == x->ndim;

	for (unsigned d = 0; same && d < h.ndim; d++)
		same = h.dims[d] == x->dims[d];
	if (strcmp(h.descr, "<f4"))
		return fm_fail(err, errlen, WSE_ERROR_MALFORMED,
			       "%s: offset %zu: wrong dtype '%s': tensors are float32 ('<f4')", ename,
			       h.descr_off, h.descr);
	if (!same) {
		char got[160], want[160];
		uint64_t dims[MX_MAX_DIMS];

		tensor_dims(x, dims);
		fmt_shape(got, sizeof(got), h.ndim, h.dims);
		fmt_shape(want, sizeof(want), x->ndim, dims);
		return fm_fail(err, errlen, WSE_ERROR_LENGTH,
			       "%s: shape %s, the tensor's is %s", ename, got, want);
	}
	rc = ds_npy_data(ename, &h, 4, doff + csize, err, errlen);
	if (rc)
		return rc;
	*data = b + h.off;
	*tensor = k;
	return (long)elen;
}

int npz_read(const char *path, struct mx_store *st, char *err, size_t errlen)
{
	char name[4200];
	uint8_t *b;
	size_t size;
	const uint8_t *src[MX_MAX_TENSORS] = { 0 };

	snprintf(name, sizeof(name), "npz %s", path);
	int rc = ds_slurp(path, name, &b, &size, err, errlen);

	if (rc)
		return rc;
	/* the end record: the last 22 bytes unless a comment follows it */
	size_t e = size >= 22 ? size - 22 : 0;

	while (size >= 22 && rd32(b + e) != ZIP_END && e > 0 && size - e < 22 + 65535)
		e--;
	if (size < 22 || rd32(b + e) != ZIP_END) {
		int zip = size >= 4 && rd32(b) == ZIP_LOCAL;

		rc = fm_fail(err, errlen, zip ? WSE_ERROR_TRUNCATED : WSE_ERROR_BAD_MAGIC,
			     "npz %s: offset %zu: %s", path, size,
			     zip ? "truncated: no zip end record"
				 : "not a zip file (no zip end record)");
		goto out;
	}
	unsigned n = rd16(b + e + 10);
	size_t cd = rd32(b + e + 16);

	if (n == 0) {
		rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED, "npz %s: no entries", path);
		goto out;
	}
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *data = NULL;
		int t = 0;
		long len = npz_entry(path, b, e, cd, st, &data, &t, err, errlen);

		if (len < 0) {
			rc = (int)len;
			goto out;
		}
		if (src[t]) {
			rc = fm_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "npz %s: offset %zu: tensor '%s' given twice", path, cd,
				     st->t[t].name);
			goto out;
		}
		src[t] = data;
		cd += (size_t)len;
	}
	/* all checked: now the values */
	for (unsigned t = 0; t < st->n; t++)
		if (src[t]) {
			float *dst = mx_store_data(st, (int)t);

			for (size_t k = 0; k < st->t[t].count; k++) {
				uint32_t u = rd32(src[t] + 4 * k);

				memcpy(&dst[k], &u, sizeof(u));
			}
		}
out:
	free(b);
	return rc;
}

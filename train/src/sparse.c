/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sparse.c - weight masks and the sparse weight stream (sparse.h).
 */
#include "sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmnist.h"
#include "wsehost.h"

#define SP_ESC 255u /* gap code: skip 255 slots, no value */

size_t sp_masked_count(size_t n, float s)
{
	double k = floor((double)s * (double)n);

	return k < 0 ? 0 : (k > (double)n ? n : (size_t)k);
}

int sp_mask_random(size_t n, float s, uint64_t seed, float *mask)
{
	size_t k = sp_masked_count(n, s);
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));
	uint64_t st = seed;

	if (!ix)
		return WSE_ERROR_NO_MEM;
	for (size_t j = 0; j < n; j++)
		mask[j] = 1.0f;
	for (size_t j = 0; j < n; j++)
		ix[j] = (uint32_t)j;
	for (size_t j = 0; j < k; j++) {
		size_t p = j + (size_t)(fm_splitmix64(&st) % (n - j));
		uint32_t tmp = ix[j];

		ix[j] = ix[p];
		ix[p] = tmp;
		mask[ix[j]] = 0.0f;
	}
	free(ix);
	return 0;
}

struct sp_mag {
	float a;
	uint32_t i;
};

static int sp_mag_cmp(const void *pa, const void *pb)
{
	const struct sp_mag *a = pa, *b = pb;
	int an = a->a != a->a, bn = b->a != b->a;

	if (an != bn)
		return an - bn; /* NaN largest */
	if (!an && a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->i < b->i ? -1 : (a->i > b->i);
}

int sp_mask_magnitude(size_t n, float s, const float *w, float *mask)
{
	size_t k = sp_masked_count(n, s);
	struct sp_mag *m = malloc((n ? n : 1) * sizeof(*m));

	if (!m)
		return WSE_ERROR_NO_MEM;
	for (size_t j = 0; j < n; j++)
		m[j] = (struct sp_mag){ fabsf(w[j]), (uint32_t)j };
	qsort(m, n, sizeof(*m), sp_mag_cmp);
	for (size_t j = 0; j < n; j++)
		mask[m[j].i] = j < k ? 0.0f : 1.0f;
	free(m);
	return 0;
}

size_t sp_mask_check(size_t n, const float *mask)
{
	for (size_t j = 0; j < n; j++) {
		uint32_t u;

		memcpy(&u, &mask[j], sizeof(u));
		if (u != 0x3f800000u && u != 0)
			return j + 1;
	}
	return 0;
}

int sp_row_order(unsigned n, const uint32_t *cnt, unsigned R, uint32_t *order,
		 uint32_t *lane)
{
	if (R == 0 || (n && (!cnt || !order || !lane)))
		return WSE_ERROR_INVALID_PARAM;
	/* a stable insertion into a sorted list: no shared state for qsort */
	for (unsigned k = 0; k < n; k++) {
		unsigned p = k;

		while (p > 0 && cnt[order[p - 1]] < cnt[k]) {
			order[p] = order[p - 1];
			p--;
		}
		order[p] = k;
	}
	for (unsigned p = 0; p < n; p++)
		lane[order[p]] = p % R;
	return 0;
}

/* Slots of mesh row r in a layer of n_i inputs: i = r, r+R, ... < n_i. */
static unsigned sp_slots(unsigned n_i, unsigned R, unsigned r)
{
	return r < n_i ? (n_i - r + R - 1) / R : 0;
}

/* The gap bytes of a value at slot j after one at slot prev (-1 at the
 * start): floor(g / 255) escapes and one code g mod 255. */
static unsigned sp_gap_bytes(long prev, unsigned j)
{
	unsigned g = (unsigned)((long)j - prev - 1);

	return g / SP_ESC + 1;
}

int sp_stream_bytes(unsigned n_o, unsigned n_i, const float *mask, unsigned R,
		    struct sp_stream_bytes *out)
{
	if (!out || R == 0 || n_o == 0 || n_i == 0)
		return WSE_ERROR_INVALID_PARAM;
	memset(out, 0, sizeof(*out));
	for (unsigned o = 0; o < n_o; o++) {
		for (unsigned r = 0; r < R; r++) {
			unsigned ns = sp_slots(n_i, R, r), nz = 0, bytes = 0;
			long prev = -1;
			int own = (o % R == r);

			for (unsigned j = 0; j < ns; j++) {
				if (mask && mask[(size_t)o * n_i + r + (size_t)j * R] == 0.0f)
					continue;
				bytes += sp_gap_bytes(prev, j);
				prev = j;
				nz++;
			}
			out->grads += 4 * (uint64_t)nz;
			/* the index-only share: the same codes without the bias's */
			if (ns && nz)
				out->bww_index += 4 * (uint64_t)((bytes + 3) / 4);
			else if (ns)
				out->bww_empty += 4;
			if (own)
				bytes += sp_gap_bytes(prev, ns);
			if (ns == 0 && !own)
				continue; /* a row with no input feature: nothing */
			if (nz == 0 && !own) {
				out->empty += 4;
				continue;
			}
			out->index += 4 * (uint64_t)((bytes + 3) / 4);
			out->weights += 4 * (uint64_t)nz;
			out->biases += own ? 4 : 0;
		}
	}
	out->total = out->index + out->weights + out->biases + out->empty;
	return 0;
}

/* Append the gap codes of a slot g slots after the last one named (g / 255
 * escapes, then g mod 255) to the index wavelets at out: *iw is the open
 * index wavelet, *nb the bytes used in it (4: none open), *n the wavelets
 * written. Returns 0 or WSE_ERROR_OVERFLOW. */
static int sp_put_gap(unsigned g, struct sp_wavelet *out, size_t cap, size_t *n, size_t *iw,
		      unsigned *nb)
{
	for (unsigned e = g / SP_ESC + 1; e > 0; e--) {
		if (*nb == 4) {
			if (*n >= cap)
				return WSE_ERROR_OVERFLOW;
			*iw = (*n)++;
			out[*iw] = (struct sp_wavelet){ 0, 0 };
			*nb = 0;
		}
		uint32_t code = e > 1 ? SP_ESC : g % SP_ESC;

		out[*iw].data |= code << (8 * (*nb)++);
	}
	return 0;
}

int sp_index_encode(unsigned n_i, unsigned R, unsigned r, const float *mo,
		    struct sp_wavelet *out, size_t cap)
{
	unsigned ns = sp_slots(n_i, R, r), nb = 4;
	size_t n = 0, iw = 0;
	long prev = -1;

	if (ns == 0)
		return 0; /* a row with no input feature: no share */
	for (unsigned j = 0; j < ns; j++) {
		if (mo && mo[r + (size_t)j * R] == 0.0f)
			continue;
		if (sp_put_gap((unsigned)((long)j - prev - 1), out, cap, &n, &iw, &nb))
			return WSE_ERROR_OVERFLOW;
		prev = j;
	}
	if (n == 0) { /* no kept slot: one control wavelet of four escapes */
		if (cap == 0)
			return WSE_ERROR_OVERFLOW;
		out[0] = (struct sp_wavelet){ 0xffffffffu, 1 };
		return 1;
	}
	for (; nb < 4; nb++) /* pad the last index wavelet with escapes */
		out[iw].data |= SP_ESC << (8 * nb);
	out[n - 1].ctrl = 1;
	return (int)n;
}

int sp_share_encode(unsigned n_i, unsigned R, unsigned r, const float *wo,
		    const float *mo, const float *bias, struct sp_wavelet *out,
		    size_t cap)
{
	unsigned ns = sp_slots(n_i, R, r);
	size_t n = 0, iw = 0; /* wavelets written, the open index wavelet */
	unsigned nb = 4;       /* bytes used in it (4: none open) */
	long prev = -1;

	for (unsigned j = 0; j <= ns; j++) {
		int is_bias = (j == ns);

		if (is_bias ? !bias : (mo && mo[r + (size_t)j * R] == 0.0f))
			continue;
		if (sp_put_gap((unsigned)((long)j - prev - 1), out, cap, &n, &iw, &nb) || n >= cap)
			return WSE_ERROR_OVERFLOW;
		float v = is_bias ? *bias : wo[r + (size_t)j * R];

		memcpy(&out[n].data, &v, sizeof(v));
		out[n++].ctrl = 0;
		prev = j;
	}
	if (n == 0 && ns == 0)
		return 0; /* a row with no input feature and no bias: nothing */
	if (n == 0) { /* a share with no value: one control wavelet */
		if (cap == 0)
			return WSE_ERROR_OVERFLOW;
		out[n++] = (struct sp_wavelet){ 0, 1 };
		return (int)n;
	}
	for (; nb < 4; nb++) /* pad the last index wavelet with escapes */
		out[iw].data |= SP_ESC << (8 * nb);
	out[n - 1].ctrl = 1;
	return (int)n;
}

static int sp_bad(char *err, size_t errlen, const char *fmt, unsigned a, unsigned b,
		  unsigned c)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, a, b, c);
	return WSE_ERROR_MALFORMED;
}

int sp_share_decode(unsigned n_i, unsigned R, unsigned r, int owner,
		    const struct sp_wavelet *w, size_t n, uint32_t *slot, float *val,
		    size_t cap, char *err, size_t errlen)
{
	unsigned ns = sp_slots(n_i, R, r), lim = ns + (owner ? 1 : 0);
	size_t k = 0, nv = 0;
	unsigned long pos = 0; /* the next slot a code of 0 names */

	if (n == 0 && lim == 0)
		return 0; /* a row with no input feature and no bias */
	if (n == 0)
		return sp_bad(err, errlen, "sparse stream, row %u: empty share (no control wavelet)", r,
			      0, 0);
	if (n == 1 && w[0].ctrl)
		return 0; /* a share with no value */
	while (k < n) {
		if (w[k].ctrl)
			return sp_bad(err, errlen,
				      "sparse stream, row %u: control wavelet at %u where an index wavelet was due",
				      r, (unsigned)k, 0);
		uint32_t codes = w[k++].data;

		for (unsigned b = 0; b < 4; b++) {
			uint32_t c = (codes >> (8 * b)) & 0xff;

			if (c == SP_ESC) {
				pos += SP_ESC;
				continue;
			}
			pos += c;
			if (pos >= lim)
				return sp_bad(err, errlen,
					      "sparse stream, row %u: slot %u out of range (the share has %u slots)",
					      r, (unsigned)pos, lim);
			if (k >= n)
				return sp_bad(err, errlen,
					      "sparse stream, row %u: index wavelet %u names a slot but no value follows",
					      r, (unsigned)k - 1, 0);
			if (nv >= cap)
				return WSE_ERROR_OVERFLOW;
			slot[nv] = (uint32_t)pos;
			memcpy(&val[nv++], &w[k].data, sizeof(float));
			pos++;
			if (w[k++].ctrl) {
				if (k != n)
					return sp_bad(err, errlen,
						      "sparse stream, row %u: %u wavelets after the row's control wavelet",
						      r, (unsigned)(n - k), 0);
				return (int)nv;
			}
		}
	}
	return sp_bad(err, errlen, "sparse stream, row %u: no control wavelet ends the share", r, 0, 0);
}

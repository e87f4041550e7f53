/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memoryx.c - MemoryX: weight store, optimizers, checkpoints (memoryx.h).
 * Optimizer arithmetic is compiled with -ffp-contract=off (mk/training.mk):
 * each operator below is one binary32 operation.
 */
#define _GNU_SOURCE
#include "memoryx.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wsehost.h"
#include "wsemu/wse_crc32c.h"
#include "wsemu/wse_wire.h"

static int mx_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int mx_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* ---- store -------------------------------------------------------------- */

void mx_store_init(struct mx_store *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int mx_store_add(struct mx_store *s, const char *name, unsigned ndim,
		 const uint32_t *dims)
{
	size_t count = 1;

	if (!s || !name || !dims || s->committed || s->n >= MX_MAX_TENSORS ||
	    ndim == 0 || ndim > MX_MAX_DIMS || strlen(name) == 0 ||
	    strlen(name) > MX_NAME_MAX || mx_store_find(s, name) >= 0)
		return WSE_ERROR_INVALID_PARAM;
	for (unsigned d = 0; d < ndim; d++) {
		if (dims[d] == 0 || count > SIZE_MAX / 4 / dims[d])
			return WSE_ERROR_INVALID_PARAM;
		count *= dims[d];
	}
	struct mx_tensor *t = &s->t[s->n];

	memset(t, 0, sizeof(*t));
	strcpy(t->name, name);
	t->ndim = ndim;
	memcpy(t->dims, dims, ndim * sizeof(uint32_t));
	t->count = count;
	t->offset = s->arena_elems;
	s->arena_elems += (count + 15) & ~(size_t)15; /* 64-byte aligned */
	return (int)s->n++;
}

int mx_store_commit(struct mx_store *s, const char *backing_file, char *err,
		    size_t errlen)
{
	size_t bytes = s->arena_elems * sizeof(float);

	if (s->committed)
		return WSE_ERROR_INVALID_PARAM;
	if (bytes == 0)
		bytes = 64;
	if (!backing_file) {
		s->arena = calloc(1, bytes);
		if (!s->arena)
			return mx_fail(err, errlen, WSE_ERROR_NO_MEM,
				       "MemoryX: cannot allocate %zu bytes", bytes);
	} else {
		int fd = open(backing_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0)
			return mx_fail(err, errlen, WSE_ERROR_IO,
				       "MemoryX: cannot create %s: %s", backing_file,
				       strerror(errno));
		if (ftruncate(fd, (off_t)bytes) != 0) {
			int e = errno;

			close(fd);
			return mx_fail(err, errlen, WSE_ERROR_IO,
				       "MemoryX: cannot size %s to %zu bytes: %s",
				       backing_file, bytes, strerror(e));
		}
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED) {
			int e = errno;

			close(fd);
			return mx_fail(err, errlen, WSE_ERROR_NO_MEM,
				       "MemoryX: cannot map %s: %s", backing_file,
				       strerror(e));
		}
		s->arena = p;
		s->fd = fd;
		s->map_bytes = bytes;
	}
	s->committed = 1;
	return 0;
}

void mx_store_free(struct mx_store *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		if (s->arena)
			munmap(s->arena, s->map_bytes);
		close(s->fd);
	} else {
		free(s->arena);
	}
	mx_store_init(s);
}

int mx_store_find(const struct mx_store *s, const char *name)
{
	for (unsigned k = 0; k < s->n; k++)
		if (strcmp(s->t[k].name, name) == 0)
			return (int)k;
	return -1;
}

float *mx_store_data(const struct mx_store *s, int idx)
{
	if (!s->committed || idx < 0 || (unsigned)idx >= s->n)
		return NULL;
	return s->arena + s->t[idx].offset;
}

/* ---- optimizers --------------------------------------------------------- */

void mx_opt_scalars_init(struct mx_opt_scalars *sc)
{
	sc->t = 0;
	sc->beta1_pow = 1.0f;
	sc->beta2_pow = 1.0f;
}

void mx_opt_begin_step(const struct mx_opt_cfg *cfg, struct mx_opt_scalars *sc)
{
	sc->t++;
	if (cfg->kind != MX_OPT_SGD) {
		sc->beta1_pow = sc->beta1_pow * cfg->beta1;
		sc->beta2_pow = sc->beta2_pow * cfg->beta2;
	}
}

static void mx_sgd(const struct mx_opt_cfg *c, size_t n, float *w, float *buf,
		   const float *g)
{
	const float lr = c->lr, mu = c->momentum, wd = c->weight_decay;

	for (size_t k = 0; k < n; k++) {
		float gk = g[k];

		if (wd != 0.0f) {
			float t = wd * w[k];

			gk = gk + t;
		}
		if (mu != 0.0f) {
			float t = mu * buf[k];

			buf[k] = t + gk;
			gk = buf[k];
		}
		float step = lr * gk;

		w[k] = w[k] - step;
	}
}

static void mx_adam(const struct mx_opt_cfg *c, const struct mx_opt_scalars *sc,
		    size_t n, float *w, float *m1, float *m2, const float *g)
{
	const int decoupled = c->kind == MX_OPT_ADAMW;
	const float one_b1 = 1.0f - c->beta1;
	const float one_b2 = 1.0f - c->beta2;
	const float corr1 = 1.0f - sc->beta1_pow;
	const float corr2 = 1.0f - sc->beta2_pow;
	const float lrwd = c->lr * c->weight_decay;
	const float shrink = 1.0f - lrwd;

	for (size_t k = 0; k < n; k++) {
		float gk = g[k];

		if (c->weight_decay != 0.0f) {
			if (decoupled) {
				w[k] = w[k] * shrink;
			} else {
				float t = c->weight_decay * w[k];

				gk = gk + t;
			}
		}
		float a = c->beta1 * m1[k];
		float b = one_b1 * gk;

		m1[k] = a + b;
		a = c->beta2 * m2[k];
		b = one_b2 * gk;
		b = b * gk;
		m2[k] = a + b;
		float mhat = m1[k] / corr1;
		float vhat = m2[k] / corr2;
		float den = sqrtf(vhat);

		den = den + c->eps;
		float u = mhat / den;

		u = c->lr * u;
		w[k] = w[k] - u;
	}
}

void mx_opt_update(const struct mx_opt_cfg *cfg, const struct mx_opt_scalars *sc,
		   size_t n, float *w, float *s1, float *s2, const float *g)
{
	if (cfg->kind == MX_OPT_SGD)
		mx_sgd(cfg, n, w, s1, g);
	else
		mx_adam(cfg, sc, n, w, s1, s2, g);
}

void mx_grad_accumulate(size_t n, float *acc, const float *g)
{
	for (size_t k = 0; k < n; k++)
		acc[k] = acc[k] + g[k];
}

/* ---- checkpoints -------------------------------------------------------- */

#define CK_MAGIC "WSECKPT\0"
#define CK_VERSION 1u
#define CK_HDR_BYTES 64u
#define CK_END_MAGIC 0x444E4557u /* "WEND" */
#define CK_DTYPE_F32 1u

static void put32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint32_t crc32c(const void *p, size_t n)
{
	return wse_crc32c_update(0, p, (wse_u32)n);
}

/* Bytes of one tensor record: name length, name padded to 4, dtype, ndim,
 * dims, data, CRC. */
static size_t rec_head_bytes(const struct mx_tensor *t)
{
	return 4 + ((strlen(t->name) + 3) & ~(size_t)3) + 4 + 4 + 4 * t->ndim;
}

struct ck_writer {
	int fd;
	uint64_t written;
	uint32_t crc; /* running CRC-32C of the file so far (un-finalized) */
	mx_ckpt_hook_fn hook;
	void *user;
};

static int ck_write(struct ck_writer *w, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	size_t left = n;

	while (left) {
		ssize_t k = write(w->fd, p, left);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		left -= (size_t)k;
	}
	w->crc = wse_crc32c_update(w->crc, buf, (wse_u32)n);
	w->written += n;
	if (w->hook)
		w->hook(w->written, w->user);
	return 0;
}

int mx_ckpt_save(const char *path, const struct mx_store *s,
		 const struct mx_ckpt_meta *meta, char *err, size_t errlen)
{
	return mx_ckpt_save_hooked(path, s, meta, NULL, NULL, err, errlen);
}

int mx_ckpt_save_hooked(const char *path, const struct mx_store *s,
			const struct mx_ckpt_meta *meta, mx_ckpt_hook_fn hook,
			void *user, char *err, size_t errlen)
{
	char tmp[4096], dir[4096];
	uint64_t total = CK_HDR_BYTES + 8;
	uint8_t hdr[CK_HDR_BYTES];
	int fd, rc = WSE_ERROR_IO;

	if (!path || !s || !meta || !s->committed)
		return mx_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "checkpoint: invalid arguments");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return mx_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "checkpoint: path too long");
	for (unsigned k = 0; k < s->n; k++)
		total += rec_head_bytes(&s->t[k]) + 4 * (uint64_t)s->t[k].count + 4;

	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, CK_MAGIC, 8);
	put32(hdr + 8, CK_VERSION);
	put32(hdr + 12, s->n);
	put64(hdr + 16, total);
	put64(hdr + 24, meta->step);
	put64(hdr + 32, meta->rng_state);
	put64(hdr + 40, meta->data_epoch);
	put64(hdr + 48, meta->data_pos);
	put32(hdr + 60, crc32c(hdr, 60));

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return mx_fail(err, errlen, WSE_ERROR_IO, "checkpoint: cannot create %s: %s",
			       tmp, strerror(errno));
	/* wse_crc32c_update continues from a finished CRC, starting at 0 */
	struct ck_writer w = { .fd = fd, .crc = 0, .hook = hook, .user = user };

	if (ck_write(&w, hdr, sizeof(hdr)))
		goto io;
	for (unsigned k = 0; k < s->n; k++) {
		const struct mx_tensor *t = &s->t[k];
		size_t hb = rec_head_bytes(t);
		uint8_t rh[4 + 64 + 8 + 4 * MX_MAX_DIMS];
		size_t nl = strlen(t->name), o = 0;
		const float *data = s->arena + t->offset;

		memset(rh, 0, sizeof(rh));
		put32(rh, (uint32_t)nl);
		memcpy(rh + 4, t->name, nl);
		o = 4 + ((nl + 3) & ~(size_t)3);
		put32(rh + o, CK_DTYPE_F32);
		put32(rh + o + 4, t->ndim);
		for (unsigned d = 0; d < t->ndim; d++)
			put32(rh + o + 8 + 4 * d, t->dims[d]);
		uint32_t rc32 = wse_crc32c_update(0, rh, (wse_u32)hb);

		if (ck_write(&w, rh, hb))
			goto io;
		/* data little-endian in chunks */
		uint8_t buf[4096];
		size_t done = 0;

		while (done < t->count) {
			size_t m = t->count - done;

			if (m > sizeof(buf) / 4)
				m = sizeof(buf) / 4;
			for (size_t e = 0; e < m; e++) {
				uint32_t u;

				memcpy(&u, &data[done + e], 4);
				put32(buf + 4 * e, u);
			}
			rc32 = wse_crc32c_update(rc32, buf, (wse_u32)(4 * m));
			if (ck_write(&w, buf, 4 * m))
				goto io;
			done += m;
		}
		uint8_t c4[4];

		put32(c4, rc32);
		if (ck_write(&w, c4, 4))
			goto io;
	}
	uint8_t tr[8];

	put32(tr, w.crc);
	put32(tr + 4, CK_END_MAGIC);
	if (ck_write(&w, tr, 8))
		goto io;
	if (fsync(fd) != 0)
		goto io;
	if (close(fd) != 0) {
		fd = -1;
		goto io;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto io;
	/* make the rename durable */
	snprintf(dir, sizeof(dir), "%s", path);
	int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return mx_fail(err, errlen, WSE_ERROR_IO,
			       "checkpoint: cannot open the directory of %s: %s", path,
			       strerror(errno));
	if (fsync(dfd) != 0) {
		int e = errno;

		close(dfd);
		return mx_fail(err, errlen, WSE_ERROR_IO,
			       "checkpoint: fsync of the directory of %s: %s", path,
			       strerror(e));
	}
	close(dfd);
	return 0;
io:
	rc = mx_fail(err, errlen, WSE_ERROR_IO, "checkpoint: writing %s: %s", tmp,
		     strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return rc;
}

int mx_ckpt_load(const char *path, struct mx_store *s, struct mx_ckpt_meta *meta,
		 char *err, size_t errlen)
{
	int fd, rc;
	struct stat st;
	uint8_t *f = NULL;
	float **stage = NULL;

	if (!path || !s || !meta || !s->committed)
		return mx_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "checkpoint: invalid arguments");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mx_fail(err, errlen, errno == ENOENT ? WSE_ERROR_NOT_FOUND : WSE_ERROR_IO,
			       "checkpoint %s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return mx_fail(err, errlen, WSE_ERROR_IO, "checkpoint %s: not a regular file",
			       path);
	}
	size_t size = (size_t)st.st_size;

	if (size < CK_HDR_BYTES + 8) {
		close(fd);
		return mx_fail(err, errlen, WSE_ERROR_TRUNCATED,
			       "checkpoint %s: truncated: %zu bytes, less than a header",
			       path, size);
	}
	f = malloc(size);
	if (!f) {
		close(fd);
		return mx_fail(err, errlen, WSE_ERROR_NO_MEM, "checkpoint %s: no memory", path);
	}
	size_t got = 0;

	while (got < size) {
		ssize_t k = read(fd, f + got, size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (got != size) {
		rc = mx_fail(err, errlen, WSE_ERROR_IO, "checkpoint %s: read failed", path);
		goto out;
	}
	if (memcmp(f, CK_MAGIC, 8) != 0) {
		rc = mx_fail(err, errlen, WSE_ERROR_BAD_MAGIC,
			     "checkpoint %s: not a wsemu checkpoint (bad magic)", path);
		goto out;
	}
	if (get32(f + 60) != crc32c(f, 60)) {
		rc = mx_fail(err, errlen, WSE_ERROR_HEADER_CRC,
			     "checkpoint %s: header CRC-32C mismatch", path);
		goto out;
	}
	if (get32(f + 8) != CK_VERSION) {
		rc = mx_fail(err, errlen, WSE_ERROR_VERSION,
			     "checkpoint %s: format version %u, this library reads %u",
			     path, get32(f + 8), CK_VERSION);
		goto out;
	}
	uint64_t total = get64(f + 16);

	if (total != size) {
		rc = mx_fail(err, errlen, WSE_ERROR_TRUNCATED,
			     "checkpoint %s: %s: %zu bytes, the header says %llu", path,
			     size < total ? "truncated" : "trailing bytes", size,
			     (unsigned long long)total);
		goto out;
	}
	if (get32(f + size - 4) != CK_END_MAGIC ||
	    get32(f + size - 8) != crc32c(f, size - 8)) {
		rc = mx_fail(err, errlen, WSE_ERROR_PAYLOAD_CRC,
			     "checkpoint %s: file CRC-32C mismatch (corrupt)", path);
		goto out;
	}
	uint32_t n = get32(f + 12), nreq = 0;

	for (unsigned k = 0; k < s->n; k++)
		nreq += !s->t[k].optional;
	if (n > s->n || n < nreq) {
		rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
			     "checkpoint %s: %u tensors, the model has %u", path, n, s->n);
		goto out;
	}
	stage = calloc(s->n ? s->n : 1, sizeof(*stage));
	if (!stage) {
		rc = mx_fail(err, errlen, WSE_ERROR_NO_MEM, "checkpoint %s: no memory", path);
		goto out;
	}
	size_t o = CK_HDR_BYTES, end = size - 8;

	for (uint32_t k = 0; k < n; k++) {
		size_t rec0 = o;

		if (end - o < 4)
			goto trunc;
		uint32_t nl = get32(f + o);

		if (nl == 0 || nl > MX_NAME_MAX) {
			rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "checkpoint %s: tensor %u: bad name length %u", path, k, nl);
			goto out;
		}
		size_t nlp = (nl + 3) & ~3u;

		if (end - o < 4 + nlp + 8)
			goto trunc;
		char name[MX_NAME_MAX + 1];

		memcpy(name, f + o + 4, nl);
		name[nl] = 0;
		o += 4 + nlp;
		uint32_t dtype = get32(f + o), ndim = get32(f + o + 4);

		o += 8;
		int idx = mx_store_find(s, name);

		if (idx < 0 || strlen(name) != nl) {
			rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "checkpoint %s: tensor '%s' is not in the model", path, name);
			goto out;
		}
		const struct mx_tensor *t = &s->t[idx];

		if (dtype != CK_DTYPE_F32 || ndim != t->ndim || end - o < 4 * (size_t)ndim) {
			rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "checkpoint %s: tensor '%s': dtype %u ndim %u, expected float32 with %u dimensions",
				     path, name, dtype, ndim, t->ndim);
			goto out;
		}
		for (unsigned d = 0; d < ndim; d++)
			if (get32(f + o + 4 * d) != t->dims[d]) {
				rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
					     "checkpoint %s: tensor '%s': dimension %u is %u, the model has %u",
					     path, name, d, get32(f + o + 4 * d), t->dims[d]);
				goto out;
			}
		o += 4 * ndim;
		if ((end - o) / 4 < t->count + 1)
			goto trunc;
		if (get32(f + o + 4 * t->count) != crc32c(f + rec0, o + 4 * t->count - rec0)) {
			rc = mx_fail(err, errlen, WSE_ERROR_PAYLOAD_CRC,
				     "checkpoint %s: tensor '%s': CRC-32C mismatch", path, name);
			goto out;
		}
		if (stage[idx]) {
			rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "checkpoint %s: tensor '%s' appears twice", path, name);
			goto out;
		}
		stage[idx] = (float *)(void *)(f + o); /* marker; copied below */
		o += 4 * t->count + 4;
	}
	if (o != end)
		goto trunc;
	for (uint32_t k = 0; k < s->n; k++)
		if (!stage[k] && !s->t[k].optional) {
			rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
				     "checkpoint %s: tensor '%s' of the model is missing", path,
				     s->t[k].name);
			goto out;
		}
	/* all valid: copy into the store */
	for (uint32_t k = 0; k < s->n; k++) {
		const uint8_t *p = (const uint8_t *)stage[k];
		float *dst = s->arena + s->t[k].offset;

		if (!p)
			continue; /* an optional tensor the file lacks */

		for (size_t e = 0; e < s->t[k].count; e++) {
			uint32_t u = get32(p + 4 * e);

			memcpy(&dst[e], &u, 4);
		}
	}
	meta->step = get64(f + 24);
	meta->rng_state = get64(f + 32);
	meta->data_epoch = get64(f + 40);
	meta->data_pos = get64(f + 48);
	rc = 0;
	goto out;
trunc:
	rc = mx_fail(err, errlen, WSE_ERROR_MALFORMED,
		     "checkpoint %s: records do not fit the file (corrupt)", path);
out:
	free(stage);
	free(f);
	return rc;
}

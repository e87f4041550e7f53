/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train.c - the training API (wsehost_train.h): params, the training
 * handle over MemoryX, the data stream, gradient accumulation and the
 * optimizer step. Passes run on the backend the params name, through its
 * operations table (train_backend.h): train_ref.c is the host-reference
 * backend, train_mesh.c the mesh backend.
 */
#define _GNU_SOURCE
#include "wsehost_train.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmnist.h"
#include "memoryx.h"
#include "train_backend.h"
#include "train_mesh.h"
#include "train_ref.h"

#define TR_MAX_KEYS 64

struct tr_params {
	unsigned nlayers;
	unsigned dims[TRAIN_REF_MAX_LAYERS + 1];
	uint64_t init_seed;
	char data_dir[1024];
	unsigned pool;
	int shuffle;
	uint64_t shuffle_seed;
	unsigned batch, micro;
	struct mx_opt_cfg opt;
	char backend[32];
	unsigned rows, cols;
	char device[256];       /* mesh backend: device URI ("" = default simulator) */
	int timeout_ms;         /* mesh backend: bound of every wait on the device */
	char memoryx_file[1024];
	/* every key = value of the file, for wse_train_get_param */
	unsigned nkv;
	char key[TR_MAX_KEYS][48];
	char val[TR_MAX_KEYS][256];
};

struct wse_train {
	struct tr_params p;
	const struct train_backend_ops *be; /* NULL until the backend is open */
	void *bs;                           /* the backend's state */
	struct mx_store st;
	int iw[TRAIN_REF_MAX_LAYERS], ib[TRAIN_REF_MAX_LAYERS];
	int s1[2 * TRAIN_REF_MAX_LAYERS], s2[2 * TRAIN_REF_MAX_LAYERS];
	int ibeta; /* "optimizer.beta_pow" [2] */
	uint64_t step, rng, epoch, pos;
	struct fm_data train, test;
	int test_loaded;
	uint32_t *perm;
	uint64_t perm_epoch;
	float *g[2 * TRAIN_REF_MAX_LAYERS];   /* accumulated gradients */
	float *gt[2 * TRAIN_REF_MAX_LAYERS];  /* one micro-batch's */
	float *xb;
	uint8_t *yb;
	long fault_kill_step;
	long fault_ckpt_step;
	long long fault_ckpt_bytes;
	char err[768];
};

static int tr_fail(wse_train *t, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tr_fail(wse_train *t, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return code;
}

/* ---- params ------------------------------------------------------------- */

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
		     s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;

	if (!*v || *v == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);

	if (errno || *end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int parse_f(const char *v, float lo, float hi, int lo_open, float *out)
{
	char *end;

	errno = 0;
	float x = strtof(v, &end);

	if (!*v || errno || *end || !(x == x) || x > hi || x < lo || (lo_open && x == lo))
		return -1;
	*out = x;
	return 0;
}

static void params_defaults(struct tr_params *p)
{
	memset(p, 0, sizeof(*p));
	p->init_seed = 1;
	snprintf(p->data_dir, sizeof(p->data_dir), "%s", FM_DEFAULT_DIR);
	p->pool = 1;
	p->shuffle = 0;
	p->shuffle_seed = 1;
	p->batch = 32;
	p->micro = 1;
	p->opt.kind = MX_OPT_SGD;
	p->opt.lr = 0.05f;
	p->opt.momentum = 0.0f;
	p->opt.beta1 = 0.9f;
	p->opt.beta2 = 0.999f;
	p->opt.eps = 1e-8f;
	p->opt.weight_decay = 0.0f;
	snprintf(p->backend, sizeof(p->backend), "host-reference");
	p->rows = 4;
	p->cols = 4;
	p->timeout_ms = 600000;
}

/* One key = value. Returns NULL or the problem. */
static const char *params_set(struct tr_params *p, const char *k, const char *v)
{
	uint64_t u;
	float f;

	if (!strcmp(k, "model.layers")) {
		char buf[256], *save = NULL, *tok;
		unsigned n = 0;

		snprintf(buf, sizeof(buf), "%s", v);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (n > TRAIN_REF_MAX_LAYERS)
				return "at most 9 sizes (8 layers)";
			if (parse_u64(trim(tok), 1, 65536, &u))
				return "sizes must be integers 1..65536 separated by commas";
			p->dims[n++] = (unsigned)u;
		}
		if (n < 2)
			return "needs at least two sizes: inputs, classes";
		p->nlayers = n - 1;
	} else if (!strcmp(k, "model.init_seed")) {
		if (parse_u64(v, 0, UINT64_MAX, &p->init_seed))
			return "must be an unsigned integer";
	} else if (!strcmp(k, "data.dir")) {
		if (!*v || strlen(v) >= sizeof(p->data_dir))
			return "must be a directory path";
		snprintf(p->data_dir, sizeof(p->data_dir), "%s", v);
	} else if (!strcmp(k, "data.pool")) {
		if (parse_u64(v, 1, 2, &u))
			return "must be 1 (28x28) or 2 (2x2 average pooling, 14x14)";
		p->pool = (unsigned)u;
	} else if (!strcmp(k, "data.shuffle")) {
		if (parse_u64(v, 0, 1, &u))
			return "must be 0 or 1";
		p->shuffle = (int)u;
	} else if (!strcmp(k, "data.shuffle_seed")) {
		if (parse_u64(v, 0, UINT64_MAX, &p->shuffle_seed))
			return "must be an unsigned integer";
	} else if (!strcmp(k, "train.batch_size")) {
		if (parse_u64(v, 1, 65536, &u))
			return "must be an integer 1..65536";
		p->batch = (unsigned)u;
	} else if (!strcmp(k, "train.micro_batches")) {
		if (parse_u64(v, 1, 1024, &u))
			return "must be an integer 1..1024";
		p->micro = (unsigned)u;
	} else if (!strcmp(k, "optimizer.name")) {
		if (!strcmp(v, "sgd"))
			p->opt.kind = MX_OPT_SGD;
		else if (!strcmp(v, "adam"))
			p->opt.kind = MX_OPT_ADAM;
		else if (!strcmp(v, "adamw"))
			p->opt.kind = MX_OPT_ADAMW;
		else
			return "must be sgd, adam or adamw";
	} else if (!strcmp(k, "optimizer.lr")) {
		if (parse_f(v, 0.0f, 1e3f, 1, &f))
			return "must be a number in (0, 1000]";
		p->opt.lr = f;
	} else if (!strcmp(k, "optimizer.momentum")) {
		if (parse_f(v, 0.0f, 1.0f, 0, &f) || f == 1.0f)
			return "must be a number in [0, 1)";
		p->opt.momentum = f;
	} else if (!strcmp(k, "optimizer.beta1") || !strcmp(k, "optimizer.beta2")) {
		if (parse_f(v, 0.0f, 1.0f, 0, &f) || f == 1.0f)
			return "must be a number in [0, 1)";
		if (k[14] == '1')
			p->opt.beta1 = f;
		else
			p->opt.beta2 = f;
	} else if (!strcmp(k, "optimizer.eps")) {
		if (parse_f(v, 0.0f, 1.0f, 1, &f))
			return "must be a number in (0, 1]";
		p->opt.eps = f;
	} else if (!strcmp(k, "optimizer.weight_decay")) {
		if (parse_f(v, 0.0f, 1.0f, 0, &f))
			return "must be a number in [0, 1]";
		p->opt.weight_decay = f;
	} else if (!strcmp(k, "runtime.backend")) {
		const struct train_backend_ops *be = train_backend_find(v);

		if (!be)
			return "must be mesh or host-reference";
		snprintf(p->backend, sizeof(p->backend), "%s", be->name);
	} else if (!strcmp(k, "runtime.device")) {
		if (strlen(v) >= sizeof(p->device))
			return "URI too long";
		snprintf(p->device, sizeof(p->device), "%s", v);
	} else if (!strcmp(k, "runtime.timeout_ms")) {
		if (parse_u64(v, 100, 86400000, &u))
			return "must be an integer 100..86400000";
		p->timeout_ms = (int)u;
	} else if (!strcmp(k, "runtime.mesh")) {
		unsigned r, c;
		char x;

		if (sscanf(v, "%ux%u%c", &r, &c, &x) != 2 || r < 1 || r > 64 || c < 1 || c > 64)
			return "must be ROWSxCOLUMNS, each 1..64 (e.g. 4x4)";
		p->rows = r;
		p->cols = c;
	} else if (!strcmp(k, "runtime.memoryx_file")) {
		if (strlen(v) >= sizeof(p->memoryx_file))
			return "path too long";
		snprintf(p->memoryx_file, sizeof(p->memoryx_file), "%s", v);
	} else if (!strncmp(k, "run.", 4)) {
		/* settings of the tool driving the API (wsetrain); kept */
	} else {
		return "unknown key";
	}
	return NULL;
}

static int params_load(wse_train *t, const char *path)
{
	struct tr_params *p = &t->p;
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned ln = 0;

	params_defaults(p);
	if (!f)
		return tr_fail(t, errno == ENOENT ? WSE_ERROR_NOT_FOUND : WSE_ERROR_IO,
			       "params %s: cannot open: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM, "params %s:%u: line too long",
				       path, ln);
		}
		char *hash = strchr(line, '#');

		if (hash)
			*hash = 0;
		char *s = trim(line);

		if (!*s)
			continue;
		char *eq = strchr(s, '=');

		if (!eq) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "params %s:%u: expected 'key = value', got '%s'", path, ln, s);
		}
		*eq = 0;
		char *k = trim(s), *v = trim(eq + 1);

		for (unsigned q = 0; q < p->nkv; q++)
			if (!strcmp(p->key[q], k)) {
				fclose(f);
				return tr_fail(t, WSE_ERROR_INVALID_PARAM,
					       "params %s:%u: key '%s' given twice", path, ln, k);
			}
		if (p->nkv >= TR_MAX_KEYS || strlen(k) >= sizeof(p->key[0]) ||
		    strlen(v) >= sizeof(p->val[0])) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "params %s:%u: too many keys or key/value too long", path, ln);
		}
		const char *why = params_set(p, k, v);

		if (why) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM, "params %s:%u: %s = '%s': %s",
				       path, ln, k, v, why);
		}
		snprintf(p->key[p->nkv], sizeof(p->key[0]), "%s", k);
		snprintf(p->val[p->nkv], sizeof(p->val[0]), "%s", v);
		p->nkv++;
	}
	fclose(f);
	if (p->nlayers == 0)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers is missing (e.g. model.layers = 196, 64, 10)",
			       path);
	unsigned nf = (28 / p->pool) * (28 / p->pool);

	if (p->dims[0] != nf)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers starts with %u inputs, but images with data.pool = %u have %u features",
			       path, p->dims[0], p->pool, nf);
	if (p->dims[p->nlayers] != 10)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers ends with %u classes; Fashion-MNIST has 10",
			       path, p->dims[p->nlayers]);
	return 0;
}

/* ---- handle ------------------------------------------------------------- */

static float init_uniform(uint64_t *rng, float bound)
{
	float u = (float)(fm_splitmix64(rng) >> 40) * (1.0f / 16777216.0f); /* [0,1) */

	return (2.0f * u - 1.0f) * bound;
}

static int fault_env(wse_train *t)
{
	const char *s = getenv("WSE_TRAIN_FAULT_KILL_STEP");

	t->fault_kill_step = s ? atol(s) : -1;
	s = getenv("WSE_TRAIN_FAULT_CKPT_KILL");
	t->fault_ckpt_step = -1;
	if (s && sscanf(s, "%ld:%lld", &t->fault_ckpt_step, &t->fault_ckpt_bytes) != 2)
		t->fault_ckpt_step = -1;
	return 0;
}

int wse_train_create(wse_train **out, const char *params_file,
		     const struct wse_train_opts *opts, char *err, size_t errlen)
{
	wse_train *t;
	int rc;
	char ename[MX_NAME_MAX + 1];

	if (out)
		*out = NULL;
	if (!out || !params_file) {
		if (err && errlen)
			snprintf(err, errlen, "wse_train_create: NULL argument");
		return WSE_ERROR_INVALID_PARAM;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		if (err && errlen)
			snprintf(err, errlen, "wse_train_create: out of memory");
		return WSE_ERROR_NO_MEM;
	}
	mx_store_init(&t->st);
	fault_env(t);
	unsigned ndev = (opts && opts->size >= offsetof(struct wse_train_opts, num_devices) +
				     sizeof(unsigned)) ? opts->num_devices : 1;
	const char *model_dir = (opts && opts->size >= offsetof(struct wse_train_opts, model_dir) +
					 sizeof(char *)) ? opts->model_dir : NULL;

	if (ndev > 1) {
		rc = tr_fail(t, WSE_ERROR_NOT_SUPPORTED,
			     "num-devices %u: data-parallel training over several devices is not available yet; use 1",
			     ndev);
		goto fail;
	}
	rc = params_load(t, params_file);
	if (rc)
		goto fail;
	struct tr_params *p = &t->p;

	/* MemoryX: weights, biases, optimizer state */
	for (unsigned l = 0; l < p->nlayers; l++) {
		uint32_t dw[2] = { p->dims[l + 1], p->dims[l] }, db[1] = { p->dims[l + 1] };

		snprintf(ename, sizeof(ename), "layer%u.weight", l);
		t->iw[l] = mx_store_add(&t->st, ename, 2, dw);
		snprintf(ename, sizeof(ename), "layer%u.bias", l);
		t->ib[l] = mx_store_add(&t->st, ename, 1, db);
	}
	for (unsigned q = 0; q < 2 * p->nlayers; q++) {
		const struct mx_tensor *pt = &t->st.t[q % 2 ? t->ib[q / 2] : t->iw[q / 2]];
		char nm[48];

		if (snprintf(nm, sizeof(nm), "%s", pt->name) >= (int)sizeof(nm))
			nm[0] = 0;
		uint32_t d[MX_MAX_DIMS];
		unsigned nd = pt->ndim;

		memcpy(d, pt->dims, sizeof(d));
		t->s1[q] = t->s2[q] = -1;
		if (p->opt.kind == MX_OPT_SGD) {
			if (p->opt.momentum != 0.0f) {
				snprintf(ename, sizeof(ename), "%s.momentum", nm);
				t->s1[q] = mx_store_add(&t->st, ename, nd, d);
			}
		} else {
			snprintf(ename, sizeof(ename), "%s.adam_m", nm);
			t->s1[q] = mx_store_add(&t->st, ename, nd, d);
			snprintf(ename, sizeof(ename), "%s.adam_v", nm);
			t->s2[q] = mx_store_add(&t->st, ename, nd, d);
		}
	}
	uint32_t two[1] = { 2 };

	t->ibeta = mx_store_add(&t->st, "optimizer.beta_pow", 1, two);
	char backing[2048];

	if (p->memoryx_file[0]) {
		if (p->memoryx_file[0] == '/' || !model_dir)
			snprintf(backing, sizeof(backing), "%s", p->memoryx_file);
		else
			snprintf(backing, sizeof(backing), "%s/%s", model_dir, p->memoryx_file);
	}
	rc = mx_store_commit(&t->st, p->memoryx_file[0] ? backing : NULL, t->err,
			     sizeof(t->err));
	if (rc)
		goto fail;
	/* PyTorch Linear initialization: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) */
	t->rng = p->init_seed;
	for (unsigned l = 0; l < p->nlayers; l++) {
		float bound = 1.0f / sqrtf((float)p->dims[l]);
		float *w = mx_store_data(&t->st, t->iw[l]), *b = mx_store_data(&t->st, t->ib[l]);

		for (size_t k = 0; k < (size_t)p->dims[l] * p->dims[l + 1]; k++)
			w[k] = init_uniform(&t->rng, bound);
		for (unsigned k = 0; k < p->dims[l + 1]; k++)
			b[k] = init_uniform(&t->rng, bound);
	}
	float *bp = mx_store_data(&t->st, t->ibeta);

	bp[0] = bp[1] = 1.0f;
	/* data */
	rc = fm_load(p->data_dir, 1, p->pool, &t->train, t->err, sizeof(t->err));
	if (rc)
		goto fail;
	t->perm = malloc((size_t)t->train.n * sizeof(uint32_t));
	t->xb = malloc((size_t)p->batch * p->dims[0] * sizeof(float));
	t->yb = malloc(p->batch);
	if (!t->perm || !t->xb || !t->yb) {
		rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
		goto fail;
	}
	fm_epoch_order(t->train.n, p->shuffle, p->shuffle_seed, 0, t->perm);
	for (unsigned q = 0; q < 2 * p->nlayers; q++) {
		size_t n = t->st.t[q % 2 ? t->ib[q / 2] : t->iw[q / 2]].count;

		t->g[q] = calloc(n, sizeof(float));
		t->gt[q] = calloc(n, sizeof(float));
		if (!t->g[q] || !t->gt[q]) {
			rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
			goto fail;
		}
	}
	struct train_backend_cfg cfg = {
		.device = p->device, .timeout_ms = p->timeout_ms,
		.nlayers = p->nlayers, .dims = p->dims, .max_batch = p->batch,
		.rows = p->rows, .cols = p->cols,
	};
	const struct train_backend_ops *be = train_backend_find(p->backend);

	if (!be) {
		rc = tr_fail(t, WSE_ERROR_NOT_SUPPORTED, "runtime.backend %s: no such backend",
			     p->backend);
		goto fail;
	}
	rc = be->open(&t->bs, &cfg, t->err, sizeof(t->err));
	if (rc)
		goto fail;
	t->be = be;
	p->rows = cfg.rows; /* the reference order follows the device */
	p->cols = cfg.cols;
	*out = t;
	return 0;
fail:
	if (err && errlen)
		snprintf(err, errlen, "%s", t->err);
	wse_train_destroy(t);
	return rc;
}

void wse_train_destroy(wse_train *t)
{
	if (!t)
		return;
	if (t->be)
		t->be->close(t->bs);
	mx_store_free(&t->st);
	fm_free(&t->train);
	fm_free(&t->test);
	free(t->perm);
	free(t->xb);
	free(t->yb);
	for (unsigned q = 0; q < 2 * TRAIN_REF_MAX_LAYERS; q++) {
		free(t->g[q]);
		free(t->gt[q]);
	}
	free(t);
}

const char *wse_train_last_error(const wse_train *t)
{
	return t ? t->err : "no training handle";
}

const char *wse_train_backend(const wse_train *t)
{
	return t ? t->p.backend : "";
}

uint64_t wse_train_get_step(const wse_train *t)
{
	return t ? t->step : 0;
}

const char *wse_train_get_param(const wse_train *t, const char *key)
{
	if (!t || !key)
		return NULL;
	for (unsigned q = 0; q < t->p.nkv; q++)
		if (!strcmp(t->p.key[q], key))
			return t->p.val[q];
	return NULL;
}

static void ref_net(const wse_train *t, struct train_ref_net *net)
{
	memset(net, 0, sizeof(*net));
	net->rows = t->p.rows;
	net->cols = t->p.cols;
	net->nlayers = t->p.nlayers;
	memcpy(net->dims, t->p.dims, sizeof(net->dims));
	for (unsigned l = 0; l < t->p.nlayers; l++) {
		net->w[l] = mx_store_data(&t->st, t->iw[l]);
		net->b[l] = mx_store_data(&t->st, t->ib[l]);
	}
}

/* The backends, by runtime.backend. */
const struct train_backend_ops *train_backend_find(const char *name)
{
	static const struct train_backend_ops *const all[] = {
		&train_backend_ref, &train_backend_mesh};

	for (size_t i = 0; name && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

/* One pass on the configured backend. */
static int backend_pass(wse_train *t, const struct train_ref_net *net, const float *x,
			const uint8_t *labels, unsigned B, unsigned norm,
			struct train_ref_out *o)
{
	return t->be->pass(t->bs, net, x, labels, B, norm, o, t->err, sizeof(t->err));
}

/* Next batch of the training stream, in the epoch's order. */
static void next_batch(wse_train *t)
{
	unsigned nf = t->p.dims[0];

	for (unsigned e = 0; e < t->p.batch; e++) {
		if (t->pos >= t->train.n) {
			t->epoch++;
			t->pos = 0;
		}
		if (t->perm_epoch != t->epoch) {
			fm_epoch_order(t->train.n, t->p.shuffle, t->p.shuffle_seed, t->epoch,
				       t->perm);
			t->perm_epoch = t->epoch;
		}
		uint32_t k = t->perm[t->pos++];

		memcpy(t->xb + (size_t)e * nf, t->train.x + (size_t)k * nf, nf * sizeof(float));
		t->yb[e] = t->train.y[k];
	}
}

int wse_train_step(wse_train *t, struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	struct tr_params *p = &t->p;
	struct train_ref_net net;
	unsigned L = p->nlayers, norm = p->batch * p->micro;
	float loss_sum = 0.0f;
	uint32_t correct = 0;
	uint64_t cycles = 0;

	ref_net(t, &net);
	for (unsigned mb = 0; mb < p->micro; mb++) {
		struct train_ref_out o;

		memset(&o, 0, sizeof(o));
		for (unsigned l = 0; l < L; l++) {
			o.dw[l] = mb ? t->gt[2 * l] : t->g[2 * l];
			o.db[l] = mb ? t->gt[2 * l + 1] : t->g[2 * l + 1];
		}
		next_batch(t);
		int rc = backend_pass(t, &net, t->xb, t->yb, p->batch, norm, &o);

		if (rc)
			return rc;
		if (mb)
			for (unsigned q = 0; q < 2 * L; q++)
				mx_grad_accumulate(t->st.t[q % 2 ? t->ib[q / 2] : t->iw[q / 2]].count,
						   t->g[q], t->gt[q]);
		loss_sum = loss_sum + o.loss_sum;
		correct += o.correct;
		cycles += o.cycles;
	}
	if (t->fault_kill_step >= 0 && t->step + 1 == (uint64_t)t->fault_kill_step)
		raise(SIGKILL); /* fault injection: killed mid-step */
	/* MemoryX update, parameter by parameter in layer order */
	float *bp = mx_store_data(&t->st, t->ibeta);
	struct mx_opt_scalars sc = { .t = t->step, .beta1_pow = bp[0], .beta2_pow = bp[1] };

	mx_opt_begin_step(&p->opt, &sc);
	for (unsigned q = 0; q < 2 * L; q++) {
		int ip = q % 2 ? t->ib[q / 2] : t->iw[q / 2];

		mx_opt_update(&p->opt, &sc, t->st.t[ip].count, mx_store_data(&t->st, ip),
			      mx_store_data(&t->st, t->s1[q]), mx_store_data(&t->st, t->s2[q]),
			      t->g[q]);
	}
	bp[0] = sc.beta1_pow;
	bp[1] = sc.beta2_pow;
	t->step++;
	if (m && m->size >= offsetof(struct wse_train_metrics, device_cycles)) {
		m->step = t->step;
		m->loss = loss_sum / (float)norm;
		m->correct = correct;
		m->examples = norm;
	}
	if (m && m->size >= sizeof(*m))
		m->device_cycles = cycles;
	return 0;
}

int wse_train_eval(wse_train *t, uint32_t max_examples, struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	int rc;

	if (!t->test_loaded) {
		rc = fm_load(t->p.data_dir, 0, t->p.pool, &t->test, t->err, sizeof(t->err));
		if (rc)
			return rc;
		t->test_loaded = 1;
	}
	uint32_t n = t->test.n;

	if (max_examples && max_examples < n)
		n = max_examples;
	struct train_ref_net net;
	float loss_sum = 0.0f;
	uint32_t correct = 0;
	uint64_t cycles = 0;

	ref_net(t, &net);
	for (uint32_t e = 0; e < n; e += t->p.batch) {
		unsigned B = n - e < t->p.batch ? n - e : t->p.batch;
		struct train_ref_out o;

		memset(&o, 0, sizeof(o));
		rc = backend_pass(t, &net, t->test.x + (size_t)e * t->test.features,
				  t->test.y + e, B, B, &o);
		if (rc)
			return rc;
		loss_sum = loss_sum + o.loss_sum;
		correct += o.correct;
		cycles += o.cycles;
	}
	if (m && m->size >= offsetof(struct wse_train_metrics, device_cycles)) {
		m->step = t->step;
		m->loss = loss_sum / (float)n;
		m->correct = correct;
		m->examples = n;
	}
	if (m && m->size >= sizeof(*m))
		m->device_cycles = cycles;
	return 0;
}

int wse_train_tensor_info(const wse_train *t, unsigned index, const char **name,
			  unsigned *ndim, uint32_t dims[4])
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (index >= t->st.n)
		return WSE_ERROR_RANGE;
	const struct mx_tensor *x = &t->st.t[index];

	if (name)
		*name = x->name;
	if (ndim)
		*ndim = x->ndim;
	if (dims) {
		memset(dims, 0, 4 * sizeof(uint32_t));
		memcpy(dims, x->dims, x->ndim * sizeof(uint32_t));
	}
	return x->count > INT_MAX ? INT_MAX : (int)x->count;
}

static int find_tensor(wse_train *t, const char *name, size_t count)
{
	if (!t || !name)
		return WSE_ERROR_INVALID_PARAM;
	int k = mx_store_find(&t->st, name);

	if (k < 0)
		return tr_fail(t, WSE_ERROR_NOT_FOUND, "no tensor named '%s'", name);
	if (count != t->st.t[k].count)
		return tr_fail(t, WSE_ERROR_LENGTH, "tensor '%s' has %zu elements, not %zu",
			       name, t->st.t[k].count, count);
	return k;
}

int wse_train_get_tensor(wse_train *t, const char *name, float *buf, size_t count)
{
	int k = find_tensor(t, name, count);

	if (k < 0)
		return k;
	if (!buf)
		return WSE_ERROR_INVALID_PARAM;
	memcpy(buf, mx_store_data(&t->st, k), count * sizeof(float));
	return 0;
}

int wse_train_set_tensor(wse_train *t, const char *name, const float *buf, size_t count)
{
	int k = find_tensor(t, name, count);

	if (k < 0)
		return k;
	if (!buf)
		return WSE_ERROR_INVALID_PARAM;
	memcpy(mx_store_data(&t->st, k), buf, count * sizeof(float));
	return 0;
}

static void ckpt_fault_hook(uint64_t bytes, void *user)
{
	wse_train *t = user;

	if ((long long)bytes >= t->fault_ckpt_bytes)
		raise(SIGKILL); /* fault injection: killed mid-write */
}

int wse_train_save(wse_train *t, const char *path)
{
	if (!t || !path)
		return WSE_ERROR_INVALID_PARAM;
	struct mx_ckpt_meta meta = { .step = t->step, .rng_state = t->rng,
				     .data_epoch = t->epoch, .data_pos = t->pos };
	int fault = t->fault_ckpt_step >= 0 && (uint64_t)t->fault_ckpt_step == t->step;

	return mx_ckpt_save_hooked(path, &t->st, &meta, fault ? ckpt_fault_hook : NULL, t,
				   t->err, sizeof(t->err));
}

int wse_train_load(wse_train *t, const char *path)
{
	if (!t || !path)
		return WSE_ERROR_INVALID_PARAM;
	struct mx_ckpt_meta meta;
	size_t bytes = t->st.arena_elems * sizeof(float);
	float *backup = malloc(bytes ? bytes : 1);

	if (!backup)
		return tr_fail(t, WSE_ERROR_NO_MEM, "checkpoint %s: out of memory", path);
	memcpy(backup, t->st.arena, bytes);
	int rc = mx_ckpt_load(path, &t->st, &meta, t->err, sizeof(t->err));

	if (rc == 0 && meta.data_pos > t->train.n) {
		memcpy(t->st.arena, backup, bytes); /* leave the handle unchanged */
		rc = tr_fail(t, WSE_ERROR_MALFORMED,
			     "checkpoint %s: data position %llu beyond the %u training examples",
			     path, (unsigned long long)meta.data_pos, t->train.n);
	}
	free(backup);
	if (rc)
		return rc;
	t->step = meta.step;
	t->rng = meta.rng_state;
	t->epoch = meta.data_epoch;
	t->pos = meta.data_pos;
	fm_epoch_order(t->train.n, t->p.shuffle, t->p.shuffle_seed, t->epoch, t->perm);
	t->perm_epoch = t->epoch;
	return 0;
}

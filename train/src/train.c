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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dataset.h"
#include "fmnist.h"
#include "memoryx.h"
#include "npz.h"
#include "sparse.h"
#include "train_backend.h"
#include "train_time.h"
#include "train_mesh.h"
#include "train_ref.h"
#include "train_stats.h"

#define TR_MAX_KEYS 64

struct tr_params {
	unsigned nlayers;
	unsigned dims[TRAIN_REF_MAX_LAYERS + 1];
	uint64_t init_seed;
	char data_dir[1024];
	enum ds_format format;
	char train_x[1024], train_y[1024], test_x[1024], test_y[1024];
	uint32_t label_column;
	int has_data;           /* a training split: data_dir or train_x */
	unsigned pool;
	int shuffle;
	uint64_t shuffle_seed;
	unsigned batch, micro;
	struct mx_opt_cfg opt;
	char backend[32];
	unsigned rows, cols;
	char device[256];       /* mesh backend: device URI ("" = default simulator) */
	/* runtime.devices, split: uri[0..nuri-1] point into devlist (nuri 0:
	 * no list; the handle's devices then all take device) */
	char devlist[2048];
	unsigned nuri;
	const char *uri[WSE_TRAIN_MAX_DEVICES];
	int timeout_ms;         /* mesh backend: bound of every wait on the device */
	char memoryx_file[1024];
	int overlap;            /* runtime.host_update = overlap (1) or serial (0) */
	float sparsity;         /* model.sparsity (0: dense, no masks) */
	uint64_t sparsity_seed, prune_step;
	/* every key = value of the file, for wse_train_get_param */
	unsigned nkv;
	char key[TR_MAX_KEYS][48];
	char val[TR_MAX_KEYS][256];
};

/* One pass of a round (run_round): device dev runs micro-batch (or
 * evaluation batch) mb on a thread of its own. */
struct tr_job {
	wse_train *t;
	unsigned dev, mb;
	const struct train_ref_net *net;
	const float *x;
	const uint8_t *y;
	unsigned B, norm;
	struct train_ref_out o;
	struct train_pass_hooks hooks; /* with the host update beside the device */
	double ms; /* the pass's wall time where it ran */
	int rc;
	char err[512];
};

/*
 * The host update beside the device (runtime.host_update = overlap,
 * docs/training.md): a thread of the handle updates a layer as soon as
 * every pass of the step's last round has reported its gradients (hook
 * grads_out), while the passes go on with the layers below; a pass waits
 * for a layer's update (hook weights_ready) before it reads its weights,
 * and every call that reads or writes MemoryX otherwise waits for them
 * all (tr_sync). Each layer is updated with the same operations as the
 * serial order (gradients added in device order, then mx_opt_update), so
 * the bits are the same. The parameters and optimizer state a layer had
 * before its update are kept (bk) until the step ends, so that a step
 * that fails after some layers were updated is undone. Every field is
 * under mu; each wait is bounded by runtime.timeout_ms.
 */
struct tr_upd {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* on CLOCK_MONOTONIC; broadcast on every change */
	int stop;
	/* the step whose last round runs (tr_upd_arm) */
	uint64_t gen;
	unsigned want;              /* passes that report each layer */
	unsigned seen[TRAIN_REF_MAX_LAYERS];
	struct mx_opt_scalars sc;
	unsigned nfold;             /* devices whose gradients go into g, in order */
	unsigned fold[WSE_TRAIN_MAX_DEVICES];
	/* per layer, taken when it is queued */
	uint64_t lgen[TRAIN_REF_MAX_LAYERS];
	struct mx_opt_scalars lsc[TRAIN_REF_MAX_LAYERS];
	unsigned lnfold[TRAIN_REF_MAX_LAYERS];
	unsigned lfold[TRAIN_REF_MAX_LAYERS][WSE_TRAIN_MAX_DEVICES];
	unsigned queued, busy;      /* layers (bit l) waiting, being updated */
	unsigned ran;               /* layers of step gen updated (bk holds their old values) */
	unsigned waiters;           /* threads waiting for an update */
	double wait_t0;
	struct train_update_stats st;
};

struct wse_train {
	struct tr_params p;
	const struct train_backend_ops *be; /* NULL until the backends open */
	const struct train_backend_ops *devs; /* train_create_devs: the devices' */
	unsigned req_dev;                   /* opts->num_devices (0: from the list) */
	unsigned ndev;                      /* devices trained on */
	unsigned nopen;                     /* bs[0..nopen-1] are open */
	void *bs[WSE_TRAIN_MAX_DEVICES];    /* the backend's state, per device */
	const char *dev_uri[WSE_TRAIN_MAX_DEVICES]; /* each device's URI */
	struct tr_job *jobs;                /* [ndev] */
	struct mx_store st;
	int iw[TRAIN_REF_MAX_LAYERS], ib[TRAIN_REF_MAX_LAYERS];
	int s1[2 * TRAIN_REF_MAX_LAYERS], s2[2 * TRAIN_REF_MAX_LAYERS];
	int ibeta; /* "optimizer.beta_pow" [2] */
	int im[TRAIN_REF_MAX_LAYERS]; /* "layerN.weight.mask", or -1 (dense) */
	uint64_t step, rng, epoch, pos;
	struct fm_data train, test;
	int test_loaded;
	uint32_t *perm;
	uint64_t perm_epoch;
	float *g[2 * TRAIN_REF_MAX_LAYERS];   /* accumulated gradients */
	/* per device: its micro-batch's gradients */
	float *gt[WSE_TRAIN_MAX_DEVICES][2 * TRAIN_REF_MAX_LAYERS];
	float *xb;    /* [ndev * batch, inputs]: device d's at d * batch */
	uint8_t *yb;  /* [ndev * batch] */
	struct tr_upd *upd;   /* the host update beside the device, or NULL (serial) */
	int upd_started;      /* upd->th runs */
	/* per parameter q: its values and optimizer state before the update
	 * of the step in flight (w, then s1, s2 if any); with upd only */
	float *bk[2 * TRAIN_REF_MAX_LAYERS];
	struct train_update_stats ust; /* serial order: the updates' times */
	struct train_update_stats sst; /* steps, step_ms, pass_ms */
	uint64_t wver; /* the weights' version (train_ref_net): bumped
			* whenever they may change */
	long fault_kill_step;
	long fault_fail_step;
	long fault_ckpt_step;
	long long fault_ckpt_bytes;
	char err[768];
};

static int tr_fail(wse_train *t, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int upd_start(wse_train *t);
static int upd_stop(wse_train *t);

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

/* The numeric keys: where each goes in the spec, its range and what the
 * error says, for the params file and the spec alike. */
struct tr_num {
	const char *key;    /* params key */
	const char *field;  /* spec field */
	size_t off;
	char type;          /* 'u' uint32_t, 'q' uint64_t, 'i' int32_t, 'f' float */
	double lo, hi;
	int lo_open, hi_open;
	const char *why;
};

#define TR_OFF(f) offsetof(struct wse_train_spec, f)
static const struct tr_num tr_nums[] = {
	{ "model.init_seed", "init_seed", TR_OFF(init_seed), 'q', 0, 0, 0, 0,
	  "must be an unsigned integer" },
	{ "model.sparsity", "sparsity", TR_OFF(sparsity), 'f', 0, 1, 0, 1,
	  "must be a number in [0, 1)" },
	{ "model.sparsity_seed", "sparsity_seed", TR_OFF(sparsity_seed), 'q', 0, 0, 0, 0,
	  "must be an unsigned integer" },
	{ "model.prune_step", "prune_step", TR_OFF(prune_step), 'q', 0, 0, 0, 0,
	  "must be an unsigned integer" },
	{ "data.pool", "data_pool", TR_OFF(data_pool), 'u', 1, 2, 0, 0,
	  "must be 1 (28x28) or 2 (2x2 average pooling, 14x14)" },
	{ "data.shuffle", "data_shuffle", TR_OFF(data_shuffle), 'u', 0, 1, 0, 0,
	  "must be 0 or 1" },
	{ "data.shuffle_seed", "data_shuffle_seed", TR_OFF(data_shuffle_seed), 'q', 0, 0, 0, 0,
	  "must be an unsigned integer" },
	{ "train.batch_size", "batch_size", TR_OFF(batch_size), 'u', 1, 65536, 0, 0,
	  "must be an integer 1..65536" },
	{ "train.micro_batches", "micro_batches", TR_OFF(micro_batches), 'u', 1, 1024, 0, 0,
	  "must be an integer 1..1024" },
	{ "optimizer.lr", "lr", TR_OFF(lr), 'f', 0, 1e3, 1, 0, "must be a number in (0, 1000]" },
	{ "optimizer.momentum", "momentum", TR_OFF(momentum), 'f', 0, 1, 0, 1,
	  "must be a number in [0, 1)" },
	{ "optimizer.beta1", "beta1", TR_OFF(beta1), 'f', 0, 1, 0, 1, "must be a number in [0, 1)" },
	{ "optimizer.beta2", "beta2", TR_OFF(beta2), 'f', 0, 1, 0, 1, "must be a number in [0, 1)" },
	{ "optimizer.eps", "eps", TR_OFF(eps), 'f', 0, 1, 1, 0, "must be a number in (0, 1]" },
	{ "optimizer.weight_decay", "weight_decay", TR_OFF(weight_decay), 'f', 0, 1, 0, 0,
	  "must be a number in [0, 1]" },
	{ "runtime.timeout_ms", "timeout_ms", TR_OFF(timeout_ms), 'i', 100, 86400000, 0, 0,
	  "must be an integer 100..86400000" },
};

static int num_in_range(const struct tr_num *d, double x)
{
	if (d->type == 'q')
		return 1; /* any uint64_t */
	return x == x && x >= d->lo && x <= d->hi && !(d->lo_open && x == d->lo) &&
	       !(d->hi_open && x == d->hi);
}

static double num_get(const struct tr_num *d, const struct wse_train_spec *s)
{
	const char *f = (const char *)s + d->off;
	uint32_t u;
	int32_t i;
	float x;

	switch (d->type) {
	case 'u':
		memcpy(&u, f, sizeof(u));
		return u;
	case 'i':
		memcpy(&i, f, sizeof(i));
		return i;
	case 'f':
		memcpy(&x, f, sizeof(x));
		return x;
	}
	return 0;
}

/* A numeric key's value into the spec: 0, or -1 if it does not parse or
 * is out of range. */
static int num_set(const struct tr_num *d, struct wse_train_spec *s, const char *v)
{
	char *f = (char *)s + d->off;

	if (d->type == 'f') {
		float x;

		if (parse_f(v, (float)d->lo, (float)d->hi, d->lo_open, &x) ||
		    (d->hi_open && x == (float)d->hi))
			return -1;
		memcpy(f, &x, sizeof(x));
		return 0;
	}
	uint64_t u;

	if (parse_u64(v, (uint64_t)d->lo, d->type == 'q' ? UINT64_MAX : (uint64_t)d->hi, &u))
		return -1;
	if (d->type == 'q') {
		memcpy(f, &u, sizeof(u));
	} else if (d->type == 'u') {
		uint32_t x = (uint32_t)u;

		memcpy(f, &x, sizeof(x));
	} else {
		int32_t x = (int32_t)u;

		memcpy(f, &x, sizeof(x));
	}
	return 0;
}

/* s begins a device URI: a scheme ("sim", "usb", ...) and ':' before any
 * '=' or ','. */
static int uri_start(const char *s)
{
	if (*s < 'a' || *s > 'z')
		return 0;
	while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '+' || *s == '-' ||
	       *s == '.')
		s++;
	return *s == ':';
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
}

/* Split the runtime.devices list v into buf, uri[0..*n-1] pointing into
 * it. The URIs are separated by commas; a comma that is not followed by a
 * scheme belongs to the URI (sim:board=sim-2x2,model=fast). Returns NULL
 * or the problem. */
static const char *devices_parse(const char *v, char *buf, size_t size, const char **uri,
				 unsigned *n)
{
	char *q = buf;

	*n = 0;
	if (strlen(v) >= size)
		return "list too long";
	snprintf(buf, size, "%s", v);
	for (;;) {
		char *piece = q, *comma;

		while (*piece == ' ' || *piece == '\t')
			piece++;
		comma = strchr(piece, ',');
		if (*piece == ',' || !*piece)
			return "an empty entry: each device must be a URI such as sim:board=sim-4x4";
		if (*n == 0 || uri_start(piece)) {
			if (!uri_start(piece))
				return "each device must be a URI such as sim:board=sim-4x4, separated by commas";
			if (*n == WSE_TRAIN_MAX_DEVICES)
				return "more than 64 devices";
			if (*n) {
				q[-1] = 0; /* the comma ending the previous URI */
				trim_end((char *)uri[*n - 1]);
			}
			uri[(*n)++] = piece;
		}
		if (!comma)
			break;
		q = comma + 1;
	}
	trim_end((char *)uri[*n - 1]);
	return NULL;
}

/* The defaults, in the library's own struct. */
static void spec_defaults(struct wse_train_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->optimizer = "sgd";
	s->lr = 0.05f;
	s->beta1 = 0.9f;
	s->beta2 = 0.999f;
	s->eps = 1e-8f;
	s->init_seed = 1;
	s->batch_size = 32;
	s->micro_batches = 1;
	s->backend = "host-reference";
	s->timeout_ms = 600000;
	s->data_pool = 1;
	s->data_shuffle_seed = 1;
	s->sparsity_seed = 1;
}

void wse_train_spec_init(struct wse_train_spec *spec, size_t size)
{
	struct wse_train_spec d;

	if (!spec || size < sizeof(size_t))
		return;
	spec_defaults(&d);
	if (size > sizeof(d))
		size = sizeof(d);
	memcpy(spec, &d, size); /* only the bytes the caller's struct has */
	spec->size = size;
}

/* One key = value into the spec; v stays valid as long as the handle.
 * Returns NULL or the problem. */
static const char *params_set(struct wse_train_spec *s, const char *k, const char *v)
{
	uint64_t u;

	for (size_t q = 0; q < sizeof(tr_nums) / sizeof(tr_nums[0]); q++)
		if (!strcmp(k, tr_nums[q].key))
			return num_set(&tr_nums[q], s, v) ? tr_nums[q].why : NULL;
	if (!strcmp(k, "model.layers")) {
		char buf[256], *save = NULL, *tok;
		unsigned n = 0;

		snprintf(buf, sizeof(buf), "%s", v);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (n > TRAIN_REF_MAX_LAYERS)
				return "at most 9 sizes (8 layers)";
			if (parse_u64(trim(tok), 1, 65536, &u))
				return "sizes must be integers 1..65536 separated by commas";
			s->widths[n++] = (uint32_t)u;
		}
		if (n < 2)
			return "needs at least two sizes: inputs, classes";
		s->num_layers = n - 1;
	} else if (!strcmp(k, "data.dir")) {
		if (!*v || strlen(v) >= sizeof(((struct tr_params *)0)->data_dir))
			return "must be a directory path";
		s->data_dir = v;
	} else if (!strcmp(k, "data.format")) {
		enum ds_format f;

		if (ds_format_parse(v, &f))
			return "must be fmnist, idx, npy or csv";
		s->data_format = v;
	} else if (!strcmp(k, "data.train_x") || !strcmp(k, "data.train_y") ||
		   !strcmp(k, "data.test_x") || !strcmp(k, "data.test_y")) {
		const char **f = !strcmp(k, "data.train_x") ? &s->data_train_x
				 : !strcmp(k, "data.train_y") ? &s->data_train_y
				 : !strcmp(k, "data.test_x")  ? &s->data_test_x
							      : &s->data_test_y;

		if (!*v)
			return "must be a file path";
		*f = v;
	} else if (!strcmp(k, "data.label_column")) {
		if (!strcmp(v, "last"))
			s->data_label_column = WSE_TRAIN_LAST_COLUMN;
		else if (parse_u64(v, 0, 65536, &u))
			return "must be a column number from 0, or last";
		else
			s->data_label_column = (uint32_t)u;
	} else if (!strcmp(k, "optimizer.name")) {
		if (!strcmp(v, "sgd") || !strcmp(v, "adam") || !strcmp(v, "adamw"))
			s->optimizer = v;
		else
			return "must be sgd, adam or adamw";
	} else if (!strcmp(k, "runtime.backend")) {
		const struct train_backend_ops *be = train_backend_find(v);

		if (!be)
			return "must be mesh or host-reference";
		s->backend = be->name;
	} else if (!strcmp(k, "runtime.device")) {
		if (strlen(v) >= sizeof(((struct tr_params *)0)->device))
			return "URI too long";
		s->device = v;
	} else if (!strcmp(k, "runtime.devices")) {
		char buf[sizeof(((struct tr_params *)0)->devlist)];
		const char *uri[WSE_TRAIN_MAX_DEVICES];
		const char *why = devices_parse(v, buf, sizeof(buf), uri, &(unsigned){ 0 });

		if (why)
			return why;
		s->devices = v;
	} else if (!strcmp(k, "runtime.mesh")) {
		unsigned r, c;
		char x;

		if (sscanf(v, "%ux%u%c", &r, &c, &x) != 2 || r < 1 || r > 64 || c < 1 || c > 64)
			return "must be ROWSxCOLUMNS, each 1..64 (e.g. 4x4)";
		s->mesh_rows = r;
		s->mesh_cols = c;
	} else if (!strcmp(k, "runtime.host_update")) {
		if (strcmp(v, "overlap") && strcmp(v, "serial"))
			return "must be overlap or serial";
		s->host_update = v;
	} else if (!strcmp(k, "runtime.memoryx_file")) {
		if (strlen(v) >= sizeof(((struct tr_params *)0)->memoryx_file))
			return "path too long";
		s->memoryx_file = v;
	} else if (!strncmp(k, "run.", 4)) {
		/* settings of the tool driving the API (wsetrain); kept */
	} else {
		return "unknown key";
	}
	return NULL;
}

/* Parse the params file into spec; every key = value stays in t->p (and
 * the spec's strings point there). */
static int params_load(wse_train *t, const char *path, struct wse_train_spec *s)
{
	struct tr_params *p = &t->p;
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned ln = 0;

	spec_defaults(s);
	s->data_dir = FM_DEFAULT_DIR;
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
		char *str = trim(line);

		if (!*str)
			continue;
		char *eq = strchr(str, '=');

		if (!eq) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "params %s:%u: expected 'key = value', got '%s'", path, ln, str);
		}
		*eq = 0;
		char *k = trim(str), *v = trim(eq + 1);

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
		snprintf(p->key[p->nkv], sizeof(p->key[0]), "%s", k);
		snprintf(p->val[p->nkv], sizeof(p->val[0]), "%s", v);
		const char *why = params_set(s, k, p->val[p->nkv]);

		if (why) {
			fclose(f);
			return tr_fail(t, WSE_ERROR_INVALID_PARAM, "params %s:%u: %s = '%s': %s",
				       path, ln, k, v, why);
		}
		p->nkv++;
	}
	fclose(f);
	if (s->num_layers == 0)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers is missing (e.g. model.layers = 196, 64, 10)",
			       path);
	if (s->device && s->devices)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: runtime.device and runtime.devices: give one of them", path);
	if (s->data_format && strcmp(s->data_format, "fmnist")) {
		/* the caller's files: checked against the model when read */
		if (wse_train_get_param(t, "data.dir"))
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "params %s: data.dir is for data.format = fmnist; data.format = %s reads data.train_x, data.train_y, data.test_x, data.test_y",
				       path, s->data_format);
		s->data_dir = NULL;
		return 0;
	}
	if (s->data_train_x || s->data_train_y || s->data_test_x || s->data_test_y)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: data.train_x, data.train_y, data.test_x, data.test_y: only with data.format idx, npy or csv",
			       path);
	unsigned nf = (28 / s->data_pool) * (28 / s->data_pool);

	if (s->widths[0] != nf)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers starts with %u inputs, but images with data.pool = %u have %u features",
			       path, s->widths[0], s->data_pool, nf);
	if (s->widths[s->num_layers] != 10)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "params %s: model.layers ends with %u classes; Fashion-MNIST has 10",
			       path, s->widths[s->num_layers]);
	return 0;
}

/* A spec's string field into buf: NULL counts as dflt. */
static int spec_str(wse_train *t, const char *field, const char *v, const char *dflt,
		    char *buf, size_t size)
{
	if (!v)
		v = dflt;
	if (strlen(v) >= size)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "spec.%s: longer than %zu bytes",
			       field, size - 1);
	snprintf(buf, size, "%s", v);
	return 0;
}

/* The dataset fields of a spec resolved in t->p (format and paths): which
 * are needed and which must be absent for the format. */
static int spec_files(wse_train *t, const struct wse_train_spec *s)
{
	struct tr_params *p = &t->p;

	if (p->format == DS_FMNIST) {
		if (p->train_x[0] || p->train_y[0] || p->test_x[0] || p->test_y[0])
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "spec.data_train_x, data_train_y, data_test_x, data_test_y (data.train_x, ...): only with data_format (data.format) idx, npy or csv");
		return 0;
	}
	const char *fmt = s->data_format;

	if (p->data_dir[0])
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.data_dir (data.dir): only with data_format (data.format) fmnist, not %s",
			       fmt);
	if (s->data_pool != 1)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.data_pool (data.pool) = %u: pooling is for data_format fmnist, not %s",
			       s->data_pool, fmt);
	if (!p->train_x[0])
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.data_train_x (data.train_x): required with data_format (data.format) %s",
			       fmt);
	if (p->format == DS_CSV) {
		if (p->train_y[0] || p->test_y[0])
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "spec.data_train_y, data_test_y (data.train_y, data.test_y): not with data_format (data.format) csv, whose files hold the label in column data_label_column (data.label_column)");
		return 0;
	}
	if (!p->train_y[0] || !p->test_x[0] != !p->test_y[0])
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.data_train_y, data_test_y (data.train_y, data.test_y): data_format (data.format) %s needs a labels file for each inputs file",
			       fmt);
	return 0;
}

/* Check a spec (the params file's checks, by field) and resolve it into
 * t->p. */
static int spec_apply(wse_train *t, const struct wse_train_spec *s)
{
	struct tr_params *p = &t->p;
	int rc;

	for (size_t q = 0; q < sizeof(tr_nums) / sizeof(tr_nums[0]); q++) {
		double x = num_get(&tr_nums[q], s);

		if (!num_in_range(&tr_nums[q], x))
			return tr_fail(t, WSE_ERROR_INVALID_PARAM, "spec.%s = %g: %s",
				       tr_nums[q].field, x, tr_nums[q].why);
	}
	if (s->num_layers < 1 || s->num_layers > WSE_TRAIN_MAX_LAYERS)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.num_layers = %u: must be 1..%u weight layers", s->num_layers,
			       WSE_TRAIN_MAX_LAYERS);
	for (unsigned l = 0; l <= s->num_layers; l++)
		if (s->widths[l] < 1 || s->widths[l] > WSE_TRAIN_MAX_WIDTH)
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "spec.widths[%u] = %u: must be 1..%u", l, s->widths[l],
				       WSE_TRAIN_MAX_WIDTH);
	uint32_t classes = s->widths[s->num_layers];

	if (classes < 2 || classes > WSE_TRAIN_MAX_CLASSES)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.widths[%u] = %u classes: must be 2..%u", s->num_layers, classes,
			       WSE_TRAIN_MAX_CLASSES);
	const char *opt = s->optimizer ? s->optimizer : "sgd";

	if (!strcmp(opt, "sgd"))
		p->opt.kind = MX_OPT_SGD;
	else if (!strcmp(opt, "adam"))
		p->opt.kind = MX_OPT_ADAM;
	else if (!strcmp(opt, "adamw"))
		p->opt.kind = MX_OPT_ADAMW;
	else
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.optimizer = '%s': must be sgd, adam or adamw", opt);
	const char *bn = s->backend ? s->backend : "host-reference";
	const struct train_backend_ops *be = train_backend_find(bn);

	if (!be)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.backend = '%s': must be mesh or host-reference", bn);
	if (s->mesh_rows > 64 || s->mesh_cols > 64 || !s->mesh_rows != !s->mesh_cols)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.mesh_rows, mesh_cols = %u, %u: each 1..64, or both 0",
			       s->mesh_rows, s->mesh_cols);
	if ((rc = spec_str(t, "backend", be->name, NULL, p->backend, sizeof(p->backend))) ||
	    (rc = spec_str(t, "device", s->device, "", p->device, sizeof(p->device))) ||
	    (rc = spec_str(t, "data_dir", s->data_dir, "", p->data_dir, sizeof(p->data_dir))) ||
	    (rc = spec_str(t, "memoryx_file", s->memoryx_file, "", p->memoryx_file,
			   sizeof(p->memoryx_file))))
		return rc;
	if (s->host_update && strcmp(s->host_update, "overlap") &&
	    strcmp(s->host_update, "serial"))
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.host_update = '%s': must be overlap or serial", s->host_update);
	p->overlap = !s->host_update || !strcmp(s->host_update, "overlap");
	if (ds_format_parse(s->data_format, &p->format))
		return tr_fail(t, WSE_ERROR_INVALID_PARAM,
			       "spec.data_format = '%s': must be fmnist, idx, npy or csv",
			       s->data_format);
	if ((rc = spec_str(t, "data_train_x", s->data_train_x, "", p->train_x, sizeof(p->train_x))) ||
	    (rc = spec_str(t, "data_train_y", s->data_train_y, "", p->train_y, sizeof(p->train_y))) ||
	    (rc = spec_str(t, "data_test_x", s->data_test_x, "", p->test_x, sizeof(p->test_x))) ||
	    (rc = spec_str(t, "data_test_y", s->data_test_y, "", p->test_y, sizeof(p->test_y))))
		return rc;
	if ((rc = spec_files(t, s)))
		return rc;
	p->nuri = 0;
	if (s->devices) {
		const char *why = s->device && *s->device
					  ? "not with spec.device (runtime.device)"
					  : devices_parse(s->devices, p->devlist, sizeof(p->devlist),
							  p->uri, &p->nuri);

		if (why)
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "spec.devices (runtime.devices) = '%s': %s", s->devices, why);
	}
	p->label_column = s->data_label_column;
	p->has_data = p->data_dir[0] || p->train_x[0];
	if (p->data_dir[0]) {
		unsigned nf = (28 / s->data_pool) * (28 / s->data_pool);

		if (s->widths[0] != nf || classes != 10)
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "spec.widths: %u inputs and %u classes; Fashion-MNIST with data_pool = %u has %u features and 10 classes",
				       s->widths[0], classes, s->data_pool, nf);
	}
	p->nlayers = s->num_layers;
	for (unsigned l = 0; l <= s->num_layers; l++)
		p->dims[l] = s->widths[l];
	p->init_seed = s->init_seed;
	p->pool = s->data_pool;
	p->shuffle = (int)s->data_shuffle;
	p->shuffle_seed = s->data_shuffle_seed;
	p->batch = s->batch_size;
	p->micro = s->micro_batches;
	p->opt.lr = s->lr;
	p->opt.momentum = s->momentum;
	p->opt.beta1 = s->beta1;
	p->opt.beta2 = s->beta2;
	p->opt.eps = s->eps;
	p->opt.weight_decay = s->weight_decay;
	p->rows = s->mesh_rows ? s->mesh_rows : 4;
	p->cols = s->mesh_cols ? s->mesh_cols : 4;
	p->timeout_ms = s->timeout_ms;
	p->sparsity = s->sparsity;
	p->sparsity_seed = s->sparsity_seed;
	p->prune_step = s->prune_step;
	if (p->sparsity > 0.0f && ((be != &train_backend_ref && be != &train_backend_mesh) || t->devs))
		return tr_fail(t, WSE_ERROR_NOT_SUPPORTED,
			       "spec.sparsity (model.sparsity) = %g: sparse training runs on the host-reference and mesh backends of one device; the %s backend does not stream masks",
			       (double)p->sparsity, t->devs ? t->devs->name : be->name);
	return 0;
}

/* ---- handle ------------------------------------------------------------- */

/* Layer l's mask, if any, on MemoryX: the masked weights and their
 * optimizer state set to +0, and their gradients in g (if not NULL)
 * dropped (+0). */
static void tr_mask_apply(wse_train *t, unsigned l, float *g)
{
	if (t->im[l] < 0)
		return;
	const float *m = mx_store_data(&t->st, t->im[l]);
	float *w = mx_store_data(&t->st, t->iw[l]);
	float *s1 = mx_store_data(&t->st, t->s1[2 * l]), *s2 = mx_store_data(&t->st, t->s2[2 * l]);

	for (size_t k = 0; k < t->st.t[t->im[l]].count; k++)
		if (m[k] == 0.0f) {
			w[k] = 0.0f;
			if (s1)
				s1[k] = 0.0f;
			if (s2)
				s2[k] = 0.0f;
			if (g)
				g[k] = 0.0f;
		}
}

/* After the caller or a file changed MemoryX: every mask must hold only
 * +1.0 and +0.0 (else the arena is restored from backup, if any, and the
 * call fails), then the masks are applied. */
static int tr_masks_changed(wse_train *t, const float *backup, const char *what)
{
	for (unsigned l = 0; l < t->p.nlayers; l++) {
		if (t->im[l] < 0)
			continue;
		size_t bad = sp_mask_check(t->st.t[t->im[l]].count, mx_store_data(&t->st, t->im[l]));

		if (bad) {
			float v = mx_store_data(&t->st, t->im[l])[bad - 1];

			if (backup)
				memcpy(t->st.arena, backup, t->st.arena_elems * sizeof(float));
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "%s: tensor '%s' element %zu is %g: a mask holds only 1 (kept) and 0 (masked); nothing was changed",
				       what, t->st.t[t->im[l]].name, bad - 1, (double)v);
		}
	}
	for (unsigned l = 0; l < t->p.nlayers; l++)
		tr_mask_apply(t, l, NULL);
	return 0;
}

static float init_uniform(uint64_t *rng, float bound)
{
	float u = (float)(fm_splitmix64(rng) >> 40) * (1.0f / 16777216.0f); /* [0,1) */

	return (2.0f * u - 1.0f) * bound;
}

static int fault_env(wse_train *t)
{
	const char *s = getenv("WSE_TRAIN_FAULT_KILL_STEP");

	t->fault_kill_step = s ? atol(s) : -1;
	s = getenv("WSE_TRAIN_FAULT_FAIL_STEP");
	t->fault_fail_step = s ? atol(s) : -1;
	s = getenv("WSE_TRAIN_FAULT_CKPT_KILL");
	t->fault_ckpt_step = -1;
	if (s && sscanf(s, "%ld:%lld", &t->fault_ckpt_step, &t->fault_ckpt_bytes) != 2)
		t->fault_ckpt_step = -1;
	return 0;
}

/* A new handle for opts, or NULL with *rc and err set. */
static wse_train *tr_new(const char *fn, const struct wse_train_opts *opts, int *rc, char *err,
			 size_t errlen)
{
	unsigned ndev = (opts && opts->size >= offsetof(struct wse_train_opts, num_devices) +
				     sizeof(unsigned)) ? opts->num_devices : 0;
	wse_train *t = calloc(1, sizeof(*t));

	if (!t) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", fn);
		*rc = WSE_ERROR_NO_MEM;
		return NULL;
	}
	mx_store_init(&t->st);
	fault_env(t);
	t->wver = 1;
	t->req_dev = ndev;
	return t;
}

/* The device count and each device's URI, from opts->num_devices and
 * runtime.device or runtime.devices. */
static int devices_resolve(wse_train *t)
{
	struct tr_params *p = &t->p;
	unsigned N = t->req_dev;

	if (p->nuri) {
		if (N && N != p->nuri)
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "num_devices %u, but runtime.devices lists %u devices", N,
				       p->nuri);
		N = p->nuri;
	} else if (N > WSE_TRAIN_MAX_DEVICES) {
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "num_devices %u: at most %u devices", N,
			       WSE_TRAIN_MAX_DEVICES);
	}
	t->ndev = N ? N : 1;
	for (unsigned d = 0; d < t->ndev; d++)
		t->dev_uri[d] = p->nuri ? p->uri[d] : p->device;
	return 0;
}

/* Device d's name in errors: its URI, or the backend's name. */
static const char *dev_name(const wse_train *t, unsigned d)
{
	if (strcmp(t->p.backend, "mesh"))
		return t->p.backend;
	return *t->dev_uri[d] ? t->dev_uri[d] : "the default device";
}

/* t->err, prefixed with device d when the handle has several. */
static int dev_fail(wse_train *t, int rc, unsigned d, const char *what, const char *msg)
{
	if (t->ndev == 1) {
		if (msg != t->err)
			snprintf(t->err, sizeof(t->err), "%s", msg);
		return rc;
	}
	char m[sizeof(t->err)];

	snprintf(m, sizeof(m), "%s", msg);
	return tr_fail(t, rc, "device %u of %u (%s)%s: %s", d, t->ndev, dev_name(t, d), what, m);
}

/* Open the backend once per device; every device must have the first
 * one's mesh. */
static int devices_open(wse_train *t)
{
	struct tr_params *p = &t->p;
	const struct train_backend_ops *be = train_backend_find(p->backend);

	if (!be)
		return tr_fail(t, WSE_ERROR_NOT_SUPPORTED, "runtime.backend %s: no such backend",
			       p->backend);
	t->be = t->devs ? t->devs : be;
	for (unsigned d = 0; d < t->ndev; d++) {
		struct train_backend_cfg cfg = {
			.backend = p->backend, .index = d, .device = t->dev_uri[d], .timeout_ms = p->timeout_ms,
			.nlayers = p->nlayers, .dims = p->dims, .max_batch = p->batch,
			.rows = p->rows, .cols = p->cols,
		};
		int rc = t->be->open(&t->bs[d], &cfg, t->err, sizeof(t->err));

		if (rc)
			return dev_fail(t, rc, d, "", t->err);
		t->nopen++;
		if (d == 0) {
			p->rows = cfg.rows; /* the reference order follows the device */
			p->cols = cfg.cols;
		} else if (cfg.rows != p->rows || cfg.cols != p->cols) {
			return tr_fail(t, WSE_ERROR_NOT_SUPPORTED,
				       "device %u (%s) has a %ux%u mesh (rows x columns) but device 0 (%s) has %ux%u: all devices must have the same mesh",
				       d, dev_name(t, d), cfg.rows, cfg.cols, dev_name(t, 0), p->rows,
				       p->cols);
		}
	}
	return 0;
}

/* Build the handle t from the spec (checked by spec_apply): MemoryX,
 * initial weights, the dataset if any, the backend. On failure t is
 * destroyed and err gets the last error. */
static int tr_build(wse_train **out, wse_train *t, const struct wse_train_spec *spec,
		    const struct wse_train_opts *opts, char *err, size_t errlen)
{
	int rc;
	char ename[MX_NAME_MAX + 1];
	const char *model_dir = (opts && opts->size >= offsetof(struct wse_train_opts, model_dir) +
					 sizeof(char *)) ? opts->model_dir : NULL;

	rc = spec_apply(t, spec);
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
	for (unsigned l = 0; l < p->nlayers; l++) {
		t->im[l] = -1;
		if (p->sparsity > 0.0f) {
			snprintf(ename, sizeof(ename), "layer%u.weight.mask", l);
			t->im[l] = mx_store_add(&t->st, ename, 2, t->st.t[t->iw[l]].dims);
			if (t->im[l] >= 0)
				t->st.t[t->im[l]].optional = 1;
		}
	}
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
	/* masks: a fixed random one per matrix, or all kept until prune_step */
	uint64_t mseed = p->sparsity_seed;

	for (unsigned l = 0; l < p->nlayers && p->sparsity > 0.0f; l++) {
		float *m = mx_store_data(&t->st, t->im[l]);
		size_t n = t->st.t[t->im[l]].count;
		uint64_t seed = fm_splitmix64(&mseed);

		if (p->prune_step) {
			for (size_t k = 0; k < n; k++)
				m[k] = 1.0f;
		} else if (sp_mask_random(n, p->sparsity, seed, m)) {
			rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory choosing the mask of layer %u",
				     l);
			goto fail;
		}
		tr_mask_apply(t, l, NULL);
	}
	/* data */
	if (p->has_data) {
		rc = p->data_dir[0]
			     ? fm_load(p->data_dir, 1, p->pool, &t->train, t->err, sizeof(t->err))
			     : ds_load(p->format, p->train_x, p->train_y, p->label_column, p->dims[0],
				       p->dims[p->nlayers], &t->train, t->err, sizeof(t->err));
		if (rc)
			goto fail;
		t->perm = malloc((size_t)t->train.n * sizeof(uint32_t));
		if (!t->perm) {
			rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
			goto fail;
		}
		fm_epoch_order(t->train.n, p->shuffle, p->shuffle_seed, 0, t->perm);
	}
	if ((rc = devices_resolve(t)))
		goto fail;
	unsigned N = t->ndev;

	t->xb = malloc((size_t)N * p->batch * p->dims[0] * sizeof(float));
	t->yb = malloc((size_t)N * p->batch);
	t->jobs = calloc(N, sizeof(*t->jobs));
	if (!t->xb || !t->yb || !t->jobs) {
		rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
		goto fail;
	}
	for (unsigned q = 0; q < 2 * p->nlayers; q++) {
		size_t n = t->st.t[q % 2 ? t->ib[q / 2] : t->iw[q / 2]].count;

		if (!(t->g[q] = calloc(n, sizeof(float)))) {
			rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
			goto fail;
		}
		for (unsigned d = 0; d < N; d++)
			if (!(t->gt[d][q] = calloc(n, sizeof(float)))) {
				rc = tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
				goto fail;
			}
	}
	if ((rc = devices_open(t)))
		goto fail;
	if (p->overlap && (rc = upd_start(t)))
		goto fail;
	*out = t;
	return 0;
fail:
	if (err && errlen)
		snprintf(err, errlen, "%s", t->err);
	wse_train_destroy(t);
	return rc;
}

int wse_train_create(wse_train **out, const char *params_file,
		     const struct wse_train_opts *opts, char *err, size_t errlen)
{
	return train_create_devs(out, params_file, opts, NULL, err, errlen);
}

int train_create_devs(wse_train **out, const char *params_file,
		      const struct wse_train_opts *opts,
		      const struct train_backend_ops *devs, char *err, size_t errlen)
{
	struct wse_train_spec spec;
	wse_train *t;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !params_file) {
		if (err && errlen)
			snprintf(err, errlen, "wse_train_create: NULL argument");
		return WSE_ERROR_INVALID_PARAM;
	}
	if (!(t = tr_new("wse_train_create", opts, &rc, err, errlen)))
		return rc;
	t->devs = devs;
	rc = params_load(t, params_file, &spec);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s", t->err);
		wse_train_destroy(t);
		return rc;
	}
	return tr_build(out, t, &spec, opts, err, errlen);
}

int wse_train_create_model(wse_train **out, const struct wse_train_spec *spec,
			   const struct wse_train_opts *opts, char *err, size_t errlen)
{
	struct wse_train_spec s;
	wse_train *t;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !spec || spec->size < offsetof(struct wse_train_spec, optimizer)) {
		if (err && errlen)
			snprintf(err, errlen, "wse_train_create_model: %s",
				 out && spec ? "spec.size too small (use wse_train_spec_init)"
					     : "NULL argument");
		return WSE_ERROR_INVALID_PARAM;
	}
	/* fields past the caller's size keep their defaults */
	spec_defaults(&s);
	memcpy(&s, spec, spec->size < sizeof(s) ? spec->size : sizeof(s));
	s.size = sizeof(s);
	if (!(t = tr_new("wse_train_create_model", opts, &rc, err, errlen)))
		return rc;
	return tr_build(out, t, &s, opts, err, errlen);
}

void wse_train_destroy(wse_train *t)
{
	if (!t)
		return;
	if (upd_stop(t))
		return; /* an update still runs on the handle's memory: it stays */
	for (unsigned d = 0; d < t->nopen; d++)
		t->be->close(t->bs[d]);
	mx_store_free(&t->st);
	fm_free(&t->train);
	fm_free(&t->test);
	free(t->perm);
	free(t->xb);
	free(t->yb);
	for (unsigned q = 0; q < 2 * TRAIN_REF_MAX_LAYERS; q++) {
		free(t->g[q]);
		for (unsigned d = 0; d < WSE_TRAIN_MAX_DEVICES; d++)
			free(t->gt[d][q]);
		free(t->bk[q]);
	}
	free(t->jobs);
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
	net->version = t->wver;
	for (unsigned l = 0; l < t->p.nlayers; l++) {
		net->w[l] = mx_store_data(&t->st, t->iw[l]);
		net->b[l] = mx_store_data(&t->st, t->ib[l]);
		net->mask[l] = t->im[l] >= 0 ? mx_store_data(&t->st, t->im[l]) : NULL;
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

/* ---- the host update beside the device (struct tr_upd) ----------------- */


/* Parameter q's tensor (the weights of layer q / 2 or, q odd, its biases). */
static int param_tensor(const wse_train *t, unsigned q)
{
	return q % 2 ? t->ib[q / 2] : t->iw[q / 2];
}

/* Layer l's update with the serial order's operations: the gradients of
 * the jobs in fold added into g in that order, the old values kept in bk,
 * then mx_opt_update on the weights and on the biases. */
static void upd_layer(wse_train *t, unsigned l, const struct mx_opt_scalars *sc,
		      unsigned nfold, const unsigned *fold)
{
	for (unsigned q = 2 * l; q < 2 * l + 2; q++) {
		int ip = param_tensor(t, q);
		size_t n = t->st.t[ip].count;
		float *w = mx_store_data(&t->st, ip);
		float *s1 = mx_store_data(&t->st, t->s1[q]), *s2 = mx_store_data(&t->st, t->s2[q]);

		for (unsigned k = 0; k < nfold; k++)
			mx_grad_accumulate(n, t->g[q], t->gt[fold[k]][q]);
		memcpy(t->bk[q], w, n * sizeof(float));
		if (s1)
			memcpy(t->bk[q] + n, s1, n * sizeof(float));
		if (s2)
			memcpy(t->bk[q] + 2 * n, s2, n * sizeof(float));
		if (q % 2 == 0)
			tr_mask_apply(t, l, t->g[q]);
		mx_opt_update(&t->p.opt, sc, n, w, s1, s2, t->g[q]);
		if (q % 2 == 0)
			tr_mask_apply(t, l, NULL);
	}
}

/* The update thread: the queued layers, highest first (the order their
 * gradients come out in). */
static void *upd_main(void *arg)
{
	wse_train *t = arg;
	struct tr_upd *u = t->upd;

	pthread_mutex_lock(&u->mu);
	for (;;) {
		if (!u->queued) {
			if (u->stop)
				break;
			/* idle until a layer is queued or the handle goes; the
			 * bound only makes it look again */
			struct timespec ts = tr_deadline(1000);

			pthread_cond_timedwait(&u->cv, &u->mu, &ts);
			continue;
		}
		unsigned l = 31u - (unsigned)__builtin_clz(u->queued), bit = 1u << l;
		struct mx_opt_scalars sc = u->lsc[l];
		unsigned nfold = u->lnfold[l], fold[WSE_TRAIN_MAX_DEVICES];

		memcpy(fold, u->lfold[l], nfold * sizeof(unsigned));
		u->queued &= ~bit;
		u->busy |= bit;
		pthread_mutex_unlock(&u->mu);
		double t0 = tr_now_ms();

		upd_layer(t, l, &sc, nfold, fold);
		double ms = tr_now_ms() - t0;

		pthread_mutex_lock(&u->mu);
		u->busy &= ~bit;
		if (u->lgen[l] == u->gen)
			u->ran |= bit;
		u->st.updates++;
		u->st.busy_ms += ms;
		pthread_cond_broadcast(&u->cv);
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

/* Wait until no layer of mask is queued or being updated, at most
 * runtime.timeout_ms: 0 or TIMEOUT. The time during which any thread
 * waits here is the update time the device did not hide. */
static int upd_wait(wse_train *t, unsigned mask)
{
	struct tr_upd *u = t->upd;
	struct timespec ts = tr_deadline(t->p.timeout_ms);
	int late, e = 0;

	pthread_mutex_lock(&u->mu);
	if ((u->queued | u->busy) & mask) {
		if (u->waiters++ == 0)
			u->wait_t0 = tr_now_ms();
		while (((u->queued | u->busy) & mask) && e != ETIMEDOUT)
			e = pthread_cond_timedwait(&u->cv, &u->mu, &ts);
		if (--u->waiters == 0)
			u->st.exposed_ms += tr_now_ms() - u->wait_t0;
	}
	late = ((u->queued | u->busy) & mask) != 0;
	pthread_mutex_unlock(&u->mu);
	return late ? WSE_ERROR_TIMEOUT : 0;
}

/* Hook weights_ready of a pass (user: its job). */
static int upd_weights_ready(void *user, unsigned l)
{
	const struct tr_job *j = user;

	return upd_wait(j->t, 1u << l);
}

/* Hook grads_out of a pass of the step's last round: the layer is queued
 * once every pass of the round has reported it. */
static void upd_grads_out(void *user, unsigned l)
{
	const struct tr_job *j = user;
	struct tr_upd *u = j->t->upd;

	pthread_mutex_lock(&u->mu);
	if (++u->seen[l] == u->want) {
		u->lgen[l] = u->gen;
		u->lsc[l] = u->sc;
		u->lnfold[l] = u->nfold;
		memcpy(u->lfold[l], u->fold, u->nfold * sizeof(unsigned));
		u->queued |= 1u << l;
		pthread_cond_broadcast(&u->cv);
	}
	pthread_mutex_unlock(&u->mu);
}

/* Hook grads_out of the other rounds: their gradients are summed after the
 * round. */
static void upd_grads_kept(void *user, unsigned l)
{
	(void)user, (void)l;
}

/* The n jobs set up next are the step's last round: each layer is updated
 * with sc once all n have reported it, the gradients of the jobs of a
 * micro-batch other than 0 added into g first, in job order. */
static void upd_arm(wse_train *t, unsigned n, const struct mx_opt_scalars *sc)
{
	struct tr_upd *u = t->upd;

	pthread_mutex_lock(&u->mu);
	u->gen++;
	u->want = n;
	memset(u->seen, 0, sizeof(u->seen));
	u->sc = *sc;
	u->nfold = 0;
	for (unsigned d = 0; d < n; d++) {
		t->jobs[d].hooks.grads_out = upd_grads_out;
		if (t->jobs[d].mb)
			u->fold[u->nfold++] = d;
	}
	u->ran = 0;
	pthread_mutex_unlock(&u->mu);
}

/* The step's last round failed (rc, the last error): once the layers it
 * queued are updated, put back their values of before the step. */
static int upd_undo(wse_train *t, int rc)
{
	struct tr_upd *u = t->upd;

	t->wver++;
	if (upd_wait(t, ~0u)) {
		size_t n = strlen(t->err);

		snprintf(t->err + n, sizeof(t->err) - n,
			 "; and the host update of the layers before the failure did not end within runtime.timeout_ms (%d ms): the weights are in an unknown state, load a checkpoint",
			 t->p.timeout_ms);
		return rc;
	}
	pthread_mutex_lock(&u->mu);
	unsigned ran = u->ran;

	u->ran = 0;
	pthread_mutex_unlock(&u->mu);
	for (unsigned q = 0; q < 2 * t->p.nlayers; q++) {
		int ip = param_tensor(t, q);
		size_t n = t->st.t[ip].count;
		float *s1 = mx_store_data(&t->st, t->s1[q]), *s2 = mx_store_data(&t->st, t->s2[q]);

		if (!(ran & 1u << (q / 2)))
			continue;
		memcpy(mx_store_data(&t->st, ip), t->bk[q], n * sizeof(float));
		if (s1)
			memcpy(s1, t->bk[q] + n, n * sizeof(float));
		if (s2)
			memcpy(s2, t->bk[q] + 2 * n, n * sizeof(float));
	}
	return rc;
}

/* Every update in flight ended: for the calls that read or write MemoryX
 * (fn, for the error). */
static int tr_sync(wse_train *t, const char *fn)
{
	t->wver++; /* the caller may change the weights */
	if (!t->upd || !upd_wait(t, ~0u))
		return 0;
	return tr_fail(t, WSE_ERROR_TIMEOUT,
		       "%s: the host update of step %llu did not end within runtime.timeout_ms (%d ms)",
		       fn, (unsigned long long)t->step, t->p.timeout_ms);
}

/* The update thread and the copies of the values before an update. */
static int upd_start(wse_train *t)
{
	struct tr_upd *u = calloc(1, sizeof(*u));
	pthread_condattr_t ca;

	if (!u)
		return tr_fail(t, WSE_ERROR_NO_MEM, "out of memory");
	if (pthread_mutex_init(&u->mu, NULL)) {
		free(u);
		return tr_fail(t, WSE_ERROR_NO_MEM, "cannot create the host update's mutex");
	}
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&u->cv, &ca)) {
		pthread_mutex_destroy(&u->mu);
		free(u);
		return tr_fail(t, WSE_ERROR_NO_MEM, "cannot create the host update's condition");
	}
	pthread_condattr_destroy(&ca);
	t->upd = u;
	for (unsigned q = 0; q < 2 * t->p.nlayers; q++)
		if (!(t->bk[q] = malloc(3 * t->st.t[param_tensor(t, q)].count * sizeof(float))))
			return tr_fail(t, WSE_ERROR_NO_MEM,
				       "out of memory for the host update beside the device (runtime.host_update = serial needs no copy)");
	if (pthread_create(&u->th, NULL, upd_main, t))
		return tr_fail(t, WSE_ERROR_NO_MEM,
			       "cannot start the host update thread (runtime.host_update = serial needs none)");
	t->upd_started = 1;
	return 0;
}

/* Stop the update thread; -1 if an update did not end within the
 * time-out (its thread then still uses the handle, which must stay). */
static int upd_stop(wse_train *t)
{
	struct tr_upd *u = t->upd;

	if (!u)
		return 0;
	if (t->upd_started) {
		int late = upd_wait(t, ~0u);

		pthread_mutex_lock(&u->mu);
		u->stop = 1;
		pthread_cond_broadcast(&u->cv);
		pthread_mutex_unlock(&u->mu);
		if (late) {
			pthread_detach(u->th);
			return -1;
		}
		pthread_join(u->th, NULL);
	}
	pthread_cond_destroy(&u->cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
	t->upd = NULL;
	return 0;
}

int train_update_stats(wse_train *t, struct train_update_stats *st)
{
	if (!t || !st)
		return WSE_ERROR_INVALID_PARAM;
	int rc = tr_sync(t, "train_update_stats");

	if (rc)
		return rc;
	if (t->upd) {
		pthread_mutex_lock(&t->upd->mu);
		*st = t->upd->st;
		pthread_mutex_unlock(&t->upd->mu);
	} else {
		*st = t->ust;
	}
	st->steps = t->sst.steps;
	st->step_ms = t->sst.step_ms;
	st->pass_ms = t->sst.pass_ms;
	return 0;
}

static void *job_run(void *arg)
{
	struct tr_job *j = arg;

	double t0 = tr_now_ms();

	j->rc = j->t->be->pass(j->t->bs[j->dev], j->net, j->x, j->y, j->B, j->norm, &j->o,
			       j->t->upd ? &j->hooks : NULL, j->err, sizeof(j->err));
	j->ms = j->o.ms > 0 ? j->o.ms : tr_now_ms() - t0;
	return NULL;
}

/* Job d (d < n) of t->jobs: device d's pass of batch mb, x and y from
 * device d's part of t->xb and t->yb unless given, its gradients into g
 * (mb 0 of a step) or t->gt[d] when grads, the weights from net (MemoryX's
 * copy, which every device reads). */
static struct tr_job *job_init(wse_train *t, unsigned d, unsigned mb,
			       const struct train_ref_net *net, unsigned B, unsigned norm,
			       int grads)
{
	struct tr_job *j = &t->jobs[d];

	memset(j, 0, sizeof(*j));
	j->t = t;
	j->dev = d;
	j->mb = mb;
	j->net = net;
	j->x = t->xb + (size_t)d * t->p.batch * t->p.dims[0];
	j->y = t->yb + (size_t)d * t->p.batch;
	j->B = B;
	j->norm = norm;
	j->hooks = (struct train_pass_hooks){ .weights_ready = upd_weights_ready,
					      .grads_out = upd_grads_kept, .user = j };
	for (unsigned l = 0; grads && l < t->p.nlayers; l++) {
		j->o.dw[l] = mb ? t->gt[d][2 * l] : t->g[2 * l];
		j->o.db[l] = mb ? t->gt[d][2 * l + 1] : t->g[2 * l + 1];
	}
	return j;
}

/* Run jobs 0..n-1 at the same time, each on a thread of its own (job 0
 * on the caller's), and join them all. Returns 0 or the error of the
 * first failed job in job order, whose device the last error names. */
static int run_round(wse_train *t, unsigned n, const char *what)
{
	pthread_t th[WSE_TRAIN_MAX_DEVICES];
	int started[WSE_TRAIN_MAX_DEVICES] = { 0 };

	for (unsigned d = 1; d < n; d++)
		started[d] = pthread_create(&th[d], NULL, job_run, &t->jobs[d]) == 0;
	job_run(&t->jobs[0]);
	for (unsigned d = 1; d < n; d++) {
		if (started[d])
			pthread_join(th[d], NULL);
		else
			job_run(&t->jobs[d]); /* no thread: run it here */
	}
	for (unsigned d = 0; d < n; d++) {
		const struct tr_job *j = &t->jobs[d];

		if (j->rc) {
			char w[64];

			snprintf(w, sizeof(w), ", %s %u", what, j->mb);
			return dev_fail(t, j->rc, d, w, j->err);
		}
	}
	return 0;
}

/* Fold jobs 0..n-1 into the step's sums, in job order: the gradients of
 * every job but mb 0's added into g, the loss, correct count and
 * cycles. */
static void fold_round(wse_train *t, unsigned n, int grads, float *loss_sum, uint32_t *correct,
		       uint64_t cycles[WSE_TRAIN_MAX_DEVICES])
{
	for (unsigned d = 0; d < n; d++) {
		const struct tr_job *j = &t->jobs[d];

		if (grads && j->mb)
			for (unsigned q = 0; q < 2 * t->p.nlayers; q++)
				mx_grad_accumulate(t->st.t[q % 2 ? t->ib[q / 2] : t->iw[q / 2]].count,
						   t->g[q], t->gt[d][q]);
		*loss_sum = *loss_sum + j->o.loss_sum;
		*correct += j->o.correct;
		cycles[d] += j->o.cycles;
	}
}

/* Next batch of the training stream, in the epoch's order, into x and y. */
static void next_batch(wse_train *t, float *xb, uint8_t *yb)
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

		memcpy(xb + (size_t)e * nf, t->train.x + (size_t)k * nf, nf * sizeof(float));
		yb[e] = t->train.y[k];
	}
}

/* The metrics of a call (fields the caller's size reaches). */
static void put_metrics(struct wse_train_metrics *m, uint64_t step, float loss_sum,
			uint32_t norm, uint32_t correct,
			const uint64_t cyc[WSE_TRAIN_MAX_DEVICES], unsigned ndev)
{
	uint64_t cycles = 0, most = 0;

	for (unsigned d = 0; d < ndev; d++) {
		cycles += cyc[d];
		most = cyc[d] > most ? cyc[d] : most;
	}
	if (m && m->size >= offsetof(struct wse_train_metrics, device_cycles)) {
		m->step = step;
		m->loss = loss_sum / (float)norm;
		m->correct = correct;
		m->examples = norm;
	}
	if (m && m->size >= offsetof(struct wse_train_metrics, device_cycles_max))
		m->device_cycles = cycles;
	if (m && m->size >= sizeof(*m))
		m->device_cycles_max = most;
}

/* The optimizer scalars of the step about to run. */
static void step_scalars(wse_train *t, struct mx_opt_scalars *sc)
{
	const float *bp = mx_store_data(&t->st, t->ibeta);

	*sc = (struct mx_opt_scalars){ .t = t->step, .beta1_pow = bp[0], .beta2_pow = bp[1] };
	mx_opt_begin_step(&t->p.opt, sc);
}

/* The end of a step whose passes all succeeded: in the serial order the
 * MemoryX update with the gradients in t->g, parameter by parameter in
 * layer order (with the overlap the update thread has them); then the
 * scalars and the step count. */
static void step_end(wse_train *t, const struct mx_opt_scalars *sc)
{
	struct tr_params *p = &t->p;
	float *bp = mx_store_data(&t->st, t->ibeta);

	t->wver++;
	if (!t->upd) {
		double t0 = tr_now_ms();

		for (unsigned q = 0; q < 2 * p->nlayers; q++) {
			int ip = param_tensor(t, q);

			if (q % 2 == 0)
				tr_mask_apply(t, q / 2, t->g[q]);
			mx_opt_update(&p->opt, sc, t->st.t[ip].count, mx_store_data(&t->st, ip),
				      mx_store_data(&t->st, t->s1[q]),
				      mx_store_data(&t->st, t->s2[q]), t->g[q]);
			if (q % 2 == 0)
				tr_mask_apply(t, q / 2, NULL);
		}
		double ms = tr_now_ms() - t0;

		t->ust.updates += p->nlayers;
		t->ust.busy_ms += ms;
		t->ust.exposed_ms += ms;
	}
	bp[0] = sc->beta1_pow;
	bp[1] = sc->beta2_pow;
	t->step++;
}

/* Magnitude pruning (model.prune_step = N): once step N has ended, every
 * matrix's mask is chosen by |w| and applied (weights and optimizer state
 * of the masked elements +0). */
static int tr_prune_due(wse_train *t, const char *fn)
{
	struct tr_params *p = &t->p;

	if (p->sparsity == 0.0f || !p->prune_step || t->step != p->prune_step)
		return 0;
	int rc = tr_sync(t, fn);

	for (unsigned l = 0; !rc && l < p->nlayers; l++) {
		const struct mx_tensor *mt = &t->st.t[t->im[l]];

		if (sp_mask_magnitude(mt->count, p->sparsity, mx_store_data(&t->st, t->iw[l]),
				      mx_store_data(&t->st, t->im[l])))
			rc = tr_fail(t, WSE_ERROR_NO_MEM, "%s: out of memory pruning layer %u", fn,
				     l);
		else
			tr_mask_apply(t, l, NULL);
	}
	return rc;
}

static int no_dataset(wse_train *t, const char *fn)
{
	return tr_fail(t, WSE_ERROR_NOT_SUPPORTED,
		       "%s: this model was created without a dataset (wse_train_create_model with no data_dir nor data_train_x): train and evaluate it with wse_train_step_batch and wse_train_eval_batch",
		       fn);
}

int wse_train_step(wse_train *t, struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (!t->p.has_data)
		return no_dataset(t, "wse_train_step");
	struct tr_params *p = &t->p;
	struct train_ref_net net;
	unsigned N = t->ndev, norm = p->batch * p->micro * N;
	float loss_sum = 0.0f;
	uint32_t correct = 0;
	uint64_t cycles[WSE_TRAIN_MAX_DEVICES] = { 0 };
	struct mx_opt_scalars sc;

	double t0 = tr_now_ms(), pass_ms = 0;

	ref_net(t, &net);
	step_scalars(t, &sc);
	/* round r: device d runs micro-batch r * N + d */
	for (unsigned r = 0; r < p->micro; r++) {
		int last_upd = t->upd && r + 1 == p->micro;

		for (unsigned d = 0; d < N; d++) {
			struct tr_job *j = job_init(t, d, r * N + d, &net, p->batch, norm, 1);

			next_batch(t, (float *)j->x, (uint8_t *)j->y);
		}
		if (last_upd)
			upd_arm(t, N, &sc);
		int rc = run_round(t, N, "micro-batch");

		if (!rc && r + 1 == p->micro && t->fault_fail_step >= 0 &&
		    t->step + 1 == (uint64_t)t->fault_fail_step)
			rc = tr_fail(t, WSE_ERROR_DEVICE,
				     "fault injection: step %llu fails after its last passes",
				     (unsigned long long)t->step + 1);
		if (rc)
			return last_upd ? upd_undo(t, rc) : rc;
		fold_round(t, N, !last_upd, &loss_sum, &correct, cycles);
		double slowest = 0;

		for (unsigned d = 0; d < N; d++)
			slowest = t->jobs[d].ms > slowest ? t->jobs[d].ms : slowest;
		pass_ms += slowest;
	}
	if (t->fault_kill_step >= 0 && t->step + 1 == (uint64_t)t->fault_kill_step)
		raise(SIGKILL); /* fault injection: killed mid-step */
	step_end(t, &sc);
	int prc = tr_prune_due(t, "wse_train_step");

	if (prc)
		return prc;
	put_metrics(m, t->step, loss_sum, norm, correct, cycles, t->ndev);
	t->sst.steps++;
	t->sst.step_ms += tr_now_ms() - t0;
	t->sst.pass_ms += pass_ms;
	return 0;
}

/* Forward passes over n examples in batches of the batch size: labels
 * y8, or y32 converted batch by batch (t->yb), or none (label 0, for
 * predict); the logits [n, classes] to logits when it is not NULL. */
static int eval_passes(wse_train *t, const float *x, const uint8_t *y8, const int32_t *y32,
		       uint32_t n, float *logits, struct wse_train_metrics *m)
{
	struct train_ref_net net;
	float loss_sum = 0.0f;
	uint32_t correct = 0;
	uint64_t cycles[WSE_TRAIN_MAX_DEVICES] = { 0 };
	const uint32_t bs = t->p.batch;
	int rc = tr_sync(t, "evaluation");

	if (rc)
		return rc;
	ref_net(t, &net);
	/* batch k (examples k * bs ...) on device k % N, N batches a round */
	for (uint32_t e0 = 0; e0 < n; e0 += bs * t->ndev) {
		unsigned nj = 0;

		for (uint32_t e = e0; nj < t->ndev && e < n; e += bs, nj++) {
			unsigned B = n - e < bs ? n - e : bs;
			struct tr_job *j = job_init(t, nj, e / bs, &net, B, B, 0);

			j->x = x + (size_t)e * t->p.dims[0];
			if (y32)
				for (unsigned k = 0; k < B; k++)
					((uint8_t *)j->y)[k] = (uint8_t)y32[e + k];
			else if (y8)
				j->y = y8 + e;
			else
				memset((uint8_t *)j->y, 0, B);
			if (logits)
				j->o.logits = logits + (size_t)e * t->p.dims[t->p.nlayers];
		}
		rc = run_round(t, nj, "batch");
		if (rc)
			return rc;
		fold_round(t, nj, 0, &loss_sum, &correct, cycles);
	}
	put_metrics(m, t->step, loss_sum, n, correct, cycles, t->ndev);
	return 0;
}

int wse_train_eval(wse_train *t, uint32_t max_examples, struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (!t->p.has_data)
		return no_dataset(t, "wse_train_eval");
	int rc;

	if (!t->test_loaded) {
		const struct tr_params *p = &t->p;

		if (!p->data_dir[0] && !p->test_x[0])
			return tr_fail(t, WSE_ERROR_NOT_FOUND,
				       "wse_train_eval: no test split: data.test_x (spec.data_test_x) is not set");
		rc = p->data_dir[0]
			     ? fm_load(p->data_dir, 0, p->pool, &t->test, t->err, sizeof(t->err))
			     : ds_load(p->format, p->test_x, p->test_y, p->label_column, p->dims[0],
				       p->dims[p->nlayers], &t->test, t->err, sizeof(t->err));
		if (rc)
			return rc;
		t->test_loaded = 1;
	}
	uint32_t n = t->test.n;

	if (max_examples && max_examples < n)
		n = max_examples;
	return eval_passes(t, t->test.x, t->test.y, NULL, n, NULL, m);
}

/* The caller's examples: arguments checked, every label in range. */
static int check_batch(wse_train *t, const char *fn, const float *x, const int32_t *labels,
		       uint32_t n, uint32_t max_n)
{
	if (!x || !labels)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "%s: x or labels is NULL", fn);
	if (n == 0)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "%s: no examples (n = 0)", fn);
	if (n > max_n)
		return t->ndev > 1
			       ? tr_fail(t, WSE_ERROR_RANGE,
					 "%s: n = %u examples, above the batch size %u times the %u devices",
					 fn, n, t->p.batch, t->ndev)
			       : tr_fail(t, WSE_ERROR_RANGE,
					 "%s: n = %u examples, above the batch size %u", fn, n, max_n);
	uint32_t K = t->p.dims[t->p.nlayers];

	for (uint32_t e = 0; e < n; e++)
		if (labels[e] < 0 || (uint32_t)labels[e] >= K)
			return tr_fail(t, WSE_ERROR_RANGE,
				       "%s: example %u has label %d; the model has %u classes (0..%u)",
				       fn, e, (int)labels[e], K, K - 1);
	return 0;
}

int wse_train_step_batch(wse_train *t, const float *x, const int32_t *labels, uint32_t n,
			 struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	const unsigned N = t->ndev;
	int rc = check_batch(t, "wse_train_step_batch", x, labels, n, t->p.batch * N);

	if (rc)
		return rc;
	if (n % N)
		return tr_fail(t, WSE_ERROR_RANGE,
			       "wse_train_step_batch: n = %u examples is not a multiple of the %u devices (each device takes n / %u)",
			       n, N, N);
	struct train_ref_net net;
	float loss_sum = 0.0f;
	uint32_t correct = 0, per = n / N;
	uint64_t cycles[WSE_TRAIN_MAX_DEVICES] = { 0 };
	struct mx_opt_scalars sc;

	ref_net(t, &net);
	step_scalars(t, &sc);
	/* device d: examples d * per .. (d + 1) * per - 1, micro-batch d */
	for (unsigned d = 0; d < N; d++) {
		struct tr_job *j = job_init(t, d, d, &net, per, n, 1);

		j->x = x + (size_t)d * per * t->p.dims[0];
		for (uint32_t e = 0; e < per; e++) /* checked: < classes <= 256 */
			((uint8_t *)j->y)[e] = (uint8_t)labels[(size_t)d * per + e];
	}
	if (t->upd)
		upd_arm(t, N, &sc);
	rc = run_round(t, N, "micro-batch");
	if (rc)
		return t->upd ? upd_undo(t, rc) : rc;
	fold_round(t, N, !t->upd, &loss_sum, &correct, cycles);
	step_end(t, &sc);
	rc = tr_prune_due(t, "wse_train_step_batch");
	if (rc)
		return rc;
	put_metrics(m, t->step, loss_sum, n, correct, cycles, t->ndev);
	return 0;
}

int wse_train_eval_batch(wse_train *t, const float *x, const int32_t *labels, uint32_t n,
			 struct wse_train_metrics *m)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	int rc = check_batch(t, "wse_train_eval_batch", x, labels, n, UINT32_MAX);

	return rc ? rc : eval_passes(t, x, NULL, labels, n, NULL, m);
}

int wse_train_predict(wse_train *t, const float *x, uint32_t n, float *logits)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (!x || !logits)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "wse_train_predict: x or logits is NULL");
	if (n == 0)
		return tr_fail(t, WSE_ERROR_INVALID_PARAM, "wse_train_predict: no examples (n = 0)");
	return eval_passes(t, x, NULL, NULL, n, logits, NULL);
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
	int rc = tr_sync(t, "wse_train_get_tensor");

	if (rc)
		return rc;
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
	int rc = tr_sync(t, "wse_train_set_tensor");

	if (rc)
		return rc;
	for (unsigned l = 0; l < t->p.nlayers; l++)
		if (k == t->im[l] && sp_mask_check(count, buf))
			return tr_fail(t, WSE_ERROR_INVALID_PARAM,
				       "wse_train_set_tensor: tensor '%s' element %zu is %g: a mask holds only 1 (kept) and 0 (masked); nothing was changed",
				       name, sp_mask_check(count, buf) - 1,
				       (double)buf[sp_mask_check(count, buf) - 1]);
	memcpy(mx_store_data(&t->st, k), buf, count * sizeof(float));
	return tr_masks_changed(t, NULL, "wse_train_set_tensor");
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
	int rc = tr_sync(t, "wse_train_save");

	if (rc)
		return rc;
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
	int rc = tr_sync(t, "wse_train_load");

	if (rc)
		return rc;
	float *backup = malloc(bytes ? bytes : 1);

	if (!backup)
		return tr_fail(t, WSE_ERROR_NO_MEM, "checkpoint %s: out of memory", path);
	memcpy(backup, t->st.arena, bytes);
	rc = mx_ckpt_load(path, &t->st, &meta, t->err, sizeof(t->err));

	if (rc == 0 && t->perm && meta.data_pos > t->train.n) {
		memcpy(t->st.arena, backup, bytes); /* leave the handle unchanged */
		rc = tr_fail(t, WSE_ERROR_MALFORMED,
			     "checkpoint %s: data position %llu beyond the %u training examples",
			     path, (unsigned long long)meta.data_pos, t->train.n);
	}
	if (rc == 0)
		rc = tr_masks_changed(t, backup, path);
	free(backup);
	if (rc)
		return rc;
	t->step = meta.step;
	t->rng = meta.rng_state;
	t->epoch = meta.data_epoch;
	t->pos = meta.data_pos;
	if (t->perm)
		fm_epoch_order(t->train.n, t->p.shuffle, t->p.shuffle_seed, t->epoch, t->perm);
	t->perm_epoch = t->epoch;
	return 0;
}

int wse_train_export_npz(wse_train *t, const char *path)
{
	if (!t || !path)
		return WSE_ERROR_INVALID_PARAM;
	int rc = tr_sync(t, "wse_train_export_npz");

	return rc ? rc : npz_write(path, &t->st, t->err, sizeof(t->err));
}

int wse_train_import_npz(wse_train *t, const char *path)
{
	if (!t || !path)
		return WSE_ERROR_INVALID_PARAM;
	int rc = tr_sync(t, "wse_train_import_npz");

	if (rc)
		return rc;
	size_t bytes = t->st.arena_elems * sizeof(float);
	float *backup = malloc(bytes ? bytes : 1);

	if (!backup)
		return tr_fail(t, WSE_ERROR_NO_MEM, "npz %s: out of memory", path);
	memcpy(backup, t->st.arena, bytes);
	rc = npz_read(path, &t->st, t->err, sizeof(t->err));
	if (!rc)
		rc = tr_masks_changed(t, backup, path);
	free(backup);
	return rc;
}

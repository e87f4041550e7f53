/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_mpi.c - devices on other processes and hosts, over Open MPI
 * (docs/training.md, "Several devices", "Across processes: Open MPI").
 *
 * Rank 0 holds the handle (MemoryX, the data, the fold of the gradients in
 * micro-batch order, the optimizer). Device d of its N is rank d + 1: a
 * table of backend operations (tm_ops) whose open and pass are messages to
 * that rank, so the rounds, the fold and the update of train.c are the
 * ones of devices in the process. Ranks 1..N serve (train_mpi_serve):
 * they open runtime.backend's table on their local device and run the
 * passes rank 0 asks for. Every message is point to point; no MPI
 * reduction is used. Every wait polls (MPI_Test, MPI_Iprobe) against a
 * deadline.
 *
 * Built with mpicc only (the library itself has no MPI); wsetrain links it
 * when the build finds mpicc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "wsehost.h"
#include "wsehost_train.h"
#include "train_backend.h"
#include "train_mpi.h"
#include "train_time.h"

/* Message tags, each from one side only. */
enum {
	TM_OPEN = 1,   /* 0 -> r: struct tm_open */
	TM_OPENED,     /* r -> 0: struct tm_reply */
	TM_PASS,       /* 0 -> r: struct tm_pass, then TM_DATA: w[l], b[l] (l = 0..L-1), x, labels */
	TM_DATA,
	TM_BEAT,       /* r -> 0: the pass runs (every beat interval) */
	TM_DONE,       /* r -> 0: struct tm_reply, then TM_GRAD: dw[l], db[l] (l = L-1..0), logits */
	TM_GRAD,
	TM_QUIT,       /* 0 -> r: close the device and end */
};

#define TM_MAX_STR 512

struct tm_open {
	int32_t timeout_ms;
	uint32_t index, nlayers, max_batch, rows, cols;
	uint32_t dims[TRAIN_REF_MAX_LAYERS + 1];
	char backend[32];
	char device[1024];
};

struct tm_pass {
	uint32_t B, norm, grads, logits, rows, cols;
	uint32_t weights;      /* 1: the weights follow; 0: the rank's copy holds */
};

struct tm_reply {
	int32_t rc;
	uint32_t rows, cols, correct;
	float loss_sum, loss;
	uint64_t cycles;
	double ms;             /* the pass's wall time on the rank */
	char err[TM_MAX_STR];
};

/* Rank 0's state of one remote device. */
struct tm_dev {
	int rank;
	int timeout_ms;
	unsigned nlayers;
	unsigned dims[TRAIN_REF_MAX_LAYERS + 1];
	uint64_t version;       /* of the weights the rank holds (0: none) */
};

/* A worker gives up after this long without a request from rank 0. */
#define TM_IDLE_MS (600 * 1000)

static int tm_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int tm_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int tm_past(const struct timespec *dl)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > dl->tv_sec || (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

/* Sleep a little between polls: 20 us, doubling up to 160 us (what a
 * message's latency may grow by). */
static void tm_nap(long *ns)
{
	struct timespec ts = { 0, *ns };

	nanosleep(&ts, NULL);
	if (*ns < 160000L)
		*ns *= 2;
}

static int tm_mpi_err(char *err, size_t errlen, int rank, const char *what, int mrc)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(mrc, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof(s), "MPI error %d", mrc);
	return tm_fail(err, errlen, WSE_ERROR_DEVICE, "rank %d: %s: %s (the rank is gone?)", rank,
		       what, s);
}

/* Messages posted together and waited for together (tm_post, tm_wait). */
struct tm_reqs {
	MPI_Request rq[2 * TRAIN_REF_MAX_LAYERS + 3];
	int n;
	int bad; /* the error of a post that failed, or 0 */
};

/* Post a send (send) or receive of bytes at buf to or from peer. */
static void tm_post(struct tm_reqs *r, int send, const void *buf, size_t bytes, int peer,
		    int tag)
{
	MPI_Request *q = &r->rq[r->n++];
	int mrc = send ? MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, q)
		       : MPI_Irecv((void *)buf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, q);

	if (mrc != MPI_SUCCESS) {
		*q = MPI_REQUEST_NULL;
		r->bad = mrc;
	}
}

static void tm_cancel(struct tm_reqs *r)
{
	for (int k = 0; k < r->n; k++)
		if (r->rq[k] != MPI_REQUEST_NULL) {
			MPI_Cancel(&r->rq[k]);
			MPI_Request_free(&r->rq[k]);
		}
	r->n = 0;
}

/* Wait for every message of r until ms pass. Returns 0, or TIMEOUT or
 * DEVICE (a post or MPI failed) with err naming the rank and what was
 * waited for; on error the messages still pending are cancelled. */
static int tm_wait(struct tm_reqs *r, int peer, int ms, const char *what, char *err,
		   size_t errlen)
{
	struct timespec dl = tr_deadline(ms);
	long nap = 20000;
	int mrc = r->bad;

	while (!mrc) {
		int done = 0;

		mrc = MPI_Testall(r->n, r->rq, &done, MPI_STATUSES_IGNORE);
		if (mrc == MPI_SUCCESS && done) {
			r->n = 0;
			return 0;
		}
		if (mrc == MPI_SUCCESS && tm_past(&dl)) {
			tm_cancel(r);
			return tm_fail(err, errlen, WSE_ERROR_TIMEOUT,
				       "rank %d: %s: no answer within %d ms (runtime.timeout_ms): the rank or its device is gone",
				       peer, what, ms);
		}
		if (mrc == MPI_SUCCESS)
			tm_nap(&nap);
	}
	tm_cancel(r);
	return tm_mpi_err(err, errlen, peer, what, mrc);
}

/* Send or receive one buffer, bounded by ms. */
static int tm_xfer(int send, void *buf, size_t bytes, int peer, int tag, int ms,
		   const char *what, char *err, size_t errlen)
{
	struct tm_reqs r = { .n = 0 };

	tm_post(&r, send, buf, bytes, peer, tag);
	return tm_wait(&r, peer, ms, what, err, errlen);
}

/* Wait for the next message from rank (any tag) until ms pass; *tag
 * gets its tag. */
static int tm_probe(int rank, int ms, int *tag, const char *what, char *err, size_t errlen)
{
	struct timespec dl = tr_deadline(ms);
	long nap = 20000;

	for (;;) {
		int flag = 0;
		MPI_Status stt;
		int mrc = MPI_Iprobe(rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &stt);

		if (mrc != MPI_SUCCESS)
			return tm_mpi_err(err, errlen, rank, what, mrc);
		if (flag) {
			*tag = stt.MPI_TAG;
			return 0;
		}
		if (tm_past(&dl))
			return tm_fail(err, errlen, WSE_ERROR_TIMEOUT,
				       "rank %d: %s: no answer within %d ms (runtime.timeout_ms): the rank or its device is gone",
				       rank, what, ms);
		tm_nap(&nap);
	}
}

/* ---- rank 0: a device on another rank --------------------------------- */

static int tm_open(void **state, struct train_backend_cfg *cfg, char *err, size_t errlen)
{
	int size = 0;
	struct tm_open o;
	struct tm_reply r;
	struct tm_dev *dv;
	int rank = (int)cfg->index + 1, ms = cfg->timeout_ms, rc;

	*state = NULL;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank >= size)
		return tm_fail(err, errlen, WSE_ERROR_INVALID_PARAM,
			       "device %u needs rank %d, but the job has %d ranks (mpirun -np 1+N for N devices)",
			       cfg->index, rank, size);
	if (cfg->nlayers > TRAIN_REF_MAX_LAYERS)
		return tm_fail(err, errlen, WSE_ERROR_INVALID_PARAM, "%u layers: at most %d",
			       cfg->nlayers, TRAIN_REF_MAX_LAYERS);
	/* every message's size is an int count of bytes */
	for (unsigned l = 0; l < cfg->nlayers; l++)
		if ((uint64_t)cfg->dims[l] * cfg->dims[l + 1] * sizeof(float) > INT_MAX)
			return tm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
				       "layer %u's weights (%u x %u) exceed the 2 GiB of one MPI message",
				       l, cfg->dims[l + 1], cfg->dims[l]);
	if ((uint64_t)cfg->max_batch * cfg->dims[0] * sizeof(float) > INT_MAX)
		return tm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
			       "a batch of %u examples of %u inputs exceeds the 2 GiB of one MPI message",
			       cfg->max_batch, cfg->dims[0]);
	memset(&o, 0, sizeof(o));
	o.timeout_ms = ms;
	o.index = cfg->index;
	o.nlayers = cfg->nlayers;
	o.max_batch = cfg->max_batch;
	o.rows = cfg->rows;
	o.cols = cfg->cols;
	for (unsigned l = 0; l <= cfg->nlayers; l++)
		o.dims[l] = cfg->dims[l];
	snprintf(o.backend, sizeof(o.backend), "%s", cfg->backend ? cfg->backend : "");
	snprintf(o.device, sizeof(o.device), "%s", cfg->device ? cfg->device : "");
	if ((rc = tm_xfer(1, &o, sizeof(o), rank, TM_OPEN, ms, "opening its device", err, errlen)))
		return rc;
	/* opening a device loads its kernel and routes: each access is
	 * bounded by ms on the rank, the whole by a few of them here */
	if ((rc = tm_xfer(0, &r, sizeof(r), rank, TM_OPENED, 4 * ms, "opening its device", err,
			  errlen)))
		return rc;
	if (r.rc) {
		r.err[sizeof(r.err) - 1] = 0;
		return tm_fail(err, errlen, r.rc, "rank %d: %s", rank, r.err);
	}
	if (!(dv = calloc(1, sizeof(*dv))))
		return tm_fail(err, errlen, WSE_ERROR_NO_MEM, "out of memory");
	dv->rank = rank;
	dv->timeout_ms = ms;
	dv->nlayers = cfg->nlayers;
	for (unsigned l = 0; l <= cfg->nlayers; l++)
		dv->dims[l] = cfg->dims[l];
	cfg->rows = r.rows;
	cfg->cols = r.cols;
	*state = dv;
	return 0;
}

static int tm_pass(void *state, const struct train_ref_net *net, const float *x,
		   const uint8_t *labels, unsigned B, unsigned norm, struct train_ref_out *out,
		   const struct train_pass_hooks *hooks, char *err, size_t errlen)
{
	struct tm_dev *dv = state;
	const unsigned L = dv->nlayers;
	const int rank = dv->rank, ms = dv->timeout_ms;
	struct tm_pass h = { .B = B, .norm = norm, .grads = out->dw[0] != NULL,
			     .logits = out->logits != NULL, .rows = net->rows, .cols = net->cols,
			     .weights = !net->version || net->version != dv->version };
	struct tm_reqs q = { .n = 0 };
	int rc, tag = 0;
	struct tm_reply r;

	dv->version = 0; /* until the pass ends well */
	if ((rc = tm_xfer(1, &h, sizeof(h), rank, TM_PASS, ms, "starting the pass", err, errlen)))
		return rc;
	/* the weights straight from MemoryX, each layer once its update is done */
	for (unsigned l = 0; l < L; l++) {
		if (hooks && hooks->weights_ready && (rc = hooks->weights_ready(hooks->user, l))) {
			tm_cancel(&q);
			return rc;
		}
		if (!h.weights)
			continue;
		tm_post(&q, 1, net->w[l], (size_t)dv->dims[l] * dv->dims[l + 1] * sizeof(float), rank,
			TM_DATA);
		tm_post(&q, 1, net->b[l], dv->dims[l + 1] * sizeof(float), rank, TM_DATA);
	}
	tm_post(&q, 1, x, (size_t)B * dv->dims[0] * sizeof(float), rank, TM_DATA);
	tm_post(&q, 1, labels, B, rank, TM_DATA);
	if ((rc = tm_wait(&q, rank, ms, "sending the weights and examples", err, errlen)))
		return rc;
	/* the pass runs there: a beat at least every ms, then the reply */
	for (;;) {
		if ((rc = tm_probe(rank, ms, &tag, "running the pass", err, errlen)))
			return rc;
		if (tag != TM_BEAT)
			break;
		char beat;

		if ((rc = tm_xfer(0, &beat, 1, rank, TM_BEAT, ms, "running the pass", err, errlen)))
			return rc;
	}
	if (tag != TM_DONE)
		return tm_fail(err, errlen, WSE_ERROR_DEVICE, "rank %d: unexpected message %d in a pass",
			       rank, tag);
	if ((rc = tm_xfer(0, &r, sizeof(r), rank, TM_DONE, ms, "ending the pass", err, errlen)))
		return rc;
	if (r.rc) {
		r.err[sizeof(r.err) - 1] = 0;
		return tm_fail(err, errlen, r.rc, "rank %d: %s", rank, r.err);
	}
	out->loss_sum = r.loss_sum;
	out->loss = r.loss;
	out->correct = r.correct;
	out->cycles = r.cycles;
	out->ms = r.ms > 0 ? r.ms : 1e-6;
	/* the gradients come layer by layer, L-1 first */
	for (unsigned l = L; h.grads && l-- > 0;) {
		tm_post(&q, 0, out->dw[l], (size_t)dv->dims[l] * dv->dims[l + 1] * sizeof(float), rank,
			TM_GRAD);
		tm_post(&q, 0, out->db[l], dv->dims[l + 1] * sizeof(float), rank, TM_GRAD);
		if ((rc = tm_wait(&q, rank, ms, "receiving the gradients", err, errlen)))
			return rc;
		if (hooks && hooks->grads_out)
			hooks->grads_out(hooks->user, l);
	}
	if (h.logits &&
	    (rc = tm_xfer(0, out->logits, (size_t)B * dv->dims[L] * sizeof(float), rank, TM_GRAD, ms,
			  "receiving the logits", err, errlen)))
		return rc;
	dv->version = net->version;
	return 0;
}

static void tm_close(void *state)
{
	struct tm_dev *dv = state;

	if (!dv)
		return;
	char c = 0;

	tm_xfer(1, &c, 1, dv->rank, TM_QUIT, dv->timeout_ms, "closing", NULL, 0);
	free(dv);
}

static const struct train_backend_ops tm_ops = {
	.name = "mpi", .open = tm_open, .pass = tm_pass, .close = tm_close,
};

/* ---- ranks 1..N: the local device -------------------------------------- */

/* A pass on the rank's device, on a thread of its own while the rank's
 * main thread sends the beats. */
struct tm_job {
	const struct train_backend_ops *be;
	void *bs;
	const struct train_ref_net *net;
	const float *x;
	const uint8_t *y;
	unsigned B, norm;
	struct train_ref_out *out;
	int rc;
	char err[TM_MAX_STR];
	int done;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void *tm_job_run(void *arg)
{
	struct tm_job *j = arg;
	double t0 = tr_now_ms();
	int rc = j->be->pass(j->bs, j->net, j->x, j->y, j->B, j->norm, j->out, NULL, j->err,
			     sizeof(j->err));

	j->out->ms = tr_now_ms() - t0;
	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->done = 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* The worker's buffers: the weights, one batch, its gradients, logits. */
struct tm_work {
	const struct train_backend_ops *be;
	void *bs;
	struct tm_open o;
	struct train_ref_net net;
	float *dw[TRAIN_REF_MAX_LAYERS], *db[TRAIN_REF_MAX_LAYERS];
	float *x, *logits;
	uint8_t *y;
	long kill_pass;  /* fault injection: the rank dies at this pass (-1: never) */
	int hang;        /* ... or hangs there (sleeps, answering nothing) */
	long passes;
};

static void tm_work_free(struct tm_work *w)
{
	for (unsigned l = 0; l < TRAIN_REF_MAX_LAYERS; l++) {
		free(w->net.w[l]);
		free(w->net.b[l]);
		free(w->dw[l]);
		free(w->db[l]);
	}
	free(w->x);
	free(w->y);
	free(w->logits);
	if (w->be)
		w->be->close(w->bs);
}

/* TM_OPEN: open the local backend, allocate the buffers; the reply says
 * the device's mesh or why not. */
static int tm_serve_open(struct tm_work *w, struct tm_reply *r)
{
	struct tm_open *o = &w->o;
	unsigned L = o->nlayers;
	unsigned dims[TRAIN_REF_MAX_LAYERS + 1];

	o->backend[sizeof(o->backend) - 1] = 0;
	o->device[sizeof(o->device) - 1] = 0;
	if (!L || L > TRAIN_REF_MAX_LAYERS || !o->max_batch || o->timeout_ms <= 0)
		return tm_fail(r->err, sizeof(r->err), WSE_ERROR_INVALID_PARAM,
			       "malformed open request");
	const struct train_backend_ops *be = train_backend_find(o->backend);

	if (!be)
		return tm_fail(r->err, sizeof(r->err), WSE_ERROR_NOT_SUPPORTED,
			       "runtime.backend %s: no such backend", o->backend);
	for (unsigned l = 0; l <= L; l++)
		dims[l] = o->dims[l];
	struct train_backend_cfg cfg = {
		.backend = o->backend, .index = o->index, .device = o->device,
		.timeout_ms = o->timeout_ms, .nlayers = L, .dims = dims,
		.max_batch = o->max_batch, .rows = o->rows, .cols = o->cols,
	};
	int rc = be->open(&w->bs, &cfg, r->err, sizeof(r->err));

	if (rc)
		return rc;
	w->be = be;
	r->rows = cfg.rows;
	r->cols = cfg.cols;
	w->net.rows = cfg.rows;
	w->net.cols = cfg.cols;
	w->net.nlayers = L;
	for (unsigned l = 0; l <= L; l++)
		w->net.dims[l] = dims[l];
	for (unsigned l = 0; l < L; l++) {
		size_t nw = (size_t)dims[l] * dims[l + 1];

		if (!(w->net.w[l] = malloc(nw * sizeof(float))) ||
		    !(w->net.b[l] = malloc(dims[l + 1] * sizeof(float))) ||
		    !(w->dw[l] = malloc(nw * sizeof(float))) ||
		    !(w->db[l] = malloc(dims[l + 1] * sizeof(float))))
			return tm_fail(r->err, sizeof(r->err), WSE_ERROR_NO_MEM, "out of memory");
	}
	if (!(w->x = malloc((size_t)o->max_batch * dims[0] * sizeof(float))) ||
	    !(w->y = malloc(o->max_batch)) ||
	    !(w->logits = malloc((size_t)o->max_batch * dims[L] * sizeof(float))))
		return tm_fail(r->err, sizeof(r->err), WSE_ERROR_NO_MEM, "out of memory");
	return 0;
}

/* TM_PASS: take the weights and examples, run the pass with beats, send
 * the reply and the gradients. Returns 0, or an error of the messages
 * with rank 0 (the rank then ends). */
static int tm_serve_pass(struct tm_work *w, char *err, size_t errlen)
{
	struct tm_pass h;
	struct tm_reply r;
	const unsigned L = w->o.nlayers;
	const int ms = w->o.timeout_ms;
	struct tm_reqs q = { .n = 0 };
	struct train_ref_out out;
	int rc;

	if ((rc = tm_xfer(0, &h, sizeof(h), 0, TM_PASS, ms, "a pass request", err, errlen)))
		return rc;
	if (!h.B || h.B > w->o.max_batch)
		return tm_fail(err, errlen, WSE_ERROR_INVALID_PARAM, "pass of %u examples: at most %u",
			       h.B, w->o.max_batch);
	for (unsigned l = 0; h.weights && l < L; l++) {
		tm_post(&q, 0, w->net.w[l], (size_t)w->net.dims[l] * w->net.dims[l + 1] * sizeof(float),
			0, TM_DATA);
		tm_post(&q, 0, w->net.b[l], w->net.dims[l + 1] * sizeof(float), 0, TM_DATA);
	}
	tm_post(&q, 0, w->x, (size_t)h.B * w->net.dims[0] * sizeof(float), 0, TM_DATA);
	tm_post(&q, 0, w->y, h.B, 0, TM_DATA);
	if ((rc = tm_wait(&q, 0, ms, "the weights and examples", err, errlen)))
		return rc;
	if (w->kill_pass >= 0 && w->passes == w->kill_pass) {
		/*
		 * Fault injection: the rank dies or hangs mid-step. The hang
		 * sleeps rather than SIGSTOPs itself: a stopped rank leaves
		 * Open MPI 4.1's mpirun blocked after MPI_Abort, while a
		 * sleeping one takes the TERM it sends like any process.
		 */
		if (!w->hang)
			raise(SIGKILL);
		for (;;)
			pause();
	}
	w->passes++;
	memset(&out, 0, sizeof(out));
	for (unsigned l = 0; h.grads && l < L; l++) {
		out.dw[l] = w->dw[l];
		out.db[l] = w->db[l];
	}
	out.logits = h.logits ? w->logits : NULL;
	w->net.rows = h.rows;
	w->net.cols = h.cols;

	struct tm_job j = { .be = w->be, .bs = w->bs, .net = &w->net, .x = w->x, .y = w->y,
			    .B = h.B, .norm = h.norm, .out = &out };
	pthread_t th;
	pthread_condattr_t ca;
	int beat_ms = ms / 4 > 0 ? ms / 4 : 1;

	pthread_mutex_init(&j.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j.cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&th, NULL, tm_job_run, &j)) {
		tm_job_run(&j);
	} else {
		pthread_mutex_lock(&j.mu);
		while (!j.done) {
			struct timespec bt = tr_deadline(beat_ms);

			if (pthread_cond_timedwait(&j.cv, &j.mu, &bt) == ETIMEDOUT && !j.done) {
				char beat = 1;

				pthread_mutex_unlock(&j.mu);
				rc = tm_xfer(1, &beat, 1, 0, TM_BEAT, ms, "a beat", err, errlen);
				pthread_mutex_lock(&j.mu);
				if (rc)
					break;
			}
		}
		pthread_mutex_unlock(&j.mu);
		pthread_join(th, NULL); /* the pass's own waits are bounded by ms */
	}
	pthread_mutex_destroy(&j.mu);
	pthread_cond_destroy(&j.cv);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	r.rc = j.rc;
	snprintf(r.err, sizeof(r.err), "%s", j.rc ? j.err : "");
	r.loss_sum = out.loss_sum;
	r.loss = out.loss;
	r.correct = out.correct;
	r.cycles = out.cycles;
	r.ms = out.ms;
	if ((rc = tm_xfer(1, &r, sizeof(r), 0, TM_DONE, ms, "the reply", err, errlen)) || j.rc)
		return rc;
	for (unsigned l = L; h.grads && l-- > 0;) {
		tm_post(&q, 1, w->dw[l], (size_t)w->net.dims[l] * w->net.dims[l + 1] * sizeof(float), 0,
			TM_GRAD);
		tm_post(&q, 1, w->db[l], w->net.dims[l + 1] * sizeof(float), 0, TM_GRAD);
	}
	if (h.logits)
		tm_post(&q, 1, w->logits, (size_t)h.B * w->net.dims[L] * sizeof(float), 0, TM_GRAD);
	return tm_wait(&q, 0, ms, "the gradients", err, errlen);
}

int train_mpi_serve(char *err, size_t errlen)
{
	struct tm_work w;
	struct tm_reply r;
	int rc, tag = 0, me = 0;
	const char *k = getenv("WSE_TRAIN_FAULT_MPI_KILL");

	memset(&w, 0, sizeof(w));
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	w.kill_pass = -1;
	if (k) { /* RANK:PASS, or RANK:PASS:stop */
		int kr;
		long kp;
		char how[8] = "";

		if (sscanf(k, "%d:%ld:%7s", &kr, &kp, how) >= 2 && kr == me) {
			w.kill_pass = kp;
			w.hang = !strcmp(how, "stop");
		}
	}
	if ((rc = tm_xfer(0, &w.o, sizeof(w.o), 0, TM_OPEN, TM_IDLE_MS, "waiting for rank 0", err,
			  errlen)))
		return rc;
	memset(&r, 0, sizeof(r));
	r.rc = tm_serve_open(&w, &r);
	rc = tm_xfer(1, &r, sizeof(r), 0, TM_OPENED, w.o.timeout_ms, "the open reply", err,
		     errlen);
	while (!rc && !r.rc) {
		if ((rc = tm_probe(0, TM_IDLE_MS + w.o.timeout_ms, &tag, "waiting for rank 0", err,
				   errlen)))
			break;
		if (tag == TM_QUIT) {
			char c;

			rc = tm_xfer(0, &c, 1, 0, TM_QUIT, w.o.timeout_ms, "quit", err, errlen);
			break;
		}
		if (tag != TM_PASS) {
			rc = tm_fail(err, errlen, WSE_ERROR_DEVICE, "rank 0 sent unexpected message %d",
				     tag);
			break;
		}
		rc = tm_serve_pass(&w, err, errlen);
	}
	if (!rc && r.rc)
		rc = 0; /* rank 0 reports the failed open and quits */
	tm_work_free(&w);
	return rc;
}

/* ---- the job ------------------------------------------------------------ */

int train_mpi_init(int *argc, char ***argv, int *rank, int *size, char *err, size_t errlen)
{
	int prov = 0;

	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &prov) != MPI_SUCCESS)
		return tm_fail(err, errlen, WSE_ERROR_DEVICE, "MPI_Init_thread failed");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	if (prov < MPI_THREAD_MULTIPLE)
		return tm_fail(err, errlen, WSE_ERROR_NOT_SUPPORTED,
			       "this MPI library gives no MPI_THREAD_MULTIPLE (rank 0 drives each device from a thread of its own)");
	return 0;
}

int train_mpi_create(wse_train **t, const char *params_file, const struct wse_train_opts *opts,
		     char *err, size_t errlen)
{
	return train_create_devs(t, params_file, opts, &tm_ops, err, errlen);
}

void train_mpi_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

void train_mpi_finish(void)
{
	MPI_Finalize();
}

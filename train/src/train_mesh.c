/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_mesh.c - the mesh backend of the training API (train_mesh.h).
 *
 * Per pass: halt and reset the cores, write each tile's parameter block,
 * its slice of the input batch and the labels, grant the east outlets the
 * gradient count, release the cores, stream the weights in (forward, then
 * transposed for backward-inputs) and take the gradients out, wait for
 * every tile's end and read the per-token metrics. The kernel
 * (firmware/kernels/mlp, embedded in the library) does the arithmetic; the
 * order of what is streamed is the contract of include/wsemu/wse_mlp_abi.h
 * and docs/training-dataflow.md.
 *
 * It is also the training API's "mesh" backend (train_backend.h, at the
 * end of this file).
 */
#define _POSIX_C_SOURCE 200809L
#include "train_mesh.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wsemu/wse_mlp_abi.h>
#include <wsemu/wse_regs.h>

#include "sparse.h"
#include "train_backend.h"
#include "train_time.h"
#include "wse_route.h"
#include "wsehost.h"

/* The kernel image (generated at build time from the ELF). */
extern const unsigned char wse_mlp_kernel_elf[];
extern const size_t wse_mlp_kernel_elf_len;

#define DMEM_BASE 0x80100000u

#define PN (1u << WSE_PORT_NORTH)
#define PE (1u << WSE_PORT_EAST)
#define PS (1u << WSE_PORT_SOUTH)
#define PW (1u << WSE_PORT_WEST)
#define PR (1u << WSE_PORT_RAMP)

struct train_mesh {
	wse_device *dev;
	struct wse_info info;
	unsigned R, C;
	int timeout_ms;
	int profile; /* $WSE_MLP_PROFILE: 0 off, 1 phases, 2 per-feature detail */
	uint32_t params_addr, heap_lo, heap_hi;
	struct train_mesh_stats st;
	struct wse_mlp_params *written; /* per tile: the block last written */
	unsigned fault_layer; /* train_mesh_fault_sparse(): layer + 1, or 0 */
	unsigned fault_index; /* train_mesh_fault_index(): layer + 1, or 0 */
	char err[512];
};

static int tm_fail(struct train_mesh *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int tm_fail(struct train_mesh *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return code;
}

/* The error of tile (x, y) whose kernel failed with code. */
static int tm_tile_error(struct train_mesh *m, unsigned x, unsigned y, uint32_t code)
{
	if (code == WSE_MLP_FAIL_SPARSE)
		return tm_fail(m, WSE_ERROR_DEVICE,
			       "mesh backend: the PE of tile (%u,%u) refused a sparse weight stream (a slot out of range or a misplaced control wavelet; failure code %u)",
			       x, y, code);
	return tm_fail(m, WSE_ERROR_DEVICE, "mesh backend: the kernel on tile (%u,%u) failed with code %u",
		       x, y, code);
}

/* Gradients are awaited in slices of this many ms, the tiles' status
 * looked at between them. */
#define TM_GRAD_POLL_MS 50

_Static_assert(TM_PROF_WORDS == WSE_MLP_PROF_WORDS, "profile words");

/* Monotonic time in milliseconds (time-outs and phase times). */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- routes ------------------------------------------------------------ */

struct wse_route_plan *train_mesh_route_plan(unsigned cols, unsigned rows,
					     const uint8_t color_vc[32],
					     unsigned num_vc)
{
	struct wse_route_plan *p = wse_route_plan_new(cols, rows, color_vc, num_vc);
	int r = p ? 0 : -1;

	for (unsigned y = 0; !r && y < rows; y++) {
		r = wse_route_row_multicast(p, WSE_MLP_C_WEIGHTS, y);
		for (unsigned x = 0; !r && x < cols; x++) {
			r = wse_route_set(p, x, y, wse_mlp_grad_color(x), PR, PE);
			if (!r && x > 0)
				r = wse_route_set(p, x, y, wse_mlp_grad_color(x - 1), PW, PR);
			/* column c's own index-only shares: from the west edge
			 * past columns 0 .. c-1 to PE (c, y) */
			for (unsigned c = x; !r && cols <= WSE_MLP_MAX_SHARE_COLS && c < cols; c++)
				r = wse_route_set(p, x, y, wse_mlp_share_color(c, cols), PW,
						  c == x ? PR : PE);
		}
	}
	for (unsigned x = 0; !r && x < cols && rows > 1; x++) {
		r = wse_route_column_chain(p, WSE_MLP_C_REDUCE_A, WSE_MLP_C_REDUCE_B, x, 0, rows - 1);
		if (!r)
			r = wse_route_column_chain(p, WSE_MLP_C_RETURN_A, WSE_MLP_C_RETURN_B, x,
						   rows - 1, 0);
		/* forward totals: row R-1 straight north to their owner row k */
		for (unsigned k = 0; !r && k + 1 < rows; k++)
			for (unsigned y = k; !r && y < rows; y++)
				r = wse_route_set(p, x, y, wse_mlp_owner_color(k),
						  y + 1 == rows ? PR : PS, y == k ? PR : PN);
		for (unsigned y = 0; !r && y < rows; y++)
			r = wse_route_set(p, x, y, WSE_MLP_C_DELTA, y == 0 ? PR : PN,
					  (y == 0 ? 0 : PR) | (y + 1 < rows ? PS : 0));
	}
	if (r) {
		wse_route_plan_free(p);
		return NULL;
	}
	return p;
}

static int write_routes(struct train_mesh *m)
{
	struct wse_route_plan *p = train_mesh_route_plan(m->C, m->R, m->info.color_vc,
							 m->info.num_vc);
	struct wse_route_report rep;
	int r;

	if (!p)
		return tm_fail(m, WSE_ERROR_NO_MEM, "mesh backend: cannot build the route plan");
	rep.text[0] = 0;
	r = wse_route_plan_write(m->dev, p, WSE_FIRST_INFRA_COLOR, &rep);
	wse_route_plan_free(p);
	if (r && rep.text[0])
		return tm_fail(m, r, "mesh backend: route plan refused: %s", rep.text);
	return r ? tm_fail(m, r, "mesh backend: route write: %s", wse_strerror(r)) : 0;
}

/* ---- layout ------------------------------------------------------------ */

struct layout {
	unsigned tc;
	struct wse_mlp_params p; /* addresses; per-tile fields set later */
	uint32_t bytes;          /* buffer bytes needed */
};

static unsigned rows_of(unsigned n, unsigned R) { return (n + R - 1) / R; }

/* Buffers of docs/training-dataflow.md section 9 for a batch of B; the
 * widest row (row 0) sizes every tile's buffers. */
static void plan_layout(const struct train_mesh *m, unsigned L, const unsigned *dims,
			unsigned B, struct layout *lo)
{
	unsigned R = m->R, tc = (B + m->C - 1) / m->C, fw = wse_mlp_feature_words(tc);
	unsigned amax_all = 0, amax_delta = 0, amax_in = 0, nmax_out = 0;
	uint32_t a = m->heap_lo;

	memset(lo, 0, sizeof(*lo));
	lo->tc = tc;
	for (unsigned l = 0; l <= L; l++) {
		unsigned n = rows_of(dims[l], R);

		amax_all = n > amax_all ? n : amax_all;
		if (l >= 1) {
			amax_delta = n > amax_delta ? n : amax_delta;
			nmax_out = dims[l] > nmax_out ? dims[l] : nmax_out;
		}
		if (l < L)
			amax_in = n > amax_in ? n : amax_in;
	}
#define TAKE(field, words) do { lo->p.field = a; a += 4u * (uint32_t)(words); } while (0)
	/* a layer input keeps one more feature slot: +1.0, the bias's input */
	for (unsigned l = 0; l <= L; l++)
		TAKE(act[l], (rows_of(dims[l], R) + (l < L)) * fw);
	TAKE(delta[0], amax_delta * fw);
	TAKE(delta[1], amax_delta * fw);
	TAKE(part, tc);
	TAKE(dall, nmax_out * fw);
	TAKE(grad, amax_in);
	TAKE(bsum, amax_delta);
	TAKE(zeros, amax_all > tc ? amax_all : tc);
	TAKE(labels, tc);
	TAKE(loss, tc);
	TAKE(cand, tc);
	TAKE(scratch, 2 * tc);
	if (m->profile)
		TAKE(prof, WSE_MLP_PROF_WORDS);
#undef TAKE
	lo->bytes = a - m->heap_lo;
	lo->p.magic = WSE_MLP_MAGIC;
	lo->p.rows = R;
	lo->p.cols = m->C;
	lo->p.tc = tc;
	lo->p.nlayers = L;
	for (unsigned l = 0; l <= L; l++)
		lo->p.dims[l] = dims[l];
}

static int check_fit(struct train_mesh *m, unsigned L, const unsigned *dims, unsigned B)
{
	struct layout lo;

	plan_layout(m, L, dims, B, &lo);
	if (lo.bytes > m->heap_hi - m->heap_lo)
		return tm_fail(m, WSE_ERROR_NO_MEM,
			       "model does not fit the mesh: each tile needs %u bytes of DMEM for "
			       "its buffers (batch %u on %u x %u tiles), %u are available "
			       "(DMEM %u bytes less the kernel's data and stack)",
			       lo.bytes, B, m->C, m->R, m->heap_hi - m->heap_lo,
			       m->info.dmem_bytes);
	return 0;
}

/* ---- open / close -------------------------------------------------------- */

int train_mesh_open(struct train_mesh **out, const char *uri, unsigned nlayers,
		    const unsigned *dims, unsigned max_batch, int timeout_ms,
		    unsigned *rows, unsigned *cols, char *err, size_t errlen)
{
	struct train_mesh *m = calloc(1, sizeof(*m));
	struct wse_open_opts oo = { .size = sizeof(oo), .timeout_ms = timeout_ms };
	uint32_t bss_end = 0, stack_top = 0, stack_size = 0;
	int r;

	*out = NULL;
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return WSE_ERROR_NO_MEM;
	}
	m->timeout_ms = timeout_ms;
	const char *pv = getenv("WSE_MLP_PROFILE");
	if (pv && atoi(pv) > 0)
		m->profile = atoi(pv) > 1 ? 2 : 1;
	if ((r = wse_open(&m->dev, uri, &oo))) {
		tm_fail(m, r, "mesh backend: cannot open device %s: %s",
			uri && *uri ? uri : "sim:board=sim-4x4", wse_strerror(r));
		goto fail;
	}
	m->info.size = sizeof(m->info);
	if ((r = wse_get_info(m->dev, &m->info)))
		goto fail_io;
	m->R = m->info.rows;
	m->C = m->info.columns;
	if (m->R > WSE_MLP_MAX_ROWS) {
		r = tm_fail(m, WSE_ERROR_NOT_SUPPORTED,
			    "mesh backend: the kernel runs on at most %u rows, the device has %u",
			    WSE_MLP_MAX_ROWS, m->R);
		goto fail;
	}
	if (!(m->written = calloc((size_t)m->R * m->C, sizeof(*m->written)))) {
		r = tm_fail(m, WSE_ERROR_NO_MEM, "out of memory");
		goto fail;
	}
	if ((r = wse_elf_symbol(wse_mlp_kernel_elf, wse_mlp_kernel_elf_len, "wse_mlp_params",
				&m->params_addr)) ||
	    (r = wse_elf_symbol(wse_mlp_kernel_elf, wse_mlp_kernel_elf_len, "__bss_end",
				&bss_end)) ||
	    (r = wse_elf_symbol(wse_mlp_kernel_elf, wse_mlp_kernel_elf_len, "__stack_top",
				&stack_top)) ||
	    (r = wse_elf_symbol(wse_mlp_kernel_elf, wse_mlp_kernel_elf_len, "__stack_size",
				&stack_size))) {
		tm_fail(m, r, "mesh backend: kernel image: %s", wse_strerror(r));
		goto fail;
	}
	if ((uint64_t)stack_top > (uint64_t)DMEM_BASE + m->info.dmem_bytes) {
		r = tm_fail(m, WSE_ERROR_NOT_SUPPORTED,
			    "mesh backend: the kernel needs %u bytes of DMEM, the device's tiles have %u",
			    stack_top - DMEM_BASE, m->info.dmem_bytes);
		goto fail;
	}
	m->heap_lo = (bss_end + 15u) & ~15u;
	m->heap_hi = stack_top - stack_size;
	if ((r = check_fit(m, nlayers, dims, max_batch)))
		goto fail;
	if ((r = wse_reset(m->dev)) ||
	    (r = wse_reg_write(m->dev, WSE_ALL_TILES, WSE_ALL_TILES, WSE_REG_TILE_CTRL,
			       WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET)) ||
	    (r = wse_load_elf(m->dev, WSE_ALL_TILES, WSE_ALL_TILES, wse_mlp_kernel_elf,
			      wse_mlp_kernel_elf_len)))
		goto fail_io;
	if ((r = write_routes(m)))
		goto fail;
	*rows = m->R;
	*cols = m->C;
	*out = m;
	return 0;
fail_io:
	tm_fail(m, r, "mesh backend: loading the device: %s", wse_strerror(r));
fail:
	snprintf(err, errlen, "%s", m->err);
	train_mesh_close(m);
	return r;
}

void train_mesh_close(struct train_mesh *m)
{
	if (!m)
		return;
	wse_close(m->dev);
	free(m->written);
	free(m);
}

void train_mesh_fault_sparse(struct train_mesh *m, unsigned layer)
{
	if (m)
		m->fault_layer = layer + 1;
}

void train_mesh_fault_index(struct train_mesh *m, unsigned layer)
{
	if (m)
		m->fault_index = layer + 1;
}

const char *train_mesh_last_error(const struct train_mesh *m)
{
	return m ? m->err : "";
}

void train_mesh_get_stats(const struct train_mesh *m, struct train_mesh_stats *st)
{
	*st = m->st;
}

/* ---- a pass ------------------------------------------------------------ */

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* Write each tile's parameter block where it changed since the last pass. */
static int write_params(struct train_mesh *m, const struct layout *lo, unsigned B,
			unsigned norm, uint32_t mode, uint32_t sparse)
{
	int r = 0;

	for (unsigned y = 0; y < m->R && !r; y++)
		for (unsigned c = 0; c < m->C && !r; c++) {
			struct wse_mlp_params p = lo->p, *w = &m->written[y * m->C + c];

			p.mode = mode | (m->profile > 1 ? WSE_MLP_MODE_DETAIL : 0);
			p.x = c;
			p.y = y;
			p.nvalid = B > c ? (B - c + m->C - 1) / m->C : 0;
			p.inv_n = f2u(1.0f / (float)norm);
			p.sparse = sparse;
			if (!memcmp(&p, w, sizeof(p)))
				continue;
			memset(w, 0, sizeof(*w));
			r = wse_mem_write(m->dev, c, y, m->params_addr, &p, sizeof(p));
			if (!r)
				*w = p;
			m->st.bytes[TM_PARAMS] += sizeof(p);
		}
	return r;
}

/* ---- stream-ins in flight ------------------------------------------------- */

/* The stream-ins of a pass (batch, forward weights, transposed weights):
 * submitted as asynchronous transfers one after the other, so that
 * libwsehost keeps max_outstanding STREAM_IN packets on the link across
 * them too (requests go out in submission order and the device executes
 * them in order, so every port's wavelets keep their order), then waited
 * for together. The library copies each transfer's wavelets when it is
 * submitted: the caller's arrays may go at once. */
#define TM_MAX_STREAMS (1 + 2 * WSE_MLP_MAX_LAYERS)

struct tm_streams;

/* A stream-in's slot, the callback's user data: the callback finds its
 * status by index, never reading x[], which the submitting thread
 * writes. */
struct tm_slot {
	struct tm_streams *q;
	unsigned i;
};

struct tm_streams {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n, pending;
	int status[TM_MAX_STREAMS];
	wse_transfer *x[TM_MAX_STREAMS]; /* the submitting thread's only */
	struct tm_slot slot[TM_MAX_STREAMS];
};

static void tm_stream_done(wse_transfer *x, int status, size_t actual, void *user)
{
	const struct tm_slot *s = user;
	struct tm_streams *q = s->q;

	(void)x, (void)actual;
	pthread_mutex_lock(&q->mu);
	q->status[s->i] = status;
	q->pending--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static struct tm_streams *tm_streams_new(void)
{
	struct tm_streams *q = calloc(1, sizeof(*q));
	pthread_condattr_t ca;

	if (!q)
		return NULL;
	if (pthread_mutex_init(&q->mu, NULL)) {
		free(q);
		return NULL;
	}
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&q->cv, &ca)) {
		pthread_mutex_destroy(&q->mu);
		free(q);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	return q;
}

/* Submit one stream-in of the pass. */
static int tm_stream_in(struct train_mesh *m, struct tm_streams *q,
			const struct wse_stream_chunk *ch, size_t nc)
{
	if (q->n == TM_MAX_STREAMS)
		return WSE_ERROR_INVALID_PARAM;
	/* the slot first: the callback may come before the call returns */
	pthread_mutex_lock(&q->mu);
	unsigned i = q->n++;
	q->status[i] = 1; /* pending */
	q->pending++;
	q->slot[i].q = q;
	q->slot[i].i = i;
	pthread_mutex_unlock(&q->mu);
	int r = wse_stream_in_async(m->dev, ch, nc, m->timeout_ms, tm_stream_done, &q->slot[i],
				    &q->x[i]);
	if (r) {
		pthread_mutex_lock(&q->mu);
		q->status[i] = r;
		q->pending--;
		pthread_mutex_unlock(&q->mu);
	}
	return r;
}

/* Wait until every submitted stream-in has ended, at most timeout_ms
 * without one ending (each packet has the library's time-out too). After
 * the first failure the later ones are cancelled (their packets still
 * queued are dropped, those on the link get an ABORT). Returns 0 or the
 * first failure's status (*failed: its index, else q->n). q and its
 * transfers are freed, unless even the cancelled ones did not end within a
 * time-out: then q is left allocated (leaked) so that their callbacks
 * still find it. */
static int tm_streams_wait(struct train_mesh *m, struct tm_streams *q, unsigned *failed)
{
	int r = 0, cancelled = 0, stuck = 0;
	unsigned n = q->n;

	*failed = n;
	pthread_mutex_lock(&q->mu);
	while (!stuck) {
		for (unsigned i = 0; !r && i < n; i++)
			if (q->status[i] < 0) {
				r = q->status[i];
				*failed = i;
			}
		if (!q->pending)
			break;
		if (r && !cancelled) {
			/* outside the lock: a callback may run meanwhile */
			pthread_mutex_unlock(&q->mu);
			for (unsigned i = 0; i < n; i++)
				if (q->x[i])
					wse_transfer_cancel(q->x[i]);
			pthread_mutex_lock(&q->mu);
			cancelled = 1;
			continue;
		}
		unsigned pending = q->pending;
		struct timespec ts = tr_deadline(m->timeout_ms);
		int e = 0;

		while (q->pending == pending && !e)
			e = pthread_cond_timedwait(&q->cv, &q->mu, &ts);
		if (q->pending == pending) {
			/* no transfer ended within a time-out */
			stuck = cancelled;
			if (!r) {
				r = WSE_ERROR_TIMEOUT;
				*failed = n - pending; /* they end in order */
			}
		}
	}
	pthread_mutex_unlock(&q->mu);
	if (stuck)
		return r;
	for (unsigned i = 0; i < n; i++)
		wse_transfer_free(q->x[i]);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
	return r;
}

/* Stream each row its input features of the whole batch in token order
 * (padded tokens 0), then the labels of all tokens (padded: 0); the
 * kernel keeps its column's tokens. One chunk per feature and row, rows
 * taking turns feature by feature, so that all rows load together and
 * start the forward pass at the same time (a chunk per row would fill row
 * 0 first, and row R-1 would finish loading a whole row's batch later). */
static int stream_batch(struct train_mesh *m, struct tm_streams *q, unsigned n0,
			const float *x, const uint8_t *labels, unsigned B, unsigned tc)
{
	unsigned R = m->R, bp = tc * m->C, slots = rows_of(n0, R) + 1;
	uint64_t *wv = calloc((size_t)slots * R * bp, sizeof(uint64_t));
	struct wse_stream_chunk *ch = calloc((size_t)slots * R, sizeof(*ch));
	size_t nc = 0;
	int r;

	if (!wv || !ch) {
		free(wv);
		free(ch);
		return WSE_ERROR_NO_MEM;
	}
	for (unsigned s = 0; s < slots; s++)
		for (unsigned y = 0; y < R; y++) {
			unsigned i = y + s * R, na = wse_mlp_count(n0, y, R);
			uint64_t *o = wv + nc * bp;

			if (s > na)
				continue;
			for (unsigned t = 0; t < bp; t++) {
				uint32_t v = s < na ? (t < B ? f2u(x[(size_t)t * n0 + i]) : 0)
						    : (t < B ? labels[t] : 0);

				o[t] = wse_wavelet(v, WSE_MLP_C_WEIGHTS, 0);
			}
			ch[nc++] = (struct wse_stream_chunk){ .edge = WSE_WEST, .row = y,
							      .wavelets = o, .count = bp };
			m->st.bytes[s < na ? TM_BATCH : TM_LABELS] += 4ull * bp;
		}
	r = tm_stream_in(m, q, ch, nc);
	free(wv);
	free(ch);
	return r;
}

/* Wavelets of one row's piece: every row's share of a feature is cut into
 * pieces of this many wavelets, sent round-robin over the rows, so that each
 * STREAM_IN packet (max_payload bytes) carries about equal work for every
 * row and the device's per-port lanes drain it together; a packet holding
 * one row's whole share would keep the other rows waiting on that row's
 * consumption rate. */
#define TM_PIECE 8u

/* Wavelets a sparse share of at most n slots may take: a value and a code
 * per slot, the escapes, the index wavelets' rounding. */
static size_t share_cap(unsigned n)
{
	return 2u * (size_t)n + n / 255u + 8u;
}

/* The weight streams of a layer: forward (W[f][k], f an output feature,
 * the biases), backward inputs (W[k][f], f an input feature) and, for a
 * masked layer, backward weights (the index-only shares of output f). */
enum tm_wstream { TM_W_FWD, TM_W_BWI, TM_W_BWW };

/* Row y's sparse share of feature f (docs/training-dataflow.md section 13)
 * into wv at *nw, counted by category: forward, the kept W[f][k] of k = y,
 * y+R, ... and the bias at f's owner; backward inputs, the kept W[k][f] of
 * every k (slots k, R taken as 1, no bias), col[] room for a column;
 * backward weights, the index-only share of the forward one's kept k. */
static int sparse_share(struct train_mesh *m, unsigned layer, const float *W, const float *mask,
			const float *bias, unsigned n_in, unsigned n_out, enum tm_wstream kind,
			unsigned f, unsigned y, unsigned color, float *col, uint64_t *wv, size_t *nw)
{
	int transposed = kind == TM_W_BWI;
	struct sp_wavelet sw[share_cap(transposed ? n_out : n_in) + 1];
	int n;
	uint64_t kept = 0;

	if (kind == TM_W_BWW) {
		n = sp_index_encode(n_in, m->R, y, mask + (size_t)f * n_in, sw,
				    sizeof(sw) / sizeof(sw[0]));
		if (n < 0)
			return n;
		/* train_mesh_fault_index(): the first gap code of the layer's
		 * first index-only share of row 0 pushed out of range, in every
		 * column's copy (stream_weights ends the fault) */
		if (m->fault_index == layer + 1 && f == 0 && y == 0 && n > 0)
			sw[0].data = (sw[0].data & ~0xffu) | 254u;
		for (int k = 0; k < n; k++)
			wv[(*nw)++] = wse_wavelet(sw[k].data, color, sw[k].ctrl);
		m->st.bytes[TM_GRAD_INDEX] += 4 * (uint64_t)n;
		return 0;
	}
	if (transposed) {
		float *cm = col + n_out;

		for (unsigned k = 0; k < n_out; k++) {
			col[k] = W[(size_t)k * n_in + f];
			cm[k] = mask[(size_t)k * n_in + f];
			kept += cm[k] != 0.0f;
		}
		n = sp_share_encode(n_out, 1, 0, col, cm, NULL, sw, sizeof(sw) / sizeof(sw[0]));
	} else {
		for (unsigned k = y; k < n_in; k += m->R)
			kept += mask[(size_t)f * n_in + k] != 0.0f;
		n = sp_share_encode(n_in, m->R, y, W + (size_t)f * n_in, mask + (size_t)f * n_in,
				    bias && f % m->R == y ? &bias[f] : NULL, sw,
				    sizeof(sw) / sizeof(sw[0]));
	}
	if (n < 0)
		return n;
	/* train_mesh_fault_sparse(): the first gap code of the layer's first
	 * forward share of row 0 pushed out of range */
	if (m->fault_layer == layer + 1 && !transposed && f == 0 && y == 0 && n > 1) {
		sw[0].data = (sw[0].data & ~0xffu) | 254u;
		m->fault_layer = 0;
	}
	for (int k = 0; k < n; k++)
		wv[(*nw)++] = wse_wavelet(sw[k].data, WSE_MLP_C_WEIGHTS, sw[k].ctrl);
	uint64_t b = bias && !transposed && f % m->R == y ? 1 : 0;
	m->st.bytes[TM_WEIGHTS] += 4 * kept;
	m->st.bytes[TM_BIASES] += 4 * b;
	if (n == 1 && kept + b == 0)
		m->st.bytes[TM_EMPTY] += 4;
	else
		m->st.bytes[TM_INDEX] += 4 * ((uint64_t)n - kept - b);
	return 0;
}

/* Stream one weight matrix. Forward (W[f][k], f an output feature): for
 * every feature f, row r gets W[f][k] for k = r, r+R, ... < n_in, then the
 * bias of f at f's owner row. Backward inputs (f an input feature): f's
 * owner row f mod R alone gets W[k][f] for every k = 0 .. n_out-1. With a
 * mask, each row's part is its sparse share instead (sparse_share);
 * backward weights (a masked layer only): every row r its index-only
 * share of each output f, on C <= WSE_MLP_MAX_SHARE_COLS columns one copy
 * per column on its own color, pre-skewed as the columns run: step s
 * holds column c's share of output s - c, columns in descending order.
 * Column c-1 can end output o only while column c takes o's partials, so
 * column c starts o just before column c-1 starts o+1; the copies share
 * VC2 on the way, and column c's share of o must not stand behind column
 * c-1's of o+1. Each row's wavelets of f (of a step) go out in pieces of
 * TM_PIECE, rows taking turns. */
static int stream_weights(struct train_mesh *m, struct tm_streams *q, unsigned layer,
			  const float *W, const float *bias, const float *mask, unsigned n_in,
			  unsigned n_out, enum tm_wstream kind)
{
	int transposed = kind == TM_W_BWI;
	unsigned R = m->R, nf = transposed ? n_in : n_out, nk = transposed ? n_out : n_in;
	unsigned kstep = transposed ? 1 : R; /* a row's share: every k, or every R-th */
	unsigned copies = kind == TM_W_BWW ? wse_mlp_share_copies(m->C) : 1;
	unsigned steps = nf + copies - 1;
	/* a row holds at most nk weights and a bias, or a share of them */
	size_t per_row = mask ? share_cap(nk + 1) : (size_t)nk + 1;
	size_t total = mask ? (size_t)nf * R * per_row * copies : (size_t)nf * nk + (bias ? nf : 0);
	size_t per_f = (size_t)R * ((per_row * copies + TM_PIECE - 1) / TM_PIECE);
	uint64_t *wv = malloc(total * sizeof(uint64_t));
	struct wse_stream_chunk *ch = malloc((size_t)steps * per_f * sizeof(*ch));
	size_t *start = malloc(((size_t)R + 1) * sizeof(*start));
	float *col = mask && transposed ? malloc(2 * (size_t)n_out * sizeof(float)) : NULL;
	size_t nw = 0, nc = 0;
	int r = 0;

	if (!wv || !ch || !start || (mask && transposed && !col)) {
		free(wv);
		free(ch);
		free(start);
		free(col);
		return WSE_ERROR_NO_MEM;
	}
	for (unsigned s = 0; s < steps && !r; s++) {
		size_t base = nw, left = 0;
		unsigned f = s;

		for (unsigned y = 0; y < R && !r; y++) {
			start[y] = nw;
			if (transposed && f % R != y)
				continue;
			if (mask) {
				for (unsigned c = copies; c-- > 0 && !r;)
					if (s >= c && s - c < nf)
						r = sparse_share(m, layer, W, mask, bias, n_in, n_out,
								 kind, s - c, y,
								 kind == TM_W_BWW
									 ? wse_mlp_share_color(c, m->C)
									 : WSE_MLP_C_WEIGHTS,
								 col, wv, &nw);
				continue;
			}
			for (unsigned k = transposed ? 0 : y; k < nk; k += kstep) {
				float w = transposed ? W[(size_t)k * n_in + f] : W[(size_t)f * n_in + k];

				wv[nw++] = wse_wavelet(f2u(w), WSE_MLP_C_WEIGHTS, 0);
			}
			if (bias && f % R == y)
				wv[nw++] = wse_wavelet(f2u(bias[f]), WSE_MLP_C_WEIGHTS, 0);
		}
		start[R] = nw;
		left = nw - base;
		for (size_t off = 0; left; off += TM_PIECE)
			for (unsigned y = 0; y < R; y++) {
				size_t n = start[y + 1] - start[y];

				if (off >= n)
					continue;
				n = n - off < TM_PIECE ? n - off : TM_PIECE;
				ch[nc++] = (struct wse_stream_chunk){ .edge = WSE_WEST, .row = y,
								      .wavelets = wv + start[y] + off,
								      .count = n };
				left -= n;
			}
	}
	if (kind == TM_W_BWW && m->fault_index == layer + 1)
		m->fault_index = 0;
	if (!r)
		r = tm_stream_in(m, q, ch, nc);
	if (!mask) {
		m->st.bytes[TM_WEIGHTS] += 4ull * nf * nk;
		m->st.bytes[TM_BIASES] += bias ? 4ull * nf : 0;
	}
	m->st.weight_wavelets += nw;
	free(wv);
	free(ch);
	free(start);
	free(col);
	return r;
}

/* Weight gradients row r sends out of the east edge for layer l: every
 * W[o][i] of its inputs i = r, r+R, ..., of a masked layer the kept ones. */
static size_t layer_wgrad_count(const struct train_ref_net *net, unsigned l, unsigned r,
				unsigned R)
{
	unsigned ni = net->dims[l], no = net->dims[l + 1];
	const float *mask = net->mask[l];
	size_t n = 0;

	if (!mask)
		return (size_t)no * wse_mlp_count(ni, r, R);
	for (unsigned o = 0; o < no; o++)
		for (unsigned i = r; i < ni; i += R)
			n += mask[(size_t)o * ni + i] != 0.0f;
	return n;
}

/* Gradient wavelets row r sends out of the east edge for layer l. */
static size_t layer_grad_count(const struct train_ref_net *net, unsigned l, unsigned r,
			       unsigned R)
{
	return layer_wgrad_count(net, l, r, R) + wse_mlp_count(net->dims[l + 1], r, R);
}

/* Gradient wavelets row r sends out of the east edge in one pass. */
static size_t grad_count(const struct train_ref_net *net, unsigned r, unsigned R)
{
	size_t n = 0;

	for (unsigned l = 0; l < net->nlayers; l++)
		n += layer_grad_count(net, l, r, R);
	return n;
}

/* A failed tile while gradients are awaited: its error (as wait_done's),
 * 0 while every tile runs or ended well. After a failure, once every tile
 * has ended (or the time-out), the gradients that came are taken and
 * dropped, so that the next pass starts from empty streams. */
static int tm_tile_failed(struct train_mesh *m)
{
	int failed = 0;

	for (unsigned t = 0; t < m->R * m->C && !failed; t++) {
		uint32_t st;
		int r = wse_reg_read(m->dev, t % m->C, t / m->C, WSE_REG_TILE_STATUS, &st);

		if (r)
			return tm_fail(m, r, "mesh backend: tile status: %s", wse_strerror(r));
		if ((st & WSE_TILE_STATUS_DONE) && (st & WSE_TILE_STATUS_FAILED))
			failed = tm_tile_error(m, t % m->C, t / m->C, st >> 16);
	}
	if (!failed)
		return 0;
	double end = now_ms() + m->timeout_ms;

	for (unsigned t = 0; t < m->R * m->C && now_ms() < end;) {
		uint32_t st = 0;

		if (wse_reg_read(m->dev, t % m->C, t / m->C, WSE_REG_TILE_STATUS, &st))
			break;
		if (st & WSE_TILE_STATUS_DONE) {
			t++;
			continue;
		}
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	for (unsigned y = 0; y < m->R; y++) {
		uint64_t drop[64];

		while (wse_stream_out(m->dev, WSE_EAST, y, drop, 64, 0) > 0)
			;
	}
	return failed;
}

/* Take row r's gradients of layer l (each row sends layers L-1 .. 0 in
 * turn) into buf, room for them, and place them: outputs o in order, the
 * row's inputs ascending (of a masked layer the kept ones only, the
 * others +0), then the bias of o at o's owner. A tile that fails ends the
 * wait with its error. */
static int collect_grads(struct train_mesh *m, const struct train_ref_net *net, unsigned l,
			 unsigned r, uint64_t *buf, struct train_ref_out *out)
{
	size_t n = layer_grad_count(net, l, r, m->R), got = 0;
	double end = now_ms() + m->timeout_ms;
	int k;

	while (got < n) {
		int left = (int)(end - now_ms());

		if (left <= 0)
			return tm_fail(m, WSE_ERROR_TIMEOUT,
				       "mesh backend: row %u sent %zu of %zu gradients of layer %u", r,
				       got, n, l);
		k = wse_stream_out(m->dev, WSE_EAST, r, buf + got, n - got,
				   left < TM_GRAD_POLL_MS ? left : TM_GRAD_POLL_MS);
		if (k < 0 && k != WSE_ERROR_TIMEOUT)
			return tm_fail(m, k, "mesh backend: gradients of row %u: %s", r,
				       wse_strerror(k));
		if (k > 0)
			got += (size_t)k;
		else if ((k = tm_tile_failed(m)))
			return k;
	}
	size_t q = 0;
	unsigned ni = net->dims[l], no = net->dims[l + 1];

	const float *mask = net->mask[l];

	for (unsigned o = 0; o < no; o++) {
		/* the gradients of masked weights are not streamed (+0) */
		for (unsigned i = r; i < ni; i += m->R)
			out->dw[l][(size_t)o * ni + i] = mask && mask[(size_t)o * ni + i] == 0.0f
				? 0.0f : u2f(wse_wavelet_data(buf[q++]));
		if (o % m->R == r)
			out->db[l][o] = u2f(wse_wavelet_data(buf[q++]));
	}
	m->st.bytes[TM_GRADIENTS] += 4ull * layer_wgrad_count(net, l, r, m->R);
	m->st.bytes[TM_BIAS_GRADS] += 4ull * wse_mlp_count(no, r, m->R);
	return 0;
}

/* Every row's gradients, layer by layer from L-1 down; hooks (if any)
 * hear of each layer as soon as all rows have sent it, while the device
 * goes on with the layers below. */
static int collect_layers(struct train_mesh *m, const struct train_ref_net *net,
			  struct train_ref_out *out, const struct train_pass_hooks *hooks)
{
	size_t most = 1;

	for (unsigned l = 0; l < net->nlayers; l++)
		for (unsigned y = 0; y < m->R; y++)
			if (layer_grad_count(net, l, y, m->R) > most)
				most = layer_grad_count(net, l, y, m->R);
	uint64_t *buf = malloc(most * sizeof(uint64_t));
	int r = 0;

	if (!buf)
		return tm_fail(m, WSE_ERROR_NO_MEM, "mesh backend: gradients: %s",
			       wse_strerror(WSE_ERROR_NO_MEM));
	for (unsigned l = net->nlayers; !r && l-- > 0;) {
		for (unsigned y = 0; !r && y < m->R; y++)
			r = collect_grads(m, net, l, y, buf, out);
		if (!r && hooks)
			hooks->grads_out(hooks->user, l);
	}
	free(buf);
	return r;
}

static int wait_done(struct train_mesh *m)
{
	double end = now_ms() + m->timeout_ms;
	unsigned nt = m->R * m->C, next = 0;

	while (next < nt) {
		uint32_t st;
		int r = wse_reg_read(m->dev, next % m->C, next / m->C, WSE_REG_TILE_STATUS, &st);

		if (r)
			return tm_fail(m, r, "mesh backend: tile status: %s", wse_strerror(r));
		if (st & WSE_TILE_STATUS_DONE) {
			if (st & WSE_TILE_STATUS_FAILED)
				return tm_tile_error(m, next % m->C, next / m->C, st >> 16);
			next++;
			continue;
		}
		if (now_ms() > end)
			return tm_fail(m, WSE_ERROR_TIMEOUT,
				       "mesh backend: tile (%u,%u) did not finish the pass",
				       next % m->C, next / m->C);
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Per-token loss (label's row) and prediction (lowest class at the max,
 * over the rows' candidates), summed in token order as the reference. */
static int read_metrics(struct train_mesh *m, const struct layout *lo, const uint8_t *labels,
			unsigned B, struct train_ref_out *out)
{
	unsigned R = m->R, C = m->C, tc = lo->tc;
	uint32_t *loss = calloc((size_t)R * C * tc, 4), *cand = calloc((size_t)R * C * tc, 4);
	int r = (loss && cand) ? 0 : WSE_ERROR_NO_MEM;
	uint32_t cycles = 0, gemm = 0;

	for (unsigned y = 0; y < R && !r; y++)
		for (unsigned c = 0; c < C && !r; c++) {
			size_t o = ((size_t)y * C + c) * tc;
			uint32_t cyc[2];

			r = wse_mem_read(m->dev, c, y, lo->p.loss, loss + o, tc * 4);
			if (!r)
				r = wse_mem_read(m->dev, c, y, lo->p.cand, cand + o, tc * 4);
			if (!r)
				r = wse_mem_read(m->dev, c, y,
						 m->params_addr + offsetof(struct wse_mlp_params, cycles),
						 cyc, 8);
			if (!r && m->profile) {
				uint32_t pw[WSE_MLP_PROF_WORDS];

				r = wse_mem_read(m->dev, c, y, lo->p.prof, pw, sizeof(pw));
				for (unsigned k = 0; !r && k < WSE_MLP_PROF_WORDS; k++)
					if (pw[k] > m->st.prof[k])
						m->st.prof[k] = pw[k];
			}
			cycles = (!r && cyc[0] > cycles) ? cyc[0] : cycles;
			gemm = (!r && cyc[1] > gemm) ? cyc[1] : gemm;
			m->st.bytes[TM_METRICS] += 8ull * tc;
		}
	if (!r) {
		float sum = 0.0f;
		uint32_t correct = 0;

		for (unsigned t = 0; t < B; t++) {
			unsigned c = t % C, j = t / C, y = labels[t], pred = UINT32_MAX;

			sum = sum + u2f(loss[((size_t)(y % R) * C + c) * tc + j]);
			for (unsigned row = 0; row < R; row++) {
				uint32_t k = cand[((size_t)row * C + c) * tc + j];

				pred = k < pred ? k : pred;
			}
			correct += pred == y;
		}
		out->loss_sum = sum;
		m->st.cycles = cycles;
		m->st.gemm_cycles = gemm;
		out->cycles = cycles;
		out->correct = correct;
	}
	free(loss);
	free(cand);
	return r;
}

/* The logits act[L] (docs/training-dataflow.md, section 9): class
 * k = y + s R of token t = c + j C at word s Fw + j of tile (c, y). */
static int read_logits(struct train_mesh *m, const struct layout *lo, unsigned K, unsigned B,
		       float *logits)
{
	unsigned R = m->R, C = m->C, tc = lo->tc, fw = wse_mlp_feature_words(tc);
	uint32_t *z = malloc((size_t)rows_of(K, R) * fw * 4);
	int r = z ? 0 : WSE_ERROR_NO_MEM;

	for (unsigned y = 0; y < R && !r; y++)
		for (unsigned c = 0; c < C && !r; c++) {
			unsigned ak = wse_mlp_count(K, y, R);

			if (!ak || c >= B)
				continue;
			r = wse_mem_read(m->dev, c, y, lo->p.act[lo->p.nlayers], z,
					 (size_t)ak * fw * 4);
			for (unsigned s = 0; !r && s < ak; s++)
				for (unsigned j = 0, t = c; j < tc && t < B; j++, t += C)
					logits[(size_t)t * K + y + s * R] = u2f(z[s * fw + j]);
			m->st.bytes[TM_METRICS] += 4ull * ak * fw;
		}
	free(z);
	return r;
}

/* Append the tiles' state to the error, for a pass that did not end. */
static int with_tiles(struct train_mesh *m, int code)
{
	size_t n = strlen(m->err);
	unsigned running = 0;

	for (unsigned t = 0; t < m->R * m->C && n + 48 < sizeof(m->err); t++) {
		uint32_t st = 0;

		if (wse_reg_read(m->dev, t % m->C, t / m->C, WSE_REG_TILE_STATUS, &st))
			break;
		if (!(st & WSE_TILE_STATUS_DONE)) {
			running++;
			continue;
		}
		n += (size_t)snprintf(m->err + n, sizeof(m->err) - n, "; tile (%u,%u) %s %u",
				      t % m->C, t / m->C, st & WSE_TILE_STATUS_FAILED ? "failed, code" : "ended",
				      st >> 16);
	}
	if (n + 40 < sizeof(m->err))
		snprintf(m->err + n, sizeof(m->err) - n, "; %u tile(s) still running", running);
	return code;
}

int train_mesh_pass(struct train_mesh *m, const struct train_ref_net *net, const float *x,
		    const uint8_t *labels, unsigned B, unsigned norm, struct train_ref_out *out)
{
	return train_mesh_pass_hooked(m, net, x, labels, B, norm, out, NULL);
}

int train_mesh_pass_hooked(struct train_mesh *m, const struct train_ref_net *net,
			   const float *x, const uint8_t *labels, unsigned B, unsigned norm,
			   struct train_ref_out *out, const struct train_pass_hooks *hooks)
{
	unsigned L = net->nlayers;
	int train = out->dw[0] != NULL, r;
	struct layout lo;

	if (net->rows != m->R || net->cols != m->C || B == 0 || norm == 0)
		return tm_fail(m, WSE_ERROR_INVALID_PARAM, "mesh backend: bad pass arguments");
	if ((r = check_fit(m, L, net->dims, B)))
		return r;
	plan_layout(m, L, net->dims, B, &lo);
	memset(&m->st, 0, sizeof(m->st));
	uint32_t sparse = 0; /* layers streamed as sparse shares: those with a mask */
	for (unsigned l = 0; l < L && l < TRAIN_REF_MAX_LAYERS; l++)
		sparse |= (net->mask[l] ? 1u : 0u) << l;
	double t0 = now_ms(), t1;
	r = wse_reg_write(m->dev, WSE_ALL_TILES, WSE_ALL_TILES, WSE_REG_TILE_CTRL,
			  WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET);
	if (!r)
		r = write_params(m, &lo, B, norm, train ? WSE_MLP_MODE_TRAIN : WSE_MLP_MODE_FORWARD,
				 sparse);
	for (unsigned y = 0; train && y < m->R && !r; y++)
		r = wse_stream_credit(m->dev, WSE_EAST, y, (uint32_t)grad_count(net, y, m->R));
	if (!r)
		r = wse_tile_run(m->dev, WSE_ALL_TILES, WSE_ALL_TILES);
	if (r)
		return tm_fail(m, r, "mesh backend: starting the pass: %s", wse_strerror(r));
	struct tm_streams *q = tm_streams_new();
	unsigned failed, submitted, hook_fail = 0;

	if (!q)
		return tm_fail(m, WSE_ERROR_NO_MEM, "mesh backend: starting the pass: %s",
			       wse_strerror(WSE_ERROR_NO_MEM));
	r = stream_batch(m, q, net->dims[0], x, labels, B, lo.tc);
	t1 = now_ms();
	m->st.ms_load = t1 - t0;
	for (unsigned l = 0; l < L && !r; l++) {
		if (hooks && (r = hooks->weights_ready(hooks->user, l))) {
			hook_fail = l + 1;
			break;
		}
		r = stream_weights(m, q, l, net->w[l], net->b[l], net->mask[l], net->dims[l],
				   net->dims[l + 1], TM_W_FWD);
	}
	/* backward, in the kernel's order: per layer from L-1 down, a masked
	 * layer's index-only shares (weights), then its transposed matrix
	 * (inputs, l >= 1) */
	for (unsigned l = L; train && l-- > 0 && !r;) {
		if (net->mask[l])
			r = stream_weights(m, q, l, net->w[l], NULL, net->mask[l], net->dims[l],
					   net->dims[l + 1], TM_W_BWW);
		if (!r && l > 0)
			r = stream_weights(m, q, l, net->w[l], NULL, net->mask[l], net->dims[l],
					   net->dims[l + 1], TM_W_BWI);
	}
	submitted = q->n;
	/* what was submitted ends (or is cancelled) before the pass goes on */
	int w = tm_streams_wait(m, q, &failed);
	if (w)
		r = w;
	else if (hook_fail)
		return tm_fail(m, r, "mesh backend: waiting for the update of layer %u: %s",
			       hook_fail - 1, wse_strerror(r));
	else if (r)
		failed = submitted; /* building or submitting the next one failed */
	if (r)
		return with_tiles(m, tm_fail(m, r, "mesh backend: streaming the %s: %s",
					     failed == 0 ? "batch" : "weights", wse_strerror(r)));
	t0 = now_ms();
	m->st.ms_stream = t0 - t1;
	if (train && (r = collect_layers(m, net, out, hooks)))
		return with_tiles(m, r);
	t1 = now_ms();
	m->st.ms_collect = t1 - t0;
	if ((r = wait_done(m)))
		return r;
	if ((r = read_metrics(m, &lo, labels, B, out)))
		return tm_fail(m, r, "mesh backend: reading the metrics: %s", wse_strerror(r));
	if (out->logits && (r = read_logits(m, &lo, net->dims[L], B, out->logits)))
		return tm_fail(m, r, "mesh backend: reading the logits: %s", wse_strerror(r));
	m->st.ms_finish = now_ms() - t1;
	out->loss = out->loss_sum / (float)norm;
	return 0;
}

/* ---- the "mesh" backend (train_backend.h) ------------------------------ */

static int mesh_open(void **state, struct train_backend_cfg *cfg, char *err,
		     size_t errlen)
{
	struct train_mesh *m;
	int r = train_mesh_open(&m, cfg->device, cfg->nlayers, cfg->dims,
				cfg->max_batch, cfg->timeout_ms, &cfg->rows,
				&cfg->cols, err, errlen);

	*state = r ? NULL : m;
	return r;
}

static int mesh_pass(void *state, const struct train_ref_net *net,
		     const float *x, const uint8_t *labels, unsigned B,
		     unsigned norm, struct train_ref_out *out,
		     const struct train_pass_hooks *hooks, char *err, size_t errlen)
{
	int r = train_mesh_pass_hooked(state, net, x, labels, B, norm, out, hooks);

	if (r)
		snprintf(err, errlen, "%s", train_mesh_last_error(state));
	return r;
}

static void mesh_close(void *state)
{
	train_mesh_close(state);
}

const struct train_backend_ops train_backend_mesh = {
	.name = "mesh",
	.open = mesh_open,
	.pass = mesh_pass,
	.close = mesh_close,
};

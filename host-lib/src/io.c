/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.c - libwsehost's engine: a device handle's life (open, close, its two
 * threads), tags, time-outs, and the completion of transfers, with the
 * events (stream-out data, console output) queued per device. The request
 * calls of wsehost.h (device.c) build transfers and hand them to the
 * functions of io.h; nothing else of the engine is visible to them. The
 * split follows the line between the protocol's machinery (here, where
 * the locks and the threads are) and what each opcode's call puts in its
 * requests (device.c, which holds no lock and knows no thread).
 *
 * A transfer is one or more requests (packets), or a stream-out wait.
 * Requests are queued and sent in order, at most the device's
 * max_outstanding in flight (ABORT and STREAM_CREDIT aside), by whichever
 * thread submits and by the callback thread. Two library threads run per
 * device:
 *   - the receiver only reads the transport: it matches responses to
 *     requests by tag, queues events, and completes transfers; it never
 *     sends, so the link cannot deadlock on full buffers both ways;
 *   - the callback thread expires deadlines (retiring the tag and sending
 *     an ABORT), sends what the queue still holds, and runs the callbacks
 *     of asynchronous transfers.
 * d->lock guards the device state and is never held across a wait or a
 * transport call; d->txlock orders the senders and guards d->tx, and is
 * held across one send (bounded by its time-out). Order: txlock, then lock.
 * A synchronous call submits its transfer and sleeps on the transfer's
 * condition variable. A late answer for a retired tag is counted and
 * dropped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io.h"

#define NUM_EDGE_PORTS 128 /* 2 edges x 64 rows */
#define RETIRED_TAGS 32
#define MAX_ABORTS 64
#define RX_POLL_MS 20 /* the receiver checks for close this often */

struct wq {
	uint64_t *w;
	size_t head, len, cap;
	uint64_t credits; /* granted and not yet used by the device */
};

enum { Q_IDLE, Q_QUEUED, Q_SENT };

/* One request of a transfer. */
struct req {
	struct wse_transfer *x;
	struct req *prev, *next; /* in d->queue or d->sent */
	int state;
	uint8_t op;
	uint8_t slot;  /* counts against max_outstanding */
	uint8_t exact; /* the response must fill rep */
	uint32_t tag;
	uint8_t *pl;   /* payload, freed once sent */
	size_t len;
	uint8_t *rep;  /* response payload goes here (NULL: none expected) */
	size_t cap, got;
	size_t amount; /* added to the transfer's actual when answered OK */
	long long deadline;
};

struct rlist {
	struct req *head, *tail;
};

struct wse_transfer {
	struct wse_device *d;
	atomic_int done;
	int status;
	size_t actual;
	wse_transfer_cb cb;
	void *user;
	int sync, autofree, timeout_ms;
	pthread_cond_t cond; /* a synchronous caller waits here */
	/* stream-out */
	int sout, in_fifo;
	unsigned port;
	uint64_t *obuf;
	size_t omax;
	long long deadline;
	struct wse_transfer *next; /* port FIFO, then the done list */
	unsigned nreq, left;
	struct req req[];
};

/* A request whose transfer ended before its answer came (time-out,
 * cancel, another part failed): it still takes a device slot until the
 * answer comes or `until` passes. */
struct orphan {
	uint32_t tag;
	long long until;
};

struct wse_device {
	const struct wse_transport_ops *ops;
	struct wse_transport *t;
	struct wse_logger log;
	pthread_mutex_t lock, txlock;
	pthread_cond_t work; /* wakes the callback thread */
	pthread_t rx_thread, cb_thread;
	int threads;
	atomic_int rx_stop;
	int stop, closing;
	int timeout_ms;
	int dead; /* the transport reported NO_DEVICE: every call fails */
	uint32_t next_tag;
	struct wse_rx rx;   /* the receiver thread's alone */
	uint8_t *tx;        /* under txlock */
	size_t txcap;
	uint8_t *dtb;
	size_t dtb_len;
	struct wse_info info;
	uint32_t max_payload; /* device's request payload limit */
	unsigned max_out;     /* device's max_outstanding */
	uint32_t retired[RETIRED_TAGS];
	unsigned nretired;
	struct rlist queue, sent;
	unsigned nsent; /* sent requests taking a slot */
	struct orphan *orph;
	unsigned norph, orphcap;
	uint32_t aborts[MAX_ABORTS];
	unsigned naborts;
	struct wse_transfer *sout_head[NUM_EDGE_PORTS], *sout_tail[NUM_EDGE_PORTS];
	unsigned nsout;
	struct wse_transfer *done_head, *done_tail;
	struct wq outq[NUM_EDGE_PORTS];
	char *con;
	size_t con_len, con_cap;
	/* Partial console line of each tile (y * 64 + x), joined to con when
	 * complete, so lines of tiles printing at once do not mix. */
	char *tline[64 * 64];
	uint16_t tline_len[64 * 64];
	struct wse_link_stats st;
	uint64_t rx_bad; /* the framing's drops, copied from rx */
};


/* ---- Lists, tags ---------------------------------------------------------- */

static void rl_append(struct rlist *l, struct req *q)
{
	q->next = NULL;
	q->prev = l->tail;
	if (l->tail)
		l->tail->next = q;
	else
		l->head = q;
	l->tail = q;
}

static void rl_remove(struct rlist *l, struct req *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		l->head = q->next;
	if (q->next)
		q->next->prev = q->prev;
	else
		l->tail = q->prev;
	q->prev = q->next = NULL;
}

static uint32_t new_tag(struct wse_device *d)
{
	if (++d->next_tag == 0)
		d->next_tag = 1;
	return d->next_tag;
}

static void retire(struct wse_device *d, uint32_t tag)
{
	d->retired[d->nretired++ % RETIRED_TAGS] = tag;
}

static int is_retired(const struct wse_device *d, uint32_t tag)
{
	for (unsigned i = 0; i < RETIRED_TAGS && i < d->nretired; i++)
		if (d->retired[i] == tag)
			return 1;
	return 0;
}

static void add_orphan(struct wse_device *d, uint32_t tag)
{
	if (d->norph == d->orphcap) {
		unsigned nc = d->orphcap ? 2 * d->orphcap : 8;
		struct orphan *n = realloc(d->orph, nc * sizeof(*n));
		if (!n)
			return; /* its slot is freed early: the device may answer BUSY */
		d->orph = n;
		d->orphcap = nc;
	}
	d->orph[d->norph++] = (struct orphan){tag, wsei_now_ms() + d->timeout_ms};
}

/* 1 if tag was an orphan (now forgotten). */
static int take_orphan(struct wse_device *d, uint32_t tag)
{
	for (unsigned i = 0; i < d->norph; i++)
		if (d->orph[i].tag == tag) {
			d->orph[i] = d->orph[--d->norph];
			return 1;
		}
	return 0;
}

static int on_cb_thread(const struct wse_device *d)
{
	return d->threads && pthread_equal(pthread_self(), d->cb_thread);
}

/* ---- Completion ------------------------------------------------------------ */

static void sout_unlink(struct wse_device *d, struct wse_transfer *x)
{
	struct wse_transfer **pp = &d->sout_head[x->port], *prev = NULL;
	while (*pp && *pp != x) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return;
	*pp = x->next;
	if (d->sout_tail[x->port] == x)
		d->sout_tail[x->port] = prev;
	x->next = NULL;
	x->in_fifo = 0;
	d->nsout--;
}

/* End transfer x with status (lock held): its queued requests are dropped,
 * its sent ones become orphans (with an ABORT sent for each if abort), and
 * its caller is woken or its callback queued. */
static void finish(struct wse_device *d, struct wse_transfer *x, int status,
		   int abort)
{
	if (atomic_load(&x->done))
		return;
	for (unsigned i = 0; i < x->nreq; i++) {
		struct req *q = &x->req[i];
		if (q->state == Q_QUEUED) {
			rl_remove(&d->queue, q);
		} else if (q->state == Q_SENT) {
			rl_remove(&d->sent, q);
			retire(d, q->tag);
			if (q->slot) {
				d->nsent--;
				add_orphan(d, q->tag);
			}
			if (abort && d->naborts < MAX_ABORTS)
				d->aborts[d->naborts++] = q->tag;
		}
		q->state = Q_IDLE;
		free(q->pl);
		q->pl = NULL;
	}
	if (x->in_fifo)
		sout_unlink(d, x);
	x->status = status;
	atomic_store(&x->done, 1);
	if (x->sync) {
		pthread_cond_broadcast(&x->cond);
	} else {
		x->next = NULL;
		if (d->done_tail)
			d->done_tail->next = x;
		else
			d->done_head = x;
		d->done_tail = x;
	}
	pthread_cond_signal(&d->work);
}

/* Every transfer not yet complete ends with err. */
static void fail_all(struct wse_device *d, int err)
{
	while (d->queue.head)
		finish(d, d->queue.head->x, err, 0);
	while (d->sent.head)
		finish(d, d->sent.head->x, err, 0);
	for (unsigned p = 0; p < NUM_EDGE_PORTS && d->nsout; p++)
		while (d->sout_head[p])
			finish(d, d->sout_head[p], err, 0);
}

static int link_error(struct wse_device *d, int r)
{
	if (r == WSE_ERROR_NO_DEVICE && !d->dead) {
		d->dead = 1;
		d->naborts = 0;
		d->norph = 0;
		wsei_logf(&d->log, WSE_LOG_ERROR, "device is gone");
		fail_all(d, WSE_ERROR_NO_DEVICE);
	}
	return r;
}

/* A sent request answered (err 0) or failed. */
static void complete_req(struct wse_device *d, struct req *q, int err)
{
	struct wse_transfer *x = q->x;
	rl_remove(&d->sent, q);
	if (q->slot)
		d->nsent--;
	q->state = Q_IDLE;
	pthread_cond_signal(&d->work); /* a slot is free */
	if (err) {
		retire(d, q->tag); /* an answer that still comes is a late one */
		finish(d, x, err, 0);
		return;
	}
	x->actual += q->amount;
	if (--x->left == 0)
		finish(d, x, 0, 0);
}

static struct req *find_sent(struct wse_device *d, uint32_t tag)
{
	for (struct req *q = d->sent.head; q; q = q->next)
		if (q->tag == tag)
			return q;
	return NULL;
}

/* ---- Events ---------------------------------------------------------------- */

/* Hand queued wavelets of a port to the stream-outs waiting on it, oldest
 * first. */
static void feed_souts(struct wse_device *d, unsigned idx)
{
	struct wq *q = &d->outq[idx];
	struct wse_transfer *x;
	while (q->len && (x = d->sout_head[idx])) {
		size_t n = q->len < x->omax ? q->len : x->omax;
		for (size_t i = 0; i < n; i++)
			x->obuf[i] = q->w[(q->head + i) % q->cap];
		q->head = (q->head + n) % q->cap;
		q->len -= n;
		x->actual = n;
		finish(d, x, 0, 0);
	}
}

static int wq_push(struct wq *q, const uint8_t *w, uint32_t n)
{
	if (q->len + n > q->cap) {
		size_t nc = q->cap ? q->cap : 256;
		while (nc < q->len + n)
			nc *= 2;
		uint64_t *nw = malloc(nc * sizeof(*nw));
		if (!nw)
			return WSE_ERROR_NO_MEM;
		for (size_t i = 0; i < q->len; i++)
			nw[i] = q->w[(q->head + i) % q->cap];
		free(q->w);
		q->w = nw;
		q->cap = nc;
		q->head = 0;
	}
	for (uint32_t i = 0; i < n; i++)
		q->w[(q->head + q->len + i) % q->cap] = wse_get_le64(w + 8 * i);
	q->len += n;
	return 0;
}

static unsigned port_index(uint8_t port)
{
	return WSE_EDGE_PORT_EDGE(port) * 64 + WSE_EDGE_PORT_ROW(port);
}

/* STREAM_OUT: each chunk must be for an existing port and within the
 * credits granted; otherwise the whole packet is dropped and counted. */
static void on_stream_out(struct wse_device *d, const struct wse_pkt *p)
{
	size_t off = 0;
	struct wse_wire_chunk c;
	int r;
	uint64_t use[NUM_EDGE_PORTS] = {0};
	while ((r = wse_chunk_next(p->payload, p->length, &off, &c)) == 1) {
		unsigned i = port_index(c.port);
		use[i] += c.count;
		if (WSE_EDGE_PORT_ROW(c.port) >= d->info.rows ||
		    use[i] > d->outq[i].credits) {
			wsei_logf(&d->log, WSE_LOG_WARNING,
				"stream-out for port 0x%02x beyond its credits or rows: dropped",
				c.port);
			d->st.bad_packets++;
			return;
		}
	}
	off = 0;
	while (wse_chunk_next(p->payload, p->length, &off, &c) == 1) {
		struct wq *q = &d->outq[port_index(c.port)];
		if (wq_push(q, c.wavelets, c.count)) {
			wsei_logf(&d->log, WSE_LOG_ERROR,
				"out of memory: stream-out data dropped");
			d->st.bad_packets++;
			return;
		}
		q->credits -= c.count;
		feed_souts(d, port_index(c.port));
	}
}

static void on_console(struct wse_device *d, const struct wse_pkt *p)
{
	struct wse_wire_console c;
	if (wse_console_decode(p->payload, p->length, &c))
		return;
	/* Worst case: a "[x,y] " prefix (at most 10 bytes) per byte. */
	size_t need = d->con_len + 12 * ((size_t)c.count + 1) + 256;
	if (need > (1u << 20)) {
		wsei_logf(&d->log, WSE_LOG_WARNING,
			"console buffer full (1 MiB unread): output dropped");
		return;
	}
	if (need > d->con_cap) {
		size_t nc = d->con_cap ? d->con_cap : 4096;
		while (nc < need)
			nc *= 2;
		char *n = realloc(d->con, nc);
		if (!n)
			return;
		d->con = n;
		d->con_cap = nc;
	}
	unsigned t = (c.y & 63u) * 64u + (c.x & 63u);
	if (!d->tline[t] && !(d->tline[t] = malloc(256)))
		return;
	for (uint16_t i = 0; i < c.count; i++) {
		char ch = (char)c.bytes[i];
		d->tline[t][d->tline_len[t]++] = ch;
		if (ch != '\n' && d->tline_len[t] < 255)
			continue;
		/* A complete line (or 255 bytes): prefixed with its tile. */
		d->con_len += (size_t)snprintf(d->con + d->con_len, d->con_cap - d->con_len,
					       "[%u,%u] ", c.x, c.y);
		memcpy(d->con + d->con_len, d->tline[t], d->tline_len[t]);
		d->con_len += d->tline_len[t];
		d->tline_len[t] = 0;
	}
}

/* ---- The receiver ---------------------------------------------------------- */

/* Log the protocol versions a VERSION status carries: the device's, sep,
 * the one the request spoke. */
static void log_version(struct wse_device *d, const struct wse_pkt *p,
			const char *sep)
{
	struct wse_wire_version v;
	if (!wse_version_decode(p->payload, p->length, &v))
		wsei_logf(&d->log, WSE_LOG_ERROR,
			"device speaks protocol %u.%u%s%u.%u", v.dev_major,
			v.dev_minor, sep, v.req_major, v.req_minor);
}

/* Our response (intact header, r from wse_rx_next) to request q: 0 with
 * the payload stored, the device's status as an error, or a protocol
 * error. */
static int answer(struct wse_device *d, struct req *q, int r,
		  const struct wse_pkt *p)
{
	if (r != 1) {
		wsei_logf(&d->log, WSE_LOG_WARNING, "received bad packet: %s",
			wse_strerror(r));
		if (r == WSE_ERROR_VERSION && p->payload &&
		    p->status == WSE_ST_VERSION)
			log_version(d, p, ", this library ");
		return r;
	}
	d->st.rx_packets++;
	if (p->opcode != q->op) {
		d->st.bad_packets++;
		wsei_logf(&d->log, WSE_LOG_WARNING,
			"response to %s tag %u has opcode %s",
			wse_opcode_name(q->op), q->tag,
			wse_opcode_name(p->opcode));
		return WSE_ERROR_MALFORMED;
	}
	if (p->status == WSE_ST_VERSION)
		log_version(d, p, " and refused ");
	if ((r = wse_payload_check(p))) {
		d->st.bad_packets++;
		wsei_logf(&d->log, WSE_LOG_WARNING, "malformed %s response: %s",
			wse_opcode_name(p->opcode), wse_strerror(r));
		return WSE_ERROR_MALFORMED;
	}
	if (p->status != WSE_ST_OK) {
		wsei_logf(&d->log, WSE_LOG_INFO, "%s tag %u: device status %s",
			wse_opcode_name(p->opcode), p->tag,
			wse_status_name(p->status));
		if (p->status == WSE_ST_VERIFY && q->rep && q->cap >= 4) {
			memcpy(q->rep, p->payload, 4);
			q->got = 4;
		}
		return wse_status_to_error(p->status);
	}
	if (q->rep) {
		if (p->length > q->cap)
			return WSE_ERROR_OVERFLOW;
		if (q->exact && p->length != q->cap)
			return WSE_ERROR_MALFORMED;
		if (p->length)
			memcpy(q->rep, p->payload, p->length);
		q->got = p->length;
	}
	return 0;
}

/* One packet from wse_rx_next (r != 0), lock held. */
static void dispatch(struct wse_device *d, int r, const struct wse_pkt *p)
{
	int intact = r == 1 || r == WSE_ERROR_VERSION ||
		     r == WSE_ERROR_MALFORMED || r == WSE_ERROR_BAD_OPCODE ||
		     r == WSE_ERROR_PAYLOAD_CRC || r == WSE_ERROR_LENGTH;
	struct req *q = NULL;
	if (intact && p->tag && (p->flags & WSE_FLAG_RESPONSE))
		q = find_sent(d, p->tag);
	if (q) {
		complete_req(d, q, answer(d, q, r, p));
		return;
	}
	if (r != 1) {
		wsei_logf(&d->log, WSE_LOG_WARNING, "received bad packet: %s",
			wse_strerror(r));
		return;
	}
	d->st.rx_packets++;
	if (!(p->flags & WSE_FLAG_EVENT)) {
		if (take_orphan(d, p->tag) || is_retired(d, p->tag)) {
			d->st.late_replies++;
			wsei_logf(&d->log, WSE_LOG_DEBUG,
				"late reply to tag %u dropped", p->tag);
		} else {
			d->st.bad_packets++;
			wsei_logf(&d->log, WSE_LOG_WARNING,
				"unexpected packet %s tag %u dropped",
				wse_opcode_name(p->opcode), p->tag);
		}
		return;
	}
	if (wse_payload_check(p)) {
		d->st.bad_packets++;
		wsei_logf(&d->log, WSE_LOG_WARNING, "malformed %s event dropped",
			wse_opcode_name(p->opcode));
		return;
	}
	if (p->opcode == WSE_OP_STREAM_OUT)
		on_stream_out(d, p);
	else
		on_console(d, p);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

static void *rx_main(void *arg)
{
	struct wse_device *d = arg;
	while (!atomic_load(&d->rx_stop)) {
		size_t avail;
		uint8_t *sp = wse_rx_space(&d->rx, &avail);
		int n = d->ops->recv(d->t, sp, avail, RX_POLL_MS);
		if (n == WSE_ERROR_TIMEOUT)
			continue;
		pthread_mutex_lock(&d->lock);
		if (n < 0) {
			if (n != WSE_ERROR_NO_DEVICE) {
				/* What was sent may never be answered now. */
				wsei_logf(&d->log, WSE_LOG_WARNING,
					"receive failed: %s", wse_strerror(n));
				while (d->sent.head)
					finish(d, d->sent.head->x, n, 0);
			}
			link_error(d, n);
			int dead = d->dead;
			pthread_mutex_unlock(&d->lock);
			if (dead)
				break;
			sleep_ms(RX_POLL_MS);
			continue;
		}
		wse_rx_commit(&d->rx, (size_t)n);
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&d->rx, &p)) != 0)
			dispatch(d, r, &p);
		d->st.resync_bytes = d->rx.resync_bytes;
		d->rx_bad = d->rx.bad_packets;
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

/* ---- Sending ------------------------------------------------------------------ */

static int encode(struct wse_device *d, uint8_t op, uint32_t tag,
		  const void *pl, size_t len)
{
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR,
			    .minor = WSE_PROTO_MINOR,
			    .opcode = op,
			    .tag = tag,
			    .length = (uint32_t)len};
	wsei_logf(&d->log, WSE_LOG_DEBUG, "tx %s tag %u len %zu",
		wse_opcode_name(op), tag, len);
	return wse_pkt_encode(d->tx, d->txcap, &p, pl);
}

static struct req *next_to_send(struct wse_device *d)
{
	int free_slot = d->nsent + d->norph < d->max_out;
	for (struct req *q = d->queue.head; q; q = q->next)
		if (!q->slot || free_slot)
			return q;
	return NULL;
}

static int can_send(struct wse_device *d)
{
	return !d->dead && (d->naborts || next_to_send(d));
}

/* Send ABORTs and queued requests while the device has room. */
static void flush(struct wse_device *d)
{
	pthread_mutex_lock(&d->txlock);
	for (;;) {
		pthread_mutex_lock(&d->lock);
		struct req *q = NULL;
		int n = 0, to = 100;
		uint32_t tag = 0;
		if (d->dead) {
			/* nothing goes out */
		} else if (d->naborts) {
			uint8_t a[4];
			wse_put_le32(a, d->aborts[--d->naborts]);
			tag = new_tag(d);
			retire(d, tag); /* best effort: its answer is not awaited */
			n = encode(d, WSE_OP_ABORT, tag, a, 4);
		} else if ((q = next_to_send(d))) {
			rl_remove(&d->queue, q);
			q->state = Q_SENT;
			rl_append(&d->sent, q);
			if (q->slot)
				d->nsent++;
			to = q->x->timeout_ms;
			q->deadline = wsei_now_ms() + to;
			tag = q->tag;
			n = encode(d, q->op, tag, q->pl, q->len);
			free(q->pl);
			q->pl = NULL;
			if (n < 0) {
				complete_req(d, q, n);
				pthread_mutex_unlock(&d->lock);
				continue;
			}
		}
		pthread_mutex_unlock(&d->lock);
		if (n <= 0)
			break;
		int r = d->ops->send(d->t, d->tx, (size_t)n, to);
		pthread_mutex_lock(&d->lock);
		if (!r) {
			d->st.tx_packets++;
		} else {
			if (q && (q = find_sent(d, tag)))
				complete_req(d, q, r);
			link_error(d, r);
		}
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&d->txlock);
}

/* ---- The callback thread ------------------------------------------------ */

/* End what is past its deadline; *next = the earliest deadline left. */
static void expire(struct wse_device *d, long long now, long long *next)
{
	struct req *q;
again:
	for (q = d->sent.head; q; q = q->next) {
		if (q->deadline > now) {
			if (q->deadline < *next)
				*next = q->deadline;
			continue;
		}
		d->st.timeouts++;
		wsei_logf(&d->log, WSE_LOG_WARNING, "%s tag %u timed out",
			wse_opcode_name(q->op), q->tag);
		finish(d, q->x, WSE_ERROR_TIMEOUT, 1);
		goto again;
	}
	for (unsigned p = 0; p < NUM_EDGE_PORTS && d->nsout; p++)
		for (struct wse_transfer *x = d->sout_head[p]; x;) {
			struct wse_transfer *nx = x->next;
			if (x->deadline <= now)
				finish(d, x, WSE_ERROR_TIMEOUT, 0);
			else if (x->deadline < *next)
				*next = x->deadline;
			x = nx;
		}
	for (unsigned i = 0; i < d->norph;) {
		if (d->orph[i].until <= now) {
			d->orph[i] = d->orph[--d->norph];
			pthread_cond_signal(&d->work);
			continue;
		}
		if (d->orph[i].until < *next)
			*next = d->orph[i].until;
		i++;
	}
}

static void *cb_main(void *arg)
{
	struct wse_device *d = arg;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		long long now = wsei_now_ms(), next = now + 1000;
		expire(d, now, &next);
		struct wse_transfer *x = d->done_head;
		if (x) {
			d->done_head = x->next;
			if (!d->done_head)
				d->done_tail = NULL;
			/* The caller may free x as soon as its callback runs. */
			int autofree = x->autofree;
			pthread_mutex_unlock(&d->lock);
			x->cb(x, x->status, x->actual, x->user);
			if (autofree)
				wse_transfer_free(x);
			pthread_mutex_lock(&d->lock);
			continue;
		}
		if (can_send(d)) {
			pthread_mutex_unlock(&d->lock);
			flush(d);
			pthread_mutex_lock(&d->lock);
			continue;
		}
		if (d->stop)
			break;
		struct timespec ts = {(time_t)(next / 1000),
				      (long)(next % 1000) * 1000000L};
		pthread_cond_timedwait(&d->work, &d->lock, &ts);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---- Transfers --------------------------------------------------------------- */

struct wse_transfer *wsei_xfer_new(struct wse_device *d, size_t nreq)
{
	struct wse_transfer *x =
		calloc(1, sizeof(*x) + nreq * sizeof(struct req));
	if (!x)
		return NULL;
	if (pthread_cond_init(&x->cond, NULL)) {
		free(x);
		return NULL;
	}
	x->d = d;
	x->nreq = (unsigned)nreq;
	for (size_t i = 0; i < nreq; i++)
		x->req[i].x = x;
	return x;
}

int wse_transfer_free(wse_transfer *x)
{
	if (!x)
		return 0;
	if (!atomic_load(&x->done))
		return WSE_ERROR_BUSY;
	for (unsigned i = 0; i < x->nreq; i++)
		free(x->req[i].pl);
	pthread_cond_destroy(&x->cond);
	free(x);
	return 0;
}

void wsei_xfer_drop(struct wse_transfer *x)
{
	if (x) {
		atomic_store(&x->done, 1);
		wse_transfer_free(x);
	}
}

int wsei_req_set(struct wse_transfer *x, unsigned i, uint8_t op,
		 const void *pl, size_t len, void *rep, size_t cap,
		 int exact, size_t amount)
{
	struct req *q = &x->req[i];
	if (len > x->d->max_payload)
		return WSE_ERROR_LENGTH;
	q->op = op;
	q->slot = op != WSE_OP_ABORT && op != WSE_OP_STREAM_CREDIT;
	q->exact = (uint8_t)exact;
	q->len = len;
	q->rep = rep;
	q->cap = cap;
	q->amount = amount;
	q->pl = malloc(len ? len : 1);
	if (!q->pl)
		return WSE_ERROR_NO_MEM;
	if (len)
		memcpy(q->pl, pl, len);
	return 0;
}

/* Queue x (requests or a stream-out wait) and send what can go. timeout_ms
 * > 0 for requests; for a stream-out >= 0 (0: only what is there). */
static int submit(struct wse_device *d, struct wse_transfer *x, int timeout_ms)
{
	int r = 0;
	pthread_mutex_lock(&d->lock);
	if (d->closing)
		r = WSE_ERROR_ABORTED;
	else if (d->dead)
		r = WSE_ERROR_NO_DEVICE;
	else if (x->sync && on_cb_thread(d))
		r = WSE_ERROR_BUSY;
	if (!r) {
		x->timeout_ms = timeout_ms;
		x->left = x->nreq;
		for (unsigned i = 0; i < x->nreq; i++) {
			x->req[i].tag = new_tag(d);
			x->req[i].state = Q_QUEUED;
			rl_append(&d->queue, &x->req[i]);
		}
		if (x->sout) {
			x->deadline = wsei_now_ms() + timeout_ms;
			x->in_fifo = 1;
			if (d->sout_tail[x->port])
				d->sout_tail[x->port]->next = x;
			else
				d->sout_head[x->port] = x;
			d->sout_tail[x->port] = x;
			d->nsout++;
			feed_souts(d, x->port);
		} else if (!x->nreq) {
			finish(d, x, 0, 0);
		}
		pthread_cond_signal(&d->work);
	}
	/* x may be completed and freed once the lock is dropped. */
	int sends = !r && x->nreq;
	pthread_mutex_unlock(&d->lock);
	if (sends)
		flush(d);
	return r;
}

int wsei_run_sync(struct wse_device *d, struct wse_transfer *x, int timeout_ms)
{
	if (timeout_ms < 0 || (timeout_ms == 0 && !x->sout))
		timeout_ms = d->timeout_ms;
	x->sync = 1;
	int r = submit(d, x, timeout_ms);
	if (r)
		return r;
	pthread_mutex_lock(&d->lock);
	/* The callback thread ends x at its deadline at the latest. */
	while (!atomic_load(&x->done))
		pthread_cond_wait(&x->cond, &d->lock);
	r = x->status;
	if (!r && x->sout)
		r = (int)x->actual;
	pthread_mutex_unlock(&d->lock);
	return r;
}

int wsei_transact(struct wse_device *d, uint8_t op, const void *pl,
		  size_t len, struct wsei_reply *rep)
{
	struct wse_transfer *x = wsei_xfer_new(d, 1);
	if (!x)
		return WSE_ERROR_NO_MEM;
	int r = wsei_req_set(x, 0, op, pl, len, rep ? rep->buf : NULL,
			     rep ? rep->cap : 0, 0, 0);
	if (!r)
		r = wsei_run_sync(d, x, 0);
	if (rep)
		rep->len = x->req[0].got;
	wsei_xfer_drop(x);
	return r;
}

int wsei_submit_async(struct wse_device *d, struct wse_transfer *x,
		      int timeout_ms, wse_transfer_cb cb, void *user,
		      wse_transfer **out)
{
	x->cb = cb;
	x->user = user;
	x->autofree = !out;
	if (out)
		*out = x; /* set first: the callback may run before we return */
	int r = submit(d, x, timeout_ms > 0 ? timeout_ms : d->timeout_ms);
	if (r) {
		if (out)
			*out = NULL;
		wsei_xfer_drop(x);
	}
	return r;
}

int wse_transfer_cancel(wse_transfer *x)
{
	if (!x)
		return WSE_ERROR_INVALID_PARAM;
	if (atomic_load(&x->done))
		return WSE_ERROR_NOT_FOUND;
	struct wse_device *d = x->d;
	pthread_mutex_lock(&d->lock);
	int r = WSE_ERROR_NOT_FOUND;
	if (!atomic_load(&x->done)) {
		finish(d, x, WSE_ERROR_ABORTED, 1);
		r = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

/* ---- Open and close ----------------------------------------------------- */

/* Cancel what is pending, run the callbacks still due, stop the threads. */
static void stop_threads(struct wse_device *d)
{
	if (!d->threads)
		return;
	pthread_mutex_lock(&d->lock);
	d->closing = 1;
	fail_all(d, WSE_ERROR_ABORTED);
	d->stop = 1;
	pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->cb_thread, NULL);
	atomic_store(&d->rx_stop, 1);
	pthread_join(d->rx_thread, NULL);
	d->threads = 0;
}

static int start_threads(struct wse_device *d)
{
	if (pthread_create(&d->rx_thread, NULL, rx_main, d))
		return WSE_ERROR_NO_MEM;
	if (pthread_create(&d->cb_thread, NULL, cb_main, d)) {
		atomic_store(&d->rx_stop, 1);
		pthread_join(d->rx_thread, NULL);
		return WSE_ERROR_NO_MEM;
	}
	d->threads = 1;
	return 0;
}

static void free_device(struct wse_device *d)
{
	stop_threads(d);
	if (d->t)
		d->ops->close(d->t);
	wse_rx_free(&d->rx);
	free(d->tx);
	free(d->dtb);
	free(d->con);
	for (size_t i = 0; i < 64 * 64; i++)
		free(d->tline[i]);
	for (unsigned i = 0; i < NUM_EDGE_PORTS; i++)
		free(d->outq[i].w);
	free(d->orph);
	pthread_cond_destroy(&d->work);
	pthread_mutex_destroy(&d->txlock);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static int read_info(struct wse_device *d)
{
	struct wsei_reply rep = {.cap = WSE_PROTO_MAX_PAYLOAD};
	rep.buf = malloc(rep.cap);
	if (!rep.buf)
		return WSE_ERROR_NO_MEM;
	int r = wsei_transact(d, WSE_OP_INFO, NULL, 0, &rep);
	struct wse_wire_info wi;
	struct wse_info info = {.size = sizeof(info)};
	char err[160];
	if (!r)
		r = wse_info_decode(rep.buf, rep.len, &wi);
	if (!r && wi.major != WSE_PROTO_MAJOR) {
		wsei_logf(&d->log, WSE_LOG_ERROR,
			"device reports protocol %u.%u, this library %u.%u",
			wi.major, wi.minor, WSE_PROTO_MAJOR, WSE_PROTO_MINOR);
		r = WSE_ERROR_VERSION;
	}
	if (!r && (wi.max_payload < WSE_PROTO_MIN_DEV_PAYLOAD ||
		   wi.max_payload > WSE_PROTO_MAX_PAYLOAD ||
		   wi.max_outstanding < WSE_PROTO_MIN_OUTSTANDING)) {
		wsei_logf(&d->log, WSE_LOG_ERROR,
			"device limits out of range (max_payload %u, max_outstanding %u)",
			wi.max_payload, wi.max_outstanding);
		r = WSE_ERROR_MALFORMED;
	}
	if (!r) {
		r = wsei_dtb_parse(wi.dtb, wi.dtb_len, &info, err, sizeof(err));
		if (r == WSE_ERROR_BAD_DTB)
			wsei_logf(&d->log, WSE_LOG_ERROR, "device tree: %s", err);
	}
	if (!r) {
		d->dtb = malloc(wi.dtb_len);
		if (!d->dtb)
			r = WSE_ERROR_NO_MEM;
	}
	if (!r) {
		memcpy(d->dtb, wi.dtb, wi.dtb_len);
		d->dtb_len = wi.dtb_len;
		info.proto_major = wi.major;
		info.proto_minor = wi.minor;
		info.max_payload = wi.max_payload;
		info.max_outstanding = wi.max_outstanding;
		memcpy(info.build_id, wi.build_id, WSE_BUILD_ID_BYTES);
		info.build_id[WSE_BUILD_ID_BYTES] = 0;
		pthread_mutex_lock(&d->lock); /* the receiver reads them */
		d->info = info;
		d->max_payload = wi.max_payload;
		d->max_out = wi.max_outstanding;
		pthread_mutex_unlock(&d->lock);
		wsei_logf(&d->log, WSE_LOG_INFO,
			"device %s (%ux%u), protocol %u.%u, build %s",
			info.compatible, info.columns, info.rows, wi.major,
			wi.minor, info.build_id);
	}
	free(rep.buf);
	return r;
}

int wsei_open_ops(wse_device **devp, const struct wse_transport_ops *ops,
		 const char *args, const struct wse_open_opts *opts)
{
	struct wse_open_opts o = {0};
	if (!devp || !ops)
		return WSE_ERROR_INVALID_PARAM;
	*devp = NULL;
	if (opts) {
		if (opts->size < sizeof(size_t))
			return WSE_ERROR_INVALID_PARAM;
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	}
	struct wse_device *d = calloc(1, sizeof(*d));
	if (!d)
		return WSE_ERROR_NO_MEM;
	pthread_condattr_t ca;
	int ok = !pthread_condattr_init(&ca);
	ok = ok && !pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ok || pthread_mutex_init(&d->lock, NULL) ||
	    pthread_mutex_init(&d->txlock, NULL) ||
	    pthread_cond_init(&d->work, &ca)) {
		free(d); /* (nothing to destroy on Linux) */
		return WSE_ERROR_NO_MEM;
	}
	pthread_condattr_destroy(&ca);
	d->ops = ops;
	d->timeout_ms = o.timeout_ms > 0 ? o.timeout_ms : 5000;
	d->st.size = sizeof(d->st);
	/* Until INFO says otherwise, requests stay within the minimum every
	 * device accepts. */
	d->max_payload = WSE_PROTO_MIN_DEV_PAYLOAD;
	d->max_out = WSE_PROTO_MIN_OUTSTANDING;
	wsei_logger_init(&d->log, o.log_cb, o.log_user, o.log_level);
	d->txcap = wse_frame_bytes(WSE_PROTO_MAX_PAYLOAD);
	d->tx = malloc(d->txcap);
	int r = d->tx ? wse_rx_init(&d->rx, WSE_PROTO_MAX_PAYLOAD)
		      : WSE_ERROR_NO_MEM;
	if (!r)
		r = ops->open(&d->t, args,
			      o.open_timeout_ms > 0 ? o.open_timeout_ms : 10000,
			      &d->log);
	if (r) {
		d->t = NULL;
		free_device(d);
		return r;
	}
	r = start_threads(d);
	if (!r)
		r = read_info(d);
	if (r) {
		wsei_logf(&d->log, WSE_LOG_ERROR, "open failed: %s",
			wse_strerror(r));
		free_device(d);
		return r;
	}
	*devp = d;
	return 0;
}

int wse_open(wse_device **dev, const char *uri,
	     const struct wse_open_opts *opts)
{
	const char *args;
	const struct wse_transport_ops *ops = wsei_transport_find(uri, &args);
	if (!dev)
		return WSE_ERROR_INVALID_PARAM;
	*dev = NULL;
	if (!ops)
		return WSE_ERROR_INVALID_PARAM;
	return wsei_open_ops(dev, ops, args, opts);
}

void wse_close(wse_device *d)
{
	if (!d)
		return;
	if (on_cb_thread(d)) {
		wsei_logf(&d->log, WSE_LOG_ERROR,
			"wse_close called from a transfer callback: ignored");
		return;
	}
	free_device(d);
}

/* ---- Queries -------------------------------------------------------------- */

/* What the engine holds, read without waiting for the device: the calls a
 * transfer callback may make. */
int wse_get_info(wse_device *d, struct wse_info *info)
{
	if (!d || !info || info->size < sizeof(size_t))
		return WSE_ERROR_INVALID_PARAM;
	size_t n = info->size < sizeof(d->info) ? info->size : sizeof(d->info);
	pthread_mutex_lock(&d->lock);
	memcpy((char *)info + sizeof(size_t), (char *)&d->info + sizeof(size_t),
	       n - sizeof(size_t));
	pthread_mutex_unlock(&d->lock);
	return 0;
}

int wse_get_dtb(wse_device *d, const void **dtb, size_t *len)
{
	if (!d || !dtb || !len)
		return WSE_ERROR_INVALID_PARAM;
	*dtb = d->dtb;
	*len = d->dtb_len;
	return 0;
}

int wse_get_link_stats(wse_device *d, struct wse_link_stats *st)
{
	if (!d || !st || st->size < sizeof(size_t))
		return WSE_ERROR_INVALID_PARAM;
	size_t n = st->size < sizeof(d->st) ? st->size : sizeof(d->st);
	pthread_mutex_lock(&d->lock);
	struct wse_link_stats all = d->st;
	all.bad_packets += d->rx_bad; /* dropped by the framing */
	if (d->t && d->ops->stats) {
		struct wse_transport_stats ts = {0};
		d->ops->stats(d->t, &ts);
		all.line_errors += ts.line_errors;
	}
	memcpy((char *)st + sizeof(size_t), (char *)&all + sizeof(size_t),
	       n - sizeof(size_t));
	pthread_mutex_unlock(&d->lock);
	return 0;
}

int wse_console_read(wse_device *d, char *buf, size_t len)
{
	if (!d || (len && !buf))
		return WSE_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&d->lock);
	size_t n = d->con_len < len ? d->con_len : len;
	if (n) {
		memcpy(buf, d->con, n);
		memmove(d->con, d->con + n, d->con_len - n);
		d->con_len -= n;
	}
	pthread_mutex_unlock(&d->lock);
	return (int)n;
}

/* ---- What the request calls need of the device ----------------------------- */

/* Fixed once wse_open() returns: read without the lock. */
uint32_t wsei_max_payload(const struct wse_device *d)
{
	return d->max_payload;
}

const struct wse_info *wsei_info(const struct wse_device *d)
{
	return &d->info;
}

const struct wse_logger *wsei_log(const struct wse_device *d)
{
	return &d->log;
}

int wsei_sout_new(struct wse_device *d, uint8_t port, uint64_t *buf,
		  size_t max, struct wse_transfer **xp)
{
	struct wse_transfer *xf = wsei_xfer_new(d, 0);
	if (!xf)
		return WSE_ERROR_NO_MEM;
	xf->sout = 1;
	xf->port = port_index(port);
	xf->obuf = buf;
	xf->omax = max;
	*xp = xf;
	return 0;
}

void wsei_credit_grant(struct wse_device *d, uint8_t port, uint32_t n)
{
	pthread_mutex_lock(&d->lock);
	d->outq[port_index(port)].credits += n;
	pthread_mutex_unlock(&d->lock);
}

void wsei_streams_reset(struct wse_device *d)
{
	pthread_mutex_lock(&d->lock);
	for (unsigned i = 0; i < NUM_EDGE_PORTS; i++)
		d->outq[i].len = d->outq[i].credits = 0;
	pthread_mutex_unlock(&d->lock);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device.c - a device handle: requests and responses over a transport,
 * events (stream-out data, console output) queued per device, and the
 * device API of wsehost.h.
 *
 * One request is in flight per device at a time; the device mutex
 * serializes calls from several threads. Every wait ends at a deadline;
 * when it passes, the request's tag is retired (a late answer is counted
 * and dropped) and an ABORT for it is sent without waiting.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

#define NUM_EDGE_PORTS 128 /* 2 edges x 64 rows */
#define RETIRED_TAGS 32

struct wq {
	uint64_t *w;
	size_t head, len, cap;
	uint64_t credits; /* granted and not yet used by the device */
};

struct wse_device {
	const struct wse_transport_ops *ops;
	struct wse_transport *t;
	struct wse_logger log;
	pthread_mutex_t lock;
	int timeout_ms;
	int dead; /* the transport reported NO_DEVICE: every call fails */
	uint32_t next_tag;
	struct wse_rx rx;
	uint8_t *tx;
	size_t txcap;
	uint8_t *dtb;
	size_t dtb_len;
	struct wse_info info;
	uint32_t max_payload; /* device's request payload limit */
	uint32_t retired[RETIRED_TAGS];
	unsigned nretired;
	struct wq outq[NUM_EDGE_PORTS];
	char *con;
	size_t con_len, con_cap;
	/* Partial console line of each tile (y * 64 + x), joined to con when
	 * complete, so lines of tiles printing at once do not mix. */
	char *tline[64 * 64];
	uint16_t tline_len[64 * 64];
	struct wse_link_stats st;
};

/* A response being waited for. */
struct reply {
	uint8_t *buf; /* copy of the payload, or NULL */
	size_t cap, len;
};

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

static int link_error(struct wse_device *d, int r)
{
	if (r == WSE_ERROR_NO_DEVICE && !d->dead) {
		d->dead = 1;
		wse_log(&d->log, WSE_LOG_ERROR, "device is gone");
	}
	return r;
}

static int send_frame(struct wse_device *d, uint8_t op, uint32_t tag,
		      const void *pl, size_t len, int timeout_ms)
{
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR,
			    .minor = WSE_PROTO_MINOR,
			    .opcode = op,
			    .tag = tag,
			    .length = (uint32_t)len};
	if (len > d->max_payload)
		return WSE_ERROR_LENGTH;
	int n = wse_pkt_encode(d->tx, d->txcap, &p, pl);
	if (n < 0)
		return n;
	wse_log(&d->log, WSE_LOG_DEBUG, "tx %s tag %u len %zu",
		wse_opcode_name(op), tag, len);
	int r = d->ops->send(d->t, d->tx, (size_t)n, timeout_ms);
	if (r)
		return link_error(d, r);
	d->st.tx_packets++;
	return 0;
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
			wse_log(&d->log, WSE_LOG_WARNING,
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
			wse_log(&d->log, WSE_LOG_ERROR,
				"out of memory: stream-out data dropped");
			d->st.bad_packets++;
			return;
		}
		q->credits -= c.count;
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
		wse_log(&d->log, WSE_LOG_WARNING,
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

/*
 * Take received packets until the response for tag arrives (tag != 0) or
 * until the deadline (tag == 0: just pump events until *stop says so).
 * Returns the response's library error (0 for WSE_ST_OK, payload copied to
 * rep), TIMEOUT, NO_DEVICE, IO, or a protocol error about our response.
 */
static int pump(struct wse_device *d, uint32_t tag, uint8_t op,
		struct reply *rep, long long deadline,
		int (*stop)(struct wse_device *, void *), void *arg)
{
	int late_look = 0;
	for (;;) {
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&d->rx, &p)) != 0) {
			int intact = r == 1 || r == WSE_ERROR_VERSION ||
				     r == WSE_ERROR_MALFORMED ||
				     r == WSE_ERROR_BAD_OPCODE ||
				     r == WSE_ERROR_PAYLOAD_CRC ||
				     r == WSE_ERROR_LENGTH;
			int ours = intact && tag && p.tag == tag &&
				   (p.flags & WSE_FLAG_RESPONSE);
			if (r == 1 && !ours && !(p.flags & WSE_FLAG_EVENT)) {
				d->st.rx_packets++;
				if (is_retired(d, p.tag)) {
					d->st.late_replies++;
					wse_log(&d->log, WSE_LOG_DEBUG,
						"late reply to tag %u dropped",
						p.tag);
				} else {
					d->st.bad_packets++;
					wse_log(&d->log, WSE_LOG_WARNING,
						"unexpected packet %s tag %u dropped",
						wse_opcode_name(p.opcode), p.tag);
				}
				continue;
			}
			if (r == 1 && !ours) {
				d->st.rx_packets++;
				if (wse_payload_check(&p)) {
					d->st.bad_packets++;
					wse_log(&d->log, WSE_LOG_WARNING,
						"malformed %s event dropped",
						wse_opcode_name(p.opcode));
					continue;
				}
				if (p.opcode == WSE_OP_STREAM_OUT)
					on_stream_out(d, &p);
				else
					on_console(d, &p);
				if (stop && stop(d, arg))
					return 0;
				continue;
			}
			if (r != 1) {
				wse_log(&d->log, WSE_LOG_WARNING,
					"received bad packet: %s",
					wse_strerror(r));
				if (!ours)
					continue;
				if (r == WSE_ERROR_VERSION && p.payload &&
				    p.status == WSE_ST_VERSION) {
					struct wse_wire_version v;
					if (!wse_version_decode(p.payload,
								p.length, &v))
						wse_log(&d->log, WSE_LOG_ERROR,
							"device speaks protocol %u.%u, this library %u.%u",
							v.dev_major, v.dev_minor,
							v.req_major, v.req_minor);
				}
				return r;
			}
			/* Our response, intact. */
			d->st.rx_packets++;
			if (p.opcode != op) {
				d->st.bad_packets++;
				wse_log(&d->log, WSE_LOG_WARNING,
					"response to %s tag %u has opcode %s",
					wse_opcode_name(op), tag,
					wse_opcode_name(p.opcode));
				return WSE_ERROR_MALFORMED;
			}
			if (p.status == WSE_ST_VERSION) {
				struct wse_wire_version v;
				if (!wse_version_decode(p.payload, p.length, &v))
					wse_log(&d->log, WSE_LOG_ERROR,
						"device speaks protocol %u.%u and refused %u.%u",
						v.dev_major, v.dev_minor,
						v.req_major, v.req_minor);
			}
			if ((r = wse_payload_check(&p))) {
				d->st.bad_packets++;
				wse_log(&d->log, WSE_LOG_WARNING,
					"malformed %s response: %s",
					wse_opcode_name(p.opcode),
					wse_strerror(r));
				return WSE_ERROR_MALFORMED;
			}
			if (p.status != WSE_ST_OK) {
				wse_log(&d->log, WSE_LOG_INFO,
					"%s tag %u: device status %s",
					wse_opcode_name(p.opcode), p.tag,
					wse_status_name(p.status));
				if (p.status == WSE_ST_VERIFY && rep &&
				    rep->cap >= 4) {
					memcpy(rep->buf, p.payload, 4);
					rep->len = 4;
				}
				return wse_status_to_error(p.status);
			}
			if (rep) {
				if (p.length > rep->cap)
					return WSE_ERROR_OVERFLOW;
				if (p.length)
					memcpy(rep->buf, p.payload, p.length);
				rep->len = p.length;
			}
			return 0;
		}
		if (stop && stop(d, arg))
			return 0;
		/* Past the deadline, look once more without waiting (so that a
		 * zero time-out still takes what has arrived), then give up. */
		long long left = deadline - wse_now_ms();
		if (left <= 0) {
			if (late_look)
				return WSE_ERROR_TIMEOUT;
			late_look = 1;
			left = 0;
		}
		size_t avail;
		uint8_t *sp = wse_rx_space(&d->rx, &avail);
		int n = d->ops->recv(d->t, sp, avail, (int)left);
		if (n == WSE_ERROR_TIMEOUT)
			continue; /* the deadline check above decides */
		if (n < 0)
			return link_error(d, n);
		wse_rx_commit(&d->rx, (size_t)n);
		d->st.resync_bytes = d->rx.resync_bytes;
	}
}

/* Send one request and wait for its response. Caller holds the lock. */
static int transact(struct wse_device *d, uint8_t op, const void *pl,
		    size_t len, struct reply *rep, int timeout_ms)
{
	if (d->dead)
		return WSE_ERROR_NO_DEVICE;
	if (timeout_ms <= 0)
		timeout_ms = d->timeout_ms;
	long long deadline = wse_now_ms() + timeout_ms;
	uint32_t tag = new_tag(d);
	int r = send_frame(d, op, tag, pl, len, timeout_ms);
	if (!r) {
		r = pump(d, tag, op, rep, deadline, NULL, NULL);
		/* Whatever went wrong, an answer that still comes for this tag
		 * is a late one. */
		if (r && r != WSE_ERROR_NO_DEVICE)
			retire(d, tag);
	}
	if (r == WSE_ERROR_TIMEOUT) {
		d->st.timeouts++;
		retire(d, tag);
		wse_log(&d->log, WSE_LOG_WARNING, "%s tag %u timed out",
			wse_opcode_name(op), tag);
		if (op != WSE_OP_ABORT) {
			uint8_t a[4];
			uint32_t at = new_tag(d);
			wse_put_le32(a, tag);
			retire(d, at);
			/* Best effort: the device stops working on it. */
			send_frame(d, WSE_OP_ABORT, at, a, 4, 100);
		}
	}
	return r;
}

#define LOCKED(d, expr)                          \
	do {                                     \
		if (!(d))                        \
			return WSE_ERROR_INVALID_PARAM; \
		pthread_mutex_lock(&(d)->lock);  \
		int r_ = (expr);                 \
		pthread_mutex_unlock(&(d)->lock); \
		return r_;                       \
	} while (0)

int wse_request(wse_device *d, uint8_t op, const void *pl, size_t len,
		void *rep, size_t cap)
{
	if (!d || (len && !pl) || (cap && !rep))
		return WSE_ERROR_INVALID_PARAM;
	struct reply r = {rep, cap, 0};
	pthread_mutex_lock(&d->lock);
	int e = transact(d, op, pl, len, &r, 0);
	pthread_mutex_unlock(&d->lock);
	return e ? e : (int)r.len;
}

/* ---- Open and close ----------------------------------------------------- */

static void free_device(struct wse_device *d)
{
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
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static int read_info(struct wse_device *d)
{
	struct reply rep = {.cap = WSE_PROTO_MAX_PAYLOAD};
	rep.buf = malloc(rep.cap);
	if (!rep.buf)
		return WSE_ERROR_NO_MEM;
	int r = transact(d, WSE_OP_INFO, NULL, 0, &rep, 0);
	struct wse_wire_info wi;
	char err[160];
	if (!r)
		r = wse_info_decode(rep.buf, rep.len, &wi);
	if (!r && wi.major != WSE_PROTO_MAJOR) {
		wse_log(&d->log, WSE_LOG_ERROR,
			"device reports protocol %u.%u, this library %u.%u",
			wi.major, wi.minor, WSE_PROTO_MAJOR, WSE_PROTO_MINOR);
		r = WSE_ERROR_VERSION;
	}
	if (!r && (wi.max_payload < WSE_PROTO_MIN_DEV_PAYLOAD ||
		   wi.max_payload > WSE_PROTO_MAX_PAYLOAD ||
		   wi.max_outstanding < WSE_PROTO_MIN_OUTSTANDING)) {
		wse_log(&d->log, WSE_LOG_ERROR,
			"device limits out of range (max_payload %u, max_outstanding %u)",
			wi.max_payload, wi.max_outstanding);
		r = WSE_ERROR_MALFORMED;
	}
	if (!r) {
		d->info.size = sizeof(d->info);
		r = wse_dtb_parse(wi.dtb, wi.dtb_len, &d->info, err,
				  sizeof(err));
		if (r == WSE_ERROR_BAD_DTB)
			wse_log(&d->log, WSE_LOG_ERROR, "device tree: %s", err);
	}
	if (!r) {
		d->dtb = malloc(wi.dtb_len);
		if (!d->dtb)
			r = WSE_ERROR_NO_MEM;
	}
	if (!r) {
		memcpy(d->dtb, wi.dtb, wi.dtb_len);
		d->dtb_len = wi.dtb_len;
		d->info.proto_major = wi.major;
		d->info.proto_minor = wi.minor;
		d->info.max_payload = wi.max_payload;
		d->info.max_outstanding = wi.max_outstanding;
		memcpy(d->info.build_id, wi.build_id, WSE_BUILD_ID_BYTES);
		d->info.build_id[WSE_BUILD_ID_BYTES] = 0;
		d->max_payload = wi.max_payload;
		wse_log(&d->log, WSE_LOG_INFO,
			"device %s (%ux%u), protocol %u.%u, build %s",
			d->info.compatible, d->info.columns, d->info.rows,
			wi.major, wi.minor, d->info.build_id);
	}
	free(rep.buf);
	return r;
}

int wse_open_ops(wse_device **devp, const struct wse_transport_ops *ops,
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
	if (pthread_mutex_init(&d->lock, NULL)) {
		free(d);
		return WSE_ERROR_NO_MEM;
	}
	d->ops = ops;
	d->timeout_ms = o.timeout_ms > 0 ? o.timeout_ms : 5000;
	d->st.size = sizeof(d->st);
	/* Until INFO says otherwise, requests stay within the minimum every
	 * device accepts. */
	d->max_payload = WSE_PROTO_MIN_DEV_PAYLOAD;
	wse_logger_init(&d->log, o.log_cb, o.log_user, o.log_level);
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
	r = read_info(d);
	if (r) {
		wse_log(&d->log, WSE_LOG_ERROR, "open failed: %s",
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
	const struct wse_transport_ops *ops = wse_transport_find(uri, &args);
	if (!dev)
		return WSE_ERROR_INVALID_PARAM;
	*dev = NULL;
	if (!ops)
		return WSE_ERROR_INVALID_PARAM;
	return wse_open_ops(dev, ops, args, opts);
}

void wse_close(wse_device *d)
{
	if (d)
		free_device(d);
}

/* ---- Queries -------------------------------------------------------------- */

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
	all.resync_bytes = d->rx.resync_bytes;
	all.bad_packets += d->rx.bad_packets; /* dropped by the framing */
	memcpy((char *)st + sizeof(size_t), (char *)&all + sizeof(size_t),
	       n - sizeof(size_t));
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/* ---- Simple requests ----------------------------------------------------- */

int wse_ping(wse_device *d, const void *data, size_t len)
{
	if (!d || (len && !data))
		return WSE_ERROR_INVALID_PARAM;
	if (len > d->max_payload)
		return WSE_ERROR_LENGTH;
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return WSE_ERROR_NO_MEM;
	struct reply rep = {buf, len, 0};
	pthread_mutex_lock(&d->lock);
	int r = transact(d, WSE_OP_PING, data, len, &rep, 0);
	pthread_mutex_unlock(&d->lock);
	if (!r && (rep.len != len || (len && memcmp(buf, data, len))))
		r = WSE_ERROR_MALFORMED;
	free(buf);
	return r;
}

int wse_reset(wse_device *d)
{
	uint8_t pl[4];
	wse_put_le32(pl, WSE_RESET_MESH);
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&d->lock);
	int r = transact(d, WSE_OP_RESET, pl, 4, NULL, 0);
	if (!r) {
		for (unsigned i = 0; i < NUM_EDGE_PORTS; i++)
			d->outq[i].len = d->outq[i].credits = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

static int check_tile(struct wse_device *d, unsigned x, unsigned y, int all)
{
	if (all && x == WSE_ALL_TILES && y == WSE_ALL_TILES)
		return 0;
	return x < d->info.columns && y < d->info.rows ? 0 : WSE_ERROR_RANGE;
}

static int tile_op(struct wse_device *d, uint8_t op, unsigned x, unsigned y)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, 1);
	if (r)
		return r;
	uint8_t pl[WSE_TILE_BYTES];
	wse_tile_encode(pl, sizeof(pl), (uint8_t)x, (uint8_t)y);
	LOCKED(d, transact(d, op, pl, sizeof(pl), NULL, 0));
}

int wse_tile_halt(wse_device *d, unsigned x, unsigned y)
{
	return tile_op(d, WSE_OP_HALT, x, y);
}

int wse_tile_run(wse_device *d, unsigned x, unsigned y)
{
	return tile_op(d, WSE_OP_RUN, x, y);
}

/* ---- Tile accesses ------------------------------------------------------- */

/* count words at addr; addr advances by step per word (4 for byte
 * addresses, 1 for CSR numbers and colors). Split into packets. */
static int tile_access(struct wse_device *d, uint8_t op, unsigned x, unsigned y,
		  uint32_t addr, uint32_t step, uint8_t *words, size_t count)
{
	int write = op & 1;
	if (!d || (count && !words))
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, write);
	if (r)
		return r;
	size_t per = (d->max_payload - WSE_ACC_BYTES) / 4;
	uint8_t *pl = malloc(d->max_payload);
	if (!pl)
		return WSE_ERROR_NO_MEM;
	pthread_mutex_lock(&d->lock);
	for (size_t done = 0; !r && done < count;) {
		size_t n = count - done < per ? count - done : per;
		struct wse_wire_acc acc = {(uint8_t)x, (uint8_t)y,
					   addr + (uint32_t)(done * step),
					   (uint32_t)n, words + 4 * done};
		int len = wse_acc_encode(pl, d->max_payload, write, &acc);
		if (len < 0) {
			r = len;
			break;
		}
		struct reply rep = {words + 4 * done, 4 * n, 0};
		r = transact(d, op, pl, (size_t)len, write ? NULL : &rep, 0);
		if (!r && !write && rep.len != 4 * n)
			r = WSE_ERROR_MALFORMED;
		done += n;
	}
	pthread_mutex_unlock(&d->lock);
	free(pl);
	return r;
}

/* Host-order u32 array <-> little-endian words, in place. */
static void to_le(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wse_put_le32((uint8_t *)&v[i], v[i]);
}
static void from_le(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = wse_get_le32((uint8_t *)&v[i]);
}

int wse_mem_read(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		 void *buf, size_t len)
{
	if ((addr | len) & 3)
		return WSE_ERROR_ALIGN;
	if (len && (uint64_t)addr + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	return tile_access(d, WSE_OP_MEM_READ, x, y, addr, 4, buf, len / 4);
}

int wse_mem_write(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		  const void *buf, size_t len)
{
	if ((addr | len) & 3)
		return WSE_ERROR_ALIGN;
	if (len && (uint64_t)addr + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	/* Memory bytes go as-is: word i is bytes 4i..4i+3, little-endian,
	 * which is the tile's byte order. */
	return tile_access(d, WSE_OP_MEM_WRITE, x, y, addr, 4, (uint8_t *)buf,
		      len / 4);
}

static int words_op(wse_device *d, uint8_t op, unsigned x, unsigned y,
		    uint32_t addr, uint32_t step, uint32_t *v, size_t n)
{
	int r;
	if (op & 1) {
		uint32_t *tmp = malloc(n ? n * 4 : 4);
		if (!tmp)
			return WSE_ERROR_NO_MEM;
		if (n)
			memcpy(tmp, v, n * 4);
		to_le(tmp, n);
		r = tile_access(d, op, x, y, addr, step, (uint8_t *)tmp, n);
		free(tmp);
	} else {
		r = tile_access(d, op, x, y, addr, step, (uint8_t *)v, n);
		if (!r)
			from_le(v, n);
	}
	return r;
}

int wse_csr_read(wse_device *d, unsigned x, unsigned y, unsigned csr,
		 uint32_t *value)
{
	if (!value)
		return WSE_ERROR_INVALID_PARAM;
	if (csr >= WSE_NUM_CSRS)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_CSR_READ, x, y, csr, 1, value, 1);
}

int wse_csr_write(wse_device *d, unsigned x, unsigned y, unsigned csr,
		  uint32_t value)
{
	if (csr >= WSE_NUM_CSRS)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_CSR_WRITE, x, y, csr, 1, &value, 1);
}

int wse_route_read(wse_device *d, unsigned x, unsigned y, unsigned first,
		   uint32_t *e, size_t n)
{
	if (!e || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	if (first >= WSE_NUM_COLORS || n > WSE_NUM_COLORS - first)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_ROUTE_READ, x, y, first, 1, e, n);
}

int wse_route_write(wse_device *d, unsigned x, unsigned y, unsigned first,
		    const uint32_t *e, size_t n)
{
	if (!e || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	if (first >= WSE_NUM_COLORS || n > WSE_NUM_COLORS - first)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_ROUTE_WRITE, x, y, first, 1, (uint32_t *)e,
			n);
}

int wse_reg_read(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		 uint32_t *value)
{
	if (!value)
		return WSE_ERROR_INVALID_PARAM;
	if (addr & 3)
		return WSE_ERROR_ALIGN;
	return words_op(d, WSE_OP_REG_READ, x, y, addr, 4, value, 1);
}

int wse_reg_write(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		  uint32_t value)
{
	if (addr & 3)
		return WSE_ERROR_ALIGN;
	return words_op(d, WSE_OP_REG_WRITE, x, y, addr, 4, &value, 1);
}

int wse_perf_read(wse_device *d, unsigned x, unsigned y, uint32_t *values,
		  size_t n)
{
	if (!d || (n && !values))
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, 1);
	if (r)
		return r;
	uint8_t pl[WSE_TILE_BYTES];
	wse_tile_encode(pl, sizeof(pl), (uint8_t)x, (uint8_t)y);
	struct reply rep = {.cap = WSE_PROTO_MAX_PAYLOAD};
	rep.buf = malloc(rep.cap);
	if (!rep.buf)
		return WSE_ERROR_NO_MEM;
	pthread_mutex_lock(&d->lock);
	r = transact(d, WSE_OP_PERF_READ, pl, sizeof(pl), &rep, 0);
	pthread_mutex_unlock(&d->lock);
	if (!r) {
		uint32_t cnt;
		const uint8_t *v;
		r = wse_perf_decode(rep.buf, rep.len, &cnt, &v);
		if (!r) {
			for (size_t i = 0; i < n && i < cnt; i++)
				values[i] = wse_get_le32(v + 4 * i);
			r = (int)cnt;
		}
	}
	free(rep.buf);
	return r;
}

/* ---- Streams -------------------------------------------------------------- */

static int port_of(struct wse_device *d, unsigned edge, unsigned row,
		   uint8_t *port)
{
	if (edge > 1 || row >= d->info.rows)
		return WSE_ERROR_RANGE;
	*port = WSE_EDGE_PORT(edge, row);
	return 0;
}

int wse_stream_in(wse_device *d, const struct wse_stream_chunk *c, size_t n)
{
	if (!d || (n && !c))
		return WSE_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < n; i++) {
		uint8_t port;
		int r = port_of(d, c[i].edge, c[i].row, &port);
		if (r)
			return r;
		if (c[i].count && !c[i].wavelets)
			return WSE_ERROR_INVALID_PARAM;
		for (size_t k = 0; k < c[i].count; k++)
			if (c[i].wavelets[k] >> WSE_WAVELET_BITS)
				return WSE_ERROR_RANGE;
	}
	uint8_t *pl = malloc(d->max_payload);
	if (!pl)
		return WSE_ERROR_NO_MEM;
	int r = 0;
	size_t off = 0;
	pthread_mutex_lock(&d->lock);
	/* Fill packets with as many chunks (or parts of chunks) as fit. */
	for (size_t i = 0, k = 0; !r && i < n;) {
		if (k == c[i].count) {
			i++;
			k = 0;
			continue;
		}
		size_t room = d->max_payload - off;
		if (room >= WSE_CHUNK_BYTES + 8) {
			size_t take = (room - WSE_CHUNK_BYTES) / 8;
			if (take > c[i].count - k)
				take = c[i].count - k;
			r = wse_chunk_append(pl, d->max_payload, &off,
					     WSE_EDGE_PORT(c[i].edge, c[i].row),
					     c[i].wavelets + k, (uint32_t)take);
			k += take;
			continue;
		}
		r = transact(d, WSE_OP_STREAM_IN, pl, off, NULL, 0);
		off = 0;
	}
	if (!r && off)
		r = transact(d, WSE_OP_STREAM_IN, pl, off, NULL, 0);
	pthread_mutex_unlock(&d->lock);
	free(pl);
	return r;
}

int wse_stream_credit(wse_device *d, unsigned edge, unsigned row, uint32_t n)
{
	uint8_t pl[WSE_GRANT_BYTES], port;
	size_t off = 0;
	if (!d || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	int r = port_of(d, edge, row, &port);
	if (r)
		return r;
	wse_grant_append(pl, sizeof(pl), &off, port, n);
	pthread_mutex_lock(&d->lock);
	/* Credits count before the request leaves: the device may use them
	 * before its answer arrives. */
	d->outq[port_index(port)].credits += n;
	r = transact(d, WSE_OP_STREAM_CREDIT, pl, off, NULL, 0);
	pthread_mutex_unlock(&d->lock);
	return r;
}

static int have_data(struct wse_device *d, void *arg)
{
	return d->outq[*(unsigned *)arg].len > 0;
}

int wse_stream_out(wse_device *d, unsigned edge, unsigned row, uint64_t *buf,
		   size_t max, int timeout_ms)
{
	uint8_t port;
	if (!d || !buf || max == 0)
		return WSE_ERROR_INVALID_PARAM;
	int r = port_of(d, edge, row, &port);
	if (r)
		return r;
	unsigned idx = port_index(port);
	pthread_mutex_lock(&d->lock);
	struct wq *q = &d->outq[idx];
	if (!q->len) {
		if (d->dead)
			r = WSE_ERROR_NO_DEVICE;
		else
			r = pump(d, 0, 0, NULL,
				 wse_now_ms() + (timeout_ms < 0 ? d->timeout_ms
								: timeout_ms),
				 have_data, &idx);
	}
	if (!r) {
		size_t n = q->len < max ? q->len : max;
		for (size_t i = 0; i < n; i++)
			buf[i] = q->w[(q->head + i) % q->cap];
		if (n) {
			q->head = (q->head + n) % q->cap;
			q->len -= n;
		}
		r = (int)n;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
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

/* ---- Flash ---------------------------------------------------------------- */

int wse_flash_read(wse_device *d, uint32_t off, void *buf, size_t len)
{
	if (!d || (len && !buf))
		return WSE_ERROR_INVALID_PARAM;
	if (len && (uint64_t)off + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	int r = 0;
	size_t per = d->max_payload;
	pthread_mutex_lock(&d->lock);
	for (size_t done = 0; !r && done < len; done += per) {
		size_t n = len - done < per ? len - done : per;
		struct wse_wire_flash f = {off + (uint32_t)done, (uint32_t)n, 0,
					   NULL};
		uint8_t pl[WSE_FLASH_BYTES];
		wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_READ, &f);
		struct reply rep = {(uint8_t *)buf + done, n, 0};
		r = transact(d, WSE_OP_FLASH_READ, pl, sizeof(pl), &rep, 0);
		if (!r && rep.len != n)
			r = WSE_ERROR_MALFORMED;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

int wse_flash_erase(wse_device *d, uint32_t off, uint32_t len)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_wire_flash f = {off, len, 0, NULL};
	uint8_t pl[WSE_FLASH_BYTES];
	wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_ERASE, &f);
	LOCKED(d, transact(d, WSE_OP_FLASH_ERASE, pl, sizeof(pl), NULL, 0));
}

int wse_flash_program(wse_device *d, uint32_t off, const void *buf,
		      size_t len)
{
	if (!d || (len && !buf))
		return WSE_ERROR_INVALID_PARAM;
	if (len && (uint64_t)off + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	uint8_t *pl = malloc(d->max_payload);
	if (!pl)
		return WSE_ERROR_NO_MEM;
	int r = 0;
	size_t per = d->max_payload - WSE_FLASH_BYTES;
	pthread_mutex_lock(&d->lock);
	for (size_t done = 0; !r && done < len; done += per) {
		size_t n = len - done < per ? len - done : per;
		struct wse_wire_flash f = {off + (uint32_t)done, (uint32_t)n, 0,
					   (const uint8_t *)buf + done};
		int plen = wse_flash_encode(pl, d->max_payload,
					    WSE_OP_FLASH_PROGRAM, &f);
		r = plen < 0 ? plen
			     : transact(d, WSE_OP_FLASH_PROGRAM, pl,
					(size_t)plen, NULL, 0);
	}
	pthread_mutex_unlock(&d->lock);
	free(pl);
	return r;
}

int wse_flash_verify(wse_device *d, uint32_t off, uint32_t len, uint32_t crc)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_wire_flash f = {off, len, crc, NULL};
	uint8_t pl[WSE_FLASH_VERIFY_BYTES], got[4];
	struct reply rep = {got, sizeof(got), 0};
	wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_VERIFY, &f);
	pthread_mutex_lock(&d->lock);
	int r = transact(d, WSE_OP_FLASH_VERIFY, pl, sizeof(pl), &rep, 0);
	pthread_mutex_unlock(&d->lock);
	if (r == WSE_ERROR_VERIFY && rep.len == 4)
		wse_log(&d->log, WSE_LOG_INFO,
			"flash verify: expected crc %08x, device has %08x", crc,
			wse_get_le32(got));
	if (!r && (rep.len != 4 || wse_get_le32(got) != crc))
		r = WSE_ERROR_VERIFY;
	return r;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_host.c - the host interface of wsemu-fast (wsf_host.h): the link
 * protocol's device side over the board model, as rtl/host_if/hif_exec.sv
 * and hif_evt.sv do it over the RTL mesh (docs/host-if.md).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wsemu/wse_codec.h"
#include "wsemu/wse_image.h"
#include "wsemu/wse_regs.h"
#include "wsf_host.h"

/* The RTL host interface's sizes (docs/host-if.md). */
#define WSF_MAX_PAYLOAD 4096u /* a request slot */
#define WSF_SLOTS 2u          /* max_outstanding */
#define WSF_OUT_DEPTH 256u    /* outlet buffer per edge port (OutDepth) */
#define WSF_CON_DEPTH 256u    /* console bytes buffered per tile */
/* Wavelets per STREAM_OUT event: a payload of at most 4 KiB. */
#define WSF_EVENT_WAVELETS ((WSF_MAX_PAYLOAD - WSE_CHUNK_BYTES) / 8u)

/* Cost model of the host interface (docs/wsemu-fast.md): model cycles a
 * management access takes, and any other request. */
#define WSF_MGMT_CYCLES 4u
#define WSF_REQ_CYCLES 1u

struct wsf_req {
	uint8_t op;
	uint32_t tag;
	uint16_t verdict;           /* the receiver's: WSE_ST_OK, or the refusal */
	uint8_t ver[WSE_VER_BYTES]; /* VERSION's payload */
	uint8_t *pl;
	uint32_t len;
	bool started;
	uint64_t done_at;           /* answered from this time on */
	bool stream;                /* a stream-in: done when its intake is taken */
	uint64_t rows[2];           /* its edge ports, a bit per row */
	uint16_t status;
	uint8_t *resp;              /* response payload (4 KiB) */
	uint32_t resp_len;
	/* refusals of requests that arrived while this one was the newest
	 * in the slots, answered right after it, as the RTL's executor
	 * answers them in order */
	struct { uint8_t op; uint32_t tag; } late[8];
	unsigned nlate;
};

/* An edge port's outlet. The RTL's (hif_evt) holds OutDepth wavelets not
 * yet sent and sends against the host's credits while the mesh runs; the
 * server sends only between slices, so here the wavelets that the RTL
 * would already have sent (up to the credits) wait in the ring beside
 * OutDepth unsent ones: the ring grows to count < WSF_OUT_DEPTH + credits,
 * and the edge router is refused only where the RTL's would be. */
struct wsf_outlet {
	uint64_t *w;        /* ring of cap entries (a power of two), NULL until used */
	unsigned cap, head, count;
	uint32_t credits;
};

struct wsf_con {
	struct wsf_host *h;
	uint8_t x, y;
	uint8_t buf[WSF_CON_DEPTH];
	unsigned n;
};

struct wsf_host {
	struct wse_board bd;
	uint8_t *dtb;
	size_t dtb_len;
	char build_id[WSE_BUILD_ID_BYTES];
	struct wse_fast_board *b;
	unsigned tiles;
	uint32_t *ctrl;             /* TILE_CTRL per tile: HALT, CORE_RESET */
	struct wsf_con *con;
	struct wse_rx rx;
	uint64_t resync_seen;
	struct wsf_req slot[WSF_SLOTS]; /* in arrival order, [0] executes */
	unsigned nslots;
	struct wsf_outlet out[2][64];
	unsigned out_next;          /* the port whose turn it is, edge * 64 + row */
	uint32_t cnt[WSE_HIF_COUNTERS];
	bool quiet;
	uint8_t *tx;
	size_t tx_len, tx_cap;
	uint8_t *scratch;           /* event payloads */
	int flash_fd;               /* the flash's file, -1: no flash */
	uint32_t flash_bytes;
	uint64_t flash_budget;      /* bytes written before the power cut */
};

static void wsf_count(uint32_t *c, uint64_t n)
{
	*c = *c + n < *c || *c + n > UINT32_MAX ? UINT32_MAX : (uint32_t)(*c + n);
}

/* ---- Sending ------------------------------------------------------------------ */

static int wsf_send(struct wsf_host *h, uint8_t op, uint8_t flags, uint32_t tag, uint16_t status,
		    const uint8_t *pl, uint32_t len)
{
	size_t need = h->tx_len + WSE_FRAME_BYTES(len);
	if (need > h->tx_cap) {
		size_t cap = h->tx_cap ? h->tx_cap : 65536;
		while (cap < need)
			cap *= 2;
		uint8_t *nt = realloc(h->tx, cap);
		if (!nt)
			return WSE_ERROR_NO_MEM;
		h->tx = nt;
		h->tx_cap = cap;
	}
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .opcode = op,
			    .flags = flags, .tag = tag, .status = status, .length = len};
	int n = wse_pkt_encode(h->tx + h->tx_len, h->tx_cap - h->tx_len, &p, pl);
	if (n < 0)
		return n;
	h->tx_len += (size_t)n;
	wsf_count(&h->cnt[WSE_HIF_CNT_TX_PACKETS], 1);
	if (flags == WSE_FLAG_RESPONSE && status != WSE_ST_OK)
		wsf_count(&h->cnt[WSE_HIF_CNT_REFUSED], 1);
	return 0;
}

static int wsf_answer(struct wsf_host *h, uint8_t op, uint32_t tag, uint16_t status,
		      const uint8_t *pl, uint32_t len)
{
	bool with = status == WSE_ST_OK || status == WSE_ST_VERSION || status == WSE_ST_VERIFY;
	return wsf_send(h, op, WSE_FLAG_RESPONSE, tag, status, with ? pl : NULL, with ? len : 0);
}

/* ---- The management map (docs/register-map.md) -------------------------------- */

static void wsf_set_ctrl(struct wsf_host *h, unsigned i, uint32_t v)
{
	struct wse_fast_tile *t;
	wse_fast_board_tile(h->b, i % h->bd.columns, i / h->bd.columns, &t, NULL);
	if (v & WSE_TILE_CTRL_CNT_CLEAR)
		wse_fast_board_counters(h->b, i % h->bd.columns, i / h->bd.columns, NULL, true);
	v &= WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET;
	if (v & WSE_TILE_CTRL_CORE_RESET)
		wse_fast_tile_reset(t);
	wse_fast_tile_set_halt(t, v != 0);
	h->ctrl[i] = v;
	h->quiet = false;
	wse_fast_board_wake(h->b);
}

/* One management access to tile i: WSE_ST_OK or WSE_ST_MGMT. */
static uint16_t wsf_mgmt(struct wsf_host *h, unsigned i, uint32_t addr, uint32_t *v, bool write)
{
	unsigned x = i % h->bd.columns, y = i / h->bd.columns;
	struct wse_fast_tile *t;
	wse_fast_board_tile(h->b, x, y, &t, NULL);
	if (addr & 3)
		return WSE_ST_MGMT;
	if (addr >= WSE_MGMT_MEM_BASE) {
		int r = write ? wse_fast_tile_mem_write(t, addr, v, 1) : wse_fast_tile_mem_read(t, addr, v, 1);
		if (write && r == 0) {
			h->quiet = false;
			wse_fast_board_wake(h->b);
		}
		return r ? WSE_ST_MGMT : WSE_ST_OK;
	}
	if (addr >= WSE_MGMT_CSR_BASE) {
		uint32_t n = (addr - WSE_MGMT_CSR_BASE) / 4;
		if (n >= WSE_NUM_CSRS)
			return WSE_ST_MGMT;
		int r = write ? wse_fast_tile_csr_write(t, n, *v) : wse_fast_tile_csr_read(t, n, v);
		if (write && r == 0) {
			h->quiet = false;
			wse_fast_board_wake(h->b);
		}
		return r ? WSE_ST_MGMT : WSE_ST_OK;
	}
	if (addr == WSE_REG_TILE_ID) {
		*v = write ? *v : (uint32_t)WSE_TILE_ID_MAGIC << 16 | y << 8 | x;
		return write ? WSE_ST_MGMT : WSE_ST_OK;
	}
	if (addr == WSE_REG_TILE_CTRL) {
		if (write)
			wsf_set_ctrl(h, i, *v);
		else
			*v = h->ctrl[i];
		return WSE_ST_OK;
	}
	if (addr == WSE_REG_TILE_STATUS) {
		struct wse_fast_status st;
		wse_fast_tile_status(t, &st);
		*v = (h->ctrl[i] & WSE_TILE_CTRL_HALT ? WSE_TILE_STATUS_HALTED : 0) |
		     (st.done ? WSE_TILE_STATUS_DONE : 0) | (st.failed ? WSE_TILE_STATUS_FAILED : 0) |
		     (st.exit_value >> 1 & 0xffffu) << 16;
		return write ? WSE_ST_MGMT : WSE_ST_OK;
	}
	if ((addr & ~0x7fu) == WSE_REG_ROUTE_BASE) {
		unsigned c = (addr >> 2) & 31;
		if (write) {
			wse_fast_board_route(h->b, x, y, c, *v >> WSE_ROUTE_RX_LSB & 0x1f,
					     *v >> WSE_ROUTE_TX_LSB & 0x1f);
			h->quiet = false;
			wse_fast_board_wake(h->b);
		} else {
			uint32_t rx, tx;
			wse_fast_board_route_read(h->b, x, y, c, &rx, &tx);
			*v = rx << WSE_ROUTE_RX_LSB | tx << WSE_ROUTE_TX_LSB;
		}
		return WSE_ST_OK;
	}
	if ((addr & ~0x7fu) == WSE_REG_CNT_BASE) {
		unsigned p = (addr >> 4) & 7, k = (addr >> 2) & 3;
		uint32_t c[WSE_FAST_COUNTERS];
		if (p >= 5 || k == 3 || write)
			return WSE_ST_MGMT;
		wse_fast_board_counters(h->b, x, y, c, false);
		*v = c[3 * p + k];
		return WSE_ST_OK;
	}
	return WSE_ST_MGMT;
}

/* ---- Requests ------------------------------------------------------------------- */

static bool wsf_tile_ok(const struct wsf_host *h, unsigned x, unsigned y, bool all_ok)
{
	if (x == WSE_TILE_ALL && y == WSE_TILE_ALL)
		return all_ok;
	return x < h->bd.columns && y < h->bd.rows;
}

/* MEM, CSR, ROUTE and REG accesses (docs/protocol.md 4.6). */
static void wsf_access(struct wsf_host *h, struct wsf_req *q)
{
	bool write = q->op & 1;
	struct wse_wire_acc a;
	wse_acc_decode(q->pl, q->len, write, &a);
	bool all = a.x == WSE_TILE_ALL && a.y == WSE_TILE_ALL;
	if (!wsf_tile_ok(h, a.x, a.y, write)) {
		q->status = WSE_ST_RANGE;
		return;
	}
	uint32_t base = 0;
	switch (q->op & ~1u) {
	case WSE_OP_MEM_READ:
		if (a.addr < WSE_MGMT_MEM_BASE ||
		    (uint64_t)a.addr + 4 * (uint64_t)a.count - 1 > 0xffffffffu) {
			q->status = WSE_ST_RANGE;
			return;
		}
		if (a.addr & 3) {
			q->status = WSE_ST_ALIGN;
			return;
		}
		base = a.addr;
		break;
	case WSE_OP_CSR_READ:
		if ((uint64_t)a.addr + a.count > WSE_NUM_CSRS) {
			q->status = WSE_ST_RANGE;
			return;
		}
		base = WSE_MGMT_CSR_BASE + 4 * a.addr;
		break;
	case WSE_OP_ROUTE_READ:
		if ((uint64_t)a.addr + a.count > WSE_NUM_COLORS) {
			q->status = WSE_ST_RANGE;
			return;
		}
		base = WSE_MGMT_ROUTE_BASE + 4 * a.addr;
		break;
	default: /* REG */
		if (a.addr & 3) {
			q->status = WSE_ST_ALIGN;
			return;
		}
		base = a.addr;
		break;
	}
	if (!write && 4 * (uint64_t)a.count > WSF_MAX_PAYLOAD) {
		q->status = WSE_ST_LENGTH;
		return;
	}
	for (uint32_t k = 0; k < a.count; k++) {
		uint32_t v = write ? wse_get_le32(a.words + 4 * k) : 0;
		uint32_t addr = base + 4 * k;
		uint16_t st = WSE_ST_OK;
		if (all) {
			for (unsigned i = 0; i < h->tiles && st == WSE_ST_OK; i++) {
				uint32_t w = v;
				st = wsf_mgmt(h, i, addr, &w, true);
			}
		} else {
			st = wsf_mgmt(h, a.y * h->bd.columns + a.x, addr, &v, write);
		}
		q->done_at += WSF_MGMT_CYCLES;
		if (st != WSE_ST_OK) {
			q->status = st;
			return;
		}
		if (!write)
			wse_put_le32(q->resp + 4 * k, v);
	}
	q->resp_len = write ? 0 : 4 * a.count;
}

static void wsf_reset(struct wsf_host *h)
{
	for (unsigned i = 0; i < h->tiles; i++) {
		wsf_set_ctrl(h, i, WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET |
				   WSE_TILE_CTRL_CNT_CLEAR);
		for (unsigned c = 0; c < WSE_NUM_COLORS; c++)
			wse_fast_board_route(h->b, i % h->bd.columns, i / h->bd.columns, c, 0, 0);
	}
	for (unsigned e = 0; e < 2; e++)
		for (unsigned r = 0; r < 64; r++)
			h->out[e][r].credits = 0;
}

/* Check a chunk list's ports against the mesh, then queue its wavelets. */
static void wsf_stream_in(struct wsf_host *h, struct wsf_req *q)
{
	size_t off = 0;
	struct wse_wire_chunk c;
	while (wse_chunk_next(q->pl, q->len, &off, &c) == 1)
		if (WSE_EDGE_PORT_ROW(c.port) >= h->bd.rows) {
			q->status = WSE_ST_RANGE;
			return;
		}
	off = 0;
	while (wse_chunk_next(q->pl, q->len, &off, &c) == 1) {
		unsigned e = WSE_EDGE_PORT_EDGE(c.port), row = WSE_EDGE_PORT_ROW(c.port);
		for (uint32_t k = 0; k < c.count; k++)
			wse_fast_board_intake(h->b, e ? WSE_FAST_EDGE_EAST : WSE_FAST_EDGE_WEST, row,
					      wse_get_le64(c.wavelets + 8 * k));
		q->rows[e] |= 1ull << row;
		wsf_count(&h->cnt[WSE_HIF_CNT_STREAM_IN], c.count);
	}
	q->stream = true;
	h->quiet = false;
	wse_fast_board_wake(h->b);
}

/* Start the oldest request: check it, do its effects, and set when its
 * answer is due. */
/* ---- The flash (docs/wsemu-fast.md, "Flash") ----------------------------------- */

/* Write n bytes at off into the flash's file, as they reach the part: a
 * power cut (the budget spent) leaves the bytes before it written. */
static bool wsf_flash_write(struct wsf_host *h, uint32_t off, const uint8_t *b, uint32_t n)
{
	bool cut = h->flash_budget < n;
	uint32_t k = cut ? (uint32_t)h->flash_budget : n;
	if (k && pwrite(h->flash_fd, b, k, off) != (ssize_t)k)
		return false;
	h->flash_budget -= k;
	if (cut)
		kill(getpid(), SIGKILL);
	return true;
}

/* The CRC-32C of [off, off+len), or false when the file cannot be read. */
static bool wsf_flash_crc(struct wsf_host *h, uint32_t off, uint32_t len, uint32_t *crc)
{
	*crc = 0;
	for (uint32_t done = 0; done < len;) {
		uint32_t n = len - done < WSF_MAX_PAYLOAD ? len - done : WSF_MAX_PAYLOAD;
		if (pread(h->flash_fd, h->scratch, n, off + done) != (ssize_t)n)
			return false;
		*crc = wse_crc32c_update(*crc, h->scratch, n);
		done += n;
	}
	return true;
}

static uint16_t wsf_flash(struct wsf_host *h, struct wsf_req *q)
{
	struct wse_wire_flash f;
	if (h->flash_fd < 0)
		return WSE_ST_NOT_SUPPORTED;
	wse_flash_decode(q->pl, q->len, q->op, &f);
	if ((uint64_t)f.offset + f.len > h->flash_bytes)
		return WSE_ST_RANGE;
	uint32_t crc;
	switch (q->op) {
	case WSE_OP_FLASH_READ:
		if (f.len > WSE_PROTO_MAX_PAYLOAD)
			return WSE_ST_LENGTH;
		if (pread(h->flash_fd, q->resp, f.len, f.offset) != (ssize_t)f.len)
			return WSE_ST_FLASH;
		q->resp_len = f.len;
		return WSE_ST_OK;
	case WSE_OP_FLASH_ERASE:
		if (f.offset % WSE_FLASH_SECTOR_BYTES || f.len % WSE_FLASH_SECTOR_BYTES)
			return WSE_ST_ALIGN;
		memset(h->scratch, 0xFF, WSF_MAX_PAYLOAD);
		for (uint32_t done = 0; done < f.len; done += WSF_MAX_PAYLOAD)
			if (!wsf_flash_write(h, f.offset + done, h->scratch, WSF_MAX_PAYLOAD))
				return WSE_ST_FLASH;
		return WSE_ST_OK;
	case WSE_OP_FLASH_PROGRAM: /* NOR: bits only go from 1 to 0 */
		if (pread(h->flash_fd, h->scratch, f.len, f.offset) != (ssize_t)f.len)
			return WSE_ST_FLASH;
		for (uint32_t i = 0; i < f.len; i++)
			h->scratch[i] &= f.data[i];
		return wsf_flash_write(h, f.offset, h->scratch, f.len) ? WSE_ST_OK : WSE_ST_FLASH;
	default: /* FLASH_VERIFY */
		if (!wsf_flash_crc(h, f.offset, f.len, &crc))
			return WSE_ST_FLASH;
		wse_put_le32(q->resp, crc);
		q->resp_len = 4;
		return crc == f.crc ? WSE_ST_OK : WSE_ST_VERIFY;
	}
}

static void wsf_start(struct wsf_host *h, struct wsf_req *q)
{
	uint64_t now;
	wse_fast_board_now(h->b, &now);
	q->started = true;
	q->done_at = now + WSF_REQ_CYCLES;
	q->status = q->verdict;
	q->resp_len = 0;
	if (q->verdict == WSE_ST_VERSION) {
		memcpy(q->resp, q->ver, WSE_VER_BYTES);
		q->resp_len = WSE_VER_BYTES;
	}
	if (q->verdict != WSE_ST_OK)
		return;
	uint8_t x, y;
	switch (q->op) {
	case WSE_OP_INFO: {
		struct wse_wire_info in = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR,
					   .max_payload = WSF_MAX_PAYLOAD,
					   .max_outstanding = WSF_SLOTS, .dtb = h->dtb,
					   .dtb_len = (uint32_t)h->dtb_len};
		memcpy(in.build_id, h->build_id, sizeof in.build_id);
		int n = wse_info_encode(q->resp, WSE_INFO_BYTES + h->dtb_len, &in);
		if (n < 0)
			q->status = WSE_ST_INTERNAL;
		else
			q->resp_len = (uint32_t)n;
		break;
	}
	case WSE_OP_PING:
		memcpy(q->resp, q->pl, q->len);
		q->resp_len = q->len;
		break;
	case WSE_OP_RESET:
		wsf_reset(h);
		q->done_at += (1 + WSE_NUM_COLORS) * WSF_MGMT_CYCLES;
		break;
	case WSE_OP_HALT:
	case WSE_OP_RUN:
		wse_tile_decode(q->pl, q->len, &x, &y);
		q->done_at += WSF_MGMT_CYCLES;
		if (!wsf_tile_ok(h, x, y, true)) {
			q->status = WSE_ST_RANGE;
			break;
		}
		for (unsigned i = 0; i < h->tiles; i++)
			if (x == WSE_TILE_ALL || i == y * h->bd.columns + x)
				wsf_set_ctrl(h, i, q->op == WSE_OP_HALT ? WSE_TILE_CTRL_HALT : 0);
		break;
	case WSE_OP_MEM_READ: case WSE_OP_MEM_WRITE: case WSE_OP_CSR_READ: case WSE_OP_CSR_WRITE:
	case WSE_OP_ROUTE_READ: case WSE_OP_ROUTE_WRITE: case WSE_OP_REG_READ: case WSE_OP_REG_WRITE:
		wsf_access(h, q);
		break;
	case WSE_OP_STREAM_IN:
		wsf_stream_in(h, q);
		break;
	case WSE_OP_PERF_READ: {
		uint32_t v[WSE_FAST_COUNTERS];
		uint32_t n = WSE_FAST_COUNTERS;
		wse_tile_decode(q->pl, q->len, &x, &y);
		if (!wsf_tile_ok(h, x, y, true)) {
			q->status = WSE_ST_RANGE;
			break;
		}
		if (x == WSE_TILE_ALL) {
			h->cnt[WSE_HIF_CNT_RESYNC_BYTES] =
				h->rx.resync_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)h->rx.resync_bytes;
			memcpy(v, h->cnt, sizeof h->cnt);
			n = WSE_HIF_COUNTERS;
		} else {
			wse_fast_board_counters(h->b, x, y, v, false);
			q->done_at += WSE_FAST_COUNTERS * WSF_MGMT_CYCLES;
		}
		int k = wse_perf_encode(q->resp, WSF_MAX_PAYLOAD, v, n);
		q->resp_len = k < 0 ? 0 : (uint32_t)k;
		break;
	}
	default: /* flash */
		q->status = wsf_flash(h, q);
		break;
	}
}

/* Has the started request q finished? */
static bool wsf_finished(struct wsf_host *h, const struct wsf_req *q)
{
	uint64_t now;
	wse_fast_board_now(h->b, &now);
	if (q->stream && q->status == WSE_ST_OK) {
		for (unsigned e = 0; e < 2; e++)
			for (unsigned r = 0; r < h->bd.rows; r++) {
				size_t n;
				if (q->rows[e] >> r & 1 &&
				    wse_fast_board_intake_pending(h->b, e ? WSE_FAST_EDGE_EAST :
								  WSE_FAST_EDGE_WEST, r, &n) == 0 && n)
					return false;
			}
		return true;
	}
	return now >= q->done_at;
}

static void wsf_pop(struct wsf_host *h, unsigned k);

/* Answer slot k's request with status, then the refusals queued behind
 * it, and free the slot. */
static int wsf_finish(struct wsf_host *h, unsigned k, uint16_t status)
{
	struct wsf_req *q = &h->slot[k];
	int r = wsf_answer(h, q->op, q->tag, status, q->resp, q->resp_len);
	for (unsigned i = 0; r == 0 && i < q->nlate; i++)
		r = wsf_answer(h, q->late[i].op, q->late[i].tag, WSE_ST_BUSY, NULL, 0);
	wsf_pop(h, k);
	return r;
}

static void wsf_pop(struct wsf_host *h, unsigned k)
{
	struct wsf_req done = h->slot[k];
	for (unsigned i = k; i + 1 < h->nslots; i++)
		h->slot[i] = h->slot[i + 1];
	h->nslots--;
	/* keep the buffers: they move to the free slot */
	h->slot[h->nslots] = (struct wsf_req){.pl = done.pl, .resp = done.resp};
}

/* Start and answer requests in order as far as they are done. */
static int wsf_execute(struct wsf_host *h)
{
	while (h->nslots) {
		struct wsf_req *q = &h->slot[0];
		if (!q->started)
			wsf_start(h, q);
		if (!wsf_finished(h, q))
			break;
		int r = wsf_finish(h, 0, q->status);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ABORT and STREAM_CREDIT, on arrival (docs/protocol.md 3.5, 4.4, 4.8). */
static int wsf_control(struct wsf_host *h, const struct wse_pkt *p)
{
	if (p->opcode == WSE_OP_STREAM_CREDIT) {
		for (uint32_t off = 0; off < p->length; off += WSE_GRANT_BYTES)
			if (WSE_EDGE_PORT_ROW(p->payload[off]) >= h->bd.rows)
				return wsf_answer(h, p->opcode, p->tag, WSE_ST_RANGE, NULL, 0);
		for (uint32_t off = 0; off < p->length; off += WSE_GRANT_BYTES) {
			uint8_t port = p->payload[off];
			wsf_count(&h->out[WSE_EDGE_PORT_EDGE(port)][WSE_EDGE_PORT_ROW(port)].credits,
				  wse_get_le32(p->payload + off + 4));
		}
		return wsf_answer(h, p->opcode, p->tag, WSE_ST_OK, NULL, 0);
	}
	uint32_t tag = wse_get_le32(p->payload);
	for (unsigned k = 0; k < h->nslots; k++) {
		struct wsf_req *q = &h->slot[k];
		if (q->tag != tag)
			continue;
		/* A started request other than a stream-in waits for nothing but
		 * time: it ends by itself, and an ABORT finds nothing to end. */
		if (q->started && !q->stream)
			break;
		if (q->stream)
			for (unsigned e = 0; e < 2; e++)
				for (unsigned r = 0; r < h->bd.rows; r++)
					if (q->rows[e] >> r & 1)
						wse_fast_board_intake_drop(h->b, e ? WSE_FAST_EDGE_EAST :
									    WSE_FAST_EDGE_WEST, r);
		int r = wsf_finish(h, k, WSE_ST_ABORTED);
		if (r < 0)
			return r;
		return wsf_answer(h, p->opcode, p->tag, WSE_ST_OK, NULL, 0);
	}
	return wsf_answer(h, p->opcode, p->tag, WSE_ST_NOT_FOUND, NULL, 0);
}

/* BUSY for p: after the newest request in the slots when there is one. */
static int wsf_busy(struct wsf_host *h, const struct wse_pkt *p)
{
	struct wsf_req *last = h->nslots ? &h->slot[h->nslots - 1] : NULL;
	if (!last || last->nlate == sizeof last->late / sizeof last->late[0])
		return wsf_answer(h, p->opcode, p->tag, WSE_ST_BUSY, NULL, 0);
	last->late[last->nlate].op = p->opcode;
	last->late[last->nlate++].tag = p->tag;
	return 0;
}

/* A request with an intact header: verdict WSE_ST_OK or the refusal. */
static int wsf_accept(struct wsf_host *h, const struct wse_pkt *p, uint16_t verdict)
{
	for (unsigned k = 0; k < h->nslots; k++)
		if (h->slot[k].tag == p->tag)
			return wsf_busy(h, p);
	if (verdict == WSE_ST_OK &&
	    (p->opcode == WSE_OP_ABORT || p->opcode == WSE_OP_STREAM_CREDIT)) {
		/* beside full slots only the control slot's 64 bytes */
		if (h->nslots == WSF_SLOTS && p->length > WSE_PROTO_CTL_PAYLOAD)
			return wsf_busy(h, p);
		return wsf_control(h, p);
	}
	if (h->nslots == WSF_SLOTS)
		return wsf_busy(h, p);
	struct wsf_req *q = &h->slot[h->nslots++];
	*q = (struct wsf_req){.pl = q->pl, .resp = q->resp};
	q->op = p->opcode;
	q->tag = p->tag;
	q->verdict = verdict;
	q->len = verdict == WSE_ST_OK ? p->length : 0;
	if (q->len)
		memcpy(q->pl, p->payload, q->len);
	if (verdict == WSE_ST_VERSION) {
		q->ver[WSE_VER_OFF_DEV_MAJOR] = WSE_PROTO_MAJOR;
		q->ver[WSE_VER_OFF_DEV_MINOR] = WSE_PROTO_MINOR;
		q->ver[WSE_VER_OFF_REQ_MAJOR] = p->major;
		q->ver[WSE_VER_OFF_REQ_MINOR] = p->minor;
	}
	return 0;
}

uint8_t *wsf_host_rx_space(struct wsf_host *h, size_t *room)
{
	return wse_rx_space(&h->rx, room);
}

int wsf_host_rx_commit(struct wsf_host *h, size_t n)
{
	wse_rx_commit(&h->rx, n);
	for (;;) {
		struct wse_pkt p;
		memset(&p, 0, sizeof p);
		int r = wse_rx_next(&h->rx, &p);
		if (r == 0)
			return wsf_execute(h);
		/* responses and events sent to the device are dropped */
		if (p.flags == WSE_FLAG_RESPONSE || p.flags == WSE_FLAG_EVENT)
			continue;
		wsf_count(&h->cnt[WSE_HIF_CNT_RX_PACKETS], 1);
		uint16_t verdict;
		if (r == 1) {
			r = wse_payload_check(&p);
			verdict = r == 0 ? WSE_ST_OK : r == WSE_ERROR_BAD_OPCODE ? WSE_ST_OPCODE
										  : WSE_ST_MALFORMED;
		} else {
			switch (r) {
			case WSE_ERROR_VERSION: verdict = WSE_ST_VERSION; break;
			case WSE_ERROR_LENGTH: verdict = WSE_ST_LENGTH; break;
			case WSE_ERROR_BAD_OPCODE: verdict = WSE_ST_OPCODE; break;
			case WSE_ERROR_PAYLOAD_CRC:
				verdict = WSE_ST_PAYLOAD_CRC;
				wsf_count(&h->cnt[WSE_HIF_CNT_BAD_PAYLOAD], 1);
				break;
			default: verdict = WSE_ST_MALFORMED; break;
			}
		}
		if ((r = wsf_accept(h, &p, verdict)) < 0)
			return r;
	}
}

/* ---- Events ---------------------------------------------------------------------- */

static bool wsf_outlet(void *ctx, enum wse_fast_edge edge, unsigned row, uint64_t w, uint64_t now)
{
	struct wsf_host *h = ctx;
	struct wsf_outlet *o = &h->out[edge][row];
	(void)now;
	if ((uint64_t)o->count >= (uint64_t)WSF_OUT_DEPTH + o->credits)
		return false;
	if (o->count == o->cap) {
		unsigned cap = o->cap ? 2 * o->cap : WSF_OUT_DEPTH;
		uint64_t *nw = malloc((size_t)cap * sizeof *nw);
		if (!nw)
			return false; /* the router waits, as on a full outlet */
		for (unsigned i = 0; i < o->count; i++)
			nw[i] = o->w[(o->head + i) & (o->cap - 1)];
		free(o->w);
		o->w = nw;
		o->cap = cap;
		o->head = 0;
	}
	o->w[(o->head + o->count++) & (o->cap - 1)] = w;
	return true;
}

/* A tile's console: its printing stores wait while the buffer is full
 * (wsf_con_room), as the RTL's do, so no character is lost. */
static bool wsf_con_room(void *ctx)
{
	const struct wsf_con *con = ctx;
	return con->n < WSF_CON_DEPTH;
}

static void wsf_putc(void *ctx, uint8_t c)
{
	struct wsf_con *con = ctx;
	if (con->n < WSF_CON_DEPTH)
		con->buf[con->n++] = c;
}

/* STREAM_OUT events from every port with wavelets and credits, ports
 * taking turns; then the console. */
static int wsf_events(struct wsf_host *h)
{
	unsigned ports = 2 * 64;
	for (unsigned k = 0; k < ports; k++) {
		unsigned pn = (h->out_next + k) % ports, e = pn / 64, row = pn % 64;
		struct wsf_outlet *o = &h->out[e][row];
		if (row >= h->bd.rows)
			continue;
		while (o->count && o->credits) {
			uint32_t n = o->count < o->credits ? o->count : o->credits;
			if (n > WSF_EVENT_WAVELETS)
				n = WSF_EVENT_WAVELETS;
			uint8_t *pl = h->scratch;
			pl[0] = WSE_EDGE_PORT(e, row);
			pl[1] = pl[2] = pl[3] = 0;
			wse_put_le32(pl + WSE_CHUNK_OFF_COUNT, n);
			for (uint32_t i = 0; i < n; i++) {
				wse_put_le64(pl + WSE_CHUNK_BYTES + 8 * i, o->w[o->head]);
				o->head = (o->head + 1) & (o->cap - 1);
			}
			o->count -= n;
			o->credits -= n;
			wsf_count(&h->cnt[WSE_HIF_CNT_STREAM_OUT], n);
			int r = wsf_send(h, WSE_OP_STREAM_OUT, WSE_FLAG_EVENT, 0, 0, pl,
					 WSE_CHUNK_BYTES + 8 * n);
			if (r < 0)
				return r;
			h->quiet = false; /* the edge router may send again */
			wse_fast_board_wake(h->b);
			h->out_next = (pn + 1) % ports;
		}
	}
	for (unsigned i = 0; i < h->tiles; i++) {
		struct wsf_con *c = &h->con[i];
		if (!c->n)
			continue;
		struct wse_wire_console ce = {.x = c->x, .y = c->y, .count = (uint16_t)c->n,
					      .bytes = c->buf};
		int n = wse_console_encode(h->scratch, WSF_MAX_PAYLOAD, &ce);
		if (n < 0)
			return n;
		if ((n = wsf_send(h, WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, 0, h->scratch, (uint32_t)n)) < 0)
			return n;
		c->n = 0;
	}
	return 0;
}

/* ---- Time ---------------------------------------------------------------------------- */

int wsf_host_step(struct wsf_host *h, uint64_t max_cycles)
{
	int r = wsf_execute(h);
	if (r < 0)
		return r;
	uint64_t now;
	wse_fast_board_now(h->b, &now);
	struct wsf_req *q = h->nslots ? &h->slot[0] : NULL;
	bool timed = q && q->started && !q->stream && q->done_at > now;
	uint64_t n = max_cycles;
	if (timed && q->done_at - now < n)
		n = q->done_at - now;
	if (timed && h->quiet) {
		r = wse_fast_board_skip(h->b, n);
	} else if (!h->quiet) {
		bool idle = false;
		r = wse_fast_board_advance(h->b, n, &idle);
		h->quiet = idle;
	}
	if (r < 0)
		return r;
	if ((r = wsf_events(h)) < 0)
		return r;
	return wsf_execute(h);
}

bool wsf_host_busy(const struct wsf_host *h)
{
	if (!h->quiet)
		return true;
	return h->nslots && !(h->slot[0].started && h->slot[0].stream);
}

const uint8_t *wsf_host_tx(struct wsf_host *h, size_t *len)
{
	*len = h->tx_len;
	return h->tx;
}

void wsf_host_tx_done(struct wsf_host *h)
{
	h->tx_len = 0;
}

uint64_t wsf_host_now(const struct wsf_host *h)
{
	uint64_t now = 0;
	wse_fast_board_now(h->b, &now);
	return now;
}

struct wse_fast_board *wsf_host_board(struct wsf_host *h)
{
	return h->b;
}

void wsf_host_set_flash(struct wsf_host *h, int fd, uint32_t bytes, uint64_t cut_after)
{
	h->flash_fd = fd;
	h->flash_bytes = bytes;
	h->flash_budget = cut_after;
}

/* ---- Life ------------------------------------------------------------------------------ */

int wsf_host_create(const struct wse_board *bd, uint32_t quantum, const uint8_t *dtb,
		    size_t dtb_len, const char *build_id, struct wsf_host **out)
{
	if (!bd || !dtb || !build_id || !out || dtb_len > WSE_PROTO_MAX_PAYLOAD - WSE_INFO_BYTES)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_fast_board_cfg cfg = {
		.cols = bd->columns, .rows = bd->rows, .imem_bytes = bd->imem_bytes,
		.dmem_bytes = bd->dmem_bytes, .dmem_banks = bd->dmem_banks, .quantum = quantum,
		.df = {.ramp_color_depth = bd->ramp_color_depth, .num_vc = bd->num_vc,
		       .vc_depth = bd->vc_depth},
	};
	memcpy(cfg.df.color_vc, bd->color_vc, sizeof cfg.df.color_vc);
	struct wsf_host *h = calloc(1, sizeof *h);
	if (!h)
		return WSE_ERROR_NO_MEM;
	h->bd = *bd;
	h->tiles = bd->columns * bd->rows;
	h->quiet = true;
	h->flash_fd = -1;
	strncpy(h->build_id, build_id, sizeof h->build_id - 1);
	int r = wse_fast_board_create(&cfg, &h->b);
	if (r < 0)
		goto free_host;
	r = WSE_ERROR_NO_MEM;
	h->dtb = malloc(dtb_len ? dtb_len : 1);
	h->ctrl = calloc(h->tiles, sizeof *h->ctrl);
	h->con = calloc(h->tiles, sizeof *h->con);
	h->scratch = malloc(WSF_MAX_PAYLOAD);
	if (!h->dtb || !h->ctrl || !h->con || !h->scratch || wse_rx_init(&h->rx, WSF_MAX_PAYLOAD))
		goto free_parts;
	for (unsigned k = 0; k < WSF_SLOTS; k++) {
		h->slot[k].pl = malloc(WSF_MAX_PAYLOAD);
		h->slot[k].resp = malloc(WSE_PROTO_MAX_PAYLOAD);
		if (!h->slot[k].pl || !h->slot[k].resp)
			goto free_parts;
	}
	memcpy(h->dtb, dtb, dtb_len);
	h->dtb_len = dtb_len;
	wse_fast_board_set_outlet(h->b, wsf_outlet, h);
	for (unsigned i = 0; i < h->tiles; i++) {
		struct wse_fast_tile *t;
		wse_fast_board_tile(h->b, i % bd->columns, i / bd->columns, &t, NULL);
		h->con[i] = (struct wsf_con){.h = h, .x = (uint8_t)(i % bd->columns),
					     .y = (uint8_t)(i / bd->columns)};
		wse_fast_tile_set_console(t, wsf_putc, &h->con[i]);
		wse_fast_tile_set_console_room(t, wsf_con_room);
		h->ctrl[i] = WSE_TILE_CTRL_HALT;
	}
	*out = h;
	return 0;
free_parts:
	wsf_host_destroy(h);
	return r;
free_host:
	free(h);
	return r;
}

void wsf_host_destroy(struct wsf_host *h)
{
	if (!h)
		return;
	for (unsigned k = 0; k < WSF_SLOTS; k++) {
		free(h->slot[k].pl);
		free(h->slot[k].resp);
	}
	wse_rx_free(&h->rx);
	wse_fast_board_destroy(h->b);
	for (unsigned e = 0; e < 2; e++)
		for (unsigned r = 0; r < 64; r++)
			free(h->out[e][r].w);
	free(h->dtb);
	free(h->ctrl);
	free(h->con);
	free(h->scratch);
	free(h->tx);
	free(h);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* fake_dev.c - the unit-test mock device (see fake_dev.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"
#include "fake_dev.h"

#define NPORTS 128
#define NCSR 4096

struct fake_dev {
	pthread_t th;
	int lfd, cfd, started;
	char path[108];
	atomic_int stop, mode, late_ms;
	atomic_ulong requests;
	uint8_t *dtb;
	size_t dtb_len;
	struct wse_info info;
	unsigned ntiles;
	size_t memsize;
	uint8_t *mem;     /* ntiles * memsize */
	uint32_t *ctrl;   /* ntiles */
	uint32_t *route;  /* ntiles * 32 */
	uint32_t *csr;    /* ntiles * NCSR */
	uint8_t *flash;
	uint32_t flash_bytes, flash_sector;
	long long flash_cut;   /* bytes still written before the cut, -1 none */
	long long flash_stuck; /* a byte whose bit 0 programs cannot clear */
	uint64_t *q[NPORTS];
	size_t qlen[NPORTS], qcap[NPORTS];
	uint64_t credits[NPORTS];
	uint32_t hif[WSE_HIF_COUNTERS];
	/* pending console bytes of this request */
	uint8_t con[256];
	unsigned con_len, con_x, con_y;
	uint8_t *tx, *resp;
};

static int send_all(int fd, const void *b, size_t n)
{
	const uint8_t *p = b;
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void reset_model(struct fake_dev *f)
{
	memset(f->mem, 0, f->ntiles * f->memsize);
	for (unsigned i = 0; i < f->ntiles; i++)
		f->ctrl[i] = 1; /* halted */
	memset(f->route, 0, f->ntiles * 32 * sizeof(uint32_t));
	memset(f->csr, 0, f->ntiles * NCSR * sizeof(uint32_t));
	for (unsigned p = 0; p < NPORTS; p++)
		f->qlen[p] = f->credits[p] = 0;
}

struct fake_dev *fake_dev_new(const char *dtb_path)
{
	struct fake_dev *f = calloc(1, sizeof(*f));
	FILE *fp = fopen(dtb_path, "rb");
	if (!f || !fp)
		goto fail;
	f->dtb = malloc(WSE_PROTO_MAX_PAYLOAD);
	f->dtb_len = fread(f->dtb, 1, WSE_PROTO_MAX_PAYLOAD, fp);
	fclose(fp);
	fp = NULL;
	f->info.size = sizeof(f->info);
	if (wse_parse_dtb(f->dtb, f->dtb_len, &f->info, NULL, 0))
		goto fail;
	f->ntiles = f->info.columns * f->info.rows;
	f->memsize = f->info.imem_bytes + f->info.dmem_bytes;
	f->mem = malloc(f->ntiles * f->memsize);
	f->ctrl = malloc(f->ntiles * sizeof(uint32_t));
	f->route = malloc(f->ntiles * 32 * sizeof(uint32_t));
	f->csr = malloc(f->ntiles * NCSR * sizeof(uint32_t));
	f->tx = malloc(wse_frame_bytes(WSE_PROTO_MAX_PAYLOAD));
	f->resp = malloc(WSE_PROTO_MAX_PAYLOAD);
	if (!f->mem || !f->ctrl || !f->route || !f->csr || !f->tx || !f->resp)
		goto fail;
	reset_model(f);
	if (fake_dev_set_flash(f, FAKE_FLASH_BYTES, FAKE_FLASH_SECTOR))
		goto fail;
	f->lfd = f->cfd = -1;
	return f;
fail:
	if (fp)
		fclose(fp);
	fake_dev_free(f);
	return NULL;
}

int fake_dev_set_flash(struct fake_dev *f, uint32_t bytes, uint32_t sector)
{
	uint8_t *fl = malloc(bytes);
	if (!fl)
		return -1;
	memset(fl, 0xFF, bytes);
	free(f->flash);
	f->flash = fl;
	f->flash_bytes = bytes;
	f->flash_sector = sector;
	f->flash_cut = f->flash_stuck = -1;
	return 0;
}

void fake_dev_flash_faults(struct fake_dev *f, long long cut_after, long long stuck)
{
	f->flash_cut = cut_after;
	f->flash_stuck = stuck;
}

void fake_log_append(void *user, enum wse_log_level lv, const char *msg)
{
	char *log = user;
	size_t n = strlen(log);
	(void)lv;
	snprintf(log + n, FAKE_LOG_BYTES - n, "%s\n", msg);
}

int fake_test_paths(char dir[64], char sock[128], char dtb[512])
{
	const char *b = getenv("WSE_TEST_BOARDS");
	snprintf(dtb, 512, "%s/sim-4x4/sim-4x4.dtb", b ? b : "build/boards");
	const char *t = getenv("TMPDIR");
	snprintf(dir, 64, "%s/wsetest-XXXXXX", t && strlen(t) < 30 ? t : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, 128, "%s/dev.sock", dir);
	return 0;
}

uint8_t *fake_dev_flash(struct fake_dev *f, size_t *len)
{
	*len = f->flash_bytes;
	return f->flash;
}

void fake_dev_free(struct fake_dev *f)
{
	if (!f)
		return;
	free(f->dtb);
	free(f->mem);
	free(f->ctrl);
	free(f->route);
	free(f->csr);
	free(f->tx);
	free(f->resp);
	free(f->flash);
	for (unsigned p = 0; p < NPORTS; p++)
		free(f->q[p]);
	free(f);
}

void fake_dev_set_mode(struct fake_dev *f, enum fake_mode m, int late_ms)
{
	f->late_ms = late_ms;
	f->mode = m;
}

unsigned long fake_dev_requests(struct fake_dev *f)
{
	return f->requests;
}

/* Send one packet; -1 when the connection is to be dropped. */
static int send_pkt(struct fake_dev *f, int fd, uint8_t op, uint8_t flags,
		    uint32_t tag, uint16_t st, const uint8_t *pl, size_t len)
{
	int mode = f->mode;
	struct wse_pkt p = {WSE_PROTO_MAJOR, WSE_PROTO_MINOR, op, flags, tag,
			    st, (uint32_t)len, NULL};
	uint8_t ver[WSE_VER_BYTES];
	if (mode == FAKE_SILENT)
		return 0;
	if (mode == FAKE_HANG_UP)
		return -1;
	if (mode == FAKE_WRONG_OPCODE && (flags & WSE_FLAG_RESPONSE))
		p.opcode = op == WSE_OP_PING ? WSE_OP_RESET : WSE_OP_PING;
	if (mode == FAKE_BUSY && (flags & WSE_FLAG_RESPONSE)) {
		p.status = WSE_ST_BUSY;
		p.length = 0;
	}
	if (mode == FAKE_BAD_VERSION && (flags & WSE_FLAG_RESPONSE)) {
		struct wse_wire_version v = {2, 0, WSE_PROTO_MAJOR,
					     WSE_PROTO_MINOR};
		wse_version_encode(ver, sizeof(ver), &v);
		p.major = 2;
		p.status = WSE_ST_VERSION;
		p.length = WSE_VER_BYTES;
		pl = ver;
	}
	int n = wse_pkt_encode(f->tx, wse_frame_bytes(WSE_PROTO_MAX_PAYLOAD),
			       &p, pl);
	if (n < 0)
		return -1;
	if (mode == FAKE_BAD_PCRC)
		f->tx[n - WSE_TRAILER_BYTES] ^= 0x01;
	if (mode == FAKE_GARBAGE) {
		static const uint8_t junk[] = {'W', 'S', 'E', 0x00, 0x13, 'W',
					       'S', 'E', 'L', 0x01, 0x00, 0xff,
					       'W', 'S', 0x42, 0x42, 0x07};
		if (send_all(fd, junk, sizeof(junk)))
			return -1;
	}
	if (mode == FAKE_LATE)
		usleep((useconds_t)f->late_ms * 1000);
	if (mode == FAKE_DIE_MID_REPLY) {
		send_all(fd, f->tx, (size_t)n / 2);
		return -1;
	}
	f->hif[WSE_HIF_CNT_TX_PACKETS]++;
	return send_all(fd, f->tx, (size_t)n);
}

static int tile_ok(struct fake_dev *f, unsigned x, unsigned y, int bcast)
{
	if (bcast && x == WSE_TILE_ALL && y == WSE_TILE_ALL)
		return 1;
	return x < f->info.columns && y < f->info.rows;
}

/* One management word access; WSE_ST_*. */
static int mgmt(struct fake_dev *f, unsigned t, uint32_t a, int write,
		uint32_t *v)
{
	unsigned x = t % f->info.columns, y = t / f->info.columns;
	if (a >= WSE_MGMT_MEM_BASE) {
		uint64_t o = a - WSE_MGMT_MEM_BASE;
		if (o + 4 > f->memsize)
			return WSE_ST_MGMT;
		uint8_t *m = f->mem + t * f->memsize + o;
		if (write)
			wse_put_le32(m, *v);
		else
			*v = wse_get_le32(m);
		return WSE_ST_OK;
	}
	if (a >= WSE_MGMT_CSR_BASE && a < WSE_MGMT_CSR_BASE + 4 * NCSR) {
		uint32_t *c = &f->csr[t * NCSR + (a - WSE_MGMT_CSR_BASE) / 4];
		if (write)
			*c = *v;
		else
			*v = *c;
		return WSE_ST_OK;
	}
	if (a >= WSE_MGMT_ROUTE_BASE && a < WSE_MGMT_ROUTE_BASE + 4 * 32) {
		uint32_t *r = &f->route[t * 32 + (a - WSE_MGMT_ROUTE_BASE) / 4];
		if (write)
			*r = *v & 0x1F1Fu;
		else
			*v = *r;
		return WSE_ST_OK;
	}
	if (a >= WSE_MGMT_CNT_BASE && a < WSE_MGMT_CNT_BASE + 16 * 5 &&
	    (a & 15) < 12) {
		if (write)
			return WSE_ST_MGMT;
		*v = t * 1000 + (a - WSE_MGMT_CNT_BASE) / 4;
		return WSE_ST_OK;
	}
	switch (a) {
	case 0x0: /* TILE_ID */
		if (write)
			return WSE_ST_MGMT;
		*v = x | (y << 8) | (0x5753u << 16);
		return WSE_ST_OK;
	case 0x4: /* TILE_CTRL */
		if (write)
			f->ctrl[t] = *v & 3;
		else
			*v = f->ctrl[t];
		return WSE_ST_OK;
	case 0x8: /* TILE_STATUS */
		if (write)
			return WSE_ST_MGMT;
		*v = f->ctrl[t] & 1;
		return WSE_ST_OK;
	case FAKE_PUTCHAR_ADDR:
		if (!write)
			return WSE_ST_MGMT;
		if (f->con_len < sizeof(f->con)) {
			f->con[f->con_len++] = (uint8_t)*v;
			f->con_x = x;
			f->con_y = y;
		}
		return WSE_ST_OK;
	default:
		return WSE_ST_MGMT;
	}
}

/* Tile access request: *rlen bytes of response in f->resp. */
static int do_access(struct fake_dev *f, uint8_t op,
		     const struct wse_wire_acc *a, size_t *rlen)
{
	int write = op & 1;
	uint32_t base, step;
	uint64_t limit;
	switch (op & ~1u) {
	case WSE_OP_MEM_READ:
		base = 0, step = 4, limit = 1ull << 32;
		if (a->addr < WSE_MGMT_MEM_BASE)
			return WSE_ST_RANGE;
		break;
	case WSE_OP_CSR_READ:
		base = WSE_MGMT_CSR_BASE, step = 4, limit = NCSR;
		break;
	case WSE_OP_ROUTE_READ:
		base = WSE_MGMT_ROUTE_BASE, step = 4, limit = 32;
		break;
	default: /* REG */
		base = 0, step = 4, limit = 1ull << 32;
		break;
	}
	int byteaddr = (op & ~1u) == WSE_OP_MEM_READ ||
		       (op & ~1u) == WSE_OP_REG_READ;
	if (byteaddr && (a->addr & 3))
		return WSE_ST_ALIGN;
	uint64_t first = byteaddr ? a->addr : a->addr;
	uint64_t last = byteaddr ? first + 4ull * (a->count - 1)
				 : first + a->count - 1;
	if (last >= limit)
		return WSE_ST_RANGE;
	if (!write && 4ull * a->count > WSE_PROTO_MAX_PAYLOAD)
		return WSE_ST_LENGTH;
	if (!tile_ok(f, a->x, a->y, write))
		return WSE_ST_RANGE;
	unsigned t0 = 0, t1 = f->ntiles;
	if (!(a->x == WSE_TILE_ALL && a->y == WSE_TILE_ALL)) {
		t0 = a->y * f->info.columns + a->x;
		t1 = t0 + 1;
	}
	for (unsigned t = t0; t < t1; t++)
		for (uint32_t i = 0; i < a->count; i++) {
			uint32_t addr = byteaddr ? a->addr + 4 * i
						 : base + step * (a->addr + i);
			uint32_t v = write ? wse_get_le32(a->words + 4 * i) : 0;
			int st = mgmt(f, t, addr, write, &v);
			if (st)
				return st;
			if (!write)
				wse_put_le32(f->resp + 4 * i, v);
		}
	*rlen = write ? 0 : 4 * (size_t)a->count;
	return WSE_ST_OK;
}

static int push(struct fake_dev *f, unsigned p, uint64_t w)
{
	if (f->qlen[p] == f->qcap[p]) {
		size_t nc = f->qcap[p] ? 2 * f->qcap[p] : 256;
		uint64_t *n = realloc(f->q[p], nc * sizeof(*n));
		if (!n)
			return -1;
		f->q[p] = n;
		f->qcap[p] = nc;
	}
	f->q[p][f->qlen[p]++] = w;
	return 0;
}

static unsigned pidx(uint8_t port)
{
	return WSE_EDGE_PORT_EDGE(port) * 64 + WSE_EDGE_PORT_ROW(port);
}

static int do_request(struct fake_dev *f, const struct wse_pkt *p,
		      size_t *rlen)
{
	const uint8_t *pl = p->payload;
	size_t len = p->length;
	*rlen = 0;
	int r = wse_payload_check(p);
	if (r == WSE_ERROR_BAD_OPCODE)
		return WSE_ST_OPCODE;
	if (r)
		return WSE_ST_MALFORMED;
	switch (p->opcode) {
	case WSE_OP_INFO: {
		struct wse_wire_info in = {WSE_PROTO_MAJOR, WSE_PROTO_MINOR,
					   FAKE_MAX_PAYLOAD, 4, {0}, f->dtb,
					   (uint32_t)f->dtb_len};
		strcpy(in.build_id, "fake-dev unit-test mock");
		int n = wse_info_encode(f->resp, WSE_PROTO_MAX_PAYLOAD, &in);
		if (n < 0)
			return WSE_ST_INTERNAL;
		*rlen = (size_t)n;
		return WSE_ST_OK;
	}
	case WSE_OP_PING:
		memcpy(f->resp, pl, len);
		*rlen = len;
		return WSE_ST_OK;
	case WSE_OP_RESET:
		reset_model(f);
		return WSE_ST_OK;
	case WSE_OP_ABORT:
		return WSE_ST_NOT_FOUND; /* nothing is ever pending here */
	case WSE_OP_HALT:
	case WSE_OP_RUN: {
		uint8_t x, y;
		wse_tile_decode(pl, len, &x, &y);
		if (!tile_ok(f, x, y, 1))
			return WSE_ST_RANGE;
		for (unsigned t = 0; t < f->ntiles; t++)
			if ((x == WSE_TILE_ALL && y == WSE_TILE_ALL) ||
			    t == y * f->info.columns + x)
				f->ctrl[t] = p->opcode == WSE_OP_HALT
						     ? (f->ctrl[t] | 1)
						     : 0;
		return WSE_ST_OK;
	}
	case WSE_OP_PERF_READ: {
		uint8_t x, y;
		uint32_t v[WSE_PERF_TILE_COUNTERS];
		wse_tile_decode(pl, len, &x, &y);
		if (x == WSE_TILE_ALL && y == WSE_TILE_ALL) {
			*rlen = (size_t)wse_perf_encode(f->resp, 4096, f->hif,
							WSE_HIF_COUNTERS);
			return WSE_ST_OK;
		}
		if (!tile_ok(f, x, y, 0))
			return WSE_ST_RANGE;
		for (unsigned i = 0; i < WSE_PERF_TILE_COUNTERS; i++)
			v[i] = (y * f->info.columns + x) * 1000 + i;
		*rlen = (size_t)wse_perf_encode(f->resp, 4096, v,
						WSE_PERF_TILE_COUNTERS);
		return WSE_ST_OK;
	}
	case WSE_OP_STREAM_IN: {
		size_t off = 0;
		struct wse_wire_chunk c;
		while (wse_chunk_next(pl, len, &off, &c) == 1)
			if (WSE_EDGE_PORT_ROW(c.port) >= f->info.rows)
				return WSE_ST_RANGE;
		off = 0;
		/* Loop-back: what enters at one edge leaves at the other. */
		while (wse_chunk_next(pl, len, &off, &c) == 1)
			for (uint32_t i = 0; i < c.count; i++) {
				if (push(f, pidx(c.port ^ 0x80),
					 wse_get_le64(c.wavelets + 8 * i)))
					return WSE_ST_INTERNAL;
				f->hif[WSE_HIF_CNT_STREAM_IN]++;
			}
		return WSE_ST_OK;
	}
	case WSE_OP_STREAM_CREDIT:
		for (size_t o = 0; o < len; o += WSE_GRANT_BYTES)
			if (WSE_EDGE_PORT_ROW(pl[o]) >= f->info.rows)
				return WSE_ST_RANGE;
		for (size_t o = 0; o < len; o += WSE_GRANT_BYTES)
			f->credits[pidx(pl[o])] +=
				wse_get_le32(pl + o + WSE_CHUNK_OFF_COUNT);
		return WSE_ST_OK;
	case WSE_OP_FLASH_READ:
	case WSE_OP_FLASH_ERASE:
	case WSE_OP_FLASH_PROGRAM:
	case WSE_OP_FLASH_VERIFY: {
		struct wse_wire_flash fl;
		wse_flash_decode(pl, len, p->opcode, &fl);
		if ((uint64_t)fl.offset + fl.len > f->flash_bytes)
			return WSE_ST_RANGE;
		if (p->opcode == WSE_OP_FLASH_READ) {
			if (fl.len > WSE_PROTO_MAX_PAYLOAD)
				return WSE_ST_LENGTH;
			memcpy(f->resp, f->flash + fl.offset, fl.len);
			*rlen = fl.len;
			return WSE_ST_OK;
		}
		if (p->opcode == WSE_OP_FLASH_VERIFY) {
			uint32_t crc = wse_crc32c_update(0, f->flash + fl.offset,
						       fl.len);
			wse_put_le32(f->resp, crc);
			*rlen = 4;
			return crc == fl.crc ? WSE_ST_OK : WSE_ST_VERIFY;
		}
		if (p->opcode == WSE_OP_FLASH_ERASE &&
		    (fl.offset | fl.len) % f->flash_sector)
			return WSE_ST_ALIGN;
		for (uint32_t i = 0; i < fl.len; i++) {
			if (f->flash_cut >= 0 && f->flash_cut-- == 0) {
				f->mode = FAKE_HANG_UP; /* the power cut */
				return WSE_ST_OK;
			}
			uint8_t *b = f->flash + fl.offset + i;
			if (p->opcode == WSE_OP_FLASH_ERASE)
				*b = 0xFF;
			else
				*b &= fl.data[i] | (fl.offset + i == f->flash_stuck);
		}
		return WSE_ST_OK;
	}
	default: {
		struct wse_wire_acc a;
		wse_acc_decode(pl, len, p->opcode & 1, &a);
		return do_access(f, p->opcode, &a, rlen);
	}
	}
}

/* Events produced by the last request: console bytes, then stream-out
 * data as far as credits allow. */
static int send_events(struct fake_dev *f, int fd)
{
	if (f->con_len) {
		struct wse_wire_console c = {(uint8_t)f->con_x,
					     (uint8_t)f->con_y,
					     (uint16_t)f->con_len, f->con};
		int n = wse_console_encode(f->resp, 4096, &c);
		f->con_len = 0;
		if (send_pkt(f, fd, WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, 0,
			     f->resp, (size_t)n))
			return -1;
	}
	for (unsigned p = 0; p < NPORTS; p++) {
		while (f->qlen[p] && f->credits[p]) {
			size_t n = f->qlen[p];
			if (n > f->credits[p])
				n = f->credits[p];
			if (n > 1000)
				n = 1000;
			size_t off = 0;
			uint8_t port = (uint8_t)(((p / 64) << 7) | (p % 64));
			wse_chunk_append(f->resp, WSE_PROTO_MAX_PAYLOAD, &off,
					 port, f->q[p], (uint32_t)n);
			memmove(f->q[p], f->q[p] + n,
				(f->qlen[p] - n) * sizeof(uint64_t));
			f->qlen[p] -= n;
			f->credits[p] -= n;
			f->hif[WSE_HIF_CNT_STREAM_OUT] += (uint32_t)n;
			if (send_pkt(f, fd, WSE_OP_STREAM_OUT, WSE_FLAG_EVENT,
				     0, 0, f->resp, off))
				return -1;
		}
	}
	return 0;
}

int fake_dev_serve_fd(struct fake_dev *f, int fd)
{
	struct wse_rx rx;
	if (wse_rx_init(&rx, FAKE_MAX_PAYLOAD))
		return -1;
	int ret = 0;
	while (!f->stop) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		size_t avail;
		uint8_t *sp = wse_rx_space(&rx, &avail);
		ssize_t n = recv(fd, sp, avail, 0);
		if (n <= 0)
			break;
		wse_rx_commit(&rx, (size_t)n);
		struct wse_pkt p;
		int r;
		f->hif[WSE_HIF_CNT_RESYNC_BYTES] = (uint32_t)rx.resync_bytes;
		while ((r = wse_rx_next(&rx, &p)) != 0) {
			if (wse_pkt_role(&p) != WSE_ROLE_REQUEST)
				continue; /* not a request: counted drop */
			f->hif[WSE_HIF_CNT_RX_PACKETS]++;
			f->requests++;
			size_t rlen = 0;
			int st;
			if (r == 1) {
				st = do_request(f, &p, &rlen);
			} else if (r == WSE_ERROR_VERSION) {
				struct wse_wire_version v = {
					WSE_PROTO_MAJOR, WSE_PROTO_MINOR,
					p.major, p.minor};
				rlen = (size_t)wse_version_encode(f->resp, 4, &v);
				st = WSE_ST_VERSION;
			} else {
				st = r == WSE_ERROR_LENGTH ? WSE_ST_LENGTH
				     : r == WSE_ERROR_BAD_OPCODE ? WSE_ST_OPCODE
				     : r == WSE_ERROR_PAYLOAD_CRC
					     ? WSE_ST_PAYLOAD_CRC
					     : WSE_ST_MALFORMED;
				if (st == WSE_ST_PAYLOAD_CRC)
					f->hif[WSE_HIF_CNT_BAD_PAYLOAD]++;
			}
			if (st != WSE_ST_OK) {
				f->hif[WSE_HIF_CNT_REFUSED]++;
				if (st != WSE_ST_VERSION &&
				    st != WSE_ST_VERIFY)
					rlen = 0;
			}
			if (send_events(f, fd) ||
			    send_pkt(f, fd, p.opcode, WSE_FLAG_RESPONSE, p.tag,
				     (uint16_t)st, f->resp, rlen)) {
				ret = -1;
				goto out;
			}
		}
	}
out:
	wse_rx_free(&rx);
	return ret;
}

static void *serve(void *arg)
{
	struct fake_dev *f = arg;
	while (!f->stop) {
		struct pollfd pfd = {.fd = f->lfd, .events = POLLIN};
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		int fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		fake_dev_serve_fd(f, fd);
		close(fd);
	}
	return NULL;
}

struct fake_dev *fake_dev_start(const char *sock_path, const char *dtb_path)
{
	struct fake_dev *f = fake_dev_new(dtb_path);
	if (!f)
		return NULL;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	snprintf(f->path, sizeof(f->path), "%s", sock_path);
	unlink(sock_path);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sock_path, 0600) || listen(f->lfd, 4) ||
	    pthread_create(&f->th, NULL, serve, f)) {
		if (f->lfd >= 0)
			close(f->lfd);
		fake_dev_free(f);
		return NULL;
	}
	f->started = 1;
	return f;
}

void fake_dev_stop(struct fake_dev *f)
{
	if (!f)
		return;
	f->stop = 1;
	if (f->started)
		pthread_join(f->th, NULL);
	close(f->lfd);
	unlink(f->path);
	fake_dev_free(f);
}

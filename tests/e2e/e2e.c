/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e2e: end-to-end tests of libwsehost against wsemu-sim (the RTL model).
 *
 *   e2e BOARD COLS ROWS [MUTATIONS]
 *
 * Runs: info (DTB parsed, mesh size), memory write/read on every tile,
 * route + stream-in at the west edge and stream-out at the east edge of
 * every row (one packet, then calls and asynchronous transfers of many
 * packets, order and content checked), control requests that must get
 * through while two stream-ins wait for the mesh (a STREAM_CREDIT, an
 * ABORT of an unknown tag, the ABORTs of a cancelled transfer), out-of-range requests, MUTATIONS mutated requests through the
 * executor (raw socket) with the device still answering PING after, and a
 * simulator killed under an open device. Exit 0 when all pass.
 *
 *   e2e BOARD COLS ROWS --uri URI [--unplug CMD]
 *
 * runs the info/memory/stream part on the device at URI instead (a board
 * on usb:, as the VM harness presents one, tests/vm/), then, with
 * --unplug, submits a stream-out that waits for wavelets, runs the shell
 * command CMD (which takes the device away, e.g. unbinds the USB gadget)
 * and checks that the pending transfer and the next request fail with
 * NO_DEVICE, and that the device closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wsemu/wse_codec.h"
#include "transport.h"
#include "wsehost.h"
#include "wsemu/wse_wire.h"

static int fails;
#define CHECK(c, ...)                                                          \
	do {                                                                   \
		if (!(c)) {                                                    \
			fails++;                                               \
			fprintf(stderr, "e2e: FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

static const char *board;
static unsigned cols, rows;
static int fast; /* the functional model (wsemu-fast), not the RTL's */
static const char *dev_uri; /* --uri: a device to test instead of a simulator */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Spawn wsemu-sim on a private socket; returns its pid. */
static pid_t spawn_sim(char *path, size_t cap)
{
	char dir[] = "/tmp/wse-e2e-XXXXXX";
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, cap, "%s/sock", dir);
	pid_t pid = fork();
	if (pid == 0) {
		const char *env = fast ? "WSEMU_FAST" : "WSEMU_SIM";
		const char *prog = getenv(env) ? getenv(env) : fast ? "wsemu-fast" : "wsemu-sim";
		execlp(prog, prog, "--board", board, "--socket", path, "--quiet", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) { /* wait for the socket */
		struct stat st;
		if (stat(path, &st) == 0) {
			CHECK((st.st_mode & 0777) == 0600, "socket mode %o", st.st_mode & 0777);
			return pid;
		}
		usleep(10000);
	}
	return pid;
}

/* Async completions of stream_packets, in callback order. */
struct sp_done {
	int status[2], seq[2], n;
};
struct sp_one {
	struct sp_done *s;
	int idx;
};

static void sp_cb(wse_transfer *x, int status, size_t actual, void *user)
{
	struct sp_one *o = user;
	(void)x;
	(void)actual;
	int k = __atomic_load_n(&o->s->n, __ATOMIC_SEQ_CST);
	o->s->status[o->idx] = status;
	if (k < 2)
		o->s->seq[k] = o->idx;
	__atomic_store_n(&o->s->n, k + 1, __ATOMIC_SEQ_CST);
}

/* Wait (10 s at most) until n transfers of s have completed. */
static void sp_wait(struct sp_done *s, int n)
{
	for (long long end = now_ms() + 10000;
	     __atomic_load_n(&s->n, __ATOMIC_SEQ_CST) < n && now_ms() < end;)
		usleep(1000);
}

/* Take n wavelets from the east port of row y (2 s per wait, 20 s in all). */
static unsigned take_out(wse_device *d, unsigned y, uint64_t *got, unsigned n)
{
	unsigned have = 0;
	long long end = now_ms() + 20000;
	while (have < n && now_ms() < end) {
		int k = wse_stream_out(d, WSE_EAST, y, got + have, n - have, 2000);
		if (k > 0)
			have += (unsigned)k;
	}
	return have;
}

/* Stream-ins of many packets (color routed west to east on every row):
 * one wse_stream_in call whose chunks (several per port, ports
 * interleaved) fill many packets, which libwsehost keeps up to
 * max_outstanding in flight; then two asynchronous multi-packet
 * transfers on row 0 submitted back to back. Every row's east outlet must
 * give its wavelets whole, in chunk order, the second transfer's after
 * the first's. */
static void stream_packets(wse_device *d, unsigned color)
{
	enum { PARTS = 3 };
	unsigned n[64], total = 0;
	for (unsigned y = 0; y < rows; y++) {
		n[y] = 1500 + 300 * y;
		total += n[y];
	}
	uint64_t *wv = calloc(total, 8), *got = calloc(total, 8);
	struct wse_stream_chunk ch[64 * PARTS];
	size_t nc = 0;
	uint64_t *base[64];
	uint64_t *o = wv;
	for (unsigned y = 0; y < rows; y++) {
		base[y] = o;
		for (unsigned i = 0; i < n[y]; i++)
			o[i] = wse_wavelet((y << 24 | i) ^ (rnd() & 0xFF000000u), color, i % 5 == 0);
		o += n[y];
	}
	/* parts of 1/6, 1/3 and the rest of every row, rows taking turns */
	for (unsigned p = 0; p < PARTS; p++)
		for (unsigned y = 0; y < rows; y++) {
			unsigned a = p == 0 ? 0 : p == 1 ? n[y] / 6 : n[y] / 2;
			unsigned b = p == 0 ? n[y] / 6 : p == 1 ? n[y] / 2 : n[y];
			ch[nc++] = (struct wse_stream_chunk){WSE_WEST, y, base[y] + a, b - a};
		}
	for (unsigned y = 0; y < rows; y++) {
		int r = wse_stream_credit(d, WSE_EAST, y, n[y]);
		CHECK(r == 0, "credit %s", wse_strerror(r));
	}
	struct wse_link_stats st0 = {.size = sizeof(st0)}, st1 = {.size = sizeof(st1)};
	wse_get_link_stats(d, &st0);
	int r = wse_stream_in(d, ch, nc);
	CHECK(r == 0, "multi-packet stream in: %s", wse_strerror(r));
	wse_get_link_stats(d, &st1);
	struct wse_info in = {.size = sizeof(in)};
	wse_get_info(d, &in);
	unsigned pkts = (unsigned)(st1.tx_packets - st0.tx_packets);
	CHECK(pkts >= total * 8 / in.max_payload + 1, "%u wavelets in only %u packets", total, pkts);
	for (unsigned y = 0; y < rows; y++) {
		unsigned have = take_out(d, y, got, n[y]);
		CHECK(have == n[y], "multi-packet: row %u: %u of %u wavelets out", y, have, n[y]);
		for (unsigned i = 0; have == n[y] && i < n[y]; i++)
			if (got[i] != base[y][i]) {
				CHECK(0, "multi-packet: row %u wavelet %u: %llx, not %llx", y, i,
				      (unsigned long long)got[i], (unsigned long long)base[y][i]);
				break;
			}
	}

	/* Two asynchronous transfers of several packets each on row 0. */
	const unsigned m = 1200;
	for (unsigned i = 0; i < 2 * m; i++)
		wv[i] = wse_wavelet(0xA0000000u | i, color, 0);
	struct wse_stream_chunk a = {WSE_WEST, 0, wv, m}, b = {WSE_WEST, 0, wv + m, m};
	struct sp_done s = {{1, 1}, {-1, -1}, 0};
	struct sp_one oa = {&s, 0}, ob = {&s, 1};
	r = wse_stream_credit(d, WSE_EAST, 0, 2 * m);
	CHECK(r == 0, "credit %s", wse_strerror(r));
	r = wse_stream_in_async(d, &a, 1, 0, sp_cb, &oa, NULL);
	CHECK(r == 0, "async stream in 1: %s", wse_strerror(r));
	r = wse_stream_in_async(d, &b, 1, 0, sp_cb, &ob, NULL);
	CHECK(r == 0, "async stream in 2: %s", wse_strerror(r));
	unsigned have = take_out(d, 0, got, 2 * m);
	sp_wait(&s, 2);
	CHECK(s.n == 2 && !s.status[0] && !s.status[1] && s.seq[0] == 0 && s.seq[1] == 1,
	      "async stream ins: %d done, status %d %d, order %d %d", s.n, s.status[0],
	      s.status[1], s.seq[0], s.seq[1]);
	CHECK(have == 2 * m && !memcmp(got, wv, 2 * m * 8),
	      "async stream ins: %u of %u wavelets, or out of order", have, 2 * m);
	free(wv);
	free(got);
}

/* Wait until the link has carried k more packets than at st0, then give
 * the device time to receive them (they are on the link). */
static void wait_sent(wse_device *d, const struct wse_link_stats *st0, unsigned k)
{
	struct wse_link_stats st = {.size = sizeof(st)};
	for (long long end = now_ms() + 20000; now_ms() < end; usleep(2000)) {
		wse_get_link_stats(d, &st);
		if (st.tx_packets >= st0->tx_packets + k)
			break;
	}
	usleep(1500 * 1000);
}

/* Control requests behind two stream-ins that wait for the mesh. No
 * stream-out credits on row 0's east outlet: a stream of 1,500 wavelets
 * fills the outlet buffer and the row, its first packet stalls in the
 * executor, its second waits in the other request slot, and the device's
 * control slot must still take (docs/protocol.md 3.5):
 *   - an ABORT of a tag nobody uses (NOT_FOUND; the stalled stream-in
 *     goes on where it was),
 *   - the STREAM_CREDIT that unblocks it: every wavelet arrives once, in
 *     order;
 * then, blocked again, the ABORTs of a cancelled transfer: its packets
 * end (the queued one without running), the device answers a PING, and
 * what did enter the mesh is a prefix of the stream. */
static void control_behind_blocked(wse_device *d, unsigned color)
{
	enum { M = 1500 };
	uint64_t *wv = calloc(M, 8), *got = calloc(M, 8);
	for (unsigned i = 0; i < M; i++)
		wv[i] = wse_wavelet(0xC0000000u | i, color, 0);
	struct wse_stream_chunk c = {WSE_WEST, 0, wv, M};
	struct sp_done s = {{1, 1}, {-1, -1}, 0};
	struct sp_one o = {&s, 0};
	struct wse_link_stats st0 = {.size = sizeof(st0)};

	wse_get_link_stats(d, &st0);
	int r = wse_stream_in_async(d, &c, 1, 0, sp_cb, &o, NULL);
	CHECK(r == 0, "blocked stream in: %s", wse_strerror(r));
	wait_sent(d, &st0, 2);
	CHECK(__atomic_load_n(&s.n, __ATOMIC_SEQ_CST) == 0, "stream-in done without credits");
	uint8_t bogus[4];
	wse_put_le32(bogus, 0x7FFFFFF0u);
	long long t0 = now_ms();
	r = wsei_request(d, WSE_OP_ABORT, bogus, 4, NULL, 0);
	CHECK(r == WSE_ERROR_NOT_FOUND, "ABORT of an unknown tag behind two stream-ins: %s",
	      wse_strerror(r));
	r = wse_stream_credit(d, WSE_EAST, 0, M);
	CHECK(r == 0, "credit behind two stream-ins: %s (%lld ms)", wse_strerror(r), now_ms() - t0);
	unsigned have = take_out(d, 0, got, M);
	CHECK(have == M, "after the credit: %u of %u wavelets out", have, M);
	for (unsigned i = 0; i < have; i++)
		if (got[i] != wv[i]) {
			CHECK(0, "after the credit: wavelet %u is %llx, not %llx", i,
			      (unsigned long long)got[i], (unsigned long long)wv[i]);
			break;
		}
	sp_wait(&s, 1);
	CHECK(s.n == 1 && s.status[0] == 0, "unblocked stream-in: %d done, status %d", s.n,
	      s.status[0]);

	/* Blocked again, then cancelled. */
	wse_transfer *x = NULL;
	s = (struct sp_done){{1, 1}, {-1, -1}, 0};
	wse_get_link_stats(d, &st0);
	r = wse_stream_in_async(d, &c, 1, 0, sp_cb, &o, &x);
	CHECK(r == 0, "blocked stream in: %s", wse_strerror(r));
	wait_sent(d, &st0, 2);
	r = wse_transfer_cancel(x);
	CHECK(r == 0, "cancel: %s", wse_strerror(r));
	sp_wait(&s, 1);
	CHECK(s.n == 1 && s.status[0] == WSE_ERROR_ABORTED, "cancelled: status %d", s.status[0]);
	t0 = now_ms();
	r = wse_ping(d, "after abort", 11);
	CHECK(r == 0, "ping after a cancelled blocked stream-in: %s (%lld ms)", wse_strerror(r),
	      now_ms() - t0);
	struct wse_link_stats st1 = {.size = sizeof(st1)};
	wse_get_link_stats(d, &st1);
	CHECK(st1.timeouts == st0.timeouts, "%llu time-outs", (unsigned long long)(st1.timeouts - st0.timeouts));
	/* Drain what entered the mesh: less than the stream, a prefix of it. */
	r = wse_stream_credit(d, WSE_EAST, 0, M);
	CHECK(r == 0, "credit %s", wse_strerror(r));
	have = 0;
	for (;;) {
		int k = wse_stream_out(d, WSE_EAST, 0, got + have, M - have, 2000);
		if (k <= 0)
			break;
		have += (unsigned)k;
	}
	CHECK(have > 0 && have < M && !memcmp(got, wv, (size_t)have * 8),
	      "cancelled stream-in: %u wavelets out, not a prefix", have);
	wse_transfer_free(x);
	free(wv);
	free(got);
}

static void test_info_mem_stream(void)
{
	wse_device *d;
	char uri[64];
	snprintf(uri, sizeof(uri), "%s", dev_uri ? dev_uri : "");
	if (!dev_uri)
		snprintf(uri, sizeof(uri), "sim:board=%s%s", board, fast ? ",model=fast" : "");
	/* Long waits: a loaded machine simulates a few hundred to a few
	 * thousand cycles/s of sim-4x4, and the 4 KiB requests below each
	 * take many thousand cycles on the management network. */
	struct wse_open_opts oo = {.size = sizeof(oo), .timeout_ms = 180000, .open_timeout_ms = 60000};
	int r = wse_open(&d, uri, &oo);
	CHECK(r == 0, "open %s: %s", uri, wse_strerror(r));
	if (r)
		return;
	struct wse_info in;
	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	r = wse_get_info(d, &in);
	CHECK(r == 0 && in.columns == cols && in.rows == rows, "info %d: %ux%u", r, in.columns, in.rows);
	CHECK(in.proto_major == WSE_PROTO_MAJOR, "protocol %u", in.proto_major);
	CHECK(strstr(in.compatible, board) != NULL, "compatible %s", in.compatible);

	/* Second host: busy. */
	wse_device *d2 = NULL;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 3000, .open_timeout_ms = 3000};
	(void)o;

	/* Memory on every tile: DMEM and IMEM. */
	for (unsigned y = 0; y < rows; y++)
		for (unsigned x = 0; x < cols; x++) {
			uint32_t w[32], rb[32];
			for (int i = 0; i < 32; i++)
				w[i] = rnd();
			uint32_t addrs[2] = {0x80100000u + 0x400u, 0x80000000u + 0x100u};
			for (int k = 0; k < 2; k++) {
				memset(rb, 0, sizeof(rb));
				r = wse_mem_write(d, x, y, addrs[k], w, sizeof(w));
				CHECK(r == 0, "mem write %u,%u: %s", x, y, wse_strerror(r));
				r = wse_mem_read(d, x, y, addrs[k], rb, sizeof(rb));
				CHECK(r == 0 && !memcmp(w, rb, sizeof(w)), "mem read %u,%u %08x", x, y, addrs[k]);
			}
		}
	/* A large read/write (split by the library into max_payload packets). */
	{
		static uint32_t big[1100], bb[1100];
		for (int i = 0; i < 1100; i++)
			big[i] = rnd();
		r = wse_mem_write(d, cols - 1, rows - 1, 0x80100000u + 0x1000u, big, sizeof(big));
		CHECK(r == 0, "big write %s", wse_strerror(r));
		r = wse_mem_read(d, cols - 1, rows - 1, 0x80100000u + 0x1000u, bb, sizeof(bb));
		CHECK(r == 0 && !memcmp(big, bb, sizeof(big)), "big read %s", wse_strerror(r));
	}
	/* Broadcast write, read back from every tile. */
	{
		uint32_t v = 0xB0CA57u, rv;
		r = wse_mem_write(d, WSE_ALL_TILES, WSE_ALL_TILES, 0x80100000u + 0x800u, &v, 4);
		CHECK(r == 0, "bcast write %s", wse_strerror(r));
		for (unsigned t = 0; t < cols * rows; t++) {
			rv = 0;
			r = wse_mem_read(d, t % cols, t / cols, 0x80100000u + 0x800u, &rv, 4);
			CHECK(r == 0 && rv == v, "bcast read %u: %x", t, rv);
		}
	}
	/* CSR: mhartid = {y, x}. */
	for (unsigned t = 0; t < cols * rows; t++) {
		uint32_t h = 0;
		r = wse_csr_read(d, t % cols, t / cols, 0xF14, &h);
		CHECK(r == 0 && h == ((t / cols) << 8 | (t % cols)), "mhartid %u: %x (%d)", t, h, r);
	}

	/* Routes: color 3 west to east along every row; stream 200 wavelets
	 * per row in one multi-port packet; collect them at the east edge. */
	const unsigned color = 3, n = 200;
	for (unsigned y = 0; y < rows; y++)
		for (unsigned x = 0; x < cols; x++) {
			uint32_t e = (1u << 3) << 8 | (1u << 1), rb = 0;
			r = wse_route_write(d, x, y, color, &e, 1);
			CHECK(r == 0, "route write %s", wse_strerror(r));
			r = wse_route_read(d, x, y, color, &rb, 1);
			CHECK(r == 0 && rb == e, "route read %x", rb);
		}
	uint64_t *wv = calloc((size_t)rows * n, 8);
	struct wse_stream_chunk ch[64];
	for (unsigned y = 0; y < rows; y++) {
		for (unsigned i = 0; i < n; i++)
			wv[y * n + i] = wse_wavelet(rnd(), color, (i % 7) == 0);
		ch[y] = (struct wse_stream_chunk){WSE_WEST, y, wv + y * n, n};
		r = wse_stream_credit(d, WSE_EAST, y, n);
		CHECK(r == 0, "credit %s", wse_strerror(r));
	}
	r = wse_stream_in(d, ch, rows);
	CHECK(r == 0, "stream in %s", wse_strerror(r));
	for (unsigned y = 0; y < rows; y++) {
		uint64_t got[256];
		unsigned have = take_out(d, y, got, n);
		CHECK(have == n, "row %u: %u of %u wavelets out", y, have, n);
		CHECK(have != n || !memcmp(got, wv + y * n, n * 8), "row %u: wavelets differ", y);
	}
	free(wv);
	stream_packets(d, color);
	control_behind_blocked(d, color);
	/* Router counters: the east output of every tile forwarded n. */
	for (unsigned t = 0; t < cols * rows; t++) {
		uint32_t v[15];
		r = wse_perf_read(d, t % cols, t / cols, v, 15);
		CHECK(r == 15 && v[3] >= n, "perf %u: %d fwd E %u", t, r, v[3]);
	}
	uint32_t h[7];
	r = wse_perf_read(d, WSE_ALL_TILES, WSE_ALL_TILES, h, 7);
	CHECK(r == 7 && h[5] >= rows * n && h[6] >= rows * n, "hif counters in %u out %u", h[5], h[6]);

	/* Out of range: every one an error status, the device still fine. */
	uint32_t v = 0;
	r = wse_mem_read(d, cols, 0, 0x80100000u, &v, 4);
	CHECK(r == WSE_ERROR_RANGE, "x out of mesh: %d", r);
	r = wse_mem_read(d, 0, rows, 0x80100000u, &v, 4);
	CHECK(r == WSE_ERROR_RANGE, "y out of mesh: %d", r);
	r = wse_mem_write(d, 0, 0, 0x1000u, &v, 4);
	CHECK(r == WSE_ERROR_RANGE, "mem below window: %d", r);
	r = wse_mem_write(d, 0, 0, 0x80100000u + in.dmem_bytes, &v, 4);
	CHECK(r == WSE_ERROR_DEVICE, "mem beyond DMEM: %d", r);
	r = wse_mem_write(d, 0, 0, 0xFFFFFFFCu, &v, 4);
	CHECK(r == WSE_ERROR_DEVICE, "mem at the top: %d", r);
	r = wse_csr_read(d, 0, 0, 0x1000, &v);
	CHECK(r < 0, "csr 0x1000: %d", r);
	uint32_t e2[2] = {0, 0};
	r = wse_route_write(d, 0, 0, 31, e2, 2);
	CHECK(r < 0, "route past color 31: %d", r);
	r = wse_stream_credit(d, WSE_EAST, rows, 1);
	CHECK(r == WSE_ERROR_RANGE, "credit past rows: %d", r);
	r = wse_tile_halt(d, cols, 0);
	CHECK(r == WSE_ERROR_RANGE, "halt out of mesh: %d", r);
	r = wse_reg_write(d, 0, 0, 0x0, 1);
	CHECK(r == WSE_ERROR_DEVICE, "write TILE_ID: %d", r);
	r = wse_flash_read(d, 0, &v, 4);
	CHECK(r == WSE_ERROR_NOT_SUPPORTED, "flash: %d", r);
	r = wse_ping(d, "still here", 10);
	CHECK(r == 0, "ping after errors: %d", r);
	r = wse_reset(d);
	CHECK(r == 0, "reset: %d", r);
	uint32_t rt = 1;
	r = wse_route_read(d, 0, 0, color, &rt, 1);
	CHECK(r == 0 && rt == 0, "route after reset %x", rt);
	if (d2)
		wse_close(d2);
	wse_close(d);
}

/* ---- mutated requests through the executor ------------------------------ */

static int sendall(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read until a response with this tag and, unless op is 0, this opcode
 * (events and other responses skipped); 1 found, 0 time-out. */
static int await(int fd, struct wse_rx *rx, uint32_t tag, uint8_t op, int ms, uint16_t *status)
{
	long long end = now_ms() + ms;
	for (;;) {
		struct wse_pkt p;
		int r;
		memset(&p, 0, sizeof(p));
		while ((r = wse_rx_next(rx, &p)) != 0) {
			/* A refusal of an unknown or event opcode carries that opcode,
			 * which the host's decoder reports as BAD_OPCODE with the
			 * intact header: it is still the answer. */
			if ((r == 1 || r == WSE_ERROR_BAD_OPCODE) && (p.flags & WSE_FLAG_RESPONSE) &&
			    p.tag == tag && (!op || p.opcode == op)) {
				*status = p.status;
				return 1;
			}
		}
		long long left = end - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd pf = {fd, POLLIN, 0};
		if (poll(&pf, 1, (int)left) <= 0)
			return 0;
		size_t av;
		uint8_t *sp = wse_rx_space(rx, &av);
		ssize_t k = recv(fd, sp, av, 0);
		if (k <= 0)
			return 0;
		wse_rx_commit(rx, (size_t)k);
	}
}

static const uint8_t ops[] = {WSE_OP_INFO, WSE_OP_PING, WSE_OP_ABORT, WSE_OP_HALT,
			      WSE_OP_MEM_READ, WSE_OP_MEM_WRITE, WSE_OP_CSR_READ, WSE_OP_CSR_WRITE,
			      WSE_OP_ROUTE_READ, WSE_OP_REG_READ, WSE_OP_STREAM_IN, WSE_OP_STREAM_CREDIT,
			      WSE_OP_PERF_READ, WSE_OP_FLASH_READ, WSE_OP_STREAM_OUT, WSE_OP_CONSOLE,
			      0x7F, WSE_OP_RESET};

/* Append a request to a burst buffer; returns the new length. */
static size_t burst_add(uint8_t *b, size_t at, uint8_t op, uint32_t tag, const void *pl,
			uint32_t len)
{
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .opcode = op,
			    .tag = tag, .length = len};
	int n = wse_pkt_encode(b + at, 8192, &p, pl);
	CHECK(n > 0, "encode");
	return at + (n > 0 ? (size_t)n : 0);
}

/* BUSY (docs/protocol.md 3.5), requests sent in one burst behind a read
 * of 1,024 words (thousands of management cycles):
 *   - a PING reusing the read's tag while the read is in flight;
 *   - a third ordinary request beside two in flight (max_outstanding 2):
 *     it lands in the control slot and is refused; the two reads are
 *     answered OK with their data. */
static void test_busy(int fd, struct wse_rx *rx)
{
	static uint8_t b[3 * 8192];
	uint8_t rd[12] = {0, 0, 0, 0};
	uint32_t a = 0x80100000u, c = 1024;
	memcpy(rd + 4, &a, 4);
	memcpy(rd + 8, &c, 4);
	uint16_t st1 = 1, st2 = 0;
	size_t n = burst_add(b, 0, WSE_OP_MEM_READ, 0x100, rd, 12);
	n = burst_add(b, n, WSE_OP_PING, 0x100, "same tag", 8);
	CHECK(!sendall(fd, b, n), "send");
	int ok1 = await(fd, rx, 0x100, WSE_OP_MEM_READ, 20000, &st1);
	int ok2 = await(fd, rx, 0x100, WSE_OP_PING, 20000, &st2);
	CHECK(ok1 && st1 == WSE_ST_OK, "read before a reused tag: %d status %u", ok1, st1);
	CHECK(ok2 && st2 == WSE_ST_BUSY, "reused tag: %d status %u (not BUSY)", ok2, st2);

	/* Answers in request order here (the reads do not wait for the mesh,
	 * so the executor gets to the control slot after them). */
	uint16_t s[3] = {1, 1, 0};
	n = burst_add(b, 0, WSE_OP_MEM_READ, 0x201, rd, 12);
	n = burst_add(b, n, WSE_OP_MEM_READ, 0x202, rd, 12);
	n = burst_add(b, n, WSE_OP_PING, 0x203, "third", 5);
	CHECK(!sendall(fd, b, n), "send");
	for (int i = 0; i < 2; i++) {
		int ok = await(fd, rx, 0x201 + (uint32_t)i, 0, 20000, &s[i]);
		CHECK(ok && s[i] == WSE_ST_OK, "read %d beside an excess request: %d status %u", i, ok,
		      s[i]);
	}
	int ok = await(fd, rx, 0x203, 0, 20000, &s[2]);
	CHECK(ok && s[2] == WSE_ST_BUSY, "third request in flight: %d status %u (not BUSY)", ok, s[2]);
}

static void test_mutations(unsigned count)
{
	char path[128];
	pid_t pid = spawn_sim(path, sizeof(path));
	CHECK(pid > 0, "spawn");
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path);
	int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	CHECK(r == 0, "connect: %s", strerror(errno));
	struct wse_rx rx;
	wse_rx_init(&rx, WSE_PROTO_MAX_PAYLOAD);
	static uint8_t pl[4096], fr[4096 + 64];
	unsigned answered = 0, refused = 0, garbage = 0;
	long long t0 = now_ms();
	for (unsigned i = 0; i < count && !fails; i++) {
		uint32_t tag = i + 1;
		struct wse_pkt p = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .tag = tag};
		p.opcode = ops[rnd() % sizeof(ops)];
		/* A plausible payload for the opcode, then mutated. */
		uint32_t len;
		switch (rnd() % 4) {
		case 0: len = 4; break;
		case 1: len = 12; break;
		case 2: len = 8 * (1 + rnd() % 6); break;
		default: len = rnd() % 80; break;
		}
		for (uint32_t k = 0; k < len; k++)
			pl[k] = (uint8_t)rnd();
		if (len >= 12 && rnd() % 2) { /* a tile access with small fields */
			pl[0] = (uint8_t)(rnd() % (cols + 2));
			pl[1] = (uint8_t)(rnd() % (rows + 2));
			pl[2] = pl[3] = rnd() % 8 ? 0 : pl[3];
			uint32_t a = rnd() % 2 ? 0x80100000u + (rnd() % 0x9000u) : rnd();
			memcpy(pl + 4, &a, 4);
			uint32_t c = rnd() % 4 ? 1 + rnd() % 4 : rnd();
			memcpy(pl + 8, &c, 4);
			if (p.opcode == WSE_OP_MEM_WRITE || p.opcode == WSE_OP_CSR_WRITE)
				if (rnd() % 2 && c < 16 && 12 + 4 * c <= sizeof(pl))
					len = 12 + 4 * c;
		}
		if (p.opcode == WSE_OP_STREAM_IN && len >= 16 && rnd() % 2) {
			/* a chunk of dropped wavelets (color with no route) */
			uint32_t n = (len - 8) / 8;
			pl[0] = (uint8_t)((rnd() % 2) << 7 | rnd() % (rows + 1));
			pl[1] = pl[2] = pl[3] = 0;
			memcpy(pl + 4, &n, 4);
			for (uint32_t k = 0; k < n; k++) {
				uint64_t w = wse_wavelet(rnd(), 20, 0);
				if (rnd() % 16 == 0)
					w |= 1ull << 40;
				memcpy(pl + 8 + 8 * k, &w, 8);
			}
		}
		if (p.opcode == WSE_OP_HALT && len == 4 && rnd() % 2)
			pl[2] = pl[3] = 0;
		if (rnd() % 8 == 0)
			p.major = (uint8_t)rnd();
		p.length = len;
		int n = wse_pkt_encode(fr, sizeof(fr), &p, pl);
		CHECK(n > 0, "encode");
		if (rnd() % 10 == 0) {
			/* A damaged frame: flip a bit; may not be answered. */
			fr[rnd() % (unsigned)n] ^= (uint8_t)(1u << (rnd() % 8));
			sendall(fd, fr, (size_t)n);
			uint8_t junk[8] = {0};
			sendall(fd, junk, 8);
			garbage++;
			continue;
		}
		if (sendall(fd, fr, (size_t)n)) {
			CHECK(0, "send failed at packet %u", i);
			break;
		}
		uint16_t st = 0;
		int ok = await(fd, &rx, tag, 0, 10000, &st);
		CHECK(ok, "packet %u (op %02x len %u) not answered", i, p.opcode, len);
		answered++;
		refused += st != 0;
	}
	/* Still answering. */
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .opcode = WSE_OP_PING,
			    .tag = 0x7FFFFFFF, .length = 4};
	int n = wse_pkt_encode(fr, sizeof(fr), &p, "ping");
	sendall(fd, fr, (size_t)n);
	uint16_t st = 1;
	int ok = await(fd, &rx, 0x7FFFFFFF, 0, 10000, &st);
	CHECK(ok && st == 0, "ping after mutations");
	test_busy(fd, &rx);
	printf("e2e: %u mutated requests: %u answered (%u refused), %u damaged frames, "
	       "%.1f s\n", count, answered, refused, garbage, (now_ms() - t0) / 1000.0);
	close(fd);
	int ws;
	waitpid(pid, &ws, 0);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "simulator exit %x", ws);
	wse_rx_free(&rx);
}

/* ---- a management access that never completes ---------------------------- */

/* wsemu-sim --fault mgmt:1,0: tile (1,0) loses the first tile-side bus
 * access it takes, and the management port waits for that response for
 * good. The device answers TIMEOUT (its own time-out, not the host's),
 * then TIMEOUT for every later management access, and keeps answering
 * PING. */
static void test_mgmt_timeout(void)
{
	char uri[64];
	wse_device *d;
	snprintf(uri, sizeof(uri), "sim:board=%s", board);
	setenv("WSEMU_SIM_OPTS", "--quiet --fault mgmt:1,0", 1);
	struct wse_open_opts oo = {.size = sizeof(oo), .timeout_ms = 120000, .open_timeout_ms = 60000};
	int r = wse_open(&d, uri, &oo);
	unsetenv("WSEMU_SIM_OPTS");
	CHECK(r == 0, "open with a broken management node: %s", wse_strerror(r));
	if (r)
		return;
	uint32_t v = 0;
	r = wse_mem_read(d, 0, 0, 0x80100000u, &v, 4);
	CHECK(r == 0, "read of a sound tile: %s", wse_strerror(r));
	r = wse_mem_read(d, 1, 0, 0x80100000u, &v, 4);
	CHECK(r == WSE_ERROR_TIMEOUT, "read of the broken tile: %s", wse_strerror(r));
	r = wse_ping(d, "alive", 5);
	CHECK(r == 0, "ping after a management time-out: %s", wse_strerror(r));
	r = wse_mem_read(d, 0, 0, 0x80100000u, &v, 4);
	CHECK(r == WSE_ERROR_TIMEOUT, "read behind the lost access: %s", wse_strerror(r));
	struct wse_link_stats st = {.size = sizeof(st)};
	wse_get_link_stats(d, &st);
	CHECK(st.timeouts == 0, "%llu host-side time-outs", (unsigned long long)st.timeouts);
	wse_close(d);
}

/* ---- a simulator that dies ------------------------------------------------ */

static void test_killed(void)
{
	char path[128], uri[160];
	pid_t pid = spawn_sim(path, sizeof(path));
	snprintf(uri, sizeof(uri), "sim:attach=%s", path);
	wse_device *d;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 3000};
	int r = wse_open(&d, uri, &o);
	CHECK(r == 0, "attach: %s", wse_strerror(r));
	if (r)
		return;
	/* A second host is refused. */
	wse_device *d2;
	r = wse_open(&d2, uri, &o);
	CHECK(r == WSE_ERROR_BUSY, "second host: %d", r);
	if (!r)
		wse_close(d2);
	CHECK(wse_ping(d, "x", 1) == 0, "ping");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	long long t0 = now_ms();
	uint32_t v;
	r = wse_mem_read(d, 0, 0, 0x80100000u, &v, 4);
	CHECK(r < 0, "read from a dead simulator: %d", r);
	r = wse_ping(d, "x", 1);
	CHECK(r == WSE_ERROR_NO_DEVICE, "ping a dead simulator: %d (%s)", r, wse_strerror(r));
	CHECK(now_ms() - t0 < 8000, "errors took %lld ms", now_ms() - t0);
	wse_close(d);
	unlink(path);
}

/* A stream-out waiting for wavelets when the device goes away: the
 * transfer completes with NO_DEVICE, as does the next request, and the
 * device closes. The bound is generous: it checks that nothing waits for
 * the transfer's own time-out (60 s), not a speed. */
struct unplug_done {
	volatile int status;
	volatile long long at;
};
static void unplug_cb(wse_transfer *x, int status, size_t actual, void *user)
{
	struct unplug_done *u = user;
	(void)x, (void)actual;
	u->at = now_ms();
	u->status = status;
}
static void test_unplug(const char *cmd)
{
	wse_device *d;
	struct wse_open_opts oo = {.size = sizeof(oo), .timeout_ms = 60000, .open_timeout_ms = 60000};
	int r = wse_open(&d, dev_uri, &oo);
	CHECK(r == 0, "open %s: %s", dev_uri, wse_strerror(r));
	if (r)
		return;
	uint64_t buf[16];
	struct unplug_done u = {.status = 1, .at = 0};
	wse_transfer *x = NULL;
	r = wse_stream_out_async(d, 1, 0, buf, 16, 60000, unplug_cb, &u, &x);
	CHECK(r == 0, "stream-out submit: %s", wse_strerror(r));
	if (r) {
		wse_close(d);
		return;
	}
	int rc = system(cmd);
	long long gone = now_ms();
	CHECK(rc == 0, "unplug command '%s' exited %d", cmd, rc);
	while (u.status == 1 && now_ms() - gone < 5000)
		usleep(1000);
	CHECK(u.status == WSE_ERROR_NO_DEVICE, "pending stream-out after the unplug: %s",
	      u.status == 1 ? "still pending after 5 s" : wse_strerror(u.status));
	if (u.status != 1)
		printf("e2e: the pending transfer failed %s the unplug command returned (%lld ms)\n",
		       u.at <= gone ? "before" : "after", u.at - gone);
	r = wse_ping(d, "gone?", 5);
	CHECK(r == WSE_ERROR_NO_DEVICE, "PING after the unplug: %s", wse_strerror(r));
	wse_close(d);
	if (u.status != 1)
		CHECK(wse_transfer_free(x) == 0, "free the failed transfer");
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[4], "--uri")) {
		board = argv[1];
		cols = (unsigned)atoi(argv[2]);
		rows = (unsigned)atoi(argv[3]);
		dev_uri = argv[5];
		signal(SIGPIPE, SIG_IGN);
		test_info_mem_stream();
		printf("e2e: %s on %s info/memory/stream/range: %s\n", board, dev_uri, fails ? "FAIL" : "ok");
		if (argc >= 8 && !strcmp(argv[6], "--unplug")) {
			test_unplug(argv[7]);
			printf("e2e: %s on %s unplug: %s\n", board, dev_uri, fails ? "FAIL" : "ok");
		}
		printf("e2e: %s on %s %s\n", board, dev_uri, fails ? "FAIL" : "PASS");
		return fails ? 1 : 0;
	}
	if (argc < 4 || (argc > 5 && strcmp(argv[5], "rtl") && strcmp(argv[5], "fast"))) {
		fprintf(stderr, "usage: e2e BOARD COLS ROWS [MUTATIONS [rtl|fast]]\n"
				"       e2e BOARD COLS ROWS --uri URI [--unplug CMD]\n");
		return 2;
	}
	fast = argc > 5 && !strcmp(argv[5], "fast");
	signal(SIGPIPE, SIG_IGN);
	board = argv[1];
	cols = (unsigned)atoi(argv[2]);
	rows = (unsigned)atoi(argv[3]);
	unsigned muts = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	long long t0 = now_ms();
	test_info_mem_stream();
	printf("e2e: %s info/memory/stream/range: %s (%.1f s)\n", board, fails ? "FAIL" : "ok",
	       (now_ms() - t0) / 1000.0);
	test_killed();
	printf("e2e: %s killed simulator: %s\n", board, fails ? "FAIL" : "ok");
	if (muts) {
		test_mutations(muts);
		if (!fast) { /* a fault of the RTL model's management node */
			test_mgmt_timeout();
			printf("e2e: %s management time-out: %s\n", board, fails ? "FAIL" : "ok");
		}
	}
	printf("e2e: %s (%s model) %s\n", board, fast ? "functional" : "RTL", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_pipe: the device's stream path with two STREAM_IN requests in
 * flight (docs/wsemu-sim.md), as a host that pipelines its requests would
 * drive it; libwsehost itself sends one at a time (bench_link).
 *
 *   bench_pipe SOCKET COLUMNS ROWS INFLIGHT [WAVELETS]
 *
 * Speaks the protocol with libwsehost's codec over a running wsemu-sim's
 * socket: routes color 3 west to east along rows 0..ROWS-1, grants the
 * east ports their credits, streams WAVELETS (split evenly over the rows)
 * in full packets with INFLIGHT requests outstanding, and waits for all of
 * them at the east ports. Prints wavelets per cycle per port (device
 * cycles from tile (0,0)'s mcycle).
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "wsemu/wse_codec.h"
#include "wsehost.h"
#include "wsemu/wse_wire.h"

static int fd;
static struct wse_rx rx;
static uint32_t next_tag = 1;
static uint64_t got_out;
static uint8_t last_pl[4096];

static void sendall(const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0) { perror("send"); exit(1); }
		p += k; n -= (size_t)k;
	}
}
static uint32_t req(uint8_t op, const void *pl, uint32_t len)
{
	static uint8_t fr[4096 + 64];
	struct wse_pkt p = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .opcode = op,
			    .tag = next_tag++, .length = len};
	int n = wse_pkt_encode(fr, sizeof(fr), &p, pl);
	if (n <= 0) { fprintf(stderr, "encode\n"); exit(1); }
	sendall(fr, (size_t)n);
	return p.tag;
}
/* Pump until tag answered (tag 0: until got_out >= want). */
static void pump(uint32_t tag, uint64_t want)
{
	for (;;) {
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&rx, &p)) != 0) {
			if (r != 1) continue;
			if ((p.flags & WSE_FLAG_EVENT) && p.opcode == WSE_OP_STREAM_OUT) {
				size_t off = 0;
				while (off + 8 <= p.length) {
					uint32_t c; memcpy(&c, p.payload + off + 4, 4);
					got_out += c; off += 8 + 8 * (size_t)c;
				}
			} else if ((p.flags & WSE_FLAG_RESPONSE) && p.tag == tag) {
				if (p.status) { fprintf(stderr, "status %u tag %u\n", p.status, tag); exit(1); }
				memcpy(last_pl, p.payload, p.length);
				return;
			}
		}
		if (!tag && got_out >= want) return;
		struct pollfd pf = {fd, POLLIN, 0};
		if (poll(&pf, 1, 30000) <= 0) { fprintf(stderr, "timeout\n"); exit(1); }
		size_t av; uint8_t *sp = wse_rx_space(&rx, &av);
		ssize_t k = recv(fd, sp, av, 0);
		if (k <= 0) { fprintf(stderr, "recv\n"); exit(1); }
		wse_rx_commit(&rx, (size_t)k);
	}
}
static uint32_t csr(uint32_t a)
{
	uint8_t pl[12] = {0};
	uint32_t one = 1;
	memcpy(pl + 4, &a, 4); memcpy(pl + 8, &one, 4);
	pump(req(WSE_OP_CSR_READ, pl, 12), 0);
	uint32_t v; memcpy(&v, last_pl, 4); return v;
}
static uint64_t cycles(void)
{
	uint32_t hi = csr(0xB80), lo = csr(0xB00), hi2 = csr(0xB80);
	if (hi != hi2) lo = csr(0xB00);
	return (uint64_t)hi2 << 32 | lo;
}
static void route(unsigned x, unsigned y, unsigned color, uint32_t e)
{
	uint8_t pl[16] = {0};
	uint32_t one = 1;
	pl[0] = (uint8_t)x; pl[1] = (uint8_t)y;
	memcpy(pl + 4, &color, 4); memcpy(pl + 8, &one, 4); memcpy(pl + 12, &e, 4);
	pump(req(WSE_OP_ROUTE_WRITE, pl, 16), 0);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_pipe SOCKET COLUMNS ROWS INFLIGHT [WAVELETS]\n");
		return 2;
	}
	const char *path = argv[1];
	unsigned ncols = (unsigned)atoi(argv[2]), nrows = (unsigned)atoi(argv[3]);
	unsigned inflight = (unsigned)atoi(argv[4]);
	unsigned n = (argc > 5 ? (unsigned)atoi(argv[5]) : 20000) / nrows;
	if (!nrows || nrows > 64 || !inflight || inflight > 1024 || !n) {
		fprintf(stderr, "bench_pipe: bad arguments\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) { perror("connect"); return 1; }
	wse_rx_init(&rx, WSE_PROTO_MAX_PAYLOAD);
	for (unsigned y = 0; y < nrows; y++)
		for (unsigned x = 0; x < ncols; x++)
			route(x, y, 3, (1u << 3) << 8 | (1u << 1));
	const unsigned per = (4096 / 8 - 1) / nrows - 1;
	uint64_t c0 = cycles();
	for (unsigned y = 0; y < nrows; y++) {
		uint8_t g[8] = {(uint8_t)(0x80 + y), 0, 0, 0};
		memcpy(g + 4, &n, 4);
		pump(req(WSE_OP_STREAM_CREDIT, g, 8), 0);
	}
	/* Tags of the requests sent, answered in order. */
	static uint32_t tags[65536];
	unsigned nt = 0, done = 0;
	static uint8_t pl[4096];
	for (unsigned off = 0; off < n; off += per) {
		unsigned k = n - off < per ? n - off : per;
		size_t o = 0;
		for (unsigned y = 0; y < nrows; y++) {
			uint64_t wv[512];
			for (unsigned i = 0; i < k; i++) wv[i] = wse_wavelet(off + i, 3, 0);
			wse_chunk_append(pl, sizeof(pl), &o, (uint8_t)y, wv, k);
		}
		if (nt - done >= inflight) pump(tags[done++], 0);
		tags[nt++] = req(WSE_OP_STREAM_IN, pl, (uint32_t)o);
	}
	while (done < nt) pump(tags[done++], 0);
	pump(0, (uint64_t)n * nrows);
	uint64_t c1 = cycles();
	printf("BENCH link.stream_rate_%s_%uinflight %.4f\n", nrows == 1 ? "one" : "all_west",
	       inflight, (double)n / (double)(c1 - c0));
	printf("BENCH link.stream_cycles_%s_%uinflight %llu wavelets=%u\n",
	       nrows == 1 ? "one" : "all_west", inflight, (unsigned long long)(c1 - c0), n * nrows);
	return 0;
}

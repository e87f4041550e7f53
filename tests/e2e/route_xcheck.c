/* SPDX-License-Identifier: Apache-2.0 */
/*
 * route_xcheck: random routes and streams on the RTL model (wsemu-sim) and
 * the functional model (wsemu-fast) of one board, through libwsehost,
 * compared wavelet for wavelet (docs/wsemu-fast.md).
 *
 *   route_xcheck BOARD SEED [SEED...]
 *
 * Per seed: random flows, each a color of its own entering at a west or
 * east edge port and leaving at an edge port of the other side, routed
 * monotonically (along its row, one turn north or south in a random
 * column, along the destination row: no channel cycle, so no deadlock
 * while the outlets drain), some forking at the turn into a second
 * destination (multicast); a few colors with no route at all (dropped at
 * the edge router). The same stream of random wavelets (control bits
 * included) goes into both devices. Compared: every edge port's output
 * (each color's wavelets in order), against the flows' expectation and
 * between the two models, and every tile's forwarded and dropped
 * counters. A difference names the seed, the port or tile, and both values.
 * $WSEMU_SIM and $WSEMU_FAST name the models. Exit 0 all equal, 1 not.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"
#include "wsemu/wse_wire.h"

#define MAX_FLOWS 12
#define PER_FLOW 150

static uint64_t rng;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

struct flow {
	unsigned color, src_edge, src_row, turn_x, dst_row;
	int fork; /* also straight on along the source row */
	uint64_t w[PER_FLOW];
};

/* The tiles' route entries of a flow: rx bit of the port it arrives by,
 * tx bits of the ports it leaves by (N=0 E=1 S=2 W=3). */
static void route_flow(const struct flow *f, unsigned cols, uint32_t *tab /* [y][x][c] */,
		       unsigned rows)
{
	unsigned fwd = f->src_edge == WSE_WEST ? 1 : 3, back = f->src_edge == WSE_WEST ? 3 : 1;
	unsigned vert = f->dst_row > f->src_row ? 2 : 0, vert_in = vert == 2 ? 0 : 2;
	(void)rows;
#define ENTRY(x, y) tab[((y) * cols + (x)) * 32 + f->color]
	/* along the source row up to the turn column (x counted from the
	 * source edge) */
	for (unsigned k = 0; k < cols; k++) {
		unsigned x = f->src_edge == WSE_WEST ? k : cols - 1 - k;
		unsigned y = f->src_row;
		if (k < f->turn_x) {
			ENTRY(x, y) = (1u << back) << 8 | 1u << fwd;
		} else if (k == f->turn_x) {
			uint32_t tx = f->dst_row != f->src_row ? 1u << vert : 1u << fwd;
			if (f->fork && f->dst_row != f->src_row)
				tx |= 1u << fwd;
			ENTRY(x, y) = (1u << back) << 8 | tx;
		} else if (f->fork || f->dst_row == f->src_row) {
			ENTRY(x, y) = (1u << back) << 8 | 1u << fwd;
		}
	}
	if (f->dst_row == f->src_row)
		return;
	unsigned x = f->src_edge == WSE_WEST ? f->turn_x : cols - 1 - f->turn_x;
	for (unsigned y = f->src_row; y != f->dst_row;) {
		y = vert == 2 ? y + 1 : y - 1;
		if (y != f->dst_row)
			ENTRY(x, y) = (1u << vert_in) << 8 | 1u << vert;
		else
			ENTRY(x, y) = (1u << vert_in) << 8 | 1u << fwd;
	}
	for (unsigned k = f->turn_x + 1; k < cols; k++) {
		unsigned xx = f->src_edge == WSE_WEST ? k : cols - 1 - k;
		ENTRY(xx, f->dst_row) = (1u << back) << 8 | 1u << fwd;
	}
#undef ENTRY
}

struct run {
	uint64_t *out[2][64]; /* per edge port, what came out */
	unsigned n[2][64];
	uint32_t cnt[64 * 64][15];
};

static int fails;
#define FAIL(...)                                                      \
	do {                                                           \
		fails++;                                               \
		fprintf(stderr, "route_xcheck: FAIL " __VA_ARGS__);    \
	} while (0)

/* Routes, stream, outputs and counters of one device. */
static int run_on(const char *uri, unsigned cols, unsigned rows, const uint32_t *tab,
		  struct flow *fl, unsigned nf, const unsigned *expect, struct run *out)
{
	wse_device *d;
	struct wse_open_opts oo = {.size = sizeof(oo), .timeout_ms = 120000, .open_timeout_ms = 60000};
	int r = wse_open(&d, uri, &oo);
	if (r) {
		fprintf(stderr, "route_xcheck: open %s: %s\n", uri, wse_strerror(r));
		return r;
	}
	for (unsigned y = 0; y < rows && !r; y++)
		for (unsigned x = 0; x < cols && !r; x++)
			r = wse_route_write(d, x, y, 0, tab + (y * cols + x) * 32, 32);
	for (unsigned e = 0; e < 2 && !r; e++)
		for (unsigned y = 0; y < rows && !r; y++)
			if (expect[e * 64 + y])
				r = wse_stream_credit(d, e, y, expect[e * 64 + y]);
	struct wse_stream_chunk ch[MAX_FLOWS + 4];
	for (unsigned k = 0; k < nf; k++)
		ch[k] = (struct wse_stream_chunk){fl[k].src_edge, fl[k].src_row, fl[k].w, PER_FLOW};
	if (!r)
		r = wse_stream_in(d, ch, nf);
	for (unsigned e = 0; e < 2 && !r; e++)
		for (unsigned y = 0; y < rows && !r; y++) {
			unsigned want = expect[e * 64 + y];
			out->out[e][y] = calloc(want + 1, 8);
			out->n[e][y] = 0;
			while (out->n[e][y] < want) {
				int k = wse_stream_out(d, e, y, out->out[e][y] + out->n[e][y],
						       want - out->n[e][y], 20000);
				if (k <= 0)
					break;
				out->n[e][y] += (unsigned)k;
			}
		}
	for (unsigned t = 0; t < cols * rows && !r; t++) {
		int k = wse_perf_read(d, t % cols, t / cols, out->cnt[t], 15);
		r = k == 15 ? 0 : k < 0 ? k : WSE_ERROR_OTHER;
	}
	if (r)
		fprintf(stderr, "route_xcheck: %s: %s\n", uri, wse_strerror(r));
	wse_close(d);
	return r;
}

static const char *const port_name[5] = {"N", "E", "S", "W", "RAMP"};

static void one_seed(const char *board, unsigned cols, unsigned rows, uint64_t seed)
{
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	struct flow fl[MAX_FLOWS];
	unsigned nf = 2 + rnd() % (MAX_FLOWS - 2);
	static uint32_t tab[64 * 64 * 32];
	memset(tab, 0, sizeof(uint32_t) * cols * rows * 32);
	unsigned expect[128] = {0};
	for (unsigned k = 0; k < nf; k++) {
		struct flow *f = &fl[k];
		f->color = k; /* colors 0..nf-1 routed; nf, nf+1 unrouted */
		f->src_edge = rnd() % 2;
		f->src_row = rnd() % rows;
		f->turn_x = rnd() % cols;
		f->dst_row = rnd() % rows;
		f->fork = rnd() % 3 == 0;
		unsigned dst_edge = 1 - f->src_edge, routed = 0;
		for (unsigned i = 0; i < PER_FLOW; i++) {
			/* every tenth wavelet of a flow an unrouted color: dropped */
			unsigned c = i % 10 == 9 ? nf + (i / 10) % 2 : f->color;
			f->w[i] = wse_wavelet(rnd(), c, rnd() % 8 == 0);
			routed += c == f->color;
		}
		expect[dst_edge * 64 + f->dst_row] += routed;
		if (f->fork && f->dst_row != f->src_row)
			expect[dst_edge * 64 + f->src_row] += routed;
		route_flow(f, cols, tab, rows);
	}
	char u_rtl[64], u_fast[80];
	snprintf(u_rtl, sizeof(u_rtl), "sim:board=%s", board);
	snprintf(u_fast, sizeof(u_fast), "sim:board=%s,model=fast", board);
	static struct run a, b;
	if (run_on(u_rtl, cols, rows, tab, fl, nf, expect, &a) ||
	    run_on(u_fast, cols, rows, tab, fl, nf, expect, &b)) {
		FAIL("seed %llu: a device failed\n", (unsigned long long)seed);
		return;
	}
	unsigned total = 0;
	for (unsigned e = 0; e < 2; e++)
		for (unsigned y = 0; y < rows; y++) {
			unsigned want = expect[e * 64 + y];
			total += want;
			if (a.n[e][y] != want || b.n[e][y] != want)
				FAIL("seed %llu: %s port of row %u: %u wavelets expected, RTL %u, "
				     "functional model %u\n", (unsigned long long)seed, e ? "east" : "west",
				     y, want, a.n[e][y], b.n[e][y]);
			/* per color, the order of the flow's stream */
			for (unsigned k = 0; k < nf; k++) {
				unsigned ia = 0, ib = 0;
				for (unsigned i = 0; i < PER_FLOW; i++) {
					uint64_t w = fl[k].w[i];
					if (((w >> 32) & 31) != fl[k].color)
						continue;
					if (1 - fl[k].src_edge != e ||
					    (fl[k].dst_row != y &&
					     !(fl[k].fork && fl[k].src_row == y && fl[k].dst_row != y)))
						continue;
					while (ia < a.n[e][y] && ((a.out[e][y][ia] >> 32) & 31) != fl[k].color)
						ia++;
					while (ib < b.n[e][y] && ((b.out[e][y][ib] >> 32) & 31) != fl[k].color)
						ib++;
					uint64_t wa = ia < a.n[e][y] ? a.out[e][y][ia++] : ~0ull;
					uint64_t wb = ib < b.n[e][y] ? b.out[e][y][ib++] : ~0ull;
					if (wa != w || wb != w) {
						FAIL("seed %llu: %s port of row %u, color %u, wavelet %u: sent "
						     "%010llx, RTL %010llx, functional model %010llx\n",
						     (unsigned long long)seed, e ? "east" : "west", y,
						     fl[k].color, i, (unsigned long long)w,
						     (unsigned long long)wa, (unsigned long long)wb);
						break;
					}
				}
			}
			free(a.out[e][y]);
			free(b.out[e][y]);
		}
	for (unsigned t = 0; t < cols * rows; t++)
		for (unsigned p = 0; p < 5; p++)
			for (unsigned k = 0; k < 3; k += 2) { /* forwarded, dropped */
				uint32_t va = a.cnt[t][3 * p + k], vb = b.cnt[t][3 * p + k];
				if (va != vb)
					FAIL("seed %llu: tile %u,%u port %s %s: RTL %u, functional model %u\n",
					     (unsigned long long)seed, t % cols, t / cols, port_name[p],
					     k ? "dropped" : "forwarded", va, vb);
			}
	printf("route_xcheck: %s seed %llu: %u flows, %u wavelets out, %s\n", board,
	       (unsigned long long)seed, nf, total, fails ? "FAIL" : "equal");
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: route_xcheck BOARD SEED [SEED...]\n");
		return 2;
	}
	unsigned cols = 0, rows = 0;
	if (sscanf(argv[1], "sim-%ux%u", &cols, &rows) != 2 || !cols || !rows || cols > 64 ||
	    rows > 64) {
		fprintf(stderr, "route_xcheck: board %s is not sim-CxR\n", argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		one_seed(argv[1], cols, rows, strtoull(argv[i], NULL, 0));
	return fails ? 1 : 0;
}

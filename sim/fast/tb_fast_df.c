/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tb_fast_df - dataflow programs on wsemu-fast (docs/wsemu-fast.md), with
 * the command lines of the RTL harnesses:
 *
 *   tb_fast_df PROG.elf [--max-cycles N] [--stats] [--loop SRC:DST]
 *              [--sink C] [--feed C:N] [--feed-gap G] [--latency L]
 *              [--sig FILE] [--dmem FILE] [--quantum N]
 *     one tile with tb_df's model of its router on the RAMP
 *     (tests/dataflow/tb_df.cpp): what the PE sends comes back on the
 *     same color (or DST, or is dropped with --sink) in the same round
 *     (--latency is accepted and ignored), a feed streams N generated wavelets into color C, one per
 *     --feed-gap cycles at most; the router's buffers are unbounded, the
 *     PE's queues bounded by their depth. Exit status 0 pass, 1 failure
 *     code, 2 time-out, 3 usage or load error.
 *
 *   tb_fast_df PROG.elf --mesh ROUTES [--max-cycles N] [--dmem FILE]
 *              [--sig-dir DIR]
 *     the program on every tile of the board (wse_cfg.h), the route
 *     entries of ROUTES ("x y color rx tx" lines; "none": no routes), as
 *     tb_mesh_df; --sig-dir writes each tile's signature to
 *     DIR/tile-X-Y.sig (as tb_mesh's --sig-dir); the
 *     consoles as "[x,y] text" lines, every stream-out wavelet as
 *     "OUT W|E row ctrl color data" lines. Exit status 0 every tile
 *     passed, 1 a tile failed, 2 time-out, 3 setup.
 *
 * --quantum N sets the board's round (wse_fast_board.h; default 32).
 * --sig FILE writes tile (0,0)'s words from begin_signature to
 * end_signature as lines "S:" followed by the word in 8 hex digits, as tb_df
 * does (after a pass).
 * --dmem FILE writes every tile's DMEM as "x y word-address value" lines.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wse_fast_board.h"
#include "wsemu/wse_error.h"
#include "wsf_elf.h"

/* tb_df's router model on the RAMP of one tile. */
struct tb_ramp {
	int loop_to[32];               /* color a sent wavelet comes back on (-1: dropped) */
	uint64_t *wait[32];            /* waiting to enter the PE, per color (unbounded) */
	size_t whead[32], wcount[32], wcap[32];
	unsigned latency; /* accepted for tb_df's command line; the model loops back at once */
	unsigned feed_color, feed_gap;
	uint64_t feed_left, feed_k, feed_next;
	uint64_t sent[32], received[32];
	unsigned rr;
};

static uint32_t tb_feed_value(uint64_t k)
{
	float f = (float)((int)((k * 7u + 3u) % 23u) - 11) * 0.125f;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static int tb_wait_push(struct tb_ramp *h, unsigned c, uint64_t w)
{
	if (h->whead[c] + h->wcount[c] == h->wcap[c]) {
		size_t cap = h->wcap[c] ? 2 * h->wcap[c] : 64;
		uint64_t *nw = malloc(cap * sizeof *nw);
		if (!nw)
			return WSE_ERROR_NO_MEM;
		for (size_t i = 0; i < h->wcount[c]; i++)
			nw[i] = h->wait[c][h->whead[c] + i];
		free(h->wait[c]);
		h->wait[c] = nw;
		h->wcap[c] = cap;
		h->whead[c] = 0;
	}
	h->wait[c][h->whead[c] + h->wcount[c]++] = w;
	return 0;
}

/* The board calls this in every pass of a round (wse_fast_ramp_fn). */
static int tb_ramp_fn(void *ctx, struct wse_fast_df *df, uint64_t now)
{
	struct tb_ramp *h = ctx;
	int moved = 0, r;
	uint64_t w;
	for (unsigned v = 0; v < WSE_FAST_MAX_VC; v++) {
		while (wse_fast_df_out_peek(df, v, &w) == 0) {
			unsigned c = WSE_FAST_WAVELET_COLOR(w);
			if (h->loop_to[c] >= 0 &&
			    (r = tb_wait_push(h, (unsigned)h->loop_to[c],
					      (w & ~(31ull << 32)) | (uint64_t)h->loop_to[c] << 32)) < 0)
				return r;
			h->sent[c]++;
			wse_fast_df_out_pop(df, v);
			moved++;
		}
	}
	while (h->feed_left && now >= h->feed_next && h->wcount[h->feed_color] < 4) {
		if ((r = tb_wait_push(h, h->feed_color,
				      WSE_FAST_WAVELET(0, h->feed_color, tb_feed_value(h->feed_k++)))) < 0)
			return r;
		h->feed_left--;
		h->feed_next = now + h->feed_gap;
		moved++;
		if (h->feed_gap)
			break;
	}
	/* deliver, colors round-robin, while the PE's queues have room */
	for (unsigned i = 0; i < 32; i++) {
		unsigned c = (h->rr + i) % 32;
		uint32_t room;
		if (wse_fast_df_ramp_room(df, c, &room) < 0)
			return WSE_ERROR_OTHER;
		while (room-- && h->wcount[c]) {
			if ((r = wse_fast_df_ramp_push(df, h->wait[c][h->whead[c]])) < 0)
				return r;
			h->whead[c]++;
			h->wcount[c]--;
			h->received[c]++;
			moved++;
			h->rr = c + 1;
		}
	}
	return moved;
}

struct tb_console {
	char *buf;
	size_t n, cap;
};

static void tb_putc(void *ctx, uint8_t c)
{
	struct tb_console *s = ctx;
	if (s->n + 1 >= s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		char *nb = realloc(s->buf, cap);
		if (!nb)
			return;
		s->buf = nb;
		s->cap = cap;
	}
	s->buf[s->n++] = (char)c;
	s->buf[s->n] = 0;
}

static bool tb_outlet(void *ctx, enum wse_fast_edge edge, unsigned row, uint64_t w, uint64_t now)
{
	(void)ctx;
	(void)now;
	printf("OUT %c %u %u %u %08" PRIx32 "\n", edge == WSE_FAST_EDGE_WEST ? 'W' : 'E', row,
	       WSE_FAST_WAVELET_CTRL(w), WSE_FAST_WAVELET_COLOR(w), (uint32_t)w);
	return true;
}

static double tb_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int tb_dump_dmem(struct wse_fast_board *b, unsigned cols, unsigned rows, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	static uint32_t words[WSE_CFG_DMEM_BYTES / 4];
	for (unsigned y = 0; y < rows; y++) {
		for (unsigned x = 0; x < cols; x++) {
			struct wse_fast_tile *t;
			if (wse_fast_board_tile(b, x, y, &t, NULL) != 0 ||
			    wse_fast_tile_mem_read(t, WSE_FAST_DMEM_BASE, words, WSE_CFG_DMEM_BYTES / 4) != 0) {
				fclose(f);
				return -1;
			}
			for (uint32_t i = 0; i < WSE_CFG_DMEM_BYTES / 4; i++)
				fprintf(f, "%u %u %08" PRIx32 " %08" PRIx32 "\n", x, y,
					WSE_FAST_DMEM_BASE + 4 * i, words[i]);
		}
	}
	return fclose(f) == 0 ? 0 : -1;
}

static int tb_routes(struct wse_fast_board *b, const char *path, unsigned *n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	char line[256];
	*n = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned x, y, c, rx, tx;
		if (line[0] == '#' || sscanf(line, "%u %u %u %u %u", &x, &y, &c, &rx, &tx) != 5)
			continue;
		if (wse_fast_board_route(b, x, y, c, rx, tx) != 0) {
			fprintf(stderr, "tb_fast_df: route (%u,%u) color %u invalid\n", x, y, c);
			fclose(f);
			return -1;
		}
		(*n)++;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *elf_path = NULL, *routes = NULL, *dmem = NULL, *sig = NULL, *sig_dir = NULL;
	uint64_t max_cycles = 1000000;
	uint32_t quantum = 0;
	bool stats = false;
	static struct tb_ramp h;
	for (unsigned c = 0; c < 32; c++)
		h.loop_to[c] = (int)c;
	h.latency = 3;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		unsigned s, d;
		unsigned long long n;
		if (!strcmp(a, "--max-cycles") && i + 1 < argc)
			max_cycles = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--quantum") && i + 1 < argc)
			quantum = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--stats"))
			stats = true;
		else if (!strcmp(a, "--mesh") && i + 1 < argc)
			routes = argv[++i];
		else if (!strcmp(a, "--sig") && i + 1 < argc)
			sig = argv[++i];
		else if (!strcmp(a, "--sig-dir") && i + 1 < argc)
			sig_dir = argv[++i];
		else if (!strcmp(a, "--dmem") && i + 1 < argc)
			dmem = argv[++i];
		else if (!strcmp(a, "--loop") && i + 1 < argc) {
			if (sscanf(argv[++i], "%u:%u", &s, &d) == 2 && s < 32 && d < 32)
				h.loop_to[s] = (int)d;
		} else if (!strcmp(a, "--sink") && i + 1 < argc) {
			s = (unsigned)strtoul(argv[++i], NULL, 0);
			if (s < 32)
				h.loop_to[s] = -1;
		} else if (!strcmp(a, "--feed") && i + 1 < argc) {
			if (sscanf(argv[++i], "%u:%llu", &s, &n) == 2 && s < 32) {
				h.feed_color = s;
				h.feed_left = n;
			}
		} else if (!strcmp(a, "--feed-gap") && i + 1 < argc)
			h.feed_gap = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--latency") && i + 1 < argc)
			h.latency = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (a[0] != '-' && !elf_path)
			elf_path = a;
		else {
			fprintf(stderr, "tb_fast_df: unexpected argument %s\n", a);
			return 3;
		}
	}
	if (!elf_path) {
		fprintf(stderr, "usage: tb_fast_df PROG.elf [--mesh ROUTES] [--max-cycles N] [--stats] ...\n");
		return 3;
	}
	struct wsf_elf elf;
	if (wsf_elf_open(&elf, elf_path) != 0) {
		fprintf(stderr, "tb_fast_df: cannot read %s\n", elf_path);
		return 3;
	}
	unsigned cols = routes ? WSE_CFG_NUM_COLS : 1, rows = routes ? WSE_CFG_NUM_ROWS : 1;
	static const uint8_t color_vc[32] = WSE_CFG_COLOR_VC_MAP;
	struct wse_fast_board_cfg cfg = {
		.cols = cols, .rows = rows, .imem_bytes = WSE_CFG_IMEM_BYTES,
		.dmem_bytes = WSE_CFG_DMEM_BYTES, .dmem_banks = WSE_CFG_DMEM_BANKS, .quantum = quantum,
		.df = { .ramp_color_depth = WSE_CFG_RAMP_COLOR_DEPTH, .num_vc = WSE_CFG_NUM_VC,
			.vc_depth = WSE_CFG_VC_DEPTH }
	};
	memcpy(cfg.df.color_vc, color_vc, sizeof color_vc);
	struct wse_fast_board *b;
	if (wse_fast_board_create(&cfg, &b) != 0) {
		fprintf(stderr, "tb_fast_df: cannot create the board\n");
		return 3;
	}
	unsigned nt = cols * rows, nroutes = 0;
	struct tb_console *con = calloc(nt, sizeof *con);
	if (!con)
		return 3;
	for (unsigned i = 0; i < nt; i++) {
		struct wse_fast_tile *t;
		uint32_t bad = 0;
		wse_fast_board_tile(b, i % cols, i / cols, &t, NULL);
		wse_fast_tile_set_console(t, tb_putc, &con[i]);
		if (wsf_elf_load(&elf, t, &bad) != 0) {
			fprintf(stderr, "tb_fast_df: cannot load the program (word 0x%08" PRIx32 ")\n", bad);
			return 3;
		}
	}
	if (routes) {
		if (strcmp(routes, "none") && tb_routes(b, routes, &nroutes) != 0)
			return 3;
		wse_fast_board_set_outlet(b, tb_outlet, NULL);
	} else {
		wse_fast_board_set_ramp(b, 0, 0, tb_ramp_fn, &h);
	}
	for (unsigned i = 0; i < nt; i++) {
		struct wse_fast_tile *t;
		wse_fast_board_tile(b, i % cols, i / cols, &t, NULL);
		wse_fast_tile_set_halt(t, false);
	}
	double t0 = tb_cpu_seconds();
	bool done;
	int r = wse_fast_board_run(b, max_cycles, &done);
	double cpu = tb_cpu_seconds() - t0;
	uint64_t now = 0;
	wse_fast_board_now(b, &now);
	if (r < 0) {
		fprintf(stderr, "tb_fast_df: model error %d\n", r);
		return 3;
	}
	int rc = 0;
	unsigned passed = 0;
	for (unsigned i = 0; i < nt; i++) {
		struct wse_fast_tile *t;
		struct wse_fast_status st;
		wse_fast_board_tile(b, i % cols, i / cols, &t, NULL);
		wse_fast_tile_status(t, &st);
		if (routes) {
			if (con[i].n)
				printf("[%u,%u] %s%s", i % cols, i / cols, con[i].buf,
				       con[i].buf[con[i].n - 1] == '\n' ? "" : "\n");
		} else if (con[i].n) {
			fputs(con[i].buf, stdout);
		}
		const char *who = routes ? "tile " : "";
		if (!st.done) {
			if (routes)
				fprintf(stderr, "tb_fast_df: %s(%u,%u) TIMEOUT\n", who, i % cols, i / cols);
			rc = rc ? rc : 2;
		} else if (st.exit_value != 1) {
			fprintf(stderr, "tb_fast_df: %s(%u,%u) FAIL code %" PRIu32 "\n", who, i % cols,
				i / cols, st.exit_value >> 1);
			rc = 1;
		} else {
			passed++;
		}
	}
	fflush(stdout);
	if (stats || routes)
		fprintf(stderr, "tb_fast_df: %u routes, %" PRIu64 " cycles, %u/%u tiles passed, %.6f s CPU\n",
			nroutes, now, passed, nt, cpu);
	if (stats && !routes)
		for (unsigned c = 0; c < 32; c++)
			if (h.sent[c] || h.received[c])
				fprintf(stderr, "tb_fast_df: color %u: PE sent %" PRIu64 ", PE received %" PRIu64 "\n",
					c, h.sent[c], h.received[c]);
	if (rc == 2 && !routes)
		fprintf(stderr, "tb_fast_df: TIMEOUT after %" PRIu64 " cycles\n", now);
	if (dmem && tb_dump_dmem(b, cols, rows, dmem) != 0)
		rc = 3;
	for (unsigned i = 0; sig_dir && routes && i < nt; i++) {
		struct wse_fast_tile *t;
		char path[4096];
		snprintf(path, sizeof path, "%s/tile-%u-%u.sig", sig_dir, i % cols, i / cols);
		wse_fast_board_tile(b, i % cols, i / cols, &t, NULL);
		if (wsf_elf_signature(&elf, t, path, "tb_fast_df") < 0)
			rc = 3;
	}
	if (sig && rc == 0) {
		struct wse_fast_tile *t;
		wse_fast_board_tile(b, 0, 0, &t, NULL);
		if (wsf_elf_signature(&elf, t, sig, "tb_fast_df") < 0)
			rc = 3;
	}
	wse_fast_board_destroy(b);
	wsf_elf_close(&elf);
	for (unsigned i = 0; i < nt; i++)
		free(con[i].buf);
	free(con);
	for (unsigned c = 0; c < 32; c++)
		free(h.wait[c]);
	return rc;
}

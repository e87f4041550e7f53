/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsectl - command-line control of a wsemu device through libwsehost
 * (docs/wsectl.md).
 *
 *   wsectl [-d URI] info
 *   wsectl [-d URI] run ELF [--tiles all|X,Y[:X,Y...]] [--timeout MS]
 *   wsectl [-d URI] perf
 *   wsectl [-d URI] selftest
 *
 * Exit status: 0 success, 1 failure (a test or a tile failed), 2 usage,
 * 3 device error.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsehost.h"

#define REG_TILE_CTRL 0x4u
#define REG_TILE_STATUS 0x8u
#define CTRL_HALT 0x1u
#define CTRL_CORE_RESET 0x2u
#define CTRL_CNT_CLEAR 0x4u
#define ST_DONE 0x2u
#define ST_FAILED 0x4u

static const char *uri = "sim:board=sim-4x4";
static struct wse_info info;

static int die(const char *what, int r)
{
	fprintf(stderr, "wsectl: %s: %s\n", what, wse_strerror(r));
	return 3;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- ELF32 loading ---------------------------------------------------- */

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

struct seg { uint32_t addr; uint8_t *data; size_t len; };

/* Read the PT_LOAD segments of a little-endian RISC-V ELF32 (memsz, the
 * bytes past filesz zero, rounded up to words). */
static int elf_segments(const char *path, struct seg *segs, int max)
{
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); return -1; }
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(sz > 0 ? (size_t)sz : 1);
	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) { fclose(f); free(buf); return -1; }
	fclose(f);
	int n = -1;
	if (sz < 52 || memcmp(buf, "\177ELF", 4) || buf[4] != 1 || buf[5] != 1 || rd16(buf + 18) != 243) {
		fprintf(stderr, "wsectl: %s: not a little-endian RISC-V ELF32\n", path);
		goto out;
	}
	uint32_t phoff = rd32(buf + 28);
	uint16_t phentsize = rd16(buf + 42), phnum = rd16(buf + 44);
	n = 0;
	for (unsigned i = 0; i < phnum && n < max; i++) {
		const uint8_t *ph = buf + phoff + (size_t)i * phentsize;
		if ((long)(phoff + (size_t)(i + 1) * phentsize) > sz) { n = -1; break; }
		if (rd32(ph) != 1)
			continue;
		uint32_t off = rd32(ph + 4), paddr = rd32(ph + 12), filesz = rd32(ph + 16), memsz = rd32(ph + 20);
		if (!memsz) continue;
		if ((uint64_t)off + filesz > (uint64_t)sz || filesz > memsz) { n = -1; break; }
		size_t len = (memsz + 3u) & ~3u;
		segs[n].addr = paddr & ~3u;
		segs[n].len = len + (paddr & 3u);
		segs[n].data = calloc(1, segs[n].len + 4);
		memcpy(segs[n].data + (paddr & 3u), buf + off, filesz);
		segs[n].len = (segs[n].len + 3u) & ~3u;
		n++;
	}
	if (n < 0) fprintf(stderr, "wsectl: %s: bad program headers\n", path);
out:
	free(buf);
	return n;
}

/* ---- tile selection ----------------------------------------------------- */

static int parse_tiles(const char *s, uint8_t *sel)
{
	unsigned nt = info.columns * info.rows;
	if (!s || !strcmp(s, "all")) {
		memset(sel, 1, nt);
		return 0;
	}
	memset(sel, 0, nt);
	char *dup = strdup(s), *save = NULL;
	for (char *t = strtok_r(dup, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		unsigned x, y;
		if (sscanf(t, "%u,%u", &x, &y) != 2 || x >= info.columns || y >= info.rows) {
			fprintf(stderr, "wsectl: bad tile '%s' (mesh %ux%u)\n", t, info.columns, info.rows);
			free(dup);
			return -1;
		}
		sel[y * info.columns + x] = 1;
	}
	free(dup);
	return 0;
}

/* ---- commands ----------------------------------------------------------- */

static int cmd_info(wse_device *d)
{
	(void)d;
	printf("board:        %s (%s)\n", info.compatible, info.model);
	printf("protocol:     %u.%u, max payload %u, max outstanding %u\n", info.proto_major,
	       info.proto_minor, info.max_payload, info.max_outstanding);
	printf("build:        %s\n", info.build_id);
	printf("mesh:         %u x %u tiles, %u colors (%u user), %u VCs of depth %u\n",
	       info.columns, info.rows, info.colors, info.user_colors, info.num_vc, info.vc_depth);
	printf("tile memory:  IMEM %u bytes, DMEM %u bytes (%u banks)\n", info.imem_bytes,
	       info.dmem_bytes, info.dmem_banks);
	printf("link:         %s, %u bits, %u bytes/cycle, latency %u cycles\n",
	       info.link_compatible, info.link_width_bits, info.link_bytes_per_cycle,
	       info.link_latency_cycles);
	return 0;
}

static void drain_console(wse_device *d)
{
	char buf[4096];
	int n;
	while ((n = wse_console_read(d, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
}

static int cmd_run(wse_device *d, const char *elf, const char *tiles, int timeout_ms)
{
	unsigned nt = info.columns * info.rows;
	uint8_t sel[4096];
	if (parse_tiles(tiles, sel))
		return 2;
	struct seg segs[16];
	int ns = elf_segments(elf, segs, 16);
	if (ns <= 0)
		return 2;
	int all = 1;
	for (unsigned t = 0; t < nt; t++)
		all &= sel[t];
	int r = 0, rc = 0;
	/* Hold the selected cores in reset, load, release. */
	for (unsigned t = 0; t < nt && !r; t++)
		if (sel[t])
			r = wse_reg_write(d, t % info.columns, t / info.columns, REG_TILE_CTRL,
					  CTRL_HALT | CTRL_CORE_RESET);
	for (int i = 0; i < ns && !r; i++) {
		if (all)
			r = wse_mem_write(d, WSE_ALL_TILES, WSE_ALL_TILES, segs[i].addr, segs[i].data, segs[i].len);
		else
			for (unsigned t = 0; t < nt && !r; t++)
				if (sel[t])
					r = wse_mem_write(d, t % info.columns, t / info.columns, segs[i].addr,
							  segs[i].data, segs[i].len);
	}
	for (int i = 0; i < ns; i++)
		free(segs[i].data);
	if (r)
		return die("load", r);
	for (unsigned t = 0; t < nt && !r; t++)
		if (sel[t])
			r = wse_tile_run(d, t % info.columns, t / info.columns);
	if (r)
		return die("run", r);
	/* Wait for every selected tile's DONE. */
	long long end = now_ms() + timeout_ms;
	uint8_t done[4096] = {0};
	unsigned left = 0;
	for (unsigned t = 0; t < nt; t++)
		left += sel[t];
	while (left) {
		for (unsigned t = 0; t < nt && !r; t++) {
			if (!sel[t] || done[t])
				continue;
			uint32_t st;
			r = wse_reg_read(d, t % info.columns, t / info.columns, REG_TILE_STATUS, &st);
			if (!r && (st & ST_DONE)) {
				done[t] = 1;
				left--;
				if (st & ST_FAILED) {
					fprintf(stderr, "wsectl: tile (%u,%u) failed with code %u\n",
						t % info.columns, t / info.columns, st >> 16);
					rc = 1;
				}
			}
		}
		drain_console(d);
		if (r)
			return die("status", r);
		if (left && now_ms() > end) {
			fprintf(stderr, "wsectl: %u tile(s) did not finish within %d ms\n", left, timeout_ms);
			return 1;
		}
	}
	/* Let the last console events arrive. */
	r = wse_ping(d, "", 0);
	drain_console(d);
	return r ? die("ping", r) : rc;
}

static const char *port_name[5] = {"N", "E", "S", "W", "RAMP"};

static int cmd_perf(wse_device *d)
{
	printf("%-7s %-5s %12s %12s %12s\n", "tile", "port", "forwarded", "stalled", "dropped");
	for (unsigned y = 0; y < info.rows; y++)
		for (unsigned x = 0; x < info.columns; x++) {
			uint32_t v[15];
			int r = wse_perf_read(d, x, y, v, 15);
			if (r < 0)
				return die("perf", r);
			for (unsigned p = 0; p < 5; p++) {
				char tn[32];
				snprintf(tn, sizeof(tn), "%u,%u", x, y);
				printf("%-7s %-5s %12u %12u %12u\n", tn, port_name[p], v[3 * p], v[3 * p + 1],
				       v[3 * p + 2]);
			}
		}
	uint32_t h[7];
	int r = wse_perf_read(d, WSE_ALL_TILES, WSE_ALL_TILES, h, 7);
	if (r < 0)
		return die("perf", r);
	printf("host interface: rx %u tx %u resync_bytes %u bad_payload %u refused %u "
	       "stream_in %u stream_out %u\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6]);
	return 0;
}

/* Route color c west to east along row y; a wavelet from the west port
 * leaves at the east port. */
static int route_row(wse_device *d, unsigned y, unsigned c, int on)
{
	uint32_t e = on ? ((1u << 3) << 8) | (1u << 1) : 0; /* rx W, tx E */
	for (unsigned x = 0; x < info.columns; x++) {
		int r = wse_route_write(d, x, y, c, &e, 1);
		if (r)
			return r;
	}
	return 0;
}

static int cmd_selftest(wse_device *d)
{
	int bad = 0, r;
	const unsigned color = 7;
	/* Memory: a pattern per tile in DMEM, read back. */
	for (unsigned y = 0; y < info.rows; y++)
		for (unsigned x = 0; x < info.columns; x++) {
			uint32_t w[64], rb[64];
			for (unsigned i = 0; i < 64; i++)
				w[i] = (i & 1 ? 0xA5A5A5A5u : 0x5A5A5A5Au) ^ (x << 24 | y << 16 | i);
			uint32_t addr = 0x80100000u + info.dmem_bytes - sizeof(w);
			r = wse_mem_write(d, x, y, addr, w, sizeof(w));
			if (!r)
				r = wse_mem_read(d, x, y, addr, rb, sizeof(rb));
			if (r)
				return die("memory", r);
			if (memcmp(w, rb, sizeof(w))) {
				printf("tile %u,%u: memory FAIL\n", x, y);
				bad = 1;
			}
		}
	/* Fabric: one wavelet per row through every router of the row. */
	for (unsigned y = 0; y < info.rows; y++) {
		uint32_t before[64][15];
		for (unsigned x = 0; x < info.columns; x++)
			if ((r = wse_perf_read(d, x, y, before[x], 15)) < 0)
				return die("perf", r);
		if ((r = route_row(d, y, color, 1)))
			return die("route", r);
		uint64_t wv = ((uint64_t)color << 32) | (0xC0DE0000u | y), got = 0;
		struct wse_stream_chunk c = {WSE_WEST, y, &wv, 1};
		if ((r = wse_stream_credit(d, WSE_EAST, y, 1)) || (r = wse_stream_in(d, &c, 1)))
			return die("stream", r);
		int n = wse_stream_out(d, WSE_EAST, y, &got, 1, 2000);
		route_row(d, y, color, 0);
		if (n == 1 && got == wv)
			continue;
		/* Name the first tile of the row whose east output did not move. */
		for (unsigned x = 0; x < info.columns; x++) {
			uint32_t after[15];
			if ((r = wse_perf_read(d, x, y, after, 15)) < 0)
				return die("perf", r);
			if (after[3] == before[x][3]) {
				printf("tile %u,%u: router FAIL (wavelet did not leave east)\n", x, y);
				break;
			}
		}
		bad = 1;
	}
	printf("selftest: %s (%u tiles)\n", bad ? "FAIL" : "PASS", info.columns * info.rows);
	return bad;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wsectl [-d URI] info | run ELF [--tiles all|X,Y[:X,Y...]] [--timeout MS]\n"
		"              | perf | selftest\n"
		"  URI default sim:board=sim-4x4 (or $WSE_DEVICE)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int i = 1;
	if (getenv("WSE_DEVICE"))
		uri = getenv("WSE_DEVICE");
	if (i + 1 < argc && !strcmp(argv[i], "-d")) {
		uri = argv[i + 1];
		i += 2;
	}
	if (i >= argc)
		usage();
	const char *cmd = argv[i++];
	const char *elf = NULL, *tiles = "all";
	int timeout_ms = 60000;
	if (!strcmp(cmd, "run")) {
		if (i >= argc)
			usage();
		elf = argv[i++];
		for (; i < argc; i++) {
			if (!strcmp(argv[i], "--tiles") && i + 1 < argc)
				tiles = argv[++i];
			else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
				timeout_ms = atoi(argv[++i]);
			else
				usage();
		}
	} else if (strcmp(cmd, "info") && strcmp(cmd, "perf") && strcmp(cmd, "selftest")) {
		usage();
	} else if (i != argc) {
		usage();
	}
	wse_device *d;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 60000, .open_timeout_ms = 60000};
	int r = wse_open(&d, uri, &o);
	if (r)
		return die(uri, r);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if ((r = wse_get_info(d, &info))) {
		wse_close(d);
		return die("info", r);
	}
	int rc;
	if (!strcmp(cmd, "info"))
		rc = cmd_info(d);
	else if (!strcmp(cmd, "run"))
		rc = cmd_run(d, elf, tiles, timeout_ms);
	else if (!strcmp(cmd, "perf"))
		rc = cmd_perf(d);
	else
		rc = cmd_selftest(d);
	wse_close(d);
	return rc;
}

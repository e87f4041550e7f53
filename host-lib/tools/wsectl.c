/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsectl - command-line control of a wsemu device through libwsehost
 * (docs/wsectl.md).
 *
 *   wsectl [-d URI] [-t MS] [trace FILE.fst] COMMAND [+ COMMAND]...
 *   COMMAND: info
 *            run ELF [--tiles all|X,Y[:X,Y...]] [--timeout MS]
 *            perf [--svg FILE]
 *            mem X,Y ADDR [WORDS]
 *            selftest
 *            flash IMAGE | flash --read-back FILE
 *
 * Exit status: 0 success, 1 failure (a test or a tile failed), 2 usage,
 * 3 device error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsehost.h"
#include "wsemu/wse_regs.h"
#include "wsemu/wse_wire.h"


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

/* ---- ELF image ---------------------------------------------------------- */

/* The whole file, for wse_load_elf(); NULL (message printed) on failure. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); return NULL; }
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(sz > 0 ? (size_t)sz : 1);
	if (!buf || sz < 0 || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "wsectl: %s: cannot read\n", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = sz > 0 ? (size_t)sz : 0;
	return buf;
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

/* ---- flash -------------------------------------------------------------- */

static const char *const slot_name[2] = {"golden", "update"};

static void print_slot(const struct wse_flash_slots *s, int i)
{
	const struct wse_flash_slot_info *si = &s->slot[i];
	printf("slot %s:  0x%08x, %u bytes: ", slot_name[i], si->offset, si->size);
	if (!si->valid) {
		printf("no valid image: %s\n", si->reason);
		return;
	}
	printf("image for %s, %u bytes, CRC-32C 0x%08x%s\n", si->compatible, si->length,
	       si->crc, s->boot_slot == i ? ", boots" : "");
	for (unsigned k = 0; k < si->nparts; k++)
		printf("  %-10s version %-10u CRC-32C 0x%08x %8u bytes  %s\n", si->parts[k].name,
		       si->parts[k].version, si->parts[k].crc, si->parts[k].length,
		       si->parts[k].build_id);
}

/* A jump of the flash: where it leads (slot: the slot that boots by it,
 * or -1). */
static void print_jump(const char *what, int state, uint32_t addr, int slot)
{
	if (state == 0)
		printf("%s erased\n", what);
	else if (state < 0)
		printf("%s not a jump (torn or foreign bytes)\n", what);
	else if (slot >= 0)
		printf("%s jump to 0x%06x, the %s slot's bitstream\n", what, addr, slot_name[slot]);
	else
		printf("%s jump to 0x%06x\n", what, addr);
}

/* The slots of the board's flash, and which one boots. */
static int flash_info(wse_device *d)
{
	struct wse_flash_slots s = {.size = sizeof(s)};
	int r = wse_flash_slots(d, &s);
	if (r == WSE_ERROR_NOT_SUPPORTED) {
		printf("flash:        none\n");
		return 0;
	}
	if (r)
		return die("flash", r);
	printf("flash:        %u bytes, ", s.flash_bytes);
	if (s.records)
		printf("boot record %u names the %s slot\n", s.record_seq,
		       slot_name[s.record_slot]);
	else
		printf("no boot record\n");
	print_jump("boot stub:   ", s.stub, s.stub_addr, s.stub_slot);
	print_jump("fallback:    ", s.fallback, s.fallback_addr, s.fallback_slot);
	for (int i = 0; i < 2; i++)
		print_slot(&s, i);
	if (s.boot_slot < 0)
		printf("boots:        nothing (no jump leads to a valid image)\n");
	else
		printf("boots:        %s slot, %u bytes, CRC-32C 0x%08x\n", slot_name[s.boot_slot],
		       s.slot[s.boot_slot].length, s.slot[s.boot_slot].crc);
	return 0;
}

static void flash_progress(void *user, const char *step, uint64_t done, uint64_t total)
{
	(void)user;
	if (done == total)
		fprintf(stderr, "wsectl: flash: %s: %llu bytes\n", step, (unsigned long long)total);
}

static int cmd_flash(wse_device *d, const char *image, const char *read_back)
{
	int r;
	if (read_back) {
		int n = wse_flash_read_image(d, -1, NULL, 0);
		if (n < 0)
			return die("flash --read-back", n);
		uint8_t *buf = malloc((size_t)n);
		if (!buf)
			return die("flash --read-back", WSE_ERROR_NO_MEM);
		r = wse_flash_read_image(d, -1, buf, (size_t)n);
		FILE *f = r == n ? fopen(read_back, "wb") : NULL;
		if (r != n || !f || fwrite(buf, 1, (size_t)n, f) != (size_t)n || fclose(f)) {
			free(buf);
			return r < 0 ? die("flash --read-back", r) : die(read_back, WSE_ERROR_IO);
		}
		free(buf);
		fprintf(stderr, "wsectl: flash: %d bytes of the booting image written to %s\n", n,
			read_back);
		return 0;
	}
	size_t len;
	uint8_t *img = read_file(image, &len);
	if (!img)
		return 3;
	char err[256];
	r = wse_flash_update(d, img, len, flash_progress, NULL, err, sizeof(err));
	free(img);
	if (r) {
		fprintf(stderr, "wsectl: flash %s: %s (%s)\n", image, err, wse_error_name(r));
		return 3;
	}
	fprintf(stderr, "wsectl: flash: %s written to the update slot, which boots\n", image);
	return 0;
}

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
	return flash_info(d);
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
	size_t ilen;
	uint8_t *img = read_file(elf, &ilen);
	if (!img)
		return 2;
	int all = 1;
	for (unsigned t = 0; t < nt; t++)
		all &= sel[t];
	int r = 0, rc = 0;
	/* Hold the selected cores in reset, load, release. */
	for (unsigned t = 0; t < nt && !r; t++)
		if (sel[t])
			r = wse_reg_write(d, t % info.columns, t / info.columns, WSE_REG_TILE_CTRL,
					  WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET);
	if (!r && all)
		r = wse_load_elf(d, WSE_ALL_TILES, WSE_ALL_TILES, img, ilen);
	for (unsigned t = 0; t < nt && !r && !all; t++)
		if (sel[t])
			r = wse_load_elf(d, t % info.columns, t / info.columns, img, ilen);
	free(img);
	if (r == WSE_ERROR_MALFORMED || r == WSE_ERROR_RANGE) {
		fprintf(stderr, "wsectl: %s: %s\n", elf,
			r == WSE_ERROR_RANGE ? "a segment lies outside the tile's memories"
					     : "not a little-endian RISC-V ELF32, or its headers are damaged");
		return 2;
	}
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
			r = wse_reg_read(d, t % info.columns, t / info.columns, WSE_REG_TILE_STATUS, &st);
			if (!r && (st & WSE_TILE_STATUS_DONE)) {
				done[t] = 1;
				left--;
				if (st & WSE_TILE_STATUS_FAILED) {
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

/* ---- selftest ------------------------------------------------------------ */

static const char *dir_name[4] = {"north", "east", "south", "west"};

/* One hop of a fabric test path: tile (x,y) takes the wavelet on port rx
 * and sends it out of port tx. */
struct hop { unsigned x, y, rx, tx; };

/* A path from an edge port through the mesh to an edge port: along row y
 * from the west edge (dir E) or the east edge (dir W), or down (S) or up
 * (N) column x, entering on the west port of the first row and leaving on
 * the east port of the last. Returns the number of hops. */
static unsigned make_path(struct hop *h, unsigned dir, unsigned x, unsigned y,
			  unsigned *in_edge, unsigned *in_row, unsigned *out_edge, unsigned *out_row)
{
	unsigned n = 0, C = info.columns, R = info.rows;
	if (dir == WSE_PORT_EAST || dir == WSE_PORT_WEST) {
		for (unsigned i = 0; i < C; i++) {
			unsigned xx = dir == WSE_PORT_EAST ? i : C - 1 - i;
			h[n++] = (struct hop){xx, y, dir ^ 2, dir};
		}
		*in_edge = dir == WSE_PORT_EAST ? WSE_WEST : WSE_EAST;
		*out_edge = !*in_edge;
		*in_row = *out_row = y;
		return n;
	}
	unsigned y0 = dir == WSE_PORT_SOUTH ? 0 : R - 1, y1 = R - 1 - y0;
	for (unsigned i = 0; i < x; i++)
		h[n++] = (struct hop){i, y0, WSE_PORT_WEST, WSE_PORT_EAST};
	for (unsigned i = 0; i < R; i++) {
		unsigned yy = dir == WSE_PORT_SOUTH ? i : R - 1 - i;
		h[n++] = (struct hop){x, yy, i ? dir ^ 2 : WSE_PORT_WEST, i == R - 1 ? WSE_PORT_EAST : dir};
	}
	for (unsigned i = x + 1; i < C; i++)
		h[n++] = (struct hop){i, y1, WSE_PORT_WEST, WSE_PORT_EAST};
	*in_edge = WSE_WEST;
	*out_edge = WSE_EAST;
	*in_row = y0;
	*out_row = y1;
	return n;
}

static int set_path_routes(wse_device *d, const struct hop *h, unsigned n, unsigned c, int on)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t e = on ? (1u << h[i].rx) << 8 | 1u << h[i].tx : 0;
		int r = wse_route_write(d, h[i].x, h[i].y, c, &e, 1);
		if (r)
			return r;
	}
	return 0;
}

/* Failures are printed once each (a broken link fails every path over it). */
static char reported[64][160];
static unsigned n_reported;

static void report(const char *msg)
{
	for (unsigned i = 0; i < n_reported; i++)
		if (!strcmp(reported[i], msg))
			return;
	if (n_reported < 64)
		snprintf(reported[n_reported++], sizeof(reported[0]), "%s", msg);
	printf("%s\n", msg);
}

/* Send one wavelet along the path; on failure name the first hop whose
 * output did not move (its forwarded counter) or the link before it.
 * Returns 1 on failure, 0 on success, a negative error. */
static int fabric_path(wse_device *d, unsigned dir, unsigned x, unsigned y, unsigned seq)
{
	const unsigned color = 7;
	struct hop h[256];
	unsigned ie, ir, oe, orow;
	unsigned n = make_path(h, dir, x, y, &ie, &ir, &oe, &orow);
	uint32_t before[256];
	int r;
	for (unsigned i = 0; i < n; i++) {
		uint32_t v[15];
		if ((r = wse_perf_read(d, h[i].x, h[i].y, v, 15)) < 0)
			return r;
		before[i] = v[3 * h[i].tx];
	}
	if ((r = set_path_routes(d, h, n, color, 1)))
		return r;
	uint64_t wv = ((uint64_t)color << 32) | (0xC0DE0000u | (seq & 0xFFFF)), got = 0;
	struct wse_stream_chunk c = {ie, ir, &wv, 1};
	if ((r = wse_stream_credit(d, oe, orow, 1)) || (r = wse_stream_in(d, &c, 1)))
		return r;
	int nr = wse_stream_out(d, oe, orow, &got, 1, 1000);
	if (nr == 1 && got == wv)
		return set_path_routes(d, h, n, color, 0);
	char msg[160];
	unsigned i;
	for (i = 0; i < n; i++) {
		uint32_t v[15];
		if ((r = wse_perf_read(d, h[i].x, h[i].y, v, 15)) < 0)
			return r;
		if (v[3 * h[i].tx] == before[i])
			break;
	}
	if (i == 0)
		snprintf(msg, sizeof(msg), "tile %u,%u: router FAIL (a wavelet in from the %s was not sent %s)",
			 h[0].x, h[0].y, dir_name[h[0].rx], dir_name[h[0].tx]);
	else if (i < n)
		snprintf(msg, sizeof(msg), "tile %u,%u: link %s FAIL (a wavelet sent %s did not reach tile %u,%u)",
			 h[i - 1].x, h[i - 1].y, dir_name[h[i - 1].tx], dir_name[h[i - 1].tx], h[i].x, h[i].y);
	else
		snprintf(msg, sizeof(msg), "tile %u,%u: link %s FAIL (a wavelet sent %s did not reach the %s edge port %u)",
			 h[n - 1].x, h[n - 1].y, dir_name[h[n - 1].tx], dir_name[h[n - 1].tx],
			 oe == WSE_EAST ? "east" : "west", orow);
	report(msg);
	/* Start the next path from a clean mesh (queues, credits, routes). */
	r = wse_reset(d);
	return r ? r : 1;
}

/* The core self-test program, assembled here (RV32IM): a march over DMEM
 * from 0x8010_0020 to its end (write a ^ key, check and write the
 * complement, check), then an ALU result at 0x8010_0018, then tohost.
 * key = 0x5A5A5A5A ^ mhartid. Exit code 0 = pass, else 1 + the index of the
 * first DMEM word that read back wrong. */
#define DMEM_BASE 0x80100000u
#define IMEM_BASE 0x80000000u
#define CORE_RESULT (DMEM_BASE + 0x18u)
#define MARCH_START (DMEM_BASE + 0x20u)

enum { ZERO = 0, T0 = 5, T1 = 6, T2 = 7, S0 = 8, A0 = 10, A2 = 12, A3 = 13, A4 = 14, A5 = 15, T3 = 28 };

static uint32_t rv_r(unsigned f7, unsigned rs2, unsigned rs1, unsigned f3, unsigned rd, unsigned op)
{
	return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
static uint32_t rv_i(int32_t imm, unsigned rs1, unsigned f3, unsigned rd, unsigned op)
{
	return ((uint32_t)imm & 0xFFFu) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
static uint32_t rv_s(int32_t imm, unsigned rs2, unsigned rs1, unsigned f3)
{
	uint32_t u = (uint32_t)imm;
	return (u >> 5 & 0x7Fu) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 0x1Fu) << 7 | 0x23u;
}
static uint32_t rv_b(int32_t off, unsigned rs2, unsigned rs1, unsigned f3)
{
	uint32_t u = (uint32_t)off;
	return (u >> 12 & 1u) << 31 | (u >> 5 & 0x3Fu) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       (u >> 1 & 0xFu) << 8 | (u >> 11 & 1u) << 7 | 0x63u;
}
static uint32_t rv_j(int32_t off, unsigned rd)
{
	uint32_t u = (uint32_t)off;
	return (u >> 20 & 1u) << 31 | (u >> 1 & 0x3FFu) << 21 | (u >> 11 & 1u) << 20 |
	       (u >> 12 & 0xFFu) << 12 | rd << 7 | 0x6Fu;
}

struct rv_prog { uint32_t w[64]; unsigned n; unsigned label[8]; };

static void emit(struct rv_prog *p, uint32_t w) { p->w[p->n++] = w; }
static void li(struct rv_prog *p, unsigned rd, uint32_t v)
{
	uint32_t hi = (v + 0x800u) & 0xFFFFF000u;
	emit(p, hi | rd << 7 | 0x37u);                           /* lui */
	if (v - hi)
		emit(p, rv_i((int32_t)(v - hi), rd, 0, rd, 0x13)); /* addi */
}
/* Offset from instruction n to label l (labels from the previous pass). */
static int32_t to(const struct rv_prog *p, unsigned l) { return (int32_t)(p->label[l] - p->n) * 4; }

enum { L1, L2, L3, LFAIL, LEND };

static void core_program(struct rv_prog *p, uint32_t dmem_end)
{
	p->n = 0;
	li(p, T3, DMEM_BASE);
	li(p, T0, MARCH_START);
	li(p, T1, dmem_end);
	li(p, T2, 0x5A5A5A5Au);
	emit(p, rv_i(0xF14, ZERO, 2, S0, 0x73));        /* csrr s0, mhartid */
	emit(p, rv_r(0, S0, T2, 4, T2, 0x33));          /* xor t2, t2, s0 */
	/* Pass 1: mem[a] = a ^ key. */
	emit(p, rv_i(0, T0, 0, A0, 0x13));              /* mv a0, t0 */
	p->label[L1] = p->n;
	emit(p, rv_r(0, T2, A0, 4, A2, 0x33));          /* xor a2, a0, t2 */
	emit(p, rv_s(0, A2, A0, 2));                    /* sw a2, 0(a0) */
	emit(p, rv_i(4, A0, 0, A0, 0x13));              /* addi a0, a0, 4 */
	emit(p, rv_b(to(p, L1), T1, A0, 6));            /* bltu a0, t1, L1 */
	/* Pass 2: check a ^ key, write its complement. */
	emit(p, rv_i(0, T0, 0, A0, 0x13));
	p->label[L2] = p->n;
	emit(p, rv_i(0, A0, 2, A3, 0x03));              /* lw a3, 0(a0) */
	emit(p, rv_r(0, T2, A0, 4, A2, 0x33));
	emit(p, rv_b(to(p, LFAIL), A2, A3, 1));         /* bne a3, a2, fail */
	emit(p, rv_i(-1, A2, 4, A2, 0x13));             /* not a2 */
	emit(p, rv_s(0, A2, A0, 2));
	emit(p, rv_i(4, A0, 0, A0, 0x13));
	emit(p, rv_b(to(p, L2), T1, A0, 6));
	/* Pass 3: check the complement. */
	emit(p, rv_i(0, T0, 0, A0, 0x13));
	p->label[L3] = p->n;
	emit(p, rv_i(0, A0, 2, A3, 0x03));
	emit(p, rv_r(0, T2, A0, 4, A2, 0x33));
	emit(p, rv_i(-1, A2, 4, A2, 0x13));
	emit(p, rv_b(to(p, LFAIL), A2, A3, 1));
	emit(p, rv_i(4, A0, 0, A0, 0x13));
	emit(p, rv_b(to(p, L3), T1, A0, 6));
	/* ALU: key * key + (key >> 3) - mhartid. */
	emit(p, rv_r(1, T2, T2, 0, A4, 0x33));          /* mul a4, t2, t2 */
	emit(p, rv_i(3, T2, 5, A5, 0x13));              /* srli a5, t2, 3 */
	emit(p, rv_r(0, A5, A4, 0, A4, 0x33));          /* add a4, a4, a5 */
	emit(p, rv_r(0x20, S0, A4, 0, A4, 0x33));       /* sub a4, a4, s0 */
	emit(p, rv_s(CORE_RESULT - DMEM_BASE, A4, T3, 2));
	emit(p, rv_i(1, ZERO, 0, A0, 0x13));            /* li a0, 1 */
	emit(p, rv_j(to(p, LEND), ZERO));
	p->label[LFAIL] = p->n;
	emit(p, rv_r(0x20, T3, A0, 0, A0, 0x33));       /* sub a0, a0, t3 */
	emit(p, rv_i(2, A0, 5, A0, 0x13));              /* srli a0, a0, 2 */
	emit(p, rv_i(1, A0, 0, A0, 0x13));              /* addi a0, a0, 1 */
	emit(p, rv_i(1, A0, 1, A0, 0x13));              /* slli a0, a0, 1 */
	emit(p, rv_i(1, A0, 6, A0, 0x13));              /* ori a0, a0, 1 */
	p->label[LEND] = p->n;
	emit(p, rv_s(0, A0, T3, 2));                    /* sw a0, 0(t3): tohost */
	emit(p, rv_s(4, ZERO, T3, 2));                  /* sw zero, 4(t3) */
	emit(p, rv_j(0, ZERO));                         /* j . */
}

static uint32_t core_expected(unsigned x, unsigned y)
{
	uint32_t hart = y << 8 | x, key = 0x5A5A5A5Au ^ hart;
	return key * key + (key >> 3) - hart;
}

/* Run the core self-test on every tile at once. Returns failures or < 0. */
static int core_test(wse_device *d)
{
	struct rv_prog p;
	memset(&p, 0, sizeof(p));
	core_program(&p, DMEM_BASE + info.dmem_bytes);
	core_program(&p, DMEM_BASE + info.dmem_bytes); /* labels known now */
	unsigned nt = info.columns * info.rows, bad = 0;
	int r = wse_reg_write(d, WSE_ALL_TILES, WSE_ALL_TILES, WSE_REG_TILE_CTRL,
			      WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET);
	if (!r)
		r = wse_mem_write(d, WSE_ALL_TILES, WSE_ALL_TILES, IMEM_BASE, p.w, p.n * 4);
	for (unsigned t = 0; t < nt && !r; t++)
		r = wse_tile_run(d, t % info.columns, t / info.columns);
	if (r)
		return r;
	uint8_t done[4096] = {0};
	unsigned left = nt;
	/* About 17 cycles per DMEM word; a simulated 4x4 mesh runs only a few
	 * thousand cycles per second. */
	long long end = now_ms() + 300000;
	while (left && now_ms() < end) {
		for (unsigned t = 0; t < nt; t++) {
			unsigned x = t % info.columns, y = t / info.columns;
			uint32_t st, res;
			if (done[t])
				continue;
			if ((r = wse_reg_read(d, x, y, WSE_REG_TILE_STATUS, &st)))
				return r;
			if (!(st & WSE_TILE_STATUS_DONE))
				continue;
			done[t] = 1;
			left--;
			if (st & WSE_TILE_STATUS_FAILED) {
				printf("tile %u,%u: core FAIL (DMEM word 0x%08x read back wrong)\n", x, y,
				       DMEM_BASE + 4 * ((st >> 16) - 1));
				bad++;
				continue;
			}
			if ((r = wse_mem_read(d, x, y, CORE_RESULT, &res, 4)))
				return r;
			if (res != core_expected(x, y)) {
				printf("tile %u,%u: core FAIL (ALU result 0x%08x, expected 0x%08x)\n", x, y, res,
				       core_expected(x, y));
				bad++;
			}
		}
	}
	for (unsigned t = 0; t < nt; t++)
		if (!done[t]) {
			printf("tile %u,%u: core FAIL (did not finish)\n", t % info.columns, t / info.columns);
			bad++;
		}
	r = wse_reg_write(d, WSE_ALL_TILES, WSE_ALL_TILES, WSE_REG_TILE_CTRL,
			  WSE_TILE_CTRL_HALT | WSE_TILE_CTRL_CORE_RESET);
	return r ? r : (int)bad;
}

static int cmd_selftest(wse_device *d)
{
	int bad = 0, r;
	/* Memory through the management network: a pattern and its complement
	 * in the top 256 bytes of DMEM. */
	for (unsigned y = 0; y < info.rows; y++)
		for (unsigned x = 0; x < info.columns; x++)
			for (unsigned pass = 0; pass < 2; pass++) {
				uint32_t w[64], rb[64];
				for (unsigned i = 0; i < 64; i++)
					w[i] = ((i & 1 ? 0xA5A5A5A5u : 0x5A5A5A5Au) ^ (x << 24 | y << 16 | i)) ^
					       (pass ? 0xFFFFFFFFu : 0);
				uint32_t addr = DMEM_BASE + info.dmem_bytes - sizeof(w);
				r = wse_mem_write(d, x, y, addr, w, sizeof(w));
				if (!r)
					r = wse_mem_read(d, x, y, addr, rb, sizeof(rb));
				if (r)
					return die("memory", r);
				for (unsigned i = 0; i < 64; i++)
					if (w[i] != rb[i]) {
						printf("tile %u,%u: memory FAIL (DMEM word 0x%08x: wrote 0x%08x, read 0x%08x)\n",
						       x, y, addr + 4 * i, w[i], rb[i]);
						bad = 1;
						break;
					}
				if (bad && w[0] != rb[0])
					break;
			}
	/* Fabric: every link in both directions, one wavelet per path. */
	unsigned seq = 0;
	for (unsigned dir = 0; dir < 4; dir++) {
		unsigned n = dir & 1 ? info.rows : info.rows > 1 ? info.columns : 0;
		for (unsigned k = 0; k < n; k++) {
			r = fabric_path(d, dir, dir & 1 ? 0 : k, dir & 1 ? k : 0, seq++);
			if (r < 0)
				return die("fabric", r);
			bad |= r;
		}
	}
	/* Cores: the self-test program on every tile. */
	r = core_test(d);
	if (r < 0)
		return die("core", r);
	bad |= r > 0;
	printf("selftest: %s (%u tiles)\n", bad ? "FAIL" : "PASS", info.columns * info.rows);
	return bad;
}

/* ---- perf --------------------------------------------------------------- */

/* Heat colour of v in [0, max]: white (0) through yellow to red (max). */
static void heat(char *buf, size_t n, uint32_t v, uint32_t max)
{
	double f = max ? (double)v / max : 0;
	unsigned char g = (unsigned char)(f < 0.5 ? 255 - 50 * f : 230 - 400 * (f - 0.5));
	unsigned char b = (unsigned char)(f < 0.5 ? 255 - 510 * f : 0);
	snprintf(buf, n, "#ff%02x%02x", g, b);
}

/* An SVG heatmap of the mesh: one cell per tile (colour: wavelets the tile
 * forwarded, all ports), one bar per link port on the cell's side towards
 * that neighbour (colour: wavelets sent out of that port). */
static int write_svg(const char *path, uint32_t (*v)[15])
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	const unsigned C = info.columns, R = info.rows, cell = 120, gap = 30, m = 40;
	uint32_t tmax = 0, pmax = 0;
	for (unsigned t = 0; t < C * R; t++) {
		uint32_t sum = 0;
		for (unsigned p = 0; p < 5; p++) {
			sum += v[t][3 * p];
			if (p < 4 && v[t][3 * p] > pmax)
				pmax = v[t][3 * p];
		}
		if (sum > tmax)
			tmax = sum;
	}
	unsigned W = 2 * m + C * cell + (C - 1) * gap, H = 2 * m + R * cell + (R - 1) * gap + 30;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "font-family=\"sans-serif\">\n", W, H, W, H);
	fprintf(f, "<title>wsemu %s: wavelets forwarded per tile and link</title>\n", info.compatible);
	fprintf(f, "<rect width=\"%u\" height=\"%u\" fill=\"white\"/>\n", W, H);
	fprintf(f, "<text x=\"%u\" y=\"24\" font-size=\"14\">%s, %ux%u: wavelets forwarded "
		   "(tile max %u, link max %u)</text>\n", m, info.compatible, C, R, tmax, pmax);
	for (unsigned y = 0; y < R; y++)
		for (unsigned x = 0; x < C; x++) {
			const uint32_t *c = v[y * C + x];
			uint32_t sum = 0;
			for (unsigned p = 0; p < 5; p++)
				sum += c[3 * p];
			unsigned x0 = m + x * (cell + gap), y0 = m + 10 + y * (cell + gap);
			char col[16];
			heat(col, sizeof(col), sum, tmax);
			fprintf(f, "<g class=\"tile\" id=\"tile-%u-%u\">\n", x, y);
			fprintf(f, "<title>tile %u,%u: forwarded %u (N %u E %u S %u W %u RAMP %u), stalled %u %u %u %u %u, "
				   "dropped %u %u %u %u %u</title>\n", x, y, sum, c[0], c[3], c[6], c[9], c[12],
				c[1], c[4], c[7], c[10], c[13], c[2], c[5], c[8], c[11], c[14]);
			fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"black\"/>\n",
				x0, y0, cell, cell, col);
			fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"13\" text-anchor=\"middle\">%u,%u</text>\n",
				x0 + cell / 2, y0 + cell / 2 - 4, x, y);
			fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"12\" text-anchor=\"middle\">%u</text>\n",
				x0 + cell / 2, y0 + cell / 2 + 14, sum);
			/* Link bars: N, E, S, W sides. */
			for (unsigned p = 0; p < 4; p++) {
				unsigned bx, by, bw, bh, l = cell / 2, th = 12;
				if (p == WSE_PORT_NORTH || p == WSE_PORT_SOUTH) {
					bx = x0 + cell / 4;
					by = p == WSE_PORT_NORTH ? y0 : y0 + cell - th;
					bw = l;
					bh = th;
				} else {
					bx = p == WSE_PORT_WEST ? x0 : x0 + cell - th;
					by = y0 + cell / 4;
					bw = th;
					bh = l;
				}
				heat(col, sizeof(col), c[3 * p], pmax);
				fprintf(f, "<rect class=\"link\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" "
					   "stroke=\"gray\"><title>tile %u,%u %s: forwarded %u, stalled %u, dropped %u"
					   "</title></rect>\n", bx, by, bw, bh, col, x, y, dir_name[p], c[3 * p],
					c[3 * p + 1], c[3 * p + 2]);
			}
			fprintf(f, "</g>\n");
		}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}

static int cmd_perf(wse_device *d, const char *svg)
{
	unsigned nt = info.columns * info.rows;
	uint32_t (*v)[15] = calloc(nt, sizeof(*v));
	if (!v)
		return 3;
	printf("%-7s %-5s %12s %12s %12s\n", "tile", "port", "forwarded", "stalled", "dropped");
	for (unsigned y = 0; y < info.rows; y++)
		for (unsigned x = 0; x < info.columns; x++) {
			uint32_t *c = v[y * info.columns + x];
			int r = wse_perf_read(d, x, y, c, 15);
			if (r < 0) {
				free(v);
				return die("perf", r);
			}
			for (unsigned p = 0; p < 5; p++) {
				char tn[32];
				snprintf(tn, sizeof(tn), "%u,%u", x, y);
				printf("%-7s %-5s %12u %12u %12u\n", tn, port_name[p], c[3 * p], c[3 * p + 1],
				       c[3 * p + 2]);
			}
		}
	uint32_t h[7];
	int r = wse_perf_read(d, WSE_ALL_TILES, WSE_ALL_TILES, h, 7);
	if (r < 0) {
		free(v);
		return die("perf", r);
	}
	printf("host interface: rx %u tx %u resync_bytes %u bad_payload %u refused %u "
	       "stream_in %u stream_out %u\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6]);
	int rc = svg && write_svg(svg, v) ? 3 : 0;
	free(v);
	return rc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wsectl [-d URI] [-t MS] [trace FILE.fst] COMMAND [+ COMMAND]...\n"
		"  COMMAND: info | run ELF [--tiles all|X,Y[:X,Y...]] [--timeout MS]\n"
		"           | perf [--svg FILE] | selftest | mem X,Y ADDR [WORDS]\n"
		"           | flash IMAGE | flash --read-back FILE\n"
		"  URI default sim:board=sim-4x4 (or $WSE_DEVICE)\n"
		"  MS  how long each request may take, default 60000\n");
	exit(2);
}

struct command {
	const char *name, *elf, *tiles, *svg, *image, *read_back;
	int timeout_ms;
	unsigned x, y, words;  /* mem */
	uint32_t addr;
};

/* ---- mem ---------------------------------------------------------------- */

#define MEM_MAX_WORDS 4096u

/* mem X,Y ADDR WORDS: the words of one tile's memory (IMEM or DMEM, through
 * the management port), one per line as "ADDR: WORD" in hex. */
static int cmd_mem(wse_device *d, const struct command *c)
{
	if (c->x >= info.columns || c->y >= info.rows) {
		fprintf(stderr, "wsectl: mem: no tile %u,%u (mesh %ux%u)\n", c->x, c->y, info.columns,
			info.rows);
		return 2;
	}
	static uint32_t buf[MEM_MAX_WORDS];
	int r = wse_mem_read(d, c->x, c->y, c->addr, buf, (size_t)c->words * 4);
	if (r == WSE_ERROR_RANGE || r == WSE_ERROR_ALIGN) {
		fprintf(stderr, "wsectl: mem: 0x%08x, %u words: %s\n", c->addr, c->words, wse_strerror(r));
		return 2;
	}
	if (r)
		return die("mem", r);
	for (unsigned i = 0; i < c->words; i++)
		printf("%08x: %08x\n", c->addr + 4 * i, buf[i]);
	fflush(stdout);
	return 0;
}

/* The number in s (C syntax: 0x for hex) in [lo, hi], else exit 2 naming what. */
static unsigned long parse_num(const char *s, unsigned long lo, unsigned long hi, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "wsectl: mem: %s '%s' is not a number from %lu to %lu\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

/* Parse one command from argv[i..n); returns the index after it. */
static int parse_command(char **argv, int i, int n, struct command *c)
{
	memset(c, 0, sizeof(*c));
	c->tiles = "all";
	c->timeout_ms = 60000;
	if (i >= n)
		usage();
	c->name = argv[i++];
	if (!strcmp(c->name, "run")) {
		if (i >= n)
			usage();
		c->elf = argv[i++];
		for (; i < n; i++) {
			if (!strcmp(argv[i], "--tiles") && i + 1 < n)
				c->tiles = argv[++i];
			else if (!strcmp(argv[i], "--timeout") && i + 1 < n)
				c->timeout_ms = atoi(argv[++i]);
			else
				usage();
		}
	} else if (!strcmp(c->name, "perf")) {
		for (; i < n; i++) {
			if (!strcmp(argv[i], "--svg") && i + 1 < n)
				c->svg = argv[++i];
			else
				usage();
		}
	} else if (!strcmp(c->name, "mem")) {
		if (i + 2 != n && i + 3 != n)
			usage();
		int used = 0;
		if (sscanf(argv[i], "%u,%u%n", &c->x, &c->y, &used) != 2 || argv[i][used] ||
		    argv[i][0] == '-') {
			fprintf(stderr, "wsectl: mem: bad tile '%s' (X,Y)\n", argv[i]);
			exit(2);
		}
		c->addr = (uint32_t)parse_num(argv[i + 1], 0, 0xffffffffUL, "address");
		c->words = i + 3 == n ? (unsigned)parse_num(argv[i + 2], 1, MEM_MAX_WORDS, "word count") : 1;
		i = n;
	} else if (!strcmp(c->name, "flash")) {
		if (i + 2 == n && !strcmp(argv[i], "--read-back"))
			c->read_back = argv[i + 1];
		else if (i + 1 == n && argv[i][0] != '-')
			c->image = argv[i];
		else
			usage();
		i = n;
	} else if (strcmp(c->name, "info") && strcmp(c->name, "selftest")) {
		usage();
	} else if (i != n) {
		usage();
	}
	return i;
}

/* trace FILE: the simulator libwsehost spawns for sim:board=NAME records an
 * FST waveform of the whole session (wsemu-sim --trace, passed through
 * $WSEMU_SIM_OPTS, which libwsehost hands to the simulator). */
static int setup_trace(const char *file)
{
	if (strncmp(uri, "sim:board=", 10) && strcmp(uri, "sim:") && strcmp(uri, "sim")) {
		fprintf(stderr, "wsectl: trace needs a simulator that wsectl starts (-d sim:board=NAME), "
				"not %s\n", uri);
		return 2;
	}
	char abs[4096];
	if (file[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", file);
	} else {
		char cwd[2048];
		if (!getcwd(cwd, sizeof(cwd))) {
			perror("wsectl: getcwd");
			return 2;
		}
		snprintf(abs, sizeof(abs), "%s/%s", cwd, file);
	}
	if (strpbrk(abs, " \t\n")) {
		fprintf(stderr, "wsectl: trace file name must not contain white space\n");
		return 2;
	}
	const char *old = getenv("WSEMU_SIM_OPTS");
	char opts[8192];
	snprintf(opts, sizeof(opts), "%s%s--trace %s", old ? old : "", old ? " " : "", abs);
	setenv("WSEMU_SIM_OPTS", opts, 1);
	unlink(abs);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;
	if (getenv("WSE_DEVICE"))
		uri = getenv("WSE_DEVICE");
	int req_timeout_ms = 60000;
	while (i + 1 < argc && (!strcmp(argv[i], "-d") || !strcmp(argv[i], "-t"))) {
		if (argv[i][1] == 'd') {
			uri = argv[i + 1];
		} else {
			char *end;
			long ms = strtol(argv[i + 1], &end, 10);
			if (*end || ms <= 0 || ms > 24L * 3600 * 1000) {
				fprintf(stderr, "wsectl: -t %s: not a time-out in milliseconds (1 to 86400000)\n",
					argv[i + 1]);
				return 2;
			}
			req_timeout_ms = (int)ms;
		}
		i += 2;
	}
	const char *trace = NULL;
	if (i < argc && !strcmp(argv[i], "trace")) {
		if (i + 1 >= argc)
			usage();
		trace = argv[i + 1];
		i += 2;
	}
	/* Commands separated by "+", run in order on one device session. */
	struct command cmds[16];
	int ncmd = 0;
	while (i < argc) {
		int e = i;
		while (e < argc && strcmp(argv[e], "+"))
			e++;
		if (ncmd == 16)
			usage();
		parse_command(argv, i, e, &cmds[ncmd++]);
		i = e + 1;
		if (e < argc && i >= argc)
			usage();
	}
	if (!ncmd)
		usage();
	int r;
	if (trace && (r = setup_trace(trace)))
		return r;
	wse_device *d;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = req_timeout_ms,
				   .open_timeout_ms = 60000};
	r = wse_open(&d, uri, &o);
	if (r)
		return die(uri, r);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if ((r = wse_get_info(d, &info))) {
		wse_close(d);
		return die("info", r);
	}
	int rc = 0;
	for (int k = 0; k < ncmd && rc < 2; k++) {
		const struct command *c = &cmds[k];
		int cr;
		if (!strcmp(c->name, "info"))
			cr = cmd_info(d);
		else if (!strcmp(c->name, "run"))
			cr = cmd_run(d, c->elf, c->tiles, c->timeout_ms);
		else if (!strcmp(c->name, "perf"))
			cr = cmd_perf(d, c->svg);
		else if (!strcmp(c->name, "flash"))
			cr = cmd_flash(d, c->image, c->read_back);
		else if (!strcmp(c->name, "mem"))
			cr = cmd_mem(d, c);
		else
			cr = cmd_selftest(d);
		if (cr > rc)
			rc = cr;
	}
	wse_close(d);
	if (trace && !rc)
		fprintf(stderr, "wsectl: trace written to %s\n", trace);
	return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_link: host link figures against wsemu-sim (docs/wsemu-sim.md).
 *
 *   bench_link BOARD SPIN_ELF [WAVELETS [LINK_BYTES_PER_CYCLE]]
 *
 * LINK_BYTES_PER_CYCLE runs the simulator with that link bandwidth instead
 * of the board's (--link-bytes-per-cycle; above 8 bytes the link clock runs
 * faster than the mesh clock); the figures name the bandwidth they ran at.
 * Device cycles are read from tile (0,0)'s mcycle CSR (the mesh clock).
 *   link.stream_rate           wavelets per cycle, host -> west port 0 ->
 *                              row 0 -> east port 0 -> host, all of them in
 *                              one wse_stream_in call (libwsehost cuts it
 *                              into packets and keeps max_outstanding of
 *                              them in flight)
 *   link.stream_rate_all_west  the same with every row fed in the same
 *                              packets, WAVELETS per port, per port
 *   link.stream_rate_sync, link.stream_rate_all_west_sync
 *                              the same with one wse_stream_in call per
 *                              packet, each waited for (one request in
 *                              flight)
 *   link.overhead              wall time of the streaming run beyond the
 *                              time the simulator needs for the same cycles
 *                              with no host traffic (one tile running SPIN_ELF,
 *                              the rest halted), as a fraction of the former
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsehost.h"
#include "wsemu/wse_wire.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static wse_device *d;
static struct wse_info in;

static uint64_t cycles(void)
{
	uint32_t lo = 0, hi = 0, hi2 = 1;
	while (hi != hi2) {
		wse_csr_read(d, 0, 0, 0xB80, &hi);
		wse_csr_read(d, 0, 0, 0xB00, &lo);
		wse_csr_read(d, 0, 0, 0xB80, &hi2);
	}
	return (uint64_t)hi << 32 | lo;
}

static int check(int r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "bench_link: %s: %s\n", what, wse_strerror(r));
		exit(1);
	}
	return r;
}

/* Stream n wavelets into each of nrows west ports, collect them at the
 * east ports; returns device cycles and sets *wall. The wavelets go in
 * pieces of one packet's share per row, rows taking turns (so that every
 * packet feeds all rows): in one wse_stream_in call, or (sync) one call
 * per packet. */
static uint64_t stream(unsigned nrows, unsigned n, int sync, double *wall)
{
	const unsigned color = 3;
	for (unsigned y = 0; y < nrows; y++) {
		for (unsigned x = 0; x < in.columns; x++) {
			uint32_t e = (1u << 3) << 8 | (1u << 1);
			check(wse_route_write(d, x, y, color, &e, 1), "route");
		}
	}
	uint64_t *wv = malloc((size_t)nrows * n * 8), *got = malloc((size_t)n * 8);
	for (unsigned i = 0; i < nrows * n; i++)
		wv[i] = wse_wavelet(i, color, 0);
	/* Wavelets per port per packet: as many as one request holds, each
	 * row's chunk (an 8-byte header and its wavelets) an equal share of
	 * max_payload, so that no packet carries a piece of a row's next
	 * chunk (whose port's lane would then run twice in that packet). */
	const unsigned per = in.max_payload / 8 / nrows - 1;
	double t0 = now_s();
	uint64_t c0 = cycles();
	for (unsigned y = 0; y < nrows; y++)
		check(wse_stream_credit(d, WSE_EAST, y, n), "credit");
	unsigned *have = calloc(nrows, sizeof(unsigned));
	struct wse_stream_chunk *ch = calloc((size_t)(n / per + 1) * nrows, sizeof(*ch));
	size_t nc = 0;
	for (unsigned off = 0; off < n; off += per) {
		unsigned k = n - off < per ? n - off : per;
		for (unsigned y = 0; y < nrows; y++)
			ch[nc++] = (struct wse_stream_chunk){WSE_WEST, y, wv + (size_t)y * n + off, k};
		if (sync) {
			check(wse_stream_in(d, ch, nc), "stream in");
			nc = 0;
		}
	}
	if (nc)
		check(wse_stream_in(d, ch, nc), "stream in");
	free(ch);
	for (unsigned y = 0; y < nrows; y++)
		while (have[y] < n)
			have[y] += (unsigned)check(wse_stream_out(d, WSE_EAST, y, got, n - have[y], 5000),
						   "stream out");
	uint64_t c1 = cycles();
	*wall = now_s() - t0;
	free(wv);
	free(got);
	free(have);
	return c1 - c0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_link BOARD SPIN_ELF [WAVELETS]\n");
		return 2;
	}
	char uri[64];
	snprintf(uri, sizeof(uri), "sim:board=%s", argv[1]);
	unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 20000;
	unsigned bpc = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	if (bpc) {
		char opt[64];
		snprintf(opt, sizeof(opt), "--link-bytes-per-cycle %u", bpc);
		setenv("WSEMU_SIM_OPTS", opt, 1);
	}
	check(wse_open(&d, uri, NULL), "open");
	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	check(wse_get_info(d, &in), "info");
	if (!bpc)
		bpc = in.link_bytes_per_cycle;
	printf("BENCH link.params board=%s width_bits=%u bytes_per_cycle=%u%s latency_cycles=%u "
	       "max_payload=%u\n", in.compatible, in.link_width_bits, bpc,
	       bpc != in.link_bytes_per_cycle ? " (--link-bytes-per-cycle)" : "",
	       in.link_latency_cycles, in.max_payload);

	double w1, wa, ws;
	uint64_t c1 = stream(1, n, 0, &w1);
	printf("BENCH link.stream_rate %.4f\n", (double)n / (double)c1);
	printf("BENCH link.stream_cycles %llu wavelets=%u wall_s=%.3f (%lld cycles beyond one per wavelet)\n",
	       (unsigned long long)c1, n, w1, (long long)c1 - n);
	uint64_t ca = stream(in.rows, n, 0, &wa);
	printf("BENCH link.stream_rate_all_west %.4f\n", (double)n / (double)ca);
	printf("BENCH link.stream_cycles_all_west %llu wavelets=%u per port, %u ports "
	       "(%lld cycles beyond one per wavelet)\n", (unsigned long long)ca, n, in.rows,
	       (long long)ca - n);
	uint64_t cs = stream(1, n, 1, &ws);
	printf("BENCH link.stream_rate_sync %.4f\n", (double)n / (double)cs);
	cs = stream(in.rows, n, 1, &ws);
	printf("BENCH link.stream_rate_all_west_sync %.4f\n", (double)n / (double)cs);

	/* Free-running speed: one tile spinning, no host traffic during a
	 * sleep; cycles from mcycle. */
	char cmd[512];
	(void)cmd;
	FILE *f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	static uint8_t elf[65536];
	size_t len = fread(elf, 1, sizeof(elf), f);
	fclose(f);
	/* Minimal ELF32 loader for the spin program. */
	uint32_t phoff, phnum;
	memcpy(&phoff, elf + 28, 4);
	phnum = (uint32_t)(elf[44] | elf[45] << 8);
	check(wse_reg_write(d, 0, 0, 0x4, 0x3), "ctrl");
	for (uint32_t i = 0; i < phnum; i++) {
		const uint8_t *ph = elf + phoff + 32 * i;
		uint32_t type, off, paddr, filesz;
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 4, 4);
		memcpy(&paddr, ph + 12, 4);
		memcpy(&filesz, ph + 16, 4);
		if (type != 1 || !filesz || off + filesz > len)
			continue;
		uint8_t buf[65536 + 4] = {0};
		memcpy(buf, elf + off, filesz);
		check(wse_mem_write(d, 0, 0, paddr, buf, (filesz + 3) & ~3u), "load");
	}
	check(wse_tile_run(d, 0, 0), "run");
	uint64_t f0 = cycles();
	double t0 = now_s();
	usleep(1500000);
	uint64_t f1 = cycles();
	double free_rate = (double)(f1 - f0) / (now_s() - t0);
	double need = (double)c1 / free_rate;
	double ovh = (w1 - need) / w1;
	printf("BENCH link.free_cycles_per_s %.0f\n", free_rate);
	printf("BENCH link.overhead %.4f\n", ovh);
	wse_close(d);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tb_fast: runs one bare-metal ELF on the instruction-set model of one tile
 * core (wse_fast_tile.h), with the command line and outputs of the RTL
 * harness tests/core/tb_pe.cpp, so tests/core/compare.sh takes either.
 * Loads the ELF through the management-port memory access, releases the
 * core, runs to the tohost exit under a cycle limit (cost-model cycles),
 * prints the console on stdout and dumps the signature.
 *
 *   tb_fast PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--stats]
 *                    [--trace]
 *   tb_fast PROG.elf --mesh COLSxROWS [--max-cycles N] [--quantum N]
 * Exit status: 0 pass, 1 failure code reported, 2 time-out, 3 usage/load;
 * with --mesh (a speed benchmark of many tiles) 0 unless usage/load fails.
 * The memory sizes are the board's (wse_cfg.h, included by the build).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wse_fast_tile.h"
#include "wsemu/wse_error.h"
#include "wsf_elf.h"

static void tb_putc(void *ctx, uint8_t c)
{
	(void)ctx;
	putchar(c);
}

/* --putc-stall SEED: the console has room in a quarter of the tries, at
 * random, so that printing stores wait (as tb_pe's option does). */
static uint32_t tb_stall_seed;
static uint64_t tb_stall_waits;

static bool tb_putc_room(void *ctx)
{
	(void)ctx;
	tb_stall_seed ^= tb_stall_seed << 13;
	tb_stall_seed ^= tb_stall_seed >> 17;
	tb_stall_seed ^= tb_stall_seed << 5;
	bool room = (tb_stall_seed & 3) == 0;
	tb_stall_waits += !room;
	return room;
}

static double tb_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Load every segment word by word, as tb_pe does through the port. */
static int tb_load(struct wse_fast_tile *t, const struct wsf_elf *elf)
{
	uint32_t bad;
	int r = wsf_elf_load(elf, t, &bad);
	if (r == WSE_ERROR_ALIGN)
		fprintf(stderr, "tb_fast: segment at 0x%08" PRIx32 " not word-aligned\n", bad);
	else if (r == WSE_ERROR_RANGE)
		fprintf(stderr, "tb_fast: segment word 0x%08" PRIx32 " is outside the tile's memories\n", bad);
	else if (r < 0)
		fprintf(stderr, "tb_fast: bad segment\n");
	return r < 0 ? -1 : 0;
}

static int tb_signature(const struct wse_fast_tile *t, const struct wsf_elf *elf, const char *path)
{
	return wsf_elf_signature(elf, t, path, "tb_fast") < 0 ? 3 : 0;
}

/* --mesh: the program on cols x rows tiles (mhartid each tile's own),
 * loaded into each, run round-robin quantum cycles at a time until every
 * tile has ended or run max_cycles; prints the simulated board cycles per
 * CPU-second as a BENCH line. The consoles are not printed. */
static int tb_mesh(const struct wsf_elf *elf, unsigned cols, unsigned rows, uint64_t max_cycles,
		   uint64_t quantum)
{
	unsigned n = cols * rows, live = n, passes = 0;
	struct wse_fast_tile *tiles[64 * 64];
	uint64_t left[64 * 64], insns = 0;
	for (unsigned i = 0; i < n; i++) {
		struct wse_fast_tile_cfg cfg = { WSE_CFG_IMEM_BYTES, WSE_CFG_DMEM_BYTES, WSE_CFG_DMEM_BANKS,
						 (uint8_t)(i % cols), (uint8_t)(i / cols) };
		if (wse_fast_tile_create(&cfg, &tiles[i]) != 0 || tb_load(tiles[i], elf) != 0)
			return 3;
		wse_fast_tile_set_halt(tiles[i], false);
		left[i] = max_cycles;
	}
	double cpu0 = tb_cpu_seconds();
	while (live) {
		for (unsigned i = 0; i < n; i++) {
			struct wse_fast_run run;
			if (!left[i])
				continue;
			int stop = wse_fast_tile_run(tiles[i], quantum < left[i] ? quantum : left[i], UINT64_MAX, &run);
			insns += run.steps;
			left[i] = run.cycles >= left[i] ? 0 : left[i] - run.cycles;
			if (stop != WSE_FAST_STOP_BUDGET) {
				struct wse_fast_status st;
				wse_fast_tile_status(tiles[i], &st);
				passes += stop == WSE_FAST_STOP_EXIT && st.exit_value == 1;
				left[i] = 0;
			}
			live -= !left[i];
		}
	}
	double cpu = tb_cpu_seconds() - cpu0;
	uint64_t ran = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t lo, hi;
		wse_fast_tile_csr_read(tiles[i], 0xb00, &lo);
		wse_fast_tile_csr_read(tiles[i], 0xb80, &hi);
		uint64_t c = (uint64_t)hi << 32 | lo;
		ran = c > ran ? c : ran;
		wse_fast_tile_destroy(tiles[i]);
	}
	printf("BENCH fast.iss_cycles_per_second_%ux%u %.0f\n", cols, rows, cpu > 0 ? (double)ran / cpu : 0.0);
	fprintf(stderr, "tb_fast: mesh %ux%u: %" PRIu64 " cycles, %" PRIu64 " instructions on %u tiles "
		"in %.3f s CPU (%.1f MIPS); %u of them passed\n", cols, rows, ran, insns, n, cpu,
		cpu > 0 ? (double)insns / cpu / 1e6 : 0.0, passes);
	return 0;
}

int main(int argc, char **argv)
{
	const char *elf_path = NULL, *sig_path = NULL;
	uint64_t max_cycles = 1000000;
	unsigned x = 0, y = 0, cols = 0, rows = 0;
	uint64_t quantum = 1000;
	int stats = 0, trace = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--max-cycles") && i + 1 < argc)
			max_cycles = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--sig") && i + 1 < argc)
			sig_path = argv[++i];
		else if (!strcmp(a, "--x") && i + 1 < argc)
			x = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--y") && i + 1 < argc)
			y = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--mesh") && i + 1 < argc) {
			if (sscanf(argv[++i], "%ux%u", &cols, &rows) != 2 || !cols || !rows || cols > 64 || rows > 64) {
				fprintf(stderr, "tb_fast: --mesh wants COLSxROWS, each 1..64\n");
				return 3;
			}
		} else if (!strcmp(a, "--quantum") && i + 1 < argc)
			quantum = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--putc-stall") && i + 1 < argc)
			tb_stall_seed = (uint32_t)strtoul(argv[++i], NULL, 0) | 1u;
		else if (!strcmp(a, "--stats"))
			stats = 1;
		else if (!strcmp(a, "--trace"))
			trace = 1;
		else if (a[0] == '+')
			continue; /* tb_pe's Verilator runtime options */
		else if (!elf_path)
			elf_path = a;
		else {
			fprintf(stderr, "tb_fast: unexpected argument %s\n", a);
			return 3;
		}
	}
	if (!elf_path) {
		fprintf(stderr, "usage: tb_fast PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--putc-stall SEED] [--stats]\n");
		return 3;
	}
	struct wsf_elf elf;
	if (wsf_elf_open(&elf, elf_path) != 0) {
		fprintf(stderr, "tb_fast: %s: cannot read, or not a little-endian ELF32 RISC-V file\n",
			elf_path);
		return 3;
	}
	if (cols)
		return tb_mesh(&elf, cols, rows, max_cycles, quantum ? quantum : 1);
	struct wse_fast_tile_cfg cfg = { WSE_CFG_IMEM_BYTES, WSE_CFG_DMEM_BYTES, WSE_CFG_DMEM_BANKS,
					 (uint8_t)x, (uint8_t)y };
	struct wse_fast_tile *t;
	if (wse_fast_tile_create(&cfg, &t) != 0) {
		fprintf(stderr, "tb_fast: cannot create the tile\n");
		return 3;
	}
	wse_fast_tile_set_console(t, tb_putc, NULL);
	if (tb_stall_seed)
		wse_fast_tile_set_console_room(t, tb_putc_room);
	if (tb_load(t, &elf) != 0)
		return 3;

	wse_fast_tile_set_halt(t, false);
	struct wse_fast_run run = { 0, 0, 0 }, one;
	double cpu0 = tb_cpu_seconds();
	int stop;
	if (!trace) {
		stop = wse_fast_tile_run(t, max_cycles, UINT64_MAX, &run);
	} else {
		do {
			stop = wse_fast_tile_run(t, max_cycles - run.cycles, 1, &one);
			run.steps += one.steps;
			run.retired += one.retired;
			run.cycles += one.cycles;
			if (one.retired)
				fprintf(stderr, "retire\n");
		} while (stop == WSE_FAST_STOP_BUDGET && run.cycles < max_cycles);
	}
	double cpu = tb_cpu_seconds() - cpu0;
	fflush(stdout);
	wse_fast_tile_set_halt(t, true);

	if (stats)
		fprintf(stderr, "tb_fast: run %" PRIu64 " cycles, %" PRIu64 " instructions, CPI %.4f, "
			"%" PRIu64 " executed in %.3f s CPU, %.1f MIPS, %" PRIu64 " console waits\n",
			run.cycles, run.retired,
			run.retired ? (double)run.cycles / (double)run.retired : 0.0, run.steps, cpu,
			cpu > 0 ? (double)run.steps / cpu / 1e6 : 0.0, tb_stall_waits);

	if (stop == WSE_FAST_STOP_UNMODELLED) {
		uint32_t pc = 0, in = 0;
		wse_fast_tile_csr_read(t, WSE_FAST_CSR_DPC, &pc);
		wse_fast_tile_mem_read(t, pc, &in, 1);
		fprintf(stderr, "tb_fast: instruction 0x%08" PRIx32 " at 0x%08" PRIx32
			" needs the dataflow unit, which is not modelled\n", in, pc);
		return 3;
	}
	if (stop != WSE_FAST_STOP_EXIT) {
		fprintf(stderr, "tb_fast: TIMEOUT after %" PRIu64 " cycles\n", run.cycles);
		return 2;
	}
	struct wse_fast_status st;
	wse_fast_tile_status(t, &st);
	if (st.exit_value != 1) {
		fprintf(stderr, "tb_fast: FAIL code %" PRIu32 " (tohost 0x%08" PRIx32 ")\n",
			st.exit_value >> 1, st.exit_value);
		return 1;
	}
	int rc = sig_path ? tb_signature(t, &elf, sig_path) : 0;
	wse_fast_tile_destroy(t);
	wsf_elf_close(&elf);
	return rc;
}

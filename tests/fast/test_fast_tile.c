/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fast_tile: checks the C API of wsemu-fast's tile model
 * (sim/fast/wse_fast_tile.h) that the ELF programs do not reach: argument
 * and range errors, the management port's memory and CSR rules (DPC,
 * read-only CSRs, counter halves), halting, budgets, idle cycles, reset,
 * and the stop before a dataflow-unit instruction. Prints one line per
 * failed check; exit status 0 when all pass.
 */
#include <stdio.h>
#include <string.h>

#include "wse_fast_tile.h"
#include "wsemu/wse_error.h"

static int fails, checks;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		checks++;                                                             \
		if (!(cond)) {                                                        \
			fails++;                                                      \
			fprintf(stderr, "test_fast_tile:%d: %s\n", __LINE__, #cond);  \
		}                                                                     \
	} while (0)

static char console[64];
static size_t console_n;

static void sink(void *ctx, uint8_t c)
{
	(void)ctx;
	if (console_n < sizeof(console) - 1)
		console[console_n++] = (char)c;
}

/* RV32 encodings used below. */
#define ADDI(rd, rs, imm) ((uint32_t)(imm) << 20 | (rs) << 15 | (rd) << 7 | 0x13u)
#define LUI(rd, imm20) ((uint32_t)(imm20) << 12 | (rd) << 7 | 0x37u)
#define SW(rs2, rs1, imm) (((uint32_t)(imm) >> 5) << 25 | (rs2) << 20 | (rs1) << 15 | 2u << 12 | \
			   ((uint32_t)(imm) & 31) << 7 | 0x23u)
#define JAL0 0x0000006fu  /* j . */
#define DF_RD 0x0000100bu /* df.rd x0, 0(x0) */

int main(void)
{
	struct wse_fast_tile_cfg cfg = { 8192, 32768, 2, 3, 1 };
	struct wse_fast_tile *t = NULL;
	struct wse_fast_run run;
	struct wse_fast_status st;
	uint32_t v, w[4] = { 1, 2, 3, 4 }, r[4];

	/* creation */
	struct wse_fast_tile_cfg bad = cfg;
	bad.imem_bytes = 3000;
	CHECK(wse_fast_tile_create(&bad, &t) == WSE_ERROR_INVALID_PARAM);
	bad = cfg;
	bad.dmem_banks = 0;
	CHECK(wse_fast_tile_create(&bad, &t) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_tile_create(NULL, &t) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_tile_create(&cfg, &t) == WSE_SUCCESS && t);
	CHECK(wse_fast_tile_set_console(t, sink, NULL) == WSE_SUCCESS);

	/* memory through the management port */
	CHECK(wse_fast_tile_mem_write(t, 0x80100100u, w, 4) == WSE_SUCCESS);
	CHECK(wse_fast_tile_mem_read(t, 0x80100100u, r, 4) == WSE_SUCCESS && !memcmp(r, w, 16));
	CHECK(wse_fast_tile_mem_read(t, 0x80100102u, r, 1) == WSE_ERROR_ALIGN);
	CHECK(wse_fast_tile_mem_read(t, 0x80000000u + 8192, r, 1) == WSE_ERROR_RANGE);
	CHECK(wse_fast_tile_mem_read(t, 0x80100000u + 32768, r, 1) == WSE_ERROR_RANGE);
	CHECK(wse_fast_tile_mem_write(t, 0x80000000u + 8188, w, 2) == WSE_ERROR_RANGE);
	CHECK(wse_fast_tile_mem_write(t, 0x80100000u + 32764, w, 1) == WSE_SUCCESS);
	CHECK(wse_fast_tile_mem_read(t, 0x10000000u, r, 1) == WSE_ERROR_RANGE);
	CHECK(wse_fast_tile_mem_read(t, 0x80100100u, NULL, 1) == WSE_ERROR_INVALID_PARAM);

	/* CSRs through the management port */
	CHECK(wse_fast_tile_csr_read(t, 0xf14, &v) == WSE_SUCCESS && v == 0x0103);
	CHECK(wse_fast_tile_csr_read(t, 0x301, &v) == WSE_SUCCESS && v == 0x40001120u);
	CHECK(wse_fast_tile_csr_read(t, 0x7c0, &v) == WSE_ERROR_DEVICE);
	CHECK(wse_fast_tile_csr_write(t, 0xc00, 5) == WSE_ERROR_DEVICE);
	CHECK(wse_fast_tile_csr_write(t, 0xf14, 5) == WSE_ERROR_DEVICE);
	CHECK(wse_fast_tile_csr_read(t, 0x1000, &v) == WSE_ERROR_RANGE);
	CHECK(wse_fast_tile_csr_read(t, WSE_FAST_CSR_DPC, &v) == WSE_SUCCESS && v == 0x80000000u);
	/* fcsr is reachable with FS Off and makes FS Dirty */
	CHECK(wse_fast_tile_csr_write(t, 0x003, 0xff) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_read(t, 0x001, &v) == WSE_SUCCESS && v == 0x1f);
	CHECK(wse_fast_tile_csr_read(t, 0x300, &v) == WSE_SUCCESS && v == 0x80007800u);
	/* a write to a counter half sets that half only */
	CHECK(wse_fast_tile_csr_write(t, 0xb00, 0xffffffffu) == WSE_SUCCESS);
	CHECK(wse_fast_tile_idle(t, 1) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_read(t, 0xb80, &v) == WSE_SUCCESS && v == 1);
	CHECK(wse_fast_tile_csr_read(t, 0xc00, &v) == WSE_SUCCESS && v == 0);
	CHECK(wse_fast_tile_csr_write(t, 0x320, 1) == WSE_SUCCESS); /* inhibit CY */
	CHECK(wse_fast_tile_idle(t, 10) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_read(t, 0xb00, &v) == WSE_SUCCESS && v == 0);
	CHECK(wse_fast_tile_csr_write(t, 0x320, 0) == WSE_SUCCESS);

	/* a halted tile does not run */
	CHECK(wse_fast_tile_run(t, 100, 100, &run) == WSE_FAST_STOP_HALTED && run.steps == 0);

	/* a program: print 'A' through the putchar word, pass through tohost,
	 * then spin; DPC moves the start while halted */
	uint32_t prog[] = {
		JAL0,                       /* 0x80000000: not executed */
		LUI(5, 0x80100),            /* t0 = 0x80100000 */
		ADDI(6, 0, 'A'), SW(6, 5, 16),
		ADDI(6, 0, 1), SW(6, 5, 0), SW(0, 5, 4),
		JAL0,
	};
	CHECK(wse_fast_tile_mem_write(t, 0x80000000u, prog, 8) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_write(t, WSE_FAST_CSR_DPC, 0x80000004u) == WSE_SUCCESS);
	CHECK(wse_fast_tile_set_halt(t, false) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_write(t, WSE_FAST_CSR_DPC, 0x80000000u) == WSE_SUCCESS); /* ignored */
	CHECK(wse_fast_tile_run(t, 1000, 2, &run) == WSE_FAST_STOP_BUDGET && run.steps == 2);
	CHECK(wse_fast_tile_run(t, 1000, 100, &run) == WSE_FAST_STOP_EXIT && run.retired == 4);
	CHECK(console_n == 1 && console[0] == 'A');
	CHECK(wse_fast_tile_status(t, &st) == WSE_SUCCESS && st.done && !st.failed && st.exit_value == 1);
	CHECK(wse_fast_tile_run(t, 50, UINT64_MAX, &run) == WSE_FAST_STOP_BUDGET && run.cycles == 50);
	CHECK(wse_fast_tile_xreg(t, 6, &v) == WSE_SUCCESS && v == 1);
	CHECK(wse_fast_tile_xreg(t, 32, &v) == WSE_ERROR_RANGE);

	/* reset keeps memory and the halt state, clears the core */
	CHECK(wse_fast_tile_set_halt(t, true) == WSE_SUCCESS);
	CHECK(wse_fast_tile_reset(t) == WSE_SUCCESS);
	CHECK(wse_fast_tile_status(t, &st) == WSE_SUCCESS && !st.done && st.halted);
	CHECK(wse_fast_tile_xreg(t, 6, &v) == WSE_SUCCESS && v == 0);
	CHECK(wse_fast_tile_mem_read(t, 0x80000004u, &v, 1) == WSE_SUCCESS && v == prog[1]);

	/* a dataflow-unit instruction stops the run before it */
	v = DF_RD;
	CHECK(wse_fast_tile_mem_write(t, 0x80000000u, &v, 1) == WSE_SUCCESS);
	CHECK(wse_fast_tile_set_halt(t, false) == WSE_SUCCESS);
	CHECK(wse_fast_tile_run(t, 100, 100, &run) == WSE_FAST_STOP_UNMODELLED && run.steps == 0);
	CHECK(wse_fast_tile_csr_read(t, WSE_FAST_CSR_DPC, &v) == WSE_SUCCESS && v == 0x80000000u);
	/* ... and the board model completes it */
	uint32_t in, a, b, c0, c1, i0, i1;
	v = 0x0202908bu; /* df.rd x1, 32(x5) */
	CHECK(wse_fast_tile_mem_write(t, 0x80000000u, &v, 1) == WSE_SUCCESS);
	CHECK(wse_fast_tile_df_pending(t, &in, &a, &b) == WSE_SUCCESS && in == v && a == 0);
	CHECK(wse_fast_tile_csr_read(t, 0xb00, &c0) == 0 && wse_fast_tile_csr_read(t, 0xb02, &i0) == 0);
	CHECK(wse_fast_tile_df_complete(t, 0xabcd, 7) == WSE_SUCCESS);
	CHECK(wse_fast_tile_csr_read(t, 0xb00, &c1) == 0 && wse_fast_tile_csr_read(t, 0xb02, &i1) == 0);
	CHECK(c1 - c0 == 7 && i1 - i0 == 1);
	CHECK(wse_fast_tile_xreg(t, 1, &v) == WSE_SUCCESS && v == 0xabcd);
	CHECK(wse_fast_tile_csr_read(t, WSE_FAST_CSR_DPC, &v) == WSE_SUCCESS && v == 0x80000004u);
	CHECK(wse_fast_tile_df_pending(t, &in, &a, &b) == WSE_ERROR_NOT_FOUND);
	CHECK(wse_fast_tile_df_complete(t, 0, 1) == WSE_ERROR_NOT_FOUND);

	CHECK(wse_fast_tile_run(NULL, 1, 1, &run) == WSE_ERROR_INVALID_PARAM);
	wse_fast_tile_destroy(t);
	wse_fast_tile_destroy(NULL);
	printf("test_fast_tile: %d checks, %d failed\n", checks, fails);
	return fails != 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fast_df - the API of wsemu-fast's dataflow unit and board
 * (sim/fast/wse_fast_df.h, wse_fast_board.h): parameter errors, the RAMP
 * queues' room and back-pressure, control wavelets, the send path's
 * credits, route entries, and a two-tile program: tile (0,0) sends a
 * wavelet that its route multicasts to its own PE and east to (1,0),
 * which takes it from the west and sends it on east, off the board (the
 * east stream); both receive it with df.rd. The west stream's wavelets
 * enter (0,0) and wait in its PE's queue, as far as it has room.
 */
#include <stdio.h>
#include <string.h>

#include "wse_fast_board.h"
#include "wsf_fp.h"
#include "wsemu/wse_error.h"

static int fails;
#define CHECK(cond)                                                               \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "test_fast_df: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			fails++;                                                  \
		}                                                                 \
	} while (0)

static const struct wse_fast_df_cfg df_cfg = {
	.dmem_bytes = 4096, .ramp_color_depth = 3, .num_vc = 4, .vc_depth = 4,
	.color_vc = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
		      2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3 }
};

static void test_df(void)
{
	struct wse_fast_tile_cfg tc = { .imem_bytes = 4096, .dmem_bytes = 4096, .dmem_banks = 2 };
	struct wse_fast_tile *t;
	struct wse_fast_df *df;
	struct wse_fast_df_cfg bad = df_cfg;
	CHECK(wse_fast_tile_create(&tc, &t) == 0);
	CHECK(wse_fast_df_create(NULL, t, &df) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_create(&df_cfg, NULL, &df) == WSE_ERROR_INVALID_PARAM);
	bad.ramp_color_depth = 0;
	CHECK(wse_fast_df_create(&bad, t, &df) == WSE_ERROR_INVALID_PARAM);
	bad = df_cfg;
	bad.color_vc[7] = 4;
	CHECK(wse_fast_df_create(&bad, t, &df) == WSE_ERROR_INVALID_PARAM);
	bad = df_cfg;
	bad.dmem_bytes = 1000;
	CHECK(wse_fast_df_create(&bad, t, &df) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_create(&df_cfg, t, &df) == 0);

	uint32_t room;
	uint64_t w;
	CHECK(wse_fast_df_ramp_room(df, 32, &room) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_ramp_room(df, 5, &room) == 0 && room == 3);
	for (unsigned k = 0; k < 3; k++)
		CHECK(wse_fast_df_ramp_push(df, WSE_FAST_WAVELET(0, 5, k)) == 0);
	CHECK(wse_fast_df_ramp_room(df, 5, &room) == 0 && room == 0);
	CHECK(wse_fast_df_ramp_push(df, WSE_FAST_WAVELET(0, 5, 9)) == WSE_ERROR_BUSY);
	CHECK(wse_fast_df_ramp_room(df, 6, &room) == 0 && room == 3); /* other colors flow */
	/* a control wavelet at a head is taken at once: the queue stays empty */
	CHECK(wse_fast_df_ramp_push(df, WSE_FAST_WAVELET(1, 7, 41)) == 0);
	CHECK(wse_fast_df_ramp_room(df, 7, &room) == 0 && room == 3);
	struct wse_fast_df_state st;
	CHECK(wse_fast_df_state(df, &st) == 0 && st.queued[5] == 3 && st.queued[7] == 0 &&
	      !st.vec_busy && !st.mov_busy && st.out_queued == 0);
	CHECK(wse_fast_df_state(NULL, &st) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_out_peek(df, 0, &w) == WSE_ERROR_NOT_FOUND);
	CHECK(wse_fast_df_out_peek(df, 4, &w) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_out_pop(df, 0) == WSE_ERROR_NOT_FOUND);
	CHECK(wse_fast_df_run_core(NULL, 10, NULL) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_df_run_engines(NULL, 10, NULL) == WSE_ERROR_INVALID_PARAM);
	/* a halted core does not run */
	uint64_t c = 1;
	CHECK(wse_fast_df_run_core(df, 10, &c) == WSE_FAST_DF_HALTED && c == 0);
	wse_fast_df_destroy(df);
	wse_fast_df_destroy(NULL);
	wse_fast_tile_destroy(t);
}

/* send 0x42 on color 5, receive color 5 into x2, end with a pass */
static const uint32_t prog[] = {
	0x04200093u, /* addi x1, x0, 0x42 */
	0x0010228bu, /* df.wr x1, 5(x0): send on color 5 */
	0x0050110bu, /* df.rd x2, 5(x0): receive color 5 */
	0x80100237u, /* lui x4, 0x80100 */
	0x00100193u, /* addi x3, x0, 1 */
	0x00322023u, /* sw x3, 0(x4): tohost low word */
	0x00022223u, /* sw x0, 4(x4): tohost high word, the end */
	0x0000006fu, /* j . */
};

static unsigned outlets;
static uint64_t outlet_w;
static bool on_outlet(void *ctx, enum wse_fast_edge edge, unsigned row, uint64_t w, uint64_t now)
{
	(void)ctx;
	(void)now;
	if (edge == WSE_FAST_EDGE_EAST && row == 0)
		outlets++;
	outlet_w = w;
	return true;
}

static void test_board(void)
{
	struct wse_fast_board_cfg cfg = {
		.cols = 2, .rows = 1, .imem_bytes = 4096, .dmem_bytes = 4096, .dmem_banks = 2,
		.df = df_cfg
	};
	struct wse_fast_board *b;
	struct wse_fast_board_cfg bad = cfg;
	bad.cols = 0;
	CHECK(wse_fast_board_create(&bad, &b) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_board_create(NULL, &b) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_board_create(&cfg, &b) == 0);
	struct wse_fast_tile *t[2];
	CHECK(wse_fast_board_tile(b, 2, 0, &t[0], NULL) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_route(b, 0, 0, 32, 0, 0) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_board_route(b, 0, 0, 5, 0x20, 0) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_board_route(b, 0, 1, 5, 0, 0) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_intake(b, 2, 0, 0) == WSE_ERROR_INVALID_PARAM);
	CHECK(wse_fast_board_intake(b, WSE_FAST_EDGE_WEST, 1, 0) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_set_ramp(b, 0, 3, NULL, NULL) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_run(NULL, 10, NULL) == WSE_ERROR_INVALID_PARAM);
	/* (0,0): from its RAMP to its RAMP and east; (1,0): from the west to
	 * its RAMP and east (off the board). (1,0)'s own send is dropped. */
	CHECK(wse_fast_board_route(b, 0, 0, 5, 0x10, 0x12) == 0);
	CHECK(wse_fast_board_route(b, 1, 0, 5, 0x08, 0x12) == 0);
	CHECK(wse_fast_board_set_outlet(b, on_outlet, NULL) == 0);
	/* the west stream of row 0: color 6 into (0,0)'s PE, color 7 dropped
	 * (not in its rx mask); 5 wavelets, of which the PE's queue holds 3 */
	CHECK(wse_fast_board_route(b, 0, 0, 6, 0x08, 0x10) == 0);
	CHECK(wse_fast_board_route(b, 0, 0, 7, 0x10, 0x10) == 0);
	for (unsigned k = 0; k < 5; k++)
		CHECK(wse_fast_board_intake(b, WSE_FAST_EDGE_WEST, 0, WSE_FAST_WAVELET(0, 6, k)) == 0);
	CHECK(wse_fast_board_intake(b, WSE_FAST_EDGE_WEST, 0, WSE_FAST_WAVELET(0, 7, 1)) == 0);
	for (unsigned x = 0; x < 2; x++) {
		CHECK(wse_fast_board_tile(b, x, 0, &t[x], NULL) == 0);
		CHECK(wse_fast_tile_mem_write(t[x], WSE_FAST_IMEM_BASE, prog, sizeof prog / 4) == 0);
		CHECK(wse_fast_tile_set_halt(t[x], false) == 0);
	}
	bool done = false;
	CHECK(wse_fast_board_run(b, 10000, &done) == 0 && done);
	for (unsigned x = 0; x < 2; x++) {
		uint32_t v = 0;
		struct wse_fast_status st;
		CHECK(wse_fast_tile_xreg(t[x], 2, &v) == 0 && v == 0x42);
		CHECK(wse_fast_tile_status(t[x], &st) == 0 && st.done && st.exit_value == 1);
	}
	CHECK(outlets == 1 && outlet_w == WSE_FAST_WAVELET(0, 5, 0x42));
	struct wse_fast_df *df;
	struct wse_fast_df_state st;
	CHECK(wse_fast_board_tile(b, 0, 0, NULL, &df) == 0 && wse_fast_df_state(df, &st) == 0);
	CHECK(st.queued[6] == 3 && st.queued[7] == 0 && st.queued[5] == 0);
	uint64_t now;
	CHECK(wse_fast_board_now(b, &now) == 0 && now > 0 && now < 10000);
	/* counters: (1,0) forwarded the one wavelet east and dropped its own
	 * send at its RAMP input */
	uint32_t v[WSE_FAST_COUNTERS];
	CHECK(wse_fast_board_counters(b, 1, 0, v, false) == 0 && v[3 * 1] == 1 && v[3 * 4 + 2] == 1);
	CHECK(wse_fast_board_counters(b, 1, 0, NULL, true) == 0);
	CHECK(wse_fast_board_counters(b, 1, 0, v, false) == 0 && v[3 * 1] == 0 && v[3 * 4 + 2] == 0);
	CHECK(wse_fast_board_counters(b, 0, 1, v, false) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_counters(b, 0, 0, NULL, false) == WSE_ERROR_INVALID_PARAM);
	uint32_t rx = 0, tx = 0;
	CHECK(wse_fast_board_route_read(b, 1, 0, 5, &rx, &tx) == 0 && rx == 0x08 && tx == 0x12);
	CHECK(wse_fast_board_route_read(b, 2, 0, 5, &rx, &tx) == WSE_ERROR_RANGE);
	/* an intake wavelet with no route is taken and dropped: the advance
	 * ends, not idle, in the round the intake empties (the stream-in is
	 * taken whole); advancing again, a board whose programs ended and
	 * whose fabric is still goes quiet */
	size_t pend = 9;
	CHECK(wse_fast_board_intake(b, WSE_FAST_EDGE_EAST, 0, WSE_FAST_WAVELET(0, 9, 1)) == 0);
	CHECK(wse_fast_board_intake_pending(b, WSE_FAST_EDGE_EAST, 0, &pend) == 0 && pend == 1);
	bool idle = true;
	uint64_t taken;
	CHECK(wse_fast_board_advance(b, 100000, &idle) == 0 && !idle);
	CHECK(wse_fast_board_intake_pending(b, WSE_FAST_EDGE_EAST, 0, &pend) == 0 && pend == 0);
	CHECK(wse_fast_board_now(b, &taken) == 0 && taken > now && taken < now + 100);
	CHECK(wse_fast_board_advance(b, 100000, &idle) == 0 && idle);
	CHECK(wse_fast_board_counters(b, 1, 0, v, false) == 0 && v[3 * 1 + 2] == 1);
	uint64_t later;
	CHECK(wse_fast_board_now(b, &later) == 0 && later > taken && later < now + 1000);
	CHECK(wse_fast_board_intake(b, WSE_FAST_EDGE_WEST, 0, WSE_FAST_WAVELET(0, 9, 1)) == 0);
	CHECK(wse_fast_board_intake_drop(b, WSE_FAST_EDGE_WEST, 0) == 0);
	CHECK(wse_fast_board_intake_pending(b, WSE_FAST_EDGE_WEST, 0, &pend) == 0 && pend == 0);
	CHECK(wse_fast_board_intake_drop(b, WSE_FAST_EDGE_WEST, 1) == WSE_ERROR_RANGE);
	CHECK(wse_fast_board_advance(b, 10, NULL) == WSE_ERROR_INVALID_PARAM);
	wse_fast_board_destroy(b);
	wse_fast_board_destroy(NULL);
}

/* The host-arithmetic path of the vector engine's elements against the
 * FPU's C model: where it answers, the same bits and flags. Operands from
 * random bits, from values near 1, near the underflow threshold, near
 * overflow, and zeros, subnormals, infinities and NaNs. */
static uint32_t fp_operand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	uint32_t r = (uint32_t)(*x >> 16), sign = (uint32_t)(*x >> 63) << 31;
	switch (*x >> 8 & 7) {
	case 0: return r;
	case 1: return sign | (126u + (r >> 30)) << 23 | (r & 0x7fffffu);  /* near 1 */
	case 2: return sign | (1u + (r >> 29)) << 23 | (r & 0x7fffffu);    /* near 2^-126 */
	case 3: return sign | (250u + (r >> 29)) << 23 | (r & 0x7fffffu);  /* near overflow */
	case 4: return sign | (r & 0x7fffffu);                               /* subnormal, zero */
	case 5: return sign | 0x7f800000u | (r & 7u);                        /* inf, NaNs */
	default: return sign | (100u + (r >> 27)) << 23 | (r & 0x7fffffu); /* 2^-27 .. 2^4 */
	}
}

static void test_fp_fast(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	static const int ops[3] = {VM_FADDS, VM_FMULS, VM_FMACS};
	unsigned fast = 0, bad = 0;
	for (unsigned i = 0; i < 600000; i++) {
		int op = ops[i % 3];
		uint32_t a = fp_operand(&x), b = fp_operand(&x), d = fp_operand(&x);
		if (i % 5 == 0) /* a product near -d: cancellation */
			d = vm_elem(VM_FMULS, 0, a, b, 0, &(uint32_t){0}) ^ 0x80000000u ^ (uint32_t)(x & 3);
		uint32_t r1, f1 = 0, f2 = 0, r2 = vm_elem(op, 0, a, b, d, &f2);
		bool have_nx = i & 1;
		if (!wsf_fp_fast(op, 0, a, b, d, have_nx, &r1, &f1))
			continue;
		fast++;
		if (r1 != r2 || f1 != (have_nx ? 0 : f2)) {
			if (bad++ < 5)
				fprintf(stderr, "test_fast_df: op %d %08x %08x %08x: host %08x/%x, "
					"FPU model %08x/%x\n", op, a, b, d, r1, f1, r2, f2);
		}
	}
	CHECK(bad == 0);
	CHECK(fast > 200000); /* the path is taken for most ordinary operands */
	uint32_t r, f;
	CHECK(!wsf_fp_fast(VM_FMACS, 1, 0x3f800000u, 0x3f800000u, 0, false, &r, &f)); /* RTZ */
	CHECK(!wsf_fp_fast(VM_FMAXS, 0, 0x3f800000u, 0x3f800000u, 0, false, &r, &f));
	CHECK(!wsf_fp_fast(VM_FADDS, 0, 0x3f800000u, 0xbf800000u, 0, false, &r, &f)); /* zero */
}

int main(void)
{
	test_fp_fast();
	test_df();
	test_board();
	if (fails) {
		fprintf(stderr, "test_fast_df: %d checks failed\n", fails);
		return 1;
	}
	printf("test_fast_df: ok\n");
	return 0;
}

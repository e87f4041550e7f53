/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_fast_df.h - the dataflow unit of one tile in wsemu-fast
 * (docs/wsemu-fast.md, docs/pe-programming.md): the per-color RAMP queues
 * with the board's depth, the PE's send path with its per-VC credits, the
 * task unit (bindings, active and blocked bits, round-robin dispatch,
 * control wavelets, completion tasks), the vector engine with its
 * descriptors and operation queue, and the move channel. It completes the
 * df.rd/df.wr instructions at which the tile core's model stops
 * (wse_fast_tile_df_pending/_complete).
 *
 * Element arithmetic is the vector engine's C model (vm_run of
 * tests/dataflow/vec_model.c, on the FPU's C model), one element at a
 * time, so results and flags are the RTL's bit for bit.
 *
 * Wavelets are 38-bit values in a uint64_t as on the RTL's links: [31:0]
 * data, [36:32] color, [37] control.
 *
 * Errors are the negative codes of wsemu/wse_error.h.
 */
#ifndef WSEMU_WSE_FAST_DF_H
#define WSEMU_WSE_FAST_DF_H

#include <stdbool.h>
#include <stdint.h>

#include "wse_fast_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WSE_FAST_WAVELET(ctrl, color, data) \
	(((uint64_t)((ctrl) ? 1u : 0u) << 37) | ((uint64_t)((color) & 31u) << 32) | (uint32_t)(data))
#define WSE_FAST_WAVELET_COLOR(w) ((unsigned)(((w) >> 32) & 31u))
#define WSE_FAST_WAVELET_CTRL(w) ((unsigned)(((w) >> 37) & 1u))

#define WSE_FAST_MAX_VC 8u

struct wse_fast_df;

/* The board's fabric parameters (wse_cfg.h / the device tree). */
struct wse_fast_df_cfg {
	uint32_t dmem_bytes;                 /* the tile's DMEM (its cfg's dmem_bytes) */
	uint32_t ramp_color_depth;           /* RampColorDepth, 1..64 */
	uint32_t num_vc;                     /* NumVc, 1..WSE_FAST_MAX_VC */
	uint32_t vc_depth;                   /* VcDepth, 1..64 */
	uint8_t color_vc[32];                /* ColorVcMap: the VC of each color */
};

/* Why wse_fast_df_run_core() returned (non-negative return values). */
enum wse_fast_df_stop {
	WSE_FAST_DF_BUDGET = 0,  /* the cycle budget is spent */
	WSE_FAST_DF_EXIT = 1,    /* the program wrote its end to tohost */
	WSE_FAST_DF_HALTED = 2,  /* the core is halted */
	WSE_FAST_DF_BLOCKED = 3  /* a df.rd/df.wr waits (a wavelet, a credit, room, idle) */
};

/* What the dataflow unit holds, for harnesses and tests. */
struct wse_fast_df_state {
	bool vec_busy;        /* operations queued or running */
	bool mov_busy;        /* moves queued or running */
	uint32_t vdone;       /* operations completed */
	uint32_t mdone;       /* moves completed */
	uint32_t queued[32];  /* wavelets in each color's RAMP queue */
	uint32_t out_queued;  /* wavelets in the send path, all VCs */
};

/* Create the dataflow unit of `tile` (which it drives; the tile must
 * outlive it), in reset state: queues empty, nothing bound, descriptors at
 * their reset values (LEN0 = LEN1 = STRIDE0 = 1), every VC credit full.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a parameter out of range, a color
 * mapped to a VC >= num_vc), WSE_ERROR_NO_MEM. */
int wse_fast_df_create(const struct wse_fast_df_cfg *cfg, struct wse_fast_tile *tile,
		       struct wse_fast_df **out);

/* Free the unit; NULL is ignored. */
void wse_fast_df_destroy(struct wse_fast_df *df);

/* Run the tile's core for up to max_cycles cycles (as wse_fast_tile_run),
 * executing its df.rd/df.wr (1 cycle each when it completes at once). A
 * df.rd/df.wr that cannot complete yet stops the run (BLOCKED) without
 * executing; the next call retries it. *cycles (may be NULL) gets the
 * cycles spent. Returns a wse_fast_df_stop value.
 * Errors: WSE_ERROR_INVALID_PARAM (df NULL). */
int wse_fast_df_run_core(struct wse_fast_df *df, uint64_t max_cycles, uint64_t *cycles);

/* Advance the vector engine and the move channel by up to max_elements
 * elements each (one element per cycle per channel). Each stops early at a
 * fabric operand not yet queued or a result without a send credit.
 * *elements (may be NULL) gets the elements done by both.
 * Errors: WSE_ERROR_INVALID_PARAM (df NULL), WSE_ERROR_RANGE (an element
 * outside DMEM: cannot happen on a well-formed board). */
int wse_fast_df_run_engines(struct wse_fast_df *df, uint64_t max_elements, uint64_t *elements);

/* RAMP, router -> PE: the free entries of a color's queue (the router's
 * credits for it), and a delivery into it. A control wavelet at the head
 * of a queue is taken by the task unit at once.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, color > 31), WSE_ERROR_BUSY
 * (push: the color's queue is full). */
int wse_fast_df_ramp_room(const struct wse_fast_df *df, unsigned color, uint32_t *room);
int wse_fast_df_ramp_push(struct wse_fast_df *df, uint64_t wavelet);

/* RAMP, PE -> router: the oldest wavelet the PE sent on a VC (its send
 * path holds up to vc_depth per VC: the PE's credits) and its removal,
 * which returns the credit.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, vc >= num_vc), WSE_ERROR_NOT_FOUND
 * (nothing sent on that VC). */
int wse_fast_df_out_peek(const struct wse_fast_df *df, unsigned vc, uint64_t *wavelet);
int wse_fast_df_out_pop(struct wse_fast_df *df, unsigned vc);

/* The VCs whose send path holds wavelets, bit v for VC v (0 for NULL):
 * where wse_fast_df_out_peek() finds one. */
uint32_t wse_fast_df_out_mask(const struct wse_fast_df *df);

/* True while the vector engine or the move channel has an operation
 * queued or running (the vec_busy || mov_busy of wse_fast_df_state(), for
 * the board's rounds); false for NULL. */
bool wse_fast_df_engines_busy(const struct wse_fast_df *df);

/* The unit's state.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL). */
int wse_fast_df_state(const struct wse_fast_df *df, struct wse_fast_df_state *st);

#ifdef __cplusplus
}
#endif
#endif

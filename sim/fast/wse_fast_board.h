/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_fast_board.h - a mesh of tiles in wsemu-fast (docs/wsemu-fast.md):
 * per tile the core's model (wse_fast_tile.h) and the dataflow unit
 * (wse_fast_df.h), and the fabric between them: a router per tile with
 * five ports (N, E, S, W, RAMP), a route entry per color (rx mask, tx
 * mask: several tx bits multicast), per-(port, VC) input queues of
 * VcDepth wavelets with credit back-pressure, the RAMP's per-color
 * credits, and the edge ports: the W port of column 0 and the E port of
 * the last column are the west and east streams of each row; a wavelet
 * routed off the north or south edge is absorbed.
 *
 * Time advances in rounds of `quantum` cycles. In a round every tile's
 * core runs its share (its df.rd/df.wr completed by the dataflow unit),
 * the vector engines and move channels run up to `quantum` elements, and
 * the routers forward wavelets, each hop taking `hop_cycles`, repeating
 * until nothing more can move in the round. Programs' results do not
 * depend on this schedule (docs/wsemu-fast.md).
 *
 * Errors are the negative codes of wsemu/wse_error.h.
 */
#ifndef WSEMU_WSE_FAST_BOARD_H
#define WSEMU_WSE_FAST_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "wse_fast_df.h"
#include "wse_fast_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wse_fast_board;

struct wse_fast_board_cfg {
	uint32_t cols, rows;     /* 1..64 each */
	uint32_t imem_bytes, dmem_bytes, dmem_banks; /* per tile (wse_fast_tile_cfg) */
	struct wse_fast_df_cfg df; /* its dmem_bytes is taken from above */
	uint32_t quantum;        /* cycles per round, >= 1 (0: 32) */
	uint32_t hop_cycles;     /* cycles per router hop (0: 1) */
};

/* Board edges, for the edge streams. */
enum wse_fast_edge { WSE_FAST_EDGE_WEST = 0, WSE_FAST_EDGE_EAST = 1 };

/* A RAMP peer in place of a tile's router (a test harness's model of the
 * router): called in every pass of a round with the tile's dataflow unit
 * and the round's end time; it moves wavelets with wse_fast_df_out_peek/
 * _pop and _ramp_room/_push and returns how many it moved (> 0: progress)
 * or a negative error, which stops the run. */
typedef int (*wse_fast_ramp_fn)(void *ctx, struct wse_fast_df *df, uint64_t now);

/* A stream-out wavelet: the wavelet, the edge and row it left by, and
 * the round in which it left. Returns true when it took the wavelet;
 * false (its buffer full) back-pressures the edge router, which offers
 * the wavelet again later. */
typedef bool (*wse_fast_outlet_fn)(void *ctx, enum wse_fast_edge edge, unsigned row,
				   uint64_t wavelet, uint64_t now);

/* Router counters of one tile: for each port p = N, E, S, W, RAMP the
 * three of docs/register-map.md, [3p] forwarded, [3p+1] stalled, [3p+2]
 * dropped. */
#define WSE_FAST_COUNTERS 15

/* Create a board: every tile halted in reset state, routes all zero
 * (nothing accepted, nothing sent), queues empty.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, sizes out of range, a tile or
 * dataflow parameter invalid), WSE_ERROR_NO_MEM. */
int wse_fast_board_create(const struct wse_fast_board_cfg *cfg, struct wse_fast_board **out);

/* Free a board; NULL is ignored. */
void wse_fast_board_destroy(struct wse_fast_board *b);

/* The tile core and the dataflow unit at (x, y), owned by the board.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL), WSE_ERROR_RANGE (outside the
 * mesh). */
int wse_fast_board_tile(struct wse_fast_board *b, unsigned x, unsigned y,
			struct wse_fast_tile **tile, struct wse_fast_df **df);

/* Write a route entry: wavelets of `color` are accepted from the ports of
 * rx (bit i = port i: N=0 E=1 S=2 W=3 RAMP=4) and sent to the ports of tx.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, color > 31, a mask above 0x1f),
 * WSE_ERROR_RANGE (outside the mesh). */
int wse_fast_board_route(struct wse_fast_board *b, unsigned x, unsigned y, unsigned color,
			 uint32_t rx, uint32_t tx);

/* Replace the router of tile (x, y) on its RAMP by fn (NULL: the router
 * again).
 * Errors: WSE_ERROR_INVALID_PARAM (b NULL), WSE_ERROR_RANGE. */
int wse_fast_board_set_ramp(struct wse_fast_board *b, unsigned x, unsigned y,
			    wse_fast_ramp_fn fn, void *ctx);

/* Stream-out sink of both edges (NULL: such wavelets are dropped).
 * Errors: WSE_ERROR_INVALID_PARAM (b NULL). */
int wse_fast_board_set_outlet(struct wse_fast_board *b, wse_fast_outlet_fn fn, void *ctx);

/* Queue a wavelet to enter the mesh at an edge of a row (an intake
 * stream: unbounded here; it enters as the edge router's credits allow).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, bad edge), WSE_ERROR_RANGE (row),
 * WSE_ERROR_NO_MEM. */
int wse_fast_board_intake(struct wse_fast_board *b, enum wse_fast_edge edge, unsigned row,
			  uint64_t wavelet);

/* Run rounds until every released tile's program has ended (written its
 * end to tohost), or max_cycles model cycles have passed. *done (may be
 * NULL) is set when every tile ended. The cores of ended tiles stop; their
 * dataflow units and routers keep working.
 * Errors: WSE_ERROR_INVALID_PARAM (b NULL), a hook's error, or an error of
 * the tile or dataflow models. */
int wse_fast_board_run(struct wse_fast_board *b, uint64_t max_cycles, bool *done);

/* Advance the board by up to max_cycles model cycles, in whole rounds,
 * whether or not the tiles' programs have ended. Stops early, with *idle
 * set, once the board is quiet: nothing can move before something from
 * outside (a management access, an intake wavelet, an outlet taking a
 * wavelet) acts; call wse_fast_board_wake() after such an act. Also
 * stops early, *idle clear, in the round the edge intakes empty, when
 * they held wavelets at the start: the caller's stream-in is taken whole.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL), and those of
 * wse_fast_board_run(). */
int wse_fast_board_advance(struct wse_fast_board *b, uint64_t max_cycles, bool *idle);

/* Let `cycles` (rounded up to whole rounds) pass on a quiet board
 * without running it: the released cores count them as idle cycles.
 * (On a board that is not quiet, wse_fast_board_advance() instead.)
 * Errors: WSE_ERROR_INVALID_PARAM (NULL). */
int wse_fast_board_skip(struct wse_fast_board *b, uint64_t cycles);

/* Something outside the board acted: the next advance runs at least
 * three rounds before it may report the board quiet.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL). */
int wse_fast_board_wake(struct wse_fast_board *b);

/* Read a route entry (as wse_fast_board_route() wrote it).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, color > 31), WSE_ERROR_RANGE. */
int wse_fast_board_route_read(const struct wse_fast_board *b, unsigned x, unsigned y,
			      unsigned color, uint32_t *rx, uint32_t *tx);

/* Read the router counters of tile (x, y) into v (may be NULL when
 * clear), then clear them when clear is set. Counters saturate at
 * 0xFFFF_FFFF. Forwarded and dropped count wavelets, as the RTL's; the
 * model's stalled counts, per output port, the cycles of the rounds at
 * whose end a wavelet still waited for that port (the RTL counts cycles
 * one by one; the two are close, not equal).
 * Errors: WSE_ERROR_INVALID_PARAM (b NULL, v NULL without clear),
 * WSE_ERROR_RANGE. */
int wse_fast_board_counters(struct wse_fast_board *b, unsigned x, unsigned y,
			    uint32_t v[WSE_FAST_COUNTERS], bool clear);

/* Intake wavelets of an edge port not yet taken by its edge router, and
 * dropping them (a cancelled stream-in).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, bad edge), WSE_ERROR_RANGE (row). */
int wse_fast_board_intake_pending(const struct wse_fast_board *b, enum wse_fast_edge edge,
				  unsigned row, size_t *count);
int wse_fast_board_intake_drop(struct wse_fast_board *b, enum wse_fast_edge edge, unsigned row);

/* The board's time: model cycles since creation.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL). */
int wse_fast_board_now(const struct wse_fast_board *b, uint64_t *now);

#ifdef __cplusplus
}
#endif
#endif

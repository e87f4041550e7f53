/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_fast_tile.h - the instruction-set model of one wsemu tile core, the
 * first building block of wsemu-fast (docs/wsemu-fast.md).
 *
 * One struct wse_fast_tile holds a tile core's whole architectural state:
 * the integer and F registers, the pc, the CSRs of rtl/pe/wse_pe_csr.sv,
 * IMEM, DMEM and the host I/O watcher of rtl/pe/wse_pe_hostio.sv. The
 * handle is opaque; a board model holds one per tile. Every function is
 * reentrant on distinct tiles and none keeps global state, so a mesh of
 * tiles may be run from several threads (one tile per thread at a time).
 *
 * The programs see exactly what they see on the RTL (docs/core.md): RV32IMF
 * in machine mode, the same CSRs, traps, memory map and counters. Time is
 * counted by the cost model of docs/wsemu-fast.md, which gives each
 * instruction the cycles the RTL tile takes for it when nothing else
 * contends for DMEM; it is not cycle-accurate for a whole board.
 *
 * Errors are the negative codes of wsemu/wse_error.h.
 */
#ifndef WSEMU_WSE_FAST_TILE_H
#define WSEMU_WSE_FAST_TILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tile's memory map (docs/core.md). */
#define WSE_FAST_IMEM_BASE 0x80000000u
#define WSE_FAST_DMEM_BASE 0x80100000u
#define WSE_FAST_TOHOST_ADDR 0x80100000u
#define WSE_FAST_PUTCHAR_ADDR 0x80100010u

/* The management port's resume-pc CSR number (docs/register-map.md). */
#define WSE_FAST_CSR_DPC 0x7b1u

struct wse_fast_tile;

/* The configuration of one tile, from the board's device tree (wse_cfg.h
 * holds the same numbers for a board known at build time). */
struct wse_fast_tile_cfg {
	uint32_t imem_bytes; /* a power of two, >= 4 */
	uint32_t dmem_bytes; /* a power of two, >= 32 (holds the host I/O block) */
	uint32_t dmem_banks; /* >= 1; recorded, not timed (no contention yet) */
	uint8_t x, y;        /* tile coordinates: mhartid = y << 8 | x */
};

/* Called for each console character (the HTIF console and the putchar
 * word), in program order. */
typedef void (*wse_fast_putc_fn)(void *ctx, uint8_t c);

/* Asked before a store that would print: true if the console sink takes a
 * character now. While it returns false the store waits, as the RTL's does
 * on a full console buffer (wse_pe_hostio): it is tried again a cycle
 * later, not retired, and neither memory nor the console sees it. */
typedef bool (*wse_fast_putc_room_fn)(void *ctx);

/* Why wse_fast_tile_run() returned (non-negative return values). */
enum wse_fast_stop {
	WSE_FAST_STOP_BUDGET = 0, /* the cycle or instruction budget is spent */
	WSE_FAST_STOP_EXIT = 1,   /* the program wrote its end to tohost */
	WSE_FAST_STOP_HALTED = 2, /* the core is halted (wse_fast_tile_set_halt) */
	WSE_FAST_STOP_UNMODELLED = 3 /* the next instruction is a dataflow-unit one
				      * (df.rd, df.wr): not modelled yet, not executed */
};

/* What one wse_fast_tile_run() did. */
struct wse_fast_run {
	uint64_t steps;   /* instructions executed, those that trapped or waited included */
	uint64_t retired; /* instructions retired (trapping ones excluded) */
	uint64_t cycles;  /* cycles by the cost model */
};

/* The tile's end-of-program state, as TILE_STATUS shows it. */
struct wse_fast_status {
	bool halted;         /* halted (set after create and after reset) */
	bool done;           /* the program wrote its end to tohost */
	bool failed;         /* done with a failure code */
	uint32_t exit_value; /* tohost's low word of the end: 1 pass, code << 1 | 1 */
};

/* Create a tile: memories zeroed, the core in reset state and halted (as
 * TILE_CTRL.HALT after reset), pc 0x8000_0000.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a size not a power of two or too
 * small, no banks), WSE_ERROR_NO_MEM. */
int wse_fast_tile_create(const struct wse_fast_tile_cfg *cfg, struct wse_fast_tile **out);

/* Free a tile; NULL is ignored. */
void wse_fast_tile_destroy(struct wse_fast_tile *t);

/* Set the console sink (NULL: characters are dropped, the default).
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_set_console(struct wse_fast_tile *t, wse_fast_putc_fn fn, void *ctx);

/* Set the console sink's room check, called with the sink's ctx (NULL:
 * always room, the default).
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_set_console_room(struct wse_fast_tile *t, wse_fast_putc_room_fn fn);

/* Core reset (TILE_CTRL.CORE_RESET): registers, F registers, CSRs,
 * counters and the tohost watcher to their reset values, pc 0x8000_0000;
 * the memories and the halt state are kept.
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_reset(struct wse_fast_tile *t);

/* Halt (true) or release (false) the core, as TILE_CTRL.HALT. The model
 * always stops between instructions, so a halt takes effect at once.
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_set_halt(struct wse_fast_tile *t, bool halt);

/* Run the core until max_cycles cycles or max_steps instructions have been
 * spent (an instruction that crosses the cycle budget completes: up to 33
 * cycles more), the program writes its end to tohost (the run stops after
 * that store; the core can be run on, as the RTL core runs on), the core
 * is halted, or the next instruction needs a unit not modelled yet: the
 * dataflow unit's df.rd and df.wr (custom-0, funct3 1 and 2), which is not
 * executed (pc stays at it; the other custom-0 encodings are illegal
 * instructions, as on the RTL). *out (may be NULL) gets what was done.
 * Returns a wse_fast_stop value.
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_run(struct wse_fast_tile *t, uint64_t max_cycles, uint64_t max_steps,
		      struct wse_fast_run *out);

/* The dataflow instruction a run stopped at (WSE_FAST_STOP_UNMODELLED),
 * for a board model that executes the dataflow unit itself: its word and
 * the values of its rs1 and rs2.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL), WSE_ERROR_NOT_FOUND (pc does not
 * hold df.rd or df.wr). */
int wse_fast_tile_df_pending(const struct wse_fast_tile *t, uint32_t *instr, uint32_t *rs1_value,
			     uint32_t *rs2_value);

/* Complete that instruction as the dataflow unit answered it: df.rd
 * writes rd_value to its rd (df.wr ignores it); the instruction retires,
 * took `cycles` cycles (the wait for a wavelet or a credit included), and
 * the core moves to the next one.
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL, cycles 0), WSE_ERROR_NOT_FOUND
 * (pc does not hold df.rd or df.wr). */
int wse_fast_tile_df_complete(struct wse_fast_tile *t, uint32_t rd_value, uint32_t cycles);

/* Count n cycles in which the core does not execute (halted, or waiting
 * on something the board models): mcycle advances unless mcountinhibit.CY
 * is set, as the RTL counter does while the core is halted.
 * Errors: WSE_ERROR_INVALID_PARAM (t NULL). */
int wse_fast_tile_idle(struct wse_fast_tile *t, uint64_t n);

/* Management-port memory access: n whole words at a word address in IMEM
 * or DMEM (the core's addresses). The whole range is checked first; on an
 * error nothing is read or written.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL pointer with n > 0),
 * WSE_ERROR_ALIGN (addr not word-aligned), WSE_ERROR_RANGE (a word outside
 * both memories, or the range crosses out of the memory it starts in). */
int wse_fast_tile_mem_read(const struct wse_fast_tile *t, uint32_t addr, uint32_t *words, size_t n);
int wse_fast_tile_mem_write(struct wse_fast_tile *t, uint32_t addr, const uint32_t *words, size_t n);

/* The tile's DMEM itself, for the dataflow unit's engines, which read and
 * write it word by word as the RTL's do beside the core: the words at
 * byte offsets 0 .. *bytes - 1 from 0x8010_0000, little-endian. NULL
 * when t is NULL. */
uint8_t *wse_fast_tile_dmem(struct wse_fast_tile *t, uint32_t *bytes);

/* Management-port CSR access (the tile's CSR window, CSR[n]): every CSR of
 * docs/core.md with the core's read-only rules, plus WSE_FAST_CSR_DPC, the
 * resume pc (written only while the core is halted; a write while it runs
 * is ignored, as on the RTL). A write acts as a csrw would (a write to
 * either half of mcycle or minstret sets that half only; fcsr writes set
 * mstatus.FS to Dirty); fcsr is reachable while FS is Off.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL), WSE_ERROR_RANGE (n > 0xFFF),
 * WSE_ERROR_DEVICE (no such CSR, or a write to a read-only one: the
 * management port's error answer). */
int wse_fast_tile_csr_read(const struct wse_fast_tile *t, uint32_t n, uint32_t *value);
int wse_fast_tile_csr_write(struct wse_fast_tile *t, uint32_t n, uint32_t value);

/* Register access for tests and debuggers: x0..x31 and f0..f31 (raw bits).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL), WSE_ERROR_RANGE (n > 31). */
int wse_fast_tile_xreg(const struct wse_fast_tile *t, unsigned n, uint32_t *value);
int wse_fast_tile_freg(const struct wse_fast_tile *t, unsigned n, uint32_t *value);

/* The end-of-program state (TILE_STATUS).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL). */
int wse_fast_tile_status(const struct wse_fast_tile *t, struct wse_fast_status *st);

#ifdef __cplusplus
}
#endif
#endif

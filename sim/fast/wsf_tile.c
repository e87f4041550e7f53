/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_tile.c - the instruction-set model of one tile core (wse_fast_tile.h).
 *
 * Each rule below is the RTL's: the decoder (rtl/pe/wse_pe_decoder.sv), the
 * core's completion and trap logic (wse_pe_core.sv), the LSU's checks
 * (wse_pe_lsu.sv), the CSR file (wse_pe_csr.sv), the mul/div unit's
 * results and latencies (wse_pe_muldiv.sv), the F coprocessor's decode and
 * latencies (rtl/pe/fpu/fpu_cop.sv, fpu.sv, fpu_divsqrt.sv) and the host
 * I/O watcher (wse_pe_hostio.sv). FP results come from the project's FPU C
 * model (tests/fpu/fpu_model.c), which the FPU's testbench checks against
 * the RTL bit for bit.
 */
#include "wse_fast_tile.h"

#include <stdlib.h>
#include <string.h>

#include "fpu_model.h"
#include "wsemu/wse_error.h"

/* ---- Constants of the core (rtl/pe/wse_pe_pkg.sv) -------------------------- */

#define WSF_MISA 0x40001120u

enum wsf_csr {
	WSF_CSR_FFLAGS = 0x001, WSF_CSR_FRM = 0x002, WSF_CSR_FCSR = 0x003,
	WSF_CSR_MSTATUS = 0x300, WSF_CSR_MISA = 0x301, WSF_CSR_MIE = 0x304,
	WSF_CSR_MTVEC = 0x305, WSF_CSR_MSTATUSH = 0x310, WSF_CSR_MCOUNTINHIBIT = 0x320,
	WSF_CSR_MSCRATCH = 0x340, WSF_CSR_MEPC = 0x341, WSF_CSR_MCAUSE = 0x342,
	WSF_CSR_MTVAL = 0x343, WSF_CSR_MIP = 0x344,
	WSF_CSR_MCYCLE = 0xb00, WSF_CSR_MINSTRET = 0xb02,
	WSF_CSR_MCYCLEH = 0xb80, WSF_CSR_MINSTRETH = 0xb82,
	WSF_CSR_CYCLE = 0xc00, WSF_CSR_INSTRET = 0xc02,
	WSF_CSR_CYCLEH = 0xc80, WSF_CSR_INSTRETH = 0xc82,
	WSF_CSR_MVENDORID = 0xf11, WSF_CSR_MARCHID = 0xf12, WSF_CSR_MIMPID = 0xf13,
	WSF_CSR_MHARTID = 0xf14
};

enum wsf_exc {
	WSF_EXC_INSTR_MISALIGNED = 0, WSF_EXC_INSTR_ACCESS = 1, WSF_EXC_ILLEGAL = 2,
	WSF_EXC_BREAKPOINT = 3, WSF_EXC_LOAD_MISALIGNED = 4, WSF_EXC_LOAD_ACCESS = 5,
	WSF_EXC_STORE_MISALIGNED = 6, WSF_EXC_STORE_ACCESS = 7, WSF_EXC_ECALL_M = 11
};

/* Cost model (docs/wsemu-fast.md): cycles per instruction class, the RTL
 * tile's with no DMEM contention (docs/core.md, docs/fpu.md). */
enum wsf_cost {
	WSF_COST_BASE = 1,        /* ALU, branch, jump, CSR, fence, wfi, store, trap */
	WSF_COST_LOAD = 2,        /* lb..lw, flw */
	WSF_COST_MUL = 2,         /* mul, mulh, mulhsu, mulhu */
	WSF_COST_DIV = 34,        /* div, divu, rem, remu */
	WSF_COST_DIV_SHORT = 2,   /* the same by zero or overflowing */
	WSF_COST_FP = 3,          /* every other F arithmetic instruction */
	WSF_COST_FDIV = 18,       /* fdiv.s */
	WSF_COST_FSQRT = 17,      /* fsqrt.s */
	WSF_COST_FDS_SPECIAL = 4  /* fdiv/fsqrt of NaN, inf, zero (sqrt: negative) */
};

/* mcountinhibit bits. */
#define WSF_INHIBIT_CY 0x1u
#define WSF_INHIBIT_IR 0x4u

struct wse_fast_tile {
	uint32_t x[32];
	uint32_t f[32];
	uint32_t pc; /* the next instruction (the resume pc while halted) */
	uint32_t *imem;
	uint8_t *dmem;
	uint32_t imem_bytes, dmem_bytes, dmem_banks;
	uint16_t hartid;
	bool halted;

	/* CSR state */
	bool mie, mpie;
	uint8_t fs, fflags, frm;
	uint8_t mie_en;  /* mie.{MEIE, MTIE, MSIE} as bits 2..0 */
	uint8_t inhibit; /* mcountinhibit.{IR, CY} at bits 2, 0 */
	uint32_t mtvec, mscratch, mepc, mcause, mtval;
	uint64_t mcycle, minstret;

	/* host I/O watcher */
	uint32_t tohost_lo;
	bool done;
	uint32_t exit_code;

	wse_fast_putc_fn putc_fn;
	wse_fast_putc_room_fn putc_room_fn;
	void *putc_ctx;
};

/* ---- Creation and reset --------------------------------------------------------- */

static bool wsf_pow2(uint32_t v) { return v && !(v & (v - 1)); }

int wse_fast_tile_create(const struct wse_fast_tile_cfg *cfg, struct wse_fast_tile **out)
{
	if (!cfg || !out || !wsf_pow2(cfg->imem_bytes) || cfg->imem_bytes < 4 ||
	    !wsf_pow2(cfg->dmem_bytes) || cfg->dmem_bytes < 32 || cfg->dmem_banks == 0)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_fast_tile *t = calloc(1, sizeof(*t));
	if (!t)
		return WSE_ERROR_NO_MEM;
	t->imem = calloc(cfg->imem_bytes / 4, 4);
	t->dmem = calloc(cfg->dmem_bytes, 1);
	if (!t->imem || !t->dmem) {
		wse_fast_tile_destroy(t);
		return WSE_ERROR_NO_MEM;
	}
	t->imem_bytes = cfg->imem_bytes;
	t->dmem_bytes = cfg->dmem_bytes;
	t->dmem_banks = cfg->dmem_banks;
	t->hartid = (uint16_t)(cfg->y << 8 | cfg->x);
	t->halted = true;
	wse_fast_tile_reset(t);
	*out = t;
	return WSE_SUCCESS;
}

void wse_fast_tile_destroy(struct wse_fast_tile *t)
{
	if (!t)
		return;
	free(t->imem);
	free(t->dmem);
	free(t);
}

int wse_fast_tile_set_console(struct wse_fast_tile *t, wse_fast_putc_fn fn, void *ctx)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	t->putc_fn = fn;
	t->putc_ctx = ctx;
	return WSE_SUCCESS;
}

int wse_fast_tile_set_console_room(struct wse_fast_tile *t, wse_fast_putc_room_fn fn)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	t->putc_room_fn = fn;
	return WSE_SUCCESS;
}

int wse_fast_tile_reset(struct wse_fast_tile *t)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	memset(t->x, 0, sizeof(t->x));
	memset(t->f, 0, sizeof(t->f));
	t->pc = WSE_FAST_IMEM_BASE;
	t->mie = t->mpie = false;
	t->fs = t->fflags = t->frm = 0;
	t->mie_en = t->inhibit = 0;
	t->mtvec = WSE_FAST_IMEM_BASE;
	t->mscratch = t->mepc = t->mcause = t->mtval = 0;
	t->mcycle = t->minstret = 0;
	t->tohost_lo = 0;
	t->done = false;
	t->exit_code = 0;
	return WSE_SUCCESS;
}

int wse_fast_tile_set_halt(struct wse_fast_tile *t, bool halt)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	t->halted = halt;
	return WSE_SUCCESS;
}

int wse_fast_tile_idle(struct wse_fast_tile *t, uint64_t n)
{
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (!(t->inhibit & WSF_INHIBIT_CY))
		t->mcycle += n;
	return WSE_SUCCESS;
}

int wse_fast_tile_status(const struct wse_fast_tile *t, struct wse_fast_status *st)
{
	if (!t || !st)
		return WSE_ERROR_INVALID_PARAM;
	st->halted = t->halted;
	st->done = t->done;
	st->failed = t->done && t->exit_code != 1;
	st->exit_value = t->exit_code;
	return WSE_SUCCESS;
}

/* Register n of a file of 32 (the x or the f registers). */
static int wsf_reg(const struct wse_fast_tile *t, const uint32_t *file, unsigned n, uint32_t *value)
{
	if (!t || !value)
		return WSE_ERROR_INVALID_PARAM;
	if (n > 31)
		return WSE_ERROR_RANGE;
	*value = file[n];
	return WSE_SUCCESS;
}

int wse_fast_tile_xreg(const struct wse_fast_tile *t, unsigned n, uint32_t *value)
{
	return wsf_reg(t, t ? t->x : NULL, n, value);
}

int wse_fast_tile_freg(const struct wse_fast_tile *t, unsigned n, uint32_t *value)
{
	return wsf_reg(t, t ? t->f : NULL, n, value);
}

/* ---- CSR file ----------------------------------------------------------------------- */

/* Read CSR n as both ports see it; false if the core has no such CSR. */
static bool wsf_csr_get(const struct wse_fast_tile *t, uint32_t n, uint32_t *v)
{
	switch (n) {
	case WSF_CSR_MSTATUS:
		*v = (uint32_t)(t->fs == 3) << 31 | (uint32_t)t->fs << 13 | 3u << 11 |
		     (uint32_t)t->mpie << 7 | (uint32_t)t->mie << 3;
		return true;
	case WSF_CSR_FFLAGS: *v = t->fflags; return true;
	case WSF_CSR_FRM: *v = t->frm; return true;
	case WSF_CSR_FCSR: *v = (uint32_t)t->frm << 5 | t->fflags; return true;
	case WSF_CSR_MISA: *v = WSF_MISA; return true;
	case WSF_CSR_MIE:
		*v = (uint32_t)(t->mie_en >> 2 & 1) << 11 | (uint32_t)(t->mie_en >> 1 & 1) << 7 |
		     (uint32_t)(t->mie_en & 1) << 3;
		return true;
	case WSF_CSR_MTVEC: *v = t->mtvec; return true;
	case WSF_CSR_MCOUNTINHIBIT: *v = t->inhibit; return true;
	case WSF_CSR_MSCRATCH: *v = t->mscratch; return true;
	case WSF_CSR_MEPC: *v = t->mepc; return true;
	case WSF_CSR_MCAUSE: *v = t->mcause; return true;
	case WSF_CSR_MTVAL: *v = t->mtval; return true;
	case WSF_CSR_MCYCLE: case WSF_CSR_CYCLE: *v = (uint32_t)t->mcycle; return true;
	case WSF_CSR_MCYCLEH: case WSF_CSR_CYCLEH: *v = (uint32_t)(t->mcycle >> 32); return true;
	case WSF_CSR_MINSTRET: case WSF_CSR_INSTRET: *v = (uint32_t)t->minstret; return true;
	case WSF_CSR_MINSTRETH: case WSF_CSR_INSTRETH: *v = (uint32_t)(t->minstret >> 32); return true;
	case WSF_CSR_MSTATUSH: case WSF_CSR_MIP:
	case WSF_CSR_MVENDORID: case WSF_CSR_MARCHID: case WSF_CSR_MIMPID:
		*v = 0;
		return true;
	case WSF_CSR_MHARTID: *v = t->hartid; return true;
	default: return false;
	}
}

/* Counter halves a CSR write set (its increment is then not done). */
#define WSF_WROTE_MCYCLE 0x1u
#define WSF_WROTE_MINSTRET 0x2u

/* Write CSR n (known, writable); returns the WSF_WROTE_* bits. */
static unsigned wsf_csr_set(struct wse_fast_tile *t, uint32_t n, uint32_t v)
{
	switch (n) {
	case WSF_CSR_MSTATUS:
		t->mie = v >> 3 & 1;
		t->mpie = v >> 7 & 1;
		t->fs = v >> 13 & 3;
		break;
	case WSF_CSR_FFLAGS: t->fflags = v & 0x1f; t->fs = 3; break;
	case WSF_CSR_FRM: t->frm = v & 7; t->fs = 3; break;
	case WSF_CSR_FCSR: t->fflags = v & 0x1f; t->frm = v >> 5 & 7; t->fs = 3; break;
	case WSF_CSR_MIE:
		t->mie_en = (uint8_t)((v >> 11 & 1) << 2 | (v >> 7 & 1) << 1 | (v >> 3 & 1));
		break;
	case WSF_CSR_MTVEC: t->mtvec = v & ~3u; break;
	case WSF_CSR_MCOUNTINHIBIT: t->inhibit = v & (WSF_INHIBIT_CY | WSF_INHIBIT_IR); break;
	case WSF_CSR_MSCRATCH: t->mscratch = v; break;
	case WSF_CSR_MEPC: t->mepc = v & ~3u; break;
	case WSF_CSR_MCAUSE: t->mcause = v; break;
	case WSF_CSR_MTVAL: t->mtval = v; break;
	case WSF_CSR_MCYCLE:
		t->mcycle = (t->mcycle & ~0xffffffffull) | v;
		return WSF_WROTE_MCYCLE;
	case WSF_CSR_MCYCLEH:
		t->mcycle = (t->mcycle & 0xffffffffull) | (uint64_t)v << 32;
		return WSF_WROTE_MCYCLE;
	case WSF_CSR_MINSTRET:
		t->minstret = (t->minstret & ~0xffffffffull) | v;
		return WSF_WROTE_MINSTRET;
	case WSF_CSR_MINSTRETH:
		t->minstret = (t->minstret & 0xffffffffull) | (uint64_t)v << 32;
		return WSF_WROTE_MINSTRET;
	default: break; /* misa, mstatush, mip: writes are ignored */
	}
	return 0;
}

static bool wsf_csr_read_only(uint32_t n) { return (n >> 10 & 3) == 3; }

int wse_fast_tile_csr_read(const struct wse_fast_tile *t, uint32_t n, uint32_t *value)
{
	if (!t || !value)
		return WSE_ERROR_INVALID_PARAM;
	if (n > 0xfff)
		return WSE_ERROR_RANGE;
	if (n == WSE_FAST_CSR_DPC) {
		*value = t->pc;
		return WSE_SUCCESS;
	}
	return wsf_csr_get(t, n, value) ? WSE_SUCCESS : WSE_ERROR_DEVICE;
}

int wse_fast_tile_csr_write(struct wse_fast_tile *t, uint32_t n, uint32_t value)
{
	uint32_t old;
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	if (n > 0xfff)
		return WSE_ERROR_RANGE;
	if (n == WSE_FAST_CSR_DPC) {
		if (t->halted)
			t->pc = value;
		return WSE_SUCCESS;
	}
	if (!wsf_csr_get(t, n, &old) || wsf_csr_read_only(n))
		return WSE_ERROR_DEVICE;
	wsf_csr_set(t, n, value);
	return WSE_SUCCESS;
}

/* ---- Memories through the management port ---------------------------------------- */

/* The memory holding n words from addr, as a byte pointer; NULL if none. */
static uint8_t *wsf_mgmt_span(const struct wse_fast_tile *t, uint32_t addr, size_t n, int *err)
{
	uint64_t end_off;
	if (addr & 3) {
		*err = WSE_ERROR_ALIGN;
		return NULL;
	}
	*err = WSE_ERROR_RANGE;
	uint32_t ioff = addr - WSE_FAST_IMEM_BASE, doff = addr - WSE_FAST_DMEM_BASE;
	if (ioff < t->imem_bytes) {
		end_off = (uint64_t)ioff + 4 * (uint64_t)n;
		return end_off <= t->imem_bytes ? (uint8_t *)t->imem + ioff : NULL;
	}
	if (doff < t->dmem_bytes) {
		end_off = (uint64_t)doff + 4 * (uint64_t)n;
		return end_off <= t->dmem_bytes ? t->dmem + doff : NULL;
	}
	return NULL;
}

/* Copy n words between the memory at addr and buf (to it when write). */
static int wsf_mgmt_copy(const struct wse_fast_tile *t, uint32_t addr, void *buf, size_t n, bool write)
{
	int err;
	if (!t || (!buf && n))
		return WSE_ERROR_INVALID_PARAM;
	uint8_t *p = wsf_mgmt_span(t, addr, n ? n : 1, &err);
	if (!p)
		return err;
	if (write)
		memcpy(p, buf, 4 * n);
	else
		memcpy(buf, p, 4 * n);
	return WSE_SUCCESS;
}

int wse_fast_tile_mem_read(const struct wse_fast_tile *t, uint32_t addr, uint32_t *words, size_t n)
{
	return wsf_mgmt_copy(t, addr, words, n, false);
}

uint8_t *wse_fast_tile_dmem(struct wse_fast_tile *t, uint32_t *bytes)
{
	if (bytes)
		*bytes = t ? t->dmem_bytes : 0;
	return t ? t->dmem : NULL;
}

int wse_fast_tile_mem_write(struct wse_fast_tile *t, uint32_t addr, const uint32_t *words, size_t n)
{
	return wsf_mgmt_copy(t, addr, (void *)(uintptr_t)words, n, true);
}

/* ---- Execution ---------------------------------------------------------------------- */

/* Trap entry: the instruction has no other effect and does not retire. */
static void wsf_trap(struct wse_fast_tile *t, uint32_t cause, uint32_t tval)
{
	t->mepc = t->pc;
	t->mcause = cause;
	t->mtval = tval;
	t->mpie = t->mie;
	t->mie = false;
	t->pc = t->mtvec;
}

static void wsf_putc(struct wse_fast_tile *t, uint32_t c)
{
	if (t->putc_fn)
		t->putc_fn(t->putc_ctx, (uint8_t)c);
}

/* The host I/O watcher sees every core store that reaches DMEM: the word
 * address and the store data in its byte lanes (a byte or half replicated).
 * Returns true at the end of the program. */
/* Does a store of wdata at word address waddr print (the putchar word, or
 * the HTIF console: tohost's high word, device 1, command 1)? */
static bool wsf_prints(uint32_t waddr, uint32_t wdata)
{
	return waddr == WSE_FAST_PUTCHAR_ADDR ||
	       (waddr == WSE_FAST_TOHOST_ADDR + 4 && wdata >> 24 == 1 && (wdata >> 16 & 0xff) == 1);
}

static bool wsf_hostio(struct wse_fast_tile *t, uint32_t waddr, uint32_t wdata)
{
	if (waddr == WSE_FAST_TOHOST_ADDR) {
		t->tohost_lo = wdata;
	} else if (wsf_prints(waddr, wdata)) {
		wsf_putc(t, waddr == WSE_FAST_PUTCHAR_ADDR ? wdata : t->tohost_lo);
	} else if (waddr == WSE_FAST_TOHOST_ADDR + 4 && wdata >> 24 == 0 && (wdata >> 16 & 0xff) == 0 &&
		   (t->tohost_lo & 1)) {
		t->done = true;
		t->exit_code = t->tohost_lo;
		return true;
	}
	return false;
}

static inline uint32_t wsf_imm_i(uint32_t in) { return (uint32_t)((int32_t)in >> 20); }
static inline uint32_t wsf_imm_s(uint32_t in)
{
	return (uint32_t)((int32_t)(in & 0xfe000000u) >> 20) | (in >> 7 & 0x1f);
}
static inline uint32_t wsf_imm_b(uint32_t in)
{
	return (uint32_t)((int32_t)(in & 0x80000000u) >> 19) | (in << 4 & 0x800) |
	       (in >> 20 & 0x7e0) | (in >> 7 & 0x1e);
}
static inline uint32_t wsf_imm_j(uint32_t in)
{
	return (uint32_t)((int32_t)(in & 0x80000000u) >> 11) | (in & 0xff000) |
	       (in >> 9 & 0x800) | (in >> 20 & 0x7fe);
}

/* Outcome of one instruction. */
struct wsf_step {
	uint32_t cost;  /* cycles */
	bool retired;   /* false: it trapped */
	bool exit;      /* it wrote the program's end to tohost */
	bool unmodelled; /* a dataflow instruction: not executed */
	unsigned wrote; /* WSF_WROTE_* */
};

/* Data access checks of the LSU: misaligned, then outside DMEM. Returns the
 * DMEM offset, or traps and returns UINT32_MAX. */
static uint32_t wsf_lsu_check(struct wse_fast_tile *t, uint32_t addr, uint32_t size, bool store)
{
	if ((size == 1 && (addr & 1)) || (size == 2 && (addr & 3))) {
		wsf_trap(t, store ? WSF_EXC_STORE_MISALIGNED : WSF_EXC_LOAD_MISALIGNED, addr);
		return UINT32_MAX;
	}
	uint32_t off = addr - WSE_FAST_DMEM_BASE;
	if (off >= t->dmem_bytes) {
		wsf_trap(t, store ? WSF_EXC_STORE_ACCESS : WSF_EXC_LOAD_ACCESS, addr);
		return UINT32_MAX;
	}
	return off;
}

static inline uint32_t wsf_dmem_word(const struct wse_fast_tile *t, uint32_t off)
{
	uint32_t w;
	memcpy(&w, t->dmem + (off & ~3u), 4);
	return w;
}

/* The store data in its byte lanes (a byte or half replicated). */
static uint32_t wsf_store_lanes(uint32_t size, uint32_t v)
{
	if (size == 0)
		return (v & 0xff) * 0x01010101u;
	if (size == 1)
		return (v & 0xffff) * 0x00010001u;
	return v;
}

/* Would the store print, with the console sink full? Then it waits, as the
 * RTL's store does (wse_pe_hostio): tried again a cycle later, not retired. */
static bool wsf_store_waits(struct wse_fast_tile *t, uint32_t off, uint32_t size, uint32_t v,
			    struct wsf_step *s)
{
	if (!wsf_prints(WSE_FAST_DMEM_BASE + (off & ~3u), wsf_store_lanes(size, v)) || !t->putc_fn || !t->putc_room_fn || t->putc_room_fn(t->putc_ctx))
		return false;
	s->retired = false;
	return true;
}

/* A store of size 0/1/2 (byte, half, word) at a checked DMEM offset. */
static bool wsf_store(struct wse_fast_tile *t, uint32_t off, uint32_t size, uint32_t v)
{
	if (size == 0) {
		t->dmem[off] = (uint8_t)v;
	} else if (size == 1) {
		uint16_t h = (uint16_t)v;
		memcpy(t->dmem + off, &h, 2);
	} else {
		memcpy(t->dmem + off, &v, 4);
	}
	return wsf_hostio(t, WSE_FAST_DMEM_BASE + (off & ~3u), wsf_store_lanes(size, v));
}

/* ---- The F extension (fpu_cop.sv) ---------------------------------------- */

#define WSF_OPC_LOAD_FP 0x07u
#define WSF_OPC_STORE_FP 0x27u
#define WSF_OPC_MADD 0x43u
#define WSF_OPC_MSUB 0x47u
#define WSF_OPC_NMSUB 0x4bu
#define WSF_OPC_NMADD 0x4fu
#define WSF_OPC_OP_FP 0x53u
#define WSF_OPC_CUSTOM0 0x0bu

struct wsf_fdec {
	int op;
	bool legal, uses_rm, int_dst, int_src;
};

/* Decode an arithmetic F instruction (not flw/fsw) as fpu_cop does. */
static struct wsf_fdec wsf_fp_decode(uint32_t in)
{
	struct wsf_fdec d = { FPU_ADD, false, false, false, false };
	uint32_t opc = in & 0x7f, f3 = in >> 12 & 7, rs2 = in >> 20 & 0x1f, f7 = in >> 25;
	if (opc != WSF_OPC_OP_FP) {
		static const int fused[4] = { FPU_MADD, FPU_MSUB, FPU_NMSUB, FPU_NMADD };
		d.op = fused[(opc >> 2) & 3];
		d.legal = (in >> 25 & 3) == 0;
		d.uses_rm = true;
		return d;
	}
	switch (f7) {
	case 0x00: d.op = FPU_ADD; d.legal = d.uses_rm = true; break;
	case 0x04: d.op = FPU_SUB; d.legal = d.uses_rm = true; break;
	case 0x08: d.op = FPU_MUL; d.legal = d.uses_rm = true; break;
	case 0x0c: d.op = FPU_DIV; d.legal = d.uses_rm = true; break;
	case 0x2c: d.op = FPU_SQRT; d.legal = rs2 == 0; d.uses_rm = true; break;
	case 0x10:
		d.legal = f3 <= 2;
		d.op = f3 == 0 ? FPU_SGNJ : f3 == 1 ? FPU_SGNJN : FPU_SGNJX;
		break;
	case 0x14:
		d.legal = f3 <= 1;
		d.op = f3 == 0 ? FPU_MIN : FPU_MAX;
		break;
	case 0x50:
		d.legal = f3 <= 2;
		d.int_dst = true;
		d.op = f3 == 2 ? FPU_EQ : f3 == 1 ? FPU_LT : FPU_LE;
		break;
	case 0x60:
		d.legal = rs2 <= 1;
		d.uses_rm = d.int_dst = true;
		d.op = (rs2 & 1) ? FPU_CVT_WU_S : FPU_CVT_W_S;
		break;
	case 0x68:
		d.legal = rs2 <= 1;
		d.uses_rm = d.int_src = true;
		d.op = (rs2 & 1) ? FPU_CVT_S_WU : FPU_CVT_S_W;
		break;
	case 0x70:
		d.legal = rs2 == 0 && f3 <= 1;
		d.int_dst = true;
		d.op = f3 == 0 ? FPU_MV_X_W : FPU_CLASS;
		break;
	case 0x78:
		d.legal = rs2 == 0 && f3 == 0;
		d.int_src = true;
		d.op = FPU_MV_W_X;
		break;
	default: break;
	}
	return d;
}

static bool wsf_f_special(uint32_t v)
{
	uint32_t e = v & 0x7f800000u;
	return e == 0x7f800000u || (v & 0x7fffffffu) == 0; /* NaN, inf, zero */
}

/* One F instruction (any of the F opcodes). */
static void wsf_exec_fp(struct wse_fast_tile *t, uint32_t in, struct wsf_step *s)
{
	uint32_t opc = in & 0x7f, f3 = in >> 12 & 7, rd = in >> 7 & 0x1f;
	uint32_t rs1 = in >> 15 & 0x1f, rs2 = in >> 20 & 0x1f, rs3 = in >> 27;

	if (opc == WSF_OPC_LOAD_FP || opc == WSF_OPC_STORE_FP) {
		bool st = opc == WSF_OPC_STORE_FP;
		if (f3 != 2 || t->fs == 0) {
			wsf_trap(t, WSF_EXC_ILLEGAL, in);
			s->retired = false;
			return;
		}
		uint32_t addr = t->x[rs1] + (st ? wsf_imm_s(in) : wsf_imm_i(in));
		uint32_t off = wsf_lsu_check(t, addr, 2, st);
		if (off == UINT32_MAX) {
			s->retired = false;
			return;
		}
		if (st) {
			if (wsf_store_waits(t, off, 2, t->f[rs2], s))
				return;
			s->exit = wsf_store(t, off, 2, t->f[rs2]);
		} else {
			t->f[rd] = wsf_dmem_word(t, off);
			t->fs = 3;
			s->cost = WSF_COST_LOAD;
		}
		t->pc += 4;
		return;
	}

	struct wsf_fdec d = wsf_fp_decode(in);
	uint32_t rm = f3 == 7 ? t->frm : f3;
	if (!d.legal || (d.uses_rm && rm > 4) || t->fs == 0) {
		wsf_trap(t, WSF_EXC_ILLEGAL, in);
		s->retired = false;
		return;
	}
	uint32_t a = d.int_src ? t->x[rs1] : t->f[rs1], b = t->f[rs2], c = t->f[rs3], flags = 0;
	uint32_t r = fpu_model(d.op, (int)rm, a, b, c, &flags);
	if (d.int_dst) {
		if (rd)
			t->x[rd] = r;
	} else {
		t->f[rd] = r;
		t->fs = 3;
	}
	if (flags) {
		t->fflags |= (uint8_t)flags;
		t->fs = 3;
	}
	if (d.op == FPU_DIV)
		s->cost = wsf_f_special(a) || wsf_f_special(b) ? WSF_COST_FDS_SPECIAL : WSF_COST_FDIV;
	else if (d.op == FPU_SQRT)
		s->cost = wsf_f_special(a) || (a >> 31) ? WSF_COST_FDS_SPECIAL : WSF_COST_FSQRT;
	else
		s->cost = WSF_COST_FP;
	t->pc += 4;
}

/* ---- The integer core ------------------------------------------------------- */

static uint32_t wsf_muldiv(uint32_t f3, uint32_t a, uint32_t b, uint32_t *cost)
{
	*cost = WSF_COST_MUL;
	switch (f3) {
	case 0: return a * b;
	case 1: return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
	case 2: return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int64_t)b) >> 32);
	case 3: return (uint32_t)(((uint64_t)a * b) >> 32);
	default: break;
	}
	bool sgn = !(f3 & 1), rem = f3 & 2;
	*cost = WSF_COST_DIV_SHORT;
	if (b == 0)
		return rem ? a : 0xffffffffu;
	if (sgn && a == 0x80000000u && b == 0xffffffffu)
		return rem ? 0 : a;
	*cost = WSF_COST_DIV;
	if (sgn)
		return rem ? (uint32_t)((int32_t)a % (int32_t)b) : (uint32_t)((int32_t)a / (int32_t)b);
	return rem ? a % b : a / b;
}

static uint32_t wsf_alu(uint32_t f3, bool alt, uint32_t a, uint32_t b)
{
	switch (f3) {
	case 0: return alt ? a - b : a + b;
	case 1: return a << (b & 31);
	case 2: return (int32_t)a < (int32_t)b;
	case 3: return a < b;
	case 4: return a ^ b;
	case 5: return alt ? (uint32_t)((int32_t)a >> (b & 31)) : a >> (b & 31);
	case 6: return a | b;
	default: return a & b;
	}
}

static void wsf_illegal(struct wse_fast_tile *t, uint32_t in, struct wsf_step *s)
{
	wsf_trap(t, WSF_EXC_ILLEGAL, in);
	s->retired = false;
}

static void wsf_exec_csr(struct wse_fast_tile *t, uint32_t in, struct wsf_step *s)
{
	uint32_t f3 = in >> 12 & 7, rs1 = in >> 15 & 0x1f, rd = in >> 7 & 0x1f, n = in >> 20;
	uint32_t src = (f3 & 4) ? rs1 : t->x[rs1], old;
	bool write = (f3 & 3) == 1 || rs1 != 0;
	bool fp = n == WSF_CSR_FFLAGS || n == WSF_CSR_FRM || n == WSF_CSR_FCSR;
	if (!wsf_csr_get(t, n, &old) || (write && wsf_csr_read_only(n)) || (fp && t->fs == 0)) {
		wsf_illegal(t, in, s);
		return;
	}
	if (write) {
		uint32_t v = (f3 & 3) == 1 ? src : (f3 & 3) == 2 ? old | src : old & ~src;
		s->wrote = wsf_csr_set(t, n, v);
	}
	if (rd)
		t->x[rd] = old;
	t->pc += 4;
}

static void wsf_exec_system(struct wse_fast_tile *t, uint32_t in, struct wsf_step *s)
{
	uint32_t f3 = in >> 12 & 7;
	if (f3 == 4) {
		wsf_illegal(t, in, s);
	} else if (f3 != 0) {
		wsf_exec_csr(t, in, s);
	} else {
		switch (in >> 7) {
		case 0x0000000: /* ecall */
			wsf_trap(t, WSF_EXC_ECALL_M, 0);
			s->retired = false;
			break;
		case 0x0002000: /* ebreak */
			wsf_trap(t, WSF_EXC_BREAKPOINT, t->pc);
			s->retired = false;
			break;
		case 0x0604000: /* mret */
			t->mie = t->mpie;
			t->mpie = true;
			t->pc = t->mepc;
			break;
		case 0x020a000: /* wfi */
			t->pc += 4;
			break;
		default: wsf_illegal(t, in, s); break;
		}
	}
}

/* A jump or taken branch to target: traps when it is not 4-aligned. */
static bool wsf_jump(struct wse_fast_tile *t, uint32_t target, struct wsf_step *s)
{
	if (target & 3) {
		wsf_trap(t, WSF_EXC_INSTR_MISALIGNED, target);
		s->retired = false;
		return false;
	}
	t->pc = target;
	return true;
}

/* Execute the instruction at t->pc. */
static void wsf_exec(struct wse_fast_tile *t, struct wsf_step *s)
{
	uint32_t ioff = t->pc - WSE_FAST_IMEM_BASE;
	if (ioff >= t->imem_bytes) {
		wsf_trap(t, WSF_EXC_INSTR_ACCESS, t->pc);
		s->retired = false;
		return;
	}
	uint32_t in = t->imem[ioff >> 2];
	uint32_t rd = in >> 7 & 0x1f, f3 = in >> 12 & 7, rs1 = in >> 15 & 0x1f, rs2 = in >> 20 & 0x1f;
	uint32_t f7 = in >> 25, a = t->x[rs1], b = t->x[rs2], r, off;

	switch (in & 0x7f) {
	case 0x37: /* lui */
		r = in & 0xfffff000u;
		break;
	case 0x17: /* auipc */
		r = t->pc + (in & 0xfffff000u);
		break;
	case 0x6f: /* jal */
		r = t->pc + 4;
		if (!wsf_jump(t, t->pc + wsf_imm_j(in), s))
			return;
		if (rd)
			t->x[rd] = r;
		return;
	case 0x67: /* jalr */
		if (f3 != 0) {
			wsf_illegal(t, in, s);
			return;
		}
		r = t->pc + 4;
		if (!wsf_jump(t, (a + wsf_imm_i(in)) & ~1u, s))
			return;
		if (rd)
			t->x[rd] = r;
		return;
	case 0x63: { /* branches */
		bool take;
		switch (f3) {
		case 0: take = a == b; break;
		case 1: take = a != b; break;
		case 4: take = (int32_t)a < (int32_t)b; break;
		case 5: take = (int32_t)a >= (int32_t)b; break;
		case 6: take = a < b; break;
		case 7: take = a >= b; break;
		default: wsf_illegal(t, in, s); return;
		}
		if (take)
			wsf_jump(t, t->pc + wsf_imm_b(in), s);
		else
			t->pc += 4;
		return;
	}
	case 0x03: /* loads */
		if (f3 == 3 || f3 >= 6) {
			wsf_illegal(t, in, s);
			return;
		}
		off = wsf_lsu_check(t, a + wsf_imm_i(in), f3 & 3, false);
		if (off == UINT32_MAX) {
			s->retired = false;
			return;
		}
		r = wsf_dmem_word(t, off) >> (8 * (off & 3));
		switch (f3) {
		case 0: r = (uint32_t)(int32_t)(int8_t)r; break;
		case 1: r = (uint32_t)(int32_t)(int16_t)r; break;
		case 4: r &= 0xff; break;
		case 5: r &= 0xffff; break;
		default: break;
		}
		s->cost = WSF_COST_LOAD;
		break;
	case 0x23: /* stores */
		if (f3 >= 3) {
			wsf_illegal(t, in, s);
			return;
		}
		off = wsf_lsu_check(t, a + wsf_imm_s(in), f3, true);
		if (off == UINT32_MAX) {
			s->retired = false;
			return;
		}
		if (wsf_store_waits(t, off, f3, b, s))
			return;
		s->exit = wsf_store(t, off, f3, b);
		t->pc += 4;
		return;
	case 0x13: /* OP-IMM */
		if ((f3 == 1 && f7 != 0) || (f3 == 5 && f7 != 0 && f7 != 0x20)) {
			wsf_illegal(t, in, s);
			return;
		}
		r = wsf_alu(f3, f3 == 5 && f7 == 0x20, a, wsf_imm_i(in));
		break;
	case 0x33: /* OP */
		if (f7 == 1) {
			r = wsf_muldiv(f3, a, b, &s->cost);
		} else if (f7 == 0 || (f7 == 0x20 && (f3 == 0 || f3 == 5))) {
			r = wsf_alu(f3, f7 == 0x20, a, b);
		} else {
			wsf_illegal(t, in, s);
			return;
		}
		break;
	case 0x0f: /* fence, fence.i */
		if (f3 > 1) {
			wsf_illegal(t, in, s);
			return;
		}
		t->pc += 4;
		return;
	case 0x73:
		wsf_exec_system(t, in, s);
		return;
	case WSF_OPC_LOAD_FP: case WSF_OPC_STORE_FP: case WSF_OPC_MADD: case WSF_OPC_MSUB:
	case WSF_OPC_NMSUB: case WSF_OPC_NMADD: case WSF_OPC_OP_FP:
		wsf_exec_fp(t, in, s);
		return;
	case WSF_OPC_CUSTOM0: /* df.rd (funct3 1), df.wr (2): not modelled yet */
		if (f3 == 1 || f3 == 2)
			s->unmodelled = true;
		else
			wsf_illegal(t, in, s);
		return;
	default: /* custom-1 and everything else: no unit accepts it */
		wsf_illegal(t, in, s);
		return;
	}
	if (rd)
		t->x[rd] = r;
	t->pc += 4;
}

/* The df.rd/df.wr word at pc, or 0 when pc holds none. */
static uint32_t wsf_df_at_pc(const struct wse_fast_tile *t)
{
	uint32_t ioff = t->pc - WSE_FAST_IMEM_BASE;
	if (ioff >= t->imem_bytes)
		return 0;
	uint32_t in = t->imem[ioff >> 2], f3 = in >> 12 & 7;
	return (in & 0x7f) == WSF_OPC_CUSTOM0 && (f3 == 1 || f3 == 2) ? in : 0;
}

int wse_fast_tile_df_pending(const struct wse_fast_tile *t, uint32_t *instr, uint32_t *rs1_value,
			     uint32_t *rs2_value)
{
	if (!t || !instr || !rs1_value || !rs2_value)
		return WSE_ERROR_INVALID_PARAM;
	uint32_t in = wsf_df_at_pc(t);
	if (!in)
		return WSE_ERROR_NOT_FOUND;
	*instr = in;
	*rs1_value = t->x[in >> 15 & 0x1f];
	*rs2_value = t->x[in >> 20 & 0x1f];
	return WSE_SUCCESS;
}

int wse_fast_tile_df_complete(struct wse_fast_tile *t, uint32_t rd_value, uint32_t cycles)
{
	if (!t || cycles == 0)
		return WSE_ERROR_INVALID_PARAM;
	uint32_t in = wsf_df_at_pc(t), rd = in >> 7 & 0x1f;
	if (!in)
		return WSE_ERROR_NOT_FOUND;
	if ((in >> 12 & 7) == 1 && rd)
		t->x[rd] = rd_value;
	t->pc += 4;
	if (!(t->inhibit & WSF_INHIBIT_CY))
		t->mcycle += cycles;
	if (!(t->inhibit & WSF_INHIBIT_IR))
		t->minstret++;
	return WSE_SUCCESS;
}

int wse_fast_tile_run(struct wse_fast_tile *t, uint64_t max_cycles, uint64_t max_steps,
		      struct wse_fast_run *out)
{
	struct wse_fast_run run = { 0, 0, 0 };
	int stop = WSE_FAST_STOP_BUDGET;
	if (!t)
		return WSE_ERROR_INVALID_PARAM;
	while (run.cycles < max_cycles && run.steps < max_steps) {
		if (t->halted) {
			stop = WSE_FAST_STOP_HALTED;
			break;
		}
		struct wsf_step s = { WSF_COST_BASE, true, false, false, 0 };
		uint8_t inhibit = t->inhibit; /* the counters follow the value before */
		wsf_exec(t, &s);
		if (s.unmodelled) {
			stop = WSE_FAST_STOP_UNMODELLED;
			break;
		}
		if (!(s.wrote & WSF_WROTE_MCYCLE) && !(inhibit & WSF_INHIBIT_CY))
			t->mcycle += s.cost;
		if (s.retired && !(s.wrote & WSF_WROTE_MINSTRET) && !(inhibit & WSF_INHIBIT_IR))
			t->minstret++;
		run.steps++;
		run.retired += s.retired;
		run.cycles += s.cost;
		if (s.exit) {
			stop = WSE_FAST_STOP_EXIT;
			break;
		}
	}
	if (out)
		*out = run;
	return stop;
}

/* wse_df.h - intrinsics of the PE's dataflow unit: fabric send/receive,
 * tasks, vector descriptors and operations. Two custom-0 instructions reach
 * a register window (rtl/pe/dataflow/wse_df_pkg.sv):
 *   df.rd rd, imm(rs1)    .insn i 0x0b, 1, rd, imm(rs1)
 *   df.wr rs2, imm(rs1)   .insn s 0x0b, 2, rs2, imm(rs1)
 * See docs/pe-programming.md. Freestanding: no libc. */
#ifndef WSE_DF_H
#define WSE_DF_H

#include <stdint.h>

/* Register window. */
#define WSE_DF_RECV     0x000u /* +c: rd pops color c (waits); wr sends data on c */
#define WSE_DF_QSTAT    0x020u /* +c: rd {head is control[31], count}; wr sends control on c */
#define WSE_DF_BIND     0x040u /* +c: {enable[31], task[5:0]} */
#define WSE_DF_NEXT     0x060u /* rd: next ready task; wr: activate task */
#define WSE_DF_BLOCK    0x061u /* wr: block task; rd: blocked[31:0] */
#define WSE_DF_UNBLOCK  0x062u /* wr: unblock task; rd: blocked[63:32] */
#define WSE_DF_ACTIVE   0x063u /* wr: deactivate task; rd: active[31:0] */
#define WSE_DF_ACTIVEH  0x064u /* rd: active[63:32] */
#define WSE_DF_VOP      0x070u /* wr: issue (waits while the queue is full); rd: status */
#define WSE_DF_VSCALAR  0x071u
#define WSE_DF_VFLAGS   0x072u /* rd: sticky NV DZ OF UF NX; wr: clear */
#define WSE_DF_VWAIT    0x073u /* rd: waits until the engine is idle, returns flags */
#define WSE_DF_VDONE    0x074u /* rd: operations completed */
#define WSE_DF_MOV      0x075u /* wr: issue a move (waits while its queue is full); rd: status */
#define WSE_DF_MDONE    0x076u /* rd: moves completed; wr: clear the error bit */
#define WSE_DF_MWAIT    0x077u /* rd: waits until the move channel is idle, returns MDONE */
#define WSE_DF_DSD      0x080u /* +8*d+f */

#define WSE_DF_NEXT_VALID 0x80000000u
#define WSE_DF_NEXT_DATA  0x00002000u
#define WSE_DF_NEXT_COLOR(n) (((n) >> 8) & 0x1fu)
#define WSE_DF_NEXT_TASK(n)  ((n) & 0x3fu)

/* Descriptor fields. */
enum { WSE_DSD_BASE = 0, WSE_DSD_LEN0, WSE_DSD_STRIDE0, WSE_DSD_LEN1, WSE_DSD_STRIDE1,
       WSE_DSD_TYPE, WSE_DSD_ADV };
enum { WSE_DSD_MEM = 0, WSE_DSD_FABRIC = 1 };

/* Vector operations and B sources. */
enum { WSE_V_FMOVS = 0, WSE_V_FADDS = 1, WSE_V_FMULS = 2, WSE_V_FMACS = 3,
       WSE_V_FMAXS = 4, WSE_V_RELU = 5, WSE_V_SPMACS = 6, WSE_V_SPIDX = 7 };
/* WSE_V_SPIDX (docs/pe-programming.md, "Sparse gathers"): b a fabric
 * descriptor whose color (BIND bit 30 set) carries one index-only share
 * (gap-coded index wavelets, no values, the last index wavelet with the
 * control bit); the engine decodes its slots, ascending, into its gather
 * table (WSE_GATHER_MAX entries) and sets the gather count. dst is a memory
 * descriptor that is not written: a slot at or beyond its LEN0 is refused
 * (WSE_VFLAG_SPARSE, not stored). */
#define WSE_GATHER_MAX 1024u
/* WSE_VOP_GATHER, with FMOVS/FADDS/FMULS/FMACS/FMAXS/RELU: the operation's
 * LEN0 is the gather count n (dst's LEN0 is ignored), and a's element
 * (i1, i0) is at a.BASE + 4 * (table[i0] * a.STRIDE0 + i1 * a.STRIDE1);
 * dst and b at their usual (i1, i0). With n = 0 the operation has no
 * element (no wavelet popped or sent). */
#define WSE_VOP_GATHER 0x02000000u
/* WSE_V_SPMACS (docs/pe-programming.md, "Sparse streams"): b a fabric descriptor
 * whose color carries one sparse share (gap-coded index wavelets, values,
 * the last value with the control bit), dst and a memory descriptors of
 * LEN0 tokens x LEN1 slots. A share the PE refuses sets WSE_VFLAG_SPARSE. */
#define WSE_VFLAG_SPARSE 0x100u
/* SPMACS's bmode: WSE_SP_FIRST (0) starts the chain with the first
 * product (dst = a * value), WSE_SP_ACC fmadds every value into dst as it
 * is (an empty share leaves dst unchanged). */
enum { WSE_SP_FIRST = 0, WSE_SP_ACC = 1 };
/* BIND bit 30: the color's control wavelets stay in its queue as data
 * (the sparse stream's end-of-share bit), never taken by the task unit. */
#define WSE_BIND_CTRL_DATA 0x40000000u
/* WSE_B_ADDEND, FMACS only: dst = b + a * VSCALAR, the addend an element of
 * b instead of dst (dst is not read, so it may be a fabric descriptor). */
enum { WSE_B_VEC = 0, WSE_B_SCALAR = 1, WSE_B_PERPASS = 2, WSE_B_ADDEND = 3 };

/* Operation word: op, descriptors dst/a/b, B source, optional task to
 * activate on completion, rounding mode (RISC-V rm 0..4). */
#define WSE_VOP(op, dst, a, b, bmode) \
	((uint32_t)(op) | ((uint32_t)(dst) << 4) | ((uint32_t)(a) << 7) | \
	 ((uint32_t)(b) << 10) | ((uint32_t)(bmode) << 13))
#define WSE_VOP_TASK(t) (0x8000u | ((uint32_t)(t) << 16))
#define WSE_VOP_RM(rm)  ((uint32_t)(rm) << 22)
/* Move word (register MOV): dst memory descriptor, a fabric descriptor;
 * WSE_VOP_TASK(t) may be ORed in. */
#define WSE_VMOV(dst, a) WSE_VOP(WSE_V_FMOVS, dst, a, 0, 0)

/* Move status (read of MOV). */
#define WSE_MOV_BUSY       0x80000000u
#define WSE_MOV_ERR        0x40000000u
#define WSE_MOV_QUEUED(s)  (((s) >> 4) & 0xfu)
#define WSE_MOV_DEPTH      2u

#define wse_df_rd(addr) ({ uint32_t v_; \
	__asm__ volatile(".insn i 0x0b, 1, %0, %1(x0)" : "=r"(v_) : "i"(addr) : "memory"); v_; })
#define wse_df_wr(addr, v) \
	__asm__ volatile(".insn s 0x0b, 2, %0, %1(x0)" :: "r"((uint32_t)(v)), "i"(addr) : "memory")
/* Variable address (rs1 + 0). */
static inline uint32_t wse_df_rdv(uint32_t addr)
{
	uint32_t v;
	__asm__ volatile(".insn i 0x0b, 1, %0, 0(%1)" : "=r"(v) : "r"(addr) : "memory");
	return v;
}
static inline void wse_df_wrv(uint32_t addr, uint32_t v)
{
	__asm__ volatile(".insn s 0x0b, 2, %0, 0(%1)" :: "r"(v), "r"(addr) : "memory");
}

/* ---- Fabric ---- */
static inline uint32_t wse_recv(uint32_t color) { return wse_df_rdv(WSE_DF_RECV + color); }
static inline void wse_send(uint32_t color, uint32_t data) { wse_df_wrv(WSE_DF_RECV + color, data); }
static inline void wse_send_ctrl(uint32_t color, uint32_t data) { wse_df_wrv(WSE_DF_QSTAT + color, data); }
static inline uint32_t wse_queue_count(uint32_t color) { return wse_df_rdv(WSE_DF_QSTAT + color) & 0x7fffffffu; }
static inline float wse_recv_f(uint32_t color)
{
	union { uint32_t u; float f; } v = { wse_recv(color) };
	return v.f;
}
static inline void wse_send_f(uint32_t color, float f)
{
	union { float f; uint32_t u; } v = { f };
	wse_send(color, v.u);
}

/* ---- Tasks ---- */
static inline void wse_bind(uint32_t color, uint32_t task) { wse_df_wrv(WSE_DF_BIND + color, 0x80000000u | task); }
static inline void wse_unbind(uint32_t color) { wse_df_wrv(WSE_DF_BIND + color, 0); }
/* No task; the color's control wavelets are data for the engine. */
static inline void wse_bind_ctrl_data(uint32_t color) { wse_df_wrv(WSE_DF_BIND + color, WSE_BIND_CTRL_DATA); }
static inline void wse_activate(uint32_t task) { wse_df_wr(WSE_DF_NEXT, task); }
static inline void wse_block(uint32_t task) { wse_df_wr(WSE_DF_BLOCK, task); }
static inline void wse_unblock(uint32_t task) { wse_df_wr(WSE_DF_UNBLOCK, task); }
static inline void wse_deactivate(uint32_t task) { wse_df_wr(WSE_DF_ACTIVE, task); }
static inline uint32_t wse_next_task(void) { return wse_df_rd(WSE_DF_NEXT); }

/* ---- Descriptors and vector operations ---- */
#define wse_dsd_set(d, f, v) wse_df_wr(WSE_DF_DSD + 8 * (d) + (f), (v))
#define wse_dsd_get(d, f) wse_df_rd(WSE_DF_DSD + 8 * (d) + (f))
/* Memory descriptor: len0 x len1 elements at base + i1*stride1 + i0*stride0
 * (strides in words), base advancing by adv words at every issue. */
#define wse_dsd_mem(d, base, len0, st0, len1, st1, adv) do { \
	wse_dsd_set(d, WSE_DSD_BASE, (uint32_t)(uintptr_t)(base)); \
	wse_dsd_set(d, WSE_DSD_LEN0, (len0)); wse_dsd_set(d, WSE_DSD_STRIDE0, (st0)); \
	wse_dsd_set(d, WSE_DSD_LEN1, (len1)); wse_dsd_set(d, WSE_DSD_STRIDE1, (st1)); \
	wse_dsd_set(d, WSE_DSD_TYPE, WSE_DSD_MEM); wse_dsd_set(d, WSE_DSD_ADV, (adv)); } while (0)
/* Fabric descriptor: color; as dst or as an element operand, len0 x len1
 * wavelets; as a per-pass scalar, one wavelet per pass. */
#define wse_dsd_fabric(d, color, len0, len1) do { \
	wse_dsd_set(d, WSE_DSD_BASE, (color)); \
	wse_dsd_set(d, WSE_DSD_LEN0, (len0)); wse_dsd_set(d, WSE_DSD_LEN1, (len1)); \
	wse_dsd_set(d, WSE_DSD_TYPE, WSE_DSD_FABRIC); wse_dsd_set(d, WSE_DSD_ADV, 0); } while (0)

static inline void wse_vop(uint32_t opword) { wse_df_wr(WSE_DF_VOP, opword); }
static inline void wse_vscalar(uint32_t bits) { wse_df_wr(WSE_DF_VSCALAR, bits); }
static inline void wse_vscalar_f(float f)
{
	union { float f; uint32_t u; } v = { f };
	wse_vscalar(v.u);
}
static inline uint32_t wse_vwait(void) { return wse_df_rd(WSE_DF_VWAIT); }
static inline uint32_t wse_vflags(void) { return wse_df_rd(WSE_DF_VFLAGS); }
static inline void wse_vflags_clear(void) { wse_df_wr(WSE_DF_VFLAGS, 0); }
static inline uint32_t wse_vdone(void) { return wse_df_rd(WSE_DF_VDONE); }

/* Move channel: FMOVS fabric -> memory beside the vector engine. Issue
 * snapshots descriptors dst (memory) and a (fabric), like wse_vop; the
 * issue waits while WSE_MOV_DEPTH moves are queued; wrong descriptor types
 * or a zero length reject it (no effect, WSE_MOV_ERR set). A move's data
 * may be used (by the engine or the core) only once it has completed:
 * wse_mwait(), wse_mdone() or its completion task. */
static inline void wse_vmov(uint32_t movword) { wse_df_wr(WSE_DF_MOV, movword); }
static inline uint32_t wse_mstatus(void) { return wse_df_rd(WSE_DF_MOV); }
static inline uint32_t wse_mdone(void) { return wse_df_rd(WSE_DF_MDONE); }
static inline uint32_t wse_mwait(void) { return wse_df_rd(WSE_DF_MWAIT); }
static inline void wse_merr_clear(void) { wse_df_wr(WSE_DF_MDONE, 0); }

/* ---- Runtime (wse_df_rt.c) ---- */
typedef void (*wse_task_fn)(uint32_t arg);
/* Register fn as task t (0..63). Data tasks get the wavelet's payload,
 * local and control tasks 0. */
void wse_task_register(uint32_t task, wse_task_fn fn);
/* Bind color to a data task (registers fn as that task). */
void wse_task_bind_color(uint32_t color, uint32_t task, wse_task_fn fn);
/* Run ready tasks until wse_task_stop() is called or, with idle_exit set,
 * until no task is ready. Returns the number of tasks run. */
uint32_t wse_task_loop(int idle_exit);
void wse_task_stop(void);
/* Wait until at least `count` moves have completed since reset (MDONE,
 * compared modulo 2^32): waits for one queued move while later ones may
 * still run. Returns MDONE. */
uint32_t wse_move_wait(uint32_t count);
/* Cycle counter. */
static inline uint32_t wse_cycles(void) { uint32_t v; __asm__ volatile("csrr %0, mcycle" : "=r"(v)); return v; }

#endif

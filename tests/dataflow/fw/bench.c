/* Vector-engine and task benchmarks on one PE (make bench-pe). Prints
 * "R NAME ELEMENTS CYCLES" per run, measured with mcycle from the first
 * descriptor write to the last completion (wse_vwait), and the harness
 * prints the task dispatch latency. Runs every bank alignment of the
 * operands. Patterns (the training layer's, 8 tokens per PE):
 *   mem     dst_k[0..7] += x[0..7] * w[k]   1000 operations; w[k] from memory
 *   vv      dst_k[0..7] += x[0..7] * g_k[0..7]  1000 operations
 *   vvs     dst_k += a_k * g_k, all three streaming (no operand reuse)
 *   fwd     part[0..7] += x_i[0..7] * w[i], i = 0..195, x_i at a stride of
 *           9 words (the training forward's shape: one operation of 196
 *           passes, dst read back every pass), w[i] from memory
 *   bww     g[0..195] += x[0..195][j] * d[j], j = 1..7, x at a stride of 9
 *           words (the training weight gradient's shape: 7 passes of 196)
 *   sparse  fwd's shape as a sparse share (SPMACS) with every 10th of the
 *           196 slots kept (90% sparsity: 20 values, 5 index wavelets),
 *           the share sent by the core on a looped-back color while the
 *           engine runs: 5 operations, elements are the kept ones'
 *   gather  bww's shape over the same kept slots: an SPIDX (an index-only
 *           share of 5 wavelets) first, then 5 gathered operations
 *           (WSE_VOP_GATHER) of 7 passes of the 20 slots, timed alone
 *   gatheridx  the kernel's pattern: per output an SPIDX and one gathered
 *           operation of 7 passes, 5 times, SPIDX included in the time
 *   gather_odd, gatheridx_odd  the same over every 9th slot: the rows of
 *           a, 9 words apart, then alternate between the DMEM's two
 *           banks, as for a random mask, where every 10th slot puts all
 *           of a pass's a in one bank with half of its dst reads
 * The same with w[k] streamed from a neighbouring tile (the fabric rate) is
 * fw/bench_fabric.c, on the 2x2 mesh. */
#include "wse_rt.h"
#include "wse_df.h"

#define NB WSE_CFG_DMEM_BANKS
#define ROUND 100
#define ROUNDS 10
#define C_DISP 12

static float ybuf[ROUND * 8 + 16] __attribute__((aligned(64)));
static float gbuf[ROUND * 8 + 16] __attribute__((aligned(64)));
static float xbuf[16 + 16] __attribute__((aligned(64)));
static float wbuf[ROUNDS * ROUND + 16] __attribute__((aligned(64)));
#define FWD_K 196
#define FWD_FW 9
static float fbuf[FWD_K * FWD_FW + 400] __attribute__((aligned(64)));

#define C_SPARSE 5
#define SP_VALUES 20 /* slots 0, 10, ..., 190 of 196 kept */

/* The share of bench_sparse, sent by the core from registers (no DMEM
 * access of its own beside the engine): five index wavelets of gap codes
 * (0, then 9), each followed by its four values; the last value, a
 * control wavelet, ends it. */
static void sparse_share(void)
{
	for (uint32_t v = 0; v < SP_VALUES; v += 4) {
		wse_df_wr(WSE_DF_RECV + C_SPARSE, v ? 0x09090909u : 0x09090900u);
		wse_df_wr(WSE_DF_RECV + C_SPARSE, 0x3f800000u);
		wse_df_wr(WSE_DF_RECV + C_SPARSE, 0x3fc00000u);
		wse_df_wr(WSE_DF_RECV + C_SPARSE, 0x40000000u);
		if (v + 4 < SP_VALUES)
			wse_df_wr(WSE_DF_RECV + C_SPARSE, 0x3f000000u);
		else
			wse_df_wr(WSE_DF_QSTAT + C_SPARSE, 0x3f000000u);
	}
}

static void report(const char *name, uint32_t elems, uint32_t cyc)
{
	wse_puts("R ");
	wse_puts(name);
	wse_putc(' ');
	wse_putu(elems);
	wse_putc(' ');
	wse_putu(cyc);
	wse_putc('\n');
}

static void bench_mem(uint32_t ao, uint32_t yo, uint32_t so)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &ybuf[yo], 8, 1, 1, 0, 8);
	wse_dsd_mem(1, &xbuf[ao], 8, 1, 1, 0, 0);
	wse_dsd_mem(2, &wbuf[so], 1, 0, 1, 0, 1);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS);
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < ROUND; k++)
			wse_vop(op);
		wse_dsd_set(0, WSE_DSD_BASE, (uint32_t)(uintptr_t)&ybuf[yo]);
	}
	wse_vwait();
	report("mem", ROUNDS * ROUND * 8, wse_cycles() - t0);
}

static void bench_vv(uint32_t ao, uint32_t yo, uint32_t go)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &ybuf[yo], 8, 1, 1, 0, 8);
	wse_dsd_mem(1, &xbuf[ao], 8, 1, 1, 0, 0);
	wse_dsd_mem(2, &gbuf[go], 8, 1, 1, 0, 8);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_VEC);
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < ROUND; k++)
			wse_vop(op);
		wse_dsd_set(0, WSE_DSD_BASE, (uint32_t)(uintptr_t)&ybuf[yo]);
		wse_dsd_set(2, WSE_DSD_BASE, (uint32_t)(uintptr_t)&gbuf[go]);
	}
	wse_vwait();
	report("vv", ROUNDS * ROUND * 8, wse_cycles() - t0);
}

/* dst += a*b with both a and b streaming through memory (no reuse). */
static void bench_vvs(uint32_t ao, uint32_t yo, uint32_t go)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &ybuf[yo], 8, 1, 1, 0, 8);
	wse_dsd_mem(1, &ybuf[ao + 8], 8, 1, 1, 0, 8);
	wse_dsd_mem(2, &gbuf[go], 8, 1, 1, 0, 8);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_VEC);
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < ROUND - 1; k++)
			wse_vop(op);
		wse_dsd_set(0, WSE_DSD_BASE, (uint32_t)(uintptr_t)&ybuf[yo]);
		wse_dsd_set(1, WSE_DSD_BASE, (uint32_t)(uintptr_t)&ybuf[ao + 8]);
		wse_dsd_set(2, WSE_DSD_BASE, (uint32_t)(uintptr_t)&gbuf[go]);
	}
	wse_vwait();
	report("vvs", ROUNDS * (ROUND - 1) * 8, wse_cycles() - t0);
}

static void bench_fwd(uint32_t ao, uint32_t yo, uint32_t so)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &ybuf[yo], 8, 1, FWD_K, 0, 0);
	wse_dsd_mem(1, &fbuf[ao], 8, 1, FWD_K, FWD_FW, 0);
	wse_dsd_mem(2, &wbuf[so], 1, 0, FWD_K, 1, 0);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS);
	for (int r = 0; r < 5; r++)
		wse_vop(op);
	wse_vwait();
	report("fwd", 5 * FWD_K * 8, wse_cycles() - t0);
}

static void bench_bww(uint32_t ao, uint32_t yo, uint32_t so)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &fbuf[1600 + yo], FWD_K, 1, 7, 0, 0);
	wse_dsd_mem(1, &fbuf[ao + 1], FWD_K, FWD_FW, 7, 1, 0);
	wse_dsd_mem(2, &wbuf[so], 1, 0, 7, 1, 0);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS);
	for (int r = 0; r < 5; r++)
		wse_vop(op);
	wse_vwait();
	report("bww", 5 * FWD_K * 7, wse_cycles() - t0);
}

static void bench_sparse(uint32_t ao, uint32_t yo)
{
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &ybuf[yo], 8, 1, FWD_K, 0, 0);
	wse_dsd_mem(1, &fbuf[ao], 8, 1, FWD_K, FWD_FW, 0);
	wse_dsd_fabric(2, C_SPARSE, 1, 1);
	const uint32_t op = WSE_VOP(WSE_V_SPMACS, 0, 1, 2, WSE_SP_FIRST);
	for (int r = 0; r < 5; r++) {
		wse_vop(op);
		sparse_share();
	}
	wse_vwait();
	report("sparse", 5 * SP_VALUES * 8, wse_cycles() - t0);
}

/* The index-only share of the kept slots 0, g + 1, 2 (g + 1), ... (20 of
 * them): five wavelets of four gap codes g, the last with the control
 * bit. */
static void index_share(uint32_t g)
{
	for (uint32_t v = 0; v < SP_VALUES; v += 4)
		wse_df_wr((v + 4 < SP_VALUES ? WSE_DF_RECV : WSE_DF_QSTAT) + C_SPARSE,
			  g * (v ? 0x01010101u : 0x01010100u));
}

static void bench_gather(uint32_t ao, uint32_t yo, uint32_t so, int with_idx, uint32_t g,
			 const char *name)
{
	wse_dsd_mem(0, &fbuf[1600 + yo], FWD_K, 1, 1, 0, 0); /* LEN0 bounds the slots */
	wse_dsd_fabric(2, C_SPARSE, 1, 1);
	const uint32_t idx = WSE_VOP(WSE_V_SPIDX, 0, 0, 2, 0);
	if (!with_idx) {
		wse_vop(idx);
		index_share(g);
		wse_vwait();
	}
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, &fbuf[1600 + yo], 1, 1, 7, 0, 0);
	wse_dsd_mem(1, &fbuf[ao + 1], 1, FWD_FW, 7, 1, 0);
	wse_dsd_mem(3, &fbuf[1600 + yo], FWD_K, 1, 1, 0, 0);
	wse_dsd_fabric(4, C_SPARSE, 1, 1);
	wse_dsd_mem(2, &wbuf[so], 1, 0, 7, 1, 0);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS) | WSE_VOP_GATHER;
	for (int r = 0; r < 5; r++) {
		if (with_idx) {
			wse_vop(WSE_VOP(WSE_V_SPIDX, 3, 3, 4, 0));
			index_share(g);
		}
		wse_vop(op);
	}
	uint32_t fl = wse_vwait();
	report(name, 5 * SP_VALUES * 7, wse_cycles() - t0);
	if (fl & WSE_VFLAG_SPARSE)
		wse_puts("gather: share refused\n");
}

/* Dispatch: the task's second instruction stores 0 to the putchar word,
 * which the harness times against the wavelet's arrival. */
static uint32_t disp_n;
void disp_body(uint32_t arg)
{
	(void)arg;
	if (++disp_n < 50)
		wse_send(C_DISP, disp_n);
	else
		wse_task_stop();
}
void disp_task(uint32_t arg);
__asm__(".text\n.globl disp_task\ndisp_task:\n"
	"\tlui t0, %hi(0x80100010)\n\tsw zero, %lo(0x80100010)(t0)\n\tj disp_body\n");

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" :: "r"(0x2000));
	for (uint32_t i = 0; i < sizeof xbuf / 4; i++)
		xbuf[i] = (float)i * 0.5f;
	for (uint32_t i = 0; i < sizeof wbuf / 4; i++)
		wbuf[i] = (float)(i % 7) - 3.0f;
	for (uint32_t i = 0; i < sizeof gbuf / 4; i++)
		gbuf[i] = (float)(i % 5);
	for (uint32_t i = 0; i < sizeof fbuf / 4; i++)
		fbuf[i] = (float)(i % 3);
	wse_bind_ctrl_data(C_SPARSE);
	for (uint32_t ao = 0; ao < NB; ao++)
		for (uint32_t yo = 0; yo < NB; yo++) {
			for (uint32_t so = 0; so < NB; so++) {
				bench_mem(ao, yo, so);
				bench_fwd(ao, yo, so);
				bench_bww(ao, yo, so);
			}
			bench_sparse(ao, yo);
			bench_gather(ao, yo, 0, 0, 9, "gather");
			bench_gather(ao, yo, 0, 1, 9, "gatheridx");
			bench_gather(ao, yo, 0, 0, 8, "gather_odd");
			bench_gather(ao, yo, 0, 1, 8, "gatheridx_odd");
			for (uint32_t go = 0; go < NB; go++) {
				bench_vv(ao, yo, go);
				bench_vvs(ao, yo, go);
			}
		}
	wse_task_bind_color(C_DISP, 1, disp_task);
	wse_send(C_DISP, 0);
	wse_task_loop(0);
	return 0;
}

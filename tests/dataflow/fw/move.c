/* The move channel (FMOVS fabric -> memory beside the vector engine):
 *   pressure  two queued moves of a looped-back color while the engine runs
 *             FMACS with a fabric scalar on another color and FMACS from
 *             memory: the engine and the moves contend for the DMEM write
 *             port (and with the core's loads for the banks), the
 *             per-color queues fill and the harness holds wavelets back,
 *             the core waits on a full operation queue; moved data and sums (checked against fmadd.s on the
 *             core, the same single rounding) must be exact;
 *   full      with two moves queued on the slow harness feed (color
 *             C_FEED, --feed-gap) the status shows a full queue and a third
 *             issue waits until the first move has completed;
 *   reject    a move with a fabric dst, a memory source or a zero length
 *             completes without effect and sets the error bit, which a
 *             write of MDONE clears;
 *   cache     a move overwrites activations the engine holds in its
 *             operand cache: an operation issued after the move's
 *             completion reads the moved values. */
#include "wse_rt.h"
#include "wse_df.h"

#define C_MOV 6      /* looped back by the harness */
#define C_SCAL 7     /* looped back: the engine's per-pass scalar */
#define C_FEED 20    /* harness feed, slow */
#define NPASS 48
#define NMOV1 128    /* 32 x 4, rows 40 words apart */
#define NMOV2 64
#define NFULL 8      /* each move of the full-queue check */

static uint32_t vin[NMOV1 + NMOV2];
static uint32_t mv1[4 * 40] __attribute__((aligned(16)));
static uint32_t mv2[NMOV2] __attribute__((aligned(16)));
static float y[NPASS * 8] __attribute__((aligned(16)));
static float yref[NPASS * 8];
static float z[64] __attribute__((aligned(16)));
static float zref[64];
static float x[8] __attribute__((aligned(16)));
static float w[NPASS];
static uint32_t fmv[3 * NFULL] __attribute__((aligned(16)));

static float fma_ref(float a, float b, float c)
{
	float r;
	__asm__("fmadd.s %0, %1, %2, %3" : "=f"(r) : "f"(a), "f"(b), "f"(c));
	return r;
}

static uint32_t bits(float f)
{
	union { float f; uint32_t u; } v = { f };
	return v.u;
}

/* Wavelet k of the harness feed (tb_df.cpp). */
static uint32_t feed_value(uint32_t k)
{
	return bits((float)((int)((k * 7u + 3u) % 23u) - 11) * 0.125f);
}

static int pressure(void)
{
	uint32_t m0 = wse_mdone();
	for (uint32_t i = 0; i < NMOV1 + NMOV2; i++)
		vin[i] = 0x40000000u + i * 7919u;
	for (uint32_t i = 0; i < 8; i++)
		x[i] = (float)i * 0.75f - 2.0f;
	for (uint32_t i = 0; i < NPASS; i++)
		w[i] = (float)((int)(i % 9) - 4) * 0.625f;
	for (uint32_t i = 0; i < NPASS * 8; i++)
		y[i] = yref[i] = (float)(i % 11) * 0.25f;
	for (uint32_t i = 0; i < 64; i++)
		z[i] = zref[i] = (float)(i % 13) * 0.5f - 1.0f;

	/* two moves: queue full */
	wse_dsd_mem(3, mv1, 32, 1, 4, 40, 0);
	wse_dsd_fabric(4, C_MOV, 1, 1);
	wse_vmov(WSE_VMOV(3, 4));
	wse_dsd_mem(3, mv2, NMOV2, 1, 1, 0, 0);
	wse_vmov(WSE_VMOV(3, 4));
	/* engine: y[p][0..7] += x * (scalar p from C_SCAL), then z += x * 1.5 (x8) */
	wse_dsd_mem(0, y, 8, 1, NPASS, 8, 0);
	wse_dsd_mem(1, x, 8, 1, NPASS, 0, 0);
	wse_dsd_fabric(2, C_SCAL, 1, NPASS);
	wse_vop(WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS));
	wse_dsd_mem(0, z, 8, 1, 1, 0, 8);
	wse_dsd_mem(5, x, 8, 1, 1, 0, 0);
	wse_vscalar_f(1.5f);
	/* the core feeds both colors; once the scalars are out, it queues the
	 * z operations (the 4-deep operation queue fills: the core waits) */
	for (uint32_t i = 0; i < NMOV1 + NMOV2; i++) {
		wse_send(C_MOV, vin[i]);
		if (i < NPASS)
			wse_send(C_SCAL, bits(w[i]));
		if (i == NPASS)
			for (int k = 0; k < 8; k++)
				wse_vop(WSE_VOP(WSE_V_FMACS, 0, 5, 0, WSE_B_SCALAR));
	}
	wse_vwait();
	if (wse_mwait() != m0 + 2)
		return 1;
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t i = 0; i < 32; i++)
			if (mv1[r * 40 + i] != vin[r * 32 + i])
				return 2;
	for (uint32_t i = 0; i < NMOV2; i++)
		if (mv2[i] != vin[NMOV1 + i])
			return 3;
	for (uint32_t p = 0; p < NPASS; p++)
		for (uint32_t i = 0; i < 8; i++)
			yref[p * 8 + i] = fma_ref(x[i], w[p], yref[p * 8 + i]);
	for (uint32_t i = 0; i < NPASS * 8; i++)
		if (bits(y[i]) != bits(yref[i]))
			return 4;
	for (uint32_t k = 0; k < 8; k++)
		for (uint32_t i = 0; i < 8; i++)
			zref[k * 8 + i] = fma_ref(x[i], 1.5f, zref[k * 8 + i]);
	for (uint32_t i = 0; i < 64; i++)
		if (bits(z[i]) != bits(zref[i]))
			return 5;
	return 0;
}

static int full(void)
{
	uint32_t m0 = wse_mdone();
	wse_dsd_mem(3, fmv, NFULL, 1, 1, 0, NFULL);
	wse_dsd_fabric(4, C_FEED, 1, 1);
	wse_vmov(WSE_VMOV(3, 4));
	wse_vmov(WSE_VMOV(3, 4));
	uint32_t s = wse_mstatus();
	/* fewer than NFULL feed wavelets can be waiting: neither move is done */
	if (WSE_MOV_QUEUED(s) != WSE_MOV_DEPTH || !(s & WSE_MOV_BUSY) || wse_mdone() != m0)
		return 10;
	wse_vmov(WSE_VMOV(3, 4));           /* waits for room */
	if (wse_mdone() == m0)
		return 11;
	if (wse_move_wait(m0 + 2) - m0 < 2)
		return 14;
	if (wse_mwait() != m0 + 3)
		return 12;
	for (uint32_t k = 0; k < 3 * NFULL; k++)
		if (fmv[k] != feed_value(k))
			return 13;
	return 0;
}

static int reject(void)
{
	uint32_t m0 = wse_mdone();
	uint32_t q0 = wse_queue_count(C_MOV);
	wse_send(C_MOV, 0x12345678u);
	wse_send(C_MOV, 0x9abcdef0u);
	while (wse_queue_count(C_MOV) != q0 + 2)
		;
	if (wse_mstatus() & WSE_MOV_ERR)
		return 20;
	wse_dsd_fabric(3, C_MOV, 2, 1);      /* dst on the fabric */
	wse_dsd_fabric(4, C_MOV, 1, 1);
	wse_vmov(WSE_VMOV(3, 4));
	if (!(wse_mstatus() & WSE_MOV_ERR))
		return 21;
	wse_merr_clear();
	if (wse_mstatus() & WSE_MOV_ERR)
		return 22;
	wse_dsd_mem(3, mv2, 2, 1, 1, 0, 0);  /* source in memory */
	wse_dsd_mem(4, mv1, 2, 1, 1, 0, 0);
	wse_vmov(WSE_VMOV(3, 4));
	if (!(wse_mstatus() & WSE_MOV_ERR))
		return 23;
	wse_merr_clear();
	wse_dsd_mem(3, mv2, 0, 1, 1, 0, 0);  /* zero length */
	wse_dsd_fabric(4, C_MOV, 1, 1);
	wse_vmov(WSE_VMOV(3, 4));
	uint32_t s = wse_mstatus();
	if (!(s & WSE_MOV_ERR) || (s & WSE_MOV_BUSY) || wse_mdone() != m0)
		return 24;
	if (wse_queue_count(C_MOV) != q0 + 2)
		return 25;
	wse_merr_clear();
	/* the channel still works: move the two waiting wavelets */
	wse_dsd_mem(3, mv2, 2, 1, 1, 0, 0);
	wse_vmov(WSE_VMOV(3, 4));
	if (wse_mwait() != m0 + 1 || mv2[0] != 0x12345678u || mv2[1] != 0x9abcdef0u)
		return 26;
	return 0;
}

static uint32_t act[8] __attribute__((aligned(16)));
static uint32_t acc[8] __attribute__((aligned(16)));
static uint32_t out[8] __attribute__((aligned(16)));

static int cache(void)
{
	uint32_t m0 = wse_mdone();
	for (uint32_t i = 0; i < 8; i++) {
		act[i] = bits((float)i + 1.0f);
		acc[i] = 0;
	}
	/* two passes over act: the second reads it from the operand cache */
	wse_dsd_mem(0, acc, 8, 1, 2, 0, 0);
	wse_dsd_mem(1, act, 8, 1, 2, 0, 0);
	wse_vscalar_f(1.0f);
	wse_vop(WSE_VOP(WSE_V_FMACS, 0, 1, 0, WSE_B_SCALAR));
	wse_vwait();
	wse_dsd_mem(3, act, 8, 1, 1, 0, 0);
	wse_dsd_fabric(4, C_MOV, 1, 1);
	wse_vmov(WSE_VMOV(3, 4));
	for (uint32_t i = 0; i < 8; i++)
		wse_send(C_MOV, 0x50000000u + i);
	wse_mwait();
	wse_dsd_mem(0, out, 8, 1, 1, 0, 0);
	wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));
	wse_vwait();
	if (wse_mdone() != m0 + 1)
		return 30;
	for (uint32_t i = 0; i < 8; i++)
		if (out[i] != 0x50000000u + i || act[i] != out[i])
			return 31;
	return 0;
}

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" :: "r"(0x2000));
	int r = pressure();
	if (r)
		return r;
	r = full();
	if (r)
		return r;
	r = reject();
	if (r)
		return r;
	r = cache();
	if (r)
		return r;
	wse_puts("move ok\n");
	return 0;
}

/* pe.fmacs_fabric_rate on the 2x2 dataflow mesh (make bench-pe): the
 * scalars come from a neighbouring tile's stream over a configured route
 * (tests/dataflow/bench-sim-2x2.routes, color C_W east from (0,0) to
 * (1,0)).
 *   (0,0)  streams its weights w[0..999] once per run (vector engine,
 *          FMOVS memory -> fabric, one operation of 1000 wavelets);
 *   (1,0)  dst_k[0..7] += x[0..7] * w[k] for k = 0..999: FMACS with the
 *          scalar from the fabric, one 8-element pass per wavelet, dst
 *          advancing by itself (2-D dst), 10 operations of 100 passes; it
 *          prints "R fabric ELEMENTS CYCLES", measured with mcycle from the
 *          first descriptor write to the last completion (wse_vwait), for
 *          every bank alignment of x and dst, and checks the sums;
 *   then (0,0) streams 4000 more wavelets at full rate and (1,0) adds them
 *   in as B of FADDS, one per cycle at best: "R stream 4000 CYCLES", the
 *   rate one color sustains through a hop into the engine
 *   (pe.fabric_stream_rate);
 *   others exit at once.
 * Before the first run (1,0) waits until the stream has reached its queue,
 * so (0,0)'s start-up is not counted; after that the stream runs on, held
 * back only by the fabric's credits. */
#include "wse_rt.h"
#include "wse_df.h"

#define NB WSE_CFG_DMEM_BANKS
#define ROUND 100
#define ROUNDS 10
#define NW (ROUNDS * ROUND)
#define C_W 2

static float ybuf[ROUND * 8 + 16] __attribute__((aligned(64)));
static float xbuf[16 + 16] __attribute__((aligned(64)));
static float wbuf[NW] __attribute__((aligned(64)));

static float fma_ref(float a, float b, float c)
{
	float r;
	__asm__("fmadd.s %0, %1, %2, %3" : "=f"(r) : "f"(a), "f"(b), "f"(c));
	return r;
}

/* The weights: (0,0) streams them, (1,0) checks its sums with them. */
static void weights(void)
{
	for (uint32_t k = 0; k < NW; k++)
		wbuf[k] = (float)((int)(k % 7u) - 3) * 0.5f;
}

static int producer(void)
{
	weights();
	wse_dsd_fabric(0, C_W, NW, 1);
	wse_dsd_mem(1, wbuf, NW, 1, 1, 0, 0);
	for (uint32_t r = 0; r < NB * NB; r++)
		wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));
	for (uint32_t r = 0; r < 4; r++) /* the full-rate stream */
		wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));
	wse_vwait();
	return 0;
}

static int run(uint32_t ao, uint32_t yo)
{
	float *y = &ybuf[yo], *x = &xbuf[ao];
	for (uint32_t i = 0; i < ROUND * 8; i++)
		y[i] = 0.0f;
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, y, 8, 1, ROUND, 8, 0);
	wse_dsd_mem(1, x, 8, 1, ROUND, 0, 0);
	wse_dsd_fabric(2, C_W, 1, ROUND);
	const uint32_t op = WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS);
	for (int r = 0; r < ROUNDS; r++)
		wse_vop(op);
	wse_vwait();
	uint32_t cyc = wse_cycles() - t0;
	wse_puts("R fabric ");
	wse_putu(NW * 8);
	wse_putc(' ');
	wse_putu(cyc);
	wse_putc('\n');
	/* y[p][i] = x[i]*w[p] + x[i]*w[p+100] + ... in that order */
	for (uint32_t p = 0; p < ROUND; p++)
		for (uint32_t i = 0; i < 8; i++) {
			float s = 0.0f;
			for (uint32_t r = 0; r < ROUNDS; r++)
				s = fma_ref(x[i], wbuf[r * ROUND + p], s);
			union { float f; uint32_t u; } a = { y[p * 8 + i] }, b = { s };
			if (a.u != b.u)
				return 1;
		}
	return 0;
}

static int consumer(void)
{
	for (uint32_t i = 0; i < sizeof xbuf / 4; i++)
		xbuf[i] = (float)i * 0.5f;
	weights();
	while (wse_queue_count(C_W) == 0)
		;
	for (uint32_t ao = 0; ao < NB; ao++)
		for (uint32_t yo = 0; yo < NB; yo++)
			if (run(ao, yo))
				return 1 + (int)(ao * NB + yo);
	while (wse_queue_count(C_W) == 0)
		;
	uint32_t t0 = wse_cycles();
	wse_dsd_mem(0, ybuf, 8, 1, 1, 0, 0);
	wse_dsd_mem(1, ybuf, 8, 1, 1, 0, 0);
	wse_dsd_fabric(2, C_W, 8, 1);
	for (int k = 0; k < 500; k++)
		wse_vop(WSE_VOP(WSE_V_FADDS, 0, 1, 2, WSE_B_VEC));
	wse_vwait();
	wse_puts("R stream 4000 ");
	wse_putu(wse_cycles() - t0);
	wse_putc('\n');
	return 0;
}

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" :: "r"(0x2000));
	if (wse_tile_y() != 0)
		return 0;
	if (wse_tile_x() == 0)
		return producer();
	if (wse_tile_x() == 1)
		return consumer();
	return 0;
}

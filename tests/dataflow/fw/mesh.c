/* A streamed layer on the 4x4 mesh: y[o][t] = sum over rows r of
 * W[o][r] * x_r[t] for the 8 tokens t of each column.
 *   column 0: tile (0,r) streams its row's weights W[o][r] (vector engine,
 *             memory -> fabric, color 1, multicast along the row) and a
 *             checksum wavelet on color 2;
 *   columns 1-3: tile (c,r) holds x_r[t] for its tokens and multiplies each
 *             weight into a burst of 8 multiply-adds (FMACS, scalar from the
 *             fabric, one pass per wavelet, dst advancing by itself); a data
 *             task checks the checksum meanwhile; a completion task adds the
 *             partial sum that arrives from the north (FADDS, fabric operand,
 *             color 8 + r - 1) and sends the result south (FMOVS to color
 *             8 + r); the bottom row checks y against a C reference that
 *             does the same operations in the same order (-ffp-contract=off,
 *             fused multiply-add written as fmaf). */
#include "wse_rt.h"
#include "wse_df.h"

#define NW 32
#define ROWS WSE_CFG_NUM_ROWS
#define C_W 1
#define C_SUM 2
#define T_DOT 40
#define T_SUMDONE 41
#define T_CHK 2

static float wv[NW] __attribute__((aligned(16)));
static float xv[8] __attribute__((aligned(16)));
static float pv[NW * 8] __attribute__((aligned(16)));
static float sv[NW * 8] __attribute__((aligned(16)));
static uint32_t cx, cy, state, chk_seen, chk_ok;

static float wval(uint32_t o, uint32_t r) { return (float)((int)((o * 5u + r * 3u) % 13u) - 6) * 0.375f; }
static float xval(uint32_t c, uint32_t r, uint32_t t) { return (float)((int)((c * 7u + r * 11u + t * 3u) % 17u) - 8) * 0.1f; }

static uint32_t bits(float f)
{
	union { float f; uint32_t u; } v = { f };
	return v.u;
}

static float ref_fmaf(float a, float b, float c)
{
	float r;
	__asm__("fmadd.s %0, %1, %2, %3" : "=f"(r) : "f"(a), "f"(b), "f"(c));
	return r;
}

static void task_chk(uint32_t arg)
{
	uint32_t s = 0;
	for (uint32_t o = 0; o < NW; o++)
		s += bits(wval(o, cy));
	chk_seen = 1;
	chk_ok = (arg == s);
}

static void task_dot(uint32_t arg)
{
	(void)arg;
	if (cy == 0) {
		for (uint32_t i = 0; i < NW * 8; i++)
			sv[i] = pv[i];
		wse_dsd_mem(0, sv, NW * 8, 1, 1, 0, 0);
		wse_dsd_fabric(1, 8 + cy, NW * 8, 1);
		wse_vop(WSE_VOP(WSE_V_FMOVS, 1, 0, 0, WSE_B_VEC) | WSE_VOP_TASK(T_SUMDONE));
	} else {
		/* s = p + (partial sum from the north), element by element */
		wse_dsd_mem(0, sv, NW * 8, 1, 1, 0, 0);
		wse_dsd_mem(1, pv, NW * 8, 1, 1, 0, 0);
		wse_dsd_fabric(2, 8 + cy - 1, NW * 8, 1);
		if (cy + 1 < ROWS) {
			wse_vop(WSE_VOP(WSE_V_FADDS, 0, 1, 2, WSE_B_VEC));
			wse_dsd_fabric(3, 8 + cy, NW * 8, 1);
			wse_vop(WSE_VOP(WSE_V_FMOVS, 3, 0, 0, WSE_B_VEC) | WSE_VOP_TASK(T_SUMDONE));
		} else {
			wse_vop(WSE_VOP(WSE_V_FADDS, 0, 1, 2, WSE_B_VEC) | WSE_VOP_TASK(T_SUMDONE));
		}
	}
}

static void task_sumdone(uint32_t arg)
{
	(void)arg;
	state = 1;
	wse_task_stop();
}

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" :: "r"(0x2000));
	cx = wse_tile_x();
	cy = wse_tile_y();
	for (uint32_t o = 0; o < NW; o++)
		wv[o] = wval(o, cy);
	if (cx == 0) {
		/* weight source of row cy */
		wse_dsd_mem(0, wv, NW, 1, 1, 0, 0);
		wse_dsd_fabric(1, C_W, NW, 1);
		wse_vop(WSE_VOP(WSE_V_FMOVS, 1, 0, 0, WSE_B_VEC));
		uint32_t s = 0;
		for (uint32_t o = 0; o < NW; o++)
			s += bits(wv[o]);
		wse_vwait();
		wse_send(C_SUM, s);
		return 0;
	}
	for (uint32_t t = 0; t < 8; t++)
		xv[t] = xval(cx, cy, t);
	for (uint32_t i = 0; i < NW * 8; i++)
		pv[i] = 0.0f;
	wse_task_bind_color(C_SUM, T_CHK, task_chk);
	wse_task_register(T_DOT, task_dot);
	wse_task_register(T_SUMDONE, task_sumdone);
	/* p[o][t] += x[t] * w[o], one pass per arriving weight */
	wse_dsd_mem(0, pv, 8, 1, NW, 8, 0);
	wse_dsd_mem(1, xv, 8, 1, NW, 0, 0);
	wse_dsd_fabric(2, C_W, 1, NW);
	wse_vop(WSE_VOP(WSE_V_FMACS, 0, 1, 2, WSE_B_PERPASS) | WSE_VOP_TASK(T_DOT));
	wse_task_loop(0);
	wse_vwait();
	if (!chk_seen)
		wse_task_loop(1);
	if (!chk_seen || !chk_ok)
		return 1;
	/* every tile checks its own partial products */
	for (uint32_t o = 0; o < NW; o++)
		for (uint32_t t = 0; t < 8; t++)
			if (bits(pv[o * 8 + t]) != bits(ref_fmaf(xval(cx, cy, t), wval(o, cy), 0.0f)))
				return 2;
	if (cy + 1 == ROWS) {
		for (uint32_t o = 0; o < NW; o++)
			for (uint32_t t = 0; t < 8; t++) {
				float s = ref_fmaf(xval(cx, 0, t), wval(o, 0), 0.0f);
				for (uint32_t r = 1; r < ROWS; r++)
					s = ref_fmaf(xval(cx, r, t), wval(o, r), 0.0f) + s;
				if (bits(sv[o * 8 + t]) != bits(s))
					return 3;
			}
		wse_puts("column sum ok\n");
	}
	return 0;
}

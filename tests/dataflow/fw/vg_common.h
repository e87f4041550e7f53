/* What the programs of vec_gen's headers (vec_ops.c, sparse.c, gather.c) share: a
 * descriptor from its generated fields, the region's check against the
 * C model's words, a share's wavelets and the queues left. */
#ifndef VG_COMMON_H
#define VG_COMMON_H

#include "wse_rt.h"
#include "wse_df.h"

/* Descriptor k from f: base (word index into vmem, or color), len0,
 * stride0, len1, stride1, fabric; no advance. */
static inline void vg_set_dsd(int k, const int32_t *f, uint32_t *vmem)
{
	uint32_t base = f[5] ? (uint32_t)f[0] : (uint32_t)(uintptr_t)&vmem[f[0]];
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_BASE, base);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_LEN0, (uint32_t)f[1]);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_STRIDE0, (uint32_t)f[2]);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_LEN1, (uint32_t)f[3]);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_STRIDE1, (uint32_t)f[4]);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_TYPE, (uint32_t)f[5]);
	wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_ADV, 0);
}

/* 0 when vmem[0..n) equals expect and the engine's flags fl equal
 * expect_fl; else 1 + the first differing word (printed with both
 * values), or 1000 for the flags (printed). */
static inline int vg_check(const uint32_t *vmem, const uint32_t *expect, uint32_t n,
			   uint32_t fl, uint32_t expect_fl)
{
	for (uint32_t i = 0; i < n; i++) {
		if (vmem[i] != expect[i]) {
			wse_puts("mismatch at word 0x");
			wse_puthex(i);
			wse_puts(" got 0x");
			wse_puthex(vmem[i]);
			wse_puts(" expected 0x");
			wse_puthex(expect[i]);
			wse_putc('\n');
			return 1 + (int)i;
		}
	}
	if (fl != expect_fl) {
		wse_puts("flags 0x");
		wse_puthex(fl);
		wse_putc('\n');
		return 1000;
	}
	return 0;
}

/* Sends wavelets sw[w0..w0+nw) on color c, those with sc[k] set as
 * control wavelets (a share of vec_gen's sparse and gather modes). */
static inline void vg_send_share(uint32_t c, const uint32_t *sw, const uint8_t *sc, uint32_t w0,
				 uint32_t nw)
{
	for (uint32_t k = w0; k < w0 + nw; k++) {
		if (sc[k])
			wse_send_ctrl(c, sw[k]);
		else
			wse_send(c, sw[k]);
	}
}

/* vg_check, then 0 when no color's queue holds more than left[c]
 * wavelets, else 2000 + the first color that does. */
static inline int vg_check_all(const uint32_t *vmem, const uint32_t *expect, uint32_t n,
			       uint32_t fl, uint32_t expect_fl, const uint32_t *left)
{
	int bad = vg_check(vmem, expect, n, fl, expect_fl);
	if (bad)
		return bad;
	for (uint32_t c = 0; c < 32; c++)
		if (wse_queue_count(c) > left[c])
			return 2000 + (int)c;
	return 0;
}

#define VG_NO_SHARE 32u
/* The region vmem[0..n) from init, the sticky flags cleared; with a color
 * c < 32 (not VG_NO_SHARE), c's control wavelets bound as data (a share's). 0, or 5000 when
 * the binding does not read back. */
static inline int vg_start(uint32_t *vmem, const uint32_t *init, uint32_t n, uint32_t c)
{
	for (uint32_t i = 0; i < n; i++)
		vmem[i] = init[i];
	wse_vflags_clear();
	if (c < 32) {
		wse_bind_ctrl_data(c);
		if (wse_df_rd(WSE_DF_BIND + c) != WSE_BIND_CTRL_DATA)
			return 5000;
	}
	return 0;
}

#endif

/* What the programs of vec_gen's headers (vec_ops.c, sparse.c) share: a
 * descriptor from its generated fields, and the region's check against the
 * C model's words. */
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

#endif

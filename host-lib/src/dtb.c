/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dtb.c - the device description (struct wse_info) from the board's device
 * tree, checked by the binding's rules of the wire library
 * (wsemu/wse_board.h), the same rules wse-cfggen builds the RTL from.
 */
#include <string.h>

#include "transport.h"
#include "wsemu/wse_board.h"

int wsei_dtb_parse(const void *dtb, size_t len, struct wse_info *info,
		  char *err, size_t errlen)
{
	struct wse_board b;
	struct wse_info o;

	if (err && errlen)
		err[0] = 0;
	if (!dtb || !info || info->size < sizeof(size_t))
		return WSE_ERROR_INVALID_PARAM;
	int r = wse_board_parse(dtb, len, &b, err, errlen);
	if (r)
		return r;
	memset(&o, 0, sizeof(o));
	memcpy(o.compatible, b.compatible, sizeof(o.compatible));
	memcpy(o.model, b.model, sizeof(o.model));
	memcpy(o.link_compatible, b.link_compatible, sizeof(o.link_compatible));
	o.columns = b.columns;
	o.rows = b.rows;
	o.colors = b.colors;
	o.user_colors = b.user_colors;
	o.num_vc = b.num_vc;
	o.vc_depth = b.vc_depth;
	o.ramp_color_depth = b.ramp_color_depth;
	memcpy(o.color_vc, b.color_vc, sizeof(o.color_vc));
	o.imem_bytes = b.imem_bytes;
	o.dmem_bytes = b.dmem_bytes;
	o.dmem_banks = b.dmem_banks;
	o.link_width_bits = b.link_width_bits;
	o.link_bytes_per_cycle = b.link_bytes_per_cycle;
	o.link_latency_cycles = b.link_latency_cycles;
	/* Copy only what the caller's struct has room for; keep its
	 * protocol fields (filled by the caller from INFO). */
	size_t keep = offsetof(struct wse_info, compatible);
	size_t n = info->size < sizeof(o) ? info->size : sizeof(o);
	if (n > keep)
		memcpy((char *)info + keep, (char *)&o + keep, n - keep);
	return 0;
}

int wse_parse_dtb(const void *dtb, size_t len, struct wse_info *info,
		  char *errbuf, size_t errlen)
{
	if (info && info->size >= sizeof(size_t)) {
		size_t keep = offsetof(struct wse_info, compatible);
		size_t n = info->size < keep ? info->size : keep;
		memset((char *)info + sizeof(size_t), 0, n - sizeof(size_t));
	}
	return wsei_dtb_parse(dtb, len, info, errbuf, errlen);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_route_write.c - the checked writer of route plans (wse_route.h): a
 * plan goes to the device's route tables only after wse_route_check has
 * passed it. Part of libwsetrain, on libwsehost's raw wse_route_write;
 * wse_route.c, the planner and checker, stands alone without a device.
 */
#include <stdint.h>

#include "wse_route.h"
#include "wsehost.h"
#include "wsemu/wse_wire.h"

int wse_route_plan_write(struct wse_device *dev, const struct wse_route_plan *p,
			 unsigned ncolors, struct wse_route_report *rep)
{
	struct wse_route_report own;
	struct wse_info info = { .size = sizeof(info) };
	unsigned rx, tx;
	int r;

	if (!p || ncolors == 0 || ncolors > WSE_NUM_COLORS)
		return WSE_ERROR_INVALID_PARAM;
	if (!rep)
		rep = &own;
	r = wse_route_check(p, rep);
	if (r == WSE_ROUTE_ERROR_NO_MEM)
		return WSE_ERROR_NO_MEM;
	if (r)
		return WSE_ERROR_INVALID_PARAM;
	if (!dev)
		return WSE_ERROR_INVALID_PARAM;
	if ((r = wse_get_info(dev, &info)))
		return r;
	/* the plan is for exactly the device's mesh */
	if (wse_route_get(p, info.columns - 1, info.rows - 1, 0, &rx, &tx) ||
	    !wse_route_get(p, info.columns, 0, 0, &rx, &tx) ||
	    !wse_route_get(p, 0, info.rows, 0, &rx, &tx))
		return WSE_ERROR_RANGE;
	for (unsigned y = 0; y < info.rows && !r; y++)
		for (unsigned x = 0; x < info.columns && !r; x++) {
			uint32_t e[WSE_NUM_COLORS];

			for (unsigned c = 0; c < ncolors; c++) {
				wse_route_get(p, x, y, c, &rx, &tx);
				e[c] = rx << 8 | tx;
			}
			r = wse_route_write(dev, x, y, 0, e, ncolors);
		}
	return r;
}

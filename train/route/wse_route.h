/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_route.h - route plans for the wsemu fabric and the deadlock checker.
 *
 * A route plan is the content of every tile's route table: per tile and per
 * color an entry {rx mask, tx mask} over the router ports (N, E, S, W, RAMP;
 * include/wsemu/wse_wire.h). The checker builds, for each virtual channel,
 * the channel-dependency graph the plan induces and rejects the plan when
 * any graph has a cycle, so a plan that passes cannot deadlock the fabric
 * (docs/fabric.md, "Deadlock freedom", gives the argument).
 *
 * Part of libwsetrain's API (installed beside wsehost_train.h): build a
 * plan, check it, and write it to a device with wse_route_plan_write(),
 * the checked writer. libwsehost's wse_route_write() is the raw register
 * write of one tile's entries and checks nothing.
 *
 * The planner functions return 0 or a negative enum wse_route_error;
 * wse_route_plan_write() returns an enum wse_error. None aborts.
 */
#ifndef WSE_ROUTE_H
#define WSE_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WSE_ROUTE_API __attribute__((visibility("default")))
#else
#define WSE_ROUTE_API
#endif

enum wse_route_error {
	WSE_ROUTE_OK = 0,
	WSE_ROUTE_ERROR_INVALID = -1,  /* argument out of range */
	WSE_ROUTE_ERROR_NO_MEM = -2,   /* allocation failed */
	WSE_ROUTE_ERROR_CYCLE = -3,    /* a VC's dependency graph has a cycle */
	WSE_ROUTE_ERROR_OFF_MESH = -4, /* a route sends off a north/south edge */
	WSE_ROUTE_ERROR_DEAD_END = -5, /* a route sends to a tile that drops it */
};

/* Human-readable text for an error code; never NULL. */
WSE_ROUTE_API const char *wse_route_strerror(int err);

struct wse_route_plan;

/*
 * Create an empty plan (every entry {0, 0}) for a cols x rows mesh whose
 * colors map to virtual channels by color_vc[32] (each < num_vc).
 * Returns NULL when an argument is out of range (cols or rows 0 or > 64,
 * num_vc 0 or > 8, a color_vc entry >= num_vc) or memory runs out.
 */
WSE_ROUTE_API struct wse_route_plan *wse_route_plan_new(unsigned cols, unsigned rows,
					  const uint8_t color_vc[32],
					  unsigned num_vc);
WSE_ROUTE_API void wse_route_plan_free(struct wse_route_plan *plan);

/*
 * Set / get the entry of one color at tile (x, y). Masks are 5 bits.
 * Errors: WSE_ROUTE_ERROR_INVALID for a coordinate, color or mask out of
 * range (the plan is unchanged).
 */
WSE_ROUTE_API int wse_route_set(struct wse_route_plan *plan, unsigned x, unsigned y,
		  unsigned color, unsigned rx_mask, unsigned tx_mask);
WSE_ROUTE_API int wse_route_get(const struct wse_route_plan *plan, unsigned x, unsigned y,
		  unsigned color, unsigned *rx_mask, unsigned *tx_mask);

/*
 * Route-plan builders for the patterns the training runtime uses. Each adds
 * entries for one color and fails with WSE_ROUTE_ERROR_INVALID (plan
 * unchanged) when the color already has an entry on a tile it would write.
 *
 * row_multicast: wavelets entering row y from the west edge reach every
 *   tile's RAMP in the row, travelling east.
 * column_chain: a PE-to-PE chain along column x from row y_from to row y_to
 *   (either direction): tile y_from sends from its RAMP, each tile on the way
 *   receives into its RAMP; hops alternate between color_a and color_b so
 *   that a tile's forward send never shares an entry with its receive.
 * xy_unicast: every tile's RAMP and the west-edge intake of every row can
 *   reach tile (dx, dy)'s RAMP, routed X first, then Y.
 */
WSE_ROUTE_API int wse_route_row_multicast(struct wse_route_plan *plan, unsigned color,
			    unsigned y);
WSE_ROUTE_API int wse_route_column_chain(struct wse_route_plan *plan, unsigned color_a,
			   unsigned color_b, unsigned x, unsigned y_from,
			   unsigned y_to);
WSE_ROUTE_API int wse_route_xy_unicast(struct wse_route_plan *plan, unsigned color,
			 unsigned dx, unsigned dy);

struct wse_route_report {
	unsigned vc;           /* VC of the offending graph */
	unsigned color;        /* a color on the offending route */
	unsigned x, y;         /* a tile on it */
	unsigned cycle_len;    /* channels in the cycle, 0 if not a cycle */
	char text[512];        /* one-line description, NUL-terminated */
};

/*
 * Check a plan. Returns 0 when every VC's channel-dependency graph is
 * acyclic, no route leaves the mesh except through the west or east edge
 * streams, and every wavelet a tile forwards is accepted by its receiver.
 * Otherwise returns WSE_ROUTE_ERROR_CYCLE, _OFF_MESH or _DEAD_END and, if
 * report is not NULL, fills it. WSE_ROUTE_ERROR_NO_MEM if memory runs out.
 */
WSE_ROUTE_API int wse_route_check(const struct wse_route_plan *plan,
		    struct wse_route_report *report);

/*
 * Write plan p into the route tables of every tile of dev (wsehost.h),
 * colors 0..ncolors-1, only if wse_route_check() accepts it; the check runs
 * before the device is touched. Needs libwsehost. Returns 0 or:
 *   WSE_ERROR_INVALID_PARAM  p NULL, ncolors 0 or over 32, dev NULL, or
 *                            the plan refused by the checker (then rep, if
 *                            not NULL, says why: a cycle of channels, a
 *                            route off the mesh or a dead end)
 *   WSE_ERROR_RANGE          the plan is not for dev's columns x rows
 *   WSE_ERROR_NO_MEM         the checker ran out of memory
 *   and the errors of wse_get_info() and wse_route_write() (TIMEOUT,
 *   NO_DEVICE, DEVICE, ...); tiles before the failing one are written.
 */
struct wse_device;
WSE_ROUTE_API int wse_route_plan_write(struct wse_device *dev,
				       const struct wse_route_plan *p,
				       unsigned ncolors,
				       struct wse_route_report *rep);

#ifdef __cplusplus
}
#endif
#endif /* WSE_ROUTE_H */

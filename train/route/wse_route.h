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
 * Functions return 0 or a negative enum wse_route_error; none aborts.
 */
#ifndef WSE_ROUTE_H
#define WSE_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
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
const char *wse_route_strerror(int err);

struct wse_route_plan;

/*
 * Create an empty plan (every entry {0, 0}) for a cols x rows mesh whose
 * colors map to virtual channels by color_vc[32] (each < num_vc).
 * Returns NULL when an argument is out of range (cols or rows 0 or > 64,
 * num_vc 0 or > 8, a color_vc entry >= num_vc) or memory runs out.
 */
struct wse_route_plan *wse_route_plan_new(unsigned cols, unsigned rows,
					  const uint8_t color_vc[32],
					  unsigned num_vc);
void wse_route_plan_free(struct wse_route_plan *plan);

/*
 * Set / get the entry of one color at tile (x, y). Masks are 5 bits.
 * Errors: WSE_ROUTE_ERROR_INVALID for a coordinate, color or mask out of
 * range (the plan is unchanged).
 */
int wse_route_set(struct wse_route_plan *plan, unsigned x, unsigned y,
		  unsigned color, unsigned rx_mask, unsigned tx_mask);
int wse_route_get(const struct wse_route_plan *plan, unsigned x, unsigned y,
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
int wse_route_row_multicast(struct wse_route_plan *plan, unsigned color,
			    unsigned y);
int wse_route_column_chain(struct wse_route_plan *plan, unsigned color_a,
			   unsigned color_b, unsigned x, unsigned y_from,
			   unsigned y_to);
int wse_route_xy_unicast(struct wse_route_plan *plan, unsigned color,
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
int wse_route_check(const struct wse_route_plan *plan,
		    struct wse_route_report *report);

#ifdef __cplusplus
}
#endif
#endif /* WSE_ROUTE_H */

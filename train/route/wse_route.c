// SPDX-License-Identifier: Apache-2.0
/*
 * Route plans and the channel-dependency deadlock checker.
 *
 * Channel model (docs/fabric.md, "Deadlock freedom"): a channel is the input
 * queue of one virtual channel at one port of one tile, (tile, in-port, vc).
 * A wavelet at the head of channel (t, p, v) with color c waits for every
 * output in tx(t, c); for an output q other than RAMP that wait is on the
 * channel (neighbour(t, q), opposite(q), v). RAMP outputs and the edge
 * outlets are sinks: the PE's per-color queues and the host drain them
 * without depending on the fabric. RAMP inputs and edge intakes are sources.
 * A plan cannot deadlock when, for every VC, this graph has no cycle.
 */
#include "wse_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsemu/wse_wire.h>

#define NCOLORS WSE_NUM_COLORS
#define NPORTS WSE_NUM_PORTS
#define PORT_MASK ((1u << NPORTS) - 1)

struct wse_route_plan {
	unsigned cols, rows, num_vc;
	uint8_t color_vc[NCOLORS];
	/* entry[(y * cols + x) * NCOLORS + c] = rx << 8 | tx */
	uint16_t *entry;
};

static const char *const port_name[NPORTS] = { "N", "E", "S", "W", "RAMP" };

const char *wse_route_strerror(int err)
{
	switch (err) {
	case WSE_ROUTE_OK: return "success";
	case WSE_ROUTE_ERROR_INVALID: return "invalid argument";
	case WSE_ROUTE_ERROR_NO_MEM: return "out of memory";
	case WSE_ROUTE_ERROR_CYCLE:
		return "route plan has a channel-dependency cycle (may deadlock)";
	case WSE_ROUTE_ERROR_OFF_MESH:
		return "route sends off the north or south edge of the mesh";
	case WSE_ROUTE_ERROR_DEAD_END:
		return "route sends to a tile whose rx mask drops it";
	default: return "unknown route error";
	}
}

struct wse_route_plan *wse_route_plan_new(unsigned cols, unsigned rows,
					  const uint8_t color_vc[32],
					  unsigned num_vc)
{
	if (!cols || !rows || cols > 64 || rows > 64 || !num_vc || num_vc > 8 ||
	    !color_vc)
		return NULL;
	for (unsigned c = 0; c < NCOLORS; c++)
		if (color_vc[c] >= num_vc)
			return NULL;
	struct wse_route_plan *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->entry = calloc((size_t)cols * rows * NCOLORS, sizeof(*p->entry));
	if (!p->entry) {
		free(p);
		return NULL;
	}
	p->cols = cols;
	p->rows = rows;
	p->num_vc = num_vc;
	memcpy(p->color_vc, color_vc, NCOLORS);
	return p;
}

void wse_route_plan_free(struct wse_route_plan *plan)
{
	if (plan) {
		free(plan->entry);
		free(plan);
	}
}

static uint16_t *slot(const struct wse_route_plan *p, unsigned x, unsigned y,
		      unsigned c)
{
	return &p->entry[((size_t)y * p->cols + x) * NCOLORS + c];
}

int wse_route_set(struct wse_route_plan *plan, unsigned x, unsigned y,
		  unsigned color, unsigned rx_mask, unsigned tx_mask)
{
	if (!plan || x >= plan->cols || y >= plan->rows || color >= NCOLORS ||
	    rx_mask > PORT_MASK || tx_mask > PORT_MASK)
		return WSE_ROUTE_ERROR_INVALID;
	*slot(plan, x, y, color) = (uint16_t)(rx_mask << 8 | tx_mask);
	return 0;
}

int wse_route_get(const struct wse_route_plan *plan, unsigned x, unsigned y,
		  unsigned color, unsigned *rx_mask, unsigned *tx_mask)
{
	if (!plan || x >= plan->cols || y >= plan->rows || color >= NCOLORS)
		return WSE_ROUTE_ERROR_INVALID;
	uint16_t e = *slot(plan, x, y, color);
	if (rx_mask)
		*rx_mask = e >> 8;
	if (tx_mask)
		*tx_mask = e & 0xff;
	return 0;
}

/* ---- builders -------------------------------------------------------- */

#define BIT(p) (1u << (p))

/* Merge (rx, tx) into a color's entry at a tile that has none yet. */
struct pending {
	unsigned x, y, rx, tx;
};

static int commit(struct wse_route_plan *plan, unsigned color,
		  const struct pending *pd, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (*slot(plan, pd[i].x, pd[i].y, color))
			return WSE_ROUTE_ERROR_INVALID;
	for (unsigned i = 0; i < n; i++)
		*slot(plan, pd[i].x, pd[i].y, color) |=
			(uint16_t)(pd[i].rx << 8 | pd[i].tx);
	return 0;
}

int wse_route_row_multicast(struct wse_route_plan *plan, unsigned color,
			    unsigned y)
{
	if (!plan || color >= NCOLORS || y >= plan->rows)
		return WSE_ROUTE_ERROR_INVALID;
	struct pending pd[64];
	for (unsigned x = 0; x < plan->cols; x++) {
		pd[x].x = x;
		pd[x].y = y;
		pd[x].rx = BIT(WSE_PORT_WEST);
		pd[x].tx = BIT(WSE_PORT_RAMP) |
			   (x + 1 < plan->cols ? BIT(WSE_PORT_EAST) : 0);
	}
	return commit(plan, color, pd, plan->cols);
}

int wse_route_column_chain(struct wse_route_plan *plan, unsigned color_a,
			   unsigned color_b, unsigned x, unsigned y_from,
			   unsigned y_to)
{
	if (!plan || color_a >= NCOLORS || color_b >= NCOLORS ||
	    color_a == color_b || x >= plan->cols || y_from >= plan->rows ||
	    y_to >= plan->rows || y_from == y_to)
		return WSE_ROUTE_ERROR_INVALID;
	int south = y_to > y_from;
	unsigned out = south ? WSE_PORT_SOUTH : WSE_PORT_NORTH;
	unsigned in = south ? WSE_PORT_NORTH : WSE_PORT_SOUTH;
	/* Hop k (from row y_from +- k to the next) uses color_a for even k. */
	uint16_t *ea = malloc(sizeof(uint16_t) * plan->rows * 2);
	if (!ea)
		return WSE_ROUTE_ERROR_NO_MEM;
	memset(ea, 0, sizeof(uint16_t) * plan->rows * 2);
	unsigned hops = south ? y_to - y_from : y_from - y_to;
	for (unsigned k = 0; k < hops; k++) {
		unsigned ys = south ? y_from + k : y_from - k;
		unsigned yr = south ? ys + 1 : ys - 1;
		uint16_t *e = ea + (k & 1) * plan->rows;
		e[ys] |= BIT(WSE_PORT_RAMP) << 8 | BIT(out);
		e[yr] |= BIT(in) << 8 | BIT(WSE_PORT_RAMP);
	}
	int err = 0;
	for (unsigned pass = 0; pass < 2 && !err; pass++) {
		unsigned color = pass ? color_b : color_a;
		uint16_t *e = ea + pass * plan->rows;
		for (unsigned y = 0; y < plan->rows; y++)
			if (e[y] && *slot(plan, x, y, color))
				err = WSE_ROUTE_ERROR_INVALID;
	}
	if (!err)
		for (unsigned pass = 0; pass < 2; pass++)
			for (unsigned y = 0; y < plan->rows; y++)
				*slot(plan, x, y, pass ? color_b : color_a) |=
					ea[pass * plan->rows + y];
	free(ea);
	return err;
}

int wse_route_xy_unicast(struct wse_route_plan *plan, unsigned color,
			 unsigned dx, unsigned dy)
{
	if (!plan || color >= NCOLORS || dx >= plan->cols || dy >= plan->rows)
		return WSE_ROUTE_ERROR_INVALID;
	size_t n = (size_t)plan->cols * plan->rows;
	struct pending *pd = malloc(sizeof(*pd) * n);
	if (!pd)
		return WSE_ROUTE_ERROR_NO_MEM;
	for (unsigned y = 0; y < plan->rows; y++) {
		for (unsigned x = 0; x < plan->cols; x++) {
			struct pending *e = &pd[y * plan->cols + x];
			e->x = x;
			e->y = y;
			/* Sources: the local PE, and (at x == 0) the west intake.
			 * Arrivals: eastbound traffic from the west while x <= dx,
			 * westbound from the east while x >= dx, then along the
			 * column of dx toward row dy. */
			e->rx = BIT(WSE_PORT_RAMP);
			if (x <= dx)
				e->rx |= BIT(WSE_PORT_WEST);
			if (x >= dx && x + 1 < plan->cols)
				e->rx |= BIT(WSE_PORT_EAST);
			if (x == dx && y > 0 && y <= dy)
				e->rx |= BIT(WSE_PORT_NORTH);
			if (x == dx && y + 1 < plan->rows && y >= dy)
				e->rx |= BIT(WSE_PORT_SOUTH);
			if (x < dx)
				e->tx = BIT(WSE_PORT_EAST);
			else if (x > dx)
				e->tx = BIT(WSE_PORT_WEST);
			else if (y < dy)
				e->tx = BIT(WSE_PORT_SOUTH);
			else if (y > dy)
				e->tx = BIT(WSE_PORT_NORTH);
			else
				e->tx = BIT(WSE_PORT_RAMP);
		}
	}
	int err = commit(plan, color, pd, (unsigned)n);
	free(pd);
	return err;
}

/* ---- checker --------------------------------------------------------- */

static int neighbour(const struct wse_route_plan *p, unsigned x, unsigned y,
		     unsigned port, unsigned *nx, unsigned *ny)
{
	switch (port) {
	case WSE_PORT_NORTH: if (y == 0) return 0; *nx = x; *ny = y - 1; return 1;
	case WSE_PORT_SOUTH: if (y + 1 >= p->rows) return 0; *nx = x; *ny = y + 1; return 1;
	case WSE_PORT_WEST: if (x == 0) return 0; *nx = x - 1; *ny = y; return 1;
	case WSE_PORT_EAST: if (x + 1 >= p->cols) return 0; *nx = x + 1; *ny = y; return 1;
	default: return 0;
	}
}

static unsigned opposite(unsigned port)
{
	static const unsigned opp[4] = { WSE_PORT_SOUTH, WSE_PORT_WEST,
					 WSE_PORT_NORTH, WSE_PORT_EAST };
	return opp[port];
}

static void fill(struct wse_route_report *r, unsigned vc, unsigned color,
		 unsigned x, unsigned y, unsigned len, const char *text)
{
	if (!r)
		return;
	r->vc = vc;
	r->color = color;
	r->x = x;
	r->y = y;
	r->cycle_len = len;
	snprintf(r->text, sizeof(r->text), "%s", text);
}

/* Static checks: off-mesh sends and dead ends. */
static int check_edges(const struct wse_route_plan *p,
		       struct wse_route_report *r)
{
	char buf[256];
	for (unsigned y = 0; y < p->rows; y++)
		for (unsigned x = 0; x < p->cols; x++)
			for (unsigned c = 0; c < NCOLORS; c++) {
				uint16_t e = *slot(p, x, y, c);
				unsigned rx = e >> 8, tx = e & 0xff;
				if (!rx || !tx)
					continue;
				for (unsigned q = 0; q < 4; q++) {
					unsigned nx, ny, nrx = 0, ntx = 0;
					if (!(tx & BIT(q)))
						continue;
					if (!neighbour(p, x, y, q, &nx, &ny)) {
						if (q == WSE_PORT_WEST || q == WSE_PORT_EAST)
							continue; /* edge outlet */
						snprintf(buf, sizeof(buf),
							 "color %u at tile (%u,%u) sends %s off the mesh",
							 c, x, y, port_name[q]);
						fill(r, p->color_vc[c], c, x, y, 0, buf);
						return WSE_ROUTE_ERROR_OFF_MESH;
					}
					wse_route_get(p, nx, ny, c, &nrx, &ntx);
					if (!(nrx & BIT(opposite(q)))) {
						snprintf(buf, sizeof(buf),
							 "color %u at tile (%u,%u) sends %s to (%u,%u), whose rx mask 0x%02x drops it",
							 c, x, y, port_name[q], nx, ny, nrx);
						fill(r, p->color_vc[c], c, x, y, 0, buf);
						return WSE_ROUTE_ERROR_DEAD_END;
					}
				}
			}
	return 0;
}

/* Node id of channel (x, y, in-port). */
static unsigned node_id(const struct wse_route_plan *p, unsigned x, unsigned y,
			unsigned port)
{
	return (y * p->cols + x) * NPORTS + port;
}

/*
 * Mark in occ[c * n + node] every channel a wavelet of color c can occupy:
 * start at its sources (the RAMP input where RAMP is in rx, the west intake
 * of column 0 and the east intake of the last column where those are in
 * rx) and follow tx. Dependencies are counted only for colors a channel
 * can hold, so a permissive rx mask alone does not make a false cycle.
 */
static void occupancy(const struct wse_route_plan *p, uint8_t *occ,
		      unsigned *work)
{
	unsigned n = p->cols * p->rows * NPORTS;
	for (unsigned c = 0; c < NCOLORS; c++) {
		uint8_t *o = occ + (size_t)c * n;
		unsigned top = 0;
		for (unsigned y = 0; y < p->rows; y++)
			for (unsigned x = 0; x < p->cols; x++) {
				unsigned rx = *slot(p, x, y, c) >> 8;
				unsigned src[3] = { WSE_PORT_RAMP, NPORTS, NPORTS };
				if (x == 0)
					src[1] = WSE_PORT_WEST;
				if (x + 1 == p->cols)
					src[2] = WSE_PORT_EAST;
				for (int i = 0; i < 3; i++) {
					if (src[i] == NPORTS || !(rx & BIT(src[i])))
						continue;
					unsigned id = node_id(p, x, y, src[i]);
					if (!o[id]) {
						o[id] = 1;
						work[top++] = id;
					}
				}
			}
		while (top) {
			unsigned id = work[--top], t = id / NPORTS;
			unsigned x = t % p->cols, y = t / p->cols;
			unsigned tx = *slot(p, x, y, c) & 0xff;
			for (unsigned q = 0; q < 4; q++) {
				unsigned nx, ny;
				if (!(tx & BIT(q)) || !neighbour(p, x, y, q, &nx, &ny))
					continue;
				unsigned nid = node_id(p, nx, ny, opposite(q));
				if (!((*slot(p, nx, ny, c) >> 8) & BIT(opposite(q))) ||
				    o[nid])
					continue;
				o[nid] = 1;
				work[top++] = nid;
			}
		}
	}
}

/*
 * Successor k of node n in VC v's graph: iterates colors of v and their tx
 * ports. *it is the iteration state (color * 4 + port); returns 1 and the
 * successor in *succ and its color in *color, or 0 when done.
 */
static int next_succ(const struct wse_route_plan *p, const uint8_t *occ,
		     unsigned v, unsigned n, unsigned *it, unsigned *succ,
		     unsigned *color)
{
	size_t nodes = (size_t)p->cols * p->rows * NPORTS;
	unsigned port = n % NPORTS, t = n / NPORTS;
	unsigned x = t % p->cols, y = t / p->cols;
	while (*it < NCOLORS * 4) {
		unsigned c = *it / 4, q = *it % 4;
		(*it)++;
		if (p->color_vc[c] != v || !occ[c * nodes + n])
			continue;
		uint16_t e = *slot(p, x, y, c);
		unsigned nx, ny;
		if (!((e >> 8) & BIT(port)) || !(e & BIT(q)))
			continue;
		if (!neighbour(p, x, y, q, &nx, &ny))
			continue;
		*succ = node_id(p, nx, ny, opposite(q));
		*color = c;
		return 1;
	}
	return 0;
}

int wse_route_check(const struct wse_route_plan *p,
		    struct wse_route_report *r)
{
	if (!p)
		return WSE_ROUTE_ERROR_INVALID;
	int err = check_edges(p, r);
	if (err)
		return err;

	unsigned n = p->cols * p->rows * NPORTS;
	uint8_t *state = malloc(n);          /* 0 new, 1 on stack, 2 done */
	unsigned *stack = malloc(sizeof(unsigned) * n);
	unsigned *iter = malloc(sizeof(unsigned) * n);
	uint8_t *occ = calloc((size_t)NCOLORS * n, 1);
	if (!state || !stack || !iter || !occ) {
		err = WSE_ROUTE_ERROR_NO_MEM;
		goto out_free;
	}
	occupancy(p, occ, stack);
	for (unsigned v = 0; v < p->num_vc && !err; v++) {
		memset(state, 0, n);
		for (unsigned root = 0; root < n && !err; root++) {
			if (state[root])
				continue;
			unsigned sp = 0;
			stack[sp++] = root;
			state[root] = 1;
			iter[root] = 0;
			while (sp && !err) {
				unsigned cur = stack[sp - 1], s, c;
				if (!next_succ(p, occ, v, cur, &iter[cur], &s, &c)) {
					state[cur] = 2;
					sp--;
					continue;
				}
				if (state[s] == 2)
					continue;
				if (state[s] == 0) {
					state[s] = 1;
					iter[s] = 0;
					stack[sp++] = s;
					continue;
				}
				/* s is on the stack: cycle s -> ... -> cur -> s */
				unsigned i = sp;
				while (i && stack[i - 1] != s)
					i--;
				char buf[512];
				int len = snprintf(buf, sizeof(buf), "VC %u cycle:", v);
				for (unsigned k = i - 1; k < sp && len < 400; k++) {
					unsigned t = stack[k] / NPORTS;
					len += snprintf(buf + len, sizeof(buf) - len,
							" (%u,%u).%s",
							t % p->cols, t / p->cols,
							port_name[stack[k] % NPORTS]);
				}
				snprintf(buf + len, sizeof(buf) - len,
					 " -> back (color %u)", c);
				unsigned t = s / NPORTS;
				fill(r, v, c, t % p->cols, t / p->cols, sp - i + 1, buf);
				err = WSE_ROUTE_ERROR_CYCLE;
			}
		}
	}
out_free:
	free(occ);
	free(iter);
	free(stack);
	free(state);
	return err;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_board.c - a mesh of tiles with their dataflow units and routers in
 * wsemu-fast (wse_fast_board.h): rtl/fabric/wse_router.sv and
 * rtl/mesh/wse_fabric_mesh.sv at the level of programs.
 */
#include <stdlib.h>
#include <string.h>

#include "wse_fast_board.h"
#include "wsemu/wse_error.h"

enum { WSF_N = 0, WSF_E = 1, WSF_S = 2, WSF_W = 3, WSF_RAMP = 4, WSF_PORTS = 5 };
#define WSF_QMAX 64u

/* A wavelet in a router input queue: the tx ports it still has to leave
 * by, whether it is dropped (arrival port not in rx, or tx 0), and the
 * time it arrived. */
struct wsf_entry {
	uint64_t w;
	uint64_t t;
	uint8_t left;
	uint8_t port; /* the input port it arrived by */
	bool drop;
};

struct wsf_inq {
	struct wsf_entry e[WSF_QMAX];
	unsigned head, count;
};

struct wsf_stream {
	uint64_t *w;
	size_t head, count, cap;
};

struct wsf_node {
	struct wse_fast_tile *tile;
	struct wse_fast_df *df;
	uint8_t rx[32], tx[32];
	struct wsf_inq in[4][WSE_FAST_MAX_VC]; /* N, E, S, W */
	uint32_t inq_mask; /* bit p * WSE_FAST_MAX_VC + v: in[p][v] holds wavelets */
	/* the RAMP input (the dataflow unit's send path): its head's state */
	bool ramp_seen[WSE_FAST_MAX_VC];
	struct wsf_entry ramp_head[WSE_FAST_MAX_VC];
	wse_fast_ramp_fn hook;
	void *hook_ctx;
	bool ended, waiting;
	uint64_t budget, debt, elems;
	/* router counters (docs/register-map.md): forwarded per output
	 * port, stalled per output port (in rounds' cycles, below), dropped
	 * per input port; and the output ports a head waited for this round */
	uint32_t fwd[WSF_PORTS], stall[WSF_PORTS], drop[WSF_PORTS];
	uint8_t stalled;
	/* A node asleep has nothing to do until something reaches it: its
	 * core waits or has ended, its engines and its router are stuck, and
	 * nothing of it waits for time. Rounds skip it (its core counts the
	 * round as idle) until a wavelet enters one of its input queues, a
	 * neighbour takes one of the wavelets it sent (a credit back), or the
	 * board is woken from outside. `busy` records progress in the round,
	 * `timed` a wavelet held up by time alone. */
	bool asleep, busy, timed;
};

struct wse_fast_board {
	struct wse_fast_board_cfg cfg;
	struct wsf_node *nodes;
	struct wsf_stream intake[2][64];
	wse_fast_outlet_fn outlet;
	void *outlet_ctx;
	uint64_t now, round_end;
	uint32_t quiet_rounds; /* rounds in a row in which nothing moved */
};

static void wsf_count(uint32_t *c, uint64_t n)
{
	*c = *c + n < *c || *c + n > UINT32_MAX ? UINT32_MAX : (uint32_t)(*c + n);
}

static struct wsf_node *wsf_node(struct wse_fast_board *b, unsigned x, unsigned y)
{
	return &b->nodes[y * b->cfg.cols + x];
}

int wse_fast_board_create(const struct wse_fast_board_cfg *cfg, struct wse_fast_board **out)
{
	if (!cfg || !out || cfg->cols == 0 || cfg->cols > 64 || cfg->rows == 0 || cfg->rows > 64 ||
	    cfg->df.vc_depth > WSF_QMAX)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_fast_board *b = calloc(1, sizeof *b);
	if (!b)
		return WSE_ERROR_NO_MEM;
	b->cfg = *cfg;
	b->cfg.df.dmem_bytes = cfg->dmem_bytes;
	if (!b->cfg.quantum)
		b->cfg.quantum = 32;
	if (!b->cfg.hop_cycles)
		b->cfg.hop_cycles = 1;
	unsigned n = cfg->cols * cfg->rows;
	b->nodes = calloc(n, sizeof *b->nodes);
	if (!b->nodes) {
		free(b);
		return WSE_ERROR_NO_MEM;
	}
	for (unsigned i = 0; i < n; i++) {
		struct wse_fast_tile_cfg tc = {
			.imem_bytes = cfg->imem_bytes, .dmem_bytes = cfg->dmem_bytes,
			.dmem_banks = cfg->dmem_banks,
			.x = (uint8_t)(i % cfg->cols), .y = (uint8_t)(i / cfg->cols)
		};
		int r = wse_fast_tile_create(&tc, &b->nodes[i].tile);
		if (r == 0)
			r = wse_fast_df_create(&b->cfg.df, b->nodes[i].tile, &b->nodes[i].df);
		if (r < 0) {
			b->cfg.cols = i + 1; /* free what exists */
			b->cfg.rows = 1;
			wse_fast_board_destroy(b);
			return r;
		}
	}
	*out = b;
	return 0;
}

void wse_fast_board_destroy(struct wse_fast_board *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < b->cfg.cols * b->cfg.rows; i++) {
		wse_fast_df_destroy(b->nodes[i].df);
		wse_fast_tile_destroy(b->nodes[i].tile);
	}
	for (unsigned e = 0; e < 2; e++)
		for (unsigned r = 0; r < 64; r++)
			free(b->intake[e][r].w);
	free(b->nodes);
	free(b);
}

int wse_fast_board_tile(struct wse_fast_board *b, unsigned x, unsigned y,
			struct wse_fast_tile **tile, struct wse_fast_df **df)
{
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	if (x >= b->cfg.cols || y >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	if (tile)
		*tile = wsf_node(b, x, y)->tile;
	if (df)
		*df = wsf_node(b, x, y)->df;
	return 0;
}

int wse_fast_board_route(struct wse_fast_board *b, unsigned x, unsigned y, unsigned color,
			 uint32_t rx, uint32_t tx)
{
	if (!b || color > 31 || rx > 0x1f || tx > 0x1f)
		return WSE_ERROR_INVALID_PARAM;
	if (x >= b->cfg.cols || y >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	wsf_node(b, x, y)->rx[color] = (uint8_t)rx;
	wsf_node(b, x, y)->tx[color] = (uint8_t)tx;
	return 0;
}

int wse_fast_board_set_ramp(struct wse_fast_board *b, unsigned x, unsigned y, wse_fast_ramp_fn fn,
			    void *ctx)
{
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	if (x >= b->cfg.cols || y >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	wsf_node(b, x, y)->hook = fn;
	wsf_node(b, x, y)->hook_ctx = ctx;
	return 0;
}

int wse_fast_board_set_outlet(struct wse_fast_board *b, wse_fast_outlet_fn fn, void *ctx)
{
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	b->outlet = fn;
	b->outlet_ctx = ctx;
	return 0;
}

int wse_fast_board_intake(struct wse_fast_board *b, enum wse_fast_edge edge, unsigned row,
			  uint64_t w)
{
	if (!b || (edge != WSE_FAST_EDGE_WEST && edge != WSE_FAST_EDGE_EAST))
		return WSE_ERROR_INVALID_PARAM;
	if (row >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	struct wsf_stream *s = &b->intake[edge][row];
	if (s->head + s->count == s->cap) {
		if (s->head) {
			memmove(s->w, s->w + s->head, s->count * sizeof *s->w);
			s->head = 0;
		} else {
			size_t cap = s->cap ? 2 * s->cap : 64;
			uint64_t *nw = realloc(s->w, cap * sizeof *nw);
			if (!nw)
				return WSE_ERROR_NO_MEM;
			s->w = nw;
			s->cap = cap;
		}
	}
	s->w[s->head + s->count++] = w;
	return 0;
}

int wse_fast_board_now(const struct wse_fast_board *b, uint64_t *now)
{
	if (!b || !now)
		return WSE_ERROR_INVALID_PARAM;
	*now = b->now;
	return 0;
}

/* ---- Routers ---------------------------------------------------------------- */

static unsigned wsf_vc(const struct wse_fast_board *b, uint64_t w)
{
	return b->cfg.df.color_vc[WSE_FAST_WAVELET_COLOR(w)];
}

/* The route lookup at arrival through port p. */
static struct wsf_entry wsf_arrive(const struct wsf_node *n, unsigned p, uint64_t w, uint64_t t)
{
	unsigned c = WSE_FAST_WAVELET_COLOR(w);
	struct wsf_entry e = { .w = w, .t = t, .left = n->tx[c], .port = (uint8_t)p };
	e.drop = !(n->rx[c] >> p & 1u) || !n->tx[c];
	return e;
}

/* Input queue p of the neighbour that output port q of (x, y) feeds;
 * NULL at the edge of the mesh. */
static struct wsf_node *wsf_peer(struct wse_fast_board *b, unsigned x, unsigned y, unsigned q,
				 unsigned *p)
{
	switch (q) {
	case WSF_N:
		*p = WSF_S;
		return y ? wsf_node(b, x, y - 1) : NULL;
	case WSF_S:
		*p = WSF_N;
		return y + 1 < b->cfg.rows ? wsf_node(b, x, y + 1) : NULL;
	case WSF_E:
		*p = WSF_W;
		return x + 1 < b->cfg.cols ? wsf_node(b, x + 1, y) : NULL;
	default:
		*p = WSF_E;
		return x ? wsf_node(b, x - 1, y) : NULL;
	}
}

static bool wsf_inq_push(struct wse_fast_board *b, struct wsf_node *n, unsigned p, uint64_t w,
			 uint64_t t)
{
	struct wsf_inq *q = &n->in[p][wsf_vc(b, w)];
	if (q->count >= b->cfg.df.vc_depth)
		return false;
	q->e[(q->head + q->count) % b->cfg.df.vc_depth] = wsf_arrive(n, p, w, t);
	q->count++;
	n->inq_mask |= 1u << (p * WSE_FAST_MAX_VC + wsf_vc(b, w));
	n->asleep = false;
	return true;
}

/* Send wavelet w (arrived at time t) from (x, y) by output q, when its
 * receiver has room. */
static int wsf_out(struct wse_fast_board *b, unsigned x, unsigned y, unsigned q, uint64_t w,
		   uint64_t t, bool *sent)
{
	struct wsf_node *n = wsf_node(b, x, y);
	*sent = false;
	if (q == WSF_RAMP) {
		uint32_t room;
		int r = wse_fast_df_ramp_room(n->df, WSE_FAST_WAVELET_COLOR(w), &room);
		if (r < 0 || !room)
			return r;
		*sent = true;
		return wse_fast_df_ramp_push(n->df, w);
	}
	unsigned p;
	struct wsf_node *peer = wsf_peer(b, x, y, q, &p);
	if (peer) {
		*sent = wsf_inq_push(b, peer, p, w, t + b->cfg.hop_cycles);
		return 0;
	}
	/* off the mesh: the edge streams, or absorbed north and south */
	if ((q == WSF_W || q == WSF_E) && b->outlet) {
		*sent = b->outlet(b->outlet_ctx, q == WSF_W ? WSE_FAST_EDGE_WEST : WSE_FAST_EDGE_EAST,
				  y, w, b->round_end);
		return 0;
	}
	*sent = true;
	return 0;
}

/* Move the head of one input queue as far as it goes: its branches leave
 * independently; it is popped when its last one has left. Returns the
 * number of branches sent and heads popped, or an error. */
static int wsf_head(struct wse_fast_board *b, unsigned x, unsigned y, struct wsf_entry *e,
		    bool *popped)
{
	int moved = 0;
	*popped = false;
	if (e->t + b->cfg.hop_cycles > b->round_end) {
		wsf_node(b, x, y)->timed = true;
		return 0;
	}
	if (!e->drop) {
		for (unsigned q = 0; q < WSF_PORTS && e->left; q++) {
			if (!(e->left >> q & 1u))
				continue;
			bool sent;
			int r = wsf_out(b, x, y, q, e->w, e->t, &sent);
			if (r < 0)
				return r;
			struct wsf_node *n = wsf_node(b, x, y);
			if (sent) {
				e->left &= (uint8_t)~(1u << q);
				wsf_count(&n->fwd[q], 1);
				moved++;
			} else {
				n->stalled |= (uint8_t)(1u << q);
			}
		}
		if (e->left)
			return moved;
	} else {
		wsf_count(&wsf_node(b, x, y)->drop[e->port], 1);
	}
	*popped = true;
	return moved + 1;
}

static int wsf_route_node(struct wse_fast_board *b, unsigned x, unsigned y)
{
	struct wsf_node *n = wsf_node(b, x, y);
	int moved = 0, r;
	bool popped;
	/* the queues holding wavelets, in port and VC order */
	for (uint32_t m = n->inq_mask; m; m &= m - 1) {
		unsigned bit = (unsigned)__builtin_ctz(m), p = bit / WSE_FAST_MAX_VC, v = bit % WSE_FAST_MAX_VC;
		{
			struct wsf_inq *q = &n->in[p][v];
			while (q->count) {
				if ((r = wsf_head(b, x, y, &q->e[q->head], &popped)) < 0)
					return r;
				moved += r;
				if (!popped)
					break;
				q->head = (q->head + 1) % b->cfg.df.vc_depth;
				q->count--;
				/* a credit back to the neighbour that sent it */
				unsigned pp;
				struct wsf_node *up = wsf_peer(b, x, y, p, &pp);
				if (up)
					up->asleep = false;
				if (!q->count)
					n->inq_mask &= ~(1u << bit);
			}
		}
	}
	for (uint32_t m = wse_fast_df_out_mask(n->df); m; m &= m - 1) {
		unsigned v = (unsigned)__builtin_ctz(m);
		uint64_t w;
		while (wse_fast_df_out_peek(n->df, v, &w) == 0) {
			if (!n->ramp_seen[v]) {
				n->ramp_head[v] = wsf_arrive(n, WSF_RAMP, w, b->now);
				n->ramp_seen[v] = true;
			}
			if ((r = wsf_head(b, x, y, &n->ramp_head[v], &popped)) < 0)
				return r;
			moved += r;
			if (!popped)
				break;
			n->ramp_seen[v] = false;
			if ((r = wse_fast_df_out_pop(n->df, v)) < 0)
				return r;
		}
	}
	return moved;
}

static int wsf_route_all(struct wse_fast_board *b)
{
	int moved = 0, r;
	for (unsigned e = 0; e < 2; e++) {
		for (unsigned y = 0; y < b->cfg.rows; y++) {
			struct wsf_stream *s = &b->intake[e][y];
			struct wsf_node *n = wsf_node(b, e == WSE_FAST_EDGE_WEST ? 0 : b->cfg.cols - 1, y);
			while (s->count &&
			       wsf_inq_push(b, n, e == WSE_FAST_EDGE_WEST ? WSF_W : WSF_E, s->w[s->head],
					    b->now)) {
				s->head++;
				s->count--;
				moved++;
			}
		}
	}
	for (unsigned y = 0; y < b->cfg.rows; y++) {
		for (unsigned x = 0; x < b->cfg.cols; x++) {
			struct wsf_node *n = wsf_node(b, x, y);
			if (n->asleep)
				continue;
			if (n->hook)
				r = n->hook(n->hook_ctx, n->df, b->round_end);
			else
				r = wsf_route_node(b, x, y);
			if (r < 0)
				return r;
			n->busy |= r > 0;
			moved += r;
		}
	}
	return moved;
}

/* ---- Rounds -------------------------------------------------------------------- */

/* One pass over the cores and the engines of a round. */
static int wsf_pass(struct wse_fast_board *b, unsigned *left)
{
	int moved = 0;
	unsigned nodes = b->cfg.cols * b->cfg.rows;
	*left = 0;
	for (unsigned i = 0; i < nodes; i++) {
		struct wsf_node *n = &b->nodes[i];
		if (n->asleep)
			continue;
		/* A core that waited while its engines worked resumes at their
		 * time in the round (the wait counts as idle cycles). */
		if (n->waiting && !n->ended && n->budget && b->cfg.quantum - n->budget < n->elems) {
			uint64_t skip = n->budget - (b->cfg.quantum - n->elems);
			int r = wse_fast_tile_idle(n->tile, skip);
			if (r < 0)
				return r;
			n->budget -= skip;
		}
		if (!n->ended && n->budget) {
			uint64_t c;
			bool engines_busy = wse_fast_df_engines_busy(n->df);
			int r = wse_fast_df_run_core(n->df, n->budget, &c);
			if (r < 0)
				return r;
			if (c > n->budget) {
				n->debt = c - n->budget;
				c = n->budget;
			}
			n->budget -= c;
			moved += c != 0;
			n->busy |= c != 0;
			n->waiting = r == WSE_FAST_DF_BLOCKED || r == WSE_FAST_DF_HALTED;
			/* idle engines start what the core issued at the core's time */
			if (!engines_busy && n->elems < b->cfg.quantum - n->budget)
				n->elems = b->cfg.quantum - n->budget;
			if (r == WSE_FAST_DF_EXIT)
				n->ended = true;
		}
		/* The engines do not run ahead of their core's time in the
		 * round, unless the core waits (for them, or for the fabric). */
		uint64_t upto = n->ended || n->waiting ? b->cfg.quantum : b->cfg.quantum - n->budget;
		if (n->elems < upto) {
			uint64_t e;
			int r = wse_fast_df_run_engines(n->df, upto - n->elems, &e);
			if (r < 0)
				return r;
			n->elems += e;
			moved += e != 0;
			n->busy |= e != 0;
		}
	}
	int r = wsf_route_all(b);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < nodes; i++)
		if (!b->nodes[i].ended)
			(*left)++;
	return moved + r;
}

/* The cores that take part in rounds: released and not ended. */
static int wsf_mark_ended(struct wse_fast_board *b)
{
	for (unsigned i = 0; i < b->cfg.cols * b->cfg.rows; i++) {
		struct wse_fast_status st;
		int r = wse_fast_tile_status(b->nodes[i].tile, &st);
		if (r < 0)
			return r;
		b->nodes[i].ended = st.done || st.halted;
	}
	return 0;
}

/* One round of `quantum` cycles. *moved gets what moved in it (0: nothing
 * at all: no instruction, element or wavelet), *left the cores still
 * running. */
static int wsf_round(struct wse_fast_board *b, int *moved_total, unsigned *left)
{
	unsigned nodes = b->cfg.cols * b->cfg.rows;
	b->round_end = b->now + b->cfg.quantum;
	for (unsigned i = 0; i < nodes; i++) {
		struct wsf_node *n = &b->nodes[i];
		n->budget = n->debt < b->cfg.quantum ? b->cfg.quantum - n->debt : 0;
		n->debt = n->debt < b->cfg.quantum ? 0 : n->debt - b->cfg.quantum;
		n->elems = 0; /* elements done this round */
		n->waiting = false;
		if (!n->asleep)
			n->stalled = 0;
		n->busy = n->timed = false;
	}
	int moved;
	*moved_total = 0;
	do {
		moved = wsf_pass(b, left);
		if (moved < 0)
			return moved;
		*moved_total += moved;
	} while (moved > 0);
	for (unsigned i = 0; i < nodes; i++) {
		struct wsf_node *n = &b->nodes[i];
		int r;
		if (!n->ended && n->budget && (r = wse_fast_tile_idle(n->tile, n->budget)) < 0)
			return r;
		/* a port a head still waits for at the end of the round stalled
		 * for the round */
		for (unsigned q = 0; q < WSF_PORTS; q++)
			if (n->stalled >> q & 1u)
				wsf_count(&n->stall[q], b->cfg.quantum);
		/* nothing done in the whole round and nothing owed to time: asleep
		 * (a node already asleep stays so; its stalls count on) */
		if (!n->asleep && !n->busy && !n->timed && !n->debt && !n->hook &&
		    (n->ended || n->waiting))
			n->asleep = true;
	}
	b->now = b->round_end;
	return 0;
}

/* Does any edge intake still hold wavelets? */
static bool wsf_intake_any(const struct wse_fast_board *b)
{
	for (unsigned e = 0; e < 2; e++)
		for (unsigned y = 0; y < b->cfg.rows; y++)
			if (b->intake[e][y].count)
				return true;
	return false;
}

/* Nothing can move before something outside the board acts: rounds in a
 * row with no progress, no instruction still owing cycles, no intake
 * waiting. (A wavelet or an instruction held up by time alone moves
 * within two rounds: the longest instruction, 34 cycles, spans two.) */
#define WSF_QUIET_ROUNDS 3u

static bool wsf_quiet(const struct wse_fast_board *b)
{
	if (b->quiet_rounds < WSF_QUIET_ROUNDS)
		return false;
	for (unsigned i = 0; i < b->cfg.cols * b->cfg.rows; i++)
		if (b->nodes[i].debt)
			return false;
	return !wsf_intake_any(b);
}

/* Rounds for up to max_cycles: until every core has ended (*stop: all
 * ended) or, with until_quiet, until the board is quiet (*stop: quiet).
 * An advance also ends early, not quiet, in the round its edge intakes
 * empty: a stream-in has been taken whole, and the host interface can
 * answer it and start its next request now, as the RTL's executor does,
 * not at the end of the caller's slice. */
static int wsf_rounds(struct wse_fast_board *b, uint64_t max_cycles, bool until_quiet, bool *stop)
{
	unsigned left = b->cfg.cols * b->cfg.rows;
	uint64_t end = b->now + max_cycles;
	int r = wsf_mark_ended(b);
	bool fed = until_quiet && wsf_intake_any(b);
	*stop = false;
	while (r == 0 && b->now < end && !*stop) {
		int moved;
		if ((r = wsf_round(b, &moved, &left)) < 0)
			break;
		b->quiet_rounds = moved ? 0 : b->quiet_rounds + 1;
		*stop = until_quiet ? wsf_quiet(b) : left == 0;
		if (fed && !*stop && !wsf_intake_any(b))
			break;
	}
	return r;
}

int wse_fast_board_run(struct wse_fast_board *b, uint64_t max_cycles, bool *done)
{
	bool all_ended;
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	int r = wsf_rounds(b, max_cycles, false, &all_ended);
	if (r == 0 && done)
		*done = all_ended;
	return r;
}

int wse_fast_board_advance(struct wse_fast_board *b, uint64_t max_cycles, bool *idle)
{
	if (!b || !idle)
		return WSE_ERROR_INVALID_PARAM;
	return wsf_rounds(b, max_cycles, true, idle);
}

int wse_fast_board_skip(struct wse_fast_board *b, uint64_t cycles)
{
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	uint64_t n = (cycles + b->cfg.quantum - 1) / b->cfg.quantum * b->cfg.quantum;
	int r = wsf_mark_ended(b);
	for (unsigned i = 0; r == 0 && i < b->cfg.cols * b->cfg.rows; i++)
		if (!b->nodes[i].ended)
			r = wse_fast_tile_idle(b->nodes[i].tile, n);
	if (r == 0)
		b->now += n;
	return r;
}

int wse_fast_board_wake(struct wse_fast_board *b)
{
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	b->quiet_rounds = 0;
	for (unsigned i = 0; i < b->cfg.cols * b->cfg.rows; i++)
		b->nodes[i].asleep = false;
	return 0;
}

int wse_fast_board_route_read(const struct wse_fast_board *b, unsigned x, unsigned y,
			      unsigned color, uint32_t *rx, uint32_t *tx)
{
	if (!b || color > 31 || !rx || !tx)
		return WSE_ERROR_INVALID_PARAM;
	if (x >= b->cfg.cols || y >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	const struct wsf_node *n = &b->nodes[y * b->cfg.cols + x];
	*rx = n->rx[color];
	*tx = n->tx[color];
	return 0;
}

int wse_fast_board_counters(struct wse_fast_board *b, unsigned x, unsigned y,
			    uint32_t v[WSE_FAST_COUNTERS], bool clear)
{
	if (!b || (!v && !clear))
		return WSE_ERROR_INVALID_PARAM;
	if (x >= b->cfg.cols || y >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	struct wsf_node *n = wsf_node(b, x, y);
	for (unsigned p = 0; v && p < WSF_PORTS; p++) {
		v[3 * p] = n->fwd[p];
		v[3 * p + 1] = n->stall[p];
		v[3 * p + 2] = n->drop[p];
	}
	if (clear) {
		memset(n->fwd, 0, sizeof n->fwd);
		memset(n->stall, 0, sizeof n->stall);
		memset(n->drop, 0, sizeof n->drop);
	}
	return 0;
}

int wse_fast_board_intake_pending(const struct wse_fast_board *b, enum wse_fast_edge edge,
				  unsigned row, size_t *count)
{
	if (!b || !count || (edge != WSE_FAST_EDGE_WEST && edge != WSE_FAST_EDGE_EAST))
		return WSE_ERROR_INVALID_PARAM;
	if (row >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	*count = b->intake[edge][row].count;
	return 0;
}

int wse_fast_board_intake_drop(struct wse_fast_board *b, enum wse_fast_edge edge, unsigned row)
{
	if (!b || (edge != WSE_FAST_EDGE_WEST && edge != WSE_FAST_EDGE_EAST))
		return WSE_ERROR_INVALID_PARAM;
	if (row >= b->cfg.rows)
		return WSE_ERROR_RANGE;
	b->intake[edge][row].head = b->intake[edge][row].count = 0;
	return 0;
}

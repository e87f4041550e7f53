/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_df.c - the dataflow unit of a tile in wsemu-fast (wse_fast_df.h):
 * rtl/pe/dataflow/wse_df*.sv at the level of programs.
 */
#include <stdlib.h>
#include <string.h>

#include "wse_fast_df.h"
#include "wsemu/wse_error.h"
#include "vec_model.h"
#include "wsf_fp.h"

/* Register window (rtl/pe/dataflow/wse_df_pkg.sv). */
enum {
	WSF_REG_NEXT = 0x060, WSF_REG_BLOCK = 0x061, WSF_REG_UNBLOCK = 0x062,
	WSF_REG_ACTIVE = 0x063, WSF_REG_ACTIVEH = 0x064, WSF_REG_VOP = 0x070,
	WSF_REG_VSCALAR = 0x071, WSF_REG_VFLAGS = 0x072, WSF_REG_VWAIT = 0x073,
	WSF_REG_VDONE = 0x074, WSF_REG_MOV = 0x075, WSF_REG_MDONE = 0x076,
	WSF_REG_MWAIT = 0x077
};

#define WSF_VOP_DEPTH 4u /* QDepth of wse_df_vec */
#define WSF_MOV_DEPTH 2u /* MDepth of wse_df_mov */
#define WSF_MAX_DEPTH 64u
/* The sparse gather (docs/pe-programming.md, "Sparse gathers"): bit 25 of
 * an operation word gathers a's rows through the gather table (wse_df.h). */
#define WSF_VOP_GATHER 0x02000000u

struct wsf_dsd_reg {
	uint32_t base;
	uint16_t len0, st0, len1, st1, adv;
	bool fab;
};

/* An issued operation or move: the snapshot of its descriptors. */
struct wsf_op {
	struct vm_op op;  /* bases as word indices (memory) or colors (fabric) */
	bool ten;         /* activate task tid on completion */
	uint8_t tid;
	bool gather_set;  /* op.gather: LEN0 taken from the gather count */
};

/* The element in progress of the engine or the move channel. */
struct wsf_elem {
	uint32_t i0, i1;
	uint32_t s, a, b;       /* the per-pass scalar and the gathered operands */
	bool have_a, have_b;    /* gathered (s: gathered at i0 == 0 with have_s) */
	bool have_s;
	bool pend_send;         /* a fabric result waits for a credit */
	uint64_t res;           /* that result's wavelet */
	/* SPMACS: the share's state (docs/pe-programming.md, "Sparse streams") */
	enum { WSF_SP_INDEX = 0, WSF_SP_CODES, WSF_SP_PASS, WSF_SP_ZERO } sp;
	uint32_t sp_codes;      /* the index wavelet's codes */
	unsigned sp_k;          /* the next code, 0..4 */
	uint32_t sp_pos;        /* the slot the next code of 0 names */
	uint32_t sp_val;        /* the value of the pass */
	bool sp_ctrl;           /* that value ends the share */
	bool sp_started;        /* an index wavelet came */
	bool sp_mac;            /* a value was computed: FMACS from now on */
	uint32_t gn;            /* SPIDX: the slots named so far */
	/* Steps still owed to the RTL's timing (docs/pe-programming.md,
	 * "Sparse gathers"): SPIDX's cycle per named slot and its closing
	 * element, a gathered operation's two cycles to start its stream. */
	uint32_t gdebt;
	bool gend;              /* SPIDX: the share ended; retire when paid */
};

struct wsf_chan {
	struct wsf_op q[WSF_VOP_DEPTH];
	unsigned head, count, depth;
	struct wsf_elem e;
	uint32_t done;
};

struct wse_fast_df {
	struct wse_fast_df_cfg cfg;
	struct wse_fast_tile *tile;
	uint8_t *dmem;
	uint32_t dmem_words;
	/* RAMP queues, router -> PE */
	uint64_t inq[32][WSF_MAX_DEPTH];
	unsigned in_head[32], in_count[32];
	/* send path, PE -> router, per VC */
	uint64_t outq[WSE_FAST_MAX_VC][WSF_MAX_DEPTH];
	unsigned out_head[WSE_FAST_MAX_VC], out_count[WSE_FAST_MAX_VC];
	/* task unit */
	uint32_t bind_en;
	uint32_t bind_cdata;  /* BIND bit 30: control wavelets stay in the queue as data */
	uint8_t bind_task[32];
	uint64_t act, blk;
	unsigned last; /* last candidate granted, 0..95 */
	/* vector engine and move channel */
	struct wsf_dsd_reg dsd[8];
	uint32_t scalar;
	uint32_t flags;
	struct wsf_chan vec, mov;
	bool mov_err;
	/* the gather table and count of the last SPIDX */
	uint16_t gtab[VM_GATHER_MAX];
	uint32_t gcount;
};

int wse_fast_df_create(const struct wse_fast_df_cfg *cfg, struct wse_fast_tile *tile,
		       struct wse_fast_df **out)
{
	if (!cfg || !tile || !out || cfg->ramp_color_depth == 0 ||
	    cfg->ramp_color_depth > WSF_MAX_DEPTH || cfg->num_vc == 0 ||
	    cfg->num_vc > WSE_FAST_MAX_VC || cfg->vc_depth == 0 || cfg->vc_depth > WSF_MAX_DEPTH ||
	    cfg->dmem_bytes < 32 || (cfg->dmem_bytes & (cfg->dmem_bytes - 1)))
		return WSE_ERROR_INVALID_PARAM;
	for (unsigned c = 0; c < 32; c++)
		if (cfg->color_vc[c] >= cfg->num_vc)
			return WSE_ERROR_INVALID_PARAM;
	struct wse_fast_df *df = calloc(1, sizeof *df);
	if (!df)
		return WSE_ERROR_NO_MEM;
	df->cfg = *cfg;
	df->tile = tile;
	df->dmem_words = cfg->dmem_bytes / 4;
	uint32_t tile_dmem;
	df->dmem = wse_fast_tile_dmem(tile, &tile_dmem);
	if (cfg->dmem_bytes > tile_dmem) {
		free(df);
		return WSE_ERROR_INVALID_PARAM;
	}
	df->last = 95;
	for (unsigned d = 0; d < 8; d++) {
		df->dsd[d].len0 = 1;
		df->dsd[d].st0 = 1;
		df->dsd[d].len1 = 1;
	}
	df->vec.depth = WSF_VOP_DEPTH;
	df->mov.depth = WSF_MOV_DEPTH;
	*out = df;
	return 0;
}

void wse_fast_df_destroy(struct wse_fast_df *df)
{
	free(df);
}

/* ---- Queues ------------------------------------------------------------------ */

static uint64_t wsf_in_head(const struct wse_fast_df *df, unsigned c)
{
	return df->inq[c][df->in_head[c]];
}

static void wsf_in_drop(struct wse_fast_df *df, unsigned c)
{
	df->in_head[c] = (df->in_head[c] + 1) % df->cfg.ramp_color_depth;
	df->in_count[c]--;
}

/* The task unit takes a control wavelet at the head of a queue: it
 * activates the task its payload names. */
static void wsf_in_settle(struct wse_fast_df *df, unsigned c)
{
	if (df->bind_cdata >> c & 1u)
		return;
	while (df->in_count[c] && WSE_FAST_WAVELET_CTRL(wsf_in_head(df, c))) {
		df->act |= 1ull << (wsf_in_head(df, c) & 63u);
		wsf_in_drop(df, c);
	}
}

/* Pop the head wavelet of color c (a data wavelet, or a control one of a
 * color whose control wavelets are data), its control bit into *ctrl;
 * false when there is none. */
static bool wsf_in_pop_ctrl(struct wse_fast_df *df, unsigned c, uint32_t *data, bool *ctrl)
{
	if (!df->in_count[c])
		return false;
	uint64_t w = wsf_in_head(df, c);
	*data = (uint32_t)w;
	*ctrl = WSE_FAST_WAVELET_CTRL(w) != 0;
	wsf_in_drop(df, c);
	wsf_in_settle(df, c);
	return true;
}

static bool wsf_in_pop(struct wse_fast_df *df, unsigned c, uint32_t *data)
{
	bool ctrl;
	return wsf_in_pop_ctrl(df, c, data, &ctrl);
}

/* Send a wavelet on its color's VC; false without a credit. */
static bool wsf_send(struct wse_fast_df *df, uint64_t w)
{
	unsigned v = df->cfg.color_vc[WSE_FAST_WAVELET_COLOR(w)];
	if (df->out_count[v] >= df->cfg.vc_depth)
		return false;
	df->outq[v][(df->out_head[v] + df->out_count[v]) % df->cfg.vc_depth] = w;
	df->out_count[v]++;
	return true;
}

int wse_fast_df_ramp_room(const struct wse_fast_df *df, unsigned color, uint32_t *room)
{
	if (!df || !room || color > 31)
		return WSE_ERROR_INVALID_PARAM;
	*room = df->cfg.ramp_color_depth - df->in_count[color];
	return 0;
}

int wse_fast_df_ramp_push(struct wse_fast_df *df, uint64_t w)
{
	if (!df)
		return WSE_ERROR_INVALID_PARAM;
	unsigned c = WSE_FAST_WAVELET_COLOR(w);
	if (df->in_count[c] >= df->cfg.ramp_color_depth)
		return WSE_ERROR_BUSY;
	df->inq[c][(df->in_head[c] + df->in_count[c]) % df->cfg.ramp_color_depth] =
		w & ((1ull << 38) - 1);
	df->in_count[c]++;
	wsf_in_settle(df, c);
	return 0;
}

int wse_fast_df_out_peek(const struct wse_fast_df *df, unsigned vc, uint64_t *w)
{
	if (!df || !w || vc >= df->cfg.num_vc)
		return WSE_ERROR_INVALID_PARAM;
	if (!df->out_count[vc])
		return WSE_ERROR_NOT_FOUND;
	*w = df->outq[vc][df->out_head[vc]];
	return 0;
}

int wse_fast_df_out_pop(struct wse_fast_df *df, unsigned vc)
{
	if (!df || vc >= df->cfg.num_vc)
		return WSE_ERROR_INVALID_PARAM;
	if (!df->out_count[vc])
		return WSE_ERROR_NOT_FOUND;
	df->out_head[vc] = (df->out_head[vc] + 1) % df->cfg.vc_depth;
	df->out_count[vc]--;
	return 0;
}

uint32_t wse_fast_df_out_mask(const struct wse_fast_df *df)
{
	uint32_t m = 0;
	for (unsigned v = 0; df && v < df->cfg.num_vc; v++)
		m |= (df->out_count[v] != 0) << v;
	return m;
}

bool wse_fast_df_engines_busy(const struct wse_fast_df *df)
{
	return df && (df->vec.count || df->mov.count);
}

int wse_fast_df_state(const struct wse_fast_df *df, struct wse_fast_df_state *st)
{
	if (!df || !st)
		return WSE_ERROR_INVALID_PARAM;
	memset(st, 0, sizeof *st);
	st->vec_busy = df->vec.count != 0;
	st->mov_busy = df->mov.count != 0;
	st->vdone = df->vec.done;
	st->mdone = df->mov.done;
	for (unsigned c = 0; c < 32; c++)
		st->queued[c] = df->in_count[c];
	for (unsigned v = 0; v < df->cfg.num_vc; v++)
		st->out_queued += df->out_count[v];
	return 0;
}

/* ---- Task unit --------------------------------------------------------------- */

/* The NEXT register: round-robin over tasks 0..63 (active, not blocked)
 * and data colors 64..95 (bound, a data wavelet at the head, the task not
 * blocked), from the candidate after the last one taken. */
static uint32_t wsf_next(struct wse_fast_df *df, bool take)
{
	int first = -1, after = -1;
	for (unsigned i = 0; i < 96; i++) {
		bool ready;
		if (i < 64) {
			ready = (df->act >> i & 1u) && !(df->blk >> i & 1u);
		} else {
			unsigned c = i - 64;
			ready = (df->bind_en >> c & 1u) && df->in_count[c] &&
				!(df->blk >> df->bind_task[c] & 1u);
		}
		if (!ready)
			continue;
		if (first < 0)
			first = (int)i;
		if (i > df->last) {
			after = (int)i;
			break;
		}
	}
	int g = after >= 0 ? after : first;
	if (g < 0)
		return 0;
	if (take) {
		df->last = (unsigned)g;
		if (g < 64)
			df->act &= ~(1ull << g);
	}
	if (g >= 64)
		return 0x80000000u | 0x2000u | (uint32_t)(g - 64) << 8 | df->bind_task[g - 64];
	return 0x80000000u | (uint32_t)g;
}

/* ---- Vector engine and move channel -------------------------------------------- */

/* DMEM word accesses of the engines (the address wraps in DMEM). */
static int wsf_mem_rd(const struct wse_fast_df *df, uint32_t word, uint32_t *v)
{
	memcpy(v, df->dmem + 4u * (word & (df->dmem_words - 1)), 4);
	return 0;
}

static int wsf_mem_wr(struct wse_fast_df *df, uint32_t word, uint32_t v)
{
	memcpy(df->dmem + 4u * (word & (df->dmem_words - 1)), &v, 4);
	return 0;
}

static uint32_t wsf_addr(const struct vm_dsd *d, uint32_t i0, uint32_t i1)
{
	return (uint32_t)((int64_t)d->base + (int64_t)i1 * d->st1 + (int64_t)i0 * d->st0);
}

/* The word of a's element (i0, i1) of operation o: through the gather
 * table for a gathered operation. */
static uint32_t wsf_a_addr(const struct wse_fast_df *df, const struct wsf_op *o, uint32_t i0,
			   uint32_t i1)
{
	if (o->op.gather)
		i0 = df->gtab[i0];
	return wsf_addr(&o->op.a, i0, i1);
}

static bool wsf_uses_b(int op, int bmode)
{
	return ((op == VM_FADDS || op == VM_FMULS || op == VM_FMACS || op == VM_FMAXS) &&
		(bmode == VM_B_VEC || bmode == VM_B_PERPASS)) ||
	       (op == VM_FMACS && bmode == VM_B_ADDEND);
}

/* Gather one operand of descriptor d at word w: a pop for a fabric one
 * (1: not there yet), a read for a memory one. */
static int wsf_operand(struct wse_fast_df *df, const struct vm_dsd *d, uint32_t w, uint32_t *v)
{
	if (d->fab)
		return wsf_in_pop(df, d->base & 31u, v) ? 0 : 1;
	return wsf_mem_rd(df, w, v);
}

/* Activate a completion task and count the operation. */
static void wsf_chan_retire(struct wse_fast_df *df, struct wsf_chan *ch)
{
	struct wsf_op *o = &ch->q[ch->head];
	if (o->ten)
		df->act |= 1ull << o->tid;
	ch->done++;
	ch->head = (ch->head + 1) % ch->depth;
	ch->count--;
	memset(&ch->e, 0, sizeof ch->e);
}

/* One step of an SPMACS (the head operation of the engine): an index
 * wavelet taken, or one element of a pass (the pass's first element takes
 * its value), or a value out of range dropped, or one +0 of an empty
 * share. Returns 1 when it did one, 0 when it waits for a wavelet. The
 * arithmetic is vec_model's sp_run, element by element. */
static int wsf_sp_elem(struct wse_fast_df *df, struct wsf_chan *ch)
{
	const struct vm_op *op = &ch->q[ch->head].op;
	struct wsf_elem *e = &ch->e;
	uint32_t len0 = op->d.len0 ? op->d.len0 : 65536u, w;
	bool ctrl;
	if (!op->b.fab || op->a.fab || op->d.fab) {
		df->flags |= VM_FLAG_SPARSE;
		wsf_chan_retire(df, ch);
		return 1;
	}
	for (;;) {
		switch (e->sp) {
		case WSF_SP_INDEX:
			if (!wsf_in_pop_ctrl(df, op->b.base & 31u, &w, &ctrl))
				return 0;
			if (ctrl && !e->sp_started && op->bmode == VM_SP_ACC) {
				wsf_chan_retire(df, ch); /* an empty share: dst as it is */
				return 1;
			}
			if (ctrl && !e->sp_started) {
				e->sp = WSF_SP_ZERO;
				e->i0 = 0;
				return 1;
			}
			if (ctrl) { /* a control wavelet where an index wavelet is due */
				df->flags |= VM_FLAG_SPARSE;
				wsf_chan_retire(df, ch);
				return 1;
			}
			e->sp_started = true;
			e->sp_codes = w;
			e->sp_k = 0;
			e->sp = WSF_SP_CODES;
			return 1;
		case WSF_SP_CODES: {
			uint32_t code = 0;
			while (e->sp_k < 4 && (code = e->sp_codes >> (8 * e->sp_k) & 0xffu) == VM_SP_ESC) {
				e->sp_pos += VM_SP_ESC;
				e->sp_k++;
			}
			if (e->sp_k == 4) {
				e->sp = WSF_SP_INDEX;
				continue;
			}
			if (!wsf_in_pop_ctrl(df, op->b.base & 31u, &e->sp_val, &ctrl))
				return 0;
			e->sp_k++;
			e->sp_pos += code;
			e->sp_ctrl = ctrl;
			if (e->sp_pos >= op->d.len1) { /* a slot out of range: not computed */
				df->flags |= VM_FLAG_SPARSE;
				e->sp_pos++;
				if (ctrl)
					wsf_chan_retire(df, ch);
				return 1;
			}
			e->sp = WSF_SP_PASS;
			e->i0 = 0;
			continue; /* the pass's first element in the same step */
		}
		case WSF_SP_PASS: {
			uint32_t dw = wsf_addr(&op->d, e->i0, e->sp_pos), a, d, res, fl = 0;
			int vop = e->sp_mac || op->bmode == VM_SP_ACC ? VM_FMACS : VM_FMULS;
			wsf_mem_rd(df, wsf_addr(&op->a, e->i0, e->sp_pos), &a);
			wsf_mem_rd(df, dw, &d);
			if (!wsf_fp_fast(vop, op->rm, a, e->sp_val, d, df->flags & WSF_FLAG_NX, &res, &fl))
				res = vm_elem(vop, op->rm, a, e->sp_val, d, &fl);
			df->flags |= fl;
			wsf_mem_wr(df, dw, res);
			if (++e->i0 == len0) {
				e->sp_mac = true;
				e->sp_pos++;
				if (e->sp_ctrl)
					wsf_chan_retire(df, ch);
				else
					e->sp = WSF_SP_CODES;
			}
			return 1;
		}
		default: /* WSF_SP_ZERO: the partial of an empty share is +0 */
			wsf_mem_wr(df, wsf_addr(&op->d, e->i0, 0), 0);
			if (++e->i0 == len0)
				wsf_chan_retire(df, ch);
			return 1;
		}
	}
}

/* The sparse gather's part of a step of the head operation of the engine
 * (docs/pe-programming.md, "Sparse gathers"): an SPIDX takes one index
 * wavelet of its share into the gather table (1 when it did, 0 when it
 * waits), then a step per slot the wavelet named, and after the share's
 * last wavelet one more before it retires, as the RTL's decoder; a
 * gathered operation at its start takes the gather count as its LEN0 and
 * spends two steps starting its stream (1), then goes on with its
 * elements (2); an operation with no element retires in one step. A
 * refused operation sets VFLAGS bit 8 and retires in one step, nothing
 * popped. */
static int wsf_gather_elem(struct wse_fast_df *df, struct wsf_chan *ch)
{
	struct wsf_op *o = &ch->q[ch->head];
	struct vm_op *op = &o->op;
	struct wsf_elem *e = &ch->e;
	uint32_t w;
	bool ctrl;

	if (e->gdebt) { /* a step owed to the RTL's timing */
		if (--e->gdebt == 0 && e->gend)
			wsf_chan_retire(df, ch);
		return 1;
	}
	if (o->op.gather) {
		if (o->gather_set)
			return 2;
		if (op->a.fab || op->op == VM_SPMACS || op->op == VM_SPIDX) {
			df->flags |= VM_FLAG_SPARSE;
			wsf_chan_retire(df, ch);
			return 1;
		}
		if (!df->gcount) {
			wsf_chan_retire(df, ch);
			return 1;
		}
		op->d.len0 = op->a.len0 = (uint16_t)df->gcount;
		o->gather_set = true;
		e->gdebt = 1; /* this step and the next start the stream */
		return 1;
	}
	if (!op->b.fab) { /* SPIDX: the share comes from the fabric */
		df->flags |= VM_FLAG_SPARSE;
		wsf_chan_retire(df, ch);
		return 1;
	}
	if (!wsf_in_pop_ctrl(df, op->b.base & 31u, &w, &ctrl))
		return 0;
	if (!e->sp_started) {
		e->sp_started = true;
		e->sp_pos = 0;
		e->gn = 0;
	}
	uint32_t lim = op->d.len0; /* a bound, not a count: 0 refuses every slot */
	for (unsigned k = 0; k < 4; k++) {
		uint32_t code = w >> (8 * k) & 0xffu;

		if (code == VM_SP_ESC) {
			e->sp_pos += VM_SP_ESC;
			continue;
		}
		e->gdebt++; /* the slot's step, stored or refused */
		e->sp_pos += code;
		if (e->sp_pos >= lim || e->gn >= VM_GATHER_MAX)
			df->flags |= VM_FLAG_SPARSE; /* consumed, not stored */
		else
			df->gtab[e->gn++] = (uint16_t)e->sp_pos;
		e->sp_pos++;
	}
	if (ctrl) {
		df->gcount = e->gn;
		e->gend = true;
		e->gdebt++; /* the closing element that makes the slots the count */
	}
	return 1;
}

/* One element of the head operation of ch. Returns 1 when it completed,
 * 0 when it waits (an operand or a credit), a negative error. The operand
 * order is the hardware's (and vec_model's): scalar, a, b, dst. */
static int wsf_elem(struct wse_fast_df *df, struct wsf_chan *ch, bool is_move)
{
	struct wsf_op *o = &ch->q[ch->head];
	const struct vm_op *op = &o->op;
	struct wsf_elem *e = &ch->e;
	int r;
	if (!is_move && (o->op.gather || op->op == VM_SPIDX) && (r = wsf_gather_elem(df, ch)) != 2)
		return r;
	if (!is_move && op->op == VM_SPMACS)
		return wsf_sp_elem(df, ch);
	if (e->pend_send) {
		if (!wsf_send(df, e->res))
			return 0;
		e->pend_send = false;
		goto advance;
	}
	bool useb = !is_move && (op->op == VM_FADDS || op->op == VM_FMULS || op->op == VM_FMACS ||
				 op->op == VM_FMAXS);
	bool addend = !is_move && op->op == VM_FMACS && op->bmode == VM_B_ADDEND;
	if (useb && op->bmode == VM_B_PERPASS && e->i0 == 0 && !e->have_s) {
		if (op->b.fab) {
			if (!wsf_in_pop(df, op->b.base & 31u, &e->s))
				return 0;
		} else if ((r = wsf_mem_rd(df, (uint32_t)((int64_t)op->b.base + (int64_t)e->i1 * op->b.st1),
					   &e->s)) < 0) {
			return r;
		}
		e->have_s = true;
	}
	if (!e->have_a) {
		if ((r = wsf_operand(df, &op->a, wsf_a_addr(df, o, e->i0, e->i1), &e->a)) != 0)
			return r > 0 ? 0 : r;
		e->have_a = true;
	}
	bool needb = (useb && op->bmode == VM_B_VEC) || addend;
	if (needb && !e->have_b) {
		if ((r = wsf_operand(df, &op->b, wsf_addr(&op->b, e->i0, e->i1), &e->b)) != 0)
			return r > 0 ? 0 : r;
		e->have_b = true;
	}
	uint32_t res;
	if (is_move) {
		res = e->a;
	} else {
		/* The element's operands: a, B, dst (the addend). */
		uint32_t s = op->bmode == VM_B_PERPASS && useb ? e->s : op->scalar;
		uint32_t m[3] = { e->a, needb ? e->b : s, 0 };
		if (addend) {
			m[1] = op->scalar;
			m[2] = e->b;
		} else if (op->op == VM_FMACS && !op->d.fab &&
			   (r = wsf_mem_rd(df, wsf_addr(&op->d, e->i0, e->i1), &m[2])) < 0) {
			return r;
		}
		uint32_t fl = 0;
		if (!wsf_fp_fast(op->op, op->rm, m[0], m[1], m[2], df->flags & WSF_FLAG_NX, &res, &fl))
			res = vm_elem(op->op, op->rm, m[0], m[1], m[2], &fl);
		df->flags |= fl;
	}
	e->have_a = e->have_b = false;
	if (op->d.fab) {
		e->res = WSE_FAST_WAVELET(0, op->d.base, res);
		if (!wsf_send(df, e->res)) {
			e->pend_send = true;
			return 1; /* computed; the element ends when it is sent */
		}
	} else if ((r = wsf_mem_wr(df, wsf_addr(&op->d, e->i0, e->i1), res)) < 0) {
		return r;
	}
advance:
	/* a length of 0 is 65536, as the RTL's 16-bit element counters run */
	if (++e->i0 == (op->d.len0 ? op->d.len0 : 65536u)) {
		e->i0 = 0;
		e->have_s = false;
		if (++e->i1 == (op->d.len1 ? op->d.len1 : 65536u)) {
			wsf_chan_retire(df, ch);
			return 1;
		}
	}
	return 1;
}

/*
 * The bulk path of the vector engine: the elements of the head operation
 * from where it stands, in one loop, for FADDS, FMULS and FMACS with B a
 * vector, the scalar or a per-pass scalar and the destination in memory.
 * It stops at an operand not yet in its queue, at max, or when the
 * operation retires. The elements, their operand order (per-pass scalar,
 * a, b, dst), their arithmetic and the retirement are wsf_elem's (the
 * same functions), so the results are the same: only the per-element
 * bookkeeping is saved. Returns the elements done.
 */
static uint64_t wsf_bulk(struct wse_fast_df *df, struct wsf_chan *ch, uint64_t max)
{
	struct wsf_op *o = &ch->q[ch->head];
	const struct vm_op *op = &o->op;
	struct wsf_elem *e = &ch->e;
	if (e->pend_send || e->have_a || e->have_b || op->d.fab || (o->op.gather && (!o->gather_set || e->gdebt)) ||
	    (op->op != VM_FADDS && op->op != VM_FMULS && op->op != VM_FMACS) ||
	    (op->bmode != VM_B_VEC && op->bmode != VM_B_SCALAR && op->bmode != VM_B_PERPASS))
		return 0;
	uint32_t len0 = op->d.len0 ? op->d.len0 : 65536u, len1 = op->d.len1 ? op->d.len1 : 65536u;
	bool vecb = op->bmode == VM_B_VEC, perpass = op->bmode == VM_B_PERPASS;
	uint64_t n = 0;
	while (n < max) {
		if (perpass && !e->have_s) {
			if (op->b.fab) {
				if (!wsf_in_pop(df, op->b.base & 31u, &e->s))
					break;
			} else {
				wsf_mem_rd(df, (uint32_t)((int64_t)op->b.base + (int64_t)e->i1 * op->b.st1),
					   &e->s);
			}
			e->have_s = true;
		}
		uint32_t a, b = perpass ? e->s : op->scalar, d = 0, res, fl = 0;
		if (op->a.fab) {
			if (!wsf_in_pop(df, op->a.base & 31u, &a))
				break;
		} else {
			wsf_mem_rd(df, wsf_a_addr(df, o, e->i0, e->i1), &a);
		}
		if (vecb) {
			if (op->b.fab) {
				if (!wsf_in_pop(df, op->b.base & 31u, &b)) {
					e->a = a; /* gathered: wsf_elem goes on from here */
					e->have_a = true;
					break;
				}
			} else {
				wsf_mem_rd(df, wsf_addr(&op->b, e->i0, e->i1), &b);
			}
		}
		uint32_t dw = wsf_addr(&op->d, e->i0, e->i1);
		if (op->op == VM_FMACS)
			wsf_mem_rd(df, dw, &d);
		if (!wsf_fp_fast(op->op, op->rm, a, b, d, df->flags & WSF_FLAG_NX, &res, &fl))
			res = vm_elem(op->op, op->rm, a, b, d, &fl);
		df->flags |= fl;
		wsf_mem_wr(df, dw, res);
		n++;
		if (++e->i0 == len0) {
			e->i0 = 0;
			e->have_s = false;
			if (++e->i1 == len1) {
				wsf_chan_retire(df, ch);
				break;
			}
		}
	}
	return n;
}

static int wsf_chan_run(struct wse_fast_df *df, struct wsf_chan *ch, bool is_move, uint64_t max,
			uint64_t *n)
{
	while (ch->count && *n < max) {
		if (!is_move) {
			*n += wsf_bulk(df, ch, max - *n);
			if (*n >= max || !ch->count)
				break;
		}
		bool was_pending = ch->e.pend_send;
		int r = wsf_elem(df, ch, is_move);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		if (!was_pending)
			(*n)++;
	}
	return 0;
}

int wse_fast_df_run_engines(struct wse_fast_df *df, uint64_t max, uint64_t *elements)
{
	if (!df)
		return WSE_ERROR_INVALID_PARAM;
	uint64_t nv = 0, nm = 0;
	int r = wsf_chan_run(df, &df->vec, false, max, &nv);
	if (r == 0)
		r = wsf_chan_run(df, &df->mov, true, max, &nm);
	if (elements)
		*elements = nv + nm;
	return r;
}

/* The descriptor snapshot of an issue (word_of of wse_df_vec). */
static struct vm_dsd wsf_snap(const struct wse_fast_df *df, unsigned d)
{
	const struct wsf_dsd_reg *r = &df->dsd[d];
	struct vm_dsd s = {
		.base = r->fab ? (r->base & 31u) : (r->base >> 2) & (df->dmem_words - 1),
		.len0 = r->len0, .len1 = r->len1,
		.st0 = (int16_t)r->st0, .st1 = (int16_t)r->st1, .fab = r->fab
	};
	return s;
}

static void wsf_advance(struct wse_fast_df *df, unsigned mask)
{
	for (unsigned d = 0; d < 8; d++)
		if (mask >> d & 1u)
			df->dsd[d].base += (uint32_t)(int32_t)(int16_t)df->dsd[d].adv * 4u;
}

/* Issue an operation (VOP) or a move (MOV). Returns true when the issue
 * completes (queued, or a rejected move). */
static bool wsf_issue(struct wse_fast_df *df, uint32_t w, bool is_move)
{
	unsigned d = w >> 4 & 7u, a = w >> 7 & 7u, b = w >> 10 & 7u;
	struct wsf_chan *ch = is_move ? &df->mov : &df->vec;
	if (is_move && (df->dsd[d].fab || !df->dsd[a].fab || !df->dsd[d].len0 || !df->dsd[d].len1)) {
		df->mov_err = true;
		return true;
	}
	if (ch->count >= ch->depth)
		return false;
	struct wsf_op *o = &ch->q[(ch->head + ch->count) % ch->depth];
	memset(o, 0, sizeof *o);
	o->op.op = is_move ? VM_FMOVS : (int)(w & 15u);
	o->op.bmode = is_move ? VM_B_VEC : (int)(w >> 13 & 3u);
	o->op.rm = (int)(w >> 22 & 7u);
	o->op.scalar = df->scalar;
	o->op.d = wsf_snap(df, d);
	o->op.a = wsf_snap(df, a);
	if (!is_move)
		o->op.b = wsf_snap(df, b);
	o->op.a.len0 = o->op.d.len0;
	o->op.a.len1 = o->op.d.len1;
	o->ten = (w >> 15 & 1u) != 0;
	o->tid = (uint8_t)(w >> 16 & 63u);
	o->op.gather = !is_move && (w & WSF_VOP_GATHER) != 0;
	ch->count++;
	unsigned mask = 1u << d | 1u << a;
	if (!is_move && wsf_uses_b(o->op.op, o->op.bmode))
		mask |= 1u << b;
	wsf_advance(df, mask);
	return true;
}

/* ---- The register window --------------------------------------------------------- */

static uint32_t wsf_dsd_read(const struct wse_fast_df *df, unsigned reg)
{
	const struct wsf_dsd_reg *r = &df->dsd[reg >> 3 & 7u];
	switch (reg & 7u) {
	case 0: return r->base;
	case 1: return r->len0;
	case 2: return (uint32_t)(int32_t)(int16_t)r->st0;
	case 3: return r->len1;
	case 4: return (uint32_t)(int32_t)(int16_t)r->st1;
	case 5: return r->fab;
	case 6: return (uint32_t)(int32_t)(int16_t)r->adv;
	default: return 0;
	}
}

static void wsf_dsd_write(struct wse_fast_df *df, unsigned reg, uint32_t v)
{
	struct wsf_dsd_reg *r = &df->dsd[reg >> 3 & 7u];
	switch (reg & 7u) {
	case 0: r->base = v; break;
	case 1: r->len0 = (uint16_t)v; break;
	case 2: r->st0 = (uint16_t)v; break;
	case 3: r->len1 = (uint16_t)v; break;
	case 4: r->st1 = (uint16_t)v; break;
	case 5: r->fab = v & 1u; break;
	case 6: r->adv = (uint16_t)v; break;
	default: break;
	}
}

static uint32_t wsf_chan_status(const struct wsf_chan *ch)
{
	return (ch->count ? 0x80000000u : 0u) | (ch->count & 15u) << 4 | (ch->e.pend_send ? 1u : 0u);
}

/* df.rd of register a: true and *v when it completes. */
static bool wsf_read(struct wse_fast_df *df, unsigned a, uint32_t *v)
{
	*v = 0;
	if (a < 0x20)
		return wsf_in_pop(df, a, v);
	if (a < 0x40) {
		unsigned c = a & 31u;
		*v = (df->in_count[c] && WSE_FAST_WAVELET_CTRL(wsf_in_head(df, c)) ? 0x80000000u : 0u) |
		     df->in_count[c];
		return true;
	}
	if (a < 0x60) {
		*v = (df->bind_en >> (a & 31u) & 1u) << 31 | (df->bind_cdata >> (a & 31u) & 1u) << 30 |
		     df->bind_task[a & 31u];
		return true;
	}
	if (a >= 0x80 && a < 0xc0) {
		*v = wsf_dsd_read(df, a - 0x80);
		return true;
	}
	switch (a) {
	case WSF_REG_NEXT: *v = wsf_next(df, true); break;
	case WSF_REG_BLOCK: *v = (uint32_t)df->blk; break;
	case WSF_REG_UNBLOCK: *v = (uint32_t)(df->blk >> 32); break;
	case WSF_REG_ACTIVE: *v = (uint32_t)df->act; break;
	case WSF_REG_ACTIVEH: *v = (uint32_t)(df->act >> 32); break;
	case WSF_REG_VOP: *v = wsf_chan_status(&df->vec); break;
	case WSF_REG_VFLAGS: *v = df->flags; break;
	case WSF_REG_VWAIT:
		*v = df->flags;
		return df->vec.count == 0;
	case WSF_REG_VDONE: *v = df->vec.done; break;
	case WSF_REG_MOV: *v = wsf_chan_status(&df->mov) | (df->mov_err ? 0x40000000u : 0u); break;
	case WSF_REG_MDONE: *v = df->mov.done; break;
	case WSF_REG_MWAIT:
		*v = df->mov.done;
		return df->mov.count == 0;
	default: break;
	}
	return true;
}

/* df.wr of v to register a: true when it completes. */
static bool wsf_write(struct wse_fast_df *df, unsigned a, uint32_t v)
{
	if (a < 0x40)
		return wsf_send(df, WSE_FAST_WAVELET(a >= 0x20, a & 31u, v));
	if (a < 0x60) {
		unsigned c = a & 31u;
		df->bind_en = (df->bind_en & ~(1u << c)) | (v >> 31) << c;
		df->bind_cdata = (df->bind_cdata & ~(1u << c)) | (v >> 30 & 1u) << c;
		df->bind_task[c] = v & 63u;
		wsf_in_settle(df, c); /* control wavelets at the head, if no longer data */
		return true;
	}
	if (a >= 0x80 && a < 0xc0) {
		wsf_dsd_write(df, a - 0x80, v);
		return true;
	}
	uint64_t t = 1ull << (v & 63u);
	switch (a) {
	case WSF_REG_NEXT: df->act |= t; break;
	case WSF_REG_BLOCK: df->blk |= t; break;
	case WSF_REG_UNBLOCK: df->blk &= ~t; break;
	case WSF_REG_ACTIVE: df->act &= ~t; break;
	case WSF_REG_VOP: return wsf_issue(df, v, false);
	case WSF_REG_VSCALAR: df->scalar = v; break;
	case WSF_REG_VFLAGS: df->flags = 0; break;
	case WSF_REG_MOV: return wsf_issue(df, v, true);
	case WSF_REG_MDONE: df->mov_err = false; break;
	default: break;
	}
	return true;
}

int wse_fast_df_run_core(struct wse_fast_df *df, uint64_t max_cycles, uint64_t *cycles)
{
	if (!df)
		return WSE_ERROR_INVALID_PARAM;
	uint64_t spent = 0;
	int stop = WSE_FAST_DF_BUDGET;
	while (spent < max_cycles) {
		struct wse_fast_run run;
		int r = wse_fast_tile_run(df->tile, max_cycles - spent, UINT64_MAX, &run);
		if (r < 0)
			return r;
		spent += run.cycles;
		if (r == WSE_FAST_STOP_EXIT) {
			stop = WSE_FAST_DF_EXIT;
			break;
		}
		if (r == WSE_FAST_STOP_HALTED) {
			stop = WSE_FAST_DF_HALTED;
			break;
		}
		if (r != WSE_FAST_STOP_UNMODELLED)
			continue;
		uint32_t in, rs1, rs2, v = 0;
		if ((r = wse_fast_tile_df_pending(df->tile, &in, &rs1, &rs2)) < 0)
			return r;
		bool is_rd = (in >> 12 & 7u) == 1u;
		uint32_t imm = is_rd ? in >> 20 : ((in >> 25) << 5 | (in >> 7 & 31u));
		unsigned a = (rs1 + imm) & 0xfffu;
		bool ok = is_rd ? wsf_read(df, a, &v) : wsf_write(df, a, rs2);
		if (!ok) {
			stop = WSE_FAST_DF_BLOCKED;
			break;
		}
		if ((r = wse_fast_tile_df_complete(df->tile, v, 1)) < 0)
			return r;
		spent++;
	}
	if (cycles)
		*cycles = spent;
	return stop;
}

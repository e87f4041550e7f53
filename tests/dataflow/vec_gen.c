/* vec_gen: random vector-engine programs with their expected results.
 * Writes a C header for the firmware test (tests/dataflow/fw/vec_ops.c):
 * initial contents of a work region (values from the FPU case generator:
 * subnormals, infinities, NaNs, ties...), a list of operations (random op,
 * rounding mode, shapes, strides, bank alignments, scalar sources, fabric
 * operands and results looped back by the harness), and the region and the
 * sticky flags the C model of the engine computes.
 *   vec_gen SEED NOPS > vec_cases.h
 * With "move COLOR", a move (move channel, FMOVS fabric -> memory) of the
 * harness feed on COLOR into the top quarter of the region comes first and
 * the operations are FMACS that keep off its destination (the ordering
 * contract): the firmware issues the move, runs the operations while the
 * feed trickles in, and checks the move's end only after them.
 *   vec_gen SEED NOPS move COLOR > vec_cases.h
 * With "sparse COLOR", the operations are SPMACS, each with one sparse
 * share (docs/training-dataflow.md section 13) that the firmware sends on
 * COLOR, looped back by the harness (tests/dataflow/fw/sparse.c): random
 * masks from empty to fully kept, gaps with escapes, both chains (from
 * the first product, and accumulating into dst), and shares the PE
 * refuses (a slot out of range, a control wavelet where an index wavelet
 * is due, b not on the fabric).
 *   vec_gen SEED NOPS sparse COLOR > sparse_cases.h
 * With "gather COLOR", SPIDX operations, each with an index-only share the
 * firmware sends on COLOR (tests/dataflow/fw/gather.c), followed by
 * gathered operations (WSE_VOP_GATHER: random op, B mode, strides, fabric
 * b and results on other colors, looped back) over its table: masks from
 * empty to fully kept, escapes, slots near and beyond the bound, more
 * slots than the table holds, n = 0; and the cases the PE refuses (b of
 * SPIDX in memory, the gather flag on SPMACS or SPIDX, a gathered
 * operation with a on the fabric).
 *   vec_gen SEED NOPS gather COLOR > gather_cases.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fpu_model.h"
#include "vec_model.h"

#define WORDS 256u
#define MOVE_BASE 192u
#define MOVE_LEN0 16u
#define MOVE_LEN1 4u

/* Wavelet k of the harness feed (tests/dataflow/tb_df.cpp, feed_value). */
static uint32_t feed_value(uint32_t k)
{
	float f = (float)((int)((k * 7u + 3u) % 23u) - 11) * 0.125f;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t st;
static uint32_t rnd(uint32_t n) { return (uint32_t)(fpu_rand64(&st) % n); }

/* Picks a memory descriptor of shape len0 x len1 that stays inside the region. */
static void pick_mem(struct vm_dsd *d, uint32_t len0, uint32_t len1)
{
	static const int st0s[] = { 1, 1, 1, 1, 2, -1, 0, 3 };
	for (;;) {
		d->fab = 0;
		d->len0 = len0;
		d->len1 = len1;
		d->st0 = st0s[rnd(8)];
		d->st1 = (int32_t)rnd(24) - 4;
		d->base = rnd(WORDS);
		int64_t lo = d->base, hi = d->base;
		for (uint32_t i1 = 0; i1 < len1; i1++)
			for (uint32_t i0 = 0; i0 < len0; i0 += (len0 - 1 ? len0 - 1 : 1)) {
				int64_t x = (int64_t)d->base + (int64_t)i1 * d->st1 + (int64_t)i0 * d->st0;
				if (x < lo) lo = x;
				if (x > hi) hi = x;
			}
		if (lo >= 0 && hi < (int64_t)WORDS)
			return;
	}
}

/* The wavelets of a share: appended to sw[]/sc[] at *n (and to the
 * model's queue of color c). */
static uint32_t sw[16384];
static uint8_t sc[16384];
static uint32_t nsw;

static void put(struct vm_fabric *fab, unsigned c, uint32_t w, int ctrl)
{
	sw[nsw] = w;
	sc[nsw++] = (uint8_t)ctrl;
	fab->ctrl[c][fab->tail[c] % 1024u] = (uint8_t)ctrl;
	fab->q[c][fab->tail[c]++ % 1024u] = w;
}

/* Encodes the kept slots slot[0..nk-1] (ascending) with values val[] as a
 * share: gap codes four to an index wavelet (escapes for gaps of 255 and
 * more, the last index wavelet padded with escapes), each followed by its
 * values, the last value with the control bit; nk = 0: one control
 * wavelet. bad_end: the last value without the control bit, then a
 * control wavelet where an index wavelet is due. */
static void encode(struct vm_fabric *fab, unsigned c, const uint32_t *slot,
		   const uint32_t *val, uint32_t nk, int bad_end)
{
	uint32_t codes[4096], nc = 0, vi[4096], prev = 0;
	if (nk == 0) {
		put(fab, c, rnd(2) ? 0 : rnd(0xffffffffu), 1);
		return;
	}
	for (uint32_t k = 0; k < nk; k++) {
		uint32_t g = slot[k] - prev;
		for (; g >= 255; g -= 255) {
			vi[nc] = ~0u;
			codes[nc++] = 255;
		}
		vi[nc] = k;
		codes[nc++] = g;
		prev = slot[k] + 1;
	}
	while (nc % 4) {
		vi[nc] = ~0u;
		codes[nc++] = 255;
	}
	for (uint32_t i = 0; i < nc; i += 4) {
		put(fab, c, codes[i] | codes[i + 1] << 8 | codes[i + 2] << 16 | codes[i + 3] << 24, 0);
		for (uint32_t j = i; j < i + 4; j++)
			if (vi[j] != ~0u)
				put(fab, c, val[vi[j]], vi[j] == nk - 1 && !bad_end);
	}
	if (bad_end)
		put(fab, c, rnd(64), 1);
}

/* Encodes the slots slot[0..nk-1] (ascending) as an index-only share:
 * gap codes four to an index wavelet, escapes for gaps of 255 and more,
 * the last wavelet padded with escapes and with the control bit; nk = 0:
 * one control wavelet of four escapes. */
static void encode_idx(struct vm_fabric *fab, unsigned c, const uint32_t *slot, uint32_t nk)
{
	static uint32_t codes[16384];
	uint32_t nc = 0, prev = 0;
	for (uint32_t k = 0; k < nk; k++) {
		uint32_t g = slot[k] - prev;
		for (; g >= 255; g -= 255)
			codes[nc++] = 255;
		codes[nc++] = g;
		prev = slot[k] + 1;
	}
	uint32_t nc0 = nc;
	if (nc == 0 || rnd(8) == 0) /* a wavelet of escapes alone at the end */
		nc = (nc + 3) / 4 * 4 + 4;
	for (uint32_t i = nc0; i < nc; i++)
		codes[i] = 255;
	while (nc % 4)
		codes[nc++] = 255;
	for (uint32_t i = 0; i < nc; i += 4)
		put(fab, c, codes[i] | codes[i + 1] << 8 | codes[i + 2] << 16 | codes[i + 3] << 24,
		    i + 4 == nc);
}

/* Does op take a B operand (vector, scalar or per pass)? */
static int uses_b(const struct vm_op *op)
{
	return op->op == VM_FADDS || op->op == VM_FMULS || op->op == VM_FMACS || op->op == VM_FMAXS;
}

/* Puts one operand of op on color c if the queues allow: kind 0 the
 * results (sent, looped back; pending[c] + elems < 900), 1 a, 2 b (B
 * vector or addend), 3 b's per-pass scalars (popped: pending[c] enough);
 * any other kind, or a kind the operation does not take, none. */
static void fabric_operand(struct vm_op *op, unsigned kind, unsigned c, uint32_t elems,
			   uint32_t len1, const unsigned *pending)
{
	int useb = uses_b(op), addend = op->op == VM_FMACS && op->bmode == VM_B_ADDEND;
	struct vm_dsd *d = NULL;
	if (kind == 0 && (op->op != VM_FMACS || addend) && pending[c] + elems < 900)
		d = &op->d;
	else if (kind == 1 && pending[c] >= elems)
		d = &op->a;
	else if (kind == 2 && ((useb && op->bmode == VM_B_VEC) || addend) && pending[c] >= elems)
		d = &op->b;
	else if (kind == 3 && useb && op->bmode == VM_B_PERPASS && pending[c] >= len1)
		d = &op->b;
	if (d) {
		d->fab = 1;
		d->base = c;
	}
}

static void print_shares(void);
static void print_dsds(const struct vm_op *op)
{
	const struct vm_dsd *ds[3] = { &op->d, &op->a, &op->b };
	for (int k = 0; k < 3; k++)
		printf(" { %u, %u, %d, %u, %d, %d },", ds[k]->base, ds[k]->len0, ds[k]->st0,
		       ds[k]->len1, ds[k]->st1, ds[k]->fab);
}

/* The operation word of op (dst 0, a 1, b 2). */
static uint32_t opword(const struct vm_op *op)
{
	return (uint32_t)op->op | 0u << 4 | 1u << 7 | 2u << 10 | (uint32_t)op->bmode << 13 |
	       (uint32_t)op->rm << 22 | (op->gather ? 1u << 25 : 0u);
}

/* The sparse mode: SPMACS operations and their shares. */
static int gen_sparse(int nops, unsigned c, const uint32_t *init, uint32_t *mem,
		      struct vm_fabric *fab, uint32_t *flags)
{
	printf("/* dsd: base (word index or color), len0, stride0, len1, stride1, fabric;\n"
	       " * the op's share: first wavelet and count in vg_sw */\n");
	printf("static const struct vg_op { uint32_t opword; int32_t dsd[3][6]; uint32_t w0, nw; }"
	       " vg_ops[] = {\n");
	for (int n = 0; n < nops; n++) {
		struct vm_op op;
		memset(&op, 0, sizeof op);
		op.op = VM_SPMACS;
		op.rm = rnd(4) ? 0 : (int)rnd(5);
		op.bmode = rnd(3) ? 0 : VM_SP_ACC;
		uint32_t len0 = 1 + rnd(9), len1;
		unsigned kind = rnd(10);
		if (kind == 0) { /* long shares: gaps of 255 and more, escapes */
			len1 = 256 + rnd(500);
			pick_mem(&op.d, len0, 1);
			pick_mem(&op.a, len0, 1);
			op.d.len1 = op.a.len1 = len1;
			op.d.st1 = op.a.st1 = 0;
		} else {
			len1 = 1 + rnd(rnd(3) ? 12 : 40);
			pick_mem(&op.d, len0, len1);
			if (rnd(2)) /* the kernel's form: one partial over every slot */
				pick_mem(&op.d, len0, 1), op.d.len1 = len1, op.d.st1 = 0;
			pick_mem(&op.a, len0, len1);
		}
		op.b.fab = 1;
		op.b.base = c;
		op.b.len0 = op.b.len1 = 1;
		/* the mask: empty, sparse, half, dense, full */
		static const uint32_t dens[6] = { 0, 5, 10, 50, 90, 100 };
		uint32_t d = dens[rnd(6)], slot[1024], val[1024], nk = 0;
		unsigned err = rnd(12); /* 0: slot out of range, 1: early control, 2: b in memory */
		uint32_t lim = err == 0 ? len1 + 1 + rnd(300) : len1;
		for (uint32_t j = 0; j < lim && nk < 1024; j++)
			if (rnd(100) < d || (err == 0 && j == lim - 1))
				slot[nk] = j, val[nk++] = init[rnd(WORDS)];
		if (err == 1 && nk == 0)
			slot[nk] = rnd(len1), val[nk++] = init[rnd(WORDS)];
		uint32_t w0 = nsw;
		if (err == 2) {
			op.b.fab = 0;
			op.b.base = rnd(WORDS);
		} else {
			encode(fab, c, slot, val, nk, err == 1);
		}
		if (vm_run(mem, WORDS, fab, NULL, &op, flags)) {
			fprintf(stderr, "vec_gen: model popped an empty queue\n");
			return 1;
		}
		if (fab->head[c] != fab->tail[c]) {
			fprintf(stderr, "vec_gen: the model left %u wavelets of a share\n",
				fab->tail[c] - fab->head[c]);
			return 1;
		}
		printf("\t{ 0x%08xu, {", opword(&op));
		print_dsds(&op);
		printf(" }, %u, %u },\n", w0, nsw - w0);
	}
	printf("};\n#define VG_NOPS %d\n#define VG_SPARSE_COLOR %uu\n", nops, c);
	print_shares();
	return 0;
}

/* The gather mode: SPIDX operations with their index-only shares on
 * color c, each followed by gathered operations over its table. */
static int gen_gather(int nops, unsigned c, const uint32_t *init, uint32_t *mem,
		      struct vm_fabric *fab, struct vm_gather *gt, uint32_t *flags,
		      unsigned *pending)
{
	static const unsigned colors[2] = { 9, 17 };
	static const uint32_t dens[6] = { 0, 5, 10, 50, 90, 100 };
	printf("/* dsd: base (word index or color), len0, stride0, len1, stride1, fabric;\n"
	       " * an SPIDX's share: first wavelet and count in vg_sw; chk: before the\n"
	       " * operation, wait for the engine, compare VFLAGS with chkfl, clear it */\n");
	printf("static const struct vg_op { uint32_t opword, scalar; int32_t dsd[3][6];"
	       " uint32_t w0, nw, chk, chkfl; } vg_ops[] = {\n");
	int left = 0;
	uint32_t segfl = *flags, chkfl = 0;
	for (int n = 0; n < nops; n++) {
		struct vm_op op;
		memset(&op, 0, sizeof op);
		op.rm = (int)rnd(5);
		op.scalar = init[rnd(WORDS)];
		uint32_t w0 = nsw, chk = 0;
		if (left == 0 && n > 0 && rnd(2)) { /* a check of the flags so far */
			chk = 1;
			chkfl = segfl;
			segfl = 0;
		}
		if (left == 0) { /* an SPIDX, and the gathered operations over its table */
			left = 1 + (int)rnd(5);
			op.op = VM_SPIDX;
			op.bmode = (int)rnd(4); /* not used */
			unsigned shape = rnd(10);
			uint32_t bound, d = dens[rnd(6)], slot[2048], nk = 0;
			if (shape == 0) {        /* long gaps: escapes */
				bound = 256 + rnd(800);
			} else if (shape == 1) { /* more slots than the table holds */
				bound = VM_GATHER_MAX + 1 + rnd(200);
				d = 100;
			} else if (shape == 2) {
				bound = rnd(2);
			} else {
				bound = 1 + rnd(rnd(2) ? 16 : 100);
			}
			pick_mem(&op.d, 1, 1 + rnd(3));
			op.d.len0 = bound;
			pick_mem(&op.a, 1, 1);
			op.b.fab = 1;
			op.b.base = c;
			op.b.len0 = op.b.len1 = 1;
			/* slots beyond the bound, or just below it */
			uint32_t lim = rnd(6) == 0 ? bound + 1 + rnd(40) : bound;
			for (uint32_t j = 0; j < lim && nk < 2048; j++)
				if (rnd(100) < d || (j + 1 == lim && rnd(3) == 0))
					slot[nk++] = j;
			unsigned err = rnd(16); /* 0: b in memory, 1: the gather flag */
			if (err == 0) {
				pick_mem(&op.b, 1, 1);
			} else if (err == 1) {
				op.gather = 1;
			} else {
				encode_idx(fab, c, slot, nk);
			}
		} else {
			left--;
			unsigned kind = rnd(24);
			op.gather = kind != 0; /* 0: a plain operation in between */
			op.op = (int)rnd(6);
			op.bmode = (int)rnd(4);
			if (rnd(6) == 0) { /* the chain form */
				op.op = VM_FMACS;
				op.bmode = VM_B_ADDEND;
			}
			uint32_t len0 = op.gather ? gt->n : 1 + rnd(9), len1 = 1 + rnd(3);
			uint32_t span = op.gather && gt->n ? gt->slot[gt->n - 1] + 1u : len0;
			pick_mem(&op.d, len0 ? len0 : 1, len1);
			pick_mem(&op.a, span ? span : 1, len1);
			pick_mem(&op.b, len0 ? len0 : 1, len1);
			if (op.gather)
				op.d.len0 = 1 + rnd(40); /* ignored */
			if (uses_b(&op) && op.bmode == VM_B_PERPASS) {
				op.b.st0 = 0;
				if (rnd(2))
					op.b.st1 = 0;
			}
			static const unsigned fks[5] = { 0, 2, 3, 4, 4 }; /* no fabric a */
			unsigned fk = fks[rnd(5)], fc = colors[rnd(2)];
			fabric_operand(&op, fk, fc, len0 * len1, len1, pending);
			if (op.gather && rnd(14) == 0) { /* refused: a on the fabric */
				op.a.fab = 1;
				op.a.base = fc;
			} else if (op.gather && rnd(16) == 0) { /* refused: SPMACS gathered */
				op.op = VM_SPMACS;
				op.b.fab = 1;
				op.b.base = c;
			}
		}
		if (vm_run(mem, WORDS, fab, gt, &op, &segfl)) {
			fprintf(stderr, "vec_gen: model popped an empty queue\n");
			return 1;
		}
		for (unsigned k = 0; k < 32; k++)
			pending[k] = fab->tail[k] - fab->head[k];
		if (pending[c]) {
			fprintf(stderr, "vec_gen: the model left %u wavelets of a share\n", pending[c]);
			return 1;
		}
		printf("\t{ 0x%08xu, 0x%08xu, {", opword(&op), op.scalar);
		print_dsds(&op);
		printf(" }, %u, %u, %u, 0x%03xu },\n", w0, nsw - w0, chk, chk ? chkfl : 0);
	}
	*flags = segfl;
	printf("};\n#define VG_NOPS %d\n#define VG_GATHER_COLOR %uu\n", nops, c);
	print_shares();
	return 0;
}

static void print_shares(void)
{
	printf("/* the shares' wavelets: data, and bit 0 of vg_sc the control bit */\n");
	printf("static const uint32_t vg_sw[%u] = {", nsw ? nsw : 1);
	for (uint32_t i = 0; i < nsw; i++)
		printf("%s0x%08xu,", i % 8 ? " " : "\n\t", sw[i]);
	printf("%s\n};\nstatic const uint8_t vg_sc[%u] = {", nsw ? "" : " 0", nsw ? nsw : 1);
	for (uint32_t i = 0; i < nsw; i++)
		printf("%s%u,", i % 32 ? "" : "\n\t", sc[i]);
	printf("%s\n};\n", nsw ? "" : " 0");
}

int main(int argc, char **argv)
{
	int move = argc == 5 && strcmp(argv[3], "move") == 0;
	int sparse = argc == 5 && strcmp(argv[3], "sparse") == 0;
	int gather = argc == 5 && strcmp(argv[3], "gather") == 0;
	if (argc != 3 && !move && !sparse && !gather) {
		fprintf(stderr, "usage: vec_gen SEED NOPS [move COLOR | sparse COLOR | gather COLOR]\n");
		return 2;
	}
	struct vm_op mv;
	memset(&mv, 0, sizeof mv);
	mv.d.base = MOVE_BASE;
	mv.d.len0 = MOVE_LEN0;
	mv.d.st0 = 1;
	mv.d.len1 = MOVE_LEN1;
	mv.d.st1 = MOVE_LEN0;
	mv.a.fab = 1;
	mv.a.base = move ? (uint32_t)atoi(argv[4]) & 31u : 0;
	st = strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
	int nops = atoi(argv[2]);
	static uint32_t mem[WORDS], init[WORDS];
	static struct vm_fabric fab;
	static struct vm_gather gt;
	static const unsigned colors[3] = { 5, 9, 17 };
	unsigned pending[32] = { 0 };
	uint32_t flags = 0;

	for (uint32_t i = 0; i < WORDS; i += 2) {
		uint32_t a, b, c;
		fpu_gen_case(&st, FPU_MADD, &a, &b, &c);
		init[i] = a;
		init[i + 1] = (rnd(4) == 0) ? c : b;
	}
	memcpy(mem, init, sizeof mem);

	printf("/* Generated by vec_gen %s %s. Do not edit. */\n", argv[1], argv[2]);
	printf("#define VG_WORDS %uu\n", WORDS);
	printf("static const uint32_t vg_init[%u] = {", WORDS);
	for (uint32_t i = 0; i < WORDS; i++)
		printf("%s0x%08xu,", i % 8 ? " " : "\n\t", init[i]);
	printf("\n};\n");
	if (sparse && gen_sparse(nops, (unsigned)atoi(argv[4]) & 31u, init, mem, &fab, &flags))
		return 1;
	if (gather && gen_gather(nops, (unsigned)atoi(argv[4]) & 31u, init, mem, &fab, &gt, &flags,
				 pending))
		return 1;
	if (gather)
		sparse = 1; /* no operations of the other modes */
	if (!sparse)
		printf("/* dsd: base (word index or color), len0, stride0, len1, stride1, fabric */\n"
		       "static const struct vg_op { uint32_t opword, scalar; int32_t dsd[3][6]; }"
		       " vg_ops[] = {\n");
	for (int n = 0; n < nops && !sparse; n++) {
		struct vm_op op;
	again:
		memset(&op, 0, sizeof op);
		op.op = move ? VM_FMACS : (int)rnd(6);
		op.rm = (int)rnd(5);
		op.bmode = (int)rnd(4);
		if (!move && rnd(8) == 0) { /* the chain form, more often */
			op.op = VM_FMACS;
			op.bmode = VM_B_ADDEND;
		}
		op.scalar = init[rnd(WORDS)];
		uint32_t len0 = 1 + rnd(rnd(4) ? 9 : 20), len1 = 1 + rnd(3);
		int useb = uses_b(&op);
		uint32_t elems = len0 * len1;
		pick_mem(&op.d, len0, len1);
		pick_mem(&op.a, len0, len1);
		pick_mem(&op.b, len0, len1);
		if (useb && op.bmode == VM_B_PERPASS) {
			op.b.st0 = 0;
			if (rnd(2)) op.b.st1 = 0;
		}
		/* fabric: results sent (looped back), operands popped */
		unsigned kind = (op.op == VM_FMACS && op.bmode == VM_B_ADDEND) ? rnd(4) : rnd(6);
		unsigned c = colors[rnd(3)];
		fabric_operand(&op, kind, c, elems, len1, pending);
		if (move && vm_move_conflicts(&mv, &op, WORDS))
			goto again;
		if (vm_run(mem, WORDS, &fab, &gt, &op, &flags)) {
			fprintf(stderr, "vec_gen: model popped an empty queue\n");
			return 1;
		}
		for (unsigned k = 0; k < 32; k++)
			pending[k] = fab.tail[k] - fab.head[k];
		printf("\t{ 0x%08xu, 0x%08xu, {", opword(&op), op.scalar);
		print_dsds(&op);
		printf(" } },\n");
	}
	if (!sparse)
		printf("};\n#define VG_NOPS %d\n", nops);
	if (move) {
		unsigned c = mv.a.base;
		for (uint32_t k = 0; k < MOVE_LEN0 * MOVE_LEN1; k++)
			fab.q[c][fab.tail[c]++ % 1024u] = feed_value(k);
		if (vm_move(mem, WORDS, &fab, &mv)) {
			fprintf(stderr, "vec_gen: the move fails in the model\n");
			return 1;
		}
		printf("/* move: dst base (word), len0, stride0, len1, stride1; color */\n");
		printf("#define VG_MOVE_COLOR %uu\n", c);
		printf("static const int32_t vg_move_dsd[5] = { %u, %u, %d, %u, %d };\n", mv.d.base,
		       mv.d.len0, mv.d.st0, mv.d.len1, mv.d.st1);
	}
	printf("static const uint32_t vg_expect[%u] = {", WORDS);
	for (uint32_t i = 0; i < WORDS; i++)
		printf("%s0x%08xu,", i % 8 ? " " : "\n\t", mem[i]);
	printf("\n};\n#define VG_FLAGS 0x%03xu\n", flags);
	printf("static const uint32_t vg_left[32] = {");
	for (unsigned k = 0; k < 32; k++)
		printf("%s%u", k ? ", " : " ", pending[k]);
	printf(" };\n");
	return 0;
}

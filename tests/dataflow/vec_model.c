/* C model of the vector engine; see vec_model.h. */
#include "vec_model.h"
#include <stddef.h>
#include "fpu_model.h"

static int pop_ctrl(struct vm_fabric *f, unsigned c, uint32_t *v, int *ctrl)
{
	if (f->head[c] == f->tail[c])
		return -1;
	*ctrl = f->ctrl[c][f->head[c] % 1024u];
	*v = f->q[c][f->head[c]++ % 1024u];
	return 0;
}

static int pop(struct vm_fabric *f, unsigned c, uint32_t *v)
{
	int ctrl;
	return pop_ctrl(f, c, v, &ctrl);
}

static uint32_t addr(const struct vm_dsd *d, uint32_t i0, uint32_t i1, uint32_t words)
{
	return (uint32_t)((int64_t)d->base + (int64_t)i1 * d->st1 + (int64_t)i0 * d->st0) % words;
}

uint32_t vm_elem(int op, int rm, uint32_t a, uint32_t b, uint32_t d, uint32_t *flags)
{
	switch (op) {
	case VM_FADDS: return fpu_model(FPU_ADD, rm, a, b, 0, flags);
	case VM_FMULS: return fpu_model(FPU_MUL, rm, a, b, 0, flags);
	case VM_FMACS: return fpu_model(FPU_MADD, rm, a, b, d, flags);
	case VM_FMAXS: return fpu_model(FPU_MAX, rm, a, b, 0, flags);
	case VM_RELU:  return fpu_model(FPU_MAX, rm, a, 0, 0, flags);
	default:       *flags = 0; return a;
	}
}

/* VM_SPMACS: one sparse share from b's color (see vec_model.h). */
static int sp_run(uint32_t *mem, uint32_t words, struct vm_fabric *fab,
		  const struct vm_op *op, uint32_t *flags)
{
	if (!op->b.fab || op->a.fab || op->d.fab) {
		*flags |= VM_FLAG_SPARSE;
		return 0;
	}
	unsigned c = op->b.base & 31u;
	uint32_t n = op->d.len1, pos = 0, w, v;
	int ctrl, first = op->bmode != VM_SP_ACC;
	for (int start = 1;; start = 0) {
		if (pop_ctrl(fab, c, &w, &ctrl))
			return -1;
		if (ctrl) {
			if (start && op->bmode != VM_SP_ACC) /* an empty share: the partial is +0 */
				for (uint32_t i0 = 0; i0 < op->d.len0; i0++)
					mem[addr(&op->d, i0, 0, words)] = 0;
			else if (!start) /* a control wavelet where an index wavelet is due */
				*flags |= VM_FLAG_SPARSE;
			return 0;
		}
		for (unsigned k = 0; k < 4; k++) {
			uint32_t code = w >> (8 * k) & 0xffu;
			pos += code;
			if (code == VM_SP_ESC)
				continue;
			if (pop_ctrl(fab, c, &v, &ctrl))
				return -1;
			if (pos >= n) {
				*flags |= VM_FLAG_SPARSE;
			} else {
				for (uint32_t i0 = 0; i0 < op->d.len0; i0++) {
					uint32_t da = addr(&op->d, i0, pos, words), fl = 0;
					uint32_t a = mem[addr(&op->a, i0, pos, words)];
					mem[da] = vm_elem(first ? VM_FMULS : VM_FMACS, op->rm, a, v, mem[da],
							  &fl);
					*flags |= fl;
				}
				first = 0;
			}
			pos++;
			if (ctrl)
				return 0;
		}
	}
}

/* VM_SPIDX: one index-only share from b's color into the gather table. */
static int idx_run(struct vm_fabric *fab, struct vm_gather *gt, const struct vm_op *op,
		   uint32_t *flags)
{
	if (!op->b.fab) {
		*flags |= VM_FLAG_SPARSE;
		return 0;
	}
	unsigned c = op->b.base & 31u;
	uint32_t pos = 0, n = 0, w;
	int ctrl;
	do {
		if (pop_ctrl(fab, c, &w, &ctrl))
			return -1;
		for (unsigned k = 0; k < 4; k++) {
			uint32_t code = w >> (8 * k) & 0xffu;
			pos += code;
			if (code == VM_SP_ESC)
				continue;
			if (pos >= op->d.len0 || n >= VM_GATHER_MAX)
				*flags |= VM_FLAG_SPARSE;
			else
				gt->slot[n++] = (uint16_t)pos;
			pos++;
		}
	} while (!ctrl);
	gt->n = n;
	return 0;
}

int vm_run(uint32_t *mem, uint32_t words, struct vm_fabric *fab, struct vm_gather *gt,
	   const struct vm_op *op, uint32_t *flags)
{
	if (op->gather && (op->op == VM_SPMACS || op->op == VM_SPIDX || op->a.fab)) {
		*flags |= VM_FLAG_SPARSE; /* refused: nothing done */
		return 0;
	}
	if (op->op == VM_SPMACS)
		return sp_run(mem, words, fab, op, flags);
	if (op->op == VM_SPIDX)
		return idx_run(fab, gt, op, flags);
	int useb = op->op == VM_FADDS || op->op == VM_FMULS || op->op == VM_FMACS ||
		   op->op == VM_FMAXS;
	int addend = op->op == VM_FMACS && op->bmode == VM_B_ADDEND;
	uint32_t s = op->scalar, len0 = op->gather ? gt->n : op->d.len0;
	for (uint32_t i1 = 0; i1 < op->d.len1; i1++) {
		for (uint32_t i0 = 0; i0 < len0; i0++) {
			uint32_t a, b = 0, dv = 0, r, fl = 0;
			/* operand order of the hardware: scalar, a, b, dst */
			if (useb && op->bmode == VM_B_PERPASS && i0 == 0) {
				if (op->b.fab) {
					if (pop(fab, op->b.base, &s))
						return -1;
				} else {
					s = mem[(uint32_t)((int64_t)op->b.base + (int64_t)i1 * op->b.st1) % words];
				}
			}
			if (op->a.fab) {
				if (pop(fab, op->a.base, &a))
					return -1;
			} else {
				a = mem[addr(&op->a, op->gather ? gt->slot[i0] : i0, i1, words)];
			}
			if ((useb && op->bmode == VM_B_VEC) || addend) {
				if (op->b.fab) {
					if (pop(fab, op->b.base, &b))
						return -1;
				} else {
					b = mem[addr(&op->b, i0, i1, words)];
				}
			} else {
				b = s;
			}
			if (addend) {
				dv = b; /* the addend */
				b = s;
			} else if (op->op == VM_FMACS && !op->d.fab) {
				dv = mem[addr(&op->d, i0, i1, words)];
			}
			r = vm_elem(op->op, op->rm, a, b, dv, &fl);
			*flags |= fl;
			if (op->d.fab) {
				unsigned c = op->d.base & 31u;
				fab->ctrl[c][fab->tail[c] % 1024u] = 0;
				fab->q[c][fab->tail[c]++ % 1024u] = r;
			} else {
				mem[addr(&op->d, i0, i1, words)] = r;
			}
		}
	}
	return 0;
}

int vm_move(uint32_t *mem, uint32_t words, struct vm_fabric *fab, const struct vm_op *mv)
{
	if (mv->d.fab || !mv->a.fab || mv->d.len0 == 0 || mv->d.len1 == 0)
		return -2;
	struct vm_op op = *mv;
	uint32_t flags = 0;
	op.op = VM_FMOVS;
	op.gather = 0;
	return vm_run(mem, words, fab, NULL, &op, &flags);
}

/* Does memory descriptor o (shape len0 x len1) touch a word of w? */
static int touches(const struct vm_dsd *o, uint32_t len0, uint32_t len1,
		   const uint8_t *w, uint32_t words)
{
	if (o->fab)
		return 0;
	for (uint32_t i1 = 0; i1 < len1; i1++)
		for (uint32_t i0 = 0; i0 < len0; i0++)
			if (w[addr(o, i0, i1, words)])
				return 1;
	return 0;
}

int vm_move_conflicts(const struct vm_op *mv, const struct vm_op *op, uint32_t words)
{
	static uint8_t w[65536];
	if (words > sizeof w || op->gather)
		return 1;
	if (op->op == VM_SPIDX)
		return 0;
	for (uint32_t i = 0; i < words; i++)
		w[i] = 0;
	for (uint32_t i1 = 0; i1 < mv->d.len1; i1++)
		for (uint32_t i0 = 0; i0 < mv->d.len0; i0++)
			w[addr(&mv->d, i0, i1, words)] = 1;
	int useb = op->op == VM_FADDS || op->op == VM_FMULS || op->op == VM_FMACS ||
		   op->op == VM_FMAXS;
	uint32_t l0 = op->d.len0, l1 = op->d.len1;
	if (touches(&op->d, l0, l1, w, words) || touches(&op->a, l0, l1, w, words))
		return 1;
	if (((useb && op->bmode == VM_B_VEC) ||
	     (op->op == VM_FMACS && op->bmode == VM_B_ADDEND)) &&
	    touches(&op->b, l0, l1, w, words))
		return 1;
	if (useb && op->bmode == VM_B_PERPASS && touches(&op->b, 1, l1, w, words))
		return 1;
	return 0;
}

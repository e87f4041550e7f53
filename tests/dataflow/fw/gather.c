/* The vector engine's sparse gathers on random programs
 * (tests/dataflow/vec_gen.c, gather mode): SPIDX operations, each with an
 * index-only share the core sends on VG_GATHER_COLOR (looped back by the
 * harness, control wavelets as data), followed by gathered operations
 * (WSE_VOP_GATHER) over its table, fabric results looped back on other
 * colors and popped by later operations. The operations are queued back to
 * back (an operation after an SPIDX must see that SPIDX's table); at the
 * generator's checkpoints the core waits for the engine and compares the
 * sticky flags so far (WSE_VFLAG_SPARSE for the refused cases among them).
 * The region must equal the C model's word for word, the last flags too,
 * and no wavelet of a share may be left in the queue. */
#include "vg_common.h"
#include "gather_cases.h"

static uint32_t vmem[VG_WORDS] __attribute__((aligned(16)));

int main(void)
{
	if (vg_start(vmem, vg_init, VG_WORDS, VG_GATHER_COLOR))
		return 5000;
	for (int n = 0; n < VG_NOPS; n++) {
		const struct vg_op *o = &vg_ops[n];
		if (o->chk) {
			uint32_t fl = wse_vwait();
			if (fl != o->chkfl) {
				wse_puts("flags 0x");
				wse_puthex(fl);
				wse_puts(" before op 0x");
				wse_puthex((uint32_t)n);
				wse_putc('\n');
				return 6000 + n;
			}
			wse_vflags_clear();
		}
		for (int k = 0; k < 3; k++)
			vg_set_dsd(k, o->dsd[k], vmem);
		wse_vscalar(o->scalar);
		wse_vop(o->opword);
		vg_send_share(VG_GATHER_COLOR, vg_sw, vg_sc, o->w0, o->nw);
	}
	uint32_t fl = wse_vwait();
	int bad = vg_check_all(vmem, vg_expect, VG_WORDS, fl, VG_FLAGS, vg_left);
	if (bad)
		return bad;
	wse_puts("gather ok\n");
	return 0;
}

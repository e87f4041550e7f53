/* SPMACS, the vector engine's sparse-stream mode, on random shares
 * (tests/dataflow/vec_gen.c, sparse mode): per operation the core sets
 * the descriptors, issues it, and sends its share on VG_SPARSE_COLOR, which
 * the harness loops back and whose control wavelets are data
 * (wse_bind_ctrl_data). The region must equal the C model's word for
 * word, the sticky flags (WSE_VFLAG_SPARSE among them, for the shares the
 * PE refuses) too, and no wavelet of a share may be left in the queue. */
#include "vg_common.h"
#include "sparse_cases.h"

static uint32_t vmem[VG_WORDS] __attribute__((aligned(16)));

int main(void)
{
	if (vg_start(vmem, vg_init, VG_WORDS, VG_SPARSE_COLOR))
		return 5000;
	for (int n = 0; n < VG_NOPS; n++) {
		const struct vg_op *o = &vg_ops[n];
		for (int k = 0; k < 3; k++)
			vg_set_dsd(k, o->dsd[k], vmem);
		wse_vop(o->opword);
		vg_send_share(VG_SPARSE_COLOR, vg_sw, vg_sc, o->w0, o->nw);
	}
	uint32_t fl = wse_vwait();
	int bad = vg_check_all(vmem, vg_expect, VG_WORDS, fl, VG_FLAGS, vg_left);
	if (bad)
		return bad;
	/* the flag is sticky until VFLAGS is written */
	wse_vflags_clear();
	if (wse_vflags() != 0)
		return 3000;
	wse_puts("sparse ok\n");
	return 0;
}

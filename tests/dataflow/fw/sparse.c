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
	for (uint32_t i = 0; i < VG_WORDS; i++)
		vmem[i] = vg_init[i];
	wse_vflags_clear();
	wse_bind_ctrl_data(VG_SPARSE_COLOR);
	if (wse_df_rd(WSE_DF_BIND + VG_SPARSE_COLOR) != WSE_BIND_CTRL_DATA)
		return 5000;
	for (int n = 0; n < VG_NOPS; n++) {
		const struct vg_op *o = &vg_ops[n];
		for (int k = 0; k < 3; k++)
			vg_set_dsd(k, o->dsd[k], vmem);
		wse_vop(o->opword);
		for (uint32_t k = o->w0; k < o->w0 + o->nw; k++) {
			if (vg_sc[k])
				wse_send_ctrl(VG_SPARSE_COLOR, vg_sw[k]);
			else
				wse_send(VG_SPARSE_COLOR, vg_sw[k]);
		}
	}
	uint32_t fl = wse_vwait();
	int bad = vg_check(vmem, vg_expect, VG_WORDS, fl, VG_FLAGS);
	if (bad)
		return bad;
	if (wse_queue_count(VG_SPARSE_COLOR) != 0)
		return 2000;
	/* the flag is sticky until VFLAGS is written */
	wse_vflags_clear();
	if (wse_vflags() != 0)
		return 3000;
	wse_puts("sparse ok\n");
	return 0;
}

/* Random vector operations (tests/dataflow/vec_gen.c) on the PE's vector
 * engine, checked word for word against the C model's results, and the
 * engine's sticky flags against the model's. Fabric results loop back
 * through the harness and are popped by later operations. */
#include "wse_rt.h"
#include "wse_df.h"
#include "vec_cases.h"

static uint32_t vmem[VG_WORDS] __attribute__((aligned(16)));

int main(void)
{
	for (uint32_t i = 0; i < VG_WORDS; i++)
		vmem[i] = vg_init[i];
	wse_vflags_clear();
	for (int n = 0; n < VG_NOPS; n++) {
		const struct vg_op *o = &vg_ops[n];
		for (int k = 0; k < 3; k++) {
			const int32_t *f = o->dsd[k];
			uint32_t base = f[5] ? (uint32_t)f[0] : (uint32_t)(uintptr_t)&vmem[f[0]];
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_BASE, base);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_LEN0, (uint32_t)f[1]);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_STRIDE0, (uint32_t)f[2]);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_LEN1, (uint32_t)f[3]);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_STRIDE1, (uint32_t)f[4]);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_TYPE, (uint32_t)f[5]);
			wse_df_wrv(WSE_DF_DSD + 8 * k + WSE_DSD_ADV, 0);
		}
		wse_vscalar(o->scalar);
		wse_vop(o->opword);
	}
	uint32_t fl = wse_vwait();
	for (uint32_t i = 0; i < VG_WORDS; i++) {
		if (vmem[i] != vg_expect[i]) {
			wse_puts("mismatch at word 0x");
			wse_puthex(i);
			wse_puts(" got 0x");
			wse_puthex(vmem[i]);
			wse_puts(" expected 0x");
			wse_puthex(vg_expect[i]);
			wse_putc('\n');
			return 1 + (int)i;
		}
	}
	if (fl != VG_FLAGS) {
		wse_puts("flags 0x");
		wse_puthex(fl);
		wse_putc('\n');
		return 1000;
	}
	for (uint32_t c = 0; c < 32; c++)
		if (wse_queue_count(c) > vg_left[c])
			return 2000 + (int)c;
	/* The engine's operand cache must not keep data the core overwrote. */
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < 8; i++)
			vmem[i] = 0x3f800000u + (uint32_t)round * 0x00100000u + i;  /* core stores */
		wse_dsd_mem(0, &vmem[16], 8, 1, 1, 0, 0);
		wse_dsd_mem(1, &vmem[0], 8, 1, 1, 0, 0);
		wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));
		wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));
		wse_vwait();
		for (uint32_t i = 0; i < 8; i++)
			if (vmem[16 + i] != vmem[i])
				return 3000 + round;
	}
	wse_puts("vec_ops ok\n");
	return 0;
}

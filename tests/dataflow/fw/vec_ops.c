/* Random vector operations (tests/dataflow/vec_gen.c) on the PE's vector
 * engine, checked word for word against the C model's results, and the
 * engine's sticky flags against the model's. Fabric results loop back
 * through the harness and are popped by later operations.
 * Built with a move-mode header (vec_gen ... move COLOR: vec_move-SEED),
 * a move of the harness feed (slow: --feed-gap) into the region is issued
 * first, on the move channel; the FMACS operations must all finish while
 * the move still waits for wavelets, and the region, move included, must
 * equal the C model's. */
#include "vg_common.h"
#include "vec_cases.h"

static uint32_t vmem[VG_WORDS] __attribute__((aligned(16)));

#ifdef VG_MOVE_COLOR
#define T_MOVE 9
static uint32_t move_task_runs;
static void task_move(uint32_t arg)
{
	(void)arg;
	move_task_runs++;
}
#endif

int main(void)
{
	if (vg_start(vmem, vg_init, VG_WORDS, VG_NO_SHARE))
		return 5000;
#ifdef VG_MOVE_COLOR
	uint32_t mdone0 = wse_mdone();
	wse_task_register(T_MOVE, task_move);
	wse_dsd_mem(6, &vmem[vg_move_dsd[0]], vg_move_dsd[1], vg_move_dsd[2], vg_move_dsd[3],
		    vg_move_dsd[4], 0);
	wse_dsd_fabric(7, VG_MOVE_COLOR, 1, 1);
	wse_vmov(WSE_VMOV(6, 7) | WSE_VOP_TASK(T_MOVE));
#endif
	for (int n = 0; n < VG_NOPS; n++) {
		const struct vg_op *o = &vg_ops[n];
		for (int k = 0; k < 3; k++)
			vg_set_dsd(k, o->dsd[k], vmem);
		wse_vscalar(o->scalar);
		wse_vop(o->opword);
	}
	uint32_t fl = wse_vwait();
#ifdef VG_MOVE_COLOR
	/* the compute is done while the move still runs */
	uint32_t ms = wse_mstatus();
	if (!(ms & WSE_MOV_BUSY) || wse_mdone() != mdone0) {
		wse_puts("move ended before the compute\n");
		return 4000;
	}
	if (wse_mwait() != mdone0 + 1 || (wse_mstatus() & (WSE_MOV_BUSY | WSE_MOV_ERR)))
		return 4001;
	wse_task_loop(1);
	if (move_task_runs != 1)
		return 4002;
#endif
	int bad = vg_check_all(vmem, vg_expect, VG_WORDS, fl, VG_FLAGS, vg_left);
	if (bad)
		return bad;
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

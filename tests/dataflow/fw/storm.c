/* A wavelet storm on one color while another color's task must still run:
 * 400 wavelets on color 3 (its task is slow) and 6 on color 4. The PE's
 * per-color queues keep color 4 moving at the RAMP, and round-robin dispatch
 * runs task 4 long before the storm is over. Meanwhile a vector operation
 * consumes a third color (FMOVS fabric -> memory) and checks its data. */
#include "wse_rt.h"
#include "wse_df.h"

#define N_STORM 400u
#define N_OTHER 6u
#define C_STORM 3
#define C_OTHER 4
#define C_VEC 16

static uint32_t storm_n, storm_sum, other_n, other_at[N_OTHER], other_sum;
static uint32_t vin[64] __attribute__((aligned(16)));
static uint32_t vout[64] __attribute__((aligned(16)));

static void check_done(void)
{
	if (storm_n == N_STORM && other_n == N_OTHER)
		wse_task_stop();
}
static void task_storm(uint32_t arg)
{
	storm_n++;
	storm_sum += arg;
	for (volatile int i = 0; i < 4; i++)
		;
	check_done();
}
static void task_other(uint32_t arg)
{
	if (other_n < N_OTHER)
		other_at[other_n] = storm_n;
	other_n++;
	other_sum += arg;
	check_done();
}

int main(void)
{
	wse_task_bind_color(C_STORM, 3, task_storm);
	wse_task_bind_color(C_OTHER, 4, task_other);
	for (uint32_t i = 0; i < 64; i++)
		vin[i] = 0x3f800000u + i * 977u;
	/* the engine receives 64 wavelets of C_VEC into vout while tasks run */
	wse_dsd_mem(0, vout, 64, 1, 1, 0, 0);
	wse_dsd_fabric(1, C_VEC, 64, 1);
	wse_vop(WSE_VOP(WSE_V_FMOVS, 0, 1, 1, WSE_B_VEC));

	for (uint32_t i = 0; i < N_STORM; i++)
		wse_send(C_STORM, i);
	for (uint32_t i = 0; i < N_OTHER; i++)
		wse_send(C_OTHER, 1000 + i);
	for (uint32_t i = 0; i < 64; i++)
		wse_send(C_VEC, vin[i]);
	wse_task_loop(0);
	if (storm_sum != N_STORM * (N_STORM - 1) / 2)
		return 1;
	if (other_sum != N_OTHER * 1000 + N_OTHER * (N_OTHER - 1) / 2)
		return 2;
	/* every color-4 task ran while the storm was still far from over */
	for (uint32_t i = 0; i < N_OTHER; i++)
		if (other_at[i] > 40)
			return 3 + (int)i;
	wse_vwait();
	for (uint32_t i = 0; i < 64; i++)
		if (vout[i] != vin[i])
			return 20;
	wse_puts("storm ok\n");
	return 0;
}

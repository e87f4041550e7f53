/* Task model on one PE (wavelets loop back through the harness):
 * data tasks run once per wavelet with its payload, in arrival order; a
 * blocked task's wavelets queue (none merged) and run after unblock; local
 * tasks run once per activation; a control wavelet activates the task its
 * payload names; a vector operation's completion activates a task; the
 * hardware picks ready tasks round-robin. */
#include "wse_rt.h"
#include "wse_df.h"

#define C_A 5
#define C_B 6
#define C_CTRL 7
#define T_A 5
#define T_B 6
#define T_LOCAL 40
#define T_CTRL 41
#define T_VEC 42

static uint32_t log_[64], nlog, expect_runs;
static float vbuf[8] __attribute__((aligned(16)));

static void record(uint32_t v)
{
	if (nlog < 64)
		log_[nlog] = v;
	nlog++;
	if (nlog == expect_runs)
		wse_task_stop();
}
static void task_a(uint32_t arg) { record(0xa000u | arg); }
static void task_b(uint32_t arg) { record(0xb000u | arg); }
static void task_local(uint32_t arg) { record(0xc000u | arg); }
static void task_ctrl(uint32_t arg) { record(0xd000u | arg); }
static void task_vec(uint32_t arg)
{
	(void)arg;
	/* the operation is complete: its results are in memory */
	record(0xe000u | (uint32_t)vbuf[7]);
}

static void wait_count(uint32_t color, uint32_t n)
{
	for (uint32_t i = 0; i < 100000; i++)
		if (wse_queue_count(color) >= n)
			return;
	wse_exit(90);
}

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" :: "r"(0x2000));
	wse_task_bind_color(C_A, T_A, task_a);
	wse_task_bind_color(C_B, T_B, task_b);
	wse_task_register(T_LOCAL, task_local);
	wse_task_register(T_CTRL, task_ctrl);
	wse_task_register(T_VEC, task_vec);

	/* 1. Nothing ready. */
	if (wse_next_task() != 0)
		return 1;

	/* 2. Blocked data task: one wavelet more than the PE's queue holds;
	 * the queue fills (the last waits in the router), none run. */
	const uint32_t qd = WSE_CFG_RAMP_COLOR_DEPTH;
	wse_block(T_A);
	if (wse_df_rd(WSE_DF_BLOCK) != (1u << T_A))
		return 2;
	for (uint32_t k = 0; k <= qd; k++)
		wse_send(C_A, 100 + k);
	wait_count(C_A, qd);
	for (int i = 0; i < 50; i++)
		if (wse_next_task() != 0)
			return 3;
	if (wse_queue_count(C_A) != qd)
		return 4;
	/* unblock: qd + 1 runs, in order, one per wavelet */
	wse_unblock(T_A);
	expect_runs = qd + 1;
	wse_task_loop(0);
	if (nlog != qd + 1)
		return 5;
	for (uint32_t k = 0; k <= qd; k++)
		if (log_[k] != 0xa000u + 100 + k)
			return 5;

	/* 3. Local task: runs once per activation; deactivate cancels. */
	nlog = 0;
	wse_activate(T_LOCAL);
	wse_activate(T_LOCAL);            /* still one activation */
	if (wse_df_rd(WSE_DF_ACTIVEH) != (1u << (T_LOCAL - 32)))
		return 6;
	if (wse_task_loop(1) != 1 || nlog != 1 || log_[0] != 0xc000u)
		return 7;
	wse_activate(T_LOCAL);
	wse_deactivate(T_LOCAL);
	if (wse_task_loop(1) != 0)
		return 8;
	/* blocked local task stays active until unblocked */
	wse_block(T_LOCAL);
	wse_activate(T_LOCAL);
	if (wse_task_loop(1) != 0)
		return 9;
	wse_unblock(T_LOCAL);
	if (wse_task_loop(1) != 1)
		return 10;

	/* 4. Control wavelet: activates the task named by its payload. */
	nlog = 0;
	expect_runs = 1;
	wse_send_ctrl(C_CTRL, T_CTRL);
	wse_task_loop(0);
	if (log_[0] != 0xd000u)
		return 11;

	/* 5. Round-robin among ready tasks: two colors and a local task. */
	nlog = 0;
	expect_runs = 7;
	wse_block(T_A);
	wse_block(T_B);
	wse_send(C_A, 1);
	wse_send(C_A, 2);
	wse_send(C_B, 1);
	wse_send(C_B, 2);
	wait_count(C_A, 2);
	wait_count(C_B, 2);
	wse_send(C_A, 3);
	wse_send(C_B, 3);
	wse_activate(T_LOCAL);
	wse_unblock(T_A);
	wse_unblock(T_B);
	wse_task_loop(0);
	/* per color in order; no color runs twice while another waits */
	uint32_t na = 0, nb = 0;
	for (uint32_t i = 0; i < 7; i++) {
		uint32_t v = log_[i];
		if ((v & 0xf000u) == 0xa000u && (v & 0xfffu) != ++na)
			return 12;
		if ((v & 0xf000u) == 0xb000u && (v & 0xfffu) != ++nb)
			return 13;
		if (i > 0 && i < 4 && (v & 0xf000u) == (log_[i - 1] & 0xf000u))
			return 14;
	}
	if (na != 3 || nb != 3)
		return 15;

	/* 6. Completion of a vector operation activates a task. */
	nlog = 0;
	expect_runs = 1;
	for (int i = 0; i < 8; i++)
		vbuf[i] = (float)i;
	wse_dsd_mem(0, vbuf, 8, 1, 1, 0, 0);
	wse_vscalar_f(3.0f);
	wse_vop(WSE_VOP(WSE_V_FMULS, 0, 0, 0, WSE_B_SCALAR) | WSE_VOP_TASK(T_VEC));
	wse_task_loop(0);
	if (log_[0] != (0xe000u | 21u))
		return 16;
	wse_puts("tasks ok\n");
	return 0;
}

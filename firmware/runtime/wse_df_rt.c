/* Task loop of the dataflow runtime: asks the task unit for the next ready
 * task (round-robin in hardware), receives a data task's wavelet and calls
 * the task with its payload; waiting for a given move's completion. See
 * docs/pe-programming.md. */
#include "wse_df.h"

static wse_task_fn wse_tasks[64];
static volatile int wse_stop;

void wse_task_register(uint32_t task, wse_task_fn fn)
{
	wse_tasks[task & 63u] = fn;
}

void wse_task_bind_color(uint32_t color, uint32_t task, wse_task_fn fn)
{
	wse_task_register(task, fn);
	wse_bind(color, task);
}

void wse_task_stop(void)
{
	wse_stop = 1;
}

uint32_t wse_task_loop(int idle_exit)
{
	uint32_t n = 0;
	wse_stop = 0;
	while (!wse_stop) {
		uint32_t t = wse_next_task();
		if (!(t & WSE_DF_NEXT_VALID)) {
			if (idle_exit)
				break;
			continue;
		}
		uint32_t arg = 0;
		if (t & WSE_DF_NEXT_DATA)
			arg = wse_recv(WSE_DF_NEXT_COLOR(t));
		wse_task_fn fn = wse_tasks[WSE_DF_NEXT_TASK(t)];
		if (fn)
			fn(arg);
		n++;
	}
	return n;
}

uint32_t wse_move_wait(uint32_t count)
{
	uint32_t d;
	while ((int32_t)((d = wse_mdone()) - count) < 0)
		;
	return d;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_stats.h - what the training handle measures of its optimizer
 * updates (docs/training.md, "The host update beside the device"), for the
 * benchmarks. Internal to the library.
 */
#ifndef WSE_TRAIN_STATS_H
#define WSE_TRAIN_STATS_H

#include <stdint.h>

#include "wsehost_train.h"

struct train_update_stats {
	uint64_t updates;   /* layer updates done */
	double busy_ms;     /* host time of the updates (gradient sums of the
			     * last round included with the overlap) */
	double exposed_ms;  /* of which the passes and calls of the handle
			     * waited for: all of it in the serial order */
	/* wse_train_step: calls that succeeded, their wall time, and of it
	 * the devices' time: per round the slowest pass, as the device's host
	 * measured it (the rank's, for a device on another MPI rank). The
	 * difference is the host's part of a step: sending the weights and
	 * examples, the reduction, the update the passes waited for. */
	uint64_t steps;
	double step_ms;
	double pass_ms;
};

/* The figures since the handle was created, every update of the steps so
 * far ended (as wse_train_get_tensor waits for them). Returns 0, or
 * INVALID_PARAM (t or st NULL), TIMEOUT (an update did not end within
 * runtime.timeout_ms). */
int train_update_stats(wse_train *t, struct train_update_stats *st);

#endif /* WSE_TRAIN_STATS_H */

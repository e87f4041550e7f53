/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_time.h - the deadline of the library's timed waits. Its condition
 * variables run on CLOCK_MONOTONIC (pthread_condattr_setclock), so their
 * deadlines are taken on it. Internal to the library; the including file
 * asks for POSIX (_POSIX_C_SOURCE or _GNU_SOURCE) before any header.
 */
#ifndef WSE_TRAIN_TIME_H
#define WSE_TRAIN_TIME_H

#include <time.h>

/* ms from now on CLOCK_MONOTONIC: the deadline of a pthread_cond_timedwait. */
static inline struct timespec tr_deadline(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Now on CLOCK_MONOTONIC, in ms: the time of a step, a pass, an update. */
static inline double tr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif /* WSE_TRAIN_TIME_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_bench.h - what the guest's benchmark programs share (bench_usb.c,
 * bench_pcie.c): a libwsehost result checked, the clocks.
 */
#ifndef WSEMU_VM_BENCH_H
#define WSEMU_VM_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "wsehost.h"

/* r itself, or, when it is an error, a line "PROG: WHAT: error" and exit 1. */
static inline int vmb_check(const char *prog, int r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, wse_strerror(r));
		exit(1);
	}
	return r;
}

/* Wall seconds (CLOCK_MONOTONIC). */
static inline double vmb_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* This process's user + system CPU seconds. */
static inline double vmb_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

#endif

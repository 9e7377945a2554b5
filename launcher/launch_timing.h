/* SPDX-License-Identifier: MIT
 * Launch phase marks, for `make bench` only (tests/bench/phases.sh). They
 * exist in build/bench/heel-exec-timing, compiled with
 * -DHEEL_LAUNCH_TIMING; every other heel-exec build turns them into
 * nothing. A mark writes one line to stderr:
 * "heel-timing MICROSECONDS PID PHASE", the time being CLOCK_MONOTONIC, so
 * marks from the launcher, the init and the command line up. */
#ifndef HEEL_LAUNCH_TIMING_H
#define HEEL_LAUNCH_TIMING_H

#ifdef HEEL_LAUNCH_TIMING
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline void
launch_mark(const char *phase)
{
	struct timespec ts;
	char line[128];
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "heel-timing %lld %d %s\n",
		     (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000, (int)getpid(), phase);
	if (n > 0 && n < (int)sizeof(line))
		(void)!write(STDERR_FILENO, line, (size_t)n);
}
#else
#define launch_mark(phase) ((void)0)
#endif

#endif

/* SPDX-License-Identifier: MIT
 * The sandboxed process tree where the system gives no subreaper and no
 * PID namespace (macOS): the set of processes that descend from the
 * command, kept up to date from snapshots of the process table (pid,
 * parent, start time), so that a process that left the command's group
 * or session (setsid) is still found and killed at the end. A pid is
 * known with its start time, so a pid the system gave to another process
 * after a tracked one exited is never taken for it. Pure logic, no
 * system calls: launcher/macos.c takes the snapshots (sysctl KERN_PROC)
 * when kqueue says a tracked process forked or exited, and every
 * PTRACK_SWEEP_MS; tests/unit/test_ptrack.c drives it on Linux. */
#ifndef HEEL_RUNTIME_PTRACK_H
#define HEEL_RUNTIME_PTRACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How often the process table is swept when no event came. */
#define PTRACK_SWEEP_MS 50

/* One row of a snapshot: start is any per-boot-unique start stamp
 * (microseconds since the epoch on macOS). */
struct ptrack_proc {
	pid_t pid, ppid;
	uint64_t start;
};

struct ptrack {
	struct ptrack_proc *p; /* tracked: ppid is the parent when first seen */
	size_t n, cap;
};

/* Tracks `root` (the command) from now on: 0 or -ENOMEM. */
int ptrack_init(struct ptrack *t, pid_t root, uint64_t root_start);
void ptrack_free(struct ptrack *t);

/* Brings the set up to date with snapshot[0..n): drops the tracked
 * processes that are gone (not in it, or their pid now another process's),
 * and adds every process whose parent is tracked, transitively. A
 * process whose parent exited before a sweep saw it is not found: sweeps
 * run on each fork event to keep that window short. Returns how many were
 * added (>= 0) or -ENOMEM. */
int ptrack_sweep(struct ptrack *t, const struct ptrack_proc *snapshot, size_t n);

/* Whether pid, started at `start`, is tracked. */
int ptrack_has(const struct ptrack *t, pid_t pid, uint64_t start);

#endif

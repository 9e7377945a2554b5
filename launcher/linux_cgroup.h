/* SPDX-License-Identifier: MIT
 * heel-exec on Linux: the sandbox's cgroup (runtime/cgroup.h), which
 * makes `limit processes`, `limit memory` and `limit cpu` hold for the
 * whole tree; the rlimits stay as a per-process second wall. Where no
 * cgroup can be made those three hold per process only, a weakening: a
 * launch refuses it unless --best-effort or --accept per-process-limits.
 * The CPU total is no cgroup limit: the launcher watches the cgroup's
 * usage while it waits and kills the tree when it is spent. */
#ifndef HEEL_LAUNCHER_LINUX_CGROUP_H
#define HEEL_LAUNCHER_LINUX_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "proctree.h"

struct linux_launch;

/* Weakenings --accept can name, one bit each (struct linux_launch's
 * accept). */
enum { LINUX_ACCEPT_PER_PROCESS_LIMITS = 1U << 0 };

/* The bit of a --accept name, or 0 for a name that is not one. */
unsigned linux_accept_bit(const char *name);

struct linux_cgroup {
	struct cg cg;                /* cg.made: there is one to remove */
	uint64_t cpu_budget_usec;    /* `limit cpu`, watched; 0: none */
	uint64_t cpu_used_usec;      /* at the kill */
	bool cpu_spent;              /* the watch killed the tree */
	pid_t child;                 /* the init, whose group is the tree's */
	long ncpu;                   /* online CPUs: how fast a budget can go */
	struct pt_watch watch;
};

/* Step 2: makes the cgroup (below `root`, "" but in tests) and sets the
 * tree-wide limits of l->limits in it; with none, a cgroup that just
 * holds the tree, where one can be had (a -v note where not). 0; or -1
 * with a one-line refusal in err (exit 125): a limit would hold per
 * process only and that was not accepted. Notes each accepted weakening
 * with l->note. Nothing is left behind on failure. */
int linux_cgroup_make(struct linux_launch *l, struct linux_cgroup *lc, const char *root,
		      char *err, size_t errlen);

/* `heel-exec check`: prints whether a cgroup can be made (it makes one
 * and removes it) and what that means for the policy's limits. 0 when a
 * launch would run, -1 with err when it would refuse. */
int linux_cgroup_check(struct linux_launch *l, char *err, size_t errlen);

/* heel-exec check without a policy: makes a cgroup with every
 * controller heel uses, moves a throw-away child into it and removes it.
 * 0 with the version and the place below which it was made (and the
 * controllers it lacks) in where; or -errno with the reason in why. */
int linux_cgroup_probe(int *version, char *where, size_t wlen, char *why, size_t whylen);

/* Parent, before the go byte: moves the init into the cgroup, so that
 * everything of the command runs in it. 0, or 125 with msg. */
int linux_cgroup_enter(struct linux_cgroup *lc, pid_t child, char *msg, size_t msglen);

/* The watch for pt_wait_child_watch(), or NULL when there is no CPU
 * total to watch (then the wait costs nothing more). */
const struct pt_watch *linux_cgroup_watch(struct linux_cgroup *lc);

/* After the wait: true, with msg, when the CPU total was spent and the
 * tree killed for it (heel-exec exits 128 + SIGXCPU). */
bool linux_cgroup_spent(const struct linux_cgroup *lc, char *msg, size_t msglen);

/* After the wait: how many processes of the tree the kernel's OOM killer
 * ended for `limit memory` (0 without a memory cgroup). */
uint64_t linux_cgroup_oom_kills(const struct linux_cgroup *lc);

/* New processes the tree was refused at `limit processes`; 0 when none
 * or unknown. */
uint64_t linux_cgroup_pids_refused(const struct linux_cgroup *lc);

/* Removes the cgroup once the tree is dead; a no-op when none was made.
 * Notes a failure. */
void linux_cgroup_remove(struct linux_launch *l, struct linux_cgroup *lc);

#endif

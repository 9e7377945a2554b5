/* SPDX-License-Identifier: MIT
 * The sandbox's cgroup: limits for the whole process tree (processes,
 * memory, CPU time), which rlimits cannot give (they count per process,
 * and the kernel exempts uid 0 from RLIMIT_NPROC). cgroup v2, or the v1
 * controllers where that is what the host mounts (cgroups(7)). The
 * cgroup is heel-<pid>-<random> in a directory `heel` of our own, so a
 * cgroup that a SIGKILLed launcher could not remove is recognisable; it
 * is empty then (the tree dies with the launcher), and rmdir removes it.
 *
 * Where: under v1, below our own cgroup in each hierarchy, so whatever
 * limits the host set on us still hold. Under v2 a cgroup with
 * processes cannot give its children controllers (the "no internal
 * processes" rule, cgroups(7)), and ours holds us: `heel` goes beside
 * our cgroup, in its parent, which a systemd user manager delegates to
 * the user along with ours; from the root cgroup, below it.
 *
 * Every path is read below `root` ("" on a real system), so that the
 * unit test can run each step against a tree of plain files standing in
 * for /proc and /sys/fs/cgroup. Linux; never prints. */
#ifndef HEEL_RUNTIME_CGROUP_H
#define HEEL_RUNTIME_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The controllers heel uses. CG_CPU is only read (the tree's CPU time):
 * v1 cpuacct, v2 cpu.stat, which every v2 cgroup has. */
enum cg_ctl { CG_PIDS, CG_MEMORY, CG_CPU, CG_CTL_COUNT };
#define CG_BIT(c) (1U << (c))
#define CG_PATH_MAX 512

struct cg {
	int version;                          /* 1 or 2; 0: none located */
	unsigned ctls;                        /* CG_BIT()s of what the cgroup has */
	char root[CG_PATH_MAX];               /* prefix of every path read */
	char v2_point[CG_PATH_MAX];           /* v2: where cgroup2 is mounted */
	/* Per controller ("" where it has none; under v2 all equal). With
	 * want == 0 only CG_PIDS is used: a cgroup that only holds the tree
	 * (v2 always; v1 in the pids hierarchy). */
	char base[CG_CTL_COUNT][CG_PATH_MAX]; /* .../heel */
	char dir[CG_CTL_COUNT][CG_PATH_MAX];  /* .../heel/heel-<pid>-<random> */
	bool made;                            /* cg_create succeeded */
};

/* The sandbox's cgroup directory to name in messages: the first
 * controller's that has one ("" before cg_create). */
const char *cg_dir_name(const struct cg *cg);

/* The policy's name of a controller's limit ("processes"), for messages. */
const char *cg_ctl_name(int ctl);

/* Finds this process's cgroups (/proc/self/mountinfo, /proc/self/cgroup)
 * and where a sandbox cgroup with the controllers in `want` would go;
 * creates nothing. Chooses v2 unless the v1 hierarchies offer more of
 * `want` (a hybrid host keeps its controllers in v1). 0, with cg->ctls
 * the part of `want` it offers (the caller decides about the rest); or
 * -errno with the reason in err (no cgroup file system mounted, none of
 * the controllers). */
int cg_locate(struct cg *cg, const char *root, unsigned want, char *err, size_t errlen);

/* Makes `heel` (kept while other launches use it; under v2 with the
 * controllers enabled for its children) and heel-<pid>-<random> in it,
 * in each hierarchy. 0, or -errno with err naming the path: EACCES or
 * EPERM means the place is not delegated to us. On failure nothing of
 * ours is left. */
int cg_create(struct cg *cg, char *err, size_t errlen);

/* Sets pids.max to `pids` and the memory limit to `mem` bytes with swap
 * off for the cgroup (v2 memory.max, memory.swap.max; v1
 * memory.limit_in_bytes, memory.memsw.limit_in_bytes where the kernel
 * accounts swap); 0 leaves one unset. 0, or -errno with err. */
int cg_set_limits(const struct cg *cg, uint64_t pids, uint64_t mem, char *err,
		  size_t errlen);

/* Moves process `pid` into the cgroup, in every hierarchy. 0 or -errno. */
int cg_enter(const struct cg *cg, pid_t pid);

/* The CPU time everything that ran in the cgroup used, in microseconds
 * (v2 cpu.stat usage_usec, v1 cpuacct.usage). 0 or -errno. */
int cg_cpu_usec(const struct cg *cg, uint64_t *usec);

/* How many processes the kernel's OOM killer ended in the cgroup for
 * its memory limit (v2 memory.events oom_kill, v1 memory.oom_control
 * oom_kill, Linux 4.13). 0 or -errno. */
int cg_oom_kills(const struct cg *cg, uint64_t *n);

/* How many times a new process of the cgroup was refused at pids.max
 * (pids.events "max", v1 and v2). 0 or -errno. */
int cg_pids_refused(const struct cg *cg, uint64_t *n);

/* SIGKILLs every process in the cgroup: v2 cgroup.kill where the kernel
 * has it, else each pid listed once (a process forked meanwhile is the
 * launcher's sweep's, which finds every descendant). */
void cg_kill(const struct cg *cg);

/* Removes the cgroup, and `heel` if nobody else uses it. Call once the
 * tree is dead and reaped; exiting processes may still be listed for a
 * moment, so it waits up to a second for them. A no-op when nothing was
 * made. 0 or -errno. */
int cg_remove(struct cg *cg);

#endif

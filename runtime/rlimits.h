/* SPDX-License-Identifier: MIT
 * Resource limits and priorities of the sandboxed process tree: rlimits
 * (soft = hard, so the command cannot raise them back), nice and I/O
 * priority, only ever lowered. Planned in the launcher, applied in the
 * child before Landlock and seccomp (everything after runs limited).
 * Linux; never prints. Named rlimits.h, not limits.h: with -Iruntime
 * that name would shadow the C library's <limits.h> everywhere. */
#ifndef HEEL_RUNTIME_RLIMITS_H
#define HEEL_RUNTIME_RLIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "artifact_read.h"

enum lim_io {
	LIM_IO_NONE = 0,       /* unchanged */
	LIM_IO_UTILITY = 1,    /* best-effort class, lowest level (7) */
	LIM_IO_BACKGROUND = 2, /* idle class: disk time only when nobody else wants it */
};

struct lim_rlimit {
	bool set;      /* apply value as soft and hard limit */
	bool capped;   /* the policy asked more than the current hard limit,
			* which cannot be raised: value is that hard limit */
	int resource;  /* RLIMIT_* */
	rlim_t value;
	uint64_t asked; /* the policy's value */
};

/* What to apply, in the order of the artifact's limits (memory, cpu,
 * processes, open-files, file-size, stack, core). */
struct lim_plan {
	struct lim_rlimit rl[ART_LIMIT_COUNT];
	int nice;    /* steps lower than the launcher, 0..19; 0 = unchanged */
	int io;      /* enum lim_io */
};

/* Steps lim_apply() reports a failure at: 0..ART_LIMIT_COUNT-1 are the
 * rlimits, then these. */
enum { LIM_STEP_NICE = ART_LIMIT_COUNT, LIM_STEP_IOPRIO };

/* The policy's name of limit i ("open-files"), or of a step. */
const char *lim_step_name(int step);

/* "limit NAME VALUE" as a policy would write it: a size in the largest
 * unit that holds it exactly, decimal or binary as it divides (2GB stays
 * 2GB, not 1953125KiB; 2GiB stays 2GiB), CPU time in seconds, counts as
 * they are. Returns buf. */
const char *lim_text(int i, uint64_t v, char *buf, size_t len);

/* Fills *plan from the policy's `limit`, `nice` and `io-priority` as seen
 * on `platform`, reading the launcher's current hard limits: a limit is
 * only ever lowered, never raised. 0, or -EINVAL for a value out of
 * range. */
int lim_plan(struct lim_plan *plan, const struct art_view *view,
	     unsigned platform);

/* Applies the plan to the calling process (the sandbox child; its
 * children inherit it). Async-signal-safe. 0, or -errno with *step set to
 * what failed. */
int lim_apply(const struct lim_plan *plan, int *step);

#endif

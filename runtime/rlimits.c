/* SPDX-License-Identifier: MIT
 * rlimits, nice and I/O priority for the sandbox; see rlimits.h. */
#include "rlimits.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#ifdef __APPLE__
/* setiopolicy_np(3) is in <sys/resource.h> on macOS. */
#else
#include <sys/syscall.h>

/* <linux/ioprio.h> is missing from older kernel headers; the ABI is
 * fixed. */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_BE_LOWEST 7
#endif

/* Indexed like the artifact's limits (ART_SC_LIMIT_FIRST + i). */
static const struct {
	const char *name;
	int resource;
} limit_map[ART_LIMIT_COUNT] = {
	{ "memory", RLIMIT_AS },
	{ "cpu", RLIMIT_CPU },
	{ "processes", RLIMIT_NPROC },
	{ "open-files", RLIMIT_NOFILE },
	{ "file-size", RLIMIT_FSIZE },
	{ "stack", RLIMIT_STACK },
	{ "core", RLIMIT_CORE },
};

const char *
lim_step_name(int step)
{
	if (step >= 0 && step < ART_LIMIT_COUNT)
		return limit_map[step].name;
	if (step == LIM_STEP_NICE)
		return "nice";
	if (step == LIM_STEP_IOPRIO)
		return "io-priority";
	return "?";
}

const char *
lim_text(int i, uint64_t v, char *buf, size_t len)
{
	static const struct {
		const char *unit;
		uint64_t size;
	} units[] = {
		{ "TiB", 1ULL << 40 }, { "TB", 1000000000000ULL }, { "GiB", 1ULL << 30 },
		{ "GB", 1000000000ULL }, { "MiB", 1ULL << 20 },	  { "MB", 1000000ULL },
		{ "KiB", 1ULL << 10 },	{ "KB", 1000ULL },
	};
	const char *name = lim_step_name(i);

	if (i == 1) {
		snprintf(buf, len, "limit %s %llus", name, (unsigned long long)v);
		return buf;
	}
	/* memory, file-size, stack, core: sizes; the rest counts. */
	for (size_t u = 0; v && (i == 0 || i >= 4) && u < sizeof(units) / sizeof(units[0]); u++)
		if (v % units[u].size == 0) {
			snprintf(buf, len, "limit %s %llu%s", name,
				 (unsigned long long)(v / units[u].size), units[u].unit);
			return buf;
		}
	snprintf(buf, len, "limit %s %llu%s", name, (unsigned long long)v,
		 i == 0 || i >= 4 ? "B" : "");
	return buf;
}

int
lim_plan(struct lim_plan *plan, const struct art_view *view, unsigned platform)
{
	struct art_scalar s;
	struct rlimit cur;

	*plan = (struct lim_plan){ 0 };
	for (int i = 0; i < ART_LIMIT_COUNT; i++) {
		struct lim_rlimit *rl = &plan->rl[i];

		rl->resource = limit_map[i].resource;
		if (art_scalar(view, platform, ART_SC_LIMIT_FIRST + (unsigned)i, &s) < 0)
			return -EINVAL;
		if (!s.set)
			continue;
		if (getrlimit(rl->resource, &cur) < 0)
			return -errno;
		rl->set = true;
		rl->asked = s.value;
		/* RLIM_INFINITY is all ones: a huge policy value means
		 * "no lower than what we have", never "unlimited". */
		if (s.value >= (uint64_t)RLIM_INFINITY || (cur.rlim_max != RLIM_INFINITY &&
							   s.value > cur.rlim_max)) {
			rl->value = cur.rlim_max;
			rl->capped = true;
		} else {
			rl->value = (rlim_t)s.value;
		}
	}

	if (art_scalar(view, platform, ART_SC_NICE, &s) < 0)
		return -EINVAL;
	if (s.set) {
		if (s.value > 19)
			return -EINVAL;
		plan->nice = (int)s.value;
	}
	if (art_scalar(view, platform, ART_SC_IO_PRIORITY, &s) < 0)
		return -EINVAL;
	if (s.set) {
		if (s.value > LIM_IO_BACKGROUND)
			return -EINVAL;
		plan->io = (int)s.value;
	}
	return 0;
}

static int
apply_nice(int steps)
{
	int cur, want;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == -1 && errno)
		return -errno;
	/* Relative to the launcher and capped at 19: a policy can only make
	 * the command nicer, and lowering needs no privilege. */
	want = cur + steps;
	if (want > 19)
		want = 19;
	if (want <= cur)
		return 0;
	return setpriority(PRIO_PROCESS, 0, want) < 0 ? -errno : 0;
}

#ifdef __APPLE__
/* The disk I/O policy, as taskpolicy(8) -d sets it: THROTTLE is the
 * background tier, UTILITY the one above it. Inherited across fork and
 * exec. */
static int
apply_io(int io)
{
	int want = io == LIM_IO_BACKGROUND ? IOPOL_THROTTLE : IOPOL_UTILITY;

	return setiopolicy_np(IOPOL_TYPE_DISK, IOPOL_SCOPE_PROCESS, want) < 0 ? -errno : 0;
}
#else
static int
apply_io(int io)
{
	long cur;
	int want;

	cur = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
	if (cur < 0)
		return -errno;
	if (io == LIM_IO_BACKGROUND) {
		want = IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT;
	} else {
		/* Already idle is lower than "utility": keep it. */
		if ((cur >> IOPRIO_CLASS_SHIFT) == IOPRIO_CLASS_IDLE)
			return 0;
		want = IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT | IOPRIO_BE_LOWEST;
	}
	return syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, want) < 0 ? -errno : 0;
}
#endif

int
lim_apply(const struct lim_plan *plan, int *step)
{
	int r;

	for (int i = 0; i < ART_LIMIT_COUNT; i++) {
		const struct lim_rlimit *rl = &plan->rl[i];
		struct rlimit v = { rl->value, rl->value };

		if (!rl->set)
			continue;
		if (setrlimit(rl->resource, &v) < 0) {
			*step = i;
			return -errno;
		}
	}
	if (plan->nice && (r = apply_nice(plan->nice)) < 0) {
		*step = LIM_STEP_NICE;
		return r;
	}
	if (plan->io && (r = apply_io(plan->io)) < 0) {
		*step = LIM_STEP_IOPRIO;
		return r;
	}
	return 0;
}

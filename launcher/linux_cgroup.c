/* SPDX-License-Identifier: MIT
 * heel-exec on Linux: the sandbox's cgroup and what it means for the
 * policy's limits; see linux_cgroup.h. */
#include "linux_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux.h"

/* The rlimits plan's index (the artifact's order: memory, cpu,
 * processes, ...) of each controller's limit. */
static const int plan_index[CG_CTL_COUNT] = { [CG_PIDS] = 2, [CG_MEMORY] = 0, [CG_CPU] = 1 };

/* Below this the watch would spin; the overshoot it allows is this much
 * CPU time per online CPU. */
#define WATCH_MIN_MS 10

unsigned
linux_accept_bit(const char *name)
{
	if (strcmp(name, "per-process-limits") == 0)
		return LINUX_ACCEPT_PER_PROCESS_LIMITS;
	return 0;
}

static unsigned
wanted(const struct lim_plan *plan)
{
	unsigned want = 0;

	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (plan && plan->rl[plan_index[c]].set)
			want |= CG_BIT(c);
	return want;
}

static uint64_t
asked(const struct lim_plan *plan, int c)
{
	return plan->rl[plan_index[c]].asked;
}

/* "limit memory 256MiB", as the policy would say it. */
static void
limit_text(const struct lim_plan *plan, int c, char *out, size_t len)
{
	lim_text(plan_index[c], asked(plan, c), out, len);
}

/* "limit processes 20 and limit cpu 2s" for the limits in mask. */
static void
limits_text(const struct lim_plan *plan, unsigned mask, char *out, size_t len)
{
	char one[64];
	int n = 0, total = 0;

	out[0] = '\0';
	for (int c = 0; c < CG_CTL_COUNT; c++)
		total += !!(mask & CG_BIT(c));
	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!(mask & CG_BIT(c)))
			continue;
		limit_text(plan, c, one, sizeof(one));
		n++;
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			 n == 1 ? "" : n == total ? " and " : ", ", one);
	}
}

/* Locates and makes the cgroup: 0, or -errno with the reason in why
 * (naming delegation where the kernel refused the directory). */
static int
locate_create(struct cg *cg, const char *root, unsigned want, char *why, size_t whylen)
{
	int r;

	if ((r = cg_locate(cg, root, want, why, whylen)) < 0)
		return r;
	if ((r = cg_create(cg, why, whylen)) < 0 && (r == -EACCES || r == -EPERM))
		snprintf(why + strlen(why), whylen - strlen(why),
			 ": the cgroup heel-exec runs in is not delegated to uid %u",
			 (unsigned)geteuid());
	return r;
}

/* Makes the cgroup and sets its limits; returns the limits of `want`
 * it cannot hold, with the reason in why. */
static unsigned
make(struct linux_cgroup *lc, const struct lim_plan *plan, const char *root, unsigned want,
     char *why, size_t whylen)
{
	unsigned missing;
	int r;

	if (locate_create(&lc->cg, root, want, why, whylen) < 0)
		return want;
	missing = want & ~lc->cg.ctls;
	if ((r = cg_set_limits(&lc->cg, (want & CG_BIT(CG_PIDS)) && !(missing & CG_BIT(CG_PIDS))
						? asked(plan, CG_PIDS) : 0,
			       (want & CG_BIT(CG_MEMORY)) && !(missing & CG_BIT(CG_MEMORY))
				       ? asked(plan, CG_MEMORY) : 0,
			       why, whylen)) < 0) {
		cg_remove(&lc->cg);
		return want;
	}
	if (missing) {
		char *p = why;

		p += snprintf(why, whylen, "cgroup v%d here has no", lc->cg.version);
		for (int c = 0; c < CG_CTL_COUNT; c++)
			if (missing & CG_BIT(c))
				p += snprintf(p, whylen - (size_t)(p - why), " %s",
					      lc->cg.version == 1 && c == CG_CPU ? "cpuacct"
					      : c == CG_PIDS ? "pids" : "memory");
		snprintf(p, whylen - (size_t)(p - why), " controller");
	}
	return missing;
}

int
linux_cgroup_make(struct linux_launch *l, struct linux_cgroup *lc, const char *root,
		  char *err, size_t errlen)
{
	char why[512] = "", which[256];
	unsigned want = wanted(l->limits), missing;

	*lc = (struct linux_cgroup){ 0 };
	/* Nothing to limit: the PID namespace holds the tree, and a cgroup
	 * made and removed would only slow the launch. Without namespaces
	 * a cgroup still helps find the tree at the end. */
	if (!want && l->namespaces)
		return 0;
	missing = make(lc, l->limits, root, want, why, sizeof(why));
	if (!want) {
		if (!lc->cg.made && l->verbose)
			l->note("no cgroup for the tree: %s", why);
		return 0;
	}
	if (missing) {
		limits_text(l->limits, missing, which, sizeof(which));
		if (!l->best_effort && !(l->accept & LINUX_ACCEPT_PER_PROCESS_LIMITS)) {
			snprintf(err, errlen,
				 "%s %s per process only here: no cgroup could be made (%s); "
				 "--best-effort or --accept per-process-limits runs it so",
				 which, missing & (missing - 1) ? "hold" : "holds", why);
			cg_remove(&lc->cg);
			return -1;
		}
		l->note("weakened: %s %s per process only: no cgroup could be made (%s)", which,
			missing & (missing - 1) ? "hold" : "holds", why);
	}
	if (lc->cg.made && l->verbose)
		l->note("cgroup v%d %s", lc->cg.version,
			cg_dir_name(&lc->cg));
	if ((want & ~missing) & CG_BIT(CG_CPU)) {
		lc->cpu_budget_usec = asked(l->limits, CG_CPU) * 1000000ULL;
		lc->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (lc->ncpu < 1)
			lc->ncpu = 1;
	}
	return 0;
}

/* Moves a throw-away child into the cgroup, as a launch moves its init:
 * 0 or -errno. The child waits on a pipe and is gone before we return. */
static int
try_enter(const struct cg *cg)
{
	int p[2], r;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	r = cg_enter(cg, pid);
	close(p[1]);
	waitpid(pid, NULL, 0);
	return r;
}

int
linux_cgroup_probe(int *version, char *where, size_t wlen, char *why, size_t whylen)
{
	struct cg cg = { 0 };
	unsigned all = CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU);
	char miss[64] = "";
	int r;

	*version = 0;
	where[0] = why[0] = '\0';
	if ((r = locate_create(&cg, "", all, why, whylen)) < 0)
		return r;
	if ((r = try_enter(&cg)) < 0) {
		snprintf(why, whylen, "%s: moving a process into it: %s", cg_dir_name(&cg),
			 strerror(-r));
		cg_remove(&cg);
		return r;
	}
	*version = cg.version;
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (!(cg.ctls & CG_BIT(c)))
			snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss), " %s",
				 cg.version == 1 && c == CG_CPU ? "cpuacct"
				 : c == CG_PIDS ? "pids" : c == CG_MEMORY ? "memory" : "cpu");
	snprintf(where, wlen, "%s%s%s%s",
		 cg.base[CG_PIDS][0] ? cg.base[CG_PIDS]
		 : cg.base[CG_MEMORY][0] ? cg.base[CG_MEMORY] : cg.base[CG_CPU],
		 miss[0] ? " (no" : "", miss, miss[0] ? " controller there)" : "");
	cg_remove(&cg);
	return 0;
}

int
linux_cgroup_check(struct linux_launch *l, char *err, size_t errlen)
{
	struct linux_cgroup lc = { 0 };
	char why[512] = "", which[256];
	unsigned want = wanted(l->limits), missing;
	int r;

	missing = make(&lc, l->limits, "", want, why, sizeof(why));
	if (lc.cg.made && (r = try_enter(&lc.cg)) < 0) {
		/* Made, but a process cannot join it (cgroup v2 refuses a
		 * domain cgroup below a threaded one): what a launch meets. */
		snprintf(why, sizeof(why), "%s: moving a process into it: %s",
			 cg_dir_name(&lc.cg), strerror(-r));
		missing = want;
		cg_remove(&lc.cg);
	}
	if (lc.cg.made)
		printf("cgroup: v%d, one can be made (heel-<pid>-<random> under %s)\n",
		       lc.cg.version,
		       lc.cg.base[CG_PIDS][0] ? lc.cg.base[CG_PIDS]
		       : lc.cg.base[CG_MEMORY][0] ? lc.cg.base[CG_MEMORY] : lc.cg.base[CG_CPU]);
	else
		printf("cgroup: none can be made (%s)\n", why);
	cg_remove(&lc.cg);
	if (want & ~missing) {
		limits_text(l->limits, want & ~missing, which, sizeof(which));
		printf("cgroup: %s %s for the whole process tree\n", which,
		       (want & ~missing) & ((want & ~missing) - 1) ? "hold" : "holds");
	}
	if (!missing)
		return 0;
	limits_text(l->limits, missing, which, sizeof(which));
	printf("cgroup: %s would hold per process only\n", which);
	snprintf(err, errlen,
		 "%s %s per process only here: no cgroup could be made (%s); "
		 "--best-effort or --accept per-process-limits runs it so",
		 which, missing & (missing - 1) ? "hold" : "holds", why);
	return -1;
}

int
linux_cgroup_enter(struct linux_cgroup *lc, pid_t child, char *msg, size_t msglen)
{
	int r;

	if (!lc)
		return 0;
	lc->child = child;
	if (!lc->cg.made)
		return 0;
	if ((r = cg_enter(&lc->cg, child)) < 0) {
		snprintf(msg, msglen, "moving the sandbox into its cgroup %s: %s",
			 cg_dir_name(&lc->cg),
			 strerror(-r));
		return 125;
	}
	return 0;
}

/* How long until the budget could be spent if every CPU ran for the
 * tree: the next look is then, so the overshoot stays within one
 * WATCH_MIN_MS per CPU. */
static long
watch_check(void *ctx)
{
	struct linux_cgroup *lc = ctx;
	uint64_t used;
	long ms;

	if (cg_cpu_usec(&lc->cg, &used) < 0)
		return 1000;
	if (used >= lc->cpu_budget_usec) {
		lc->cpu_spent = true;
		lc->cpu_used_usec = used;
		cg_kill(&lc->cg);
		/* The init: in a PID namespace its death ends everything;
		 * else the group, and the launcher's sweep the rest. */
		kill(-lc->child, SIGKILL);
		kill(lc->child, SIGKILL);
		return -1;
	}
	ms = (long)((lc->cpu_budget_usec - used) / 1000 / (uint64_t)lc->ncpu);
	return ms < WATCH_MIN_MS ? WATCH_MIN_MS : ms;
}

const struct pt_watch *
linux_cgroup_watch(struct linux_cgroup *lc)
{
	if (!lc || !lc->cg.made || !lc->cpu_budget_usec)
		return NULL;
	lc->watch.check = watch_check;
	lc->watch.ctx = lc;
	return &lc->watch;
}

bool
linux_cgroup_spent(const struct linux_cgroup *lc, char *msg, size_t msglen)
{
	if (!lc || !lc->cpu_spent)
		return false;
	snprintf(msg, msglen,
		 "limit cpu %" PRIu64 "s: the process tree used %" PRIu64 ".%02" PRIu64
		 " s of CPU time; killed it (SIGXCPU)",
		 lc->cpu_budget_usec / 1000000, lc->cpu_used_usec / 1000000,
		 lc->cpu_used_usec % 1000000 / 10000);
	return true;
}

uint64_t
linux_cgroup_oom_kills(const struct linux_cgroup *lc)
{
	uint64_t n = 0;

	if (!lc || !lc->cg.made || !(lc->cg.ctls & CG_BIT(CG_MEMORY)) || cg_oom_kills(&lc->cg, &n) < 0)
		return 0;
	return n;
}

uint64_t
linux_cgroup_pids_refused(const struct linux_cgroup *lc)
{
	uint64_t n = 0;

	if (!lc || !lc->cg.made || !(lc->cg.ctls & CG_BIT(CG_PIDS)) ||
	    cg_pids_refused(&lc->cg, &n) < 0)
		return 0;
	return n;
}

void
linux_cgroup_remove(struct linux_launch *l, struct linux_cgroup *lc)
{
	int r;

	char dir[CG_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", cg_dir_name(&lc->cg));
	if ((r = cg_remove(&lc->cg)) < 0)
		l->note("could not remove the cgroup %s: %s", dir, strerror(-r));
}

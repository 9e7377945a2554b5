/* SPDX-License-Identifier: MIT
 * heel-exec's enforcement on Linux: the four hooks of linux.h. Landlock
 * from the artifact's table (runtime/landlock_apply.c) with, where the
 * command has a private mount namespace, the mounts that Landlock cannot
 * express (protected paths inside writable grants, noexec on everything
 * writable); then the seccomp program for this architecture. */
#ifndef HEEL_TEST_NO_ENFORCE

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "artifact_read.h"
#include "bpf_sim.h"
#include "env.h"
#include "landlock_abi.h"
#include "landlock_apply.h"
#include "landlock_table.h"
#include "launch_timing.h"
#include "linux.h"

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH ART_AUDIT_ARCH_X86_64
#define NATIVE_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH ART_AUDIT_ARCH_AARCH64
#define NATIVE_ARCH_NAME "aarch64"
#else
#error "heel-exec supports x86_64 and aarch64"
#endif

/* ${NAME} comes from the launcher's environment (LANGUAGE.md: expanded at
 * launch from the launcher's environment). */
static const char *
host_getenv(const char *name, void *ctx)
{
	return envb_lookup(ctx, name);
}

static int
table_of(const struct linux_launch *l, struct ll_table_view *t, char *err, size_t errlen)
{
	const uint8_t *payload;
	size_t len;

	if (art_landlock(l->view, &payload, &len) < 0) {
		snprintf(err, errlen, "the artifact has no Linux part (compiled for other platforms only)");
		return -ENOENT;
	}
	return ll_table_parse(payload, len, t, err, errlen);
}

/* Stands in for the real cover during the parent's dry run: a mount
 * namespace will be there (the probe made one), so the plan may count on
 * it. */
static int
cover_possible(const struct ll_mount_request *req, void *ctx, char *err, size_t errlen)
{
	return 0;
}

static void
report_lines(const struct linux_launch *l, const struct ll_report *rep)
{
	for (size_t i = 0; i < rep->nlines; i++) {
		const struct ll_report_line *line = &rep->lines[i];

		if (line->kind == LL_LINE_WEAKENING)
			l->note("weakened: %s", line->text);
		else if (l->verbose && line->kind != LL_LINE_APPLIED)
			l->note("landlock: %s", line->text);
	}
	if (l->verbose)
		l->note("landlock: ABI %d, %zu path rules", rep->abi, rep->nrules);
}

int
linux_check_landlock(struct linux_launch *l, char *err, size_t errlen)
{
	struct ll_table_view t;
	struct ll_launch ll = {
		.getenv = host_getenv,
		.getenv_ctx = (void *)l->host_env,
		.cwd = l->launch_dir,
	};
	struct ll_plan *plan;
	struct ll_report rep = { .want_applied = l->verbose, .weakenings_only = !l->verbose };
	int r;

	if ((r = table_of(l, &t, err, errlen)) < 0)
		return r;
	if (l->probe->landlock_abi <= 0 && !l->best_effort) {
		snprintf(err, errlen, "%s", ll_probe_message(l->probe->landlock_abi));
		return -EOPNOTSUPP;
	}
	/* Unless the probe found namespaces impossible (or they were turned
	 * off), the command gets a mount namespace of its own (the launch
	 * refuses otherwise); without one a protected path inside a writable
	 * grant cannot be held and ll_plan_build refuses it. */
	if (l->probe->userns >= 0 && l->namespaces)
		ll.cover = cover_possible;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	/* On the real file system, before anything exists: a missing path, a
	 * grant that is a link, an unset ${NAME} are refused here. The plan
	 * is kept: the command inherits it (and its O_PATH descriptors) and
	 * only adds the working directory, so a launch plans once. */
	r = ll_plan_build(&t, &ll, l->probe->landlock_abi > 0 ? l->probe->landlock_abi : 0,
			  l->best_effort, plan, &rep, err, errlen);
	if (r == 0)
		report_lines(l, &rep);
	ll_report_free(&rep);
	if (l->landlock_state) {
		ll_plan_free(l->landlock_state);
		free(l->landlock_state);
		l->landlock_state = NULL;
	}
	if (r < 0) {
		free(plan);
		return r;
	}
	l->landlock_state = plan;
	return 0;
}

/* ORs in the flags the mount already has: in a user namespace the
 * kernel refuses a remount that would clear a flag the outer namespace
 * locked (nosuid, nodev, ro...), so a bind remount must restate them. */
static unsigned long
locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_RDONLY)
		f |= MS_RDONLY;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

/* Binds `path` onto itself and remounts it with `add` on top of what it
 * had. Landlock's EXECUTE right gates execve() only: a no-exec directory
 * still lets the dynamic loader map a payload from it
 * (`ld-linux.so ./payload`), which only a noexec mount stops. */
static int
rebind(const char *path, unsigned long add, char *err, size_t errlen)
{
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0) {
		snprintf(err, errlen, "bind %s: %s", path, strerror(errno));
		return -errno;
	}
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | locked_flags(path) | add, NULL) < 0) {
		snprintf(err, errlen, "remount %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* A protected path inside a writable grant: Landlock could only protect
 * it by taking the grant apart, so the mount namespace hides it under an
 * empty read-only object, and pins every directory between the grant and
 * it (a bind mount cannot be renamed: EBUSY), so the protection cannot be
 * moved aside (peers.md 4.7, 4.8). */
static int
cover_mount(const struct ll_mount_request *req, void *ctx, char *err, size_t errlen)
{
	for (size_t i = 0; i < req->nkeep; i++)
		if (mount(req->keep[i], req->keep[i], NULL, MS_BIND, NULL) < 0) {
			snprintf(err, errlen, "pin %s: %s", req->keep[i], strerror(errno));
			return -errno;
		}
	if (req->is_dir) {
		if (mount("tmpfs", req->deny, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=4k,mode=000") < 0) {
			snprintf(err, errlen, "cover %s: %s", req->deny, strerror(errno));
			return -errno;
		}
		return 0;
	}
	/* A file: /dev/null read-only over it reads as empty and refuses
	 * writes; the original bytes are out of reach. */
	if (mount("/dev/null", req->deny, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, req->deny, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		  NULL) < 0) {
		snprintf(err, errlen, "cover %s: %s", req->deny, strerror(errno));
		return -errno;
	}
	return 0;
}

static bool
writable_not_exec(uint64_t access)
{
	return (access & LL_FS_WRITE_FILE) && !(access & LL_FS_EXECUTE);
}

/* Whether the directory of plan rule `i` must become a noexec mount: a
 * writable, non-executable grant or carved-out sibling; or a spine (a
 * grant narrowed because something beneath it is denied) whose entries
 * are writable and none executable, since a writable sibling *file*
 * cannot be a mount point of its own. */
static bool
wants_noexec(const struct ll_plan *plan, size_t i)
{
	const struct ll_plan_rule *pr = &plan->rules[i];
	size_t n = strlen(pr->path);
	bool writable = false;

	/* Directories under /dev too: /dev/shm is shared temp, and a file
	 * written there must not run through the loader (found by the
	 * isolation matrix under `permissive`). Device nodes are files. */
	if (!pr->is_dir)
		return false;
	if (pr->kind != LL_PK_SPINE)
		return (pr->kind == LL_PK_GRANT || pr->kind == LL_PK_SIBLING) &&
		       writable_not_exec(pr->access);
	for (size_t j = 0; j < plan->nrules; j++) {
		const struct ll_plan_rule *q = &plan->rules[j];

		if (strncmp(q->path, pr->path, n) != 0 || q->path[n] != '/')
			continue;
		if (q->access & LL_FS_EXECUTE)
			return false;
		writable |= (q->access & LL_FS_WRITE_FILE) != 0;
	}
	return writable;
}

int
linux_apply_landlock(struct linux_launch *l, char *err, size_t errlen)
{
	struct ll_table_view t;
	struct ll_launch ll = {
		.getenv = host_getenv,
		.getenv_ctx = (void *)l->host_env,
		.cwd = l->launch_dir,
		.workdir = l->workdir,
		.cover = l->mountns ? cover_mount : NULL,
	};
	struct ll_plan fresh = { 0 }, *plan = l->landlock_state;
	struct ll_report rep = { 0 };
	int r;

	/* The parent's plan serves when it counted on the mount namespace
	 * the command really has and the working directory needs no
	 * carving; otherwise plan again, now with the working directory. */
	if (plan && (l->mountns || !plan->nmounts)) {
		r = ll_plan_add_workdir(plan, l->workdir, err, errlen);
		if (r == -EAGAIN)
			plan = NULL;
		else if (r < 0)
			return r;
		/* The init mounted a /proc of the PID namespace over the one
		 * the launcher planned with. */
		if (plan && l->mountns && (r = ll_plan_reopen_under(plan, "/proc", err, errlen)) < 0)
			return r;
	} else {
		plan = NULL;
	}
	if (!plan) {
		int abi = ll_probe_abi();

		if ((r = table_of(l, &t, err, errlen)) < 0)
			return r;
		r = ll_plan_build(&t, &ll, abi > 0 ? abi : 0, l->best_effort, &fresh, &rep, err,
				  errlen);
		ll_report_free(&rep);
		if (r < 0)
			return r;
		plan = &fresh;
	}
	for (size_t i = 0; l->mountns && i < plan->nmounts; i++)
		if ((r = cover_mount(&plan->mounts[i], NULL, err, errlen)) < 0)
			return r;
	if (l->mountns) {
		/* Nothing writable is executable, also for the loader trick:
		 * the working directory and every writable grant that is
		 * not rwx become noexec mounts. */
		if ((r = rebind(l->workdir, MS_NOEXEC | MS_NOSUID | MS_NODEV, err, errlen)) < 0)
			return r;
		for (size_t i = 0; i < plan->nrules; i++)
			if (wants_noexec(plan, i) &&
			    (r = rebind(plan->rules[i].path, MS_NOEXEC | MS_NOSUID | MS_NODEV, err,
					errlen)) < 0)
				return r;
		/* The command's cwd was set before the bind mount, so it
		 * still names the directory under it, without noexec: enter
		 * the mount. */
		if (chdir(l->workdir) < 0) {
			snprintf(err, errlen, "chdir %s: %s", l->workdir, strerror(errno));
			return -errno;
		}
	}
	/* The plan is not freed: this process execs or exits next, and its
	 * descriptors are close-on-exec; closing hundreds of them one by one
	 * would only slow the launch. */
	launch_mark("covers and noexec mounts");
	return ll_plan_enforce(plan, err, errlen);
}

int
linux_check_seccomp(struct linux_launch *l, char *err, size_t errlen)
{
	struct art_bpf prog;

	if (art_seccomp(l->view, NATIVE_AUDIT_ARCH, &prog) < 0) {
		snprintf(err, errlen, "the artifact has no seccomp program for %s", NATIVE_ARCH_NAME);
		return -ENOENT;
	}
	/* No best effort here: a sandbox without its syscall filter leaves
	 * io_uring, ptrace and the memfd exec escape open. */
	if (l->probe->seccomp < 0) {
		snprintf(err, errlen, "this kernel has no seccomp filters (CONFIG_SECCOMP_FILTER)");
		return -EOPNOTSUPP;
	}
	if (l->verbose)
		l->note("seccomp: %u instructions for %s", prog.len, NATIVE_ARCH_NAME);
	return 0;
}

/* Drops every capability for good: the bounding set (so an execve as
 * uid 0 cannot regain them), the ambient set, then the current sets. A
 * sandbox run as root has no user namespace (it keeps its rights over
 * unmapped files), so without this the command would hold every
 * capability of the host (measured: CapEff 000001fffeffffff). Mounts are
 * done by now; seccomp comes next and does not need them. */
static int
drop_capabilities(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data) < 0) {
		snprintf(err, errlen, "capget: %s", strerror(errno));
		return -errno;
	}
	/* Only uid 0 regains the bounding set at execve; any other uid
	 * execs with nothing, since NO_NEW_PRIVS also ignores file
	 * capabilities. The loop ends at the first number the kernel does
	 * not know (EINVAL). */
	if (geteuid() == 0 && (data[0].permitted || data[1].permitted)) {
		for (unsigned long cap = 0; cap < 64; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
				continue;
			if (errno == EINVAL)
				break;
			snprintf(err, errlen, "dropping capability %lu: %s", cap, strerror(errno));
			return -errno;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		snprintf(err, errlen, "clearing ambient capabilities: %s", strerror(errno));
		return -errno;
	}
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0) {
		snprintf(err, errlen, "capset: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int
linux_apply_seccomp(struct linux_launch *l, char *err, size_t errlen)
{
	struct sock_fprog fprog;
	struct sock_filter *insns;
	struct art_bpf prog;

	int r;

	if ((r = drop_capabilities(err, errlen)) < 0)
		return r;
	if (art_seccomp(l->view, NATIVE_AUDIT_ARCH, &prog) < 0) {
		snprintf(err, errlen, "no seccomp program for %s", NATIVE_ARCH_NAME);
		return -ENOENT;
	}
	insns = calloc(prog.len, sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	_Static_assert(sizeof(struct sock_filter) == sizeof(struct bpf_sim_insn), "layout");
	art_bpf_decode(&prog, (struct bpf_sim_insn *)insns);
	fprog.len = (unsigned short)prog.len;
	fprog.filter = insns;
	/* Without TSYNC: the command's process has one thread here. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
		int e = errno;

		snprintf(err, errlen, "loading the filter: %s", strerror(e));
		free(insns);
		return -e;
	}
	free(insns);
	return 0;
}

#endif

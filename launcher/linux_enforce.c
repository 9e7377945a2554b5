/* SPDX-License-Identifier: MIT
 * heel-exec's enforcement on Linux: the four hooks of linux.h. Landlock
 * from the artifact's table (runtime/landlock_apply.c) with, where the
 * command has a private mount namespace, the mounts that Landlock cannot
 * express (protected paths inside writable grants, noexec on everything
 * writable); then the seccomp program for this architecture. */
#ifndef HEEL_TEST_NO_ENFORCE

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "artifact_read.h"
#include "bpf_sim.h"
#include "bpf_verify.h"
#include "env.h"
#include "landlock_abi.h"
#include "landlock_apply.h"
#include "landlock_table.h"
#include "launch_timing.h"
#include "ipc_abi.h"
#include "linux.h"
#include "linux_broker.h"
#include "linux_proxy.h"
#include "linux_view.h"
#include "seccomp_noinet.h"

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH ART_AUDIT_ARCH_X86_64
#define NATIVE_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH ART_AUDIT_ARCH_AARCH64
#define NATIVE_ARCH_NAME "aarch64"
#else
#error "heel-exec supports x86_64 and aarch64"
#endif

/* ${NAME} comes from the launcher's environment, expanded at launch
 * (heel(5), PATHS), not from the sandbox's environment built from scratch. */
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

/* The optional rules left out on this machine, in one line: a stock base
 * grants dozens of paths a machine may lack (GPU devices, /lib32), and a
 * line each buried what -v is for. -vv lists them instead. */
static void
note_skipped(const struct linux_launch *l, const size_t count[LL_SKIP_COUNT])
{
	static const char *const what[LL_SKIP_COUNT] = {
		[LL_SKIP_MISSING] = "missing here",
		[LL_SKIP_LINK] = "symbolic links",
		[LL_SKIP_UNSET] = "naming an unset variable",
		[LL_SKIP_OTHER] = "out of reach",
	};
	char parts[256] = "";
	size_t total = 0, n = 0;

	for (int k = 0; k < LL_SKIP_COUNT; k++)
		total += count[k];
	if (!total)
		return;
	for (int k = 0; k < LL_SKIP_COUNT; k++)
		if (count[k])
			n += (size_t)snprintf(parts + n, n < sizeof(parts) ? sizeof(parts) - n : 0,
					      "%s%zu %s", n ? ", " : "", count[k], what[k]);
	l->note("landlock: %zu optional rule%s skipped on this machine (%s); -vv lists them",
		total, total == 1 ? "" : "s", parts);
}

static void
report_lines(const struct linux_launch *l, const struct ll_report *rep)
{
	size_t skipped[LL_SKIP_COUNT] = { 0 };

	for (size_t i = 0; i < rep->nlines; i++) {
		const struct ll_report_line *line = &rep->lines[i];

		if (line->kind == LL_LINE_WEAKENING)
			l->note("weakened: %s", line->text);
		else if (line->kind == LL_LINE_SKIPPED && !l->list_skipped)
			skipped[line->skip < LL_SKIP_COUNT ? line->skip : LL_SKIP_OTHER]++;
		else if (l->verbose && line->kind != LL_LINE_APPLIED)
			l->note("landlock: %s", line->text);
	}
	if (l->verbose) {
		note_skipped(l, skipped);
		l->note("landlock: ABI %d, %zu path rules", rep->abi, rep->nrules);
	}
}

/* Whether heel-exec stacks its own refusal of inet sockets: under
 * network deny (no heel-proxy) without a network namespace, where the
 * loopback the artifact's program lets TCP reach is the host's. */
static bool
stacks_inet_refusal(const struct linux_launch *l, bool netns)
{
	return !netns && !l->proxy;
}

/* Whether the launch's seccomp programs refuse every inet socket
 * (ll_launch.inet_refused) and UDP sockets (udp_refused; through
 * heel-proxy only TCP passes): then those need no Landlock rule. Asked of
 * the artifact's program itself, run in the simulator, so that a policy's
 * `seccomp allow "socket"` counts as what it is; heel-exec's own refusal
 * (stacks_inet_refusal) refuses both. */
static void
seccomp_refuses_inet(const struct linux_launch *l, struct ll_launch *ll)
{
	static const int families[] = { AF_INET, AF_INET6 };
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	bool refused[2] = { true, true };
	struct bpf_sim_insn *insns;
	struct art_bpf prog;

	ll->inet_refused = ll->udp_refused = stacks_inet_refusal(l, ll->netns);
	if (ll->inet_refused)
		return;
	if (art_seccomp(l->view, NATIVE_AUDIT_ARCH, &prog) < 0 ||
	    !(insns = calloc(prog.len, sizeof(*insns))))
		return;
	art_bpf_decode(&prog, insns);
	for (size_t t = 0; t < 2; t++)
		for (size_t f = 0; refused[t] && f < 2; f++) {
			struct bpf_sim_data d = { .nr = __NR_socket, .arch = NATIVE_AUDIT_ARCH };
			struct bpf_sim_result res;
			uint32_t action;

			d.args[0] = (uint64_t)families[f];
			d.args[1] = (uint64_t)types[t];
			if (bpf_sim_run(insns, prog.len, &d, &res) < 0)
				refused[t] = false;
			action = res.action & SECCOMP_RET_ACTION_FULL;
			if (action != SECCOMP_RET_ERRNO && action != SECCOMP_RET_KILL_PROCESS &&
			    action != SECCOMP_RET_KILL_THREAD && action != SECCOMP_RET_TRAP)
				refused[t] = false;
		}
	free(insns);
	ll->udp_refused = refused[0];
	ll->inet_refused = refused[0] && refused[1];
}

int
linux_check_landlock(struct linux_launch *l, char *err, size_t errlen)
{
	struct ll_table_view t;
	struct ll_launch ll = {
		.getenv = host_getenv,
		.getenv_ctx = (void *)l->host_env,
		.cwd = l->launch_dir,
		.proxy_port = l->proxy ? l->proxy->port : 0,
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
		ll.mountns = ll.netns = true;
	seccomp_refuses_inet(l, &ll);
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

void
linux_forget_landlock(struct linux_launch *l)
{
	if (l->landlock_state) {
		ll_plan_free(l->landlock_state);
		free(l->landlock_state);
		l->landlock_state = NULL;
	}
}

int
linux_landlock_plan(struct linux_launch *l, struct ll_plan **out, struct ll_report *rep,
		    char *err, size_t errlen)
{
	struct ll_table_view t;
	struct ll_launch ll = {
		.getenv = host_getenv,
		.getenv_ctx = (void *)l->host_env,
		.cwd = l->launch_dir,
		.proxy_port = l->proxy ? l->proxy->port : 0,
		.workdir = l->workdir,
		.mountns = l->mountns,
		.netns = l->netns,
	};
	struct ll_plan *plan = l->landlock_state;
	int r;

	/* Without a mount namespace the read-only paths are Landlock rules
	 * of their own (l->hostrun's extras), which the parent's plan did
	 * not have. */
	if (!l->mountns && l->hostrun && l->hostrun->nextra) {
		ll.extra = l->hostrun->extra;
		ll.nextra = l->hostrun->nextra;
	}
	/* The parent's plan serves when it counted on the mount namespace
	 * the command really has and the working directory needs no
	 * carving; otherwise plan again, now with the working directory
	 * (without the namespaces, a right the kernel lacks that they would
	 * have held is a weakening, printed). */
	if (plan && !ll.nextra && plan->net_unhandled == ll.netns &&
	    (l->mountns || (!plan->nmounts && !plan->dg.held))) {
		r = ll_plan_add_workdir(plan, l->workdir, err, errlen);
		if (r == 0) {
			*out = plan;
			return 0;
		}
		if (r != -EAGAIN)
			return r;
	}
	if ((r = table_of(l, &t, err, errlen)) < 0)
		return r;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	/* Only when planning again: a launch that reuses the parent's plan
	 * runs no simulation in the command. */
	seccomp_refuses_inet(l, &ll);
	rep->weakenings_only = true;
	r = ll_plan_build(&t, &ll, l->probe->landlock_abi > 0 ? l->probe->landlock_abi : 0,
			  l->best_effort, plan, rep, err, errlen);
	if (r < 0)
		return r;
	*out = plan;
	return 0;
}

/* What descriptor `fd` lets its holder do, as Landlock rights on a
 * file: read and write as it was opened, truncate a regular file it may
 * write (ftruncate(2) on the descriptor could anyway), ioctl on a
 * device. 0: nothing to reopen (closed, O_PATH, a directory, a socket). */
static uint64_t
descriptor_rights(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	uint64_t a = 0;
	struct stat st;

	if (fl < 0 || (fl & O_PATH) || fstat(fd, &st) < 0 ||
	    !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
		return 0;
	if ((fl & O_ACCMODE) == O_RDONLY || (fl & O_ACCMODE) == O_RDWR)
		a |= LL_FS_READ_FILE;
	if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_ACCMODE) == O_RDWR)
		a |= LL_FS_WRITE_FILE | (S_ISREG(st.st_mode) ? LL_FS_TRUNCATE : 0);
	if (S_ISCHR(st.st_mode) && a)
		a |= LL_FS_IOCTL_DEV;
	return a;
}

/* The command's standard descriptors, reopened by name: `echo x >
 * /dev/stderr`, `tee /dev/stdout`, /proc/self/fd/N. The magic link leads
 * to the file itself (through the host's mount, as the launcher's
 * caller opened it), and Landlock checks that file: a terminal
 * (/dev/pts is not granted), a file outside the writable places. A rule
 * on the very inode, with the descriptor's own rights, makes reopening
 * work and grants nothing else: in the sandbox's view the same file by
 * its path stays on a read-only mount. /dev/tty is the controlling
 * terminal: granted only when one of the descriptors is that terminal
 * (the sandbox holds it already), with what those descriptors allow;
 * otherwise a program could write around captured output or read what
 * the user types to the program that launched it. */
static int
grant_inherited(struct ll_plan *plan, char *err, size_t errlen)
{
	static const char *const names[] = { "standard input", "standard output",
					     "standard error" };
	uint64_t tty = 0;
	struct stat st;
	int r, fd;

	for (int i = 0; i < 3; i++) {
		uint64_t a = descriptor_rights(i);

		if (!a)
			continue;
		if ((r = ll_plan_add_fd(plan, i, a, names[i], err, errlen)) < 0)
			return r;
		/* Only our controlling terminal answers TIOCGSID. */
		if (isatty(i) && tcgetsid(i) != (pid_t)-1)
			tty |= a;
	}
	if (!tty)
		return 0;
	fd = open("/dev/tty", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* The node itself (5, 0), not something else by that name. */
	r = 0;
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
	    minor(st.st_rdev) == 0)
		r = ll_plan_add_fd(plan, fd, tty, "the controlling terminal (/dev/tty)", err, errlen);
	close(fd);
	return r;
}

int
linux_landlock_enforce(struct linux_launch *l, struct ll_plan *plan, char *err, size_t errlen)
{
	int r;

	/* A rule names an inode: where a new file system was mounted since
	 * the plan was opened (the PID namespace's /proc, a tmpfs working
	 * directory), the old descriptor would grant the hidden one. */
	if (l->mountns && (r = ll_plan_reopen_under(plan, "/proc", err, errlen)) < 0)
		return r;
	if (l->mountns && l->fresh_workdir &&
	    (r = ll_plan_reopen_under(plan, l->workdir, err, errlen)) < 0)
		return r;
	/* Capture's resolv.conf (view_mount_resolv), where the link
	 * there, if it is one, leads. */
	if (l->mountns && l->proxy && l->proxy->capture) {
		char where[PATH_MAX];

		if (realpath("/etc/resolv.conf", where) &&
		    (r = ll_plan_reopen_under(plan, where, err, errlen)) < 0)
			return r;
	}
	/* The sandbox's own /dev/shm: written like the working directory,
	 * never run (a noexec mount too); the policy's rules there named
	 * the host's. */
	if (l->private_shm &&
	    (r = ll_plan_replace_mount(plan, VIEW_SHM, LL_WORKDIR_RIGHTS, "the sandbox's /dev/shm",
				       err, errlen)) < 0)
		return r;
	if ((r = grant_inherited(plan, err, errlen)) < 0)
		return r;
	/* Mounted by the command, after any plan: read and run, never write. */
	if (l->broker && l->broker->dir[0] &&
	    (r = ll_plan_add_dir(plan, l->broker->dir,
				 LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_EXECUTE,
				 "the host commands' directory", err, errlen)) < 0)
		return r;
	/* The plan is not freed: this process execs or exits next, and its
	 * descriptors are close-on-exec; closing hundreds of them one by one
	 * would only slow the launch. */
	return ll_plan_enforce(plan, err, errlen);
}

/* Whether the program answers a host command call (ioctl on descriptor
 * -1 with HEEL_IPC_IOCTL) with a user notification: asked of the program
 * itself, in the simulator. */
static bool
routes_host_commands(const struct art_bpf *prog)
{
	struct bpf_sim_data d = { .nr = __NR_ioctl, .arch = NATIVE_AUDIT_ARCH };
	struct bpf_sim_insn *insns = calloc(prog->len, sizeof(*insns));
	struct bpf_sim_result res;
	bool yes;

	if (!insns)
		return false;
	art_bpf_decode(prog, insns);
	d.args[0] = HEEL_IPC_IOCTL_FD;
	d.args[1] = HEEL_IPC_IOCTL;
	yes = bpf_sim_run(insns, prog->len, &d, &res) == 0 &&
	      (res.action & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
	free(insns);
	return yes;
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
	if (linux_broker_wanted(l->view) && !routes_host_commands(&prog)) {
		snprintf(err, errlen,
			 "the policy declares host commands, and its seccomp program does not pass "
			 "their calls to heel-broker (compiled by an older heelc? compile it again)");
		return -EINVAL;
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
int
linux_drop_capabilities(char *err, size_t errlen)
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

/* heel-exec's own refusal of inet sockets (seccomp_noinet.h), checked
 * as the artifact's programs are, then loaded: seccomp filters stack and
 * the strictest answer wins, so it only ever takes away. */
static int
load_inet_refusal(char *err, size_t errlen)
{
	struct bpf_sim_insn prog[NOINET_MAX_INSNS];
	struct sock_fprog fprog = { .filter = (struct sock_filter *)prog };
	char msg[BPF_VERIFY_MSG_MAX];

	fprog.len = (unsigned short)noinet_program(NATIVE_AUDIT_ARCH, prog);
	if (bpf_verify(prog, fprog.len, NATIVE_AUDIT_ARCH, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "the refusal of inet sockets: %s", msg);
		return -EINVAL;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
		int e = errno;

		snprintf(err, errlen, "loading the refusal of inet sockets: %s", strerror(e));
		return -e;
	}
	return 0;
}

int
linux_load_seccomp(struct linux_launch *l, int *listener, char *err, size_t errlen)
{
	unsigned flags = l->broker ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	struct sock_fprog fprog;
	struct sock_filter *insns;
	struct art_bpf prog;
	long r;

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
	*listener = -1;
	if (stacks_inet_refusal(l, l->netns) && (r = load_inet_refusal(err, errlen)) < 0) {
		free(insns);
		return (int)r;
	}
	if ((r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog)) < 0) {
		int e = errno;

		/* Only one filter of a process's stack may have a listener. */
		if (e == EBUSY && flags)
			snprintf(err, errlen,
				 "loading the filter: host commands need a seccomp listener, and "
				 "this process runs under one already (a sandbox of heel with host "
				 "commands, or a container engine's supervisor)");
		else
			snprintf(err, errlen, "loading the filter: %s", strerror(e));
		free(insns);
		return -e;
	}
	free(insns);
	if (flags)
		*listener = (int)r;
	return 0;
}

#endif

/* SPDX-License-Identifier: MIT
 * heel-exec on Linux: the launch and the life of the process tree; see
 * linux.h. The parent stays outside the sandbox and outlives everything
 * in it; the child sets itself up in command_main, one step a call with
 * its reason beside it, and execs. */
#include "linux.h"
#include "linux_observe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "env.h"
#include "errmsg.h"
#include "landlock_apply.h"
#include "execpath.h"
#include "linux_execwhy.h"
#include "launch_timing.h"
#include "linux_hostenv.h"
#include "linux_idmap.h"
#include "linux_net.h"
#include "linux_broker.h"
#include "linux_why.h"
#include "linux_proxy.h"
#include "linux_view.h"
#include "linux_cgroup.h"
#include "netrefused.h"
#include "proctree.h"
#include "write_once.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ---------------------------------------------------------------- probe */

/* Every sandbox gets these (and a user namespace when not run as root):
 * PID (the tree, and a /proc of its own), mount (the view of the file
 * system), IPC (SysV objects and POSIX queues of its own, gone with it),
 * network (loopback only: the host's sockets, /proc/net and abstract
 * unix sockets out of reach). */
#define SANDBOX_NAMESPACES (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET)

/* What a launch without them gives up: one sentence for a weakening's
 * note (SEP "; "), a list for the refusal (SEP a new line and a dash). */
#define NO_NAMESPACES_LIST(SEP, AND) \
	"everything outside the writable places stays writable for chmod, chown, utimes, " \
	"xattrs and inode flags" SEP "writable places are not noexec mounts (a written file " \
	"can be run through the dynamic loader), nor is shared temp" SEP "the working " \
	"directory is on disk where other processes of the user can read it" SEP "SysV IPC, " \
	"POSIX message queues, abstract unix sockets and /proc/net are the host's" SEP \
	"the host's processes are visible in /proc" SEP "as root, files under /etc that " \
	"their mode keeps from other users are readable unless a deny names them" SEP AND \
	"the tree is tracked by process group and subreaper only"
#define NO_NAMESPACES_WEAKENING NO_NAMESPACES_LIST("; ", "and ")

/* Waits for a throw-away child: 0 when it exited 0, else -its status. */
static int
reap(pid_t pid)
{
	int status;

	if (pid < 0)
		return -errno;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

static pid_t clone_fork(int flags);
static int write_id_maps(pid_t pid, char *msg, size_t msglen);

/* Makes the namespaces as a launch makes them, in a throw-away child:
 * clone, then (as a user) the id maps written from outside; the child,
 * PID 1 of the new PID namespace, makes its mounts private and mounts a
 * /proc of its own. Each is a step a host can refuse: a container's
 * seccomp filter the clone, Ubuntu's user-namespace restriction the id
 * maps or the mounts, an AppArmor profile any mount, a container's masked
 * /proc the /proc of a user namespace. */
static void
try_namespaces(struct linux_probe *p)
{
	int flags = SANDBOX_NAMESPACES | (geteuid() != 0 ? CLONE_NEWUSER : 0);
	int go[2], res[2], r = 0;
	struct {
		int step, err, view;
	} out = { HE_STEP_PROC, ECHILD, 0 };
	char scratch[128];
	pid_t pid;

	p->userns = p->proc = p->view = 0;
	p->ns_step = -1;
	if (pipe2(go, O_CLOEXEC) < 0) {
		p->userns = -errno;
		return;
	}
	if (pipe2(res, O_CLOEXEC) < 0) {
		p->userns = -errno;
		close(go[0]);
		close(go[1]);
		return;
	}
	pid = clone_fork(flags);
	if (pid == 0) {
		char c;

		close(go[1]);
		close(res[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			out.step = HE_STEP_MOUNT, out.err = errno;
		else if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			out.step = HE_STEP_PROC, out.err = errno;
		else
			out.step = -1, out.err = 0;
		/* The read-only view needs mount_setattr (Linux 5.12). */
		if (out.step != HE_STEP_MOUNT)
			out.view = view_make_readonly(scratch, sizeof(scratch));
		(void)!write(res[1], &out, sizeof(out));
		_exit(0);
	}
	if (pid < 0) {
		p->userns = -errno;
		p->ns_step = HE_STEP_CLONE;
	}
	close(go[0]);
	close(res[1]);
	if (pid > 0 && (flags & CLONE_NEWUSER) &&
	    (r = write_id_maps(pid, scratch, sizeof(scratch))) < 0) {
		p->userns = r;
		p->ns_step = HE_STEP_IDMAP;
	}
	/* A child without its go byte exits at once. */
	if (pid > 0 && r == 0 && write(go[1], "g", 1) != 1)
		p->userns = -errno;
	close(go[1]);
	if (pid > 0) {
		reap(pid);
		if (p->userns == 0 && read(res[0], &out, sizeof(out)) != (ssize_t)sizeof(out))
			out.step = HE_STEP_PROC, out.err = ECHILD;
		if (p->userns == 0 && out.err) {
			p->proc = -out.err;
			p->ns_step = out.step;
		}
		if (p->userns == 0)
			p->view = out.view;
	}
	close(res[0]);
}

int
linux_probe_namespace(int flag)
{
	/* A user needs the user namespace first, in the same clone, as a
	 * launch makes them; root makes none. */
	int flags = flag | (geteuid() != 0 ? CLONE_NEWUSER : 0);
	pid_t pid = clone_fork(flags);

	if (pid == 0)
		_exit(0);
	return reap(pid);
}

void
linux_probe(struct linux_probe *p, bool try_ns)
{
	long r;

	p->landlock_abi = ll_probe_abi();
	r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	p->seccomp = r < 0 ? -errno : 0;
	p->seccomp_mode = r < 0 ? 0 : (int)r;
	p->userns = p->proc = p->view = 1;
	p->ns_step = -1;
	if (try_ns)
		try_namespaces(p);
}

/* Appends to msg what kind of host refused `step` with errno e, and the
 * way out, where linux_hostenv knows; only ever on a failure, so a
 * launch that works reads nothing of the host. */
static void
explain_host(enum he_step step, int e, char *msg, size_t msglen)
{
	struct hostenv h;

	hostenv_observe(&h, "");
	hostenv_explain(&h, step, e, msg, msglen);
}

/* ---------------------------------------------------- enforcement hooks
 * HEEL_TEST_NO_ENFORCE exists only for tests/launcher (the binary
 * build/tests/heel-exec-noenforce), which exercise the process life cycle
 * without the kernel's enforcement; the Makefile never passes it to
 * build/bin/heel-exec. */

#ifdef HEEL_TEST_NO_ENFORCE
#warning "HEEL_TEST_NO_ENFORCE: this heel-exec enforces NO Landlock, NO seccomp, NO read-only view"
/* The namespaces stay (their life cycle is what the test build tests);
 * the read-only view of the file system goes with the rest. */
#define ENFORCE_VIEW false

int
linux_check_landlock(struct linux_launch *l, char *err, size_t errlen)
{
	l->note("TEST BUILD: Landlock and seccomp are NOT enforced");
	return 0;
}

void
linux_forget_landlock(struct linux_launch *l)
{
	l->landlock_state = NULL;
}

int
linux_landlock_plan(struct linux_launch *l, struct ll_plan **plan, struct ll_report *rep,
		    char *err, size_t errlen)
{
	*plan = NULL;
	return 0;
}

int
linux_landlock_enforce(struct linux_launch *l, struct ll_plan *plan, char *err, size_t errlen)
{
	return 0;
}

int
linux_check_seccomp(struct linux_launch *l, char *err, size_t errlen)
{
	return 0;
}

int
linux_drop_capabilities(char *err, size_t errlen)
{
	return 0;
}

int
linux_load_seccomp(struct linux_launch *l, int *listener, char *err, size_t errlen)
{
	*listener = -1;
	return 0;
}

/* The real hooks are in linux_enforce.c. */
#else
#define ENFORCE_VIEW true
#endif

/* -------------------------------------------------------------- reports
 * The child tells the parent how it ended through a close-on-exec pipe:
 * nothing arrives when execve succeeded, a record when a setup step or
 * the exec failed, and the PID-namespace init adds the command's wait
 * status. Each record is one write() below PIPE_BUF, so records never
 * interleave. */

enum report_kind { REP_SETUP = 1, REP_EXEC, REP_STATUS, REP_NET };

struct report {
	int kind;
	int err;    /* errno, for REP_SETUP and REP_EXEC */
	int status; /* REP_STATUS: the command's wait status */
	/* REP_NET: attempts to reach beyond the sandbox's loopback under
	 * network deny, IPv4 and IPv6 (netrefused.h), in msg as "V4 V6" */
	char msg[1012]; /* the record stays below PIPE_BUF (4096) */
};

static void
report(int fd, int kind, int err, int status, const char *fmt, ...)
{
	struct report r = { .kind = kind, .err = err, .status = status };
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(r.msg, sizeof(r.msg), fmt, ap);
		va_end(ap);
	}
	(void)!write(fd, &r, sizeof(r));
}

/* REP_EXEC: the errno, and in msg the file whose exec failed and a
 * later match on PATH, each NUL-terminated, for the parent to explain
 * (a path too long for the record is left out: the message then names
 * the command only). */
static void
report_exec(int fd, int err, const struct execpath_miss *m)
{
	struct report r = { .kind = REP_EXEC, .err = err };
	size_t a = strlen(m->tried), b = strlen(m->later);

	if (a + 1 + b + 1 <= sizeof(r.msg)) {
		memcpy(r.msg, m->tried, a + 1);
		memcpy(r.msg + a + 1, m->later, b + 1);
	}
	(void)!write(fd, &r, sizeof(r));
}

/* Exit status for a wait status, as a shell reports it. */
static int
exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

/* Overwrites our copy of the launcher's environment once nothing needs
 * it: /proc/<pid>/environ shows those bytes for as long as a process
 * lives, and a sandbox running as root (or a same-uid one, were we
 * dumpable) could read the tokens in them (an escape peers have had:
 * reading the launcher's /proc/<pid>/environ). */
static void
wipe_environ(void)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
}

/* A Landlock rule is added through a descriptor, and the plan holds one
 * for every grant (and every directory a deny is carved out of) until
 * the command enforces it; a carve-out's siblings are opened only then,
 * one at a time. A policy of many grants could still pass a soft limit
 * of 1024 (a login's usual), so the launcher plans under the hard limit,
 * and the command gets the caller's limit back right after Landlock is
 * enforced: it never sees the raised one. */
void
linux_raise_nofile(struct linux_launch *l)
{
	struct rlimit raised;

	l->nofile_raised = false;
	if (getrlimit(RLIMIT_NOFILE, &l->caller_nofile) < 0 ||
	    l->caller_nofile.rlim_cur >= l->caller_nofile.rlim_max)
		return;
	raised = l->caller_nofile;
	raised.rlim_cur = raised.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
		l->nofile_raised = true;
}

/* The caller's open-files limit, for the command. Lowering it below the
 * descriptors still open is allowed: they are close-on-exec. */
static int
restore_nofile(const struct linux_launch *l, char *err, size_t errlen)
{
	if (!l->nofile_raised || setrlimit(RLIMIT_NOFILE, &l->caller_nofile) == 0)
		return 0;
	snprintf(err, errlen, "restoring the open-files limit: %s", strerror(errno));
	return -errno;
}

/* ---------------------------------------------------------------- child */

/* Marks every descriptor above 2 close-on-exec rather than closing it,
 * so the report pipe still works if execve fails; execve then closes
 * them all at once: nothing the launcher opened reaches the command. */
static int
close_inherited(int max_fd, char *err, size_t errlen)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	/* Before 5.11, or a seccomp filter that refuses close_range. */
	for (int fd = 3; fd < max_fd; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF) {
			snprintf(err, errlen, "closing inherited descriptors: %s", strerror(errno));
			return -errno;
		}
	return 0;
}

static int
apply_limits(const struct lim_plan *limits, char *err, size_t errlen)
{
	int r, step = 0;

	if ((r = lim_apply(limits, &step)) < 0)
		snprintf(err, errlen, "%s %s: %s", step < ART_LIMIT_COUNT ? "limit" : "set",
			 lim_step_name(step), strerror(-r));
	return r;
}

static int
enter_workdir(const char *workdir, char *err, size_t errlen)
{
	if (chdir(workdir) == 0)
		return 0;
	snprintf(err, errlen, "chdir %s: %s", workdir, strerror(errno));
	return -errno;
}

/* --cwd: where the command starts, entered as the sandbox will be: with
 * Landlock enforced and no capability left (a covered path is mode 000,
 * which root would otherwise pass). Landlock has no right for chdir
 * itself, so the directory is opened as well: one whose entries the
 * sandbox may not read is refused too, rather than starting the
 * command somewhere it cannot see. */
static int
enter_start_dir(const char *dir, char *err, size_t errlen)
{
	int fd, e;

	if (!dir)
		return 0;
	if (chdir(dir) < 0 || (fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		e = errno;
		snprintf(err, errlen, "--cwd %s: the sandbox cannot enter it: %s", dir, strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

static int
set_no_new_privs(char *err, size_t errlen)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		return 0;
	snprintf(err, errlen, "no_new_privs: %s", strerror(errno));
	return -errno;
}

/* A step of the child's setup failed: tell the parent, never run. */
static void
check_step(int rep, int r, const char *err)
{
	if (r >= 0)
		return;
	report(rep, REP_SETUP, -r, 0, "%s", err[0] ? err : strerror(-r));
	_exit(125);
}

/* A weakening found in the child, printed at once on the stderr the
 * launcher and the command share, as the launcher prints its own: not
 * after the command ends, which for a long run would be too late. */
static void
weakened(const char *what)
{
	dprintf(STDERR_FILENO, "heel-exec: weakened: %s\n", what);
}

/* A step that --best-effort may skip: refused without it, a weakening
 * the parent prints with it. */
static void
check_weakening(const struct linux_launch *l, int rep, int r, const char *err)
{
	if (r >= 0)
		return;
	if (!l->best_effort) {
		report(rep, REP_SETUP, -r, 0, "%s; --best-effort accepts that", err);
		_exit(125);
	}
	weakened(err);
}

/* The command's side, from the launcher's process to the sandboxed one,
 * top to bottom. In the namespaces (l->mountns), the view of the file
 * system comes first, since Landlock forbids mount changes once
 * enforced; then the confinement, narrowest last; then execve. Never
 * returns. */
static void __attribute__((noreturn))
command_main(struct linux_launch *l, int rep, int max_fd)
{
	char err[sizeof(((struct report *)0)->msg)] = "";
	struct ll_plan *plan = NULL;
	struct ll_report llrep = { 0 };
	struct view view = { 0 };
	struct execpath_miss miss;
	const char *path;
	int r, scratch = 0, wdfd = -1, listener = -1;
	bool hide_by_scan;

	/* Only the launcher and the init wait for signals; the command gets
	 * the mask heel-exec was started with. */
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
	launch_mark("command process running (fork)");

	/* The Landlock rules of this launch, opened on the host's view:
	 * which places are writable decides the mounts below. */
	check_step(rep, linux_landlock_plan(l, &plan, &llrep, err, sizeof(err)), err);
	for (size_t i = 0; i < llrep.nlines; i++)
		if (llrep.lines[i].kind == LL_LINE_WEAKENING)
			weakened(llrep.lines[i].text);
	if (l->mountns) {
		/* Nothing mounted here may propagate back to the host. The
		 * first mount: where a host refuses mounts, it says so here. */
		if ((r = view_make_private(err, sizeof(err))) < 0)
			explain_host(HE_STEP_MOUNT, -r, err, sizeof(err));
		check_step(rep, r, err);
		launch_mark("view: private");
		/* Loopback only: /proc/net and abstract sockets are ours. */
		check_step(rep, net_loopback_up(err, sizeof(err)), err);
		launch_mark("view: loopback");
		/* The IPC namespace's queues, where the host shows its own. */
		check_step(rep, view_mount_mqueue(err, sizeof(err)), err);
		launch_mark("view: mqueue");
	}
	/* The host commands' names live in a file system of the view. */
	if (l->broker && !l->mountns)
		check_step(rep, -EOPNOTSUPP,
			   "the policy's host commands need the sandbox's mount namespace, which "
			   "this launch does not have");
	if (l->mountns && ENFORCE_VIEW) {
		/* Which places are writable, with the host's mount flags. */
		check_step(rep, view_plan(&view, plan, l->workdir, l->fresh_workdir,
					  l->workdir_bytes, err, sizeof(err)), err);
		/* The files the host runs, inside those places: read-only. */
		if (l->hostrun)
			check_step(rep, view_add_readonly(&view, l->hostrun, err, sizeof(err)), err);
		/* Metadata writes (chmod, chown, xattrs...) need a writable mount. */
		check_step(rep, view_make_readonly(err, sizeof(err)), err);
		launch_mark("view: read-only remount");
		/* What only root may read under /etc: the kernel keeps it
		 * from us through a copy of /etc that nobody owns, mounted
		 * before the places (a place beneath it would be cut from
		 * the idmapped copy); else a cover each, found by a scan. */
		hide_by_scan = l->hide_root_only;
		if (l->etc_tree >= 0 && !view_places_touch(&view, "/etc")) {
			check_step(rep, idmap_attach(l->etc_tree, "/etc", err, sizeof(err)), err);
			hide_by_scan = false;
		}
		launch_mark("view: /etc idmapped");
		/* The workdir and writable grants: writable, nosuid, nodev, noexec. */
		check_step(rep, view_mount_places(&view, err, sizeof(err)), err);
		launch_mark("view: writable places, shared temp");
		/* Capture's name server: names the sandbox resolves get the
		 * addresses that stand for them (linux_net.h). Over TCP
		 * (use-vc): the policy's seccomp program refuses UDP sockets
		 * to the sandbox, DNS's too. */
		if (l->proxy && l->proxy->capture)
			check_step(rep, view_mount_resolv("nameserver " PROXYCTL_CAP_DNS4 "\n"
							  "options use-vc timeout:2 attempts:2\n",
							  err, sizeof(err)), err);
		/* The host commands: names on PATH the sandbox runs, never writes. */
		if (l->broker)
			check_step(rep, view_mount_commands(l->broker->dir, l->broker->client,
							    l->broker->names, l->broker->nnames,
							    err, sizeof(err)), err);
		/* Denied paths; their scratch file system stays under /proc. */
		check_step(rep, scratch = view_mount_covers(plan, hide_by_scan, view.private_shm,
							    err, sizeof(err)),
			   err);
		l->private_shm = view.private_shm;
		launch_mark("view: covers");
	}
	if (l->mountns) {
		/* The host's processes drop out of /proc. Last, over the covers'
		 * scratch: detaching that instead would wait for an RCU grace
		 * period (milliseconds). */
		r = view_mount_proc(ENFORCE_VIEW, err, sizeof(err));
		if (r < 0 && scratch > 0)
			view_unmount_scratch();
		/* After the scratch is gone: the host's masks are what is
		 * left beneath /proc. */
		if (r < 0)
			explain_host(HE_STEP_PROC, -r, err, sizeof(err));
		check_weakening(l, rep, r, err);
		launch_mark("view: /proc");
	}
	/* After the mounts, so that the cwd is the mount, not what is under it. */
	check_step(rep, enter_workdir(l->workdir, err, sizeof(err)), err);
	/* landlock_restrict_self and seccomp refuse a caller without it, and
	 * a setuid binary must not run with more rights than we had. */
	check_step(rep, set_no_new_privs(err, sizeof(err)), err);
	check_step(rep, linux_landlock_enforce(l, plan, err, sizeof(err)), err);
	launch_mark("Landlock ruleset enforced");
	/* After Landlock, which needed the rule descriptors; before the
	 * policy's limits, which may lower it further. */
	check_step(rep, restore_nofile(l, err, sizeof(err)), err);
	/* After Landlock: `limit open-files` below the number of rule
	 * descriptors the plan holds would otherwise fail the launch. */
	check_step(rep, apply_limits(l->limits, err, sizeof(err)), err);
	/* Mounts are done: root's capabilities go, bounding set included. */
	check_step(rep, linux_drop_capabilities(err, sizeof(err)), err);
	check_step(rep, enter_start_dir(l->start_dir, err, sizeof(err)), err);
	/* heel-broker runs host commands in the caller's directory, found
	 * beneath this one, in our mount namespace. */
	if (l->broker && (wdfd = open(l->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = -errno;
		snprintf(err, sizeof(err), "heel-broker's working directory %s: %s", l->workdir,
			 strerror(-r));
		check_step(rep, r, err);
	}
	check_step(rep, linux_load_seccomp(l, &listener, err, sizeof(err)), err);
	/* Calls reach heel-broker through the filter's listener: nothing in
	 * the file system, no port. */
	if (l->broker)
		check_step(rep, linux_broker_hand_over(l->broker, listener, wdfd, err, sizeof(err)),
			   err);
	/* --why: one more filter, after the policy's, whose listener only
	 * watches (linux_why.h); the exec below is the first call it sees. */
	if (l->why && !l->why->kernel)
		check_step(rep, linux_why_watch(l->why, err, sizeof(err)), err);
	check_step(rep, close_inherited(max_fd, err, sizeof(err)), err);
	launch_mark("capabilities dropped, seccomp loaded");
	/* The sandbox's PATH, not ours: the command is looked up as the
	 * sandbox sees the file system. */
	path = envb_lookup(l->envp, "PATH");
	r = execpath_exec(l->file, l->argv, l->envp, path, &miss);
	report_exec(rep, -r, &miss);
	_exit(execpath_status(r));
}

/* fork() into new namespaces: with CLONE_NEWPID the child is PID 1 of the
 * new namespace at once, where unshare() would need one more process.
 * Raw clone with no stack behaves as fork (glibc >= 2.34 asks the kernel
 * for the thread id in raise(), so the stale cached tid is harmless; the
 * launcher has one thread and no atfork handlers). */
static pid_t
clone_fork(int flags)
{
	if (!flags)
		return fork();
	return (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL,
			      NULL, NULL);
}

/* The init: the launcher's child and the command's parent. In a new PID
 * namespace it is PID 1 there (never the command itself: PID 1 ignores
 * every signal it has no handler for, and must reap orphans), and its
 * exit makes the kernel SIGKILL everything left in the namespace, which
 * is also what happens when the launcher is SIGKILLed (PDEATHSIG). Without
 * namespaces it is a subreaper that kills what is left of the tree itself,
 * also when the launcher dies: so a SIGKILLed heel-exec leaves no process
 * behind either way. It starts the command, forwards signals, reaps, and
 * exits with the command's status. Never returns. */
static void __attribute__((noreturn))
init_main(struct linux_launch *l, int flags, pid_t parent, int go, int rep, int jc,
	  int max_fd)
{
	bool pidns = flags & CLONE_NEWPID;
	int status;
	sigset_t term;
	pid_t cmd;
	char c;

	/* The terminal's stop signals reach the whole foreground group, us
	 * included: stopped, we could not tell the launcher that the
	 * command stopped (as PID 1 of a namespace the kernel ignores them
	 * for us anyway). The command gets the launcher's mask back. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGTSTP);
	sigaddset(&term, SIGTTIN);
	sigaddset(&term, SIGTTOU);
	sigprocmask(SIG_BLOCK, &term, NULL);
	setpgid(0, 0);
	/* In a new PID namespace getppid() is 0 whoever the parent is: the
	 * go byte below is what proves the launcher was alive after the
	 * request (a dead launcher closes the pipe without writing). */
	launch_mark("init running (clone, namespaces)");
	if (pt_die_with_parent(pidns ? 0 : parent, pidns ? SIGKILL : SIGTERM) < 0)
		_exit(125);
	if (read(go, &c, 1) != 1)
		_exit(125);
	close(go);
	/* heel-proxy's socket, made in our network namespace; the command
	 * starts only once the proxy serves it. */
	if (l->proxy) {
		char err[sizeof(((struct report *)0)->msg)] = "";

		if (linux_proxy_hand_over(l->proxy, err, sizeof(err)) < 0) {
			report(rep, REP_SETUP, 0, 0, "%s", err);
			_exit(125);
		}
		close(l->proxy->h.ctl);
		if (l->proxy->h.pidfd >= 0)
			close(l->proxy->h.pidfd);
	}

	/* Our memory is the launcher's: keep same-uid processes, the
	 * command included, out of our /proc/<pid>/{mem,environ}. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!pidns && pt_become_subreaper() < 0) {
		report(rep, REP_SETUP, errno, 0, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
		_exit(125);
	}
	cmd = fork();
	if (cmd < 0) {
		report(rep, REP_SETUP, errno, 0, "fork: %s", strerror(errno));
		_exit(125);
	}
	if (cmd == 0)
		command_main(l, rep, max_fd);
	/* The command holds heel-exec's end of heel-broker's control socket
	 * until it execs; we need none of it. */
	if (l->broker) {
		close(l->broker->h.ctl);
		if (l->broker->h.pidfd >= 0)
			close(l->broker->h.pidfd);
	}
	if (l->why) {
		close(l->why->h.ctl);
		if (l->why->h.pidfd >= 0)
			close(l->why->h.pidfd);
	}
	if (l->etc_tree >= 0)
		close(l->etc_tree);
	wipe_environ();
	/* Forward to the whole sandbox, as a terminal would to a job: a
	 * shell waiting for its child ignores SIGINT unless the child got
	 * it too. kill(-1) from PID 1 reaches its namespace only. */
	if (pt_init_wait_jobs(cmd, &l->fwd, pidns ? -1 : -getpgrp(), pidns ? 0 : parent, jc,
			      &status) < 0) {
		pt_kill_tree(0);
		_exit(125);
	}
	/* Under network deny, in the sandbox's own network namespace: what
	 * it tried to reach beyond it, for heel-exec to explain once. The
	 * kernel counted it; reading costs the launch nothing before now. */
	if ((flags & CLONE_NEWNET) && !l->proxy) {
		uint64_t v4, v6;

		if (netrefused_read(&v4, &v6) == 0 && (v4 || v6))
			report(rep, REP_NET, 0, 0, "%llu %llu", (unsigned long long)v4,
			       (unsigned long long)v6);
	}
	report(rep, REP_STATUS, 0, status, NULL);
	/* Not the group: we are in it. Everything in it descends from us,
	 * so the sweep of our descendants finds it all. */
	if (!pidns)
		pt_kill_tree(0);
	_exit(exit_code(status));
}

/* ---------------------------------------------------------------- parent */

static int
write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return write_once(path, text);
}

/* Maps our own uid and gid to themselves in the child's user namespace:
 * the command sees the ids it would see outside, and (not being uid 0
 * there) loses every capability the namespace gave it at execve. */
static int
write_id_maps(pid_t pid, char *msg, size_t msglen)
{
	char map[64];
	int r;

	/* Required before gid_map for an unprivileged writer; it also stops
	 * dropping a supplementary group to get past a deny-by-group. */
	if ((r = write_file(pid, "setgroups", "deny")) < 0 && r != -ENOENT)
		goto fail;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	if ((r = write_file(pid, "uid_map", map)) < 0)
		goto fail;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	if ((r = write_file(pid, "gid_map", map)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(msg, msglen, "user namespace id maps: %s", strerror(-r));
	return r;
}

/* Runs tcsetpgrp from what may be a background process group, which
 * would otherwise stop us with SIGTTOU. */
static void
set_foreground(int fd, pid_t pgrp)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetpgrp(fd, pgrp);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The sandbox as a job of the shell that started us. */
struct job {
	pid_t group;  /* the sandbox's process group (the init's pid) */
	bool *tty;    /* linux_run's flag: we gave the sandbox our terminal,
		       * and take it back at the end */
};

/* The command stopped (Ctrl-Z stops the terminal's foreground group, which
 * is the sandbox's, or it read the terminal from the background): stop
 * as any job does, so that the shell sees its job stopped, takes the
 * terminal and prints its prompt; the same signal, so it says why
 * ("Stopped", "Stopped (tty input)"). When continued (fg, bg), continue
 * the sandbox, handing it the terminal only if the shell made us the
 * foreground again (fg). Where a terminal stop signal cannot stop us (an
 * orphaned process group), raise returns at once and the sandbox just
 * goes on. */
static void
job_stopped(int sig, void *ctx)
{
	struct job *j = ctx;
	int stop = sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU ? sig : SIGSTOP;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, saved;
	sigset_t one, old;

	/* Only a job of a shell with job control, on our terminal, has
	 * someone to continue it: elsewhere (no terminal, as in CI) a
	 * stopped command stays stopped, as any process does, and we go on
	 * waiting for it rather than stop where nobody will continue us. */
	if (!isatty(STDIN_FILENO) || tcgetsid(STDIN_FILENO) != getsid(0))
		return;
	/* Back to our group, which the shell takes it from once we stop;
	 * after `bg` it is the shell's, and not ours to give back at the end. */
	if (*j->tty) {
		set_foreground(STDIN_FILENO, getpgrp());
		*j->tty = false;
	}
	if (stop != SIGSTOP)
		sigaction(stop, &dfl, &saved);
	sigemptyset(&one);
	sigaddset(&one, stop);
	sigprocmask(SIG_UNBLOCK, &one, &old);
	raise(stop);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (stop != SIGSTOP)
		sigaction(stop, &saved, NULL);
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
		set_foreground(STDIN_FILENO, j->group);
		*j->tty = true;
	}
	/* What the terminal stopped: the sandbox's group. */
	kill(-j->group, SIGCONT);
}

void
linux_block_signals(struct linux_launch *l)
{
	sigset_t set;

	pt_forward_set(&l->fwd);
	set = l->fwd;
	sigaddset(&set, SIGCHLD);
	/* The job-control pipe's wake-up (see job_stopped); its default
	 * action would end us. */
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, &l->old_mask);
}

/* Reads every record the children left and turns them into heel-exec's
 * exit status; `status` is the first child's own wait status, *cmd the
 * command's. */
static int
collect(struct linux_launch *l, int rep, int status, int *cmd, char *const *why_env, char *msg,
	size_t msglen)
{
	struct report r, setup = { 0 }, exec = { 0 };
	int cmd_status = status;

	while (read(rep, &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		r.msg[sizeof(r.msg) - 1] = '\0';
		if (r.kind == REP_SETUP && !setup.kind)
			setup = r;
		else if (r.kind == REP_EXEC && !exec.kind)
			exec = r;
		else if (r.kind == REP_STATUS)
			cmd_status = r.status; /* the init's, more precise than its exit */
		else if (r.kind == REP_NET)
			sscanf(r.msg, "%llu %llu", &l->net_refused[0], &l->net_refused[1]);
	}
	*cmd = cmd_status;
	if (setup.kind) {
		snprintf(msg, msglen, "%s", setup.msg);
		return 125;
	}
	if (exec.kind) {
		/* The file the search stopped at, and a later one on PATH;
		 * named when the search found it (argv[0] names no path). */
		const char *tried = exec.msg, *later = exec.msg + strlen(exec.msg) + 1;
		struct xw_launch xl = { .view = l->view, .env = why_env, .cwd = l->launch_dir,
					.workdir = l->workdir, .start_dir = l->start_dir };

		if (later >= exec.msg + sizeof(exec.msg))
			later = "";
		if (exec.err == ENOENT && !strchr(l->argv[0], '/'))
			snprintf(msg, msglen, "%s: command not found", l->argv[0]);
		else if (tried[0] && !strchr(l->argv[0], '/'))
			snprintf(msg, msglen, "%s: %s: %s", l->argv[0], tried, strerror(exec.err));
		else
			snprintf(msg, msglen, "%s: %s", l->argv[0], strerror(exec.err));
		xw_explain(&xl, tried, later, exec.err, msg, msglen);
		return execpath_status(exec.err);
	}
	if (l->verbose) {
		if (WIFSIGNALED(cmd_status))
			l->note("%s: killed by signal %d (%s)", l->argv[0],
				WTERMSIG(cmd_status), strsignal(WTERMSIG(cmd_status)));
		else if (WIFEXITED(cmd_status))
			l->note("%s: exited with %d", l->argv[0], WEXITSTATUS(cmd_status));
	}
	return exit_code(cmd_status);
}

/* "limit cpu 2s (--max-cpu-time 2)": the limit as the policy says it,
 * and what set it (an option of heel run, or FILE:LINE). */
static const char *
limit_said(const struct linux_launch *l, int i, char *buf, size_t len)
{
	struct art_scalar s;
	char text[64], at[PATH_MAX];

	lim_text(i, l->limits->rl[i].asked, text, sizeof(text));
	if (art_scalar(l->view, ART_LINUX, ART_SC_LIMIT_FIRST + (unsigned)i, &s) == 0 &&
	    s.origin.file && s.origin.file[0] != '<')
		snprintf(buf, len, "%s (%s)", text,
			 rt_origin(at, sizeof(at), s.origin.file, s.origin.line));
	else
		snprintf(buf, len, "%s", text);
	return buf;
}

/* A kill the policy's limits made, named (heel(5), LIMITS): the kernel
 * only says "killed by signal 9". The tree's cgroup counts its OOM kills;
 * RLIMIT_CPU ends a process with SIGKILL (soft = hard) once it has used
 * the limit, which the CPU time the tree's reaped processes used (cpu_us)
 * shows; RLIMIT_FSIZE with SIGXFSZ. `forwarded`: heel-exec passed a
 * signal on to the sandbox (a SIGKILL may be the user's then). Into msg,
 * left empty otherwise. */
static void
explain_limit_kill(const struct linux_launch *l, int cmd_status, uint64_t cpu_us, bool forwarded,
		   char *msg, size_t msglen)
{
	/* The command's own death, or a shell's exit status that reports a
	 * child's (128 + N): then "a process of the sandbox". */
	bool own = WIFSIGNALED(cmd_status);
	int sig = own ? WTERMSIG(cmd_status)
		  : WIFEXITED(cmd_status) && WEXITSTATUS(cmd_status) > 128 ? WEXITSTATUS(cmd_status) - 128
									   : 0;
	const char *who = own ? l->argv[0] : "a process of the sandbox";
	const struct lim_plan *p = l->limits;
	uint64_t ooms = linux_cgroup_oom_kills(l->cgroup);
	char lim[PATH_MAX + 128];

	if (!p)
		return;
	if (ooms && p->rl[0].set)
		snprintf(msg, msglen,
			 "%s: the sandbox's processes went past it, and the kernel killed %llu "
			 "of them (out of memory)%s",
			 limit_said(l, 0, lim, sizeof(lim)), (unsigned long long)ooms,
			 sig == SIGKILL ? ", the command among them" : "");
	/* The kernel checks the limit against raw tick samples, which on a
	 * loaded or virtual machine run well ahead of the time rusage
	 * reports (2 s of ticks for 1.7 s reported, measured here): half the
	 * limit used, and a SIGKILL nobody forwarded, is the limit's. */
	else if ((sig == SIGKILL || sig == SIGXCPU) && p->rl[1].set && !forwarded &&
		 cpu_us * 2 >= (uint64_t)p->rl[1].value * 1000000)
		snprintf(msg, msglen,
			 "%s: %s reached it and the kernel killed it (%s; its CPU time as reported: "
			 "%llu.%02llu s)",
			 limit_said(l, 1, lim, sizeof(lim)), who,
			 sig == SIGKILL ? "SIGKILL" : "SIGXCPU", (unsigned long long)(cpu_us / 1000000),
			 (unsigned long long)(cpu_us % 1000000 / 10000));
	else if (sig == SIGXFSZ && p->rl[4].set)
		snprintf(msg, msglen, "%s: %s wrote a file past it and the kernel killed it (SIGXFSZ)",
			 limit_said(l, 4, lim, sizeof(lim)), who);
}

/* A fork the process limit refused fails with EAGAIN, which programs
 * report as "Resource temporarily unavailable" and never as a limit:
 * said at exit, with the limit and what set it (the cgroup counts them). */
static void
note_pids_refused(const struct linux_launch *l)
{
	uint64_t n = linux_cgroup_pids_refused(l->cgroup);
	char lim[PATH_MAX + 128];

	if (!n || !l->limits || !l->limits->rl[2].set)
		return;
	l->note("%s: the sandbox was refused %llu new process%s at it (fork and clone failed "
		"with EAGAIN, \"Resource temporarily unavailable\")",
		limit_said(l, 2, lim, sizeof(lim)), (unsigned long long)n, n == 1 ? "" : "es");
}

static uint64_t
children_cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* What a launch without a mount namespace does to `readonly`, in words. */
static void
note_readonly_without_mountns(struct linux_launch *l)
{
	size_t n = l->hostrun ? hr_count(l->hostrun, HR_MOUNT) : 0;

	if (!n)
		return;
	l->note("weakened: without a mount namespace the %zu read-only path%s inside writable "
		"places (%s) %s held by Landlock alone: the sandbox cannot create, remove "
		"or rename entries in the places that hold them, or in the directories down to "
		"them, and can still chmod them",
		n, n == 1 ? "" : "s", hr_label(l->view), n == 1 ? "is" : "are");
}

/* The sandbox's own /dev/shm and loopback, which come with the
 * namespaces: what a launch without them has instead, printed with the
 * other weakenings (functions lost, not walls: the host's /dev/shm is
 * only as writable as the policy grants it, and inet sockets are refused
 * where loopback would be the host's); with them, under -v, which
 * /dev/shm the sandbox has. */
static void
note_facilities(struct linux_launch *l, bool namespaces)
{
	if (namespaces && l->verbose && ENFORCE_VIEW) {
		struct stat st;

		if (view_private_shm(l->landlock_state, l->workdir))
			l->note("%s: the sandbox's own (a tmpfs, nosuid, nodev, noexec, of %s)", VIEW_SHM,
				l->workdir_bytes ? "the policy's memory limit" : "half the memory");
		else if (lstat(VIEW_SHM, &st) < 0 || !S_ISDIR(st.st_mode))
			l->note("%s: none of the sandbox's own (the host has no such directory)",
				VIEW_SHM);
		else
			l->note("%s: the host's, as the policy grants it (a writable place lies "
				"beneath it, which the sandbox's own would hide)", VIEW_SHM);
	}
	if (namespaces)
		return;
	l->note("without namespaces: %s is the host's, writable only where the policy grants "
		"it (Python's multiprocessing needs it writable), and there is no loopback of "
		"the sandbox's own: %s", VIEW_SHM,
		l->proxy ? "TCP reaches heel-proxy's port only"
			 : "inet sockets are refused (network deny)");
}

static int run_tree(struct linux_launch *l, bool *started, char *msg, size_t msglen);

int
linux_run(struct linux_launch *l, char *msg, size_t msglen)
{
	struct hr_plan hostrun;
	struct hr_launch hl = {
		.env = l->host_env,
		.cwd = l->launch_dir,
		.workdir = l->fresh_workdir ? NULL : l->workdir,
		.heel_state = l->heel_state,
		.heel_cache = l->heel_cache,
	};
	struct hr_watch watch;
	bool started = false;
	int ret;

	msg[0] = '\0';
	/* Before the fork: the command mounts these, and this process
	 * looks again, once the whole tree is gone, at the ones that could
	 * not be mounted. */
	if (hr_plan_build(&hostrun, l->view, &hl, msg, msglen) < 0)
		return 125;
	l->hostrun = &hostrun;
	if (hr_landlock_extras(&hostrun) < 0) {
		snprintf(msg, msglen, "host-run: %s", strerror(ENOMEM));
		hr_plan_free(&hostrun);
		return 125;
	}
	if (l->verbose && art_readonly_count(l->view)) {
		char line[512];

		hr_describe(&hostrun, l->namespaces, line, sizeof(line));
		l->note("%s: %s", hr_label(l->view), line);
	}
	for (size_t i = 0; l->verbose && i < hostrun.n; i++) {
		const struct hr_guard *g = &hostrun.g[i];

		l->note("read-only: %s: %s", g->path,
			g->kind == HR_MOUNT ? "a read-only mount"
			: g->kind == HR_LINK ? "a link, checked after the run"
					     : "missing, checked after the run");
	}
	/* A change the read-only mounts refused, explained at the end. */
	hr_watch_start(&hostrun, &watch);
	ret = run_tree(l, &started, msg, msglen);
	/* The tree is gone (run_tree swept it): nothing of the sandbox can
	 * change these any more. */
	if (started)
		hr_watch_report(&hostrun, &watch, l->note);
	else if (watch.fd >= 0) {
		close(watch.fd);
		free(watch.wd);
	}
	if (started) {
		struct gs_stats st;
		struct timespec t0, t1;

		hr_check_after(&hostrun, l->note);
		/* Then the repositories below the tops (linux_gitscan.h). */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		hr_check_repos(&hostrun, &st, l->note);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (l->verbose && hostrun.nroots)
			l->note("%s: git repositories checked after the run: %zu entries, %zu "
				"directories, %zu repositories (%zu changed during the run), %zu "
				"moved aside, in %lld ms",
				hr_label(l->view), st.entries, st.dirs, st.repos, st.changed,
				st.moved,
				(long long)(t1.tv_sec - t0.tv_sec) * 1000 +
					(t1.tv_nsec - t0.tv_nsec) / 1000000);
	}
	l->hostrun = NULL;
	hr_plan_free(&hostrun);
	return ret;
}

static int
run_tree(struct linux_launch *l, bool *started, char *msg, size_t msglen)
{
	int go[2], rep[2], jc[2], flags = 0, status, first_sig, ret, max_fd, cmd_status;
	uint64_t cpu_before;
	pid_t parent = getpid(), child, fg = getpgrp();
	bool tty = false;
	struct rlimit nofile;
	struct job job = { .tty = &tty };
	struct pt_jobctl jobctl = { .stopped = job_stopped, .ctx = &job };
	struct envb why_env;

	msg[0] = '\0';
	envb_init(&why_env);
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0 || nofile.rlim_cur > (1 << 20))
		max_fd = 1 << 20;
	else
		max_fd = (int)nofile.rlim_cur;

	/* Orphans of the tree (double-forked daemons) become our children,
	 * not the system init's, so the sweep at the end finds them. */
	if (pt_become_subreaper() < 0) {
		snprintf(msg, msglen, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
		return 125;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0 ||
	    pipe2(jc, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(msg, msglen, "pipe: %s", strerror(errno));
		return 125;
	}

	/* As root, what only root may read under /etc: an idmapped copy of
	 * it that nobody owns makes the kernel apply the modes, at the cost
	 * of one short-lived process here (~0.1 ms), where a scan of /etc
	 * for the command to cover takes milliseconds. A file system that
	 * cannot be idmapped gets the scan. */
	l->etc_tree = -1;
	if (l->namespaces && l->hide_root_only && ENFORCE_VIEW && geteuid() == 0) {
		l->etc_tree = idmap_unowned_tree("/etc", msg, msglen);
		if (l->etc_tree < 0 && l->verbose)
			l->note("/etc is scanned for files only root may read: %s", msg);
		msg[0] = '\0';
	}
	launch_mark("launcher: /etc idmapped");

	if (l->namespaces) {
		/* As root a PID and mount namespace need no user namespace,
		 * and one would cost root its rights over unmapped files. */
		flags = SANDBOX_NAMESPACES | (geteuid() != 0 ? CLONE_NEWUSER : 0);
		child = clone_fork(flags);
		if (child < 0) {
			int e = errno;
			char why[1200] = "";

			/* Which host refused, and the way out (a container's
			 * seccomp profile, a sysctl), beside the errno. */
			explain_host(HE_STEP_CLONE, e, why, sizeof(why));
			/* Fail closed: the read-only view, the noexec mounts
			 * and the private IPC, network and /proc need them.
			 * Several lines: the cause, the way out and what
			 * --best-effort would give up are each read apart. */
			if (!l->best_effort) {
				struct hostenv h;
				struct he_diag d;

				hostenv_observe(&h, "");
				hostenv_diagnose(&h, HE_STEP_CLONE, e, &d);
				snprintf(msg, msglen,
					 "cannot create user/PID/mount/IPC/network namespaces (%s)"
					 "%s%s%s%s\n  --best-effort runs without them, and then:\n"
					 "  - " NO_NAMESPACES_LIST("\n  - ", ""),
					 strerror(e), d.why[0] ? "\n  why: " : "", d.why,
					 d.way_out[0] ? "\n  way out: " : "", d.way_out);
				close(go[0]);
				close(go[1]);
				close(rep[0]);
				close(rep[1]);
				close(jc[0]);
				close(jc[1]);
				return 125;
			}
			l->note("weakened: no namespaces (%s)%s%s%s", strerror(e), why,
				why[0] ? "; so " : ": ", NO_NAMESPACES_WEAKENING);
			flags = 0;
			note_readonly_without_mountns(l);
		}
	} else {
		l->note("weakened: --no-namespaces: %s", NO_NAMESPACES_WEAKENING);
		note_readonly_without_mountns(l);
	}
	if (!flags)
		child = fork();
	if (child < 0) {
		snprintf(msg, msglen, "fork: %s", strerror(errno));
		return 125;
	}
	if (child == 0) {
		l->mountns = flags & CLONE_NEWNS;
		l->netns = flags & CLONE_NEWNET;
		close(go[1]);
		close(rep[0]);
		close(jc[0]);
		init_main(l, flags, parent, go[0], rep[1], jc[1], max_fd);
	}
	close(go[0]);
	close(rep[1]);
	close(jc[1]);
	job.group = child;
	jobctl.fd = jc[0];
	if (l->etc_tree >= 0)
		close(l->etc_tree);
	/* The init sends it on: only heel-proxy may hold the listener. */
	if (l->proxy && l->proxy->listen_fd >= 0) {
		close(l->proxy->listen_fd);
		l->proxy->listen_fd = -1;
	}
	/* What a refused exec is explained with (linux_execwhy.h): the
	 * variables the policy's paths name, kept before the environment
	 * is wiped, in the launcher only. Without them (out of memory) the
	 * message names fewer places, nothing else. */
	if (xw_keep_env(l->view, l->host_env, &why_env) < 0)
		envb_free(&why_env);
	wipe_environ();
	if (l->verbose && flags)
		l->note("namespaces: %sPID, mount, IPC, network",
			flags & CLONE_NEWUSER ? "user, " : "");
	note_facilities(l, flags != 0);

	/* Both sides set the group, so neither order of running races. */
	setpgid(child, child);
	if (flags & CLONE_NEWUSER) {
		ret = write_id_maps(child, msg, msglen);
		if (ret < 0) {
			explain_host(HE_STEP_IDMAP, -ret, msg, msglen);
			close(go[1]);
			pt_kill_tree(child);
			close(rep[0]);
			close(jc[0]);
			envb_free(&why_env);
			return 125;
		}
	}
	/* Before the go byte: nothing of the command runs outside it. */
	if ((ret = linux_cgroup_enter(l->cgroup, child, msg, msglen)) != 0) {
		close(go[1]);
		pt_kill_tree(child);
		close(rep[0]);
		close(jc[0]);
		envb_free(&why_env);
		return ret;
	}
	/* The denial observer, aimed at the sandbox's PID namespace before
	 * anything of the command runs (linux_observe.h). It only watches:
	 * where it cannot, the launch goes on without it. */
	if (l->observe && l->observe->on) {
		char why[1024];

		/* --why asked for it: its loss is said without -v. */
		if (!flags)
			linux_observe_stop(l->observe);
		if (!flags)
			l->note("--why: the denial observer cannot watch a sandbox without a PID "
				"namespace of its own (--no-namespaces): nothing refused will be "
				"explained");
		else if (linux_observe_aim(l->observe, child, why, sizeof(why)) < 0)
			l->note("--why: the denial observer could not be aimed at the sandbox (%s): "
				"nothing refused will be explained", why);
		else if (l->verbose)
			l->note("denial observer: on: %s", l->observe->what);
	}
	/* Our environment may hold secrets the sandbox must not read through
	 * /proc/<pid>/environ; after the id maps, which need us dumpable. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

	/* Ctrl-C and job control reach the command, not us, when it holds
	 * the terminal we were started in the foreground of. */
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
		tty = true;
		set_foreground(STDIN_FILENO, child);
	}
	/* Ctrl-Z stops the sandbox; the init tells us, and we stop too. */
	if (pt_jobctl_arm(jc[0]) < 0) {
		snprintf(msg, msglen, "job control pipe: %s", strerror(errno));
		close(go[1]);
		pt_kill_tree(child);
		ret = 125;
		goto out;
	}

	cpu_before = children_cpu_us();
	if (write(go[1], "g", 1) != 1) {
		snprintf(msg, msglen, "starting the child: %s", strerror(errno));
		close(go[1]);
		pt_kill_tree(child);
		ret = 125;
		goto out;
	}
	close(go[1]);
	*started = true;

	launch_mark("launcher: id maps written, go sent");
	status = pt_wait_child_watch(child, child, &l->fwd, &first_sig,
				     linux_cgroup_watch(l->cgroup), &jobctl);
	launch_mark("command ran and exited, init reaped");
	/* Before the sweep below, which takes heel-proxy too. */
	l->proxy_died = l->proxy && linux_proxy_died(l->proxy);
	/* heel-observe too: everything it saw is written out first (the
	 * sandbox's init is gone, and with it every process of its PID
	 * namespace). */
	if (l->observe && l->observe->on)
		linux_observe_stop(l->observe);
	/* The sandbox is gone with its init: heel-why says what was refused
	 * now, before the sweep takes it too; what heel-observe saw first. */
	if (l->why) {
		if (l->why->kernel && l->observe && l->observe->out >= 0)
			(void)linux_why_observed(l->why, l->observe->out);
		l->why_died = linux_why_stop(l->why);
	}
	/* Whatever is left, in the group or re-parented to us. */
	pt_kill_tree(child);
	launch_mark("tree swept");
	if (first_sig && l->verbose)
		l->note("forwarded %s to the command", strsignal(first_sig));

	/* The tree's CPU time: the init and all it reaped, the command too. */
	cpu_before = children_cpu_us() - cpu_before;
	fcntl(rep[0], F_SETFL, O_NONBLOCK);
	ret = collect(l, rep[0], status, &cmd_status, why_env.vars, msg, msglen);
	if (linux_cgroup_spent(l->cgroup, msg, msglen))
		ret = 128 + SIGXCPU;
	else if (!msg[0])
		explain_limit_kill(l, cmd_status, cpu_before, first_sig != 0, msg, msglen);
	note_pids_refused(l);
out:
	if (tty)
		set_foreground(STDIN_FILENO, fg);
	close(rep[0]);
	close(jc[0]);
	envb_free(&why_env);
	return ret;
}

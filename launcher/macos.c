/* SPDX-License-Identifier: MIT
 * heel-exec on macOS: applies the artifact's SBPL profile with the
 * sandbox's own SPI, sandbox_init_with_parameters(3) (what sandbox-exec(1)
 * calls), then execs the command.
 *
 * Everything that is not the Seatbelt call is the runtime shared with the
 * Linux launcher: the artifact reader and validator, the working
 * directory's life cycle (runtime/workdir.c), the environment built from
 * scratch (runtime/env.c), limits, nice and I/O policy (runtime/rlimits.c)
 * and the profile's parameters (runtime/sbpl_params.c, which expands and
 * canonicalises every path and refuses an order the profile cannot
 * express). What this file adds is the order of the steps and the
 * process tree.
 *
 * It is not built or run on Linux: no Mac is available to the project.
 * tests/macos/check-syntax.sh compiles it against the Darwin prototypes it
 * uses (tests/macos/darwin_stub.h), and tests/macos/smoke.sh runs the
 * escape ideas of the conformance suite on a real Mac. */
#ifdef __APPLE__

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
/* kqueue and the process table: Darwin's own headers, which the Linux
 * syntax check (tests/macos/check-syntax.sh) stands in for. */
#ifndef HEEL_TESTS_DARWIN_STUB_H
#include <sys/event.h>
#include <sys/sysctl.h>
#endif

#include "artifact_read.h"
#include "env.h"
#include "heel_version.h"
#include "ptrack.h"
#include "rlimits.h"
#include "sbpl_params.h"
#include "workdir.h"

/* The sandbox SPI: exported by libsystem_sandbox, declared by no public
 * header. flags 0: the profile is SBPL text. The parameters are a
 * NULL-terminated list of key, value, key, value... */
int sandbox_init_with_parameters(const char *profile, uint64_t flags, const char *const parameters[],
				 char **errorbuf);
void sandbox_free_error(char *errorbuf);

#define EXIT_HEEL 125

extern char **environ;

static const char usage_text[] = "usage: heel-exec [OPTIONS] POLICY.hpol -- CMD [ARG...]\n"
				 "       heel-exec check POLICY.hpol\n"
				 "       heel-exec --help | --version\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("heel-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_HEEL);
}

static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	fputs("heel-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* What the macOS part cannot do yet is refused by name: heel-proxy and
 * heel-broker are Linux programs (epoll, seccomp user notification), and
 * a venv is made by the Linux launcher's runtime only. Running without
 * them would not be a weaker sandbox but a different program: refused
 * even under --best-effort. */
static bool
has_ipc(const struct art_view *view)
{
	struct art_ipc c;

	for (size_t i = 0; i < art_ipc_count(view); i++)
		if (art_ipc_at(view, i, &c) == 0 && (c.platforms & ART_PLAT_BIT(ART_MACOS)))
			return true;
	return false;
}

static void
refuse_unsupported(const char *policy, const struct art_view *view)
{
	struct art_scalar s;
	struct art_python py;

	if (art_scalar(view, ART_MACOS, ART_SC_NETWORK, &s) == 0 && s.set && s.value != 0)
		fail("%s: network other than `deny` goes through heel-proxy, which does not run on "
		     "macOS yet",
		     policy);
	if (has_ipc(view))
		fail("%s: host commands (`ipc`) need heel-broker, which does not run on macOS yet",
		     policy);
	if (art_python(view, ART_MACOS, &py) == 0 && py.set)
		fail("%s: a `python` venv is not made on macOS yet", policy);
}

/* The reason heelc recorded for leaving a platform out, if any. */
static const char *
excluded_reason(const struct art_view *view, unsigned platform)
{
	struct art_extra e;

	for (size_t i = 0; i < art_extra_count(view); i++)
		if (art_extra_at(view, i, &e) == 0 && e.kind == ART_EXTRA_EXCLUDED &&
		    (e.platforms & ART_PLAT_BIT(platform)))
			return e.value;
	return NULL;
}

static void
load(const char *policy, uint8_t **buf, struct art_view *view)
{
	char err[512];
	size_t len;
	int r;

	r = art_read_file(policy, buf, &len, err, sizeof(err));
	if (r < 0)
		fail("%s", err);
	r = art_validate(*buf, len, view, err, sizeof(err));
	if (r < 0)
		fail("%s: %s", policy, err);
	if (!art_platform_enabled(view, ART_MACOS)) {
		const char *why = excluded_reason(view, ART_MACOS);

		fail("%s: the policy is not built for macOS%s%s", policy, why ? ": " : "",
		     why ? why : "");
	}
}

/* The child: priority and limits, then the sandbox, then the command.
 * Every step before execve must hold or the command never runs. */
static void __attribute__((noreturn))
child(const struct lim_plan *plan, const char *profile, const char *const *params,
      const char *dir, char *const argv[], char *const envp[])
{
	char *sberr = NULL;
	int step = 0;

	/* Its own process group: heel-exec kills the group at the end. */
	setpgid(0, 0);
	if (lim_apply(plan, &step) < 0) {
		note("%s: %s", lim_step_name(step), strerror(errno));
		_exit(EXIT_HEEL);
	}
	if (sandbox_init_with_parameters(profile, 0, params, &sberr) != 0) {
		note("the SBPL profile was refused: %s", sberr ? sberr : "(no reason given)");
		if (sberr)
			sandbox_free_error(sberr);
		_exit(EXIT_HEEL);
	}
	if (chdir(dir) < 0) {
		note("%s: %s", dir, strerror(errno));
		_exit(EXIT_HEEL);
	}
	environ = (char **)envp;
	execvp(argv[0], argv);
	note("%s: %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* ${NAME} in a path: from heel-exec's own environment. */
static const char *
lookup_env(const char *name, void *ctx)
{
	(void)ctx;
	return envb_lookup(environ, name);
}

static volatile sig_atomic_t forwarded;
static pid_t child_pid;

/* ------------------------------------------------------------ the tree
 * macOS has no subreaper and no PID namespace, and the command's process
 * group is left by a setsid(): heel-exec follows the tree itself
 * (runtime/ptrack.c) from snapshots of the process table, taken when
 * kqueue reports that a tracked process forked or exited (EVFILT_PROC,
 * NOTE_FORK | NOTE_EXIT on each one; NOTE_TRACK, which would follow forks
 * in the kernel, fails with ENOTSUP on macOS) and every PTRACK_SWEEP_MS,
 * and kills every process of it at the end. What escapes: a process
 * whose parent forks it and exits between two sweeps, reparented to
 * launchd before it was seen (heel(5), BUGS). */

/* The process table as ptrack rows: *out (caller frees) and *n. 0 or -errno. */
static int
proc_snapshot(struct ptrack_proc **out, size_t *n)
{
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_ALL, 0};
	struct kinfo_proc *kp = NULL;
	struct ptrack_proc *rows;
	size_t len = 0, count;

	*out = NULL;
	*n = 0;
	/* The table grows between the two calls: ask again with room. */
	for (int tries = 0; tries < 8; tries++) {
		if (sysctl(mib, 4, NULL, &len, NULL, 0) < 0)
			return -errno;
		len += len / 4 + sizeof(*kp) * 16;
		free(kp);
		kp = malloc(len);
		if (!kp)
			return -ENOMEM;
		if (sysctl(mib, 4, kp, &len, NULL, 0) == 0)
			break;
		if (errno != ENOMEM) {
			free(kp);
			return -errno;
		}
		len = 0;
	}
	count = len / sizeof(*kp);
	rows = calloc(count ? count : 1, sizeof(*rows));
	if (!rows) {
		free(kp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		const struct timeval *st = &kp[i].kp_proc.p_starttime;

		rows[i].pid = kp[i].kp_proc.p_pid;
		rows[i].ppid = kp[i].kp_eproc.e_ppid;
		rows[i].start = (uint64_t)st->tv_sec * 1000000u + (uint64_t)st->tv_usec;
	}
	free(kp);
	*out = rows;
	*n = count;
	return 0;
}

/* The start stamp of pid, or 0 when it is not running. */
static uint64_t
proc_start(pid_t pid)
{
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid};
	struct kinfo_proc kp;
	size_t len = sizeof(kp);

	if (sysctl(mib, 4, &kp, &len, NULL, 0) < 0 || len < sizeof(kp))
		return 0;
	return (uint64_t)kp.kp_proc.p_starttime.tv_sec * 1000000u +
	       (uint64_t)kp.kp_proc.p_starttime.tv_usec;
}

/* Sweeps the table into t; each process added gets a kqueue watch for its
 * forks and exit (one that ended already fails to register: fine, the
 * next sweep drops it). 0 or -errno. */
static int
tree_sweep(struct ptrack *t, int kq)
{
	struct ptrack_proc *snap;
	size_t n;
	int r = proc_snapshot(&snap, &n);

	if (r < 0)
		return r;
	r = ptrack_sweep(t, snap, n);
	free(snap);
	if (r < 0)
		return r;
	/* ptrack_sweep appends what it adds, after what it kept. */
	for (size_t i = t->n - (size_t)r; kq >= 0 && i < t->n; i++) {
		struct kevent ev;

		EV_SET(&ev, t->p[i].pid, EVFILT_PROC, EV_ADD, NOTE_FORK | NOTE_EXIT, 0, NULL);
		(void)kevent(kq, &ev, 1, NULL, 0, NULL);
	}
	return 0;
}

/* Kills every tracked process, sweeping again until a sweep finds none
 * alive: a process forking while the others die is caught on the next
 * round. Each kill is of a pid just seen with its start stamp, so never
 * of a pid reused by another process (the window between the snapshot
 * and kill(2) is what remains). */
static void
tree_kill(struct ptrack *t)
{
	for (int round = 0; round < 64; round++) {
		size_t alive;

		if (tree_sweep(t, -1) < 0)
			break;
		alive = 0;
		for (size_t i = 0; i < t->n; i++) {
			if (t->p[i].pid <= 1 || t->p[i].pid == getpid())
				continue;
			if (kill(t->p[i].pid, SIGKILL) == 0)
				alive++;
		}
		/* Reap what is ours (the command; orphans are launchd's). */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!alive)
			break;
		usleep(10000);
	}
}

/* Waits for the command, following its tree, and returns its wait status
 * (or -1). Forwarded signals are sent to every tracked process. */
static int
tree_wait(struct ptrack *t, pid_t child)
{
	int kq = kqueue(), sent = 0;

	if (kq >= 0) {
		struct kevent ev;

		EV_SET(&ev, child, EVFILT_PROC, EV_ADD, NOTE_FORK | NOTE_EXIT, 0, NULL);
		(void)kevent(kq, &ev, 1, NULL, 0, NULL);
	}
	for (;;) {
		struct timespec ts = {0, PTRACK_SWEEP_MS * 1000000L};
		struct kevent got[16];
		int ws;
		pid_t w = waitpid(child, &ws, WNOHANG);

		if (w == child) {
			if (kq >= 0)
				close(kq);
			return ws;
		}
		if (w < 0 && errno != EINTR) {
			if (kq >= 0)
				close(kq);
			return -1;
		}
		if (kq >= 0)
			(void)kevent(kq, NULL, 0, got, 16, &ts);
		else
			nanosleep(&ts, NULL);
		(void)tree_sweep(t, kq);
		/* The handler signalled the command's group; a process that
		 * left it gets the signal here, once. */
		if (forwarded && forwarded != sent) {
			sent = forwarded;
			for (size_t i = 0; i < t->n; i++)
				if (t->p[i].pid > 1)
					kill(t->p[i].pid, sent);
		}
	}
}

static void
forward(int sig)
{
	forwarded = sig;
	if (child_pid > 0)
		kill(-child_pid, sig);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "cwd", required_argument, NULL, 'c' },
		{ "best-effort", no_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *workdir_arg = NULL, *start_dir = NULL, *policy;
	bool verbose = false, check = false;
	char cwd[PATH_MAX], err[1024];
	struct sbpl_launch sl = { 0 };
	struct sbpl_launch_params lp = { 0 };
	struct art_view view;
	struct lim_plan plan;
	struct envb env;
	struct wd wd;
	uint8_t *buf;
	int ch, r, status;

	if (argc >= 2 && strcmp(argv[1], "check") == 0) {
		check = true;
		argc--;
		argv++;
	}
	while ((ch = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w': workdir_arg = optarg; break;
		case 'c': start_dir = optarg; break;
		case 'b': break; /* nothing on macOS is weakened: see refuse_unsupported */
		case 'v': verbose = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		case 'V':
			printf("heel-exec %s (macOS), artifact format %d.%d\n", HEEL_VERSION,
			       ART_FMT_MAJOR, ART_FMT_MINOR);
			return 0;
		default: fputs(usage_text, stderr); return EXIT_HEEL;
		}
	}
	if (optind >= argc)
		fail("no policy given\n%s", usage_text);
	policy = argv[optind++];
	if (!check) {
		if (optind < argc && strcmp(argv[optind], "--") == 0)
			optind++;
		if (optind >= argc)
			fail("no command given\n%s", usage_text);
	}

	/* 1. The artifact. Nothing exists yet: a refusal leaves nothing. */
	load(policy, &buf, &view);
	refuse_unsupported(policy, &view);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd: %s", strerror(errno));
	if ((r = lim_plan(&plan, &view, ART_MACOS)) < 0)
		fail("%s: limits: %s", policy, strerror(-r));

	/* 2. The working directory, fresh unless given. */
	r = workdir_arg ? wd_use(&wd, workdir_arg, err, sizeof(err))
			: wd_create(&wd, environ, err, sizeof(err));
	if (r < 0)
		fail("working directory: %s", err);
	if (verbose)
		note("working directory %s (%s)", wd.path, wd.remove ? "removed at exit" : "kept");

	/* 3. The profile's parameters, for this launch: every path expanded
	 * and canonicalised, the rule order checked against the real paths. */
	sl.lookup = lookup_env;
	sl.launch_dir = cwd;
	sl.workdir = wd.path;
	sl.proxy_port = 0; /* refused above: no proxy runs on macOS yet */
	if (sbpl_prepare(&view, &sl, &lp, err, sizeof(err)) < 0) {
		note("%s: %s", policy, err);
		status = EXIT_HEEL;
		goto out_wd;
	}
	if (check) {
		for (size_t i = 0; lp.kv[i]; i += 2)
			printf("param %s = %s\n", lp.kv[i], lp.kv[i + 1]);
		printf("%s: enforceable here (macOS Seatbelt)\n", policy);
		status = 0;
		goto out_params;
	}

	envb_init(&env);
	if ((r = envb_build(&env, environ, &view, ART_MACOS, wd.tmp)) < 0) {
		note("environment: %s", strerror(-r));
		status = EXIT_HEEL;
		goto out_env;
	}

	/* 4. Fork, confine, exec; wait; kill the group. */
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	child_pid = fork();
	if (child_pid < 0) {
		note("fork: %s", strerror(errno));
		status = EXIT_HEEL;
		goto out_env;
	}
	if (child_pid == 0)
		child(&plan, lp.profile, lp.kv,
		      start_dir ? start_dir : wd.path, argv + optind, env.vars);
	/* Both sides set the group, so a signal sent before the child ran
	 * setpgid still reaches it. */
	setpgid(child_pid, child_pid);
	{
		struct ptrack tree;
		int ws;

		if (ptrack_init(&tree, child_pid, proc_start(child_pid)) < 0) {
			note("out of memory tracking the process tree");
			kill(-child_pid, SIGKILL);
			waitpid(child_pid, NULL, 0);
			status = EXIT_HEEL;
			goto out_env;
		}
		ws = tree_wait(&tree, child_pid);
		status = ws < 0 ? EXIT_HEEL
				: WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
		/* Nothing the command started outlives it: its group, then
		 * every process of its tree, whatever group or session it
		 * moved to. */
		kill(-child_pid, SIGKILL);
		tree_kill(&tree);
		ptrack_free(&tree);
	}

out_env:
	envb_free(&env);
out_params:
	sbpl_launch_params_free(&lp);
out_wd:
	if ((r = wd_remove(&wd)) < 0)
		note("could not remove the working directory %s: %s", wd.path, strerror(-r));
	free(buf);
	return status;
}

#endif /* __APPLE__ */

/* SPDX-License-Identifier: MIT
 * heel-exec on Linux: probing the kernel, and the launch itself. The
 * launcher forks an init of its own (PID 1 of new user, PID and mount
 * namespaces where the kernel lets us, else a subreaper), which forks the
 * command; the command sets itself up in the order DESIGN.md fixes and
 * execs; at the end nothing of the tree is left. Landlock and seccomp
 * come in through the four enforcement hooks below; until they are
 * built, heel-exec refuses to run anything. */
#ifndef HEEL_LAUNCHER_LINUX_H
#define HEEL_LAUNCHER_LINUX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "artifact_read.h"
#include "rlimits.h"

/* What this kernel offers. */
struct linux_probe {
	int landlock_abi;   /* > 0: the ABI version; else -errno */
	int seccomp;        /* 0: seccomp filters available; else -errno */
	int seccomp_mode;   /* PR_GET_SECCOMP: 0 none, 2 already filtered (we stack) */
	int userns;         /* 0: user+PID+mount namespaces can be made; -errno;
			     * 1: not probed (linux_probe(..., false)) */
};

/* Fills *p. try_ns: also try to make the namespaces, in a throw-away
 * child (heel-exec check); a launch instead just tries and falls back. */
void linux_probe(struct linux_probe *p, bool try_ns);

/* Everything a launch needs; heel-exec fills it step by step. */
struct linux_launch {
	/* Known before anything happens (the checks): */
	const struct art_view *view;
	const struct linux_probe *probe;
	char *const *host_env;    /* the launcher's environment, for ${NAME} */
	const char *launch_dir;   /* ${CWD} */
	bool best_effort;         /* --best-effort: weaken with a note, never silently */
	unsigned accept;          /* --accept NAME: LINUX_ACCEPT_* (linux_cgroup.h) */
	bool verbose;             /* -v */
	/* One line to stderr ("heel-exec: " is prepended): -v notes and
	 * --best-effort weakenings. Parent side only, never in the child. */
	void (*note)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

	/* Known once the working directory exists (NULL during checks): */
	const char *workdir;      /* absolute, no links */
	const char *tmpdir;       /* workdir/tmp */
	char *const *envp;        /* the sandbox's environment, built from scratch */
	const struct lim_plan *limits;
	struct linux_cgroup *cgroup; /* the tree's cgroup (linux_cgroup.h) */
	char *const *argv;        /* CMD ARG... */
	const char *file;         /* what to execute: argv[0], or, when that is a
				   * relative path with a '/', it taken from
				   * launch_dir (the command runs elsewhere) */
	bool namespaces;          /* try user/PID/mount namespaces (default true) */
	sigset_t fwd;             /* forwarded signals, blocked since linux_block_signals() */
	sigset_t old_mask;        /* the mask heel-exec started with; the command gets it */

	/* Known in the child only (the apply hooks): */
	bool mountns;             /* the command runs in a private mount namespace
				   * of its own, where it may still mount (binds
				   * over protected paths) before Landlock */

	/* Private to each hook, from its check to its apply. */
	void *landlock_state;
	void *seccomp_state;
};

/* ====================================================================
 * ENFORCEMENT HOOKS: the Landlock and seccomp engineers implement these
 * (runtime/landlock_*, runtime/bpf_*). Until they do, the check hooks
 * fail with -ENOSYS and heel-exec refuses with exit 125: there is no flag
 * that runs a command without them, --best-effort included.
 *
 * linux_check_*: parent, step 1, before the working directory exists
 *   (l->workdir == NULL) and before anything is created: decide whether
 *   this kernel can enforce the policy; with l->best_effort, call
 *   l->note() once per weakening and go on. 0, or -errno and a one-line
 *   message in err naming what is missing ("Landlock ABI 3 needed for
 *   `grant ... rw` (truncate), kernel has 2"). May allocate into
 *   l->*_state.
 * linux_apply_*: the command's process (a fork of the init, itself a
 *   fork of the single-threaded launcher), in this order: rlimits, nice,
 *   ioprio, chdir(l->workdir), PR_SET_NO_NEW_PRIVS, linux_apply_landlock,
 *   linux_apply_seccomp, close inherited fds, execve with l->envp.
 *   Allocation works, printing does not (stderr is the command's):
 *   return 0, or -errno with a one-line message in err, which the parent
 *   prints (exit 125); the command never runs.
 * ==================================================================== */
int linux_check_landlock(struct linux_launch *l, char *err, size_t errlen);
int linux_apply_landlock(struct linux_launch *l, char *err, size_t errlen);
int linux_check_seccomp(struct linux_launch *l, char *err, size_t errlen);
int linux_apply_seccomp(struct linux_launch *l, char *err, size_t errlen);

/* Blocks the forwarded signals and SIGCHLD from now on, so a SIGTERM
 * while the working directory is being made is forwarded (and cleaned up
 * after) rather than killing heel-exec half-way. Call first. */
void linux_block_signals(struct linux_launch *l);

/* Runs l->argv under the policy and waits for the whole tree to end.
 * Returns heel-exec's exit status (the command's, 128+N for signal N, 125,
 * 126, 127); when msg[0] != '\0' it is a one-line message to print. */
int linux_run(struct linux_launch *l, char *msg, size_t msglen);

#endif

/* SPDX-License-Identifier: MIT
 * heel-exec on Linux: probing the kernel, and the launch itself. The
 * launcher forks an init of its own (PID 1 of new user, PID, mount,
 * IPC and network namespaces where the kernel lets us, else a subreaper),
 * which forks the command; the command mounts its view of the file
 * system, confines itself and execs (command_main in linux.c reads that
 * sequence top to bottom); at the end nothing of the tree is left. */
#ifndef HEEL_LAUNCHER_LINUX_H
#define HEEL_LAUNCHER_LINUX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "artifact_read.h"
#include "linux_hostrun.h"
#include "rlimits.h"

/* What this kernel offers. */
struct linux_probe {
	int landlock_abi;   /* > 0: the ABI version; else -errno */
	int seccomp;        /* 0: seccomp filters available; else -errno */
	int seccomp_mode;   /* PR_GET_SECCOMP: 0 none, 2 already filtered (we stack) */
	int userns;         /* 0: user+PID+mount namespaces can be made; -errno;
			     * 1: not probed (linux_probe(..., false)) */
	int proc;           /* 0: the new mount namespace takes mounts and a
			     * /proc of the PID namespace; -errno; 1: not probed */
	int view;           /* 0: the read-only view can be made (mount_setattr,
			     * Linux 5.12); -errno; 1: not probed */
	int ns_step;        /* where userns or proc < 0: the step that failed
			     * (enum he_step, linux_hostenv.h); else -1 */
};

/* Fills *p. try_ns: also make the namespaces as a launch would, in a
 * throw-away child (heel-exec check); a launch instead just tries, and
 * falls back or refuses. */
void linux_probe(struct linux_probe *p, bool try_ns);

/* Whether one namespace (CLONE_NEWPID, CLONE_NEWNS, CLONE_NEWNET,
 * CLONE_NEWUSER) can be made, as a launch makes it (with a user
 * namespace unless root), in a throw-away child: 0 or -errno (heel-exec
 * check without a policy, which names each wall). */
int linux_probe_namespace(int flag);

/* Everything a launch needs; heel-exec fills it step by step. */
struct linux_observe;

struct linux_launch {
	/* Known before anything happens (the checks): */
	const struct art_view *view;
	const struct linux_probe *probe;
	char *const *host_env;    /* the launcher's environment, for ${NAME} */
	const char *launch_dir;   /* ${CWD} */
	const char *heel_state;   /* the ledger's directory (ledger.h): kept
				   * read-only in every sandbox; NULL: none */
	const char *heel_cache;   /* heel run's compile cache (userdirs.h): the
				   * same; NULL: none */
	bool best_effort;         /* --best-effort: weaken with a note, never silently */
	unsigned accept;          /* --accept NAME: LINUX_ACCEPT_* (linux_cgroup.h) */
	bool verbose;             /* -v */
	bool list_skipped;        /* -vv: each optional rule skipped, not their count */
	/* One line to stderr ("heel-exec: " is prepended): -v notes and
	 * --best-effort weakenings. Parent side only, never in the child. */
	void (*note)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

	/* Known once the working directory exists (NULL during checks): */
	const char *workdir;      /* absolute, no links */
	char *const *envp;        /* the sandbox's environment, built from scratch */
	const struct lim_plan *limits;
	struct linux_cgroup *cgroup; /* the tree's cgroup (linux_cgroup.h) */
	char *const *argv;        /* CMD ARG... */
	const char *file;         /* what to execute: argv[0], or, when that is a
				   * relative path with a '/', it taken from
				   * launch_dir (the command runs elsewhere) */
	const char *start_dir;    /* --cwd: where the command starts (absolute);
				   * NULL: the working directory */
	bool namespaces;          /* try user/PID/mount namespaces (default true) */
	sigset_t fwd;             /* forwarded signals, blocked since linux_block_signals() */
	sigset_t old_mask;        /* the mask heel-exec started with; the command gets it */
	struct rlimit caller_nofile; /* RLIMIT_NOFILE heel-exec started with; the
				   * command gets it (linux_raise_nofile) */
	bool nofile_raised;       /* the soft limit was raised to the hard one */

	bool fresh_workdir;       /* workdir is fresh: a private tmpfs in the
				   * mount namespace, the on-disk directory
				   * only its mount point */
	uint64_t workdir_bytes;   /* that tmpfs's size; 0: the tmpfs default */
	bool hide_root_only;      /* run as root under strict or default: what
				   * the mode of an entry under /etc keeps
				   * from other users is covered */

	struct linux_proxy *proxy; /* heel-proxy (linux_proxy.h), started; NULL
				   * under network deny */
	struct linux_broker *broker; /* heel-broker (linux_broker.h), started;
				   * NULL without host commands */
	struct linux_observe *observe; /* heel-observe (linux_observe.h),
				   * started; NULL where it does not run */
	struct linux_why *why;    /* heel-why (linux_why.h), started; NULL
				   * without --why */
	bool why_died;            /* set by linux_run: heel-why died while the
				   * command ran */
	bool proxy_died;          /* set by linux_run: heel-proxy died while
				   * the command ran */
	unsigned long long net_refused[2]; /* set by linux_run under network
				   * deny: attempts to reach beyond the
				   * sandbox, IPv4 and IPv6 (netrefused.h) */

	struct hr_plan *hostrun;  /* the paths `readonly` keeps (linux_hostrun.h),
				   * planned by linux_run before the fork */

	int etc_tree;             /* hide_root_only: a copy of /etc idmapped so
				   * that nobody owns it (linux_idmap.h), for
				   * the command to mount; -1: none (the
				   * command scans /etc and covers instead) */

	/* Known in the child only: */
	bool mountns;             /* the command runs in private namespaces of
				   * its own, where it mounts its view of the
				   * file system before Landlock */
	bool netns;               /* ...a network namespace among them (a
				   * launch makes all or none): loopback is
				   * the sandbox's own, not the host's */
	bool private_shm;         /* the view mounted the sandbox's own
				   * /dev/shm (view_private_shm) */

	/* Private to the Landlock hook, from its check to its apply. */
	void *landlock_state;
};

/* ====================================================================
 * Enforcement (linux_enforce.c; stubs in the test-only build
 * heel-exec-noenforce).
 *
 * linux_check_*: parent, before the working directory exists
 *   (l->workdir == NULL) and before anything is created: decide whether
 *   this kernel can enforce the policy; with l->best_effort, call
 *   l->note() once per weakening and go on. 0, or -errno and a one-line
 *   message in err naming what is missing. May keep state in
 *   l->landlock_state.
 * The others run in the command's process (a fork of the init, itself a
 * fork of the single-threaded launcher), in the order command_main
 * gives. They never print (command_main prints what they report): 0, or -errno with a
 * one-line message in err, which the parent prints (exit 125).
 * ==================================================================== */
int linux_check_landlock(struct linux_launch *l, char *err, size_t errlen);
/* Frees what linux_check_landlock kept in l->landlock_state. */
void linux_forget_landlock(struct linux_launch *l);
int linux_check_seccomp(struct linux_launch *l, char *err, size_t errlen);

struct ll_plan;
struct ll_report;
/* The Landlock plan of this launch, with the working directory: the
 * parent's dry-run plan when it serves, else a fresh one, whose
 * weakenings (--best-effort) go into *rep for the caller to pass on. Its
 * paths are opened on the host's view, before the sandbox's mounts. */
int linux_landlock_plan(struct linux_launch *l, struct ll_plan **plan, struct ll_report *rep,
			char *err, size_t errlen);
/* Opens again what the mounts replaced (/proc, a tmpfs working
 * directory, the sandbox's /dev/shm), adds a rule on the very inode of
 * each inherited standard descriptor (and /dev/tty when one of them is
 * the controlling terminal), so that the command can reopen them
 * (/dev/stdout, /proc/self/fd/N) as far as the descriptor lets it, then
 * landlock_restrict_self. Needs NO_NEW_PRIVS. */
int linux_landlock_enforce(struct linux_launch *l, struct ll_plan *plan, char *err,
			   size_t errlen);
/* Every capability, for good: bounding, ambient, then current sets. */
int linux_drop_capabilities(char *err, size_t errlen);
/* The artifact's seccomp program for this architecture. With host
 * commands (l->broker) it is loaded with a user-notification listener,
 * returned in *listener for heel-broker (else *listener is -1). Under
 * network deny without a network namespace, heel-exec's own refusal of
 * inet sockets (seccomp_noinet.h) is stacked first: the artifact's
 * program lets TCP through for a loopback that would be the host's. */
int linux_load_seccomp(struct linux_launch *l, int *listener, char *err, size_t errlen);

/* Blocks the forwarded signals and SIGCHLD from now on, so a SIGTERM
 * while the working directory is being made is forwarded (and cleaned up
 * after) rather than killing heel-exec half-way. Call first. */
void linux_block_signals(struct linux_launch *l);
/* Raises the soft open-files limit to the hard one for the launcher's
 * planning, remembering the caller's for the command. */
void linux_raise_nofile(struct linux_launch *l);

/* Runs l->argv under the policy and waits for the whole tree to end;
 * then, for the paths `readonly` keeps that could not be mounted (missing
 * at launch, or links), moves aside what the sandbox made there, with a
 * warning each (l->note). Returns heel-exec's exit status (the
 * command's, 128+N for signal N, 125, 126, 127); when msg[0] != '\0' it
 * is a one-line message to print. */
int linux_run(struct linux_launch *l, char *msg, size_t msglen);

#endif

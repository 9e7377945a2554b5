/* SPDX-License-Identifier: MIT
 * libheel: runs commands in a heel sandbox from a program (an agent
 * harness, a CI runner). A policy comes from a .heel or .hpol file, from
 * policy text or from builder calls that mirror `heel run`'s options; a
 * command is spawned under it through heel-exec, which applies it, and is
 * watched through a pidfd, waited for, or run with its output captured.
 * No global state, thread-safe; errors are returned as a negative errno
 * value and a message, never printed. libheel(3) is the specification. */
#ifndef HEEL_H
#define HEEL_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HEEL_API __attribute__((visibility("default")))
#else
#define HEEL_API
#endif

/* ---------------------------------------------------------------- errors */

#define HEEL_ERROR_MAX 4096

/* What a failed call says: `code` is the negative errno value the call
 * returned (0 after a success), `message` one or more lines without a
 * trailing newline (policy diagnostics as FILE:LINE:COL: error: ..., the
 * source line and a caret). Every call takes a heel_error * that may be
 * NULL when only the code is wanted. */
typedef struct heel_error {
	int code;
	char message[HEEL_ERROR_MAX];
} heel_error;

/* The library's version ("0.1.0"). */
HEEL_API const char *heel_version(void);

/* ---------------------------------------------------------------- policies */

typedef struct heel_policy heel_policy;

/* An empty policy for the builder calls below: `heel 1` and nothing else
 * (isolation default, network deny). Free with heel_policy_free(). */
HEEL_API heel_policy *heel_policy_new(heel_error *err);

/* A policy from a file: .heel source (read now, and compiled now so that a
 * mistake is reported here with its FILE:LINE:COL; the files it includes
 * are read again at each spawn) or a compiled .hpol artifact (detected by
 * its contents; read once, owned by root or the caller's real uid and not
 * writable by others, as heel-exec requires, and validated). NULL on
 * failure: -ENOENT and the like, -EINVAL for a policy with errors. */
HEEL_API heel_policy *heel_policy_from_file(const char *path, heel_error *err);

/* A policy from .heel text (copied). `name` names it in diagnostics
 * (NULL: "<string>"); relative includes are taken from its directory,
 * relative to the current directory. Compiled now: -EINVAL with the
 * diagnostics in err->message when it has errors. */
HEEL_API heel_policy *heel_policy_from_string(const char *text, const char *name, heel_error *err);

HEEL_API void heel_policy_free(heel_policy *p);

/* Builder calls: `heel run`'s options, added on top of the policy (for a
 * file or a string, after its own statements, so a scalar given here
 * replaces the policy's). Each value is checked now: 0, or -EINVAL with
 * the reason (-ENOTSUP on a compiled .hpol, which cannot be changed;
 * -ENOMEM). Strings are copied. Relative paths are taken from the spawn's
 * start directory (or the current directory) when the policy is compiled,
 * following symbolic links as `heel run` does. */
HEEL_API int heel_policy_isolation(heel_policy *p, const char *base, heel_error *err);
HEEL_API int heel_policy_grant(heel_policy *p, const char *path, const char *mode, heel_error *err);
/* deny, allow-all or allow-list (the patterns of heel_policy_allow_domain). */
HEEL_API int heel_policy_network(heel_policy *p, const char *mode, heel_error *err);
HEEL_API int heel_policy_allow_domain(heel_policy *p, const char *pattern, heel_error *err);
HEEL_API int heel_policy_audit_log(heel_policy *p, const char *file, heel_error *err);
/* A protection set of heel(5) switched on (protect) or off (unprotect). */
HEEL_API int heel_policy_protect(heel_policy *p, const char *set, int on, heel_error *err);
/* memory, cpu, processes, open-files, file-size, stack, core; a size or
 * duration without a unit is bytes or seconds. */
HEEL_API int heel_policy_limit(heel_policy *p, const char *name, const char *value,
			       heel_error *err);
HEEL_API int heel_policy_env_pass(heel_policy *p, const char *name, heel_error *err);
HEEL_API int heel_policy_env_set(heel_policy *p, const char *name, const char *value,
				 heel_error *err);
HEEL_API int heel_policy_workdir(heel_policy *p, const char *dir, heel_error *err);
HEEL_API int heel_policy_gpu(heel_policy *p, int allow, heel_error *err);
/* 1..19 steps lower than heel-exec's own priority. */
HEEL_API int heel_policy_nice(heel_policy *p, int steps, heel_error *err);
/* utility or background. */
HEEL_API int heel_policy_io_priority(heel_policy *p, const char *priority, heel_error *err);

/* ---------------------------------------------------------------- spawning */

/* Options of heel_spawn(). Initialise with heel_spawn_opts_init(), then
 * set what is needed: the library reads only the first `size` bytes, so a
 * program built against an older heel.h keeps working (and refuses a
 * struct whose size is 0, never initialised, rather than ignore it). */
struct heel_spawn_opts {
	size_t size;
	/* "NAME=VALUE" strings added to the command's environment (as `env
	 * set` statements compiled into the policy: heel-exec builds the
	 * environment from the policy alone), NULL-terminated; NULL for none.
	 * A compiled .hpol cannot take them (-ENOTSUP). */
	const char *const *env;
	/* The command's standard input, output and error: descriptors of the
	 * caller (duplicated into heel-exec, never closed or moved), or -1
	 * for /dev/null. heel-exec writes its own messages to stderr_fd. */
	int stdin_fd;
	int stdout_fd;
	int stderr_fd;
	/* Where the command starts (absolute; it is granted read for a
	 * policy from source or builder calls), and where ${CWD} and relative
	 * paths point. NULL: the command starts in the sandbox's working
	 * directory, relative paths are taken from the current directory. */
	const char *cwd;
	/* The heel-exec to run (absolute). NULL: the one installed with
	 * libheel (PREFIX/bin/heel-exec, fixed when libheel is built); never
	 * looked up in PATH or the environment. */
	const char *launcher;
	/* heel-exec's own environment, "NAME=VALUE", NULL-terminated: where
	 * ${HOME} and the like in policy paths, `env pass` and the safe set
	 * (PATH, HOME, LANG...) come from. NULL: the caller's environ. */
	const char *const *launcher_env;
	unsigned flags; /* HEEL_SPAWN_* */
};

/* heel-exec --best-effort: run where the machine cannot enforce all of
 * the policy, heel-exec printing each weakening to stderr_fd. */
#define HEEL_SPAWN_BEST_EFFORT 0x1u
/* heel-exec starts a session of its own (setsid(2)): no signal from the
 * caller's terminal reaches it, and it has no controlling terminal. */
#define HEEL_SPAWN_NEW_SESSION 0x2u
/* heel-exec --why: the actions the sandbox refused are explained (on
 * stderr_fd at the end, as heel run --why prints them) and returned by
 * heel_child_denials() after the wait. Costs what --why costs
 * (heel-exec(1)). */
#define HEEL_SPAWN_WHY 0x4u

/* size set, descriptors -1, everything else NULL or 0. */
HEEL_API void heel_spawn_opts_init(struct heel_spawn_opts *o);

/* The policy as heel_spawn() would compile it with these options (o may
 * be NULL), as .heel text in canonical layout, each statement a builder
 * call added with a comment naming it. malloc'ed, caller frees with
 * free(). NULL on failure; -ENOTSUP for a compiled .hpol. */
HEEL_API char *heel_policy_text(const heel_policy *p, const struct heel_spawn_opts *o,
				heel_error *err);

/* Compiles the policy as heel_spawn() would (o may be NULL). 0, with the
 * compiler's warnings in *warnings (malloc'ed, caller frees; NULL when
 * there are none; warnings may be NULL), or -EINVAL with the diagnostics. */
HEEL_API int heel_policy_check(const heel_policy *p, const struct heel_spawn_opts *o,
			       char **warnings, heel_error *err);

typedef struct heel_child heel_child;

/* Runs argv (argv[0] looked up in the sandbox's PATH) under the policy:
 * compiles it (a .hpol as loaded), hands the artifact to heel-exec on a
 * sealed memfd and starts heel-exec, whose exit status is the command's.
 * The policy is only read: one policy may be spawned from many threads at
 * once. o may be NULL (all defaults). NULL on failure: -EINVAL (bad
 * option, policy errors), -ENOTSUP, -ENOENT or -EACCES (heel-exec cannot
 * be run), -ENOMEM... Free the handle with heel_child_free(). */
HEEL_API heel_child *heel_spawn(const heel_policy *p, const char *const *argv,
				const struct heel_spawn_opts *o, heel_error *err);

/* heel-exec's process id, and a pidfd for it (owned by the handle, valid
 * until heel_child_free; close-on-exec): it becomes readable when
 * heel-exec has ended, for poll(2) or epoll in the caller's event loop. */
HEEL_API pid_t heel_child_pid(const heel_child *c);
HEEL_API int heel_child_pidfd(const heel_child *c);

/* Waits up to timeout_ms (-1: without limit, 0: only looks) for heel-exec
 * to end and reaps it. 0 with *status set: the command's exit status as
 * heel-exec reports it (its own, 128+N when it died of signal N, 125 when
 * heel-exec refused or failed, 126/127 when it could not be run or found;
 * 128+N too when heel-exec itself was killed by signal N); -ETIMEDOUT
 * when it is still running. Once reaped, the status is kept and returned
 * again. */
HEEL_API int heel_child_wait(heel_child *c, int timeout_ms, int *status, heel_error *err);

/* Sends sig to heel-exec, which forwards SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT to the whole sandbox (and kills what is left of it 2 s later).
 * -ESRCH when it has already been reaped. */
HEEL_API int heel_child_kill(heel_child *c, int sig, heel_error *err);

/* After heel_child_wait() reaped heel-exec, for a child spawned with
 * HEEL_SPAWN_WHY: each distinct action the sandbox refused, one JSON
 * object a line (heel(5), the audit sink's "denial/1" lines: the
 * operation, path or address, process, wall, rule with its file:line,
 * the option or policy line that allows it, a count); "" when nothing
 * was refused. malloc'ed, caller frees with free(). NULL with -EINVAL
 * (not spawned with HEEL_SPAWN_WHY) or -EBUSY (not reaped yet). */
HEEL_API char *heel_child_denials(heel_child *c, heel_error *err);

/* Releases the handle. If heel-exec still runs: SIGTERM (heel-exec ends
 * the sandbox's whole tree and removes its working directory), then
 * SIGKILL if it has not ended within 5 s; either way it is reaped before
 * this returns, so it may block that long. NULL is ignored. */
HEEL_API void heel_child_free(heel_child *c);

/* ---------------------------------------------------------------- capture */

/* What heel_run_capture() saw. out and err are malloc'ed, NUL-terminated
 * (also when empty); free them with heel_capture_free(). */
struct heel_capture {
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
	int out_truncated; /* more than max_bytes was written; the rest was read and dropped */
	int err_truncated;
	int status;    /* as heel_child_wait() reports it */
	int timed_out; /* the timeout ran out and the sandbox was ended */
};

/* Spawns argv as heel_spawn() does (o->stdout_fd and o->stderr_fd are
 * replaced by pipes; stdin as o says), keeps the first max_bytes of each
 * stream, and waits for the end, at most timeout_ms (-1: no limit), after
 * which the sandbox is ended as by heel_child_free. 0 with *res filled
 * (the command's failure is in res->status, not the return value), or a
 * negative errno value as heel_spawn() returns it. */
HEEL_API int heel_run_capture(const heel_policy *p, const char *const *argv,
			      const struct heel_spawn_opts *o, size_t max_bytes, int timeout_ms,
			      struct heel_capture *res, heel_error *err);
HEEL_API void heel_capture_free(struct heel_capture *res);

#ifdef __cplusplus
}
#endif

#endif

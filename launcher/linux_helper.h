/* SPDX-License-Identifier: MIT
 * heel-exec's helper programs, heel-proxy and heel-broker: each is
 * installed beside heel-exec (built and installed together), started by
 * heel-exec with one end of a SOCK_SEQPACKET pair as descriptor 3 and
 * nothing else of ours, and told its settings over that pair in the
 * "key=value" messages of proxyctl.h. Nothing travels on the command
 * line or in the environment, where other processes of the user could
 * read it (/proc/PID/cmdline, environ). */
#ifndef HEEL_LAUNCHER_LINUX_HELPER_H
#define HEEL_LAUNCHER_LINUX_HELPER_H

#include <stddef.h>
#include <sys/types.h>

#include "artifact_read.h"
#include "env.h"
#include "hostcheck.h"

/* The control socket's number in the helper. */
#define HELPER_CTL_FD 3

struct helper {
	pid_t pid;  /* 0: not started */
	int pidfd;  /* to see whether it died; -1 (Linux < 5.3) */
	int ctl;    /* heel-exec's end of the control pair; -1 */
};

/* The helper `name` beside heel-exec, checked (hostcheck.h) against
 * every place a sandbox could have written: heel-exec runs it on the host
 * as this user, now and at every later launch. 0 with its path in out, or
 * -errno with one line in err, `what` saying what needs it ("the
 * policy's network"). */
int helper_find(const struct hc_places *ps, const char *name, const char *what, char *out,
		size_t cap, char *err, size_t errlen);

/* Starts exe with envp (argv is just its name), the control pair's other
 * end as HELPER_CTL_FD, in a process group of its own (away from the
 * terminal's signals: heel-exec stops it). 0, or -errno with one line in
 * err. */
int helper_start(struct helper *h, const char *exe, char *const envp[], char *err,
		 size_t errlen);

/* Sends "key=value" (value NULL: "key") on the control socket, with fd
 * (>= 0) attached. 0, or -errno with one line in err naming the helper
 * and the key. */
int helper_send(struct helper *h, const char *name, const char *key, const char *value, int fd,
		char *err, size_t errlen);

/* Waits up to timeout_ms for the helper's answer on ctl: 0 for "ready";
 * -EIO with its "error=..." line (or that it exited) in err;
 * -ETIMEDOUT. Runs in whichever process holds ctl (the sandbox's init
 * or command, which share heel-exec's end). */
int helper_wait_ready(int ctl, const char *name, int timeout_ms, char *err, size_t errlen);

/* The policy's audit sink, expanded as the launch expands paths (vars)
 * and opened through hc_open_append: *kind "file" or "daily" with the
 * descriptor in *fd (the caller sends and closes it), or *kind NULL when
 * the policy has none. A helper is handed the sink, never its name. fd
 * NULL: checked only, nothing opened or made (a launch's checks, and
 * `heel-exec check`). 0, or -errno with one line in err. */
int helper_audit_sink(const struct art_view *view, const struct hc_places *ps,
		      const struct envb_launch *vars, const char **kind, int *fd, char *err,
		      size_t errlen);

/* Whether the helper died since it started. */
int helper_died(const struct helper *h);

/* Closes the control socket, which tells the helper to stop; waits up
 * to grace_ms for it to exit, then SIGKILLs it, and reaps it. */
void helper_stop(struct helper *h, int grace_ms);

#endif

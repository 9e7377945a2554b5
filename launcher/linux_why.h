/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-why, the --why observer. In --why mode only,
 * the command's process loads one more seccomp filter, after the
 * policy's own, that answers the file, exec and socket calls with a user
 * notification, and hands its listener to heel-why (beside heel-exec,
 * started like heel-proxy and heel-broker). heel-why reads each call,
 * judges it against the compiled policy and always lets it continue: it
 * only watches, the walls decide (a call the policy's filter denies
 * never reaches it: the kernel runs the more restrictive action). At the
 * end heel-why prints the refused actions and writes them to the audit
 * sink.
 *
 * Where heel-observe runs (linux_observe.h), it is heel-why's source
 * instead (w->kernel): no watching filter is loaded, and at the end the
 * lines heel-observe wrote are handed to heel-why to explain.
 *
 * A process has one seccomp listener at most (a second is EBUSY): a
 * policy with host commands, whose listener heel-broker holds, can run
 * under --why only with heel-observe, and heel-exec says so by name.
 *
 * If heel-why dies, the kernel answers the calls it watched with ENOSYS
 * (the listener is gone): they neither hang nor run unwatched. */
#ifndef HEEL_LAUNCHER_LINUX_WHY_H
#define HEEL_LAUNCHER_LINUX_WHY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "artifact_read.h"
#include "env.h"
#include "linux_helper.h"

struct linux_why {
	struct helper h;    /* heel-why's process and control socket */
	char exe[PATH_MAX]; /* heel-why, beside heel-exec */
	bool kernel;	    /* its events come from heel-observe
			     * (linux_observe.h), not from a listener */
};

/* heel-why beside heel-exec and not one a sandbox could have written;
 * refused with a policy that declares host commands. 0, or -errno with
 * one line in err. */
int linux_why_check(struct linux_why *w, const struct art_view *view, const struct hc_places *ps,
		    char *err, size_t errlen);

/* Starts heel-why and sends it the artifact (a sealed memfd), the
 * variables its paths name, the launch directory and the audit sink. 0,
 * or -errno with one line in err. */
int linux_why_start(struct linux_why *w, const struct art_view *view, const struct hc_places *ps,
		    const struct envb_launch *vars, char *err, size_t errlen);

/* Hands heel-why a descriptor to write each refusal to as a JSON line
 * (the audit sink's denial/1 lines), for --why-fd. 0, or -errno. */
int linux_why_denials(struct linux_why *w, int fd, char *err, size_t errlen);

/* Hands heel-why the memfd heel-proxy writes its refusals to (the audit
 * line of each), read at the end. 0, or -errno. */
int linux_why_proxy(struct linux_why *w, int fd, char *err, size_t errlen);

/* Once the working directory is known: sends it, and the end of the
 * settings. */
int linux_why_prepare(struct linux_why *w, const char *workdir, char *err, size_t errlen);

/* In the command's process, after the policy's filter: loads the
 * watching filter with a listener, hands the listener to heel-why and
 * waits for "ready". 0, or -errno with one line in err. */
int linux_why_watch(struct linux_why *w, char *err, size_t errlen);

/* With w->kernel, after heel-observe stopped: hands heel-why the
 * memfd of heel-observe's lines. 0, or -errno. */
int linux_why_observed(struct linux_why *w, int lines_fd);

/* After the tree is gone: heel-why prints what was refused and exits.
 * Returns 1 when heel-why had died before (the calls it watched failed
 * with ENOSYS from then on), else 0. */
int linux_why_stop(struct linux_why *w);

#endif

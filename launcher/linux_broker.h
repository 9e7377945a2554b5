/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-broker, which runs a policy's host commands
 * (`ipc`). For a policy that declares one, heel-exec starts heel-broker
 * before the sandbox and sends it the commands; in the sandbox's view a
 * read-only, executable tmpfs holds one name per command, each a link to
 * the client heel-ipc, first on PATH. The sandbox's seccomp program
 * answers the client's call (an ioctl on descriptor -1 that nothing else
 * makes) with a user notification: heel-exec loads it with a listener
 * and the command's process hands the listener to heel-broker, which
 * answers each call with a fresh socket of its own. There is no path
 * or port: nothing for the sandbox to unlink, and nothing another
 * process can reach. heel-broker stops with the command. */
#ifndef HEEL_LAUNCHER_LINUX_BROKER_H
#define HEEL_LAUNCHER_LINUX_BROKER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "artifact_read.h"
#include "env.h"
#include "linux_helper.h"

struct linux_broker {
	struct helper h;           /* heel-broker's process and control socket */
	char exe[PATH_MAX];        /* heel-broker, beside heel-exec */
	char client[PATH_MAX];     /* heel-ipc, beside heel-exec */
	char dir[PATH_MAX];        /* the commands' directory (a mount point on
				    * the host, a tmpfs in the view); "" */
	int dir_lock;              /* dir's lock (wd_mount_point), valid while
				    * dir_locked */
	bool dir_locked;
	const char **names;        /* the commands, from the artifact */
	size_t nnames;
};

/* Whether the policy declares a host command for Linux. */
bool linux_broker_wanted(const struct art_view *view);

/* What a launch needs before anything is made: heel-broker and heel-ipc
 * beside heel-exec, and every command's program, none of them one a
 * sandbox could have written (hostcheck.h: this launch's places and
 * every earlier run's). 0, or -errno with one line in err. For
 * `heel-exec check` too. */
int linux_broker_check(struct linux_broker *b, const struct art_view *view,
		       const struct hc_places *ps, char *err, size_t errlen);

/* After linux_broker_check: starts heel-broker and sends it the
 * commands, the audit sink (opened and checked here, handed over open)
 * and the user's variables it passes on (from vars->env). 0, or -errno
 * with one line in err. */
int linux_broker_start(struct linux_broker *b, const struct art_view *view,
		       const struct hc_places *ps, const struct envb_launch *vars, char *err,
		       size_t errlen);

/* Once the working directory is known: sends its path as the sandbox
 * sees it, makes the commands' directory and puts it first on the
 * sandbox's PATH. 0, or -errno with one line in err. */
int linux_broker_prepare(struct linux_broker *b, const struct art_view *view,
			 const char *workdir, char *const *host_env, struct envb *env, char *err,
			 size_t errlen);

/* In the command's process, after seccomp was loaded with a listener:
 * sends heel-broker the listener and the working directory (O_PATH, in
 * the sandbox's mount namespace) and waits for "ready". Closes both. 0,
 * or -errno with one line in err. */
int linux_broker_hand_over(struct linux_broker *b, int listener, int workdir_fd, char *err,
			   size_t errlen);

/* After the command's tree is gone: stops heel-broker (it kills the calls
 * still running) and removes the mount point (b->dir stays set when that
 * fails: -errno). */
int linux_broker_stop(struct linux_broker *b);

#endif

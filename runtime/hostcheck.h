/* SPDX-License-Identifier: MIT
 * The one check heel's host side makes before it runs a program (a host
 * command, the network decider, heel's own helpers, python3 and a venv),
 * opens a file to append to (an audit sink) or grants a path a user
 * named: could a sandbox — of this launch, or of any earlier run the
 * ledger records (ledger.h) — have changed that file, or a directory or
 * symbolic link its path passes through? A sandbox that could would be
 * running its own code on the host, or steering what the host writes.
 *
 * Decided by file identity (device and inode), never by spelling: a
 * place granted as `${CWD}`, as a relative path, through a link or a
 * bind mount is the same place. The path is walked one component at a
 * time with O_NOFOLLOW and each link is followed by hand, so what is
 * checked is what is then opened, and no link is followed that a sandbox
 * could have planted. A sandbox writes as its user, so a file this user
 * cannot change (a root-owned /usr/bin under `isolation permissive`) is
 * not counted. Where a check cannot be made it errs on the side of the
 * host: a writable grant whose ${NAME} cannot be expanded refuses, and
 * without a readable ledger every place this user can change counts as
 * written by an earlier sandbox.
 *
 * tests/hostside/callers.sh lists every place heel's host side runs,
 * opens or grants a path, and fails when one does not come through here.
 * libc only; never prints. heel(5), WHAT PERSISTS BETWEEN RUNS. */
#ifndef HEEL_RUNTIME_HOSTCHECK_H
#define HEEL_RUNTIME_HOSTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "artifact_read.h"
#include "env.h"
#include "ledger.h"

enum hc_use {
	HC_RUN,      /* a program the host runs while or after this launch's
		      * sandbox runs: it, its #! interpreter, and every
		      * directory and link their paths pass through */
	HC_START,    /* the same for a program started before this launch's
		      * sandbox, and not again in this launch (heel-exec when
		      * heel starts it, python3 making a venv): only what
		      * earlier runs could write counts, since this launch's
		      * sandbox has not run yet (the next launch finds its
		      * places in the ledger) */
	HC_RUN_TREE, /* a directory the host runs code from (a venv): as
		      * HC_RUN, and no writable place lies beneath it */
	HC_APPEND,   /* a file the host appends to, or a directory it makes
		      * such files in (an audit sink): not in a place this
		      * launch's sandbox may write; no link on the way that an
		      * earlier one could have planted */
	HC_GRANT,    /* a path a user named for a grant: no link on the way
		      * that a sandbox could have planted */
};

struct hc_place {
	char *path;   /* absolute, as expanded */
	char *why;    /* `grant "${CWD}" rw at policy.heel:3`, ... */
	bool earlier; /* recorded by an earlier run (or standing in for it) */
	bool exists;
	dev_t dev;
	ino_t ino;
};

struct hc_places {
	struct hc_place *v;
	size_t n, cap;
	struct ledger lg;
	bool no_ledger; /* earlier runs unknown: "/" stands in for them */
	char no_ledger_why[400];
};

/* Starts the set with what earlier runs recorded: the ledger named by
 * env, or, when it cannot be read, "/" (every place this user can
 * change). 0 or -ENOMEM. */
int hc_places_init(struct hc_places *ps, char *const *env);

/* Adds the places this launch's sandbox may write: each writable grant
 * of the artifact's Landlock table, expanded as the launch expands it
 * (vars: ${CWD}, relative paths, the environment). A grant that cannot
 * be expanded refuses (-errno, one line in err) unless it is optional
 * and its variable unset, since the launch then skips it. */
int hc_places_add_policy(struct hc_places *ps, const struct art_view *view,
			 const struct envb_launch *vars, char *err, size_t errlen);

/* Adds one place (a kept working directory; a front end's own). 0 or
 * -ENOMEM. */
int hc_places_add(struct hc_places *ps, const char *path, const char *why, bool earlier);

void hc_places_free(struct hc_places *ps);

/* Checks `path` (absolute) for `use`. 0 when no sandbox could have
 * changed it; else -EPERM (or -ENOENT, -ENOTDIR, -ELOOP for a path that
 * cannot be walked) with one line in err that starts with `what` and
 * names the place, why it is writable, and what to do. */
int hc_check(const struct hc_places *ps, enum hc_use use, const char *what, const char *path,
	     char *err, size_t errlen);

/* Checks `path` as HC_APPEND and opens it: a file (dir false) for
 * appending, created 0600 when missing, never through a link, refused
 * unless hc_sink_fd_problem finds none; or a directory (dir true) as O_PATH, for a
 * daily sink to open its files in. *fd, or -errno with one line in err. */
int hc_open_append(const struct hc_places *ps, const char *what, const char *path, bool dir,
		   int *fd, char *err, size_t errlen);

/* Whether fd, opened for appending, is a file only this user's own
 * lines go to: a regular file of this user with one name (a hard link
 * planted to ~/.bashrc has two). NULL, or why not. */
const char *hc_sink_fd_problem(int fd);

/* Records this launch's places (those not earlier) that exist, in the
 * ledger, before its sandbox starts. 0, or -errno with one line in err:
 * the caller decides what a launch does without a record. */
int hc_record(struct hc_places *ps, char *err, size_t errlen);

#endif

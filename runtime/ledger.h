/* SPDX-License-Identifier: MIT
 * The ledger of writable places: every place heel-exec has let a sandbox
 * of this user write (a writable grant as the launch expanded it, a kept
 * working directory), recorded before that sandbox starts. What an
 * earlier sandbox could write, it could have left behind — a rewritten
 * program, a planted link — and heel's host side (hostcheck.h) must know
 * that in every later run, whatever policy that run has.
 *
 * One file per user: $XDG_STATE_HOME/heel/writable-places, else
 * $HOME/.local/state/heel/writable-places. Text: lines starting with
 * `#` are comments; every other line is one absolute path, with `\` and
 * a newline in it written `\\` and `\n`. Removing a line (or the file)
 * is how a user says they have checked what those runs left. No sandbox
 * may change it: heel-exec keeps the directory read-only inside every
 * sandbox whatever the policy says (linux_hostrun.c).
 *
 * libc only; never prints. */
#ifndef HEEL_RUNTIME_LEDGER_H
#define HEEL_RUNTIME_LEDGER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define LEDGER_FILE "writable-places"

/* More lines than this and recording first drops the paths that no
 * longer exist (nothing an earlier sandbox left can be under them). */
#define LEDGER_PRUNE_AT 1024

struct ledger {
	char dir[PATH_MAX];  /* .../heel, absolute; "" when none could be named */
	char file[PATH_MAX]; /* dir/writable-places; "" likewise */
	char none[256];	     /* dir is "": why ("HOME is not set") */
	char **paths;	     /* what it holds, once loaded */
	size_t n, cap;
	bool loaded; /* ledger_load() read the file, or found none */
};

/* Names the ledger's directory from env (XDG_STATE_HOME when absolute,
 * else HOME when absolute and not "/"). 0, or -ENOENT with the reason in
 * lg->none. Nothing is opened. */
int ledger_locate(struct ledger *lg, char *const *env);

/* Reads the file into lg->paths. 0 when it was read or is not there
 * (nothing recorded yet: an empty ledger); -errno with one line in err
 * when it cannot be trusted or read: a link on the way from the state
 * directory, a file or directory not owned by this user or writable by
 * others, not a regular file, larger than 4 MiB. */
int ledger_load(struct ledger *lg, char *err, size_t errlen);

/* Whether `path` (absolute, no `.`/`..`) is recorded, or lies beneath a
 * recorded path. */
bool ledger_covers(const struct ledger *lg, const char *path);

/* Appends each of paths[0..n) that the ledger does not cover yet, in one
 * write, after loading it if that was not done; makes the directories it
 * needs (0700, no link followed below HOME or XDG_STATE_HOME). Past
 * LEDGER_PRUNE_AT lines, first rewrites the file without the paths that
 * no longer exist. 0, or -errno with one line in err. */
int ledger_record(struct ledger *lg, const char *const *paths, size_t n, char *err, size_t errlen);

void ledger_free(struct ledger *lg);

#endif

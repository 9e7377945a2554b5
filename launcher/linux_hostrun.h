/* SPDX-License-Identifier: MIT
 * `readonly` at launch (the host-run protection set, and a policy's own
 * `readonly` statements): which paths must stay read-only inside the
 * writable places this launch really has, after ${NAME} expansion; and,
 * after the run, what the sandbox made where such a path was missing at
 * launch, moved aside. The mounts themselves are made by the view
 * (linux_view.c); without a mount namespace the paths become Landlock
 * rules narrower than their place (runtime/landlock_apply.c carves them
 * out). Launcher code: libc only, never prints (hr_check_after reports
 * through the caller's function). heel(5), PROTECTION SETS, is the
 * specification. */
#ifndef HEEL_LAUNCHER_LINUX_HOSTRUN_H
#define HEEL_LAUNCHER_LINUX_HOSTRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "artifact_read.h"
#include "landlock_apply.h"
#include "linux_gitscan.h"

/* What this launch looks at. */
struct hr_launch {
	char *const *env;    /* the launcher's environment: ${NAME} */
	const char *cwd;     /* the launch directory: ${CWD} and relative paths */
	const char *workdir; /* a kept working directory (writable, a place of
			      * its own); NULL for a fresh one, which is a
			      * private tmpfs gone at exit */
	const char *heel_state; /* heel's ledger of writable places (ledger.h):
			      * read-only wherever a writable place holds it,
			      * whatever the policy says; NULL: none */
	const char *heel_cache; /* heel run's compile cache (userdirs.h): the
			      * same; NULL: none */
};

enum hr_kind {
	HR_MOUNT,   /* exists: a read-only bind of itself; the directories
		     * between its place and it are pinned */
	HR_MISSING, /* missing at launch: nothing to mount on; checked after
		     * the run, and what the sandbox made there moved aside */
	HR_LINK,    /* a symbolic link at launch (its target, when writable,
		     * is a guard of its own): checked after the run, and put
		     * back if the sandbox changed it */
};

struct hr_guard {
	char *path;          /* absolute, expanded */
	char *place;         /* the writable place it lies in (a mount point) */
	enum hr_kind kind;
	bool is_dir;         /* HR_MOUNT: what is mounted */
	bool exec;           /* HR_MOUNT: its place lets the sandbox run what is
			      * there (an rwx grant), and the read-only mount
			      * keeps that: readonly takes away writing only */
	char *link;          /* HR_LINK: the link's text at launch */
	size_t ndirs;        /* HR_MISSING: components below the place that were
			      * directories at launch */
	dev_t dev;           /* HR_MISSING: the first component that was not a */
	ino_t ino;           /* directory at launch (a file where a directory
			      * would be, e.g. a worktree's .git), 0 if none */
	const char *entry;   /* the statement's path (points into the artifact) */
	const char *because; /* what runs it; NULL when the policy does not say */
	uint8_t set;         /* protection set or ART_SET_NONE */
	struct art_origin origin;
};

struct hr_plan {
	struct hr_guard *g;
	size_t n, cap;
	char **pins;         /* directories between a place and an HR_MOUNT guard */
	size_t npins, cap_pins;
	size_t nplaces;      /* writable places an each-writable path was looked for in */
	struct ll_extra_rule *extra; /* hr_landlock_extras() */
	size_t nextra;
	/* Where the git repositories the sandbox made or changed are looked
	 * for after the run (linux_gitscan.h), in the order walked: the
	 * launch directory's place, the kept working directory, the home,
	 * then every writable grant that is a directory, deeper first; none
	 * unless .git/hooks or .git/config is kept read-only in each
	 * writable place (host-run). */
	char **roots;
	size_t nroots, cap_roots;
	char **granted;        /* the writable grants' paths: what is there
				* the policy made writable by name */
	size_t ngranted, cap_granted;
	struct timespec since; /* the launch: CLOCK_REALTIME_COARSE, the
				* clock the kernel stamps change times with */
};

/* Expands every `readonly` of the artifact's linux part against the
 * writable places of this launch (the Landlock table's writable grants,
 * the kept working directory, and the launch directory and the top of
 * its git work tree where those are writable) and sorts each path into a
 * guard. 0, or -errno with one line in err (a variable set to a value
 * that is not a path refuses the launch, as for a deny). */
int hr_plan_build(struct hr_plan *hp, const struct art_view *view, const struct hr_launch *hl,
		  char *err, size_t errlen);
void hr_plan_free(struct hr_plan *hp);

/* How many guards of kind k. */
size_t hr_count(const struct hr_plan *hp, enum hr_kind k);

/* "host-run" where the artifact's linux part has that set on, else
 * "readonly" (a policy's own statements only): how messages name them. */
const char *hr_label(const struct art_view *view);

/* One line for `heel-exec check` and -v: how many paths are kept
 * read-only, and how (mountns: with the sandbox's mount namespace). */
void hr_describe(const struct hr_plan *hp, bool mountns, char *buf, size_t len);

/* For a launch without a mount namespace: one Landlock rule per
 * HR_MOUNT guard, read (and list) only, which landlock_apply carves out
 * of the writable grant above it. Owned by hp. 0 or -ENOMEM. */
int hr_landlock_extras(struct hr_plan *hp);

/* Renames `name` in `dfd` to NAME.heel-blocked.XXXXXX beside it, never
 * over anything (RENAME_NOREPLACE). 0 with the new name in `aside`, or
 * -errno. The one move-aside of host-run (linux_gitscan.c uses it). */
int hr_move_aside(int dfd, const char *name, char *aside, size_t len);

/* After the whole tree is gone: for every guard that could not be
 * mounted, whether the sandbox made something where the path was missing
 * or changed the link; what it made is moved aside to
 * NAME.heel-blocked.XXXXXX (nothing is deleted), a changed link is put
 * back, and warn() is called with one line each. Returns how many paths
 * were found changed. */
size_t hr_check_after(const struct hr_plan *hp, void (*warn)(const char *fmt, ...));

/* After hr_check_after: the git repositories below hp->roots that the
 * sandbox made or changed, checked and what git would run from them
 * moved aside (gs_check_after, with its bounds). Returns how many
 * things were moved aside; *st (may be NULL) what the walk did. */
size_t hr_check_repos(const struct hr_plan *hp, struct gs_stats *st,
		      void (*warn)(const char *fmt, ...));

/* Whether the sandbox tried to replace a file kept read-only by a
 * mount: a tool that changes a file writes NAME.lock beside it and
 * renames that over it (git config does), and the rename onto a mount
 * point fails with EBUSY ("Device or resource busy"), which names no
 * sandbox. An inotify watch on the directories of those files sees the
 * lock file made; nothing else is watched, nothing of the sandbox is on
 * its path, and its events are read once, at the end. */
struct hr_watch {
	int fd;   /* the inotify descriptor; -1: none */
	int *wd;  /* per guard: its directory's watch, or -1 */
	size_t n;
};

/* Before the fork. Sets w->fd to -1 when there is nothing to watch (or
 * inotify refuses: the explanation is then lost, nothing else). */
void hr_watch_start(const struct hr_plan *hp, struct hr_watch *w);

/* After the tree is gone: one line to warn() for each file the sandbox
 * tried to replace, saying what heel did and the way out; frees w. */
void hr_watch_report(const struct hr_plan *hp, struct hr_watch *w,
		     void (*warn)(const char *fmt, ...));

#endif

/* SPDX-License-Identifier: MIT
 * After the run, the git repositories a sandbox made or changed at any
 * depth of a persistent writable place: what in them git would run on
 * the host (a hook, a config variable that names a program, a .git file
 * or commondir that points git at another directory) is moved aside,
 * with a warning. The `.git/hooks` and `.git/config` of each writable
 * place's top are read-only mounts (linux_hostrun.c); this covers the
 * repositories below it, which a sandbox clones, inits or changes.
 * Launcher code: libc only, never prints (reports through the caller's
 * function). heel(5), PROTECTION SETS, is the specification. */
#ifndef HEEL_LAUNCHER_LINUX_GITSCAN_H
#define HEEL_LAUNCHER_LINUX_GITSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* The walk's bounds, for one run over all its places. Measured (a warm
 * cache, ext4, 2 loaded cores): about 0.25 us an entry and 10 us a
 * directory (100,000 files in 1,100 directories 25-40 ms, /usr's 167,000
 * entries 200 ms, a whole Debian system's 620,000 0.5 s); the bound is
 * about a second of the launcher's exit. What lies past it is named in
 * a warning, never skipped silently. */
#define GS_MAX_ENTRIES 1000000
/* Directories below a place: a tree deeper than this is a sandbox's
 * doing (node_modules nests a few dozen); past it, a warning. */
#define GS_MAX_DEPTH 128

#define GS_VAR_MAX 128

/* A variable of a git config file that makes git run a program. */
struct gs_finding {
	char var[GS_VAR_MAX]; /* as git names it, lower-case but the subsection:
			       * core.fsmonitor, diff.evil.textconv */
	const char *why;      /* what in git runs it */
	unsigned line;        /* where it is set (or, -EINVAL, where git's
			       * syntax is broken) */
	size_t count;         /* how many such variables the file sets */
};

/* Reads `len` bytes of a git config file the way git does (sections,
 * subsections in either spelling, quoting, escapes, continuation lines,
 * comments, a key on the line of its section header) and looks for the
 * variables that make git run a program (the table in linux_gitscan.c,
 * made complete from git-config(1) of git 2.39). 1 with *f set to the
 * first; 0 when there is none; -EINVAL when the text is not what git
 * reads as config (git refuses such a file, but heel cannot be sure it
 * reads it as git would), with f->line. */
int gs_config_scan(const char *text, size_t len, struct gs_finding *f);

/* What one check after the run looks at. */
struct gs_scope {
	char *const *roots;   /* absolute directories, in the order walked */
	size_t nroots;
	char *const *granted; /* paths the policy grants writable by name: an
			       * explicit grant of the very path beats host-run,
			       * so what is there is left as it is */
	size_t ngranted;
	struct timespec since; /* the launch, CLOCK_REALTIME_COARSE */
	size_t max_entries;    /* GS_MAX_ENTRIES */
	unsigned max_depth;    /* GS_MAX_DEPTH */
};

struct gs_stats {
	size_t entries; /* directory entries read */
	size_t dirs;    /* directories opened */
	size_t repos;   /* git directories found */
	size_t changed; /* of those, made or changed during the run */
	size_t moved;   /* things moved aside (or found and not movable) */
	size_t partial; /* places not fully checked (each warned about) */
};

/* Walks each of sc->roots (each walked once, an earlier one skipped
 * where a later one holds it) on the host, never following a link,
 * across mount points but not into file systems that hold no files
 * (proc, sysfs, cgroup, ...). A git directory is a directory that holds
 * HEAD and objects/ and refs/ (a .git, a bare repository, a submodule's
 * under .git/modules) or HEAD and commondir (a linked worktree's). In
 * each, what changed at or after sc->since (compared with the inode's
 * change time, which the sandbox cannot set) is moved aside to
 * NAME.heel-blocked.XXXXXX with a warning: the config and
 * config.worktree when they set a variable that runs a program (or
 * cannot be read as git config, or are a link or not a regular file:
 * neither is followed nor opened), every hook but git's own *.sample, a
 * hooks that is not a directory, a commondir; and a .git that is not a
 * directory, wherever it is. A warning names each place not fully
 * checked (the bounds, a changed directory that cannot be read).
 * Returns how many things were moved aside or found and not movable;
 * *st (may be NULL) says what the walk did. */
size_t gs_check_after(const struct gs_scope *sc, struct gs_stats *st,
		      void (*warn)(const char *fmt, ...));

#endif

/* SPDX-License-Identifier: MIT
 * The tool caches of `heel run` (heel(1), TOOL CACHES): npm, pip, uv,
 * yarn, Go, Gradle, Maven (and cargo where the user has no CARGO_HOME)
 * write their downloads to a directory of the sandbox's own, never to
 * the host's (~/.npm, ~/.cache/pip): a cache the host's own tools read
 * would let a sandbox plant a package the host installs later. One
 * directory per user and per directory heel run is started in (a
 * project), beneath $XDG_CACHE_HOME/heel-sandbox or ~/.cache/heel-
 * sandbox, granted writable to that project's sandboxes, and so recorded
 * in the ledger of writable places like any writable grant: heel's host
 * side never runs what is in it. The tools' variables are set only where
 * the policy does not set or pass them itself. heel removes a project's
 * cache after 30 days without use, and the least recently used beyond 32
 * projects, at most once a day. */
#ifndef HEEL_FRONT_TOOLCACHE_H
#define HEEL_FRONT_TOOLCACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "artifact_read.h"
#include "settings.h"

#define TC_BASE_NAME "heel-sandbox"
#define TC_MAX_VARS 12
/* Unused this long, a project's cache goes; and past this many, the
 * least recently used. Looked at once a day. */
#define TC_MAX_AGE_DAYS 30
#define TC_MAX_PROJECTS 32

struct tc_var {
	const char *name;
	char value[PATH_MAX + 32];
};

struct tc_plan {
	char dir[PATH_MAX];	  /* the project's cache, made; "" for none */
	struct tc_var vars[TC_MAX_VARS];
	size_t nvars;
	char why[PATH_MAX + 256]; /* no caches: why (-v); a failure: the warning */
	int warn;		  /* why is a failure to say, not a choice */
};

/* Whether the policy decides the variable `name` itself: it sets it, or
 * passes it and heel's environment `env` has it (a pass of a variable
 * heel does not have passes nothing). */
bool tc_policy_decides(const struct art_view *view, const char *name, char *const *env);

/* Decides the tool caches of a launch: `view` is the policy compiled
 * without them, `cwd` heel's directory (the project), `env` heel's
 * environment, `want` --tool-caches (unset: on, except under strict
 * isolation). Makes the directories (0700, no link followed below the
 * cache home) and marks the project's cache used. Never fails the
 * launch: 0 always; tp->dir "" and tp->why say why there are none. */
int tc_plan(struct tc_plan *tp, const struct art_view *view, const char *cwd, char *const *env,
	    enum settings_tri want);

/* Removes the projects' caches unused for TC_MAX_AGE_DAYS and the least
 * recently used beyond TC_MAX_PROJECTS, at most once a day (the time of
 * the last look is the stamp file .pruned). Best effort, quiet: a cache
 * that is not removed now is removed on a later day. */
void tc_prune(char *const *env);

#endif

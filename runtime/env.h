/* SPDX-License-Identifier: MIT
 * The sandbox's environment, built from scratch: a small safe set copied
 * from the launcher's environment, then the policy's `env pass` and
 * `env set`, then TMPDIR/TMP/TEMP, which nothing may override. Whatever
 * else the launcher holds (tokens, keys) never reaches the command.
 * Portable C17; never prints. */
#ifndef HEEL_RUNTIME_ENV_H
#define HEEL_RUNTIME_ENV_H

#include <stddef.h>

#include "artifact_read.h"

#define ENVB_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* An environment under construction: "NAME=value" strings, each name at
 * most once. envb_free() frees the strings and the vector. */
struct envb {
	char **vars; /* NULL-terminated once anything was added */
	size_t n;
	size_t cap;
};

void envb_init(struct envb *b);
void envb_free(struct envb *b);

/* Sets NAME to value, replacing an earlier NAME. 0, -EINVAL for a name
 * that is empty or holds '=', or -ENOMEM. */
int envb_set(struct envb *b, const char *name, const char *value);

/* The value of NAME in b, or NULL. */
const char *envb_get(const struct envb *b, const char *name);

/* The value of NAME in a "NAME=value" vector (first occurrence, as
 * getenv), or NULL. */
const char *envb_lookup(char *const *env, const char *name);

/* The variables of a launch, for px_expand (pathexpand.h): ${CWD} is
 * the launch directory, ${WORKDIR} the sandbox's working directory (NULL
 * where it has none yet: heelc refuses it in most paths), and every other
 * name comes from the launcher's environment. The one lookup every path
 * of a launch is expanded with, so that a check and the launch it guards
 * agree on what a grant names. */
struct envb_launch {
	char *const *env;
	const char *cwd;
	const char *workdir;
};
const char *envb_launch_lookup(const char *name, void *ctx);

/* HOME as the user spells it may cross symbolic links (/home/bob ->
 * /data/bob, Fedora Atomic's /home -> /var/home); heel-exec refuses a
 * grant through a link (RESOLVE_NO_SYMLINKS), so `grant "${HOME}"` would
 * grant nothing. The launcher's environment is trusted: HOME is
 * resolved once, where a launch starts, the way a path the user names
 * is (heel(1), PATHS), and every later ${HOME} is the real place.
 * Whether a link on the way is one a sandbox could have planted the
 * caller checks against the launch's places (hc_check, HC_GRANT), with
 * the spelling. Returns 1 with the resolved path in out when HOME is
 * absolute, exists and crosses a link; 0 when it does not (unset,
 * relative, missing, or crossing no link: then it stays as spelled,
 * `//` and `..` included); -ENAMETOOLONG. */
int envb_home_resolved(char *const *env, char *out, size_t outlen);

/* Builds the sandbox environment for `platform` (enum art_platform) from
 * the launcher's environment `host` and the policy: PATH, HOME, USER,
 * TERM, TZ, SHELL and the locale (LANG, LANGUAGE, LC_ALL and the twelve
 * LC_ categories glibc defines, by name) when host has them (PATH
 * defaults to ENVB_DEFAULT_PATH), the policy's `env pass` names that host has, its
 * `env set` pairs, and last TMPDIR, TMP and TEMP = tmpdir and
 * HEEL_SANDBOX=1. 0 or -errno;
 * on failure b holds what was built so far (free it). */
int envb_build(struct envb *b, char *const *host, const struct art_view *view,
	       unsigned platform, const char *tmpdir);

#endif

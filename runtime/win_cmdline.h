/* SPDX-License-Identifier: MIT
 * What CreateProcessW is handed besides the image: the command line, in
 * which argv is flattened so that the child's C runtime splits it back
 * into the same strings, and the environment block, sorted the way
 * Windows requires. Portable C17, libc only (UTF-8 here; the launcher
 * converts to UTF-16); unit-tested on Linux. */
#ifndef HEEL_RUNTIME_WIN_CMDLINE_H
#define HEEL_RUNTIME_WIN_CMDLINE_H

#include <stddef.h>

struct art_view;

/* Joins argv[0..argc) with the quoting of the Microsoft C runtime's
 * argument parser (the rules documented as "Parsing C command-line
 * arguments"): an argument that is empty or holds a space, tab, newline,
 * vertical tab or '"' is quoted; inside quotes, backslashes are literal
 * unless they precede a '"', where each is doubled and the quote is
 * escaped, and the ones before the closing quote are doubled. argv[0] is
 * parsed by other rules (no escapes at all), so one holding '"' is
 * refused. Returns the malloc'd line (caller frees) or NULL with errno
 * EINVAL (argc 0 or such an argv[0]) or ENOMEM. */
char *win_cmdline_join(int argc, char *const *argv);

/* An environment under construction: "NAME=value" strings, names unique
 * without regard to case (Windows looks them up that way). */
struct win_env {
	char **vars;
	size_t n;
	size_t cap;
};

void win_env_init(struct win_env *e);
void win_env_free(struct win_env *e);

/* Sets NAME (replacing any spelling of it). 0, -EINVAL (empty name, or
 * '=' in it past the first character), -ENOMEM. */
int win_env_set(struct win_env *e, const char *name, const char *value);

/* The value of NAME in a "NAME=value" vector, compared without case. */
const char *win_env_lookup(char *const *vars, size_t n, const char *name);

/* The sandbox's environment: the variables Windows programs expect to
 * find (system paths, processor, profile directories, PATH) copied from
 * host, the policy's `env pass` and `env set` for windows (view may have
 * no ENV section), then TEMP and TMP = temp, and, when proxy is not NULL,
 * HTTP_PROXY, HTTPS_PROXY and ALL_PROXY = proxy. Nothing else of host
 * reaches the command. 0 or -errno. */
int win_env_build(struct win_env *e, char *const *host, size_t nhost, const struct art_view *view,
		  const char *temp, const char *proxy);

/* Sorts e by name as Windows requires of a block handed to
 * CreateProcessW (ordinal, upper-cased; "=C:" entries first). */
void win_env_sort(struct win_env *e);

#endif

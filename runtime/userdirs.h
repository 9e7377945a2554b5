/* SPDX-License-Identifier: MIT
 * Where a user's own things are on the host, for heel's host side: the
 * home (HOME, or /etc/passwd's when HOME is unset), the cache home of the
 * XDG base directory specification, and heel run's compile cache in it.
 * One answer for the front end that fills the compile cache and the
 * launcher that keeps it read-only in every sandbox: were they to
 * disagree, a sandbox could write the artifacts of a later `heel run`.
 * libc only; never prints. */
#ifndef HEEL_RUNTIME_USERDIRS_H
#define HEEL_RUNTIME_USERDIRS_H

#include <stddef.h>

/* The home /etc/passwd gives this user, into buf, when it is a
 * directory and not "/" (nobody's /nonexistent is not); NULL otherwise.
 * Read by hand: getpwuid(3) in a static binary needs glibc's NSS
 * modules, so a user only a directory service knows has none. */
const char *ud_passwd_home(char *buf, size_t len);

/* The home: HOME when it is set (absolute and not "/", else -EINVAL);
 * when HOME is unset or empty, ud_passwd_home's (-ENOENT if none). 0
 * with the path in buf. */
int ud_home(char *const *env, char *buf, size_t len);

/* The cache home: XDG_CACHE_HOME when absolute (the specification
 * ignores a relative one), else HOME/.cache by ud_home. 0 or -errno. */
int ud_cache_home(char *const *env, char *buf, size_t len);

/* heel run's compile cache: the cache home's "heel". 0 or -errno. */
int ud_compile_cache(char *const *env, char *buf, size_t len);

#endif

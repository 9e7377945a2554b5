/* SPDX-License-Identifier: MIT
 * errno names and their Linux values, for `seccomp deny "X" errno ENAME`.
 * The values are the kernel's asm-generic ones (shared by x86_64 and
 * aarch64), written out rather than taken from the build host's
 * <errno.h>, so heelc built anywhere emits the same filter. */
#ifndef HEEL_COMPILER_ERRNO_NAMES_H
#define HEEL_COMPILER_ERRNO_NAMES_H

/* The Linux value of errno `name` (e.g. "EPERM" -> 1), or -1. */
int errno_value(const char *name);

/* The canonical name of a Linux errno value, or NULL. */
const char *errno_name(int value);

/* Every name, NULL-terminated (for "did you mean"). */
const char *const *errno_names(void);

#endif

/* SPDX-License-Identifier: MIT
 * Syscall names for `seccomp deny|allow "NAME"`: a name is known when
 * libseccomp resolves it on x86_64 or aarch64, the two architectures the
 * artifact carries filters for. */
#ifndef HEEL_COMPILER_SYSCALLS_H
#define HEEL_COMPILER_SYSCALLS_H

#include <stdbool.h>

bool syscalls_known(const char *name);

/* Calls no policy may allow: the escapes DESIGN.md "What seccomp must
 * always deny" keeps closed whatever the policy says. */
bool syscalls_never_allowable(const char *name);

/* Every known name, NULL-terminated, for "did you mean"; built on first
 * use and kept for the life of the process. NULL on out-of-memory. */
const char *const *syscalls_names(void);

#endif

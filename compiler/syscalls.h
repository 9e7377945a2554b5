/* SPDX-License-Identifier: MIT
 * Syscall names for `seccomp deny|allow "NAME"`, answered from the seccomp
 * backend's own tables (seccomp_policy.h, generated from the kernel UAPI
 * headers), so that sema accepts exactly the names the backend can place
 * in a filter: a name is known when x86_64 or aarch64 has it. */
#ifndef HEEL_COMPILER_SYSCALLS_H
#define HEEL_COMPILER_SYSCALLS_H

#include <stdbool.h>

bool syscalls_known(const char *name);

/* Calls no policy may allow: each one is an escape on its own (another
 * process's memory, kernel code or programs, io_uring's unfiltered
 * operations), so it stays closed whatever the policy says (the
 * backend's own list, scp_never_allowable). */
bool syscalls_never_allowable(const char *name);

/* Every known name, sorted, NULL-terminated, for "did you mean"; built on
 * first use (once, whatever the threads) and kept for the life of the
 * process. NULL on out-of-memory. */
const char *const *syscalls_names(void);

#endif

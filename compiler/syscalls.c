/* SPDX-License-Identifier: MIT
 * Syscall name lookup through libseccomp (see syscalls.h). */
#include "syscalls.h"

#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t arches[] = {SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64};
#define NARCHES (sizeof(arches) / sizeof(arches[0]))

/* Highest syscall number probed when listing names: both architectures
 * stay well below it (x86_64 ~460, aarch64 ~460 as of Linux 6.x). */
#define MAX_NR 1000

bool
syscalls_known(const char *name)
{
	if (!name || !*name)
		return false;
	/* libseccomp answers negative pseudo-numbers for names that exist
	 * only on other architectures (e.g. "socketcall"): only a real,
	 * non-negative number counts. */
	for (size_t i = 0; i < NARCHES; i++)
		if (seccomp_syscall_resolve_name_arch(arches[i], name) >= 0)
			return true;
	return false;
}

static const char *const never_allowable[] = {
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "perf_event_open",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    NULL,
};

bool
syscalls_never_allowable(const char *name)
{
	for (size_t i = 0; never_allowable[i]; i++)
		if (strcmp(never_allowable[i], name) == 0)
			return true;
	return false;
}

static char **cached;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *const *
syscalls_names(void)
{
	char **v;
	size_t n = 0, w = 0;

	if (cached)
		return (const char *const *)cached;
	v = calloc(NARCHES * MAX_NR + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t a = 0; a < NARCHES; a++)
		for (int nr = 0; nr < MAX_NR; nr++) {
			char *s = seccomp_syscall_resolve_num_arch(arches[a], nr);

			if (s)
				v[n++] = s;
		}
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (w && strcmp(v[w - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[w++] = v[i];
	}
	v[w] = NULL;
	cached = v;
	return (const char *const *)cached;
}

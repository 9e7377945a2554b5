/* SPDX-License-Identifier: MIT
 * Syscall name lookup through the seccomp backend's tables (see
 * syscalls.h). libseccomp is not asked: its name list differs from the
 * UAPI headers heel builds filters from (it lacks the newest calls, such
 * as open_tree_attr), and sema must agree with the backend. */
#include "syscalls.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seccomp_policy.h"

bool
syscalls_known(const char *name)
{
	uint32_t nr;

	if (!name || !*name)
		return false;
	for (int a = 0; a < SCP_ARCH_COUNT; a++)
		if (scp_lookup((enum scp_arch)a, name, &nr) == 0)
			return true;
	return false;
}

bool
syscalls_never_allowable(const char *name)
{
	return name && scp_never_allowable(name);
}

/* Built once, by whichever thread asks first (libheel compiles on many
 * threads at once); NULL for good if memory was short then. */
static const char **cached;
static pthread_once_t cached_once = PTHREAD_ONCE_INIT;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
build_names(void)
{
	size_t total = 0, n = 0, w = 0;
	const char **v;

	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		size_t len;

		scp_table((enum scp_arch)a, &len);
		total += len;
	}
	v = calloc(total + 1, sizeof(*v));
	if (!v)
		return;
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		size_t len;
		const struct scp_syscall *t = scp_table((enum scp_arch)a, &len);

		for (size_t i = 0; i < len; i++)
			v[n++] = t[i].name;
	}
	/* The names live in the static tables: only the array is ours. */
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!w || strcmp(v[w - 1], v[i]) != 0)
			v[w++] = v[i];
	v[w] = NULL;
	cached = v;
}

const char *const *
syscalls_names(void)
{
	pthread_once(&cached_once, build_names);
	return cached;
}

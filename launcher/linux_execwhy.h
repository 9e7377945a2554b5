/* SPDX-License-Identifier: MIT
 * Why the command could not be executed (exit 126), in words a user can
 * act on: which file, what in the policy refuses it (a writable place,
 * shared temp, the working directory, a protection set, a deny, a read
 * grant, nothing at all) and the way out (the policy statement and the
 * heel run option: --executable, --grant PATH=rwx, --protect-SET=false,
 * a stock preset that grants it). Decided on the parent's side, after
 * the child's execve failed, from the artifact's path rules expanded as
 * the launch expanded them: the same longest-path rule heel(5)
 * PRECEDENCE gives. libc only; never prints. */
#ifndef HEEL_LAUNCHER_LINUX_EXECWHY_H
#define HEEL_LAUNCHER_LINUX_EXECWHY_H

#include <stddef.h>

#include "artifact_read.h"
#include "env.h"

/* The variables the policy's paths and the presets' grants name, copied
 * from the launcher's environment before heel-exec wipes it (linux.c,
 * wipe_environ): only those, never the rest. 0 or -ENOMEM; free with
 * envb_free. */
int xw_keep_env(const struct art_view *view, char *const *env, struct envb *out);

struct xw_launch {
	const struct art_view *view;
	char *const *env;      /* for ${NAME}: what xw_keep_env kept */
	const char *cwd;       /* ${CWD}: the launch directory */
	const char *workdir;   /* the sandbox's working directory */
	const char *start_dir; /* where the command started; NULL: workdir */
};

/* Appends to out (a NUL-terminated line of outlen bytes) the lines that
 * explain why `tried` (the file execve failed on, as the command named
 * it) could not run with errno err, each starting "\n  "; and, when
 * `later` is not empty, that PATH held another program of that name
 * which was not run in its place. Appends nothing it cannot decide. */
void xw_explain(const struct xw_launch *xl, const char *tried, const char *later, int err,
		char *out, size_t outlen);

/* The stock presets' executable grants on Linux, for "or --preset
 * NAME": policies/NAME.heel says the same (tests/unit/test_execwhy.c
 * compiles each preset and compares). */
struct xw_preset_grant {
	const char *preset;
	const char *path; /* template, as the preset writes it */
};
extern const struct xw_preset_grant xw_preset_grants[];
extern const size_t xw_npreset_grants;

#endif

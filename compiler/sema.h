/* SPDX-License-Identifier: MIT
 * Semantic analysis: loads a policy and its includes, checks every
 * statement, and builds the IR (ir.h). */
#ifndef HEEL_COMPILER_SEMA_H
#define HEEL_COMPILER_SEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "ir.h"

struct sema_options {
	const char *path;     /* the top policy file, as named on the command line */
	const char *text;     /* when non-NULL: its contents (len bytes), not read from disk */
	size_t len;
	unsigned platforms;   /* IR_PLAT_BIT mask of targets; 0 = all */
	bool target_explicit; /* --target given: an unbuildable platform is an error, not a warning */
	bool top_overrides_quietly; /* the top text is `heel run`'s options: its scalars replace
				     * what it includes without a warning */
};

/* Compiles the policy. Diagnostics go to `ctx`. On success *out is the IR
 * (caller frees with ir_policy_free).
 * Returns 0; -EINVAL when the policy has errors (exit 1); -EIO when the top
 * file cannot be read (exit 3); -ENOMEM. */
int sema_compile(struct diag_ctx *ctx, const struct sema_options *opts,
		 struct ir_policy **out);

#endif

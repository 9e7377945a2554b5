/* SPDX-License-Identifier: MIT
 * `heelc explain`: what a policy allows, in words for a reviewer or as
 * JSON for tools, every item pointing at the line that caused it. */
#ifndef HEEL_COMPILER_EXPLAIN_H
#define HEEL_COMPILER_EXPLAIN_H

#include <stdio.h>

#include "ir.h"

/* Both return 0, or -EIO when writing to `out` failed, -ENOMEM, or
 * -ENOENT when the policy is built for none of the platforms asked for.
 * `name` is the file being explained, shown in the heading. `shown` is an
 * IR_PLAT_BIT mask: only what applies on those platforms is explained
 * (IR_PLAT_ALL: every platform the policy is built for). */
int explain_text(const struct ir_policy *policy, const char *name, unsigned shown, FILE *out);
int explain_json(const struct ir_policy *policy, const char *name, unsigned shown, FILE *out);

#endif

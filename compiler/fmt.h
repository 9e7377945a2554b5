/* SPDX-License-Identifier: MIT
 * The canonical layout of a policy text (heelc fmt), comments kept. */
#ifndef HEEL_COMPILER_FMT_H
#define HEEL_COMPILER_FMT_H

#include <stddef.h>

#include "ast.h"

/* Renders `file` in canonical form into a malloc'ed NUL-terminated buffer
 * (*out, caller frees; *len its length). Only call on a file that parsed
 * without errors. Returns 0 or -ENOMEM. */
int fmt_render(const struct ast_file *file, char **out, size_t *len);

#endif

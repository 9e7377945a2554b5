/* SPDX-License-Identifier: MIT
 * Entry point of the grammar: one policy text in, one syntax tree out. */
#ifndef HEEL_COMPILER_PARSE_H
#define HEEL_COMPILER_PARSE_H

#include "ast.h"
#include "diag.h"

/* Parses `src` (registered in `ctx`). Syntax errors are pushed to `ctx`;
 * the parser recovers at the end of the statement, so one run reports
 * every error. *out receives the tree of what did parse (caller frees
 * with ast_file_free) even when there were errors.
 * Returns 0, -EINVAL when any error was pushed, -ENOMEM. */
int parse_source(struct diag_ctx *ctx, const struct diag_source *src,
		 struct ast_file **out);

#endif

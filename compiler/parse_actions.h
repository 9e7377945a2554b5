/* SPDX-License-Identifier: MIT
 * What the generated scanner and parser (grammar/lexer.l, grammar/parser.y)
 * call in compiler/parse.c: the keyword table, token names, and the
 * wording of syntax errors. Only the grammar, parse.c and the lexer's
 * tests include this; everything else goes through parse.h. */
#ifndef HEEL_COMPILER_PARSE_ACTIONS_H
#define HEEL_COMPILER_PARSE_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* struct parse_ctx, the token numbers and HEEL_YYLTYPE (generated). */
#include "parser.h"

/* The token of keyword `s` (len bytes, lower-case), or 0 when it is none. */
int parse_keyword(const char *s, size_t len);

/* How token `tok` is written in a policy ("grant", "`{`", ...). */
const char *parse_token_spelling(int tok);

/* Whether `tok` can start a statement. */
bool parse_is_statement_keyword(int tok);

/* Pushes the diagnostic for the syntax error at ctx's lookahead, worded
 * from the statement and block it is in. */
void parse_syntax_error(struct parse_ctx *ctx);

/* Bison's "memory exhausted" at `loc`: out of memory, or blocks nested
 * deeper than its stack; the parse then stops. */
void parse_fatal_error(struct parse_ctx *ctx, const HEEL_YYLTYPE *loc, const char *msg);

#endif

/* SPDX-License-Identifier: MIT
 * Syntax tree nodes (see ast.h): construction by the grammar, release, and
 * the mapping from a string's decoded bytes back to source columns. */
#include "ast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct ast_stmt *
ast_stmt_new(enum ast_kind kind, struct diag_loc loc)
{
	struct ast_stmt *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->loc = loc;
	s->last_line = loc.line;
	return s;
}

int
ast_stmt_add_arg(struct ast_stmt *stmt, struct ast_arg *arg)
{
	size_t n = stmt->nargs;
	struct ast_arg *grown;

	/* Lists such as `env pass` may be long: grown by doubling. */
	grown = grow_array(stmt->args, &stmt->cap_args, n + 1, sizeof(*grown), 2);
	if (!grown) {
		ast_arg_clear(arg);
		return -ENOMEM;
	}
	stmt->args = grown;
	stmt->args[n] = *arg;
	stmt->nargs = n + 1;
	memset(arg, 0, sizeof(*arg));
	return 0;
}

struct ast_stmt *
ast_stmt_append(struct ast_stmt *list, struct ast_stmt *stmt)
{
	struct ast_stmt *last = list;

	if (!list)
		return stmt;
	while (last->next)
		last = last->next;
	last->next = stmt;
	return list;
}

void
ast_arg_clear(struct ast_arg *arg)
{
	if (!arg)
		return;
	free(arg->text);
	free(arg->raw);
	memset(arg, 0, sizeof(*arg));
}

void
ast_stmt_free(struct ast_stmt *stmt)
{
	while (stmt) {
		struct ast_stmt *next = stmt->next;

		for (size_t i = 0; i < stmt->nargs; i++)
			ast_arg_clear(&stmt->args[i]);
		free(stmt->args);
		/* Children nest only as deep as blocks do (the parser's
		 * stack bounds that), so recursion is safe here. */
		ast_stmt_free(stmt->children);
		free(stmt);
		stmt = next;
	}
}

void
ast_file_free(struct ast_file *file)
{
	if (!file)
		return;
	ast_stmt_free(file->stmts);
	for (size_t i = 0; i < file->ncomments; i++)
		free(file->comments[i].text);
	free(file->comments);
	free(file->blank);
	free(file);
}

static const char *const kind_names[AST_KIND_COUNT] = {
	[AST_HEEL] = "heel",
	[AST_ISOLATION] = "isolation",
	[AST_INCLUDE] = "include",
	[AST_GRANT] = "grant",
	[AST_DENY] = "deny",
	[AST_PROTECT] = "protect",
	[AST_UNPROTECT] = "unprotect",
	[AST_ALLOW_GPU] = "allow gpu",
	[AST_DENY_GPU] = "deny gpu",
	[AST_NETWORK_DENY] = "network deny",
	[AST_NETWORK_ALLOW_ALL] = "network allow-all",
	[AST_NETWORK_ALLOW] = "network allow",
	[AST_PATTERN] = "pattern",
	[AST_NETWORK_ALLOW_PRIVATE] = "network allow-private",
	[AST_NETWORK_AUDIT] = "network audit",
	[AST_NETWORK_DECIDE] = "network decide",
	[AST_LIMIT] = "limit",
	[AST_NICE] = "nice",
	[AST_IO_PRIORITY] = "io-priority",
	[AST_ENV_PASS] = "env pass",
	[AST_ENV_SET] = "env set",
	[AST_WORKDIR] = "workdir",
	[AST_IPC] = "ipc",
	[AST_IPC_EXEC] = "exec",
	[AST_IPC_POSITIONAL] = "positional",
	[AST_IPC_TIMEOUT] = "timeout",
	[AST_IPC_ARG] = "arg",
	[AST_PYTHON] = "python",
	[AST_PY_VENV] = "venv",
	[AST_PY_PACKAGES] = "packages",
	[AST_PY_ALLOW_PIP] = "allow-pip-install",
	[AST_ON] = "on",
	[AST_SECCOMP] = "seccomp",
	[AST_ALLOW_UNIX_SOCKETS] = "allow unix-sockets",
	[AST_ALLOW_MACH_LOOKUP] = "allow mach-lookup",
	[AST_SBPL] = "sbpl",
	[AST_CAPABILITY] = "capability",
	[AST_READONLY] = "readonly",
};

const char *
ast_kind_name(enum ast_kind kind)
{
	if ((unsigned)kind >= AST_KIND_COUNT || !kind_names[kind])
		return "?";
	return kind_names[kind];
}

static int
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Walks `raw` with the scanner's decoding rules (lexer.l, lex_string):
 * \" \\ \n \t and \xHH are one byte each; an invalid escape keeps its
 * backslash as one byte; everything else is copied byte for byte. Columns
 * count UTF-8 lead bytes, as diag_column_of() does. */
struct diag_loc
ast_string_loc(const struct ast_arg *arg, size_t byte)
{
	struct diag_loc loc = arg->loc;
	const unsigned char *r = (const unsigned char *)arg->raw;
	size_t i = 0, o = 0, n;
	uint32_t cols = 0;

	if (arg->kind != AST_ARG_STRING || !r)
		return loc;
	n = strlen(arg->raw);
	while (i < n && o < byte) {
		size_t src = 1;

		if (r[i] == '\\' && i + 1 < n) {
			unsigned char e = r[i + 1];

			if (e == '"' || e == '\\' || e == 'n' || e == 't')
				src = 2;
			else if (e == 'x' && i + 3 < n && is_hex(r[i + 2]) &&
				 is_hex(r[i + 3]))
				src = 4;
		}
		o++;
		i += src;
	}
	/* Through r[i] inclusive: a continuation byte maps to the column
	 * of the character it belongs to; past the end, the closing quote. */
	for (size_t j = 0; j < n && j <= i; j++)
		if ((r[j] & 0xC0) != 0x80)
			cols++;
	if (i >= n)
		cols++;
	/* A stray continuation byte first in the string (invalid UTF-8,
	 * already an error) still lies after the quote. */
	if (cols == 0)
		cols = 1;
	loc.col += cols;
	return loc;
}

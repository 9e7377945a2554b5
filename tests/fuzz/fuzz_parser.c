/* SPDX-License-Identifier: MIT
 * libFuzzer target for the scanner and parser: any bytes must parse or be
 * refused with diagnostics that point inside the text, without a crash,
 * a leak or an undefined operation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
count_lines(const uint8_t *data, size_t size)
{
	uint32_t n = 1;

	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n')
			n++;
	return n;
}

/* Every position the tree holds must be a real line of the input, and a
 * string's mapped columns must not run before its opening quote. */
static void
check_stmts(const struct ast_stmt *s, uint32_t nlines)
{
	for (; s; s = s->next) {
		if (s->loc.line < 1 || s->loc.line > nlines || s->loc.col < 1 ||
		    s->last_line < s->loc.line || s->last_line > nlines)
			abort();
		if ((unsigned)s->kind >= AST_KIND_COUNT || !ast_kind_name(s->kind))
			abort();
		for (size_t i = 0; i < s->nargs; i++) {
			const struct ast_arg *a = &s->args[i];

			if (!a->text || a->loc.line < 1 || a->loc.line > nlines)
				abort();
			if (a->kind == AST_ARG_STRING && a->raw) {
				/* ast_string_loc is linear: sample the
				 * start and the end, not every byte. */
				for (size_t b = 0; b <= a->len;
				     b = (b == 16 && a->len > 32) ? a->len - 16 : b + 1) {
					struct diag_loc l = ast_string_loc(a, b);

					if (l.line != a->loc.line || l.col <= a->loc.col)
						abort();
				}
			}
		}
		check_stmts(s->children, nlines);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *src;
	struct ast_file *file = NULL;
	uint32_t nlines = count_lines(data, size);
	int rc;

	if (!ctx)
		return 0;
	src = diag_add_source(ctx, "fuzz.heel", NULL, (const char *)data, size);
	if (!src) {
		diag_free(ctx);
		return 0;
	}
	rc = parse_source(ctx, src, &file);
	if (rc == 0 && diag_error_count(ctx) != 0)
		abort();
	if (rc == -22 && diag_error_count(ctx) == 0)
		abort(); /* refused without saying why */
	for (size_t i = 0; i < diag_count(ctx); i++) {
		const struct diag *d = diag_get(ctx, i);

		if (d->loc.src == src &&
		    (d->loc.line < 1 || d->loc.line > nlines || d->loc.col < 1))
			abort();
	}
	if (file) {
		check_stmts(file->stmts, nlines);
		for (size_t i = 0; i < file->ncomments; i++)
			if (file->comments[i].text[0] != '#')
				abort();
	}
	/* The renderer reads the text back at each diagnostic's position. */
	{
		FILE *null = fopen("/dev/null", "w");

		if (null) {
			diag_render(ctx, null);
			fclose(null);
		}
	}
	ast_file_free(file);
	diag_free(ctx);
	return 0;
}

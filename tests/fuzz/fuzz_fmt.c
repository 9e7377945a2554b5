/* SPDX-License-Identifier: MIT
 * libFuzzer target for `heelc fmt`: whatever parses must format to text
 * that parses again to the same statements and comments, and formatting
 * that text again must change nothing (idempotence). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fmt.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
same_statements(const struct ast_stmt *a, const struct ast_stmt *b)
{
	for (; a && b; a = a->next, b = b->next) {
		if (a->kind != b->kind || a->flags != b->flags || a->nargs != b->nargs)
			return 0;
		for (size_t i = 0; i < a->nargs; i++)
			if (a->args[i].kind != b->args[i].kind || a->args[i].len != b->args[i].len ||
			    memcmp(a->args[i].text, b->args[i].text, a->args[i].len) != 0)
				return 0;
		if (!same_statements(a->children, b->children))
			return 0;
	}
	return !a && !b;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_ctx *c1 = diag_new(), *c2 = diag_new();
	struct ast_file *f1 = NULL, *f2 = NULL;
	char *o1 = NULL, *o2 = NULL;
	size_t l1 = 0, l2 = 0;
	const struct diag_source *s1;

	if (!c1 || !c2)
		abort();
	s1 = diag_add_source(c1, "in.heel", NULL, (const char *)data, size);
	if (s1 && parse_source(c1, s1, &f1) == 0 && diag_error_count(c1) == 0) {
		const struct diag_source *s2;

		if (fmt_render(f1, &o1, &l1))
			abort();
		s2 = diag_add_source(c2, "out.heel", NULL, o1, l1);
		if (!s2 || parse_source(c2, s2, &f2) != 0) {
			diag_render(c2, stderr);
			fprintf(stderr, "fmt output does not parse:\n%s", o1);
			abort();
		}
		if (fmt_render(f2, &o2, &l2))
			abort();
		if (l1 != l2 || memcmp(o1, o2, l1) != 0) {
			fprintf(stderr, "not idempotent:\n%s---\n%s", o1, o2);
			abort();
		}
		if (f1->ncomments != f2->ncomments || !same_statements(f1->stmts, f2->stmts))
			abort();
	}
	free(o1);
	free(o2);
	ast_file_free(f1);
	ast_file_free(f2);
	diag_free(c1);
	diag_free(c2);
	return 0;
}

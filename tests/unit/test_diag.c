/* SPDX-License-Identifier: MIT
 * diag_sort(): diagnostics in the order a reader meets them (file, the
 * includes on the way, line, column), notes kept with their diagnostic. */
#include <criterion/criterion.h>
#include <string.h>

#include "diag.h"

static const struct diag_source *
source(struct diag_ctx *ctx, const char *path)
{
	const struct diag_source *s = diag_add_source(ctx, path, path, "x\ny\nz\nw\n", 8);

	cr_assert_not_null(s);
	return s;
}

static void
push(struct diag_ctx *ctx, enum diag_severity sev, const struct diag_source *src, uint32_t line,
     uint32_t col, const char *msg)
{
	struct diag_loc at = {src, line, col};

	diag_push(ctx, sev, &at, NULL, "%s", msg);
}

Test(diag, sorted_in_source_order_notes_kept)
{
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *top = source(ctx, "top.heel");
	const struct diag_source *inc = source(ctx, "inc.heel");
	static const char *const want[] = {"before",	  "inc-1",     "inc-3",
					   "inc-3 note",  "line 2",    "line 3 parse",
					   "line 3 sema", "sema note", "nowhere"};

	/* inc.heel is included from top.heel:1:5. */
	diag_set_included(ctx, inc, top, 1, 5, 0);
	push(ctx, DIAG_ERROR, top, 3, 1, "line 3 parse");
	push(ctx, DIAG_ERROR, inc, 3, 2, "inc-3");
	push(ctx, DIAG_NOTE, top, 4, 1, "inc-3 note");
	push(ctx, DIAG_ERROR, NULL, 0, 0, "nowhere");
	push(ctx, DIAG_WARNING, top, 2, 7, "line 2");
	push(ctx, DIAG_ERROR, top, 3, 1, "line 3 sema");
	push(ctx, DIAG_NOTE, top, 1, 1, "sema note");
	push(ctx, DIAG_ERROR, inc, 1, 1, "inc-1");
	push(ctx, DIAG_ERROR, top, 1, 2, "before");
	cr_assert_eq(diag_sort(ctx, 0), 0);
	cr_assert_eq(diag_count(ctx), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < diag_count(ctx); i++)
		cr_expect_str_eq(diag_get(ctx, i)->message, want[i], "at %zu", i);
	diag_free(ctx);
}

Test(diag, sort_leaves_earlier_diagnostics_alone)
{
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *top = source(ctx, "top.heel");

	push(ctx, DIAG_ERROR, top, 4, 1, "earlier phase");
	push(ctx, DIAG_ERROR, top, 3, 1, "b");
	push(ctx, DIAG_ERROR, top, 2, 1, "a");
	cr_assert_eq(diag_sort(ctx, 1), 0);
	cr_expect_str_eq(diag_get(ctx, 0)->message, "earlier phase");
	cr_expect_str_eq(diag_get(ctx, 1)->message, "a");
	cr_expect_str_eq(diag_get(ctx, 2)->message, "b");
	cr_assert_eq(diag_sort(ctx, 9), 0);
	diag_free(ctx);
}

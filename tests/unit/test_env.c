/* SPDX-License-Identifier: MIT
 * The sandbox's environment (runtime/env.c): the launcher's safe
 * variables by exact name, the locale ones glibc defines among them, and
 * nothing that merely looks like one (LC_SECRET_TOKEN). */
#include <criterion/criterion.h>
#include <string.h>

#include "env.h"

static void
build(struct envb *b, char **host)
{
	struct art_view view;

	/* No section at all: no env pass or env set. */
	memset(&view, 0, sizeof(view));
	envb_init(b);
	cr_assert_eq(envb_build(b, host, &view, ART_LINUX, "/w/tmp"), 0);
}

Test(env, locale_variables_by_name_only)
{
	char *host[] = {
		"LANG=C.UTF-8", "LANGUAGE=de:en", "LC_ALL=C.UTF-8", "LC_CTYPE=C.UTF-8",
		"LC_NUMERIC=C", "LC_TIME=C", "LC_COLLATE=C", "LC_MONETARY=C", "LC_MESSAGES=C",
		"LC_PAPER=C", "LC_NAME=C", "LC_ADDRESS=C", "LC_TELEPHONE=C", "LC_MEASUREMENT=C",
		"LC_IDENTIFICATION=C", "LC_SECRET_TOKEN=hunter2", "LC_=x", "LC_ALLX=y",
		NULL,
	};
	static const char *const passed[] = {
		"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
		"LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
		"LC_MEASUREMENT", "LC_IDENTIFICATION",
	};
	struct envb b;

	build(&b, host);
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		cr_assert_not_null(envb_get(&b, passed[i]), "%s", passed[i]);
	cr_assert_str_eq(envb_get(&b, "LANGUAGE"), "de:en");
	cr_assert_null(envb_get(&b, "LC_SECRET_TOKEN"), "an LC_ prefix is not a locale variable");
	cr_assert_null(envb_get(&b, "LC_"));
	cr_assert_null(envb_get(&b, "LC_ALLX"));
	envb_free(&b);
}

Test(env, safe_set_first_occurrence_and_tmpdir)
{
	char *host[] = {
		"PATH=/bin", "HOME=/home/a", "LC_ALL=first", "LC_ALL=second",
		"AWS_SECRET_ACCESS_KEY=x", "TMPDIR=/elsewhere", NULL,
	};
	char *bare[] = { NULL };
	struct envb b;

	build(&b, host);
	cr_assert_str_eq(envb_get(&b, "PATH"), "/bin");
	cr_assert_str_eq(envb_get(&b, "HOME"), "/home/a");
	cr_assert_str_eq(envb_get(&b, "LC_ALL"), "first", "as getenv() would see it");
	cr_assert_null(envb_get(&b, "AWS_SECRET_ACCESS_KEY"));
	cr_assert_str_eq(envb_get(&b, "TMPDIR"), "/w/tmp");
	cr_assert_str_eq(envb_get(&b, "TEMP"), "/w/tmp");
	cr_assert_str_eq(envb_get(&b, "HEEL_SANDBOX"), "1", "every sandbox says it is one");
	envb_free(&b);

	build(&b, bare);
	cr_assert_str_eq(envb_get(&b, "HEEL_SANDBOX"), "1");
	cr_assert_str_eq(envb_get(&b, "PATH"), ENVB_DEFAULT_PATH);
	envb_free(&b);
}

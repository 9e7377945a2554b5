/* SPDX-License-Identifier: MIT
 * heel --config FILE.toml: the TOML subset and the original heel's keys,
 * each mistake reported as FILE:LINE:COL with a reason. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "config_toml.h"
#include "diag.h"
#include "settings.h"

struct parsed {
	struct diag_ctx *ctx;
	struct settings s;
	int rc;
};

static struct parsed
parse(const char *text)
{
	struct parsed p = { .ctx = diag_new() };

	cr_assert_not_null(p.ctx);
	p.rc = config_toml_parse(p.ctx, "cfg.toml", text, strlen(text), &p.s);
	return p;
}

static void
done(struct parsed *p)
{
	settings_free(&p->s);
	diag_free(p->ctx);
}

/* The index of the first error whose message holds `needle`, at LINE:COL. */
static void
expect_error(const struct parsed *p, unsigned line, unsigned col, const char *needle)
{
	for (size_t i = 0; i < diag_count(p->ctx); i++) {
		const struct diag *d = diag_get(p->ctx, i);

		if (d->severity == DIAG_ERROR && strstr(d->message, needle) && d->loc.line == line) {
			cr_expect_eq(d->loc.col, col, "`%s`: column %u, expected %u", needle, d->loc.col, col);
			cr_expect_str_eq(d->loc.src->path, "cfg.toml");
			return;
		}
	}
	for (size_t i = 0; i < diag_count(p->ctx); i++)
		cr_log_error("have: %u:%u %s", diag_get(p->ctx, i)->loc.line, diag_get(p->ctx, i)->loc.col,
			     diag_get(p->ctx, i)->message);
	cr_assert_fail("no error holding `%s`", needle);
}

Test(front_toml, the_original_readme_example)
{
	struct parsed p = parse("network = \"allow-list\"\n"
				"allow-domains = [\"*.crates.io\"]\n"
				"\n"
				"[grants]\n"
				"\"/usr/share\" = \"r\"\n"
				"\"./target\" = \"rwx\"\n");

	cr_assert_eq(p.rc, 0);
	cr_assert_str_eq(p.s.network.value, "allow-list");
	cr_assert_str_eq(p.s.network.origin, "cfg.toml:1:1");
	cr_assert_eq(p.s.ndomains, 1);
	cr_assert_str_eq(p.s.domains[0].pattern, "*.crates.io");
	cr_assert_eq(p.s.ngrants, 2);
	cr_assert_str_eq(p.s.grants[0].path, "/usr/share");
	cr_assert_str_eq(p.s.grants[0].mode, "r");
	cr_assert_str_eq(p.s.grants[1].path, "./target");
	cr_assert_str_eq(p.s.grants[1].mode, "rwx");
	cr_assert_str_eq(p.s.grants[1].origin, "cfg.toml:6:1");
	done(&p);
}

Test(front_toml, every_key)
{
	struct parsed p = parse("isolation = 'strict'   # a literal string\n"
				"audit-log = \"./run.jsonl\"\n"
				"readable = [\"/a\", \"/b\",]\n"
				"writable = [\n  \"/w\",  # comment inside\n]\n"
				"executable = [\"/x\"]\n"
				"allow-gpu = true\n"
				"nice = 10\n"
				"io-priority = \"background\"\n"
				"working-dir = \"./out\"\n"
				"keep-working-dir = false\n"
				"env = [\"LANG\", \"A=b=c\", \"EMPTY=\"]\n"
				"[protections]\n"
				"credentials = false\n"
				"host-run = true\n"
				"[limits]\n"
				"memory = \"2GiB\"\n"
				"cpu = 60\n"
				"processes = 1_000\n"
				"file-size = 4096\n");

	cr_assert_eq(p.rc, 0);
	cr_assert_str_eq(p.s.isolation.value, "strict");
	cr_assert_str_eq(p.s.audit_log.value, "./run.jsonl");
	cr_assert_eq(p.s.ngrants, 4);
	cr_assert_str_eq(p.s.grants[2].mode, "rw");
	cr_assert_str_eq(p.s.grants[3].mode, "rx");
	cr_assert_eq(p.s.gpu.on, TRI_ON);
	cr_assert_str_eq(p.s.nice.value, "10");
	cr_assert_str_eq(p.s.io_priority.value, "background");
	cr_assert_str_eq(p.s.working_dir.value, "./out");
	cr_assert_eq(p.s.keep_working_dir.on, TRI_OFF);
	cr_assert_eq(p.s.nenv, 3);
	cr_assert_null(p.s.env[0].value);
	cr_assert_str_eq(p.s.env[1].name, "A");
	cr_assert_str_eq(p.s.env[1].value, "b=c");
	cr_assert_str_eq(p.s.env[2].value, "");
	cr_assert_eq(p.s.protect[SET_CREDENTIALS].on, TRI_OFF);
	cr_assert_eq(p.s.protect[SET_HOST_RUN].on, TRI_ON);
	cr_assert_eq(p.s.protect[SET_USER_HOME].on, TRI_UNSET);
	cr_assert_str_eq(p.s.limits[LIM_MEMORY].value, "2GiB");
	/* The original's bare numbers: seconds and bytes. */
	cr_assert_str_eq(p.s.limits[LIM_CPU].value, "60s");
	cr_assert_str_eq(p.s.limits[LIM_PROCESSES].value, "1000");
	cr_assert_str_eq(p.s.limits[LIM_FILE_SIZE].value, "4096B");
	done(&p);
}

Test(front_toml, string_escapes)
{
	struct parsed p = parse("[grants]\n\"/caf\\u00e9/\\\"q\\\"\\\\\" = \"r\"\n'/lit\\n' = \"r\"\n");

	cr_assert_eq(p.rc, 0);
	cr_assert_str_eq(p.s.grants[0].path, "/caf\xc3\xa9/\"q\"\\");
	cr_assert_str_eq(p.s.grants[1].path, "/lit\\n"); /* literal strings keep backslashes */
	done(&p);
}

Test(front_toml, unknown_keys_and_tables_are_errors)
{
	struct parsed p = parse("network = \"deny\"\nallow-domain = [\"x\"]\n[limitz]\nx = 1\n"
				"[limits]\nmemroy = \"1GiB\"\n[protections]\nhome = true\n");

	cr_assert_eq(p.rc, -EINVAL);
	expect_error(&p, 2, 1, "unknown key `allow-domain`");
	expect_error(&p, 3, 2, "unknown table [limitz]");
	expect_error(&p, 6, 1, "unknown key `memroy` in [limits]");
	expect_error(&p, 8, 1, "unknown key `home` in [protections]");
	done(&p);
}

Test(front_toml, wrong_types_and_values)
{
	struct parsed p = parse("nice = \"5\"\nnetwork = \"allow\"\nallow-gpu = \"yes\"\n"
				"readable = \"/a\"\nwritable = [1]\nisolation = \"lax\"\n"
				"[grants]\n\"/a\" = \"rwz\"\n\"/b\" = \"w\"\n"
				"[limits]\nmemory = \"1G\"\ncpu = -1\nprocesses = \"5MiB\"\n");

	cr_assert_eq(p.rc, -EINVAL);
	expect_error(&p, 1, 8, "`nice` takes an integer, not a string");
	expect_error(&p, 2, 11, "`allow` is ambiguous");
	expect_error(&p, 3, 13, "`allow-gpu` takes a boolean");
	expect_error(&p, 4, 12, "`readable` takes an array");
	expect_error(&p, 5, 13, "`writable` holds strings, not an integer");
	expect_error(&p, 6, 13, "not an isolation base");
	expect_error(&p, 8, 8, "only the letters r, w and x");
	expect_error(&p, 9, 8, "every mode includes r");
	expect_error(&p, 11, 10, "write 1GiB (binary; GB is decimal)");
	expect_error(&p, 12, 7, "cannot be negative");
	expect_error(&p, 13, 13, "a count takes no unit");
	done(&p);
}

Test(front_toml, toml_beyond_the_subset_is_named)
{
	struct parsed p = parse("a = 1.5\nb = 2026-01-01\nc = {x = 1}\nd = \"\"\"x\"\"\"\ne.f = 1\n"
				"g = 0x10\nh = 012\n");

	cr_assert_eq(p.rc, -EINVAL);
	expect_error(&p, 1, 5, "floating-point numbers are not part");
	expect_error(&p, 2, 5, "dates and times are not part");
	expect_error(&p, 3, 5, "inline tables are not part");
	expect_error(&p, 4, 5, "multi-line strings are not part");
	expect_error(&p, 5, 1, "dotted keys");
	expect_error(&p, 6, 5, "write the number in decimal");
	expect_error(&p, 7, 5, "is not a number heel can read");
	done(&p);
}

Test(front_toml, twice_is_an_error_and_every_broken_line_is_reported)
{
	struct parsed p = parse("nice = 1\nnice = 2\n[grants]\n[grants]\n"
				"w = \"unterminated\nbare = word\n= 3\nisolation = \"strict\"\n"
				"x = [1, \"a\"\n");

	cr_assert_eq(p.rc, -EINVAL);
	expect_error(&p, 2, 1, "key `nice` is defined twice (first at line 1)");
	expect_error(&p, 4, 2, "table [grants] is defined twice");
	expect_error(&p, 5, 5, "not closed on its line");
	expect_error(&p, 6, 8, "`word` is not a value");
	expect_error(&p, 7, 1, "syntax error");
	/* An array left open at the end of the file. */
	expect_error(&p, 9, 12, "syntax error");
	done(&p);
}

Test(front_toml, bad_escapes_and_nul)
{
	struct parsed p = parse("a = \"\\q\"\nb = \"\\u00\"\nc = \"\\u0000\"\n");

	cr_assert_eq(p.rc, -EINVAL);
	expect_error(&p, 1, 5, "unknown escape");
	expect_error(&p, 2, 5, "4 hex digits");
	expect_error(&p, 3, 5, "no NUL");
	done(&p);
}

Test(front_toml, a_last_line_without_newline_and_an_empty_file)
{
	struct parsed p = parse("nice = 3");

	cr_assert_eq(p.rc, 0);
	cr_assert_str_eq(p.s.nice.value, "3");
	done(&p);
	p = parse("");
	cr_assert_eq(p.rc, 0);
	done(&p);
}

Test(front_toml, numbers)
{
	struct parsed p = parse("[limits]\nprocesses = +20\nopen-files = 1_024\nstack = 99999999999999999999\n"
				"core = 1__0\n");

	cr_assert_eq(p.rc, -EINVAL);
	cr_assert_str_eq(p.s.limits[LIM_PROCESSES].value, "20");
	cr_assert_str_eq(p.s.limits[LIM_OPEN_FILES].value, "1024");
	expect_error(&p, 4, 9, "is not a number heel can read");
	expect_error(&p, 5, 8, "is not a number heel can read");
	done(&p);
}

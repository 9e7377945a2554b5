/* SPDX-License-Identifier: MIT
 * The SBPL checker's rules, each with a profile that breaks it and, beside
 * it, the nearest profile that passes (so a rule that refused everything
 * would fail here too); the raw-rule entry point; the name tables. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbpl_check.h"
#include "sbpl_names.h"

static const struct sbpl_param_def defs[] = {
	{ "P0", SBPL_PARAM_PATH },
	{ "WORKDIR", SBPL_PARAM_WORKDIR },
	{ "PROXY", SBPL_PARAM_PROXY },
	{ "FLAG", SBPL_PARAM_STRING },
};
static const struct sbpl_check_params params = { defs, 4, 0 };

#define HEAD "(version 1)\n(deny default)\n"

/* The profile HEAD + body passes (no error; warnings allowed). */
static void
pass(const char *body)
{
	char text[4096];
	struct sbpl_check_result r;
	int rc;

	snprintf(text, sizeof(text), HEAD "%s", body);
	rc = sbpl_check(text, strlen(text), &params, &r);
	cr_expect_eq(rc, 0, "refused: %s\nfirst: %u:%u: %s", body, r.ndiags ? r.diags[0].line : 0,
		     r.ndiags ? r.diags[0].col : 0, r.ndiags ? r.diags[0].message : "");
	cr_expect_eq(r.nerrors, 0);
	sbpl_check_result_free(&r);
}

/* The result of checking `text` whole; an error containing `want` must be
 * at `line` (relative to the text) and, when col is not 0, at `col`. */
static void
fail_text(const char *text, const struct sbpl_check_params *p, const char *want, uint32_t line,
	  uint32_t col, int rule)
{
	struct sbpl_check_result r;
	int rc = rule ? sbpl_check_rule(text, strlen(text), p, &r) : sbpl_check(text, strlen(text), p, &r);
	int found = 0;

	cr_expect_eq(rc, -EINVAL, "accepted: %s", text);
	for (size_t i = 0; i < r.ndiags; i++) {
		const struct sbpl_diag *d = &r.diags[i];

		if (d->severity == SBPL_SEV_ERROR && strstr(d->message, want) && d->line == line &&
		    (col == 0 || d->col == col))
			found = 1;
	}
	cr_expect(found, "%s\nwant error '%s' at %u:%u; got %zu diagnostics, first %u:%u: %s", text, want,
		  line, col, r.ndiags, r.ndiags ? r.diags[0].line : 0, r.ndiags ? r.diags[0].col : 0,
		  r.ndiags ? r.diags[0].message : "");
	sbpl_check_result_free(&r);
}

/* HEAD + body must fail with `want` on the body's first line (line 3). */
static void
fail(const char *body, const char *want, uint32_t col)
{
	char text[4096];

	snprintf(text, sizeof(text), HEAD "%s", body);
	fail_text(text, &params, want, 3, col, 0);
}

/* A warning containing `want`, and no error. */
static void
warns(const char *body, const char *want)
{
	char text[4096];
	struct sbpl_check_result r;
	int found = 0;

	snprintf(text, sizeof(text), HEAD "%s", body);
	cr_expect_eq(sbpl_check(text, strlen(text), &params, &r), 0, "refused: %s", body);
	for (size_t i = 0; i < r.ndiags; i++)
		if (r.diags[i].severity == SBPL_SEV_WARNING && strstr(r.diags[i].message, want))
			found = 1;
	cr_expect(found, "%s: no warning '%s'", body, want);
	sbpl_check_result_free(&r);
}

Test(sbpl_check, version_form)
{
	struct sbpl_check_result r;

	fail_text("(version 2)\n(deny default)", &params, "only (version 1) exists", 1, 1, 0);
	fail_text("(version \"1\")", &params, "only (version 1) exists", 1, 1, 0);
	fail_text("(deny default)\n(version 1)", &params, "missing (version 1)", 1, 1, 0);
	fail_text("(version 1)\n(version 1)", &params, "again", 2, 1, 0);
	fail_text("; nothing\n", &params, "empty profile", 0, 0, 0);
	/* A profile missing its version is still checked past the first form. */
	fail_text("(allow file-reed*)", &params, "unknown operation", 1, 8, 0);
	cr_expect_eq(sbpl_check("(version 1)", 11, &params, &r), 0);
	sbpl_check_result_free(&r);
}

Test(sbpl_check, operations)
{
	pass("(allow file-read* file-write-data process-exec)\n");
	pass("(allow file-unlink ipc-posix-shm)\n"); /* aliases */
	fail("(allow file-reed*)\n", "unknown operation 'file-reed*'; did you mean 'file-read*'?", 8);
	fail("(allow frobnicate)\n", "unknown operation 'frobnicate'", 8);
	fail("(allow subpath)\n", "'subpath' is a filter", 8);
	fail("(allow)\n", "names no operation", 1);
	fail("(allow \"file-read*\")\n", "expected an operation name", 8);
	warns("(allow system-mac-syscall)\n", "newer than macOS 10.15");
	warns("(allow mach-per-user-lookup)\n", "before macOS 10.15");
	warns("(allow default)\n", "allows every operation");
}

/* A newer name is warned about once, however often it is used. */
Test(sbpl_check, newer_names_warned_once)
{
	static const char text[] = HEAD "(allow file-read* (path-ancestors \"/a\"))\n"
					"(allow file-read* (path-ancestors \"/b\"))\n"
					"(allow system-mac-syscall)\n(allow system-mac-syscall)\n";
	struct sbpl_check_result r;

	cr_expect_eq(sbpl_check(text, strlen(text), &params, &r), 0);
	cr_expect_eq(r.nwarnings, 2);
	cr_expect_eq(r.diags[0].line, 3);
	sbpl_check_result_free(&r);
}

Test(sbpl_check, rule_order)
{
	pass("(allow file-read* (subpath \"/usr\") (with report))\n");
	pass("(deny file-write* (with no-log) (subpath \"/etc\"))\n");
	fail("(allow (subpath \"/usr\") file-read*)\n", "filter before any operation", 8);
	fail("(allow file-read* (subpath \"/usr\") file-write*)\n", "after a filter", 36);
	fail("(deny default (subpath \"/usr\"))\n", "default operation takes no filter", 15);
	fail("(allow (with report) file-read*)\n", "(with ...) before any operation", 8);
	/* One error for a misplaced filter, and the filter itself still checked. */
	fail("(allow (subpath \"usr\") file-read*)\n", "not absolute", 17);
	warns("(allow network-outbound (local ip \"localhost:*\"))\n", "matches every connection");
	warns("(allow network* (from ip \"*:*\"))\n", "use (remote ...)");
	pass("(allow network-bind network-inbound (local ip \"localhost:8080\"))\n");
}

Test(sbpl_check, filters)
{
	pass("(allow file-read* (literal \"/a\") (path \"/b\") (path-literal \"/c\") (subpath \"/d\"))\n");
	fail("(allow file-read* (subpathh \"/usr\"))\n", "unknown filter 'subpathh'; did you mean 'subpath'?",
	     20);
	fail("(allow file-read* (file-write* \"/usr\"))\n", "is an operation, not a filter", 20);
	fail("(allow file-read* \"/usr\")\n", "expected an operation name", 19);
	fail("(allow file-read* (\"x\"))\n", "expected a filter", 19);
	warns("(allow file-read* (prefix \"/usr/lo\"))\n", "raw string prefix");
	warns("(allow file-read* (path-ancestors \"/a/b\"))\n", "newer than macOS 10.15");
}

Test(sbpl_check, paths)
{
	pass("(allow file-read* (subpath \"/\") (literal \"/Users/zoë/a b\"))\n");
	fail("(allow file-read* (subpath \"usr/lib\"))\n", "is not absolute", 28);
	fail("(allow file-read* (literal \"\"))\n", "is not absolute", 28);
	fail("(allow file-read* (subpath \"/usr/../etc\"))\n", "not canonical", 28);
	fail("(allow file-read* (subpath \"/usr/./lib\"))\n", "not canonical", 28);
	fail("(allow file-read* (subpath \"/usr//lib\"))\n", "not canonical", 28);
	fail("(allow file-read* (subpath \"/usr/..\"))\n", "not canonical", 28);
	pass("(allow file-read* (subpath \"/usr/..x\") (subpath \"/usr/.x\"))\n");
	warns("(allow file-read* (subpath \"/usr/\"))\n", "ends with '/'");
	fail("(allow file-read* (subpath))\n", "takes one path", 19);
	fail("(allow file-read* (subpath \"/a\" \"/b\"))\n", "takes one path", 19);
	fail("(allow file-read* (subpath 1))\n", "not a number", 28);
	/* mount-relative paths are not absolute by nature */
	pass("(allow file-read* (mount-relative-path \"a/b\"))\n");
}

Test(sbpl_check, regexes)
{
	pass("(deny file-read* (regex #\"^/Users/[^/]+/\\.ssh(/|$)\"))\n");
	pass("(deny file-read* (regex \"^/a\\\\.b$\"))\n");
	fail("(deny file-read* (regex #\"^/Users/[^/+\"))\n", "does not compile", 25);
	fail("(deny file-read* (regex #\"^/a(b\"))\n", "does not compile", 25);
	fail("(deny file-read* (regex #\"/\\.ssh\"))\n", "is not anchored", 25);
	fail("(deny file-read* (path-regex #\"(a)\\1\"))\n", "backreference", 30);
	/* Built values: the leading text is still checked. */
	pass("(deny file-read* (regex (string-append \"^\" (regex-quote (param \"P0\")) \"/x$\")))\n");
	fail("(deny file-read* (regex (string-append (regex-quote (param \"P0\")) \"/x$\")))\n",
	     "is not anchored", 25);
	fail("(deny file-read* (regex (string-append \"/x\" (param \"P0\"))))\n", "not anchored", 25);
	fail("(deny file-read* (regex (param \"P0\")))\n", "used as a regex", 25);
	/* Name regexes: unanchored is a warning only. */
	pass("(allow mach-lookup (global-name-regex #\"^com\\.apple\\.\"))\n");
	warns("(allow mach-lookup (global-name-regex #\"apple\"))\n", "not anchored");
	fail("(allow mach-lookup (global-name-regex #\"^(com\"))\n", "does not compile", 39);
}

Test(sbpl_check, parameters)
{
	pass("(allow file-read* (subpath (param \"P0\")) (subpath (param \"WORKDIR\")))\n");
	pass("(allow file-read* (subpath (string-append (param \"P0\") \"/sub\")))\n");
	fail("(allow file-read* (subpath (param \"P9\")))\n", "undefined parameter 'P9'", 35);
	fail("(allow file-read* (subpath (param \"p0\")))\n", "did you mean 'P0'?", 35);
	fail("(allow file-read* (subpath (param P0)))\n", "param takes one string", 28);
	fail("(allow file-read* (subpath (param \"PROXY\")))\n", "has kind proxy", 28);
	fail("(allow file-read* (subpath (param \"FLAG\")))\n", "has kind string", 28);
	fail("(allow file-read* (subpath (string-append \"rel/\" (param \"P0\"))))\n", "not absolute", 28);
	fail("(allow file-read* (subpath (regex-quote \"/a\")))\n", "regex-quote", 28);
	fail("(allow file-read* (subpath (string-append)))\n", "not absolute", 28);
	fail("(allow file-read* (subpath (string-append \"\" \"\")))\n", "not absolute", 28);
	pass("(allow file-read* (subpath (string-append \"\" (param \"P0\"))))\n");
	pass("(allow file-read* (subpath (string-append \"/a\" \"/b\")))\n");
	fail("(allow file-read* (subpath (string-append \"/a/\" \"/b\")))\n", "not canonical", 28);
	/* A regex built only of known text is compiled like a literal one. */
	fail("(deny file-read* (regex (string-append \"^/a\" \"(b\")))\n", "does not compile", 25);
	fail("(allow mach-lookup (global-name-regex (string-append \"^a\" \"[\")))\n", "does not compile",
	     39);
	fail("(allow mach-lookup (global-name (param \"PROXY\")))\n", "has kind proxy", 33);
}

Test(sbpl_check, unused_parameters)
{
	static const char text[] = HEAD "(allow file-read* (subpath (param \"P0\")))\n";
	struct sbpl_check_params p = params;
	struct sbpl_check_result r;

	cr_expect_eq(sbpl_check(text, strlen(text), &p, &r), 0);
	sbpl_check_result_free(&r);
	p.flags = SBPL_CHECK_ALL_PARAMS_USED;
	fail_text(text, &p, "parameter 'WORKDIR' is defined but never used", 0, 0, 0);
	fail_text(text, &p, "parameter 'PROXY' is defined but never used", 0, 0, 0);
	p.nparams = 1;
	cr_expect_eq(sbpl_check(text, strlen(text), &p, &r), 0);
	sbpl_check_result_free(&r);
}

Test(sbpl_check, network)
{
	pass("(allow network-outbound (remote tcp \"localhost:8080\") (remote ip \"*:*\"))\n");
	pass("(allow network-bind (local udp \"*:53\") (local tcp4 \"localhost:*\") (local ip6 \"*:65535\"))\n");
	pass("(allow network-outbound (remote tcp (param \"PROXY\")))\n");
	pass("(allow network-outbound (remote ip))\n");
	pass("(allow network-outbound (remote unix-socket (path-literal \"/private/var/run/syslog\")))\n");
	pass("(allow network* (remote unix-socket (subpath \"/private/tmp/s\")))\n");
	pass("(allow network-outbound (to tcp \"localhost:1\"))\n");
	fail("(allow network-outbound (remote ip \"127.0.0.1:8080\"))\n", "host must be * or localhost", 36);
	fail("(allow network-outbound (remote ip \"[::1]:8080\"))\n", "host must be * or localhost", 36);
	fail("(allow network-outbound (remote ip \"example.com:443\"))\n", "host must be", 36);
	fail("(allow network-outbound (remote tcp \"localhost:1-100\"))\n", "port must be one number", 37);
	fail("(allow network-outbound (remote tcp \"localhost:0\"))\n", "port must be one number", 37);
	fail("(allow network-outbound (remote tcp \"localhost:65536\"))\n", "port must be", 37);
	fail("(allow network-outbound (remote tcp \"localhost:080\"))\n", "port must be", 37);
	fail("(allow network-outbound (remote tcp \"localhost:\"))\n", "port must be", 37);
	fail("(allow network-outbound (remote tcp \"localhost:80,443\"))\n", "port must be", 37);
	fail("(allow network-outbound (remote tcp \"localhost\"))\n", "not HOST:PORT", 37);
	fail("(allow network-outbound (remote \"localhost:80\"))\n", "needs a protocol first", 33);
	fail("(allow network-outbound (remote))\n", "needs a protocol", 25);
	fail("(allow network-outbound (remote tpc \"*:80\"))\n", "did you mean 'tcp'?", 33);
	fail("(allow network-outbound (remote tcp (param \"P0\")))\n", "needs a proxy parameter", 37);
	fail("(allow network-outbound (remote tcp \"*:1\" \"*:2\"))\n", "takes one address", 43);
	fail("(allow network-outbound (remote unix-socket))\n", "unix-socket takes one path filter", 25);
	fail("(allow network-outbound (remote unix-socket \"/s\"))\n", "unix-socket takes one path filter", 45);
	fail("(allow network-outbound (remote unix-socket (global-name \"x\")))\n",
	     "unix-socket takes one path filter", 45);
	fail("(allow network-outbound (remote unix-socket (path-literal \"s\")))\n", "not absolute", 59);
}

Test(sbpl_check, constants)
{
	pass("(allow file-write-data (vnode-type CHARACTER-DEVICE) (vnode-type REGULAR-FILE DIRECTORY))\n");
	pass("(allow signal (target same-sandbox))\n");
	fail("(allow file-write-data (vnode-type REGULAR_FILE))\n", "did you mean 'REGULAR-FILE'?", 36);
	fail("(allow file-write-data (vnode-type \"DIRECTORY\"))\n", "takes a constant name", 36);
	fail("(allow file-write-data (vnode-type))\n", "at least one", 24);
	fail("(allow signal (target same_sandbox))\n", "unknown target 'same_sandbox'", 23);
	fail("(allow signal (target self pgrp))\n", "target takes one constant", 15);
	pass("(allow system-socket (socket-domain AF_UNIX) (socket-domain 1))\n");
	pass("(allow system-fsctl (fsctl-command (_IO \"h\" 47)))\n");
	fail("(allow system-socket (socket-domain af-unix))\n", "integer or an upper-case constant", 37);
	pass("(allow file-read* (extension-path-ancestor) (extension-path-ancestor #t))\n");
	fail("(allow file-read* (extension-path-ancestor \"x\"))\n", "takes nothing, #t or #f", 19);
}

Test(sbpl_check, combinators)
{
	pass("(allow file-read* (require-all (subpath \"/a\") (require-not (literal \"/a/b\"))))\n");
	pass("(allow file-read* (require-any (subpath \"/a\") (require-all (subpath \"/b\") (vnode-type FIFO))))\n");
	fail("(allow file-read* (require-not (subpath \"/a\") (subpath \"/b\")))\n", "exactly one", 19);
	fail("(allow file-read* (require-all))\n", "at least one", 19);
	fail("(allow file-read* (require-any (subpath \"a\")))\n", "not absolute", 41);
	fail("(allow file-read* (require-all (subpathh \"/a\")))\n", "unknown filter", 33);
	pass("(allow file-read* (require-entitlement \"com.x\" (entitlement-value #t)))\n");
}

Test(sbpl_check, modifiers)
{
	struct sbpl_check_params p = params;
	static const char ns[] = HEAD "(allow process-exec (literal \"/bin/ps\") (with no-sandbox))\n";
	struct sbpl_check_result r;

	pass("(deny default (with message \"heel:1\"))\n");
	pass("(deny file-read* (with send-signal SIGKILL) (with report))\n");
	pass("(deny file-read* (with send-signal 9) (with no-report))\n");
	pass("(deny file-read* (with message (param \"FLAG\")))\n");
	fail("(deny file-write* (with no-logg))\n", "did you mean 'no-log'?", 25);
	fail("(deny file-write* (with))\n", "names no modifier", 19);
	fail("(deny file-write* (with message))\n", "message takes a string", 25);
	fail("(deny file-write* (with message 3))\n", "message takes a string", 33);
	fail("(deny file-write* (with send-signal KILL))\n", "takes a signal", 37);
	fail("(deny file-write* (with send-signal 64))\n", "takes a signal", 37);
	warns("(allow file-read* (with grant))\n", "not one heel uses");
	/* The escape hatch: refused by default, accepted when allowed. */
	fail_text(ns, &p, "(with no-sandbox) runs the matched program with no sandbox", 3, 47, 0);
	p.flags = SBPL_CHECK_ALLOW_NO_SANDBOX;
	cr_expect_eq(sbpl_check(ns, strlen(ns), &p, &r), 0);
	sbpl_check_result_free(&r);
}

Test(sbpl_check, scheme_subset)
{
	pass("(define home \"/Users/dev\")\n(allow file-read* (subpath (string-append home \"/src\")))\n");
	pass("(define h (param \"P0\"))\n(allow file-read* (subpath h))\n");
	pass("(if (param \"FLAG\") (deny default (with no-log)) (deny default))\n");
	pass("(if (not (string=? (param \"FLAG\") \"1\")) (begin (allow file-read*) (allow process-fork)))\n");
	pass("(import \"system.sb\")\n");
	warns("(import \"system.sb\")\n", "cannot see");
	fail("(define (f x) x)\n", "function definitions are not supported", 1);
	fail_text(HEAD "(define h \"rel\")\n(allow file-read* (subpath h))\n", &params, "not absolute", 4, 28, 0);
	fail("(allow file-read* (subpath home))\n", "unbound name 'home'", 28);
	fail("(define subpath \"/x\")\n", "hide SBPL's own name", 9);
	fail("(if (param \"NOPE\") (allow file-read*))\n", "undefined parameter", 12);
	fail("(if (param \"FLAG\") (allow file-reed*))\n", "unknown operation", 27);
	fail("(alow file-read*)\n", "unknown form 'alow'; did you mean 'allow'?", 2);
	fail("\"text\"\n", "expected a form", 1);
	fail("(allow file-read* (subpath (string-upcase \"/x\")))\n", "expected a value", 28);
}

Test(sbpl_check, reader_errors_are_diagnostics)
{
	fail_text("(version 1)\n(allow file-read* (literal \"caf\\u00e9\"))", &params, "no \\u escapes", 2, 32,
		  0);
	fail_text("(version 1)\n(allow file-read*", &params, "never closed", 2, 1, 0);
}

Test(sbpl_check, raw_rules)
{
	struct sbpl_check_result r;
	static const char ok[] = "(allow file-read* (subpath (param \"P0\")))\n(deny file-write*)";

	cr_expect_eq(sbpl_check_rule(ok, strlen(ok), &params, &r), 0);
	sbpl_check_result_free(&r);
	fail_text("(allow file-read*)\n(allow file-reed*)", &params, "unknown operation", 2, 8, 1);
	fail_text("(version 1)", &params, "a raw rule cannot hold (version", 1, 1, 1);
	fail_text("(define x \"/a\")", &params, "cannot define", 1, 1, 1);
	fail_text("(import \"x.sb\")", &params, "cannot import", 1, 1, 1);
	fail_text("", &params, "empty rule", 0, 0, 1);
	fail_text("(allow network-outbound (remote ip \"1.2.3.4:80\"))", &params, "host must be", 1, 36, 1);
	fail_text("(allow process-exec (with no-sandbox))", &params, "no-sandbox", 1, 27, 1);
	/* No parameter table at all: any param is undefined. */
	fail_text("(allow file-read* (subpath (param \"P0\")))", NULL, "undefined parameter", 1, 35, 1);
}

Test(sbpl_check, param_kinds_by_name)
{
	cr_expect_eq(sbpl_param_kind_from_name("path"), SBPL_PARAM_PATH);
	cr_expect_eq(sbpl_param_kind_from_name("workdir"), SBPL_PARAM_WORKDIR);
	cr_expect_eq(sbpl_param_kind_from_name("proxy"), SBPL_PARAM_PROXY);
	cr_expect_eq(sbpl_param_kind_from_name("string"), SBPL_PARAM_STRING);
	cr_expect_eq(sbpl_param_kind_from_name("Path"), -1);
}

/* The plain name lists (for suggestions) hold exactly the tables' names. */
Test(sbpl_check, name_lists_match_tables)
{
	size_t n = 0;

	for (const char *const *p = sbpl_operation_names; *p; p++, n++)
		cr_expect_not_null(sbpl_operation_lookup(*p), "%s", *p);
	cr_expect_eq(n, 183);
	n = 0;
	for (const char *const *p = sbpl_filter_names; *p; p++, n++)
		cr_expect_not_null(sbpl_filter_lookup(*p), "%s", *p);
	cr_expect_eq(n, 144);
	n = 0;
	for (const char *const *p = sbpl_modifier_names; *p; p++, n++)
		cr_expect_not_null(sbpl_modifier_lookup(*p), "%s", *p);
	cr_expect_eq(n, 10);
	cr_expect_eq(sbpl_operation_lookup("file-read*")->status, SBPL_NAME_BASE);
	cr_expect_eq(sbpl_operation_lookup("process-exec")->status, SBPL_NAME_ALIAS);
	cr_expect_eq(sbpl_filter_lookup("regex")->cls, SBPL_F_PATH_REGEX);
	cr_expect_eq(sbpl_filter_lookup("sysctl-name-prefix")->cls, SBPL_F_NAME);
	cr_expect_null(sbpl_filter_lookup("subpathh"));
}

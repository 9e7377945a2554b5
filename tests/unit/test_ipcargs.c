/* SPDX-License-Identifier: MIT
 * The host command argument rules (runtime/broker/ipcargs.c): call
 * syntax, the four types, `-` for stdin, paths kept beneath the working
 * directory (lexically, then by openat2), the host command's argv, and
 * every error text naming its argument. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcargs.h"

static struct ipc_command cmd;
static char err[1024];

/* web_search of the design: positional query; query string, limit int,
 * safe bool, file path. */
static void
declare(void)
{
	cr_assert_eq(ipcargs_command_init(&cmd, "web_search", err, sizeof(err)), 0);
	cmd.exec = strdup("/usr/local/bin/web-search");
	cr_assert_eq(ipcargs_command_add_positional(&cmd, "query", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "string query", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "int limit", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "bool safe", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "path file", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_finish(&cmd, err, sizeof(err)), 0, "%s", err);
}

static void
undeclare(void)
{
	ipcargs_command_free(&cmd);
}

TestSuite(ipcargs, .init = declare, .fini = undeclare);

/* Parses words (NULL-terminated) from /w/sub; returns rc; *out the host
 * argv joined by '|' when it parsed. */
static int
parse(const char *stdin_text, const char *out_want, ...)
{
	char *words[32];
	struct ipc_parsed p;
	va_list ap;
	size_t n = 0;
	int rc;

	va_start(ap, out_want);
	while ((words[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	rc = ipcargs_parse(&cmd, n, words, stdin_text, stdin_text ? strlen(stdin_text) : 0, "/w",
			   "/w/sub", &p, err, sizeof(err));
	if (rc == 0 && out_want && !p.help) {
		char **argv = ipcargs_argv(&cmd, &p), joined[4096] = "";

		for (size_t i = 0; argv[i]; i++) {
			strcat(joined, i ? "|" : "");
			strcat(joined, argv[i]);
		}
		cr_assert_str_eq(joined, out_want);
		ipcargs_argv_free(argv);
	}
	if (rc == 0 && p.help)
		rc = 1;
	ipcargs_parsed_free(&p);
	return rc;
}

#define EXEC "/usr/local/bin/web-search"

Test(ipcargs, declaration_order_and_forms)
{
	cr_assert_eq(cmd.nparams, 4);
	cr_assert_eq(cmd.npositional, 1);
	cr_assert_eq(parse(NULL, EXEC "|--query=rust|--limit=3", "rust", "--limit", "3", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--query=rust|--limit=3|--safe=true",
			   "--safe", "--limit=3", "--query", "rust", NULL), 0, "%s", err);
	cr_assert_eq(parse(NULL, EXEC "|--query=a b", "a b", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC, NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--query=", "--query=", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--query=--x", "--", "--x", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--query=-h", "--", "-h", NULL), 0);
}

Test(ipcargs, errors_name_the_argument)
{
	cr_assert_eq(parse(NULL, NULL, "--limit=ten", NULL), -EINVAL);
	cr_assert_str_eq(err, "--limit: \"ten\" is not an integer");
	cr_assert_eq(parse(NULL, NULL, "--foo", NULL), -EINVAL);
	cr_assert_str_eq(err, "unknown argument --foo (arguments: query, limit, safe, file)");
	cr_assert_eq(parse(NULL, NULL, "--foo=1", NULL), -EINVAL);
	cr_assert_str_eq(err, "unknown argument --foo (arguments: query, limit, safe, file)");
	cr_assert_eq(parse(NULL, NULL, "-x", NULL), -EINVAL);
	cr_assert_str_eq(err, "unknown argument -x (arguments: query, limit, safe, file)");
	cr_assert_eq(parse(NULL, NULL, "rust", "x", NULL), -EINVAL);
	cr_assert_str_eq(err, "too many arguments: \"x\" (positionals: query)");
	cr_assert_eq(parse(NULL, NULL, "--", "a", "b", NULL), -EINVAL);
	cr_assert_str_eq(err, "too many arguments: \"b\" (positionals: query)");
	cr_assert_eq(parse(NULL, NULL, "rust", "--query=x", NULL), -EINVAL);
	cr_assert_str_eq(err, "--query given twice");
	cr_assert_eq(parse(NULL, NULL, "--limit", "1", "--limit=2", NULL), -EINVAL);
	cr_assert_str_eq(err, "--limit given twice");
	cr_assert_eq(parse(NULL, NULL, "--limit", NULL), -EINVAL);
	cr_assert_str_eq(err, "--limit: a value is missing (--limit=VALUE)");
	cr_assert_eq(parse(NULL, NULL, "--limit", "-3", NULL), -EINVAL);
	cr_assert_str_eq(err, "--limit: a value is missing (--limit=VALUE)");
	cr_assert_eq(parse(NULL, NULL, "--safe", "x", NULL), -EINVAL);
	cr_assert_str_eq(err, "--safe: \"x\" is not a bool (true, false, yes, no, 1 or 0)");
	cr_assert_eq(parse(NULL, NULL, "--limit=1", "rust", NULL), -EINVAL);
	cr_assert_str_eq(err, "\"rust\": a bare word after an option (put -- before it)");
}

Test(ipcargs, ints)
{
	cr_assert_eq(parse(NULL, EXEC "|--limit=7", "--limit=+07", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--limit=-9223372036854775808",
			   "--limit=-9223372036854775808", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--limit=9223372036854775807",
			   "--limit=9223372036854775807", NULL), 0);
	cr_assert_eq(parse(NULL, NULL, "--limit=9223372036854775808", NULL), -EINVAL);
	cr_assert_str_eq(err, "--limit: \"9223372036854775808\" is out of range (a 64-bit integer)");
	const char *bad[] = { "", "+", "-", " 1", "1 ", "0x10", "1e3", "1.0", "--1" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char word[32];

		snprintf(word, sizeof(word), "--limit=%s", bad[i]);
		cr_assert_eq(parse(NULL, NULL, word, NULL), -EINVAL, "%s", word);
		cr_assert(strstr(err, "is not an integer"), "%s: %s", word, err);
	}
}

Test(ipcargs, bools)
{
	const char *yes[] = { "true", "yes", "1" }, *no[] = { "false", "no", "0" };

	for (size_t i = 0; i < 3; i++) {
		char w[32];

		snprintf(w, sizeof(w), "--safe=%s", yes[i]);
		cr_assert_eq(parse(NULL, EXEC "|--safe=true", w, NULL), 0);
		snprintf(w, sizeof(w), "--safe=%s", no[i]);
		cr_assert_eq(parse(NULL, EXEC "|--safe=false", w, NULL), 0);
		cr_assert_eq(parse(NULL, EXEC "|--safe=false", "--safe", no[i], NULL), 0);
	}
	cr_assert_eq(parse(NULL, NULL, "--safe=TRUE", NULL), -EINVAL);
}

Test(ipcargs, stdin_dash)
{
	cr_assert_eq(parse("in put", EXEC "|--query=in put", "-", NULL), 0);
	cr_assert_eq(parse("x", EXEC "|--query=x", "--query", "-", NULL), 0);
	cr_assert_eq(parse("x", EXEC "|--query=x", "--query=-", NULL), 0);
	cr_assert_eq(parse(NULL, NULL, "-", NULL), -EINVAL);
	cr_assert_str_eq(err, "--query: \"-\" reads standard input, which was not sent");
	/* Sent but not taken: unused (the client sends it for any `-`). */
	cr_assert_eq(parse("x", EXEC "|--query=a", "a", NULL), 0);
	/* `-` is no stdin for an int. */
	cr_assert_eq(parse("5", NULL, "--limit=-", NULL), -EINVAL);
}

Test(ipcargs, stdin_limits)
{
	char *big = malloc(HEEL_IPC_STDIN_MAX + 2), *words[] = { "-" };
	struct ipc_parsed p;

	memset(big, 'a', HEEL_IPC_STDIN_MAX + 1);
	cr_assert_eq(ipcargs_parse(&cmd, 1, words, big, HEEL_IPC_STDIN_MAX + 1, "/w", "/w", &p, err,
				   sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "--query: standard input is larger than 1 MiB");
	ipcargs_parsed_free(&p);
	cr_assert_eq(ipcargs_parse(&cmd, 1, words, big, HEEL_IPC_STDIN_MAX, "/w", "/w", &p, err,
				   sizeof(err)),
		     0);
	ipcargs_parsed_free(&p);
	cr_assert_eq(ipcargs_parse(&cmd, 1, words, "a\0b", 3, "/w", "/w", &p, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "--query: standard input holds a NUL byte");
	ipcargs_parsed_free(&p);
	free(big);
}

Test(ipcargs, help)
{
	char usage[256];

	cr_assert_eq(parse(NULL, NULL, "--help", NULL), 1);
	cr_assert_eq(parse(NULL, NULL, "rust", "-h", NULL), 1);
	cr_assert_gt(ipcargs_usage(&cmd, usage, sizeof(usage)), 0);
	cr_assert_str_eq(usage,
			 "usage: web_search [query] [--limit=INT] [--safe[=BOOL]] [--file=PATH]\n");
}

Test(ipcargs, lexical_paths)
{
	cr_assert_eq(parse(NULL, EXEC "|--file=sub/a", "--file=a", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--file=a", "--file=../a", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--file=.", "--file=..", NULL), 0);
	cr_assert_eq(parse(NULL, EXEC "|--file=x/y", "--file=/w/x/./y/", NULL), 0);
	cr_assert_eq(parse(NULL, NULL, "--file=../../etc", NULL), -EXDEV);
	cr_assert_str_eq(err, "--file: \"../../etc\" is outside the working directory /w");
	cr_assert_eq(parse(NULL, NULL, "--file=/wx", NULL), -EXDEV);
	cr_assert_eq(parse(NULL, NULL, "--file=", NULL), -EINVAL);
	cr_assert_str_eq(err, "--file: an empty path");
}

Test(ipcargs, relative)
{
	char out[256];

	cr_assert_eq(ipcargs_relative("sub", "a", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "../a");
	cr_assert_eq(ipcargs_relative("a/b", "a/b", out, sizeof(out)), 0);
	cr_assert_str_eq(out, ".");
	cr_assert_eq(ipcargs_relative("a/b", ".", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "../..");
	cr_assert_eq(ipcargs_relative(".", "x/y", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "x/y");
	cr_assert_eq(ipcargs_relative("ab", "abc/d", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "../abc/d");
}

Test(ipcargs, declarations_refused)
{
	struct ipc_command c;

	cr_assert_eq(ipcargs_command_init(&c, "bad name", err, sizeof(err)), -EINVAL);
	ipcargs_command_free(&c);
	cr_assert_eq(ipcargs_command_init(&c, "x", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&c, "float f", err, sizeof(err)), -EINVAL);
	cr_assert_eq(ipcargs_command_add_arg(&c, "bool b", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&c, "int b", err, sizeof(err)), -EINVAL);
	cr_assert_eq(ipcargs_command_add_positional(&c, "b", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_finish(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "x: a bool (b) cannot be positional");
	ipcargs_command_free(&c);
}

/* The kernel's half: openat2 beneath the working directory's descriptor. */
Test(ipcargs, resolution)
{
	char root[] = "/tmp/heel-ipcargs-XXXXXX", path[256], cwd[300];
	struct ipc_parsed p;
	char *w1[] = { "--file=../in.txt" }, *w2[] = { "--file=esc/passwd" },
	     *w3[] = { "--file=new" }, *w4[] = { "--file=dang" }, *w5[] = { "--file=no/such" };
	int wfd, dfd;

	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/sub", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/in.txt", root);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/sub/esc", root);
	cr_assert_eq(symlink("/etc", path), 0);
	snprintf(path, sizeof(path), "%s/sub/dang", root);
	cr_assert_eq(symlink("/nonexistent-heel", path), 0);
	snprintf(cwd, sizeof(cwd), "%s/sub", root);
	wfd = open(root, O_PATH | O_DIRECTORY);

	cr_assert_eq(ipcargs_parse(&cmd, 1, w1, NULL, 0, root, cwd, &p, err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_resolve(&cmd, &p, wfd, root, cwd, &dfd, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(p.v[3].text, "../in.txt");
	close(dfd);
	ipcargs_parsed_free(&p);
	/* A caller's directory outside: the working directory instead. */
	cr_assert_eq(ipcargs_parse(&cmd, 1, w1, NULL, 0, root, cwd, &p, err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_resolve(&cmd, &p, wfd, root, "/etc", &dfd, err, sizeof(err)), 0);
	cr_assert_str_eq(p.v[3].text, "in.txt");
	close(dfd);
	ipcargs_parsed_free(&p);

	const struct {
		char **w;
		int ok;
	} cases[] = { { w2, 0 }, { w3, 1 }, { w4, 0 }, { w5, 0 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(ipcargs_parse(&cmd, 1, cases[i].w, NULL, 0, root, cwd, &p, err,
					   sizeof(err)),
			     0);
		int rc = ipcargs_resolve(&cmd, &p, wfd, root, cwd, &dfd, err, sizeof(err));

		cr_assert_eq(rc == 0, cases[i].ok, "%s: %s", cases[i].w[0], err);
		if (!cases[i].ok)
			cr_assert(strstr(err, "does not resolve beneath the working directory"), "%s",
				  err);
		if (rc == 0)
			close(dfd);
		ipcargs_parsed_free(&p);
	}
	close(wfd);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	cr_assert_eq(system(path), 0);
}

/* Whatever p held before (a reused struct, the stack's junk), a parse
 * that fails at its first check leaves it safe to free. */
Test(ipcargs, a_refused_parse_leaves_nothing_stale)
{
	static char *words[IPCARGS_ARGV_MAX + 1];
	struct ipc_parsed p;

	for (size_t i = 0; i < IPCARGS_ARGV_MAX + 1; i++)
		words[i] = "a";
	memset(&p, 0xa5, sizeof(p));
	cr_assert_eq(ipcargs_parse(&cmd, IPCARGS_ARGV_MAX + 1, words, NULL, 0, "/w", "/w", &p, err,
				   sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "more than 4096 arguments"), "%s", err);
	ipcargs_parsed_free(&p);
	memset(&p, 0xa5, sizeof(p));
	cr_assert_eq(ipcargs_parse(&cmd, 1, (char *[]){ "--nope" }, NULL, 0, "/w", "/w", &p, err,
				   sizeof(err)),
		     -EINVAL);
	ipcargs_parsed_free(&p);
}

/* SPDX-License-Identifier: MIT
 * The grammar: every statement form builds the node ast.h promises, and
 * every syntax error is reported once, where it is, in words a reader of
 * the policy understands, with parsing carrying on after it. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"

struct parsed {
	struct diag_ctx *ctx;
	struct ast_file *file;
	int rc;
};

static struct parsed
parse(const char *text)
{
	struct parsed p = { 0 };
	const struct diag_source *src;

	p.ctx = diag_new();
	cr_assert_not_null(p.ctx);
	src = diag_add_source(p.ctx, "t.heel", NULL, text, strlen(text));
	cr_assert_not_null(src);
	p.rc = parse_source(p.ctx, src, &p.file);
	return p;
}

static void
done(struct parsed *p)
{
	ast_file_free(p->file);
	diag_free(p->ctx);
}

static void
dump_diags(const struct parsed *p)
{
	diag_render(p->ctx, stderr);
}

/* Parses a text that must be valid and returns its first statement. */
static const struct ast_stmt *
ok(struct parsed *p, const char *text)
{
	*p = parse(text);
	if (p->rc != 0)
		dump_diags(p);
	cr_assert_eq(p->rc, 0, "parse failed: %d", p->rc);
	cr_assert_eq(diag_count(p->ctx), 0);
	cr_assert_not_null(p->file);
	cr_assert_not_null(p->file->stmts);
	return p->file->stmts;
}

static size_t
count(const struct ast_stmt *s)
{
	size_t n = 0;

	for (; s; s = s->next)
		n++;
	return n;
}

static void
expect_arg(const struct ast_stmt *s, size_t i, enum ast_arg_kind kind,
	   const char *text, uint32_t col)
{
	cr_assert_gt(s->nargs, i, "%s has %zu args", ast_kind_name(s->kind), s->nargs);
	cr_expect_eq(s->args[i].kind, kind, "arg %zu kind %d", i, s->args[i].kind);
	cr_expect_str_eq(s->args[i].text, text);
	cr_expect_eq(s->args[i].len, strlen(text));
	if (col)
		cr_expect_eq(s->args[i].loc.col, col, "arg %zu col %u, want %u", i,
			     s->args[i].loc.col, col);
}

/* ----------------------------------------------------------- statements */

Test(parser, heel)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "heel 1\n");

	cr_expect_eq(s->kind, AST_HEEL);
	cr_expect_eq(s->loc.line, 1);
	cr_expect_eq(s->loc.col, 1);
	cr_expect_eq(s->last_line, 1);
	cr_expect_eq(s->nargs, 1);
	expect_arg(s, 0, AST_ARG_NUMBER, "1", 6);
	cr_expect_eq(s->loc.src, p.file->src);
	done(&p);
}

Test(parser, isolation)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "isolation strict");

	cr_expect_eq(s->kind, AST_ISOLATION);
	expect_arg(s, 0, AST_ARG_WORD, "strict", 11);
	done(&p);
}

Test(parser, include_angle_and_string)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "include <python>\ninclude \"team/a.heel\"");

	cr_expect_eq(s->kind, AST_INCLUDE);
	expect_arg(s, 0, AST_ARG_ANGLE, "python", 9);
	cr_expect_null(s->args[0].raw);
	s = s->next;
	cr_expect_eq(s->kind, AST_INCLUDE);
	expect_arg(s, 0, AST_ARG_STRING, "team/a.heel", 9);
	cr_expect_str_eq(s->args[0].raw, "team/a.heel");
	cr_expect_eq(s->loc.line, 2);
	done(&p);
}

Test(parser, grant)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "grant \"/usr/share\" r");

	cr_expect_eq(s->kind, AST_GRANT);
	cr_expect_eq(s->flags, 0);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 0, AST_ARG_STRING, "/usr/share", 7);
	expect_arg(s, 1, AST_ARG_WORD, "r", 20);
	done(&p);
}

Test(parser, grant_optional)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "  grant \"${HOME}/.cache/pip\"  rw   optional # c");

	cr_expect_eq(s->kind, AST_GRANT);
	cr_expect_eq(s->flags, AST_F_OPTIONAL);
	cr_expect_eq(s->loc.col, 3);
	cr_expect_eq(s->flag_loc.line, 1);
	cr_expect_eq(s->flag_loc.col, 36);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 1, AST_ARG_WORD, "rw", 31);
	done(&p);
}

Test(parser, grant_mode_may_be_any_word)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "grant \"/x\" rwz\ngrant \"/y\" deny");

	expect_arg(s, 1, AST_ARG_WORD, "rwz", 0);
	expect_arg(s->next, 1, AST_ARG_WORD, "deny", 0);
	done(&p);
}

Test(parser, deny_and_gpu)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "deny \"${HOME}/.netrc\"\ndeny gpu\nallow gpu");

	cr_expect_eq(s->kind, AST_DENY);
	expect_arg(s, 0, AST_ARG_STRING, "${HOME}/.netrc", 6);
	cr_expect_eq(s->next->kind, AST_DENY_GPU);
	cr_expect_eq(s->next->nargs, 0);
	cr_expect_eq(s->next->next->kind, AST_ALLOW_GPU);
	done(&p);
}

Test(parser, protect_lists)
{
	struct parsed p;
	const struct ast_stmt *s =
		ok(&p, "protect credentials cloud-config browser-data keychains\nunprotect user-home");

	cr_expect_eq(s->kind, AST_PROTECT);
	cr_expect_eq(s->nargs, 4);
	expect_arg(s, 0, AST_ARG_WORD, "credentials", 9);
	expect_arg(s, 3, AST_ARG_WORD, "keychains", 47);
	cr_expect_eq(s->next->kind, AST_UNPROTECT);
	cr_expect_eq(s->next->nargs, 1);
	done(&p);
}

Test(parser, long_lists_grow)
{
	struct parsed p;
	char buf[20000];
	size_t o = (size_t)snprintf(buf, sizeof(buf), "env pass");
	const struct ast_stmt *s;

	for (int i = 0; i < 1000; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, " \"V%d\"", i);
	s = ok(&p, buf);
	cr_expect_eq(s->kind, AST_ENV_PASS);
	cr_assert_eq(s->nargs, 1000);
	expect_arg(s, 999, AST_ARG_STRING, "V999", 0);
	done(&p);
}

Test(parser, network_simple_forms)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "network deny\nnetwork allow-all\nnetwork allow-private");

	cr_expect_eq(s->kind, AST_NETWORK_DENY);
	cr_expect_eq(s->next->kind, AST_NETWORK_ALLOW_ALL);
	cr_expect_eq(s->next->next->kind, AST_NETWORK_ALLOW_PRIVATE);
	done(&p);
}

Test(parser, network_allow_block_multi_line)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "network allow {\n"
					  "    \"api.example.com\"\n"
					  "\n"
					  "    \"*.github.com\"   # sub\n"
					  "}\n"
					  "nice 1\n");
	const struct ast_stmt *c;

	cr_expect_eq(s->kind, AST_NETWORK_ALLOW);
	cr_expect_eq(s->nargs, 0);
	cr_expect_eq(s->loc.line, 1);
	cr_expect_eq(s->last_line, 5);
	c = s->children;
	cr_assert_eq(count(c), 2);
	cr_expect_eq(c->kind, AST_PATTERN);
	expect_arg(c, 0, AST_ARG_STRING, "api.example.com", 5);
	cr_expect_eq(c->loc.line, 2);
	cr_expect_eq(c->loc.col, 5);
	cr_expect_eq(c->last_line, 2);
	expect_arg(c->next, 0, AST_ARG_STRING, "*.github.com", 5);
	cr_expect_eq(c->next->loc.line, 4);
	cr_expect_eq(s->next->kind, AST_NICE);
	done(&p);
}

Test(parser, network_allow_block_one_line)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "network allow { \"a.com\"; \"*.b.com\" }");

	cr_expect_eq(s->kind, AST_NETWORK_ALLOW);
	cr_assert_eq(count(s->children), 2);
	expect_arg(s->children, 0, AST_ARG_STRING, "a.com", 17);
	expect_arg(s->children->next, 0, AST_ARG_STRING, "*.b.com", 26);
	cr_expect_eq(s->last_line, 1);
	done(&p);
}

Test(parser, network_allow_empty_blocks)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "network allow { }\nnetwork allow {\n}\nnetwork allow {;;}");

	cr_expect_eq(count(s), 3);
	for (; s; s = s->next) {
		cr_expect_eq(s->kind, AST_NETWORK_ALLOW);
		cr_expect_null(s->children);
	}
	done(&p);
}

Test(parser, network_audit)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "network audit \"/f.jsonl\"\nnetwork audit daily \"/d\"");

	cr_expect_eq(s->kind, AST_NETWORK_AUDIT);
	cr_expect_eq(s->flags, 0);
	expect_arg(s, 0, AST_ARG_STRING, "/f.jsonl", 15);
	s = s->next;
	cr_expect_eq(s->kind, AST_NETWORK_AUDIT);
	cr_expect_eq(s->flags, AST_F_DAILY);
	cr_expect_eq(s->flag_loc.line, 2);
	cr_expect_eq(s->flag_loc.col, 15);
	cr_expect_eq(s->nargs, 1);
	expect_arg(s, 0, AST_ARG_STRING, "/d", 21);
	done(&p);
}

Test(parser, network_decide)
{
	struct parsed p;
	const struct ast_stmt *s =
	    ok(&p, "network decide \"/usr/bin/d\"\nnetwork decide \"${HOME}/d\" \"--x\" \"\"; nice 1");

	cr_expect_eq(s->kind, AST_NETWORK_DECIDE);
	cr_expect_eq(s->flags, 0);
	cr_expect_eq(s->nargs, 1);
	expect_arg(s, 0, AST_ARG_STRING, "/usr/bin/d", 16);
	s = s->next;
	cr_expect_eq(s->kind, AST_NETWORK_DECIDE);
	cr_expect_eq(s->loc.line, 2);
	cr_expect_eq(s->nargs, 3);
	expect_arg(s, 0, AST_ARG_STRING, "${HOME}/d", 16);
	expect_arg(s, 1, AST_ARG_STRING, "--x", 28);
	expect_arg(s, 2, AST_ARG_STRING, "", 34);
	cr_expect_eq(s->next->kind, AST_NICE);
	done(&p);
}

Test(parser, readonly_forms)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "readonly \"${HOME}/.bashrc\"\n"
					  "readonly \"/x\" because \"bash runs it\"\n"
					  "readonly each-writable \".git/hooks\"\n"
					  "readonly each-writable \".envrc\" because \"direnv\"");

	cr_expect_eq(s->kind, AST_READONLY);
	cr_expect_eq(s->flags, 0);
	cr_expect_eq(s->nargs, 1);
	expect_arg(s, 0, AST_ARG_STRING, "${HOME}/.bashrc", 10);
	s = s->next;
	cr_expect_eq(s->flags, AST_F_BECAUSE);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 1, AST_ARG_STRING, "bash runs it", 23);
	cr_expect_eq(s->flag_loc.col, 15);
	s = s->next;
	cr_expect_eq(s->flags, AST_F_EACH_WRITABLE);
	cr_expect_eq(s->nargs, 1);
	expect_arg(s, 0, AST_ARG_STRING, ".git/hooks", 24);
	s = s->next;
	cr_expect_eq(s->flags, AST_F_EACH_WRITABLE | AST_F_BECAUSE);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 0, AST_ARG_STRING, ".envrc", 24);
	expect_arg(s, 1, AST_ARG_STRING, "direnv", 41);
	done(&p);
}

Test(parser, limits)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "limit memory     2GiB\nlimit cpu 60s\nlimit processes 256");

	cr_expect_eq(s->kind, AST_LIMIT);
	expect_arg(s, 0, AST_ARG_WORD, "memory", 7);
	expect_arg(s, 1, AST_ARG_NUMBER, "2GiB", 18);
	expect_arg(s->next, 1, AST_ARG_NUMBER, "60s", 0);
	expect_arg(s->next->next, 1, AST_ARG_NUMBER, "256", 0);
	done(&p);
}

Test(parser, keywords_stand_for_words_where_a_word_is_expected)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "limit nice 1\nisolation deny\nprotect network gpu\n"
					  "io-priority on\non python { }\nprotect decide\n");

	cr_expect_eq(count(s), 6);
	done(&p);
}

Test(parser, keyword_words_keep_their_spelling_and_column)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "limit nice 1\nprotect network gpu optional decide");

	expect_arg(s, 0, AST_ARG_WORD, "nice", 7);
	s = s->next;
	cr_expect_eq(s->nargs, 4);
	expect_arg(s, 0, AST_ARG_WORD, "network", 9);
	expect_arg(s, 1, AST_ARG_WORD, "gpu", 17);
	expect_arg(s, 2, AST_ARG_WORD, "optional", 21);
	expect_arg(s, 3, AST_ARG_WORD, "decide", 30);
	done(&p);
}

Test(parser, nice_and_io_priority)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "nice 10\nio-priority background");

	cr_expect_eq(s->kind, AST_NICE);
	expect_arg(s, 0, AST_ARG_NUMBER, "10", 6);
	cr_expect_eq(s->next->kind, AST_IO_PRIORITY);
	expect_arg(s->next, 0, AST_ARG_WORD, "background", 13);
	done(&p);
}

Test(parser, env)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "env pass \"LANG\" \"TERM\" \"TZ\"\nenv set  \"A\" \"\"");

	cr_expect_eq(s->kind, AST_ENV_PASS);
	cr_expect_eq(s->nargs, 3);
	expect_arg(s, 2, AST_ARG_STRING, "TZ", 24);
	s = s->next;
	cr_expect_eq(s->kind, AST_ENV_SET);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 0, AST_ARG_STRING, "A", 10);
	expect_arg(s, 1, AST_ARG_STRING, "", 14);
	done(&p);
}

Test(parser, workdir_sbpl_capability)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "workdir \"/w\"; sbpl \"(allow x)\"; capability \"internetClient\"");

	cr_expect_eq(s->kind, AST_WORKDIR);
	expect_arg(s, 0, AST_ARG_STRING, "/w", 9);
	cr_expect_eq(s->next->kind, AST_SBPL);
	expect_arg(s->next, 0, AST_ARG_STRING, "(allow x)", 20);
	cr_expect_eq(s->next->next->kind, AST_CAPABILITY);
	cr_expect_eq(s->next->next->loc.col, 33);
	done(&p);
}

Test(parser, ipc_block)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "ipc \"web_search\" {\n"
					  "    exec \"/usr/local/bin/web-search\"\n"
					  "    positional \"query\" \"n\"\n"
					  "    timeout 30s\n"
					  "}");
	const struct ast_stmt *c;

	cr_expect_eq(s->kind, AST_IPC);
	expect_arg(s, 0, AST_ARG_STRING, "web_search", 5);
	cr_expect_eq(s->last_line, 5);
	c = s->children;
	cr_assert_eq(count(c), 3);
	cr_expect_eq(c->kind, AST_IPC_EXEC);
	expect_arg(c, 0, AST_ARG_STRING, "/usr/local/bin/web-search", 10);
	cr_expect_eq(c->next->kind, AST_IPC_POSITIONAL);
	cr_expect_eq(c->next->nargs, 2);
	cr_expect_eq(c->next->next->kind, AST_IPC_TIMEOUT);
	expect_arg(c->next->next, 0, AST_ARG_NUMBER, "30s", 13);
	cr_expect_eq(c->next->next->loc.line, 4);
	done(&p);
}

Test(parser, ipc_block_one_line)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "ipc \"x\" { exec \"/y\"; positional \"q\" }");

	cr_expect_eq(s->kind, AST_IPC);
	cr_assert_eq(count(s->children), 2);
	cr_expect_eq(s->children->kind, AST_IPC_EXEC);
	cr_expect_eq(s->children->next->kind, AST_IPC_POSITIONAL);
	cr_expect_eq(s->children->next->loc.col, 22);
	done(&p);
}

Test(parser, python_block)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "python {\n  venv \"/v\"\n  packages \"a\" \"b\"; allow-pip-install no\n}");
	const struct ast_stmt *c;

	cr_expect_eq(s->kind, AST_PYTHON);
	cr_expect_eq(s->nargs, 0);
	cr_expect_eq(s->last_line, 4);
	c = s->children;
	cr_assert_eq(count(c), 3);
	cr_expect_eq(c->kind, AST_PY_VENV);
	cr_expect_eq(c->next->kind, AST_PY_PACKAGES);
	cr_expect_eq(c->next->nargs, 2);
	cr_expect_eq(c->next->next->kind, AST_PY_ALLOW_PIP);
	expect_arg(c->next->next, 0, AST_ARG_WORD, "no", 39);
	done(&p);
}

Test(parser, on_block)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "on linux {\n    seccomp deny \"personality\"\n"
					  "    grant \"/x\" r\n}\non macos { allow mach-lookup \"com.apple.x\" }");
	const struct ast_stmt *c;

	cr_expect_eq(s->kind, AST_ON);
	expect_arg(s, 0, AST_ARG_WORD, "linux", 4);
	cr_expect_eq(s->last_line, 4);
	c = s->children;
	cr_assert_eq(count(c), 2);
	cr_expect_eq(c->kind, AST_SECCOMP);
	cr_expect_eq(c->flags, 0);
	cr_expect_eq(c->loc.line, 2);
	cr_expect_eq(c->loc.col, 5);
	cr_expect_eq(c->next->kind, AST_GRANT);
	s = s->next;
	cr_expect_eq(s->kind, AST_ON);
	cr_assert_eq(count(s->children), 1);
	cr_expect_eq(s->children->kind, AST_ALLOW_MACH_LOOKUP);
	expect_arg(s->children, 0, AST_ARG_STRING, "com.apple.x", 30);
	done(&p);
}

Test(parser, on_blocks_nest_in_the_grammar)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "on linux { on macos { heel 1 } ; ipc \"a\" { exec \"/b\" } }");

	cr_expect_eq(s->kind, AST_ON);
	cr_assert_eq(count(s->children), 2);
	cr_expect_eq(s->children->kind, AST_ON);
	cr_expect_eq(s->children->children->kind, AST_HEEL);
	cr_expect_eq(s->children->next->kind, AST_IPC);
	done(&p);
}

Test(parser, seccomp_forms)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "seccomp deny \"a\"\nseccomp deny \"b\" errno EACCES\nseccomp allow \"c\"");

	cr_expect_eq(s->kind, AST_SECCOMP);
	cr_expect_eq(s->flags, 0);
	cr_expect_eq(s->nargs, 1);
	s = s->next;
	cr_expect_eq(s->flags, AST_F_ERRNO);
	cr_expect_eq(s->nargs, 2);
	expect_arg(s, 0, AST_ARG_STRING, "b", 14);
	expect_arg(s, 1, AST_ARG_UPPER, "EACCES", 24);
	cr_expect_eq(s->flag_loc.col, 18);
	s = s->next;
	cr_expect_eq(s->flags, AST_F_ALLOW);
	expect_arg(s, 0, AST_ARG_STRING, "c", 15);
	done(&p);
}

Test(parser, allow_forms)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "allow unix-sockets\nallow mach-lookup \"x\"\nallow gpu");

	cr_expect_eq(s->kind, AST_ALLOW_UNIX_SOCKETS);
	cr_expect_eq(s->next->kind, AST_ALLOW_MACH_LOOKUP);
	cr_expect_eq(s->next->next->kind, AST_ALLOW_GPU);
	done(&p);
}

Test(parser, empty_statements)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, ";;\n\n;heel 1;;;nice 2;\n\n");

	cr_expect_eq(count(s), 2);
	done(&p);
}

Test(parser, empty_and_comment_only_files)
{
	struct parsed p = parse("");

	cr_expect_eq(p.rc, 0);
	cr_expect_null(p.file->stmts);
	done(&p);
	p = parse("# only\n\n# comments");
	cr_expect_eq(p.rc, 0);
	cr_expect_null(p.file->stmts);
	cr_expect_eq(p.file->ncomments, 2);
	done(&p);
}

Test(parser, the_language_md_example)
{
	static const char text[] =
		"heel 1                                   # language version\n"
		"\n"
		"isolation default\n"
		"include <python>\n"
		"include \"team/common.heel\"\n"
		"\n"
		"grant \"/usr/share\"              r\n"
		"grant \"./target\"                rwx      # written, then run\n"
		"grant \"${HOME}/.cache/pip\"      rw   optional\n"
		"deny  \"${HOME}/.netrc\"\n"
		"\n"
		"protect credentials cloud-config browser-data keychains\n"
		"unprotect user-home\n"
		"allow gpu\n"
		"\n"
		"network allow {\n"
		"    \"api.example.com\"\n"
		"    \"*.github.com\"                       # subdomains only\n"
		"}\n"
		"network audit daily \"${HOME}/.local/state/heel/net\"\n"
		"\n"
		"limit memory     2GiB\n"
		"limit cpu        60s\n"
		"limit processes  256\n"
		"limit open-files 1024\n"
		"limit file-size  1GiB\n"
		"\n"
		"nice 10\n"
		"io-priority background\n"
		"\n"
		"env pass \"LANG\" \"TERM\" \"TZ\"\n"
		"env set  \"PYTHONDONTWRITEBYTECODE\" \"1\"\n"
		"\n"
		"ipc \"web_search\" {\n"
		"    exec \"/usr/local/bin/web-search\"\n"
		"    positional \"query\"\n"
		"}\n"
		"\n"
		"on linux {\n"
		"    seccomp deny \"personality\"\n"
		"}\n"
		"on macos {\n"
		"    allow mach-lookup \"com.apple.system.logger\"\n"
		"}\n";
	static const enum ast_kind kinds[] = {
		AST_HEEL, AST_ISOLATION, AST_INCLUDE, AST_INCLUDE, AST_GRANT,
		AST_GRANT, AST_GRANT, AST_DENY, AST_PROTECT, AST_UNPROTECT,
		AST_ALLOW_GPU, AST_NETWORK_ALLOW, AST_NETWORK_AUDIT, AST_LIMIT,
		AST_LIMIT, AST_LIMIT, AST_LIMIT, AST_LIMIT, AST_NICE,
		AST_IO_PRIORITY, AST_ENV_PASS, AST_ENV_SET, AST_IPC, AST_ON, AST_ON,
	};
	struct parsed p;
	const struct ast_stmt *s = ok(&p, text);
	size_t i = 0;

	for (; s; s = s->next, i++) {
		cr_assert_lt(i, sizeof(kinds) / sizeof(kinds[0]));
		cr_expect_eq(s->kind, kinds[i], "statement %zu is %s", i, ast_kind_name(s->kind));
	}
	cr_expect_eq(i, sizeof(kinds) / sizeof(kinds[0]));
	cr_expect_eq(p.file->ncomments, 3);
	cr_expect_eq(p.file->nlines, 44);
	done(&p);
}

Test(parser, last_line_of_multi_line_statements)
{
	struct parsed p;
	const struct ast_stmt *s = ok(&p, "on linux {\n\n  grant \"/x\" r\n\n}\nnice 1");

	cr_expect_eq(s->loc.line, 1);
	cr_expect_eq(s->last_line, 5);
	cr_expect_eq(s->children->last_line, 3);
	cr_expect_eq(s->next->last_line, 6);
	done(&p);
}

/* ---------------------------------------------------------------- errors */

struct err_case {
	const char *text;
	uint32_t line, col;
	const char *message;
	const char *hint; /* NULL: no hint; "*": any */
};

static void
check_one_error(const struct err_case *c)
{
	struct parsed p = parse(c->text);
	const struct diag *d;

	if (diag_count(p.ctx) != 1)
		dump_diags(&p);
	cr_assert_eq(diag_count(p.ctx), 1, "%s: %zu diagnostics", c->text, diag_count(p.ctx));
	cr_expect_eq(p.rc, -EINVAL);
	cr_assert_not_null(p.file, "the tree is returned even with errors");
	d = diag_get(p.ctx, 0);
	cr_expect_eq(d->severity, DIAG_ERROR);
	cr_expect_str_eq(d->message, c->message, "%s", c->text);
	cr_expect_eq(d->loc.line, c->line, "%s: line %u", c->text, d->loc.line);
	cr_expect_eq(d->loc.col, c->col, "%s: col %u, want %u", c->text, d->loc.col, c->col);
	cr_expect_eq(d->loc.src, p.file->src);
	if (!c->hint)
		cr_expect_null(d->hint, "%s: hint %s", c->text, d->hint);
	else if (strcmp(c->hint, "*") != 0)
		cr_expect_str_eq(d->hint, c->hint, "%s", c->text);
	else
		cr_expect_not_null(d->hint);
	done(&p);
}

/* One test per case: criterion re-executes the binary for each test, so
 * a parameter array of pointers cannot be shared with the workers. */
#define ERR_CASE(name, ...) \
	Test(parse_error, name) \
	{ \
		static const struct err_case c = { __VA_ARGS__ }; \
		check_one_error(&c); \
	}

ERR_CASE(unknown_statement_gramt,
	 "heel 1\ngramt \"/x\" r\n", 2, 1, "unknown statement `gramt`", "did you mean `grant`?")
ERR_CASE(unknown_statement_netwrok,
	 "netwrok deny", 1, 1, "unknown statement `netwrok`", "did you mean `network`?")
ERR_CASE(unknown_statement_frobnicate,
	 "frobnicate", 1, 1, "unknown statement `frobnicate`", NULL)
ERR_CASE(unknown_statement_grant,
	 "GRANT \"/x\" r", 1, 1, "unknown statement `GRANT`",
	  "keywords are lower-case: did you mean `grant`?")
ERR_CASE(expected_a_statement_found_a_string,
	 "\"/x\" r", 1, 1, "expected a statement, found a string", "*")
ERR_CASE(expected_a_statement_found_42,
	 "42", 1, 1, "expected a statement, found `42`", "*")
ERR_CASE(expected_a_mode_r_rw_rx,
	 "grant \"/x\"", 1, 11, "expected a mode (r, rw, rx or rwx) after the path",
	  "usage: grant \"PATH\" r|rw|rx|rwx [optional]")
ERR_CASE(expected_a_mode_r_rw_rx_2,
	 "grant \"/x\"    # why\n", 1, 11, "expected a mode (r, rw, rx or rwx) after the path", "*")
ERR_CASE(expected_a_mode_r_rw_rx_3,
	 "grant \"/x\"; nice 1", 1, 11,
	  "expected a mode (r, rw, rx or rwx) after the path, found `;`", "*")
ERR_CASE(expected_a_mode_r_rw_rx_4,
	 "grant \"/x\" \"rw\"", 1, 12,
	  "expected a mode (r, rw, rx or rwx) after the path, found a string",
	  "write it without quotes")
ERR_CASE(expected_a_mode_r_rw_rx_5,
	 "grant \"/x\" RW", 1, 12, "expected a mode (r, rw, rx or rwx) after the path, found `RW`",
	  "words are lower-case: `rw`")
ERR_CASE(expected_a_quoted_path_after_grant,
	 "grant", 1, 6, "expected a quoted path after `grant`", "*")
ERR_CASE(expected_a_quoted_path_after_grant_2,
	 "grant usr r", 1, 7, "expected a quoted path after `grant`, found `usr`",
	  "quote it: \"usr\"")
ERR_CASE(expected_optional_or_the_end_of,
	 "grant \"/x\" rw optinal", 1, 15,
	  "expected `optional` or the end of the statement after the mode, found `optinal`",
	  "did you mean `optional`?")
ERR_CASE(unexpected_extra_after_a_complete_grant,
	 "grant \"/x\" rw optional extra", 1, 24,
	  "unexpected `extra` after a complete `grant` statement",
	  "statements end at a newline or `;`")
ERR_CASE(expected_the_language_version_after_heel,
	 "heel", 1, 5, "expected the language version after `heel`",
	  "the first statement of every file is `heel 1`")
ERR_CASE(expected_the_language_version_after_heel_2,
	 "heel one", 1, 6, "expected the language version after `heel`, found `one`", "*")
ERR_CASE(unexpected_2_after_a_complete_heel,
	 "heel 1 2", 1, 8, "unexpected `2` after a complete `heel` statement", "*")
ERR_CASE(expected_an_isolation_base_strict_default,
	 "isolation", 1, 10,
	  "expected an isolation base (strict, default or permissive) after `isolation`", "*")
ERR_CASE(expected_an_isolation_base_strict_default_2,
	 "isolation \"strict\"", 1, 11,
	  "expected an isolation base (strict, default or permissive) after `isolation`, found a string",
	  "write it without quotes")
ERR_CASE(expected_a_preset_name_in_angle,
	 "include python", 1, 9,
	  "expected a preset name in angle brackets or a quoted file name after `include`, found `python`",
	  "did you mean `<python>`?")
ERR_CASE(expected_a_quoted_path_or_gpu,
	 "deny", 1, 5, "expected a quoted path or `gpu` after `deny`", "*")
ERR_CASE(expected_a_quoted_path_or_gpu_2,
	 "deny gpus", 1, 6, "expected a quoted path or `gpu` after `deny`, found `gpus`",
	  "did you mean `gpu`?")
ERR_CASE(expected_a_protection_set_name_after,
	 "protect", 1, 8, "expected a protection set name after `protect`", "*")
ERR_CASE(expected_another_set_name_or_the,
	 "protect credentials \"x\"", 1, 21,
	  "expected another set name or the end of the statement, found a string",
	  "write it without quotes")
ERR_CASE(expected_a_protection_set_name_after_2,
	 "unprotect", 1, 10, "expected a protection set name after `unprotect`", "*")
ERR_CASE(expected_gpu_unix_sockets_or_mach,
	 "allow", 1, 6, "expected gpu, unix-sockets or mach-lookup after `allow`", "*")
ERR_CASE(expected_gpu_unix_sockets_or_mach_2,
	 "allow unix-socket", 1, 7,
	  "expected gpu, unix-sockets or mach-lookup after `allow`, found `unix-socket`",
	  "did you mean `unix-sockets`?")
ERR_CASE(expected_gpu_unix_sockets_or_mach_3,
	 "allow \"a.com\"", 1, 7,
	  "expected gpu, unix-sockets or mach-lookup after `allow`, found a string",
	  "a path is opened with `grant \"PATH\" r` (or rw, rx, rwx), a host with "
	  "`network allow { \"HOST\" }`; `allow` takes gpu, unix-sockets or mach-lookup")
ERR_CASE(expected_a_quoted_service_name_after,
	 "allow mach-lookup", 1, 18, "expected a quoted service name after `allow mach-lookup`",
	  "*")
ERR_CASE(unexpected_now_after_a_complete_allow,
	 "allow gpu now", 1, 11, "unexpected `now` after a complete `allow gpu` statement", "*")
ERR_CASE(expected_deny_allow_all_allow_allow,
	 "network", 1, 8, "expected deny, allow-all, allow, allow-private, audit or decide after `network`",
	  "*")
ERR_CASE(expected_deny_allow_all_allow_allow_2,
	 "network alow {", 1, 9,
	  "expected deny, allow-all, allow, allow-private, audit or decide after `network`, found `alow`",
	  "did you mean `allow`?")
ERR_CASE(expected_after_network_allow,
	 "network allow", 1, 14, "expected `{` after `network allow`",
	  "a block's `{` goes on the same line as its statement")
ERR_CASE(expected_after_network_allow_found_a,
	 "network allow \"a.com\"", 1, 15, "expected `{` after `network allow`, found a string",
	  "*")
ERR_CASE(expected_after_network_allow_2,
	 "network allow\n{\n  \"a.com\"\n}\n", 1, 14, "expected `{` after `network allow`", "*")
ERR_CASE(expected_a_quoted_file_name_or,
	 "network audit", 1, 14, "expected a quoted file name or `daily` after `network audit`",
	  "*")
ERR_CASE(expected_a_quoted_file_name_or_2,
	 "network audit dayly \"/d\"", 1, 15,
	  "expected a quoted file name or `daily` after `network audit`, found `dayly`",
	  "did you mean `daily`?")
ERR_CASE(expected_a_quoted_directory_after_network,
	 "network audit daily", 1, 20, "expected a quoted directory after `network audit daily`",
	  "*")
ERR_CASE(expected_a_quoted_program_path_after_decide,
	 "network decide", 1, 15, "expected a quoted program path after `network decide`",
	  "usage: network decide \"PROGRAM\" [\"ARG\"...]")
ERR_CASE(expected_a_quoted_program_path_after_decide_2,
	 "network decide /usr/bin/d", 1, 16, "unquoted path `/usr/bin/d`",
	  "write it as a string: \"/usr/bin/d\"")
ERR_CASE(expected_a_quoted_program_path_after_decide_3,
	 "network decide decider", 1, 16,
	  "expected a quoted program path after `network decide`, found `decider`",
	  "quote it: \"decider\"")
ERR_CASE(expected_another_argument_after_decide,
	 "network decide \"/d\" --strict", 1, 21, "unexpected characters `--`", NULL)
ERR_CASE(expected_another_argument_after_decide_2,
	 "network decide \"/d\" strict", 1, 21,
	  "expected another quoted argument or the end of the statement, found `strict`",
	  "quote it: \"strict\"")
ERR_CASE(expected_a_quoted_path_or_each_writable,
	 "readonly", 1, 9, "expected a quoted path or `each-writable` after `readonly`",
	  "usage: readonly \"PATH\" [because \"WHY\"] or readonly each-writable \"PATH\" [because \"WHY\"]")
ERR_CASE(expected_a_quoted_path_or_each_writable_2,
	 "readonly each-writeable \".git\"", 1, 10,
	  "expected a quoted path or `each-writable` after `readonly`, found `each-writeable`",
	  "did you mean `each-writable`?")
ERR_CASE(expected_a_relative_path_after_each_writable,
	 "readonly each-writable", 1, 23,
	  "expected a quoted path, relative to each writable place, after `each-writable`", "*")
ERR_CASE(expected_because_or_the_end,
	 "readonly \"/x\" becuase \"y\"", 1, 15,
	  "expected `because` or the end of the statement after the path, found `becuase`",
	  "did you mean `because`?")
ERR_CASE(expected_because_or_the_end_2,
	 "readonly each-writable \".x\" \"y\"", 1, 29,
	  "expected `because` or the end of the statement after the path, found a string", "*")
ERR_CASE(expected_a_quoted_reason_after_because,
	 "readonly \"/x\" because", 1, 22, "expected a quoted reason after `because`", "*")
ERR_CASE(expected_a_quoted_reason_after_because_2,
	 "readonly each-writable \".x\" because git", 1, 37,
	  "expected a quoted reason after `because`, found `git`", "quote it: \"git\"")
ERR_CASE(because_cannot_start_a_statement,
	 "because \"x\"", 1, 1, "`because` cannot start a statement",
	  "`because \"WHY\"` goes at the end of a `readonly` statement")
ERR_CASE(each_writable_cannot_start_a_statement,
	 "each-writable \".git\"", 1, 1, "`each-writable` cannot start a statement",
	  "write `readonly each-writable \"PATH\"`")
ERR_CASE(decide_cannot_start_a_statement,
	 "decide \"/d\"", 1, 1, "`decide` cannot start a statement", "write `network decide ...`")
ERR_CASE(network_decide_misspelt,
	 "network decid \"/d\"", 1, 9,
	  "expected deny, allow-all, allow, allow-private, audit or decide after `network`, found `decid`",
	  "did you mean `decide`?")
ERR_CASE(unexpected_all_after_a_complete_network,
	 "network deny all", 1, 14, "unexpected `all` after a complete `network deny` statement",
	  "*")
ERR_CASE(expected_a_limit_name_memory_cpu,
	 "limit", 1, 6,
	  "expected a limit name (memory, cpu, processes, open-files, file-size, stack or core) after `limit`",
	  "*")
ERR_CASE(expected_a_value_after_the_limit,
	 "limit memory", 1, 13, "expected a value after the limit name, e.g. 2GiB, 60s or 256",
	  "usage: limit memory|cpu|processes|open-files|file-size|stack|core VALUE")
ERR_CASE(expected_a_value_after_the_limit_2,
	 "limit memory \"2GiB\"", 1, 14,
	  "expected a value after the limit name, e.g. 2GiB, 60s or 256, found a string",
	  "write it without quotes")
ERR_CASE(expected_a_number_from_1_to,
	 "nice", 1, 5, "expected a number from 1 to 19 after `nice`", "*")
ERR_CASE(expected_a_number_from_1_to_2,
	 "nice high", 1, 6, "expected a number from 1 to 19 after `nice`, found `high`", "*")
ERR_CASE(expected_utility_or_background_after_io,
	 "io-priority", 1, 12, "expected utility or background after `io-priority`", "*")
ERR_CASE(expected_pass_or_set_after_env,
	 "env", 1, 4, "expected pass or set after `env`", "*")
ERR_CASE(expected_pass_or_set_after_env_2,
	 "env pas \"A\"", 1, 5, "expected pass or set after `env`, found `pas`",
	  "did you mean `pass`?")
ERR_CASE(expected_a_quoted_variable_name_after,
	 "env pass", 1, 9, "expected a quoted variable name after `env pass`", "*")
ERR_CASE(expected_a_quoted_variable_name_after_2,
	 "env pass LANG", 1, 10, "expected a quoted variable name after `env pass`, found `LANG`",
	  "quote it: \"LANG\"")
ERR_CASE(expected_another_quoted_variable_name_or,
	 "env pass \"A\" B", 1, 14,
	  "expected another quoted variable name or the end of the statement, found `B`",
	  "quote it: \"B\"")
ERR_CASE(expected_a_quoted_value_after_the,
	 "env set \"A\"", 1, 12, "expected a quoted value after the variable name", "*")
ERR_CASE(expected_a_quoted_variable_name_after_3,
	 "env set", 1, 8, "expected a quoted variable name after `env set`", "*")
ERR_CASE(unexpected_string_after_a_complete_env,
	 "env set \"A\" \"b\" \"c\"", 1, 17,
	  "unexpected string after a complete `env set` statement", "*")
ERR_CASE(expected_a_quoted_path_after_workdir,
	 "workdir", 1, 8, "expected a quoted path after `workdir`", "*")
ERR_CASE(expected_a_quoted_command_name_after,
	 "ipc", 1, 4, "expected a quoted command name after `ipc`", "*")
ERR_CASE(expected_after_the_ipc_name,
	 "ipc \"x\"", 1, 8, "expected `{` after the ipc name", "*")
ERR_CASE(expected_a_quoted_command_name_after_2,
	 "ipc foo {\n  exec \"/x\"\n}\n", 1, 5,
	  "expected a quoted command name after `ipc`, found `foo`", "quote it: \"foo\"")
ERR_CASE(unknown_statement_exek_in_an_ipc,
	 "ipc \"x\" { exek \"/y\" }", 1, 11, "unknown statement `exek` in an `ipc` block",
	  "did you mean `exec`?")
ERR_CASE(unknown_statement_frob_in_an_ipc,
	 "ipc \"x\" { frob }", 1, 11, "unknown statement `frob` in an `ipc` block",
	  "an `ipc` block holds exec, positional, arg and timeout")
ERR_CASE(grant_cannot_appear_inside_an_ipc,
	 "ipc \"x\" {\n  exec \"/y\"\n  grant \"/z\" r\n}", 3, 3,
	  "`grant` cannot appear inside an `ipc` block",
	  "an `ipc` block holds exec, positional, arg and timeout; is a `}` missing above?")
ERR_CASE(venv_cannot_appear_inside_an_ipc,
	 "ipc \"x\" { venv \"/v\" }", 1, 11, "`venv` cannot appear inside an `ipc` block",
	  "an `ipc` block holds exec, positional, arg and timeout")
ERR_CASE(expected_exec_positional_or_timeout_found,
	 "ipc \"x\" { \"/y\" }", 1, 11, "expected exec, positional, arg or timeout, found a string",
	  "*")
ERR_CASE(expected_a_quoted_argument_name_after_arg,
	 "ipc \"x\" { arg limit int }", 1, 15,
	  "expected a quoted argument name after `arg`, found `limit`", "quote it: \"limit\"")
ERR_CASE(expected_a_type_after_the_argument_name,
	 "ipc \"x\" { arg \"limit\" }", 1, 23,
	  "expected a type (string, int, bool or path) after the argument name, found `}`", "*")
ERR_CASE(arg_belongs_inside_an_ipc_block,
	 "arg \"limit\" int", 1, 1, "`arg` belongs inside an `ipc` block", "*")
ERR_CASE(expected_a_quoted_path_after_exec,
	 "ipc \"x\" { exec }", 1, 16, "expected a quoted path after `exec`, found `}`", "*")
ERR_CASE(expected_a_duration_after_timeout_e,
	 "ipc \"x\" { timeout }", 1, 19, "expected a duration after `timeout`, e.g. 30s, found `}`",
	  "*")
ERR_CASE(expected_a_quoted_argument_after_positional,
	 "ipc \"x\" { positional }", 1, 22,
	  "expected a quoted argument after `positional`, found `}`", "*")
ERR_CASE(expected_after_python,
	 "python", 1, 7, "expected `{` after `python`", "*")
ERR_CASE(expected_a_quoted_path_after_venv,
	 "python { venv }", 1, 15, "expected a quoted path after `venv`, found `}`", "*")
ERR_CASE(unknown_statement_pakages_in_a_python,
	 "python { pakages \"a\" }", 1, 10, "unknown statement `pakages` in a `python` block",
	  "did you mean `packages`?")
ERR_CASE(expected_yes_or_no_after_allow,
	 "python { allow-pip-install }", 1, 28,
	  "expected yes or no after `allow-pip-install`, found `}`", "*")
ERR_CASE(expected_a_quoted_package_name_after,
	 "python { packages }", 1, 19,
	  "expected a quoted package name after `packages`, found `}`", "*")
ERR_CASE(expected_a_platform_linux_macos_or,
	 "on", 1, 3, "expected a platform (linux, macos or windows) after `on`", "*")
ERR_CASE(expected_after_the_platform_name,
	 "on linux", 1, 9, "expected `{` after the platform name", "*")
ERR_CASE(unknown_statement_gramt_2,
	 "on linux { gramt \"x\" }", 1, 12, "unknown statement `gramt`", "did you mean `grant`?")
ERR_CASE(expected_the_end_of_the_line,
	 "on linux { } junk", 1, 14, "expected the end of the line after `}`, found `junk`",
	  "statements end at a newline or `;`")
ERR_CASE(expected_deny_or_allow_after_seccomp,
	 "seccomp", 1, 8, "expected deny or allow after `seccomp`", "*")
ERR_CASE(expected_deny_or_allow_after_seccomp_2,
	 "seccomp block \"x\"", 1, 9, "expected deny or allow after `seccomp`, found `block`",
	  "*")
ERR_CASE(expected_a_quoted_system_call_name,
	 "seccomp deny", 1, 13, "expected a quoted system call name after `seccomp deny`", "*")
ERR_CASE(expected_a_quoted_system_call_name_2,
	 "seccomp allow", 1, 14, "expected a quoted system call name after `seccomp allow`",
	  "*")
ERR_CASE(expected_a_quoted_system_call_name_3,
	 "seccomp deny ptrace", 1, 14,
	  "expected a quoted system call name after `seccomp deny`, found `ptrace`",
	  "quote it: \"ptrace\"")
ERR_CASE(expected_errno_or_the_end_of,
	 "seccomp deny \"x\" erno EPERM", 1, 18,
	  "expected `errno` or the end of the statement after the system call, found `erno`",
	  "did you mean `errno`?")
ERR_CASE(expected_an_errno_name_such_as,
	 "seccomp deny \"x\" errno", 1, 23, "expected an errno name such as EPERM after `errno`",
	  "*")
ERR_CASE(expected_an_errno_name_such_as_2,
	 "seccomp deny \"x\" errno eperm", 1, 24,
	  "expected an errno name such as EPERM after `errno`, found `eperm`",
	  "errno names are upper-case: `EPERM`")
ERR_CASE(unexpected_errno_after_a_complete_seccomp,
	 "seccomp allow \"x\" errno EPERM", 1, 19,
	  "unexpected `errno` after a complete `seccomp allow` statement",
	  "`errno` goes with `seccomp deny` only")
ERR_CASE(expected_a_quoted_sbpl_rule_after,
	 "sbpl", 1, 5, "expected a quoted SBPL rule after `sbpl`", "*")
ERR_CASE(expected_a_quoted_capability_name_after,
	 "capability", 1, 11, "expected a quoted capability name after `capability`", "*")
ERR_CASE(exec_belongs_inside_an_ipc_block,
	 "exec \"/x\"", 1, 1, "`exec` belongs inside an `ipc` block", "*")
ERR_CASE(timeout_belongs_inside_an_ipc_block,
	 "timeout 3s", 1, 1, "`timeout` belongs inside an `ipc` block", "*")
ERR_CASE(venv_belongs_inside_a_python_block,
	 "venv \"/x\"", 1, 1, "`venv` belongs inside a `python` block", "*")
ERR_CASE(optional_cannot_start_a_statement,
	 "optional", 1, 1, "`optional` cannot start a statement",
	  "`optional` goes after the mode of a `grant`")
ERR_CASE(gpu_cannot_start_a_statement,
	 "gpu", 1, 1, "`gpu` cannot start a statement", "write `allow gpu` or `deny gpu`")
ERR_CASE(allow_all_cannot_start_a_statement,
	 "allow-all", 1, 1, "`allow-all` cannot start a statement",
	  "write `network allow-all ...`")
ERR_CASE(pass_cannot_start_a_statement,
	 "pass \"X\"", 1, 1, "`pass` cannot start a statement", "write `env pass ...`")
ERR_CASE(errno_cannot_start_a_statement,
	 "errno EPERM", 1, 1, "`errno` cannot start a statement", "*")
ERR_CASE(daily_cannot_start_a_statement,
	 "daily", 1, 1, "`daily` cannot start a statement", "*")
ERR_CASE(unix_sockets_cannot_start_a_statement,
	 "unix-sockets", 1, 1, "`unix-sockets` cannot start a statement", "*")
ERR_CASE(mach_lookup_cannot_start_a_statement,
	 "mach-lookup \"x\"", 1, 1, "`mach-lookup` cannot start a statement", "*")
ERR_CASE(unmatched,
	 "}", 1, 1, "unmatched `}`", "no block is open here")
ERR_CASE(unexpected,
	 "heel 1\n{\n}\n", 2, 1, "unexpected `{`", "*")
ERR_CASE(unexpected_string_after_the_pattern,
	 "network allow { \"a.com\" \"b.com\" }", 1, 25, "unexpected string after the pattern",
	  "write one quoted pattern per line, or separate them with `;`")
ERR_CASE(expected_a_quoted_host_pattern_found,
	 "network allow { example }", 1, 17, "expected a quoted host pattern, found `example`",
	  "quote it: \"example\"")
ERR_CASE(expected_a_quoted_host_pattern_found_2,
	 "network allow {\n  \"a.com\"\n\ngrant \"/x\" r\n}", 4, 1,
	  "expected a quoted host pattern, found `grant`", "is a `}` missing above?")
ERR_CASE(unterminated_block_has_no_matching,
	 "network allow {\n  \"a.com\"\n", 1, 15, "unterminated block: `{` has no matching `}`",
	  NULL)
ERR_CASE(unterminated_block_has_no_matching_2,
	 "on linux {\n  ipc \"a\" {\n    exec \"/b\"\n  }\n", 1, 10,
	  "unterminated block: `{` has no matching `}`", NULL)
ERR_CASE(unterminated_block_has_no_matching_3,
	 "ipc \"a\" {\n  exec \"/b\"", 1, 9, "unterminated block: `{` has no matching `}`",
	  NULL)
ERR_CASE(unexpected_characters,
	 "grant \"/x\" r @@", 1, 14, "unexpected characters `@@`", NULL)
ERR_CASE(unquoted_path_usr,
	 "grant /usr r", 1, 7, "unquoted path `/usr`", "write it as a string: \"/usr\"")
ERR_CASE(unterminated_string,
	 "grant \"/x r", 1, 7, "unterminated string", "*")
ERR_CASE(keywords_are_lower_case_grant,
	 "Grant \"/x\"", 1, 1, "keywords are lower-case: `Grant`", "did you mean `grant`?")
ERR_CASE(invalid_number_2_5gib,
	 "limit memory 2.5GiB", 1, 14, "invalid number `2.5GiB`", "*")
ERR_CASE(unexpected_character,
	 "nice -5", 1, 6, "unexpected character `-`", NULL)
ERR_CASE(expected_a_quoted_host_pattern_found_3,
	 "network allow { example.com }", 1, 17, "expected a quoted host pattern, found `example`",
	  "quote it: \"example\"")
ERR_CASE(invalid_escape_q,
	 "grant \"/a\\q\"", 1, 10, "invalid escape `\\q`", "*")

Test(parser, every_error_in_a_file_is_reported)
{
	struct parsed p = parse("heel 1\n"
				"gramt \"/a\" r\n"
				"grant \"/b\"\n"
				"grant \"/c\" r\n"
				"network alow\n"
				"ipc \"x\" { exek \"/y\"; exec \"/z\" }\n"
				"limit memory\n"
				"nice 3\n");
	static const uint32_t lines[] = { 2, 3, 5, 6, 7 };
	const struct ast_stmt *s;

	cr_expect_eq(p.rc, -EINVAL);
	cr_assert_eq(diag_count(p.ctx), 5);
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(diag_get(p.ctx, i)->loc.line, lines[i], "diag %zu", i);
	/* What parsed is kept. */
	s = p.file->stmts;
	cr_assert_eq(count(s), 4);
	cr_expect_eq(s->kind, AST_HEEL);
	cr_expect_eq(s->next->kind, AST_GRANT);
	cr_expect_eq(s->next->loc.line, 4);
	cr_expect_eq(s->next->next->kind, AST_IPC);
	cr_assert_eq(count(s->next->next->children), 1);
	cr_expect_str_eq(s->next->next->children->args[0].text, "/z");
	cr_expect_eq(s->next->next->next->kind, AST_NICE);
	done(&p);
}

Test(parser, errors_on_consecutive_lines_are_all_reported)
{
	struct parsed p = parse("frob\nfrob\nfrob\nfrob\n");

	cr_expect_eq(diag_count(p.ctx), 4);
	done(&p);
}

Test(parser, errors_separated_by_semicolons_are_all_reported)
{
	struct parsed p = parse("frob; grant; nice; heel 1");

	cr_expect_eq(diag_count(p.ctx), 3);
	cr_assert_eq(count(p.file->stmts), 1);
	done(&p);
}

Test(parser, errors_inside_blocks_recover_inside_the_block)
{
	struct parsed p = parse("on linux {\n"
				"  gramt \"/a\" r\n"
				"  grant \"/b\" r\n"
				"  seccomp deny\n"
				"  grant \"/c\" rw\n"
				"}\n"
				"nice 1\n");
	const struct ast_stmt *s;

	cr_expect_eq(diag_count(p.ctx), 2);
	s = p.file->stmts;
	cr_assert_eq(count(s), 2);
	cr_assert_eq(count(s->children), 2);
	cr_expect_str_eq(s->children->args[0].text, "/b");
	cr_expect_str_eq(s->children->next->args[0].text, "/c");
	cr_expect_eq(s->last_line, 6);
	done(&p);
}

Test(parser, error_in_the_last_statement_of_a_one_line_block)
{
	struct parsed p = parse("network allow { \"a\"; b }\nnice 1");

	cr_expect_eq(diag_count(p.ctx), 1);
	cr_assert_eq(count(p.file->stmts), 2);
	cr_expect_eq(count(p.file->stmts->children), 1);
	done(&p);
}

Test(parser, a_bad_block_header_skips_the_whole_block)
{
	/* The block's contents must not be read as top-level statements. */
	struct parsed p = parse("ipc foo {\n  exec \"/x\"\n  positional \"y\"\n}\nnice 1\n");

	cr_expect_eq(diag_count(p.ctx), 1);
	cr_assert_eq(count(p.file->stmts), 1);
	cr_expect_eq(p.file->stmts->kind, AST_NICE);
	done(&p);
}

Test(parser, a_lexical_error_is_not_reported_twice)
{
	struct parsed p = parse("grant \"/x r\n"      /* unterminated: then no mode */
				"Gramt \"/x\" r\n"    /* mixed case: then unknown */
				"nice @ 3\n");        /* junk: then the rest skipped */

	cr_expect_eq(diag_count(p.ctx), 3);
	done(&p);
}

Test(parser, a_string_error_keeps_the_statement)
{
	struct parsed p = parse("grant \"/a\\qb\" r\n");

	cr_expect_eq(p.rc, -EINVAL);
	cr_expect_eq(diag_count(p.ctx), 1);
	cr_assert_eq(count(p.file->stmts), 1);
	cr_expect_eq(p.file->stmts->kind, AST_GRANT);
	done(&p);
}

Test(parser, unterminated_block_keeps_earlier_statements)
{
	struct parsed p = parse("heel 1\nnice 2\non linux {\n  grant \"/x\" r\n");

	cr_expect_eq(p.rc, -EINVAL);
	cr_expect_eq(diag_count(p.ctx), 1);
	cr_assert_eq(count(p.file->stmts), 2);
	done(&p);
}

Test(parser, deep_nesting_is_an_error_not_a_crash)
{
	size_t n = 5000, len = 7 + n * 11;
	char *text = malloc(len + 1);
	struct parsed p;

	cr_assert_not_null(text);
	memcpy(text, "heel 1\n", 7);
	for (size_t i = 0; i < n; i++)
		memcpy(text + 7 + i * 11, "on linux {\n", 11);
	text[len] = '\0';
	p = parse(text);
	cr_expect_eq(p.rc, -EINVAL);
	cr_expect_geq(diag_count(p.ctx), 1);
	cr_expect_str_eq(diag_get(p.ctx, 0)->message, "blocks are nested too deeply");
	done(&p);
	free(text);
}

Test(parser, many_open_braces)
{
	char text[4096];
	struct parsed p;

	memset(text, '{', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	p = parse(text);
	cr_expect_eq(p.rc, -EINVAL);
	cr_expect_geq(diag_count(p.ctx), 1);
	cr_expect_leq(diag_count(p.ctx), 2);
	done(&p);
}

Test(parser, diagnostics_point_into_the_source)
{
	struct parsed p = parse("heel 1\n\tgrant \"\xc3\xa9\" \n");
	const struct diag *d;

	cr_assert_eq(diag_count(p.ctx), 1);
	d = diag_get(p.ctx, 0);
	/* tab(1) grant(2-6) space "é"(8-10): the mode is missing at 11 */
	cr_expect_eq(d->loc.line, 2);
	cr_expect_eq(d->loc.col, 11);
	done(&p);
}

/* ------------------------------------------------------------ ast.c API */

Test(ast, kind_names)
{
	for (int k = 0; k < AST_KIND_COUNT; k++)
		cr_expect_str_neq(ast_kind_name((enum ast_kind)k), "?", "kind %d", k);
	cr_expect_str_eq(ast_kind_name(AST_NETWORK_ALLOW_ALL), "network allow-all");
	cr_expect_str_eq(ast_kind_name(AST_GRANT), "grant");
	cr_expect_str_eq(ast_kind_name(AST_KIND_COUNT), "?");
}

Test(ast, construct_append_free)
{
	struct diag_loc loc = { NULL, 3, 4 };
	struct ast_stmt *a = ast_stmt_new(AST_NICE, loc);
	struct ast_stmt *b = ast_stmt_new(AST_GRANT, loc);
	struct ast_stmt *c = ast_stmt_new(AST_DENY, loc);
	struct ast_stmt *list = NULL;

	cr_assert(a && b && c);
	cr_expect_eq(a->last_line, 3);
	for (int i = 0; i < 100; i++) {
		struct ast_arg arg = { .kind = AST_ARG_WORD };

		arg.text = strdup("w");
		arg.len = 1;
		cr_assert_eq(ast_stmt_add_arg(a, &arg), 0);
		cr_expect_null(arg.text, "ownership moved");
	}
	cr_expect_eq(a->nargs, 100);
	cr_expect_str_eq(a->args[99].text, "w");
	list = ast_stmt_append(list, a);
	cr_expect_eq(list, a);
	list = ast_stmt_append(list, b);
	list = ast_stmt_append(list, c);
	cr_expect_eq(list, a);
	cr_expect_eq(a->next, b);
	cr_expect_eq(b->next, c);
	ast_stmt_free(list);
	ast_stmt_free(NULL);
	ast_file_free(NULL);
	ast_arg_clear(NULL);
}

/* SPDX-License-Identifier: MIT
 * The scanner on its own (token kinds, spellings, character columns) and
 * through parse_source (string decoding and its errors, comments, blank
 * lines, ast_string_loc). */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "parse.h"
#include "parse_actions.h"
#include "parser.h"
#include "lexer.h"

#define MAXTOK 64

struct tok {
	int kind;
	int line, col, end_col;
	struct ast_arg arg; /* for valued tokens */
};

struct scan {
	struct diag_ctx *diag;
	struct parse_ctx *ctx;
	struct tok toks[MAXTOK];
	size_t n;
};

static bool
valued(int k)
{
	return k == T_WORD || k == T_UPPER || k == T_NUMBER || k == T_STRING ||
	       k == T_ANGLE;
}

/* Runs the scanner alone over `text` until the end. */
static void
scan(struct scan *s, const char *text)
{
	const struct diag_source *src;
	yyscan_t scanner;

	memset(s, 0, sizeof(*s));
	s->diag = diag_new();
	cr_assert_not_null(s->diag);
	src = diag_add_source(s->diag, "t.heel", NULL, text, strlen(text));
	cr_assert_not_null(src);
	s->ctx = calloc(1, sizeof(*s->ctx));
	cr_assert_not_null(s->ctx);
	s->ctx->diag = s->diag;
	s->ctx->src = src;
	s->ctx->file = calloc(1, sizeof(struct ast_file));
	s->ctx->line = 1;
	s->ctx->col = 1;
	cr_assert_eq(heel_yylex_init_extra(s->ctx, &scanner), 0);
	heel_yy_scan_bytes(src->text, (int)src->len, scanner);
	for (;;) {
		HEEL_YYSTYPE v;
		HEEL_YYLTYPE l;
		int k;

		memset(&v, 0, sizeof(v));
		k = heel_yylex(&v, &l, scanner);
		if (k == HEEL_YYEOF)
			break;
		cr_assert_lt(s->n, MAXTOK);
		s->toks[s->n].kind = k;
		s->toks[s->n].line = l.first_line;
		s->toks[s->n].col = l.first_column;
		s->toks[s->n].end_col = l.last_column;
		if (valued(k))
			s->toks[s->n].arg = v.arg;
		s->n++;
	}
	heel_yylex_destroy(scanner);
}

static void
scan_free(struct scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		ast_arg_clear(&s->toks[i].arg);
	ast_file_free(s->ctx->file);
	free(s->ctx);
	diag_free(s->diag);
}

static void
expect_kinds(const struct scan *s, const int *kinds, size_t n)
{
	cr_assert_eq(s->n, n, "got %zu tokens, want %zu", s->n, n);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(s->toks[i].kind, kinds[i], "token %zu: %d, want %d", i,
			     s->toks[i].kind, kinds[i]);
}

#define KINDS(...) ((const int[]){ __VA_ARGS__ }), sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int)

static const struct diag *
only_error(const struct scan *s)
{
	cr_assert_eq(diag_count(s->diag), 1, "want exactly one diagnostic, got %zu",
		     diag_count(s->diag));
	return diag_get(s->diag, 0);
}

Test(lexer, every_keyword_is_a_token)
{
	static const char *const words[] = {
		"heel", "isolation", "include", "grant", "deny", "protect",
		"unprotect", "allow", "gpu", "network", "allow-all",
		"allow-private", "audit", "daily", "decide", "limit", "nice",
		"io-priority", "env", "pass", "set", "workdir", "ipc", "exec",
		"positional", "timeout", "python", "venv", "packages",
		"allow-pip-install", "on", "seccomp", "errno", "unix-sockets",
		"mach-lookup", "sbpl", "capability", "readonly", "each-writable",
		"because", "optional", NULL
	};

	for (size_t i = 0; words[i]; i++) {
		int k = parse_keyword(words[i], strlen(words[i]));

		cr_expect_neq(k, 0, "%s is not a keyword", words[i]);
		cr_expect_str_eq(parse_token_spelling(k), words[i]);
	}
}

Test(lexer, non_keywords_are_words)
{
	static const char *const words[] = { "r", "rwx", "strict", "linux", "yes",
					     "memory", "allo", "allowx", "grants",
					     "a", "zzz", NULL };

	for (size_t i = 0; words[i]; i++)
		cr_expect_eq(parse_keyword(words[i], strlen(words[i])), 0, "%s",
			     words[i]);
}

Test(lexer, statement_tokens)
{
	struct scan s;

	scan(&s, "grant \"/usr\" rwx optional\n");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, K_OPTIONAL, T_EOS, T_EOS));
	cr_expect_str_eq(s.toks[1].arg.text, "/usr");
	cr_expect_str_eq(s.toks[2].arg.text, "rwx");
	cr_expect_eq(s.toks[2].arg.kind, AST_ARG_WORD);
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, semicolon_and_newline_end_statements)
{
	struct scan s;

	scan(&s, "nice 1;nice 2\n\n;;");
	expect_kinds(&s, KINDS(K_NICE, T_NUMBER, T_EOS, K_NICE, T_NUMBER, T_EOS, T_EOS,
			       T_EOS, T_EOS, T_EOS));
	scan_free(&s);
}

Test(lexer, end_of_file_ends_the_last_statement)
{
	struct scan s;

	scan(&s, "heel 1");
	expect_kinds(&s, KINDS(K_HEEL, T_NUMBER, T_EOS));
	scan_free(&s);
}

Test(lexer, empty_input)
{
	struct scan s;

	scan(&s, "");
	expect_kinds(&s, KINDS(T_EOS));
	scan_free(&s);
}

Test(lexer, crlf_is_one_newline)
{
	struct scan s;

	scan(&s, "heel 1\r\nnice 2\r\n");
	expect_kinds(&s, KINDS(K_HEEL, T_NUMBER, T_EOS, K_NICE, T_NUMBER, T_EOS, T_EOS));
	cr_expect_eq(s.toks[3].line, 2);
	cr_expect_eq(s.toks[3].col, 1);
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, braces)
{
	struct scan s;

	scan(&s, "network allow { \"a\"; \"b\" }");
	expect_kinds(&s, KINDS(K_NETWORK, K_ALLOW, T_LBRACE, T_STRING, T_EOS, T_STRING,
			       T_RBRACE, T_EOS));
	scan_free(&s);
}

Test(lexer, upper_words)
{
	struct scan s;

	scan(&s, "errno EPERM E2BIG E_X");
	expect_kinds(&s, KINDS(K_ERRNO, T_UPPER, T_UPPER, T_UPPER, T_EOS));
	cr_expect_str_eq(s.toks[1].arg.text, "EPERM");
	cr_expect_eq(s.toks[1].arg.kind, AST_ARG_UPPER);
	cr_expect_str_eq(s.toks[3].arg.text, "E_X");
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, numbers_keep_their_unit)
{
	struct scan s;

	scan(&s, "2GiB 60s 10 0 1KB");
	expect_kinds(&s, KINDS(T_NUMBER, T_NUMBER, T_NUMBER, T_NUMBER, T_NUMBER, T_EOS));
	cr_expect_str_eq(s.toks[0].arg.text, "2GiB");
	cr_expect_eq(s.toks[0].arg.len, 4);
	cr_expect_str_eq(s.toks[1].arg.text, "60s");
	cr_expect_str_eq(s.toks[4].arg.text, "1KB");
	cr_expect_eq(s.toks[0].arg.kind, AST_ARG_NUMBER);
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, invalid_number)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "limit memory 1.5GiB");
	expect_kinds(&s, KINDS(K_LIMIT, T_WORD, T_NUMBER, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid number `1.5GiB`");
	cr_expect_eq(d->loc.col, 14);
	scan_free(&s);
}

Test(lexer, angle_names)
{
	struct scan s;

	scan(&s, "include <python> <protect/user-home>");
	expect_kinds(&s, KINDS(K_INCLUDE, T_ANGLE, T_ANGLE, T_EOS));
	cr_expect_str_eq(s.toks[1].arg.text, "python");
	cr_expect_eq(s.toks[1].arg.kind, AST_ARG_ANGLE);
	cr_expect_eq(s.toks[1].col, 9);
	cr_expect_str_eq(s.toks[2].arg.text, "protect/user-home");
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, invalid_angle_name)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "include <Py.thon>");
	expect_kinds(&s, KINDS(K_INCLUDE, T_ANGLE, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid preset name in `<...>`");
	cr_expect_eq(d->loc.col, 9);
	scan_free(&s);
}

Test(lexer, columns_count_characters_and_tabs_as_one)
{
	struct scan s;

	scan(&s, "\tgrant \"\xc3\xa9t\xc3\xa9\" r");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, T_EOS));
	cr_expect_eq(s.toks[0].col, 2);
	cr_expect_eq(s.toks[1].col, 8);
	cr_expect_eq(s.toks[1].end_col, 13);
	cr_expect_eq(s.toks[2].col, 14);
	cr_expect_eq(s.toks[1].arg.loc.col, 8);
	cr_expect_eq(s.toks[1].arg.loc.line, 1);
	scan_free(&s);
}

Test(lexer, lines_advance)
{
	struct scan s;

	scan(&s, "heel 1\n\n  nice 3");
	cr_expect_eq(s.toks[3].kind, T_EOS);
	cr_expect_eq(s.toks[4].kind, K_NICE);
	cr_expect_eq(s.toks[4].line, 3);
	cr_expect_eq(s.toks[4].col, 3);
	scan_free(&s);
}

Test(lexer, string_escapes_are_decoded)
{
	struct scan s;
	const struct ast_arg *a;

	scan(&s, "\"a\\\"b\\\\c\\nd\\te\\x41\\x00z\"");
	expect_kinds(&s, KINDS(T_STRING, T_EOS));
	a = &s.toks[0].arg;
	cr_expect_eq(a->len, 12);
	cr_expect(memcmp(a->text, "a\"b\\c\nd\teA\0z", 12) == 0);
	cr_expect_eq(a->text[12], '\0');
	cr_expect_str_eq(a->raw, "a\\\"b\\\\c\\nd\\te\\x41\\x00z");
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, hash_and_dollar_inside_a_string_are_literal)
{
	struct scan s;

	scan(&s, "\"${HOME}/#x\" # real");
	expect_kinds(&s, KINDS(T_STRING, T_EOS));
	cr_expect_str_eq(s.toks[0].arg.text, "${HOME}/#x");
	cr_expect_eq(s.ctx->file->ncomments, 1);
	cr_expect_str_eq(s.ctx->file->comments[0].text, "# real");
	scan_free(&s);
}

Test(lexer, empty_string)
{
	struct scan s;

	scan(&s, "\"\"");
	expect_kinds(&s, KINDS(T_STRING, T_EOS));
	cr_expect_eq(s.toks[0].arg.len, 0);
	cr_expect_str_eq(s.toks[0].arg.text, "");
	cr_expect_str_eq(s.toks[0].arg.raw, "");
	scan_free(&s);
}

Test(lexer, invalid_escape_points_at_the_backslash)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "grant \"/a\\qb\" r");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid escape `\\q`");
	cr_expect_eq(d->loc.line, 1);
	cr_expect_eq(d->loc.col, 10);
	cr_expect_not_null(d->hint);
	/* kept as written */
	cr_expect_str_eq(s.toks[1].arg.text, "/a\\qb");
	scan_free(&s);
}

Test(lexer, short_hex_escape)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "\"\\x4\"");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid escape `\\x`: two hex digits must follow");
	cr_expect_eq(d->loc.col, 2);
	scan_free(&s);
}

Test(lexer, unterminated_string)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "grant \"/a r\nnice 1");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_EOS, K_NICE, T_NUMBER, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "unterminated string");
	cr_expect_eq(d->loc.col, 7);
	cr_expect_str_eq(s.toks[1].arg.text, "/a r");
	scan_free(&s);
}

Test(lexer, unterminated_string_ending_in_backslash)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "\"abc\\\nnice 1");
	expect_kinds(&s, KINDS(T_STRING, T_EOS, K_NICE, T_NUMBER, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "unterminated string");
	scan_free(&s);
}

Test(lexer, escaped_quote_does_not_close)
{
	struct scan s;

	scan(&s, "\"a\\\"");
	cr_expect_eq(s.toks[0].kind, T_STRING);
	cr_expect_str_eq(only_error(&s)->message, "unterminated string");
	scan_free(&s);
}

Test(lexer, control_character_in_string)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "\"ab\tc\"");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "control character U+0009 in a string");
	cr_expect_str_eq(d->hint, "write a tab as \\t");
	cr_expect_eq(d->loc.col, 4);
	scan_free(&s);
}

Test(lexer, nul_in_string)
{
	const char text[] = "\"a\0b\"";
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *src;
	struct ast_file *f;
	const struct diag *d;

	src = diag_add_source(ctx, "t", NULL, text, sizeof(text) - 1);
	cr_expect_eq(parse_source(ctx, src, &f), -EINVAL);
	cr_assert_geq(diag_count(ctx), 1);
	d = diag_get(ctx, 0);
	cr_expect_str_eq(d->message, "control character U+0000 in a string");
	cr_expect_eq(d->loc.col, 3);
	ast_file_free(f);
	diag_free(ctx);
}

Test(lexer, invalid_utf8_in_string)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "\"\xc3\xa9\xff\"");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid UTF-8 byte 0xFF in a string");
	cr_expect_eq(d->loc.col, 3);
	scan_free(&s);
}

Test(lexer, overlong_and_surrogate_utf8_are_invalid)
{
	struct scan s;

	scan(&s, "\"\xc0\xaf\" \"\xed\xa0\x80\"");
	cr_expect_geq(diag_count(s.diag), 2);
	cr_expect_str_eq(diag_get(s.diag, 0)->message, "invalid UTF-8 byte 0xC0 in a string");
	scan_free(&s);
}

Test(lexer, c1_control_in_string)
{
	struct scan s;

	scan(&s, "\"\xc2\x85\"");
	cr_expect_str_eq(only_error(&s)->message, "control character U+0085 in a string");
	scan_free(&s);
}

Test(lexer, bidi_override_in_string)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "\"a\xe2\x80\xae" "b\"");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "bidirectional control character U+202E in a string");
	cr_expect_eq(d->loc.col, 3);
	scan_free(&s);
}

Test(lexer, utf8_letters_in_strings_are_fine)
{
	struct scan s;

	scan(&s, "\"/home/j\xc3\xb6rg/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80\"");
	cr_expect_eq(diag_count(s.diag), 0);
	cr_expect_str_eq(s.toks[0].arg.text, "/home/j\xc3\xb6rg/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80");
	scan_free(&s);
}

Test(lexer, mixed_case_keyword)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "Grant \"/x\" r");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "keywords are lower-case: `Grant`");
	cr_expect_str_eq(d->hint, "did you mean `grant`?");
	cr_expect_eq(d->loc.col, 1);
	scan_free(&s);
}

Test(lexer, mixed_case_word)
{
	struct scan s;

	scan(&s, "on Linux");
	expect_kinds(&s, KINDS(K_ON, T_WORD, T_EOS));
	cr_expect_str_eq(s.toks[1].arg.text, "linux");
	cr_expect_str_eq(only_error(&s)->hint, "did you mean `linux`?");
	scan_free(&s);
}

Test(lexer, underscore_word)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "unprotect user_home");
	expect_kinds(&s, KINDS(K_UNPROTECT, T_WORD, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message,
			 "invalid word `user_home`: words are lower-case letters, digits and `-`");
	cr_expect_str_eq(d->hint, "did you mean `user-home`?");
	cr_expect_eq(d->loc.col, 11);
	scan_free(&s);
}

Test(lexer, unquoted_path)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "grant ${HOME}/.cache r");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, T_EOS));
	d = only_error(&s);
	cr_expect_str_eq(d->message, "unquoted path `${HOME}/.cache`");
	cr_expect_str_eq(d->hint, "write it as a string: \"${HOME}/.cache\"");
	cr_expect_str_eq(s.toks[1].arg.text, "${HOME}/.cache");
	scan_free(&s);
}

Test(lexer, unquoted_windows_path)
{
	struct scan s;

	scan(&s, "grant C:\\Users r");
	expect_kinds(&s, KINDS(K_GRANT, T_STRING, T_WORD, T_EOS));
	cr_expect_str_eq(only_error(&s)->message, "unquoted path `C:\\Users`");
	scan_free(&s);
}

Test(lexer, junk_characters_are_one_error)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "nice @@@ = 3\nnice 4");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "unexpected characters `@@@`");
	cr_expect_eq(d->loc.col, 6);
	cr_expect_eq(s.toks[1].kind, HEEL_YYerror);
	scan_free(&s);
}

Test(lexer, junk_on_the_next_statement_is_reported_again)
{
	struct scan s;

	scan(&s, "nice @; nice %");
	cr_expect_eq(diag_count(s.diag), 2);
	cr_expect_str_eq(diag_get(s.diag, 1)->message, "unexpected character `%`");
	scan_free(&s);
}

Test(lexer, curly_quotes)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "grant \xe2\x80\x9c/x\xe2\x80\x9d r");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "unexpected character `\xe2\x80\x9c`");
	cr_expect_str_eq(d->hint, "strings use straight double quotes: \"...\"");
	scan_free(&s);
}

Test(lexer, invalid_utf8_outside_strings)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "nice \xff\xfe");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid UTF-8 byte 0xFF");
	cr_expect_eq(d->loc.col, 6);
	scan_free(&s);
}

Test(lexer, control_character_outside_strings)
{
	struct scan s;

	scan(&s, "nice\x0b 1");
	cr_expect_str_eq(only_error(&s)->message, "unexpected control character U+000B");
	scan_free(&s);
}

Test(lexer, lone_carriage_return_is_a_control_character)
{
	struct scan s;

	scan(&s, "nice 1\rgrant");
	cr_expect_str_eq(only_error(&s)->message, "unexpected control character U+000D");
	scan_free(&s);
}

Test(lexer, comments_are_recorded)
{
	struct scan s;
	const struct ast_file *f;

	scan(&s, "# head\nheel 1 # tail\r\n  # indented\n");
	f = s.ctx->file;
	cr_assert_eq(f->ncomments, 3);
	cr_expect_str_eq(f->comments[0].text, "# head");
	cr_expect_eq(f->comments[0].trailing, false);
	cr_expect_eq(f->comments[0].loc.line, 1);
	cr_expect_eq(f->comments[0].loc.col, 1);
	cr_expect_str_eq(f->comments[1].text, "# tail");
	cr_expect_eq(f->comments[1].trailing, true);
	cr_expect_eq(f->comments[1].loc.col, 8);
	cr_expect_str_eq(f->comments[2].text, "# indented");
	cr_expect_eq(f->comments[2].trailing, false);
	cr_expect_eq(f->comments[2].loc.line, 3);
	cr_expect_eq(f->comments[2].loc.col, 3);
	cr_expect_eq(diag_count(s.diag), 0);
	scan_free(&s);
}

Test(lexer, comment_after_semicolon_is_trailing)
{
	struct scan s;

	scan(&s, ";# x");
	cr_assert_eq(s.ctx->file->ncomments, 1);
	cr_expect(s.ctx->file->comments[0].trailing);
	scan_free(&s);
}

Test(lexer, comment_may_hold_utf8_and_tabs)
{
	struct scan s;

	scan(&s, "#\tcaf\xc3\xa9 \xe2\x9c\x93");
	cr_expect_eq(diag_count(s.diag), 0);
	cr_expect_str_eq(s.ctx->file->comments[0].text, "#\tcaf\xc3\xa9 \xe2\x9c\x93");
	scan_free(&s);
}

Test(lexer, comment_with_escape_character)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "# a\x1b[2Jb");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "control character U+001B in a comment");
	cr_expect_eq(d->loc.col, 4);
	scan_free(&s);
}

Test(lexer, comment_with_bidi_override)
{
	struct scan s;

	scan(&s, "# \xe2\x81\xa6x");
	cr_expect_str_eq(only_error(&s)->message,
			 "bidirectional control character U+2066 in a comment");
	scan_free(&s);
}

Test(lexer, comment_with_invalid_utf8)
{
	struct scan s;

	scan(&s, "# \xe2\x28\xa1");
	cr_expect_geq(diag_count(s.diag), 1);
	cr_expect_str_eq(diag_get(s.diag, 0)->message, "invalid UTF-8 byte 0xE2 in a comment");
	scan_free(&s);
}

/* ------------------------------------------------------------ via parse */

static struct ast_file *
parse(struct diag_ctx **ctx, const char *text, int *rc)
{
	const struct diag_source *src;
	struct ast_file *f = NULL;

	*ctx = diag_new();
	cr_assert_not_null(*ctx);
	src = diag_add_source(*ctx, "t.heel", NULL, text, strlen(text));
	cr_assert_not_null(src);
	*rc = parse_source(*ctx, src, &f);
	return f;
}

Test(lexer, blank_lines)
{
	struct diag_ctx *ctx;
	int rc;
	struct ast_file *f = parse(&ctx, "heel 1\n\n  \t\n# c\nnice 1\n\n", &rc);

	cr_assert_eq(rc, 0);
	cr_assert_eq(f->nlines, 6);
	cr_expect(!f->blank[0]);
	cr_expect(f->blank[1]);
	cr_expect(f->blank[2]);
	cr_expect(!f->blank[3]);
	cr_expect(!f->blank[4]);
	cr_expect(f->blank[5]);
	ast_file_free(f);
	diag_free(ctx);
}

Test(lexer, blank_lines_without_final_newline)
{
	struct diag_ctx *ctx;
	int rc;
	struct ast_file *f = parse(&ctx, "heel 1\n\nnice 1", &rc);

	cr_assert_eq(f->nlines, 3);
	cr_expect(f->blank[1]);
	cr_expect(!f->blank[2]);
	ast_file_free(f);
	diag_free(ctx);
}

Test(lexer, blank_lines_of_empty_file)
{
	struct diag_ctx *ctx;
	int rc;
	struct ast_file *f = parse(&ctx, "", &rc);

	cr_assert_eq(rc, 0);
	cr_expect_eq(f->nlines, 0);
	cr_expect_null(f->stmts);
	ast_file_free(f);
	diag_free(ctx);
}

static struct ast_arg
string_arg(const char *raw, uint32_t col)
{
	struct ast_arg a = { .kind = AST_ARG_STRING, .raw = (char *)raw };

	a.loc.line = 7;
	a.loc.col = col;
	return a;
}

Test(lexer, string_loc_plain)
{
	struct ast_arg a = string_arg("abc", 10);

	cr_expect_eq(ast_string_loc(&a, 0).col, 11);
	cr_expect_eq(ast_string_loc(&a, 2).col, 13);
	cr_expect_eq(ast_string_loc(&a, 3).col, 14); /* the closing quote */
	cr_expect_eq(ast_string_loc(&a, 99).col, 14);
	cr_expect_eq(ast_string_loc(&a, 0).line, 7);
}

Test(lexer, string_loc_through_escapes)
{
	/* decoded: a " b \n c A d */
	struct ast_arg a = string_arg("a\\\"b\\nc\\x41d", 1);

	cr_expect_eq(ast_string_loc(&a, 0).col, 2);  /* a */
	cr_expect_eq(ast_string_loc(&a, 1).col, 3);  /* \" */
	cr_expect_eq(ast_string_loc(&a, 2).col, 5);  /* b */
	cr_expect_eq(ast_string_loc(&a, 3).col, 6);  /* \n */
	cr_expect_eq(ast_string_loc(&a, 4).col, 8);  /* c */
	cr_expect_eq(ast_string_loc(&a, 5).col, 9);  /* \x41 */
	cr_expect_eq(ast_string_loc(&a, 6).col, 13); /* d */
}

Test(lexer, string_loc_through_utf8)
{
	/* decoded bytes: c3 a9 78 -> "é" is one column */
	struct ast_arg a = string_arg("\xc3\xa9x", 1);

	cr_expect_eq(ast_string_loc(&a, 0).col, 2);
	cr_expect_eq(ast_string_loc(&a, 1).col, 2);
	cr_expect_eq(ast_string_loc(&a, 2).col, 3);
}

Test(lexer, string_loc_invalid_escape_keeps_backslash)
{
	/* decoded: \ q z */
	struct ast_arg a = string_arg("\\qz", 1);

	cr_expect_eq(ast_string_loc(&a, 0).col, 2);
	cr_expect_eq(ast_string_loc(&a, 1).col, 3);
	cr_expect_eq(ast_string_loc(&a, 2).col, 4);
}

Test(lexer, string_loc_agrees_with_the_scanner)
{
	struct diag_ctx *ctx;
	int rc;
	struct ast_file *f = parse(&ctx, "heel 1\nworkdir \"\\t\xc3\xa9/..\\x2f\"\n", &rc);
	const struct ast_arg *a;

	cr_assert_eq(rc, 0);
	a = &f->stmts->next->args[0];
	cr_assert_eq(a->len, 7);
	/* the '.' at decoded byte 4: \t(2) é(1) /(1) then '.' at column 14 */
	cr_expect_eq(ast_string_loc(a, 4).line, 2);
	cr_expect_eq(ast_string_loc(a, 4).col, 14);
	cr_expect_eq(ast_string_loc(a, 6).col, 16);
	ast_file_free(f);
	diag_free(ctx);
}

Test(lexer, string_loc_of_non_string_is_its_loc)
{
	struct ast_arg a = { .kind = AST_ARG_WORD, .text = "rw" };

	a.loc.line = 3;
	a.loc.col = 5;
	cr_expect_eq(ast_string_loc(&a, 1).col, 5);
}

Test(lexer, one_error_per_string_however_many_bad_characters)
{
	struct scan s;
	const struct diag *d;

	scan(&s, "grant \"C:\\Users\\foo\\bar\" r");
	d = only_error(&s);
	cr_expect_str_eq(d->message, "invalid escape `\\U`");
	cr_expect_eq(d->loc.col, 10);
	scan_free(&s);
	scan(&s, "\"\x01\x02\x03\"");
	cr_expect_str_eq(only_error(&s)->message, "control character U+0001 in a string");
	scan_free(&s);
}

Test(lexer, unterminated_and_bad_content_are_both_said)
{
	struct scan s;

	scan(&s, "\"a\\q");
	cr_assert_eq(diag_count(s.diag), 2);
	cr_expect_str_eq(diag_get(s.diag, 0)->message, "unterminated string");
	cr_expect_str_eq(diag_get(s.diag, 1)->message, "invalid escape `\\q`");
	scan_free(&s);
}

Test(lexer, nul_bytes_in_long_tokens_stay_linear, .timeout = 10)
{
	/* flex rescans a token from its start at each NUL inside it; long
	 * strings and comments of NULs must not make that quadratic. */
	size_t n = 400000;
	char *text = malloc(n + 4);
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *src;
	struct ast_file *f;

	cr_assert_not_null(text);
	for (int round = 0; round < 2; round++) {
		text[0] = round ? '"' : '#';
		memset(text + 1, 0, n);
		text[n + 1] = round ? '"' : '\n';
		src = diag_add_source(ctx, "t", NULL, text, n + 2);
		cr_assert_eq(parse_source(ctx, src, &f), -EINVAL);
		ast_file_free(f);
	}
	cr_expect_eq(diag_count(ctx), 2);
	diag_free(ctx);
	free(text);
}

Test(lexer, strings_and_comments_at_end_of_file)
{
	struct scan s;

	scan(&s, "nice 1 # bye");
	expect_kinds(&s, KINDS(K_NICE, T_NUMBER, T_EOS));
	cr_expect_str_eq(s.ctx->file->comments[0].text, "# bye");
	scan_free(&s);
	scan(&s, "sbpl \"(x)\"");
	expect_kinds(&s, KINDS(K_SBPL, T_STRING, T_EOS));
	cr_expect_eq(s.toks[1].col, 6);
	cr_expect_eq(s.toks[1].end_col, 11);
	scan_free(&s);
	scan(&s, "sbpl \"(x)");
	expect_kinds(&s, KINDS(K_SBPL, T_STRING, T_EOS));
	cr_expect_str_eq(s.toks[1].arg.text, "(x)");
	cr_expect_str_eq(only_error(&s)->message, "unterminated string");
	scan_free(&s);
}

Test(lexer, positions_after_a_comment_and_a_string)
{
	struct scan s;

	scan(&s, "# c\"\n\"a\" nice\n");
	expect_kinds(&s, KINDS(T_EOS, T_STRING, K_NICE, T_EOS, T_EOS));
	cr_expect_eq(s.toks[0].line, 1);
	cr_expect_eq(s.toks[0].col, 5);
	cr_expect_eq(s.toks[1].line, 2);
	cr_expect_eq(s.toks[1].col, 1);
	cr_expect_eq(s.toks[2].col, 5);
	scan_free(&s);
}

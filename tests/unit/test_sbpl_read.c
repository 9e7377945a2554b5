/* SPDX-License-Identifier: MIT
 * The SBPL reader: the forms and positions it gives, the escapes SBPL's
 * reader knows, raw strings, comments, and each text it refuses with the
 * place and the reason. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "sbpl_read.h"

static struct sbpl_doc
read_ok(const char *text)
{
	struct sbpl_doc doc;
	struct sbpl_read_error e;
	int rc = sbpl_read(text, strlen(text), &doc, &e);

	cr_assert_eq(rc, 0, "%s: %u:%u: %s", text, e.line, e.col, e.message);
	return doc;
}

/* The error for `len` bytes of `text`, which must be refused. */
static struct sbpl_read_error
read_bad_n(const char *text, size_t len)
{
	struct sbpl_doc doc = { 0 };
	struct sbpl_read_error e;
	int rc = sbpl_read(text, len, &doc, &e);

	cr_assert_eq(rc, -EINVAL, "accepted: %.*s", (int)len, text);
	cr_assert_eq(doc.nforms, 0);
	cr_assert_null(doc.forms);
	return e;
}

static void
expect_bad(const char *text, uint32_t line, uint32_t col, const char *want)
{
	struct sbpl_read_error e = read_bad_n(text, strlen(text));

	cr_expect(strstr(e.message, want), "%s: got '%s', want '%s'", text, e.message, want);
	cr_expect_eq(e.line, line, "%s: line %u, want %u", text, e.line, line);
	cr_expect_eq(e.col, col, "%s: col %u, want %u", text, e.col, col);
}

/* The string a one-string text reads to. */
static void
expect_string(const char *text, const char *want, size_t wantlen, int raw)
{
	struct sbpl_doc doc = read_ok(text);

	cr_assert_eq(doc.nforms, 1);
	cr_assert_eq(doc.forms[0]->kind, SBPL_NODE_STRING, "%s", text);
	cr_expect_eq(doc.forms[0]->len, wantlen, "%s: %zu bytes", text, doc.forms[0]->len);
	cr_expect(memcmp(doc.forms[0]->text, want, wantlen) == 0, "%s -> '%s'", text, doc.forms[0]->text);
	cr_expect_eq(doc.forms[0]->raw, raw);
	sbpl_doc_free(&doc);
}

Test(sbpl_read, forms_atoms_and_positions)
{
	struct sbpl_doc doc = read_ok("(version 1)\n(allow file-read*\n  (subpath \"/usr\") #t #f -3 #x1F)");
	const struct sbpl_node *r;

	cr_assert_eq(doc.nforms, 2);
	cr_expect_eq(doc.forms[0]->kind, SBPL_NODE_LIST);
	cr_expect_eq(doc.forms[0]->nkids, 2);
	cr_expect_str_eq(doc.forms[0]->kids[0]->text, "version");
	cr_expect_eq(doc.forms[0]->kids[1]->kind, SBPL_NODE_INT);
	cr_expect_eq(doc.forms[0]->kids[1]->num, 1);
	r = doc.forms[1];
	cr_expect_eq(r->line, 2);
	cr_expect_eq(r->col, 1);
	cr_assert_eq(r->nkids, 7);
	cr_expect_str_eq(r->kids[1]->text, "file-read*");
	cr_expect_eq(r->kids[1]->line, 2);
	cr_expect_eq(r->kids[1]->col, 8);
	cr_expect_eq(r->kids[2]->kind, SBPL_NODE_LIST);
	cr_expect_eq(r->kids[2]->line, 3);
	cr_expect_eq(r->kids[2]->col, 3);
	cr_expect_eq(r->kids[2]->kids[1]->col, 12);
	cr_expect_str_eq(r->kids[2]->kids[1]->text, "/usr");
	cr_expect_eq(r->kids[3]->kind, SBPL_NODE_BOOL);
	cr_expect_eq(r->kids[3]->num, 1);
	cr_expect_eq(r->kids[4]->num, 0);
	cr_expect_eq(r->kids[5]->kind, SBPL_NODE_INT);
	cr_expect_eq(r->kids[5]->num, -3);
	cr_expect_eq(r->kids[6]->num, 31);
	sbpl_doc_free(&doc);
}

Test(sbpl_read, columns_count_characters)
{
	/* "é" is two bytes, one column. */
	struct sbpl_doc doc = read_ok("(\"é\" x)");

	cr_expect_eq(doc.forms[0]->kids[1]->col, 6);
	sbpl_doc_free(&doc);
}

Test(sbpl_read, comments_and_blanks)
{
	struct sbpl_doc doc = read_ok("; head\n\t(a ; inside ( \" not a string\n b) ; tail");

	cr_assert_eq(doc.nforms, 1);
	cr_expect_eq(doc.forms[0]->nkids, 2);
	cr_expect_eq(doc.forms[0]->kids[1]->line, 3);
	sbpl_doc_free(&doc);
	doc = read_ok("   ; only a comment");
	cr_expect_eq(doc.nforms, 0);
	sbpl_doc_free(&doc);
}

Test(sbpl_read, quote_reads_as_a_list)
{
	struct sbpl_doc doc = read_ok("'x");

	cr_assert_eq(doc.forms[0]->kind, SBPL_NODE_LIST);
	cr_expect_str_eq(doc.forms[0]->kids[0]->text, "quote");
	cr_expect_str_eq(doc.forms[0]->kids[1]->text, "x");
	sbpl_doc_free(&doc);
}

Test(sbpl_read, known_escapes)
{
	expect_string("\"a\\nb\\tc\\rd\"", "a\nb\tc\rd", 7, 0);
	expect_string("\"q\\\"q\\\\\"", "q\"q\\", 4, 0);
	expect_string("\"\\x41\\x4a\"", "AJ", 2, 0);
}

Test(sbpl_read, hex_and_octal_escapes)
{
	expect_string("\"\\x41\\x62\"", "Ab", 2, 0);
	expect_string("\"\\101\\60x\"", "A0x", 3, 0);
	expect_string("\"\\xc3\\xa9\"", "\xc3\xa9", 2, 0);
}

Test(sbpl_read, utf8_is_kept)
{
	expect_string("\"/Users/zoë/日本\"", "/Users/zoë/日本", strlen("/Users/zoë/日本"), 0);
}

Test(sbpl_read, raw_strings_have_no_escapes)
{
	expect_string("#\"^/a\\.b$\"", "^/a\\.b$", 7, 1);
	expect_string("#\"\\n\"", "\\n", 2, 1);
	expect_string("#\"\"", "", 0, 1);
}

Test(sbpl_read, string_limit)
{
	char buf[300];

	buf[0] = '"';
	memset(buf + 1, 'a', 255);
	strcpy(buf + 256, "\"");
	{
		struct sbpl_doc doc = read_ok(buf);

		cr_expect_eq(doc.forms[0]->len, 255);
		sbpl_doc_free(&doc);
	}
	buf[256] = 'a';
	strcpy(buf + 257, "\"");
	expect_bad(buf, 1, 1, "longer than 255 bytes");
	/* The limit is on the bytes read, so escapes count once. */
	strcpy(buf, "#\"");
	memset(buf + 2, 'b', 256);
	strcpy(buf + 258, "\"");
	expect_bad(buf, 1, 1, "TinyScheme");
}

Test(sbpl_read, unknown_escapes_are_errors)
{
	expect_bad("(x \"\\u00e9\")", 1, 5, "no \\u escapes");
	expect_bad("(x \"a\\bc\")", 1, 6, "unknown escape \\b");
	expect_bad("\"\\/\"", 1, 2, "unknown escape \\/");
	expect_bad("\"\\q\"", 1, 2, "would read \\q as q");
	expect_bad("\"\\x\"", 1, 2, "\\x needs one or two hex digits");
	expect_bad("\"\\777\"", 1, 2, "above \\377");
	expect_bad("\"abc\\", 1, 5, "ends after a backslash");
}

Test(sbpl_read, nul_and_control_characters)
{
	expect_bad("\"\\0\"", 1, 2, "NUL byte");
	expect_bad("\"\\x00\"", 1, 2, "NUL byte");
	expect_bad("\"\\x1b\"", 1, 2, "control character 0x1b");
	expect_bad("\"\\177\"", 1, 2, "control character 0x7f");
	expect_bad("\"a\x01\"", 1, 3, "control character 0x01");
	expect_bad("\"a\tb\"", 1, 3, "control character 0x09");
	expect_bad("(a \x02)", 1, 4, "control character 0x02 outside a string");
	{
		static const char s[] = "(a \"x\0y\")";
		struct sbpl_read_error e = read_bad_n(s, sizeof(s) - 1);

		cr_expect(strstr(e.message, "NUL byte in a string"), "%s", e.message);
		cr_expect_eq(e.col, 6);
	}
	{
		static const char s[] = "(a)\n; note \0 more\n(b)";
		struct sbpl_read_error e = read_bad_n(s, sizeof(s) - 1);

		cr_expect(strstr(e.message, "NUL byte in a comment"), "%s", e.message);
		cr_expect_eq(e.line, 2);
	}
	{
		static const char s[] = "(a)\0(b)";
		struct sbpl_read_error e = read_bad_n(s, sizeof(s) - 1);

		cr_expect(strstr(e.message, "NUL byte"), "%s", e.message);
	}
}

Test(sbpl_read, raw_string_with_backslash_quote)
{
	expect_bad("(regex #\"^/a\\\"b\")", 1, 13, "backslash-quote in a raw string");
	expect_bad("#\"\\\"", 1, 3, "backslash-quote in a raw string");
	expect_bad("#\"a\\\\\\\"", 1, 6, "backslash-quote in a raw string");
	/* An even run is escaped backslashes, as a regex writes them. */
	expect_string("#\"^C:\\\\\"", "^C:\\\\", 5, 1);
}

Test(sbpl_read, unterminated_and_unbalanced)
{
	expect_bad("(allow\n  (literal \"/usr))\n", 2, 12, "unterminated string");
	expect_bad("(a \"abc", 1, 4, "unterminated string");
	expect_bad("(a\n (b c)\n", 1, 1, "never closed");
	expect_bad("(a (b c)))", 1, 10, "unexpected ')'");
	expect_bad(")", 1, 1, "unexpected ')'");
}

Test(sbpl_read, malformed_atoms)
{
	expect_bad("(a #\\x)", 1, 4, "unknown syntax");
	expect_bad("(a #q)", 1, 4, "unknown syntax");
	expect_bad("(a 1.5)", 1, 4, "malformed number");
	expect_bad("(a #xZZ)", 1, 4, "malformed number");
	expect_bad("(a 99999999999999999999)", 1, 4, "out of range");
	expect_bad("(a `b)", 1, 4, "quasiquote");
	expect_bad("(a caf\xc3\xa9)", 1, 7, "non-ASCII");
	expect_bad("\"caf\xe9\"", 1, 5, "invalid UTF-8");
	expect_bad("\"\xed\xa0\x80\"", 1, 2, "invalid UTF-8"); /* a surrogate */
	expect_bad("(a ')", 1, 4, "quote with nothing");
}

Test(sbpl_read, nesting_limit)
{
	char deep[2 * (SBPL_DEPTH_MAX + 5) + 1];
	size_t n = SBPL_DEPTH_MAX + 5;

	memset(deep, '(', n);
	memset(deep + n, ')', n);
	deep[2 * n] = '\0';
	{
		struct sbpl_read_error e = read_bad_n(deep, 2 * n);

		cr_expect(strstr(e.message, "nested more than"), "%s", e.message);
	}
	n = SBPL_DEPTH_MAX;
	memset(deep, '(', n);
	memset(deep + n, ')', n);
	deep[2 * n] = '\0';
	{
		struct sbpl_doc doc = read_ok(deep);

		sbpl_doc_free(&doc);
	}
}

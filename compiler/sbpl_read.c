/* SPDX-License-Identifier: MIT
 * The SBPL reader: lists, symbols, integers, #t/#f, strings and raw
 * strings, ; comments, as TinyScheme (the interpreter inside libsandbox)
 * reads them. Where that reader quietly changes the text (an unknown
 * escape \c becomes c, a NUL ends the profile, a long string is cut) this
 * one refuses with the reason, so a profile means what it says. */
#include "sbpl_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *s;
	size_t len, pos;
	uint32_t line, col;
	struct sbpl_read_error *err;
	int failed; /* 0, -EINVAL or -ENOMEM */
};

static void
fail_at(struct reader *r, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	r->failed = -EINVAL;
	r->err->line = line;
	r->err->col = col;
	va_start(ap, fmt);
	vsnprintf(r->err->message, sizeof(r->err->message), fmt, ap);
	va_end(ap);
}

static void
fail_nomem(struct reader *r)
{
	if (r->failed)
		return;
	r->failed = -ENOMEM;
	r->err->line = r->line;
	r->err->col = r->col;
	snprintf(r->err->message, sizeof(r->err->message), "out of memory");
}

static int
peek(const struct reader *r)
{
	return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

/* Columns count code points: a UTF-8 continuation byte does not move. */
static void
advance(struct reader *r)
{
	unsigned char c = (unsigned char)r->s[r->pos++];

	if (c == '\n') {
		r->line++;
		r->col = 1;
	} else if ((c & 0xc0) != 0x80) {
		r->col++;
	}
}

static int
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int
is_delim(int c)
{
	return c < 0 || is_space(c) || c == '(' || c == ')' || c == '"' || c == ';' || c == '\'';
}

/* Skips blanks and comments; refuses NUL and control bytes there too:
 * libsandbox takes the profile as a C string, so a NUL anywhere (even in
 * a comment) silently drops the rest of the profile. */
static void
skip_blank(struct reader *r)
{
	for (;;) {
		int c = peek(r);

		if (c == ';') {
			while ((c = peek(r)) >= 0 && c != '\n') {
				if (c == 0) {
					fail_at(r, r->line, r->col,
						"NUL byte in a comment: libsandbox would end the profile here");
					return;
				}
				advance(r);
			}
		} else if (c >= 0 && is_space(c)) {
			advance(r);
		} else {
			return;
		}
	}
}

static struct sbpl_node *
node_new(struct reader *r, enum sbpl_node_kind kind, uint32_t line, uint32_t col)
{
	struct sbpl_node *n = calloc(1, sizeof(*n));

	if (!n) {
		fail_nomem(r);
		return NULL;
	}
	n->kind = kind;
	n->line = line;
	n->col = col;
	return n;
}

static void
node_free(struct sbpl_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static int
push_kid(struct reader *r, struct sbpl_node *list, struct sbpl_node *kid)
{
	struct sbpl_node **k;

	if ((list->nkids & (list->nkids - 1)) == 0) {
		size_t cap = list->nkids ? list->nkids * 2 : 4;

		k = realloc(list->kids, cap * sizeof(*k));
		if (!k) {
			fail_nomem(r);
			return -1;
		}
		list->kids = k;
	}
	list->kids[list->nkids++] = kid;
	return 0;
}

/* The length of the UTF-8 sequence starting at s[0] if it is well formed
 * (shortest form, no surrogates, at most U+10FFFF), else 0. */
static size_t
utf8_len(const unsigned char *s, size_t avail)
{
	unsigned cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape after a backslash (the reader stands on the character after
 * it). TinyScheme knows exactly these; it turns any other \c into c,
 * which is how JSON-escaped text (\u0001, \b, \/) goes wrong unseen. */
static int
read_escape(struct reader *r, uint32_t line, uint32_t col)
{
	int c = peek(r), v;

	switch (c) {
	case 'n':
		advance(r);
		return '\n';
	case 't':
		advance(r);
		return '\t';
	case 'r':
		advance(r);
		return '\r';
	case '"':
	case '\\':
		advance(r);
		return c;
	case 'x':
		advance(r);
		if ((v = hexval(peek(r))) < 0) {
			fail_at(r, line, col, "\\x needs one or two hex digits");
			return -1;
		}
		advance(r);
		if (hexval(peek(r)) >= 0) {
			v = v * 16 + hexval(peek(r));
			advance(r);
		}
		return v;
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		v = 0;
		for (int i = 0; i < 3 && peek(r) >= '0' && peek(r) <= '7'; i++) {
			v = v * 8 + (peek(r) - '0');
			advance(r);
		}
		if (v > 0377) {
			fail_at(r, line, col, "octal escape \\%o is above \\377 (one byte)", v);
			return -1;
		}
		return v;
	case -1:
		fail_at(r, line, col, "unterminated string: the text ends after a backslash");
		return -1;
	default:
		if (c == 'u' || c == 'U')
			fail_at(r, line, col,
				"unknown escape \\%c: SBPL strings have no \\u escapes (the reader would "
				"read \\%c as %c); write the character as UTF-8 or as \\xHH bytes",
				c, c, c);
		else if (c > 0x20 && c < 0x7f)
			fail_at(r, line, col,
				"unknown escape \\%c: SBPL's reader knows only \\n \\t \\r \\\" \\\\ "
				"\\xHH \\ooo and would read \\%c as %c (JSON escaping does not fit SBPL)",
				c, c, c);
		else
			fail_at(r, line, col,
				"unknown escape: a backslash before byte 0x%02x (SBPL's reader knows only "
				"\\n \\t \\r \\\" \\\\ \\xHH \\ooo)",
				(unsigned)c);
		return -1;
	}
}

static int
buf_put(struct reader *r, char *buf, size_t *n, int c, uint32_t line, uint32_t col)
{
	if (*n >= SBPL_STRING_MAX) {
		fail_at(r, line, col,
			"string longer than %d bytes: TinyScheme's reader (libsandbox's) cannot hold "
			"it; pass long values as a parameter",
			SBPL_STRING_MAX);
		return -1;
	}
	buf[(*n)++] = (char)c;
	return 0;
}

/* How many backslashes end the n bytes of buf. */
static size_t
trailing_backslashes(const char *buf, size_t n)
{
	size_t k = 0;

	while (k < n && buf[n - 1 - k] == '\\')
		k++;
	return k;
}

/* An ordinary "..." string (raw = 0) or a raw #"..." one (raw = 1, no
 * escapes: the next double quote ends it). The reader stands on the
 * opening quote. Control characters are refused whether written raw or
 * as an escape, except \n \t \r written as escapes. */
static struct sbpl_node *
read_string(struct reader *r, int raw, uint32_t line, uint32_t col)
{
	char buf[SBPL_STRING_MAX + 1];
	size_t n = 0;
	struct sbpl_node *node;

	advance(r); /* the quote */
	for (;;) {
		int c = peek(r);
		uint32_t cl = r->line, cc = r->col;

		if (c < 0) {
			fail_at(r, line, col, "unterminated string: no closing '\"' before the end of the text");
			return NULL;
		}
		if (c == '"') {
			advance(r);
			break;
		}
		if (c == '\n') {
			fail_at(r, line, col,
				"unterminated string: a line ends before its closing '\"' (a string "
				"holds no line break: write \\n)");
			return NULL;
		}
		if (c == 0) {
			fail_at(r, cl, cc, "NUL byte in a string: libsandbox would end the profile here");
			return NULL;
		}
		if (c < 0x20 || c == 0x7f) {
			fail_at(r, cl, cc,
				"control character 0x%02x in a string: write \\n, \\t or \\r, or pass the "
				"value as a parameter",
				(unsigned)c);
			return NULL;
		}
		if (c == '\\' && !raw) {
			advance(r);
			int v = read_escape(r, cl, cc);

			if (v < 0)
				return NULL;
			if (v == 0) {
				fail_at(r, cl, cc, "escape gives a NUL byte: libsandbox would end the string there");
				return NULL;
			}
			if ((v < 0x20 && v != '\n' && v != '\t' && v != '\r') || v == 0x7f) {
				fail_at(r, cl, cc, "escape gives control character 0x%02x", (unsigned)v);
				return NULL;
			}
			if (buf_put(r, buf, &n, v, line, col) < 0)
				return NULL;
			continue;
		}
		if (c >= 0x80) {
			size_t k = utf8_len((const unsigned char *)r->s + r->pos, r->len - r->pos);

			if (k == 0) {
				fail_at(r, cl, cc, "invalid UTF-8 in a string");
				return NULL;
			}
			for (size_t i = 0; i < k; i++) {
				if (buf_put(r, buf, &n, peek(r), line, col) < 0)
					return NULL;
				advance(r);
			}
			continue;
		}
		/* An odd run of backslashes before the closing quote reads as an
		 * escaped quote (Codex writes \" in raw strings) but is not one: the
		 * quote ends the string and the rest of the text is misread. An
		 * even run is a regex's escaped backslashes and is fine. */
		if (raw && c == '\\' && r->pos + 1 < r->len && r->s[r->pos + 1] == '"' &&
		    trailing_backslashes(buf, n) % 2 == 0) {
			fail_at(r, cl, cc,
				"backslash-quote in a raw string: #\"...\" has no escapes, so this quote "
				"ends the string; use an ordinary string with \\\" or a parameter");
			return NULL;
		}
		if (buf_put(r, buf, &n, c, line, col) < 0)
			return NULL;
		advance(r);
	}
	if (!(node = node_new(r, SBPL_NODE_STRING, line, col)))
		return NULL;
	node->raw = raw;
	node->len = n;
	if (!(node->text = malloc(n + 1))) {
		free(node);
		fail_nomem(r);
		return NULL;
	}
	memcpy(node->text, buf, n);
	node->text[n] = '\0';
	return node;
}

/* Integer text in `base` (with an optional sign for base 10); 0 when it
 * is one, -1 when malformed, -2 when out of range. */
static int
parse_int(const char *t, size_t n, int base, long long *out)
{
	int neg = 0;
	unsigned long long v = 0;
	size_t i = 0;

	if (base == 10 && n > 0 && (t[0] == '-' || t[0] == '+')) {
		neg = t[0] == '-';
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		int d = hexval((unsigned char)t[i]);

		if (d < 0 || d >= base)
			return -1;
		if (v > (0x7fffffffffffffffull - (unsigned)d) / (unsigned)base)
			return -2;
		v = v * (unsigned)base + (unsigned)d;
	}
	*out = neg ? -(long long)v : (long long)v;
	return 0;
}

static struct sbpl_node *
read_atom(struct reader *r, uint32_t line, uint32_t col)
{
	size_t start = r->pos, n;
	const char *t;
	struct sbpl_node *node;
	int base = 0;

	while (!is_delim(peek(r))) {
		int c = peek(r);

		if (c < 0x20 || c == 0x7f) {
			fail_at(r, r->line, r->col, c == 0 ? "NUL byte: libsandbox would end the profile here"
							  : "control character 0x%02x outside a string",
				(unsigned)c);
			return NULL;
		}
		if (c >= 0x80) {
			fail_at(r, r->line, r->col, "non-ASCII character outside a string");
			return NULL;
		}
		advance(r);
	}
	t = r->s + start;
	n = r->pos - start;
	if (n > SBPL_STRING_MAX) {
		fail_at(r, line, col, "symbol longer than %d bytes", SBPL_STRING_MAX);
		return NULL;
	}
	if (t[0] == '#') {
		if (n == 2 && (t[1] == 't' || t[1] == 'f')) {
			if (!(node = node_new(r, SBPL_NODE_BOOL, line, col)))
				return NULL;
			node->num = t[1] == 't';
			return node;
		}
		if (n >= 2 && t[1] == 'x')
			base = 16;
		else if (n >= 2 && t[1] == 'o')
			base = 8;
		else if (n >= 2 && t[1] == 'b')
			base = 2;
		else if (n >= 2 && t[1] == 'd')
			base = 10;
		if (!base) {
			fail_at(r, line, col, "unknown syntax '%.*s' (SBPL uses #t, #f, #\"raw string\" and #x numbers)",
				(int)n, t);
			return NULL;
		}
		t += 2;
		n -= 2;
	} else if ((t[0] >= '0' && t[0] <= '9') ||
		   ((t[0] == '-' || t[0] == '+') && n > 1 && t[1] >= '0' && t[1] <= '9')) {
		base = 10;
	}
	if (base) {
		long long v;
		int rc = parse_int(t, n, base, &v);

		if (rc == -2) {
			fail_at(r, line, col, "number '%.*s' out of range", (int)(r->pos - start), r->s + start);
			return NULL;
		}
		if (rc < 0) {
			fail_at(r, line, col, "malformed number '%.*s' (only integers are used in SBPL)",
				(int)(r->pos - start), r->s + start);
			return NULL;
		}
		if (!(node = node_new(r, SBPL_NODE_INT, line, col)))
			return NULL;
		node->num = v;
		return node;
	}
	if (!(node = node_new(r, SBPL_NODE_SYMBOL, line, col)))
		return NULL;
	if (!(node->text = strndup(t, n))) {
		free(node);
		fail_nomem(r);
		return NULL;
	}
	node->len = n;
	return node;
}

static struct sbpl_node *read_datum(struct reader *r, int depth);

static struct sbpl_node *
read_list(struct reader *r, int depth, uint32_t line, uint32_t col)
{
	struct sbpl_node *list = node_new(r, SBPL_NODE_LIST, line, col);

	if (!list)
		return NULL;
	advance(r); /* ( */
	for (;;) {
		struct sbpl_node *kid;

		skip_blank(r);
		if (r->failed)
			break;
		if (peek(r) < 0) {
			fail_at(r, line, col, "unbalanced parentheses: this '(' is never closed");
			break;
		}
		if (peek(r) == ')') {
			advance(r);
			return list;
		}
		if (!(kid = read_datum(r, depth + 1)))
			break;
		if (push_kid(r, list, kid) < 0) {
			node_free(kid);
			break;
		}
	}
	node_free(list);
	return NULL;
}

/* One datum; the reader stands on its first character (not a blank). */
static struct sbpl_node *
read_datum(struct reader *r, int depth)
{
	uint32_t line = r->line, col = r->col;
	int c = peek(r);

	if (depth > SBPL_DEPTH_MAX) {
		fail_at(r, line, col, "forms nested more than %d deep", SBPL_DEPTH_MAX);
		return NULL;
	}
	switch (c) {
	case '(':
		return read_list(r, depth, line, col);
	case ')':
		fail_at(r, line, col, "unbalanced parentheses: unexpected ')' with no '(' open");
		return NULL;
	case '"':
		return read_string(r, 0, line, col);
	case '\'': {
		struct sbpl_node *q, *sym, *x;

		advance(r);
		skip_blank(r);
		if (r->failed)
			return NULL;
		if (peek(r) < 0 || peek(r) == ')') {
			fail_at(r, line, col, "quote with nothing after it");
			return NULL;
		}
		if (!(x = read_datum(r, depth + 1)))
			return NULL;
		q = node_new(r, SBPL_NODE_LIST, line, col);
		sym = node_new(r, SBPL_NODE_SYMBOL, line, col);
		if (!q || !sym || !(sym->text = strdup("quote")) || push_kid(r, q, sym) < 0) {
			fail_nomem(r);
			node_free(sym);
			node_free(q);
			node_free(x);
			return NULL;
		}
		sym->len = 5;
		if (push_kid(r, q, x) < 0) {
			node_free(q);
			node_free(x);
			return NULL;
		}
		return q;
	}
	case '`':
	case ',':
		fail_at(r, line, col, "quasiquote ('%c') is not used in SBPL profiles", c);
		return NULL;
	case '#':
		if (r->pos + 1 < r->len && r->s[r->pos + 1] == '"') {
			advance(r);
			return read_string(r, 1, line, col);
		}
		return read_atom(r, line, col);
	default:
		return read_atom(r, line, col);
	}
}

int
sbpl_read(const char *text, size_t len, struct sbpl_doc *out, struct sbpl_read_error *err)
{
	struct reader r = { .s = text, .len = len, .line = 1, .col = 1, .err = err };
	size_t cap = 0;

	out->forms = NULL;
	out->nforms = 0;
	memset(err, 0, sizeof(*err));
	for (;;) {
		struct sbpl_node *n;

		skip_blank(&r);
		if (r.failed || peek(&r) < 0)
			break;
		if (!(n = read_datum(&r, 0)))
			break;
		if (out->nforms == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct sbpl_node **f = realloc(out->forms, ncap * sizeof(*f));

			if (!f) {
				node_free(n);
				fail_nomem(&r);
				break;
			}
			out->forms = f;
			cap = ncap;
		}
		out->forms[out->nforms++] = n;
	}
	if (r.failed) {
		sbpl_doc_free(out);
		return r.failed;
	}
	return 0;
}

void
sbpl_doc_free(struct sbpl_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nforms; i++)
		node_free(doc->forms[i]);
	free(doc->forms);
	doc->forms = NULL;
	doc->nforms = 0;
}

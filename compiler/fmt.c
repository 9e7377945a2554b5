/* SPDX-License-Identifier: MIT
 * heelc fmt: renders a parsed policy in its one canonical layout, every
 * comment kept. The source digest is taken over this form, so it must be
 * idempotent (fmt of fmt is fmt) and must never change what a file means.
 *
 * The canonical layout:
 * - Statements in source order, one per line (statements that shared a
 *   line through `;` are split; empty statements vanish). fmt never
 *   reorders, so `heel 1` stays first with the comments that precede it
 *   still before it; a misplaced `heel` is left for the checker to refuse.
 * - Tokens separated by one space. Keywords are spelt from the node kind
 *   and flags (`grant "p" rw optional`, `network audit daily "d"`,
 *   `seccomp allow "x"`, `seccomp deny "x" errno EPERM`,
 *   `readonly each-writable "p" because "r"`). Numbers, words
 *   and <angle> names as written.
 * - Strings are re-rendered from their decoded value: `\"`, `\\`, `\n`,
 *   `\t`; `\xHH` (lower-case hex) for every other control byte (0x00-0x1f,
 *   0x7f) and for bytes that are not part of valid UTF-8 (so the output is
 *   always valid UTF-8 and lexes again); everything else, valid UTF-8
 *   included, literally.
 * - Blocks: `KEYWORD ARGS {` on the statement's line, the children one per
 *   line indented four spaces a level, `}` alone at the block's own
 *   indentation. A block with no children is one line,
 *   `network allow { }`, unless a comment sits between its braces or
 *   both braces carry a trailing comment.
 * - Blank lines: a run of blank source lines between two output lines
 *   (statements or comments) becomes exactly one; none at the start or end
 *   of the file, none directly after `{` or before `}`.
 * - Comments: text kept as written, trailing whitespace stripped. A comment
 *   on its own line stays on its own line, indented like the statement
 *   that follows it (like the block's contents when it is the last thing
 *   in a block). A trailing comment follows the last thing on its source
 *   line, separated by two spaces: a statement, a `{` or a `}`. A comment
 *   marked trailing whose line holds nothing that is printed (only `;`)
 *   becomes a comment on its own line.
 * - The output ends with exactly one newline (an empty file stays empty).
 */
#include "fmt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define FMT_INDENT 4

struct outbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

enum line_kind {
	LINE_STMT,    /* a statement, or a block with nothing inside: `k { }` */
	LINE_OPEN,    /* `KEYWORD ARGS {` */
	LINE_CLOSE,   /* `}` */
	LINE_COMMENT, /* a comment on its own line */
};

/* One output line, with the source lines it came from: what decides where
 * comments go and which blank lines survive. */
struct line {
	enum line_kind kind;
	unsigned depth;
	uint32_t first, last;
	const struct ast_stmt *stmt;       /* not for LINE_COMMENT */
	const struct ast_comment *comment; /* LINE_COMMENT: itself; else its trailing comment */
};

struct lines {
	struct line *v;
	size_t n, cap;
};

static int
lines_push(struct lines *ls, const struct line *l)
{
	struct line *grown = grow_array(ls->v, &ls->cap, ls->n + 1, sizeof(*grown), 64);

	if (!grown)
		return -ENOMEM;
	ls->v = grown;
	ls->v[ls->n++] = *l;
	return 0;
}

static void
out_put(struct outbuf *b, const char *s, size_t n)
{
	char *grown;

	if (b->oom)
		return;
	/* One more for the NUL that ends the text. */
	grown = n < SIZE_MAX - b->len ? grow_array(b->p, &b->cap, b->len + n + 1, 1, 256) : NULL;
	if (!grown) {
		b->oom = true;
		return;
	}
	b->p = grown;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
out_str(struct outbuf *b, const char *s)
{
	out_put(b, s, strlen(s));
}

static void
out_char(struct outbuf *b, char c)
{
	out_put(b, &c, 1);
}

static bool
is_block(enum ast_kind kind)
{
	return kind == AST_NETWORK_ALLOW || kind == AST_IPC ||
	       kind == AST_PYTHON || kind == AST_ON;
}

/* Length of the valid UTF-8 sequence starting at s[0] (at most n bytes), or
 * 0 when there is none: overlong forms, surrogates and code points past
 * U+10FFFF count as invalid, as a strict lexer would refuse them. */
static size_t
utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void
out_string(struct outbuf *b, const char *text, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	out_char(b, '"');
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };

			out_put(b, esc, 2);
			i++;
		} else if (c == '\n') {
			out_str(b, "\\n");
			i++;
		} else if (c == '\t') {
			out_str(b, "\\t");
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 0xf] };

			out_put(b, esc, 4);
			i++;
		} else if ((n = utf8_seq_len(s + i, len - i)) == 0) {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 0xf] };

			out_put(b, esc, 4);
			i++;
		} else {
			out_put(b, text + i, n);
			i += n;
		}
	}
	out_char(b, '"');
}

static void
out_arg(struct outbuf *b, const struct ast_arg *a)
{
	out_char(b, ' ');
	switch (a->kind) {
	case AST_ARG_STRING:
		out_string(b, a->text, a->len);
		break;
	case AST_ARG_ANGLE:
		out_char(b, '<');
		out_put(b, a->text, a->len);
		out_char(b, '>');
		break;
	case AST_ARG_WORD:
	case AST_ARG_UPPER:
	case AST_ARG_NUMBER:
		out_put(b, a->text, a->len);
		break;
	}
}

/* The statement's tokens, without indentation, block contents or newline.
 * `empty` renders a block as `KEYWORD ARGS { }`. */
static void
out_stmt(struct outbuf *b, const struct ast_stmt *s, bool empty)
{
	size_t nargs = s->nargs;
	const char *kw = ast_kind_name(s->kind);

	/* A pattern is its string alone; start without the separating space
	 * out_arg would put in front of it. */
	if (s->kind == AST_PATTERN) {
		if (nargs)
			out_string(b, s->args[0].text, s->args[0].len);
		return;
	}
	out_str(b, kw ? kw : "?");
	if (s->kind == AST_SECCOMP)
		out_str(b, s->flags & AST_F_ALLOW ? " allow" : " deny");
	if (s->kind == AST_NETWORK_AUDIT && (s->flags & AST_F_DAILY))
		out_str(b, " daily");
	if (s->kind == AST_READONLY && (s->flags & AST_F_EACH_WRITABLE))
		out_str(b, " each-writable");
	if (((s->kind == AST_SECCOMP && (s->flags & AST_F_ERRNO)) ||
	     (s->kind == AST_READONLY && (s->flags & AST_F_BECAUSE))) &&
	    nargs)
		nargs--;
	for (size_t i = 0; i < nargs; i++)
		out_arg(b, &s->args[i]);
	if (s->kind == AST_SECCOMP && (s->flags & AST_F_ERRNO) && s->nargs) {
		out_str(b, " errno");
		out_arg(b, &s->args[s->nargs - 1]);
	}
	if (s->kind == AST_READONLY && (s->flags & AST_F_BECAUSE) && s->nargs) {
		out_str(b, " because");
		out_arg(b, &s->args[s->nargs - 1]);
	}
	if (s->kind == AST_GRANT && (s->flags & AST_F_OPTIONAL))
		out_str(b, " optional");
	if (is_block(s->kind))
		out_str(b, empty ? " { }" : " {");
}

static uint32_t
max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* The last source line a statement occupies. last_line is the parser's
 * word for it; the rest only guards the ordering fmt relies on against a
 * node whose last_line was left unset. */
static uint32_t
stmt_end(const struct ast_stmt *s)
{
	uint32_t end = max_u32(s->loc.line, s->last_line);

	for (size_t i = 0; i < s->nargs; i++)
		end = max_u32(end, s->args[i].loc.line);
	if (s->flags)
		end = max_u32(end, s->flag_loc.line);
	for (const struct ast_stmt *c = s->children; c; c = c->next)
		end = max_u32(end, stmt_end(c));
	return end;
}

static int
cmp_comment(const void *a, const void *b)
{
	const struct ast_comment *x = *(const struct ast_comment *const *)a;
	const struct ast_comment *y = *(const struct ast_comment *const *)b;

	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	return 0;
}

/* Every block becomes an opening and a closing line here, empty or not:
 * whether an empty one fits on one line depends on the comments placed in
 * it, so fmt_render decides that last. */
static int
flatten(struct lines *ls, const struct ast_stmt *list, unsigned depth)
{
	for (const struct ast_stmt *s = list; s; s = s->next) {
		uint32_t end = stmt_end(s);
		struct line l = { .kind = LINE_STMT, .depth = depth,
				  .first = s->loc.line, .last = end, .stmt = s };
		int rc;

		if (is_block(s->kind)) {
			l.kind = LINE_OPEN;
			l.last = s->loc.line;
			for (size_t i = 0; i < s->nargs; i++)
				l.last = max_u32(l.last, s->args[i].loc.line);
			if ((rc = lines_push(ls, &l)) < 0 ||
			    (rc = flatten(ls, s->children, depth + 1)) < 0)
				return rc;
			l.kind = LINE_CLOSE;
			l.first = l.last = end;
		}
		if ((rc = lines_push(ls, &l)) < 0)
			return rc;
	}
	return 0;
}

/* Interleaves the comments with the code lines. Both are in source order,
 * so each pass is one sweep: `j` counts the code lines starting at or
 * before the comment's line. Trailing comments are attached first, so
 * that the second pass copies code lines complete. */
static int
place_comments(struct lines *code, const struct ast_comment *const *cs,
	       size_t nc, struct lines *all)
{
	size_t j = 0, emitted = 0;
	int rc;

	for (size_t i = 0; i < nc; i++) {
		const struct ast_comment *c = cs[i];

		while (j < code->n && code->v[j].first <= c->loc.line)
			j++;
		if (c->trailing && j > 0 && code->v[j - 1].last >= c->loc.line &&
		    !code->v[j - 1].comment)
			code->v[j - 1].comment = c;
	}
	j = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct ast_comment *c = cs[i];
		struct line l = { .kind = LINE_COMMENT, .first = c->loc.line,
				  .last = c->loc.line, .comment = c };

		while (j < code->n && code->v[j].first <= c->loc.line)
			j++;
		if (j > 0 && code->v[j - 1].comment == c)
			continue;
		/* Indentation of what follows: a `}` means the comment
		 * ends the block's contents. */
		if (j < code->n)
			l.depth = code->v[j].depth +
				  (code->v[j].kind == LINE_CLOSE ? 1 : 0);
		while (emitted < j)
			if ((rc = lines_push(all, &code->v[emitted++])) < 0)
				return rc;
		if ((rc = lines_push(all, &l)) < 0)
			return rc;
	}
	while (emitted < code->n)
		if ((rc = lines_push(all, &code->v[emitted++])) < 0)
			return rc;
	return 0;
}

static bool
blank_between(const struct ast_file *file, uint32_t after, uint32_t before)
{
	for (uint32_t ln = after + 1; ln < before; ln++)
		if (ln >= 1 && ln <= file->nlines && file->blank && file->blank[ln - 1])
			return true;
	return false;
}

static void
out_comment(struct outbuf *b, const char *text)
{
	size_t n = strlen(text);

	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' ||
		     text[n - 1] == '\r' || text[n - 1] == '\f' ||
		     text[n - 1] == '\v'))
		n--;
	out_put(b, text, n);
}

static void
out_indent(struct outbuf *b, unsigned depth)
{
	static const char spaces[] = "                ";

	for (size_t n = (size_t)depth * FMT_INDENT; n;) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		out_put(b, spaces, k);
		n -= k;
	}
}

int
fmt_render(const struct ast_file *file, char **out, size_t *len)
{
	struct outbuf b = { 0 };
	struct lines code = { 0 }, all = { 0 };
	const struct ast_comment **cs = NULL;
	size_t nc = file->ncomments;
	/* The top of the file is treated like the inside of a `{`: no
	 * blank line before the first line either. */
	enum line_kind prev_kind = LINE_OPEN;
	uint32_t prev_last = 0;
	int rc = -ENOMEM;

	*out = NULL;
	*len = 0;
	if (nc) {
		cs = malloc(nc * sizeof(*cs));
		if (!cs)
			goto out;
		for (size_t i = 0; i < nc; i++)
			cs[i] = &file->comments[i];
		qsort(cs, nc, sizeof(*cs), cmp_comment);
	}
	if ((rc = flatten(&code, file->stmts, 0)) < 0 ||
	    (rc = place_comments(&code, cs, nc, &all)) < 0)
		goto out;

	for (size_t i = 0; i < all.n; i++) {
		const struct line *l = &all.v[i];
		const struct ast_comment *trail = l->comment;
		enum line_kind kind = l->kind;
		uint32_t last = l->last;

		/* An empty block takes one line unless a comment sits inside
		 * it or both its braces carry one; its opening line is then
		 * directly followed by its own closing line. */
		if (kind == LINE_OPEN && i + 1 < all.n &&
		    all.v[i + 1].kind == LINE_CLOSE &&
		    all.v[i + 1].stmt == l->stmt &&
		    !(trail && all.v[i + 1].comment)) {
			kind = LINE_STMT;
			if (!trail)
				trail = all.v[i + 1].comment;
			last = all.v[i + 1].last;
			i++;
		}
		if (prev_kind != LINE_OPEN && kind != LINE_CLOSE &&
		    blank_between(file, prev_last, l->first))
			out_char(&b, '\n');
		prev_kind = kind;
		prev_last = last;
		out_indent(&b, l->depth);
		switch (kind) {
		case LINE_COMMENT:
			out_comment(&b, l->comment->text);
			out_char(&b, '\n');
			continue;
		case LINE_STMT:
			out_stmt(&b, l->stmt, is_block(l->stmt->kind));
			break;
		case LINE_OPEN:
			out_stmt(&b, l->stmt, false);
			break;
		case LINE_CLOSE:
			out_char(&b, '}');
			break;
		}
		if (trail) {
			out_str(&b, "  ");
			out_comment(&b, trail->text);
		}
		out_char(&b, '\n');
	}
	/* An empty file renders as an empty buffer, still NUL-terminated. */
	out_put(&b, "", 0);
	if (b.oom) {
		rc = -ENOMEM;
		goto out;
	}
	*out = b.p;
	*len = b.len;
	b.p = NULL;
	rc = 0;
out:
	free(b.p);
	free(code.v);
	free(all.v);
	free(cs);
	return rc;
}

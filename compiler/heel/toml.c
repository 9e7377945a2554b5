/* SPDX-License-Identifier: MIT
 * The TOML subset `heel --config` reads: the parser's actions and the
 * entry point. TOML's own rules that matter for a configuration are
 * kept: a key or a table defined twice is an error, bare keys are
 * A-Za-z0-9_- only, integers are decimal with `_` between digits. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "toml_scan.h"
#include "toml_parser.h"
#include "toml_lexer.h"

const char *
toml_type_name(enum toml_type type)
{
	switch (type) {
	case TOML_T_STRING: return "a string";
	case TOML_T_INT: return "an integer";
	case TOML_T_BOOL: return "a boolean";
	case TOML_T_ARRAY: return "an array";
	}
	return "a value";
}

void
toml_scan_error(struct toml_scan *sc, uint32_t line, uint32_t col, const char *fmt, ...)
{
	struct diag_loc loc = { sc->src, line, col };
	va_list ap;

	va_start(ap, fmt);
	diag_vpush(sc->diag, DIAG_ERROR, &loc, NULL, fmt, ap);
	va_end(ap);
	sc->err_line = line;
	sc->any_err = true;
}

/* One error a line: a scanner error already said what is wrong there. */
void
toml_scan_syntax_error(struct toml_scan *sc, uint32_t line, uint32_t col, const char *msg)
{
	if (sc->any_err && sc->err_line == line)
		return;
	toml_scan_error(sc, line, col, "%s", msg);
}

void
toml_scan_fatal(struct toml_scan *sc, const char *msg)
{
	(void)msg;
	sc->oom = true;
	longjmp(sc->fatal, 1);
}

void
toml_value_free(struct toml_value *v)
{
	if (!v)
		return;
	free(v->str);
	for (size_t i = 0; i < v->nitems; i++)
		toml_value_free(v->items[i]);
	free(v->items);
	free(v);
}

void
toml_list_free(struct toml_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		toml_value_free(l->items[i]);
	free(l->items);
	*l = (struct toml_list){ 0 };
}

void
toml_list_add(struct toml_scan *sc, struct toml_list *l, struct toml_value *v)
{
	if (!v)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		struct toml_value **p = realloc(l->items, cap * sizeof(*p));

		if (!p) {
			sc->oom = true;
			toml_value_free(v);
			return;
		}
		l->items = p;
		l->cap = cap;
	}
	l->items[l->n++] = v;
}

static struct toml_value *
new_value(struct toml_scan *sc, enum toml_type type, uint32_t line, uint32_t col)
{
	struct toml_value *v = calloc(1, sizeof(*v));

	if (!v) {
		sc->oom = true;
		return NULL;
	}
	v->type = type;
	v->line = line;
	v->col = col;
	return v;
}

struct toml_value *
toml_act_string(struct toml_scan *sc, struct toml_tok *t, uint32_t line, uint32_t col)
{
	struct toml_value *v;

	if (strlen(t->text) != t->len) {
		toml_scan_error(sc, line, col, "a string here cannot hold a NUL byte");
		free(t->text);
		return NULL;
	}
	v = new_value(sc, TOML_T_STRING, line, col);
	if (!v) {
		free(t->text);
		return NULL;
	}
	v->str = t->text;
	t->text = NULL;
	return v;
}

/* A decimal integer as TOML writes it: optional sign, no leading zero,
 * `_` only between digits. */
static bool
parse_int(const char *s, int64_t *out)
{
	const char *p = s;
	bool neg = false, prev_digit = false;
	uint64_t v = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p || (p[0] == '0' && p[1]))
		return false;
	for (; *p; p++) {
		if (*p == '_') {
			if (!prev_digit || !p[1])
				return false;
			prev_digit = false;
			continue;
		}
		if (*p < '0' || *p > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
		prev_digit = true;
	}
	if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

struct toml_value *
toml_act_word(struct toml_scan *sc, struct toml_tok *t, uint32_t line, uint32_t col)
{
	const char *w = t->text;
	struct toml_value *v = NULL;
	int64_t n;

	if (strcmp(w, "true") == 0 || strcmp(w, "false") == 0) {
		v = new_value(sc, TOML_T_BOOL, line, col);
		if (v)
			v->b = w[0] == 't';
	} else if (parse_int(w, &n)) {
		v = new_value(sc, TOML_T_INT, line, col);
		if (v)
			v->num = n;
	} else if ((w[0] >= '0' && w[0] <= '9') || ((w[0] == '+' || w[0] == '-') && w[1])) {
		if (strpbrk(w, ":T") || (strchr(w, '-') && w[0] != '-'))
			toml_scan_error(sc, line, col, "dates and times are not part of the TOML heel reads");
		else if (strpbrk(w, ".eE") || strstr(w, "inf") || strstr(w, "nan"))
			toml_scan_error(sc, line, col, "`%s`: floating-point numbers are not part of the TOML heel reads", w);
		else if (w[0] == '0' && (w[1] == 'x' || w[1] == 'o' || w[1] == 'b'))
			toml_scan_error(sc, line, col, "`%s`: write the number in decimal", w);
		else
			toml_scan_error(sc, line, col, "`%s` is not a number heel can read (decimal, at most 64 bits)", w);
	} else {
		toml_scan_error(sc, line, col, "`%s` is not a value: quote a string (\"%s\"); booleans are true and false", w, w);
	}
	free(t->text);
	t->text = NULL;
	return v;
}

struct toml_value *
toml_act_array(struct toml_scan *sc, struct toml_list *items, uint32_t line, uint32_t col)
{
	struct toml_value *v = new_value(sc, TOML_T_ARRAY, line, col);

	if (!v) {
		if (items)
			toml_list_free(items);
		return NULL;
	}
	if (items) {
		v->items = items->items;
		v->nitems = items->n;
		*items = (struct toml_list){ 0 };
	}
	return v;
}

/* A bare key: A-Za-z0-9_- only (the scanner's words are wider, so that
 * numbers and dotted keys get a message of their own). */
static bool
check_key(struct toml_scan *sc, const struct toml_tok *k, bool quoted, uint32_t line, uint32_t col)
{
	if (quoted)
		return true;
	if (strchr(k->text, '.')) {
		toml_scan_error(sc, line, col, "dotted keys (`%s`) are not part of the TOML heel reads; "
			       "write a [table] header, then the key", k->text);
		return false;
	}
	if (strspn(k->text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != k->len) {
		toml_scan_error(sc, line, col, "`%s` is not a bare key (A-Z a-z 0-9 _ -); quote it", k->text);
		return false;
	}
	return true;
}

void
toml_act_table(struct toml_scan *sc, struct toml_tok *name, uint32_t line, uint32_t col)
{
	struct toml_doc *d = sc->doc;
	struct toml_table *t;

	if (!check_key(sc, name, name->quoted, line, col)) {
		free(name->text);
		sc->cur = SIZE_MAX; /* keys until the next header are ignored */
		return;
	}
	for (size_t i = 1; i < d->n; i++) {
		if (strcmp(d->tables[i].name, name->text) == 0) {
			toml_scan_error(sc, line, col, "table [%s] is defined twice (first at line %u)",
					name->text, d->tables[i].line);
			free(name->text);
			sc->cur = SIZE_MAX;
			return;
		}
	}
	if (d->n == d->cap) {
		size_t cap = d->cap * 2;
		struct toml_table *p = realloc(d->tables, cap * sizeof(*p));

		if (!p) {
			sc->oom = true;
			free(name->text);
			return;
		}
		d->tables = p;
		d->cap = cap;
	}
	t = &d->tables[d->n];
	*t = (struct toml_table){ .name = name->text, .line = line, .col = col };
	name->text = NULL;
	sc->cur = d->n++;
}

void
toml_act_keyval(struct toml_scan *sc, struct toml_tok *key, uint32_t line, uint32_t col,
		struct toml_value *v)
{
	struct toml_table *t;

	if (sc->cur == SIZE_MAX || !v || !check_key(sc, key, key->quoted, line, col))
		goto drop;
	t = &sc->doc->tables[sc->cur];
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->entries[i].key, key->text) == 0) {
			toml_scan_error(sc, line, col, "key `%s` is defined twice (first at line %u)",
					key->text, t->entries[i].line);
			goto drop;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		struct toml_entry *p = realloc(t->entries, cap * sizeof(*p));

		if (!p) {
			sc->oom = true;
			goto drop;
		}
		t->entries = p;
		t->cap = cap;
	}
	t->entries[t->n++] = (struct toml_entry){ .key = key->text, .line = line, .col = col, .value = v };
	key->text = NULL;
	return;
drop:
	free(key->text);
	key->text = NULL;
	toml_value_free(v);
}

void
toml_doc_free(struct toml_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->n; i++) {
		struct toml_table *t = &doc->tables[i];

		for (size_t j = 0; j < t->n; j++) {
			free(t->entries[j].key);
			toml_value_free(t->entries[j].value);
		}
		free(t->entries);
		free(t->name);
	}
	free(doc->tables);
	free(doc);
}

int
toml_parse(struct diag_ctx *ctx, const struct diag_source *src, struct toml_doc **out)
{
	struct toml_scan sc = { .diag = ctx, .src = src, .line = 1, .col = 1 };
	yyscan_t scanner = NULL;
	struct toml_doc *d;
	int rc;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->src = src;
	d->cap = 4;
	d->tables = calloc(d->cap, sizeof(*d->tables));
	if (!d->tables) {
		free(d);
		return -ENOMEM;
	}
	d->n = 1; /* the root table */
	sc.doc = d;
	if (toml_yylex_init_extra(&sc, &scanner) != 0) {
		toml_doc_free(d);
		return -ENOMEM;
	}
	if (setjmp(sc.fatal) == 0) {
		toml_yy_scan_bytes(src->text, (int)src->len, scanner);
		if (toml_yyparse(scanner, &sc) == 2)
			sc.oom = true;
	}
	toml_yylex_destroy(scanner);
	*out = d;
	rc = sc.oom ? -ENOMEM : (sc.any_err || diag_error_count(ctx) ? -EINVAL : 0);
	return rc;
}

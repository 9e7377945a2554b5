/* SPDX-License-Identifier: MIT
 * Diagnostics store and renderer (see diag.h). */
#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct diag_ctx {
	struct diag_source **sources;
	size_t nsources, cap_sources;
	struct diag *diags;
	size_t ndiags, cap;
	size_t errors, warnings;
	int oom;
};

static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct diag_ctx *
diag_new(void)
{
	return calloc(1, sizeof(struct diag_ctx));
}

void
diag_free(struct diag_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->nsources; i++) {
		free(ctx->sources[i]->path);
		free(ctx->sources[i]->origin_name);
		free(ctx->sources[i]->text);
		free(ctx->sources[i]);
	}
	free(ctx->sources);
	for (size_t i = 0; i < ctx->ndiags; i++) {
		free(ctx->diags[i].message);
		free(ctx->diags[i].hint);
	}
	free(ctx->diags);
	free(ctx);
}

const struct diag_source *
diag_add_source(struct diag_ctx *ctx, const char *path, const char *origin_name,
		const char *text, size_t len)
{
	struct diag_source *src = calloc(1, sizeof(*src));
	struct diag_source **grown;

	if (!src)
		goto oom;
	src->path = strdup(path ? path : "<input>");
	src->origin_name = strdup(origin_name ? origin_name : src->path ? src->path : "");
	src->text = malloc(len + 1);
	if (!src->path || !src->origin_name || !src->text)
		goto oom;
	if (len)
		memcpy(src->text, text, len);
	src->text[len] = '\0';
	src->len = len;
	grown = grow_array(ctx->sources, &ctx->cap_sources, ctx->nsources + 1, sizeof(*grown), 0);
	if (!grown)
		goto oom;
	ctx->sources = grown;
	ctx->sources[ctx->nsources++] = src;
	return src;
oom:
	if (src) {
		free(src->path);
		free(src->origin_name);
		free(src->text);
		free(src);
	}
	ctx->oom = 1;
	return NULL;
}

void
diag_set_included(struct diag_ctx *ctx, const struct diag_source *src,
		  const struct diag_source *from, uint32_t line, uint32_t col,
		  int is_preset)
{
	/* Sources are handed out const so nobody else edits them; the
	 * owner looks its own copy up instead of casting the pointer. */
	for (size_t i = 0; i < ctx->nsources; i++) {
		if (ctx->sources[i] != src)
			continue;
		ctx->sources[i]->included_from = from;
		ctx->sources[i]->inc_line = line;
		ctx->sources[i]->inc_col = col;
		ctx->sources[i]->is_preset = is_preset;
		return;
	}
}

void
diag_vpush(struct diag_ctx *ctx, enum diag_severity sev,
	   const struct diag_loc *loc, const char *hint, const char *fmt,
	   va_list ap)
{
	struct diag *d, *grown;
	char *msg = NULL;

	grown = grow_array(ctx->diags, &ctx->cap, ctx->ndiags + 1, sizeof(*grown), 0);
	if (!grown) {
		ctx->oom = 1;
		return;
	}
	ctx->diags = grown;
	if (vasprintf(&msg, fmt, ap) < 0) {
		ctx->oom = 1;
		return;
	}
	d = &ctx->diags[ctx->ndiags++];
	d->severity = sev;
	if (loc)
		d->loc = *loc;
	else
		memset(&d->loc, 0, sizeof(d->loc));
	d->message = msg;
	d->hint = dup_or_null(hint);
	if (hint && !d->hint)
		ctx->oom = 1;
	if (sev == DIAG_ERROR)
		ctx->errors++;
	else if (sev == DIAG_WARNING)
		ctx->warnings++;
}

void
diag_push(struct diag_ctx *ctx, enum diag_severity sev,
	  const struct diag_loc *loc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vpush(ctx, sev, loc, hint, fmt, ap);
	va_end(ap);
}

size_t
diag_source_count(const struct diag_ctx *ctx)
{
	return ctx->nsources;
}

const struct diag_source *
diag_source_at(const struct diag_ctx *ctx, size_t i)
{
	return i < ctx->nsources ? ctx->sources[i] : NULL;
}

size_t
diag_error_count(const struct diag_ctx *ctx)
{
	return ctx->errors + (ctx->oom ? 1 : 0);
}

size_t
diag_warning_count(const struct diag_ctx *ctx)
{
	return ctx->warnings;
}

size_t
diag_count(const struct diag_ctx *ctx)
{
	return ctx->ndiags;
}

const struct diag *
diag_get(const struct diag_ctx *ctx, size_t i)
{
	return i < ctx->ndiags ? &ctx->diags[i] : NULL;
}

uint32_t
diag_column_of(const struct diag_source *src, size_t line_start_off, size_t off)
{
	uint32_t col = 1;

	for (size_t i = line_start_off; i < off && i < src->len; i++)
		if (((unsigned char)src->text[i] & 0xC0) != 0x80)
			col++;
	return col;
}

/* Finds the start and length of 1-based line `line`. */
static int
find_line(const struct diag_source *src, uint32_t line, size_t *start,
	  size_t *len)
{
	size_t off = 0;

	for (uint32_t l = 1; l < line; l++) {
		const char *nl = memchr(src->text + off, '\n', src->len - off);

		if (!nl)
			return -ENOENT;
		off = (size_t)(nl - src->text) + 1;
	}
	if (off > src->len)
		return -ENOENT;
	*start = off;
	*len = 0;
	while (off + *len < src->len && src->text[off + *len] != '\n')
		(*len)++;
	if (*len && src->text[off + *len - 1] == '\r')
		(*len)--;
	return 0;
}

static const char *
severity_name(enum diag_severity sev)
{
	switch (sev) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	default:
		return "note";
	}
}

static void
render_one(const struct diag *d, const struct diag *prev, const char *program, FILE *out)
{
	const struct diag_source *src = d->loc.src;
	size_t start, len;

	/* The include chain is printed once per run of diagnostics from the
	 * same included file, as compilers do. */
	if (src && src->included_from &&
	    !(prev && prev->loc.src == src && d->severity != DIAG_ERROR &&
	      d->severity != DIAG_WARNING)) {
		for (const struct diag_source *s = src; s->included_from;
		     s = s->included_from)
			fprintf(out, "in file included from %s:%u:%u\n",
				s->included_from->path, s->inc_line, s->inc_col);
	}
	if (src && d->loc.line)
		fprintf(out, "%s:%u:%u: %s: %s\n", src->path, d->loc.line,
			d->loc.col, severity_name(d->severity), d->message);
	else if (src)
		fprintf(out, "%s: %s: %s\n", src->path,
			severity_name(d->severity), d->message);
	else
		fprintf(out, "%s: %s: %s\n", program, severity_name(d->severity),
			d->message);
	if (src && d->loc.line && find_line(src, d->loc.line, &start, &len) == 0) {
		int width = fprintf(out, "%5u | ", d->loc.line) - 2;
		uint32_t col = 1;

		fwrite(src->text + start, 1, len, out);
		fputc('\n', out);
		fprintf(out, "%*s| ", width, "");
		/* Echo tabs as tabs so the caret lines up in any tab width. */
		for (size_t i = start; i < start + len && col < d->loc.col; i++) {
			unsigned char c = (unsigned char)src->text[i];

			if ((c & 0xC0) == 0x80)
				continue;
			fputc(c == '\t' ? '\t' : ' ', out);
			col++;
		}
		for (; col < d->loc.col; col++)
			fputc(' ', out);
		fputs("^\n", out);
	}
	/* A hint of several lines (two ways out) gets a `hint:` on each. */
	for (const char *h = d->hint; h && *h;) {
		size_t n = strcspn(h, "\n");

		fprintf(out, "  hint: %.*s\n", (int)n, h);
		h += n;
		h += *h == '\n';
	}
}

/* Where a diagnostic is, as a reader of the policy meets it: the file the
 * include chain starts from (in registration order: the top file, or a
 * base or protection set loaded on its own), then the position of each
 * include on the way down, then the line and column. A diagnostic of no
 * file comes after every located one. */
#define DIAG_CHAIN_MAX 64

struct diag_key {
	size_t root;
	size_t depth;
	uint32_t pos[DIAG_CHAIN_MAX + 1][2];
	size_t index; /* the group's place before sorting: ties keep it */
	size_t start, end;
};

static void
key_of(const struct diag_ctx *ctx, const struct diag *d, struct diag_key *k)
{
	const struct diag_source *chain[DIAG_CHAIN_MAX];
	const struct diag_source *s = d->loc.src;
	size_t n = 0;

	k->root = SIZE_MAX;
	k->depth = 0;
	if (!s)
		return;
	while (s->included_from && n < DIAG_CHAIN_MAX) {
		chain[n++] = s;
		s = s->included_from;
	}
	for (size_t i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i] == s) {
			k->root = i;
			break;
		}
	/* chain[n-1] was included from the root at its inc_line:inc_col. */
	while (n > 0) {
		n--;
		k->pos[k->depth][0] = chain[n]->inc_line;
		k->pos[k->depth][1] = chain[n]->inc_col;
		k->depth++;
	}
	k->pos[k->depth][0] = d->loc.line;
	k->pos[k->depth][1] = d->loc.col;
	k->depth++;
}

static int
cmp_key(const void *a, const void *b)
{
	const struct diag_key *x = a, *y = b;

	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	for (size_t i = 0; i < x->depth && i < y->depth; i++)
		for (int j = 0; j < 2; j++)
			if (x->pos[i][j] != y->pos[i][j])
				return x->pos[i][j] < y->pos[i][j] ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int
diag_sort(struct diag_ctx *ctx, size_t from)
{
	struct diag_key *keys;
	struct diag *sorted;
	size_t ngroups = 0, o = 0;

	if (from >= ctx->ndiags)
		return 0;
	keys = calloc(ctx->ndiags - from, sizeof(*keys));
	sorted = calloc(ctx->ndiags - from, sizeof(*sorted));
	if (!keys || !sorted) {
		free(keys);
		free(sorted);
		return -ENOMEM;
	}
	/* A note belongs to the error or warning before it and moves with it. */
	for (size_t i = from; i < ctx->ndiags;) {
		struct diag_key *k = &keys[ngroups];
		size_t end = i + 1;

		while (end < ctx->ndiags && ctx->diags[end].severity == DIAG_NOTE)
			end++;
		key_of(ctx, &ctx->diags[i], k);
		k->index = ngroups++;
		k->start = i;
		k->end = end;
		i = end;
	}
	qsort(keys, ngroups, sizeof(*keys), cmp_key);
	for (size_t g = 0; g < ngroups; g++)
		for (size_t i = keys[g].start; i < keys[g].end; i++)
			sorted[o++] = ctx->diags[i];
	memcpy(ctx->diags + from, sorted, o * sizeof(*sorted));
	free(keys);
	free(sorted);
	return 0;
}

void
diag_render_as(const struct diag_ctx *ctx, const char *program, FILE *out)
{
	for (size_t i = 0; i < ctx->ndiags; i++)
		render_one(&ctx->diags[i], i ? &ctx->diags[i - 1] : NULL, program, out);
	if (ctx->oom)
		fprintf(out, "%s: error: out of memory\n", program);
}

void
diag_render(const struct diag_ctx *ctx, FILE *out)
{
	diag_render_as(ctx, "heelc", out);
}

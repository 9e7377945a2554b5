/* SPDX-License-Identifier: MIT
 * Loading policy texts for sema: the top file, the files and stock presets
 * it includes (recursively, cycles refused, diamonds loaded once), the
 * embedded bases and protection sets. Each text is registered with the
 * diagnostics context so errors echo its lines and its include chain. */
#include "sema_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "grow.h"
#include "presets.h"
#include "readfile.h"
#include "crc32c.h"
#include "suggest.h"

static bool
is_base_name(const char *name)
{
	for (size_t i = 0; ir_isolation_names[i]; i++)
		if (strcmp(ir_isolation_names[i], name) == 0)
			return true;
	return false;
}

/* "a/b/c.heel" -> "a/b", "c.heel" -> "". */
static char *
dir_of(struct sema *s, const char *path)
{
	const char *slash = strrchr(path, '/');

	return sema_strndup(s, path, slash ? (size_t)(slash - path) + (slash == path) : 0);
}

/* Joins an include spec to the including file's directory: as written when
 * the spec is absolute or the directory is the current one. */
static char *
join(struct sema *s, const char *dir, const char *spec)
{
	char *out;

	if (spec[0] == '/' || !dir[0])
		return sema_strdup(s, spec);
	if (asprintf(&out, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", spec) < 0) {
		s->oom = true;
		return NULL;
	}
	return out;
}

/* Lexical clean-up of an origin name ("a/./b", "a/../b" -> "b"): origins
 * are labels in the artifact, never opened, so no link can change what
 * they mean; keeping them short and stable is all that matters. */
static char *
clean_origin(struct sema *s, const char *path)
{
	size_t len = strlen(path);
	char *out = malloc(len + 2);
	size_t *starts = calloc(len + 1, sizeof(*starts)); /* of each kept component */
	size_t o = 0, depth = 0, i = 0;
	bool abs = path[0] == '/';

	if (!out || !starts) {
		free(out);
		free(starts);
		s->oom = true;
		return NULL;
	}
	while (i < len) {
		size_t j = i;

		while (j < len && path[j] != '/')
			j++;
		if (j == i || (j - i == 1 && path[i] == '.')) {
			/* empty or "." component: nothing */
		} else if (j - i == 2 && path[i] == '.' && path[i + 1] == '.' &&
			   (abs || (depth && strcmp(out + starts[depth - 1], "..") != 0))) {
			if (depth)
				o = starts[--depth] ? starts[depth] - 1 : 0;
		} else {
			if (o || abs)
				out[o++] = '/';
			starts[depth++] = o;
			memcpy(out + o, path + i, j - i);
			o += j - i;
		}
		out[o] = '\0';
		i = j + 1;
	}
	if (abs && o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(starts);
	return out;
}

static struct sema_file *
new_file(struct sema *s)
{
	struct sema_file *f;
	struct sema_file **grown;

	f = calloc(1, sizeof(*f));
	grown = f ? grow_array(s->files, &s->cap_files, s->nfiles + 1, sizeof(*grown), 0) : NULL;
	if (!grown) {
		free(f);
		s->oom = true;
		return NULL;
	}
	s->files = grown;
	s->files[s->nfiles++] = f;
	return f;
}

/* Registers and parses a text. Parse errors are pushed by the parser. */
static int
parse_into(struct sema *s, struct sema_file *f, const char *path, const char *origin,
	   const char *text, size_t len)
{
	int rc;

	f->src = diag_add_source(s->ctx, path, origin, text, len);
	if (!f->src) {
		s->oom = true;
		return -ENOMEM;
	}
	f->origin = ir_intern(s->ir, origin);
	if (!f->origin) {
		s->oom = true;
		return -ENOMEM;
	}
	rc = parse_source(s->ctx, f->src, &f->ast);
	if (rc == -ENOMEM) {
		s->oom = true;
		return rc;
	}
	f->parse_failed = rc != 0;
	return 0;
}

int
load_version(const struct sema_file *f)
{
	const struct ast_stmt *first = f->ast ? f->ast->stmts : NULL;

	if (!first || first->kind != AST_HEEL)
		return 0;
	if (first->nargs == 1 && first->args[0].kind == AST_ARG_NUMBER &&
	    strcmp(first->args[0].text, "1") == 0)
		return 1;
	return -1;
}

static struct sema_include *
new_include(struct sema *s, struct sema_file *f, const struct ast_stmt *st)
{
	struct sema_include *grown =
		grow_array(f->incs, &f->cap_incs, f->nincs + 1, sizeof(*grown), 0);

	if (!grown) {
		s->oom = true;
		return NULL;
	}
	f->incs = grown;
	memset(&f->incs[f->nincs], 0, sizeof(f->incs[0]));
	f->incs[f->nincs].stmt = st;
	f->incs[f->nincs].loc = st->nargs ? st->args[0].loc : st->loc;
	return &f->incs[f->nincs++];
}

static void inc_error(struct sema *s, struct sema_include *inc, const char *hint, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

static void
inc_error(struct sema *s, struct sema_include *inc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	inc->status = SEMA_INC_ERROR;
	va_start(ap, fmt);
	if (vasprintf(&inc->message, fmt, ap) < 0) {
		inc->message = NULL;
		s->oom = true;
	}
	va_end(ap);
	if (hint) {
		inc->hint = strdup(hint);
		if (!inc->hint)
			s->oom = true;
	}
}

/* "include cycle: a.heel -> b.heel -> a.heel", from the first file of the
 * cycle down the include stack to `from`, then back to the target. */
static void
cycle_error(struct sema *s, struct sema_include *inc, struct sema_file *from,
	    struct sema_file *target)
{
	size_t n = 0, len = strlen("include cycle: ") + 1;
	struct sema_file **chain;
	char *msg;

	for (struct sema_file *f = from; f; f = f->includer) {
		n++;
		len += strlen(f->origin) + 4;
		if (f == target)
			break;
	}
	len += strlen(target->origin);
	chain = calloc(n, sizeof(*chain));
	msg = malloc(len);
	if (!chain || !msg) {
		free(chain);
		free(msg);
		s->oom = true;
		inc->status = SEMA_INC_ERROR;
		return;
	}
	n = 0;
	for (struct sema_file *f = from; f; f = f->includer) {
		chain[n++] = f;
		if (f == target)
			break;
	}
	strcpy(msg, "include cycle: ");
	while (n--) {
		strcat(msg, chain[n]->origin);
		strcat(msg, " -> ");
	}
	strcat(msg, target->origin);
	free(chain);
	inc->status = SEMA_INC_ERROR;
	inc->message = msg;
}

static void load_includes(struct sema *s, struct sema_file *f);

/* The names `include <name>` accepts: top-level policies that are not
 * bases (the protection sets and examples live in subdirectories). */
static const char **
preset_candidates(struct sema *s)
{
	const char **v = calloc(presets_count + 1, sizeof(*v));
	size_t n = 0;

	if (!v) {
		s->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < presets_count; i++)
		if (!strchr(presets_table[i].name, '/') && !is_base_name(presets_table[i].name))
			v[n++] = presets_table[i].name;
	return v;
}

/* Parses the text of an included file `t` (included by `f` at `st`) and
 * loads what it includes in turn. */
static void
parse_included(struct sema *s, struct sema_file *f, struct sema_file *t, const struct ast_stmt *st,
	       struct sema_include *inc, const char *path, const char *origin, const char *text,
	       size_t len)
{
	if (parse_into(s, t, path, origin, text, len) == 0) {
		diag_set_included(s->ctx, t->src, f->src, st->loc.line, st->loc.col, 0);
		inc->status = SEMA_INC_OK;
		inc->target = t;
		load_includes(s, t);
	} else {
		inc->status = SEMA_INC_DUPLICATE;
	}
}

/* The directory `make install` puts the stock policies in, where a site
 * may add presets of its own: `include <name>` finds NAME.heel there
 * when no embedded preset has that name. */
#ifndef HEEL_POLICY_DIR
#define HEEL_POLICY_DIR "/usr/local/share/heel/policies"
#endif

/* A preset from HEEL_POLICY_DIR: true when one was found (and loaded, or
 * an error reported), false to go on with "unknown preset". Only plain
 * names, and only a file nobody but its owner (root or the user) can
 * change: a preset is trusted like the stock ones. */
static bool
site_preset(struct sema *s, struct sema_file *f, const struct ast_stmt *st,
	    struct sema_include *inc, const char *name)
{
	char *path = NULL, *origin = NULL, *text = NULL;
	struct sema_file *t;
	struct stat sb;
	size_t len = 0;
	int rc;

	if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(name))
		return false;
	if (asprintf(&path, "%s/%s.heel", HEEL_POLICY_DIR, name) < 0) {
		s->oom = true;
		return true;
	}
	rc = rf_read_regular(path, &text, &len, &sb);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		free(path);
		return false;
	}
	if (rc) {
		inc_error(s, inc, NULL, "cannot read the preset `%s`: %s", path, rf_strerror(rc, &sb));
		goto out;
	}
	if ((sb.st_mode & 022) || (sb.st_uid != 0 && sb.st_uid != getuid())) {
		inc_error(s, inc, "only root or you may own it, and only the owner write it",
			  "the preset `%s` is not trusted: others can change it", path);
		goto out;
	}
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i]->preset && strcmp(s->files[i]->preset, name) == 0) {
			inc->status = SEMA_INC_DUPLICATE;
			goto out;
		}
	t = new_file(s);
	if (!t || asprintf(&origin, "<%s>", name) < 0) {
		s->oom = true;
		goto out;
	}
	t->source = IR_SRC_PRESET;
	t->preset = sema_strdup(s, name);
	t->dir = sema_strdup(s, HEEL_POLICY_DIR);
	t->origin_dir = sema_strdup(s, "");
	t->includer = f;
	parse_included(s, f, t, st, inc, path, origin, text, len);
out:
	free(path);
	free(origin);
	free(text);
	return true;
}

static void
include_preset(struct sema *s, struct sema_file *f, const struct ast_stmt *st,
	       struct sema_include *inc)
{
	const char *name = st->args[0].text;
	const struct preset *p = NULL;
	struct sema_file *t;
	char *display;

	if (is_base_name(name)) {
		char hint[64];

		snprintf(hint, sizeof(hint), "choose a base with `isolation %s`", name);
		inc_error(s, inc, hint, "`<%s>` is an isolation base, not a preset", name);
		return;
	}
	if (!strchr(name, '/'))
		p = presets_find(name);
	if (!p && site_preset(s, f, st, inc, name))
		return;
	if (!p) {
		const char **cands = preset_candidates(s);
		const char *near = cands ? suggest_word(name, cands) : NULL;
		char hint[512];

		if (near) {
			snprintf(hint, sizeof(hint), "did you mean `<%s>`?", near);
		} else {
			size_t o = (size_t)snprintf(hint, sizeof(hint), "stock presets:");

			for (size_t i = 0; cands && cands[i] && o < sizeof(hint); i++)
				o += (size_t)snprintf(hint + o, sizeof(hint) - o, "%s <%s>",
						      i ? "," : "", cands[i]);
		}
		inc_error(s, inc, hint, "unknown preset `<%s>`", name);
		free(cands);
		return;
	}
	for (struct sema_file *up = f; up; up = up->includer)
		if (up->preset && strcmp(up->preset, name) == 0) {
			cycle_error(s, inc, f, up);
			return;
		}
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i]->preset && strcmp(s->files[i]->preset, name) == 0) {
			inc->status = SEMA_INC_DUPLICATE;
			return;
		}
	t = new_file(s);
	if (!t)
		return;
	if (asprintf(&display, "<%s>", name) < 0) {
		s->oom = true;
		return;
	}
	t->embedded = true;
	t->source = IR_SRC_PRESET;
	t->preset = sema_strdup(s, name);
	t->dir = sema_strdup(s, "");
	t->origin_dir = sema_strdup(s, "");
	t->includer = f;
	if (parse_into(s, t, display, display, p->text, p->len) == 0) {
		diag_set_included(s->ctx, t->src, f->src, st->loc.line, st->loc.col, 1);
		inc->status = SEMA_INC_OK;
		inc->target = t;
		load_includes(s, t);
	} else {
		inc->status = SEMA_INC_DUPLICATE;
	}
	free(display);
}

static void
include_file(struct sema *s, struct sema_file *f, const struct ast_stmt *st,
	     struct sema_include *inc)
{
	const struct ast_arg *a = &st->args[0];
	char *path = NULL, *origin_raw = NULL, *origin = NULL, *text = NULL;
	struct sema_file *t;
	struct stat sb;
	size_t len = 0;
	int rc;

	if (f->embedded) {
		inc_error(s, inc, "write `include <name>`",
			  "an embedded policy can only include stock presets");
		return;
	}
	if (a->len == 0 || strlen(a->text) != a->len) {
		inc_error(s, inc, NULL, "an include path cannot be empty or hold a NUL");
		return;
	}
	path = join(s, f->dir, a->text);
	origin_raw = join(s, f->origin_dir, a->text);
	origin = origin_raw ? clean_origin(s, origin_raw) : NULL;
	if (!path || !origin)
		goto out;
	rc = rf_read_regular(path, &text, &len, &sb);
	if (rc == -ENOMEM) {
		s->oom = true;
		goto out;
	}
	if (rc) {
		inc_error(s, inc, NULL, "cannot read included file `%s`: %s", path,
			  rf_strerror(rc, &sb));
		goto out;
	}
	if (rf_content_kind(text, len) != RF_TEXT) {
		inc_error(s, inc, NULL, "included file `%s` is %s, not a policy", path,
			  rf_content_kind(text, len) == RF_ARTIFACT ? "a compiled artifact"
								    : "binary (it holds a NUL byte)");
		goto out;
	}
	for (struct sema_file *up = f; up; up = up->includer)
		if (up->has_id && up->dev == sb.st_dev && up->ino == sb.st_ino) {
			cycle_error(s, inc, f, up);
			goto out;
		}
	/* A diamond: the same file (by identity, however it was spelt)
	 * reached again adds nothing, so it is loaded once. */
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i]->has_id && s->files[i]->dev == sb.st_dev &&
		    s->files[i]->ino == sb.st_ino) {
			inc->status = SEMA_INC_DUPLICATE;
			goto out;
		}
	t = new_file(s);
	if (!t)
		goto out;
	t->source = IR_SRC_USER;
	t->has_id = true;
	t->dev = sb.st_dev;
	t->ino = sb.st_ino;
	t->dir = dir_of(s, path);
	t->origin_dir = dir_of(s, origin);
	t->includer = f;
	parse_included(s, f, t, st, inc, path, origin, text, len);
out:
	free(path);
	free(origin_raw);
	free(origin);
	free(text);
}

/* Only top-level includes are followed: one inside `on` is an error that
 * evaluation reports, and a file whose version is not 1 is not read on.
 * The include stack is the chain of `includer`s, which is what cycles
 * are looked for in. */
static void
load_includes(struct sema *s, struct sema_file *f)
{
	if (!f->ast || load_version(f) < 0)
		return;
	for (const struct ast_stmt *st = f->ast->stmts; st && !s->oom; st = st->next) {
		struct sema_include *inc;

		if (st->kind != AST_INCLUDE)
			continue;
		inc = new_include(s, f, st);
		if (!inc)
			break;
		if (st->nargs != 1) {
			inc_error(s, inc, NULL, "`include` takes one file or preset name");
			continue;
		}
		if (st->args[0].kind == AST_ARG_ANGLE)
			include_preset(s, f, st, inc);
		else if (st->args[0].kind == AST_ARG_STRING)
			include_file(s, f, st, inc);
		else
			inc_error(s, inc, "write `include \"file.heel\"` or `include <preset>`",
				  "`include` takes a quoted file name or a <preset>");
	}
}

/* One line for a top file that is not policy text, instead of a lexer
 * error for each of its lines. An artifact given where its source was
 * meant is the usual slip; explain reads it. */
static void
not_text(struct sema *s, const char *path, enum rf_content kind)
{
	const struct diag_source *src = diag_add_source(s->ctx, path, path, "", 0);
	struct diag_loc at = {.src = src};

	if (!src) {
		s->oom = true;
		return;
	}
	if (kind == RF_ARTIFACT)
		diag_push(s->ctx, DIAG_ERROR, &at, NULL,
			  "this is a compiled artifact; did you mean `heelc explain %s`?", path);
	else
		diag_push(s->ctx, DIAG_ERROR, &at, NULL,
			  "this is a binary file (it holds a NUL byte), not a policy");
}

int
load_top(struct sema *s)
{
	const struct sema_options *o = s->opts;
	const char *path = o->path ? o->path : "<input>";
	const char *base;
	char *text = NULL;
	size_t len;
	struct sema_file *f;
	struct stat sb;
	int rc;

	if (o->text) {
		text = malloc(o->len + 1);
		if (!text) {
			s->oom = true;
			return -ENOMEM;
		}
		memcpy(text, o->text, o->len);
		text[o->len] = '\0';
		len = o->len;
		/* The text may be an editor buffer of a file on disk: knowing
		 * that file lets a self-include be seen as a cycle. */
		rc = o->path && stat(o->path, &sb) == 0 ? 0 : -1;
	} else {
		rc = rf_read_regular(path, &text, &len, &sb);
		if (rc == -ENOMEM) {
			s->oom = true;
			return rc;
		}
		if (rc) {
			diag_push(s->ctx, DIAG_ERROR, NULL, NULL, "cannot read %s: %s", path,
				  rf_strerror(rc, &sb));
			return -EIO;
		}
	}
	if (rf_content_kind(text, len) != RF_TEXT) {
		not_text(s, path, rf_content_kind(text, len));
		free(text);
		return -EINVAL;
	}
	f = new_file(s);
	if (!f) {
		free(text);
		return -ENOMEM;
	}
	f->source = IR_SRC_USER;
	if (rc == 0) {
		f->has_id = true;
		f->dev = sb.st_dev;
		f->ino = sb.st_ino;
	}
	/* Origins are relative to the top file's directory, so the top file
	 * is known by its base name and an artifact does not depend on where
	 * the sources were checked out. */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	f->dir = dir_of(s, path);
	f->origin_dir = sema_strdup(s, "");
	/* What heel-exec compares with the file beside the artifact: the
	 * bytes read, so any edit shows, layout included. */
	if (o->path) {
		s->ir->source_name = ir_intern(s->ir, base);
		if (!s->ir->source_name)
			s->oom = true;
		s->ir->source_size = len;
		s->ir->source_crc = crc32c_buf(text, len);
	}
	rc = parse_into(s, f, path, base, text, len);
	free(text);
	if (rc)
		return rc;
	load_includes(s, f);
	return s->oom ? -ENOMEM : 0;
}

struct sema_file *
load_embedded(struct sema *s, const char *name, uint8_t source)
{
	const struct preset *p = presets_find(name);
	struct sema_file *f;
	char *display;

	if (!p)
		return NULL;
	f = new_file(s);
	if (!f)
		return NULL;
	if (asprintf(&display, "<%s>", name) < 0) {
		s->oom = true;
		return NULL;
	}
	f->embedded = true;
	f->source = source;
	f->preset = sema_strdup(s, name);
	f->dir = sema_strdup(s, "");
	f->origin_dir = sema_strdup(s, "");
	if (parse_into(s, f, display, display, p->text, p->len) == 0)
		diag_set_included(s->ctx, f->src, NULL, 0, 0, 1);
	free(display);
	if (s->oom)
		return NULL;
	load_includes(s, f);
	return f;
}

void
load_free(struct sema *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		struct sema_file *f = s->files[i];

		ast_file_free(f->ast);
		free(f->dir);
		free(f->origin_dir);
		free(f->preset);
		for (size_t j = 0; j < f->nincs; j++) {
			free(f->incs[j].message);
			free(f->incs[j].hint);
		}
		free(f->incs);
		free(f);
	}
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
	s->cap_files = 0;
}

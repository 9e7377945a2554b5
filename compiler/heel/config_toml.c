/* SPDX-License-Identifier: MIT
 * The original heel's TOML configuration keys -> settings.
 *
 *   isolation = "default"          network = "allow-list"
 *   allow-domains = ["*.crates.io"] audit-log = "./run.jsonl"
 *   readable/writable/executable = ["path", ...]
 *   allow-gpu = true               nice = 10
 *   io-priority = "background"     working-dir = "./out"
 *   keep-working-dir = true        env = ["LANG", "NAME=value"]
 *   presets = ["python", "git"]    allow-private = true
 *   [grants]      "path" = "rwx"
 *   [protections] credentials = true
 *   [limits]      memory = "2GiB"  cpu = "60s"  processes = 256 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_toml.h"
#include "readfile.h"
#include "toml.h"
#include "values.h"

struct cfg {
	struct diag_ctx *ctx;
	const struct diag_source *src;
	struct settings *s;
	bool err;
	bool oom;
};

static void __attribute__((format(printf, 4, 5)))
cfg_error(struct cfg *c, uint32_t line, uint32_t col, const char *fmt, ...)
{
	struct diag_loc loc = { c->src, line, col };
	va_list ap;

	va_start(ap, fmt);
	diag_vpush(c->ctx, DIAG_ERROR, &loc, NULL, fmt, ap);
	va_end(ap);
	c->err = true;
}

/* "FILE:LINE:COL", the origin recorded with each setting. */
static void
origin_of(const struct cfg *c, uint32_t line, uint32_t col, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u:%u", c->src->path, line, col);
}

static void
track(struct cfg *c, int r)
{
	if (r == -ENOMEM)
		c->oom = true;
}

static bool
want(struct cfg *c, const struct toml_entry *e, enum toml_type type)
{
	if (e->value->type == type)
		return true;
	cfg_error(c, e->value->line, e->value->col, "`%s` takes %s, not %s", e->key,
		  toml_type_name(type), toml_type_name(e->value->type));
	return false;
}

typedef int (*value_fn)(const char *, char *, size_t, char *, size_t);

static void
scalar_checked(struct cfg *c, const struct toml_entry *e, struct settings_scalar *slot, value_fn fn)
{
	char out[256], why[300], origin[512];

	if (!want(c, e, TOML_T_STRING))
		return;
	if (fn(e->value->str, out, sizeof(out), why, sizeof(why)) < 0) {
		cfg_error(c, e->value->line, e->value->col, "%s: %s", e->key, why);
		return;
	}
	origin_of(c, e->line, e->col, origin, sizeof(origin));
	track(c, settings_set_scalar(slot, out, origin));
}

static void
path_scalar(struct cfg *c, const struct toml_entry *e, struct settings_scalar *slot)
{
	char origin[512];

	if (!want(c, e, TOML_T_STRING))
		return;
	if (!e->value->str[0]) {
		cfg_error(c, e->value->line, e->value->col, "`%s` cannot be empty", e->key);
		return;
	}
	origin_of(c, e->line, e->col, origin, sizeof(origin));
	track(c, settings_set_scalar(slot, e->value->str, origin));
}

static void
flag(struct cfg *c, const struct toml_entry *e, struct settings_flag *slot)
{
	char origin[512];

	if (!want(c, e, TOML_T_BOOL))
		return;
	origin_of(c, e->line, e->col, origin, sizeof(origin));
	track(c, settings_set_flag(slot, e->value->b, origin));
}

/* An array of strings: each item's origin is its own line. */
static bool
string_items(struct cfg *c, const struct toml_entry *e)
{
	if (!want(c, e, TOML_T_ARRAY))
		return false;
	for (size_t i = 0; i < e->value->nitems; i++) {
		const struct toml_value *v = e->value->items[i];

		if (v->type != TOML_T_STRING) {
			cfg_error(c, v->line, v->col, "`%s` holds strings, not %s", e->key,
				  toml_type_name(v->type));
			return false;
		}
	}
	return true;
}

static void
path_list(struct cfg *c, const struct toml_entry *e, const char *mode)
{
	char origin[512];

	if (!string_items(c, e))
		return;
	for (size_t i = 0; i < e->value->nitems; i++) {
		const struct toml_value *v = e->value->items[i];

		if (!v->str[0]) {
			cfg_error(c, v->line, v->col, "a path cannot be empty");
			continue;
		}
		origin_of(c, v->line, v->col, origin, sizeof(origin));
		track(c, settings_add_grant(c->s, v->str, mode, origin));
	}
}

static void
domains(struct cfg *c, const struct toml_entry *e)
{
	char origin[512];

	if (!string_items(c, e))
		return;
	for (size_t i = 0; i < e->value->nitems; i++) {
		origin_of(c, e->value->items[i]->line, e->value->items[i]->col, origin, sizeof(origin));
		track(c, settings_add_domain(c->s, e->value->items[i]->str, origin));
	}
}

static void
env_list(struct cfg *c, const struct toml_entry *e)
{
	char origin[512];

	if (!string_items(c, e))
		return;
	for (size_t i = 0; i < e->value->nitems; i++) {
		const struct toml_value *v = e->value->items[i];
		char *eq = strchr(v->str, '='), name[256];
		size_t n = eq ? (size_t)(eq - v->str) : strlen(v->str);

		if (n >= sizeof(name)) {
			cfg_error(c, v->line, v->col, "this variable name is too long");
			continue;
		}
		memcpy(name, v->str, n);
		name[n] = '\0';
		if (!values_env_name(name)) {
			cfg_error(c, v->line, v->col, "`%s` is not a variable name ([A-Za-z_][A-Za-z0-9_]*); "
				  "write \"NAME\" to pass it through or \"NAME=value\" to set it", name);
			continue;
		}
		origin_of(c, v->line, v->col, origin, sizeof(origin));
		track(c, settings_add_env(c->s, name, eq ? eq + 1 : NULL, origin));
	}
}

static void
preset_list(struct cfg *c, const struct toml_entry *e)
{
	char origin[512], why[400];

	if (!string_items(c, e))
		return;
	for (size_t i = 0; i < e->value->nitems; i++) {
		const struct toml_value *v = e->value->items[i];

		if (values_preset(v->str, why, sizeof(why)) < 0) {
			cfg_error(c, v->line, v->col, "%s", why);
			continue;
		}
		origin_of(c, v->line, v->col, origin, sizeof(origin));
		track(c, settings_add_preset(c->s, v->str, origin));
	}
}

static void
nice_key(struct cfg *c, const struct toml_entry *e)
{
	char text[32], out[32], why[200], origin[512];

	if (!want(c, e, TOML_T_INT))
		return;
	snprintf(text, sizeof(text), "%" PRId64, e->value->num);
	if (values_nice(text, out, sizeof(out), why, sizeof(why)) < 0) {
		cfg_error(c, e->value->line, e->value->col, "nice: %s", why);
		return;
	}
	origin_of(c, e->line, e->col, origin, sizeof(origin));
	track(c, settings_set_scalar(&c->s->nice, out, origin));
}

static const char *const root_keys[] = {
	"isolation", "network", "allow-domains", "audit-log", "readable", "writable", "executable",
	"allow-gpu", "nice", "io-priority", "working-dir", "keep-working-dir", "env", "tool-caches",
	"presets", "allow-private", NULL,
};

static void
unknown_key(struct cfg *c, const struct toml_entry *e, const char *table,
	    const char *const *known)
{
	char list[600];
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; known[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", known[i]);
	cfg_error(c, e->line, e->col, "unknown key `%s`%s%s%s; known keys: %s", e->key,
		  table ? " in [" : "", table ? table : "", table ? "]" : "", list);
}

static void
root_entry(struct cfg *c, const struct toml_entry *e)
{
	const char *k = e->key;

	if (strcmp(k, "isolation") == 0)
		scalar_checked(c, e, &c->s->isolation, values_isolation);
	else if (strcmp(k, "network") == 0)
		scalar_checked(c, e, &c->s->network, values_network);
	else if (strcmp(k, "allow-domains") == 0)
		domains(c, e);
	else if (strcmp(k, "audit-log") == 0)
		path_scalar(c, e, &c->s->audit_log);
	else if (strcmp(k, "readable") == 0)
		path_list(c, e, "r");
	else if (strcmp(k, "writable") == 0)
		path_list(c, e, "rw");
	else if (strcmp(k, "executable") == 0)
		path_list(c, e, "rx");
	else if (strcmp(k, "allow-gpu") == 0)
		flag(c, e, &c->s->gpu);
	else if (strcmp(k, "nice") == 0)
		nice_key(c, e);
	else if (strcmp(k, "io-priority") == 0)
		scalar_checked(c, e, &c->s->io_priority, values_io_priority);
	else if (strcmp(k, "working-dir") == 0)
		path_scalar(c, e, &c->s->working_dir);
	else if (strcmp(k, "keep-working-dir") == 0)
		flag(c, e, &c->s->keep_working_dir);
	else if (strcmp(k, "env") == 0)
		env_list(c, e);
	else if (strcmp(k, "tool-caches") == 0)
		flag(c, e, &c->s->tool_caches);
	else if (strcmp(k, "presets") == 0)
		preset_list(c, e);
	else if (strcmp(k, "allow-private") == 0)
		flag(c, e, &c->s->allow_private);
	else
		unknown_key(c, e, NULL, root_keys);
}

static void
grants_table(struct cfg *c, const struct toml_table *t)
{
	char origin[512];

	for (size_t i = 0; i < t->n; i++) {
		const struct toml_entry *e = &t->entries[i];
		const char *why = NULL, *mode;

		if (!want(c, e, TOML_T_STRING))
			continue;
		if (!e->key[0]) {
			cfg_error(c, e->line, e->col, "a path cannot be empty");
			continue;
		}
		mode = settings_mode_canonical(e->value->str, &why);
		if (!mode) {
			cfg_error(c, e->value->line, e->value->col, "`%s`: %s", e->value->str, why);
			continue;
		}
		origin_of(c, e->line, e->col, origin, sizeof(origin));
		track(c, settings_add_grant(c->s, e->key, mode, origin));
	}
}

static void
protections_table(struct cfg *c, const struct toml_table *t)
{
	const char *known[SET_COUNT + 1] = { NULL };

	for (int i = 0; i < SET_COUNT; i++)
		known[i] = settings_set_name((enum settings_set)i);
	for (size_t i = 0; i < t->n; i++) {
		const struct toml_entry *e = &t->entries[i];
		int set = settings_set_from_name(e->key);

		if (set < 0)
			unknown_key(c, e, "protections", known);
		else
			flag(c, e, &c->s->protect[set]);
	}
}

static void
limits_table(struct cfg *c, const struct toml_table *t)
{
	const char *known[LIM_COUNT + 1] = { NULL };
	char text[64], out[96], why[300], origin[512];

	for (int i = 0; i < LIM_COUNT; i++)
		known[i] = settings_limit_name((enum settings_limit)i);
	for (size_t i = 0; i < t->n; i++) {
		const struct toml_entry *e = &t->entries[i];
		int lim = settings_limit_from_name(e->key);

		if (lim < 0) {
			unknown_key(c, e, "limits", known);
			continue;
		}
		if (e->value->type == TOML_T_INT) {
			if (e->value->num < 0) {
				cfg_error(c, e->value->line, e->value->col, "a limit cannot be negative");
				continue;
			}
			snprintf(text, sizeof(text), "%" PRId64, e->value->num);
		} else if (e->value->type == TOML_T_STRING) {
			snprintf(text, sizeof(text), "%s", e->value->str);
		} else {
			cfg_error(c, e->value->line, e->value->col, "`%s` takes a number or a string such "
				  "as \"2GiB\" or \"60s\", not %s", e->key, toml_type_name(e->value->type));
			continue;
		}
		if (values_limit((enum settings_limit)lim, text, out, sizeof(out), why, sizeof(why)) < 0) {
			cfg_error(c, e->value->line, e->value->col, "%s: %s", e->key, why);
			continue;
		}
		origin_of(c, e->line, e->col, origin, sizeof(origin));
		track(c, settings_set_scalar(&c->s->limits[lim], out, origin));
	}
}

int
config_toml_parse(struct diag_ctx *ctx, const char *path, const char *text, size_t len,
		  struct settings *out)
{
	const struct diag_source *src;
	struct toml_doc *doc = NULL;
	struct cfg c = { .ctx = ctx, .s = out };
	int r;

	*out = (struct settings){ 0 };
	src = diag_add_source(ctx, path, path, text, len);
	if (!src)
		return -ENOMEM;
	c.src = src;
	r = toml_parse(ctx, src, &doc);
	if (r == -ENOMEM) {
		toml_doc_free(doc);
		return r;
	}
	for (size_t i = 0; i < doc->tables[0].n; i++)
		root_entry(&c, &doc->tables[0].entries[i]);
	for (size_t i = 1; i < doc->n; i++) {
		const struct toml_table *t = &doc->tables[i];

		if (strcmp(t->name, "grants") == 0) {
			grants_table(&c, t);
		} else if (strcmp(t->name, "protections") == 0) {
			protections_table(&c, t);
		} else if (strcmp(t->name, "limits") == 0) {
			limits_table(&c, t);
		} else {
			cfg_error(&c, t->line, t->col, "unknown table [%s]; known tables: [grants], "
				  "[protections], [limits]", t->name);
		}
	}
	toml_doc_free(doc);
	if (c.oom)
		return -ENOMEM;
	return r || c.err ? -EINVAL : 0;
}

int
config_toml_read(struct diag_ctx *ctx, const char *path, struct settings *out)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	*out = (struct settings){ 0 };
	r = rf_read_regular(path, &text, &len, &st);
	if (r) {
		struct diag_loc loc = { NULL, 0, 0 };

		if (r == -ENOMEM)
			return r;
		diag_push(ctx, DIAG_ERROR, &loc, NULL, "cannot read the configuration %s: %s", path,
			  rf_strerror(r, &st));
		return -EIO;
	}
	if (rf_content_kind(text, len) != RF_TEXT) {
		struct diag_loc loc = { NULL, 0, 0 };

		diag_push(ctx, DIAG_ERROR, &loc, NULL, "%s is not a text file%s", path,
			  rf_content_kind(text, len) == RF_ARTIFACT
				  ? " but a compiled artifact: give it with --policy"
				  : "");
		free(text);
		return -EINVAL;
	}
	r = config_toml_parse(ctx, path, text, len, out);
	free(text);
	return r;
}

/* SPDX-License-Identifier: MIT
 * The settings `heel run` is asked for, and the original heel's
 * precedence between a configuration file and the command line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

static const char *const set_names[SET_COUNT] = {
	[SET_USER_HOME] = "user-home",
	[SET_CREDENTIALS] = "credentials",
	[SET_CLOUD_CONFIG] = "cloud-config",
	[SET_BROWSER_DATA] = "browser-data",
	[SET_KEYCHAINS] = "keychains",
	[SET_SHELL_HISTORY] = "shell-history",
	[SET_PACKAGE_CREDENTIALS] = "package-credentials",
	[SET_SHARED_TEMP] = "shared-temp",
	[SET_HOST_RUN] = "host-run",
};

static const char *const limit_names[LIM_COUNT] = {
	[LIM_MEMORY] = "memory",
	[LIM_CPU] = "cpu",
	[LIM_PROCESSES] = "processes",
	[LIM_OPEN_FILES] = "open-files",
	[LIM_FILE_SIZE] = "file-size",
	[LIM_STACK] = "stack",
	[LIM_CORE] = "core",
};

const char *
settings_set_name(enum settings_set set)
{
	return set < SET_COUNT ? set_names[set] : NULL;
}

const char *
settings_limit_name(enum settings_limit lim)
{
	return lim < LIM_COUNT ? limit_names[lim] : NULL;
}

int
settings_set_from_name(const char *name)
{
	for (int i = 0; i < SET_COUNT; i++)
		if (strcmp(name, set_names[i]) == 0)
			return i;
	return -1;
}

int
settings_limit_from_name(const char *name)
{
	for (int i = 0; i < LIM_COUNT; i++)
		if (strcmp(name, limit_names[i]) == 0)
			return i;
	return -1;
}

/* strdup that keeps NULL as NULL; *failed set on out-of-memory. */
static char *
dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = true;
	return d;
}

int
settings_set_scalar(struct settings_scalar *s, const char *value, const char *origin)
{
	bool failed = false;
	char *v = dup_or_null(value, &failed), *o = dup_or_null(origin, &failed);

	if (failed) {
		free(v);
		free(o);
		return -ENOMEM;
	}
	free(s->value);
	free(s->origin);
	s->value = v;
	s->origin = o;
	return 0;
}

int
settings_set_flag(struct settings_flag *f, bool on, const char *origin)
{
	bool failed = false;
	char *o = dup_or_null(origin, &failed);

	if (failed)
		return -ENOMEM;
	free(f->origin);
	f->on = on ? TRI_ON : TRI_OFF;
	f->origin = o;
	return 0;
}

/* Grows *arr (of *n elements of `size` bytes) by one zeroed element. */
static void *
grow_one(void **arr, size_t *n, size_t size)
{
	char *p = realloc(*arr, (*n + 1) * size);

	if (!p)
		return NULL;
	memset(p + *n * size, 0, size);
	*arr = p;
	return p + (*n)++ * size;
}

int
settings_add_grant(struct settings *s, const char *path, const char *mode, const char *origin)
{
	bool failed = false;
	struct settings_grant g = {
		dup_or_null(path, &failed), dup_or_null(mode, &failed), dup_or_null(origin, &failed)
	};
	struct settings_grant *slot;

	if (!failed && (slot = grow_one((void **)&s->grants, &s->ngrants, sizeof(g)))) {
		*slot = g;
		return 0;
	}
	free(g.path);
	free(g.mode);
	free(g.origin);
	return -ENOMEM;
}

int
settings_add_env(struct settings *s, const char *name, const char *value, const char *origin)
{
	bool failed = false;
	struct settings_env e = {
		dup_or_null(name, &failed), dup_or_null(value, &failed), dup_or_null(origin, &failed)
	};
	struct settings_env *slot;

	if (!failed && (slot = grow_one((void **)&s->env, &s->nenv, sizeof(e)))) {
		*slot = e;
		return 0;
	}
	free(e.name);
	free(e.value);
	free(e.origin);
	return -ENOMEM;
}

int
settings_add_domain(struct settings *s, const char *pattern, const char *origin)
{
	bool failed = false;
	struct settings_domain d = { dup_or_null(pattern, &failed), dup_or_null(origin, &failed) };
	struct settings_domain *slot;

	if (!failed && (slot = grow_one((void **)&s->domains, &s->ndomains, sizeof(d)))) {
		*slot = d;
		return 0;
	}
	free(d.pattern);
	free(d.origin);
	return -ENOMEM;
}

int
settings_add_preset(struct settings *s, const char *name, const char *origin)
{
	bool failed = false;
	struct settings_preset p = { dup_or_null(name, &failed), dup_or_null(origin, &failed) };
	struct settings_preset *slot;

	if (!failed && (slot = grow_one((void **)&s->presets, &s->npresets, sizeof(p)))) {
		*slot = p;
		return 0;
	}
	free(p.name);
	free(p.origin);
	return -ENOMEM;
}

static int
merge_scalar(const struct settings_scalar *base, const struct settings_scalar *top,
	     struct settings_scalar *out)
{
	const struct settings_scalar *w = top->value ? top : base;

	return w->value ? settings_set_scalar(out, w->value, w->origin) : 0;
}

static int
merge_flag(const struct settings_flag *base, const struct settings_flag *top,
	   struct settings_flag *out)
{
	const struct settings_flag *w = top->on != TRI_UNSET ? top : base;

	return w->on != TRI_UNSET ? settings_set_flag(out, w->on == TRI_ON, w->origin) : 0;
}

static int
merge_lists(const struct settings *from, struct settings *out)
{
	int r = 0;

	for (size_t i = 0; !r && i < from->ndomains; i++)
		r = settings_add_domain(out, from->domains[i].pattern, from->domains[i].origin);
	for (size_t i = 0; !r && i < from->ngrants; i++)
		r = settings_add_grant(out, from->grants[i].path, from->grants[i].mode,
				       from->grants[i].origin);
	for (size_t i = 0; !r && i < from->nenv; i++)
		r = settings_add_env(out, from->env[i].name, from->env[i].value, from->env[i].origin);
	for (size_t i = 0; !r && i < from->npresets; i++)
		r = settings_add_preset(out, from->presets[i].name, from->presets[i].origin);
	return r;
}

int
settings_merge(const struct settings *base, const struct settings *top, struct settings *out)
{
	int r = 0;

	*out = (struct settings){ 0 };
	r = r ? r : merge_scalar(&base->isolation, &top->isolation, &out->isolation);
	r = r ? r : merge_scalar(&base->network, &top->network, &out->network);
	r = r ? r : merge_scalar(&base->audit_log, &top->audit_log, &out->audit_log);
	r = r ? r : merge_scalar(&base->nice, &top->nice, &out->nice);
	r = r ? r : merge_scalar(&base->io_priority, &top->io_priority, &out->io_priority);
	r = r ? r : merge_scalar(&base->working_dir, &top->working_dir, &out->working_dir);
	for (int i = 0; !r && i < LIM_COUNT; i++)
		r = merge_scalar(&base->limits[i], &top->limits[i], &out->limits[i]);
	for (int i = 0; !r && i < SET_COUNT; i++)
		r = merge_flag(&base->protect[i], &top->protect[i], &out->protect[i]);
	r = r ? r : merge_flag(&base->gpu, &top->gpu, &out->gpu);
	r = r ? r : merge_flag(&base->allow_private, &top->allow_private, &out->allow_private);
	r = r ? r : merge_flag(&base->keep_working_dir, &top->keep_working_dir, &out->keep_working_dir);
	r = r ? r : merge_flag(&base->tool_caches, &top->tool_caches, &out->tool_caches);
	r = r ? r : merge_lists(base, out);
	r = r ? r : merge_lists(top, out);
	if (r)
		settings_free(out);
	return r;
}

static void
free_scalar(struct settings_scalar *s)
{
	free(s->value);
	free(s->origin);
}

void
settings_free(struct settings *s)
{
	free_scalar(&s->isolation);
	free_scalar(&s->network);
	free_scalar(&s->audit_log);
	free_scalar(&s->nice);
	free_scalar(&s->io_priority);
	free_scalar(&s->working_dir);
	for (int i = 0; i < LIM_COUNT; i++)
		free_scalar(&s->limits[i]);
	for (int i = 0; i < SET_COUNT; i++)
		free(s->protect[i].origin);
	free(s->gpu.origin);
	free(s->allow_private.origin);
	free(s->keep_working_dir.origin);
	free(s->tool_caches.origin);
	for (size_t i = 0; i < s->npresets; i++) {
		free(s->presets[i].name);
		free(s->presets[i].origin);
	}
	free(s->presets);
	for (size_t i = 0; i < s->ndomains; i++) {
		free(s->domains[i].pattern);
		free(s->domains[i].origin);
	}
	free(s->domains);
	for (size_t i = 0; i < s->ngrants; i++) {
		free(s->grants[i].path);
		free(s->grants[i].mode);
		free(s->grants[i].origin);
	}
	free(s->grants);
	for (size_t i = 0; i < s->nenv; i++) {
		free(s->env[i].name);
		free(s->env[i].value);
		free(s->env[i].origin);
	}
	free(s->env);
	*s = (struct settings){ 0 };
}

const char *
settings_mode_canonical(const char *letters, const char **why)
{
	bool r = false, w = false, x = false;

	if (!letters[0]) {
		*why = "a mode is r, rw, rx or rwx";
		return NULL;
	}
	for (const char *p = letters; *p; p++) {
		bool *bit = *p == 'r' ? &r : *p == 'w' ? &w : *p == 'x' ? &x : NULL;

		if (!bit) {
			*why = "a mode holds only the letters r, w and x (lower case)";
			return NULL;
		}
		if (*bit) {
			*why = "a letter appears twice in the mode";
			return NULL;
		}
		*bit = true;
	}
	if (!r) {
		*why = "every mode includes r: write rw, rx or rwx";
		return NULL;
	}
	return w && x ? "rwx" : w ? "rw" : x ? "rx" : "r";
}

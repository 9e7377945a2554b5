/* SPDX-License-Identifier: MIT
 * Building the sandbox's environment from scratch; see env.h. */
#include "env.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Passed from the launcher's environment without being asked for: what a
 * program needs to find tools, its home and its locale, and nothing that
 * usually carries a credential. The locale is the variables glibc reads
 * (locale(7)), by name: a prefix such as LC_* would also pass any
 * LC_SECRET_TOKEN the launcher happens to hold. */
static const char *const safe_names[] = {
	"PATH", "HOME", "USER", "TERM", "TZ", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
	"LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
	"LC_MEASUREMENT", "LC_IDENTIFICATION",
};

void
envb_init(struct envb *b)
{
	b->vars = NULL;
	b->n = 0;
	b->cap = 0;
}

void
envb_free(struct envb *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->vars[i]);
	free(b->vars);
	envb_init(b);
}

/* Length of the name in "NAME=value", or of the whole string. */
static size_t
name_len(const char *var)
{
	const char *eq = strchr(var, '=');

	return eq ? (size_t)(eq - var) : strlen(var);
}

static int
find(const struct envb *b, const char *name, size_t len)
{
	for (size_t i = 0; i < b->n; i++)
		if (name_len(b->vars[i]) == len &&
		    memcmp(b->vars[i], name, len) == 0)
			return (int)i;
	return -1;
}

int
envb_set(struct envb *b, const char *name, const char *value)
{
	size_t nlen = strlen(name), vlen = strlen(value);
	char *var, **v;
	int i;

	if (nlen == 0 || strchr(name, '='))
		return -EINVAL;
	var = malloc(nlen + 1 + vlen + 1);
	if (!var)
		return -ENOMEM;
	memcpy(var, name, nlen);
	var[nlen] = '=';
	memcpy(var + nlen + 1, value, vlen + 1);

	i = find(b, name, nlen);
	if (i >= 0) {
		free(b->vars[i]);
		b->vars[i] = var;
		return 0;
	}
	/* One more for the NULL that ends the list. */
	v = grow_array(b->vars, &b->cap, b->n + 2, sizeof(*b->vars), 32);
	if (!v) {
		free(var);
		return -ENOMEM;
	}
	b->vars = v;
	b->vars[b->n++] = var;
	b->vars[b->n] = NULL;
	return 0;
}

const char *
envb_get(const struct envb *b, const char *name)
{
	int i = find(b, name, strlen(name));

	return i >= 0 ? b->vars[i] + strlen(name) + 1 : NULL;
}

const char *
envb_lookup(char *const *env, const char *name)
{
	size_t len = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

const char *
envb_launch_lookup(const char *name, void *ctx)
{
	const struct envb_launch *l = ctx;

	if (strcmp(name, "CWD") == 0)
		return l->cwd && l->cwd[0] == '/' ? l->cwd : NULL;
	if (strcmp(name, "WORKDIR") == 0)
		return l->workdir;
	return envb_lookup(l->env, name);
}

/* `path` (absolute) with `//`, `.` and a trailing `/` dropped and `..`
 * taken lexically: what it names when it crosses no link. false when
 * it does not fit. */
static bool
lexical(const char *path, char *out, size_t outlen)
{
	size_t n = 0;

	for (const char *p = path; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.')) {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
			p += len;
			continue;
		}
		if (n + 1 + len + 1 > outlen)
			return false;
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
		p += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return true;
}

int
envb_home_resolved(char *const *env, char *out, size_t outlen)
{
	const char *home = envb_lookup(env, "HOME");
	char real[PATH_MAX], plain[PATH_MAX];

	/* A spelling that crosses no link is left as the user wrote it
	 * (HOME=/usr/ is refused as itself, a system directory). */
	if (!home || home[0] != '/' || !realpath(home, real) ||
	    (lexical(home, plain, sizeof(plain)) && strcmp(real, plain) == 0))
		return 0;
	if ((size_t)snprintf(out, outlen, "%s", real) >= outlen)
		return -ENAMETOOLONG;
	return 1;
}

/* Copies NAME from host when host has it. */
static int
pass(struct envb *b, char *const *host, const char *name)
{
	const char *v = envb_lookup(host, name);

	return v ? envb_set(b, name, v) : 0;
}

int
envb_build(struct envb *b, char *const *host, const struct art_view *view,
	   unsigned platform, const char *tmpdir)
{
	static const char *const tmp_names[] = { "TMPDIR", "TMP", "TEMP" };
	struct art_env e;
	int r;

	for (size_t i = 0; i < sizeof(safe_names) / sizeof(safe_names[0]); i++)
		if ((r = pass(b, host, safe_names[i])) < 0)
			return r;
	if (!envb_get(b, "PATH") &&
	    (r = envb_set(b, "PATH", ENVB_DEFAULT_PATH)) < 0)
		return r;

	/* The artifact lists passes before sets; two loops keep "set wins
	 * over pass" true even if that ever changes. */
	for (size_t i = 0; i < art_env_count(view); i++) {
		if (art_env_at(view, i, &e) < 0)
			return -EINVAL;
		if (e.kind != ART_ENV_PASS || !(e.platforms & ART_PLAT_BIT(platform)))
			continue;
		if ((r = pass(b, host, e.name)) < 0)
			return r;
	}
	for (size_t i = 0; i < art_env_count(view); i++) {
		if (art_env_at(view, i, &e) < 0)
			return -EINVAL;
		if (e.kind != ART_ENV_SET || !(e.platforms & ART_PLAT_BIT(platform)))
			continue;
		if ((r = envb_set(b, e.name, e.value ? e.value : "")) < 0)
			return r;
	}

	/* Last, so neither the launcher's environment nor the policy can
	 * point temporary files outside the working directory. */
	for (size_t i = 0; i < 3; i++)
		if ((r = envb_set(b, tmp_names[i], tmpdir)) < 0)
			return r;
	/* What says, to a shell's prompt, a script or a nested heel, that
	 * it runs inside a sandbox: always 1, whatever the launcher had. */
	return envb_set(b, "HEEL_SANDBOX", "1");
}

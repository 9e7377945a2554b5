/* SPDX-License-Identifier: MIT
 * Command line and environment block for CreateProcessW (win_cmdline.h).
 * The child, not Windows, splits the command line: a quoting mistake here
 * hands the command other arguments than the caller gave, so the rules
 * are the C runtime's, to the letter. */
#include "win_cmdline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_read.h"

/* ------------------------------------------------------------ argv */

static bool
needs_quotes(const char *a)
{
	return *a == '\0' || strpbrk(a, " \t\n\v\"") != NULL;
}

/* Appends one argument to out (NULL: only counts), returns its length. */
static size_t
quote_one(const char *a, char *out)
{
	size_t o = 0;

	if (!needs_quotes(a)) {
		if (out)
			memcpy(out, a, strlen(a));
		return strlen(a);
	}
	if (out)
		out[o] = '"';
	o++;
	for (const char *p = a;; p++) {
		size_t bs = 0;

		while (*p == '\\') {
			bs++;
			p++;
		}
		/* Backslashes are literal unless a quote follows them: then
		 * each is doubled, before the escaped quote or the closing one. */
		if (*p == '\0' || *p == '"')
			bs *= 2;
		for (size_t i = 0; i < bs; i++) {
			if (out)
				out[o] = '\\';
			o++;
		}
		if (*p == '\0')
			break;
		if (*p == '"') {
			if (out)
				out[o] = '\\';
			o++;
		}
		if (out)
			out[o] = *p;
		o++;
	}
	if (out)
		out[o] = '"';
	return o + 1;
}

char *
win_cmdline_join(int argc, char *const *argv)
{
	size_t len = 0, o = 0;
	char *line;

	if (argc < 1 || strchr(argv[0], '"')) {
		errno = EINVAL;
		return NULL;
	}
	/* argv[0]: the program name, read up to the next quote or blank
	 * without escapes; quoted whenever it needs to be. */
	len = strlen(argv[0]) + 2;
	for (int i = 1; i < argc; i++)
		len += 1 + quote_one(argv[i], NULL);
	line = malloc(len + 1);
	if (!line) {
		errno = ENOMEM;
		return NULL;
	}
	if (needs_quotes(argv[0])) {
		line[o++] = '"';
		memcpy(line + o, argv[0], strlen(argv[0]));
		o += strlen(argv[0]);
		line[o++] = '"';
	} else {
		memcpy(line + o, argv[0], strlen(argv[0]));
		o += strlen(argv[0]);
	}
	for (int i = 1; i < argc; i++) {
		line[o++] = ' ';
		o += quote_one(argv[i], line + o);
	}
	line[o] = '\0';
	return line;
}

/* ------------------------------------------------------------ environment */

static char
upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* The name's length: up to the first '=' after the first character (the
 * per-drive "=C:=C:\dir" entries begin with one). */
static size_t
name_len(const char *var)
{
	const char *eq = var[0] ? strchr(var + 1, '=') : NULL;

	return eq ? (size_t)(eq - var) : strlen(var);
}

static bool
same_name(const char *var, const char *name, size_t nlen)
{
	if (name_len(var) != nlen)
		return false;
	for (size_t i = 0; i < nlen; i++)
		if (upper(var[i]) != upper(name[i]))
			return false;
	return true;
}

void
win_env_init(struct win_env *e)
{
	memset(e, 0, sizeof(*e));
}

void
win_env_free(struct win_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->vars[i]);
	free(e->vars);
	memset(e, 0, sizeof(*e));
}

const char *
win_env_lookup(char *const *vars, size_t n, const char *name)
{
	size_t nlen = strlen(name);

	for (size_t i = 0; i < n && vars[i]; i++)
		if (same_name(vars[i], name, nlen) && vars[i][nlen] == '=')
			return vars[i] + nlen + 1;
	return NULL;
}

int
win_env_set(struct win_env *e, const char *name, const char *value)
{
	size_t nlen = strlen(name), vlen = strlen(value);
	char *var;

	if (nlen == 0 || strchr(name + 1, '='))
		return -EINVAL;
	var = malloc(nlen + vlen + 2);
	if (!var)
		return -ENOMEM;
	memcpy(var, name, nlen);
	var[nlen] = '=';
	memcpy(var + nlen + 1, value, vlen + 1);
	for (size_t i = 0; i < e->n; i++)
		if (same_name(e->vars[i], name, nlen)) {
			free(e->vars[i]);
			e->vars[i] = var;
			return 0;
		}
	if (e->n + 1 >= e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 32;
		char **v = realloc(e->vars, cap * sizeof(*v));

		if (!v) {
			free(var);
			return -ENOMEM;
		}
		e->vars = v;
		e->cap = cap;
	}
	e->vars[e->n++] = var;
	e->vars[e->n] = NULL;
	return 0;
}

/* What Windows programs take for granted: without SystemRoot many fail
 * to load Winsock, without PATHEXT cmd finds nothing, without the profile
 * directories tools write into the current directory. */
static const char *const base_vars[] = {
    "SystemRoot", "windir", "SystemDrive", "ComSpec", "PATHEXT", "PATH", "OS",
    "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "PROCESSOR_LEVEL", "PROCESSOR_REVISION",
    "NUMBER_OF_PROCESSORS", "ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
    "CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432", "ALLUSERSPROFILE",
    "USERPROFILE", "LOCALAPPDATA", "APPDATA", "HOMEDRIVE", "HOMEPATH", "USERNAME", "USERDOMAIN",
    "PUBLIC", "TZ", "LANG",
};

int
win_env_build(struct win_env *e, char *const *host, size_t nhost, const struct art_view *view,
	      const char *temp, const char *proxy)
{
	size_t nenv = view ? art_env_count(view) : 0;
	int rc;

	for (size_t i = 0; i < sizeof(base_vars) / sizeof(base_vars[0]); i++) {
		const char *v = win_env_lookup(host, nhost, base_vars[i]);

		if (v && (rc = win_env_set(e, base_vars[i], v)) < 0)
			return rc;
	}
	for (size_t i = 0; i < nenv; i++) {
		struct art_env ev;
		const char *v;

		if (art_env_at(view, i, &ev) < 0 || !(ev.platforms & ART_PLAT_BIT(ART_WINDOWS)))
			continue;
		v = ev.kind == ART_ENV_SET ? ev.value : win_env_lookup(host, nhost, ev.name);
		if (v && (rc = win_env_set(e, ev.name, v)) < 0)
			return rc;
	}
	/* Last, so that nothing above can point them elsewhere. */
	if ((rc = win_env_set(e, "TEMP", temp)) < 0 || (rc = win_env_set(e, "TMP", temp)) < 0)
		return rc;
	if (proxy && ((rc = win_env_set(e, "HTTP_PROXY", proxy)) < 0 ||
		      (rc = win_env_set(e, "HTTPS_PROXY", proxy)) < 0 ||
		      (rc = win_env_set(e, "ALL_PROXY", proxy)) < 0))
		return rc;
	return 0;
}

static int
cmp_var(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = name_len(x), ny = name_len(y);

	for (size_t i = 0; i < nx && i < ny; i++) {
		unsigned char cx = (unsigned char)upper(x[i]), cy = (unsigned char)upper(y[i]);

		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return nx < ny ? -1 : nx > ny ? 1 : 0;
}

void
win_env_sort(struct win_env *e)
{
	if (e->n > 1)
		qsort(e->vars, e->n, sizeof(e->vars[0]), cmp_var);
}

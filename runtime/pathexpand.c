/* SPDX-License-Identifier: MIT
 * Expanding ${NAME} in policy paths, and what counts as a system
 * directory; see pathexpand.h. */
#include "pathexpand.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Variables whose place in the expanded path is remembered, so that a
 * "." or ".." is blamed on the one that produced it. More than this in
 * one path is still expanded; the fault is then named less precisely. */
#define PX_MAX_VARS 16

struct var_span {
	size_t start, end;   /* the value's bytes in the raw expansion */
	const char *name;    /* in the template (not NUL-terminated) */
	size_t nlen;
	const char *value;
};

static void
set_name(struct px_info *info, const char *name, size_t nlen, const char *value)
{
	if (nlen >= sizeof(info->name))
		nlen = sizeof(info->name) - 1;
	memcpy(info->name, name, nlen);
	info->name[nlen] = '\0';
	info->value = value;
}

static int
fail(struct px_info *info, enum px_status st)
{
	info->status = st;
	switch (st) {
	case PX_UNSET: return -ENOENT;
	case PX_TOOLONG: return -ENAMETOOLONG;
	case PX_SYSTEM: return -EPERM;
	default: return -EINVAL;
	}
}

/* Finds the first "." or ".." component of raw[0..n) and the variable
 * whose value it overlaps; false when there is none. */
static bool
find_dots(const char *raw, size_t n, const struct var_span *v, size_t nv, const struct var_span **at)
{
	size_t i = 0;

	while (i < n) {
		size_t s, e;

		while (i < n && raw[i] == '/')
			i++;
		s = i;
		while (i < n && raw[i] != '/')
			i++;
		e = i;
		if (!((e - s == 1 && raw[s] == '.') ||
		      (e - s == 2 && raw[s] == '.' && raw[s + 1] == '.')))
			continue;
		*at = NULL;
		for (size_t k = 0; k < nv; k++)
			if (v[k].start < e && s < v[k].end) {
				*at = &v[k];
				break;
			}
		return true;
	}
	return false;
}

int
px_expand(const char *tmpl, px_lookup_fn lookup, void *ctx, char *out, size_t outlen,
	  struct px_info *info)
{
	struct var_span v[PX_MAX_VARS], *first = NULL;
	const struct var_span *bad;
	char raw[PATH_MAX];
	const char *s = tmpl;
	size_t n = 0, w = 0, nv = 0;

	*info = (struct px_info){ .status = PX_OK };
	if (outlen)
		out[0] = '\0';

#define APPEND(str, len)                                        \
	do {                                                    \
		if (n + (len) >= sizeof(raw))                   \
			return fail(info, PX_TOOLONG);          \
		memcpy(raw + n, (str), (len));                  \
		n += (len);                                     \
	} while (0)

	/* A relative path is relative to the launch directory: the same
	 * as writing ${CWD}/ in front of it. */
	if (s[0] != '/' && !(s[0] == '$' && s[1] == '{')) {
		const char *cwd = lookup ? lookup("CWD", ctx) : NULL;

		if (!cwd || !*cwd) {
			set_name(info, "CWD", 3, cwd);
			return fail(info, PX_UNSET);
		}
		v[nv] = (struct var_span){ n, 0, "CWD", 3, cwd };
		APPEND(cwd, strlen(cwd));
		v[nv++].end = n;
		APPEND("/", 1);
		if (s[0] == '.' && s[1] == '/')
			s += 2;
	}
	while (*s) {
		const char *end, *val;
		size_t nlen;

		if (!(s[0] == '$' && s[1] == '{')) {
			APPEND(s, 1);
			s++;
			continue;
		}
		end = strchr(s + 2, '}');
		nlen = end ? (size_t)(end - s - 2) : 0;
		if (!end || nlen == 0 || nlen >= PX_NAME_MAX) {
			set_name(info, s + 2, end ? nlen : strlen(s + 2), NULL);
			return fail(info, PX_MALFORMED);
		}
		{
			char name[PX_NAME_MAX];

			memcpy(name, s + 2, nlen);
			name[nlen] = '\0';
			val = lookup ? lookup(name, ctx) : NULL;
		}
		/* An empty value counts as unset: "${PROJECT}/build" with
		 * PROJECT="" would otherwise quietly become "/build". */
		if (!val || !*val) {
			set_name(info, s + 2, nlen, val);
			return fail(info, PX_UNSET);
		}
		if (nv < PX_MAX_VARS)
			v[nv] = (struct var_span){ n, 0, s + 2, nlen, val };
		APPEND(val, strlen(val));
		if (nv < PX_MAX_VARS)
			v[nv++].end = n;
		s = end + 1;
	}
#undef APPEND
	raw[n] = '\0';
	first = nv ? &v[0] : NULL;

	if (find_dots(raw, n, v, nv, &bad)) {
		if (bad)
			set_name(info, bad->name, bad->nlen, bad->value);
		return fail(info, PX_DOTS);
	}
	if (raw[0] != '/') {
		if (first)
			set_name(info, first->name, first->nlen, first->value);
		return fail(info, PX_RELATIVE);
	}
	if (n >= outlen)
		return fail(info, PX_TOOLONG);
	for (size_t i = 0; i < n; i++) {
		if (raw[i] == '/' && w && out[w - 1] == '/')
			continue;
		out[w++] = raw[i];
	}
	if (w > 1 && out[w - 1] == '/')
		w--;
	out[w] = '\0';
	if (first)
		set_name(info, first->name, first->nlen, first->value);
	info->path = out;
	return 0;
}

/* Top-level directories of the system's own (FHS 3.0 chapter 3), plus
 * where distributions mount snaps. A working directory is writable as a
 * whole, and a grant of one of them by way of a variable hands the
 * sandbox far more than its author meant. */
static const char *const system_dirs[] = {
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/media", "/mnt", "/opt", "/proc",
	"/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/usr", "/var",
};

/* Length of the system directory that `path` is or is beneath, or 0.
 * "/lib32", "/lib64", "/libx32" and any other "/lib..." count as /lib. */
static size_t
system_prefix(const char *path, const char **which)
{
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		const char *d = system_dirs[i];
		size_t m = strlen(d);

		if (strncmp(path, d, m) != 0)
			continue;
		if (strcmp(d, "/lib") == 0)
			while (path[m] && path[m] != '/')
				m++;
		if (path[m] == '\0' || path[m] == '/') {
			*which = d;
			return m;
		}
	}
	return 0;
}

const char *
px_system_top(const char *path)
{
	const char *which = NULL;

	if (strcmp(path, "/") == 0)
		return "/";
	return system_prefix(path, &which) ? which : NULL;
}

bool
px_is_system(const char *path)
{
	const char *which = NULL;
	size_t m;

	if (strcmp(path, "/") == 0)
		return true;
	m = system_prefix(path, &which);
	if (!m || path[m] != '\0')
		return false;
	/* /root is root's own home, which is what `grant "${HOME}"` means
	 * for root, and its mode (0700) closes it to everyone else, also
	 * to `setpriv --reuid` or `su` without -l, which keep HOME=/root. */
	return strcmp(which, "/root") != 0;
}

int
px_refuse_system(const char *path, struct px_info *info)
{
	if (!info->name[0] || !px_is_system(path))
		return 0;
	info->path = path;
	return fail(info, PX_SYSTEM);
}

const char *
px_describe(const struct px_info *info, char *buf, size_t len)
{
	const char *n = info->name, *v = info->value ? info->value : "";

	switch (info->status) {
	case PX_OK:
		snprintf(buf, len, "expanded");
		break;
	case PX_UNSET:
		snprintf(buf, len, "${%s} is %s", n, info->value ? "empty" : "not set");
		break;
	case PX_MALFORMED:
		snprintf(buf, len, "malformed ${%s reference", n);
		break;
	case PX_DOTS:
		if (n[0])
			snprintf(buf, len, "%s is \"%s\", which puts a . or .. component in the "
				 "path; refusing", n, v);
		else
			snprintf(buf, len, "a . or .. component in the expanded path; refusing");
		break;
	case PX_RELATIVE:
		if (n[0])
			snprintf(buf, len, "%s is \"%s\", not an absolute path; refusing", n, v);
		else
			snprintf(buf, len, "not an absolute path after expansion; refusing");
		break;
	case PX_TOOLONG:
		snprintf(buf, len, "the expanded path is too long");
		break;
	case PX_SYSTEM:
		if (info->path && strcmp(info->path, v) != 0)
			snprintf(buf, len, "%s is \"%s\", which makes it \"%s\", a system "
				 "directory; refusing", n, v, info->path);
		else
			snprintf(buf, len, "%s is \"%s\", a system directory; refusing", n, v);
		break;
	}
	return buf;
}

const char *const px_shared_temp[3] = { "/dev/shm", "/tmp", "/var/tmp" };

bool
px_at_or_beneath(const char *path, const char *dir)
{
	return strcmp(path, dir) == 0 || px_beneath(path, dir);
}

void
px_dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

const char *
px_in_shared_temp(const char *path)
{
	for (size_t i = 0; i < sizeof(px_shared_temp) / sizeof(*px_shared_temp); i++)
		if (px_at_or_beneath(path, px_shared_temp[i]))
			return px_shared_temp[i];
	return NULL;
}

bool
px_beneath(const char *child, const char *parent)
{
	size_t n = strlen(parent);

	if (n == 1)
		return child[0] == '/' && child[1] != '\0';
	return strncmp(child, parent, n) == 0 && child[n] == '/';
}

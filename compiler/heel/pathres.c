/* SPDX-License-Identifier: MIT
 * Resolving the paths a user spells, following the links crossed and
 * remembering where each one lies (see pathres.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathres.h"

/* Linux's own limit on links followed in one lookup (path_resolution(7)). */
#define PATHRES_MAX_LINKS 40

bool
pathres_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Drops the last component of an absolute path in place ("/a/b" -> "/a",
 * "/a" -> "/"). */
static void
pop_component(char *p)
{
	char *slash = strrchr(p, '/');

	if (slash == p)
		p[1] = '\0';
	else if (slash)
		*slash = '\0';
}

static int
push_component(char *p, const char *comp, size_t len)
{
	size_t n = strlen(p);
	size_t need = n + (n > 1 ? 1 : 0) + len + 1;

	if (need > PATH_MAX)
		return -ENAMETOOLONG;
	if (n > 1)
		p[n++] = '/';
	memcpy(p + n, comp, len);
	p[n + len] = '\0';
	return 0;
}

static int
add_link(struct pathres *r, const char *at)
{
	char **l = realloc(r->links, (r->nlinks + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	r->links = l;
	l[r->nlinks] = strdup(at);
	if (!l[r->nlinks])
		return -ENOMEM;
	r->nlinks++;
	return 0;
}

/* FNV-1a: short keys, no attacker choosing them (they are the user's
 * own paths), so a simple hash is enough. */
static size_t
memo_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static bool
memo_has(const struct pathres_memo *m, const char *dir)
{
	if (!m || !m->cap)
		return false;
	for (size_t i = memo_hash(dir) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i])
			return false;
		if (strcmp(m->slots[i], dir) == 0)
			return true;
	}
}

static void
memo_put(char **slots, size_t cap, char *dir)
{
	size_t i = memo_hash(dir) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = dir;
}

/* Remembering is an optimisation: out of memory, it is skipped. */
static void
memo_add(struct pathres_memo *m, const char *dir)
{
	char *d;

	if (!m || memo_has(m, dir))
		return;
	/* At most half full, so that a probe ends soon. */
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		char **slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i])
				memo_put(slots, cap, m->slots[i]);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	if (!(d = strdup(dir)))
		return;
	memo_put(m->slots, m->cap, d);
	m->n++;
}

void
pathres_memo_free(struct pathres_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i]);
	free(m->slots);
	*m = (struct pathres_memo){0};
}

int
pathres_resolve(const char *cwd, const char *spelled, struct pathres *r, char *err, size_t errlen)
{
	return pathres_resolve_memo(cwd, spelled, NULL, r, err, errlen);
}

int
pathres_resolve_memo(const char *cwd, const char *spelled, struct pathres_memo *memo,
		     struct pathres *r, char *err, size_t errlen)
{
	/* `rest` holds what is still to walk; a link's target is put in
	 * front of it. */
	/* On the stack: a heap block of PATH_MAX per path was, under musl's
	 * allocator, a mapping made and unmade for every option. */
	char *rest = NULL, done[PATH_MAX];
	size_t links = 0;
	bool missing = false;
	int rc = 0;

	*r = (struct pathres){0};
	if (!spelled[0]) {
		snprintf(err, errlen, "an empty path");
		return -EINVAL;
	}
	if (spelled[0] == '/')
		rest = strdup(spelled);
	else if (asprintf(&rest, "%s/%s", cwd, spelled) < 0)
		rest = NULL;
	if (!rest) {
		rc = -ENOMEM;
		goto out;
	}
	strcpy(done, "/");
	for (char *p = rest; *p;) {
		char *next, comp[NAME_MAX + 1];
		size_t len;
		struct stat st;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		next = strchr(p, '/');
		len = next ? (size_t)(next - p) : strlen(p);
		if (len > NAME_MAX) {
			snprintf(err, errlen, "`%s`: a component is longer than %d bytes", spelled,
				 NAME_MAX);
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			pop_component(done);
			continue;
		}
		rc = push_component(done, comp, len);
		if (rc) {
			snprintf(err, errlen, "`%s` is longer than %d bytes once resolved", spelled,
				 PATH_MAX);
			goto out;
		}
		if (!missing && memo_has(memo, done))
			continue;
		if (missing || lstat(done, &st) < 0) {
			/* Not there (yet): what follows is kept as spelled. */
			missing = true;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			memo_add(memo, done);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(done, target, sizeof(target) - 1);
			char *joined;

			if (n < 0) {
				rc = -errno;
				snprintf(err, errlen, "`%s`: cannot read the link %s: %s", spelled,
					 done, strerror(errno));
				goto out;
			}
			target[n] = '\0';
			if (++links > PATHRES_MAX_LINKS) {
				snprintf(err, errlen, "`%s`: too many levels of symbolic links",
					 spelled);
				rc = -ELOOP;
				goto out;
			}
			rc = add_link(r, done);
			if (rc)
				goto out;
			pop_component(done);
			if (target[0] == '/')
				strcpy(done, "/");
			if (asprintf(&joined, "%s/%s", target, p) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			free(rest);
			rest = joined;
			p = rest;
		}
	}
	r->path = strdup(done);
	if (!r->path)
		rc = -ENOMEM;
	r->exists = !missing;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc)
		pathres_free(r);
	free(rest);
	return rc;
}

void
pathres_free(struct pathres *r)
{
	free(r->path);
	for (size_t i = 0; i < r->nlinks; i++)
		free(r->links[i]);
	free(r->links);
	*r = (struct pathres){0};
}

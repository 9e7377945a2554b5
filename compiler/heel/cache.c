/* SPDX-License-Identifier: MIT
 * The compile cache of `heel run` (see cache.h). An entry file:
 *
 *   "HEELCACHE1\n"
 *   N\n                               the number of dependencies
 *   HEX-SHA256 PATH\n                 N times: an included file and its digest
 *   ARTIFACT BYTES                    to the end
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "grow.h"
#include "readsmall.h"
#include "userdirs.h"
#include "version.h"

#define CACHE_MAGIC "HEELCACHE1\n"
/* Far more than any artifact or policy; a bigger entry is not ours. */
#define CACHE_MAX_BYTES (8u << 20)
#define CACHE_MAX_DEPS 256
/* One entry per policy text (a directory and a set of options), some
 * 24 KiB each: past CACHE_MAX_ENTRIES a store removes the least recently
 * used (by modification time, which every hit renews) down to
 * CACHE_KEEP_ENTRIES, so that pruning is rare and the cache stays under
 * some 6 MiB. */
#define CACHE_MAX_ENTRIES 256
#define CACHE_KEEP_ENTRIES 192
/* A temporary file this old was left by a store that died. */
#define CACHE_STALE_TMP_SECONDS 3600

int
cache_dir(char *out, size_t len)
{
	extern char **environ;
	char parent[PATH_MAX];
	struct stat st;
	int r;

	/* Where heel-exec keeps it read-only in every sandbox: the same
	 * function names it for both (userdirs.h). */
	if ((r = ud_compile_cache(environ, out, len)) < 0)
		return r;
	snprintf(parent, sizeof(parent), "%s", out);
	*strrchr(parent, '/') = '\0';
	/* Ours alone, and not a link someone left in our place. */
	if (lstat(out, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		if (mkdir(parent, 0700) < 0 && errno != EEXIST)
			return -errno;
		if (mkdir(out, 0700) < 0 && errno != EEXIST)
			return -errno;
		if (lstat(out, &st) < 0)
			return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

static void
hex(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int
cache_key(const char *self, const char *text, uint8_t key[CACHE_KEY_BYTES])
{
	struct sha256_ctx h;
	struct stat st;
	char id[256];

	if (stat(self, &st) < 0)
		return -errno;
	snprintf(id, sizeof(id), "heel %s %ju %ju %jd %jd.%09ld\n", HEEL_VERSION, (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec);
	sha256_init(&h);
	sha256_update(&h, strlen(id), (const uint8_t *)id);
	sha256_update(&h, strlen(text), (const uint8_t *)text);
	sha256_digest(&h, CACHE_KEY_BYTES, key);
	return 0;
}

static void
digest_hex(const char *data, size_t len, char out[2 * SHA256_DIGEST_SIZE + 1])
{
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&h);
	sha256_update(&h, len, (const uint8_t *)data);
	sha256_digest(&h, sizeof(d), d);
	hex(d, sizeof(d), out);
}

/* Reads a regular file whole, refusing links and oversized files. */
static int
read_whole(int dirfd, const char *name, bool ours, char **out, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int r;

	if (fd < 0)
		return -errno;
	if ((r = rt_read_small(fd, CACHE_MAX_BYTES, out, len, &st)) < 0)
		return r;
	if (ours && (st.st_uid != getuid() || (st.st_mode & 022))) {
		free(*out);
		*out = NULL;
		return -EPERM;
	}
	return 0;
}

int
cache_lookup(const char *dir, const uint8_t key[CACHE_KEY_BYTES], uint8_t **bytes, size_t *len)
{
	char name[2 * CACHE_KEY_BYTES + 1], *entry = NULL, *p, *end;
	size_t elen = 0;
	unsigned long ndeps;
	int dirfd, r;

	*bytes = NULL;
	*len = 0;
	hex(key, CACHE_KEY_BYTES, name);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	r = read_whole(dirfd, name, true, &entry, &elen);
	/* Used now: the last to go when the cache is pruned. */
	if (r == 0)
		utimensat(dirfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	close(dirfd);
	if (r)
		return r;
	end = entry + elen;
	r = -ENOENT;
	if (elen < sizeof(CACHE_MAGIC) || memcmp(entry, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1) != 0)
		goto out;
	p = entry + sizeof(CACHE_MAGIC) - 1;
	ndeps = strtoul(p, &p, 10);
	if (ndeps > CACHE_MAX_DEPS || p >= end || *p++ != '\n')
		goto out;
	for (unsigned long i = 0; i < ndeps; i++) {
		char want[2 * SHA256_DIGEST_SIZE + 1], have[2 * SHA256_DIGEST_SIZE + 1], *nl, *text = NULL;
		size_t tlen = 0;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || nl - p < 2 * SHA256_DIGEST_SIZE + 2 || p[2 * SHA256_DIGEST_SIZE] != ' ')
			goto out;
		memcpy(want, p, 2 * SHA256_DIGEST_SIZE);
		want[2 * SHA256_DIGEST_SIZE] = '\0';
		*nl = '\0';
		/* An included file that changed (or vanished) makes it stale. */
		if (read_whole(AT_FDCWD, p + 2 * SHA256_DIGEST_SIZE + 1, false, &text, &tlen) != 0)
			goto out;
		digest_hex(text, tlen, have);
		free(text);
		if (strcmp(want, have) != 0)
			goto out;
		p = nl + 1;
	}
	if (p >= end)
		goto out;
	*len = (size_t)(end - p);
	*bytes = malloc(*len);
	if (!*bytes) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(*bytes, p, *len);
	r = 0;
out:
	free(entry);
	return r;
}

struct aged {
	char name[2 * CACHE_KEY_BYTES + 1];
	struct timespec used;
};

static int
oldest_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct aged *)a)->used, *y = &((const struct aged *)b)->used;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

static bool
is_key(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == 2 * CACHE_KEY_BYTES && !s[n];
}

/* Keeps the cache bounded (CACHE_MAX_ENTRIES), and removes what stores
 * that died left behind. Best effort: a cache that cannot be pruned is
 * still a cache. Nothing but our own names is touched, never through a
 * link. */
static void
prune(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct aged *v = NULL, *g;
	size_t n = 0, cap = 0;
	struct timespec now;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (dfd < 0)
		return;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	while ((e = readdir(d))) {
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (e->d_name[0] == '.') {
			char key[2 * CACHE_KEY_BYTES + 1];

			snprintf(key, sizeof(key), "%s", e->d_name + 1);
			if (strchr(e->d_name + 1, '.') == e->d_name + 1 + 2 * CACHE_KEY_BYTES && is_key(key) &&
			    now.tv_sec - st.st_mtim.tv_sec > CACHE_STALE_TMP_SECONDS)
				unlinkat(dfd, e->d_name, 0);
			continue;
		}
		if (!is_key(e->d_name) || !(g = grow_array(v, &cap, n + 1, sizeof(*v), 256)))
			continue;
		v = g;
		memcpy(v[n].name, e->d_name, sizeof(v[n].name));
		v[n++].used = st.st_mtim;
	}
	if (n > CACHE_MAX_ENTRIES) {
		qsort(v, n, sizeof(*v), oldest_first);
		for (size_t i = 0; i < n - CACHE_KEEP_ENTRIES; i++)
			unlinkat(dfd, v[i].name, 0);
	}
	free(v);
	closedir(d);
}

int
cache_store(const char *dir, const uint8_t key[CACHE_KEY_BYTES], const struct diag_ctx *ctx,
	    const uint8_t *bytes, size_t len)
{
	char name[2 * CACHE_KEY_BYTES + 1], tmp[PATH_MAX], final[PATH_MAX];
	size_t ndeps = 0;
	FILE *f;
	int fd, r = 0;

	for (size_t i = 0; i < diag_source_count(ctx); i++) {
		const struct diag_source *s = diag_source_at(ctx, i);

		if (s->included_from && !s->is_preset)
			ndeps++;
	}
	if (ndeps > CACHE_MAX_DEPS || len > CACHE_MAX_BYTES)
		return -E2BIG;
	hex(key, CACHE_KEY_BYTES, name);
	if ((size_t)snprintf(final, sizeof(final), "%s/%s", dir, name) >= sizeof(final) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.%ld", dir, name, (long)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	fputs(CACHE_MAGIC, f);
	fprintf(f, "%zu\n", ndeps);
	for (size_t i = 0; i < diag_source_count(ctx); i++) {
		const struct diag_source *s = diag_source_at(ctx, i);
		char d[2 * SHA256_DIGEST_SIZE + 1];

		if (!s->included_from || s->is_preset)
			continue;
		if (strchr(s->path, '\n') || s->path[0] != '/') {
			r = -EINVAL; /* a name the entry cannot hold, or not absolute */
			break;
		}
		digest_hex(s->text, s->len, d);
		fprintf(f, "%s %s\n", d, s->path);
	}
	if (!r && fwrite(bytes, 1, len, f) != len)
		r = -EIO;
	if (fclose(f) != 0 && !r)
		r = -EIO;
	if (!r && rename(tmp, final) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	else
		prune(dir);
	return r;
}

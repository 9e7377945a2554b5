/* SPDX-License-Identifier: MIT
 * The ledger of writable places (ledger.h): located from the launcher's
 * environment, opened without following a link below it, trusted only
 * when this user alone can write it. */
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "errmsg.h"
#include "grow.h"
#include "pathexpand.h"
#include "readsmall.h"
#include "userdirs.h"

#define LEDGER_MAX_BYTES (4u << 20)

static const char header[] =
    "# heel: every place heel-exec has let a sandbox of this user write (heel(5), WHAT\n"
    "# PERSISTS BETWEEN RUNS). heel runs, opens and grants nothing that a sandbox could\n"
    "# have changed in these places. Remove a line once you have checked what those\n"
    "# runs left there.\n";

int
ledger_locate(struct ledger *lg, char *const *env)
{
	const char *state = envb_lookup(env, "XDG_STATE_HOME");
	const char *home = envb_lookup(env, "HOME");
	char pw[PATH_MAX];
	int n;

	memset(lg, 0, sizeof(*lg));
	/* Without HOME, the home the system gives this user, if it is
	 * there (nobody's /nonexistent is not). */
	if ((!home || !home[0]) && ud_passwd_home(pw, sizeof(pw)))
		home = pw;
	/* The XDG base directory specification ignores a relative value. */
	if (state && state[0] == '/')
		n = snprintf(lg->dir, sizeof(lg->dir), "%s/heel", state);
	else if (home && home[0] == '/' && strcmp(home, "/") != 0)
		n = snprintf(lg->dir, sizeof(lg->dir), "%s/.local/state/heel", home);
	else {
		snprintf(lg->none, sizeof(lg->none), "%s",
			 !home || !home[0] ? "HOME is not set"
			 : home[0] != '/'  ? "HOME is not an absolute path"
					   : "HOME is \"/\"");
		return -ENOENT;
	}
	if (n < 0 || (size_t)n >= sizeof(lg->dir) ||
	    (size_t)snprintf(lg->file, sizeof(lg->file), "%s/" LEDGER_FILE, lg->dir) >=
		sizeof(lg->file)) {
		lg->dir[0] = lg->file[0] = '\0';
		snprintf(lg->none, sizeof(lg->none), "the state directory's path is too long");
		return -ENOENT;
	}
	return 0;
}

void
ledger_free(struct ledger *lg)
{
	for (size_t i = 0; i < lg->n; i++)
		free(lg->paths[i]);
	free(lg->paths);
	lg->paths = NULL;
	lg->n = lg->cap = 0;
	lg->loaded = false;
}

/* The part of lg->dir given by the environment (followed as the user
 * spells it), and the rest, below it, where no link is followed. */
static void
split_dir(const struct ledger *lg, char *base, size_t len, const char **rest)
{
	const char *tail = strstr(lg->dir, "/.local/state/heel");

	if (tail && strcmp(tail, "/.local/state/heel") == 0) {
		*rest = ".local/state/heel";
	} else {
		tail = lg->dir + strlen(lg->dir) - strlen("/heel");
		*rest = "heel";
	}
	snprintf(base, len, "%.*s", (int)(tail - lg->dir), lg->dir);
	if (!base[0])
		snprintf(base, len, "/");
}

/* Opens the ledger's directory: its base as spelled, each component
 * below without following a link; with `make`, the missing ones are made
 * 0700. A descriptor, or -errno. */
static int
open_dir(const struct ledger *lg, bool make)
{
	char base[PATH_MAX], comp[NAME_MAX + 1];
	const char *rest, *p;
	int fd;

	split_dir(lg, base, sizeof(base), &rest);
	fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (p = rest; *p;) {
		size_t n = strcspn(p, "/");
		int next;

		snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
		p += n + (p[n] == '/');
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && make) {
			if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
				int e = -errno;

				close(fd);
				return e;
			}
			next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			/* O_PATH|O_NOFOLLOW opens a link itself; O_DIRECTORY
			 * then refuses it: a link is ENOTDIR here. */
			int e = -errno;

			close(fd);
			return e;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* Only this user (or root, for root's) may have written it. */
static const char *
untrusted(const struct stat *st, bool dir)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return dir ? "is not a directory" : "is not a regular file";
	if (st->st_uid != geteuid())
		return "is owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by others";
	return NULL;
}

static int
add_path(struct ledger *lg, const char *p, size_t len)
{
	char **v = grow_array(lg->paths, &lg->cap, lg->n + 1, sizeof(*v), 64);

	if (!v)
		return -ENOMEM;
	lg->paths = v;
	if (!(v[lg->n] = strndup(p, len)))
		return -ENOMEM;
	lg->n++;
	return 0;
}

/* Undoes the escapes of one line in place; false for a malformed one. */
static bool
unescape(char *s, size_t *len)
{
	size_t o = 0;

	for (size_t i = 0; i < *len; i++) {
		if (s[i] != '\\') {
			s[o++] = s[i];
			continue;
		}
		if (++i == *len || (s[i] != '\\' && s[i] != 'n'))
			return false;
		s[o++] = s[i] == 'n' ? '\n' : '\\';
	}
	*len = o;
	return o > 0 && s[0] == '/';
}

static int
parse(struct ledger *lg, char *text, size_t len, char *err, size_t errlen)
{
	char *end = text + len;
	size_t line = 0;

	for (char *p = text; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int r;

		line++;
		if (n && p[0] != '#') {
			if (memchr(p, '\0', n) || !unescape(p, &n))
				return rt_error(err, errlen, -EINVAL,
						"%s: line %zu is not an absolute path", lg->file,
						line);
			if ((r = add_path(lg, p, n)) < 0)
				return rt_error(err, errlen, r, "%s: out of memory", lg->file);
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int
ledger_load(struct ledger *lg, char *err, size_t errlen)
{
	char base[PATH_MAX];
	const char *rest;
	struct stat st;
	char *text = NULL;
	size_t len;
	const char *why = NULL;
	int dfd, fd, r;

	ledger_free(lg);
	if (!lg->dir[0])
		return rt_error(err, errlen, -ENOENT, "no ledger of writable places: %s", lg->none);
	/* A home that is not there holds no record, and none could be made:
	 * that is no ledger, not an empty one. */
	split_dir(lg, base, sizeof(base), &rest);
	if (stat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return rt_error(err, errlen, -ENOENT, "%s %s", base,
				errno == ENOENT ? "does not exist" : "is not a directory");
	dfd = open_dir(lg, false);
	if (dfd == -ENOENT) {
		lg->loaded = true;
		return 0;
	}
	if (dfd < 0)
		return rt_error(err, errlen, dfd, "%s: %s", lg->dir,
				dfd == -ENOTDIR ? "a symbolic link or not a directory on the way"
						: strerror(-dfd));
	if (fstat(dfd, &st) < 0 || (why = untrusted(&st, true))) {
		close(dfd);
		return rt_error(err, errlen, -EPERM, "%s %s", lg->dir, why ? why : strerror(errno));
	}
	fd = openat(dfd, LEDGER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0 && errno == ENOENT) {
		lg->loaded = true;
		return 0;
	}
	if (fd < 0)
		return rt_error(err, errlen, -errno, "%s: %s", lg->file,
				errno == ELOOP ? "a symbolic link" : strerror(errno));
	r = rt_read_small(fd, LEDGER_MAX_BYTES, &text, &len, &st);
	if (r < 0)
		return rt_error(err, errlen, r, "%s: %s", lg->file,
				r == -EINVAL ? "not a regular file, or larger than 4 MiB"
					     : strerror(-r));
	if ((why = untrusted(&st, false))) {
		free(text);
		return rt_error(err, errlen, -EPERM, "%s %s", lg->file, why);
	}
	r = parse(lg, text, len, err, errlen);
	free(text);
	if (r < 0) {
		ledger_free(lg);
		return r;
	}
	lg->loaded = true;
	return 0;
}

bool
ledger_covers(const struct ledger *lg, const char *path)
{
	for (size_t i = 0; i < lg->n; i++)
		if (strcmp(lg->paths[i], path) == 0 || px_beneath(path, lg->paths[i]))
			return true;
	return false;
}

/* Appends one escaped line for `path` to the growing buffer. */
static int
put_line(char **buf, size_t *len, size_t *cap, const char *path)
{
	size_t need = *len + 2 * strlen(path) + 2;
	char *b = grow_array(*buf, cap, need, 1, 256);

	if (!b)
		return -ENOMEM;
	*buf = b;
	for (const char *p = path; *p; p++) {
		if (*p == '\\' || *p == '\n') {
			b[(*len)++] = '\\';
			b[(*len)++] = *p == '\n' ? 'n' : '\\';
		} else {
			b[(*len)++] = *p;
		}
	}
	b[(*len)++] = '\n';
	return 0;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Rewrites the file without the paths that no longer exist: nothing an
 * earlier sandbox left can be beneath a path that is gone. */
static int
prune(struct ledger *lg, int dfd)
{
	char *buf = NULL, tmp[64];
	size_t len = 0, cap = 0, kept = 0;
	unsigned rnd = 0;
	struct stat st;
	int fd, r = 0;

	if (!(buf = grow_array(NULL, &cap, sizeof(header), 1, 256)))
		return -ENOMEM;
	memcpy(buf, header, sizeof(header) - 1);
	len = sizeof(header) - 1;
	for (size_t i = 0; i < lg->n; i++) {
		if (lstat(lg->paths[i], &st) < 0 && errno == ENOENT) {
			free(lg->paths[i]);
			continue;
		}
		if ((r = put_line(&buf, &len, &cap, lg->paths[i])) < 0)
			goto out;
		lg->paths[kept++] = lg->paths[i];
	}
	lg->n = kept;
	if (getrandom(&rnd, sizeof(rnd), 0) < 0)
		rnd = (unsigned)getpid();
	snprintf(tmp, sizeof(tmp), LEDGER_FILE ".%08x", rnd);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, buf, len);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(dfd, tmp, dfd, LEDGER_FILE) < 0)
		r = -errno;
	if (r)
		unlinkat(dfd, tmp, 0);
out:
	free(buf);
	return r;
}

int
ledger_record(struct ledger *lg, const char *const *paths, size_t n, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, first;
	struct stat st;
	const char *why = NULL;
	int dfd, fd, r;

	if (!lg->dir[0])
		return rt_error(err, errlen, -ENOENT, "no place for the ledger: %s", lg->none);
	if (!lg->loaded && (r = ledger_load(lg, err, errlen)) < 0)
		return r;
	first = lg->n;
	for (size_t i = 0; i < n; i++) {
		if (paths[i][0] != '/' || ledger_covers(lg, paths[i]))
			continue;
		if ((r = add_path(lg, paths[i], strlen(paths[i]))) < 0 ||
		    (r = put_line(&buf, &len, &cap, paths[i])) < 0) {
			free(buf);
			return rt_error(err, errlen, r, "%s: out of memory", lg->file);
		}
	}
	if (!len)
		return 0;
	dfd = open_dir(lg, true);
	if (dfd < 0) {
		free(buf);
		return rt_error(err, errlen, dfd, "cannot make %s: %s", lg->dir,
				dfd == -ENOTDIR ? "a symbolic link or not a directory on the way"
						: strerror(-dfd));
	}
	if (fstat(dfd, &st) < 0 || (why = untrusted(&st, true))) {
		close(dfd);
		free(buf);
		return rt_error(err, errlen, -EPERM, "%s %s", lg->dir, why ? why : strerror(errno));
	}
	if (first > LEDGER_PRUNE_AT && (r = prune(lg, dfd)) < 0) {
		close(dfd);
		free(buf);
		return rt_error(err, errlen, r, "%s: %s", lg->file, strerror(-r));
	}
	fd = openat(dfd, LEDGER_FILE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0) {
		r = -errno;
		free(buf);
		return rt_error(err, errlen, r, "%s: %s", lg->file,
				r == -ELOOP ? "a symbolic link" : strerror(-r));
	}
	if (fstat(fd, &st) < 0 || (why = untrusted(&st, false))) {
		close(fd);
		free(buf);
		return rt_error(err, errlen, -EPERM, "%s %s", lg->file,
				why ? why : strerror(errno));
	}
	/* A new file starts with what it is; the lines go in one write, so
	 * that two launches appending at once never interleave (O_APPEND). */
	r = st.st_size == 0 ? write_all(fd, header, sizeof(header) - 1) : 0;
	if (!r)
		r = write_all(fd, buf, len);
	if (close(fd) < 0 && !r)
		r = -errno;
	free(buf);
	if (r < 0)
		return rt_error(err, errlen, r, "%s: %s", lg->file, strerror(-r));
	return 0;
}

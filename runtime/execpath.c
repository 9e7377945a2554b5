/* SPDX-License-Identifier: MIT
 * PATH search and execve for the sandboxed command; see execpath.h. */
#include "execpath.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Errors that mean "not here, try the next PATH element", as execvp. */
static int
keep_searching(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ESTALE ||
	       err == ENODEV || err == ETIMEDOUT || err == ENAMETOOLONG;
}

/* Whether the directory that keeps `path` from being searched is one of
 * heel-exec's covers (linux_view.c): an empty directory of mode 000 bound
 * over a protected one. The host could search what it hides; a
 * directory this user may not search on the host either (/root for
 * another user) hides nothing the host would run. */
static bool
behind_a_cover(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t n = strlen(path);
	char *slash;

	if (n >= sizeof(dir))
		return false;
	memcpy(dir, path, n + 1);
	/* The deepest directory on the way that can be looked at. */
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == 0)
			return S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0;
	}
	return false;
}

/* Whether the host's own search (a shell's, execvp's) would pass over
 * `path` too: nothing there, a directory of that name, or a file no one
 * may run (no execute bit at all). Decided by what the file is, never by
 * whether this sandbox may run it: a file the host would run and the
 * sandbox may not ends the search, so that a later program of the same
 * name never runs in its place, unannounced (rustup's cargo refused,
 * the system's cargo run instead). A protected directory's cover on the
 * way could hide what the host would run: that ends the search too. An
 * execute bit for another user than ours counts as one for us: the
 * search stops rather than guess. */
static bool
host_passes_over(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno != EACCES || !behind_a_cover(path);
	return !S_ISREG(st.st_mode) || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH));
}

static void
copy_path(char *out, size_t len, const char *path)
{
	size_t n = strlen(path);

	if (n >= len)
		n = len - 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

/* Calls fn on each candidate "DIR/file" of `path`, in order, until it
 * returns true; returns that. An empty element (also a trailing one) is
 * the current directory, as POSIX says. */
static bool
each_candidate(const char *file, const char *path, bool (*fn)(const char *, void *), void *arg)
{
	char buf[PATH_MAX];
	size_t flen = strlen(file);

	for (const char *p = path, *end; p && *p != '\0'; p = *end ? end + 1 : end) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		if (dlen == 0) {
			buf[0] = '.';
			dlen = 1;
		} else {
			if (dlen >= sizeof(buf))
				continue;
			memcpy(buf, p, dlen);
		}
		if (dlen + 1 + flen + 1 > sizeof(buf))
			continue;
		buf[dlen] = '/';
		memcpy(buf + dlen + 1, file, flen + 1);
		if (fn(buf, arg))
			return true;
		/* "a:" ends with an empty element that the loop would
		 * skip: search it too. */
		if (*end == ':' && end[1] == '\0') {
			memcpy(buf, "./", 2);
			memcpy(buf + 2, file, flen + 1);
			return fn(buf, arg);
		}
	}
	return false;
}

struct search {
	char *const *argv;
	char *const *envp;
	struct execpath_miss *miss;
	int err;	/* the stopping candidate's errno; 0: none */
	bool past;	/* looking for a later match (no exec) */
	struct stat stop; /* the file it stopped at (st_ino 0: unknown) */
};

static bool
try_exec(const char *cand, void *arg)
{
	struct search *s = arg;
	int err;

	if (s->past) {
		struct stat st;

		/* The same file again (/bin is /usr/bin on merged-/usr
		 * systems) is no other program. */
		if (host_passes_over(cand) ||
		    (stat(cand, &st) == 0 && st.st_dev == s->stop.st_dev &&
		     st.st_ino == s->stop.st_ino))
			return false;
		if (s->miss)
			copy_path(s->miss->later, sizeof(s->miss->later), cand);
		return true;
	}
	execve(cand, s->argv, s->envp);
	err = errno;
	if (keep_searching(err) || host_passes_over(cand))
		return false;
	s->err = err;
	if (stat(cand, &s->stop) < 0)
		s->stop.st_ino = 0;
	if (s->miss)
		copy_path(s->miss->tried, sizeof(s->miss->tried), cand);
	return true;
}

/* After the stop: the candidate it stopped at, skipped again by count. */
struct after {
	struct search *s;
	const char *stop;
	bool seen;
};

static bool
after_stop(const char *cand, void *arg)
{
	struct after *a = arg;

	if (!a->seen) {
		a->seen = strcmp(cand, a->stop) == 0;
		return false;
	}
	return try_exec(cand, a->s);
}

int
execpath_exec(const char *file, char *const argv[], char *const envp[], const char *path,
	      struct execpath_miss *miss)
{
	struct search s = { .argv = argv, .envp = envp, .miss = miss };

	if (miss)
		miss->tried[0] = miss->later[0] = '\0';
	if (file[0] == '\0')
		return -ENOENT;
	if (strchr(file, '/')) {
		execve(file, argv, envp);
		s.err = errno;
		if (miss)
			copy_path(miss->tried, sizeof(miss->tried), file);
		return -s.err;
	}
	if (!each_candidate(file, path, try_exec, &s))
		return -ENOENT;
	/* Whether PATH holds another of that name, for the message: the
	 * one a search that went on would have run. */
	if (miss) {
		char stop[PATH_MAX];
		struct after a = { .s = &s, .stop = stop };

		copy_path(stop, sizeof(stop), miss->tried);
		s.past = true;
		each_candidate(file, path, after_stop, &a);
	}
	return -s.err;
}

int
execpath_status(int err)
{
	if (err < 0)
		err = -err;
	if (err == ENOENT || err == ENOTDIR)
		return EXECPATH_NOT_FOUND;
	return EXECPATH_NOT_EXECUTABLE;
}

/* SPDX-License-Identifier: MIT
 * Working directory life cycle; see workdir.h. */
#include <stdbool.h>

#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "errmsg.h"
#include "pathexpand.h"

/* ${CWD} is the launch directory; everything else is the launcher's
 * environment. ${WORKDIR} never gets here (wd_expand refuses it). */
struct wd_vars {
	char *const *env;
	const char *cwd;
};

static const char *
wd_lookup(const char *name, void *ctx)
{
	const struct wd_vars *v = ctx;

	if (strcmp(name, "CWD") == 0)
		return v->cwd;
	return envb_lookup(v->env, name);
}

int
wd_expand(const char *tmpl, char *const *env, const char *cwd, char *out,
	  size_t outlen, char *err, size_t errlen)
{
	struct wd_vars v = { env, cwd };
	struct px_info info;
	char why[PATH_MAX + 256];
	int r;

	if (strstr(tmpl, "${WORKDIR}"))
		return rt_error(err, errlen, -EINVAL,
			    "\"%s\": ${WORKDIR} cannot name the working directory itself", tmpl);
	r = px_expand(tmpl, wd_lookup, &v, out, outlen, &info);
	if (r < 0)
		return rt_error(err, errlen, r, "\"%s\": %s", tmpl,
			    px_describe(&info, why, sizeof(why)));
	return 0;
}

/* $XDG_RUNTIME_DIR is per-user and private by contract, but it is only an
 * environment variable: check that it is. */
static bool
usable_runtime_dir(const char *dir)
{
	struct stat st;

	return dir && dir[0] == '/' && lstat(dir, &st) == 0 &&
	       S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 077) == 0 && access(dir, W_OK | X_OK) == 0;
}

static bool
usable_tmp_dir(const char *dir)
{
	struct stat st;

	return dir && dir[0] == '/' && stat(dir, &st) == 0 &&
	       S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
}

static void
random_name(char *out, size_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[16];
	struct timespec ts;

	if (getrandom(rnd, n, GRND_NONBLOCK) != (ssize_t)n) {
		/* Only unpredictable names need getrandom: mkdir refuses an
		 * existing name, so a guessable one is retried, not raced. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < n; i++)
			rnd[i] = (unsigned char)((unsigned long)ts.tv_nsec >> (i * 3) ^
						 (unsigned long)getpid() >> i);
	}
	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
	out[n] = '\0';
}

/* Creates dir/tmp (0700) in a kept working directory or accepts an
 * existing directory there: temporary files stay apart from the user's. */
static int
make_tmp(struct wd *wd, char *err, size_t errlen)
{
	struct stat st;

	if (snprintf(wd->tmp, sizeof(wd->tmp), "%s/tmp", wd->path) >= (int)sizeof(wd->tmp))
		return rt_error(err, errlen, -ENAMETOOLONG, "%s/tmp: path too long", wd->path);
	if (mkdir(wd->tmp, 0700) == 0)
		wd->tmp_made = true;
	else if (errno != EEXIST)
		return rt_error(err, errlen, -errno, "%s: %s", wd->tmp, strerror(errno));
	/* A kept directory may hold what an earlier sandbox left: TMPDIR
	 * must not lead through a link it planted. */
	if (lstat(wd->tmp, &st) < 0)
		return rt_error(err, errlen, -errno, "%s: %s", wd->tmp, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rt_error(err, errlen, -ENOTDIR, "%s: not a directory", wd->tmp);
	return 0;
}

/* The user's runtime directory, TMPDIR or /tmp (the first usable),
 * resolved, into base (PATH_MAX). */
static int
mount_point_base(char *const *env, char *base)
{
	const char *xdg = envb_lookup(env, "XDG_RUNTIME_DIR");
	const char *tmpdir = envb_lookup(env, "TMPDIR");

	if (usable_runtime_dir(xdg))
		return realpath(xdg, base) ? 0 : -errno;
	if (usable_tmp_dir(tmpdir))
		return realpath(tmpdir, base) ? 0 : -errno;
	return realpath("/tmp", base) ? 0 : -errno;
}

#define WD_NAME_LEN 8

/* rename(2), never over an existing name. */
static int
rename_noreplace(const char *from, const char *to)
{
#ifdef __linux__
	return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */) == 0
		       ? 0
		       : -1;
#else
	return renamex_np(from, to, RENAME_EXCL);
#endif
}

int
wd_mount_point(char *out, size_t cap, const char *prefix, char *const *env, int *lock,
	       char *err, size_t errlen)
{
	char base[PATH_MAX], name[16], hidden[PATH_MAX];
	int r, fd;

	*lock = -1;
	if ((r = mount_point_base(env, base)) < 0)
		return rt_error(err, errlen, r, "no usable temporary directory: %s", strerror(-r));
	for (int tries = 0;; tries++) {
		random_name(name, WD_NAME_LEN);
		if (snprintf(hidden, sizeof(hidden), "%s/.%s-%s", base, prefix, name) >=
		    (int)sizeof(hidden))
			return rt_error(err, errlen, -ENAMETOOLONG, "%s: path too long", base);
		/* The sticky bit marks a mount point that is locked: one an
		 * earlier heel-exec made (no lock, no mark) is never swept,
		 * though it may be in use. On a 0700 directory of ours it
		 * changes nothing else. */
		if (mkdir(hidden, 0700 | S_ISVTX) == 0)
			break;
		if (errno != EEXIST || tries == 100)
			return rt_error(err, errlen, -errno, "%s: %s", hidden, strerror(errno));
	}
	/* Held as long as any process of this launch lives (the forks of
	 * heel-exec share it; an exec closes it): a sweep that can take
	 * the lock knows the launch is gone. */
	fd = open(hidden, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_SH) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		rmdir(hidden);
		return rt_error(err, errlen, r, "%s: %s", hidden, strerror(-r));
	}
	for (int tries = 0;; tries++) {
		if (snprintf(out, cap, "%s/%s-%s", base, prefix, name) >= (int)cap) {
			r = -ENAMETOOLONG;
			break;
		}
		if (rename_noreplace(hidden, out) == 0) {
			*lock = fd;
			return 0;
		}
		r = -errno;
		if (errno != EEXIST || tries == 100)
			break;
		random_name(name, WD_NAME_LEN);
	}
	close(fd);
	rmdir(hidden);
	return rt_error(err, errlen, r, "%s: %s", out, strerror(-r));
}

/* PREFIX-XXXXXXXX as wd_mount_point names them. Never the hidden name
 * one has between its mkdir and its lock: a sweep then would remove the
 * directory of a launch that is only starting. (A launch killed in that
 * moment leaves an empty .PREFIX-XXXXXXXX, which stays.) */
static bool
mount_point_name(const char *n)
{
	static const char *const prefixes[] = { "heel-ipc-", "heel-" };
	size_t len;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		len = strlen(prefixes[i]);
		if (strncmp(n, prefixes[i], len) == 0 && strlen(n + len) == WD_NAME_LEN &&
		    strspn(n + len, "abcdefghijklmnopqrstuvwxyz0123456789") == WD_NAME_LEN)
			return true;
	}
	return false;
}

/* Whether the last sweep was less than a minute ago; if not (or there
 * was none), the stamp is renewed and a sweep is due. */
static bool
swept_lately(const char *stamp)
{
	struct timespec now;
	struct stat st;
	int fd;

	if (!stamp)
		return false;
	fd = open(stamp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	fd = open(stamp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime <= now.tv_sec &&
	    now.tv_sec - st.st_mtime < 60) {
		close(fd);
		return true;
	}
	futimens(fd, NULL);
	close(fd);
	return false;
}

int
wd_sweep(char *const *env, const char *stamp)
{
	char base[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int bfd, dfd, fd, n = 0;
	DIR *d;

	if (swept_lately(stamp) || mount_point_base(env, base) < 0)
		return 0;
	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		return 0;
	if ((dfd = dup(bfd)) < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		close(bfd);
		return 0;
	}
	while ((e = readdir(d))) {
		if (!mount_point_name(e->d_name) ||
		    fstatat(bfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || !(st.st_mode & S_ISVTX))
			continue;
		fd = openat(bfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Taken: no process of that launch is left. rmdir removes it
		 * only while it is empty, and a launch never reuses a name. */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(bfd, e->d_name, AT_REMOVEDIR) == 0)
			n++;
		close(fd);
	}
	closedir(d);
	close(bfd);
	return n;
}

int
wd_create(struct wd *wd, char *const *env, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	*wd = (struct wd){ .lock = -1 };
	if ((r = wd_mount_point(wd->path, sizeof(wd->path), "heel", env, &fd, err, errlen)) < 0)
		return r;
	wd->remove = true;

	/* The umask may have taken bits away; nothing may add any. */
	if (fstat(fd, &st) < 0 || fchmod(fd, 0700 | S_ISVTX) < 0) {
		r = -errno;
		close(fd);
		rmdir(wd->path);
		wd->remove = false;
		return rt_error(err, errlen, r, "%s: %s", wd->path, strerror(-r));
	}
	wd->lock = fd;
	wd->dev = st.st_dev;
	wd->ino = st.st_ino;
	/* TMPDIR is the fresh directory itself, as in the original heel: a
	 * tmp/ inside it would keep nothing apart (all of it goes at exit)
	 * and costs a mkdir and an rmdir, 60-130 us on ext4 with discard. */
	memcpy(wd->tmp, wd->path, sizeof(wd->tmp));
	return 0;
}

/* Places beneath the system's trees where users keep their own things:
 * the shared temporary directories, homes (never a home itself: all of
 * ~/.bashrc, ~/.ssh would become writable), the user's runtime
 * directory, and /srv, /opt, /mnt, /media, which hold sites, add-on
 * software and mounted disks rather than the system. */
static bool
user_place(const char *path, unsigned uid)
{
	static const char *const under[] = {
		"/var/tmp/", "/dev/shm/", "/srv/", "/opt/", "/mnt/", "/media/",
	};
	char run[48];
	const char *s;
	size_t n;

	for (size_t i = 0; i < sizeof(under) / sizeof(under[0]); i++) {
		n = strlen(under[i]);
		if (strncmp(path, under[i], n) == 0 && path[n])
			return true;
	}
	n = (size_t)snprintf(run, sizeof(run), "/run/user/%u/", uid);
	if (strncmp(path, run, n) == 0 && path[n])
		return true;
	if (uid == 0 && strncmp(path, "/root/", 6) == 0 && path[6])
		return true;
	if (strncmp(path, "/home/", 6) == 0) {
		s = strchr(path + 6, '/');
		return s && s > path + 6 && s[1];
	}
	return false;
}

int
wd_refuse_place(const char *path, unsigned uid, char *err, size_t errlen)
{
	const char *top = px_system_top(path);

	if (!top || user_place(path, uid))
		return 0;
	if (strcmp(top, "/") == 0)
		return rt_error(err, errlen, -EPERM,
			    "/: the root directory cannot be the working directory, which the "
			    "sandbox may write as a whole; refusing");
	if ((strncmp(path, "/home/", 6) == 0 && !strchr(path + 6, '/')) || strcmp(path, "/root") == 0)
		return rt_error(err, errlen, -EPERM,
			    "%s: a home directory cannot be the working directory, which the "
			    "sandbox may write as a whole (~/.bashrc, ~/.ssh); refusing (use a "
			    "directory inside it)", path);
	return rt_error(err, errlen, -EPERM,
		    "%s: %s the system directory %s, and the sandbox may write the working "
		    "directory as a whole; refusing (use one under /tmp, /var/tmp or your home)",
		    path, strcmp(path, top) == 0 ? "is" : "is inside", top);
}

/* Resolves `dir` without creating anything: realpath() of the part that
 * exists, the missing rest appended as written. `*exist` is the length
 * of the existing part in `out`. A missing part may not hold "." or "..":
 * with no directory there, nothing says where they would lead. */
static int
resolve(const char *dir, char *out, size_t *exist, char *err, size_t errlen)
{
	char work[PATH_MAX], real[PATH_MAX];
	const char *tail;
	size_t n;

	if (!dir[0])
		return rt_error(err, errlen, -ENOENT, "the working directory is an empty path");
	if (snprintf(work, sizeof(work), "%s", dir) >= (int)sizeof(work))
		return rt_error(err, errlen, -ENAMETOOLONG, "%s: path too long", dir);
	for (;;) {
		char *slash;

		if (realpath(work[0] ? work : ".", real))
			break;
		if (errno != ENOENT)
			return rt_error(err, errlen, -errno, "%s: %s", dir, strerror(errno));
		/* Drop the last component (and the slashes before it). */
		n = strlen(work);
		while (n > 1 && work[n - 1] == '/')
			work[--n] = '\0';
		slash = strrchr(work, '/');
		if (!slash)
			work[0] = '\0';
		else if (slash == work)
			work[1] = '\0';
		else
			*slash = '\0';
	}
	tail = dir + strlen(work);
	if (snprintf(out, PATH_MAX, "%s", real) >= PATH_MAX)
		return rt_error(err, errlen, -ENAMETOOLONG, "%s: path too long", dir);
	*exist = strlen(out);
	n = *exist;
	while (*tail) {
		const char *e;
		size_t len;

		while (*tail == '/')
			tail++;
		if (!*tail)
			break;
		e = strchr(tail, '/');
		len = e ? (size_t)(e - tail) : strlen(tail);
		if ((len == 1 && tail[0] == '.') || (len == 2 && tail[0] == '.' && tail[1] == '.'))
			return rt_error(err, errlen, -EINVAL,
				    "%s: a . or .. in the part that does not exist yet", dir);
		if (n + (n > 1) + len >= PATH_MAX)
			return rt_error(err, errlen, -ENAMETOOLONG, "%s: path too long", dir);
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, tail, len);
		n += len;
		out[n] = '\0';
		tail += len;
	}
	return 0;
}

int
wd_check(const char *dir, char *out, size_t outlen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t exist;
	int r;

	if ((r = resolve(dir, path, &exist, err, errlen)) < 0)
		return r;
	if ((r = wd_refuse_place(path, (unsigned)geteuid(), err, errlen)) < 0)
		return r;
	if (snprintf(out, outlen, "%s", path) >= (int)outlen)
		return rt_error(err, errlen, -ENAMETOOLONG, "%s: path too long", path);
	return 0;
}

/* Creates the missing directories of wd->path beyond its first `exist`
 * bytes, mode 0700, and records in wd->made_from where the ones this
 * launch made begin. A directory someone else made meanwhile (EEXIST)
 * is theirs: what we made above it is forgotten rather than risk
 * removing theirs. */
static int
make_missing(struct wd *wd, size_t exist)
{
	char *p = wd->path;
	size_t len = strlen(p);

	for (size_t i = exist + 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0700) == 0) {
			if (!wd->made_from)
				wd->made_from = exist;
		} else if (errno == EEXIST) {
			wd->made_from = 0;
		} else {
			int e = errno;

			if (i < len)
				p[i] = '/';
			return -e;
		}
		if (i < len)
			p[i] = '/';
		exist = i;
	}
	return 0;
}

int
wd_use(struct wd *wd, const char *dir, char *err, size_t errlen)
{
	char real[PATH_MAX];
	struct stat st;
	size_t exist;
	int r;

	*wd = (struct wd){ .lock = -1 };
	/* Every refusal that depends only on the name comes before the
	 * first mkdir: a refused launch leaves nothing behind. */
	if ((r = resolve(dir, wd->path, &exist, err, errlen)) < 0)
		return r;
	if ((r = wd_refuse_place(wd->path, (unsigned)geteuid(), err, errlen)) < 0)
		return r;
	if ((r = make_missing(wd, exist)) < 0) {
		r = rt_error(err, errlen, r, "%s: %s", wd->path, strerror(-r));
		goto fail;
	}
	/* What we made (or found) must still be the directory we named: a
	 * link planted in the meantime would move the sandbox elsewhere. */
	if (!realpath(wd->path, real)) {
		r = rt_error(err, errlen, -errno, "%s: %s", wd->path, strerror(errno));
		goto fail;
	}
	if (strcmp(real, wd->path) != 0 || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		r = rt_error(err, errlen, -ENOTDIR,
			     "%s: not a directory, or it changed while being made", wd->path);
		goto fail;
	}
	if ((r = make_tmp(wd, err, errlen)) < 0)
		goto fail;
	return 0;
fail:
	wd_abandon(wd);
	return r;
}

int
wd_abandon(struct wd *wd)
{
	char p[PATH_MAX];
	char *slash;
	int r = 0;

	if (wd->remove)
		return wd_remove(wd);
	if (wd->tmp_made && rmdir(wd->tmp) < 0 && errno != ENOENT)
		r = -errno;
	wd->tmp_made = false;
	if (!wd->made_from)
		return r;
	snprintf(p, sizeof(p), "%s", wd->path);
	/* rmdir() removes only an empty directory, and only the ones this
	 * launch made are tried, deepest first. */
	while (strlen(p) > wd->made_from) {
		if (rmdir(p) < 0 && errno != ENOENT) {
			r = r ? r : -errno;
			break;
		}
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	wd->made_from = 0;
	return r;
}

/* Opens a directory entry without following a link; when the sandbox took
 * our read or search right away, gives it back first (fchmodat with
 * AT_SYMLINK_NOFOLLOW refuses a link rather than following it). */
static int
open_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EACCES &&
	    fchmodat(dirfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* Gives us rwx on a directory, so its entries can be listed and unlinked. */
static int
make_writable(int fd, struct stat *st)
{
	if ((st->st_mode & 0700) == 0700)
		return 0;
	return fchmod(fd, (st->st_mode & 07777) | 0700) < 0 ? -errno : 0;
}

/* Empties the directory open at fd (consumed). Iterative: it walks down
 * into the first non-empty subdirectory, and back up through ".." when a
 * directory is empty, where the next scan removes it; so a tree of any
 * depth takes two descriptors. Nothing runs in the tree any more, so ".."
 * is where we came from; the identity check at the end proves it. */
static int
empty_tree(int fd)
{
	struct stat root, st;
	unsigned long depth = 0;
	struct dirent *e;
	DIR *d;
	int r = 0, dfd, child;

	if (fstat(fd, &root) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	st = root;
	for (;;) {
		bool descended = false;

		if ((r = make_writable(fd, &st)) < 0)
			break;
		dfd = dup(fd);
		if (dfd < 0 || !(d = fdopendir(dfd))) {
			r = -errno;
			if (dfd >= 0)
				close(dfd);
			break;
		}
		/* The dup shares the file offset with an earlier scan. */
		rewinddir(d);
		while (!descended && (errno = 0, e = readdir(d))) {
			const char *n = e->d_name;

			if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
				continue;
			/* unlinkat(0) removes a symbolic link itself, never
			 * its target. */
			if (unlinkat(fd, n, 0) == 0 || errno == ENOENT)
				continue;
			if (errno != EISDIR && errno != EPERM) {
				r = -errno;
				break;
			}
			if (unlinkat(fd, n, AT_REMOVEDIR) == 0 || errno == ENOENT)
				continue;
			if (errno != ENOTEMPTY && errno != EEXIST) {
				r = -errno;
				break;
			}
			child = open_dir(fd, n);
			if (child < 0) {
				r = -errno;
				break;
			}
			if (fstat(child, &st) < 0 || st.st_dev != root.st_dev) {
				/* Another file system mounted in the tree is
				 * not ours to delete. */
				r = errno ? -errno : -EXDEV;
				close(child);
				break;
			}
			close(fd);
			fd = child;
			depth++;
			descended = true;
		}
		if (!descended && r == 0 && errno != 0)
			r = -errno;
		closedir(d);
		if (r < 0)
			break;
		if (descended)
			continue;
		if (depth == 0)
			break;
		child = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (child < 0 || fstat(child, &st) < 0) {
			r = -errno;
			if (child >= 0)
				close(child);
			break;
		}
		close(fd);
		fd = child;
		depth--;
	}
	if (r == 0 && (fstat(fd, &st) < 0 || st.st_dev != root.st_dev ||
		       st.st_ino != root.st_ino))
		r = -ESTALE;
	close(fd);
	return r;
}

int
wd_remove(struct wd *wd)
{
	char parent[PATH_MAX], *slash;
	const char *name;
	struct stat st;
	int pfd, fd, r;

	if (!wd->remove)
		return 0;
	snprintf(parent, sizeof(parent), "%s", wd->path);
	slash = strrchr(parent, '/');
	if (!slash || slash[1] == '\0')
		return -EINVAL;
	name = wd->path + (slash - parent) + 1;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';

	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	fd = open_dir(pfd, name);
	if (fd < 0) {
		r = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	if (fstat(fd, &st) < 0 || st.st_dev != wd->dev || st.st_ino != wd->ino) {
		/* Not the directory we made: leave it alone. */
		r = -ESTALE;
		close(fd);
		goto out;
	}
	r = empty_tree(fd);
	if (r == 0 && unlinkat(pfd, name, AT_REMOVEDIR) < 0)
		r = -errno;
	if (r == 0)
		wd->remove = false;
out:
	close(pfd);
	/* Gone, or left for a sweep to find once we are. */
	if (wd->lock >= 0)
		close(wd->lock);
	wd->lock = -1;
	return r;
}

/* Empties the directory open at fd (not consumed), a descriptor a level:
 * see wd_remove_tree_at. */
static int
empty_live(int fd, dev_t dev, unsigned depth)
{
	int dfd = dup(fd), child, r = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	rewinddir(d);
	while (r == 0 && (errno = 0, e = readdir(d))) {
		const char *n = e->d_name;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (unlinkat(fd, n, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			r = -errno;
			break;
		}
		if (unlinkat(fd, n, AT_REMOVEDIR) == 0 || errno == ENOENT)
			continue;
		if (errno != ENOTEMPTY && errno != EEXIST) {
			r = -errno;
			break;
		}
		if (depth >= WD_TREE_MAX_DEPTH) {
			r = -ELOOP;
			break;
		}
		if ((child = open_dir(fd, n)) < 0) {
			r = errno == ENOENT ? 0 : -errno;
			continue;
		}
		if (fstat(child, &st) < 0 || st.st_dev != dev)
			r = errno ? -errno : -EXDEV; /* not ours to delete */
		else if ((r = make_writable(child, &st)) == 0 &&
			 (r = empty_live(child, dev, depth + 1)) == 0 &&
			 unlinkat(fd, n, AT_REMOVEDIR) < 0 && errno != ENOENT)
			r = -errno;
		close(child);
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(d);
	return r;
}

int
wd_remove_tree_at(int dirfd, const char *name)
{
	struct stat st;
	int fd = open_dir(dirfd, name), r;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	errno = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if ((r = make_writable(fd, &st)) == 0 && (r = empty_live(fd, st.st_dev, 1)) == 0 &&
		 unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		r = -errno;
	close(fd);
	return r;
}

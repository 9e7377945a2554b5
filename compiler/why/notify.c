/* SPDX-License-Identifier: MIT
 * heel-why: a seccomp notification as denial events; see notify.h. */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

/* How a call names its path: which argument holds the directory
 * descriptor (-1: none, relative to the cwd), the path, the flags. */
enum how {
	H_OPEN,
	H_OPENAT,
	H_OPENAT2,
	H_PATH,
	H_AT,
	H_TWO,
	H_TWO_AT,
	H_SYMLINK,
	H_SYMLINKAT,
	H_EXECAT,
	H_FLAGS_AT,
	H_SOCK,
	H_SENDTO
};

struct call {
	int nr;
	enum how how;
	unsigned op;	  /* enum denial_op; for H_OPEN* decided by the flags */
	int nofollow_arg; /* the argument whose AT_SYMLINK_NOFOLLOW applies; -1 */
};

static const struct call calls[] = {
#ifdef __NR_open
    {__NR_open, H_OPEN, DENIAL_OPEN_READ, -1},
    {__NR_creat, H_PATH, DENIAL_CREATE, -1},
    {__NR_unlink, H_PATH, DENIAL_UNLINK, -1},
    {__NR_rmdir, H_PATH, DENIAL_UNLINK, -1},
    {__NR_mkdir, H_PATH, DENIAL_MKDIR, -1},
    {__NR_rename, H_TWO, DENIAL_RENAME, -1},
    {__NR_link, H_TWO, DENIAL_LINK, -1},
    {__NR_symlink, H_SYMLINK, DENIAL_CREATE, -1},
    {__NR_mknod, H_PATH, DENIAL_CREATE, -1},
    {__NR_chmod, H_PATH, DENIAL_SETATTR, -1},
    {__NR_chown, H_PATH, DENIAL_SETATTR, -1},
    {__NR_lchown, H_PATH, DENIAL_SETATTR, -2},
    {__NR_utimes, H_PATH, DENIAL_SETATTR, -1},
    {__NR_utime, H_PATH, DENIAL_SETATTR, -1},
    {__NR_futimesat, H_AT, DENIAL_SETATTR, -1},
#endif
    {__NR_openat, H_OPENAT, DENIAL_OPEN_READ, -1},
    {__NR_openat2, H_OPENAT2, DENIAL_OPEN_READ, -1},
    {__NR_execve, H_PATH, DENIAL_EXEC, -1},
    {__NR_execveat, H_EXECAT, DENIAL_EXEC, 4},
    {__NR_unlinkat, H_AT, DENIAL_UNLINK, -1},
    {__NR_mkdirat, H_AT, DENIAL_MKDIR, -1},
    {__NR_renameat, H_TWO_AT, DENIAL_RENAME, -1},
    {__NR_renameat2, H_TWO_AT, DENIAL_RENAME, -1},
    {__NR_linkat, H_TWO_AT, DENIAL_LINK, -1},
    {__NR_symlinkat, H_SYMLINKAT, DENIAL_CREATE, -1},
    {__NR_mknodat, H_AT, DENIAL_CREATE, -1},
    {__NR_fchmodat, H_AT, DENIAL_SETATTR, -1},
    {__NR_fchownat, H_FLAGS_AT, DENIAL_SETATTR, 4},
    {__NR_truncate, H_PATH, DENIAL_OPEN_WRITE, -1},
    {__NR_utimensat, H_FLAGS_AT, DENIAL_SETATTR, 3},
    {__NR_setxattr, H_PATH, DENIAL_SETATTR, -1},
    {__NR_lsetxattr, H_PATH, DENIAL_SETATTR, -2},
    {__NR_removexattr, H_PATH, DENIAL_SETATTR, -1},
    {__NR_lremovexattr, H_PATH, DENIAL_SETATTR, -2},
    {__NR_connect, H_SOCK, DENIAL_CONNECT, -1},
    {__NR_bind, H_SOCK, DENIAL_BIND, -1},
    {__NR_sendto, H_SENDTO, DENIAL_SENDTO, -1},
};

/* Reads a NUL-terminated string at addr of pid, a page at most at a
 * time (process_vm_readv stops at the first unmapped page). */
static int
read_string(pid_t pid, uint64_t addr, char *out, size_t cap)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < cap - 1) {
		size_t page_left = 4096 - ((addr + got) & 4095), want = cap - 1 - got;
		struct iovec local, remote;
		ssize_t n;

		if (want > page_left)
			want = page_left;
		local = (struct iovec){out + got, want};
		remote = (struct iovec){(void *)(uintptr_t)(addr + got), want};
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return n < 0 ? -errno : -EFAULT;
		if (memchr(out + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int
read_bytes(pid_t pid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = {out, len}, remote = {(void *)(uintptr_t)addr, len};

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* The directory a relative path starts from, as the target sees it. */
static int
base_dir(pid_t pid, int dfd, char *out, size_t cap)
{
	char link[64];
	ssize_t n;

	if (dfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, dfd);
	n = readlink(link, out, cap - 1);
	if (n <= 0)
		return -errno;
	out[n] = '\0';
	return out[0] == '/' ? 0 : -EINVAL;
}

/* Opens `abs` (O_PATH) inside the target's root, as its own lookups
 * resolve it (absolute links stay in that root), and gives the path the
 * kernel will judge. -ENOENT when it is not there. */
static int
resolve_in_root(pid_t pid, const char *abs, bool follow, char *out, size_t cap)
{
	char root[64], self[64];
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int rfd, fd;
	ssize_t n;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	if ((rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rfd, abs, &how, sizeof(how));
	close(rfd);
	if (fd < 0)
		return -errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, out, cap - 1);
	close(fd);
	if (n <= 0 || out[0] != '/')
		return -EINVAL;
	out[n] = '\0';
	return 0;
}

/* The absolute path a call names (dfd AT_FDCWD: relative to its cwd). */
static int
absolute(pid_t pid, int dfd, const char *path, char *out, size_t cap)
{
	char base[PATH_MAX];
	int r;

	if (path[0] == '/')
		return snprintf(out, cap, "%s", path) < (int)cap ? 0 : -ENAMETOOLONG;
	if ((r = base_dir(pid, dfd, base, sizeof(base))) < 0)
		return r;
	return snprintf(out, cap, "%s/%s", strcmp(base, "/") ? base : "", path) < (int)cap
		   ? 0
		   : -ENAMETOOLONG;
}

/* Removes "." and ".." components and repeated '/' of absolute `p`, in
 * place (".." at the root stays at the root, as the kernel has it). */
static void
clean(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		char *end;
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchr(in, '/');
		n = end ? (size_t)(end - in) : strlen(in);
		if (n == 1 && in[0] == '.') {
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Fills ev->path with what the kernel will judge: the file itself for
 * an operation on an existing file, the resolved directory and the new
 * name for one that makes or removes a name. 1 when there is something
 * to judge, 0 when the call will fail on its own (ENOENT, EEXIST). */
static int
path_event(pid_t pid, int dfd, uint64_t addr, unsigned op, bool follow, bool excl,
	   struct denial_event *ev, bool *unresolved)
{
	char path[PATH_MAX], abs[PATH_MAX], dir[PATH_MAX];
	char *slash, *last;
	bool entry = op == DENIAL_CREATE || op == DENIAL_MKDIR || op == DENIAL_LINK ||
		     op == DENIAL_UNLINK || op == DENIAL_RENAME;
	int r;

	if (read_string(pid, addr, path, sizeof(path)) < 0 || !path[0])
		return 0;
	if (absolute(pid, dfd, path, abs, sizeof(abs)) < 0)
		return 0;
	ev->op = op;
	*unresolved = false;
	if (!entry) {
		if (resolve_in_root(pid, abs, follow, ev->path, sizeof(ev->path)) == 0)
			return 1;
		clean(abs);
		snprintf(ev->path, sizeof(ev->path), "%s", abs);
		*unresolved = true;
		return 1;
	}
	/* A name made or removed: its directory must exist; the name
	 * itself is judged as its directory's entry. */
	while (strlen(abs) > 1 && abs[strlen(abs) - 1] == '/')
		abs[strlen(abs) - 1] = '\0';
	slash = strrchr(abs, '/');
	last = slash + 1;
	if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return 0;
	*slash = '\0';
	if (resolve_in_root(pid, abs[0] ? abs : "/", true, dir, sizeof(dir)) < 0) {
		snprintf(dir, sizeof(dir), "%s", abs[0] ? abs : "/");
		clean(dir);
		*unresolved = true;
	}
	r = snprintf(ev->path, sizeof(ev->path), "%s/%s", strcmp(dir, "/") ? dir : "", last);
	if (r >= (int)sizeof(ev->path))
		return 0;
	if (!*unresolved && (op == DENIAL_CREATE || op == DENIAL_MKDIR)) {
		char there[PATH_MAX];
		bool exists = resolve_in_root(pid, ev->path, false, there, sizeof(there)) == 0;

		/* EEXIST is the kernel's own answer; an O_CREAT open of an
		 * existing file is a write to it. */
		if (exists && (op == DENIAL_MKDIR || excl))
			return 0;
		if (exists)
			ev->op = DENIAL_OPEN_WRITE;
	}
	return 1;
}

static unsigned
open_op(uint64_t flags, bool *skip)
{
	*skip = (flags & O_PATH) != 0;
	if (flags & O_CREAT)
		return DENIAL_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return DENIAL_OPEN_WRITE;
	return DENIAL_OPEN_READ;
}

static int
sock_event(pid_t pid, uint64_t addr, uint64_t len, struct denial_event *ev)
{
	struct sockaddr_storage ss = {0};

	if (!addr || len < sizeof(sa_family_t))
		return 0;
	if (len > sizeof(ss))
		len = sizeof(ss);
	if (read_bytes(pid, addr, &ss, (size_t)len) < 0)
		return 0;
	ev->family = ss.ss_family;
	if (ss.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)&ss;

		ev->port = ntohs(in->sin_port);
		memcpy(ev->addr, &in->sin_addr, 4);
		return 1;
	}
	if (ss.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)&ss;

		ev->port = ntohs(in6->sin6_port);
		memcpy(ev->addr, &in6->sin6_addr, 16);
		return 1;
	}
	if (ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)&ss;
		size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);

		/* Abstract names are scoped by Landlock, not named by a rule. */
		if (!n || un->sun_path[0] == '\0')
			return 0;
		snprintf(ev->path, sizeof(ev->path), "%.*s", (int)strnlen(un->sun_path, n),
			 un->sun_path);
		return ev->path[0] == '/';
	}
	return 0;
}

static void
comm_of(pid_t pid, char *out, size_t cap)
{
	char name[64];
	int fd;
	ssize_t n;

	snprintf(name, sizeof(name), "/proc/%d/comm", (int)pid);
	out[0] = '\0';
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, out, cap - 1);
	close(fd);
	if (n < 0)
		n = 0;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

static int
decode_call(const struct call *c, const struct seccomp_notif *n, struct denial_event *ev,
	    bool *unres)
{
	const __u64 *a = n->data.args;
	pid_t pid = (pid_t)n->pid;
	bool follow = true, skip = false;
	unsigned op = c->op;
	int k = 0;

	if (c->nofollow_arg == -2)
		follow = false;
	else if (c->nofollow_arg >= 0)
		follow = !(a[c->nofollow_arg] & AT_SYMLINK_NOFOLLOW);
	switch (c->how) {
	case H_OPEN:
		op = open_op(a[1], &skip);
		if (skip)
			return 0;
		return path_event(pid, AT_FDCWD, a[0], op, !(a[1] & O_NOFOLLOW), a[1] & O_EXCL, ev,
				  unres);
	case H_OPENAT:
		op = open_op(a[2], &skip);
		if (skip)
			return 0;
		return path_event(pid, (int)a[0], a[1], op, !(a[2] & O_NOFOLLOW), a[2] & O_EXCL, ev,
				  unres);
	case H_OPENAT2: {
		struct open_how how;

		if (read_bytes(pid, a[2], &how, sizeof(how)) < 0)
			return 0;
		op = open_op(how.flags, &skip);
		if (skip)
			return 0;
		return path_event(pid, (int)a[0], a[1], op, !(how.flags & O_NOFOLLOW),
				  how.flags & O_EXCL, ev, unres);
	}
	case H_PATH:
		return path_event(pid, AT_FDCWD, a[0], op, follow, false, ev, unres);
	case H_AT:
	case H_FLAGS_AT:
		/* utimensat and fchownat on a descriptor: nothing named. */
		if (!a[1])
			return 0;
		return path_event(pid, (int)a[0], a[1], op, follow, false, ev, unres);
	case H_EXECAT:
		if (a[4] & AT_EMPTY_PATH)
			return 0;
		return path_event(pid, (int)a[0], a[1], op, follow, false, ev, unres);
	case H_TWO:
		if (op == DENIAL_RENAME)
			k += path_event(pid, AT_FDCWD, a[0], op, false, false, &ev[k], &unres[k]);
		k += path_event(pid, AT_FDCWD, a[1], op, false, false, &ev[k], &unres[k]);
		return k;
	case H_TWO_AT:
		if (op == DENIAL_RENAME)
			k += path_event(pid, (int)a[0], a[1], op, false, false, &ev[k], &unres[k]);
		k += path_event(pid, (int)a[2], a[3], op, false, false, &ev[k], &unres[k]);
		return k;
	case H_SYMLINK:
		return path_event(pid, AT_FDCWD, a[1], op, false, true, ev, unres);
	case H_SYMLINKAT:
		return path_event(pid, (int)a[1], a[2], op, false, true, ev, unres);
	case H_SOCK:
		return sock_event(pid, a[1], a[2], ev);
	case H_SENDTO:
		return sock_event(pid, a[4], a[5], ev);
	}
	return 0;
}

int
wn_decode(int listener, const struct seccomp_notif *n, struct denial_event ev[WN_MAX_EVENTS],
	  bool unresolved[WN_MAX_EVENTS])
{
	const struct call *c = NULL;
	char comm[DENIAL_COMM_MAX];
	int k;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == n->data.nr)
			c = &calls[i];
	if (!c)
		return 0;
	for (int i = 0; i < WN_MAX_EVENTS; i++) {
		unresolved[i] = false;
		ev[i] = (struct denial_event){.version = DENIAL_VERSION,
					      .source = DENIAL_SRC_NOTIFY,
					      .op = c->op,
					      .pid = (int32_t)n->pid,
					      .nr = (uint32_t)n->data.nr,
					      .arch = n->data.arch};
		memcpy(ev[i].args, n->data.args, sizeof(ev[i].args));
	}
	k = decode_call(c, n, ev, unresolved);
	comm_of((pid_t)n->pid, comm, sizeof(comm));
	/* All of it read from a process that was still the caller: a PID
	 * reused since would have answered for another process. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) < 0)
		return -ENOENT;
	for (int i = 0; i < k; i++)
		memcpy(ev[i].comm, comm, sizeof(comm));
	return k;
}

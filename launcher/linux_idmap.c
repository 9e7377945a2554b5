/* SPDX-License-Identifier: MIT
 * An idmapped copy of a mount tree that no host user owns; see
 * linux_idmap.h. */
#include "linux_idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "write_once.h"

/* The new mount API's numbers and flags are fixed; glibc's and musl's
 * headers may lack them (and <linux/mount.h> clashes with <sys/mount.h>). */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#define IDMAP_OPEN_TREE_CLONE 1u
#define IDMAP_OPEN_TREE_CLOEXEC O_CLOEXEC
#define IDMAP_AT_RECURSIVE 0x8000
#define IDMAP_MOVE_MOUNT_F_EMPTY_PATH 0x4u
#define IDMAP_ATTR_RDONLY 0x1ull
#define IDMAP_ATTR_IDMAP 0x100000ull

struct idmap_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

/* The one id the namespace maps, to itself: the highest valid one, which
 * no account uses. Every other host id is unmapped there, so the mount
 * shows files as the overflow ids and matches no caller's uid or groups
 * (an empty map is refused: EINVAL). */
static const char one_unused_id[] = "4294967294 4294967294 1\n";

/* The holder of the user namespace shares our memory (no copy of the
 * page tables) and waits on the pipe until we have its namespace open.
 * Raw system calls only: errno is our thread's, and ours is running. */
static int holder_pipe[2];

static int
holder_main(void *arg)
{
	char c;

	(void)arg;
	syscall(SYS_close, holder_pipe[1]);
	(void)!syscall(SYS_read, holder_pipe[0], &c, 1);
	return 0;
}

/* A user namespace that maps one_unused_id only: its descriptor, or
 * -errno. */
static int
unowned_userns(char *err, size_t errlen)
{
	static char stack[16384] __attribute__((aligned(16)));
	char path[64];
	int ns = -1, e = 0;
	pid_t pid;

	if (pipe2(holder_pipe, O_CLOEXEC) < 0)
		return rt_error(err, errlen, -errno, "pipe: %s", strerror(errno));
	pid = clone(holder_main, stack + sizeof(stack), CLONE_NEWUSER | CLONE_VM | SIGCHLD,
		    NULL);
	if (pid < 0) {
		e = errno;
		close(holder_pipe[0]);
		close(holder_pipe[1]);
		return rt_error(err, errlen, -e, "a user namespace for the idmapped mount: %s",
			    strerror(e));
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	e = -write_once(path, one_unused_id);
	if (!e) {
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		e = -write_once(path, one_unused_id);
	}
	if (!e) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			e = errno;
	}
	close(holder_pipe[0]);
	close(holder_pipe[1]);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	if (e)
		return rt_error(err, errlen, -e, "the idmapped mount's user namespace: %s",
			    strerror(e));
	return ns;
}

int
idmap_unowned_tree(const char *path, char *err, size_t errlen)
{
	struct idmap_mount_attr a = { .attr_set = IDMAP_ATTR_IDMAP | IDMAP_ATTR_RDONLY };
	int ns, tree, e;

	if ((ns = unowned_userns(err, errlen)) < 0)
		return ns;
	tree = (int)syscall(__NR_open_tree, AT_FDCWD, path,
			    IDMAP_OPEN_TREE_CLONE | IDMAP_OPEN_TREE_CLOEXEC | IDMAP_AT_RECURSIVE);
	if (tree < 0) {
		e = errno;
		close(ns);
		return rt_error(err, errlen, -e, "open_tree %s: %s", path, strerror(e));
	}
	a.userns_fd = (uint64_t)ns;
	/* EINVAL: a file system in the tree cannot be idmapped. */
	if (syscall(__NR_mount_setattr, tree, "", AT_EMPTY_PATH | IDMAP_AT_RECURSIVE, &a,
		    sizeof(a)) < 0) {
		e = errno;
		close(ns);
		close(tree);
		return rt_error(err, errlen, -e, "idmapping %s: %s", path, strerror(e));
	}
	close(ns);
	return tree;
}

int
idmap_attach(int tree, const char *path, char *err, size_t errlen)
{
	if (syscall(__NR_move_mount, tree, "", AT_FDCWD, path, IDMAP_MOVE_MOUNT_F_EMPTY_PATH) == 0)
		return 0;
	return rt_error(err, errlen, -errno, "mounting the idmapped %s: %s", path, strerror(errno));
}

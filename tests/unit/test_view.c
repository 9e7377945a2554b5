/* SPDX-License-Identifier: MIT
 * The covers of the sandbox's view (launcher/linux_view.c), made for
 * real in a mount namespace of a child's own: a deny beneath a denied
 * directory (~/.docker/config.json under ~/.docker, as two protection
 * sets say) is what a kernel without Landlock turns into two covers, and
 * the second once made the launch fail ("cover ... No such file or
 * directory"). The host's mounts are never touched: everything happens
 * in the child's namespace, which ends with it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux_view.h"

/* Exit codes of the child, one a check, so a failure names its step. */
enum { OK = 0, NO_NS = 10, COVERS_FAILED, FILE_READABLE, DIR_LISTED, SIBLING_GONE };

static char dir[] = "/tmp/heel-test-view.XXXXXX";

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* The child: a mount namespace of its own (a user namespace first when
 * not root), then the covers of `plan`, then what the sandbox would see. */
static int
child(struct ll_plan *plan, const char *file, const char *sub, const char *sibling)
{
	char err[512] = "", uid[32], gid[32];
	uid_t u = getuid();
	gid_t g = getgid();
	int fd, r;

	if (unshare(CLONE_NEWNS | (u ? CLONE_NEWUSER : 0)) < 0)
		return NO_NS;
	if (u) {
		snprintf(uid, sizeof(uid), "%u %u 1", u, u);
		snprintf(gid, sizeof(gid), "%u %u 1", g, g);
		if ((fd = open("/proc/self/setgroups", O_WRONLY)) >= 0)
			(void)!write(fd, "deny", 4), close(fd);
		if ((fd = open("/proc/self/uid_map", O_WRONLY)) < 0 || write(fd, uid, strlen(uid)) < 0)
			return NO_NS;
		close(fd);
		if ((fd = open("/proc/self/gid_map", O_WRONLY)) < 0 || write(fd, gid, strlen(gid)) < 0)
			return NO_NS;
		close(fd);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return NO_NS;
	r = view_mount_covers(plan, false, false, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "view_mount_covers: %s\n", err);
		return COVERS_FAILED;
	}
	/* Root keeps its capabilities here; the mode 000 cover still shows
	 * no entries, and the file beneath is gone from view. */
	if (access(file, F_OK) == 0)
		return FILE_READABLE;
	if (access(sub, F_OK) == 0)
		return DIR_LISTED;
	if (access(sibling, R_OK) != 0)
		return SIBLING_GONE;
	return OK;
}

/* ~/.docker and ~/.docker/config.json both denied, in the order given
 * (dir_first: as ll_plan_build sorts them); the child's exit status. */
static int
covers_of(bool dir_first)
{
	char d[128], f[160], sub[160], sib[160];
	struct ll_mount_request m[2] = { 0 };
	struct ll_plan plan = { 0 };
	int status;
	pid_t pid;

	strcpy(dir, "/tmp/heel-test-view.XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(d, sizeof(d), "%s/.docker", dir);
	snprintf(f, sizeof(f), "%s/config.json", d);
	snprintf(sub, sizeof(sub), "%s/contexts", d);
	snprintf(sib, sizeof(sib), "%s/notes", dir);
	cr_assert(mkdir(d, 0700) == 0 && mkdir(sub, 0700) == 0);
	write_file(f, "{\"auths\": {}}\n");
	write_file(sib, "mine\n");
	m[dir_first ? 0 : 1] = (struct ll_mount_request){ .deny = d, .is_dir = true };
	m[dir_first ? 1 : 0] = (struct ll_mount_request){ .deny = f };
	plan.mounts = m;
	plan.nmounts = 2;
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(child(&plan, f, sub, sib));
	cr_assert(waitpid(pid, &status, 0) == pid);
	unlink(f);
	rmdir(sub);
	rmdir(d);
	unlink(sib);
	rmdir(dir);
	if (WIFEXITED(status) && WEXITSTATUS(status) == NO_NS)
		cr_skip_test("no mount namespace for this user here");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(view, a_deny_beneath_a_denied_directory_is_covered_by_it)
{
	int r = covers_of(true);

	cr_assert(r != COVERS_FAILED, "the nested cover failed the launch");
	cr_assert(r == OK, "child: status %d", r);
}

/* The file's cover first, then the directory's over it: the same view. */
Test(view, the_file_first_then_its_directory)
{
	int r = covers_of(false);

	cr_assert(r == OK, "child: status %d", r);
}

/* SPDX-License-Identifier: MIT
 * The working directory (runtime/workdir.c): a place inside a system
 * directory is refused before anything is made, the places users keep
 * things stay allowed, and abandoning a kept directory removes exactly
 * what the launch made, never a directory that was there before; the
 * sweep takes only the mount points of launches that are gone, and a
 * tree still written (a tool cache) is removed without following links. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workdir.h"

static char root[64];

static void
make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-wd-test-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

static bool
exists(const char *fmt, const char *a)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), fmt, a);
	return lstat(p, &st) == 0;
}

Test(workdir, system_places_refused)
{
	static const struct {
		const char *path;
		unsigned uid;
	} refused[] = {
		{ "/", 1000 }, { "/etc", 1000 }, { "/etc/x", 1000 }, { "/usr/local/x", 1000 },
		{ "/var/spool/x", 1000 }, { "/proc/x", 1000 }, { "/sys/x", 1000 },
		{ "/lib64/x", 1000 }, { "/home", 1000 }, { "/home/alice", 1000 },
		{ "/root", 0 }, { "/root/x", 1000 }, { "/run/x", 1000 },
		{ "/run/user/1000/x", 1001 }, { "/run/user/1000", 1000 }, { "/var/tmp", 1000 },
		{ "/dev/shm", 1000 }, { "/dev/x", 1000 }, { "/snap/x", 1000 }, { "/opt", 1000 },
		{ "/srv", 1000 }, { "/boot/x", 1000 }, { "/sbin/x", 1000 },
	};
	static const struct {
		const char *path;
		unsigned uid;
	} allowed[] = {
		{ "/tmp", 1000 }, { "/tmp/x", 1000 }, { "/var/tmp/x", 1000 }, { "/dev/shm/x", 1000 },
		{ "/home/alice/x", 1000 }, { "/home/alice/x/y", 1000 }, { "/root/x", 0 },
		{ "/run/user/1000/x", 1000 }, { "/srv/x", 1000 }, { "/opt/x", 1000 },
		{ "/mnt/data/x", 1000 }, { "/media/usb/x", 1000 }, { "/work/x", 1000 },
		{ "/homes/x", 1000 },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(wd_refuse_place(refused[i].path, refused[i].uid, err, sizeof(err)),
			     -EPERM, "%s (uid %u)", refused[i].path, refused[i].uid);
		cr_assert(strstr(err, "refusing"), "%s: %s", refused[i].path, err);
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		cr_assert_eq(wd_refuse_place(allowed[i].path, allowed[i].uid, err, sizeof(err)), 0,
			     "%s (uid %u): %s", allowed[i].path, allowed[i].uid, err);
	wd_refuse_place("/etc/x", 1000, err, sizeof(err));
	cr_assert(strstr(err, "/etc/x: is inside the system directory /etc"), "%s", err);
	wd_refuse_place("/home/alice", 1000, err, sizeof(err));
	cr_assert(strstr(err, "a home directory"), "%s", err);
}

/* As root a missing /etc/... could be made; it must be refused before. */
Test(workdir, refused_before_anything_is_made)
{
	char dir[PATH_MAX], err[512];
	struct wd wd;

	snprintf(dir, sizeof(dir), "/etc/heel-wd-test-%d/sub", (int)getpid());
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), -EPERM, "%s", err);
	cr_assert(!exists("%s", dir));
	dir[strlen(dir) - 4] = '\0';
	cr_assert(!exists("%s", dir), "%s was made", dir);
	cr_assert_eq(wd_check(dir, dir, sizeof(dir), err, sizeof(err)), -EPERM);
}

Test(workdir, abandon_removes_only_what_it_made)
{
	char dir[PATH_MAX], err[512];
	struct wd wd;

	make_root();
	/* Missing parents: all made, all removed; the root stays. */
	snprintf(dir, sizeof(dir), "%s/a/b/c", root);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert(exists("%s/a/b/c/tmp", root));
	cr_assert_eq(wd_abandon(&wd), 0);
	cr_assert(!exists("%s/a", root), "a/ this launch made was left");
	cr_assert(exists("%s", root));

	/* An existing working directory stays; only the tmp/ made in it goes. */
	snprintf(dir, sizeof(dir), "%s/kept", root);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(wd_abandon(&wd), 0);
	cr_assert(exists("%s/kept", root));
	cr_assert(!exists("%s/kept/tmp", root));

	/* A tmp/ that was there stays too. */
	snprintf(dir, sizeof(dir), "%s/kept/tmp", root);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/kept", root);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(wd_abandon(&wd), 0);
	cr_assert(exists("%s/kept/tmp", root));

	/* Something inside what it made: rmdir leaves it all alone. */
	snprintf(dir, sizeof(dir), "%s/x/y", root);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), 0, "%s", err);
	snprintf(dir, sizeof(dir), "%s/x/y/file", root);
	fclose(fopen(dir, "w"));
	cr_assert_lt(wd_abandon(&wd), 0);
	cr_assert(exists("%s/x/y/file", root));
	remove_root();
}

Test(workdir, use_resolves_and_refuses_a_file)
{
	char dir[PATH_MAX + 16], real[PATH_MAX], err[512];
	struct wd wd;

	make_root();
	cr_assert_not_null(realpath(root, real));
	snprintf(dir, sizeof(dir), "%s//n/", root);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), 0, "%s", err);
	snprintf(dir, sizeof(dir), "%s/n", real);
	cr_assert_str_eq(wd.path, dir);
	cr_assert_eq(wd_remove(&wd), 0, "a kept directory is not removed");
	cr_assert(exists("%s/n", root));

	snprintf(dir, sizeof(dir), "%s/f", root);
	fclose(fopen(dir, "w"));
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), -ENOTDIR, "%s", err);
	cr_assert(exists("%s/f", root));

	snprintf(dir, sizeof(dir), "%s/m/../n2", root);
	cr_assert_eq(wd_use(&wd, dir, err, sizeof(err)), -EINVAL, "a .. in the missing part");
	cr_assert(!exists("%s/m", root));
	remove_root();
}

Test(workdir, expand_uses_the_one_rule)
{
	char *env[] = { "P=/srv/p", "EMPTY=", "CLIMB=/srv/..", NULL };
	char out[PATH_MAX], err[512];

	cr_assert_eq(wd_expand("${P}/w", env, "/launch", out, sizeof(out), err, sizeof(err)), 0);
	cr_assert_str_eq(out, "/srv/p/w");
	cr_assert_eq(wd_expand("${CWD}/w", env, "/launch", out, sizeof(out), err, sizeof(err)), 0);
	cr_assert_str_eq(out, "/launch/w");
	cr_assert_eq(wd_expand("w", env, "/launch", out, sizeof(out), err, sizeof(err)), 0);
	cr_assert_str_eq(out, "/launch/w");
	cr_assert_eq(wd_expand("${EMPTY}/w", env, "/launch", out, sizeof(out), err, sizeof(err)),
		     -ENOENT, "an empty variable is unset: not \"/w\"");
	cr_assert(strstr(err, "${EMPTY} is empty"), "%s", err);
	cr_assert_eq(wd_expand("${NOPE}/w", env, "/launch", out, sizeof(out), err, sizeof(err)),
		     -ENOENT);
	cr_assert(strstr(err, "${NOPE} is not set"), "%s", err);
	cr_assert_eq(wd_expand("${CLIMB}/etc", env, "/launch", out, sizeof(out), err, sizeof(err)),
		     -EINVAL, "a .. from an expansion");
	cr_assert(strstr(err, "CLIMB is \"/srv/..\""), "%s", err);
	cr_assert_eq(wd_expand("${WORKDIR}/w", env, "/launch", out, sizeof(out), err, sizeof(err)),
		     -EINVAL);
}

/* A mount point a killed launch left is swept once its lock is free;
 * one still locked, one an older heel-exec made (no sticky bit), one
 * that holds files, and the hidden name of a launch only starting are
 * all left alone. TMPDIR points the sweep at the test's own root. */
Test(workdir, sweep_removes_only_what_killed_launches_left)
{
	char tmpdir[PATH_MAX + 8], live[PATH_MAX], dead[PATH_MAX], err[512], p[PATH_MAX + 32];
	char *env[] = { tmpdir, NULL };
	int lock_live, lock_dead;

	make_root();
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", root);
	cr_assert_eq(wd_mount_point(live, sizeof(live), "heel", env, &lock_live, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(wd_mount_point(dead, sizeof(dead), "heel-ipc", env, &lock_dead, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_geq(lock_live, 0);
	close(lock_dead); /* its launch is gone */
	snprintf(p, sizeof(p), "%s/heel-abcdefgh", root);
	cr_assert_eq(mkdir(p, 0700), 0); /* an older heel-exec's */
	snprintf(p, sizeof(p), "%s/heel-full0000", root);
	cr_assert_eq(mkdir(p, 01700), 0);
	snprintf(p, sizeof(p), "%s/heel-full0000/file", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/.heel-starting", root);
	cr_assert_eq(mkdir(p, 01700), 0);

	cr_assert_eq(wd_sweep(env, NULL), 1);
	cr_assert(!exists("%s", dead), "the killed launch's mount point stayed");
	cr_assert(exists("%s", live), "a live launch's mount point went");
	cr_assert(exists("%s/heel-abcdefgh", root));
	cr_assert(exists("%s/heel-full0000/file", root));
	cr_assert(exists("%s/.heel-starting", root));

	/* With a stamp: the first call sweeps, a second within the minute
	 * does not. */
	close(lock_live);
	snprintf(p, sizeof(p), "%s/stamp", root);
	cr_assert_eq(wd_sweep(env, p), 1, "the first call with a new stamp sweeps");
	cr_assert(!exists("%s", live));
	cr_assert_eq(wd_mount_point(dead, sizeof(dead), "heel", env, &lock_dead, err, sizeof(err)), 0);
	close(lock_dead);
	cr_assert_eq(wd_sweep(env, p), 0, "swept again within a minute");
	cr_assert(exists("%s", dead));
	remove_root();
}

/* A tree that may still be written: read-only directories (Go's module
 * cache) are emptied, a link to a directory outside is removed and its
 * target left alone. */
Test(workdir, remove_tree_at_follows_no_link)
{
	char p[PATH_MAX + 64];
	int dfd;

	make_root();
	snprintf(p, sizeof(p), "%s/outside", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/outside/keep", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/cache", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/cache/a", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/cache/a/b", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/cache/a/b/f", root);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/outside", root);
	{
		char l[PATH_MAX + 32];

		snprintf(l, sizeof(l), "%s/cache/a/link", root);
		cr_assert_eq(symlink(p, l), 0);
	}
	snprintf(p, sizeof(p), "%s/cache/a/b", root);
	cr_assert_eq(chmod(p, 0555), 0);
	snprintf(p, sizeof(p), "%s/cache/a", root);
	cr_assert_eq(chmod(p, 0555), 0);
	dfd = open(root, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(wd_remove_tree_at(dfd, "cache"), 0);
	close(dfd);
	cr_assert(!exists("%s/cache", root));
	cr_assert(exists("%s/outside/keep", root));
	remove_root();
}

/* SPDX-License-Identifier: MIT
 * The sandbox's cgroup (runtime/cgroup.c) against a fake cgroupfs: a
 * tree of plain files standing in for /proc/self/{mountinfo,cgroup} and
 * /sys/fs/cgroup, so the v2 paths (which this project's machines do not
 * mount with controllers) and the choice between v1 and v2 are tested
 * everywhere. Where the kernel would create a cgroup's control files at
 * mkdir, the test creates them, as the kernel would, between the steps. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

static char root[256];

static void
mkdirs(const char *path)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* Writes text to root + rel, making the directories on the way. */
static void
put(const char *rel, const char *text)
{
	char path[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* A file of an absolute path (a cgroup's), for what the kernel makes. */
static void
put_abs(const char *dir, const char *file, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static const char *
get_abs(const char *dir, const char *file)
{
	static char buf[256];
	char path[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void
setup(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-cgtest.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)!system(cmd);
}

TestSuite(cgroup, .init = setup, .fini = teardown);

#define MI_V2 "30 22 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
#define SLICE "/user.slice/user-1000.slice/user@1000.service/app.slice"

/* A systemd user session: our scope holds us, so the cgroup goes into
 * its parent, the delegated app.slice. */
static void
user_session(const char *controllers)
{
	put("/proc/self/mountinfo",
	    "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
	    "25 22 0:5 / /proc rw - proc proc rw\n" MI_V2);
	put("/proc/self/cgroup", "0::" SLICE "/term.scope\n");
	put("/sys/fs/cgroup" SLICE "/cgroup.controllers", controllers);
	put("/sys/fs/cgroup" SLICE "/cgroup.subtree_control", controllers);
	put("/sys/fs/cgroup" SLICE "/term.scope/cgroup.procs", "1234\n");
}

Test(cgroup, v2_goes_beside_our_cgroup)
{
	char err[256] = "", want[512];
	struct cg cg;

	user_session("cpuset cpu io memory pids\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU), err,
			       sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg.version, 2);
	cr_assert_eq(cg.ctls, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU));
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup" SLICE "/heel", root);
	for (int c = 0; c < CG_CTL_COUNT; c++)
		cr_assert_str_eq(cg.base[c], want);
}

/* The whole life of a v2 cgroup: heel enables pids and memory for its
 * children, the limits land in memory.max, memory.swap.max and pids.max,
 * the pid in cgroup.procs, the CPU total comes from cpu.stat. */
Test(cgroup, v2_create_limit_enter_read_remove)
{
	char err[256] = "", leaf[CG_PATH_MAX];
	uint64_t usec = 0;
	struct cg cg;

	user_session("cpuset cpu io memory pids\n");
	/* A heel directory an earlier launch left, as the kernel made it:
	 * with an (empty) cgroup.subtree_control. */
	put("/sys/fs/cgroup" SLICE "/heel/cgroup.subtree_control", "");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU), err,
			       sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg_create(&cg, err, sizeof(err)), 0, "%s", err);
	cr_assert(cg.made);
	snprintf(leaf, sizeof(leaf), "%s", cg.dir[CG_PIDS]);
	cr_assert_str_eq(cg.dir[CG_MEMORY], leaf);
	cr_assert_str_eq(cg.dir[CG_CPU], leaf);
	cr_assert(strstr(leaf, "/heel/heel-") != NULL, "%s", leaf);
	{
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "/heel/heel-%d-", (int)getpid());
		cr_assert(strstr(leaf, prefix) != NULL, "%s: not named %s<random>", leaf, prefix);
	}
	cr_assert_str_eq(get_abs(cg.base[CG_PIDS], "cgroup.subtree_control"), "+pids +memory");
	/* What the kernel makes at mkdir. */
	put_abs(leaf, "cgroup.procs", "");
	put_abs(leaf, "pids.max", "");
	put_abs(leaf, "memory.max", "");
	put_abs(leaf, "memory.swap.max", "");
	put_abs(leaf, "cpu.stat", "usage_usec 2003004\nuser_usec 2000000\nsystem_usec 3004\n");

	cr_assert_eq(cg_set_limits(&cg, 20, 256ULL << 20, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(get_abs(leaf, "pids.max"), "20");
	cr_assert_str_eq(get_abs(leaf, "memory.max"), "268435456");
	cr_assert_str_eq(get_abs(leaf, "memory.swap.max"), "0");
	cr_assert_eq(cg_enter(&cg, 4242), 0);
	cr_assert_str_eq(get_abs(leaf, "cgroup.procs"), "4242");
	cr_assert_eq(cg_cpu_usec(&cg, &usec), 0);
	cr_assert_eq(usec, 2003004);

	/* The kernel's files go with the cgroup; plain files do not. */
	for (const char *const *f = (const char *const[]){ "cgroup.procs", "pids.max", "memory.max",
							   "memory.swap.max", "cpu.stat", NULL };
	     *f; f++) {
		char p[CG_PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/%s", leaf, *f);
		unlink(p);
	}
	cr_assert_eq(cg_remove(&cg), 0);
	cr_assert_eq(access(leaf, F_OK), -1);
	cr_assert(!cg.made);
	cr_assert_eq(cg_remove(&cg), 0, "a second remove is a no-op");
}

/* Without swap accounting there is no memory.swap.max: it is not
 * created, and memory.max is set all the same. */
Test(cgroup, v2_without_swap_accounting)
{
	char err[256] = "";
	struct cg cg;

	user_session("memory pids\n");
	put("/sys/fs/cgroup" SLICE "/heel/cgroup.subtree_control", "memory pids\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_MEMORY), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg_create(&cg, err, sizeof(err)), 0, "%s", err);
	put_abs(cg.dir[CG_MEMORY], "memory.max", "");
	cr_assert_eq(cg_set_limits(&cg, 0, 1ULL << 30, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(get_abs(cg.dir[CG_MEMORY], "memory.max"), "1073741824");
	cr_assert_null(get_abs(cg.dir[CG_MEMORY], "memory.swap.max"));
}

/* A controller the parent does not offer is not the cgroup's: the
 * caller learns which limits hold per process only. */
Test(cgroup, v2_missing_controller)
{
	char err[256] = "";
	struct cg cg;

	user_session("cpu io pids\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU), err,
			       sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg.version, 2);
	cr_assert_eq(cg.ctls, CG_BIT(CG_PIDS) | CG_BIT(CG_CPU));
	cr_assert_str_eq(cg.base[CG_MEMORY], "");
}

/* From the root cgroup (root in a fresh container): below it. */
Test(cgroup, v2_from_the_root_cgroup)
{
	char err[256] = "", want[512];
	struct cg cg;

	put("/proc/self/mountinfo", MI_V2);
	put("/proc/self/cgroup", "0::/\n");
	put("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/heel", root);
	cr_assert_str_eq(cg.base[CG_PIDS], want);
}

/* A cgroup heel-exec cannot make (a directory it may not write): the
 * error names the path; nothing is left. */
Test(cgroup, v2_not_delegated)
{
	char err[256] = "", slice[512];
	struct cg cg;

	if (geteuid() == 0) {
		/* Criterion runs no .fini after a skip. */
		teardown();
		cr_skip_test("root writes any directory");
	}
	user_session("memory pids\n");
	snprintf(slice, sizeof(slice), "%s/sys/fs/cgroup" SLICE, root);
	chmod(slice, 0555);
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg_create(&cg, err, sizeof(err)), -EACCES);
	cr_assert(strstr(err, "/heel") != NULL, "%s", err);
	cr_assert(!cg.made);
	chmod(slice, 0755);
}

/* Only a v2 hierarchy: a launch without tree-wide limits still gets a
 * cgroup that holds the tree. */
Test(cgroup, v2_tracking_only)
{
	char err[256] = "";
	struct cg cg;

	user_session("\n");
	cr_assert_eq(cg_locate(&cg, root, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg.version, 2);
	cr_assert_eq(cg.ctls, 0);
	cr_assert_neq(cg.base[CG_PIDS][0], '\0');
	cr_assert_eq(cg.base[CG_MEMORY][0], '\0');
}

/* A hybrid host (this project's machines): cgroup2 without controllers
 * beside the v1 hierarchies, cpu and cpuacct mounted together. v1 wins,
 * each controller below our own cgroup in its hierarchy. */
Test(cgroup, hybrid_takes_v1)
{
	char err[256] = "", want[512];
	struct cg cg;

	put("/proc/self/mountinfo",
	    "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	    "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	    "38 30 0:35 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
	    "39 30 0:36 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	    "40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	put("/proc/self/cgroup", "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/7\n2:cpu,cpuacct:/\n0::/\n");
	put("/sys/fs/cgroup/unified/cgroup.controllers", "");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU), err,
			       sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg.version, 1);
	cr_assert_eq(cg.ctls, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU));
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/pids/heel", root);
	cr_assert_str_eq(cg.base[CG_PIDS], want);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/memory/jobs/7/heel", root);
	cr_assert_str_eq(cg.base[CG_MEMORY], want);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/cpu,cpuacct/heel", root);
	cr_assert_str_eq(cg.base[CG_CPU], want);
}

/* v1: the memory limit before memsw (which may not be below it), the
 * CPU total from cpuacct.usage in nanoseconds, one cgroup.procs write
 * per hierarchy. */
Test(cgroup, v1_limits_and_usage)
{
	char err[256] = "";
	uint64_t usec = 0;
	struct cg cg;

	put("/proc/self/mountinfo",
	    "32 30 0:29 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
	    "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	    "38 30 0:35 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n");
	put("/proc/self/cgroup", "8:pids:/\n4:memory:/\n2:cpuacct:/\n");
	put("/sys/fs/cgroup/pids/cgroup.procs", "1\n");
	put("/sys/fs/cgroup/memory/cgroup.procs", "1\n");
	put("/sys/fs/cgroup/cpuacct/cgroup.procs", "1\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY) | CG_BIT(CG_CPU), err,
			       sizeof(err)), 0, "%s", err);
	cr_assert_eq(cg_create(&cg, err, sizeof(err)), 0, "%s", err);
	put_abs(cg.dir[CG_PIDS], "pids.max", "");
	put_abs(cg.dir[CG_MEMORY], "memory.limit_in_bytes", "");
	put_abs(cg.dir[CG_MEMORY], "memory.memsw.limit_in_bytes", "");
	put_abs(cg.dir[CG_CPU], "cpuacct.usage", "1500000000\n");
	for (int c = 0; c < CG_CTL_COUNT; c++)
		put_abs(cg.dir[c], "cgroup.procs", "");
	cr_assert_eq(cg_set_limits(&cg, 7, 512ULL << 20, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(get_abs(cg.dir[CG_PIDS], "pids.max"), "7");
	cr_assert_str_eq(get_abs(cg.dir[CG_MEMORY], "memory.limit_in_bytes"), "536870912");
	cr_assert_str_eq(get_abs(cg.dir[CG_MEMORY], "memory.memsw.limit_in_bytes"), "536870912");
	cr_assert_eq(cg_enter(&cg, 99), 0);
	for (int c = 0; c < CG_CTL_COUNT; c++)
		cr_assert_str_eq(get_abs(cg.dir[c], "cgroup.procs"), "99");
	cr_assert_eq(cg_cpu_usec(&cg, &usec), 0);
	cr_assert_eq(usec, 1500000);
}

/* A mount that shows part of the hierarchy (a cgroup namespace, a bind
 * mount): our cgroup below its root is reached, one outside is not. */
Test(cgroup, mount_root_and_escaped_mount_point)
{
	char err[256] = "", want[512];
	struct cg cg;

	put("/proc/self/mountinfo",
	    "40 30 0:37 /ctr /sys/fs/cgroup\\040v2 rw - cgroup2 cgroup2 rw\n");
	put("/proc/self/cgroup", "0::/ctr/job/run.scope\n");
	put("/sys/fs/cgroup v2/job/cgroup.controllers", "memory pids\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup v2/job/heel", root);
	cr_assert_str_eq(cg.base[CG_PIDS], want);

	put("/proc/self/cgroup", "0::/other/run.scope\n");
	cr_assert_lt(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), 0);
	cr_assert(strstr(err, "not under") != NULL, "%s", err);
}

Test(cgroup, no_cgroup_file_system)
{
	char err[256] = "";
	struct cg cg;

	put("/proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
	put("/proc/self/cgroup", "0::/\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "no cgroup file system") != NULL, "%s", err);
	cr_assert_eq(cg_remove(&cg), 0);
}

/* Our cgroup a direct child of the root (/init, as a container's init
 * or systemd's init.scope): `heel` goes beside it, into the root, not
 * into our populated cgroup (found in a 6.12 guest). */
Test(cgroup, v2_direct_child_of_the_root_goes_into_the_root)
{
	char err[256] = "", want[512];
	struct cg cg;

	put("/proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" MI_V2);
	put("/proc/self/cgroup", "0::/init\n");
	put("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	put("/sys/fs/cgroup/cgroup.subtree_control", "cpu memory pids\n");
	put("/sys/fs/cgroup/init/cgroup.procs", "1\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS), err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/heel", root);
	cr_assert_str_eq(cg.base[CG_PIDS], want);
}

/* A parent that holds processes itself gets no subtree_control write:
 * the kernel would take `+pids` alone and turn it into a threaded
 * subtree for good. The launch is refused instead, nothing written. */
Test(cgroup, v2_never_enables_controllers_in_a_populated_cgroup)
{
	char err[256] = "", dir[512];
	struct cg cg;

	put("/proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" MI_V2);
	put("/proc/self/cgroup", "0::/a/b\n");
	put("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	put("/sys/fs/cgroup/cgroup.subtree_control", "cpu memory pids\n");
	put("/sys/fs/cgroup/a/cgroup.controllers", "cpu memory pids\n");
	put("/sys/fs/cgroup/a/cgroup.subtree_control", "\n");
	put("/sys/fs/cgroup/a/cgroup.procs", "77\n");
	put("/sys/fs/cgroup/a/b/cgroup.procs", "1234\n");
	cr_assert_eq(cg_locate(&cg, root, CG_BIT(CG_PIDS) | CG_BIT(CG_MEMORY), err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(cg_create(&cg, err, sizeof(err)), -EBUSY, "%s", err);
	cr_assert(strstr(err, "has processes of its own"), "%s", err);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/a", root);
	cr_assert_str_eq(get_abs(dir, "cgroup.subtree_control"), "\n");
}

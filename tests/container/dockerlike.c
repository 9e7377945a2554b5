/* SPDX-License-Identifier: MIT
 * tests/container/dockerlike: runs a command confined the way a Docker
 * container is by default, for the container suite (we have no Docker
 * engine here). Docker's default seccomp profile (moby's
 * profiles/seccomp/default.json) gives a container without CAP_SYS_ADMIN
 * EPERM for unshare, setns, the mount calls old and new, and clone with
 * any namespace flag, and ENOSYS for clone3 (so that libcs fall back to
 * clone, whose flags a filter can see); landlock_* and seccomp stay
 * allowed. Docker also leaves CAP_SYS_ADMIN out of the bounding set, and
 * loads the filter without no_new_privs.
 *
 *   dockerlike CMD...                        that profile
 *   dockerlike --apparmor-deny-mount CMD...  `docker run --cap-add SYS_ADMIN`
 *       under the docker-default AppArmor profile: the namespace calls
 *       are allowed, but its `deny mount,` answers mount, umount and
 *       move_mount with EACCES (emulated here with that errno; AppArmor
 *       itself is not enabled on the test machines)
 *   dockerlike --no-landlock CMD...          a kernel without Landlock, as
 *       seen from user space: landlock_create_ruleset, landlock_add_rule
 *       and landlock_restrict_self answer ENOSYS; nothing else is
 *       refused and CAP_SYS_ADMIN stays (tests/doctor)
 *
 * Root only: the filter is loaded without no_new_privs (as runc does),
 * which takes CAP_SYS_ADMIN, and the bounding set is changed. Test code:
 * links libseccomp. */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#define CAP_SYS_ADMIN_NR 21

static int
deny(scmp_filter_ctx ctx, int err, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* A call this libseccomp does not know is one the kernel has not
	 * got either, as far as the test is concerned. */
	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0);
}

static int
docker_default(scmp_filter_ctx ctx)
{
	static const char *const refused[] = {
		"unshare",   "setns",  "mount",  "umount2", "mount_setattr", "open_tree",
		"move_mount", "fsopen", "fsmount", "fsconfig", "fspick",
	};
	/* The flags Docker's clone rule masks (0x7E020000). */
	static const unsigned long ns[] = {
		CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET,
	};
	int r;

	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		if ((r = deny(ctx, EPERM, refused[i])) < 0)
			return r;
	/* Docker allows clone where (flags & mask) == 0; refusing each
	 * flag where (flags & flag) == flag is the same set. */
	for (size_t i = 0; i < sizeof(ns) / sizeof(*ns); i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					  SCMP_A0(SCMP_CMP_MASKED_EQ, ns[i], ns[i]))) < 0)
			return r;
	return deny(ctx, ENOSYS, "clone3");
}

static int
apparmor_deny_mount(scmp_filter_ctx ctx)
{
	static const char *const mediated[] = { "mount", "umount2", "move_mount" };
	int r;

	for (size_t i = 0; i < sizeof(mediated) / sizeof(*mediated); i++)
		if ((r = deny(ctx, EACCES, mediated[i])) < 0)
			return r;
	return 0;
}

static int
no_landlock(scmp_filter_ctx ctx)
{
	static const char *const calls[] = { "landlock_create_ruleset", "landlock_add_rule",
					     "landlock_restrict_self" };
	int r;

	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if ((r = deny(ctx, ENOSYS, calls[i])) < 0)
			return r;
	return 0;
}

int
main(int argc, char *argv[])
{
	bool cap_sys_admin = false, nolandlock = false;
	scmp_filter_ctx ctx;
	int r, i = 1;

	if (argc > 1 && strcmp(argv[1], "--apparmor-deny-mount") == 0) {
		cap_sys_admin = true;
		i++;
	} else if (argc > 1 && strcmp(argv[1], "--no-landlock") == 0) {
		cap_sys_admin = nolandlock = true;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: dockerlike [--apparmor-deny-mount | --no-landlock] CMD [ARG...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0) {
		fprintf(stderr, "dockerlike: seccomp_init failed\n");
		return 2;
	}
	r = nolandlock ? no_landlock(ctx) : cap_sys_admin ? apparmor_deny_mount(ctx) : docker_default(ctx);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0) {
		fprintf(stderr, "dockerlike: loading the filter: %s\n", strerror(-r));
		return 2;
	}
	/* After the filter, which needs CAP_SYS_ADMIN without no_new_privs:
	 * execve then leaves root without it, as in a container. */
	if (!cap_sys_admin && prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN_NR, 0, 0, 0) < 0) {
		perror("dockerlike: PR_CAPBSET_DROP");
		return 2;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "dockerlike: %s: %s\n", argv[i], strerror(errno));
	return 127;
}

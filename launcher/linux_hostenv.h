/* SPDX-License-Identifier: MIT
 * What kind of host refused what, and how to get out. When the sandbox's
 * namespaces cannot be made or its /proc cannot be mounted, the errno
 * alone ("Operation not permitted") says neither that a container
 * engine's seccomp profile, an AppArmor profile or a sysctl is in the
 * way nor which option lifts it. hostenv_observe() gathers what this
 * process can see of its host; hostenv_diagnose() turns those facts and
 * the failing step into a cause and the way out. The diagnosis is a pure
 * function of the facts, so hosts we cannot boot here (Ubuntu's
 * user-namespace restriction, Podman) are tested with facts made up to
 * match them (tests/unit/test_hostenv.c).
 *
 * It names a cause only on evidence: a step that failed, with the errno
 * and the facts that explain it; anything else is HE_CAUSE_UNKNOWN and
 * the caller's own message stands alone. Linux; never prints. */
#ifndef HEEL_LAUNCHER_LINUX_HOSTENV_H
#define HEEL_LAUNCHER_LINUX_HOSTENV_H

#include <stdbool.h>
#include <stddef.h>

/* The steps of making the sandbox that a host can refuse. */
enum he_step {
	HE_STEP_CLONE, /* clone(2)/unshare(2) with the sandbox's namespace flags */
	HE_STEP_IDMAP, /* writing setgroups, uid_map, gid_map of the new user namespace */
	HE_STEP_MOUNT, /* a mount in the new mount namespace (making it private) */
	HE_STEP_PROC,  /* mounting the sandbox's own /proc */
};

/* Which container engine, judged by what it leaves behind. */
enum he_engine {
	HE_ENGINE_NONE,
	HE_ENGINE_DOCKER,   /* /.dockerenv */
	HE_ENGINE_PODMAN,   /* /run/.containerenv, or container=podman */
	HE_ENGINE_OTHER,    /* container=NAME in PID 1's environment (lxc, systemd-nspawn...) */
	HE_ENGINE_INFERRED, /* no marker, but a seccomp filter with CAP_SYS_ADMIN out of
			     * the bounding set, or a /proc with masked paths */
};

#define HE_UNKNOWN (-1)

/* What the process can see of its host. Integers are HE_UNKNOWN where the
 * file is missing or unreadable. */
struct hostenv {
	bool root;                /* euid 0: a launch makes no user namespace */
	int seccomp;              /* /proc/self/status Seccomp: 2 = a filter installed
				   * before heel-exec's (a container's, a service's) */
	int unshare_refused;      /* unshare(0), a no-op the kernel always allows: the
				   * errno a filter answers it with, else 0 */
	int cap_bnd_sys_admin;    /* CAP_SYS_ADMIN in CapBnd: 1, 0 */
	int cap_eff_sys_admin;    /* ... in CapEff */
	int cap_eff_bpf;          /* CAP_BPF and CAP_PERFMON in CapEff (Linux 5.8): 1, 0;
				   * what loading tracing programs takes without
				   * CAP_SYS_ADMIN (heel-exec check's bpf wall) */
	enum he_engine engine;
	char engine_name[32];     /* "docker", "podman", container=NAME's NAME */
	char evidence[96];        /* what showed it: "/.dockerenv", "container=lxc" */
	char masked[128];         /* mount points beneath /proc (binfmt_misc excepted),
				   * ", " between them, "..." when more; "" none */
	int userns_restrict;      /* kernel.apparmor_restrict_unprivileged_userns */
	int userns_clone;         /* kernel.unprivileged_userns_clone (Debian's kernels) */
	long max_userns;          /* user.max_user_namespaces */
	int no_new_privs;         /* /proc/self/status NoNewPrivs: 1, 0 */
	bool in_heel;             /* PID 1 is heel-exec's sandbox init (not us), and
				   * no_new_privs and a seccomp filter are on us:
				   * run inside a heel sandbox */
	bool apparmor;            /* AppArmor is enabled */
	char label[64];           /* the AppArmor label this process runs under,
				   * "docker-default (enforce)"; "" unknown */
};

/* Reads the facts below `root` ("" on a real system; a tree of plain
 * files in the unit test): /proc/self/status, /proc/self/mountinfo,
 * /.dockerenv, /run/.containerenv, /proc/1/environ (where readable),
 * /proc/1/comm,
 * /proc/sys/{kernel,user}/..., /sys/kernel/security/apparmor,
 * /proc/self/attr. unshare_refused asks the kernel, not the tree. In a
 * new user namespace the capability sets are full whatever the host
 * allows, so the caps are the launcher's only when read outside it
 * (the diagnosis uses them only for the clone). */
void hostenv_observe(struct hostenv *h, const char *root);

enum he_cause {
	HE_CAUSE_UNKNOWN,
	HE_CAUSE_SECCOMP,            /* a filter installed before heel-exec's refuses it */
	HE_CAUSE_NO_CAP,             /* root without CAP_SYS_ADMIN (a container's root) */
	HE_CAUSE_MOUNT_DENIED,       /* a mount refused with EACCES: an LSM policy
				      * (AppArmor's docker-default: `deny mount,`) */
	HE_CAUSE_PROC_MASKED,        /* over-mounts on /proc: a new /proc would reveal
				      * what they hide (mount_too_revealing) */
	HE_CAUSE_USERNS_RESTRICTED,  /* AppArmor's unprivileged user-namespace
				      * restriction (Ubuntu 23.10 and later) */
	HE_CAUSE_USERNS_DISABLED,    /* kernel.unprivileged_userns_clone=0 */
	HE_CAUSE_USERNS_LIMIT,       /* user.max_user_namespaces (ENOSPC) */
	HE_CAUSE_NESTED,             /* inside a heel sandbox, whose filter refuses
				      * namespaces and mounts by design */
};

struct he_diag {
	enum he_cause cause;
	const char *brief;  /* a few words, for heel-exec check's container line */
	char why[512];      /* the cause, as a clause: "heel-exec runs inside a
			     * container whose seccomp filter refuses ..." */
	char way_out[512];  /* what lifts it: "start the container with `docker run ...`" */
};

/* The cause of `step` failing with `err` (an errno) on host `h`, into *d
 * (why and way_out empty for HE_CAUSE_UNKNOWN). Pure. */
enum he_cause hostenv_diagnose(const struct hostenv *h, enum he_step step, int err,
			       struct he_diag *d);

/* Appends "; WHY; WAY OUT" to the message in buf when the cause is known;
 * buf is left as it was otherwise. Returns the cause. */
enum he_cause hostenv_explain(const struct hostenv *h, enum he_step step, int err, char *buf,
			      size_t len);

/* heel-exec check's "container:" line, without the label: "none
 * detected", "docker (/.dockerenv)", or with a cause d (may be NULL) of a
 * container's own: "docker (seccomp filter refuses namespaces): WAY OUT". */
void hostenv_container_line(const struct hostenv *h, const struct he_diag *d, char *buf,
			    size_t len);

#endif

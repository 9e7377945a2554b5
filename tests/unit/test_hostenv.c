/* SPDX-License-Identifier: MIT
 * What kind of host refused what (launcher/linux_hostenv.c). The
 * diagnosis is a pure function of the facts, so hosts we cannot boot here
 * are given as the facts they show: Ubuntu 24.04's user-namespace
 * restriction (an unconfined program's id maps and mounts refused, or its
 * user namespace refused outright), Podman, LXC, Debian's older sysctl.
 * The facts themselves are read from a tree of plain files standing in
 * for /proc, /sys and the container markers. tests/container runs the
 * Docker cases for real. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_hostenv.h"

#define DOCKER_USER                                                                                \
	"docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined "         \
	"--security-opt systempaths=unconfined"
#define PODMAN_USER                                                                                \
	"podman run --security-opt apparmor=unconfined --security-opt systempaths=unconfined"
#define SYSCTL_OFF "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"

/* A host that shows nothing: no filter, every capability, no marker, no
 * sysctl files. */
static struct hostenv
plain_host(bool root)
{
	struct hostenv h;

	memset(&h, 0, sizeof(h));
	h.root = root;
	h.seccomp = 0;
	h.cap_bnd_sys_admin = 1;
	h.cap_eff_sys_admin = root;
	h.userns_restrict = h.userns_clone = HE_UNKNOWN;
	h.max_userns = HE_UNKNOWN;
	return h;
}

/* What a process in a Docker container with the default profile sees. */
static struct hostenv
docker_host(bool root)
{
	struct hostenv h = plain_host(root);

	h.seccomp = 2;
	h.unshare_refused = EPERM;
	h.cap_bnd_sys_admin = h.cap_eff_sys_admin = 0;
	h.engine = HE_ENGINE_DOCKER;
	snprintf(h.engine_name, sizeof(h.engine_name), "docker");
	snprintf(h.evidence, sizeof(h.evidence), "/.dockerenv");
	snprintf(h.masked, sizeof(h.masked), "/proc/bus, /proc/fs, /proc/irq, ...");
	h.apparmor = true;
	snprintf(h.label, sizeof(h.label), "docker-default (enforce)");
	return h;
}

/* An unconfined user on Ubuntu 24.04. */
static struct hostenv
ubuntu_host(void)
{
	struct hostenv h = plain_host(false);

	h.userns_restrict = 1;
	h.apparmor = true;
	snprintf(h.label, sizeof(h.label), "unconfined");
	return h;
}

#define has(s, sub) cr_assert(strstr((s), (sub)), "no \"%s\" in \"%s\"", (sub), (s))
#define lacks(s, sub) cr_assert(!strstr((s), (sub)), "\"%s\" in \"%s\"", (sub), (s))

/* ------------------------------------------------------------ containers */

Test(hostenv, docker_default_profile_refuses_the_clone_of_a_user)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	has(d.why, "inside a container whose seccomp filter refuses new namespaces (Docker's "
		   "default profile, for a container without CAP_SYS_ADMIN)");
	lacks(d.why, "as root");
	has(d.way_out, "`" DOCKER_USER "`");
	has(d.way_out, "--privileged");
	cr_assert_str_eq(d.brief, "seccomp filter refuses namespaces");
}

Test(hostenv, docker_default_profile_refuses_root_which_lacks_cap_sys_admin)
{
	struct hostenv h = docker_host(true);
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	has(d.why, "heel-exec runs as root without CAP_SYS_ADMIN inside a container whose seccomp "
		   "filter refuses new namespaces (Docker's default profile)");
	/* Root makes no user namespace: the three options would not do. */
	has(d.way_out, "docker run --cap-add SYS_ADMIN --security-opt apparmor=unconfined");
	lacks(d.way_out, "seccomp=unconfined");
}

Test(hostenv, clone3_enosys_is_the_filter_too)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, ENOSYS, &d), HE_CAUSE_SECCOMP);
}

Test(hostenv, without_a_marker_the_filter_and_the_bounding_set_still_say_container)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	h.engine = HE_ENGINE_INFERRED;
	snprintf(h.engine_name, sizeof(h.engine_name), "unknown engine");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	has(d.why, "inside a container whose seccomp filter refuses new namespaces (as Docker's "
		   "default profile does");
	has(d.way_out, DOCKER_USER);
	has(d.way_out, "podman run --security-opt seccomp=unconfined");
}

Test(hostenv, masked_proc_names_the_paths_and_systempaths)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	h.seccomp = 0; /* seccomp=unconfined, apparmor=unconfined, but the masks stay */
	h.unshare_refused = 0;
	snprintf(h.label, sizeof(h.label), "unconfined");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_PROC, EPERM, &d), HE_CAUSE_PROC_MASKED);
	has(d.why, "inside a container whose /proc has masked paths (/proc/bus, /proc/fs");
	has(d.way_out, "--security-opt systempaths=unconfined");
	cr_assert_str_eq(d.brief, "/proc has masked paths");
}

Test(hostenv, docker_default_apparmor_profile_denies_mount)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	/* --cap-add SYS_ADMIN: the filter lets the clone through. */
	h.unshare_refused = 0;
	h.cap_bnd_sys_admin = 1;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EACCES, &d), HE_CAUSE_MOUNT_DENIED);
	has(d.why, "a mount refused with EACCES (the AppArmor profile docker-default, which "
		   "heel-exec runs under, denies mount)");
	has(d.way_out, "apparmor=unconfined");
	/* Its /proc, too, before any mask is looked at. */
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_PROC, EACCES, &d), HE_CAUSE_MOUNT_DENIED);
}

Test(hostenv, mount_eacces_without_a_label_names_apparmor_as_the_likely_one)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EACCES, &d), HE_CAUSE_MOUNT_DENIED);
	has(d.why, "a mount refused with EACCES (an AppArmor profile such as docker-default "
		   "denies mount)");
	has(d.way_out, "unconfined");
	lacks(d.way_out, "docker run");
}

Test(hostenv, podman_masked_proc)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	h.engine = HE_ENGINE_PODMAN;
	snprintf(h.engine_name, sizeof(h.engine_name), "podman");
	snprintf(h.masked, sizeof(h.masked), "/proc/acpi, /proc/kcore, /proc/keys, ...");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_PROC, EPERM, &d), HE_CAUSE_PROC_MASKED);
	has(d.why, "inside a Podman container whose /proc has masked paths");
	has(d.way_out, "`" PODMAN_USER "`");
	/* Its default seccomp profile allows the namespaces. */
	lacks(d.way_out, "seccomp=unconfined");
}

Test(hostenv, podman_with_a_stricter_filter)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	h.engine = HE_ENGINE_PODMAN;
	h.seccomp = 2;
	h.unshare_refused = EPERM;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	has(d.why, "inside a Podman container whose seccomp filter refuses new namespaces");
	has(d.way_out, "podman run --security-opt seccomp=unconfined");
}

Test(hostenv, root_without_cap_sys_admin_and_no_filter)
{
	struct hostenv h = plain_host(true);
	struct he_diag d;

	h.cap_eff_sys_admin = h.cap_bnd_sys_admin = 0;
	h.engine = HE_ENGINE_OTHER;
	snprintf(h.engine_name, sizeof(h.engine_name), "lxc");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_NO_CAP);
	has(d.why, "as root without CAP_SYS_ADMIN inside a container (lxc)");
	has(d.way_out, "--cap-add SYS_ADMIN");
}

Test(hostenv, a_filter_outside_any_container)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;
	char line[1024];

	h.seccomp = 2;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	has(d.why, "under a seccomp filter installed before its own that refuses new namespaces");
	lacks(d.why, "container");
	lacks(d.way_out, "docker");
	hostenv_container_line(&h, &d, line, sizeof(line));
	cr_assert_str_eq(line, "none detected");
}

Test(hostenv, the_filter_wins_over_a_sysctl_when_unshare0_is_refused)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;

	h.userns_clone = 0;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	h.unshare_refused = 0;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_USERNS_DISABLED);
}

/* ------------------------------------------------ Ubuntu 23.10 and later */

Test(hostenv, ubuntu_restriction_refuses_the_id_maps)
{
	struct hostenv h = ubuntu_host();
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_IDMAP, EPERM, &d), HE_CAUSE_USERNS_RESTRICTED);
	has(d.why, "kernel.apparmor_restrict_unprivileged_userns=1");
	has(d.why, "without capabilities");
	has(d.way_out, "heel's AppArmor profile");
	has(d.way_out, "sudo make install-apparmor");
	has(d.way_out, "`" SYSCTL_OFF "`");
	lacks(d.why, "on the host");
	/* The namespaces exist by then: --best-effort alone cannot fall back. */
	has(d.way_out, "--best-effort --no-namespaces");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_IDMAP, EACCES, &d), HE_CAUSE_USERNS_RESTRICTED);
}

Test(hostenv, ubuntu_restriction_refuses_the_mounts)
{
	struct hostenv h = ubuntu_host();
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EPERM, &d), HE_CAUSE_USERNS_RESTRICTED);
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_PROC, EPERM, &d), HE_CAUSE_USERNS_RESTRICTED);
}

Test(hostenv, ubuntu_restriction_without_its_profile_refuses_the_namespace)
{
	struct hostenv h = ubuntu_host();
	struct he_diag d;

	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EACCES, &d), HE_CAUSE_USERNS_RESTRICTED);
	has(d.why, "gets none");
	has(d.way_out, SYSCTL_OFF);
	/* A refused clone is what --best-effort accepts as it is. */
	lacks(d.way_out, "--no-namespaces");
}

Test(hostenv, the_child_knows_it_by_its_profile)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	/* The sysctl unreadable, but the child runs under the profile the
	 * restriction moves it into. */
	h.apparmor = true;
	snprintf(h.label, sizeof(h.label), "unprivileged_userns (enforce)");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EPERM, &d), HE_CAUSE_USERNS_RESTRICTED);
}

Test(hostenv, no_restriction_no_claim)
{
	struct hostenv h = ubuntu_host();
	struct he_diag d;

	h.userns_restrict = 0;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_IDMAP, EPERM, &d), HE_CAUSE_UNKNOWN);
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EPERM, &d), HE_CAUSE_UNKNOWN);
	cr_assert_str_empty(d.why);
	/* Root makes no user namespace: the restriction is not its cause. */
	h = ubuntu_host();
	h.root = true;
	h.cap_eff_sys_admin = 1;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_MOUNT, EPERM, &d), HE_CAUSE_UNKNOWN);
}

Test(hostenv, ubuntu_restriction_seen_from_a_container)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;
	char line[1024];

	/* Docker with all three options on an Ubuntu 24.04 host. */
	h.seccomp = 0;
	h.unshare_refused = 0;
	h.masked[0] = '\0';
	h.userns_restrict = 1;
	snprintf(h.label, sizeof(h.label), "unconfined");
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_IDMAP, EPERM, &d), HE_CAUSE_USERNS_RESTRICTED);
	has(d.why, "(on the host)");
	/* Not the container's doing: the line names the container only. */
	hostenv_container_line(&h, &d, line, sizeof(line));
	cr_assert_str_eq(line, "docker (/.dockerenv)");
}

/* ------------------------------------------------------- other sysctls */

Test(hostenv, debian_unprivileged_userns_clone)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	h.userns_clone = 0;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_USERNS_DISABLED);
	has(d.way_out, "sudo sysctl -w kernel.unprivileged_userns_clone=1");
}

Test(hostenv, max_user_namespaces)
{
	struct hostenv h = plain_host(false);
	struct he_diag d;

	h.max_userns = 0;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, ENOSPC, &d), HE_CAUSE_USERNS_LIMIT);
	has(d.why, "user.max_user_namespaces=0");
	h.max_userns = 100;
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, ENOSPC, &d), HE_CAUSE_USERNS_LIMIT);
	has(d.why, "limit is reached");
}

Test(hostenv, nothing_known_leaves_the_message_alone)
{
	struct hostenv h = plain_host(false);
	char buf[256] = "cannot create (Operation not permitted)";

	cr_assert_eq(hostenv_explain(&h, HE_STEP_CLONE, EPERM, buf, sizeof(buf)), HE_CAUSE_UNKNOWN);
	cr_assert_str_eq(buf, "cannot create (Operation not permitted)");
	cr_assert_eq(hostenv_explain(&h, HE_STEP_PROC, EPERM, buf, sizeof(buf)), HE_CAUSE_UNKNOWN);
	cr_assert_eq(hostenv_explain(&h, HE_STEP_MOUNT, EINVAL, buf, sizeof(buf)),
		     HE_CAUSE_UNKNOWN);
}

Test(hostenv, explain_appends_why_and_way_out)
{
	struct hostenv h = docker_host(false);
	char buf[2048] = "base (Operation not permitted)";
	struct he_diag d;

	hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d);
	cr_assert_eq(hostenv_explain(&h, HE_STEP_CLONE, EPERM, buf, sizeof(buf)), HE_CAUSE_SECCOMP);
	cr_assert(strncmp(buf, "base (Operation not permitted); ", 32) == 0, "%s", buf);
	has(buf, d.why);
	has(buf, d.way_out);
	/* A short buffer is cut, not overrun. */
	char small[40] = "base";
	hostenv_explain(&h, HE_STEP_CLONE, EPERM, small, sizeof(small));
	cr_assert_eq(strlen(small), sizeof(small) - 1);
}

Test(hostenv, container_lines)
{
	struct hostenv h = docker_host(false);
	struct he_diag d;
	char line[1024];

	hostenv_container_line(&h, NULL, line, sizeof(line));
	cr_assert_str_eq(line, "docker (/.dockerenv)");
	hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d);
	hostenv_container_line(&h, &d, line, sizeof(line));
	cr_assert(strncmp(line,
			  "docker (seccomp filter refuses namespaces): start the container "
			  "with `docker run --security-opt seccomp=unconfined",
			  110) == 0,
		  "%s", line);
	h = plain_host(false);
	hostenv_container_line(&h, NULL, line, sizeof(line));
	cr_assert_str_eq(line, "none detected");
}

/* ---------------------------------------------------- reading the facts */

static char root[256];

static void
setup(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-hostenv.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)!system(cmd);
}

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

/* Writes len bytes (environ holds NULs) to root + rel. */
static void
put_n(const char *rel, const char *text, size_t len)
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
	fwrite(text, 1, len, f);
	fclose(f);
}

static void
put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

#define STATUS(seccomp, bnd, eff)                                                                  \
	"Name:\tsh\nUmask:\t0022\nCapInh:\t0000000000000000\nCapPrm:\t" eff "\nCapEff:\t" eff      \
	"\nCapBnd:\t" bnd "\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t" seccomp        \
	"\nSeccomp_filters:\t1\n"
/* Docker's default capabilities; no CAP_SYS_ADMIN (bit 21). */
#define DOCKER_CAPS "00000000a80425fb"

TestSuite(hostenv_facts, .init = setup, .fini = teardown);

Test(hostenv_facts, a_docker_container)
{
	struct hostenv h;

	put("/proc/self/status", STATUS("2", DOCKER_CAPS, DOCKER_CAPS));
	put("/proc/self/mountinfo",
	    "600 500 0:50 / / rw - overlay overlay rw\n"
	    "601 600 0:52 / /proc rw,nosuid - proc proc rw\n"
	    "602 601 0:52 /bus /proc/bus ro,nosuid - proc proc rw\n"
	    "603 601 0:53 / /proc/sys/fs/binfmt_misc rw - binfmt_misc binfmt_misc rw\n"
	    "604 601 0:5 /null /proc/kcore rw,nosuid - devtmpfs udev rw\n"
	    "605 601 0:54 / /proc/odd\\040name ro - tmpfs tmpfs ro\n"
	    "606 601 0:5 /null /proc/keys rw,nosuid - devtmpfs udev rw\n"
	    "607 600 0:55 / /sys ro - sysfs sysfs ro\n");
	put("/.dockerenv", "");
	put("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put("/proc/sys/user/max_user_namespaces", "63376\n");
	put("/sys/kernel/security/apparmor/profiles", "");
	put("/proc/self/attr/apparmor/current", "docker-default (enforce)\n");
	put("/proc/self/attr/current", "something else\n");
	hostenv_observe(&h, root);
	cr_assert_eq(h.seccomp, 2);
	cr_assert_eq(h.cap_bnd_sys_admin, 0);
	cr_assert_eq(h.cap_eff_sys_admin, 0);
	cr_assert_eq(h.engine, HE_ENGINE_DOCKER);
	cr_assert_str_eq(h.engine_name, "docker");
	cr_assert_str_eq(h.evidence, "/.dockerenv");
	/* binfmt_misc is not a mask; names are unescaped; three, then "...". */
	cr_assert_str_eq(h.masked, "/proc/bus, /proc/kcore, /proc/odd name, ...");
	cr_assert_eq(h.userns_restrict, 1);
	cr_assert_eq(h.userns_clone, HE_UNKNOWN);
	cr_assert_eq(h.max_userns, 63376);
	cr_assert(h.apparmor);
	cr_assert_str_eq(h.label, "docker-default (enforce)");
	cr_assert_eq(h.root, geteuid() == 0);
}

Test(hostenv_facts, container_variable_of_pid_1)
{
	static const char environ_[] = "PATH=/usr/bin\0container=lxc\0TERM=linux\0";
	struct hostenv h;

	put("/proc/self/status", STATUS("0", "000001ffffffffff", "000001ffffffffff"));
	put_n("/proc/1/environ", environ_, sizeof(environ_) - 1);
	hostenv_observe(&h, root);
	cr_assert_eq(h.engine, HE_ENGINE_OTHER);
	cr_assert_str_eq(h.engine_name, "lxc");
	cr_assert_eq(h.cap_bnd_sys_admin, 1);
	cr_assert_eq(h.seccomp, 0);
	cr_assert_str_empty(h.masked);
	cr_assert_not(h.apparmor);
	cr_assert_str_empty(h.label);
}

Test(hostenv_facts, podman_marker)
{
	struct hostenv h;

	put("/run/.containerenv", "engine=\"podman-4.9.3\"\n");
	hostenv_observe(&h, root);
	cr_assert_eq(h.engine, HE_ENGINE_PODMAN);
	cr_assert_str_eq(h.evidence, "/run/.containerenv");
}

Test(hostenv_facts, no_marker_but_what_docker_gives)
{
	struct hostenv h;

	put("/proc/self/status", STATUS("2", DOCKER_CAPS, DOCKER_CAPS));
	hostenv_observe(&h, root);
	cr_assert_eq(h.engine, HE_ENGINE_INFERRED);
	has(h.evidence, "no CAP_SYS_ADMIN in the bounding set");
}

Test(hostenv_facts, no_marker_but_a_masked_proc)
{
	struct hostenv h;

	put("/proc/self/status", STATUS("0", "000001ffffffffff", "0000000000000000"));
	put("/proc/self/mountinfo", "601 600 0:52 / /proc rw - proc proc rw\n"
				    "606 601 0:5 /null /proc/keys rw - devtmpfs udev rw\n");
	hostenv_observe(&h, root);
	cr_assert_eq(h.engine, HE_ENGINE_INFERRED);
	cr_assert_str_eq(h.masked, "/proc/keys");
	cr_assert_str_eq(h.evidence, "/proc has masked paths");
}

Test(hostenv_facts, nothing_to_read)
{
	struct hostenv h;

	hostenv_observe(&h, root);
	cr_assert_eq(h.engine, HE_ENGINE_NONE);
	cr_assert_eq(h.seccomp, HE_UNKNOWN);
	cr_assert_eq(h.cap_bnd_sys_admin, HE_UNKNOWN);
	cr_assert_eq(h.userns_restrict, HE_UNKNOWN);
	cr_assert_eq(h.max_userns, HE_UNKNOWN);
	cr_assert_str_empty(h.masked);
}

/* Inside a heel sandbox: PID 1 is heel-exec's init and a filter is on
 * us. A nested heel-exec is told so, not sent to Docker's options. The
 * control: the same filter with another PID 1 is a container. */
Test(hostenv_facts, inside_a_heel_sandbox)
{
	struct hostenv h;
	struct he_diag d;
	char line[512];

	/* A heel sandbox: a filter and no_new_privs, always both. */
	put("/proc/self/status", "NoNewPrivs:\t1\nSeccomp:\t2\n");
	put("/proc/1/comm", "heel-exec\n");
	hostenv_observe(&h, root);
	cr_assert(h.in_heel);
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_NESTED);
	has(d.why, "runs inside a heel sandbox");
	has(d.way_out, "run heel outside the sandbox");
	cr_assert_null(strstr(d.way_out, "docker"), "%s", d.way_out);
	hostenv_container_line(&h, &d, line, sizeof(line));
	has(line, "a heel sandbox");
	put("/proc/1/comm", "bash\n");
	hostenv_observe(&h, root);
	cr_assert_not(h.in_heel);
	cr_assert_eq(hostenv_diagnose(&h, HE_STEP_CLONE, EPERM, &d), HE_CAUSE_SECCOMP);
	/* heel-exec as a container's entry point (Docker's filter, no
	 * no_new_privs): a container, not a heel sandbox. */
	put("/proc/self/status", STATUS("2", DOCKER_CAPS, DOCKER_CAPS));
	put("/proc/1/comm", "heel-exec\n");
	hostenv_observe(&h, root);
	cr_assert_not(h.in_heel);
}

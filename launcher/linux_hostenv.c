/* SPDX-License-Identifier: MIT
 * What kind of host refused what, and how to get out; see
 * linux_hostenv.h. The texts name the options of the engines as their
 * manuals give them (docker-run(1), podman-run(1)) and the sysctls as
 * the kernel names them. */
#include "linux_hostenv.h"
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

/* ---------------------------------------------------------------- facts */

static int
open_below(const char *root, const char *path)
{
	char p[512];

	if (snprintf(p, sizeof(p), "%s%s", root, path) >= (int)sizeof(p))
		return -1;
	return open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

static bool
exists_below(const char *root, const char *path, bool dir)
{
	char p[512];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s%s", root, path) >= (int)sizeof(p) || stat(p, &st) < 0)
		return false;
	return !dir || S_ISDIR(st.st_mode);
}

/* Up to len - 1 bytes of a small file, NUL-terminated; the count, or -1. */
static ssize_t
read_below(const char *root, const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open_below(root, path);

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static long
read_number(const char *root, const char *path)
{
	char buf[32], *end;
	long v;

	if (read_below(root, path, buf, sizeof(buf)) <= 0)
		return HE_UNKNOWN;
	v = strtol(buf, &end, 10);
	return end == buf ? HE_UNKNOWN : v;
}

/* /proc/self/status: the seccomp mode and whether CAP_SYS_ADMIN is in
 * the bounding and effective sets. */
static void
read_status(struct hostenv *h, const char *root)
{
	char buf[4096], *line, *save = NULL;

	if (read_below(root, "/proc/self/status", buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long caps;

		if (strncmp(line, "Seccomp:", 8) == 0)
			h->seccomp = atoi(line + 8);
		else if (strncmp(line, "NoNewPrivs:", 11) == 0)
			h->no_new_privs = atoi(line + 11);
		else if (strncmp(line, "CapBnd:", 7) == 0 && sscanf(line + 7, "%llx", &caps) == 1)
			h->cap_bnd_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
		else if (strncmp(line, "CapEff:", 7) == 0 && sscanf(line + 7, "%llx", &caps) == 1) {
			h->cap_eff_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
			h->cap_eff_bpf = ((caps >> CAP_BPF_BIT) & 1) && ((caps >> CAP_PERFMON_BIT) & 1);
		}
	}
}

/* Mounts on paths beneath /proc, as engines mask it (a bind of /dev/null
 * over /proc/kcore, a read-only bind of /proc/sys...). binfmt_misc is
 * mounted on an empty directory of procfs, which the kernel does not
 * count as hiding anything, and so neither do we. */
static void
read_masked(struct hostenv *h, const char *root)
{
	char path[512], *line = NULL;
	size_t cap = 0, used = 0, n = 0;
	bool more = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root) >= (int)sizeof(path) ||
	    !(f = fopen(path, "re")))
		return;
	while (getline(&line, &cap, f) > 0) {
		char *point = line;
		int len;

		/* The mount point is the fifth field. */
		for (int i = 0; i < 4 && point; i++)
			if ((point = strchr(point, ' ')))
				point++;
		if (!point)
			continue;
		point[strcspn(point, " \n")] = '\0';
		mountinfo_unescape(point);
		if (strncmp(point, "/proc/", 6) != 0 ||
		    strcmp(point, "/proc/sys/fs/binfmt_misc") == 0)
			continue;
		/* Three name the kind; the rest would only lengthen the message. */
		if (++n > 3) {
			more = true;
			continue;
		}
		len = snprintf(h->masked + used, sizeof(h->masked) - used, "%s%s", used ? ", " : "",
			       point);
		if (len < 0 || used + (size_t)len + sizeof(", ...") > sizeof(h->masked)) {
			h->masked[used] = '\0';
			more = true;
			continue;
		}
		used += (size_t)len;
	}
	if (more && used)
		snprintf(h->masked + used, sizeof(h->masked) - used, ", ...");
	free(line);
	fclose(f);
}

/* container=NAME in PID 1's environment, which systemd-nspawn, LXC and
 * Podman set; Docker sets none. Unreadable to a user other than PID 1's. */
static bool
read_container_env(struct hostenv *h, const char *root)
{
	char buf[8192];
	ssize_t n = read_below(root, "/proc/1/environ", buf, sizeof(buf));

	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (strncmp(buf + i, "container=", 10) == 0 && buf[i + 10]) {
			snprintf(h->engine_name, sizeof(h->engine_name), "%s", buf + i + 10);
			snprintf(h->evidence, sizeof(h->evidence),
				 "container=%s in PID 1's environment", h->engine_name);
			return true;
		}
	return false;
}

static void
read_engine(struct hostenv *h, const char *root)
{
	h->engine = HE_ENGINE_NONE;
	if (exists_below(root, "/.dockerenv", false)) {
		h->engine = HE_ENGINE_DOCKER;
		snprintf(h->engine_name, sizeof(h->engine_name), "docker");
		snprintf(h->evidence, sizeof(h->evidence), "/.dockerenv");
	} else if (exists_below(root, "/run/.containerenv", false)) {
		h->engine = HE_ENGINE_PODMAN;
		snprintf(h->engine_name, sizeof(h->engine_name), "podman");
		snprintf(h->evidence, sizeof(h->evidence), "/run/.containerenv");
	} else if (read_container_env(h, root)) {
		h->engine = strcmp(h->engine_name, "podman") == 0   ? HE_ENGINE_PODMAN
			    : strcmp(h->engine_name, "docker") == 0 ? HE_ENGINE_DOCKER
								    : HE_ENGINE_OTHER;
	} else if (h->seccomp == 2 && h->cap_bnd_sys_admin == 0) {
		/* What Docker gives a container by default, marker or not. */
		h->engine = HE_ENGINE_INFERRED;
		snprintf(h->engine_name, sizeof(h->engine_name), "unknown engine");
		snprintf(h->evidence, sizeof(h->evidence),
			 "a seccomp filter, no CAP_SYS_ADMIN in the bounding set");
	} else if (h->masked[0]) {
		h->engine = HE_ENGINE_INFERRED;
		snprintf(h->engine_name, sizeof(h->engine_name), "unknown engine");
		snprintf(h->evidence, sizeof(h->evidence), "/proc has masked paths");
	}
}

static void
read_apparmor(struct hostenv *h, const char *root)
{
	char buf[16];
	char *nl;

	h->apparmor =
	    exists_below(root, "/sys/kernel/security/apparmor", true) ||
	    (read_below(root, "/sys/module/apparmor/parameters/enabled", buf, sizeof(buf)) > 0 &&
	     buf[0] == 'Y');
	if (!h->apparmor)
		return;
	/* The AppArmor-only file where LSMs stack (Linux 5.8), else the
	 * shared one. */
	if (read_below(root, "/proc/self/attr/apparmor/current", h->label, sizeof(h->label)) <= 0 &&
	    read_below(root, "/proc/self/attr/current", h->label, sizeof(h->label)) <= 0)
		h->label[0] = '\0';
	if ((nl = strchr(h->label, '\n')))
		*nl = '\0';
}

/* PID 1 named heel-exec, with no_new_privs and a seccomp filter on us
 * (every heel sandbox has both): the init of a heel sandbox's PID
 * namespace, seen from a command inside it. Not when we are PID 1
 * ourselves: that is heel-exec as a container's entry point. A name is
 * enough: it only chooses the words of a refusal the kernel made. */
static void
read_nested(struct hostenv *h, const char *root)
{
	char comm[32];

	h->in_heel = h->seccomp == 2 && h->no_new_privs == 1 && getpid() != 1 &&
		     read_below(root, "/proc/1/comm", comm, sizeof(comm)) > 0 &&
		     strcmp(comm, "heel-exec\n") == 0;
}

void
hostenv_observe(struct hostenv *h, const char *root)
{
	memset(h, 0, sizeof(*h));
	h->root = geteuid() == 0;
	h->seccomp = h->cap_bnd_sys_admin = h->cap_eff_sys_admin = h->cap_eff_bpf = HE_UNKNOWN;
	h->no_new_privs = HE_UNKNOWN;
	read_status(h, root);
	/* unshare(0) changes nothing and the kernel never refuses it: a
	 * failure is a seccomp filter's answer. */
	h->unshare_refused = unshare(0) < 0 ? errno : 0;
	read_masked(h, root);
	read_engine(h, root);
	read_nested(h, root);
	h->userns_restrict =
	    (int)read_number(root, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	h->userns_clone = (int)read_number(root, "/proc/sys/kernel/unprivileged_userns_clone");
	h->max_userns = read_number(root, "/proc/sys/user/max_user_namespaces");
	read_apparmor(h, root);
}

/* ------------------------------------------------------------ diagnosis */

/* What a user runs the container with so that heel-exec can make its
 * sandbox: seccomp=unconfined (or CAP_SYS_ADMIN) for the namespace calls,
 * apparmor=unconfined for mount (docker-default and Podman's profile say
 * `deny mount,`), systempaths=unconfined for a /proc without over-mounts
 * (a user namespace may not mount one over them). Root makes no user
 * namespace, so it needs CAP_SYS_ADMIN itself; Docker's seccomp profile
 * then allows the namespace calls too. */
#define DOCKER_USER                                                                                \
	"docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined "         \
	"--security-opt systempaths=unconfined"
#define DOCKER_ROOT                                                                                \
	"docker run --cap-add SYS_ADMIN --security-opt apparmor=unconfined "                       \
	"--security-opt systempaths=unconfined"
/* Podman's default seccomp profile allows the namespace calls. */
#define PODMAN_USER                                                                                \
	"podman run --security-opt apparmor=unconfined --security-opt systempaths=unconfined"
#define PODMAN_USER_SECCOMP                                                                        \
	"podman run --security-opt seccomp=unconfined --security-opt apparmor=unconfined "         \
	"--security-opt systempaths=unconfined"
#define PODMAN_ROOT                                                                                \
	"podman run --cap-add SYS_ADMIN --security-opt apparmor=unconfined "                       \
	"--security-opt systempaths=unconfined"

#define RESTRICT_SYSCTL "kernel.apparmor_restrict_unprivileged_userns"

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static bool
perm_or_nosys(int err)
{
	/* Docker's profile answers clone3 with ENOSYS so that libcs fall
	 * back to clone, which it can filter by flags. */
	return err == EPERM || err == ENOSYS;
}

/* The unprivileged_userns profile Ubuntu moves such a program into. */
static bool
in_userns_profile(const struct hostenv *h)
{
	return strncmp(h->label, "unprivileged_userns", 19) == 0;
}

/* The label without its mode: "docker-default" for "docker-default
 * (enforce)"; NULL when there is none to name. */
static const char *
profile_name(const struct hostenv *h, char *buf, size_t len)
{
	if (!h->apparmor || !h->label[0] || strcmp(h->label, "unconfined") == 0)
		return NULL;
	snprintf(buf, len, "%s", h->label);
	buf[strcspn(buf, " ")] = '\0';
	return buf;
}

static enum he_cause
cause_of(const struct hostenv *h, enum he_step step, int err)
{
	bool user = !h->root;

	/* heel-exec's own filter refuses what a sandbox would need. */
	if (h->in_heel && perm_or_nosys(err))
		return HE_CAUSE_NESTED;
	switch (step) {
	case HE_STEP_CLONE:
		if (err == ENOSPC)
			return HE_CAUSE_USERNS_LIMIT;
		if (user && err == EACCES && h->userns_restrict == 1)
			return HE_CAUSE_USERNS_RESTRICTED;
		/* unshare(0) refused too: a filter, whatever else holds. */
		if (perm_or_nosys(err) && h->seccomp == 2 && perm_or_nosys(h->unshare_refused))
			return HE_CAUSE_SECCOMP;
		if (user && err == EPERM && h->userns_clone == 0)
			return HE_CAUSE_USERNS_DISABLED;
		if (perm_or_nosys(err) && h->seccomp == 2)
			return HE_CAUSE_SECCOMP;
		if (!user && err == EPERM && h->cap_eff_sys_admin == 0)
			return HE_CAUSE_NO_CAP;
		return HE_CAUSE_UNKNOWN;
	case HE_STEP_IDMAP:
		if (user && (err == EPERM || err == EACCES) &&
		    (h->userns_restrict == 1 || in_userns_profile(h)))
			return HE_CAUSE_USERNS_RESTRICTED;
		return HE_CAUSE_UNKNOWN;
	case HE_STEP_MOUNT:
	case HE_STEP_PROC:
		if (in_userns_profile(h))
			return HE_CAUSE_USERNS_RESTRICTED;
		if (err == EACCES)
			return HE_CAUSE_MOUNT_DENIED;
		if (step == HE_STEP_PROC && err == EPERM && h->masked[0])
			return HE_CAUSE_PROC_MASKED;
		if (user && err == EPERM && h->userns_restrict == 1)
			return HE_CAUSE_USERNS_RESTRICTED;
		if (perm_or_nosys(err) && h->seccomp == 2)
			return HE_CAUSE_SECCOMP;
		return HE_CAUSE_UNKNOWN;
	}
	return HE_CAUSE_UNKNOWN;
}

/* The way out of a container's refusal: the options of its engine. */
static void
container_way_out(const struct hostenv *h, enum he_cause c, char *buf, size_t len)
{
	switch (h->engine) {
	case HE_ENGINE_DOCKER:
		if (h->root)
			put(buf, len,
			    "start the container with `" DOCKER_ROOT
			    "` (as root heel-exec makes no "
			    "user namespace, so it needs CAP_SYS_ADMIN itself), or with `docker "
			    "run "
			    "--privileged`");
		else
			put(buf, len,
			    "start the container with `" DOCKER_USER "`, or with `docker run "
			    "--privileged`");
		return;
	case HE_ENGINE_PODMAN:
		put(buf, len, "start the container with `%s`, or with `podman run --privileged`",
		    h->root		    ? PODMAN_ROOT
		    : c == HE_CAUSE_SECCOMP ? PODMAN_USER_SECCOMP
					    : PODMAN_USER);
		return;
	default:
		put(buf, len,
		    "let the container make namespaces and mounts: Docker `%s`, Podman `%s` (or "
		    "--privileged)",
		    h->root ? DOCKER_ROOT : DOCKER_USER,
		    h->root ? PODMAN_ROOT : PODMAN_USER_SECCOMP);
		return;
	}
}

/* "inside a container whose ...", "inside a Podman container whose ...". */
static const char *
inside(const struct hostenv *h, char *buf, size_t len)
{
	switch (h->engine) {
	case HE_ENGINE_PODMAN:
		return "inside a Podman container";
	case HE_ENGINE_OTHER:
		snprintf(buf, len, "inside a container (%s)", h->engine_name);
		return buf;
	default:
		return "inside a container";
	}
}

enum he_cause
hostenv_diagnose(const struct hostenv *h, enum he_step step, int err, struct he_diag *d)
{
	const char *what = step == HE_STEP_CLONE ? "new namespaces" : "mount";
	const char *asroot =
	    h->root && h->cap_eff_sys_admin == 0 ? " as root without CAP_SYS_ADMIN" : "";
	const char *host = h->engine != HE_ENGINE_NONE ? " (on the host)" : "";
	char name[64], where[64];

	memset(d, 0, sizeof(*d));
	d->cause = cause_of(h, step, err);
	switch (d->cause) {
	case HE_CAUSE_UNKNOWN:
		d->brief = "";
		break;
	case HE_CAUSE_SECCOMP:
		d->brief = step == HE_STEP_CLONE ? "seccomp filter refuses namespaces"
						 : "seccomp filter refuses mount";
		if (h->engine == HE_ENGINE_NONE) {
			put(d->why, sizeof(d->why),
			    "heel-exec runs%s under a seccomp filter installed before its own that "
			    "refuses %s (a service manager's, such as systemd's "
			    "RestrictNamespaces=, or another sandbox's)",
			    asroot, what);
			put(d->way_out, sizeof(d->way_out),
			    "run heel-exec where no filter refuses %s", what);
			break;
		}
		/* Docker's profile refuses them to a container without
		 * CAP_SYS_ADMIN; said once where root lacks it. */
		put(d->why, sizeof(d->why),
		    "heel-exec runs%s %s whose seccomp filter refuses %s%s%s", asroot,
		    inside(h, where, sizeof(where)), what,
		    h->engine == HE_ENGINE_DOCKER   ? " (Docker's default profile"
		    : h->engine == HE_ENGINE_PODMAN ? " (a stricter profile than Podman's default, "
						      "which allows them"
						    : " (as Docker's default profile does",
		    h->engine == HE_ENGINE_PODMAN || asroot[0]
			? ")"
			: ", for a container without CAP_SYS_ADMIN)");
		container_way_out(h, d->cause, d->way_out, sizeof(d->way_out));
		break;
	case HE_CAUSE_NO_CAP:
		d->brief = "root without CAP_SYS_ADMIN";
		put(d->why, sizeof(d->why),
		    "heel-exec runs as root without CAP_SYS_ADMIN%s%s, and as root it makes its "
		    "namespaces without a user namespace, which takes CAP_SYS_ADMIN",
		    h->engine != HE_ENGINE_NONE ? " " : "",
		    h->engine != HE_ENGINE_NONE ? inside(h, where, sizeof(where)) : "");
		if (h->engine != HE_ENGINE_NONE)
			container_way_out(h, d->cause, d->way_out, sizeof(d->way_out));
		else
			put(d->way_out, sizeof(d->way_out),
			    "give it CAP_SYS_ADMIN, or run it as another user (who gets a user "
			    "namespace)");
		break;
	case HE_CAUSE_MOUNT_DENIED:
		d->brief = "mount refused with EACCES";
		if (profile_name(h, name, sizeof(name)))
			put(d->why, sizeof(d->why),
			    "a mount refused with EACCES (the AppArmor profile %s, which heel-exec "
			    "runs under, denies mount)",
			    name);
		else
			put(d->why, sizeof(d->why),
			    "a mount refused with EACCES (an AppArmor profile such as "
			    "docker-default "
			    "denies mount)");
		if (h->engine != HE_ENGINE_NONE)
			container_way_out(h, d->cause, d->way_out, sizeof(d->way_out));
		else
			put(d->way_out, sizeof(d->way_out),
			    "run heel-exec unconfined, or under a profile that allows mount");
		break;
	case HE_CAUSE_PROC_MASKED:
		d->brief = "/proc has masked paths";
		put(d->why, sizeof(d->why),
		    "heel-exec runs %s whose /proc has masked paths (%s): the kernel refuses a "
		    "user namespace a new /proc that would show what they hide",
		    inside(h, where, sizeof(where)), h->masked);
		container_way_out(h, d->cause, d->way_out, sizeof(d->way_out));
		break;
	case HE_CAUSE_USERNS_RESTRICTED:
		d->brief = "AppArmor restricts unprivileged user namespaces";
		put(d->why, sizeof(d->why),
		    "the kernel restricts unprivileged user namespaces through AppArmor "
		    "(" RESTRICT_SYSCTL "=1, the default since Ubuntu 23.10)%s: %s",
		    host,
		    step == HE_STEP_CLONE
			? "a program that no AppArmor profile allows `userns` gets none"
			: "a program that no AppArmor profile allows `userns` gets one without "
			  "capabilities (the profile unprivileged_userns)");
		put(d->way_out, sizeof(d->way_out),
		    "install heel's AppArmor profile, which allows `userns` to the installed "
		    "heel-exec (`sudo make install-apparmor` puts it in /etc/apparmor.d/heel-exec and loads "
		    "it), or lift the restriction for every program: `sudo sysctl "
		    "-w " RESTRICT_SYSCTL "=0`");
		break;
	case HE_CAUSE_USERNS_DISABLED:
		d->brief = "unprivileged user namespaces disabled";
		put(d->why, sizeof(d->why),
		    "unprivileged user namespaces are disabled "
		    "(kernel.unprivileged_userns_clone=0)%s",
		    host);
		put(d->way_out, sizeof(d->way_out),
		    "allow them with `sudo sysctl -w kernel.unprivileged_userns_clone=1`, or run "
		    "heel-exec as root");
		break;
	case HE_CAUSE_NESTED:
		d->brief = "inside a heel sandbox";
		put(d->why, sizeof(d->why),
		    "heel-exec runs inside a heel sandbox, whose seccomp filter refuses %s to "
		    "everything in it: a sandbox is not made inside another",
		    what);
		put(d->way_out, sizeof(d->way_out),
		    "run heel outside the sandbox; inside it, the outer sandbox's walls already "
		    "hold for every command");
		return d->cause;
	case HE_CAUSE_USERNS_LIMIT:
		d->brief = "user namespace limit";
		if (h->max_userns == 0) {
			put(d->why, sizeof(d->why),
			    "user namespaces are disabled (user.max_user_namespaces=0)%s", host);
			put(d->way_out, sizeof(d->way_out),
			    "allow them with `sudo sysctl -w user.max_user_namespaces=N`, N above "
			    "0");
		} else {
			put(d->why, sizeof(d->why),
			    "a namespace limit is reached (user.max_*_namespaces, ENOSPC)%s", host);
			put(d->way_out, sizeof(d->way_out),
			    "raise the limit (sysctl user.max_user_namespaces and its siblings), "
			    "or end "
			    "processes that hold namespaces");
		}
		break;
	}
	/* Past these steps a launch has made its namespaces and cannot fall
	 * back (a refused clone or /proc is what --best-effort accepts). */
	if (d->cause != HE_CAUSE_UNKNOWN && (step == HE_STEP_IDMAP || step == HE_STEP_MOUNT)) {
		size_t n = strlen(d->way_out);

		snprintf(d->way_out + n, sizeof(d->way_out) - n,
			 "; or run weakened, without the sandbox's namespaces: --best-effort "
			 "--no-namespaces");
	}
	return d->cause;
}

enum he_cause
hostenv_explain(const struct hostenv *h, enum he_step step, int err, char *buf, size_t len)
{
	struct he_diag d;
	size_t n = strlen(buf);

	if (hostenv_diagnose(h, step, err, &d) != HE_CAUSE_UNKNOWN && n < len)
		snprintf(buf + n, len - n, "; %s; %s", d.why, d.way_out);
	return d.cause;
}

void
hostenv_container_line(const struct hostenv *h, const struct he_diag *d, char *buf, size_t len)
{
	bool ours = d && (d->cause == HE_CAUSE_SECCOMP || d->cause == HE_CAUSE_NO_CAP ||
			  d->cause == HE_CAUSE_MOUNT_DENIED || d->cause == HE_CAUSE_PROC_MASKED);

	if (h->in_heel)
		put(buf, len, "a heel sandbox (PID 1 is heel-exec, under a seccomp filter)");
	else if (h->engine == HE_ENGINE_NONE)
		put(buf, len, "none detected");
	else if (ours)
		put(buf, len, "%s (%s): %s", h->engine_name, d->brief, d->way_out);
	else
		put(buf, len, "%s (%s)", h->engine_name, h->evidence);
}

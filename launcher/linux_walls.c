/* SPDX-License-Identifier: MIT
 * heel-exec check without a policy: the walls of this machine for this
 * user; see linux_walls.h. One line a wall, "wall NAME: STATE[: DETAIL]"
 * (STATE available, missing or unneeded), a missing one followed by
 * "\traise: WHAT" (one command or setting), then "host NAME: VALUE"
 * lines for the facts that decide them. */
#include "linux_walls.h"

#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock_apply.h"
#include "linux.h"
#include "linux_cgroup.h"
#include "linux_hostenv.h"

static int nmissing;
static char missing_names[256];

static void
available(const char *name, const char *detail)
{
	printf("wall %s: available%s%s\n", name, detail && detail[0] ? ": " : "",
	       detail ? detail : "");
}

static void
missing(const char *name, const char *detail, const char *raise)
{
	printf("wall %s: missing: %s\n\traise: %s\n", name, detail, raise);
	nmissing++;
	snprintf(missing_names + strlen(missing_names),
		 sizeof(missing_names) - strlen(missing_names), "%s%s",
		 missing_names[0] ? ", " : "", name);
}

/* Loads the smallest tracing program (r0 = 0; exit), the kind a denial
 * observer attaches to the kernel's tracepoints: 0 or -errno. Tracing
 * programs take CAP_BPF and CAP_PERFMON (Linux 5.8), or CAP_SYS_ADMIN. */
static int
bpf_try_load(void)
{
	struct bpf_insn prog[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	attr.insns = (uint64_t)(uintptr_t)prog;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t) "GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

static void
wall_bpf(const struct hostenv *h)
{
	bool admin = h->cap_eff_sys_admin == 1, bpf_perf = h->cap_eff_bpf == 1;
	char detail[256];
	int r = bpf_try_load();

	if (r == 0) {
		available("bpf", admin ? "bpf() loads tracing programs (CAP_SYS_ADMIN)"
				       : "bpf() loads tracing programs (CAP_BPF and CAP_PERFMON)");
		return;
	}
	if (!admin && !bpf_perf) {
		snprintf(detail, sizeof(detail),
			 "no CAP_BPF and CAP_PERFMON (uid %u), bpf() refuses tracing programs (%s)",
			 (unsigned)geteuid(), strerror(-r));
		missing("bpf", detail,
			"run the denial observer as root, or give it CAP_BPF and CAP_PERFMON "
			"(`sudo setcap cap_bpf,cap_perfmon+ep PROGRAM`, Linux 5.8 or later)");
		return;
	}
	snprintf(detail, sizeof(detail), "bpf() refused with the capabilities held (%s)",
		 strerror(-r));
	missing("bpf", detail,
		r == -ENOSYS ? "a kernel built with CONFIG_BPF_SYSCALL=y, and no seccomp filter "
			       "refusing bpf() (a container's: `docker run --security-opt "
			       "seccomp=unconfined`)"
			     : "lift what refuses bpf() to a privileged process: a seccomp "
			       "filter (a container's: `docker run --security-opt "
			       "seccomp=unconfined`), or kernel lockdown (lockdown=none)");
}

/* What raises a namespace wall the host refuses: the diagnosis's way out
 * where it names the cause, else the settings that commonly refuse one. */
static void
wall_ns(const char *name, int r, const struct hostenv *h)
{
	struct he_diag d;
	char detail[256];

	if (r == 0) {
		available(name, NULL);
		return;
	}
	hostenv_diagnose(h, HE_STEP_CLONE, -r, &d);
	snprintf(detail, sizeof(detail), "%s%s%s", strerror(-r), d.brief[0] ? ": " : "", d.brief);
	missing(name, detail,
		d.cause != HE_CAUSE_UNKNOWN ? d.way_out
		: h->root ? "give heel-exec CAP_SYS_ADMIN (as root it makes its namespaces without a "
			    "user namespace)"
			  : "allow user namespaces: `sudo sysctl -w user.max_user_namespaces=15000` "
			    "(and kernel.unprivileged_userns_clone=1 where the kernel has it), or "
			    "run heel-exec as root");
}

static void
wall_proc(const struct linux_probe *p, const struct hostenv *h)
{
	struct he_diag d;
	char detail[1024];
	int err = p->userns < 0 ? -p->userns : -p->proc;

	if (p->userns == 0 && p->proc == 0) {
		available("private-proc", NULL);
		return;
	}
	hostenv_diagnose(h, p->ns_step >= 0 ? (enum he_step)p->ns_step : HE_STEP_PROC, err, &d);
	snprintf(detail, sizeof(detail), "%s (%s)%s%s",
		 p->userns < 0 ? "the sandbox's namespaces cannot be made"
			       : "no /proc of the sandbox's own can be mounted",
		 strerror(err), d.brief[0] ? ": " : "", d.brief);
	missing("private-proc", detail,
		d.cause != HE_CAUSE_UNKNOWN ? d.way_out
					    : "run heel-exec where it may mount a /proc of its own "
					      "(a container: `docker run --security-opt "
					      "systempaths=unconfined`)");
}

static void
wall_cgroup(const struct hostenv *h)
{
	char where[300], why[512], detail[900];
	int version, r = linux_cgroup_probe(&version, where, sizeof(where), why, sizeof(why));

	if (r == 0) {
		snprintf(detail, sizeof(detail), "v%d, below %s", version, where);
		available("cgroup", detail);
		return;
	}
	missing("cgroup", why[0] ? why : strerror(-r),
		h->root ? "mount the cgroup hierarchy (cgroup2 on /sys/fs/cgroup) where heel-exec "
			  "runs"
			: "run under a cgroup delegated to you: `systemd-run --user --scope -p "
			  "Delegate=yes heel ...` (cgroup v2), or run as root; without one "
			  "`--accept per-process-limits` runs limits per process");
}

static void
host_facts(const struct hostenv *h)
{
	char line[1400];

	printf("host uid: %u\n", (unsigned)geteuid());
	if (h->seccomp == 2)
		printf("host seccomp-filter: stacked (a filter was installed before heel-exec's; "
		       "heel's stacks on it)\n");
	else
		printf("host seccomp-filter: none\n");
	printf("host no-new-privs: %s\n", h->no_new_privs == 1 ? "set" : "not set");
	printf("host proc-masks: %s\n", h->masked[0] ? h->masked : "none");
	if (h->userns_restrict == HE_UNKNOWN)
		printf("host apparmor-userns-restriction: absent\n");
	else
		printf("host apparmor-userns-restriction: %s (kernel.apparmor_restrict_unprivileged_"
		       "userns=%d)\n",
		       h->userns_restrict ? "on" : "off", h->userns_restrict);
	hostenv_container_line(h, NULL, line, sizeof(line));
	printf("host container: %s\n", line);
}

int
linux_walls_report(void)
{
	struct linux_probe p;
	struct hostenv h;
	char detail[256];

	linux_probe(&p, true);
	hostenv_observe(&h, "");
	printf("heel-exec check: the walls this machine gives uid %u\n", (unsigned)geteuid());
	if (p.landlock_abi > 0) {
		snprintf(detail, sizeof(detail), "ABI %d", p.landlock_abi);
		available("landlock", detail);
	} else {
		/* The probe's own words without their hint: the raise line
		 * below is the hint. A filter stacked before ours can answer
		 * ENOSYS for a kernel that has Landlock. */
		const char *msg = ll_probe_message(p.landlock_abi);
		const char *hint = strstr(msg, " (hint: ");

		snprintf(detail, sizeof(detail), "%.*s (%s)%s",
			 hint ? (int)(hint - msg) : (int)strlen(msg), msg, strerror(-p.landlock_abi),
			 h.seccomp == 2 ? "; a seccomp filter installed before heel-exec's may "
					  "answer for the kernel" : "");
		missing("landlock", detail,
			p.landlock_abi == -EOPNOTSUPP
				? "add `landlock` to the lsm= boot parameter (e.g. "
				  "lsm=landlock,lockdown,yama,integrity,apparmor) and reboot"
				: "boot Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y, "
				  "outside any seccomp filter that refuses landlock_create_ruleset");
	}
	if (p.seccomp == 0)
		available("seccomp", p.seccomp_mode == 2 ? "stacks on the filter already there" : NULL);
	else
		missing("seccomp", strerror(-p.seccomp),
			"boot a kernel built with CONFIG_SECCOMP_FILTER=y");
	if (h.root)
		printf("wall user-namespace: unneeded: as root heel-exec makes no user namespace\n");
	else
		wall_ns("user-namespace", linux_probe_namespace(CLONE_NEWUSER), &h);
	wall_ns("pid-namespace", linux_probe_namespace(CLONE_NEWPID), &h);
	wall_ns("mount-namespace", linux_probe_namespace(CLONE_NEWNS), &h);
	wall_ns("network-namespace", linux_probe_namespace(CLONE_NEWNET), &h);
	wall_proc(&p, &h);
	wall_cgroup(&h);
	wall_bpf(&h);
	host_facts(&h);
	if (nmissing)
		printf("walls: %d missing (%s)\n", nmissing, missing_names);
	else
		printf("walls: all available\n");
	return nmissing ? 1 : 0;
}

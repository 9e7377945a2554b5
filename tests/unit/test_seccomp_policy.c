/* SPDX-License-Identifier: MIT
 * The seccomp policy model: the generated syscall tables (checked against
 * numbers written down here and against libseccomp's resolver, an
 * independent source), the always-denied calls on both
 * architectures, the argument rules with garbage upper halves, the
 * network/unix-socket matrix, and the policy's own `seccomp` statements. */
#include <criterion/criterion.h>

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "seccomp_policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define EPERM_ SCP_ERRNO(1)
#define ENOSYS_ SCP_ERRNO(38)
#define HI(x) ((uint64_t)(x) << 32)

static struct ir_policy *
policy(int net, int unix_ok)
{
	struct ir_policy *p = ir_policy_new();

	cr_assert_not_null(p);
	p->scalar[IR_LINUX].network.value = (uint64_t)net;
	p->scalar[IR_LINUX].unix_sockets.set = unix_ok;
	p->scalar[IR_LINUX].unix_sockets.value = (uint64_t)unix_ok;
	return p;
}

static void
add_rule(struct ir_policy *p, const char *name, int action, uint16_t err)
{
	struct ir_seccomp_rule *r = realloc(p->seccomp, (p->nseccomp + 1) * sizeof(*r));

	cr_assert_not_null(r);
	p->seccomp = r;
	memset(&r[p->nseccomp], 0, sizeof(*r));
	r[p->nseccomp].syscall = strdup(name);
	r[p->nseccomp].action = (uint8_t)action;
	r[p->nseccomp].errno_value = err;
	r[p->nseccomp].origin.file = "test.heel";
	r[p->nseccomp].origin.line = (uint32_t)(p->nseccomp + 1);
	p->nseccomp++;
}

static struct scp_model *
model(const struct ir_policy *p, enum scp_arch a)
{
	struct scp_model *m = NULL;

	cr_assert_eq(scp_build(p, a, &m), 0);
	cr_assert_not_null(m);
	return m;
}

static uint32_t
nr_of(enum scp_arch a, const char *name)
{
	uint32_t nr = 0;

	cr_assert_eq(scp_lookup(a, name, &nr), 0, "%s missing on %s", name, scp_arch_name(a));
	return nr;
}

static uint32_t
act(const struct scp_model *m, const char *name, uint64_t a0, uint64_t a1,
    uint64_t a2, uint64_t a4)
{
	struct bpf_sim_data d = { .nr = nr_of(m->arch, name), .arch = m->audit_arch };

	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	d.args[4] = a4;
	return scp_eval(m, &d);
}

static uint32_t
act_nr(const struct scp_model *m, uint32_t nr, uint32_t arch)
{
	struct bpf_sim_data d = { .nr = nr, .arch = arch };

	return scp_eval(m, &d);
}

/* --------------------------------------------------------------- tables */

Test(seccomp_tables, known_numbers)
{
	struct {
		const char *name;
		uint32_t x86, a64;  /* UINT32_MAX: absent */
	} cases[] = {
		{ "read", 0, 63 },           { "write", 1, 64 },
		{ "open", 2, UINT32_MAX },   { "fork", 57, UINT32_MAX },
		{ "stat", 4, UINT32_MAX },   { "execve", 59, 221 },
		{ "socket", 41, 198 },       { "socketpair", 53, 199 },
		{ "clone", 56, 220 },        { "ioctl", 16, 29 },
		{ "ptrace", 101, 117 },      { "personality", 135, 92 },
		{ "umount2", 166, 39 },      { "renameat", 264, 38 },
		{ "newfstatat", 262, 79 },   { "fstat", 5, 80 },
		{ "getrlimit", 97, 163 },    { "mmap", 9, 222 },
		{ "fcntl", 72, 25 },         { "lseek", 8, 62 },
		{ "memfd_create", 319, 279 }, { "execveat", 322, 281 },
		{ "io_uring_setup", 425, 425 }, { "clone3", 435, 435 },
		{ "memfd_secret", 447, 447 }, { "open_tree_attr", 467, 467 },
		{ "uretprobe", 335, UINT32_MAX }, { "sync_file_range2", UINT32_MAX, UINT32_MAX },
		{ "socketcall", UINT32_MAX, UINT32_MAX },
	};

	for (size_t i = 0; i < N(cases); i++) {
		uint32_t nr;
		int r;

		r = scp_lookup(SCP_X86_64, cases[i].name, &nr);
		if (cases[i].x86 == UINT32_MAX)
			cr_assert_eq(r, -ENOENT, "x86_64 has %s", cases[i].name);
		else
			cr_assert(r == 0 && nr == cases[i].x86, "x86_64 %s", cases[i].name);
		r = scp_lookup(SCP_AARCH64, cases[i].name, &nr);
		if (cases[i].a64 == UINT32_MAX)
			cr_assert_eq(r, -ENOENT, "aarch64 has %s", cases[i].name);
		else
			cr_assert(r == 0 && nr == cases[i].a64, "aarch64 %s = %u", cases[i].name, nr);
	}
	cr_assert_str_eq(scp_name(SCP_X86_64, 59), "execve");
	cr_assert_str_eq(scp_name(SCP_AARCH64, 221), "execve");
	cr_assert_null(scp_name(SCP_AARCH64, 250));
	cr_assert_eq(scp_audit_arch(SCP_X86_64), BPF_SIM_AUDIT_ARCH_X86_64);
	cr_assert_eq(scp_audit_arch(SCP_AARCH64), BPF_SIM_AUDIT_ARCH_AARCH64);
}

Test(seccomp_tables, sorted_unique_and_plausible)
{
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		size_t len;
		const struct scp_syscall *t = scp_table((enum scp_arch)a, &len);

		cr_assert_gt(len, 300);
		for (size_t i = 1; i < len; i++)
			cr_assert_lt(t[i - 1].nr, t[i].nr, "%s order at %s", scp_arch_name(a), t[i].name);
		for (size_t i = 0; i < len; i++)
			for (size_t j = i + 1; j < len; j++)
				cr_assert_str_neq(t[i].name, t[j].name);
		cr_assert_geq(scp_max_nr((enum scp_arch)a), 469);
		cr_assert_lt(scp_max_nr((enum scp_arch)a), 0x40000000u);
	}
}

/* libseccomp resolves names from its own table: where it knows a name it
 * must give our number; a disagreement is a wrong table on one side. */
Test(seccomp_tables, agree_with_libseccomp)
{
	const uint32_t scmp[] = { SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64 };

	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		size_t len, known = 0;
		const struct scp_syscall *t = scp_table((enum scp_arch)a, &len);

		for (size_t i = 0; i < len; i++) {
			int nr = seccomp_syscall_resolve_name_arch(scmp[a], t[i].name);

			if (nr < 0)
				continue;    /* newer than libseccomp 2.5.4 */
			known++;
			cr_assert_eq((uint32_t)nr, t[i].nr, "%s %s: libseccomp %d, table %u",
				     scp_arch_name(a), t[i].name, nr, t[i].nr);
		}
		cr_assert_gt(known, len * 9 / 10, "libseccomp knows %zu of %zu", known, len);
	}
}

Test(seccomp_tables, never_allowable)
{
	const char *never[] = { "io_uring_setup", "io_uring_enter", "io_uring_register",
				"ptrace", "process_vm_readv", "process_vm_writev", "bpf",
				"perf_event_open", "kexec_load", "kexec_file_load",
				"init_module", "finit_module", "delete_module" };

	for (size_t i = 0; i < N(never); i++)
		cr_assert(scp_never_allowable(never[i]), "%s", never[i]);
	cr_assert_not(scp_never_allowable("umount2"));
	cr_assert_not(scp_never_allowable("socket"));
	cr_assert_not(scp_never_allowable("clone3"));
}

/* ---------------------------------------------------------- the default */

Test(seccomp_policy, always_denied_on_both_arches)
{
	const char *eperm[] = {
		"ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup",
		"io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
		"userfaultfd", "keyctl", "add_key", "request_key", "mount", "fsopen",
		"fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "open_tree_attr",
		"mount_setattr", "umount2", "pivot_root", "chroot", "unshare", "setns",
		"kexec_load", "kexec_file_load", "init_module", "finit_module",
		"delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl",
		"quotactl_fd", "settimeofday", "clock_settime", "adjtimex", "clock_adjtime",
	};
	const char *allowed[] = { "read", "write", "execve", "getpid", "openat", "mmap",
				  "futex", "exit_group", "landlock_restrict_self", "seccomp",
				  "prctl", "connect", "bind", "listen", "kill" };

	for (int net = 0; net < 2; net++) {
		struct ir_policy *p = policy(net ? IR_NET_ALLOW_ALL : IR_NET_DENY, net);

		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m = model(p, (enum scp_arch)a);

			for (size_t i = 0; i < N(eperm); i++)
				cr_assert_eq(act(m, eperm[i], 0, 0, 0, 0), EPERM_, "%s %s",
					     scp_arch_name(a), eperm[i]);
			for (size_t i = 0; i < N(allowed); i++)
				cr_assert_eq(act(m, allowed[i], 0, 0, 0, 0), SCP_ALLOW, "%s %s",
					     scp_arch_name(a), allowed[i]);
			/* glibc falls back to clone() only on ENOSYS. */
			cr_assert_eq(act(m, "clone3", 0, 0, 0, 0), ENOSYS_);
			scp_free(m);
		}
		ir_policy_free(p);
	}
}

Test(seccomp_policy, foreign_abis_unknown_numbers_and_minus_one)
{
	struct ir_policy *p = policy(IR_NET_DENY, 0);
	struct scp_model *x = model(p, SCP_X86_64), *a = model(p, SCP_AARCH64);

	/* i386 entry (int 0x80) and any other arch: killed. */
	cr_assert_eq(act_nr(x, 1, BPF_SIM_AUDIT_ARCH_I386), SCP_KILL);
	cr_assert_eq(act_nr(x, 1, BPF_SIM_AUDIT_ARCH_AARCH64), SCP_KILL);
	cr_assert_eq(act_nr(a, 64, BPF_SIM_AUDIT_ARCH_X86_64), SCP_KILL);
	cr_assert_eq(act_nr(a, 64, 0x40000028u /* AUDIT_ARCH_ARM */), SCP_KILL);
	/* x32: x32 write (0x40000001) and friends. */
	cr_assert_eq(act_nr(x, 0x40000001u, x->audit_arch), SCP_KILL);
	cr_assert_eq(act_nr(x, 0x40000000u + 545, x->audit_arch), SCP_KILL);
	cr_assert_eq(act_nr(x, 0xfffffffeu, x->audit_arch), SCP_KILL);
	/* -1: no syscall (tracer skip): allowed, the kernel says ENOSYS. */
	cr_assert_eq(act_nr(x, 0xffffffffu, x->audit_arch), SCP_ALLOW);
	cr_assert_eq(act_nr(a, 0xffffffffu, a->audit_arch), SCP_ALLOW);
	/* Numbers heelc does not know: ENOSYS, as an older kernel answers. */
	cr_assert_eq(act_nr(x, 400, x->audit_arch), ENOSYS_);
	cr_assert_eq(act_nr(x, 470, x->audit_arch), ENOSYS_);
	cr_assert_eq(act_nr(x, 0x3fffffffu, x->audit_arch), ENOSYS_);
	cr_assert_eq(act_nr(a, 250, a->audit_arch), ENOSYS_);
	cr_assert_eq(act_nr(a, 0x40000001u, a->audit_arch), ENOSYS_);
	cr_assert_eq(act_nr(a, 0xfffffffeu, a->audit_arch), ENOSYS_);
	scp_free(x);
	scp_free(a);
	ir_policy_free(p);
}

/* ------------------------------------------------------------ arguments */

#define AF_UNIX_ 1
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_NETLINK_ 16
#define AF_PACKET_ 17
#define AF_VSOCK_ 40
#define AF_ALG_ 38
#define STREAM 1
#define DGRAM 2
#define RAW 3
#define SEQPACKET 5
#define NONBLOCK 0x800
#define CLOEXEC 0x80000

Test(seccomp_policy, socket_matrix)
{
	for (int net = 0; net < 2; net++) {
		for (int u = 0; u < 2; u++) {
			struct ir_policy *p = policy(net ? IR_NET_ALLOW_LIST : IR_NET_DENY, u);

			for (int a = 0; a < SCP_ARCH_COUNT; a++) {
				struct scp_model *m = model(p, (enum scp_arch)a);
				/* TCP under every network mode: the sandbox's
				 * own loopback (heel-exec stacks a refusal
				 * where it has no network namespace). */
				uint32_t inet = SCP_ALLOW;
				uint32_t unx = u ? SCP_ALLOW : EPERM_;

#define S(fam, type, proto) act(m, "socket", (fam), (type), (proto), 0)
				cr_assert_eq(S(AF_INET_, STREAM, 0), inet);
				cr_assert_eq(S(AF_INET6_, STREAM | NONBLOCK | CLOEXEC, 6), inet);
				cr_assert_eq(S(HI(7) | AF_INET_, HI(1) | STREAM, HI(3)), inet,
					     "garbage upper halves do not change an int");
				/* No UDP, raw, MPTCP, SCTP, garbage type flags. */
				cr_assert_eq(S(AF_INET_, DGRAM, 0), EPERM_);
				cr_assert_eq(S(AF_INET_, RAW, 1), EPERM_);
				cr_assert_eq(S(AF_INET6_, STREAM, 262), EPERM_);
				cr_assert_eq(S(AF_INET_, STREAM, 132), EPERM_);
				cr_assert_eq(S(AF_INET_, STREAM | 0x100, 0), EPERM_);
				/* Unix only with `allow unix-sockets`. */
				cr_assert_eq(S(AF_UNIX_, STREAM, 0), unx);
				cr_assert_eq(S(AF_UNIX_, DGRAM, 0), unx);
				cr_assert_eq(S(HI(1) | AF_UNIX_, STREAM, 0), unx,
					     "socket(0x1_00000001) is AF_UNIX");
				/* Netlink: route only, only with a network. */
				cr_assert_eq(S(AF_NETLINK_, RAW, 0), net ? SCP_ALLOW : EPERM_);
				cr_assert_eq(S(AF_NETLINK_, RAW, 4 /* SOCK_DIAG */), EPERM_);
				cr_assert_eq(S(AF_NETLINK_, RAW, 9 /* AUDIT */), EPERM_);
				cr_assert_eq(S(AF_PACKET_, RAW, 0), EPERM_);
				cr_assert_eq(S(AF_VSOCK_, STREAM, 0), EPERM_);
				cr_assert_eq(S(AF_ALG_, 5, 0), EPERM_);
				cr_assert_eq(S(0, 0, 0), EPERM_);
#undef S
				scp_free(m);
			}
			ir_policy_free(p);
		}
	}
}

Test(seccomp_policy, socketpair)
{
	for (int u = 0; u < 2; u++) {
		struct ir_policy *p = policy(IR_NET_DENY, u);

		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m = model(p, (enum scp_arch)a);

#define P(fam, type) act(m, "socketpair", (fam), (type), 0, 0)
			cr_assert_eq(P(AF_UNIX_, STREAM), SCP_ALLOW);
			cr_assert_eq(P(AF_UNIX_, SEQPACKET | CLOEXEC), SCP_ALLOW);
			cr_assert_eq(P(HI(5) | AF_UNIX_, HI(9) | STREAM), SCP_ALLOW);
			/* Datagram pairs can be re-targeted with connect(AF_UNSPEC). */
			cr_assert_eq(P(AF_UNIX_, DGRAM), u ? SCP_ALLOW : EPERM_);
			cr_assert_eq(P(AF_UNIX_, RAW), u ? SCP_ALLOW : EPERM_);
			cr_assert_eq(P(AF_INET_, STREAM), EPERM_);
			cr_assert_eq(P(30 /* AF_TIPC */, STREAM), EPERM_);
#undef P
			scp_free(m);
		}
		ir_policy_free(p);
	}
}

Test(seccomp_policy, clone_personality_ioctl_memfd_execveat)
{
	struct ir_policy *p = policy(IR_NET_DENY, 0);

	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct scp_model *m = model(p, (enum scp_arch)a);
		const uint64_t thread = 0x3d0f00; /* glibc pthread_create flags */

		cr_assert_eq(act(m, "clone", thread, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "clone", 17 /* SIGCHLD: fork */, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "clone", 0x10000000 | 17, 0, 0, 0), EPERM_, "CLONE_NEWUSER");
		cr_assert_eq(act(m, "clone", 0x40000000, 0, 0, 0), EPERM_, "CLONE_NEWNET");
		cr_assert_eq(act(m, "clone", 0x00020000, 0, 0, 0), EPERM_, "CLONE_NEWNS");
		cr_assert_eq(act(m, "clone", HI(1) | 0x20000000, 0, 0, 0), EPERM_, "NEWPID, garbage");
		cr_assert_eq(act(m, "clone", HI(0x7e020080) | 17, 0, 0, 0), SCP_ALLOW,
			     "the kernel reads the low 32 bits only");

		cr_assert_eq(act(m, "personality", 0, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "personality", 0xffffffff, 0, 0, 0), SCP_ALLOW, "query");
		cr_assert_eq(act(m, "personality", HI(3) | 0xffffffff, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "personality", 0x0040000, 0, 0, 0), EPERM_, "ADDR_NO_RANDOMIZE");
		cr_assert_eq(act(m, "personality", 0x0400000, 0, 0, 0), EPERM_, "READ_IMPLIES_EXEC");
		cr_assert_eq(act(m, "personality", 8, 0, 0, 0), EPERM_, "PER_LINUX32");

		cr_assert_eq(act(m, "ioctl", 0, 0x5412, 0, 0), EPERM_, "TIOCSTI");
		cr_assert_eq(act(m, "ioctl", 0, HI(0x123) | 0x5412, 0, 0), EPERM_,
			     "(0x123 << 32) | TIOCSTI");
		cr_assert_eq(act(m, "ioctl", 0, 0x541c, 0, 0), EPERM_, "TIOCLINUX");
		cr_assert_eq(act(m, "ioctl", 0, 0x5401, 0, 0), SCP_ALLOW, "TCGETS");
		cr_assert_eq(act(m, "ioctl", 0, 0x80045412, 0, 0), SCP_ALLOW);

		cr_assert_eq(act(m, "memfd_create", 0, 0, 0, 0), EPERM_);
		cr_assert_eq(act(m, "memfd_create", 0, 1 /* MFD_CLOEXEC */, 0, 0), EPERM_);
		cr_assert_eq(act(m, "memfd_create", 0, 0x10 /* MFD_EXEC */, 0, 0), EPERM_);
		cr_assert_eq(act(m, "memfd_create", 0, 0x8, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "memfd_create", 0, HI(1) | 0x9, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "memfd_create", 0, HI(8), 0, 0), EPERM_,
			     "the flag in the upper half is no flag");

		cr_assert_eq(act(m, "execveat", 3, 0, 0, 0x1000), EPERM_, "AT_EMPTY_PATH");
		cr_assert_eq(act(m, "execveat", 3, 0, 0, 0x1100), EPERM_);
		cr_assert_eq(act(m, "execveat", 3, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "execveat", 3, 0, 0, 0x100 /* NOFOLLOW */), SCP_ALLOW);
		cr_assert_eq(act(m, "execveat", 3, 0, 0, HI(0x1000)), SCP_ALLOW);
		scp_free(m);
	}
	ir_policy_free(p);
}

/* ----------------------------------------------------------- user rules */

Test(seccomp_policy, user_deny_and_allow)
{
	struct ir_policy *p = policy(IR_NET_ALLOW_ALL, 0);

	add_rule(p, "getpid", IR_SECCOMP_DENY, 13);
	add_rule(p, "open", IR_SECCOMP_DENY, 0);
	add_rule(p, "umount2", IR_SECCOMP_ALLOW, 0);
	add_rule(p, "personality", IR_SECCOMP_ALLOW, 0);
	add_rule(p, "socket", IR_SECCOMP_DENY, 97);
	add_rule(p, "clone3", IR_SECCOMP_DENY, 1);
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct scp_model *m = model(p, (enum scp_arch)a);
		const struct scp_rule *r;

		cr_assert_eq(act(m, "getpid", 0, 0, 0, 0), SCP_ERRNO(13));
		r = scp_find(m, nr_of(m->arch, "getpid"));
		cr_assert_not_null(r);
		cr_assert_not_null(r->origin);
		cr_assert_eq(r->origin->line, 1);
		cr_assert_eq(act(m, "umount2", 0, 0, 0, 0), SCP_ALLOW);
		cr_assert_eq(act(m, "personality", 0x0040000, 0, 0, 0), SCP_ALLOW);
		/* A deny replaces the argument rule entirely. */
		cr_assert_eq(act(m, "socket", AF_INET_, STREAM, 0, 0), SCP_ERRNO(97));
		cr_assert_eq(act(m, "clone3", 0, 0, 0, 0), EPERM_);
		cr_assert_eq(act(m, "ptrace", 0, 0, 0, 0), EPERM_);
		if (a == SCP_X86_64)
			cr_assert_eq(act(m, "open", 0, 0, 0, 0), EPERM_, "errno 0 means EPERM");
		scp_free(m);
	}
	ir_policy_free(p);
}

Test(seccomp_policy, user_rule_errors)
{
	const char *never[] = { "ptrace", "io_uring_enter", "bpf", "finit_module", "kexec_load" };

	for (size_t i = 0; i < N(never); i++) {
		struct ir_policy *p = policy(IR_NET_DENY, 0);
		struct scp_model *m = (struct scp_model *)1;

		add_rule(p, never[i], IR_SECCOMP_ALLOW, 0);
		cr_assert_eq(scp_build(p, SCP_X86_64, &m), -EPERM, "%s", never[i]);
		cr_assert_null(m);
		ir_policy_free(p);
	}
	{
		struct ir_policy *p = policy(IR_NET_DENY, 0);
		struct scp_model *m;

		add_rule(p, "no_such_call", IR_SECCOMP_DENY, 1);
		cr_assert_eq(scp_build(p, SCP_AARCH64, &m), -ENOENT);
		ir_policy_free(p);
	}
	{
		struct ir_policy *p = policy(IR_NET_DENY, 0);
		struct scp_model *m;

		add_rule(p, "getpid", IR_SECCOMP_DENY, 4096);
		cr_assert_eq(scp_build(p, SCP_X86_64, &m), -EINVAL);
		ir_policy_free(p);
	}
	{
		/* A name only one arch has is fine: skipped where absent. */
		struct ir_policy *p = policy(IR_NET_DENY, 0);
		struct scp_model *m;

		add_rule(p, "fork", IR_SECCOMP_DENY, 1);
		cr_assert_eq(scp_build(p, SCP_AARCH64, &m), 0);
		scp_free(m);
		ir_policy_free(p);
	}
	{
		struct scp_model *m;

		cr_assert_eq(scp_build(NULL, SCP_X86_64, &m), -EINVAL);
	}
}

/* SPDX-License-Identifier: MIT
 * The seccomp policy model (see seccomp_policy.h): heel's fixed deny list,
 * the argument-filtered calls, and the policy's own `seccomp` statements,
 * resolved per architecture from the generated syscall tables. */
#include "seccomp_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc_abi.h"
#include "ir.h"

/* Linux ABI values, identical on x86_64 and aarch64. Spelled out here so
 * heelc builds the same filter on any host (macOS has another errno set)
 * and with headers older than the kernel it targets (Debian 12: 6.1). */
#define L_EPERM 1
#define L_EBADF 9
#define L_ENOSYS 38

#define L_AF_UNIX 1
#define L_AF_INET 2
#define L_AF_INET6 10
#define L_AF_NETLINK 16
#define L_SOCK_STREAM 1
#define L_SOCK_SEQPACKET 5
#define L_SOCK_NONBLOCK 0x800u
#define L_SOCK_CLOEXEC 0x80000u
#define L_IPPROTO_IP 0
#define L_IPPROTO_TCP 6
#define L_NETLINK_ROUTE 0

#define L_CLONE_NEWTIME 0x00000080u
#define L_CLONE_NEWNS 0x00020000u
#define L_CLONE_NEWCGROUP 0x02000000u
#define L_CLONE_NEWUTS 0x04000000u
#define L_CLONE_NEWIPC 0x08000000u
#define L_CLONE_NEWUSER 0x10000000u
#define L_CLONE_NEWPID 0x20000000u
#define L_CLONE_NEWNET 0x40000000u

#define L_TIOCSTI 0x5412u

/* ioprio_set(2): class in bits 13..15, level in bits 0..2; bits 3..12
 * are hints (Linux 6.5+) or, before, an invalid level the kernel refuses. */
#define L_IOPRIO_MASK 0xffffe007u /* class, level, every bit above the class */
#define L_IOPRIO_IDLE 0x6000u     /* IOPRIO_CLASS_IDLE << 13 */
#define L_IOPRIO_BE_LOWEST 0x4007u      /* IOPRIO_CLASS_BE << 13 | 7 */
#define L_TIOCLINUX 0x541cu
#define L_MFD_NOEXEC_SEAL 0x0008u  /* Linux 6.3 */
#define L_AT_EMPTY_PATH 0x1000u
#define L_PER_LINUX 0x0u
#define L_PER_QUERY 0xffffffffu

#define X32_SYSCALL_BIT 0x40000000u
#define NO_SYSCALL 0xffffffffu
#define MAX_ERRNO 4095u

/* ---------------------------------------------------------------- tables */

const char *
scp_arch_name(enum scp_arch arch)
{
	return arch == SCP_X86_64 ? "x86_64" : arch == SCP_AARCH64 ? "aarch64" : "?";
}

uint32_t
scp_audit_arch(enum scp_arch arch)
{
	return arch == SCP_X86_64 ? scp_table_x86_64_audit_arch
				  : scp_table_aarch64_audit_arch;
}

const struct scp_syscall *
scp_table(enum scp_arch arch, size_t *len)
{
	if (arch == SCP_X86_64) {
		*len = scp_table_x86_64_len;
		return scp_table_x86_64;
	}
	*len = scp_table_aarch64_len;
	return scp_table_aarch64;
}

int
scp_lookup(enum scp_arch arch, const char *name, uint32_t *nr)
{
	size_t len;
	const struct scp_syscall *t = scp_table(arch, &len);

	if (name == NULL)
		return -ENOENT;
	for (size_t i = 0; i < len; i++) {
		if (strcmp(t[i].name, name) == 0) {
			*nr = t[i].nr;
			return 0;
		}
	}
	return -ENOENT;
}

const char *
scp_name(enum scp_arch arch, uint32_t nr)
{
	size_t len, lo = 0, hi;
	const struct scp_syscall *t = scp_table(arch, &len);

	hi = len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].nr == nr)
			return t[mid].name;
		if (t[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint32_t
scp_max_nr(enum scp_arch arch)
{
	size_t len;
	const struct scp_syscall *t = scp_table(arch, &len);

	return len ? t[len - 1].nr : 0;
}

/* What no `seccomp allow` may remove: each is an escape by itself. */
static const char *const never_allowable[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"ptrace", "process_vm_readv", "process_vm_writev",
	"bpf", "perf_event_open",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
};

bool
scp_never_allowable(const char *name)
{
	for (size_t i = 0; i < sizeof(never_allowable) / sizeof(never_allowable[0]); i++)
		if (strcmp(never_allowable[i], name) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------- heel's own rules */

struct fixed_deny {
	const char *name;
	int err;
	const char *why;
};

/* heel's default deny list: each call reaches outside the sandbox or
 * changes the kernel for everyone (the reason is beside each entry).
 * `seccomp allow` may remove those not in never_allowable. */
static const struct fixed_deny fixed_denies[] = {
	{ "ptrace", L_EPERM, "reads and writes other processes" },
	{ "process_vm_readv", L_EPERM, "reads other processes' memory" },
	{ "process_vm_writev", L_EPERM, "writes other processes' memory" },
	/* io_uring runs operations (IORING_OP_SOCKET, openat, ...) that
	 * seccomp never sees, and rings can be inherited. */
	{ "io_uring_setup", L_EPERM, "io_uring bypasses seccomp" },
	{ "io_uring_enter", L_EPERM, "io_uring bypasses seccomp" },
	{ "io_uring_register", L_EPERM, "io_uring bypasses seccomp" },
	{ "bpf", L_EPERM, "kernel attack surface" },
	{ "perf_event_open", L_EPERM, "kernel attack surface, side channels" },
	{ "userfaultfd", L_EPERM, "stalls the kernel mid-copy (exploit primitive)" },
	{ "keyctl", L_EPERM, "kernel keyrings hold credentials" },
	{ "add_key", L_EPERM, "kernel keyrings hold credentials" },
	{ "request_key", L_EPERM, "kernel keyrings hold credentials" },
	{ "mount", L_EPERM, "mounts rearrange what Landlock sees" },
	{ "fsopen", L_EPERM, "new mount API" },
	{ "fsconfig", L_EPERM, "new mount API" },
	{ "fsmount", L_EPERM, "new mount API" },
	{ "fspick", L_EPERM, "new mount API" },
	{ "move_mount", L_EPERM, "new mount API" },
	{ "open_tree", L_EPERM, "new mount API" },
	{ "open_tree_attr", L_EPERM, "new mount API" },
	{ "mount_setattr", L_EPERM, "new mount API" },
	{ "umount2", L_EPERM, "unmounting reveals what a mount hides" },
	{ "pivot_root", L_EPERM, "changes the root" },
	{ "chroot", L_EPERM, "changes the root" },
	{ "unshare", L_EPERM, "new namespaces" },
	{ "setns", L_EPERM, "enters other namespaces" },
	/* glibc falls back to clone() only on ENOSYS; EPERM breaks thread
	 * creation. clone3's flags sit behind a pointer seccomp cannot read,
	 * so the namespace check below needs clone(). */
	{ "clone3", L_ENOSYS, "flags behind a pointer: forces clone()" },
	{ "kexec_load", L_EPERM, "replaces the kernel" },
	{ "kexec_file_load", L_EPERM, "replaces the kernel" },
	{ "init_module", L_EPERM, "loads kernel code" },
	{ "finit_module", L_EPERM, "loads kernel code" },
	{ "delete_module", L_EPERM, "unloads kernel code" },
	{ "reboot", L_EPERM, "host control" },
	{ "swapon", L_EPERM, "host control" },
	{ "swapoff", L_EPERM, "host control" },
	{ "acct", L_EPERM, "host control" },
	{ "quotactl", L_EPERM, "host control" },
	{ "quotactl_fd", L_EPERM, "host control" },
	{ "settimeofday", L_EPERM, "sets the host clock" },
	{ "clock_settime", L_EPERM, "sets the host clock" },
	{ "adjtimex", L_EPERM, "sets the host clock" },
	{ "clock_adjtime", L_EPERM, "sets the host clock" },
};

static struct scp_cond
cond32(uint8_t arg, uint32_t mask, bool negate, uint8_t nvalues,
       const uint32_t *values)
{
	struct scp_cond c = { .arg = arg, .width = 32, .negate = negate,
			      .nvalues = nvalues, .mask = mask };

	for (uint8_t i = 0; i < nvalues && i < SCP_MAX_VALUES; i++)
		c.values[i] = values[i];
	return c;
}

#define COND32(arg, mask, negate, ...)                                            \
	cond32((arg), (mask), (negate),                                           \
	       (uint8_t)(sizeof((uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), \
	       (uint32_t[]){ __VA_ARGS__ })

/* ----------------------------------------------------------- the model */

static struct scp_rule *
rule_slot(struct scp_model *m, size_t cap, uint32_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < m->nrules; i++) {
		if (m->rules[i].nr == nr)
			return &m->rules[i];
		if (m->rules[i].nr > nr)
			break;
	}
	if (m->nrules == cap)
		return NULL;
	memmove(&m->rules[i + 1], &m->rules[i], (m->nrules - i) * sizeof(m->rules[0]));
	m->nrules++;
	memset(&m->rules[i], 0, sizeof(m->rules[i]));
	m->rules[i].nr = nr;
	m->rules[i].name = name;
	return &m->rules[i];
}

static void
rule_remove(struct scp_model *m, uint32_t nr)
{
	for (size_t i = 0; i < m->nrules; i++) {
		if (m->rules[i].nr == nr) {
			memmove(&m->rules[i], &m->rules[i + 1],
				(m->nrules - i - 1) * sizeof(m->rules[0]));
			m->nrules--;
			return;
		}
	}
}

/* A rule by name; NULL when the arch lacks the call (e.g. no `open` on
 * aarch64): the entry is then simply absent from that arch's filter. */
static struct scp_rule *
named_rule(struct scp_model *m, size_t cap, const char *name)
{
	uint32_t nr;

	if (scp_lookup(m->arch, name, &nr) < 0)
		return NULL;
	return rule_slot(m, cap, nr, scp_name(m->arch, nr));
}

static void
add_clause(struct scp_rule *r, uint32_t action, uint8_t nconds,
	   const struct scp_cond *conds)
{
	struct scp_clause *c;

	if (r->nclauses >= SCP_MAX_CLAUSES)
		return;
	c = &r->clauses[r->nclauses++];
	c->action = action;
	c->nconds = nconds;
	for (uint8_t i = 0; i < nconds && i < SCP_MAX_CONDS; i++)
		c->conds[i] = conds[i];
}

/* socket(int domain, int type, int protocol): every argument an int, so
 * only the low words count (the (1 << 32) | AF_UNIX trick must still be
 * AF_UNIX). The type's flag bits are masked off before comparing, as
 * pledge does; garbage flags then fail the compare and are refused. */
static void
rules_socket(struct scp_model *m, size_t cap, bool net, bool unix_ok)
{
	const uint32_t type_mask = ~(L_SOCK_NONBLOCK | L_SOCK_CLOEXEC);
	struct scp_rule *r = named_rule(m, cap, "socket");
	struct scp_cond c[3];

	if (r == NULL)
		return;
	r->action = SCP_ERRNO(L_EPERM);
	r->why = net ? (unix_ok ? "only TCP (proxy, own loopback), netlink route, unix sockets"
				: "only TCP (proxy, own loopback) and netlink route")
		     : (unix_ok ? "only TCP on the own loopback and unix sockets (network deny)"
				: "only TCP on the own loopback (network deny)");
	/* TCP in every mode: in the sandbox's network namespace, loopback
	 * only, the sandbox serves and reaches itself (test servers, dev
	 * servers, kernels); through heel-proxy, Landlock's TCP rules and
	 * the proxy govern the rest. The program is the same with or
	 * without that namespace: heel-exec stacks a refusal of inet
	 * sockets on a `network deny` launch that has none, where loopback
	 * would be the host's. Protocol 0 or IPPROTO_TCP: MPTCP (262) and
	 * SCTP stream sockets (132) slip past Landlock's TCP rules. No UDP
	 * or raw: DNS goes through the proxy, and without the namespace
	 * only seccomp would hold UDP (Landlock governs it from ABI 10). */
	c[0] = COND32(0, 0xffffffffu, false, L_AF_INET, L_AF_INET6);
	c[1] = COND32(1, type_mask, false, L_SOCK_STREAM);
	c[2] = COND32(2, 0xffffffffu, false, L_IPPROTO_IP, L_IPPROTO_TCP);
	add_clause(r, SCP_ALLOW, 3, c);
	if (unix_ok) {
		c[0] = COND32(0, 0xffffffffu, false, L_AF_UNIX);
		add_clause(r, SCP_ALLOW, 1, c);
	}
	if (net) {
		/* NETLINK_ROUTE: getifaddrs(), if_nameindex(), glibc's
		 * AI_ADDRCONFIG probe, Node's os.networkInterfaces(). Read-only
		 * without CAP_NET_ADMIN (unshare is denied, so none is gained);
		 * inside heel's network namespace it shows only loopback. Other
		 * netlink families (sock_diag lists the host's sockets, audit,
		 * uevent, generic) stay denied. */
		c[0] = COND32(0, 0xffffffffu, false, L_AF_NETLINK);
		c[1] = COND32(2, 0xffffffffu, false, L_NETLINK_ROUTE);
		add_clause(r, SCP_ALLOW, 2, c);
	}
}

/* socketpair(int domain, int type, int protocol, int sv[2]): a connected
 * unix pair cannot reach anything outside, but a datagram one can be
 * disconnected (connect(AF_UNSPEC)) and then sendto() any pathname or
 * abstract socket: only STREAM and SEQPACKET pairs, unless the policy
 * allows unix sockets anyway. AF_UNIX SOCK_RAW is a datagram socket.
 * Other families (AF_TIPC has socketpair) are refused. */
static void
rules_socketpair(struct scp_model *m, size_t cap, bool unix_ok)
{
	const uint32_t type_mask = ~(L_SOCK_NONBLOCK | L_SOCK_CLOEXEC);
	struct scp_rule *r = named_rule(m, cap, "socketpair");
	struct scp_cond c[2];

	if (r == NULL)
		return;
	r->action = SCP_ERRNO(L_EPERM);
	c[0] = COND32(0, 0xffffffffu, false, L_AF_UNIX);
	if (unix_ok) {
		r->why = "unix pairs only";
		add_clause(r, SCP_ALLOW, 1, c);
		return;
	}
	r->why = "unix stream/seqpacket pairs only (datagram pairs can be re-targeted)";
	c[1] = COND32(1, type_mask, false, L_SOCK_STREAM, L_SOCK_SEQPACKET);
	add_clause(r, SCP_ALLOW, 2, c);
}

static void
rules_args(struct scp_model *m, size_t cap)
{
	struct scp_rule *r;
	struct scp_cond c;

	/* clone(unsigned long flags, ...): the kernel reads only
	 * lower_32_bits(flags), so a 32-bit test is exact. CLONE_NEWTIME
	 * (0x80) lies inside CSIGNAL for clone(); an exit signal of 128 or
	 * more is no valid signal, so listing it costs nothing. */
	r = named_rule(m, cap, "clone");
	if (r) {
		r->action = SCP_ERRNO(L_EPERM);
		r->why = "namespace flags";
		c = COND32(0, L_CLONE_NEWNS | L_CLONE_NEWUTS | L_CLONE_NEWIPC |
			   L_CLONE_NEWUSER | L_CLONE_NEWPID | L_CLONE_NEWNET |
			   L_CLONE_NEWCGROUP | L_CLONE_NEWTIME, false, 0);
		add_clause(r, SCP_ALLOW, 1, &c);
	}

	/* personality(unsigned int persona): PER_LINUX and the query
	 * 0xffffffff only; ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC weaken
	 * the process, PER_LINUX32 changes the ABI. */
	r = named_rule(m, cap, "personality");
	if (r) {
		r->action = SCP_ERRNO(L_EPERM);
		r->why = "only the default persona and the query";
		c = COND32(0, 0xffffffffu, false, L_PER_LINUX, L_PER_QUERY);
		add_clause(r, SCP_ALLOW, 1, &c);
	}

	/* ioctl(unsigned int fd, unsigned int cmd, unsigned long arg): the
	 * kernel truncates cmd to 32 bits, so (0x123 << 32) | TIOCSTI is
	 * TIOCSTI (CVE-2019-10063): compare the low word only. TIOCSTI types
	 * into the controlling terminal, TIOCLINUX can read and paste the
	 * console. */
	r = named_rule(m, cap, "ioctl");
	if (r) {
		r->action = SCP_ALLOW;
		r->why = "TIOCSTI and TIOCLINUX";
		c = COND32(1, 0xffffffffu, false, L_TIOCSTI, L_TIOCLINUX);
		add_clause(r, SCP_ERRNO(L_EPERM), 1, &c);
	}

	/* memfd_create(const char *name, unsigned int flags): an executable
	 * memfd + fexecve runs a binary no Landlock rule ever saw (measured).
	 * Only sealed-noexec memfds (Linux 6.3+; older kernels answer EINVAL
	 * for the flag, so there memfd_create is simply unavailable). */
	r = named_rule(m, cap, "memfd_create");
	if (r) {
		r->action = SCP_ERRNO(L_EPERM);
		r->why = "only with MFD_NOEXEC_SEAL (memfd + fexecve)";
		c = COND32(1, L_MFD_NOEXEC_SEAL, true, 0);
		add_clause(r, SCP_ALLOW, 1, &c);
	}

	/* execveat(int dirfd, const char *path, argv, envp, int flags):
	 * AT_EMPTY_PATH executes an open fd (glibc's fexecve), the other half
	 * of the memfd escape; EPERM (not ENOSYS) so glibc does not fall back
	 * to /proc/self/fd. Path-based execveat stays allowed. */
	r = named_rule(m, cap, "execveat");
	if (r) {
		r->action = SCP_ALLOW;
		r->why = "no AT_EMPTY_PATH (fd execution)";
		c = COND32(4, L_AT_EMPTY_PATH, true, 0);
		add_clause(r, SCP_ERRNO(L_EPERM), 1, &c);
	}
}

static int
apply_user_rules(struct scp_model *m, size_t cap, const struct ir_policy *policy)
{
	for (size_t i = 0; i < policy->nseccomp; i++) {
		const struct ir_seccomp_rule *u = &policy->seccomp[i];
		uint32_t nr, other;
		struct scp_rule *r;

		if (u->syscall == NULL)
			return -EINVAL;
		if (scp_lookup(SCP_X86_64, u->syscall, &other) < 0 &&
		    scp_lookup(SCP_AARCH64, u->syscall, &other) < 0)
			return -ENOENT;
		if (u->action == IR_SECCOMP_ALLOW) {
			if (scp_never_allowable(u->syscall))
				return -EPERM;
			if (scp_lookup(m->arch, u->syscall, &nr) == 0)
				rule_remove(m, nr);
			continue;
		}
		if (u->errno_value > MAX_ERRNO)
			return -EINVAL;
		r = named_rule(m, cap, u->syscall);
		if (r == NULL)
			continue;
		r->nclauses = 0;
		memset(r->clauses, 0, sizeof(r->clauses));
		r->action = SCP_ERRNO(u->errno_value ? u->errno_value : L_EPERM);
		r->why = "policy: seccomp deny";
		r->origin = &u->origin;
	}
	return 0;
}

bool
scp_has_ipc(const struct ir_policy *policy)
{
	for (size_t i = 0; i < policy->nipc; i++)
		if (policy->ipc[i].platforms & IR_PLAT_BIT(IR_LINUX))
			return true;
	return false;
}

/* A host command call is ioctl(-1, HEEL_IPC_IOCTL) (runtime/ipc_abi.h):
 * no descriptor is -1, so the kernel would answer EBADF. With a Linux
 * `ipc` command the filter hands the call to the broker instead
 * (SECCOMP_RET_USER_NOTIF); without one it answers EBADF itself, so a
 * nested sandbox without `ipc` never reaches the broker of an outer one:
 * across stacked filters ERRNO outranks USER_NOTIF. Both words are
 * `unsigned int` parameters: the low words only, as for TIOCSTI. The
 * clause comes first and survives `seccomp allow "ioctl"` (heel's own
 * transport, not a restriction of ioctl); a `seccomp deny "ioctl"`
 * beside ipc is refused, since no call could reach the broker. */
static int
rule_ipc(struct scp_model *m, size_t cap, const struct ir_policy *policy)
{
	const bool ipc = scp_has_ipc(policy);
	struct scp_rule *r;
	uint32_t nr;

	if (scp_lookup(m->arch, "ioctl", &nr) < 0)
		return 0;
	r = NULL;
	for (size_t i = 0; i < m->nrules; i++)
		if (m->rules[i].nr == nr)
			r = &m->rules[i];
	if (r && r->nclauses == 0 && r->action != SCP_ALLOW) {
		/* `seccomp deny "ioctl"`: the whole call is refused. */
		return ipc ? -EINVAL : 0;
	}
	if (!r) {
		r = named_rule(m, cap, "ioctl");
		if (!r)
			return -ENOMEM;
		r->action = SCP_ALLOW;
		r->why = "heel's host command call only (policy: seccomp allow)";
	}
	if (r->nclauses == SCP_MAX_CLAUSES)
		return -ENOMEM;
	memmove(&r->clauses[1], &r->clauses[0], r->nclauses * sizeof(r->clauses[0]));
	r->nclauses++;
	memset(&r->clauses[0], 0, sizeof(r->clauses[0]));
	r->clauses[0].nconds = 2;
	r->clauses[0].conds[0] = COND32(0, 0xffffffffu, false, 0xffffffffu);
	r->clauses[0].conds[1] = COND32(1, 0xffffffffu, false, HEEL_IPC_IOCTL);
	r->clauses[0].action = ipc ? SECCOMP_RET_USER_NOTIF : SCP_ERRNO(L_EBADF);
	r->clauses[0].why = ipc ? "host command calls (ipc)"
				: "the host command call of an outer sandbox";
	return 0;
}

/* ioprio_set(int which, int who, int ioprio): the launcher lowers the
 * I/O priority before the command runs (io-priority), and lowering needs
 * no privilege, but neither does raising it back up to best-effort 0
 * within the caller's own rights (`ionice -c2 -n0 -p $$` from inside).
 * Only values that cannot raise it pass: the idle class (its level and
 * hint bits are ignored; every bit above the class must be clear), and
 * best-effort 7, the lowest best-effort level, unless the policy asked
 * for idle. Class none would take a level from the nice value (4 at nice
 * 0), above 7. `ioprio` is an int: the low word only, as for TIOCSTI.
 * One mask for every test of the argument, the hint bits left out, so
 * the idle class is its eight levels listed. */
static void
rules_ioprio(struct scp_model *m, size_t cap, bool idle_only)
{
	struct scp_rule *r = named_rule(m, cap, "ioprio_set");
	struct scp_cond c;

	if (r == NULL)
		return;
	r->action = SCP_ERRNO(L_EPERM);
	r->why = idle_only ? "only the idle class (the priority may only go down)"
			   : "only the idle class or best-effort 7 (the priority may only go down)";
	c = COND32(2, L_IOPRIO_MASK, false, L_IOPRIO_IDLE, L_IOPRIO_IDLE | 1, L_IOPRIO_IDLE | 2,
		   L_IOPRIO_IDLE | 3);
	add_clause(r, SCP_ALLOW, 1, &c);
	c = COND32(2, L_IOPRIO_MASK, false, L_IOPRIO_IDLE | 4, L_IOPRIO_IDLE | 5, L_IOPRIO_IDLE | 6,
		   L_IOPRIO_IDLE | 7);
	add_clause(r, SCP_ALLOW, 1, &c);
	if (!idle_only) {
		c = COND32(2, L_IOPRIO_MASK, false, L_IOPRIO_BE_LOWEST);
		add_clause(r, SCP_ALLOW, 1, &c);
	}
}

/* File watches: Landlock does not govern inotify_add_watch(2) or
 * fanotify_mark(2) (no security hook of its own covers them), so a
 * watch on a directory the sandbox may not open still reports the names
 * of the files the host opens there, and when. fanotify is for system
 * tools: always refused. inotify is what build tools and editors use to
 * follow their own tree: refused under `strict`, where nothing of the
 * host may leak, and left to the other bases (heel(5) says so; `seccomp
 * deny "inotify_init1"` takes it away there too). EPERM makes tail -f and
 * most watchers fall back to polling. */
static void
rules_watch(struct scp_model *m, size_t cap, bool strict)
{
	static const char *const inotify[] = { "inotify_init", "inotify_init1" };
	struct scp_rule *r = named_rule(m, cap, "fanotify_init");

	if (r) {
		r->action = SCP_ERRNO(L_EPERM);
		r->why = "fanotify: file access events Landlock does not govern";
	}
	for (size_t i = 0; strict && i < sizeof(inotify) / sizeof(*inotify); i++) {
		r = named_rule(m, cap, inotify[i]);
		if (!r)
			continue;
		r->action = SCP_ERRNO(L_EPERM);
		r->why = "isolation strict: inotify reports activity in directories Landlock denies";
	}
}

int
scp_build(const struct ir_policy *policy, enum scp_arch arch,
	  struct scp_model **out)
{
	const struct ir_scalars *lx;
	struct scp_model *m;
	size_t cap, tlen;
	bool net, unix_ok;
	int ret;

	*out = NULL;
	if (policy == NULL || (arch != SCP_X86_64 && arch != SCP_AARCH64))
		return -EINVAL;
	lx = &policy->scalar[IR_LINUX];
	net = lx->network.value != IR_NET_DENY;
	unix_ok = lx->unix_sockets.set && lx->unix_sockets.value;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	scp_table(arch, &tlen);
	cap = tlen;
	m->rules = calloc(cap, sizeof(*m->rules));
	if (m->rules == NULL) {
		free(m);
		return -ENOMEM;
	}
	m->arch = arch;
	m->audit_arch = scp_audit_arch(arch);
	m->default_action = SCP_ALLOW;
	m->unknown_action = SCP_ERRNO(L_ENOSYS);
	m->badarch_action = SCP_KILL;

	for (size_t i = 0; i < sizeof(fixed_denies) / sizeof(fixed_denies[0]); i++) {
		struct scp_rule *r = named_rule(m, cap, fixed_denies[i].name);

		if (r == NULL)
			continue;
		r->action = SCP_ERRNO(fixed_denies[i].err);
		r->why = fixed_denies[i].why;
	}
	rules_args(m, cap);
	rules_socket(m, cap, net, unix_ok);
	rules_socketpair(m, cap, unix_ok);
	rules_ioprio(m, cap, lx->io_priority.value == IR_IO_BACKGROUND);
	rules_watch(m, cap, lx->isolation.value == IR_ISO_STRICT);

	ret = apply_user_rules(m, cap, policy);
	if (ret == 0)
		ret = rule_ipc(m, cap, policy);
	if (ret < 0) {
		scp_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

void
scp_free(struct scp_model *model)
{
	if (model == NULL)
		return;
	free(model->rules);
	free(model);
}

const struct scp_rule *
scp_find(const struct scp_model *model, uint32_t nr)
{
	size_t lo = 0, hi = model->nrules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (model->rules[mid].nr == nr)
			return &model->rules[mid];
		if (model->rules[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool
cond_holds(const struct scp_cond *cond, const struct bpf_sim_data *data)
{
	uint64_t v = data->args[cond->arg % 6], mask = cond->mask;
	bool in = false;

	if (cond->width == 32) {
		v &= 0xffffffffu;
		mask &= 0xffffffffu;
	}
	v &= mask;
	for (uint8_t i = 0; i < cond->nvalues && i < SCP_MAX_VALUES; i++)
		if (v == cond->values[i])
			in = true;
	return in != cond->negate;
}

uint32_t
scp_rule_eval(const struct scp_rule *rule, const struct bpf_sim_data *data)
{
	for (uint8_t i = 0; i < rule->nclauses; i++) {
		const struct scp_clause *c = &rule->clauses[i];
		bool all = true;

		for (uint8_t j = 0; j < c->nconds && all; j++)
			all = cond_holds(&c->conds[j], data);
		if (all)
			return c->action;
	}
	return rule->action;
}

uint32_t
scp_eval(const struct scp_model *model, const struct bpf_sim_data *data)
{
	const struct scp_rule *r;

	if (data->arch != model->audit_arch)
		return model->badarch_action;
	if (data->nr == NO_SYSCALL)
		return SCP_ALLOW;
	/* x32 calls enter with AUDIT_ARCH_X86_64 and nr | 0x40000000. */
	if (model->arch == SCP_X86_64 && data->nr >= X32_SYSCALL_BIT)
		return model->badarch_action;
	r = scp_find(model, data->nr);
	if (r != NULL)
		return scp_rule_eval(r, data);
	if (scp_name(model->arch, data->nr) != NULL)
		return model->default_action;
	return model->unknown_action;
}

/* SPDX-License-Identifier: MIT
 * The inet-socket refusal heel-exec stacks on a `network deny` launch
 * without a network namespace (runtime/seccomp_noinet.c): heel's verified
 * shape, socket(2)'s number as heelc's tables have it, and every answer
 * run in the simulator (and, on this machine's architecture, in the
 * kernel, stacked on nothing). */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_verify.h"
#include "seccomp_noinet.h"
#include "seccomp_policy.h"

static const struct {
	enum scp_arch arch;
	uint32_t audit;
} arches[] = {
	{ SCP_X86_64, BPF_SIM_AUDIT_ARCH_X86_64 },
	{ SCP_AARCH64, BPF_SIM_AUDIT_ARCH_AARCH64 },
};

static uint32_t
run(const struct bpf_sim_insn *prog, size_t len, uint32_t arch, uint32_t nr, uint64_t a0,
    uint64_t a1)
{
	struct bpf_sim_data d = { .nr = nr, .arch = arch, .args = { a0, a1 } };
	struct bpf_sim_result res;

	cr_assert_eq(bpf_sim_run(prog, len, &d, &res), 0);
	return res.action;
}

Test(seccomp_noinet, shape_and_answers)
{
	for (size_t a = 0; a < sizeof(arches) / sizeof(*arches); a++) {
		struct bpf_sim_insn prog[NOINET_MAX_INSNS];
		uint32_t arch = arches[a].audit, sock = 0, other = 0;
		char msg[BPF_VERIFY_MSG_MAX];
		size_t len = noinet_program(arch, prog);

		cr_assert_gt(len, 0);
		cr_assert_leq(len, NOINET_MAX_INSNS);
		cr_assert_eq(bpf_verify(prog, len, arch, msg, sizeof(msg)), 0, "%s", msg);
		cr_assert_eq(scp_lookup(arches[a].arch, "socket", &sock), 0);
		cr_assert_eq(scp_lookup(arches[a].arch, "getpid", &other), 0);
#define R(nr, a0, a1) run(prog, len, arch, (nr), (a0), (a1))
		cr_assert_eq(R(sock, AF_INET, SOCK_STREAM), SECCOMP_RET_ERRNO | EPERM);
		cr_assert_eq(R(sock, AF_INET6, SOCK_STREAM), SECCOMP_RET_ERRNO | EPERM);
		cr_assert_eq(R(sock, (1ull << 32) | AF_INET, SOCK_STREAM),
			     SECCOMP_RET_ERRNO | EPERM, "the domain is an int: its low word counts");
		cr_assert_eq(R(sock, AF_UNIX, SOCK_STREAM), SECCOMP_RET_ALLOW,
			     "unix sockets are the artifact's program's to decide");
		cr_assert_eq(R(sock, AF_NETLINK, SOCK_RAW), SECCOMP_RET_ALLOW);
		cr_assert_eq(R(other, AF_INET, 0), SECCOMP_RET_ALLOW);
		cr_assert_eq(R(0xffffffffu, 0, 0), SECCOMP_RET_ALLOW);
		cr_assert_eq(run(prog, len, BPF_SIM_AUDIT_ARCH_I386, sock, AF_INET, 0),
			     SECCOMP_RET_KILL_PROCESS);
		if (arch == BPF_SIM_AUDIT_ARCH_X86_64)
			cr_assert_eq(R(0x40000000u | sock, AF_INET, 0), SECCOMP_RET_KILL_PROCESS);
#undef R
	}
	cr_assert_eq(noinet_program(BPF_SIM_AUDIT_ARCH_I386, (struct bpf_sim_insn[NOINET_MAX_INSNS]){ 0 }), 0);
}

/* The same program in the kernel, in a child: the refusal is real. */
Test(seccomp_noinet, in_the_kernel)
{
#if defined(__x86_64__)
	const uint32_t arch = BPF_SIM_AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const uint32_t arch = BPF_SIM_AUDIT_ARCH_AARCH64;
#endif
	struct bpf_sim_insn prog[NOINET_MAX_INSNS];
	struct sock_fprog fp = { .len = (unsigned short)noinet_program(arch, prog),
				 .filter = (struct sock_filter *)prog };
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)
			_exit(1);
		errno = 0;
		if (socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM)
			_exit(2);
		if (socket(AF_INET6, SOCK_DGRAM, 0) != -1 || errno != EPERM)
			_exit(3);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
			_exit(4);
		close(fd);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child check %d failed",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

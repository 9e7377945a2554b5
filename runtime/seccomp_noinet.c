/* SPDX-License-Identifier: MIT
 * The inet-socket refusal heel-exec stacks without a network namespace;
 * see seccomp_noinet.h. */
#include "seccomp_noinet.h"

/* The kernel's ABI, fixed: socket(2)'s number on each architecture (the
 * unit test checks them against heelc's syscall tables), the families,
 * EPERM. */
#define NOINET_NR_SOCKET_X86_64 41u
#define NOINET_NR_SOCKET_AARCH64 198u
#define NOINET_AF_INET 2u
#define NOINET_AF_INET6 10u
#define NOINET_EPERM 1u
#define NOINET_X32_BIT 0x40000000u

static struct bpf_sim_insn
stmt(uint16_t code, uint32_t k)
{
	return (struct bpf_sim_insn){ .code = code, .k = k };
}

static struct bpf_sim_insn
jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	return (struct bpf_sim_insn){ .code = code, .jt = jt, .jf = jf, .k = k };
}

size_t
noinet_program(uint32_t audit_arch, struct bpf_sim_insn *out)
{
	const uint16_t ld = BPF_LD | BPF_W | BPF_ABS, jeq = BPF_JMP | BPF_JEQ | BPF_K;
	uint32_t nr;
	size_t n = 0;

	if (audit_arch == BPF_SIM_AUDIT_ARCH_X86_64)
		nr = NOINET_NR_SOCKET_X86_64;
	else if (audit_arch == BPF_SIM_AUDIT_ARCH_AARCH64)
		nr = NOINET_NR_SOCKET_AARCH64;
	else
		return 0;
	out[n++] = stmt(ld, BPF_SIM_DATA_ARCH);
	out[n++] = jump(jeq, audit_arch, 1, 0);
	out[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	out[n++] = stmt(ld, BPF_SIM_DATA_NR);
	/* x32 numbers die in the artifact's program already; the guard is
	 * repeated so this program has heel's verified shape too. */
	if (audit_arch == BPF_SIM_AUDIT_ARCH_X86_64) {
		out[n++] = jump(BPF_JMP | BPF_JGE | BPF_K, NOINET_X32_BIT, 0, 2);
		out[n++] = jump(jeq, 0xffffffffu, 6, 0);   /* -1: allow */
		out[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	}
	out[n++] = jump(jeq, nr, 0, 4);                   /* else allow */
	/* The domain is an int: its low word is what the kernel reads. */
	out[n++] = stmt(ld, BPF_SIM_DATA_ARG_LO(0));
	out[n++] = jump(jeq, NOINET_AF_INET, 1, 0);
	out[n++] = jump(jeq, NOINET_AF_INET6, 0, 1);
	out[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | NOINET_EPERM);
	out[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return n;
}

/* SPDX-License-Identifier: MIT
 * The verifier heel-exec runs on every seccomp program from an artifact:
 * each crafted bad program is refused with its own message (the kernel
 * would only say EINVAL), and every program heelc generates, for every
 * test policy and both architectures, is accepted. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_verify.h"
#include "ir.h"
#include "seccomp_bpf.h"
#include "seccomp_policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LD_ABS(k) BPF_SIM_STMT(BPF_LD | BPF_W | BPF_ABS, k)
#define RET(k) BPF_SIM_STMT(BPF_RET | BPF_K, k)
#define JEQ(k, t, f) BPF_SIM_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, t, f)
#define JGE(k, t, f) BPF_SIM_JUMP(BPF_JMP | BPF_JGE | BPF_K, k, t, f)
#define X86 BPF_SIM_AUDIT_ARCH_X86_64
#define A64 BPF_SIM_AUDIT_ARCH_AARCH64

static void
expect_refused(const struct bpf_sim_insn *p, size_t n, uint32_t arch, const char *want)
{
	char msg[BPF_VERIFY_MSG_MAX];

	cr_assert_eq(bpf_verify(p, n, arch, msg, sizeof(msg)), -EINVAL, "accepted; wanted '%s'", want);
	cr_assert(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
	cr_assert(strchr(msg, '\n') == NULL);
}

static void
expect_kernel_refused(const struct bpf_sim_insn *p, size_t n, const char *want)
{
	char msg[BPF_VERIFY_MSG_MAX];

	cr_assert_eq(bpf_verify_kernel(p, n, msg, sizeof(msg)), -EINVAL, "accepted; wanted '%s'", want);
	cr_assert(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
}

/* A minimal program of heel's shape: arch check, nr, x32 guard, allow. */
#define KILL RET(SECCOMP_RET_KILL_PROCESS)
#define ALLOW RET(SECCOMP_RET_ALLOW)
#define X86_PROLOGUE                                                        \
	LD_ABS(4), JEQ(X86, 1, 0), KILL, LD_ABS(0), JGE(0x40000000u, 0, 3), \
		JEQ(0xffffffffu, 1, 0), KILL, ALLOW

Test(bpf_verify, accepts_minimal_shapes)
{
	struct bpf_sim_insn x86[] = { X86_PROLOGUE, ALLOW };
	struct bpf_sim_insn a64[] = { LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(0), ALLOW };
	char msg[BPF_VERIFY_MSG_MAX];

	cr_assert_eq(bpf_verify(x86, N(x86), X86, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(bpf_verify(a64, N(a64), A64, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(bpf_verify_kernel(a64, N(a64), msg, sizeof(msg)), 0, "%s", msg);
}

Test(bpf_verify, kernel_rules_each_with_its_message)
{
	struct bpf_sim_insn big[BPF_SIM_MAXINSNS + 1];

	expect_kernel_refused(NULL, 0, "empty");
	for (size_t i = 0; i < N(big); i++)
		big[i] = RET(0);
	expect_kernel_refused(big, N(big), "more than the kernel's limit of 4096");
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_LD | BPF_H | BPF_ABS, 0), RET(0) };
		expect_kernel_refused(p, N(p), "instruction 0: opcode 0x0028 is not allowed");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), RET(0) };
		expect_kernel_refused(p, N(p), "opcode 0x0094 is not allowed");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_LDX | BPF_W | BPF_ABS, 0), RET(0) };
		expect_kernel_refused(p, N(p), "opcode 0x0021 is not allowed");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_RET | BPF_X, 0) };
		expect_kernel_refused(p, N(p), "opcode 0x000e is not allowed");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(6), RET(0) };
		expect_kernel_refused(p, N(p), "load offset 6 is not 4-byte aligned");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(64), RET(0) };
		expect_kernel_refused(p, N(p), "load offset 64 is outside seccomp_data");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET(0) };
		expect_kernel_refused(p, N(p), "division by constant zero");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), RET(0) };
		expect_kernel_refused(p, N(p), "shift by 32");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ST, 16), RET(0) };
		expect_kernel_refused(p, N(p), "scratch slot M[16] out of range");
	}
	{
		struct bpf_sim_insn p[] = { JEQ(0, 0, 1), RET(0) };
		expect_kernel_refused(p, N(p), "instruction 0: jump to 2 goes past the end");
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_JMP | BPF_JA, 0xffffffffu), RET(0) };
		expect_kernel_refused(p, N(p), "jump by 4294967295 goes past the end");
	}
	{
		struct bpf_sim_insn p[] = { RET(0), LD_ABS(0) };
		expect_kernel_refused(p, N(p), "the last instruction (1) is not a RET");
	}
	{
		/* M[0] written on one branch only, then read. */
		struct bpf_sim_insn p[] = {
			LD_ABS(0), JEQ(1, 0, 1), BPF_SIM_STMT(BPF_ST, 0),
			BPF_SIM_STMT(BPF_LD | BPF_MEM, 0), RET(0),
		};
		expect_kernel_refused(p, N(p), "instruction 3: reads M[0] before it is written");
	}
	{
		/* Written before the branch: fine. */
		struct bpf_sim_insn p[] = {
			LD_ABS(0), BPF_SIM_STMT(BPF_ST, 0), JEQ(1, 0, 1), BPF_SIM_STMT(BPF_ST, 1),
			BPF_SIM_STMT(BPF_LD | BPF_MEM, 0), RET(0),
		};
		char msg[BPF_VERIFY_MSG_MAX];

		cr_assert_eq(bpf_verify_kernel(p, N(p), msg, sizeof(msg)), 0, "%s", msg);
	}
}

Test(bpf_verify, heel_shape_rules)
{
	{
		struct bpf_sim_insn p[] = { X86_PROLOGUE, ALLOW };
		expect_refused(p, N(p), 0x40000003u, "unsupported architecture 0x40000003");
		expect_refused(p, N(p), A64, "instructions 1-2: not the architecture check");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(0), RET(0) };
		expect_refused(p, N(p), A64, "too short");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(0), JEQ(A64, 1, 0), KILL, LD_ABS(0), ALLOW };
		expect_refused(p, N(p), A64, "does not start by loading seccomp_data.arch");
	}
	{
		/* Mismatch action ALLOW instead of KILL. */
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(A64, 1, 0), ALLOW, LD_ABS(0), ALLOW };
		expect_refused(p, N(p), A64, "instructions 1-2: not the architecture check");
	}
	{
		/* Mismatch goes on, match gets killed. */
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(A64, 0, 1), KILL, LD_ABS(0), ALLOW };
		expect_refused(p, N(p), A64, "instructions 1-2: not the architecture check");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(16), ALLOW };
		expect_refused(p, N(p), A64, "instruction 3: the syscall number is not loaded");
	}
	{
		/* No x32 guard at all. */
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(X86, 1, 0), KILL, LD_ABS(0),
					    JGE(400, 1, 0), ALLOW, KILL, ALLOW, ALLOW };
		expect_refused(p, N(p), X86, "instruction 4: the x32 guard");
	}
	{
		/* Guard whose x32 branch allows. */
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(X86, 1, 0), KILL, LD_ABS(0),
					    JGE(0x40000000u, 0, 3), JEQ(0xffffffffu, 0, 1),
					    KILL, ALLOW, ALLOW };
		expect_refused(p, N(p), X86, "instructions 5-6: x32 syscall numbers do not end in kill-process");
	}
	{
		struct bpf_sim_insn p[] = { LD_ABS(4), JEQ(X86, 1, 0), KILL, LD_ABS(0),
					    JGE(0x40000000u, 0, 3), JEQ(0xffffffffu, 1, 0),
					    ALLOW, ALLOW, ALLOW };
		expect_refused(p, N(p), X86, "instructions 5-6");
	}
}

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

Test(bpf_verify, accepts_every_generated_program)
{
	const int nets[] = { IR_NET_DENY, IR_NET_ALLOW_ALL, IR_NET_ALLOW_LIST };

	for (size_t n = 0; n < N(nets); n++) {
		for (int u = 0; u < 2; u++) {
			struct ir_policy *p = policy(nets[n], u);

			for (int a = 0; a < SCP_ARCH_COUNT; a++) {
				struct bpf_prog prog;
				char msg[BPF_VERIFY_MSG_MAX];

				cr_assert_eq(bpf_build(p, (enum scp_arch)a, &prog), 0);
				cr_assert_eq(bpf_verify(prog.insns, prog.len, scp_audit_arch((enum scp_arch)a),
							msg, sizeof(msg)), 0, "%s", msg);
				/* The other arch's check refuses it. */
				cr_assert_eq(bpf_verify(prog.insns, prog.len,
							scp_audit_arch((enum scp_arch)(1 - a)), msg, sizeof(msg)),
					     -EINVAL);
				bpf_prog_free(&prog);
			}
			ir_policy_free(p);
		}
	}
}

Test(bpf_verify, catches_a_patched_generated_program)
{
	struct ir_policy *p = policy(IR_NET_DENY, 0);
	struct bpf_prog prog;
	char msg[BPF_VERIFY_MSG_MAX];

	cr_assert_eq(bpf_build(p, SCP_X86_64, &prog), 0);
	prog.insns[4].k = 0x40000001u;  /* guard moved: 0x40000000 itself passes */
	cr_assert_eq(bpf_verify(prog.insns, prog.len, X86, msg, sizeof(msg)), -EINVAL);
	cr_assert(strstr(msg, "x32 guard") != NULL, "%s", msg);
	prog.insns[4].k = 0x40000000u;
	prog.insns[6].k = SECCOMP_RET_ERRNO | 1;  /* x32 only denied, not killed */
	cr_assert_eq(bpf_verify(prog.insns, prog.len, X86, msg, sizeof(msg)), -EINVAL);
	prog.insns[6].k = SECCOMP_RET_KILL_PROCESS;
	cr_assert_eq(bpf_verify(prog.insns, prog.len, X86, msg, sizeof(msg)), 0, "%s", msg);
	prog.insns[prog.len - 1].code = BPF_LD | BPF_W | BPF_ABS; /* last no longer RET */
	prog.insns[prog.len - 1].k = 0;
	cr_assert_eq(bpf_verify(prog.insns, prog.len, X86, msg, sizeof(msg)), -EINVAL);
	bpf_prog_free(&prog);
	ir_policy_free(p);
}

/* ------------------------------------------------- user notifications */

static struct ir_policy *
ipc_policy(bool ipc)
{
	struct ir_policy *p = policy(IR_NET_DENY, 0);

	if (ipc) {
		p->ipc = calloc(1, sizeof(*p->ipc));
		cr_assert_not_null(p->ipc);
		p->nipc = 1;
		p->ipc[0].name = strdup("web");
		p->ipc[0].exec = strdup("/usr/bin/true");
		p->ipc[0].platforms = IR_PLAT_ALL;
	}
	return p;
}

/* The index of the first instruction with `code` and `k`, or len. */
static size_t
find_insn(const struct bpf_prog *prog, uint16_t code, uint32_t k)
{
	size_t i = 0;

	while (i < prog->len && !(prog->insns[i].code == code && prog->insns[i].k == k))
		i++;
	return i;
}

/* USER_NOTIF hands a call to the host command broker: a program from an
 * artifact may return it only where the call is ioctl(-1,
 * HEEL_IPC_IOCTL). heelc's own programs pass (control); the same program
 * with either compare aimed elsewhere, or another call's RET turned into
 * USER_NOTIF, is refused. In a program without ipc, turning the EBADF of
 * the host command call into USER_NOTIF is accepted: that path is exactly
 * the call. `ret a` is refused (its action cannot be checked). */
Test(bpf_verify, user_notif_only_for_the_host_command_call)
{
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		uint32_t arch = scp_audit_arch((enum scp_arch)a);
		struct ir_policy *p = ipc_policy(true), *q = ipc_policy(false);
		struct bpf_prog prog, plain;
		size_t fd, cmd, ret, ebadf, allow;
		char msg[BPF_VERIFY_MSG_MAX];

		cr_assert_eq(bpf_build(p, (enum scp_arch)a, &prog), 0);
		cr_assert_eq(bpf_verify(prog.insns, prog.len, arch, msg, sizeof(msg)), 0, "%s", msg);
		fd = find_insn(&prog, BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu);
		while (fd < prog.len && prog.insns[fd - 1].k != BPF_SIM_DATA_ARG_LO(0))
			fd = fd + 1 + find_insn(&(struct bpf_prog){.insns = prog.insns + fd + 1,
								   .len = prog.len - fd - 1},
						BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu);
		cmd = find_insn(&prog, BPF_JMP | BPF_JEQ | BPF_K, 0x48454c01u);
		ret = find_insn(&prog, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
		cr_assert_lt(fd, prog.len);
		cr_assert_lt(cmd, prog.len);
		cr_assert_lt(ret, prog.len);

		prog.insns[cmd].k = 0x5412; /* TIOCSTI */
		expect_refused(prog.insns, prog.len, arch, "USER_NOTIF for a call that is not");
		prog.insns[cmd].k = 0x48454c01u;
		prog.insns[fd].k = 0;
		expect_refused(prog.insns, prog.len, arch, "USER_NOTIF for a call that is not");
		prog.insns[fd].k = 0xffffffffu;
		cr_assert_eq(bpf_verify(prog.insns, prog.len, arch, msg, sizeof(msg)), 0, "%s", msg);
		/* The default ALLOW (every other call) made USER_NOTIF. */
		allow = find_insn(&prog, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		cr_assert_lt(allow, prog.len);
		prog.insns[allow].k = SECCOMP_RET_USER_NOTIF | 7;
		expect_refused(prog.insns, prog.len, arch, "USER_NOTIF for a call that is not");
		prog.insns[allow].k = SECCOMP_RET_ALLOW;
		prog.insns[ret].code = BPF_RET | BPF_A;
		expect_refused(prog.insns, prog.len, arch, "ret a");
		bpf_prog_free(&prog);

		cr_assert_eq(bpf_build(q, (enum scp_arch)a, &plain), 0);
		cr_assert_eq(find_insn(&plain, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF), plain.len);
		ebadf = find_insn(&plain, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EBADF);
		cr_assert_lt(ebadf, plain.len);
		plain.insns[ebadf].k = SECCOMP_RET_USER_NOTIF;
		cr_assert_eq(bpf_verify(plain.insns, plain.len, arch, msg, sizeof(msg)), 0, "%s", msg);
		bpf_prog_free(&plain);
		ir_policy_free(p);
		ir_policy_free(q);
	}
	{
		/* Hand-made: the nr compared with jeq, then the two words; the
		 * same with the fd compare skipped, and with ioctl's number
		 * taken from the other arch. */
		struct bpf_sim_insn ok[] = {
			LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(0), JEQ(29, 0, 5),
			LD_ABS(16), JEQ(0xffffffffu, 0, 3), LD_ABS(24), JEQ(0x48454c01u, 0, 1),
			RET(SECCOMP_RET_USER_NOTIF), ALLOW,
		};
		struct bpf_sim_insn skip[] = {
			LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(0), JEQ(29, 0, 3),
			LD_ABS(24), JEQ(0x48454c01u, 0, 1),
			RET(SECCOMP_RET_USER_NOTIF), ALLOW,
		};
		struct bpf_sim_insn other_nr[] = {
			LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(0), JEQ(16, 0, 5),
			LD_ABS(16), JEQ(0xffffffffu, 0, 3), LD_ABS(24), JEQ(0x48454c01u, 0, 1),
			RET(SECCOMP_RET_USER_NOTIF), ALLOW,
		};
		/* nr narrowed by a range, as heelc's tree does: 29 <= nr < 30. */
		struct bpf_sim_insn range[] = {
			LD_ABS(4), JEQ(A64, 1, 0), KILL, LD_ABS(0), JGE(30, 6, 0), JGE(29, 0, 5),
			LD_ABS(16), JEQ(0xffffffffu, 0, 3), LD_ABS(24), JEQ(0x48454c01u, 0, 1),
			RET(SECCOMP_RET_USER_NOTIF), ALLOW,
		};
		char msg[BPF_VERIFY_MSG_MAX];

		cr_assert_eq(bpf_verify(ok, N(ok), A64, msg, sizeof(msg)), 0, "%s", msg);
		cr_assert_eq(bpf_verify(range, N(range), A64, msg, sizeof(msg)), 0, "%s", msg);
		expect_refused(skip, N(skip), A64, "instruction 7: USER_NOTIF");
		expect_refused(other_nr, N(other_nr), A64, "instruction 9: USER_NOTIF");
		range[4].k = 31; /* 29 <= nr < 31: ioctl or ioprio_get */
		expect_refused(range, N(range), A64, "instruction 10: USER_NOTIF");
	}
}

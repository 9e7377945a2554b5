/* SPDX-License-Identifier: MIT
 * The cBPF interpreter the seccomp tests rely on: every opcode seccomp
 * accepts computes what the kernel computes, executed-instruction counts
 * are exact, and a malformed program is refused (-EINVAL) rather than
 * read out of bounds. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "bpf_sim.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LD_ABS(k) BPF_SIM_STMT(BPF_LD | BPF_W | BPF_ABS, k)
#define RET(k) BPF_SIM_STMT(BPF_RET | BPF_K, k)

static struct bpf_sim_data
data(uint32_t nr, uint64_t a0, uint64_t a1)
{
	struct bpf_sim_data d = { .nr = nr, .arch = BPF_SIM_AUDIT_ARCH_X86_64 };

	d.args[0] = a0;
	d.args[1] = a1;
	d.instruction_pointer = 0x1122334455667788ull;
	return d;
}

static struct bpf_sim_result
run_ok(const struct bpf_sim_insn *p, size_t n, const struct bpf_sim_data *d)
{
	struct bpf_sim_result r = { 0 };

	cr_assert_eq(bpf_sim_run(p, n, d, &r), 0);
	return r;
}

static void
run_bad(const struct bpf_sim_insn *p, size_t n)
{
	struct bpf_sim_data d = data(1, 2, 3);
	struct bpf_sim_result r;

	cr_assert_eq(bpf_sim_run(p, n, &d, &r), -EINVAL);
}

Test(bpf_sim, ret_and_count)
{
	struct bpf_sim_insn p[] = { RET(SECCOMP_RET_ALLOW) };
	struct bpf_sim_data d = data(0, 0, 0);
	struct bpf_sim_result r = run_ok(p, N(p), &d);

	cr_assert_eq(r.action, SECCOMP_RET_ALLOW);
	cr_assert_eq(r.executed, 1);
}

Test(bpf_sim, loads_every_field_little_endian)
{
	struct bpf_sim_insn p[] = { LD_ABS(0), BPF_SIM_STMT(BPF_RET | BPF_A, 0) };
	struct bpf_sim_data d = data(59, 0xaaaabbbbccccddddull, 0x0000000100000002ull);
	struct {
		uint32_t off, want;
	} cases[] = {
		{ 0, 59 },
		{ 4, BPF_SIM_AUDIT_ARCH_X86_64 },
		{ 8, 0x55667788u },
		{ 12, 0x11223344u },
		{ 16, 0xccccddddu },
		{ 20, 0xaaaabbbbu },
		{ 24, 2 },
		{ 28, 1 },
		{ 60, 0 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		p[0].k = cases[i].off;
		cr_assert_eq(run_ok(p, N(p), &d).action, cases[i].want, "offset %u", cases[i].off);
	}
}

Test(bpf_sim, alu_ops)
{
	struct {
		uint16_t op;
		uint32_t a, k, want;
	} cases[] = {
		{ BPF_ADD, 5, 7, 12 },        { BPF_SUB, 5, 7, 0xfffffffeu },
		{ BPF_MUL, 6, 7, 42 },        { BPF_DIV, 42, 5, 8 },
		{ BPF_AND, 0xf0f0, 0xff00, 0xf000 }, { BPF_OR, 0xf0, 0x0f, 0xff },
		{ BPF_XOR, 0xff, 0x0f, 0xf0 }, { BPF_LSH, 1, 31, 0x80000000u },
		{ BPF_RSH, 0x80000000u, 31, 1 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		struct bpf_sim_insn p[] = {
			BPF_SIM_STMT(BPF_LD | BPF_IMM, cases[i].a),
			BPF_SIM_STMT(BPF_ALU | cases[i].op | BPF_K, cases[i].k),
			BPF_SIM_STMT(BPF_RET | BPF_A, 0),
		};
		/* The same through X. */
		struct bpf_sim_insn q[] = {
			BPF_SIM_STMT(BPF_LDX | BPF_IMM, cases[i].k),
			BPF_SIM_STMT(BPF_LD | BPF_IMM, cases[i].a),
			BPF_SIM_STMT(BPF_ALU | cases[i].op | BPF_X, 0),
			BPF_SIM_STMT(BPF_RET | BPF_A, 0),
		};
		struct bpf_sim_data d = data(0, 0, 0);

		cr_assert_eq(run_ok(p, N(p), &d).action, cases[i].want, "op 0x%x", cases[i].op);
		cr_assert_eq(run_ok(q, N(q), &d).action, cases[i].want, "op 0x%x (X)", cases[i].op);
	}
	{
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_LD | BPF_IMM, 5),
					    BPF_SIM_STMT(BPF_ALU | BPF_NEG, 0),
					    BPF_SIM_STMT(BPF_RET | BPF_A, 0) };
		struct bpf_sim_data d = data(0, 0, 0);

		cr_assert_eq(run_ok(p, N(p), &d).action, (uint32_t)-5);
	}
}

Test(bpf_sim, jumps_and_counts)
{
	/* nr == 59 ? ERRNO(1) : (nr >= 100 ? KILL : ALLOW) */
	struct bpf_sim_insn p[] = {
		LD_ABS(0),
		BPF_SIM_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 59, 2, 0),
		BPF_SIM_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 2, 0),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_ERRNO | 1),
		RET(SECCOMP_RET_KILL_PROCESS),
	};
	struct bpf_sim_data d = data(59, 0, 0);
	struct bpf_sim_result r = run_ok(p, N(p), &d);

	/* jeq's jt = 2 skips two instructions: pc 1 -> 4. */
	cr_assert_eq(r.action, SECCOMP_RET_ERRNO | 1);
	cr_assert_eq(r.executed, 3);
	d.nr = 100;
	r = run_ok(p, N(p), &d);
	cr_assert_eq(r.action, SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(r.executed, 4);
	d.nr = 1;
	r = run_ok(p, N(p), &d);
	cr_assert_eq(r.action, SECCOMP_RET_ALLOW);
	cr_assert_eq(r.executed, 4);
}

Test(bpf_sim, jgt_jset_ja_x)
{
	struct bpf_sim_insn p[] = {
		LD_ABS(16),                                          /* a0 low */
		BPF_SIM_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x8, 0, 1),
		BPF_SIM_STMT(BPF_JMP | BPF_JA, 3),                   /* -> ret 1 */
		BPF_SIM_STMT(BPF_LDX | BPF_IMM, 10),
		BPF_SIM_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 1, 0),
		RET(SECCOMP_RET_ERRNO | 2),
		RET(SECCOMP_RET_ERRNO | 1),
	};
	struct bpf_sim_data d = data(0, 8, 0);

	cr_assert_eq(run_ok(p, N(p), &d).action, SECCOMP_RET_ERRNO | 1);
	cr_assert_eq(run_ok(p, N(p), &d).executed, 4);
	d.args[0] = 17;    /* bit 3 clear, above 10 */
	cr_assert_eq(run_ok(p, N(p), &d).action, SECCOMP_RET_ERRNO | 1);
	d.args[0] = 3;
	cr_assert_eq(run_ok(p, N(p), &d).action, SECCOMP_RET_ERRNO | 2);
}

Test(bpf_sim, scratch_tax_txa_len)
{
	struct bpf_sim_insn p[] = {
		BPF_SIM_STMT(BPF_LD | BPF_W | BPF_LEN, 0),  /* 64 */
		BPF_SIM_STMT(BPF_ST, 3),
		BPF_SIM_STMT(BPF_LD | BPF_IMM, 1),
		BPF_SIM_STMT(BPF_LDX | BPF_MEM, 3),
		BPF_SIM_STMT(BPF_MISC | BPF_TXA, 0),
		BPF_SIM_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_SIM_STMT(BPF_STX, 15),
		BPF_SIM_STMT(BPF_LD | BPF_MEM, 15),
		BPF_SIM_STMT(BPF_RET | BPF_A, 0),
	};
	struct bpf_sim_data d = data(0, 0, 0);
	struct bpf_sim_result r = run_ok(p, N(p), &d);

	cr_assert_eq(r.action, 64);
	cr_assert_eq(r.executed, 9);
}

Test(bpf_sim, div_by_zero_x_returns_zero_like_the_kernel)
{
	struct bpf_sim_insn p[] = {
		BPF_SIM_STMT(BPF_LD | BPF_IMM, 5),
		BPF_SIM_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		RET(SECCOMP_RET_ALLOW),
	};
	struct bpf_sim_data d = data(0, 0, 0);

	cr_assert_eq(run_ok(p, N(p), &d).action, SECCOMP_RET_KILL_THREAD);
}

Test(bpf_sim, refuses_malformed)
{
	struct bpf_sim_insn ret = RET(0);
	struct bpf_sim_insn big[BPF_SIM_MAXINSNS + 1];
	struct bpf_sim_data d = data(0, 0, 0);
	struct bpf_sim_result r;

	cr_assert_eq(bpf_sim_run(&ret, 0, &d, &r), -EINVAL, "empty");
	cr_assert_eq(bpf_sim_run(NULL, 1, &d, &r), -EINVAL, "NULL");
	for (size_t i = 0; i < N(big); i++)
		big[i] = ret;
	cr_assert_eq(bpf_sim_run(big, N(big), &d, &r), -EINVAL, "4097 instructions");
	cr_assert_eq(bpf_sim_run(big, BPF_SIM_MAXINSNS, &d, &r), 0, "4096 is fine");

	{	/* falls off the end */
		struct bpf_sim_insn p[] = { LD_ABS(0) };
		run_bad(p, N(p));
	}
	{	/* misaligned and out-of-range loads */
		struct bpf_sim_insn p[] = { LD_ABS(2), RET(0) };
		run_bad(p, N(p));
		p[0].k = 64;
		run_bad(p, N(p));
		p[0].k = 0xfffffffcu;
		run_bad(p, N(p));
	}
	{	/* jumps past the end */
		struct bpf_sim_insn p[] = { BPF_SIM_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), RET(0) };
		run_bad(p, N(p));
		p[0] = BPF_SIM_STMT(BPF_JMP | BPF_JA, 1);
		run_bad(p, N(p));
		p[0] = BPF_SIM_STMT(BPF_JMP | BPF_JA, 0xffffffffu);
		run_bad(p, N(p));
	}
	{	/* opcodes seccomp refuses */
		uint16_t codes[] = {
			BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS, BPF_LD | BPF_W | BPF_IND,
			BPF_LDX | BPF_W | BPF_ABS, BPF_LDX | BPF_B | BPF_MSH,
			BPF_ALU | BPF_MOD | BPF_K, BPF_RET | BPF_X, 0x100 | BPF_RET,
			BPF_JMP | 0x50, BPF_MISC | 0x40,
		};
		for (size_t i = 0; i < N(codes); i++) {
			struct bpf_sim_insn p[] = { BPF_SIM_STMT(codes[i], 0), RET(0) };
			run_bad(p, N(p));
		}
	}
	{	/* division by constant zero, shift >= 32 */
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET(0) };
		run_bad(p, N(p));
		p[0] = BPF_SIM_STMT(BPF_ALU | BPF_LSH | BPF_K, 32);
		run_bad(p, N(p));
	}
	{	/* scratch out of range, read before write */
		struct bpf_sim_insn p[] = { BPF_SIM_STMT(BPF_ST, 16), RET(0) };
		run_bad(p, N(p));
		p[0] = BPF_SIM_STMT(BPF_LD | BPF_MEM, 0);
		run_bad(p, N(p));
	}
}

Test(bpf_sim, action_names)
{
	char b[32];

	cr_assert_str_eq(bpf_sim_action_name(SECCOMP_RET_ALLOW, b, sizeof(b)), "ALLOW");
	cr_assert_str_eq(bpf_sim_action_name(SECCOMP_RET_KILL_PROCESS, b, sizeof(b)), "KILL_PROCESS");
	cr_assert_str_eq(bpf_sim_action_name(SECCOMP_RET_ERRNO | 38, b, sizeof(b)), "ERRNO(38)");
	cr_assert_str_eq(bpf_sim_action_name(SECCOMP_RET_TRAP | 7, b, sizeof(b)), "TRAP(7)");
}

/* SPDX-License-Identifier: MIT
 * Verifier for seccomp programs read from an artifact: the kernel's checks
 * with a message per failure, then heel's prologue shape. See bpf_verify.h. */
#include "bpf_verify.h"

#include <errno.h>
#include <stdio.h>

#include "errmsg.h"
#include "ipc_abi.h"

#define X32_SYSCALL_BIT 0x40000000u
/* ioctl's number in each architecture's syscall table (the kernel's
 * arch/x86/entry/syscalls/syscall_64.tbl and the generic
 * include/uapi/asm-generic/unistd.h aarch64 uses): ABI, never renumbered. */
#define NR_IOCTL_X86_64 16u
#define NR_IOCTL_AARCH64 29u

/* The opcodes seccomp_check_filter() lets through (after bpf_check_classic
 * accepted them); LD W ABS is checked further by the caller. */
static int
opcode_allowed(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K:
	case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K:
	case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K:
	case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K:
	case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K:
	case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_X:
		return 1;
	default:
		return 0;
	}
}

static int
is_cond_jump(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/* The kernel's check_load_and_stores(): a bit per scratch slot, cleared at
 * a jump target unless every jump into it carried the slot as written.
 * Like the kernel, it is conservative after a RET. */
static int
check_scratch(const struct bpf_sim_insn *prog, size_t len, char *msg,
	      size_t msgsize)
{
	uint16_t masks[BPF_SIM_MAXINSNS];
	uint16_t valid = 0;
	size_t pc;

	for (pc = 0; pc < len; pc++)
		masks[pc] = 0xffff;
	for (pc = 0; pc < len; pc++) {
		const struct bpf_sim_insn *in = &prog[pc];

		valid &= masks[pc];
		switch (in->code) {
		case BPF_ST:
		case BPF_STX:
			valid |= (uint16_t)(1u << in->k);
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (!(valid & (1u << in->k)))
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: reads M[%u] before it is written on every path",
					    pc, (unsigned)in->k);
			break;
		case BPF_JMP | BPF_JA:
			masks[pc + 1 + in->k] &= valid;
			valid = 0xffff;
			break;
		default:
			if (is_cond_jump(in->code)) {
				masks[pc + 1 + in->jt] &= valid;
				masks[pc + 1 + in->jf] &= valid;
				valid = 0xffff;
			}
			break;
		}
	}
	return 0;
}

int
bpf_verify_kernel(const struct bpf_sim_insn *prog, size_t len, char *msg,
		  size_t msgsize)
{
	size_t pc;

	if (msg != NULL && msgsize > 0)
		msg[0] = '\0';
	if (prog == NULL || len == 0)
		return rt_error(msg, msgsize, -EINVAL, "empty seccomp program");
	if (len > BPF_SIM_MAXINSNS)
		return rt_error(msg, msgsize, -EINVAL,
			    "%zu instructions, more than the kernel's limit of %u",
			    len, BPF_SIM_MAXINSNS);

	for (pc = 0; pc < len; pc++) {
		const struct bpf_sim_insn *in = &prog[pc];

		if (!opcode_allowed(in->code))
			return rt_error(msg, msgsize, -EINVAL,
				    "instruction %zu: opcode 0x%04x is not allowed in a seccomp filter",
				    pc, (unsigned)in->code);
		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (in->k & 3u)
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: load offset %u is not 4-byte aligned",
					    pc, (unsigned)in->k);
			if (in->k >= sizeof(struct bpf_sim_data))
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: load offset %u is outside seccomp_data (%zu bytes)",
					    pc, (unsigned)in->k, sizeof(struct bpf_sim_data));
			break;
		case BPF_ALU | BPF_DIV | BPF_K:
			if (in->k == 0)
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: division by constant zero", pc);
			break;
		case BPF_ALU | BPF_LSH | BPF_K:
		case BPF_ALU | BPF_RSH | BPF_K:
			if (in->k >= 32)
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: shift by %u (32 or more)",
					    pc, (unsigned)in->k);
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (in->k >= BPF_SIM_MEMWORDS)
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: scratch slot M[%u] out of range (0-%u)",
					    pc, (unsigned)in->k, BPF_SIM_MEMWORDS - 1);
			break;
		case BPF_JMP | BPF_JA:
			/* k is 32 bits: compare without forming pc + 1 + k. */
			if (in->k >= len - pc - 1)
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: jump by %u goes past the end of the %zu-instruction program",
					    pc, (unsigned)in->k, len);
			break;
		default:
			if (is_cond_jump(in->code) &&
			    (pc + 1 + in->jt >= len || pc + 1 + in->jf >= len))
				return rt_error(msg, msgsize, -EINVAL,
					    "instruction %zu: jump to %zu goes past the end of the %zu-instruction program",
					    pc, pc + 1 + (in->jt > in->jf ? in->jt : in->jf), len);
			break;
		}
	}
	if (BPF_CLASS(prog[len - 1].code) != BPF_RET)
		return rt_error(msg, msgsize, -EINVAL,
			    "the last instruction (%zu) is not a RET", len - 1);
	return check_scratch(prog, len, msg, msgsize);
}

static int
is_kill(const struct bpf_sim_insn *prog, size_t at)
{
	return prog[at].code == (BPF_RET | BPF_K) &&
	       prog[at].k == SECCOMP_RET_KILL_PROCESS;
}

/* What is known about the call on the way to an instruction: the range
 * the syscall number lies in, whether the two words of a host command
 * call were compared equal, and which of those words A holds. */
enum { SRC_NONE, SRC_NR, SRC_FD, SRC_CMD };
#define KNOWN_FD 1u  /* args[0] low word == 0xffffffff */
#define KNOWN_CMD 2u /* args[1] low word == HEEL_IPC_IOCTL */
struct flow {
	uint32_t nr_lo, nr_hi;
	uint8_t known, src, reached;
};

static void
flow_join(struct flow *to, const struct flow *from)
{
	if (from->nr_lo > from->nr_hi)
		return; /* an edge no call can take */
	if (!to->reached) {
		*to = *from;
		to->reached = 1;
		return;
	}
	if (from->nr_lo < to->nr_lo)
		to->nr_lo = from->nr_lo;
	if (from->nr_hi > to->nr_hi)
		to->nr_hi = from->nr_hi;
	to->known &= from->known;
	if (to->src != from->src)
		to->src = SRC_NONE;
}

/* The state after conditional jump `in` is taken (taken = 1) or not. */
static struct flow
flow_branch(const struct flow *f, const struct bpf_sim_insn *in, int taken)
{
	struct flow o = *f;
	uint32_t k = in->k;

	if (BPF_SRC(in->code) != BPF_K)
		return o;
	switch (BPF_OP(in->code)) {
	case BPF_JEQ:
		if (taken && f->src == SRC_NR) {
			o.nr_lo = k > o.nr_lo ? k : o.nr_lo;
			o.nr_hi = k < o.nr_hi ? k : o.nr_hi;
		} else if (taken && f->src == SRC_FD && k == 0xffffffffu) {
			o.known |= KNOWN_FD;
		} else if (taken && f->src == SRC_CMD && k == HEEL_IPC_IOCTL) {
			o.known |= KNOWN_CMD;
		} else if (!taken && f->src == SRC_NR && o.nr_lo == o.nr_hi && o.nr_lo == k) {
			o.nr_lo = 1, o.nr_hi = 0; /* cannot be taken */
		}
		break;
	case BPF_JGE:
	case BPF_JGT:
		if (f->src != SRC_NR)
			break;
		if (BPF_OP(in->code) == BPF_JGT) {
			if (k == 0xffffffffu) { /* nr > max: never */
				if (taken)
					o.nr_lo = 1, o.nr_hi = 0;
				break;
			}
			k++; /* nr > k is nr >= k + 1 */
		}
		if (taken) {
			if (k > o.nr_lo)
				o.nr_lo = k;
		} else if (k == 0) {
			o.nr_lo = 1, o.nr_hi = 0;
		} else if (k - 1 < o.nr_hi) {
			o.nr_hi = k - 1;
		}
		break;
	default:
		break;
	}
	return o;
}

/* SECCOMP_RET_USER_NOTIF hands a call to the host command broker, which
 * answers it by installing a descriptor in the caller: a program from an
 * artifact may return it only for a host command call, ioctl(-1,
 * HEEL_IPC_IOCTL) on the low words (runtime/ipc_abi.h), never for another
 * call a tampered artifact would route there. A forward data flow (jumps
 * only go forward, so one pass in order) follows the range of the syscall
 * number and the two argument compares to every RET; `ret a` is refused,
 * since its action could not be checked. The arch is fixed by the
 * prologue. */
static int
check_user_notif(const struct bpf_sim_insn *prog, size_t len, uint32_t audit_arch, char *msg,
		 size_t msgsize)
{
	static const struct flow start = {0, 0xffffffffu, 0, SRC_NONE, 1};
	const uint32_t nr_ioctl =
	    audit_arch == BPF_SIM_AUDIT_ARCH_X86_64 ? NR_IOCTL_X86_64 : NR_IOCTL_AARCH64;
	struct flow in[BPF_SIM_MAXINSNS] = {{0}};

	in[0] = start;
	for (size_t pc = 0; pc < len; pc++) {
		const struct bpf_sim_insn *x = &prog[pc];
		struct flow f = in[pc], t;

		if (!f.reached)
			continue;
		switch (BPF_CLASS(x->code)) {
		case BPF_RET:
			if (BPF_RVAL(x->code) != BPF_K)
				return rt_error(msg, msgsize, -EINVAL,
						"instruction %zu: ret a (heel's programs return "
						"constant actions, which can be checked)",
						pc);
			if ((x->k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF &&
			    (f.nr_lo != nr_ioctl || f.nr_hi != nr_ioctl ||
			     f.known != (KNOWN_FD | KNOWN_CMD)))
				return rt_error(msg, msgsize, -EINVAL,
						"instruction %zu: USER_NOTIF for a call that is not "
						"ioctl(-1, HEEL_IPC_IOCTL)",
						pc);
			continue;
		case BPF_JMP:
			if (BPF_OP(x->code) == BPF_JA) {
				flow_join(&in[pc + 1 + x->k], &f);
				continue;
			}
			t = flow_branch(&f, x, 1);
			flow_join(&in[pc + 1 + x->jt], &t);
			t = flow_branch(&f, x, 0);
			flow_join(&in[pc + 1 + x->jf], &t);
			continue;
		case BPF_LD:
			f.src = x->code != (BPF_LD | BPF_W | BPF_ABS) ? SRC_NONE
				: x->k == BPF_SIM_DATA_NR	      ? SRC_NR
				: x->k == BPF_SIM_DATA_ARG_LO(0)      ? SRC_FD
				: x->k == BPF_SIM_DATA_ARG_LO(1)      ? SRC_CMD
								      : SRC_NONE;
			break;
		case BPF_ALU:
			/* and #0xffffffff leaves A as it is; anything else
			 * computes a new value. */
			if (x->code != (BPF_ALU | BPF_AND | BPF_K) || x->k != 0xffffffffu)
				f.src = SRC_NONE;
			break;
		case BPF_MISC:
			if (x->code == (BPF_MISC | BPF_TXA))
				f.src = SRC_NONE;
			break;
		default: /* LDX, ST, STX leave A */
			break;
		}
		if (pc + 1 < len)
			flow_join(&in[pc + 1], &f);
	}
	return 0;
}

int
bpf_verify(const struct bpf_sim_insn *prog, size_t len, uint32_t audit_arch,
	   char *msg, size_t msgsize)
{
	const struct bpf_sim_insn *in;
	size_t need;
	int ret;

	ret = bpf_verify_kernel(prog, len, msg, msgsize);
	if (ret < 0)
		return ret;
	if (audit_arch != BPF_SIM_AUDIT_ARCH_X86_64 &&
	    audit_arch != BPF_SIM_AUDIT_ARCH_AARCH64)
		return rt_error(msg, msgsize, -EINVAL,
			    "seccomp program for unsupported architecture 0x%08x",
			    (unsigned)audit_arch);
	need = audit_arch == BPF_SIM_AUDIT_ARCH_X86_64 ? 9 : 5;
	if (len < need)
		return rt_error(msg, msgsize, -EINVAL,
			    "program too short (%zu instructions) to hold heel's architecture check",
			    len);

	if (prog[0].code != (BPF_LD | BPF_W | BPF_ABS) ||
	    prog[0].k != BPF_SIM_DATA_ARCH)
		return rt_error(msg, msgsize, -EINVAL,
			    "instruction 0: the program does not start by loading seccomp_data.arch");
	in = &prog[1];
	if (in->code != (BPF_JMP | BPF_JEQ | BPF_K) || in->k != audit_arch ||
	    in->jt != 1 || in->jf != 0 || !is_kill(prog, 2))
		return rt_error(msg, msgsize, -EINVAL,
			    "instructions 1-2: not the architecture check (jeq #0x%08x, 1, 0; ret KILL_PROCESS)",
			    (unsigned)audit_arch);
	if (prog[3].code != (BPF_LD | BPF_W | BPF_ABS) ||
	    prog[3].k != BPF_SIM_DATA_NR)
		return rt_error(msg, msgsize, -EINVAL,
			    "instruction 3: the syscall number is not loaded after the architecture check");
	if (audit_arch != BPF_SIM_AUDIT_ARCH_X86_64)
		return check_user_notif(prog, len, audit_arch, msg, msgsize);

	/* x32 calls carry AUDIT_ARCH_X86_64 and nr | 0x40000000: without
	 * this guard every deny rule could be sidestepped by the x32 twin. */
	in = &prog[4];
	if (in->code != (BPF_JMP | BPF_JGE | BPF_K) || in->k != X32_SYSCALL_BIT ||
	    in->jt != 0)
		return rt_error(msg, msgsize, -EINVAL,
			    "instruction 4: the x32 guard (jge #0x40000000) is missing");
	in = &prog[5];
	if (in->code != (BPF_JMP | BPF_JEQ | BPF_K) || in->k != 0xffffffffu ||
	    in->jf != 0 || !is_kill(prog, 6))
		return rt_error(msg, msgsize, -EINVAL,
			    "instructions 5-6: x32 syscall numbers do not end in kill-process");
	return check_user_notif(prog, len, audit_arch, msg, msgsize);
}

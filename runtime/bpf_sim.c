/* SPDX-License-Identifier: MIT
 * A classic-BPF interpreter with seccomp's rules: it is how the tests and
 * the benchmarks run a generated filter over every syscall number without
 * loading it into a kernel, and how they count executed instructions. */
#include "bpf_sim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Loads one 32-bit word of seccomp_data the way the kernel does: a
 * native-endian read at a 4-aligned offset inside the 64-byte struct. */
static int
load_word(const struct bpf_sim_data *data, uint32_t off, uint32_t *out)
{
	unsigned char bytes[sizeof(*data)];

	if (off >= sizeof(*data) || (off & 3u))
		return -EINVAL;
	memcpy(bytes, data, sizeof(bytes));
	memcpy(out, bytes + off, sizeof(*out));
	return 0;
}

static int
alu(uint16_t code, uint32_t *a, uint32_t operand)
{
	switch (BPF_OP(code)) {
	case BPF_ADD:
		*a += operand;
		return 0;
	case BPF_SUB:
		*a -= operand;
		return 0;
	case BPF_MUL:
		*a *= operand;
		return 0;
	case BPF_DIV:
		/* The caller handles a zero divisor (kernel: returns 0). */
		*a /= operand;
		return 0;
	case BPF_AND:
		*a &= operand;
		return 0;
	case BPF_OR:
		*a |= operand;
		return 0;
	case BPF_XOR:
		*a ^= operand;
		return 0;
	case BPF_LSH:
		/* Shift counts of 32 and more are refused for K by the kernel's
		 * checker; for X the x86 JIT masks them, as done here. */
		*a <<= (operand & 31u);
		return 0;
	case BPF_RSH:
		*a >>= (operand & 31u);
		return 0;
	case BPF_NEG:
		*a = (uint32_t)(0u - *a);
		return 0;
	default:
		return -EINVAL;
	}
}

int
bpf_sim_run(const struct bpf_sim_insn *prog, size_t len,
	    const struct bpf_sim_data *data, struct bpf_sim_result *res)
{
	uint32_t a = 0, x = 0, mem[BPF_SIM_MEMWORDS] = { 0 };
	uint32_t memset_bits = 0, executed = 0;
	size_t pc = 0;

	if (prog == NULL || data == NULL || res == NULL || len == 0 ||
	    len > BPF_SIM_MAXINSNS)
		return -EINVAL;

	while (pc < len) {
		const struct bpf_sim_insn *in = &prog[pc];
		uint32_t operand;
		int taken;

		executed++;
		if (in->code > 0xff)
			return -EINVAL;
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;

			if (BPF_SIZE(in->code) != BPF_W)
				return -EINVAL;
			switch (BPF_MODE(in->code)) {
			case BPF_ABS:
				/* seccomp allows LD ABS only into A. */
				if (BPF_CLASS(in->code) != BPF_LD ||
				    load_word(data, in->k, &v) < 0)
					return -EINVAL;
				break;
			case BPF_IMM:
				v = in->k;
				break;
			case BPF_LEN:
				/* seccomp rewrites LEN as sizeof(seccomp_data). */
				v = (uint32_t)sizeof(*data);
				break;
			case BPF_MEM:
				if (in->k >= BPF_SIM_MEMWORDS ||
				    !(memset_bits & (1u << in->k)))
					return -EINVAL;
				v = mem[in->k];
				break;
			default:
				return -EINVAL;
			}
			if (BPF_CLASS(in->code) == BPF_LD)
				a = v;
			else
				x = v;
			pc++;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			if (in->code != BPF_ST && in->code != BPF_STX)
				return -EINVAL;
			if (in->k >= BPF_SIM_MEMWORDS)
				return -EINVAL;
			mem[in->k] = in->code == BPF_ST ? a : x;
			memset_bits |= 1u << in->k;
			pc++;
			break;
		case BPF_ALU:
			if (BPF_OP(in->code) == BPF_NEG) {
				if (in->code != (BPF_ALU | BPF_NEG))
					return -EINVAL;
				operand = 0;
			} else {
				operand = BPF_SRC(in->code) == BPF_X ? x : in->k;
				if (BPF_OP(in->code) == BPF_MOD ||
				    BPF_OP(in->code) > BPF_XOR)
					return -EINVAL;
				if (BPF_OP(in->code) == BPF_DIV && operand == 0) {
					if (BPF_SRC(in->code) == BPF_K)
						return -EINVAL;
					/* The kernel's cBPF conversion returns 0
					 * (KILL_THREAD) on a zero X divisor. */
					res->action = 0;
					res->executed = executed;
					return 0;
				}
				if ((BPF_OP(in->code) == BPF_LSH ||
				     BPF_OP(in->code) == BPF_RSH) &&
				    BPF_SRC(in->code) == BPF_K && in->k >= 32)
					return -EINVAL;
			}
			if (alu(in->code, &a, operand) < 0)
				return -EINVAL;
			pc++;
			break;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA) {
				if (in->code != (BPF_JMP | BPF_JA) ||
				    in->k >= len - pc - 1)
					return -EINVAL;
				pc += 1 + (size_t)in->k;
				break;
			}
			operand = BPF_SRC(in->code) == BPF_X ? x : in->k;
			switch (BPF_OP(in->code)) {
			case BPF_JEQ:
				taken = a == operand;
				break;
			case BPF_JGT:
				taken = a > operand;
				break;
			case BPF_JGE:
				taken = a >= operand;
				break;
			case BPF_JSET:
				taken = (a & operand) != 0;
				break;
			default:
				return -EINVAL;
			}
			if (pc + 1 + in->jt >= len || pc + 1 + in->jf >= len)
				return -EINVAL;
			pc += 1 + (size_t)(taken ? in->jt : in->jf);
			break;
		case BPF_RET:
			if (in->code == (BPF_RET | BPF_K))
				res->action = in->k;
			else if (in->code == (BPF_RET | BPF_A))
				res->action = a;
			else
				return -EINVAL;
			res->executed = executed;
			return 0;
		case BPF_MISC:
			if (in->code == (BPF_MISC | BPF_TAX))
				x = a;
			else if (in->code == (BPF_MISC | BPF_TXA))
				a = x;
			else
				return -EINVAL;
			pc++;
			break;
		default:
			return -EINVAL;
		}
	}
	/* Fell off the end: the kernel's checker requires a final RET. */
	return -EINVAL;
}

const char *
bpf_sim_action_name(uint32_t action, char *buf, size_t size)
{
	uint32_t data = action & SECCOMP_RET_DATA;

	if (buf == NULL || size == 0)
		return "";
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		snprintf(buf, size, "KILL_PROCESS");
		break;
	case SECCOMP_RET_KILL_THREAD:
		snprintf(buf, size, "KILL_THREAD");
		break;
	case SECCOMP_RET_TRAP:
		snprintf(buf, size, "TRAP(%u)", (unsigned)data);
		break;
	case SECCOMP_RET_ERRNO:
		snprintf(buf, size, "ERRNO(%u)", (unsigned)data);
		break;
	case SECCOMP_RET_USER_NOTIF:
		snprintf(buf, size, "USER_NOTIF");
		break;
	case SECCOMP_RET_TRACE:
		snprintf(buf, size, "TRACE(%u)", (unsigned)data);
		break;
	case SECCOMP_RET_LOG:
		snprintf(buf, size, "LOG");
		break;
	case SECCOMP_RET_ALLOW:
		snprintf(buf, size, "ALLOW");
		break;
	default:
		snprintf(buf, size, "0x%08x", (unsigned)action);
		break;
	}
	return buf;
}

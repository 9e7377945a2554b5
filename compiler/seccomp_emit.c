/* SPDX-License-Identifier: MIT
 * Text rendering of heel's seccomp programs for `heelc emit seccomp` (see
 * seccomp_emit.h): a disassembler that knows what the accumulator holds
 * (syscall number, arch, an argument word) so constants print as names. */
#include "seccomp_emit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ipc_abi.h"
#include "ir.h"

/* What A holds before an instruction: the seccomp_data offset last
 * loaded, or one of these. */
enum { A_UNSET = -3, A_UNKNOWN = -2, A_COMPUTED = -1 };

static void
merge(int *state, int v)
{
	if (*state == A_UNSET)
		*state = v;
	else if (*state != v)
		*state = A_UNKNOWN;
}

/* Forward data flow; programs only jump forward, so one pass suffices. */
static int *
acc_sources(const struct bpf_prog *prog)
{
	int *in = malloc(prog->len * sizeof(*in));

	if (in == NULL)
		return NULL;
	for (size_t i = 0; i < prog->len; i++)
		in[i] = A_UNSET;
	if (prog->len)
		in[0] = A_UNKNOWN;
	for (size_t pc = 0; pc < prog->len; pc++) {
		const struct bpf_sim_insn *x = &prog->insns[pc];
		int out = in[pc];

		if (x->code == (BPF_LD | BPF_W | BPF_ABS))
			out = (int)x->k;
		else if (BPF_CLASS(x->code) == BPF_LD || BPF_CLASS(x->code) == BPF_ALU ||
			 x->code == (BPF_MISC | BPF_TXA))
			out = out >= 0 && BPF_CLASS(x->code) == BPF_ALU ? A_COMPUTED : A_UNKNOWN;

		if (BPF_CLASS(x->code) == BPF_RET)
			continue;
		if (x->code == (BPF_JMP | BPF_JA)) {
			if (pc + 1 + x->k < prog->len)
				merge(&in[pc + 1 + x->k], out);
		} else if (BPF_CLASS(x->code) == BPF_JMP) {
			if (pc + 1 + x->jt < prog->len)
				merge(&in[pc + 1 + x->jt], out);
			if (pc + 1 + x->jf < prog->len)
				merge(&in[pc + 1 + x->jf], out);
		} else if (pc + 1 < prog->len) {
			merge(&in[pc + 1], out);
		}
	}
	return in;
}

static const char *
field_name(uint32_t off, char *buf, size_t size)
{
	if (off == BPF_SIM_DATA_NR)
		return "nr";
	if (off == BPF_SIM_DATA_ARCH)
		return "arch";
	if (off == 8 || off == 12)
		return off == 8 ? "instruction_pointer (low)" : "instruction_pointer (high)";
	if (off >= 16 && off < 64) {
		snprintf(buf, size, "args[%u] (%s)", (off - 16) / 8,
			 (off & 4) ? "high" : "low");
		return buf;
	}
	return "?";
}

static const char *
arch_const_name(uint32_t k)
{
	switch (k) {
	case BPF_SIM_AUDIT_ARCH_X86_64:
		return "AUDIT_ARCH_X86_64";
	case BPF_SIM_AUDIT_ARCH_AARCH64:
		return "AUDIT_ARCH_AARCH64";
	case BPF_SIM_AUDIT_ARCH_I386:
		return "AUDIT_ARCH_I386";
	default:
		return NULL;
	}
}

/* A comment for the constant of a jump, given what A holds. */
static void
const_comment(const struct scp_model *m, int src, uint32_t k, char *buf, size_t size)
{
	const char *name;

	buf[0] = '\0';
	if (src == (int)BPF_SIM_DATA_NR) {
		if (k == 0x40000000u)
			snprintf(buf, size, " /* x32 */");
		else if (k == 0xffffffffu)
			snprintf(buf, size, " /* -1: no syscall */");
		else if ((name = scp_name(m->arch, k)) != NULL)
			snprintf(buf, size, " /* %s */", name);
		else
			snprintf(buf, size, " /* not a syscall */");
	} else if (src == (int)BPF_SIM_DATA_ARCH) {
		if ((name = arch_const_name(k)) != NULL)
			snprintf(buf, size, " /* %s */", name);
	} else if (src == (int)BPF_SIM_DATA_ARG_LO(1) && k == HEEL_IPC_IOCTL) {
		snprintf(buf, size, " /* HEEL_IPC_IOCTL */");
	}
}

static const char *
alu_name(uint16_t code)
{
	static const char *const names[] = { "add", "sub", "mul", "div", "or", "and",
					     "lsh", "rsh", "neg", "mod", "xor" };
	unsigned op = BPF_OP(code) >> 4;

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "alu?";
}

static const char *
jmp_name(uint16_t code)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ:
		return "jeq";
	case BPF_JGT:
		return "jgt";
	case BPF_JGE:
		return "jge";
	case BPF_JSET:
		return "jset";
	default:
		return "j?";
	}
}

static void
print_cond(FILE *out, const struct scp_cond *c)
{
	uint64_t full = c->width == 32 ? 0xffffffffu : UINT64_MAX;

	if ((c->mask & full) == full)
		fprintf(out, "a%u", c->arg);
	else
		fprintf(out, "(a%u & 0x%" PRIx64 ")", c->arg, c->mask & full);
	if (c->width == 32)
		fprintf(out, ".lo");
	if (c->nvalues == 1) {
		fprintf(out, " %s 0x%" PRIx64, c->negate ? "!=" : "==", c->values[0]);
		return;
	}
	fprintf(out, " %s {", c->negate ? "not in" : "in");
	for (uint8_t i = 0; i < c->nvalues; i++)
		fprintf(out, "%s0x%" PRIx64, i ? ", " : "", c->values[i]);
	fprintf(out, "}");
}

static void
print_rules(FILE *out, const struct scp_model *m)
{
	char a[32];

	fprintf(out, "# default ALLOW; numbers heelc does not know: %s; "
		     "x32 numbers and other arches: %s\n",
		bpf_sim_action_name(m->unknown_action, a, sizeof(a)),
		m->arch == SCP_X86_64 ? "KILL_PROCESS" : "KILL_PROCESS (arch)");
	for (size_t i = 0; i < m->nrules; i++) {
		const struct scp_rule *r = &m->rules[i];

		fprintf(out, "#   %s (%u): ", r->name, r->nr);
		for (uint8_t c = 0; c < r->nclauses; c++) {
			const struct scp_clause *cl = &r->clauses[c];

			fprintf(out, "if ");
			for (uint8_t j = 0; j < cl->nconds; j++) {
				if (j)
					fprintf(out, " && ");
				print_cond(out, &cl->conds[j]);
			}
			fprintf(out, ": %s", bpf_sim_action_name(cl->action, a, sizeof(a)));
			if (cl->why != NULL)
				fprintf(out, " (%s)", cl->why);
			fprintf(out, "; ");
		}
		fprintf(out, "%s%s", r->nclauses ? "else " : "",
			bpf_sim_action_name(r->action, a, sizeof(a)));
		if (r->origin != NULL && r->origin->file != NULL)
			fprintf(out, "  (%s:%u)", r->origin->file, r->origin->line);
		else if (r->why != NULL)
			fprintf(out, "  -- %s", r->why);
		fputc('\n', out);
	}
}

int
seccomp_emit_prog(const struct scp_model *m, const struct bpf_prog *prog, FILE *out)
{
	int *src = acc_sources(prog);
	char buf[64], cmt[64], act[32];

	if (src == NULL)
		return -ENOMEM;
	fprintf(out, "# seccomp program for %s (arch 0x%08x): %zu instructions\n",
		scp_arch_name(m->arch), m->audit_arch, prog->len);
	print_rules(out, m);
	for (size_t pc = 0; pc < prog->len; pc++) {
		const struct bpf_sim_insn *x = &prog->insns[pc];

		fprintf(out, "L%zu:\t", pc);
		switch (BPF_CLASS(x->code)) {
		case BPF_LD:
		case BPF_LDX: {
			const char *op = BPF_CLASS(x->code) == BPF_LD ? "ld" : "ldx";

			if (BPF_MODE(x->code) == BPF_ABS)
				fprintf(out, "%s [%u]\t\t\t/* %s */", op, x->k,
					field_name(x->k, buf, sizeof(buf)));
			else if (BPF_MODE(x->code) == BPF_IMM)
				fprintf(out, "%s #0x%x", op, x->k);
			else if (BPF_MODE(x->code) == BPF_MEM)
				fprintf(out, "%s M[%u]", op, x->k);
			else
				fprintf(out, "%s #len", op);
			break;
		}
		case BPF_ST:
			fprintf(out, "st M[%u]", x->k);
			break;
		case BPF_STX:
			fprintf(out, "stx M[%u]", x->k);
			break;
		case BPF_ALU:
			if (BPF_OP(x->code) == BPF_NEG)
				fprintf(out, "neg");
			else if (BPF_SRC(x->code) == BPF_X)
				fprintf(out, "%s x", alu_name(x->code));
			else
				fprintf(out, "%s #0x%x", alu_name(x->code), x->k);
			break;
		case BPF_JMP:
			if (BPF_OP(x->code) == BPF_JA) {
				fprintf(out, "ja L%zu", pc + 1 + (size_t)x->k);
				break;
			}
			const_comment(m, src[pc], x->k, cmt, sizeof(cmt));
			if (BPF_SRC(x->code) == BPF_X)
				fprintf(out, "%s x, L%zu, L%zu", jmp_name(x->code),
					pc + 1 + x->jt, pc + 1 + x->jf);
			else if (src[pc] == (int)BPF_SIM_DATA_NR &&
				 BPF_OP(x->code) != BPF_JSET && x->k < 0x10000u)
				fprintf(out, "%s #%u%s, L%zu, L%zu", jmp_name(x->code), x->k,
					cmt, pc + 1 + x->jt, pc + 1 + x->jf);
			else
				fprintf(out, "%s #0x%x%s, L%zu, L%zu", jmp_name(x->code), x->k,
					cmt, pc + 1 + x->jt, pc + 1 + x->jf);
			break;
		case BPF_RET:
			if (BPF_RVAL(x->code) == BPF_A)
				fprintf(out, "ret a");
			else
				fprintf(out, "ret #0x%08x\t\t/* %s */", x->k,
					bpf_sim_action_name(x->k, act, sizeof(act)));
			break;
		case BPF_MISC:
			fprintf(out, "%s", x->code == (BPF_MISC | BPF_TAX) ? "tax" : "txa");
			break;
		}
		fputc('\n', out);
	}
	free(src);
	return ferror(out) ? -EIO : 0;
}

int
seccomp_emit_text(const struct ir_policy *policy, FILE *out)
{
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct scp_model *m;
		struct bpf_prog prog;
		int ret = scp_build(policy, (enum scp_arch)a, &m);

		if (ret < 0)
			return ret;
		ret = bpf_generate(m, &prog, NULL);
		if (ret < 0) {
			scp_free(m);
			return ret;
		}
		if (a > 0)
			fputc('\n', out);
		ret = seccomp_emit_prog(m, &prog, out);
		bpf_prog_free(&prog);
		scp_free(m);
		if (ret < 0)
			return ret;
	}
	return 0;
}

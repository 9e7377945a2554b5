/* SPDX-License-Identifier: MIT
 * The seccomp BPF generator of heelc: lowers a policy model
 * (seccomp_policy.h) to one classic-BPF program per architecture.
 *
 * Layout: the arch check (anything else is killed), the syscall number,
 * on x86_64 the x32 guard, then a balanced JGE search tree over the
 * syscall numbers merged into ranges of equal action (gaps included), so
 * any number is classified in ceil(log2(ranges)) comparisons; calls with
 * argument checks are single-number leaves that jump to their own block.
 * One RET per action, shared; jumps further than 255 instructions get a
 * copy of the RET or a JA trampoline. Every program is checked with
 * bpf_verify() before it is returned.
 *
 * The libseccomp build of the same model, for the cross-check and the
 * measured comparison, is test-only (tests/unit/support_libseccomp.h):
 * heelc itself does not link libseccomp. */
#ifndef HEEL_COMPILER_SECCOMP_BPF_H
#define HEEL_COMPILER_SECCOMP_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_sim.h"
#include "bpf_verify.h"
#include "seccomp_policy.h"

struct ir_policy;

struct bpf_prog {
	struct bpf_sim_insn *insns;  /* owned; bpf_prog_free() */
	size_t len;
	uint32_t audit_arch;
};

/* What the generator built, for tests and benchmarks. */
struct bpf_gen_info {
	size_t nranges;              /* leaves of the search tree (gaps included) */
	unsigned depth;              /* JGE comparisons on the deepest tree path */
	size_t nlong_jumps;          /* RET copies and JA trampolines inserted */
	char error[BPF_VERIFY_MSG_MAX]; /* why bpf_verify() refused, on -EINVAL */
};

/* Generates the program of `model`. `info` may be NULL. Returns 0, -ENOMEM,
 * -E2BIG (over 4096 instructions) or -EINVAL (the result failed
 * bpf_verify(): a generator bug, never silently emitted). */
int bpf_generate(const struct scp_model *model, struct bpf_prog *out,
		 struct bpf_gen_info *info);

/* scp_build() + bpf_generate() for one architecture. */
int bpf_build(const struct ir_policy *policy, enum scp_arch arch,
	      struct bpf_prog *out);

void bpf_prog_free(struct bpf_prog *prog);

/* Executed-instruction costs from the simulator over every syscall of the
 * arch's table, arguments zero, split by outcome. */
struct bpf_cost {
	size_t count;
	double avg;
	uint32_t worst;
};
struct bpf_stats {
	size_t insns;
	struct bpf_cost allowed;     /* action ALLOW */
	struct bpf_cost denied;      /* anything else */
	uint32_t worst_path;         /* longest path through the program, any input */
};
int bpf_measure(const struct bpf_prog *prog, const struct scp_model *model,
		struct bpf_stats *out);

#endif

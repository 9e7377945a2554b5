/* SPDX-License-Identifier: MIT
 * `heelc emit seccomp`: the seccomp programs of a policy as text, one per
 * architecture: a summary of the rules (with the policy line that caused
 * each user rule) and the disassembly with symbolic syscall names, the
 * form golden files and reviewers read. */
#ifndef HEEL_COMPILER_SECCOMP_EMIT_H
#define HEEL_COMPILER_SECCOMP_EMIT_H

#include <stdio.h>

#include "seccomp_bpf.h"
#include "seccomp_policy.h"

struct ir_policy;

/* Builds and prints the x86_64 then the aarch64 program of `policy`.
 * Returns 0, or the negative errno of scp_build()/bpf_generate() (nothing
 * is printed for an arch that failed), -EIO when writing failed. */
int seccomp_emit_text(const struct ir_policy *policy, FILE *out);

/* Prints one program: header, rules of `model`, disassembly. */
int seccomp_emit_prog(const struct scp_model *model, const struct bpf_prog *prog,
		      FILE *out);

#endif

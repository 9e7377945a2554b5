/* SPDX-License-Identifier: MIT
 * The check every seccomp program from an artifact passes before heel-exec
 * hands it to the kernel: the kernel's own rules (sk_chk_filter /
 * bpf_check_classic + seccomp_check_filter), which only ever answer EINVAL,
 * repeated here so a bad program is refused with a message naming the
 * instruction, plus heel's own shape rules (the arch check, the x32 guard).
 * heelc runs the same check on everything it emits.
 *
 * Portable C17, libc only, no allocation. */
#ifndef HEEL_RUNTIME_BPF_VERIFY_H
#define HEEL_RUNTIME_BPF_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_sim.h"

/* Enough for every message below. */
#define BPF_VERIFY_MSG_MAX 160

/* Only the kernel's rules: 1..4096 instructions; opcodes seccomp accepts
 * (LD W ABS/IMM/MEM/LEN, LDX W IMM/MEM/LEN, ST, STX, ALU ADD SUB MUL DIV
 * AND OR XOR LSH RSH (K and X) and NEG, JA, JEQ/JGT/JGE/JSET (K and X),
 * RET K/A, TAX, TXA); LD ABS offsets 4-aligned inside the 64-byte
 * seccomp_data; no division by constant zero, no constant shift >= 32;
 * scratch slots < 16; every jump inside the program; the last instruction
 * a RET; no scratch slot read on a path that has not written it.
 * Returns 0, or -EINVAL with one line (no trailing newline) in `msg`. */
int bpf_verify_kernel(const struct bpf_sim_insn *prog, size_t len, char *msg,
		      size_t msgsize);

/* bpf_verify_kernel() plus heel's shape for `audit_arch` (x86_64 or
 * aarch64; anything else is refused):
 *   0: ld [4]                       arch
 *   1: jeq #AUDIT_ARCH, 1, 0
 *   2: ret KILL_PROCESS
 *   3: ld [0]                       nr
 * and on x86_64 the foreign-ABI guard right after it:
 *   4: jge #0x40000000, 0, n        x32 numbers...
 *   5: jeq #0xffffffff, n, 0
 *   6: ret KILL_PROCESS             ...are killed; -1 (no syscall) is not
 * Jumps only go forward, so every run passes through these instructions:
 * an i386 or x32 entry can never reach the rest of the program. */
int bpf_verify(const struct bpf_sim_insn *prog, size_t len, uint32_t audit_arch,
	       char *msg, size_t msgsize);

#endif

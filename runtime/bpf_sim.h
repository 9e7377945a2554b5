/* SPDX-License-Identifier: MIT
 * Classic BPF as seccomp uses it: the instruction and input layouts, the
 * opcode and return-value constants, and an interpreter that runs a
 * program over one struct seccomp_data and counts the instructions it
 * executed. The compiler's tests and benchmarks use it to check every
 * generated program without a kernel; heel-exec asks it whether the
 * artifact's program refuses inet sockets (a right Landlock then need
 * not hold).
 *
 * Portable C17, libc only: the constants are the kernel's ABI values,
 * defined here (guarded, in case <linux/filter.h> or <net/bpf.h> came
 * first) so this header builds on macOS and Windows too. */
#ifndef HEEL_RUNTIME_BPF_SIM_H
#define HEEL_RUNTIME_BPF_SIM_H

#include <stddef.h>
#include <stdint.h>

/* struct sock_filter: same size and layout, so a program can be handed to
 * seccomp(2) as it is. */
struct bpf_sim_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};
_Static_assert(sizeof(struct bpf_sim_insn) == 8, "sock_filter layout");

/* struct seccomp_data. The args are native-endian u64; on the little-endian
 * architectures heel targets the low word of args[i] is at 16 + 8 * i and
 * the high word at 20 + 8 * i. */
struct bpf_sim_data {
	uint32_t nr;
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t args[6];
};
_Static_assert(sizeof(struct bpf_sim_data) == 64, "seccomp_data layout");

#define BPF_SIM_DATA_NR 0u
#define BPF_SIM_DATA_ARCH 4u
#define BPF_SIM_DATA_ARG_LO(i) (16u + 8u * (unsigned)(i))
#define BPF_SIM_DATA_ARG_HI(i) (20u + 8u * (unsigned)(i))

/* The kernel's limit on one filter (BPF_MAXINSNS) and on scratch memory. */
#define BPF_SIM_MAXINSNS 4096u
#define BPF_SIM_MEMWORDS 16u

/* Opcode fields (linux/bpf_common.h). */
#ifndef BPF_CLASS
#define BPF_CLASS(code) ((code) & 0x07)
#define BPF_LD 0x00
#define BPF_LDX 0x01
#define BPF_ST 0x02
#define BPF_STX 0x03
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_MISC 0x07
#endif
#ifndef BPF_SIZE
#define BPF_SIZE(code) ((code) & 0x18)
#define BPF_W 0x00
#define BPF_H 0x08
#define BPF_B 0x10
#endif
#ifndef BPF_MODE
#define BPF_MODE(code) ((code) & 0xe0)
#define BPF_IMM 0x00
#define BPF_ABS 0x20
#define BPF_IND 0x40
#define BPF_MEM 0x60
#define BPF_LEN 0x80
#define BPF_MSH 0xa0
#endif
#ifndef BPF_OP
#define BPF_OP(code) ((code) & 0xf0)
#define BPF_ADD 0x00
#define BPF_SUB 0x10
#define BPF_MUL 0x20
#define BPF_DIV 0x30
#define BPF_OR 0x40
#define BPF_AND 0x50
#define BPF_LSH 0x60
#define BPF_RSH 0x70
#define BPF_NEG 0x80
#define BPF_MOD 0x90
#define BPF_XOR 0xa0
#define BPF_JA 0x00
#define BPF_JEQ 0x10
#define BPF_JGT 0x20
#define BPF_JGE 0x30
#define BPF_JSET 0x40
#endif
#ifndef BPF_SRC
#define BPF_SRC(code) ((code) & 0x08)
#define BPF_K 0x00
#define BPF_X 0x08
#endif
#ifndef BPF_RVAL
#define BPF_RVAL(code) ((code) & 0x18)
#define BPF_A 0x10
#endif
#ifndef BPF_MISCOP
#define BPF_MISCOP(code) ((code) & 0xf8)
#define BPF_TAX 0x00
#define BPF_TXA 0x80
#endif

/* Return values (linux/seccomp.h); KILL_PROCESS needs Linux 4.14. */
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000u
#endif
#ifndef SECCOMP_RET_KILL_THREAD
#define SECCOMP_RET_KILL_THREAD 0x00000000u
#endif
#ifndef SECCOMP_RET_TRAP
#define SECCOMP_RET_TRAP 0x00030000u
#endif
#ifndef SECCOMP_RET_ERRNO
#define SECCOMP_RET_ERRNO 0x00050000u
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000u
#endif
#ifndef SECCOMP_RET_TRACE
#define SECCOMP_RET_TRACE 0x7ff00000u
#endif
#ifndef SECCOMP_RET_LOG
#define SECCOMP_RET_LOG 0x7ffc0000u
#endif
#ifndef SECCOMP_RET_ALLOW
#define SECCOMP_RET_ALLOW 0x7fff0000u
#endif
#ifndef SECCOMP_RET_ACTION_FULL
#define SECCOMP_RET_ACTION_FULL 0xffff0000u
#endif
#ifndef SECCOMP_RET_DATA
#define SECCOMP_RET_DATA 0x0000ffffu
#endif

#define BPF_SIM_AUDIT_ARCH_X86_64 0xc000003eu
#define BPF_SIM_AUDIT_ARCH_AARCH64 0xc00000b7u
#define BPF_SIM_AUDIT_ARCH_I386 0x40000003u

#define BPF_SIM_STMT(code, k) ((struct bpf_sim_insn){ (uint16_t)(code), 0, 0, (uint32_t)(k) })
#define BPF_SIM_JUMP(code, k, jt, jf) \
	((struct bpf_sim_insn){ (uint16_t)(code), (uint8_t)(jt), (uint8_t)(jf), (uint32_t)(k) })

struct bpf_sim_result {
	uint32_t action;        /* the RET value */
	uint32_t executed;      /* instructions executed, the RET included */
};

/* Runs `prog` (len instructions) over `data`. Returns 0 and fills `res`, or
 * -EINVAL for a program the kernel would refuse or that misbehaves at run
 * time: empty or longer than 4096, an unknown opcode, a load outside
 * seccomp_data or not 4-aligned, a jump past the end, falling off the end,
 * division by zero, a scratch slot out of range or read before written.
 * Never reads outside `prog` or `data`. */
int bpf_sim_run(const struct bpf_sim_insn *prog, size_t len,
		const struct bpf_sim_data *data, struct bpf_sim_result *res);

/* "ALLOW", "KILL_PROCESS", "ERRNO(1)"-style text for an action, written into
 * buf (always NUL-terminated); returns buf. */
const char *bpf_sim_action_name(uint32_t action, char *buf, size_t size);

#endif

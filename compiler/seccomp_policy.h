/* SPDX-License-Identifier: MIT
 * The seccomp policy model: from an ir_policy, the action heel intends for
 * every syscall number of one architecture, with the argument checks some
 * calls need. It is the reference the BPF generator is tested against (a
 * plain, linear evaluator: scp_eval) and what `heelc emit seccomp`
 * annotates. Nothing here knows about BPF layout.
 *
 * Syscall numbers come from tables generated at build time from the kernel
 * UAPI headers (compiler/gen_syscall_table.sh), never from libseccomp. */
#ifndef HEEL_COMPILER_SECCOMP_POLICY_H
#define HEEL_COMPILER_SECCOMP_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf_sim.h"

struct ir_policy;
struct ir_origin;

enum scp_arch { SCP_X86_64, SCP_AARCH64, SCP_ARCH_COUNT };

struct scp_syscall {
	const char *name;
	uint32_t nr;
};

/* Generated tables, sorted by number (build/gen/syscall_table_<arch>.c). */
extern const struct scp_syscall scp_table_x86_64[];
extern const size_t scp_table_x86_64_len;
extern const uint32_t scp_table_x86_64_audit_arch;
extern const struct scp_syscall scp_table_aarch64[];
extern const size_t scp_table_aarch64_len;
extern const uint32_t scp_table_aarch64_audit_arch;

const char *scp_arch_name(enum scp_arch arch);          /* "x86_64" */
uint32_t scp_audit_arch(enum scp_arch arch);            /* AUDIT_ARCH_* */
/* The table of `arch`; *len gets its length. */
const struct scp_syscall *scp_table(enum scp_arch arch, size_t *len);
/* Number of `name` on `arch`: 0, or -ENOENT when the arch lacks it. */
int scp_lookup(enum scp_arch arch, const char *name, uint32_t *nr);
/* Name of `nr` on `arch`, or NULL. */
const char *scp_name(enum scp_arch arch, uint32_t nr);
/* Highest syscall number in the table of `arch`. */
uint32_t scp_max_nr(enum scp_arch arch);
/* true for the calls no `seccomp allow` may remove: io_uring_*,
 * ptrace, process_vm_readv/writev, bpf, perf_event_open, kexec_*, module
 * loading. The foreign-ABI guard is not a name and is never adjustable. */
bool scp_never_allowable(const char *name);

/* Actions are seccomp return values (SECCOMP_RET_* | data). */
#define SCP_ALLOW SECCOMP_RET_ALLOW
#define SCP_KILL SECCOMP_RET_KILL_PROCESS
#define SCP_ERRNO(e) (SECCOMP_RET_ERRNO | ((uint32_t)(e) & SECCOMP_RET_DATA))

#define SCP_MAX_VALUES 4
#define SCP_MAX_CONDS 3
#define SCP_MAX_CLAUSES 4

/* One argument test: holds when ((arg & mask) is one of values) != negate.
 * width 32 compares only the low word, as the kernel does for an `int` or
 * `unsigned int` parameter (garbage in the upper half must neither bypass
 * nor trip a rule); width 64 compares both words. */
struct scp_cond {
	uint8_t arg;                 /* 0..5 */
	uint8_t width;               /* 32 or 64 */
	bool negate;
	uint8_t nvalues;             /* 1..SCP_MAX_VALUES */
	uint64_t mask;
	uint64_t values[SCP_MAX_VALUES];
};

/* All conditions hold -> action. */
struct scp_clause {
	uint8_t nconds;
	struct scp_cond conds[SCP_MAX_CONDS];
	uint32_t action;
	const char *why;             /* static text for emit, or NULL */
};

/* What one syscall gets: the first clause that holds decides, otherwise
 * `action`. nclauses == 0 is an unconditional action. */
struct scp_rule {
	uint32_t nr;
	const char *name;            /* from the table */
	uint8_t nclauses;
	struct scp_clause clauses[SCP_MAX_CLAUSES];
	uint32_t action;
	const char *why;             /* static text for emit: "always denied", ... */
	const struct ir_origin *origin; /* the policy line, or NULL for heel's own */
};

/* The whole intended filter of one architecture. Known syscalls without a
 * rule get `default_action` (ALLOW); numbers absent from the table get
 * `unknown_action` (ENOSYS: what a kernel without the call answers, so
 * libc falls back and a syscall newer than heelc cannot open a hole);
 * -1 (0xffffffff, "no syscall", what a tracer writes to skip one) is
 * allowed: the kernel answers ENOSYS itself and a skip keeps the tracer's
 * return value. On x86_64 other numbers with the x32 bit (0x40000000)
 * kill the process, as does any arch other than the table's. */
struct scp_model {
	enum scp_arch arch;
	uint32_t audit_arch;
	uint32_t default_action;
	uint32_t unknown_action;
	uint32_t badarch_action;
	struct scp_rule *rules;      /* sorted by nr, one per nr */
	size_t nrules;
};

/* Builds the model of `policy` (its Linux part) for `arch`. Returns 0 and a
 * model the caller frees with scp_free(), or -ENOMEM; -EPERM when a
 * `seccomp allow` names a never-allowable call; -ENOENT when a rule's name
 * is unknown on every architecture; -EINVAL for an errno above 4095, or
 * for a `seccomp deny "ioctl"` beside a Linux `ipc` command (its calls
 * could never reach the broker). sema reports these with locations
 * first; this is the backstop. */
int scp_build(const struct ir_policy *policy, enum scp_arch arch,
	      struct scp_model **out);
void scp_free(struct scp_model *model);

/* The rule for `nr`, or NULL. */
const struct scp_rule *scp_find(const struct scp_model *model, uint32_t nr);

/* true when `policy` declares an `ipc` command that applies on Linux:
 * its filter then answers a host command call (ioctl(-1,
 * HEEL_IPC_IOCTL)) with SECCOMP_RET_USER_NOTIF, else with EBADF. */
bool scp_has_ipc(const struct ir_policy *policy);

/* The action the model intends for one call: the linear reference. */
uint32_t scp_eval(const struct scp_model *model, const struct bpf_sim_data *data);

/* The action `rule` gives the call in `data`: its first clause whose
 * conditions all hold, else its own action. scp_eval's step for a call
 * with a rule, exposed for the generators. */
uint32_t scp_rule_eval(const struct scp_rule *rule, const struct bpf_sim_data *data);

#endif

/* SPDX-License-Identifier: MIT
 * The IR: the normalised, platform-neutral policy every backend reads.
 * sema builds it from the AST after all checks; the artifact writer
 * serialises it; explain renders it. Every rule keeps its origin.
 *
 * Platform scoping: statements inside `on linux|macos|windows` apply to
 * one platform, so every list element carries a platform mask and every
 * scalar is held once per platform. */
#ifndef HEEL_COMPILER_IR_H
#define HEEL_COMPILER_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ir_platform { IR_LINUX, IR_MACOS, IR_WINDOWS, IR_PLATFORM_COUNT };
#define IR_PLAT_BIT(p) (1u << (p))
#define IR_PLAT_ALL 0x7u

/* Where a rule came from. `file` is the origin name of its source (relative
 * to the top file's directory, or "<name>" for an embedded policy), owned by
 * the ir_policy's string pool. */
struct ir_origin {
	const char *file;
	uint32_t line;
	uint32_t col;
};

/* Access bits; write and exec imply read. mode 0 is a deny. */
enum ir_access { IR_READ = 1, IR_WRITE = 2, IR_EXEC = 4 };
#define IR_MODE_DENY 0u
#define IR_MODE_R (IR_READ)
#define IR_MODE_RW (IR_READ | IR_WRITE)
#define IR_MODE_RX (IR_READ | IR_EXEC)
#define IR_MODE_RWX (IR_READ | IR_WRITE | IR_EXEC)

enum ir_protect_set {
	IR_SET_USER_HOME,
	IR_SET_CREDENTIALS,
	IR_SET_CLOUD_CONFIG,
	IR_SET_BROWSER_DATA,
	IR_SET_KEYCHAINS,
	IR_SET_SHELL_HISTORY,
	IR_SET_PACKAGE_CREDENTIALS,
	IR_SET_SHARED_TEMP,
	IR_SET_HOST_RUN,	/* readonly statements, not denies */
	IR_SET_COUNT,
	IR_SET_NONE = 0xff
};

/* Who wrote a rule: the isolation base, a stock preset, a protection set
 * or the user's own files. explain groups by it. */
enum ir_rule_source { IR_SRC_BASE, IR_SRC_PRESET, IR_SRC_PROTECTION, IR_SRC_USER };

struct ir_path_rule {
	char *path;              /* template: may hold ${NAME}; relative = to launch dir */
	uint8_t mode;            /* IR_MODE_*; 0 = deny */
	uint8_t platforms;       /* IR_PLAT_BIT mask */
	bool optional;           /* missing at launch: skip (denies are always optional) */
	uint8_t set;             /* enum ir_protect_set or IR_SET_NONE */
	uint8_t source;          /* enum ir_rule_source */
	struct ir_origin origin;
};

/* `readonly`: a path the sandbox may not change even where a writable
 * place holds it (files the host runs: git hooks, shell rc files). It
 * grants nothing: it only takes write away where a writable grant or the
 * kept working directory would give it. */
struct ir_readonly {
	char *path;              /* each_writable: relative, no ${NAME}; else a template
				  * like a grant's (relative = to the launch directory) */
	char *because;           /* what runs it, for reviewers and heel-exec's warnings; NULL: not said */
	bool each_writable;      /* path is relative to every writable place */
	uint8_t platforms;
	uint8_t set;             /* enum ir_protect_set or IR_SET_NONE */
	uint8_t source;          /* enum ir_rule_source */
	struct ir_origin origin;
};

enum ir_network_kind { IR_NET_DENY, IR_NET_ALLOW_ALL, IR_NET_ALLOW_LIST };
enum ir_audit_kind { IR_AUDIT_NONE, IR_AUDIT_FILE, IR_AUDIT_DAILY };

struct ir_net_pattern {
	char *host;              /* lower-case, no trailing dot; "*.x" keeps the "*."; IPv6 without brackets */
	uint16_t port;           /* 0 = any */
	uint8_t platforms;
	struct ir_origin origin;
};

enum ir_limit {
	IR_LIMIT_MEMORY,     /* bytes */
	IR_LIMIT_CPU,        /* seconds (rounded up) */
	IR_LIMIT_PROCESSES,  /* count */
	IR_LIMIT_OPEN_FILES, /* count */
	IR_LIMIT_FILE_SIZE,  /* bytes */
	IR_LIMIT_STACK,      /* bytes */
	IR_LIMIT_CORE,       /* bytes, may be 0 */
	IR_LIMIT_COUNT
};

enum ir_isolation { IR_ISO_STRICT, IR_ISO_DEFAULT, IR_ISO_PERMISSIVE };
enum ir_io_priority { IR_IO_NONE, IR_IO_UTILITY, IR_IO_BACKGROUND };

/* A scalar setting as seen on one platform. */
struct ir_u64 {
	bool set;
	uint64_t value;
	struct ir_origin origin;
};
struct ir_str {
	char *value;             /* NULL when unset */
	struct ir_origin origin;
};

/* Everything that is one value per platform. */
struct ir_scalars {
	struct ir_u64 isolation;     /* enum ir_isolation; always set (default: default) */
	struct ir_u64 network;       /* enum ir_network_kind; always set (default: deny) */
	struct ir_u64 allow_private; /* bool */
	struct ir_u64 audit_kind;    /* enum ir_audit_kind */
	struct ir_str audit_path;    /* file or directory template */
	struct ir_u64 limits[IR_LIMIT_COUNT];
	struct ir_u64 nice;          /* 1..19; unset = unchanged */
	struct ir_u64 io_priority;   /* enum ir_io_priority */
	struct ir_u64 gpu;           /* bool: allowed */
	struct ir_str workdir;       /* NULL = fresh private directory */
	struct ir_u64 protections;   /* bit mask of enum ir_protect_set in force */
	struct ir_u64 unix_sockets;  /* linux: bool allowed */
};

struct ir_env_pass {
	char *name;
	uint8_t platforms;
	struct ir_origin origin;
};
struct ir_env_set {
	char *name;
	char *value;
	uint8_t platforms;
	struct ir_origin origin;
};

/* The type of an `arg` line: how the broker checks a caller's value
 * before the host command sees it. The values are the artifact's
 * (ART_IPC_ARG_*) and the broker's (enum ipc_arg_type). */
/* A host command without `timeout` is killed after this (heel(5), IPC). */
#define IR_IPC_DEFAULT_TIMEOUT_MS 60000u

enum ir_ipc_arg_type { IR_IPC_STRING, IR_IPC_INT, IR_IPC_BOOL, IR_IPC_PATH, IR_IPC_ARG_TYPE_COUNT };

struct ir_ipc_arg {
	char *name;
	uint8_t type;                /* enum ir_ipc_arg_type */
};

struct ir_ipc {
	char *name;
	char *exec;
	char **positionals;
	size_t npositionals;
	uint64_t timeout_ms;         /* 0 = not set: IR_IPC_DEFAULT_TIMEOUT_MS */
	uint8_t platforms;
	struct ir_origin origin;
	/* The `arg` lines, in declaration order. The names a command
	 * accepts are its positionals and these; a positional without an
	 * `arg` line is a string, and none is a bool. */
	struct ir_ipc_arg *args;
	size_t nargs;
};

struct ir_python {
	bool set;
	char *venv;                  /* path template */
	char **packages;
	size_t npackages;
	bool allow_pip_install;
	struct ir_origin origin;
};

/* network decide: the host program heel-proxy asks about each new
 * destination; one per platform, like a scalar. */
struct ir_decider {
	char *program;               /* path template; NULL = no decider */
	char **args;                 /* passed as written, never expanded */
	size_t nargs;
	struct ir_origin origin;
};

enum ir_seccomp_action { IR_SECCOMP_DENY, IR_SECCOMP_ALLOW };
struct ir_seccomp_rule {         /* linux only */
	char *syscall;
	uint8_t action;
	uint16_t errno_value;        /* deny: the errno returned (default EPERM) */
	struct ir_origin origin;
};

struct ir_named {                /* mach-lookup names, sbpl rules, capabilities */
	char *value;
	struct ir_origin origin;
};

struct ir_policy {
	struct ir_scalars scalar[IR_PLATFORM_COUNT];

	struct ir_path_rule *paths;  /* sorted by (path, platforms), deduplicated */
	size_t npaths;
	struct ir_readonly *readonly; /* sorted by (each_writable, path, platforms) */
	size_t nreadonly;
	struct ir_net_pattern *patterns; /* sorted, deduplicated */
	size_t npatterns;
	struct ir_env_pass *env_pass;
	size_t nenv_pass;
	struct ir_env_set *env_set;
	size_t nenv_set;
	struct ir_ipc *ipc;
	size_t nipc;
	struct ir_python python[IR_PLATFORM_COUNT];
	struct ir_decider decider[IR_PLATFORM_COUNT];

	struct ir_seccomp_rule *seccomp;  /* linux */
	size_t nseccomp;
	struct ir_named *mach_lookups;    /* macos */
	size_t nmach_lookups;
	struct ir_named *sbpl;            /* macos, raw */
	size_t nsbpl;
	struct ir_named *capabilities;    /* windows */
	size_t ncapabilities;

	/* Which platforms this policy can be built for; a platform left out
	 * (e.g. permissive on windows) has its reason here. */
	uint8_t platforms;
	char *excluded_reason[IR_PLATFORM_COUNT];

	uint8_t source_digest[32];   /* SHA-256 over the canonical (fmt) text of every source, in include order, not their names */
	/* The top source file as read (bytes, not canonical form), for a
	 * launcher to tell that the file beside an artifact has changed
	 * since: its base name (interned; NULL when compiled from memory
	 * with no file name), size and CRC-32C. */
	const char *source_name;
	uint64_t source_size;
	uint32_t source_crc;

	struct ir_pool *pool;        /* owns origin file names */
};

struct ir_policy *ir_policy_new(void);
void ir_policy_free(struct ir_policy *policy);

/* Interns a string in the policy's pool; NULL on out-of-memory. */
const char *ir_intern(struct ir_policy *policy, const char *s);

/* The isolation bases by enum ir_isolation, NULL-terminated: the names a
 * policy writes and the embedded base policies' names. */
extern const char *const ir_isolation_names[];
const char *ir_isolation_name(uint64_t iso);           /* "strict" */
const char *ir_set_name(enum ir_protect_set set);       /* "credentials" */
const char *ir_limit_name(enum ir_limit limit);         /* "open-files" */
const char *ir_platform_name(enum ir_platform p);       /* "linux" */
extern const char *const ir_ipc_arg_type_names[];       /* "string", "int", "bool", "path", NULL */
const char *ir_ipc_arg_type_name(unsigned type);        /* "?" when out of range */
const char *ir_mode_name(unsigned mode);                /* "r", "rw", "rx", "rwx", "deny" */

#endif

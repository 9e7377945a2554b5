/* SPDX-License-Identifier: MIT
 * The on-disk layout of a compiled policy (.hpol), format HEEL 1.4: one
 * header, one section table, sections. Everything is little-endian,
 * fixed-width and pointer-free; docs/artifact.md describes it byte by
 * byte. The structs below document the layout and pin it with
 * static_assert; code never casts a buffer to them (the buffer may be
 * unaligned and the host big-endian), it reads and writes each field at
 * its offsetof() with the le_get and le_put helpers (le.h). Shared by heelc
 * (writer) and every launcher (reader). */
#ifndef HEEL_RUNTIME_ARTIFACT_H
#define HEEL_RUNTIME_ARTIFACT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "le.h"

/* PNG-style magic, 8 bytes: the high byte catches 7-bit transfers, CR LF
 * catches CR LF -> LF conversion, ^Z stops a DOS `type`. It is PNG's
 * signature with HEEL for PNG; four letters leave no room for PNG's final
 * LF, so LF -> CR LF damage is left to file_size and the checksums. */
#define ART_MAGIC "\x89HEEL\r\n\x1a"
#define ART_MAGIC_LEN 8

/* A reader refuses another major version; it accepts a higher minor. A
 * minor version may only add non-critical sections, critical sections an
 * older reader then refuses (1.1: DECIDER; 1.2: READONLY; 1.3: IPC_ARGS; 1.4 adds
 * the non-critical SBPL_TEXT and SBPL_PARAMS), and append fields
 * to records (record_size grows; older readers ignore the tail; 1.2: META
 * names the top source file). It never gives meaning to a reserved field:
 * 1.x readers refuse those unless 0. */
#define ART_FMT_MAJOR 1
#define ART_FMT_MINOR 4

#define ART_HEADER_SIZE 64
#define ART_SECTION_ENTRY_SIZE 32
#define ART_MAX_SECTIONS 64
#define ART_ALIGN 8
#define ART_MIN_FILE_SIZE ART_HEADER_SIZE
#define ART_MAX_FILE_SIZE (16u * 1024u * 1024u)

/* header.platform: which platform(s) the artifact is for. heelc writes
 * one artifact holding every platform's part, hence NEUTRAL. */
enum art_file_platform {
	ART_FILE_PLATFORM_NEUTRAL = 0,
	ART_FILE_PLATFORM_LINUX = 1,
	ART_FILE_PLATFORM_MACOS = 2,
	ART_FILE_PLATFORM_WINDOWS = 3,
};

/* header.flags: no flag is defined in 1.0. A reader refuses bits it does
 * not know, since a flag may change how the policy must be applied. */
#define ART_HDR_FLAGS_KNOWN 0u

struct art_file_header {
	uint8_t magic[8];
	uint16_t fmt_major;
	uint16_t fmt_minor;
	uint16_t header_size;	    /* >= 64, multiple of 8; 64 in 1.0 */
	uint16_t section_count;	    /* <= 64 */
	uint32_t platform;	    /* enum art_file_platform */
	uint32_t arch;		    /* AUDIT_ARCH of a single-arch artifact; 0 = neutral */
	uint32_t flags;		    /* ART_HDR_FLAGS_KNOWN */
	uint32_t min_landlock_abi;  /* the LINUX_LANDLOCK table's min_abi; 0 without one */
	uint64_t file_size;	    /* must equal the number of bytes read */
	uint64_t section_table_off; /* 8-aligned, >= header_size */
	uint32_t header_crc;	    /* CRC-32C of [0, header_size) with this field zero */
	uint32_t body_crc;	    /* CRC-32C of [header_size, file_size) */
	uint64_t reserved;	    /* 0 */
};
static_assert(sizeof(struct art_file_header) == ART_HEADER_SIZE, "header is 64 bytes");
static_assert(offsetof(struct art_file_header, fmt_major) == 8, "layout");
static_assert(offsetof(struct art_file_header, fmt_minor) == 10, "layout");
static_assert(offsetof(struct art_file_header, header_size) == 12, "layout");
static_assert(offsetof(struct art_file_header, section_count) == 14, "layout");
static_assert(offsetof(struct art_file_header, platform) == 16, "layout");
static_assert(offsetof(struct art_file_header, arch) == 20, "layout");
static_assert(offsetof(struct art_file_header, flags) == 24, "layout");
static_assert(offsetof(struct art_file_header, min_landlock_abi) == 28, "layout");
static_assert(offsetof(struct art_file_header, file_size) == 32, "layout");
static_assert(offsetof(struct art_file_header, section_table_off) == 40, "layout");
static_assert(offsetof(struct art_file_header, header_crc) == 48, "layout");
static_assert(offsetof(struct art_file_header, body_crc) == 52, "layout");
static_assert(offsetof(struct art_file_header, reserved) == 56, "layout");

/* Section flags. A reader that does not know a section's type refuses the
 * artifact when CRITICAL is set (ignoring it could weaken the sandbox) and
 * skips the section otherwise. PER_ARCH marks a type that appears once per
 * architecture (SECCOMP_BPF) instead of once per file; it is part of the
 * type's fixed flags, so a reader refuses it on any other type. */
#define ART_SECF_CRITICAL 0x1u
#define ART_SECF_PER_ARCH 0x2u

struct art_file_section {
	uint32_t type;	   /* enum art_section_type */
	uint32_t flags;	   /* ART_SECF_* */
	uint64_t offset;   /* from the start of the file, 8-aligned */
	uint64_t size;	   /* payload bytes (padding to the next section excluded) */
	uint32_t crc;	   /* CRC-32C of the payload */
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct art_file_section) == ART_SECTION_ENTRY_SIZE,
	      "section entry is 32 bytes");
static_assert(offsetof(struct art_file_section, flags) == 4, "layout");
static_assert(offsetof(struct art_file_section, offset) == 8, "layout");
static_assert(offsetof(struct art_file_section, size) == 16, "layout");
static_assert(offsetof(struct art_file_section, crc) == 24, "layout");
static_assert(offsetof(struct art_file_section, reserved) == 28, "layout");

/* Section types. 1..15 are the common part, 16.. the platform parts:
 * 16-31 Linux, 32-47 macOS, 48-63 Windows. A reserved type is unknown to
 * a reader, which refuses it when it is marked critical. */
enum art_section_type {
	ART_SEC_STRTAB = 1,  /* critical: NUL-terminated strings */
	ART_SEC_SCALARS = 2, /* critical: limits and every per-platform scalar */
	ART_SEC_PATHS = 3,   /* critical: path rules */
	ART_SEC_ENV = 4,     /* critical: env pass / env set */
	ART_SEC_NETWORK = 5, /* critical: host patterns */
	ART_SEC_IPC = 6,     /* critical: ipc commands + their positionals */
	ART_SEC_PYTHON = 7,  /* critical: python block per platform + packages */
	ART_SEC_EXTRAS = 8,  /* critical: seccomp adjustments, mach lookups, raw sbpl,
			      * capabilities, excluded-platform reasons */
	ART_SEC_META = 9,    /* non-critical: compiler version, source digest, top source file */
	ART_SEC_DECIDER = 10, /* critical, only when a platform has one (1.1): the
			       * `network decide` program per platform + arguments */
	ART_SEC_READONLY = 11, /* critical, only when there is one (1.2): `readonly`
				* paths, kept read-only inside writable places */
	ART_SEC_IPC_ARGS = 12, /* critical, only when a command has one (1.3): the
				* typed `arg` lines of ipc commands */
	ART_SEC_COMMON_MAX = ART_SEC_IPC_ARGS,

	ART_SEC_LINUX_LANDLOCK = 16, /* critical: Landlock rule table (runtime/landlock_table.h) */
	ART_SEC_SECCOMP_BPF = 17,    /* critical, per arch: one cBPF program per architecture */

	/* macOS (1.4), non-critical: a Linux launcher may skip them; the
	 * macOS launcher refuses an artifact built for macos without them. */
	ART_SEC_SBPL_TEXT = 32,	  /* the SBPL profile, UTF-8, no NUL (docs/sbpl.md) */
	ART_SEC_SBPL_PARAMS = 33, /* its parameters: struct art_rec_sbpl_param */

	/* 1.4, non-critical, present exactly when the policy is built for
	 * windows: a Linux or macOS launcher skips them, and heel-exec.exe
	 * refuses an artifact without them (runtime/win_manifest.h). */
	ART_SEC_WIN_CONTAINER = 48, /* the AppContainer and the job's limits */
	ART_SEC_WIN_ACES = 49,	    /* one ACE entry per path */
	ART_SEC_KNOWN_MAX = ART_SEC_WIN_ACES,
};

/* A string reference: byte offset of a string's first byte in STRTAB. */
#define ART_STR_NONE 0xffffffffu

/* Platforms inside the policy; values and mask bits equal the IR's
 * (enum ir_platform, IR_PLAT_BIT), which the compiler asserts. */
enum art_platform { ART_LINUX, ART_MACOS, ART_WINDOWS, ART_PLATFORM_COUNT };
#define ART_PLAT_BIT(p) (1u << (p))
#define ART_PLAT_ALL 0x7u

/* Where a rule came from: file is a string (ART_STR_NONE: no file). */
struct art_rec_origin {
	uint32_t file;
	uint32_t line;
	uint32_t col;
};
static_assert(sizeof(struct art_rec_origin) == 12, "origin is 12 bytes");

/* Every table section (all but STRTAB and META) starts with this. The
 * payload is exactly: table header, count records of record_size bytes,
 * then nitems 4-byte string references (IPC positionals, PYTHON packages)
 * or nothing (nitems is the items per record for SCALARS, 0 elsewhere).
 * record_size may exceed the 1.0 record size in a later minor version;
 * the extra trailing bytes are ignored. */
struct art_rec_table {
	uint32_t count;
	uint32_t record_size;
	uint32_t nitems;
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct art_rec_table) == 16, "table header is 16 bytes");
#define ART_ITEM_SIZE 4

/* SCALARS: one record per platform (count == 3, each platform once), each
 * a platform header then nitems (>= ART_SC_COUNT) scalar items in the
 * order of enum art_scalar_id. */
enum art_scalar_id {
	ART_SC_ISOLATION,     /* 0 strict, 1 default, 2 permissive */
	ART_SC_NETWORK,	      /* 0 deny, 1 allow-all, 2 allow-list */
	ART_SC_ALLOW_PRIVATE, /* bool */
	ART_SC_AUDIT_KIND,    /* 0 none, 1 file, 2 daily */
	ART_SC_AUDIT_PATH,    /* string */
	ART_SC_LIMIT_MEMORY,  /* bytes */
	ART_SC_LIMIT_CPU,     /* seconds */
	ART_SC_LIMIT_PROCESSES,
	ART_SC_LIMIT_OPEN_FILES,
	ART_SC_LIMIT_FILE_SIZE, /* bytes */
	ART_SC_LIMIT_STACK,	/* bytes */
	ART_SC_LIMIT_CORE,	/* bytes */
	ART_SC_NICE,		/* 0..19 */
	ART_SC_IO_PRIORITY,	/* 0 none, 1 utility, 2 background */
	ART_SC_GPU,		/* bool */
	ART_SC_WORKDIR,		/* string */
	ART_SC_PROTECTIONS,	/* bit mask over enum art_protect_set */
	ART_SC_UNIX_SOCKETS,	/* bool */
	ART_SC_COUNT
};
#define ART_SC_LIMIT_FIRST ART_SC_LIMIT_MEMORY
#define ART_LIMIT_COUNT 7

struct art_rec_scalars {
	uint32_t platform; /* enum art_platform */
	uint32_t enabled;  /* 1: the policy can be built for this platform */
			   /* followed by nitems struct art_rec_scalar */
};
static_assert(sizeof(struct art_rec_scalars) == 8, "scalars record header is 8 bytes");

struct art_rec_scalar {
	uint64_t value; /* numeric scalars; 0 for strings */
	uint32_t str;	/* string scalars; ART_STR_NONE for numbers */
	uint32_t set;	/* 0 or 1; strings: 1 iff str != ART_STR_NONE */
	struct art_rec_origin origin;
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct art_rec_scalar) == 32, "scalar item is 32 bytes");
static_assert(offsetof(struct art_rec_scalar, str) == 8, "layout");
static_assert(offsetof(struct art_rec_scalar, set) == 12, "layout");
static_assert(offsetof(struct art_rec_scalar, origin) == 16, "layout");
static_assert(offsetof(struct art_rec_scalar, reserved) == 28, "layout");

/* Access bits of a path rule (equal to enum ir_access). */
#define ART_READ 1u
#define ART_WRITE 2u
#define ART_EXEC 4u

enum art_protect_set { ART_SET_HOST_RUN = 8, ART_SET_COUNT = 9, ART_SET_NONE = 0xff };
enum art_rule_source { ART_SRC_BASE, ART_SRC_PRESET, ART_SRC_PROTECTION, ART_SRC_USER };

/* PATHS: one record per rule, in the IR's order (sorted by path). */
struct art_rec_path {
	uint32_t path;	     /* string, required */
	uint8_t mode;	     /* 0 deny, 1 r, 3 rw, 5 rx, 7 rwx */
	uint8_t platforms;   /* non-empty mask within ART_PLAT_ALL */
	uint8_t optional;    /* 0 or 1 */
	uint8_t set;	     /* protection set < ART_SET_COUNT, or ART_SET_NONE */
	uint8_t source;	     /* enum art_rule_source */
	uint8_t reserved[3]; /* 0 */
	struct art_rec_origin origin;
};
static_assert(sizeof(struct art_rec_path) == 24, "path record is 24 bytes");
static_assert(offsetof(struct art_rec_path, mode) == 4, "layout");
static_assert(offsetof(struct art_rec_path, platforms) == 5, "layout");
static_assert(offsetof(struct art_rec_path, optional) == 6, "layout");
static_assert(offsetof(struct art_rec_path, set) == 7, "layout");
static_assert(offsetof(struct art_rec_path, source) == 8, "layout");
static_assert(offsetof(struct art_rec_path, reserved) == 9, "layout");
static_assert(offsetof(struct art_rec_path, origin) == 12, "layout");

/* ENV: `env pass` and `env set` statements, passes first. */
enum art_env_kind { ART_ENV_PASS = 1, ART_ENV_SET = 2 };
struct art_rec_env {
	uint32_t name;	/* string, required */
	uint32_t value; /* string for SET; ART_STR_NONE for PASS */
	uint8_t kind;	/* enum art_env_kind */
	uint8_t platforms;
	uint16_t reserved; /* 0 */
	struct art_rec_origin origin;
};
static_assert(sizeof(struct art_rec_env) == 24, "env record is 24 bytes");
static_assert(offsetof(struct art_rec_env, value) == 4, "layout");
static_assert(offsetof(struct art_rec_env, kind) == 8, "layout");
static_assert(offsetof(struct art_rec_env, platforms) == 9, "layout");
static_assert(offsetof(struct art_rec_env, reserved) == 10, "layout");
static_assert(offsetof(struct art_rec_env, origin) == 12, "layout");

/* NETWORK: allow-list host patterns. */
struct art_rec_net {
	uint32_t host; /* string, required */
	uint16_t port; /* 0 = any */
	uint8_t platforms;
	uint8_t reserved; /* 0 */
	struct art_rec_origin origin;
};
static_assert(sizeof(struct art_rec_net) == 20, "network record is 20 bytes");
static_assert(offsetof(struct art_rec_net, port) == 4, "layout");
static_assert(offsetof(struct art_rec_net, platforms) == 6, "layout");
static_assert(offsetof(struct art_rec_net, reserved) == 7, "layout");
static_assert(offsetof(struct art_rec_net, origin) == 8, "layout");

/* IPC: commands, then nitems string references holding every command's
 * positionals back to back: command i owns [first_arg, first_arg + nargs),
 * and first_arg is the sum of the earlier commands' nargs. */
struct art_rec_ipc {
	uint32_t name; /* string, required */
	uint32_t exec; /* string or ART_STR_NONE */
	uint32_t first_arg;
	uint32_t nargs;
	uint64_t timeout_ms; /* 0 = none */
	uint8_t platforms;
	uint8_t reserved[3]; /* 0 */
	struct art_rec_origin origin;
};
static_assert(sizeof(struct art_rec_ipc) == 40, "ipc record is 40 bytes");
static_assert(offsetof(struct art_rec_ipc, exec) == 4, "layout");
static_assert(offsetof(struct art_rec_ipc, first_arg) == 8, "layout");
static_assert(offsetof(struct art_rec_ipc, nargs) == 12, "layout");
static_assert(offsetof(struct art_rec_ipc, timeout_ms) == 16, "layout");
static_assert(offsetof(struct art_rec_ipc, platforms) == 24, "layout");
static_assert(offsetof(struct art_rec_ipc, reserved) == 25, "layout");
static_assert(offsetof(struct art_rec_ipc, origin) == 28, "layout");

/* PYTHON: one record per platform (count == 3, each platform once), then
 * nitems package strings, owned like IPC positionals. */
struct art_rec_python {
	uint32_t platform;	    /* enum art_platform */
	uint32_t set;		    /* 0 or 1 */
	uint32_t venv;		    /* string or ART_STR_NONE */
	uint32_t allow_pip_install; /* 0 or 1 */
	uint32_t first_package;
	uint32_t npackages;
	struct art_rec_origin origin;
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct art_rec_python) == 40, "python record is 40 bytes");
static_assert(offsetof(struct art_rec_python, set) == 4, "layout");
static_assert(offsetof(struct art_rec_python, venv) == 8, "layout");
static_assert(offsetof(struct art_rec_python, allow_pip_install) == 12, "layout");
static_assert(offsetof(struct art_rec_python, first_package) == 16, "layout");
static_assert(offsetof(struct art_rec_python, npackages) == 20, "layout");
static_assert(offsetof(struct art_rec_python, origin) == 24, "layout");
static_assert(offsetof(struct art_rec_python, reserved) == 36, "layout");

/* DECIDER (1.1): one record per platform (count == 3, each platform
 * once), then nitems argument strings, owned like IPC positionals. The
 * section is written only when some platform has a decider, and a
 * platform with one does not deny the network; a 1.0 reader refuses the
 * section (critical), so no launcher ignores a decider it cannot run. */
struct art_rec_decider {
	uint32_t platform; /* enum art_platform */
	uint32_t program;  /* string (path template), or ART_STR_NONE: none */
	uint32_t first_arg;
	uint32_t nargs; /* 0 when program is ART_STR_NONE */
	struct art_rec_origin origin;
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct art_rec_decider) == 32, "decider record is 32 bytes");
static_assert(offsetof(struct art_rec_decider, program) == 4, "layout");
static_assert(offsetof(struct art_rec_decider, first_arg) == 8, "layout");
static_assert(offsetof(struct art_rec_decider, nargs) == 12, "layout");
static_assert(offsetof(struct art_rec_decider, origin) == 16, "layout");
static_assert(offsetof(struct art_rec_decider, reserved) == 28, "layout");

/* READONLY (1.2): one record per `readonly` statement in force, in the
 * IR's order (paths first, then each-writable ones, each sorted). The
 * section is written only when there is one, so an artifact without
 * them stays readable by a 1.1 launcher; a 1.1 launcher refuses the
 * section (critical) rather than leave the host's hooks writable. */
enum art_readonly_form { ART_RO_PATH = 0, ART_RO_EACH_WRITABLE = 1 };
struct art_rec_readonly {
	uint32_t path;	   /* string, required: a template (PATH) or relative (EACH_WRITABLE) */
	uint32_t because;  /* string or ART_STR_NONE: what runs it */
	uint8_t form;	   /* enum art_readonly_form */
	uint8_t platforms; /* non-empty mask within ART_PLAT_ALL */
	uint8_t set;	   /* protection set < ART_SET_COUNT, or ART_SET_NONE */
	uint8_t source;	   /* enum art_rule_source */
	struct art_rec_origin origin;
	uint32_t reserved[2]; /* 0 */
};
static_assert(sizeof(struct art_rec_readonly) == 32, "readonly record is 32 bytes");
static_assert(offsetof(struct art_rec_readonly, because) == 4, "layout");
static_assert(offsetof(struct art_rec_readonly, form) == 8, "layout");
static_assert(offsetof(struct art_rec_readonly, platforms) == 9, "layout");
static_assert(offsetof(struct art_rec_readonly, set) == 10, "layout");
static_assert(offsetof(struct art_rec_readonly, source) == 11, "layout");
static_assert(offsetof(struct art_rec_readonly, origin) == 12, "layout");
static_assert(offsetof(struct art_rec_readonly, reserved) == 24, "layout");

/* IPC_ARGS (1.3): one record per `arg` line of an ipc command, grouped
 * by command in IPC order (command never decreases), each command's in
 * declaration order. The names a command accepts are its positionals
 * (IPC items) and these; a positional without a record is a string, and
 * none is a bool. Written only when some command has an `arg` line, so an
 * artifact without one stays readable by a 1.2 launcher; a 1.2 launcher
 * refuses the section (critical) rather than pass a `path` argument
 * unchecked as a string. Type values are enum ipc_arg_type's. */
enum art_ipc_arg_type {
	ART_IPC_ARG_STRING = 0,
	ART_IPC_ARG_INT = 1,
	ART_IPC_ARG_BOOL = 2,
	ART_IPC_ARG_PATH = 3,
	ART_IPC_ARG_TYPE_COUNT
};
/* Names a command accepts, positionals and `arg` lines each: enough for
 * any real command, and it bounds the reader's duplicate checks. */
#define ART_IPC_MAX_ARGS 256u
struct art_rec_ipc_arg {
	uint32_t command; /* index of the IPC record */
	uint32_t name;	  /* string, required: [a-z][a-z0-9_-]* */
	uint8_t type;	  /* enum art_ipc_arg_type */
	uint8_t reserved[7]; /* 0 */
};
static_assert(sizeof(struct art_rec_ipc_arg) == 16, "ipc argument record is 16 bytes");
static_assert(offsetof(struct art_rec_ipc_arg, name) == 4, "layout");
static_assert(offsetof(struct art_rec_ipc_arg, type) == 8, "layout");
static_assert(offsetof(struct art_rec_ipc_arg, reserved) == 9, "layout");

/* EXTRAS: platform-specific statements and excluded-platform reasons, in
 * kind order. `platforms` is the one platform the kind belongs to
 * (EXCLUDED: the one platform left out, at most one record each). */
enum art_extra_kind {
	ART_EXTRA_SECCOMP = 1,	   /* linux: value = syscall name */
	ART_EXTRA_MACH_LOOKUP = 2, /* macos: value = service name */
	ART_EXTRA_SBPL = 3,	   /* macos: value = raw SBPL rule */
	ART_EXTRA_CAPABILITY = 4,  /* windows: value = capability name */
	ART_EXTRA_EXCLUDED = 5,	   /* value = why the platform is left out */
	ART_EXTRA_KIND_MAX = ART_EXTRA_EXCLUDED
};
enum art_seccomp_action { ART_SECCOMP_DENY, ART_SECCOMP_ALLOW };
struct art_rec_extra {
	uint32_t kind;	      /* enum art_extra_kind */
	uint32_t value;	      /* string, required */
	uint8_t platforms;    /* exactly one bit */
	uint8_t action;	      /* SECCOMP: enum art_seccomp_action; else 0 */
	uint16_t errno_value; /* SECCOMP deny: errno returned; else 0 */
	struct art_rec_origin origin;
};
static_assert(sizeof(struct art_rec_extra) == 24, "extra record is 24 bytes");
static_assert(offsetof(struct art_rec_extra, value) == 4, "layout");
static_assert(offsetof(struct art_rec_extra, platforms) == 8, "layout");
static_assert(offsetof(struct art_rec_extra, action) == 9, "layout");
static_assert(offsetof(struct art_rec_extra, errno_value) == 10, "layout");
static_assert(offsetof(struct art_rec_extra, origin) == 12, "layout");

/* SECCOMP_BPF: one section per architecture, each this header followed by
 * insn_count instructions of 8 bytes (struct sock_filter: u16 code, u8 jt,
 * u8 jf, u32 k, little-endian). The payload is exactly 16 + 8 * insn_count
 * bytes; the program passes bpf_verify() for audit_arch. LINUX_LANDLOCK and
 * SECCOMP_BPF are present exactly when the policy is built for linux, then
 * with one program for each architecture below. */
#define ART_AUDIT_ARCH_X86_64 0xc000003eu  /* AUDIT_ARCH_X86_64 */
#define ART_AUDIT_ARCH_AARCH64 0xc00000b7u /* AUDIT_ARCH_AARCH64 */
#define ART_BPF_ARCH_COUNT 2
#define ART_BPF_INSN_SIZE 8
#define ART_BPF_MAX_INSNS 4096u /* the kernel's BPF_MAXINSNS */

struct art_bpf_header {
	uint32_t audit_arch;  /* ART_AUDIT_ARCH_* */
	uint32_t insn_count;  /* 1..ART_BPF_MAX_INSNS */
	uint32_t reserved[2]; /* 0 */
};
static_assert(sizeof(struct art_bpf_header) == 16, "seccomp program header is 16 bytes");
static_assert(offsetof(struct art_bpf_header, insn_count) == 4, "layout");
static_assert(offsetof(struct art_bpf_header, reserved) == 8, "layout");

struct art_bpf_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};
static_assert(sizeof(struct art_bpf_insn) == ART_BPF_INSN_SIZE, "instruction is 8 bytes");
static_assert(offsetof(struct art_bpf_insn, jt) == 2, "layout");
static_assert(offsetof(struct art_bpf_insn, jf) == 3, "layout");
static_assert(offsetof(struct art_bpf_insn, k) == 4, "layout");

/* SBPL_PARAMS (1.4): one record per `(param "NAME")` the SBPL_TEXT
 * profile uses, in the order of the profile. A path parameter's value is
 * the policy's path template (`${NAME}` and relative paths are expanded by
 * the launcher, then canonicalised with realpath); the working directory
 * and the proxy address are filled at launch. rank is the parameter's
 * rule's place in the profile (1 = first; the last matching rule wins):
 * after expansion the launcher refuses a rule whose path lies strictly
 * beneath that of a later rule of another mode, since the later, shallower
 * rule would then override it (docs/sbpl.md). Written with SBPL_TEXT
 * exactly when the policy is built for macos. */
enum art_sbpl_kind {
	ART_SBPL_KIND_PATH = 0,	   /* value: path template */
	ART_SBPL_KIND_WORKDIR = 1, /* value: "" (the working directory itself) */
	ART_SBPL_KIND_PROXY = 2,   /* value: "localhost:PORT", PORT filled at launch */
	ART_SBPL_KIND_COUNT
};
/* mode: what the parameter's rule does to its subtree. 0..7 are the
 * access bits of a grant (0 = deny); the others take one right away or
 * give the working directory's fixed rights. PROXY: 0. */
#define ART_SBPL_MODE_NOEXEC 0x10u   /* shared temp: never executable */
#define ART_SBPL_MODE_READONLY 0x20u /* `readonly`: never writable */
#define ART_SBPL_MODE_WORKDIR 0x40u  /* read, write, never executable */
/* The format's bound, not macOS's: sandbox_init_with_parameters() takes
 * a NULL-terminated list and is not known to limit its length. What
 * libsandbox is reported to refuse is size: a profile whose serialised
 * patterns pass 65535 bytes ("pattern serialization length N exceeds
 * maximum (65535)", "data object length N exceeds maximum (65535)"; Nix's
 * macOS builds met it with some 1600 store paths). Every path the
 * parameters name is among those patterns, so 4096 paths of any usual
 * length are past it already: a higher bound would only move the refusal
 * from heelc, at the grant that passes it (compiler/sema_limits.c), to
 * every launch on a Mac, unlocated. It also keeps the reader's pairwise
 * checks of names and ranks, and the launcher's order check, small. */
#define ART_SBPL_MAX_PARAMS 4096u
#define ART_SBPL_NAME_MAX 32u
struct art_rec_sbpl_param {
	uint32_t name;	    /* string, required: [A-Z][A-Z0-9_]*, unique, < 32 bytes */
	uint32_t value;	    /* string, required */
	uint8_t kind;	    /* enum art_sbpl_kind */
	uint8_t mode;	    /* see above */
	uint8_t optional;   /* 0 or 1: an unset ${NAME} or a missing path is not an error */
	uint8_t reserved0;  /* 0 */
	uint32_t rank;	    /* PATH, WORKDIR: 1..count, unique; PROXY: 0 */
	struct art_rec_origin origin;
	uint32_t reserved1; /* 0 */
};
static_assert(sizeof(struct art_rec_sbpl_param) == 32, "sbpl parameter record is 32 bytes");
static_assert(offsetof(struct art_rec_sbpl_param, value) == 4, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, kind) == 8, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, mode) == 9, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, optional) == 10, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, reserved0) == 11, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, rank) == 12, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, origin) == 16, "layout");
static_assert(offsetof(struct art_rec_sbpl_param, reserved1) == 28, "layout");

/* WIN_CONTAINER (1.4): exactly one record, then nitems capability SID
 * strings. The name is `heel.p.` and 16 lower-case hex digits; the SID
 * is the one Windows derives from it (docs/acl-manifest.md). */
#define ART_WIN_CF_LPAC 0x1u	     /* less privileged AppContainer */
#define ART_WIN_CF_LOOPBACK 0x2u     /* needs the loopback exemption (a proxy) */
#define ART_WIN_CF_KNOWN 0x3u
#define ART_WIN_PRIO_MAX 2u	     /* enum win_priority */
#define ART_WIN_MAX_CAPABILITIES 64u /* bounds the reader's work; Windows takes fewer */
struct art_rec_win_container {
	uint32_t name;		       /* string, required */
	uint32_t sid;		       /* string, required: S-1-15-2-N (7 N) */
	uint32_t flags;		       /* ART_WIN_CF_* */
	uint8_t priority_class;	       /* enum win_priority */
	uint8_t reserved[3];	       /* 0 */
	uint64_t job_memory_bytes;     /* 0 = none */
	uint64_t process_memory_bytes; /* 0 = none */
	uint32_t active_processes;     /* 0 = none */
	uint32_t cpu_rate_percent;     /* 0 = none, else 1..100 */
};
static_assert(sizeof(struct art_rec_win_container) == 40, "container record is 40 bytes");
static_assert(offsetof(struct art_rec_win_container, sid) == 4, "layout");
static_assert(offsetof(struct art_rec_win_container, flags) == 8, "layout");
static_assert(offsetof(struct art_rec_win_container, priority_class) == 12, "layout");
static_assert(offsetof(struct art_rec_win_container, reserved) == 13, "layout");
static_assert(offsetof(struct art_rec_win_container, job_memory_bytes) == 16, "layout");
static_assert(offsetof(struct art_rec_win_container, process_memory_bytes) == 24, "layout");
static_assert(offsetof(struct art_rec_win_container, active_processes) == 32, "layout");
static_assert(offsetof(struct art_rec_win_container, cpu_rate_percent) == 36, "layout");

/* WIN_ACES (1.4): one record per ACE entry, in application order. Values
 * are runtime/win_manifest.h's (masks as in winnt.h). */
#define ART_WIN_MAX_ACES 65536u
struct art_rec_win_ace {
	uint32_t path;	    /* string, required: an absolute template */
	uint32_t mask;	    /* access mask, never 0 */
	uint8_t ace;	    /* enum win_ace_type */
	uint8_t kind;	    /* enum win_path_kind */
	uint8_t inherit;    /* WIN_INHERIT_* */
	uint8_t label;	    /* enum win_label */
	uint8_t missing;    /* enum win_missing */
	uint8_t parent_deny_delete_child; /* 0 or 1 */
	uint8_t reserved[2];		  /* 0 */
	struct art_rec_origin origin;
	uint32_t reserved2; /* 0 */
};
static_assert(sizeof(struct art_rec_win_ace) == 32, "ACE record is 32 bytes");
static_assert(offsetof(struct art_rec_win_ace, mask) == 4, "layout");
static_assert(offsetof(struct art_rec_win_ace, ace) == 8, "layout");
static_assert(offsetof(struct art_rec_win_ace, kind) == 9, "layout");
static_assert(offsetof(struct art_rec_win_ace, inherit) == 10, "layout");
static_assert(offsetof(struct art_rec_win_ace, label) == 11, "layout");
static_assert(offsetof(struct art_rec_win_ace, missing) == 12, "layout");
static_assert(offsetof(struct art_rec_win_ace, parent_deny_delete_child) == 13, "layout");
static_assert(offsetof(struct art_rec_win_ace, reserved) == 14, "layout");
static_assert(offsetof(struct art_rec_win_ace, origin) == 16, "layout");
static_assert(offsetof(struct art_rec_win_ace, reserved2) == 28, "layout");

/* META: not a table; a 1.0 META is 40 bytes, 1.2 appends the top source
 * file (a later minor may append more; readers ignore the tail). */
struct art_rec_meta {
	uint32_t compiler_version; /* string, required */
	uint32_t reserved;	   /* 0 */
	uint8_t source_digest[32]; /* SHA-256 of the canonical source text */
	/* 1.2: the top source file as heelc read it, so that a launcher can
	 * tell an artifact whose source beside it has changed since. */
	uint32_t source_name;	   /* string (a base name) or NONE */
	uint32_t source_crc;	   /* CRC-32C of its bytes; 0 with NONE */
	uint64_t source_size;	   /* its size in bytes; 0 with NONE */
};
#define ART_META_SIZE_1_0 40u
static_assert(sizeof(struct art_rec_meta) == 56, "meta is 56 bytes");
static_assert(offsetof(struct art_rec_meta, source_digest) == 8, "layout");
static_assert(offsetof(struct art_rec_meta, source_name) == ART_META_SIZE_1_0, "layout");
static_assert(offsetof(struct art_rec_meta, source_crc) == 44, "layout");
static_assert(offsetof(struct art_rec_meta, source_size) == 48, "layout");

/* The largest source META may name: heelc reads nothing larger, and
 * heel-exec reads no more than this of the file beside an artifact. */
#define ART_MAX_SOURCE_SIZE (16u * 1024u * 1024u)

#endif

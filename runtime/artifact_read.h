/* SPDX-License-Identifier: MIT
 * Reading a compiled policy (.hpol): open it safely, check every byte of
 * it once, then read it through typed accessors that cannot fail and never
 * allocate. Portable C17 + POSIX, libc only: every launcher links it. */
#ifndef HEEL_RUNTIME_ARTIFACT_READ_H
#define HEEL_RUNTIME_ARTIFACT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact.h"
#include "bpf_sim.h"

/* Opens `path` without following a final symbolic link, checks that it is
 * a regular file of ART_MIN_FILE_SIZE..ART_MAX_FILE_SIZE bytes, owned by
 * root or the real uid and not writable by group or others, and reads it
 * whole, once. On success *buf (caller frees with free()) and *len are set
 * and 0 is returned; otherwise -errno and a one-line message in err. */
int art_read_file(const char *path, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* The same for an artifact handed over as the open descriptor `fd` (a
 * memfd, or a regular file), named `name` in messages: a regular file of
 * the same sizes, owned by root or the real uid and, when a name reaches
 * it (st_nlink > 0), not writable by group or others; read whole from
 * offset 0 with pread. The caller closes fd. 0 or -errno and a message. */
int art_read_fd(int fd, const char *name, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* One known section of a validated artifact. */
struct art_span {
	const uint8_t *data; /* payload; NULL when the section is absent */
	size_t size;
	uint32_t count;	      /* table sections: records */
	uint32_t record_size; /* table sections: bytes per record */
	uint32_t nitems;      /* table sections: trailing items (see artifact.h) */
	const uint8_t *items; /* table sections: first trailing item */
};

/* One architecture's seccomp program in a validated artifact. */
struct art_bpf {
	uint32_t audit_arch;  /* ART_AUDIT_ARCH_* */
	uint32_t len;	      /* instructions, 1..ART_BPF_MAX_INSNS */
	const uint8_t *insns; /* len * ART_BPF_INSN_SIZE bytes, little-endian */
};

/* What art_validate() found. Points into the caller's buffer, which must
 * outlive it. Read it with the accessors below. */
struct art_view {
	const uint8_t *buf;
	size_t len;
	uint16_t fmt_major, fmt_minor;
	uint32_t platform; /* enum art_file_platform */
	uint32_t nsections;
	uint32_t nskipped;			    /* unknown non-critical sections skipped */
	/* By enum art_section_type; SECCOMP_BPF, which appears once per
	 * architecture, is in bpf[] instead. */
	struct art_span sec[ART_SEC_KNOWN_MAX + 1];
	const uint8_t *scalars[ART_PLATFORM_COUNT]; /* each platform's record */
	const uint8_t *python[ART_PLATFORM_COUNT];
	const uint8_t *decider[ART_PLATFORM_COUNT]; /* NULL: no DECIDER section */
	uint32_t min_landlock_abi;		/* header field, checked against the table */
	struct art_bpf bpf[ART_BPF_ARCH_COUNT]; /* in file order */
	uint32_t nbpf;
};

/* Checks buf[0..len) completely (header, checksums, section table, the
 * structure of every known section), reading nothing outside it whatever
 * it holds, and stops at the first failure. Returns 0 and fills *view, or
 * -EINVAL with a one-line message in err (err may be NULL). */
int art_validate(const uint8_t *buf, size_t len, struct art_view *view, char *err, size_t errlen);

/* The value header.header_crc must hold for the header_size bytes at buf:
 * CRC-32C with the field itself taken as zero. The writer seals with it so
 * that both sides share one definition. */
uint32_t art_header_crc(const uint8_t *buf, size_t header_size);

/* Name of a known section type ("PATHS"), or NULL. */
const char *art_section_name(uint32_t type);

/* ---- accessors: only on a view art_validate() accepted. Strings point
 * into the buffer (NUL-terminated); NULL means "none". Index accessors
 * return 0, or -ERANGE for an index past the end. */

struct art_origin {
	const char *file; /* NULL: no file (built in) */
	uint32_t line;
	uint32_t col;
};

struct art_scalar {
	bool set;
	uint64_t value;	 /* numeric scalars */
	const char *str; /* string scalars (audit path, workdir) */
	struct art_origin origin;
};

struct art_path {
	const char *path;
	uint8_t mode;	   /* ART_READ | ART_WRITE | ART_EXEC; 0 = deny */
	uint8_t platforms; /* ART_PLAT_BIT mask */
	bool optional;
	uint8_t set;	/* protection set or ART_SET_NONE */
	uint8_t source; /* enum art_rule_source */
	struct art_origin origin;
};

struct art_env {
	uint8_t kind; /* enum art_env_kind */
	uint8_t platforms;
	const char *name;
	const char *value; /* NULL for ART_ENV_PASS */
	struct art_origin origin;
};

struct art_net {
	const char *host;
	uint16_t port; /* 0 = any */
	uint8_t platforms;
	struct art_origin origin;
};

struct art_ipc {
	const char *name;
	const char *exec; /* may be NULL */
	uint32_t nargs;	  /* read them with art_ipc_arg() */
	uint64_t timeout_ms;
	uint8_t platforms;
	struct art_origin origin;
	uint32_t first_arg; /* internal to art_ipc_arg() */
	uint32_t first_typed, ntyped; /* internal to art_ipc_typed_*() */
};

struct art_python {
	bool set;
	const char *venv; /* may be NULL */
	bool allow_pip_install;
	uint32_t npackages; /* read them with art_python_package() */
	struct art_origin origin;
	uint32_t first_package; /* internal to art_python_package() */
};

/* The `network decide` program of one platform: heel-proxy runs it as
 * program, then art_decider_arg(0 .. nargs-1), on the host. */
struct art_decider {
	const char *program; /* path template; NULL: no decider on this platform */
	uint32_t nargs;	     /* read them with art_decider_arg() */
	struct art_origin origin;
	uint32_t first_arg; /* internal to art_decider_arg() */
};

/* A path kept read-only inside writable places (`readonly`). */
struct art_readonly {
	const char *path;    /* each_writable: relative to every writable place;
			      * else a template like a grant's */
	const char *because; /* what runs it; NULL when the policy does not say */
	bool each_writable;
	uint8_t platforms;
	uint8_t set;	     /* protection set or ART_SET_NONE */
	uint8_t source;	     /* enum art_rule_source */
	struct art_origin origin;
};

struct art_extra {
	uint32_t kind; /* enum art_extra_kind */
	const char *value;
	uint8_t platforms;
	uint8_t action; /* ART_EXTRA_SECCOMP: enum art_seccomp_action */
	uint16_t errno_value;
	struct art_origin origin;
};

struct art_meta {
	const char *compiler_version;
	const uint8_t *source_digest; /* 32 bytes */
	/* 1.2: the top source file heelc compiled; NULL (and 0, 0) when the
	 * artifact does not name one (an older heelc, or a policy compiled
	 * from memory). */
	const char *source_name;      /* a base name, no '/' */
	uint32_t source_crc;          /* CRC-32C of its bytes */
	uint64_t source_size;
};

/* True when the policy can be built for `platform` (enum art_platform). */
bool art_platform_enabled(const struct art_view *view, unsigned platform);

/* Scalar `id` (enum art_scalar_id) as seen on `platform`. */
int art_scalar(const struct art_view *view, unsigned platform, unsigned id, struct art_scalar *out);

size_t art_path_count(const struct art_view *view);
int art_path_at(const struct art_view *view, size_t i, struct art_path *out);

size_t art_env_count(const struct art_view *view);
int art_env_at(const struct art_view *view, size_t i, struct art_env *out);

size_t art_net_count(const struct art_view *view);
int art_net_at(const struct art_view *view, size_t i, struct art_net *out);

size_t art_ipc_count(const struct art_view *view);
int art_ipc_at(const struct art_view *view, size_t i, struct art_ipc *out);
/* Positional j of a command art_ipc_at() returned; NULL past the end. */
const char *art_ipc_arg(const struct art_view *view, const struct art_ipc *ipc, size_t j);
/* The typed `arg` lines of a command art_ipc_at() returned, in
 * declaration order (0 without an IPC_ARGS section). The names the
 * command accepts are its positionals (art_ipc_arg) and these; a
 * positional without a line here is a string. *type is enum
 * art_ipc_arg_type (0 string, 1 int, 2 bool, 3 path: enum
 * ipc_arg_type's order). art_ipc_typed_at returns 0, or -ENOENT for j
 * past the end. */
size_t art_ipc_typed_count(const struct art_view *v, const struct art_ipc *c);
int art_ipc_typed_at(const struct art_view *v, const struct art_ipc *c, size_t j, const char **name,
		     unsigned *type);

int art_python(const struct art_view *view, unsigned platform, struct art_python *out);
const char *art_python_package(const struct art_view *view, const struct art_python *py, size_t j);

/* The decider of `platform` (enum art_platform): 0 with out->program NULL
 * when it has none (the artifact may have no DECIDER section at all), or
 * -ERANGE for an unknown platform. */
int art_network_decider(const struct art_view *view, unsigned platform, struct art_decider *out);
/* Argument j of a decider art_network_decider() returned; NULL past the
 * end. */
const char *art_decider_arg(const struct art_view *view, const struct art_decider *d, size_t j);

/* The `readonly` paths (0 when the artifact has no READONLY section). */
size_t art_readonly_count(const struct art_view *view);
int art_readonly_at(const struct art_view *view, size_t i, struct art_readonly *out);

size_t art_extra_count(const struct art_view *view);
int art_extra_at(const struct art_view *view, size_t i, struct art_extra *out);

/* Returns false when the artifact has no META section (it is optional). */
bool art_meta(const struct art_view *view, struct art_meta *out);

/* The LINUX_LANDLOCK payload (runtime/landlock_table.h; validation has run
 * ll_table_parse() on it, so parsing it again cannot fail). 0, or -ENOENT
 * when the policy is not built for linux. */
int art_landlock(const struct art_view *view, const uint8_t **payload, size_t *len);

/* The seccomp program for `audit_arch`: 0, or -ENOENT when the artifact
 * has none for it. The program passed bpf_verify() for that arch. */
int art_seccomp(const struct art_view *view, uint32_t audit_arch, struct art_bpf *out);

/* Decodes prog->len instructions into out[] in host byte order (the
 * layout of struct sock_filter, ready for seccomp(2)). */
void art_bpf_decode(const struct art_bpf *prog, struct bpf_sim_insn *out);

#endif

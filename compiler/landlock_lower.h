/* SPDX-License-Identifier: MIT
 * The Landlock backend of heelc: lowers the IR's path rules (those whose
 * platforms include linux) to a Landlock table, encodes it as the payload
 * of the artifact's LINUX_LANDLOCK section (runtime/landlock_table.h),
 * and renders a table as text for `heelc emit landlock`.
 * docs/landlock.md is the specification. */
#ifndef HEEL_COMPILER_LANDLOCK_LOWER_H
#define HEEL_COMPILER_LANDLOCK_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "landlock_table.h"

/* Rights of an `r` grant, what `w` adds, what `x` adds. Write never
 * includes MAKE_CHAR/MAKE_BLOCK (a device node is a way out of any
 * sandbox) and read never includes EXECUTE. */
#define LL_ACCESS_READ (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_ACCESS_WRITE (LL_FS_WRITE_FILE | LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR | \
			 LL_FS_MAKE_REG | LL_FS_MAKE_DIR | LL_FS_MAKE_SYM | LL_FS_MAKE_FIFO | \
			 LL_FS_MAKE_SOCK | LL_FS_TRUNCATE | LL_FS_REFER | LL_FS_RESOLVE_UNIX)
#define LL_ACCESS_EXEC (LL_FS_EXECUTE)

/* What heel governs: every filesystem right up to ABI 9 (the device-node
 * rights too, so that they are denied), TCP and UDP bind and connect
 * (UDP: ABI 10), both scopes. RESOLVE_UNIX (ABI 9) goes with write: a
 * pathname unix socket the sandbox did not create is reachable only
 * where a grant lets it write (`allow unix-sockets` lets it create
 * sockets, not reach the host's). Where a kernel lacks a right, another
 * wall of the launch holds it or heel-exec refuses (docs/landlock.md). */
#define LL_HANDLED_FS ((1ull << 17) - 1)
#define LL_HANDLED_NET (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP | LL_NET_BIND_UDP | \
			LL_NET_CONNECT_SEND_UDP)
#define LL_HANDLED_SCOPES (LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL)

struct ll_rule {
	uint32_t kind;           /* enum ll_rule_kind */
	uint32_t flags;          /* LL_RF_* */
	uint32_t min_abi;
	uint64_t access;
	char *path;              /* owned */
	char *origin_file;       /* owned; NULL when unknown */
	uint32_t origin_line;
};

struct ll_table {
	uint32_t min_abi;
	uint32_t flags;          /* LL_TF_* */
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
	struct ll_rule *rules;   /* any order; encoded sorted by path, one rule a path */
	size_t nrules;
};

/* Landlock rights of an IR mode (IR_MODE_*) for a path; `device` adds
 * IOCTL_DEV. A deny (mode 0) is 0. */
uint64_t ll_mode_access(unsigned mode, bool device);

/* True when `path` (a template) is /dev or beneath it. */
bool ll_path_is_device(const char *path);

/* Builds the table for `policy`. Caller frees with ll_table_free().
 * Returns 0 or -ENOMEM. */
int ll_lower(const struct ir_policy *policy, struct ll_table **out);
void ll_table_free(struct ll_table *t);

/* Serialises `t` (rules in canonical order whatever their order in `t`,
 * strings deduplicated), so equal tables give equal bytes. *out is
 * malloc'd; caller frees. Returns 0, -EINVAL (a rule the format cannot
 * hold) or -ENOMEM. */
int ll_table_encode(const struct ll_table *t, uint8_t **out, size_t *len);

/* `heelc emit landlock`: the table as text, one rule a line. */
int landlock_emit_text(const struct ir_policy *policy, FILE *out);
/* The same rendering for a table read back from an artifact. */
int ll_emit_view(const struct ll_table_view *t, FILE *out);

#endif

/* SPDX-License-Identifier: MIT
 * The Landlock table: the payload of the artifact's LINUX_LANDLOCK
 * section, written by heelc (compiler/landlock_lower.c) and read here by
 * heel-exec. Little-endian, fixed-width, 8-aligned, its own string area;
 * docs/landlock.md describes it byte by byte. The parser checks every
 * byte it will ever look at, so the rest of heel-exec can trust a view
 * (bounds, string offsets, known bits, sort order) without re-checking.
 * libc only; no allocation. */
#ifndef HEEL_RUNTIME_LANDLOCK_TABLE_H
#define HEEL_RUNTIME_LANDLOCK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "le.h"

#define LL_TABLE_VERSION 1u
#define LL_TABLE_HEADER_SIZE 48u
#define LL_TABLE_RULE_SIZE 32u
#define LL_STR_NONE 0xffffffffu

/* Header byte offsets. */
#define LL_HDR_VERSION 0
#define LL_HDR_MIN_ABI 4
#define LL_HDR_HANDLED_FS 8
#define LL_HDR_HANDLED_NET 16
#define LL_HDR_SCOPED 24
#define LL_HDR_RULE_COUNT 32
#define LL_HDR_STRINGS_SIZE 36
#define LL_HDR_FLAGS 40
#define LL_HDR_RESERVED 44

/* Rule byte offsets. */
#define LL_RULE_KIND 0
#define LL_RULE_FLAGS 4
#define LL_RULE_STR 8
#define LL_RULE_MIN_ABI 12
#define LL_RULE_ACCESS 16
#define LL_RULE_ORIGIN_STR 24
#define LL_RULE_ORIGIN_LINE 28

/* Table flags. */
#define LL_TF_NET_PROXY 0x1u  /* the policy's network goes through heel-proxy:
			       * heel-exec adds CONNECT_TCP to the proxy port */
#define LL_TF_KNOWN 0x1u

/* Rule kinds. */
enum ll_rule_kind {
	LL_KIND_GRANT = 1, /* path_beneath rule with `access` */
	LL_KIND_CARVE = 2, /* deny beneath a granted ancestor: the ancestor is expanded at launch */
	LL_KIND_INERT = 3, /* deny under no grant: default deny covers it (kept for emit) */
};

/* Rule flags. */
#define LL_RF_OPTIONAL 0x1u      /* missing (or a symlink) at launch: skipped */
#define LL_RF_NEEDS_MOUNTNS 0x2u /* carve-out inside a writable grant (see docs/landlock.md) */
#define LL_RF_DEVICE 0x4u        /* grant under /dev: carries IOCTL_DEV */
#define LL_RF_KNOWN 0x7u

/* A validated table. Pointers point into the caller's buffer, which must
 * outlive the view. */
struct ll_table_view {
	uint32_t version;
	uint32_t min_abi;
	uint64_t handled_fs;
	uint64_t handled_net;
	uint64_t scoped;
	uint32_t rule_count;
	uint32_t strings_size;
	uint32_t flags;
	const uint8_t *rules;   /* rule_count * LL_TABLE_RULE_SIZE bytes */
	const char *strings;    /* strings_size bytes, every string NUL-terminated */
};

struct ll_rule_view {
	uint32_t kind;          /* enum ll_rule_kind */
	uint32_t flags;         /* LL_RF_* */
	uint32_t min_abi;
	uint64_t access;        /* LL_FS_*; 0 for denies */
	const char *path;       /* template: ${NAME}, relative = to the launch directory */
	const char *origin;     /* "file" or NULL */
	uint32_t origin_line;
};

/* Validates `len` bytes at `buf` (any content, any length: never reads
 * outside them) and fills `out`. Returns 0, or -EINVAL with a one-line
 * reason in `err` (which may be NULL). */
int ll_table_parse(const uint8_t *buf, size_t len, struct ll_table_view *out,
		   char *err, size_t errlen);

/* Rule `i` (< rule_count) of a view ll_table_parse accepted. */
void ll_table_rule(const struct ll_table_view *t, uint32_t i, struct ll_rule_view *out);

/* The lowest ABI that knows every right in `fs`: what a rule records. */
uint32_t ll_fs_min_abi(uint64_t fs);

/* Name of one right ("read-file"), or NULL for an unknown bit. */
const char *ll_fs_right_name(uint64_t bit);
const char *ll_net_right_name(uint64_t bit);
const char *ll_scope_name(uint64_t bit);
const char *ll_kind_name(uint32_t kind);

/* Writes the names of the bits in `mask` separated by spaces ("-" when
 * empty; unknown bits as 0x..). `which`: 'f' fs, 'n' net, 's' scopes.
 * Always NUL-terminates; returns the length it wanted (snprintf-like). */
size_t ll_format_mask(char which, uint64_t mask, char *buf, size_t len);

#endif

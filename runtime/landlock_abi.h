/* SPDX-License-Identifier: MIT
 * Landlock's user-space ABI, spelled out here rather than taken from
 * <linux/landlock.h>: the header of the oldest system heel is built on
 * (Debian 12, Linux 6.1 UAPI) stops at ABI 3 and lacks IOCTL_DEV, the
 * scopes and the restrict_self flags, and heel must know every right up to
 * ABI 9 to downgrade correctly. Values are the kernel's and never change
 * (UAPI); the per-ABI table below is what each kernel release added. Shared
 * by heelc (lowering) and heel-exec (apply); libc only. */
#ifndef HEEL_RUNTIME_LANDLOCK_ABI_H
#define HEEL_RUNTIME_LANDLOCK_ABI_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* Filesystem rights (landlock_ruleset_attr.handled_access_fs). */
#define LL_FS_EXECUTE (1ull << 0)      /* ABI 1 */
#define LL_FS_WRITE_FILE (1ull << 1)   /* ABI 1 */
#define LL_FS_READ_FILE (1ull << 2)    /* ABI 1 */
#define LL_FS_READ_DIR (1ull << 3)     /* ABI 1 */
#define LL_FS_REMOVE_DIR (1ull << 4)   /* ABI 1 */
#define LL_FS_REMOVE_FILE (1ull << 5)  /* ABI 1 */
#define LL_FS_MAKE_CHAR (1ull << 6)    /* ABI 1 */
#define LL_FS_MAKE_DIR (1ull << 7)     /* ABI 1 */
#define LL_FS_MAKE_REG (1ull << 8)     /* ABI 1 */
#define LL_FS_MAKE_SOCK (1ull << 9)    /* ABI 1 */
#define LL_FS_MAKE_FIFO (1ull << 10)   /* ABI 1 */
#define LL_FS_MAKE_BLOCK (1ull << 11)  /* ABI 1 */
#define LL_FS_MAKE_SYM (1ull << 12)    /* ABI 1 */
#define LL_FS_REFER (1ull << 13)       /* ABI 2: rename/link across directories */
#define LL_FS_TRUNCATE (1ull << 14)    /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)   /* ABI 5 */
#define LL_FS_RESOLVE_UNIX (1ull << 16) /* ABI 9: connect/sendmsg to pathname unix sockets */
#define LL_FS_RIGHT_COUNT 17

/* Rights that mean something on a non-directory. The kernel refuses a
 * path_beneath rule on a file that carries any other right (EINVAL), so
 * heel-exec masks a grant with these when the path is not a directory. */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
			   LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX)

/* The rights that change what a directory holds or what is stored
 * beneath it: creating, removing, renaming (REFER), writing, truncating.
 * A grant with any of them is writable: the planner narrows it to a
 * spine around a deny, and the launcher mounts it writable. */
#define LL_FS_WRITE_RIGHTS (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | \
			    LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | \
			    LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM | LL_FS_REFER | \
			    LL_FS_TRUNCATE)

/* Network rights (handled_access_net, ABI 4). */
#define LL_NET_BIND_TCP (1ull << 0)
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_NET_BIND_UDP (1ull << 2)          /* ABI 10 */
#define LL_NET_CONNECT_SEND_UDP (1ull << 3)  /* ABI 10: connect, and sendmsg to an address */
#define LL_NET_RIGHT_COUNT 4

/* Scopes (landlock_ruleset_attr.scoped, ABI 6). */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)
#define LL_SCOPE_SIGNAL (1ull << 1)
#define LL_SCOPE_COUNT 2

/* landlock_create_ruleset() flags. */
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_CREATE_RULESET_ERRATA (1u << 1)

/* landlock_restrict_self() flags. */
#define LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1u << 0) /* ABI 7 */
#define LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1u << 1)   /* ABI 7 */
#define LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1u << 2) /* ABI 7 */
#define LL_RESTRICT_SELF_TSYNC (1u << 3)             /* ABI 8 */

/* landlock_add_rule() rule types. */
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* The working directory's rule, added at launch: read and write, never
 * execute (heel(5), PRECEDENCE): files the command writes there must not
 * run as code. */
#define LL_WORKDIR_RIGHTS (LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_WRITE_FILE | \
			   LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_DIR | \
			   LL_FS_MAKE_SYM | LL_FS_MAKE_FIFO | LL_FS_MAKE_SOCK | LL_FS_TRUNCATE | \
			   LL_FS_REFER | LL_FS_RESOLVE_UNIX)

/* The newest ABI heel knows (Linux 7.3; ABI 11 adds a restrict_self flag
 * heel has no use for, NO_NEW_PRIVS being set by prctl before). A newer
 * kernel is treated as this one: heel never asks for a right it cannot
 * name, and a kernel keeps every right of the ABIs below its own. */
#define LL_ABI_MAX 11

/* struct landlock_ruleset_attr as of ABI 6 (24 bytes). The kernel accepts
 * any size from 8 (fs only) upwards and requires the bytes it does not
 * know to be zero (else E2BIG), so the full struct is always passed with
 * the fields the running ABI lacks set to 0. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};
static_assert(sizeof(struct ll_ruleset_attr) == 24, "ruleset attr is 24 bytes");

/* struct landlock_path_beneath_attr: packed in the UAPI (12 bytes). */
struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
static_assert(sizeof(struct ll_path_beneath_attr) == 12, "path_beneath attr is 12 bytes");

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};
static_assert(sizeof(struct ll_net_port_attr) == 16, "net_port attr is 16 bytes");

/* Syscall numbers: one generic table for every architecture since 5.13
 * (x86_64, aarch64, riscv, ...), so they are safe to name here when the
 * C library's headers predate them. openat2 is 437 everywhere likewise. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* What each ABI knows, cumulative. Index 0 is "no Landlock". */
static inline uint64_t
ll_abi_fs_mask(int abi)
{
	if (abi <= 0)
		return 0;
	if (abi == 1)
		return (1ull << 13) - 1;
	if (abi == 2)
		return (1ull << 14) - 1;
	if (abi <= 4)
		return (1ull << 15) - 1;
	if (abi <= 8)
		return (1ull << 16) - 1;
	return (1ull << 17) - 1;
}

static inline uint64_t
ll_abi_net_mask(int abi)
{
	if (abi >= 10)
		return LL_NET_BIND_TCP | LL_NET_CONNECT_TCP | LL_NET_BIND_UDP |
		       LL_NET_CONNECT_SEND_UDP;
	return abi >= 4 ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0;
}

static inline uint64_t
ll_abi_scope_mask(int abi)
{
	return abi >= 6 ? (LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL) : 0;
}

static inline uint32_t
ll_abi_restrict_flags(int abi)
{
	if (abi >= 8)
		return (1u << 4) - 1;
	if (abi == 7)
		return (1u << 3) - 1;
	return 0;
}

/* The lowest ABI that knows every bit of the three masks; 0 when all are
 * empty, -1 when a bit is unknown even to LL_ABI_MAX. */
static inline int
ll_masks_min_abi(uint64_t fs, uint64_t net, uint64_t scoped)
{
	for (int abi = 0; abi <= LL_ABI_MAX; abi++)
		if (!(fs & ~ll_abi_fs_mask(abi)) && !(net & ~ll_abi_net_mask(abi)) &&
		    !(scoped & ~ll_abi_scope_mask(abi)))
			return abi;
	return -1;
}

#endif

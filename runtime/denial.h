/* SPDX-License-Identifier: MIT
 * One refused (or, from the --why observer, about to be refused) action
 * of a sandboxed process, as every source of denials reports it: the
 * seccomp user-notification observer (heel-why) fills it from a
 * notification and the target's memory, and the privileged kernel-side
 * observer fills the same struct from its ring buffer, so that one
 * explainer (compiler/why.h) and one rendering serve both. Plain fixed
 * sizes, no pointers: it crosses a ring buffer as it is. Header only;
 * libc types. */
#ifndef HEEL_RUNTIME_DENIAL_H
#define HEEL_RUNTIME_DENIAL_H

#include <stdint.h>

/* Bumped when a field changes meaning or place; a reader refuses a
 * version it does not know rather than misread it. */
#define DENIAL_VERSION 1u

/* Room for a path (PATH_MAX) or an AF_UNIX path or a host name. */
#define DENIAL_PATH_MAX 4096u
#define DENIAL_COMM_MAX 16u /* TASK_COMM_LEN */

/* What was tried. The file operations are named after what they need of
 * a path (read, write, create an entry, remove one, ...), not after the
 * call that did it: openat(O_WRONLY) and truncate(2) are both
 * DENIAL_OPEN_WRITE. */
enum denial_op {
	DENIAL_OPEN_READ,  /* open for reading; also listing a directory */
	DENIAL_OPEN_WRITE, /* open for writing, truncate */
	DENIAL_CREATE,	   /* a new file: open(O_CREAT), mknod, symlink's new name */
	DENIAL_UNLINK,	   /* unlink, rmdir */
	DENIAL_RENAME,	   /* rename's source or target */
	DENIAL_LINK,	   /* link's new name */
	DENIAL_MKDIR,
	DENIAL_SETATTR, /* chmod, chown, xattrs, utimes */
	DENIAL_EXEC,	/* execve, execveat */
	DENIAL_CONNECT, /* connect; family 0 with a host name in path: the proxy's refusal */
	DENIAL_BIND,
	DENIAL_SENDTO,	/* sendto with an address */
	DENIAL_SYSCALL, /* a call refused as such (seccomp) */
	DENIAL_OP_COUNT
};

/* Who saw it. */
enum denial_source {
	DENIAL_SRC_NOTIFY, /* heel-why: before the kernel decided (err is 0) */
	DENIAL_SRC_KERNEL, /* where the kernel reports the outcome (err set) */
	DENIAL_SRC_PROXY,  /* heel-proxy refused a destination */
};

struct denial_event {
	uint32_t version;	    /* DENIAL_VERSION */
	uint32_t op;		    /* enum denial_op */
	uint32_t source;	    /* enum denial_source */
	int32_t pid;		    /* the process, as the host numbers it */
	int32_t err;		    /* the errno the call got; 0: not known yet */
	uint32_t nr;		    /* the system call */
	uint32_t arch;		    /* AUDIT_ARCH_* of that call */
	uint16_t family;	    /* connect/bind/sendto: AF_INET, AF_INET6, AF_UNIX; 0 */
	uint16_t port;		    /* host byte order */
	uint8_t addr[16];	    /* AF_INET: the first 4 bytes; AF_INET6: all */
	uint64_t args[6];	    /* the call's arguments, for seccomp's argument checks */
	char comm[DENIAL_COMM_MAX]; /* the process's name, NUL-terminated */
	char path[DENIAL_PATH_MAX]; /* absolute, as the process meant it; an
				     * AF_UNIX path; a refused host name */
};

#endif

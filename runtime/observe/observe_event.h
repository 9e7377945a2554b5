/* SPDX-License-Identifier: MIT
 * The record heel-observe's BPF program (observe.bpf.c) puts in its ring
 * buffer for each refusal it sees, and the loader (observe_main.c) turns
 * into one JSON line. Shared by both sides, so it holds only fixed-size
 * kernel types: the BPF side gets them from vmlinux.h, the loader from
 * <linux/types.h>. */
#ifndef HEEL_OBSERVE_EVENT_H
#define HEEL_OBSERVE_EVENT_H

#define OBS_COMM_LEN 16
/* A path the kernel hands over whole (bpf_d_path, a system call's own
 * argument). */
#define OBS_PATH_LEN 512
/* A path walked by hand, one dentry name a slot, innermost first: deep
 * or long-named paths are cut (OBS_F_CUT), never misread. */
#define OBS_NAMES 16
#define OBS_NAME_LEN 64

/* What was refused. */
enum obs_op {
	OBS_OP_OPEN = 1,   /* access: the file's f_mode (read, write, exec) */
	OBS_OP_TRUNCATE,
	OBS_OP_CREATE,     /* mknod, or open(O_CREAT) of a new file */
	OBS_OP_MKDIR,
	OBS_OP_RMDIR,
	OBS_OP_UNLINK,
	OBS_OP_RENAME,     /* the path is the source */
	OBS_OP_LINK,       /* the path is the new name */
	OBS_OP_SYMLINK,
	OBS_OP_SETATTR,    /* chmod, chown, utimes */
	OBS_OP_SETXATTR,
	OBS_OP_EXEC,
	OBS_OP_CONNECT,
	OBS_OP_BIND,
	OBS_OP_SENDMSG,
	OBS_OP_SYSCALL,    /* seccomp refused the system call `syscall` */
	OBS_OP_WRITE_RO,   /* a read-only mount refused the system call `syscall` */
	OBS_OP_EXEC_NOEXEC,/* a noexec mount refused an exec */
	OBS_OP_MMAP_EXEC,  /* a noexec mount refused mmap(PROT_EXEC) */
	OBS_OP_FROM_SYSCALL, /* at the system call boundary: the op is the
			      * system call's (the loader names it) */
};

/* Where the refusal was seen: the kernel function whose result it is. */
enum obs_hook {
	OBS_HOOK_FILE_OPEN = 1,
	OBS_HOOK_FILE_TRUNCATE,
	OBS_HOOK_PATH_MKNOD,
	OBS_HOOK_PATH_MKDIR,
	OBS_HOOK_PATH_RMDIR,
	OBS_HOOK_PATH_UNLINK,
	OBS_HOOK_PATH_RENAME,
	OBS_HOOK_PATH_LINK,
	OBS_HOOK_PATH_SYMLINK,
	OBS_HOOK_PATH_TRUNCATE,
	OBS_HOOK_INODE_SETATTR,
	OBS_HOOK_INODE_SETXATTR,
	OBS_HOOK_BPRM_CHECK,
	OBS_HOOK_SOCKET_CONNECT,
	OBS_HOOK_SOCKET_BIND,
	OBS_HOOK_SOCKET_SENDMSG,
	OBS_HOOK_SECCOMP,
	OBS_HOOK_MNT_WRITE,
	OBS_HOOK_PATH_NOEXEC,
	OBS_HOOK_CONNECT_FILE,
	OBS_HOOK_MAY_OPEN,
	OBS_HOOK_SYS_EXIT,   /* the system call boundary (raw tracepoint):
			      * where the kernel refuses trampolines */
	OBS_HOOK_SECCOMP_SYSCALL, /* the same, for a call seccomp did not
			      * let in (sys_exit with no sys_enter) */
};

/* How `path` and `names` are filled. */
enum obs_path_kind {
	OBS_PATH_NONE = 0,
	OBS_PATH_FULL,  /* path: absolute, as the sandbox sees it (bpf_d_path) */
	OBS_PATH_NAMES, /* names[0..nnames): a walk up to the sandbox's root */
	OBS_PATH_USER,  /* path: the system call's argument, as the program
			 * gave it (may be relative); names: the mount */
};

enum {
	OBS_F_CUT = 1 << 0,       /* the walk stopped before the root */
	OBS_F_FS_ROOT = 1 << 1,   /* the walk knew no mount: from the file
				   * system's own root */
	OBS_F_LANDLOCK = 1 << 2,  /* Landlock itself said it refused: ll_* set */
	OBS_F_ADDR = 1 << 3,      /* family, port, addr hold the address */
	OBS_F_DIR = 1 << 4,       /* OBS_PATH_USER: names hold the directory a
				   * relative path is taken from */
};

struct obs_event {
	__u64 access;       /* OBS_OP_OPEN: f_mode; OBS_OP_MMAP_EXEC: prot */
	__u64 ll_access;    /* Landlock's access right(s) refused */
	__u32 host_pid;     /* process (thread group) id on the host */
	__u32 pid;          /* the same in the sandbox's PID namespace */
	__s32 err;          /* the errno returned (positive) */
	__s32 syscall;      /* the system call being made; -1 unknown */
	__u16 op;           /* enum obs_op */
	__u16 hook;         /* enum obs_hook */
	__u16 nnames;
	__u8 path_kind;     /* enum obs_path_kind */
	__u8 flags;         /* OBS_F_* */
	__u8 ll_type;       /* Landlock's request type (1 ptrace .. 6 signal) */
	__u8 ll_layer;      /* the Landlock layer that refused, from 1 */
	__u16 family;       /* AF_INET, AF_INET6, AF_UNIX */
	__u16 port;         /* host order */
	__u8 addr[16];
	char comm[OBS_COMM_LEN];
	char path[OBS_PATH_LEN];
	char names[OBS_NAMES][OBS_NAME_LEN];
};

#endif

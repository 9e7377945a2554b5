// SPDX-License-Identifier: GPL-2.0 OR MIT
/* heel-observe's BPF program: sees the refusals the kernel makes to one
 * sandbox's processes and puts one record (observe_event.h) a refusal in
 * a ring buffer. fexit programs on the LSM hooks read the hook's return
 * value, so what is reported is what the kernel decided, whichever LSM
 * (Landlock, or another) decided it; Landlock's own report of the right
 * it refused (landlock_log_denial, Linux 6.15+) is joined to the hook's
 * record. The walls that are no LSM hook are seen where they answer: a
 * file's own mode in may_open, a noexec mount in path_noexec, seccomp in
 * __secure_computing, the empty network namespace in __sys_connect_file,
 * and a read-only mount at the system call's exit (sc_erofs_only). Everything else runs a compare and
 * returns: a hook that allowed, or a process of another sandbox or of
 * the host, costs one branch.
 *
 * Some kernels refuse trampoline programs (fentry, fexit, lsm) outright,
 * this project's own test machine among them (EPERM before the verifier
 * runs, under lockdown and without kprobes). For them the loader loads
 * the second set below instead (the sc_ programs): the raw tracepoints
 * sys_enter and sys_exit, which see every refused file, exec and socket
 * call at the system call boundary with its errno and its path or
 * address argument, and a call seccomp refused as a sys_exit that had no
 * sys_enter (seccomp runs before the enter tracepoint). Which wall
 * refused is then for the explainer to tell from the policy. GPL for the
 * kernel's helpers that need it (bpf_d_path, bpf_probe_read_*): the
 * licence of this file only. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "observe_event.h"

char LICENSE[] SEC("license") = "GPL";
#define ENOSYS_ 38

#define EROFS_ 30
#define EACCES_ 13
#define EPERM_ 1
#define ENETDOWN_ 100
#define ENETUNREACH_ 101
#define EHOSTUNREACH_ 113
#define PROT_EXEC_ 4
#define AF_UNIX_ 1
#define AF_INET_ 2
#define AF_INET6_ 10

/* Set by the loader once the sandbox exists, after the programs are
 * attached (attaching takes long; the sandbox's processes are made
 * after): the sandbox is the processes of this PID namespace (its inode
 * number) and of those it makes, or of this cgroup (its id); 0 each:
 * nothing matches. Globals in .bss, which the loader writes through its
 * mapping of it. */
volatile __u32 target_pidns;
volatile __u64 target_cgroup;

/* No wake-up per record: heel-observe reads the buffer every 100 ms and
 * at the end, so a burst of refusals costs the refusing process no
 * context switch each (measured: BENCHMARKS.md); only once the buffer is
 * a quarter full is heel-observe woken, so a burst does not fill it
 * between two reads. */
#define OBS_RB_SIZE (2 * 1024 * 1024)
#define OBS_SUBMIT \
	(bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > OBS_RB_SIZE / 4 ? BPF_RB_FORCE_WAKEUP \
									   : BPF_RB_NO_WAKEUP)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OBS_RB_SIZE);
} events SEC(".maps");

/* Records lost to a full ring buffer: the loader says how many. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* Landlock's word on the refusal a thread is about to get, from
 * landlock_log_denial to the fexit of the hook that returns it. */
struct ll_note {
	__u64 access;
	__u8 type;
	__u8 layer;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct ll_note);
} ll_pending SEC(".maps");

/* Whether the running process belongs to the sandbox; its process id in
 * the sandbox's PID namespace in *nspid. A process of a namespace the
 * sandbox made itself still belongs: each level of its pid is looked at,
 * up to 8 (the kernel allows 32; heel's sandbox makes none). */
static __always_inline bool
in_sandbox(__u32 *nspid)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pid *p;
	unsigned int level;

	if (target_cgroup) {
		*nspid = bpf_get_current_pid_tgid() >> 32;
		return bpf_get_current_cgroup_id() == target_cgroup;
	}
	if (!target_pidns)
		return false;
	p = BPF_CORE_READ(t, group_leader, thread_pid);
	level = BPF_CORE_READ(p, level);
	for (unsigned int i = 1; i < 8; i++) {
		struct pid_namespace *ns = NULL;

		if (i > level)
			break;
		bpf_core_read(&ns, sizeof(ns), &p->numbers[i].ns);
		if (ns && BPF_CORE_READ(ns, ns.inum) == target_pidns) {
			bpf_core_read(nspid, sizeof(*nspid), &p->numbers[i].nr);
			return true;
		}
	}
	return false;
}

static __always_inline void
count_drop(void)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&dropped, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* A record for a refusal `err` (negative, as returned) of the running
 * process, or NULL when it is none of the sandbox's or the buffer is
 * full. The caller fills in the rest and submits it. */
static __always_inline struct obs_event *
begin(long err, __u16 op, __u16 hook)
{
	struct obs_event *e;
	struct ll_note *ll;
	__u32 nspid = 0, tid;

	if (!in_sandbox(&nspid))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop();
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e) - sizeof(e->path) - sizeof(e->names));
	e->path[0] = '\0';
	e->host_pid = bpf_get_current_pid_tgid() >> 32;
	e->pid = nspid;
	e->err = (__s32)-err;
	e->op = op;
	e->hook = hook;
	e->syscall = -1;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	tid = (__u32)bpf_get_current_pid_tgid();
	ll = bpf_map_lookup_elem(&ll_pending, &tid);
	if (ll) {
		e->flags |= OBS_F_LANDLOCK;
		e->ll_access = ll->access;
		e->ll_type = ll->type;
		e->ll_layer = ll->layer;
		bpf_map_delete_elem(&ll_pending, &tid);
	}
	return e;
}

/* The path of dentry d under mount vm (NULL: unknown, then from the file
 * system's root), one name a slot, up to the running process's root:
 * the path as the sandbox sees it. A global function, so the verifier
 * checks its loop once, not at every place it is called; the pointers
 * come as numbers (it reads them with bpf_probe_read_kernel). */
__noinline int
obs_walk(struct obs_event *e, __u64 dp, __u64 vmp)
{
	struct dentry *d = (struct dentry *)dp;
	struct vfsmount *vm = (struct vfsmount *)vmp;
	struct task_struct *t = bpf_get_current_task_btf();
	struct dentry *root_d = BPF_CORE_READ(t, fs, root.dentry);
	struct vfsmount *root_m = BPF_CORE_READ(t, fs, root.mnt);
	unsigned long moff = bpf_core_field_offset(struct mount, mnt);
	struct mount *m = vm ? (struct mount *)((unsigned long)vm - moff) : NULL;

	if (!e)
		return 0;
	e->path_kind = OBS_PATH_NAMES;
	e->nnames = 0;
	/* The count lives in the record, not in a register: the verifier
	 * then sees one state an iteration, not one a count. */
	for (int i = 0; i < OBS_NAMES + 8; i++) {
		struct dentry *parent;
		__u16 n;

		if (d == root_d && (!vm || vm == root_m))
			return 0;
		if (m && d == BPF_CORE_READ(vm, mnt_root)) {
			struct mount *up = BPF_CORE_READ(m, mnt_parent);

			if (up == m)
				return 0;
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = up;
			vm = (struct vfsmount *)((unsigned long)up + moff);
			continue;
		}
		parent = BPF_CORE_READ(d, d_parent);
		if (!parent || parent == d) {
			if (!vm)
				e->flags |= OBS_F_FS_ROOT;
			return 0;
		}
		n = e->nnames;
		if (n >= OBS_NAMES)
			break;
		bpf_probe_read_kernel_str(e->names[n & (OBS_NAMES - 1)], OBS_NAME_LEN,
					  BPF_CORE_READ(d, d_name.name));
		e->nnames = n + 1;
		d = parent;
	}
	e->flags |= OBS_F_CUT;
	return 0;
}

static __always_inline void
walk(struct obs_event *e, struct dentry *d, struct vfsmount *vm)
{
	obs_walk(e, (__u64)d, (__u64)vm);
}

static __always_inline void
walk_path(struct obs_event *e, const struct path *p)
{
	walk(e, BPF_CORE_READ(p, dentry), BPF_CORE_READ(p, mnt));
}

/* dentry `d` in directory `dir` (a struct path). */
static __always_inline void
walk_in(struct obs_event *e, const struct path *dir, struct dentry *d)
{
	walk(e, d, BPF_CORE_READ(dir, mnt));
}

static __always_inline void
sockaddr(struct obs_event *e, const void *sa, bool user)
{
	struct sockaddr_in6 s6 = {};

	if (!sa)
		return;
	if (user)
		bpf_probe_read_user(&s6, sizeof(s6), sa);
	else
		bpf_probe_read_kernel(&s6, sizeof(s6), sa);
	e->family = s6.sin6_family;
	if (s6.sin6_family == AF_INET_) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&s6;

		e->port = bpf_ntohs(s4->sin_port);
		__builtin_memcpy(e->addr, &s4->sin_addr, 4);
		e->flags |= OBS_F_ADDR;
	} else if (s6.sin6_family == AF_INET6_) {
		e->port = bpf_ntohs(s6.sin6_port);
		__builtin_memcpy(e->addr, &s6.sin6_addr, 16);
		e->flags |= OBS_F_ADDR;
	} else if (s6.sin6_family == AF_UNIX_) {
		e->path_kind = OBS_PATH_USER;
		if (user)
			bpf_probe_read_user_str(e->path, 108, (const char *)sa + 2);
		else
			bpf_probe_read_kernel_str(e->path, 108, (const char *)sa + 2);
		e->flags |= OBS_F_ADDR;
	}
}

/* The system call the running thread is in, and its argument `i`. */
static __always_inline long
syscall_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#else
	return -1;
#endif
}

static __always_inline unsigned long
syscall_arg(struct pt_regs *regs, int i)
{
#if defined(__TARGET_ARCH_x86)
	switch (i) {
	case 0: return BPF_CORE_READ(regs, di);
	case 1: return BPF_CORE_READ(regs, si);
	case 2: return BPF_CORE_READ(regs, dx);
	case 3: return BPF_CORE_READ(regs, r10);
	}
#endif
	return 0;
}

/* ---------------------------------------------------------------- LSM hooks */

SEC("fexit/security_file_open")
int BPF_PROG(file_open, struct file *file, int ret)
{
	struct obs_event *e;

	if (ret == 0 || !(e = begin(ret, OBS_OP_OPEN, OBS_HOOK_FILE_OPEN)))
		return 0;
	e->access = BPF_CORE_READ(file, f_mode);
	/* bpf_d_path is allowed here (and in few other places): the whole
	 * path, however deep, as the sandbox sees it. */
	if (bpf_d_path((struct path *)&file->f_path, e->path, sizeof(e->path)) > 0)
		e->path_kind = OBS_PATH_FULL;
	else
		walk_path(e, &file->f_path);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* The rest read their arguments with bpf_get_func_arg: their signatures
 * change between kernels (an idmap argument came in 6.3, seccomp's
 * argument went in 6.14), and the argument's position is looked up, not
 * compiled in. */
static __always_inline long
ret_of(void *ctx)
{
	__u64 r = 0;

	bpf_get_func_ret(ctx, &r);
	return (long)(int)r;
}

static __always_inline void *
arg_of(void *ctx, __u32 i)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, i, &v);
	return (void *)v;
}

SEC("fexit/security_file_truncate")
int file_truncate(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;
	struct file *f;

	if (ret == 0 || !(e = begin(ret, OBS_OP_TRUNCATE, OBS_HOOK_FILE_TRUNCATE)))
		return 0;
	f = arg_of(ctx, 0);
	walk_path(e, &f->f_path);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* security_path_*(const struct path *dir, struct dentry *dentry, ...). */
static __always_inline int
dir_entry(void *ctx, __u16 op, __u16 hook)
{
	long ret = ret_of(ctx);
	struct obs_event *e;

	if (ret == 0 || !(e = begin(ret, op, hook)))
		return 0;
	walk_in(e, arg_of(ctx, 0), arg_of(ctx, 1));
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

SEC("fexit/security_path_mknod")
int path_mknod(void *ctx) { return dir_entry(ctx, OBS_OP_CREATE, OBS_HOOK_PATH_MKNOD); }

SEC("fexit/security_path_mkdir")
int path_mkdir(void *ctx) { return dir_entry(ctx, OBS_OP_MKDIR, OBS_HOOK_PATH_MKDIR); }

SEC("fexit/security_path_rmdir")
int path_rmdir(void *ctx) { return dir_entry(ctx, OBS_OP_RMDIR, OBS_HOOK_PATH_RMDIR); }

SEC("fexit/security_path_unlink")
int path_unlink(void *ctx) { return dir_entry(ctx, OBS_OP_UNLINK, OBS_HOOK_PATH_UNLINK); }

SEC("fexit/security_path_rename")
int path_rename(void *ctx) { return dir_entry(ctx, OBS_OP_RENAME, OBS_HOOK_PATH_RENAME); }

SEC("fexit/security_path_symlink")
int path_symlink(void *ctx) { return dir_entry(ctx, OBS_OP_SYMLINK, OBS_HOOK_PATH_SYMLINK); }

/* (struct dentry *old, const struct path *new_dir, struct dentry *new) */
SEC("fexit/security_path_link")
int path_link(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;

	if (ret == 0 || !(e = begin(ret, OBS_OP_LINK, OBS_HOOK_PATH_LINK)))
		return 0;
	walk_in(e, arg_of(ctx, 1), arg_of(ctx, 2));
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

SEC("fexit/security_path_truncate")
int path_truncate(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;

	if (ret == 0 || !(e = begin(ret, OBS_OP_TRUNCATE, OBS_HOOK_PATH_TRUNCATE)))
		return 0;
	walk_path(e, arg_of(ctx, 0));
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* The inode hooks know no mount: the path is from the file system's own
 * root (OBS_F_FS_ROOT). Their dentry is the first argument before 6.3,
 * the second after (an idmap before it). */
static __always_inline int
inode_hook(void *ctx, __u16 op, __u16 hook, __u32 with_idmap)
{
	long ret = ret_of(ctx);
	struct obs_event *e;
	__u32 i;

	if (ret == 0 || !(e = begin(ret, op, hook)))
		return 0;
	i = bpf_get_func_arg_cnt(ctx) >= with_idmap ? 1 : 0;
	walk(e, arg_of(ctx, i), NULL);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

SEC("fexit/security_inode_setattr")
int inode_setattr(void *ctx) { return inode_hook(ctx, OBS_OP_SETATTR, OBS_HOOK_INODE_SETATTR, 3); }

/* (idmap or user namespace, dentry, name, value, size, flags): the
 * dentry is second on every kernel heel supports. */
SEC("fexit/security_inode_setxattr")
int inode_setxattr(void *ctx) { return inode_hook(ctx, OBS_OP_SETXATTR, OBS_HOOK_INODE_SETXATTR, 0); }

SEC("fexit/security_bprm_check")
int bprm_check(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;
	struct linux_binprm *b;

	if (ret == 0 || !(e = begin(ret, OBS_OP_EXEC, OBS_HOOK_BPRM_CHECK)))
		return 0;
	b = arg_of(ctx, 0);
	walk_path(e, &BPF_CORE_READ(b, file)->f_path);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

static __always_inline int
socket_hook(void *ctx, __u16 op, __u16 hook)
{
	long ret = ret_of(ctx);
	struct obs_event *e;

	if (ret == 0 || !(e = begin(ret, op, hook)))
		return 0;
	sockaddr(e, arg_of(ctx, 1), false);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

SEC("fexit/security_socket_connect")
int socket_connect(void *ctx) { return socket_hook(ctx, OBS_OP_CONNECT, OBS_HOOK_SOCKET_CONNECT); }

SEC("fexit/security_socket_bind")
int socket_bind(void *ctx) { return socket_hook(ctx, OBS_OP_BIND, OBS_HOOK_SOCKET_BIND); }

SEC("fexit/security_socket_sendmsg")
int socket_sendmsg(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;
	struct msghdr *m;

	if (ret == 0 || !(e = begin(ret, OBS_OP_SENDMSG, OBS_HOOK_SOCKET_SENDMSG)))
		return 0;
	m = arg_of(ctx, 1);
	sockaddr(e, BPF_CORE_READ(m, msg_name), false);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* ---------------------------------------------------------------- Landlock */

/* Called by Landlock for each refusal it makes, before the hook returns
 * it (Linux 6.15+; the loader leaves it out where the kernel lacks it).
 * Only noted here: the hook's own fexit reports it. */
SEC("fentry/landlock_log_denial")
int BPF_PROG(ll_denial, const void *subject, const struct landlock_request *req)
{
	struct ll_note n = {};
	__u32 nspid, tid;

	if (!in_sandbox(&nspid))
		return 0;
	n.type = BPF_CORE_READ(req, type);
	n.access = BPF_CORE_READ(req, access);
	n.layer = BPF_CORE_READ(req, layer_plus_one);
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&ll_pending, &tid, &n, BPF_ANY);
	return 0;
}

/* ---------------------------------------------------------------- seccomp */

/* -1: the filter did not let the call run; its errno (RET_ERRNO) is
 * already in the return register. RET_KILL and RET_TRAP end here too;
 * RET_USER_NOTIF's answer comes later and is not seen. */
SEC("fexit/__secure_computing")
int seccomp(void *ctx)
{
	struct pt_regs *regs;
	struct obs_event *e;
	long rv;

	if (ret_of(ctx) != -1)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
#if defined(__TARGET_ARCH_x86)
	rv = BPF_CORE_READ(regs, ax);
#else
	rv = 0;
#endif
	/* ENOSYS asks libc for the older call (sc_exit says why). */
	if (rv == -ENOSYS_)
		return 0;
	if (!(e = begin(rv < 0 && rv > -4096 ? rv : 0, OBS_OP_SYSCALL, OBS_HOOK_SECCOMP)))
		return 0;
	e->syscall = (__s32)syscall_nr(regs);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* ---------------------------------------------------------------- mounts */

/* The file's own mode (and a few VFS rules) refuse an open in may_open,
 * before security_file_open is asked: a file the sandbox sees with
 * modes that keep it out (heel's idmapped /etc for root). An exec's
 * open is left to path_noexec and the LSM hooks. (idmap or user
 * namespace, const struct path *, int acc_mode, int flag) */
SEC("fexit/may_open")
int may_open(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;
	__u64 acc;

	if (ret != -EACCES_ && ret != -EPERM_ && ret != -EROFS_)
		return 0;
	acc = (__u64)arg_of(ctx, 2);
	if (acc & 1) /* MAY_EXEC */
		return 0;
	if (!(e = begin(ret, OBS_OP_OPEN, OBS_HOOK_MAY_OPEN)))
		return 0;
	/* As f_mode: FMODE_READ 1, FMODE_WRITE 2 (MAY_READ 4, MAY_WRITE 2). */
	e->access = ((acc & 4) ? 1 : 0) | ((acc & 2) ? 2 : 0);
	walk_path(e, arg_of(ctx, 1));
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* true: the mount is noexec. An exec (execve, execveat) then fails with
 * EACCES, and mmap(PROT_EXEC) with EPERM; other callers only ask. */
SEC("fexit/path_noexec")
int noexec(void *ctx)
{
	struct obs_event *e;
	struct pt_regs *regs;
	long nr;

	if (!(ret_of(ctx) & 0xff))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	nr = syscall_nr(regs);
#if defined(__TARGET_ARCH_x86)
	if (nr == 59 || nr == 322) {
		if (!(e = begin(-EACCES_, OBS_OP_EXEC_NOEXEC, OBS_HOOK_PATH_NOEXEC)))
			return 0;
	} else if (nr == 9 && (syscall_arg(regs, 2) & PROT_EXEC_)) {
		if (!(e = begin(-EPERM_, OBS_OP_MMAP_EXEC, OBS_HOOK_PATH_NOEXEC)))
			return 0;
		e->access = syscall_arg(regs, 2);
	} else
		return 0;
#else
	return 0;
#endif
	e->syscall = (__s32)nr;
	walk_path(e, arg_of(ctx, 0));
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* ---------------------------------------------------------------- network */

/* The sandbox's own network namespace has no route out: a connection
 * there fails with ENETUNREACH, no LSM hook involved. (Refusals by an
 * LSM come from security_socket_connect above, and are not repeated.) */
SEC("fexit/__sys_connect_file")
int connect_file(void *ctx)
{
	long ret = ret_of(ctx);
	struct obs_event *e;

	if (ret != -ENETUNREACH_ && ret != -EHOSTUNREACH_ && ret != -ENETDOWN_)
		return 0;
	if (!(e = begin(ret, OBS_OP_CONNECT, OBS_HOOK_CONNECT_FILE)))
		return 0;
	sockaddr(e, arg_of(ctx, 1), false);
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

/* ---------------------------------------------------------------- the system call boundary */

/* Per thread: the call sys_enter saw it make, until its sys_exit. */
struct sc_mark {
	__s32 nr;
	__u32 entered;
};

/* Set by the loader with the LSM hook set, which loads sc_exit for one
 * thing only: a read-only mount's EROFS. mnt_want_write answers EROFS
 * also where the caller only tries (an open with O_WRONLY of a device
 * file, which needs no write access to its mount, still asks first), so
 * only the system call's own result tells a refusal. */
volatile __u32 sc_erofs_only;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_mark);
} sc_marks SEC(".maps");

/* Host processes are at PID level 0, and cost one load and a compare. */
static __always_inline bool
sc_maybe_sandbox(struct task_struct *t)
{
	if (target_cgroup)
		return true;
	return BPF_CORE_READ(t, thread_pid, level) > 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sc_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct sc_mark *m;
	__u32 nspid;

	if (!sc_maybe_sandbox(t) || !in_sandbox(&nspid))
		return 0;
	m = bpf_task_storage_get(&sc_marks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (m) {
		m->nr = (__s32)id;
		m->entered = 1;
	}
	return 0;
}

/* The file of descriptor fd of the running process, or NULL. */
static __always_inline struct file *
sc_fd_file(struct task_struct *t, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **v;
	struct file *f = NULL;

	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	v = BPF_CORE_READ(fdt, fd);
	bpf_core_read(&f, sizeof(f), &v[fd & 0xfffff]);
	return f;
}

/* A relative path argument: the directory it is taken from (the working
 * directory, or the *at call's descriptor) in names. */
static __always_inline void
sc_base_dir(struct obs_event *e, struct pt_regs *regs, int at_arg)
{
	struct task_struct *t = bpf_get_current_task_btf();
	long dirfd = at_arg >= 0 ? (long)(int)syscall_arg(regs, at_arg) : -100;
	struct file *f;

	if (dirfd == -100) { /* AT_FDCWD */
		walk(e, BPF_CORE_READ(t, fs, pwd.dentry), BPF_CORE_READ(t, fs, pwd.mnt));
	} else if ((f = sc_fd_file(t, dirfd))) {
		walk(e, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt));
	} else
		return;
	e->flags |= OBS_F_DIR;
}

/* The system calls whose refusal is reported, each with where its path
 * (or address) is: the calls on files, exec and sockets that heel's
 * walls refuse. Queries (access, stat) are left out: a "no" there is an
 * answer, not a refusal. x86-64 numbers. */
enum { SC_NONE, SC_PATH, SC_FD, SC_ADDR, SC_SENDMSG, SC_MMAP };

static __always_inline int
sc_kind(long nr, int *path_i, int *at_i, int *flags_i)
{
	*path_i = -1;
	*at_i = -1;
	*flags_i = -1;
#if defined(__TARGET_ARCH_x86)
	switch (nr) {
	case 2: /* open */
		*path_i = 0;
		*flags_i = 1;
		return SC_PATH;
	case 257: case 437: /* openat, openat2 (its flags are in a struct) */
		*path_i = 1;
		*at_i = 0;
		*flags_i = nr == 257 ? 2 : -1;
		return SC_PATH;
	case 59: case 76: case 82: case 83: case 84: case 85: case 87: case 90: case 92:
	case 94: case 132: case 133: case 188: case 189: case 197: case 198: case 235:
		*path_i = 0; /* execve truncate rename mkdir rmdir creat unlink chmod
			      * chown lchown utime mknod setxattr lsetxattr
			      * removexattr lremovexattr utimes */
		return SC_PATH;
	case 86: case 88: /* link symlink: the new name */
		*path_i = 1;
		return SC_PATH;
	case 258: case 259: case 260: case 261: case 263: case 264: case 268: case 280:
	case 316: case 322: case 452: case 463: case 466:
		*path_i = 1; /* mkdirat mknodat fchownat futimesat unlinkat renameat
			      * fchmodat utimensat renameat2 execveat fchmodat2
			      * setxattrat removexattrat */
		*at_i = 0;
		return SC_PATH;
	case 265: /* linkat: the new name */
		*path_i = 3;
		*at_i = 2;
		return SC_PATH;
	case 266: /* symlinkat */
		*path_i = 2;
		*at_i = 1;
		return SC_PATH;
	case 77: case 91: case 93: case 190: case 199:
		*at_i = 0; /* ftruncate fchmod fchown fsetxattr fremovexattr */
		return SC_FD;
	case 42: case 49: /* connect bind */
		*path_i = 1;
		return SC_ADDR;
	case 44: /* sendto */
		*path_i = 4;
		return SC_ADDR;
	case 46: /* sendmsg */
		*path_i = 1;
		return SC_SENDMSG;
	case 9: case 10: /* mmap mprotect with PROT_EXEC */
		return SC_MMAP;
	}
#endif
	return SC_NONE;
}

/* The errors heel's walls give: Landlock and the other LSMs (EACCES,
 * EPERM), a read-only mount (EROFS), the sandbox's empty network
 * namespace (ENETUNREACH and its kin, for sockets only). */
static __always_inline bool
sc_refusal(long ret, int kind)
{
	if (ret == -EACCES_ || ret == -EPERM_ || ret == -EROFS_)
		return true;
	return (kind == SC_ADDR || kind == SC_SENDMSG) &&
	       (ret == -ENETUNREACH_ || ret == -EHOSTUNREACH_ || ret == -ENETDOWN_);
}

static __always_inline unsigned long
sc_arg4(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, r8);
#else
	return 0;
#endif
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sc_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t;
	struct sc_mark *m;
	struct obs_event *e;
	int kind, path_i, at_i, flags_i;
	bool seccomp_refused;
	unsigned long p;
	long nr;

	if (ret >= 0 || ret < -4095)
		return 0;
	if (sc_erofs_only && ret != -EROFS_)
		return 0;
	t = bpf_get_current_task_btf();
	if (!sc_maybe_sandbox(t))
		return 0;
	nr = syscall_nr(regs);
	m = sc_erofs_only ? NULL : bpf_task_storage_get(&sc_marks, t, 0, 0);
	/* No sys_enter for this call: seccomp refused it before the enter
	 * tracepoint. (A thread seen for the first time has no mark yet but
	 * was seen entering: sys_enter makes the mark.) */
	seccomp_refused = !sc_erofs_only && (!m || !m->entered || m->nr != nr);
	if (m)
		m->entered = 0;
	/* ENOSYS from seccomp says "use the older call" (heel's filters
	 * answer clone3 so, to have libc fall back to clone, whose flags
	 * they can read): a fallback taken every run, not a refusal. */
	if (seccomp_refused && ret == -ENOSYS_)
		return 0;
	kind = sc_kind(nr, &path_i, &at_i, &flags_i);
	if (!seccomp_refused) {
		if (kind == SC_NONE || !sc_refusal(ret, kind))
			return 0;
		if (kind == SC_MMAP && !(syscall_arg(regs, 2) & PROT_EXEC_))
			return 0;
	}
	e = begin(ret, OBS_OP_FROM_SYSCALL,
		  seccomp_refused ? OBS_HOOK_SECCOMP_SYSCALL : OBS_HOOK_SYS_EXIT);
	if (!e)
		return 0;
	e->syscall = (__s32)nr;
	if (flags_i >= 0)
		e->access = syscall_arg(regs, flags_i);
	else if (nr == 437 && (p = syscall_arg(regs, 2))) /* openat2: how->flags */
		bpf_probe_read_user(&e->access, sizeof(e->access), (void *)p);
	else if (kind == SC_MMAP)
		e->access = syscall_arg(regs, 2);
	if (kind == SC_PATH && (p = syscall_arg(regs, path_i))) {
		e->path_kind = OBS_PATH_USER;
		bpf_probe_read_user_str(e->path, sizeof(e->path), (const char *)p);
		if (e->path[0] != '/')
			sc_base_dir(e, regs, at_i);
		e->path_kind = OBS_PATH_USER;
	} else if (kind == SC_FD) {
		struct file *f = sc_fd_file(t, (long)(int)syscall_arg(regs, 0));

		if (f)
			walk(e, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt));
	} else if (kind == SC_ADDR) {
		p = path_i == 4 ? sc_arg4(regs) : syscall_arg(regs, path_i);
		sockaddr(e, (const void *)p, true);
	} else if (kind == SC_SENDMSG && (p = syscall_arg(regs, 1))) {
		void *name = NULL;

		bpf_probe_read_user(&name, sizeof(name), (void *)p); /* msg_name first */
		sockaddr(e, name, true);
	}
	bpf_ringbuf_submit(e, OBS_SUBMIT);
	return 0;
}

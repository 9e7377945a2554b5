/* SPDX-License-Identifier: MIT
 * heel-proxy confines itself before it serves (confine.h). */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock_abi.h"

#if defined(__x86_64__)
#define CONFINE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CONFINE_ARCH AUDIT_ARCH_AARCH64
#else
#error "heel-proxy knows the seccomp architecture of x86_64 and aarch64 only"
#endif

static int
landlock(int audit_dir_fd, int *abi_out, char *err, size_t errlen)
{
	struct ll_ruleset_attr attr = { 0 };
	long abi;
	int rs, fd, r = 0;

	abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	*abi_out = abi > 0 ? (int)abi : 0;
	if (abi <= 0)
		return 0;
	if (abi > LL_ABI_MAX)
		abi = LL_ABI_MAX;
	attr.handled_access_fs = ll_abi_fs_mask((int)abi);
	/* Outbound TCP to any port is the proxy's work; binding a port or
	 * UDP beyond what DNS needs is not, but Landlock's UDP rights cover
	 * sendto, which c-ares needs: only TCP binding is handled. */
	attr.handled_access_net = ll_abi_net_mask((int)abi) & LL_NET_BIND_TCP;
	/* Not LL_SCOPE_SIGNAL: the decider was started before, outside the
	 * domain, and the proxy must still be able to stop it. */
	attr.scoped = ll_abi_scope_mask((int)abi) & LL_SCOPE_ABSTRACT_UNIX_SOCKET;
	rs = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0) {
		snprintf(err, errlen, "landlock_create_ruleset: %s", strerror(errno));
		return -errno;
	}
	/* c-ares reads /etc/hosts at every lookup (resolv.conf it read at
	 * start). */
	fd = open("/etc/hosts", O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		struct ll_path_beneath_attr pb = { .allowed_access = LL_FS_READ_FILE, .parent_fd = fd };

		if (syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
			r = -errno;
		close(fd);
	}
	if (r == 0 && audit_dir_fd >= 0) {
		struct ll_path_beneath_attr pb = {
			.allowed_access = LL_FS_MAKE_REG | LL_FS_WRITE_FILE,
			.parent_fd = audit_dir_fd,
		};

		if (syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
			r = -errno;
	}
	if (r == 0 && syscall(__NR_landlock_restrict_self, rs, 0) < 0)
		r = -errno;
	close(rs);
	if (r < 0)
		snprintf(err, errlen, "Landlock: %s", strerror(-r));
	return r;
}

static int
drop_capabilities(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 }, { 0 } };

	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
			break;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d) < 0) {
		snprintf(err, errlen, "capset: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Refused with EPERM once the proxy serves: starting programs, other
 * namespaces, tracing and kernel interfaces no proxy needs. A deny list:
 * the C library and c-ares use a changing set of ordinary calls, and the
 * proxy's data path is sockets and splice. */
static const int denied[] = {
	SYS_execve, SYS_execveat, SYS_fork, SYS_vfork, SYS_clone, SYS_clone3,
	SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
	SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns,
	SYS_bpf, SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
	SYS_keyctl, SYS_add_key, SYS_request_key, SYS_perf_event_open,
	SYS_kexec_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_userfaultfd,
	SYS_mknodat, SYS_symlinkat, SYS_linkat, SYS_renameat2, SYS_unlinkat,
	SYS_fchmodat, SYS_fchownat, SYS_fchmod, SYS_fchown,
	SYS_fsopen, SYS_fsmount, SYS_move_mount, SYS_open_tree,
#ifdef __x86_64__
	SYS_mknod, SYS_symlink, SYS_link, SYS_rename, SYS_renameat, SYS_unlink, SYS_rmdir,
	SYS_chmod, SYS_chown, SYS_lchown, SYS_iopl, SYS_ioperm,
#endif
};

static int
seccomp(char *err, size_t errlen)
{
	enum { N = sizeof(denied) / sizeof(denied[0]) };
	struct sock_filter f[8 + 2 * N + 8];
	struct sock_fprog prog = { .filter = f };
	size_t i = 0;

#define LD(off) (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(v) (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, (v))
	f[i++] = LD(offsetof(struct seccomp_data, arch));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONFINE_ARCH, 1, 0);
	f[i++] = RET(SECCOMP_RET_KILL_PROCESS);
	f[i++] = LD(offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32 calls: another numbering of the same kernel. */
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[i++] = RET(SECCOMP_RET_ERRNO | EPERM);
#endif
	for (size_t k = 0; k < N; k++) {
		f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[k], 0, 1);
		f[i++] = RET(SECCOMP_RET_ERRNO | EPERM);
	}
	/* socket(2): inet only; the unix socket to heel-exec exists already. */
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 5);
	f[i++] = LD(offsetof(struct seccomp_data, args[0]));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 2, 0);
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 1, 0);
	f[i++] = RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	f[i++] = RET(SECCOMP_RET_ALLOW);
	f[i++] = RET(SECCOMP_RET_ALLOW);
#undef LD
#undef RET
	prog.len = (unsigned short)i;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		snprintf(err, errlen, "seccomp: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int
proxy_confine(int audit_dir_fd, struct proxy_confinement *got, char *err, size_t errlen)
{
	int r;

	memset(got, 0, sizeof(*got));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -errno;
	}
	if ((r = landlock(audit_dir_fd, &got->landlock_abi, err, errlen)) < 0)
		return r;
	if ((r = drop_capabilities(err, errlen)) < 0)
		return r;
	return seccomp(err, errlen);
}

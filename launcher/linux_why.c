/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-why, the --why observer (linux_why.h). */
#include "linux_why.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "artifact.h"
#include "linux_broker.h"
#include "linux_execwhy.h"
#include "proxyctl.h"

#if defined(__x86_64__)
#define WHY_AUDIT_ARCH ART_AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WHY_AUDIT_ARCH ART_AUDIT_ARCH_AARCH64
#endif

/* heel-why reads its settings and the policy; nothing slow. */
#define READY_TIMEOUT_MS 10000
/* Time to print the summary and write the audit lines. */
#define STOP_GRACE_MS 5000

/* The calls heel-why is shown: every one that names a path or an
 * address the walls judge. Never ioctl: the host commands' call is
 * heel-broker's (and a policy with them is refused anyway). */
static const int watched[] = {
#ifdef __NR_open
    __NR_open,	   __NR_creat,	   __NR_unlink,	     __NR_rmdir,	__NR_mkdir,
    __NR_rename,   __NR_link,	   __NR_symlink,     __NR_mknod,	__NR_chmod,
    __NR_chown,	   __NR_lchown,	   __NR_utimes,	     __NR_utime,	__NR_futimesat,
#endif
    __NR_openat,   __NR_openat2,   __NR_execve,	     __NR_execveat,	__NR_unlinkat,
    __NR_mkdirat,  __NR_renameat,  __NR_renameat2,   __NR_linkat,	__NR_symlinkat,
    __NR_mknodat,  __NR_fchmodat,  __NR_fchownat,    __NR_truncate,	__NR_utimensat,
    __NR_setxattr, __NR_lsetxattr, __NR_removexattr, __NR_lremovexattr, __NR_connect,
    __NR_bind,	   __NR_sendto,
};
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

int
linux_why_check(struct linux_why *w, const struct art_view *view, const struct hc_places *ps,
		char *err, size_t errlen)
{
	if (!w->kernel && linux_broker_wanted(view)) {
		snprintf(err, errlen,
			 "--why cannot watch a policy with host commands (ipc) here: the kernel "
			 "gives a process one seccomp listener, and heel-broker holds it; the "
			 "kernel-side observer (heel-observe), which needs none, needs root or "
			 "CAP_BPF and CAP_PERFMON; run without --why, or without the ipc commands");
		return -EBUSY;
	}
	return helper_find(ps, "heel-why", "--why", w->exe, sizeof(w->exe), err, errlen);
}

static int
send_setting(struct linux_why *w, const char *key, const char *value, int fd, char *err,
	     size_t errlen)
{
	return helper_send(&w->h, "heel-why", key, value, fd, err, errlen);
}

/* The artifact as heel-exec read and validated it, in a sealed memfd:
 * heel-why reads the same bytes, never a file a sandbox could change. */
static int
send_artifact(struct linux_why *w, const struct art_view *view, char *err, size_t errlen)
{
	int fd = memfd_create("heel-why-artifact", MFD_CLOEXEC | MFD_ALLOW_SEALING), r;
	size_t done = 0;

	if (fd < 0) {
		snprintf(err, errlen, "heel-why: memfd_create: %s", strerror(errno));
		return -errno;
	}
	while (done < view->len) {
		ssize_t n = write(fd, view->buf + done, view->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			close(fd);
			snprintf(err, errlen, "heel-why: the artifact: %s", strerror(-r));
			return r;
		}
		done += (size_t)n;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	r = send_setting(w, "artifact", NULL, fd, err, errlen);
	close(fd);
	return r;
}

int
linux_why_start(struct linux_why *w, const struct art_view *view, const struct hc_places *ps,
		const struct envb_launch *vars, char *err, size_t errlen)
{
	char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
	const char *sink;
	struct envb kept;
	int r, fd;

	w->h = (struct helper){.pidfd = -1, .ctl = -1};
	if ((r = helper_start(&w->h, w->exe, envp, err, errlen)) < 0)
		return r;
	if ((r = send_artifact(w, view, err, errlen)) < 0)
		return r;
	/* The variables the policy's paths name, as the launch expands
	 * them; nothing else of the environment. */
	if ((r = xw_keep_env(view, vars->env, &kept)) < 0) {
		snprintf(err, errlen, "heel-why: environment: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; r == 0 && i < kept.n; i++)
		r = send_setting(w, "env", kept.vars[i], -1, err, errlen);
	envb_free(&kept);
	if (r < 0 || (r = send_setting(w, "cwd", vars->cwd, -1, err, errlen)) < 0)
		return r;
	/* The same checked sink as heel-proxy's and heel-broker's. */
	if ((r = helper_audit_sink(view, ps, vars, &sink, &fd, err, errlen)) < 0)
		return r;
	if (sink) {
		r = send_setting(w, "audit", sink, fd, err, errlen);
		close(fd);
	}
	return r;
}

int
linux_why_denials(struct linux_why *w, int fd, char *err, size_t errlen)
{
	return send_setting(w, "denials", NULL, fd, err, errlen);
}

int
linux_why_proxy(struct linux_why *w, int fd, char *err, size_t errlen)
{
	return send_setting(w, "proxy", NULL, fd, err, errlen);
}

int
linux_why_prepare(struct linux_why *w, const char *workdir, char *err, size_t errlen)
{
	int r = send_setting(w, "workdir", workdir, -1, err, errlen);

	if (r == 0 && w->kernel)
		r = send_setting(w, "kernel", NULL, -1, err, errlen);
	return r < 0 ? r : send_setting(w, "end", NULL, -1, err, errlen);
}

/* Every watched call of this architecture goes to the listener; the rest,
 * and other architectures (which the policy's filter kills), pass on to
 * the policy's filter's verdict. */
static int
load_watch_filter(char *err, size_t errlen)
{
	struct sock_filter prog[3 + NWATCHED + 2];
	struct sock_fprog fprog = {.len = (unsigned short)(3 + NWATCHED + 2), .filter = prog};
	size_t n = 0;
	long fd;

	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WHY_AUDIT_ARCH, 0,
						 (unsigned char)(NWATCHED + 1));
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < NWATCHED; i++)
		prog[n++] =
		    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)watched[i],
						 (unsigned char)(NWATCHED - i), 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	fd =
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "--why: loading the watching filter: %s%s", strerror(e),
			 e == EBUSY ? " (this process runs under a seccomp listener already: a "
				      "container engine's supervisor, or a sandbox's host commands)"
				    : "");
		return -e;
	}
	return (int)fd;
}

int
linux_why_watch(struct linux_why *w, char *err, size_t errlen)
{
	int listener = load_watch_filter(err, errlen), r;

	if (listener < 0)
		return listener;
	/* heel-why alone holds it from here: if it dies, the listener is
	 * gone and the kernel fails the watched calls (ENOSYS). */
	r = proxyctl_send(w->h.ctl, "listen", NULL, listener);
	close(listener);
	if (r < 0) {
		snprintf(err, errlen, "heel-why is gone (%s)", strerror(-r));
		return r;
	}
	return helper_wait_ready(w->h.ctl, "heel-why", READY_TIMEOUT_MS, err, errlen);
}

int
linux_why_observed(struct linux_why *w, int lines_fd)
{
	char err[256];

	return send_setting(w, "observed", NULL, lines_fd, err, sizeof(err));
}

int
linux_why_stop(struct linux_why *w)
{
	int died = helper_died(&w->h);

	helper_stop(&w->h, STOP_GRACE_MS);
	return died;
}

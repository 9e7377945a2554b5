/* SPDX-License-Identifier: MIT
 * heel-exec's helper programs (linux_helper.h). */
#include "linux_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "artifact.h"
#include "env.h"
#include "pathexpand.h"
#include "proxyctl.h"

int
helper_audit_sink(const struct art_view *view, const struct hc_places *ps,
		  const struct envb_launch *vars, const char **kind, int *fd, char *err,
		  size_t errlen)
{
	struct art_scalar audit, audit_path;
	struct px_info info;
	char why[256], path[PATH_MAX], what[PATH_MAX + 64];
	int r;

	*kind = NULL;
	if (fd)
		*fd = -1;
	if (art_scalar(view, ART_LINUX, ART_SC_AUDIT_KIND, &audit) < 0 || !audit.set ||
	    !audit.value || art_scalar(view, ART_LINUX, ART_SC_AUDIT_PATH, &audit_path) < 0 ||
	    !audit_path.str)
		return 0;
	/* The launch's own expansion: `${CWD}` and a relative path are the
	 * launch directory, as heel(5) PATHS says. */
	r = px_expand(audit_path.str, envb_launch_lookup, (void *)vars, path, sizeof(path), &info);
	if (r < 0) {
		snprintf(err, errlen, "network audit \"%s\": %s", audit_path.str,
			 px_describe(&info, why, sizeof(why)));
		return r;
	}
	snprintf(what, sizeof(what), "network audit%s \"%s\":", audit.value == 2 ? " daily" : "",
		 audit_path.str);
	if (strcmp(audit_path.str, path) == 0)
		snprintf(what, sizeof(what), "network audit%s:", audit.value == 2 ? " daily" : "");
	r = fd ? hc_open_append(ps, what, path, audit.value == 2, fd, err, errlen)
	       : hc_check(ps, HC_APPEND, what, path, err, errlen);
	if (r < 0)
		return r;
	*kind = audit.value == 2 ? "daily" : "file";
	return 0;
}

int
helper_find(const struct hc_places *ps, const char *name, const char *what, char *out,
	    size_t cap, char *err, size_t errlen)
{
	char who[64];
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0) {
		snprintf(err, errlen, "cannot find %s: /proc/self/exe: %s", name, strerror(errno));
		return -errno;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash || snprintf(out, cap, "%.*s/%s", (int)(slash - self), self, name) >= (int)cap) {
		snprintf(err, errlen, "cannot find %s beside %s", name, self);
		return -ENAMETOOLONG;
	}
	if (access(out, X_OK) < 0) {
		snprintf(err, errlen,
			 "%s needs %s, and %s is missing (%s): it is installed beside heel-exec", what,
			 name, out, strerror(errno));
		return -ENOENT;
	}
	snprintf(who, sizeof(who), "%s:", name);
	return hc_check(ps, HC_RUN, who, out, err, errlen);
}

int
helper_start(struct helper *h, const char *exe, char *const envp[], char *err, size_t errlen)
{
	const char *base = strrchr(exe, '/');
	char *const argv[] = { (char *)(base ? base + 1 : exe), NULL };
	int ctl[2];
	pid_t pid;

	h->pid = 0;
	h->pidfd = h->ctl = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -errno;
	}
	/* vfork: we wait the few microseconds to its execve instead of
	 * copying our page tables and then faulting on every page the
	 * Landlock planning writes. The child only makes system calls. */
	pid = vfork();
	if (pid < 0) {
		snprintf(err, errlen, "vfork: %s", strerror(errno));
		close(ctl[0]);
		close(ctl[1]);
		return -errno;
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* Already there, dup2 would leave it close-on-exec. */
		if (ctl[1] == HELPER_CTL_FD ? fcntl(HELPER_CTL_FD, F_SETFD, 0) < 0
					    : dup2(ctl[1], HELPER_CTL_FD) < 0)
			_exit(127);
		/* Nothing else of ours, or of whoever started us. */
		if (syscall(SYS_close_range, HELPER_CTL_FD + 1U, ~0U, 0U) < 0)
			for (int fd = HELPER_CTL_FD + 1; fd < 65536; fd++)
				close(fd);
		execve(exe, argv, envp);
		_exit(127);
	}
	close(ctl[1]);
	h->pid = pid;
	h->ctl = ctl[0];
	h->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

int
helper_send(struct helper *h, const char *name, const char *key, const char *value, int fd,
	    char *err, size_t errlen)
{
	int r = proxyctl_send(h->ctl, key, value, fd);

	if (r < 0)
		snprintf(err, errlen, "%s setting %s: %s", name, key, strerror(-r));
	return r;
}

int
helper_wait_ready(int ctl, const char *name, int timeout_ms, char *err, size_t errlen)
{
	char msg[PROXYCTL_MSG_MAX];
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	int r, extra;
	long n;

	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		snprintf(err, errlen, "%s did not say it was ready within %d s", name,
			 timeout_ms / 1000);
		return -ETIMEDOUT;
	}
	n = proxyctl_recv(ctl, msg, sizeof(msg), &extra);
	if (extra >= 0)
		close(extra);
	if (n > 0 && !strcmp(msg, "ready"))
		return 0;
	if (n > 0 && proxyctl_value(msg, "error"))
		snprintf(err, errlen, "%s: %s", name, proxyctl_value(msg, "error"));
	else
		snprintf(err, errlen, "%s exited before it was ready", name);
	return -EIO;
}

int
helper_died(const struct helper *h)
{
	struct pollfd pfd = { .fd = h->pidfd, .events = POLLIN };

	if (!h->pid)
		return 0;
	if (h->pidfd >= 0)
		return poll(&pfd, 1, 0) == 1;
	/* Without pidfds (Linux < 5.3): alive unless already gone. */
	return kill(h->pid, 0) < 0 && errno == ESRCH;
}

void
helper_stop(struct helper *h, int grace_ms)
{
	struct pollfd pfd = { .fd = h->pidfd, .events = POLLIN };

	if (h->ctl >= 0)
		close(h->ctl);
	h->ctl = -1;
	if (h->pid > 0) {
		/* A helper that cleans up (the broker kills the calls it runs)
		 * gets its moment; the rest never notice the difference. */
		if (grace_ms > 0 && h->pidfd >= 0)
			while (poll(&pfd, 1, grace_ms) < 0 && errno == EINTR)
				;
		kill(h->pid, SIGKILL);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
		h->pid = 0;
	}
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
}

/* SPDX-License-Identifier: MIT
 * Process tree: subreaper, PID 1, signal forwarding, tree kill; see
 * proctree.h. */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
pt_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

int
pt_die_with_parent(pid_t parent, int sig)
{
	if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) < 0)
		return -errno;
	/* The parent may have died between fork and prctl: the signal is
	 * only sent for a death after the request. */
	if (parent && getppid() != parent)
		return -ESRCH;
	return 0;
}

void
pt_forward_set(sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(set, sigs[i]);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
pt_wait_child(pid_t child, pid_t pgid, const sigset_t *fwd, int *first_signal)
{
	return pt_wait_child_watch(child, pgid, fwd, first_signal, NULL, NULL);
}

int
pt_jobctl_arm(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK | O_ASYNC) < 0)
		return -errno;
	return 0;
}

/* Reads every report the init sent; only the last counts (a stop that
 * was continued since needs nothing). */
static void
jobctl_drain(const struct pt_jobctl *jc)
{
	unsigned char buf[64];
	int last = -1;
	ssize_t n;

	while ((n = read(jc->fd, buf, sizeof(buf))) > 0)
		last = buf[n - 1];
	if (last > 0)
		jc->stopped(last, jc->ctx);
}

int
pt_wait_child_watch(pid_t child, pid_t pgid, const sigset_t *fwd, int *first_signal,
		    const struct pt_watch *watch, const struct pt_jobctl *jc)
{
	sigset_t set = *fwd;
	long long deadline = -1, watch_at = -1;
	siginfo_t info;
	int status = 0, sig;
	pid_t pid;

	*first_signal = 0;
	sigaddset(&set, SIGCHLD);
	if (jc)
		sigaddset(&set, SIGIO);
	if (watch)
		watch_at = now_ms();
	for (;;) {
		long long now, wake;

		/* SIGCHLD may have been merged with another: reap all. */
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == child)
				return status;
		if (pid < 0 && errno == ECHILD)
			return status;

		now = now_ms();
		if (deadline >= 0 && deadline <= now) {
			/* Only kill here: the caller still wants the child's
			 * status, and sweeps the rest with pt_kill_tree()
			 * once it has it. */
			if (pgid > 0)
				kill(-pgid, SIGKILL);
			kill(child, SIGKILL);
			deadline = -1;
			continue;
		}
		if (watch_at >= 0 && watch_at <= now) {
			long next = watch->check(watch->ctx);

			watch_at = next < 0 ? -1 : now + next;
			continue;
		}
		wake = deadline;
		if (watch_at >= 0 && (wake < 0 || watch_at < wake))
			wake = watch_at;
		if (wake < 0) {
			sig = sigwaitinfo(&set, &info);
		} else {
			struct timespec ts = { (wake - now) / 1000, ((wake - now) % 1000) * 1000000 };

			sig = sigtimedwait(&set, &info, &ts);
		}
		if (sig == SIGIO && jc) {
			jobctl_drain(jc);
			continue;
		}
		if (sig < 0 || sig == SIGCHLD)
			continue;
		kill(child, sig);
		if (!*first_signal) {
			*first_signal = sig;
			deadline = now_ms() + PT_GRACE_MS;
		}
	}
}

int
pt_init_wait(pid_t cmd, const sigset_t *fwd, pid_t target, pid_t parent,
	     int *status)
{
	return pt_init_wait_jobs(cmd, fwd, target, parent, -1, status);
}

int
pt_init_wait_jobs(pid_t cmd, const sigset_t *fwd, pid_t target, pid_t parent, int jc_fd,
		  int *status)
{
	int flags = WNOHANG | (jc_fd >= 0 ? WUNTRACED | WCONTINUED : 0);
	sigset_t set = *fwd;
	siginfo_t info;
	int st;
	pid_t pid;
	int sig;

	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	for (;;) {
		/* Orphans are re-parented to us (PID 1, or a subreaper): reap
		 * them too, or they stay zombies until the end. A stop or a
		 * continue is not an end: only the command's are reported. */
		while ((pid = waitpid(-1, &st, flags)) > 0) {
			if (pid != cmd)
				continue;
			if (WIFSTOPPED(st) || WIFCONTINUED(st)) {
				unsigned char b = WIFSTOPPED(st) ? (unsigned char)WSTOPSIG(st) : 0;

				/* Never blocks (O_NONBLOCK): the pipe fills only
				 * when a sandbox stops and continues its command
				 * thousands of times while the launcher is
				 * stopped; then the newest reports are lost and
				 * only that job is confused. */
				(void)!write(jc_fd, &b, 1);
				continue;
			}
			*status = st;
			return 0;
		}
		if (pid < 0 && errno == ECHILD)
			return -ECHILD;
		sig = sigwaitinfo(&set, &info);
		/* The parent-death signal, or any signal after the launcher
		 * died: there is nobody left to clean up but us. */
		if (parent && getppid() != parent)
			return -ESRCH;
		if (sig < 0 || sig == SIGCHLD || !sigismember(fwd, sig))
			continue;
		/* SI_KERNEL: the terminal sent it to the foreground process
		 * group, which the command is in: it has it already. Our own
		 * kill() to the group comes back to us: not again. */
		if (info.si_code == SI_KERNEL ||
		    (info.si_code == SI_USER && info.si_pid == getpid()))
			continue;
		kill(target, sig);
	}
}

size_t
pt_parse_pids(char *buf, size_t len, bool full, pid_t *pids, size_t max)
{
	char *p = buf, *end;
	size_t n = 0;

	/* A full buffer may end inside a number: "... 12345" read as
	 * "... 123" would name another process. Drop the last token; the
	 * caller lists again once these are gone. */
	if (full) {
		while (len > 0 && buf[len - 1] != ' ' && buf[len - 1] != '\n')
			len--;
	}
	buf[len] = '\0';
	while (n < max) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0)
			pids[n++] = (pid_t)v;
		p = end;
	}
	return n;
}

/* Lists the caller's children into pids (up to max); returns how many. The
 * kernel keeps the list per thread; the launcher has one thread. Without
 * CONFIG_PROC_CHILDREN, scans /proc for processes whose parent we are. */
static size_t
list_children(pid_t *pids, size_t max)
{
	char path[64], buf[4096];
	size_t n = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len >= 0)
			return pt_parse_pids(buf, (size_t)len, (size_t)len == sizeof(buf) - 1, pids,
					     max);
	}

	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		char *end, *rp;
		long v = strtol(e->d_name, &end, 10);
		int ppid;

		if (*end || v <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", v);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) state ppid ...": comm may hold anything, so
		 * parse from its last ')'. */
		rp = strrchr(buf, ')');
		if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == getpid())
			pids[n++] = (pid_t)v;
	}
	closedir(d);
	return n;
}

void
pt_kill_tree(pid_t pgid)
{
	pid_t pids[256];
	size_t n;

	if (pgid > 0)
		kill(-pgid, SIGKILL);
	/* A killed process's own children are re-parented to us, the
	 * subreaper, when it dies: so kill our children, reap one, and
	 * look again, until there is no child left. A process with
	 * SIGKILL pending cannot fork, so this ends. */
	for (;;) {
		n = list_children(pids, sizeof(pids) / sizeof(pids[0]));
		for (size_t i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			break;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

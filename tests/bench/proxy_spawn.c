/* SPDX-License-Identifier: MIT
 * heel-proxy started over its control protocol (proxy_spawn.h). */
#include "proxy_spawn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proxyctl.h"

int
spawn_heel_proxy(struct spawned_proxy *p, const char *exe, const char *token, int listen_fd,
		 char *err, size_t errlen)
{
	char msg[PROXYCTL_MSG_MAX];
	struct pollfd pfd;
	int sv[2], extra;
	long n;

	p->pid = -1;
	p->ctl = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	p->pid = fork();
	if (p->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (p->pid == 0) {
		char *const argv[] = { (char *)"heel-proxy", NULL };
		char *const envp[] = { (char *)"PATH=/usr/bin:/bin", NULL };

		if (dup2(sv[1], PROXYCTL_FD) < 0)
			_exit(127);
		execve(exe, argv, envp);
		_exit(127);
	}
	close(sv[1]);
	p->ctl = sv[0];
	if (proxyctl_send(p->ctl, "token", token, -1) < 0 ||
	    proxyctl_send(p->ctl, "mode", "allow-all", -1) < 0 ||
	    proxyctl_send(p->ctl, "end", NULL, -1) < 0 ||
	    proxyctl_send(p->ctl, "listen", NULL, listen_fd) < 0) {
		snprintf(err, errlen, "heel-proxy's control socket: %s", strerror(errno));
		return -1;
	}
	pfd = (struct pollfd){ .fd = p->ctl, .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1) {
		snprintf(err, errlen, "heel-proxy did not say ready within 10 s");
		return -1;
	}
	n = proxyctl_recv(p->ctl, msg, sizeof(msg), &extra);
	if (extra >= 0)
		close(extra);
	if (n > 0 && !strcmp(msg, "ready"))
		return 0;
	snprintf(err, errlen, "heel-proxy: %s", n > 0 ? msg : "exited before ready");
	return -1;
}

int
stop_heel_proxy(struct spawned_proxy *p, char *err, size_t errlen)
{
	struct timespec nap = { 0, 1000000 };
	int status;

	if (p->ctl >= 0)
		close(p->ctl);
	p->ctl = -1;
	if (p->pid <= 0)
		return 0;
	for (int i = 0; i < 5000; i++) {
		pid_t r = waitpid(p->pid, &status, WNOHANG);

		if (r == p->pid) {
			p->pid = -1;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				return 0;
			snprintf(err, errlen, "heel-proxy ended with status %#x", status);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, NULL, 0);
	p->pid = -1;
	snprintf(err, errlen, "heel-proxy did not stop within 5 s of its control socket closing");
	return -1;
}

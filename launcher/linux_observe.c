/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-observe (linux_observe.h). */
#include "linux_observe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proxyctl.h"

/* Loading and verifying takes a quarter of a second on an idle machine;
 * one that has not answered in this long is not coming, and the command
 * runs without it. */
#define OBSERVE_READY_MS 10000

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* Root, or CAP_BPF and CAP_PERFMON in the effective set: what loading
 * tracing programs needs (bpf(2), "Capabilities"). */
static bool
may_load_bpf(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	if (data[0].effective & (1U << CAP_SYS_ADMIN))
		return true;
	return (data[1].effective & (1U << (CAP_BPF - 32))) &&
	       (data[1].effective & (1U << (CAP_PERFMON - 32)));
}

void
linux_observe_start(struct linux_observe *o, const struct hc_places *ps, bool *warn, char *why,
		    size_t whylen)
{
	char exe[PATH_MAX], err[1024];
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int r;

	*o = (struct linux_observe){ .h = { .pidfd = -1, .ctl = -1 }, .out = -1 };
	*warn = false;
	why[0] = '\0';
	if (!may_load_bpf()) {
		snprintf(why, whylen, "not privileged (it needs root, or CAP_BPF and CAP_PERFMON)");
		return;
	}
	r = helper_find(ps, "heel-observe", "the denial observer", exe, sizeof(exe), err,
			sizeof(err));
	if (r == -ENOENT) {
		snprintf(why, whylen, "heel-observe is not installed beside heel-exec");
		return;
	}
	if (r < 0) {
		/* Refused by the host-side check: a sandbox could have written
		 * it, and it would run as root. Never run, never silent. */
		*warn = true;
		snprintf(why, whylen, "not started: %s", err);
		return;
	}
	o->out = (int)syscall(SYS_memfd_create, "heel-observe", 1U /* MFD_CLOEXEC */);
	if (o->out < 0) {
		snprintf(why, whylen, "memfd_create: %s", strerror(errno));
		return;
	}
	if (helper_start(&o->h, exe, envp, err, sizeof(err)) < 0 ||
	    helper_send(&o->h, "heel-observe", "out", NULL, o->out, err, sizeof(err)) < 0 ||
	    helper_send(&o->h, "heel-observe", "end", NULL, -1, err, sizeof(err)) < 0) {
		snprintf(why, whylen, "%s", err);
		helper_stop(&o->h, 0);
		close(o->out);
		o->out = -1;
		return;
	}
	o->on = true;
}

int
linux_observe_aim(struct linux_observe *o, pid_t child, char *why, size_t whylen)
{
	char path[64], num[32], msg[PROXYCTL_MSG_MAX];
	struct pollfd pfd = { .fd = o->h.ctl, .events = POLLIN };
	struct stat st;
	int r, fd = -1;
	long n;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)child);
	if (stat(path, &st) < 0) {
		r = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto off;
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)st.st_ino);
	if ((r = proxyctl_send(o->h.ctl, "pidns", num, -1)) < 0) {
		/* Gone already: its own line is what it answered. */
		n = proxyctl_recv(o->h.ctl, msg, sizeof(msg), &fd);
		snprintf(why, whylen, "%s", n > 0 && proxyctl_value(msg, "error")
						    ? proxyctl_value(msg, "error") : strerror(-r));
		goto off;
	}
	do
		r = poll(&pfd, 1, OBSERVE_READY_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		r = -ETIMEDOUT;
		snprintf(why, whylen, "not ready within %d s", OBSERVE_READY_MS / 1000);
		goto off;
	}
	n = proxyctl_recv(o->h.ctl, msg, sizeof(msg), &fd);
	if (fd >= 0)
		close(fd);
	if (n > 0 && proxyctl_value(msg, "ready")) {
		snprintf(o->what, sizeof(o->what), "%s", proxyctl_value(msg, "ready"));
		return 0;
	}
	r = -EIO;
	snprintf(why, whylen, "%s", n > 0 && proxyctl_value(msg, "error")
					    ? proxyctl_value(msg, "error") : "it exited before it was ready");
off:
	helper_stop(&o->h, 0);
	o->on = false;
	return r;
}

char *
linux_observe_lines(const struct linux_observe *o)
{
	struct stat st;
	char *buf;
	size_t at = 0;

	if (o->out < 0 || fstat(o->out, &st) < 0 || st.st_size < 0)
		return NULL;
	if (!(buf = malloc((size_t)st.st_size + 1)))
		return NULL;
	while (at < (size_t)st.st_size) {
		ssize_t r = pread(o->out, buf + at, (size_t)st.st_size - at, (off_t)at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		at += (size_t)r;
	}
	buf[at] = '\0';
	return buf;
}

void
linux_observe_stop(struct linux_observe *o)
{
	char *lines, *p;

	struct pollfd pfd = { .fd = o->h.ctl, .events = POLLIN };
	char msg[PROXYCTL_MSG_MAX];
	int fd = -1, r;

	if (!o->on)
		return;
	/* "done" once every line is written; its detaching after that takes
	 * an RCU grace period a program, which no one needs to wait for:
	 * it exits by itself, reaped by whoever inherits it. */
	o->on = false;
	o->died = helper_died(&o->h);
	if (proxyctl_send(o->h.ctl, "stop", NULL, -1) == 0) {
		do
			r = poll(&pfd, 1, OBSERVE_READY_MS);
		while (r < 0 && errno == EINTR);
		if (r == 1 && proxyctl_recv(o->h.ctl, msg, sizeof(msg), &fd) > 0 &&
		    !strcmp(msg, "done")) {
			if (fd >= 0)
				close(fd);
			close(o->h.ctl);
			o->h.ctl = -1;
			if (o->h.pidfd >= 0)
				close(o->h.pidfd);
			o->h.pidfd = -1;
			o->h.pid = 0;
		}
	}
	if (o->h.pid)
		helper_stop(&o->h, 2000);
	if (!(lines = linux_observe_lines(o)))
		return;
	for (p = lines; (p = strstr(p, "\"type\":\"denial-raw")); p++) {
		const char *c;

		if (strncmp(p, "\"type\":\"denial-raw-lost\"", 24)) {
			o->denials++;
			continue;
		}
		if ((c = strstr(p, "\"count\":")))
			o->lost += strtoul(c + 8, NULL, 10);
	}
	free(lines);
}

void
linux_observe_free(struct linux_observe *o)
{
	if (o->on)
		helper_stop(&o->h, 0);
	o->on = false;
	if (o->out >= 0)
		close(o->out);
	o->out = -1;
}

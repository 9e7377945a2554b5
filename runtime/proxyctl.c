/* SPDX-License-Identifier: MIT
 * heel-exec <-> heel-proxy messages (proxyctl.h). */
#include "proxyctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

int
proxyctl_send(int sock, const char *key, const char *value, int fd)
{
	char buf[PROXYCTL_MSG_MAX];
	union {
		struct cmsghdr align;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int n;

	n = value ? snprintf(buf, sizeof(buf), "%s=%s", key, value)
		  : snprintf(buf, sizeof(buf), "%s", key);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EMSGSIZE;
	iov.iov_base = buf;
	iov.iov_len = (size_t)n;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.space;
		mh.msg_controllen = sizeof(ctl.space);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	for (;;) {
		ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL);

		if (w == n)
			return 0;
		if (w < 0 && errno == EINTR)
			continue;
		return w < 0 ? -errno : -EIO;
	}
}

long
proxyctl_recv(int sock, char *buf, size_t cap, int *fd)
{
	union {
		struct cmsghdr align;
		char space[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
			     .msg_controllen = sizeof(ctl.space) };
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	/* A truncated message would be a different setting than sent. */
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EMSGSIZE;
	}
	buf[n] = '\0';
	if (strlen(buf) != (size_t)n) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EINVAL;
	}
	return (long)n;
}

const char *
proxyctl_value(const char *msg, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(msg, key, k) != 0)
		return NULL;
	if (msg[k] == '\0')
		return msg + k;
	return msg[k] == '=' ? msg + k + 1 : NULL;
}

int
proxyctl_token(char *hex, size_t cap)
{
	unsigned char raw[PROXYCTL_TOKEN_BYTES];
	size_t got = 0;

	if (cap < 2 * sizeof(raw) + 1)
		return -ENOBUFS;
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

void
proxyctl_report_error(int sock, const char *prog, const char *line)
{
	if (proxyctl_send(sock, "error", line, -1) < 0)
		fprintf(stderr, "%s: %s\n", prog, line);
}

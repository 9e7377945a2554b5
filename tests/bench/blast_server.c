/* SPDX-License-Identifier: MIT
 * The "remote" server of the proxy benchmarks (tests/bench/proxy.sh): it
 * runs in a network namespace of its own, one thread, one epoll set, so
 * a new connection costs it no thread or process that a proxy's own
 * work could hide (the latency test would then favour the proxies). The
 * first byte a client sends says what it wants:
 *   'S' and an 8-byte little-endian count: that many bytes of the
 *       pattern of blast.h, then the connection closes;
 *   'E': everything it sends afterwards comes back (echo) until it ends;
 *   'P': what it sends comes back BLAST_PAIR bytes at a time, once all of
 *       them came: a request the client writes in two parts, as an HTTP
 *       client writes a head and then a body, answered when whole.
 * Usage: blast_server ADDRESS PORT */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "blast.h"

enum state { ST_MODE, ST_COUNT, ST_SOURCE, ST_ECHO, ST_PAIRS };

struct conn {
	int fd;
	enum state st;
	uint8_t count[8];
	size_t have;	/* bytes of count read */
	uint64_t sent, total; /* ST_SOURCE */
	size_t off, len;      /* ST_ECHO: buf[off..len) still to write back;
			       * ST_PAIRS: buf[0..len) of the next request */
	char buf[16384];
};

static uint8_t pattern[BLAST_BLOCK];
static int epfd;

static void
drop(struct conn *c)
{
	close(c->fd); /* leaves the epoll set with it */
	free(c);
}

static void
want(struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes the pattern until the socket is full or the count is sent;
 * the pattern repeats every BLAST_BLOCK bytes of the stream. 0: more to
 * send later; -1: done or gone. */
static int
source(struct conn *c)
{
	while (c->sent < c->total) {
		size_t at = (size_t)(c->sent % BLAST_BLOCK), n = BLAST_BLOCK - at;
		ssize_t w;

		if (n > c->total - c->sent)
			n = (size_t)(c->total - c->sent);
		w = write(c->fd, pattern + at, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return 0;
		if (w <= 0)
			return -1;
		c->sent += (uint64_t)w;
	}
	return -1;
}

/* Reads and writes back what came, holding what the socket would not
 * take. 0: more later; -1: the client ended or is gone. */
static int
echo(struct conn *c)
{
	for (;;) {
		ssize_t n;

		while (c->off < c->len) {
			n = write(c->fd, c->buf + c->off, c->len - c->off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				want(c, EPOLLOUT);
				return 0;
			}
			if (n <= 0)
				return -1;
			c->off += (size_t)n;
		}
		c->off = c->len = 0;
		n = read(c->fd, c->buf, sizeof(c->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			want(c, EPOLLIN);
			return 0;
		}
		if (n <= 0)
			return -1;
		c->len = (size_t)n;
	}
}

/* Answers each whole request of BLAST_PAIR bytes with its bytes. The
 * answer is small and the client reads it before it writes again, so
 * the socket always has room for it. 0: more later; -1: done or gone. */
static int
pairs(struct conn *c)
{
	for (;;) {
		ssize_t n = read(c->fd, c->buf + c->len, BLAST_PAIR - c->len);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		c->len += (size_t)n;
		if (c->len < BLAST_PAIR)
			continue;
		if (write(c->fd, c->buf, BLAST_PAIR) != BLAST_PAIR)
			return -1;
		c->len = 0;
	}
}

static int
serve(struct conn *c)
{
	ssize_t n;

	switch (c->st) {
	case ST_MODE: {
		char mode;

		n = read(c->fd, &mode, 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0 || !strchr("SEP", mode))
			return -1;
		c->st = mode == 'S' ? ST_COUNT : mode == 'E' ? ST_ECHO : ST_PAIRS;
		return serve(c);
	}
	case ST_COUNT:
		n = read(c->fd, c->count + c->have, sizeof(c->count) - c->have);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		c->have += (size_t)n;
		if (c->have < sizeof(c->count))
			return 0;
		for (int i = 7; i >= 0; i--)
			c->total = c->total << 8 | c->count[i];
		c->st = ST_SOURCE;
		want(c, EPOLLOUT);
		return source(c);
	case ST_SOURCE:
		return source(c);
	case ST_ECHO:
		return echo(c);
	case ST_PAIRS:
		return pairs(c);
	}
	return -1;
}

static void
accept_all(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct epoll_event ev = { .events = EPOLLIN };
		struct conn *c;

		if (fd < 0)
			return; /* EAGAIN; EMFILE waits for a close */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		ev.data.ptr = c;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
			drop(c);
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rlimit nofile = { 65536, 65536 };
	struct epoll_event ev = { .events = EPOLLIN }, evs[64];
	static char listen_mark; /* the epoll data of the listening socket */
	int lfd, one = 1;

	if (argc != 3 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fprintf(stderr, "usage: blast_server ADDRESS PORT\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	signal(SIGPIPE, SIG_IGN);
	/* A socket per tunnel of the 1,000-tunnel test: as many as we may. */
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0 && getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	blast_pattern(pattern);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ev.data.ptr = &listen_mark;
	if (lfd < 0 || epfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 4096) < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev) < 0) {
		fprintf(stderr, "blast_server: %s:%s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	for (;;) {
		int n = epoll_wait(epfd, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &listen_mark)
				accept_all(lfd);
			else if (serve(evs[i].data.ptr) < 0)
				drop(evs[i].data.ptr);
		}
	}
}

/* SPDX-License-Identifier: MIT
 * c-ares in heel-proxy's epoll loop (dns.h). */
#include "dns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "watch.h"

/* c-ares keeps a few sockets open at a time (one per name server and
 * transport); more than this would be a c-ares we do not know. */
#define DNS_SOCKETS 32

struct dns_sock {
	struct proxy_watch w; /* first: the epoll data points here */
	struct proxy_dns *d;
};

struct proxy_dns {
	ares_channel ch;
	int epfd;
	struct dns_sock socks[DNS_SOCKETS];
};

static void
dns_event(struct proxy_watch *w, uint32_t events)
{
	struct dns_sock *s = (struct dns_sock *)w;
	int fd = w->fd;

	ares_process_fd(s->d->ch, events & (EPOLLIN | EPOLLERR | EPOLLHUP) ? fd : ARES_SOCKET_BAD,
			events & EPOLLOUT ? fd : ARES_SOCKET_BAD);
}

/* c-ares says which of its sockets it wants to read or write. */
static void
sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct proxy_dns *d = data;
	struct dns_sock *s = NULL, *free_slot = NULL;
	uint32_t ev = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);

	for (size_t i = 0; i < DNS_SOCKETS; i++) {
		if (d->socks[i].w.fd == fd && d->socks[i].w.events)
			s = &d->socks[i];
		else if (!free_slot && !d->socks[i].w.events)
			free_slot = &d->socks[i];
	}
	if (!s) {
		if (!ev || !free_slot)
			return; /* a lookup on it then times out: fails closed */
		s = free_slot;
		s->w.fd = fd;
		s->w.events = 0;
	}
	proxy_watch_set(d->epfd, &s->w, ev);
}

int
proxy_dns_open(struct proxy_dns **out, int epfd, char *err, size_t errlen)
{
	struct ares_options o;
	struct proxy_dns *d;
	int r, mask = 0;

	if ((r = ares_library_init(ARES_LIB_INIT_ALL)) != ARES_SUCCESS) {
		snprintf(err, errlen, "c-ares: %s", ares_strerror(r));
		return -EIO;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->epfd = epfd;
	for (size_t i = 0; i < DNS_SOCKETS; i++) {
		d->socks[i].d = d;
		d->socks[i].w.fd = -1;
		d->socks[i].w.on_event = dns_event;
	}
	memset(&o, 0, sizeof(o));
	o.sock_state_cb = sock_state;
	o.sock_state_cb_data = d;
	mask |= ARES_OPT_SOCK_STATE_CB;
	/* Two tries of 2 s each per server: a dead name server costs a
	 * client seconds, not the minute of resolv.conf's defaults. */
	o.timeout = 2000;
	mask |= ARES_OPT_TIMEOUTMS;
	o.tries = 2;
	mask |= ARES_OPT_TRIES;
	/* /etc/hosts first, as the C library would. */
	o.lookups = (char *)"fb";
	mask |= ARES_OPT_LOOKUPS;
	if ((r = ares_init_options(&d->ch, &o, mask)) != ARES_SUCCESS) {
		snprintf(err, errlen, "c-ares: %s", ares_strerror(r));
		free(d);
		return -EIO;
	}
	*out = d;
	return 0;
}

void
proxy_dns_close(struct proxy_dns *d)
{
	if (!d)
		return;
	ares_destroy(d->ch);
	free(d);
	ares_library_cleanup();
}

struct lookup {
	proxy_dns_done cb;
	void *ctx;
};

static void
lookup_done(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct lookup *l = arg;

	(void)timeouts;
	if (status != ARES_SUCCESS && res) {
		ares_freeaddrinfo(res);
		res = NULL;
	}
	l->cb(l->ctx, status, res);
	free(l);
}

void
proxy_dns_resolve(struct proxy_dns *d, const char *name, proxy_dns_done cb, void *ctx)
{
	struct ares_addrinfo_hints hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		/* The order the answer gives; sorting would open a probe
		 * socket per address. */
		.ai_flags = ARES_AI_NOSORT,
	};
	struct lookup *l = malloc(sizeof(*l));

	if (!l) {
		cb(ctx, ARES_ENOMEM, NULL);
		return;
	}
	l->cb = cb;
	l->ctx = ctx;
	ares_getaddrinfo(d->ch, name, NULL, &hints, lookup_done, l);
}

int
proxy_dns_timeout(struct proxy_dns *d, int max_ms)
{
	struct timeval max = { max_ms / 1000, (max_ms % 1000) * 1000 }, tv, *t;

	t = ares_timeout(d->ch, &max, &tv);
	return (int)(t->tv_sec * 1000 + (t->tv_usec + 999) / 1000);
}

void
proxy_dns_tick(struct proxy_dns *d)
{
	ares_process_fd(d->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

/* SPDX-License-Identifier: MIT
 * One descriptor in heel-proxy's epoll set: what to call when it is
 * ready. Every registered descriptor's epoll data points at one, so the
 * loop needs no table from descriptor to owner. */
#ifndef HEEL_PROXY_WATCH_H
#define HEEL_PROXY_WATCH_H

#include <stdint.h>

struct proxy_watch {
	int fd;
	uint32_t events; /* what is registered; 0: not in the set */
	void (*on_event)(struct proxy_watch *w, uint32_t events);
};

/* Registers, changes or removes (events 0) w in epfd so that it holds
 * `events`; nothing happens when that is already so. 0 or -errno. */
int proxy_watch_set(int epfd, struct proxy_watch *w, uint32_t events);

#endif

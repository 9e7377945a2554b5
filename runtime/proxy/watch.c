/* SPDX-License-Identifier: MIT
 * epoll registration (watch.h). */
#include "watch.h"

#include <errno.h>
#include <sys/epoll.h>

int
proxy_watch_set(int epfd, struct proxy_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };
	int op;

	if (events == w->events)
		return 0;
	if (!events)
		op = EPOLL_CTL_DEL;
	else
		op = w->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(epfd, op, w->fd, &ev) < 0 && !(op == EPOLL_CTL_DEL && errno == EBADF))
		return -errno;
	w->events = events;
	return 0;
}

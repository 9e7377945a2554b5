/* SPDX-License-Identifier: MIT
 * Starts heel-proxy the way heel-exec does (runtime/proxyctl.h): the
 * control socket as descriptor PROXYCTL_FD, the settings, the listening
 * socket, then "ready". For the proxy benchmarks, which measure the
 * proxy alone, with no sandbox around its clients. */
#ifndef HEEL_BENCH_PROXY_SPAWN_H
#define HEEL_BENCH_PROXY_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

struct spawned_proxy {
	pid_t pid;
	int ctl; /* heel-exec's end of the control socket */
};

/* Starts exe (heel-proxy) with mode=allow-all and token, hands it
 * listen_fd (the caller keeps and closes its own copy) and waits up to
 * 10 s for "ready". 0, or -1 with a message in err. */
int spawn_heel_proxy(struct spawned_proxy *p, const char *exe, const char *token, int listen_fd,
		     char *err, size_t errlen);

/* Closes the control socket, which tells the proxy to stop, and reaps it.
 * 0 when it exited 0 within 5 s; -1 with a message in err otherwise (it
 * is SIGKILLed then). */
int stop_heel_proxy(struct spawned_proxy *p, char *err, size_t errlen);

#endif

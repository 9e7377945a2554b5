/* SPDX-License-Identifier: MIT
 * heel-proxy's event loop: one thread, one epoll set, every connection a
 * small state machine. A client speaks HTTP (CONNECT, or an absolute-form
 * http:// request) or SOCKS5 on the listening socket heel-exec made inside
 * the sandbox's network namespace; the proxy checks its credentials,
 * judges the destination (policy.h), asks the decider if the policy has
 * one, records the verdict (audit.h) before anything proceeds, resolves
 * the name once and connects to an address it judged, then moves bytes
 * both ways with splice(2) through a pipe per direction: a direction
 * reads only while its pipe is empty, so a slow reader holds back its
 * writer (backpressure) and no connection buffers more than a pipe. */
#ifndef HEEL_PROXY_SERVER_H
#define HEEL_PROXY_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

struct proxy_audit;
struct proxy_decider;

struct proxy_limits {
	unsigned max_conns;   /* beyond: accepted and closed at once */
	unsigned head_ms;     /* a request head (or SOCKS5 handshake) must arrive within */
	unsigned connect_ms;  /* per address tried */
	unsigned idle_ms;     /* a tunnel with no byte either way is closed */
	unsigned half_ms;     /* a tunnel closed one way, with no byte the other way */
};

void proxy_limits_default(struct proxy_limits *l);

struct proxy_server_config {
	const char *token;           /* the password of user PROXYCTL_USER */
	const struct proxy_policy *policy;
	struct proxy_audit *audit;   /* NULL: no sink */
	int refusals_fd;             /* --why: each refusal's audit line is
				      * written here too, for heel-why; -1 */
	struct proxy_decider *decider; /* NULL: the list decides */
	struct proxy_limits limits;
	int stop_fd;                 /* readable or hung up: stop (-1: none) */
};

struct proxy_server;

/* Makes the epoll set and the resolver (which reads resolv.conf now: call
 * before the proxy confines itself). cfg must outlive the server. 0, or
 * -errno with a message in err. */
int proxy_server_open(struct proxy_server **out, const struct proxy_server_config *cfg,
		      char *err, size_t errlen);

/* The listening socket (any blocking mode), once it has come: the
 * server is made, and the proxy confined, before. 0 or -errno. */
int proxy_server_listen(struct proxy_server *s, int fd, char *err, size_t errlen);

/* A socket of the capture namespace (heel(5), THE PROXY, Capture), of
 * kind "tcp" (listening on a captured port), "dns-udp" or "dns-tcp"
 * (capture's name server): taken, before the server runs. A connection
 * accepted on a "tcp" socket is judged as a request for the host its
 * destination stands for (the name behind a fake address, else the
 * address) and the port, with no credentials: the capture namespace is
 * the sandbox's alone. 0, or -errno with a message in err. */
int proxy_server_capture(struct proxy_server *s, const char *kind, int fd, char *err,
			 size_t errlen);

/* Serves until stop_fd says so. 0, or -errno with a message in err. */
int proxy_server_run(struct proxy_server *s, char *err, size_t errlen);

void proxy_server_close(struct proxy_server *s);

#endif

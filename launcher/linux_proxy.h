/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-proxy. For a policy whose network is not
 * `deny`, heel-exec starts heel-proxy before the sandbox (so the proxy's
 * start overlaps the sandbox's), hands it its settings over a socket
 * pair, and the sandbox's init later makes the listening socket inside
 * the sandbox's own network namespace and sends it over the same pair;
 * the command starts only once the proxy says "ready". The sandbox then
 * reaches heel-proxy, and nothing else, at 127.0.0.1:PROXYCTL_PORT; if
 * the proxy dies, connections are refused: there is no path around it. */
#ifndef HEEL_LAUNCHER_LINUX_PROXY_H
#define HEEL_LAUNCHER_LINUX_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "artifact_read.h"
#include "env.h"
#include "linux_helper.h"
#include "linux_net.h"
#include "proxyctl.h"

struct linux_proxy {
	bool on;           /* the policy's network is not deny */
	struct helper h;   /* heel-proxy's process and control socket */
	int listen_fd;     /* without a network namespace: the socket made on
			    * the host's loopback; -1 (the init makes it) */
	uint16_t port;
	/* Capture (linux_net.h): on for an allow-list in a network
	 * namespace of the sandbox's own, on these ports. */
	bool capture;
	uint16_t cap_ports[NET_CAPTURE_PORTS_MAX];
	size_t ncap_ports;
	char token[2 * PROXYCTL_TOKEN_BYTES + 1];
	int refusals_fd;   /* --why: a memfd heel-proxy writes each refusal's
			    * line to, for heel-why; -1 */
};

/* Whether the policy needs heel-proxy on Linux. */
bool linux_proxy_wanted(const struct art_view *view);

/* Starts heel-proxy (found beside heel-exec) and sends it the policy's
 * network settings: paths expanded as the launch expands them (vars),
 * heel-proxy itself, the decider and the audit sink checked against
 * every place a sandbox could have written (ps), the sink handed over
 * open. netns: the sandbox gets a network namespace (port PROXYCTL_PORT
 * there); else the listening socket is made now on the host's loopback,
 * on a port the kernel picks. 0, or -errno with one line in err. */
int linux_proxy_start(struct linux_proxy *p, const struct art_view *view,
		      const struct hc_places *ps, const struct envb_launch *vars, bool netns,
		      char *err, size_t errlen);

/* What linux_proxy_start would refuse, made and started nothing:
 * heel-proxy (its path into exe), the decider, the audit sink. 0, or
 * -errno with one line in err. */
int linux_proxy_check(const struct art_view *view, const struct hc_places *ps,
		      const struct envb_launch *vars, char *exe, size_t cap, char *err,
		      size_t errlen);

/* What NO_PROXY names: the sandbox's own loopback, reached directly. */
#define LINUX_PROXY_NO_PROXY "localhost,127.0.0.1,::1"

/* The sandbox's proxy variables (HTTP_PROXY and the rest). 0 or -errno. */
int linux_proxy_env(const struct linux_proxy *p, struct envb *env);

/* In the sandbox's init, after the launcher's go: makes the capture
 * namespace and sends its sockets (with capture), makes the listening
 * socket (unless p->listen_fd holds one), sends it to heel-proxy and
 * waits for "ready". 0, or -errno with heel-proxy's own line in err. */
int linux_proxy_hand_over(struct linux_proxy *p, char *err, size_t errlen);

/* After the command: whether heel-proxy died while it ran. */
bool linux_proxy_died(const struct linux_proxy *p);

/* Stops heel-proxy (closing the control socket stops it; a kill after a
 * moment) and reaps it. */
void linux_proxy_stop(struct linux_proxy *p);

#endif

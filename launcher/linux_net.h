/* SPDX-License-Identifier: MIT
 * The sandbox's network namespace: it starts with a loopback interface
 * that is down; heel brings it up, and nothing else exists, so the
 * sandbox talks to itself only (heel-proxy, where the policy allows the
 * network, is reached through it). With capture (heel(5), THE PROXY,
 * Capture) a second namespace, the capture namespace, sits at the other
 * end of a veth pair: every destination outside the sandbox's loopback is
 * routed there, where every address is local, and the sockets listening
 * on the captured ports there go to heel-proxy. The sandbox's loopback
 * stays its own (its 127.0.0.1:443 is not the capture's), and nothing in
 * the capture namespace reaches anywhere: heel-proxy connects from the
 * host's namespace, after its decision. */
#ifndef HEEL_LAUNCHER_LINUX_NET_H
#define HEEL_LAUNCHER_LINUX_NET_H

#include <stddef.h>
#include <stdint.h>

/* Brings `lo` up in the calling process's network namespace (needs
 * CAP_NET_ADMIN there). 0, or -errno with one line in err. */
int net_loopback_up(char *err, size_t errlen);

/* Ports captured at most (each takes two listening sockets). */
#define NET_CAPTURE_PORTS_MAX 64
#define NET_CAPTURE_FDS_MAX (2 * NET_CAPTURE_PORTS_MAX + 4)

struct net_capture {
	int fd[NET_CAPTURE_FDS_MAX];
	const char *kind[NET_CAPTURE_FDS_MAX]; /* "tcp", "dns-udp", "dns-tcp" */
	size_t n;
};

/* From the sandbox's network namespace (loopback up, CAP_NET_ADMIN and
 * CAP_SYS_ADMIN there): makes the capture namespace and its veth link,
 * routes every IPv4 and IPv6 destination of the sandbox but its own
 * loopback there, listens there on each of ports (TCP, IPv4 and IPv6)
 * and on port 53 (DNS, UDP and TCP), and lowers the sandbox's
 * net.ipv4.ip_unprivileged_port_start to 0 (its loopback is its own; a
 * program there may serve on 443 as on 8080). Returns in the sandbox's
 * namespace, with the sockets in c (caller closes: net_capture_close).
 * 0, or -errno with one line in err. */
int net_capture_make(const uint16_t *ports, size_t nports, struct net_capture *c, char *err,
		     size_t errlen);

void net_capture_close(struct net_capture *c);

#endif

/* SPDX-License-Identifier: MIT
 * What heel-exec tells heel-proxy, and how: a SOCK_SEQPACKET socket pair
 * made by heel-exec, one end given to heel-proxy as descriptor
 * PROXYCTL_FD. Nothing travels on the command line or in the
 * environment, where other processes of the user could read the run's
 * credentials (/proc/PID/cmdline, environ).
 *
 * Messages, one datagram each, "key=value" with no terminator:
 *   heel-exec -> proxy:  the settings, one per message, then "end";
 *   sandbox init -> proxy: "listen" carrying the listening socket
 *                          (SCM_RIGHTS), made inside the sandbox's own
 *                          network namespace;
 *   sandbox init -> proxy: before "listen", with capture, "capture=tcp",
 *                          "capture=dns-udp" or "capture=dns-tcp", each
 *                          carrying a listening (or, for dns-udp, bound)
 *                          socket of the capture namespace (linux_net.h);
 *   proxy -> init:         "ready", or "error=ONE LINE" (then it exits).
 * Settings: token=HEX (the password of user "heel"), mode=allow-all |
 * allow-list, allow-private=0|1, allow=PORT HOST (0: any port; HOST as
 * heelc normalised it, `*.` for subdomains), audit=file | daily carrying
 * the sink heel-exec opened and checked (the file, or the directory as
 * O_PATH; a helper never opens a sink by name), decide=PROGRAM (an
 * absolute path heel-exec checked) then decide-arg=ARG each. */
#ifndef HEEL_RUNTIME_PROXYCTL_H
#define HEEL_RUNTIME_PROXYCTL_H

#include <stddef.h>

#define PROXYCTL_FD 3
#define PROXYCTL_MSG_MAX 8192
#define PROXYCTL_USER "heel"
#define PROXYCTL_TOKEN_BYTES 16 /* 32 hex digits */
/* Inside the sandbox's network namespace nothing else listens, so the
 * port is fixed: the Landlock rule and the environment are planned before
 * the namespace exists. */
#define PROXYCTL_PORT 3128

/* Capture (heel(5), THE PROXY, Capture): the sandbox's addresses on its
 * link to the capture namespace, the name server its resolv.conf names,
 * and the ranges the fake addresses of allowed names come from. All of
 * 198.18.0.0/15 (RFC 2544's benchmarking range, never routed on the
 * internet) and of the ULA prefix below stand for names only inside a
 * sandbox: the proxy never connects to one. */
#define PROXYCTL_CAP_SANDBOX4 "198.18.0.2"
#define PROXYCTL_CAP_SANDBOX6 "fd68:6565:6c00::2"
#define PROXYCTL_CAP_DNS4 "198.18.0.53"
#define PROXYCTL_CAP_NET4 0xc6120000u /* 198.18.0.0/15 */
#define PROXYCTL_CAP_NET4_BITS 15
#define PROXYCTL_CAP_POOL4 0xc6120100u /* fake addresses from 198.18.1.0 */
/* fd68:6565:6c00::/48; fake addresses in fd68:6565:6c00:1::/64. */
#define PROXYCTL_CAP_NET6 { 0xfd, 0x68, 0x65, 0x65, 0x6c, 0x00 }
#define PROXYCTL_CAP_POOL6 { 0xfd, 0x68, 0x65, 0x65, 0x6c, 0x00, 0x00, 0x01 }

/* Sends "key=value" (value may be NULL: "key" alone), with fd (>= 0)
 * attached. 0 or -errno (-EMSGSIZE past PROXYCTL_MSG_MAX). */
int proxyctl_send(int sock, const char *key, const char *value, int fd);

/* Receives one message into buf (NUL-terminated), and its descriptor into
 * *fd (-1 when none; any other descriptors are closed). Returns the
 * length, 0 at end of stream, or -errno. */
long proxyctl_recv(int sock, char *buf, size_t cap, int *fd);

/* When msg is "key" or "key=...": the value ("" for "key"), else NULL. */
const char *proxyctl_value(const char *msg, const char *key);

/* A helper's fatal start-up error: "error=LINE" to whoever waits for
 * "ready" on sock, or, when nobody can be told, "PROG: LINE" on stderr.
 * The caller exits next. */
void proxyctl_report_error(int sock, const char *prog, const char *line);

/* Fills hex (2 * PROXYCTL_TOKEN_BYTES + 1) from getrandom(2). 0 or -errno. */
int proxyctl_token(char *hex, size_t cap);

#endif

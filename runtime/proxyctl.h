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

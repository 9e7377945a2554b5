/* SPDX-License-Identifier: MIT
 * What the sandbox tried to reach outside itself under `network deny`.
 * Its network namespace has only a loopback interface, so every
 * connection to another address fails in the route lookup (ENETUNREACH)
 * and the kernel counts it in that namespace's own SNMP counters
 * (/proc/net/snmp Ip OutNoRoutes, /proc/net/snmp6 Ip6OutNoRoutes).
 * Read once when the command has ended, by the sandbox's init, which
 * lives in that namespace: nothing is added on the sandbox's path (no
 * filter, no notification, no helper), a launch where nothing failed
 * pays two reads at the end, and the sandbox can neither reach nor
 * feed the reader (the kernel keeps the counters). It says how many
 * attempts there were, not where to: the destination never leaves the
 * failed call. Linux; never prints. */
#ifndef HEEL_RUNTIME_NETREFUSED_H
#define HEEL_RUNTIME_NETREFUSED_H

#include <stdint.h>

/* The value of counter `name` in /proc/net/snmp form (a header line
 * "Ip: Forwarding ... OutNoRoutes ..." then a line of values) or
 * /proc/net/snmp6 form ("Ip6OutNoRoutes  N"). 0, or -ENOENT. */
int netrefused_parse(const char *text, const char *name, uint64_t *out);

/* The calling process's network namespace's IPv4 and IPv6 OutNoRoutes
 * (0 for a family whose file is missing: IPv6 disabled). 0, or -errno
 * when neither can be read. */
int netrefused_read(uint64_t *v4, uint64_t *v6);

#endif

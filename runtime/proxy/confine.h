/* SPDX-License-Identifier: MIT
 * heel-proxy confines itself once everything it opens is open, before it
 * serves a single byte: it parses what sandboxed programs send, so it is
 * kept from what it does not need should that parsing ever be subverted.
 *   - Landlock: no file access at all, but reading /etc/hosts (c-ares
 *     reads it at each lookup) and making the next day's audit file in
 *     the audit directory; no TCP port may be bound (ABI 4).
 *   - Every capability dropped (heel-exec may run as root).
 *   - seccomp: no new programs or processes, no namespaces, tracing,
 *     mounts, io_uring, BPF or keyrings, no file-system changes, and
 *     sockets of the inet families only. */
#ifndef HEEL_PROXY_CONFINE_H
#define HEEL_PROXY_CONFINE_H

#include <stddef.h>

struct proxy_confinement {
	int landlock_abi; /* 0: this kernel has no Landlock */
};

/* audit_dir_fd: the daily audit directory (O_PATH), or -1. 0, or -errno
 * with a message in err (nothing may be served then). */
int proxy_confine(int audit_dir_fd, struct proxy_confinement *got, char *err, size_t errlen);

#endif

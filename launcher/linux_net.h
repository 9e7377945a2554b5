/* SPDX-License-Identifier: MIT
 * The sandbox's network namespace: it starts with a loopback interface
 * that is down; heel brings it up, and nothing else exists, so the
 * sandbox talks to itself only (heel-proxy, where the policy allows the
 * network, is reached through it). */
#ifndef HEEL_LAUNCHER_LINUX_NET_H
#define HEEL_LAUNCHER_LINUX_NET_H

#include <stddef.h>

/* Brings `lo` up in the calling process's network namespace (needs
 * CAP_NET_ADMIN there). 0, or -errno with one line in err. */
int net_loopback_up(char *err, size_t errlen);

#endif

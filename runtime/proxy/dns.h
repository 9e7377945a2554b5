/* SPDX-License-Identifier: MIT
 * Name resolution for heel-proxy: c-ares, driven by the proxy's own epoll
 * loop, so a slow name server never stalls other connections. Names are
 * looked up in /etc/hosts, then DNS, as the host's resolv.conf says (read
 * once, at start, before the proxy confines itself). Each name is resolved
 * once per request: the addresses the callback gets are the ones judged
 * and then connected, with no second lookup a rebinding name server could
 * answer differently. */
#ifndef HEEL_PROXY_DNS_H
#define HEEL_PROXY_DNS_H

#include <ares.h>
#include <stddef.h>

struct proxy_dns;

/* status: ARES_SUCCESS with res (free with ares_freeaddrinfo), or an
 * ARES_E* code (ares_strerror) and res NULL. */
typedef void (*proxy_dns_done)(void *ctx, int status, struct ares_addrinfo *res);

int proxy_dns_open(struct proxy_dns **out, int epfd, char *err, size_t errlen);
void proxy_dns_close(struct proxy_dns *d);

/* Starts resolving name (IPv4 and IPv6). cb runs later from the loop, or
 * at once when c-ares can answer at once (from /etc/hosts). */
void proxy_dns_resolve(struct proxy_dns *d, const char *name, proxy_dns_done cb, void *ctx);

/* The loop's epoll timeout: at most max_ms, less when c-ares has a
 * retry due. */
int proxy_dns_timeout(struct proxy_dns *d, int max_ms);

/* Runs c-ares's timeouts; call once per loop turn. */
void proxy_dns_tick(struct proxy_dns *d);

#endif

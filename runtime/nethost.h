/* SPDX-License-Identifier: MIT
 * Host names and addresses as the network policy sees them: one canonical
 * spelling for every way a client may write a host (so `127.1`,
 * `0x7f.0.0.1`, `2130706433` and `[::ffff:127.0.0.1]` are all one
 * address), allow-list patterns and their matching, and the class of an
 * address the proxy is about to connect to (loopback, private, ...).
 * Pure functions over bytes: heel-proxy decides with them and heelc
 * warns with them, so both agree on what a spelling means. */
#ifndef HEEL_RUNTIME_NETHOST_H
#define HEEL_RUNTIME_NETHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETHOST_NAME_MAX 253 /* RFC 1035: a name's text, without the root dot */

enum nethost_kind { NETHOST_NAME, NETHOST_IPV4, NETHOST_IPV6 };

struct nethost {
	enum nethost_kind kind;
	/* Canonical text: a name lower-cased without trailing dots; an IPv4
	 * address as four decimal octets; an IPv6 address as RFC 5952 writes
	 * it, without brackets. NUL-terminated. */
	char text[NETHOST_NAME_MAX + 1];
	uint8_t addr[16]; /* IPV4: addr[0..3]; IPV6: all 16; NAME: zero */
};

/* Canonicalises a host as a client spelled it: a request's authority
 * (brackets around IPv6 allowed), a SOCKS5 domain name. Every numeric
 * spelling inet_aton(3) accepts (decimal, octal, hex, fewer than four
 * parts) is an IPv4 address; a name whose last label is numeric and that
 * is no address is refused (a browser would read it as an address).
 * Names: letters, digits, '-', '_' and '.', labels 1..63 bytes, no empty
 * label but the trailing ones. 0, or -EINVAL with a short reason in *why
 * (static text). *out is cleared first; why may be NULL.
 * Trailing dots go before the numeric check: `127.0.0.1.` is 127.0.0.1.
 * An IPv4-mapped address stays IPV6, written ::ffff:a.b.c.d: an IPv4
 * pattern does not match it, and nethost_classify classes it by the IPv4
 * address inside. Compatible and NAT64 forms are written in hex
 * (::7f00:1), whatever the libc's inet_ntop(3) would do. */
int nethost_canon(const char *text, size_t len, struct nethost *out, const char **why);

/* An allow-list entry: `*.example.com` (subdomains only, never the apex),
 * `example.com`, or an address; port 0 = any. */
struct nethost_pattern {
	bool subdomains;     /* written `*.` + host */
	struct nethost host; /* without the `*.` */
	uint16_t port;
};

/* Parses an entry as the artifact holds it (host text, port apart). 0, or
 * -EINVAL with *why. */
int nethost_pattern_parse(const char *host, uint16_t port, struct nethost_pattern *out,
			  const char **why);

/* Whether a canonical host and port fall under the pattern. A pattern
 * naming a host matches that name only; an address pattern matches that
 * address only (never a name that resolves to it: the list is about what
 * the client asked for). */
bool nethost_pattern_match(const struct nethost_pattern *p, const struct nethost *h,
			   uint16_t port);

/* What an address is, for the refusal of destinations no sandbox should
 * reach. IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d),
 * SIIT-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4
 * (2002:AABB:CCDD::/48) forms are classed by the IPv4 address inside. */
enum nethost_class {
	NETHOST_PUBLIC = 0,
	NETHOST_LOOPBACK,    /* 127/8, ::1 */
	NETHOST_UNSPECIFIED, /* 0/8, :: */
	NETHOST_LINK_LOCAL,  /* 169.254/16 (cloud metadata), fe80::/10 */
	NETHOST_BROADCAST,   /* 255.255.255.255 */
	NETHOST_MULTICAST,   /* 224/4, ff00::/8 */
	NETHOST_RESERVED,    /* 240/4, and other ranges never routed publicly:
			      * 192.0.0/24, 198.18/15, 100::/64, Teredo
			      * 2001::/32, the rest of ::/8 */
	NETHOST_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT),
			      * fc00::/7 (ULA), fec0::/10 (site-local) */
};

/* family: 4 or 6; addr: 4 or 16 bytes. Any other family, or no addr:
 * NETHOST_RESERVED (refused, never guessed public). */
enum nethost_class nethost_classify(int family, const uint8_t *addr);

/* The IPv4 address the IPv6 address addr (16 bytes) carries, by the
 * table nethost_classify() reads: mapped, compatible (but :: and ::1,
 * which are themselves), translated, NAT64 (64:ff9b::/96) or 6to4. true
 * with v4 filled (4 bytes), or false (no embedding form). A check that
 * asks "is this address X?" asks it of this too, or one spelling of X
 * goes through. */
bool nethost_embedded_v4(const uint8_t *addr, uint8_t v4[4]);

/* "loopback", "private (RFC 1918)"... for refusal messages. */
const char *nethost_class_name(enum nethost_class c);

#endif

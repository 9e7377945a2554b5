/* SPDX-License-Identifier: MIT
 * Host canonicalisation, allow-list patterns and address classes; see
 * nethost.h. IPv4 numbers are read here, not by inet_aton(3), so that
 * glibc and musl builds agree on every spelling; IPv6 text is written
 * here too, for the same reason (the two inet_ntop(3)s differ on
 * ::a.b.c.d). */
#include "nethost.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define NETHOST_LABEL_MAX 63 /* RFC 1035 section 2.3.4 */
/* Longer than any IPv6 text inet_pton(3) accepts (45 bytes with leading
 * zeros and an embedded dotted quad), so a longer one is refused unread. */
#define NETHOST_V6_TEXT_MAX 63

static int
fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char
to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
is_name_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
	       c == '_' || c == '.';
}

/* One part of an inet_aton(3) number: "0x" or "0X" and at least one hex
 * digit, "0" and octal digits, or decimal. Values past 32 bits are
 * refused rather than wrapped (old glibc wrapped them: 4294967297 was
 * 0.0.0.1). */
static bool
ipv4_part(const char *s, size_t n, uint64_t *val)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (n == 2)
			return false;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	if (n == 0)
		return false;
	for (; i < n; i++) {
		int d = hex_value(s[i]);

		if (d < 0 || (unsigned)d >= base)
			return false;
		v = v * base + (unsigned)d;
		if (v > 0xffffffffu)
			return false;
	}
	*val = v;
	return true;
}

/* The numbers inet_aton(3) reads: a.b.c.d with every part a byte; a.b.c
 * with c 16 bits; a.b with b 24 bits; a alone 32 bits. Nothing may follow
 * (inet_aton itself stops at white space and ignores the rest). */
static bool
ipv4_parse(const char *s, size_t n, uint8_t out[4])
{
	uint64_t parts[4];
	size_t nparts = 0, start = 0;
	uint32_t v;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (nparts == 4 || !ipv4_part(s + start, i - start, &parts[nparts]))
			return false;
		nparts++;
		start = i + 1;
	}
	for (size_t i = 0; i + 1 < nparts; i++)
		if (parts[i] > 0xff)
			return false;
	if (parts[nparts - 1] > (0xffffffffu >> (8 * (nparts - 1))))
		return false;
	v = (uint32_t)parts[nparts - 1];
	for (size_t i = 0; i + 1 < nparts; i++)
		v |= (uint32_t)parts[i] << (24 - 8 * i);
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
	return true;
}

/* Whether a label reads as a number to a browser (the WHATWG URL
 * standard's "ends in a number" check): digits only, or 0x and hex digits
 * (even none). A name ending in one is an address or nothing. */
static bool
label_is_numeric(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (hex_value(s[i]) < 0)
				return false;
		return true;
	}
	if (n == 0)
		return false;
	for (; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/* RFC 5952 section 4: lower-case hex without leading zeros, the longest
 * run of two or more zero groups (the first of equal ones) as "::".
 * Section 5's mixed notation for IPv4-mapped addresses only; compatible
 * (::a.b.c.d, deprecated by RFC 4291 section 2.5.5.1) and NAT64 forms
 * stay hex. */
static void
ipv6_format(const uint8_t a[16], char *buf, size_t len)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	unsigned w[8];
	int best = -1, bestlen = 1;
	size_t o = 0;

	if (memcmp(a, mapped, sizeof(mapped)) == 0) {
		snprintf(buf, len, "::ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
		return;
	}
	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && w[j] == 0)
			j++;
		if (j - i > bestlen) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			o += (size_t)snprintf(buf + o, len - o, "::");
			i += bestlen - 1;
			continue;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%x", o && buf[o - 1] != ':' ? ":" : "",
				      w[i]);
	}
}

static int
canon_ipv6(const char *s, size_t n, struct nethost *out, const char **why)
{
	char buf[NETHOST_V6_TEXT_MAX + 1];

	if (memchr(s, '%', n))
		return fail(why,
			    "an IPv6 zone id ('%') is refused: it names an interface, not a host");
	if (n > NETHOST_V6_TEXT_MAX)
		return fail(why, "too long for an IPv6 address");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, out->addr) != 1)
		return fail(why, "not an IPv6 address");
	out->kind = NETHOST_IPV6;
	ipv6_format(out->addr, out->text, sizeof(out->text));
	return 0;
}

/* The shape of a name: no leading dot, no empty label, labels and the
 * whole within RFC 1035's limits. n excludes the trailing dots. */
static int
check_name_shape(const char *s, size_t n, const char **why)
{
	size_t label = 0;

	if (s[0] == '.')
		return fail(why, "a host name cannot start with '.'");
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '.') {
			if (++label > NETHOST_LABEL_MAX)
				return fail(why,
					    "a label of the host name is longer than 63 bytes");
			continue;
		}
		if (label == 0)
			return fail(why, "empty label ('..') in the host name");
		label = 0;
	}
	if (n > NETHOST_NAME_MAX)
		return fail(why, "host name longer than 253 bytes");
	return 0;
}

/* Why a byte cannot be in a name, for the characters a client is likely
 * to send by mistake or on purpose. */
static const char *
bad_char_reason(char c)
{
	switch (c) {
	case '*':
		return "'*' is for allow-list patterns (`*.example.com`), not hosts";
	case '%':
		return "'%' (a zone id or a percent escape) is refused in a host";
	case ':':
		return "':' in a host that is no IPv6 address (a port goes apart)";
	case '\0':
		return "NUL byte in the host";
	default:
		return "a host name holds only letters, digits, '-', '_' and '.'";
	}
}

int
nethost_canon(const char *text, size_t len, struct nethost *out, const char **why)
{
	size_t n = len, last;
	int r;

	memset(out, 0, sizeof(*out));
	if (!text || len == 0)
		return fail(why, "empty host");
	if (memchr(text, '\0', len))
		return fail(why, bad_char_reason('\0'));
	if (text[0] == '[') {
		if (len < 2 || text[len - 1] != ']')
			return fail(why, "'[' without its closing ']'");
		r = canon_ipv6(text + 1, len - 2, out, why);
		if (r < 0 && memchr(text + 1, '%', len - 2) == NULL)
			return fail(why, "brackets hold an IPv6 address only");
		return r;
	}
	if (memchr(text, ':', len)) {
		r = canon_ipv6(text, len, out, why);
		if (r < 0 && memchr(text, '%', len) == NULL)
			return fail(why, bad_char_reason(':'));
		return r;
	}
	/* The root's dot, and any repetition of it, names the same host:
	 * "example.com." must not slip past a rule for "example.com". */
	while (n > 0 && text[n - 1] == '.')
		n--;
	if (n == 0)
		return fail(why, "a host of dots only");
	for (size_t i = 0; i < n; i++)
		if (!is_name_char(text[i]))
			return fail(why, bad_char_reason(text[i]));
	r = check_name_shape(text, n, why);
	if (r < 0)
		return r;
	for (last = n; last > 0 && text[last - 1] != '.'; last--)
		;
	if (label_is_numeric(text + last, n - last)) {
		if (!ipv4_parse(text, n, out->addr))
			return fail(why, "the last label is a number but the host is no IPv4 "
					 "address (a browser would read it as one)");
		out->kind = NETHOST_IPV4;
		snprintf(out->text, sizeof(out->text), "%u.%u.%u.%u", out->addr[0], out->addr[1],
			 out->addr[2], out->addr[3]);
		return 0;
	}
	out->kind = NETHOST_NAME;
	for (size_t i = 0; i < n; i++)
		out->text[i] = to_lower(text[i]);
	out->text[n] = '\0';
	return 0;
}

int
nethost_pattern_parse(const char *host, uint16_t port, struct nethost_pattern *out,
		      const char **why)
{
	const char *rest;
	int r;

	memset(out, 0, sizeof(*out));
	if (!host)
		return fail(why, "empty host");
	rest = host;
	if (host[0] == '*') {
		if (host[1] != '.')
			return fail(why, "'*' only as a whole first label: `*.example.com`");
		rest = host + 2;
		if (*rest == '\0' || strspn(rest, ".") == strlen(rest))
			return fail(why, "`*.` needs a domain after it");
		out->subdomains = true;
	}
	r = nethost_canon(rest, strlen(rest), &out->host, why);
	if (r < 0)
		return r;
	if (out->subdomains && out->host.kind != NETHOST_NAME)
		return fail(why, "`*.` before an address: an address has no subdomains");
	out->port = port;
	return 0;
}

bool
nethost_pattern_match(const struct nethost_pattern *p, const struct nethost *h, uint16_t port)
{
	size_t hl, pl;

	if (p->port != 0 && p->port != port)
		return false;
	if (p->host.kind != h->kind)
		return false;
	switch (h->kind) {
	case NETHOST_IPV4:
		return !p->subdomains && memcmp(p->host.addr, h->addr, 4) == 0;
	case NETHOST_IPV6:
		return !p->subdomains && memcmp(p->host.addr, h->addr, 16) == 0;
	case NETHOST_NAME:
		break;
	default:
		return false;
	}
	if (!p->subdomains)
		return strcmp(p->host.text, h->text) == 0;
	/* A label boundary and at least one label before it: `*.x.com`
	 * covers a.x.com, not x.com and not ax.com. */
	hl = strlen(h->text);
	pl = strlen(p->host.text);
	return hl >= pl + 2 && h->text[hl - pl - 1] == '.' &&
	       memcmp(h->text + hl - pl, p->host.text, pl) == 0;
}

struct v4_range {
	uint32_t net;
	unsigned bits;
	enum nethost_class cls;
};

/* First match wins, so the broadcast address sits before 240/4. Beyond
 * the header's list, two ranges IANA's special-purpose registry (RFC
 * 6890) marks as not globally reachable are reserved: 192.0.0.0/24, the
 * IETF's protocol assignments (DS-Lite, NAT64 discovery; its two anycast
 * services are no destination for a sandbox either), and 198.18.0.0/15,
 * benchmarking networks (RFC 2544) that labs route internally. The
 * documentation networks (192.0.2/24, 198.51.100/24, 203.0.113/24) stay
 * public: nothing real lives there, and tests use them as a public
 * host. */
static const struct v4_range v4_ranges[] = {
	{ 0x00000000, 8, NETHOST_UNSPECIFIED }, /* 0.0.0.0/8 */
	{ 0x0a000000, 8, NETHOST_PRIVATE },     /* 10.0.0.0/8 */
	{ 0x64400000, 10, NETHOST_PRIVATE },    /* 100.64.0.0/10, CGNAT (RFC 6598) */
	{ 0x7f000000, 8, NETHOST_LOOPBACK },    /* 127.0.0.0/8 */
	{ 0xa9fe0000, 16, NETHOST_LINK_LOCAL }, /* 169.254.0.0/16 */
	{ 0xac100000, 12, NETHOST_PRIVATE },    /* 172.16.0.0/12 */
	{ 0xc0000000, 24, NETHOST_RESERVED },   /* 192.0.0.0/24 */
	{ 0xc0a80000, 16, NETHOST_PRIVATE },    /* 192.168.0.0/16 */
	{ 0xc6120000, 15, NETHOST_RESERVED },   /* 198.18.0.0/15 */
	{ 0xe0000000, 4, NETHOST_MULTICAST },   /* 224.0.0.0/4 */
	{ 0xffffffff, 32, NETHOST_BROADCAST },  /* 255.255.255.255 */
	{ 0xf0000000, 4, NETHOST_RESERVED },    /* 240.0.0.0/4 */
};

static enum nethost_class
classify_v4(const uint8_t *a)
{
	uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];

	for (size_t i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); i++) {
		uint32_t mask = 0xffffffffu << (32 - v4_ranges[i].bits);

		if ((v & mask) == v4_ranges[i].net)
			return v4_ranges[i].cls;
	}
	return NETHOST_PUBLIC;
}

/* An IPv6 prefix whose addresses carry an IPv4 address at v4_at (the
 * address is then what the IPv4 address is: a translator or tunnel
 * delivers there), or, with v4_at < 0, a class of its own. */
struct v6_range {
	uint8_t net[16];
	unsigned bits;
	int v4_at;
	enum nethost_class cls;
};

/* First match wins. The embedding forms: IPv4-mapped (::ffff:0:0/96, RFC
 * 4291 2.5.5.2, which a dual-stack socket connects to over IPv4),
 * IPv4-translated (::ffff:0:0:0/96, RFC 2765 SIIT), compatible (::/96,
 * RFC 4291 2.5.5.1), NAT64's well-known prefix (64:ff9b::/96, RFC 6052)
 * and 6to4 (2002::/16, RFC 3056). What else lies in ::/8 is reserved by
 * the IETF (RFC 4291 2.4) and includes the local NAT64 prefix
 * 64:ff9b:1::/48 (RFC 8215), whose embedding a site chooses: reserved, not
 * guessed. Teredo (2001::/32, RFC 4380) tunnels to any IPv4 host, the
 * embedded one obfuscated: reserved. Documentation (2001:db8::/32) stays
 * public, as its IPv4 counterparts do. */
static const struct v6_range v6_ranges[] = {
	{ { 0 }, 128, -1, NETHOST_UNSPECIFIED },
	{ { [15] = 1 }, 128, -1, NETHOST_LOOPBACK },
	{ { [10] = 0xff, [11] = 0xff }, 96, 12, NETHOST_PUBLIC },
	{ { [8] = 0xff, [9] = 0xff }, 96, 12, NETHOST_PUBLIC },
	{ { 0 }, 96, 12, NETHOST_PUBLIC },
	{ { 0x00, 0x64, 0xff, 0x9b }, 96, 12, NETHOST_PUBLIC },
	{ { 0 }, 8, -1, NETHOST_RESERVED },
	{ { 0x01, 0x00 }, 64, -1, NETHOST_RESERVED }, /* discard-only, RFC 6666 */
	{ { 0x20, 0x01, 0x00, 0x00 }, 32, -1, NETHOST_RESERVED },
	{ { 0x20, 0x02 }, 16, 2, NETHOST_PUBLIC },
	{ { 0xfc }, 7, -1, NETHOST_PRIVATE },    /* unique local, RFC 4193 */
	{ { 0xfe, 0x80 }, 10, -1, NETHOST_LINK_LOCAL },
	{ { 0xfe, 0xc0 }, 10, -1, NETHOST_PRIVATE }, /* site-local, RFC 3879 */
	{ { 0xff }, 8, -1, NETHOST_MULTICAST },
};

static bool
v6_in(const uint8_t *a, const struct v6_range *r)
{
	unsigned full = r->bits / 8, rest = r->bits % 8;

	if (memcmp(a, r->net, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == r->net[full];
}

/* The first range a falls in, or NULL (public). */
static const struct v6_range *
v6_range_of(const uint8_t *a)
{
	for (size_t i = 0; i < sizeof(v6_ranges) / sizeof(v6_ranges[0]); i++)
		if (v6_in(a, &v6_ranges[i]))
			return &v6_ranges[i];
	return NULL;
}

static enum nethost_class
classify_v6(const uint8_t *a)
{
	const struct v6_range *r = v6_range_of(a);

	if (!r)
		return NETHOST_PUBLIC;
	return r->v4_at >= 0 ? classify_v4(a + r->v4_at) : r->cls;
}

bool
nethost_embedded_v4(const uint8_t *addr, uint8_t v4[4])
{
	const struct v6_range *r = v6_range_of(addr);

	if (!r || r->v4_at < 0)
		return false;
	memcpy(v4, addr + r->v4_at, 4);
	return true;
}

enum nethost_class
nethost_classify(int family, const uint8_t *addr)
{
	/* Refused, not guessed: a caller's mistake must not read as public. */
	if (!addr)
		return NETHOST_RESERVED;
	if (family == 4)
		return classify_v4(addr);
	if (family == 6)
		return classify_v6(addr);
	return NETHOST_RESERVED;
}

const char *
nethost_class_name(enum nethost_class c)
{
	switch (c) {
	case NETHOST_PUBLIC:
		return "public";
	case NETHOST_LOOPBACK:
		return "loopback";
	case NETHOST_UNSPECIFIED:
		return "unspecified (this host)";
	case NETHOST_LINK_LOCAL:
		return "link-local (cloud metadata lives here)";
	case NETHOST_BROADCAST:
		return "broadcast";
	case NETHOST_MULTICAST:
		return "multicast";
	case NETHOST_RESERVED:
		return "reserved (not routed publicly)";
	case NETHOST_PRIVATE:
		return "private (RFC 1918)";
	}
	return "unknown";
}

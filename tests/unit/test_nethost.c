/* SPDX-License-Identifier: MIT
 * Hosts as the network policy sees them (runtime/nethost.c): every
 * spelling of an address is one address, a numeric name that is no
 * address is refused, `*.` covers subdomains only, and every edge of
 * every address class, including IPv4 hidden inside IPv6. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nethost.h"

static const char *const kind_names[] = { "name", "ipv4", "ipv6" };

struct canon_case {
	const char *in;
	enum nethost_kind kind;
	const char *text;
};

static const struct canon_case canon_cases[] = {
	/* Names: lower-cased, every trailing dot dropped. */
	{ "example.com", NETHOST_NAME, "example.com" },
	{ "Api.Example.COM.", NETHOST_NAME, "api.example.com" },
	{ "example.com...", NETHOST_NAME, "example.com" },
	{ "EXAMPLE.com", NETHOST_NAME, "example.com" },
	{ "a-b_c.Example", NETHOST_NAME, "a-b_c.example" },
	{ "x", NETHOST_NAME, "x" },
	{ "localhost", NETHOST_NAME, "localhost" },
	{ "xn--bcher-kva.example", NETHOST_NAME, "xn--bcher-kva.example" },
	/* Numbers before the last label do not make an address. */
	{ "0x7f.example.com", NETHOST_NAME, "0x7f.example.com" },
	{ "127.0.0.1.example", NETHOST_NAME, "127.0.0.1.example" },
	{ "1.2.3.0xg", NETHOST_NAME, "1.2.3.0xg" },
	{ "example.123abc", NETHOST_NAME, "example.123abc" },
	{ "127.0.0.1x", NETHOST_NAME, "127.0.0.1x" },
	/* IPv4 in every spelling inet_aton(3) reads. */
	{ "127.0.0.1", NETHOST_IPV4, "127.0.0.1" },
	{ "127.1", NETHOST_IPV4, "127.0.0.1" },
	{ "0x7f.1", NETHOST_IPV4, "127.0.0.1" },
	{ "0x7f.0.0.1", NETHOST_IPV4, "127.0.0.1" },
	{ "0X7F.0.0.1", NETHOST_IPV4, "127.0.0.1" },
	{ "0177.0.0.1", NETHOST_IPV4, "127.0.0.1" },
	{ "2130706433", NETHOST_IPV4, "127.0.0.1" },
	{ "127.0.1", NETHOST_IPV4, "127.0.0.1" },
	{ "0x7F000001", NETHOST_IPV4, "127.0.0.1" },
	{ "017700000001", NETHOST_IPV4, "127.0.0.1" },
	{ "0x00000000007f.1", NETHOST_IPV4, "127.0.0.1" },
	{ "127.0.0.1.", NETHOST_IPV4, "127.0.0.1" },
	{ "127.0.0.1..", NETHOST_IPV4, "127.0.0.1" },
	{ "0", NETHOST_IPV4, "0.0.0.0" },
	{ "00", NETHOST_IPV4, "0.0.0.0" },
	{ "0x0", NETHOST_IPV4, "0.0.0.0" },
	{ "0.0.0.0", NETHOST_IPV4, "0.0.0.0" },
	{ "4294967295", NETHOST_IPV4, "255.255.255.255" },
	{ "0xffffffff", NETHOST_IPV4, "255.255.255.255" },
	{ "255.255.255.255", NETHOST_IPV4, "255.255.255.255" },
	{ "1.16777215", NETHOST_IPV4, "1.255.255.255" },
	{ "1.2.65535", NETHOST_IPV4, "1.2.255.255" },
	{ "010.0.0.1", NETHOST_IPV4, "8.0.0.1" },
	{ "169.254.169.254", NETHOST_IPV4, "169.254.169.254" },
	{ "0xA9FEA9FE", NETHOST_IPV4, "169.254.169.254" },
	{ "0251.0376.0251.0376", NETHOST_IPV4, "169.254.169.254" },
	{ "169.16689662", NETHOST_IPV4, "169.254.169.254" },
	{ "192.0.2.1", NETHOST_IPV4, "192.0.2.1" },
	/* IPv6, bracketed or not, written as RFC 5952 section 4 says. */
	{ "::1", NETHOST_IPV6, "::1" },
	{ "[::1]", NETHOST_IPV6, "::1" },
	{ "0:0:0:0:0:0:0:1", NETHOST_IPV6, "::1" },
	{ "::", NETHOST_IPV6, "::" },
	{ "[::]", NETHOST_IPV6, "::" },
	{ "[::ffff:127.0.0.1]", NETHOST_IPV6, "::ffff:127.0.0.1" },
	{ "::FFFF:7f00:1", NETHOST_IPV6, "::ffff:127.0.0.1" },
	{ "0:0:0:0:0:ffff:a9fe:a9fe", NETHOST_IPV6, "::ffff:169.254.169.254" },
	{ "::127.0.0.1", NETHOST_IPV6, "::7f00:1" },
	{ "64:ff9b::127.0.0.1", NETHOST_IPV6, "64:ff9b::7f00:1" },
	{ "::ffff:0:7f00:1", NETHOST_IPV6, "::ffff:0:7f00:1" },
	{ "2001:DB8::1", NETHOST_IPV6, "2001:db8::1" },
	{ "2001:0db8:0000:0000:0000:0000:0000:0001", NETHOST_IPV6, "2001:db8::1" },
	{ "2001:db8:0:0:1:0:0:1", NETHOST_IPV6, "2001:db8::1:0:0:1" },
	{ "2001:db8:0:1:1:1:1:1", NETHOST_IPV6, "2001:db8:0:1:1:1:1:1" },
	{ "2001:0:0:1:0:0:0:1", NETHOST_IPV6, "2001:0:0:1::1" },
	{ "1:0:0:0:0:0:0:0", NETHOST_IPV6, "1::" },
	{ "1:2:3:4:5:6:7:8", NETHOST_IPV6, "1:2:3:4:5:6:7:8" },
	{ "[FE80::1]", NETHOST_IPV6, "fe80::1" },
	{ "ff02::1", NETHOST_IPV6, "ff02::1" },
};

Test(nethost, canon_table)
{
	for (size_t i = 0; i < sizeof(canon_cases) / sizeof(canon_cases[0]); i++) {
		const struct canon_case *c = &canon_cases[i];
		struct nethost h;
		const char *why = NULL;
		int r = nethost_canon(c->in, strlen(c->in), &h, &why);

		cr_expect_eq(r, 0, "\"%s\": refused (%s)", c->in, why ? why : "no reason");
		if (r < 0)
			continue;
		cr_expect_eq(h.kind, c->kind, "\"%s\": %s, wanted %s", c->in, kind_names[h.kind],
			     kind_names[c->kind]);
		cr_expect_str_eq(h.text, c->text, "\"%s\"", c->in);
	}
}

/* addr[] holds the address the text names, and nothing for a name. */
Test(nethost, canon_fills_addr)
{
	static const uint8_t zero[16];
	uint8_t want[16];
	struct nethost h;
	const char *why;

	cr_assert_eq(nethost_canon("0x7f.1", 6, &h, &why), 0);
	cr_expect_arr_eq(h.addr, ((uint8_t[]){ 127, 0, 0, 1 }), 4);
	cr_expect_arr_eq(h.addr + 4, zero, 12);
	cr_assert_eq(nethost_canon("[::ffff:127.0.0.1]", 18, &h, &why), 0);
	cr_assert_eq(inet_pton(AF_INET6, "::ffff:127.0.0.1", want), 1);
	cr_expect_arr_eq(h.addr, want, 16);
	cr_assert_eq(nethost_canon("Example.COM", 11, &h, &why), 0);
	cr_expect_arr_eq(h.addr, zero, 16);
	/* len bounds the text: what follows is not read. */
	cr_assert_eq(nethost_canon("example.com:443", 11, &h, &why), 0);
	cr_expect_str_eq(h.text, "example.com");
}

/* The longest name and label RFC 1035 allows, and one byte more. */
Test(nethost, canon_lengths)
{
	char name[300];
	struct nethost h;
	const char *why = NULL;

	memset(name, 'a', 63);
	memcpy(name + 63, ".b", 3);
	cr_expect_eq(nethost_canon(name, 65, &h, &why), 0);
	memset(name, 'a', 64);
	memcpy(name + 64, ".b", 3);
	cr_expect_eq(nethost_canon(name, 66, &h, &why), -EINVAL);
	cr_expect(why && strstr(why, "63"), "%s", why);

	/* Three labels of 63 and one of 61: 3 * 64 + 61 = 253 bytes. */
	memset(name, 'a', 253);
	name[63] = name[127] = name[191] = '.';
	cr_assert_eq(nethost_canon(name, 253, &h, &why), 0, "%s", why);
	cr_expect_eq(strlen(h.text), 253);
	name[253] = '.';
	cr_expect_eq(nethost_canon(name, 254, &h, &why), 0, "the root dot is not counted");
	name[253] = 'x';
	cr_expect_eq(nethost_canon(name, 254, &h, &why), -EINVAL);
	cr_expect(why && strstr(why, "253"), "%s", why);
}

struct reject_case {
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *why; /* a part of the reason */
};

static const struct reject_case reject_cases[] = {
	{ "", 0, "empty" },
	{ ".", 0, "dots" },
	{ "...", 0, "dots" },
	/* A numeric last label is an address or nothing. */
	{ "1.2.3.4.5", 0, "no IPv4" },
	{ "256.1.1.1", 0, "no IPv4" },
	{ "1.2.3.256", 0, "no IPv4" },
	{ "256.1", 0, "no IPv4" },
	{ "1.2.65536", 0, "no IPv4" },
	{ "1.16777216", 0, "no IPv4" },
	{ "4294967296", 0, "no IPv4" },
	{ "99999999999999999999999", 0, "no IPv4" },
	{ "example.123", 0, "no IPv4" },
	{ "example.0x10", 0, "no IPv4" },
	{ "1.2.3.08", 0, "no IPv4" },
	{ "0x", 0, "no IPv4" },
	{ "1.0x", 0, "no IPv4" },
	{ "0x1.0xg.1", 0, "no IPv4" },
	/* Shape. */
	{ "a..b", 0, "empty label" },
	{ "1..2", 0, "empty label" },
	{ ".example.com", 0, "start with '.'" },
	{ ".1.2.3.4", 0, "start with '.'" },
	/* Characters. */
	{ "exa mple.com", 0, "only letters" },
	{ "127.0.0.1 ", 0, "only letters" },
	{ "1.2.3.4 foo", 0, "only letters" },
	{ "user@example.com", 0, "only letters" },
	{ "example.com/x", 0, "only letters" },
	{ "b\xc3\xbc" "cher.example", 0, "only letters" },
	{ "example.com:443", 0, "':'" },
	{ "::g", 0, "':'" },
	{ "1:2:3:4:5:6:7:8:9", 0, "':'" },
	{ "exa%41mple.com", 0, "'%'" },
	{ "*.example.com", 0, "'*'" },
	{ "*", 0, "'*'" },
	{ "a\0b", 3, "NUL" },
	{ "example.com\0", 12, "NUL" },
	/* IPv6. */
	{ "fe80::1%eth0", 0, "zone" },
	{ "[fe80::1%25eth0]", 0, "zone" },
	{ "[::1", 0, "']'" },
	{ "[", 0, "']'" },
	{ "[]", 0, "brackets" },
	{ "[127.0.0.1]", 0, "brackets" },
	{ "[example.com]", 0, "brackets" },
	{ "[::1]:443", 0, "']'" },
};

Test(nethost, canon_rejects)
{
	for (size_t i = 0; i < sizeof(reject_cases) / sizeof(reject_cases[0]); i++) {
		const struct reject_case *c = &reject_cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		struct nethost h;
		const char *why = NULL;
		int r = nethost_canon(c->in, len, &h, &why);

		cr_expect_eq(r, -EINVAL, "\"%s\" accepted as \"%s\"", c->in, h.text);
		cr_expect(why && strstr(why, c->why), "\"%s\": reason \"%s\", wanted \"%s\"",
			  c->in, why ? why : "(none)", c->why);
	}
}

Test(nethost, canon_long_ipv6_and_null_why)
{
	char s[200];
	struct nethost h;

	memset(s, '0', sizeof(s));
	memcpy(s, "::", 2);
	cr_expect_eq(nethost_canon(s, sizeof(s), &h, NULL), -EINVAL, "why may be NULL");
	cr_expect_eq(nethost_canon(NULL, 0, &h, NULL), -EINVAL);
}

struct match_case {
	const char *pattern;
	uint16_t pport;
	const char *host;
	uint16_t port;
	bool match;
};

static const struct match_case match_cases[] = {
	{ "*.x", 0, "x", 80, false },
	{ "*.x", 0, "a.x", 80, true },
	{ "*.x", 0, "x.evil.net", 80, false },
	{ "*.x", 0, "ax", 80, false },
	{ "*.x.com", 0, "a.x.com", 443, true },
	{ "*.x.com", 0, "b.a.x.com", 443, true },
	{ "*.x.com", 0, "A.X.COM.", 443, true },
	{ "*.x.com", 0, "x.com", 443, false },
	{ "*.x.com", 0, "ax.com", 443, false },
	{ "*.x.com", 0, "a.ax.com", 443, false },
	{ "*.x.com", 0, "x.com.evil.net", 443, false },
	{ "*.x.com", 0, "a.x.com.evil.net", 443, false },
	{ "*.X.Com.", 0, "a.x.com", 443, true },
	{ "*.com", 0, "a.com", 443, true },
	{ "*.x.com", 0, "1.2.3.4", 443, false },
	{ "*.x.com", 0, "::1", 443, false },
	{ "x.com", 0, "x.com", 443, true },
	{ "x.com", 0, "X.Com.", 443, true },
	{ "x.com", 0, "a.x.com", 443, false },
	{ "x.com", 0, "x.co", 443, false },
	{ "x.evil.net", 0, "x", 443, false },
	{ "Api.Example.COM.", 0, "api.example.com", 443, true },
	/* Ports: 0 in the pattern is any port, else the same port. */
	{ "example.com", 443, "example.com", 443, true },
	{ "example.com", 443, "example.com", 80, false },
	{ "example.com", 443, "example.com", 0, false },
	{ "example.com", 0, "example.com", 1, true },
	{ "example.com", 0, "example.com", 65535, true },
	{ "*.example.com", 443, "a.example.com", 443, true },
	{ "*.example.com", 443, "a.example.com", 8443, false },
	/* Addresses: the same address in any spelling, and only it. */
	{ "127.0.0.1", 0, "127.1", 80, true },
	{ "127.0.0.1", 0, "0x7f.1", 80, true },
	{ "127.0.0.1", 0, "2130706433", 80, true },
	{ "127.0.0.1", 0, "0177.0.0.1", 80, true },
	{ "127.0.0.1", 0, "127.0.0.2", 80, false },
	{ "127.0.0.1", 0, "localhost", 80, false },
	{ "127.0.0.1", 0, "[::ffff:127.0.0.1]", 80, false },
	{ "127.0.0.1", 8080, "127.1", 8080, true },
	{ "127.0.0.1", 8080, "127.1", 8081, false },
	{ "[::1]", 0, "0:0:0:0:0:0:0:1", 80, true },
	{ "::1", 0, "[::1]", 80, true },
	{ "::1", 0, "127.0.0.1", 80, false },
	{ "::1", 0, "::2", 80, false },
	{ "::ffff:127.0.0.1", 0, "[::FFFF:7f00:1]", 80, true },
	{ "::ffff:127.0.0.1", 0, "127.0.0.1", 80, false },
	{ "2001:db8::1", 443, "2001:0DB8:0:0:0:0:0:1", 443, true },
	{ "0.0.0.1", 0, "1", 80, true },
};

Test(nethost, pattern_match_table)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];
		struct nethost_pattern p;
		struct nethost h;
		const char *why = NULL;

		cr_assert_eq(nethost_pattern_parse(c->pattern, c->pport, &p, &why), 0,
			     "pattern \"%s\": %s", c->pattern, why);
		cr_assert_eq(nethost_canon(c->host, strlen(c->host), &h, &why), 0,
			     "host \"%s\": %s", c->host, why);
		cr_expect_eq(nethost_pattern_match(&p, &h, c->port), c->match,
			     "\"%s\" port %u against \"%s\" port %u: wanted %s", c->pattern,
			     c->pport, c->host, c->port, c->match ? "a match" : "none");
	}
}

Test(nethost, pattern_parse_fields)
{
	struct nethost_pattern p;
	const char *why;

	cr_assert_eq(nethost_pattern_parse("*.EXAMPLE.com.", 443, &p, &why), 0);
	cr_expect(p.subdomains);
	cr_expect_eq(p.host.kind, NETHOST_NAME);
	cr_expect_str_eq(p.host.text, "example.com");
	cr_expect_eq(p.port, 443);
	cr_assert_eq(nethost_pattern_parse("0x7f.1", 0, &p, &why), 0);
	cr_expect(!p.subdomains);
	cr_expect_eq(p.host.kind, NETHOST_IPV4);
	cr_expect_str_eq(p.host.text, "127.0.0.1");
	cr_assert_eq(nethost_pattern_parse("[::1]", 53, &p, &why), 0);
	cr_expect_eq(p.host.kind, NETHOST_IPV6);
	cr_expect_str_eq(p.host.text, "::1");
}

static const struct reject_case pattern_rejects[] = {
	{ "*", 0, "'*'" },
	{ "*.", 0, "after it" },
	{ "*..", 0, "after it" },
	{ "*foo.com", 0, "'*'" },
	{ "**.x", 0, "'*'" },
	{ "a.*.com", 0, "'*'" },
	{ "*.*.x", 0, "'*'" },
	{ "x.*", 0, "'*'" },
	{ "*.127.0.0.1", 0, "address" },
	{ "*.123", 0, "address" },
	{ "*.[::1]", 0, "address" },
	{ "*.::1", 0, "address" },
	{ "*..x", 0, "'.'" },
	{ "*.1.2.3.4.5", 0, "no IPv4" },
	{ "", 0, "empty" },
	{ "example.com:443", 0, "':'" },
	{ "fe80::1%eth0", 0, "zone" },
};

Test(nethost, pattern_rejects)
{
	for (size_t i = 0; i < sizeof(pattern_rejects) / sizeof(pattern_rejects[0]); i++) {
		const struct reject_case *c = &pattern_rejects[i];
		struct nethost_pattern p;
		const char *why = NULL;

		cr_expect_eq(nethost_pattern_parse(c->in, 0, &p, &why), -EINVAL,
			     "\"%s\" accepted", c->in);
		cr_expect(why && strstr(why, c->why), "\"%s\": reason \"%s\", wanted \"%s\"",
			  c->in, why ? why : "(none)", c->why);
	}
	cr_expect_eq(nethost_pattern_parse(NULL, 0, &(struct nethost_pattern){ 0 }, NULL),
		     -EINVAL);
}

struct class_case {
	const char *addr; /* IPv6 if it holds ':' */
	enum nethost_class cls;
};

#define PUB NETHOST_PUBLIC
#define LO NETHOST_LOOPBACK
#define UNSPEC NETHOST_UNSPECIFIED
#define LL NETHOST_LINK_LOCAL
#define BCAST NETHOST_BROADCAST
#define MCAST NETHOST_MULTICAST
#define RSVD NETHOST_RESERVED
#define PRIV NETHOST_PRIVATE

/* For every range: the address before it, its first, its last, the one
 * after it. */
static const struct class_case class_cases[] = {
	{ "0.0.0.0", UNSPEC },
	{ "0.255.255.255", UNSPEC },
	{ "1.0.0.0", PUB },
	{ "8.8.8.8", PUB },
	{ "9.255.255.255", PUB },
	{ "10.0.0.0", PRIV },
	{ "10.255.255.255", PRIV },
	{ "11.0.0.0", PUB },
	{ "100.63.255.255", PUB },
	{ "100.64.0.0", PRIV },
	{ "100.127.255.255", PRIV },
	{ "100.128.0.0", PUB },
	{ "126.255.255.255", PUB },
	{ "127.0.0.0", LO },
	{ "127.0.0.1", LO },
	{ "127.255.255.255", LO },
	{ "128.0.0.0", PUB },
	{ "169.253.255.255", PUB },
	{ "169.254.0.0", LL },
	{ "169.254.169.254", LL },
	{ "169.254.255.255", LL },
	{ "169.255.0.0", PUB },
	{ "172.15.255.255", PUB },
	{ "172.16.0.0", PRIV },
	{ "172.31.255.255", PRIV },
	{ "172.32.0.0", PUB },
	{ "191.255.255.255", PUB },
	{ "192.0.0.0", RSVD },
	{ "192.0.0.255", RSVD },
	{ "192.0.1.0", PUB },
	{ "192.0.2.0", PUB },
	{ "192.0.2.1", PUB },
	{ "192.0.2.255", PUB },
	{ "192.167.255.255", PUB },
	{ "192.168.0.0", PRIV },
	{ "192.168.255.255", PRIV },
	{ "192.169.0.0", PUB },
	{ "198.17.255.255", PUB },
	{ "198.18.0.0", RSVD },
	{ "198.19.255.255", RSVD },
	{ "198.20.0.0", PUB },
	{ "198.51.100.1", PUB },
	{ "203.0.113.1", PUB },
	{ "223.255.255.255", PUB },
	{ "224.0.0.0", MCAST },
	{ "239.255.255.255", MCAST },
	{ "240.0.0.0", RSVD },
	{ "255.255.255.254", RSVD },
	{ "255.255.255.255", BCAST },

	{ "::", UNSPEC },
	{ "::1", LO },
	/* ::/96, compatible: the IPv4 inside, ::2 being 0.0.0.2. */
	{ "::2", UNSPEC },
	{ "::1.0.0.0", PUB },
	{ "::127.0.0.1", LO },
	{ "::10.0.0.1", PRIV },
	{ "::169.254.169.254", LL },
	{ "::8.8.8.8", PUB },
	{ "::255.255.255.255", BCAST },
	{ "::1:0:0", RSVD },
	/* ::ffff:0:0/96, mapped. */
	{ "::fffe:ffff:ffff", RSVD },
	{ "::ffff:0.0.0.0", UNSPEC },
	{ "::ffff:127.0.0.1", LO },
	{ "::ffff:10.1.2.3", PRIV },
	{ "::ffff:172.16.0.1", PRIV },
	{ "::ffff:192.168.1.1", PRIV },
	{ "::ffff:100.64.0.1", PRIV },
	{ "::ffff:169.254.169.254", LL },
	{ "::ffff:8.8.8.8", PUB },
	{ "::ffff:192.0.2.1", PUB },
	{ "::ffff:255.255.255.255", BCAST },
	{ "::1:0:0:0", RSVD },
	/* ::ffff:0:0:0/96, translated (SIIT). */
	{ "::fffe:ffff:ffff:ffff", RSVD },
	{ "::ffff:0:0:0", UNSPEC },
	{ "::ffff:0:7f00:1", LO },
	{ "::ffff:0:a9fe:a9fe", LL },
	{ "::ffff:0:808:808", PUB },
	{ "::ffff:0:ffff:ffff", BCAST },
	{ "::ffff:1:0:0", RSVD },
	/* 64:ff9b::/96, NAT64; the rest of ::/8 reserved. */
	{ "64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", RSVD },
	{ "64:ff9b::", UNSPEC },
	{ "64:ff9b::127.0.0.1", LO },
	{ "64:ff9b::10.0.0.1", PRIV },
	{ "64:ff9b::169.254.169.254", LL },
	{ "64:ff9b::8.8.8.8", PUB },
	{ "64:ff9b::ffff:ffff", BCAST },
	{ "64:ff9b::1:0:0", RSVD },
	{ "64:ff9b:1::7f00:1", RSVD },
	{ "ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", RSVD },
	/* 100::/64, discard-only. */
	{ "100::", RSVD },
	{ "100::ffff:ffff:ffff:ffff", RSVD },
	{ "100:0:0:1::", PUB },
	{ "1ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	/* 2001::/32, Teredo; documentation after it stays public. */
	{ "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	{ "2001::", RSVD },
	{ "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", RSVD },
	{ "2001:1::", PUB },
	{ "2001:db8::", PUB },
	{ "2001:db8::1", PUB },
	{ "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	/* 2002::/16, 6to4: the IPv4 address in bytes 2..5. */
	{ "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	{ "2002::", UNSPEC },
	{ "2002:7f00:1::", LO },
	{ "2002:a00:1::", PRIV },
	{ "2002:c0a8:101::1", PRIV },
	{ "2002:a9fe:a9fe::", LL },
	{ "2002:808:808::", PUB },
	{ "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", BCAST },
	{ "2003::", PUB },
	{ "2606:4700::1111", PUB },
	/* fc00::/7, fe80::/10, fec0::/10, ff00::/8. */
	{ "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	{ "fc00::", PRIV },
	{ "fd00::1", PRIV },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PRIV },
	{ "fe00::", PUB },
	{ "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PUB },
	{ "fe80::", LL },
	{ "fe80::1", LL },
	{ "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", LL },
	{ "fec0::", PRIV },
	{ "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PRIV },
	{ "ff00::", MCAST },
	{ "ff02::1", MCAST },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", MCAST },
};

Test(nethost, classify_table)
{
	for (size_t i = 0; i < sizeof(class_cases) / sizeof(class_cases[0]); i++) {
		const struct class_case *c = &class_cases[i];
		int family = strchr(c->addr, ':') ? 6 : 4;
		uint8_t a[16];
		enum nethost_class got;

		cr_assert_eq(inet_pton(family == 6 ? AF_INET6 : AF_INET, c->addr, a), 1, "%s",
			     c->addr);
		got = nethost_classify(family, a);
		cr_expect_eq(got, c->cls, "%s: %s, wanted %s", c->addr, nethost_class_name(got),
			     nethost_class_name(c->cls));
	}
}

/* The proxy classes what nethost_canon parsed: the spellings meet. */
Test(nethost, classify_canon_spellings)
{
	static const struct class_case spellings[] = {
		{ "0x7f.1", LO },           { "2130706433", LO },
		{ "0xA9FEA9FE", LL },       { "[::ffff:169.254.169.254]", LL },
		{ "0", UNSPEC },            { "10.1", PRIV },
		{ "[::ffff:a00:1]", PRIV }, { "[64:ff9b::7f00:1]", LO },
		{ "192.0.2.1", PUB },
	};

	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		struct nethost h;
		const char *why;

		cr_assert_eq(nethost_canon(spellings[i].addr, strlen(spellings[i].addr), &h, &why),
			     0, "%s", spellings[i].addr);
		cr_expect_eq(nethost_classify(h.kind == NETHOST_IPV4 ? 4 : 6, h.addr),
			     spellings[i].cls, "%s", spellings[i].addr);
	}
}

/* The IPv4 address inside an IPv6 one, for checks that compare
 * addresses (the proxy's own-address check): every form the classifier
 * reads through, the compatible ::a.b.c.d among them, and none for ::,
 * ::1 or an address that embeds nothing. */
Test(nethost, embedded_v4_forms)
{
	static const struct {
		const char *addr, *v4; /* v4 NULL: none */
	} cases[] = {
		{ "::ffff:203.0.113.1", "203.0.113.1" },
		{ "::203.0.113.1", "203.0.113.1" },
		{ "::127.0.0.1", "127.0.0.1" },
		{ "::169.254.169.254", "169.254.169.254" },
		{ "::10.1.2.3", "10.1.2.3" },
		{ "::2", "0.0.0.2" },
		{ "::ffff:0:203.0.113.1", "203.0.113.1" },
		{ "64:ff9b::203.0.113.1", "203.0.113.1" },
		{ "2002:cb00:7101::1", "203.0.113.1" },
		{ "::", NULL },
		{ "::1", NULL },
		{ "::1:0:0", NULL },
		{ "64:ff9b:1::cb00:7101", NULL },
		{ "2001:db8::cb00:7101", NULL },
		{ "fe80::cb00:7101", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t a[16], v4[4] = { 0 }, want[4];

		cr_assert_eq(inet_pton(AF_INET6, cases[i].addr, a), 1, "%s", cases[i].addr);
		if (!cases[i].v4) {
			cr_expect_not(nethost_embedded_v4(a, v4), "%s", cases[i].addr);
			continue;
		}
		cr_assert_eq(inet_pton(AF_INET, cases[i].v4, want), 1);
		cr_expect(nethost_embedded_v4(a, v4), "%s", cases[i].addr);
		cr_expect_eq(memcmp(v4, want, 4), 0, "%s: %u.%u.%u.%u", cases[i].addr, v4[0], v4[1],
			     v4[2], v4[3]);
	}
}

Test(nethost, classify_bad_family_is_refused)
{
	uint8_t a[16] = { 8, 8, 8, 8 };

	cr_expect_eq(nethost_classify(5, a), NETHOST_RESERVED);
	cr_expect_eq(nethost_classify(4, NULL), NETHOST_RESERVED);
}

Test(nethost, class_names)
{
	cr_expect_str_eq(nethost_class_name(NETHOST_PUBLIC), "public");
	cr_expect_str_eq(nethost_class_name(NETHOST_LOOPBACK), "loopback");
	cr_expect(strstr(nethost_class_name(NETHOST_LINK_LOCAL), "metadata"));
	cr_expect(strstr(nethost_class_name(NETHOST_PRIVATE), "RFC 1918"));
	for (int c = NETHOST_PUBLIC; c <= NETHOST_PRIVATE; c++)
		cr_expect_str_neq(nethost_class_name(c), "unknown", "class %d", c);
	cr_expect_str_eq(nethost_class_name((enum nethost_class)99), "unknown");
}

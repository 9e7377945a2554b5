/* SPDX-License-Identifier: MIT
 * heel-proxy's verdicts (runtime/proxy/policy.c): the allow-list on the
 * host the client named, every resolved address on what it is, the
 * host's own addresses in any spelling, and a reason that says what to
 * add to the policy. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static struct proxy_policy pol;

static void
setup(void)
{
	proxy_policy_init(&pol);
}

static void
teardown(void)
{
	proxy_policy_free(&pol);
}

static void
add(const char *spec)
{
	char err[256] = "";

	cr_assert_eq(proxy_policy_add(&pol, spec, err, sizeof(err)), 0, "%s: %s", spec, err);
}

static bool
listed(const char *host, uint16_t port, char *reason, size_t cap)
{
	struct nethost h;
	const char *why = "";

	cr_assert_eq(nethost_canon(host, strlen(host), &h, &why), 0, "%s: %s", host, why);
	return proxy_policy_listed(&pol, &h, port, reason, cap);
}

static bool
address_ok(const char *host, const char *addr, char *reason, size_t cap)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, addr, &a->sin6_addr), 1, "%s", addr);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, addr, &a->sin_addr), 1, "%s", addr);
	}
	return proxy_policy_address_ok(&pol, host, (struct sockaddr *)&ss, reason, cap);
}

TestSuite(proxy_policy, .init = setup, .fini = teardown);

Test(proxy_policy, empty_list_allows_nothing_and_says_so)
{
	char reason[PROXY_REASON_MAX];

	cr_assert_not(listed("example.org", 443, reason, sizeof(reason)));
	cr_assert(strstr(reason, "which is empty"), "%s", reason);
	cr_assert(strstr(reason, "add \"example.org\" to `network allow { }`"), "%s", reason);
}

Test(proxy_policy, exact_and_subdomain_entries)
{
	char reason[PROXY_REASON_MAX];

	add("0 api.example.com");
	add("443 *.github.com");
	cr_assert(listed("API.Example.COM.", 80, reason, sizeof(reason)));
	cr_assert_str_eq(reason, "allow-list entry \"api.example.com\"");
	cr_assert(listed("codeload.github.com", 443, reason, sizeof(reason)));
	cr_assert_str_eq(reason, "allow-list entry \"*.github.com:443\"");
	/* The apex is not a subdomain; another port is another entry. */
	cr_assert_not(listed("github.com", 443, reason, sizeof(reason)));
	cr_assert_not(listed("x.example.com", 443, reason, sizeof(reason)));
	cr_assert_not(listed("api.example.com.evil.net", 443, reason, sizeof(reason)));
	cr_assert(strstr(reason, "api.example.com.evil.net is not in"), "%s", reason);
}

Test(proxy_policy, wrong_port_names_the_entry_to_add)
{
	char reason[PROXY_REASON_MAX];

	add("443 *.github.com");
	cr_assert_not(listed("api.github.com", 22, reason, sizeof(reason)));
	cr_assert(strstr(reason, "port 22 of api.github.com"), "%s", reason);
	cr_assert(strstr(reason, "add \"api.github.com:22\""), "%s", reason);
}

Test(proxy_policy, address_entries_match_every_spelling)
{
	char reason[PROXY_REASON_MAX];

	add("0 203.0.113.10");
	add("8080 2001:db8::10");
	cr_assert(listed("203.0.113.10", 80, reason, sizeof(reason)));
	cr_assert(listed("0xcb.0.113.10", 80, reason, sizeof(reason)));
	cr_assert(listed("3405803786", 80, reason, sizeof(reason)));
	cr_assert(listed("[2001:DB8:0:0::10]", 8080, reason, sizeof(reason)));
	cr_assert_not(listed("[2001:db8::10]", 80, reason, sizeof(reason)));
	cr_assert(strstr(reason, "\"[2001:db8::10]:80\""), "%s", reason);
}

Test(proxy_policy, allow_all_still_lists)
{
	char reason[PROXY_REASON_MAX];

	pol.allow_all = true;
	cr_assert(listed("anything.example", 1, reason, sizeof(reason)));
	cr_assert_str_eq(reason, "network allow-all");
}

Test(proxy_policy, malformed_entries_are_refused)
{
	char err[256];

	cr_assert_lt(proxy_policy_add(&pol, "x example.com", err, sizeof(err)), 0);
	cr_assert_lt(proxy_policy_add(&pol, "70000 example.com", err, sizeof(err)), 0);
	cr_assert_lt(proxy_policy_add(&pol, "0 *", err, sizeof(err)), 0);
	cr_assert_lt(proxy_policy_add(&pol, "0 a..b", err, sizeof(err)), 0);
	cr_assert_eq(pol.npats, 0);
}

/* What a name resolved to, judged on what it is. */
Test(proxy_policy, addresses_no_sandbox_may_reach)
{
	static const char *const refused[] = {
		"127.0.0.1",	   "127.255.255.254", "0.0.0.0",	 "169.254.169.254",
		"255.255.255.255", "224.0.0.1",	      "239.255.255.250", "240.0.0.1",
		"::1",		   "::",	      "fe80::1",	 "ff02::1",
		"::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
		"2002:7f00:1::",
	};
	char reason[PROXY_REASON_MAX];

	pol.allow_private = true; /* even so */
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_assert_not(address_ok("x.test", refused[i], reason, sizeof(reason)), "%s",
			      refused[i]);
		cr_assert(strstr(reason, "which no sandbox may reach"), "%s: %s", refused[i], reason);
	}
}

Test(proxy_policy, private_ranges_only_with_allow_private)
{
	static const char *const priv[] = {
		"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1",
		"fd00::1",  "fc00::1",	  "::ffff:10.1.2.3",
	};
	char reason[PROXY_REASON_MAX];

	for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++) {
		pol.allow_private = false;
		cr_assert_not(address_ok("db.test", priv[i], reason, sizeof(reason)), "%s", priv[i]);
		cr_assert(strstr(reason, "`network allow-private`"), "%s", reason);
		cr_assert(strstr(reason, "db.test ("), "%s", reason);
		pol.allow_private = true;
		cr_assert(address_ok("db.test", priv[i], reason, sizeof(reason)), "%s", priv[i]);
	}
	/* Just outside the ranges: public. */
	pol.allow_private = false;
	cr_assert(address_ok("x.test", "172.32.0.1", reason, sizeof(reason)));
	cr_assert(address_ok("x.test", "100.128.0.1", reason, sizeof(reason)));
	cr_assert(address_ok("x.test", "203.0.113.10", reason, sizeof(reason)));
	cr_assert(address_ok("x.test", "2001:db8::10", reason, sizeof(reason)));
}

Test(proxy_policy, the_hosts_own_addresses_in_any_form)
{
	char reason[PROXY_REASON_MAX];

	pol.own = calloc(2, sizeof(*pol.own));
	pol.own[0].family = 4;
	memcpy(pol.own[0].addr, "\xcb\x00\x71\x01", 4); /* 203.0.113.1 */
	pol.own[1].family = 6;
	inet_pton(AF_INET6, "2001:db8::1", pol.own[1].addr);
	pol.nown = 2;
	cr_assert_not(address_ok("me.test", "203.0.113.1", reason, sizeof(reason)));
	cr_assert(strstr(reason, "an address of this host itself"), "%s", reason);
	cr_assert_not(address_ok("me.test", "::ffff:203.0.113.1", reason, sizeof(reason)));
	cr_assert_not(address_ok("me.test", "2001:db8::1", reason, sizeof(reason)));
	cr_assert(address_ok("other.test", "203.0.113.2", reason, sizeof(reason)));
}

/* A literal as judge() and verdict() in server.c take it: canonicalised,
 * then its address put in a sockaddr. */
static bool
literal_ok(const char *lit, char *reason, size_t cap)
{
	struct sockaddr_storage ss;
	struct nethost h;
	const char *why = "";

	memset(&ss, 0, sizeof(ss));
	cr_assert_eq(nethost_canon(lit, strlen(lit), &h, &why), 0, "%s: %s", lit, why);
	if (h.kind == NETHOST_IPV4) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		memcpy(&a->sin_addr, h.addr, 4);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		cr_assert_eq(h.kind, NETHOST_IPV6, "%s", lit);
		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, h.addr, 16);
	}
	return proxy_policy_address_ok(&pol, h.text, (struct sockaddr *)&ss, reason, cap);
}

/* The IPv4-compatible form ::a.b.c.d (RFC 4291 section 2.5.5.1,
 * deprecated, still routed through the kernel's sit device) is the IPv4
 * address inside for every refusal, as a resolved answer and as a
 * literal; so are the mapped, NAT64 (64:ff9b::/96, RFC 6052) and 6to4
 * forms. :: and ::1 are themselves. */
Test(proxy_policy, ipv4_compatible_and_other_embedding_forms_refused_as_their_ipv4)
{
	static const struct {
		const char *addr, *what;
		bool allow_private_lets_it; /* refused without allow-private, allowed with */
	} cases[] = {
		{ "::127.0.0.1", "loopback", false },
		{ "::127.1.2.3", "loopback", false },
		{ "::5", "unspecified", false },
		{ "::0.1.2.3", "unspecified", false },
		{ "::169.254.169.254", "link-local", false },
		{ "::255.255.255.255", "broadcast", false },
		{ "::224.0.0.1", "multicast", false },
		{ "::10.1.2.3", "private", true },
		{ "::192.168.1.1", "private", true },
		{ "::100.64.0.1", "private", true },
		{ "::203.0.113.1", "this host itself", false },
		{ "::1", "loopback", false },
		{ "::", "unspecified", false },
		{ "64:ff9b::203.0.113.1", "this host itself", false },
		{ "64:ff9b::127.0.0.1", "loopback", false },
		{ "64:ff9b::10.1.2.3", "private", true },
		{ "::ffff:0:203.0.113.1", "this host itself", false },
		{ "2002:cb00:7101::", "this host itself", false },
	};
	char reason[PROXY_REASON_MAX], lit[64];

	pol.own = calloc(1, sizeof(*pol.own));
	pol.own[0].family = 4;
	memcpy(pol.own[0].addr, "\xcb\x00\x71\x01", 4); /* 203.0.113.1 */
	pol.nown = 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(lit, sizeof(lit), "[%s]", cases[i].addr);
		pol.allow_private = false;
		cr_assert_not(address_ok("x.test", cases[i].addr, reason, sizeof(reason)), "%s",
			      cases[i].addr);
		cr_assert(strstr(reason, cases[i].what), "%s: %s", cases[i].addr, reason);
		cr_assert_not(literal_ok(lit, reason, sizeof(reason)), "%s", lit);
		cr_assert(strstr(reason, cases[i].what), "%s: %s", lit, reason);
		pol.allow_private = true;
		cr_assert_eq(address_ok("x.test", cases[i].addr, reason, sizeof(reason)),
			     cases[i].allow_private_lets_it, "%s with allow-private: %s",
			     cases[i].addr, reason);
		cr_assert_eq(literal_ok(lit, reason, sizeof(reason)), cases[i].allow_private_lets_it,
			     "%s with allow-private: %s", lit, reason);
	}
	/* The positive control: the same forms of a public address that is
	 * not the host's go through. */
	pol.allow_private = false;
	cr_assert(address_ok("x.test", "::203.0.113.2", reason, sizeof(reason)), "%s", reason);
	cr_assert(literal_ok("[::203.0.113.2]", reason, sizeof(reason)), "%s", reason);
	cr_assert(address_ok("x.test", "64:ff9b::203.0.113.2", reason, sizeof(reason)), "%s",
		  reason);
}

Test(proxy_policy, load_own_finds_loopback)
{
	bool lo = false;

	cr_assert_eq(proxy_policy_load_own(&pol), 0);
	for (size_t i = 0; i < pol.nown; i++)
		if (pol.own[i].family == 4 && !memcmp(pol.own[i].addr, "\x7f\0\0\x01", 4))
			lo = true;
	cr_assert(lo, "getifaddrs listed no 127.0.0.1 among %zu addresses", pol.nown);
}

/* The way out of a refusal in the words the network was written in:
 * heel run's options, its TOML configuration, or a policy file. */
Test(proxy_policy, a_refusal_in_the_users_words)
{
	char reason[PROXY_REASON_MAX];

	add("0 allowed.test");
	cr_assert_eq(proxy_policy_set_words(&pol, "options"), 0);
	cr_assert_not(listed("example.org", 443, reason, sizeof(reason)));
	cr_expect(strstr(reason, "to allow it, add --allow-domain example.org"), "%s", reason);
	cr_assert_eq(proxy_policy_set_words(&pol, "toml /p/heel.toml"), 0);
	cr_assert_not(listed("example.org", 443, reason, sizeof(reason)));
	cr_expect(strstr(reason, "add \"example.org\" to allow-domains in /p/heel.toml"), "%s", reason);
	cr_assert_eq(proxy_policy_set_words(&pol, "policy ci.heel"), 0);
	cr_assert_not(listed("example.org", 443, reason, sizeof(reason)));
	cr_expect(strstr(reason, "add \"example.org\" to `network allow { }` in ci.heel"), "%s", reason);
	cr_assert_eq(proxy_policy_set_words(&pol, "shout"), -EINVAL);
	cr_assert_eq(proxy_policy_set_words(&pol, "policy a\nb"), 0);
	cr_expect_str_eq(pol.where, "a?b");
}

Test(proxy_policy, private_ranges_in_the_users_words)
{
	char reason[PROXY_REASON_MAX];

	cr_assert_eq(proxy_policy_set_words(&pol, "options"), 0);
	cr_assert_not(address_ok("db.internal", "10.0.0.5", reason, sizeof(reason)));
	cr_expect(strstr(reason, "only --allow-private lets"), "%s", reason);
	cr_assert_eq(proxy_policy_set_words(&pol, "policy"), 0);
	cr_assert_not(address_ok("db.internal", "10.0.0.5", reason, sizeof(reason)));
	cr_expect(strstr(reason, "only `network allow-private` in the policy lets"), "%s", reason);
}

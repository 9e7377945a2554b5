/* SPDX-License-Identifier: MIT
 * heel-proxy's verdicts (policy.h). */
#include "policy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
proxy_policy_init(struct proxy_policy *p)
{
	memset(p, 0, sizeof(*p));
}

void
proxy_policy_free(struct proxy_policy *p)
{
	for (size_t i = 0; i < p->npats; i++)
		free(p->pat_text[i]);
	free(p->pats);
	free(p->pat_text);
	free(p->own);
	memset(p, 0, sizeof(*p));
}

int
proxy_policy_add(struct proxy_policy *p, const char *spec, char *err, size_t errlen)
{
	struct nethost_pattern pat;
	const char *why = "malformed entry", *host;
	char *end, text[NETHOST_NAME_MAX + 16];
	unsigned long port;
	void *np, *nt;

	port = strtoul(spec, &end, 10);
	if (end == spec || *end != ' ' || port > 65535) {
		snprintf(err, errlen, "allow-list entry `%s`: malformed", spec);
		return -EINVAL;
	}
	host = end + 1;
	if (nethost_pattern_parse(host, (uint16_t)port, &pat, &why) < 0) {
		snprintf(err, errlen, "allow-list entry `%s`: %s", host, why);
		return -EINVAL;
	}
	if (port)
		snprintf(text, sizeof(text), strchr(host, ':') ? "[%s]:%lu" : "%s:%lu", host, port);
	else
		snprintf(text, sizeof(text), "%s", host);
	np = realloc(p->pats, (p->npats + 1) * sizeof(*p->pats));
	if (!np)
		return -ENOMEM;
	p->pats = np;
	nt = realloc(p->pat_text, (p->npats + 1) * sizeof(*p->pat_text));
	if (!nt)
		return -ENOMEM;
	p->pat_text = nt;
	if (!(p->pat_text[p->npats] = strdup(text)))
		return -ENOMEM;
	p->pats[p->npats++] = pat;
	return 0;
}

int
proxy_policy_set_words(struct proxy_policy *p, const char *spec)
{
	const char *where = "";

	if (strcmp(spec, "options") == 0)
		p->words = PROXY_WORDS_OPTIONS;
	else if (strncmp(spec, "toml ", 5) == 0)
		p->words = PROXY_WORDS_TOML, where = spec + 5;
	else if (strncmp(spec, "policy ", 7) == 0)
		p->words = PROXY_WORDS_POLICY, where = spec + 7;
	else if (strcmp(spec, "policy") == 0)
		p->words = PROXY_WORDS_POLICY;
	else
		return -EINVAL;
	/* It reaches a reader of a 403 and the audit line: one line, no
	 * control characters. */
	snprintf(p->where, sizeof(p->where), "%s", where);
	for (char *c = p->where; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return 0;
}

/* "add --allow-domain HOST", "add \"HOST\" to `network allow { }` in
 * FILE": what the user adds, in the words they wrote the network in. */
static void
way_to_allow(const struct proxy_policy *p, const char *entry, char *buf, size_t cap)
{
	switch (p->words) {
	case PROXY_WORDS_OPTIONS:
		snprintf(buf, cap, "add --allow-domain %s", entry);
		return;
	case PROXY_WORDS_TOML:
		snprintf(buf, cap, "add \"%s\" to allow-domains in %s", entry,
			 p->where[0] ? p->where : "the configuration");
		return;
	case PROXY_WORDS_POLICY:
		break;
	}
	snprintf(buf, cap, "add \"%s\" to `network allow { }` in %s", entry,
		 p->where[0] ? p->where : "the policy");
}

int
proxy_policy_load_own(struct proxy_policy *p)
{
	struct ifaddrs *ifs, *i;
	size_t n = 0;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (i = ifs; i; i = i->ifa_next)
		n++;
	free(p->own);
	p->nown = 0;
	p->own = calloc(n ? n : 1, sizeof(*p->own));
	if (!p->own) {
		freeifaddrs(ifs);
		return -ENOMEM;
	}
	for (i = ifs; i; i = i->ifa_next) {
		struct proxy_own_addr *o = &p->own[p->nown];

		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			o->family = 4;
			memcpy(o->addr, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			o->family = 6;
			memcpy(o->addr, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, 16);
		} else {
			continue;
		}
		p->nown++;
	}
	freeifaddrs(ifs);
	return 0;
}

static const char *
port_text(uint16_t port, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u", port);
	return buf;
}

static bool
listed(const struct proxy_policy *p, const struct nethost *h, uint16_t port, bool captured,
       char *reason, size_t cap)
{
	bool name_listed = false;
	char pt[8], way[NETHOST_NAME_MAX + 300];

	if (p->allow_all) {
		snprintf(reason, cap, "network allow-all");
		return true;
	}
	for (size_t i = 0; i < p->npats; i++) {
		/* Capture listens on 80 and 443 for an entry without a port. */
		bool any_port_here = !captured || p->pats[i].port || port == 80 || port == 443;

		if (any_port_here && nethost_pattern_match(&p->pats[i], h, port)) {
			snprintf(reason, cap, "allow-list entry \"%s\"", p->pat_text[i]);
			return true;
		}
		{
			/* The same entry on any port: then the port is what is missing. */
			struct nethost_pattern any = p->pats[i];

			any.port = 0;
			if (nethost_pattern_match(&any, h, port))
				name_listed = true;
		}
	}
	/* What the reader of a refusal needs: the exact entry to add. */
	if (name_listed) {
		char entry[NETHOST_NAME_MAX + 16];

		snprintf(entry, sizeof(entry), "%s%s%s:%s", h->kind == NETHOST_IPV6 ? "[" : "",
			 h->text, h->kind == NETHOST_IPV6 ? "]" : "", port_text(port, pt, sizeof(pt)));
		way_to_allow(p, entry, way, sizeof(way));
		snprintf(reason, cap,
			 "heel: port %s of %s is not in this sandbox's network allow-list; "
			 "to allow it, %s", pt, h->text, way);
	} else {
		way_to_allow(p, h->text, way, sizeof(way));
		snprintf(reason, cap,
			 "heel: %s is not in this sandbox's network allow-list%s; to allow it, %s",
			 h->text, p->npats ? "" : ", which is empty", way);
	}
	return false;
}

bool
proxy_policy_listed(const struct proxy_policy *p, const struct nethost *h, uint16_t port,
		    char *reason, size_t cap)
{
	return listed(p, h, port, false, reason, cap);
}

bool
proxy_policy_listed_captured(const struct proxy_policy *p, const struct nethost *h,
			     uint16_t port, char *reason, size_t cap)
{
	return listed(p, h, port, true, reason, cap);
}

bool
proxy_policy_name_listed(const struct proxy_policy *p, const struct nethost *h)
{
	for (size_t i = 0; i < p->npats; i++) {
		struct nethost_pattern any = p->pats[i];

		any.port = 0;
		if (nethost_pattern_match(&any, h, 0))
			return true;
	}
	return p->allow_all;
}

static bool
is_own(const struct proxy_policy *p, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < p->nown; i++)
		if (p->own[i].family == family &&
		    !memcmp(p->own[i].addr, addr, family == 4 ? 4 : 16))
			return true;
	return false;
}

static bool
refuse_class(const struct proxy_policy *p, const char *what, enum nethost_class c, char *reason,
	     size_t cap)
{
	if (c == NETHOST_PRIVATE)
		snprintf(reason, cap,
			 "heel: %s is a %s address; only %s lets the sandbox reach private ranges",
			 what, nethost_class_name(c),
			 p->words == PROXY_WORDS_POLICY ? "`network allow-private` in the policy"
							: "--allow-private");
	else
		snprintf(reason, cap, "heel: %s is a %s address, which no sandbox may reach", what,
			 nethost_class_name(c));
	return false;
}

bool
proxy_policy_address_ok(const struct proxy_policy *p, const char *host, const struct sockaddr *sa,
			char *reason, size_t cap)
{
	char text[INET6_ADDRSTRLEN];
	const uint8_t *addr;
	uint8_t v4[4];
	enum nethost_class c;
	int family;

	if (sa->sa_family == AF_INET) {
		family = 4;
		addr = (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		inet_ntop(AF_INET, addr, text, sizeof(text));
	} else if (sa->sa_family == AF_INET6) {
		family = 6;
		addr = (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		inet_ntop(AF_INET6, addr, text, sizeof(text));
	} else {
		snprintf(reason, cap, "heel: %s resolved to an address that is neither IPv4 nor IPv6",
			 host);
		return false;
	}
	/* Every IPv6 form that carries an IPv4 address of this host is the
	 * host too, as nethost_classify() classes each by the IPv4 address
	 * inside: mapped (RFC 4291 section 2.5.5.2, which a dual-stack
	 * socket connects to over IPv4), compatible (::a.b.c.d, deprecated
	 * by RFC 4291 section 2.5.5.1 but still routed by the kernel's sit
	 * device), translated (RFC 2765), and NAT64's well-known prefix
	 * 64:ff9b::/96 (RFC 6052 section 2.1) and 6to4 (RFC 3056), which a
	 * translator or relay delivers to that IPv4 address, the host's own
	 * public one included. */
	if (is_own(p, family, addr) ||
	    (family == 6 && nethost_embedded_v4(addr, v4) && is_own(p, 4, v4))) {
		snprintf(reason, cap,
			 "heel: %s is %s, an address of this host itself, which no sandbox may reach "
			 "through the proxy",
			 host, text);
		return false;
	}
	c = nethost_classify(family, addr);
	if (c == NETHOST_PUBLIC || (c == NETHOST_PRIVATE && p->allow_private))
		return true;
	/* "heel: db.internal (10.0.0.5) is ...", or the literal alone. */
	if (strcmp(host, text) != 0) {
		char both[NETHOST_NAME_MAX + INET6_ADDRSTRLEN + 4];

		snprintf(both, sizeof(both), "%s (%s)", host, text);
		return refuse_class(p, both, c, reason, cap);
	}
	return refuse_class(p, host, c, reason, cap);
}

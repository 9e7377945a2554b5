/* SPDX-License-Identifier: MIT
 * What heel-proxy lets through: the allow-list (or allow-all) judged on
 * the host the client asked for, then every address the name resolved to
 * judged on what it is (loopback, private, the host's own...). Each
 * verdict comes with one line of reason, which is both the audit record's
 * `reason` and what the sandboxed program's user reads in a refusal, so a
 * refusal says what to add to the policy. */
#ifndef HEEL_PROXY_POLICY_H
#define HEEL_PROXY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nethost.h"

#define PROXY_REASON_MAX 512

struct proxy_own_addr {
	int family; /* 4 or 6 */
	uint8_t addr[16];
};

/* Whose words a refusal's way out is in: what the user wrote the
 * network with (heel-exec tells, from the policy's origins). */
enum proxy_words {
	PROXY_WORDS_POLICY,  /* a .heel file: `network allow { }` */
	PROXY_WORDS_OPTIONS, /* heel run's options: --allow-domain */
	PROXY_WORDS_TOML,    /* heel run's TOML configuration: allow-domains */
};

struct proxy_policy {
	bool allow_all;
	bool allow_private;
	enum proxy_words words;
	char where[256];     /* the file the words go in; "" unknown */
	struct nethost_pattern *pats;
	char **pat_text; /* as written, for reasons: "*.github.com:443" */
	size_t npats;
	struct proxy_own_addr *own; /* the host's own addresses */
	size_t nown;
};

void proxy_policy_init(struct proxy_policy *p);
void proxy_policy_free(struct proxy_policy *p);

/* Adds an entry "PORT HOST" (the control message's form). 0, or -EINVAL
 * with a message in err. */
int proxy_policy_add(struct proxy_policy *p, const char *spec, char *err, size_t errlen);

/* Sets the words from heel-exec's setting: "options", "toml FILE",
 * "policy FILE" or "policy". 0, or -EINVAL. */
int proxy_policy_set_words(struct proxy_policy *p, const char *spec);

/* Reads the host's own addresses (getifaddrs), which no sandbox may
 * reach through the proxy: a service bound to the host's public address
 * is still the host's. 0 or -errno. */
int proxy_policy_load_own(struct proxy_policy *p);

/* Whether the list lets the client ask for h:port. reason: why, in words. */
bool proxy_policy_listed(const struct proxy_policy *p, const struct nethost *h, uint16_t port,
			 char *reason, size_t cap);

/* proxy_policy_listed for a captured connection (heel(5), THE PROXY,
 * Capture): an entry without a port counts for ports 80 and 443 only. */
bool proxy_policy_listed_captured(const struct proxy_policy *p, const struct nethost *h,
				  uint16_t port, char *reason, size_t cap);

/* Whether the list names h on some port (what capture's name server
 * answers with an address). */
bool proxy_policy_name_listed(const struct proxy_policy *p, const struct nethost *h);

/* Whether the proxy may connect to the address sa (AF_INET or AF_INET6)
 * that `host` resolved to. On refusal, reason says what it is and what
 * the policy would need, if anything can allow it. */
bool proxy_policy_address_ok(const struct proxy_policy *p, const char *host,
			     const struct sockaddr *sa, char *reason, size_t cap);

#endif

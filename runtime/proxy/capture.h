/* SPDX-License-Identifier: MIT
 * What heel-proxy needs for captured connections (heel(5), THE PROXY,
 * Capture): the table of fake addresses, each standing for one name the
 * capture namespace's name server answered with it; that name server's
 * answers; and the first bytes of a captured connection read for the
 * name the program meant (a TLS ClientHello's server_name, an HTTP
 * request's Host). Pure functions of their input and the table: no
 * socket, no clock, never prints. */
#ifndef HEEL_PROXY_CAPTURE_H
#define HEEL_PROXY_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nethost.h"

struct proxy_fake {
	char **names; /* index i: 198.18.1.0 + i + 1, fd68:6565:6c00:1::(i + 1) */
	size_t n, cap;
};

void proxy_fake_free(struct proxy_fake *f);

/* Whether sa (AF_INET or AF_INET6) lies in capture's ranges at all. */
bool proxy_fake_in_range(const struct sockaddr *sa);

/* The name the fake address sa stands for, or NULL (none given out). */
const char *proxy_fake_name(const struct proxy_fake *f, const struct sockaddr *sa);

/* The name server's verdict on a name: true, answer with its address. */
typedef bool proxy_fake_allowed_fn(void *ctx, const struct nethost *name);

/* What proxy_fake_answer did. */
enum proxy_fake_result {
	PROXY_FAKE_DROP,     /* not a query: no answer */
	PROXY_FAKE_ANSWERED, /* an address, or no data of that type */
	PROXY_FAKE_REFUSED,  /* NXDOMAIN: the list does not name it (name set) */
	PROXY_FAKE_BAD,      /* FORMERR or NOTIMP answered */
};

/* Answers the DNS query q (RFC 1035 section 4.1, one question) into out:
 * A and AAAA of an allowed name with its fake address (given out now if
 * it has none), any other type of it with no data, a name allowed()
 * refuses with NXDOMAIN. name gets the question's name (canonical text)
 * when there is one. *outlen 0 for PROXY_FAKE_DROP. -ENOMEM, else 0. */
int proxy_fake_answer(struct proxy_fake *f, const uint8_t *q, size_t qlen, uint8_t *out,
		      size_t cap, size_t *outlen, proxy_fake_allowed_fn *allowed, void *ctx,
		      struct nethost *name, enum proxy_fake_result *res);

/* What the first bytes of a captured connection say. */
enum proxy_peek {
	PROXY_PEEK_MORE,  /* a TLS record or HTTP head begun, not complete */
	PROXY_PEEK_NAME,  /* TLS with server_name, or HTTP with Host: name set */
	PROXY_PEEK_NONE,  /* neither, or TLS without server_name: no name to check */
};

/* Reads buf (what came so far): name gets the TLS server_name or the
 * HTTP Host (without its port), lower case; proto "TLS", "HTTP" or "TCP". */
enum proxy_peek proxy_capture_peek(const uint8_t *buf, size_t len, char *name, size_t cap,
				   const char **proto);

#endif

/* SPDX-License-Identifier: MIT
 * The server side of a SOCKS5 handshake (RFC 1928) with username and
 * password authentication (RFC 1929), as heel-proxy speaks it: a state
 * machine fed the bytes a client sends, which says what the client asked
 * and writes the bytes to answer. No I/O, no allocation; the caller owns
 * the socket, checks the credentials and decides the destination.
 *
 * The exchange, and the caller's part in it:
 *
 *   proxy_socks5_init(&s);
 *   each time bytes arrive, until an event other than NEED_MORE:
 *     ev = proxy_socks5_feed(&s, in, len, &used, out, cap, &outlen);
 *     send out[0..outlen) first, whatever ev is; in += used, len -= used.
 *   AUTH:    check s.user and s.pass; proxy_socks5_auth(&s, ok, ...) and
 *            send what it wrote; if ok, feed the rest of the input.
 *   REQUEST: decide on s.host and s.port, connect, then
 *            proxy_socks5_reply(&s, rep, bound, ...) and send it. The
 *            input left after `used` (and anything read later) is the
 *            client's first tunnel data, never fed again.
 *   FAIL:    send out, close; s.why says why (static text).
 *
 * Each call consumes no more than the message that ends in its event, so
 * a client that sends the greeting, the credentials and the request in
 * one write is answered the same as one that sends them byte by byte. */
#ifndef HEEL_PROXY_SOCKS5_H
#define HEEL_PROXY_SOCKS5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr;

#define PROXY_SOCKS5_FIELD_MAX 255 /* a user, password or domain name */
/* The output room every call needs: the longest message the server
 * sends (a reply with an IPv6 address). */
#define PROXY_SOCKS5_OUT_MIN 22

enum proxy_socks5_event {
	PROXY_SOCKS5_NEED_MORE, /* all input taken; feed more when it comes */
	PROXY_SOCKS5_AUTH,      /* s->user, s->pass: call proxy_socks5_auth() */
	PROXY_SOCKS5_REQUEST,   /* s->host, s->port: call proxy_socks5_reply() */
	PROXY_SOCKS5_FAIL,      /* send out, then close the connection */
};

/* REP, RFC 1928 section 6. */
enum proxy_socks5_rep {
	PROXY_SOCKS5_SUCCEEDED = 0x00,
	PROXY_SOCKS5_GENERAL_FAILURE = 0x01,
	PROXY_SOCKS5_NOT_ALLOWED = 0x02, /* by the ruleset: a policy refusal */
	PROXY_SOCKS5_NET_UNREACHABLE = 0x03,
	PROXY_SOCKS5_HOST_UNREACHABLE = 0x04,
	PROXY_SOCKS5_CONN_REFUSED = 0x05,
	PROXY_SOCKS5_TTL_EXPIRED = 0x06,
	PROXY_SOCKS5_CMD_UNSUPPORTED = 0x07,
	PROXY_SOCKS5_ATYP_UNSUPPORTED = 0x08,
};

/* ATYP, RFC 1928 section 4. */
enum proxy_socks5_atyp {
	PROXY_SOCKS5_ATYP_IPV4 = 0x01,
	PROXY_SOCKS5_ATYP_DOMAIN = 0x03,
	PROXY_SOCKS5_ATYP_IPV6 = 0x04,
};

struct proxy_socks5 {
	/* PROXY_SOCKS5_AUTH: NUL-terminated; a NUL inside either is refused
	 * before the caller sees them. The password is wiped by
	 * proxy_socks5_auth(). */
	char user[PROXY_SOCKS5_FIELD_MAX + 1];
	char pass[PROXY_SOCKS5_FIELD_MAX + 1];
	size_t user_len, pass_len;

	/* PROXY_SOCKS5_REQUEST: the destination. host is the domain name as
	 * received (not canonical: the caller runs it through
	 * nethost_canon()) or the address as text (dotted quad; IPv6 as
	 * inet_ntop(3) writes it, without brackets); addr holds the address
	 * for IPV4 (4 bytes) and IPV6 (16). port is 1..65535. */
	enum proxy_socks5_atyp atyp;
	uint8_t addr[16];
	char host[PROXY_SOCKS5_FIELD_MAX + 1];
	uint16_t port;

	/* PROXY_SOCKS5_FAIL: why, for the log (static text). */
	const char *why;

	/* Private: the phase, and the message read so far (the longest is
	 * the credentials: 2 + 255 + 1 + 255 bytes). */
	int state;
	size_t have;
	uint8_t msg[2 + PROXY_SOCKS5_FIELD_MAX + 1 + PROXY_SOCKS5_FIELD_MAX];
};

void proxy_socks5_init(struct proxy_socks5 *s);

/* Takes bytes from in[0..len) up to the end of the next event; *consumed
 * says how many (all of them for NEED_MORE), out[0..*outlen) what to send
 * the client. outcap must be PROXY_SOCKS5_OUT_MIN at least. A client that
 * offers no username/password method is answered 05 FF; bad credentials
 * framing 01 01; a request other than CONNECT 07, an unknown address
 * type 08, anything else malformed in a request 01 (a domain with a NUL
 * byte, an empty one, port 0, a reserved byte not 0). A greeting that is
 * not SOCKS version 5 gets no answer. Called out of turn (before a
 * verdict or a reply, or after the end), it fails and takes nothing. */
enum proxy_socks5_event proxy_socks5_feed(struct proxy_socks5 *s, const uint8_t *in, size_t len,
					  size_t *consumed, uint8_t *out, size_t outcap,
					  size_t *outlen);

/* The caller's verdict on s->user and s->pass, after an AUTH event:
 * writes 01 00 (go on: feed the request) or 01 01 (close after sending
 * it). 0, or -EINVAL out of turn, -ENOSPC with outcap under 2. */
int proxy_socks5_auth(struct proxy_socks5 *s, bool ok, uint8_t *out, size_t outcap,
		      size_t *outlen);

/* The reply to the request, after a REQUEST event: rep (enum
 * proxy_socks5_rep) and the address the proxy's upstream socket is bound
 * to, AF_INET or AF_INET6 (NULL, or another family: 0.0.0.0 port 0).
 * After SUCCEEDED the connection is a tunnel; after any other rep the
 * caller closes it. 0, or -EINVAL (out of turn, rep above 0x08), -ENOSPC
 * with outcap under the reply's size. */
int proxy_socks5_reply(struct proxy_socks5 *s, uint8_t rep, const struct sockaddr *bound,
		       uint8_t *out, size_t outcap, size_t *outlen);

#endif

/* SPDX-License-Identifier: MIT
 * The SOCKS5 handshake's server side; see socks5.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "socks5.h"

enum phase {
	GREETING,     /* VER NMETHODS METHODS */
	CREDENTIALS,  /* VER ULEN UNAME PLEN PASSWD (RFC 1929) */
	AWAIT_AUTH,   /* the caller's verdict */
	REQUEST,      /* VER CMD RSV ATYP DST.ADDR DST.PORT */
	AWAIT_REPLY,  /* the caller's connect */
	TUNNEL,
	FAILED,
};

#define METHOD_USERPASS 0x02
#define METHOD_NONE_ACCEPTABLE 0xff
#define CMD_CONNECT 0x01

static void
emit(uint8_t *out, size_t *outlen, const uint8_t *p, size_t n)
{
	memcpy(out + *outlen, p, n);
	*outlen += n;
}

/* The reply the machine makes itself when a request is refused: the
 * bound address carries no meaning then, 0.0.0.0:0. */
static void
emit_refusal(uint8_t *out, size_t *outlen, uint8_t rep)
{
	uint8_t r[10] = { 0x05, rep, 0x00, PROXY_SOCKS5_ATYP_IPV4 };

	emit(out, outlen, r, sizeof(r));
}

static enum proxy_socks5_event
fail(struct proxy_socks5 *s, const char *why)
{
	s->state = FAILED;
	s->why = why;
	return PROXY_SOCKS5_FAIL;
}

/* A frame() refusal: the machine has failed. */
static size_t
wrong(struct proxy_socks5 *s, const char *why)
{
	fail(s, why);
	return 0;
}

/* The length the message in s->msg has, as far as the bytes so far tell:
 * more than s->have while a length byte is still to come, equal once it
 * is whole. 0 when the bytes so far are already wrong (refusal written,
 * s->why set). */
static size_t
frame(struct proxy_socks5 *s, uint8_t *out, size_t *outlen)
{
	const uint8_t *m = s->msg;
	size_t h = s->have;

	switch (s->state) {
	case GREETING:
		/* A SOCKS4 client, or no SOCKS at all: no reply of ours
		 * would mean anything to it. */
		if (h >= 1 && m[0] != 0x05)
			return wrong(s, "not SOCKS version 5");
		return h < 2 ? 2 : 2 + (size_t)m[1];
	case CREDENTIALS:
		if (h >= 1 && m[0] != 0x01) {
			emit(out, outlen, (const uint8_t[]){ 0x01, 0x01 }, 2);
			return wrong(s, "username/password subnegotiation version not 1");
		}
		if (h < 2)
			return 2;
		if (h < 3 + (size_t)m[1])
			return 3 + (size_t)m[1];
		return 3 + (size_t)m[1] + m[2 + m[1]];
	case REQUEST:
		if (h >= 1 && m[0] != 0x05) {
			emit_refusal(out, outlen, PROXY_SOCKS5_GENERAL_FAILURE);
			return wrong(s, "request not SOCKS version 5");
		}
		if (h >= 2 && m[1] != CMD_CONNECT) {
			emit_refusal(out, outlen, PROXY_SOCKS5_CMD_UNSUPPORTED);
			return wrong(s, "command other than CONNECT (BIND, UDP ASSOCIATE)");
		}
		if (h >= 3 && m[2] != 0x00) {
			emit_refusal(out, outlen, PROXY_SOCKS5_GENERAL_FAILURE);
			return wrong(s, "reserved byte not 0 in the request");
		}
		if (h >= 4 && m[3] != PROXY_SOCKS5_ATYP_IPV4 && m[3] != PROXY_SOCKS5_ATYP_DOMAIN &&
		    m[3] != PROXY_SOCKS5_ATYP_IPV6) {
			emit_refusal(out, outlen, PROXY_SOCKS5_ATYP_UNSUPPORTED);
			return wrong(s, "unknown address type");
		}
		if (h < 5)
			return 5;
		if (m[3] == PROXY_SOCKS5_ATYP_IPV4)
			return 4 + 4 + 2;
		if (m[3] == PROXY_SOCKS5_ATYP_IPV6)
			return 4 + 16 + 2;
		if (m[4] == 0) {
			emit_refusal(out, outlen, PROXY_SOCKS5_GENERAL_FAILURE);
			return wrong(s, "empty domain name");
		}
		return 4 + 1 + (size_t)m[4] + 2;
	}
	if (s->state != FAILED)
		fail(s, "fed out of turn");
	return 0;
}

static enum proxy_socks5_event
greeting(struct proxy_socks5 *s, uint8_t *out, size_t *outlen)
{
	if (!memchr(s->msg + 2, METHOD_USERPASS, s->msg[1])) {
		emit(out, outlen, (const uint8_t[]){ 0x05, METHOD_NONE_ACCEPTABLE }, 2);
		return fail(s, "client offers no username/password authentication");
	}
	emit(out, outlen, (const uint8_t[]){ 0x05, METHOD_USERPASS }, 2);
	s->state = CREDENTIALS;
	return PROXY_SOCKS5_NEED_MORE;
}

static enum proxy_socks5_event
credentials(struct proxy_socks5 *s, uint8_t *out, size_t *outlen)
{
	size_t ulen = s->msg[1], plen = s->msg[2 + ulen];
	const uint8_t *u = s->msg + 2, *p = s->msg + 3 + ulen;

	/* The caller compares C strings: "secret\0x" must not pass for
	 * "secret". */
	bool nul = memchr(u, '\0', ulen) || memchr(p, '\0', plen);

	if (!nul) {
		memcpy(s->user, u, ulen);
		s->user[ulen] = '\0';
		s->user_len = ulen;
		memcpy(s->pass, p, plen);
		s->pass[plen] = '\0';
		s->pass_len = plen;
	}
	/* Only s->pass keeps the secret, until the verdict. */
	explicit_bzero(s->msg, sizeof(s->msg));
	if (nul) {
		emit(out, outlen, (const uint8_t[]){ 0x01, 0x01 }, 2);
		return fail(s, "NUL byte in the username or password");
	}
	s->state = AWAIT_AUTH;
	return PROXY_SOCKS5_AUTH;
}

static enum proxy_socks5_event
request(struct proxy_socks5 *s, uint8_t *out, size_t *outlen)
{
	const uint8_t *m = s->msg;
	size_t alen = m[3] == PROXY_SOCKS5_ATYP_IPV4 ? 4 : m[3] == PROXY_SOCKS5_ATYP_IPV6 ? 16 : m[4];
	const uint8_t *a = m[3] == PROXY_SOCKS5_ATYP_DOMAIN ? m + 5 : m + 4;
	uint16_t port = (uint16_t)(a[alen] << 8 | a[alen + 1]);

	if (port == 0) {
		emit_refusal(out, outlen, PROXY_SOCKS5_GENERAL_FAILURE);
		return fail(s, "port 0");
	}
	s->atyp = (enum proxy_socks5_atyp)m[3];
	s->port = port;
	memset(s->addr, 0, sizeof(s->addr));
	if (s->atyp == PROXY_SOCKS5_ATYP_DOMAIN) {
		/* A NUL would end the name the policy checks short of the
		 * one a resolver might be handed. */
		if (memchr(a, '\0', alen)) {
			emit_refusal(out, outlen, PROXY_SOCKS5_GENERAL_FAILURE);
			return fail(s, "NUL byte in the domain name");
		}
		memcpy(s->host, a, alen);
		s->host[alen] = '\0';
	} else {
		memcpy(s->addr, a, alen);
		inet_ntop(alen == 4 ? AF_INET : AF_INET6, a, s->host, sizeof(s->host));
	}
	s->state = AWAIT_REPLY;
	return PROXY_SOCKS5_REQUEST;
}

void
proxy_socks5_init(struct proxy_socks5 *s)
{
	memset(s, 0, sizeof(*s));
	s->state = GREETING;
}

enum proxy_socks5_event
proxy_socks5_feed(struct proxy_socks5 *s, const uint8_t *in, size_t len, size_t *consumed,
		  uint8_t *out, size_t outcap, size_t *outlen)
{
	size_t used = 0;

	*consumed = 0;
	*outlen = 0;
	if (outcap < PROXY_SOCKS5_OUT_MIN)
		return fail(s, "output buffer smaller than PROXY_SOCKS5_OUT_MIN");
	for (;;) {
		size_t need = frame(s, out, outlen), take;
		enum proxy_socks5_event ev;

		*consumed = used;
		if (need == 0)
			return PROXY_SOCKS5_FAIL;
		if (s->have == need) {
			s->have = 0;
			if (s->state == GREETING)
				ev = greeting(s, out, outlen);
			else if (s->state == CREDENTIALS)
				ev = credentials(s, out, outlen);
			else
				ev = request(s, out, outlen);
			if (ev != PROXY_SOCKS5_NEED_MORE)
				return ev;
			continue;
		}
		if (used == len)
			return PROXY_SOCKS5_NEED_MORE;
		take = need - s->have < len - used ? need - s->have : len - used;
		memcpy(s->msg + s->have, in + used, take);
		s->have += take;
		used += take;
	}
}

int
proxy_socks5_auth(struct proxy_socks5 *s, bool ok, uint8_t *out, size_t outcap, size_t *outlen)
{
	*outlen = 0;
	if (s->state != AWAIT_AUTH)
		return -EINVAL;
	if (outcap < 2)
		return -ENOSPC;
	/* The secret has been compared; it need not outlive the check. */
	explicit_bzero(s->pass, sizeof(s->pass));
	emit(out, outlen, (const uint8_t[]){ 0x01, ok ? 0x00 : 0x01 }, 2);
	if (ok)
		s->state = REQUEST;
	else
		fail(s, "wrong username or password");
	return 0;
}

int
proxy_socks5_reply(struct proxy_socks5 *s, uint8_t rep, const struct sockaddr *bound,
		   uint8_t *out, size_t outcap, size_t *outlen)
{
	uint8_t r[4 + 16 + 2] = { 0x05, rep, 0x00, PROXY_SOCKS5_ATYP_IPV4 };
	size_t n = 4 + 4 + 2;

	*outlen = 0;
	if (s->state != AWAIT_REPLY || rep > PROXY_SOCKS5_ATYP_UNSUPPORTED)
		return -EINVAL;
	if (bound && bound->sa_family == AF_INET) {
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)bound;

		memcpy(r + 4, &in4->sin_addr, 4);
		memcpy(r + 8, &in4->sin_port, 2);
	} else if (bound && bound->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)bound;

		r[3] = PROXY_SOCKS5_ATYP_IPV6;
		memcpy(r + 4, &in6->sin6_addr, 16);
		memcpy(r + 20, &in6->sin6_port, 2);
		n = 4 + 16 + 2;
	}
	if (outcap < n)
		return -ENOSPC;
	emit(out, outlen, r, n);
	if (rep == PROXY_SOCKS5_SUCCEEDED)
		s->state = TUNNEL;
	else
		fail(s, "request refused");
	return 0;
}

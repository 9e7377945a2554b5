/* SPDX-License-Identifier: MIT
 * libFuzzer target for heel-proxy's SOCKS5 handshake. The first byte
 * plays the caller (accept the credentials or not, which reply code),
 * the second cuts the rest into reads; the rest is what the client sent.
 * The handshake fed in one read and fed in those pieces must answer the
 * same bytes, name the same destination and leave the same tunnel data;
 * no call may take more than it was given, write more than its room, or
 * hand over a string without its NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "socks5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	uint8_t out[64];
	size_t outlen;
	char host[PROXY_SOCKS5_FIELD_MAX + 1];
	uint16_t port;
	size_t early; /* where tunnel data starts; 0: no request */
	const char *why;
};

static void
append(struct outcome *o, const uint8_t *p, size_t n)
{
	if (n > sizeof(o->out) - o->outlen)
		abort(); /* a handshake answers 4 + 22 bytes at most */
	memcpy(o->out + o->outlen, p, n);
	o->outlen += n;
}

static void
check_string(const char *s, size_t len)
{
	if (len > PROXY_SOCKS5_FIELD_MAX || strnlen(s, PROXY_SOCKS5_FIELD_MAX + 1) != len)
		abort();
}

/* Feeds in[0..len) in reads whose sizes come from `seed` (0: one read). */
static void
run(const uint8_t *in, size_t len, uint8_t ctl, uint8_t seed, struct outcome *o)
{
	struct proxy_socks5 s;
	uint32_t rng = seed;
	size_t pos = 0;

	memset(o, 0, sizeof(*o));
	proxy_socks5_init(&s);
	while (pos < len) {
		size_t n = len - pos, used, outlen;
		uint8_t out[PROXY_SOCKS5_OUT_MIN], *chunk;
		enum proxy_socks5_event ev;

		if (seed) {
			rng = rng * 1103515245u + 12345u;
			n = 1 + (rng >> 16) % 16 < n ? 1 + (rng >> 16) % 16 : n;
		}
		if (!(chunk = malloc(n)))
			return;
		memcpy(chunk, in + pos, n);
		ev = proxy_socks5_feed(&s, chunk, n, &used, out, sizeof(out), &outlen);
		free(chunk);
		if (used > n || outlen > sizeof(out))
			abort();
		append(o, out, outlen);
		pos += used;
		switch (ev) {
		case PROXY_SOCKS5_NEED_MORE:
			if (used != n)
				abort();
			break;
		case PROXY_SOCKS5_AUTH:
			check_string(s.user, s.user_len);
			check_string(s.pass, s.pass_len);
			if (proxy_socks5_auth(&s, ctl & 1, out, sizeof(out), &outlen) != 0 ||
			    s.pass[0] != '\0')
				abort();
			append(o, out, outlen);
			if (!(ctl & 1))
				return;
			break;
		case PROXY_SOCKS5_REQUEST:
			check_string(s.host, strnlen(s.host, sizeof(s.host)));
			if (s.host[0] == '\0' || s.port == 0 ||
			    (s.atyp != PROXY_SOCKS5_ATYP_IPV4 && s.atyp != PROXY_SOCKS5_ATYP_DOMAIN &&
			     s.atyp != PROXY_SOCKS5_ATYP_IPV6))
				abort();
			memcpy(o->host, s.host, sizeof(o->host));
			o->port = s.port;
			o->early = pos;
			if (proxy_socks5_reply(&s, (uint8_t)((ctl >> 1) % 9), NULL, out, sizeof(out),
					       &outlen) != 0)
				abort();
			append(o, out, outlen);
			return;
		case PROXY_SOCKS5_FAIL:
			if (!s.why)
				abort();
			o->why = s.why;
			return;
		default:
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome whole, pieces;

	if (size < 2)
		return 0;
	run(data + 2, size - 2, data[0], 0, &whole);
	run(data + 2, size - 2, data[0], (uint8_t)(data[1] | 1), &pieces);
	if (whole.outlen != pieces.outlen || memcmp(whole.out, pieces.out, whole.outlen) != 0 ||
	    strcmp(whole.host, pieces.host) != 0 || whole.port != pieces.port ||
	    whole.early != pieces.early || whole.why != pieces.why)
		abort();
	return 0;
}

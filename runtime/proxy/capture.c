/* SPDX-License-Identifier: MIT
 * Fake addresses, capture's name server and the first bytes of a
 * captured connection (capture.h). */
#include "capture.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxyctl.h"

/* 198.18.1.1 up to the end of 198.18.0.0/15 (index i is the pool's
 * address i + 1: never the all-zero host part, a subnet-router anycast
 * address in IPv6). */
#define FAKE_MAX ((1u << (32 - PROXYCTL_CAP_NET4_BITS)) - 258u)
#define DNS_TTL 300

static const uint8_t net6[6] = PROXYCTL_CAP_NET6;
static const uint8_t pool6[8] = PROXYCTL_CAP_POOL6;

void
proxy_fake_free(struct proxy_fake *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	memset(f, 0, sizeof(*f));
}

bool
proxy_fake_in_range(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);

		return (a >> (32 - PROXYCTL_CAP_NET4_BITS)) ==
		       (PROXYCTL_CAP_NET4 >> (32 - PROXYCTL_CAP_NET4_BITS));
	}
	if (sa->sa_family == AF_INET6)
		return !memcmp(((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr,
			       net6, sizeof(net6));
	return false;
}

const char *
proxy_fake_name(const struct proxy_fake *f, const struct sockaddr *sa)
{
	uint64_t i;

	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);

		if (!proxy_fake_in_range(sa) || a <= PROXYCTL_CAP_POOL4)
			return NULL;
		i = a - PROXYCTL_CAP_POOL4 - 1;
	} else if (sa->sa_family == AF_INET6) {
		const uint8_t *a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;

		if (memcmp(a, pool6, sizeof(pool6)) != 0 || a[8] | a[9] | a[10] | a[11])
			return NULL;
		i = (uint64_t)a[12] << 24 | (uint64_t)a[13] << 16 | (uint64_t)a[14] << 8 | a[15];
		if (!i--)
			return NULL;
	} else {
		return NULL;
	}
	return i < f->n ? f->names[i] : NULL;
}

/* The index of name, given out now if it has none; -ENOMEM, -ENOSPC. */
static long
fake_index(struct proxy_fake *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->names[i], name))
			return (long)i;
	if (f->n >= FAKE_MAX)
		return -ENOSPC;
	if (f->n == f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 16;
		char **nn = realloc(f->names, nc * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		f->names = nn;
		f->cap = nc;
	}
	if (!(f->names[f->n] = strdup(name)))
		return -ENOMEM;
	return (long)f->n++;
}

/* ---------------------------------------------------------------- DNS */

enum { RC_OK = 0, RC_FORMERR = 1, RC_SERVFAIL = 2, RC_NXDOMAIN = 3, RC_NOTIMP = 4 };

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The header of the answer to q (whose first qend bytes, its question
 * included, are copied), with rcode and ancount. */
static size_t
answer_head(const uint8_t *q, size_t qend, uint8_t *out, unsigned rcode, unsigned qd)
{
	unsigned flags = (unsigned)(q[2] << 8 | q[3]);

	memcpy(out, q, qend);
	/* QR, the query's opcode and RD, AA (this server is the authority
	 * on what the sandbox may resolve), RA. */
	flags = 0x8000u | (flags & 0x7900u) | 0x0400u | 0x0080u | rcode;
	put16(out + 2, flags);
	put16(out + 4, qd);
	put16(out + 6, 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	return qend;
}

int
proxy_fake_answer(struct proxy_fake *f, const uint8_t *q, size_t qlen, uint8_t *out, size_t cap,
		  size_t *outlen, proxy_fake_allowed_fn *allowed, void *ctx, struct nethost *name,
		  enum proxy_fake_result *res)
{
	char text[NETHOST_NAME_MAX + 2];
	size_t p = 12, tl = 0;
	unsigned qtype, qclass;
	const char *why;
	long idx;

	*outlen = 0;
	*res = PROXY_FAKE_DROP;
	memset(name, 0, sizeof(*name));
	if (qlen < 12 || cap < 512 || (q[2] & 0x80))
		return 0;
	*res = PROXY_FAKE_BAD;
	if (((q[2] >> 3) & 0xf) != 0) {
		*outlen = answer_head(q, 12, out, RC_NOTIMP, 0);
		return 0;
	}
	if (q[4] != 0 || q[5] != 1) {
		*outlen = answer_head(q, 12, out, RC_FORMERR, 0);
		return 0;
	}
	/* The question's name: labels only (a pointer has nothing to point
	 * back to in the first name of a message). */
	for (;;) {
		unsigned l;

		if (p >= qlen || (l = q[p]) > 63 || p + 1 + l > qlen || tl + l + 1 > NETHOST_NAME_MAX + 1) {
			*outlen = answer_head(q, 12, out, RC_FORMERR, 0);
			return 0;
		}
		p++;
		if (!l)
			break;
		if (tl)
			text[tl++] = '.';
		for (unsigned k = 0; k < l; k++) {
			char c = (char)q[p + k];

			text[tl++] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
		}
		p += l;
	}
	text[tl] = 0;
	if (p + 4 > qlen || p + 4 + 16 + 16 > cap) {
		*outlen = answer_head(q, 12, out, RC_FORMERR, 0);
		return 0;
	}
	qtype = (unsigned)(q[p] << 8 | q[p + 1]);
	qclass = (unsigned)(q[p + 2] << 8 | q[p + 3]);
	p += 4;
	if (!tl || nethost_canon(text, tl, name, &why) < 0 || name->kind != NETHOST_NAME ||
	    !allowed(ctx, name)) {
		if (!name->text[0])
			snprintf(name->text, sizeof(name->text), "%.200s", text);
		*res = PROXY_FAKE_REFUSED;
		*outlen = answer_head(q, p, out, RC_NXDOMAIN, 1);
		return 0;
	}
	*res = PROXY_FAKE_ANSWERED;
	if (qclass != 1 || (qtype != 1 && qtype != 28)) {
		*outlen = answer_head(q, p, out, RC_OK, 1);
		return 0;
	}
	if ((idx = fake_index(f, name->text)) < 0) {
		if (idx == -ENOMEM)
			return -ENOMEM;
		*outlen = answer_head(q, p, out, RC_SERVFAIL, 1);
		return 0;
	}
	*outlen = answer_head(q, p, out, RC_OK, 1);
	put16(out + 6, 1);
	{
		uint8_t *a = out + p;
		uint32_t v4 = PROXYCTL_CAP_POOL4 + (uint32_t)idx + 1;

		put16(a, 0xc00c); /* the question's name */
		put16(a + 2, qtype);
		put16(a + 4, 1);
		put16(a + 6, 0);
		put16(a + 8, DNS_TTL);
		if (qtype == 1) {
			put16(a + 10, 4);
			a[12] = (uint8_t)(v4 >> 24);
			a[13] = (uint8_t)(v4 >> 16);
			a[14] = (uint8_t)(v4 >> 8);
			a[15] = (uint8_t)v4;
			*outlen = p + 16;
		} else {
			put16(a + 10, 16);
			memcpy(a + 12, pool6, 8);
			memset(a + 20, 0, 4);
			a[24] = (uint8_t)((uint32_t)(idx + 1) >> 24);
			a[25] = (uint8_t)((uint32_t)(idx + 1) >> 16);
			a[26] = (uint8_t)((uint32_t)(idx + 1) >> 8);
			a[27] = (uint8_t)(idx + 1);
			*outlen = p + 28;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- peek */

static void
lower_copy(char *dst, size_t cap, const uint8_t *src, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;

	for (size_t i = 0; i < n; i++) {
		char c = (char)src[i];

		dst[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	dst[n] = 0;
	/* A trailing dot names the same host. */
	if (n && dst[n - 1] == '.')
		dst[n - 1] = 0;
}

/* The server_name of a ClientHello in one record (RFC 8446 section
 * 4.1.2, RFC 6066 section 3). */
static enum proxy_peek
peek_tls(const uint8_t *b, size_t len, char *name, size_t cap)
{
	size_t rl, p, end, n;

	if (len < 5)
		return PROXY_PEEK_MORE;
	rl = (size_t)(b[3] << 8 | b[4]);
	if (b[1] != 3 || rl < 4)
		return PROXY_PEEK_NONE;
	if (len < 5 + rl)
		return 5 + rl > 16384 ? PROXY_PEEK_NONE : PROXY_PEEK_MORE;
	end = 5 + rl;
	if (b[5] != 1)
		return PROXY_PEEK_NONE;
	p = 9 + 2 + 32; /* handshake header, version, random */
	if (p + 1 > end || (p += 1 + b[p]) + 2 > end)
		return PROXY_PEEK_NONE;
	if ((p += 2 + (size_t)(b[p] << 8 | b[p + 1])) + 1 > end)
		return PROXY_PEEK_NONE;
	if ((p += 1 + b[p]) + 2 > end)
		return PROXY_PEEK_NONE;
	n = (size_t)(b[p] << 8 | b[p + 1]);
	p += 2;
	if (p + n < end)
		end = p + n;
	while (p + 4 <= end) {
		unsigned type = (unsigned)(b[p] << 8 | b[p + 1]);
		size_t el = (size_t)(b[p + 2] << 8 | b[p + 3]);

		p += 4;
		if (p + el > end)
			return PROXY_PEEK_NONE;
		/* server_name: a list of one host_name (type 0). */
		if (type == 0 && el >= 5 && b[p + 2] == 0) {
			size_t hl = (size_t)(b[p + 3] << 8 | b[p + 4]);

			if (5 + hl > el || !hl)
				return PROXY_PEEK_NONE;
			lower_copy(name, cap, b + p + 5, hl);
			return PROXY_PEEK_NAME;
		}
		p += el;
	}
	return PROXY_PEEK_NONE;
}

static enum proxy_peek
peek_http(const uint8_t *b, size_t len, char *name, size_t cap)
{
	const uint8_t *end = NULL, *line;
	size_t i;

	/* A method: upper-case letters, then a space. */
	for (i = 0; i < len && i < 17 && b[i] >= 'A' && b[i] <= 'Z'; i++)
		;
	if (i == len && i < 17)
		return PROXY_PEEK_MORE;
	if (i == 0 || i >= 17 || b[i] != ' ')
		return PROXY_PEEK_NONE;
	for (i = 3; i < len; i++)
		if (b[i - 3] == '\r' && b[i - 2] == '\n' && b[i - 1] == '\r' && b[i] == '\n') {
			end = b + i;
			break;
		}
	if (!end)
		return len >= 16384 ? PROXY_PEEK_NONE : PROXY_PEEK_MORE;
	for (line = memchr(b, '\n', (size_t)(end - b)); line && line < end;
	     line = memchr(line, '\n', (size_t)(end - line))) {
		const uint8_t *v, *e;

		line++;
		if (end - line < 5 || strncasecmp((const char *)line, "host:", 5) != 0)
			continue;
		for (v = line + 5; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		for (e = v; e < end && *e != '\r' && *e != '\n'; e++)
			;
		while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > v && *v == '[') {
			const uint8_t *c = memchr(v, ']', (size_t)(e - v));

			if (!c)
				return PROXY_PEEK_NONE;
			lower_copy(name, cap, v + 1, (size_t)(c - v - 1));
		} else {
			const uint8_t *c = memchr(v, ':', (size_t)(e - v));

			lower_copy(name, cap, v, (size_t)((c ? c : e) - v));
		}
		return name[0] ? PROXY_PEEK_NAME : PROXY_PEEK_NONE;
	}
	return PROXY_PEEK_NONE;
}

enum proxy_peek
proxy_capture_peek(const uint8_t *buf, size_t len, char *name, size_t cap, const char **proto)
{
	enum proxy_peek r;

	name[0] = 0;
	*proto = "TCP";
	if (!len)
		return PROXY_PEEK_MORE;
	if (buf[0] == 0x16) {
		*proto = "TLS";
		return peek_tls(buf, len, name, cap);
	}
	r = peek_http(buf, len, name, cap);
	if (r != PROXY_PEEK_NONE || name[0])
		*proto = "HTTP";
	return r;
}

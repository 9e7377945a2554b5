/* SPDX-License-Identifier: MIT
 * heel-proxy's capture helpers (runtime/proxy/capture.c): the name
 * server's answers (an allowed name's fake address, the same each time,
 * mapped back to the name; NXDOMAIN for a refused one; malformed queries
 * answered FORMERR or dropped), and the name read from a captured
 * connection's first bytes (TLS server_name, HTTP Host), whatever the
 * bytes look like. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "capture.h"

static bool
only_cap(void *ctx, const struct nethost *n)
{
	(void)ctx;
	return strcmp(n->text, "cap.test") == 0;
}

static size_t
query(uint8_t *q, const char *name, unsigned qtype)
{
	size_t p = 12;
	const char *s = name;

	memset(q, 0, 12);
	q[0] = 0x12, q[1] = 0x34, q[2] = 0x01, q[5] = 1;
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		q[p++] = (uint8_t)l;
		memcpy(q + p, s, l);
		p += l;
		s += l + (dot ? 1 : 0);
	}
	q[p++] = 0;
	q[p++] = (uint8_t)(qtype >> 8), q[p++] = (uint8_t)qtype;
	q[p++] = 0, q[p++] = 1;
	return p;
}

Test(capture_dns, allowed_name_gets_a_fake_address_that_maps_back)
{
	struct proxy_fake f = { 0 };
	uint8_t q[512], out[512];
	size_t ql = query(q, "Cap.Test", 1), ol;
	enum proxy_fake_result res;
	struct nethost name;
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

	cr_assert_eq(proxy_fake_answer(&f, q, ql, out, sizeof(out), &ol, only_cap, NULL, &name, &res), 0);
	cr_assert_eq(res, PROXY_FAKE_ANSWERED);
	cr_assert_str_eq(name.text, "cap.test");
	cr_assert_eq(out[0], 0x12);
	cr_assert_eq(out[3] & 0xf, 0);  /* NOERROR */
	cr_assert_eq(out[7], 1);        /* one answer */
	cr_assert_eq(ol, ql + 16);
	memcpy(&in.sin_addr, out + ol - 4, 4);
	cr_assert(proxy_fake_in_range((struct sockaddr *)&in));
	cr_assert_str_eq(proxy_fake_name(&f, (struct sockaddr *)&in), "cap.test");
	/* AAAA: the same name, the same index. */
	ql = query(q, "cap.test", 28);
	cr_assert_eq(proxy_fake_answer(&f, q, ql, out, sizeof(out), &ol, only_cap, NULL, &name, &res), 0);
	cr_assert_eq(ol, ql + 28);
	memcpy(&in6.sin6_addr, out + ol - 16, 16);
	cr_assert_str_eq(proxy_fake_name(&f, (struct sockaddr *)&in6), "cap.test");
	cr_assert_eq(f.n, 1);
	/* An address of the range given to no name stands for none. */
	in.sin_addr.s_addr = htonl(ntohl(in.sin_addr.s_addr) + 1);
	cr_assert(proxy_fake_in_range((struct sockaddr *)&in));
	cr_assert_null(proxy_fake_name(&f, (struct sockaddr *)&in));
	inet_pton(AF_INET, "198.18.1.0", &in.sin_addr);
	cr_assert_null(proxy_fake_name(&f, (struct sockaddr *)&in));
	inet_pton(AF_INET, "203.0.113.10", &in.sin_addr);
	cr_assert_not(proxy_fake_in_range((struct sockaddr *)&in));
	proxy_fake_free(&f);
}

Test(capture_dns, refused_name_is_nxdomain_and_gets_no_address)
{
	struct proxy_fake f = { 0 };
	uint8_t q[512], out[512];
	size_t ql = query(q, "capno.test", 1), ol;
	enum proxy_fake_result res;
	struct nethost name;

	cr_assert_eq(proxy_fake_answer(&f, q, ql, out, sizeof(out), &ol, only_cap, NULL, &name, &res), 0);
	cr_assert_eq(res, PROXY_FAKE_REFUSED);
	cr_assert_str_eq(name.text, "capno.test");
	cr_assert_eq(out[3] & 0xf, 3);
	cr_assert_eq(out[7], 0);
	cr_assert_eq(f.n, 0);
	proxy_fake_free(&f);
}

Test(capture_dns, malformed_queries)
{
	struct proxy_fake f = { 0 };
	uint8_t q[512], out[512];
	size_t ql = query(q, "cap.test", 1), ol;
	enum proxy_fake_result res;
	struct nethost name;

	/* An answer, not a query: dropped. */
	q[2] |= 0x80;
	proxy_fake_answer(&f, q, ql, out, sizeof(out), &ol, only_cap, NULL, &name, &res);
	cr_assert_eq(res, PROXY_FAKE_DROP);
	cr_assert_eq(ol, 0);
	/* Cut anywhere in the question: FORMERR, never a read past it. */
	for (size_t cut = 12; cut < ql; cut++) {
		query(q, "cap.test", 1);
		proxy_fake_answer(&f, q, cut, out, sizeof(out), &ol, only_cap, NULL, &name, &res);
		cr_assert_eq(res, PROXY_FAKE_BAD, "cut %zu", cut);
		cr_assert_eq(out[3] & 0xf, 1);
	}
	/* A compression pointer in the question. */
	query(q, "cap.test", 1);
	q[12] = 0xc0;
	proxy_fake_answer(&f, q, ql, out, sizeof(out), &ol, only_cap, NULL, &name, &res);
	cr_assert_eq(res, PROXY_FAKE_BAD);
	cr_assert_eq(f.n, 0);
	proxy_fake_free(&f);
}

/* A ClientHello with server_name sni (NULL: none). */
static size_t
hello(uint8_t *b, const char *sni)
{
	size_t p = 5 + 4, ext, hs;

	b[0] = 0x16, b[1] = 3, b[2] = 1;
	b[5] = 1;
	b[p++] = 3, b[p++] = 3;
	memset(b + p, 7, 32);
	p += 32;
	b[p++] = 0;                            /* session id */
	b[p++] = 0, b[p++] = 2, b[p++] = 0x13, b[p++] = 1; /* one suite */
	b[p++] = 1, b[p++] = 0;                /* compression */
	ext = p;
	p += 2;
	/* An extension before server_name. */
	b[p++] = 0, b[p++] = 10, b[p++] = 0, b[p++] = 2, b[p++] = 0, b[p++] = 0;
	if (sni) {
		size_t l = strlen(sni);

		b[p++] = 0, b[p++] = 0;
		b[p++] = 0, b[p++] = (uint8_t)(l + 5);
		b[p++] = 0, b[p++] = (uint8_t)(l + 3);
		b[p++] = 0;
		b[p++] = 0, b[p++] = (uint8_t)l;
		memcpy(b + p, sni, l);
		p += l;
	}
	b[ext] = (uint8_t)((p - ext - 2) >> 8), b[ext + 1] = (uint8_t)(p - ext - 2);
	hs = p - 9;
	b[6] = 0, b[7] = (uint8_t)(hs >> 8), b[8] = (uint8_t)hs;
	b[3] = (uint8_t)((p - 5) >> 8), b[4] = (uint8_t)(p - 5);
	return p;
}

Test(capture_peek, tls_server_name)
{
	uint8_t b[512];
	char name[256];
	const char *proto;
	size_t n = hello(b, "Cap.Test.");

	for (size_t k = 1; k < n; k++)
		cr_assert_eq(proxy_capture_peek(b, k, name, sizeof(name), &proto), PROXY_PEEK_MORE, "%zu", k);
	cr_assert_eq(proxy_capture_peek(b, n, name, sizeof(name), &proto), PROXY_PEEK_NAME);
	cr_assert_str_eq(proto, "TLS");
	cr_assert_str_eq(name, "cap.test");
	n = hello(b, NULL);
	cr_assert_eq(proxy_capture_peek(b, n, name, sizeof(name), &proto), PROXY_PEEK_NONE);
	cr_assert_str_eq(proto, "TLS");
	/* A lying extension length: no name, no read past the record. */
	n = hello(b, "cap.test");
	b[n - 10] = 0xff;
	cr_assert_neq(proxy_capture_peek(b, n, name, sizeof(name), &proto), PROXY_PEEK_MORE);
}

Test(capture_peek, http_host)
{
	static const char req[] = "GET /x HTTP/1.1\r\nUser-Agent: t\r\nhOST:  Front.Test:8080 \r\n\r\n";
	char name[256];
	const char *proto;

	for (size_t k = 1; k < sizeof(req) - 1; k++)
		cr_assert_eq(proxy_capture_peek((const uint8_t *)req, k, name, sizeof(name), &proto),
			     PROXY_PEEK_MORE, "%zu", k);
	cr_assert_eq(proxy_capture_peek((const uint8_t *)req, sizeof(req) - 1, name, sizeof(name),
					&proto), PROXY_PEEK_NAME);
	cr_assert_str_eq(proto, "HTTP");
	cr_assert_str_eq(name, "front.test");
	cr_assert_eq(proxy_capture_peek((const uint8_t *)"SSH-2.0-OpenSSH_9.2\r\n", 21, name,
					sizeof(name), &proto), PROXY_PEEK_NONE);
	cr_assert_str_eq(proto, "TCP");
	cr_assert_eq(proxy_capture_peek((const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18, name,
					sizeof(name), &proto), PROXY_PEEK_NONE);
}

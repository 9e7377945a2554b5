/* SPDX-License-Identifier: MIT
 * heel-proxy's HTTP request heads (runtime/proxy/http.c): each form a
 * proxy client sends is read, every spelling that a server behind the
 * proxy could read differently is refused with its status, a head read
 * a byte at a time reads as one read whole, and the head sent upstream
 * carries no hop-by-hop header. The strict base64 decoder
 * (runtime/proxy/base64.c) for Basic credentials is here too. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "http.h"

static enum proxy_http_result
parse(const char *s, struct proxy_http_req *req)
{
	return proxy_http_parse((const uint8_t *)s, strlen(s), req);
}

/* The fields a DONE or REFUSE outcome is made of. */
static void
assert_same(const struct proxy_http_req *a, const struct proxy_http_req *b, const char *what)
{
	cr_assert_eq(a->status, b->status, "%s", what);
	cr_assert_eq(a->reason, b->reason, "%s", what);
	cr_assert_eq(a->head_len, b->head_len, "%s", what);
	cr_assert_eq(a->kind, b->kind, "%s", what);
	cr_assert_str_eq(a->method, b->method, "%s", what);
	cr_assert_str_eq(a->host, b->host, "%s", what);
	cr_assert_eq(a->host_v6, b->host_v6, "%s", what);
	cr_assert_eq(a->port, b->port, "%s", what);
	cr_assert_eq(a->version, b->version, "%s", what);
	cr_assert_eq(a->path_off, b->path_off, "%s", what);
	cr_assert_eq(a->path_len, b->path_len, "%s", what);
	cr_assert_eq(a->body, b->body, "%s", what);
	cr_assert_eq(a->content_length, b->content_length, "%s", what);
	cr_assert_eq(a->has_auth, b->has_auth, "%s", what);
	cr_assert_str_eq(a->user, b->user, "%s", what);
	cr_assert_str_eq(a->pass, b->pass, "%s", what);
}

Test(proxy_http, connect_authority)
{
	struct proxy_http_req r;
	const char *s = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "%s", r.reason);
	cr_assert_eq(r.kind, PROXY_HTTP_CONNECT);
	cr_assert_str_eq(r.method, "CONNECT");
	cr_assert_str_eq(r.host, "example.com");
	cr_assert_eq(r.port, 443);
	cr_assert_not(r.host_v6);
	cr_assert_eq(r.version, 11);
	cr_assert_eq(r.head_len, strlen(s));
	cr_assert_eq(r.body, PROXY_HTTP_BODY_NONE);
	cr_assert_not(r.has_auth);

	cr_assert_eq(parse("CONNECT [2001:DB8::1]:8443 HTTP/1.0\r\n\r\n", &r), PROXY_HTTP_DONE);
	cr_assert_str_eq(r.host, "2001:DB8::1", "as written, without brackets");
	cr_assert(r.host_v6);
	cr_assert_eq(r.port, 8443);
	cr_assert_eq(r.version, 10);

	cr_assert_eq(parse("CONNECT 127.1:1 HTTP/1.1\r\n\r\n", &r), PROXY_HTTP_DONE);
	cr_assert_str_eq(r.host, "127.1", "canonicalising is the caller's");
	cr_assert_eq(r.port, 1);
	cr_assert_eq(parse("CONNECT a.b:65535 HTTP/1.1\r\n\r\n", &r), PROXY_HTTP_DONE);
	cr_assert_eq(r.port, 65535);
	cr_assert_eq(parse("CONNECT h:00443 HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &r),
		     PROXY_HTTP_DONE, "an empty body is no body");
	cr_assert_eq(r.port, 443);
}

Test(proxy_http, connect_early_data_follows_the_head)
{
	struct proxy_http_req r;
	const char *head = "CONNECT h:443 HTTP/1.1\r\n\r\n";
	char s[64];

	snprintf(s, sizeof(s), "%s\x16\x03\x01 tls", head);
	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE);
	cr_assert_eq(r.head_len, strlen(head));
}

Test(proxy_http, forward_absolute_form)
{
	struct proxy_http_req r;
	const char *s = "GET http://Example.COM:8080/a/b?q=1&r=%20 HTTP/1.1\r\n"
			"Host: elsewhere\r\nUser-Agent: t\r\n\r\nbody";

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "%s", r.reason);
	cr_assert_eq(r.kind, PROXY_HTTP_FORWARD);
	cr_assert_str_eq(r.method, "GET");
	cr_assert_str_eq(r.host, "Example.COM");
	cr_assert_eq(r.port, 8080);
	cr_assert_eq(r.path_len, strlen("/a/b?q=1&r=%20"));
	cr_assert_eq(memcmp(s + r.path_off, "/a/b?q=1&r=%20", r.path_len), 0);
	cr_assert_eq(r.head_len, strlen(s) - 4);

	cr_assert_eq(parse("POST HTTP://h HTTP/1.0\r\nContent-Length: 12\r\n\r\n", &r),
		     PROXY_HTTP_DONE, "the scheme is case-insensitive");
	cr_assert_eq(r.port, 80);
	cr_assert_eq(r.path_len, 0);
	cr_assert_eq(r.body, PROXY_HTTP_BODY_LENGTH);
	cr_assert_eq(r.content_length, 12);

	cr_assert_eq(parse("PUT http://[::1]?x HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &r),
		     PROXY_HTTP_DONE);
	cr_assert_str_eq(r.host, "::1");
	cr_assert(r.host_v6);
	cr_assert_eq(r.port, 80);
	cr_assert_eq(r.path_len, 2);
	cr_assert_eq(r.body, PROXY_HTTP_BODY_CHUNKED);

	cr_assert_eq(parse("M-SEARCH http://h_1.x:81/ HTTP/1.1\r\n\r\n", &r), PROXY_HTTP_DONE,
		     "any token is a method");
	cr_assert_str_eq(r.method, "M-SEARCH");
	cr_assert_eq(parse("GET http://h/ HTTP/1.1\r\nX: 1\r\nX: 2\r\nEmpty:\r\n"
			   "Content-Length: 5\r\nContent-Length: 005\r\n\r\n",
			   &r),
		     PROXY_HTTP_DONE, "repeated headers, an empty value, equal lengths");
	cr_assert_eq(r.content_length, 5);
}

struct refusal {
	const char *req;
	int status;
};

static const struct refusal refusals[] = {
	/* Not for a proxy, or not for this one. */
	{ "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400 },
	{ "OPTIONS * HTTP/1.1\r\n\r\n", 400 },
	{ "GET https://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET ftp://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET ws://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET example.com:80 HTTP/1.1\r\n\r\n", 405 },
	{ "connect example.com:443 HTTP/1.1\r\n\r\n", 405 },
	{ "POST x HTTP/1.1\r\n\r\n", 405 },
	/* CONNECT's authority. */
	{ "CONNECT example.com HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com: HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com:0 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com:123456 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com:+443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT example.com:44a HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT :443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT a:b:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT [::1:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT [::1] HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT []:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT [1.2.3.4]:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT [::1%25eth0]:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT [::1]x:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT user@host:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT ho%73t:443 HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT /x HTTP/1.1\r\n\r\n", 400 },
	{ "CONNECT h:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n", 400 },
	{ "CONNECT h:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
	/* The URL. */
	{ "GET http://user:pw@host/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://user@host/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://allowed.com@evil.net/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://host/#frag HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://host#frag HTTP/1.1\r\n\r\n", 400 },
	{ "GET http:///path HTTP/1.1\r\n\r\n", 400 },
	{ "GET http:// HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://host:/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://host:0/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://host:99999/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://ho~st/ HTTP/1.1\r\n\r\n", 400 },
	/* The request line. */
	{ "\r\n\r\n", 400 },
	{ "\r\nGET http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET  http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/  HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1 \r\n\r\n", 400 },
	{ " GET http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET\thttp://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/\x01 HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/\x7f HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/\xc3\xa9 HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\n\r\n", 0 }, /* the control: accepted */
	{ "GET http://x/\r\n\r\n", 400 },
	{ "GET\r\n\r\n", 400 },
	{ "G@T http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "G\x80T http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG http://x/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://x/ http/1.1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.10\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.x\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/2.0\r\n\r\n", 505 },
	{ "GET http://x/ HTTP/0.9\r\n\r\n", 505 },
	{ "GET http://x/ HTTP/1.2\r\n\r\n", 505 },
	{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505 },
	/* Line endings and bytes. */
	{ "GET http://x/ HTTP/1.1\nHost: x\n\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nHost: x\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nHost: x\r\n\n", 400 },
	{ "GET http://x/ HTTP/1.1\rHost: x\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX: a\rb\r\n\r\n", 400 },
	/* Header lines. */
	{ "GET http://x/ HTTP/1.1\r\nX-A: 1\r\n continued\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX-A: 1\r\n\tcontinued\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nHost : x\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nHost\t: x\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\n: x\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nNoColon\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX@Y: 1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX(Y): 1\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX: a\x01b\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", 400 },
	{ "GET http://x/ HTTP/1.1\r\nX: a\xff\tb\r\n\r\n", 0 }, /* obs-text and HTAB */
	{ "GET http://x/ HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400 },
	/* Framing. */
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 0 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length:\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: +1\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 1,1\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 1 1\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 123456789012345678\r\n\r\n", 0 },
	{ "POST http://x/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
	  400 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
	  400 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 501 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", 501 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", 501 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n",
	  400 },
	{ "POST http://x/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nTransfer-Encoding:  chunked \r\n\r\n", 0 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: Content-Length\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: close, transfer-encoding\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: HOST\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: a b\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: a;b\r\n\r\n", 400 },
	{ "POST http://x/ HTTP/1.1\r\nConnection: , a ,, b,\r\n\r\n", 0 },
};

Test(proxy_http, refusals)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *t = &refusals[i];
		struct proxy_http_req r;
		enum proxy_http_result res = parse(t->req, &r);

		if (t->status == 0) {
			cr_assert_eq(res, PROXY_HTTP_DONE, "[%zu] %s: %s", i, t->req, r.reason);
			continue;
		}
		cr_assert_eq(res, PROXY_HTTP_REFUSE, "[%zu] %s", i, t->req);
		cr_assert_eq(r.status, t->status, "[%zu] %s: %d %s", i, t->req, r.status,
			     r.reason);
		cr_assert_not_null(r.reason);
		cr_assert_null(strpbrk(r.reason, "\r\n"), "a reason is one line");
		cr_assert_not_null(proxy_http_status_text(r.status));
	}
}

Test(proxy_http, nul_byte_refused_early)
{
	struct proxy_http_req r;
	static const uint8_t s[] = "GET http://x/ HTTP/1.1\r\nX: a\0b";

	cr_assert_eq(proxy_http_parse(s, sizeof(s) - 1, &r), PROXY_HTTP_REFUSE,
		     "no need to wait for the end of a head with a NUL");
	cr_assert_eq(r.status, 400);
}

/* A head that fills the limit exactly, or one byte more. */
static char *
padded_head(size_t total)
{
	static const char pre[] = "GET http://x/ HTTP/1.1\r\nX-Pad: ";
	char *s = malloc(total + 1);
	size_t fill = total - strlen(pre) - 4;

	cr_assert_not_null(s);
	memcpy(s, pre, strlen(pre));
	memset(s + strlen(pre), 'p', fill);
	memcpy(s + strlen(pre) + fill, "\r\n\r\n", 5);
	return s;
}

Test(proxy_http, head_size_limit)
{
	struct proxy_http_req r;
	char *s = padded_head(PROXY_HTTP_HEAD_MAX);
	uint8_t *junk;

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "%s", r.reason);
	cr_assert_eq(r.head_len, PROXY_HTTP_HEAD_MAX);
	free(s);
	s = padded_head(PROXY_HTTP_HEAD_MAX + 1);
	cr_assert_eq(parse(s, &r), PROXY_HTTP_REFUSE);
	cr_assert_eq(r.status, 431);
	cr_assert_eq(proxy_http_parse((const uint8_t *)s, PROXY_HTTP_HEAD_MAX - 1, &r),
		     PROXY_HTTP_NEED_MORE);
	cr_assert_eq(proxy_http_parse((const uint8_t *)s, PROXY_HTTP_HEAD_MAX, &r),
		     PROXY_HTTP_REFUSE, "the limit reached without the end");
	cr_assert_eq(r.status, 431);
	free(s);

	/* A megabyte without a line break: refused at the limit, not read on. */
	junk = malloc(1 << 20);
	cr_assert_not_null(junk);
	memset(junk, 'A', 1 << 20);
	cr_assert_eq(proxy_http_parse(junk, 1 << 20, &r), PROXY_HTTP_REFUSE);
	cr_assert_eq(r.status, 431);
	cr_assert_eq(proxy_http_parse(junk, 0, &r), PROXY_HTTP_NEED_MORE);
	free(junk);
}

Test(proxy_http, header_line_limit)
{
	struct proxy_http_req r;
	char s[4096];
	size_t n = (size_t)snprintf(s, sizeof(s), "GET http://x/ HTTP/1.1\r\n");

	for (int i = 0; i < PROXY_HTTP_LINES_MAX; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "H%d: v\r\n", i);
	snprintf(s + n, sizeof(s) - n, "\r\n");
	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "100 lines: %s", r.reason);
	snprintf(s + n, sizeof(s) - n, "One-More: v\r\n\r\n");
	cr_assert_eq(parse(s, &r), PROXY_HTTP_REFUSE);
	cr_assert_eq(r.status, 431);
}

static const char *const good[] = {
	"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
	"Proxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n",
	"CONNECT [::1]:8443 HTTP/1.0\r\n\r\n",
	"GET http://example.com/index.html?q HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n"
	"Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\n\r\n",
	"POST http://[2001:db8::2]:8080 HTTP/1.1\r\nContent-Length: 4\r\n\r\n",
	"PUT http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
};

/* Whatever the reads look like, the caller that parses again after each
 * one gets NEED_MORE until the head is whole, and then what one read of
 * everything gives. */
Test(proxy_http, split_at_every_byte)
{
	for (size_t g = 0; g < sizeof(good) / sizeof(good[0]); g++) {
		const uint8_t *s = (const uint8_t *)good[g];
		size_t len = strlen(good[g]);
		struct proxy_http_req whole, part;

		cr_assert_eq(proxy_http_parse(s, len, &whole), PROXY_HTTP_DONE, "%s", good[g]);
		cr_assert_eq(whole.head_len, len);
		for (size_t k = 0; k < len; k++) {
			uint8_t *copy = malloc(k ? k : 1);

			/* A buffer of exactly k bytes: ASan sees any read past
			 * what has arrived. */
			memcpy(copy, s, k);
			cr_assert_eq(proxy_http_parse(copy, k, &part), PROXY_HTTP_NEED_MORE,
				     "[%zu] prefix of %zu bytes", g, k);
			free(copy);
			cr_assert_eq(proxy_http_parse(s, len, &part), PROXY_HTTP_DONE);
			assert_same(&whole, &part, good[g]);
		}
	}
}

/* A refusal comes as soon as the bytes show it, or with the whole head;
 * never a different one for a different split. */
Test(proxy_http, refusals_split_at_every_byte)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *t = &refusals[i];
		size_t len = strlen(t->req);
		struct proxy_http_req whole, part;
		enum proxy_http_result res = parse(t->req, &whole);

		for (size_t k = 0; k < len; k++) {
			enum proxy_http_result pr =
				proxy_http_parse((const uint8_t *)t->req, k, &part);

			if (pr == PROXY_HTTP_NEED_MORE)
				continue;
			cr_assert_eq(pr, res, "[%zu] at %zu", i, k);
			cr_assert_eq(pr, PROXY_HTTP_REFUSE, "[%zu] at %zu", i, k);
			cr_assert_eq(part.status, whole.status, "[%zu] at %zu", i, k);
			cr_assert_eq(part.reason, whole.reason, "[%zu] at %zu", i, k);
		}
	}
}

static int
decode(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	int r = proxy_base64_decode(in, strlen(in), (uint8_t *)out, cap, &n);

	if (r == 0)
		out[n] = '\0';
	return r;
}

Test(proxy_http, base64_strict)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "", "" },
		{ "QQ==", "A" },
		{ "QUI=", "AB" },
		{ "QUJD", "ABC" },
		{ "QUJDRA==", "ABCD" },
		{ "dXNlcjpwYXNz", "user:pass" },
		{ "Pz8/Pw==", "????" },
		{ "+/+/", "\xfb\xff\xbf" },
	};
	static const char *const bad[] = {
		"Q", "QQ", "QQ=", "QQ=A", "Q===", "====", "=QQ=", "QQ==QQ==", "QR==", "QUJ=",
		"QU JD", "QUJD\n", " QUJD", "QUJ-", "QUJ_", "QUJD=", "QUJD====", "QU\x80" "D",
	};
	char out[64];
	size_t n;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert_eq(decode(ok[i].in, out, sizeof(out) - 1), 0, "%s", ok[i].in);
		cr_assert_str_eq(out, ok[i].out, "%s", ok[i].in);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(decode(bad[i], out, sizeof(out) - 1), -EINVAL, "%s", bad[i]);
	cr_assert_eq(proxy_base64_decode("QUJD", 4, (uint8_t *)out, 2, &n), -ENOSPC);
	cr_assert_eq(proxy_base64_decode("QUI=", 4, (uint8_t *)out, 2, &n), 0,
		     "padding needs no room");
	cr_assert_eq(n, 2);
	cr_assert_eq(proxy_base64_decode("QQ==", 4, (uint8_t *)out, 0, &n), -ENOSPC);
}

/* A request with one Proxy-Authorization value. */
static enum proxy_http_result
with_auth(const char *value, struct proxy_http_req *r)
{
	char s[2048];

	snprintf(s, sizeof(s), "CONNECT h:443 HTTP/1.1\r\nProxy-Authorization: %s\r\n\r\n", value);
	return parse(s, r);
}

Test(proxy_http, basic_credentials)
{
	struct proxy_http_req r;
	char big[1024], *p;

	cr_assert_eq(with_auth("Basic dXNlcjpwYXNz", &r), PROXY_HTTP_DONE);
	cr_assert(r.has_auth);
	cr_assert_str_eq(r.user, "user");
	cr_assert_str_eq(r.pass, "pass");
	cr_assert_eq(with_auth("basic   YTpiOmM=", &r), PROXY_HTTP_DONE);
	cr_assert(r.has_auth, "the scheme is case-insensitive, spaces before the token");
	cr_assert_str_eq(r.user, "a");
	cr_assert_str_eq(r.pass, "b:c", "the first colon splits");
	cr_assert_eq(with_auth("Basic OnNlY3JldA==", &r), PROXY_HTTP_DONE);
	cr_assert(r.has_auth);
	cr_assert_str_eq(r.user, "", "an empty user is a user");
	cr_assert_str_eq(r.pass, "secret");
	cr_assert_eq(with_auth("Basic dTo=", &r), PROXY_HTTP_DONE);
	cr_assert(r.has_auth);
	cr_assert_str_eq(r.pass, "");

	/* Malformed credentials are no credentials: the request stands
	 * and the proxy answers 407. */
	static const char *const absent[] = {
		"Bearer dXNlcjpwYXNz",
		"Basic",
		"Basic ",
		"Basicx dXNlcjpwYXNz",
		"Basic\tdXNlcjpwYXNz",
		"Basic dXNlcjpwYXNz=",
		"Basic dXNlcnBhc3M=",     /* "userpass": no colon */
		"Basic dXNlcjpwYXMK",     /* "user:pas\n" */
		"Basic dQB4OnBhc3M=",     /* "u\0x:pass" */
		"Basic dXNlcjpwYXNzAA==", /* "user:pass\0" */
		"Basic dXNlcjpwYXNz dXNlcjpwYXNz",
	};
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		cr_assert_eq(with_auth(absent[i], &r), PROXY_HTTP_DONE, "%s", absent[i]);
		cr_assert_not(r.has_auth, "%s", absent[i]);
		cr_assert_str_eq(r.user, "");
		cr_assert_str_eq(r.pass, "");
	}

	cr_assert_eq(parse("CONNECT h:443 HTTP/1.1\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n"
			   "proxy-authorization: Basic dXNlcjpwYXNz\r\n\r\n",
			   &r),
		     PROXY_HTTP_DONE);
	cr_assert_not(r.has_auth, "two headers are none");
	cr_assert_str_eq(r.pass, "");

	/* 255 bytes of user is the most; 256 is too long. base64 of
	 * 255 'u' + ":p" is 344 chars; of 256 'u' + ":p", 344 too. */
	for (size_t ulen = 254; ulen <= 257; ulen++) {
		uint8_t raw[300];
		static const char b64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		size_t n = ulen + 2, o = 0;

		memset(raw, 'u', ulen);
		raw[ulen] = ':';
		raw[ulen + 1] = 'p';
		p = big + sprintf(big, "Basic ");
		for (size_t i = 0; i < n; i += 3) {
			uint32_t v = (uint32_t)raw[i] << 16 |
				     (i + 1 < n ? (uint32_t)raw[i + 1] << 8 : 0) |
				     (i + 2 < n ? raw[i + 2] : 0);

			p[o++] = b64[v >> 18 & 63];
			p[o++] = b64[v >> 12 & 63];
			p[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
			p[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		p[o] = '\0';
		cr_assert_eq(with_auth(big, &r), PROXY_HTTP_DONE);
		cr_assert_eq(r.has_auth, ulen <= PROXY_HTTP_CRED_MAX, "user of %zu bytes", ulen);
		if (r.has_auth)
			cr_assert_eq(strlen(r.user), ulen);
	}
}

/* The upstream head of s, NUL-terminated into out. */
static void
upstream(const char *s, char *out, size_t cap)
{
	struct proxy_http_req r;
	size_t n;

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "%s: %s", s, r.reason);
	cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)s, out, cap - 1, &n), 0);
	out[n] = '\0';
}

Test(proxy_http, upstream_head_drops_hop_by_hop)
{
	char out[PROXY_HTTP_UPSTREAM_MAX + 1];

	upstream("POST http://Example.com/submit?x=1 HTTP/1.1\r\n"
		 "Host: ignored.example\r\n"
		 "User-Agent: curl/8\r\n"
		 "Connection: keep-alive, X-Private ,x-other\r\n"
		 "Keep-Alive: timeout=5\r\n"
		 "Proxy-Authorization: Basic dXNlcjpwYXNz\r\n"
		 "Proxy-Connection: keep-alive\r\n"
		 "Proxy-Authenticate: x\r\n"
		 "TE: trailers\r\n"
		 "Trailer: Expires\r\n"
		 "Upgrade: websocket\r\n"
		 "x-PRIVATE: secret\r\n"
		 "X-Other:   also  \r\n"
		 "X-Kept:value\r\n"
		 "content-length: 3\r\n"
		 "Content-Length: 3\r\n"
		 "accept:\t*/*\r\n"
		 "\r\n",
		 out, sizeof(out));
	cr_assert_str_eq(out, "POST /submit?x=1 HTTP/1.1\r\n"
			      "Host: Example.com\r\n"
			      "User-Agent: curl/8\r\n"
			      "X-Kept: value\r\n"
			      "content-length: 3\r\n"
			      "accept: */*\r\n"
			      "Connection: close\r\n"
			      "\r\n");
}

Test(proxy_http, upstream_head_forms)
{
	char out[PROXY_HTTP_UPSTREAM_MAX + 1];

	upstream("GET http://h HTTP/1.0\r\n\r\n", out, sizeof(out));
	cr_assert_str_eq(out, "GET / HTTP/1.0\r\nHost: h\r\nConnection: close\r\n\r\n",
			 "the client's version; path /");
	upstream("GET http://h:80?q HTTP/1.1\r\n\r\n", out, sizeof(out));
	cr_assert_str_eq(out, "GET /?q HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
			 "port 80 left out; a query alone gets its /");
	upstream("GET http://[fe80::1]:8080/p HTTP/1.1\r\n\r\n", out, sizeof(out));
	cr_assert_str_eq(out,
			 "GET /p HTTP/1.1\r\nHost: [fe80::1]:8080\r\nConnection: close\r\n\r\n");
	upstream("PUT http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
		 out, sizeof(out));
	cr_assert_str_eq(out, "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
			      "Connection: close\r\n\r\n",
			 "the body passes as it came");
}

Test(proxy_http, upstream_head_bounds)
{
	const char *s = "GET http://example.com/a HTTP/1.1\r\nAccept: */*\r\nX-A: 1\r\n\r\n";
	struct proxy_http_req r;
	char out[256];
	size_t n, full;

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE);
	cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)s, out, sizeof(out), &full), 0);
	for (size_t cap = 0; cap < full; cap++) {
		char *tight = malloc(cap ? cap : 1);

		cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)s, tight, cap, &n),
			     -ENOSPC, "cap %zu", cap);
		cr_assert_eq(n, 0);
		free(tight);
	}
	cr_assert_eq(parse("CONNECT h:1 HTTP/1.1\r\n\r\n", &r), PROXY_HTTP_DONE);
	cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)s, out, sizeof(out), &n),
		     -EINVAL, "a tunnel has no upstream head");

	/* The largest head, every line growing by the space after its
	 * colon: PROXY_HTTP_UPSTREAM_MAX is still enough. */
	{
		char *big = malloc(PROXY_HTTP_HEAD_MAX + 1), *o = malloc(PROXY_HTTP_UPSTREAM_MAX);
		size_t len = (size_t)sprintf(big, "GET http://h:8/ HTTP/1.1\r\n");
		int i = 0;

		while (i < PROXY_HTTP_LINES_MAX - 1)
			len += (size_t)sprintf(big + len, "X%d:v\r\n", i++);
		len += (size_t)sprintf(big + len, "Y:");
		memset(big + len, 'v', PROXY_HTTP_HEAD_MAX - len - 4);
		memcpy(big + PROXY_HTTP_HEAD_MAX - 4, "\r\n\r\n", 5);
		cr_assert_eq(parse(big, &r), PROXY_HTTP_DONE, "%s", r.reason);
		cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)big, o,
						      PROXY_HTTP_UPSTREAM_MAX, &n),
			     0);
		cr_assert_gt(n, PROXY_HTTP_HEAD_MAX, "the head grew");
		free(big);
		free(o);
	}
}

Test(proxy_http, responses)
{
	char out[512];
	size_t n;

	cr_assert_eq(proxy_http_response(407, "heel: proxy credentials required", out,
					 sizeof(out) - 1, &n),
		     0);
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.1 407 Proxy Authentication Required\r\n"
			      "Content-Type: text/plain\r\n"
			      "Content-Length: 33\r\n"
			      "Connection: close\r\n"
			      "Proxy-Authenticate: Basic realm=\"heel\"\r\n"
			      "\r\n"
			      "heel: proxy credentials required\n");
	cr_assert_eq(proxy_http_response(403, "heel: example.org is not in this sandbox's "
					      "network allow-list",
					 out, sizeof(out) - 1, &n),
		     0);
	out[n] = '\0';
	cr_assert_not_null(strstr(out, "HTTP/1.1 403 Forbidden\r\n"));
	cr_assert_not_null(strstr(out, "\r\nX-Proxy-Error: blocked-by-policy\r\n"));
	cr_assert_null(strstr(out, "Proxy-Authenticate"));
	cr_assert_eq(proxy_http_response(400, NULL, out, sizeof(out) - 1, &n), 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
			      "Content-Length: 1\r\nConnection: close\r\n\r\n\n");
	for (int st = 100; st < 600; st++) {
		int r = proxy_http_response(st, "x", out, sizeof(out), &n);

		cr_assert_eq(r == 0, proxy_http_status_text(st) != NULL, "%d", st);
		if (r == 0)
			cr_assert_not_null(strstr(out, "\r\n\r\nx\n"));
	}
	cr_assert_eq(proxy_http_response(502, "heel: upstream refused", out, 20, &n), -ENOSPC);
	cr_assert_eq(n, 0);
	cr_assert_str_eq(PROXY_HTTP_CONNECT_OK, "HTTP/1.1 200 Connection established\r\n\r\n");
}

/* ---------------------------------------------------------------- one request a connection */

/* What server.c's connected() and body_run() send upstream for the bytes
 * a client sent on one connection, given in pieces of `piece` bytes (0:
 * all at once): the upstream head, then the body as far as its framing
 * goes, and not a byte after. NUL-terminated into out; the feed's last
 * result is returned. */
static int
upstream_bytes(const char *s, size_t piece, char *out, size_t cap, bool *done)
{
	struct proxy_http_req r;
	struct proxy_http_body_state b;
	size_t n, len = strlen(s), off, take;
	int rc = 0;

	cr_assert_eq(parse(s, &r), PROXY_HTTP_DONE, "%s: %s", s, r.reason);
	cr_assert_eq(proxy_http_upstream_head(&r, (const uint8_t *)s, out, cap - 1, &n), 0);
	proxy_http_body_init(&b, &r);
	for (off = r.head_len; off < len && rc == 0; off += piece ? piece : len) {
		size_t k = piece && len - off > piece ? piece : len - off;

		rc = proxy_http_body_feed(&b, (const uint8_t *)s + off, k, &take);
		cr_assert_leq(take, k);
		cr_assert_lt(n + take, cap);
		memcpy(out + n, s + off, take);
		n += take;
		if (b.done)
			cr_assert_eq(rc, 0);
	}
	out[n] = '\0';
	*done = b.done;
	return rc;
}

/* A second request pipelined after the first (or sent on a connection
 * the client thinks kept alive) carries the run's credentials and may
 * name another host: none of it goes upstream, whatever the first
 * request's body, whether the bytes come at once or one by one. */
Test(proxy_http, a_pipelined_request_never_goes_upstream)
{
	static const char second[] = "GET http://other.test/steal HTTP/1.1\r\n"
				     "Host: other.test\r\n"
				     "Proxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
				     "\r\n";
	static const struct {
		const char *first, *want;
	} cases[] = {
		{ "GET http://a.test/1 HTTP/1.1\r\nProxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
		  "Proxy-Connection: keep-alive\r\n\r\n",
		  "GET /1 HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n" },
		{ "GET http://a.test/1 HTTP/1.0\r\nProxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
		  "Connection: keep-alive\r\n\r\n",
		  "GET /1 HTTP/1.0\r\nHost: a.test\r\nConnection: close\r\n\r\n" },
		{ "POST http://a.test/2 HTTP/1.1\r\nProxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
		  "Content-Length: 5\r\n\r\nhello",
		  "POST /2 HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\nConnection: close\r\n"
		  "\r\nhello" },
		{ "POST http://a.test/3 HTTP/1.1\r\nProxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
		  "Content-Length: 0\r\n\r\n",
		  "POST /3 HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\nConnection: close\r\n"
		  "\r\n" },
		{ "PUT http://a.test/4 HTTP/1.1\r\nProxy-Authorization: Basic aGVlbDpzZWNyZXQ=\r\n"
		  "Transfer-Encoding: chunked\r\nTE: trailers\r\n\r\n"
		  "5;x=\"y\"\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n",
		  "PUT /4 HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n"
		  "Connection: close\r\n\r\n"
		  "5;x=\"y\"\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n" },
	};
	char in[1024], out[PROXY_HTTP_UPSTREAM_MAX + 1024];
	bool done;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(in, sizeof(in), "%s%s%s", cases[i].first, second, second);
		for (size_t piece = 0; piece < 8; piece++) {
			cr_assert_eq(upstream_bytes(in, piece, out, sizeof(out), &done), 0, "%s",
				     cases[i].first);
			cr_assert(done, "%s", cases[i].first);
			cr_assert_str_eq(out, cases[i].want, "pieces of %zu", piece);
			cr_assert_null(strstr(out, "Proxy-Authorization"), "%s", out);
			cr_assert_null(strstr(out, "other.test"), "%s", out);
		}
	}
}

/* How far a body goes, in bytes after the head; -1: refused there. */
static const struct {
	const char *body;
	long take; /* bytes of the body; -1: -EPROTO */
	bool done;
} chunked[] = {
	{ "0\r\n\r\nGET", 5, true },
	{ "5\r\nhello\r\n0\r\n\r\nGET", 15, true },
	{ "000005\r\nhello\r\n00\r\n\r\n", 21, true },
	{ "a\r\n0123456789\r\nA\r\n0123456789\r\n0\r\n\r\n", 35, true },
	{ "5;a=b;c=\"q r\"\r\nhello\r\n0;z\r\n\r\n", 29, true },
	{ "5;\x80\xff\r\nhello\r\n0\r\n\r\n", 18, true },
	{ "0\r\nX-A: 1\r\nX-B:\t2 \r\n\r\nGET", 22, true },
	{ "5\r\nhel", 6, false },
	{ "5\r\nhello\r\n", 10, false },
	{ "fffffffffffffff\r\n", 17, false }, /* 2^60 - 1 */
	{ "1000000000000000\r\n", -1, false }, /* 2^60 */
	{ "10000000000000000\r\n", -1, false },
	{ "5 \r\nhello\r\n0\r\n\r\n", -1, false },
	{ "5\t;x\r\nhello\r\n0\r\n\r\n", -1, false },
	{ "\r\n", -1, false },
	{ ";x\r\n", -1, false },
	{ "-5\r\n", -1, false },
	{ "0x5\r\n", -1, false },
	{ "5\nhello\r\n0\r\n\r\n", -1, false },
	{ "5\r\rhello", -1, false },
	{ "5\r\nhello\n0\r\n\r\n", -1, false },
	{ "5\r\nhelloX\r\n0\r\n\r\n", -1, false },
	{ "5;a\x01\r\nhello\r\n", -1, false },
	{ "5;a\nb\r\nhello\r\n", -1, false },
	{ "0\r\n X: 1\r\n\r\n", -1, false },
	{ "0\r\n\tX: 1\r\n\r\n", -1, false },
	{ "0\r\nX: a\x7f\r\n\r\n", -1, false },
	{ "0\r\nX: 1\n\r\n", -1, false },
	{ "0\r\n\n", -1, false },
	{ "0\r\n\r\r", -1, false },
};

static int
feed_chunked(const char *body, size_t len, size_t piece, size_t *total, bool *done)
{
	struct proxy_http_req r = { .body = PROXY_HTTP_BODY_CHUNKED };
	struct proxy_http_body_state b;
	size_t take;
	int rc = 0;

	proxy_http_body_init(&b, &r);
	*total = 0;
	for (size_t off = 0; off < len; off += piece) {
		size_t k = len - off < piece ? len - off : piece;

		rc = proxy_http_body_feed(&b, (const uint8_t *)body + off, k, &take);
		*total += take;
		if (rc < 0 || b.done)
			break;
	}
	*done = b.done;
	return rc;
}

Test(proxy_http, chunked_body_ends_where_its_framing_says)
{
	for (size_t i = 0; i < sizeof(chunked) / sizeof(chunked[0]); i++) {
		size_t len = strlen(chunked[i].body), total, first_total = 0;
		bool done;

		/* Whole, then in every size of piece: the same end. */
		for (size_t piece = len; piece >= 1; piece--) {
			int rc = feed_chunked(chunked[i].body, len, piece, &total, &done);

			if (chunked[i].take < 0) {
				cr_assert_eq(rc, -EPROTO, "%zu: piece %zu", i, piece);
				if (piece == len)
					first_total = total;
				cr_assert_eq(total, first_total, "%zu: refused at the same byte",
					     i);
				continue;
			}
			cr_assert_eq(rc, 0, "%zu: piece %zu", i, piece);
			cr_assert_eq(total, (size_t)chunked[i].take, "%zu: piece %zu: %zu", i,
				     piece, total);
			cr_assert_eq(done, chunked[i].done, "%zu: piece %zu", i, piece);
		}
	}
}

Test(proxy_http, chunked_body_line_bounds)
{
	size_t max = PROXY_HTTP_CHUNK_LINE_MAX, total;
	char *body = malloc(max + 64);
	bool done;

	/* A size line of exactly the limit with its CRLF, then one byte
	 * more. */
	memset(body, 'x', max + 64);
	memcpy(body, "1;", 2);
	memcpy(body + max - 2, "\r\na\r\n0\r\n\r\n", 11);
	cr_assert_eq(feed_chunked(body, max + 8, 7, &total, &done), 0);
	cr_assert(done);
	cr_assert_eq(total, max + 8, "%zu", total);
	memcpy(body + max - 2, "x\r\na\r\n0\r\n\r\n", 12);
	cr_assert_eq(feed_chunked(body, max + 9, 7, &total, &done), -EPROTO);
	/* A trailer line likewise. */
	memset(body, 'x', max + 64);
	memcpy(body, "0\r\nX:", 5);
	memcpy(body + 3 + max - 2, "\r\n\r\n", 4);
	cr_assert_eq(feed_chunked(body, 3 + max + 2, 5, &total, &done), 0);
	cr_assert(done);
	memcpy(body + 3 + max - 2, "x\r\n\r\n", 5);
	cr_assert_eq(feed_chunked(body, 3 + max + 3, 5, &total, &done), -EPROTO);
	free(body);
}

Test(proxy_http, length_and_no_body)
{
	struct proxy_http_req r = { .body = PROXY_HTTP_BODY_LENGTH, .content_length = 5 };
	struct proxy_http_body_state b;
	size_t take;

	proxy_http_body_init(&b, &r);
	cr_assert_not(b.done);
	cr_assert_eq(proxy_http_body_feed(&b, (const uint8_t *)"hel", 3, &take), 0);
	cr_assert_eq(take, 3);
	cr_assert_eq(proxy_http_body_feed(&b, (const uint8_t *)"loGET", 5, &take), 0);
	cr_assert_eq(take, 2);
	cr_assert(b.done);
	cr_assert_eq(proxy_http_body_feed(&b, (const uint8_t *)"GET", 3, &take), 0);
	cr_assert_eq(take, 0, "nothing after the end");
	r.body = PROXY_HTTP_BODY_NONE;
	proxy_http_body_init(&b, &r);
	cr_assert(b.done);
	cr_assert_eq(proxy_http_body_feed(&b, (const uint8_t *)"GET", 3, &take), 0);
	cr_assert_eq(take, 0);
}

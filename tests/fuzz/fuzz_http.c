/* SPDX-License-Identifier: MIT
 * libFuzzer target for heel-proxy's HTTP request heads: on any bytes the
 * parser must stay inside the buffer, fill only NUL-terminated strings,
 * agree with itself on every prefix (a head read in pieces is the head
 * read whole), and refuse with a status it can answer. The head it builds
 * for upstream must fit PROXY_HTTP_UPSTREAM_MAX, never write past a
 * smaller buffer, and hold exactly one empty line, at its end: a header
 * the client smuggled in would show as a line break of its own. The body
 * after a forwarded head ends (or is refused) at the same byte whether
 * its bytes come whole or in two pieces, and never past them. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_string(const char *s, size_t cap, bool nonempty)
{
	size_t n = strnlen(s, cap);

	if (n == cap || (nonempty && n == 0))
		abort();
}

static void
check_done(const uint8_t *data, size_t size, const struct proxy_http_req *r)
{
	if (r->head_len < 4 || r->head_len > size || r->head_len > PROXY_HTTP_HEAD_MAX ||
	    memcmp(data + r->head_len - 4, "\r\n\r\n", 4) != 0)
		abort();
	check_string(r->method, sizeof(r->method), true);
	check_string(r->host, sizeof(r->host), true);
	check_string(r->user, sizeof(r->user), false);
	check_string(r->pass, sizeof(r->pass), false);
	if (!r->has_auth && (r->user[0] || r->pass[0]))
		abort();
	if (r->port == 0 || (r->version != 10 && r->version != 11))
		abort();
	if (r->kind == PROXY_HTTP_FORWARD &&
	    (r->path_off > r->head_len || r->path_len > r->head_len - r->path_off))
		abort();
	if (r->kind == PROXY_HTTP_CONNECT && r->body != PROXY_HTTP_BODY_NONE &&
	    (r->body != PROXY_HTTP_BODY_LENGTH || r->content_length != 0))
		abort();
}

/* Every line of a built head ends in CRLF, and the empty line is last. */
static void
check_head_text(const char *h, size_t n)
{
	if (n < 4 || memcmp(h + n - 4, "\r\n\r\n", 4) != 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (h[i] == '\0')
			abort();
		if (h[i] == '\r' && (i + 1 == n || h[i + 1] != '\n'))
			abort();
		if (h[i] == '\n' && (i == 0 || h[i - 1] != '\r'))
			abort();
		if (i + 4 < n && memcmp(h + i, "\r\n\r\n", 4) == 0)
			abort();
		if (i > 0 && h[i - 1] == '\n' &&
		    (strncasecmp(h + i, "Proxy-Authorization:", 20) == 0 ||
		     strncasecmp(h + i, "Proxy-Connection:", 17) == 0 ||
		     strncasecmp(h + i, "Keep-Alive:", 11) == 0 ||
		     strncasecmp(h + i, "Upgrade:", 8) == 0))
			abort();
	}
}

static void
check_upstream(const uint8_t *data, const struct proxy_http_req *r)
{
	char *out = malloc(PROXY_HTTP_UPSTREAM_MAX), *tight;
	size_t n = 0, m = 0;

	if (!out)
		return;
	if (proxy_http_upstream_head(r, data, out, PROXY_HTTP_UPSTREAM_MAX, &n) != 0 ||
	    n > PROXY_HTTP_UPSTREAM_MAX)
		abort();
	check_head_text(out, n);
	/* A buffer one byte short: refused, and ASan sees any write past
	 * it. Exactly the size: the same bytes. */
	if ((tight = malloc(n)) != NULL) {
		if (proxy_http_upstream_head(r, data, tight, n - 1, &m) != -ENOSPC || m != 0)
			abort();
		if (proxy_http_upstream_head(r, data, tight, n, &m) != 0 || m != n ||
		    memcmp(tight, out, n) != 0)
			abort();
		free(tight);
	}
	free(out);
}

static void
check_body(const uint8_t *data, size_t size, const struct proxy_http_req *r)
{
	struct proxy_http_body_state a, b;
	const uint8_t *p = data + r->head_len;
	size_t n = size - r->head_len, cut = n / 3, ta = 0, t1 = 0, t2 = 0;
	int ra, rb;

	proxy_http_body_init(&a, r);
	ra = proxy_http_body_feed(&a, p, n, &ta);
	proxy_http_body_init(&b, r);
	rb = proxy_http_body_feed(&b, p, cut, &t1);
	if (rb == 0 && !b.done)
		rb = proxy_http_body_feed(&b, p + cut, n - cut, &t2);
	if (ta > n || t1 > cut || t2 > n - cut)
		abort();
	if (ra != rb || ta != t1 + t2 || a.done != b.done || (ra < 0 && a.done))
		abort();
}

static void
check_refusal(const struct proxy_http_req *r)
{
	char out[512];
	size_t n;

	if (r->status != 400 && r->status != 405 && r->status != 431 && r->status != 501 &&
	    r->status != 505)
		abort();
	if (!r->reason || strpbrk(r->reason, "\r\n"))
		abort();
	if (proxy_http_response(r->status, r->reason, out, sizeof(out), &n) != 0 ||
	    n > sizeof(out))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_http_req r, p;
	enum proxy_http_result res = proxy_http_parse(data, size, &r), pr;
	size_t cut = size / 2;

	switch (res) {
	case PROXY_HTTP_NEED_MORE:
		if (size >= PROXY_HTTP_HEAD_MAX)
			abort();
		break;
	case PROXY_HTTP_DONE:
		check_done(data, size, &r);
		if (r.kind == PROXY_HTTP_FORWARD) {
			check_upstream(data, &r);
			check_body(data, size, &r);
		}
		/* The head alone is the same request; any shorter prefix
		 * is still waiting. */
		if (proxy_http_parse(data, r.head_len, &p) != PROXY_HTTP_DONE ||
		    p.head_len != r.head_len || p.port != r.port || strcmp(p.host, r.host) != 0 ||
		    p.has_auth != r.has_auth || strcmp(p.pass, r.pass) != 0)
			abort();
		if (proxy_http_parse(data, r.head_len - 1, &p) != PROXY_HTTP_NEED_MORE)
			abort();
		cut = r.head_len / 2;
		break;
	case PROXY_HTTP_REFUSE:
		check_refusal(&r);
		break;
	default:
		abort();
	}
	/* A prefix is waiting, or refused for the same reason. */
	pr = proxy_http_parse(data, cut, &p);
	if (pr != PROXY_HTTP_NEED_MORE &&
	    (pr != PROXY_HTTP_REFUSE || res != PROXY_HTTP_REFUSE || p.reason != r.reason))
		abort();
	return 0;
}

/* SPDX-License-Identifier: MIT
 * HTTP/1.x request heads for heel-proxy: the strict parser and the head
 * sent upstream for a forwarded request; see http.h. */
#include <errno.h>
#include <string.h>

#include "base64.h"
#include "http.h"

struct span {
	const uint8_t *p;
	size_t n;
};

/* Bytes appended up to a capacity; overflow is remembered, not written. */
struct outbuf {
	char *p;
	size_t cap, len;
	bool overflow;
};

static enum proxy_http_result
refuse(struct proxy_http_req *req, int status, const char *reason)
{
	req->status = status;
	req->reason = reason;
	return PROXY_HTTP_REFUSE;
}

/* RFC 9110 section 5.6.2. */
static bool
is_tchar(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool
is_ows(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static uint8_t
lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 'a' - 'A') : c;
}

static bool
span_ieq(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	if (s.n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(s.p[i]) != lower((uint8_t)lit[i]))
			return false;
	return true;
}

static bool
spans_ieq(struct span a, struct span b)
{
	if (a.n != b.n)
		return false;
	for (size_t i = 0; i < a.n; i++)
		if (lower(a.p[i]) != lower(b.p[i]))
			return false;
	return true;
}

static struct span
trim_ows(const uint8_t *p, size_t n)
{
	while (n > 0 && is_ows(p[0]))
		p++, n--;
	while (n > 0 && is_ows(p[n - 1]))
		n--;
	return (struct span){ p, n };
}

/* Where the line starting at p ends (its CR). The head was checked to
 * end every line in CRLF before anything splits it. */
static size_t
line_end(const uint8_t *b, size_t p)
{
	while (b[p] != '\r')
		p++;
	return p;
}

/* Name and value of a header line the parser has accepted. */
static void
split_header(const uint8_t *line, size_t n, struct span *name, struct span *value)
{
	const uint8_t *colon = memchr(line, ':', n);
	size_t c = (size_t)(colon - line);

	*name = (struct span){ line, c };
	*value = trim_ows(line + c + 1, n - c - 1);
}

/* Calls fn on each element of a comma-separated list (RFC 9110 section
 * 5.6.1), empty elements skipped; stops at the first nonzero return. */
static int
each_element(struct span list, int (*fn)(struct span elem, const void *ctx), const void *ctx)
{
	size_t i = 0;

	while (i <= list.n) {
		size_t j = i;
		struct span e;
		int r;

		while (j < list.n && list.p[j] != ',')
			j++;
		e = trim_ows(list.p + i, j - i);
		if (e.n > 0 && (r = fn(e, ctx)) != 0)
			return r;
		i = j + 1;
	}
	return 0;
}

/* Finds the empty line that ends the head, refusing line breaks that are
 * not CRLF as soon as they show. */
static enum proxy_http_result
find_head_end(const uint8_t *b, size_t len, size_t *end, struct proxy_http_req *req)
{
	size_t n = len < PROXY_HTTP_HEAD_MAX ? len : PROXY_HTTP_HEAD_MAX;

	for (size_t i = 0; i < n; i++) {
		if (b[i] == '\0')
			return refuse(req, 400, "NUL byte in the request head");
		if (b[i] == '\r' && i + 1 < len && b[i + 1] != '\n')
			return refuse(req, 400, "CR without LF in the request head");
		if (b[i] != '\n')
			continue;
		if (i == 0 || b[i - 1] != '\r')
			return refuse(req, 400, "line ends in a bare LF, not CRLF");
		if (i >= 3 && b[i - 2] == '\n' && b[i - 3] == '\r') {
			*end = i + 1;
			return PROXY_HTTP_DONE;
		}
	}
	if (len >= PROXY_HTTP_HEAD_MAX)
		return refuse(req, 431, "request head larger than 16384 bytes");
	return PROXY_HTTP_NEED_MORE;
}

static enum proxy_http_result
request_line(const uint8_t *b, size_t n, struct proxy_http_req *req, struct span *target)
{
	size_t i = 0, t0;
	const uint8_t *v;

	while (i < n && is_tchar(b[i]))
		i++;
	if (i == 0 || i == n || b[i] != ' ')
		return refuse(req, 400, "malformed request line");
	if (i > PROXY_HTTP_METHOD_MAX)
		return refuse(req, 400, "method name too long");
	memcpy(req->method, b, i);
	req->method[i] = '\0';
	t0 = ++i;
	while (i < n && b[i] > ' ' && b[i] < 0x7f)
		i++;
	if (i < n && b[i] != ' ')
		return refuse(req, 400, "control or non-ASCII byte in the request target");
	if (i == t0 || i == n)
		return refuse(req, 400, "malformed request line");
	*target = (struct span){ b + t0, i - t0 };
	v = b + i + 1;
	if (n - i - 1 != 8 || memcmp(v, "HTTP/", 5) != 0 || !is_digit(v[5]) || v[6] != '.' ||
	    !is_digit(v[7]))
		return refuse(req, 400, "malformed HTTP version");
	if (v[5] != '1' || (v[7] != '0' && v[7] != '1'))
		return refuse(req, 505, "only HTTP/1.0 and HTTP/1.1 are spoken here");
	req->version = v[7] == '1' ? 11 : 10;
	return PROXY_HTTP_DONE;
}

static bool
host_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
	       c == '.' || c == '_';
}

static bool
v6_char(uint8_t c)
{
	return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f') || c == ':' || c == '.';
}

/* host[:port] or [v6][:port] into req; a port is required when dflt is
 * 0. NULL, or why not (static text). */
static const char *
authority(struct span a, uint16_t dflt, struct proxy_http_req *req)
{
	size_t h0 = 0, h1, i = 0;
	unsigned long port = 0;

	if (a.n > 0 && a.p[0] == '[') {
		const uint8_t *rb = memchr(a.p, ']', a.n);

		if (!rb)
			return "'[' without ']' in the host";
		h0 = 1;
		h1 = (size_t)(rb - a.p);
		for (size_t k = h0; k < h1; k++)
			if (!v6_char(a.p[k]))
				return "invalid IPv6 address in brackets";
		/* Only IPv6 goes in brackets (RFC 3986 section 3.2.2): a
		 * bracketed IPv4 would be one more spelling to check. */
		if (!memchr(a.p + h0, ':', h1 - h0))
			return "invalid IPv6 address in brackets";
		req->host_v6 = true;
		i = h1 + 1;
	} else {
		while (i < a.n && a.p[i] != ':') {
			if (!host_char(a.p[i]))
				return "invalid character in the host";
			i++;
		}
		h1 = i;
		if (h1 == 0)
			return "missing host";
	}
	if (h1 - h0 > PROXY_HTTP_HOST_MAX)
		return "host name too long";
	if (i == a.n) {
		if (dflt == 0)
			return "missing port (CONNECT takes host:port)";
		port = dflt;
	} else {
		if (a.p[i] != ':' || a.n - i - 1 == 0 || a.n - i - 1 > 5)
			return "invalid port";
		for (size_t k = i + 1; k < a.n; k++) {
			if (!is_digit(a.p[k]))
				return "invalid port";
			port = port * 10 + (a.p[k] - '0');
		}
		if (port < 1 || port > 65535)
			return "port out of range 1..65535";
	}
	memcpy(req->host, a.p + h0, h1 - h0);
	req->host[h1 - h0] = '\0';
	req->port = (uint16_t)port;
	return NULL;
}

/* `http://authority[/path][?query]`, the scheme already matched. */
static enum proxy_http_result
absolute_form(const uint8_t *buf, struct span t, size_t skip, struct proxy_http_req *req)
{
	struct span a = { t.p + skip, 0 };
	const char *why;

	if (memchr(t.p, '#', t.n))
		return refuse(req, 400, "fragment (#) in the URL");
	while (skip + a.n < t.n && a.p[a.n] != '/' && a.p[a.n] != '?')
		a.n++;
	/* user@host would be credentials for the origin, sent in clear
	 * and logged, and an old trick to make a URL look like another
	 * host. */
	if (memchr(a.p, '@', a.n))
		return refuse(req, 400, "credentials in the URL (user@host) are refused");
	if ((why = authority(a, 80, req)) != NULL)
		return refuse(req, 400, why);
	req->kind = PROXY_HTTP_FORWARD;
	req->path_off = (size_t)(a.p + a.n - buf);
	req->path_len = t.n - skip - a.n;
	return PROXY_HTTP_DONE;
}

/* `scheme://` at the start of t: the length up to the authority, or 0. */
static size_t
scheme_len(struct span t)
{
	size_t i = 0;

	if (t.n == 0 || !((lower(t.p[0]) >= 'a' && lower(t.p[0]) <= 'z')))
		return 0;
	while (i < t.n && ((lower(t.p[i]) >= 'a' && lower(t.p[i]) <= 'z') || is_digit(t.p[i]) ||
			   t.p[i] == '+' || t.p[i] == '-' || t.p[i] == '.'))
		i++;
	if (t.n - i < 3 || memcmp(t.p + i, "://", 3) != 0)
		return 0;
	return i + 3;
}

static enum proxy_http_result
target(const uint8_t *buf, struct span t, struct proxy_http_req *req)
{
	size_t s;
	const char *why;

	if (strcmp(req->method, "CONNECT") == 0) {
		if (scheme_len(t) != 0)
			return refuse(req, 400, "CONNECT takes host:port, not a URL");
		if ((why = authority(t, 0, req)) != NULL)
			return refuse(req, 400, why);
		req->kind = PROXY_HTTP_CONNECT;
		return PROXY_HTTP_DONE;
	}
	if (t.p[0] == '/' || (t.n == 1 && t.p[0] == '*'))
		return refuse(req, 400, "not a proxy request: the target is not an http:// URL");
	if ((s = scheme_len(t)) == 0)
		return refuse(req, 405, "only CONNECT takes a host:port target");
	if (span_ieq((struct span){ t.p, s }, "http://"))
		return absolute_form(buf, t, s, req);
	if (span_ieq((struct span){ t.p, s }, "https://"))
		return refuse(req, 400, "https:// URLs go through CONNECT");
	return refuse(req, 400, "only http:// URLs are forwarded");
}

/* Proxy-Authorization: Basic base64(user:pass) (RFC 7617). */
static bool
basic_credentials(struct span v, struct proxy_http_req *req)
{
	uint8_t dec[2 * PROXY_HTTP_CRED_MAX + 1];
	const uint8_t *colon;
	size_t i = 5, dn, ulen, plen;

	if (v.n < 6 || !span_ieq((struct span){ v.p, 5 }, "Basic") || v.p[5] != ' ')
		return false;
	while (i < v.n && v.p[i] == ' ')
		i++;
	if (proxy_base64_decode((const char *)v.p + i, v.n - i, dec, sizeof(dec), &dn) != 0)
		return false;
	if (!(colon = memchr(dec, ':', dn)))
		return false;
	ulen = (size_t)(colon - dec);
	plen = dn - ulen - 1;
	if (ulen > PROXY_HTTP_CRED_MAX || plen > PROXY_HTTP_CRED_MAX)
		return false;
	/* RFC 7617 section 2: no control characters. A NUL would also cut
	 * the C string the secret is compared with. */
	for (size_t k = 0; k < dn; k++)
		if (dec[k] < 0x20 || dec[k] == 0x7f)
			return false;
	memcpy(req->user, dec, ulen);
	req->user[ulen] = '\0';
	memcpy(req->pass, colon + 1, plen);
	req->pass[plen] = '\0';
	return true;
}

static int
names_framing(struct span e, const void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < e.n; i++)
		if (!is_tchar(e.p[i]))
			return 1;
	return span_ieq(e, "Host") || span_ieq(e, "Content-Length") ||
			       span_ieq(e, "Transfer-Encoding")
		       ? 2
		       : 0;
}

struct head_state {
	bool cl, te, host;
	unsigned auth;
};

static enum proxy_http_result
header(const uint8_t *line, size_t n, struct proxy_http_req *req, struct head_state *st)
{
	size_t c = 0;
	struct span name, v;

	/* A continuation line is a header some servers join to the one
	 * before and others read as its own (RFC 9112 section 5.2). */
	if (is_ows(line[0]))
		return refuse(req, 400, "folded header line (obs-fold)");
	while (c < n && is_tchar(line[c]))
		c++;
	if (c < n && is_ows(line[c]))
		return refuse(req, 400, "whitespace before a header's colon");
	if (c == 0 || c == n || line[c] != ':')
		return refuse(req, 400, "malformed header line");
	name = (struct span){ line, c };
	v = trim_ows(line + c + 1, n - c - 1);
	for (size_t i = 0; i < v.n; i++)
		if ((v.p[i] < 0x20 && v.p[i] != '\t') || v.p[i] == 0x7f)
			return refuse(req, 400, "control byte in a header value");

	if (span_ieq(name, "Content-Length")) {
		uint64_t x = 0;

		if (v.n == 0 || v.n > 18)
			return refuse(req, 400, "invalid Content-Length");
		for (size_t i = 0; i < v.n; i++) {
			if (!is_digit(v.p[i]))
				return refuse(req, 400, "invalid Content-Length");
			x = x * 10 + (v.p[i] - '0');
		}
		if (st->cl && x != req->content_length)
			return refuse(req, 400, "two different Content-Length values");
		st->cl = true;
		req->content_length = x;
	} else if (span_ieq(name, "Transfer-Encoding")) {
		if (st->te)
			return refuse(req, 400, "Transfer-Encoding given twice");
		if (!span_ieq(v, "chunked"))
			return refuse(req, 501, "only Transfer-Encoding: chunked is supported");
		st->te = true;
	} else if (span_ieq(name, "Host")) {
		if (st->host)
			return refuse(req, 400, "Host given twice");
		st->host = true;
	} else if (span_ieq(name, "Proxy-Authorization")) {
		/* Two headers are two answers: neither is taken. */
		req->has_auth = ++st->auth == 1 && basic_credentials(v, req);
		if (!req->has_auth) {
			memset(req->user, 0, sizeof(req->user));
			memset(req->pass, 0, sizeof(req->pass));
		}
	} else if (span_ieq(name, "Connection")) {
		switch (each_element(v, names_framing, NULL)) {
		case 1:
			return refuse(req, 400, "malformed Connection header");
		case 2:
			/* Removing a header the Connection header names would
			 * change how the server delimits the body. */
			return refuse(req, 400, "Connection names Host, Content-Length or "
						"Transfer-Encoding");
		}
	}
	return PROXY_HTTP_DONE;
}

enum proxy_http_result
proxy_http_parse(const uint8_t *buf, size_t len, struct proxy_http_req *req)
{
	struct head_state st = { 0 };
	enum proxy_http_result r;
	struct span t;
	size_t end = 0, p, e, lines = 0;

	memset(req, 0, sizeof(*req));
	if ((r = find_head_end(buf, len, &end, req)) != PROXY_HTTP_DONE)
		return r;
	e = line_end(buf, 0);
	if ((r = request_line(buf, e, req, &t)) != PROXY_HTTP_DONE)
		return r;
	for (p = e + 2; p < end - 2; p = e + 2) {
		e = line_end(buf, p);
		if (++lines > PROXY_HTTP_LINES_MAX)
			return refuse(req, 431, "more than 100 header lines");
		if ((r = header(buf + p, e - p, req, &st)) != PROXY_HTTP_DONE)
			return r;
	}
	/* RFC 9112 section 6.3: a server may read either; refusing both is
	 * the only answer that cannot disagree with the server's. */
	if (st.te && st.cl)
		return refuse(req, 400, "both Transfer-Encoding and Content-Length");
	if (st.te && req->version == 10)
		return refuse(req, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (strcmp(req->method, "CONNECT") == 0 && (st.te || req->content_length > 0))
		return refuse(req, 400, "a CONNECT request has no body");
	req->body = st.te ? PROXY_HTTP_BODY_CHUNKED
		    : st.cl ? PROXY_HTTP_BODY_LENGTH
			    : PROXY_HTTP_BODY_NONE;
	if ((r = target(buf, t, req)) != PROXY_HTTP_DONE)
		return r;
	req->head_len = end;
	return PROXY_HTTP_DONE;
}

static void
put(struct outbuf *o, const void *p, size_t n)
{
	if (o->overflow || n > o->cap - o->len) {
		o->overflow = true;
		return;
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

static void
puts_(struct outbuf *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
put_uint(struct outbuf *o, unsigned long v)
{
	char d[24];
	size_t i = sizeof(d);

	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put(o, d + i, sizeof(d) - i);
}

static const char *const hop_by_hop[] = {
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Proxy-Connection", "TE", "Trailer", "Upgrade",
};

static int
names_this(struct span e, const void *ctx)
{
	return spans_ieq(e, *(const struct span *)ctx);
}

/* Whether a Connection header among the lines in [p, end) names `name`
 * (RFC 9110 section 7.6.1: the headers it names are for this hop only). */
static bool
connection_names(const uint8_t *buf, size_t p, size_t end, struct span name)
{
	for (size_t e; p < end; p = e + 2) {
		struct span n, v;

		e = line_end(buf, p);
		split_header(buf + p, e - p, &n, &v);
		if (span_ieq(n, "Connection") && each_element(v, names_this, &name))
			return true;
	}
	return false;
}

static bool
dropped(const uint8_t *buf, size_t first, size_t end, struct span name, bool *cl_seen)
{
	for (size_t i = 0; i < sizeof(hop_by_hop) / sizeof(hop_by_hop[0]); i++)
		if (span_ieq(name, hop_by_hop[i]))
			return true;
	/* Host comes from the URL (RFC 9112 section 3.2.2); one
	 * Content-Length is enough, as the parser made sure they agree. */
	if (span_ieq(name, "Host"))
		return true;
	if (span_ieq(name, "Content-Length")) {
		if (*cl_seen)
			return true;
		*cl_seen = true;
	}
	return connection_names(buf, first, end, name);
}

int
proxy_http_upstream_head(const struct proxy_http_req *req, const uint8_t *buf, char *out,
			 size_t outcap, size_t *outlen)
{
	struct outbuf o = { out, outcap, 0, false };
	size_t first, end, e;
	bool cl_seen = false;

	*outlen = 0;
	if (req->kind != PROXY_HTTP_FORWARD || req->head_len < 4)
		return -EINVAL;
	puts_(&o, req->method);
	puts_(&o, " ");
	if (req->path_len == 0 || buf[req->path_off] == '?')
		puts_(&o, "/");
	put(&o, buf + req->path_off, req->path_len);
	puts_(&o, req->version == 10 ? " HTTP/1.0\r\nHost: " : " HTTP/1.1\r\nHost: ");
	puts_(&o, req->host_v6 ? "[" : "");
	puts_(&o, req->host);
	puts_(&o, req->host_v6 ? "]" : "");
	if (req->port != 80) {
		puts_(&o, ":");
		put_uint(&o, req->port);
	}
	puts_(&o, "\r\n");

	first = line_end(buf, 0) + 2;
	end = req->head_len - 2;
	for (size_t p = first; p < end; p = e + 2) {
		struct span name, v;

		e = line_end(buf, p);
		split_header(buf + p, e - p, &name, &v);
		if (dropped(buf, first, end, name, &cl_seen))
			continue;
		put(&o, name.p, name.n);
		puts_(&o, ": ");
		put(&o, v.p, v.n);
		puts_(&o, "\r\n");
	}
	puts_(&o, "Connection: close\r\n\r\n");
	if (o.overflow)
		return -ENOSPC;
	*outlen = o.len;
	return 0;
}

/* ---------------------------------------------------------------- body */

/* Where a chunked body's reader is (RFC 9112 section 7.1). */
enum chunk_phase {
	CH_SIZE,    /* the hex digits of a chunk's size */
	CH_EXT,	    /* after ';': extensions, to the CR */
	CH_SIZE_LF, /* the LF of the size line */
	CH_DATA,    /* b->left bytes of data */
	CH_DATA_CR, /* the CRLF after them */
	CH_DATA_LF,
	CH_TRAILER_START, /* a trailer line, or the CR of the empty line that ends all */
	CH_TRAILER,	  /* a trailer line, to its CR */
	CH_TRAILER_LF,
	CH_END_LF, /* the LF of the empty line */
	CH_FAILED, /* refused: nothing more is taken */
};

void
proxy_http_body_init(struct proxy_http_body_state *b, const struct proxy_http_req *req)
{
	memset(b, 0, sizeof(*b));
	b->kind = req->body;
	b->phase = CH_SIZE;
	if (b->kind == PROXY_HTTP_BODY_LENGTH)
		b->left = req->content_length;
	b->done =
	    b->kind == PROXY_HTTP_BODY_NONE || (b->kind == PROXY_HTTP_BODY_LENGTH && b->left == 0);
}

static int
hex_digit(uint8_t c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* What an extension or a trailer line may hold: visible ASCII, space,
 * tab and obs-text (RFC 9110 section 5.5); no NUL, CR, LF or other
 * control byte, as in a head. */
static bool
line_byte_ok(uint8_t c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* One byte of the framing around the data. 0, or -EPROTO. */
static int
chunk_byte(struct proxy_http_body_state *b, uint8_t c)
{
	int d;

	if (++b->line > PROXY_HTTP_CHUNK_LINE_MAX)
		return -EPROTO;
	switch (b->phase) {
	case CH_SIZE:
		if ((d = hex_digit(c)) >= 0) {
			/* Under 2^60: no server's counter wraps. */
			if (b->left >> 56)
				return -EPROTO;
			b->left = b->left << 4 | (uint64_t)d;
			b->digits++;
			return 0;
		}
		/* No white space after the size: "BWS" is where readers
		 * differ, and no client writes it. */
		if (!b->digits || (c != ';' && c != '\r'))
			return -EPROTO;
		b->phase = c == ';' ? CH_EXT : CH_SIZE_LF;
		return 0;
	case CH_EXT:
		if (c == '\r')
			b->phase = CH_SIZE_LF;
		else if (!line_byte_ok(c))
			return -EPROTO;
		return 0;
	case CH_SIZE_LF:
		if (c != '\n')
			return -EPROTO;
		b->phase = b->left ? CH_DATA : CH_TRAILER_START;
		b->line = 0;
		b->digits = 0;
		return 0;
	case CH_DATA_CR:
		if (c != '\r')
			return -EPROTO;
		b->phase = CH_DATA_LF;
		return 0;
	case CH_DATA_LF:
		if (c != '\n')
			return -EPROTO;
		b->phase = CH_SIZE;
		b->line = 0;
		return 0;
	case CH_TRAILER_START:
		/* A leading space or tab would be obs-fold (RFC 9112
		 * section 5.2), a field some read as its own. */
		if (c == '\r')
			b->phase = CH_END_LF;
		else if (is_tchar(c))
			b->phase = CH_TRAILER;
		else
			return -EPROTO;
		return 0;
	case CH_TRAILER:
		if (c == '\r')
			b->phase = CH_TRAILER_LF;
		else if (!line_byte_ok(c))
			return -EPROTO;
		return 0;
	case CH_TRAILER_LF:
		if (c != '\n')
			return -EPROTO;
		b->phase = CH_TRAILER_START;
		b->line = 0;
		return 0;
	case CH_END_LF:
		if (c != '\n')
			return -EPROTO;
		b->done = true;
		return 0;
	}
	return -EPROTO;
}

int
proxy_http_body_feed(struct proxy_http_body_state *b, const uint8_t *p, size_t n, size_t *take)
{
	size_t i = 0;

	*take = 0;
	if (b->done)
		return 0;
	if (b->kind == PROXY_HTTP_BODY_LENGTH) {
		uint64_t k = b->left < n ? b->left : n;

		b->left -= k;
		b->done = b->left == 0;
		*take = (size_t)k;
		return 0;
	}
	if (b->kind != PROXY_HTTP_BODY_CHUNKED || b->phase == CH_FAILED)
		return -EPROTO;
	while (i < n && !b->done) {
		if (b->phase == CH_DATA) {
			uint64_t k = b->left < n - i ? b->left : n - i;

			i += (size_t)k;
			b->left -= k;
			if (!b->left) {
				b->phase = CH_DATA_CR;
				b->line = 0;
			}
			continue;
		}
		if (chunk_byte(b, p[i]) < 0) {
			b->phase = CH_FAILED;
			*take = i;
			return -EPROTO;
		}
		i++;
	}
	*take = i;
	return 0;
}

const char *
proxy_http_status_text(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 405:
		return "Method Not Allowed";
	case 407:
		return "Proxy Authentication Required";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	}
	return NULL;
}

int
proxy_http_response(int status, const char *reason_line, char *out, size_t outcap,
		    size_t *outlen)
{
	struct outbuf o = { out, outcap, 0, false };
	const char *phrase = proxy_http_status_text(status);
	size_t rlen = reason_line ? strlen(reason_line) : 0;

	*outlen = 0;
	if (!phrase)
		return -EINVAL;
	puts_(&o, "HTTP/1.1 ");
	put_uint(&o, (unsigned long)status);
	puts_(&o, " ");
	puts_(&o, phrase);
	puts_(&o, "\r\nContent-Type: text/plain\r\nContent-Length: ");
	put_uint(&o, rlen + 1);
	puts_(&o, "\r\nConnection: close\r\n");
	if (status == 407)
		puts_(&o, "Proxy-Authenticate: Basic realm=\"heel\"\r\n");
	if (status == 403)
		puts_(&o, "X-Proxy-Error: blocked-by-policy\r\n");
	puts_(&o, "\r\n");
	put(&o, reason_line ? reason_line : "", rlen);
	puts_(&o, "\n");
	if (o.overflow)
		return -ENOSPC;
	*outlen = o.len;
	return 0;
}

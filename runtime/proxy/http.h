/* SPDX-License-Identifier: MIT
 * The request head a client sends heel-proxy over HTTP/1.x: CONNECT
 * host:port, or an absolute-form http:// request to forward. Pure
 * functions over the bytes read so far; no I/O, no allocation. The parser
 * is strict where a lenient one would let the proxy and the server behind
 * it read one message as two (request smuggling, RFC 9112 section 11.2),
 * and where two spellings of a host would be two things to check. */
#ifndef HEEL_PROXY_HTTP_H
#define HEEL_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROXY_HTTP_HEAD_MAX 16384 /* request line, headers and the empty line */
#define PROXY_HTTP_LINES_MAX 100  /* header lines */
#define PROXY_HTTP_METHOD_MAX 32
#define PROXY_HTTP_HOST_MAX 255 /* a host as written, without brackets */
#define PROXY_HTTP_CRED_MAX 255 /* user, password: RFC 1929's bound, as SOCKS5 */
/* Room proxy_http_upstream_head() never needs more than: the request line
 * only shrinks, Host and Connection are added, and each header may gain
 * the space after its colon. */
#define PROXY_HTTP_UPSTREAM_MAX (PROXY_HTTP_HEAD_MAX + 512)

enum proxy_http_result {
	PROXY_HTTP_NEED_MORE, /* no complete head yet: read more, parse again */
	PROXY_HTTP_DONE,      /* a request; req->head_len bytes are its head */
	PROXY_HTTP_REFUSE,    /* answer req->status, req->reason, then close */
};

enum proxy_http_kind {
	PROXY_HTTP_CONNECT, /* CONNECT host:port: a tunnel */
	PROXY_HTTP_FORWARD, /* METHOD http://host[:port]/path: forwarded */
};

/* How the request body (FORWARD only) is delimited; the proxy passes it
 * on as it came, and the framing says where it ends. */
enum proxy_http_body {
	PROXY_HTTP_BODY_NONE,
	PROXY_HTTP_BODY_LENGTH,  /* content_length bytes */
	PROXY_HTTP_BODY_CHUNKED, /* Transfer-Encoding: chunked */
};

struct proxy_http_req {
	/* PROXY_HTTP_DONE: */
	size_t head_len; /* the head ends there; what follows is body or tunnel data */
	enum proxy_http_kind kind;
	char method[PROXY_HTTP_METHOD_MAX + 1];
	int version; /* 10 or 11 */
	/* As written (case kept), IPv6 without its brackets; not
	 * canonical: the caller runs it through nethost_canon(). */
	char host[PROXY_HTTP_HOST_MAX + 1];
	bool host_v6; /* was in brackets */
	uint16_t port; /* 1..65535; 80 when an http:// URL names none */
	/* FORWARD: the path and query in the parsed buffer (offset, length);
	 * length 0 means "/", and a query alone gets a "/" in front. */
	size_t path_off, path_len;
	enum proxy_http_body body;
	uint64_t content_length;
	/* Proxy-Authorization: Basic, decoded. Anything malformed (another
	 * scheme, bad base64, no ':', a control byte, too long, the header
	 * twice) leaves has_auth false: the proxy then answers 407. */
	bool has_auth;
	char user[PROXY_HTTP_CRED_MAX + 1];
	char pass[PROXY_HTTP_CRED_MAX + 1];

	/* PROXY_HTTP_REFUSE: the status to answer (400, 405, 431, 501, 505)
	 * and a one-line reason (static text). */
	int status;
	const char *reason;
};

/* Parses the head at the start of buf[0..len), all of it each call (the
 * caller keeps the bytes and calls again with more). NEED_MORE while no
 * empty line has ended the head and len < PROXY_HTTP_HEAD_MAX; a head
 * that cannot fit is REFUSE 431.
 *
 * Lines end in CRLF only: a bare LF or CR is refused (400) as soon as it
 * is seen, because servers split lines differently on them and the
 * difference is where smuggled requests hide. Likewise refused: NUL
 * bytes, obs-fold continuation lines, whitespace before a header's colon,
 * Content-Length twice with different values, Content-Length with
 * Transfer-Encoding, a Transfer-Encoding but exactly "chunked" (501), a
 * Connection header naming Host, Content-Length or Transfer-Encoding
 * (their removal would change the framing), Host twice, a CONNECT with a
 * body, userinfo or a fragment in a URL, https:// URLs (clients tunnel
 * them with CONNECT) and origin-form requests (not meant for a proxy). */
enum proxy_http_result proxy_http_parse(const uint8_t *buf, size_t len,
					struct proxy_http_req *req);

/* The head to send upstream for a FORWARD request, built from req and the
 * buffer proxy_http_parse() accepted (the same bytes): `METHOD path
 * HTTP/1.x` in the client's version (a server then never answers an
 * HTTP/1.0 client in chunks), Host from the URL, the client's headers in
 * order with their names' case kept, less the hop-by-hop ones
 * (Connection, Keep-Alive, Proxy-Authenticate, Proxy-Authorization,
 * Proxy-Connection, TE, Trailer, Upgrade, any named in Connection), the
 * client's own Host and a repeated Content-Length; then
 * `Connection: close` and the empty line. Not NUL-terminated. 0, -EINVAL
 * (not a FORWARD request) or -ENOSPC (out smaller than needed;
 * PROXY_HTTP_UPSTREAM_MAX always suffices). */
int proxy_http_upstream_head(const struct proxy_http_req *req, const uint8_t *buf, char *out,
			     size_t outcap, size_t *outlen);

/* Where a FORWARD request's body ends, read as the bytes after its head
 * arrive. heel-proxy forwards one request per client connection
 * (`Connection: close` upstream): the body goes on as it came, as far as
 * its framing says, and not a byte after it. What follows is another
 * request, pipelined or sent on a connection the client thought kept
 * alive, with its own Proxy-Authorization and perhaps another
 * destination; it is never forwarded (the connection ends after the
 * response, and the client sends it again on a new one, where it is
 * parsed, authenticated, judged and audited as any request; RFC 9112
 * section 9.3.2). */
struct proxy_http_body_state {
	enum proxy_http_body kind;
	bool done;	 /* the body has ended */
	uint64_t left;	 /* LENGTH: bytes to come; CHUNKED: of this chunk's data */
	int phase;	 /* CHUNKED: where in the framing (http.c) */
	size_t line;	 /* CHUNKED: bytes of the current size or trailer line */
	unsigned digits; /* CHUNKED: hex digits of the size so far */
};

/* A chunk-size line (with its extensions) or a trailer line longer than
 * this, its CRLF counted, is refused. */
#define PROXY_HTTP_CHUNK_LINE_MAX 4096

void proxy_http_body_init(struct proxy_http_body_state *b, const struct proxy_http_req *req);

/* Takes n bytes that follow what was fed before (the first call: the
 * bytes after the head): *take of them, from the start, are the body's;
 * the rest belongs to no forwarded request. b->done once the body has
 * ended (at init for no body or Content-Length: 0). 0, or -EPROTO when
 * the chunked framing is what the head parser would refuse in a head (a
 * line break other than CRLF, a NUL or control byte, a size that is no
 * hex number, has white space after it or is 2^60 or more, an obs-fold
 * or a line longer than PROXY_HTTP_CHUNK_LINE_MAX in the trailers): the
 * proxy and the server could disagree on where it ends, so the
 * connection ends instead; *take bytes before the fault may go. */
int proxy_http_body_feed(struct proxy_http_body_state *b, const uint8_t *p, size_t n, size_t *take);

/* A whole response from the proxy itself: status line, Content-Type:
 * text/plain, Content-Length, Connection: close (407 adds
 * Proxy-Authenticate: Basic realm="heel", 403 adds X-Proxy-Error:
 * blocked-by-policy), and reason_line + "\n" as the body (NULL: empty).
 * The reason goes in the body only, so no text can make a header. 0,
 * -EINVAL (a status without a known phrase) or -ENOSPC. */
int proxy_http_response(int status, const char *reason_line, char *out, size_t outcap,
			size_t *outlen);

/* The standard phrase of a status the proxy answers with, or NULL. */
const char *proxy_http_status_text(int status);

/* The answer to a CONNECT the proxy has connected upstream. */
#define PROXY_HTTP_CONNECT_OK "HTTP/1.1 200 Connection established\r\n\r\n"

#endif

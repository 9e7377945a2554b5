/* SPDX-License-Identifier: MIT
 * heel-proxy's SOCKS5 handshake (runtime/proxy/socks5.c): each address
 * type read, a client without username/password authentication turned
 * away with 05 FF, bad credentials with 01 01, BIND and UDP ASSOCIATE
 * with 07, and the same answers and destination whatever the reads look
 * like, with the bytes after the request handed back as tunnel data. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "socks5.h"

/* What a handshake came to, as the caller sees it. */
struct transcript {
	uint8_t out[256];
	size_t outlen;
	enum proxy_socks5_event events[1024];
	size_t nevents;
	char user[256], pass[256], host[256];
	enum proxy_socks5_atyp atyp;
	uint8_t addr[16];
	uint16_t port;
	size_t early_off; /* where the tunnel data starts in the input */
	const char *why;
	bool ended; /* REQUEST answered, or FAIL */
};

struct script {
	const char *secret; /* the password the caller accepts */
	uint8_t rep;
};

static void
record(struct transcript *t, const uint8_t *out, size_t n)
{
	cr_assert_leq(t->outlen + n, sizeof(t->out));
	memcpy(t->out + t->outlen, out, n);
	t->outlen += n;
}

/* Feeds in[0..len) cut at each of cuts[0..ncuts) (increasing), playing
 * the caller: the password must equal sc->secret, the request is
 * answered sc->rep. */
static void
run(const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts, const struct script *sc,
    struct transcript *t)
{
	struct proxy_socks5 s;
	size_t pos = 0;

	memset(t, 0, sizeof(*t));
	proxy_socks5_init(&s);
	for (size_t c = 0; c <= ncuts && !t->ended; c++) {
		size_t stop = c < ncuts ? cuts[c] : len;

		/* Each read is a buffer of its own: ASan sees a read past it. */
		while (pos < stop && !t->ended) {
			size_t n = stop - pos, used, outlen;
			uint8_t *chunk = malloc(n), out[PROXY_SOCKS5_OUT_MIN];
			enum proxy_socks5_event ev;

			memcpy(chunk, in + pos, n);
			ev = proxy_socks5_feed(&s, chunk, n, &used, out, sizeof(out), &outlen);
			free(chunk);
			cr_assert_leq(used, n);
			cr_assert_leq(outlen, sizeof(out));
			record(t, out, outlen);
			pos += used;
			cr_assert_lt(t->nevents, 1024);
			t->events[t->nevents++] = ev;
			switch (ev) {
			case PROXY_SOCKS5_NEED_MORE:
				cr_assert_eq(used, n, "NEED_MORE takes everything");
				break;
			case PROXY_SOCKS5_AUTH: {
				bool ok = strcmp(s.pass, sc->secret) == 0;

				cr_assert_eq(strlen(s.user), s.user_len);
				cr_assert_eq(strlen(s.pass), s.pass_len);
				strcpy(t->user, s.user);
				strcpy(t->pass, s.pass);
				cr_assert_eq(proxy_socks5_auth(&s, ok, out, sizeof(out), &outlen), 0);
				cr_assert_str_eq(s.pass, "", "the secret is wiped after the check");
				record(t, out, outlen);
				if (!ok) {
					t->why = s.why;
					t->ended = true;
				}
				break;
			}
			case PROXY_SOCKS5_REQUEST:
				strcpy(t->host, s.host);
				t->atyp = s.atyp;
				memcpy(t->addr, s.addr, 16);
				t->port = s.port;
				t->early_off = pos;
				cr_assert_eq(proxy_socks5_reply(&s, sc->rep, NULL, out, sizeof(out),
								&outlen),
					     0);
				record(t, out, outlen);
				t->ended = true;
				break;
			case PROXY_SOCKS5_FAIL:
				t->why = s.why;
				cr_assert_not_null(t->why);
				t->ended = true;
				break;
			}
		}
	}
}

static void
run_whole(const uint8_t *in, size_t len, const struct script *sc, struct transcript *t)
{
	run(in, len, NULL, 0, sc, t);
}

/* The answers, the destination and where the tunnel data starts; not the
 * events, which follow the reads. */
static void
assert_same_outcome(const struct transcript *a, const struct transcript *b, const char *what,
		    size_t k)
{
	cr_assert_eq(a->outlen, b->outlen, "%s, cut at %zu", what, k);
	cr_assert_eq(memcmp(a->out, b->out, a->outlen), 0, "%s, cut at %zu", what, k);
	cr_assert_str_eq(a->user, b->user, "%s, cut at %zu", what, k);
	cr_assert_str_eq(a->host, b->host, "%s, cut at %zu", what, k);
	cr_assert_eq(a->port, b->port, "%s, cut at %zu", what, k);
	cr_assert_eq(a->atyp, b->atyp, "%s, cut at %zu", what, k);
	cr_assert_eq(a->ended, b->ended, "%s, cut at %zu", what, k);
	cr_assert_eq(a->why, b->why, "%s, cut at %zu", what, k);
	if (a->host[0])
		cr_assert_eq(a->early_off, b->early_off, "%s, cut at %zu", what, k);
}

static const struct script accept_secret = { "s3cret", PROXY_SOCKS5_SUCCEEDED };

#define GREETING 0x05, 0x01, 0x02
#define AUTH_OK 0x01, 0x04, 'h', 'e', 'e', 'l', 0x06, 's', '3', 'c', 'r', 'e', 't'
#define SUCCESS_REPLY 0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0

static const uint8_t req_v4[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x01, 93, 184, 216, 34,
				  0x00, 0x50 };
static const uint8_t req_domain[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x03, 11,
				      'E', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm',
				      0x01, 0xbb, 'G', 'E', 'T' };
static const uint8_t req_v6[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x04, 0x20, 0x01, 0x0d,
				  0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x20, 0xfb };

Test(proxy_socks5, ipv4)
{
	static const uint8_t expect[] = { 0x05, 0x02, 0x01, 0x00, SUCCESS_REPLY };
	struct transcript t;

	run_whole(req_v4, sizeof(req_v4), &accept_secret, &t);
	cr_assert_eq(t.outlen, sizeof(expect));
	cr_assert_eq(memcmp(t.out, expect, sizeof(expect)), 0);
	cr_assert_str_eq(t.user, "heel");
	cr_assert_str_eq(t.pass, "s3cret");
	cr_assert_eq(t.atyp, PROXY_SOCKS5_ATYP_IPV4);
	cr_assert_str_eq(t.host, "93.184.216.34");
	cr_assert_eq(memcmp(t.addr, (uint8_t[]){ 93, 184, 216, 34 }, 4), 0);
	cr_assert_eq(t.port, 80);
	cr_assert_eq(t.early_off, sizeof(req_v4), "no tunnel data yet");
	cr_assert_eq(t.nevents, 2, "AUTH, then REQUEST");
	cr_assert_eq(t.events[0], PROXY_SOCKS5_AUTH);
	cr_assert_eq(t.events[1], PROXY_SOCKS5_REQUEST);
}

Test(proxy_socks5, domain_with_early_data)
{
	struct transcript t;

	run_whole(req_domain, sizeof(req_domain), &accept_secret, &t);
	cr_assert_eq(t.atyp, PROXY_SOCKS5_ATYP_DOMAIN);
	cr_assert_str_eq(t.host, "Example.com", "as received: the caller canonicalises");
	cr_assert_eq(t.port, 443);
	cr_assert_eq(t.early_off, sizeof(req_domain) - 3, "GET is the client's first tunnel data");
}

Test(proxy_socks5, ipv6)
{
	struct transcript t;

	run_whole(req_v6, sizeof(req_v6), &accept_secret, &t);
	cr_assert_eq(t.atyp, PROXY_SOCKS5_ATYP_IPV6);
	cr_assert_str_eq(t.host, "2001:db8::1");
	cr_assert_eq(t.addr[0], 0x20);
	cr_assert_eq(t.addr[15], 0x01);
	cr_assert_eq(t.port, 0x20fb);
}

Test(proxy_socks5, methods_offered)
{
	static const uint8_t none_acceptable[] = { 0x05, 0xff };
	static const uint8_t no_auth_only[] = { 0x05, 0x01, 0x00 };
	static const uint8_t gssapi_noauth[] = { 0x05, 0x02, 0x00, 0x01, 'x' };
	static const uint8_t zero_methods[] = { 0x05, 0x00, 0x05 };
	static const uint8_t among_others[] = { 0x05, 0x03, 0x00, 0x01, 0x02, AUTH_OK };
	static const uint8_t socks4[] = { 0x04, 0x01, 0x00, 0x50, 1, 2, 3, 4, 0 };
	static const uint8_t http[] = "GET / HTTP/1.1\r\n";
	struct transcript t;

	run_whole(no_auth_only, sizeof(no_auth_only), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(t.outlen, 2);
	cr_assert_eq(memcmp(t.out, none_acceptable, 2), 0, "no username/password: 05 FF");
	run_whole(gssapi_noauth, sizeof(gssapi_noauth), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(memcmp(t.out, none_acceptable, 2), 0);
	run_whole(zero_methods, sizeof(zero_methods), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(memcmp(t.out, none_acceptable, 2), 0);
	run_whole(among_others, sizeof(among_others), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_AUTH);
	cr_assert_eq(memcmp(t.out, (uint8_t[]){ 0x05, 0x02, 0x01, 0x00 }, 4), 0);

	run_whole(socks4, sizeof(socks4), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(t.outlen, 0, "a SOCKS4 client gets no SOCKS5 answer");
	run_whole(http, sizeof(http) - 1, &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(t.outlen, 0);
}

Test(proxy_socks5, credentials)
{
	static const uint8_t wrong[] = { GREETING, 0x01, 0x04, 'h', 'e', 'e', 'l', 0x05, 's', '3',
					 'c', 'r', 'e', 0x05, 0x01, 0x00, 0x01, 1, 1, 1, 1, 0, 80 };
	static const uint8_t version2[] = { GREETING, 0x02, 0x04, 'h', 'e', 'e', 'l', 0x06,
					    's', '3', 'c', 'r', 'e', 't' };
	static const uint8_t nul_pass[] = { GREETING, 0x01, 0x01, 'u', 0x07, 's', '3', 'c',
					    'r', 'e', 't', 0x00 };
	static const uint8_t nul_user[] = { GREETING, 0x01, 0x02, 'u', 0x00, 0x06, 's', '3',
					    'c', 'r', 'e', 't' };
	static const uint8_t empty[] = { GREETING, 0x01, 0x00, 0x00 };
	static const uint8_t fail[] = { 0x05, 0x02, 0x01, 0x01 };
	struct script empty_secret = { "", 0 };
	struct transcript t;

	run_whole(wrong, sizeof(wrong), &accept_secret, &t);
	cr_assert_eq(t.nevents, 1);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_AUTH);
	cr_assert_eq(t.outlen, 4);
	cr_assert_eq(memcmp(t.out, fail, 4), 0, "the caller's no: 01 01");
	cr_assert_str_eq(t.host, "", "no request is read after a refusal");

	run_whole(version2, sizeof(version2), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(memcmp(t.out, fail, 4), 0);
	run_whole(nul_pass, sizeof(nul_pass), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL, "s3cret\\0 is not s3cret");
	cr_assert_eq(memcmp(t.out, fail, 4), 0);
	run_whole(nul_user, sizeof(nul_user), &accept_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_FAIL);
	cr_assert_eq(memcmp(t.out, fail, 4), 0);

	/* Empty fields are framing, not an error: the caller's check
	 * refuses them. */
	run_whole(empty, sizeof(empty), &empty_secret, &t);
	cr_assert_eq(t.events[0], PROXY_SOCKS5_AUTH);
	cr_assert_str_eq(t.user, "");
	cr_assert_eq(memcmp(t.out, (uint8_t[]){ 0x05, 0x02, 0x01, 0x00 }, 4), 0);
}

Test(proxy_socks5, longest_fields)
{
	uint8_t in[3 + 2 + 255 + 1 + 255 + 4 + 1 + 255 + 2], *p = in;
	struct script sc = { NULL, 0 };
	char pass[256];
	struct transcript t;

	memset(pass, 'p', 255);
	pass[255] = '\0';
	sc.secret = pass;
	*p++ = 0x05, *p++ = 0x01, *p++ = 0x02;
	*p++ = 0x01, *p++ = 255, memset(p, 'u', 255), p += 255;
	*p++ = 255, memset(p, 'p', 255), p += 255;
	*p++ = 0x05, *p++ = 0x01, *p++ = 0x00, *p++ = 0x03, *p++ = 255;
	memset(p, 'a', 255), p += 255;
	*p++ = 0xff, *p++ = 0xff;
	run_whole(in, sizeof(in), &sc, &t);
	cr_assert_eq(strlen(t.user), 255);
	cr_assert_eq(strlen(t.host), 255);
	cr_assert_eq(t.port, 65535);
}

/* The reply the machine writes when it refuses a request itself. */
static void
assert_request_refused(const uint8_t *in, size_t len, uint8_t rep)
{
	uint8_t expect[] = { 0x05, 0x02, 0x01, 0x00, 0x05, rep, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
	struct transcript t;

	run_whole(in, len, &accept_secret, &t);
	cr_assert_eq(t.events[t.nevents - 1], PROXY_SOCKS5_FAIL);
	cr_assert_eq(t.outlen, sizeof(expect), "rep %#x", rep);
	cr_assert_eq(memcmp(t.out, expect, sizeof(expect)), 0, "rep %#x", rep);
	cr_assert_str_eq(t.host, "");
}

Test(proxy_socks5, requests_refused)
{
	static const uint8_t bind[] = { GREETING, AUTH_OK, 0x05, 0x02, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };
	static const uint8_t udp[] = { GREETING, AUTH_OK, 0x05, 0x03, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };
	static const uint8_t cmd0[] = { GREETING, AUTH_OK, 0x05, 0x00 };
	static const uint8_t ver4[] = { GREETING, AUTH_OK, 0x04, 0x01, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };
	static const uint8_t rsv[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x01, 0x01, 1, 2, 3, 4, 0, 80 };
	static const uint8_t atyp2[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x02, 1, 2, 3, 4, 0, 80 };
	static const uint8_t atyp0[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x00 };
	static const uint8_t empty_name[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x03, 0x00, 0, 80 };
	static const uint8_t nul_name[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x03, 0x0a,
					    'a', '.', 'c', 'o', 'm', 0x00, 'e', 'v', 'i', 'l',
					    0x01, 0xbb };
	static const uint8_t port0[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x01, 1, 2, 3, 4, 0, 0 };

	assert_request_refused(bind, sizeof(bind), PROXY_SOCKS5_CMD_UNSUPPORTED);
	assert_request_refused(udp, sizeof(udp), PROXY_SOCKS5_CMD_UNSUPPORTED);
	assert_request_refused(cmd0, sizeof(cmd0), PROXY_SOCKS5_CMD_UNSUPPORTED);
	assert_request_refused(ver4, sizeof(ver4), PROXY_SOCKS5_GENERAL_FAILURE);
	assert_request_refused(rsv, sizeof(rsv), PROXY_SOCKS5_GENERAL_FAILURE);
	assert_request_refused(atyp2, sizeof(atyp2), PROXY_SOCKS5_ATYP_UNSUPPORTED);
	assert_request_refused(atyp0, sizeof(atyp0), PROXY_SOCKS5_ATYP_UNSUPPORTED);
	assert_request_refused(empty_name, sizeof(empty_name), PROXY_SOCKS5_GENERAL_FAILURE);
	assert_request_refused(nul_name, sizeof(nul_name), PROXY_SOCKS5_GENERAL_FAILURE);
	assert_request_refused(port0, sizeof(port0), PROXY_SOCKS5_GENERAL_FAILURE);
}

static const struct {
	const uint8_t *in;
	size_t len;
	const char *name;
} conversations[] = {
	{ req_v4, sizeof(req_v4), "ipv4" },
	{ req_domain, sizeof(req_domain), "domain" },
	{ req_v6, sizeof(req_v6), "ipv6" },
};

/* One read, two reads cut anywhere, a byte a read: one outcome. */
Test(proxy_socks5, split_at_every_byte)
{
	for (size_t c = 0; c < sizeof(conversations) / sizeof(conversations[0]); c++) {
		const uint8_t *in = conversations[c].in;
		size_t len = conversations[c].len, cuts[512];
		struct transcript whole, part;

		run_whole(in, len, &accept_secret, &whole);
		cr_assert_eq(whole.events[whole.nevents - 1], PROXY_SOCKS5_REQUEST);
		for (size_t k = 0; k <= len; k++) {
			run(in, len, &k, 1, &accept_secret, &part);
			assert_same_outcome(&whole, &part, conversations[c].name, k);
		}
		cr_assert_lt(len, 512);
		for (size_t k = 0; k < len; k++)
			cuts[k] = k + 1;
		run(in, len, cuts, len, &accept_secret, &part);
		assert_same_outcome(&whole, &part, conversations[c].name, 1);
	}
}

/* A handshake cut short anywhere is waiting, never failed, and has
 * answered only what it has read. */
Test(proxy_socks5, truncated_at_every_byte)
{
	for (size_t c = 0; c < sizeof(conversations) / sizeof(conversations[0]); c++) {
		const uint8_t *in = conversations[c].in;
		size_t len = conversations[c].len;
		struct transcript whole, part;

		run_whole(in, len, &accept_secret, &whole);
		for (size_t k = 0; k < whole.early_off; k++) {
			run_whole(in, k, &accept_secret, &part);
			cr_assert_not(part.ended, "%s: %zu bytes", conversations[c].name, k);
			for (size_t e = 0; e < part.nevents; e++)
				cr_assert_neq(part.events[e], PROXY_SOCKS5_FAIL);
			cr_assert_leq(part.outlen, whole.outlen);
			cr_assert_eq(memcmp(part.out, whole.out, part.outlen), 0);
		}
	}
}

Test(proxy_socks5, refusals_split_at_every_byte)
{
	static const uint8_t bind[] = { GREETING, AUTH_OK, 0x05, 0x02, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };
	static const uint8_t nul_name[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x03, 0x03,
					    'a', 0x00, 'b', 0x01, 0xbb };
	static const uint8_t no_userpass[] = { 0x05, 0x02, 0x00, 0x01 };
	static const struct {
		const uint8_t *in;
		size_t len;
	} bad[] = {
		{ bind, sizeof(bind) },
		{ nul_name, sizeof(nul_name) },
		{ no_userpass, sizeof(no_userpass) },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct transcript whole, part;

		run_whole(bad[i].in, bad[i].len, &accept_secret, &whole);
		for (size_t k = 0; k <= bad[i].len; k++) {
			run(bad[i].in, bad[i].len, &k, 1, &accept_secret, &part);
			assert_same_outcome(&whole, &part, "refusal", k);
		}
	}
}

Test(proxy_socks5, reply_bound_address)
{
	static const uint8_t prefix[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x01, 1, 2, 3, 4, 0,
					  80 };
	struct proxy_socks5 s;
	uint8_t out[PROXY_SOCKS5_OUT_MIN];
	size_t used, n;
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons(40000) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
	struct sockaddr un = { .sa_family = AF_UNIX };

	inet_pton(AF_INET, "10.1.2.3", &in4.sin_addr);
	inet_pton(AF_INET6, "2001:db8::7", &in6.sin6_addr);
	for (int form = 0; form < 4; form++) {
		const struct sockaddr *b = form == 0   ? (const struct sockaddr *)&in4
					   : form == 1 ? (const struct sockaddr *)&in6
					   : form == 2 ? &un
						       : NULL;

		proxy_socks5_init(&s);
		cr_assert_eq(proxy_socks5_feed(&s, prefix, sizeof(prefix), &used, out, sizeof(out),
					       &n),
			     PROXY_SOCKS5_AUTH);
		cr_assert_eq(proxy_socks5_reply(&s, 0, b, out, sizeof(out), &n), -EINVAL,
			     "no reply before the verdict");
		cr_assert_eq(proxy_socks5_auth(&s, true, out, sizeof(out), &n), 0);
		cr_assert_eq(proxy_socks5_auth(&s, true, out, sizeof(out), &n), -EINVAL);
		cr_assert_eq(proxy_socks5_feed(&s, prefix + used, sizeof(prefix) - used, &used, out,
					       sizeof(out), &n),
			     PROXY_SOCKS5_REQUEST);
		cr_assert_eq(proxy_socks5_reply(&s, 0x09, b, out, sizeof(out), &n), -EINVAL);
		cr_assert_eq(proxy_socks5_reply(&s, 0, b, out, form == 1 ? 21 : 9, &n), -ENOSPC);
		cr_assert_eq(proxy_socks5_reply(&s, PROXY_SOCKS5_SUCCEEDED, b, out, sizeof(out), &n),
			     0);
		if (form == 0) {
			cr_assert_eq(n, 10);
			cr_assert_eq(memcmp(out, (uint8_t[]){ 5, 0, 0, 1, 10, 1, 2, 3, 0x9c, 0x40 },
					    10),
				     0);
		} else if (form == 1) {
			cr_assert_eq(n, 22);
			cr_assert_eq(memcmp(out, (uint8_t[]){ 5, 0, 0, 4, 0x20, 0x01, 0x0d, 0xb8 }, 8),
				     0);
			cr_assert_eq(out[19], 7);
			cr_assert_eq(out[20], 0x01);
			cr_assert_eq(out[21], 0xbb);
		} else {
			cr_assert_eq(n, 10);
			cr_assert_eq(memcmp(out, (uint8_t[]){ 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 }, 10), 0);
		}
		cr_assert_eq(proxy_socks5_reply(&s, 0, b, out, sizeof(out), &n), -EINVAL,
			     "one reply");
		cr_assert_eq(proxy_socks5_feed(&s, (const uint8_t *)"x", 1, &used, out, sizeof(out),
					       &n),
			     PROXY_SOCKS5_FAIL, "the tunnel is not fed to the machine");
		cr_assert_eq(used, 0);
	}
}

Test(proxy_socks5, every_rep_code)
{
	static const uint8_t in[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };

	for (uint8_t rep = 0; rep <= PROXY_SOCKS5_ATYP_UNSUPPORTED; rep++) {
		struct script sc = { "s3cret", rep };
		struct transcript t;

		run_whole(in, sizeof(in), &sc, &t);
		cr_assert_eq(t.outlen, 4 + 10);
		cr_assert_eq(t.out[4], 0x05);
		cr_assert_eq(t.out[5], rep);
	}
}

Test(proxy_socks5, out_of_turn)
{
	static const uint8_t in[] = { GREETING, AUTH_OK, 0x05, 0x01, 0x00, 0x01, 1, 2, 3, 4, 0, 80 };
	struct proxy_socks5 s;
	uint8_t out[64];
	size_t used, n;

	proxy_socks5_init(&s);
	cr_assert_eq(proxy_socks5_feed(&s, in, sizeof(in), &used, out, PROXY_SOCKS5_OUT_MIN - 1,
				       &n),
		     PROXY_SOCKS5_FAIL, "output room below PROXY_SOCKS5_OUT_MIN");
	proxy_socks5_init(&s);
	cr_assert_eq(proxy_socks5_feed(&s, in, sizeof(in), &used, out, sizeof(out), &n),
		     PROXY_SOCKS5_AUTH);
	cr_assert_eq(proxy_socks5_feed(&s, in + used, sizeof(in) - used, &used, out, sizeof(out),
				       &n),
		     PROXY_SOCKS5_FAIL, "fed before the verdict");
	cr_assert_eq(used, 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(proxy_socks5_auth(&s, true, out, sizeof(out), &n), -EINVAL,
		     "a failed machine takes no verdict");

	proxy_socks5_init(&s);
	cr_assert_eq(proxy_socks5_feed(&s, (const uint8_t[]){ 4 }, 1, &used, out, sizeof(out), &n),
		     PROXY_SOCKS5_FAIL);
	cr_assert_str_eq(s.why, "not SOCKS version 5");
	cr_assert_eq(proxy_socks5_feed(&s, in, sizeof(in), &used, out, sizeof(out), &n),
		     PROXY_SOCKS5_FAIL);
	cr_assert_str_eq(s.why, "not SOCKS version 5", "the first reason stays");
	cr_assert_eq(proxy_socks5_feed(&s, NULL, 0, &used, out, sizeof(out), &n), PROXY_SOCKS5_FAIL);

	proxy_socks5_init(&s);
	cr_assert_eq(proxy_socks5_feed(&s, NULL, 0, &used, out, sizeof(out), &n),
		     PROXY_SOCKS5_NEED_MORE, "nothing read, nothing to say");
}

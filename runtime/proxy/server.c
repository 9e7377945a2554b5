/* SPDX-License-Identifier: MIT
 * heel-proxy's event loop (server.h). A connection goes
 *   HEAD/SOCKS -> (DECIDE) -> (RESOLVE) -> CONNECT -> TUNNEL
 * or, refused anywhere on the way, to REFUSE: its answer is written, the
 * write side shut, and what the client still sends is read and dropped
 * for a moment so the answer is not lost to a reset. A forwarded plain
 * HTTP request ends the same way once its response is through: one
 * request a connection, and nothing the client sends after its body
 * goes upstream. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "capture.h"
#include "decider.h"
#include "dns.h"
#include "http.h"
#include "proxyctl.h"
#include "socks5.h"
#include "watch.h"

#define PIPE_SIZE (256 * 1024)
#define PIPE_CHUNK PIPE_SIZE
/* Empty pipes kept for reuse: a tunnel holds a pipe only while bytes are
 * in it, so an idle tunnel costs two sockets, not six descriptors. */
#define PIPE_SPARE 64
#define LINGER_MS 2000
/* How long a captured connection to a fake address waits for the
 * program's first bytes (a ClientHello, a request head) before it is
 * judged by its name alone: a protocol where the server speaks first
 * (SMTP, a database) sends nothing until then. */
#define PEEK_MS 300

void
proxy_limits_default(struct proxy_limits *l)
{
	l->max_conns = 4096;
	l->head_ms = 30 * 1000;
	l->connect_ms = 10 * 1000;
	l->idle_ms = 10 * 60 * 1000;
	l->half_ms = 60 * 1000;
}

enum conn_state {
	CS_HEAD,    /* reading the first bytes: HTTP head or SOCKS5 (or DNS over TCP) */
	CS_PEEK,    /* captured: reading the first bytes for the name they carry */
	CS_SOCKS,   /* in the SOCKS5 handshake */
	CS_DECIDE,  /* waiting for the decider */
	CS_RESOLVE, /* waiting for c-ares */
	CS_CONNECT, /* connecting upstream */
	CS_TUNNEL,  /* moving bytes */
	CS_REFUSE,  /* writing the refusal (or the forwarded response is through), then lingering */
};

enum conn_proto { PROTO_HTTP, PROTO_SOCKS, PROTO_CAPTURE, PROTO_DNS };

struct conn;

struct endpoint {
	struct proxy_watch w; /* first: epoll data points here */
	struct conn *c;
};

/* One direction of a tunnel: src -> pipe -> dst. */
struct pump {
	int pipe[2];
	size_t inpipe;	  /* bytes in the pipe */
	bool eof;	  /* src ended */
	bool shut;	  /* dst shut for writing */
	bool blocked_out; /* dst full */
	bool idle;	  /* src had nothing to read (pump_run internal) */
};

/* Bytes the proxy itself has to write to one side, before any pumping. */
struct outbuf {
	char *buf;
	size_t len, off;
};

struct conn {
	struct proxy_server *s;
	struct conn *prev, *next;
	uint64_t id;
	enum conn_state st;
	enum conn_proto proto;
	struct endpoint ep[2]; /* 0: client, 1: upstream */
	struct outbuf out[2];  /* to client, to upstream */
	struct pump pump[2];   /* 0: client -> upstream, 1: upstream -> client */
	uint8_t *in;	       /* the head, until the tunnel */
	size_t inlen;
	struct proxy_http_req req;
	/* A forwarded request: where its body ends; the client -> upstream
	 * direction is read through it, not spliced. */
	struct proxy_http_body_state body;
	bool forward;
	struct proxy_socks5 socks;
	size_t socks_used; /* bytes of in the handshake took */
	struct nethost host;
	uint16_t port;
	char method[PROXY_HTTP_METHOD_MAX + 1];
	char verdict[PROXY_REASON_MAX]; /* why it was allowed */
	const char *cap_name; /* captured to a fake address: the name it stands for */
	struct ares_addrinfo *ai;
	struct ares_addrinfo_node *next_ai;
	long long deadline; /* ms; 0: none */
	long long last_io;
	bool dns_pending; /* c-ares holds a pointer to us: free when it answers */
	bool dead;
};

/* A socket of the capture namespace. */
struct capture_listener {
	struct proxy_watch w; /* first: epoll data points here */
	struct proxy_server *s;
	enum { CAP_TCP, CAP_DNS_UDP, CAP_DNS_TCP } kind;
};

struct proxy_server {
	const struct proxy_server_config *cfg;
	struct proxy_fake fake;
	struct capture_listener *cap[64 * 2 + 8];
	size_t ncap;
	int epfd;
	struct proxy_dns *dns;
	struct proxy_watch listen_w, stop_w, decider_r, decider_w;
	struct conn *conns;
	struct conn *dead; /* ended, freed by bury() */
	int spare[PIPE_SPARE][2]; /* empty pipes for the next tunnel that moves bytes */
	unsigned nspare;
	unsigned nconns;
	uint64_t next_id;
	bool stop;
};

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------- teardown */

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int
pipe_get(struct proxy_server *s, int fds[2])
{
	if (s->nspare) {
		s->nspare--;
		fds[0] = s->spare[s->nspare][0];
		fds[1] = s->spare[s->nspare][1];
		return 0;
	}
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	/* Fewer, larger moves: a pipe's pages are taken only as bytes fill
	 * them, and a user over the kernel's pipe quota keeps the default. */
	fcntl(fds[0], F_SETPIPE_SZ, PIPE_SIZE);
	return 0;
}

/* Takes an empty pipe back (or closes it when enough are kept); fds
 * become -1. */
static void
pipe_put(struct proxy_server *s, int fds[2])
{
	if (s->nspare < PIPE_SPARE) {
		s->spare[s->nspare][0] = fds[0];
		s->spare[s->nspare][1] = fds[1];
		s->nspare++;
		fds[0] = fds[1] = -1;
		return;
	}
	close_fd(&fds[0]);
	close_fd(&fds[1]);
}

static void
conn_free(struct conn *c)
{
	struct proxy_server *s = c->s;

	for (int i = 0; i < 2; i++) {
		if (c->ep[i].w.fd >= 0) {
			proxy_watch_set(s->epfd, &c->ep[i].w, 0);
			close_fd(&c->ep[i].w.fd);
		}
		if (c->pump[i].pipe[0] >= 0 && !c->pump[i].inpipe)
			pipe_put(s, c->pump[i].pipe);
		close_fd(&c->pump[i].pipe[0]);
		close_fd(&c->pump[i].pipe[1]);
		free(c->out[i].buf);
		c->out[i].buf = NULL;
	}
	free(c->in);
	c->in = NULL;
	if (c->ai)
		ares_freeaddrinfo(c->ai);
	c->ai = NULL;
	if (c->dead)
		return;
	c->dead = true;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	/* Freed after this turn of the loop: the same epoll batch may hold
	 * an event for our other endpoint, and c-ares may still hold us. */
	c->prev = NULL;
	c->next = s->dead;
	s->dead = c;
}

/* Frees the connections that ended this turn, but those c-ares still
 * holds: their lookup's answer comes first. */
static void
bury(struct proxy_server *s)
{
	struct conn **pp = &s->dead;

	while (*pp) {
		struct conn *c = *pp;

		if (c->dns_pending) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		free(c);
	}
}

/* ---------------------------------------------------------------- output */

static int
out_append(struct outbuf *o, const void *data, size_t len)
{
	char *nb;

	if (!len)
		return 0;
	nb = realloc(o->buf, o->len + len);
	if (!nb)
		return -ENOMEM;
	memcpy(nb + o->len, data, len);
	o->buf = nb;
	o->len += len;
	return 0;
}

/* Writes what is pending to side i. 1: all written; 0: would block; -1:
 * the peer is gone. */
static int
out_flush(struct conn *c, int i)
{
	struct outbuf *o = &c->out[i];

	while (o->off < o->len) {
		ssize_t n = send(c->ep[i].w.fd, o->buf + o->off, o->len - o->off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		o->off += (size_t)n;
		c->last_io = now_ms();
	}
	free(o->buf);
	o->buf = NULL;
	o->len = o->off = 0;
	return 1;
}

static void conn_update(struct conn *c);

/* A relay must not add Nagle's wait to what it relays: the program on
 * either end chose its own writes (and its own Nagle), and the proxy's
 * second small write would otherwise wait for the peer's delayed ACK. */
static void
no_delay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Answers the client with a refusal and closes after it. reason: the
 * line the client's user reads. */
static void
refuse(struct conn *c, int http_status, uint8_t socks_rep, const char *reason)
{
	char buf[PROXY_REASON_MAX + 512];
	size_t n = 0;

	/* A captured connection has no protocol of the proxy's to answer
	 * in: it is reset, which the program reads as ECONNRESET. */
	if (c->proto == PROTO_CAPTURE || c->proto == PROTO_DNS) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->ep[0].w.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		conn_free(c);
		return;
	}
	if (c->proto == PROTO_HTTP) {
		if (proxy_http_response(http_status, reason, buf, sizeof(buf), &n) < 0)
			n = 0;
	} else {
		if (proxy_socks5_reply(&c->socks, socks_rep, NULL, (uint8_t *)buf, sizeof(buf), &n) < 0)
			n = 0;
	}
	/* The upstream side, if any, goes at once. */
	if (c->ep[1].w.fd >= 0) {
		proxy_watch_set(c->s->epfd, &c->ep[1].w, 0);
		close_fd(&c->ep[1].w.fd);
	}
	free(c->out[0].buf);
	c->out[0].buf = NULL;
	c->out[0].len = c->out[0].off = 0;
	if (n && out_append(&c->out[0], buf, n) < 0) {
		conn_free(c);
		return;
	}
	c->st = CS_REFUSE;
	c->deadline = now_ms() + LINGER_MS;
	conn_update(c);
}

/* ---------------------------------------------------------------- audit */

/* For heel-why to explain at the end (--why): a refusal's audit line,
 * one write each. Best effort: it explains, it never decides. */
static void
note_refusal(struct proxy_server *s, const struct proxy_decision *d)
{
	char line[PROXY_AUDIT_LINE_MAX];
	int n;

	if (s->cfg->refusals_fd < 0 || (n = proxy_audit_format(d, line, sizeof(line))) <= 0)
		return;
	if (write(s->cfg->refusals_fd, line, (size_t)n) < 0)
		return;
}

static int
record(struct conn *c, bool allowed, const char *reason)
{
	struct proxy_decision d = {
		.host = c->host.text,
		.port = c->port,
		.allowed = allowed,
		.reason = reason,
		.method = c->method,
	};

	clock_gettime(CLOCK_REALTIME, &d.when);
	if (!allowed)
		note_refusal(c->s, &d);
	return proxy_audit_record(c->s->cfg->audit, &d);
}

/* Records a refusal and answers it. */
static void
refuse_recorded(struct conn *c, int http_status, uint8_t socks_rep, const char *reason)
{
	/* A refusal that cannot be recorded is still a refusal. */
	(void)record(c, false, reason);
	refuse(c, http_status, socks_rep, reason);
}

/* ---------------------------------------------------------------- connect */

static void try_connect(struct conn *c);

static void
connected(struct conn *c)
{
	uint8_t rep[32];
	size_t n = 0;
	int r = 0;

	c->st = CS_TUNNEL;
	c->deadline = 0;
	c->last_io = now_ms();
	if (c->proto == PROTO_CAPTURE) {
		/* The program thinks it is connected already; what it sent
		 * so far goes first. */
	} else if (c->proto == PROTO_SOCKS) {
		struct sockaddr_storage bound;
		socklen_t bl = sizeof(bound);

		if (getsockname(c->ep[1].w.fd, (struct sockaddr *)&bound, &bl) < 0)
			bound.ss_family = AF_UNSPEC;
		if (proxy_socks5_reply(&c->socks, PROXY_SOCKS5_SUCCEEDED, (struct sockaddr *)&bound,
				       rep, sizeof(rep), &n) == 0)
			r = out_append(&c->out[0], rep, n);
	} else if (c->req.kind == PROXY_HTTP_CONNECT) {
		r = out_append(&c->out[0], PROXY_HTTP_CONNECT_OK, strlen(PROXY_HTTP_CONNECT_OK));
	} else {
		char *head = malloc(PROXY_HTTP_UPSTREAM_MAX);
		size_t hl;

		if (!head || proxy_http_upstream_head(&c->req, c->in, head, PROXY_HTTP_UPSTREAM_MAX,
						      &hl) < 0)
			r = -ENOMEM;
		else
			r = out_append(&c->out[1], head, hl);
		free(head);
		c->forward = true;
		proxy_http_body_init(&c->body, &c->req);
	}
	/* What the client sent after its head (a body, early tunnel data)
	 * goes upstream first, in order; of a forwarded request, its body
	 * only: a request pipelined after it carries the run's credentials
	 * and a destination nobody judged. */
	if (r == 0) {
		size_t used = c->proto == PROTO_HTTP	? c->req.head_len
			      : c->proto == PROTO_SOCKS ? c->socks_used
							: 0,
		       more = 0;

		if (c->inlen > used) {
			more = c->inlen - used;
			if (c->forward &&
			    proxy_http_body_feed(&c->body, c->in + used, more, &more) < 0) {
				free(c->in);
				c->in = NULL;
				c->inlen = 0;
				refuse(c, 400, 0, "heel: malformed chunked request body");
				return;
			}
		}
		if (more)
			r = out_append(&c->out[1], c->in + used, more);
	}
	free(c->in);
	c->in = NULL;
	c->inlen = 0;
	if (r < 0) {
		conn_free(c);
		return;
	}
	conn_update(c);
}

static void
connect_done(struct conn *c)
{
	int e = 0;
	socklen_t el = sizeof(e);

	if (getsockopt(c->ep[1].w.fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		e = errno;
	if (e == 0) {
		connected(c);
		return;
	}
	proxy_watch_set(c->s->epfd, &c->ep[1].w, 0);
	close_fd(&c->ep[1].w.fd);
	try_connect(c);
}

/* Connects to the next address judged allowed, or answers 502. */
static void
try_connect(struct conn *c)
{
	char reason[PROXY_REASON_MAX];
	int last_err = 0;

	while (c->next_ai) {
		struct ares_addrinfo_node *a = c->next_ai;
		int fd;

		c->next_ai = a->ai_next;
		if (a->ai_family == AF_INET)
			((struct sockaddr_in *)(void *)a->ai_addr)->sin_port = htons(c->port);
		else if (a->ai_family == AF_INET6)
			((struct sockaddr_in6 *)(void *)a->ai_addr)->sin6_port = htons(c->port);
		else
			continue;
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
		if (fd < 0) {
			last_err = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			last_err = errno;
			close(fd);
			continue;
		}
		no_delay(fd);
		c->ep[1].w.fd = fd;
		c->ep[1].w.events = 0;
		c->st = CS_CONNECT;
		c->deadline = now_ms() + c->s->cfg->limits.connect_ms;
		conn_update(c);
		return;
	}
	snprintf(reason, sizeof(reason), "heel: cannot connect to %s port %u%s%s", c->host.text,
		 c->port, last_err ? ": " : "", last_err ? strerror(last_err) : "");
	refuse(c, 502,
	       last_err == ECONNREFUSED ? PROXY_SOCKS5_CONN_REFUSED : PROXY_SOCKS5_HOST_UNREACHABLE,
	       reason);
}

/* The addresses are judged, the verdict recorded, then connected: the
 * address dialled is one judged here, from this one lookup. */
static void
proceed(struct conn *c)
{
	char reason[PROXY_REASON_MAX] = "", first_refusal[PROXY_REASON_MAX] = "";
	size_t ok = 0;

	/* What is refused leaves the list: try_connect() walks the rest. */
	for (struct ares_addrinfo_node **pp = c->ai ? &c->ai->nodes : NULL; pp && *pp;) {
		struct ares_addrinfo_node *a = *pp;

		if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) &&
		    proxy_policy_address_ok(c->s->cfg->policy, c->host.text, a->ai_addr, reason,
					    sizeof(reason))) {
			ok++;
			pp = &a->ai_next;
			continue;
		}
		if (!first_refusal[0])
			snprintf(first_refusal, sizeof(first_refusal), "%s", reason);
		/* As ares_freeaddrinfo() frees a node. */
		*pp = a->ai_next;
		free(a->ai_addr);
		free(a);
	}
	if (!ok) {
		refuse_recorded(c, 403, PROXY_SOCKS5_NOT_ALLOWED,
				first_refusal[0] ? first_refusal : "heel: no address to connect to");
		return;
	}
	if (record(c, true, c->verdict) < 0) {
		refuse(c, 403, PROXY_SOCKS5_NOT_ALLOWED,
		       "heel: the network audit log cannot be written, and nothing connects "
		       "without a record");
		return;
	}
	c->next_ai = c->ai->nodes;
	try_connect(c);
}

static void
resolved(void *ctx, int status, struct ares_addrinfo *res)
{
	struct conn *c = ctx;
	char reason[PROXY_REASON_MAX];

	c->dns_pending = false;
	if (c->dead) {
		if (res)
			ares_freeaddrinfo(res);
		return;
	}
	if (status != ARES_SUCCESS) {
		snprintf(reason, sizeof(reason), "heel: %s cannot be resolved: %s", c->host.text,
			 ares_strerror(status));
		refuse_recorded(c, 502, PROXY_SOCKS5_HOST_UNREACHABLE, reason);
		return;
	}
	c->ai = res;
	proceed(c);
}

/* The verdict on the name: refuse, or go on to its addresses. */
static void
verdict(struct conn *c, bool allow, const char *reason)
{
	if (!allow) {
		refuse_recorded(c, 403, PROXY_SOCKS5_NOT_ALLOWED, reason);
		return;
	}
	snprintf(c->verdict, sizeof(c->verdict), "%s", reason);
	if (c->host.kind != NETHOST_NAME) {
		/* A literal: its one address, no lookup. */
		struct ares_addrinfo *ai = calloc(1, sizeof(*ai));
		struct ares_addrinfo_node *n = calloc(1, sizeof(*n));
		void *sa = calloc(1, sizeof(struct sockaddr_in6));

		if (!ai || !n || !sa) {
			free(ai);
			free(n);
			free(sa);
			conn_free(c);
			return;
		}
		/* ares_freeaddrinfo frees each node's ai_addr with free(). */
		ai->nodes = n;
		if (c->host.kind == NETHOST_IPV4) {
			struct sockaddr_in *in = sa;

			in->sin_family = AF_INET;
			memcpy(&in->sin_addr, c->host.addr, 4);
			n->ai_family = AF_INET;
			n->ai_addrlen = sizeof(*in);
		} else {
			struct sockaddr_in6 *in6 = sa;

			in6->sin6_family = AF_INET6;
			memcpy(&in6->sin6_addr, c->host.addr, 16);
			n->ai_family = AF_INET6;
			n->ai_addrlen = sizeof(*in6);
		}
		n->ai_addr = sa;
		c->ai = ai;
		proceed(c);
		return;
	}
	c->st = CS_RESOLVE;
	c->deadline = 0; /* c-ares times out itself */
	conn_update(c);
	c->dns_pending = true;
	proxy_dns_resolve(c->s->dns, c->host.text, resolved, c);
}

static struct conn *
conn_by_id(struct proxy_server *s, uint64_t id)
{
	for (struct conn *c = s->conns; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void
decided(void *ctx, uint64_t token, bool allow, const char *reason)
{
	struct conn *c = conn_by_id(ctx, token);

	char line[PROXY_REASON_MAX];

	if (!c || c->st != CS_DECIDE)
		return;
	/* The decider's own words, marked as its: the reader of a 403 must
	 * know where a refusal came from. */
	if (reason && reason[0])
		snprintf(line, sizeof(line), "%s%s", allow ? "network decider: " : "heel: network decider: ", reason);
	else
		snprintf(line, sizeof(line), "%s", allow ? "the network decider allowed it" : "heel: the network decider refused it");
	verdict(c, allow, line);
}

/* The decider's descriptors in the epoll set, as it now wants them; a
 * dead decider closed them, which took them out of the set. */
static void
decider_sync(struct proxy_server *s)
{
	struct proxy_decider *d = s->cfg->decider;

	if (!d)
		return;
	if (proxy_decider_read_fd(d) < 0) {
		s->decider_r.events = s->decider_w.events = 0;
		return;
	}
	s->decider_r.fd = proxy_decider_read_fd(d);
	s->decider_w.fd = proxy_decider_write_fd(d);
	proxy_watch_set(s->epfd, &s->decider_r, EPOLLIN);
	proxy_watch_set(s->epfd, &s->decider_w, proxy_decider_wants_write(d) ? EPOLLOUT : 0);
}

/* Whether user and pass are this run's credentials: one check for HTTP
 * and SOCKS5. Constant time in the password (its length is no secret). */
static bool
credentials_ok(const struct proxy_server *s, const char *user, const char *pass, size_t pl)
{
	const char *tok = s->cfg->token;
	size_t tl = strlen(tok);
	unsigned char diff = 0;

	for (size_t i = 0; i < tl; i++)
		diff |= (unsigned char)(tok[i] ^ (i < pl ? pass[i] : 0));
	return !strcmp(user, PROXYCTL_USER) && pl == tl && !diff;
}

/* A request with a destination, from a client whose credentials were
 * checked: the host's spelling, the list, then the decider where the
 * policy has one. */
static void
judge(struct conn *c, const char *host, uint16_t port)
{
	const struct proxy_server_config *cfg = c->s->cfg;
	char reason[PROXY_REASON_MAX];
	const char *why = "";
	bool listed;

	c->port = port;
	if (nethost_canon(host, strlen(host), &c->host, &why) < 0) {
		snprintf(c->host.text, sizeof(c->host.text), "%.200s", host);
		snprintf(reason, sizeof(reason), "heel: `%.200s` is not a host name: %s", host, why);
		refuse_recorded(c, 400, PROXY_SOCKS5_ATYP_UNSUPPORTED, reason);
		return;
	}
	listed = c->proto == PROTO_CAPTURE
		     ? proxy_policy_listed_captured(cfg->policy, &c->host, port, reason, sizeof(reason))
		     : proxy_policy_listed(cfg->policy, &c->host, port, reason, sizeof(reason));
	if (cfg->decider) {
		c->st = CS_DECIDE;
		c->deadline = 0; /* the decider times out itself */
		conn_update(c);
		if (proxy_decider_ask(cfg->decider, c->id, c->host.text, port, c->method, listed,
				      now_ms(), &why) < 0) {
			snprintf(reason, sizeof(reason), "heel: the network decider cannot be asked: %s",
				 why);
			verdict(c, false, reason);
		}
		decider_sync(c->s);
		return;
	}
	verdict(c, listed, reason);
}

/* ---------------------------------------------------------------- requests */

static void
on_http_head(struct conn *c)
{
	enum proxy_http_result r = proxy_http_parse(c->in, c->inlen, &c->req);

	if (r == PROXY_HTTP_NEED_MORE)
		return;
	if (r == PROXY_HTTP_REFUSE) {
		refuse(c, c->req.status, 0, c->req.reason);
		return;
	}
	if (!c->req.has_auth ||
	    !credentials_ok(c->s, c->req.user, c->req.pass, strlen(c->req.pass))) {
		/* Not a decision about a destination: nothing is recorded,
		 * or any local process could fill the log. */
		refuse(c, 407, 0, "heel: this proxy needs the credentials in the sandbox's "
				  "HTTP_PROXY variable");
		return;
	}
	snprintf(c->method, sizeof(c->method), "%s", c->req.method);
	judge(c, c->req.host, c->req.port);
}

static void
on_socks(struct conn *c)
{
	uint8_t out[64];
	size_t outlen = 0, used = 0;
	enum proxy_socks5_event ev;

	for (;;) {
		ev = proxy_socks5_feed(&c->socks, c->in + c->socks_used, c->inlen - c->socks_used,
				       &used, out, sizeof(out), &outlen);
		c->socks_used += used;
		if (outlen && out_append(&c->out[0], out, outlen) < 0) {
			conn_free(c);
			return;
		}
		switch (ev) {
		case PROXY_SOCKS5_NEED_MORE:
			conn_update(c);
			return;
		case PROXY_SOCKS5_FAIL:
			c->st = CS_REFUSE;
			c->deadline = now_ms() + LINGER_MS;
			conn_update(c);
			return;
		case PROXY_SOCKS5_AUTH: {
			bool ok = credentials_ok(c->s, c->socks.user, c->socks.pass,
						 c->socks.pass_len);

			if (proxy_socks5_auth(&c->socks, ok, out, sizeof(out), &outlen) < 0 ||
			    out_append(&c->out[0], out, outlen) < 0) {
				conn_free(c);
				return;
			}
			if (!ok) {
				c->st = CS_REFUSE;
				c->deadline = now_ms() + LINGER_MS;
				conn_update(c);
				return;
			}
			continue;
		}
		case PROXY_SOCKS5_REQUEST:
			snprintf(c->method, sizeof(c->method), "SOCKS5");
			/* Authenticated above. */
			judge(c, c->socks.host, c->socks.port);
			return;
		}
	}
}

/* ---------------------------------------------------------------- tunnel */

/* Moves what it can in direction d. -1: the connection is over. */
static int
pump_run(struct conn *c, int d)
{
	struct pump *p = &c->pump[d];
	int src = c->ep[d].w.fd, dst = c->ep[1 - d].w.fd;

	p->blocked_out = false;
	for (;;) {
		if (p->inpipe) {
			ssize_t n = splice(p->pipe[0], NULL, dst, NULL, p->inpipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				p->blocked_out = true;
				return 0;
			}
			if (n <= 0)
				return -1;
			p->inpipe -= (size_t)n;
			c->last_io = now_ms();
			continue;
		}
		/* Empty: the pipe goes back until bytes come again. */
		if (p->pipe[0] >= 0 && (p->eof || p->idle))
			pipe_put(c->s, p->pipe);
		if (p->eof) {
			if (!p->shut) {
				shutdown(dst, SHUT_WR);
				p->shut = true;
			}
			return 0;
		}
		if (p->idle) {
			p->idle = false;
			return 0;
		}
		if (p->pipe[0] < 0 && pipe_get(c->s, p->pipe) < 0)
			return -1;
		{
			ssize_t n = splice(src, NULL, p->pipe[1], NULL, PIPE_CHUNK,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				p->idle = true; /* nothing to read: give the pipe back, wait */
				continue;
			}
			if (n < 0)
				return -1;
			if (n == 0) {
				p->eof = true;
				continue;
			}
			p->inpipe += (size_t)n;
			c->last_io = now_ms();
		}
	}
}

/* A forwarded request's body, client to upstream, through out[1] and as
 * far as its framing goes: what the client sends after it is left
 * unread, and dropped when the connection lingers. -1: the connection is
 * over. */
static int
body_run(struct conn *c)
{
	struct pump *p = &c->pump[0];
	uint8_t buf[16384];

	while (!c->body.done && !p->eof && !c->out[1].len) {
		ssize_t n = recv(c->ep[0].w.fd, buf, sizeof(buf), 0);
		size_t take;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -1;
		if (n == 0) {
			p->eof = true;
			shutdown(c->ep[1].w.fd, SHUT_WR);
			p->shut = true;
			return 0;
		}
		c->last_io = now_ms();
		/* A framing the proxy cannot follow ends the connection: the
		 * server could read another end into it. */
		if (proxy_http_body_feed(&c->body, buf, (size_t)n, &take) < 0)
			return -1;
		if (take && out_append(&c->out[1], buf, take) < 0)
			return -1;
		if (out_flush(c, 1) < 0)
			return -1;
	}
	return 0;
}

/* Everything a connection can do now, then what it waits for. */
static void
conn_update(struct conn *c)
{
	struct proxy_server *s = c->s;
	uint32_t ev[2] = { 0, 0 };
	int r;

	switch (c->st) {
	case CS_HEAD:
	case CS_PEEK:
	case CS_SOCKS:
		if (c->out[0].len && (r = out_flush(c, 0)) < 0)
			goto gone;
		ev[0] = EPOLLIN | (c->out[0].len ? EPOLLOUT : 0);
		break;
	case CS_DECIDE:
	case CS_RESOLVE:
		break;
	case CS_CONNECT:
		ev[1] = EPOLLOUT;
		break;
	case CS_REFUSE:
		if ((r = out_flush(c, 0)) < 0)
			goto gone;
		if (r == 0) {
			ev[0] = EPOLLOUT;
		} else {
			if (!c->pump[0].shut) {
				shutdown(c->ep[0].w.fd, SHUT_WR);
				c->pump[0].shut = true;
			}
			ev[0] = EPOLLIN; /* drained and dropped until EOF or the linger ends */
		}
		break;
	case CS_TUNNEL:
		for (int i = 0; i < 2; i++) {
			if (c->out[i].len) {
				if ((r = out_flush(c, i)) < 0)
					goto gone;
				if (r == 0)
					ev[i] |= EPOLLOUT;
			}
		}
		/* A direction starts once the proxy's own bytes ahead of it
		 * are out. */
		if (c->forward) {
			if (!c->out[1].len && body_run(c) < 0)
				goto gone;
			if (c->out[1].len)
				ev[1] |= EPOLLOUT;
		} else if (!c->out[1].len && pump_run(c, 0) < 0) {
			goto gone;
		}
		if (!c->out[0].len && pump_run(c, 1) < 0)
			goto gone;
		for (int d = 0; d < 2; d++) {
			struct pump *p = &c->pump[d];

			if (!p->eof && !p->inpipe && !c->out[1 - d].len &&
			    !(d == 0 && c->forward && c->body.done))
				ev[d] |= EPOLLIN;
			if (p->blocked_out)
				ev[1 - d] |= EPOLLOUT;
		}
		if (c->pump[0].shut && c->pump[1].shut)
			goto gone;
		/* The response is through (the server closed, as
		 * `Connection: close` asked): the client's connection ends,
		 * lingering so the response is not lost to a reset over
		 * what it sent after its request. */
		if (c->forward && c->pump[1].shut) {
			proxy_watch_set(s->epfd, &c->ep[1].w, 0);
			close_fd(&c->ep[1].w.fd);
			c->pump[0].shut = true; /* the client's write side: shut with pump[1] */
			c->st = CS_REFUSE;
			c->deadline = now_ms() + LINGER_MS;
			conn_update(c);
			return;
		}
		break;
	}
	for (int i = 0; i < 2; i++)
		if (c->ep[i].w.fd >= 0 && proxy_watch_set(s->epfd, &c->ep[i].w, ev[i]) < 0)
			goto gone;
	return;
gone:
	conn_free(c);
}

static void capture_peek(struct conn *c);
static void dns_tcp_read(struct conn *c);

static void
on_conn_event(struct proxy_watch *w, uint32_t events)
{
	struct endpoint *e = (struct endpoint *)w;
	struct conn *c = e->c;
	int side = e == &c->ep[0] ? 0 : 1;

	if (c->dead)
		return;

	switch (c->st) {
	case CS_PEEK:
		if (side == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
			capture_peek(c);
			return;
		}
		break;
	case CS_HEAD:
		if (c->proto == PROTO_DNS) {
			if (side == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
				dns_tcp_read(c);
			else
				conn_update(c);
			return;
		}
		/* fall through */
	case CS_SOCKS:
		if (side == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
			size_t room = PROXY_HTTP_HEAD_MAX - c->inlen;
			ssize_t n;

			if (!room) {
				refuse(c, 431, 0, "heel: request head too large");
				return;
			}
			n = recv(c->ep[0].w.fd, c->in + c->inlen, room, 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n <= 0) {
				conn_free(c);
				return;
			}
			c->inlen += (size_t)n;
			if (c->st == CS_HEAD)
				c->proto = c->in[0] == 5 ? PROTO_SOCKS : PROTO_HTTP;
			if (c->proto == PROTO_SOCKS) {
				c->st = CS_SOCKS;
				on_socks(c);
			} else {
				on_http_head(c);
			}
			return;
		}
		break;
	case CS_CONNECT:
		if (side == 1) {
			connect_done(c);
			return;
		}
		break;
	case CS_REFUSE:
		if (side == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->out[0].len == 0) {
			char drop[4096];
			ssize_t n = recv(c->ep[0].w.fd, drop, sizeof(drop), 0);

			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
				conn_free(c);
				return;
			}
		}
		break;
	case CS_TUNNEL:
		if (events & EPOLLERR) {
			conn_free(c);
			return;
		}
		break;
	default:
		break;
	}
	conn_update(c);
}

/* ---------------------------------------------------------------- accept */

/* A connection for the accepted fd (taken), in CS_HEAD; NULL when over
 * the limit or out of memory (fd closed). */
static struct conn *
conn_new(struct proxy_server *s, int fd, enum conn_proto proto)
{
	struct conn *c;

	if (s->nconns >= s->cfg->limits.max_conns || !(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return NULL;
	}
	if (!(c->in = malloc(PROXY_HTTP_HEAD_MAX))) {
		free(c);
		close(fd);
		return NULL;
	}
	c->s = s;
	c->id = ++s->next_id;
	c->st = CS_HEAD;
	c->proto = proto;
	for (int i = 0; i < 2; i++) {
		c->ep[i].c = c;
		c->ep[i].w.fd = -1;
		c->ep[i].w.on_event = on_conn_event;
		c->pump[i].pipe[0] = c->pump[i].pipe[1] = -1;
	}
	c->ep[0].w.fd = fd;
	no_delay(fd);
	proxy_socks5_init(&c->socks);
	c->deadline = now_ms() + s->cfg->limits.head_ms;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	return c;
}

static void
on_accept(struct proxy_watch *w, uint32_t events)
{
	struct proxy_server *s = (struct proxy_server *)((char *)w - offsetof(struct proxy_server, listen_w));

	(void)events;
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0) {
			/* EMFILE and friends: the backlog waits for a close. */
			return;
		}
		if ((c = conn_new(s, fd, PROTO_HTTP)))
			conn_update(c);
	}
}

/* ---------------------------------------------------------------- capture */

/* A verdict no connection of the proxy's carries (the name server's). */
static void
record_name(struct proxy_server *s, const char *host, uint16_t port, const char *reason,
	    const char *method)
{
	struct proxy_decision d = {
		.host = host,
		.port = port,
		.allowed = false,
		.reason = reason,
		.method = method,
	};

	clock_gettime(CLOCK_REALTIME, &d.when);
	note_refusal(s, &d);
	(void)proxy_audit_record(s->cfg->audit, &d);
}

/* Judged as the proxy judges a request for the same host and port; the
 * method says how it came ("captured TLS", "captured HTTP", "captured
 * TCP"). */
static void
capture_judge(struct conn *c, const char *host, const char *proto)
{
	snprintf(c->method, sizeof(c->method), "captured %s", proto);
	c->deadline = 0;
	judge(c, host, c->port);
}

/* Reads what the client sent into c->in, up to PROXY_HTTP_HEAD_MAX: 1
 * when bytes came, 0 when none yet (the connection waits for more), -1
 * when the client is gone (c is freed). */
static int
read_more(struct conn *c)
{
	ssize_t n = recv(c->ep[0].w.fd, c->in + c->inlen, PROXY_HTTP_HEAD_MAX - c->inlen, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		conn_update(c);
		return 0;
	}
	if (n <= 0) {
		conn_free(c);
		return -1;
	}
	c->inlen += (size_t)n;
	return 1;
}

/* The first bytes of a connection to a fake address: the name in them,
 * if any, must be the one the address stands for. */
static void
capture_peek(struct conn *c)
{
	char said[NETHOST_NAME_MAX + 1], reason[PROXY_REASON_MAX];
	const char *proto;
	enum proxy_peek r;

	if (c->inlen < PROXY_HTTP_HEAD_MAX && read_more(c) <= 0)
		return;
	r = proxy_capture_peek(c->in, c->inlen, said, sizeof(said), &proto);
	if (r == PROXY_PEEK_MORE && c->inlen < PROXY_HTTP_HEAD_MAX) {
		conn_update(c);
		return;
	}
	if (r == PROXY_PEEK_NAME && strcmp(said, c->cap_name) != 0) {
		snprintf(c->method, sizeof(c->method), "captured %s", proto);
		snprintf(c->host.text, sizeof(c->host.text), "%s", c->cap_name);
		snprintf(reason, sizeof(reason),
			 "heel: the program resolved %s but its %s names %.200s (domain fronting, or "
			 "a name it did not resolve); only the name it resolved is judged, so this "
			 "connection is refused",
			 c->cap_name, strcmp(proto, "TLS") == 0 ? "TLS server_name" : "HTTP Host",
			 said);
		refuse_recorded(c, 403, 0, reason);
		return;
	}
	capture_judge(c, c->cap_name, proto);
}

static void
capture_accept(struct proxy_server *s, int fd)
{
	struct sockaddr_storage dst;
	socklen_t dl = sizeof(dst);
	char text[INET6_ADDRSTRLEN] = "", reason[PROXY_REASON_MAX];
	struct conn *c;

	if (!(c = conn_new(s, fd, PROTO_CAPTURE)))
		return;
	/* Every address is local in the capture namespace: the one the
	 * connection was accepted on is the one the program dialled. */
	if (getsockname(fd, (struct sockaddr *)&dst, &dl) < 0) {
		conn_free(c);
		return;
	}
	if (dst.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&dst;

		c->port = ntohs(in->sin_port);
		inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&dst;

		c->port = ntohs(in6->sin6_port);
		inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
	}
	if (proxy_fake_in_range((struct sockaddr *)&dst)) {
		c->cap_name = proxy_fake_name(&s->fake, (struct sockaddr *)&dst);
		if (!c->cap_name) {
			snprintf(c->method, sizeof(c->method), "captured TCP");
			snprintf(c->host.text, sizeof(c->host.text), "%s", text);
			snprintf(reason, sizeof(reason),
				 "heel: %s stands for no name this sandbox resolved (capture's "
				 "addresses are given out by its name server only)",
				 text);
			refuse_recorded(c, 403, 0, reason);
			return;
		}
		c->st = CS_PEEK;
		c->deadline = now_ms() + PEEK_MS;
		conn_update(c);
		return;
	}
	/* A literal address: what the policy says of that address. */
	capture_judge(c, text, "TCP");
}

static bool
dns_allowed(void *ctx, const struct nethost *name)
{
	struct proxy_server *s = ctx;

	/* With a decider, every name gets its address: the decider judges
	 * the connection, host and port, when it comes. */
	return s->cfg->decider || proxy_policy_name_listed(s->cfg->policy, name);
}

/* One query's answer (into out), and the audit line of a refused name. */
static int
dns_answer(struct proxy_server *s, const uint8_t *q, size_t ql, uint8_t *out, size_t cap,
	   size_t *ol, const char *method)
{
	char reason[PROXY_REASON_MAX];
	enum proxy_fake_result res;
	struct nethost name;
	int r;

	r = proxy_fake_answer(&s->fake, q, ql, out, cap, ol, dns_allowed, s, &name, &res);
	if (r < 0 || res != PROXY_FAKE_REFUSED)
		return r;
	/* Never resolved on the host: the answer is NXDOMAIN, recorded. */
	if (name.text[0] && name.kind == NETHOST_NAME)
		proxy_policy_listed(s->cfg->policy, &name, 53, reason, sizeof(reason));
	else
		snprintf(reason, sizeof(reason), "heel: `%s` is not a host name", name.text);
	record_name(s, name.text[0] ? name.text : "(none)", 53, reason, method);
	return 0;
}

static void
dns_udp(struct proxy_server *s, int fd)
{
	for (;;) {
		uint8_t q[1500], out[1500];
		union {
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
			struct cmsghdr align;
		} cb, ob;
		struct sockaddr_storage peer;
		struct iovec iov = { .iov_base = q, .iov_len = sizeof(q) };
		struct msghdr m = {
			.msg_name = &peer,
			.msg_namelen = sizeof(peer),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = cb.b,
			.msg_controllen = sizeof(cb.b),
		};
		struct cmsghdr *cm, *oc;
		size_t ol = 0;
		ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);

		if (n < 0)
			return;
		if (dns_answer(s, q, (size_t)n, out, sizeof(out), &ol, "DNS") < 0 || !ol)
			continue;
		/* From the address the query went to (the socket is bound to
		 * the wildcard): a resolver drops an answer from elsewhere. */
		memset(&ob, 0, sizeof(ob));
		iov = (struct iovec){ .iov_base = out, .iov_len = ol };
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if ((cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) ||
			    (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO))
				break;
		m.msg_control = cm ? ob.b : NULL;
		m.msg_controllen = 0;
		if (cm) {
			m.msg_controllen = sizeof(ob.b);
			oc = CMSG_FIRSTHDR(&m);
			if (cm->cmsg_level == IPPROTO_IP) {
				struct in_pktinfo pi;

				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				pi.ipi_spec_dst = pi.ipi_addr;
				pi.ipi_ifindex = 0;
				oc->cmsg_level = IPPROTO_IP;
				oc->cmsg_type = IP_PKTINFO;
				oc->cmsg_len = CMSG_LEN(sizeof(pi));
				memcpy(CMSG_DATA(oc), &pi, sizeof(pi));
				m.msg_controllen = CMSG_SPACE(sizeof(pi));
			} else {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				pi.ipi6_ifindex = 0;
				oc->cmsg_level = IPPROTO_IPV6;
				oc->cmsg_type = IPV6_PKTINFO;
				oc->cmsg_len = CMSG_LEN(sizeof(pi));
				memcpy(CMSG_DATA(oc), &pi, sizeof(pi));
				m.msg_controllen = CMSG_SPACE(sizeof(pi));
			}
		}
		(void)sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
}

/* DNS over TCP (RFC 7766): each message after its two-byte length, as
 * many as the client sends on the connection. */
static void
dns_tcp_read(struct conn *c)
{
	uint8_t out[1500 + 2];
	size_t off = 0, ol;

	if (read_more(c) <= 0)
		return;
	while (c->inlen - off >= 2) {
		size_t ml = (size_t)(c->in[off] << 8 | c->in[off + 1]);

		if (c->inlen - off - 2 < ml)
			break;
		ol = 0;
		if (dns_answer(c->s, c->in + off + 2, ml, out + 2, sizeof(out) - 2, &ol,
			       "DNS") < 0) {
			conn_free(c);
			return;
		}
		off += 2 + ml;
		if (!ol)
			continue;
		out[0] = (uint8_t)(ol >> 8);
		out[1] = (uint8_t)ol;
		if (out_append(&c->out[0], out, ol + 2) < 0) {
			conn_free(c);
			return;
		}
	}
	memmove(c->in, c->in + off, c->inlen - off);
	c->inlen -= off;
	if (c->inlen == PROXY_HTTP_HEAD_MAX) {
		conn_free(c);
		return;
	}
	c->deadline = now_ms() + c->s->cfg->limits.head_ms;
	conn_update(c);
}

static void
on_capture(struct proxy_watch *w, uint32_t events)
{
	struct capture_listener *l = (struct capture_listener *)w;
	struct conn *c;

	(void)events;
	if (l->kind == CAP_DNS_UDP) {
		dns_udp(l->s, w->fd);
		return;
	}
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (l->kind == CAP_TCP)
			capture_accept(l->s, fd);
		else if ((c = conn_new(l->s, fd, PROTO_DNS)))
			conn_update(c);
	}
}

static void
on_stop(struct proxy_watch *w, uint32_t events)
{
	struct proxy_server *s = (struct proxy_server *)((char *)w - offsetof(struct proxy_server, stop_w));

	(void)events;
	s->stop = true;
}

static void
on_decider_read(struct proxy_watch *w, uint32_t events)
{
	struct proxy_server *s =
	    (struct proxy_server *)((char *)w - offsetof(struct proxy_server, decider_r));

	(void)events;
	proxy_decider_readable(s->cfg->decider, decided, s);
	decider_sync(s);
}

static void
on_decider_write(struct proxy_watch *w, uint32_t events)
{
	struct proxy_server *s =
	    (struct proxy_server *)((char *)w - offsetof(struct proxy_server, decider_w));

	(void)events;
	proxy_decider_writable(s->cfg->decider, decided, s);
	decider_sync(s);
}

/* ---------------------------------------------------------------- timers */

static void
expire(struct proxy_server *s, long long now)
{
	const struct proxy_limits *l = &s->cfg->limits;
	struct conn *c = s->conns, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->deadline && c->deadline <= now) {
			if (c->st == CS_CONNECT) {
				proxy_watch_set(s->epfd, &c->ep[1].w, 0);
				close_fd(&c->ep[1].w.fd);
				try_connect(c);
			} else if (c->st == CS_PEEK) {
				/* Nothing came, or nothing with a name in it: the
				 * name the address stands for is judged. */
				const char *proto = "TCP";
				char said[NETHOST_NAME_MAX + 1];

				(void)proxy_capture_peek(c->in, c->inlen, said, sizeof(said), &proto);
				capture_judge(c, c->cap_name, proto);
			} else if (c->st == CS_HEAD || c->st == CS_SOCKS) {
				refuse(c, 408, PROXY_SOCKS5_GENERAL_FAILURE, "heel: no request in time");
			} else {
				conn_free(c);
			}
			continue;
		}
		if (c->st == CS_TUNNEL) {
			bool half = c->pump[0].eof || c->pump[1].eof;

			if (now - c->last_io >= (long long)(half ? l->half_ms : l->idle_ms))
				conn_free(c);
		}
	}
}

int
proxy_server_open(struct proxy_server **out, const struct proxy_server_config *cfg, char *err,
		  size_t errlen)
{
	struct proxy_server *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->cfg = cfg;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		r = -errno;
		snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
		free(s);
		return r;
	}
	if ((r = proxy_dns_open(&s->dns, s->epfd, err, errlen)) < 0) {
		close(s->epfd);
		free(s);
		return r;
	}
	s->listen_w = (struct proxy_watch){ .fd = -1, .on_event = on_accept };
	s->stop_w = (struct proxy_watch){ .fd = cfg->stop_fd, .on_event = on_stop };
	s->decider_r = (struct proxy_watch){ .fd = -1, .on_event = on_decider_read };
	s->decider_w = (struct proxy_watch){ .fd = -1, .on_event = on_decider_write };
	if (cfg->stop_fd >= 0 && (r = proxy_watch_set(s->epfd, &s->stop_w, EPOLLIN)) < 0) {
		snprintf(err, errlen, "epoll_ctl: %s", strerror(-r));
		proxy_server_close(s);
		return r;
	}
	decider_sync(s);
	*out = s;
	return 0;
}

int
proxy_server_listen(struct proxy_server *s, int fd, char *err, size_t errlen)
{
	int r;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	s->listen_w.fd = fd;
	if ((r = proxy_watch_set(s->epfd, &s->listen_w, EPOLLIN)) < 0)
		snprintf(err, errlen, "epoll_ctl: %s", strerror(-r));
	return r;
}

int
proxy_server_capture(struct proxy_server *s, const char *kind, int fd, char *err, size_t errlen)
{
	struct capture_listener *l;
	int r;

	if (s->ncap >= sizeof(s->cap) / sizeof(s->cap[0])) {
		snprintf(err, errlen, "capture: more sockets than heel-proxy takes");
		return -E2BIG;
	}
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	if (!strcmp(kind, "tcp"))
		l->kind = CAP_TCP;
	else if (!strcmp(kind, "dns-udp"))
		l->kind = CAP_DNS_UDP;
	else if (!strcmp(kind, "dns-tcp"))
		l->kind = CAP_DNS_TCP;
	else {
		free(l);
		snprintf(err, errlen, "capture=%.20s: not tcp, dns-udp or dns-tcp", kind);
		return -EINVAL;
	}
	l->s = s;
	l->w = (struct proxy_watch){ .fd = fd, .on_event = on_capture };
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if ((r = proxy_watch_set(s->epfd, &l->w, EPOLLIN)) < 0) {
		snprintf(err, errlen, "epoll_ctl: %s", strerror(-r));
		free(l);
		return r;
	}
	s->cap[s->ncap++] = l;
	return 0;
}

int
proxy_server_run(struct proxy_server *s, char *err, size_t errlen)
{
	struct epoll_event evs[64];
	long long next_scan = 0;

	(void)err;
	(void)errlen;
	while (!s->stop) {
		long long now = now_ms(), wake;
		int timeout = 1000, n;

		if (s->cfg->decider) {
			wake = proxy_decider_next_deadline(s->cfg->decider);
			if (wake > 0 && wake - now < timeout)
				timeout = wake <= now ? 0 : (int)(wake - now);
		}
		timeout = proxy_dns_timeout(s->dns, timeout);
		n = epoll_wait(s->epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR) {
			snprintf(err, errlen, "epoll_wait: %s", strerror(errno));
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			struct proxy_watch *w = evs[i].data.ptr;

			w->on_event(w, evs[i].events);
		}
		proxy_dns_tick(s->dns);
		now = now_ms();
		if (s->cfg->decider) {
			proxy_decider_expire(s->cfg->decider, now, decided, s);
			decider_sync(s);
		}
		if (now >= next_scan) {
			expire(s, now);
			next_scan = now + 250;
		}
		bury(s);
	}
	return 0;
}

void
proxy_server_close(struct proxy_server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_free(s->conns);
	/* Answers every pending lookup (ARES_EDESTRUCTION) first. */
	proxy_dns_close(s->dns);
	bury(s);
	while (s->nspare) {
		s->nspare--;
		close(s->spare[s->nspare][0]);
		close(s->spare[s->nspare][1]);
	}
	for (size_t i = 0; i < s->ncap; i++) {
		close(s->cap[i]->w.fd);
		free(s->cap[i]);
	}
	proxy_fake_free(&s->fake);
	close(s->epfd);
	free(s);
}

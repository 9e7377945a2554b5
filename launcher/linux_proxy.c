/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-proxy (linux_proxy.h). */
#include "linux_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact.h"
#include "linux_net.h"
#include "pathexpand.h"

/* Long enough for c-ares, the audit sink and a decider to start on a
 * loaded machine; a proxy that has not answered by then is not coming. */
#define READY_TIMEOUT_MS 10000

bool
linux_proxy_wanted(const struct art_view *view)
{
	struct art_scalar s;

	return art_scalar(view, ART_LINUX, ART_SC_NETWORK, &s) == 0 && s.set && s.value != 0;
}

static int
send_setting(struct linux_proxy *p, const char *key, const char *value, char *err, size_t errlen)
{
	return helper_send(&p->h, "heel-proxy", key, value, -1, err, errlen);
}

static int
send_decider(struct linux_proxy *p, const struct art_view *view, const struct hc_places *ps,
	     char *err, size_t errlen)
{
	struct art_decider d;
	const char *arg;
	int r;

	if (art_network_decider(view, ART_LINUX, &d) < 0 || !d.program)
		return 0;
	/* The proxy runs it on the host, outside the sandbox, and it judges
	 * every destination: a program a sandbox could have rewritten (in
	 * this run or an earlier one) would be that sandbox deciding its
	 * own network on the host. */
	if ((r = hc_check(ps, HC_RUN, "network decide:", d.program, err, errlen)) < 0)
		return r;
	if ((r = send_setting(p, "decide", d.program, err, errlen)) < 0)
		return r;
	for (size_t j = 0; (arg = art_decider_arg(view, &d, j)); j++)
		if ((r = send_setting(p, "decide-arg", arg, err, errlen)) < 0)
			return r;
	return 0;
}

/* Whose words heel-proxy's refusals use ("add --allow-domain HOST" or
 * "add \"HOST\" to `network allow { }` in FILE"): the words the user
 * wrote the network in, told by the origins of the network setting and
 * of the allow-list entries. An option of heel run wins (that is what
 * the user typed last); then a TOML configuration; then a policy file. */
static void
network_words(const struct art_view *view, char *buf, size_t len)
{
	const char *toml = NULL, *policy = NULL;
	bool option = false;
	struct art_scalar kind;
	size_t n = art_net_count(view);

	for (size_t i = 0; i <= n; i++) {
		const char *f = NULL, *dot;
		struct art_net e;

		if (i == n && art_scalar(view, ART_LINUX, ART_SC_NETWORK, &kind) == 0 && kind.set)
			f = kind.origin.file;
		else if (i < n && art_net_at(view, i, &e) == 0)
			f = e.origin.file;
		if (!f || f[0] == '<')
			continue;
		dot = strrchr(f, '.');
		if (f[0] == '-')
			option = true;
		else if (dot && strcmp(dot, ".toml") == 0)
			toml = toml ? toml : f;
		else
			policy = policy ? policy : f;
	}
	if (option)
		snprintf(buf, len, "options");
	else if (toml)
		snprintf(buf, len, "toml %s", toml);
	else if (policy)
		snprintf(buf, len, "policy %s", policy);
	else
		snprintf(buf, len, "policy");
}

/* The settings, `sink` and its descriptor `fd` (opened before the proxy
 * started; closed here) among them. */
static int
send_settings(struct linux_proxy *p, const struct art_view *view, const struct hc_places *ps,
	      const char *sink, int fd, char *err, size_t errlen)
{
	struct art_scalar kind, priv;
	char buf[PROXYCTL_MSG_MAX];
	int r;

	if ((r = send_setting(p, "token", p->token, err, errlen)) < 0)
		goto out;
	art_scalar(view, ART_LINUX, ART_SC_NETWORK, &kind);
	if ((r = send_setting(p, "mode", kind.value == 1 ? "allow-all" : "allow-list", err,
			      errlen)) < 0)
		goto out;
	network_words(view, buf, sizeof(buf));
	if ((r = send_setting(p, "words", buf, err, errlen)) < 0)
		goto out;
	if (art_scalar(view, ART_LINUX, ART_SC_ALLOW_PRIVATE, &priv) == 0 && priv.set &&
	    priv.value && (r = send_setting(p, "allow-private", "1", err, errlen)) < 0)
		goto out;
	for (size_t i = 0; kind.value == 2 && i < art_net_count(view); i++) {
		struct art_net n;

		if (art_net_at(view, i, &n) < 0 || !(n.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		snprintf(buf, sizeof(buf), "%u %s", n.port, n.host);
		if ((r = send_setting(p, "allow", buf, err, errlen)) < 0)
			goto out;
	}
	if (sink) {
		r = helper_send(&p->h, "heel-proxy", "audit", sink, fd, err, errlen);
		close(fd);
		fd = -1;
		if (r < 0)
			goto out;
	}
	if ((r = send_decider(p, view, ps, err, errlen)) < 0)
		goto out;
	if (p->refusals_fd >= 0 &&
	    (r = helper_send(&p->h, "heel-proxy", "refusals", NULL, p->refusals_fd, err, errlen)) < 0)
		goto out;
	r = send_setting(p, "end", NULL, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* The ports capture listens on: each allow-list entry's, 80 and 443
 * for an entry without one (capture knows no other port to listen on;
 * through the proxy variables such an entry still means any port). */
static int
capture_ports(struct linux_proxy *p, const struct art_view *view, char *err, size_t errlen)
{
	for (size_t i = 0; i < art_net_count(view); i++) {
		uint16_t want[2];
		size_t nw = 0;
		struct art_net n;

		if (art_net_at(view, i, &n) < 0 || !(n.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		if (n.port)
			want[nw++] = n.port;
		else
			want[nw++] = 80, want[nw++] = 443;
		for (size_t k = 0; k < nw; k++) {
			size_t j;

			for (j = 0; j < p->ncap_ports && p->cap_ports[j] != want[k]; j++)
				;
			if (j < p->ncap_ports)
				continue;
			if (p->ncap_ports == NET_CAPTURE_PORTS_MAX) {
				snprintf(err, errlen,
					 "the network allow-list names more than %d ports, which "
					 "capture cannot listen on; name fewer",
					 NET_CAPTURE_PORTS_MAX);
				return -E2BIG;
			}
			p->cap_ports[p->ncap_ports++] = want[k];
		}
	}
	return 0;
}

/* The socket on the host's loopback, for a sandbox without a network
 * namespace of its own (--best-effort only). */
static int
host_listener(struct linux_proxy *p, char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		snprintf(err, errlen, "heel-proxy's socket on 127.0.0.1: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	p->listen_fd = fd;
	p->port = ntohs(a.sin_port);
	return 0;
}

int
linux_proxy_start(struct linux_proxy *p, const struct art_view *view, const struct hc_places *ps,
		  const struct envb_launch *vars, bool netns, char *err, size_t errlen)
{
	char *const *host_env = vars->env;
	char exe[PATH_MAX], home[PATH_MAX + 8] = "", lang[256] = "";
	char *envp[4];
	const char *v, *sink;
	size_t ne = 0;
	int r, fd;

	p->on = true;
	p->h = (struct helper){ .pidfd = -1, .ctl = -1 };
	p->listen_fd = -1;
	p->port = PROXYCTL_PORT;
	p->capture = false;
	p->ncap_ports = 0;
	/* Everything refused before anything starts: a proxy told nothing
	 * but hung up on would only add a line of its own. */
	if ((r = linux_proxy_check(view, ps, vars, exe, sizeof(exe), err, errlen)) < 0)
		return r;
	if ((r = proxyctl_token(p->token, sizeof(p->token))) < 0) {
		snprintf(err, errlen, "proxy credentials: getrandom: %s", strerror(-r));
		return r;
	}
	/* The sink opened now: one that cannot be opened (a directory the
	 * user may not write) is refused before any proxy exists, in the
	 * launch's own words. */
	if ((r = helper_audit_sink(view, ps, vars, &sink, &fd, err, errlen)) < 0)
		return r;
	{
		struct art_scalar kind;

		if (netns && art_scalar(view, ART_LINUX, ART_SC_NETWORK, &kind) == 0 &&
		    kind.value == 2) {
			p->capture = true;
			if ((r = capture_ports(p, view, err, errlen)) < 0) {
				if (fd >= 0)
					close(fd);
				return r;
			}
		}
	}
	if (!netns && (r = host_listener(p, err, errlen)) < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	/* What the decider may need of the user's; the credentials travel
	 * on the socket, never in the environment. */
	envp[ne++] = "PATH=/usr/bin:/bin";
	if ((v = envb_lookup(host_env, "HOME"))) {
		snprintf(home, sizeof(home), "HOME=%s", v);
		envp[ne++] = home;
	}
	if ((v = envb_lookup(host_env, "LANG"))) {
		snprintf(lang, sizeof(lang), "LANG=%s", v);
		envp[ne++] = lang;
	}
	envp[ne] = NULL;
	if ((r = helper_start(&p->h, exe, envp, err, errlen)) < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return send_settings(p, view, ps, sink, fd, err, errlen);
}

int
linux_proxy_check(const struct art_view *view, const struct hc_places *ps,
		  const struct envb_launch *vars, char *exe, size_t cap, char *err, size_t errlen)
{
	struct art_decider d;
	const char *sink;
	int r;

	if ((r = helper_find(ps, "heel-proxy", "the policy's network", exe, cap, err, errlen)) < 0)
		return r;
	if (art_network_decider(view, ART_LINUX, &d) == 0 && d.program &&
	    (r = hc_check(ps, HC_RUN, "network decide:", d.program, err, errlen)) < 0)
		return r;
	return helper_audit_sink(view, ps, vars, &sink, NULL, err, errlen);
}

int
linux_proxy_env(const struct linux_proxy *p, struct envb *env)
{
	static const char *const http[] = { "HTTP_PROXY", "http_proxy", "HTTPS_PROXY",
					    "https_proxy" };
	char url[128], socks[128];
	int r = 0;

	snprintf(url, sizeof(url), "http://%s:%s@127.0.0.1:%u", PROXYCTL_USER, p->token, p->port);
	snprintf(socks, sizeof(socks), "socks5h://%s:%s@127.0.0.1:%u", PROXYCTL_USER, p->token,
		 p->port);
	for (size_t i = 0; r == 0 && i < sizeof(http) / sizeof(http[0]); i++)
		r = envb_set(env, http[i], url);
	/* Anything else that takes a proxy from ALL_PROXY: SOCKS5 with the
	 * name resolved by the proxy, so no lookup happens in the sandbox. */
	if (r == 0)
		r = envb_set(env, "ALL_PROXY", socks);
	if (r == 0)
		r = envb_set(env, "all_proxy", socks);
	/* Nothing goes around the proxy but the sandbox's own loopback:
	 * test and dev servers it starts there are reached directly (the
	 * proxy refuses loopback, which outside the namespace is the
	 * host's). Without the namespace a direct connection there meets
	 * Landlock's port rule instead. */
	if (r == 0)
		r = envb_set(env, "NO_PROXY", LINUX_PROXY_NO_PROXY);
	if (r == 0)
		r = envb_set(env, "no_proxy", LINUX_PROXY_NO_PROXY);
	/* Node's built-in fetch and http take the variables only when told. */
	if (r == 0)
		r = envb_set(env, "NODE_USE_ENV_PROXY", "1");
	return r;
}

/* The capture namespace's sockets, to heel-proxy. */
static int
hand_over_capture(struct linux_proxy *p, char *err, size_t errlen)
{
	struct net_capture c;
	int r;

	if ((r = net_capture_make(p->cap_ports, p->ncap_ports, &c, err, errlen)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i < c.n; i++)
		r = proxyctl_send(p->h.ctl, "capture", c.kind[i], c.fd[i]);
	net_capture_close(&c);
	if (r < 0)
		snprintf(err, errlen, "heel-proxy is gone (%s)", strerror(-r));
	return r;
}

int
linux_proxy_hand_over(struct linux_proxy *p, char *err, size_t errlen)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(p->port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = p->listen_fd, one = 1, r;

	if (fd < 0) {
		/* Loopback is down in a new network namespace. */
		if ((r = net_loopback_up(err, errlen)) < 0)
			return r;
		if (p->capture && (r = hand_over_capture(p, err, errlen)) < 0)
			return r;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
			r = -errno;
			snprintf(err, errlen, "heel-proxy's socket on 127.0.0.1:%u: %s", p->port,
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			return r;
		}
	}
	r = proxyctl_send(p->h.ctl, "listen", NULL, fd);
	/* From here the proxy holds the only copy: when it dies, the port
	 * refuses connections. */
	close(fd);
	p->listen_fd = -1;
	if (r < 0) {
		snprintf(err, errlen, "heel-proxy is gone (%s)", strerror(-r));
		return r;
	}
	return helper_wait_ready(p->h.ctl, "heel-proxy", READY_TIMEOUT_MS, err, errlen);
}

bool
linux_proxy_died(const struct linux_proxy *p)
{
	return p->on && helper_died(&p->h);
}

void
linux_proxy_stop(struct linux_proxy *p)
{
	if (!p->on)
		return;
	if (p->listen_fd >= 0)
		close(p->listen_fd);
	p->listen_fd = -1;
	/* It holds nothing that outlives it: no grace. */
	helper_stop(&p->h, 0);
}

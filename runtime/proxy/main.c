/* SPDX-License-Identifier: MIT
 * heel-proxy: the sandbox's only way out when its policy's network is not
 * `deny`. heel-exec starts it with a control socket as descriptor
 * PROXYCTL_FD (proxyctl.h says what travels on it); it reads its
 * settings, opens the audit sink, starts the decider, takes the listening
 * socket the sandbox's init made inside the sandbox's network namespace,
 * confines itself, says "ready", and serves until heel-exec closes the
 * control socket or dies. Any failure before "ready" is one line
 * ("error=...") that heel-exec prints before refusing to run. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "audit.h"
#include "confine.h"
#include "decider.h"
#include "policy.h"
#include "proxyctl.h"
#include "server.h"

#define MAX_DECIDE_ARGS 64

struct settings {
	char token[2 * PROXYCTL_TOKEN_BYTES + 1];
	struct proxy_policy policy;
	bool have_mode;
	int audit_kind; /* -1 none, else enum proxy_audit_kind */
	int audit_fd;   /* the sink heel-exec opened and checked */
	int refusals_fd; /* --why: each refusal's line, for heel-why; -1 */
	char *decide[MAX_DECIDE_ARGS + 2]; /* program, args, NULL */
	size_t ndecide;
};

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	char line[PROXYCTL_MSG_MAX - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* To whoever waits for "ready"; stderr for a run by hand. */
	proxyctl_report_error(PROXYCTL_FD, "heel-proxy", line);
	_exit(1);
}

static void
read_settings(struct settings *st)
{
	char msg[PROXYCTL_MSG_MAX], err[256];
	const char *v;
	long n;
	int fd;

	st->audit_kind = -1;
	st->audit_fd = -1;
	st->refusals_fd = -1;
	for (;;) {
		n = proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &fd);
		/* heel-exec hung up half-way: it refused the launch (and
		 * said why) or died; a line of ours would only blur that. */
		if (n == 0)
			_exit(1);
		if (n < 0)
			die("the control socket ended before the settings did (%s)",
			    strerror((int)-n));
		if ((v = proxyctl_value(msg, "audit"))) {
			/* The sink heel-exec opened and checked: never a name,
			 * which a sandbox could have redirected. */
			if ((strcmp(v, "file") != 0 && strcmp(v, "daily") != 0) || fd < 0 ||
			    st->audit_fd >= 0)
				die("audit `%.20s`: not one sink, file or daily, with its descriptor",
				    v);
			st->audit_kind = strcmp(v, "file") == 0 ? PROXY_AUDIT_FILE : PROXY_AUDIT_DAILY;
			st->audit_fd = fd;
			continue;
		}
		if (!strcmp(msg, "refusals") && fd >= 0 && st->refusals_fd < 0) {
			st->refusals_fd = fd; /* a memfd heel-exec made: never a name */
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (!strcmp(msg, "end"))
			break;
		if ((v = proxyctl_value(msg, "token"))) {
			if (strlen(v) != 2 * PROXYCTL_TOKEN_BYTES)
				die("token: not %d hex digits", 2 * PROXYCTL_TOKEN_BYTES);
			memcpy(st->token, v, strlen(v) + 1);
		} else if ((v = proxyctl_value(msg, "mode"))) {
			if (!strcmp(v, "allow-all"))
				st->policy.allow_all = true;
			else if (strcmp(v, "allow-list") != 0)
				die("mode `%s`: not allow-all or allow-list", v);
			st->have_mode = true;
		} else if ((v = proxyctl_value(msg, "words"))) {
			if (proxy_policy_set_words(&st->policy, v) < 0)
				die("words `%.40s`: not options, toml FILE or policy [FILE]", v);
		} else if ((v = proxyctl_value(msg, "allow-private"))) {
			st->policy.allow_private = !strcmp(v, "1");
		} else if ((v = proxyctl_value(msg, "allow"))) {
			if (proxy_policy_add(&st->policy, v, err, sizeof(err)) < 0)
				die("%s", err);
		} else if ((v = proxyctl_value(msg, "decide")) ||
			   (v = proxyctl_value(msg, "decide-arg"))) {
			if (st->ndecide >= MAX_DECIDE_ARGS + 1)
				die("the decider has more than %d arguments", MAX_DECIDE_ARGS);
			if (!(st->decide[st->ndecide++] = strdup(v)))
				die("out of memory");
		} else {
			die("unknown setting `%.40s`", msg);
		}
	}
	if (!st->token[0] || !st->have_mode)
		die("the settings lack the token or the mode");
}

int
main(int argc, char **argv)
{
	struct settings st = { 0 };
	struct proxy_server_config cfg = { 0 };
	struct proxy_server *srv;
	struct proxy_confinement got;
	struct proxy_audit *audit = NULL;
	struct proxy_decider *decider = NULL;
	struct rlimit nofile;
	char msg[PROXYCTL_MSG_MAX], err[512];
	pid_t parent = getppid();
	long n;
	int listen_fd, r;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "heel-proxy: started by heel-exec, with no arguments\n");
		return 2;
	}
	/* Dies with heel-exec, which may be SIGKILLed: never a proxy left
	 * serving a sandbox that is gone. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	/* Each tunnel holds two sockets and two pipes. */
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}

	proxy_policy_init(&st.policy);
	read_settings(&st);
	if (st.audit_kind >= 0 &&
	    proxy_audit_open(&audit, (enum proxy_audit_kind)st.audit_kind, st.audit_fd, err,
			     sizeof(err)) < 0)
		die("network audit: %s", err);
	if (st.ndecide &&
	    proxy_decider_start(&decider, st.decide, err, sizeof(err)) < 0)
		die("network decide: %s", err);
	if ((r = proxy_policy_load_own(&st.policy)) < 0)
		die("the host's own addresses: %s", strerror(-r));

	cfg.token = st.token;
	cfg.policy = &st.policy;
	cfg.audit = audit;
	cfg.refusals_fd = st.refusals_fd;
	cfg.decider = decider;
	cfg.stop_fd = PROXYCTL_FD;
	proxy_limits_default(&cfg.limits);
	if (proxy_server_open(&srv, &cfg, err, sizeof(err)) < 0)
		die("%s", err);
	if (proxy_confine(audit ? proxy_audit_dir_fd(audit) : -1, &got, err, sizeof(err)) < 0)
		die("confining itself: %s", err);
	/* The listening socket, from inside the sandbox's namespace: all
	 * of the above overlaps the sandbox's own setup, and only what
	 * follows is waited for. */
	for (;;) {
		const char *kind;

		n = proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &listen_fd);
		if (n <= 0 || listen_fd < 0)
			die("no listening socket came");
		if (!(kind = proxyctl_value(msg, "capture")))
			break;
		/* Capture's sockets come first (server.h). */
		if (proxy_server_capture(srv, kind, listen_fd, err, sizeof(err)) < 0)
			die("%s", err);
	}
	if (strcmp(msg, "listen") != 0)
		die("no listening socket came");
	if (proxy_server_listen(srv, listen_fd, err, sizeof(err)) < 0)
		die("%s", err);
	/* Never silent: a proxy without Landlock is a weaker one. */
	if (!got.landlock_abi)
		fprintf(stderr, "heel-proxy: weakened: this kernel has no Landlock, so heel-proxy's "
				"own file access is not confined (seccomp and dropped capabilities "
				"still are)\n");
	if (proxyctl_send(PROXYCTL_FD, "ready", NULL, -1) < 0)
		return 1;

	r = proxy_server_run(srv, err, sizeof(err));
	proxy_server_close(srv);
	if (decider)
		proxy_decider_stop(decider);
	proxy_audit_close(audit);
	proxy_policy_free(&st.policy);
	if (r < 0) {
		fprintf(stderr, "heel-proxy: %s\n", err);
		return 1;
	}
	return 0;
}

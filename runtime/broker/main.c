/* SPDX-License-Identifier: MIT
 * heel-broker: runs a sandbox's host commands (`ipc` in its policy) on
 * the host. heel-exec starts it with a control socket as descriptor
 * HEEL_BROKER_CTL_FD (runtime/ipc_abi.h; messages as runtime/proxyctl.h
 * sends them): the settings, then from the sandbox's command process the
 * seccomp listener and the working directory; it answers "ready" (or
 * "error=ONE LINE") and serves calls until heel-exec closes the socket
 * or dies. It prints nothing but one line for a fatal start-up error;
 * a call's problems go to its caller. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "audit_sink.h"
#include "broker.h"
#include "proctree.h"
#include "proxyctl.h"

#define HOST_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	char line[PROXYCTL_MSG_MAX - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* To whoever waits for "ready"; stderr for a run by hand. */
	proxyctl_report_error(HEEL_BROKER_CTL_FD, "heel-broker", line);
	_exit(1);
}

/* The host command's environment takes these from heel-exec's, no more. */
static bool
env_allowed(const char *entry)
{
	static const char *const names[] = { "HOME", "USER", "LOGNAME", "LANG",
					     "LC_ALL", "TZ", "TERM" };
	const char *eq = strchr(entry, '=');

	for (size_t i = 0; eq && i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == (size_t)(eq - entry) &&
		    !strncmp(entry, names[i], (size_t)(eq - entry)))
			return true;
	return false;
}

static struct ipc_command *
current(struct broker *b, const char *key)
{
	if (!b->ncmds)
		die("%s before any command", key);
	return &b->cmds[b->ncmds - 1];
}

static void
finish_command(struct broker *b)
{
	char err[256];
	struct ipc_command *c;

	if (!b->ncmds)
		return;
	c = &b->cmds[b->ncmds - 1];
	if (!c->exec || c->exec[0] != '/')
		die("command %s: no absolute exec", c->name);
	if (ipcargs_command_finish(c, err, sizeof(err)) < 0)
		die("%s", err);
}

static void
setting(struct broker *b, const char *msg, int fd, int *audit_fd, int *audit_kind)
{
	char err[256];
	const char *v;
	char *end;
	long ms;

	if ((v = proxyctl_value(msg, "workdir"))) {
		if (v[0] != '/' || !(b->workdir = strdup(v)))
			die("workdir `%.200s`: not an absolute path", v);
	} else if ((v = proxyctl_value(msg, "audit"))) {
		/* The sink heel-exec opened and checked: never a name. */
		if ((strcmp(v, "file") != 0 && strcmp(v, "daily") != 0) || fd < 0 || *audit_fd >= 0)
			die("audit `%.20s`: not one sink, file or daily, with its descriptor", v);
		*audit_fd = fd;
		*audit_kind = strcmp(v, "file") == 0 ? AUDIT_SINK_FILE : AUDIT_SINK_DAILY;
		return;
	} else if ((v = proxyctl_value(msg, "env"))) {
		if (!env_allowed(v))
			die("env `%.40s`: not one the host command may take", v);
		if (b->nenv >= BROKER_ENV_MAX)
			die("more than %d env settings", BROKER_ENV_MAX);
		b->env[b->nenv++] = strdup(v);
	} else if ((v = proxyctl_value(msg, "command"))) {
		finish_command(b);
		if (b->ncmds >= BROKER_COMMANDS_MAX)
			die("more than %d commands", BROKER_COMMANDS_MAX);
		for (size_t i = 0; i < b->ncmds; i++)
			if (!strcmp(b->cmds[i].name, v))
				die("command %s twice", v);
		if (ipcargs_command_init(&b->cmds[b->ncmds++], v, err, sizeof(err)) < 0)
			die("%s", err);
	} else if ((v = proxyctl_value(msg, "exec"))) {
		struct ipc_command *c = current(b, "exec");

		free(c->exec);
		if (v[0] != '/' || !(c->exec = strdup(v)))
			die("command %s: exec `%.200s` is not absolute", c->name, v);
	} else if ((v = proxyctl_value(msg, "timeout-ms"))) {
		struct ipc_command *c = current(b, "timeout-ms");

		errno = 0;
		ms = strtol(v, &end, 10);
		if (errno || end == v || *end || ms <= 0 || ms > 86400000L * 7)
			die("command %s: timeout-ms `%.40s` is out of range", c->name, v);
		c->timeout_ms = ms;
	} else if ((v = proxyctl_value(msg, "positional"))) {
		if (ipcargs_command_add_positional(current(b, "positional"), v, err, sizeof(err)) < 0)
			die("%s", err);
	} else if ((v = proxyctl_value(msg, "arg"))) {
		if (ipcargs_command_add_arg(current(b, "arg"), v, err, sizeof(err)) < 0)
			die("%s", err);
	} else {
		die("unknown setting `%.40s`", msg);
	}
	if (fd >= 0)
		close(fd);
}

static void
read_settings(struct broker *b)
{
	char msg[PROXYCTL_MSG_MAX], err[512];
	int fd, rc, audit_fd = -1, audit_kind = AUDIT_SINK_FILE;
	long n;

	b->env[b->nenv++] = strdup(HOST_PATH);
	for (;;) {
		n = proxyctl_recv(HEEL_BROKER_CTL_FD, msg, sizeof(msg), &fd);
		/* heel-exec hung up half-way: it refused the launch (and
		 * said why) or died; a line of ours would only blur that. */
		if (n == 0)
			_exit(1);
		if (n < 0)
			die("the control socket ended before the settings did (%s)",
			    strerror((int)-n));
		if (!strcmp(msg, "end")) {
			if (fd >= 0)
				close(fd);
			break;
		}
		setting(b, msg, fd, &audit_fd, &audit_kind);
	}
	finish_command(b);
	if (!b->workdir)
		die("the settings lack the workdir");
	if (audit_fd >= 0) {
		rc = audit_sink_adopt(&b->audit, (enum audit_sink_kind)audit_kind, audit_fd, err,
				      sizeof(err));
		if (rc < 0)
			die("network audit: %s", err);
	}
}

/* The listener and the working directory, from inside the sandbox. */
static void
read_descriptors(struct broker *b)
{
	char msg[PROXYCTL_MSG_MAX];
	long n;
	int fd;

	b->listener = b->workdir_fd = -1;
	while (b->listener < 0 || b->workdir_fd < 0) {
		n = proxyctl_recv(HEEL_BROKER_CTL_FD, msg, sizeof(msg), &fd);
		if (n <= 0)
			die("the control socket ended before the listener and the working "
			    "directory came");
		if (fd < 0)
			die("`%.40s` came without its descriptor", msg);
		if (!strcmp(msg, "listen") && b->listener < 0)
			b->listener = fd;
		else if (!strcmp(msg, "workdir-fd") && b->workdir_fd < 0)
			b->workdir_fd = fd;
		else
			die("unexpected `%.40s`", msg);
	}
}

int
main(int argc, char **argv)
{
	static struct broker b;
	sigset_t set;
	int rc;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "heel-broker: started by heel-exec, with no arguments\n");
		return 2;
	}
	/* Ends with heel-exec, even SIGKILLed: SIGTERM comes to the loop,
	 * which kills every call before it exits. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pt_die_with_parent(getppid(), SIGTERM) < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	/* The host commands' orphans come back to us, to be killed. */
	if ((rc = pt_become_subreaper()) < 0)
		die("cannot become a child subreaper: %s", strerror(-rc));
	b.ctl = HEEL_BROKER_CTL_FD;
	if ((b.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    (b.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		die("signalfd or epoll: %s", strerror(errno));
	read_settings(&b);
	read_descriptors(&b);
	if (proxyctl_send(HEEL_BROKER_CTL_FD, "ready", NULL, -1) < 0)
		return 1;
	rc = broker_run(&b);
	audit_sink_close(b.audit);
	return rc < 0 ? 1 : 0;
}

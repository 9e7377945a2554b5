/* SPDX-License-Identifier: MIT
 * One host command call (broker.h): its request checked, the host command
 * started in a session of its own, killed with every descendant, and the
 * audit line once it ended. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit_sink.h"
#include "broker.h"
#include "proctree.h"

#define AUDIT_FIELD_MAX 1024
#define AUDIT_ARGS_MAX 64
#define DESCENDANTS_MAX 4096

/* The child: nothing of the broker's but the two pipes reaches the host
 * command. Only async-signal-safe calls until execve. */
static void __attribute__((noreturn))
child(const struct call *c, char **argv, char **env, int dirfd, int out_w, int err_w, pid_t broker)
{
	sigset_t none;
	int null;

	sigemptyset(&none);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* No controlling terminal: the host command cannot reach the
	 * sandbox's terminal; and its own group, killed as one. */
	setsid();
	/* A broker killed outright leaves no host command running. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != broker)
		_exit(125);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
		_exit(125);
	if (fchdir(dirfd) < 0) {
		dprintf(2, "heel-broker: %s: cannot enter its directory: %s\n", c->cmd->name,
			strerror(errno));
		_exit(125);
	}
	close_range(3, ~0U, 0);
	execve(argv[0], argv, env);
	dprintf(2, "heel-broker: %s: cannot run %s: %s\n", c->cmd->name, argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int
spawn(struct call *c, int dirfd)
{
	struct broker *b = c->b;
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	char cmdenv[IPCARGS_NAME_MAX + 32];
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t pid, self = getpid();

	snprintf(cmdenv, sizeof(cmdenv), "HEEL_IPC_COMMAND=%s", c->cmd->name);
	b->env[b->nenv] = cmdenv;
	b->env[b->nenv + 1] = NULL;
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(err, O_CLOEXEC | O_NONBLOCK) < 0)
		goto fail;
	/* Blocking for the host command: a non-blocking stdout surprises
	 * programs (EAGAIN on write). */
	fcntl(out[1], F_SETFL, 0);
	fcntl(err[1], F_SETFL, 0);
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		child(c, c->argv, b->env, dirfd, out[1], err[1], self);
	b->env[b->nenv] = NULL;
	close(out[1]);
	close(err[1]);
	c->pid = pid;
	c->out = out[0];
	c->err = err[0];
	ev.data.ptr = &c->ref_out;
	epoll_ctl(b->epfd, EPOLL_CTL_ADD, c->out, &ev);
	ev.data.ptr = &c->ref_err;
	epoll_ctl(b->epfd, EPOLL_CTL_ADD, c->err, &ev);
	return 0;
fail:
	b->env[b->nenv] = NULL;
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return -errno;
}

/* Refused before the host command runs: audited and answered. */
static void
refuse(struct call *c, int code, const char *msg)
{
	call_audit(c, msg);
	broker_fail(c, code, msg);
}

int
call_start(struct call *c)
{
	struct broker *b = c->b;
	struct ipc_call_args a;
	char err[1024], usage[8192];
	int rc, dirfd = -1;

	rc = ipc_call_args_parse(&a, c->req.buf, c->req.len, b->cmds, b->ncmds, b->workdir, err,
				 sizeof(err));
	ipc_reqbuf_free(&c->req);
	/* The audit line names what was asked for once the request
	 * decoded, a declared command or not. */
	if (a.code != HEEL_IPC_CODE_INTERNAL && a.q.name)
		c->name = strdup(a.q.name);
	c->cmd = a.cmd;
	if (rc < 0 && a.code != HEEL_IPC_CODE_ARGS) {
		refuse(c, a.code, err);
		ipc_call_args_free(&a);
		return 0;
	}
	if (rc == 0 && a.p.help) {
		if (ipcargs_usage(c->cmd, usage, sizeof(usage)) > 0)
			broker_send(c, IPC_FRAME_OUT, usage, strlen(usage));
		broker_send(c, IPC_FRAME_EXIT, "{\"code\":0}", 10);
		c->state = CALL_CLOSING;
		c->close_after_pending = true;
		c->deadline_ms = broker_now_ms() + HEEL_IPC_REQUEST_TIMEOUT_MS;
		rc = 1;
	} else if (rc == 0) {
		rc = ipcargs_resolve(c->cmd, &a.p, b->workdir_fd, b->workdir, a.q.cwd, &dirfd, err,
				     sizeof(err));
	}
	if (rc == 0 && !(c->argv = ipcargs_argv(c->cmd, &a.p)))
		rc = -ENOMEM, snprintf(err, sizeof(err), "out of memory");
	ipc_call_args_free(&a);
	if (rc < 0) {
		refuse(c, HEEL_IPC_CODE_ARGS, err);
		return 0;
	}
	if (rc > 0)
		return 0;
	rc = spawn(c, dirfd);
	close(dirfd);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot start %s: %s", c->cmd->exec, strerror(-rc));
		refuse(c, HEEL_IPC_CODE_INTERNAL, err);
		return 0;
	}
	c->state = CALL_RUNNING;
	c->started_ms = broker_now_ms();
	c->deadline_ms = c->started_ms + c->cmd->timeout_ms;
	return 0;
}

/* ---------------------------------------------------------------- killing */

/* Kills pid and, depth first, every descendant /proc lists: a process
 * with SIGKILL pending forks no more, and the children of one that dies
 * meanwhile come to us, the subreaper, for call_sweep_orphans(). */
static void
kill_descendants(pid_t pid, int depth)
{
	char path[64], buf[4096];
	pid_t kids[512];
	struct dirent *e;
	DIR *d;

	kill(pid, SIGKILL);
	if (depth > 64)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		ssize_t len;
		size_t n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		n = pt_parse_pids(buf, (size_t)len, (size_t)len == sizeof(buf) - 1, kids,
				  sizeof(kids) / sizeof(kids[0]));
		for (size_t i = 0; i < n; i++)
			kill_descendants(kids[i], depth + 1);
	}
	closedir(d);
}

void
call_kill(struct call *c)
{
	/* Once reaped, its pid may be another's: the group was killed
	 * while the zombie held it (broker.c's reap). */
	if (c->pid <= 0 || c->reaped)
		return;
	/* The host command is its session's and group's leader: until it
	 * is reaped (which happens only after this), its pid names no
	 * other group. */
	kill(-c->pid, SIGKILL);
	if (!c->reaped)
		kill_descendants(c->pid, 0);
}

/* The session of pid, or -1. */
static pid_t
session_of(pid_t pid)
{
	char path[64], buf[1024], *rp;
	int fd, sid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session": comm may hold anything. */
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %*c %*d %*d %d", &sid) != 1)
		return -1;
	return sid;
}

void
call_sweep_orphans(struct broker *b)
{
	char path[64], buf[8192];
	pid_t kids[1024];
	ssize_t len;
	size_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return;
	n = pt_parse_pids(buf, (size_t)len, (size_t)len == sizeof(buf) - 1, kids,
			  sizeof(kids) / sizeof(kids[0]));
	for (size_t i = 0; i < n; i++) {
		pid_t sid = session_of(kids[i]);
		bool keep = false;

		for (size_t j = 0; j < b->ncalls; j++) {
			const struct call *c = b->calls[j];

			if (c->pid > 0 && !c->reaped && c->state == CALL_RUNNING &&
			    (c->pid == kids[i] || c->pid == sid))
				keep = true;
		}
		if (!keep)
			kill_descendants(kids[i], 0);
	}
}

/* ---------------------------------------------------------------- audit */

/* s cut to AUDIT_FIELD_MAX bytes on a UTF-8 boundary (the request was
 * valid UTF-8: jansson checked it), "..." marking the cut. */
static json_t *
cut_text(const char *s)
{
	size_t n = strlen(s);
	char buf[AUDIT_FIELD_MAX + 1];

	if (n <= AUDIT_FIELD_MAX)
		return json_string(s);
	n = AUDIT_FIELD_MAX - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	memcpy(buf + n, "...", 4);
	return json_string(buf);
}

void
call_audit(struct call *c, const char *refused)
{
	struct timespec now;
	struct tm tm;
	char ts[80];
	json_t *line, *args;
	char *text;
	size_t len;

	if (!c->b->audit || !c->name)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (!gmtime_r(&now.tv_sec, &tm))
		return;
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(now.tv_nsec / 1000000L));
	args = json_array();
	for (size_t i = 1; c->argv && c->argv[i] && i <= AUDIT_ARGS_MAX; i++)
		json_array_append_new(args, cut_text(c->argv[i]));
	line = json_pack("{s:s, s:o, s:o}", "timestamp", ts, "ipc", cut_text(c->name), "args", args);
	if (!line)
		return;
	if (refused)
		json_object_set_new(line, "refused", cut_text(refused));
	else if (WIFSIGNALED(c->status))
		json_object_set_new(line, "signal", json_integer(WTERMSIG(c->status)));
	else
		json_object_set_new(line, "exit", json_integer(WEXITSTATUS(c->status)));
	json_object_set_new(line, "duration_ms",
			    json_integer(c->started_ms ? broker_now_ms() - c->started_ms : 0));
	text = json_dumps(line, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(line);
	if (!text)
		return;
	len = strlen(text);
	text[len] = '\n';
	/* The line's one write (audit_sink.h); a failure has no one to
	 * tell: the call has ended. */
	audit_sink_append(c->b->audit, now.tv_sec, text, len + 1);
	free(text);
}

void
call_free(struct call *c)
{
	ipc_reqbuf_free(&c->req);
	ipcargs_argv_free(c->argv);
	free(c->name);
	while (c->pending) {
		struct frame *f = c->pending;

		c->pending = f->next;
		free(f);
	}
	free(c);
}

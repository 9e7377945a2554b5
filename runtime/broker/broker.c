/* SPDX-License-Identifier: MIT
 * heel-broker's loop (broker.h): one epoll over the control socket, the
 * seccomp listener, a signalfd (SIGCHLD, SIGTERM), every call's channel
 * and its host command's output pipes; deadlines by the epoll timeout.
 * Never blocks on a caller: a channel with no room keeps its frame and
 * stops reading the host command's output until it drains. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "broker.h"
#include "proctree.h"

/* After the host command ended and its tree was killed, its pipes get
 * this long to reach their end. */
#define DRAIN_MS 1000
/* The last frames get this long to leave. */
#define CLOSE_MS 10000

long long
broker_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
ep_add(struct broker *b, int fd, uint32_t events, struct ep_ref *ref)
{
	struct epoll_event ev = { .events = events, .data.ptr = ref };

	epoll_ctl(b->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void
close_pipe(struct call *c, int *fd)
{
	if (*fd < 0)
		return;
	if (!c->pipes_paused)
		epoll_ctl(c->b->epfd, EPOLL_CTL_DEL, *fd, NULL);
	close(*fd);
	*fd = -1;
}

/* The output pipes out of epoll while a frame waits, back once it left. */
static void
pause_pipes(struct call *c, bool pause)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (c->pipes_paused == pause)
		return;
	c->pipes_paused = pause;
	if (c->out >= 0) {
		ev.data.ptr = &c->ref_out;
		epoll_ctl(c->b->epfd, pause ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, c->out, &ev);
	}
	if (c->err >= 0) {
		ev.data.ptr = &c->ref_err;
		epoll_ctl(c->b->epfd, pause ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, c->err, &ev);
	}
	ev.events = EPOLLIN | (pause ? EPOLLOUT : 0);
	ev.data.ptr = &c->ref_chan;
	epoll_ctl(c->b->epfd, EPOLL_CTL_MOD, c->chan, &ev);
}

static void
remove_call(struct call *c)
{
	struct broker *b = c->b;

	close_pipe(c, &c->out);
	close_pipe(c, &c->err);
	if (c->chan >= 0) {
		char sink;
		int budget = 4096;

		epoll_ctl(b->epfd, EPOLL_CTL_DEL, c->chan, NULL);
		/* A socket closed with unread frames resets its peer
		 * (ECONNRESET), which the caller then reads before the
		 * frames we sent it: drop what it sent first. The queue is
		 * bounded by the socket's buffer. */
		while (budget-- > 0 && recv(c->chan, &sink, 1, MSG_DONTWAIT | MSG_TRUNC) > 0)
			;
		close(c->chan);
	}
	c->chan = -1;
	for (size_t i = 0; i < b->ncalls; i++) {
		if (b->calls[i] == c) {
			b->calls[i] = b->calls[--b->ncalls];
			break;
		}
	}
	/* Freed after the batch of events, which may still name it. */
	c->dead = true;
	c->next_dead = b->dead;
	b->dead = c;
}

static void
bury(struct broker *b)
{
	while (b->dead) {
		struct call *c = b->dead;

		b->dead = c->next_dead;
		call_free(c);
	}
}

/* A call whose last frame left is done with. */
static void
settle(struct call *c)
{
	if (!c->dead && c->close_after_pending && !c->pending)
		remove_call(c);
}

/* The caller went away, or the channel broke: no one to answer. */
static void
abandon(struct call *c, const char *why)
{
	struct broker *b = c->b;

	if (c->state == CALL_RUNNING || c->state == CALL_DRAINING) {
		call_kill(c);
		call_audit(c, why);
	}
	remove_call(c);
	call_sweep_orphans(b);
}

int
broker_send(struct call *c, int type, const void *payload, size_t len)
{
	struct frame *f, **tail;
	ssize_t w = -1;

	if (c->chan < 0)
		return -EPIPE;
	if (!(f = malloc(sizeof(*f) + len + 1)))
		return -ENOMEM;
	f->next = NULL;
	f->len = len + 1;
	f->data[0] = (unsigned char)type;
	memcpy(f->data + 1, payload, len);
	if (!c->pending) {
		do
			w = send(c->chan, f->data, f->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		while (w < 0 && errno == EINTR);
		if (w >= 0) {
			free(f);
			return 0;
		}
		if (errno != EAGAIN) {
			free(f);
			return -errno;
		}
	}
	/* Behind the frames already waiting, in order. */
	for (tail = &c->pending; *tail; tail = &(*tail)->next)
		;
	*tail = f;
	pause_pipes(c, true);
	return 0;
}

/* The channel has room again. */
static int
flush_pending(struct call *c)
{
	while (c->pending) {
		struct frame *f = c->pending;
		ssize_t w = send(c->chan, f->data, f->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		c->pending = f->next;
		free(f);
	}
	pause_pipes(c, false);
	return 0;
}

static void
send_json(struct call *c, int type, json_t *j)
{
	char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (text)
		broker_send(c, type, text, strlen(text));
	free(text);
	json_decref(j);
}

void
broker_fail(struct call *c, int code, const char *message)
{
	send_json(c, IPC_FRAME_FAIL, json_pack("{s:s, s:i}", "message", message, "code", code));
	c->state = CALL_CLOSING;
	c->close_after_pending = true;
	c->deadline_ms = broker_now_ms() + CLOSE_MS;
}

/* The end of a call whose pipes are drained: EXIT, or the FAIL that
 * stopped it. */
static void
finish(struct call *c)
{
	if (c->fail_code) {
		call_audit(c, c->fail_msg);
		broker_fail(c, c->fail_code, c->fail_msg);
		settle(c);
		return;
	}
	call_audit(c, NULL);
	if (WIFSIGNALED(c->status))
		send_json(c, IPC_FRAME_EXIT, json_pack("{s:i}", "signal", WTERMSIG(c->status)));
	else
		send_json(c, IPC_FRAME_EXIT, json_pack("{s:i}", "code", WEXITSTATUS(c->status)));
	c->state = CALL_CLOSING;
	c->close_after_pending = true;
	c->deadline_ms = broker_now_ms() + CLOSE_MS;
	settle(c);
}

/* Stops a running call for heel's reason (timeout, output cap): killed,
 * its pipes read to their end, then FAIL. */
static void
stop_call(struct call *c, int code, const char *msg)
{
	if (!c->fail_code) {
		c->fail_code = code;
		snprintf(c->fail_msg, sizeof(c->fail_msg), "%s", msg);
	}
	call_kill(c);
	if (c->state == CALL_RUNNING) {
		c->state = CALL_DRAINING;
		c->deadline_ms = broker_now_ms() + DRAIN_MS;
	}
}

static void
maybe_finish(struct call *c)
{
	if (c->state == CALL_DRAINING && c->reaped && c->out < 0 && c->err < 0)
		finish(c);
}

static void
on_pipe(struct call *c, int *fd, int type)
{
	unsigned char buf[HEEL_IPC_FRAME_MAX - 1];
	ssize_t n;
	char msg[128];

	if (c->pending)
		return; /* paused: this event came in the same batch */
	n = read(*fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close_pipe(c, fd);
		maybe_finish(c);
		return;
	}
	if (c->fail_code)
		return; /* stopped: what is left is dropped */
	if ((size_t)n > HEEL_IPC_OUTPUT_MAX - c->output) {
		snprintf(msg, sizeof(msg), "output exceeded %d MiB (stdout and stderr together)",
			 HEEL_IPC_OUTPUT_MAX >> 20);
		n = (ssize_t)(HEEL_IPC_OUTPUT_MAX - c->output);
		if (n > 0)
			broker_send(c, type, buf, (size_t)n);
		c->output = HEEL_IPC_OUTPUT_MAX;
		stop_call(c, HEEL_IPC_CODE_OUTPUT, msg);
		return;
	}
	c->output += (size_t)n;
	broker_send(c, type, buf, (size_t)n);
}

/* A frame from the caller. */
static void
on_chan(struct call *c, uint32_t events)
{
	unsigned char frame[HEEL_IPC_FRAME_MAX + 1];
	struct iovec iov = { .iov_base = frame, .iov_len = sizeof(frame) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	char err[256];
	ssize_t n;
	int rc;

	if ((events & EPOLLOUT) && flush_pending(c) < 0) {
		abandon(c, "the caller's channel broke");
		return;
	}
	settle(c);
	if (c->dead)
		return;
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	/* No control buffer: descriptors the sandbox sends are closed by
	 * the kernel (MSG_CTRUNC), never ours. */
	n = recvmsg(c->chan, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		abandon(c, "the caller closed its channel");
		return;
	}
	if (c->state != CALL_READING) {
		if (c->state == CALL_CLOSING)
			return;
		stop_call(c, HEEL_IPC_CODE_INTERNAL, "an unexpected frame while the call runs");
		return;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		broker_fail(c, HEEL_IPC_CODE_INTERNAL, "descriptors sent on the channel are refused");
		settle(c);
		return;
	}
	rc = ipc_reqbuf_feed(&c->req, frame, (size_t)n,
			     (mh.msg_flags & MSG_TRUNC) || n > HEEL_IPC_FRAME_MAX, err, sizeof(err));
	if (rc < 0)
		broker_fail(c, HEEL_IPC_CODE_INTERNAL, err);
	else if (rc > 0)
		call_start(c);
	settle(c);
}

/* A notification: the caller's ioctl. Its channel is made and installed
 * in the caller, or the ioctl fails with EAGAIN past the limit. */
static void
on_notification(struct broker *b)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct seccomp_notif_addfd addfd;
	struct call *c;
	int sv[2], r;

	memset(&req, 0, sizeof(req));
	if (ioctl(b->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return; /* ENOENT: the caller died meanwhile */
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	if ((req.data.args[0] & 0xffffffffu) != HEEL_IPC_IOCTL_FD ||
	    (req.data.args[1] & 0xffffffffu) != HEEL_IPC_IOCTL) {
		resp.error = -ENOTTY;
		ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	if (b->ncalls >= HEEL_IPC_MAX_CALLS || !(c = calloc(1, sizeof(*c)))) {
		resp.error = -EAGAIN;
		ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		free(c);
		resp.error = -EAGAIN;
		ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	memset(&addfd, 0, sizeof(addfd));
	addfd.id = req.id;
	addfd.srcfd = (unsigned)sv[1];
	addfd.newfd_flags = O_CLOEXEC;
	addfd.flags = b->addfd_send_unsupported ? 0 : SECCOMP_ADDFD_FLAG_SEND;
	r = ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
	if (r < 0 && errno == EINVAL && !b->addfd_send_unsupported) {
		/* Before Linux 5.14 (commit 0ae71c7720e3): install, then
		 * answer with the descriptor's number, in two steps. */
		b->addfd_send_unsupported = true;
		addfd.flags = 0;
		r = ioctl(b->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
	}
	if (r >= 0 && b->addfd_send_unsupported) {
		resp.val = r;
		if (ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
			r = -1;
	}
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		free(c);
		return; /* the caller is gone */
	}
	c->b = b;
	c->chan = sv[0];
	c->out = c->err = -1;
	c->ref_chan = (struct ep_ref){ EP_CHAN, c };
	c->ref_out = (struct ep_ref){ EP_OUT, c };
	c->ref_err = (struct ep_ref){ EP_ERR, c };
	c->state = CALL_READING;
	c->deadline_ms = broker_now_ms() + HEEL_IPC_REQUEST_TIMEOUT_MS;
	b->calls[b->ncalls++] = c;
	ep_add(b, c->chan, EPOLLIN, &c->ref_chan);
}

/* Reaps every child that ended; the host commands' statuses go to their
 * calls, the rest were orphans. */
static void
reap(struct broker *b)
{
	for (;;) {
		siginfo_t si;
		int status;
		pid_t pid;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid <= 0)
			break;
		pid = si.si_pid;
		for (size_t i = 0; i < b->ncalls; i++) {
			struct call *c = b->calls[i];

			if (c->pid != pid || c->reaped)
				continue;
			/* What it left in its group, while the zombie still
			 * holds the group's number. */
			call_kill(c);
		}
		if (waitpid(pid, &status, __WALL) != pid)
			break;
		for (size_t i = 0; i < b->ncalls; i++) {
			struct call *c = b->calls[i];

			if (c->pid != pid || c->reaped)
				continue;
			c->status = status;
			c->reaped = true;
			if (c->state == CALL_RUNNING) {
				c->state = CALL_DRAINING;
				c->deadline_ms = broker_now_ms() + DRAIN_MS;
			}
			maybe_finish(c);
			break;
		}
	}
	call_sweep_orphans(b);
}

static void
on_deadline(struct call *c)
{
	char msg[128];

	switch (c->state) {
	case CALL_READING:
		/* A channel that sends no complete request in time. */
		remove_call(c);
		break;
	case CALL_RUNNING:
		if (c->cmd->timeout_ms % 1000)
			snprintf(msg, sizeof(msg), "timed out after %ldms", c->cmd->timeout_ms);
		else
			snprintf(msg, sizeof(msg), "timed out after %lds", c->cmd->timeout_ms / 1000);
		stop_call(c, HEEL_IPC_CODE_TIMEOUT, msg);
		break;
	case CALL_DRAINING:
		/* Something outside our reach holds a pipe: the output ends
		 * here. The host command itself is reaped by then, or is
		 * killed again. */
		call_kill(c);
		close_pipe(c, &c->out);
		close_pipe(c, &c->err);
		if (c->reaped)
			finish(c);
		else
			c->deadline_ms = broker_now_ms() + DRAIN_MS;
		break;
	case CALL_CLOSING:
		remove_call(c);
		break;
	}
}

static int
next_timeout(struct broker *b)
{
	long long now = broker_now_ms(), first = -1;

	for (size_t i = 0; i < b->ncalls; i++)
		if (first < 0 || b->calls[i]->deadline_ms < first)
			first = b->calls[i]->deadline_ms;
	if (first < 0)
		return -1;
	return first <= now ? 0 : (int)(first - now > 60000 ? 60000 : first - now);
}

static void
sweep_deadlines(struct broker *b)
{
	long long now = broker_now_ms();

	/* Backwards: on_deadline may remove the call (swapping the last
	 * one into its place). */
	for (size_t i = b->ncalls; i-- > 0;)
		if (i < b->ncalls && b->calls[i]->deadline_ms <= now)
			on_deadline(b->calls[i]);
}

/* The end: every call killed, every process reaped. */
static void
shut_down(struct broker *b)
{
	for (size_t i = 0; i < b->ncalls; i++)
		call_kill(b->calls[i]);
	pt_kill_tree(0);
	while (b->ncalls)
		remove_call(b->calls[b->ncalls - 1]);
	bury(b);
}

/* SIGCHLD: reap; SIGTERM (heel-exec died: PR_SET_PDEATHSIG): the end. */
static bool
on_signals(struct broker *b)
{
	struct signalfd_siginfo si;

	while (read(b->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGTERM) {
			shut_down(b);
			return true;
		}
	}
	reap(b);
	return false;
}

int
broker_run(struct broker *b)
{
	struct epoll_event evs[64];

	b->ref_ctl = (struct ep_ref){ EP_CTL, NULL };
	b->ref_listener = (struct ep_ref){ EP_LISTENER, NULL };
	b->ref_signal = (struct ep_ref){ EP_SIGNAL, NULL };
	ep_add(b, b->ctl, EPOLLIN, &b->ref_ctl);
	ep_add(b, b->listener, EPOLLIN, &b->ref_listener);
	ep_add(b, b->sigfd, EPOLLIN, &b->ref_signal);
	for (;;) {
		int n = epoll_wait(b->epfd, evs, 64, next_timeout(b));

		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n; i++) {
			struct ep_ref *ref = evs[i].data.ptr;

			if (ref->call && ref->call->dead)
				continue; /* removed earlier in this batch */
			switch (ref->kind) {
			case EP_CTL:
				/* heel-exec sends nothing more: readable is its
				 * end closing (or a stray message: the same). */
				shut_down(b);
				return 0;
			case EP_LISTENER:
				if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
					/* The sandbox is gone; the running calls
					 * still end as they would. */
					epoll_ctl(b->epfd, EPOLL_CTL_DEL, b->listener, NULL);
					break;
				}
				on_notification(b);
				break;
			case EP_SIGNAL:
				if (on_signals(b))
					return 0;
				break;
			case EP_CHAN:
				on_chan(ref->call, evs[i].events);
				break;
			case EP_OUT:
				on_pipe(ref->call, &ref->call->out, IPC_FRAME_OUT);
				break;
			case EP_ERR:
				on_pipe(ref->call, &ref->call->err, IPC_FRAME_ERR);
				break;
			}
		}
		sweep_deadlines(b);
		bury(b);
	}
}

/* SPDX-License-Identifier: MIT
 * heel_run_capture: a spawn with its output on pipes, read until both
 * close and heel-exec has ended, each stream kept up to a cap (the rest
 * is read and dropped, so the command never blocks on a full pipe), with
 * a deadline after which the sandbox is ended as heel_child_free ends
 * it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libheel_int.h"

/* After heel-exec has ended, how long a pipe may stay open: nothing of
 * the sandbox outlives heel-exec, so this only bounds a surprise. */
#define DRAIN_MS 2000
/* After the deadline, SIGTERM; SIGKILL this much later (see spawn.c). */
#define KILL_GRACE_MS 5000

struct stream {
	int fd; /* read end, -1 once closed */
	char *buf;
	size_t len, cap; /* cap: bytes allocated */
	size_t max;
	int truncated;
};

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads what is there. 0, or -ENOMEM. */
static int
take(struct stream *s)
{
	char chunk[16384];
	ssize_t n = read(s->fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	size_t keep = s->len < s->max ? s->max - s->len : 0;

	if ((size_t)n > keep)
		s->truncated = 1;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (keep && s->len + keep + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *b;

		while (cap < s->len + keep + 1)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, chunk, keep);
	s->len += keep;
	return 0;
}

static char *
finish(struct stream *s)
{
	char *b = s->buf ? s->buf : malloc(1);

	if (b)
		b[s->len] = '\0';
	s->buf = NULL;
	return b;
}

void
heel_capture_free(struct heel_capture *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	*res = (struct heel_capture){0};
}

int
heel_run_capture(const heel_policy *p, const char *const *argv, const struct heel_spawn_opts *o,
		 size_t max_bytes, int timeout_ms, struct heel_capture *res, heel_error *err)
{
	struct heel_spawn_opts opts;
	heel_error local;
	struct stream st[2] = {{.fd = -1, .max = max_bytes}, {.fd = -1, .max = max_bytes}};
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, rc = 0;
	long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1, drain_until = -1;
	long long kill_at = -1;
	heel_child *c;
	bool ended = false;

	if (!err)
		err = &local; /* heel_spawn's code is needed below */
	if (!res)
		return lh_fail(err, -EINVAL, "heel_run_capture: no result");
	*res = (struct heel_capture){0};
	rc = lh_opts_read(o, &opts, err);
	if (rc)
		return rc;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		rc = lh_fail(err, -errno, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	opts.stdout_fd = out[1];
	opts.stderr_fd = errp[1];
	c = heel_spawn(p, argv, &opts, err);
	close(out[1]);
	close(errp[1]);
	out[1] = errp[1] = -1;
	if (!c) {
		rc = err->code;
		goto out;
	}
	st[0].fd = out[0];
	st[1].fd = errp[0];
	out[0] = errp[0] = -1;
	fcntl(st[0].fd, F_SETFL, O_NONBLOCK);
	fcntl(st[1].fd, F_SETFL, O_NONBLOCK);
	while (st[0].fd >= 0 || st[1].fd >= 0 || !ended) {
		struct pollfd pfd[3];
		long long t = now_ms(), wake = -1;
		int n = 0, r;

		if (!ended && deadline >= 0 && t >= deadline && kill_at < 0) {
			res->timed_out = 1;
			heel_child_kill(c, SIGTERM, NULL);
			heel_child_kill(c, SIGCONT, NULL);
			kill_at = t + KILL_GRACE_MS;
		}
		if (!ended && kill_at >= 0 && t >= kill_at) {
			heel_child_kill(c, SIGKILL, NULL);
			kill_at = LLONG_MAX;
		}
		if (ended && drain_until >= 0 && t >= drain_until)
			break;
		for (int i = 0; i < 2; i++)
			if (st[i].fd >= 0)
				pfd[n++] = (struct pollfd){.fd = st[i].fd, .events = POLLIN};
		if (!ended)
			pfd[n++] = (struct pollfd){.fd = heel_child_pidfd(c), .events = POLLIN};
		if (!ended && kill_at < 0 && deadline >= 0)
			wake = deadline;
		if (!ended && kill_at >= 0 && kill_at != LLONG_MAX)
			wake = kill_at;
		if (ended)
			wake = drain_until;
		r = poll(pfd, (nfds_t)n, wake < 0 ? -1 : wake - t < 0 ? 0 : (int)(wake - t));
		if (r < 0 && errno != EINTR) {
			rc = lh_fail(err, -errno, "heel_run_capture: poll: %s", strerror(errno));
			break;
		}
		for (int i = 0; r > 0 && i < 2; i++) {
			if (st[i].fd < 0)
				continue;
			for (int k = 0; k < n; k++) {
				if (pfd[k].fd == st[i].fd && pfd[k].revents) {
					if (take(&st[i]) < 0) {
						rc = lh_fail(err, -ENOMEM, "out of memory");
						goto stop;
					}
				}
			}
		}
		if (!ended && heel_child_wait(c, 0, &res->status, NULL) == 0) {
			ended = true;
			drain_until = now_ms() + DRAIN_MS;
		}
	}
stop:
	heel_child_free(c);
	if (!rc) {
		res->out = finish(&st[0]);
		res->err = finish(&st[1]);
		if (!res->out || !res->err)
			rc = lh_fail(err, -ENOMEM, "out of memory");
		res->out_len = st[0].len;
		res->err_len = st[1].len;
		res->out_truncated = st[0].truncated;
		res->err_truncated = st[1].truncated;
	}
	if (rc)
		heel_capture_free(res);
	else
		lh_ok(err);
out:
	for (int i = 0; i < 2; i++) {
		if (st[i].fd >= 0)
			close(st[i].fd);
		free(st[i].buf);
	}
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return rc;
}

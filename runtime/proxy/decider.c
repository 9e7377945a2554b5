/* SPDX-License-Identifier: MIT
 * The network decider's client: the program started, questions written
 * and answers read without blocking, its death a refusal; see
 * decider.h. */
#include "decider.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "proctree.h"

/* A question is a host name (at most 253 bytes of canonical text), a port,
 * a method and a flag: this leaves room to spare. */
#define QUESTION_MAX 1024
/* Room for the pending questions of ordinary length; a question that
 * does not fit waits for nothing and is refused. */
#define OUT_MAX (PROXY_DECIDER_PENDING_MAX * 512)

struct question {
	uint64_t token;
	long long asked_ms;
};

enum death_cause { DEATH_EOF, DEATH_WRITE };

struct proxy_decider {
	pid_t pid; /* also its process group */
	int rfd;   /* its stdout; -1 once dead */
	int wfd;   /* its stdin; -1 once dead */
	long long timeout_ms;
	bool dead;
	int status; /* its wait status, once reaped */
	bool write_failed;
	long long write_failed_ms;
	char why[192]; /* how it died; also what ask reports */

	struct question ring[PROXY_DECIDER_PENDING_MAX];
	size_t head, npending;

	char in[PROXY_DECIDER_LINE_MAX + 1]; /* a whole line and its newline */
	size_t inlen;
	char reason[PROXY_DECIDER_LINE_MAX + 1];

	char out[OUT_MAX];
	size_t outoff, outlen;
};

/* ---------------------------------------------------------------- start */

/* In the child, between fork and exec: everything here must leave the
 * proxy's state alone. Reports errno through st and exits on failure. */
static _Noreturn void
child_exec(pid_t parent, int qr, int aw, int st, bool stderr_is_ours, char *const argv[],
	   char *const envp[])
{
	extern char **environ;
	sigset_t none;
	int in, out, e;

	/* Ignored signals stay ignored across execve(2) and the mask is
	 * inherited: the proxy ignores SIGPIPE and may block what it reads
	 * through a signalfd, and the decider must get neither. Every signal
	 * is blocked until then (spawn()), so no handler of the proxy's runs
	 * in this copy of it. */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setpgid(0, 0) < 0)
		goto fail;
	e = pt_die_with_parent(parent, SIGKILL);
	if (e < 0) {
		errno = -e;
		goto fail;
	}
	/* Above the standard descriptors first: a proxy started with one
	 * of them closed got a pipe there. */
	in = fcntl(qr, F_DUPFD_CLOEXEC, 3);
	out = fcntl(aw, F_DUPFD_CLOEXEC, 3);
	st = fcntl(st, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || st < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0)
		goto fail;
	if (stderr_is_ours) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 2) < 0)
			goto fail;
	}
	/* Every other descriptor is closed: the proxy's listening socket and
	 * its clients' connections are not the decider's to touch. st closes
	 * itself at exec (CLOEXEC), which tells the parent exec worked. */
	if ((st > 3 && close_range(3, (unsigned)st - 1, 0) < 0) ||
	    close_range((unsigned)st + 1, ~0U, 0) < 0) {
		struct rlimit rl;

		if (errno != ENOSYS)
			goto fail;
		getrlimit(RLIMIT_NOFILE, &rl);
		for (rlim_t fd = 3; fd < rl.rlim_cur && fd < 1u << 20; fd++)
			if ((int)fd != st)
				close((int)fd);
	}
	/* execvpe(3) looks the name up in the calling process's PATH: the
	 * decider's own, then. */
	environ = (char **)envp;
	execvpe(argv[0], argv, (char **)envp);
fail:
	e = errno;
	if (write(st, &e, sizeof(e)) < 0) {
		/* Nothing left to tell it with: the parent sees exit 127. */
	}
	_exit(127);
}

static void
reap(struct proxy_decider *d)
{
	pid_t r;

	do
		r = waitpid(d->pid, &d->status, 0);
	while (r < 0 && errno == EINTR);
	/* ECHILD: SIGCHLD was ignored after all, and the kernel reaped it. */
	if (r < 0)
		d->status = 0;
}

static char *
env_entry(const char *name)
{
	const char *v = getenv(name);
	char *s;

	if (!v)
		return NULL;
	if (asprintf(&s, "%s=%s", name, v) < 0)
		return NULL;
	return s;
}

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static int
spawn(struct proxy_decider *d, char *const argv[], char *const envp[], char *err, size_t errlen)
{
	int q[2] = { -1, -1 }, a[2] = { -1, -1 }, st[2] = { -1, -1 };
	pid_t parent = getpid();
	sigset_t all, old;
	bool stderr_is_ours;
	ssize_t n;
	int rc, e;

	/* The pipes are made blocking and only the proxy's ends are switched
	 * to O_NONBLOCK: the flag belongs to each end's open file, and the
	 * decider's stdin and stdout must block as any program expects. */
	if (pipe2(q, O_CLOEXEC) < 0 || pipe2(a, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
		rc = rt_error(err, errlen, -errno, "cannot make pipes for the network decider: %s",
			      strerror(errno));
		goto out;
	}
	stderr_is_ours = q[0] == 2 || q[1] == 2 || a[0] == 2 || a[1] == 2 || st[0] == 2 ||
			 st[1] == 2;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	d->pid = fork();
	e = errno;
	if (d->pid != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (d->pid < 0) {
		rc = rt_error(err, errlen, -e, "cannot start the network decider: fork: %s",
			      strerror(e));
		goto out;
	}
	if (d->pid == 0)
		child_exec(parent, q[0], a[1], st[1], stderr_is_ours, argv, envp);
	/* Also here, so the group exists before any kill(-pid) of ours;
	 * EACCES once the child has executed, which did it already. */
	setpgid(d->pid, d->pid);
	close(st[1]);
	st[1] = -1;
	do
		n = read(st[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		reap(d);
		rc = rt_error(err, errlen, -e, "cannot run the network decider %s: %s", argv[0],
			      strerror(e));
		goto out;
	}
	rc = set_nonblock(q[1]);
	if (rc == 0)
		rc = set_nonblock(a[0]);
	if (rc < 0) {
		kill(-d->pid, SIGKILL);
		reap(d);
		rt_error(err, errlen, rc, "cannot set up the network decider's pipes: %s",
			 strerror(-rc));
		goto out;
	}
	d->wfd = q[1];
	d->rfd = a[0];
	q[1] = a[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		if (q[i] >= 0)
			close(q[i]);
		if (a[i] >= 0)
			close(a[i]);
		if (st[i] >= 0)
			close(st[i]);
	}
	return rc;
}

int
proxy_decider_start(struct proxy_decider **out, char *const argv[], char *err, size_t errlen)
{
	struct proxy_decider *d;
	char *envp[4] = { NULL };
	size_t ne = 0;
	int rc;

	*out = NULL;
	if (!argv || !argv[0] || !argv[0][0])
		return rt_error(err, errlen, -EINVAL, "the network decider has no program");
	d = calloc(1, sizeof(*d));
	if (!d)
		return rt_error(err, errlen, -ENOMEM, "out of memory for the network decider");
	d->rfd = d->wfd = -1;
	d->timeout_ms = PROXY_DECIDER_TIMEOUT_MS;
	envp[ne++] = strdup("PATH=/usr/bin:/bin");
	if ((envp[ne] = env_entry("HOME")))
		ne++;
	if ((envp[ne] = env_entry("LANG")))
		ne++;
	if (!envp[0])
		rc = rt_error(err, errlen, -ENOMEM, "out of memory for the network decider");
	else
		rc = spawn(d, argv, envp, err, errlen);
	for (size_t i = 0; i < ne; i++)
		free(envp[i]);
	if (rc < 0) {
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void
proxy_decider_set_timeout(struct proxy_decider *d, long long ms)
{
	d->timeout_ms = ms;
}

int
proxy_decider_read_fd(const struct proxy_decider *d)
{
	return d->rfd;
}

int
proxy_decider_write_fd(const struct proxy_decider *d)
{
	return d->wfd;
}

pid_t
proxy_decider_pid(const struct proxy_decider *d)
{
	return d->pid;
}

const char *
proxy_decider_dead_reason(const struct proxy_decider *d)
{
	return d->dead ? d->why : NULL;
}

bool
proxy_decider_wants_write(const struct proxy_decider *d)
{
	/* After a failed write, nothing more goes out: expire() ends it. */
	return !d->dead && !d->write_failed && d->outoff < d->outlen;
}

long long
proxy_decider_next_deadline(const struct proxy_decider *d)
{
	if (d->dead)
		return -1;
	if (d->write_failed)
		return d->write_failed_ms;
	if (!d->npending)
		return -1;
	return d->ring[d->head].asked_ms + d->timeout_ms;
}

/* ---------------------------------------------------------------- death */

/* Kills the decider's group and reaps it; the group is killed before the
 * reap, while the zombie still holds the number, so the signal cannot
 * reach a group that took the number since. */
static void
kill_and_reap(struct proxy_decider *d)
{
	kill(-d->pid, SIGKILL);
	reap(d);
	close(d->rfd);
	close(d->wfd);
	d->rfd = d->wfd = -1;
	d->dead = true;
}

/* Every pending question refused with d->why. Each is taken off the ring
 * before its callback, which may ask again (and is refused at once). */
static int
refuse_pending(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx)
{
	while (d->npending) {
		uint64_t token = d->ring[d->head].token;

		d->head = (d->head + 1) % PROXY_DECIDER_PENDING_MAX;
		d->npending--;
		cb(ctx, token, false, d->why);
	}
	return 1;
}

/* Dead for a reason of ours (a timeout, a bad answer): the text says it. */
static int __attribute__((format(printf, 4, 5)))
die_because(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx, const char *fmt,
	    ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	kill_and_reap(d);
	return refuse_pending(d, cb, ctx);
}

/* Dead because its end of a pipe closed: its wait status says the most. */
static int
die_gone(struct proxy_decider *d, enum death_cause cause, proxy_decider_answer_fn *cb, void *ctx)
{
	int st;

	kill_and_reap(d);
	st = d->status;
	if (WIFEXITED(st))
		snprintf(d->why, sizeof(d->why), "the network decider exited with status %d",
			 WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		snprintf(d->why, sizeof(d->why), "the network decider was killed by signal %d (%s)",
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (cause == DEATH_EOF)
		/* Our SIGKILL: it lived on without its stdout. */
		snprintf(d->why, sizeof(d->why), "the network decider closed its output");
	else
		snprintf(d->why, sizeof(d->why), "the network decider stopped reading its questions");
	return refuse_pending(d, cb, ctx);
}

/* ---------------------------------------------------------------- questions */

/* 0 when everything buffered was written or the pipe is full, -errno when
 * the write failed (EPIPE: the decider closed its stdin or exited). */
static int
flush(struct proxy_decider *d)
{
	while (d->outoff < d->outlen) {
		ssize_t w = write(d->wfd, d->out + d->outoff, d->outlen - d->outoff);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		d->outoff += (size_t)w;
	}
	d->outoff = d->outlen = 0;
	return 0;
}

int
proxy_decider_ask(struct proxy_decider *d, uint64_t token, const char *host, uint16_t port,
		  const char *method, bool allowed_by_list, long long now_ms, const char **why)
{
	char q[QUESTION_MAX];
	json_t *v;
	size_t n;

	if (d->dead) {
		*why = d->why;
		return -EPIPE;
	}
	if (d->npending == PROXY_DECIDER_PENDING_MAX) {
		*why = "the network decider has too many questions pending";
		return -EBUSY;
	}
	if (!host || !method) {
		*why = "the destination has no host or method";
		return -EINVAL;
	}
	v = json_pack("{s:s, s:i, s:s, s:b}", "host", host, "port", (int)port, "method", method,
		      "allowed_by_list", (int)allowed_by_list);
	if (!v) {
		*why = "the destination cannot be put to the network decider (not UTF-8 text)";
		return -EINVAL;
	}
	n = json_dumpb(v, q, sizeof(q), JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(v);
	if (n == 0 || n + 1 > sizeof(q)) {
		*why = "the destination is too long to put to the network decider";
		return -EINVAL;
	}
	q[n++] = '\n';
	if (d->outlen + n > sizeof(d->out) && d->outoff) {
		memmove(d->out, d->out + d->outoff, d->outlen - d->outoff);
		d->outlen -= d->outoff;
		d->outoff = 0;
	}
	if (d->outlen + n > sizeof(d->out)) {
		*why = "the network decider has too many questions pending";
		return -EBUSY;
	}
	memcpy(d->out + d->outlen, q, n);
	d->outlen += n;
	d->ring[(d->head + d->npending) % PROXY_DECIDER_PENDING_MAX] =
		(struct question){ token, now_ms };
	d->npending++;
	if (!d->write_failed && flush(d) < 0) {
		d->write_failed = true;
		d->write_failed_ms = now_ms;
	}
	return 0;
}

int
proxy_decider_writable(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx)
{
	if (d->dead || d->write_failed)
		return 0;
	if (flush(d) < 0)
		return die_gone(d, DEATH_WRITE, cb, ctx);
	return 0;
}

int
proxy_decider_expire(struct proxy_decider *d, long long now_ms, proxy_decider_answer_fn *cb,
		     void *ctx)
{
	if (d->dead)
		return 0;
	if (d->write_failed)
		return die_gone(d, DEATH_WRITE, cb, ctx);
	if (d->npending && now_ms - d->ring[d->head].asked_ms >= d->timeout_ms)
		return die_because(d, cb, ctx,
				   "the network decider timed out (no answer within %lld ms)",
				   d->timeout_ms);
	return 0;
}

/* ---------------------------------------------------------------- answers */

/* The reason as it may go into a 403 line and a terminal: control
 * characters (C0, DEL, and C1 as UTF-8 writes them) become spaces, so a
 * decider cannot end the line or steer the terminal. */
static void
clean_reason(const char *in, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	while (*s && o + 1 < cap) {
		if (*s < 0x20 || *s == 0x7f) {
			out[o++] = ' ';
			s++;
		} else if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
			out[o++] = ' ';
			s += 2;
		} else {
			out[o++] = (char)*s++;
		}
	}
	out[o] = '\0';
}

/* One answer line: 0 with *allow and d->reason, or a short description of
 * what is wrong with it. */
static const char *
parse_answer(struct proxy_decider *d, const char *line, size_t len, bool *allow)
{
	json_error_t jerr;
	json_t *v, *a, *r;
	const char *bad = NULL;

	/* A key twice could mean one thing to the decider's author and
	 * another here: refused. */
	v = json_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (!v)
		return json_error_code(&jerr) == json_error_duplicate_key ? "a key twice"
									   : "not JSON";
	a = json_object_get(v, "allow");
	r = json_object_get(v, "reason");
	if (!json_is_object(v))
		bad = "not an object";
	else if (!json_is_boolean(a))
		bad = "no \"allow\" of true or false";
	else if (r && !json_is_null(r) && !json_is_string(r))
		bad = "a \"reason\" that is not a string";
	if (!bad) {
		*allow = json_is_true(a);
		if (json_is_string(r) && json_string_length(r))
			clean_reason(json_string_value(r), d->reason, sizeof(d->reason));
		else
			snprintf(d->reason, sizeof(d->reason), "%s by the network decider",
				 *allow ? "allowed" : "refused");
	}
	json_decref(v);
	return bad;
}

/* Answers every whole line in d->in. 1 when the decider died of it. */
static int
take_lines(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx)
{
	char *nl;

	while ((nl = memchr(d->in, '\n', d->inlen))) {
		size_t len = (size_t)(nl - d->in);
		const char *bad = NULL;
		bool allow = false;
		uint64_t token;

		/* The buffer holds PROXY_DECIDER_LINE_MAX and a newline: a
		 * line found in it is never too long. */
		bad = parse_answer(d, d->in, len, &allow);
		if (bad)
			return die_because(d, cb, ctx,
					   "the network decider answered something that is not "
					   "{allow, reason} (%s)",
					   bad);
		if (!d->npending)
			return die_because(d, cb, ctx,
					   "the network decider answered a question that was not "
					   "asked");
		d->inlen -= len + 1;
		memmove(d->in, nl + 1, d->inlen);
		token = d->ring[d->head].token;
		d->head = (d->head + 1) % PROXY_DECIDER_PENDING_MAX;
		d->npending--;
		cb(ctx, token, allow, d->reason);
	}
	if (d->inlen > PROXY_DECIDER_LINE_MAX)
		return die_because(d, cb, ctx,
				   "the network decider answered something that is not {allow, "
				   "reason} (a line over %d bytes)",
				   PROXY_DECIDER_LINE_MAX);
	return 0;
}

int
proxy_decider_readable(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx)
{
	for (;;) {
		ssize_t r;

		if (d->dead)
			return 0;
		/* Lines first: after take_lines() the buffer has room, so a
		 * read of 0 bytes is the end of the decider's output. */
		if (take_lines(d, cb, ctx))
			return 1;
		r = read(d->rfd, d->in + d->inlen, sizeof(d->in) - d->inlen);
		if (r > 0) {
			d->inlen += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		/* The end of its output, or a pipe that cannot be read. */
		return die_gone(d, DEATH_EOF, cb, ctx);
	}
}

/* ---------------------------------------------------------------- stop */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int
proxy_decider_stop(struct proxy_decider *d)
{
	int status;

	if (!d)
		return 0;
	if (!d->dead) {
		close(d->rfd);
		close(d->wfd);
		d->rfd = d->wfd = -1;
		kill(-d->pid, SIGTERM);
		for (long waited = 0; waited < PROXY_DECIDER_STOP_GRACE_MS; waited += 5) {
			siginfo_t info;

			/* WNOWAIT: the exited decider stays a zombie, so its
			 * group's number stays ours for the SIGKILL below. */
			info.si_pid = 0;
			if (waitid(P_PID, (id_t)d->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
			    info.si_pid == d->pid)
				break;
			sleep_ms(5);
		}
		/* The whole group: whatever the decider started goes too. */
		kill(-d->pid, SIGKILL);
		reap(d);
	}
	status = d->status;
	free(d);
	return status;
}

/* SPDX-License-Identifier: MIT
 * heel-broker and heel-ipc live, with this program in heel-exec's place:
 * it makes the control pair, starts bin/heel-broker with it as
 * descriptor 3, sends the settings of a few host commands (shell scripts
 * it writes, which record their argv and directory outside the working
 * directory), then forks a "sandbox" that loads a seccomp filter sending
 * ioctl(-1, HEEL_IPC_IOCTL) to a listener, hands the listener and the
 * working directory to the broker, and runs bin/heel-ipc calls, asserting
 * on their effects. Usage: broker_live BINDIR. Prints "N passed, N
 * failed"; exits 1 on any failure. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc_abi.h"
#include "proxyctl.h"

static const char *bindir;
static char scratch[64], work[128], outdir[128], ipcdir[128];
static int *counts; /* shared: passed, failed */
static pid_t broker_pid;
static int ctl = -1;

static void __attribute__((format(printf, 2, 3)))
check(int ok, const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&counts[ok ? 0 : 1], 1, __ATOMIC_SEQ_CST);
	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(path);
		exit(2);
	}
	close(fd);
}

static char *
slurp(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void
make_scripts(void)
{
	char path[256], text[2048];

	snprintf(path, sizeof(path), "%s/echo.sh", scratch);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "out=%s/echo.args\n"
		 "{ pwd; echo \"HEEL_IPC_COMMAND=$HEEL_IPC_COMMAND\"; for a; do printf '%%s\\n' \"$a\"; done; } >$out\n"
		 "code=0; sig=\n"
		 "for a; do case $a in --code=*) code=${a#--code=};; --sig=*) sig=${a#--sig=};; esac; done\n"
		 "printf 'stdout:%%s\\n' \"$*\"; printf 'stderr-line\\n' >&2\n"
		 "[ -n \"$sig\" ] && kill -$sig $$\n"
		 "exit $code\n",
		 outdir);
	write_file(path, text, 0755);
	snprintf(path, sizeof(path), "%s/slow.sh", scratch);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "sleep 100 & echo $! >%s/slow.bg\n"
		 "setsid sleep 101 & echo $! >%s/slow.setsid\n"
		 "sleep 102\n",
		 outdir, outdir);
	write_file(path, text, 0755);
	snprintf(path, sizeof(path), "%s/hang.sh", scratch);
	write_file(path, "#!/bin/sh\nexec sleep 100\n", 0755);
	snprintf(path, sizeof(path), "%s/big.sh", scratch);
	write_file(path, "#!/bin/sh\nexec head -c 20000000 /dev/zero\n", 0755);
}

static void
send_setting(const char *key, const char *value)
{
	if (proxyctl_send(ctl, key, value, -1) < 0) {
		fprintf(stderr, "broker_live: cannot send %s\n", key);
		exit(2);
	}
}

static void
command(const char *name, const char *script, const char *timeout_ms)
{
	char exec[256];

	snprintf(exec, sizeof(exec), "%s/%s", scratch, script);
	send_setting("command", name);
	send_setting("exec", exec);
	if (timeout_ms)
		send_setting("timeout-ms", timeout_ms);
}

/* The broker, its settings sent; ctl is our end. */
static void
start_broker(void)
{
	char path[256];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		exit(2);
	broker_pid = fork();
	if (broker_pid == 0) {
		dup2(sv[1], HEEL_BROKER_CTL_FD);
		snprintf(path, sizeof(path), "%s/heel-broker", bindir);
		execl(path, "heel-broker", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	ctl = sv[0];
	send_setting("workdir", work);
	/* The sink as heel-exec hands it over: open, never a name. */
	snprintf(path, sizeof(path), "%s/audit.jsonl", outdir);
	{
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd < 0 || proxyctl_send(ctl, "audit", "file", fd) < 0)
			exit(2);
		close(fd);
	}
	send_setting("env", "LANG=C.UTF-8");
	command("echo", "echo.sh", NULL);
	send_setting("positional", "query");
	send_setting("arg", "string query");
	send_setting("arg", "int limit");
	send_setting("arg", "bool safe");
	send_setting("arg", "path file");
	send_setting("arg", "int code");
	send_setting("arg", "string sig");
	command("slow", "slow.sh", "1500");
	command("hang", "hang.sh", "3000");
	command("hang-long", "hang.sh", "60000");
	command("big", "big.sh", "20000");
	send_setting("end", NULL);
}

/* ioctl(-1, HEEL_IPC_IOCTL) to the listener, everything else allowed:
 * heelc's rule, reduced to this one. */
static int
load_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HEEL_IPC_IOCTL_FD, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HEEL_IPC_IOCTL, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

/* In the sandbox: listener and working directory to the broker, then
 * wait for ready. */
static void
hand_over(void)
{
	char msg[PROXYCTL_MSG_MAX];
	int listener = load_filter(), wfd, fd;

	if (listener < 0) {
		perror("seccomp");
		exit(2);
	}
	wfd = open(work, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (proxyctl_send(ctl, "listen", NULL, listener) < 0 ||
	    proxyctl_send(ctl, "workdir-fd", NULL, wfd) < 0) {
		fprintf(stderr, "broker_live: cannot hand over\n");
		exit(2);
	}
	close(listener);
	close(wfd);
	if (proxyctl_recv(ctl, msg, sizeof(msg), &fd) <= 0 || strcmp(msg, "ready") != 0) {
		fprintf(stderr, "broker_live: the broker said `%s`\n", msg);
		exit(2);
	}
}

struct result {
	int status; /* exit code, or 128+signal */
	char out[1 << 16], err[8192];
	size_t outlen; /* all of stdout, even past out */
	long long ms;
};

struct run {
	pid_t pid;
	int out, err;
	long long start;
};

/* Starts NAME ARGS... (argv[0] is the command's name, a link to heel-ipc)
 * in directory dir, stdin from in (-1: /dev/null). */
static void
start(struct run *r, const char *dir, int in, char *const argv[])
{
	int o[2], e[2];
	char path[256];

	if (pipe(o) < 0 || pipe(e) < 0)
		exit(2);
	r->start = now_ms();
	r->pid = fork();
	if (r->pid == 0) {
		if (in < 0)
			in = open("/dev/null", O_RDONLY);
		dup2(in, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		if (chdir(dir) < 0)
			_exit(126);
		alarm(10); /* no hang: 142 */
		snprintf(path, sizeof(path), "%s/%s", ipcdir, argv[0]);
		execv(path, argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	r->out = o[0];
	r->err = e[0];
}

static void
finish(struct run *r, struct result *res)
{
	char buf[65536];
	size_t elen = 0;
	ssize_t n;
	int st;

	res->outlen = 0;
	while ((n = read(r->out, buf, sizeof(buf))) > 0) {
		if (res->outlen < sizeof(res->out) - 1)
			memcpy(res->out + res->outlen, buf,
			       (size_t)n < sizeof(res->out) - 1 - res->outlen ? (size_t)n : sizeof(res->out) - 1 - res->outlen);
		res->outlen += (size_t)n;
	}
	res->out[res->outlen < sizeof(res->out) ? res->outlen : sizeof(res->out) - 1] = '\0';
	while ((n = read(r->err, res->err + elen, sizeof(res->err) - 1 - elen)) > 0)
		elen += (size_t)n;
	res->err[elen] = '\0';
	close(r->out);
	close(r->err);
	waitpid(r->pid, &st, 0);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	res->ms = now_ms() - r->start;
}

static struct result res;

static void
call(const char *dir, int in, char *const argv[])
{
	struct run r;

	start(&r, dir, in, argv);
	finish(&r, &res);
}

#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

static char *
args_file(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/echo.args", outdir);
	return slurp(path);
}

static void
clear_args(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/echo.args", outdir);
	unlink(path);
}

static int
gone(const char *pidfile)
{
	char path[256], *t;

	snprintf(path, sizeof(path), "%s/%s", outdir, pidfile);
	if (!(t = slurp(path)) || !*t)
		return 0;
	return kill(atoi(t), 0) < 0 && errno == ESRCH;
}

/* ---------------------------------------------------------------- cases */

static void
case_arguments(void)
{
	char sub[256], want[1024], *a;

	snprintf(sub, sizeof(sub), "%s/sub", work);
	clear_args();
	call(sub, -1, ARGV("echo", "rust", "--limit", "+07", "--safe", "--file", "../a.txt"));
	a = args_file();
	snprintf(want, sizeof(want),
		 "%s\nHEEL_IPC_COMMAND=echo\n--query=rust\n--limit=7\n--safe=true\n--file=../a.txt\n", sub);
	check(res.status == 0 && a && !strcmp(a, want),
	      "positional, keyed, flag and path reach the host command in its directory "
	      "(status %d, argv file:\n%s)", res.status, a ? a : "(none)");
	check(strstr(res.out, "stdout:--query=rust --limit=7") == res.out &&
		      !strcmp(res.err, "stderr-line\n"),
	      "stdout and stderr come back unchanged (out `%s`, err `%s`)", res.out, res.err);

	clear_args();
	call(work, -1, ARGV("echo", "--query=x y", "--safe=no", "--file=.", "--limit", "-5"));
	check(res.status == 2 && strstr(res.err, "echo: --limit: a value is missing") && !args_file(),
	      "--limit -5 is no value (status %d, err `%s`)", res.status, res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--query=x y", "--safe=no", "--file=.", "--limit=-5"));
	a = args_file();
	snprintf(want, sizeof(want), "%s\nHEEL_IPC_COMMAND=echo\n--query=x y\n--limit=-5\n--safe=false\n--file=.\n",
		 work);
	check(res.status == 0 && a && !strcmp(a, want), "--name=value forms (status %d, argv:\n%s)",
	      res.status, a ? a : "(none)");

	clear_args();
	call(work, -1, ARGV("echo", "--", "--not-an-option"));
	a = args_file();
	check(res.status == 0 && a && strstr(a, "\n--query=--not-an-option\n"),
	      "-- makes the next word a bare word (status %d)", res.status);
}

static void
case_stdin(void)
{
	int p[2];
	char buf[64];
	ssize_t n;
	char *a;

	clear_args();
	if (pipe(p) < 0)
		exit(2);
	if (write(p[1], "hello\nworld", 11) != 11)
		exit(2);
	close(p[1]);
	call(work, p[0], ARGV("echo", "-"));
	close(p[0]);
	a = args_file();
	check(res.status == 0 && a && strstr(a, "\n--query=hello\nworld\n"),
	      "`-` takes the caller's stdin (status %d, argv:\n%s)", res.status, a ? a : "(none)");

	clear_args();
	if (pipe(p) < 0)
		exit(2);
	if (write(p[1], "keep\n", 5) != 5)
		exit(2);
	close(p[1]);
	call(work, p[0], ARGV("echo", "word"));
	n = read(p[0], buf, sizeof(buf));
	close(p[0]);
	check(res.status == 0 && n == 5 && !memcmp(buf, "keep\n", 5),
	      "a call without `-` leaves stdin unread (status %d, left %zd bytes)", res.status, n);

	if (pipe(p) < 0)
		exit(2);
	if (write(p[1], "x", 1) != 1)
		exit(2);
	close(p[1]);
	clear_args();
	call(work, p[0], ARGV("echo", "-", "--sig=-"));
	close(p[0]);
	check(res.status == 2 && strstr(res.err, "both read standard input") && !args_file(),
	      "two arguments cannot both take stdin (status %d, err `%s`)", res.status, res.err);
}

static void
case_status(void)
{
	call(work, -1, ARGV("echo", "--code=7"));
	check(res.status == 7, "the exit code comes back (got %d)", res.status);
	call(work, -1, ARGV("echo", "--sig=TERM"));
	check(res.status == 128 + SIGTERM, "a signal death is 128+N (got %d)", res.status);
}

static void
case_refusals(void)
{
	char esc[256];

	clear_args();
	call(work, -1, ARGV("echo", "--limit", "ten"));
	check(res.status == 2 && !strcmp(res.err, "echo: --limit: \"ten\" is not an integer\n") &&
		      !args_file(),
	      "a wrong type names the argument and runs nothing (status %d, err `%s`)", res.status,
	      res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--limit=99999999999999999999"));
	check(res.status == 2 && strstr(res.err, "out of range") && !args_file(),
	      "an int past int64 is refused (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--foo"));
	check(res.status == 2 &&
		      !strcmp(res.err, "echo: unknown argument --foo (arguments: query, limit, safe, "
				       "file, code, sig)\n") &&
		      !args_file(),
	      "an unknown argument is refused with the list (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "a", "b"));
	check(res.status == 2 &&
		      !strcmp(res.err, "echo: too many arguments: \"b\" (positionals: query)\n") &&
		      !args_file(),
	      "too many bare words (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "a", "--query=b"));
	check(res.status == 2 && strstr(res.err, "--query given twice") && !args_file(),
	      "a name given twice (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--file=/etc/passwd"));
	check(res.status == 2 && strstr(res.err, "is outside the working directory") && !args_file(),
	      "a path outside the working directory (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--file=sub/../../x"));
	check(res.status == 2 && strstr(res.err, "is outside the working directory") && !args_file(),
	      "a path climbing out lexically (err `%s`)", res.err);
	snprintf(esc, sizeof(esc), "%s/esc", work);
	if (symlink("/etc", esc) < 0)
		exit(2);
	clear_args();
	call(work, -1, ARGV("echo", "--file=esc/passwd"));
	check(res.status == 2 && strstr(res.err, "does not resolve beneath") && !args_file(),
	      "a path through a link out of the working directory (err `%s`)", res.err);
	snprintf(esc, sizeof(esc), "%s/dangling", work);
	if (symlink("/tmp/heel-broker-live-nowhere", esc) < 0)
		exit(2);
	clear_args();
	call(work, -1, ARGV("echo", "--file=dangling"));
	check(res.status == 2 && strstr(res.err, "does not resolve beneath") && !args_file(),
	      "a dangling link is refused (err `%s`)", res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--file=sub/new.txt"));
	check(res.status == 0 && args_file() && strstr(args_file(), "--file=sub/new.txt\n"),
	      "control: a missing file beneath the working directory is fine (status %d, err `%s`)",
	      res.status, res.err);
	clear_args();
	call(work, -1, ARGV("nosuch", "x"));
	check(res.status == 127 && !strcmp(res.err, "nosuch: no host command nosuch\n") && !args_file(),
	      "an undeclared name is refused and runs nothing (status %d, err `%s`)", res.status,
	      res.err);
	clear_args();
	call(work, -1, ARGV("echo", "--help"));
	check(res.status == 0 && strstr(res.out, "usage: echo [query]") == res.out && !args_file(),
	      "--help prints the usage and runs nothing (out `%s`)", res.out);
}

static void
case_timeout(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/slow.bg", outdir);
	unlink(path);
	call(work, -1, ARGV("slow"));
	usleep(200 * 1000);
	check(res.status == 124 && !strcmp(res.err, "slow: timed out after 1500ms\n") && res.ms < 5000,
	      "the timeout kills the call (status %d, err `%s`, %lld ms)", res.status, res.err,
	      res.ms);
	check(gone("slow.bg") && gone("slow.setsid"),
	      "the host command's children are gone, in its group and in a session of their own");
}

static void
case_concurrent(void)
{
	static struct run runs[70];
	char *words[50];
	int ok = 0, busy = 0, timed = 0;

	for (int i = 0; i < 50; i++) {
		char w[16];

		snprintf(w, sizeof(w), "w%d", i);
		words[i] = strdup(w);
		start(&runs[i], work, -1, ARGV("echo", words[i]));
	}
	for (int i = 0; i < 50; i++) {
		char want[32];

		finish(&runs[i], &res);
		snprintf(want, sizeof(want), "stdout:--query=w%d\n", i);
		ok += res.status == 0 && !strcmp(res.out, want);
	}
	check(ok == 50, "50 concurrent calls all succeed (%d did)", ok);

	for (int i = 0; i < 70; i++) {
		start(&runs[i], work, -1, ARGV("hang"));
		usleep(5000);
	}
	for (int i = 0; i < 70; i++) {
		finish(&runs[i], &res);
		if (res.status == 125 && !strcmp(res.err, "hang: too many host command calls at once\n"))
			busy++;
		else if (res.status == 124)
			timed++;
	}
	check(busy == 6 && timed == 64,
	      "70 hanging calls: 64 run and are killed at the timeout, 6 are refused (%d, %d)",
	      timed, busy);
}

static void
case_output_cap(void)
{
	call(work, -1, ARGV("big"));
	check(res.status == 1 && res.outlen == HEEL_IPC_OUTPUT_MAX &&
		      strstr(res.err, "big: output exceeded 16 MiB"),
	      "the output cap stops the call (status %d, %zu bytes, err `%s`)", res.status,
	      res.outlen, res.err);
}

/* A hand-written client: the frames it sends, the first frame back. */
static int
raw_call(const void *frame, size_t len, int fd_to_send, unsigned char *back, size_t cap)
{
	union {
		struct cmsghdr align;
		char space[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct iovec iov = { .iov_base = (void *)frame, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int ch = ioctl(-1, HEEL_IPC_IOCTL, 0);
	ssize_t n;

	if (ch < 0)
		return -1000 - errno;
	if (fd_to_send >= 0) {
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.space;
		mh.msg_controllen = sizeof(cbuf.space);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd_to_send, sizeof(int));
	}
	if (sendmsg(ch, &mh, 0) < 0) {
		close(ch);
		return -2000 - errno;
	}
	if (((const unsigned char *)frame)[0] == IPC_FRAME_REQ && len < 1000) {
		unsigned char end = IPC_FRAME_REQ_END;

		send(ch, &end, 1, MSG_NOSIGNAL);
	}
	n = recv(ch, back, cap - 1, 0);
	if (n < 0)
		n = -3000 - errno;
	close(ch);
	back[n < 0 ? 0 : n] = '\0';
	return (int)n;
}

static void
case_raw(void)
{
	static unsigned char big[HEEL_IPC_FRAME_MAX + 100];
	unsigned char back[4096];
	char good[512];
	int n;

	snprintf(good, sizeof(good), "\1{\"v\":1,\"name\":\"echo\",\"argv\":[\"raw\"],\"cwd\":\"%s\"}",
		 work);
	n = raw_call(good, strlen(good), -1, back, sizeof(back));
	while (n > 0 && back[0] != IPC_FRAME_EXIT && back[0] != IPC_FRAME_FAIL)
		break;
	check(n > 0 && (back[0] == IPC_FRAME_OUT || back[0] == IPC_FRAME_EXIT),
	      "control: a hand-written request runs (first frame type %d)", n > 0 ? back[0] : -1);
	n = raw_call(good, strlen(good), 0, back, sizeof(back));
	check(n > 0 && back[0] == IPC_FRAME_FAIL &&
		      strstr((char *)back + 1, "descriptors sent on the channel are refused"),
	      "a descriptor sent with a frame is refused (`%s`, %d)", n > 0 ? (char *)back + 1 : "",
	      n);
	memset(big, 'x', sizeof(big));
	big[0] = IPC_FRAME_REQ;
	n = raw_call(big, sizeof(big), -1, back, sizeof(back));
	check(n > 0 && back[0] == IPC_FRAME_FAIL && strstr((char *)back + 1, "longer than"),
	      "an oversized frame is refused (`%s`)", n > 0 ? (char *)back + 1 : "");
	n = raw_call("\1{nope", 6, -1, back, sizeof(back));
	check(n > 0 && back[0] == IPC_FRAME_FAIL && strstr((char *)back + 1, "not JSON"),
	      "bad JSON is refused (`%s`)", n > 0 ? (char *)back + 1 : "");
	snprintf(good, sizeof(good),
		 "\1{\"v\":1,\"name\":\"echo\",\"argv\":[],\"cwd\":\"%s\",\"extra\":1}", work);
	n = raw_call(good, strlen(good), -1, back, sizeof(back));
	check(n > 0 && back[0] == IPC_FRAME_FAIL && strstr((char *)back + 1, "unknown key"),
	      "an unknown key is refused (`%s`)", n > 0 ? (char *)back + 1 : "");
	n = raw_call("\7", 1, -1, back, sizeof(back));
	check(n > 0 && back[0] == IPC_FRAME_FAIL && strstr((char *)back + 1, "unexpected frame"),
	      "an unknown frame type is refused (`%s`)", n > 0 ? (char *)back + 1 : "");
}

static void
case_audit(void)
{
	char path[256], *a;

	snprintf(path, sizeof(path), "%s/audit.jsonl", outdir);
	a = slurp(path);
	check(a && strstr(a, "\"ipc\":\"echo\",\"args\":[\"--query=rust\",\"--limit=7\"") &&
		      strstr(a, "\"exit\":0,\"duration_ms\":") &&
		      strstr(a, "\"refused\":\"--limit: \\\"ten\\\" is not an integer\"") &&
		      strstr(a, "\"ipc\":\"slow\",\"args\":[],\"refused\":\"timed out after 1500ms\""),
	      "the audit file has one line a call");
}

/* SIGKILL to the broker: the call in flight ends, the next fails at once. */
static void
case_broker_killed(void)
{
	struct run r;

	start(&r, work, -1, ARGV("hang-long"));
	usleep(300 * 1000);
	kill(broker_pid, SIGKILL);
	finish(&r, &res);
	check(res.status == 125 && strstr(res.err, "has stopped") && res.ms < 3000,
	      "a call in flight when the broker dies ends (status %d, err `%s`, %lld ms)",
	      res.status, res.err, res.ms);
	call(work, -1, ARGV("echo", "x"));
	check(res.status == 125 && !strcmp(res.err, "echo: the host command broker has stopped\n") &&
		      res.ms < 2000,
	      "the next call fails with `has stopped` (status %d, err `%s`)", res.status, res.err);
}

/* heel-exec closes the control socket: running calls are killed. */
static void
case_ctl_closed(void)
{
	char path[256];
	struct run r;

	snprintf(path, sizeof(path), "%s/slow.bg", outdir);
	unlink(path);
	start(&r, work, -1, ARGV("slow"));
	usleep(500 * 1000);
	close(ctl);
	finish(&r, &res);
	usleep(200 * 1000);
	check(res.status == 125 && res.ms < 1400,
	      "closing the control socket ends running calls (status %d, %lld ms)", res.status,
	      res.ms);
	check(gone("slow.bg") && gone("slow.setsid"), "and their processes are gone");
}

/* One broker and one sandbox for cases; the sandbox is a child of ours
 * (the filter stays with it). */
static void
session(void (*cases)(void))
{
	pid_t sandbox;
	int st;

	start_broker();
	sandbox = fork();
	if (sandbox == 0) {
		hand_over();
		cases();
		_exit(0);
	}
	close(ctl);
	waitpid(sandbox, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		check(0, "the sandbox process ended with status %d", st);
	kill(broker_pid, SIGKILL);
	waitpid(broker_pid, NULL, 0);
}

static void
main_cases(void)
{
	case_arguments();
	case_stdin();
	case_status();
	case_refusals();
	case_timeout();
	case_concurrent();
	case_output_cap();
	case_raw();
	case_audit();
}

int
main(int argc, char **argv)
{
	const char *names[] = { "echo", "slow", "hang", "hang-long", "big", "nosuch" };
	char path[256], target[256];

	if (argc != 2) {
		fprintf(stderr, "usage: broker_live BINDIR\n");
		return 2;
	}
	bindir = argv[1];
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(scratch, sizeof(scratch), "/tmp/heel-broker-live-XXXXXX");
	if (counts == MAP_FAILED || !mkdtemp(scratch))
		return 2;
	snprintf(work, sizeof(work), "%s/work", scratch);
	snprintf(outdir, sizeof(outdir), "%s/out", scratch);
	snprintf(ipcdir, sizeof(ipcdir), "%s/ipc", scratch);
	mkdir(work, 0755);
	mkdir(outdir, 0755);
	mkdir(ipcdir, 0755);
	snprintf(path, sizeof(path), "%s/sub", work);
	mkdir(path, 0755);
	make_scripts();
	snprintf(target, sizeof(target), "%s/heel-ipc", bindir);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", ipcdir, names[i]);
		if (symlink(target, path) < 0)
			return 2;
	}
	signal(SIGPIPE, SIG_IGN);

	session(main_cases);
	session(case_broker_killed);
	session(case_ctl_closed);

	snprintf(path, sizeof(path), "rm -rf '%s'", scratch);
	if (system(path) != 0)
		fprintf(stderr, "broker_live: %s left behind\n", scratch);
	printf("%d passed, %d failed\n", counts[0], counts[1]);
	return counts[1] ? 1 : 0;
}

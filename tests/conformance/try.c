/* SPDX-License-Identifier: MIT
 * try: performs ONE action and prints "OK" or the errno name (EPERM,
 * EACCES, ENOSYS, ...), exit 0 either way; 2 on a usage error. The
 * conformance suite runs the same action outside the sandbox (the
 * control) and under heel-exec (the escape), as bubblewrap's try-syscall
 * does. Built static, so it runs from any directory a policy makes
 * executable.
 *
 * Probes of privileged calls are harmless by construction: they pass an
 * argument the kernel rejects only AFTER its permission checks (EINVAL,
 * ENOENT, EBADF, EAGAIN), and such a rejection prints "OK": the call got
 * past every check the sandbox is there to add. Calls that change state
 * (mount, chroot) first move into a private user+mount namespace when
 * one can be made, so a control never touches the host. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched.h> /* struct clone_args */
#include <linux/userfaultfd.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <mqueue.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "ipc_abi.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

extern char **environ;

static int
say(int err)
{
	const char *n;

	if (err == 0) {
		puts("OK");
		return 0;
	}
	n = strerrorname_np(err);
	if (n)
		puts(n);
	else
		printf("E%d\n", err);
	return 0;
}

/* Result of a call that returns -1 and sets errno. */
static int
res(long r)
{
	return say(r < 0 ? errno : 0);
}

/* A rejection that can only come after the permission checks means the
 * call was let through. */
static int
res_past(long r, int e1, int e2)
{
	if (r >= 0 || errno == e1 || errno == e2)
		return say(0);
	return say(errno);
}

static int usage(void);

/* A host command call made by hand (runtime/ipc_abi.h): the way a
 * program in the sandbox could talk to heel-broker without heel-ipc.
 * mode: good NAME (a well-formed call), name NAME (the same, to show
 * what an undeclared or path-like NAME gets), garbage (a request that is
 * not JSON), oversized (one datagram past the frame limit), toolong (a
 * request past the request limit), badtype (an unknown frame type), fds
 * NAME (a well-formed call that also sends a descriptor). Prints OK when
 * the command ran and exited 0, REFUSED when heel-broker answered with a
 * refusal, CLOSED when it hung up without an answer, or the errno name of
 * the call itself (EBADF: no broker behind this sandbox's filter). */
static int
send_frame(int fd, int type, const char *body, size_t len, int pass_fd)
{
	char *buf = malloc(len + 1);
	struct iovec iov = { .iov_base = buf, .iov_len = len + 1 };
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (!buf)
		return -1;
	buf[0] = (char)type;
	memcpy(buf + 1, body, len);
	if (pass_fd >= 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.space;
		m.msg_controllen = sizeof(u.space);
		u.h.cmsg_level = SOL_SOCKET;
		u.h.cmsg_type = SCM_RIGHTS;
		u.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&u.h), &pass_fd, sizeof(int));
	}
	r = sendmsg(fd, &m, MSG_NOSIGNAL);
	free(buf);
	return r < 0 ? -1 : 0;
}

static int
op_ipc_raw(const char *mode, const char *name)
{
	char req[512], reply[HEEL_IPC_FRAME_MAX + 1];
	int fd = (int)syscall(SYS_ioctl, -1, (unsigned long)HEEL_IPC_IOCTL, 0);
	bool ok = true;
	ssize_t n;

	if (fd < 0)
		return say(errno);
	snprintf(req, sizeof(req), "{\"v\":1,\"name\":\"%s\",\"argv\":[],\"cwd\":\"/\"}",
		 name ? name : "");
	if (!strcmp(mode, "good") || !strcmp(mode, "name") || !strcmp(mode, "fds")) {
		ok = send_frame(fd, IPC_FRAME_REQ, req, strlen(req),
				!strcmp(mode, "fds") ? 0 : -1) == 0 &&
		     send_frame(fd, IPC_FRAME_REQ_END, "", 0, -1) == 0;
	} else if (!strcmp(mode, "garbage")) {
		ok = send_frame(fd, IPC_FRAME_REQ, "{not json", 9, -1) == 0 &&
		     send_frame(fd, IPC_FRAME_REQ_END, "", 0, -1) == 0;
	} else if (!strcmp(mode, "oversized")) {
		static char big[HEEL_IPC_FRAME_MAX + 100];

		memset(big, ' ', sizeof(big));
		ok = send_frame(fd, IPC_FRAME_REQ, big, sizeof(big), -1) == 0;
	} else if (!strcmp(mode, "toolong")) {
		static char chunk[HEEL_IPC_FRAME_MAX - 1];

		memset(chunk, ' ', sizeof(chunk));
		for (size_t sent = 0; ok && sent <= HEEL_IPC_REQUEST_MAX; sent += sizeof(chunk))
			ok = send_frame(fd, IPC_FRAME_REQ, chunk, sizeof(chunk), -1) == 0;
		if (ok)
			ok = send_frame(fd, IPC_FRAME_REQ_END, "", 0, -1) == 0;
	} else if (!strcmp(mode, "badtype")) {
		ok = send_frame(fd, 9, req, strlen(req), -1) == 0;
	} else {
		return usage();
	}
	/* A send that failed means the broker hung up: read what it said. */
	(void)ok;
	for (;;) {
		n = recv(fd, reply, sizeof(reply), 0);
		if (n <= 0) {
			puts("CLOSED");
			return 0;
		}
		if (reply[0] == IPC_FRAME_FAIL) {
			puts("REFUSED");
			return 0;
		}
		if (reply[0] == IPC_FRAME_EXIT) {
			puts(n > 1 && strstr(reply + 1, "\"code\":0") ? "OK" : "EXITED-NONZERO");
			return 0;
		}
	}
}

static int
usage(void)
{
	fputs("usage: try OP [ARGS]  (see the list at the top of try.c's main)\n", stderr);
	return 2;
}

/* Into a private user + mount namespace where we are root, so a control
 * of mount/chroot/pivot_root changes nothing outside. Failure is fine
 * (the sandbox refuses unshare): the call under test then runs as is. */
static void
private_root(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return;
	if ((fd = open("/proc/self/setgroups", O_WRONLY)) >= 0) {
		(void)!write(fd, "deny", 4);
		close(fd);
	}
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if ((fd = open("/proc/self/uid_map", O_WRONLY)) >= 0) {
		(void)!write(fd, map, strlen(map));
		close(fd);
	}
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if ((fd = open("/proc/self/gid_map", O_WRONLY)) >= 0) {
		(void)!write(fd, map, strlen(map));
		close(fd);
	}
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* fork + execve in the child; OK when execve succeeded (whatever the
 * program then does), else the errno execve failed with. */
static int
exec_report(const char *path, char *const argv[], int memfd, bool want_exit0)
{
	int p[2], e = 0, status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return say(errno);
	pid = fork();
	if (pid < 0)
		return say(errno);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		close(p[0]);
		if (fd >= 0)
			dup2(fd, 1);
		if (memfd >= 0)
			fexecve(memfd, argv, environ);
		else
			execve(path, argv, environ);
		e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (e)
		return say(e);
	if (want_exit0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		/* ld.so ran but could not map the payload. */
		printf("FAILED(status=%d)\n", status);
		return 0;
	}
	return say(0);
}

/* A child that only waits to be looked at, for ptrace/process_vm. */
static pid_t
idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static pid_t
target_pid(const char *arg, bool *child)
{
	*child = strcmp(arg, "child") == 0;
	if (strcmp(arg, "self") == 0)
		return getpid();
	return *child ? idle_child() : (pid_t)atoi(arg);
}

static void
end_child(pid_t pid, bool child)
{
	if (child && pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static int
op_socket(long domain, int type, int proto)
{
	long fd = syscall(SYS_socket, domain, type, proto);

	if (fd >= 0)
		close((int)fd);
	return res(fd);
}

static int
op_connect_unix(const char *name, bool abstract)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return say(errno);
	if (abstract) {
		a.sun_path[0] = '\0';
		strncpy(a.sun_path + 1, name, sizeof(a.sun_path) - 2);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
	} else {
		strncpy(a.sun_path, name, sizeof(a.sun_path) - 1);
		len = sizeof(a);
	}
	return res(connect(fd, (struct sockaddr *)&a, len));
}

/* An IPv4 or IPv6 address (with a port) in *a; false if it is neither. */
static bool
inet_addr_of(const char *host, const char *port, struct sockaddr_storage *a, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)atoi(port));
		*len = sizeof(*a4);
		return true;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)atoi(port));
		*len = sizeof(*a6);
		return true;
	}
	return false;
}

static int
op_connect_tcp(const char *host, const char *port)
{
	struct sockaddr_storage a;
	socklen_t len;
	int fd;

	if (!inet_addr_of(host, port, &a, &len))
		return usage();
	fd = socket(a.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return say(errno);
	return res(connect(fd, (struct sockaddr *)&a, len));
}

/* A TCP server of our own on ADDR (a port the kernel picks), reached by a
 * client of our own: a byte there and back. OK, or the errno of the
 * first step that failed. */
static int
op_loopback_self(const char *host)
{
	struct sockaddr_storage a;
	socklen_t len;
	char c = 'h';
	int srv, cli, acc;

	if (!inet_addr_of(host, "0", &a, &len))
		return usage();
	if ((srv = socket(a.ss_family, SOCK_STREAM, 0)) < 0 ||
	    bind(srv, (struct sockaddr *)&a, len) < 0 || listen(srv, 1) < 0 ||
	    getsockname(srv, (struct sockaddr *)&a, &len) < 0)
		return say(errno);
	if ((cli = socket(a.ss_family, SOCK_STREAM, 0)) < 0 ||
	    connect(cli, (struct sockaddr *)&a, len) < 0 || (acc = accept(srv, NULL, NULL)) < 0)
		return say(errno);
	if (write(cli, &c, 1) != 1 || read(acc, &c, 1) != 1 || c != 'h')
		return say(errno ? errno : EIO);
	return res(0);
}

/* bind(2) on ADDR:PORT, no more. */
static int
op_bind_tcp(const char *host, const char *port)
{
	struct sockaddr_storage a;
	socklen_t len;
	int fd;

	if (!inet_addr_of(host, port, &a, &len))
		return usage();
	if ((fd = socket(a.ss_family, SOCK_STREAM, 0)) < 0)
		return say(errno);
	return res(bind(fd, (struct sockaddr *)&a, len));
}

static int
op_send_udp(const char *host, const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	int fd;

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return usage();
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return say(errno);
	return res(sendto(fd, "heel", 4, 0, (struct sockaddr *)&a, sizeof(a)));
}

/* Copies /usr/bin/true into a memfd and runs it from there. */
static int
op_memfd_exec(void)
{
	char buf[65536], *argv[] = { "true", NULL };
	ssize_t n;
	int in, fd;

	fd = (int)syscall(SYS_memfd_create, "heel-try", 0U);
	if (fd < 0)
		return say(errno);
	in = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return say(errno);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return say(errno);
	close(in);
	return exec_report(NULL, argv, fd, true);
}

/* execveat(fd, "", AT_EMPTY_PATH) of a file that may be run: the fd path
 * alone, without memfd. */
static int
op_execveat(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	int p[2], e = 0, fd, status;
	pid_t pid;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return say(errno);
	if (pipe2(p, O_CLOEXEC) < 0)
		return say(errno);
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		if (nul >= 0)
			dup2(nul, 1);
		syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	waitpid(pid, &status, 0);
	return say(e);
}

static int
op_io_uring_enter(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 1, &p);
	if (fd < 0)
		fd = 99; /* bogus: must still be EPERM, not EBADF */
	return res(syscall(SYS_io_uring_enter, (int)fd, 0, 0, 0, NULL, 0));
}

static int
op_io_uring_setup(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 1, &p);
	if (fd >= 0)
		close((int)fd);
	return res(fd);
}

static int
op_bpf(void)
{
	union bpf_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	fd = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
	if (fd >= 0)
		close((int)fd);
	return res(fd);
}

static int
op_perf(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		close((int)fd);
	return res(fd);
}

static int
op_clone(unsigned long flags)
{
	int status;
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return say(errno);
	waitpid((pid_t)pid, &status, 0);
	return say(0);
}

static int
op_clone3(void)
{
	struct clone_args a;
	int status;
	long pid;

	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return say(errno);
	waitpid((pid_t)pid, &status, 0);
	return say(0);
}

static int
op_setns(void)
{
	int fd;

	/* Our own fresh network namespace is one we may join (when we can
	 * make one); else our current one. */
	unshare(CLONE_NEWUSER | CLONE_NEWNET);
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = 99;
	return res(setns(fd, CLONE_NEWNET));
}

/* Counts /proc's numeric entries: the processes we can see. */
static int
op_proc_count(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc");
	int n = 0;

	if (!d)
		return say(errno);
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			n++;
	closedir(d);
	printf("COUNT=%d\n", n);
	return 0;
}

/* The marker is passed reversed, so that our own command line (and that
 * of the heel-exec running us, which holds it) never matches it. */
static char *
unreverse(const char *s)
{
	size_t n = strlen(s);
	char *r = malloc(n + 1);

	for (size_t i = 0; r && i < n; i++)
		r[i] = s[n - 1 - i];
	if (r)
		r[n] = '\0';
	return r;
}

/* Reads /proc/PID/environ; OK only when the (reversed) MARKER is in it. */
static int
op_read_environ(const char *pid, const char *rmarker)
{
	const char *marker = unreverse(rmarker);

	char path[64], buf[65536];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	/* "self": the sandbox's own environment, built by heel-exec. */
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return say(errno);
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0 && len == 0)
		return say(errno);
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = '\n';
	buf[len] = '\0';
	if (strstr(buf, marker))
		return say(0);
	puts("NOMATCH");
	return 0;
}

/* Every /proc/N/environ and cmdline we can read, for the (reversed)
 * MARKER. */
static int
op_scan_environ(const char *rmarker)
{
	const char *marker = unreverse(rmarker);
	static const char *const files[] = { "environ", "cmdline" };
	char path[300], buf[65536];
	struct dirent *e;
	DIR *d = opendir("/proc");
	int self = getpid();

	if (!d)
		return say(errno);
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == self)
			continue;
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			size_t len = 0;
			int fd;

			snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, files[i]);
			if ((fd = open(path, O_RDONLY)) < 0)
				continue;
			while (len < sizeof(buf) - 1 &&
			       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
				len += (size_t)n;
			close(fd);
			for (size_t j = 0; j < len; j++)
				if (buf[j] == '\0')
					buf[j] = '\n';
			buf[len] = '\0';
			if (strstr(buf, marker)) {
				printf("OK %s\n", path);
				return 0;
			}
		}
	}
	puts("NOMATCH");
	return 0;
}

/* Double fork + setsid: a daemon that outlives us unless the sandbox
 * kills the tree. It execs `sleep TAG` so it can be found by its exact
 * command line. */
static int
op_orphan(const char *tag)
{
	pid_t pid = fork();

	if (pid < 0)
		return say(errno);
	if (pid == 0) {
		setsid();
		if (fork() == 0) {
			char *argv[] = { "sleep", (char *)tag, NULL };
			int fd = open("/dev/null", O_RDWR);

			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
			}
			signal(SIGHUP, SIG_IGN);
			execve("/usr/bin/sleep", argv, environ);
			_exit(127);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return say(0);
}

static int
op_tiocsti(int fd, bool high)
{
	char c = '#';
	unsigned long req = TIOCSTI;

	if (high)
		req |= 0x123UL << 32;
	return res(syscall(SYS_ioctl, fd, req, &c));
}

static int
op_kill(const char *pid, const char *sig)
{
	if (strcmp(pid, "child") == 0) {
		pid_t c = idle_child();
		int r = kill(c, atoi(sig));

		r = r < 0 ? errno : 0;
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		return say(r);
	}
	return res(kill(atoi(pid), atoi(sig)));
}

static int
op_inherited_fd(const char *fdstr)
{
	char c;

	return res(read(atoi(fdstr), &c, 1));
}

static int
op_x32(void)
{
	/* Dies of SIGSYS under heel's filter; prints only when it returns. */
	return res(syscall(0x40000000 | SYS_getpid));
}

static int
op_int80(void)
{
	long r;

	/* i386 getpid is 20. Dies of SIGSYS under heel's filter. */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	if (r < 0) {
		errno = (int)-r;
		return say(errno);
	}
	return say(0);
}

/* Runs PATH with argument "euid" (a copy of try): prints the EUID it got. */
static int
op_setuid_exec(const char *path)
{
	char *argv[] = { (char *)path, "euid", NULL };
	int p[2], e = 0, status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return say(errno);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		execve(path, argv, environ);
		e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	waitpid(pid, &status, 0);
	if (e)
		return say(e);
	return 0; /* the child printed EUID=N */
}

static int
op_write_file(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		return say(errno);
	if (write(fd, "PWNED\n", 6) != 6)
		return say(errno);
	return res(close(fd));
}

static int
op_read_file(const char *path)
{
	char buf[1];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return say(errno);
	return res(read(fd, buf, 1));
}

static int
op_proc_mem(const char *arg, bool rw)
{
	char path[64];
	bool child;
	pid_t pid = target_pid(arg, &child);
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	/* Opening runs the ptrace access check (PTRACE_MODE_ATTACH). */
	fd = open(path, rw ? O_RDWR : O_RDONLY);
	e = fd < 0 ? errno : 0;
	end_child(pid, child);
	return say(e);
}

static int
op_ptrace_attach(const char *arg)
{
	bool child;
	pid_t pid = target_pid(arg, &child);
	long r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
	int e = r < 0 ? errno : 0;

	if (r == 0) {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	end_child(pid, child);
	return say(e);
}

static int
op_process_vm(const char *arg, bool write)
{
	bool child;
	pid_t pid = target_pid(arg, &child);
	static char buf[16] = "heel";
	struct iovec local = { buf, sizeof(buf) }, remote = { buf, sizeof(buf) };
	long r;
	int e;

	if (write)
		r = syscall(SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0);
	else
		r = syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0);
	e = r < 0 ? errno : 0;
	end_child(pid, child);
	return say(e);
}

static int
op_ptrace_traceme(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		long r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);

		_exit(r < 0 ? errno : 0);
	}
	waitpid(pid, &status, 0);
	return say(WIFEXITED(status) ? WEXITSTATUS(status) : EIO);
}

static int
op_list(const char *path)
{
	DIR *d = opendir(path);

	if (!d)
		return say(errno);
	errno = 0;
	while (readdir(d))
		;
	return say(errno);
}

/* ---------------------------------------------------- metadata and IPC
 * Writes Landlock has no right for: they change an inode without opening
 * it for writing, so only a read-only mount refuses them. */

static int
op_fchmod_ro(const char *path, mode_t mode)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return say(errno);
	r = fchmod(fd, mode);
	return res(r);
}

/* A minimal POSIX ACL (user::rw- group::r-- other::r--), the bytes
 * setfacl writes into system.posix_acl_access. */
static int
op_setacl(const char *path)
{
	struct { uint32_t version; struct { uint16_t tag, perm; uint32_t id; } e[3]; }
	__attribute__((packed)) acl = {
		2, { { 0x01, 6, ~0u }, { 0x04, 4, ~0u }, { 0x20, 4, ~0u } }
	};

	return res(setxattr(path, "system.posix_acl_access", &acl, sizeof(acl), 0));
}

/* FS_IOC_SETFLAGS with the flags the file has: a write of the inode's
 * flags through a descriptor opened read-only. */
static int
op_setflags(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), flags = 0;

	if (fd < 0)
		return say(errno);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return say(errno);
	return res(ioctl(fd, FS_IOC_SETFLAGS, &flags));
}

/* SysV shared memory: make (and leave) a segment under KEY, or find one,
 * read and write its first byte. */
static int
op_shm(const char *how, const char *key_s)
{
	key_t key = (key_t)strtol(key_s, NULL, 0);
	int id;
	char *p;

	id = shmget(key, 4096, strcmp(how, "make") == 0 ? IPC_CREAT | 0600 : 0);
	if (id < 0)
		return say(errno);
	if (strcmp(how, "remove") == 0)
		return res(shmctl(id, IPC_RMID, NULL));
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		return say(errno);
	if (strcmp(how, "make") == 0)
		p[0] = 'h';
	else if (p[0] != 'h')
		return say(EBADMSG);
	return say(0);
}

static int
op_msgq(const char *how, const char *key_s)
{
	key_t key = (key_t)strtol(key_s, NULL, 0);
	int id = msgget(key, strcmp(how, "make") == 0 ? IPC_CREAT | 0600 : 0);

	if (id < 0)
		return say(errno);
	if (strcmp(how, "remove") == 0)
		return res(msgctl(id, IPC_RMID, NULL));
	return say(0);
}

/* POSIX message queue NAME ("/heel-x"): make (and leave) or open. */
static int
op_mq(const char *how, const char *name)
{
	struct mq_attr a = { .mq_maxmsg = 1, .mq_msgsize = 16 };
	mqd_t q;

	if (strcmp(how, "remove") == 0)
		return res(mq_unlink(name));
	q = mq_open(name, strcmp(how, "make") == 0 ? O_RDWR | O_CREAT : O_RDWR, 0600, &a);
	return res(q == (mqd_t)-1 ? -1 : 0);
}

/* Whether the file holds STRING: "OK" when it does, EBADMSG when not. */
static int
op_holds(const char *path, const char *needle)
{
	static char buf[1 << 20];
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return say(errno);
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	buf[len] = '\0';
	return say(strstr(buf, needle) ? 0 : EBADMSG);
}

/* Forks n children that wait for the end, and prints how many forks
 * succeeded (a tree-wide process limit stops them early). */
static int
op_forkn(int n)
{
	int made = 0, p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return say(errno);
	for (; made < n; made++) {
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			char c;

			close(p[1]);
			(void)!read(p[0], &c, 1);
			_exit(0);
		}
	}
	close(p[1]);
	while (wait(NULL) > 0)
		;
	printf("FORKED=%d\n", made);
	return 0;
}

/* Runs `fn` in n children and prints OK when every one exited 0, else
 * how many did not (killed, or failed). */
static int
run_children(int n, void (*fn)(double), double arg)
{
	int bad = 0, status;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return say(errno);
		if (pid == 0) {
			fn(arg);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad++;
	if (bad)
		printf("FAILED=%d\n", bad);
	else
		puts("OK");
	return 0;
}

/* Uses `seconds` of this process's own CPU time. */
static void
burn(double seconds)
{
	struct timespec t;

	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while (t.tv_sec + t.tv_nsec / 1e9 < seconds);
}

/* Allocates and touches `mib` MiB, holds it a moment (so the children's
 * memory overlaps), exits 0; 1 when the allocation fails. */
static void
hold_mib(double mib)
{
	size_t len = (size_t)mib << 20;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		_exit(1);
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	usleep(500000);
}

int
main(int argc, char *argv[])
{
	const char *op;
	int n;

	if (argc < 2)
		return usage();
	op = argv[1];
	n = argc - 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
#define A(k) if (n != (k)) return usage()
#define OP(s) (strcmp(op, (s)) == 0)
	/* files */
	/* metadata and IPC: walls that are mounts and namespaces */
	if (OP("chmod")) { A(2); return res(chmod(argv[2], (mode_t)strtol(argv[3], NULL, 8))); }
	if (OP("fchmod-ro")) { A(2); return op_fchmod_ro(argv[2], (mode_t)strtol(argv[3], NULL, 8)); }
	if (OP("chown-self")) { A(1); return res(chown(argv[2], getuid(), getgid())); }
	if (OP("utimes")) { A(1); return res(utimensat(AT_FDCWD, argv[2], NULL, 0)); }
	if (OP("setxattr")) { A(1); return res(setxattr(argv[2], "user.heel", "x", 1, 0)); }
	if (OP("setacl")) { A(1); return op_setacl(argv[2]); }
	if (OP("setflags")) { A(1); return op_setflags(argv[2]); }
	if (OP("shm")) { A(2); return op_shm(argv[2], argv[3]); }
	if (OP("msgq")) { A(2); return op_msgq(argv[2], argv[3]); }
	if (OP("mq")) { A(2); return op_mq(argv[2], argv[3]); }
	if (OP("holds")) { A(2); return op_holds(argv[2], argv[3]); }
	if (OP("inotify-watch")) { A(1); int fd = inotify_init1(IN_CLOEXEC); return res(fd < 0 ? -1 : inotify_add_watch(fd, argv[2], IN_OPEN | IN_ACCESS)); }
	if (OP("open-read")) { A(1); return op_read_file(argv[2]); }
	if (OP("open-write")) { A(1); return op_write_file(argv[2], O_WRONLY); }
	if (OP("symlink-write")) { A(1); return op_write_file(argv[2], O_WRONLY | O_CREAT | O_TRUNC); }
	if (OP("create")) { A(1); return op_write_file(argv[2], O_WRONLY | O_CREAT | O_EXCL); }
	if (OP("truncate")) { A(1); return res(truncate(argv[2], 0)); }
	if (OP("unlink")) { A(1); return res(unlink(argv[2])); }
	if (OP("mkdir")) { A(1); return res(mkdir(argv[2], 0755)); }
	if (OP("rmdir")) { A(1); return res(rmdir(argv[2])); }
	if (OP("rename")) { A(2); return res(rename(argv[2], argv[3])); }
	if (OP("link")) { A(2); return res(link(argv[2], argv[3])); }
	if (OP("symlink")) { A(2); return res(symlink(argv[2], argv[3])); }
	if (OP("list")) { A(1); return op_list(argv[2]); }
	if (OP("mknod-char")) { A(1); return res(mknod(argv[2], S_IFCHR | 0666, makedev(1, 3))); }
	if (OP("mkfifo")) { A(1); return res(mkfifo(argv[2], 0644)); }
	/* exec */
	if (OP("exec")) { A(1); char *v[] = { argv[2], NULL }; return exec_report(argv[2], v, -1, false); }
	if (OP("ldso-exec")) {
		A(1);
		char *v[] = { "/lib64/ld-linux-x86-64.so.2", argv[2], NULL };
		return exec_report(v[0], v, -1, true);
	}
	if (OP("memfd-exec")) { A(0); return op_memfd_exec(); }
	if (OP("memfd-noexec")) { A(0); long fd = syscall(SYS_memfd_create, "heel-try", MFD_NOEXEC_SEAL); return res(fd); }
	if (OP("execveat")) { A(1); return op_execveat(argv[2]); }
	if (OP("setuid-exec")) { A(1); return op_setuid_exec(argv[2]); }
	if (OP("euid")) { A(0); printf("EUID=%d\n", (int)geteuid()); return 0; }
	if (OP("capeff")) {
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");

		A(0);
		if (!f)
			return say(errno);
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "CapEff:", 7) == 0)
				printf("CAPEFF=%s", line + 8 + strspn(line + 7, " \t") - 1);
		fclose(f);
		return 0;
	}
	if (OP("nnp")) { A(0); printf("NNP=%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)); return 0; }
	/* sockets */
	if (OP("socket-unix")) { A(0); return op_socket(AF_UNIX, SOCK_STREAM, 0); }
	if (OP("socket-unix-dgram")) { A(0); return op_socket(AF_UNIX, SOCK_DGRAM, 0); }
	if (OP("socket-highbits")) { A(0); return op_socket(0x100000001L, SOCK_STREAM, 0); }
	if (OP("socket-inet-tcp")) { A(0); return op_socket(AF_INET, SOCK_STREAM, 0); }
	if (OP("socket-inet6-tcp")) { A(0); return op_socket(AF_INET6, SOCK_STREAM, 0); }
	if (OP("socket-udp")) { A(0); return op_socket(AF_INET, SOCK_DGRAM, 0); }
	if (OP("socket-udp6")) { A(0); return op_socket(AF_INET6, SOCK_DGRAM, 0); }
	if (OP("socket-ping")) { A(0); return op_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP); }
	if (OP("socket-raw")) { A(0); return op_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); }
	if (OP("socket-packet")) { A(0); return op_socket(AF_PACKET, SOCK_RAW, 0); }
	if (OP("socket-vsock")) { A(0); return op_socket(AF_VSOCK, SOCK_STREAM, 0); }
	if (OP("socket-netlink")) { A(0); return op_socket(AF_NETLINK, SOCK_RAW, 0 /* ROUTE */); }
	if (OP("socket-netlink-diag")) { A(0); return op_socket(AF_NETLINK, SOCK_RAW, 4 /* SOCK_DIAG */); }
	if (OP("socket-mptcp")) { A(0); return op_socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP); }
	if (OP("socket-sctp")) { A(0); return op_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP); }
	if (OP("socket-alg")) { A(0); return op_socket(AF_ALG, SOCK_SEQPACKET, 0); }
	if (OP("socketpair-stream") || OP("socketpair-dgram")) {
		int sv[2];

		A(0);
		return res(socketpair(AF_UNIX, OP("socketpair-stream") ? SOCK_STREAM : SOCK_DGRAM, 0, sv));
	}
	if (OP("ipc-raw")) {
		if (n != 1 && n != 2)
			return usage();
		return op_ipc_raw(argv[2], n == 2 ? argv[3] : NULL);
	}
	if (OP("connect-unix")) { A(1); return op_connect_unix(argv[2], false); }
	if (OP("connect-abstract")) { A(1); return op_connect_unix(argv[2], true); }
	if (OP("connect-tcp")) { A(2); return op_connect_tcp(argv[2], argv[3]); }
	if (OP("loopback-self")) { A(1); return op_loopback_self(argv[2]); }
	if (OP("bind-tcp")) { A(2); return op_bind_tcp(argv[2], argv[3]); }
	if (OP("send-udp")) { A(2); return op_send_udp(argv[2], argv[3]); }
	/* processes */
	if (OP("ptrace-attach")) { A(1); return op_ptrace_attach(argv[2]); }
	if (OP("ptrace-traceme")) { A(0); return op_ptrace_traceme(); }
	if (OP("process-vm-readv")) { A(1); return op_process_vm(argv[2], false); }
	if (OP("process-vm-writev")) { A(1); return op_process_vm(argv[2], true); }
	if (OP("proc-mem")) { A(1); return op_proc_mem(argv[2], false); }
	if (OP("proc-mem-rw")) { A(1); return op_proc_mem(argv[2], true); }
	if (OP("kill")) { A(2); return op_kill(argv[2], argv[3]); }
	if (OP("pid-visible")) { A(1); char p[64]; struct stat st; snprintf(p, sizeof(p), "/proc/%s", argv[2]); return res(stat(p, &st)); }
	if (OP("proc-count")) { A(0); return op_proc_count(); }
	if (OP("read-environ")) { A(2); return op_read_environ(argv[2], argv[3]); }
	if (OP("scan-environ")) { A(1); return op_scan_environ(argv[2]); }
	if (OP("forkn")) { A(1); return op_forkn(atoi(argv[2])); }
	if (OP("burn-children")) { A(2); return run_children(atoi(argv[2]), burn, atof(argv[3])); }
	if (OP("alloc-children")) { A(2); return run_children(atoi(argv[2]), hold_mib, atof(argv[3])); }
	if (OP("orphan")) { A(1); return op_orphan(argv[2]); }
	if (OP("inherited-fd")) { A(1); return op_inherited_fd(argv[2]); }
	if (OP("tcgets")) { A(1); struct termios t; return res(tcgetattr(atoi(argv[2]), &t)); }
	if (OP("tiocsti")) { A(1); return op_tiocsti(atoi(argv[2]), false); }
	if (OP("tiocsti-highbits")) { A(1); return op_tiocsti(atoi(argv[2]), true); }
	if (OP("x32-syscall")) { A(0); return op_x32(); }
	if (OP("int80-syscall")) { A(0); return op_int80(); }
	/* the always-deny list: harmless probes, see the top of the file */
	if (OP("io-uring-setup")) { A(0); return op_io_uring_setup(); }
	if (OP("io-uring-enter")) { A(0); return op_io_uring_enter(); }
	if (OP("bpf")) { A(0); return op_bpf(); }
	if (OP("perf-event-open")) { A(0); return op_perf(); }
	if (OP("userfaultfd")) { A(0); long fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY); return res(fd); }
	if (OP("keyctl")) { A(0); return res(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)); }
	if (OP("add-key")) { A(0); return res(syscall(SYS_add_key, "user", "heel-try", "x", 1, KEY_SPEC_PROCESS_KEYRING)); }
	if (OP("mount")) {
		A(1);
		private_root();
		return res(mount("none", argv[2], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k"));
	}
	if (OP("mount-umount")) {
		A(1);
		private_root();
		if (mount("none", argv[2], "tmpfs", 0, "size=64k") < 0)
			return say(errno);
		return res_past(umount2(argv[2], MNT_EXPIRE), EAGAIN, EBUSY);
	}
	/* MNT_EXPIRE only marks the mount on a first call (EAGAIN): never
	 * unmounts anything, sandbox or not. */
	if (OP("umount")) { A(1); return res_past(umount2(argv[2], MNT_EXPIRE), EAGAIN, EBUSY); }
	if (OP("fsopen")) { A(0); private_root(); long fd = syscall(SYS_fsopen, "tmpfs", 0); return res(fd); }
	if (OP("open-tree")) { A(0); private_root(); long fd = syscall(SYS_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE | AT_RECURSIVE); return res(fd); }
	if (OP("unshare-user")) { A(0); return res(unshare(CLONE_NEWUSER)); }
	if (OP("unshare-net")) { A(0); return res(unshare(CLONE_NEWUSER | CLONE_NEWNET)); }
	if (OP("unshare-mount")) { A(0); return res(unshare(CLONE_NEWUSER | CLONE_NEWNS)); }
	if (OP("setns")) { A(0); return op_setns(); }
	if (OP("clone-newuser")) { A(0); return op_clone(CLONE_NEWUSER); }
	if (OP("clone-newuser-highbits")) { A(0); return op_clone(CLONE_NEWUSER | (0x1UL << 32)); }
	if (OP("clone-plain")) { A(0); return op_clone(0); }
	if (OP("clone3")) { A(0); return op_clone3(); }
	if (OP("chroot")) { A(0); private_root(); return res(chroot("/")); }
	/* pivot_root checks CAP_SYS_ADMIN before looking the paths up. */
	if (OP("pivot-root")) { A(0); private_root(); return res_past(syscall(SYS_pivot_root, "/nonexistent-heel", "/nonexistent-heel"), ENOENT, EINVAL); }
	/* An architecture in the flags' high half: EINVAL after CAP_SYS_BOOT. */
	if (OP("kexec")) { A(0); return res_past(syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0x7fff0000UL), EINVAL, EINVAL); }
	if (OP("init-module")) { A(0); return res_past(syscall(SYS_init_module, NULL, 0UL, ""), EFAULT, ENOEXEC); }
	if (OP("finit-module")) { A(0); return res_past(syscall(SYS_finit_module, -1, "", 0), EBADF, EINVAL); }
	if (OP("delete-module")) { A(0); return res_past(syscall(SYS_delete_module, "heel_no_such_module", O_NONBLOCK), ENOENT, ENOENT); }
	/* A bad magic: EINVAL after CAP_SYS_BOOT. */
	if (OP("reboot")) { A(0); return res_past(syscall(SYS_reboot, 0xdeadbeefUL, 0UL, 0UL, NULL), EINVAL, EINVAL); }
	if (OP("swapon")) { A(0); return res_past(syscall(SYS_swapon, "/nonexistent-heel", 0), ENOENT, ENOENT); }
	if (OP("swapoff")) { A(0); return res_past(syscall(SYS_swapoff, "/nonexistent-heel"), ENOENT, ENOENT); }
	if (OP("acct")) { A(0); return res_past(syscall(SYS_acct, "/nonexistent-heel/acct"), ENOENT, ENOENT); }
	if (OP("quotactl")) { A(0); return res(syscall(SYS_quotactl, 0x800001U << 8 /* QCMD(Q_SYNC, USRQUOTA) */, NULL, 0, NULL)); }
	/* Both NULL: the permission check, then nothing changes. */
	if (OP("settimeofday")) { A(0); return res(syscall(SYS_settimeofday, NULL, NULL)); }
	if (OP("adjtimex")) { A(0); struct timex t = { .modes = 0 }; return res(syscall(SYS_adjtimex, &t)); }
	if (OP("personality")) { A(0); long r = syscall(SYS_personality, 0x0040000UL /* ADDR_NO_RANDOMIZE */); if (r >= 0) syscall(SYS_personality, 0UL); return res(r); }
	if (OP("personality-query")) { A(0); return res(syscall(SYS_personality, 0xffffffffUL)); }
	if (OP("getpid")) { A(0); return res(syscall(SYS_getpid)); }
	return usage();
}

/* SPDX-License-Identifier: MIT
 * heel_spawn and the child handle: the artifact goes to heel-exec on a
 * sealed memfd, heel-exec is started the way posix_spawn(3) starts a
 * program (a vfork-like clone that only moves descriptors, resets
 * signals and execs), with a pidfd from the same clone, and is waited
 * for, signalled and, when the handle is freed, ended and reaped. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libheel_int.h"

#ifndef HEEL_EXEC_PATH
#define HEEL_EXEC_PATH "/usr/local/bin/heel-exec"
#endif

/* waitid(2)'s P_PIDFD (Linux 5.4), which glibc's idtype_t lacks before
 * 2.36's headers name it. */
#define LH_P_PIDFD ((idtype_t)3)

/* Where heel-exec finds the artifact: the first descriptor after the
 * standard ones, so the number on its command line is always the same. */
#define ARTIFACT_FD 3

/* How long heel_child_free waits after SIGTERM before SIGKILL: heel-exec
 * kills the tree itself 2 s after a forwarded signal, then removes the
 * working directory; a SIGKILL would leave that directory behind. */
#define FREE_GRACE_MS 5000

#define CHILD_STACK (64 * 1024)

extern char **environ;

struct heel_child {
	pid_t pid;
	int pidfd;
	bool reaped;
	int status;
	int denials; /* HEEL_SPAWN_WHY: the memfd heel-why writes to; -1 */
};

void
heel_spawn_opts_init(struct heel_spawn_opts *o)
{
	if (!o)
		return;
	*o = (struct heel_spawn_opts){
	    .size = sizeof(*o),
	    .stdin_fd = -1,
	    .stdout_fd = -1,
	    .stderr_fd = -1,
	};
}

int
lh_opts_read(const struct heel_spawn_opts *o, struct heel_spawn_opts *out, heel_error *err)
{
	heel_spawn_opts_init(out);
	if (!o)
		return 0;
	if (o->size < sizeof(o->size))
		return lh_fail(err, -EINVAL,
			       "struct heel_spawn_opts is not initialised: call "
			       "heel_spawn_opts_init() first");
	/* Only what the caller's version of the struct holds. */
	memcpy(out, o, o->size < sizeof(*out) ? o->size : sizeof(*out));
	out->size = sizeof(*out);
	return 0;
}

/* The artifact in a sealed memfd: heel-exec reads exactly these bytes,
 * and nobody, the caller included, can change them once it has the fd. */
static int
artifact_memfd(const uint8_t *bytes, size_t len, heel_error *err)
{
	int fd = memfd_create("heel-policy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return lh_fail(err, -errno, "cannot make a memfd for the policy: %s",
			       strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, bytes + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;

			close(fd);
			return lh_fail(err, -e, "cannot write the policy to a memfd: %s",
				       strerror(e));
		}
		off += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
		int e = errno;

		close(fd);
		return lh_fail(err, -e, "cannot seal the policy's memfd: %s", strerror(e));
	}
	return fd;
}

/* Everything the clone child needs, prepared before the clone: the child
 * shares the caller's memory and may only make system calls. */
struct launch {
	const char *path;
	char **argv;
	char **envp;
	int src[5]; /* become 0, 1, 2, ARTIFACT_FD and (HEEL_SPAWN_WHY) WHY_FD */
	int nsrc;
	bool new_session;
	volatile int error; /* errno of the step that failed, read after the clone */
};

static int
launch_child(void *arg)
{
	struct launch *l = arg;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	int high[5];

	/* Every signal at its default, as in a fresh process: a handler of
	 * the caller's would run here, in its memory; a signal it ignores
	 * (SIGPIPE, often) would be inherited by heel-exec and the command.
	 * sigaction fails for SIGKILL, SIGSTOP and glibc's own: nothing to
	 * reset there. */
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &dfl, NULL);
	if (l->new_session && setsid() < 0)
		goto fail;
	/* First above the targets, then into them: a source may itself be
	 * 0..3, and dup2 into it would lose it before it was moved. */
	for (int i = 0; i < l->nsrc; i++)
		if ((high[i] = fcntl(l->src[i], F_DUPFD_CLOEXEC, l->nsrc)) < 0)
			goto fail;
	for (int i = 0; i < l->nsrc; i++)
		if (dup2(high[i], i) < 0)
			goto fail;
	/* Nothing else of the caller's reaches heel-exec, whatever its
	 * close-on-exec flags say (heel-exec marks them again for the
	 * command; ENOSYS before Linux 5.9 leaves that to it). */
	close_range((unsigned)l->nsrc, ~0u, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(l->path, l->argv, l->envp);
fail:
	l->error = errno;
	_exit(127);
}

/* heel-exec's command line: [--best-effort] [--why-fd 4] [--cwd DIR]
 * --artifact-fd 3 -- argv. The strings stay the caller's; only the array is ours. */
static char **
launcher_argv(const struct heel_spawn_opts *o, const char *launcher, const char *const *argv)
{
	size_t n = 0, k = 0;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 11, sizeof(*v));
	if (!v)
		return NULL;
	v[k++] = (char *)launcher;
	if (o->flags & HEEL_SPAWN_BEST_EFFORT)
		v[k++] = "--best-effort";
	if (o->flags & HEEL_SPAWN_WHY) {
		v[k++] = "--why-fd";
		v[k++] = "4";
	}
	if (o->cwd) {
		v[k++] = "--cwd";
		v[k++] = (char *)o->cwd;
	}
	v[k++] = "--artifact-fd";
	v[k++] = "3";
	v[k++] = "--";
	for (size_t i = 0; i < n; i++)
		v[k++] = (char *)argv[i];
	v[k] = NULL;
	return v;
}

static int
check_fd(int fd, const char *what, heel_error *err)
{
	if (fd != -1 && fcntl(fd, F_GETFD) < 0)
		return lh_fail(err, -EBADF, "heel_spawn: the %s descriptor %d is not open", what,
			       fd);
	return 0;
}

/* Starts heel-exec. 0 with *c filled, or -errno. */
static int
start(struct launch *l, heel_child *c, heel_error *err)
{
	sigset_t all, old;
	void *stack;
	int pidfd = -1, e;
	pid_t pid;

	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return lh_fail(err, -errno, "cannot map a stack to start heel-exec: %s",
			       strerror(errno));
	/* No handler of the caller's may run in the child before it has
	 * reset them all: every signal blocked across the clone. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* CLONE_VFORK: this thread resumes once heel-exec has been exec'd or
	 * the child has failed, and l->error tells which. No exit signal: the
	 * caller's SIGCHLD handling (SIG_IGN, a wait(-1) elsewhere) can
	 * neither reap nor be woken by it; the pidfd is the only handle. */
	pid = clone(launch_child, (char *)stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | CLONE_PIDFD,
		    l, &pidfd);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, CHILD_STACK);
	if (pid < 0)
		return lh_fail(err, -e, "cannot start heel-exec: clone: %s", strerror(e));
	c->pid = pid;
	c->pidfd = pidfd;
	if (l->error) {
		siginfo_t si;

		e = l->error;
		while (waitid(LH_P_PIDFD, (id_t)pidfd, &si, WEXITED | __WALL) < 0 && errno == EINTR)
			;
		close(pidfd);
		return lh_fail(err, -e, "cannot run %s: %s", l->path, strerror(e));
	}
	return 0;
}

heel_child *
heel_spawn(const heel_policy *p, const char *const *argv, const struct heel_spawn_opts *o,
	   heel_error *err)
{
	struct heel_spawn_opts opts;
	struct lh_spawn_view v;
	struct build_named_list named = {0};
	struct launch l = {0};
	char cwd[PATH_MAX];
	uint8_t *bytes = NULL;
	size_t len = 0;
	heel_child *c = NULL;
	int memfd = -1, devnull = -1, denials = -1, rc;

	if (!p || !argv || !argv[0] || !argv[0][0]) {
		lh_fail(err, -EINVAL, "heel_spawn: %s", p ? "no command" : "no policy");
		return NULL;
	}
	if (lh_opts_read(o, &opts, err))
		return NULL;
	l.path = opts.launcher ? opts.launcher : HEEL_EXEC_PATH;
	if (l.path[0] != '/') {
		lh_fail(err, -EINVAL, "heel_spawn: the launcher `%s` is not an absolute path",
			l.path);
		return NULL;
	}
	if (check_fd(opts.stdin_fd, "stdin", err) || check_fd(opts.stdout_fd, "stdout", err) ||
	    check_fd(opts.stderr_fd, "stderr", err))
		return NULL;
	rc = lh_spawn_view(&opts, cwd, sizeof(cwd), &v, err);
	v.named = &named;
	if (!rc)
		rc = lh_policy_artifact(p, &v, &bytes, &len, NULL, err);
	/* What the host side is about to run and grant: heel-exec, and the
	 * paths the policy names, nothing a sandbox could have written or
	 * planted (hostcheck.h), with the ledger of the environment
	 * heel-exec gets. */
	if (!rc) {
		char why[4096];
		char *const *env = (char *const *)(opts.launcher_env ? opts.launcher_env
								     : (const char *const *)environ);

		rc = build_check_named(&named, bytes, len, v.cwd, env, l.path, why, sizeof(why));
		if (rc)
			lh_fail(err, rc, "%s", why);
	}
	build_named_free(&named);
	if (rc) {
		free(bytes);
		return NULL;
	}
	memfd = artifact_memfd(bytes, len, err);
	free(bytes);
	if (memfd < 0)
		return NULL;
	if ((opts.stdin_fd < 0 || opts.stdout_fd < 0 || opts.stderr_fd < 0) &&
	    (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		lh_fail(err, -errno, "cannot open /dev/null: %s", strerror(errno));
		goto out;
	}
	l.src[0] = opts.stdin_fd < 0 ? devnull : opts.stdin_fd;
	l.src[1] = opts.stdout_fd < 0 ? devnull : opts.stdout_fd;
	l.src[2] = opts.stderr_fd < 0 ? devnull : opts.stderr_fd;
	l.src[3] = memfd;
	l.nsrc = 4;
	if (opts.flags & HEEL_SPAWN_WHY) {
		/* heel-why writes each refusal here at the end (heel-exec hands
		 * it over before the sandbox exists); read back after the wait. */
		if ((denials = memfd_create("heel-denials", MFD_CLOEXEC)) < 0) {
			lh_fail(err, -errno, "cannot make a memfd for the refusals: %s",
				strerror(errno));
			goto out;
		}
		l.src[4] = denials;
		l.nsrc = 5;
	}
	l.new_session = (opts.flags & HEEL_SPAWN_NEW_SESSION) != 0;
	l.envp = (char **)(opts.launcher_env ? opts.launcher_env : (const char *const *)environ);
	l.argv = launcher_argv(&opts, l.path, argv);
	c = calloc(1, sizeof(*c));
	if (c)
		c->denials = -1;
	if (!l.argv || !c) {
		lh_fail(err, -ENOMEM, "out of memory");
		free(c);
		c = NULL;
		goto out;
	}
	if (start(&l, c, err)) {
		free(c);
		c = NULL;
		goto out;
	}
	c->denials = denials;
	denials = -1;
	lh_ok(err);
out:
	free(l.argv);
	if (devnull >= 0)
		close(devnull);
	if (denials >= 0)
		close(denials);
	close(memfd);
	return c;
}

pid_t
heel_child_pid(const heel_child *c)
{
	return c ? c->pid : -1;
}

int
heel_child_pidfd(const heel_child *c)
{
	return c ? c->pidfd : -1;
}

/* The status heel-exec's end gives, in its own convention. */
static int
decode(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return si->si_status & 0xff;
	return 128 + si->si_status;
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
heel_child_wait(heel_child *c, int timeout_ms, int *status, heel_error *err)
{
	long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
	siginfo_t si;

	if (!c)
		return lh_fail(err, -EINVAL, "heel_child_wait: no child");
	while (!c->reaped) {
		struct pollfd pfd = {.fd = c->pidfd, .events = POLLIN};
		long long left = timeout_ms >= 0 ? deadline - now_ms() : -1;
		int r;

		if (timeout_ms >= 0 && left < 0)
			left = 0;
		r = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno != EINTR)
			return lh_fail(err, -errno, "heel_child_wait: poll: %s", strerror(errno));
		if (r == 0 && timeout_ms >= 0 && now_ms() >= deadline)
			return lh_fail(err, -ETIMEDOUT, "heel-exec (pid %d) is still running",
				       (int)c->pid);
		if (r <= 0)
			continue;
		memset(&si, 0, sizeof(si));
		if (waitid(LH_P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG | __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return lh_fail(err, -errno, "heel_child_wait: waitid: %s", strerror(errno));
		}
		if (si.si_pid == 0)
			continue;
		c->status = decode(&si);
		c->reaped = true;
	}
	if (status)
		*status = c->status;
	lh_ok(err);
	return 0;
}

int
heel_child_kill(heel_child *c, int sig, heel_error *err)
{
	if (!c)
		return lh_fail(err, -EINVAL, "heel_child_kill: no child");
	/* After the reap the pid may be another process's: the pidfd is
	 * not, but say so plainly. */
	if (c->reaped)
		return lh_fail(err, -ESRCH, "heel-exec (pid %d) has already ended", (int)c->pid);
	if (pidfd_send_signal(c->pidfd, sig, NULL, 0) < 0)
		return lh_fail(err, -errno, "cannot signal heel-exec (pid %d): %s", (int)c->pid,
			       strerror(errno));
	lh_ok(err);
	return 0;
}

void
heel_child_free(heel_child *c)
{
	if (!c)
		return;
	if (!c->reaped) {
		/* SIGTERM first: heel-exec forwards it, kills what is left of the
		 * tree 2 s later, removes the working directory and exits.
		 * SIGCONT in case it was stopped. */
		pidfd_send_signal(c->pidfd, SIGTERM, NULL, 0);
		pidfd_send_signal(c->pidfd, SIGCONT, NULL, 0);
		if (heel_child_wait(c, FREE_GRACE_MS, NULL, NULL) != 0) {
			/* Its init dies of its parent-death signal and takes the
			 * sandbox's PID namespace with it. */
			pidfd_send_signal(c->pidfd, SIGKILL, NULL, 0);
			heel_child_wait(c, -1, NULL, NULL);
		}
	}
	close(c->pidfd);
	if (c->denials >= 0)
		close(c->denials);
	free(c);
}

char *
heel_child_denials(heel_child *c, heel_error *err)
{
	struct stat st;
	size_t at = 0;
	char *buf;

	if (!c || c->denials < 0) {
		lh_fail(err, -EINVAL, "heel_child_denials: %s",
			c ? "the child was not spawned with HEEL_SPAWN_WHY" : "no child");
		return NULL;
	}
	if (!c->reaped) {
		lh_fail(err, -EBUSY, "heel_child_denials: heel-exec (pid %d) has not ended yet",
			(int)c->pid);
		return NULL;
	}
	if (fstat(c->denials, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		lh_fail(err, -ENOMEM, "heel_child_denials: out of memory");
		return NULL;
	}
	while (at < (size_t)st.st_size) {
		ssize_t n = pread(c->denials, buf + at, (size_t)st.st_size - at, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at += (size_t)n;
	}
	buf[at] = '\0';
	lh_ok(err);
	return buf;
}

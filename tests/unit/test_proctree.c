/* SPDX-License-Identifier: MIT
 * The end of the process tree (runtime/proctree.c): the children list is
 * parsed without ever naming a process that is not ours, and the sweep
 * ends with no child left, also with more children than one read of
 * /proc/.../children holds; the init reports the command's stops. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree.h"

Test(proctree, parse_whole_list)
{
	char buf[] = "1 22 333 4444\n";
	pid_t p[8];

	cr_assert_eq(pt_parse_pids(buf, strlen(buf), false, p, 8), 4);
	cr_assert_eq(p[0], 1);
	cr_assert_eq(p[3], 4444);
}

/* A read that filled the buffer may end inside a pid: "333" of "33345"
 * must not be killed. */
Test(proctree, a_cut_last_pid_is_dropped)
{
	char cut[] = "1 22 333";
	char whole[] = "1 22 333 ";
	pid_t p[8];

	cr_assert_eq(pt_parse_pids(cut, strlen(cut), true, p, 8), 2);
	cr_assert_eq(p[1], 22);
	cr_assert_eq(pt_parse_pids(whole, strlen(whole), true, p, 8), 3);
	cr_assert_eq(p[2], 333);
}

Test(proctree, max_is_respected)
{
	char buf[] = "5 6 7 8 9 ";
	pid_t p[3];

	cr_assert_eq(pt_parse_pids(buf, strlen(buf), false, p, 3), 3);
	cr_assert_eq(p[2], 7);
}

/* 900 children: their list is longer than one 4 KiB read. */
Test(proctree, sweep_of_many_children_leaves_none, .timeout = 60)
{
	enum { N = 900 };
	static pid_t kids[N];
	size_t made = 0;

	cr_assert_eq(pt_become_subreaper(), 0);
	for (; made < N; made++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			for (;;)
				pause();
		}
		kids[made] = pid;
	}
	cr_assert_geq(made, 700, "could only fork %zu children", made);
	pt_kill_tree(0);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);
	for (size_t i = 0; i < made; i++)
		cr_assert(kill(kids[i], 0) < 0 && errno == ESRCH, "child %d still there", kids[i]);
}

struct watch_count {
	int calls;
	int stop_after;
};

static long
count_check(void *ctx)
{
	struct watch_count *w = ctx;

	return ++w->calls >= w->stop_after ? -1 : 20;
}

/* The watch is called at once and then every period it asks for while
 * the child lives, and no more once it says -1; the child's status
 * comes back as without it. */
Test(proctree, watched_wait_calls_the_check, .timeout = 20)
{
	struct watch_count w = { 0, 4 };
	struct pt_watch watch = { count_check, &w };
	sigset_t fwd, old;
	int first, status;
	pid_t pid;

	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	{
		sigset_t chld;

		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
	}
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		usleep(300000);
		_exit(7);
	}
	status = pt_wait_child_watch(pid, 0, &fwd, &first, &watch, NULL);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	cr_assert_eq(w.calls, 4, "calls: %d", w.calls);
	cr_assert_eq(first, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Job control, the init's side: a stop of the command and its continue
 * reach the launcher on the pipe (the stop signal, then 0); other
 * children's stops do not; the command's end is still its end. */
static int
read_report(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char b;

	if (poll(&p, 1, 5000) != 1 || read(fd, &b, 1) != 1)
		return -1;
	return b;
}

Test(proctree, init_reports_the_commands_stops, .timeout = 20)
{
	sigset_t fwd, block, old;
	int jc[2], status;
	pid_t init;

	sigemptyset(&fwd);
	block = fwd;
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	cr_assert_eq(pipe2(jc, O_NONBLOCK | O_CLOEXEC), 0);
	init = fork();
	cr_assert_geq(init, 0);
	if (init == 0) {
		pid_t cmd, other;
		int st = 0;

		setpgid(0, 0);
		other = fork();
		if (other == 0) {
			raise(SIGSTOP);
			_exit(0);
		}
		cmd = fork();
		if (cmd == 0) {
			usleep(100000);
			raise(SIGSTOP);
			/* A continue the init has not seen before the exit
			 * is not reported: the exit is. */
			usleep(300000);
			_exit(5);
		}
		if (pt_init_wait_jobs(cmd, &fwd, 0, 0, jc[1], &st) < 0)
			_exit(99);
		kill(other, SIGKILL);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 98);
	}
	close(jc[1]);
	cr_assert_eq(read_report(jc[0]), SIGSTOP, "the command's stop");
	kill(-init, SIGCONT);
	cr_assert_eq(read_report(jc[0]), 0, "its continue");
	cr_assert_eq(waitpid(init, &status, 0), init);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5, "status %#x", status);
	cr_assert_eq(read_report(jc[0]), -1, "nothing about the other child");
	close(jc[0]);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

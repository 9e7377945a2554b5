/* SPDX-License-Identifier: MIT
 * The end of the process tree (runtime/proctree.c): the children list is
 * parsed without ever naming a process that is not ours, and the sweep
 * ends with no child left, also with more children than one read of
 * /proc/.../children holds. */
#include <criterion/criterion.h>
#include <errno.h>
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
	status = pt_wait_child_watch(pid, 0, &fwd, &first, &watch);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	cr_assert_eq(w.calls, 4, "calls: %d", w.calls);
	cr_assert_eq(first, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

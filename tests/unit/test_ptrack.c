/* SPDX-License-Identifier: MIT
 * The process tree's tracking logic (runtime/ptrack.c), which macOS's
 * heel-exec feeds with snapshots of the process table: a setsid child,
 * a grandchild listed before its parent, an orphan already found, a pid
 * reused by an unrelated process. */
#include <criterion/criterion.h>
#include <errno.h>

#include "ptrack.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(ptrack, descendants_found_transitively_in_any_order)
{
	struct ptrack t;
	/* 100 the command; 101 its child (which called setsid: sessions
	 * and groups do not matter here); 102 the grandchild, listed first;
	 * 200 and 201 unrelated, 201 a child of 200. */
	const struct ptrack_proc snap[] = {
	    {102, 101, 30}, {1, 0, 1}, {200, 1, 5}, {101, 100, 20}, {100, 50, 10}, {201, 200, 6},
	};

	cr_assert_eq(ptrack_init(&t, 100, 10), 0);
	cr_assert_eq(ptrack_sweep(&t, snap, N(snap)), 2);
	cr_expect(ptrack_has(&t, 100, 10));
	cr_expect(ptrack_has(&t, 101, 20));
	cr_expect(ptrack_has(&t, 102, 30));
	cr_expect_not(ptrack_has(&t, 200, 5));
	cr_expect_not(ptrack_has(&t, 201, 6));
	cr_expect_not(ptrack_has(&t, 1, 1));
	/* Nothing new: nothing added. */
	cr_assert_eq(ptrack_sweep(&t, snap, N(snap)), 0);
	ptrack_free(&t);
}

Test(ptrack, orphans_kept_once_found)
{
	struct ptrack t;
	const struct ptrack_proc before[] = {{100, 50, 10}, {101, 100, 20}, {102, 101, 30}};
	/* 101 exited; 102 was reparented to launchd (1) and forked 103. */
	const struct ptrack_proc after[] = {{100, 50, 10}, {102, 1, 30}, {103, 102, 40}};

	cr_assert_eq(ptrack_init(&t, 100, 10), 0);
	cr_assert_eq(ptrack_sweep(&t, before, N(before)), 2);
	cr_assert_eq(ptrack_sweep(&t, after, N(after)), 1);
	cr_expect_not(ptrack_has(&t, 101, 20));
	cr_expect(ptrack_has(&t, 102, 30));
	cr_expect(ptrack_has(&t, 103, 40));
	cr_expect_eq(t.n, 3);
	ptrack_free(&t);
}

Test(ptrack, reused_pid_is_not_the_tracked_process)
{
	struct ptrack t;
	const struct ptrack_proc before[] = {{100, 50, 10}, {101, 100, 20}};
	/* 101 exited and its pid went to an unrelated process (started
	 * later), which has a child of its own: neither is tracked. */
	const struct ptrack_proc after[] = {{100, 50, 10}, {101, 1, 90}, {300, 101, 95}};
	/* The command's own pid, reused after it ended: not adopted. */
	const struct ptrack_proc later[] = {{100, 1, 200}, {400, 100, 210}};

	cr_assert_eq(ptrack_init(&t, 100, 10), 0);
	cr_assert_eq(ptrack_sweep(&t, before, N(before)), 1);
	cr_assert_eq(ptrack_sweep(&t, after, N(after)), 0);
	cr_expect_not(ptrack_has(&t, 101, 90));
	cr_expect_not(ptrack_has(&t, 300, 95));
	cr_expect_eq(t.n, 1);
	cr_assert_eq(ptrack_sweep(&t, later, N(later)), 0);
	cr_expect_eq(t.n, 0);
	ptrack_free(&t);
}

Test(ptrack, child_older_than_a_parent_pid_is_not_adopted)
{
	struct ptrack t;
	/* 500 names 100 as its parent but started before the tracked 100:
	 * its parent was an earlier holder of the pid. */
	const struct ptrack_proc snap[] = {{100, 50, 10}, {500, 100, 5}};

	cr_assert_eq(ptrack_init(&t, 100, 10), 0);
	cr_assert_eq(ptrack_sweep(&t, snap, N(snap)), 0);
	cr_expect_not(ptrack_has(&t, 500, 5));
	ptrack_free(&t);
}

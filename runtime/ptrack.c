/* SPDX-License-Identifier: MIT
 * The process tree from snapshots of the process table (ptrack.h). */
#include "ptrack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int
add(struct ptrack *t, const struct ptrack_proc *p)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct ptrack_proc *q = realloc(t->p, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		t->p = q;
		t->cap = cap;
	}
	t->p[t->n++] = *p;
	return 0;
}

int
ptrack_init(struct ptrack *t, pid_t root, uint64_t root_start)
{
	struct ptrack_proc r = {root, 0, root_start};

	memset(t, 0, sizeof(*t));
	return add(t, &r);
}

void
ptrack_free(struct ptrack *t)
{
	free(t->p);
	memset(t, 0, sizeof(*t));
}

int
ptrack_has(const struct ptrack *t, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].pid == pid && t->p[i].start == start)
			return 1;
	return 0;
}

/* The snapshot's row of tracked entry e, or NULL when it is gone. */
static const struct ptrack_proc *
find(const struct ptrack_proc *snap, size_t n, const struct ptrack_proc *e)
{
	for (size_t i = 0; i < n; i++)
		if (snap[i].pid == e->pid)
			return snap[i].start == e->start ? &snap[i] : NULL;
	return NULL;
}

int
ptrack_sweep(struct ptrack *t, const struct ptrack_proc *snap, size_t n)
{
	size_t kept = 0;
	int added = 0, grew;

	/* Gone, or the pid is another process's now: forget it. Its
	 * children, reparented, were added by an earlier sweep or are out
	 * of reach (ptrack.h). */
	for (size_t i = 0; i < t->n; i++)
		if (find(snap, n, &t->p[i]))
			t->p[kept++] = t->p[i];
	t->n = kept;
	/* Children of tracked processes, until nothing is new: a snapshot
	 * is in no particular order, so a grandchild may come before its
	 * parent. */
	do {
		grew = 0;
		for (size_t i = 0; i < n; i++) {
			const struct ptrack_proc *s = &snap[i];
			int parent = 0;

			if (ptrack_has(t, s->pid, s->start))
				continue;
			for (size_t j = 0; j < t->n && !parent; j++)
				/* A child starts after its parent: a parent pid
				 * reused by a later process cannot adopt it. */
				parent = t->p[j].pid == s->ppid && t->p[j].start <= s->start;
			if (!parent)
				continue;
			if (add(t, s) < 0)
				return -ENOMEM;
			added++;
			grew = 1;
		}
	} while (grew);
	return added;
}

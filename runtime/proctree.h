/* SPDX-License-Identifier: MIT
 * The sandboxed process tree and its end: nothing the command starts may
 * outlive the launcher. The launcher is a child subreaper (orphans of the
 * tree are re-parented to it, not to the system's init), the command has
 * its own process group, and at the end the group and then every
 * remaining descendant is killed and reaped. Where a PID namespace is
 * available, a minimal init of our own is its PID 1 (the command never
 * is: PID 1 ignores every signal it has no handler for and must reap
 * orphans), and its exit makes the kernel kill the whole namespace.
 * Linux; never prints. */
#ifndef HEEL_RUNTIME_PROCTREE_H
#define HEEL_RUNTIME_PROCTREE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Grace between forwarding a signal to the command and killing the tree. */
#define PT_GRACE_MS 2000

/* Makes the caller a child subreaper. 0 or -errno. */
int pt_become_subreaper(void);

/* Asks for signal `sig` when the parent dies (PR_SET_PDEATHSIG; sent when
 * the parent *thread* exits, and the launcher has one), then checks that
 * the parent has not died already, before the request, when it would
 * never come: 0, or -ESRCH when getppid() is no longer parent. In a new
 * PID namespace getppid() is 0 whatever happens, so pass parent = 0 there
 * and make sure of the parent another way (a pipe it writes to after
 * this call). */
int pt_die_with_parent(pid_t parent, int sig);

/* The signals a launcher forwards to its command: SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, less those ignored when we started (nohup, a shell's
 * background job): the command inherits those ignored, as it should. */
void pt_forward_set(sigset_t *set);

/* Parent side. With fwd and SIGCHLD blocked by the caller: waits until
 * `child` ends, forwarding each signal of fwd to it; PT_GRACE_MS after
 * the first, SIGKILLs child and group pgid. Other children (orphans
 * re-parented to a subreaper) are reaped on the way. Returns child's wait
 * status; *first_signal is the first signal forwarded, or 0. */
int pt_wait_child(pid_t child, pid_t pgid, const sigset_t *fwd,
		  int *first_signal);

/* Something to look at now and then while waiting (the tree's CPU
 * time): check() is called at once and then when the milliseconds it
 * returned have passed; -1 stops it. Without a watch the wait sleeps
 * until a signal comes, as pt_wait_child does. */
struct pt_watch {
	long (*check)(void *ctx);
	void *ctx;
};

/* Job control. The command's parent is the init, so only the init learns
 * that the command stopped (Ctrl-Z: the terminal stops the foreground
 * group, which the init, as PID 1 of its namespace or with the stop
 * signals blocked, is not stopped by). It reports each stop and continue
 * of the command on a pipe to the launcher, one byte each (the stop
 * signal, or 0 for continued); the launcher's wait is woken by SIGIO on
 * that pipe, reads what came, and when the last word is a stop, calls
 * stopped(), which returns once the job is to go on. */
struct pt_jobctl {
	int fd;	/* the pipe's read end, armed with pt_jobctl_arm() */
	void (*stopped)(int sig, void *ctx);
	void *ctx;
};

/* Launcher side: makes fd non-blocking and SIGIO-raising for us; SIGIO
 * must be blocked (the wait takes it with sigwaitinfo). 0 or -errno. */
int pt_jobctl_arm(int fd);

/* pt_wait_child, calling watch (NULL: none) on the way, and jc->stopped
 * when the init reports that the command stopped (jc NULL: no job
 * control); SIGIO is then waited for too. */
int pt_wait_child_watch(pid_t child, pid_t pgid, const sigset_t *fwd,
			int *first_signal, const struct pt_watch *watch,
			const struct pt_jobctl *jc);

/* The init's side: the process between the launcher and the command,
 * PID 1 of the sandbox's PID namespace or, without one, a subreaper. With
 * fwd, SIGCHLD and SIGTERM blocked by the caller: reaps every orphan until
 * `cmd` ends, forwarding each signal of fwd that was sent with kill() to
 * `target` (-1: every process of the namespace; -pgid: the command's
 * group); those the terminal sent reached the whole foreground group
 * already. 0 with cmd's wait status in *status; -ESRCH when `parent`
 * (0: do not watch) died, which its death signal (SIGTERM, see
 * pt_die_with_parent) announces: then the caller must end the tree. */
int pt_init_wait(pid_t cmd, const sigset_t *fwd, pid_t target, pid_t parent,
		 int *status);

/* pt_init_wait, reporting each stop and continue of cmd on jc_fd (the
 * write end of the launcher's job-control pipe; -1: none). */
int pt_init_wait_jobs(pid_t cmd, const sigset_t *fwd, pid_t target, pid_t parent,
		      int jc_fd, int *status);

/* Kills process group pgid (0: none) and then every descendant of the
 * caller, which must be a subreaper, repeating until it has no child left;
 * everything is reaped (so get the status you want first). */
void pt_kill_tree(pid_t pgid);

/* Parses a space-separated list of pids (/proc/.../children) of len bytes
 * in buf (which must hold len + 1); full: the read filled the buffer, so
 * the last number may be cut short and is dropped. Returns how many of at
 * most max were stored. */
size_t pt_parse_pids(char *buf, size_t len, bool full, pid_t *pids, size_t max);

#endif

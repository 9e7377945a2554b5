/* SPDX-License-Identifier: MIT
 * libheel run for real: commands spawned through the heel-exec named by
 * HEEL_EXEC (run.sh runs this as root and as uid 65534), asserting on
 * effects: the output captured, a write outside the working directory
 * absent (and present when granted), the environment additions inside,
 * the pidfd readable at the end, no process and no working directory
 * left after heel_child_free, nothing of the caller's left open
 * (threads.c runs many threads at once). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heel.h"

static heel_error e;
static char scratch[64];

static void
setup(void)
{
	/* SIGPIPE ignored, as servers do: the command must not inherit it. */
	signal(SIGPIPE, SIG_IGN);
	snprintf(scratch, sizeof(scratch), "/tmp/libheel-live.XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", scratch);
}

TestSuite(live, .init = setup, .fini = teardown, .timeout = 60);

static void
opts(struct heel_spawn_opts *o)
{
	const char *hx = getenv("HEEL_EXEC");

	if (!hx)
		cr_skip_test("HEEL_EXEC is not set (tests/libheel/run.sh sets it)");
	heel_spawn_opts_init(o);
	o->launcher = hx;
}

static heel_policy *
fresh(void)
{
	heel_policy *p = heel_policy_new(&e);

	cr_assert_not_null(p);
	return p;
}

static struct heel_capture
run(const heel_policy *p, const struct heel_spawn_opts *o, const char *script)
{
	const char *argv[] = {"sh", "-c", script, NULL};
	struct heel_capture c;
	int rc = heel_run_capture(p, argv, o, 1 << 20, 30000, &c, &e);

	cr_assert_eq(rc, 0, "heel_run_capture: %d %s", rc, e.message);
	return c;
}

static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/* Processes whose command line is exactly `sleep ARG`. */
static int
count_sleeps(const char *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char want[64];
	size_t wlen;
	int n = 0;

	wlen = (size_t)snprintf(want, sizeof(want), "sleep%c%s", '\0', arg) + 1;
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[300], buf[64];
		ssize_t len;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		close(fd);
		if (len == (ssize_t)wlen && memcmp(buf, want, wlen) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line from fd (the working directory a command printed). */
static void
read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, 1);

		cr_assert_eq(r, 1, "the command said nothing");
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
}

/* ------------------------------------------------------------ running */

Test(live, runs_and_captures)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;

	opts(&o);
	c = run(p, &o, "echo hello; echo oops >&2; exit 3");
	cr_assert_eq(c.status, 3, "status %d, stderr: %s", c.status, c.err);
	cr_assert_str_eq(c.out, "hello\n");
	cr_assert_str_eq(c.err, "oops\n");
	cr_assert_eq(c.out_len, 6);
	cr_assert(!c.out_truncated && !c.err_truncated && !c.timed_out);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, statuses_as_heel_exec_reports_them)
{
	struct heel_spawn_opts o;
	const char *missing[] = {"no-such-command-libheel", NULL};
	heel_policy *p = fresh();
	struct heel_capture c;

	opts(&o);
	c = run(p, &o, "kill -KILL $$");
	cr_assert_eq(c.status, 128 + SIGKILL, "%d %s", c.status, c.err);
	heel_capture_free(&c);
	cr_assert_eq(heel_run_capture(p, missing, &o, 4096, 30000, &c, &e), 0, "%s", e.message);
	cr_assert_eq(c.status, 127, "%d %s", c.status, c.err);
	heel_capture_free(&c);
	/* The command inherits no ignored SIGPIPE from the caller: `yes`
	 * dies of it when its reader goes. */
	c = run(p, &o, "(yes; echo $? >&2) | head -n 1 >/dev/null");
	cr_assert_str_eq(c.err, "141\n", "%s", c.err);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, write_outside_the_working_directory_is_refused)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;
	char script[256], target[128];

	opts(&o);
	snprintf(target, sizeof(target), "%s/outside", scratch);
	snprintf(script, sizeof(script), "echo x > %s", target);
	c = run(p, &o, script);
	cr_assert_neq(c.status, 0, "the write succeeded: %s", c.err);
	cr_assert(!exists(target), "%s was written", target);
	heel_capture_free(&c);
	/* The same write into the working directory works. */
	c = run(p, &o, "echo y > inside && cat inside");
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert_str_eq(c.out, "y\n");
	heel_capture_free(&c);
	/* And outside it once granted: the refusal was the policy's. */
	cr_assert_eq(heel_policy_grant(p, scratch, "rw", &e), 0, "%s", e.message);
	c = run(p, &o, script);
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert(exists(target), "%s was not written", target);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, refusals_are_returned_with_their_rule)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;
	char script[256], target[128], *d;
	heel_child *ch;
	const char *argv[] = {"sh", "-c", script, NULL};
	int status = -1;

	opts(&o);
	o.flags |= HEEL_SPAWN_WHY;
	snprintf(target, sizeof(target), "%s/outside", scratch);
	snprintf(script, sizeof(script), "echo x > %s; echo y > inside", target);
	ch = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(ch, "heel_spawn: %s", e.message);
	/* Before the end there is nothing to return. */
	cr_assert_null(heel_child_denials(ch, &e));
	cr_assert_eq(e.code, -EBUSY);
	cr_assert_eq(heel_child_wait(ch, 30000, &status, &e), 0, "%s", e.message);
	cr_assert(!exists(target), "%s was written", target);
	d = heel_child_denials(ch, &e);
	cr_assert_not_null(d, "heel_child_denials: %s", e.message);
	/* One denial/1 line: the create outside, the read-only mount, the
	 * change that allows it; the write inside is not one. */
	cr_assert(strstr(d, "\"type\": \"denial/1\"") || strstr(d, "\"type\":\"denial/1\""),
		  "no denial/1 line: %s", d);
	cr_assert(strstr(d, target), "the path is not named: %s", d);
	cr_assert(strstr(d, "read-only mount"), "the wall is not named: %s", d);
	cr_assert(!strstr(d, "/inside"), "an allowed write was reported: %s", d);
	cr_assert_eq(strchr(d, '\n'), strrchr(d, '\n'), "more than one line: %s", d);
	free(d);
	heel_child_free(ch);
	/* Without HEEL_SPAWN_WHY the caller is told, not handed nothing. */
	o.flags &= ~HEEL_SPAWN_WHY;
	c = run(p, &o, "true");
	heel_capture_free(&c);
	ch = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(ch, "heel_spawn: %s", e.message);
	cr_assert_eq(heel_child_wait(ch, 30000, &status, &e), 0, "%s", e.message);
	cr_assert_null(heel_child_denials(ch, &e));
	cr_assert_eq(e.code, -EINVAL);
	heel_child_free(ch);
	heel_policy_free(p);
}

Test(live, environment_additions_arrive)
{
	const char *env[] = {"ADDED=from the caller", NULL};
	/* The suite's own record of writable places (tests/lib/own-state.sh),
	 * or, without HOME, heel-exec would keep the real home's. */
	char state[PATH_MAX + 32];
	const char *launcher_env[] = {"PATH=/usr/bin:/bin", "SECRET=s3cret", state, NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;

	if (getenv("XDG_STATE_HOME"))
		snprintf(state, sizeof(state), "XDG_STATE_HOME=%s", getenv("XDG_STATE_HOME"));
	else
		snprintf(state, sizeof(state), "HEEL_TEST_NO_STATE=1");
	opts(&o);
	c = run(p, &o, "printf '%s|%s' \"$ADDED\" \"$SECRET\"");
	cr_assert_str_eq(c.out, "|", "%s", c.out);
	heel_capture_free(&c);
	o.env = env;
	o.launcher_env = launcher_env;
	c = run(p, &o, "printf '%s|%s' \"$ADDED\" \"$SECRET\"");
	cr_assert_eq(c.status, 0, "%s", c.err);
	/* The addition arrives; heel-exec's own environment does not leak. */
	cr_assert_str_eq(c.out, "from the caller|", "%s", c.out);
	heel_capture_free(&c);
	/* Unless the policy passes it. */
	cr_assert_eq(heel_policy_env_pass(p, "SECRET", &e), 0);
	c = run(p, &o, "printf '%s|%s' \"$ADDED\" \"$SECRET\"");
	cr_assert_str_eq(c.out, "from the caller|s3cret", "%s", c.out);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, policy_from_string_and_artifact)
{
	struct heel_spawn_opts o;
	const char *argv[] = {"sh", "-c", "printf %s \"$FROM\"", NULL};
	const char *heelc = getenv("HEELC");
	heel_policy *p;
	struct heel_capture c;
	char cmd[512], path[128];

	opts(&o);
	p = heel_policy_from_string("heel 1\nenv set \"FROM\" \"string\"\n", "s.heel", &e);
	cr_assert_not_null(p, "%s", e.message);
	cr_assert_eq(heel_run_capture(p, argv, &o, 4096, 30000, &c, &e), 0, "%s", e.message);
	cr_assert_str_eq(c.out, "string", "%s %s", c.out, c.err);
	heel_capture_free(&c);
	heel_policy_free(p);
	if (!heelc)
		cr_skip_test("HEELC is not set");
	snprintf(path, sizeof(path), "%s/p.heel", scratch);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("heel 1\nenv set \"FROM\" \"artifact\"\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s -o %s/p.hpol", heelc, path, scratch);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/p.hpol", scratch);
	p = heel_policy_from_file(path, &e);
	cr_assert_not_null(p, "%s", e.message);
	/* Removed: the spawn runs the bytes loaded, not the file. */
	unlink(path);
	cr_assert_eq(heel_run_capture(p, argv, &o, 4096, 30000, &c, &e), 0, "%s", e.message);
	cr_assert_str_eq(c.out, "artifact", "%s %s", c.out, c.err);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, start_directory)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;
	char path[128], want[256];
	FILE *f;

	opts(&o);
	snprintf(path, sizeof(path), "%s/data", scratch);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("content\n", f);
	fclose(f);
	chmod(scratch, 0755);
	o.cwd = scratch;
	c = run(p, &o, "pwd; cat data; echo z > written");
	snprintf(want, sizeof(want), "%s\ncontent\n", scratch);
	cr_assert_str_eq(c.out, want, "%s | %s", c.out, c.err);
	/* Readable, not writable. */
	cr_assert_neq(c.status, 0);
	snprintf(path, sizeof(path), "%s/written", scratch);
	cr_assert(!exists(path));
	heel_capture_free(&c);
	heel_policy_free(p);
}

/* A start directory beneath a writable grant gets no read grant of its
 * own, which would narrow the writable one: its parent takes new files
 * (the control: without the grant nothing is written). A start
 * directory under a deny is refused before anything runs. */
Test(live, start_directory_beneath_a_writable_grant)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	const char *argv[] = {"true", NULL};
	struct heel_capture c;
	char src[128], path[160], deny[256];

	opts(&o);
	chmod(scratch, 0777);
	snprintf(src, sizeof(src), "%s/src", scratch);
	cr_assert_eq(mkdir(src, 0777), 0);
	chmod(src, 0777);
	o.cwd = src;
	c = run(p, &o, "touch ../new");
	cr_assert_neq(c.status, 0, "wrote without a grant: %s", c.err);
	heel_capture_free(&c);
	snprintf(path, sizeof(path), "%s/new", scratch);
	cr_assert(!exists(path));
	cr_assert_eq(heel_policy_grant(p, scratch, "rw", &e), 0, "%s", e.message);
	c = run(p, &o, "touch ../new && touch here");
	cr_assert_eq(c.status, 0, "%s", c.err);
	heel_capture_free(&c);
	cr_assert(exists(path));
	snprintf(path, sizeof(path), "%s/here", src);
	cr_assert(exists(path));
	heel_policy_free(p);

	snprintf(deny, sizeof(deny), "heel 1\ndeny \"%s\"\n", src);
	p = heel_policy_from_string(deny, "deny.heel", &e);
	cr_assert_not_null(p, "%s", e.message);
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -EACCES, "%s", e.message);
	cr_assert(strstr(e.message, "never beats a deny"), "%s", e.message);
	heel_policy_free(p);
}

/* ------------------------------------------------------------ the child handle */

Test(live, pidfd_becomes_readable_at_the_end)
{
	const char *argv[] = {"sh", "-c", "read x; exit 7", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct pollfd pfd;
	heel_child *c;
	int in[2], status = -1;

	opts(&o);
	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	o.stdin_fd = in[0];
	c = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(c, "%s", e.message);
	close(in[0]);
	pfd = (struct pollfd){.fd = heel_child_pidfd(c), .events = POLLIN};
	cr_assert_gt(heel_child_pid(c), 0);
	/* Still waiting for its input: not readable, and wait says so. */
	cr_assert_eq(poll(&pfd, 1, 300), 0);
	cr_assert_eq(heel_child_wait(c, 0, &status, &e), -ETIMEDOUT);
	cr_assert_eq(status, -1);
	cr_assert_eq(write(in[1], "go\n", 3), 3);
	close(in[1]);
	cr_assert_eq(poll(&pfd, 1, 20000), 1);
	cr_assert(pfd.revents & POLLIN);
	cr_assert_eq(heel_child_wait(c, 0, &status, &e), 0, "%s", e.message);
	cr_assert_eq(status, 7);
	/* Reaped once; the status is kept. */
	status = -1;
	cr_assert_eq(heel_child_wait(c, -1, &status, &e), 0);
	cr_assert_eq(status, 7);
	cr_assert_eq(heel_child_kill(c, SIGTERM, &e), -ESRCH);
	heel_child_free(c);
	heel_policy_free(p);
}

Test(live, kill_is_forwarded_to_the_command)
{
	const char *argv[] = {"sleep", "300", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	heel_child *c;
	int status;

	opts(&o);
	c = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(c, "%s", e.message);
	cr_assert_eq(heel_child_wait(c, 300, &status, &e), -ETIMEDOUT);
	cr_assert_eq(heel_child_kill(c, SIGTERM, &e), 0, "%s", e.message);
	cr_assert_eq(heel_child_wait(c, 20000, &status, &e), 0, "%s", e.message);
	cr_assert_eq(status, 128 + SIGTERM);
	heel_child_free(c);
	heel_policy_free(p);
}

/* Spawns `sh -c SCRIPT` printing its working directory first; returns
 * the child, the directory in wd. */
static heel_child *
spawn_printing_wd(heel_policy *p, struct heel_spawn_opts *o, const char *script, char *wd,
		  size_t wdlen)
{
	const char *argv[] = {"sh", "-c", script, NULL};
	heel_child *c;
	int out[2];

	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	o->stdout_fd = out[1];
	c = heel_spawn(p, argv, o, &e);
	close(out[1]);
	cr_assert_not_null(c, "%s", e.message);
	read_line(out[0], wd, wdlen);
	close(out[0]);
	return c;
}

/* Waits (a little) for the sandbox's processes to show. */
static int
await_sleeps(const char *arg, int want)
{
	int n = 0;

	for (int i = 0; i < 200 && (n = count_sleeps(arg)) < want; i++)
		usleep(10000);
	return n;
}

Test(live, free_ends_the_tree_and_removes_the_working_directory)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	char arg[32], script[128], wd[512];
	heel_child *c;
	long long t0;
	int before = open_fds();

	opts(&o);
	snprintf(arg, sizeof(arg), "300.%d", (int)getpid());
	snprintf(script, sizeof(script), "pwd; sleep %s & sleep %s; wait", arg, arg);
	c = spawn_printing_wd(p, &o, script, wd, sizeof(wd));
	/* The control: both sleeps run and the directory is there. */
	cr_assert_eq(await_sleeps(arg, 2), 2);
	cr_assert(exists(wd), "no working directory %s", wd);
	t0 = now_ms();
	heel_child_free(c);
	/* SIGTERM did it: no SIGKILL after the grace period. */
	cr_assert_lt(now_ms() - t0, 4500);
	cr_assert_eq(count_sleeps(arg), 0, "a sleep outlived heel_child_free");
	cr_assert(!exists(wd), "%s is left behind", wd);
	cr_assert_eq(open_fds(), before);
	heel_policy_free(p);
}

Test(live, free_ends_a_tree_that_ignores_sigterm)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	char arg[32], script[160], wd[512];
	heel_child *c;

	opts(&o);
	snprintf(arg, sizeof(arg), "301.%d", (int)getpid());
	snprintf(script, sizeof(script), "trap '' TERM INT HUP; pwd; sleep %s & sleep %s; wait",
		 arg, arg);
	c = spawn_printing_wd(p, &o, script, wd, sizeof(wd));
	cr_assert_eq(await_sleeps(arg, 2), 2);
	heel_child_free(c);
	cr_assert_eq(count_sleeps(arg), 0, "a sleep outlived heel_child_free");
	cr_assert(!exists(wd), "%s is left behind", wd);
	heel_policy_free(p);
}

Test(live, capture_timeout_ends_the_sandbox)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	struct heel_capture c;
	char arg[32], script[128], wd[512];
	const char *argv[] = {"sh", "-c", script, NULL};
	long long t0;

	opts(&o);
	snprintf(arg, sizeof(arg), "302.%d", (int)getpid());
	snprintf(script, sizeof(script), "pwd; sleep %s", arg);
	t0 = now_ms();
	cr_assert_eq(heel_run_capture(p, argv, &o, 4096, 500, &c, &e), 0, "%s", e.message);
	cr_assert_geq(now_ms() - t0, 500);
	cr_assert_lt(now_ms() - t0, 4500);
	cr_assert(c.timed_out);
	cr_assert_eq(c.status, 128 + SIGTERM, "%d %s", c.status, c.err);
	snprintf(wd, sizeof(wd), "%.*s", (int)strcspn(c.out, "\n"), c.out);
	cr_assert(wd[0] == '/', "%s", c.out);
	cr_assert_eq(count_sleeps(arg), 0);
	cr_assert(!exists(wd), "%s is left behind", wd);
	heel_capture_free(&c);
	heel_policy_free(p);
}

Test(live, capture_keeps_at_most_max_bytes)
{
	struct heel_spawn_opts o;
	const char *argv[] = {"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; echo done >&2",
			      NULL};
	heel_policy *p = fresh();
	struct heel_capture c;

	opts(&o);
	cr_assert_eq(heel_run_capture(p, argv, &o, 1000, 30000, &c, &e), 0, "%s", e.message);
	/* All was read (the writer finished), a thousand bytes were kept. */
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert_eq(c.out_len, 1000);
	cr_assert_eq(strlen(c.out), 1000);
	cr_assert(c.out_truncated);
	cr_assert_str_eq(c.err, "done\n");
	cr_assert(!c.err_truncated);
	heel_capture_free(&c);
	heel_policy_free(p);
}

/* Whether process pid holds a descriptor of `path`: 1, 0, or -1 when
 * /proc does not show its descriptors to us (a process that is no longer
 * dumpable). Its own descriptors may have any number, so the file is
 * what is compared. */
static int
holds_file(pid_t pid, const char *path)
{
	char dir[64], link[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char fdpath[384];
		ssize_t n;

		snprintf(fdpath, sizeof(fdpath), "%s/%s", dir, de->d_name);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n < 0 && errno == EACCES) {
			found = -1;
			break;
		}
		if (n > 0) {
			link[n] = '\0';
			found |= strcmp(link, path) == 0;
		}
	}
	closedir(d);
	return found;
}

Test(live, nothing_of_the_callers_is_left_open)
{
	const char *argv[] = {"sleep", "300", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	heel_child *c;
	char marker[128];
	int before, leak, held;

	opts(&o);
	/* A descriptor the caller forgot to mark close-on-exec. */
	snprintf(marker, sizeof(marker), "%s/marker", scratch);
	leak = open(marker, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(leak, 0);
	cr_assert_eq(holds_file(getpid(), marker), 1); /* the control */
	before = open_fds();
	c = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(c, "%s", e.message);
	/* The caller holds one more descriptor: the pidfd, close-on-exec. */
	cr_assert_eq(open_fds(), before + 1);
	cr_assert_eq(fcntl(heel_child_pidfd(c), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	held = holds_file(heel_child_pid(c), marker);
	if (held < 0)
		cr_log_info("heel-exec's descriptors are not visible to this user");
	cr_assert_neq(held, 1, "heel-exec holds the caller's descriptor of %s", marker);
	heel_child_free(c);
	cr_assert_eq(open_fds(), before);
	close(leak);
	heel_policy_free(p);
}

/* Field 6 of /proc/PID/stat. */
static pid_t
session_of(pid_t pid)
{
	char path[64], buf[512], *r;
	int sid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	r = strrchr(buf, ')');
	cr_assert_not_null(r);
	cr_assert_eq(sscanf(r + 2, "%*c %*d %*d %d", &sid), 1);
	return sid;
}

Test(live, new_session)
{
	const char *argv[] = {"sleep", "300", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	heel_child *c;

	opts(&o);
	c = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(c, "%s", e.message);
	cr_assert_eq(session_of(heel_child_pid(c)), getsid(0));
	heel_child_free(c);
	o.flags = HEEL_SPAWN_NEW_SESSION;
	c = heel_spawn(p, argv, &o, &e);
	cr_assert_not_null(c, "%s", e.message);
	cr_assert_eq(session_of(heel_child_pid(c)), heel_child_pid(c));
	heel_child_free(c);
	heel_policy_free(p);
}

/* SPDX-License-Identifier: MIT
 * The host side's one check (runtime/hostcheck.c) and the ledger of
 * writable places (runtime/ledger.c): a program, a sink or a link inside
 * a place a sandbox may write is refused by identity however it is
 * spelled, what lies outside is allowed, a user's own unchangeable files
 * do not count, and the ledger is read back exactly as written and
 * refused when another could have written it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostcheck.h"
#include "ledger.h"

static char root[64];
static char err[4096];

static void
make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-hc-test-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	chmod(root, 0755);
}

static void
remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

static const char *
at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static void
mkdirs(const char *rel)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", at(rel));
	cr_assert_eq(system(cmd), 0);
}

static void
file(const char *rel, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0, "%s: %s", at(rel), strerror(errno));
	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	chmod(at(rel), mode);
}

static void
link_to(const char *target, const char *rel)
{
	cr_assert_eq(symlink(target, at(rel)), 0, "%s: %s", at(rel), strerror(errno));
}

/* A set with no ledger of its own: HOME under the test root, empty. */
static void
places(struct hc_places *ps)
{
	char home[PATH_MAX + 8];
	char *env[] = {home, NULL};

	mkdirs("home");
	snprintf(home, sizeof(home), "HOME=%s", at("home"));
	cr_assert_eq(hc_places_init(ps, env), 0);
	cr_assert(!ps->no_ledger, "%s", ps->no_ledger_why);
}

TestSuite(hostcheck, .init = make_root, .fini = remove_root);

Test(hostcheck, program_in_a_place_refused_outside_allowed)
{
	struct hc_places ps;

	mkdirs("proj/tools");
	mkdirs("bin");
	file("proj/tools/tool", 0755);
	file("bin/tool", 0755);
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "grant \"${CWD}\" rw at p.heel:2", false), 0);
	cr_assert_eq(hc_check(&ps, HC_RUN, "ipc \"t\": the host program", at("proj/tools/tool"),
			      err, sizeof(err)),
		     -EPERM);
	cr_assert(strstr(err, "ipc \"t\": the host program"), "%s", err);
	cr_assert(strstr(err, "grant \"${CWD}\" rw at p.heel:2"), "%s", err);
	cr_assert(strstr(err, "this launch's sandbox may write"), "%s", err);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("bin/tool"), err, sizeof(err)), 0, "%s", err);
	hc_places_free(&ps);
}

/* Started before this launch's sandbox (heel-exec, python3 making a
 * venv): only what an earlier run could write counts. */
Test(hostcheck, start_counts_only_earlier_runs)
{
	struct hc_places ps;

	mkdirs("proj");
	file("proj/tool", 0755);
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "grant", false), 0);
	cr_assert_eq(hc_check(&ps, HC_START, "x", at("proj/tool"), err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "recorded", true), 0);
	cr_assert_eq(hc_check(&ps, HC_START, "x", at("proj/tool"), err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "earlier run"), "%s", err);
	hc_places_free(&ps);
}

/* The same place spelled through a link, and a program reached through
 * a link into it (npm link, pip install -e): one identity. */
Test(hostcheck, spellings_and_links_are_one_place)
{
	struct hc_places ps;

	mkdirs("real/proj");
	mkdirs("bin");
	file("real/proj/tool", 0755);
	link_to(at("real"), "alias");
	link_to(at("real/proj/tool"), "bin/tool");
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("alias/proj"), "grant \"./proj\" rw", false), 0);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("real/proj/tool"), err, sizeof(err)), -EPERM);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("bin/tool"), err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "lies in"), "%s", err);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("real/../real/proj/tool"), err, sizeof(err)),
		     -EPERM);
	hc_places_free(&ps);
}

/* A link planted in a place (build/cache -> ~/.ssh) refuses a grant
 * through it; the same link where no sandbox writes is followed. */
Test(hostcheck, grant_through_planted_link)
{
	struct hc_places ps;

	mkdirs("proj/build");
	mkdirs("home/.ssh");
	mkdirs("data/real");
	link_to(at("home/.ssh"), "proj/build/cache");
	link_to(at("data/real"), "userlink");
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj/build"), "recorded in L", true), 0);
	cr_assert_eq(
	    hc_check(&ps, HC_GRANT, "--writable", at("proj/build/cache"), err, sizeof(err)),
	    -EPERM);
	cr_assert(strstr(err, "crosses the symbolic link"), "%s", err);
	cr_assert(strstr(err, "an earlier run"), "%s", err);
	cr_assert_eq(
	    hc_check(&ps, HC_GRANT, "--writable", at("proj/build/cache/sub"), err, sizeof(err)),
	    -EPERM);
	/* A grant of a plain directory inside an earlier place is fine. */
	cr_assert_eq(hc_check(&ps, HC_GRANT, "--writable", at("proj/build"), err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(hc_check(&ps, HC_GRANT, "--writable", at("userlink/x"), err, sizeof(err)), 0,
		     "%s", err);
	hc_places_free(&ps);
}

/* A script's #! interpreter runs too: one in a place is refused. */
Test(hostcheck, script_interpreter_in_a_place_refused)
{
	struct hc_places ps;
	char line[PATH_MAX + 16];
	int fd;

	mkdirs("proj");
	mkdirs("bin");
	file("proj/python", 0755);
	snprintf(line, sizeof(line), "#!%s -u\necho\n", at("proj/python"));
	fd = open(at("bin/tool"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "grant \"proj\" rw", false), 0);
	cr_assert_eq(hc_check(&ps, HC_RUN, "ipc \"t\": the host program", at("bin/tool"), err,
			      sizeof(err)),
		     -EPERM);
	cr_assert(strstr(err, "names on its #! line the interpreter"), "%s", err);
	hc_places_free(&ps);
	/* Control: a script whose interpreter lies elsewhere runs. */
	places(&ps);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("bin/tool"), err, sizeof(err)), 0, "%s", err);
	hc_places_free(&ps);
}

Test(hostcheck, run_tree_refuses_a_place_beneath)
{
	struct hc_places ps;

	mkdirs("venv/lib/site");
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("venv/lib/site"), "grant \"x\" rw", false), 0);
	cr_assert_eq(hc_check(&ps, HC_RUN_TREE, "venv", at("venv"), err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "holds"), "%s", err);
	hc_places_free(&ps);
	places(&ps);
	cr_assert_eq(hc_check(&ps, HC_RUN_TREE, "venv", at("venv"), err, sizeof(err)), 0, "%s",
		     err);
	hc_places_free(&ps);
}

Test(hostcheck, append_refuses_this_launch_places_links_and_hard_links)
{
	struct hc_places ps;
	int fd;

	mkdirs("proj");
	mkdirs("logs");
	mkdirs("home");
	file("home/.bashrc", 0644);
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "grant \"${CWD}\" rw", false), 0);
	cr_assert_eq(
	    hc_open_append(&ps, "the audit file", at("proj/a.jsonl"), false, &fd, err, sizeof(err)),
	    -EPERM);
	cr_assert(strstr(err, "this launch's sandbox may write"), "%s", err);
	cr_assert_eq(access(at("proj/a.jsonl"), F_OK), -1, "refused, yet created");
	/* Outside: made 0600, then appended to again. */
	cr_assert_eq(hc_open_append(&ps, "a", at("logs/a.jsonl"), false, &fd, err, sizeof(err)), 0,
		     "%s", err);
	close(fd);
	cr_assert_eq(hc_open_append(&ps, "a", at("logs/a.jsonl"), false, &fd, err, sizeof(err)), 0,
		     "%s", err);
	close(fd);
	/* A link or a second name planted under the sink's name. */
	link_to(at("home/.bashrc"), "logs/b.jsonl");
	cr_assert_lt(hc_open_append(&ps, "a", at("logs/b.jsonl"), false, &fd, err, sizeof(err)), 0);
	cr_assert_eq(link(at("home/.bashrc"), at("logs/c.jsonl")), 0);
	cr_assert_eq(hc_open_append(&ps, "a", at("logs/c.jsonl"), false, &fd, err, sizeof(err)),
		     -EPERM);
	cr_assert(strstr(err, "more than one name"), "%s", err);
	/* A daily sink's directory. */
	cr_assert_eq(hc_open_append(&ps, "d", at("logs"), true, &fd, err, sizeof(err)), 0, "%s",
		     err);
	close(fd);
	cr_assert_eq(hc_open_append(&ps, "d", at("proj"), true, &fd, err, sizeof(err)), -EPERM);
	hc_places_free(&ps);
}

/* What this user cannot change does not count, even inside a place:
 * as uid 65534, a root-owned program under "/" (permissive). */
Test(hostcheck, unchangeable_by_the_user_is_not_counted)
{
	pid_t pid;
	int status;

	mkdirs("sys/bin");
	file("sys/bin/tool", 0755);
	mkdirs("mine");
	cr_assert_eq(chown(at("mine"), 65534, 65534), 0);
	file("mine/tool", 0755);
	cr_assert_eq(chown(at("mine/tool"), 65534, 65534), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct hc_places ps;
		char e[4096];
		char *env[] = {"HOME=/nonexistent-heel", NULL};

		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(10);
		if (hc_places_init(&ps, env) < 0 || !ps.no_ledger)
			_exit(11);
		if (hc_places_add(&ps, "/", "grant \"/\" rwx", false) < 0)
			_exit(12);
		if (hc_check(&ps, HC_RUN, "x", at("sys/bin/tool"), e, sizeof(e)) != 0)
			_exit(13);
		if (hc_check(&ps, HC_RUN, "x", at("mine/tool"), e, sizeof(e)) != -EPERM)
			_exit(14);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d",
		  WEXITSTATUS(status));
}

Test(hostcheck, unexpanded_writable_grant_is_an_error_not_skipped)
{
	/* Expansion is tested through hc_places_add_policy in the launcher
	 * suites; here the place list's own contract: a place that does
	 * not exist counts for nothing and is not recorded. */
	struct hc_places ps;

	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("nothere"), "grant", false), 0);
	cr_assert(!ps.v[ps.n - 1].exists);
	cr_assert_eq(hc_record(&ps, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(access(at("home/.local/state/heel/writable-places"), F_OK), -1);
	hc_places_free(&ps);
}

Test(hostcheck, ledger_round_trip_and_trust)
{
	struct ledger lg;
	char home[PATH_MAX + 8];
	char *env[] = {home, NULL};
	const char *paths[] = {"/a/b", "/a/b/c", "/with\nnewline", "/back\\slash", "/a"};

	mkdirs("home");
	snprintf(home, sizeof(home), "HOME=%s", at("home"));
	cr_assert_eq(ledger_locate(&lg, env), 0);
	cr_assert_eq(ledger_load(&lg, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lg.n, 0);
	cr_assert_eq(ledger_record(&lg, paths, 4, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ledger_load(&lg, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lg.n, 3, "/a/b/c is covered by /a/b: %zu", lg.n);
	cr_assert_str_eq(lg.paths[1], "/with\nnewline");
	cr_assert_str_eq(lg.paths[2], "/back\\slash");
	cr_assert(ledger_covers(&lg, "/a/b/x"));
	cr_assert(!ledger_covers(&lg, "/a/bx"));
	cr_assert_eq(ledger_record(&lg, paths + 4, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert(ledger_covers(&lg, "/a/z"));
	/* Written by others: not trusted. */
	cr_assert_eq(chmod(lg.file, 0666), 0);
	cr_assert_eq(ledger_load(&lg, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "writable by others"), "%s", err);
	cr_assert_eq(chmod(lg.file, 0600), 0);
	/* A line that is not a path: the file is not heel's. */
	{
		FILE *f = fopen(lg.file, "a");

		cr_assert_not_null(f);
		fputs("relative\n", f);
		fclose(f);
	}
	cr_assert_eq(ledger_load(&lg, err, sizeof(err)), -EINVAL);
	ledger_free(&lg);
}

Test(hostcheck, ledger_through_a_planted_link_is_refused)
{
	struct ledger lg;
	char home[PATH_MAX + 8];
	char *env[] = {home, NULL};

	mkdirs("home/.local");
	mkdirs("elsewhere");
	link_to(at("elsewhere"), "home/.local/state");
	snprintf(home, sizeof(home), "HOME=%s", at("home"));
	cr_assert_eq(ledger_locate(&lg, env), 0);
	cr_assert_lt(ledger_load(&lg, err, sizeof(err)), 0);
	cr_assert(strstr(err, "symbolic link"), "%s", err);
	ledger_free(&lg);
}

/* A launch records its places; the next one reads them as earlier. */
Test(hostcheck, recorded_places_are_earlier_in_the_next_run)
{
	struct hc_places ps;

	mkdirs("proj");
	file("proj/tool", 0755);
	places(&ps);
	cr_assert_eq(hc_places_add(&ps, at("proj"), "grant", false), 0);
	cr_assert_eq(hc_record(&ps, err, sizeof(err)), 0, "%s", err);
	hc_places_free(&ps);
	places(&ps);
	cr_assert_eq(hc_check(&ps, HC_RUN, "x", at("proj/tool"), err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "earlier run"), "%s", err);
	cr_assert(strstr(err, "writable-places"), "%s", err);
	hc_places_free(&ps);
}

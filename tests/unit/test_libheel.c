/* SPDX-License-Identifier: MIT
 * libheel through heel.h only, without running anything: builder calls
 * refused with a message that names the value and the fix, diagnostics of
 * policy text with their FILE:LINE:COL, the policy text a spawn would
 * compile, files of both kinds, and the spawn's own argument checks
 * (tests/libheel runs commands for real). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heel.h"

static heel_error e;

static heel_policy *
fresh(void)
{
	heel_policy *p = heel_policy_new(&e);

	cr_assert_not_null(p);
	cr_assert_eq(e.code, 0);
	return p;
}

/* The text a spawn with these options would compile; asserts success. */
static char *
text_of(const heel_policy *p, const struct heel_spawn_opts *o)
{
	char *t = heel_policy_text(p, o, &e);

	cr_assert_not_null(t, "heel_policy_text: %d %s", e.code, e.message);
	return t;
}

static void
assert_refused(int rc, int code, const char *needle)
{
	cr_assert_eq(rc, code, "returned %d (%s), expected %d", rc, e.message, code);
	cr_assert_eq(e.code, code);
	cr_assert(strstr(e.message, needle), "message `%s` lacks `%s`", e.message, needle);
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
	return n - 1; /* the directory's own */
}

/* A scratch directory of this test's own. */
static char scratch[64];

static void
make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/libheel-unit.XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
}

static void
remove_scratch(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", scratch);
}

static void
write_file(const char *name, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* ------------------------------------------------------------ builder */

Test(libheel_builder, empty_policy_is_heel_1)
{
	heel_policy *p = fresh();
	char *t = text_of(p, NULL);

	cr_assert_str_eq(t, "heel 1\n");
	free(t);
	heel_policy_free(p);
}

struct bad_value {
	const char *value;
	const char *needle;
};

Test(libheel_builder, grant_refuses_bad_modes)
{
	static const struct bad_value cases[] = {
	    {"rxw2", "a mode holds only the letters r, w and x"},
	    {"", "a mode is r, rw, rx or rwx"},
	    {"w", "every mode includes r"},
	    {"rr", "a letter appears twice"},
	    {"RW", "a mode holds only the letters r, w and x (lower case)"},
	};
	heel_policy *p = fresh();
	char *t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_refused(heel_policy_grant(p, "/usr/share", cases[i].value, &e), -EINVAL,
			       cases[i].needle);
	assert_refused(heel_policy_grant(p, "/usr/share", NULL, &e), -EINVAL, "a mode is");
	assert_refused(heel_policy_grant(p, "", "r", &e), -EINVAL, "the path is empty");
	/* The control: letters in any order are the canonical mode. */
	cr_assert_eq(heel_policy_grant(p, "/usr/share", "wr", &e), 0, "%s", e.message);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "grant \"/usr/share\" rw"), "%s", t);
	cr_assert(!strstr(t, "rxw2"), "%s", t);
	free(t);
	heel_policy_free(p);
}

Test(libheel_builder, protect_names_the_sets_and_suggests)
{
	heel_policy *p = fresh();
	char *t;

	assert_refused(heel_policy_protect(p, "credentails", 1, &e), -EINVAL,
		       "`credentails` is not a protection set");
	cr_assert(strstr(e.message, "did you mean `credentials`?"), "%s", e.message);
	cr_assert(strstr(e.message, "user-home, credentials, cloud-config"), "%s", e.message);
	assert_refused(heel_policy_protect(p, "everything", 1, &e), -EINVAL,
		       "not a protection set");
	cr_assert(!strstr(e.message, "did you mean"), "%s", e.message);
	cr_assert_eq(heel_policy_protect(p, "credentials", 1, &e), 0);
	cr_assert_eq(heel_policy_protect(p, "user-home", 0, &e), 0);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "\nprotect credentials"), "%s", t);
	cr_assert(strstr(t, "\nunprotect user-home"), "%s", t);
	free(t);
	heel_policy_free(p);
}

Test(libheel_builder, limit_names_and_values)
{
	heel_policy *p = fresh();
	char *t;

	assert_refused(heel_policy_limit(p, "memroy", "2GiB", &e), -EINVAL,
		       "`memroy` is not a limit (memory, cpu, processes");
	cr_assert(strstr(e.message, "did you mean `memory`?"), "%s", e.message);
	assert_refused(heel_policy_limit(p, "memory", "2XB", &e), -EINVAL,
		       "`2XB`: the unit is one of B KiB MiB GiB TiB");
	assert_refused(heel_policy_limit(p, "memory", "0", &e), -EINVAL,
		       "only the core limit may be 0");
	assert_refused(heel_policy_limit(p, "cpu", "500ms", &e), -EINVAL, "at least 1s");
	assert_refused(heel_policy_limit(p, "processes", "10MiB", &e), -EINVAL,
		       "a count takes no unit");
	assert_refused(heel_policy_limit(p, "file-size", "99999999999999999999999GiB", &e), -EINVAL,
		       "does not fit in 64 bits");
	assert_refused(heel_policy_limit(p, "memory", "", &e), -EINVAL, "the value is empty");
	/* Bare numbers are bytes and seconds, as in `heel run`. */
	cr_assert_eq(heel_policy_limit(p, "memory", "1048576", &e), 0, "%s", e.message);
	cr_assert_eq(heel_policy_limit(p, "cpu", "60", &e), 0, "%s", e.message);
	cr_assert_eq(heel_policy_limit(p, "core", "0", &e), 0, "%s", e.message);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "limit memory 1048576B"), "%s", t);
	cr_assert(strstr(t, "limit cpu 60s"), "%s", t);
	cr_assert(strstr(t, "limit core 0B"), "%s", t);
	cr_assert(!strstr(t, "2XB"), "%s", t);
	free(t);
	heel_policy_free(p);
}

Test(libheel_builder, scalars_checked)
{
	heel_policy *p = fresh();
	char *t;

	assert_refused(heel_policy_isolation(p, "strcit", &e), -EINVAL,
		       "`strcit` is not an isolation base (strict, default or permissive)");
	assert_refused(heel_policy_network(p, "allow", &e), -EINVAL, "`allow` is ambiguous here");
	assert_refused(heel_policy_network(p, "open", &e), -EINVAL, "not a network mode");
	assert_refused(heel_policy_nice(p, 0, &e), -EINVAL, "nice is 1..19");
	assert_refused(heel_policy_nice(p, 20, &e), -EINVAL, "nice is 1..19");
	assert_refused(heel_policy_nice(p, -5, &e), -EINVAL, "nice is 1..19");
	assert_refused(heel_policy_io_priority(p, "idle", &e), -EINVAL,
		       "not an I/O priority (utility or background)");
	assert_refused(heel_policy_env_pass(p, "1X", &e), -EINVAL, "`1X` is not a variable name");
	assert_refused(heel_policy_env_pass(p, "A-B", &e), -EINVAL, "not a variable name");
	assert_refused(heel_policy_env_set(p, "X", NULL, &e), -EINVAL, "no value");
	assert_refused(heel_policy_workdir(p, "", &e), -EINVAL, "the path is empty");
	assert_refused(heel_policy_allow_domain(p, "", &e), -EINVAL, "the pattern is empty");

	cr_assert_eq(heel_policy_isolation(p, "strict", &e), 0);
	cr_assert_eq(heel_policy_nice(p, 19, &e), 0);
	cr_assert_eq(heel_policy_io_priority(p, "background", &e), 0);
	cr_assert_eq(heel_policy_gpu(p, 1, &e), 0);
	cr_assert_eq(heel_policy_env_pass(p, "LANG", &e), 0);
	cr_assert_eq(heel_policy_env_set(p, "EMPTY", "", &e), 0);
	cr_assert_eq(heel_policy_env_set(p, "QUOTED", "a \"b\" \\c", &e), 0);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "isolation strict"), "%s", t);
	cr_assert(strstr(t, "nice 19"), "%s", t);
	cr_assert(strstr(t, "io-priority background"), "%s", t);
	cr_assert(strstr(t, "allow gpu"), "%s", t);
	cr_assert(strstr(t, "env pass \"LANG\""), "%s", t);
	cr_assert(strstr(t, "env set \"EMPTY\" \"\""), "%s", t);
	cr_assert(strstr(t, "env set \"QUOTED\" \"a \\\"b\\\" \\\\c\""), "%s", t);
	free(t);
	/* The whole policy compiles. */
	cr_assert_eq(heel_policy_check(p, NULL, NULL, &e), 0, "%s", e.message);
	heel_policy_free(p);
}

Test(libheel_builder, domains_make_an_allow_list)
{
	heel_policy *p = fresh();
	char *t;

	cr_assert_eq(heel_policy_allow_domain(p, "api.example.com", &e), 0);
	cr_assert_eq(heel_policy_allow_domain(p, "*.github.com", &e), 0);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "network allow {"), "%s", t);
	cr_assert(strstr(t, "\"api.example.com\""), "%s", t);
	cr_assert(strstr(t, "\"*.github.com\""), "%s", t);
	free(t);
	/* With another mode they are a mistake, said when the text is made. */
	cr_assert_eq(heel_policy_network(p, "deny", &e), 0);
	cr_assert_null(heel_policy_text(p, NULL, &e));
	cr_assert_eq(e.code, -EINVAL);
	cr_assert(strstr(e.message, "domains are allowed only with --network allow-list"), "%s",
		  e.message);
	assert_refused(heel_policy_check(p, NULL, NULL, &e), -EINVAL, "domains are allowed only");
	heel_policy_free(p);
}

Test(libheel_builder, null_arguments_are_errors_not_crashes)
{
	heel_policy *p = fresh();

	cr_assert_eq(heel_policy_grant(NULL, "/x", "r", &e), -EINVAL);
	cr_assert(strstr(e.message, "no policy"), "%s", e.message);
	cr_assert_eq(heel_policy_limit(p, NULL, "1", &e), -EINVAL);
	cr_assert_eq(heel_policy_protect(p, NULL, 1, &e), -EINVAL);
	cr_assert_eq(heel_policy_env_pass(p, NULL, &e), -EINVAL);
	/* No heel_error: the code alone. */
	cr_assert_eq(heel_policy_grant(p, "/x", "bad", NULL), -EINVAL);
	cr_assert_eq(heel_policy_grant(p, "/usr", "r", NULL), 0);
	cr_assert_null(heel_policy_text(NULL, NULL, &e));
	cr_assert_null(heel_policy_from_string(NULL, NULL, &e));
	cr_assert_null(heel_policy_from_file(NULL, &e));
	heel_policy_free(NULL);
	heel_policy_free(p);
}

Test(libheel_builder, version)
{
	cr_assert(heel_version()[0] >= '0' && heel_version()[0] <= '9', "%s", heel_version());
}

/* ------------------------------------------------------------ one spawn's text */

Test(libheel_text, start_directory_and_env_additions)
{
	const char *env[] = {"ADDED=one two", "SECOND=", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	char *t;

	heel_spawn_opts_init(&o);
	o.cwd = "/home/someone/project";
	o.env = env;
	t = text_of(p, &o);
	/* The directory itself: ${CWD} would be heel-exec's own directory,
	 * which is the caller's, not the start directory. */
	cr_assert(strstr(t, "grant \"/home/someone/project\" r"), "%s", t);
	cr_assert(!strstr(t, "${CWD}"), "%s", t);
	cr_assert(strstr(t, "env set \"ADDED\" \"one two\""), "%s", t);
	cr_assert(strstr(t, "env set \"SECOND\" \"\""), "%s", t);
	free(t);
	/* Without a start directory the command starts in the working
	 * directory and reads nothing of the caller's. */
	t = text_of(p, NULL);
	cr_assert(!strstr(t, "${CWD}"), "%s", t);
	cr_assert(!strstr(t, "ADDED"), "%s", t);
	free(t);
	heel_policy_free(p);
}

/* The start directory's read grant never beats a deny, a protection or
 * strict, and is left out where a grant covers the directory already
 * (it would narrow a writable one): heel_policy_text says what
 * heel_spawn would run, and both refuse alike. */
Test(libheel_text, the_start_directory_grant_follows_the_policy)
{
	struct heel_spawn_opts o;
	heel_policy *p = heel_policy_from_string("heel 1\ndeny \"/opt/heel-denied\"\n", "d.heel", &e);
	const char *argv[] = {"true", NULL};
	char *t;

	cr_assert_not_null(p, "%s", e.message);
	heel_spawn_opts_init(&o);
	o.cwd = "/opt/heel-denied/sub";
	cr_assert_null(heel_policy_text(p, &o, &e));
	cr_assert_eq(e.code, -EACCES);
	cr_assert(strstr(e.message, "`deny \"/opt/heel-denied\"` at d.heel:2"), "%s", e.message);
	cr_assert(strstr(e.message, "heel_policy_grant(p, \"/opt/heel-denied/sub\", \"r\")"),
		  "%s", e.message);
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EACCES, "never beats a deny");
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -EACCES);
	heel_policy_free(p);

	p = fresh();
	cr_assert_eq(heel_policy_isolation(p, "strict", &e), 0);
	o.cwd = "/opt/heel-project";
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EACCES, "isolation strict");
	heel_policy_free(p);

	/* Covered by a writable grant: nothing added. */
	p = fresh();
	cr_assert_eq(heel_policy_grant(p, "/opt/heel-project", "rw", &e), 0);
	o.cwd = "/opt/heel-project/src";
	t = text_of(p, &o);
	cr_assert(!strstr(t, "/opt/heel-project/src"), "%s", t);
	free(t);
	heel_policy_free(p);
}

Test(libheel_text, bad_additions_and_options)
{
	const char *noeq[] = {"NOEQUALS", NULL};
	const char *badname[] = {"1BAD=x", NULL};
	const char *reserved[] = {"TMPDIR=/etc", NULL};
	const char *ctrl[] = {"NL=a\nb", NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();

	heel_spawn_opts_init(&o);
	o.env = noeq;
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL,
		       "environment addition `NOEQUALS` is not NAME=VALUE");
	o.env = badname;
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL,
		       "`1BAD` is not a variable name");
	/* The compiler's own rule: TMPDIR is heel-exec's to set. */
	o.env = reserved;
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL, "TMPDIR");
	cr_assert(strstr(e.message, "<libheel>:"), "%s", e.message);
	o.env = ctrl;
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL, "control character");
	o.env = NULL;
	o.cwd = "relative/dir";
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL,
		       "the start directory `relative/dir` is not absolute");
	heel_policy_free(p);
}

/* A caller built against an older, shorter heel_spawn_opts: what lies
 * beyond its size is not read. */
Test(libheel_text, shorter_options_struct)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	char *t;

	heel_spawn_opts_init(&o);
	o.cwd = "/home/someone/project";
	o.size = offsetof(struct heel_spawn_opts, cwd);
	t = text_of(p, &o);
	cr_assert(!strstr(t, "/home/someone/project"), "%s", t);
	free(t);
	o.size = sizeof(o);
	t = text_of(p, &o);
	cr_assert(strstr(t, "/home/someone/project"), "%s", t);
	free(t);
	heel_policy_free(p);
}

/* A struct never initialised (zeroed, filled by hand) would have every
 * field ignored: refused instead. */
Test(libheel_text, uninitialised_options_struct)
{
	const char *argv[] = {"true", NULL};
	struct heel_spawn_opts o = {
	    .cwd = "/usr", .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	struct heel_capture c;
	heel_policy *p = fresh();

	cr_assert_null(heel_policy_text(p, &o, &e));
	cr_assert(strstr(e.message, "heel_spawn_opts_init"), "%s", e.message);
	assert_refused(heel_policy_check(p, &o, NULL, &e), -EINVAL, "is not initialised");
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert(strstr(e.message, "is not initialised"), "%s", e.message);
	cr_assert_eq(heel_run_capture(p, argv, &o, 10, -1, &c, &e), -EINVAL);
	heel_policy_free(p);
}

Test(libheel_text, relative_grants_follow_the_start_directory)
{
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	char *t;

	heel_spawn_opts_init(&o);
	o.cwd = "/usr";
	cr_assert_eq(heel_policy_grant(p, "./share", "r", &e), 0);
	t = text_of(p, &o);
	cr_assert(strstr(t, "grant \"/usr/share\" r"), "%s", t);
	free(t);
	heel_policy_free(p);
}

/* ------------------------------------------------------------ from a string */

Test(libheel_string, diagnostics_carry_file_line_col)
{
	heel_policy *p = heel_policy_from_string("heel 1\ngrant \"/usr\" rxw\nlimit memroy 1GiB\n",
						 "agent.heel", &e);

	cr_assert_null(p);
	cr_assert_eq(e.code, -EINVAL);
	cr_assert(strstr(e.message, "agent.heel:2:14: error: unknown mode `rxw`"), "%s", e.message);
	cr_assert(strstr(e.message, "    2 | grant \"/usr\" rxw"), "%s", e.message);
	cr_assert(strstr(e.message, "did you mean `rwx`?"), "%s", e.message);
	/* Every mistake, not only the first. */
	cr_assert(strstr(e.message, "agent.heel:3:7: error:"), "%s", e.message);
	cr_assert_neq(e.message[strlen(e.message) - 1], '\n');
}

Test(libheel_string, default_name)
{
	cr_assert_null(heel_policy_from_string("heel 2\n", NULL, &e));
	cr_assert(strstr(e.message, "<string>:1:"), "%s", e.message);
	cr_assert_null(heel_policy_from_string("", NULL, &e));
	cr_assert_eq(e.code, -EINVAL);
}

Test(libheel_string, builder_calls_come_after_and_win)
{
	heel_policy *p = heel_policy_from_string("heel 1\ngrant \"/usr\" rx\nnice 4", "a.heel", &e);
	char *t, *w = NULL;

	cr_assert_not_null(p, "%s", e.message);
	cr_assert_eq(heel_policy_nice(p, 7, &e), 0);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "grant \"/usr\" rx\nnice 4\nnice 7"), "%s", t);
	free(t);
	/* The replacement is warned about, as heelc warns about it. */
	cr_assert_eq(heel_policy_check(p, NULL, &w, &e), 0, "%s", e.message);
	cr_assert_not_null(w);
	cr_assert(strstr(w, "a.heel:4:1: warning: `nice` set again"), "%s", w);
	free(w);
	heel_policy_free(p);
}

Test(libheel_string, truncated_message_says_so)
{
	/* Hundreds of errors: more than a message holds. */
	size_t n = 400, len = 0;
	char *text = malloc(n * 32 + 16);
	heel_policy *p;

	len += (size_t)sprintf(text, "heel 1\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "grant \"/usr\" bad%zu\n", i);
	p = heel_policy_from_string(text, "many.heel", &e);
	free(text);
	cr_assert_null(p);
	cr_assert_eq(strlen(e.message), HEEL_ERROR_MAX - 1);
	cr_assert(strstr(e.message + HEEL_ERROR_MAX - 6, " ..."), "%s",
		  e.message + HEEL_ERROR_MAX - 20);
}

/* ------------------------------------------------------------ from a file */

Test(libheel_file, missing_and_not_regular)
{
	cr_assert_null(heel_policy_from_file("/nonexistent/policy.heel", &e));
	cr_assert_eq(e.code, -ENOENT);
	cr_assert(strstr(e.message, "/nonexistent/policy.heel"), "%s", e.message);
	cr_assert_null(heel_policy_from_file("/tmp", &e));
	cr_assert_eq(e.code, -EISDIR, "%d %s", e.code, e.message);
	cr_assert_null(heel_policy_from_file("/dev/null", &e));
	cr_assert_eq(e.code, -EINVAL, "%d %s", e.code, e.message);
}

Test(libheel_file, source_with_includes_from_its_own_directory, .init = make_scratch,
     .fini = remove_scratch)
{
	char path[256], *t;
	heel_policy *p;

	write_file("inc.heel", "heel 1\nnice 3\n", 0644);
	write_file("top.heel", "heel 1\ninclude \"inc.heel\"\ngrant \"/usr\" r\n", 0644);
	write_file("bad.heel", "heel 1\n\ngrant \"/usr\" rr\n", 0644);
	snprintf(path, sizeof(path), "%s/top.heel", scratch);
	/* From elsewhere: the include is the file's neighbour. */
	cr_assert_eq(chdir("/"), 0);
	p = heel_policy_from_file(path, &e);
	cr_assert_not_null(p, "%s", e.message);
	t = text_of(p, NULL);
	cr_assert(strstr(t, "include \"inc.heel\""), "%s", t);
	free(t);
	cr_assert_eq(heel_policy_grant(p, "/etc", "r", &e), 0);
	cr_assert_eq(heel_policy_check(p, NULL, NULL, &e), 0, "%s", e.message);
	heel_policy_free(p);

	snprintf(path, sizeof(path), "%s/bad.heel", scratch);
	cr_assert_null(heel_policy_from_file(path, &e));
	cr_assert_eq(e.code, -EINVAL);
	cr_assert(strstr(e.message, "bad.heel:3:14: error:"), "%s", e.message);
}

/* An artifact made by heelc (make check-unit names it in HEELC). */
static void
compile_artifact(const char *src, const char *out)
{
	const char *heelc = getenv("HEELC");
	char cmd[1024];

	if (!heelc) {
		/* Criterion runs no .fini after a skip. */
		remove_scratch();
		cr_skip_test("HEELC is not set (make check-unit sets it)");
	}
	snprintf(cmd, sizeof(cmd), "%s %s/%s -o %s/%s >/dev/null 2>&1", heelc, scratch, src,
		 scratch, out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(libheel_file, artifact_is_applied_as_compiled, .init = make_scratch, .fini = remove_scratch)
{
	const char *env[] = {"ADDED=1", NULL};
	struct heel_spawn_opts o;
	char path[256];
	heel_policy *p;

	write_file("p.heel", "heel 1\nnice 3\n", 0644);
	compile_artifact("p.heel", "p.hpol");
	snprintf(path, sizeof(path), "%s/p.hpol", scratch);
	p = heel_policy_from_file(path, &e);
	cr_assert_not_null(p, "%s", e.message);
	assert_refused(heel_policy_grant(p, "/usr", "r", &e), -ENOTSUP,
		       "a compiled policy (.hpol) cannot be changed");
	cr_assert_null(heel_policy_text(p, NULL, &e));
	cr_assert_eq(e.code, -ENOTSUP);
	cr_assert(strstr(e.message, "heelc explain"), "%s", e.message);
	cr_assert_eq(heel_policy_check(p, NULL, NULL, &e), 0, "%s", e.message);
	heel_spawn_opts_init(&o);
	o.env = env;
	assert_refused(heel_policy_check(p, &o, NULL, &e), -ENOTSUP,
		       "cannot take environment additions");
	heel_policy_free(p);

	/* Known by its bytes, whatever its name. */
	snprintf(path, sizeof(path), "mv %s/p.hpol %s/p-compiled.heel", scratch, scratch);
	cr_assert_eq(system(path), 0);
	snprintf(path, sizeof(path), "%s/p-compiled.heel", scratch);
	p = heel_policy_from_file(path, &e);
	cr_assert_not_null(p, "%s", e.message);
	cr_assert_eq(heel_policy_grant(p, "/usr", "r", &e), -ENOTSUP);
	heel_policy_free(p);
}

Test(libheel_file, artifact_checked_as_heel_exec_checks_it, .init = make_scratch,
     .fini = remove_scratch)
{
	char path[256];
	heel_policy *p;
	int fd;
	unsigned char b;

	write_file("p.heel", "heel 1\n", 0644);
	compile_artifact("p.heel", "p.hpol");
	snprintf(path, sizeof(path), "%s/p.hpol", scratch);
	p = heel_policy_from_file(path, &e);
	cr_assert_not_null(p, "%s", e.message);
	heel_policy_free(p);
	/* Writable by others: whoever can write it decides the sandbox. */
	chmod(path, 0666);
	cr_assert_null(heel_policy_from_file(path, &e));
	cr_assert_eq(e.code, -EPERM, "%d %s", e.code, e.message);
	cr_assert(strstr(e.message, "writable"), "%s", e.message);
	chmod(path, 0644);
	/* One byte changed in the middle: the checksums catch it. */
	fd = open(path, O_RDWR);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &b, 1, 200), 1);
	b ^= 0x5a;
	cr_assert_eq(pwrite(fd, &b, 1, 200), 1);
	close(fd);
	cr_assert_null(heel_policy_from_file(path, &e));
	cr_assert_eq(e.code, -EINVAL, "%d %s", e.code, e.message);
	cr_assert(strstr(e.message, path), "%s", e.message);
}

/* ------------------------------------------------------------ spawn arguments */

Test(libheel_spawn, refused_before_anything_runs)
{
	const char *argv[] = {"true", NULL};
	const char *empty[] = {NULL};
	struct heel_spawn_opts o;
	heel_policy *p = fresh();
	int before = open_fds();

	heel_spawn_opts_init(&o);
	o.launcher = "bin/heel-exec";
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -EINVAL);
	cr_assert(strstr(e.message, "`bin/heel-exec` is not an absolute path"), "%s", e.message);
	o.launcher = "/nonexistent/heel-exec";
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -ENOENT, "%d %s", e.code, e.message);
	/* Found missing by the host side's check of what it is about to run. */
	cr_assert(strstr(e.message, "/nonexistent/heel-exec: /nonexistent does not exist"), "%s",
		  e.message);
	o.launcher = "/etc/passwd";
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -EACCES, "%d %s", e.code, e.message);
	o.stdout_fd = 987;
	cr_assert_null(heel_spawn(p, argv, &o, &e));
	cr_assert_eq(e.code, -EBADF, "%d %s", e.code, e.message);
	cr_assert(strstr(e.message, "stdout descriptor 987"), "%s", e.message);
	o.stdout_fd = -1;
	cr_assert_null(heel_spawn(p, empty, &o, &e));
	cr_assert_eq(e.code, -EINVAL);
	cr_assert_null(heel_spawn(NULL, argv, &o, &e));
	cr_assert_eq(e.code, -EINVAL);
	/* A failed spawn leaves nothing open: no memfd, no /dev/null, no
	 * pidfd, and no child (it was reaped). */
	cr_assert_eq(open_fds(), before);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG | __WALL), -1);
	cr_assert_eq(errno, ECHILD);
	heel_policy_free(p);
}

Test(libheel_spawn, capture_reports_spawn_errors)
{
	const char *argv[] = {"true", NULL};
	struct heel_spawn_opts o;
	struct heel_capture c;
	heel_policy *p = fresh();
	int before = open_fds();

	heel_spawn_opts_init(&o);
	o.launcher = "/nonexistent/heel-exec";
	cr_assert_eq(heel_run_capture(p, argv, &o, 100, -1, &c, &e), -ENOENT);
	cr_assert_null(c.out);
	cr_assert_eq(heel_run_capture(p, argv, &o, 100, -1, &c, NULL), -ENOENT);
	cr_assert_eq(open_fds(), before);
	heel_policy_free(p);
}

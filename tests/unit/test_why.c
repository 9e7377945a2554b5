/* SPDX-License-Identifier: MIT
 * why.h: each wall and each protection set named with its rule and the
 * change that allows the action, on policies compiled and reloaded from
 * their artifact as heel-why reads them, and on heel run's own text
 * (whose rules carry the option that made them); and nothing for what
 * the policy allows. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "artifact_load.h"
#include "artifact_write.h"
#include "build.h"
#include "diag.h"
#include "ir.h"
#include "sema.h"
#include "settings.h"
#include "why.h"

static const char *
lookup(const char *name, void *ctx)
{
	(void)ctx;
	if (strcmp(name, "HOME") == 0)
		return "/home/u";
	if (strcmp(name, "CWD") == 0)
		return "/work/proj";
	return NULL;
}

static const struct why_launch launch = {.lookup = lookup, .workdir = "/run/heel/wd"};

/* Compiled, written and read back: what heel-why gets. */
static struct ir_policy *
reload(const uint8_t *bytes, size_t len)
{
	struct ir_policy *ir = NULL;
	char err[256] = "";

	cr_assert_eq(artifact_load(bytes, len, &ir, err, sizeof(err)), 0, "%s", err);
	return ir;
}

static struct ir_policy *
compile(const char *text)
{
	struct sema_options o = {.path = "t.heel",
				 .text = text,
				 .len = strlen(text),
				 .platforms = IR_PLAT_BIT(IR_LINUX),
				 .target_explicit = true};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL, *back;
	uint8_t *bytes = NULL;
	size_t len = 0;

	cr_assert_eq(sema_compile(ctx, &o, &ir), 0, "%s", text);
	diag_free(ctx);
	cr_assert_eq(artifact_write(ir, &bytes, &len), 0);
	ir_policy_free(ir);
	back = reload(bytes, len);
	free(bytes);
	return back;
}

struct fixture {
	struct ir_policy *ir;
	struct why_policy *w;
};

static struct fixture
fixture(const char *text)
{
	struct fixture f = {.ir = compile(text)};

	cr_assert_eq(why_policy_new(f.ir, &launch, &f.w), 0);
	return f;
}

static void
fixture_free(struct fixture *f)
{
	why_policy_free(f->w);
	ir_policy_free(f->ir);
}

static struct denial_event
path_event(unsigned op, const char *path, int err)
{
	struct denial_event ev = {.version = DENIAL_VERSION, .op = op, .err = err, .pid = 42};

	snprintf(ev.comm, sizeof(ev.comm), "tool");
	snprintf(ev.path, sizeof(ev.path), "%s", path);
	return ev;
}

static struct denial_event
inet_event(unsigned op, const char *addr, uint16_t port)
{
	struct denial_event ev = {
	    .version = DENIAL_VERSION, .op = op, .family = AF_INET, .port = port, .pid = 42};

	cr_assert_eq(inet_pton(AF_INET, addr, ev.addr), 1);
	return ev;
}

#define DEFAULT "heel 1\nisolation default\n"

Test(why, a_protection_set_denies_a_read_and_a_grant_of_the_file_allows_it)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_OPEN_READ, "/home/u/.ssh/id_rsa", EACCES);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_LANDLOCK);
	cr_assert(a.set);
	cr_expect_str_eq(a.set, "credentials");
	cr_expect(strstr(a.rule, "<protect/credentials>:") != NULL, "%s", a.rule);
	cr_expect_str_eq(a.option, "--readable /home/u/.ssh/id_rsa");
	cr_expect_str_eq(a.line, "grant \"/home/u/.ssh/id_rsa\" r");
	fixture_free(&f);
}

/* Every set that denies: a path beneath each of its rules is refused,
 * and the set is named with the rule's own line. */
Test(why, each_protection_set_is_named_with_its_rule)
{
	struct fixture f = fixture("heel 1\nisolation default\nprotect user-home shared-temp\n");
	bool seen[IR_SET_COUNT] = {false};

	for (size_t i = 0; i < f.ir->npaths; i++) {
		const struct ir_path_rule *r = &f.ir->paths[i];
		char path[PATH_MAX], want[512];
		struct px_info info;
		struct denial_event ev;
		struct why_answer a;

		if (r->set == IR_SET_NONE || r->mode != IR_MODE_DENY ||
		    !(r->platforms & IR_PLAT_BIT(IR_LINUX)) ||
		    px_expand(r->path, lookup, NULL, path, sizeof(path), &info) < 0)
			continue;
		ev = path_event(DENIAL_OPEN_READ, path, 0);
		cr_assert_eq(why_explain(f.w, &ev, &a), 1, "%s", path);
		/* Another rule of the same path may decide (a grant made by a
		 * preset); only the ones this rule decides are checked. */
		if (!a.set || strcmp(a.set, ir_set_name(r->set)) != 0)
			continue;
		snprintf(want, sizeof(want), "%s:%u", r->origin.file, (unsigned)r->origin.line);
		cr_expect_str_eq(a.rule, want, "%s", path);
		cr_expect_eq(a.wall, WHY_WALL_LANDLOCK);
		seen[r->set] = true;
	}
	for (int s = 0; s < IR_SET_COUNT; s++)
		if (s != IR_SET_HOST_RUN)
			cr_expect(seen[s], "no denial of set %s was explained", ir_set_name(s));
	fixture_free(&f);
}

Test(why, a_write_outside_the_writable_places_meets_the_read_only_mount)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_OPEN_WRITE, "/usr/share/doc/x", EROFS);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_READONLY_MOUNT);
	cr_expect(strstr(a.rule, "<default>:") != NULL, "%s", a.rule);
	cr_expect_str_eq(a.option, "--writable /usr/share/doc/x");
	/* A new name needs its directory. */
	ev = path_event(DENIAL_CREATE, "/usr/share/doc/new", 0);
	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_str_eq(a.option, "--writable /usr/share/doc");
	/* EACCES: Landlock answered, not the mount. */
	ev = path_event(DENIAL_OPEN_WRITE, "/usr/share/doc/x", EACCES);
	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_LANDLOCK);
	fixture_free(&f);
}

Test(why, chmod_of_a_read_only_file_meets_the_mount)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_SETATTR, "/usr/bin/env", EROFS);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_READONLY_MOUNT);
	cr_expect_str_eq(a.option, "--writable /usr/bin/env");
	fixture_free(&f);
}

Test(why, exec_from_the_working_directory_meets_noexec)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_EXEC, "/run/heel/wd/a.out", EACCES);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_NOEXEC);
	cr_expect(strstr(a.rule, "working directory") != NULL, "%s", a.rule);
	cr_expect(strncmp(a.option, "--grant DIR=rwx", 15) == 0, "%s", a.option);
	fixture_free(&f);
}

Test(why, exec_in_a_writable_grant_meets_noexec)
{
	struct fixture f = fixture(DEFAULT "grant \"/srv/build\" rw\n");
	struct denial_event ev = path_event(DENIAL_EXEC, "/srv/build/out/a.out", EACCES);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_NOEXEC);
	cr_expect_str_eq(a.rule, "t.heel:3");
	cr_expect_str_eq(a.option, "--grant /srv/build/out=rwx");
	/* Reading and writing there is allowed: nothing to say. */
	ev = path_event(DENIAL_OPEN_WRITE, "/srv/build/out/a.out", 0);
	cr_expect_eq(why_explain(f.w, &ev, &a), 0);
	fixture_free(&f);
}

Test(why, exec_of_what_is_only_readable_meets_landlock)
{
	struct fixture f = fixture(DEFAULT "grant \"/srv/tools\" r\n");
	struct denial_event ev = path_event(DENIAL_EXEC, "/srv/tools/run", EACCES);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_LANDLOCK);
	cr_expect_str_eq(a.rule, "t.heel:3");
	cr_expect_str_eq(a.option, "--executable /srv/tools");
	cr_expect_str_eq(a.line, "grant \"/srv/tools\" rx");
	fixture_free(&f);
}

Test(why, shared_temp_never_runs)
{
	struct fixture f = fixture("heel 1\nisolation permissive\n");
	struct denial_event ev = path_event(DENIAL_EXEC, "/tmp/build/a.out", EACCES);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_NOEXEC);
	cr_expect(strstr(a.reason, "shared temp") != NULL, "%s", a.reason);
	fixture_free(&f);
}

Test(why, a_git_hook_stays_read_only_in_a_writable_place)
{
	struct fixture f = fixture(DEFAULT "grant \"/srv/repo\" rw\n");
	struct denial_event ev =
	    path_event(DENIAL_OPEN_WRITE, "/srv/repo/.git/hooks/pre-commit", EROFS);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_READONLY_COVER);
	cr_assert(a.set);
	cr_expect_str_eq(a.set, "host-run");
	cr_expect(strstr(a.rule, "<protect/host-run>:") != NULL, "%s", a.rule);
	cr_expect_str_eq(a.option, "--writable /srv/repo/.git/hooks");
	/* The same repository's sources are writable: nothing to say. */
	ev = path_event(DENIAL_OPEN_WRITE, "/srv/repo/main.c", 0);
	cr_expect_eq(why_explain(f.w, &ev, &a), 0);
	fixture_free(&f);
}

Test(why, connect_under_network_deny_meets_the_namespace)
{
	struct fixture f = fixture(DEFAULT "network deny\n");
	struct denial_event ev = inet_event(DENIAL_CONNECT, "93.184.216.34", 443);
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_NETNS);
	cr_expect_str_eq(a.rule, "t.heel:3");
	cr_expect(strstr(a.option, "--allow-domain") != NULL, "%s", a.option);
	/* The sandbox's own loopback is its own. */
	ev = inet_event(DENIAL_CONNECT, "127.0.0.1", 8080);
	cr_expect_eq(why_explain(f.w, &ev, &a), 0);
	fixture_free(&f);
}

Test(why, a_refused_domain_meets_the_proxy)
{
	struct fixture f = fixture(DEFAULT "network allow {\n  \"example.com\"\n}\n");
	struct denial_event ev = path_event(DENIAL_CONNECT, "evil.example", 0);
	struct why_answer a;

	ev.source = DENIAL_SRC_PROXY;
	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_PROXY);
	cr_expect_str_eq(a.option, "--allow-domain evil.example");
	cr_expect_str_eq(a.line, "network allow { \"evil.example\" }");
	/* Direct, past the proxy: the namespace. */
	ev = inet_event(DENIAL_CONNECT, "93.184.216.34", 443);
	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_NETNS);
	fixture_free(&f);
}

Test(why, seccomp_names_the_policy_line_or_heels_base)
{
	struct fixture f = fixture(DEFAULT "on linux {\n  seccomp deny \"chroot\"\n}\n");
	struct denial_event ev = {
	    .version = DENIAL_VERSION, .op = DENIAL_SYSCALL, .nr = SYS_chroot};
	struct why_answer a;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_eq(a.wall, WHY_WALL_SECCOMP);
	cr_expect_str_eq(a.rule, "t.heel:4");
	cr_expect_str_eq(a.line, "seccomp allow \"chroot\"");
	ev.nr = SYS_ptrace;
	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	cr_expect_str_eq(a.rule, "heel's seccomp base");
	cr_expect(strstr(a.option, "never") != NULL, "%s", a.option);
	ev.nr = SYS_getpid;
	cr_expect_eq(why_explain(f.w, &ev, &a), 0);
	fixture_free(&f);
}

Test(why, what_the_policy_allows_is_not_reported)
{
	struct fixture f = fixture(DEFAULT);
	static const struct {
		unsigned op;
		const char *path;
	} ok[] = {
	    {DENIAL_OPEN_READ, "/usr/lib/x86_64-linux-gnu/libc.so.6"},
	    {DENIAL_EXEC, "/usr/bin/make"},
	    {DENIAL_OPEN_WRITE, "/run/heel/wd/out.o"},
	    {DENIAL_CREATE, "/run/heel/wd/new"},
	    {DENIAL_UNLINK, "/run/heel/wd/old"},
	    {DENIAL_OPEN_READ, "/home/u/src/main.c"},
	    {DENIAL_OPEN_READ, "relative/never/judged"},
	};
	struct why_answer a;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct denial_event ev = path_event(ok[i].op, ok[i].path, 0);

		cr_expect_eq(why_explain(f.w, &ev, &a), 0, "%s %s: %s", why_op_name(ok[i].op),
			     ok[i].path, a.reason);
	}
	fixture_free(&f);
}

/* heel run's rules carry the option that made them (build.c), and the
 * explanation names it. */
Test(why, heel_run_options_are_the_rule)
{
	struct settings o = {0};
	struct diag_ctx *ctx = diag_new();
	struct build_in in = {.options = &o, .cwd = "/", .read_start_dir = false};
	char *text = NULL, err[512] = "";
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct ir_policy *ir;
	struct why_policy *w;
	struct why_answer a;
	struct denial_event ev;

	cr_assert_eq(settings_add_grant(&o, "/usr/share/doc", "r", "--readable /usr/share/doc"), 0);
	cr_assert_eq(settings_set_scalar(&o.network, "deny", "--network deny"), 0);
	cr_assert_eq(build_text(ctx, &in, &text, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(build_compile_options(ctx, "<heel run>", text, &bytes, &len), 0, "%s", text);
	ir = reload(bytes, len);
	cr_assert_eq(why_policy_new(ir, &launch, &w), 0);
	ev = path_event(DENIAL_EXEC, "/usr/share/doc/run.sh", EACCES);
	cr_assert_eq(why_explain(w, &ev, &a), 1);
	cr_expect_str_eq(a.rule, "--readable /usr/share/doc");
	ev = inet_event(DENIAL_CONNECT, "10.1.2.3", 22);
	cr_assert_eq(why_explain(w, &ev, &a), 1);
	cr_expect_str_eq(a.rule, "--network deny");
	why_policy_free(w);
	ir_policy_free(ir);
	free(bytes);
	free(text);
	settings_free(&o);
	diag_free(ctx);
}

Test(why, the_line_and_the_json_say_the_same)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_OPEN_READ, "/home/u/.ssh/id_rsa", EACCES);
	struct why_answer a;
	char line[2048];
	char *json;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	why_line(&ev, &a, 3, line, sizeof(line));
	cr_expect(strstr(line,
			 "heel: refused open-read /home/u/.ssh/id_rsa (tool, 3 times): "
			 "landlock, protection set credentials, <protect/credentials>:") == line,
		  "%s", line);
	cr_expect(strstr(line, "allow: heel run --readable /home/u/.ssh/id_rsa") != NULL, "%s",
		  line);
	json = why_json(&ev, &a, 3, "2026-12-07T21:00:00.000Z");
	cr_assert(json);
	cr_expect(strncmp(json,
			  "{\"type\":\"denial/1\",\"timestamp\":\"2026-12-07T21:00:00.000Z\","
			  "\"pid\":42,\"comm\":\"tool\",\"op\":\"open-read\",\"path\":"
			  "\"/home/u/.ssh/id_rsa\",\"errno\":\"EACCES\"",
			  119) == 0,
		  "%s", json);
	cr_expect(strstr(json, "\"wall\":\"landlock\",\"set\":\"credentials\"") != NULL, "%s",
		  json);
	cr_expect(strstr(json, "\"count\":3}") != NULL, "%s", json);
	free(json);
	ev.version = 99;
	cr_expect_eq(why_explain(f.w, &ev, &a), -EINVAL);
	fixture_free(&f);
}

/* A file name is the sandbox's: it cannot drive the user's terminal, and
 * a name that is not UTF-8 still makes a JSON line. */
Test(why, names_with_control_bytes_are_shown_escaped)
{
	struct fixture f = fixture(DEFAULT);
	struct denial_event ev = path_event(DENIAL_OPEN_READ, "/home/u/.ssh/\x1b]0;pwned\x07\xff", 0);
	struct why_answer a;
	char line[2048];
	char *json;

	cr_assert_eq(why_explain(f.w, &ev, &a), 1);
	why_line(&ev, &a, 1, line, sizeof(line));
	cr_expect(strchr(line, '\x1b') == NULL && strchr(line, '\x07') == NULL, "%s", line);
	cr_expect(strstr(line, "/home/u/.ssh/\\x1b]0;pwned\\x07") != NULL, "%s", line);
	json = why_json(&ev, &a, 1, "t");
	cr_assert(json);
	cr_expect(strstr(json, "\"path\":\"/home/u/.ssh/\\\\x1b]0;pwned\\\\x07\\\\xff\"") != NULL, "%s", json);
	free(json);
	fixture_free(&f);
}

/* SPDX-License-Identifier: MIT
 * heel run's options -> policy text: modes, precedence between a
 * configuration file and the command line, path resolution (links
 * followed, links inside writable places refused) and the text itself. */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"
#include "diag.h"
#include "pathres.h"
#include "policytext.h"
#include "settings.h"
#include "values.h"

Test(front_settings, modes_as_the_original_spells_them)
{
	static const char *const ok[][2] = {
		{ "r", "r" }, { "rw", "rw" }, { "wr", "rw" }, { "rx", "rx" }, { "xr", "rx" },
		{ "rwx", "rwx" }, { "xwr", "rwx" }, { "wxr", "rwx" },
	};
	static const char *const bad[] = { "", "w", "x", "wx", "rr", "R", "rwz", "r w" };
	const char *why;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect_str_eq(settings_mode_canonical(ok[i][0], &why), ok[i][1], "%s", ok[i][0]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_null(settings_mode_canonical(bad[i], &why), "%s", bad[i]);
}

Test(front_settings, the_command_line_beats_the_file_and_lists_concatenate)
{
	struct settings file = { 0 }, cli = { 0 }, m;

	settings_set_scalar(&file.network, "allow-list", "f:1:1");
	settings_set_scalar(&file.nice, "5", "f:2:1");
	settings_set_scalar(&cli.nice, "10", "--nice 10");
	settings_set_flag(&file.protect[SET_CREDENTIALS], true, "f:3:1");
	settings_set_flag(&cli.protect[SET_CREDENTIALS], false, "--protect-credentials=false");
	settings_set_flag(&file.gpu, true, "f:4:1");
	settings_add_domain(&file, "a.example", "f:5:1");
	settings_add_domain(&cli, "b.example", "--allow-domain b.example");
	settings_add_grant(&file, "/p", "rw", "f:6:1");
	settings_add_grant(&cli, "/p", "r", "--readable /p");
	cr_assert_eq(settings_merge(&file, &cli, &m), 0);
	cr_expect_str_eq(m.network.value, "allow-list");
	cr_expect_str_eq(m.nice.value, "10");
	cr_expect_str_eq(m.nice.origin, "--nice 10");
	cr_expect_eq(m.protect[SET_CREDENTIALS].on, TRI_OFF);
	cr_expect_eq(m.gpu.on, TRI_ON);
	cr_assert_eq(m.ndomains, 2);
	cr_expect_str_eq(m.domains[0].pattern, "a.example");
	cr_expect_str_eq(m.domains[1].pattern, "b.example");
	/* Both grants stay: the compiler unions them (and refuses rw + rx). */
	cr_assert_eq(m.ngrants, 2);
	settings_free(&file);
	settings_free(&cli);
	settings_free(&m);
}

Test(front_values, limits_take_the_original_bare_numbers)
{
	char out[64], why[300];

	cr_assert_eq(values_limit(LIM_MEMORY, "1048576", out, sizeof(out), why, sizeof(why)), 0);
	cr_expect_str_eq(out, "1048576B");
	cr_assert_eq(values_limit(LIM_CPU, "30", out, sizeof(out), why, sizeof(why)), 0);
	cr_expect_str_eq(out, "30s");
	cr_assert_eq(values_limit(LIM_CPU, "2m", out, sizeof(out), why, sizeof(why)), 0);
	cr_expect_str_eq(out, "2m");
	cr_expect_eq(values_limit(LIM_CPU, "500ms", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_limit(LIM_MEMORY, "1G", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "GiB") != NULL, "%s", why);
	cr_expect_eq(values_limit(LIM_PROCESSES, "0", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_limit(LIM_CORE, "0", out, sizeof(out), why, sizeof(why)), 0);
	cr_expect_eq(values_limit(LIM_PROCESSES, "20s", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_nice("0", out, sizeof(out), why, sizeof(why)), -EINVAL);
}

Test(front_values, nice_io_priority_bool_env_names)
{
	char out[64], why[300];
	bool on;

	cr_expect_eq(values_nice("19", out, sizeof(out), why, sizeof(why)), 0);
	cr_expect_eq(values_nice("20", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_nice("-5", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_io_priority("idle", out, sizeof(out), why, sizeof(why)), -EINVAL);
	cr_expect_eq(values_bool("no", &on, why, sizeof(why)), 0);
	cr_expect_not(on);
	cr_expect_eq(values_bool("maybe", &on, why, sizeof(why)), -EINVAL);
	cr_expect(values_env_name("_A1"));
	cr_expect_not(values_env_name("1A"));
	cr_expect_not(values_env_name("A-B"));
	cr_expect_not(values_env_name(""));
}

/* A scratch directory for the path tests; removed with `rm -rf`. */
static char scratch[64];

static void
make_scratch(void)
{
	strcpy(scratch, "/tmp/heel-front-XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
}

static void
drop_scratch(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	cr_assert_eq(system(cmd), 0);
}

static void
sh(const char *fmt)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd %s && %s", scratch, fmt);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The memo is a set: each directory once however many paths pass
 * through it, and a lookup of a directory it holds finds it after it
 * has grown many times (heel run was quadratic in its grants). */
Test(front_pathres, memo_holds_each_directory_once, .init = make_scratch, .fini = drop_scratch)
{
	struct pathres_memo memo = { 0 };
	char path[64], why[600];
	struct pathres r;

	sh("mkdir -p a/b && for i in $(seq 1 3000); do mkdir a/b/d$i; done");
	for (int round = 0; round < 2; round++)
		for (int i = 1; i <= 3000; i++) {
			snprintf(path, sizeof(path), "a/b/d%d/file", i);
			cr_assert_eq(pathres_resolve_memo(scratch, path, &memo, &r, why, sizeof(why)), 0,
				     "%s", why);
			cr_assert(!r.exists);
			pathres_free(&r);
		}
	/* scratch's own ancestors, a, a/b and the 3000 below. */
	cr_assert_geq(memo.n, 3002);
	cr_assert_leq(memo.n, 3002 + 16);
	cr_assert_geq(memo.cap, 2 * memo.n);
	pathres_memo_free(&memo);
}

Test(front_pathres, relative_dots_links_and_missing_parts, .init = make_scratch, .fini = drop_scratch)
{
	struct pathres r;
	char err[600], want[256];

	sh("mkdir -p real/sub && ln -s real/sub link && ln -s /nonexistent-heel dangling");
	cr_assert_eq(pathres_resolve(scratch, "./real/../real/sub/", &r, err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/real/sub", scratch);
	cr_expect_str_eq(r.path, want);
	cr_expect_eq(r.nlinks, 0);
	cr_expect(r.exists);
	pathres_free(&r);

	cr_assert_eq(pathres_resolve(scratch, "link/new/file", &r, err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/real/sub/new/file", scratch);
	cr_expect_str_eq(r.path, want);
	cr_assert_eq(r.nlinks, 1);
	snprintf(want, sizeof(want), "%s/link", scratch);
	cr_expect_str_eq(r.links[0], want);
	cr_expect_not(r.exists);
	pathres_free(&r);

	/* Past a missing component, `..` is lexical. */
	cr_assert_eq(pathres_resolve(scratch, "nothere/../real", &r, err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/real", scratch);
	cr_expect_str_eq(r.path, want);
	pathres_free(&r);

	cr_assert_eq(pathres_resolve(scratch, "dangling", &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(r.path, "/nonexistent-heel");
	pathres_free(&r);

	sh("ln -s loop2 loop1 && ln -s loop1 loop2");
	cr_expect_eq(pathres_resolve(scratch, "loop1", &r, err, sizeof(err)), -ELOOP);
	cr_expect(strstr(err, "too many levels") != NULL, "%s", err);
	cr_expect_eq(pathres_resolve(scratch, "", &r, err, sizeof(err)), -EINVAL);
	cr_expect(pathres_beneath("/a/b", "/a"));
	cr_expect(pathres_beneath("/a", "/a"));
	cr_expect_not(pathres_beneath("/ab", "/a"));
	cr_expect(pathres_beneath("/x", "/"));
}

static int
text_for(struct settings *opts, const char *config, char **text, char *err, size_t errlen)
{
	struct diag_ctx *ctx = diag_new();
	struct build_in in = { .options = opts, .config = config, .cwd = scratch, .read_start_dir = true };
	int rc = build_text(ctx, &in, text, err, errlen);

	diag_free(ctx);
	return rc;
}

/* build_text, then what heel run does before it launches: compile, and
 * check each path named against every place a sandbox may write (this
 * policy's, and those a ledger in the scratch home records). */
static int
checked_text_for(struct settings *opts, char **text, char *err, size_t errlen)
{
	struct diag_ctx *ctx = diag_new();
	struct build_named_list named = { 0 };
	struct build_in in = { .options = opts, .cwd = scratch, .read_start_dir = true,
			       .named = &named };
	char home[PATH_MAX + 8];
	char *env[] = { home, NULL };
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	snprintf(home, sizeof(home), "HOME=%s/home", scratch);
	sh("mkdir -p home");
	rc = build_text(ctx, &in, text, err, errlen);
	if (!rc)
		rc = build_compile(ctx, "<test>", *text, true, &bytes, &len);
	if (!rc)
		rc = build_check_named(&named, bytes, len, scratch, env, NULL, err, errlen);
	free(bytes);
	build_named_free(&named);
	diag_free(ctx);
	return rc;
}

Test(front_build, a_link_inside_a_writable_grant_is_refused, .init = make_scratch, .fini = drop_scratch)
{
	struct settings o = { 0 };
	char *text = NULL, err[4096];

	/* The sandbox can write `proj`; a link it left there must not turn
	 * a read grant into a grant of what the link points to. */
	sh("mkdir -p proj secret && ln -s ../secret proj/out");
	settings_add_grant(&o, "proj", "rw", "--writable proj");
	settings_add_grant(&o, "proj/out", "r", "--readable proj/out");
	cr_assert_eq(checked_text_for(&o, &text, err, sizeof(err)), -EPERM);
	free(text);
	cr_expect(strstr(err, "--readable proj/out: ") != NULL, "%s", err);
	cr_expect(strstr(err, "crosses the symbolic link") != NULL, "%s", err);
	cr_expect(strstr(err, "this launch's sandbox may write") != NULL, "%s", err);
	settings_free(&o);

	/* Control: the same link outside any writable place is followed. */
	sh("ln -s secret elsewhere");
	settings_add_grant(&o, "proj", "rw", "--writable proj");
	settings_add_grant(&o, "elsewhere", "r", "--readable elsewhere");
	cr_assert_eq(checked_text_for(&o, &text, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(text, "/secret\" r  # --readable elsewhere") != NULL, "%s", text);
	free(text);
	settings_free(&o);
}

Test(front_build, the_network_options_settle, .init = make_scratch, .fini = drop_scratch)
{
	struct settings o = { 0 };
	char *text = NULL, err[1200];

	settings_add_domain(&o, "example.com", "--allow-domain example.com");
	cr_assert_eq(text_for(&o, NULL, &text, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(text, "network allow {  # --allow-domain example.com\n    \"example.com\"") != NULL,
		  "%s", text);
	free(text);
	settings_set_scalar(&o.network, "deny", "--network deny");
	cr_assert_eq(text_for(&o, NULL, &text, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "only with --network allow-list") != NULL, "%s", err);
	settings_free(&o);
}

Test(front_build, text_with_config_and_every_statement, .init = make_scratch, .fini = drop_scratch)
{
	struct settings o = { 0 };
	char *text = NULL, err[1200], path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/c.toml", scratch);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("isolation = \"strict\"\nnice = 4\n[grants]\n\"./data\" = \"r\"\n", f);
	fclose(f);
	settings_set_scalar(&o.isolation, "permissive", "--isolation permissive");
	settings_set_flag(&o.protect[SET_SHARED_TEMP], false, "--protect-shared-temp=false");
	settings_set_flag(&o.gpu, true, "--allow-gpu");
	settings_set_scalar(&o.limits[LIM_MEMORY], "1GiB", "--max-memory 1GiB");
	settings_set_scalar(&o.io_priority, "utility", "--io-priority utility");
	settings_add_env(&o, "Q", "say \"hi\" \\ there", "--env Q=...");
	settings_set_scalar(&o.working_dir, "out", "--working-dir out");
	cr_assert_eq(text_for(&o, path, &text, err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(text, "isolation permissive  # --isolation permissive\n") != NULL, "%s", text);
	cr_expect(strstr(text, "isolation strict") == NULL, "%s", text);
	cr_expect(strstr(text, "nice 4  # ") != NULL, "%s", text);
	cr_expect(strstr(text, "unprotect shared-temp") != NULL, "%s", text);
	cr_expect(strstr(text, "allow gpu  # --allow-gpu\n") != NULL, "%s", text);
	cr_expect(strstr(text, "/data\" r  # ") != NULL, "%s", text);
	cr_expect(strstr(text, "limit memory 1GiB") != NULL, "%s", text);
	cr_expect(strstr(text, "io-priority utility") != NULL, "%s", text);
	cr_expect(strstr(text, "env set \"Q\" \"say \\\"hi\\\" \\\\ there\"") != NULL, "%s", text);
	cr_expect(strstr(text, "workdir \"/tmp/heel-front-") != NULL, "%s", text);
	/* The start directory's grant is decided from the compiled policy
	 * (startdir.h), not written here. */
	cr_expect(strstr(text, "${CWD}") == NULL, "%s", text);
	free(text);
	settings_free(&o);
}

Test(front_build, paths_a_policy_cannot_name_are_refused, .init = make_scratch, .fini = drop_scratch)
{
	struct settings o = { 0 };
	char *text = NULL, err[1200];

	settings_add_grant(&o, "/tmp/${HOME}", "r", "--readable /tmp/${HOME}");
	cr_assert_eq(text_for(&o, NULL, &text, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "holds `${`") != NULL, "%s", err);
	settings_free(&o);
	settings_add_grant(&o, "/tmp/a\nb", "r", "--readable x");
	cr_assert_eq(text_for(&o, NULL, &text, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "control character") != NULL, "%s", err);
	settings_free(&o);
}

/* cli_parse on a NULL-terminated list. */
static enum cli_result
parse_cli(struct cli *c, char *err, size_t errlen, const char *const *args)
{
	int n = 0;

	while (args[n])
		n++;
	return cli_parse(n, (char **)args, c, err, errlen);
}

Test(front_cli, options_and_the_command)
{
	const char *args[] = { "heel", "run", "--grant", "./a=b=rx", "-v", "--protect-home=false",
			       "--protect-keychain", "--max-memory", "64MiB", "--limit", "processes=20",
			       "--env", "A=1", "--best-effort", "--", "ls", "-l", NULL };
	struct cli c;
	char err[600];

	cr_assert_eq(parse_cli(&c, err, sizeof(err), args), CLI_OK, "%s", err);
	cr_expect_str_eq(c.opts.grants[0].path, "./a=b");
	cr_expect_str_eq(c.opts.grants[0].mode, "rx");
	cr_expect_eq(c.verbose, 1);
	cr_expect_eq(c.opts.protect[SET_USER_HOME].on, TRI_OFF);
	cr_expect_str_eq(c.opts.protect[SET_USER_HOME].origin, "--protect-home=false");
	cr_expect_eq(c.opts.protect[SET_KEYCHAINS].on, TRI_ON);
	cr_expect_str_eq(c.opts.limits[LIM_MEMORY].value, "64MiB");
	cr_expect_str_eq(c.opts.limits[LIM_PROCESSES].value, "20");
	cr_expect(c.best_effort);
	cr_assert_eq(c.nargs, 2);
	cr_expect_str_eq(c.args[0], "ls");
	cr_expect_str_eq(c.args[1], "-l");
	cr_expect_str_eq(c.policy_option, "--grant ./a=b=rx");
	cli_free(&c);
}

Test(front_cli, the_program_ends_the_options)
{
	const char *args[] = { "heel", "run", "echo", "--network", "allow-all", NULL };
	const char *py[] = { "heel", "python", "--nice", "3", "-c", "print(1)", "-v", NULL };
	struct cli c;
	char err[600];

	cr_assert_eq(parse_cli(&c, err, sizeof(err), args), CLI_OK, "%s", err);
	cr_expect_null(c.opts.network.value);
	cr_expect_eq(c.nargs, 3);
	cli_free(&c);
	cr_assert_eq(parse_cli(&c, err, sizeof(err), py), CLI_OK, "%s", err);
	cr_expect_str_eq(c.python_code, "print(1)");
	cr_expect_eq(c.nargs, 1); /* -v goes to python */
	cr_expect_eq(c.verbose, 0);
	cli_free(&c);
}

Test(front_cli, mistakes_say_what_was_wrong)
{
	static const struct {
		const char *args[8];
		const char *says;
	} cases[] = {
		{ { "heel", NULL }, "say what to do" },
		{ { "heel", "rnu", "ls", NULL }, "unknown subcommand `rnu`" },
		{ { "heel", "--isolation", "strict", "run", NULL }, "options come after the subcommand" },
		{ { "heel", "run", NULL }, "heel run needs a command" },
		{ { "heel", "run", "--frob", "ls", NULL }, "unknown option --frob" },
		{ { "heel", "run", "--grant", NULL }, "--grant needs a value" },
		{ { "heel", "run", "--grant", "./x", "ls", NULL }, "write PATH=MODE" },
		{ { "heel", "run", "--grant", "./x=rwz", "ls", NULL }, "only the letters r, w and x" },
		{ { "heel", "run", "--network", "allow", "ls", NULL }, "ambiguous" },
		{ { "heel", "run", "--isolation", "loose", "ls", NULL }, "not an isolation base" },
		{ { "heel", "run", "--protect-credentials=maybe", "ls", NULL }, "not true or false" },
		{ { "heel", "run", "--limit", "mem=1GiB", "ls", NULL }, "`mem` is not a limit" },
		{ { "heel", "run", "--env", "1A=b", "ls", NULL }, "not a variable name" },
		{ { "heel", "run", "--shell", "/bin/sh", "ls", NULL }, "--shell is an option of `heel shell`" },
		{ { "heel", "shell", "ls", NULL }, "heel shell takes no command" },
		{ { "heel", "run", "--no-namespaces", "ls", NULL }, "goes with --best-effort" },
		{ { "heel", "run", "--policy", "a", "--policy", "b", "ls", NULL }, "--policy given twice" },
	};
	struct cli c;
	char err[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(parse_cli(&c, err, sizeof(err), cases[i].args), CLI_ERROR, "case %zu", i);
		cr_expect(strstr(err, cases[i].says) != NULL, "case %zu: `%s` does not say `%s`", i, err,
			  cases[i].says);
		cli_free(&c);
	}
}

Test(front_cli, help_and_version)
{
	const char *h[] = { "heel", "--help", NULL }, *rh[] = { "heel", "run", "-h", NULL },
		   *v[] = { "heel", "--version", NULL };
	struct cli c;
	char err[600];

	cr_expect_eq(parse_cli(&c, err, sizeof(err), h), CLI_HELP);
	cr_expect_eq(parse_cli(&c, err, sizeof(err), rh), CLI_HELP);
	cli_free(&c);
	cr_expect_eq(parse_cli(&c, err, sizeof(err), v), CLI_VERSION);
}

/* getopt_long's unique prefixes are refused, each with the option in
 * full; an unknown option gets the nearest one. The control: the same
 * options written in full are taken. */
Test(front_cli, options_only_in_full_and_did_you_mean)
{
	static const struct {
		const char *args[6];
		const char *says;
	} cases[] = {
		{ { "heel", "run", "--protect-cred=false", "ls", NULL },
		  "--protect-cred: write the option in full, --protect-credentials" },
		{ { "heel", "run", "--protect-cred", "false", "ls", NULL }, "write the option in full" },
		{ { "heel", "run", "--net", "deny", "ls", NULL }, "--net: write the option in full, --network" },
		{ { "heel", "run", "--best", "ls", NULL }, "write the option in full, --best-effort" },
		{ { "heel", "run", "--netwrk", "deny", "ls", NULL }, "did you mean --network?" },
		{ { "heel", "run", "--writabel=.", "ls", NULL }, "unknown option --writabel (did you mean --writable?)" },
	};
	const char *full[] = { "heel", "run", "--protect-credentials=false", "--network", "deny",
			       "--best-effort", "ls", NULL };
	struct cli c;
	char err[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(parse_cli(&c, err, sizeof(err), cases[i].args), CLI_ERROR, "case %zu", i);
		cr_expect(strstr(err, cases[i].says) != NULL, "case %zu: `%s` does not say `%s`", i, err,
			  cases[i].says);
		cli_free(&c);
	}
	cr_assert_eq(parse_cli(&c, err, sizeof(err), full), CLI_OK, "%s", err);
	cr_expect_eq(c.opts.protect[SET_CREDENTIALS].on, TRI_OFF);
	cr_expect_str_eq(c.opts.network.value, "deny");
	cr_expect(c.best_effort);
	cli_free(&c);
}

/* The origin in each line's comment, as heel run's rules carry it into
 * the artifact; a `  # ` inside a string is no comment. */
Test(front_build, the_origin_of_a_line)
{
	const char *text = "heel 1\n"
			   "grant \"/a  # b\" rw  # --writable /a  # b\n"
			   "grant \"/c\" r  # /p/heel.toml:4:12\n"
			   "limit cpu 2s\n";
	char o[256];

	cr_assert_eq(policytext_origin_at(text, 2, o, sizeof(o)), 0);
	cr_expect_str_eq(o, "--writable /a  # b");
	cr_assert_eq(policytext_origin_at(text, 3, o, sizeof(o)), 0);
	cr_expect_str_eq(o, "/p/heel.toml:4:12");
	cr_expect_eq(policytext_origin_at(text, 4, o, sizeof(o)), -ENOENT);
	cr_expect_eq(policytext_origin_at(text, 1, o, sizeof(o)), -ENOENT);
	cr_expect_eq(policytext_origin_at(text, 9, o, sizeof(o)), -ENOENT);
}

/* SPDX-License-Identifier: MIT
 * launcher/linux_execwhy.c: the words heel-exec prints when the command
 * cannot be executed (which rule refuses it, and the way out), on real
 * trees and artifacts heelc's writer makes; and its table of the stock
 * presets' executable grants, compared with the presets themselves so
 * that neither changes alone. runtime/execpath.c: the PATH search never
 * falls through to a later program of the same name. */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact_read.h"
#include "artifact_write.h"
#include "diag.h"
#include "execpath.h"
#include "ir.h"
#include "linux_execwhy.h"
#include "presets.h"
#include "sema.h"

static struct ir_policy *
compile(const char *text)
{
	struct sema_options o = { .path = "t.heel", .text = text, .len = strlen(text),
				  .platforms = IR_PLAT_BIT(IR_LINUX), .target_explicit = true };
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;

	cr_assert_eq(sema_compile(ctx, &o, &ir), 0, "%s", text);
	diag_free(ctx);
	return ir;
}

/* Every executable grant a stock preset makes on Linux is in the table,
 * under its name, and the table holds nothing else. */
Test(execwhy, the_preset_table_is_what_the_presets_grant)
{
	size_t seen = 0;

	for (size_t i = 0; i < presets_count; i++) {
		const char *name = presets_table[i].name;
		char text[256];
		struct ir_policy *ir;

		if (strchr(name, '/') || !strcmp(name, "strict") || !strcmp(name, "default") ||
		    !strcmp(name, "permissive"))
			continue;
		snprintf(text, sizeof(text), "heel 1\nisolation strict\ninclude <%s>\n", name);
		ir = compile(text);
		for (size_t j = 0; j < ir->npaths; j++) {
			const struct ir_path_rule *r = &ir->paths[j];
			bool found = false;

			if (r->source != IR_SRC_PRESET || !(r->mode & IR_EXEC) ||
			    !(r->platforms & IR_PLAT_BIT(IR_LINUX)))
				continue;
			for (size_t k = 0; k < xw_npreset_grants; k++)
				found |= !strcmp(xw_preset_grants[k].preset, name) &&
					 (!strcmp(xw_preset_grants[k].path, r->path) ||
					  (!strncmp(xw_preset_grants[k].path, "./", 2) &&
					   !strcmp(xw_preset_grants[k].path + 2, r->path)));
			cr_assert(found, "<%s> grants \"%s\" %s on linux; add it to xw_preset_grants",
				  name, r->path, ir_mode_name(r->mode));
			seen++;
		}
		ir_policy_free(ir);
	}
	cr_assert_eq(seen, xw_npreset_grants,
		     "xw_preset_grants has %zu entries, the presets %zu executable grants",
		     xw_npreset_grants, seen);
}

static char T[] = "/tmp/heel-execwhy-XXXXXX";
static char HOME_VAR[PATH_MAX + 8];
static char *ENV[] = { HOME_VAR, NULL };

static const char *
at(const char *rel)
{
	static char p[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", T, rel);
	return p[k];
}

static void
mkfile(const char *rel, mode_t mode)
{
	FILE *f = fopen(at(rel), "w");

	cr_assert_not_null(f, "%s", at(rel));
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	cr_assert_eq(chmod(at(rel), mode), 0);
}

static void
setup(void)
{
	cr_assert_not_null(mkdtemp(T));
	cr_assert_eq(mkdir(at("home"), 0755), 0);
	cr_assert_eq(mkdir(at("home/.ssh"), 0700), 0);
	cr_assert_eq(mkdir(at("home/.cargo"), 0755), 0);
	cr_assert_eq(mkdir(at("home/.cargo/bin"), 0755), 0);
	cr_assert_eq(mkdir(at("w"), 0755), 0);
	cr_assert_eq(mkdir(at("wd"), 0755), 0);
	mkfile("home/.ssh/tool", 0755);
	mkfile("home/.cargo/bin/cargo", 0755);
	mkfile("w/built", 0755);
	mkfile("home/plain", 0644);
	snprintf(HOME_VAR, sizeof(HOME_VAR), "HOME=%s", at("home"));
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", T);
	cr_assert_eq(system(cmd), 0);
}

/* What heel-exec would print for `tried` under `policy`. */
static const char *
why(const char *policy, const char *tried, const char *later)
{
	static char out[4096];
	struct ir_policy *ir = compile(policy);
	struct art_view view;
	uint8_t *bytes;
	size_t len;
	struct xw_launch xl = { .view = &view, .env = ENV, .cwd = at("w"), .workdir = at("wd") };

	cr_assert_eq(artifact_write(ir, &bytes, &len), 0);
	ir_policy_free(ir);
	cr_assert_eq(art_validate(bytes, len, &view, NULL, 0), 0);
	out[0] = '\0';
	xw_explain(&xl, tried, later, EACCES, out, sizeof(out));
	free(bytes);
	return out;
}

#define HAS(out, s) cr_assert(strstr(out, s), "no `%s` in:%s", s, out)

TestSuite(execwhy_words, .init = setup, .fini = teardown);

Test(execwhy_words, a_writable_place_names_the_grant_and_rwx)
{
	char policy[PATH_MAX + 64];
	const char *out;

	snprintf(policy, sizeof(policy), "heel 1\ngrant \"%s\" rw\n", at("w"));
	out = why(policy, at("w/built"), "");
	HAS(out, "which the sandbox may write");
	HAS(out, " rw at t.heel:2");
	HAS(out, "--grant ");
	HAS(out, "=rwx");
}

Test(execwhy_words, a_protection_names_the_set_and_how_to_lift_it)
{
	const char *out = why("heel 1\n", at("home/.ssh/tool"), "");

	HAS(out, "the protection set `credentials` denies");
	HAS(out, "--protect-credentials=false");
	HAS(out, "--executable ");
}

Test(execwhy_words, strict_names_user_home_and_the_preset)
{
	const char *out = why("heel 1\nisolation strict\n", at("home/.cargo/bin/cargo"), "/usr/bin/cargo");

	HAS(out, "the protection set `user-home` denies");
	HAS(out, "--preset rust");
	HAS(out, "PATH also holds /usr/bin/cargo");
}

Test(execwhy_words, the_working_directory_never_runs)
{
	const char *out = why("heel 1\n", at("wd/a.out"), "");

	HAS(out, "lies in the working directory");
}

Test(execwhy_words, a_read_grant_is_not_an_exec_grant)
{
	char policy[PATH_MAX + 64];
	const char *out;

	snprintf(policy, sizeof(policy), "heel 1\nisolation strict\ngrant \"%s\" r\n", at("w"));
	out = why(policy, at("w/built"), "");
	HAS(out, "lets the sandbox read");
	HAS(out, "--executable ");
}

Test(execwhy_words, shared_temp_never_runs)
{
	const char *out = why("heel 1\n", "/tmp/x/prog", "");

	HAS(out, "lies in shared temp (/tmp)");
	HAS(out, "--executable /tmp/x");
}

Test(execwhy_words, a_mode_without_x_is_the_files_own)
{
	const char *out = why("heel 1\n", at("home/plain"), "");

	HAS(out, "its mode (0644) lets no one run it");
}

/* ------------------------------------------------------------ PATH */

/* Runs execpath_exec for `name` with `path` in a child; what it ran
 * answers on stdout, a failure exits 100 + errno with the miss on a pipe. */
static int
search(const char *name, const char *path, struct execpath_miss *miss)
{
	int p[2], status;
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char *argv[] = { (char *)name, NULL }, *envp[] = { NULL };
		struct execpath_miss m;
		int r;

		close(p[0]);
		r = execpath_exec(name, argv, envp, path, &m);
		(void)!write(p[1], &m, sizeof(m));
		_exit(100 + (-r & 0x7f));
	}
	close(p[1]);
	memset(miss, 0, sizeof(*miss));
	(void)!read(p[0], miss, sizeof(*miss));
	close(p[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
write_prog(const char *rel, const char *body, mode_t mode)
{
	FILE *f = fopen(at(rel), "w");

	cr_assert_not_null(f);
	fputs(body, f);
	fclose(f);
	cr_assert_eq(chmod(at(rel), mode), 0);
}

Test(execwhy_words, a_search_stops_at_the_first_match_the_host_would_run)
{
	char path[3 * PATH_MAX];
	struct execpath_miss m;

	cr_assert_eq(mkdir(at("a"), 0755), 0);
	cr_assert_eq(mkdir(at("b"), 0755), 0);
	/* b/prog runs and exits 7: reached only by falling through. */
	write_prog("b/prog", "#!/bin/sh\nexit 7\n", 0755);
	/* a/prog: the host would run it, but execve cannot (no #!, not
	 * ELF: ENOEXEC). The search must stop there, naming both. */
	write_prog("a/prog", "not a program\n", 0755);
	snprintf(path, sizeof(path), "%s:%s", at("a"), at("b"));
	cr_assert_eq(search("prog", path, &m), 100 + ENOEXEC, "fell through to b/prog");
	cr_assert_str_eq(m.tried, at("a/prog"));
	cr_assert_str_eq(m.later, at("b/prog"));
	/* Control: a match the host passes over too (no execute bit, a
	 * directory of that name) is skipped, and b/prog runs. */
	cr_assert_eq(chmod(at("a/prog"), 0644), 0);
	cr_assert_eq(search("prog", path, &m), 7);
	cr_assert_eq(unlink(at("a/prog")), 0);
	cr_assert_eq(mkdir(at("a/prog"), 0755), 0);
	cr_assert_eq(search("prog", path, &m), 7);
}

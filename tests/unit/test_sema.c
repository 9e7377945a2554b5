/* SPDX-License-Identifier: MIT
 * sema: policy texts compiled to IR, asserting on what the IR holds
 * (precedence, unions, platform masks, protections per base, scalars per
 * platform, normalised patterns) and on the diagnostics (messages and
 * positions). Files for include tests are written to a temp directory. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "ir.h"
#include "sema.h"

#define LINUX IR_PLAT_BIT(IR_LINUX)
#define MACOS IR_PLAT_BIT(IR_MACOS)
#define WINDOWS IR_PLAT_BIT(IR_WINDOWS)
#define POSIX (LINUX | MACOS)

struct result {
	struct diag_ctx *ctx;
	struct ir_policy *ir;
	int rc;
};

static struct result r;

static void
teardown(void)
{
	ir_policy_free(r.ir);
	diag_free(r.ctx);
	memset(&r, 0, sizeof(r));
}

TestSuite(sema, .fini = teardown);

static int
compile_opts(const char *text, const char *path, unsigned platforms, bool explicit_target)
{
	struct sema_options o = {
	    .path = path,
	    .text = text,
	    .len = text ? strlen(text) : 0,
	    .platforms = platforms,
	    .target_explicit = explicit_target,
	};

	ir_policy_free(r.ir);
	diag_free(r.ctx);
	r.ir = NULL;
	r.ctx = diag_new();
	cr_assert_not_null(r.ctx);
	r.rc = sema_compile(r.ctx, &o, &r.ir);
	return r.rc;
}

static int
compile(const char *text)
{
	return compile_opts(text, "test.heel", 0, false);
}

/* Compiles and fails the test, printing the diagnostics, unless clean. */
static void
compile_ok(const char *text)
{
	if (compile(text) != 0 || diag_error_count(r.ctx)) {
		diag_render(r.ctx, stderr);
		cr_assert_fail("policy did not compile: rc %d", r.rc);
	}
	cr_assert_not_null(r.ir);
}

/* The diagnostic of severity `sev` whose message contains `needle`. */
static const struct diag *
find_diag(enum diag_severity sev, const char *needle)
{
	for (size_t i = 0; i < diag_count(r.ctx); i++) {
		const struct diag *d = diag_get(r.ctx, i);

		if (d->severity == sev && strstr(d->message, needle))
			return d;
	}
	return NULL;
}

static void
expect_diag(enum diag_severity sev, const char *needle, uint32_t line, uint32_t col)
{
	const struct diag *d = find_diag(sev, needle);

	if (!d) {
		diag_render(r.ctx, stderr);
		cr_assert_fail("no diagnostic containing \"%s\"", needle);
	}
	cr_expect_eq(d->loc.line, line, "\"%s\": line %u, expected %u", needle, d->loc.line, line);
	cr_expect_eq(d->loc.col, col, "\"%s\": col %u, expected %u", needle, d->loc.col, col);
}

/* The rule for `path` that applies on platform bit `plat`. */
static const struct ir_path_rule *
rule(const char *path, unsigned plat)
{
	for (size_t i = 0; i < r.ir->npaths; i++)
		if (strcmp(r.ir->paths[i].path, path) == 0 && (r.ir->paths[i].platforms & plat))
			return &r.ir->paths[i];
	return NULL;
}

static size_t
count_rules(const char *path)
{
	size_t n = 0;

	for (size_t i = 0; i < r.ir->npaths; i++)
		n += strcmp(r.ir->paths[i].path, path) == 0;
	return n;
}

/* ------------------------------------------------------------ basics */

Test(sema, minimal_policy_gets_default_base)
{
	compile_ok("heel 1\n");
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		const struct ir_scalars *s = &r.ir->scalar[p];

		cr_expect_eq(s->isolation.value, IR_ISO_DEFAULT);
		cr_expect_eq(s->network.value, IR_NET_DENY);
		cr_expect(s->protections.set);
		/* default: every set except user-home and shared-temp */
		cr_expect_eq(s->protections.value,
			     0x1ff & ~(1u << IR_SET_USER_HOME) & ~(1u << IR_SET_SHARED_TEMP));
		cr_expect(s->gpu.set && s->gpu.value == 1);
	}
	cr_expect_eq(r.ir->platforms, IR_PLAT_ALL);
	/* The base's rules are there, marked as the base's. */
	cr_assert_not_null(rule("/usr", LINUX));
	cr_expect_eq(rule("/usr", LINUX)->source, IR_SRC_BASE);
	cr_expect_str_eq(rule("/usr", LINUX)->origin.file, "<default>");
	cr_expect_eq(diag_count(r.ctx), 0);
}

Test(sema, strict_base_protects_everything_and_denies_gpu)
{
	compile_ok("heel 1\nisolation strict\n");
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		cr_expect_eq(r.ir->scalar[p].isolation.value, IR_ISO_STRICT);
		cr_expect_eq(r.ir->scalar[p].protections.value, 0x1ff);
		cr_expect_eq(r.ir->scalar[p].gpu.value, 0);
	}
	cr_expect_str_eq(r.ir->scalar[IR_LINUX].isolation.origin.file, "test.heel");
	cr_expect_eq(r.ir->scalar[IR_LINUX].isolation.origin.line, 2);
	/* Protection-set rules: marked with their set and source. */
	cr_assert_not_null(rule("${HOME}/.ssh", LINUX));
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->mode, IR_MODE_DENY);
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->set, IR_SET_CREDENTIALS);
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->source, IR_SRC_PROTECTION);
	cr_expect(rule("${HOME}/.ssh", LINUX)->optional);
	cr_expect_str_eq(rule("${HOME}/.ssh", LINUX)->origin.file, "<protect/credentials>");
	/* A base overriding nothing of the user's: no warning. */
	cr_expect_eq(diag_warning_count(r.ctx), 0);
}

Test(sema, permissive_base_has_no_protections_and_drops_windows)
{
	cr_assert_eq(compile("heel 1\nisolation permissive\n"), 0);
	/* No set that denies; host-run, which only keeps files read-only. */
	for (int p = 0; p < IR_PLATFORM_COUNT; p++)
		cr_expect_eq(r.ir->scalar[p].protections.value, 1u << IR_SET_HOST_RUN);
	cr_expect_eq(r.ir->platforms, POSIX);
	cr_assert_not_null(r.ir->excluded_reason[IR_WINDOWS]);
	cr_expect(strstr(r.ir->excluded_reason[IR_WINDOWS], "AppContainer"));
	expect_diag(DIAG_WARNING, "cannot be enforced by a Windows AppContainer", 2, 1);
	cr_expect_null(rule("${HOME}/.ssh", LINUX));
}

Test(sema, permissive_with_explicit_windows_target_is_an_error)
{
	cr_expect_eq(
	    compile_opts("heel 1\nisolation permissive\n", "t.heel", WINDOWS | LINUX, true),
	    -EINVAL);
	cr_expect_null(r.ir);
	expect_diag(DIAG_ERROR,
		    "`isolation permissive` cannot be enforced by a Windows AppContainer", 2, 1);
}

Test(sema, permissive_without_windows_target_is_fine)
{
	cr_assert_eq(compile_opts("heel 1\nisolation permissive\n", "t.heel", LINUX, true), 0);
	cr_expect_eq(r.ir->platforms, LINUX);
	cr_expect_eq(diag_count(r.ctx), 0);
}

Test(sema, target_mask_recorded)
{
	cr_assert_eq(compile_opts("heel 1\n", "t.heel", MACOS | WINDOWS, true), 0);
	cr_expect_eq(r.ir->platforms, MACOS | WINDOWS);
}

Test(sema, unreadable_top_file_is_eio)
{
	cr_expect_eq(compile_opts(NULL, "/nonexistent/dir/x.heel", 0, false), -EIO);
	cr_assert_eq(diag_count(r.ctx), 1);
	cr_expect_null(diag_get(r.ctx, 0)->loc.src);
	cr_expect(strstr(diag_get(r.ctx, 0)->message, "cannot read /nonexistent/dir/x.heel"));
}

Test(sema, origin_is_basename_of_top_file)
{
	cr_assert_eq(compile_opts("heel 1\ngrant \"/opt\" r\n", "some/dir/top.heel", 0, false), 0);
	cr_expect_str_eq(rule("/opt", LINUX)->origin.file, "top.heel");
	cr_expect_eq(rule("/opt", LINUX)->origin.line, 2);
	cr_expect_eq(rule("/opt", LINUX)->origin.col, 1);
}

/* ------------------------------------------------------------ version */

Test(sema, version_missing)
{
	cr_expect_eq(compile("grant \"/opt\" r\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "a policy must start with `heel 1`", 1, 1);
}

Test(sema, version_after_comments_is_fine)
{
	compile_ok("# a comment\n\n# another\nheel 1\n");
}

Test(sema, version_unsupported_skips_file)
{
	cr_expect_eq(compile("heel 2\ngrant \"/opt\" wr\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "unsupported language version 2", 1, 6);
	/* The rest is in a language this heelc does not read: no more errors. */
	cr_expect_eq(diag_error_count(r.ctx), 1);
}

Test(sema, empty_text)
{
	cr_expect_eq(compile(""), -EINVAL);
	expect_diag(DIAG_ERROR, "a policy must start with `heel 1`", 1, 1);
}

/* ------------------------------------------------------------ grants */

Test(sema, posix_path_applies_to_linux_and_macos)
{
	compile_ok("heel 1\ngrant \"/opt/tools\" rx\n");
	cr_assert_not_null(rule("/opt/tools", LINUX));
	cr_expect_eq(rule("/opt/tools", LINUX)->platforms, POSIX);
	cr_expect_eq(rule("/opt/tools", LINUX)->mode, IR_MODE_RX);
	cr_expect_eq(rule("/opt/tools", LINUX)->source, IR_SRC_USER);
	cr_expect_eq(rule("/opt/tools", LINUX)->set, IR_SET_NONE);
	cr_expect_not(rule("/opt/tools", LINUX)->optional);
	cr_expect_null(rule("/opt/tools", WINDOWS));
}

Test(sema, relative_and_variable_paths_apply_everywhere)
{
	compile_ok("heel 1\ngrant \"./target\" rwx\ngrant \"${CWD}/out\" rw optional\n");
	cr_assert_not_null(rule("target", LINUX));
	cr_expect_eq(rule("target", LINUX)->platforms, IR_PLAT_ALL);
	cr_expect_eq(rule("target", LINUX)->mode, IR_MODE_RWX);
	cr_expect_eq(rule("${CWD}/out", WINDOWS)->platforms, IR_PLAT_ALL);
	cr_expect(rule("${CWD}/out", WINDOWS)->optional);
}

Test(sema, block_paths_apply_to_their_platform)
{
	compile_ok(
	    "heel 1\non linux {\n  grant \"/opt/x\" r\n}\non windows {\n  grant \"c:/Tools\" rx\n"
	    "  grant \"${USERPROFILE}/src\" rw\n}\n");
	cr_expect_eq(rule("/opt/x", LINUX)->platforms, LINUX);
	cr_expect_null(rule("/opt/x", MACOS));
	/* Windows paths: `\` separators and an upper-case drive. */
	cr_assert_not_null(rule("C:\\Tools", WINDOWS));
	cr_expect_eq(rule("C:\\Tools", WINDOWS)->platforms, WINDOWS);
	cr_assert_not_null(rule("${USERPROFILE}\\src", WINDOWS));
}

Test(sema, same_path_grants_union)
{
	compile_ok("heel 1\ngrant \"/srv\" r optional\ngrant \"/srv\" rw\n");
	cr_expect_eq(count_rules("/srv"), 1);
	cr_expect_eq(rule("/srv", LINUX)->mode, IR_MODE_RW);
	/* One grant needs the path: not optional. */
	cr_expect_not(rule("/srv", LINUX)->optional);
	/* The first statement keeps the origin. */
	cr_expect_eq(rule("/srv", LINUX)->origin.line, 2);
}

Test(sema, optional_only_when_every_grant_says_so)
{
	compile_ok("heel 1\ngrant \"/srv\" r optional\ngrant \"/srv\" r optional\n");
	cr_expect(rule("/srv", LINUX)->optional);
}

Test(sema, dot_slash_is_the_same_path)
{
	cr_expect_eq(compile("heel 1\ngrant \"./bin\" rw\ngrant \"bin\" rx\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`rw` and `rx` on the same path", 3, 1);
}

Test(sema, rw_then_rx_is_an_error)
{
	cr_expect_eq(compile("heel 1\ngrant \"/opt/t\" rw\ngrant \"/opt/t\" rx\n"), -EINVAL);
	expect_diag(DIAG_ERROR,
		    "`rw` and `rx` on the same path would make it writable and executable", 3, 1);
	expect_diag(DIAG_NOTE, "`rw` granted here", 2, 1);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`rw` and `rx`")->hint,
			 "write `rwx` if you mean it");
}

Test(sema, rx_then_rw_is_an_error)
{
	cr_expect_eq(compile("heel 1\ngrant \"/opt/t\" rx\ngrant \"/opt/t\" rw\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`rx` and `rw` on the same path", 3, 1);
}

Test(sema, rw_and_rx_on_different_platforms_is_fine)
{
	compile_ok(
	    "heel 1\non linux {\n grant \"/opt/t\" rw\n}\non macos {\n grant \"/opt/t\" rx\n}\n");
	cr_expect_eq(rule("/opt/t", LINUX)->mode, IR_MODE_RW);
	cr_expect_eq(rule("/opt/t", MACOS)->mode, IR_MODE_RX);
	cr_expect_eq(count_rules("/opt/t"), 2);
}

Test(sema, rwx_then_rw_keeps_rwx)
{
	compile_ok("heel 1\ngrant \"/opt/t\" rwx\ngrant \"/opt/t\" rw\ngrant \"/opt/t\" rx\n");
	cr_expect_eq(rule("/opt/t", LINUX)->mode, IR_MODE_RWX);
}

Test(sema, union_differs_per_platform)
{
	compile_ok("heel 1\ngrant \"${HOME}/x\" r\non linux {\n grant \"${HOME}/x\" rw\n}\n");
	cr_expect_eq(rule("${HOME}/x", LINUX)->mode, IR_MODE_RW);
	cr_expect_eq(rule("${HOME}/x", MACOS)->mode, IR_MODE_R);
	cr_expect_eq(rule("${HOME}/x", MACOS)->platforms, MACOS | WINDOWS);
	/* Linux's rule keeps the first origin (line 2) but differs in mode. */
	cr_expect_eq(rule("${HOME}/x", LINUX)->origin.line, 2);
	cr_expect_eq(count_rules("${HOME}/x"), 2);
}

Test(sema, grant_beats_deny_either_order)
{
	compile_ok(
	    "heel 1\ndeny \"/srv/a\"\ngrant \"/srv/a\" r\ngrant \"/srv/b\" r\ndeny \"/srv/b\"\n");
	cr_expect_eq(count_rules("/srv/a"), 1);
	cr_expect_eq(rule("/srv/a", LINUX)->mode, IR_MODE_R);
	cr_expect_eq(rule("/srv/a", LINUX)->origin.line, 3);
	cr_expect_eq(count_rules("/srv/b"), 1);
	cr_expect_eq(rule("/srv/b", LINUX)->mode, IR_MODE_R);
	expect_diag(DIAG_WARNING, "this `grant` overrides the earlier `deny`", 3, 1);
	expect_diag(DIAG_NOTE, "denied here", 2, 1);
	expect_diag(DIAG_WARNING, "this `deny` has no effect", 5, 1);
	expect_diag(DIAG_NOTE, "granted here", 4, 1);
}

Test(sema, grant_beats_protection_silently)
{
	compile_ok("heel 1\ngrant \"${HOME}/.ssh\" r\n");
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->mode, IR_MODE_R);
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->source, IR_SRC_USER);
	cr_expect_eq(rule("${HOME}/.ssh", LINUX)->set, IR_SET_NONE);
	/* The grant is top-level (all platforms); macos too. */
	cr_expect_eq(rule("${HOME}/.ssh", MACOS)->mode, IR_MODE_R);
	cr_expect_eq(diag_count(r.ctx), 0);
}

/* The base's grants are defaults: the user's deny of the same path wins,
 * silently, since that is exactly what it is for. */
Test(sema, user_deny_of_base_grant_takes_effect)
{
	compile_ok("heel 1\non linux {\n  deny \"/etc\"\n}\n");
	cr_expect_eq(rule("/etc", LINUX)->mode, IR_MODE_DENY);
	cr_expect_null(find_diag(DIAG_WARNING, "has no effect"));
}

Test(sema, deny_is_kept_and_optional)
{
	compile_ok("heel 1\ndeny \"${HOME}/.netrc\"\n");
	cr_expect_eq(rule("${HOME}/.netrc", LINUX)->mode, IR_MODE_DENY);
	cr_expect(rule("${HOME}/.netrc", LINUX)->optional);
	cr_expect_eq(rule("${HOME}/.netrc", LINUX)->platforms, IR_PLAT_ALL);
}

Test(sema, paths_sorted_and_unique)
{
	compile_ok("heel 1\ngrant \"/zz\" r\ngrant \"/aa\" r\ngrant \"/aa\" r\n");
	for (size_t i = 1; i < r.ir->npaths; i++) {
		int c = strcmp(r.ir->paths[i - 1].path, r.ir->paths[i].path);

		cr_expect(c < 0 ||
			      (c == 0 && r.ir->paths[i - 1].platforms < r.ir->paths[i].platforms),
			  "%s before %s", r.ir->paths[i - 1].path, r.ir->paths[i].path);
	}
	cr_expect_eq(count_rules("/aa"), 1);
}

Test(sema, mode_errors)
{
	cr_expect_eq(compile("heel 1\ngrant \"/a\" wr\ngrant \"/b\" x\ngrant \"/c\" rwxx\n"
			     "grant \"/d\" banana\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "unknown mode `wr`", 2, 12);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`wr`")->hint, "did you mean `rw`?");
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`x`")->hint, "did you mean `rx`?");
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`rwxx`")->hint, "did you mean `rwx`?");
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`banana`")->hint,
			 "expected `r`, `rw`, `rx` or `rwx`");
}

Test(sema, path_errors_point_at_the_character)
{
	cr_expect_eq(compile("heel 1\n"
			     "grant \"/a/../b\" r\n"	/* 2 */
			     "grant \"/a//b\" r\n"	/* 3 */
			     "grant \"/a/b/\" r\n"	/* 4 */
			     "grant \"/a/\\tb\" r\n"	/* 5 */
			     "grant \"${HOME\" r\n"	/* 6 */
			     "grant \"${Home}/x\" r\n"	/* 7 */
			     "grant \"${WORKDIR}\" r\n" /* 8 */
			     "grant \"C:/x\" r\n"	/* 9 */
			     "grant \"\" r\n"),		/* 10 */
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`..` is not allowed in a path", 2, 11);
	expect_diag(DIAG_ERROR, "empty path component", 3, 11);
	expect_diag(DIAG_ERROR, "a path cannot end with `/`", 4, 12);
	expect_diag(DIAG_ERROR, "control character (U+0009)", 5, 11);
	expect_diag(DIAG_ERROR, "unterminated `${`", 6, 8);
	expect_diag(DIAG_ERROR, "invalid variable name `${Home}`", 7, 11);
	expect_diag(DIAG_ERROR, "`${WORKDIR}` cannot be granted or denied", 8, 8);
	expect_diag(DIAG_ERROR, "a Windows path is only allowed inside `on windows { }`", 9, 8);
	expect_diag(DIAG_ERROR, "a path cannot be empty", 10, 7);
	cr_expect_eq(diag_error_count(r.ctx), 9);
}

Test(sema, dollar_without_brace_is_literal)
{
	compile_ok("heel 1\ngrant \"/srv/$x\" r\ngrant \"/srv/a$\" r\n");
	cr_expect_not_null(rule("/srv/$x", LINUX));
	cr_expect_not_null(rule("/srv/a$", LINUX));
}

Test(sema, root_paths)
{
	compile_ok(
	    "heel 1\ngrant \"/\" r\ngrant \"${HOME}\" r\non windows {\n grant \"D:\\\\\" r\n}\n");
	cr_expect_not_null(rule("/", LINUX));
	cr_expect_not_null(rule("${HOME}", WINDOWS));
	cr_expect_not_null(rule("D:\\", WINDOWS));
}

/* ------------------------------------------------------------ protections */

Test(sema, unprotect_removes_set_rules)
{
	compile_ok("heel 1\nunprotect credentials\nprotect user-home\n");
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		uint64_t m = r.ir->scalar[p].protections.value;

		cr_expect_not(m & (1u << IR_SET_CREDENTIALS));
		cr_expect(m & (1u << IR_SET_USER_HOME));
		cr_expect(m & (1u << IR_SET_CLOUD_CONFIG));
	}
	cr_expect_null(rule("${HOME}/.ssh", LINUX));
	for (size_t i = 0; i < r.ir->npaths; i++)
		cr_expect_neq(r.ir->paths[i].set, IR_SET_CREDENTIALS);
}

Test(sema, protect_in_block_is_per_platform)
{
	compile_ok("heel 1\nunprotect credentials\non linux {\n protect credentials\n}\n");
	cr_expect(r.ir->scalar[IR_LINUX].protections.value & (1u << IR_SET_CREDENTIALS));
	cr_expect_not(r.ir->scalar[IR_MACOS].protections.value & (1u << IR_SET_CREDENTIALS));
	cr_expect_not_null(rule("${HOME}/.ssh", LINUX));
	cr_expect_null(rule("${HOME}/.ssh", MACOS));
	cr_expect_eq(r.ir->scalar[IR_LINUX].protections.origin.line, 4);
}

Test(sema, protection_order_matters)
{
	compile_ok("heel 1\nisolation strict\nunprotect shared-temp\nprotect shared-temp\n"
		   "unprotect shared-temp\n");
	cr_expect_not(r.ir->scalar[IR_LINUX].protections.value & (1u << IR_SET_SHARED_TEMP));
}

/* ------------------------------------------------------------ readonly */

/* The `readonly` for `path` (each: an each-writable one) on platform
 * bit `plat`. */
static const struct ir_readonly *
readonly_rule(const char *path, bool each, unsigned plat)
{
	for (size_t i = 0; i < r.ir->nreadonly; i++)
		if (strcmp(r.ir->readonly[i].path, path) == 0 &&
		    r.ir->readonly[i].each_writable == each && (r.ir->readonly[i].platforms & plat))
			return &r.ir->readonly[i];
	return NULL;
}

Test(sema, host_run_is_on_in_every_base)
{
	static const char *const bases[] = {"strict", "default", "permissive"};

	for (size_t b = 0; b < 3; b++) {
		char text[64];
		const struct ir_readonly *ro;

		snprintf(text, sizeof(text), "heel 1\nisolation %s\n", bases[b]);
		cr_assert_eq(compile(text), 0, "%s", bases[b]);
		cr_expect(r.ir->scalar[IR_LINUX].protections.value & (1u << IR_SET_HOST_RUN), "%s",
			  bases[b]);
		ro = readonly_rule(".git/hooks", true, LINUX);
		cr_assert_not_null(ro, "%s: no .git/hooks", bases[b]);
		cr_expect_eq(ro->set, IR_SET_HOST_RUN);
		cr_expect_eq(ro->source, IR_SRC_PROTECTION);
		cr_expect_str_eq(ro->origin.file, "<protect/host-run>");
		cr_assert_not_null(ro->because);
		cr_expect_not_null(readonly_rule(".git/config", true, LINUX));
		cr_expect_not_null(readonly_rule("${HOME}/.bashrc", false, LINUX));
		cr_expect_not_null(readonly_rule("${HOME}/.bashrc", false, MACOS));
		/* It denies nothing. */
		for (size_t i = 0; i < r.ir->npaths; i++)
			cr_expect_neq(r.ir->paths[i].set, IR_SET_HOST_RUN, "%s", r.ir->paths[i].path);
	}
}

Test(sema, unprotect_host_run)
{
	compile_ok("heel 1\nunprotect host-run\n");
	cr_expect_not(r.ir->scalar[IR_LINUX].protections.value & (1u << IR_SET_HOST_RUN));
	cr_expect_eq(r.ir->nreadonly, 0);
}

Test(sema, readonly_statements)
{
	compile_ok("heel 1\nunprotect host-run\nreadonly \"./build.sh\"\n"
		   "readonly each-writable \".pre-commit-config.yaml\" because \"pre-commit reads it\"\n"
		   "on linux {\n readonly \"${HOME}/.xprofile\"\n}\n");
	cr_expect_eq(r.ir->nreadonly, 3);
	/* A leading ./ goes, as for a grant: relative to the launch directory. */
	cr_assert_not_null(readonly_rule("build.sh", false, LINUX | MACOS | WINDOWS));
	cr_expect_eq(readonly_rule("build.sh", false, LINUX)->platforms, IR_PLAT_ALL);
	cr_expect_eq(readonly_rule("build.sh", false, LINUX)->set, IR_SET_NONE);
	cr_expect_eq(readonly_rule("build.sh", false, LINUX)->source, IR_SRC_USER);
	cr_expect_null(readonly_rule("build.sh", false, LINUX)->because);
	cr_assert_not_null(readonly_rule(".pre-commit-config.yaml", true, WINDOWS));
	cr_expect_str_eq(readonly_rule(".pre-commit-config.yaml", true, LINUX)->because,
			 "pre-commit reads it");
	cr_assert_not_null(readonly_rule("${HOME}/.xprofile", false, LINUX));
	cr_expect_null(readonly_rule("${HOME}/.xprofile", false, MACOS));
	cr_expect_eq(diag_count(r.ctx), 0);
}

/* An explicit grant of the very path beats the protection (silently: it
 * is what the grant is for), and a deny of it makes it moot. */
Test(sema, readonly_loses_to_an_explicit_grant_of_the_path)
{
	compile_ok("heel 1\ngrant \"${HOME}/.bashrc\" rw\n");
	cr_expect_null(readonly_rule("${HOME}/.bashrc", false, LINUX));
	cr_expect_null(readonly_rule("${HOME}/.bashrc", false, MACOS));
	cr_expect_not_null(readonly_rule("${HOME}/.zshrc", false, LINUX));
	cr_expect_eq(rule("${HOME}/.bashrc", LINUX)->mode, IR_MODE_RW);
	cr_expect_eq(diag_warning_count(r.ctx), 0);
	/* A grant without write leaves it (nothing to win). */
	compile_ok("heel 1\ngrant \"${HOME}/.bashrc\" r\n");
	cr_expect_not_null(readonly_rule("${HOME}/.bashrc", false, LINUX));
}

Test(sema, readonly_written_twice_warns)
{
	compile_ok("heel 1\nreadonly \"/srv/x\"\ngrant \"/srv/x\" rw\n");
	cr_expect_null(readonly_rule("/srv/x", false, LINUX));
	expect_diag(DIAG_WARNING, "this `readonly` has no effect: the same path is granted writable",
		    2, 1);
	cr_expect_eq(diag_warning_count(r.ctx), 1); /* once, not once a platform */
	compile_ok("heel 1\nreadonly \"/srv/x\"\ndeny \"/srv/x\"\n");
	cr_expect_null(readonly_rule("/srv/x", false, LINUX));
	expect_diag(DIAG_WARNING, "this `readonly` has no effect: the same path is denied", 2, 1);
}

/* A grant the isolation base made is a default: the readonly of the very
 * path takes its write (permissive grants /tmp rw). */
Test(sema, readonly_narrows_a_base_grant_of_the_path)
{
	compile_ok("heel 1\nisolation permissive\nreadonly \"/tmp\"\n");
	cr_assert_not_null(readonly_rule("/tmp", false, LINUX));
	cr_expect_eq(rule("/tmp", LINUX)->mode, IR_MODE_R);
	cr_expect_eq(rule("/tmp", LINUX)->source, IR_SRC_BASE);
	cr_expect_eq(rule("/", LINUX)->mode, IR_MODE_RWX);
}

Test(sema, readonly_errors)
{
	cr_expect_eq(compile("heel 1\nreadonly each-writable \"/etc/x\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`readonly each-writable` takes a path relative to each writable place",
		    2, 25);
	cr_expect_eq(compile("heel 1\nreadonly each-writable \"a/${HOME}\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "takes a literal path, without `${NAME}`", 2, 27);
	cr_expect_eq(compile("heel 1\nreadonly each-writable \"a/../b\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`..` is not allowed in a path", 2, 27);
	cr_expect_eq(compile("heel 1\nreadonly \"${WORKDIR}/x\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`${WORKDIR}` cannot be made read-only", 2, 11);
	cr_expect_eq(compile("heel 1\nreadonly \"/x\" because \"\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "the reason after `because` cannot be empty", 2, 23);
	cr_expect_eq(compile("heel 1\nreadonly \"/x\" because \"a\\nb\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "the reason after `because` cannot hold a control character", 2, 25);
	cr_expect_eq(compile("heel 1\nprotect host-rnu\n"), -EINVAL);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "host-rnu")->hint, "did you mean `host-run`?");
}

Test(sema, unknown_protection_set)
{
	cr_expect_eq(compile("heel 1\nprotect credentails\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "unknown protection set `credentails`", 2, 9);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "credentails")->hint, "did you mean `credentials`?");
}

/* ------------------------------------------------------------ scalars */

Test(sema, scalars_per_platform)
{
	compile_ok("heel 1\nnice 5\non linux {\n nice 10\n limit memory 1GiB\n}\n"
		   "io-priority utility\n");
	cr_expect_eq(r.ir->scalar[IR_LINUX].nice.value, 10);
	cr_expect_eq(r.ir->scalar[IR_MACOS].nice.value, 5);
	cr_expect_eq(r.ir->scalar[IR_WINDOWS].nice.value, 5);
	cr_expect(r.ir->scalar[IR_LINUX].limits[IR_LIMIT_MEMORY].set);
	cr_expect_not(r.ir->scalar[IR_MACOS].limits[IR_LIMIT_MEMORY].set);
	cr_expect_eq(r.ir->scalar[IR_WINDOWS].io_priority.value, IR_IO_UTILITY);
	expect_diag(DIAG_WARNING, "`nice` set again; the earlier value is replaced", 4, 2);
	expect_diag(DIAG_NOTE, "earlier setting was here", 2, 1);
}

Test(sema, limits_values)
{
	compile_ok(
	    "heel 1\nlimit memory 2GiB\nlimit cpu 1500ms\nlimit processes 256\n"
	    "limit open-files 1024\nlimit file-size 10MB\nlimit stack 8MiB\nlimit core 0B\n");
	const struct ir_scalars *s = &r.ir->scalar[IR_LINUX];

	cr_expect_eq(s->limits[IR_LIMIT_MEMORY].value, 2ull << 30);
	cr_expect_eq(s->limits[IR_LIMIT_CPU].value, 2); /* rounded up */
	cr_expect_eq(s->limits[IR_LIMIT_PROCESSES].value, 256);
	cr_expect_eq(s->limits[IR_LIMIT_OPEN_FILES].value, 1024);
	cr_expect_eq(s->limits[IR_LIMIT_FILE_SIZE].value, 10000000);
	cr_expect_eq(s->limits[IR_LIMIT_STACK].value, 8ull << 20);
	cr_expect(s->limits[IR_LIMIT_CORE].set);
	cr_expect_eq(s->limits[IR_LIMIT_CORE].value, 0);
	cr_expect_eq(s->limits[IR_LIMIT_MEMORY].origin.line, 2);
}

Test(sema, limit_errors)
{
	cr_expect_eq(compile("heel 1\n"
			     "limit memory 512\n"		   /* 2 */
			     "limit cpu 999ms\n"		   /* 3 */
			     "limit processes 5k\n"		   /* 4 */
			     "limit memory 0B\n"		   /* 5 */
			     "limit stack 99999999999999999999B\n" /* 6 */
			     "limit memroy 1GiB\n"		   /* 7 */
			     "limit memory 1Gib\n"		   /* 8 */
			     "limit cpu 2GiB\n"),		   /* 9 */
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`limit memory` needs a unit", 2, 14);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "needs a unit")->hint, "add a unit, e.g. 512MiB");
	expect_diag(DIAG_ERROR, "`limit cpu` must be at least 1s", 3, 11);
	expect_diag(DIAG_ERROR, "`limit processes` takes a plain number", 4, 18);
	expect_diag(DIAG_ERROR, "`limit memory` cannot be 0", 5, 14);
	expect_diag(DIAG_ERROR, "too large", 6, 13);
	expect_diag(DIAG_ERROR, "unknown limit `memroy`", 7, 7);
	expect_diag(DIAG_ERROR, "unknown size unit `Gib`", 8, 15);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "`Gib`")->hint, "did you mean `GiB`?");
	expect_diag(DIAG_ERROR, "unknown duration unit `GiB`", 9, 12);
	cr_expect_eq(diag_error_count(r.ctx), 8);
}

Test(sema, nice_range)
{
	cr_expect_eq(compile("heel 1\nnice 0\nnice 20\nnice 99999999999999999999999\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`nice` must be between 1 and 19", 2, 6);
	cr_expect_eq(diag_error_count(r.ctx), 3);
	compile_ok("heel 1\nnice 1\nnice 19\n");
	cr_expect_eq(r.ir->scalar[IR_LINUX].nice.value, 19);
}

Test(sema, overriding_the_base_is_silent)
{
	/* default allows gpu; strict protects everything: overriding them is
	 * what a policy is for. */
	compile_ok("heel 1\ndeny gpu\nunprotect credentials\n");
	cr_expect_eq(r.ir->scalar[IR_LINUX].gpu.value, 0);
	cr_expect_eq(diag_warning_count(r.ctx), 0);
}

Test(sema, overriding_own_setting_warns)
{
	compile_ok("heel 1\nallow gpu\ndeny gpu\nworkdir \"/srv/w\"\nworkdir \"/srv/v\"\n");
	expect_diag(DIAG_WARNING, "`gpu` set again", 3, 1);
	expect_diag(DIAG_WARNING, "`workdir` set again", 5, 1);
	cr_expect_str_eq(r.ir->scalar[IR_LINUX].workdir.value, "/srv/v");
	/* workdir with a POSIX path: not for windows */
	cr_expect_null(r.ir->scalar[IR_WINDOWS].workdir.value);
}

Test(sema, isolation_override_picks_last_base)
{
	compile_ok("heel 1\nisolation strict\nisolation permissive\n");
	cr_expect_eq(r.ir->scalar[IR_LINUX].isolation.value, IR_ISO_PERMISSIVE);
	cr_expect_eq(r.ir->scalar[IR_LINUX].protections.value, 1u << IR_SET_HOST_RUN);
	expect_diag(DIAG_WARNING, "`isolation` set again", 3, 1);
}

Test(sema, isolation_errors)
{
	cr_expect_eq(compile("heel 1\nisolation stict\non linux {\n isolation strict\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "unknown isolation `stict`", 2, 11);
	expect_diag(DIAG_ERROR, "`isolation` is not allowed inside `on linux { }`", 4, 2);
}

/* ------------------------------------------------------------ network */

Test(sema, patterns_normalised_sorted_deduplicated)
{
	compile_ok("heel 1\nnetwork allow {\n  \"API.Example.COM.\"\n  \"*.github.com\"\n"
		   "  \"api.example.com\"\n  \"[::1]:8443\"\n  \"192.0.2.1:443\"\n  "
		   "\"b.example:80\"\n}\n");
	cr_expect_eq(r.ir->scalar[IR_LINUX].network.value, IR_NET_ALLOW_LIST);
	cr_assert_eq(r.ir->npatterns, 5);
	cr_expect_str_eq(r.ir->patterns[0].host, "*.github.com");
	cr_expect_str_eq(r.ir->patterns[1].host, "192.0.2.1");
	cr_expect_eq(r.ir->patterns[1].port, 443);
	cr_expect_str_eq(r.ir->patterns[2].host, "::1");
	cr_expect_eq(r.ir->patterns[2].port, 8443);
	cr_expect_str_eq(r.ir->patterns[3].host, "api.example.com");
	cr_expect_eq(r.ir->patterns[3].port, 0);
	cr_expect_eq(r.ir->patterns[3].origin.line, 3); /* the first one written */
	cr_expect_eq(r.ir->patterns[3].platforms, IR_PLAT_ALL);
	cr_expect_str_eq(r.ir->patterns[4].host, "b.example");
	cr_expect_eq(r.ir->patterns[4].port, 80);
}

Test(sema, allow_blocks_add_to_one_list)
{
	compile_ok(
	    "heel 1\nnetwork allow {\n \"a.example\"\n}\nnetwork allow {\n \"b.example\"\n}\n");
	cr_expect_eq(r.ir->npatterns, 2);
	cr_expect_eq(diag_warning_count(r.ctx), 0);
}

Test(sema, patterns_dropped_when_kind_replaced)
{
	compile_ok(
	    "heel 1\nnetwork allow {\n \"a.example\"\n}\non linux {\n network allow-all\n}\n");
	cr_assert_eq(r.ir->npatterns, 1);
	cr_expect_eq(r.ir->patterns[0].platforms, MACOS | WINDOWS);
	cr_expect_eq(r.ir->scalar[IR_LINUX].network.value, IR_NET_ALLOW_ALL);
	expect_diag(DIAG_WARNING, "`network` set again", 6, 2);
}

Test(sema, pattern_in_block_only_there)
{
	compile_ok("heel 1\non linux {\n network allow {\n  \"a.example\"\n }\n}\n");
	cr_assert_eq(r.ir->npatterns, 1);
	cr_expect_eq(r.ir->patterns[0].platforms, LINUX);
	cr_expect_eq(r.ir->scalar[IR_MACOS].network.value, IR_NET_DENY);
}

Test(sema, empty_allow_list_warns)
{
	compile_ok("heel 1\nnetwork allow {\n}\n");
	expect_diag(DIAG_WARNING, "empty allow-list: the sandbox can reach nothing", 2, 1);
	cr_expect_eq(r.ir->npatterns, 0);
	cr_expect_eq(r.ir->scalar[IR_LINUX].network.value, IR_NET_ALLOW_LIST);
}

Test(sema, pattern_errors)
{
	cr_expect_eq(compile("heel 1\nnetwork allow {\n"
			     "  \"bücher.de\"\n" /* 3 */
			     "  \"*foo.com\"\n"	 /* 4 */
			     "  \"*\"\n"	 /* 5 */
			     "  \"a.com:0\"\n"	 /* 6 */
			     "  \"::1\"\n"	 /* 7 */
			     "  \"1.2.3\"\n"	 /* 8 */
			     "  \"a..b\"\n"	 /* 9 */
			     "}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "a host pattern must be ASCII", 3, 5);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "ASCII")->hint, "write it in punycode, its ASCII form: `xn--bcher-kva.de`");
	expect_diag(DIAG_ERROR, "`*` is only allowed as the whole first label", 4, 4);
	expect_diag(DIAG_ERROR, "`*` alone is not a host pattern", 5, 4);
	expect_diag(DIAG_ERROR, "a port is a number from 1 to 65535", 6, 10);
	expect_diag(DIAG_ERROR, "an IPv6 address must be written in brackets", 7, 4);
	expect_diag(DIAG_ERROR, "invalid IPv4 address `1.2.3`", 8, 4);
	expect_diag(DIAG_ERROR, "empty label", 9, 6);
	/* No "empty allow-list" on top of refused patterns. */
	cr_expect_eq(diag_warning_count(r.ctx), 0);
}

Test(sema, allow_private_and_audit)
{
	compile_ok("heel 1\nnetwork allow-all\nnetwork allow-private\n"
		   "network audit daily \"${HOME}/.local/state/heel\"\n");
	cr_expect_eq(r.ir->scalar[IR_MACOS].allow_private.value, 1);
	cr_expect_eq(r.ir->scalar[IR_WINDOWS].audit_kind.value, IR_AUDIT_DAILY);
	cr_expect_str_eq(r.ir->scalar[IR_WINDOWS].audit_path.value, "${HOME}/.local/state/heel");
}

Test(sema, audit_with_deny_is_an_error)
{
	cr_expect_eq(compile("heel 1\nnetwork audit \"/var/log/h.jsonl\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`network audit` with `network deny`", 2, 1);
}

Test(sema, audit_with_deny_on_some_platforms)
{
	cr_expect_eq(
	    compile(
		"heel 1\nnetwork audit \"${HOME}/a.jsonl\"\non linux {\n network allow-all\n}\n"),
	    -EINVAL);
	expect_diag(DIAG_ERROR, "`network audit` with `network deny` on macos and windows", 2, 1);
}

/* ------------------------------------------------------------ network decide */

Test(sema, decide_program_and_arguments)
{
	compile_ok("heel 1\nnetwork allow-all\n"
		   "network decide \"/usr/local/bin/net-decider\" \"--strict\" \"\" \"a b\"\n");
	for (int p = IR_LINUX; p <= IR_MACOS; p++) {
		const struct ir_decider *d = &r.ir->decider[p];

		cr_assert_not_null(d->program);
		cr_expect_str_eq(d->program, "/usr/local/bin/net-decider");
		cr_assert_eq(d->nargs, 3);
		cr_expect_str_eq(d->args[0], "--strict");
		cr_expect_str_eq(d->args[1], "");
		cr_expect_str_eq(d->args[2], "a b");
		cr_expect_eq(d->origin.line, 3);
		cr_expect_eq(d->origin.col, 1);
	}
	/* A `/` path is a POSIX path: not Windows'. */
	cr_expect_null(r.ir->decider[IR_WINDOWS].program);
	cr_expect_eq(diag_count(r.ctx), 0);
}

/* Like an ipc program, the decider runs on the host: the launcher's
 * environment does not choose it. */
Test(sema, decide_takes_no_variables)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"${HOME}/bin/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` takes a literal path, without `${NAME}`", 3, 17);
	cr_expect_eq(diag_error_count(r.ctx), 1);
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"/opt/${TOOL}/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` takes a literal path, without `${NAME}`", 3, 22);
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"${WORKDIR}/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` takes a literal path", 3, 17);
}

Test(sema, decide_relative_path_is_an_error)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"bin/decider\"\n"
			     "network decide \"./decider\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` needs an absolute path", 3, 17);
	cr_expect_not_null(strstr(find_diag(DIAG_ERROR, "absolute path")->hint, "/usr/local/bin"));
	cr_expect_eq(diag_error_count(r.ctx), 2);
}

Test(sema, decide_path_spelling_rules_hold)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"/usr/../bin/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`..` is not allowed in a path", 3, 22);
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"C:\\\\d.exe\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "a Windows path is only allowed inside `on windows { }`", 3, 17);
}

Test(sema, decide_windows_path_in_its_block)
{
	compile_ok("heel 1\nnetwork allow-all\non windows {\n network decide \"c:/tools/d.exe\"\n}\n");
	cr_expect_str_eq(r.ir->decider[IR_WINDOWS].program, "C:\\tools\\d.exe");
	cr_expect_null(r.ir->decider[IR_LINUX].program);
}

Test(sema, decide_argument_with_nul_is_an_error)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"/d\" \"a\\x00b\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "cannot hold a NUL byte", 3, 23);
}

Test(sema, decide_with_deny_is_an_error)
{
	cr_expect_eq(compile("heel 1\nnetwork decide \"/usr/local/bin/d\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` with `network deny`", 2, 1);
	cr_expect_not_null(strstr(find_diag(DIAG_ERROR, "with `network deny`")->hint,
				  "nothing to decide"));
	/* A later `network deny` also leaves it nothing to decide. */
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"/d\"\nnetwork deny\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` with `network deny`", 3, 1);
}

Test(sema, decide_with_deny_on_some_platforms)
{
	cr_expect_eq(compile("heel 1\nnetwork decide \"/d\"\non macos {\n network allow-all\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`network decide` with `network deny` on linux", 2, 1);
}

Test(sema, decide_with_an_allow_list_or_allow_all)
{
	compile_ok("heel 1\nnetwork allow {\n \"a.example\"\n}\nnetwork decide \"/d\"\n");
	cr_expect_str_eq(r.ir->decider[IR_LINUX].program, "/d");
	compile_ok("heel 1\nnetwork allow-all\nnetwork decide \"/d\"\n");
	cr_expect_str_eq(r.ir->decider[IR_MACOS].program, "/d");
}

Test(sema, decide_is_a_scalar)
{
	compile_ok("heel 1\nnetwork allow-all\nnetwork decide \"/a\" \"--one\" \"--two\"\n"
		   "network decide \"/b\"\n");
	cr_expect_str_eq(r.ir->decider[IR_LINUX].program, "/b");
	cr_expect_eq(r.ir->decider[IR_LINUX].nargs, 0); /* the earlier arguments go too */
	cr_expect_eq(r.ir->decider[IR_LINUX].origin.line, 4);
	expect_diag(DIAG_WARNING, "`network decide` set again; the earlier value is replaced", 4, 1);
	expect_diag(DIAG_NOTE, "earlier setting was here", 3, 1);
}

Test(sema, decide_in_a_platform_block_overrides_there)
{
	compile_ok("heel 1\nnetwork allow-all\nnetwork decide \"/a\"\non linux {\n"
		   " network decide \"/b\" \"-v\"\n}\n");
	cr_expect_str_eq(r.ir->decider[IR_LINUX].program, "/b");
	cr_expect_eq(r.ir->decider[IR_LINUX].nargs, 1);
	cr_expect_str_eq(r.ir->decider[IR_MACOS].program, "/a");
	expect_diag(DIAG_WARNING, "`network decide` set again", 5, 2);
}

Test(sema, decide_under_a_writable_grant_is_an_error)
{
	cr_expect_eq(compile("heel 1\ngrant \"/home/ci\" rw\nnetwork allow-all\n"
			     "network decide \"/home/ci/bin/net-decider\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "which the sandbox can write: it is beneath `grant \"/home/ci\" rw`",
		    4, 16);
	expect_diag(DIAG_NOTE, "granted writable here", 2, 1);
	/* One statement, one report, whatever the platforms. */
	cr_expect_eq(diag_error_count(r.ctx), 1);
}

Test(sema, decide_granted_writable_itself_is_an_error)
{
	cr_expect_eq(compile("heel 1\ngrant \"/opt/d\" rwx\nnetwork allow-all\nnetwork decide \"/opt/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "beneath `grant \"/opt/d\" rwx`", 4, 16);
}

Test(sema, decide_under_a_windows_grant_is_an_error)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\non windows {\n grant \"C:/Tools\" rw\n"
			     " network decide \"c:\\\\tools\\\\d.exe\"\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "beneath `grant \"C:\\Tools\" rw`", 5, 17);
}

Test(sema, decide_only_where_the_grant_applies)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\nnetwork decide \"/Users/ci/d\"\n"
			     "on macos {\n grant \"/Users/ci\" rw\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "which the sandbox can write on macos", 3, 16);
}

Test(sema, decide_beneath_a_deny_or_a_read_grant_is_fine)
{
	/* The longest rule decides: the deny beneath the writable home. */
	compile_ok("heel 1\ngrant \"/home/ci\" rw\ndeny \"/home/ci/bin\"\nnetwork allow-all\n"
		   "network decide \"/home/ci/bin/net-decider\"\n");
	/* What a template grants is known at launch only. */
	compile_ok("heel 1\ngrant \"${HOME}\" rw\nnetwork allow-all\n"
		   "network decide \"/home/ci/bin/net-decider\"\n");
	compile_ok("heel 1\ngrant \"/srv\" rw\ngrant \"/srv/tools\" rx\nnetwork allow-all\n"
		   "network decide \"/srv/tools/decide\"\n");
	/* A sibling that merely starts with the same letters. */
	compile_ok("heel 1\ngrant \"/opt/tool\" rw\nnetwork allow-all\n"
		   "network decide \"/opt/tools/decide\"\n");
}

Test(sema, decide_in_the_working_directory_is_an_error)
{
	cr_expect_eq(compile("heel 1\nworkdir \"/srv/agent\"\nnetwork allow-all\n"
			     "network decide \"/srv/agent/bin/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "which is inside the working directory `/srv/agent`", 4, 16);
	expect_diag(DIAG_NOTE, "working directory set here", 2, 1);
}

Test(sema, decide_under_a_base_grant_is_an_error)
{
	cr_expect_eq(compile("heel 1\nisolation permissive\nnetwork allow-all\n"
			     "network decide \"/usr/local/bin/d\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "beneath `grant \"/\" rwx`", 4, 16);
	cr_expect_eq(diag_error_count(r.ctx), 1);
}

/* ------------------------------------------------------------ unreachable entries */

Test(sema, loopback_names_warn)
{
	compile_ok("heel 1\nnetwork allow {\n"
		   "  \"localhost\"\n"		/* 3 */
		   "  \"LOCALHOST.:8080\"\n"	/* 4 */
		   "  \"*.localhost\"\n"		/* 5 */
		   "  \"app.localhost\"\n"	/* 6 */
		   "  \"localhost.localdomain\"\n" /* 7 */
		   "  \"localhost.example.com\"\n" /* 8: a real name */
		   "  \"mylocalhost\"\n"		/* 9: a real name */
		   "}\n");
	expect_diag(DIAG_WARNING, "`localhost` can never be reached", 3, 3);
	expect_diag(DIAG_WARNING, "`*.localhost` can never be reached", 5, 3);
	expect_diag(DIAG_WARNING, "`app.localhost` can never be reached", 6, 3);
	expect_diag(DIAG_WARNING, "`localhost.localdomain` can never be reached", 7, 3);
	cr_expect_eq(diag_warning_count(r.ctx), 5);
	cr_expect_str_eq(find_diag(DIAG_WARNING, "`localhost`")->hint,
			 "the proxy never connects to the host itself; remove this entry");
}

Test(sema, host_local_addresses_warn)
{
	compile_ok("heel 1\nnetwork allow {\n"
		   "  \"127.0.0.1\"\n"	   /* 3: loopback */
		   "  \"[::1]:8080\"\n"	   /* 4 */
		   "  \"0.0.0.0\"\n"	   /* 5: unspecified */
		   "  \"169.254.169.254\"\n" /* 6: link-local, cloud metadata */
		   "  \"[fe80::1]\"\n"	   /* 7 */
		   "  \"224.0.0.251:5353\"\n" /* 8: multicast */
		   "  \"255.255.255.255\"\n" /* 9: broadcast */
		   "  \"[::ffff:127.0.0.1]\"\n" /* 10: mapped loopback */
		   "}\n");
	expect_diag(DIAG_WARNING, "`127.0.0.1` can never be reached: the proxy always refuses loopback",
		    3, 3);
	expect_diag(DIAG_WARNING, "`::1` can never be reached", 4, 3);
	expect_diag(DIAG_WARNING, "`0.0.0.0` can never be reached", 5, 3);
	expect_diag(DIAG_WARNING, "`169.254.169.254` can never be reached", 6, 3);
	expect_diag(DIAG_WARNING, "`fe80::1` can never be reached", 7, 3);
	expect_diag(DIAG_WARNING, "`224.0.0.251` can never be reached", 8, 3);
	expect_diag(DIAG_WARNING, "`255.255.255.255` can never be reached", 9, 3);
	expect_diag(DIAG_WARNING, "`::ffff:127.0.0.1` can never be reached", 10, 3);
	cr_expect_eq(diag_warning_count(r.ctx), 8);
	cr_expect_str_eq(find_diag(DIAG_WARNING, "`0.0.0.0`")->hint,
			 "no statement can open it; remove this entry");
}

Test(sema, private_addresses_warn_without_allow_private)
{
	compile_ok("heel 1\nnetwork allow {\n  \"10.1.2.3\"\n  \"[fd00::5]:443\"\n"
		   "  \"100.64.0.1\"\n}\n");
	expect_diag(DIAG_WARNING,
		    "`10.1.2.3` is refused unless `network allow-private`: the proxy refuses private",
		    3, 3);
	expect_diag(DIAG_WARNING, "`fd00::5` is refused unless `network allow-private`", 4, 3);
	expect_diag(DIAG_WARNING, "`100.64.0.1` is refused unless `network allow-private`", 5, 3);
	cr_expect_eq(diag_warning_count(r.ctx), 3);
	/* allow-private, even written after the list, opens them. */
	compile_ok("heel 1\nnetwork allow {\n  \"10.1.2.3\"\n}\nnetwork allow-private\n");
	cr_expect_eq(diag_count(r.ctx), 0);
	/* Only some platforms: those are named. */
	compile_ok("heel 1\nnetwork allow {\n  \"192.168.1.10\"\n}\non linux {\n"
		   " network allow-private\n}\n");
	expect_diag(DIAG_WARNING, "`192.168.1.10` is refused on macos and windows", 3, 3);
	/* allow-private never opens what is always refused. */
	compile_ok("heel 1\nnetwork allow {\n  \"127.0.0.1\"\n}\nnetwork allow-private\n");
	expect_diag(DIAG_WARNING, "`127.0.0.1` can never be reached", 3, 3);
}

Test(sema, ordinary_hosts_do_not_warn)
{
	compile_ok("heel 1\nnetwork allow {\n \"api.example.com\"\n \"*.github.com:443\"\n"
		   " \"8.8.8.8:53\"\n \"[2606:4700:4700::1111]\"\n}\n");
	cr_expect_eq(diag_count(r.ctx), 0);
}

Test(sema, replaced_lists_do_not_warn)
{
	compile_ok("heel 1\nnetwork allow {\n \"localhost\"\n}\nnetwork allow-all\n");
	cr_expect_null(find_diag(DIAG_WARNING, "can never be reached"));
	expect_diag(DIAG_WARNING, "`network` set again", 5, 1);
}

Test(sema, urls_are_errors_with_the_host_to_write)
{
	cr_expect_eq(compile("heel 1\nnetwork allow {\n"
			     "  \"https://api.example.com/v1\"\n"
			     "  \"http://u:p@example.org:8080\"\n"
			     "  \"example.net/path\"\n"
			     "}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "a host pattern names a host, not a URL", 3, 9);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "not a URL")->hint,
			 "write the host alone: `api.example.com`");
	expect_diag(DIAG_ERROR, "a host pattern cannot hold a path", 5, 15);
	cr_expect_eq(diag_error_count(r.ctx), 3);
	cr_expect_eq(diag_warning_count(r.ctx), 0);
}

/* ------------------------------------------------------------ env, ipc, python */

Test(sema, env_pass_and_set)
{
	compile_ok("heel 1\nenv pass \"TZ\" \"LANG\" \"TZ\"\nenv set \"PATH\" \"/usr/bin\"\n"
		   "env set \"EMPTY\" \"\"\non linux {\n env set \"EMPTY\" \"x\"\n}\n");
	cr_assert_eq(r.ir->nenv_pass, 2);
	cr_expect_str_eq(r.ir->env_pass[0].name, "LANG");
	cr_expect_str_eq(r.ir->env_pass[1].name, "TZ");
	cr_expect_eq(r.ir->env_pass[1].platforms, IR_PLAT_ALL);
	cr_assert_eq(r.ir->nenv_set, 3);
	/* EMPTY: linux "x", the others "" */
	cr_expect_str_eq(r.ir->env_set[0].name, "EMPTY");
	cr_expect_eq(r.ir->env_set[0].platforms, LINUX);
	cr_expect_str_eq(r.ir->env_set[0].value, "x");
	cr_expect_eq(r.ir->env_set[1].platforms, MACOS | WINDOWS);
	cr_expect_str_eq(r.ir->env_set[1].value, "");
	cr_expect_str_eq(r.ir->env_set[2].name, "PATH");
	expect_diag(DIAG_WARNING, "`env set EMPTY` set again", 6, 2);
}

Test(sema, env_reserved_names)
{
	cr_expect_eq(compile("heel 1\nenv pass \"TMPDIR\" \"Temp\"\nenv set \"no_proxy\" \"\"\n"
			     "env set \"ALL_PROXY\" \"x\"\nenv pass \"HEEL_SANDBOX\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`TMPDIR` is set by heel-exec", 2, 10);
	expect_diag(DIAG_ERROR, "`Temp` is set by heel-exec", 2, 19);
	expect_diag(DIAG_ERROR, "`no_proxy` is set by heel-exec", 3, 9);
	expect_diag(DIAG_ERROR, "`HEEL_SANDBOX` is set by heel-exec", 5, 10);
	cr_expect_eq(diag_error_count(r.ctx), 5);
}

Test(sema, env_name_errors)
{
	cr_expect_eq(compile("heel 1\nenv pass \"A-B\"\nenv set \"1X\" \"v\"\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "invalid environment variable name `A-B`", 2, 12);
	expect_diag(DIAG_ERROR, "invalid environment variable name `1X`", 3, 10);
}

Test(sema, ipc_commands)
{
	compile_ok("heel 1\nipc \"web_search\" {\n exec \"/usr/local/bin/ws\"\n positional "
		   "\"query\" \"n\"\n"
		   " timeout 1500ms\n}\non windows {\n ipc \"web_search\" {\n  exec "
		   "\"C:/Tools/ws.exe\"\n }\n}\n");
	cr_assert_eq(r.ir->nipc, 2);
	cr_expect_str_eq(r.ir->ipc[0].name, "web_search");
	cr_expect_eq(r.ir->ipc[0].platforms, POSIX);
	cr_expect_str_eq(r.ir->ipc[0].exec, "/usr/local/bin/ws");
	cr_assert_eq(r.ir->ipc[0].npositionals, 2);
	cr_expect_str_eq(r.ir->ipc[0].positionals[1], "n");
	cr_expect_eq(r.ir->ipc[0].timeout_ms, 1500);
	cr_expect_eq(r.ir->ipc[1].platforms, WINDOWS);
	cr_expect_str_eq(r.ir->ipc[1].exec, "C:\\Tools\\ws.exe");
}

/* `arg` lines reach the IR in declaration order with their types; a
 * positional typed by one keeps its place among the positionals. */
Test(sema, ipc_typed_arguments)
{
	compile_ok("heel 1\nipc \"s\" {\n exec \"/usr/bin/s\"\n positional \"q\" \"f\"\n"
		   " arg \"limit\" int\n arg \"f\" path\n arg \"safe\" bool\n arg \"q\" string\n}\n"
		   "ipc \"t\" {\n exec \"/usr/bin/t\"\n}\n");
	cr_assert_eq(r.ir->nipc, 2);
	cr_assert_eq(r.ir->ipc[0].npositionals, 2);
	cr_assert_eq(r.ir->ipc[0].nargs, 4);
	cr_expect_str_eq(r.ir->ipc[0].args[0].name, "limit");
	cr_expect_eq(r.ir->ipc[0].args[0].type, IR_IPC_INT);
	cr_expect_str_eq(r.ir->ipc[0].args[1].name, "f");
	cr_expect_eq(r.ir->ipc[0].args[1].type, IR_IPC_PATH);
	cr_expect_eq(r.ir->ipc[0].args[2].type, IR_IPC_BOOL);
	cr_expect_eq(r.ir->ipc[0].args[3].type, IR_IPC_STRING);
	cr_expect_eq(r.ir->ipc[1].nargs, 0);
	cr_expect_null(r.ir->ipc[1].args);
}

Test(sema, ipc_typed_argument_errors)
{
	cr_expect_eq(compile("heel 1\nipc \"s\" {\n exec \"/opt/${X}/s\"\n positional \"b\"\n"
			     " arg \"b\" bool\n arg \"n\" int\n arg \"n\" int\n arg \"x\" float\n}\n"
			     "ipc \"t\" {\n exec \"/t\"\n}\non linux {\n seccomp deny \"ioctl\"\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "`exec` takes a literal path, without `${NAME}`", 3, 13);
	expect_diag(DIAG_ERROR, "unknown argument type `float`", 8, 10);
	expect_diag(DIAG_ERROR, "argument `n` declared twice", 7, 6);
	expect_diag(DIAG_NOTE, "first declared here", 6, 6);
	expect_diag(DIAG_ERROR, "a bool cannot be positional: `b`", 4, 13);
	expect_diag(DIAG_ERROR, "`seccomp deny \"ioctl\"` with a Linux `ipc` command", 14, 2);
	cr_expect_eq(diag_error_count(r.ctx), 5);
}

Test(sema, ipc_errors)
{
	cr_expect_eq(
	    compile("heel 1\nipc \"a\" {\n exec \"rel/x\"\n}\nipc \"b\" {\n positional \"q\"\n}\n"
		    "ipc \"c\" {\n exec \"/x\"\n}\nipc \"c\" {\n exec \"/y\"\n}\n"),
	    -EINVAL);
	expect_diag(DIAG_ERROR, "`exec` must be an absolute path", 3, 8);
	expect_diag(DIAG_ERROR, "`ipc \"b\"` needs an `exec` line", 5, 1);
	expect_diag(DIAG_ERROR, "ipc name `c` is already defined", 11, 5);
	expect_diag(DIAG_NOTE, "first defined here", 8, 5);
}

Test(sema, python_block)
{
	compile_ok("heel 1\npython {\n venv \".venv\"\n packages \"requests\" \"numpy>=2\"\n"
		   " allow-pip-install yes\n}\n");
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		const struct ir_python *py = &r.ir->python[p];

		cr_assert(py->set);
		cr_expect_str_eq(py->venv, ".venv");
		cr_assert_eq(py->npackages, 2);
		cr_expect_str_eq(py->packages[1], "numpy>=2");
		cr_expect(py->allow_pip_install);
		cr_expect_eq(py->origin.line, 2);
	}
}

Test(sema, python_defaults_and_errors)
{
	compile_ok("heel 1\npython {\n venv \"/opt/venv\"\n}\n");
	cr_expect_not(r.ir->python[IR_LINUX].allow_pip_install);
	cr_expect_not(r.ir->python[IR_WINDOWS].set); /* a POSIX venv path */
	cr_expect_eq(compile("heel 1\npython {\n packages \"-e.\"\n}\n"), -EINVAL);
	expect_diag(DIAG_ERROR, "`python` needs a `venv` line", 2, 1);
	expect_diag(DIAG_ERROR, "a package name cannot start with `-`", 3, 11);
}

/* ------------------------------------------------------------ platform statements */

Test(sema, seccomp_rules)
{
	compile_ok("heel 1\non linux {\n seccomp deny \"personality\"\n seccomp deny \"acct\" "
		   "errno ENOSYS\n"
		   " seccomp allow \"setuid\"\n allow unix-sockets\n}\n");
	cr_assert_eq(r.ir->nseccomp, 3);
	cr_expect_str_eq(r.ir->seccomp[0].syscall, "acct");
	cr_expect_eq(r.ir->seccomp[0].errno_value, 38);
	cr_expect_str_eq(r.ir->seccomp[1].syscall, "personality");
	cr_expect_eq(r.ir->seccomp[1].action, IR_SECCOMP_DENY);
	cr_expect_eq(r.ir->seccomp[1].errno_value, 1); /* EPERM by default */
	cr_expect_str_eq(r.ir->seccomp[2].syscall, "setuid");
	cr_expect_eq(r.ir->seccomp[2].action, IR_SECCOMP_ALLOW);
	cr_expect_eq(r.ir->scalar[IR_LINUX].unix_sockets.value, 1);
	cr_expect_not(r.ir->scalar[IR_MACOS].unix_sockets.set);
}

Test(sema, seccomp_errors)
{
	cr_expect_eq(
	    compile("heel 1\nseccomp deny \"acct\"\non linux {\n seccomp deny \"personalty\"\n"
		    " seccomp allow \"bpf\"\n seccomp deny \"acct\" errno EPRM\n}\n"),
	    -EINVAL);
	expect_diag(DIAG_ERROR, "`seccomp` is only allowed inside `on linux { }`", 2, 1);
	expect_diag(DIAG_ERROR, "unknown syscall `personalty`", 4, 15);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "personalty")->hint, "did you mean `personality`?");
	expect_diag(DIAG_ERROR, "`bpf` can never be allowed", 5, 16);
	expect_diag(DIAG_ERROR, "unknown errno `EPRM`", 6, 28);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "EPRM")->hint, "did you mean `EPERM`?");
}

Test(sema, every_never_allowable_call_refused)
{
	static const char *const calls[] = {
	    "io_uring_setup",
	    "io_uring_enter",
	    "io_uring_register",
	    "ptrace",
	    "process_vm_readv",
	    "process_vm_writev",
	    "bpf",
	    "perf_event_open",
	    "kexec_load",
	    "kexec_file_load",
	    "init_module",
	    "finit_module",
	    "delete_module",
	};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		char text[128];

		snprintf(text, sizeof(text), "heel 1\non linux {\n seccomp allow \"%s\"\n}\n",
			 calls[i]);
		cr_expect_eq(compile(text), -EINVAL, "%s", calls[i]);
		cr_expect_not_null(find_diag(DIAG_ERROR, "can never be allowed"), "%s", calls[i]);
	}
}

Test(sema, macos_and_windows_extras)
{
	compile_ok(
	    "heel 1\nnetwork allow-all\non macos {\n allow mach-lookup \"com.apple.b\"\n"
	    " allow mach-lookup \"com.apple.a\"\n allow mach-lookup \"com.apple.b\"\n"
	    " sbpl \"(allow iokit-open)\"\n sbpl \"(allow file-read* (literal \\\"/x(\\\"))\"\n}\n"
	    "on windows {\n capability \"lpacCom\"\n capability \"picturesLibrary\"\n}\n");
	cr_assert_eq(r.ir->nmach_lookups, 2);
	cr_expect_str_eq(r.ir->mach_lookups[0].value, "com.apple.a");
	cr_expect_eq(r.ir->mach_lookups[1].origin.line, 4);
	cr_assert_eq(r.ir->nsbpl, 2);
	cr_expect_str_eq(r.ir->sbpl[0].value, "(allow iokit-open)"); /* order kept */
	cr_assert_eq(r.ir->ncapabilities, 2);
	cr_expect_str_eq(r.ir->capabilities[0].value, "lpacCom");
}

/* A network capability bypasses the proxy too, not only `network deny`. */
Test(sema, capability_with_a_proxy)
{
	cr_expect_eq(compile("heel 1\nnetwork allow-all\non windows {\n capability \"internetClient\"\n"
			     " capability \"lpacCom\"\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "capability `internetClient` would let the sandbox bypass the proxy",
		    4, 2);
	cr_expect_eq(diag_error_count(r.ctx), 1);
}

Test(sema, capability_with_network_deny)
{
	cr_expect_eq(compile("heel 1\non windows {\n capability \"internetClientServer\"\n"
			     " capability \"documentsLibrary\"\n}\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR,
		    "capability `internetClientServer` with `network deny` would bypass the proxy",
		    3, 2);
	cr_expect_eq(diag_error_count(r.ctx), 1);
}

Test(sema, platform_blocks)
{
	cr_expect_eq(compile("heel 1\non linx {\n grant \"/x\" wr\n}\non linux {\n on macos {\n }\n"
			     " include <python>\n}\nsbpl \"(x)\"\ncapability \"internetClient\"\n"),
		     -EINVAL);
	expect_diag(DIAG_ERROR, "unknown platform `linx`", 2, 4);
	/* The unknown block's contents are not checked. */
	cr_expect_null(find_diag(DIAG_ERROR, "mode"));
	expect_diag(DIAG_ERROR, "`on` blocks do not nest", 6, 2);
	expect_diag(DIAG_ERROR, "`include` is not allowed inside `on linux { }`", 8, 2);
	expect_diag(DIAG_ERROR, "`sbpl` is only allowed inside `on macos { }`", 10, 1);
	expect_diag(DIAG_ERROR, "`capability` is only allowed inside `on windows { }`", 11, 1);
}

/* ------------------------------------------------------------ includes */

static char tmpdir[64];

static void
write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void
make_tmpdir(void)
{
	char sub[96];

	strcpy(tmpdir, "/tmp/heel-test-sema-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(sub, sizeof(sub), "%s/team", tmpdir);
	cr_assert_eq(mkdir(sub, 0700), 0);
}

static void
remove_tmpdir(void)
{
	char cmd[128];

	teardown();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static int
compile_file(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	return compile_opts(NULL, path, 0, false);
}

Test(sema, include_files_in_place, .init = make_tmpdir, .fini = remove_tmpdir)
{
	write_file("top.heel", "heel 1\nlimit memory 1GiB\ninclude \"team/common.heel\"\n"
			       "grant \"/srv/top\" r\n");
	write_file("team/common.heel", "heel 1\ngrant \"/srv/common\" r\ninclude \"leaf.heel\"\n");
	write_file("team/leaf.heel", "heel 1\nlimit memory 2GiB\n");
	cr_assert_eq(compile_file("top.heel"), 0);
	cr_expect_str_eq(rule("/srv/common", LINUX)->origin.file, "team/common.heel");
	cr_expect_eq(rule("/srv/common", LINUX)->source, IR_SRC_USER);
	cr_expect_str_eq(rule("/srv/top", LINUX)->origin.file, "top.heel");
	/* The included file's value is later: it wins, with a warning in it. */
	cr_expect_eq(r.ir->scalar[IR_LINUX].limits[IR_LIMIT_MEMORY].value, 2ull << 30);
	cr_expect_str_eq(r.ir->scalar[IR_LINUX].limits[IR_LIMIT_MEMORY].origin.file,
			 "team/leaf.heel");
	const struct diag *w = find_diag(DIAG_WARNING, "`limit memory` set again");

	cr_assert_not_null(w);
	cr_expect_str_eq(w->loc.src->origin_name, "team/leaf.heel");
	cr_assert_not_null(w->loc.src->included_from);
	cr_expect_str_eq(w->loc.src->included_from->origin_name, "team/common.heel");
	cr_expect_eq(w->loc.src->inc_line, 3);
	cr_expect_eq(w->loc.src->inc_col, 1);
}

Test(sema, include_diamond_is_a_no_op, .init = make_tmpdir, .fini = remove_tmpdir)
{
	write_file("top.heel", "heel 1\ninclude \"team/a.heel\"\ninclude \"team/b.heel\"\n"
			       "include \"./team/../team/c.heel\"\n");
	write_file("team/a.heel", "heel 1\ninclude \"c.heel\"\n");
	write_file("team/b.heel", "heel 1\ninclude \"c.heel\"\n");
	write_file("team/c.heel", "heel 1\nnice 5\n");
	cr_assert_eq(compile_file("top.heel"), 0);
	/* c.heel evaluated once: no "set again" warning. */
	cr_expect_eq(diag_count(r.ctx), 0);
	cr_expect_str_eq(r.ir->scalar[IR_LINUX].nice.origin.file, "team/c.heel");
}

Test(sema, include_cycle, .init = make_tmpdir, .fini = remove_tmpdir)
{
	write_file("a.heel", "heel 1\ninclude \"team/b.heel\"\n");
	write_file("team/b.heel", "heel 1\ninclude \"../a.heel\"\n");
	cr_expect_eq(compile_file("a.heel"), -EINVAL);
	expect_diag(DIAG_ERROR, "include cycle: a.heel -> team/b.heel -> a.heel", 2, 9);
}

Test(sema, include_missing_is_a_policy_error, .init = make_tmpdir, .fini = remove_tmpdir)
{
	write_file("a.heel", "heel 1\ninclude \"nope.heel\"\ngrant \"/x\" wr\n");
	cr_expect_eq(compile_file("a.heel"), -EINVAL);
	expect_diag(DIAG_ERROR, "cannot read included file", 2, 9);
	/* Analysis goes on after it. */
	expect_diag(DIAG_ERROR, "unknown mode `wr`", 3, 12);
}

Test(sema, include_presets)
{
	compile_ok("heel 1\ninclude <python>\ninclude <python>\n");
	const struct ir_path_rule *py = rule("${HOME}/.pyenv", LINUX);

	cr_assert_not_null(py);
	cr_expect_eq(py->source, IR_SRC_PRESET);
	cr_expect_str_eq(py->origin.file, "<python>");
	cr_expect_eq(diag_count(r.ctx), 0);
}

Test(sema, include_preset_errors)
{
	cr_expect_eq(
	    compile("heel 1\ninclude <strict>\ninclude <pyhton>\ninclude <protect/credentials>\n"),
	    -EINVAL);
	expect_diag(DIAG_ERROR, "`<strict>` is an isolation base, not a preset", 2, 9);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "isolation base")->hint,
			 "choose a base with `isolation strict`");
	expect_diag(DIAG_ERROR, "unknown preset `<pyhton>`", 3, 9);
	cr_expect_str_eq(find_diag(DIAG_ERROR, "pyhton")->hint, "did you mean `<python>`?");
	expect_diag(DIAG_ERROR, "unknown preset `<protect/credentials>`", 4, 9);
}

Test(sema, preset_overridden_by_user_warns)
{
	compile_ok("heel 1\ninclude <python>\nenv set \"PIP_DISABLE_PIP_VERSION_CHECK\" \"0\"\n");
	expect_diag(DIAG_WARNING, "`env set PIP_DISABLE_PIP_VERSION_CHECK` set again", 3, 1);
}

/* ------------------------------------------------------------ digest, recovery */

Test(sema, digest_ignores_layout_but_not_content)
{
	uint8_t a[32], b[32], c[32];

	compile_ok("heel 1\ngrant \"/opt\" r\n");
	memcpy(a, r.ir->source_digest, 32);
	compile_ok("heel   1\ngrant   \"/opt\"    r ;\n");
	memcpy(b, r.ir->source_digest, 32);
	compile_ok("heel 1\ngrant \"/opt\" rx\n");
	memcpy(c, r.ir->source_digest, 32);
	cr_expect_eq(memcmp(a, b, 32), 0);
	cr_expect_neq(memcmp(a, c, 32), 0);
	cr_expect_neq(memcmp(a, (uint8_t[32]){0}, 32), 0);
}

/* The Windows container is named from the digest: the same policy under
 * another file name (another user's checkout) gets the same one. */
Test(sema, digest_ignores_origin_name)
{
	uint8_t a[32];

	cr_assert_eq(compile_opts("heel 1\n", "a.heel", 0, false), 0);
	memcpy(a, r.ir->source_digest, 32);
	cr_assert_eq(compile_opts("heel 1\n", "/home/other/b.heel", 0, false), 0);
	cr_expect_eq(memcmp(a, r.ir->source_digest, 32), 0);
	cr_assert_eq(compile_opts("heel 1\ngrant \"/opt\" r\n", "a.heel", 0, false), 0);
	cr_expect_neq(memcmp(a, r.ir->source_digest, 32), 0);
}

Test(sema, errors_never_stop_the_analysis)
{
	cr_expect_eq(compile("heel 1\nisolation defualt\ngrant \"/a/../b\" r\ngrant \"/c\" wx\n"
			     "limit memory 5\nnice 40\nenv pass \"TMP\"\non bsd {\n}\n"
			     "network allow {\n \"*x.com\"\n}\n"),
		     -EINVAL);
	cr_expect_eq(diag_error_count(r.ctx), 8);
	cr_expect_null(r.ir);
	/* Reported in source order. */
	for (size_t i = 1; i < diag_count(r.ctx); i++)
		cr_expect_geq(diag_get(r.ctx, i)->loc.line, diag_get(r.ctx, i - 1)->loc.line);
}

Test(sema, same_input_same_ir)
{
	static const char *text = "heel 1\ninclude <node>\ngrant \"/b\" r\ngrant \"/a\" rw\n"
				  "network allow {\n \"b.example\"\n \"a.example\"\n}\n";
	struct ir_policy *first;
	struct diag_ctx *first_ctx;

	compile_ok(text);
	first = r.ir;
	first_ctx = r.ctx;
	r.ir = NULL;
	r.ctx = NULL;
	compile_ok(text);
	cr_assert_eq(first->npaths, r.ir->npaths);
	for (size_t i = 0; i < first->npaths; i++) {
		cr_expect_str_eq(first->paths[i].path, r.ir->paths[i].path);
		cr_expect_eq(first->paths[i].mode, r.ir->paths[i].mode);
		cr_expect_eq(first->paths[i].platforms, r.ir->paths[i].platforms);
	}
	cr_expect_eq(memcmp(first->source_digest, r.ir->source_digest, 32), 0);
	ir_policy_free(first);
	diag_free(first_ctx);
}

Test(sema, every_stock_policy_compiles)
{
	static const char *const names[] = {"python", "node", "rust", "git"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char text[64];

		for (int iso = 0; iso < 3; iso++) {
			static const char *const bases[] = {"strict", "default", "permissive"};

			snprintf(text, sizeof(text), "heel 1\nisolation %s\ninclude <%s>\n",
				 bases[iso], names[i]);
			if (compile(text) != 0) {
				diag_render(r.ctx, stderr);
				cr_expect_fail("<%s> with %s does not compile", names[i],
					       bases[iso]);
			}
			cr_expect_eq(diag_error_count(r.ctx), 0);
		}
	}
}

/* ------------------------------------------------- base grants vs denies */

/* A grant the isolation base makes is a default, not an explicit grant:
 * `protect user-home` under `default` (which grants ${HOME} read) must
 * deny the home, or the protection would silently do nothing. */
Test(sema, protection_beats_a_base_grant_of_the_same_path)
{
	const struct ir_path_rule *home;

	compile_ok("heel 1\nisolation default\nprotect user-home\n");
	home = rule("${HOME}", LINUX);
	cr_assert_not_null(home);
	cr_expect_eq(home->mode, IR_MODE_DENY);
	cr_expect_eq(home->set, IR_SET_USER_HOME);
	cr_expect_eq(home->source, IR_SRC_PROTECTION);
}

Test(sema, users_deny_beats_a_base_grant_of_the_same_path)
{
	const struct ir_path_rule *tmp;

	compile_ok("heel 1\nisolation default\ndeny \"/tmp\"\n");
	tmp = rule("/tmp", LINUX);
	cr_assert_not_null(tmp);
	cr_expect_eq(tmp->mode, IR_MODE_DENY);
	cr_expect_eq(tmp->source, IR_SRC_USER);
}

/* ...but an explicit grant by the user still beats a protection. */
Test(sema, users_grant_beats_a_protection_of_the_same_path)
{
	const struct ir_path_rule *ssh;

	compile_ok("heel 1\nisolation default\ngrant \"${HOME}/.ssh\" r\n");
	ssh = rule("${HOME}/.ssh", LINUX);
	cr_assert_not_null(ssh);
	cr_expect_eq(ssh->mode, IR_MODE_R);
	cr_expect_eq(ssh->source, IR_SRC_USER);
}

Test(sema, users_grant_of_a_base_path_survives_a_later_protection)
{
	const struct ir_path_rule *home;

	compile_ok("heel 1\nisolation default\ngrant \"${HOME}\" r\nprotect user-home\n");
	home = rule("${HOME}", LINUX);
	cr_assert_not_null(home);
	/* The union with the base's own grant (default runs the home). */
	cr_expect_eq(home->mode, IR_MODE_RX);
	cr_expect_eq(home->source, IR_SRC_USER);
}

/* `allow gpu` opens the device nodes of policies/devices/gpu.heel on
 * Linux; `deny gpu` does not; a user's deny of a node wins although the
 * device grants are evaluated after the user's file. */
Test(sema, allow_gpu_grants_the_device_nodes)
{
	const struct ir_path_rule *dri;

	compile_ok("heel 1\nisolation strict\nallow gpu\n");
	dri = rule("/dev/dri", LINUX);
	cr_assert_not_null(dri);
	cr_expect_eq(dri->mode, IR_MODE_RW);
	cr_expect(dri->optional);
	cr_expect_eq(dri->platforms, LINUX);
}

Test(sema, deny_gpu_grants_no_device_node)
{
	compile_ok("heel 1\nisolation strict\n");
	cr_expect_null(rule("/dev/dri", LINUX));
	cr_expect_null(rule("/dev/nvidiactl", LINUX));
}

Test(sema, users_deny_of_a_gpu_node_wins)
{
	const struct ir_path_rule *dri;

	compile_ok("heel 1\nisolation default\ndeny \"/dev/dri\"\n");
	dri = rule("/dev/dri", LINUX);
	cr_assert_not_null(dri);
	cr_expect_eq(dri->mode, IR_MODE_DENY);
	cr_expect_eq(dri->source, IR_SRC_USER);
}

/* SPDX-License-Identifier: MIT
 * launcher/linux_hostrun.c: which `readonly` paths a launch guards, and
 * how (a mount, a missing path checked after the run, a link), on real
 * trees in a temporary directory; and what the check after the run does
 * with what was made there. Policies are built as IR and written with
 * the real artifact writer, so the launcher reads what heelc makes. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_read.h"
#include "artifact_write.h"
#include "ir.h"
#include "linux_hostrun.h"

static char T[] = "/tmp/heel-hostrun-XXXXXX";
static char HOME_VAR[PATH_MAX + 8];
static char *ENV[] = { HOME_VAR, NULL };
static uint8_t *artifact;
static struct art_view view;
static struct hr_plan plan;
static char warnings[8192];

static void
mk(const char *rel, const char *content)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", T, rel);
	if (!content) {
		cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s", p);
		return;
	}
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(content, f);
	fclose(f);
}

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
setup(void)
{
	cr_assert_not_null(mkdtemp(T));
	mk("proj", NULL);
	mk("proj/.git", NULL);
	mk("proj/.git/hooks", NULL);
	mk("proj/.git/config", "[core]\n");
	mk("proj/src", NULL);
	mk("home", NULL);
	mk("home/dotfiles", NULL);
	mk("home/dotfiles/bashrc", "# rc\n");
	cr_assert_eq(symlink("dotfiles/bashrc", at("home/.bashrc")), 0);
	snprintf(HOME_VAR, sizeof(HOME_VAR), "HOME=%s", at("home"));
	warnings[0] = '\0';
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	hr_plan_free(&plan);
	free(artifact);
	artifact = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	cr_expect_eq(system(cmd), 0);
	strcpy(T, "/tmp/heel-hostrun-XXXXXX");
}

TestSuite(hostrun, .init = setup, .fini = teardown);

static void
add_path(struct ir_policy *p, const char *path, uint8_t mode)
{
	struct ir_path_rule *r = realloc(p->paths, (p->npaths + 1) * sizeof(*r));

	cr_assert_not_null(r);
	p->paths = r;
	r[p->npaths++] = (struct ir_path_rule){ strdup(path), mode, IR_PLAT_BIT(IR_LINUX), true,
						IR_SET_NONE, IR_SRC_USER, { NULL, 1, 1 } };
}

static void
add_readonly(struct ir_policy *p, const char *path, bool each, const char *because)
{
	struct ir_readonly *r = realloc(p->readonly, (p->nreadonly + 1) * sizeof(*r));

	cr_assert_not_null(r);
	p->readonly = r;
	r[p->nreadonly++] = (struct ir_readonly){ strdup(path), because ? strdup(because) : NULL,
						  each, IR_PLAT_BIT(IR_LINUX), IR_SET_HOST_RUN,
						  IR_SRC_PROTECTION, { NULL, 2, 1 } };
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct ir_path_rule *)a)->path, ((const struct ir_path_rule *)b)->path);
}

static int
cmp_ro(const void *a, const void *b)
{
	const struct ir_readonly *x = a, *y = b;
	int c = (int)x->each_writable - (int)y->each_writable;

	return c ? c : strcmp(x->path, y->path);
}

/* Writes the policy (sorted as sema would leave it) and plans it. */
static int
plan_policy(struct ir_policy *p, const char *workdir, char *err, size_t errlen)
{
	struct hr_launch hl = { .env = ENV, .cwd = at("proj/src"), .workdir = workdir };
	size_t len;
	int rc;

	p->platforms = IR_PLAT_BIT(IR_LINUX);
	qsort(p->paths, p->npaths, sizeof(*p->paths), cmp_path);
	qsort(p->readonly, p->nreadonly, sizeof(*p->readonly), cmp_ro);
	cr_assert_eq(artifact_write(p, &artifact, &len), 0);
	ir_policy_free(p);
	cr_assert_eq(art_validate(artifact, len, &view, NULL, 0), 0);
	rc = hr_plan_build(&plan, &view, &hl, err, errlen);
	return rc;
}

/* The usual shape: a writable project, a writable home. */
static struct ir_policy *
project_policy(void)
{
	struct ir_policy *p = ir_policy_new();

	cr_assert_not_null(p);
	add_path(p, at("proj"), IR_MODE_RW);
	add_path(p, at("home"), IR_MODE_RW);
	add_readonly(p, ".git/hooks", true, "git runs them");
	add_readonly(p, ".git/config", true, NULL);
	add_readonly(p, ".envrc", true, "direnv runs it");
	add_readonly(p, ".vscode/tasks.json", true, NULL);
	add_readonly(p, "${HOME}/.bashrc", false, "bash runs it");
	add_readonly(p, "${UNSET_VAR}/x", false, NULL);
	return p;
}

static const struct hr_guard *
guard(const char *rel)
{
	for (size_t i = 0; i < plan.n; i++)
		if (strcmp(plan.g[i].path, at(rel)) == 0)
			return &plan.g[i];
	return NULL;
}

static bool
pinned(const char *rel)
{
	for (size_t i = 0; i < plan.npins; i++)
		if (strcmp(plan.pins[i], at(rel)) == 0)
			return true;
	return false;
}

Test(hostrun, kinds)
{
	const struct hr_guard *g;

	cr_assert_eq(plan_policy(project_policy(), NULL, NULL, 0), 0);
	cr_assert_not_null(g = guard("proj/.git/hooks"));
	cr_expect_eq(g->kind, HR_MOUNT);
	cr_expect(g->is_dir);
	cr_expect_str_eq(g->place, at("proj"));
	cr_expect_str_eq(g->because, "git runs them");
	cr_assert_not_null(g = guard("proj/.git/config"));
	cr_expect_eq(g->kind, HR_MOUNT);
	cr_expect_not(g->is_dir);
	cr_expect_null(g->because);
	/* The directory between the place and them: pinned. */
	cr_expect(pinned("proj/.git"));
	cr_expect_not(pinned("proj"));
	cr_assert_not_null(g = guard("proj/.envrc"));
	cr_expect_eq(g->kind, HR_MISSING);
	cr_expect_eq(g->ndirs, 0);
	cr_assert_not_null(g = guard("proj/.vscode/tasks.json"));
	cr_expect_eq(g->kind, HR_MISSING);
	/* The home is a writable place too: each-writable paths apply. */
	cr_expect_not_null(guard("home/.envrc"));
	/* A link: checked after the run; its target, writable, mounted. */
	cr_assert_not_null(g = guard("home/.bashrc"));
	cr_expect_eq(g->kind, HR_LINK);
	cr_expect_str_eq(g->link, "dotfiles/bashrc");
	cr_assert_not_null(g = guard("home/dotfiles/bashrc"));
	cr_expect_eq(g->kind, HR_MOUNT);
	cr_expect(pinned("home/dotfiles"));
	/* The launch directory (proj/src) lies in the work tree of proj. */
	cr_expect_not_null(guard("proj/src/.envrc"));
	cr_expect_eq(hr_count(&plan, HR_MOUNT), 3);
	cr_expect_eq(hr_count(&plan, HR_LINK), 1);
}

/* A writable grant of the very path beats the protection; a deny above
 * it, or a read-only grant, leaves nothing writable to protect. */
Test(hostrun, precedence)
{
	struct ir_policy *p = project_policy();

	add_path(p, at("proj/.git/hooks"), IR_MODE_RW);
	add_path(p, at("proj/.vscode"), IR_MODE_DENY);
	add_path(p, at("home/dotfiles"), IR_MODE_R);
	cr_assert_eq(plan_policy(p, NULL, NULL, 0), 0);
	cr_expect_null(guard("proj/.git/hooks"));
	cr_expect_not_null(guard("proj/.git/config"));
	cr_expect_null(guard("proj/.vscode/tasks.json"));
	cr_expect_null(guard("home/dotfiles/bashrc"));
	cr_expect_not_null(guard("home/.bashrc"));
	/* The grant of .git/hooks is a writable place of its own. */
	cr_expect_not_null(guard("proj/.git/hooks/.envrc"));
}

/* Nothing writable, nothing to guard; shared temp and the root are not
 * projects; a kept working directory is. */
Test(hostrun, places)
{
	struct ir_policy *p = ir_policy_new();
	char err[256];

	add_path(p, "/tmp", IR_MODE_RW);
	add_readonly(p, ".envrc", true, NULL);
	cr_assert_eq(plan_policy(p, at("proj"), err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < plan.n; i++)
		cr_expect_str_neq(plan.g[i].path, "/tmp/.envrc");
	cr_expect_not_null(guard("proj/.envrc"));
	/* The kept working directory, and the launch directory in it. */
	cr_expect_not_null(guard("proj/src/.envrc"));
	cr_expect_eq(plan.nplaces, 2);
}

Test(hostrun, a_malformed_variable_refuses)
{
	struct ir_policy *p = project_policy();
	char err[512] = "";

	add_readonly(p, "${BAD}/x", false, NULL);
	strcpy(HOME_VAR, "BAD=../up");
	cr_expect_lt(plan_policy(p, NULL, err, sizeof(err)), 0);
	cr_expect(strstr(err, "readonly \"${BAD}/x\""), "%s", err);
}

static void
warn(const char *fmt, ...)
{
	size_t n = strlen(warnings);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(warnings + n, sizeof(warnings) - n, fmt, ap);
	va_end(ap);
	strncat(warnings, "\n", sizeof(warnings) - strlen(warnings) - 1);
}

static int
count_aside(const char *dir, const char *prefix)
{
	char cmd[PATH_MAX * 2];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s\\.heel-blocked\\.[0-9a-f]\\{6\\}$'", dir,
		 prefix);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	if (fscanf(f, "%d", &n) != 1)
		n = 0;
	pclose(f);
	return n;
}

/* After the run: what was made where a path was missing is moved aside
 * (the path itself, or a link put where a directory on the way would
 * be); a changed link is put back; what is unchanged stays. */
Test(hostrun, after_the_run)
{
	char text[64] = "";

	cr_assert_eq(plan_policy(project_policy(), NULL, NULL, 0), 0);
	cr_expect_eq(hr_check_after(&plan, warn), 0);
	cr_expect_str_eq(warnings, "");
	mk("proj/.envrc", "evil\n");
	cr_assert_eq(symlink("/tmp", at("proj/.vscode")), 0);
	cr_assert_eq(unlink(at("home/.bashrc")), 0);
	mk("home/.bashrc", "evil\n");
	cr_expect_eq(hr_check_after(&plan, warn), 3);
	cr_expect_neq(access(at("proj/.envrc"), F_OK), 0);
	cr_expect_eq(count_aside(at("proj"), ".envrc"), 1);
	cr_expect_eq(count_aside(at("proj"), ".vscode"), 1, "the planted link on the way");
	cr_assert_eq(readlink(at("home/.bashrc"), text, sizeof(text) - 1), 15);
	cr_expect_str_eq(text, "dotfiles/bashrc");
	cr_expect_eq(count_aside(at("home"), ".bashrc"), 1);
	cr_expect(strstr(warnings, "WARNING: the sandbox made ") &&
		  strstr(warnings, "/proj/.envrc, which host-run keeps read-only (direnv runs it)"),
		  "%s", warnings);
	cr_expect(strstr(warnings, "replaced the link ") && strstr(warnings, "the link is put back"),
		  "%s", warnings);
	/* Once moved aside, a second look finds nothing. */
	warnings[0] = '\0';
	cr_expect_eq(hr_check_after(&plan, warn), 0);
	/* A removed link is put back too. */
	cr_assert_eq(unlink(at("home/.bashrc")), 0);
	cr_expect_eq(hr_check_after(&plan, warn), 1);
	cr_expect(strstr(warnings, "removed the link"), "%s", warnings);
	cr_expect_eq(readlink(at("home/.bashrc"), text, sizeof(text) - 1), 15);
}

/* A linked worktree's .git is a file: it is guarded, and what it names. */
Test(hostrun, git_file_and_hooks_path)
{
	struct ir_policy *p = ir_policy_new();
	const struct hr_guard *g;

	mk("main", NULL);
	mk("main/.git", NULL);
	mk("main/.git/hooks", NULL);
	mk("main/.git/config", "[core]\n\thooksPath = \"githooks\"\n");
	mk("main/githooks", NULL);
	mk("main/.git/worktrees", NULL);
	mk("main/.git/worktrees/wt", NULL);
	mk("main/.git/worktrees/wt/commondir", "../..\n");
	mk("wt", NULL);
	mk("wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
	add_path(p, at("main"), IR_MODE_RW);
	add_path(p, at("wt"), IR_MODE_RW);
	add_readonly(p, ".git/hooks", true, NULL);
	add_readonly(p, ".git/config", true, NULL);
	cr_assert_eq(plan_policy(p, NULL, NULL, 0), 0);
	cr_assert_not_null(g = guard("wt/.git"));
	cr_expect_eq(g->kind, HR_MOUNT);
	cr_expect_not(g->is_dir);
	cr_expect_str_eq(g->entry, ".git");
	cr_assert_not_null(g = guard("main/githooks"));
	cr_expect_eq(g->kind, HR_MOUNT);
	cr_expect_str_eq(g->entry, "core.hooksPath");
	cr_expect_not_null(guard("main/.git/hooks"));
	cr_expect_not_null(guard("main/.git/config"));
	/* wt/.git/hooks cannot exist while wt/.git is a file. */
	cr_assert_not_null(g = guard("wt/.git/hooks"));
	cr_expect_eq(g->kind, HR_MISSING);
	cr_expect_neq(g->ino, 0);
	cr_expect_eq(hr_check_after(&plan, warn), 0, "%s", warnings);
}

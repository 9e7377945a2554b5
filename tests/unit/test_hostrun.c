/* SPDX-License-Identifier: MIT
 * launcher/linux_hostrun.c: which `readonly` paths a launch guards, and
 * how (a mount, a missing path checked after the run, a link), on real
 * trees in a temporary directory; and what the check after the run does
 * with what was made there. launcher/linux_gitscan.c: the git config
 * scanner, table-driven, and the walk of the repositories below the
 * places. Policies are built as IR and written with
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
#include <time.h>
#include <unistd.h>

#include "artifact_read.h"
#include "artifact_write.h"
#include "ir.h"
#include "linux_gitscan.h"
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

/* ------------------------------------------------------------ git config scanner */

TestSuite(gitscan, .init = setup, .fini = teardown);

/* Each config text, what gs_config_scan says of it, and the variable it
 * names (the first that runs a program). The readings of git's syntax
 * were checked with `git config -f FILE --list` of git 2.39.5. */
static const struct scan_case {
	const char *text;
	size_t len; /* 0: strlen */
	int want;
	const char *var;
} scan_cases[] = {
	/* What a clone or an init writes: nothing runs. */
	{ "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	  "\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = /tmp/src\n"
	  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n"
	  "\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = t\n",
	  0, 0, NULL },
	{ "", 0, 0, NULL },
	{ "[core]\n\tfsmonitor = touch /tmp/x\n", 0, 1, "core.fsmonitor" },
	{ "[core]\n\tfsmonitor = true\n", 0, 0, NULL },
	{ "[core]\n\tfsmonitor = \"false\"\n", 0, 0, NULL },
	{ "[core]\n\tfsmonitor\n", 0, 0, NULL },
	{ "[core]\n\tfsmonitor = 1k\n", 0, 0, NULL },
	/* A key on the line of its section; letters in either case. */
	{ "[core] fsmonitor = evil", 0, 1, "core.fsmonitor" },
	{ "[CORE]\n\tFSMonitor=evil", 0, 1, "core.fsmonitor" },
	{ "[core]fsmonitor=a[alias]x=b", 0, 1, "core.fsmonitor" },
	/* A subsection makes another variable: core.x.fsmonitor is nothing. */
	{ "[core \"x\"]\n\tfsmonitor = evil\n", 0, 0, NULL },
	{ "[core.X]\n\tpager = evil\n", 0, 0, NULL },
	{ "[core]\n\thooksPath = .githooks\n", 0, 1, "core.hookspath" },
	{ "[core]\n\tsshCommand = ssh -oProxyCommand=evil\n", 0, 1, "core.sshcommand" },
	{ "[core]\n\teditor = vi\\\n m\n", 0, 1, "core.editor" },
	{ "[core]\n\tpager = less\n\teditor = vi\n", 0, 1, "core.pager" },
	{ "[sequence]\n\teditor = evil\n", 0, 1, "sequence.editor" },
	{ "[alias]\n\tst = status\n", 0, 0, NULL },
	{ "[alias]\n\tx = !touch /tmp/x\n", 0, 1, "alias.x" },
	{ "[alias]\n\tx = \"!sh\"\n", 0, 1, "alias.x" },
	{ "[alias]\n\tx = \" !sh\"\n", 0, 0, NULL },
	{ "[pager]\n\tlog = false\n", 0, 0, NULL },
	{ "[pager]\n\tlog = evil\n", 0, 1, "pager.log" },
	{ "[diff \"pdf\"]\n\ttextconv = pdftotext\n", 0, 1, "diff.pdf.textconv" },
	{ "[diff.pdf]\n\ttextconv = x\n", 0, 1, "diff.pdf.textconv" },
	{ "[diff \"a.b\"]\n\tcommand = x\n", 0, 1, "diff.a.b.command" },
	{ "[diff]\n\ttextconv = x\n", 0, 0, NULL },
	{ "[diff]\n\texternal = x\n", 0, 1, "diff.external" },
	{ "[merge \"m\"]\n\tdriver = x\n", 0, 1, "merge.m.driver" },
	{ "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", 0, 1, "filter.lfs.clean" },
	{ "[filter \"x\"]\n\tprocess = x\n", 0, 1, "filter.x.process" },
	{ "[filter \"x\"]\n\trequired = true\n", 0, 0, NULL },
	{ "[credential]\n\thelper = store\n", 0, 1, "credential.helper" },
	{ "[credential \"https://h\"]\n\thelper = x\n", 0, 1, "credential.https://h.helper" },
	{ "[credential]\n\tusername = me\n", 0, 0, NULL },
	{ "[include]\n\tpath = other.cfg\n", 0, 1, "include.path" },
	{ "[includeIf \"gitdir:~/x/\"]\n\tpath = y\n", 0, 1, "includeif.gitdir:~/x/.path" },
	{ "[remote \"o\"]\n\turl = ext::sh -c touch% /tmp/x\n", 0, 1, "remote.o.url" },
	{ "[remote \"o\"]\n\tuploadpack = touch x; git-upload-pack\n", 0, 1, "remote.o.uploadpack" },
	{ "[remote \"o\"]\n\treceivepack = x\n", 0, 1, "remote.o.receivepack" },
	{ "[url \"ext::sh -c evil\"]\n\tinsteadOf = https://\n", 0, 1,
	  "url.ext::sh -c evil.insteadof" },
	{ "[url \"https://mirror/\"]\n\tinsteadOf = https://\n", 0, 0, NULL },
	{ "[protocol \"ext\"]\n\tallow = always\n", 0, 1, "protocol.ext.allow" },
	{ "[protocol]\n\tallow = never\n", 0, 0, NULL },
	{ "[submodule \"a\"]\n\tupdate = !evil\n", 0, 1, "submodule.a.update" },
	{ "[submodule \"a\"]\n\tupdate = rebase\n", 0, 0, NULL },
	{ "[gpg]\n\tprogram = x\n", 0, 1, "gpg.program" },
	{ "[gpg \"ssh\"]\n\tprogram = x\n", 0, 1, "gpg.ssh.program" },
	{ "[gpg]\n\tformat = ssh\n", 0, 0, NULL },
	{ "[uploadpack]\n\tpackObjectsHook = x\n", 0, 1, "uploadpack.packobjectshook" },
	{ "[sendemail]\n\tsmtpServer = /tmp/x\n", 0, 1, "sendemail.smtpserver" },
	{ "[sendemail \"id\"]\n\ttoCmd = x\n", 0, 1, "sendemail.id.tocmd" },
	{ "[web]\n\tbrowser = x\n", 0, 1, "web.browser" },
	{ "[browser \"b\"]\n\tcmd = x\n", 0, 1, "browser.b.cmd" },
	{ "[man \"m\"]\n\tpath = x\n", 0, 1, "man.m.path" },
	{ "[difftool \"d\"]\n\tcmd = x\n", 0, 1, "difftool.d.cmd" },
	{ "[mergetool \"m\"]\n\tpath = x\n", 0, 1, "mergetool.m.path" },
	{ "[interactive]\n\tdiffFilter = x\n", 0, 1, "interactive.difffilter" },
	{ "[imap]\n\ttunnel = x\n", 0, 1, "imap.tunnel" },
	{ "[tar \"tgz\"]\n\tcommand = x\n", 0, 1, "tar.tgz.command" },
	{ "[trailer \"s\"]\n\tcommand = x\n", 0, 1, "trailer.s.command" },
	{ "[lfs \"customtransfer.x\"]\n\tpath = /tmp/evil\n", 0, 1, "lfs.customtransfer.x.path" },
	{ "[core]\n\tgitProxy = x\n", 0, 1, "core.gitproxy" },
	{ "[core]\n\taskPass = x\n", 0, 1, "core.askpass" },
	{ "[core]\n\talternateRefsCommand = x\n", 0, 1, "core.alternaterefscommand" },
	/* Comments, a BOM, CR LF, a value's comment and inner spaces. */
	{ "[core] # fsmonitor = x\n; pager = y\n", 0, 0, NULL },
	{ "\xef\xbb\xbf[core]\r\n\tpager = x\r\n", 0, 1, "core.pager" },
	{ "[user]\n\tname = a  \t b  # c\n", 0, 0, NULL },
	/* No section: git uses it for nothing. */
	{ "pager = x\n", 0, 0, NULL },
	/* What git refuses to read: heel does not guess (-EINVAL). */
	{ "[core\n", 0, -EINVAL, NULL },
	{ "[core]\n\tfsmonitor = \"x\n", 0, -EINVAL, NULL },
	{ "[core]\n\tpa\\\nger = x\n", 0, -EINVAL, NULL },
	{ "[core]\n\tx = \\q\n", 0, -EINVAL, NULL },
	{ "[core]\n\t1x = y\n", 0, -EINVAL, NULL },
	{ "[]\n", 0, -EINVAL, NULL },
	{ "[core]\n\tpager = a\0b\n", 19, -EINVAL, NULL },
};

Test(gitscan, config_variables)
{
	for (size_t i = 0; i < sizeof(scan_cases) / sizeof(*scan_cases); i++) {
		const struct scan_case *c = &scan_cases[i];
		struct gs_finding f;
		int r = gs_config_scan(c->text, c->len ? c->len : strlen(c->text), &f);

		cr_expect_eq(r, c->want, "case %zu (%s): %d, expected %d", i, c->text, r, c->want);
		if (r == 1 && c->var)
			cr_expect_str_eq(f.var, c->var, "case %zu", i);
		if (r == 1)
			cr_expect_not_null(f.why, "case %zu", i);
	}
}

Test(gitscan, count_and_line)
{
	const char *t = "[user]\n\tname = x\n[core]\n\tpager = a\n\teditor = b\n[alias]\n\ty = !z\n";
	struct gs_finding f;

	cr_assert_eq(gs_config_scan(t, strlen(t), &f), 1);
	cr_expect_str_eq(f.var, "core.pager");
	cr_expect_eq(f.line, 4);
	cr_expect_eq(f.count, 3);
	cr_expect_eq(gs_config_scan("[a]\n[b\n", 7, &f), -EINVAL);
	cr_expect_eq(f.line, 3);
}

/* ------------------------------------------------------------ repositories after the run */

static void
sh(const char *fmt, ...)
{
	char cmd[PATH_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A bare-bones git directory: what git takes as a repository. */
static void
mk_gitdir(const char *rel, const char *config)
{
	char p[PATH_MAX];

	mk(rel, NULL);
	snprintf(p, sizeof(p), "%s/HEAD", rel);
	mk(p, "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/objects", rel);
	mk(p, NULL);
	snprintf(p, sizeof(p), "%s/refs", rel);
	mk(p, NULL);
	snprintf(p, sizeof(p), "%s/hooks", rel);
	mk(p, NULL);
	snprintf(p, sizeof(p), "%s/hooks/pre-commit.sample", rel);
	mk(p, "#!/bin/sh\n");
	snprintf(p, sizeof(p), "%s/config", rel);
	mk(p, config);
}

static size_t
check(const char *root, const struct timespec *since, struct gs_stats *st)
{
	char *roots[] = { (char *)at(root) };
	const struct gs_scope sc = { roots, 1, NULL, 0, *since, GS_MAX_ENTRIES, GS_MAX_DEPTH };

	return gs_check_after(&sc, st, warn);
}

static const char evil[] = "[core]\n\tfsmonitor = touch /tmp/x\n";
static const char plain[] = "[core]\n\tbare = false\n";

/* Everything made "during the run" (since the epoch): a nested work
 * tree's .git, a bare repository, a submodule's and a worktree's git
 * directories inside a .git, a .git file; only what runs is moved. */
Test(gitscan, made_during_the_run)
{
	const struct timespec epoch = { 0, 0 };
	struct gs_stats st;

	mk("proj/sub", NULL);
	mk_gitdir("proj/sub/.git", evil);
	mk("proj/sub/.git/hooks/post-checkout", "#!/bin/sh\n");
	mk_gitdir("proj/bare.git", "[alias]\n\tx = !evil\n");
	mk("proj/.git/modules", NULL);
	mk_gitdir("proj/.git/modules/m", "[core]\n\tworktree = ../../../m\n\tpager = evil\n");
	mk("proj/.git/worktrees", NULL);
	mk("proj/.git/worktrees/w", NULL);
	mk("proj/.git/worktrees/w/HEAD", "ref: refs/heads/w\n");
	mk("proj/.git/worktrees/w/commondir", "../..\n");
	mk("proj/w", NULL);
	mk("proj/w/.git", "gitdir: /elsewhere\n");
	mk("proj/clone", NULL);
	mk_gitdir("proj/clone/.git", plain);
	cr_assert_eq(symlink("/dev/null", at("proj/clone/.git/hooks/pre-push")), 0);
	cr_expect_eq(check("proj", &epoch, &st), 7, "%s", warnings);
	cr_expect_eq(count_aside(at("proj/sub/.git"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/sub/.git/hooks"), "post-checkout"), 1);
	cr_expect_eq(access(at("proj/sub/.git/hooks/pre-commit.sample"), F_OK), 0);
	cr_expect_eq(count_aside(at("proj/bare.git"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/.git/modules/m"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/.git/worktrees/w"), "commondir"), 1);
	cr_expect_eq(count_aside(at("proj/w"), ".git"), 1);
	cr_expect_eq(count_aside(at("proj/clone/.git/hooks"), "pre-push"), 1, "a link is a hook too");
	/* The clone's config runs nothing: it stays. */
	cr_expect_eq(access(at("proj/clone/.git/config"), F_OK), 0);
	cr_expect(strstr(warnings, "/proj/sub/.git/config, a git config that sets core.fsmonitor at "
				   "line 2 (git status runs the program it names); host-run moved it "
				   "aside to "),
		  "%s", warnings);
	cr_expect(strstr(warnings, "/proj/bare.git/config, a git config that sets alias.x"), "%s",
		  warnings);
	cr_expect(strstr(warnings, "/proj/w/.git, a .git file that points git"), "%s", warnings);
	cr_expect_eq(st.repos, 5, "sub, bare, module, worktree, clone (proj/.git has no HEAD)");
	cr_expect_eq(st.partial, 0);
	/* A second look finds nothing. */
	warnings[0] = '\0';
	cr_expect_eq(check("proj", &epoch, NULL), 0, "%s", warnings);
}

/* What did not change during the run stays, whatever it sets: the
 * user's own hooks and config. */
Test(gitscan, unchanged_stays)
{
	struct timespec later;

	mk("proj/sub", NULL);
	mk_gitdir("proj/sub/.git", evil);
	mk("proj/sub/.git/hooks/pre-commit", "#!/bin/sh\n");
	mk("proj/w", NULL);
	mk("proj/w/.git", "gitdir: /elsewhere\n");
	clock_gettime(CLOCK_REALTIME, &later);
	later.tv_sec += 2;
	cr_expect_eq(check("proj", &later, NULL), 0, "%s", warnings);
	cr_expect_str_eq(warnings, "");
	cr_expect_eq(access(at("proj/sub/.git/config"), F_OK), 0);
	cr_expect_eq(access(at("proj/sub/.git/hooks/pre-commit"), F_OK), 0);
}

/* Through the plan: the launch's places are the roots, the launch time
 * is `since`; a config changed after the plan is moved aside, one that
 * was there before stays. */
Test(gitscan, through_the_plan)
{
	struct gs_stats st;

	mk("proj/old", NULL);
	mk_gitdir("proj/old/.git", evil);
	mk("proj/old/.git/hooks/pre-commit", "#!/bin/sh\n");
	/* The coarse clock's tick (a jiffy) apart from the plan. */
	usleep(50000);
	cr_assert_eq(plan_policy(project_policy(), NULL, NULL, 0), 0);
	cr_assert_geq(plan.nroots, 2);
	cr_expect_str_eq(plan.roots[0], at("proj"), "the project first");
	usleep(50000);
	mk("proj/new", NULL);
	mk_gitdir("proj/new/.git", evil);
	mk_gitdir("home/x.git", "[core]\n\thooksPath = /tmp\n");
	sh("printf '#!/bin/sh\\n' >>'%s'", at("proj/old/.git/hooks/pre-commit"));
	cr_expect_eq(hr_check_repos(&plan, &st, warn), 3, "%s", warnings);
	cr_expect_eq(count_aside(at("proj/new/.git"), "config"), 1);
	cr_expect_eq(count_aside(at("home/x.git"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/old/.git/hooks"), "pre-commit"), 1,
		     "a hook written in place: its own change time");
	cr_expect_eq(access(at("proj/old/.git/config"), F_OK), 0, "the user's own config stays");
}

/* The bounds: past them, a warning names the place; never silent. */
Test(gitscan, bounds_warn)
{
	const struct timespec epoch = { 0, 0 };
	char *roots[] = { (char *)at("proj"), (char *)at("home") };
	struct gs_scope sc = { roots, 2, NULL, 0, epoch, 5, GS_MAX_DEPTH };
	struct gs_stats st;

	for (int i = 0; i < 10; i++) {
		char p[32];

		snprintf(p, sizeof(p), "proj/f%d", i);
		mk(p, "x");
	}
	cr_expect_eq(gs_check_after(&sc, &st, warn), 0);
	cr_expect_eq(st.partial, 2);
	cr_expect(strstr(warnings, "did not check every git repository in ") &&
		  strstr(warnings, "/proj: the walk stops after 5 entries"),
		  "%s", warnings);
	cr_expect(strstr(warnings, "/home: the walk stops"), "%s", warnings);
	warnings[0] = '\0';
	sc = (struct gs_scope){ roots, 1, NULL, 0, epoch, GS_MAX_ENTRIES, 2 };
	mk("proj/a", NULL);
	mk("proj/a/b", NULL);
	mk("proj/a/b/c", NULL);
	mk_gitdir("proj/a/b/c/r", evil);
	cr_expect_eq(gs_check_after(&sc, &st, warn), 0);
	cr_expect(strstr(warnings, "more than 2 levels down (the first: ") &&
		  strstr(warnings, "/proj/a/b/c)"),
		  "%s", warnings);
}

/* An explicit writable grant of the very path beats host-run here too. */
Test(gitscan, explicit_grant_wins)
{
	char *roots[] = { (char *)at("proj") };
	char *granted[] = { (char *)at("proj/sub/.git/hooks"), (char *)at("proj/sub/.git/config") };
	const struct gs_scope sc = { roots, 1, granted, 2, { 0, 0 }, GS_MAX_ENTRIES, GS_MAX_DEPTH };

	mk("proj/sub", NULL);
	mk_gitdir("proj/sub/.git", evil);
	mk("proj/sub/.git/hooks/pre-commit", "#!/bin/sh\n");
	cr_expect_eq(gs_check_after(&sc, NULL, warn), 0, "%s", warnings);
	cr_expect_eq(access(at("proj/sub/.git/hooks/pre-commit"), F_OK), 0);
	cr_expect_eq(access(at("proj/sub/.git/config"), F_OK), 0);
}

/* A config that is a link is not followed to be read, nor a FIFO
 * opened: changed during the run, each is moved aside as it is; one
 * larger than heel reads, too. */
Test(gitscan, odd_configs)
{
	const struct timespec epoch = { 0, 0 };
	char big[PATH_MAX];
	FILE *f;

	mk("proj/a", NULL);
	mk_gitdir("proj/a/.git", plain);
	cr_assert_eq(unlink(at("proj/a/.git/config")), 0);
	mk("proj/plain.cfg", plain);
	cr_assert_eq(symlink("../../plain.cfg", at("proj/a/.git/config")), 0);
	mk("proj/b", NULL);
	mk_gitdir("proj/b/.git", plain);
	cr_assert_eq(unlink(at("proj/b/.git/config")), 0);
	cr_assert_eq(mkfifo(at("proj/b/.git/config"), 0644), 0);
	mk("proj/c", NULL);
	mk_gitdir("proj/c/.git", plain);
	snprintf(big, sizeof(big), "%s", at("proj/c/.git/config"));
	cr_assert_not_null(f = fopen(big, "a"));
	for (int i = 0; i < 120000; i++)
		fputs("# padding\n", f);
	fclose(f);
	cr_expect_eq(check("proj", &epoch, NULL), 3, "%s", warnings);
	cr_expect_eq(count_aside(at("proj/a/.git"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/b/.git"), "config"), 1);
	cr_expect_eq(count_aside(at("proj/c/.git"), "config"), 1);
	cr_expect(strstr(warnings, "a git config that is a link"), "%s", warnings);
	cr_expect(strstr(warnings, "a git config that is not a regular file"), "%s", warnings);
	cr_expect(strstr(warnings, "larger than heel reads"), "%s", warnings);
}

/* SPDX-License-Identifier: MIT
 * Landlock at launch: the pure downgrade table for every ABI, plan
 * building on real temporary trees (expansion, links, missing paths,
 * carve-outs with their exact siblings, writable grants with and without
 * a mount namespace), and live enforcement in forked children, as root
 * and as uid 65534. Landlock restriction cannot be undone, so it never
 * happens in the Criterion worker itself. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"
#include "landlock_abi.h"
#include "landlock_apply.h"
#include "landlock_lower.h"
#include "landlock_table.h"
#include "pathexpand.h"

/* ------------------------------------------------------------ downgrade */

#define HEEL_FS 0xFFFFull
#define ALL_SCOPES (LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL)
#define ALL_NET (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)
#define SCOPES_WEAK (LL_WEAK_SCOPE_UNIX | LL_WEAK_SCOPE_SIGNAL)

struct dg_case {
	int abi;
	uint64_t fs, net, scoped;
	uint32_t weak, notes;
};

static void
check_downgrade(const struct ll_masks *req, const struct dg_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ll_downgrade dg;

		memset(&dg, 0xa5, sizeof(dg));
		ll_downgrade(req, c[i].abi, &dg);
		cr_assert_eq(dg.eff.fs, c[i].fs, "abi %d fs 0x%llx", c[i].abi,
			     (unsigned long long)dg.eff.fs);
		cr_assert_eq(dg.eff.net, c[i].net, "abi %d net", c[i].abi);
		cr_assert_eq(dg.eff.scoped, c[i].scoped, "abi %d scoped", c[i].abi);
		cr_assert_eq(dg.weakenings, c[i].weak, "abi %d weakenings 0x%x", c[i].abi,
			     dg.weakenings);
		cr_assert_eq(dg.notes, c[i].notes, "abi %d notes 0x%x", c[i].abi, dg.notes);
	}
}

Test(landlock_downgrade, heel_table_on_every_abi)
{
	static const struct dg_case c[] = {
		{ -1, 0, 0, 0, LL_WEAK_NO_LANDLOCK, 0 },
		{ 0, 0, 0, 0, LL_WEAK_NO_LANDLOCK, 0 },
		{ 1, 0x1FFF, 0, 0, LL_WEAK_TRUNCATE | LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK,
		  LL_NOTE_NO_REFER },
		{ 2, 0x3FFF, 0, 0, LL_WEAK_TRUNCATE | LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK,
		  0 },
		{ 3, 0x7FFF, 0, 0, LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK, 0 },
		{ 4, 0x7FFF, ALL_NET, 0, LL_WEAK_IOCTL_DEV | SCOPES_WEAK, 0 },
		{ 5, 0xFFFF, ALL_NET, 0, SCOPES_WEAK, 0 },
		{ 6, 0xFFFF, ALL_NET, ALL_SCOPES, 0, 0 },
		{ 7, 0xFFFF, ALL_NET, ALL_SCOPES, 0, 0 },
		{ 8, 0xFFFF, ALL_NET, ALL_SCOPES, 0, 0 },
		{ 9, 0xFFFF, ALL_NET, ALL_SCOPES, 0, 0 },
		{ 42, 0xFFFF, ALL_NET, ALL_SCOPES, 0, 0 },
	};
	struct ll_masks req = { HEEL_FS, ALL_NET, ALL_SCOPES };

	check_downgrade(&req, c, sizeof(c) / sizeof(c[0]));
}

Test(landlock_downgrade, every_right_on_every_abi)
{
	static const struct dg_case c[] = {
		{ 0, 0, 0, 0, LL_WEAK_NO_LANDLOCK, 0 },
		{ 1, 0x1FFF, 0, 0, LL_WEAK_TRUNCATE | LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK |
		  LL_WEAK_RESOLVE_UNIX, LL_NOTE_NO_REFER },
		{ 2, 0x3FFF, 0, 0, LL_WEAK_TRUNCATE | LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK |
		  LL_WEAK_RESOLVE_UNIX, 0 },
		{ 3, 0x7FFF, 0, 0, LL_WEAK_NET_TCP | LL_WEAK_IOCTL_DEV | SCOPES_WEAK |
		  LL_WEAK_RESOLVE_UNIX, 0 },
		{ 4, 0x7FFF, ALL_NET, 0, LL_WEAK_IOCTL_DEV | SCOPES_WEAK | LL_WEAK_RESOLVE_UNIX, 0 },
		{ 5, 0xFFFF, ALL_NET, 0, SCOPES_WEAK | LL_WEAK_RESOLVE_UNIX, 0 },
		{ 6, 0xFFFF, ALL_NET, ALL_SCOPES, LL_WEAK_RESOLVE_UNIX, 0 },
		{ 7, 0xFFFF, ALL_NET, ALL_SCOPES, LL_WEAK_RESOLVE_UNIX, 0 },
		{ 8, 0xFFFF, ALL_NET, ALL_SCOPES, LL_WEAK_RESOLVE_UNIX, 0 },
		{ 9, 0x1FFFF, ALL_NET, ALL_SCOPES, 0, 0 },
	};
	struct ll_masks req = { 0x1FFFF, ALL_NET, ALL_SCOPES };

	check_downgrade(&req, c, sizeof(c) / sizeof(c[0]));
}

Test(landlock_downgrade, partial_requests_lose_only_what_they_asked)
{
	static const struct dg_case c[] = {
		{ 1, 0xC, 0, 0, 0, 0 },
		{ 5, 0xC, 0, 0, 0, 0 },
	};
	struct ll_masks req = { 0xC, 0, 0 };
	struct ll_masks none = { 0, 0, 0 };
	struct ll_downgrade dg;

	check_downgrade(&req, c, 2);
	ll_downgrade(&none, 0, &dg);
	cr_assert_eq(dg.weakenings, 0, "nothing asked, nothing lost");
	for (uint32_t bit = 1; bit <= LL_WEAK_MOUNTNS; bit <<= 1)
		cr_assert_str_neq(ll_weakening_text(bit), "unknown weakening");
	cr_assert(strstr(ll_note_text(LL_NOTE_NO_REFER), "EXDEV"));
	cr_assert(strstr(ll_probe_message(-ENOSYS), "CONFIG_SECURITY_LANDLOCK"));
	cr_assert(strstr(ll_probe_message(-EOPNOTSUPP), "lsm="));
}

/* ------------------------------------------------------------ helpers */

struct table {
	uint8_t *bytes;
	size_t len;
	struct ll_table_view view;
};

struct spec {
	const char *path;
	unsigned mode;
	bool optional;
};

static void
table_build(struct table *t, const struct spec *s, size_t n, bool proxy)
{
	struct ir_policy *p = ir_policy_new();
	struct ll_table *lt;
	char err[256];

	cr_assert_not_null(p);
	p->paths = calloc(n ? n : 1, sizeof(*p->paths));
	for (size_t i = 0; i < n; i++) {
		p->paths[i].path = strdup(s[i].path);
		p->paths[i].mode = (uint8_t)s[i].mode;
		p->paths[i].platforms = IR_PLAT_ALL;
		p->paths[i].optional = s[i].optional || s[i].mode == IR_MODE_DENY;
		p->paths[i].set = IR_SET_NONE;
		p->paths[i].origin.file = ir_intern(p, "test.heel");
		p->paths[i].origin.line = (uint32_t)i + 1;
	}
	p->npaths = n;
	if (proxy)
		p->scalar[IR_LINUX].network.value = IR_NET_ALLOW_ALL;
	cr_assert_eq(ll_lower(p, &lt), 0);
	cr_assert_eq(ll_table_encode(lt, &t->bytes, &t->len), 0);
	cr_assert_eq(ll_table_parse(t->bytes, t->len, &t->view, err, sizeof(err)), 0, "%s", err);
	ll_table_free(lt);
	ir_policy_free(p);
}

static char root[256];

static const char *
P(const char *rel)
{
	static char bufs[16][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 16];

	cr_assert_lt(snprintf(b, PATH_MAX, "%s/%s", root, rel), PATH_MAX);
	return b;
}

static void
mkd(const char *rel, mode_t mode)
{
	cr_assert_eq(mkdir(P(rel), mode), 0, "mkdir %s: %s", rel, strerror(errno));
	cr_assert_eq(chmod(P(rel), mode), 0);
}

static void
mkf(const char *rel, const char *content, mode_t mode)
{
	int fd = open(P(rel), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "create %s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void
copy_file(const char *from, const char *rel, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(P(rel), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	cr_assert(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	cr_assert_eq(fchmod(out, mode), 0);
	close(in);
	close(out);
}

static void
make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-ll-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	cr_assert_eq(chmod(root, 0755), 0);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

static void
remove_root(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

struct env_pair {
	const char *name, *value;
};

static const char *
test_getenv(const char *name, void *ctx)
{
	for (const struct env_pair *e = ctx; e && e->name; e++)
		if (strcmp(e->name, name) == 0)
			return e->value;
	return NULL;
}

static const struct ll_plan_rule *
plan_find(const struct ll_plan *p, const char *path)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (strcmp(p->rules[i].path, path) == 0)
			return &p->rules[i];
	return NULL;
}

static bool
report_has(const struct ll_report *rep, enum ll_line_kind kind, const char *needle)
{
	for (size_t i = 0; i < rep->nlines; i++)
		if (rep->lines[i].kind == kind && strstr(rep->lines[i].text, needle))
			return true;
	return false;
}

struct expect {
	const char *rel;
	enum ll_plan_kind kind;
	uint64_t access;
};

static void
assert_plan(const struct ll_plan *p, const struct expect *e, size_t n)
{
	for (size_t i = 0; i < p->nrules && i < n; i++) {
		cr_assert_str_eq(p->rules[i].path, P(e[i].rel), "rule %zu", i);
		cr_assert_eq(p->rules[i].kind, e[i].kind, "rule %zu (%s) kind %d", i, e[i].rel,
			     p->rules[i].kind);
		cr_assert_eq(p->rules[i].access, e[i].access, "rule %zu (%s) access 0x%llx", i,
			     e[i].rel, (unsigned long long)p->rules[i].access);
		/* Open, or a sibling named by the open directory it is in. */
		/* (a spine beneath the grant's own: named by its parent too) */
		if (p->rules[i].kind == LL_PK_SIBLING || (p->rules[i].kind == LL_PK_SPINE && i &&
							   p->rules[i].fd < 0))
			cr_assert(p->rules[i].fd < 0 && p->rules[i].anchor > 0 &&
				  p->rules[i].anchor <= p->nanchors, "rule %zu", i);
		else
			cr_assert_geq(p->rules[i].fd, 0);
	}
	cr_assert_eq(p->nrules, n, "%zu rules, expected %zu", p->nrules, n);
}

#define RF LL_FS_READ_FILE
#define RD LL_FS_READ_DIR
#define RW_DIR (0x77BEull | LL_FS_RESOLVE_UNIX)
#define RW_FILE (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_RESOLVE_UNIX)

static void
carve_tree(void)
{
	make_root();
	mkd("A", 0755);
	mkf("A/a1", "1", 0644);
	mkf("A/a2", "2", 0644);
	mkd("A/sub", 0755);
	mkf("A/sub/s1", "s1", 0644);
	mkf("A/sub/secret2", "s2", 0644);
	mkd("A/secret", 0755);
	mkf("A/secret/key", "k", 0644);
	mkd("A/subdir2", 0755);
	cr_assert_eq(symlink("a1", P("A/link")), 0);
	mkd("T2", 0755);
	mkf("T2/x", "x", 0644);
	mkd("T2/W", 0755);
	mkf("T2/W/y", "y", 0644);
	mkf("T2/W/s", "s", 0644);
	mkd("T2/W/d", 0755);
	mkd("T2/W/d/e", 0755);
	cr_assert_eq(symlink("A", P("lnk")), 0);
}

TestSuite(landlock_plan, .init = carve_tree, .fini = remove_root);

Test(landlock_plan, carve_out_read_grant_exact_siblings)
{
	struct spec s[] = {
		{ P("A"), IR_MODE_R, false },
		{ P("A/secret"), IR_MODE_DENY, false },
		{ P("A/sub/secret2"), IR_MODE_DENY, false },
	};
	static const struct expect want[] = {
		{ "A", LL_PK_SPINE, RD },
		{ "A/a1", LL_PK_SIBLING, RF },
		{ "A/a2", LL_PK_SIBLING, RF },
		{ "A/sub/s1", LL_PK_SIBLING, RF },
		{ "A/subdir2", LL_PK_SIBLING, RF | RD },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[512];

	table_build(&t, s, 3, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	/* A/link is a link: no rule; A/secret and A/sub/secret2: nothing;
	 * A/sub: nothing of its own, READ_DIR comes from A. */
	assert_plan(&plan, want, sizeof(want) / sizeof(want[0]));
	cr_assert_eq(plan.nmounts, 0);
	cr_assert_eq(plan.dg.weakenings, 0);
	cr_assert(report_has(&rep, LL_LINE_APPLIED, "sibling"));
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

/* A directory larger than the planner's first guesses: its arrays grow
 * past their first capacity and its sorts leave their stack scratch for
 * the heap (600 rules of 40 bytes and more). Every entry but the denied
 * one is granted once, in path order. */
Test(landlock_plan, carve_out_of_a_large_directory)
{
	enum { N = 600 };
	struct ll_launch l = { .cwd = root };
	struct ll_plan plan;
	struct table t;
	char err[512], name[32];

	mkd("big", 0755);
	for (int i = N - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "big/e%04d", i);
		mkf(name, "x", 0644);
	}
	/* After the files: P() hands out a ring of 16 buffers. */
	struct spec s[] = {
		{ P("big"), IR_MODE_R, false },
		{ P("big/e0300"), IR_MODE_DENY, false },
	};
	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(plan.nrules, 1 + (N - 1), "%zu rules", plan.nrules);
	cr_assert_str_eq(plan.rules[0].path, P("big"));
	cr_assert_eq(plan.rules[0].kind, LL_PK_SPINE);
	for (size_t i = 1, want = 0; i < plan.nrules; i++, want++) {
		if (want == 300)
			want++;
		snprintf(name, sizeof(name), "big/e%04zu", want);
		cr_assert_str_eq(plan.rules[i].path, P(name), "rule %zu", i);
		cr_assert_eq(plan.rules[i].kind, LL_PK_SIBLING);
		cr_assert_eq(plan.rules[i].access, RF);
		cr_assert_eq(plan.rules[i].fd, -1, "a sibling is opened when enforced");
		cr_assert_eq(plan.rules[i].anchor, 1);
	}
	cr_assert_eq(plan.nanchors, 1, "one descriptor for the listed directory");
	cr_assert_geq(plan.rules_cap, plan.nrules + 1, "room kept for the working directory");
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, deny_in_writable_grant_refused_without_namespace)
{
	struct spec s[] = {
		{ P("T2"), IR_MODE_R, false },
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/W/s"), IR_MODE_DENY, false },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 3, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "T2/W/s") && strstr(err, "--best-effort") && strstr(err, "test.heel:3"),
		  "%s", err);
	ll_report_free(&rep);
	free(t.bytes);
}

Test(landlock_plan, deny_in_writable_grant_best_effort_union_of_ancestors)
{
	struct spec s[] = {
		{ P("T2"), IR_MODE_R, false },
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/W/s"), IR_MODE_DENY, false },
	};
	/* T2 (read) and T2/W (write) are both expanded around T2/W/s; the
	 * siblings of s get the union; the spines only READ_DIR. */
	static const struct expect want[] = {
		{ "T2", LL_PK_SPINE, RD },
		{ "T2/W", LL_PK_SPINE, RD },
		{ "T2/W/d", LL_PK_SIBLING, RW_DIR | RF | RD },
		{ "T2/W/y", LL_PK_SIBLING, RW_FILE },
		{ "T2/x", LL_PK_SIBLING, RF },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 3, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	assert_plan(&plan, want, sizeof(want) / sizeof(want[0]));
	cr_assert(plan.dg.weakenings & LL_WEAK_MOUNTNS);
	cr_assert(report_has(&rep, LL_LINE_WEAKENING, "no mount namespace"));
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

/* A writable grant narrowed only in what may run beneath it (`grant "/"
 * rwx` around a tool cache's `rw`): the directories on the way keep the
 * write rights, so they still take new entries, which never run; a
 * directory on the way to a deny keeps nothing but the spine's listing. */
Test(landlock_plan, narrowed_writable_grant_keeps_writing_on_the_way)
{
	struct spec s[] = {
		{ P("T2"), IR_MODE_RWX, false },
		{ P("T2/W/d/e"), IR_MODE_RW, false },
		{ P("A"), IR_MODE_RWX, false },
		{ P("A/sub/s1"), IR_MODE_DENY, false },
	};
	struct ll_launch l = { .cwd = root, .mountns = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];
	const struct ll_plan_rule *w, *d, *e, *y, *x;

	table_build(&t, s, 4, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &plan, NULL, err, sizeof(err)), 0,
		     "%s", err);
	w = plan_find(&plan, P("T2/W"));
	d = plan_find(&plan, P("T2/W/d"));
	e = plan_find(&plan, P("T2/W/d/e"));
	y = plan_find(&plan, P("T2/W/y"));
	x = plan_find(&plan, P("T2/x"));
	cr_assert(w && d && e && y && x);
	/* T2/W and T2/W/d: what the rw grant has, never x; their other
	 * entries what T2 has. */
	cr_assert(e->access & LL_FS_MAKE_REG && !(e->access & LL_FS_EXECUTE));
	cr_assert_eq(w->access, e->access);
	cr_assert_eq(w->kind, LL_PK_SPINE);
	cr_assert_eq(d->access, e->access);
	cr_assert(y->access & LL_FS_EXECUTE && y->access == x->access);
	cr_assert_eq(plan_find(&plan, P("T2"))->access, RD);
	/* A deny beneath a writable grant, under a mount namespace: a
	 * mount hides it, and the grant is not carved (no rule on the way
	 * could reach it). The model test below checks the carved denies. */
	cr_assert_null(plan_find(&plan, P("A/sub")));
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, deny_in_writable_grant_with_namespace_becomes_mount_request)
{
	struct spec s[] = {
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/W/d/e"), IR_MODE_DENY, false },
	};
	static const struct expect want[] = {
		{ "T2/W", LL_PK_GRANT, RW_DIR },
	};
	struct ll_launch l = { .cwd = root, .mountns = true };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	assert_plan(&plan, want, 1);
	cr_assert_eq(plan.nmounts, 1);
	cr_assert_str_eq(plan.mounts[0].deny, P("T2/W/d/e"));
	cr_assert_str_eq(plan.mounts[0].grant, P("T2/W"));
	cr_assert(plan.mounts[0].is_dir);
	cr_assert_eq(plan.mounts[0].nkeep, 1);
	cr_assert_str_eq(plan.mounts[0].keep[0], P("T2/W/d"));
	cr_assert_eq(plan.dg.weakenings, 0);
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

Test(landlock_plan, missing_deny_in_writable_grant_still_carved)
{
	/* Nothing to bind over, so even with a namespace the grant is
	 * expanded: the spine keeps the sandbox from creating it. */
	struct spec s[] = {
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/W/absent/deeper"), IR_MODE_DENY, false },
	};
	static const struct expect want[] = {
		{ "T2/W", LL_PK_SPINE, RD },
		{ "T2/W/d", LL_PK_SIBLING, RW_DIR },
		{ "T2/W/s", LL_PK_SIBLING, RW_FILE },
		{ "T2/W/y", LL_PK_SIBLING, RW_FILE },
	};
	struct ll_launch l = { .cwd = root, .mountns = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	assert_plan(&plan, want, sizeof(want) / sizeof(want[0]));
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, deny_through_a_link_is_enforced_at_its_target)
{
	struct spec s[] = {
		{ P("A"), IR_MODE_R, false },
		{ P("lnk/secret"), IR_MODE_DENY, false },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(plan_find(&plan, P("A"))->kind, LL_PK_SPINE);
	cr_assert_null(plan_find(&plan, P("A/secret")));
	cr_assert_not_null(plan_find(&plan, P("A/a1")));
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, narrower_grant_inside_wider_one)
{
	struct spec s[] = {
		{ P("A"), IR_MODE_RX, false },
		{ P("A/sub"), IR_MODE_R, false },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	/* The longest path decides: A/sub is not executable. */
	cr_assert_eq(plan_find(&plan, P("A"))->access, RD);
	cr_assert_eq(plan_find(&plan, P("A/sub"))->access, RF | RD);
	cr_assert_eq(plan_find(&plan, P("A/a1"))->access, RF | LL_FS_EXECUTE);
	cr_assert_eq(plan_find(&plan, P("A/secret"))->access, RF | RD | LL_FS_EXECUTE);
	cr_assert(report_has(&rep, LL_LINE_NOTE, "narrows"));
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

Test(landlock_plan, templates_relative_paths_and_workdir)
{
	struct spec s[] = {
		{ "${TROOT}/A/a1", IR_MODE_RWX, false },
		{ "./T2", IR_MODE_R, false },
		{ "${CWD}/A/sub", IR_MODE_R, false },
		{ "${NOPE}/x", IR_MODE_R, true },
		{ "/dev/null", IR_MODE_RW, false },
	};
	struct env_pair env[] = { { "TROOT", root }, { NULL, NULL } };
	struct ll_launch l = { .cwd = root, .getenv = test_getenv, .getenv_ctx = env,
			       .workdir = P("T2/W/d") };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 5, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	/* A file keeps only file rights. */
	cr_assert_eq(plan_find(&plan, P("A/a1"))->access,
		     LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE |
			     LL_FS_RESOLVE_UNIX);
	cr_assert_eq(plan_find(&plan, P("T2"))->access, RF | RD);
	cr_assert_eq(plan_find(&plan, P("A/sub"))->access, RF | RD);
	cr_assert_eq(plan_find(&plan, "/dev/null")->access, RW_FILE | LL_FS_IOCTL_DEV);
	/* The working directory: written, never executed. */
	cr_assert_eq(plan_find(&plan, P("T2/W/d"))->kind, LL_PK_WORKDIR);
	cr_assert_eq(plan_find(&plan, P("T2/W/d"))->access, RW_DIR);
	cr_assert(report_has(&rep, LL_LINE_SKIPPED, "${NOPE} is not set"));
	cr_assert_eq(plan.nrules, 5);
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

Test(landlock_plan, expansion_errors_name_the_rule)
{
	struct spec unset[] = { { "${NOPE}/x", IR_MODE_R, false } };
	struct spec dots[] = { { "${TROOT}/A", IR_MODE_R, false } };
	struct env_pair empty[] = { { "NOPE", "" }, { NULL, NULL } };
	struct env_pair dotty[] = { { "TROOT", "/tmp/../etc" }, { NULL, NULL } };
	struct env_pair relative[] = { { "TROOT", "tmp" }, { NULL, NULL } };
	struct ll_launch l = { .cwd = root, .getenv = test_getenv };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, unset, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "grant \"${NOPE}/x\" (test.heel:1): ${NOPE} is not set"), "%s", err);
	l.getenv_ctx = empty;
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -ENOENT,
		     "an empty value counts as unset");
	free(t.bytes);

	table_build(&t, dots, 1, false);
	l.getenv_ctx = dotty;
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "grant \"${TROOT}/A\" (test.heel:1): TROOT is \"/tmp/../etc\", "
			  "which puts a . or .. component in the path; refusing"), "%s", err);
	l.getenv_ctx = relative;
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "absolute"), "%s", err);
	free(t.bytes);
}

/* HOME=/ made `grant "${HOME}" r` a grant of the whole file system. A
 * variable that makes a grant the root or a system directory is refused,
 * optional or not (it is set, to something dangerous); so is a "." or
 * ".." it makes. Only unset or empty lets an optional rule go. */
Test(landlock_plan, a_variable_cannot_grant_a_system_directory)
{
	struct spec opt[] = { { "${HOME}", IR_MODE_R, true } };
	struct env_pair slash[] = { { "HOME", "/" }, { NULL, NULL } };
	struct env_pair slashes[] = { { "HOME", "//" }, { NULL, NULL } };
	struct env_pair usr[] = { { "HOME", "/usr/" }, { NULL, NULL } };
	struct env_pair climb[] = { { "HOME", "/usr/../" }, { NULL, NULL } };
	struct env_pair empty[] = { { "HOME", "" }, { NULL, NULL } };
	struct env_pair *refused[] = { slash, slashes, usr, climb };
	struct ll_launch l = { .cwd = root, .getenv = test_getenv };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, opt, 1, false);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		l.getenv_ctx = refused[i];
		cr_assert_lt(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0,
			     "HOME=%s", refused[i][0].value);
		cr_assert(strstr(err, "grant \"${HOME}\" (test.heel:1): HOME is \""), "%s", err);
		cr_assert(strstr(err, "refusing"), "%s", err);
		cr_assert_lt(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &plan, NULL, err, sizeof(err)), 0,
			     "best effort does not weaken it");
	}
	l.getenv_ctx = slash;
	ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err));
	cr_assert(strstr(err, "HOME is \"/\", a system directory; refusing"), "%s", err);
	l.getenv_ctx = empty;
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(report_has(&rep, LL_LINE_SKIPPED, "${HOME} is empty, skipped"));
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);
}

/* A deny only takes access away: one that a variable made "/" stays. */
Test(landlock_plan, a_deny_of_the_root_is_kept)
{
	struct spec s[] = { { "${TROOT}/A", IR_MODE_R, false }, { "${X}", IR_MODE_DENY, false } };
	struct env_pair env[] = { { "TROOT", root }, { "X", "/" }, { NULL, NULL } };
	struct ll_launch l = { .cwd = root, .getenv = test_getenv, .getenv_ctx = env };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, links_and_missing_paths)
{
	struct spec link_req[] = { { P("lnk"), IR_MODE_R, false } };
	struct spec through_req[] = { { P("lnk/a1"), IR_MODE_R, false } };
	struct spec link_opt[] = { { P("lnk"), IR_MODE_R, true }, { "/lib64", IR_MODE_RX, true } };
	struct spec missing_req[] = { { P("absent"), IR_MODE_R, false } };
	struct spec missing_opt[] = { { P("absent"), IR_MODE_R, true } };
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];
	struct stat st;

	table_build(&t, link_req, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -ELOOP);
	cr_assert(strstr(err, P("lnk")) && strstr(err, "symbolic link"), "%s", err);
	free(t.bytes);

	table_build(&t, through_req, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -ELOOP);
	free(t.bytes);

	table_build(&t, link_opt, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(report_has(&rep, LL_LINE_SKIPPED, "symbolic link, skipped (optional)"));
	if (lstat("/lib64", &st) == 0 && S_ISLNK(st.st_mode))
		cr_assert_null(plan_find(&plan, "/lib64"), "merged /usr: /lib64 is a link");
	cr_assert_null(plan_find(&plan, P("lnk")));
	ll_plan_free(&plan);
	ll_report_free(&rep);
	free(t.bytes);

	table_build(&t, missing_req, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "does not exist"), "%s", err);
	free(t.bytes);

	table_build(&t, missing_opt, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0);
	cr_assert_eq(plan.nrules, 0);
	ll_plan_free(&plan);
	free(t.bytes);
}

Test(landlock_plan, old_kernels_refused_unless_best_effort)
{
	struct spec s[] = { { P("T2/W"), IR_MODE_RW, false }, { "/dev/null", IR_MODE_RW, false } };
	struct ll_launch l = { .cwd = root };
	struct ll_report rep = { .want_applied = true };
	struct ll_plan plan;
	struct table t;
	char err[2048];

	table_build(&t, s, 2, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, 5, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "ABI 5") && strstr(err, "needs 10") && strstr(err, "signalled") &&
		  strstr(err, "--best-effort"), "%s", err);
	cr_assert_eq(ll_plan_build(&t.view, &l, 0, false, &plan, NULL, err, sizeof(err)), -EPERM);

	cr_assert_eq(ll_plan_build(&t.view, &l, 1, true, &plan, &rep, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan_find(&plan, P("T2/W"))->access, 0x17BE, "no REFER, no TRUNCATE on ABI 1");
	cr_assert_eq(plan_find(&plan, "/dev/null")->access, RF | LL_FS_WRITE_FILE);
	cr_assert(report_has(&rep, LL_LINE_WEAKENING, "truncating"));
	cr_assert(report_has(&rep, LL_LINE_WEAKENING, "TCP"));
	cr_assert(report_has(&rep, LL_LINE_NOTE, "EXDEV"));
	/* Every device grant carries IOCTL_DEV: ABI < 5 loses nothing there. */
	cr_assert_eq(rep.weakenings,
		     LL_WEAK_TRUNCATE | LL_WEAK_NET_TCP | LL_WEAK_NET_UDP | SCOPES_WEAK);
	cr_assert_eq(plan.dg.held, LL_WEAK_IOCTL_DEV | LL_WEAK_RESOLVE_UNIX);
	cr_assert(report_has(&rep, LL_LINE_NOTE, "ioctl on devices"));
	ll_plan_free(&plan);
	ll_report_free(&rep);

	/* ABI 0 without namespaces: refused even with best effort (the
	 * test below plans it with them). */
	cr_assert_eq(ll_plan_build(&t.view, &l, 0, true, &plan, NULL, err, sizeof(err)), -EPERM);
	free(t.bytes);
}

/* Debian 12's 6.1 has ABI 2, Ubuntu 24.04's 6.8 ABI 4: with the
 * namespaces and the read-only view every right they lack is held by
 * another wall, so the launch runs without --best-effort; without them
 * the same kernel refuses, naming the rights. */
Test(landlock_plan, rights_an_old_kernel_lacks_held_by_the_namespaces)
{
	struct spec s[] = { { P("T2/W"), IR_MODE_RW, false }, { "/dev/null", IR_MODE_RW, false } };
	struct ll_launch l = { .cwd = root, .mountns = true };
	struct ll_report rep = { 0 };
	struct ll_plan plan;
	struct table t;
	char err[2048];

	table_build(&t, s, 2, false);
	for (int abi = 1; abi <= 5; abi++) {
		memset(&rep, 0, sizeof(rep));
		cr_assert_eq(ll_plan_build(&t.view, &l, abi, false, &plan, &rep, err, sizeof(err)),
			     0, "ABI %d: %s", abi, err);
		cr_assert_eq(plan.dg.weakenings, 0, "ABI %d: 0x%x", abi, plan.dg.weakenings);
		cr_assert_eq(rep.weakenings, 0);
		cr_assert(!report_has(&rep, LL_LINE_WEAKENING, ""), "ABI %d", abi);
		cr_assert(report_has(&rep, LL_LINE_NOTE, "PID namespace"), "ABI %d", abi);
		cr_assert(report_has(&rep, LL_LINE_NOTE, "abstract"), "ABI %d", abi);
		cr_assert_eq(report_has(&rep, LL_LINE_NOTE, "read-only view"), abi < 3, "ABI %d",
			     abi);
		cr_assert_eq(report_has(&rep, LL_LINE_NOTE, "TCP bind and connect"), abi < 4,
			     "ABI %d", abi);
		ll_plan_free(&plan);
		ll_report_free(&rep);
	}
	/* ABI 6 to 8 lack UDP and RESOLVE_UNIX, 9 UDP, 10 and 11 nothing. */
	for (int abi = 6; abi <= LL_ABI_MAX + 1; abi++) {
		uint32_t held = (abi < 10 ? LL_WEAK_NET_UDP : 0) | (abi < 9 ? LL_WEAK_RESOLVE_UNIX : 0);

		cr_assert_eq(ll_plan_build(&t.view, &l, abi, false, &plan, NULL, err, sizeof(err)), 0);
		cr_assert_eq(plan.dg.held, held, "ABI %d: 0x%x", abi, plan.dg.held);
		cr_assert_eq(plan.dg.weakenings, 0);
		ll_plan_free(&plan);
	}

	/* No namespaces: the same kernel refuses, naming what is lost. */
	l.mountns = false;
	cr_assert_eq(ll_plan_build(&t.view, &l, 2, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "ABI 2") && strstr(err, "truncating") && strstr(err, "TCP") &&
		  strstr(err, "UDP"), "%s", err);
	cr_assert(!strstr(err, "ioctl"), "device grants carry ioctl: %s", err);
	/* A seccomp program that refuses inet sockets holds TCP and UDP
	 * without the namespaces; truncation is still lost. */
	l.inet_refused = true;
	cr_assert_eq(ll_plan_build(&t.view, &l, 2, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "truncating") && !strstr(err, "TCP") && !strstr(err, "UDP"), "%s",
		  err);
	cr_assert_eq(ll_plan_build(&t.view, &l, 9, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(plan.dg.held, LL_WEAK_NET_UDP);
	ll_plan_free(&plan);
	l.inet_refused = false;
	free(t.bytes);

	/* Through heel-proxy, the sandbox's network namespace still holds
	 * TCP (only loopback, where the proxy is): ABI < 4 loses nothing. */
	l.mountns = true;
	table_build(&t, s, 2, true);
	l.proxy_port = 3128;
	cr_assert_eq(ll_plan_build(&t.view, &l, 3, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(plan.dg.held & LL_WEAK_NET_TCP);
	ll_plan_free(&plan);
	/* Without the namespace the port rule is the wall, and ABI < 4 has
	 * none; UDP stays held where seccomp refuses UDP sockets. */
	l.mountns = false;
	l.udp_refused = true;
	cr_assert_eq(ll_plan_build(&t.view, &l, 3, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "TCP") && !strstr(err, "UDP"), "%s", err);
	cr_assert_eq(ll_plan_build(&t.view, &l, 7, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(!(plan.dg.held & LL_WEAK_NET_TCP));
	ll_plan_free(&plan);
	l.udp_refused = false;
	l.mountns = true;
	cr_assert_eq(ll_plan_build(&t.view, &l, 10, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	ll_plan_free(&plan);
	free(t.bytes);

	/* A grant of / reaches every device node, so it carries IOCTL_DEV
	 * as a grant of /dev does (isolation permissive's `grant "/" rwx`
	 * was refused on every kernel before ABI 5): ABI 4 loses nothing. */
	struct spec all[] = { { "/", IR_MODE_R, false } };

	table_build(&t, all, 1, false);
	l.proxy_port = 0;
	cr_assert_eq(ll_plan_build(&t.view, &l, 4, false, &plan, NULL, err, sizeof(err)), 0, "%s",
		     err);
	ll_plan_free(&plan);
	free(t.bytes);
}

/* No Landlock at all (Debian 11's 5.10): refused; with --best-effort and
 * the namespaces, the plan still gives the view its writable places and
 * a cover for every denied path that exists, under a grant or not. */
Test(landlock_plan, no_landlock_best_effort_keeps_the_view_and_the_covers)
{
	struct spec s[] = {
		{ P("A"), IR_MODE_R, false },
		{ P("A/secret"), IR_MODE_DENY, false },
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/x"), IR_MODE_DENY, false },
		{ P("missing"), IR_MODE_DENY, false },
	};
	struct ll_launch l = { .cwd = root, .mountns = true };
	struct ll_report rep = { 0 };
	struct ll_plan plan;
	struct table t;
	char err[2048];
	bool secret = false, x = false;

	table_build(&t, s, 5, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, 0, false, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "unavailable") && strstr(err, "--best-effort"), "%s", err);
	cr_assert_eq(ll_plan_build(&t.view, &l, 0, true, &plan, &rep, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(plan.abi, 0);
	cr_assert_eq(plan.dg.weakenings, LL_WEAK_NO_LANDLOCK);
	cr_assert(report_has(&rep, LL_LINE_WEAKENING, "not confined to the grants"));
	cr_assert_not_null(plan_find(&plan, P("T2/W")), "the writable place for the view");
	for (size_t i = 0; i < plan.nmounts; i++) {
		secret |= strcmp(plan.mounts[i].deny, P("A/secret")) == 0;
		x |= strcmp(plan.mounts[i].deny, P("T2/x")) == 0;
		cr_assert(!strstr(plan.mounts[i].deny, "missing"));
	}
	cr_assert(secret && x, "every existing deny covered (beneath a grant: %d, not: %d)", secret,
		  x);
	cr_assert_eq(ll_plan_enforce(&plan, err, sizeof(err)), 0, "ABI 0: nothing to enforce");
	ll_plan_free(&plan);
	ll_report_free(&rep);

	/* Without namespaces either: nothing would confine writes. */
	l.mountns = false;
	cr_assert_eq(ll_plan_build(&t.view, &l, 0, true, &plan, NULL, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "even with --best-effort"), "%s", err);
	free(t.bytes);
}

Test(landlock_plan, proxy_port_must_match_the_policy)
{
	struct spec s[] = { { P("A"), IR_MODE_R, false } };
	struct ll_launch l = { .cwd = root };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	table_build(&t, s, 1, true);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -EINVAL);
	l.proxy_port = 3128;
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), 0);
	cr_assert_eq(plan.proxy_port, 3128);
	ll_plan_free(&plan);
	free(t.bytes);
	table_build(&t, s, 1, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err, sizeof(err)), -EINVAL);
	free(t.bytes);
}

/* In the sandbox's own network namespace no network right is handled:
 * its loopback servers need bind and connect on any port, and the
 * namespace is the wall. The plan says so, so that a launch without the
 * namespace never reuses it. */
Test(landlock_plan, network_namespace_handles_no_network_right)
{
	struct spec s[] = { { P("A"), IR_MODE_R, false } };
	struct ll_launch l = { .cwd = root, .proxy_port = 3128, .mountns = true, .netns = true };
	struct ll_plan plan;
	struct table t;
	char err[1024];

	for (int proxied = 0; proxied < 2; proxied++) {
		table_build(&t, s, 1, proxied);
		l.proxy_port = proxied ? 3128 : 0;
		l.netns = true;
		cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err,
					   sizeof(err)), 0, "%s", err);
		cr_assert_eq(plan.dg.eff.net, 0);
		cr_assert_eq(plan.proxy_port, 0, "no port rule: the namespace holds");
		cr_assert(plan.net_unhandled);
		ll_plan_free(&plan);
		l.netns = false;
		cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, false, &plan, NULL, err,
					   sizeof(err)), 0, "%s", err);
		cr_assert_neq(plan.dg.eff.net & LL_NET_CONNECT_TCP, 0);
		cr_assert_eq(plan.proxy_port, proxied ? 3128 : 0);
		cr_assert_not(plan.net_unhandled);
		ll_plan_free(&plan);
		free(t.bytes);
	}
}

/* ------------------------------------------------------------ live */

static int report_fd = -1;
static int nfail;

__attribute__((format(printf, 2, 3))) static void
check(bool ok, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (ok)
		return;
	nfail++;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(report_fd, line, (size_t)n) < 0)
		_exit(3);
}

static int
try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Runs `path` in a grandchild; returns its exit status, or 1000+errno
 * when execve itself failed. */
static int
run(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	char *envp[] = { NULL };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execve(path, argv, envp);
		_exit(errno >= 0 && errno < 200 ? 100 + errno : 99);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) >= 100 ? 1000 + WEXITSTATUS(status) - 100 : WEXITSTATUS(status);
}

static void
live_tree(void)
{
	make_root();
	mkd("A", 0777);
	mkf("A/file", "hello", 0666);
	mkf("A/other", "other", 0666);
	mkf("A/secret", "secret", 0666);
	mkd("B", 0777);
	copy_file("/usr/bin/true", "B/true", 0777);
	mkf("B/s.sh", "#!/bin/sh\nexit 0\n", 0777);
	mkd("C", 0777);
	copy_file("/usr/bin/true", "C/true", 0755);
	mkd("D", 0777);
	mkf("D/file", "d", 0666);
	mkd("W", 0777);
	copy_file("/usr/bin/true", "W/true", 0777);
	cr_assert_eq(symlink("A", P("lnk")), 0);
}

/* Drops to uid/gid 65534 when asked; root hides permission bugs. */
static void
become(uid_t uid)
{
	if (!uid)
		return;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		check(false, "cannot become uid %u: %s", (unsigned)uid, strerror(errno));
		_exit(0);
	}
}

/* The launcher's Landlock steps in one call (heel-exec spreads them over
 * the launch): plan for `abi`, enforce. Without a mount namespace
 * (l->mountns false, as in every caller here) a plan has no mount
 * requests to make. */
static int
apply(const struct ll_table_view *t, const struct ll_launch *l, int abi, bool best_effort,
      struct ll_report *rep, char *err, size_t errlen)
{
	struct ll_plan plan;
	int rc;

	rc = ll_plan_build(t, l, abi, best_effort, &plan, rep, err, errlen);
	if (rc)
		return rc;
	cr_assert_eq(plan.nmounts, 0, "mount requests without a mount namespace");
	rc = ll_plan_enforce(&plan, err, errlen);
	ll_plan_free(&plan);
	return rc;
}

static void
live_checks(const struct table *t, int abi, uint16_t port)
{
	char buf[16] = "";
	char err[1024] = "";
	struct ll_report rep = { .want_applied = true };
	struct ll_launch l = { .cwd = root, .workdir = P("W") };
	struct sockaddr_in sa;
	int fd, rc, s;

	rc = apply(&t->view, &l, abi, abi < 10, &rep, err, sizeof(err));
	ll_report_free(&rep);
	if (rc) {
		check(false, "apply: %d %s", rc, err);
		return;
	}
	fd = open(P("A/file"), O_RDONLY | O_CLOEXEC);
	check(fd >= 0 && read(fd, buf, sizeof(buf)) == 5 && memcmp(buf, "hello", 5) == 0,
	      "read A/file: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	check(try_open(P("A/file"), O_WRONLY) == -EACCES, "write A/file not EACCES");
	check(try_open(P("A/secret"), O_RDONLY) == -EACCES, "read A/secret (denied) not EACCES");
	check(try_open(P("A/other"), O_RDONLY) == 0, "read A/other (sibling of a deny) failed");
	check(try_open(P("A"), O_RDONLY | O_DIRECTORY) == 0, "list A failed");
	check(try_open(P("B/x"), O_WRONLY | O_CREAT) == 0, "create B/x failed");
	check(try_open(P("W/x"), O_WRONLY | O_CREAT) == 0, "create in the workdir failed");
	check(mkfifo(P("B/fifo"), 0600) == 0, "mkfifo in B: %s", strerror(errno));
	check(mknod(P("B/null"), S_IFCHR | 0666, makedev(1, 3)) < 0, "mknod char in B succeeded");
	check(run(P("B/true")) == 1000 + EACCES, "exec B/true (writable) not EACCES: %d",
	      run(P("B/true")));
	check(run(P("B/s.sh")) == 1000 + EACCES, "exec B/s.sh (writable) not EACCES");
	check(run(P("W/true")) == 1000 + EACCES, "exec in the workdir not EACCES");
	check(run(P("C/true")) == 0, "exec C/true (rwx) failed: %d", run(P("C/true")));
	check(try_open(P("D/file"), O_RDONLY) == -EACCES, "read D/file (ungranted) not EACCES");
	check(rename(P("A/other"), P("B/other")) < 0 && (errno == EACCES || errno == EXDEV),
	      "rename out of a read-only grant");
	if (abi >= 3)
		check(truncate(P("A/file"), 0) < 0 && errno == EACCES, "truncate A/file not EACCES");
	if (abi >= 4) {
		s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons(port);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		rc = connect(s, (struct sockaddr *)&sa, sizeof(sa));
		check(rc < 0 && errno == EACCES, "TCP connect to 127.0.0.1:%u not EACCES (%s)", port,
		      rc ? strerror(errno) : "connected");
		close(s);
	}
	if (abi >= 6)
		check(kill(getppid(), 0) < 0 && errno == EPERM,
		      "signal to a process outside the sandbox not EPERM");
}

/* Forks, runs `fn` in the child with a pipe for failures, and asserts
 * the child reported none. */
static void
in_child(uid_t uid, void (*fn)(const struct table *, int, uint16_t), const struct table *t,
	 int abi, uint16_t port)
{
	char out[8192];
	size_t len = 0;
	ssize_t n;
	int pfd[2], status;
	pid_t pid;

	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		report_fd = pfd[1];
		become(uid);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			check(false, "no_new_privs: %s", strerror(errno));
			_exit(0);
		}
		fn(t, abi, port);
		_exit(0);
	}
	close(pfd[1]);
	while (len < sizeof(out) - 1 && (n = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pfd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child died: status 0x%x", status);
	cr_assert_eq(len, 0, "uid %u:\n%s", (unsigned)uid, out);
}

static int
listen_loopback(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_geq(s, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(s, 4), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&sa, &slen), 0);
	*port = ntohs(sa.sin_port);
	return s;
}

static void
live(uid_t uid)
{
	int abi = ll_probe_abi();
	uint16_t port;
	struct table t;
	int s;

	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", ll_probe_message(abi));
	if (uid && geteuid() != 0)
		cr_skip_test("needs root to switch to uid %u", (unsigned)uid);
	live_tree();
	{
		struct spec spec[] = {
			{ P("A"), IR_MODE_R, false },
			{ P("A/secret"), IR_MODE_DENY, false },
			{ P("B"), IR_MODE_RW, false },
			{ P("C"), IR_MODE_RWX, false },
			{ "/usr", IR_MODE_RX, false },
			{ "/lib64", IR_MODE_RX, true },
			{ "/etc", IR_MODE_R, false },
		};

		table_build(&t, spec, sizeof(spec) / sizeof(spec[0]), false);
	}
	s = listen_loopback(&port);
	/* The control: the same connect works unrestricted. */
	{
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		cr_assert_eq(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(c);
		cr_assert_eq(try_open(P("D/file"), O_RDONLY), 0, "control: D/file readable");
	}
	in_child(uid, live_checks, &t, abi, port);
	close(s);
	free(t.bytes);
	remove_root();
}

Test(landlock_live, enforced_as_root)
{
	live(0);
}

Test(landlock_live, enforced_as_nobody)
{
	live(65534);
}

static void
link_checks(const struct table *t, int abi, uint16_t optional)
{
	char err[1024] = "";
	struct ll_launch l = { .cwd = root };
	int rc;

	rc = apply(&t->view, &l, abi, abi < 10, NULL, err, sizeof(err));
	if (!optional) {
		check(rc == -ELOOP, "a grant that is a link: rc %d", rc);
		check(strstr(err, P("lnk")) != NULL, "message does not name the link: %s", err);
		/* Refused before restrict_self: still unrestricted. */
		check(try_open(P("D/file"), O_RDONLY) == 0, "restricted although refused");
	} else {
		check(rc == 0, "optional link grant: %d %s", rc, err);
		check(try_open(P("D/file"), O_RDONLY) == -EACCES, "not restricted after apply");
		check(try_open(P("A/file"), O_RDONLY) == -EACCES, "the link was followed");
	}
}

static void
live_link(uid_t uid)
{
	int abi = ll_probe_abi();
	struct table t;

	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", ll_probe_message(abi));
	live_tree();
	{
		struct spec req[] = { { P("lnk"), IR_MODE_R, false }, { P("B"), IR_MODE_RW, false } };
		struct spec opt[] = { { P("lnk"), IR_MODE_R, true }, { P("B"), IR_MODE_RW, false } };

		table_build(&t, req, 2, false);
		in_child(uid, link_checks, &t, abi, 0);
		free(t.bytes);
		table_build(&t, opt, 2, false);
		in_child(uid, link_checks, &t, abi, 1);
		free(t.bytes);
	}
	remove_root();
}

Test(landlock_live, symlink_grant_refused_before_restrict_as_root)
{
	live_link(0);
}

Test(landlock_live, symlink_grant_refused_before_restrict_as_nobody)
{
	live_link(65534);
}

/* A carve-out's siblings are opened when the plan is enforced, relative
 * to the directory listed: what changed between planning and enforcing
 * never widens the sandbox. A sibling removed gets no rule; a directory
 * now a file gets none (directory rights on a file would fail the
 * rule); a file swapped for a link to an ungranted file is not followed. */
static void
stale_checks(const struct table *t, int abi, uint16_t port)
{
	struct ll_launch l = { .cwd = root };
	struct ll_plan plan;
	char err[1024] = "";
	int rc;

	(void)port;
	rc = ll_plan_build(&t->view, &l, abi, abi < 10, &plan, NULL, err, sizeof(err));
	if (rc) {
		check(false, "plan: %d %s", rc, err);
		return;
	}
	check(plan.nanchors == 1 && plan.rules[1].fd < 0, "siblings held open: %zu anchors",
	      plan.nanchors);
	check(unlink(P("A/gone")) == 0, "unlink A/gone: %s", strerror(errno));
	check(rmdir(P("A/wasdir")) == 0, "rmdir A/wasdir: %s", strerror(errno));
	check(mknod(P("A/wasdir"), S_IFREG | 0644, 0) == 0, "A/wasdir a file: %s", strerror(errno));
	check(unlink(P("A/swapped")) == 0, "unlink A/swapped: %s", strerror(errno));
	check(symlink(P("D/file"), P("A/swapped")) == 0, "link A/swapped: %s", strerror(errno));
	rc = ll_plan_enforce(&plan, err, sizeof(err));
	ll_plan_free(&plan);
	check(rc == 0, "enforce: %d %s", rc, err);
	check(try_open(P("A/file"), O_RDONLY) == 0, "read A/file (a sibling) failed");
	check(try_open(P("A/secret"), O_RDONLY) == -EACCES, "read A/secret (denied) not EACCES");
	check(try_open(P("A/swapped"), O_RDONLY) == -EACCES,
	      "the link put in a sibling's place was followed to D/file");
	check(try_open(P("D/file"), O_RDONLY) == -EACCES, "read D/file (ungranted) not EACCES");
	check(try_open(P("A/wasdir"), O_RDONLY) == -EACCES, "A/wasdir (now a file) granted");
}

static void
live_stale(uid_t uid)
{
	int abi = ll_probe_abi();
	struct table t;

	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", ll_probe_message(abi));
	live_tree();
	mkf("A/gone", "gone", 0666);
	mkd("A/wasdir", 0777);
	mkf("A/swapped", "swapped", 0666);
	{
		struct spec spec[] = { { P("A"), IR_MODE_R, false },
				       { P("A/secret"), IR_MODE_DENY, false } };

		table_build(&t, spec, 2, false);
	}
	/* The control: D/file and the link to it are readable unconfined. */
	cr_assert_eq(try_open(P("D/file"), O_RDONLY), 0);
	in_child(uid, stale_checks, &t, abi, 0);
	free(t.bytes);
	remove_root();
}

Test(landlock_live, siblings_changed_since_planning_as_root)
{
	live_stale(0);
}

Test(landlock_live, siblings_changed_since_planning_as_nobody)
{
	live_stale(65534);
}

/* A deny inside a writable grant, Landlock alone (--best-effort): the
 * deny holds against read, write, rename, unlink and replacement; its
 * siblings keep the grant; the spine directories lose create/remove. */
static void
writable_checks(const struct table *t, int abi, uint16_t unused)
{
	char err[1024] = "";
	struct ll_report rep = { .want_applied = true };
	struct ll_launch l = { .cwd = root };
	int rc;

	rc = apply(&t->view, &l, abi, true, &rep, err, sizeof(err));
	check(rc == 0, "apply: %d %s", rc, err);
	check(rep.weakenings & LL_WEAK_MOUNTNS, "no mount-namespace weakening reported");
	ll_report_free(&rep);
	if (rc)
		return;
	check(try_open(P("B/sub/secret"), O_RDONLY) == -EACCES, "read the deny");
	check(try_open(P("B/sub/secret"), O_WRONLY) == -EACCES, "write the deny");
	check(unlink(P("B/sub/secret")) < 0, "unlink the deny");
	check(rename(P("B/sub/secret"), P("B/sub/moved")) < 0, "rename the deny");
	check(rename(P("B/sub"), P("B/sub2")) < 0, "rename the deny's parent");
	check(try_open(P("B/sub/planted"), O_WRONLY | O_CREAT) == -EACCES,
	      "create beside the deny");
	check(try_open(P("B/new"), O_WRONLY | O_CREAT) == -EACCES, "create in the spine");
	check(try_open(P("B/sub"), O_RDONLY | O_DIRECTORY) == 0, "list the deny's parent");
	check(try_open(P("B/sub/ok"), O_RDWR) == 0, "read+write a sibling file");
	check(try_open(P("B/other/new"), O_WRONLY | O_CREAT) == 0, "create in a sibling dir");
	check(run(P("B/true")) == 1000 + EACCES, "exec in a writable sibling");
}

static void
live_writable(uid_t uid)
{
	int abi = ll_probe_abi();
	struct table t;

	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", ll_probe_message(abi));
	live_tree();
	mkd("B/sub", 0777);
	mkf("B/sub/secret", "s", 0666);
	mkf("B/sub/ok", "ok", 0666);
	mkd("B/other", 0777);
	{
		struct spec spec[] = {
			{ P("B"), IR_MODE_RW, false },
			{ P("B/sub/secret"), IR_MODE_DENY, false },
		};

		table_build(&t, spec, 2, false);
	}
	in_child(uid, writable_checks, &t, abi, 0);
	free(t.bytes);
	remove_root();
}

Test(landlock_live, deny_in_writable_grant_landlock_only_as_root)
{
	live_writable(0);
}

Test(landlock_live, deny_in_writable_grant_landlock_only_as_nobody)
{
	live_writable(65534);
}

/* A descriptor the command inherits, reopened by /proc/self/fd/N: a rule
 * on its very inode with the descriptor's rights (ll_plan_add_fd), and
 * nothing beside it; a pipe takes no rule and needs none. A mount of the
 * launcher's own over a granted directory (ll_plan_replace_mount): the
 * rules at and beneath it go, the new rule holds. */
static void
inherited_checks(const struct table *t, int abi, uint16_t unused)
{
	struct ll_launch l = { .cwd = root };
	int wfd = open(P("D/file"), O_WRONLY | O_APPEND | O_CLOEXEC), pfd[2] = { -1, -1 };
	char err[1024] = "", self[64];
	struct ll_plan plan;
	int rc;

	check(wfd >= 0 && pipe2(pfd, O_CLOEXEC) == 0, "setup: %s", strerror(errno));
	rc = ll_plan_build(&t->view, &l, abi, true, &plan, NULL, err, sizeof(err));
	check(rc == 0, "plan: %d %s", rc, err);
	if (rc)
		return;
	rc = ll_plan_add_fd(&plan, wfd, LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_READ_DIR,
			    "standard output", err, sizeof(err));
	check(rc == 0, "add_fd on a file: %d %s", rc, err);
	rc = ll_plan_add_fd(&plan, pfd[1], LL_FS_WRITE_FILE, "standard error", err, sizeof(err));
	check(rc == 0, "add_fd on a pipe: %d %s", rc, err);
	check(ll_plan_add_fd(&plan, open(P("A"), O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			     LL_FS_READ_FILE, "a directory", err, sizeof(err)) == -EISDIR,
	      "add_fd took a directory");
	rc = ll_plan_replace_mount(&plan, P("B"), LL_FS_READ_FILE | LL_FS_READ_DIR, "B's mount",
				   err, sizeof(err));
	check(rc == 0, "replace_mount: %d %s", rc, err);
	for (size_t i = 0; i < plan.nrules; i++)
		check(!px_beneath(plan.rules[i].path, P("B")), "a rule beneath B stayed: %s",
		      plan.rules[i].path);
	rc = ll_plan_enforce(&plan, err, sizeof(err));
	check(rc == 0, "enforce: %d %s", rc, err);
	ll_plan_free(&plan);
	if (rc)
		return;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", wfd);
	check(try_open(self, O_WRONLY) == 0, "reopen the write-only descriptor for writing");
	check(try_open(self, O_RDONLY) == -EACCES, "reopened a write-only descriptor for reading");
	check(try_open(P("D/other"), O_WRONLY | O_CREAT) == -EACCES, "created beside the file");
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd[1]);
	check(try_open(self, O_WRONLY) == 0, "reopen the pipe");
	check(try_open(P("B/s.sh"), O_RDONLY) == 0, "read in the replaced mount");
	check(try_open(P("B/s.sh"), O_WRONLY) == -EACCES, "the grant B had (rw) outlived its replacement");
}

static void
live_inherited(uid_t uid)
{
	int abi = ll_probe_abi();
	struct table t;

	if (abi < 1)
		cr_skip_test("Landlock unavailable: %s", ll_probe_message(abi));
	if (uid && geteuid() != 0)
		cr_skip_test("needs root to switch to uid %u", (unsigned)uid);
	live_tree();
	{
		struct spec spec[] = {
			{ P("A"), IR_MODE_R, false },
			{ P("B"), IR_MODE_RW, false },
			{ "/proc", IR_MODE_R, false },
		};

		table_build(&t, spec, 3, false);
	}
	in_child(uid, inherited_checks, &t, abi, 0);
	free(t.bytes);
	remove_root();
}

Test(landlock_live, inherited_descriptors_and_replaced_mount_as_root)
{
	live_inherited(0);
}

Test(landlock_live, inherited_descriptors_and_replaced_mount_as_nobody)
{
	live_inherited(65534);
}

/* A launch that prints only weakenings asks for nothing else: the plan
 * is the same, the skipped and informative lines are not formatted, the
 * weakenings still are. */
Test(landlock_plan, weakenings_only_report_keeps_the_plan)
{
	struct spec s[] = {
		{ P("T2"), IR_MODE_R, false },
		{ P("T2/W"), IR_MODE_RW, false },
		{ P("T2/W/s"), IR_MODE_DENY, false },
		{ P("lnk"), IR_MODE_R, true },
		{ "${HEEL_TEST_UNSET_VARIABLE}/x", IR_MODE_R, true },
	};
	struct ll_launch l = { .cwd = root };
	struct ll_report full = { 0 }, quiet = { .weakenings_only = true };
	struct ll_plan a, b;
	struct table t;
	char err[1024];

	table_build(&t, s, 5, false);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &a, &full, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ll_plan_build(&t.view, &l, LL_ABI_MAX, true, &b, &quiet, err, sizeof(err)), 0, "%s", err);
	cr_assert(report_has(&full, LL_LINE_SKIPPED, "symbolic link, skipped (optional)"));
	cr_assert(report_has(&full, LL_LINE_SKIPPED, "is not set"));
	cr_assert(report_has(&quiet, LL_LINE_WEAKENING, "no mount namespace"));
	for (size_t i = 0; i < quiet.nlines; i++)
		cr_assert_eq(quiet.lines[i].kind, LL_LINE_WEAKENING, "%s", quiet.lines[i].text);
	cr_assert_eq(a.nrules, b.nrules);
	for (size_t i = 0; i < a.nrules; i++) {
		cr_assert_str_eq(a.rules[i].path, b.rules[i].path);
		cr_assert_eq(a.rules[i].access, b.rules[i].access);
		cr_assert_eq(a.rules[i].kind, b.rules[i].kind);
	}
	ll_plan_free(&a);
	ll_plan_free(&b);
	ll_report_free(&full);
	ll_report_free(&quiet);
	free(t.bytes);
}

/* The launcher's plan is reused by the command, which only adds the
 * working directory: allowed when nothing needs carving for it, -EAGAIN
 * (plan again) when a rule lies beneath it or an ancestor grant would
 * hand it a right it must not have (execute above all). */
static int
add_workdir_under(const char *ancestor, uint64_t access, const char *workdir)
{
	struct ll_plan p = { .abi = 7 };
	char err[256];
	int rc;

	p.dg.eff.fs = ~0ull;
	p.rules = calloc(1, sizeof(*p.rules));
	p.rules_cap = 1;
	p.rules[0] = (struct ll_plan_rule){ .path = strdup(ancestor), .fd = -1,
					    .access = access, .kind = LL_PK_GRANT, .is_dir = true };
	p.nrules = 1;
	rc = ll_plan_add_workdir(&p, workdir, err, sizeof(err));
	if (rc == 0) {
		cr_assert_eq(p.nrules, 2);
		cr_assert_str_eq(p.rules[1].path, workdir);
		cr_assert_eq(p.rules[1].kind, LL_PK_WORKDIR);
		cr_assert_geq(p.rules[1].fd, 0);
		cr_assert_eq(p.rules[1].access & LL_FS_EXECUTE, 0);
	}
	ll_plan_free(&p);
	return rc;
}

Test(landlock_plan, workdir_joins_the_plan_unless_it_needs_carving)
{
	cr_assert_eq(add_workdir_under(P("A"), RF | RD, P("A/subdir2")), 0, "under a read grant");
	cr_assert_eq(add_workdir_under(P("T2"), RW_DIR | RF | RD, P("T2/W")), 0,
		     "under a writable grant");
	cr_assert_eq(add_workdir_under(P("A"), RF | RD | LL_FS_IOCTL_DEV, P("A/subdir2")), 0,
		     "under a device grant (IOCTL_DEV cannot reach a device node there)");
	cr_assert_eq(add_workdir_under(P("A"), RF | RD | LL_FS_EXECUTE, P("A/subdir2")), -EAGAIN,
		     "an executable ancestor would make the workdir executable");
	cr_assert_eq(add_workdir_under(P("A/sub"), RF | RD, P("A")), -EAGAIN,
		     "a rule beneath the workdir");
	cr_assert_eq(add_workdir_under(P("A"), RF | RD, P("A")), -EAGAIN, "a rule on the workdir");
	cr_assert_eq(add_workdir_under(P("T2"), RF | RD, P("lnk/subdir2")), -ELOOP,
		     "a workdir through a link");
}

/* ---------------------------------------------------------------- model
 * Random trees and random grants and denies, checked against what the
 * policy means: every existing file gets exactly the rights of the most
 * specific rule above it (or none under a deny), as the union of the
 * plan's rules on it and its ancestors, which is what Landlock computes.
 * Names collide by prefix ("a", "ab", "a-b", "a.b") to stress the
 * carve-out walk's name matching and the path order; links between
 * directories carry denies to where they lead. */

#define MODEL_NODES 40
#define MODEL_RULES 6

static const char *const model_names[] = { "a", "ab", "a-b", "a.b", "b" };

struct model_node {
	char rel[128];
	bool dir;
	bool link;                 /* a symbolic link to another directory of the tree */
};

static unsigned
model_rand(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 16) & 0x7fff;
}

/* A tree of up to MODEL_NODES nodes under `base`, three levels deep. */
static size_t
model_tree(const char *base, unsigned *seed, struct model_node *nodes)
{
	size_t n = 0;

	mkd(base, 0755);
	snprintf(nodes[n].rel, sizeof(nodes[n].rel), "%s", base);
	nodes[n++].dir = true;
	for (size_t i = 0; i < n && n < MODEL_NODES; i++) {
		size_t depth = 0;

		if (!nodes[i].dir)
			continue;
		for (const char *c = nodes[i].rel + strlen(base); *c; c++)
			depth += *c == '/';
		if (depth >= 3)
			continue;
		for (size_t k = 0; k < 5 && n < MODEL_NODES; k++) {
			if (model_rand(seed) % 3 == 0)
				continue;
			snprintf(nodes[n].rel, sizeof(nodes[n].rel), "%.100s/%s", nodes[i].rel,
				 model_names[k]);
			nodes[n].dir = model_rand(seed) % 2;
			nodes[n].link = false;
			if (nodes[n].dir)
				mkd(nodes[n].rel, 0755);
			else
				mkf(nodes[n].rel, "x", 0644);
			n++;
		}
	}
	/* A few links from one directory to another (even to an ancestor):
	 * a deny through one protects what it leads to. */
	for (int k = 0; k < 3 && n < MODEL_NODES; k++) {
		const struct model_node *from = &nodes[model_rand(seed) % n];
		const struct model_node *to = &nodes[model_rand(seed) % n];
		char dir[128];

		if (!from->dir || from->link || !to->dir || to->link)
			continue;
		memcpy(dir, from->rel, sizeof(dir));
		snprintf(nodes[n].rel, sizeof(nodes[n].rel), "%.100s/l%d", dir, k);
		cr_assert_eq(symlink(P(to->rel), P(nodes[n].rel)), 0);
		nodes[n].dir = false;
		nodes[n].link = true;
		n++;
	}
	return n;
}

/* Where a deny leads: its longest existing prefix resolved, the rest as
 * written (what the policy means by denying a path through a link). */
static void
model_resolve(const char *path, char *out)
{
	char prefix[PATH_MAX], real[PATH_MAX];
	char *slash;

	snprintf(prefix, sizeof(prefix), "%s", path);
	while (!realpath(prefix, real)) {
		slash = strrchr(prefix, '/');
		cr_assert(slash && slash != prefix);
		*slash = '\0';
	}
	cr_assert_lt(snprintf(out, PATH_MAX, "%s%s", real, path + strlen(prefix)), PATH_MAX);
}

/* Is `path` `dir` itself or beneath it? */
static bool
model_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static uint64_t
model_effective(const struct ll_plan *p, const char *path)
{
	uint64_t a = 0;

	for (size_t i = 0; i < p->nrules; i++)
		if (model_under(path, p->rules[i].path))
			a |= p->rules[i].access;
	return a;
}

/* The most specific spec at or above `path`, or -1. On one path a grant
 * beats a deny (a deny through a link may land on a granted path). */
static int
model_rule(const struct spec *s, size_t ns, const char *path)
{
	int best = -1;
	size_t best_len = 0;

	for (size_t i = 0; i < ns; i++) {
		size_t n = strlen(s[i].path);

		if (!model_under(path, s[i].path))
			continue;
		if (best < 0 || n > best_len ||
		    (n == best_len && s[best].mode == IR_MODE_DENY && s[i].mode != IR_MODE_DENY)) {
			best = (int)i;
			best_len = n;
		}
	}
	return best;
}

static bool
model_covered(const struct ll_plan *p, const char *path)
{
	for (size_t i = 0; i < p->nmounts; i++)
		if (model_under(path, p->mounts[i].deny))
			return true;
	return false;
}

/* The plan on the real kernel: a child enforces it and opens every file
 * for reading and for writing; each must succeed exactly when the model
 * says so. Root's DAC override leaves Landlock the only judge. Returns
 * 0, or 1 + the index of the first file that disagreed. */
static int
model_live(const struct ll_plan *plan, const struct spec *meant, size_t ns,
	   const struct model_node *nodes, size_t nn)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[256];

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    ll_plan_enforce(plan, err, sizeof(err)) < 0)
			_exit(255);
		for (size_t i = 0; i < nn && i < 200; i++) {
			int r = model_rule(meant, ns, P(nodes[i].rel)), rd, wr;
			uint64_t want;

			if (nodes[i].dir || nodes[i].link)
				continue;
			want = r < 0 || meant[r].mode == IR_MODE_DENY ? 0 :
			       ll_mode_access(meant[r].mode, false) & plan->dg.eff.fs;
			rd = open(P(nodes[i].rel), O_RDONLY | O_CLOEXEC);
			wr = open(P(nodes[i].rel), O_WRONLY | O_CLOEXEC);
			if ((rd >= 0) != !!(want & LL_FS_READ_FILE) ||
			    (wr >= 0) != !!(want & LL_FS_WRITE_FILE))
				_exit(1 + (int)i);
			if (rd >= 0)
				close(rd);
			if (wr >= 0)
				close(wr);
		}
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* What a failing round had, to reproduce it by hand. */
static void
model_dump(const struct spec *s, const struct spec *meant, size_t ns,
	   const struct model_node *nodes, size_t nn, const struct ll_plan *plan)
{
	for (size_t k = 0; k < ns; k++)
		cr_log_error("spec %zu: %s mode %u, meant at %s", k, s[k].path, s[k].mode,
			     meant[k].path);
	for (size_t k = 0; k < nn; k++)
		cr_log_error("node %s%s%s", nodes[k].rel, nodes[k].dir ? "/" : "",
			     nodes[k].link ? " (link)" : "");
	for (size_t k = 0; k < plan->nrules; k++)
		cr_log_error("rule %s 0x%llx kind %d", plan->rules[k].path,
			     (unsigned long long)plan->rules[k].access, plan->rules[k].kind);
	for (size_t k = 0; k < plan->nmounts; k++)
		cr_log_error("mount over %s", plan->mounts[k].deny);
}

Test(landlock_plan, random_trees_match_the_model, .timeout = 120)
{
	static const unsigned modes[] = { IR_MODE_R, IR_MODE_RW, IR_MODE_RX, IR_MODE_DENY };
	unsigned seed = 20261129u;
	size_t checked = 0, plans = 0, live_rounds = 0;
	bool live_ok = ll_probe_abi() >= 1 && geteuid() == 0;
	/* Planned for the running kernel: its rules are also enforced. */
	int model_abi = ll_probe_abi() >= 1 ? ll_probe_abi() : LL_ABI_MAX;

	for (int round = 0; round < 400; round++) {
		struct model_node nodes[MODEL_NODES];
		struct spec s[MODEL_RULES];
		char base[32], paths[MODEL_RULES][PATH_MAX];
		size_t nn, ns = 0;

		snprintf(base, sizeof(base), "M%d", round);
		nn = model_tree(base, &seed, nodes);
		/* The root of the tree is always granted (something to carve);
		 * then distinct random nodes or missing names beneath them. */
		cr_assert_lt(snprintf(paths[0], PATH_MAX, "%s", P(base)), PATH_MAX);
		s[ns++] = (struct spec){ paths[0], model_rand(&seed) % 2 ? IR_MODE_R : IR_MODE_RW, false };
		for (int tries = 0; ns < MODEL_RULES && tries < 50; tries++) {
			const struct model_node *nd = &nodes[model_rand(&seed) % nn];
			unsigned mode = nd->link ? IR_MODE_DENY : modes[model_rand(&seed) % 4];
			bool below = mode == IR_MODE_DENY && (nd->dir || nd->link) &&
				     model_rand(&seed) % 3 == 0;
			bool dup = false;

			/* Grants only on real paths (a link in a grant is
			 * refused); denies also on, or through, a link, and
			 * below a directory: "zz" is missing, the model names
			 * may exist. */
			cr_assert_lt(snprintf(paths[ns], PATH_MAX, "%s%s%s", P(nd->rel), below ? "/" : "",
					      below ? (model_rand(&seed) % 2 ? "zz" :
						       model_names[model_rand(&seed) % 5]) : ""),
				     PATH_MAX);
			for (size_t k = 0; k < ns; k++)
				dup |= strcmp(paths[k], paths[ns]) == 0;
			if (dup)
				continue;
			s[ns] = (struct spec){ paths[ns], mode, false };
			ns++;
		}
		/* The model's view: each deny where it leads. */
		struct spec meant[MODEL_RULES];
		char resolved[MODEL_RULES][PATH_MAX];

		for (size_t k = 0; k < ns; k++) {
			meant[k] = s[k];
			if (s[k].mode == IR_MODE_DENY) {
				model_resolve(s[k].path, resolved[k]);
				meant[k].path = resolved[k];
			}
		}
		for (int with_cover = 0; with_cover < 2; with_cover++) {
			struct ll_launch l = { .cwd = root, .mountns = with_cover };
			struct ll_plan plan;
			struct table t;
			char err[1024];
			int rc;

			table_build(&t, s, ns, false);
			rc = ll_plan_build(&t.view, &l, model_abi, true, &plan, NULL, err, sizeof(err));
			cr_assert_eq(rc, 0, "round %d: %s", round, err);
			plans++;
			for (size_t i = 0; i < nn; i++) {
				const char *path = P(nodes[i].rel);
				int r = model_rule(meant, ns, path);
				uint64_t eff = model_effective(&plan, path) & LL_FS_FILE_RIGHTS, want;

				if (nodes[i].dir || nodes[i].link)
					continue;
				want = r < 0 || meant[r].mode == IR_MODE_DENY ? 0 :
				       ll_mode_access(meant[r].mode, false) & LL_FS_FILE_RIGHTS &
				       plan.dg.eff.fs;
				/* A covered deny is hidden by its mount, not by
				 * Landlock: nothing to see in the rules. */
				if (want == 0 && with_cover && model_covered(&plan, path))
					continue;
				if (eff != want)
					model_dump(s, meant, ns, nodes, nn, &plan);
				cr_assert_eq(eff, want,
					     "round %d%s: %s has 0x%llx, the policy means 0x%llx "
					     "(rule %d)", round, with_cover ? " (covers)" : "", path,
					     (unsigned long long)eff, (unsigned long long)want, r);
				checked++;
			}
			/* The first rounds also on the real kernel. */
			if (!with_cover && round < 80 && live_ok) {
				int bad = model_live(&plan, meant, ns, nodes, nn);

				if (bad)
					model_dump(s, meant, ns, nodes, nn, &plan);
				cr_assert_eq(bad, 0, "round %d: enforced, %s", round,
					     bad == 255 ? "restrict failed" : P(nodes[bad - 1].rel));
				live_rounds++;
			}
			ll_plan_free(&plan);
			free(t.bytes);
		}
	}
	cr_log_info("%zu plans, %zu file checks, %zu rounds enforced on the kernel", plans,
		    checked, live_rounds);
	cr_assert_gt(checked, 1000);
}

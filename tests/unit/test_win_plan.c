/* SPDX-License-Identifier: MIT
 * Planning a Windows launch (runtime/win_plan.c, runtime/win_cmdline.c):
 * which paths the launcher will accept, which denies it writes (only
 * where a grant reaches), how entries on one path merge, how argv is
 * quoted for the child's C runtime and how the environment block is
 * built and sorted. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "win_cmdline.h"
#include "win_plan.h"

#define SID "S-1-15-2-1-2-3-4-5-6-7"

/* ------------------------------------------------------------ paths */

static const char *
norm(const char *in)
{
	static char out[WIN_PATH_MAX];
	char err[256] = "";
	int rc = win_path_normalize(in, out, sizeof(out), err, sizeof(err));

	cr_assert_eq(rc, 0, "%s: %s", in, err);
	return out;
}

Test(win_plan, normalises_drive_paths)
{
	cr_assert_str_eq(norm("C:\\Users\\me\\src"), "C:\\Users\\me\\src");
	cr_assert_str_eq(norm("c:/Users/me/src/"), "C:\\Users\\me\\src");
	cr_assert_str_eq(norm("C:\\\\a\\.\\b\\\\"), "C:\\a\\b");
	cr_assert_str_eq(norm("C:\\"), "C:\\");
	cr_assert_str_eq(norm("d:/"), "D:\\");
	cr_assert_str_eq(norm("C:\\Program Files (x86)\\x"), "C:\\Program Files (x86)\\x");
	cr_assert_str_eq(norm("C:\\a\\.hidden\\b.txt"), "C:\\a\\.hidden\\b.txt");
}

Test(win_plan, refuses_paths_that_would_be_reinterpreted)
{
	static const char *const bad[] = {
		"\\\\server\\share\\x", "//server/share", "\\\\?\\C:\\x", "\\\\.\\C:\\x", "\\\\.\\pipe\\x",
		"relative\\x", "\\rooted", "C:", "C:relative", "C:\\a\\..\\b", "C:\\a\\..",
		"C:\\a\\b:stream", "C:\\a\\*.txt", "C:\\a\\b?", "C:\\a<b", "C:\\a|b", "C:\\a\"b",
		"C:\\a\\b.", "C:\\a\\b ", "C:\\a\x01z", "1:\\x", "",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char out[WIN_PATH_MAX], err[256] = "";

		cr_assert_eq(win_path_normalize(bad[i], out, sizeof(out), err, sizeof(err)), -EINVAL,
			     "%s", bad[i]);
		cr_assert_neq(err[0], '\0');
	}
}

static const char *
lookup(void *ctx, const char *name)
{
	char *const *env = ctx;

	return win_env_lookup(env, SIZE_MAX, name);
}

static char *test_env[] = {
	"USERPROFILE=C:\\Users\\me", "LOCALAPPDATA=C:\\Users\\me\\AppData\\Local", "EMPTY=",
	"DOTS=C:\\Users\\..\\Windows", "UNC=\\\\srv\\share", "ProgramFiles(x86)=C:\\Program Files (x86)",
	NULL,
};

Test(win_plan, expands_variables_and_the_workdir)
{
	char out[WIN_PATH_MAX], err[256] = "";

	cr_assert_eq(win_path_expand("${USERPROFILE}/.cargo", lookup, test_env, "C:\\w", out,
				     sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(out, "C:\\Users\\me\\.cargo");
	/* Names compare without case on Windows. */
	cr_assert_eq(win_path_expand("${userprofile}\\x", lookup, test_env, "C:\\w", out, sizeof(out),
				     err, sizeof(err)), 0);
	cr_assert_str_eq(out, "C:\\Users\\me\\x");
	cr_assert_eq(win_path_expand("${WORKDIR}", lookup, test_env, "c:/work/dir/", out, sizeof(out),
				     err, sizeof(err)), 0);
	cr_assert_str_eq(out, "C:\\work\\dir");
	cr_assert_eq(win_path_expand("${ProgramFiles(x86)}\\Git", lookup, test_env, "C:\\w", out,
				     sizeof(out), err, sizeof(err)), 0);
	cr_assert_str_eq(out, "C:\\Program Files (x86)\\Git");
}

Test(win_plan, expansion_refusals)
{
	static const struct {
		const char *tmpl;
		int rc;
		const char *msg;
	} bad[] = {
		{"${NOPE}\\x", -ENOENT, "${NOPE} is not set"},
		{"${EMPTY}\\x", -ENOENT, "${EMPTY} is not set"},
		{"${DOTS}\\x", -EINVAL, "\"..\""},
		{"${UNC}\\x", -EINVAL, "UNC"},
		{"${USERPROFILE", -EINVAL, "malformed"},
		{"${}", -EINVAL, "malformed"},
		{"relative\\${USERPROFILE}", -EINVAL, "drive-letter"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char out[WIN_PATH_MAX], err[256] = "";

		cr_assert_eq(win_path_expand(bad[i].tmpl, lookup, test_env, "C:\\w", out, sizeof(out), err,
					     sizeof(err)), bad[i].rc, "%s", bad[i].tmpl);
		cr_assert(strstr(err, bad[i].msg), "%s: %s", bad[i].tmpl, err);
	}
}

Test(win_plan, within_and_parent)
{
	char p[WIN_PATH_MAX];

	cr_assert(win_path_within("C:\\a\\b", "C:\\a"));
	cr_assert(win_path_within("C:\\A\\b", "c:\\a"));
	cr_assert(win_path_within("C:\\a", "C:\\a"));
	cr_assert(win_path_within("C:\\a", "C:\\"));
	cr_assert_not(win_path_within("C:\\ab", "C:\\a"));
	cr_assert_not(win_path_within("C:\\a", "C:\\a\\b"));
	cr_assert_not(win_path_within("D:\\a", "C:\\"));
	cr_assert_eq(win_path_parent("C:\\a\\b", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "C:\\a");
	cr_assert_eq(win_path_parent("C:\\a", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "C:\\");
	cr_assert_eq(win_path_parent("C:\\", p, sizeof(p)), -ENOENT);
}

/* ------------------------------------------------------------ the plan */

static struct win_entry
entry(const char *path, uint8_t ace, uint32_t mask, uint8_t label, bool parent_dc)
{
	struct win_entry e = {
		.path = path,
		.mask = mask,
		.ace = ace,
		.kind = WIN_KIND_AUTO,
		.inherit = WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER,
		.label = label,
		.missing = ace == WIN_ACE_DENY ? WIN_MISSING_SKIP : WIN_MISSING_ERROR,
		.parent_deny_delete_child = parent_dc,
		.origin_file = "p.heel",
		.origin_line = 3,
	};
	return e;
}

static void
build(const struct win_entry *entries, size_t n, struct win_plan *plan)
{
	struct win_manifest m = {.name = "heel.p.0123456789abcdef", .sid = SID, .entries = entries,
				 .nentries = n};
	char err[256] = "";

	cr_assert_eq(win_plan_build(&m, lookup, test_env, "C:\\work", plan, err, sizeof(err)), 0, "%s",
		     err);
}

static const struct win_op *
op_at(const struct win_plan *p, const char *path)
{
	for (size_t i = 0; i < p->nops; i++)
		if (strcmp(p->ops[i].path, path) == 0)
			return &p->ops[i];
	return NULL;
}

Test(win_plan, denies_apply_only_where_a_grant_reaches)
{
	struct win_entry e[] = {
		entry("${WORKDIR}", WIN_ACE_ALLOW, 0x1301df, WIN_LABEL_LOW, false),
		entry("${USERPROFILE}\\.cargo", WIN_ACE_ALLOW, 0x1200a9, WIN_LABEL_NONE, false),
		/* Beneath the workdir: written, with the parent's DELETE_CHILD. */
		entry("${WORKDIR}\\.git\\hooks", WIN_ACE_DENY, 0x10156, WIN_LABEL_NONE, true),
		/* Outside every grant: reported, not written. */
		entry("${USERPROFILE}\\.ssh", WIN_ACE_DENY, 0x1017f, WIN_LABEL_NONE, true),
		/* Unset variable on a deny that may be missing: unreached. */
		entry("${NOPE}\\secret", WIN_ACE_DENY, 0x1017f, WIN_LABEL_NONE, false),
	};
	struct win_plan p;
	const struct win_op *o;

	build(e, 5, &p);
	cr_assert_eq(p.nops, 4, "%zu ops", p.nops);
	o = op_at(&p, "C:\\work");
	cr_assert(o && o->has_allow && o->label == WIN_LABEL_LOW && !o->skip_missing);
	cr_assert_eq(o->nwant, 1);
	cr_assert_eq(o->want[0].mask, 0x1301df);
	cr_assert_str_eq(o->want[0].sid, SID);
	o = op_at(&p, "C:\\Users\\me\\.cargo");
	cr_assert(o && o->label == WIN_LABEL_NONE);
	o = op_at(&p, "C:\\work\\.git\\hooks");
	cr_assert(o && !o->has_allow && o->skip_missing);
	cr_assert_eq(o->nwant, 1);
	cr_assert_eq(o->want[0].type, WIN_ACL_DENY);
	cr_assert_eq(o->want[0].mask, 0x10156);
	cr_assert_eq(o->want[0].flags, 3);
	o = op_at(&p, "C:\\work\\.git");
	cr_assert(o && o->nwant == 1 && o->want[0].type == WIN_ACL_DENY);
	cr_assert_eq(o->want[0].mask, WIN_FILE_DELETE_CHILD);
	cr_assert_eq(o->want[0].flags, 0, "this object only");
	cr_assert_eq(p.nunreached, 3);
	cr_assert_str_eq(p.unreached[0].path, "C:\\Users\\me\\.ssh");
	cr_assert_not(p.unreached[0].parent);
	cr_assert_str_eq(p.unreached[1].path, "C:\\Users\\me");
	cr_assert(p.unreached[1].parent);
	cr_assert_str_eq(p.unreached[2].path, "${NOPE}\\secret");
	win_plan_free(&p);
}

Test(win_plan, a_deny_on_a_granted_path_and_its_parent_merge)
{
	struct win_entry e[] = {
		entry("C:\\work", WIN_ACE_ALLOW, 0x1301df, WIN_LABEL_LOW, false),
		entry("C:/WORK/.env", WIN_ACE_DENY, 0x1017f, WIN_LABEL_NONE, true),
		entry("c:\\work", WIN_ACE_ALLOW, 0x20, WIN_LABEL_NONE, false),
	};
	struct win_plan p;
	const struct win_op *o;

	build(e, 3, &p);
	cr_assert_eq(p.nops, 2);
	o = op_at(&p, "C:\\work");
	cr_assert(o);
	/* Two grants of one path union; the parent's DELETE_CHILD deny sits
	 * beside the grant on the same path. */
	cr_assert_eq(o->nwant, 2);
	cr_assert_eq(o->want[0].type, WIN_ACL_ALLOW);
	cr_assert_eq(o->want[0].mask, 0x1301ff);
	cr_assert_eq(o->want[1].type, WIN_ACL_DENY);
	cr_assert_eq(o->want[1].mask, WIN_FILE_DELETE_CHILD);
	cr_assert_eq(p.nunreached, 0);
	win_plan_free(&p);
}

Test(win_plan, a_grant_that_cannot_be_expanded_refuses_the_plan)
{
	static const char *const bad[] = {"${NOPE}\\x", "\\\\srv\\share", "C:\\a\\..\\b", "rel"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct win_entry e[] = {entry(bad[i], WIN_ACE_ALLOW, 0x120089, WIN_LABEL_NONE, false)};
		struct win_manifest m = {.sid = SID, .entries = e, .nentries = 1};
		struct win_plan p;
		char err[256] = "";

		cr_assert_lt(win_plan_build(&m, lookup, test_env, "C:\\work", &p, err, sizeof(err)), 0);
		cr_assert(strstr(err, "p.heel:3"), "%s", err);
		win_plan_free(&p);
	}
	/* A deny that must exist is no exception. */
	{
		struct win_entry e[] = {entry("${NOPE}\\x", WIN_ACE_DENY, 0x1017f, WIN_LABEL_NONE, false)};
		struct win_manifest m = {.sid = SID, .entries = e, .nentries = 1};
		struct win_plan p;
		char err[256] = "";

		e[0].missing = WIN_MISSING_ERROR;
		cr_assert_eq(win_plan_build(&m, lookup, test_env, "C:\\w", &p, err, sizeof(err)), -ENOENT);
		win_plan_free(&p);
	}
}

Test(win_plan, files_lose_inheritance_and_labels_follow_the_kind)
{
	struct win_ace a[2], l;

	cr_assert_eq(win_ace_make(&a[0], WIN_ACL_ALLOW, 3, 0x1200a9, SID), 0);
	cr_assert_eq(win_ace_make(&a[1], WIN_ACL_DENY, 3 | WIN_INHERIT_NO_PROPAGATE, 0x10156, SID), 0);
	win_plan_for_file(a, 2);
	cr_assert_eq(a[0].flags, 0);
	cr_assert_eq(a[1].flags, 0);
	win_plan_low_label(true, &l);
	cr_assert_eq(l.flags, 3);
	cr_assert_eq(l.mask, WIN_LABEL_NO_WRITE_UP);
	cr_assert_str_eq(l.sid, "S-1-16-4096");
	win_plan_low_label(false, &l);
	cr_assert_eq(l.flags, 0);
}

/* ------------------------------------------------------------ argv */

/* Each vector: argv as the child must see it, and the line that makes
 * the MSVCRT parser produce it. */
Test(win_plan, command_line_quoting_vectors)
{
	static const struct {
		const char *argv[4];
		int argc;
		const char *line;
	} v[] = {
		{{"prog", "a", "b"}, 3, "prog a b"},
		{{"prog", ""}, 2, "prog \"\""},
		{{"prog", "a b"}, 2, "prog \"a b\""},
		{{"prog", "a\"b"}, 2, "prog \"a\\\"b\""},
		{{"prog", "a\\b"}, 2, "prog a\\b"},
		{{"prog", "a\\\\b c"}, 2, "prog \"a\\\\b c\""},	  /* backslashes not before a quote: literal */
		{{"prog", "a b\\"}, 2, "prog \"a b\\\\\""},	  /* doubled before the closing quote */
		{{"prog", "a\\\"b"}, 2, "prog \"a\\\\\\\"b\""},	  /* 1 backslash + quote -> 3 + quote */
		{{"prog", "\\\\\""}, 2, "prog \"\\\\\\\\\\\"\""},	  /* 2 backslashes + quote -> 5 + quote */
		{{"prog", "tab\there"}, 2, "prog \"tab\there\""},
		{{"C:\\Program Files\\x.exe", "-v"}, 2, "\"C:\\Program Files\\x.exe\" -v"},
		{{"C:\\dir\\"}, 1, "C:\\dir\\"},
		{{"prog", "\"\""}, 2, "prog \"\\\"\\\"\""},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *line = win_cmdline_join(v[i].argc, (char *const *)v[i].argv);

		cr_assert(line);
		cr_assert_str_eq(line, v[i].line, "vector %zu", i);
		free(line);
	}
}

Test(win_plan, argv0_with_a_quote_is_refused)
{
	char *argv[] = {"pro\"g", NULL};

	errno = 0;
	cr_assert_null(win_cmdline_join(1, argv));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(win_cmdline_join(0, argv));
}

/* ------------------------------------------------------------ env */

Test(win_plan, environment_block_is_built_from_a_safe_set_and_sorted)
{
	char *host[] = {
		"Path=C:\\Windows\\system32", "SystemRoot=C:\\Windows", "GITHUB_TOKEN=secret",
		"temp=C:\\Users\\me\\AppData\\Local\\Temp", "ComSpec=C:\\Windows\\system32\\cmd.exe",
		"=C:=C:\\work", "windir=C:\\Windows", "AWS_SECRET_ACCESS_KEY=x", NULL,
	};
	struct win_env e;

	win_env_init(&e);
	cr_assert_eq(win_env_build(&e, host, SIZE_MAX, NULL, "C:\\Users\\me\\AppData\\Local\\Packages\\heel.p.1\\AC\\Temp",
				   NULL), 0);
	win_env_sort(&e);
	cr_assert_eq(e.n, 6);
	/* Case-insensitive ordinal order; the host's spelling of PATH kept
	 * under the name asked for; TEMP/TMP the container's. */
	cr_assert_str_eq(e.vars[0], "ComSpec=C:\\Windows\\system32\\cmd.exe");
	cr_assert_str_eq(e.vars[1], "PATH=C:\\Windows\\system32");
	cr_assert_str_eq(e.vars[2], "SystemRoot=C:\\Windows");
	cr_assert_str_eq(e.vars[3], "TEMP=C:\\Users\\me\\AppData\\Local\\Packages\\heel.p.1\\AC\\Temp");
	cr_assert_str_eq(e.vars[4], "TMP=C:\\Users\\me\\AppData\\Local\\Packages\\heel.p.1\\AC\\Temp");
	cr_assert_str_eq(e.vars[5], "windir=C:\\Windows");
	cr_assert_null(e.vars[6]);
	cr_assert_null(win_env_lookup(e.vars, e.n, "GITHUB_TOKEN"));
	win_env_free(&e);
}

Test(win_plan, environment_sort_rules)
{
	struct win_env e;

	win_env_init(&e);
	cr_assert_eq(win_env_set(&e, "b", "1"), 0);
	cr_assert_eq(win_env_set(&e, "A_B", "2"), 0);
	cr_assert_eq(win_env_set(&e, "AB", "3"), 0);
	cr_assert_eq(win_env_set(&e, "A", "4"), 0);
	cr_assert_eq(win_env_set(&e, "=D:", "D:\\x"), 0);
	cr_assert_eq(win_env_set(&e, "B", "5"), 0); /* replaces "b" */
	cr_assert_eq(win_env_set(&e, "", "x"), -EINVAL);
	cr_assert_eq(win_env_set(&e, "A=B", "x"), -EINVAL);
	win_env_sort(&e);
	cr_assert_eq(e.n, 5);
	/* '=' < 'A'; "A" before "AB"; '_' (0x5f) after 'B' (0x42) once
	 * upper-cased, as Windows compares. */
	cr_assert_str_eq(e.vars[0], "=D:=D:\\x");
	cr_assert_str_eq(e.vars[1], "A=4");
	cr_assert_str_eq(e.vars[2], "AB=3");
	cr_assert_str_eq(e.vars[3], "A_B=2");
	cr_assert_str_eq(e.vars[4], "B=5");
	win_env_free(&e);
}

Test(win_plan, proxy_variables_when_given)
{
	char *host[] = {NULL};
	struct win_env e;

	win_env_init(&e);
	cr_assert_eq(win_env_build(&e, host, SIZE_MAX, NULL, "C:\\t", "http://127.0.0.1:8080"), 0);
	cr_assert_str_eq(win_env_lookup(e.vars, e.n, "https_proxy"), "http://127.0.0.1:8080");
	cr_assert_str_eq(win_env_lookup(e.vars, e.n, "HTTP_PROXY"), "http://127.0.0.1:8080");
	cr_assert_str_eq(win_env_lookup(e.vars, e.n, "ALL_PROXY"), "http://127.0.0.1:8080");
	win_env_free(&e);
}

/* ------------------------------------------------------------ needed */

static const char *const pkg[] = {SID, "S-1-15-2-1"};

static size_t
needed(const char *sddl, struct win_ace *want, size_t n, bool label)
{
	struct win_acl dacl;
	char err[256] = "";
	size_t k;

	cr_assert_eq(win_acl_parse(sddl, &dacl, err, sizeof(err)), 0, "%s", err);
	k = win_plan_needed(&dacl, pkg, 2, want, n, label);
	win_acl_free(&dacl);
	return k;
}

/* C:\Windows as Windows ships it: ALL APPLICATION PACKAGES may read and
 * execute everything below (an explicit ACE and an inherit-only one). */
#define WINDIR_DACL                                                                                 \
	"D:PAI(A;;0x1200a9;;;S-1-15-2-1)(A;OICIIO;0xa0000000;;;S-1-15-2-1)"                         \
	"(A;OICI;0x1f01ff;;;S-1-5-18)"

Test(win_plan, an_allow_the_packages_already_have_is_not_written)
{
	struct win_ace w[1];

	/* rx on C:\Windows with OI|CI: the explicit ACE is not inheritable,
	 * the inherit-only one does not apply to the directory itself, so
	 * only the two together cover it; neither alone does. */
	cr_assert_eq(win_ace_make(&w[0], WIN_ACL_ALLOW, 3, 0x1200a9, SID), 0);
	cr_assert_eq(needed(WINDIR_DACL, w, 1, false), 1);
	cr_assert_eq(needed("D:(A;OICI;0x1200a9;;;S-1-15-2-1)", w, 1, false), 0);
	/* Inherited from above counts the same. */
	cr_assert_eq(needed("D:(A;OICIID;0x1200a9;;;S-1-15-2-1)", w, 1, false), 0);
	/* Only read: execute is missing, written. */
	cr_assert_eq(needed("D:(A;OICI;0x120089;;;S-1-15-2-1)", w, 1, false), 1);
	/* A label to set: the ACL is written anyway, the allow with it. */
	cr_assert_eq(needed("D:(A;OICI;0x1200a9;;;S-1-15-2-1)", w, 1, true), 1);
	/* Our own stale explicit ACE is no reason to skip: converge
	 * replaces it. */
	cr_assert_eq(needed("D:(A;OICI;0x1200a9;;;" SID ")", w, 1, false), 1);
	/* For a file (no inheritance flags wanted), a plain ACE does. */
	cr_assert_eq(win_ace_make(&w[0], WIN_ACL_ALLOW, 0, 0x1200a9, SID), 0);
	cr_assert_eq(needed("D:(A;;0x1200a9;;;S-1-15-2-1)", w, 1, false), 0);
}

Test(win_plan, a_deny_no_package_reaches_is_not_written)
{
	struct win_ace w[2];

	cr_assert_eq(win_ace_make(&w[0], WIN_ACL_DENY, 3, 0x1017f, SID), 0);
	/* C:\Windows\Temp-like: only the system and users. */
	cr_assert_eq(needed("D:P(A;OICI;0x1f01ff;;;S-1-5-18)(A;CI;0x6;;;S-1-5-32-545)", w, 1, false), 0);
	/* Reached through an inherited grant of ours: written. */
	cr_assert_eq(win_ace_make(&w[0], WIN_ACL_DENY, 3, 0x1017f, SID), 0);
	cr_assert_eq(needed("D:(A;OICIID;0x1301df;;;" SID ")", w, 1, false), 1);
	/* Reached only below (inherit-only generic read for all packages). */
	cr_assert_eq(needed("D:(A;OICIIO;0x80000000;;;S-1-15-2-1)", w, 1, false), 1);
	/* A DELETE_CHILD deny where packages may read and execute only:
	 * nothing to stop. */
	cr_assert_eq(win_ace_make(&w[0], WIN_ACL_DENY, 0, WIN_FILE_DELETE_CHILD, SID), 0);
	cr_assert_eq(needed(WINDIR_DACL, w, 1, false), 0);
	/* ...but the op's own rw grant on the same path gives that bit:
	 * the deny stays, the allow too. */
	cr_assert_eq(win_ace_make(&w[1], WIN_ACL_ALLOW, 3, 0x1301df, SID), 0);
	cr_assert_eq(needed("D:(A;OICI;0x1f01ff;;;S-1-5-18)", w, 2, false), 2);
	cr_assert_eq(w[0].type, WIN_ACL_DENY);
	cr_assert_eq(w[1].type, WIN_ACL_ALLOW);
}

Test(win_plan, a_workdir_that_is_a_drive_root_is_refused)
{
	struct win_entry e[] = {entry("${WORKDIR}", WIN_ACE_ALLOW, 0x1301df, WIN_LABEL_LOW, false)};
	struct win_manifest m = {.sid = SID, .entries = e, .nentries = 1};
	struct win_plan p;
	char err[256] = "";

	cr_assert_eq(win_plan_build(&m, lookup, test_env, "D:\\", &p, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, "D:\\ is a whole drive"), "%s", err);
	win_plan_free(&p);
	/* The control: one level down is a directory like any other. */
	cr_assert_eq(win_plan_build(&m, lookup, test_env, "D:\\w", &p, err, sizeof(err)), 0, "%s", err);
	win_plan_free(&p);
}

Test(win_plan, a_held_path_converges_to_the_union_of_both_runs)
{
	struct win_ace *want = malloc(sizeof(*want));
	size_t n = 1;

	cr_assert_eq(win_ace_make(&want[0], WIN_ACL_ALLOW, 3, 0x120089, SID), 0);
	/* The holder: rw and a DELETE_CHILD deny, with the label it set. */
	cr_assert_eq(win_plan_union(&want, &n,
				    "D:(D;;0x40;;;" SID ")(A;OICI;0x1301df;;;" SID ")S:(ML;OICI;NW;;;S-1-16-4096)"),
		     0);
	cr_assert_eq(n, 2);
	cr_assert_eq(want[0].type, WIN_ACL_ALLOW);
	cr_assert_eq(want[0].mask, 0x120089 | 0x1301df);
	cr_assert_eq(want[1].type, WIN_ACL_DENY);
	cr_assert_eq(want[1].mask, 0x40);
	cr_assert_eq(win_plan_union(&want, &n, "S:(ML;;NW;;;LW)"), -EINVAL);
	cr_assert_eq(win_plan_union(&want, &n, "D:(A;;zz"), -EINVAL);
	free(want);
}

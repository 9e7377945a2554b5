/* SPDX-License-Identifier: MIT
 * The one ${NAME} expander (runtime/pathexpand.c): an empty variable is
 * unset, a "." or ".." that an expansion makes is refused and blamed on
 * its variable, and a variable that makes a grant the root or a system
 * directory is refused with its name and value. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "pathexpand.h"

struct var {
	const char *name, *value;
};

static const char *
vars_lookup(const char *name, void *ctx)
{
	for (const struct var *v = ctx; v && v->name; v++)
		if (strcmp(v->name, name) == 0)
			return v->value;
	return NULL;
}

/* Expands tmpl with vars; returns the result code, out and info filled. */
static int
ex(const char *tmpl, struct var *vars, char *out, struct px_info *info)
{
	return px_expand(tmpl, vars_lookup, vars, out, PATH_MAX, info);
}

Test(pathexpand, literal_and_folding)
{
	struct var v[] = { { "CWD", "/launch" }, { "P", "/srv/p/" }, { "R", "//" }, { NULL, NULL } };
	char out[PATH_MAX];
	struct px_info info;

	cr_assert_eq(ex("/usr/lib", v, out, &info), 0);
	cr_assert_str_eq(out, "/usr/lib");
	cr_assert_str_eq(info.name, "", "a literal path names no variable");
	cr_assert_eq(ex("${P}/build", v, out, &info), 0);
	cr_assert_str_eq(out, "/srv/p/build");
	cr_assert_str_eq(info.name, "P");
	cr_assert_str_eq(info.value, "/srv/p/");
	cr_assert_eq(ex("${R}", v, out, &info), 0);
	cr_assert_str_eq(out, "/", "repeated slashes fold to the root");
	cr_assert_eq(ex("${P}", v, out, &info), 0);
	cr_assert_str_eq(out, "/srv/p", "a trailing slash is dropped");
}

Test(pathexpand, relative_is_under_cwd)
{
	struct var v[] = { { "CWD", "/launch/dir" }, { NULL, NULL } };
	struct var none[] = { { NULL, NULL } };
	char out[PATH_MAX];
	struct px_info info;

	cr_assert_eq(ex("./target", v, out, &info), 0);
	cr_assert_str_eq(out, "/launch/dir/target");
	cr_assert_str_eq(info.name, "CWD");
	cr_assert_eq(ex("target/x", v, out, &info), 0);
	cr_assert_str_eq(out, "/launch/dir/target/x");
	cr_assert_eq(ex("${CWD}/x", v, out, &info), 0);
	cr_assert_str_eq(out, "/launch/dir/x");
	cr_assert_eq(ex("target", none, out, &info), -ENOENT);
	cr_assert_str_eq(info.name, "CWD");
}

Test(pathexpand, empty_is_unset)
{
	struct var v[] = { { "EMPTY", "" }, { NULL, NULL } };
	char out[PATH_MAX], msg[256];
	struct px_info info;

	cr_assert_eq(ex("${NOPE}/x", v, out, &info), -ENOENT);
	cr_assert_eq(info.status, PX_UNSET);
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)), "${NOPE} is not set");
	/* "${PROJECT}/build" with PROJECT="" must not become "/build". */
	cr_assert_eq(ex("${EMPTY}/build", v, out, &info), -ENOENT);
	cr_assert_eq(info.status, PX_UNSET);
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)), "${EMPTY} is empty");
}

Test(pathexpand, dots_from_an_expansion_are_refused)
{
	struct var v[] = {
		{ "CLIMB", "/usr/.." }, { "DD", ".." }, { "D", "." }, { "OK", "/srv" },
		{ NULL, NULL },
	};
	char out[PATH_MAX], msg[256];
	struct px_info info;

	cr_assert_eq(ex("${CLIMB}/etc", v, out, &info), -EINVAL);
	cr_assert_eq(info.status, PX_DOTS);
	cr_assert_str_eq(info.name, "CLIMB");
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)),
			 "CLIMB is \"/usr/..\", which puts a . or .. component in the path; refusing");
	cr_assert_eq(ex("${OK}/${DD}/x", v, out, &info), -EINVAL);
	cr_assert_str_eq(info.name, "DD", "the variable that made the .. is named, not the first");
	/* A "." next to a literal "." is a ".." the expansion made. */
	cr_assert_eq(ex("${OK}/.${D}", v, out, &info), -EINVAL);
	cr_assert_str_eq(info.name, "D");
	cr_assert_eq(ex("${OK}/${D}", v, out, &info), -EINVAL);
	/* Dots inside a name are ordinary characters. */
	cr_assert_eq(ex("${OK}/..x/.y", v, out, &info), 0);
	cr_assert_str_eq(out, "/srv/..x/.y");
}

Test(pathexpand, relative_value_malformed_and_too_long)
{
	char big[PATH_MAX + 8];
	struct var v[] = { { "REL", "tmp" }, { "BIG", big }, { NULL, NULL } };
	char out[PATH_MAX], msg[256];
	struct px_info info;

	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(ex("${REL}/x", v, out, &info), -EINVAL);
	cr_assert_eq(info.status, PX_RELATIVE);
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)),
			 "REL is \"tmp\", not an absolute path; refusing");
	cr_assert_eq(ex("/a/${REL", v, out, &info), -EINVAL);
	cr_assert_eq(info.status, PX_MALFORMED);
	cr_assert_eq(ex("/a/${}", v, out, &info), -EINVAL);
	cr_assert_eq(info.status, PX_MALFORMED);
	cr_assert_eq(ex("${BIG}", v, out, &info), -ENAMETOOLONG);
	cr_assert_eq(info.status, PX_TOOLONG);
	cr_assert_eq(px_expand("/usr/lib", vars_lookup, v, out, 4, &info), -ENAMETOOLONG);
}

Test(pathexpand, system_directories)
{
	static const char *const yes[] = {
		"/", "/usr", "/etc", "/var", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
		"/boot", "/proc", "/sys", "/dev", "/run", "/home", "/opt", "/srv", "/snap", "/mnt",
		"/media",
	};
	static const char *const no[] = {
		"/tmp", "/usr/local", "/home/alice", "/var/tmp", "/homes", "/etcetera", "/work",
		"/srv/site", "/root",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_assert(px_is_system(yes[i]), "%s", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert(!px_is_system(no[i]), "%s", no[i]);
	cr_assert_str_eq(px_system_top("/usr/local/x"), "/usr");
	cr_assert_str_eq(px_system_top("/lib64/x"), "/lib");
	cr_assert_str_eq(px_system_top("/"), "/");
	cr_assert_null(px_system_top("/tmp/x"));
	cr_assert_null(px_system_top("/homes/x"));
}

Test(pathexpand, a_variable_that_makes_a_system_directory_is_refused)
{
	struct var v[] = {
		{ "HOME", "/" }, { "H2", "//" }, { "H3", "/usr/" }, { "H4", "/home/alice" },
		{ "CWD", "/" }, { NULL, NULL },
	};
	char out[PATH_MAX], msg[256];
	struct px_info info;

	cr_assert_eq(ex("${HOME}", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), -EPERM);
	cr_assert_eq(info.status, PX_SYSTEM);
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)),
			 "HOME is \"/\", a system directory; refusing");
	cr_assert_eq(ex("${H2}", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), -EPERM);
	cr_assert_str_eq(px_describe(&info, msg, sizeof(msg)),
			 "H2 is \"//\", which makes it \"/\", a system directory; refusing");
	cr_assert_eq(ex("${H3}", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), -EPERM);
	cr_assert_eq(ex("${HOME}etc", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), -EPERM);
	cr_assert_str_eq(out, "/etc");
	/* The launch directory counts: `grant "."`-like paths from "/". */
	cr_assert_eq(ex("usr", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), -EPERM);
	cr_assert_eq(ex("${H4}", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), 0);
	cr_assert_eq(ex("${HOME}tmp", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), 0);
	/* A literal path is the policy's own, reviewed choice. */
	cr_assert_eq(ex("/usr", v, out, &info), 0);
	cr_assert_eq(px_refuse_system(out, &info), 0);
}

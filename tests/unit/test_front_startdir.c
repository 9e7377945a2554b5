/* SPDX-License-Identifier: MIT
 * The start directory's read grant (compiler/heel/startdir.c): for each
 * policy and directory, whether heel adds the grant, leaves it out (a
 * grant decides the directory already), refuses (a deny or a protection
 * decides it) or starts in the working directory (strict, a system
 * directory). Policies are compiled by the compiler library and the
 * decision is made from the artifact, as heel run makes it; denies are
 * resolved on a real scratch tree (a linked home among them). */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact.h"
#include "build.h"
#include "diag.h"
#include "startdir.h"

static char scratch[64];

static void
sh(const char *cmd)
{
	char line[512];

	snprintf(line, sizeof(line), "cd %s && %s", scratch, cmd);
	cr_assert_eq(system(line), 0, "%s", line);
}

/* A home with the usual secrets, a project and a home reached through a
 * link, as on systems where /home is a link. */
static void
make_scratch(void)
{
	strcpy(scratch, "/tmp/heel-startdir-XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	sh("mkdir -p home/.ssh/keys home/.aws home/.gnupg home/proj/src proj/src proj/secret/sub "
	   "keep/x && ln -s home homelink");
}

static void
drop_scratch(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", scratch);
}

struct env {
	const char *home;
	const char *cwd;
};

static const char *
lookup(const char *name, void *ctx)
{
	const struct env *e = ctx;

	if (strcmp(name, "HOME") == 0)
		return e->home;
	if (strcmp(name, "CWD") == 0)
		return e->cwd;
	return NULL;
}

/* The verdict for scratch/REL (or an absolute `rel`) under `policy`
 * (its lines after `heel 1`; @ stands for the scratch directory), with
 * HOME scratch/HOME. */
static struct startdir
decide_in(const char *policy, const char *home, const char *rel)
{
	char text[4096], dir[PATH_MAX], homedir[PATH_MAX];
	struct diag_ctx *ctx = diag_new();
	struct startdir sd;
	uint8_t *bytes = NULL;
	size_t len = 0, k = 0;
	struct env e = {homedir, dir};

	k = (size_t)snprintf(text, sizeof(text), "heel 1\n");
	for (const char *p = policy; *p && k + sizeof(scratch) + 1 < sizeof(text); p++) {
		if (*p == '@') {
			memcpy(text + k, scratch, strlen(scratch));
			k += strlen(scratch);
		} else {
			text[k++] = *p;
		}
	}
	text[k] = '\0';
	snprintf(homedir, sizeof(homedir), "%s/%s", scratch, home);
	if (rel[0] == '/')
		snprintf(dir, sizeof(dir), "%s", rel);
	else
		snprintf(dir, sizeof(dir), "%s/%s", scratch, rel);
	cr_assert_eq(build_compile(ctx, "<test>", text, true, &bytes, &len), 0, "%s", text);
	diag_free(ctx);
	cr_assert_eq(startdir_decide(bytes, len, dir, lookup, &e, &sd), 0);
	/* The rule's strings point into the artifact: keep what is read. */
	sd.rule = sd.rule ? "(rule)" : NULL;
	sd.origin_file = sd.origin_file ? "(file)" : NULL;
	free(bytes);
	return sd;
}

static struct startdir
decide(const char *policy, const char *rel)
{
	return decide_in(policy, "home", rel);
}

#define READABLE STARTDIR_READABLE
#define GRANT STARTDIR_GRANT
#define DENIED STARTDIR_DENIED
#define STRICT STARTDIR_STRICT
#define SYSTEM STARTDIR_SYSTEM

Test(startdir, protections_are_never_beaten, .init = make_scratch, .fini = drop_scratch)
{
	static const struct {
		const char *policy, *dir;
		enum startdir_verdict want;
		int set;
	} cases[] = {
	    /* The home itself is granted read by the base: nothing added. */
	    {"", "home", READABLE, ART_SET_NONE},
	    {"", "home/proj", READABLE, ART_SET_NONE},
	    {"", "home/.ssh", DENIED, 1},
	    {"", "home/.ssh/keys", DENIED, 1},
	    {"", "home/.aws", DENIED, 2},
	    {"", "home/.gnupg", DENIED, 1},
	    /* Lifted: read as any other place of the home. */
	    {"unprotect credentials\n", "home/.ssh/keys", READABLE, ART_SET_NONE},
	    /* An explicit grant of the very place beats the protection. */
	    {"grant \"@/home/.ssh\" r\n", "home/.ssh", READABLE, ART_SET_NONE},
	    /* protect user-home under default: the base's grant of the
	     * home loses to it, and so would the start directory's. */
	    {"protect user-home\n", "home", DENIED, 0},
	    {"protect user-home\n", "home/proj", DENIED, 0},
	    {"protect shared-temp\n", "proj", DENIED, 7},
	    /* The policy's own deny, and a directory beneath it. */
	    {"deny \"@/proj/secret\"\n", "proj/secret", DENIED, ART_SET_NONE},
	    {"deny \"@/proj/secret\"\n", "proj/secret/sub", DENIED, ART_SET_NONE},
	    {"deny \"@/proj/secret\"\n", "proj", READABLE, ART_SET_NONE},
	    /* The base's own deny. */
	    {"", "/etc/ssl/private", DENIED, ART_SET_NONE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct startdir sd = decide(cases[i].policy, cases[i].dir);

		cr_expect_eq(sd.verdict, cases[i].want, "%zu: %s in %s: %d", i, cases[i].policy,
			     cases[i].dir, sd.verdict);
		if (cases[i].want == DENIED)
			cr_expect_eq(sd.set, cases[i].set, "%zu: set %d", i, sd.set);
	}
}

Test(startdir, strict_reads_no_user_data, .init = make_scratch, .fini = drop_scratch)
{
	cr_expect_eq(decide("isolation strict\n", "home").verdict, STRICT);
	cr_expect_eq(decide("isolation strict\n", "home/.ssh").verdict, STRICT);
	cr_expect_eq(decide("isolation strict\n", "proj").verdict, STRICT);
	/* Nothing denies /opt/..., nothing grants it: strict still says no. */
	cr_expect_eq(decide("isolation strict\n", "/opt/heel-none/proj").verdict, STRICT);
	cr_expect_eq(decide("isolation strict\nunprotect shared-temp\n", "proj").verdict, STRICT);
	/* What the policy grants, it reads. */
	cr_expect_eq(decide("isolation strict\n", "/usr/share").verdict, READABLE);
	cr_expect_eq(decide("isolation strict\ngrant \"@/proj\" r\n", "proj/src").verdict,
		     READABLE);
}

/* Issue: a read grant of the start directory beneath a writable grant
 * narrowed it (its parent took no new entries). */
Test(startdir, a_writable_grant_is_never_narrowed, .init = make_scratch, .fini = drop_scratch)
{
	cr_expect_eq(decide("grant \"@/proj\" rw\n", "proj/src").verdict, READABLE);
	cr_expect_eq(decide("grant \"@/proj\" rw\n", "proj").verdict, READABLE);
	cr_expect_eq(decide("isolation permissive\n", "home/proj").verdict, READABLE);
	cr_expect_eq(decide("isolation permissive\n", "home").verdict, READABLE);
	cr_expect_eq(decide("grant \"${CWD}\" rw\n", "proj").verdict, READABLE);
	/* A kept working directory is writable whatever its parents are. */
	cr_expect_eq(decide("workdir \"@/keep\"\n", "keep/x").verdict, READABLE);
	cr_expect_eq(decide("isolation strict\nworkdir \"@/keep\"\n", "keep/x").verdict, READABLE);
}

Test(startdir, the_grant_is_added_where_nothing_decides, .init = make_scratch, .fini = drop_scratch)
{
	cr_expect_eq(decide("", "/opt/heel-none/proj").verdict, GRANT);
	cr_expect_eq(decide("", "/var").verdict, SYSTEM);
	cr_expect_eq(decide("", "/home").verdict, SYSTEM);
	cr_expect_eq(decide("", "/").verdict, SYSTEM);
	cr_expect_eq(decide("", "/usr").verdict, READABLE);
}

/* HOME spelled through a link: the protection follows it to the real
 * place, which is where getcwd(3) says the command starts. */
Test(startdir, a_linked_home_is_the_same_home, .init = make_scratch, .fini = drop_scratch)
{
	cr_expect_eq(decide_in("", "homelink", "home/.ssh").verdict, DENIED);
	cr_expect_eq(decide_in("", "homelink", "home/.ssh/keys").verdict, DENIED);
	cr_expect_eq(decide_in("protect user-home\n", "homelink", "home").verdict, DENIED);
	cr_expect_eq(decide_in("isolation strict\n", "homelink", "home/proj").verdict, STRICT);
}

Test(startdir, messages_name_the_rule_and_what_lifts_it, .init = make_scratch, .fini = drop_scratch)
{
	struct startdir sd = decide("", "home/.ssh");
	char buf[4096];

	startdir_message(&sd, "/h/.ssh", STARTDIR_WORDS_OPTIONS, buf, sizeof(buf));
	cr_expect(strstr(buf, "not starting in /h/.ssh") != NULL, "%s", buf);
	cr_expect(strstr(buf, "the protection set `credentials`") != NULL, "%s", buf);
	cr_expect(strstr(buf, "--protect-credentials=false") != NULL, "%s", buf);
	cr_expect(strstr(buf, "--readable .") != NULL, "%s", buf);
	startdir_message(&sd, "/h/.ssh", STARTDIR_WORDS_LIBHEEL, buf, sizeof(buf));
	cr_expect(strstr(buf, "heel_policy_protect(p, \"credentials\", 0)") != NULL, "%s", buf);
	cr_expect(strstr(buf, "heel_policy_grant(p, \"/h/.ssh\", \"r\")") != NULL, "%s", buf);

	sd = decide("isolation strict\n", "proj");
	startdir_message(&sd, "/p", STARTDIR_WORDS_OPTIONS, buf, sizeof(buf));
	cr_expect(strstr(buf, "starting in the working directory, not in /p") != NULL, "%s", buf);
	cr_expect(strstr(buf, "isolation strict") != NULL, "%s", buf);
	cr_expect(strstr(buf, "`shared-temp`") != NULL, "%s", buf);

	sd = decide("deny \"@/proj/secret\"\n", "proj/secret/sub");
	startdir_message(&sd, "/s", STARTDIR_WORDS_OPTIONS, buf, sizeof(buf));
	cr_expect(strstr(buf, "`deny \"(rule)\"` at (file):") != NULL, "%s", buf);
	cr_expect(strstr(buf, "--protect-") == NULL, "%s", buf);
}

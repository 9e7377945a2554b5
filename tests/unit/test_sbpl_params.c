/* SPDX-License-Identifier: MIT
 * runtime/sbpl_params: the macOS launcher's parameter expansion, run on
 * Linux. Expansion of ${NAME} and relative paths, unset variables (an
 * impossible path where the rule may be skipped, a refusal where it may
 * not), links canonicalised through realpath of the deepest existing
 * ancestor, the order check refusing a misordered pair and accepting the
 * normal ones, the key/value list, and the whole path from a compiled
 * artifact. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "artifact_read.h"
#include "artifact_write.h"
#include "diag.h"
#include "ir.h"
#include "sbpl_params.h"
#include "sema.h"

/* A scratch tree: base/real/, base/link -> real, base/home/.ssh/. */
static char base[256], real_base[PATH_MAX];

static void
setup(void)
{
	char p[PATH_MAX + 32];

	snprintf(base, sizeof(base), "/tmp/heel-sbpl-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	cr_assert_not_null(realpath(base, real_base));
	cr_assert_lt(strlen(real_base), 200);
	snprintf(p, sizeof(p), "%s/real", base);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/link", base);
	cr_assert_eq(symlink("real", p), 0);
	snprintf(p, sizeof(p), "%s/home", base);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/home/.ssh", base);
	cr_assert_eq(mkdir(p, 0700), 0);
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(sbpl_params, .init = setup, .fini = teardown);

/* The environment: NAME=VALUE pairs, NULL-terminated. */
static const char *
env_lookup(const char *name, void *ctx)
{
	const char *const *kv = ctx;

	for (; kv[0]; kv += 2)
		if (strcmp(kv[0], name) == 0)
			return kv[1];
	return NULL;
}

static struct sbpl_param_rec
rec(const char *name, uint8_t kind, uint8_t mode, bool optional, uint32_t rank, const char *value)
{
	struct sbpl_param_rec r = {.name = name, .kind = kind, .mode = mode, .optional = optional,
				   .rank = rank, .value = value,
				   .origin = {.file = "t.heel", .line = rank}};
	return r;
}

#define PATHREC(name, mode, opt, rank, value) rec(name, ART_SBPL_KIND_PATH, mode, opt, rank, value)

static char *
at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];

	cr_assert_lt(strlen(real_base) + strlen(rel), (size_t)PATH_MAX);
	memcpy(b, real_base, strlen(real_base));
	strcpy(b + strlen(real_base), rel);
	return b;
}

struct run {
	struct sbpl_launch_params out;
	char err[512];
	int rc;
};

static struct run
resolve(const struct sbpl_param_rec *recs, size_t n, const char *const *env, uint16_t port)
{
	struct run r = {.err = ""};
	struct sbpl_launch in = {
	    .lookup = env_lookup,
	    .ctx = (void *)env,
	    .launch_dir = base,
	    .workdir = base,
	    .proxy_port = port,
	};

	r.rc = sbpl_resolve(recs, n, &in, &r.out, r.err, sizeof(r.err));
	return r;
}

Test(sbpl_params, expands_variables_and_relative_paths)
{
	char home[PATH_MAX + 8];
	const char *env[] = {"HOME", home, NULL};
	struct sbpl_param_rec recs[] = {
	    PATHREC("P0", IR_MODE_R, false, 1, "${HOME}"),
	    PATHREC("P1", IR_MODE_DENY, true, 2, "${HOME}/.ssh"),
	    PATHREC("P2", IR_MODE_RW, false, 3, "real"),
	    PATHREC("P3", IR_MODE_RW, true, 5, "./real/new"),
	    PATHREC("P4", IR_MODE_R, false, 4, "${CWD}/link"),
	};
	struct run r;

	snprintf(home, sizeof(home), "%s/home", base);
	r = resolve(recs, 5, env, 0);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_eq(r.out.nparams, 5);
	cr_assert_str_eq(r.out.params[0].value, at("/home"));
	cr_assert_str_eq(r.out.params[1].value, at("/home/.ssh"));
	cr_assert_str_eq(r.out.params[2].value, at("/real"));
	cr_assert_str_eq(r.out.params[3].value, at("/real/new"));
	cr_assert_str_eq(r.out.params[4].value, at("/real"));
	cr_assert_str_eq(r.out.params[3].value, at("/real/new"));
	cr_assert_not(r.out.params[0].unset);
	sbpl_launch_params_free(&r.out);
}

Test(sbpl_params, links_are_canonicalised)
{
	char b[PATH_MAX + 8];
	const char *env[] = {"B", b, NULL};
	struct sbpl_param_rec recs[] = {
	    PATHREC("P0", IR_MODE_R, false, 1, "${B}/link"),
	    PATHREC("P1", IR_MODE_DENY, true, 2, "${B}/link/not/yet/there"),
	    PATHREC("P2", IR_MODE_RW, true, 3, "link/x"),
	};
	struct run r;
	bool exists;
	char out[PATH_MAX];

	/* Spelt through the link itself, as /tmp is on macOS. */
	snprintf(b, sizeof(b), "%s", base);
	r = resolve(recs, 3, env, 0);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert_str_eq(r.out.params[0].value, at("/real"));
	cr_assert_str_eq(r.out.params[1].value, at("/real/not/yet/there"));
	cr_assert_str_eq(r.out.params[2].value, at("/real/x"));
	sbpl_launch_params_free(&r.out);

	cr_assert_eq(sbpl_canonicalize("/", out, sizeof(out), &exists), 0);
	cr_assert_str_eq(out, "/");
	cr_assert(exists);
	snprintf(b, sizeof(b), "%s/link/a/b", base);
	cr_assert_eq(sbpl_canonicalize(b, out, sizeof(out), &exists), 0);
	cr_assert_str_eq(out, at("/real/a/b"));
	cr_assert_not(exists);
	cr_assert_eq(sbpl_canonicalize("/heel-no-such-top/x", out, sizeof(out), &exists), 0);
	cr_assert_str_eq(out, "/heel-no-such-top/x");
	cr_assert_eq(sbpl_canonicalize(b, out, 8, &exists), -ENAMETOOLONG);
}

/* A data-volume spelling of a firmlinked place is folded to the system
 * volume's, at launch as at compile time; other paths are left alone. */
Test(sbpl_params, firmlinks_folded)
{
	char out[PATH_MAX];
	bool exists;

	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/Users/a"), "/Users/a");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/private/var/x"), "/private/var/x");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/usr/local/bin"), "/usr/local/bin");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/opt"), "/opt");
	/* Not firmlinked: /usr/lib, a look-alike, the data volume itself. */
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/usr/lib"),
			 "/System/Volumes/Data/usr/lib");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data/Usersx"),
			 "/System/Volumes/Data/Usersx");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/Data"), "/System/Volumes/Data");
	cr_assert_str_eq(sbpl_firmlink_fold("/System/Volumes/DataX/Users"),
			 "/System/Volumes/DataX/Users");
	cr_assert(sbpl_firmlinked("/Users"));
	cr_assert(sbpl_firmlinked("/System/Library/Caches/x"));
	cr_assert_not(sbpl_firmlinked("/System/Library"));
	cr_assert_not(sbpl_firmlinked("/usr"));
	/* Through realpath() (nothing of it exists on Linux). */
	cr_assert_eq(sbpl_canonicalize("/System/Volumes/Data/Users/a/b", out, sizeof(out), &exists),
		     0);
	cr_assert_str_eq(out, "/Users/a/b");
}

Test(sbpl_params, unset_variables)
{
	const char *env[] = {"EMPTY", "", NULL};
	struct sbpl_param_rec skippable[] = {
	    PATHREC("P0", IR_MODE_DENY, true, 1, "${NOPE}/.ssh"),
	    PATHREC("P1", IR_MODE_R, true, 2, "${NOPE}"),
	    PATHREC("P2", ART_SBPL_MODE_READONLY, true, 3, "${EMPTY}/x"),
	};
	struct sbpl_param_rec required[] = {
	    PATHREC("P0", IR_MODE_DENY, true, 1, "${NOPE}/.ssh"),
	    PATHREC("P1", IR_MODE_RW, false, 2, "${PROJECT}/build"),
	};
	struct sbpl_param_rec empty[] = {PATHREC("P0", IR_MODE_R, false, 1, "${EMPTY}/x")};
	struct run r;

	r = resolve(skippable, 3, env, 0);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(r.out.params[i].value, SBPL_UNSET_PATH);
		cr_assert(r.out.params[i].unset);
	}
	sbpl_launch_params_free(&r.out);

	/* A grant that must be there refuses the launch, naming the
	 * variable and the rule. */
	r = resolve(required, 2, env, 0);
	cr_assert_eq(r.rc, -ENOENT);
	cr_assert_not_null(strstr(r.err, "PROJECT"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "P1 (grant rw, t.heel:2)"), "%s", r.err);
	cr_assert_null(r.out.params);
	/* Empty counts as unset. */
	r = resolve(empty, 1, env, 0);
	cr_assert_eq(r.rc, -ENOENT, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "EMPTY"), "%s", r.err);
}

Test(sbpl_params, missing_paths_and_system_directories)
{
	const char *env[] = {"ROOT", "/", "HOME", base, NULL};
	struct sbpl_param_rec missing[] = {PATHREC("P0", IR_MODE_R, false, 1, "real/gone")};
	struct sbpl_param_rec fine[] = {
	    PATHREC("P0", IR_MODE_DENY, true, 1, "${ROOT}"),
	    PATHREC("P1", IR_MODE_R, false, 2, "/"),
	    PATHREC("P2", IR_MODE_R, true, 3, "real/gone"),
	    PATHREC("P3", IR_MODE_DENY, true, 4, "real/gone2"),
	};
	struct sbpl_param_rec sys[] = {PATHREC("P0", IR_MODE_RW, true, 1, "${ROOT}")};
	struct sbpl_param_rec bad[] = {PATHREC("P0", IR_MODE_R, true, 1, "${HOME}/../x")};
	struct run r;

	r = resolve(missing, 1, env, 0);
	cr_assert_eq(r.rc, -ENOENT);
	cr_assert_not_null(strstr(r.err, "does not exist"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, at("/real/gone")), "%s", r.err);
	/* Optional grants and denies of missing paths are fine; a literal
	 * "/" is the policy's own choice, a deny of it harmless. */
	r = resolve(fine, 4, env, 0);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	sbpl_launch_params_free(&r.out);
	/* A variable that lands a grant on "/" is a broken environment. */
	r = resolve(sys, 1, env, 0);
	cr_assert_eq(r.rc, -EPERM);
	cr_assert_not_null(strstr(r.err, "${ROOT}"), "%s", r.err);
	/* A value climbing out with .. is refused, even for an optional rule. */
	r = resolve(bad, 1, env, 0);
	cr_assert_eq(r.rc, -EINVAL, "%s", r.err);
}

Test(sbpl_params, proxy_and_workdir)
{
	const char *env[] = {NULL};
	struct sbpl_param_rec recs[] = {
	    rec("WORKDIR", ART_SBPL_KIND_WORKDIR, ART_SBPL_MODE_WORKDIR, false, 1, ""),
	    rec("PROXY", ART_SBPL_KIND_PROXY, 0, false, 0, "localhost:PORT"),
	};
	struct sbpl_launch in = {.lookup = env_lookup, .ctx = (void *)env, .launch_dir = base,
				 .proxy_port = 18080};
	struct sbpl_launch_params out;
	char wd[PATH_MAX + 8], err[256] = "";

	snprintf(wd, sizeof(wd), "%s/link", base);
	in.workdir = wd;
	cr_assert_eq(sbpl_resolve(recs, 2, &in, &out, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(out.params[0].value, at("/real"));
	cr_assert_str_eq(out.params[1].value, "localhost:18080");
	/* The list sandbox_init_with_parameters takes. */
	cr_assert_str_eq(out.kv[0], "WORKDIR");
	cr_assert_str_eq(out.kv[1], at("/real"));
	cr_assert_str_eq(out.kv[2], "PROXY");
	cr_assert_str_eq(out.kv[3], "localhost:18080");
	cr_assert_null(out.kv[4]);
	sbpl_launch_params_free(&out);

	in.proxy_port = 0;
	cr_assert_eq(sbpl_resolve(recs, 2, &in, &out, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "no proxy port"), "%s", err);
	in.proxy_port = 1;
	in.workdir = NULL;
	cr_assert_eq(sbpl_resolve(recs, 2, &in, &out, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "working directory"), "%s", err);
	/* No launch directory: a relative deny must not quietly become
	 * "unset" and match nothing. */
	in.workdir = wd;
	in.launch_dir = NULL;
	cr_assert_eq(sbpl_resolve(recs, 2, &in, &out, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "launch directory"), "%s", err);
	in.launch_dir = "relative";
	cr_assert_eq(sbpl_resolve(recs, 2, &in, &out, err, sizeof(err)), -EINVAL);
}

Test(sbpl_params, order_check_refuses_a_misordered_pair)
{
	char deep[PATH_MAX + 8], shallow[PATH_MAX + 8];
	const char *env[] = {"DEEP", deep, "SHALLOW", shallow, NULL};
	/* Written deep-first (the estimate got it wrong): the grant of the
	 * parent comes later and would open the deny beneath it. */
	struct sbpl_param_rec recs[] = {
	    PATHREC("P0", IR_MODE_DENY, true, 1, "${DEEP}"),
	    PATHREC("P1", IR_MODE_RW, false, 2, "${SHALLOW}"),
	};
	struct sbpl_param_rec wd_over[] = {
	    PATHREC("P0", IR_MODE_DENY, true, 1, "${DEEP}"),
	    rec("WORKDIR", ART_SBPL_KIND_WORKDIR, ART_SBPL_MODE_WORKDIR, false, 2, ""),
	};
	struct run r;

	snprintf(deep, sizeof(deep), "%s/home/.ssh", base);
	snprintf(shallow, sizeof(shallow), "%s/home", base);
	r = resolve(recs, 2, env, 0);
	cr_assert_eq(r.rc, -EPERM);
	cr_assert_not_null(strstr(r.err, "P0 (deny, t.heel:1)"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "P1 (grant rw, t.heel:2)"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, at("/home/.ssh")), "%s", r.err);
	cr_assert_not_null(strstr(r.err, at("/home,")), "%s", r.err);
	cr_assert_null(r.out.kv);
	/* The working directory is a rule like any: over a protection it
	 * written later would open, refused. (launch_dir = workdir = base.) */
	r = resolve(wd_over, 2, env, 0);
	cr_assert_eq(r.rc, -EPERM);
	cr_assert_not_null(strstr(r.err, "WORKDIR (working directory, t.heel:2)"), "%s", r.err);
}

Test(sbpl_params, order_check_accepts_the_normal_orders)
{
	char home[PATH_MAX + 8];
	const char *env[] = {"HOME", home, "SAME", home, NULL};
	struct sbpl_param_rec recs[] = {
	    PATHREC("P0", IR_MODE_R, false, 1, "/"),
	    PATHREC("P1", IR_MODE_RW, false, 2, "${HOME}"),
	    /* The same path twice: the later rule wins, as written. */
	    PATHREC("P2", IR_MODE_RX, false, 3, "${SAME}"),
	    /* Same mode beneath a later rule: nothing changes. */
	    PATHREC("P3", IR_MODE_DENY, true, 4, "${HOME}/.ssh/b"),
	    PATHREC("P4", IR_MODE_DENY, true, 5, "${HOME}/.ssh"),
	    PATHREC("P5", IR_MODE_R, true, 6, "${HOME}/.ssh/known_hosts"),
	    /* Unset: matches nothing, never in the way. */
	    PATHREC("P6", IR_MODE_RWX, true, 7, "${UNSET}"),
	    /* Siblings, and deeper after shallower. */
	    PATHREC("P7", IR_MODE_RWX, false, 8, "real"),
	    PATHREC("P8", IR_MODE_DENY, true, 9, "real/y"),
	    PATHREC("P9", IR_MODE_DENY, true, 10, "link/z"),
	};
	struct run r;

	snprintf(home, sizeof(home), "%s/home", base);
	r = resolve(recs, 10, env, 0);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	for (size_t i = 0; i < 10; i++) {
		cr_assert_str_eq(r.out.kv[2 * i], recs[i].name);
		cr_assert_str_eq(r.out.kv[2 * i + 1], r.out.params[i].value);
	}
	cr_assert_null(r.out.kv[20]);
	sbpl_launch_params_free(&r.out);
}

/* ------------------------------------------------------------ artifact */

static uint8_t *
compile_artifact(const char *text, size_t *len)
{
	struct sema_options o = {.path = "t.heel", .text = text, .len = strlen(text)};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;
	uint8_t *bytes = NULL;
	int rc;

	rc = sema_compile(ctx, &o, &ir);
	if (rc || diag_error_count(ctx))
		diag_render(ctx, stderr);
	cr_assert_eq(rc, 0);
	diag_free(ctx);
	cr_assert_eq(artifact_write(ir, &bytes, len), 0);
	ir_policy_free(ir);
	return bytes;
}

Test(sbpl_params, from_a_compiled_artifact)
{
	size_t len;
	uint8_t *buf = compile_artifact("heel 1\nisolation default\nnetwork allow-all\n"
					"grant \"${HOME}/src\" rw optional\n",
					&len);
	char home[PATH_MAX + 8], err[512] = "";
	const char *env[] = {"HOME", home, NULL};
	char wd[PATH_MAX + 8];
	struct sbpl_launch in = {.lookup = env_lookup, .ctx = (void *)env, .launch_dir = base,
				 .workdir = wd, .proxy_port = 3128};
	struct sbpl_launch_params out;
	struct sbpl_param_rec *recs;
	struct art_view v;
	const char *text;
	size_t tlen, n;
	int rc;

	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(wd, sizeof(wd), "%s/real", base);
	cr_assert_eq(art_validate(buf, len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sbpl_text(&v, &text, &tlen), 0);
	cr_assert_eq(strncmp(text, "(version 1)\n", 12), 0);
	n = sbpl_param_count(&v);
	cr_assert_gt(n, 50);
	cr_assert_eq(sbpl_param_at(&v, n, &(struct sbpl_param_rec){0}), -ERANGE);

	/* macOS system paths do not exist here: the decoder refuses the
	 * first required grant it cannot find, naming it. */
	rc = sbpl_prepare(&v, &in, &out, err, sizeof(err));
	cr_assert_eq(rc, -ENOENT);
	cr_assert_not_null(strstr(err, "/System does not exist"), "%s", err);

	/* The same table with every rule optional (for this test only):
	 * every parameter is filled, in table order, and the order check
	 * passes for a home at the usual depth. */
	recs = calloc(n, sizeof(*recs));
	cr_assert_not_null(recs);
	for (size_t i = 0; i < n; i++) {
		sbpl_param_at(&v, i, &recs[i]);
		recs[i].optional = true;
	}
	rc = sbpl_resolve(recs, n, &in, &out, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(out.nparams, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(out.kv[2 * i], recs[i].name);
		if (strcmp(recs[i].value, "${HOME}/.ssh") == 0)
			cr_assert_str_eq(out.kv[2 * i + 1], at("/home/.ssh"));
		if (strcmp(recs[i].name, "PROXY") == 0)
			cr_assert_str_eq(out.kv[2 * i + 1], "localhost:3128");
	}
	cr_assert_null(out.kv[2 * n]);
	sbpl_launch_params_free(&out);
	free(recs);
	free(buf);
}

Test(sbpl_params, prepare_without_a_macos_part)
{
	struct sema_options o = {.path = "t.heel", .text = "heel 1\n", .len = 7,
				 .platforms = IR_PLAT_BIT(IR_LINUX), .target_explicit = true};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;
	struct sbpl_launch in = {.launch_dir = base, .workdir = base};
	struct sbpl_launch_params out;
	struct art_view v;
	uint8_t *buf = NULL;
	size_t len = 0;
	char err[256] = "";
	const char *text;
	size_t tlen;

	cr_assert_eq(sema_compile(ctx, &o, &ir), 0);
	diag_free(ctx);
	cr_assert_eq(artifact_write(ir, &buf, &len), 0);
	ir_policy_free(ir);
	cr_assert_eq(art_validate(buf, len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sbpl_text(&v, &text, &tlen), -ENOENT);
	cr_assert_eq(sbpl_param_count(&v), 0);
	cr_assert_eq(sbpl_prepare(&v, &in, &out, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "no macOS part"), "%s", err);
	free(buf);
}

Test(sbpl_params, a_real_policy_misordered_by_its_launch)
{
	/* The launch directory is the home, and the working directory is
	 * it: the estimate put ${HOME}/.ssh (depth 3) before ${CWD} (depth
	 * 4), so the working directory's rule would open the protection.
	 * Refused, naming both. */
	size_t len;
	uint8_t *buf = compile_artifact("heel 1\nisolation permissive\nunprotect host-run\n"
					"protect credentials\nworkdir \"${CWD}\"\n",
					&len);
	char home[PATH_MAX + 8], err[512] = "";
	const char *env[] = {"HOME", home, NULL};
	struct sbpl_launch in = {.lookup = env_lookup, .ctx = (void *)env, .launch_dir = home,
				 .workdir = home};
	struct sbpl_param_rec *recs;
	struct sbpl_launch_params out;
	struct art_view v;
	size_t n;

	snprintf(home, sizeof(home), "%s/home", base);
	cr_assert_eq(art_validate(buf, len, &v, err, sizeof(err)), 0, "%s", err);
	n = sbpl_param_count(&v);
	recs = calloc(n, sizeof(*recs));
	for (size_t i = 0; i < n; i++) {
		sbpl_param_at(&v, i, &recs[i]);
		recs[i].optional = true; /* /private/tmp does not exist here */
	}
	cr_assert_eq(sbpl_resolve(recs, n, &in, &out, err, sizeof(err)), -EPERM);
	cr_assert_not_null(strstr(err, at("/home/.")), "%s", err);
	cr_assert_not_null(strstr(err, "lies beneath WORKDIR (working directory, t.heel:5)"), "%s",
			   err);
	/* Launched from a directory beneath the home, the same artifact is
	 * fine. */
	{
		char proj[PATH_MAX + 16];

		snprintf(proj, sizeof(proj), "%s/home/proj", base);
		cr_assert_eq(mkdir(proj, 0755), 0);
		in.launch_dir = proj;
		in.workdir = proj;
		cr_assert_eq(sbpl_resolve(recs, n, &in, &out, err, sizeof(err)), 0, "%s", err);
		sbpl_launch_params_free(&out);
	}
	free(recs);
	free(buf);
}

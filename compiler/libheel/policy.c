/* SPDX-License-Identifier: MIT
 * libheel's policies: loaded from a file or a string (compiled at once,
 * so a mistake is reported at the call that brought it), or built with
 * calls that mirror `heel run`'s options and are checked by the same
 * validators; turned into policy text and artifact bytes for a spawn. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_read.h"
#include "build.h"
#include "diag.h"
#include "env.h"
#include "libheel_int.h"
#include "pathres.h"
#include "policytext.h"
#include "readfile.h"
#include "sbpl_params.h"
#include "startdir.h"
#include "suggest.h"
#include "values.h"

/* ------------------------------------------------------------ loading */

static heel_policy *
policy_alloc(enum lh_kind kind, heel_error *err)
{
	heel_policy *p = calloc(1, sizeof(*p));

	if (!p) {
		lh_fail(err, -ENOMEM, "out of memory");
		return NULL;
	}
	p->kind = kind;
	return p;
}

heel_policy *
heel_policy_new(heel_error *err)
{
	heel_policy *p = policy_alloc(LH_BUILDER, err);

	if (p)
		lh_ok(err);
	return p;
}

void
heel_policy_free(heel_policy *p)
{
	if (!p)
		return;
	settings_free(&p->opts);
	free(p->name);
	free(p->text);
	free(p->art);
	free(p);
}

/* Compiles `text` as the top file `name`: the IR, or -EINVAL with every
 * diagnostic in err. Warnings into *warnings when asked for. */
static int
compile_text(const char *name, const char *text, bool quiet_top, uint8_t **bytes, size_t *len,
	     char **warnings, heel_error *err)
{
	struct diag_ctx *ctx = diag_new();
	int rc;

	if (warnings)
		*warnings = NULL;
	if (!ctx)
		return lh_fail(err, -ENOMEM, "out of memory");
	rc = build_compile(ctx, name, text, quiet_top, bytes, len);
	if (rc == -ENOMEM) {
		lh_fail(err, rc, "out of memory");
	} else if (rc) {
		char *msg = lh_render(ctx);

		rc = lh_fail(err, rc == -EIO ? -EIO : -EINVAL, "%s",
			     msg ? msg : "the policy cannot be compiled");
		free(msg);
	} else if (warnings && diag_count(ctx)) {
		*warnings = lh_render(ctx);
	}
	diag_free(ctx);
	return rc;
}

heel_policy *
heel_policy_from_string(const char *text, const char *name, heel_error *err)
{
	heel_policy *p;

	if (!text)
		return lh_fail(err, -EINVAL, "heel_policy_from_string: no text"), NULL;
	p = policy_alloc(LH_SOURCE, err);
	if (!p)
		return NULL;
	p->name = strdup(name && name[0] ? name : "<string>");
	p->text = strdup(text);
	if (!p->name || !p->text) {
		heel_policy_free(p);
		return lh_fail(err, -ENOMEM, "out of memory"), NULL;
	}
	if (compile_text(p->name, p->text, false, NULL, NULL, NULL, err)) {
		heel_policy_free(p);
		return NULL;
	}
	lh_ok(err);
	return p;
}

/* The file's absolute name, so that its includes and diagnostics do not
 * depend on the directory a later spawn runs from. */
static int
absolute_name(const char *path, char **out, heel_error *err)
{
	char cwd[PATH_MAX], why[600];
	struct pathres r;
	int rc;

	if (!getcwd(cwd, sizeof(cwd)))
		return lh_fail(err, -errno, "cannot tell the current directory: %s",
			       strerror(errno));
	rc = pathres_resolve(cwd, path, &r, why, sizeof(why));
	if (rc)
		return lh_fail(err, rc, "%s: %s", path, why);
	*out = r.path;
	r.path = NULL;
	pathres_free(&r);
	return 0;
}

static heel_policy *
load_artifact(const char *path, heel_error *err)
{
	char why[512];
	struct art_view view;
	heel_policy *p = policy_alloc(LH_ARTIFACT, err);
	int rc;

	if (!p)
		return NULL;
	/* The checks heel-exec makes on a file it is named: the bytes decide
	 * the sandbox, so only root or the caller may have written them. */
	rc = art_read_file(path, &p->art, &p->artlen, why, sizeof(why));
	if (!rc) {
		rc = art_validate(p->art, p->artlen, &view, why, sizeof(why));
		if (rc)
			lh_fail(err, rc, "%s: %s", path, why);
	} else {
		lh_fail(err, rc, "%s", why);
	}
	if (!rc && !art_platform_enabled(&view, ART_LINUX))
		rc = lh_fail(err, -EINVAL, "%s: the policy was not compiled for linux", path);
	if (rc) {
		heel_policy_free(p);
		return NULL;
	}
	lh_ok(err);
	return p;
}

heel_policy *
heel_policy_from_file(const char *path, heel_error *err)
{
	char *text = NULL, *abs = NULL;
	size_t len = 0;
	struct stat st;
	heel_policy *p;
	int rc;

	if (!path || !path[0])
		return lh_fail(err, -EINVAL, "heel_policy_from_file: no path"), NULL;
	rc = rf_read_regular(path, &text, &len, &st);
	if (rc)
		return lh_fail(err, rc == -EFTYPE_RF ? -EINVAL : rc, "%s: %s", path,
			       rf_strerror(rc, &st)),
		       NULL;
	if (rf_content_kind(text, len) == RF_ARTIFACT) {
		free(text);
		return load_artifact(path, err);
	}
	rc = absolute_name(path, &abs, err);
	if (rc) {
		free(text);
		return NULL;
	}
	p = policy_alloc(LH_SOURCE, err);
	if (!p) {
		free(text);
		free(abs);
		return NULL;
	}
	p->name = abs;
	p->text = text;
	if (compile_text(p->name, p->text, false, NULL, NULL, NULL, err)) {
		heel_policy_free(p);
		return NULL;
	}
	lh_ok(err);
	return p;
}

/* ------------------------------------------------------------ builder */

/* Whether p can take another statement; err set when not. */
static int
changeable(heel_policy *p, const char *call, heel_error *err)
{
	if (!p)
		return lh_fail(err, -EINVAL, "%s: no policy", call);
	if (p->kind == LH_ARTIFACT)
		return lh_fail(err, -ENOTSUP,
			       "%s: a compiled policy (.hpol) cannot be changed; build "
			       "from its .heel source to add to it",
			       call);
	return 0;
}

/* The outcome of a settings_* setter. */
static int
stored(heel_policy *p, int rc, heel_error *err)
{
	if (rc)
		return lh_fail(err, rc, "out of memory");
	lh_ok(err);
	return 0;
}

static int
no_string(const char *s, const char *call, const char *what, heel_error *err)
{
	if (!s || !s[0])
		return lh_fail(err, -EINVAL, "%s: the %s is empty", call, what);
	return 0;
}

typedef int (*value_check)(const char *, char *, size_t, char *, size_t);

/* A scalar checked by one of `heel run`'s validators. */
static int
checked_scalar(heel_policy *p, struct settings_scalar *slot, const char *call, const char *text,
	       value_check check, heel_error *err)
{
	char out[256], why[400], origin[320];
	int rc = changeable(p, call, err);

	if (rc || (rc = no_string(text, call, "value", err)))
		return rc;
	if (check(text, out, sizeof(out), why, sizeof(why)) < 0)
		return lh_fail(err, -EINVAL, "%s: %s", call, why);
	snprintf(origin, sizeof(origin), "%s %s", call, out);
	return stored(p, settings_set_scalar(slot, out, origin), err);
}

int
heel_policy_isolation(heel_policy *p, const char *base, heel_error *err)
{
	return checked_scalar(p, p ? &p->opts.isolation : NULL, "heel_policy_isolation", base,
			      values_isolation, err);
}

int
heel_policy_network(heel_policy *p, const char *mode, heel_error *err)
{
	return checked_scalar(p, p ? &p->opts.network : NULL, "heel_policy_network", mode,
			      values_network, err);
}

int
heel_policy_io_priority(heel_policy *p, const char *priority, heel_error *err)
{
	return checked_scalar(p, p ? &p->opts.io_priority : NULL, "heel_policy_io_priority",
			      priority, values_io_priority, err);
}

int
heel_policy_nice(heel_policy *p, int steps, heel_error *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", steps);
	return checked_scalar(p, p ? &p->opts.nice : NULL, "heel_policy_nice", text, values_nice,
			      err);
}

int
heel_policy_grant(heel_policy *p, const char *path, const char *mode, heel_error *err)
{
	const char *why = NULL, *canon;
	char origin[PATH_MAX + 64];
	int rc = changeable(p, "heel_policy_grant", err);

	if (rc || (rc = no_string(path, "heel_policy_grant", "path", err)))
		return rc;
	canon = mode ? settings_mode_canonical(mode, &why) : NULL;
	if (!canon)
		return lh_fail(err, -EINVAL, "heel_policy_grant %s: `%s`: %s", path,
			       mode ? mode : "", mode ? why : "a mode is r, rw, rx or rwx");
	snprintf(origin, sizeof(origin), "heel_policy_grant %s %s", path, canon);
	return stored(p, settings_add_grant(&p->opts, path, canon, origin), err);
}

int
heel_policy_allow_domain(heel_policy *p, const char *pattern, heel_error *err)
{
	char origin[320];
	int rc = changeable(p, "heel_policy_allow_domain", err);

	if (rc || (rc = no_string(pattern, "heel_policy_allow_domain", "pattern", err)))
		return rc;
	snprintf(origin, sizeof(origin), "heel_policy_allow_domain %s", pattern);
	return stored(p, settings_add_domain(&p->opts, pattern, origin), err);
}

int
heel_policy_audit_log(heel_policy *p, const char *file, heel_error *err)
{
	char origin[PATH_MAX + 64];
	int rc = changeable(p, "heel_policy_audit_log", err);

	if (rc || (rc = no_string(file, "heel_policy_audit_log", "path", err)))
		return rc;
	snprintf(origin, sizeof(origin), "heel_policy_audit_log %s", file);
	return stored(p, settings_set_scalar(&p->opts.audit_log, file, origin), err);
}

int
heel_policy_workdir(heel_policy *p, const char *dir, heel_error *err)
{
	char origin[PATH_MAX + 64];
	int rc = changeable(p, "heel_policy_workdir", err);

	if (rc || (rc = no_string(dir, "heel_policy_workdir", "path", err)))
		return rc;
	snprintf(origin, sizeof(origin), "heel_policy_workdir %s", dir);
	return stored(p, settings_set_scalar(&p->opts.working_dir, dir, origin), err);
}

int
heel_policy_gpu(heel_policy *p, int allow, heel_error *err)
{
	int rc = changeable(p, "heel_policy_gpu", err);

	if (rc)
		return rc;
	return stored(p,
		      settings_set_flag(&p->opts.gpu, allow != 0,
					allow ? "heel_policy_gpu allow" : "heel_policy_gpu deny"),
		      err);
}

/* "`x` is not a WHAT (a, b, c); did you mean `y`?" */
static int
unknown_name(const char *call, const char *what, const char *name, const char *const *names,
	     heel_error *err)
{
	char list[400];
	const char *near = suggest_word(name, names);
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; names[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", names[i]);
	if (near)
		return lh_fail(err, -EINVAL, "%s: `%s` is not a %s (%s); did you mean `%s`?", call,
			       name, what, list, near);
	return lh_fail(err, -EINVAL, "%s: `%s` is not a %s (%s)", call, name, what, list);
}

int
heel_policy_protect(heel_policy *p, const char *set, int on, heel_error *err)
{
	const char *names[SET_COUNT + 1] = {NULL};
	char origin[160];
	int rc = changeable(p, "heel_policy_protect", err), k;

	if (rc || (rc = no_string(set, "heel_policy_protect", "set", err)))
		return rc;
	k = settings_set_from_name(set);
	if (k < 0) {
		for (int i = 0; i < SET_COUNT; i++)
			names[i] = settings_set_name((enum settings_set)i);
		return unknown_name("heel_policy_protect", "protection set", set, names, err);
	}
	snprintf(origin, sizeof(origin), "heel_policy_protect %s %s", set, on ? "on" : "off");
	return stored(p, settings_set_flag(&p->opts.protect[k], on != 0, origin), err);
}

int
heel_policy_limit(heel_policy *p, const char *name, const char *value, heel_error *err)
{
	const char *names[LIM_COUNT + 1] = {NULL};
	char out[96], why[400], origin[200];
	int rc = changeable(p, "heel_policy_limit", err), k;

	if (rc || (rc = no_string(name, "heel_policy_limit", "limit name", err)))
		return rc;
	k = settings_limit_from_name(name);
	if (k < 0) {
		for (int i = 0; i < LIM_COUNT; i++)
			names[i] = settings_limit_name((enum settings_limit)i);
		return unknown_name("heel_policy_limit", "limit", name, names, err);
	}
	if ((rc = no_string(value, "heel_policy_limit", "value", err)))
		return rc;
	if (values_limit((enum settings_limit)k, value, out, sizeof(out), why, sizeof(why)) < 0)
		return lh_fail(err, -EINVAL, "heel_policy_limit %s: %s", name, why);
	snprintf(origin, sizeof(origin), "heel_policy_limit %s %s", name, out);
	return stored(p, settings_set_scalar(&p->opts.limits[k], out, origin), err);
}

static int
env_name(const char *call, const char *name, heel_error *err)
{
	if (!name || !values_env_name(name))
		return lh_fail(err, -EINVAL,
			       "%s: `%s` is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", call,
			       name ? name : "");
	return 0;
}

int
heel_policy_env_pass(heel_policy *p, const char *name, heel_error *err)
{
	char origin[320];
	int rc = changeable(p, "heel_policy_env_pass", err);

	if (rc || (rc = env_name("heel_policy_env_pass", name, err)))
		return rc;
	snprintf(origin, sizeof(origin), "heel_policy_env_pass %s", name);
	return stored(p, settings_add_env(&p->opts, name, NULL, origin), err);
}

int
heel_policy_env_set(heel_policy *p, const char *name, const char *value, heel_error *err)
{
	char origin[320];
	int rc = changeable(p, "heel_policy_env_set", err);

	if (rc || (rc = env_name("heel_policy_env_set", name, err)))
		return rc;
	if (!value)
		return lh_fail(err, -EINVAL,
			       "heel_policy_env_set %s: no value (an empty one is \"\")", name);
	snprintf(origin, sizeof(origin), "heel_policy_env_set %s", name);
	return stored(p, settings_add_env(&p->opts, name, value, origin), err);
}

/* ------------------------------------------------------------ one spawn's text */

/* The builder calls, plus this spawn's environment additions, as
 * settings (*out, caller frees with settings_free). */
static int
spawn_settings(const heel_policy *p, const struct lh_spawn_view *v, struct settings *out,
	       heel_error *err)
{
	struct settings none = {0};
	int rc = settings_merge(&none, &p->opts, out);

	for (size_t i = 0; !rc && v->env && v->env[i]; i++) {
		const char *eq = strchr(v->env[i], '=');
		char name[256], origin[320];

		if (!eq || (size_t)(eq - v->env[i]) >= sizeof(name)) {
			settings_free(out);
			return lh_fail(err, -EINVAL,
				       "heel_spawn: environment addition `%s` is not "
				       "NAME=VALUE",
				       v->env[i]);
		}
		memcpy(name, v->env[i], (size_t)(eq - v->env[i]));
		name[eq - v->env[i]] = '\0';
		rc = env_name("heel_spawn", name, err);
		if (rc) {
			settings_free(out);
			return rc;
		}
		snprintf(origin, sizeof(origin), "heel_spawn env %s", name);
		rc = settings_add_env(out, name, eq + 1, origin);
	}
	if (rc) {
		settings_free(out);
		return lh_fail(err, rc, "out of memory");
	}
	return 0;
}

/* The policy text of one spawn without the start directory's grant. */
static int
spawn_text(const heel_policy *p, const struct lh_spawn_view *v, char **text, const char **name,
	   heel_error *err)
{
	struct settings s;
	struct diag_ctx *ctx;
	struct build_in in = {.cwd = v->cwd, .read_start_dir = v->start_dir, .named = v->named};
	char why[1200], *opts = NULL;
	int rc;

	*text = NULL;
	if (p->kind == LH_ARTIFACT)
		return lh_fail(err, -ENOTSUP,
			       "a compiled policy (.hpol) has no source text; "
			       "`heelc explain` says what it allows");
	rc = spawn_settings(p, v, &s, err);
	if (rc)
		return rc;
	ctx = diag_new();
	if (!ctx) {
		settings_free(&s);
		return lh_fail(err, -ENOMEM, "out of memory");
	}
	in.options = &s;
	rc = build_text(ctx, &in, &opts, why, sizeof(why));
	if (rc) {
		char *msg = lh_render(ctx);

		lh_fail(err, rc, "%s", why[0] ? why : msg ? msg : "the policy cannot be written");
		free(msg);
	}
	diag_free(ctx);
	settings_free(&s);
	if (rc)
		return rc;
	if (p->kind == LH_BUILDER) {
		*text = opts;
		*name = "<libheel>";
		return 0;
	}
	/* Source: its own text, then what the builder calls and this spawn
	 * add (without a second `heel 1`), so that they come last and win. */
	{
		const char *rest = strchr(opts, '\n');
		size_t a = strlen(p->text), b;
		bool nl = a && p->text[a - 1] != '\n';

		rest = rest ? rest + 1 : "";
		b = strlen(rest);
		*text = malloc(a + nl + b + 1);
		if (!*text) {
			free(opts);
			return lh_fail(err, -ENOMEM, "out of memory");
		}
		memcpy(*text, p->text, a);
		if (nl)
			(*text)[a] = '\n';
		memcpy(*text + a + nl, rest, b + 1);
		free(opts);
		*name = p->name;
	}
	return 0;
}

/* ${NAME} as the heel-exec this process starts will expand it: from the
 * environment it is given, and ${CWD} from this process's directory
 * (heel-exec is not started in the start directory, only told it). */
struct launch_env {
	const char *const *env;
	char cwd[PATH_MAX];
	char home[PATH_MAX]; /* HOME resolved, as heel-exec names it; "" when
			      * it crosses no link (env.h) */
};

static const char *
launch_lookup(const char *name, void *ctx)
{
	const struct launch_env *le = ctx;

	if (strcmp(name, "CWD") == 0)
		return le->cwd[0] == '/' ? le->cwd : NULL;
	if (strcmp(name, "WORKDIR") == 0)
		return NULL; /* heelc refuses it in a path */
	if (strcmp(name, "HOME") == 0 && le->home[0])
		return le->home;
	return envb_lookup((char *const *)le->env, name);
}

/* The start directory's read grant (startdir.h), for a policy already
 * compiled from *text into *bytes: left out, added (the text compiled
 * again, *warnings replaced), or refused. The grant names the directory
 * itself, resolved: ${CWD} would be heel-exec's own directory, which is
 * this process's, not the start directory. */
static int
start_grant(const struct lh_spawn_view *v, const char *name, bool quiet, char **text,
	    uint8_t **bytes, size_t *len, char **warnings, heel_error *err)
{
	extern char **environ;
	struct launch_env le = {.env = v->launcher_env};
	char dir[PATH_MAX], why[2048], *with = NULL;
	struct startdir sd;
	bool exists;
	int rc;

	if (!le.env)
		le.env = (const char *const *)environ;
	if (!getcwd(le.cwd, sizeof(le.cwd)))
		le.cwd[0] = '\0';
	if (envb_home_resolved((char *const *)le.env, le.home, sizeof(le.home)) <= 0)
		le.home[0] = '\0';
	rc = sbpl_canonicalize(v->cwd, dir, sizeof(dir), &exists);
	if (rc)
		return lh_fail(err, rc, "the start directory %s: %s", v->cwd, strerror(-rc));
	if (startdir_decide(*bytes, *len, dir, launch_lookup, &le, &sd) < 0)
		return lh_fail(err, -EINVAL, "the compiled policy does not validate");
	switch (sd.verdict) {
	case STARTDIR_READABLE:
		return 0;
	case STARTDIR_DENIED:
	case STARTDIR_STRICT:
	case STARTDIR_SYSTEM:
		startdir_message(&sd, dir, STARTDIR_WORDS_LIBHEEL, why, sizeof(why));
		return lh_fail(err, -EACCES, "%s", why);
	case STARTDIR_GRANT:
		break;
	}
	rc = policytext_add_start_grant(*text, dir, sd.grant_mode, &with, why, sizeof(why));
	if (rc)
		return lh_fail(err, rc, "%s", rc == -ENOMEM ? "out of memory" : why);
	free(*text);
	*text = with;
	free(*bytes);
	*bytes = NULL;
	if (warnings) {
		free(*warnings);
		*warnings = NULL;
	}
	return compile_text(name, *text, quiet, bytes, len, warnings, err);
}

int
lh_policy_source(const heel_policy *p, const struct lh_spawn_view *v, char **text,
		 const char **name, uint8_t **bytes, size_t *len, char **warnings, heel_error *err)
{
	/* A builder policy is all options: its scalars replace the bases'
	 * quietly, as `heel run`'s do. */
	bool quiet = p->kind == LH_BUILDER;
	uint8_t *own = NULL;
	size_t ownlen = 0;
	int rc;

	if (warnings)
		*warnings = NULL;
	rc = spawn_text(p, v, text, name, err);
	if (rc || (!bytes && !v->start_dir))
		return rc;
	if (!bytes) {
		bytes = &own;
		len = &ownlen;
	}
	rc = compile_text(*name, *text, quiet, bytes, len, warnings, err);
	if (!rc && v->start_dir)
		rc = start_grant(v, *name, quiet, text, bytes, len, warnings, err);
	free(own);
	if (rc) {
		free(*text);
		*text = NULL;
		if (bytes != &own) {
			free(*bytes);
			*bytes = NULL;
		}
		if (warnings) {
			free(*warnings);
			*warnings = NULL;
		}
	}
	return rc;
}

int
lh_policy_artifact(const heel_policy *p, const struct lh_spawn_view *v, uint8_t **bytes,
		   size_t *len, char **warnings, heel_error *err)
{
	const char *name;
	char *text;
	int rc;

	*bytes = NULL;
	*len = 0;
	if (warnings)
		*warnings = NULL;
	if (p->kind == LH_ARTIFACT) {
		if (v->env && v->env[0])
			return lh_fail(
			    err, -ENOTSUP,
			    "heel_spawn: a compiled policy (.hpol) cannot take "
			    "environment additions: heel-exec builds the environment from "
			    "the policy alone; build from its .heel source, or add `env set` "
			    "to it");
		*bytes = malloc(p->artlen);
		if (!*bytes)
			return lh_fail(err, -ENOMEM, "out of memory");
		memcpy(*bytes, p->art, p->artlen);
		*len = p->artlen;
		return 0;
	}
	rc = lh_policy_source(p, v, &text, &name, bytes, len, warnings, err);
	free(text);
	return rc;
}

int
lh_spawn_view(const struct heel_spawn_opts *o, char *buf, size_t buflen, struct lh_spawn_view *v,
	      heel_error *err)
{
	*v = (struct lh_spawn_view){.env = o->env, .launcher_env = o->launcher_env};
	if (o->cwd) {
		if (o->cwd[0] != '/')
			return lh_fail(err, -EINVAL, "the start directory `%s` is not absolute",
				       o->cwd);
		v->cwd = o->cwd;
		v->start_dir = true;
		return 0;
	}
	if (!getcwd(buf, buflen))
		return lh_fail(err, -errno, "cannot tell the current directory: %s",
			       strerror(errno));
	v->cwd = buf;
	return 0;
}

char *
heel_policy_text(const heel_policy *p, const struct heel_spawn_opts *o, heel_error *err)
{
	struct heel_spawn_opts opts;
	struct lh_spawn_view v;
	struct diag_ctx *ctx;
	char cwd[PATH_MAX], *text, *out = NULL;
	const char *name;
	int rc;

	if (!p)
		return lh_fail(err, -EINVAL, "heel_policy_text: no policy"), NULL;
	if (lh_opts_read(o, &opts, err) || lh_spawn_view(&opts, cwd, sizeof(cwd), &v, err) ||
	    lh_policy_source(p, &v, &text, &name, NULL, NULL, NULL, err))
		return NULL;
	ctx = diag_new();
	rc = ctx ? build_format(ctx, name, text, &out) : -ENOMEM;
	if (rc == -ENOMEM) {
		lh_fail(err, rc, "out of memory");
	} else if (rc) {
		char *msg = lh_render(ctx);

		lh_fail(err, -EINVAL, "%s", msg ? msg : "the policy does not parse");
		free(msg);
	} else {
		lh_ok(err);
	}
	diag_free(ctx);
	free(text);
	return rc ? NULL : out;
}

int
heel_policy_check(const heel_policy *p, const struct heel_spawn_opts *o, char **warnings,
		  heel_error *err)
{
	struct heel_spawn_opts opts;
	struct lh_spawn_view v;
	char cwd[PATH_MAX];
	uint8_t *bytes = NULL;
	size_t len;
	int rc;

	if (warnings)
		*warnings = NULL;
	if (!p)
		return lh_fail(err, -EINVAL, "heel_policy_check: no policy");
	rc = lh_opts_read(o, &opts, err);
	if (!rc)
		rc = lh_spawn_view(&opts, cwd, sizeof(cwd), &v, err);
	if (!rc)
		rc = lh_policy_artifact(p, &v, &bytes, &len, warnings, err);
	free(bytes);
	if (!rc)
		lh_ok(err);
	return rc;
}

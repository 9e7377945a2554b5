/* SPDX-License-Identifier: MIT
 * Options and a configuration file -> policy text -> artifact bytes (see
 * build.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_read.h"
#include "artifact_write.h"
#include "ast.h"
#include "build.h"
#include "config_toml.h"
#include "fmt.h"
#include "grow.h"
#include "hostcheck.h"
#include "ir.h"
#include "parse.h"
#include "pathres.h"
#include "policytext.h"
#include "sema.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void
build_named_free(struct build_named_list *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].origin);
	}
	if (l) {
		free(l->v);
		*l = (struct build_named_list){ 0 };
	}
}

int
build_named_add(struct build_named_list *l, const char *cwd, const char *spelled,
		const char *origin, bool sink)
{
	struct build_named *v;

	if (!l)
		return 0;
	if (!(v = grow_array(l->v, &l->cap, l->n + 1, sizeof(*v), 16)))
		return -ENOMEM;
	l->v = v;
	v = &l->v[l->n];
	*v = (struct build_named){ .sink = sink };
	while (spelled[0] == '.' && spelled[1] == '/')
		spelled += 2 + strspn(spelled + 2, "/");
	if (spelled[0] == '/')
		v->path = strdup(spelled);
	else if (asprintf(&v->path, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "",
			  spelled[0] ? spelled : ".") < 0)
		v->path = NULL;
	if (asprintf(&v->origin, "%s:", origin ? origin : "a path") < 0)
		v->origin = NULL;
	if (!v->path || !v->origin) {
		free(v->path);
		free(v->origin);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* Replaces *spelled with its resolved form, keeping the spelling in
 * `named` for build_check_named (the links it crosses are judged once
 * the policy says where its sandbox may write). */
struct resolved {
	char **slot;	/* where the path lives in the settings */
	const char *origin;
	bool sink;
};

static int
resolve_all(struct settings *s, const char *cwd, struct build_named_list *named, char *err,
	    size_t errlen)
{
	size_t n = s->ngrants + 2, k = 0;
	struct resolved *rs = calloc(n, sizeof(*rs));
	struct pathres_memo memo = { 0 };
	int rc = 0;

	if (!rs)
		return -ENOMEM;
	for (size_t i = 0; i < s->ngrants; i++)
		rs[k++] = (struct resolved){ &s->grants[i].path, s->grants[i].origin, false };
	if (s->audit_log.value)
		rs[k++] = (struct resolved){ &s->audit_log.value, s->audit_log.origin, true };
	if (s->working_dir.value)
		rs[k++] = (struct resolved){ &s->working_dir.value, s->working_dir.origin, false };
	for (size_t i = 0; i < k && !rc; i++) {
		struct pathres r;
		char why[600];

		rc = build_named_add(named, cwd, *rs[i].slot, rs[i].origin, rs[i].sink);
		if (!rc)
			rc = pathres_resolve_memo(cwd, *rs[i].slot, &memo, &r, why, sizeof(why));
		if (rc) {
			if (rc != -ENOMEM)
				snprintf(err, errlen, "%s: %s", rs[i].origin, why);
			break;
		}
		free(*rs[i].slot);
		*rs[i].slot = r.path;
		r.path = NULL;
		pathres_free(&r);
	}
	free(rs);
	pathres_memo_free(&memo);
	return rc;
}

int
build_check_named(const struct build_named_list *l, const uint8_t *bytes, size_t len,
		  const char *cwd, char *const *env, const char *exe, char *err, size_t errlen)
{
	struct envb_launch vars = { .env = env, .cwd = cwd };
	struct hc_places places;
	struct art_view view;
	int rc;

	if ((rc = art_validate(bytes, len, &view, err, errlen)) < 0)
		return rc;
	rc = hc_places_init(&places, env);
	if (!rc)
		rc = hc_places_add_policy(&places, &view, &vars, err, errlen);
	for (size_t i = 0; !rc && l && i < l->n; i++)
		rc = hc_check(&places, l->v[i].sink ? HC_APPEND : HC_GRANT, l->v[i].origin,
			      l->v[i].path, err, errlen);
	if (!rc && exe)
		rc = hc_check(&places, HC_START, "heel-exec:", exe, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	hc_places_free(&places);
	return rc;
}

/* The original's rules between the network options: domains without a
 * mode mean an allow-list; with another mode they are a mistake. */
static int
settle_network(struct settings *s, char *err, size_t errlen)
{
	/* Private ranges are a matter for the proxy, which only runs when
	 * the network is not deny: refused rather than ignored. */
	if (s->allow_private.on == TRI_ON && !s->ndomains &&
	    (!s->network.value || strcmp(s->network.value, "deny") == 0)) {
		snprintf(err, errlen, "%s: the network is deny (%s), where no proxy runs and nothing "
			 "private or public is reached; add --network allow-all or --allow-domain "
			 "PATTERN", s->allow_private.origin,
			 s->network.origin ? s->network.origin : "the default");
		return -EINVAL;
	}
	if (!s->ndomains)
		return 0;
	if (!s->network.value)
		return settings_set_scalar(&s->network, "allow-list", s->domains[0].origin);
	if (strcmp(s->network.value, "allow-list") != 0) {
		snprintf(err, errlen, "%s: domains are allowed only with --network allow-list (the "
			 "network is %s, from %s)", s->domains[0].origin, s->network.value,
			 s->network.origin ? s->network.origin : "the default");
		return -EINVAL;
	}
	return 0;
}

int
build_text(struct diag_ctx *ctx, const struct build_in *in, char **text, char *err, size_t errlen)
{
	struct settings file = { 0 }, merged = { 0 };
	const char *includes[2];
	size_t nincludes = 0;
	char *abs[2] = { NULL, NULL };
	int rc = 0;

	*text = NULL;
	err[0] = '\0';
	/* .heel files are included by absolute path: the text is compiled
	 * from memory, with no directory of its own. */
	for (int i = 0; i < 2 && !rc; i++) {
		const char *f = i == 0 ? in->policy : in->config;
		struct pathres r;
		char why[600];

		if (!f || (i == 1 && !ends_with(f, ".heel")))
			continue;
		rc = pathres_resolve(in->cwd, f, &r, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%s: %s", f, why);
			break;
		}
		abs[i] = r.path;
		r.path = NULL;
		pathres_free(&r);
		includes[nincludes++] = abs[i];
	}
	if (!rc && in->config && !ends_with(in->config, ".heel")) {
		if (ends_with(in->config, ".hpol")) {
			snprintf(err, errlen, "--config %s: a compiled artifact is a whole policy; give it "
				 "with --policy", in->config);
			rc = -EINVAL;
		} else {
			rc = config_toml_read(ctx, in->config, &file);
		}
	}
	if (!rc)
		rc = settings_merge(&file, in->options, &merged);
	/* heel python runs CPython: the stock preset that lets it start
	 * (version managers' interpreters, its variables), as if asked. */
	if (!rc && in->python)
		rc = settings_add_preset(&merged, "python", "heel python");
	if (!rc && in->script) {
		struct pathres r;
		char why[600];

		rc = pathres_resolve(in->cwd, in->script, &r, why, sizeof(why));
		if (rc)
			snprintf(err, errlen, "%s: %s", in->script, why);
		else if (!(in->read_start_dir && pathres_beneath(r.path, in->cwd)))
			rc = settings_add_grant(&merged, r.path, "r", "heel python: the script");
		pathres_free(&r);
	}
	if (!rc)
		rc = settle_network(&merged, err, errlen);
	if (!rc)
		rc = resolve_all(&merged, in->cwd, in->named, err, errlen);
	if (!rc) {
		/* Without the start directory's read grant: whether it is
		 * added is decided from the compiled policy (startdir.h). */
		struct policytext_in pin = {
			.settings = &merged,
			.includes = includes,
			.nincludes = nincludes,
		};

		rc = policytext_render(&pin, text, err, errlen);
	}
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	settings_free(&file);
	settings_free(&merged);
	free(abs[0]);
	free(abs[1]);
	return rc;
}

int
build_compile(struct diag_ctx *ctx, const char *name, const char *text, bool quiet_top,
	      uint8_t **bytes, size_t *len)
{
	struct sema_options opts = {
		.path = name,
		.text = text,
		.len = strlen(text),
		/* Built to run here and now: only this machine's part. Another
		 * platform's would cost time, and its warnings (what Windows
		 * cannot enforce) would be noise about a launch that is not
		 * happening. */
		.platforms = IR_PLAT_BIT(BUILD_HOST_PLATFORM),
		.top_overrides_quietly = quiet_top,
	};
	struct ir_policy *ir = NULL;
	int rc;

	if (bytes) {
		*bytes = NULL;
		*len = 0;
	}
	rc = sema_compile(ctx, &opts, &ir);
	if (rc)
		return rc;
	if (bytes)
		rc = artifact_write(ir, bytes, len);
	ir_policy_free(ir);
	return rc;
}

int
build_format(struct diag_ctx *ctx, const char *name, const char *text, char **out)
{
	const struct diag_source *src = diag_add_source(ctx, name, name, text, strlen(text));
	struct ast_file *file = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if (!src)
		return -ENOMEM;
	rc = parse_source(ctx, src, &file);
	if (!rc)
		rc = fmt_render(file, out, &len);
	ast_file_free(file);
	return rc;
}

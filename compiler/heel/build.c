/* SPDX-License-Identifier: MIT
 * Options and a configuration file -> policy text -> artifact bytes (see
 * build.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	/* "--audit-log /x" and the path /x: said once ("--audit-log /x: ..."). */
	{
		size_t no = origin ? strlen(origin) : 0, ns = strlen(v->path ? v->path : "");

		if (origin && spelled[0] == '/' && v->path && no > ns && origin[no - ns - 1] == ' ' &&
		    strcmp(origin + no - ns, v->path) == 0) {
			if (asprintf(&v->origin, "%.*s", (int)(no - ns - 1), origin) < 0)
				v->origin = NULL;
		} else if (asprintf(&v->origin, "%s:", origin ? origin : "a path") < 0) {
			v->origin = NULL;
		}
	}
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

/* 0 when `path` opens for reading and is a regular file; -errno. */
static int
readable_file(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	close(fd);
	return r;
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
		/* Said of the option here: the compiler would report it as a
		 * failed `include` in the text heel made. */
		if ((rc = readable_file(abs[i])) < 0) {
			snprintf(err, errlen, "%s %s: %s", i == 0 ? "--policy" : "--config", f,
				 strerror(-rc));
			break;
		}
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
	if (!rc && in->tool_caches)
		*in->tool_caches = merged.tool_caches.on;
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

/* The text registered as `name`, for an error about the policy as a
 * whole (the last one: a context may hold an earlier compile's). */
static const struct diag_source *
top_source(const struct diag_ctx *ctx, const char *name)
{
	for (size_t i = diag_source_count(ctx); i-- > 0;)
		if (strcmp(diag_source_at(ctx, i)->path, name) == 0)
			return diag_source_at(ctx, i);
	return NULL;
}

/* One origin of the text `name` moved to what its line's comment names:
 * "--writable ./out" (line 0: an option, said as written), or
 * "/x/heel.toml:4:12" (that file, line and column). A line without a
 * comment keeps its place in the text. 0 or -ENOMEM. */
static int
relocate(struct ir_policy *ir, struct ir_origin *o, const char *name, const char *text)
{
	char c[1024], *end;
	const char *colon2, *colon1;
	unsigned long line, col;

	if (!o->file || strcmp(o->file, name) != 0 ||
	    policytext_origin_at(text, o->line, c, sizeof(c)) < 0)
		return 0;
	o->line = o->col = 0;
	/* FILE:LINE:COL: the two last colons, digits after each. */
	colon2 = strrchr(c, ':');
	for (colon1 = colon2 ? colon2 - 1 : NULL; colon1 && colon1 > c && *colon1 != ':'; colon1--)
		;
	if (c[0] != '-' && colon2 && colon1 && colon1 > c && *colon1 == ':' &&
	    (line = strtoul(colon1 + 1, &end, 10)) > 0 && end == colon2 &&
	    (col = strtoul(colon2 + 1, &end, 10)) > 0 && !*end && line < UINT32_MAX &&
	    col < UINT32_MAX) {
		*(char *)colon1 = '\0';
		o->line = (uint32_t)line;
		o->col = (uint32_t)col;
	}
	o->file = ir_intern(ir, c);
	return o->file ? 0 : -ENOMEM;
}

/* Every rule of `heel run`'s text gets the origin its comment names, so
 * that heel-exec's messages (a grant whose path is missing, a limit that
 * killed the command) point at the option or the TOML line the user
 * wrote rather than at a line of a text they never saw. */
static int
relocate_all(struct ir_policy *ir, const char *name, const char *text)
{
	int r = 0;

#define RELOC(o) (r = r ? r : relocate(ir, &(o), name, text))
	for (size_t i = 0; i < ir->npaths; i++)
		RELOC(ir->paths[i].origin);
	for (size_t i = 0; i < ir->nreadonly; i++)
		RELOC(ir->readonly[i].origin);
	for (size_t i = 0; i < ir->npatterns; i++)
		RELOC(ir->patterns[i].origin);
	for (size_t i = 0; i < ir->nenv_pass; i++)
		RELOC(ir->env_pass[i].origin);
	for (size_t i = 0; i < ir->nenv_set; i++)
		RELOC(ir->env_set[i].origin);
	for (size_t i = 0; i < ir->nipc; i++)
		RELOC(ir->ipc[i].origin);
	for (size_t i = 0; i < ir->nseccomp; i++)
		RELOC(ir->seccomp[i].origin);
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		struct ir_scalars *sc = &ir->scalar[p];

		RELOC(ir->python[p].origin);
		RELOC(ir->decider[p].origin);
		RELOC(sc->isolation.origin);
		RELOC(sc->network.origin);
		RELOC(sc->allow_private.origin);
		RELOC(sc->audit_kind.origin);
		RELOC(sc->audit_path.origin);
		for (int l = 0; l < IR_LIMIT_COUNT; l++)
			RELOC(sc->limits[l].origin);
		RELOC(sc->nice.origin);
		RELOC(sc->io_priority.origin);
		RELOC(sc->gpu.origin);
		RELOC(sc->workdir.origin);
		RELOC(sc->protections.origin);
		RELOC(sc->unix_sockets.origin);
	}
#undef RELOC
	return r;
}

static int
compile(struct diag_ctx *ctx, const char *name, const char *text, bool quiet_top,
	bool relocated, uint8_t **bytes, size_t *len)
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
	if (relocated)
		rc = relocate_all(ir, name, text);
	if (bytes && !rc)
		rc = artifact_write(ir, bytes, len);
	ir_policy_free(ir);
	if (rc && rc != -ENOMEM) {
		char msg[256];

		diag_push(ctx, DIAG_ERROR, &(struct diag_loc){top_source(ctx, name), 0, 0}, NULL, "%s",
			  artifact_write_strerror(rc, msg, sizeof(msg)));
		rc = -EINVAL;
	}
	return rc;
}

int
build_compile(struct diag_ctx *ctx, const char *name, const char *text, bool quiet_top,
	      uint8_t **bytes, size_t *len)
{
	return compile(ctx, name, text, quiet_top, false, bytes, len);
}

int
build_compile_options(struct diag_ctx *ctx, const char *name, const char *text, uint8_t **bytes,
		      size_t *len)
{
	return compile(ctx, name, text, true, true, bytes, len);
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

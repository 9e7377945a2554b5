/* SPDX-License-Identifier: MIT
 * What a platform's part of the artifact can hold, checked once the IR is
 * built, so that a policy past a limit is refused at the statement that
 * passes it (file:line:col, exit 1) rather than by the artifact writer
 * with a bare errno: the macOS part's SBPL parameters and the Windows
 * part's ACE entries, both bounded by the artifact format
 * (runtime/artifact.h), which heel-exec's reader enforces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl_build.h"
#include "artifact.h"
#include "sbpl_emit.h"
#include "sema_int.h"

/* A path statement of the user's own, by where it was written. */
struct user_rule {
	const char *file;
	uint32_t line, col;
	size_t order; /* index in s->paths: the order statements first named it */
};

static int
cmp_user_rule(const void *a, const void *b)
{
	const struct user_rule *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->file ? x->file : "", y->file ? y->file : "");
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* What each backend record came from, as a rank in statement order: the
 * index in s->paths of the user's path statement it came from, or 0 for
 * one that is there whatever the user writes (the isolation base, a
 * preset, a protection set, the working directory, shared temp). */
#define RANK_FIXED 0

struct ranker {
	struct user_rule *rules;
	size_t n;
};

static int
ranker_init(struct sema *s, int p, struct ranker *rk)
{
	rk->n = 0;
	rk->rules = calloc(s->npaths ? s->npaths : 1, sizeof(*rk->rules));
	if (!rk->rules) {
		s->oom = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->npaths; i++) {
		const struct sema_cell *c = &s->paths[i].cell[p];

		if (c->present && c->source == IR_SRC_USER)
			rk->rules[rk->n++] = (struct user_rule){c->origin.file, c->origin.line,
							       c->origin.col, i};
	}
	qsort(rk->rules, rk->n, sizeof(*rk->rules), cmp_user_rule);
	return 0;
}

static size_t
ranker_rank(const struct ranker *rk, const char *file, uint32_t line, uint32_t col)
{
	struct user_rule key = {file, line, col, 0};
	const struct user_rule *r;

	if (!line)
		return RANK_FIXED;
	r = bsearch(&key, rk->rules, rk->n, sizeof(*rk->rules), cmp_user_rule);
	return r ? r->order + 1 : RANK_FIXED;
}

/* ranks[0..n) of the records of one part, n > limit: the user's
 * statement whose records pass the limit, taking every record of the
 * fixed rules first and the user's statements in the order they were
 * written (s->paths is in first-mention order); NULL when the fixed ones
 * alone pass it. Sorts ranks. */
static const struct sema_path *
passing_rule(struct sema *s, size_t *ranks, size_t n, size_t limit)
{
	qsort(ranks, n, sizeof(*ranks), cmp_size);
	return ranks[limit] == RANK_FIXED ? NULL : &s->paths[ranks[limit] - 1];
}

static void
report(struct sema *s, int p, const struct sema_path *rule, const char *hint, const char *fmt,
       size_t n, size_t limit)
{
	struct diag_loc top = {s->files[0]->src, 0, 0};
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, n, limit);
	if (rule)
		diag_push(s->ctx, DIAG_ERROR, &rule->cell[p].loc, hint,
			  "%s; `%s` is the path rule that passes the limit", msg, rule->path);
	else
		diag_push(s->ctx, DIAG_ERROR, &top, hint, "%s", msg);
}

/* The macOS part: one SBPL parameter per path rule of the profile
 * (docs/sbpl.md), at most ART_SBPL_MAX_PARAMS, which stands in for the
 * size libsandbox compiles (runtime/artifact.h says what is known). */
static void
check_sbpl_params(struct sema *s)
{
	const struct ir_policy *ir = s->ir;
	size_t bound = 5, *ranks = NULL; /* venv, shared temp (2), WORKDIR, PROXY */
	struct sbpl_profile prof;
	struct ranker rk;
	int rc;

	if (!(ir->platforms & IR_PLAT_BIT(IR_MACOS)))
		return;
	for (size_t i = 0; i < ir->npaths; i++)
		bound += (ir->paths[i].platforms & IR_PLAT_BIT(IR_MACOS)) != 0;
	for (size_t i = 0; i < ir->nreadonly; i++)
		bound += (ir->readonly[i].platforms & IR_PLAT_BIT(IR_MACOS)) != 0;
	/* Rules only ever merge: under the bound, nothing to count. */
	if (bound <= ART_SBPL_MAX_PARAMS)
		return;
	rc = sbpl_emit(ir, &prof, NULL, 0);
	if (rc == -ENOMEM)
		s->oom = true;
	if (rc)
		return; /* what SBPL cannot say is reported at its statement */
	if (prof.nparams > ART_SBPL_MAX_PARAMS && ranker_init(s, IR_MACOS, &rk) == 0) {
		ranks = calloc(prof.nparams, sizeof(*ranks));
		if (!ranks)
			s->oom = true;
		for (size_t i = 0; ranks && i < prof.nparams; i++)
			ranks[i] = ranker_rank(&rk, prof.params[i].origin.file,
					       prof.params[i].origin.line, prof.params[i].origin.col);
		if (ranks)
			report(s, IR_MACOS,
			       passing_rule(s, ranks, prof.nparams, ART_SBPL_MAX_PARAMS),
			       "grant a directory that holds the paths rather than each of them, "
			       "or leave macos out: `heelc --target linux --target windows`, or the "
			       "rules inside `on linux { }`",
			       "the macOS part of this policy needs %zu SBPL path parameters (one a "
			       "path rule), more than the %zu heel-exec takes on macOS",
			       prof.nparams, ART_SBPL_MAX_PARAMS);
		free(ranks);
		free(rk.rules);
	}
	sbpl_profile_free(&prof);
}

/* Whether entry e is a `readonly each-writable` path inside a writable
 * entry (acl_build gives it the readonly statement's origin). */
static bool
from_each_writable(const struct ir_policy *ir, const struct win_entry *e)
{
	for (size_t i = 0; i < ir->nreadonly; i++) {
		const struct ir_readonly *ro = &ir->readonly[i];

		if (ro->each_writable && ro->origin.line == e->origin_line &&
		    ro->origin.col == e->origin_col &&
		    strcmp(ro->origin.file ? ro->origin.file : "",
			   e->origin_file ? e->origin_file : "") == 0)
			return true;
	}
	return false;
}

/* The rank of the writable entry an each-writable entry lies in: the
 * nearest entry above its path (entries are sorted by path), so that it
 * counts with the grant that brought it. */
static size_t
place_rank(const struct win_manifest *m, const size_t *ranks, const struct win_entry *e)
{
	char *path = strdup(e->path), *cut;
	size_t best = RANK_FIXED;

	while (path && (cut = strrchr(path, '\\')) && best == RANK_FIXED) {
		size_t lo = 0, hi = m->nentries;

		*cut = '\0';
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(m->entries[mid].path, path) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m->nentries && strcmp(m->entries[lo].path, path) == 0; lo++)
			if (m->entries[lo].ace == WIN_ACE_ALLOW)
				best = ranks[lo];
	}
	free(path);
	return best;
}

/* The Windows part: at most ART_WIN_MAX_ACES entries, a bound of the
 * artifact format that keeps heel-exec.exe's work in reading and
 * applying them finite (Windows itself bounds each file's ACL, to 64 KiB,
 * not the number of files). A writable grant brings one entry of its
 * own and one per `readonly each-writable` path inside it. */
static void
check_win_aces(struct sema *s)
{
	const struct ir_policy *ir = s->ir;
	size_t bound = 1, writable = 1, each = 0, *ranks;
	struct acl_manifest *a = NULL;
	struct ranker rk;
	int rc;

	if (!(ir->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return;
	for (size_t i = 0; i < ir->npaths; i++)
		if (ir->paths[i].platforms & IR_PLAT_BIT(IR_WINDOWS)) {
			bound++;
			writable += (ir->paths[i].mode & IR_WRITE) != 0;
		}
	for (size_t i = 0; i < ir->nreadonly; i++)
		if (ir->readonly[i].platforms & IR_PLAT_BIT(IR_WINDOWS)) {
			if (ir->readonly[i].each_writable)
				each++;
			else
				bound++;
		}
	if (bound + each * writable <= ART_WIN_MAX_ACES)
		return;
	rc = acl_build(ir, &a);
	if (rc == -ENOMEM)
		s->oom = true;
	if (rc)
		return;
	if (a->m.nentries > ART_WIN_MAX_ACES && ranker_init(s, IR_WINDOWS, &rk) == 0) {
		ranks = calloc(a->m.nentries, sizeof(*ranks));
		if (!ranks)
			s->oom = true;
		for (size_t i = 0; ranks && i < a->m.nentries; i++)
			ranks[i] = ranker_rank(&rk, a->m.entries[i].origin_file,
					       a->m.entries[i].origin_line, a->m.entries[i].origin_col);
		for (size_t i = 0; ranks && i < a->m.nentries; i++)
			if (from_each_writable(ir, &a->m.entries[i]))
				ranks[i] = place_rank(&a->m, ranks, &a->m.entries[i]);
		if (ranks)
			report(s, IR_WINDOWS,
			       passing_rule(s, ranks, a->m.nentries, ART_WIN_MAX_ACES),
			       "grant a directory that holds the paths rather than each of them, "
			       "or leave windows out: `heelc --target linux --target macos`, or the "
			       "rules inside `on linux { }`",
			       "the Windows part of this policy needs %zu ACE entries, more than the "
			       "%zu heel-exec.exe takes",
			       a->m.nentries, (size_t)ART_WIN_MAX_ACES);
		free(ranks);
		free(rk.rules);
	}
	acl_manifest_free(a);
}

void
sema_check_limits(struct sema *s)
{
	check_sbpl_params(s);
	if (!s->oom)
		check_win_aces(s);
}

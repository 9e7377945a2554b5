/* SPDX-License-Identifier: MIT
 * Semantic analysis: evaluates the base, the user's files (includes in
 * place) and the protection sets in that order, checks every statement,
 * and builds the IR. Every error is reported; none stops the analysis. */
#include "sema.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "errno_names.h"
#include "fmt.h"
#include "grow.h"
#include "hash.h"
#include "sbpl_check.h"
#include "sbpl_emit.h"
#include "sema_int.h"
#include "suggest.h"
#include "syscalls.h"
#include "units.h"

/* ------------------------------------------------------------ helpers */

int
sema_grow(struct sema *s, void **arr, size_t *cap, size_t n, size_t elem)
{
	void *grown = grow_array(*arr, cap, n + 1, elem, 0);

	if (!grown) {
		s->oom = true;
		return -ENOMEM;
	}
	*arr = grown;
	return 0;
}

char *
sema_strdup(struct sema *s, const char *str)
{
	char *d = strdup(str);

	if (!d)
		s->oom = true;
	return d;
}

char *
sema_strndup(struct sema *s, const char *str, size_t len)
{
	char *d = strndup(str, len);

	if (!d)
		s->oom = true;
	return d;
}

int
sema_map_get(const struct sema_map *m, const char *key, size_t *value)
{
	if (!m->cap)
		return 0;
	for (size_t i = (size_t)hash_fnv1a(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return 0;
		if (strcmp(m->keys[i], key) == 0) {
			*value = m->values[i];
			return 1;
		}
	}
}

int
sema_map_put(struct sema *s, struct sema_map *m, const char *key, size_t value)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		const char **keys = calloc(ncap, sizeof(*keys));
		size_t *values = calloc(ncap, sizeof(*values));

		if (!keys || !values) {
			free(keys);
			free(values);
			s->oom = true;
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			size_t j;

			if (!m->keys[i])
				continue;
			for (j = (size_t)hash_fnv1a(m->keys[i]) & (ncap - 1); keys[j];
			     j = (j + 1) & (ncap - 1))
				;
			keys[j] = m->keys[i];
			values[j] = m->values[i];
		}
		free(m->keys);
		free(m->values);
		m->keys = keys;
		m->values = values;
		m->cap = ncap;
	}
	for (size_t i = (size_t)hash_fnv1a(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i]) {
			m->keys[i] = key;
			m->values[i] = value;
			m->n++;
			return 0;
		}
		if (strcmp(m->keys[i], key) == 0) {
			m->values[i] = value;
			return 0;
		}
	}
}

void
sema_map_free(struct sema_map *m)
{
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

struct ir_origin
sema_origin(const struct sema_ectx *e, const struct diag_loc *loc)
{
	struct ir_origin o = {e->file->origin, loc->line, loc->col};

	return o;
}

const char *
sema_platform_list(unsigned mask, char buf[static SEMA_PLATFORM_LIST_MAX])
{
	const char *names[IR_PLATFORM_COUNT];
	size_t n = 0;

	for (int p = 0; p < IR_PLATFORM_COUNT; p++)
		if (mask & IR_PLAT_BIT(p))
			names[n++] = ir_platform_name(p);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(buf, i + 1 == n ? " and " : ", ");
		strcat(buf, names[i]);
	}
	return buf;
}

void
sema_unknown_word(struct sema *s, const struct diag_loc *loc, const char *what, const char *word,
		  const char *const *cands)
{
	const char *near = NULL;
	char lower[64], hint[512];
	size_t n = 0, i;

	/* A word in the wrong case is the commonest slip ("RW", "GIB"): name
	 * the right spelling even where edit distance would not. */
	for (i = 0; word[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)word[i]);
	lower[i] = '\0';
	for (i = 0; cands && cands[i]; i++, n++)
		if (!near && strcasecmp(cands[i], word) == 0)
			near = cands[i];
	if (!near && cands) {
		near = suggest_word(word, cands);
		if (!near && strcmp(lower, word) != 0)
			near = suggest_word(lower, cands);
	}
	if (near) {
		snprintf(hint, sizeof(hint), "did you mean `%s`?", near);
	} else if (n && n <= 9) { /* up to the nine protection sets */
		size_t o = (size_t)snprintf(hint, sizeof(hint), "expected ");

		for (i = 0; i < n && o < sizeof(hint); i++)
			o += (size_t)snprintf(hint + o, sizeof(hint) - o, "%s`%s`",
					      !i	   ? ""
					      : i + 1 == n ? " or "
							   : ", ",
					      cands[i]);
	} else {
		hint[0] = '\0';
	}
	diag_push(s->ctx, DIAG_ERROR, loc, hint[0] ? hint : NULL, "unknown %s `%s`", what, word);
}

static const char *
kind_name(enum ast_kind kind)
{
	switch (kind) {
	case AST_HEEL:
		return "heel";
	case AST_ISOLATION:
		return "isolation";
	case AST_INCLUDE:
		return "include";
	case AST_GRANT:
		return "grant";
	case AST_DENY:
		return "deny";
	case AST_PROTECT:
		return "protect";
	case AST_UNPROTECT:
		return "unprotect";
	case AST_ALLOW_GPU:
		return "allow gpu";
	case AST_DENY_GPU:
		return "deny gpu";
	case AST_NETWORK_DENY:
		return "network deny";
	case AST_NETWORK_ALLOW_ALL:
		return "network allow-all";
	case AST_NETWORK_ALLOW:
		return "network allow";
	case AST_PATTERN:
		return "pattern";
	case AST_NETWORK_ALLOW_PRIVATE:
		return "network allow-private";
	case AST_NETWORK_AUDIT:
		return "network audit";
	case AST_NETWORK_DECIDE:
		return "network decide";
	case AST_LIMIT:
		return "limit";
	case AST_NICE:
		return "nice";
	case AST_IO_PRIORITY:
		return "io-priority";
	case AST_ENV_PASS:
		return "env pass";
	case AST_ENV_SET:
		return "env set";
	case AST_WORKDIR:
		return "workdir";
	case AST_IPC:
		return "ipc";
	case AST_IPC_EXEC:
		return "exec";
	case AST_IPC_POSITIONAL:
		return "positional";
	case AST_IPC_TIMEOUT:
		return "timeout";
	case AST_IPC_ARG:
		return "arg";
	case AST_PYTHON:
		return "python";
	case AST_PY_VENV:
		return "venv";
	case AST_PY_PACKAGES:
		return "packages";
	case AST_PY_ALLOW_PIP:
		return "allow-pip-install";
	case AST_ON:
		return "on";
	case AST_SECCOMP:
		return "seccomp";
	case AST_ALLOW_UNIX_SOCKETS:
		return "allow unix-sockets";
	case AST_ALLOW_MACH_LOOKUP:
		return "allow mach-lookup";
	case AST_SBPL:
		return "sbpl";
	case AST_CAPABILITY:
		return "capability";
	case AST_READONLY:
		return "readonly";
	default:
		return "statement";
	}
}

static const char *
arg_kind_name(enum ast_arg_kind k)
{
	switch (k) {
	case AST_ARG_WORD:
		return "a word";
	case AST_ARG_UPPER:
		return "an upper-case name";
	case AST_ARG_NUMBER:
		return "a number";
	case AST_ARG_STRING:
		return "a quoted string";
	default:
		return "a <name>";
	}
}

/* The i-th argument if it has the kind the grammar promises; the parser
 * should never build anything else, but sema does not trust it blindly.
 * Words accept upper-case spellings so "RW" gets a "did you mean". */
static const struct ast_arg *
arg(struct sema *s, const struct ast_stmt *st, size_t i, enum ast_arg_kind kind)
{
	const struct ast_arg *a = i < st->nargs ? &st->args[i] : NULL;

	if (a && (a->kind == kind || (kind == AST_ARG_WORD && a->kind == AST_ARG_UPPER) ||
		  (kind == AST_ARG_UPPER && a->kind == AST_ARG_WORD)))
		return a;
	diag_push(s->ctx, DIAG_ERROR, a ? &a->loc : &st->loc, NULL, "`%s` expects %s here",
		  kind_name(st->kind), arg_kind_name(kind));
	return NULL;
}

/* The index of `word` in NULL-terminated `names`, or -1. */
static int
lookup(const char *word, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], word) == 0)
			return i;
	return -1;
}

static bool
has_nul(const struct ast_arg *a)
{
	return strlen(a->text) != a->len;
}

/* Iterates over the platforms of a mask. */
#define FOR_PLATFORMS(p, mask)                                                                     \
	for (int p = 0; p < IR_PLATFORM_COUNT; p++)                                                \
		if ((mask)&IR_PLAT_BIT(p))

/* ------------------------------------------------------------ scalars */

static bool
is_stock(uint8_t source)
{
	return source == IR_SRC_BASE || source == IR_SRC_PROTECTION;
}

/* Records that the statement at `loc` sets scalar `slot` on the platforms
 * of `mask`. A later scalar replaces an earlier one (so a file can
 * override what it includes), with a
 * warning at the later and a note at the earlier. Overriding the base is
 * what a policy is for, so only non-stock over non-stock warns (a user
 * file overriding a preset it includes does warn). `warn_mask` narrows
 * the platforms where replacing counts (a second `network allow { }`
 * adds to the list instead of replacing it). */
static void
touch_slot(struct sema *s, enum sema_slot slot, const char *name, unsigned mask, unsigned warn_mask,
	   const struct sema_ectx *e, const struct diag_loc *loc)
{
	struct diag_loc earlier[IR_PLATFORM_COUNT];
	size_t nearlier = 0;

	FOR_PLATFORMS(p, mask & warn_mask)
	{
		const struct sema_slot_state *st = &s->slots[slot][p];
		bool seen = false;

		if (!st->set || st->stock || is_stock(e->source))
			continue;
		for (size_t i = 0; i < nearlier; i++)
			if (earlier[i].src == st->loc.src && earlier[i].line == st->loc.line &&
			    earlier[i].col == st->loc.col)
				seen = true;
		if (!seen)
			earlier[nearlier++] = st->loc;
	}
	/* Options that `heel run` wrote into the top text replace what the
	 * files it includes say by design: no warning for them. */
	if (s->opts->top_overrides_quietly && loc->src && !loc->src->included_from &&
	    !loc->src->is_preset)
		nearlier = 0;
	if (nearlier) {
		diag_push(s->ctx, DIAG_WARNING, loc, NULL,
			  "`%s` set again; the earlier value is replaced", name);
		for (size_t i = 0; i < nearlier; i++)
			diag_push(s->ctx, DIAG_NOTE, &earlier[i], NULL, "earlier setting was here");
	}
	FOR_PLATFORMS(p, mask)
	{
		s->slots[slot][p].set = true;
		s->slots[slot][p].stock = is_stock(e->source);
		s->slots[slot][p].loc = *loc;
	}
}

static void
set_u64(struct ir_u64 *v, uint64_t value, const struct sema_ectx *e, const struct diag_loc *loc)
{
	v->set = true;
	v->value = value;
	v->origin = sema_origin(e, loc);
}

static void
set_str(struct sema *s, struct ir_str *v, const char *value, const struct sema_ectx *e,
	const struct diag_loc *loc)
{
	free(v->value);
	v->value = sema_strdup(s, value);
	v->origin = sema_origin(e, loc);
}

/* ------------------------------------------------------------ statements */

static const char *const platform_names[] = {"linux", "macos", "windows", NULL};
static const char *const io_names[] = {"utility", "background", NULL};
static const char *const yes_no[] = {"yes", "no", NULL};

static const char *const set_names[] = {
    "user-home",     "credentials",	    "cloud-config", "browser-data", "keychains",
    "shell-history", "package-credentials", "shared-temp",  "host-run",
    NULL,
};

static const char *const limit_names[] = {
    "memory", "cpu", "processes", "open-files", "file-size", "stack", "core", NULL,
};

/* Variables heel-exec sets itself: letting a policy pass or set them would
 * move the temp dir out of the working dir or route traffic around (or
 * away from) the proxy, or make a sandbox say it is none. Compared
 * without case: Windows environment names are case-insensitive, and the
 * proxy variables have lower-case twins. */
static const char *const reserved_env[] = {
    "TMPDIR", "TMP", "TEMP", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "HEEL_SANDBOX", NULL,
};

/* AppContainer capabilities with a well-known SID (WELL_KNOWN_SID_TYPE). */
static const char *const capability_names[] = {
    "internetClient",
    "internetClientServer",
    "privateNetworkClientServer",
    "picturesLibrary",
    "videosLibrary",
    "musicLibrary",
    "documentsLibrary",
    "enterpriseAuthentication",
    "sharedUserCertificates",
    "removableStorage",
    "appointments",
    "contacts",
    NULL,
};
#define NETWORK_CAPABILITIES 3 /* the first three above */

static void eval_file(struct sema *s, struct sema_file *f, unsigned mask, uint8_t set);
static void eval_stmts(struct sema *s, const struct ast_stmt *list, const struct sema_ectx *e,
		       bool top_of_file);

static void
eval_isolation(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_WORD);
	int v;

	if (!a)
		return;
	v = lookup(a->text, ir_isolation_names);
	if (v < 0) {
		sema_unknown_word(s, &a->loc, "isolation", a->text, ir_isolation_names);
		return;
	}
	/* A base or protection set has no say in which base is used. */
	if (is_stock(e->source))
		return;
	touch_slot(s, SEMA_SLOT_ISOLATION, "isolation", IR_PLAT_ALL, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, IR_PLAT_ALL)
	set_u64(&s->ir->scalar[p].isolation, (uint64_t)v, e, &st->loc);
}

static void
eval_grant_deny(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	const struct ast_arg *m = NULL;
	bool grant = st->kind == AST_GRANT;
	unsigned mask = 0;
	char *norm = NULL;
	int mode = IR_MODE_DENY;
	int rc = -EINVAL;

	if (a)
		rc = sema_check_path(s, a, e, grant ? SEMA_PATH_GRANT : SEMA_PATH_DENY, &mask,
				     &norm);
	if (grant) {
		m = arg(s, st, 1, AST_ARG_WORD);
		mode = m ? sema_parse_mode(s, m) : -1;
	}
	if (rc == 0 && mode >= 0)
		sema_add_path_rule(s, norm, (uint8_t)mode,
				   grant ? (st->flags & AST_F_OPTIONAL) != 0 : true, mask, e,
				   &st->loc);
	free(norm);
}

static char *check_item_string(struct sema *s, const struct ast_arg *a, const char *what);

/* The platforms this compile builds (--target), before any is left out. */
static unsigned
targets(const struct sema *s)
{
	return s->opts->platforms ? (s->opts->platforms & IR_PLAT_ALL) : IR_PLAT_ALL;
}

/* readonly "PATH" / readonly each-writable "PATH", each with an optional
 * `because "WHY"`: the reason heel-exec names when it finds the sandbox
 * made such a file. */
static void
eval_readonly(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	bool each = (st->flags & AST_F_EACH_WRITABLE) != 0;
	bool because = (st->flags & AST_F_BECAUSE) != 0;
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	const struct ast_arg *why = because ? arg(s, st, 1, AST_ARG_STRING) : NULL;
	char *norm = NULL, *reason = NULL;
	unsigned mask = 0;

	if (!a || (because && !why))
		return;
	if (each && a->len) {
		const char *v = memmem(a->text, a->len, "${", 2);
		bool drive = a->len >= 2 && isalpha((unsigned char)a->text[0]) && a->text[1] == ':';

		/* The path is looked up inside every writable place at
		 * launch: an absolute one, or one a variable could make
		 * absolute, names a single place, which `readonly "PATH"`
		 * says. */
		if (v || drive || a->text[0] == '/' || a->text[0] == '\\') {
			struct diag_loc at = ast_string_loc(a, v ? (size_t)(v - a->text) : 0);

			diag_push(s->ctx, DIAG_ERROR, &at,
				  "write a path inside each writable place, e.g. \".git/hooks\"; "
				  "`readonly \"PATH\"` names one place",
				  v ? "`readonly each-writable` takes a literal path, without `${NAME}`"
				    : "`readonly each-writable` takes a path relative to each writable "
				      "place");
			return;
		}
	}
	if (sema_check_path(s, a, e, SEMA_PATH_READONLY, &mask, &norm))
		return;
	if (each && (mask & targets(s) & IR_PLAT_BIT(IR_MACOS))) {
		char msg[512];
		size_t at = 0;
		int rc = sbpl_check_each_writable(norm, &at, msg, sizeof(msg));

		if (rc == -ENOMEM)
			s->oom = true;
		if (rc == -EINVAL) {
			/* norm may have lost a leading "./". */
			struct diag_loc loc = ast_string_loc(a, at + strlen(a->text) - strlen(norm));

			diag_push(s->ctx, DIAG_ERROR, &loc,
				  "write the name without it, or keep the statement off macos "
				  "(`on linux { }`, `heelc --target linux`)",
				  "%s", msg);
		}
		if (rc) {
			free(norm);
			return;
		}
	}
	if (why && (!why->len || strspn(why->text, " ") == why->len)) {
		diag_push(s->ctx, DIAG_ERROR, &why->loc, "say what runs the file, e.g. "
			  "`because \"git runs it at every commit\"`",
			  "the reason after `because` cannot be empty");
	} else if (!why || (reason = check_item_string(s, why, "the reason after `because`"))) {
		sema_add_readonly(s, norm, each, reason, mask, e, &st->loc);
	}
	free(reason);
	free(norm);
}

static void
eval_protect(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	bool on = st->kind == AST_PROTECT;

	if (!st->nargs)
		diag_push(s->ctx, DIAG_ERROR, &st->loc, "e.g. `protect credentials`",
			  "`%s` needs at least one set name", kind_name(st->kind));
	for (size_t i = 0; i < st->nargs; i++) {
		const struct ast_arg *a = arg(s, st, i, AST_ARG_WORD);
		int k;

		if (!a)
			continue;
		k = lookup(a->text, set_names);
		if (k < 0) {
			sema_unknown_word(s, &a->loc, "protection set", a->text, set_names);
			continue;
		}
		/* Protections are a flag per set, not a scalar: saying it
		 * again is harmless, and the order decides. */
		FOR_PLATFORMS(p, e->mask)
		{
			if (on)
				s->protections[p] |= (uint16_t)(1u << k);
			else
				s->protections[p] &= (uint16_t) ~(1u << k);
			s->protections_origin[p] = sema_origin(e, &st->loc);
		}
	}
}

static void
eval_gpu(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	touch_slot(s, SEMA_SLOT_GPU, "gpu", e->mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, e->mask)
	set_u64(&s->ir->scalar[p].gpu, st->kind == AST_ALLOW_GPU, e, &st->loc);
}

static void
eval_network_kind(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	enum ir_network_kind kind = st->kind == AST_NETWORK_DENY	? IR_NET_DENY
				    : st->kind == AST_NETWORK_ALLOW_ALL ? IR_NET_ALLOW_ALL
									: IR_NET_ALLOW_LIST;
	unsigned warn = IR_PLAT_ALL;

	if (kind == IR_NET_ALLOW_LIST) {
		/* `allow { }` blocks add to one list: only replacing
		 * `deny` or `allow-all` is an override. */
		FOR_PLATFORMS(p, e->mask)
		if (s->slots[SEMA_SLOT_NETWORK][p].set &&
		    s->ir->scalar[p].network.value == IR_NET_ALLOW_LIST)
			warn &= ~IR_PLAT_BIT(p);
	}
	touch_slot(s, SEMA_SLOT_NETWORK, "network", e->mask, warn, e, &st->loc);
	FOR_PLATFORMS(p, e->mask)
	set_u64(&s->ir->scalar[p].network, kind, e, &st->loc);
	if (kind != IR_NET_ALLOW_LIST)
		return;
	for (const struct ast_stmt *c = st->children; c; c = c->next) {
		const struct ast_arg *a;

		if (c->kind != AST_PATTERN) {
			diag_push(
			    s->ctx, DIAG_ERROR, &c->loc, "write one quoted host pattern per line",
			    "`%s` is not allowed inside `network allow { }`", kind_name(c->kind));
			continue;
		}
		for (size_t i = 0; i < c->nargs; i++)
			if ((a = arg(s, c, i, AST_ARG_STRING)))
				sema_add_pattern(s, a, e, e->mask);
	}
}

static void
eval_audit(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	unsigned mask;
	char *norm = NULL;
	bool daily = (st->flags & AST_F_DAILY) != 0;

	if (!a || sema_check_path(s, a, e, SEMA_PATH_AUDIT, &mask, &norm))
		return;
	touch_slot(s, SEMA_SLOT_AUDIT, "network audit", mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, mask)
	{
		set_u64(&s->ir->scalar[p].audit_kind, daily ? IR_AUDIT_DAILY : IR_AUDIT_FILE, e,
			&st->loc);
		set_str(s, &s->ir->scalar[p].audit_path, norm, e, &st->loc);
		s->audit_loc[p] = a->loc;
	}
	free(norm);
}

static void
eval_decide(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	unsigned mask = 0;
	char *norm = NULL;
	bool bad = !a || sema_check_path(s, a, e, SEMA_PATH_DECIDER, &mask, &norm) != 0;

	for (size_t i = 1; i < st->nargs; i++) {
		const struct ast_arg *x = arg(s, st, i, AST_ARG_STRING);

		if (!x) {
			bad = true;
		} else if (has_nul(x)) {
			/* An argv string ends at its first NUL: the decider
			 * would be run with another argument than the one
			 * reviewed. */
			struct diag_loc at = ast_string_loc(x, strlen(x->text));

			diag_push(s->ctx, DIAG_ERROR, &at, NULL,
				  "an argument of `network decide` cannot hold a NUL byte");
			bad = true;
		}
	}
	if (bad) {
		free(norm);
		return;
	}
	touch_slot(s, SEMA_SLOT_DECIDE, "network decide", mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, mask)
	{
		struct ir_decider *d = &s->ir->decider[p];

		free(d->program);
		for (size_t i = 0; i < d->nargs; i++)
			free(d->args[i]);
		free(d->args);
		memset(d, 0, sizeof(*d));
		d->program = sema_strdup(s, norm);
		d->origin = sema_origin(e, &st->loc);
		s->decider_loc[p] = a->loc;
		if (st->nargs > 1 && !(d->args = calloc(st->nargs - 1, sizeof(*d->args)))) {
			s->oom = true;
			continue;
		}
		for (size_t i = 1; i < st->nargs; i++)
			if ((d->args[d->nargs] = sema_strdup(s, st->args[i].text)))
				d->nargs++;
	}
	free(norm);
}

#define UNITS_LETTERS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* "write `1GiB` (binary, 2^30 bytes); `1GB` is decimal (10^9 bytes)":
 * the number as written, in the unit it most likely meant. */
static void
units_hint(const char *text, size_t unit_off, const struct units_guess *g, char *hint,
	   size_t size)
{
	/* The power of 1024 and of 1000 each size letter stands for. */
	static const char letters[] = "KMGT";
	const char *l = strchr(letters, g->unit[0]);
	int k = l && g->decimal ? (int)(l - letters) + 1 : 0;
	char number[48];

	if (g->times > 1) {
		uint64_t n = 0;

		/* Digits only, so this cannot fail; an overflowing count is
		 * refused after the unit is fixed anyway. */
		for (size_t i = 0; i < unit_off && n <= UINT64_MAX / 10 / g->times; i++)
			n = n * 10 + (uint64_t)(text[i] - '0');
		snprintf(number, sizeof(number), "%" PRIu64, n * g->times);
	} else {
		snprintf(number, sizeof(number), "%.*s", (int)(unit_off < 40 ? unit_off : 40), text);
	}
	if (!k)
		snprintf(hint, size, "write `%s%s`", number, g->unit);
	else if (g->decimal[0])
		snprintf(hint, size, "write `%s%s` (binary, 2^%d bytes); `%s%s` is decimal (10^%d bytes)",
			 number, g->unit, 10 * k, number, g->decimal, 3 * k);
	else
		snprintf(hint, size, "write `%s%s` (binary, 2^%d bytes); there is no decimal `%cB`",
			 number, g->unit, 10 * k, g->unit[0]);
}

/* Pushes the error for a number that units_parse() refused. */
static void
units_error(struct sema *s, const struct ast_arg *a, enum units_status rc, size_t unit_off,
	    const char *what, enum units_kind kind)
{
	struct diag_loc at = a->loc;
	struct units_guess g;
	char hint[160];

	at.col += (uint32_t)unit_off;
	switch (rc) {
	case UNITS_NOT_A_NUMBER:
		diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL, "`%s` is not a number", a->text);
		break;
	case UNITS_MISSING_UNIT:
		snprintf(hint, sizeof(hint), "add a unit, e.g. %s%s", a->text,
			 kind == UNITS_SIZE ? "MiB" : "s");
		diag_push(s->ctx, DIAG_ERROR, &a->loc, hint, "%s needs a unit", what);
		break;
	case UNITS_UNKNOWN_UNIT:
		/* Not letters (`1.5GiB`): the scanner has said what is wrong
		 * with the number, and a unit `.5GiB` would only repeat it. */
		if (a->text[unit_off + strspn(a->text + unit_off, UNITS_LETTERS)] != '\0')
			break;
		if (units_guess(kind, a->text + unit_off, &g) == 0) {
			units_hint(a->text, unit_off, &g, hint, sizeof(hint));
			diag_push(s->ctx, DIAG_ERROR, &at, hint, "unknown %s unit `%s`",
				  kind == UNITS_SIZE ? "size" : "duration", a->text + unit_off);
			break;
		}
		sema_unknown_word(s, &at, kind == UNITS_SIZE ? "size unit" : "duration unit",
				  a->text + unit_off, units_names(kind));
		break;
	case UNITS_UNEXPECTED_UNIT:
		snprintf(hint, sizeof(hint), "write a plain number, e.g. %.*s", (int)unit_off,
			 a->text);
		diag_push(s->ctx, DIAG_ERROR, &at, hint, "%s takes a plain number, without a unit",
			  what);
		break;
	case UNITS_OVERFLOW:
		diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL, "`%s` is too large (over 64 bits)",
			  a->text);
		break;
	default:
		break;
	}
}

static void
eval_limit(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *n = arg(s, st, 0, AST_ARG_WORD);
	const struct ast_arg *v = arg(s, st, 1, AST_ARG_NUMBER);
	enum units_kind kind;
	enum units_status rc;
	uint64_t value = 0;
	size_t off = 0;
	char what[64];
	int l;

	if (!n)
		return;
	l = lookup(n->text, limit_names);
	if (l < 0) {
		sema_unknown_word(s, &n->loc, "limit", n->text, limit_names);
		return;
	}
	if (!v)
		return;
	kind = l == IR_LIMIT_CPU				     ? UNITS_DURATION
	       : l == IR_LIMIT_PROCESSES || l == IR_LIMIT_OPEN_FILES ? UNITS_COUNT
								     : UNITS_SIZE;
	snprintf(what, sizeof(what), "`limit %s`", limit_names[l]);
	rc = units_parse(v->text, kind, &value, &off);
	if (rc != UNITS_OK) {
		units_error(s, v, rc, off, what, kind);
		return;
	}
	if (l == IR_LIMIT_CPU) {
		if (value < 1000) {
			diag_push(s->ctx, DIAG_ERROR, &v->loc,
				  "the CPU limit is counted in whole seconds",
				  "`limit cpu` must be at least 1s");
			return;
		}
		/* RLIMIT_CPU counts whole seconds; rounding down would
		 * give less than asked, so round up. */
		value = units_ms_to_seconds_up(value);
	}
	/* A zero limit would make the sandbox unusable (no memory, no
	 * process); only a zero core size means something (no core dumps). */
	if (value == 0 && l != IR_LIMIT_CORE) {
		diag_push(s->ctx, DIAG_ERROR, &v->loc, "only `limit core` may be 0",
			  "%s cannot be 0", what);
		return;
	}
	snprintf(what, sizeof(what), "limit %s", limit_names[l]);
	touch_slot(s, SEMA_SLOT_LIMIT0 + l, what, e->mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, e->mask)
	set_u64(&s->ir->scalar[p].limits[l], value, e, &st->loc);
}

static void
eval_nice(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *v = arg(s, st, 0, AST_ARG_NUMBER);
	enum units_status rc;
	uint64_t value = 0;
	size_t off;

	if (!v)
		return;
	rc = units_parse(v->text, UNITS_COUNT, &value, &off);
	if (rc != UNITS_OK && rc != UNITS_OVERFLOW) {
		units_error(s, v, rc, off, "`nice`", UNITS_COUNT);
		return;
	}
	/* Lowering priority only: 0 would be a no-op and a negative value
	 * (raising it) needs privileges the sandbox must not have. */
	if (rc == UNITS_OVERFLOW || value < 1 || value > 19) {
		diag_push(s->ctx, DIAG_ERROR, &v->loc,
			  "the sandbox runs 1 to 19 steps lower than the launcher, never higher",
			  "`nice` must be between 1 and 19");
		return;
	}
	touch_slot(s, SEMA_SLOT_NICE, "nice", e->mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, e->mask)
	set_u64(&s->ir->scalar[p].nice, value, e, &st->loc);
}

static void
eval_io_priority(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_WORD);
	int v;

	if (!a)
		return;
	v = lookup(a->text, io_names);
	if (v < 0) {
		sema_unknown_word(s, &a->loc, "io-priority", a->text, io_names);
		return;
	}
	touch_slot(s, SEMA_SLOT_IO_PRIORITY, "io-priority", e->mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, e->mask)
	set_u64(&s->ir->scalar[p].io_priority, v == 0 ? IR_IO_UTILITY : IR_IO_BACKGROUND, e,
		&st->loc);
}

/* Checks an environment variable name; 0 or -EINVAL after an error. */
static int
check_env_name(struct sema *s, const struct ast_arg *a)
{
	const char *n = a->text;

	for (size_t i = 0; i < a->len; i++) {
		unsigned char c = (unsigned char)n[i];

		if (c == '_' || isalpha(c) || (i && isdigit(c)))
			continue;
		struct diag_loc at = ast_string_loc(a, i);

		diag_push(s->ctx, DIAG_ERROR, &at,
			  "names are ASCII letters, digits and `_`, not starting with a digit",
			  "invalid environment variable name `%s`", n);
		return -EINVAL;
	}
	if (!a->len) {
		diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL,
			  "an environment variable name cannot be empty");
		return -EINVAL;
	}
	for (size_t i = 0; reserved_env[i]; i++) {
		if (strcasecmp(reserved_env[i], n) != 0)
			continue;
		diag_push(s->ctx, DIAG_ERROR, &a->loc,
			  i < 3 ? "TMPDIR, TMP and TEMP always point inside the working directory"
			  : strcasecmp(n, "HEEL_SANDBOX") == 0
			      ? "heel-exec sets HEEL_SANDBOX=1 in every sandbox"
			      : "heel-exec sets the proxy variables when the network goes "
				"through its proxy",
			  "`%s` is set by heel-exec and cannot be passed or set", n);
		return -EINVAL;
	}
	return 0;
}

static struct sema_env *
env_entry(struct sema *s, const char *name)
{
	struct sema_env *v;
	size_t i;

	if (sema_map_get(&s->env_index, name, &i))
		return &s->env[i];
	if (sema_grow(s, (void **)&s->env, &s->cap_env, s->nenv, sizeof(*s->env)))
		return NULL;
	v = &s->env[s->nenv];
	v->name = sema_strdup(s, name);
	if (!v->name || sema_map_put(s, &s->env_index, v->name, s->nenv)) {
		free(v->name);
		v->name = NULL;
		return NULL;
	}
	s->nenv++;
	return v;
}

static void
eval_env_pass(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	for (size_t i = 0; i < st->nargs; i++) {
		const struct ast_arg *a = arg(s, st, i, AST_ARG_STRING);
		struct sema_env *v;

		if (!a || check_env_name(s, a) || !(v = env_entry(s, a->text)))
			continue;
		/* A list: naming a variable twice is harmless. */
		if (!v->pass_mask)
			v->pass_origin = sema_origin(e, &st->loc);
		v->pass_mask |= (uint8_t)e->mask;
	}
}

static void
eval_env_set(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *n = arg(s, st, 0, AST_ARG_STRING);
	const struct ast_arg *v = arg(s, st, 1, AST_ARG_STRING);
	struct diag_loc earlier[IR_PLATFORM_COUNT];
	size_t nearlier = 0;
	struct sema_env *ent;
	int bad = !n || check_env_name(s, n);

	if (v && has_nul(v)) {
		struct diag_loc at = ast_string_loc(v, strlen(v->text));

		diag_push(s->ctx, DIAG_ERROR, &at, NULL,
			  "an environment value cannot hold a NUL character");
		bad = 1;
	}
	if (bad || !v || !(ent = env_entry(s, n->text)))
		return;
	FOR_PLATFORMS(p, e->mask)
	{
		struct sema_env_cell *c = &ent->set[p];
		bool seen = false;

		if (c->present && !is_stock(e->source)) {
			for (size_t i = 0; i < nearlier; i++)
				if (earlier[i].src == c->loc.src &&
				    earlier[i].line == c->loc.line && earlier[i].col == c->loc.col)
					seen = true;
			if (!seen)
				earlier[nearlier++] = c->loc;
		}
		free(c->value);
		c->present = true;
		c->value = sema_strdup(s, v->text);
		c->origin = sema_origin(e, &st->loc);
		c->loc = st->loc;
	}
	if (nearlier) {
		diag_push(s->ctx, DIAG_WARNING, &st->loc, NULL,
			  "`env set %s` set again; the earlier value is replaced", n->text);
		for (size_t i = 0; i < nearlier; i++)
			diag_push(s->ctx, DIAG_NOTE, &earlier[i], NULL, "earlier setting was here");
	}
}

static void
eval_workdir(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	unsigned mask;
	char *norm = NULL;

	if (!a || sema_check_path(s, a, e, SEMA_PATH_WORKDIR, &mask, &norm))
		return;
	touch_slot(s, SEMA_SLOT_WORKDIR, "workdir", mask, IR_PLAT_ALL, e, &st->loc);
	FOR_PLATFORMS(p, mask)
	set_str(s, &s->ir->scalar[p].workdir, norm, e, &st->loc);
	free(norm);
}

/* `what` names: lower-case ASCII letters, digits, `_`, `-`; the first
 * character a letter (or a digit when `digit_first`). Returns the offset
 * of the first bad byte, or -1 when the name is fine. */
static long
bad_name_char(const struct ast_arg *a, bool digit_first)
{
	if (!a->len)
		return 0;
	for (size_t i = 0; i < a->len; i++) {
		unsigned char c = (unsigned char)a->text[i];

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9' && (i || digit_first)) ||
		    (i && (c == '_' || c == '-')))
			continue;
		return (long)i;
	}
	return -1;
}

static void
duplicate_item(struct sema *s, const struct ast_stmt *c, const struct ast_stmt *first,
	       const char *block)
{
	diag_push(s->ctx, DIAG_ERROR, &c->loc, NULL, "`%s` given twice in `%s { }`",
		  kind_name(c->kind), block);
	diag_push(s->ctx, DIAG_NOTE, &first->loc, NULL, "first given here");
}

static char *
check_item_string(struct sema *s, const struct ast_arg *a, const char *what)
{
	for (size_t i = 0; i < a->len; i++) {
		unsigned char c = (unsigned char)a->text[i];

		if (c < 0x20 || c == 0x7f) {
			struct diag_loc at = ast_string_loc(a, i);

			diag_push(s->ctx, DIAG_ERROR, &at, NULL,
				  "%s cannot hold a control character", what);
			return NULL;
		}
	}
	return sema_strdup(s, a->text);
}

/* Argument names of ipc commands: lower-case letters, digits, `_` and
 * `-`, starting with a letter, so `--NAME=VALUE` on the broker's side
 * never starts with a digit or a dash. false after a diagnostic. */
static bool
check_arg_name(struct sema *s, const struct ast_arg *a, const char *what)
{
	long b = bad_name_char(a, false);
	struct diag_loc at;

	if (b < 0)
		return true;
	at = a->len ? ast_string_loc(a, (size_t)b) : a->loc;
	diag_push(s->ctx, DIAG_ERROR, &at,
		  "argument names are lower-case letters, digits, `_` and `-`, starting with a "
		  "letter",
		  "invalid %s name `%s`", what, a->text);
	return false;
}

/* An `arg` line: its name and type. The checks across lines (a name
 * declared twice, a bool among the positionals) come after the block. */
static bool
eval_ipc_arg(struct sema *s, const struct ast_stmt *c, struct ir_ipc *ipc, size_t *cap)
{
	const struct ast_arg *a = arg(s, c, 0, AST_ARG_STRING);
	const struct ast_arg *t = a ? arg(s, c, 1, AST_ARG_WORD) : NULL;
	struct ir_ipc_arg *grown;
	int type;

	if (!a || !t)
		return false;
	if (!check_arg_name(s, a, "argument"))
		return false;
	if (ipc->nargs == ART_IPC_MAX_ARGS) {
		diag_push(s->ctx, DIAG_ERROR, &a->loc,
			  "take the values as fewer arguments, e.g. one string the program splits",
			  "an ipc command has at most %u `arg` lines; `%s` is the %uth",
			  ART_IPC_MAX_ARGS, a->text, ART_IPC_MAX_ARGS + 1);
		return false;
	}
	type = lookup(t->text, ir_ipc_arg_type_names);
	if (type < 0) {
		sema_unknown_word(s, &t->loc, "argument type", t->text, ir_ipc_arg_type_names);
		return false;
	}
	grown = grow_array(ipc->args, cap, ipc->nargs + 1, sizeof(*grown), 0);
	if (!grown) {
		s->oom = true;
		return false;
	}
	ipc->args = grown;
	ipc->args[ipc->nargs].type = (uint8_t)type;
	if (!(ipc->args[ipc->nargs].name = sema_strdup(s, a->text)))
		return false;
	ipc->nargs++;
	return true;
}

/* The `arg` line naming `name` in the block `st`, before `until` (NULL:
 * anywhere). */
static const struct ast_stmt *
find_arg_line(const struct ast_stmt *st, const char *name, const struct ast_stmt *until)
{
	for (const struct ast_stmt *c = st->children; c && c != until; c = c->next)
		if (c->kind == AST_IPC_ARG && c->nargs >= 1 &&
		    c->args[0].kind == AST_ARG_STRING && strcmp(c->args[0].text, name) == 0)
			return c;
	return NULL;
}

/* The names a command accepts are its positionals and its `arg` names:
 * each `arg` name once, and no bool among the positionals (a bare word
 * cannot say "false"; `--NAME` alone is how a bool is given). */
static bool
check_ipc_args(struct sema *s, const struct ast_stmt *st)
{
	bool ok = true;

	for (const struct ast_stmt *c = st->children; c; c = c->next) {
		const struct ast_stmt *first;

		if (c->kind != AST_IPC_ARG || c->nargs < 1 || c->args[0].kind != AST_ARG_STRING)
			continue;
		first = find_arg_line(st, c->args[0].text, c);
		if (first) {
			diag_push(s->ctx, DIAG_ERROR, &c->args[0].loc, NULL,
				  "argument `%s` declared twice", c->args[0].text);
			diag_push(s->ctx, DIAG_NOTE, &first->args[0].loc, NULL,
				  "first declared here");
			ok = false;
		}
	}
	for (const struct ast_stmt *c = st->children; c; c = c->next) {
		if (c->kind != AST_IPC_POSITIONAL)
			continue;
		for (size_t i = 0; i < c->nargs; i++) {
			const struct ast_arg *p = &c->args[i];
			const struct ast_stmt *line;

			if (p->kind != AST_ARG_STRING || !(line = find_arg_line(st, p->text, NULL)) ||
			    line->nargs < 2 || strcmp(line->args[1].text, "bool") != 0)
				continue;
			diag_push(s->ctx, DIAG_ERROR, &p->loc,
				  "a bool is given as `--NAME` (true) or `--NAME=false`; drop it "
				  "from `positional`",
				  "a bool cannot be positional: `%s`", p->text);
			diag_push(s->ctx, DIAG_NOTE, &line->args[1].loc, NULL,
				  "`%s` is declared bool here", p->text);
			ok = false;
		}
	}
	return ok;
}

static void
eval_ipc(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *n = arg(s, st, 0, AST_ARG_STRING);
	const struct ast_stmt *exec_st = NULL, *timeout_st = NULL;
	struct ir_ipc ipc = {0};
	size_t cap_positionals = 0, cap_args = 0;
	unsigned mask = e->mask;
	bool bad = false;
	long b;

	if (!n)
		return;
	b = bad_name_char(n, true);
	if (b >= 0) {
		struct diag_loc at = n->len ? ast_string_loc(n, (size_t)b) : n->loc;

		diag_push(s->ctx, DIAG_ERROR, &at,
			  "ipc names are lower-case letters, digits, `_` and `-`, starting with a "
			  "letter or digit",
			  "invalid ipc name `%s`", n->text);
		bad = true;
	}
	for (const struct ast_stmt *c = st->children; c; c = c->next) {
		const struct ast_arg *a;

		switch (c->kind) {
		case AST_IPC_EXEC: {
			char *norm = NULL;
			unsigned m;

			if (exec_st) {
				duplicate_item(s, c, exec_st, "ipc");
				bad = true;
				break;
			}
			exec_st = c;
			if (!(a = arg(s, c, 0, AST_ARG_STRING)) ||
			    sema_check_path(s, a, e, SEMA_PATH_EXEC, &m, &norm)) {
				bad = true;
				break;
			}
			ipc.exec = norm;
			mask &= m;
			break;
		}
		case AST_IPC_POSITIONAL:
			for (size_t i = 0; i < c->nargs; i++) {
				char **grown;

				if (!(a = arg(s, c, i, AST_ARG_STRING)))
					continue;
				if (!check_arg_name(s, a, "positional argument")) {
					bad = true;
					continue;
				}
				if (ipc.npositionals == ART_IPC_MAX_ARGS) {
					diag_push(s->ctx, DIAG_ERROR, &a->loc,
						  "take the values as fewer arguments, e.g. one string "
						  "the program splits",
						  "an ipc command has at most %u positional arguments; "
						  "`%s` is the %uth",
						  ART_IPC_MAX_ARGS, a->text, ART_IPC_MAX_ARGS + 1);
					bad = true;
					break;
				}
				for (size_t j = 0; j < ipc.npositionals; j++)
					if (strcmp(ipc.positionals[j], a->text) == 0) {
						diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL,
							  "positional argument `%s` given twice",
							  a->text);
						bad = true;
					}
				grown = grow_array(ipc.positionals, &cap_positionals,
						   ipc.npositionals + 1, sizeof(*grown), 0);
				if (!grown) {
					s->oom = true;
					continue;
				}
				ipc.positionals = grown;
				if ((ipc.positionals[ipc.npositionals] = sema_strdup(s, a->text)))
					ipc.npositionals++;
			}
			break;
		case AST_IPC_TIMEOUT: {
			enum units_status rc;
			uint64_t ms = 0;
			size_t off;

			if (timeout_st) {
				duplicate_item(s, c, timeout_st, "ipc");
				bad = true;
				break;
			}
			timeout_st = c;
			if (!(a = arg(s, c, 0, AST_ARG_NUMBER)))
				break;
			rc = units_parse(a->text, UNITS_DURATION, &ms, &off);
			if (rc != UNITS_OK) {
				units_error(s, a, rc, off, "`timeout`", UNITS_DURATION);
				bad = true;
			} else if (ms == 0) {
				/* 0 means "no timeout" in the IR: writing it
				 * would read as "expire at once". */
				diag_push(s->ctx, DIAG_ERROR, &a->loc,
					  "leave `timeout` out for no timeout",
					  "`timeout` cannot be 0");
				bad = true;
			}
			ipc.timeout_ms = ms;
			break;
		}
		case AST_IPC_ARG:
			if (!eval_ipc_arg(s, c, &ipc, &cap_args))
				bad = true;
			break;
		default:
			diag_push(s->ctx, DIAG_ERROR, &c->loc,
				  "an ipc block holds `exec`, `positional`, `arg` and `timeout`",
				  "`%s` is not allowed inside `ipc { }`", kind_name(c->kind));
			bad = true;
			break;
		}
	}
	if (!check_ipc_args(s, st))
		bad = true;
	if (!exec_st) {
		diag_push(s->ctx, DIAG_ERROR, &st->loc, "add `exec \"/absolute/path/to/program\"`",
			  "`ipc \"%s\"` needs an `exec` line", n->text);
		bad = true;
	}
	if (!bad && !has_nul(n)) {
		for (size_t i = 0; i < s->nipc; i++) {
			/* Unique per platform: the same name may run a
			 * different program on Windows than on POSIX. */
			if (strcmp(s->ipc[i].ipc.name, n->text) != 0 ||
			    !(s->ipc[i].ipc.platforms & mask))
				continue;
			diag_push(s->ctx, DIAG_ERROR, &n->loc, NULL,
				  "ipc name `%s` is already defined", n->text);
			diag_push(s->ctx, DIAG_NOTE, &s->ipc[i].loc, NULL, "first defined here");
			bad = true;
			break;
		}
	}
	if (bad || sema_grow(s, (void **)&s->ipc, &s->cap_ipc, s->nipc, sizeof(*s->ipc))) {
		free(ipc.exec);
		for (size_t i = 0; i < ipc.npositionals; i++)
			free(ipc.positionals[i]);
		free(ipc.positionals);
		for (size_t i = 0; i < ipc.nargs; i++)
			free(ipc.args[i].name);
		free(ipc.args);
		return;
	}
	ipc.name = sema_strdup(s, n->text);
	ipc.platforms = (uint8_t)mask;
	ipc.origin = sema_origin(e, &st->loc);
	s->ipc[s->nipc].ipc = ipc;
	s->ipc[s->nipc].loc = n->loc;
	s->nipc++;
}

/* A host command call is an ioctl the seccomp filter hands to the broker
 * (compiler/seccomp_policy.c): with the whole of ioctl denied, no call
 * could ever reach it, and the command would fail in a way the policy
 * does not explain. */
static void
check_ipc_ioctl(struct sema *s)
{
	size_t k;

	if (!sema_map_get(&s->seccomp_index, "ioctl", &k) ||
	    s->seccomp[k].rule.action != IR_SECCOMP_DENY)
		return;
	for (size_t i = 0; i < s->nipc; i++) {
		if (!(s->ipc[i].ipc.platforms & IR_PLAT_BIT(IR_LINUX)))
			continue;
		diag_push(s->ctx, DIAG_ERROR, &s->seccomp[k].loc,
			  "a host command call is an ioctl(2) the filter hands to heel's broker; "
			  "drop the `seccomp deny` or the `ipc` block",
			  "`seccomp deny \"ioctl\"` with a Linux `ipc` command: its calls could "
			  "never reach the host");
		diag_push(s->ctx, DIAG_NOTE, &s->ipc[i].loc, NULL, "`ipc \"%s\"` declared here",
			  s->ipc[i].ipc.name);
		return;
	}
}

static void
eval_python(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_stmt *venv_st = NULL, *pip_st = NULL;
	char *venv = NULL;
	char **pkgs = NULL;
	size_t npkgs = 0, cap_pkgs = 0;
	bool pip = false, bad = false;
	unsigned mask = e->mask;

	for (const struct ast_stmt *c = st->children; c; c = c->next) {
		const struct ast_arg *a;

		switch (c->kind) {
		case AST_PY_VENV: {
			unsigned m;

			if (venv_st) {
				duplicate_item(s, c, venv_st, "python");
				bad = true;
				break;
			}
			venv_st = c;
			if (!(a = arg(s, c, 0, AST_ARG_STRING)) ||
			    sema_check_path(s, a, e, SEMA_PATH_VENV, &m, &venv))
				bad = true;
			else
				mask &= m;
			break;
		}
		case AST_PY_PACKAGES:
			for (size_t i = 0; i < c->nargs; i++) {
				char **grown;
				char *p;

				if (!(a = arg(s, c, i, AST_ARG_STRING)))
					continue;
				if (!a->len) {
					diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL,
						  "a package name cannot be empty");
					bad = true;
					continue;
				}
				/* The names go to pip's command line on the
				 * host: a leading `-` would be an option
				 * (`--index-url`), not a package. */
				if (a->text[0] == '-') {
					diag_push(s->ctx, DIAG_ERROR, &a->loc,
						  "pip would read it as an option",
						  "a package name cannot start with `-`");
					bad = true;
					continue;
				}
				if (!(p = check_item_string(s, a, "a package name"))) {
					bad = true;
					continue;
				}
				grown = grow_array(pkgs, &cap_pkgs, npkgs + 1, sizeof(*grown), 0);
				if (!grown) {
					free(p);
					s->oom = true;
					continue;
				}
				pkgs = grown;
				pkgs[npkgs++] = p;
			}
			break;
		case AST_PY_ALLOW_PIP: {
			int v;

			if (pip_st) {
				duplicate_item(s, c, pip_st, "python");
				bad = true;
				break;
			}
			pip_st = c;
			if (!(a = arg(s, c, 0, AST_ARG_WORD)))
				break;
			v = lookup(a->text, yes_no);
			if (v < 0) {
				sema_unknown_word(s, &a->loc, "allow-pip-install value", a->text,
						  yes_no);
				bad = true;
			}
			pip = v == 0;
			break;
		}
		default:
			diag_push(s->ctx, DIAG_ERROR, &c->loc,
				  "a python block holds `venv`, `packages` and `allow-pip-install`",
				  "`%s` is not allowed inside `python { }`", kind_name(c->kind));
			bad = true;
			break;
		}
	}
	if (!venv_st) {
		diag_push(s->ctx, DIAG_ERROR, &st->loc, "add `venv \"PATH\"`",
			  "`python` needs a `venv` line");
		bad = true;
	}
	if (!bad) {
		touch_slot(s, SEMA_SLOT_PYTHON, "python", mask, IR_PLAT_ALL, e, &st->loc);
		FOR_PLATFORMS(p, mask)
		{
			struct ir_python *py = &s->ir->python[p];

			free(py->venv);
			for (size_t i = 0; i < py->npackages; i++)
				free(py->packages[i]);
			free(py->packages);
			memset(py, 0, sizeof(*py));
			py->set = true;
			py->venv = sema_strdup(s, venv);
			py->packages = npkgs ? calloc(npkgs, sizeof(char *)) : NULL;
			if (npkgs && !py->packages)
				s->oom = true;
			for (size_t i = 0; py->packages && i < npkgs; i++)
				if ((py->packages[i] = sema_strdup(s, pkgs[i])))
					py->npackages++;
			py->allow_pip_install = pip;
			py->origin = sema_origin(e, &st->loc);
		}
	}
	free(venv);
	for (size_t i = 0; i < npkgs; i++)
		free(pkgs[i]);
	free(pkgs);
}

/* Platform statements belong to exactly one `on` block. */
static bool
platform_ok(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e,
	    enum ir_platform want)
{
	char hint[64];

	if (e->platform == (int)want)
		return true;
	snprintf(hint, sizeof(hint), "move it into `on %s { }`", ir_platform_name(want));
	diag_push(s->ctx, DIAG_ERROR, &st->loc, hint, "`%s` is only allowed inside `on %s { }`",
		  kind_name(st->kind), ir_platform_name(want));
	return false;
}

static void
eval_seccomp(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *n = arg(s, st, 0, AST_ARG_STRING);
	bool allow = (st->flags & AST_F_ALLOW) != 0;
	int err = 1; /* EPERM */
	struct sema_seccomp *r;
	size_t i;

	if (!platform_ok(s, st, e, IR_LINUX) || !n)
		return;
	if (has_nul(n) || !syscalls_known(n->text)) {
		const char *const *names = syscalls_names();

		if (!names)
			s->oom = true;
		sema_unknown_word(s, &n->loc, "syscall", n->text, names);
		return;
	}
	if (allow && (st->flags & AST_F_ERRNO)) {
		diag_push(s->ctx, DIAG_ERROR, &st->flag_loc, NULL,
			  "`errno` goes with `seccomp deny` only");
		return;
	}
	if (allow && syscalls_never_allowable(n->text)) {
		diag_push(s->ctx, DIAG_ERROR, &n->loc,
			  "it is a known way out of the sandbox; heel always denies it",
			  "`%s` can never be allowed", n->text);
		return;
	}
	if (st->flags & AST_F_ERRNO) {
		const struct ast_arg *en = arg(s, st, st->nargs - 1, AST_ARG_UPPER);

		if (!en)
			return;
		err = errno_value(en->text);
		if (err < 0) {
			sema_unknown_word(s, &en->loc, "errno", en->text, errno_names());
			return;
		}
	}
	if (!e->mask)
		return;
	if (sema_map_get(&s->seccomp_index, n->text, &i)) {
		r = &s->seccomp[i];
		if (!is_stock(e->source)) {
			diag_push(s->ctx, DIAG_WARNING, &st->loc, NULL,
				  "`seccomp \"%s\"` set again; the earlier value is replaced",
				  n->text);
			diag_push(s->ctx, DIAG_NOTE, &r->loc, NULL, "earlier setting was here");
		}
	} else {
		if (sema_grow(s, (void **)&s->seccomp, &s->cap_seccomp, s->nseccomp,
			      sizeof(*s->seccomp)))
			return;
		r = &s->seccomp[s->nseccomp];
		r->rule.syscall = sema_strdup(s, n->text);
		if (!r->rule.syscall ||
		    sema_map_put(s, &s->seccomp_index, r->rule.syscall, s->nseccomp)) {
			free(r->rule.syscall);
			r->rule.syscall = NULL;
			return;
		}
		s->nseccomp++;
	}
	r->rule.action = allow ? IR_SECCOMP_ALLOW : IR_SECCOMP_DENY;
	r->rule.errno_value = allow ? 0 : (uint16_t)err;
	r->rule.origin = sema_origin(e, &st->loc);
	r->loc = st->loc;
}

static void
add_named(struct sema *s, struct sema_named **arr, size_t *n, size_t *cap, const char *value,
	  const struct sema_ectx *e, const struct ast_stmt *st)
{
	char *v;

	if (!e->mask || sema_grow(s, (void **)arr, cap, *n, sizeof(**arr)))
		return;
	if (!(v = sema_strdup(s, value)))
		return;
	(*arr)[*n].value = v;
	(*arr)[*n].origin = sema_origin(e, &st->loc);
	(*arr)[*n].loc = st->loc;
	(*arr)[*n].seq = *n;
	(*n)++;
}

static void
eval_mach_lookup(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);

	if (!platform_ok(s, st, e, IR_MACOS) || !a)
		return;
	/* Service names are reverse-DNS words; anything else is a typo or
	 * an attempt to smuggle SBPL syntax into the profile. */
	for (size_t i = 0; i <= a->len; i++) {
		unsigned char c = (unsigned char)a->text[i];

		if (i < a->len && (isalnum(c) || strchr("._-@+", c)) && c)
			continue;
		if (i == a->len && a->len)
			break;
		struct diag_loc at = i < a->len ? ast_string_loc(a, i) : a->loc;

		diag_push(s->ctx, DIAG_ERROR, &at,
			  "a mach service name is letters, digits and `.`, `_`, `-`, `@`, `+`",
			  "invalid mach service name");
		return;
	}
	add_named(s, &s->mach, &s->nmach, &s->cap_mach, a->text, e, st);
}

/* An SBPL rule must be one balanced form: it is pasted into the profile,
 * and an unbalanced one would close the forms around it. Strings and
 * comments are skipped so parentheses inside them do not count. */
static long
sbpl_unbalanced(const char *t, size_t len)
{
	long depth = 0;
	size_t i = 0;

	for (; i < len; i++) {
		char c = t[i];

		if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			if (i >= len)
				return (long)len;
		} else if (c == ';') {
			while (i < len && t[i] != '\n')
				i++;
		} else if (c == '(') {
			depth++;
		} else if (c == ')') {
			if (--depth < 0)
				return (long)i;
		}
	}
	return depth ? (long)len : -1;
}

/* The byte offset in an `sbpl` rule's text of the checker's 1-based
 * line and column (columns count characters). */
static size_t
rule_offset(const char *t, size_t len, uint32_t line, uint32_t col)
{
	size_t i = 0;

	for (uint32_t l = 1; l < line && i < len; i++)
		if (t[i] == '\n')
			l++;
	for (uint32_t c = 1; c < col && i < len; c++)
		do
			i++;
		while (i < len && ((unsigned char)t[i] & 0xc0) == 0x80);
	return i;
}

/* The SBPL checker's verdict on a raw rule, at the rule's own characters:
 * an unknown operation or filter, a relative path, a regex that does not
 * compile, an escape the SBPL reader would silently change. The rule has
 * no parameters of its own; heel's are not for raw rules. */
static bool
check_sbpl_rule(struct sema *s, const struct ast_arg *a)
{
	struct sbpl_check_result r = { 0 };
	int rc = sbpl_check_rule(a->text, a->len, NULL, &r);

	if (rc == -ENOMEM) {
		sbpl_check_result_free(&r);
		diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL, "out of memory checking an `sbpl` rule");
		return false;
	}
	for (size_t i = 0; i < r.ndiags; i++) {
		const struct sbpl_diag *d = &r.diags[i];
		struct diag_loc at = d->line ? ast_string_loc(a, rule_offset(a->text, a->len, d->line,
									      d->col))
					     : a->loc;

		diag_push(s->ctx, d->severity == SBPL_SEV_ERROR ? DIAG_ERROR : DIAG_WARNING, &at,
			  NULL, "in `sbpl` rule: %s", d->message);
	}
	sbpl_check_result_free(&r);
	return rc == 0;
}

static void
eval_sbpl(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);
	long bad;

	if (!platform_ok(s, st, e, IR_MACOS) || !a)
		return;
	if (has_nul(a)) {
		struct diag_loc at = ast_string_loc(a, strlen(a->text));

		diag_push(s->ctx, DIAG_ERROR, &at, NULL,
			  "an `sbpl` rule cannot hold a NUL character");
		return;
	}
	if (strspn(a->text, " \t\n") == a->len) {
		diag_push(s->ctx, DIAG_ERROR, &a->loc, NULL, "an `sbpl` rule cannot be empty");
		return;
	}
	bad = sbpl_unbalanced(a->text, a->len);
	if (bad >= 0) {
		struct diag_loc at = (size_t)bad < a->len ? ast_string_loc(a, (size_t)bad) : a->loc;

		diag_push(s->ctx, DIAG_ERROR, &at,
			  "an `sbpl` rule is one complete form, e.g. `(allow mach-lookup "
			  "(global-name \"x\"))`",
			  "unbalanced parentheses in `sbpl` rule");
		return;
	}
	if (!check_sbpl_rule(s, a))
		return;
	add_named(s, &s->sbpl, &s->nsbpl, &s->cap_sbpl, a->text, e, st);
}

static void
eval_capability(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_STRING);

	if (!platform_ok(s, st, e, IR_WINDOWS) || !a)
		return;
	if (has_nul(a)) {
		sema_unknown_word(s, &a->loc, "capability", a->text, capability_names);
		return;
	}
	/* Another name's SID is derived from the name (compiler/acl_sid.h). */
	if (lookup(a->text, capability_names) < 0 &&
	    !sema_capability_other(s, a, capability_names))
		return;
	add_named(s, &s->caps, &s->ncaps, &s->cap_caps, a->text, e, st);
}

static void
eval_on(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	const struct ast_arg *a = arg(s, st, 0, AST_ARG_WORD);
	struct sema_ectx inner = *e;
	int p;

	if (e->platform >= 0) {
		diag_push(s->ctx, DIAG_ERROR, &st->loc,
			  "close the first block before opening another",
			  "`on` blocks do not nest");
		return;
	}
	if (!a)
		return;
	p = lookup(a->text, platform_names);
	if (p < 0) {
		/* Its contents are not checked: which platform's rules
		 * would apply is unknown, so they would only add noise. */
		sema_unknown_word(s, &a->loc, "platform", a->text, platform_names);
		return;
	}
	inner.platform = p;
	inner.mask = e->mask & IR_PLAT_BIT(p);
	eval_stmts(s, st->children, &inner, false);
}

static struct sema_include *
find_include(struct sema_file *f, const struct ast_stmt *st)
{
	for (size_t i = 0; i < f->nincs; i++)
		if (f->incs[i].stmt == st)
			return &f->incs[i];
	return NULL;
}

static void
eval_include(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	struct sema_include *inc = find_include(e->file, st);

	if (!inc)
		return;
	switch (inc->status) {
	case SEMA_INC_OK:
		eval_file(s, inc->target, e->mask, e->set);
		break;
	case SEMA_INC_ERROR:
		if (inc->message)
			diag_push(s->ctx, DIAG_ERROR, &inc->loc, inc->hint, "%s", inc->message);
		break;
	default:
		break;
	}
}

static void
eval_stmt(struct sema *s, const struct ast_stmt *st, const struct sema_ectx *e)
{
	/* The file-level statements have no meaning on one platform. */
	if (e->platform >= 0 &&
	    (st->kind == AST_HEEL || st->kind == AST_INCLUDE || st->kind == AST_ISOLATION)) {
		diag_push(s->ctx, DIAG_ERROR, &st->loc,
			  st->kind == AST_ISOLATION ? "one base applies to every platform"
			  : st->kind == AST_INCLUDE ? "move the include out of the block"
						    : NULL,
			  "`%s` is not allowed inside `on %s { }`", kind_name(st->kind),
			  ir_platform_name(e->platform));
		return;
	}
	switch (st->kind) {
	case AST_HEEL:
		diag_push(s->ctx, DIAG_ERROR, &st->loc,
			  "`heel 1` appears once, as the first statement",
			  "`heel` must be the first statement of the file");
		break;
	case AST_INCLUDE:
		eval_include(s, st, e);
		break;
	case AST_ISOLATION:
		eval_isolation(s, st, e);
		break;
	case AST_GRANT:
	case AST_DENY:
		eval_grant_deny(s, st, e);
		break;
	case AST_PROTECT:
	case AST_UNPROTECT:
		eval_protect(s, st, e);
		break;
	case AST_ALLOW_GPU:
	case AST_DENY_GPU:
		eval_gpu(s, st, e);
		break;
	case AST_NETWORK_DENY:
	case AST_NETWORK_ALLOW_ALL:
	case AST_NETWORK_ALLOW:
		eval_network_kind(s, st, e);
		break;
	case AST_NETWORK_ALLOW_PRIVATE:
		/* A flag: repeating it changes nothing. */
		FOR_PLATFORMS(p, e->mask)
		set_u64(&s->ir->scalar[p].allow_private, 1, e, &st->loc);
		break;
	case AST_NETWORK_AUDIT:
		eval_audit(s, st, e);
		break;
	case AST_NETWORK_DECIDE:
		eval_decide(s, st, e);
		break;
	case AST_LIMIT:
		eval_limit(s, st, e);
		break;
	case AST_NICE:
		eval_nice(s, st, e);
		break;
	case AST_IO_PRIORITY:
		eval_io_priority(s, st, e);
		break;
	case AST_ENV_PASS:
		eval_env_pass(s, st, e);
		break;
	case AST_ENV_SET:
		eval_env_set(s, st, e);
		break;
	case AST_WORKDIR:
		eval_workdir(s, st, e);
		break;
	case AST_IPC:
		eval_ipc(s, st, e);
		break;
	case AST_PYTHON:
		eval_python(s, st, e);
		break;
	case AST_ON:
		eval_on(s, st, e);
		break;
	case AST_SECCOMP:
		eval_seccomp(s, st, e);
		break;
	case AST_ALLOW_UNIX_SOCKETS:
		if (platform_ok(s, st, e, IR_LINUX) && (e->mask & IR_PLAT_BIT(IR_LINUX)))
			set_u64(&s->ir->scalar[IR_LINUX].unix_sockets, 1, e, &st->loc);
		break;
	case AST_ALLOW_MACH_LOOKUP:
		eval_mach_lookup(s, st, e);
		break;
	case AST_SBPL:
		eval_sbpl(s, st, e);
		break;
	case AST_CAPABILITY:
		eval_capability(s, st, e);
		break;
	case AST_READONLY:
		eval_readonly(s, st, e);
		break;
	case AST_PATTERN:
		diag_push(s->ctx, DIAG_ERROR, &st->loc, NULL,
			  "a host pattern is only allowed inside `network allow { }`");
		break;
	case AST_IPC_EXEC:
	case AST_IPC_POSITIONAL:
	case AST_IPC_TIMEOUT:
		diag_push(s->ctx, DIAG_ERROR, &st->loc, NULL,
			  "`%s` is only allowed inside `ipc \"NAME\" { }`", kind_name(st->kind));
		break;
	case AST_PY_VENV:
	case AST_PY_PACKAGES:
	case AST_PY_ALLOW_PIP:
		diag_push(s->ctx, DIAG_ERROR, &st->loc, NULL,
			  "`%s` is only allowed inside `python { }`", kind_name(st->kind));
		break;
	default:
		break;
	}
}

static void
eval_stmts(struct sema *s, const struct ast_stmt *list, const struct sema_ectx *e, bool top_of_file)
{
	for (const struct ast_stmt *st = list; st && !s->oom; st = st->next) {
		if (top_of_file && st == list && st->kind == AST_HEEL)
			continue; /* the version line, checked by eval_file() */
		eval_stmt(s, st, e);
	}
}

/* Evaluates one file in place: a base, a preset, a protection set or one
 * of the user's files. `mask` limits the platforms its rules apply to (a
 * protection set is evaluated only for the platforms where it is on). */
static void
eval_file(struct sema *s, struct sema_file *f, unsigned mask, uint8_t set)
{
	struct sema_ectx e = {
	    .file = f,
	    .mask = mask,
	    .platform = -1,
	    .source = f->source,
	    .set = set,
	};
	const struct ast_stmt *first;
	int version;

	if (!f->entered) {
		struct sema_file **grown =
			grow_array(s->order, &s->cap_order, s->norder + 1, sizeof(*grown), 0);

		if (!grown) {
			s->oom = true;
			return;
		}
		f->entered = true;
		s->order = grown;
		s->order[s->norder++] = f;
	}
	if (!f->ast)
		return;
	first = f->ast->stmts;
	version = load_version(f);
	/* Every file, included ones and presets too, starts
	 * with `heel 1`. A file in another version is not read on: its
	 * statements may mean something else. A missing line is most
	 * likely forgotten, so the rest is still checked. When the file did
	 * not parse, the version line may be what broke: say nothing. */
	if (version < 0) {
		const struct ast_arg *a = first->nargs ? &first->args[0] : NULL;

		diag_push(s->ctx, DIAG_ERROR, a ? &a->loc : &first->loc,
			  "this heelc reads version 1", "unsupported language version %s",
			  a ? a->text : "");
		return;
	}
	if (version == 0 && !f->parse_failed) {
		struct diag_loc at = {f->src, 1, 1};

		diag_push(s->ctx, DIAG_ERROR, first ? &first->loc : &at,
			  "add `heel 1` as the first line", "a policy must start with `heel 1`");
	}
	eval_stmts(s, first, &e, true);
}

/* ------------------------------------------------------------ final checks */

/* The isolation the user's files end up choosing, found before anything
 * is evaluated because the base is evaluated first. Mistakes are
 * reported later, in order, by eval_isolation(). */
static int
find_isolation(const struct sema_file *f, int iso)
{
	if (!f->ast || load_version(f) < 0)
		return iso;
	for (const struct ast_stmt *st = f->ast->stmts; st; st = st->next) {
		if (st->kind == AST_ISOLATION && st->nargs == 1 &&
		    st->args[0].kind == AST_ARG_WORD) {
			int v = lookup(st->args[0].text, ir_isolation_names);

			if (v >= 0)
				iso = v;
		} else if (st->kind == AST_INCLUDE) {
			for (size_t i = 0; i < f->nincs; i++)
				if (f->incs[i].stmt == st && f->incs[i].status == SEMA_INC_OK)
					iso = find_isolation(f->incs[i].target, iso);
		}
	}
	return iso;
}

static bool
same_loc(const struct diag_loc *a, const struct diag_loc *b)
{
	return a->src == b->src && a->line == b->line && a->col == b->col;
}

/* The platforms on which the statement that last set `slot` at `loc` is
 * still in force. */
static unsigned
slot_mask_at(struct sema *s, enum sema_slot slot, const struct diag_loc *loc)
{
	unsigned m = 0;

	FOR_PLATFORMS(p, IR_PLAT_ALL)
	if (s->slots[slot][p].set && same_loc(&s->slots[slot][p].loc, loc))
		m |= IR_PLAT_BIT(p);
	return m;
}

/* A statement that only means something to the proxy (`slot`, written
 * `what`, `noun` in a hint), left in force where the network is denied:
 * an error where it stands, naming the platforms when only some are
 * denied. */
static void
check_needs_proxy(struct sema *s, enum sema_slot slot, const char *what, const char *noun,
		  const char *why, unsigned exempt)
{
	unsigned done = exempt;
	char hint[256], on[SEMA_PLATFORM_LIST_MAX];

	FOR_PLATFORMS(p, IR_PLAT_ALL)
	{
		const struct sema_slot_state *a = &s->slots[slot][p];
		unsigned inforce, bad = 0;

		if (!a->set || (done & IR_PLAT_BIT(p)) ||
		    s->ir->scalar[p].network.value != IR_NET_DENY)
			continue;
		inforce = slot_mask_at(s, slot, &a->loc);
		FOR_PLATFORMS(q, inforce)
		if (s->ir->scalar[q].network.value == IR_NET_DENY && !(exempt & IR_PLAT_BIT(q)))
			bad |= IR_PLAT_BIT(q);
		done |= inforce;
		if (bad == inforce) {
			diag_push(s->ctx, DIAG_ERROR, &a->loc, why, "`%s` with `network deny`",
				  what);
		} else {
			snprintf(hint, sizeof(hint),
				 "%s; move %s into the `on` block that allows network", why, noun);
			diag_push(s->ctx, DIAG_ERROR, &a->loc, hint,
				  "`%s` with `network deny` on %s", what, sema_platform_list(bad, on));
		}
	}
}

static void
check_network(struct sema *s)
{
	unsigned done = 0, ipc = 0;

	/* An audit sink records the proxy's decisions and the host commands'
	 * calls; under `network deny` no proxy runs, so without host commands
	 * the file would stay empty while a reviewer believes traffic is
	 * recorded. */
	for (size_t i = 0; i < s->nipc; i++)
		ipc |= s->ipc[i].ipc.platforms;
	check_needs_proxy(s, SEMA_SLOT_AUDIT, "network audit", "the audit",
			  "no proxy runs under `network deny` and the policy has no host commands, "
			  "so there is nothing to record",
			  ipc);
	/* Likewise a decider would never be asked: the reviewer would
	 * believe a program judges traffic that the kernel refuses anyway. */
	check_needs_proxy(s, SEMA_SLOT_DECIDE, "network decide", "the decider",
			  "no proxy runs under `network deny`, so there is nothing to decide", 0);

	/* A network capability lets the AppContainer connect directly,
	 * around the proxy and around `network deny`. */
	for (size_t i = 0; i < s->ncaps; i++) {
		int k = lookup(s->caps[i].value, capability_names);

		/* k < 0: a named capability, whose SID is derived (no network). */
		if (k < 0 || k >= NETWORK_CAPABILITIES ||
		    s->ir->scalar[IR_WINDOWS].network.value != IR_NET_DENY)
			continue;
		diag_push(s->ctx, DIAG_ERROR, &s->caps[i].loc,
			  "the sandbox reaches the network through heel's proxy, which needs no "
			  "capability",
			  "capability `%s` with `network deny` would bypass the proxy",
			  s->caps[i].value);
	}

	/* An empty allow-list is legal and allows nothing: say so, since
	 * it is more often an unfinished edit than a wish. Not where a
	 * decider is asked too: its answer may allow what the list does
	 * not name, so "reach nothing" would be false. */
	done = 0;
	FOR_PLATFORMS(p, IR_PLAT_ALL)
	{
		const struct sema_slot_state *k = &s->slots[SEMA_SLOT_NETWORK][p];
		unsigned inforce, empty = 0;
		char on[SEMA_PLATFORM_LIST_MAX];

		if (s->ir->scalar[p].network.value != IR_NET_ALLOW_LIST || (done & IR_PLAT_BIT(p)))
			continue;
		inforce = slot_mask_at(s, SEMA_SLOT_NETWORK, &k->loc);
		done |= inforce;
		FOR_PLATFORMS(q, inforce)
		{
			bool any = false;

			for (size_t i = 0; i < s->npatterns; i++)
				if (s->patterns[i].platforms & IR_PLAT_BIT(q))
					any = true;
			if (!any && !(s->bad_patterns & IR_PLAT_BIT(q)) && !s->ir->decider[q].program &&
			    s->ir->scalar[q].network.value == IR_NET_ALLOW_LIST)
				empty |= IR_PLAT_BIT(q);
		}
		if (!empty)
			continue;
		if (empty == inforce)
			diag_push(s->ctx, DIAG_WARNING, &k->loc,
				  "add host patterns, or write `network deny` if nothing is meant",
				  "empty allow-list: the sandbox can reach nothing");
		else
			diag_push(s->ctx, DIAG_WARNING, &k->loc,
				  "add host patterns, or write `network deny` if nothing is meant",
				  "empty allow-list on %s: the sandbox can reach nothing",
				  sema_platform_list(empty, on));
	}
}

static void
check_targets(struct sema *s)
{
	const struct sema_slot_state *iso = &s->slots[SEMA_SLOT_ISOLATION][IR_WINDOWS];

	s->ir->platforms = (uint8_t)targets(s);
	if (!(s->ir->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return;
	if (s->ir->scalar[IR_WINDOWS].isolation.value != IR_ISO_PERMISSIVE) {
		sema_check_windows(s);
		return;
	}
	/* An AppContainer cannot grant "everything", and a
	 * silently weaker sandbox is worse than none. Asked for explicitly,
	 * that is an error; compiling for every platform leaves Windows out
	 * (heel-exec.exe then refuses the artifact and says why). */
	if (s->opts->target_explicit) {
		diag_push(s->ctx, DIAG_ERROR, iso->set ? &iso->loc : NULL,
			  "choose `isolation default` or `strict` for Windows",
			  "`isolation permissive` cannot be enforced by a Windows AppContainer");
		return;
	}
	diag_push(s->ctx, DIAG_WARNING, iso->set ? &iso->loc : NULL,
		  "the artifact has no Windows part; heel-exec.exe will refuse it",
		  "`isolation permissive` cannot be enforced by a Windows AppContainer; "
		  "leaving Windows out");
	s->ir->platforms &= (uint8_t)~IR_PLAT_BIT(IR_WINDOWS);
	s->ir->excluded_reason[IR_WINDOWS] =
	    sema_strdup(s, "permissive cannot be enforced by a Windows AppContainer");
}

/* ------------------------------------------------------------ building */

static int
cmp_env_pass(const void *a, const void *b)
{
	const struct ir_env_pass *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int
cmp_env_set(const void *a, const void *b)
{
	const struct ir_env_set *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->platforms - (int)y->platforms;
}

static bool
same_origin(const struct ir_origin *a, const struct ir_origin *b)
{
	return a->file == b->file && a->line == b->line && a->col == b->col;
}

static void
build_env(struct sema *s)
{
	struct ir_policy *ir = s->ir;
	size_t npass = 0, nset = 0;

	for (size_t i = 0; i < s->nenv; i++) {
		npass += s->env[i].pass_mask != 0;
		nset += IR_PLATFORM_COUNT;
	}
	ir->env_pass = npass ? calloc(npass, sizeof(*ir->env_pass)) : NULL;
	ir->env_set = nset ? calloc(nset, sizeof(*ir->env_set)) : NULL;
	if ((npass && !ir->env_pass) || (nset && !ir->env_set)) {
		s->oom = true;
		return;
	}
	for (size_t i = 0; i < s->nenv; i++) {
		struct sema_env *v = &s->env[i];
		bool done[IR_PLATFORM_COUNT] = {false};

		if (v->pass_mask) {
			struct ir_env_pass *o = &ir->env_pass[ir->nenv_pass];

			if (!(o->name = sema_strdup(s, v->name)))
				return;
			o->platforms = v->pass_mask;
			o->origin = v->pass_origin;
			ir->nenv_pass++;
		}
		/* One entry per distinct (value, origin), its platforms merged. */
		FOR_PLATFORMS(p, IR_PLAT_ALL)
		{
			struct ir_env_set *o;

			if (!v->set[p].present || done[p])
				continue;
			o = &ir->env_set[ir->nenv_set];
			o->name = sema_strdup(s, v->name);
			o->value = sema_strdup(s, v->set[p].value ? v->set[p].value : "");
			if (!o->name || !o->value) {
				free(o->name);
				free(o->value);
				o->name = o->value = NULL;
				return;
			}
			o->origin = v->set[p].origin;
			for (int q = p; q < IR_PLATFORM_COUNT; q++)
				if (v->set[q].present && !done[q] && v->set[q].value &&
				    strcmp(v->set[q].value, o->value) == 0 &&
				    same_origin(&v->set[q].origin, &o->origin)) {
					o->platforms |= (uint8_t)IR_PLAT_BIT(q);
					done[q] = true;
				}
			ir->nenv_set++;
		}
	}
	if (ir->nenv_pass)
		qsort(ir->env_pass, ir->nenv_pass, sizeof(*ir->env_pass), cmp_env_pass);
	if (ir->nenv_set)
		qsort(ir->env_set, ir->nenv_set, sizeof(*ir->env_set), cmp_env_set);
}

static int
cmp_seccomp(const void *a, const void *b)
{
	const struct ir_seccomp_rule *x = a, *y = b;

	return strcmp(x->syscall, y->syscall);
}

static int
cmp_ipc(const void *a, const void *b)
{
	const struct ir_ipc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->platforms - (int)y->platforms;
}

static int
cmp_named_seq(const void *a, const void *b)
{
	const struct sema_named *x = a, *y = b;
	int c = strcmp(x->value, y->value);

	/* Equal names keep their statement order, so the first wins. */
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Moves named values into the IR; sorted and deduplicated unless their
 * order matters (SBPL: the last matching rule wins). */
static void
build_named(struct sema *s, struct sema_named *v, size_t n, struct ir_named **out, size_t *nout,
	    bool keep_order)
{
	struct ir_named *o;
	size_t w = 0;

	if (!n)
		return;
	o = calloc(n, sizeof(*o));
	if (!o) {
		s->oom = true;
		return;
	}
	if (!keep_order)
		qsort(v, n, sizeof(*v), cmp_named_seq);
	for (size_t i = 0; i < n; i++) {
		if (!keep_order && w && strcmp(o[w - 1].value, v[i].value) == 0) {
			free(v[i].value);
			v[i].value = NULL;
			continue;
		}
		o[w].value = v[i].value;
		o[w].origin = v[i].origin;
		v[i].value = NULL;
		w++;
	}
	*out = o;
	*nout = w;
}

static void
build(struct sema *s)
{
	struct ir_policy *ir = s->ir;

	FOR_PLATFORMS(p, IR_PLAT_ALL)
	{
		ir->scalar[p].protections.set = true;
		ir->scalar[p].protections.value = s->protections[p];
		ir->scalar[p].protections.origin = s->protections_origin[p];
	}
	if (sema_build_readonly(s) || sema_build_paths(s) || sema_build_patterns(s))
		return;
	build_env(s);
	if (s->nseccomp) {
		ir->seccomp = calloc(s->nseccomp, sizeof(*ir->seccomp));
		if (!ir->seccomp) {
			s->oom = true;
			return;
		}
		for (size_t i = 0; i < s->nseccomp; i++) {
			ir->seccomp[i] = s->seccomp[i].rule;
			s->seccomp[i].rule.syscall = NULL;
		}
		ir->nseccomp = s->nseccomp;
		qsort(ir->seccomp, ir->nseccomp, sizeof(*ir->seccomp), cmp_seccomp);
	}
	if (s->nipc) {
		ir->ipc = calloc(s->nipc, sizeof(*ir->ipc));
		if (!ir->ipc) {
			s->oom = true;
			return;
		}
		for (size_t i = 0; i < s->nipc; i++) {
			ir->ipc[i] = s->ipc[i].ipc;
			memset(&s->ipc[i].ipc, 0, sizeof(s->ipc[i].ipc));
		}
		ir->nipc = s->nipc;
		qsort(ir->ipc, ir->nipc, sizeof(*ir->ipc), cmp_ipc);
	}
	build_named(s, s->mach, s->nmach, &ir->mach_lookups, &ir->nmach_lookups, false);
	build_named(s, s->sbpl, s->nsbpl, &ir->sbpl, &ir->nsbpl, true);
	build_named(s, s->caps, s->ncaps, &ir->capabilities, &ir->ncapabilities, false);
}

/* SHA-256 over the canonical form of every source in evaluation order
 * (base, then the user's files and presets in include order, then the
 * protection sets), each prefixed by its length: formatting never changes
 * it, a different file set, order or content always does. The files'
 * names are left out: the Windows container's name comes from this
 * digest, and the same policy saved as another file, or compiled by
 * another user from another checkout, must get the same container (an
 * include is named by its statement, which is in its includer's text). */
static void
digest(struct sema *s)
{
	struct sha256_ctx h;

	sha256_init(&h);
	for (size_t i = 0; i < s->norder; i++) {
		const struct sema_file *f = s->order[i];
		char *text = NULL;
		size_t len = 0;

		if (!f->ast)
			continue;
		if (fmt_render(f->ast, &text, &len)) {
			s->oom = true;
			return;
		}
		{
			uint8_t n[8];

			for (int b = 0; b < 8; b++)
				n[b] = (uint8_t)((uint64_t)len >> (8 * b));
			sha256_update(&h, sizeof(n), n);
		}
		sha256_update(&h, len, (const uint8_t *)text);
		free(text);
	}
	sha256_digest(&h, sizeof(s->ir->source_digest), s->ir->source_digest);
}

static void
sema_free_state(struct sema *s)
{
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i].path);
	free(s->paths);
	sema_map_free(&s->path_index);
	sema_free_readonly(s);
	for (size_t i = 0; i < s->npatterns; i++)
		free(s->patterns[i].host);
	free(s->patterns);
	for (size_t i = 0; i < s->nenv; i++) {
		free(s->env[i].name);
		for (int p = 0; p < IR_PLATFORM_COUNT; p++)
			free(s->env[i].set[p].value);
	}
	free(s->env);
	sema_map_free(&s->env_index);
	for (size_t i = 0; i < s->nseccomp; i++)
		free(s->seccomp[i].rule.syscall);
	free(s->seccomp);
	sema_map_free(&s->seccomp_index);
	for (size_t i = 0; i < s->nipc; i++) {
		free(s->ipc[i].ipc.name);
		free(s->ipc[i].ipc.exec);
		for (size_t j = 0; j < s->ipc[i].ipc.npositionals; j++)
			free(s->ipc[i].ipc.positionals[j]);
		free(s->ipc[i].ipc.positionals);
		for (size_t j = 0; j < s->ipc[i].ipc.nargs; j++)
			free(s->ipc[i].ipc.args[j].name);
		free(s->ipc[i].ipc.args);
	}
	free(s->ipc);
	for (size_t i = 0; i < s->nmach; i++)
		free(s->mach[i].value);
	free(s->mach);
	for (size_t i = 0; i < s->nsbpl; i++)
		free(s->sbpl[i].value);
	free(s->sbpl);
	for (size_t i = 0; i < s->ncaps; i++)
		free(s->caps[i].value);
	free(s->caps);
	free(s->order);
	load_free(s);
}

static void
internal_missing(struct sema *s, const char *name)
{
	/* Not the policy's fault: heelc was built from an incomplete tree. */
	diag_push(s->ctx, DIAG_ERROR, NULL, "rebuild heelc from a complete source tree",
		  "heelc has no embedded policy `<%s>` (policies/%s.heel)", name, name);
}

int
sema_compile(struct diag_ctx *ctx, const struct sema_options *opts, struct ir_policy **out)
{
	struct sema s = {.ctx = ctx, .opts = opts};
	struct sema_file *base;
	size_t errors_before = diag_error_count(ctx), diags_before = diag_count(ctx);
	int rc, iso;

	*out = NULL;
	if (!opts || (!opts->path && !opts->text))
		return -EINVAL;
	s.ir = ir_policy_new();
	if (!s.ir)
		return -ENOMEM;
	rc = load_top(&s);
	if (rc)
		goto out;

	/* The base first (its rules are what the user's statements add to
	 * and override), then the user's files with includes in place, then
	 * the protection sets the two leave switched on. */
	iso = find_isolation(s.files[0], IR_ISO_DEFAULT);
	base = load_embedded(&s, ir_isolation_names[iso], IR_SRC_BASE);
	if (base)
		eval_file(&s, base, IR_PLAT_ALL, IR_SET_NONE);
	else if (!s.oom)
		internal_missing(&s, ir_isolation_names[iso]);
	eval_file(&s, s.files[0], IR_PLAT_ALL, IR_SET_NONE);

	for (int k = 0; k < IR_SET_COUNT && !s.oom; k++) {
		unsigned mask = 0;
		char name[64];
		struct sema_file *f;

		FOR_PLATFORMS(p, IR_PLAT_ALL)
		if (s.protections[p] & (1u << k))
			mask |= IR_PLAT_BIT(p);
		if (!mask)
			continue;
		snprintf(name, sizeof(name), "protect/%s", set_names[k]);
		f = load_embedded(&s, name, IR_SRC_PROTECTION);
		if (f)
			eval_file(&s, f, mask, (uint8_t)k);
		else if (!s.oom)
			internal_missing(&s, name);
	}
	/* `allow gpu`: the device grants are a policy of their own in
	 * policies/devices/gpu.heel, so a reviewer can read what it opens. */
	if (!s.oom) {
		unsigned mask = 0;
		struct sema_file *f;

		FOR_PLATFORMS(p, IR_PLAT_ALL)
		if (s.ir->scalar[p].gpu.set && s.ir->scalar[p].gpu.value)
			mask |= IR_PLAT_BIT(p);
		if (mask) {
			f = load_embedded(&s, "devices/gpu", IR_SRC_BASE);
			if (f)
				eval_file(&s, f, mask, IR_SET_NONE);
			else if (!s.oom)
				internal_missing(&s, "devices/gpu");
		}
	}
	if (!s.oom) {
		check_network(&s);
		check_ipc_ioctl(&s);
		sema_warn_patterns(&s);
		sema_check_decider(&s);
		check_targets(&s);
		sema_check_audit(&s);
		build(&s);
	}
	/* What a platform's part can hold: only for a policy that is
	 * otherwise right, since counting builds that part. */
	if (!s.oom && diag_error_count(ctx) == errors_before)
		sema_check_limits(&s);
	if (!s.oom && diag_error_count(ctx) == errors_before)
		digest(&s);
	rc = s.oom ? -ENOMEM : diag_error_count(ctx) != errors_before ? -EINVAL : 0;
out:
	/* Parsing reports as it reads each file, the analysis as it
	 * evaluates: put them in the order a reader meets them. */
	if (diag_sort(ctx, diags_before) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc == 0)
		*out = s.ir;
	else
		ir_policy_free(s.ir);
	sema_free_state(&s);
	return rc;
}

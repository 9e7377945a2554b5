/* SPDX-License-Identifier: MIT
 * The start directory's read grant, decided from the compiled policy (see
 * startdir.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact.h"
#include "artifact_read.h"
#include "build.h"
#include "ir.h"
#include "sbpl_params.h"
#include "startdir.h"

/* The part of the artifact heel built: this machine's. */
#define STARTDIR_PLATFORM ((unsigned)BUILD_HOST_PLATFORM)

/* The rule deciding so far: the longest path at or above the directory. */
struct best {
	size_t len; /* of the expanded path; 0: none yet */
	bool grant;
	uint8_t mode;
	struct art_path rule;
};

/* Two rules that name one path after expansion, by heel(5) PRECEDENCE:
 * a grant beats a deny, except that a grant the isolation base made
 * loses to a deny someone else made (a protection set, the policy). */
static void
same_path(struct best *b, const struct art_path *p)
{
	bool grant = p->mode != 0;

	if (grant && b->grant) {
		b->mode |= p->mode;
		if (b->rule.source == ART_SRC_BASE)
			b->rule = *p;
		return;
	}
	if (grant == b->grant)
		return;
	if (grant ? !(p->source == ART_SRC_BASE && b->rule.source != ART_SRC_BASE)
		  : (b->rule.source == ART_SRC_BASE && p->source != ART_SRC_BASE)) {
		b->grant = grant;
		b->mode = p->mode;
		b->rule = *p;
	}
}

static void
consider(struct best *b, const char *path, const struct art_path *p, const char *dir)
{
	size_t len = strlen(path);

	if (strcmp(path, dir) != 0 && !px_beneath(dir, path))
		return;
	if (len < b->len)
		return;
	if (len == b->len) {
		same_path(b, p);
		return;
	}
	b->len = len;
	b->grant = p->mode != 0;
	b->mode = p->mode;
	b->rule = *p;
}

/* A rule's path as heel-exec applies it, or false when it applies to
 * nothing here (an unset variable: skipped or refused at launch). A deny
 * is followed through links, as heel-exec resolves it (what is protected
 * is what the name leads to: ~/.ssh through a linked home). A grant is
 * compared as spelled: heel-exec never follows a link to honour one, and
 * every directory above a resolved `dir` is itself free of links, so a
 * grant through a link cannot be one of them. */
static bool
applied_path(const char *tmpl, bool grant, px_lookup_fn lookup, void *ctx, char *out)
{
	char expanded[PATH_MAX];
	struct px_info info;
	bool exists;

	if (px_expand(tmpl, lookup, ctx, expanded, sizeof(expanded), &info) < 0)
		return false;
	if (grant) {
		/* A system directory chosen by a variable is refused. */
		if (px_refuse_system(expanded, &info) < 0)
			return false;
		memcpy(out, expanded, strlen(expanded) + 1);
		return true;
	}
	return sbpl_canonicalize(expanded, out, PATH_MAX, &exists) == 0;
}

/* The directory and each directory above it, by identity. A deny names
 * its place by one path, and the same directory can be reached by
 * another (a bind mount of ~/.ssh elsewhere): there a read grant of the
 * start directory would open what the deny closes, so a deny counts at
 * every spelling of its place above the start directory. */
struct above {
	size_t n;
	struct ident {
		dev_t dev;
		ino_t ino;
		size_t len; /* of the prefix of the directory's path */
	} * d;
};

static int
above_load(const char *dir, struct above *a)
{
	size_t n = 1;
	char prefix[PATH_MAX];
	struct stat st;

	for (const char *c = dir; *c; c++)
		n += *c == '/';
	a->n = 0;
	a->d = calloc(n + 1, sizeof(*a->d));
	if (!a->d)
		return -ENOMEM;
	for (size_t i = 1, len = strlen(dir); i <= len && len < sizeof(prefix); i++) {
		if (dir[i] != '/' && dir[i] != '\0' && i != 1)
			continue;
		/* "/" first, then "/a", "/a/b", ... */
		memcpy(prefix, dir, i);
		prefix[i] = '\0';
		if (stat(prefix, &st) == 0 && a->n < n + 1)
			a->d[a->n++] = (struct ident){st.st_dev, st.st_ino, i};
	}
	return 0;
}

/* The deepest directory at or above `dir` that is the place `path`
 * names (by identity), as a prefix of `dir` in out; false: none. */
static bool
deny_alias(const struct above *a, const char *path, const char *dir, char *out)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	for (size_t i = a->n; i-- > 0;) {
		if (a->d[i].dev != st.st_dev || a->d[i].ino != st.st_ino)
			continue;
		memcpy(out, dir, a->d[i].len);
		out[a->d[i].len] = '\0';
		return true;
	}
	return false;
}

int
startdir_decide(const uint8_t *art, size_t len, const char *dir, px_lookup_fn lookup, void *ctx,
		struct startdir *out)
{
	struct art_view view;
	struct art_scalar iso, wd;
	struct best b = {0};
	struct above a;
	char path[PATH_MAX], alias[PATH_MAX];
	bool strict;

	memset(out, 0, sizeof(*out));
	out->set = ART_SET_NONE;
	out->base = IR_ISO_DEFAULT;
	if (art_validate(art, len, &view, NULL, 0) < 0)
		return -EINVAL;
	/* Unset: the default base. */
	out->base = art_scalar(&view, STARTDIR_PLATFORM, ART_SC_ISOLATION, &iso) == 0 && iso.set
			? (uint8_t)iso.value
			: IR_ISO_DEFAULT;
	strict = out->base == IR_ISO_STRICT;
	if (above_load(dir, &a) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < art_path_count(&view); i++) {
		struct art_path p;

		if (art_path_at(&view, i, &p) < 0 ||
		    !(p.platforms & ART_PLAT_BIT(STARTDIR_PLATFORM)) ||
		    !applied_path(p.path, p.mode != 0, lookup, ctx, path))
			continue;
		if (p.mode == 0 && strcmp(path, dir) != 0 && !px_beneath(dir, path) &&
		    deny_alias(&a, path, dir, alias))
			consider(&b, alias, &p, dir);
		else
			consider(&b, path, &p, dir);
	}
	free(a.d);
	/* A kept working directory is writable, whatever the policy says
	 * about its parents (heel(5)): a grant of its own path. */
	if (art_scalar(&view, STARTDIR_PLATFORM, ART_SC_WORKDIR, &wd) == 0 && wd.set && wd.str) {
		struct art_path p = {.path = wd.str,
				     .mode = ART_READ | ART_WRITE,
				     .set = ART_SET_NONE,
				     .source = ART_SRC_USER,
				     .origin = wd.origin};

		if (applied_path(wd.str, false, lookup, ctx, path))
			consider(&b, path, &p, dir);
	}
	if (b.len) {
		out->rule = b.rule.path;
		out->origin_file = b.rule.origin.file;
		out->origin_line = b.rule.origin.line;
		out->set = b.rule.set;
		out->source = b.rule.source;
	}
	if (b.len && b.grant && (b.mode & ART_READ))
		out->verdict = STARTDIR_READABLE;
	else if (strict)
		out->verdict = STARTDIR_STRICT;
	else if (b.len && !b.grant)
		out->verdict = STARTDIR_DENIED;
	else if (px_is_system(dir))
		out->verdict = STARTDIR_SYSTEM;
	else
		out->verdict = STARTDIR_GRANT;
	out->grant_mode = out->base == IR_ISO_DEFAULT ? "rx" : "r";
	return 0;
}

/* The artifact numbers sets and bases as the IR does (artifact.h). */
static const char *
set_name(uint8_t set)
{
	return ir_set_name((enum ir_protect_set)set);
}

/* "the protection set `credentials` (deny "${HOME}/.ssh" at
 * <protect/credentials>:7)", or the base's, or the policy's own deny. */
static void
deny_words(const struct startdir *sd, char *buf, size_t len)
{
	char origin[PATH_MAX + 32];

	if (sd->origin_file)
		snprintf(origin, sizeof(origin), "%s:%u", sd->origin_file,
			 (unsigned)sd->origin_line);
	else
		snprintf(origin, sizeof(origin), "built in");
	if (sd->set < ART_SET_COUNT)
		snprintf(buf, len, "the protection set `%s` (deny \"%s\" at %s)", set_name(sd->set),
			 sd->rule, origin);
	else if (sd->source == ART_SRC_BASE)
		snprintf(buf, len, "the isolation base `%s` (deny \"%s\" at %s)",
			 ir_isolation_name(sd->base), sd->rule, origin);
	else
		snprintf(buf, len, "`deny \"%s\"` at %s", sd->rule, origin);
}

void
startdir_message(const struct startdir *sd, const char *dir, enum startdir_words words, char *buf,
		 size_t len)
{
	bool opt = words == STARTDIR_WORDS_OPTIONS;
	char what[2 * PATH_MAX + 64], grant[PATH_MAX + 64], lift[128] = "";
	/* heel starts the command elsewhere; libheel was told where. */
	const char *head =
	    opt ? "starting in the working directory, not in" : "the start directory";

	if (opt)
		snprintf(grant, sizeof(grant), "--readable .");
	else
		snprintf(grant, sizeof(grant), "heel_policy_grant(p, \"%s\", \"r\")", dir);
	if (sd->rule && sd->verdict != STARTDIR_READABLE)
		deny_words(sd, what, sizeof(what));
	switch (sd->verdict) {
	case STARTDIR_DENIED:
		if (sd->set < ART_SET_COUNT)
			snprintf(lift, sizeof(lift),
				 opt ? "--protect-%s=false lifts the protection, or "
				     : "heel_policy_protect(p, \"%s\", 0) lifts "
				       "the protection, or ",
				 set_name(sd->set));
		snprintf(buf, len,
			 "%s %s: %s denies it, and the read grant of the directory a "
			 "command starts in never beats a deny; %s%s grants the directory "
			 "explicitly",
			 opt ? "not starting in" : "the start directory", dir, what, lift, grant);
		break;
	case STARTDIR_STRICT:
		snprintf(
		    buf, len,
		    "%s %s: isolation strict reads no user data or shared temp (%s%s), and the "
		    "read "
		    "grant of the directory a command starts in never beats strict; %s lets the "
		    "command read the directory and start there",
		    head, dir, sd->rule ? what : "no rule grants it", sd->rule ? " denies it" : "",
		    grant);
		break;
	case STARTDIR_SYSTEM:
		snprintf(buf, len,
			 "%s %s: no rule of the policy lets the sandbox read it, and a whole "
			 "system directory is never granted for a command to start in; %s lets the "
			 "command read it and start there",
			 head, dir, grant);
		break;
	case STARTDIR_READABLE:
	case STARTDIR_GRANT:
		snprintf(buf, len, "%s %s: the command may start there", head, dir);
		break;
	}
}

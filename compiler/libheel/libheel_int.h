/* SPDX-License-Identifier: MIT
 * What libheel's modules share behind heel.h: the policy object, how a
 * policy becomes artifact bytes for one spawn, and error reporting. */
#ifndef HEEL_LIBHEEL_INT_H
#define HEEL_LIBHEEL_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build.h"
#include "heel.h"
#include "settings.h"

struct diag_ctx;

enum lh_kind {
	LH_BUILDER,  /* heel_policy_new: builder calls only */
	LH_SOURCE,   /* .heel text, from a file or a string */
	LH_ARTIFACT, /* a compiled .hpol, validated */
};

struct heel_policy {
	enum lh_kind kind;
	struct settings opts; /* the builder calls, as `heel run`'s options */
	char *name;	      /* LH_SOURCE: the file (absolute) or the string's name */
	char *text;	      /* LH_SOURCE: the text as loaded */
	uint8_t *art;	      /* LH_ARTIFACT */
	size_t artlen;
};

/* What one spawn adds to a policy. */
struct lh_spawn_view {
	const char *cwd;	/* absolute: the start directory, or the current one */
	bool start_dir;		/* the command starts in cwd (startdir.h: its grant) */
	const char *const *env; /* NAME=VALUE additions, or NULL */
	struct build_named_list *named; /* out: the paths the policy's builder
				 * calls named, for build_check_named; NULL */
	const char *const *launcher_env; /* heel-exec's environment; NULL: environ */
};

/* The spawn options with defaults for what `o` (which may be NULL or
 * older and shorter) does not set. -EINVAL when o was never initialised
 * (size 0): everything the caller set would be ignored. */
int lh_opts_read(const struct heel_spawn_opts *o, struct heel_spawn_opts *out, heel_error *err);

/* The policy text heel_spawn compiles, and the name it is compiled under;
 * compiled into *bytes (malloc'ed) when bytes is not NULL, its warnings
 * into *warnings when that is not NULL. With a start directory the text
 * is compiled either way: the policy decides whether the directory gets
 * its read grant or the spawn is refused (startdir.h). *text malloc'ed.
 * 0 or -errno with err set. Not for LH_ARTIFACT. */
int lh_policy_source(const heel_policy *p, const struct lh_spawn_view *v, char **text,
		     const char **name, uint8_t **bytes, size_t *len, char **warnings,
		     heel_error *err);

/* The artifact one spawn runs (*bytes malloc'ed). Warnings, when
 * `warnings` is not NULL, rendered into *warnings (malloc'ed, or NULL). */
int lh_policy_artifact(const heel_policy *p, const struct lh_spawn_view *v, uint8_t **bytes,
		       size_t *len, char **warnings, heel_error *err);

/* The view of one spawn: cwd checked absolute or taken from getcwd()
 * into buf (PATH_MAX). */
int lh_spawn_view(const struct heel_spawn_opts *o, char *buf, size_t buflen,
		  struct lh_spawn_view *v, heel_error *err);

/* Sets err (when not NULL) and returns code; the message is truncated
 * with " ..." to fit. */
int lh_fail(heel_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lh_ok(heel_error *err);

/* The diagnostics in ctx, rendered as heelc prints them (malloc'ed, no
 * trailing newline; NULL when there are none or memory is short). */
char *lh_render(const struct diag_ctx *ctx);

#endif

/* SPDX-License-Identifier: MIT
 * The macOS part of a compiled policy as heel-exec uses it: the SBPL
 * profile (SBPL_TEXT) and its parameters (SBPL_PARAMS), each parameter
 * expanded and canonicalised for one launch, the rule order checked
 * against the real paths, and the result laid out as the NULL-terminated
 * key/value list sandbox_init_with_parameters() takes (docs/sbpl.md).
 * Portable C17 + POSIX, libc only: the macOS launcher links it and it is
 * unit-tested on Linux. Never prints: failures come back as -errno and a
 * one-line message. */
#ifndef HEEL_RUNTIME_SBPL_PARAMS_H
#define HEEL_RUNTIME_SBPL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_read.h"
#include "pathexpand.h"

/* The value a parameter gets when its ${NAME} is unset and its rule may
 * be skipped (every deny, optional grants): a path that can never exist,
 * since /dev/null is not a directory, so the rule matches nothing. */
#define SBPL_UNSET_PATH "/dev/null/heel-unset"

/* One SBPL_PARAMS record; strings point into the artifact buffer. */
struct sbpl_param_rec {
	const char *name;  /* [A-Z][A-Z0-9_]* */
	uint8_t kind;	   /* enum art_sbpl_kind */
	uint8_t mode;	   /* access bits (0 = deny) or ART_SBPL_MODE_* */
	bool optional;
	uint32_t rank;	   /* PATH, WORKDIR: place in the profile, 1 = first; PROXY: 0 */
	const char *value; /* PATH: template; WORKDIR: ""; PROXY: "localhost:PORT" */
	struct art_origin origin;
};

/* The profile text of a view art_validate() accepted: 0, or -ENOENT when
 * the artifact has no macOS part. The text is not NUL-terminated in the
 * buffer; sbpl_prepare() hands out a terminated copy. */
int sbpl_text(const struct art_view *view, const char **text, size_t *len);
/* The parameters, in the order of the table (0 without a macOS part). */
size_t sbpl_param_count(const struct art_view *view);
/* 0, or -ERANGE past the end. */
int sbpl_param_at(const struct art_view *view, size_t i, struct sbpl_param_rec *out);

/* What one launch supplies. */
struct sbpl_launch {
	px_lookup_fn lookup;	/* ${NAME} from the caller's environment; NULL: none set */
	void *ctx;		/* for lookup */
	const char *launch_dir; /* absolute: ${CWD} and relative paths */
	const char *workdir;	/* absolute: the run's working directory */
	uint16_t proxy_port;	/* heel-proxy's loopback port; 0: no proxy runs */
};

/* One parameter after expansion. */
struct sbpl_resolved {
	const char *name;	 /* the record's (points into the artifact or the caller's array) */
	uint8_t kind, mode;
	uint32_t rank;
	char *value;		 /* what the sandbox gets (owned) */
	bool unset;		 /* value is SBPL_UNSET_PATH: the rule matches nothing */
	const struct sbpl_param_rec *rec; /* sbpl_resolve's input; NULL after sbpl_prepare */
};

/* Everything sandbox_init_with_parameters(profile, 0, kv, &err) needs. */
struct sbpl_launch_params {
	char *profile;		      /* NUL-terminated copy of SBPL_TEXT */
	const char **kv;	      /* "NAME", "VALUE", ..., NULL (pointers into params) */
	struct sbpl_resolved *params; /* in table order */
	size_t nparams;
};

/* Expands every parameter of recs[0..n) for one launch: a PATH template's
 * ${NAME} from in->lookup (${CWD} and a relative path from
 * in->launch_dir), canonicalised with realpath() of its deepest existing
 * ancestor (/tmp/x -> /private/tmp/x on macOS); WORKDIR from in->workdir,
 * canonicalised the same way; PROXY as "localhost:PORT". An unset
 * variable gives SBPL_UNSET_PATH where the rule is optional and refuses
 * the launch where it is not (a required grant), as does a required
 * grant whose path does not exist, a grant a variable turned into the
 * root or a top-level system directory, a malformed template, a PROXY
 * without a port, or a missing or relative launch directory. Then
 * sbpl_order_check(). out->profile stays NULL (see
 * sbpl_prepare). 0, -ENOMEM, or -EINVAL/-ENOENT/-EPERM with a one-line
 * message naming the parameter, its rule's origin and the path. */
int sbpl_resolve(const struct sbpl_param_rec *recs, size_t n, const struct sbpl_launch *in,
		 struct sbpl_launch_params *out, char *err, size_t errlen);

/* sbpl_resolve() over a validated view's table, plus the profile text.
 * -ENOENT with a message when the artifact has no macOS part. */
int sbpl_prepare(const struct art_view *view, const struct sbpl_launch *in,
		 struct sbpl_launch_params *out, char *err, size_t errlen);

void sbpl_launch_params_free(struct sbpl_launch_params *p);

/* The rule-order promise of the profile (docs/sbpl.md): SBPL's last
 * matching rule wins and rules are written shallow to deep by an
 * estimated depth, so an earlier rule must never lie strictly beneath a
 * later one with another mode, which would override it. Checks every
 * PATH and WORKDIR pair of p[0..n) (ordered by rank; unset ones match
 * nothing and are skipped). 0, or -EPERM naming both paths. */
int sbpl_order_check(const struct sbpl_resolved *p, size_t n, char *err, size_t errlen);

/* Canonicalises absolute, normalised `path`: realpath() of its deepest
 * existing ancestor, with the components that do not exist appended,
 * and a firmlinked data-volume spelling folded (sbpl_firmlink_fold).
 * *exists tells whether the whole path exists. 0, -ENAMETOOLONG, or
 * -errno of a realpath() failure other than a missing component. */
int sbpl_canonicalize(const char *path, char *out, size_t outlen, bool *exists);

/* macOS (10.15 and later) keeps the writable half of the system on the
 * data volume, mounted at /System/Volumes/Data, and joins it to the
 * read-only system volume with firmlinks (/Users, /Applications, /private,
 * /usr/local, /opt... the list macOS reads from /usr/share/firmlinks):
 * /System/Volumes/Data/Users/a and /Users/a are one directory. */
#define SBPL_DATA_VOLUME "/System/Volumes/Data"
/* Whether `path` (absolute, normalised) is a firmlinked directory or lies
 * beneath one, spelt on the system volume (/Users/a). */
bool sbpl_firmlinked(const char *path);
/* `path` with a data-volume spelling of a firmlinked place folded to
 * the system volume's: a pointer into `path` past "/System/Volumes/Data"
 * when what follows is sbpl_firmlinked(), else `path` itself. */
const char *sbpl_firmlink_fold(const char *path);

#endif

/* SPDX-License-Identifier: MIT
 * IR -> the macOS part of a policy: an SBPL profile whose every path is a
 * `(param "NAME")`, and the table of those parameters (kind, value
 * template, mode, rank) the launcher fills at launch. The artifact writer
 * stores both (SBPL_TEXT, SBPL_PARAMS); `heelc emit sbpl` prints them.
 * docs/sbpl.md is the reviewer's guide to what is emitted and why. */
#ifndef HEEL_COMPILER_SBPL_EMIT_H
#define HEEL_COMPILER_SBPL_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

/* One parameter. kind and mode take the artifact's values
 * (ART_SBPL_KIND_*, ART_SBPL_MODE_* or access bits, runtime/artifact.h). */
struct sbpl_param {
	char *name;	/* "P0", "P1", ..., "WORKDIR", "PROXY" */
	uint8_t kind;	/* enum art_sbpl_kind */
	uint8_t mode;	/* access bits (0 = deny) or ART_SBPL_MODE_* */
	bool optional;	/* an unset ${NAME} or a missing path is not an error */
	uint32_t rank;	/* 1.. in profile order for PATH and WORKDIR; 0 for PROXY */
	char *value;	/* PATH: template, literal links canonicalised; WORKDIR: "";
			 * PROXY: "localhost:PORT" */
	struct ir_origin origin; /* file owned by the IR's pool */
};

struct sbpl_profile {
	char *text;	/* NUL-terminated; len bytes without the NUL */
	size_t len;
	struct sbpl_param *params; /* in the order the profile uses them */
	size_t nparams;
};

/* Builds the macOS profile of `ir` (its rules whose platforms include
 * macos, its macos scalars). Returns 0, -ENOMEM, or -EINVAL with a one-line
 * message in err when the policy holds something SBPL cannot express (a
 * `readonly each-writable` name with a character a regex cannot carry).
 * Same IR, same bytes. */
int sbpl_emit(const struct ir_policy *ir, struct sbpl_profile *out, char *err, size_t errlen);

/* Whether the profile can carry `readonly each-writable "rel"` (a regex
 * matching it beneath any directory): 0, or -EINVAL with sbpl_emit's
 * message in err and in *at the offset in rel of the character a regex
 * cannot match (rel's length when the regex would be too long), so that
 * sema refuses it at the statement; -ENOMEM. */
int sbpl_check_each_writable(const char *rel, size_t *at, char *err, size_t errlen);
void sbpl_profile_free(struct sbpl_profile *p);

/* The parameter table as `heelc emit sbpl` prints it before the profile:
 * one `;; param NAME KIND VALUE` line each (VALUE to the end of the line;
 * heelc refuses control characters in paths, so it holds no newline). */
const char *sbpl_kind_name(unsigned kind); /* "path", "workdir", "proxy"; "?" */
int sbpl_print_param(FILE *out, const char *name, unsigned kind, const char *value);
/* The parameter table, then the profile. 0 or -EIO. */
int sbpl_print(const struct sbpl_profile *p, FILE *out);

/* Literal absolute paths through macOS's links, for a profile that names
 * real paths: "/tmp/x" -> "/private/tmp/x", "/var", "/etc" likewise; any
 * other template is copied. NULL on out-of-memory. */
char *sbpl_canonical_literal(const char *tmpl);

/* The depth a template is estimated to have after expansion: components,
 * with ${HOME} as two (/Users/NAME), ${TMPDIR} as six
 * (/private/var/folders/xx/yyyy/T), ${CWD}, any other variable and the
 * launch directory of a relative path as four. Emission order follows it. */
unsigned sbpl_estimated_depth(const char *tmpl);

#endif

/* SPDX-License-Identifier: MIT
 * The SBPL checker: reads a macOS sandbox profile (sbpl_read.h) and checks
 * what can be checked without a Mac, so that a profile heelc writes, or a
 * raw rule a policy carries, fails here rather than in sandbox-exec (exit
 * 65) or, worse, means less than it says. */
#ifndef HEEL_COMPILER_SBPL_CHECK_H
#define HEEL_COMPILER_SBPL_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* The kind of a parameter, `(param "NAME")`, as the profile's parameter
 * table gives it. PATH and WORKDIR values are absolute paths (the launcher
 * expands and canonicalises them); a PROXY value is "localhost:PORT"; a
 * STRING value is anything else (a flag, a message). */
enum sbpl_param_kind {
	SBPL_PARAM_PATH,
	SBPL_PARAM_WORKDIR,
	SBPL_PARAM_PROXY,
	SBPL_PARAM_STRING,
};

/* The kind named `name` ("path", "workdir", "proxy", "string"); -1 when
 * there is no such kind. */
int sbpl_param_kind_from_name(const char *name);

struct sbpl_param_def {
	const char *name;
	enum sbpl_param_kind kind;
};

/* Options. */
enum {
	/* Accept `(with no-sandbox)`, which runs the matched program without
	 * any sandbox: refused unless the caller means it. */
	SBPL_CHECK_ALLOW_NO_SANDBOX = 1u << 0,
	/* Every defined parameter must be used by the text (a profile heelc
	 * writes passes only what it uses). */
	SBPL_CHECK_ALL_PARAMS_USED = 1u << 1,
};

/* What the profile may refer to. `params` may be NULL when nparams is 0. */
struct sbpl_check_params {
	const struct sbpl_param_def *params;
	size_t nparams;
	unsigned flags;
};

enum sbpl_severity { SBPL_SEV_ERROR, SBPL_SEV_WARNING };

/* One problem. `line` and `col` are 1-based (columns in characters) and
 * relative to the text given; both are 0 for a problem of the whole text
 * (a missing version form, an unused parameter). */
struct sbpl_diag {
	enum sbpl_severity severity;
	uint32_t line, col;
	char *message;
};

/* Filled by the check functions in the order found (a reader error is the
 * only diagnostic: after it nothing else is checked; unused parameters
 * come last). Free with
 * sbpl_check_result_free(). */
struct sbpl_check_result {
	struct sbpl_diag *diags;
	size_t ndiags;
	size_t nerrors, nwarnings;
};

/* Checks a whole profile: `(version 1)` first and once; then rules
 * `(allow|deny OPERATION... FILTER... (with MODIFIER...))`, `(define NAME
 * EXPR)`, `(if COND RULE [RULE])`, `(import "FILE")`; names against
 * sbpl_names.c; filter argument shapes; absolute, canonical paths;
 * regexes that compile (regcomp, REG_EXTENDED) and path regexes anchored
 * with ^; network addresses ("*:*", "*:PORT", "localhost:PORT",
 * "localhost:*" or a PROXY parameter); parameters defined (and, with
 * SBPL_CHECK_ALL_PARAMS_USED, used). Fills *out (caller frees). Returns 0
 * when there is no error (warnings allowed), -EINVAL when there is at
 * least one, -ENOMEM when out of memory (*out then holds what was found). */
int sbpl_check(const char *text, size_t len, const struct sbpl_check_params *params,
	       struct sbpl_check_result *out);

/* Checks the text of one raw rule, as a policy's `sbpl "..."` statement
 * carries it: one or more `(allow ...)`/`(deny ...)` forms (also `if`),
 * with no version form. Positions are relative to `text` (line 1, column
 * 1 is its first character): the caller adds where the string starts.
 * SBPL_CHECK_ALL_PARAMS_USED is ignored. Returns as sbpl_check(). */
int sbpl_check_rule(const char *text, size_t len, const struct sbpl_check_params *params,
		    struct sbpl_check_result *out);

/* Frees the diagnostics and empties `r`; NULL is fine. */
void sbpl_check_result_free(struct sbpl_check_result *r);

#endif

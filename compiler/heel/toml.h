/* SPDX-License-Identifier: MIT
 * The TOML subset `heel --config` reads: a root table and `[name]` tables
 * of `key = value`, values being strings, decimal integers, booleans and
 * arrays of them. Errors are pushed to a diag_ctx as FILE:LINE:COL, like
 * the policy language's. */
#ifndef HEEL_FRONT_TOML_H
#define HEEL_FRONT_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum toml_type { TOML_T_STRING, TOML_T_INT, TOML_T_BOOL, TOML_T_ARRAY };

struct toml_value {
	enum toml_type type;
	uint32_t line, col;
	char *str;   /* TOML_T_STRING: decoded, NUL-terminated (no NUL inside) */
	int64_t num; /* TOML_T_INT */
	bool b;      /* TOML_T_BOOL */
	struct toml_value **items; /* TOML_T_ARRAY */
	size_t nitems;
};

struct toml_entry {
	char *key;
	uint32_t line, col;
	struct toml_value *value;
};

struct toml_table {
	char *name; /* NULL for the root table */
	uint32_t line, col;
	struct toml_entry *entries;
	size_t n, cap;
};

struct toml_doc {
	const struct diag_source *src;
	struct toml_table *tables; /* tables[0] is the root */
	size_t n, cap;
};

/* Parses `src` (registered in `ctx`). Every error is pushed to `ctx`; *out
 * receives what did parse (free with toml_doc_free) even when there were
 * errors. Returns 0, -EINVAL when an error was pushed, -ENOMEM. */
int toml_parse(struct diag_ctx *ctx, const struct diag_source *src, struct toml_doc **out);
void toml_doc_free(struct toml_doc *doc);

/* "a string", "an integer", "a boolean", "an array": for messages. */
const char *toml_type_name(enum toml_type type);

#endif

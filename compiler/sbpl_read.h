/* SPDX-License-Identifier: MIT
 * Reading SBPL text into s-expressions, with the lexical rules of the
 * TinyScheme reader libsandbox evaluates profiles with, made strict where
 * that reader silently changes what was written (see sbpl_read.c). */
#ifndef HEEL_COMPILER_SBPL_READ_H
#define HEEL_COMPILER_SBPL_READ_H

#include <stddef.h>
#include <stdint.h>

/* TinyScheme's reader keeps a string in a 256-byte buffer: a longer one
 * is not read as written. Strings longer than this are refused. */
#define SBPL_STRING_MAX 255

/* Deeper nesting than any profile needs; the reader and checker recurse. */
#define SBPL_DEPTH_MAX 64

enum sbpl_node_kind {
	SBPL_NODE_LIST,
	SBPL_NODE_SYMBOL,
	SBPL_NODE_INT,
	SBPL_NODE_BOOL,
	SBPL_NODE_STRING,
};

/* One datum. `line` and `col` are 1-based; columns count characters
 * (UTF-8 code points), as heelc's own diagnostics do. */
struct sbpl_node {
	enum sbpl_node_kind kind;
	uint32_t line, col;
	int raw;           /* STRING: written as #"..." */
	long long num;     /* INT: the value; BOOL: 1 for #t, 0 for #f */
	char *text;        /* SYMBOL: the name; STRING: the decoded bytes; NUL-terminated */
	size_t len;        /* bytes in `text` before the NUL (a STRING holds no NUL) */
	struct sbpl_node **kids; /* LIST: the elements; 'x is read as (quote x) */
	size_t nkids;
};

/* The top-level forms of a text, in order. */
struct sbpl_doc {
	struct sbpl_node **forms;
	size_t nforms;
};

/* The first lexical or syntax error: reading stops there. */
struct sbpl_read_error {
	uint32_t line, col;
	char message[256];
};

/* Reads `len` bytes of `text` (NUL bytes included: outside strings and
 * comments they are errors). On success returns 0 and fills *out, which
 * the caller frees with sbpl_doc_free(). Returns -EINVAL with *err filled
 * on a malformed text (*out is then empty), -ENOMEM when out of memory. */
int sbpl_read(const char *text, size_t len, struct sbpl_doc *out, struct sbpl_read_error *err);

/* Frees what sbpl_read() put in `doc` and empties it; a NULL or empty
 * doc is fine. */
void sbpl_doc_free(struct sbpl_doc *doc);

#endif

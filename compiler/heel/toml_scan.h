/* SPDX-License-Identifier: MIT
 * What the TOML scanner, the parser and toml.c share: the scanner state
 * and the parser's actions. Not for other modules (they use toml.h). */
#ifndef HEEL_FRONT_TOML_SCAN_H
#define HEEL_FRONT_TOML_SCAN_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "toml.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* A word or decoded string from the scanner (malloc'ed text). */
struct toml_tok {
	char *text;
	size_t len;
	bool quoted; /* a string: any text may be a key */
};

/* An array's items while it is being parsed. */
struct toml_list {
	struct toml_value **items;
	size_t n, cap;
};

struct toml_scan {
	struct diag_ctx *diag;
	const struct diag_source *src;
	struct toml_doc *doc;
	size_t cur;	       /* index of the table keys now go to */
	uint32_t line, col;    /* position of the next character */
	unsigned array_depth;  /* inside `[ ... ]` of a value: newlines are blanks */
	bool after_equals;     /* a `[` now opens an array, not a table header */
	bool eof_sent;
	uint32_t err_line;     /* the line an error was last reported on */
	bool any_err;
	bool oom;
	jmp_buf fatal;
};

void toml_scan_error(struct toml_scan *sc, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void toml_scan_syntax_error(struct toml_scan *sc, uint32_t line, uint32_t col, const char *msg);
void toml_scan_fatal(struct toml_scan *sc, const char *msg) __attribute__((noreturn));

void toml_act_table(struct toml_scan *sc, struct toml_tok *name, uint32_t line, uint32_t col);
void toml_act_keyval(struct toml_scan *sc, struct toml_tok *key, uint32_t line, uint32_t col,
		     struct toml_value *v);
struct toml_value *toml_act_string(struct toml_scan *sc, struct toml_tok *t, uint32_t line,
				   uint32_t col);
struct toml_value *toml_act_word(struct toml_scan *sc, struct toml_tok *t, uint32_t line,
				 uint32_t col);
struct toml_value *toml_act_array(struct toml_scan *sc, struct toml_list *items, uint32_t line,
				  uint32_t col);
void toml_list_add(struct toml_scan *sc, struct toml_list *l, struct toml_value *v);
void toml_list_free(struct toml_list *l);
void toml_value_free(struct toml_value *v);

#endif

/* SPDX-License-Identifier: MIT
 * Diagnostics: sources registered for echoing, and the list of errors,
 * warnings and notes the compiler library pushes instead of printing.
 * Only a main() renders them (to stderr) and decides the exit status. */
#ifndef HEEL_COMPILER_DIAG_H
#define HEEL_COMPILER_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

/* One policy text. Owned by the diag_ctx that registered it; pointers stay
 * valid until diag_free(). `included_from` builds the chain printed as
 * "in file included from FILE:LINE:COL" above a diagnostic. */
struct diag_source {
	char *path;        /* as shown in diagnostics */
	char *origin_name; /* as recorded in artifacts: relative to the top file's dir, or "<preset>" */
	char *text;        /* NUL-terminated copy of the whole file */
	size_t len;
	const struct diag_source *included_from;
	uint32_t inc_line, inc_col;
	int is_preset;     /* embedded in heelc (policies/) */
};

/* A position: 1-based line, 1-based column counted in characters (UTF-8
 * code points; a tab is one). `src` may be NULL for diagnostics about no
 * particular line (e.g. a file that cannot be read). */
struct diag_loc {
	const struct diag_source *src;
	uint32_t line;
	uint32_t col;
};

struct diag {
	enum diag_severity severity;
	struct diag_loc loc;
	char *message;
	char *hint; /* NULL when none */
};

struct diag_ctx;

/* Caller frees with diag_free(). Returns NULL on out-of-memory. */
struct diag_ctx *diag_new(void);
void diag_free(struct diag_ctx *ctx);

/* Registers a copy of `text` (len bytes). Returns NULL on out-of-memory. */
const struct diag_source *diag_add_source(struct diag_ctx *ctx, const char *path,
					  const char *origin_name, const char *text,
					  size_t len);

/* Records that `src` (registered in `ctx`) was included from `from` at
 * LINE:COL, and whether it is embedded in heelc, so diagnostics in it
 * print the include chain. Does nothing for a source `ctx` does not own. */
void diag_set_included(struct diag_ctx *ctx, const struct diag_source *src,
		       const struct diag_source *from, uint32_t line,
		       uint32_t col, int is_preset);

/* Pushes a diagnostic; `hint` may be NULL, and may hold several lines
 * (separated by '\n'), each rendered as a hint of its own. Out-of-memory is remembered and
 * reported by diag_error_count() as an error, never silently lost. */
void diag_push(struct diag_ctx *ctx, enum diag_severity sev,
	       const struct diag_loc *loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void diag_vpush(struct diag_ctx *ctx, enum diag_severity sev,
		const struct diag_loc *loc, const char *hint, const char *fmt,
		va_list ap);

/* The texts registered so far, in order (what a compile read: the
 * top text, included files, embedded presets). */
size_t diag_source_count(const struct diag_ctx *ctx);
const struct diag_source *diag_source_at(const struct diag_ctx *ctx, size_t i);

size_t diag_error_count(const struct diag_ctx *ctx);
size_t diag_warning_count(const struct diag_ctx *ctx);
size_t diag_count(const struct diag_ctx *ctx);
const struct diag *diag_get(const struct diag_ctx *ctx, size_t i);

/* Writes every diagnostic in push order:
 *   FILE:LINE:COL: error: message
 *       LINE | source line
 *            |     ^
 *     hint: ...
 * preceded by "in file included from ..." lines for included sources. */
void diag_render(const struct diag_ctx *ctx, FILE *out);
/* Puts the diagnostics pushed since the first `from` in the order a reader
 * of the policy meets them: by file (an included file's at its include),
 * line and column; a note stays after the diagnostic it belongs to, and
 * ties keep the order they were pushed in. 0 or -ENOMEM (then unsorted). */
int diag_sort(struct diag_ctx *ctx, size_t from);
/* The same, with `program` ("heel") naming who speaks where a
 * diagnostic has no file to name. */
void diag_render_as(const struct diag_ctx *ctx, const char *program, FILE *out);

/* Column (1-based, in characters) of byte offset `off` within line `line`
 * of `src`; used by the lexer and by errors inside strings. */
uint32_t diag_column_of(const struct diag_source *src, size_t line_start_off,
			size_t off);

#endif

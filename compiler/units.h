/* SPDX-License-Identifier: MIT
 * Sizes, durations and counts as written in a policy (`2GiB`, `60s`,
 * `256`): digits with the unit attached, parsed with 64-bit overflow
 * checks so no limit silently wraps to a small or zero value. */
#ifndef HEEL_COMPILER_UNITS_H
#define HEEL_COMPILER_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum units_kind {
	UNITS_SIZE,	/* bytes: B KiB MiB GiB TiB, KB MB GB (powers of ten) */
	UNITS_DURATION, /* milliseconds: ms s m h */
	UNITS_COUNT,	/* a plain number: no unit */
};

enum units_status {
	UNITS_OK,
	UNITS_NOT_A_NUMBER,    /* does not start with a digit */
	UNITS_MISSING_UNIT,    /* size or duration written without a unit */
	UNITS_UNKNOWN_UNIT,    /* a unit that this kind does not know */
	UNITS_UNEXPECTED_UNIT, /* a count written with a unit */
	UNITS_OVERFLOW,	       /* does not fit in 64 bits */
};

/* What a unit units_parse() did not know most likely meant, for a hint. */
struct units_guess {
	const char *unit;    /* the unit meant: "GiB" for `G`, "m" for `min` */
	const char *decimal; /* a size letter alone (`G`, `gb`) may also mean a power of
				ten: that unit ("GB"), "" when there is none (`T`), NULL
				when the spelling was not ambiguous */
	unsigned times;	     /* the number is this many of `unit` (a day is 24h) */
};

/* Fills *g and returns 0 when `unit` is a common spelling of one this
 * kind knows (`G`, `gb`, `sec`, `min`, `hours`, `d`), -ENOENT otherwise
 * (then a "did you mean" by edit distance is the better hint). */
int units_guess(enum units_kind kind, const char *unit, struct units_guess *g);

/* A number with a fraction (`1.5GiB`, `0.5s`), which policies do not
 * take, written whole in a smaller unit of the same kind ("1536MiB",
 * "500ms") into `out`. Returns 0, or -EINVAL when `text` is not such a
 * number or has no exact whole spelling. */
int units_whole(const char *text, char *out, size_t size);

/* Parses `text`. On UNITS_OK *value is bytes, milliseconds or the count.
 * *unit_off (may be NULL) receives the offset of the first character after
 * the digits, where a unit starts, so errors can point at it. */
enum units_status units_parse(const char *text, enum units_kind kind, uint64_t *value,
			      size_t *unit_off);

/* The units a kind accepts, NULL-terminated (empty for UNITS_COUNT). */
const char *const *units_names(enum units_kind kind);

/* Milliseconds rounded up to whole seconds (never overflows). */
uint64_t units_ms_to_seconds_up(uint64_t ms);

#endif

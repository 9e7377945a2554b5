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

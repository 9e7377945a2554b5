/* SPDX-License-Identifier: MIT
 * Overflow-checked parsing of sizes, durations and counts (see units.h). */
#include "units.h"

#include <string.h>

struct unit {
	const char *name;
	uint64_t factor;
};

static const struct unit size_units[] = {
    {"B", 1},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"KB", 1000ull},
    {"MB", 1000ull * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {NULL, 0},
};

static const struct unit duration_units[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000}, {NULL, 0},
};

static const char *const size_names[] = {"B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", NULL};
static const char *const duration_names[] = {"ms", "s", "m", "h", NULL};
static const char *const no_names[] = {NULL};

const char *const *
units_names(enum units_kind kind)
{
	switch (kind) {
	case UNITS_SIZE:
		return size_names;
	case UNITS_DURATION:
		return duration_names;
	default:
		return no_names;
	}
}

enum units_status
units_parse(const char *text, enum units_kind kind, uint64_t *value, size_t *unit_off)
{
	const struct unit *table;
	uint64_t n = 0;
	size_t i = 0;
	int overflow = 0;

	if (!text || text[0] < '0' || text[0] > '9') {
		if (unit_off)
			*unit_off = 0;
		return UNITS_NOT_A_NUMBER;
	}
	for (; text[i] >= '0' && text[i] <= '9'; i++) {
		uint64_t d = (uint64_t)(text[i] - '0');

		/* Keep scanning after an overflow so the unit is still
		 * checked: a wrong unit is the more useful message. */
		if (n > (UINT64_MAX - d) / 10)
			overflow = 1;
		else
			n = n * 10 + d;
	}
	if (unit_off)
		*unit_off = i;
	if (kind == UNITS_COUNT) {
		if (text[i])
			return UNITS_UNEXPECTED_UNIT;
		if (overflow)
			return UNITS_OVERFLOW;
		*value = n;
		return UNITS_OK;
	}
	if (!text[i])
		return UNITS_MISSING_UNIT;
	table = kind == UNITS_SIZE ? size_units : duration_units;
	for (; table->name; table++) {
		if (strcmp(text + i, table->name) != 0)
			continue;
		if (overflow || (n && table->factor > UINT64_MAX / n))
			return UNITS_OVERFLOW;
		*value = n * table->factor;
		return UNITS_OK;
	}
	return UNITS_UNKNOWN_UNIT;
}

uint64_t
units_ms_to_seconds_up(uint64_t ms)
{
	return ms / 1000 + (ms % 1000 != 0);
}

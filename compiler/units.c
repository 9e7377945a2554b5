/* SPDX-License-Identifier: MIT
 * Overflow-checked parsing of sizes, durations and counts (see units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

static bool
is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcasecmp(s, *words) == 0)
			return true;
	return false;
}

int
units_guess(enum units_kind kind, const char *unit, struct units_guess *g)
{
	static const char *const sec[] = {"sec", "secs", "second", "seconds", NULL};
	static const char *const min[] = {"min", "mins", "minute", "minutes", NULL};
	static const char *const hour[] = {"hr", "hrs", "hour", "hours", NULL};
	static const char *const msec[] = {"msec", "msecs", "millisecond", "milliseconds", NULL};
	static const char *const day[] = {"d", "day", "days", NULL};
	static const char *const byte[] = {"b", "byte", "bytes", NULL};
	static const struct {
		char letter;
		const char *binary, *decimal;
	} sizes[] = {
	    {'k', "KiB", "KB"}, {'m', "MiB", "MB"}, {'g', "GiB", "GB"}, {'t', "TiB", ""},
	};

	memset(g, 0, sizeof(*g));
	g->times = 1;
	if (kind == UNITS_DURATION) {
		if (is_one_of(unit, sec))
			g->unit = "s";
		else if (is_one_of(unit, min))
			g->unit = "m";
		else if (is_one_of(unit, hour))
			g->unit = "h";
		else if (is_one_of(unit, msec))
			g->unit = "ms";
		else if (is_one_of(unit, day))
			g->unit = "h", g->times = 24;
		return g->unit ? 0 : -ENOENT;
	}
	if (kind != UNITS_SIZE)
		return -ENOENT;
	if (is_one_of(unit, byte)) {
		g->unit = "B";
		return 0;
	}
	/* `G` and `gb` name no unit: people mean GiB by them far more
	 * often than 10^9 bytes, and the hint says which is which. */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (tolower((unsigned char)unit[0]) != sizes[i].letter)
			continue;
		if (unit[1] == '\0' || (tolower((unsigned char)unit[1]) == 'b' && unit[2] == '\0')) {
			g->unit = sizes[i].binary;
			g->decimal = sizes[i].decimal;
			return 0;
		}
	}
	return -ENOENT;
}

/* Each family from its largest unit down: a whole spelling keeps to the
 * family the number was written in (binary, decimal, time). */
static const struct unit binary_down[] = {
    {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}, {"B", 1},
    {NULL, 0},
};
static const struct unit decimal_down[] = {
    {"GB", 1000ull * 1000 * 1000}, {"MB", 1000ull * 1000}, {"KB", 1000ull}, {"B", 1}, {NULL, 0},
};
static const struct unit time_down[] = {
    {"h", 60 * 60 * 1000}, {"m", 60 * 1000}, {"s", 1000}, {"ms", 1}, {NULL, 0},
};

int
units_whole(const char *text, char *out, size_t size)
{
	static const struct unit *const families[] = {binary_down, decimal_down, time_down};
	uint64_t whole = 0, frac = 0, scale = 1;
	size_t i = 0;
	const char *unit;

	for (; text[i] >= '0' && text[i] <= '9'; i++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		whole = whole * 10 + (uint64_t)(text[i] - '0');
	}
	if (!i || text[i] != '.' || text[i + 1] < '0' || text[i + 1] > '9')
		return -EINVAL;
	/* Twelve digits of fraction reach below a byte of a TiB. */
	for (i++; text[i] >= '0' && text[i] <= '9'; i++) {
		if (scale >= 1000000000000ull)
			return -EINVAL;
		frac = frac * 10 + (uint64_t)(text[i] - '0');
		scale *= 10;
	}
	unit = text + i;
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		for (const struct unit *u = families[f]; u->name; u++) {
			uint64_t value;

			if (strcmp(unit, u->name) != 0)
				continue;
			/* value = (whole + frac / scale) * factor, whole only */
			if (whole && u->factor > UINT64_MAX / whole)
				return -EINVAL;
			if (frac && u->factor > UINT64_MAX / frac)
				return -EINVAL;
			if ((frac * u->factor) % scale)
				return -EINVAL;
			value = whole * u->factor;
			if (value > UINT64_MAX - frac * u->factor / scale)
				return -EINVAL;
			value += frac * u->factor / scale;
			for (const struct unit *d = u; d->name; d++) {
				if (value % d->factor)
					continue;
				snprintf(out, size, "%" PRIu64 "%s", value / d->factor, d->name);
				return 0;
			}
		}
	}
	return -EINVAL;
}

uint64_t
units_ms_to_seconds_up(uint64_t ms)
{
	return ms / 1000 + (ms % 1000 != 0);
}

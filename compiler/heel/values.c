/* SPDX-License-Identifier: MIT
 * Checking `heel`'s option and configuration values (see values.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "presets.h"
#include "units.h"
#include "values.h"

static int
one_of(const char *text, const char *const *words, const char *what, char *out, size_t outlen,
       char *why, size_t whylen)
{
	for (size_t i = 0; words[i]; i++) {
		if (strcmp(text, words[i]) == 0) {
			snprintf(out, outlen, "%s", text);
			return 0;
		}
	}
	snprintf(why, whylen, "`%s` is not %s", text, what);
	return -EINVAL;
}

int
values_isolation(const char *text, char *out, size_t outlen, char *why, size_t whylen)
{
	static const char *const words[] = { "strict", "default", "permissive", NULL };

	return one_of(text, words, "an isolation base (strict, default or permissive)", out, outlen,
		      why, whylen);
}

int
values_network(const char *text, char *out, size_t outlen, char *why, size_t whylen)
{
	static const char *const words[] = { "deny", "allow-all", "allow-list", NULL };

	if (strcmp(text, "allow") == 0) {
		snprintf(why, whylen, "`allow` is ambiguous here: write allow-all (every destination but "
			 "host-local ones) or allow-list (only the --allow-domain patterns)");
		return -EINVAL;
	}
	return one_of(text, words, "a network mode (deny, allow-all or allow-list)", out, outlen, why,
		      whylen);
}

static bool
all_digits(const char *s)
{
	return s[0] && strspn(s, "0123456789") == strlen(s);
}

int
values_limit(enum settings_limit lim, const char *text, char *out, size_t outlen, char *why,
	     size_t whylen)
{
	enum units_kind kind = lim == LIM_CPU ? UNITS_DURATION
			       : (lim == LIM_PROCESSES || lim == LIM_OPEN_FILES) ? UNITS_COUNT
										 : UNITS_SIZE;
	uint64_t v;
	size_t unit_off = 0;

	if (kind != UNITS_COUNT && all_digits(text))
		snprintf(out, outlen, "%s%s", text, kind == UNITS_DURATION ? "s" : "B");
	else
		snprintf(out, outlen, "%s", text);
	switch (units_parse(out, kind, &v, &unit_off)) {
	case UNITS_OK:
		break;
	case UNITS_NOT_A_NUMBER:
		snprintf(why, whylen, "`%s` is not a number", text);
		return -EINVAL;
	case UNITS_MISSING_UNIT:
	case UNITS_UNKNOWN_UNIT: {
		const char *const *u = units_names(kind);
		struct units_guess g;
		char whole[64];
		size_t n = 0;

		/* The compiler's own guesses: `1G` is 1GiB, `1.5GiB` 1536MiB. */
		if (units_whole(text, whole, sizeof(whole)) == 0) {
			snprintf(why, whylen, "`%s`: a limit is a whole number; write %s", text, whole);
			return -EINVAL;
		}
		if (units_guess(kind, out + unit_off, &g) == 0 && g.times == 1) {
			snprintf(why, whylen, "`%s`: write %.*s%s%s%s%s", text, (int)unit_off, out, g.unit,
				 g.decimal && g.decimal[0] ? " (binary; " : "",
				 g.decimal && g.decimal[0] ? g.decimal : "",
				 g.decimal && g.decimal[0] ? " is decimal)" : "");
			return -EINVAL;
		}
		n += (size_t)snprintf(why + n, whylen - n, "`%s`: the unit is one of", text);
		for (; *u && n < whylen; u++)
			n += (size_t)snprintf(why + n, whylen - n, " %s", *u);
		if (kind == UNITS_SIZE && n < whylen)
			snprintf(why + n, whylen - n, " (KiB, MiB, GiB are powers of two; KB, MB, GB of ten)");
		return -EINVAL;
	}
	case UNITS_UNEXPECTED_UNIT:
		snprintf(why, whylen, "`%s`: a count takes no unit", text);
		return -EINVAL;
	case UNITS_OVERFLOW:
		snprintf(why, whylen, "`%s` does not fit in 64 bits", text);
		return -EINVAL;
	}
	if (v == 0 && lim != LIM_CORE) {
		snprintf(why, whylen, "`%s`: only the core limit may be 0", text);
		return -EINVAL;
	}
	if (kind == UNITS_DURATION && v < 1000) {
		snprintf(why, whylen, "`%s`: the CPU limit is counted in whole seconds, at least 1s", text);
		return -EINVAL;
	}
	return 0;
}

int
values_nice(const char *text, char *out, size_t outlen, char *why, size_t whylen)
{
	unsigned n = 0;

	if (!all_digits(text) || strlen(text) > 2 || (n = (unsigned)atoi(text)) < 1 || n > 19) {
		snprintf(why, whylen, "`%s`: nice is 1..19 steps lower than heel's own priority "
			 "(a sandbox never runs at a higher one)", text);
		return -EINVAL;
	}
	snprintf(out, outlen, "%u", n);
	return 0;
}

int
values_io_priority(const char *text, char *out, size_t outlen, char *why, size_t whylen)
{
	static const char *const words[] = { "utility", "background", NULL };

	return one_of(text, words, "an I/O priority (utility or background)", out, outlen, why,
		      whylen);
}

int
values_bool(const char *text, bool *on, char *why, size_t whylen)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };

	for (size_t i = 0; yes[i]; i++) {
		if (strcmp(text, yes[i]) == 0) {
			*on = true;
			return 0;
		}
		if (strcmp(text, no[i]) == 0) {
			*on = false;
			return 0;
		}
	}
	snprintf(why, whylen, "`%s` is not true or false", text);
	return -EINVAL;
}

bool
values_env_name(const char *name)
{
	if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') ||
	      name[0] == '_'))
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
	       strlen(name);
}

int
values_preset(const char *name, char *why, size_t whylen)
{
	static const char *const bases[] = { "strict", "default", "permissive", NULL };

	for (size_t i = 0; bases[i]; i++)
		if (strcmp(name, bases[i]) == 0) {
			snprintf(why, whylen, "`%s` is an isolation base, not a preset: choose it with "
				 "--isolation %s", name, name);
			return -EINVAL;
		}
	if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(name)) {
		size_t o = (size_t)snprintf(why, whylen, "`%s` is not a preset name (stock presets:",
					    name);

		/* The stock presets: the embedded policies that are neither
		 * a base nor in a folder (protection sets, devices). */
		for (size_t i = 0, n = 0; i < presets_count && o < whylen; i++) {
			const char *p = presets_table[i].name;

			if (strchr(p, '/') || strcmp(p, "strict") == 0 || strcmp(p, "default") == 0 ||
			    strcmp(p, "permissive") == 0)
				continue;
			o += (size_t)snprintf(why + o, whylen - o, "%s %s", n++ ? "," : "", p);
		}
		if (o < whylen)
			snprintf(why + o, whylen - o, ")");
		return -EINVAL;
	}
	return 0;
}

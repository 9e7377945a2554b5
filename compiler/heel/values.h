/* SPDX-License-Identifier: MIT
 * The values `heel` options and configuration keys take, checked where
 * they are given (so a mistake is reported against the option or the
 * configuration line, not against generated policy text) and written in
 * the policy language's form. */
#ifndef HEEL_FRONT_VALUES_H
#define HEEL_FRONT_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

/* Each returns 0 and writes the policy-language form to out (outlen
 * bytes), or -EINVAL with a message in why (whylen bytes). */
int values_isolation(const char *text, char *out, size_t outlen, char *why, size_t whylen);
int values_network(const char *text, char *out, size_t outlen, char *why, size_t whylen);
/* A size, duration or count for `limit`. The original heel took bare
 * numbers as bytes and seconds: a size or duration without a unit gets
 * `B` or `s`. */
int values_limit(enum settings_limit lim, const char *text, char *out, size_t outlen, char *why,
		 size_t whylen);
int values_nice(const char *text, char *out, size_t outlen, char *why, size_t whylen);
int values_io_priority(const char *text, char *out, size_t outlen, char *why, size_t whylen);
/* true/false (also yes/no, on/off, 1/0). */
int values_bool(const char *text, bool *on, char *why, size_t whylen);
/* A preset's name for `include <NAME>`: a plain word of the characters
 * preset files are named with ([a-z0-9_-]), and not an isolation base
 * (chosen with --isolation, never included). Whether such a preset
 * exists the compiler says, at the include: the stock ones are in it,
 * a site's beside the installed policies. 0, or -EINVAL with why. */
int values_preset(const char *name, char *why, size_t whylen);
/* An environment variable's name: [A-Za-z_][A-Za-z0-9_]*. */
bool values_env_name(const char *name);

#endif

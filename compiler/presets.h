/* SPDX-License-Identifier: MIT
 * The policies of policies/ (bases, presets, protection sets, examples),
 * embedded into heelc at build time by embed_policies.sh. */
#ifndef HEEL_COMPILER_PRESETS_H
#define HEEL_COMPILER_PRESETS_H

#include <stddef.h>

struct preset {
	const char *name; /* path under policies/ without .heel: "strict", "python", "protect/credentials" */
	size_t len;
	const char *text; /* len bytes, NUL-terminated */
};

extern const struct preset presets_table[];
extern const size_t presets_count;

/* The embedded policy called `name`, or NULL. */
const struct preset *presets_find(const char *name);

#endif

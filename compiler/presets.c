/* SPDX-License-Identifier: MIT
 * Lookup in the embedded policy table (see presets.h). */
#include "presets.h"

#include <string.h>

const struct preset *
presets_find(const char *name)
{
	for (size_t i = 0; i < presets_count; i++)
		if (strcmp(presets_table[i].name, name) == 0)
			return &presets_table[i];
	return NULL;
}

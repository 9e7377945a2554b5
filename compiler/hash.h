/* SPDX-License-Identifier: MIT
 * The string hash of the compiler's interning tables (sema's maps, the
 * artifact and Landlock string tables): 64-bit FNV-1a. Only slot choice
 * depends on it, never an output byte. */
#ifndef HEEL_COMPILER_HASH_H
#define HEEL_COMPILER_HASH_H

#include <stdint.h>

static inline uint64_t
hash_fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

#endif

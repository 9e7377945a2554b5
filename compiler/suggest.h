/* SPDX-License-Identifier: MIT
 * "Did you mean": the nearest candidate to a misspelt word. */
#ifndef HEEL_COMPILER_SUGGEST_H
#define HEEL_COMPILER_SUGGEST_H

#include <stddef.h>

/* The candidate closest to `word` by edit distance (insert, delete,
 * substitute, transpose), or NULL when none is close enough to be a
 * plausible typo (distance at most 1 for words up to 4 characters, 2 for
 * longer ones), or, failing that, the only candidate that begins with a
 * word of three or more characters. `candidates` is NULL-terminated. */
const char *suggest_word(const char *word, const char *const *candidates);

#endif

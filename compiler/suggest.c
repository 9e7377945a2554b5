/* SPDX-License-Identifier: MIT
 * "Did you mean": optimal-string-alignment Damerau-Levenshtein distance
 * between a misspelt word and each candidate (see suggest.h). */
#include "suggest.h"

#include <string.h>

/* Longer words are never a typo of a keyword; skipping them keeps the
 * tables on the stack. */
#define SUGGEST_MAX 64

static size_t
min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edit distance with insert, delete, substitute and transpose of two
 * adjacent characters, each costing one. */
static size_t
distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *
suggest_word(const char *word, const char *const *candidates)
{
	size_t lw, limit, best_d = (size_t)-1;
	const char *best = NULL;

	if (!word || !candidates)
		return NULL;
	lw = strlen(word);
	if (lw == 0 || lw > SUGGEST_MAX)
		return NULL;
	limit = lw <= 4 ? 1 : 2;
	for (size_t k = 0; candidates[k]; k++) {
		size_t lc = strlen(candidates[k]), d;

		if (lc > SUGGEST_MAX)
			continue;
		/* The length difference is a lower bound of the distance. */
		if ((lc > lw ? lc - lw : lw - lc) > limit)
			continue;
		d = distance(word, lw, candidates[k], lc);
		if (d <= limit && d < best_d) {
			best_d = d;
			best = candidates[k];
		}
	}
	if (best)
		return best;
	/* A word cut short (`mem`, `proc`, `cred`) names the one candidate it
	 * begins, when only one does. */
	for (size_t k = 0; lw >= 3 && candidates[k]; k++) {
		if (strncmp(candidates[k], word, lw) != 0 || strlen(candidates[k]) == lw)
			continue;
		if (best)
			return NULL;
		best = candidates[k];
	}
	return best;
}

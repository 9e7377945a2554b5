/* SPDX-License-Identifier: MIT
 * Paths the user spells on the command line or in a TOML configuration,
 * resolved once, the original heel's way: relative to the caller's
 * directory, following the links the spelling crosses (heel-exec refuses
 * a grant with a link in it, so the policy must name the real place),
 * and remembering each link crossed, so that a link a sandbox could have
 * planted (one inside a writable place) is refused, not followed. */
#ifndef HEEL_FRONT_PATHRES_H
#define HEEL_FRONT_PATHRES_H

#include <stdbool.h>
#include <stddef.h>

struct pathres {
	char *path;   /* absolute, no `.`/`..`, no link in any existing component */
	char **links; /* where each link crossed lies (absolute, itself resolved) */
	size_t nlinks;
	bool exists;  /* the whole path exists now */
};

/* Directories already found to exist and not be links, so that resolving
 * many paths under one project looks at each directory once: a hash set
 * (open addressing), so that 200,000 paths cost what 2,000 do a hundred
 * times over, not ten thousand. Zeroed before first use; freed with
 * pathres_memo_free. */
struct pathres_memo {
	char **slots; /* cap entries, NULL where empty; cap a power of two */
	size_t n, cap;
};

void pathres_memo_free(struct pathres_memo *m);

/* Resolves `spelled` against `cwd`. Components that do not exist yet are
 * kept as written (lexically: `..` after a missing component removes
 * it). 0, or -errno with a message in err: -ELOOP for a link cycle,
 * -ENAMETOOLONG, -EINVAL for an empty path, -ENOMEM. */
int pathres_resolve(const char *cwd, const char *spelled, struct pathres *out, char *err,
		    size_t errlen);
/* The same, with `memo` (may be NULL) remembering directories seen. */
int pathres_resolve_memo(const char *cwd, const char *spelled, struct pathres_memo *memo,
			 struct pathres *out, char *err, size_t errlen);
void pathres_free(struct pathres *r);

/* Whether `path` is `dir` or lies beneath it (both absolute, clean). */
bool pathres_beneath(const char *path, const char *dir);

#endif

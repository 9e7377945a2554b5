/* SPDX-License-Identifier: MIT
 * Where a command that `heel run` (or libheel) starts in the caller's
 * directory may start, decided from the policy as compiled without the
 * directory's read grant: that grant never beats a deny, a protection
 * set or `isolation strict`, and never narrows a grant that already
 * covers the directory (heel(5), PRECEDENCE). */
#ifndef HEEL_FRONT_STARTDIR_H
#define HEEL_FRONT_STARTDIR_H

#include <stddef.h>
#include <stdint.h>

#include "pathexpand.h"

enum startdir_verdict {
	/* A grant decides the directory (perhaps a writable one, or the
	 * kept working directory): the sandbox reads it already, and a read
	 * grant of it would only narrow that grant. Nothing is added. */
	STARTDIR_READABLE,
	/* No rule decides it: `grant "${CWD}" MODE` is added, MODE as
	 * struct startdir says. */
	STARTDIR_GRANT,
	/* A deny decides it (the policy's own, the base's, a protection
	 * set's): the command may not start there. */
	STARTDIR_DENIED,
	/* `isolation strict` and no grant decides it: strict reads no user
	 * data, so the directory is not granted. */
	STARTDIR_STRICT,
	/* The root or a top-level system directory no grant decides: it is
	 * not granted as a whole (heel-exec refuses such a grant). */
	STARTDIR_SYSTEM,
};

/* How a message names what lifts a refusal: heel's options or libheel's
 * builder calls. */
enum startdir_words { STARTDIR_WORDS_OPTIONS, STARTDIR_WORDS_LIBHEEL };

struct startdir {
	enum startdir_verdict verdict;
	/* The rule that decides, when one does (READABLE, DENIED, and
	 * STRICT when a deny decides): as written, and where it came from.
	 * Strings point into the artifact the decision was made from. */
	const char *rule;
	const char *origin_file; /* NULL: built in */
	uint32_t origin_line;
	uint8_t set;	/* protection set (ART_SET_*) or ART_SET_NONE */
	uint8_t source; /* enum art_rule_source */
	uint8_t base;	/* the isolation base: 0 strict, 1 default, 2 permissive */
	/* GRANT: the mode of the grant to add. "rx" under `default`, which
	 * runs what it reads but cannot write (heel(5), ISOLATION BASES):
	 * a project's own scripts run where it starts; else "r". */
	const char *grant_mode;
};

/* Decides for `dir` (absolute, every link resolved, as getcwd(3) gives
 * it) under the policy of the artifact art[0..len), for this machine's
 * platform. ${NAME} in the policy's paths comes from `lookup`, as
 * heel-exec's launch environment will give it (CWD included). Denies are
 * followed through symbolic links as heel-exec follows them; a grant
 * counts only where its path is a real directory above `dir`, the only
 * place heel-exec applies it. 0, or -EINVAL when the artifact does not
 * validate. */
int startdir_decide(const uint8_t *art, size_t len, const char *dir, px_lookup_fn lookup, void *ctx,
		    struct startdir *out);

/* One line (no "heel: " prefix, no newline) for DENIED, STRICT and
 * SYSTEM: what decides `dir`, and what would let the command start
 * there. For STRICT and SYSTEM under STARTDIR_WORDS_OPTIONS it says that
 * the command starts in its working directory instead. */
void startdir_message(const struct startdir *sd, const char *dir, enum startdir_words words,
		      char *buf, size_t len);

#endif

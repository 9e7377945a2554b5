/* SPDX-License-Identifier: MIT
 * UTF-8 decoding and the classes of code points that make a string
 * display as something other than what it is: invisible format
 * characters, spaces other than the ASCII one, combining marks, C1
 * controls. A path holding one can look exactly like another path. */
#ifndef HEEL_COMPILER_UNICODE_H
#define HEEL_COMPILER_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s (n > 0 bytes available)
 * and its code point in *cp, or 0 when it is not valid: a stray
 * continuation byte, overlong, a surrogate, truncated, past U+10FFFF. */
size_t uc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

enum uc_kind {
	UC_PLAIN,   /* none of the below */
	UC_CONTROL, /* Cc: C0, DEL and C1 controls */
	UC_FORMAT,  /* Cf and the tag block: invisible, or reorder the text */
	UC_SPACE,   /* Zs Zl Zp other than U+0020 */
	UC_MARK,    /* Mn Me: combine with the character before */
};

/* The class of `cp`; ASCII other than controls is always UC_PLAIN. */
enum uc_kind uc_kind(uint32_t cp);

/* The Unicode name of `cp` when heelc knows it (the format and space
 * characters and the common marks), else NULL. */
const char *uc_name(uint32_t cp);

/* "an invisible format character", "a combining mark", ... */
const char *uc_kind_words(enum uc_kind kind);

#endif

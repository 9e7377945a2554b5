/* SPDX-License-Identifier: MIT
 * A host name's ASCII form for the hint of a non-ASCII host pattern:
 * Punycode (RFC 3492) of each label, `xn--` in front. Only for the labels
 * whose IDNA mapping is plain (lower-case letters of scripts with simple
 * case, or none): anything needing Unicode normalisation or a wider
 * mapping is not guessed at, and the hint then just asks for punycode. */
#ifndef HEEL_COMPILER_PUNYCODE_H
#define HEEL_COMPILER_PUNYCODE_H

#include <stddef.h>
#include <stdint.h>

/* RFC 3492 encoding of cps[0..n) into out (NUL-terminated). 0,
 * -ENAMETOOLONG when out is too small, -EOVERFLOW. */
int punycode_encode(const uint32_t *cps, size_t n, char *out, size_t outlen);

/* `host` (UTF-8, len bytes; labels separated by `.` or `:`, which are
 * kept) with each non-ASCII label lower-cased and written as `xn--`
 * Punycode, ASCII lower-cased. 0, -EINVAL when a label holds what is not
 * mapped here (see above) or bad UTF-8, -ENAMETOOLONG. */
int punycode_host(const char *host, size_t len, char *out, size_t outlen);

#endif

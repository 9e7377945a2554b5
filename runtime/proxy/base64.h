/* SPDX-License-Identifier: MIT
 * A strict base64 decoder (RFC 4648 section 4, the standard alphabet) for
 * the proxy's Basic credentials. Strict because two spellings of one
 * secret would be two things to get right: padding is required, '=' only
 * at the end, no whitespace, and the bits padding leaves over must be 0. */
#ifndef HEEL_PROXY_BASE64_H
#define HEEL_PROXY_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* The decoded size of `len` base64 bytes, at most. */
#define PROXY_BASE64_DECODED_MAX(len) ((len) / 4 * 3)

/* Decodes in[0..len) into out; *outlen = bytes written. The empty input
 * decodes to nothing. 0, -EINVAL (not canonical base64) or -ENOSPC (out
 * too small; nothing is promised about out then). */
int proxy_base64_decode(const char *in, size_t len, uint8_t *out, size_t outcap, size_t *outlen);

#endif

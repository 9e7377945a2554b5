/* SPDX-License-Identifier: MIT
 * Strict base64; see base64.h. */
#include <errno.h>

#include "base64.h"

/* 0..63, or -1 for a byte outside the alphabet ('=' included). */
static int
sextet(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
proxy_base64_decode(const char *in, size_t len, uint8_t *out, size_t outcap, size_t *outlen)
{
	size_t pad = 0, o = 0;

	*outlen = 0;
	if (len % 4 != 0)
		return -EINVAL;
	if (len > 0 && in[len - 1] == '=')
		pad = len > 1 && in[len - 2] == '=' ? 2 : 1;
	if (len / 4 * 3 - pad > outcap)
		return -ENOSPC;
	for (size_t i = 0; i < len; i += 4) {
		size_t last = i + 4 == len ? pad : 0;
		uint32_t v = 0;

		for (size_t k = 0; k < 4; k++) {
			int s = k < 4 - last ? sextet((unsigned char)in[i + k]) : 0;

			if (s < 0)
				return -EINVAL;
			v = v << 6 | (uint32_t)s;
		}
		/* "QQ==" and "QR==" would both be "A": only the one with the
		 * spare bits clear is the encoding of it. */
		if ((last == 2 && (v & 0xffff) != 0) || (last == 1 && (v & 0xff) != 0))
			return -EINVAL;
		out[o++] = (uint8_t)(v >> 16);
		if (last < 2)
			out[o++] = (uint8_t)(v >> 8);
		if (last < 1)
			out[o++] = (uint8_t)v;
	}
	*outlen = o;
	return 0;
}

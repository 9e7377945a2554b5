/* SPDX-License-Identifier: MIT
 * Punycode (RFC 3492, section 6.3's encoder) and the ASCII form of a
 * host for heelc's hint (punycode.h). Written from the RFC's description. */
#include "punycode.h"

#include <errno.h>
#include <string.h>

enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72, INITIAL_N = 128 };

static uint32_t
adapt(uint32_t delta, uint32_t numpoints, int first)
{
	uint32_t k = 0;

	delta = first ? delta / DAMP : delta / 2;
	delta += delta / numpoints;
	while (delta > ((BASE - TMIN) * TMAX) / 2) {
		delta /= BASE - TMIN;
		k += BASE;
	}
	return k + (BASE - TMIN + 1) * delta / (delta + SKEW);
}

static char
digit(uint32_t d)
{
	return (char)(d < 26 ? 'a' + d : '0' + d - 26);
}

int
punycode_encode(const uint32_t *cps, size_t n, char *out, size_t outlen)
{
	uint32_t cp = INITIAL_N, delta = 0, bias = INITIAL_BIAS, h, b;
	size_t o = 0;

#define PUT(c)                                                                                     \
	do {                                                                                       \
		if (o + 1 >= outlen)                                                               \
			return -ENAMETOOLONG;                                                      \
		out[o++] = (c);                                                                    \
	} while (0)
	if (n > UINT32_MAX / 2)
		return -EOVERFLOW;
	for (size_t i = 0; i < n; i++)
		if (cps[i] < 0x80)
			PUT((char)cps[i]);
	h = b = (uint32_t)o;
	if (b > 0)
		PUT('-');
	while (h < n) {
		uint32_t m = UINT32_MAX;

		for (size_t i = 0; i < n; i++)
			if (cps[i] >= cp && cps[i] < m)
				m = cps[i];
		if ((uint64_t)delta + (uint64_t)(m - cp) * (h + 1) > UINT32_MAX)
			return -EOVERFLOW;
		delta += (m - cp) * (h + 1);
		cp = m;
		for (size_t i = 0; i < n; i++) {
			if (cps[i] < cp && ++delta == 0)
				return -EOVERFLOW;
			if (cps[i] != cp)
				continue;
			{
				uint32_t q = delta;

				for (uint32_t k = BASE;; k += BASE) {
					uint32_t t = k <= bias		? TMIN
						     : k >= bias + TMAX ? TMAX
									: k - bias;

					if (q < t)
						break;
					PUT(digit(t + (q - t) % (BASE - t)));
					q = (q - t) / (BASE - t);
				}
				PUT(digit(q));
			}
			bias = adapt(delta, h + 1, h == b);
			delta = 0;
			h++;
		}
		delta++;
		cp++;
	}
	out[o] = '\0';
	return 0;
#undef PUT
}

/* The lower-case form of cp where IDNA's mapping of it is only that, or
 * 0 where it is more (normalisation, width, compatibility) or unknown
 * here. */
static uint32_t
plain_lower(uint32_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 0x20;
	if (c < 0x80)
		return c;
	/* Latin-1: À..Þ (not ×) map down; ß..ÿ (not ÷) are lower. */
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 0x20;
	if (c >= 0xDF && c <= 0xFF && c != 0xF7)
		return c;
	/* Latin Extended-A: pairs, upper even (0100..0137, 014A..0177) or
	 * odd (0139..0148, 0179..017E); ĸ lower; İ, ŉ, Ÿ, ſ map wider. */
	if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177))
		return (c != 0x130 && c != 0x131) ? (c | 1) : 0;
	if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E))
		return (c & 1) ? c + 1 : c;
	if (c == 0x138)
		return c;
	/* Greek: Α..Ω (no 03A2) down 0x20; ά..ώ lower. */
	if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2)
		return c + 0x20;
	if (c >= 0x3AC && c <= 0x3CE)
		return c;
	/* Ά Έ Ή Ί Ό Ύ Ώ, with tonos. */
	if (c == 0x386)
		return 0x3AC;
	if (c >= 0x388 && c <= 0x38A)
		return c + 0x25;
	if (c == 0x38C)
		return 0x3CC;
	if (c == 0x38E || c == 0x38F)
		return c + 0x3F;
	/* Cyrillic: Ѐ..Џ down 0x50, А..Я down 0x20, а..џ lower. */
	if (c >= 0x400 && c <= 0x40F)
		return c + 0x50;
	if (c >= 0x410 && c <= 0x42F)
		return c + 0x20;
	if (c >= 0x430 && c <= 0x45F)
		return c;
	/* Caseless letters that normalisation leaves alone: Hebrew, Arabic,
	 * Thai, hiragana, katakana, CJK ideographs, Hangul syllables. */
	if ((c >= 0x5D0 && c <= 0x5EA) || (c >= 0x621 && c <= 0x63A) ||
	    (c >= 0x641 && c <= 0x64A) || (c >= 0xE01 && c <= 0xE30) ||
	    (c >= 0x3041 && c <= 0x3096) || (c >= 0x30A1 && c <= 0x30FA) ||
	    (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7A3))
		return c;
	return 0;
}

/* One UTF-8 sequence at s[0..len): its code point and length, or 0. */
static size_t
utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

int
punycode_host(const char *host, size_t len, char *out, size_t outlen)
{
	const unsigned char *s = (const unsigned char *)host;
	uint32_t cps[64];
	size_t i = 0, o = 0;

	if (!outlen)
		return -ENAMETOOLONG;
	while (i <= len) {
		size_t n = 0, j = i;
		int wide = 0, rc;

		/* One label: up to the next `.` or `:` (kept as written). */
		while (j < len && s[j] != '.' && s[j] != ':') {
			uint32_t c;
			size_t k = utf8_next(s + j, len - j, &c);

			if (!k)
				return -EINVAL;
			c = plain_lower(c);
			if (!c)
				return -EINVAL;
			if (n == sizeof(cps) / sizeof(cps[0]))
				return -EINVAL; /* longer than a DNS label */
			cps[n++] = c;
			wide |= c >= 0x80;
			j += k;
		}
		if (wide) {
			if (o + 4 >= outlen)
				return -ENAMETOOLONG;
			memcpy(out + o, "xn--", 4);
			o += 4;
			rc = punycode_encode(cps, n, out + o, outlen - o);
			if (rc)
				return rc;
			o += strlen(out + o);
		} else {
			for (size_t k = 0; k < n; k++) {
				if (o + 1 >= outlen)
					return -ENAMETOOLONG;
				out[o++] = (char)cps[k];
			}
		}
		if (j < len) {
			if (o + 1 >= outlen)
				return -ENAMETOOLONG;
			out[o++] = (char)s[j];
		}
		i = j + 1;
	}
	out[o] = '\0';
	return 0;
}

/* SPDX-License-Identifier: MIT
 * Punycode (RFC 3492) and the ASCII form heelc's hint shows for a
 * non-ASCII host pattern. Expected values from RFC 3492 section 7.1 and
 * Python's own punycode/idna codecs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "punycode.h"

Test(punycode, rfc3492_vectors)
{
	/* (B) Chinese (simplified) and (A) Arabic (Egyptian). */
	static const uint32_t zh[] = {0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48,
				      0x4E0D, 0x8BF4, 0x4E2D, 0x6587};
	static const uint32_t ar[] = {0x0644, 0x064A, 0x0647, 0x0645, 0x0627, 0x0628,
				      0x062A, 0x0643, 0x0644, 0x0645, 0x0648, 0x0634,
				      0x0639, 0x0631, 0x0628, 0x064A, 0x061F};
	char out[64];

	cr_assert_eq(punycode_encode(zh, sizeof(zh) / sizeof(zh[0]), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "ihqwcrb4cv8a8dqg056pqjye");
	cr_assert_eq(punycode_encode(ar, sizeof(ar) / sizeof(ar[0]), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "egbpdaj6bu4bxfgehfvwxn");
	cr_expect_eq(punycode_encode(zh, sizeof(zh) / sizeof(zh[0]), out, 8), -ENAMETOOLONG);
}

Test(punycode, hosts)
{
	char out[128];

	cr_assert_eq(punycode_host("bücher.example", strlen("bücher.example"), out, sizeof(out)),
		     0);
	cr_expect_str_eq(out, "xn--bcher-kva.example");
	/* Upper case is lowered first, as IDNA maps it; wildcard and port kept. */
	cr_assert_eq(
	    punycode_host("*.MÜNCHEN.De:443", strlen("*.MÜNCHEN.De:443"), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "*.xn--mnchen-3ya.de:443");
	cr_assert_eq(punycode_host("ΕΛΛΗΝΙΚΆ.gr", strlen("ΕΛΛΗΝΙΚΆ.gr"), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "xn--hxargifdar.gr");
	cr_assert_eq(punycode_host("пример.рф", strlen("пример.рф"), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "xn--e1afmkfd.xn--p1ai");
	/* What needs normalisation or a wider mapping is not guessed: a
	 * combining diaeresis, a full-width letter, an ideographic full stop. */
	cr_expect_eq(punycode_host("bu\xcc\x88"
				   "cher.de",
				   9, out, sizeof(out)),
		     -EINVAL);
	cr_expect_eq(punycode_host("\xef\xbd\x81.de", 6, out, sizeof(out)), -EINVAL);
	cr_expect_eq(punycode_host("a\xe3\x80\x82"
				   "de",
				   6, out, sizeof(out)),
		     -EINVAL);
	cr_expect_eq(punycode_host("\xff.de", 4, out, sizeof(out)), -EINVAL);
	cr_expect_eq(punycode_host("bücher.example", strlen("bücher.example"), out, 8),
		     -ENAMETOOLONG);
}

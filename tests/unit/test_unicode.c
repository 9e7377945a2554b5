/* SPDX-License-Identifier: MIT
 * unicode: the classes of code points heelc refuses in paths, from the
 * range table, and the UTF-8 decoder's refusals. */
#include <criterion/criterion.h>

#include "unicode.h"

static const struct {
	uint32_t cp;
	enum uc_kind kind;
} cases[] = {
	{'a', UC_PLAIN},     {' ', UC_PLAIN},      {'\t', UC_CONTROL},  {0x7F, UC_CONTROL},
	{0x85, UC_CONTROL},  {0xA0, UC_SPACE},     {0xAD, UC_FORMAT},   {0xE9, UC_PLAIN},
	{0x0300, UC_MARK},   {0x0301, UC_MARK},    {0x036F, UC_MARK},   {0x0370, UC_PLAIN},
	{0x061C, UC_FORMAT}, {0x1680, UC_SPACE},   {0x2000, UC_SPACE},  {0x200A, UC_SPACE},
	{0x200B, UC_FORMAT}, {0x200D, UC_FORMAT},  {0x200F, UC_FORMAT}, {0x2010, UC_PLAIN},
	{0x2028, UC_SPACE},  {0x2029, UC_SPACE},   {0x202A, UC_FORMAT}, {0x202E, UC_FORMAT},
	{0x202F, UC_SPACE},  {0x205F, UC_SPACE},   {0x2060, UC_FORMAT}, {0x2066, UC_FORMAT},
	{0x2069, UC_FORMAT}, {0x20DD, UC_MARK},    {0x3000, UC_SPACE},  {0xFE0F, UC_MARK},
	{0xFEFF, UC_FORMAT}, {0x4E2D, UC_PLAIN},   {0x1F600, UC_PLAIN}, {0xE0000, UC_FORMAT},
	{0xE0001, UC_FORMAT}, {0xE0041, UC_FORMAT}, {0xE007F, UC_FORMAT}, {0xE0100, UC_MARK},
	{0x10FFFF, UC_PLAIN},
};

Test(unicode, kinds_from_the_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(uc_kind(cases[i].cp), cases[i].kind, "U+%04X: kind %d, expected %d",
			     cases[i].cp, uc_kind(cases[i].cp), cases[i].kind);
}

Test(unicode, names_of_the_invisible_ones)
{
	cr_expect_str_eq(uc_name(0x200B), "ZERO WIDTH SPACE");
	cr_expect_str_eq(uc_name(0xFEFF), "ZERO WIDTH NO-BREAK SPACE");
	cr_expect_str_eq(uc_name(0x00A0), "NO-BREAK SPACE");
	cr_expect_str_eq(uc_name(0x0301), "COMBINING ACUTE ACCENT");
	cr_expect_null(uc_name('a'));
}

Test(unicode, utf8_decoder_refuses_malformed_sequences)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
	} ok[] = {{"a", 1, 'a'}, {"\xc3\xa9", 2, 0xE9}, {"\xe2\x80\x8b", 3, 0x200B},
		  {"\xf3\xa0\x80\x81", 4, 0xE0001}};
	static const char *const bad[] = {"\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
					  "\xf4\x90\x80\x80", "\xe2\x80", "\xff"};
	uint32_t cp;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(uc_utf8_decode((const unsigned char *)ok[i].s, strlen(ok[i].s), &cp),
			     ok[i].len);
		cr_expect_eq(cp, ok[i].cp);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(uc_utf8_decode((const unsigned char *)bad[i], strlen(bad[i]), &cp), 0,
			     "bad[%zu] accepted", i);
}

/* SPDX-License-Identifier: MIT
 * The in-memory ACL of heel-exec.exe (runtime/win_acl.c): the SDDL subset
 * round-trips, converge leaves exactly the wanted ACEs for the SID in
 * canonical order and nothing else changed, revert gives back what was
 * there, and no wanted ACE with an empty mask gets through. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "win_acl.h"
#include "win_manifest.h"

#define SID "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-737981194"
#define OTHER "S-1-15-2-1-2-3-4-5-6-7"
#define USER "S-1-5-21-1-2-3-1001"

static void
parse_ok(const char *sddl, struct win_acl *acl)
{
	char err[256] = "";

	cr_assert_eq(win_acl_parse(sddl, acl, err, sizeof(err)), 0, "%s: %s", sddl, err);
}

static void
assert_sddl(const struct win_acl *acl, const char *want)
{
	char out[4096];

	cr_assert_eq(win_acl_format(acl, out, sizeof(out)), 0);
	cr_assert_str_eq(out, want);
}

Test(win_acl, canonical_sddl_round_trips)
{
	static const char *const cases[] = {
		"D:",
		"D:P",
		"D:PAI(D;OICI;0x1017f;;;" SID ")(A;OICI;0x1301df;;;" SID ")(A;OICIID;0x1f01ff;;;S-1-5-18)",
		"D:AI(A;;0x120089;;;" USER ")(A;OICIIOID;0x10000000;;;S-1-3-0)",
		"D:(A;NP;0x1;;;S-1-1-0)",
		"S:(ML;OICI;NW;;;S-1-16-4096)",
		"S:(ML;;NWNRNX;;;S-1-16-8192)",
		"S:",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct win_acl acl;

		parse_ok(cases[i], &acl);
		assert_sddl(&acl, cases[i]);
		win_acl_free(&acl);
	}
}

Test(win_acl, aliases_and_rights_letters_become_numbers)
{
	struct win_acl acl;

	parse_ok("D:PAR(A;CIOI;FA;;;SY)(A;OICI;FR;;;BU)(A;;FX;;;AC)(D;;FW;;;WD)", &acl);
	cr_assert(acl.is_protected);
	assert_sddl(&acl, "D:P(A;OICI;0x1f01ff;;;S-1-5-18)(A;OICI;0x120089;;;S-1-5-32-545)"
			  "(A;;0x1200a0;;;S-1-15-2-1)(D;;0x120116;;;S-1-1-0)");
	win_acl_free(&acl);
	parse_ok("S:(ML;OICI;NW;;;LW)", &acl);
	assert_sddl(&acl, "S:(ML;OICI;NW;;;S-1-16-4096)");
	win_acl_free(&acl);
	/* Empty: no label at all. */
	parse_ok("", &acl);
	cr_assert_eq(acl.n, 0);
	win_acl_free(&acl);
}

Test(win_acl, refuses_what_it_does_not_read)
{
	static const char *const bad[] = {
		"X:",
		"D:(A;OICI;0x1;;;S-1-5-18",	      /* unclosed */
		"D:(ML;OICI;NW;;;LW)",		      /* label in a DACL */
		"S:(A;;0x1;;;S-1-5-18)",	      /* allow in a SACL */
		"D:(OA;;0x1;guid;;S-1-5-18)",	      /* object ACE */
		"D:(A;;0x1;x;;S-1-5-18)",	      /* a GUID */
		"D:(A;XX;0x1;;;S-1-5-18)",	      /* unknown flag */
		"D:(A;OIOI;0x1;;;S-1-5-18)",	      /* flag twice */
		"D:(A;;0x123456789;;;S-1-5-18)",      /* mask too wide */
		"D:(A;;0xz;;;S-1-5-18)",
		"D:(A;;GQ;;;S-1-5-18)",
		"D:(A;;0x1;;;S-1-)",
		"D:(A;;0x1;;;S-2-5)",
		"D:(A;;0x1;;;S-1-5-4294967296)", /* sub-authority over 32 bits */
		"D:(A;;0x1;;;S-1-05)",		   /* leading zero */
		"D:(A;;0x1;;;ZZ)",
		"D:(A;;0x1;;;S-1-5-18)junk",
		"S:(ML;;NQ;;;LW)",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct win_acl acl;
		char err[256] = "";

		cr_assert_eq(win_acl_parse(bad[i], &acl, err, sizeof(err)), -EINVAL, "%s", bad[i]);
		cr_assert_neq(err[0], '\0');
		win_acl_free(&acl);
	}
}

Test(win_acl, sid_validity)
{
	cr_assert(win_sid_valid(SID));
	cr_assert(win_sid_valid("S-1-1-0"));
	cr_assert(win_sid_valid("S-1-5-21-4294967295-1-2-3"));
	cr_assert_not(win_sid_valid("S-1-5"));
	cr_assert_not(win_sid_valid("S-1-5-21-4294967296"));
	cr_assert_not(win_sid_valid("S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16"));
	cr_assert_not(win_sid_valid("S-1-5-18 "));
	cr_assert_not(win_sid_valid("s-1-5-18"));
}

static void
want(struct win_ace *a, uint8_t type, uint8_t flags, uint32_t mask)
{
	cr_assert_eq(win_ace_make(a, type, flags, mask, SID), 0);
}

/* A realistic home directory: inherited system/admin/user ACEs, an
 * explicit ACE for someone else, and stale ACEs of our SID from a run
 * that died (explicit ones, and an inherited copy from the parent). */
#define HOME_DACL                                                                                   \
	"D:AI(A;OICI;0x1200a9;;;" OTHER ")(A;;0x1200a9;;;" SID ")(D;;0x10156;;;" SID ")"          \
	"(A;OICIID;0x1f01ff;;;S-1-5-18)(A;OICIID;0x1f01ff;;;S-1-5-32-544)"                          \
	"(A;OICIID;0x1f01ff;;;" USER ")(A;OICIID;0x120089;;;" SID ")"

Test(win_acl, converge_is_exact_and_canonical)
{
	struct win_acl cur, out;
	struct win_ace w[2];
	char err[256];

	parse_ok(HOME_DACL, &cur);
	want(&w[0], WIN_ACL_ALLOW, WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER, 0x1301df);
	want(&w[1], WIN_ACL_DENY, 0, WIN_FILE_DELETE_CHILD);
	cr_assert_eq(win_acl_converge(&cur, SID, w, 2, &out, err, sizeof(err)), 0, "%s", err);
	/* Our stale explicit ACEs are gone, the inherited copy stays (only
	 * the parent's revert removes it), the other SID's ACE stays, the
	 * deny comes first. */
	assert_sddl(&out, "D:AI(D;;0x40;;;" SID ")(A;OICI;0x1200a9;;;" OTHER ")(A;OICI;0x1301df;;;" SID
			  ")(A;OICIID;0x1f01ff;;;S-1-5-18)(A;OICIID;0x1f01ff;;;S-1-5-32-544)"
			  "(A;OICIID;0x1f01ff;;;" USER ")(A;OICIID;0x120089;;;" SID ")");
	cr_assert(win_acl_canonical(&out));
	win_acl_free(&out);
	win_acl_free(&cur);
}

Test(win_acl, converge_is_idempotent)
{
	struct win_acl cur, once, twice;
	struct win_ace w[3];
	char err[256];

	parse_ok(HOME_DACL, &cur);
	want(&w[0], WIN_ACL_ALLOW, 3, 0x1200a9);
	want(&w[1], WIN_ACL_DENY, 3, 0x1017f);
	want(&w[2], WIN_ACL_ALLOW, 0, WIN_FILE_DELETE_CHILD);
	cr_assert_eq(win_acl_converge(&cur, SID, w, 3, &once, err, sizeof(err)), 0);
	cr_assert_eq(win_acl_converge(&once, SID, w, 3, &twice, err, sizeof(err)), 0);
	cr_assert(win_acl_equal(&once, &twice));
	win_acl_free(&cur);
	win_acl_free(&once);
	win_acl_free(&twice);
}

Test(win_acl, revert_restores_and_keeps_protection)
{
	static const char *const before[] = {
		"D:P(A;OICI;0x1f01ff;;;" USER ")(A;OICI;0x1f01ff;;;S-1-5-18)",
		"D:AI(D;;0x1;;;" OTHER ")(A;;0x2;;;" USER ")(A;OICIID;0x1f01ff;;;S-1-5-18)",
		"D:PAI",
		"D:",
	};

	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		struct win_acl cur, applied, reverted;
		struct win_ace w[2];
		char err[256];

		parse_ok(before[i], &cur);
		want(&w[0], WIN_ACL_ALLOW, 3, 0x1301ff);
		want(&w[1], WIN_ACL_DENY, 0, 0x10156);
		cr_assert_eq(win_acl_converge(&cur, SID, w, 2, &applied, err, sizeof(err)), 0);
		cr_assert_eq(applied.is_protected, cur.is_protected, "%s", before[i]);
		cr_assert_eq(applied.n, cur.n + 2);
		cr_assert(win_acl_canonical(&applied));
		cr_assert_eq(win_acl_revert(&applied, SID, &reverted, err, sizeof(err)), 0);
		cr_assert(win_acl_equal(&reverted, &cur), "%s", before[i]);
		assert_sddl(&reverted, before[i]);
		win_acl_free(&cur);
		win_acl_free(&applied);
		win_acl_free(&reverted);
	}
}

Test(win_acl, revert_touches_no_other_sid_and_no_inherited_ace)
{
	struct win_acl cur, out;
	char err[256];

	parse_ok("D:(D;;0x1;;;" OTHER ")(A;;0x1;;;" OTHER ")(A;ID;0x1;;;" SID ")", &cur);
	cr_assert_eq(win_acl_revert(&cur, SID, &out, err, sizeof(err)), 0);
	cr_assert(win_acl_equal(&cur, &out));
	win_acl_free(&cur);
	win_acl_free(&out);
}

Test(win_acl, refuses_mask_zero_and_foreign_wanted_aces)
{
	struct win_acl cur, out;
	struct win_ace w;
	char err[256] = "";

	parse_ok("D:", &cur);
	want(&w, WIN_ACL_ALLOW, 3, 0);
	cr_assert_eq(win_acl_converge(&cur, SID, &w, 1, &out, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "empty mask"), "%s", err);
	win_acl_free(&out);
	cr_assert_eq(win_ace_make(&w, WIN_ACL_ALLOW, 3, 1, OTHER), 0);
	cr_assert_eq(win_acl_converge(&cur, SID, &w, 1, &out, err, sizeof(err)), -EINVAL);
	win_acl_free(&out);
	want(&w, WIN_ACL_ALLOW, WIN_ACL_INHERITED, 1);
	cr_assert_eq(win_acl_converge(&cur, SID, &w, 1, &out, err, sizeof(err)), -EINVAL);
	win_acl_free(&out);
	want(&w, WIN_ACL_LABEL, 0, 1);
	cr_assert_eq(win_acl_converge(&cur, SID, &w, 1, &out, err, sizeof(err)), -EINVAL);
	win_acl_free(&out);
	win_acl_free(&cur);
}

Test(win_acl, canonical_order_check)
{
	struct win_acl acl;

	parse_ok("D:(A;;0x1;;;S-1-5-18)(D;;0x1;;;S-1-5-18)", &acl);
	cr_assert_not(win_acl_canonical(&acl));
	win_acl_free(&acl);
	parse_ok("D:(A;ID;0x1;;;S-1-5-18)(A;;0x1;;;S-1-5-18)", &acl);
	cr_assert_not(win_acl_canonical(&acl));
	win_acl_free(&acl);
	parse_ok("D:(D;;0x1;;;S-1-5-18)(A;;0x1;;;S-1-5-18)(D;ID;0x1;;;S-1-5-18)(A;ID;0x1;;;S-1-5-18)",
		 &acl);
	cr_assert(win_acl_canonical(&acl));
	win_acl_free(&acl);
}

Test(win_acl, format_reports_a_short_buffer)
{
	struct win_acl acl;
	char small[16];

	parse_ok("D:(A;OICI;0x1301df;;;" SID ")", &acl);
	cr_assert_eq(win_acl_format(&acl, small, sizeof(small)), -ENOSPC);
	cr_assert_eq(strlen(small), sizeof(small) - 1);
	win_acl_free(&acl);
}

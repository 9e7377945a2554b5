/* SPDX-License-Identifier: MIT
 * An NTFS access control list as heel-exec.exe edits it: a list of ACEs
 * (type, flags, mask, SID string), the subset of SDDL heel needs to write
 * one down (a DACL of allow/deny ACEs, a SACL holding one mandatory
 * label), and the one edit heel makes: converge a path's DACL to exactly
 * the wanted ACEs for the container's SID. Portable C17, libc only: the
 * launcher converts the binary ACL to this form and back, and the rules
 * are unit-tested on Linux. */
#ifndef HEEL_RUNTIME_WIN_ACL_H
#define HEEL_RUNTIME_WIN_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ACE types (the ACE header's AceType). */
#define WIN_ACL_ALLOW 0x00u /* ACCESS_ALLOWED_ACE_TYPE */
#define WIN_ACL_DENY 0x01u  /* ACCESS_DENIED_ACE_TYPE */
#define WIN_ACL_LABEL 0x11u /* SYSTEM_MANDATORY_LABEL_ACE_TYPE */

/* AceFlags beyond the inheritance ones of win_manifest.h (OI CI NP IO). */
#define WIN_ACL_INHERITED 0x10u /* ID: inherited from a parent */
#define WIN_ACL_FLAGS_KNOWN 0x1fu

/* Mandatory label policy bits (the label ACE's mask). */
#define WIN_LABEL_NO_WRITE_UP 0x1u
#define WIN_LABEL_NO_READ_UP 0x2u
#define WIN_LABEL_NO_EXECUTE_UP 0x4u

/* Low mandatory level: where a lowbox token runs. */
#define WIN_SID_LOW_LABEL "S-1-16-4096"

/* "S-1-" + 15 sub-authorities of 10 digits each, with dashes, fits. */
#define WIN_SID_MAX 192

struct win_ace {
	uint8_t type;  /* WIN_ACL_ALLOW, WIN_ACL_DENY or WIN_ACL_LABEL */
	uint8_t flags; /* WIN_INHERIT_* | WIN_ACL_INHERITED */
	uint32_t mask;
	char sid[WIN_SID_MAX]; /* S-1-... */
};

/* A DACL ('D') or a SACL holding labels ('S'). The control flags that
 * travel with it: protected (P: does not inherit from the parent) and
 * auto-inherited (AI). */
struct win_acl {
	char part; /* 'D' or 'S' */
	bool is_protected;
	bool auto_inherited;
	struct win_ace *aces; /* caller frees with win_acl_free */
	size_t n;
	size_t cap;
};

void win_acl_init(struct win_acl *acl, char part);
void win_acl_free(struct win_acl *acl);

/* Appends a copy of ace. 0, -EINVAL for a SID that does not fit or is
 * malformed, -ENOMEM. */
int win_acl_add(struct win_acl *acl, const struct win_ace *ace);

/* Builds an ACE; 0 or -EINVAL (SID malformed or too long). */
int win_ace_make(struct win_ace *ace, uint8_t type, uint8_t flags, uint32_t mask,
		 const char *sid);

/* Whether s is a SID string heel accepts: "S-1-" then 1..15 decimal
 * sub-authorities, each below 2^32, the authority below 2^48. */
bool win_sid_valid(const char *s);

/* Parses the SDDL subset into *acl (initialised here; free it even on
 * failure): "D:" or "S:", the control flags P, AI, AR (AR is accepted and
 * dropped: it is a request, not a state), then ACEs "(T;F;M;;;SID)" with
 * T = A, D or ML; F = OI CI NP IO ID in any order; M = 0x hex or one of
 * FA FR FW FX (files) or NW NR NX (labels, combinable); the two GUID
 * fields empty; SID = S-1-... or one of the aliases WD SY BA BU AU CO OW
 * AC LW ME HI SI. A label in a DACL or an allow/deny in a SACL is
 * refused. An empty string is an absent ACL ("-" in the journal): it
 * parses as an empty 'S' list. 0 or -EINVAL with a message. */
int win_acl_parse(const char *sddl, struct win_acl *acl, char *err, size_t errlen);

/* Writes acl in the canonical form of that subset: numeric SIDs, masks in
 * 0x hex (labels: NW NR NX letters), flags in the order OI CI NP IO ID.
 * 0, or -ENOSPC when out is too small (out is then truncated). */
int win_acl_format(const struct win_acl *acl, char *out, size_t outlen);

/* Converges cur to exactly `want` for `sid`: every ACE of cur except the
 * explicit (not inherited) ones whose SID is `sid`, plus the wanted ones,
 * in canonical order: explicit denies, explicit allows, then inherited
 * ACEs, each group in its existing order with the wanted ACEs at its end.
 * The protected and auto-inherited flags are kept. A wanted ACE must be
 * an explicit allow or deny for `sid` with a non-zero mask and known
 * flags (SetNamedSecurityInfoW silently drops a mask-0 allow, so a zero
 * mask would be a grant that is not there). *out is initialised here.
 * 0, -EINVAL (a wanted ACE breaks those rules, with a message), -ENOMEM. */
int win_acl_converge(const struct win_acl *cur, const char *sid, const struct win_ace *want,
		     size_t nwant, struct win_acl *out, char *err, size_t errlen);

/* The revert: converge with nothing wanted (drops sid's explicit ACEs). */
int win_acl_revert(const struct win_acl *cur, const char *sid, struct win_acl *out, char *err,
		   size_t errlen);

/* Whether two lists hold the same flags and ACEs in the same order. */
bool win_acl_equal(const struct win_acl *a, const struct win_acl *b);

/* Whether acl is in canonical order (explicit denies, explicit allows,
 * inherited), which is what Windows' access check assumes. */
bool win_acl_canonical(const struct win_acl *acl);

#endif

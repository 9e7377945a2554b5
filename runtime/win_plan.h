/* SPDX-License-Identifier: MIT
 * From the Windows manifest to the list of edits heel-exec.exe makes:
 * each entry's path expanded (`${NAME}` from the environment, `${WORKDIR}`)
 * and normalised, entries on one path merged into one set of wanted ACEs
 * for the container's SID, and each deny kept only where some grant
 * reaches it. Portable C17, libc only; unit-tested on Linux. */
#ifndef HEEL_RUNTIME_WIN_PLAN_H
#define HEEL_RUNTIME_WIN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "win_acl.h"
#include "win_manifest.h"

/* Longest path heel handles: MAX_PATH-free paths go to 32767 UTF-16
 * units; in UTF-8 a unit is at most 3 bytes. */
#define WIN_PATH_MAX 4096

/* The value of an environment variable (Windows: names compare without
 * case), or NULL when it is not set. */
typedef const char *(*win_lookup_fn)(void *ctx, const char *name);

/* Normalises an absolute drive-letter path: '/' becomes '\', the drive
 * letter upper case, repeated separators and "." components dropped, no
 * trailing '\' (except the root "C:\"). Refused, -EINVAL with a message:
 * relative paths ("a\b", "\a", "C:a"), UNC ("\\server\share"), device and
 * verbatim forms ("\\?\", "\\.\"), ".." components (the launcher does not
 * resolve them lexically: a link below would make that wrong), wildcards
 * and the characters NTFS names cannot hold (< > " | ? * and controls), a
 * ':' past the drive (an alternate data stream), and components ending in
 * '.' or ' ' (Win32 strips those, so two spellings would name one file). */
int win_path_normalize(const char *in, char *out, size_t outlen, char *err, size_t errlen);

/* Expands `${WORKDIR}` to workdir and `${NAME}` to lookup(NAME), then
 * normalises. An unset variable is -ENOENT with a message naming it. */
int win_path_expand(const char *tmpl, win_lookup_fn lookup, void *ctx, const char *workdir,
		    char *out, size_t outlen, char *err, size_t errlen);

/* Whether normalised `path` is `root` or below it (ASCII case folded, as
 * NTFS compares names through its upcase table). */
bool win_path_within(const char *path, const char *root);

/* The parent of normalised `path` into out; -ENOENT for a drive root. */
int win_path_parent(const char *path, char *out, size_t outlen);

/* One path's edit: the ACEs the container's SID must have there, exactly. */
struct win_op {
	char *path;	    /* expanded, normalised */
	struct win_ace *want;
	size_t nwant;
	uint8_t label;	    /* enum win_label: set a Low label */
	bool skip_missing;  /* a missing path is skipped, not an error */
	bool has_allow;
	size_t entry;	    /* first manifest entry behind it */
};

/* A deny that no grant reaches: nothing to write (the container cannot
 * open it anyway), reported by `heel-exec.exe check`. */
struct win_unreached {
	size_t entry;
	char *path; /* expanded, or the template when expansion failed */
	bool parent; /* the parent's DELETE_CHILD deny, not the entry itself */
};

struct win_plan {
	struct win_op *ops; /* in manifest order of first appearance */
	size_t nops;
	struct win_unreached *unreached;
	size_t nunreached;
};

/* Builds the plan. A grant whose path cannot be expanded or normalised
 * refuses the whole plan (-EINVAL/-ENOENT and a message naming the
 * entry's origin); a deny that cannot be expanded and may be missing is
 * unreached. Each deny (and each parent DELETE_CHILD deny) is applied
 * only where a grant's path is the same or an ancestor. *out is
 * initialised here; free it with win_plan_free, also on failure. */
int win_plan_build(const struct win_manifest *m, win_lookup_fn lookup, void *ctx,
		   const char *workdir, struct win_plan *out, char *err, size_t errlen);
void win_plan_free(struct win_plan *p);

/* A file has no children to pass ACEs on to: the inheritance flags are
 * dropped (an inheritable ACE on a file is refused by nothing but makes
 * the DACL say what it cannot do). */
void win_plan_for_file(struct win_ace *aces, size_t n);

/* The SIDs a container's token matches in the package half of the access
 * check (a lowbox token passes only where both its user's half and this
 * half grant): all application packages, or all restricted ones for a
 * less privileged container. */
#define WIN_SID_ALL_APP_PACKAGES "S-1-15-2-1"
#define WIN_SID_ALL_RESTRICTED_APP_PACKAGES "S-1-15-2-2"

/* What the package SIDs `pkg` (the container's own SID first, then
 * ALL [RESTRICTED] APPLICATION PACKAGES and its capabilities) are allowed
 * by dacl, generic rights mapped to file rights. The container's own
 * explicit ACEs do not count (converge replaces them). With need_inherit
 * (OI|CI), only ACEs that also pass to everything below count; with
 * inherit_only, inherit-only ACEs count too (they grant what is below). */
uint32_t win_plan_package_access(const struct win_acl *dacl, const char *const *pkg, size_t npkg,
				 uint8_t need_inherit, bool inherit_only);

/* Drops from want[0..nwant) what the path does not need, given its DACL
 * now, and returns how many remain (compacted to the front):
 * - a deny whose bits no package SID is allowed here or below (counting
 *   the op's own allows): the container cannot reach what it would stop. This keeps heel from
 *   writing, for instance, to C:\Windows\Temp, whose DACL only an
 *   administrator may change and which no container reaches;
 * - unless a label is to be set (the ACL is written anyway), an allow the
 *   package SIDs already have here and below (System32 and Program Files
 *   grant ALL APPLICATION PACKAGES read and execute; their DACLs belong
 *   to TrustedInstaller).
 * Inherited denies below a grant never beat an explicit allow further
 * down (canonical order), so what is allowed here or below is the whole
 * question for a deny. */
size_t win_plan_needed(const struct win_acl *dacl, const char *const *pkg, size_t npkg,
		       struct win_ace *want, size_t nwant, bool label);

/* Runs of one policy share the SID, and a converge would take away what
 * another live run of it wrote on the same path (their plans differ where
 * ${WORKDIR} or ${CWD} differ). So a path held by another run converges
 * to the union: the ACEs of the holder's journal entry (its `aces` SDDL,
 * the label part ignored) are merged into *want (same type and flags:
 * masks joined; else appended). 0, -EINVAL (not a DACL SDDL), -ENOMEM. */
int win_plan_union(struct win_ace **want, size_t *nwant, const char *sddl);

/* The mandatory label a Low entry gets: (ML;OICI;NW;;;LW) on a directory,
 * (ML;;NW;;;LW) on a file. */
void win_plan_low_label(bool is_dir, struct win_ace *label);

#endif

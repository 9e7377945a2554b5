/* SPDX-License-Identifier: MIT
 * The in-memory ACL of win_acl.h: SDDL subset in and out, and the
 * converge/revert edit. The launcher never uses SetEntriesInAcl for it:
 * GRANT merges masks into an existing ACE and REVOKE removes every ACE of
 * a trustee including denies, so neither says exactly what the DACL holds
 * afterwards; rebuilding the list here does. */
#include "win_acl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "win_manifest.h"

void
win_acl_init(struct win_acl *acl, char part)
{
	memset(acl, 0, sizeof(*acl));
	acl->part = part;
}

void
win_acl_free(struct win_acl *acl)
{
	free(acl->aces);
	acl->aces = NULL;
	acl->n = acl->cap = 0;
}

bool
win_sid_valid(const char *s)
{
	size_t nsub = 0;
	const char *p;

	if (strncmp(s, "S-1-", 4) != 0 || strlen(s) >= WIN_SID_MAX)
		return false;
	p = s + 4;
	/* The identifier authority, then the sub-authorities. */
	for (int field = 0;; field++) {
		unsigned long long v = 0;
		size_t digits = 0;

		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (unsigned)(*p - '0');
			if (++digits > 15)
				return false;
			p++;
		}
		if (digits == 0 || (digits > 1 && p[-(long)digits] == '0'))
			return false;
		if (field == 0 ? v >= (1ull << 48) : v > 0xffffffffull)
			return false;
		if (field > 0)
			nsub++;
		if (*p == '\0')
			break;
		if (*p != '-')
			return false;
		p++;
	}
	return nsub >= 1 && nsub <= 15;
}

int
win_ace_make(struct win_ace *ace, uint8_t type, uint8_t flags, uint32_t mask, const char *sid)
{
	memset(ace, 0, sizeof(*ace));
	if (!win_sid_valid(sid))
		return -EINVAL;
	ace->type = type;
	ace->flags = flags;
	ace->mask = mask;
	memcpy(ace->sid, sid, strlen(sid) + 1);
	return 0;
}

int
win_acl_add(struct win_acl *acl, const struct win_ace *ace)
{
	if (!win_sid_valid(ace->sid))
		return -EINVAL;
	if (acl->n == acl->cap) {
		size_t cap = acl->cap ? acl->cap * 2 : 8;
		struct win_ace *a = realloc(acl->aces, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		acl->aces = a;
		acl->cap = cap;
	}
	acl->aces[acl->n++] = *ace;
	return 0;
}

/* ------------------------------------------------------------ SDDL */

static const struct {
	const char *alias;
	const char *sid;
} sid_aliases[] = {
    {"WD", "S-1-1-0"},	    /* Everyone */
    {"SY", "S-1-5-18"},	    /* LocalSystem */
    {"BA", "S-1-5-32-544"}, /* Administrators */
    {"BU", "S-1-5-32-545"}, /* Users */
    {"AU", "S-1-5-11"},	    /* Authenticated Users */
    {"CO", "S-1-3-0"},	    /* Creator Owner */
    {"OW", "S-1-3-4"},	    /* Owner Rights */
    {"AC", "S-1-15-2-1"},   /* ALL APPLICATION PACKAGES */
    {"LW", "S-1-16-4096"},  /* Low mandatory level */
    {"ME", "S-1-16-8192"},  /* Medium */
    {"HI", "S-1-16-12288"}, /* High */
    {"SI", "S-1-16-16384"}, /* System */
};

static const struct {
	const char *name;
	uint32_t mask;
} file_rights[] = {
    {"FA", 0x1f01ffu}, /* FILE_ALL_ACCESS */
    {"FR", 0x120089u}, /* FILE_GENERIC_READ */
    {"FW", 0x120116u}, /* FILE_GENERIC_WRITE */
    {"FX", 0x1200a0u}, /* FILE_GENERIC_EXECUTE */
};

static const struct {
	const char *name;
	uint8_t flag;
} ace_flags[] = {
    {"OI", WIN_INHERIT_OBJECT},	     {"CI", WIN_INHERIT_CONTAINER}, {"NP", WIN_INHERIT_NO_PROPAGATE},
    {"IO", WIN_INHERIT_ONLY},	     {"ID", WIN_ACL_INHERITED},
};

static const struct {
	const char *name;
	uint32_t bit;
} label_rights[] = {
    {"NW", WIN_LABEL_NO_WRITE_UP},
    {"NR", WIN_LABEL_NO_READ_UP},
    {"NX", WIN_LABEL_NO_EXECUTE_UP},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* One field of an ACE string: [p, end) up to the next ';' or ')'. */
static const char *
field_end(const char *p)
{
	while (*p && *p != ';' && *p != ')')
		p++;
	return p;
}

static bool
field_is(const char *p, const char *end, const char *word)
{
	return (size_t)(end - p) == strlen(word) && strncmp(p, word, (size_t)(end - p)) == 0;
}

static int
parse_mask(const char *p, const char *end, bool label, uint32_t *mask)
{
	*mask = 0;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		unsigned long long v = 0;

		if (end - p > 10)
			return -EINVAL;
		for (const char *q = p + 2; q < end; q++) {
			int d;

			if (*q >= '0' && *q <= '9')
				d = *q - '0';
			else if (*q >= 'a' && *q <= 'f')
				d = *q - 'a' + 10;
			else if (*q >= 'A' && *q <= 'F')
				d = *q - 'A' + 10;
			else
				return -EINVAL;
			v = v * 16 + (unsigned)d;
		}
		*mask = (uint32_t)v;
		return 0;
	}
	if (!label) {
		for (size_t i = 0; i < N(file_rights); i++)
			if (field_is(p, end, file_rights[i].name)) {
				*mask = file_rights[i].mask;
				return 0;
			}
		return -EINVAL;
	}
	if ((end - p) % 2 != 0 || p == end)
		return -EINVAL;
	for (; p < end; p += 2) {
		size_t i;

		for (i = 0; i < N(label_rights); i++)
			if (field_is(p, p + 2, label_rights[i].name))
				break;
		if (i == N(label_rights))
			return -EINVAL;
		*mask |= label_rights[i].bit;
	}
	return 0;
}

static int
parse_flags(const char *p, const char *end, uint8_t *flags)
{
	*flags = 0;
	if ((end - p) % 2 != 0)
		return -EINVAL;
	for (; p < end; p += 2) {
		size_t i;

		for (i = 0; i < N(ace_flags); i++)
			if (field_is(p, p + 2, ace_flags[i].name))
				break;
		if (i == N(ace_flags) || (*flags & ace_flags[i].flag))
			return -EINVAL;
		*flags |= ace_flags[i].flag;
	}
	return 0;
}

static int
parse_sid(const char *p, const char *end, char out[WIN_SID_MAX])
{
	size_t n = (size_t)(end - p);

	for (size_t i = 0; i < N(sid_aliases); i++)
		if (field_is(p, end, sid_aliases[i].alias)) {
			snprintf(out, WIN_SID_MAX, "%s", sid_aliases[i].sid);
			return 0;
		}
	if (n == 0 || n >= WIN_SID_MAX)
		return -EINVAL;
	memcpy(out, p, n);
	out[n] = '\0';
	return win_sid_valid(out) ? 0 : -EINVAL;
}

/* One "(T;F;M;;;SID)" at *pp, which is moved past it. */
static int
parse_ace(const char **pp, char part, struct win_ace *ace)
{
	const char *p = *pp + 1, *e;

	memset(ace, 0, sizeof(*ace));
	e = field_end(p);
	if (*e != ';')
		return -EINVAL;
	if (field_is(p, e, "A") && part == 'D')
		ace->type = WIN_ACL_ALLOW;
	else if (field_is(p, e, "D") && part == 'D')
		ace->type = WIN_ACL_DENY;
	else if (field_is(p, e, "ML") && part == 'S')
		ace->type = WIN_ACL_LABEL;
	else
		return -EINVAL;
	p = e + 1;
	e = field_end(p);
	if (*e != ';' || parse_flags(p, e, &ace->flags) < 0)
		return -EINVAL;
	p = e + 1;
	e = field_end(p);
	if (*e != ';' || parse_mask(p, e, ace->type == WIN_ACL_LABEL, &ace->mask) < 0)
		return -EINVAL;
	/* The object and inherited-object GUIDs: only object ACEs have them. */
	if (e[1] != ';' || e[2] != ';')
		return -EINVAL;
	p = e + 3;
	e = field_end(p);
	if (*e != ')' || parse_sid(p, e, ace->sid) < 0)
		return -EINVAL;
	*pp = e + 1;
	return 0;
}

int
win_acl_parse(const char *sddl, struct win_acl *acl, char *err, size_t errlen)
{
	const char *p = sddl;
	int rc;

	win_acl_init(acl, 'S');
	if (*p == '\0')
		return 0;
	if ((p[0] != 'D' && p[0] != 'S') || p[1] != ':')
		return rt_error(err, errlen, -EINVAL, "SDDL \"%s\": does not start with D: or S:",
				sddl);
	acl->part = p[0];
	p += 2;
	for (;;) {
		if (p[0] == 'P') {
			acl->is_protected = true;
			p++;
		} else if (p[0] == 'A' && p[1] == 'I') {
			acl->auto_inherited = true;
			p += 2;
		} else if (p[0] == 'A' && p[1] == 'R') {
			p += 2;
		} else {
			break;
		}
	}
	while (*p == '(') {
		struct win_ace ace;
		const char *at = p;

		if (parse_ace(&p, acl->part, &ace) < 0)
			return rt_error(err, errlen, -EINVAL, "SDDL: ACE at offset %d is not one heel reads: %.60s",
					(int)(at - sddl), at);
		rc = win_acl_add(acl, &ace);
		if (rc < 0)
			return rt_error(err, errlen, rc, "SDDL: out of memory");
	}
	if (*p != '\0')
		return rt_error(err, errlen, -EINVAL, "SDDL: trailing text at offset %d: %.60s",
				(int)(p - sddl), p);
	return 0;
}

/* Text appended to a caller's buffer; `at` counts what was wanted, so
 * at >= len after the last write means it did not fit. */
struct sbuf {
	char *out;
	size_t len;
	size_t at;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(RT_PRINTF_FORMAT, 2, 3)));

static void
put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->at < b->len ? b->out + b->at : NULL, b->at < b->len ? b->len - b->at : 0,
		      fmt, ap);
	va_end(ap);
	b->at += (size_t)(n < 0 ? 0 : n);
}

int
win_acl_format(const struct win_acl *acl, char *out, size_t outlen)
{
	struct sbuf b = {out, outlen, 0};

	if (outlen)
		out[0] = '\0';
	put(&b, "%c:%s%s", acl->part, acl->is_protected ? "P" : "", acl->auto_inherited ? "AI" : "");
	for (size_t i = 0; i < acl->n; i++) {
		const struct win_ace *a = &acl->aces[i];
		const char *t = a->type == WIN_ACL_ALLOW ? "A" : a->type == WIN_ACL_DENY ? "D" : "ML";

		put(&b, "(%s;", t);
		for (size_t f = 0; f < N(ace_flags); f++)
			if (a->flags & ace_flags[f].flag)
				put(&b, "%s", ace_flags[f].name);
		put(&b, ";");
		if (a->type == WIN_ACL_LABEL && a->mask != 0 && (a->mask & ~7u) == 0) {
			for (size_t r = 0; r < N(label_rights); r++)
				if (a->mask & label_rights[r].bit)
					put(&b, "%s", label_rights[r].name);
		} else {
			put(&b, "0x%x", (unsigned)a->mask);
		}
		put(&b, ";;;%s)", a->sid);
	}
	return b.at < outlen ? 0 : -ENOSPC;
}

/* ------------------------------------------------------------ converge */

static bool
ours(const struct win_ace *a, const char *sid)
{
	return !(a->flags & WIN_ACL_INHERITED) && a->type != WIN_ACL_LABEL &&
	       strcmp(a->sid, sid) == 0;
}

int
win_acl_converge(const struct win_acl *cur, const char *sid, const struct win_ace *want,
		 size_t nwant, struct win_acl *out, char *err, size_t errlen)
{
	/* The three groups of canonical order, each filled in two passes:
	 * what is there (not ours), then what we want. */
	static const uint8_t group_type[2] = {WIN_ACL_DENY, WIN_ACL_ALLOW};
	int rc;

	win_acl_init(out, 'D');
	out->is_protected = cur->is_protected;
	out->auto_inherited = cur->auto_inherited;
	if (cur->part != 'D')
		return rt_error(err, errlen, -EINVAL, "converge: not a DACL");
	for (size_t i = 0; i < nwant; i++) {
		const struct win_ace *w = &want[i];

		if (w->type != WIN_ACL_ALLOW && w->type != WIN_ACL_DENY)
			return rt_error(err, errlen, -EINVAL, "converge: wanted ACE %zu is no allow or deny", i);
		if (w->mask == 0)
			return rt_error(err, errlen, -EINVAL,
					"converge: wanted ACE %zu has an empty mask (Windows would drop it)", i);
		if (w->flags & ~(uint8_t)WIN_INHERIT_KNOWN)
			return rt_error(err, errlen, -EINVAL,
					"converge: wanted ACE %zu has flags 0x%x beyond OI CI NP IO", i,
					(unsigned)w->flags);
		if (strcmp(w->sid, sid) != 0)
			return rt_error(err, errlen, -EINVAL, "converge: wanted ACE %zu is for %s, not %s", i,
					w->sid, sid);
	}
	for (int g = 0; g < 2; g++) {
		for (size_t i = 0; i < cur->n; i++) {
			const struct win_ace *a = &cur->aces[i];

			if ((a->flags & WIN_ACL_INHERITED) || a->type != group_type[g] || ours(a, sid))
				continue;
			if ((rc = win_acl_add(out, a)) < 0)
				goto fail;
		}
		for (size_t i = 0; i < nwant; i++)
			if (want[i].type == group_type[g] && (rc = win_acl_add(out, &want[i])) < 0)
				goto fail;
	}
	/* Explicit ACEs of other types (none in what heel reads, but keep
	 * the rule total), then the inherited ones in their order: they are
	 * the parent's canonical list and must stay as it wrote them. */
	for (size_t i = 0; i < cur->n; i++) {
		const struct win_ace *a = &cur->aces[i];

		if (!(a->flags & WIN_ACL_INHERITED) && a->type != WIN_ACL_ALLOW && a->type != WIN_ACL_DENY &&
		    (rc = win_acl_add(out, a)) < 0)
			goto fail;
	}
	for (size_t i = 0; i < cur->n; i++)
		if ((cur->aces[i].flags & WIN_ACL_INHERITED) && (rc = win_acl_add(out, &cur->aces[i])) < 0)
			goto fail;
	return 0;
fail:
	return rt_error(err, errlen, rc, "converge: out of memory");
}

int
win_acl_revert(const struct win_acl *cur, const char *sid, struct win_acl *out, char *err,
	       size_t errlen)
{
	return win_acl_converge(cur, sid, NULL, 0, out, err, errlen);
}

bool
win_acl_equal(const struct win_acl *a, const struct win_acl *b)
{
	if (a->part != b->part || a->is_protected != b->is_protected ||
	    a->auto_inherited != b->auto_inherited || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct win_ace *x = &a->aces[i], *y = &b->aces[i];

		if (x->type != y->type || x->flags != y->flags || x->mask != y->mask ||
		    strcmp(x->sid, y->sid) != 0)
			return false;
	}
	return true;
}

bool
win_acl_canonical(const struct win_acl *acl)
{
	int stage = 0; /* 0: explicit denies, 1: explicit allows, 2: inherited */

	for (size_t i = 0; i < acl->n; i++) {
		const struct win_ace *a = &acl->aces[i];
		int s = (a->flags & WIN_ACL_INHERITED) ? 2 : a->type == WIN_ACL_DENY ? 0 : 1;

		if (s < stage)
			return false;
		stage = s;
	}
	return true;
}

/* SPDX-License-Identifier: MIT
 * Planning the ACL edits of a Windows launch (win_plan.h). Paths are
 * checked here, before anything is written, so that the launcher's
 * Windows calls only ever see a drive-letter path with nothing to
 * reinterpret. The expansion follows the Linux expander's rules (an empty
 * value is unset; no "." or ".." may come out of a variable) with Windows
 * spelling: runtime/pathexpand.c reads '/'-rooted POSIX paths only. */
#include "win_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

static char
upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool
bad_name_char(unsigned char c)
{
	return c < 0x20 || strchr("<>\"|?*:", c) != NULL;
}

int
win_path_normalize(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t o = 0, n = strlen(in);
	const char *p;

	if (outlen < 4)
		return rt_error(err, errlen, -ENAMETOOLONG, "path buffer too small");
	if (n >= 2 && (in[0] == '\\' || in[0] == '/') && (in[1] == '\\' || in[1] == '/'))
		return rt_error(err, errlen, -EINVAL,
				"%s: UNC, device and \\\\?\\ paths are refused (a drive-letter path only)",
				in);
	if (!(n >= 2 && ((in[0] >= 'A' && in[0] <= 'Z') || (in[0] >= 'a' && in[0] <= 'z')) &&
	      in[1] == ':'))
		return rt_error(err, errlen, -EINVAL, "%s: not an absolute drive-letter path (C:\\...)",
				in);
	if (n == 2 || (in[2] != '\\' && in[2] != '/'))
		return rt_error(err, errlen, -EINVAL,
				"%s: relative to the drive's current directory (write %c:\\...)", in, in[0]);
	out[o++] = upper(in[0]);
	out[o++] = ':';
	p = in + 2;
	while (*p) {
		const char *s, *e;
		size_t len;

		while (*p == '\\' || *p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != '\\' && *p != '/')
			p++;
		e = p;
		len = (size_t)(e - s);
		if (len == 1 && s[0] == '.')
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.')
			return rt_error(err, errlen, -EINVAL, "%s: a \"..\" component is refused", in);
		for (const char *q = s; q < e; q++)
			if (bad_name_char((unsigned char)*q))
				return rt_error(err, errlen, -EINVAL,
						"%s: '%c' cannot be in a Windows path component%s", in,
						*q < 0x20 ? '?' : *q,
						*q == ':' ? " (an alternate data stream)" : "");
		if (e[-1] == '.' || e[-1] == ' ')
			return rt_error(err, errlen, -EINVAL,
					"%s: a component ends in '%c', which Windows strips (two names, one file)",
					in, e[-1]);
		if (o + 1 + len + 1 > outlen)
			return rt_error(err, errlen, -ENAMETOOLONG, "%.60s...: path too long", in);
		out[o++] = '\\';
		memcpy(out + o, s, len);
		o += len;
	}
	if (o == 2)
		out[o++] = '\\';
	out[o] = '\0';
	return 0;
}

int
win_path_expand(const char *tmpl, win_lookup_fn lookup, void *ctx, const char *workdir,
		char *out, size_t outlen, char *err, size_t errlen)
{
	char buf[WIN_PATH_MAX];
	size_t o = 0;
	const char *p = tmpl;

	while (*p) {
		const char *val;
		size_t vlen;

		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			char name[128];
			size_t nlen;

			if (!end || end == p + 2 || (size_t)(end - p - 2) >= sizeof(name))
				return rt_error(err, errlen, -EINVAL, "%s: malformed ${NAME}", tmpl);
			nlen = (size_t)(end - p - 2);
			memcpy(name, p + 2, nlen);
			name[nlen] = '\0';
			if (strcmp(name, "WORKDIR") == 0)
				val = workdir;
			else
				val = lookup ? lookup(ctx, name) : NULL;
			if (!val || !*val)
				return rt_error(err, errlen, -ENOENT, "%s: ${%s} is not set", tmpl, name);
			/* What a variable holds stays beneath what it names. */
			for (const char *q = val; *q;) {
				const char *c = q;

				while (*q && *q != '\\' && *q != '/')
					q++;
				if ((q - c == 2 && c[0] == '.' && c[1] == '.') || (q - c == 1 && c[0] == '.'))
					return rt_error(err, errlen, -EINVAL,
							"%s: ${%s} holds a \".\" or \"..\" component", tmpl,
							name);
				if (*q)
					q++;
			}
			vlen = strlen(val);
			if (o + vlen >= sizeof(buf))
				return rt_error(err, errlen, -ENAMETOOLONG, "%s: too long once expanded",
						tmpl);
			memcpy(buf + o, val, vlen);
			o += vlen;
			p = end + 1;
			continue;
		}
		if (o + 1 >= sizeof(buf))
			return rt_error(err, errlen, -ENAMETOOLONG, "%s: too long once expanded", tmpl);
		buf[o++] = *p++;
	}
	buf[o] = '\0';
	return win_path_normalize(buf, out, outlen, err, errlen);
}

bool
win_path_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	for (size_t i = 0; i < n; i++)
		if (upper(path[i]) != upper(root[i]))
			return false; /* also when path ends first: path[i] == '\0' */
	/* "C:\" is the only normalised path ending in '\'. */
	return path[n] == '\0' || path[n] == '\\' || root[n - 1] == '\\';
}

int
win_path_parent(const char *path, char *out, size_t outlen)
{
	const char *last = strrchr(path, '\\');
	size_t n;

	if (!last || last[1] == '\0')
		return -ENOENT;
	n = (size_t)(last - path);
	if (n == 2)
		n = 3; /* keep "C:\" */
	if (n + 1 > outlen)
		return -ENAMETOOLONG;
	memcpy(out, path, n);
	out[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------ the plan */

void
win_plan_free(struct win_plan *p)
{
	for (size_t i = 0; i < p->nops; i++) {
		free(p->ops[i].path);
		free(p->ops[i].want);
	}
	for (size_t i = 0; i < p->nunreached; i++)
		free(p->unreached[i].path);
	free(p->ops);
	free(p->unreached);
	memset(p, 0, sizeof(*p));
}

static struct win_op *
op_for(struct win_plan *p, const char *path, size_t entry)
{
	struct win_op *ops;

	for (size_t i = 0; i < p->nops; i++)
		if (win_path_within(p->ops[i].path, path) && win_path_within(path, p->ops[i].path))
			return &p->ops[i];
	ops = realloc(p->ops, (p->nops + 1) * sizeof(*ops));
	if (!ops)
		return NULL;
	p->ops = ops;
	memset(&ops[p->nops], 0, sizeof(ops[0]));
	ops[p->nops].path = strdup(path);
	if (!ops[p->nops].path)
		return NULL;
	ops[p->nops].entry = entry;
	ops[p->nops].skip_missing = true;
	return &ops[p->nops++];
}

/* Adds one ACE to the op, merging masks with an ACE of the same type and
 * flags already there (two grants of one path union). */
static int
op_add(struct win_op *op, uint8_t type, uint8_t flags, uint32_t mask, const char *sid)
{
	struct win_ace *w;

	for (size_t i = 0; i < op->nwant; i++)
		if (op->want[i].type == type && op->want[i].flags == flags) {
			op->want[i].mask |= mask;
			return 0;
		}
	w = realloc(op->want, (op->nwant + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	op->want = w;
	if (win_ace_make(&w[op->nwant], type, flags, mask, sid) < 0)
		return -EINVAL;
	op->nwant++;
	return 0;
}

static int
unreached(struct win_plan *p, size_t entry, const char *path, bool parent)
{
	struct win_unreached *u = realloc(p->unreached, (p->nunreached + 1) * sizeof(*u));

	if (!u)
		return -ENOMEM;
	p->unreached = u;
	u[p->nunreached].entry = entry;
	u[p->nunreached].parent = parent;
	u[p->nunreached].path = strdup(path);
	if (!u[p->nunreached].path)
		return -ENOMEM;
	p->nunreached++;
	return 0;
}

/* Whether a grant's path is `path` or an ancestor of it: an AppContainer
 * reaches nothing without an ACE, so a deny elsewhere has nothing to stop,
 * and writing it could need rights over a place the user does not own. */
static bool
granted(const struct win_manifest *m, char *const *expanded, const char *path)
{
	for (size_t j = 0; j < m->nentries; j++)
		if (m->entries[j].ace == WIN_ACE_ALLOW && expanded[j] &&
		    win_path_within(path, expanded[j]))
			return true;
	return false;
}

static const char *
origin(const struct win_entry *e, char *buf, size_t len)
{
	if (e->origin_file)
		snprintf(buf, len, "%s:%u", e->origin_file, (unsigned)e->origin_line);
	else
		snprintf(buf, len, "built-in entry");
	return buf;
}

int
win_plan_build(const struct win_manifest *m, win_lookup_fn lookup, void *ctx,
	       const char *workdir, struct win_plan *out, char *err, size_t errlen)
{
	char **expanded = calloc(m->nentries ? m->nentries : 1, sizeof(char *));
	char path[WIN_PATH_MAX], why[512], where[256];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!expanded)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	/* Pass 1: every grant's path, so that denies can be judged. */
	for (size_t i = 0; i < m->nentries; i++) {
		const struct win_entry *e = &m->entries[i];

		if (e->mask == 0) {
			rc = rt_error(err, errlen, -EINVAL, "%s: entry %zu has an empty mask",
				      origin(e, where, sizeof(where)), i);
			goto out;
		}
		rc = win_path_expand(e->path, lookup, ctx, workdir, path, sizeof(path), why,
				     sizeof(why));
		if (rc < 0) {
			if (e->ace == WIN_ACE_DENY && e->missing == WIN_MISSING_SKIP) {
				rc = 0;
				continue;
			}
			rc = rt_error(err, errlen, rc, "%s: %s", origin(e, where, sizeof(where)), why);
			goto out;
		}
		/* heelc refuses a drive root it can see; ${WORKDIR}, ${CWD} or
		 * a variable can still name one at launch. An inheritable ACE
		 * there reaches every file of the drive. */
		if (e->ace == WIN_ACE_ALLOW && strlen(path) == 3) {
			rc = rt_error(err, errlen, -EPERM,
				      "%s: %s is a whole drive; heel does not grant a drive root",
				      origin(e, where, sizeof(where)), path);
			goto out;
		}
		expanded[i] = strdup(path);
		if (!expanded[i]) {
			rc = rt_error(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
	}
	/* Pass 2: the ops, in manifest order. */
	for (size_t i = 0; i < m->nentries; i++) {
		const struct win_entry *e = &m->entries[i];
		struct win_op *op;

		if (!expanded[i]) {
			if ((rc = unreached(out, i, e->path, false)) < 0)
				goto nomem;
			continue;
		}
		if (e->ace == WIN_ACE_DENY && !granted(m, expanded, expanded[i])) {
			if ((rc = unreached(out, i, expanded[i], false)) < 0)
				goto nomem;
			goto parent;
		}
		op = op_for(out, expanded[i], i);
		if (!op)
			goto nomem;
		if ((rc = op_add(op, e->ace == WIN_ACE_DENY ? WIN_ACL_DENY : WIN_ACL_ALLOW,
				 e->inherit & WIN_INHERIT_KNOWN, e->mask, m->sid)) < 0)
			goto nomem;
		if (e->missing == WIN_MISSING_ERROR)
			op->skip_missing = false;
		if (e->ace == WIN_ACE_ALLOW)
			op->has_allow = true;
		if (e->label == WIN_LABEL_LOW)
			op->label = WIN_LABEL_LOW;
parent:
		if (e->ace == WIN_ACE_DENY && e->parent_deny_delete_child &&
		    win_path_parent(expanded[i], path, sizeof(path)) == 0) {
			if (!granted(m, expanded, path)) {
				if ((rc = unreached(out, i, path, true)) < 0)
					goto nomem;
				continue;
			}
			op = op_for(out, path, i);
			/* This object only: the children keep DELETE of their
			 * own, only the protected name may not be unlinked
			 * from here. */
			if (!op || (rc = op_add(op, WIN_ACL_DENY, 0, WIN_FILE_DELETE_CHILD, m->sid)) < 0)
				goto nomem;
		}
	}
	goto out;
nomem:
	if (rc == -EINVAL)
		rc = rt_error(err, errlen, rc, "the manifest's SID %s is malformed", m->sid);
	else
		rc = rt_error(err, errlen, -ENOMEM, "out of memory");
out:
	for (size_t i = 0; i < m->nentries; i++)
		free(expanded[i]);
	free(expanded);
	return rc;
}

void
win_plan_for_file(struct win_ace *aces, size_t n)
{
	for (size_t i = 0; i < n; i++)
		aces[i].flags &= (uint8_t)~WIN_INHERIT_KNOWN;
}

void
win_plan_low_label(bool is_dir, struct win_ace *label)
{
	win_ace_make(label, WIN_ACL_LABEL,
		     is_dir ? (uint8_t)(WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER) : 0,
		     WIN_LABEL_NO_WRITE_UP, WIN_SID_LOW_LABEL);
}

/* ------------------------------------------------------------ what is needed */

/* GENERIC_* bits as a file object maps them (FILE_GENERIC_*). */
static uint32_t
file_mapped(uint32_t mask)
{
	uint32_t m = mask & 0x0fffffffu;

	if (mask & 0x80000000u)
		m |= 0x120089u; /* GENERIC_READ */
	if (mask & 0x40000000u)
		m |= 0x120116u; /* GENERIC_WRITE */
	if (mask & 0x20000000u)
		m |= 0x1200a0u; /* GENERIC_EXECUTE */
	if (mask & 0x10000000u)
		m |= 0x1f01ffu; /* GENERIC_ALL */
	return m;
}

uint32_t
win_plan_package_access(const struct win_acl *dacl, const char *const *pkg, size_t npkg,
			uint8_t need_inherit, bool inherit_only)
{
	uint32_t got = 0;

	for (size_t i = 0; i < dacl->n; i++) {
		const struct win_ace *a = &dacl->aces[i];
		bool match = false;

		if (a->type != WIN_ACL_ALLOW)
			continue;
		if ((a->flags & WIN_INHERIT_ONLY) && !inherit_only)
			continue;
		if ((a->flags & need_inherit) != need_inherit)
			continue;
		for (size_t k = 0; k < npkg && !match; k++)
			match = strcmp(a->sid, pkg[k]) == 0 &&
				/* Ours, explicit: what converge replaces. */
				!(k == 0 && !(a->flags & WIN_ACL_INHERITED));
		if (match)
			got |= file_mapped(a->mask);
	}
	return got;
}

size_t
win_plan_needed(const struct win_acl *dacl, const char *const *pkg, size_t npkg,
		struct win_ace *want, size_t nwant, bool label)
{
	uint32_t below = win_plan_package_access(dacl, pkg, npkg, 0, true);
	size_t k = 0;

	/* The op's own allows are about to be there too. */
	for (size_t i = 0; i < nwant; i++)
		if (want[i].type == WIN_ACL_ALLOW)
			below |= want[i].mask;

	for (size_t i = 0; i < nwant; i++) {
		const struct win_ace *w = &want[i];
		bool drop;

		if (w->type == WIN_ACL_DENY) {
			drop = (below & w->mask) == 0;
		} else {
			uint32_t have = win_plan_package_access(
			    dacl, pkg, npkg, w->flags & (WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER), false);

			drop = !label && (have & w->mask) == w->mask;
		}
		if (!drop)
			want[k++] = *w;
	}
	return k;
}

int
win_plan_union(struct win_ace **want, size_t *nwant, const char *sddl)
{
	struct win_acl other;
	char dacl[4096];
	const char *label = strstr(sddl, "S:");
	size_t len = label ? (size_t)(label - sddl) : strlen(sddl);
	int rc;

	if (len >= sizeof(dacl))
		return -EINVAL;
	memcpy(dacl, sddl, len);
	dacl[len] = '\0';
	rc = win_acl_parse(dacl, &other, NULL, 0);
	if (rc == 0 && other.part != 'D')
		rc = -EINVAL;
	for (size_t i = 0; rc == 0 && i < other.n; i++) {
		const struct win_ace *o = &other.aces[i];
		struct win_ace *grown;
		size_t k;

		for (k = 0; k < *nwant; k++)
			if ((*want)[k].type == o->type && (*want)[k].flags == o->flags &&
			    strcmp((*want)[k].sid, o->sid) == 0)
				break;
		if (k < *nwant) {
			(*want)[k].mask |= o->mask;
			continue;
		}
		grown = realloc(*want, (*nwant + 1) * sizeof(*grown));
		if (!grown) {
			rc = -ENOMEM;
			break;
		}
		*want = grown;
		grown[(*nwant)++] = *o;
	}
	win_acl_free(&other);
	return rc;
}

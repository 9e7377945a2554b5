/* SPDX-License-Identifier: MIT
 * The Windows backend's model: which ACE entries, capabilities and job
 * limits a policy needs in an AppContainer. Decisions (each explained in
 * docs/acl-manifest.md): one inheritable entry per path; writable entries
 * carry a Low label; every deny is listed, and heel-exec.exe applies it
 * only where an allow reaches; a relative path is one under ${CWD}. */
#include "acl_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OICI (WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER)

struct acl_list {
	struct win_entry *v;
	size_t n, cap;
};

uint32_t
acl_mask_for_mode(unsigned mode)
{
	switch (mode) {
	case IR_MODE_R:
		return ACL_MASK_R;
	case IR_MODE_RX:
		return ACL_MASK_RX;
	case IR_MODE_RW:
		return ACL_MASK_RW;
	case IR_MODE_RWX:
		return ACL_MASK_RWX;
	}
	return 0;
}

static bool
is_absolute_template(const char *p)
{
	bool drive = ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';

	return drive || (p[0] == '$' && p[1] == '{');
}

/* A relative path means the launch directory, as on Linux; heel-exec.exe
 * knows it as ${CWD} (runtime/pathexpand.h). */
static char *
template_of(const char *path)
{
	char *out;
	size_t n;

	if (is_absolute_template(path))
		return strdup(path);
	n = strlen("${CWD}\\") + strlen(path) + 1;
	out = malloc(n);
	if (out)
		snprintf(out, n, "${CWD}\\%s", path);
	return out;
}

static char *
join(const char *dir, const char *rel)
{
	size_t n = strlen(dir) + 1 + strlen(rel) + 1;
	char *out = malloc(n);

	if (out)
		snprintf(out, n, "%s\\%s", dir, rel);
	return out;
}

/* Takes ownership of path. */
static struct win_entry *
add(struct acl_list *l, char *path)
{
	struct win_entry *e;

	if (!path)
		return NULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct win_entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			free(path);
			return NULL;
		}
		l->v = v;
		l->cap = cap;
	}
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->kind = WIN_KIND_AUTO;
	e->inherit = OICI;
	return e;
}

static void
set_origin(struct win_entry *e, const struct ir_origin *o)
{
	e->origin_file = o->file;
	e->origin_line = o->line;
	e->origin_col = o->col;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct win_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (int)x->ace - (int)y->ace;
}

/* Sorted by (path, allow before deny); two entries of the same path and
 * type are one: the masks add up, the first origin stays (a full deny
 * and a `readonly` of one path, or two writable places holding the same
 * each-writable path). */
static void
sort_and_merge(struct acl_list *l)
{
	size_t w = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	for (size_t i = 1; i < l->n; i++) {
		struct win_entry *k = &l->v[w], *e = &l->v[i];

		if (strcmp(k->path, e->path) == 0 && k->ace == e->ace) {
			k->mask |= e->mask;
			k->parent_deny_delete_child |= e->parent_deny_delete_child;
			if (e->missing == WIN_MISSING_ERROR)
				k->missing = WIN_MISSING_ERROR;
			free((char *)e->path);
			continue;
		}
		l->v[++w] = *e;
	}
	l->n = w + 1;
}

/* The allow entry of `path` among the first n entries, sorted and
 * merged (sort_and_merge): a search, since an each-writable path is
 * looked up once per writable entry, and a policy may have thousands. */
static const struct win_entry *
find_allow(const struct acl_list *l, size_t n, const char *path)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->v[mid].path, path);

		/* ALLOW sorts first among a path's entries (cmp_entry). */
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && l->v[lo].ace == WIN_ACE_ALLOW && strcmp(l->v[lo].path, path) == 0
		       ? &l->v[lo]
		       : NULL;
}

/* A path on "the current drive" (`/x`, `\x`) names whatever drive
 * heel-exec.exe runs from; sema keeps them off windows, an artifact
 * built another way may not. */
static bool
drive_relative(const char *p)
{
	return p[0] == '/' || p[0] == '\\';
}

static int
add_paths(struct acl_list *l, const struct ir_policy *ir)
{
	for (size_t i = 0; i < ir->npaths; i++) {
		const struct ir_path_rule *r = &ir->paths[i];
		struct win_entry *e;

		if (!(r->platforms & IR_PLAT_BIT(IR_WINDOWS)))
			continue;
		if (drive_relative(r->path))
			return -EINVAL;
		if (!(e = add(l, template_of(r->path))))
			return -ENOMEM;
		set_origin(e, &r->origin);
		if (r->mode == IR_MODE_DENY) {
			/* A rename moves a name, and the ACE with it: the
			 * parent's DELETE_CHILD is the other way to take the
			 * protected name out of a writable directory. */
			e->ace = WIN_ACE_DENY;
			e->mask = ACL_MASK_DENY;
			e->missing = WIN_MISSING_SKIP;
			e->parent_deny_delete_child = true;
			continue;
		}
		e->mask = acl_mask_for_mode(r->mode);
		if (!e->mask)
			return -EINVAL;
		e->missing = r->optional ? WIN_MISSING_SKIP : WIN_MISSING_ERROR;
		if (r->mode & IR_WRITE)
			e->label = WIN_LABEL_LOW;
	}
	return 0;
}

static int
add_workdir(struct acl_list *l, const struct ir_policy *ir)
{
	struct win_entry *e = add(l, strdup("${WORKDIR}"));

	if (!e)
		return -ENOMEM;
	/* heel-exec.exe creates it (or keeps the one `workdir` names), so
	 * it is a directory; writable, never executable. */
	e->kind = WIN_KIND_DIRECTORY;
	e->mask = ACL_MASK_RW;
	e->label = WIN_LABEL_LOW;
	e->missing = WIN_MISSING_ERROR;
	if (ir->scalar[IR_WINDOWS].workdir.value)
		set_origin(e, &ir->scalar[IR_WINDOWS].workdir.origin);
	return 0;
}

static struct win_entry *
add_write_deny(struct acl_list *l, char *path, const struct ir_readonly *ro)
{
	struct win_entry *e = add(l, path);

	if (!e)
		return NULL;
	e->ace = WIN_ACE_DENY;
	e->mask = ACL_MASK_DENY_WRITE;
	e->missing = WIN_MISSING_SKIP;
	/* Renaming the file away and writing a new one in its place is a
	 * write too. */
	e->parent_deny_delete_child = true;
	set_origin(e, &ro->origin);
	return e;
}

/* `readonly`: a write-deny on the path, or, for an each-writable path,
 * on that path inside every writable entry (the working directory
 * included), except where an explicit writable grant names the very path. */
static int
add_readonly(struct acl_list *l, const struct ir_policy *ir)
{
	size_t nbase = l->n;

	for (size_t i = 0; i < ir->nreadonly; i++) {
		const struct ir_readonly *ro = &ir->readonly[i];

		if (!(ro->platforms & IR_PLAT_BIT(IR_WINDOWS)))
			continue;
		if (drive_relative(ro->path))
			return -EINVAL;
		if (!ro->each_writable) {
			if (!add_write_deny(l, template_of(ro->path), ro))
				return -ENOMEM;
			continue;
		}
		for (size_t k = 0; k < nbase; k++) {
			const struct win_entry *w = &l->v[k];
			const struct win_entry *same;
			char *path;

			if (w->ace != WIN_ACE_ALLOW || !(w->mask & WIN_FILE_WRITE_DATA))
				continue;
			if (!(path = join(w->path, ro->path)))
				return -ENOMEM;
			for (char *c = path; *c; c++)
				if (*c == '/')
					*c = '\\';
			/* Only the entries before this loop allow anything. */
			same = find_allow(l, nbase, path);
			if (same && (same->mask & WIN_FILE_WRITE_DATA)) {
				free(path);
				continue;
			}
			if (!add_write_deny(l, path, ro))
				return -ENOMEM;
		}
	}
	return 0;
}

static int
add_capabilities(struct acl_manifest *a, const struct ir_policy *ir)
{
	if (!ir->ncapabilities)
		return 0;
	a->caps = calloc(ir->ncapabilities, sizeof(*a->caps));
	if (!a->caps)
		return -ENOMEM;
	for (size_t i = 0; i < ir->ncapabilities; i++) {
		char sid[ACL_SID_SIZE];
		bool dup = false;
		int rc = acl_capability_sid(ir->capabilities[i].value, sid, sizeof(sid));

		if (rc)
			return rc;
		for (size_t j = 0; j < a->m.ncapabilities; j++)
			dup |= strcmp(a->caps[j], sid) == 0;
		if (dup)
			continue;
		if (!(a->caps[a->m.ncapabilities] = strdup(sid)))
			return -ENOMEM;
		a->m.ncapabilities++;
	}
	a->m.capabilities = (const char *const *)a->caps;
	return 0;
}

static int
set_job(struct win_manifest *m, const struct ir_scalars *sc)
{
	const struct ir_u64 *mem = &sc->limits[IR_LIMIT_MEMORY];
	const struct ir_u64 *procs = &sc->limits[IR_LIMIT_PROCESSES];

	/* Windows has seven priority classes; below normal and idle are
	 * the two that yield to the user's other work, as nice 1-19 does. */
	m->priority_class = !sc->nice.set || sc->nice.value == 0 ? WIN_PRIO_NORMAL
			    : sc->nice.value < 10		     ? WIN_PRIO_BELOW_NORMAL
								     : WIN_PRIO_IDLE;
	/* `limit memory` bounds the sandbox as a whole (a cgroup on
	 * Linux): the job's memory, not each process's. */
	if (mem->set)
		m->job_memory_bytes = mem->value;
	if (procs->set) {
		if (procs->value > UINT32_MAX)
			return -EINVAL;
		m->active_processes = (uint32_t)procs->value;
	}
	/* Every mode but deny goes through heel-proxy on 127.0.0.1, which
	 * an AppContainer reaches only with the loopback exemption. */
	m->loopback_required = sc->network.value != IR_NET_DENY;
	return 0;
}

int
acl_build(const struct ir_policy *ir, struct acl_manifest **out)
{
	struct acl_manifest *a;
	struct acl_list l = {0};
	int rc;

	*out = NULL;
	if (!(ir->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return -ENOENT;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	acl_container_name(ir->source_digest, a->name);
	rc = acl_appcontainer_sid(a->name, a->sid, sizeof(a->sid));
	a->m.name = a->name;
	a->m.sid = a->sid;
	if (!rc)
		rc = add_capabilities(a, ir);
	if (!rc)
		rc = set_job(&a->m, &ir->scalar[IR_WINDOWS]);
	if (!rc)
		rc = add_paths(&l, ir);
	if (!rc)
		rc = add_workdir(&l, ir);
	if (!rc) {
		/* Each-writable paths expand over the writable entries,
		 * which must be sorted and merged first. */
		sort_and_merge(&l);
		rc = add_readonly(&l, ir);
	}
	if (!rc)
		sort_and_merge(&l);
	a->entries = l.v;
	a->m.entries = l.v;
	a->m.nentries = l.n;
	if (rc) {
		acl_manifest_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void
acl_manifest_free(struct acl_manifest *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->m.nentries; i++)
		free((char *)a->entries[i].path);
	free(a->entries);
	for (size_t i = 0; a->caps && i < a->m.ncapabilities; i++)
		free(a->caps[i]);
	free(a->caps);
	free(a);
}

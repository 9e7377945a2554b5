/* SPDX-License-Identifier: MIT
 * IR -> Landlock table, and the table's encoder. The lowering decides
 * what each mode means in Landlock rights and which denies need heel-exec
 * to expand a grant at launch (Landlock rules only add); the encoder
 * writes the bytes runtime/landlock_table.c reads. docs/landlock.md. */
#include "landlock_lower.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "landlock_abi.h"

/* A grant that reaches device nodes: /dev, what is in it, and "/" (as
 * `isolation permissive` grants it: everything, devices included). A
 * grant of "/" without IOCTL_DEV would also be a right a kernel before
 * ABI 5 cannot withhold, so every such policy would be refused there. */
bool
ll_path_is_device(const char *path)
{
	return strcmp(path, "/") == 0 ||
	       (strncmp(path, "/dev", 4) == 0 && (path[4] == '\0' || path[4] == '/'));
}

uint64_t
ll_mode_access(unsigned mode, bool device)
{
	uint64_t a = 0;

	if (mode == IR_MODE_DENY)
		return 0;
	/* Write and exec imply read: a program cannot be run, nor a file
	 * rewritten in place, without reading it. */
	a = LL_ACCESS_READ;
	if (mode & IR_WRITE)
		a |= LL_ACCESS_WRITE;
	if (mode & IR_EXEC)
		a |= LL_ACCESS_EXEC;
	/* Any device grant, even `r`: isatty() and terminal programs need
	 * TCGETS and friends on a device they opened; TIOCSTI/TIOCLINUX are
	 * denied by seccomp whatever Landlock says. */
	if (device)
		a |= LL_FS_IOCTL_DEV;
	return a;
}

void
ll_table_free(struct ll_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrules; i++) {
		free(t->rules[i].path);
		free(t->rules[i].origin_file);
	}
	free(t->rules);
	free(t);
}

/* One path after merging every linux rule that names it. */
struct merged {
	const char *path;
	const char *key;         /* path without a leading "./": relative paths compare equal */
	unsigned mode;           /* union of the grants' modes; 0 = deny only */
	bool grant;
	bool optional;
	const struct ir_origin *origin;
};

static int
cmp_merged(const void *a, const void *b)
{
	return strcmp(((const struct merged *)a)->key, ((const struct merged *)b)->key);
}

static const char *
path_key(const char *p)
{
	return (p[0] == '.' && p[1] == '/') ? p + 2 : p;
}

static struct merged *
find_key(struct merged *m, size_t n, const char *key, size_t keylen)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(m[mid].key, key, keylen);

		if (c == 0 && m[mid].key[keylen] != '\0')
			c = 1;
		if (c == 0)
			return &m[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Ancestors of m[i] that are rules, nearest first, by looking up each
 * proper prefix that ends before a '/'. "/" is the ancestor of every
 * absolute path. Returns how many were written (at most cap). */
static size_t
ancestors(struct merged *m, size_t n, size_t i, struct merged **out, size_t cap)
{
	const char *key = m[i].key;
	size_t len = strlen(key), k = 0;

	for (size_t j = len; j-- > 0 && k < cap;) {
		struct merged *a;

		if (key[j] != '/')
			continue;
		a = find_key(m, n, key, j ? j : 1);
		if (a && a != &m[i])
			out[k++] = a;
	}
	/* A template (${HOME}/x) or a relative path expands to an absolute
	 * path, so "/" is its ancestor too; other absolute grants may turn
	 * out to be, which only heel-exec can tell after expansion. */
	if (key[0] != '/' && k < cap) {
		struct merged *a = find_key(m, n, "/", 1);

		if (a)
			out[k++] = a;
	}
	return k;
}

/* Does a rule with `inner` rights narrow a grant with `outer` rights? */
static bool
narrows(uint64_t inner, uint64_t outer)
{
	return (outer & ~inner) != 0;
}

static int
merge_rules(const struct ir_policy *p, struct merged **out, size_t *nout)
{
	struct merged *m;
	size_t n = 0, w = 0;

	m = calloc(p->npaths + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* The python block's venv is a grant of its own: read and run, or
	 * with allow-pip-install also written (rwx, said by explain). So the
	 * launcher's machinery for grants holds it as it holds any: a
	 * read-only place, narrowed out of a writable grant above it. It is
	 * optional only because heel-exec makes it before the plan is
	 * built; `heel-exec check`, which makes nothing, plans without it. */
	if (p->python[IR_LINUX].set && p->python[IR_LINUX].venv) {
		const struct ir_python *py = &p->python[IR_LINUX];

		m[n].path = py->venv;
		m[n].key = path_key(py->venv);
		m[n].mode = py->allow_pip_install ? IR_MODE_RWX : IR_MODE_RX;
		m[n].grant = true;
		m[n].optional = true;
		m[n].origin = &py->origin;
		n++;
	}
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ir_path_rule *r = &p->paths[i];

		if (!(r->platforms & IR_PLAT_BIT(IR_LINUX)))
			continue;
		m[n].path = r->path;
		m[n].key = path_key(r->path);
		m[n].mode = r->mode;
		m[n].grant = r->mode != IR_MODE_DENY;
		m[n].optional = r->optional || !m[n].grant;
		m[n].origin = &r->origin;
		n++;
	}
	/* Stable enough: equal keys are merged below and the merge is order-
	 * independent except for the origin, taken from the first grant in IR
	 * order (qsort is not stable, so pick by origin explicitly). */
	qsort(m, n, sizeof(*m), cmp_merged);
	for (size_t i = 0; i < n; i++) {
		if (w && strcmp(m[w - 1].key, m[i].key) == 0) {
			struct merged *d = &m[w - 1];

			if (m[i].grant && !d->grant) {
				/* Tie goes to the grant: a deny of the very path
				 * is a default protection the grant opens. */
				*d = m[i];
			} else if (m[i].grant && d->grant) {
				/* Two grants of one path keep the union; one that
				 * must exist makes the merged rule required. */
				d->mode |= m[i].mode;
				d->optional = d->optional && m[i].optional;
				if (m[i].origin->line < d->origin->line ||
				    (m[i].origin->line == d->origin->line &&
				     strcmp(m[i].origin->file ? m[i].origin->file : "",
					    d->origin->file ? d->origin->file : "") < 0))
					d->origin = m[i].origin;
			}
			continue;
		}
		m[w++] = m[i];
	}
	*out = m;
	*nout = w;
	return 0;
}

int
ll_lower(const struct ir_policy *p, struct ll_table **out)
{
	struct ll_table *t;
	struct merged *m = NULL;
	struct merged *anc[2048]; /* PATH_MAX / 2 components at most */
	size_t n = 0;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->handled_fs = LL_HANDLED_FS;
	t->handled_net = LL_HANDLED_NET;
	t->scoped = LL_HANDLED_SCOPES;
	t->min_abi = (uint32_t)ll_masks_min_abi(t->handled_fs, t->handled_net, t->scoped);
	if (p->scalar[IR_LINUX].network.value != IR_NET_DENY)
		t->flags |= LL_TF_NET_PROXY;

	rc = merge_rules(p, &m, &n);
	if (rc)
		goto fail;
	t->rules = calloc(n ? n : 1, sizeof(*t->rules));
	if (!t->rules) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct ll_rule *r = &t->rules[t->nrules];
		bool device = ll_path_is_device(m[i].key);

		r->path = strdup(m[i].path);
		r->origin_file = m[i].origin->file ? strdup(m[i].origin->file) : NULL;
		r->origin_line = m[i].origin->line;
		t->nrules++;
		if (!r->path || (m[i].origin->file && !r->origin_file)) {
			rc = -ENOMEM;
			goto fail;
		}
		if (m[i].optional)
			r->flags |= LL_RF_OPTIONAL;
		if (m[i].grant) {
			r->kind = LL_KIND_GRANT;
			r->access = ll_mode_access(m[i].mode, device);
			if (device)
				r->flags |= LL_RF_DEVICE;
		} else {
			size_t na = ancestors(m, n, i, anc, sizeof(anc) / sizeof(anc[0]));

			/* A grant G is expanded around this deny when no rule
			 * between them already narrows G (that rule is then
			 * what G is expanded around, and it covers us). The
			 * deny needs a mount namespace for full function when
			 * such a G is writable. */
			r->kind = LL_KIND_INERT;
			for (size_t k = 0; k < na; k++) {
				uint64_t ga;
				bool shadowed = false;

				if (!anc[k]->grant)
					continue;
				ga = ll_mode_access(anc[k]->mode, false);
				for (size_t j = 0; j < k && !shadowed; j++)
					shadowed = narrows(anc[j]->grant ?
							   ll_mode_access(anc[j]->mode, false) : 0, ga);
				if (shadowed)
					continue;
				r->kind = LL_KIND_CARVE;
				if (anc[k]->mode & IR_WRITE)
					r->flags |= LL_RF_NEEDS_MOUNTNS;
			}
		}
		r->min_abi = ll_fs_min_abi(r->access);
	}
	free(m);
	*out = t;
	return 0;
fail:
	free(m);
	ll_table_free(t);
	return rc;
}

/* ------------------------------------------------------------ encoder */

struct strtab {
	char *buf;
	size_t len, cap;
	uint32_t *slots;        /* open addressing: offset + 1, 0 = empty */
	size_t nslots;
};

/* Interns `s`; returns its offset or -1 on overflow / out-of-memory. */
static int64_t
strtab_add(struct strtab *st, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t i = (size_t)(hash_fnv1a(s) & (st->nslots - 1));
	char *b;

	while (st->slots[i]) {
		uint32_t off = st->slots[i] - 1;

		if (strcmp(st->buf + off, s) == 0)
			return off;
		i = (i + 1) & (st->nslots - 1);
	}
	if (st->len + n > UINT32_MAX - 8)
		return -1;
	b = grow_array(st->buf, &st->cap, st->len + n, 1, 256);
	if (!b)
		return -1;
	st->buf = b;
	memcpy(st->buf + st->len, s, n);
	st->slots[i] = (uint32_t)st->len + 1;
	st->len += n;
	return (int64_t)(st->len - n);
}

static int
cmp_rule_ptr(const void *a, const void *b)
{
	const struct ll_rule *x = *(const struct ll_rule *const *)a;
	const struct ll_rule *y = *(const struct ll_rule *const *)b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

int
ll_table_encode(const struct ll_table *t, uint8_t **out, size_t *len)
{
	const struct ll_rule **sorted = NULL;
	struct strtab st = { 0 };
	struct ll_table_view check;
	uint8_t *buf = NULL;
	size_t size, padded;
	int rc = -ENOMEM;

	*out = NULL;
	*len = 0;
	if (t->nrules > (UINT32_MAX - LL_TABLE_HEADER_SIZE) / LL_TABLE_RULE_SIZE / 2)
		return -EINVAL;
	sorted = malloc((t->nrules ? t->nrules : 1) * sizeof(*sorted));
	st.nslots = 64;
	while (st.nslots < t->nrules * 4)
		st.nslots *= 2;
	st.slots = calloc(st.nslots, sizeof(*st.slots));
	if (!sorted || !st.slots)
		goto out;
	for (size_t i = 0; i < t->nrules; i++)
		sorted[i] = &t->rules[i];
	qsort(sorted, t->nrules, sizeof(*sorted), cmp_rule_ptr);

	/* Strings in rule order, so the area is canonical too. */
	for (size_t i = 0; i < t->nrules; i++) {
		if (strtab_add(&st, sorted[i]->path) < 0 ||
		    (sorted[i]->origin_file && strtab_add(&st, sorted[i]->origin_file) < 0))
			goto out;
	}
	padded = (st.len + 7u) & ~(size_t)7u;
	size = LL_TABLE_HEADER_SIZE + t->nrules * LL_TABLE_RULE_SIZE + padded;
	buf = calloc(1, size);
	if (!buf)
		goto out;
	le_put32(buf + LL_HDR_VERSION, LL_TABLE_VERSION);
	le_put32(buf + LL_HDR_MIN_ABI, t->min_abi);
	le_put64(buf + LL_HDR_HANDLED_FS, t->handled_fs);
	le_put64(buf + LL_HDR_HANDLED_NET, t->handled_net);
	le_put64(buf + LL_HDR_SCOPED, t->scoped);
	le_put32(buf + LL_HDR_RULE_COUNT, (uint32_t)t->nrules);
	le_put32(buf + LL_HDR_STRINGS_SIZE, (uint32_t)st.len);
	le_put32(buf + LL_HDR_FLAGS, t->flags);
	for (size_t i = 0; i < t->nrules; i++) {
		const struct ll_rule *r = sorted[i];
		uint8_t *p = buf + LL_TABLE_HEADER_SIZE + i * LL_TABLE_RULE_SIZE;

		le_put32(p + LL_RULE_KIND, r->kind);
		le_put32(p + LL_RULE_FLAGS, r->flags);
		le_put32(p + LL_RULE_STR, (uint32_t)strtab_add(&st, r->path));
		le_put32(p + LL_RULE_MIN_ABI, r->min_abi);
		le_put64(p + LL_RULE_ACCESS, r->access);
		le_put32(p + LL_RULE_ORIGIN_STR, r->origin_file ?
			 (uint32_t)strtab_add(&st, r->origin_file) : LL_STR_NONE);
		le_put32(p + LL_RULE_ORIGIN_LINE, r->origin_line);
	}
	if (st.len)
		memcpy(buf + LL_TABLE_HEADER_SIZE + t->nrules * LL_TABLE_RULE_SIZE, st.buf, st.len);

	/* heelc never writes what heel-exec would refuse: the same validator
	 * runs on the output (duplicates, unknown bits, bad paths). */
	if (ll_table_parse(buf, size, &check, NULL, 0) != 0) {
		rc = -EINVAL;
		goto out;
	}
	*out = buf;
	*len = size;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(sorted);
	free(st.buf);
	free(st.slots);
	return rc;
}

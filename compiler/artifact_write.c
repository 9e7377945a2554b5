/* SPDX-License-Identifier: MIT
 * IR -> .hpol bytes. Each common section is built into its own buffer
 * while the string table fills in order of first use; when the policy is
 * built for linux the backend's sections follow (the Landlock table from
 * ll_lower, one seccomp program per architecture from bpf_build), derived
 * from the IR alone so that write(load(x)) == x. Then the file is laid out
 * (header, section table, sections in a fixed order, each 8-aligned),
 * checksummed and validated with the launcher's own reader. */
#include "artifact_write.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "artifact_read.h"
#include "crc32c.h"
#include "grow.h"
#include "hash.h"
#include "landlock_lower.h"
#include "acl_build.h"
#include "sbpl_emit.h"
#include "seccomp_bpf.h"

/* The format stores IR enumerations as they are; keep them in step.
 * (int) because the two sides are different enumeration types. */
#define SAME(a, b) ((int)(a) == (int)(b))
static_assert(SAME(IR_LINUX, ART_LINUX) && SAME(IR_MACOS, ART_MACOS) &&
		  SAME(IR_WINDOWS, ART_WINDOWS) && SAME(IR_PLATFORM_COUNT, ART_PLATFORM_COUNT),
	      "platform numbering");
static_assert(IR_PLAT_ALL == ART_PLAT_ALL, "platform mask");
static_assert(SAME(IR_READ, ART_READ) && SAME(IR_WRITE, ART_WRITE) && SAME(IR_EXEC, ART_EXEC),
	      "access bits");
static_assert(SAME(IR_SET_COUNT, ART_SET_COUNT) && SAME(IR_SET_NONE, ART_SET_NONE),
	      "protection sets");
static_assert(SAME(IR_SRC_USER, ART_SRC_USER), "rule sources");
static_assert(SAME(IR_LIMIT_COUNT, ART_LIMIT_COUNT), "limits");
static_assert(SAME(IR_SECCOMP_DENY, ART_SECCOMP_DENY) && SAME(IR_SECCOMP_ALLOW, ART_SECCOMP_ALLOW),
	      "seccomp actions");
static_assert(SAME(IR_IPC_STRING, ART_IPC_ARG_STRING) && SAME(IR_IPC_INT, ART_IPC_ARG_INT) &&
		  SAME(IR_IPC_BOOL, ART_IPC_ARG_BOOL) && SAME(IR_IPC_PATH, ART_IPC_ARG_PATH) &&
		  SAME(IR_IPC_ARG_TYPE_COUNT, ART_IPC_ARG_TYPE_COUNT),
	      "ipc argument types");
static_assert(SAME(IR_NET_ALLOW_LIST, 2) && SAME(IR_AUDIT_DAILY, 2) && SAME(IR_ISO_PERMISSIVE, 2) &&
		  SAME(IR_IO_BACKGROUND, 2),
	      "scalar ranges checked by the reader");

/* The order the common sections appear in the file and the table
 * (DECIDER only when a platform has a decider, READONLY only when a
 * path is kept read-only, IPC_ARGS only when a command has an `arg`
 * line); the Linux sections
 * follow: LINUX_LANDLOCK, then SECCOMP_BPF for each arch in enum
 * scp_arch order. */
static const uint32_t section_order[] = {
    ART_SEC_STRTAB, ART_SEC_SCALARS, ART_SEC_PATHS, ART_SEC_ENV,  ART_SEC_NETWORK,
    ART_SEC_IPC,    ART_SEC_PYTHON,  ART_SEC_EXTRAS, ART_SEC_META, ART_SEC_DECIDER,
    ART_SEC_READONLY, ART_SEC_IPC_ARGS,
};
#define NCOMMON (sizeof(section_order) / sizeof(section_order[0]))
#define MAX_SECTIONS (NCOMMON + 1 + SCP_ARCH_COUNT + 4)
static_assert(SCP_ARCH_COUNT == ART_BPF_ARCH_COUNT, "one program per artifact architecture");

struct buf {
	uint8_t *data;
	size_t len, cap;
};

struct writer {
	struct buf sec[ART_SEC_COMMON_MAX + 1];
	struct buf landlock;		  /* LINUX_LANDLOCK payload */
	struct buf bpf[SCP_ARCH_COUNT];	  /* SECCOMP_BPF payloads */
	bool decider_on;		  /* the DECIDER section is written */
	bool readonly_on;		  /* the READONLY section is written */
	bool ipc_args_on;		  /* the IPC_ARGS section is written */
	bool linux_on;			  /* the Linux sections are written */
	struct buf sbpl_text, sbpl_params; /* SBPL_TEXT, SBPL_PARAMS payloads */
	bool macos_on;			  /* the macOS sections are written */
	struct buf win_box, win_aces;	  /* WIN_CONTAINER, WIN_ACES payloads */
	bool windows_on;		  /* the Windows sections are written */
	uint32_t min_landlock_abi;	  /* header field */
	uint32_t *slots; /* string hash: offset + 1, 0 = empty */
	size_t nslots, nstrings;
	int rc; /* first error; later calls do nothing */
};

/* Appends n zeroed bytes and returns them, or NULL (w->rc set). Zeroing
 * here is what makes padding and reserved fields reproducible. */
static uint8_t *
grow(struct writer *w, struct buf *b, size_t n)
{
	uint8_t *d;

	if (w->rc)
		return NULL;
	if (n > ART_MAX_FILE_SIZE - b->len) {
		w->rc = -EFBIG;
		return NULL;
	}
	d = grow_array(b->data, &b->cap, b->len + n, 1, 256);
	if (!d) {
		w->rc = -ENOMEM;
		return NULL;
	}
	b->data = d;
	memset(b->data + b->len, 0, n);
	b->len += n;
	return b->data + b->len - n;
}

static bool
rehash(struct writer *w)
{
	size_t n = w->nslots ? w->nslots * 2 : 256;
	uint32_t *slots = calloc(n, sizeof(*slots));
	const struct buf *tab = &w->sec[ART_SEC_STRTAB];

	if (!slots) {
		w->rc = -ENOMEM;
		return false;
	}
	for (size_t i = 0; i < w->nslots; i++) {
		uint32_t v = w->slots[i];
		size_t j;

		if (!v)
			continue;
		j = hash_fnv1a((const char *)tab->data + v - 1) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = v;
	}
	free(w->slots);
	w->slots = slots;
	w->nslots = n;
	return true;
}

/* Offset of s in the string table, adding it on first use; NULL gives
 * ART_STR_NONE. Deduplication keeps the table small and, since the walk
 * over the IR is fixed, the table's order is reproducible. */
static uint32_t
str(struct writer *w, const char *s)
{
	struct buf *tab = &w->sec[ART_SEC_STRTAB];
	size_t n, j;
	uint8_t *p;
	uint32_t off;

	if (!s || w->rc)
		return ART_STR_NONE;
	if (2 * (w->nstrings + 1) > w->nslots && !rehash(w))
		return ART_STR_NONE;
	for (j = hash_fnv1a(s) & (w->nslots - 1); w->slots[j]; j = (j + 1) & (w->nslots - 1))
		if (strcmp((const char *)tab->data + w->slots[j] - 1, s) == 0)
			return w->slots[j] - 1;
	n = strlen(s) + 1;
	off = (uint32_t)tab->len; /* < ART_MAX_FILE_SIZE, see grow() */
	p = grow(w, tab, n);
	if (!p)
		return ART_STR_NONE;
	memcpy(p, s, n);
	w->slots[j] = off + 1;
	w->nstrings++;
	return off;
}

/* A string the format requires: NULL is an IR the writer cannot store. */
static uint32_t
req(struct writer *w, const char *s)
{
	if (!s && !w->rc)
		w->rc = -EINVAL;
	return str(w, s);
}

static uint32_t
count32(struct writer *w, size_t n)
{
	if (n > UINT32_MAX / 2 && !w->rc)
		w->rc = -EINVAL;
	return (uint32_t)n;
}

static void
put_origin(struct writer *w, uint8_t *o, const struct ir_origin *origin)
{
	le_put32(o + offsetof(struct art_rec_origin, file), str(w, origin->file));
	le_put32(o + offsetof(struct art_rec_origin, line), origin->line);
	le_put32(o + offsetof(struct art_rec_origin, col), origin->col);
}

/* The table header of a table section; records follow. */
static void
put_table(struct writer *w, uint32_t type, size_t count, size_t record_size, size_t nitems)
{
	uint8_t *t = grow(w, &w->sec[type], sizeof(struct art_rec_table));

	if (!t)
		return;
	le_put32(t + offsetof(struct art_rec_table, count), count32(w, count));
	le_put32(t + offsetof(struct art_rec_table, record_size), (uint32_t)record_size);
	le_put32(t + offsetof(struct art_rec_table, nitems), count32(w, nitems));
}

static void
put_item(struct writer *w, uint32_t type, const char *s)
{
	uint32_t off = req(w, s);
	uint8_t *p = grow(w, &w->sec[type], ART_ITEM_SIZE);

	if (p)
		le_put32(p, off);
}

static void
write_scalar_u64(struct writer *w, uint8_t *s, const struct ir_u64 *v)
{
	le_put64(s + offsetof(struct art_rec_scalar, value), v->value);
	le_put32(s + offsetof(struct art_rec_scalar, str), ART_STR_NONE);
	le_put32(s + offsetof(struct art_rec_scalar, set), v->set ? 1 : 0);
	put_origin(w, s + offsetof(struct art_rec_scalar, origin), &v->origin);
}

static void
write_scalar_str(struct writer *w, uint8_t *s, const struct ir_str *v)
{
	le_put32(s + offsetof(struct art_rec_scalar, str), str(w, v->value));
	le_put32(s + offsetof(struct art_rec_scalar, set), v->value ? 1 : 0);
	put_origin(w, s + offsetof(struct art_rec_scalar, origin), &v->origin);
}

static void
write_scalars(struct writer *w, const struct ir_policy *p)
{
	const size_t rsize =
	    sizeof(struct art_rec_scalars) + ART_SC_COUNT * sizeof(struct art_rec_scalar);

	put_table(w, ART_SEC_SCALARS, ART_PLATFORM_COUNT, rsize, ART_SC_COUNT);
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_scalars *sc = &p->scalar[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_SCALARS], rsize);
		uint8_t *item;

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_scalars, platform), i);
		le_put32(r + offsetof(struct art_rec_scalars, enabled), (p->platforms >> i) & 1u);
		item = r + sizeof(struct art_rec_scalars);
#define ITEM(id) (item + (size_t)(id) * sizeof(struct art_rec_scalar))
		write_scalar_u64(w, ITEM(ART_SC_ISOLATION), &sc->isolation);
		write_scalar_u64(w, ITEM(ART_SC_NETWORK), &sc->network);
		write_scalar_u64(w, ITEM(ART_SC_ALLOW_PRIVATE), &sc->allow_private);
		write_scalar_u64(w, ITEM(ART_SC_AUDIT_KIND), &sc->audit_kind);
		write_scalar_str(w, ITEM(ART_SC_AUDIT_PATH), &sc->audit_path);
		for (unsigned l = 0; l < IR_LIMIT_COUNT; l++)
			write_scalar_u64(w, ITEM(ART_SC_LIMIT_FIRST + l), &sc->limits[l]);
		write_scalar_u64(w, ITEM(ART_SC_NICE), &sc->nice);
		write_scalar_u64(w, ITEM(ART_SC_IO_PRIORITY), &sc->io_priority);
		write_scalar_u64(w, ITEM(ART_SC_GPU), &sc->gpu);
		write_scalar_str(w, ITEM(ART_SC_WORKDIR), &sc->workdir);
		write_scalar_u64(w, ITEM(ART_SC_PROTECTIONS), &sc->protections);
		write_scalar_u64(w, ITEM(ART_SC_UNIX_SOCKETS), &sc->unix_sockets);
#undef ITEM
	}
}

static void
write_paths(struct writer *w, const struct ir_policy *p)
{
	put_table(w, ART_SEC_PATHS, p->npaths, sizeof(struct art_rec_path), 0);
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ir_path_rule *pr = &p->paths[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_PATHS], sizeof(struct art_rec_path));

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_path, path), req(w, pr->path));
		r[offsetof(struct art_rec_path, mode)] = pr->mode;
		r[offsetof(struct art_rec_path, platforms)] = pr->platforms;
		r[offsetof(struct art_rec_path, optional)] = pr->optional ? 1 : 0;
		r[offsetof(struct art_rec_path, set)] = pr->set;
		r[offsetof(struct art_rec_path, source)] = pr->source;
		put_origin(w, r + offsetof(struct art_rec_path, origin), &pr->origin);
	}
}

static void
put_env(struct writer *w, uint8_t kind, const char *name, const char *value, uint8_t platforms,
	const struct ir_origin *origin)
{
	uint8_t *r = grow(w, &w->sec[ART_SEC_ENV], sizeof(struct art_rec_env));

	if (!r)
		return;
	le_put32(r + offsetof(struct art_rec_env, name), req(w, name));
	le_put32(r + offsetof(struct art_rec_env, value),
		  kind == ART_ENV_SET ? req(w, value) : ART_STR_NONE);
	r[offsetof(struct art_rec_env, kind)] = kind;
	r[offsetof(struct art_rec_env, platforms)] = platforms;
	put_origin(w, r + offsetof(struct art_rec_env, origin), origin);
}

static void
write_env(struct writer *w, const struct ir_policy *p)
{
	put_table(w, ART_SEC_ENV, p->nenv_pass + p->nenv_set, sizeof(struct art_rec_env), 0);
	for (size_t i = 0; i < p->nenv_pass; i++)
		put_env(w, ART_ENV_PASS, p->env_pass[i].name, NULL, p->env_pass[i].platforms,
			&p->env_pass[i].origin);
	for (size_t i = 0; i < p->nenv_set; i++)
		put_env(w, ART_ENV_SET, p->env_set[i].name, p->env_set[i].value,
			p->env_set[i].platforms, &p->env_set[i].origin);
}

static void
write_network(struct writer *w, const struct ir_policy *p)
{
	put_table(w, ART_SEC_NETWORK, p->npatterns, sizeof(struct art_rec_net), 0);
	for (size_t i = 0; i < p->npatterns; i++) {
		const struct ir_net_pattern *np = &p->patterns[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_NETWORK], sizeof(struct art_rec_net));

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_net, host), req(w, np->host));
		le_put16(r + offsetof(struct art_rec_net, port), np->port);
		r[offsetof(struct art_rec_net, platforms)] = np->platforms;
		put_origin(w, r + offsetof(struct art_rec_net, origin), &np->origin);
	}
}

static void
write_ipc(struct writer *w, const struct ir_policy *p)
{
	size_t nargs = 0;

	for (size_t i = 0; i < p->nipc; i++)
		nargs += p->ipc[i].npositionals;
	put_table(w, ART_SEC_IPC, p->nipc, sizeof(struct art_rec_ipc), nargs);
	nargs = 0;
	for (size_t i = 0; i < p->nipc; i++) {
		const struct ir_ipc *c = &p->ipc[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_IPC], sizeof(struct art_rec_ipc));

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_ipc, name), req(w, c->name));
		le_put32(r + offsetof(struct art_rec_ipc, exec), str(w, c->exec));
		le_put32(r + offsetof(struct art_rec_ipc, first_arg), count32(w, nargs));
		le_put32(r + offsetof(struct art_rec_ipc, nargs), count32(w, c->npositionals));
		le_put64(r + offsetof(struct art_rec_ipc, timeout_ms), c->timeout_ms);
		r[offsetof(struct art_rec_ipc, platforms)] = c->platforms;
		put_origin(w, r + offsetof(struct art_rec_ipc, origin), &c->origin);
		nargs += c->npositionals;
	}
	for (size_t i = 0; i < p->nipc; i++)
		for (size_t j = 0; j < p->ipc[i].npositionals; j++)
			put_item(w, ART_SEC_IPC, p->ipc[i].positionals[j]);
}

static void
write_python(struct writer *w, const struct ir_policy *p)
{
	size_t npkg = 0;

	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++)
		npkg += p->python[i].npackages;
	put_table(w, ART_SEC_PYTHON, IR_PLATFORM_COUNT, sizeof(struct art_rec_python), npkg);
	npkg = 0;
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_python *py = &p->python[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_PYTHON], sizeof(struct art_rec_python));

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_python, platform), i);
		le_put32(r + offsetof(struct art_rec_python, set), py->set ? 1 : 0);
		le_put32(r + offsetof(struct art_rec_python, venv), str(w, py->venv));
		le_put32(r + offsetof(struct art_rec_python, allow_pip_install),
			  py->allow_pip_install ? 1 : 0);
		le_put32(r + offsetof(struct art_rec_python, first_package), count32(w, npkg));
		le_put32(r + offsetof(struct art_rec_python, npackages),
			  count32(w, py->npackages));
		put_origin(w, r + offsetof(struct art_rec_python, origin), &py->origin);
		npkg += py->npackages;
	}
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++)
		for (size_t j = 0; j < p->python[i].npackages; j++)
			put_item(w, ART_SEC_PYTHON, p->python[i].packages[j]);
}

static void
put_extra(struct writer *w, uint32_t kind, const char *value, unsigned platform, uint8_t action,
	  uint16_t errno_value, const struct ir_origin *origin)
{
	uint8_t *r = grow(w, &w->sec[ART_SEC_EXTRAS], sizeof(struct art_rec_extra));

	if (!r)
		return;
	le_put32(r + offsetof(struct art_rec_extra, kind), kind);
	le_put32(r + offsetof(struct art_rec_extra, value), req(w, value));
	r[offsetof(struct art_rec_extra, platforms)] = (uint8_t)ART_PLAT_BIT(platform);
	r[offsetof(struct art_rec_extra, action)] = action;
	le_put16(r + offsetof(struct art_rec_extra, errno_value), errno_value);
	put_origin(w, r + offsetof(struct art_rec_extra, origin), origin);
}

static void
write_extras(struct writer *w, const struct ir_policy *p)
{
	static const struct ir_origin none;
	size_t n = p->nseccomp + p->nmach_lookups + p->nsbpl + p->ncapabilities;

	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++)
		n += p->excluded_reason[i] != NULL;
	put_table(w, ART_SEC_EXTRAS, n, sizeof(struct art_rec_extra), 0);
	for (size_t i = 0; i < p->nseccomp; i++)
		put_extra(w, ART_EXTRA_SECCOMP, p->seccomp[i].syscall, IR_LINUX,
			  p->seccomp[i].action, p->seccomp[i].errno_value, &p->seccomp[i].origin);
	for (size_t i = 0; i < p->nmach_lookups; i++)
		put_extra(w, ART_EXTRA_MACH_LOOKUP, p->mach_lookups[i].value, IR_MACOS, 0, 0,
			  &p->mach_lookups[i].origin);
	for (size_t i = 0; i < p->nsbpl; i++)
		put_extra(w, ART_EXTRA_SBPL, p->sbpl[i].value, IR_MACOS, 0, 0, &p->sbpl[i].origin);
	for (size_t i = 0; i < p->ncapabilities; i++)
		put_extra(w, ART_EXTRA_CAPABILITY, p->capabilities[i].value, IR_WINDOWS, 0, 0,
			  &p->capabilities[i].origin);
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++)
		if (p->excluded_reason[i])
			put_extra(w, ART_EXTRA_EXCLUDED, p->excluded_reason[i], i, 0, 0, &none);
}

static void
write_meta(struct writer *w, const struct ir_policy *p)
{
	uint32_t version = str(w, ARTIFACT_COMPILER_VERSION);
	uint32_t source = str(w, p->source_name);
	uint8_t *m = grow(w, &w->sec[ART_SEC_META], sizeof(struct art_rec_meta));

	if (!m)
		return;
	le_put32(m + offsetof(struct art_rec_meta, compiler_version), version);
	memcpy(m + offsetof(struct art_rec_meta, source_digest), p->source_digest,
	       sizeof(p->source_digest));
	/* 1.2: the top source file, for heel-exec's stale-artifact warning. */
	le_put32(m + offsetof(struct art_rec_meta, source_name), source);
	le_put32(m + offsetof(struct art_rec_meta, source_crc), p->source_name ? p->source_crc : 0);
	le_put64(m + offsetof(struct art_rec_meta, source_size),
		 p->source_name ? p->source_size : 0);
}

/* DECIDER: only when a platform has one, so that an artifact without a
 * decider stays readable by a 1.0 launcher. */
static void
write_decider(struct writer *w, const struct ir_policy *p)
{
	static const struct ir_origin none;
	size_t nargs = 0;

	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		w->decider_on |= p->decider[i].program != NULL;
		nargs += p->decider[i].nargs;
	}
	if (!w->decider_on)
		return;
	put_table(w, ART_SEC_DECIDER, IR_PLATFORM_COUNT, sizeof(struct art_rec_decider), nargs);
	nargs = 0;
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_decider *d = &p->decider[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_DECIDER], sizeof(struct art_rec_decider));
		size_t n = d->program ? d->nargs : 0;

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_decider, platform), i);
		le_put32(r + offsetof(struct art_rec_decider, program), str(w, d->program));
		le_put32(r + offsetof(struct art_rec_decider, first_arg), count32(w, nargs));
		le_put32(r + offsetof(struct art_rec_decider, nargs), count32(w, n));
		/* No program, no origin: {NONE, 0, 0}, the one encoding. */
		put_origin(w, r + offsetof(struct art_rec_decider, origin),
			   d->program ? &d->origin : &none);
		nargs += n;
	}
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++)
		for (size_t j = 0; p->decider[i].program && j < p->decider[i].nargs; j++)
			put_item(w, ART_SEC_DECIDER, p->decider[i].args[j]);
}

/* READONLY: only when there is one, so that an artifact without a
 * `readonly` (`unprotect host-run`) stays readable by a 1.1 launcher. */
static void
write_readonly(struct writer *w, const struct ir_policy *p)
{
	if (!p->nreadonly)
		return;
	w->readonly_on = true;
	put_table(w, ART_SEC_READONLY, p->nreadonly, sizeof(struct art_rec_readonly), 0);
	for (size_t i = 0; i < p->nreadonly; i++) {
		const struct ir_readonly *ro = &p->readonly[i];
		uint8_t *r = grow(w, &w->sec[ART_SEC_READONLY], sizeof(struct art_rec_readonly));

		if (!r)
			return;
		le_put32(r + offsetof(struct art_rec_readonly, path), req(w, ro->path));
		le_put32(r + offsetof(struct art_rec_readonly, because), str(w, ro->because));
		r[offsetof(struct art_rec_readonly, form)] =
			ro->each_writable ? ART_RO_EACH_WRITABLE : ART_RO_PATH;
		r[offsetof(struct art_rec_readonly, platforms)] = ro->platforms;
		r[offsetof(struct art_rec_readonly, set)] = ro->set;
		r[offsetof(struct art_rec_readonly, source)] = ro->source;
		put_origin(w, r + offsetof(struct art_rec_readonly, origin), &ro->origin);
	}
}

/* IPC_ARGS: only when a command has an `arg` line, so that an artifact
 * without one stays readable by a 1.2 launcher. */
static void
write_ipc_args(struct writer *w, const struct ir_policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nipc; i++)
		n += p->ipc[i].nargs;
	if (!n)
		return;
	w->ipc_args_on = true;
	put_table(w, ART_SEC_IPC_ARGS, n, sizeof(struct art_rec_ipc_arg), 0);
	for (size_t i = 0; i < p->nipc; i++) {
		for (size_t j = 0; j < p->ipc[i].nargs; j++) {
			const struct ir_ipc_arg *a = &p->ipc[i].args[j];
			uint8_t *r = grow(w, &w->sec[ART_SEC_IPC_ARGS], sizeof(struct art_rec_ipc_arg));

			if (!r)
				return;
			le_put32(r + offsetof(struct art_rec_ipc_arg, command), count32(w, i));
			le_put32(r + offsetof(struct art_rec_ipc_arg, name), req(w, a->name));
			r[offsetof(struct art_rec_ipc_arg, type)] = a->type;
		}
	}
}

/* LINUX_LANDLOCK: the payload format is the Landlock backend's own
 * (runtime/landlock_table.h); the artifact only carries it. */
static void
write_landlock(struct writer *w, const struct ir_policy *p)
{
	struct ll_table *t = NULL;
	uint8_t *bytes = NULL, *dst;
	size_t len = 0;
	int rc;

	if (w->rc)
		return;
	rc = ll_lower(p, &t);
	if (!rc)
		rc = ll_table_encode(t, &bytes, &len);
	if (!rc) {
		w->min_landlock_abi = t->min_abi;
		dst = grow(w, &w->landlock, len);
		if (dst)
			memcpy(dst, bytes, len);
	} else if (!w->rc) {
		w->rc = rc;
	}
	free(bytes);
	ll_table_free(t);
}

/* SECCOMP_BPF for one arch: struct art_bpf_header, then the program as
 * struct sock_filter in little-endian order. */
static void
write_bpf(struct writer *w, const struct ir_policy *p, enum scp_arch arch)
{
	struct bpf_prog prog;
	uint8_t *d;
	int rc;

	if (w->rc)
		return;
	rc = bpf_build(p, arch, &prog);
	if (rc) {
		w->rc = rc;
		return;
	}
	d = grow(w, &w->bpf[arch],
		 sizeof(struct art_bpf_header) + prog.len * ART_BPF_INSN_SIZE);
	if (d) {
		le_put32(d + offsetof(struct art_bpf_header, audit_arch), prog.audit_arch);
		le_put32(d + offsetof(struct art_bpf_header, insn_count), (uint32_t)prog.len);
		d += sizeof(struct art_bpf_header);
		for (size_t i = 0; i < prog.len; i++, d += ART_BPF_INSN_SIZE) {
			le_put16(d + offsetof(struct art_bpf_insn, code), prog.insns[i].code);
			d[offsetof(struct art_bpf_insn, jt)] = prog.insns[i].jt;
			d[offsetof(struct art_bpf_insn, jf)] = prog.insns[i].jf;
			le_put32(d + offsetof(struct art_bpf_insn, k), prog.insns[i].k);
		}
	}
	bpf_prog_free(&prog);
}

static void
write_linux(struct writer *w, const struct ir_policy *p)
{
	if (!(p->platforms & IR_PLAT_BIT(IR_LINUX)))
		return;
	w->linux_on = true;
	write_landlock(w, p);
	for (int a = 0; a < SCP_ARCH_COUNT; a++)
		write_bpf(w, p, (enum scp_arch)a);
}

/* SBPL_TEXT: the profile's bytes; SBPL_PARAMS: a table of struct
 * art_rec_sbpl_param (sbpl_emit.h, docs/sbpl.md). */
static void
write_macos(struct writer *w, const struct ir_policy *p)
{
	struct sbpl_profile prof;
	uint8_t *d;
	int rc;

	if (w->rc || !(p->platforms & IR_PLAT_BIT(IR_MACOS)))
		return;
	rc = sbpl_emit(p, &prof, NULL, 0);
	if (rc) {
		w->rc = rc;
		return;
	}
	w->macos_on = true;
	d = grow(w, &w->sbpl_text, prof.len);
	if (d)
		memcpy(d, prof.text, prof.len);
	d = grow(w, &w->sbpl_params, sizeof(struct art_rec_table));
	if (d) {
		le_put32(d + offsetof(struct art_rec_table, count), count32(w, prof.nparams));
		le_put32(d + offsetof(struct art_rec_table, record_size),
			 sizeof(struct art_rec_sbpl_param));
	}
	for (size_t i = 0; i < prof.nparams && !w->rc; i++) {
		const struct sbpl_param *q = &prof.params[i];
		uint8_t *r = grow(w, &w->sbpl_params, sizeof(struct art_rec_sbpl_param));

		if (!r)
			break;
		le_put32(r + offsetof(struct art_rec_sbpl_param, name), req(w, q->name));
		le_put32(r + offsetof(struct art_rec_sbpl_param, value), req(w, q->value));
		r[offsetof(struct art_rec_sbpl_param, kind)] = q->kind;
		r[offsetof(struct art_rec_sbpl_param, mode)] = q->mode;
		r[offsetof(struct art_rec_sbpl_param, optional)] = q->optional;
		le_put32(r + offsetof(struct art_rec_sbpl_param, rank), q->rank);
		put_origin(w, r + offsetof(struct art_rec_sbpl_param, origin), &q->origin);
	}
	sbpl_profile_free(&prof);
}

/* The table header of a Windows section (its buffer is not one of the
 * common ones put_table() fills). */
static void
put_win_table(struct writer *w, struct buf *b, size_t count, size_t record_size, size_t nitems)
{
	uint8_t *t = grow(w, b, sizeof(struct art_rec_table));

	if (!t)
		return;
	le_put32(t + offsetof(struct art_rec_table, count), count32(w, count));
	le_put32(t + offsetof(struct art_rec_table, record_size), (uint32_t)record_size);
	le_put32(t + offsetof(struct art_rec_table, nitems), count32(w, nitems));
}

/* WIN_CONTAINER and WIN_ACES, from the ACL backend's model, whenever the
 * policy is built for windows. */
static void
write_windows(struct writer *w, const struct ir_policy *p)
{
	struct acl_manifest *a = NULL;
	const struct win_manifest *m;
	uint8_t *r;
	int rc;

	if (w->rc || !(p->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return;
	rc = acl_build(p, &a);
	if (rc) {
		w->rc = rc;
		return;
	}
	m = &a->m;
	w->windows_on = true;
	put_win_table(w, &w->win_box, 1, sizeof(struct art_rec_win_container), m->ncapabilities);
	r = grow(w, &w->win_box, sizeof(struct art_rec_win_container));
	if (r) {
		le_put32(r + offsetof(struct art_rec_win_container, name), req(w, m->name));
		le_put32(r + offsetof(struct art_rec_win_container, sid), req(w, m->sid));
		le_put32(r + offsetof(struct art_rec_win_container, flags),
			 (m->lpac ? ART_WIN_CF_LPAC : 0) |
			     (m->loopback_required ? ART_WIN_CF_LOOPBACK : 0));
		r[offsetof(struct art_rec_win_container, priority_class)] = m->priority_class;
		le_put64(r + offsetof(struct art_rec_win_container, job_memory_bytes),
			 m->job_memory_bytes);
		le_put64(r + offsetof(struct art_rec_win_container, process_memory_bytes),
			 m->process_memory_bytes);
		le_put32(r + offsetof(struct art_rec_win_container, active_processes),
			 m->active_processes);
		le_put32(r + offsetof(struct art_rec_win_container, cpu_rate_percent),
			 m->cpu_rate_percent);
	}
	for (size_t j = 0; j < m->ncapabilities; j++) {
		uint8_t *it = grow(w, &w->win_box, ART_ITEM_SIZE);

		if (it)
			le_put32(it, req(w, m->capabilities[j]));
	}
	put_win_table(w, &w->win_aces, m->nentries, sizeof(struct art_rec_win_ace), 0);
	for (size_t i = 0; i < m->nentries; i++) {
		const struct win_entry *e = &m->entries[i];
		const struct ir_origin o = {e->origin_file, e->origin_line, e->origin_col};

		r = grow(w, &w->win_aces, sizeof(struct art_rec_win_ace));
		if (!r)
			break;
		le_put32(r + offsetof(struct art_rec_win_ace, path), req(w, e->path));
		le_put32(r + offsetof(struct art_rec_win_ace, mask), e->mask);
		r[offsetof(struct art_rec_win_ace, ace)] = e->ace;
		r[offsetof(struct art_rec_win_ace, kind)] = e->kind;
		r[offsetof(struct art_rec_win_ace, inherit)] = e->inherit;
		r[offsetof(struct art_rec_win_ace, label)] = e->label;
		r[offsetof(struct art_rec_win_ace, missing)] = e->missing;
		r[offsetof(struct art_rec_win_ace, parent_deny_delete_child)] =
		    e->parent_deny_delete_child;
		put_origin(w, r + offsetof(struct art_rec_win_ace, origin), &o);
	}
	acl_manifest_free(a);
}

static size_t
align_up(size_t n)
{
	return (n + ART_ALIGN - 1) & ~(size_t)(ART_ALIGN - 1);
}

struct placed {
	uint32_t type, flags;
	const struct buf *b;
};

/* The sections in file order; returns how many. */
static size_t
list_sections(const struct writer *w, struct placed *out)
{
	size_t n = 0;

	for (size_t i = 0; i < NCOMMON; i++) {
		uint32_t type = section_order[i];

		if ((type == ART_SEC_DECIDER && !w->decider_on) ||
		    (type == ART_SEC_READONLY && !w->readonly_on) ||
		    (type == ART_SEC_IPC_ARGS && !w->ipc_args_on))
			continue;
		out[n++] = (struct placed){type, type == ART_SEC_META ? 0 : ART_SECF_CRITICAL,
					   &w->sec[type]};
	}
	if (w->linux_on) {
		out[n++] = (struct placed){ART_SEC_LINUX_LANDLOCK, ART_SECF_CRITICAL, &w->landlock};
		for (int a = 0; a < SCP_ARCH_COUNT; a++)
			out[n++] = (struct placed){ART_SEC_SECCOMP_BPF,
						   ART_SECF_CRITICAL | ART_SECF_PER_ARCH, &w->bpf[a]};
	}
	/* Non-critical: a 1.3 reader on Linux skips them. */
	if (w->macos_on) {
		out[n++] = (struct placed){ART_SEC_SBPL_TEXT, 0, &w->sbpl_text};
		out[n++] = (struct placed){ART_SEC_SBPL_PARAMS, 0, &w->sbpl_params};
	}
	if (w->windows_on) {
		out[n++] = (struct placed){ART_SEC_WIN_CONTAINER, 0, &w->win_box};
		out[n++] = (struct placed){ART_SEC_WIN_ACES, 0, &w->win_aces};
	}
	return n;
}

/* Lays the sections out behind the header and the table and seals it. */
static int
assemble(struct writer *w, uint8_t **out, size_t *len)
{
	struct placed sec[MAX_SECTIONS];
	size_t nsec = list_sections(w, sec);
	size_t off[MAX_SECTIONS];
	size_t pos = ART_HEADER_SIZE + nsec * ART_SECTION_ENTRY_SIZE;
	uint8_t *f, *h, *e;

	for (size_t i = 0; i < nsec; i++) {
		off[i] = pos;
		pos = align_up(pos + sec[i].b->len);
		if (pos > ART_MAX_FILE_SIZE)
			return -EFBIG;
	}
	f = calloc(1, pos);
	if (!f)
		return -ENOMEM;
	h = f;
	memcpy(h, ART_MAGIC, ART_MAGIC_LEN);
	le_put16(h + offsetof(struct art_file_header, fmt_major), ART_FMT_MAJOR);
	le_put16(h + offsetof(struct art_file_header, fmt_minor), ART_FMT_MINOR);
	le_put16(h + offsetof(struct art_file_header, header_size), ART_HEADER_SIZE);
	le_put16(h + offsetof(struct art_file_header, section_count), (uint16_t)nsec);
	le_put32(h + offsetof(struct art_file_header, platform), ART_FILE_PLATFORM_NEUTRAL);
	le_put32(h + offsetof(struct art_file_header, min_landlock_abi), w->min_landlock_abi);
	le_put64(h + offsetof(struct art_file_header, file_size), pos);
	le_put64(h + offsetof(struct art_file_header, section_table_off), ART_HEADER_SIZE);
	for (size_t i = 0; i < nsec; i++) {
		const struct buf *b = sec[i].b;

		e = f + ART_HEADER_SIZE + i * ART_SECTION_ENTRY_SIZE;
		le_put32(e + offsetof(struct art_file_section, type), sec[i].type);
		le_put32(e + offsetof(struct art_file_section, flags), sec[i].flags);
		le_put64(e + offsetof(struct art_file_section, offset), off[i]);
		le_put64(e + offsetof(struct art_file_section, size), b->len);
		le_put32(e + offsetof(struct art_file_section, crc), crc32c_buf(b->data, b->len));
		if (b->len)
			memcpy(f + off[i], b->data, b->len);
	}
	le_put32(h + offsetof(struct art_file_header, body_crc),
		  crc32c_buf(f + ART_HEADER_SIZE, pos - ART_HEADER_SIZE));
	le_put32(h + offsetof(struct art_file_header, header_crc),
		  art_header_crc(h, ART_HEADER_SIZE));
	*out = f;
	*len = pos;
	return 0;
}

int
artifact_write(const struct ir_policy *policy, uint8_t **out, size_t *len)
{
	struct writer w = {0};
	struct art_view view;
	int rc;

	*out = NULL;
	*len = 0;
	/* Offset 0 is the empty string: a table is never empty, and "" and
	 * "none" (ART_STR_NONE) stay distinct. */
	str(&w, "");
	write_scalars(&w, policy);
	write_paths(&w, policy);
	write_env(&w, policy);
	write_network(&w, policy);
	write_ipc(&w, policy);
	write_python(&w, policy);
	write_extras(&w, policy);
	write_meta(&w, policy);
	write_decider(&w, policy);
	write_readonly(&w, policy);
	write_ipc_args(&w, policy);
	write_linux(&w, policy);
	write_macos(&w, policy);
	write_windows(&w, policy);
	rc = w.rc ? w.rc : assemble(&w, out, len);
	if (!rc && art_validate(*out, *len, &view, NULL, 0) != 0) {
		/* Something in the IR is out of range (a mode, a mask, an
		 * enumeration): refuse rather than emit what heel-exec
		 * would reject. */
		free(*out);
		*out = NULL;
		*len = 0;
		rc = -EINVAL;
	}
	for (size_t i = 0; i <= ART_SEC_COMMON_MAX; i++)
		free(w.sec[i].data);
	free(w.landlock.data);
	free(w.sbpl_text.data);
	free(w.sbpl_params.data);
	free(w.win_box.data);
	free(w.win_aces.data);
	for (int a = 0; a < SCP_ARCH_COUNT; a++)
		free(w.bpf[a].data);
	free(w.slots);
	return rc;
}

const char *
artifact_write_strerror(int rc, char *buf, size_t len)
{
	if (rc == -EFBIG)
		snprintf(buf, len,
			 "the compiled artifact would be larger than %u MiB, the most heel-exec "
			 "reads; grant directories that hold the paths rather than each of them",
			 ART_MAX_FILE_SIZE / (1024u * 1024u));
	else
		snprintf(buf, len,
			 "internal error: heelc cannot build the artifact of this policy (%s); "
			 "please report it with the policy",
			 strerror(-rc));
	return buf;
}

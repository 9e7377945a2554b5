/* SPDX-License-Identifier: MIT
 * .hpol bytes -> IR. Reads only through the runtime's validated view and
 * accessors, so the loader can trust every offset and enumeration and
 * only has to copy. The Linux sections are not part of the IR (they are
 * derived from it): the loader rebuilds them from the IR it read and
 * refuses an artifact whose sections differ, since `explain` would then
 * describe a policy other than the one heel-exec enforces. */
#include "artifact_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_read.h"
#include "win_manifest.h"
#include "acl_build.h"
#include "artifact_write.h"
#include "sbpl_params.h"

static_assert((int)IR_PLATFORM_COUNT == (int)ART_PLATFORM_COUNT, "platform numbering");
static_assert((int)IR_LIMIT_COUNT == (int)ART_LIMIT_COUNT, "limits");

struct loader {
	const struct art_view *view;
	struct ir_policy *p;
	int rc; /* -ENOMEM once an allocation failed; later copies do nothing */
};

static char *
copy_str(struct loader *l, const char *s)
{
	char *copy;

	if (!s || l->rc)
		return NULL;
	copy = strdup(s);
	if (!copy)
		l->rc = -ENOMEM;
	return copy;
}

static void *
array(struct loader *l, size_t n, size_t size)
{
	void *a;

	if (n == 0 || l->rc)
		return NULL;
	a = calloc(n, size);
	if (!a)
		l->rc = -ENOMEM;
	return a;
}

static struct ir_origin
origin(struct loader *l, const struct art_origin *o)
{
	struct ir_origin r = {.file = NULL, .line = o->line, .col = o->col};

	if (o->file && !l->rc) {
		r.file = ir_intern(l->p, o->file);
		if (!r.file)
			l->rc = -ENOMEM;
	}
	return r;
}

static void
load_u64(struct loader *l, unsigned plat, unsigned id, struct ir_u64 *out)
{
	struct art_scalar s;

	art_scalar(l->view, plat, id, &s);
	out->set = s.set;
	out->value = s.value;
	out->origin = origin(l, &s.origin);
}

static void
load_str(struct loader *l, unsigned plat, unsigned id, struct ir_str *out)
{
	struct art_scalar s;

	art_scalar(l->view, plat, id, &s);
	out->value = copy_str(l, s.str);
	out->origin = origin(l, &s.origin);
}

static void
load_scalars(struct loader *l)
{
	struct ir_policy *p = l->p;

	p->platforms = 0;
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		struct ir_scalars *sc = &p->scalar[i];

		if (art_platform_enabled(l->view, i))
			p->platforms |= (uint8_t)IR_PLAT_BIT(i);
		load_u64(l, i, ART_SC_ISOLATION, &sc->isolation);
		load_u64(l, i, ART_SC_NETWORK, &sc->network);
		load_u64(l, i, ART_SC_ALLOW_PRIVATE, &sc->allow_private);
		load_u64(l, i, ART_SC_AUDIT_KIND, &sc->audit_kind);
		load_str(l, i, ART_SC_AUDIT_PATH, &sc->audit_path);
		for (unsigned k = 0; k < IR_LIMIT_COUNT; k++)
			load_u64(l, i, ART_SC_LIMIT_FIRST + k, &sc->limits[k]);
		load_u64(l, i, ART_SC_NICE, &sc->nice);
		load_u64(l, i, ART_SC_IO_PRIORITY, &sc->io_priority);
		load_u64(l, i, ART_SC_GPU, &sc->gpu);
		load_str(l, i, ART_SC_WORKDIR, &sc->workdir);
		load_u64(l, i, ART_SC_PROTECTIONS, &sc->protections);
		load_u64(l, i, ART_SC_UNIX_SOCKETS, &sc->unix_sockets);
	}
}

/* Each count is set as soon as its array exists, so ir_policy_free()
 * releases a half-built policy correctly (unfilled entries are zero). */
static void
load_paths(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_path_count(l->view);

	p->paths = array(l, n, sizeof(*p->paths));
	if (!p->paths)
		return;
	p->npaths = n;
	for (size_t i = 0; i < n && !l->rc; i++) {
		struct art_path a;

		art_path_at(l->view, i, &a);
		p->paths[i].path = copy_str(l, a.path);
		p->paths[i].mode = a.mode;
		p->paths[i].platforms = a.platforms;
		p->paths[i].optional = a.optional;
		p->paths[i].set = a.set;
		p->paths[i].source = a.source;
		p->paths[i].origin = origin(l, &a.origin);
	}
}

static void
load_env(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_env_count(l->view), npass = 0, nset = 0;
	struct art_env e;

	for (size_t i = 0; i < n; i++) {
		art_env_at(l->view, i, &e);
		if (e.kind == ART_ENV_PASS)
			npass++;
		else
			nset++;
	}
	p->env_pass = array(l, npass, sizeof(*p->env_pass));
	if (p->env_pass)
		p->nenv_pass = npass;
	p->env_set = array(l, nset, sizeof(*p->env_set));
	if (p->env_set)
		p->nenv_set = nset;
	if (l->rc)
		return;
	npass = nset = 0;
	for (size_t i = 0; i < n && !l->rc; i++) {
		art_env_at(l->view, i, &e);
		if (e.kind == ART_ENV_PASS) {
			struct ir_env_pass *ep = &p->env_pass[npass++];

			ep->name = copy_str(l, e.name);
			ep->platforms = e.platforms;
			ep->origin = origin(l, &e.origin);
		} else {
			struct ir_env_set *es = &p->env_set[nset++];

			es->name = copy_str(l, e.name);
			es->value = copy_str(l, e.value);
			es->platforms = e.platforms;
			es->origin = origin(l, &e.origin);
		}
	}
}

static void
load_network(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_net_count(l->view);

	p->patterns = array(l, n, sizeof(*p->patterns));
	if (!p->patterns)
		return;
	p->npatterns = n;
	for (size_t i = 0; i < n && !l->rc; i++) {
		struct art_net a;

		art_net_at(l->view, i, &a);
		p->patterns[i].host = copy_str(l, a.host);
		p->patterns[i].port = a.port;
		p->patterns[i].platforms = a.platforms;
		p->patterns[i].origin = origin(l, &a.origin);
	}
}

static void
load_ipc(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_ipc_count(l->view);

	p->ipc = array(l, n, sizeof(*p->ipc));
	if (!p->ipc)
		return;
	p->nipc = n;
	for (size_t i = 0; i < n && !l->rc; i++) {
		struct ir_ipc *c = &p->ipc[i];
		struct art_ipc a;

		art_ipc_at(l->view, i, &a);
		c->name = copy_str(l, a.name);
		c->exec = copy_str(l, a.exec);
		c->timeout_ms = a.timeout_ms;
		c->platforms = a.platforms;
		c->origin = origin(l, &a.origin);
		c->positionals = array(l, a.nargs, sizeof(*c->positionals));
		if (c->positionals) {
			c->npositionals = a.nargs;
			for (size_t j = 0; j < a.nargs; j++)
				c->positionals[j] = copy_str(l, art_ipc_arg(l->view, &a, j));
		}
		if (!art_ipc_typed_count(l->view, &a))
			continue;
		c->args = array(l, art_ipc_typed_count(l->view, &a), sizeof(*c->args));
		if (!c->args)
			continue;
		c->nargs = art_ipc_typed_count(l->view, &a);
		for (size_t j = 0; j < c->nargs; j++) {
			const char *name = NULL;
			unsigned type = 0;

			art_ipc_typed_at(l->view, &a, j, &name, &type);
			c->args[j].name = copy_str(l, name);
			c->args[j].type = (uint8_t)type;
		}
	}
}

static void
load_python(struct loader *l)
{
	for (unsigned i = 0; i < IR_PLATFORM_COUNT && !l->rc; i++) {
		struct ir_python *py = &l->p->python[i];
		struct art_python a;

		art_python(l->view, i, &a);
		py->set = a.set;
		py->venv = copy_str(l, a.venv);
		py->allow_pip_install = a.allow_pip_install;
		py->origin = origin(l, &a.origin);
		py->packages = array(l, a.npackages, sizeof(*py->packages));
		if (!py->packages)
			continue;
		py->npackages = a.npackages;
		for (size_t j = 0; j < a.npackages; j++)
			py->packages[j] = copy_str(l, art_python_package(l->view, &a, j));
	}
}

static void
load_decider(struct loader *l)
{
	for (unsigned i = 0; i < IR_PLATFORM_COUNT && !l->rc; i++) {
		struct ir_decider *d = &l->p->decider[i];
		struct art_decider a;

		art_network_decider(l->view, i, &a);
		if (!a.program)
			continue;
		d->program = copy_str(l, a.program);
		d->origin = origin(l, &a.origin);
		d->args = array(l, a.nargs, sizeof(*d->args));
		if (!d->args)
			continue;
		d->nargs = a.nargs;
		for (size_t j = 0; j < a.nargs; j++)
			d->args[j] = copy_str(l, art_decider_arg(l->view, &a, j));
	}
}

static void
load_readonly(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_readonly_count(l->view);

	p->readonly = array(l, n, sizeof(*p->readonly));
	if (!p->readonly)
		return;
	p->nreadonly = n;
	for (size_t i = 0; i < n && !l->rc; i++) {
		struct ir_readonly *r = &p->readonly[i];
		struct art_readonly a;

		art_readonly_at(l->view, i, &a);
		r->path = copy_str(l, a.path);
		r->because = a.because ? copy_str(l, a.because) : NULL;
		r->each_writable = a.each_writable;
		r->platforms = a.platforms;
		r->set = a.set;
		r->source = a.source;
		r->origin = origin(l, &a.origin);
	}
}

static void
load_named(struct loader *l, uint32_t kind, struct ir_named **out, size_t *nout)
{
	size_t n = art_extra_count(l->view), k = 0;
	struct art_extra e;

	for (size_t i = 0; i < n; i++)
		if (art_extra_at(l->view, i, &e) == 0 && e.kind == kind)
			k++;
	*out = array(l, k, sizeof(**out));
	if (!*out)
		return;
	*nout = k;
	k = 0;
	for (size_t i = 0; i < n && !l->rc; i++) {
		art_extra_at(l->view, i, &e);
		if (e.kind != kind)
			continue;
		(*out)[k].value = copy_str(l, e.value);
		(*out)[k].origin = origin(l, &e.origin);
		k++;
	}
}

static void
load_extras(struct loader *l)
{
	struct ir_policy *p = l->p;
	size_t n = art_extra_count(l->view), k = 0;
	struct art_extra e;

	for (size_t i = 0; i < n; i++)
		if (art_extra_at(l->view, i, &e) == 0 && e.kind == ART_EXTRA_SECCOMP)
			k++;
	p->seccomp = array(l, k, sizeof(*p->seccomp));
	if (p->seccomp)
		p->nseccomp = k;
	k = 0;
	for (size_t i = 0; i < n && !l->rc; i++) {
		art_extra_at(l->view, i, &e);
		if (e.kind == ART_EXTRA_SECCOMP) {
			struct ir_seccomp_rule *r = &p->seccomp[k++];

			r->syscall = copy_str(l, e.value);
			r->action = e.action;
			r->errno_value = e.errno_value;
			r->origin = origin(l, &e.origin);
		} else if (e.kind == ART_EXTRA_EXCLUDED) {
			/* Validation allowed one bit, once per platform. */
			for (unsigned pl = 0; pl < IR_PLATFORM_COUNT; pl++)
				if (e.platforms == IR_PLAT_BIT(pl))
					p->excluded_reason[pl] = copy_str(l, e.value);
		}
	}
	load_named(l, ART_EXTRA_MACH_LOOKUP, &p->mach_lookups, &p->nmach_lookups);
	load_named(l, ART_EXTRA_SBPL, &p->sbpl, &p->nsbpl);
	load_named(l, ART_EXTRA_CAPABILITY, &p->capabilities, &p->ncapabilities);
}

static int
load_fail(char *err, size_t errlen, int rc, const char *fmt, const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, arg);
	return rc;
}

static bool
same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* Rebuilds the Linux sections from `p` (what artifact_write() would put in
 * the file) and compares them with the ones `view` holds. */
/* The artifact the loaded IR compiles to, built once and shared by the
 * three platforms' comparisons (each keeps its own message when the
 * build fails). */
struct rebuilt {
	bool done;
	int rc;
	uint8_t *bytes;
	size_t n;
};

static int
rebuild(struct rebuilt *r, const struct ir_policy *p, const uint8_t **bytes, size_t *n)
{
	if (!r->done) {
		r->done = true;
		r->rc = artifact_write(p, &r->bytes, &r->n);
	}
	*bytes = r->bytes;
	*n = r->n;
	return r->rc;
}

static int
check_linux_derived(const struct art_view *view, const struct ir_policy *p, struct rebuilt *r,
		    char *err, size_t errlen)
{
	static const struct {
		uint32_t audit_arch;
		const char *name;
	} arches[ART_BPF_ARCH_COUNT] = {
	    {ART_AUDIT_ARCH_X86_64, "SECCOMP_BPF (x86_64)"},
	    {ART_AUDIT_ARCH_AARCH64, "SECCOMP_BPF (aarch64)"},
	};
	struct art_view mine;
	const uint8_t *a, *b;
	size_t alen, blen;
	const uint8_t *bytes = NULL;
	size_t n = 0;
	int rc;

	if (!(p->platforms & IR_PLAT_BIT(IR_LINUX)))
		return 0; /* validation proved there are no Linux sections */
	rc = rebuild(r, p, &bytes, &n);
	if (rc == -ENOMEM)
		return load_fail(err, errlen, rc, "%s", "out of memory loading the artifact");
	if (rc)
		return load_fail(err, errlen, -EINVAL,
				 "the policy in the artifact cannot be built for linux: %s",
				 rc == -ENOENT	 ? "a seccomp rule names an unknown syscall"
				 : rc == -EPERM	 ? "it allows a syscall heel always denies"
				 : rc == -E2BIG ? "a seccomp program would exceed 4096 instructions"
						 : "a value is out of range");
	rc = art_validate(bytes, n, &mine, err, errlen);
	if (rc) {
		return rc;
	}
	art_landlock(view, &a, &alen);
	art_landlock(&mine, &b, &blen);
	if (!same_bytes(a, alen, b, blen)) {
		return load_fail(err, errlen, -EINVAL,
				 "%s does not match the policy the artifact carries",
				 "LINUX_LANDLOCK");
	}
	for (size_t i = 0; i < ART_BPF_ARCH_COUNT; i++) {
		struct art_bpf x, y;

		art_seccomp(view, arches[i].audit_arch, &x);
		art_seccomp(&mine, arches[i].audit_arch, &y);
		if (!same_bytes(x.insns, (size_t)x.len * ART_BPF_INSN_SIZE, y.insns,
				(size_t)y.len * ART_BPF_INSN_SIZE)) {
			return load_fail(err, errlen, -EINVAL,
					 "%s does not match the policy the artifact carries",
					 arches[i].name);
		}
	}
	return 0;
}

static bool
same_param(const struct sbpl_param_rec *x, const struct sbpl_param_rec *y)
{
	return strcmp(x->name, y->name) == 0 && strcmp(x->value, y->value) == 0 &&
	       x->kind == y->kind && x->mode == y->mode && x->optional == y->optional &&
	       x->rank == y->rank && x->origin.line == y->origin.line &&
	       x->origin.col == y->origin.col &&
	       strcmp(x->origin.file ? x->origin.file : "", y->origin.file ? y->origin.file : "") == 0;
}

/* The macOS sections, like the Linux ones, are derived from the IR: what
 * `explain` shows must be what the macOS launcher hands to the sandbox.
 * An artifact without them (built before format 1.4) has nothing to
 * compare; the macOS launcher refuses it. */
static int
check_macos_derived(const struct art_view *view, const struct ir_policy *p, struct rebuilt *r,
		    char *err, size_t errlen)
{
	struct art_view mine;
	const char *a, *b;
	size_t alen, blen, n = 0;
	const uint8_t *bytes = NULL;
	int rc;

	if (sbpl_text(view, &a, &alen) != 0)
		return 0;
	rc = rebuild(r, p, &bytes, &n);
	if (rc == -ENOMEM)
		return load_fail(err, errlen, rc, "%s", "out of memory loading the artifact");
	if (rc)
		return load_fail(err, errlen, -EINVAL, "%s",
				 "the policy in the artifact cannot be built for macos");
	rc = art_validate(bytes, n, &mine, err, errlen);
	if (!rc && (sbpl_text(&mine, &b, &blen) != 0 || !same_bytes((const uint8_t *)a, alen,
								    (const uint8_t *)b, blen)))
		rc = load_fail(err, errlen, -EINVAL,
			       "%s does not match the policy the artifact carries", "SBPL_TEXT");
	if (!rc && sbpl_param_count(view) != sbpl_param_count(&mine))
		rc = load_fail(err, errlen, -EINVAL,
			       "%s does not match the policy the artifact carries", "SBPL_PARAMS");
	for (size_t i = 0; !rc && i < sbpl_param_count(view); i++) {
		struct sbpl_param_rec x, y;

		sbpl_param_at(view, i, &x);
		sbpl_param_at(&mine, i, &y);
		if (!same_param(&x, &y))
			rc = load_fail(err, errlen, -EINVAL,
				       "%s does not match the policy the artifact carries",
				       "SBPL_PARAMS");
	}
	return rc;
}

static bool
same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool
same_entry(const struct win_entry *x, const struct win_entry *y)
{
	return same_str(x->path, y->path) && x->mask == y->mask && x->ace == y->ace &&
	       x->kind == y->kind && x->inherit == y->inherit && x->label == y->label &&
	       x->missing == y->missing &&
	       x->parent_deny_delete_child == y->parent_deny_delete_child &&
	       same_str(x->origin_file, y->origin_file) && x->origin_line == y->origin_line &&
	       x->origin_col == y->origin_col;
}

/* The Windows part is derived like the Linux one: the model the IR
 * compiles to must be the one the artifact holds, so that `explain` and
 * `emit acl` show what heel-exec.exe applies. Without META the name and
 * SID (a function of the digest) cannot be rebuilt and are not compared.
 * An artifact older than 1.4 has no Windows part to compare, but its
 * policy must still be one heelc can build for windows, or writing what
 * was loaded would fail. */
/* Before the Linux check, whose rebuild of the whole artifact would
 * otherwise blame linux for a Windows part heelc cannot build. */
static int
check_windows_buildable(const struct ir_policy *p, char *err, size_t errlen)
{
	struct acl_manifest *a = NULL;
	int rc;

	if (!(p->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return 0;
	rc = acl_build(p, &a);
	acl_manifest_free(a);
	if (rc == -ENOMEM)
		return load_fail(err, errlen, rc, "%s", "out of memory loading the artifact");
	if (rc)
		return load_fail(err, errlen, -EINVAL, "%s",
				 "the policy in the artifact cannot be built for windows: a path is "
				 "not one Windows can name, or a value is out of range");
	return 0;
}

static int
check_windows_derived(const struct art_view *view, const struct ir_policy *p, struct rebuilt *r,
		      bool has_meta, char *err, size_t errlen)
{
	struct win_manifest have, want;
	struct art_view mine;
	const uint8_t *bytes = NULL;
	size_t n = 0;
	bool same;
	int rc;

	if (!(p->platforms & IR_PLAT_BIT(IR_WINDOWS)))
		return 0; /* validation proved there is no Windows part */
	rc = rebuild(r, p, &bytes, &n);
	if (rc == -ENOMEM)
		return load_fail(err, errlen, rc, "%s", "out of memory loading the artifact");
	if (rc || art_validate(bytes, n, &mine, NULL, 0) ||
	    win_manifest_from_view(&mine, &want, NULL, 0)) {
		return load_fail(err, errlen, -EINVAL, "%s",
				 "the policy in the artifact cannot be built for windows");
	}
	if (!view->sec[ART_SEC_WIN_CONTAINER].data) {
		win_manifest_free(&want);
		return 0;
	}
	rc = win_manifest_from_view(view, &have, err, errlen);
	if (rc) {
		win_manifest_free(&want);
		return rc;
	}
	same = (!has_meta || (same_str(have.name, want.name) && same_str(have.sid, want.sid))) &&
	       have.ncapabilities == want.ncapabilities && have.lpac == want.lpac &&
	       have.loopback_required == want.loopback_required &&
	       have.priority_class == want.priority_class &&
	       have.job_memory_bytes == want.job_memory_bytes &&
	       have.process_memory_bytes == want.process_memory_bytes &&
	       have.active_processes == want.active_processes &&
	       have.cpu_rate_percent == want.cpu_rate_percent && have.nentries == want.nentries;
	for (size_t i = 0; same && i < have.ncapabilities; i++)
		same = same_str(have.capabilities[i], want.capabilities[i]);
	for (size_t i = 0; same && i < have.nentries; i++)
		same = same_entry(&have.entries[i], &want.entries[i]);
	win_manifest_free(&have);
	win_manifest_free(&want);
	if (!same)
		return load_fail(err, errlen, -EINVAL,
				 "%s does not match the policy the artifact carries",
				 "the Windows part (WIN_CONTAINER, WIN_ACES)");
	return 0;
}

int
artifact_load(const uint8_t *buf, size_t len, struct ir_policy **out, char *err, size_t errlen)
{
	struct art_view view;
	struct rebuilt again = { 0 };
	struct art_meta meta;
	struct loader l = {.view = &view};
	int rc;

	*out = NULL;
	rc = art_validate(buf, len, &view, err, errlen);
	if (rc)
		return rc;
	l.p = ir_policy_new();
	if (!l.p)
		goto oom;
	load_scalars(&l);
	load_paths(&l);
	load_env(&l);
	load_network(&l);
	load_ipc(&l);
	load_python(&l);
	load_extras(&l);
	load_decider(&l);
	load_readonly(&l);
	if (art_meta(&view, &meta)) {
		memcpy(l.p->source_digest, meta.source_digest, sizeof(l.p->source_digest));
		if (meta.source_name) {
			l.p->source_name = ir_intern(l.p, meta.source_name);
			if (!l.p->source_name)
				l.rc = -ENOMEM;
			l.p->source_size = meta.source_size;
			l.p->source_crc = meta.source_crc;
		}
	}
	if (l.rc)
		goto oom;
	rc = check_windows_buildable(l.p, err, errlen);
	if (!rc)
		rc = check_linux_derived(&view, l.p, &again, err, errlen);
	if (!rc)
		rc = check_macos_derived(&view, l.p, &again, err, errlen);
	if (!rc)
		rc = check_windows_derived(&view, l.p, &again, view.sec[ART_SEC_META].data != NULL,
					   err, errlen);
	free(again.bytes);
	if (rc) {
		ir_policy_free(l.p);
		return rc;
	}
	*out = l.p;
	return 0;
oom:
	ir_policy_free(l.p);
	if (err && errlen)
		snprintf(err, errlen, "out of memory loading the artifact");
	return -ENOMEM;
}

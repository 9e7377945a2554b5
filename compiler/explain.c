/* SPDX-License-Identifier: MIT
 * `heelc explain`: renders the IR for a reviewer (text) or a tool (JSON).
 * Grouped by what a reviewer asks — what can it read, write, run, reach —
 * with every item pointing at the source line that caused it, and every
 * writable+executable grant and raw SBPL rule flagged. */
#include "explain.h"
#include "errno_names.h"
#include "seccomp_policy.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

static void
platforms_text(unsigned mask, unsigned all, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	/* all == 0 asks for the list itself, not for "where it differs". */
	if (all && (mask & all) == all)
		return;
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		if (!(mask & IR_PLAT_BIT(p)))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? ", " : "", ir_platform_name(p));
	}
}

/* What the broker adds to a type's check, for the reader of explain. */
static const char *
arg_type_note(unsigned type)
{
	return type == IR_IPC_PATH ? " (must be inside the working directory)"
	       : type == IR_IPC_BOOL ? " (given alone, it is true)"
				     : "";
}

static void
origin_text(const struct ir_origin *o, char *buf, size_t len)
{
	if (o->file && o->line)
		snprintf(buf, len, "%s:%u", o->file, o->line);
	else if (o->file)
		snprintf(buf, len, "%s", o->file);
	else
		snprintf(buf, len, "(built in)");
}

/* Sizes in the largest binary unit that divides them exactly, as a person
 * would write them in a policy. */
static void
size_text(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", v, units[u]);
}

static bool
limit_is_size(enum ir_limit l)
{
	return l == IR_LIMIT_MEMORY || l == IR_LIMIT_FILE_SIZE || l == IR_LIMIT_STACK ||
	       l == IR_LIMIT_CORE;
}

static void
limit_text(enum ir_limit l, uint64_t v, char *buf, size_t len)
{
	if (limit_is_size(l))
		size_text(v, buf, len);
	else if (l == IR_LIMIT_CPU)
		snprintf(buf, len, "%" PRIu64 " s of CPU time", v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static const char *
network_name(uint64_t v)
{
	switch (v) {
	case IR_NET_ALLOW_ALL:
		return "allow-all";
	case IR_NET_ALLOW_LIST:
		return "allow-list";
	default:
		return "deny";
	}
}

static const char *
io_name(uint64_t v)
{
	switch (v) {
	case IR_IO_UTILITY:
		return "utility";
	case IR_IO_BACKGROUND:
		return "background";
	default:
		return "unchanged";
	}
}

/* The platforms a policy is built for, in index order. */
static int
first_platform(const struct ir_policy *p)
{
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		if (p->platforms & IR_PLAT_BIT(i))
			return i;
	return -1;
}

typedef bool (*scalar_eq_fn)(const struct ir_scalars *a, const struct ir_scalars *b,
			     const void *arg);

/* True when a scalar has one value on every platform the policy is built
 * for, so it is printed once instead of per platform. */
static bool
same_everywhere(const struct ir_policy *p, scalar_eq_fn eq, const void *arg)
{
	int first = first_platform(p);

	if (first < 0)
		return true;
	for (int i = first + 1; i < IR_PLATFORM_COUNT; i++)
		if ((p->platforms & IR_PLAT_BIT(i)) && !eq(&p->scalar[first], &p->scalar[i], arg))
			return false;
	return true;
}

static bool
u64_eq(const struct ir_u64 *a, const struct ir_u64 *b)
{
	return a->set == b->set && (!a->set || a->value == b->value);
}

static bool
str_eq(const struct ir_str *a, const struct ir_str *b)
{
	if (!a->value || !b->value)
		return a->value == b->value;
	return strcmp(a->value, b->value) == 0;
}

/* Offsets of ir_u64 scalars inside struct ir_scalars let one comparison
 * serve them all. */
static bool
field_eq(const struct ir_scalars *a, const struct ir_scalars *b, const void *arg)
{
	size_t off = *(const size_t *)arg;

	return u64_eq((const struct ir_u64 *)((const char *)a + off),
		      (const struct ir_u64 *)((const char *)b + off));
}

static bool
strfield_eq(const struct ir_scalars *a, const struct ir_scalars *b, const void *arg)
{
	size_t off = *(const size_t *)arg;

	return str_eq((const struct ir_str *)((const char *)a + off),
		      (const struct ir_str *)((const char *)b + off));
}

/* ------------------------------------------------------------ view */

/* The policy as some of its platforms see it: a shallow copy whose
 * platform mask is cut down and whose lists keep only the elements that
 * apply there, so the renderers below, which already say what differs
 * between the platforms a policy is built for, say it only for those
 * asked about. Elements are shared with the policy; only the arrays are
 * the view's own. */
struct view {
	struct ir_policy p;
	unsigned built; /* the platforms the policy itself is built for */
	void *owned[6];
	size_t nowned;
	bool oom;
	/* The escape hatches of the parts the view leaves out, shown anyway
	 * (a reviewer approves the whole artifact, not the part of the
	 * system they run explain on): NULL/0 where that part is shown or
	 * has none. */
	const struct ir_named *hidden_sbpl, *hidden_caps;
	size_t nhidden_sbpl, nhidden_caps;
};

/* The elements of `items` (n of `size` bytes) whose platform mask, a
 * uint8_t at `plat_off`, meets the view's platforms, in a new array the
 * view owns; *kept is how many. */
static void *
keep_shown(struct view *v, const void *items, size_t n, size_t size, size_t plat_off,
	   size_t *kept)
{
	const char *in = items;
	char *copy;

	*kept = 0;
	if (!n || v->oom)
		return NULL;
	copy = calloc(n, size);
	if (!copy) {
		v->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (*(const uint8_t *)(in + i * size + plat_off) & v->p.platforms)
			memcpy(copy + (*kept)++ * size, in + i * size, size);
	v->owned[v->nowned++] = copy;
	return copy;
}

static void
view_free(struct view *v)
{
	for (size_t i = 0; i < v->nowned; i++)
		free(v->owned[i]);
}

/* Returns 0, -ENOENT when the policy is built for none of `shown`, or
 * -ENOMEM. */
static int
view_make(const struct ir_policy *p, unsigned shown, struct view *v)
{
	struct ir_policy *q = &v->p;

	memset(v, 0, sizeof(*v));
	*q = *p;
	v->built = p->platforms;
	q->platforms = (uint8_t)(p->platforms & shown);
	if (!q->platforms)
		return -ENOENT;
	if (q->platforms == p->platforms)
		return 0;
	/* A platform left out is news only where every platform is shown. */
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		q->excluded_reason[i] = NULL;
	q->paths = keep_shown(v, p->paths, p->npaths, sizeof(*p->paths),
			      offsetof(struct ir_path_rule, platforms), &q->npaths);
	q->patterns = keep_shown(v, p->patterns, p->npatterns, sizeof(*p->patterns),
				 offsetof(struct ir_net_pattern, platforms), &q->npatterns);
	q->env_pass = keep_shown(v, p->env_pass, p->nenv_pass, sizeof(*p->env_pass),
				 offsetof(struct ir_env_pass, platforms), &q->nenv_pass);
	q->env_set = keep_shown(v, p->env_set, p->nenv_set, sizeof(*p->env_set),
				offsetof(struct ir_env_set, platforms), &q->nenv_set);
	q->ipc = keep_shown(v, p->ipc, p->nipc, sizeof(*p->ipc), offsetof(struct ir_ipc, platforms),
			    &q->nipc);
	q->readonly = keep_shown(v, p->readonly, p->nreadonly, sizeof(*p->readonly),
				 offsetof(struct ir_readonly, platforms), &q->nreadonly);
	if (v->oom) {
		view_free(v);
		return -ENOMEM;
	}
	/* The platform statements belong to their one platform. */
	if (!(q->platforms & IR_PLAT_BIT(IR_LINUX)))
		q->nseccomp = 0;
	if (!(q->platforms & IR_PLAT_BIT(IR_MACOS))) {
		v->hidden_sbpl = p->sbpl;
		v->nhidden_sbpl = p->nsbpl;
		q->nmach_lookups = q->nsbpl = 0;
	}
	if (!(q->platforms & IR_PLAT_BIT(IR_WINDOWS))) {
		v->hidden_caps = p->capabilities;
		v->nhidden_caps = p->ncapabilities;
		q->ncapabilities = 0;
	}
	return 0;
}

/* ------------------------------------------------------------ text */

struct text_out {
	FILE *f;
	const struct ir_policy *p;
	int flags; /* items flagged for attention */
};

static bool
is_relative(const char *path)
{
	bool drive = ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
		     path[1] == ':';

	return path[0] != '/' && path[0] != '$' && path[0] != '\\' && !drive;
}

static void
print_rule_line(struct text_out *t, const char *item, const char *extra, unsigned platforms,
		const struct ir_origin *o, int width)
{
	char plat[64], orig[512];

	platforms_text(platforms, t->p->platforms, plat, sizeof(plat));
	origin_text(o, orig, sizeof(orig));
	fprintf(t->f, "  %-*s  %s", width, item, orig);
	if (plat[0])
		fprintf(t->f, "  [%s only]", plat);
	if (extra && extra[0])
		fprintf(t->f, "  %s", extra);
	fputc('\n', t->f);
}

/* The IR drops a leading "./"; it is put back so a reviewer sees at once
 * that a path is relative to the launch directory. */
static void
print_path_line(struct text_out *t, const char *path, const char *extra, unsigned platforms,
		const struct ir_origin *o, int width)
{
	char *rel = NULL;

	if (is_relative(path) && asprintf(&rel, "./%s", path) >= 0) {
		print_rule_line(t, rel, extra, platforms, o, width);
		free(rel);
		return;
	}
	print_rule_line(t, path, extra, platforms, o, width);
}

static int
path_width(const struct ir_policy *p, bool (*want)(const struct ir_path_rule *))
{
	int w = 0;

	for (size_t i = 0; i < p->npaths; i++) {
		int n = (int)strlen(p->paths[i].path) + (is_relative(p->paths[i].path) ? 2 : 0);

		if (want(&p->paths[i]) && n > w)
			w = n;
	}
	return w > 60 ? 60 : w;
}

static bool
want_read(const struct ir_path_rule *r)
{
	return r->mode & IR_READ;
}
static bool
want_write(const struct ir_path_rule *r)
{
	return r->mode & IR_WRITE;
}
static bool
want_exec(const struct ir_path_rule *r)
{
	return r->mode & IR_EXEC;
}
static bool
want_user_deny(const struct ir_path_rule *r)
{
	return r->mode == IR_MODE_DENY && r->set == IR_SET_NONE;
}

static void
print_paths(struct text_out *t, const char *title, bool (*want)(const struct ir_path_rule *),
	    const char *always)
{
	const struct ir_policy *p = t->p;
	int width = path_width(p, want);
	bool any = false, base_heading = false;

	fprintf(t->f, "\n%s\n", title);
	if (always)
		fprintf(t->f, "  %s\n", always);
	/* What the policy's own files and presets say comes first; the
	 * isolation base's many system paths follow under a heading of
	 * their own, so a reviewer finds the lines that were written here. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->npaths; i++) {
			const struct ir_path_rule *r = &p->paths[i];
			char extra[96] = "";

			if (!want(r) || (r->source == IR_SRC_BASE) != (pass == 1))
				continue;
			if (pass == 1 && !base_heading) {
				fputs("  from the isolation base:\n", t->f);
				base_heading = true;
			}
			any = true;
			if (r->mode != IR_MODE_DENY)
				snprintf(extra, sizeof(extra), "(%s%s)", ir_mode_name(r->mode),
					 r->optional ? ", optional" : "");
			if (pass == 1)
				fputs("  ", t->f);
			print_path_line(t, r->path, extra, r->platforms, &r->origin,
					pass == 1 ? width - 2 : width);
		}
	}
	if (!any && !always)
		fputs("  nothing\n", t->f);
}

static void
print_rwx(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	int width = 0;
	bool any = false;

	for (size_t i = 0; i < p->npaths; i++)
		if (p->paths[i].mode == IR_MODE_RWX &&
		    (int)strlen(p->paths[i].path) + 2 > width)
			width = (int)strlen(p->paths[i].path) + 2;
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ir_path_rule *r = &p->paths[i];

		if (r->mode != IR_MODE_RWX)
			continue;
		if (!any)
			fputs("\n! Writable and executable (rwx): code written here can be run;\n"
			      "! the write-then-exec guarantee is given up for these paths\n",
			      t->f);
		any = true;
		t->flags++;
		print_path_line(t, r->path, NULL, r->platforms, &r->origin, width);
	}
	/* A venv the sandbox may pip install into is a grant rwx of its
	 * own (the Landlock lowering makes it one): one line a block. */
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_python *py = &p->python[i];
		unsigned mask = 0;
		bool earlier = false;

		if (!(p->platforms & IR_PLAT_BIT(i)) || !py->set || !py->allow_pip_install)
			continue;
		for (int j = 0; j < IR_PLATFORM_COUNT; j++) {
			const struct ir_python *q = &p->python[j];
			bool same = (p->platforms & IR_PLAT_BIT(j)) && q->set && q->allow_pip_install &&
				    q->origin.line == py->origin.line &&
				    q->origin.col == py->origin.col && q->origin.file == py->origin.file;

			if (same && j < i)
				earlier = true;
			if (same)
				mask |= IR_PLAT_BIT(j);
		}
		if (earlier)
			continue;
		if (!any)
			fputs("\n! Writable and executable (rwx): code written here can be run;\n"
			      "! the write-then-exec guarantee is given up for these paths\n",
			      t->f);
		any = true;
		t->flags++;
		print_path_line(t, py->venv, "(the venv: allow-pip-install yes)", mask, &py->origin,
				width);
	}
}

static void
print_protections(struct text_out *t)
{
	const struct ir_policy *p = t->p;

	fputs("\nProtections (denied even beneath a granted parent; an explicit grant of the\n"
	      "very path wins)\n",
	      t->f);
	for (int s = 0; s < IR_SET_COUNT; s++) {
		unsigned on = 0;
		char plat[64];

		for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
			const struct ir_u64 *m = &p->scalar[i].protections;

			if ((p->platforms & IR_PLAT_BIT(i)) && m->set && (m->value & (1ull << s)))
				on |= IR_PLAT_BIT(i);
		}
		if (!on) {
			fprintf(t->f, "  %-20s off\n", ir_set_name(s));
			continue;
		}
		platforms_text(on, p->platforms, plat, sizeof(plat));
		fprintf(t->f, "  %-20s on%s%s%s%s\n", ir_set_name(s), plat[0] ? " [" : "", plat,
			plat[0] ? " only]" : "",
			s == IR_SET_HOST_RUN ? ": read-only, not denied (listed below)" : "");
		for (size_t i = 0; i < p->npaths; i++) {
			const struct ir_path_rule *r = &p->paths[i];

			if (r->set == s && r->mode == IR_MODE_DENY) {
				fputs("  ", t->f);
				print_path_line(t, r->path, NULL, r->platforms, &r->origin, 44);
			}
		}
	}
}

static void print_wrapped(FILE *f, const char *prefix, const char *text, int indent);

/* `readonly`: what stays read-only inside the writable places, with what
 * runs each (the reason heel-exec also names when it finds the sandbox
 * made one). */
static void
print_readonly(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	int width = 0;

	if (!p->nreadonly)
		return;
	for (size_t i = 0; i < p->nreadonly; i++) {
		int n = (int)strlen(p->readonly[i].path) +
			(p->readonly[i].each_writable ? (int)strlen(" in each writable place") : 0);

		if (n > width)
			width = n;
	}
	if (width > 60)
		width = 60;
	fputs("\nRead-only even inside writable places (files the host runs; an explicit\n"
	      "grant of the very path wins)\n",
	      t->f);
	for (size_t i = 0; i < p->nreadonly; i++) {
		const struct ir_readonly *r = &p->readonly[i];
		char *item = NULL;

		if (asprintf(&item, "%s%s", r->path, r->each_writable ? " in each writable place" : "") < 0)
			continue;
		if (r->each_writable)
			print_rule_line(t, item, NULL, r->platforms, &r->origin, width);
		else
			print_path_line(t, item, NULL, r->platforms, &r->origin, width);
		free(item);
		if (r->because)
			print_wrapped(t->f, "", r->because, 4);
	}
}

static void
print_scalar_u64(struct text_out *t, const char *label, size_t off,
		 const char *(*name)(uint64_t), void (*fmtv)(uint64_t, char *, size_t))
{
	const struct ir_policy *p = t->p;
	bool same = same_everywhere(p, field_eq, &off);

	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_u64 *v;
		char val[96], orig[512];

		if (!(p->platforms & IR_PLAT_BIT(i)))
			continue;
		v = (const struct ir_u64 *)((const char *)&p->scalar[i] + off);
		if (!v->set) {
			/* Unset means the built-in default: say what it is. */
			snprintf(val, sizeof(val), "%s", name ? name(0) : "unchanged");
			orig[0] = '\0';
		} else {
			if (name)
				snprintf(val, sizeof(val), "%s", name(v->value));
			else if (fmtv)
				fmtv(v->value, val, sizeof(val));
			else
				snprintf(val, sizeof(val), "%" PRIu64, v->value);
			origin_text(&v->origin, orig, sizeof(orig));
		}
		if (same)
			fprintf(t->f, "  %-14s %s%s%s\n", label, val, orig[0] ? "  " : "", orig);
		else
			fprintf(t->f, "  %-14s %s%s%s  [%s]\n", label, val, orig[0] ? "  " : "", orig,
				ir_platform_name(i));
		if (same)
			break;
	}
}

static const char *
yes_no(uint64_t v)
{
	return v ? "yes" : "no";
}

/* A growing string for the sentences below; on out-of-memory it stays
 * whatever it had, and the text is only shorter. */
struct words {
	char *s;
	size_t len, cap;
};

static void words_add(struct words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
words_add(struct words *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (w->len + (size_t)n + 1 > w->cap) {
		size_t cap = (w->len + (size_t)n + 1) * 2;
		char *grown = realloc(w->s, cap);

		if (!grown)
			return;
		w->s = grown;
		w->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(w->s + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	w->len += (size_t)n;
}

/* An argument as a reader would type it: quoted when it is empty or
 * holds a blank or a quote. */
static void
words_arg(struct words *w, const char *a)
{
	if (*a && !strpbrk(a, " \t\"'\\"))
		words_add(w, " %s", a);
	else
		words_add(w, " \"%s\"", a);
}

static void
host_text(const struct ir_net_pattern *n, char *buf, size_t len)
{
	if (n->port)
		snprintf(buf, len, strchr(n->host, ':') ? "[%s]:%u" : "%s:%u", n->host, n->port);
	else
		snprintf(buf, len, strchr(n->host, ':') ? "[%s]" : "%s", n->host);
}

/* What platform `pl` lets the sandbox reach, in one paragraph: the way
 * out, the destinations, what is refused whatever the list says, where
 * the decisions go and who takes them. Caller frees. */
static char *
network_words(const struct ir_policy *p, int pl)
{
	const struct ir_scalars *s = &p->scalar[pl];
	const struct ir_decider *d = &p->decider[pl];
	struct words w = {0};
	size_t n = 0, k = 0;

	if (s->network.value == IR_NET_DENY) {
		words_add(&w, "nothing can be reached: no proxy runs and the kernel refuses every "
			      "outbound connection");
		return w.s;
	}
	words_add(&w, "only through heel-proxy, ");
	if (s->network.value == IR_NET_ALLOW_ALL) {
		words_add(&w, "to any host on any port");
	} else {
		for (size_t i = 0; i < p->npatterns; i++)
			n += (p->patterns[i].platforms & IR_PLAT_BIT(pl)) != 0;
		if (!n)
			words_add(&w, d->program ? "to what the decider allows (the allow-list is empty)"
						 : "to nothing (the allow-list is empty)");
		for (size_t i = 0; i < p->npatterns; i++) {
			const struct ir_net_pattern *e = &p->patterns[i];
			const char *host = e->host;
			bool sub = strncmp(host, "*.", 2) == 0;
			char port[24] = "any port";

			if (!(e->platforms & IR_PLAT_BIT(pl)))
				continue;
			if (e->port)
				snprintf(port, sizeof(port), "port %u", e->port);
			words_add(&w, "%s%s%s%s%s (%s)",
				  k == 0	 ? "to "
				  : k + 1 == n ? " and "
					       : ", ",
				  sub ? "subdomains of " : "", strchr(host, ':') ? "[" : "",
				  sub ? host + 2 : host, strchr(host, ':') ? "]" : "", port);
			k++;
		}
	}
	/* heel-exec's capture listens on these ports only (linux_net.h): a
	 * name without a port is 80 and 443 there. */
	if (pl == IR_LINUX && s->network.value == IR_NET_ALLOW_LIST) {
		unsigned ports[64];
		size_t np = 0;

		for (size_t i = 0; i < p->npatterns; i++) {
			const struct ir_net_pattern *e = &p->patterns[i];
			unsigned want[2], nw = 0;

			if (!(e->platforms & IR_PLAT_BIT(pl)))
				continue;
			if (e->port)
				want[nw++] = e->port;
			else
				want[nw++] = 80, want[nw++] = 443;
			for (unsigned j = 0; j < nw; j++) {
				size_t q;

				for (q = 0; q < np && ports[q] != want[j]; q++)
					;
				if (q == np && np < sizeof(ports) / sizeof(ports[0]))
					ports[np++] = want[j];
			}
		}
		words_add(&w, "; programs that ignore the proxy variables are captured");
		for (size_t i = 0; i < np; i++)
			words_add(&w, "%s%u",
				  i > 0		? (i + 1 == np ? " and " : ", ")
				  : np == 1 ? " on TCP port "
					    : " on TCP ports ",
				  ports[i]);
		if (!np)
			words_add(&w, " on no port");
		else
			words_add(&w, " (an entry without a port: 80 and 443 there)");
		words_add(&w, d->program ? ", names resolved by heel's name server (every name: "
					   "the decider judges the connection); other UDP is refused"
					 : ", names resolved by heel's name server, which answers "
					   "the list's names only; other UDP is refused");
	}
	if (s->allow_private.set && s->allow_private.value)
		words_add(&w, "; loopback, unspecified, link-local (cloud metadata), broadcast and "
			      "multicast addresses and the host's own addresses are refused, "
			      "private ranges allowed");
	else
		words_add(&w, "; loopback, unspecified, link-local (cloud metadata), broadcast and "
			      "multicast addresses, the host's own addresses and private ranges "
			      "are refused");
	if (!s->audit_path.value)
		words_add(&w, "; decisions are not recorded");
	else if (s->audit_kind.value == IR_AUDIT_DAILY)
		words_add(&w, "; every decision is appended to one file a day in %s",
			  s->audit_path.value);
	else
		words_add(&w, "; every decision is appended to %s", s->audit_path.value);
	/* heel-proxy asks the decider after the list, tells it the list's
	 * verdict and follows its answer. */
	if (d->program) {
		words_add(&w, "; %s", d->program);
		for (size_t i = 0; i < d->nargs; i++)
			words_arg(&w, d->args[i]);
		if (s->network.value == IR_NET_ALLOW_LIST)
			words_add(&w, ", on the host, decides each new destination after the list, "
				      "told what the list says: its answer is final");
		else
			words_add(&w, ", on the host, decides each new destination");
		words_add(&w, "; no answer within 5 s, a bad answer or a dead decider refuses that "
			      "and every later destination");
	}
	return w.s;
}

/* Prints `text` from column `indent`, wrapped at spaces before column 79,
 * continuation lines 2 further in. */
static void
print_wrapped(FILE *f, const char *prefix, const char *text, int indent)
{
	const int width = 78;
	int col = indent + (int)strlen(prefix);
	bool line_start = true;

	fprintf(f, "%*s%s", indent, "", prefix);
	while (*text) {
		size_t n = strcspn(text, " ");

		if (!line_start && col + 1 + (int)n > width) {
			fprintf(f, "\n%*s", indent + 2, "");
			col = indent + 2;
		} else if (!line_start) {
			fputc(' ', f);
			col++;
		}
		line_start = false;
		fwrite(text, 1, n, f);
		col += (int)n;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

/* The paragraph of each platform the policy is built for, once where
 * platforms agree. */
static void
print_network_words(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	char *text[IR_PLATFORM_COUNT] = {NULL};
	bool done[IR_PLATFORM_COUNT] = {false};
	unsigned all = 0;

	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		if (p->platforms & IR_PLAT_BIT(i))
			text[i] = network_words(p, i);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		if (text[i])
			all |= IR_PLAT_BIT(i);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		unsigned mask = 0;
		char plat[64], prefix[80] = "";

		if (!text[i] || done[i])
			continue;
		for (int j = i; j < IR_PLATFORM_COUNT; j++)
			if (text[j] && !done[j] && strcmp(text[i], text[j]) == 0) {
				mask |= IR_PLAT_BIT(j);
				done[j] = true;
			}
		if (mask != all) {
			platforms_text(mask, 0, plat, sizeof(plat));
			snprintf(prefix, sizeof(prefix), "[%s] ", plat);
		}
		print_wrapped(t->f, prefix, text[i], 2);
	}
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		free(text[i]);
}

/* The decider line: program, arguments and origin, once where platforms
 * agree. */
static void
print_decider(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	char *text[IR_PLATFORM_COUNT] = {NULL};
	bool done[IR_PLATFORM_COUNT] = {false};
	unsigned all = 0;

	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_decider *d = &p->decider[i];
		struct words w = {0};
		char orig[512];

		if (!(p->platforms & IR_PLAT_BIT(i)))
			continue;
		all |= IR_PLAT_BIT(i);
		if (!d->program) {
			words_add(&w, "none");
		} else {
			words_add(&w, "%s", d->program);
			for (size_t j = 0; j < d->nargs; j++)
				words_arg(&w, d->args[j]);
			origin_text(&d->origin, orig, sizeof(orig));
			words_add(&w, "  %s", orig);
		}
		text[i] = w.s;
	}
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		unsigned mask = 0;
		char plat[64];

		if (!text[i] || done[i])
			continue;
		for (int j = i; j < IR_PLATFORM_COUNT; j++)
			if (text[j] && !done[j] && strcmp(text[i], text[j]) == 0) {
				mask |= IR_PLAT_BIT(j);
				done[j] = true;
			}
		platforms_text(mask, all, plat, sizeof(plat));
		fprintf(t->f, "  %-14s %s%s%s%s\n", "decider", text[i], plat[0] ? "  [" : "", plat,
			plat[0] ? "]" : "");
	}
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		free(text[i]);
}

static void
print_network(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	size_t off_kind = offsetof(struct ir_scalars, network);
	size_t off_audit = offsetof(struct ir_scalars, audit_path);
	bool any_list = false, any_decider = false;

	fputs("\nNetwork\n", t->f);
	print_network_words(t);
	print_scalar_u64(t, "kind", off_kind, network_name, NULL);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		if ((p->platforms & IR_PLAT_BIT(i)) && p->scalar[i].network.value == IR_NET_ALLOW_LIST) {
			any_list = true;
			any_decider |= p->decider[i].program != NULL;
		}
	if (any_list) {
		fputs("  allowed destinations:\n", t->f);
		if (!p->npatterns)
			fputs(any_decider ? "    none listed: only what the decider allows can be reached\n"
					  : "    none: the allow-list is empty, nothing can be reached\n",
			      t->f);
		for (size_t i = 0; i < p->npatterns; i++) {
			const struct ir_net_pattern *n = &p->patterns[i];
			char host[300], extra[64] = "";

			host_text(n, host, sizeof(host));
			if (strncmp(n->host, "*.", 2) == 0)
				snprintf(extra, sizeof(extra), "(subdomains of %s only)", n->host + 2);
			fputs("  ", t->f);
			print_rule_line(t, host, extra, n->platforms, &n->origin, 38);
		}
	}
	{
		size_t off = offsetof(struct ir_scalars, allow_private);

		print_scalar_u64(t, "private ranges", off, yes_no, NULL);
	}
	if (!same_everywhere(p, strfield_eq, &off_audit) || p->scalar[first_platform(p)].audit_path.value) {
		for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
			const struct ir_scalars *s = &p->scalar[i];
			char orig[512];

			if (!(p->platforms & IR_PLAT_BIT(i)) || !s->audit_path.value)
				continue;
			origin_text(&s->audit_path.origin, orig, sizeof(orig));
			fprintf(t->f, "  %-14s %s %s  %s", "audit",
				s->audit_kind.value == IR_AUDIT_DAILY ? "one file a day in" : "to",
				s->audit_path.value, orig);
			/* One platform shown needs no name. */
			if (p->platforms & (p->platforms - 1))
				fprintf(t->f, "  [%s]", ir_platform_name(i));
			fputc('\n', t->f);
		}
	} else {
		fprintf(t->f, "  %-14s none\n", "audit");
	}
	print_decider(t);
}

static void
print_limits(struct text_out *t)
{
	fputs("\nLimits (whole process tree)\n", t->f);
	for (int l = 0; l < IR_LIMIT_COUNT; l++) {
		size_t off = offsetof(struct ir_scalars, limits) + (size_t)l * sizeof(struct ir_u64);
		const struct ir_policy *p = t->p;
		bool same = same_everywhere(p, field_eq, &off);

		for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
			const struct ir_u64 *v = &p->scalar[i].limits[l];
			char val[96], orig[512] = "";

			if (!(p->platforms & IR_PLAT_BIT(i)))
				continue;
			if (v->set) {
				limit_text(l, v->value, val, sizeof(val));
				origin_text(&v->origin, orig, sizeof(orig));
			} else {
				snprintf(val, sizeof(val), "inherited");
			}
			fprintf(t->f, "  %-14s %s%s%s", ir_limit_name(l), val, orig[0] ? "  " : "", orig);
			if (!same)
				fprintf(t->f, "  [%s]", ir_platform_name(i));
			fputc('\n', t->f);
			if (same)
				break;
		}
	}
	print_scalar_u64(t, "nice", offsetof(struct ir_scalars, nice), NULL, NULL);
	print_scalar_u64(t, "io-priority", offsetof(struct ir_scalars, io_priority), io_name, NULL);
}

static void
print_env(struct text_out *t)
{
	const struct ir_policy *p = t->p;

	fputs("\nEnvironment (cleared; kept: PATH HOME USER LANG LC_* TERM TZ SHELL)\n", t->f);
	for (size_t i = 0; i < p->nenv_pass; i++) {
		char line[300];

		snprintf(line, sizeof(line), "pass %s", p->env_pass[i].name);
		print_rule_line(t, line, NULL, p->env_pass[i].platforms, &p->env_pass[i].origin, 38);
	}
	for (size_t i = 0; i < p->nenv_set; i++) {
		char *line = NULL;

		if (asprintf(&line, "set %s=%s", p->env_set[i].name, p->env_set[i].value) < 0)
			continue;
		print_rule_line(t, line, NULL, p->env_set[i].platforms, &p->env_set[i].origin, 38);
		free(line);
	}
	if (!p->nenv_pass && !p->nenv_set)
		fputs("  nothing passed or set\n", t->f);
}

static void
print_misc(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	size_t off_workdir = offsetof(struct ir_scalars, workdir);
	bool same_workdir = same_everywhere(p, strfield_eq, &off_workdir);
	bool same_python = true;
	int first = first_platform(p);

	/* A setting inside `on PLATFORM { }` is said per platform, like the
	 * other scalars; where every platform agrees it is said once. */
	fputs("\nWorking directory\n", t->f);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_str *w = &p->scalar[i].workdir;
		char orig[512], plat[24] = "";

		if (!(p->platforms & IR_PLAT_BIT(i)) || (same_workdir && i != first))
			continue;
		if (!same_workdir)
			snprintf(plat, sizeof(plat), "  [%s]", ir_platform_name(i));
		if (w->value) {
			origin_text(&w->origin, orig, sizeof(orig));
			fprintf(t->f, "  %s (kept after the run)  %s%s\n", w->value, orig, plat);
		} else {
			fprintf(t->f, "  a fresh private directory, removed at exit; TMPDIR points inside "
				      "it%s\n",
				plat);
		}
	}
	print_scalar_u64(t, "gpu", offsetof(struct ir_scalars, gpu), yes_no, NULL);

	fputs("\nHost commands (ipc)\n", t->f);
	if (!p->nipc)
		fputs("  none\n", t->f);
	for (size_t i = 0; i < p->nipc; i++) {
		const struct ir_ipc *c = &p->ipc[i];
		char orig[512], plat[64];

		origin_text(&c->origin, orig, sizeof(orig));
		platforms_text(c->platforms, p->platforms, plat, sizeof(plat));
		fprintf(t->f, "  %s runs %s on the host, outside the sandbox  %s%s%s%s\n", c->name,
			c->exec, orig, plat[0] ? "  [" : "", plat, plat[0] ? " only]" : "");
		/* What a caller may pass, as the broker checks it: the
		 * positionals in order (a string unless an `arg` line types
		 * it), then the other `arg` lines. */
		for (size_t j = 0; j < c->npositionals; j++) {
			unsigned type = IR_IPC_STRING;

			for (size_t k = 0; k < c->nargs; k++)
				if (strcmp(c->args[k].name, c->positionals[j]) == 0)
					type = c->args[k].type;
			fprintf(t->f, "    positional %s: %s%s\n", c->positionals[j],
				ir_ipc_arg_type_name(type), arg_type_note(type));
		}
		for (size_t k = 0; k < c->nargs; k++) {
			bool positional = false;

			for (size_t j = 0; j < c->npositionals; j++)
				positional |= strcmp(c->args[k].name, c->positionals[j]) == 0;
			if (!positional)
				fprintf(t->f, "    arg --%s: %s%s\n", c->args[k].name,
					ir_ipc_arg_type_name(c->args[k].type),
					arg_type_note(c->args[k].type));
		}
		if (!c->npositionals && !c->nargs)
			fputs("    no arguments\n", t->f);
		if (c->timeout_ms)
			fprintf(t->f, "    timeout %" PRIu64 " ms\n", c->timeout_ms);
		else
			fprintf(t->f, "    timeout %u ms (the default: no `timeout` given)\n",
				IR_IPC_DEFAULT_TIMEOUT_MS);
	}

	fputs("\nPython\n", t->f);
	for (int i = 0; first >= 0 && i < IR_PLATFORM_COUNT; i++) {
		const struct ir_python *a = &p->python[first], *b = &p->python[i];

		/* One statement gives one origin: the same origin, the same
		 * block. */
		if ((p->platforms & IR_PLAT_BIT(i)) &&
		    (a->set != b->set ||
		     (a->set && (a->origin.file != b->origin.file || a->origin.line != b->origin.line ||
				 a->origin.col != b->origin.col))))
			same_python = false;
	}
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_python *py = &p->python[i];
		char orig[512], plat[24] = "";

		if (!(p->platforms & IR_PLAT_BIT(i)) || (same_python && i != first))
			continue;
		if (!same_python)
			snprintf(plat, sizeof(plat), "  [%s]", ir_platform_name(i));
		if (!py->set) {
			fprintf(t->f, "  no virtual environment%s\n", plat);
			continue;
		}
		origin_text(&py->origin, orig, sizeof(orig));
		fprintf(t->f, "  venv %s, %s inside  %s%s\n", py->venv,
			py->allow_pip_install ? "writable (pip install allowed)" : "read and run only",
			orig, plat);
		for (size_t j = 0; j < py->npackages; j++)
			fprintf(t->f, "    package %s\n", py->packages[j]);
	}
	if (first < 0)
		fputs("  no virtual environment\n", t->f);
}

/* ------------------------------------------------------------ sockets */

/* What socket(2) may create under the seccomp filter heelc compiles for
 * this policy: each kind is asked of the model (scp_eval), the linear
 * reference the generated BPF is tested against, so the words follow the
 * filter and cannot drift from it (a `seccomp allow "socket"` removes the
 * filter and every kind below opens). Linux ABI values, the same on
 * x86_64 and aarch64. */
struct sock_probe {
	const char *key; /* in --json */
	const char *kind;
	const char *why; /* what it allows, said when it opens */
	bool flag;       /* open, it needs a reviewer's attention */
	uint32_t family, type, protocol;
};

static const struct sock_probe sock_probes[] = {
	{"tcp", "TCP", "to heel-proxy and the sandbox's own loopback (its network namespace)", false,
	 2, 1, 0},
	{"udp", "UDP", "bypasses the proxy", true, 2, 2, 0},
	{"raw_ip", "ICMP, raw IP", "bypasses the proxy", true, 2, 3, 1},
	{"unix", "unix", "a host daemon's socket (a container engine's) is an escape", true, 1, 1, 0},
	{"netlink_route", "netlink route", "lists the interfaces (read-only without CAP_NET_ADMIN)", false, 16, 3, 0},
	{"netlink_other", "other netlink", "sock_diag lists the host's sockets; audit, uevent", true, 16, 3, 4},
	{"packet", "packet", "raw frames (needs CAP_NET_RAW)", true, 17, 3, 0},
	{"vsock", "vsock", "reaches the hypervisor host, outside any network namespace", true, 40, 1, 0},
	{"other_families", "other families", "AF_ALG, AF_KEY, AF_TIPC, Bluetooth, ... (kernel attack surface)", true,
	 38, 5, 0},
};
#define N_SOCK_PROBES (sizeof(sock_probes) / sizeof(sock_probes[0]))

/* Fills open[i] for each probe; *lifted gets the `seccomp allow` statement
 * that removed the socket filter, if any. Returns 0, -ENOENT when the
 * policy is not built for linux, or -ENOMEM. */
static int
socket_verdicts(const struct ir_policy *p, bool open[N_SOCK_PROBES],
		const struct ir_seccomp_rule **lifted)
{
	struct bpf_sim_data d = {0};
	struct scp_model *m = NULL;
	int e;

	*lifted = NULL;
	if (!(p->platforms & IR_PLAT_BIT(IR_LINUX)))
		return -ENOENT;
	/* Both architectures get the same socket rules; x86_64 stands for
	 * them. */
	e = scp_build(p, SCP_X86_64, &m);
	if (e)
		return e;
	d.arch = m->audit_arch;
	if (scp_lookup(SCP_X86_64, "socket", &d.nr) != 0) {
		scp_free(m);
		return -ENOENT;
	}
	for (size_t i = 0; i < N_SOCK_PROBES; i++) {
		d.args[0] = sock_probes[i].family;
		d.args[1] = sock_probes[i].type;
		d.args[2] = sock_probes[i].protocol;
		open[i] = scp_eval(m, &d) == SCP_ALLOW;
	}
	scp_free(m);
	for (size_t i = 0; i < p->nseccomp; i++)
		if (p->seccomp[i].action == IR_SECCOMP_ALLOW && strcmp(p->seccomp[i].syscall, "socket") == 0)
			*lifted = &p->seccomp[i];
	return 0;
}

static void
print_sockets(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	const struct ir_seccomp_rule *lifted;
	const struct ir_u64 *u = &p->scalar[IR_LINUX].unix_sockets;
	bool open[N_SOCK_PROBES];
	char orig[512];

	if (socket_verdicts(p, open, &lifted) != 0)
		return;
	fputs("\nSockets (linux: what the seccomp filter lets socket(2) create)\n", t->f);
	if (lifted) {
		origin_text(&lifted->origin, orig, sizeof(orig));
		fprintf(t->f,
			"! seccomp allow \"socket\" removes heel's socket filter  %s\n"
			"! any family and type can be created: unix sockets to host daemons,\n"
			"! UDP and raw sockets that bypass the proxy, netlink, vsock\n",
			orig);
	}
	for (size_t i = 0; i < N_SOCK_PROBES; i++) {
		const struct sock_probe *s = &sock_probes[i];
		bool risky = open[i] && s->flag;

		t->flags += risky;
		fprintf(t->f, "%c %-15s %s", risky ? '!' : ' ', s->kind, open[i] ? "allowed" : "denied");
		/* No proxy under deny: TCP stays inside the sandbox, and
		 * heel-exec refuses it where loopback would be the host's. */
		if (open[i] && s->family == 2 && s->type == 1 && !lifted &&
		    p->scalar[IR_LINUX].network.value == IR_NET_DENY)
			fprintf(t->f, ": the sandbox's own loopback only (its network namespace; "
				      "refused without one)");
		else if (open[i])
			fprintf(t->f, ": %s", s->why);
		if (s->family == 1 && open[i] && u->set && u->value && !lifted) {
			origin_text(&u->origin, orig, sizeof(orig));
			fprintf(t->f, "  %s", orig);
		}
		fputc('\n', t->f);
	}
}

static void
print_extras(struct text_out *t)
{
	const struct ir_policy *p = t->p;
	char orig[512];

	fputs("\nPlatform extras\n", t->f);
	for (size_t i = 0; i < p->nseccomp; i++) {
		const struct ir_seccomp_rule *r = &p->seccomp[i];

		origin_text(&r->origin, orig, sizeof(orig));
		if (r->action == IR_SECCOMP_ALLOW)
			fprintf(t->f, "  linux: seccomp allows %s (removed from the default deny list)  %s\n",
				r->syscall, orig);
		else
			fprintf(t->f, "  linux: seccomp denies %s with %s  %s\n", r->syscall,
				errno_name(r->errno_value) ? errno_name(r->errno_value) : "an unknown errno",
				orig);
	}
	for (size_t i = 0; i < p->nmach_lookups; i++) {
		origin_text(&p->mach_lookups[i].origin, orig, sizeof(orig));
		fprintf(t->f, "  macos: mach-lookup %s  %s\n", p->mach_lookups[i].value, orig);
	}
	for (size_t i = 0; i < p->nsbpl; i++) {
		origin_text(&p->sbpl[i].origin, orig, sizeof(orig));
		fprintf(t->f, "! macos: raw SBPL, not checked by heel: %s  %s\n", p->sbpl[i].value, orig);
		t->flags++;
	}
	for (size_t i = 0; i < p->ncapabilities; i++) {
		origin_text(&p->capabilities[i].origin, orig, sizeof(orig));
		/* A capability widens what the container reaches (a library
		 * folder, enterprise credentials), past every grant above. */
		fprintf(t->f, "! windows: capability %s  %s\n", p->capabilities[i].value, orig);
		t->flags++;
	}
}

/* What the parts left out of the view can do that heel does not check:
 * raw SBPL (macOS) and capabilities (Windows), flagged like raw SBPL of
 * a part shown, so that explaining on one system never hides another
 * system's escape hatch from whoever approves the artifact. */
static void
print_hidden_extras(const struct view *v, struct text_out *t)
{
	char orig[512];

	if (!v->nhidden_sbpl && !v->nhidden_caps)
		return;
	fputs("\nEscape hatches of the parts not shown (--target all shows those parts)\n", t->f);
	for (size_t i = 0; i < v->nhidden_sbpl; i++) {
		origin_text(&v->hidden_sbpl[i].origin, orig, sizeof(orig));
		fprintf(t->f, "! macos: raw SBPL, not checked by heel: %s  %s\n",
			v->hidden_sbpl[i].value, orig);
		t->flags++;
	}
	for (size_t i = 0; i < v->nhidden_caps; i++) {
		origin_text(&v->hidden_caps[i].origin, orig, sizeof(orig));
		fprintf(t->f, "! windows: capability %s  %s\n", v->hidden_caps[i].value, orig);
		t->flags++;
	}
}

static int
explain_view_text(const struct view *v, const char *name, FILE *out)
{
	const struct ir_policy *p = &v->p;
	struct text_out t = { .f = out, .p = p };
	char plat[64] = "";
	int first = first_platform(p);

	fprintf(out, "heel policy %s\n", name);
	platforms_text(v->built, 0, plat, sizeof(plat));
	fprintf(out, "  %-14s %s\n", "platforms", plat);
	if (p->platforms != v->built) {
		platforms_text(p->platforms, 0, plat, sizeof(plat));
		fprintf(out, "  %-14s %s only (--target all shows every platform)\n", "shown", plat);
	}
	for (int i = 0; i < IR_PLATFORM_COUNT; i++)
		if (p->excluded_reason[i])
			fprintf(out, "  %-14s %s left out: %s\n", "", ir_platform_name(i),
				p->excluded_reason[i]);
	if (first >= 0) {
		char orig[512];

		origin_text(&p->scalar[first].isolation.origin, orig, sizeof(orig));
		fprintf(out, "  %-14s %s  %s\n", "isolation", ir_isolation_name(p->scalar[first].isolation.value),
			orig);
	}

	print_paths(&t, "Reads", want_read, NULL);
	print_paths(&t, "Writes", want_write,
		    "the working directory (always writable, never executable)");
	/* What never runs, whatever the grants above it say: the line a
	 * reviewer of a base that runs user files needs beside the list. */
	print_paths(&t, "Runs programs from", want_exec,
		    "never the working directory, shared temp, or what is writable (unless "
		    "granted rwx)");
	print_rwx(&t);
	print_paths(&t, "Denied by the policy's own deny statements", want_user_deny, NULL);
	print_protections(&t);
	print_readonly(&t);
	print_network(&t);
	print_limits(&t);
	print_env(&t);
	print_misc(&t);
	print_sockets(&t);
	print_extras(&t);
	print_hidden_extras(v, &t);
	if (t.flags)
		fprintf(out, "\n%d item%s flagged with ! above need a reviewer's attention.\n", t.flags,
			t.flags == 1 ? "" : "s");
	return ferror(out) ? -EIO : 0;
}

int
explain_text(const struct ir_policy *policy, const char *name, unsigned shown, FILE *out)
{
	struct view v;
	int e = view_make(policy, shown, &v);

	if (e)
		return e;
	e = explain_view_text(&v, name, out);
	view_free(&v);
	return e;
}

/* ------------------------------------------------------------ JSON */

static json_t *
json_origin(const struct ir_origin *o)
{
	char buf[512];

	origin_text(o, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *
json_platforms(unsigned mask)
{
	json_t *a = json_array();

	for (int p = 0; p < IR_PLATFORM_COUNT; p++)
		if (mask & IR_PLAT_BIT(p))
			json_array_append_new(a, json_string(ir_platform_name(p)));
	return a;
}

static json_t *
json_rule(const struct ir_path_rule *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", json_string(r->path));
	json_object_set_new(o, "mode", json_string(ir_mode_name(r->mode)));
	json_object_set_new(o, "optional", json_boolean(r->optional));
	json_object_set_new(o, "platforms", json_platforms(r->platforms));
	if (r->set != IR_SET_NONE)
		json_object_set_new(o, "protection", json_string(ir_set_name(r->set)));
	json_object_set_new(o, "origin", json_origin(&r->origin));
	return o;
}

static json_t *
json_u64(const struct ir_u64 *v, json_t *value)
{
	json_t *o = json_object();

	json_object_set_new(o, "value", v->set ? value : json_null());
	if (!v->set)
		json_decref(value);
	if (v->set)
		json_object_set_new(o, "origin", json_origin(&v->origin));
	return o;
}

static json_t *
json_strv(char **v, size_t n);

static json_t *
json_scalars(const struct ir_policy *p, int pl)
{
	const struct ir_scalars *s = &p->scalar[pl];
	const struct ir_decider *d = &p->decider[pl];
	json_t *o = json_object(), *limits = json_object(), *net = json_object();
	json_t *prot = json_array();

	json_object_set_new(o, "isolation", json_u64(&s->isolation, json_string(ir_isolation_name(s->isolation.value))));
	json_object_set_new(net, "kind", json_u64(&s->network, json_string(network_name(s->network.value))));
	json_object_set_new(net, "allow_private", json_u64(&s->allow_private, json_boolean(s->allow_private.value)));
	if (s->audit_path.value) {
		json_t *a = json_object();

		json_object_set_new(a, "kind", json_string(s->audit_kind.value == IR_AUDIT_DAILY ? "daily" : "file"));
		json_object_set_new(a, "path", json_string(s->audit_path.value));
		json_object_set_new(a, "origin", json_origin(&s->audit_path.origin));
		json_object_set_new(net, "audit", a);
	} else {
		json_object_set_new(net, "audit", json_null());
	}
	if (d->program)
		json_object_set_new(net, "decide",
				    json_pack("{s:s, s:o, s:o}", "program", d->program, "args",
					      json_strv(d->args, d->nargs), "origin",
					      json_origin(&d->origin)));
	else
		json_object_set_new(net, "decide", json_null());
	json_object_set_new(o, "network", net);
	for (int l = 0; l < IR_LIMIT_COUNT; l++)
		json_object_set_new(limits, ir_limit_name(l),
				    json_u64(&s->limits[l], json_integer((json_int_t)s->limits[l].value)));
	json_object_set_new(o, "limits", limits);
	json_object_set_new(o, "nice", json_u64(&s->nice, json_integer((json_int_t)s->nice.value)));
	json_object_set_new(o, "io_priority", json_u64(&s->io_priority, json_string(io_name(s->io_priority.value))));
	json_object_set_new(o, "gpu", json_u64(&s->gpu, json_boolean(s->gpu.value)));
	if (s->workdir.value) {
		json_t *w = json_object();

		json_object_set_new(w, "path", json_string(s->workdir.value));
		json_object_set_new(w, "origin", json_origin(&s->workdir.origin));
		json_object_set_new(o, "workdir", w);
	} else {
		json_object_set_new(o, "workdir", json_null());
	}
	for (int set = 0; set < IR_SET_COUNT; set++)
		if (s->protections.set && (s->protections.value & (1ull << set)))
			json_array_append_new(prot, json_string(ir_set_name(set)));
	json_object_set_new(o, "protections", prot);
	json_object_set_new(o, "unix_sockets", json_u64(&s->unix_sockets, json_boolean(s->unix_sockets.value)));
	return o;
}

static json_t *
json_named(const struct ir_named *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "value", json_string(v[i].value));
		json_object_set_new(o, "origin", json_origin(&v[i].origin));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
json_strv(char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *
json_policy(const struct view *v, const char *name)
{
	const struct ir_policy *p = &v->p;
	json_t *root = json_object(), *paths[4], *per = json_object(), *flags = json_array();
	json_t *patterns = json_array(), *env = json_object(), *pass = json_array(), *set = json_array();
	json_t *ipc = json_array(), *python = json_object(), *seccomp = json_array();
	static const char *const groups[] = { "reads", "writes", "exec", "denies" };

	json_object_set_new(root, "policy", json_string(name));
	json_object_set_new(root, "platforms", json_platforms(v->built));
	json_object_set_new(root, "shown", json_platforms(p->platforms));
	{
		char hex[65];

		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", p->source_digest[i]);
		json_object_set_new(root, "source_digest", json_string(hex));
	}
	for (int i = 0; i < 4; i++)
		paths[i] = json_array();
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ir_path_rule *r = &p->paths[i];

		if (r->mode & IR_READ)
			json_array_append_new(paths[0], json_rule(r));
		if (r->mode & IR_WRITE)
			json_array_append_new(paths[1], json_rule(r));
		if (r->mode & IR_EXEC)
			json_array_append_new(paths[2], json_rule(r));
		if (r->mode == IR_MODE_DENY)
			json_array_append_new(paths[3], json_rule(r));
		if (r->mode == IR_MODE_RWX) {
			json_t *f = json_object();

			json_object_set_new(f, "kind", json_string("writable-and-executable"));
			json_object_set_new(f, "path", json_string(r->path));
			json_object_set_new(f, "origin", json_origin(&r->origin));
			json_array_append_new(flags, f);
		}
	}
	for (int i = 0; i < 4; i++)
		json_object_set_new(root, groups[i], paths[i]);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		if (p->platforms & IR_PLAT_BIT(i))
			json_object_set_new(per, ir_platform_name(i), json_scalars(p, i));
		else if (p->excluded_reason[i])
			json_object_set_new(per, ir_platform_name(i),
					    json_pack("{s:s}", "excluded", p->excluded_reason[i]));
	}
	json_object_set_new(root, "settings", per);
	for (size_t i = 0; i < p->npatterns; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "host", json_string(p->patterns[i].host));
		json_object_set_new(o, "port", p->patterns[i].port ? json_integer(p->patterns[i].port) : json_null());
		json_object_set_new(o, "platforms", json_platforms(p->patterns[i].platforms));
		json_object_set_new(o, "origin", json_origin(&p->patterns[i].origin));
		json_array_append_new(patterns, o);
	}
	json_object_set_new(root, "network_allow", patterns);
	{
		json_t *ro = json_array();

		for (size_t i = 0; i < p->nreadonly; i++) {
			const struct ir_readonly *r = &p->readonly[i];
			json_t *o = json_object();

			json_object_set_new(o, "path", json_string(r->path));
			json_object_set_new(o, "each_writable", json_boolean(r->each_writable));
			json_object_set_new(o, "because", r->because ? json_string(r->because) : json_null());
			json_object_set_new(o, "platforms", json_platforms(r->platforms));
			if (r->set != IR_SET_NONE)
				json_object_set_new(o, "protection", json_string(ir_set_name(r->set)));
			json_object_set_new(o, "origin", json_origin(&r->origin));
			json_array_append_new(ro, o);
		}
		json_object_set_new(root, "readonly", ro);
	}
	for (size_t i = 0; i < p->nenv_pass; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(p->env_pass[i].name));
		json_object_set_new(o, "platforms", json_platforms(p->env_pass[i].platforms));
		json_object_set_new(o, "origin", json_origin(&p->env_pass[i].origin));
		json_array_append_new(pass, o);
	}
	for (size_t i = 0; i < p->nenv_set; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(p->env_set[i].name));
		json_object_set_new(o, "value", json_string(p->env_set[i].value));
		json_object_set_new(o, "platforms", json_platforms(p->env_set[i].platforms));
		json_object_set_new(o, "origin", json_origin(&p->env_set[i].origin));
		json_array_append_new(set, o);
	}
	json_object_set_new(env, "pass", pass);
	json_object_set_new(env, "set", set);
	json_object_set_new(root, "env", env);
	for (size_t i = 0; i < p->nipc; i++) {
		const struct ir_ipc *c = &p->ipc[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(c->name));
		json_object_set_new(o, "exec", json_string(c->exec));
		json_object_set_new(o, "positionals", json_strv(c->positionals, c->npositionals));
		{
			json_t *args = json_array();

			for (size_t k = 0; k < c->nargs; k++) {
				json_t *a = json_object();

				json_object_set_new(a, "name", json_string(c->args[k].name));
				json_object_set_new(a, "type",
						    json_string(ir_ipc_arg_type_name(c->args[k].type)));
				json_array_append_new(args, a);
			}
			json_object_set_new(o, "args", args);
		}
		json_object_set_new(o, "effective_timeout_ms",
				    json_integer((json_int_t)(c->timeout_ms ? c->timeout_ms
									    : IR_IPC_DEFAULT_TIMEOUT_MS)));
		json_object_set_new(o, "timeout_ms", c->timeout_ms ? json_integer((json_int_t)c->timeout_ms) : json_null());
		json_object_set_new(o, "platforms", json_platforms(c->platforms));
		json_object_set_new(o, "origin", json_origin(&c->origin));
		json_array_append_new(ipc, o);
	}
	json_object_set_new(root, "ipc", ipc);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_python *py = &p->python[i];

		if (!(p->platforms & IR_PLAT_BIT(i)) || !py->set)
			continue;
		json_object_set_new(python, ir_platform_name(i),
				    json_pack("{s:s, s:o, s:b, s:o}", "venv", py->venv, "packages",
					      json_strv(py->packages, py->npackages), "allow_pip_install",
					      py->allow_pip_install, "origin", json_origin(&py->origin)));
	}
	json_object_set_new(root, "python", python);
	for (size_t i = 0; i < p->nseccomp; i++) {
		const struct ir_seccomp_rule *r = &p->seccomp[i];
		json_t *o = json_object();

		json_object_set_new(o, "syscall", json_string(r->syscall));
		json_object_set_new(o, "action", json_string(r->action == IR_SECCOMP_ALLOW ? "allow" : "deny"));
		if (r->action != IR_SECCOMP_ALLOW)
			json_object_set_new(o, "errno", json_string(errno_name(r->errno_value) ? errno_name(r->errno_value) : "?"));
		json_object_set_new(o, "origin", json_origin(&r->origin));
		json_array_append_new(seccomp, o);
	}
	json_object_set_new(root, "seccomp", seccomp);
	{
		const struct ir_seccomp_rule *lifted;
		bool open[N_SOCK_PROBES];

		if (socket_verdicts(p, open, &lifted) == 0) {
			json_t *socks = json_object();

			for (size_t i = 0; i < N_SOCK_PROBES; i++)
				json_object_set_new(socks, sock_probes[i].key, json_boolean(open[i]));
			json_object_set_new(socks, "filter_removed_by",
					    lifted ? json_origin(&lifted->origin) : json_null());
			json_object_set_new(root, "linux_sockets", socks);
		}
	}
	json_object_set_new(root, "mach_lookup", json_named(p->mach_lookups, p->nmach_lookups));
	json_object_set_new(root, "sbpl", json_named(p->sbpl, p->nsbpl));
	json_object_set_new(root, "capabilities", json_named(p->capabilities, p->ncapabilities));
	for (size_t i = 0; i < p->nsbpl; i++) {
		json_t *f = json_object();

		json_object_set_new(f, "kind", json_string("raw-sbpl"));
		json_object_set_new(f, "value", json_string(p->sbpl[i].value));
		json_object_set_new(f, "origin", json_origin(&p->sbpl[i].origin));
		json_array_append_new(flags, f);
	}
	for (size_t i = 0; i < p->ncapabilities; i++) {
		json_t *f = json_object();

		json_object_set_new(f, "kind", json_string("capability"));
		json_object_set_new(f, "value", json_string(p->capabilities[i].value));
		json_object_set_new(f, "origin", json_origin(&p->capabilities[i].origin));
		json_array_append_new(flags, f);
	}
	/* The parts not shown keep their escape hatches in the flags. */
	for (size_t i = 0; i < v->nhidden_sbpl; i++) {
		json_t *f = json_object();

		json_object_set_new(f, "kind", json_string("raw-sbpl"));
		json_object_set_new(f, "value", json_string(v->hidden_sbpl[i].value));
		json_object_set_new(f, "origin", json_origin(&v->hidden_sbpl[i].origin));
		json_object_set_new(f, "shown", json_false());
		json_array_append_new(flags, f);
	}
	for (size_t i = 0; i < v->nhidden_caps; i++) {
		json_t *f = json_object();

		json_object_set_new(f, "kind", json_string("capability"));
		json_object_set_new(f, "value", json_string(v->hidden_caps[i].value));
		json_object_set_new(f, "origin", json_origin(&v->hidden_caps[i].origin));
		json_object_set_new(f, "shown", json_false());
		json_array_append_new(flags, f);
	}
	json_object_set_new(root, "flags", flags);
	return root;
}

int
explain_json(const struct ir_policy *policy, const char *name, unsigned shown, FILE *out)
{
	struct view v;
	json_t *root;
	int rc = view_make(policy, shown, &v);

	if (rc)
		return rc;
	root = json_policy(&v, name);
	view_free(&v);
	if (!root)
		return -ENOMEM;
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(root);
	if (rc < 0)
		return -EIO;
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

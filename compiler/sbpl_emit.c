/* SPDX-License-Identifier: MIT
 * IR -> SBPL profile + parameter table (docs/sbpl.md). SBPL's last
 * matching rule wins, so heel's longest-path rule becomes emission order:
 * every path rule fixes read, write and exec for its whole subtree, and
 * rules are written shallow to deep. Paths are never spliced into the
 * text: each is a `(param "NAME")` the launcher fills after expanding and
 * canonicalising it, and checks that the order still holds. */
#include "sbpl_emit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "grow.h"
#include "sbpl_params.h"

static_assert(ART_SBPL_MODE_NOEXEC > IR_MODE_RWX && ART_SBPL_MODE_READONLY > IR_MODE_RWX &&
		      ART_SBPL_MODE_WORKDIR > IR_MODE_RWX,
	      "special modes stay clear of the access bits");

/* Longer regex strings are refused by some SBPL readers. */
#define SBPL_REGEX_MAX 255

/* Estimated depths of the variables a template may start a component
 * with (sbpl_estimated_depth). */
#define DEPTH_HOME 2u	/* /Users/NAME */
#define DEPTH_TMPDIR 6u /* /private/var/folders/xx/yyyy/T */
#define DEPTH_OTHER 4u	/* ${CWD}, ${PROJECT}...: a directory in a home, /Users/NAME/src/x */
/* A fresh working directory: heel-exec makes it beneath TMPDIR. */
#define DEPTH_FRESH_WORKDIR (DEPTH_TMPDIR + 1u)

/* Order among rules of one estimated depth (only the same path can
 * collide there): a base grant loses to a `readonly` of the very path,
 * which loses to an explicit grant of it; shared temp is never
 * executable and the working directory's rights are fixed, whatever a
 * rule of the same path says. */
enum rule_class { CLS_BASE, CLS_READONLY, CLS_POLICY, CLS_NOEXEC, CLS_WORKDIR };

struct rule {
	char *tmpl;	/* canonical template, owned */
	const char *key; /* tmpl without a leading "./" */
	uint8_t kind;	/* ART_SBPL_KIND_PATH or _WORKDIR */
	uint8_t mode;
	uint8_t cls;
	uint8_t set;	/* protection set, or IR_SET_NONE */
	bool optional;
	bool explicit_grant; /* a grant a preset or the user wrote */
	unsigned depth;
	const char *what;
	struct ir_origin origin;
};

struct sb {
	char *d;
	size_t len, cap;
	int rc;
};

static void
sb_add(struct sb *b, const char *s, size_t n)
{
	char *d;

	if (b->rc)
		return;
	d = grow_array(b->d, &b->cap, b->len + n + 1, 1, 1024);
	if (!d) {
		b->rc = -ENOMEM;
		return;
	}
	b->d = d;
	memcpy(b->d + b->len, s, n);
	b->len += n;
	b->d[b->len] = '\0';
}

static void
sb_puts(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void
sb_printf(struct sb *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->rc = b->rc ? b->rc : -EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sb_add(b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->rc = b->rc ? b->rc : -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_add(b, big, (size_t)n);
		free(big);
	}
}

/* An SBPL string literal: `\` and `"` escaped; callers pass no control
 * characters (the IR holds none in what reaches here). */
static void
sb_quoted(struct sb *b, const char *s)
{
	sb_add(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			sb_add(b, "\\", 1);
		sb_add(b, s, 1);
	}
	sb_add(b, "\"", 1);
}

/* A comment's free text: printable ASCII and UTF-8 kept, control
 * characters shown as '?', so a file name cannot end the comment. */
static void
sb_comment_text(struct sb *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		sb_add(b, (c < 0x20 || c == 0x7f) ? "?" : s, 1);
	}
}

static void
sb_origin(struct sb *b, const struct ir_origin *o)
{
	if (!o->file) {
		sb_puts(b, "built in");
		return;
	}
	sb_comment_text(b, o->file);
	sb_printf(b, ":%u", (unsigned)o->line);
}

char *
sbpl_canonical_literal(const char *tmpl)
{
	static const char *const links[] = {"/tmp", "/var", "/etc"};

	/* /System/Volumes/Data/Users/a is /Users/a: one place, one rule. */
	tmpl = sbpl_firmlink_fold(tmpl);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		size_t n = strlen(links[i]);

		if (strncmp(tmpl, links[i], n) == 0 && (tmpl[n] == '\0' || tmpl[n] == '/')) {
			size_t len = strlen(tmpl);
			char *s = malloc(len + sizeof("/private"));

			if (s) {
				memcpy(s, "/private", 8);
				memcpy(s + 8, tmpl, len + 1);
			}
			return s;
		}
	}
	return strdup(tmpl);
}

unsigned
sbpl_estimated_depth(const char *t)
{
	unsigned d = 0;

	if (t[0] == '.' && t[1] == '/')
		t += 2;
	if (t[0] != '/' && strncmp(t, "${", 2) != 0)
		d = DEPTH_OTHER; /* relative: beneath the launch directory */
	while (*t) {
		const char *end;
		size_t n;

		while (*t == '/')
			t++;
		if (!*t)
			break;
		end = strchr(t, '/');
		n = end ? (size_t)(end - t) : strlen(t);
		if (n == 7 && strncmp(t, "${HOME}", 7) == 0)
			d += DEPTH_HOME;
		else if (n == 9 && strncmp(t, "${TMPDIR}", 9) == 0)
			d += DEPTH_TMPDIR;
		else if (n > 3 && t[0] == '$' && t[1] == '{' && t[n - 1] == '}')
			d += DEPTH_OTHER;
		else
			d += 1;
		t += n;
	}
	return d;
}

static const char *
key_of(const char *p)
{
	return (p[0] == '.' && p[1] == '/') ? p + 2 : p;
}

static bool
is_device(const char *p)
{
	return strncmp(p, "/dev", 4) == 0 && (p[4] == '\0' || p[4] == '/');
}

struct builder {
	struct rule *r;
	size_t n, cap;
	int rc;
};

static struct rule *
add_rule(struct builder *b, const char *tmpl, uint8_t kind, uint8_t mode, uint8_t cls,
	 const char *what, const struct ir_origin *origin)
{
	struct rule *r;

	if (b->rc)
		return NULL;
	r = grow_array(b->r, &b->cap, b->n + 1, sizeof(*b->r), 32);
	if (!r) {
		b->rc = -ENOMEM;
		return NULL;
	}
	b->r = r;
	r = &b->r[b->n];
	memset(r, 0, sizeof(*r));
	r->tmpl = sbpl_canonical_literal(tmpl);
	if (!r->tmpl) {
		b->rc = -ENOMEM;
		return NULL;
	}
	b->n++;
	r->key = key_of(r->tmpl);
	r->kind = kind;
	r->mode = mode;
	r->cls = cls;
	r->what = what;
	r->set = IR_SET_NONE;
	if (origin)
		r->origin = *origin;
	return r;
}

static int
cmp_key(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	/* Deterministic merge order whatever qsort does: by origin. */
	if (x->origin.line != y->origin.line)
		return x->origin.line < y->origin.line ? -1 : 1;
	return strcmp(x->origin.file ? x->origin.file : "", y->origin.file ? y->origin.file : "");
}

static int
cmp_order(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The macOS path rules and the python venv, merged per path the way the
 * Linux backend merges them: a grant beats a deny of the very path (the
 * deny is a default protection the grant opens), two grants keep the
 * union and are required if either is. */
static void
collect_paths(struct builder *b, const struct ir_policy *p)
{
	size_t first = b->n, w;
	const struct ir_python *py = &p->python[IR_MACOS];

	if (py->set && py->venv) {
		struct rule *r = add_rule(b, py->venv, ART_SBPL_KIND_PATH,
					  py->allow_pip_install ? IR_MODE_RWX : IR_MODE_RX,
					  CLS_POLICY, "python venv", &py->origin);
		if (r) {
			/* heel-exec makes it before the sandbox starts. */
			r->optional = true;
			r->explicit_grant = true;
		}
	}
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ir_path_rule *ir = &p->paths[i];
		struct rule *r;

		if (!(ir->platforms & IR_PLAT_BIT(IR_MACOS)))
			continue;
		r = add_rule(b, ir->path, ART_SBPL_KIND_PATH, ir->mode,
			     ir->source == IR_SRC_BASE ? CLS_BASE : CLS_POLICY,
			     ir->mode == IR_MODE_DENY ? (ir->set != IR_SET_NONE ? "protect" : "deny")
						       : "grant",
			     &ir->origin);
		if (!r)
			return;
		r->set = ir->set;
		r->optional = ir->optional || ir->mode == IR_MODE_DENY;
		r->explicit_grant = ir->mode != IR_MODE_DENY && ir->source != IR_SRC_BASE;
	}
	if (b->rc || b->n == first)
		return;
	qsort(b->r + first, b->n - first, sizeof(*b->r), cmp_key);
	w = first;
	for (size_t i = first; i < b->n; i++) {
		struct rule *m = &b->r[i];

		if (w > first && strcmp(b->r[w - 1].key, m->key) == 0) {
			struct rule *d = &b->r[w - 1];

			if (m->mode != IR_MODE_DENY && d->mode == IR_MODE_DENY) {
				free(d->tmpl);
				*d = *m;
			} else if (m->mode != IR_MODE_DENY) {
				d->mode |= m->mode;
				d->optional = d->optional && m->optional;
				d->explicit_grant |= m->explicit_grant;
				if (m->cls > d->cls)
					d->cls = m->cls;
				free(m->tmpl);
			} else {
				free(m->tmpl);
			}
			continue;
		}
		b->r[w++] = *m;
	}
	b->n = w;
}

static const struct rule *
find_key(const struct builder *b, const char *key)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->r[i].key, key) == 0)
			return &b->r[i];
	return NULL;
}

static void
collect_readonly(struct builder *b, const struct ir_policy *p)
{
	for (size_t i = 0; i < p->nreadonly; i++) {
		const struct ir_readonly *ro = &p->readonly[i];
		const struct rule *g;
		struct rule *r;
		char *canon;

		if (ro->each_writable || !(ro->platforms & IR_PLAT_BIT(IR_MACOS)))
			continue;
		canon = sbpl_canonical_literal(ro->path);
		if (!canon) {
			b->rc = -ENOMEM;
			return;
		}
		/* An explicit grant of the very path wins over `readonly`. */
		g = find_key(b, key_of(canon));
		free(canon);
		if (g && g->explicit_grant)
			continue;
		r = add_rule(b, ro->path, ART_SBPL_KIND_PATH, ART_SBPL_MODE_READONLY, CLS_READONLY,
			     "readonly", &ro->origin);
		if (r) {
			r->optional = true;
			r->set = ro->set;
		}
	}
}

/* The builtin rules: shared temp never executable (every base, even
 * permissive), and the working directory. */
static void
collect_fixed(struct builder *b, const struct ir_policy *p)
{
	static const char *const shared_temp[] = {"/private/tmp", "/private/var/folders"};
	const struct ir_str *wd = &p->scalar[IR_MACOS].workdir;
	struct rule *r;

	for (size_t i = 0; i < sizeof(shared_temp) / sizeof(shared_temp[0]); i++) {
		r = add_rule(b, shared_temp[i], ART_SBPL_KIND_PATH, ART_SBPL_MODE_NOEXEC,
			     CLS_NOEXEC, "shared temp, never executable", NULL);
		if (r)
			r->optional = true;
	}
	r = add_rule(b, "", ART_SBPL_KIND_WORKDIR, ART_SBPL_MODE_WORKDIR, CLS_WORKDIR,
		     "working directory: read, write, never executable",
		     wd->value ? &wd->origin : NULL);
	if (r)
		r->depth = wd->value ? sbpl_estimated_depth(wd->value) : DEPTH_FRESH_WORKDIR;
}

/* ------------------------------------------------------------ text */

static void
emit_header(struct sb *t)
{
	sb_puts(t,
		"(version 1)\n"
		";; heel: generated by heelc; docs/sbpl.md explains every line.\n"
		";; Every path is a (param \"NAME\") filled by heel-exec at launch.\n"
		";; The last matching rule wins: broad rules come first, deeper ones after.\n"
		"(deny default)\n");
}

static const char *const baseline_sysctls[] = {
    "hw.activecpu",	      "hw.byteorder",	       "hw.cachelinesize",
    "hw.cpufamily",	      "hw.cpufrequency",       "hw.cputype",
    "hw.l1dcachesize",	      "hw.l1icachesize",       "hw.l2cachesize",
    "hw.l3cachesize",	      "hw.logicalcpu",	       "hw.logicalcpu_max",
    "hw.machine",	      "hw.memsize",	       "hw.model",
    "hw.ncpu",		      "hw.nperflevels",	       "hw.pagesize",
    "hw.physicalcpu",	      "hw.physicalcpu_max",    "hw.tbfrequency",
    "hw.vectorunit",	      "kern.argmax",	       "kern.hostname",
    "kern.maxfiles",	      "kern.maxfilesperproc",  "kern.maxproc",
    "kern.ngroups",	      "kern.osproductversion", "kern.osrelease",
    "kern.ostype",	      "kern.osvariant_status", "kern.osversion",
    "kern.secure_kernel",     "kern.usrstack64",       "kern.version",
    "machdep.ptrauth_enabled", "security.mac.lockdown_mode_state", "sysctl.proc_cputype",
    "vm.loadavg",
};
static const char *const baseline_sysctl_prefixes[] = {
    "hw.optional.", "hw.perflevel", "kern.proc.pid.", "machdep.cpu.",
};
static const char *const baseline_mach[] = {
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.opendirectoryd.membership",
    "com.apple.system.logger",
    "com.apple.system.notification_center",
    "com.apple.cfprefsd.daemon",
    "com.apple.cfprefsd.agent",
    "com.apple.SecurityServer",
    "com.apple.trustd",
    "com.apple.trustd.agent",
    "com.apple.lsd.mapdb",
    "com.apple.dyld.closured",
    "com.apple.distributed_notifications@1v3",
    "com.apple.distributed_notifications@Vv3",
    "com.apple.SystemConfiguration.configd",
    "com.apple.FSEvents",
    "com.apple.fonts",
    "com.apple.FontObjectsServer",
    "com.apple.PowerManagement.control",
};

static void
emit_baseline(struct sb *t)
{
	sb_puts(t, "\n;; ---- baseline: what every program needs to start and run (docs/sbpl.md) ----\n"
		   ";; Children, and signals and process information within this sandbox only\n"
		   ";; (bash aborts when process-info is denied).\n"
		   "(allow process-fork)\n"
		   "(allow signal (target same-sandbox))\n"
		   "(allow process-info* (target same-sandbox))\n"
		   ";; The sysctls libc, runtimes and build tools read at start: CPU, memory, OS\n"
		   ";; version; kern.proc.pid. is a process's own information (ps of itself).\n"
		   "(allow sysctl-read");
	for (size_t i = 0; i < sizeof(baseline_sysctls) / sizeof(baseline_sysctls[0]); i++)
		sb_printf(t, "\n  (sysctl-name \"%s\")", baseline_sysctls[i]);
	for (size_t i = 0;
	     i < sizeof(baseline_sysctl_prefixes) / sizeof(baseline_sysctl_prefixes[0]); i++)
		sb_printf(t, "\n  (sysctl-name-prefix \"%s\")", baseline_sysctl_prefixes[i]);
	sb_puts(t, ")\n"
		   ";; The JVM writes this one at start.\n"
		   "(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n"
		   ";; Named semaphores: Python multiprocessing, sem_open.\n"
		   "(allow ipc-posix-sem)\n"
		   ";; Preferences (CFPreferences, NSUserDefaults) are read by most frameworks.\n"
		   "(allow user-preference-read)\n"
		   ";; Mach services of the system a command-line program uses: user and group\n"
		   ";; names, logging, notifications, preferences, certificate trust for TLS\n"
		   ";; through the proxy, type and font databases, dyld closures, proxy settings,\n"
		   ";; file events, power assertions. Not LaunchServices (it opens applications\n"
		   ";; outside the sandbox) nor DNS (mDNSResponder).\n"
		   "(allow mach-lookup");
	for (size_t i = 0; i < sizeof(baseline_mach) / sizeof(baseline_mach[0]); i++)
		sb_printf(t, "\n  (global-name \"%s\")", baseline_mach[i]);
	sb_puts(t, ")\n"
		   ";; Power-management queries (IOPMCopy...) go through this user client.\n"
		   "(allow iokit-open (iokit-user-client-class \"RootDomainUserClient\"))\n");
}

static void
sb_param(struct sb *t, const char *name)
{
	sb_printf(t, "(param \"%s\")", name);
}

/* Whether a rule's place may be firmlinked at launch: a literal beneath a
 * firmlink, or anything a variable or the launch directory decides
 * (${HOME} is beneath /Users, ${TMPDIR} beneath /private). */
static bool
maybe_firmlinked(const struct rule *r)
{
	if (r->kind == ART_SBPL_KIND_WORKDIR)
		return true;
	if (r->kind != ART_SBPL_KIND_PATH)
		return false;
	return r->key[0] != '/' || sbpl_firmlinked(r->key);
}

/* `(FILTER P)`, and for a place that may be firmlinked `(FILTER P)
 * (FILTER DATA-VOLUME+P)` too: macOS reaches such a place by both
 * spellings, and a rule must hold for whichever a program used (a deny of
 * /Users/a/secret is not got round through /System/Volumes/Data/Users/a/
 * secret). The data volume's spelling lies deeper than every rule's own,
 * so the order of the rules still decides as it does for the first. */
static void
sb_filter(struct sb *t, const struct rule *r, const char *filter, const char *name)
{
	sb_printf(t, " (%s ", filter);
	sb_param(t, name);
	sb_puts(t, ")");
	if (maybe_firmlinked(r)) {
		sb_printf(t, " (%s (string-append \"%s\" ", filter, SBPL_DATA_VOLUME);
		sb_param(t, name);
		sb_puts(t, "))");
	}
}

/* The rights one rule sets on its subtree; the filter is (subpath P). */
static void
emit_rule(struct sb *t, const struct rule *r, const char *name)
{
	static const char *const rights[3] = {"file-write*", "process-exec",
					      "file-map-executable"};
	const char *allow[5], *deny[4];
	size_t na = 0, nd = 0;

	sb_printf(t, ";; %s: %s", name, r->what);
	if (r->kind == ART_SBPL_KIND_PATH && r->mode != IR_MODE_DENY && r->mode <= IR_MODE_RWX)
		sb_printf(t, " %s", ir_mode_name(r->mode));
	if (r->set != IR_SET_NONE)
		sb_printf(t, " (%s)", ir_set_name((enum ir_protect_set)r->set));
	if (r->optional && r->kind == ART_SBPL_KIND_PATH && r->mode != IR_MODE_DENY &&
	    r->mode <= IR_MODE_RWX)
		sb_puts(t, " optional");
	sb_puts(t, "  ");
	sb_origin(t, &r->origin);
	sb_puts(t, "\n");

	switch (r->mode) {
	case ART_SBPL_MODE_NOEXEC:
		deny[nd++] = rights[1];
		deny[nd++] = rights[2];
		break;
	case ART_SBPL_MODE_READONLY:
		deny[nd++] = rights[0];
		break;
	case ART_SBPL_MODE_WORKDIR:
		allow[na++] = "file-read*";
		allow[na++] = rights[0];
		deny[nd++] = rights[1];
		deny[nd++] = rights[2];
		break;
	case IR_MODE_DENY:
		deny[nd++] = "file-read*";
		deny[nd++] = rights[0];
		deny[nd++] = rights[1];
		deny[nd++] = rights[2];
		break;
	default:
		allow[na++] = "file-read*";
		if (r->mode & IR_WRITE)
			allow[na++] = rights[0];
		else
			deny[nd++] = rights[0];
		if (r->mode & IR_EXEC) {
			allow[na++] = rights[1];
			allow[na++] = rights[2];
		} else {
			deny[nd++] = rights[1];
			deny[nd++] = rights[2];
		}
		/* Terminal programs need ioctls on a device they opened. */
		if (is_device(r->key))
			allow[na++] = "file-ioctl";
		break;
	}
	if (na) {
		sb_puts(t, "(allow");
		for (size_t i = 0; i < na; i++)
			sb_printf(t, " %s", allow[i]);
		sb_filter(t, r, "subpath", name);
		sb_puts(t, ")\n");
	}
	if (nd) {
		sb_puts(t, "(deny");
		for (size_t i = 0; i < nd; i++)
			sb_printf(t, " %s", deny[i]);
		sb_filter(t, r, "subpath", name);
		sb_puts(t, ")\n");
	}
	if (r->mode == IR_MODE_DENY) {
		/* Renaming an ancestor would carry the hidden files out to a
		 * name no rule covers. */
		sb_puts(t, "(deny file-write-unlink");
		sb_filter(t, r, "path-ancestors", name);
		sb_puts(t, ")\n");
	} else if (r->mode != ART_SBPL_MODE_NOEXEC && r->mode != ART_SBPL_MODE_READONLY) {
		/* Reaching a granted path means looking up each directory
		 * above it (realpath, PATH lookup, dyld), even where a
		 * shallower deny hides their contents. */
		sb_puts(t, "(allow file-read-metadata");
		sb_filter(t, r, "path-ancestors", name);
		sb_puts(t, ")\n");
	}
}

/* "^.*\/NAME(/.*)?$" with ASCII letters in both cases, since APFS is
 * usually case-insensitive while regex filters are not. 0 with the regex
 * in *re (caller frees re->d), or -EINVAL/-ENOMEM (see
 * sbpl_check_each_writable). */
static int
each_writable_regex(const char *rel, struct sb *re, size_t *at, char *err, size_t errlen)
{
	memset(re, 0, sizeof(*re));
	sb_puts(re, "^.*/");
	for (const char *s = rel; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[8];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			snprintf(tmp, sizeof(tmp), "[%c%c]", c & ~0x20, c | 0x20);
			sb_puts(re, tmp);
		} else if ((c >= '0' && c <= '9') || c == '/' || c >= 0x80) {
			sb_add(re, s, 1);
		} else if (c >= 0x20 && c < 0x7f && c != ']' && c != '\\' && c != '^' && c != '"') {
			/* In a bracket every other printable character is
			 * itself, never an operator. */
			snprintf(tmp, sizeof(tmp), "[%c]", c);
			sb_puts(re, tmp);
		} else {
			free(re->d);
			re->d = NULL;
			*at = (size_t)(s - rel);
			snprintf(err, errlen,
				 "macos: `readonly each-writable \"%s\"`: the character `%c` "
				 "cannot be matched in an SBPL regex",
				 rel, c);
			return -EINVAL;
		}
	}
	sb_puts(re, "(/.*)?$");
	if (re->rc) {
		free(re->d);
		re->d = NULL;
		return re->rc;
	}
	/* Longer strings are refused by some SBPL readers. */
	if (re->len > SBPL_REGEX_MAX) {
		free(re->d);
		re->d = NULL;
		*at = strlen(rel);
		snprintf(err, errlen,
			 "macos: `readonly each-writable \"%s\"` is too long for an SBPL regex "
			 "(%zu bytes as a regex, at most %d)",
			 rel, re->len, SBPL_REGEX_MAX);
		return -EINVAL;
	}
	return 0;
}

int
sbpl_check_each_writable(const char *rel, size_t *at, char *err, size_t errlen)
{
	struct sb re;
	int rc = each_writable_regex(rel, &re, at, err, errlen);

	free(re.d);
	return rc;
}

static int
readonly_regex(struct sb *t, const char *rel, char *err, size_t errlen)
{
	struct sb re;
	size_t at;
	int rc = each_writable_regex(rel, &re, &at, err, errlen);

	if (rc)
		return rc;
	sb_puts(t, "(deny file-write* (regex ");
	sb_quoted(t, re.d);
	sb_puts(t, "))\n");
	free(re.d);
	return 0;
}

static int
emit_each_writable(struct sb *t, const struct ir_policy *p, char *err, size_t errlen)
{
	bool any = false;

	for (size_t i = 0; i < p->nreadonly; i++) {
		const struct ir_readonly *ro = &p->readonly[i];
		int rc;

		if (!ro->each_writable || !(ro->platforms & IR_PLAT_BIT(IR_MACOS)))
			continue;
		if (!any)
			sb_puts(t, "\n;; ---- readonly each-writable: never written, in any writable place ----\n"
				   ";; One regex per name matches it beneath every directory, so it holds in\n"
				   ";; the working directory and every writable grant alike.\n");
		any = true;
		sb_puts(t, ";; readonly each-writable");
		if (ro->set != IR_SET_NONE)
			sb_printf(t, " (%s)", ir_set_name((enum ir_protect_set)ro->set));
		sb_puts(t, "  ");
		sb_origin(t, &ro->origin);
		sb_puts(t, "\n");
		rc = readonly_regex(t, ro->path, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static void
emit_network(struct sb *t, const struct ir_policy *p)
{
	sb_puts(t, "\n;; ---- network ----\n");
	if (p->scalar[IR_MACOS].network.value == IR_NET_DENY) {
		sb_puts(t, ";; network deny: no network rule; deny default refuses every socket.\n");
		return;
	}
	sb_puts(t, ";; Every connection goes through heel-proxy on the loopback: one TCP port,\n"
		   ";; by remote address (a local filter would allow every connection). No DNS.\n"
		   "(allow network-outbound (remote tcp (param \"PROXY\")))\n");
}

static void
emit_gpu(struct sb *t, const struct ir_policy *p)
{
	static const char *const classes[] = {"IOAccelerator", "IOAccelerationUserClient",
					      "AGXDeviceUserClient", "IOSurfaceRootUserClient",
					      "IOSurfaceSendRight"};

	if (!p->scalar[IR_MACOS].gpu.value)
		return;
	sb_puts(t, "\n;; ---- allow gpu: Metal's IOKit user clients and services ----\n"
		   "(allow iokit-open");
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		sb_printf(t, "\n  (iokit-user-client-class \"%s\")", classes[i]);
	sb_puts(t, ")\n(allow mach-lookup\n  (global-name \"com.apple.gpumemd.source\")\n"
		   "  (global-name \"com.apple.MTLCompilerService\"))\n");
}

static void
emit_mach(struct sb *t, const struct ir_policy *p)
{
	if (!p->nmach_lookups)
		return;
	sb_puts(t, "\n;; ---- allow mach-lookup ----\n");
	for (size_t i = 0; i < p->nmach_lookups; i++) {
		sb_puts(t, ";; ");
		sb_origin(t, &p->mach_lookups[i].origin);
		sb_puts(t, "\n(allow mach-lookup (global-name ");
		sb_quoted(t, p->mach_lookups[i].value);
		sb_puts(t, "))\n");
	}
}

static void
emit_late_baseline(struct sb *t)
{
	sb_puts(t, "\n;; ---- after the policy's rules: what no program starts without ----\n"
		   ";; The dyld shared cache and closures (macOS 10.15 keeps the cache here;\n"
		   ";; later releases under /System): mapped executable by every process.\n"
		   "(allow file-read* file-map-executable (subpath \"/private/var/db/dyld\"))\n"
		   ";; The links /tmp, /var and /etc themselves, so that paths spelt through\n"
		   ";; them still resolve to the real ones the rules name.\n"
		   "(allow file-read-metadata (literal \"/tmp\") (literal \"/var\") (literal \"/etc\"))\n");
}

static void
emit_raw(struct sb *t, const struct ir_policy *p)
{
	if (!p->nsbpl)
		return;
	sb_puts(t, "\n;; ---- raw sbpl from the policy: NOT checked by heelc (heelc explain flags it) ----\n");
	for (size_t i = 0; i < p->nsbpl; i++) {
		sb_puts(t, ";; raw sbpl  ");
		sb_origin(t, &p->sbpl[i].origin);
		sb_puts(t, "\n");
		sb_puts(t, p->sbpl[i].value);
		sb_puts(t, "\n");
	}
}

/* ------------------------------------------------------------ build */

static int
add_param(struct sbpl_profile *out, size_t *cap, const char *name, uint8_t kind, uint8_t mode,
	  bool optional, uint32_t rank, const char *value, const struct ir_origin *origin)
{
	struct sbpl_param *a = grow_array(out->params, cap, out->nparams + 1, sizeof(*a), 32);
	struct sbpl_param *q;

	if (!a)
		return -ENOMEM;
	out->params = a;
	q = &a[out->nparams];
	memset(q, 0, sizeof(*q));
	q->name = strdup(name);
	q->value = strdup(value);
	if (!q->name || !q->value) {
		free(q->name);
		free(q->value);
		return -ENOMEM;
	}
	q->kind = kind;
	q->mode = mode;
	q->optional = optional;
	q->rank = rank;
	if (origin)
		q->origin = *origin;
	out->nparams++;
	return 0;
}

int
sbpl_emit(const struct ir_policy *p, struct sbpl_profile *out, char *err, size_t errlen)
{
	struct builder b = {0};
	struct sb t = {0};
	size_t cap = 0, npath = 0;
	char lerr[1];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!err) {
		err = lerr;
		errlen = sizeof(lerr);
	}
	if (errlen)
		err[0] = '\0';
	collect_paths(&b, p);
	collect_readonly(&b, p);
	collect_fixed(&b, p);
	if (b.rc) {
		rc = b.rc;
		goto done;
	}
	for (size_t i = 0; i < b.n; i++)
		if (b.r[i].kind == ART_SBPL_KIND_PATH)
			b.r[i].depth = sbpl_estimated_depth(b.r[i].tmpl);
	qsort(b.r, b.n, sizeof(*b.r), cmp_order);

	emit_header(&t);
	emit_baseline(&t);
	sb_puts(&t, "\n;; ---- paths, shallow to deep: each rule sets read, write and exec for\n"
		    ";; its whole subtree, so the deepest rule that matches decides ----\n");
	for (size_t i = 0; i < b.n && !rc; i++) {
		const struct rule *r = &b.r[i];
		char name[16];

		if (r->kind == ART_SBPL_KIND_WORKDIR)
			snprintf(name, sizeof(name), "WORKDIR");
		else
			snprintf(name, sizeof(name), "P%zu", npath++);
		emit_rule(&t, r, name);
		rc = add_param(out, &cap, name, r->kind, r->mode, r->optional, (uint32_t)i + 1,
			       r->tmpl, r->origin.file || r->origin.line ? &r->origin : NULL);
	}
	if (rc)
		goto done;
	emit_network(&t, p);
	if (p->scalar[IR_MACOS].network.value != IR_NET_DENY) {
		rc = add_param(out, &cap, "PROXY", ART_SBPL_KIND_PROXY, 0, false, 0,
			       "localhost:PORT", &p->scalar[IR_MACOS].network.origin);
		if (rc)
			goto done;
	}
	emit_gpu(&t, p);
	emit_mach(&t, p);
	rc = emit_each_writable(&t, p, err, errlen);
	if (rc)
		goto done;
	emit_late_baseline(&t);
	emit_raw(&t, p);
	rc = t.rc;
done:
	for (size_t i = 0; i < b.n; i++)
		free(b.r[i].tmpl);
	free(b.r);
	if (rc) {
		free(t.d);
		sbpl_profile_free(out);
		return rc;
	}
	out->text = t.d;
	out->len = t.len;
	return 0;
}

void
sbpl_profile_free(struct sbpl_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nparams; i++) {
		free(p->params[i].name);
		free(p->params[i].value);
	}
	free(p->params);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

const char *
sbpl_kind_name(unsigned kind)
{
	static const char *const names[ART_SBPL_KIND_COUNT] = {
	    [ART_SBPL_KIND_PATH] = "path",
	    [ART_SBPL_KIND_WORKDIR] = "workdir",
	    [ART_SBPL_KIND_PROXY] = "proxy",
	};

	return kind < ART_SBPL_KIND_COUNT ? names[kind] : "?";
}

int
sbpl_print_param(FILE *out, const char *name, unsigned kind, const char *value)
{
	return fprintf(out, ";; param %s %s %s\n", name, sbpl_kind_name(kind), value) < 0 ? -EIO
											  : 0;
}

int
sbpl_print(const struct sbpl_profile *p, FILE *out)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (sbpl_print_param(out, p->params[i].name, p->params[i].kind, p->params[i].value))
			return -EIO;
	if (fwrite(p->text, 1, p->len, out) != p->len)
		return -EIO;
	return 0;
}

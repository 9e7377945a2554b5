/* SPDX-License-Identifier: MIT
 * The SBPL checker (see sbpl_check.h): walks the forms sbpl_read() gives
 * and checks names, argument shapes, paths, regexes, network addresses
 * and parameters. It understands the small part of Scheme profiles use
 * beyond rules (define of a value, if, string-append, regex-quote) and
 * refuses the rest by name rather than guessing what it means. */
#include "sbpl_check.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_names.h"
#include "sbpl_read.h"
#include "suggest.h"

/* Longest value string-append is followed through; past it the value is
 * only "unknown", never wrong. */
#define VAL_MAX 1024

enum val_kind {
	VAL_UNKNOWN, /* computed from something not followed (regex-quote) */
	VAL_STRING,  /* text known: `s` */
	VAL_PARAM,   /* exactly one parameter: `param` */
	VAL_CONCAT,  /* a string-append: `s` holds the known leading text */
	VAL_INT,
	VAL_BOOL,
};

struct val {
	enum val_kind kind;
	char s[VAL_MAX];
	size_t len;
	int known;      /* VAL_STRING/VAL_CONCAT: `s` is the whole value */
	int abs;        /* known to begin with '/' (text, or a path parameter first) */
	int rel;        /* known not to begin with '/' */
	int quoted;     /* built with regex-quote somewhere */
	int param;      /* VAL_PARAM: index into the parameter table */
};

struct def {
	char *name;
	struct val v;
};

struct ck {
	const struct sbpl_check_params *p;
	struct sbpl_check_result *out;
	unsigned char *used;
	struct def *defs;
	size_t ndefs;
	int nomem;
	int rule_mode; /* sbpl_check_rule(): raw rules, no version form */
	/* Names already warned about as newer or older (one warning each:
	 * a profile uses path-ancestors a hundred times). */
	const void *warned[64];
	size_t nwarned;
};

/* 1 the first time `what` is seen (so the caller warns), 0 after. */
static int
first_warning(struct ck *ck, const void *what)
{
	for (size_t i = 0; i < ck->nwarned; i++)
		if (ck->warned[i] == what)
			return 0;
	if (ck->nwarned < sizeof(ck->warned) / sizeof(ck->warned[0]))
		ck->warned[ck->nwarned++] = what;
	return 1;
}

static void
vpush(struct ck *ck, enum sbpl_severity sev, uint32_t line, uint32_t col, const char *fmt,
      va_list ap)
{
	struct sbpl_check_result *r = ck->out;
	struct sbpl_diag *d;
	char *msg;

	if (ck->nomem)
		return;
	if (vasprintf(&msg, fmt, ap) < 0) {
		ck->nomem = 1;
		return;
	}
	d = realloc(r->diags, (r->ndiags + 1) * sizeof(*d));
	if (!d) {
		free(msg);
		ck->nomem = 1;
		return;
	}
	r->diags = d;
	r->diags[r->ndiags++] = (struct sbpl_diag){ sev, line, col, msg };
	if (sev == SBPL_SEV_ERROR)
		r->nerrors++;
	else
		r->nwarnings++;
}

__attribute__((format(printf, 3, 4))) static void
err(struct ck *ck, const struct sbpl_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpush(ck, SBPL_SEV_ERROR, at ? at->line : 0, at ? at->col : 0, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4))) static void
warn(struct ck *ck, const struct sbpl_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpush(ck, SBPL_SEV_WARNING, at ? at->line : 0, at ? at->col : 0, fmt, ap);
	va_end(ap);
}

/* "; did you mean 'x'?" or "" (a static buffer: one use per message). */
static const char *
did_you_mean(const char *word, const char *const *cands)
{
	static __thread char buf[160];
	const char *s = suggest_word(word, cands);

	if (!s)
		return "";
	snprintf(buf, sizeof(buf), "; did you mean '%s'?", s);
	return buf;
}

/* The head symbol of a list, or NULL. */
static const char *
head(const struct sbpl_node *n)
{
	if (n->kind != SBPL_NODE_LIST || n->nkids == 0 || n->kids[0]->kind != SBPL_NODE_SYMBOL)
		return NULL;
	return n->kids[0]->text;
}

static const char *
kind_name(enum sbpl_param_kind k)
{
	switch (k) {
	case SBPL_PARAM_PATH:
		return "path";
	case SBPL_PARAM_WORKDIR:
		return "workdir";
	case SBPL_PARAM_PROXY:
		return "proxy";
	case SBPL_PARAM_STRING:
		return "string";
	}
	return "?";
}

int
sbpl_param_kind_from_name(const char *name)
{
	static const char *const names[] = { "path", "workdir", "proxy", "string" };

	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static int
param_index(const struct ck *ck, const char *name)
{
	for (size_t i = 0; i < ck->p->nparams; i++)
		if (strcmp(ck->p->params[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const struct def *
find_def(const struct ck *ck, const char *name)
{
	for (size_t i = ck->ndefs; i-- > 0;)
		if (strcmp(ck->defs[i].name, name) == 0)
			return &ck->defs[i];
	return NULL;
}

/* The parameter names, NULL-terminated, for a suggestion (caller frees). */
static const char **
param_names(const struct ck *ck)
{
	const char **v = calloc(ck->p->nparams + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < ck->p->nparams; i++)
		v[i] = ck->p->params[i].name;
	return v;
}

/* (param "NAME"): NAME must be a string literal naming a defined parameter. */
static int
eval_param(struct ck *ck, const struct sbpl_node *n, struct val *v)
{
	const struct sbpl_node *name;
	int i;

	if (n->nkids != 2 || n->kids[1]->kind != SBPL_NODE_STRING) {
		err(ck, n, "param takes one string, the parameter's name: (param \"NAME\")");
		return -1;
	}
	name = n->kids[1];
	if ((i = param_index(ck, name->text)) < 0) {
		const char **names = param_names(ck);

		if (!names) {
			ck->nomem = 1;
			return -1;
		}
		err(ck, name, "undefined parameter '%s': the profile's parameter table has no such name "
			      "(libsandbox would read #f and refuse the profile)%s",
		    name->text, did_you_mean(name->text, names));
		free(names);
		return -1;
	}
	if (ck->used)
		ck->used[i] = 1;
	memset(v, 0, sizeof(*v));
	v->kind = VAL_PARAM;
	v->param = i;
	v->abs = ck->p->params[i].kind == SBPL_PARAM_PATH || ck->p->params[i].kind == SBPL_PARAM_WORKDIR;
	return 0;
}

static void
val_text(struct val *v, const char *s, size_t len)
{
	memset(v, 0, sizeof(*v));
	v->kind = VAL_STRING;
	v->known = len < VAL_MAX;
	if (v->known) {
		memcpy(v->s, s, len);
		v->s[len] = '\0';
		v->len = len;
	}
	v->abs = len > 0 && s[0] == '/';
	v->rel = !v->abs;
}

static int eval(struct ck *ck, const struct sbpl_node *n, struct val *v, int depth);

/* (string-append E...): the known leading text is kept, so an anchor or an
 * absolute start can still be checked when a parameter follows. */
static int
eval_append(struct ck *ck, const struct sbpl_node *n, struct val *v, int depth)
{
	int prefix_open = 1; /* still collecting known leading text */
	int decided = 0;     /* a part has said whether the value starts with '/' */
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->kind = VAL_CONCAT;
	v->known = 1;
	for (size_t i = 1; i < n->nkids; i++) {
		struct val *part = malloc(sizeof(*part));

		if (!part) {
			ck->nomem = 1;
			return -1;
		}
		if (eval(ck, n->kids[i], part, depth + 1) < 0) {
			free(part);
			rc = -1;
			continue;
		}
		if (part->kind == VAL_INT || part->kind == VAL_BOOL) {
			err(ck, n->kids[i], "string-append takes strings");
			free(part);
			rc = -1;
			continue;
		}
		/* The first part that is not an empty string decides. */
		if (!decided && !(part->kind == VAL_STRING && part->known && part->len == 0)) {
			v->abs = part->abs;
			v->rel = part->rel;
			decided = 1;
		}
		v->quoted |= part->quoted;
		if (prefix_open && (part->kind == VAL_STRING || part->kind == VAL_CONCAT) &&
		    v->len + part->len < VAL_MAX) {
			memcpy(v->s + v->len, part->s, part->len);
			v->len += part->len;
			v->s[v->len] = '\0';
			if (!part->known)
				prefix_open = 0;
		} else {
			prefix_open = 0;
		}
		if (!(part->kind == VAL_STRING || part->kind == VAL_CONCAT) || !part->known)
			v->known = 0;
		free(part);
	}
	if (!prefix_open)
		v->known = 0;
	if (!decided)
		v->rel = 1; /* nothing but empty strings */
	return rc;
}

/* A value: literal, (param ...), (string-append ...), (regex-quote ...),
 * or a name bound by define. */
static int
eval(struct ck *ck, const struct sbpl_node *n, struct val *v, int depth)
{
	const char *h;

	if (depth > SBPL_DEPTH_MAX) {
		err(ck, n, "expression nested too deeply");
		return -1;
	}
	switch (n->kind) {
	case SBPL_NODE_STRING:
		val_text(v, n->text, n->len);
		return 0;
	case SBPL_NODE_INT:
		memset(v, 0, sizeof(*v));
		v->kind = VAL_INT;
		return 0;
	case SBPL_NODE_BOOL:
		memset(v, 0, sizeof(*v));
		v->kind = VAL_BOOL;
		return 0;
	case SBPL_NODE_SYMBOL: {
		const struct def *d = find_def(ck, n->text);

		if (!d) {
			err(ck, n, "unbound name '%s': expected a string, (param \"NAME\") or a name "
				   "given by (define ...)",
			    n->text);
			return -1;
		}
		*v = d->v;
		return 0;
	}
	case SBPL_NODE_LIST:
		break;
	}
	h = head(n);
	if (h && strcmp(h, "param") == 0)
		return eval_param(ck, n, v);
	if (h && strcmp(h, "string-append") == 0)
		return eval_append(ck, n, v, depth);
	if (h && strcmp(h, "regex-quote") == 0) {
		if (n->nkids != 2) {
			err(ck, n, "regex-quote takes one string");
			return -1;
		}
		if (eval(ck, n->kids[1], v, depth + 1) < 0)
			return -1;
		memset(v, 0, sizeof(*v));
		v->kind = VAL_UNKNOWN;
		v->quoted = 1;
		return 0;
	}
	err(ck, n, "expected a value: a string, (param \"NAME\"), (string-append ...) or "
		   "(regex-quote ...)%s%s%s",
	    h ? " (not '" : "", h ? h : "", h ? "')" : "");
	return -1;
}

/* ---------------------------------------------------------------- values */

/* Regexes as AppleMatch takes them: POSIX extended, no backreferences. */
static void
check_regex(struct ck *ck, const struct sbpl_node *at, const char *re, int need_anchor)
{
	regex_t rx;
	int rc;

	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1] >= '1' && p[1] <= '9') {
			err(ck, at, "regex \"%s\" uses a backreference (\\%c): macOS's regex engine has none",
			    re, p[1]);
			return;
		}
		if (*p == '\\' && p[1])
			p++;
	}
	rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char why[128];

		regerror(rc, &rx, why, sizeof(why));
		err(ck, at, "regex \"%s\" does not compile: %s", re, why);
		return;
	}
	regfree(&rx);
	if (re[0] != '^') {
		if (need_anchor)
			err(ck, at, "regex \"%s\" is not anchored: a path regex must begin with ^ (else it "
				    "matches anywhere in the path)",
			    re);
		else
			warn(ck, at, "regex \"%s\" is not anchored with ^: it matches anywhere in the name", re);
	}
}

/* A path as a filter takes it: absolute and canonical, because the kernel
 * compares the canonical path and a spelling with . or .. never matches. */
static void
check_path_text(struct ck *ck, const struct sbpl_node *at, const struct val *v, int need_abs)
{
	const char *s = v->s;

	if (need_abs && v->rel) {
		err(ck, at, "path \"%s\" is not absolute: path filters compare absolute paths", s);
		return;
	}
	if (!v->known)
		return;
	for (const char *p = s; *p; p++) {
		if (*p != '/')
			continue;
		if (p[1] == '/') {
			err(ck, at, "path \"%s\" is not canonical: '//' never matches", s);
			return;
		}
		if (p[1] == '.' &&
		    (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0')))) {
			err(ck, at, "path \"%s\" is not canonical: a . or .. component never matches", s);
			return;
		}
	}
	if (v->len > 1 && s[v->len - 1] == '/')
		warn(ck, at, "path \"%s\" ends with '/'", s);
}

static void
check_path_filter(struct ck *ck, const struct sbpl_node *n, const struct sbpl_filter_info *fi)
{
	const struct sbpl_node *arg;
	struct val *v;

	if (n->nkids != 2) {
		err(ck, n, "%s takes one path: a string or (param \"NAME\")", fi->name);
		return;
	}
	arg = n->kids[1];
	if (!(v = malloc(sizeof(*v)))) {
		ck->nomem = 1;
		return;
	}
	if (eval(ck, arg, v, 0) < 0)
		goto out;
	if (v->kind == VAL_INT || v->kind == VAL_BOOL) {
		err(ck, arg, "%s takes a path string, not a %s", fi->name,
		    v->kind == VAL_INT ? "number" : "boolean");
		goto out;
	}
	if (v->kind == VAL_PARAM && !v->abs) {
		err(ck, arg, "parameter '%s' has kind %s: %s needs a path parameter",
		    ck->p->params[v->param].name, kind_name(ck->p->params[v->param].kind), fi->name);
		goto out;
	}
	switch (fi->cls) {
	case SBPL_F_PATH:
	case SBPL_F_PATH_PREFIX:
		if (v->quoted)
			err(ck, arg, "%s takes a path, not a regex-quote'd one", fi->name);
		else if (v->kind != VAL_PARAM)
			check_path_text(ck, arg, v, 1);
		if (fi->cls == SBPL_F_PATH_PREFIX)
			warn(ck, n, "%s matches a raw string prefix (\"/a/b\" also matches \"/a/bc\"): use "
				    "subpath or an anchored regex",
			     fi->name);
		break;
	case SBPL_F_RELPATH:
		if (v->kind != VAL_PARAM)
			check_path_text(ck, arg, v, 0);
		break;
	case SBPL_F_PATH_REGEX:
		if (v->kind == VAL_PARAM) {
			err(ck, arg, "parameter '%s' used as a regex: its characters would be read as regex "
				     "syntax; build it as (string-append \"^\" (regex-quote (param \"%s\")))",
			    ck->p->params[v->param].name, ck->p->params[v->param].name);
		} else if ((v->kind == VAL_STRING || v->kind == VAL_CONCAT) && v->known) {
			check_regex(ck, arg, v->s, 1);
		} else if (v->len > 0 && v->s[0] != '^') {
			err(ck, arg, "regex beginning \"%s\" is not anchored: a path regex must begin with ^",
			    v->s);
		} else if (v->len == 0) {
			err(ck, arg, "regex is not anchored: a path regex must begin with a literal \"^\"");
		}
		break;
	default:
		break;
	}
out:
	free(v);
}

/* One string-valued argument (names, messages). */
static int
check_string_arg(struct ck *ck, const struct sbpl_node *arg, const char *what)
{
	struct val *v = malloc(sizeof(*v));
	int rc = -1;

	if (!v) {
		ck->nomem = 1;
		return -1;
	}
	if (eval(ck, arg, v, 0) < 0)
		goto out;
	if (v->kind == VAL_INT || v->kind == VAL_BOOL) {
		err(ck, arg, "%s takes a string", what);
		goto out;
	}
	if (v->kind == VAL_PARAM && ck->p->params[v->param].kind == SBPL_PARAM_PROXY) {
		err(ck, arg, "parameter '%s' has kind proxy: %s takes a name", ck->p->params[v->param].name,
		    what);
		goto out;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

static void
check_name_filter(struct ck *ck, const struct sbpl_node *n, const struct sbpl_filter_info *fi)
{
	struct val *v;

	if (n->nkids != 2) {
		err(ck, n, "%s takes one string", fi->name);
		return;
	}
	if (fi->cls == SBPL_F_NAME) {
		check_string_arg(ck, n->kids[1], fi->name);
		return;
	}
	if (!(v = malloc(sizeof(*v)))) {
		ck->nomem = 1;
		return;
	}
	if (eval(ck, n->kids[1], v, 0) == 0) {
		if ((v->kind == VAL_STRING || v->kind == VAL_CONCAT) && v->known)
			check_regex(ck, n->kids[1], v->s, 0);
		else if (v->kind == VAL_INT || v->kind == VAL_BOOL)
			err(ck, n->kids[1], "%s takes a regex string", fi->name);
	}
	free(v);
}

/* Upper-case constants (AF_INET, SOCK_STREAM, SIGKILL, FSIOC_...). */
static int
is_constant(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static void
check_int_filter(struct ck *ck, const struct sbpl_node *n, const struct sbpl_filter_info *fi)
{
	const struct sbpl_node *a;
	const char *h;

	if (n->nkids != 2) {
		err(ck, n, "%s takes one integer or constant", fi->name);
		return;
	}
	a = n->kids[1];
	if (a->kind == SBPL_NODE_INT)
		return;
	if (a->kind == SBPL_NODE_SYMBOL && is_constant(a->text))
		return;
	/* The prelude's ioctl-number builders, as in (fsctl-command (_IO "h" 47)). */
	if ((h = head(a)) && strncmp(h, "_IO", 3) == 0)
		return;
	err(ck, a, "%s takes an integer or an upper-case constant (AF_INET, SIGKILL, ...)", fi->name);
}

static void
check_const_filter(struct ck *ck, const struct sbpl_node *n, const char *what,
		   const char *const *names, int many)
{
	if (n->nkids < 2 || (!many && n->nkids != 2)) {
		err(ck, n, "%s takes %s constant", what, many ? "at least one" : "one");
		return;
	}
	for (size_t i = 1; i < n->nkids; i++) {
		const struct sbpl_node *a = n->kids[i];

		if (a->kind != SBPL_NODE_SYMBOL) {
			err(ck, a, "%s takes a constant name (%s, ...), not a %s", what, names[0],
			    a->kind == SBPL_NODE_STRING ? "string" : "value");
			continue;
		}
		if (!sbpl_name_in(a->text, names))
			err(ck, a, "unknown %s '%s'%s", what, a->text, did_you_mean(a->text, names));
	}
}

/* "HOST:PORT" as libsandbox takes it: HOST is * or localhost (anything
 * else fails the whole profile), PORT one number 1..65535 or *. */
static void
check_address(struct ck *ck, const struct sbpl_node *at, const char *s)
{
	const char *colon = strrchr(s, ':');
	size_t hl;
	const char *port;

	if (!colon) {
		err(ck, at, "network address \"%s\" is not HOST:PORT (e.g. \"localhost:8080\", \"*:*\")", s);
		return;
	}
	hl = (size_t)(colon - s);
	port = colon + 1;
	if (!((hl == 1 && s[0] == '*') || (hl == 9 && strncmp(s, "localhost", 9) == 0))) {
		err(ck, at, "network address \"%s\": host must be * or localhost (macOS refuses the "
			    "profile for any other host, addresses included)",
		    s);
		return;
	}
	if (strcmp(port, "*") == 0)
		return;
	{
		unsigned long v = 0;
		int ok = port[0] >= '1' && port[0] <= '9';

		for (const char *p = port; ok && *p; p++) {
			if (*p < '0' || *p > '9' || v > 65535)
				ok = 0;
			else
				v = v * 10 + (unsigned long)(*p - '0');
		}
		if (!ok || v > 65535)
			err(ck, at, "network address \"%s\": port must be one number from 1 to 65535 or * "
				    "(no ranges or lists)",
			    s);
	}
}

static void check_filter(struct ck *ck, const struct sbpl_node *n, int depth);

static void
check_network(struct ck *ck, const struct sbpl_node *n, const struct sbpl_filter_info *fi)
{
	const struct sbpl_node *proto, *a;

	if (n->nkids < 2) {
		err(ck, n, "%s needs a protocol (ip, tcp, udp, unix-socket, ...)", fi->name);
		return;
	}
	proto = n->kids[1];
	if (proto->kind != SBPL_NODE_SYMBOL) {
		err(ck, proto, "%s needs a protocol first, as in (%s tcp \"localhost:8080\")", fi->name,
		    fi->name);
		return;
	}
	if (!sbpl_name_in(proto->text, sbpl_net_protocols)) {
		err(ck, proto, "unknown network protocol '%s'%s", proto->text,
		    did_you_mean(proto->text, sbpl_net_protocols));
		return;
	}
	if (strcmp(proto->text, "unix-socket") == 0) {
		const struct sbpl_filter_info *pf;

		if (n->nkids != 3 || !head(n->kids[2]) || !(pf = sbpl_filter_lookup(head(n->kids[2]))) ||
		    !(pf->cls == SBPL_F_PATH || pf->cls == SBPL_F_PATH_PREFIX || pf->cls == SBPL_F_PATH_REGEX)) {
			err(ck, n->nkids >= 3 ? n->kids[2] : n,
			    "%s unix-socket takes one path filter, e.g. (%s unix-socket (path-literal "
			    "\"/private/var/run/x.sock\"))",
			    fi->name, fi->name);
			return;
		}
		check_filter(ck, n->kids[2], 1);
		return;
	}
	if (n->nkids == 2)
		return; /* any address */
	if (n->nkids > 3) {
		err(ck, n->kids[3], "%s takes one address", fi->name);
		return;
	}
	a = n->kids[2];
	if (a->kind == SBPL_NODE_STRING) {
		check_address(ck, a, a->text);
		return;
	}
	if (head(a) && strcmp(head(a), "param") == 0) {
		struct val v;

		if (eval_param(ck, a, &v) == 0 && ck->p->params[v.param].kind != SBPL_PARAM_PROXY)
			err(ck, a, "parameter '%s' has kind %s: a network address needs a proxy parameter "
				   "(\"localhost:PORT\")",
			    ck->p->params[v.param].name, kind_name(ck->p->params[v.param].kind));
		return;
	}
	err(ck, a, "%s takes an address string (\"localhost:8080\", \"*:*\") or (param \"NAME\")",
	    fi->name);
}

static void
check_filter(struct ck *ck, const struct sbpl_node *n, int depth)
{
	const struct sbpl_filter_info *fi;
	const char *h = head(n);

	if (depth > SBPL_DEPTH_MAX) {
		err(ck, n, "filters nested too deeply");
		return;
	}
	if (!h) {
		err(ck, n, "expected a filter such as (subpath \"/path\")");
		return;
	}
	if (!(fi = sbpl_filter_lookup(h))) {
		if (sbpl_operation_lookup(h))
			err(ck, n->kids[0], "'%s' is an operation, not a filter", h);
		else
			err(ck, n->kids[0], "unknown filter '%s'%s", h, did_you_mean(h, sbpl_filter_names));
		return;
	}
	if (fi->status == SBPL_NAME_NEWER && first_warning(ck, fi))
		warn(ck, n->kids[0], "filter '%s' is newer than macOS 10.15: older systems refuse the profile",
		     h);
	switch (fi->cls) {
	case SBPL_F_PATH:
	case SBPL_F_PATH_PREFIX:
	case SBPL_F_PATH_REGEX:
	case SBPL_F_RELPATH:
		check_path_filter(ck, n, fi);
		break;
	case SBPL_F_NAME:
	case SBPL_F_NAME_REGEX:
		check_name_filter(ck, n, fi);
		break;
	case SBPL_F_INT:
		check_int_filter(ck, n, fi);
		break;
	case SBPL_F_BOOL:
		if (n->nkids > 2 || (n->nkids == 2 && n->kids[1]->kind != SBPL_NODE_BOOL))
			err(ck, n, "%s takes nothing, #t or #f", h);
		break;
	case SBPL_F_VNODE:
		check_const_filter(ck, n, "vnode-type", sbpl_vnode_types, 1);
		break;
	case SBPL_F_TARGET:
		check_const_filter(ck, n, "target", sbpl_targets, 0);
		break;
	case SBPL_F_NETWORK:
		check_network(ck, n, fi);
		break;
	case SBPL_F_ALL:
	case SBPL_F_ANY:
	case SBPL_F_NOT:
		if (n->nkids < 2 || (fi->cls == SBPL_F_NOT && n->nkids != 2)) {
			err(ck, n, "%s takes %s filter", h, fi->cls == SBPL_F_NOT ? "exactly one" : "at least one");
			break;
		}
		for (size_t i = 1; i < n->nkids; i++)
			check_filter(ck, n->kids[i], depth + 1);
		break;
	case SBPL_F_ENTITLEMENT:
		if (n->nkids < 2) {
			err(ck, n, "%s takes an entitlement name", h);
			break;
		}
		check_string_arg(ck, n->kids[1], h);
		for (size_t i = 2; i < n->nkids; i++)
			check_filter(ck, n->kids[i], depth + 1);
		break;
	case SBPL_F_ENT_VALUE:
		if (n->nkids != 2 || (n->kids[1]->kind != SBPL_NODE_BOOL && n->kids[1]->kind != SBPL_NODE_STRING))
			err(ck, n, "%s takes #t, #f or a string", h);
		break;
	}
}

static void
check_with(struct ck *ck, const struct sbpl_node *n)
{
	if (n->nkids < 2) {
		err(ck, n, "(with) names no modifier");
		return;
	}
	for (size_t i = 1; i < n->nkids; i++) {
		const struct sbpl_node *m = n->kids[i];
		const struct sbpl_modifier_info *mi;

		if (m->kind != SBPL_NODE_SYMBOL) {
			err(ck, m, "expected a modifier name (report, no-log, message, send-signal, ...)");
			return;
		}
		if (!(mi = sbpl_modifier_lookup(m->text))) {
			err(ck, m, "unknown modifier '%s'%s", m->text, did_you_mean(m->text, sbpl_modifier_names));
			return;
		}
		if (strcmp(mi->name, "no-sandbox") == 0 && !(ck->p->flags & SBPL_CHECK_ALLOW_NO_SANDBOX))
			err(ck, m, "(with no-sandbox) runs the matched program with no sandbox at all: an "
				   "escape hatch, refused unless the caller allows it");
		else if (mi->rare)
			warn(ck, m, "modifier '%s' is not one heel uses: check it is meant", m->text);
		switch (mi->arg) {
		case SBPL_MOD_NONE:
			break;
		case SBPL_MOD_STRING:
			if (i + 1 >= n->nkids) {
				err(ck, m, "%s takes a string", m->text);
				return;
			}
			check_string_arg(ck, n->kids[++i], m->text);
			break;
		case SBPL_MOD_SIGNAL: {
			const struct sbpl_node *s = i + 1 < n->nkids ? n->kids[i + 1] : NULL;

			if (!s || !((s->kind == SBPL_NODE_SYMBOL && strncmp(s->text, "SIG", 3) == 0 &&
				     is_constant(s->text)) ||
				    (s->kind == SBPL_NODE_INT && s->num >= 1 && s->num <= 31))) {
				err(ck, s ? s : m, "%s takes a signal (SIGKILL, ...) or a number 1..31", m->text);
				return;
			}
			i++;
			break;
		}
		}
	}
}

/* (allow|deny OPERATION... FILTER... (with MODIFIER...)) */
static void
check_rule(struct ck *ck, const struct sbpl_node *n)
{
	const char *verb = n->kids[0]->text;
	size_t nops = 0;
	int filtered = 0, early = 0, has_default = 0, outbound = 0;

	for (size_t i = 1; i < n->nkids; i++) {
		const struct sbpl_node *a = n->kids[i];
		const char *h;

		if (a->kind == SBPL_NODE_SYMBOL) {
			const struct sbpl_operation_info *op = sbpl_operation_lookup(a->text);

			if (filtered) {
				err(ck, a, "operation '%s' after a filter: name every operation first", a->text);
				continue;
			}
			nops++;
			if (!op) {
				if (sbpl_filter_lookup(a->text))
					err(ck, a, "'%s' is a filter: write it as (%s ...) after the operations",
					    a->text, a->text);
				else
					err(ck, a, "unknown operation '%s'%s", a->text,
					    did_you_mean(a->text, sbpl_operation_names));
				continue;
			}
			if (op->status == SBPL_NAME_NEWER && first_warning(ck, op))
				warn(ck, a, "operation '%s' is newer than macOS 10.15: older systems refuse the "
					    "profile",
				     a->text);
			else if (op->status == SBPL_NAME_OLDER && first_warning(ck, op))
				warn(ck, a, "operation '%s' is from before macOS 10.15, where it does nothing",
				     a->text);
			if (strcmp(a->text, "default") == 0)
				has_default = 1;
			if (strcmp(a->text, "network-outbound") == 0 || strcmp(a->text, "network*") == 0)
				outbound = 1;
			continue;
		}
		if ((h = head(a)) && strcmp(h, "with") == 0) {
			if (nops == 0)
				err(ck, a, "(with ...) before any operation");
			check_with(ck, a);
			continue;
		}
		if (a->kind != SBPL_NODE_LIST) {
			err(ck, a, "expected an operation name, a filter or (with ...)");
			continue;
		}
		if (nops == 0) {
			err(ck, a, "filter before any operation: a rule names its operations first, as in "
				   "(%s file-read* (subpath \"/usr\"))",
			    verb);
			early = 1;
			check_filter(ck, a, 0);
			continue;
		}
		if (has_default) {
			err(ck, a, "the default operation takes no filter");
			continue;
		}
		filtered = 1;
		/* An outbound connection's local end is any port on the host:
		 * allowing outbound by it allows every connection. */
		if (outbound && strcmp(verb, "allow") == 0 && h &&
		    (strcmp(h, "local") == 0 || strcmp(h, "from") == 0))
			warn(ck, a, "(%s ...) on an outbound allow matches every connection's local end: "
				    "use (remote ...)",
			     h);
		check_filter(ck, a, 0);
	}
	if (nops == 0 && !early)
		err(ck, n, "(%s%s) names no operation", verb, n->nkids > 1 ? " ..." : "");
	if (has_default && !filtered && strcmp(verb, "allow") == 0)
		warn(ck, n, "(allow default) allows every operation no later rule denies");
}

/* A condition of (if ...): values, param tests and not/and/or/equal?. */
static void
check_cond(struct ck *ck, const struct sbpl_node *n, int depth)
{
	const char *h = head(n);
	struct val *v;

	if (depth > SBPL_DEPTH_MAX) {
		err(ck, n, "condition nested too deeply");
		return;
	}
	if (h && (strcmp(h, "not") == 0 || strcmp(h, "and") == 0 || strcmp(h, "or") == 0 ||
		  strcmp(h, "equal?") == 0 || strcmp(h, "string=?") == 0 || strcmp(h, "eq?") == 0)) {
		if (n->nkids < 2 || (strcmp(h, "not") == 0 && n->nkids != 2))
			err(ck, n, "%s: wrong number of arguments", h);
		for (size_t i = 1; i < n->nkids; i++)
			check_cond(ck, n->kids[i], depth + 1);
		return;
	}
	if (!(v = malloc(sizeof(*v)))) {
		ck->nomem = 1;
		return;
	}
	eval(ck, n, v, depth + 1);
	free(v);
}

static void check_statement(struct ck *ck, const struct sbpl_node *n, int depth);

static void
check_define(struct ck *ck, const struct sbpl_node *n)
{
	struct def *d;
	struct val *v;

	if (n->nkids >= 2 && n->kids[1]->kind == SBPL_NODE_LIST) {
		err(ck, n, "function definitions are not supported: the checker cannot follow what they "
			   "compute (define values only)");
		return;
	}
	if (n->nkids != 3 || n->kids[1]->kind != SBPL_NODE_SYMBOL) {
		err(ck, n, "define takes a name and a value: (define NAME VALUE)");
		return;
	}
	if (sbpl_operation_lookup(n->kids[1]->text) || sbpl_filter_lookup(n->kids[1]->text) ||
	    strcmp(n->kids[1]->text, "param") == 0) {
		err(ck, n->kids[1], "define would hide SBPL's own name '%s'", n->kids[1]->text);
		return;
	}
	if (!(v = malloc(sizeof(*v)))) {
		ck->nomem = 1;
		return;
	}
	if (eval(ck, n->kids[2], v, 0) < 0) {
		free(v);
		return;
	}
	d = realloc(ck->defs, (ck->ndefs + 1) * sizeof(*d));
	if (!d) {
		free(v);
		ck->nomem = 1;
		return;
	}
	ck->defs = d;
	d[ck->ndefs].v = *v;
	free(v);
	if (!(d[ck->ndefs].name = strdup(n->kids[1]->text))) {
		ck->nomem = 1;
		return;
	}
	ck->ndefs++;
}

/* The forms a profile may hold at its top level, for "did you mean". */
static const char *const statements[] = { "allow", "deny", "version", "define",
					  "if", "begin", "import", NULL };

static void
check_statement(struct ck *ck, const struct sbpl_node *n, int depth)
{
	const char *h = head(n);

	if (depth > SBPL_DEPTH_MAX) {
		err(ck, n, "forms nested too deeply");
		return;
	}
	if (!h) {
		err(ck, n, "expected a form such as (allow ...) or (deny ...)");
		return;
	}
	if (strcmp(h, "allow") == 0 || strcmp(h, "deny") == 0) {
		check_rule(ck, n);
	} else if (strcmp(h, "version") == 0) {
		if (ck->rule_mode)
			err(ck, n, "a raw rule cannot hold (version ...): heelc writes it");
		else
			err(ck, n, "(version ...) again: the version form comes first, once");
	} else if (strcmp(h, "define") == 0) {
		if (ck->rule_mode)
			err(ck, n, "a raw rule cannot define names");
		else if (depth > 0)
			err(ck, n, "define only at the top level of a profile");
		else
			check_define(ck, n);
	} else if (strcmp(h, "if") == 0) {
		if (n->nkids < 3 || n->nkids > 4) {
			err(ck, n, "if takes a condition, a form and an optional other form");
			return;
		}
		check_cond(ck, n->kids[1], 0);
		for (size_t i = 2; i < n->nkids; i++)
			check_statement(ck, n->kids[i], depth + 1);
	} else if (strcmp(h, "begin") == 0) {
		for (size_t i = 1; i < n->nkids; i++)
			check_statement(ck, n->kids[i], depth + 1);
	} else if (strcmp(h, "import") == 0) {
		if (ck->rule_mode)
			err(ck, n, "a raw rule cannot import a profile");
		else if (n->nkids != 2 || n->kids[1]->kind != SBPL_NODE_STRING)
			err(ck, n, "import takes one file name");
		else
			warn(ck, n, "(import \"%s\") adds rules this check cannot see", n->kids[1]->text);
	} else {
		err(ck, n->kids[0], "unknown form '%s'%s", h, did_you_mean(h, statements));
	}
}

/* (version 1) first, exactly once: libsandbox knows no other version. */
/* Returns how many leading forms it checked (0 or 1). */
static size_t
check_version(struct ck *ck, const struct sbpl_doc *doc)
{
	const struct sbpl_node *v;

	if (doc->nforms == 0) {
		err(ck, NULL, "empty profile: it must begin with (version 1)");
		return 0;
	}
	v = doc->forms[0];
	if (!head(v) || strcmp(head(v), "version") != 0) {
		err(ck, v, "missing (version 1): a profile must begin with it");
		return 0;
	}
	if (v->nkids != 2 || v->kids[1]->kind != SBPL_NODE_INT || v->kids[1]->num != 1)
		err(ck, v, "only (version 1) exists");
	return 1;
}

static int
run(const char *text, size_t len, const struct sbpl_check_params *params,
    struct sbpl_check_result *out, int rule_mode)
{
	static const struct sbpl_check_params none = { 0 };
	struct ck ck = { .p = params ? params : &none, .out = out, .rule_mode = rule_mode };
	struct sbpl_read_error rerr;
	struct sbpl_doc doc;
	size_t first = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sbpl_read(text, len, &doc, &rerr);
	if (rc == -ENOMEM)
		return -ENOMEM;
	if (rc < 0) {
		struct sbpl_node at = { .line = rerr.line, .col = rerr.col };

		err(&ck, &at, "%s", rerr.message);
		return ck.nomem ? -ENOMEM : -EINVAL;
	}
	if (ck.p->nparams && !(ck.used = calloc(ck.p->nparams, 1))) {
		sbpl_doc_free(&doc);
		return -ENOMEM;
	}
	if (!rule_mode)
		first = check_version(&ck, &doc);
	else if (doc.nforms == 0)
		err(&ck, NULL, "empty rule: expected (allow ...) or (deny ...)");
	for (size_t i = first; i < doc.nforms; i++)
		check_statement(&ck, doc.forms[i], 0);
	if (!rule_mode && (ck.p->flags & SBPL_CHECK_ALL_PARAMS_USED))
		for (size_t i = 0; i < ck.p->nparams; i++)
			if (!ck.used[i])
				err(&ck, NULL, "parameter '%s' is defined but never used",
				    ck.p->params[i].name);
	for (size_t i = 0; i < ck.ndefs; i++)
		free(ck.defs[i].name);
	free(ck.defs);
	free(ck.used);
	sbpl_doc_free(&doc);
	if (ck.nomem)
		return -ENOMEM;
	return out->nerrors ? -EINVAL : 0;
}

int
sbpl_check(const char *text, size_t len, const struct sbpl_check_params *params,
	   struct sbpl_check_result *out)
{
	return run(text, len, params, out, 0);
}

int
sbpl_check_rule(const char *text, size_t len, const struct sbpl_check_params *params,
		struct sbpl_check_result *out)
{
	return run(text, len, params, out, 1);
}

void
sbpl_check_result_free(struct sbpl_check_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ndiags; i++)
		free(r->diags[i].message);
	free(r->diags);
	memset(r, 0, sizeof(*r));
}

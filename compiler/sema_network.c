/* SPDX-License-Identifier: MIT
 * Network allow-list patterns: checked and normalised (lower case, no
 * trailing dot, IPv6 without brackets) exactly once here, so the proxy
 * only ever compares normalised strings; entries the proxy would never
 * let through are warned about. And the `network decide` program, which
 * must be out of the sandbox's reach. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nethost.h"
#include "punycode.h"
#include "sema_int.h"

static void pat_error(struct sema *s, const struct ast_arg *a, size_t byte, const char *hint,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
pat_error(struct sema *s, const struct ast_arg *a, size_t byte, const char *hint, const char *fmt,
	  ...)
{
	struct diag_loc at = byte < a->len ? ast_string_loc(a, byte) : a->loc;
	va_list ap;

	/* The list is not empty by intent: no "empty allow-list" on top. */
	s->bad_patterns |= IR_PLAT_ALL;

	va_start(ap, fmt);
	diag_vpush(s->ctx, DIAG_ERROR, &at, hint, fmt, ap);
	va_end(ap);
}

static bool
all_digits(const char *t, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (t[i] < '0' || t[i] > '9')
			return false;
	return true;
}

/* Four decimal octets 0..255 without leading zeros: the only IPv4 form a
 * pattern may use (the proxy canonicalises `127.1`, `0x7f.0.0.1` in
 * requests; a pattern written that way is a mistake or a trick). */
static bool
valid_ipv4(const char *t, size_t len)
{
	size_t parts = 0, i = 0;

	while (i <= len) {
		size_t j = i;
		unsigned v = 0;

		while (j < len && t[j] != '.')
			j++;
		if (j == i || j - i > 3 || (j - i > 1 && t[i] == '0') || !all_digits(t + i, j - i))
			return false;
		for (size_t k = i; k < j; k++)
			v = v * 10 + (unsigned)(t[k] - '0');
		if (v > 255)
			return false;
		parts++;
		i = j + 1;
	}
	return parts == 4;
}

/* Parses ":PORT" at t[i..len) (i at the colon); 0 after an error. */
static int
parse_port(struct sema *s, const struct ast_arg *a, const char *t, size_t i, size_t len,
	   uint16_t *port)
{
	unsigned long v = 0;

	if (i + 1 >= len) {
		pat_error(s, a, i, "write `host:PORT`, or leave the port out for any port",
			  "missing port after `:`");
		return 0;
	}
	for (size_t k = i + 1; k < len; k++) {
		if (t[k] < '0' || t[k] > '9') {
			pat_error(s, a, k, NULL, "a port is a number from 1 to 65535");
			return 0;
		}
		if (v <= 65535)
			v = v * 10 + (unsigned long)(t[k] - '0');
	}
	if (v < 1 || v > 65535) {
		pat_error(s, a, i + 1, NULL, "a port is a number from 1 to 65535");
		return 0;
	}
	*port = (uint16_t)v;
	return 1;
}

/* A URL or a host with a path (`https://x.com/`, `x.com/api`): the list
 * names hosts, and the proxy never sees a path inside an encrypted
 * tunnel. Said as such, with the host to write, rather than as the
 * port or character error the parser below would give. */
static bool
url_like(struct sema *s, const struct ast_arg *a)
{
	const char *t = a->text, *scheme = strstr(t, "://");
	const char *host = scheme ? scheme + 3 : t, *end, *at;
	const char *slash = strchr(t, '/');
	char hint[320];

	if (!scheme && !slash)
		return false;
	end = host + strcspn(host, "/?#");
	/* user:password@host: the host is after the last `@`. */
	for (at = host; (at = memchr(at, '@', (size_t)(end - at))); host = ++at)
		;
	if (end > host && (int)(end - host) < 256)
		snprintf(hint, sizeof(hint), "write the host alone: `%.*s`", (int)(end - host),
			 host);
	else
		snprintf(hint, sizeof(hint), "write the host alone, e.g. `example.com`");
	if (scheme)
		pat_error(s, a, (size_t)(scheme - t), hint,
			  "a host pattern names a host, not a URL");
	else
		pat_error(s, a, (size_t)(slash - t), hint, "a host pattern cannot hold a path");
	return true;
}

void
sema_add_pattern(struct sema *s, const struct ast_arg *a, const struct sema_ectx *e, unsigned mask)
{
	const char *raw = a->text;
	size_t len = a->len, hlen, colon = len;
	char *t, *host = NULL;
	uint16_t port = 0;
	struct sema_pattern *p;

	if (!len) {
		pat_error(s, a, 0, NULL, "a host pattern cannot be empty");
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c >= 0x80) {
			char ascii[300], hint[400];

			/* The ASCII form where it is cheap to be sure of (RFC 3492
			 * after a plain lower-casing); else how to get it. */
			if (punycode_host(raw, len, ascii, sizeof(ascii)) == 0)
				snprintf(hint, sizeof(hint),
					 "write it in punycode, its ASCII form: `%s`", ascii);
			else
				snprintf(hint, sizeof(hint),
					 "write it in punycode, its ASCII form (`xn--...`, as "
					 "`idn2 HOST` prints it)");
			pat_error(s, a, i, hint,
				  "a host pattern must be ASCII: a non-ASCII (internationalised) "
				  "name is written in punycode");
			return;
		}
		if (c < 0x20 || c == 0x7f) {
			pat_error(s, a, i, NULL, "a host pattern cannot hold a control character");
			return;
		}
	}
	if (url_like(s, a))
		return;
	/* Host names are case-insensitive: normalise once, here. */
	t = sema_strndup(s, raw, len);
	if (!t)
		return;
	for (size_t i = 0; i < len; i++)
		if (t[i] >= 'A' && t[i] <= 'Z')
			t[i] = (char)(t[i] - 'A' + 'a');

	if (t[0] == '[') {
		char *close = memchr(t, ']', len);
		char buf[sizeof(struct in6_addr)];

		if (!close) {
			pat_error(s, a, 0, "write an IPv6 address as `[::1]` or `[::1]:443`",
				  "unterminated `[` in host pattern");
			goto out;
		}
		hlen = (size_t)(close - t) - 1;
		host = sema_strndup(s, t + 1, hlen);
		if (!host)
			goto out;
		if (!hlen || inet_pton(AF_INET6, host, buf) != 1) {
			pat_error(s, a, 1, NULL, "invalid IPv6 address `%s`", host);
			goto out;
		}
		colon = (size_t)(close - t) + 1;
		if (colon < len && t[colon] != ':') {
			pat_error(s, a, colon, "write `[ADDRESS]:PORT`",
				  "unexpected `%c` after `]`", t[colon]);
			goto out;
		}
		if (colon < len && !parse_port(s, a, t, colon, len, &port))
			goto out;
	} else {
		char *c1 = memchr(t, ':', len);

		if (c1 && memchr(c1 + 1, ':', len - (size_t)(c1 - t) - 1)) {
			pat_error(s, a, 0, "write IPv6 addresses in brackets: `[::1]:443`",
				  "an IPv6 address must be written in brackets");
			goto out;
		}
		if (c1) {
			colon = (size_t)(c1 - t);
			if (!parse_port(s, a, t, colon, len, &port))
				goto out;
		}
		hlen = colon;
		/* "example.com." is the same name as "example.com". */
		while (hlen && t[hlen - 1] == '.')
			hlen--;
		if (!hlen) {
			pat_error(s, a, 0, NULL, "a host pattern needs a host name");
			goto out;
		}
		if (hlen == 1 && t[0] == '*') {
			pat_error(s, a, 0, "write `network allow-all` to allow every host",
				  "`*` alone is not a host pattern");
			goto out;
		}
		for (size_t i = 0; i < hlen; i++) {
			/* `*.` only as the whole first label: anything else
			 * (`*foo.com`) would match names nobody meant. */
			if (t[i] == '*' && !(i == 0 && hlen > 1 && t[1] == '.')) {
				pat_error(s, a, i,
					  "`*.example.com` matches every subdomain of example.com",
					  "`*` is only allowed as the whole first label");
				goto out;
			}
		}
		{
			size_t start = t[0] == '*' ? 2 : 0, last = start;

			if (hlen > 253) {
				pat_error(s, a, 253, NULL, "a host name is at most 253 characters");
				goto out;
			}
			for (size_t i = start; i <= hlen; i++) {
				char c = i < hlen ? t[i] : '.';

				if (c == '.') {
					if (i == last) {
						pat_error(s, a, i < hlen ? i : last, NULL,
							  "empty label in host name");
						goto out;
					}
					if (i - last > 63) {
						pat_error(s, a, last + 63, NULL,
							  "a label of a host name is at most 63 "
							  "characters");
						goto out;
					}
					last = i + 1;
					continue;
				}
				if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
				    c == '_')
					continue;
				pat_error(s, a, i, NULL, "invalid character `%c` in host name", c);
				goto out;
			}
			/* A name whose last label is numeric would be read
			 * as an IPv4 address by resolvers: require the plain
			 * dotted-quad form. */
			for (last = hlen; last > start && t[last - 1] != '.'; last--)
				;
			if (all_digits(t + last, hlen - last)) {
				if (start) {
					pat_error(s, a, 0, NULL,
						  "`*.` cannot precede an IP address");
					goto out;
				}
				if (!valid_ipv4(t, hlen)) {
					pat_error(s, a, 0,
						  "write four decimal numbers from 0 to 255, e.g. "
						  "`192.0.2.1`",
						  "invalid IPv4 address `%.*s`", (int)hlen, t);
					goto out;
				}
			}
		}
		host = sema_strndup(s, t, hlen);
		if (!host)
			goto out;
	}
	if (!mask || sema_grow(s, (void **)&s->patterns, &s->cap_patterns, s->npatterns,
			       sizeof(*s->patterns)))
		goto out;
	p = &s->patterns[s->npatterns];
	p->host = host;
	p->port = port;
	p->platforms = (uint8_t)mask;
	p->seq = s->npatterns;
	p->origin = sema_origin(e, &a->loc);
	p->loc = a->loc;
	s->npatterns++;
	host = NULL;
out:
	free(host);
	free(t);
}

static int
cmp_pattern(const void *a, const void *b)
{
	const struct sema_pattern *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (c)
		return c;
	if (x->port != y->port)
		return (int)x->port - (int)y->port;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
sema_build_patterns(struct sema *s)
{
	struct ir_policy *ir = s->ir;
	unsigned allow = 0;
	size_t w = 0;

	/* Patterns only mean something where the final kind is the
	 * allow-list; elsewhere the "set again" warning already said the
	 * list was replaced. */
	for (int p = 0; p < IR_PLATFORM_COUNT; p++)
		if (ir->scalar[p].network.value == IR_NET_ALLOW_LIST)
			allow |= IR_PLAT_BIT(p);
	if (!s->npatterns)
		return 0;
	qsort(s->patterns, s->npatterns, sizeof(*s->patterns), cmp_pattern);
	ir->patterns = calloc(s->npatterns, sizeof(*ir->patterns));
	if (!ir->patterns) {
		s->oom = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->npatterns; i++) {
		struct sema_pattern *p = &s->patterns[i];
		struct ir_net_pattern *o = w ? &ir->patterns[w - 1] : NULL;
		uint8_t m = (uint8_t)(p->platforms & allow);

		if (!m)
			continue;
		/* Duplicates merge; the first one written keeps its origin. */
		if (o && strcmp(o->host, p->host) == 0 && o->port == p->port) {
			o->platforms |= m;
			continue;
		}
		o = &ir->patterns[w++];
		o->host = p->host;
		o->port = p->port;
		o->platforms = m;
		o->origin = p->origin;
		p->host = NULL;
	}
	ir->npatterns = w;
	return 0;
}

/* ------------------------------------------------------------ unreachable entries */

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Names that mean the host itself (RFC 6761 keeps `localhost` and every
 * name under it for loopback): the proxy refuses loopback, so such an
 * entry only misleads a reviewer. */
static bool
loopback_name(const char *host)
{
	return strcmp(host, "localhost") == 0 || strcmp(host, "localhost.localdomain") == 0 ||
	       ends_with(host, ".localhost") || ends_with(host, ".localhost.localdomain");
}

/* An address entry the proxy refuses by what it is, judged with the
 * proxy's own classification (nethost), so heelc and heel-proxy cannot
 * disagree about `::ffff:127.0.0.1` or a NAT64 form. */
static void
warn_address(struct sema *s, const struct sema_pattern *p, unsigned m, unsigned private_ok)
{
	struct nethost h;
	enum nethost_class c;
	unsigned refused;
	char on[SEMA_PLATFORM_LIST_MAX];

	if (nethost_canon(p->host, strlen(p->host), &h, NULL) != 0 || h.kind == NETHOST_NAME)
		return;
	c = nethost_classify(h.kind == NETHOST_IPV4 ? 4 : 6, h.addr);
	if (c == NETHOST_PUBLIC)
		return;
	if (c != NETHOST_PRIVATE) {
		diag_push(s->ctx, DIAG_WARNING, &p->loc, "no statement can open it; remove this entry",
			  "`%s` can never be reached: the proxy always refuses %s addresses",
			  h.text, nethost_class_name(c));
		return;
	}
	/* allow-private is a flag of each platform: say where it is missing
	 * when the entry holds on more platforms than that. */
	refused = m & ~private_ok;
	if (!refused)
		return;
	if (refused == m)
		diag_push(s->ctx, DIAG_WARNING, &p->loc,
			  "add `network allow-private` if the sandbox must reach it",
			  "`%s` is refused unless `network allow-private`: the proxy refuses %s "
			  "addresses by default",
			  h.text, nethost_class_name(c));
	else
		diag_push(s->ctx, DIAG_WARNING, &p->loc,
			  "add `network allow-private` for those platforms if the sandbox must "
			  "reach it",
			  "`%s` is refused on %s: the proxy refuses %s addresses unless "
			  "`network allow-private`",
			  h.text, sema_platform_list(refused, on), nethost_class_name(c));
}

/* One entry, on the platforms `m` where the allow-list is in force. */
static void
warn_pattern(struct sema *s, const struct sema_pattern *p, unsigned m, unsigned private_ok)
{
	if (loopback_name(p->host)) {
		diag_push(s->ctx, DIAG_WARNING, &p->loc,
			  "the proxy never connects to the host itself; remove this entry",
			  "`%s` can never be reached: it names the host's loopback, which is "
			  "always refused",
			  p->host);
		return;
	}
	warn_address(s, p, m, private_ok);
}

void
sema_warn_patterns(struct sema *s)
{
	unsigned list = 0, private_ok = 0;

	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		const struct ir_scalars *sc = &s->ir->scalar[p];

		if (sc->network.value == IR_NET_ALLOW_LIST)
			list |= IR_PLAT_BIT(p);
		if (sc->allow_private.set && sc->allow_private.value)
			private_ok |= IR_PLAT_BIT(p);
	}
	/* Still in statement order here (sema_build_patterns sorts them),
	 * so the warnings come in the order of the source. Entries of a list
	 * that a later `network allow-all` or `deny` replaced are not
	 * warned about: the "set again" warning already covers them. */
	for (size_t i = 0; i < s->npatterns; i++) {
		unsigned m = s->patterns[i].platforms & list;

		if (m)
			warn_pattern(s, &s->patterns[i], m, private_ok);
	}
}

/* ------------------------------------------------------------ the decider */

/* Absolute as written: `/...`, or `C:...` inside `on windows`. */
static bool
is_rooted(const char *path)
{
	return path[0] == '/' || (isalpha((unsigned char)path[0]) && path[1] == ':');
}

/* `path` as the comparisons below read it: on Windows `\` separates
 * like `/`, and a relative path is the `${CWD}/...` it means (heel(5),
 * PATHS: relative to the launch directory), so `x`, `./x` (which
 * sema_check_path kept as `x`) and `${CWD}/x` are one place. NULL on
 * out-of-memory (s->oom). Caller frees. */
static char *
compare_form(struct sema *s, const char *path, bool win)
{
	bool relative = !is_rooted(path) && strncmp(path, "${", 2) != 0;
	size_t n = strlen(path);
	char *out;

	if (!relative)
		out = sema_strdup(s, path);
	else if ((out = malloc(sizeof("${CWD}/") + n)))
		snprintf(out, sizeof("${CWD}/") + n, "${CWD}/%s", path);
	else
		s->oom = true;
	for (char *c = out; out && win && *c; c++)
		if (*c == '\\')
			*c = '/';
	return out;
}

/* Whether `child` is `parent` or lies beneath it, both in compare_form.
 * Windows names are case-insensitive. Paths that start with different
 * variables, or one with a variable and one without, cannot be compared
 * here (where each leads is known at launch, when heel-exec checks
 * again): false, except that `/` holds every path, since every variable
 * and the launch directory expand to absolute paths. */
static bool
at_or_beneath(const char *parent, const char *child, bool win)
{
	size_t n = strlen(parent);

	if (!win && strcmp(parent, "/") == 0)
		return true;
	if (win ? strncasecmp(parent, child, n) != 0 : strncmp(parent, child, n) != 0)
		return false;
	return child[n] == '\0' || child[n] == '/' || (n && parent[n - 1] == '/');
}

/* The rule that decides for `path` on platform `p`: the one with the
 * longest path at or above it (the language's precedence; of two rules
 * that both hold a path, the longer is the deeper, `/` being the only
 * one that holds paths of every spelling). Between two spellings of one
 * place (`C:/x`, `c:\x`) the writable one is taken, so a doubt is a
 * refusal. NULL when no rule covers it. */
static const struct sema_path *
deciding_rule(struct sema *s, const char *path, int p)
{
	bool win = p == IR_WINDOWS;
	char *want = compare_form(s, path, win);
	const struct sema_path *best = NULL;
	size_t best_len = 0;

	if (!want)
		return NULL;
	for (size_t i = 0; i < s->npaths; i++) {
		const struct sema_path *e = &s->paths[i];
		const struct sema_cell *c = &e->cell[p];
		char *parent;
		size_t n;

		if (!c->present || !(parent = compare_form(s, e->path, win)))
			continue;
		n = strlen(parent);
		if (at_or_beneath(parent, want, win) &&
		    (!best || n > best_len ||
		     (n == best_len && (c->mode & IR_WRITE) && !(best->cell[p].mode & IR_WRITE)))) {
			best = e;
			best_len = n;
		}
		free(parent);
	}
	free(want);
	return best;
}

/* Why the sandbox could write `path` on platform `p`: the writable rule
 * deciding for it (*rule), or the policy's working directory holding it
 * (*workdir). False when neither. */
static bool
place_writable(struct sema *s, const char *path, int p, const struct sema_path **rule,
	       bool *workdir)
{
	const char *wd = s->ir->scalar[p].workdir.value;
	const struct sema_path *r = deciding_rule(s, path, p);

	*rule = NULL;
	*workdir = false;
	if (r && (r->cell[p].mode & IR_WRITE)) {
		*rule = r;
		return true;
	}
	if (wd) {
		bool win = p == IR_WINDOWS;
		char *a = compare_form(s, wd, win), *b = compare_form(s, path, win);

		*workdir = a && b && at_or_beneath(a, b, win);
		free(a);
		free(b);
	}
	return *workdir;
}

static bool
same_loc(const struct diag_loc *a, const struct diag_loc *b)
{
	return a->src == b->src && a->line == b->line && a->col == b->col;
}

/* One reason a decider is writable, and the platforms it holds on. */
struct decider_why {
	const struct sema_path *rule; /* NULL: the working directory */
	uint8_t mode;
	struct diag_loc locs[IR_PLATFORM_COUNT]; /* the grants or workdir statements */
	size_t nlocs;
	unsigned mask;
};

void
sema_check_decider(struct sema *s)
{
	unsigned done = 0;

	/* The decider runs on the host with the launcher's user and judges
	 * every destination: a sandbox that can rewrite it grants itself any
	 * network access. heelc sees the policy's paths, not the files, so
	 * this catches what the policy itself says; heel-exec checks the
	 * real file again at launch. */
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		const struct ir_decider *d = &s->ir->decider[p];
		struct decider_why why[IR_PLATFORM_COUNT];
		size_t nwhy = 0;
		unsigned group = 0;

		if (!d->program || (done & IR_PLAT_BIT(p)))
			continue;
		/* Platforms where the same statement is in force are one
		 * report: a grant outside any block is one mistake. */
		for (int q = p; q < IR_PLATFORM_COUNT; q++)
			if (s->ir->decider[q].program &&
			    same_loc(&s->decider_loc[q], &s->decider_loc[p]))
				group |= IR_PLAT_BIT(q);
		done |= group;
		for (int q = p; q < IR_PLATFORM_COUNT; q++) {
			const struct sema_path *rule;
			struct diag_loc loc;
			bool wd;
			size_t k;

			if (!(group & IR_PLAT_BIT(q)) ||
			    !place_writable(s, s->ir->decider[q].program, q, &rule, &wd))
				continue;
			loc = rule ? rule->cell[q].loc : s->slots[SEMA_SLOT_WORKDIR][q].loc;
			/* One path granted alike on two platforms (by a base
			 * that says it once per platform) is one mistake. */
			for (k = 0; k < nwhy; k++)
				if (why[k].rule == rule &&
				    (!rule || why[k].mode == rule->cell[q].mode))
					break;
			if (k == nwhy)
				why[nwhy++] = (struct decider_why){
				    .rule = rule, .mode = rule ? rule->cell[q].mode : 0};
			why[k].mask |= IR_PLAT_BIT(q);
			for (size_t j = 0; j <= why[k].nlocs; j++) {
				if (j == why[k].nlocs) {
					why[k].locs[why[k].nlocs++] = loc;
					break;
				}
				if (same_loc(&why[k].locs[j], &loc))
					break;
			}
		}
		for (size_t k = 0; k < nwhy; k++) {
			int q = 0;
			char on[80] = "", list[SEMA_PLATFORM_LIST_MAX];

			while (!(why[k].mask & IR_PLAT_BIT(q)))
				q++;
			if (why[k].mask != group)
				snprintf(on, sizeof(on), " on %s", sema_platform_list(why[k].mask, list));
			if (why[k].rule) {
				const char *path = why[k].rule->path;

				diag_push(s->ctx, DIAG_ERROR, &s->decider_loc[p],
					  "the sandbox could replace the program that decides its "
					  "network access; install the decider where the policy "
					  "grants no write",
					  "`network decide` runs `%s`, which the sandbox can "
					  "write%s: it is beneath `grant \"%s\" %s`",
					  d->program, on, path, ir_mode_name(why[k].mode));
				for (size_t j = 0; j < why[k].nlocs; j++)
					diag_push(s->ctx, DIAG_NOTE, &why[k].locs[j], NULL,
						  "granted writable here");
			} else {
				diag_push(s->ctx, DIAG_ERROR, &s->decider_loc[p],
					  "the sandbox writes its working directory; install the "
					  "decider outside it",
					  "`network decide` runs `%s`, which is inside the working "
					  "directory `%s`%s",
					  d->program, s->ir->scalar[q].workdir.value, on);
				for (size_t j = 0; j < why[k].nlocs; j++)
					diag_push(s->ctx, DIAG_NOTE, &why[k].locs[j], NULL,
						  "working directory set here");
			}
		}
	}
}

/* ------------------------------------------------------------ the audit sink */

/* The directory `path` lies in, as the policy would spell it, or NULL
 * when it is a root or a lone variable (where that leads is known at
 * launch only). A relative name without a separator lies in the launch
 * directory. Caller frees. */
static char *
parent_of(struct sema *s, const char *path, bool win)
{
	const char *sep = NULL;

	for (const char *c = path; *c; c++)
		if (*c == '/' || (win && *c == '\\'))
			sep = c;
	if (!sep) {
		if (is_rooted(path) || strncmp(path, "${", 2) == 0)
			return NULL;
		return sema_strdup(s, "${CWD}");
	}
	if (!sep[1])
		return NULL; /* "/" or "C:\" */
	if (sep == path || (sep == path + 2 && path[1] == ':'))
		return sema_strndup(s, path, (size_t)(sep - path) + 1);
	return sema_strndup(s, path, (size_t)(sep - path));
}

/* Why the sandbox could write an audit sink, on the platforms of mask. */
enum sink_how {
	SINK_AT,      /* the sink lies at or beneath a writable place */
	SINK_DIR,     /* the directory it lies in does */
	SINK_BENEATH, /* a writable place lies beneath the daily directory */
};

struct sink_why {
	const struct sema_path *rule; /* NULL: the working directory */
	uint8_t mode;
	enum sink_how how;
	struct diag_loc locs[IR_PLATFORM_COUNT];
	size_t nlocs;
	unsigned mask;
};

static void
add_why(struct sink_why *why, size_t *nwhy, const struct sema_path *rule, enum sink_how how,
	int q, const struct diag_loc *loc)
{
	size_t k;

	/* One place granted alike on two platforms (by a base that says it
	 * once per platform) is one mistake; a place that holds the sink
	 * and its directory is said once. */
	for (k = 0; k < *nwhy; k++)
		if (why[k].rule == rule && (!rule || why[k].mode == rule->cell[q].mode))
			break;
	if (k == *nwhy) {
		if (k == 3 * IR_PLATFORM_COUNT)
			return;
		why[(*nwhy)++] =
		    (struct sink_why){.rule = rule, .mode = rule ? rule->cell[q].mode : 0, .how = how};
	}
	why[k].mask |= IR_PLAT_BIT(q);
	for (size_t j = 0; j < why[k].nlocs; j++)
		if (same_loc(&why[k].locs[j], loc))
			return;
	if (why[k].nlocs < IR_PLATFORM_COUNT)
		why[k].locs[why[k].nlocs++] = *loc;
}

/* The writable places beneath the daily directory `dir` on platform q:
 * the sandbox could make the day's file there (or a link in its name). */
static void
writable_beneath(struct sema *s, const char *dir, int q, struct sink_why *why, size_t *nwhy)
{
	bool win = q == IR_WINDOWS;
	char *d = compare_form(s, dir, win);
	const char *wd = s->ir->scalar[q].workdir.value;

	if (!d)
		return;
	for (size_t i = 0; i < s->npaths; i++) {
		const struct sema_cell *c = &s->paths[i].cell[q];
		char *r;

		if (!c->present || !(c->mode & IR_WRITE) ||
		    !(r = compare_form(s, s->paths[i].path, win)))
			continue;
		/* The directory itself, or above it, is SINK_AT's. */
		if (!at_or_beneath(r, d, win) && at_or_beneath(d, r, win))
			add_why(why, nwhy, &s->paths[i], SINK_BENEATH, q, &c->loc);
		free(r);
	}
	if (wd) {
		char *w = compare_form(s, wd, win);

		if (w && !at_or_beneath(w, d, win) && at_or_beneath(d, w, win))
			add_why(why, nwhy, NULL, SINK_BENEATH, q,
				&s->slots[SEMA_SLOT_WORKDIR][q].loc);
		free(w);
	}
	free(d);
}

static void
report_sink(struct sema *s, int p, const struct sink_why *w, unsigned group)
{
	static const char hint[] =
	    "the sandbox could put a link to a file the host runs (~/.bashrc) in the sink's "
	    "place, and heel-proxy would append lines the sandbox partly controls to it, or "
	    "rewrite its own audit record; write the audit where the policy grants no write";
	const struct ir_scalars *sc = &s->ir->scalar[p];
	bool daily = sc->audit_kind.value == IR_AUDIT_DAILY;
	const char *sink = sc->audit_path.value;
	char on[80] = "", list[SEMA_PLATFORM_LIST_MAX], what[64];
	int q = 0;

	while (!(w->mask & IR_PLAT_BIT(q)))
		q++;
	if (w->mask != group)
		snprintf(on, sizeof(on), " on %s", sema_platform_list(w->mask, list));
	snprintf(what, sizeof(what), "`network audit%s` writes %s", daily ? " daily" : "",
		 daily ? "into" : "to");
	if (w->rule && w->how == SINK_BENEATH)
		diag_push(s->ctx, DIAG_ERROR, &s->audit_loc[p], hint,
			  "%s `%s`, and the sandbox can write beneath it%s: `grant \"%s\" %s`", what,
			  sink, on, w->rule->path, ir_mode_name(w->mode));
	else if (w->rule)
		diag_push(s->ctx, DIAG_ERROR, &s->audit_loc[p], hint,
			  "%s `%s`, which the sandbox can write%s: %s beneath `grant \"%s\" %s`",
			  what, sink, on, w->how == SINK_AT ? "it is" : "its directory is",
			  w->rule->path, ir_mode_name(w->mode));
	else if (w->how == SINK_BENEATH)
		diag_push(s->ctx, DIAG_ERROR, &s->audit_loc[p], hint,
			  "%s `%s`, and the working directory `%s` lies inside it%s", what, sink,
			  s->ir->scalar[q].workdir.value, on);
	else
		diag_push(s->ctx, DIAG_ERROR, &s->audit_loc[p], hint,
			  "%s `%s`, which the sandbox can write%s: %s inside the working "
			  "directory `%s`",
			  what, sink, on, w->how == SINK_AT ? "it is" : "its directory is",
			  s->ir->scalar[q].workdir.value);
	for (size_t j = 0; j < w->nlocs; j++)
		diag_push(s->ctx, DIAG_NOTE, &w->locs[j], NULL,
			  w->rule ? "granted writable here" : "working directory set here");
}

void
sema_check_audit(struct sema *s)
{
	unsigned done = 0;

	/* heel-proxy opens the sink on the host, with the launcher's user,
	 * before it confines itself, and appends to it for the whole run:
	 * a sink the sandbox can replace is a file of the host the sandbox
	 * chooses. heelc sees the policy's paths, so this catches what the
	 * policy itself says, in every spelling it can compare; heel-exec
	 * checks the real file again at launch. */
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		const struct ir_scalars *sc = &s->ir->scalar[p];
		struct sink_why why[3 * IR_PLATFORM_COUNT];
		size_t nwhy = 0;
		unsigned group = 0;

		/* Only the platforms built (check_targets has run). */
		if (sc->audit_kind.value == IR_AUDIT_NONE || !sc->audit_path.value ||
		    !(s->ir->platforms & IR_PLAT_BIT(p)) || (done & IR_PLAT_BIT(p)))
			continue;
		/* Platforms where the same statement is in force are one
		 * report: a grant outside any block is one mistake. */
		for (int q = p; q < IR_PLATFORM_COUNT; q++)
			if ((s->ir->platforms & IR_PLAT_BIT(q)) &&
			    s->ir->scalar[q].audit_kind.value != IR_AUDIT_NONE &&
			    s->ir->scalar[q].audit_path.value &&
			    same_loc(&s->audit_loc[q], &s->audit_loc[p]))
				group |= IR_PLAT_BIT(q);
		done |= group;
		for (int q = p; q < IR_PLATFORM_COUNT && !s->oom; q++) {
			const char *sink = s->ir->scalar[q].audit_path.value;
			const struct sema_path *rule;
			char *dir;
			bool wd;

			if (!(group & IR_PLAT_BIT(q)))
				continue;
			if (place_writable(s, sink, q, &rule, &wd))
				add_why(why, &nwhy, rule, SINK_AT, q,
					rule ? &rule->cell[q].loc : &s->slots[SEMA_SLOT_WORKDIR][q].loc);
			/* Write in the directory is enough to put a link in
			 * the sink's name. */
			dir = parent_of(s, sink, q == IR_WINDOWS);
			if (dir && place_writable(s, dir, q, &rule, &wd))
				add_why(why, &nwhy, rule, SINK_DIR, q,
					rule ? &rule->cell[q].loc : &s->slots[SEMA_SLOT_WORKDIR][q].loc);
			free(dir);
			if (s->ir->scalar[q].audit_kind.value == IR_AUDIT_DAILY)
				writable_beneath(s, sink, q, why, &nwhy);
		}
		for (size_t k = 0; k < nwhy; k++)
			report_sink(s, p, &why[k], group);
	}
}

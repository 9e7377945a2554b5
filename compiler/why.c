/* SPDX-License-Identifier: MIT
 * Why a sandboxed action is refused; see why.h. */
#include "why.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "errno_names.h"
#include "seccomp_policy.h"

/* A path rule of the policy as the launch expanded it. */
struct xrule {
	char *path;
	const struct ir_path_rule *r; /* NULL: the working directory */
};

/* A `readonly` path as the launch expanded it (one per writable place
 * for each_writable). */
struct xro {
	char *path;
	const struct ir_readonly *r;
};

struct why_policy {
	const struct ir_policy *p;
	const struct ir_scalars *sc;
	struct why_launch l;
	struct xrule *rules;
	size_t nrules;
	struct xro *ro;
	size_t nro;
	struct scp_model *scp;
};

/* Shared temp: never executable, whatever grants it, except beneath a
 * rule of a directory in it, which is a mount of its own (heel(5)). */

static const char *const op_names[DENIAL_OP_COUNT] = {
    [DENIAL_OPEN_READ] = "open-read", [DENIAL_OPEN_WRITE] = "open-write",
    [DENIAL_CREATE] = "create",	      [DENIAL_UNLINK] = "unlink",
    [DENIAL_RENAME] = "rename",	      [DENIAL_LINK] = "link",
    [DENIAL_MKDIR] = "mkdir",	      [DENIAL_SETATTR] = "setattr",
    [DENIAL_EXEC] = "exec",	      [DENIAL_CONNECT] = "connect",
    [DENIAL_BIND] = "bind",	      [DENIAL_SENDTO] = "sendto",
    [DENIAL_SYSCALL] = "syscall",
};

static const char *const wall_names[WHY_WALL_COUNT] = {
    [WHY_WALL_LANDLOCK] = "landlock",
    [WHY_WALL_READONLY_MOUNT] = "read-only mount",
    [WHY_WALL_READONLY_COVER] = "read-only cover",
    [WHY_WALL_NOEXEC] = "noexec mount",
    [WHY_WALL_SECCOMP] = "seccomp",
    [WHY_WALL_NETNS] = "network namespace",
    [WHY_WALL_PROXY] = "proxy",
};

const char *
why_op_name(unsigned op)
{
	return op < DENIAL_OP_COUNT ? op_names[op] : "?";
}

const char *
why_wall_name(unsigned wall)
{
	return wall < WHY_WALL_COUNT ? wall_names[wall] : "?";
}

#if defined(__aarch64__)
#define NATIVE_SCP SCP_AARCH64
#else
#define NATIVE_SCP SCP_X86_64
#endif

static int
add_rule(struct why_policy *w, const char *path, const struct ir_path_rule *r)
{
	struct xrule *n = realloc(w->rules, (w->nrules + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	w->rules = n;
	if (!(n[w->nrules].path = strdup(path)))
		return -ENOMEM;
	n[w->nrules++].r = r;
	return 0;
}

static int
add_ro(struct why_policy *w, const char *path, const struct ir_readonly *r)
{
	struct xro *n = realloc(w->ro, (w->nro + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	w->ro = n;
	if (!(n[w->nro].path = strdup(path)))
		return -ENOMEM;
	n[w->nro++].r = r;
	return 0;
}

/* The writable places: writable grants and the working directory. A
 * `readonly ... in each writable place` path is taken from each. */
static int
expand_readonly(struct why_policy *w)
{
	char buf[PATH_MAX], joined[PATH_MAX];
	struct px_info info;
	int r;

	for (size_t i = 0; i < w->p->nreadonly; i++) {
		const struct ir_readonly *ro = &w->p->readonly[i];

		if (!(ro->platforms & IR_PLAT_BIT(IR_LINUX)))
			continue;
		if (!ro->each_writable) {
			if (px_expand(ro->path, w->l.lookup, w->l.ctx, buf, sizeof(buf), &info) ==
				0 &&
			    (r = add_ro(w, buf, ro)) < 0)
				return r;
			continue;
		}
		for (size_t j = 0; j < w->nrules; j++) {
			const struct xrule *x = &w->rules[j];

			if (x->r && !(x->r->mode & IR_WRITE))
				continue;
			if (snprintf(joined, sizeof(joined), "%s/%s",
				     strcmp(x->path, "/") ? x->path : "",
				     ro->path) >= (int)sizeof(joined))
				continue;
			if ((r = add_ro(w, joined, ro)) < 0)
				return r;
		}
	}
	return 0;
}

int
why_policy_new(const struct ir_policy *policy, const struct why_launch *l, struct why_policy **out)
{
	struct why_policy *w;
	char buf[PATH_MAX];
	struct px_info info;
	int r = -ENOMEM;

	*out = NULL;
	if (!(policy->platforms & IR_PLAT_BIT(IR_LINUX)))
		return -EINVAL;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->p = policy;
	w->sc = &policy->scalar[IR_LINUX];
	w->l = *l;
	for (size_t i = 0; i < policy->npaths; i++) {
		const struct ir_path_rule *pr = &policy->paths[i];

		if (!(pr->platforms & IR_PLAT_BIT(IR_LINUX)))
			continue;
		/* Unset: the launch skipped it too (an optional rule), or
		 * refused to run (a required one), so it decides nothing. */
		if (px_expand(pr->path, l->lookup, l->ctx, buf, sizeof(buf), &info) < 0)
			continue;
		if ((r = add_rule(w, buf, pr)) < 0)
			goto fail;
	}
	if (l->workdir && (r = add_rule(w, l->workdir, NULL)) < 0)
		goto fail;
	if ((r = expand_readonly(w)) < 0)
		goto fail;
	if ((r = scp_build(policy, NATIVE_SCP, &w->scp)) < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	why_policy_free(w);
	return r;
}

void
why_policy_free(struct why_policy *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nrules; i++)
		free(w->rules[i].path);
	for (size_t i = 0; i < w->nro; i++)
		free(w->ro[i].path);
	free(w->rules);
	free(w->ro);
	scp_free(w->scp);
	free(w);
}

/* heel(5) PRECEDENCE: the longest matching path decides; of two rules of
 * one path, a grant beats a deny unless the isolation base made it. The
 * working directory is a place of the launch, writable. */
static const struct xrule *
governing(const struct why_policy *w, const char *path)
{
	const struct xrule *best = NULL;
	size_t blen = 0;

	for (size_t i = 0; i < w->nrules; i++) {
		const struct xrule *x = &w->rules[i];
		size_t n = strlen(x->path);

		if (!px_at_or_beneath(path, x->path))
			continue;
		if (best && n < blen)
			continue;
		if (best && n == blen && x->r && best->r) {
			bool x_deny = x->r->mode == IR_MODE_DENY,
			     b_deny = best->r->mode == IR_MODE_DENY;

			if (x_deny == b_deny)
				continue;
			/* A base grant loses to a deny; any other grant wins. */
			if (x_deny ? best->r->source != IR_SRC_BASE : x->r->source == IR_SRC_BASE)
				continue;
		}
		best = x;
		blen = n;
	}
	return best;
}

/* A `readonly` path above or at `path` that the governing rule does not
 * override (an explicit writable grant of the very path, or of one
 * beneath the readonly path, wins). */
static const struct xro *
readonly_over(const struct why_policy *w, const char *path, const struct xrule *g)
{
	for (size_t i = 0; i < w->nro; i++) {
		const struct xro *x = &w->ro[i];

		if (!px_at_or_beneath(path, x->path))
			continue;
		if (g && g->r && (g->r->mode & IR_WRITE) && px_at_or_beneath(g->path, x->path) &&
		    g->r->source == IR_SRC_USER)
			continue;
		return x;
	}
	return NULL;
}

static void
origin_text(const struct ir_origin *o, char *buf, size_t len)
{
	if (!o->file)
		snprintf(buf, len, "heel");
	else if (o->line)
		snprintf(buf, len, "%s:%u", o->file, (unsigned)o->line);
	else
		snprintf(buf, len, "%s", o->file);
}

static void __attribute__((format(printf, 3, 4))) put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static bool
needs_write(unsigned op)
{
	return op != DENIAL_OPEN_READ && op != DENIAL_EXEC;
}

/* A new or removed name needs its directory's rights: a grant of the
 * directory allows it, unless the rule names the file itself. */
static bool
names_entry(unsigned op)
{
	return op == DENIAL_CREATE || op == DENIAL_UNLINK || op == DENIAL_RENAME ||
	       op == DENIAL_LINK || op == DENIAL_MKDIR;
}

static void
fix_grant(struct why_answer *a, const char *target, const char *mode)
{
	const char *opt = strcmp(mode, "r") == 0    ? "--readable %s"
			  : strcmp(mode, "rw") == 0 ? "--writable %s"
			  : strcmp(mode, "rx") == 0 ? "--executable %s"
						    : NULL;

	if (opt)
		put(a->option, sizeof(a->option), opt, target);
	else
		put(a->option, sizeof(a->option), "--grant %s=%s", target, mode);
	put(a->line, sizeof(a->line), "grant \"%s\" %s", target, mode);
}

/* The rule's words: "protection set credentials denies it". */
static void
rule_of(struct why_answer *a, const struct xrule *g)
{
	if (!g) {
		snprintf(a->rule, sizeof(a->rule), "no rule");
		return;
	}
	if (!g->r) {
		snprintf(a->rule, sizeof(a->rule), "the working directory %s", g->path);
		return;
	}
	origin_text(&g->r->origin, a->rule, sizeof(a->rule));
	if (g->r->mode == IR_MODE_DENY && g->r->set != IR_SET_NONE)
		a->set = ir_set_name(g->r->set);
}

static int
explain_path(const struct why_policy *w, const struct denial_event *ev, struct why_answer *a)
{
	const char *path = ev->path, *tmp = NULL;
	const struct xrule *g = governing(w, path);
	unsigned mode = g ? (g->r ? g->r->mode : IR_MODE_RW) : IR_MODE_DENY;
	char dir[PATH_MAX];
	const char *target;
	const struct xro *ro;

	if (path[0] != '/')
		return 0;
	px_dir_of(path, dir, sizeof(dir));
	target = names_entry(ev->op) && !(g && strcmp(g->path, path) == 0) ? dir : path;
	rule_of(a, g);
	a->covered = g && g->r && mode == IR_MODE_DENY;
	if (a->set)
		put(a->reason, sizeof(a->reason), "the protection set %s denies %s", a->set,
		    g->path);
	else if (g && g->r && mode == IR_MODE_DENY)
		put(a->reason, sizeof(a->reason), "%s is denied", g->path);
	else if (!g)
		put(a->reason, sizeof(a->reason), "no rule of the policy grants %s", path);

	if (ev->op == DENIAL_EXEC) {
		/* Shared temp never runs, whatever grants it, unless a rule
		 * of a directory beneath it decides (a mount of its own). */
		if ((tmp = px_in_shared_temp(path)) && !(g && px_beneath(g->path, tmp))) {
			a->wall = WHY_WALL_NOEXEC;
			put(a->reason, sizeof(a->reason),
			    "%s lies in shared temp (%s), which never runs anything", path, tmp);
			if (strcmp(dir, tmp)) {
				fix_grant(a, dir, "rx");
				return 1;
			}
			/* A grant of shared temp itself never runs either. */
			put(a->option, sizeof(a->option),
			    "move it into a directory of its own beneath %s, then --executable DIR",
			    tmp);
			put(a->line, sizeof(a->line), "grant \"DIR\" rx");
			return 1;
		}
		if (mode & IR_EXEC)
			return 0;
		if (mode & IR_WRITE) {
			a->wall = WHY_WALL_NOEXEC;
			if (!g->r)
				put(a->reason, sizeof(a->reason),
				    "%s lies in the working directory, which is writable and never "
				    "runs anything",
				    path);
			else
				put(a->reason, sizeof(a->reason),
				    "%s lies in %s, which the sandbox may write (%s), and nothing "
				    "writable runs",
				    path, g->path, ir_mode_name(mode));
			/* rwx gives up write-then-exec there. */
			if (g->r) {
				fix_grant(a, strcmp(g->path, path) ? dir : path, "rwx");
				return 1;
			}
			/* The working directory itself never runs anything. */
			put(a->option, sizeof(a->option),
			    "--grant DIR=rwx, and build or copy it there (the working directory "
			    "never runs anything)");
			put(a->line, sizeof(a->line), "grant \"DIR\" rwx");
			return 1;
		}
		a->wall = WHY_WALL_LANDLOCK;
		if (mode)
			put(a->reason, sizeof(a->reason), "%s is granted %s: read, not run",
			    g->path, ir_mode_name(mode));
		fix_grant(a, g && strcmp(g->path, path) == 0 ? path : dir, "rx");
		return 1;
	}

	if (!needs_write(ev->op)) {
		if (mode & IR_READ)
			return 0;
		a->wall = WHY_WALL_LANDLOCK;
		fix_grant(a, path, "r");
		return 1;
	}

	/* Writes. Inside a writable place, `readonly` covers what the host
	 * runs. */
	if (mode & IR_WRITE) {
		if (!(ro = readonly_over(w, path, g)))
			return 0;
		a->wall = WHY_WALL_READONLY_COVER;
		origin_text(&ro->r->origin, a->rule, sizeof(a->rule));
		a->set = ro->r->set != IR_SET_NONE ? ir_set_name(ro->r->set) : NULL;
		put(a->reason, sizeof(a->reason), "%s stays read-only inside a writable place%s%s",
		    ro->path, ro->r->because ? ": " : "", ro->r->because ? ro->r->because : "");
		/* An explicit grant of the very path wins over `readonly`. */
		fix_grant(a, ro->path, "rw");
		return 1;
	}
	/* Outside the writable places the view is read-only: the mount
	 * answers EROFS before Landlock is asked (mnt_want_write comes
	 * before the security hooks). EACCES means Landlock answered. */
	a->wall = ev->err == EACCES ? WHY_WALL_LANDLOCK : WHY_WALL_READONLY_MOUNT;
	if (!a->reason[0])
		put(a->reason, sizeof(a->reason), "%s is granted %s: not writable", g->path,
		    ir_mode_name(mode));
	fix_grant(a, target, "rw");
	return 1;
}

static bool
loopback(const struct denial_event *ev)
{
	static const uint8_t v6_lo[16] = {[15] = 1};

	if (ev->family == AF_INET)
		return ev->addr[0] == 127;
	return ev->family == AF_INET6 && memcmp(ev->addr, v6_lo, 16) == 0;
}

static int
explain_net(const struct why_policy *w, const struct denial_event *ev, struct why_answer *a)
{
	const struct ir_u64 *net = &w->sc->network;
	char host[INET6_ADDRSTRLEN + 8] = "";

	/* A refused host name: heel-proxy's answer. */
	if (ev->family == 0 && ev->path[0]) {
		a->wall = WHY_WALL_PROXY;
		origin_text(&net->origin, a->rule, sizeof(a->rule));
		put(a->reason, sizeof(a->reason), "%s is not in the network allow list", ev->path);
		put(a->option, sizeof(a->option), "--allow-domain %s", ev->path);
		put(a->line, sizeof(a->line), "network allow { \"%s\" }", ev->path);
		return 1;
	}
	if (ev->family == AF_UNIX) {
		/* Landlock's RESOLVE_UNIX goes with write; only a kernel that
		 * answered says which wall it was. */
		if (!ev->err || ev->path[0] != '/')
			return 0;
		struct denial_event copy = *ev;

		copy.op = DENIAL_OPEN_WRITE;
		copy.err = EACCES;
		return explain_path(w, &copy, a);
	}
	if ((ev->family != AF_INET && ev->family != AF_INET6) || ev->op == DENIAL_BIND ||
	    loopback(ev) || net->value == IR_NET_ALLOW_ALL)
		return 0;
	inet_ntop(ev->family, ev->addr, host, sizeof(host));
	a->wall = WHY_WALL_NETNS;
	if (net->origin.file)
		origin_text(&net->origin, a->rule, sizeof(a->rule));
	else
		snprintf(a->rule, sizeof(a->rule), "network deny (the default)");
	if (net->value == IR_NET_DENY) {
		put(a->reason, sizeof(a->reason),
		    "network deny: the sandbox has a network of its own, loopback only "
		    "(%s port %u is beyond it)",
		    host, (unsigned)ev->port);
		snprintf(a->option, sizeof(a->option),
			 "--allow-domain HOST (the name behind %s), "
			 "or --network allow-all",
			 host);
		snprintf(a->line, sizeof(a->line), "network allow { \"HOST\" }");
		return 1;
	}
	put(a->reason, sizeof(a->reason),
	    "network allow-list: only heel-proxy is reachable, through HTTP_PROXY and "
	    "HTTPS_PROXY (%s port %u directly is not)",
	    host, (unsigned)ev->port);
	snprintf(a->option, sizeof(a->option), "connect through the proxy, or --network allow-all");
	snprintf(a->line, sizeof(a->line), "network allow-all");
	return 1;
}

static int
explain_syscall(const struct why_policy *w, const struct denial_event *ev, struct why_answer *a)
{
	struct bpf_sim_data d = {.nr = ev->nr, .arch = w->scp->audit_arch};
	const struct scp_rule *r = scp_find(w->scp, ev->nr);
	const char *name = r ? r->name : scp_name(NATIVE_SCP, ev->nr);
	uint32_t act;

	memcpy(d.args, ev->args, sizeof(d.args));
	act = scp_eval(w->scp, &d);
	if ((act & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW ||
	    (act & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
		return 0;
	a->wall = WHY_WALL_SECCOMP;
	if (r && r->origin) {
		origin_text(r->origin, a->rule, sizeof(a->rule));
		put(a->reason, sizeof(a->reason), "the policy denies %s", name ? name : "it");
	} else {
		snprintf(a->rule, sizeof(a->rule), "heel's seccomp base");
		put(a->reason, sizeof(a->reason), "%s: %s", name ? name : "an unknown call",
		    r && r->why ? r->why : "denied");
	}
	if (!name || scp_never_allowable(name)) {
		snprintf(a->option, sizeof(a->option), "none: heel never allows %s",
			 name ? name : "a call it does not know");
		return 1;
	}
	/* heel run has no seccomp option: a policy line only. */
	put(a->line, sizeof(a->line), "seccomp allow \"%s\"", name);
	return 1;
}

int
why_explain(const struct why_policy *w, const struct denial_event *ev, struct why_answer *a)
{
	*a = (struct why_answer){0};
	if (ev->version != DENIAL_VERSION || ev->op >= DENIAL_OP_COUNT)
		return -EINVAL;
	switch (ev->op) {
	case DENIAL_CONNECT:
	case DENIAL_BIND:
	case DENIAL_SENDTO:
		return explain_net(w, ev, a);
	case DENIAL_SYSCALL:
		return explain_syscall(w, ev, a);
	default:
		return explain_path(w, ev, a);
	}
}

/* What the sandbox named is shown on the user's terminal and in a log:
 * control characters (C0, DEL and the C1 range as UTF-8 encodes it) are
 * written as \\xNN, so that a file name cannot move the cursor or
 * retitle the window; with `high`, every byte above ASCII too (for a
 * JSON string, which must be UTF-8). */
static void
safe_text(const char *in, size_t n, char *out, size_t cap, bool high)
{
	size_t o = 0;

	for (size_t i = 0; i < n && in[i] && o + 5 < cap; i++) {
		unsigned char c = (unsigned char)in[i],
			      d = i + 1 < n ? (unsigned char)in[i + 1] : 0;
		bool c1 = c == 0xc2 && d >= 0x80 && d <= 0x9f;

		if (c < 0x20 || c == 0x7f || (high && c >= 0x80)) {
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		} else if (c1) {
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x\\x%02x", c, d);
			i++;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

/* What was tried on: a path, "host port N", or a call's name. */
static void
target_text(const struct denial_event *ev, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "";
	const char *name;

	if (ev->op == DENIAL_SYSCALL) {
		name = scp_name(NATIVE_SCP, ev->nr);
		if (name)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "#%u", (unsigned)ev->nr);
	} else if (ev->family == AF_INET || ev->family == AF_INET6) {
		inet_ntop(ev->family, ev->addr, host, sizeof(host));
		snprintf(buf, len, "%s port %u", host, (unsigned)ev->port);
	} else {
		snprintf(buf, len, "%.*s", (int)strnlen(ev->path, DENIAL_PATH_MAX), ev->path);
	}
}

int
why_line(const struct denial_event *ev, const struct why_answer *a, unsigned count, char *buf,
	 size_t len)
{
	char target[DENIAL_PATH_MAX + 64], times[32] = "", set[96] = "", allow[1100] = "";

	target_text(ev, target, sizeof(target));
	if (count > 1)
		snprintf(times, sizeof(times), ", %u times", count);
	if (a->set)
		snprintf(set, sizeof(set), ", protection set %s", a->set);
	if (a->option[0] && a->line[0])
		snprintf(allow, sizeof(allow), "; allow: heel run %s (a policy: %s)", a->option,
			 a->line);
	else if (a->option[0])
		snprintf(allow, sizeof(allow), "; allow: %s", a->option);
	else if (a->line[0])
		snprintf(allow, sizeof(allow), "; allow: a policy line %s", a->line);
	char *raw = NULL;
	int n = asprintf(&raw, "heel: refused %s %s (%.*s%s): %s%s, %s: %s%s", why_op_name(ev->op),
			 target, (int)strnlen(ev->comm, DENIAL_COMM_MAX), ev->comm, times,
			 why_wall_name(a->wall), set, a->rule, a->reason, allow);

	if (n < 0) {
		snprintf(buf, len, "heel: refused %s (out of memory)", why_op_name(ev->op));
		return (int)strlen(buf);
	}
	safe_text(raw, (size_t)n, buf, len, false);
	free(raw);
	return (int)strlen(buf);
}

/* A JSON string of what may not be UTF-8: as it is when it is, else
 * with every byte above ASCII escaped. */
static json_t *
jstr(const char *s, size_t n)
{
	char safe[DENIAL_PATH_MAX * 4 + 16];
	json_t *j = json_stringn(s, n);

	if (j)
		return j;
	safe_text(s, n, safe, sizeof(safe), true);
	return json_string(safe);
}

char *
why_json(const struct denial_event *ev, const struct why_answer *a, unsigned count,
	 const char *timestamp)
{
	char target[DENIAL_PATH_MAX + 64], host[INET6_ADDRSTRLEN];
	const char *en = ev->err ? errno_name(ev->err) : NULL;
	json_t *o;
	char *text;

	o = json_pack("{s:s, s:s, s:I, s:o, s:s}", "type", WHY_JSON_TYPE, "timestamp", timestamp,
		      "pid", (json_int_t)ev->pid, "comm",
		      jstr(ev->comm, strnlen(ev->comm, DENIAL_COMM_MAX)), "op",
		      why_op_name(ev->op));
	if (!o)
		return NULL;
	if (ev->op == DENIAL_SYSCALL) {
		target_text(ev, target, sizeof(target));
		json_object_set_new(o, "syscall", json_string(target));
	} else if (ev->family == AF_INET || ev->family == AF_INET6) {
		inet_ntop(ev->family, ev->addr, host, sizeof(host));
		json_object_set_new(o, "host", json_string(host));
		json_object_set_new(o, "port", json_integer(ev->port));
	} else if (ev->family == 0 && ev->op == DENIAL_CONNECT) {
		json_object_set_new(o, "host", jstr(ev->path, strnlen(ev->path, DENIAL_PATH_MAX)));
	} else {
		json_object_set_new(o, "path", jstr(ev->path, strnlen(ev->path, DENIAL_PATH_MAX)));
	}
	if (en)
		json_object_set_new(o, "errno", json_string(en));
	json_object_set_new(o, "seen",
			    json_string(ev->source == DENIAL_SRC_NOTIFY	 ? "predicted"
					: ev->source == DENIAL_SRC_PROXY ? "proxy"
									 : "kernel"));
	json_object_set_new(o, "wall", json_string(why_wall_name(a->wall)));
	if (a->set)
		json_object_set_new(o, "set", json_string(a->set));
	json_object_set_new(o, "rule", jstr(a->rule, strlen(a->rule)));
	json_object_set_new(o, "reason", jstr(a->reason, strlen(a->reason)));
	if (a->option[0])
		json_object_set_new(o, "option", jstr(a->option, strlen(a->option)));
	if (a->line[0])
		json_object_set_new(o, "line", jstr(a->line, strlen(a->line)));
	json_object_set_new(o, "count", json_integer(count));
	text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	return text;
}

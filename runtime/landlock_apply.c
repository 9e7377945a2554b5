/* SPDX-License-Identifier: MIT
 * Landlock at launch (see landlock_apply.h, docs/landlock.md): ABI probe,
 * pure downgrade, the plan (expansion, link-free opening, carve-outs) and
 * its enforcement. libc only, so heel-exec links statically; the kernel
 * calls go through syscall(2) because glibc has no wrappers for them. */
#include "landlock_apply.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errmsg.h"
#include "grow.h"
#include "landlock_abi.h"
#include "pathexpand.h"


#define WORKDIR_RIGHTS LL_WORKDIR_RIGHTS

/* ------------------------------------------------------------ probe */

int
ll_probe_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	if (abi < 0)
		return -errno;
	return abi > INT_MAX ? INT_MAX : (int)abi;
}

const char *
ll_probe_message(int rc)
{
	/* The two cases the kernel's sandboxer.c tells apart: they need
	 * different fixes, and a user cannot guess which one applies. */
	switch (rc) {
	case -ENOSYS:
		return "Landlock is not supported by the running kernel "
		       "(hint: it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK=y)";
	case -EOPNOTSUPP:
		return "Landlock is built into the kernel but disabled at boot "
		       "(hint: add `landlock` to the lsm= boot parameter, "
		       "e.g. lsm=landlock,lockdown,yama,integrity,apparmor)";
	}
	return "Landlock could not be probed";
}

/* ------------------------------------------------------------ downgrade */

void
ll_downgrade(const struct ll_masks *req, int abi, struct ll_downgrade *out)
{
	uint64_t lost_fs, lost_net, lost_scope;

	if (abi < 0)
		abi = 0;
	if (abi > LL_ABI_MAX)
		abi = LL_ABI_MAX;
	out->eff.fs = req->fs & ll_abi_fs_mask(abi);
	out->eff.net = req->net & ll_abi_net_mask(abi);
	out->eff.scoped = req->scoped & ll_abi_scope_mask(abi);
	out->weakenings = 0;
	out->notes = 0;
	lost_fs = req->fs & ~out->eff.fs;
	lost_net = req->net & ~out->eff.net;
	lost_scope = req->scoped & ~out->eff.scoped;
	if (abi == 0) {
		if (req->fs || req->net || req->scoped)
			out->weakenings = LL_WEAK_NO_LANDLOCK;
		return;
	}
	/* REFER missing (ABI 1) is not a weakening: when it is not handled
	 * the kernel refuses every rename/link that changes a file's parent
	 * directory (EXDEV), which is stricter than what was asked. */
	if (lost_fs & LL_FS_REFER)
		out->notes |= LL_NOTE_NO_REFER;
	/* TRUNCATE missing (ABI < 3) is: truncate(2) is then checked by
	 * nobody, so a readable, DAC-writable file can be emptied. */
	if (lost_fs & LL_FS_TRUNCATE)
		out->weakenings |= LL_WEAK_TRUNCATE;
	if (lost_fs & LL_FS_IOCTL_DEV)
		out->weakenings |= LL_WEAK_IOCTL_DEV;
	if (lost_fs & LL_FS_RESOLVE_UNIX)
		out->weakenings |= LL_WEAK_RESOLVE_UNIX;
	if (lost_net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP))
		out->weakenings |= LL_WEAK_NET_TCP;
	if (lost_net & (LL_NET_BIND_UDP | LL_NET_CONNECT_SEND_UDP))
		out->weakenings |= LL_WEAK_NET_UDP;
	if (lost_scope & LL_SCOPE_ABSTRACT_UNIX_SOCKET)
		out->weakenings |= LL_WEAK_SCOPE_UNIX;
	if (lost_scope & LL_SCOPE_SIGNAL)
		out->weakenings |= LL_WEAK_SCOPE_SIGNAL;
}

const char *
ll_weakening_text(uint32_t bit)
{
	switch (bit) {
	case LL_WEAK_NO_LANDLOCK:
		return "Landlock is unavailable: no filesystem, TCP or scope restriction at all";
	case LL_WEAK_TRUNCATE:
		return "truncating files is not controlled (needs Landlock ABI 3, Linux 6.2)";
	case LL_WEAK_NET_TCP:
		return "TCP bind and connect are not controlled by Landlock (needs ABI 4, Linux 6.7)";
	case LL_WEAK_IOCTL_DEV:
		return "ioctl on devices is not controlled by Landlock (needs ABI 5, Linux 6.10)";
	case LL_WEAK_SCOPE_UNIX:
		return "abstract unix sockets outside the sandbox are reachable (needs ABI 6, Linux 6.12)";
	case LL_WEAK_SCOPE_SIGNAL:
		return "processes outside the sandbox can be signalled (needs ABI 6, Linux 6.12)";
	case LL_WEAK_RESOLVE_UNIX:
		return "connecting to the host's pathname unix sockets is not controlled by "
		       "Landlock (needs ABI 9, Linux 7.1)";
	case LL_WEAK_NET_UDP:
		return "UDP bind and send are not controlled by Landlock (needs ABI 10, Linux 7.2)";
	case LL_WEAK_MOUNTNS:
		return "a deny inside a writable grant is enforced without a mount namespace: "
		       "entries cannot be created, removed or renamed in the directories above it";
	}
	return "unknown weakening";
}

const char *
ll_held_text(uint32_t bit)
{
	switch (bit) {
	case LL_WEAK_TRUNCATE:
		return "truncating (ABI 3, Linux 6.2) is held by the read-only view: truncate(2) "
		       "fails with EROFS outside the writable places, where every grant includes "
		       "it, and ftruncate(2) needs a descriptor opened for writing, which "
		       "Landlock governs";
	case LL_WEAK_NET_TCP:
		return "TCP bind and connect (ABI 4, Linux 6.7) are held by the network "
		       "namespace (loopback only: the sandbox may use TCP with itself and "
		       "heel-proxy there) and, under network deny without that namespace, by "
		       "seccomp, which refuses inet sockets";
	case LL_WEAK_IOCTL_DEV:
		return "ioctl on devices (ABI 5, Linux 6.10) is held by the grants: every device "
		       "node the sandbox can open is granted ioctl anyway, and seccomp refuses "
		       "TIOCSTI and TIOCLINUX";
	case LL_WEAK_SCOPE_UNIX:
		return "the abstract unix socket scope (ABI 6, Linux 6.12) is held by the network "
		       "namespace, whose abstract socket names are its own";
	case LL_WEAK_NET_UDP:
		return "UDP bind and send (ABI 10, Linux 7.2) are held by the network namespace "
		       "(loopback only: the sandbox may use UDP with itself there) and by "
		       "seccomp, which refuses UDP sockets (only TCP passes, to heel-proxy)";
	case LL_WEAK_RESOLVE_UNIX:
		return "connecting to pathname unix sockets (ABI 9, Linux 7.1) is held by seccomp "
		       "unless the policy says `allow unix-sockets`, which here, as heel(5) says, "
		       "reaches every socket the user may connect to";
	case LL_WEAK_SCOPE_SIGNAL:
		return "the signal scope (ABI 6, Linux 6.12) is held by the PID namespace: no "
		       "process outside it can be named; the sandbox can signal its own init, "
		       "which passes the signal on to the sandbox";
	}
	return "unknown right";
}

const char *
ll_note_text(uint32_t bit)
{
	if (bit == LL_NOTE_NO_REFER)
		return "Landlock ABI 1: renaming or linking a file into another directory fails (EXDEV)";
	return "unknown note";
}

/* ------------------------------------------------------------ report */

void
ll_report_free(struct ll_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nlines; i++)
		free(rep->lines[i].text);
	free(rep->lines);
	rep->lines = NULL;
	rep->nlines = 0;
	rep->cap_lines = 0;
}

/* Whether a line of this kind would be kept: callers skip formatting
 * (labels above all) for lines nobody will read. */
static bool
keeps(const struct ll_report *rep, enum ll_line_kind kind)
{
	return rep && (!rep->weakenings_only || kind == LL_LINE_WEAKENING) &&
	       (kind != LL_LINE_APPLIED || rep->want_applied);
}

static int
report_add(struct ll_report *rep, enum ll_line_kind kind, enum ll_skip_reason skip,
	   const char *fmt, va_list ap)
{
	struct ll_report_line *grown;
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		return -ENOMEM;
	grown = grow_array(rep->lines, &rep->cap_lines, rep->nlines + 1, sizeof(*grown), 0);
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	rep->lines = grown;
	rep->lines[rep->nlines].kind = kind;
	rep->lines[rep->nlines].skip = skip;
	rep->lines[rep->nlines].text = text;
	rep->nlines++;
	return 0;
}

__attribute__((format(printf, 3, 4))) static int
report(struct ll_report *rep, enum ll_line_kind kind, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!keeps(rep, kind))
		return 0;
	va_start(ap, fmt);
	rc = report_add(rep, kind, LL_SKIP_OTHER, fmt, ap);
	va_end(ap);
	return rc;
}

/* An optional rule left out, and why (counted by the launcher). */
__attribute__((format(printf, 3, 4))) static int
report_skip(struct ll_report *rep, enum ll_skip_reason why, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!keeps(rep, LL_LINE_SKIPPED))
		return 0;
	va_start(ap, fmt);
	rc = report_add(rep, LL_LINE_SKIPPED, why, fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------ paths */

/* A byte's place in path order: the end first, then '/', then the rest. */
static int
path_byte_rank(unsigned char c)
{
	return c == '/' ? 1 : c ? c + 1 : 0;
}

/* Orders paths so that a directory's subtree follows it contiguously:
 * '/' sorts before every other byte ("/a", "/a/b", "/a-b"). The ranking
 * is one-to-one, so the first differing byte decides and the common
 * prefix (most of "/etc/...") is skipped without ranking it. */
static int
path_cmp(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	return path_byte_rank((unsigned char)a[i]) - path_byte_rank((unsigned char)b[i]);
}

/* ${NAME} at launch: ${CWD} and ${WORKDIR} are the launcher's, every
 * other name comes from its environment. */
static const char *
lookup(const char *name, void *ctx)
{
	const struct ll_launch *l = ctx;

	if (strcmp(name, "CWD") == 0)
		return l->cwd && l->cwd[0] == '/' ? l->cwd : NULL;
	if (strcmp(name, "WORKDIR") == 0)
		return l->workdir;
	return l->getenv ? l->getenv(name, l->getenv_ctx) : NULL;
}

/* Expands a table rule's path into `out` (PATH_MAX) by the one rule of
 * pathexpand.h; a grant that a variable turned into the root or a system
 * directory is refused as well (a deny only ever takes access away, so a
 * deny of "/" is left as it is). 0 or -errno, info says why. */
static int
expand(const char *tmpl, const struct ll_launch *l, bool grant, char *out, struct px_info *info)
{
	int rc = px_expand(tmpl, lookup, (void *)l, out, PATH_MAX, info);

	if (rc == 0 && grant)
		rc = px_refuse_system(out, info);
	return rc;
}

/* openat2 is 5.6, older than Landlock (5.13), so where Landlock runs it
 * exists. RESOLVE_NO_SYMLINKS refuses a link in any component, which is
 * the guarantee: a grant that became a link is refused, not followed. */
static int
open2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = flags | O_CLOEXEC;
	how.resolve = resolve;
	fd = syscall(__NR_openat2, dirfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int
ll_open_nofollow(int dirfd, const char *path, uint64_t flags)
{
	return open2(dirfd, path, flags, RESOLVE_NO_SYMLINKS);
}

/* Resolves a deny, following links: a deny only ever removes access, so
 * following is safe, and the thing to protect is what the name leads
 * to. A missing tail is kept as written under its longest existing
 * prefix, so a grant above it still forbids creating it. */
static int resolve_deny_slow(const char *path, char *out, bool *exists, bool *is_dir);

/* The common case in one syscall: a deny whose existing part holds no
 * symbolic link resolves to itself. The kernel walks the components in
 * order, so ENOENT under RESOLVE_NO_SYMLINKS means it reached a missing
 * component without meeting a link (a link would have been ELOOP first):
 * the path stands as written, and nothing is gained by opening its
 * prefixes (that walk was a third of a launch's syscalls). Only a link
 * (ELOOP) or a file in the middle (ENOTDIR) takes the slow path, which
 * resolves component by component with realpath(). */
static int
resolve_deny(const char *path, char *out, bool *exists, bool *is_dir)
{
	size_t len = strlen(path);
	struct stat st;
	int fd;

	if (len >= PATH_MAX || path[0] != '/')
		return resolve_deny_slow(path, out, exists, is_dir);
	fd = open2(AT_FDCWD, path, O_PATH, RESOLVE_NO_SYMLINKS);
	if (fd < 0 && fd != -ENOENT)
		return resolve_deny_slow(path, out, exists, is_dir);
	*exists = fd >= 0;
	*is_dir = true;
	if (fd >= 0) {
		if (fstat(fd, &st) == 0)
			*is_dir = S_ISDIR(st.st_mode);
		close(fd);
	}
	memcpy(out, path, len + 1);
	return 0;
}

static int
resolve_deny_slow(const char *path, char *out, bool *exists, bool *is_dir)
{
	char prefix[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;

	if (len >= sizeof(prefix))
		return -ENAMETOOLONG;
	memcpy(prefix, path, len + 1);
	for (;;) {
		char *slash;

		if (realpath(prefix, real))
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		slash = strrchr(prefix, '/');
		if (!slash || slash == prefix) {
			strcpy(real, "/");
			prefix[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	*exists = strlen(prefix) == len;
	if (snprintf(out, PATH_MAX, "%s%s", strcmp(real, "/") == 0 ? "" : real,
		     path + (strcmp(prefix, "/") == 0 ? 0 : strlen(prefix))) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!out[0])
		strcpy(out, "/");
	*is_dir = true;
	if (*exists && stat(out, &st) == 0)
		*is_dir = S_ISDIR(st.st_mode);
	return 0;
}

/* ------------------------------------------------------------ plan building */

/* One path rule after expansion: a table rule, the working directory or
 * a launcher extra. access 0 is a deny. */
struct ent {
	char *path;
	int fd;                  /* grants: O_PATH; denies: -1 */
	uint64_t access;
	bool is_dir;
	bool is_reg;
	bool exists;
	bool covered;            /* deny hidden by a mount request */
	bool split;              /* grant expanded around its targets */
	enum ll_plan_kind pk;
	int32_t tidx;            /* table rule, or -1 */
	const char *why;         /* workdir / extra */
};

struct builder {
	const struct ll_table_view *t;
	const struct ll_launch *l;
	struct ll_plan *plan;
	struct ll_report *rep;
	char *err;
	size_t errlen;
	struct ent *e;
	size_t ne;
	size_t ecap;
	size_t hint;            /* first capacity of the entry and rule arrays */
};

/* "grant \"${HOME}/x\" (policy.heel:3)" for messages. */
static const char *
label(const struct builder *b, const struct ent *e, char *buf, size_t len)
{
	struct ll_rule_view r;

	if (e->tidx < 0) {
		snprintf(buf, len, "%s", e->why ? e->why : e->path);
		return buf;
	}
	ll_table_rule(b->t, (uint32_t)e->tidx, &r);
	if (r.origin) {
		char at[PATH_MAX];

		snprintf(buf, len, "%s \"%s\" (%s)", r.kind == LL_KIND_GRANT ? "grant" : "deny",
			 r.path, rt_origin(at, sizeof(at), r.origin, r.origin_line));
	} else
		snprintf(buf, len, "%s \"%s\"", r.kind == LL_KIND_GRANT ? "grant" : "deny", r.path);
	return buf;
}

/* Where the user would mark a rule `optional`: its FILE:LINE when a
 * policy file of theirs wrote it, "" for a stock base or preset
 * ("<default>"), whose text is not theirs to edit, or no origin. */
static const char *
fix_where(const struct builder *b, const struct ent *e, char *buf, size_t len)
{
	struct ll_rule_view r;

	buf[0] = '\0';
	if (e->tidx < 0)
		return buf;
	ll_table_rule(b->t, (uint32_t)e->tidx, &r);
	if (r.origin && r.origin[0] != '<' && r.origin_line)
		snprintf(buf, len, "%s:%u", r.origin, r.origin_line);
	return buf;
}

/* The way out of a required grant whose path is missing, in the words of
 * what wrote it: an option of `heel run` (origin "--writable ./out", line
 * 0) or a line of its TOML configuration has no `optional`. */
static void
missing_fix(const struct builder *b, const struct ent *e, char *buf, size_t len)
{
	struct ll_rule_view r;
	char where[PATH_MAX + 16];
	size_t n;

	r.origin = NULL;
	if (e->tidx >= 0)
		ll_table_rule(b->t, (uint32_t)e->tidx, &r);
	n = r.origin ? strlen(r.origin) : 0;
	if (r.origin && !r.origin_line)
		snprintf(buf, len, "create it, or leave out %s", r.origin);
	else if (r.origin && n > 5 && strcmp(r.origin + n - 5, ".toml") == 0)
		snprintf(buf, len, "create it, or remove it from %s:%u", r.origin, r.origin_line);
	else
		snprintf(buf, len, "create it, or mark the grant `optional` %s%s if the sandbox can "
			 "do without it", fix_where(b, e, where, sizeof(where))[0] ? "at " : "in the policy",
			 where);
}

static int
push_ent(struct builder *b, const struct ent *e)
{
	struct ent *grown = grow_array(b->e, &b->ecap, b->ne + 1, sizeof(*b->e), b->hint);

	if (!grown)
		return -ENOMEM;
	b->e = grown;
	b->e[b->ne++] = *e;
	return 0;
}

/* Adds a rule: `fd` opened already, or -1 and `anchor` (1 + the index of
 * the listed directory it is an entry of) for a sibling. */
static int
plan_push(struct builder *b, const char *path, int fd, size_t anchor, uint64_t access,
	  enum ll_plan_kind pk, bool is_dir, bool is_reg)
{
	struct ll_plan *p = b->plan;
	char *copy = strdup(path);
	struct ll_plan_rule *grown;

	if (!copy)
		return -ENOMEM;
	/* One more than needed: the working directory's rule is added after
	 * the build (ll_plan_add_workdir). */
	grown = grow_array(p->rules, &p->rules_cap, p->nrules + 2, sizeof(*p->rules), b->hint);
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	p->rules = grown;
	p->rules[p->nrules].path = copy;
	p->rules[p->nrules].fd = fd;
	p->rules[p->nrules].anchor = anchor;
	p->rules[p->nrules].access = access;
	p->rules[p->nrules].kind = pk;
	p->rules[p->nrules].is_dir = is_dir;
	p->rules[p->nrules].is_reg = is_reg;
	p->nrules++;
	return 0;
}

/* Keeps a listed directory open in the plan; its siblings' rules name it
 * by the number returned in *anchor. Takes `fd` over unless it fails. */
static int
plan_anchor(struct builder *b, int fd, size_t *anchor)
{
	struct ll_plan *p = b->plan;
	int *grown = grow_array(p->anchors, &p->anchors_cap, p->nanchors + 1, sizeof(*p->anchors),
				8);

	if (!grown)
		return -ENOMEM;
	p->anchors = grown;
	p->anchors[p->nanchors++] = fd;
	*anchor = p->nanchors;
	return 0;
}

/* Every grant and every directory a deny is carved out of holds a
 * descriptor until the command enforces the plan (the launcher raised
 * the soft open-files limit to the hard one already): a policy of
 * thousands of grants can pass the limit. */
static int
too_many_files(struct builder *b, int err, const char *path)
{
	struct rlimit nofile;
	char lim[32] = "?";
	size_t held = b->plan->nanchors;

	for (size_t i = 0; i < b->ne; i++)
		held += b->e[i].fd >= 0;
	for (size_t i = 0; i < b->plan->nrules; i++)
		held += b->plan->rules[i].fd >= 0;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0)
		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)nofile.rlim_cur);
	return rt_error(b->err, b->errlen, err,
		    "%s: %s: the Landlock plan holds a descriptor for each grant (and each "
		    "directory a deny is carved out of) until it is enforced, %zu so far, past "
		    "the open-files limit (%s); raise the hard limit (ulimit -Hn), or grant "
		    "fewer paths", path, strerror(-err), held, lim);
}

/* Opens a grant's path and adds it to the entries; an optional one that
 * is missing or a link is skipped with a report line, a required one is
 * refused naming it. */
static int
add_grant(struct builder *b, const char *path, uint64_t access, bool optional,
	  enum ll_plan_kind pk, int32_t tidx, const char *why)
{
	struct ent e = { .fd = -1, .pk = pk, .tidx = tidx, .why = why, .exists = true };
	char lab[PATH_MAX + 64], where[PATH_MAX + 128];
	struct stat st;
	int fd, rc;

	/* The label is formatted only for a message: doing it for every
	 * grant was a measurable part of a launch. */
	e.path = (char *)path;
	fd = open2(AT_FDCWD, path, O_PATH, RESOLVE_NO_SYMLINKS);
	if (fd == -EMFILE || fd == -ENFILE)
		return too_many_files(b, fd, path);
	if (fd < 0 && optional && !keeps(b->rep, LL_LINE_SKIPPED))
		return 0;
	if (fd < 0) {
		label(b, &e, lab, sizeof(lab));
		const char *what = fd == -ELOOP ? "is or passes through a symbolic link" :
				   (fd == -ENOENT || fd == -ENOTDIR) ? "does not exist" :
				   strerror(-fd);

		/* An optional grant that is a link is skipped, not refused:
		 * merged-/usr systems make /bin, /lib, /lib64, /sbin links,
		 * the stock bases grant them optionally, and their targets
		 * have grants of their own. Skipping only ever removes
		 * access; following would let a link choose the target. */
		if (optional)
			return report_skip(b->rep,
					   fd == -ELOOP ? LL_SKIP_LINK :
					   (fd == -ENOENT || fd == -ENOTDIR) ? LL_SKIP_MISSING :
					   LL_SKIP_OTHER,
					   "%s: %s %s, skipped (optional)", lab, path, what);
		if (fd == -ELOOP)
			return rt_error(b->err, b->errlen, -ELOOP,
				    "%s: %s is or passes through a symbolic link; heel does not "
				    "follow links in grants (grant the link's target instead)", lab, path);
		/* A required grant of a path this machine lacks: the way out
		 * is the user's to choose. */
		if (fd == -ENOENT || fd == -ENOTDIR) {
			missing_fix(b, &e, where, sizeof(where));
			return rt_error(b->err, b->errlen, fd, "%s: %s does not exist; %s", lab, path,
					where);
		}
		return rt_error(b->err, b->errlen, fd, "%s: %s %s", lab, path, what);
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rt_error(b->err, b->errlen, rc, "%s: %s: %s", label(b, &e, lab, sizeof(lab)),
			    path, strerror(-rc));
	}
	e.is_dir = S_ISDIR(st.st_mode);
	e.is_reg = S_ISREG(st.st_mode);
	/* The kernel refuses directory rights on a file (EINVAL). */
	e.access = access & b->plan->dg.eff.fs & (e.is_dir ? ~0ull : LL_FS_FILE_RIGHTS);
	if (!e.access) {
		close(fd);
		return report_skip(b->rep, LL_SKIP_OTHER, "%s: no right left on this kernel, skipped",
				   label(b, &e, lab, sizeof(lab)));
	}
	e.path = strdup(path);
	if (!e.path) {
		close(fd);
		return -ENOMEM;
	}
	e.fd = fd;
	rc = push_ent(b, &e);
	if (rc) {
		free(e.path);
		close(fd);
	}
	return rc;
}

static int
add_deny(struct builder *b, const char *path, int32_t tidx)
{
	struct ent e = { .fd = -1, .pk = LL_PK_GRANT, .tidx = tidx };
	char real[PATH_MAX], lab[PATH_MAX + 64];
	int rc;

	e.path = (char *)path;
	rc = resolve_deny(path, real, &e.exists, &e.is_dir);
	if (rc && !keeps(b->rep, LL_LINE_SKIPPED))
		return 0;
	if (rc) {
		/* Unreachable for the launcher (EACCES, a link loop): the
		 * sandbox, with the same credentials, cannot reach it either. */
		return report_skip(b->rep, LL_SKIP_OTHER, "%s: %s: %s, skipped",
				   label(b, &e, lab, sizeof(lab)), path, strerror(-rc));
	}
	e.path = strdup(real);
	if (!e.path)
		return -ENOMEM;
	rc = push_ent(b, &e);
	if (rc)
		free(e.path);
	return rc;
}

/* Merge sort of an array of pointers; `tmp` holds n/2 + 1 of them. Not
 * qsort(): musl's moves every element with a memcpy call, and that was a
 * tenth of a launch. Runs that are already in order (a directory's
 * entries often are) cost one comparison. */
static void
sort_ptrs(void **a, void **tmp, size_t n, int (*cmp)(const void *, const void *))
{
	size_t h = n / 2, i = 0, j = h, w = 0;

	if (n < 2)
		return;
	sort_ptrs(a, tmp, h, cmp);
	sort_ptrs(a + h, tmp, n - h, cmp);
	if (cmp(&a[h - 1], &a[h]) <= 0)
		return;
	memcpy(tmp, a, h * sizeof(*a));
	while (i < h && j < n)
		a[w++] = cmp(&a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
	while (i < h)
		a[w++] = tmp[i++];
}

/* Sorts n records of `width` bytes (stable) through an array of
 * pointers to them; `cmp` compares two pointers to records. */
static int
sort_records(void *base, size_t n, size_t width, int (*cmp)(const void *, const void *))
{
	/* A launch of the stock bases sorts ~270 entries and ~190 rules:
	 * on the stack, musl's malloc would map and unmap a block for each
	 * (~9 us apiece in a fresh process). */
	_Alignas(max_align_t) unsigned char local[16384];
	unsigned char *copy;
	void **ptr;
	size_t need;

	if (n < 2)
		return 0;
	/* One block: the pointers, the merge's scratch half, the records. */
	if (n > (SIZE_MAX / 2 - 1) / sizeof(*ptr) / 2 || n > SIZE_MAX / 2 / width)
		return -ENOMEM;
	need = (n + n / 2 + 1) * sizeof(*ptr) + n * width;
	ptr = need <= sizeof(local) ? (void **)local : malloc(need);
	if (!ptr)
		return -ENOMEM;
	copy = (unsigned char *)(ptr + n + n / 2 + 1);
	memcpy(copy, base, n * width);
	for (size_t i = 0; i < n; i++)
		ptr[i] = copy + i * width;
	sort_ptrs(ptr, ptr + n, n, cmp);
	for (size_t i = 0; i < n; i++)
		memcpy((unsigned char *)base + i * width, ptr[i], width);
	if ((unsigned char *)ptr != local)
		free(ptr);
	return 0;
}

static int
cmp_ent(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;
	int c = path_cmp(x->path, y->path);

	if (c)
		return c;
	/* Grants before denies on one path: the grant wins the tie. */
	return (x->access == 0) - (y->access == 0);
}

/* Sorts the entries and folds those that name one path: grants keep the
 * union, a grant beats a deny. */
static int
merge_ents(struct builder *b)
{
	size_t w = 0;
	int rc = sort_records(b->e, b->ne, sizeof(*b->e), cmp_ent);

	if (rc)
		return rc;
	for (size_t i = 0; i < b->ne; i++) {
		struct ent *d = w ? &b->e[w - 1] : NULL;

		if (d && strcmp(d->path, b->e[i].path) == 0) {
			d->access |= b->e[i].access;
			if (b->e[i].fd >= 0)
				close(b->e[i].fd);
			free(b->e[i].path);
			continue;
		}
		b->e[w++] = b->e[i];
	}
	b->ne = w;
	return 0;
}

/* Does rule `in` (beneath grant `g`) narrow it? A deny always does; a
 * grant does when it lacks a right of g that means something on it. */
static bool
narrows(const struct ent *in, const struct ent *g)
{
	uint64_t relevant = in->is_dir ? ~0ull : LL_FS_FILE_RIGHTS;

	return (g->access & ~in->access & relevant) != 0;
}

enum rel { REL_NONE, REL_TARGET, REL_ANCESTOR };

/* A target seen from a directory being walked: the name of the entry it
 * is, or lies beneath. */
struct target_name {
	const char *name;
	size_t len;
	bool exact;                /* the target is that entry itself */
};

/* The entries of `dir` that targets name, so that each listed entry is
 * matched by its name alone, not by comparing full paths. */
static size_t
target_names(const char *dir, struct ent *const *targets, size_t nt, struct target_name *out)
{
	size_t dlen = strcmp(dir, "/") == 0 ? 0 : strlen(dir), n = 0;

	for (size_t i = 0; i < nt; i++) {
		const char *rest, *slash;

		if (!px_beneath(targets[i]->path, dir))
			continue;
		rest = targets[i]->path + dlen + 1;
		slash = strchr(rest, '/');
		out[n].name = rest;
		out[n].len = slash ? (size_t)(slash - rest) : strlen(rest);
		out[n].exact = !slash;
		n++;
	}
	return n;
}

static enum rel
relation(const char *name, const struct target_name *names, size_t nn)
{
	size_t len = strlen(name);
	enum rel r = REL_NONE;

	for (size_t i = 0; i < nn; i++) {
		if (names[i].len != len || memcmp(names[i].name, name, len) != 0)
			continue;
		if (names[i].exact)
			return REL_TARGET;
		r = REL_ANCESTOR;
	}
	return r;
}

/* Grants each entry of `dir` that is not (an ancestor of) a target with
 * `access`, and descends into the ancestors. Links are never followed:
 * the directory is opened relative to its parent's descriptor, and every
 * entry relative to the listed directory, with RESOLVE_NO_SYMLINKS, so
 * a rename racing the walk cannot redirect it. A link entry gets no
 * rule: whoever follows it is checked against its target's own rules. */
/* The kernel's record for getdents64(2). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* What a directory on the way to targets keeps of the grant it lies in:
 * the rights every rule beneath it keeps too, since a rule reaches all
 * beneath it (a deny inside a nested grant's carve-out included).
 * `grant "/" rwx` around `grant "/tmp/x" rw`: /tmp takes new entries,
 * which never run; around a deny: nothing but listing its names, which
 * the grant's own spine rule gives. */
static uint64_t
ancestor_rights(const struct builder *b, const char *dir, uint64_t access)
{
	for (size_t k = 0; k < b->ne && access; k++)
		if (px_beneath(b->e[k].path, dir))
			access &= b->e[k].access;
	return access;
}

static int
walk(struct builder *b, int parent, const char *name, const char *dir, uint64_t access,
     struct ent *const *targets, size_t nt)
{
	char buf[8192] __attribute__((aligned(8)));
	char child[PATH_MAX];
	struct target_name *names;
	size_t nn, anchor = 0, dlen = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	int dfd, rc = 0;

	dfd = open2(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
		    RESOLVE_NO_SYMLINKS | (parent == AT_FDCWD ? 0 : RESOLVE_BENEATH));
	if (dfd == -EMFILE || dfd == -ENFILE)
		return too_many_files(b, dfd, dir);
	if (dfd < 0)
		return rt_error(b->err, b->errlen, dfd, "cannot list %s to carve out a deny beneath it: %s",
			    dir, strerror(-dfd));
	names = malloc((nt ? nt : 1) * sizeof(*names));
	if (!names) {
		close(dfd);
		return -ENOMEM;
	}
	nn = target_names(dir, targets, nt, names);
	memcpy(child, dir, dlen);
	child[dlen] = '/';
	for (;;) {
		/* The raw call: glibc's getdents64() wrapper is not in musl. */
		ssize_t n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));

		if (n < 0) {
			rc = rt_error(b->err, b->errlen, -errno, "cannot list %s: %s", dir, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n && !rc;) {
			const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + off);
			const char *ent = d->d_name;
			size_t elen = strlen(ent);
			struct stat st;
			enum rel r;
			uint64_t a;

			off += d->d_reclen;
			if (ent[0] == '.' && (elen == 1 || (elen == 2 && ent[1] == '.')))
				continue;
			if (dlen + 1 + elen >= sizeof(child)) {
				rc = rt_error(b->err, b->errlen, -ENAMETOOLONG, "%s/%s: name too long", dir,
					  ent);
				break;
			}
			memcpy(child + dlen + 1, ent, elen + 1);
			r = relation(ent, names, nn);
			if (r == REL_TARGET)
				continue;
			/* A link is never granted (what it names has rules of
			 * its own); the directory entry's type saves looking. */
			if (d->d_type == DT_LNK)
				continue;
			/* The type from getdents: a hint that can be stale, which
			 * the enforcing opens check (ll_plan_enforce); for the
			 * two common types a stat would only repeat it. */
			if (d->d_type == DT_DIR || d->d_type == DT_REG) {
				st.st_mode = d->d_type == DT_DIR ? S_IFDIR : S_IFREG;
			} else if (fstatat(dfd, ent, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno == ENOENT)
					continue;  /* removed since listed */
				rc = rt_error(b->err, b->errlen, -errno, "%s: %s", child,
					  strerror(errno));
				break;
			} else if (S_ISLNK(st.st_mode)) {
				continue;
			}
			if (r == REL_ANCESTOR && S_ISDIR(st.st_mode)) {
				a = ancestor_rights(b, child, access);
				if (a & ~LL_FS_READ_DIR) {
					if (!anchor && (rc = plan_anchor(b, dfd, &anchor)))
						break;
					rc = plan_push(b, child, -1, anchor, a, LL_PK_SPINE, true, false);
					if (rc)
						break;
				}
				rc = walk(b, dfd, ent, child, access, targets, nt);
				continue;
			}
			/* Not a directory: nothing can lie beneath it, so even an
			 * "ancestor" (of a deny that cannot exist) is a sibling. */
			a = access & (S_ISDIR(st.st_mode) ? ~0ull : LL_FS_FILE_RIGHTS);
			if (!a)
				continue;
			/* Not opened now: the sibling is opened relative to
			 * this directory when the plan is enforced, so that a
			 * directory of thousands of entries holds one
			 * descriptor, not thousands. */
			if (!anchor && (rc = plan_anchor(b, dfd, &anchor)))
				break;
			rc = plan_push(b, child, -1, anchor, a, LL_PK_SIBLING, S_ISDIR(st.st_mode),
				       S_ISREG(st.st_mode));
		}
		if (rc)
			break;
	}
	free(names);
	if (!anchor)
		close(dfd);  /* else the plan's */
	return rc;
}

static bool
writable(uint64_t access)
{
	return (access & (LL_FS_WRITE_RIGHTS & ~(LL_FS_WRITE_FILE | LL_FS_TRUNCATE))) != 0;
}

/* A pair: deny/narrowing rule d is a target of grant g (d is beneath g,
 * narrows it, and nothing between them narrows g already). */
struct pair {
	size_t g, d;
};

/* g NULL: a deny beneath read-only grants, which need no pins (nothing
 * above it may be renamed without a write right). */
static int
add_mount_request(struct builder *b, struct ent *d, struct ent *g)
{
	struct ll_plan *p = b->plan;
	struct ll_mount_request *m, *grown;
	size_t glen = g ? strlen(g->path) : 0;

	grown = realloc(p->mounts, (p->nmounts + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->mounts = grown;
	m = &p->mounts[p->nmounts];
	memset(m, 0, sizeof(*m));
	p->nmounts++;
	m->deny = strdup(d->path);
	m->grant = g ? strdup(g->path) : NULL;
	m->is_dir = d->is_dir;
	if (!m->deny || (g && !m->grant))
		return -ENOMEM;
	/* Directories strictly between g and d: one per '/' after g. */
	for (size_t i = (glen == 1 ? 1 : glen + 1); g && d->path[i]; i++) {
		char **k;

		if (d->path[i] != '/')
			continue;
		k = realloc(m->keep, (m->nkeep + 1) * sizeof(*k));
		if (!k)
			return -ENOMEM;
		m->keep = k;
		m->keep[m->nkeep] = strndup(d->path, i);
		if (!m->keep[m->nkeep])
			return -ENOMEM;
		m->nkeep++;
	}
	return 0;
}

static int
cmp_plan_rule(const void *a, const void *b)
{
	return path_cmp((*(const struct ll_plan_rule *const *)a)->path,
			(*(const struct ll_plan_rule *const *)b)->path);
}

/* Decides, for every deny that lies inside a writable grant, between a
 * mount request (namespace available and usable), the Landlock-only
 * carve-out (best effort) and refusal. */
static int
decide_writable(struct builder *b, struct pair *pairs, size_t np, bool best_effort)
{
	char lab_d[PATH_MAX + 64], lab_g[PATH_MAX + 64];
	int rc;

	for (size_t i = 0; i < np; i++) {
		struct ent *d = &b->e[pairs[i].d], *g = &b->e[pairs[i].g], *outer = g;
		bool coverable, first = true;

		if (d->access || !writable(g->access) || d->covered)
			continue;
		for (size_t j = 0; j < i; j++)
			if (pairs[j].d == pairs[i].d && writable(b->e[pairs[j].g].access))
				first = false;
		if (!first)
			continue;
		for (size_t j = i + 1; j < np; j++)
			if (pairs[j].d == pairs[i].d && writable(b->e[pairs[j].g].access) &&
			    strlen(b->e[pairs[j].g].path) < strlen(outer->path))
				outer = &b->e[pairs[j].g];
		/* A bind mount hides what is beneath the deny, so it can stand
		 * in only when the deny exists and nothing beneath it is
		 * granted again. */
		coverable = b->l->mountns && d->exists &&
			    !(pairs[i].d + 1 < b->ne && px_beneath(b->e[pairs[i].d + 1].path, d->path));
		if (coverable) {
			d->covered = true;
			rc = add_mount_request(b, d, outer);
			if (rc)
				return rc;
			if (!keeps(b->rep, LL_LINE_NOTE))
				continue;
			rc = report(b->rep, LL_LINE_NOTE,
				    "%s inside writable %s: hidden by a read-only mount",
				    label(b, d, lab_d, sizeof(lab_d)),
				    label(b, outer, lab_g, sizeof(lab_g)));
			if (rc)
				return rc;
			continue;
		}
		label(b, d, lab_d, sizeof(lab_d));
		label(b, outer, lab_g, sizeof(lab_g));
		if (!best_effort)
			return rt_error(b->err, b->errlen, -EPERM,
				    "%s inside %s, which is writable: %s; --best-effort protects it with Landlock "
				    "alone, by forbidding to create, remove or rename entries from %s "
				    "down to it", lab_d, lab_g,
				    !b->l->mountns ? "no mount namespace to cover it"
				    : !d->exists ? "it does not exist, so no mount can cover it"
						 : "a cover would hide what is granted beneath it",
				    outer->path);
		b->plan->dg.weakenings |= LL_WEAK_MOUNTNS;
		rc = report(b->rep, LL_LINE_WEAKENING,
			    "%s inside writable %s: no mount namespace, so no entry can be "
			    "created, removed or renamed in %s or the directories down to %s",
			    lab_d, lab_g, outer->path, d->path);
		if (rc)
			return rc;
	}
	return 0;
}

/* A deny beneath read-only grants only, where the launcher has a mount
 * namespace: an empty read-only cover stands in for the Landlock
 * carve-out, which grants every sibling along the path instead of the
 * grant and costs a rule (and an open) per sibling. The sandbox cannot
 * remove the cover: Landlock forbids a restricted process to change its
 * mount topology, and seccomp denies the mount calls. */
static int
decide_read_covers(struct builder *b, const struct pair *pairs, size_t np)
{
	char lab_d[PATH_MAX + 64], lab_g[PATH_MAX + 64];
	int rc;

	if (!b->l->mountns)
		return 0;
	for (size_t i = 0; i < np; i++) {
		struct ent *d = &b->e[pairs[i].d];
		bool beneath_writable = false;

		if (d->access || d->covered || !d->exists ||
		    (pairs[i].d + 1 < b->ne && px_beneath(b->e[pairs[i].d + 1].path, d->path)))
			continue;
		for (size_t j = 0; j < np; j++)
			if (pairs[j].d == pairs[i].d && writable(b->e[pairs[j].g].access))
				beneath_writable = true;
		if (beneath_writable)
			continue;
		d->covered = true;
		if ((rc = add_mount_request(b, d, NULL)))
			return rc;
		if (keeps(b->rep, LL_LINE_NOTE) &&
		    (rc = report(b->rep, LL_LINE_NOTE, "%s inside %s: hidden by a read-only mount",
				 label(b, d, lab_d, sizeof(lab_d)),
				 label(b, &b->e[pairs[i].g], lab_g, sizeof(lab_g)))))
			return rc;
	}
	return 0;
}

static int
find_pairs(struct builder *b, struct pair **out, size_t *nout)
{
	struct pair *pairs = NULL;
	size_t np = 0, cap = 0;

	for (size_t i = 0; i < b->ne; i++) {
		const struct ent *g = &b->e[i];
		const char *last = NULL;

		/* A deny can only be beneath a directory; a grant with no
		 * right left to narrow needs nothing. */
		if (!g->access || !g->is_dir)
			continue;
		for (size_t j = i + 1; j < b->ne && px_beneath(b->e[j].path, g->path); j++) {
			if (last && px_beneath(b->e[j].path, last))
				continue;  /* inside a target already: covered by it */
			if (!narrows(&b->e[j], g))
				continue;
			if (np == cap) {
				struct pair *p;

				cap = cap ? cap * 2 : 16;
				p = realloc(pairs, cap * sizeof(*p));
				if (!p) {
					free(pairs);
					return -ENOMEM;
				}
				pairs = p;
			}
			pairs[np].g = i;
			pairs[np].d = j;
			np++;
			last = b->e[j].path;
		}
	}
	*out = pairs;
	*nout = np;
	return 0;
}

static int
split_grants(struct builder *b, const struct pair *pairs, size_t np)
{
	struct ent **targets;
	char lab[PATH_MAX + 64];
	int rc = 0;

	targets = malloc((np ? np : 1) * sizeof(*targets));
	if (!targets)
		return -ENOMEM;
	for (size_t i = 0; i < np && !rc;) {
		size_t gi = pairs[i].g, nt = 0;
		struct ent *g = &b->e[gi];

		for (; i < np && pairs[i].g == gi; i++)
			if (!b->e[pairs[i].d].covered)
				targets[nt++] = &b->e[pairs[i].d];
		if (!nt)
			continue;
		g->split = true;
		/* The grant itself keeps READ_DIR (names may be listed, which
		 * READ_DIR then allows everywhere beneath, the carved-out
		 * directories included: names, never contents). */
		if (g->access & LL_FS_READ_DIR) {
			rc = plan_push(b, g->path, g->fd, 0, g->access & LL_FS_READ_DIR, LL_PK_SPINE, true,
				       false);
			if (rc)
				break;
			g->fd = -1;  /* owned by the plan now */
		}
		rc = walk(b, AT_FDCWD, g->path, g->path, g->access, targets, nt);
		for (size_t k = 0; k < nt && !rc; k++)
			if (targets[k]->access && keeps(b->rep, LL_LINE_NOTE))
				rc = report(b->rep, LL_LINE_NOTE,
					    "%s narrows %s: expanded around it", label(b, targets[k],
					    lab, sizeof(lab)), g->path);
	}
	free(targets);
	return rc;
}

/* Folds plan rules that name one path (a sibling of two expanded
 * grants): one rule with the union. */
static int
merge_plan(struct ll_plan *p)
{
	size_t w = 0;
	int rc = sort_records(p->rules, p->nrules, sizeof(*p->rules), cmp_plan_rule);

	if (rc)
		return rc;
	for (size_t i = 0; i < p->nrules; i++) {
		if (w && strcmp(p->rules[w - 1].path, p->rules[i].path) == 0) {
			p->rules[w - 1].access |= p->rules[i].access;
			/* An open descriptor beats an anchor: nothing to open
			 * when enforcing. */
			if (p->rules[w - 1].fd < 0 && p->rules[i].fd >= 0) {
				p->rules[w - 1].fd = p->rules[i].fd;
				p->rules[w - 1].anchor = 0;
			} else if (p->rules[i].fd >= 0) {
				close(p->rules[i].fd);
			}
			free(p->rules[i].path);
			continue;
		}
		p->rules[w++] = p->rules[i];
	}
	p->nrules = w;
	return 0;
}

static const char *
plan_kind_name(enum ll_plan_kind k)
{
	switch (k) {
	case LL_PK_GRANT: return "grant";
	case LL_PK_SPINE: return "spine";
	case LL_PK_SIBLING: return "sibling";
	case LL_PK_WORKDIR: return "workdir";
	case LL_PK_EXTRA: return "extra";
	case LL_PK_INHERITED: return "inherited";
	}
	return "?";
}

static int
expand_table(struct builder *b)
{
	char path[PATH_MAX], why[PATH_MAX + 256], lab[PATH_MAX + 64], where[PATH_MAX + 16];
	struct px_info info;
	int rc;

	for (uint32_t i = 0; i < b->t->rule_count; i++) {
		struct ll_rule_view r;
		struct ent tmp = { .tidx = (int32_t)i };
		bool optional, skip;

		ll_table_rule(b->t, i, &r);
		optional = (r.flags & LL_RF_OPTIONAL) || r.kind != LL_KIND_GRANT;
		rc = expand(r.path, b->l, r.kind == LL_KIND_GRANT, path, &info);
		/* Only an unset (or empty) variable lets an optional rule go:
		 * one that is set to something dangerous or malformed is an
		 * error in the launcher's environment, refused like any. */
		skip = optional && rc == -ENOENT;
		if (skip && !keeps(b->rep, LL_LINE_SKIPPED))
			continue;
		if (rc) {
			/* The label is formatted only for a message: doing it
			 * for every rule was a measurable part of a launch. */
			label(b, &tmp, lab, sizeof(lab));
			px_describe(&info, why, sizeof(why));
			if (skip) {
				rc = report_skip(b->rep, LL_SKIP_UNSET, "%s: %s, skipped", lab, why);
				if (rc)
					return rc;
				continue;
			}
			if (rc == -ENOENT && r.kind == LL_KIND_GRANT) {
				fix_where(b, &tmp, where, sizeof(where));
				return rt_error(b->err, b->errlen, rc,
					    "%s: %s; set it, or mark the grant `optional` %s%s if "
					    "the sandbox can do without it", lab, why,
					    where[0] ? "at " : "in the policy", where);
			}
			return rt_error(b->err, b->errlen, rc, "%s: %s", lab, why);
		}
		if (r.kind == LL_KIND_GRANT)
			rc = add_grant(b, path, r.access, optional, LL_PK_GRANT, (int32_t)i, NULL);
		else
			rc = add_deny(b, path, (int32_t)i);
		if (rc)
			return rc;
	}
	return 0;
}

void
ll_plan_free(struct ll_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nrules; i++) {
		if (p->rules[i].fd >= 0)
			close(p->rules[i].fd);
		free(p->rules[i].path);
	}
	free(p->rules);
	for (size_t i = 0; i < p->nanchors; i++)
		close(p->anchors[i]);
	free(p->anchors);
	for (size_t i = 0; i < p->nmounts; i++) {
		free(p->mounts[i].deny);
		free(p->mounts[i].grant);
		for (size_t k = 0; k < p->mounts[i].nkeep; k++)
			free(p->mounts[i].keep[k]);
		free(p->mounts[i].keep);
	}
	free(p->mounts);
	for (size_t i = 0; i < p->ndenies; i++)
		free(p->denies[i]);
	free(p->denies);
	memset(p, 0, sizeof(*p));
}

/* Whether every grant that reaches device nodes carries IOCTL_DEV, so
 * that a kernel without that right (ABI < 5) allows no ioctl Landlock
 * would refuse: a device node is opened through a grant of /dev or of
 * something in it ("/" is the only grant above it that makes sense),
 * and none can be made (MAKE_CHAR and MAKE_BLOCK are never granted). */
static bool
device_grants_carry_ioctl(const struct ll_table_view *t)
{
	for (uint32_t i = 0; i < t->rule_count; i++) {
		struct ll_rule_view r;

		ll_table_rule(t, i, &r);
		if (!r.access || (r.access & LL_FS_IOCTL_DEV))
			continue;
		if (strcmp(r.path, "/") == 0 || strcmp(r.path, "/dev") == 0 ||
		    px_beneath(r.path, "/dev"))
			return false;
	}
	return true;
}

/* The rights a kernel may lack that another wall of the launch holds
 * (docs/landlock.md, "A kernel without a right"): the namespaces and the
 * read-only view where the command gets them (l->mountns: a launch makes
 * all of them or none), and the artifact's own device grants. */
static uint32_t
held_elsewhere(const struct ll_table_view *t, const struct ll_launch *l)
{
	uint32_t held = 0;

	if (l->mountns)
		held |= LL_WEAK_TRUNCATE | LL_WEAK_SCOPE_UNIX | LL_WEAK_SCOPE_SIGNAL;
	/* The sandbox's own network namespace holds only loopback, where
	 * heel-proxy's socket is the one listener the sandbox did not make
	 * itself: nothing outside is reachable, proxy or not. Without it,
	 * through heel-proxy the port rule is what keeps the sandbox to the
	 * proxy, and nothing else stands in for it. */
	if (l->mountns || (l->inet_refused && !(t->flags & LL_TF_NET_PROXY)))
		held |= LL_WEAK_NET_TCP | LL_WEAK_NET_UDP;
	if (l->udp_refused)
		held |= LL_WEAK_NET_UDP;
	/* What an older kernel gives `allow unix-sockets` is that
	 * statement's documented meaning (heel(5)); without it seccomp
	 * refuses unix sockets. Either way nothing the policy was reviewed
	 * with is lost, so it is never a refusal. */
	held |= LL_WEAK_RESOLVE_UNIX;
	if (device_grants_carry_ioctl(t))
		held |= LL_WEAK_IOCTL_DEV;
	return held;
}

static int
check_abi(const struct ll_table_view *t, const struct ll_launch *l, int abi, bool best_effort,
	  struct ll_plan *p, struct ll_report *rep, char *err, size_t errlen)
{
	char lost[1024] = "";
	size_t n = 0;
	int rc;

	if (abi > 0) {
		p->dg.held = p->dg.weakenings & held_elsewhere(t, l);
		p->dg.weakenings &= ~p->dg.held;
	}
	for (uint32_t bit = 1; bit && bit <= LL_WEAK_LAST; bit <<= 1) {
		if (!(p->dg.held & bit))
			continue;
		rc = report(rep, LL_LINE_NOTE, "this kernel (ABI %d): %s", abi, ll_held_text(bit));
		if (rc)
			return rc;
	}
	/* Neither Landlock nor the read-only view: nothing would keep the
	 * sandbox from writing whatever the user may write, which is no
	 * sandbox; --best-effort does not go that far. */
	if (abi <= 0 && !l->mountns)
		return rt_error(err, errlen, -EPERM,
			    "Landlock is unavailable and there is no mount namespace for the "
			    "read-only view: nothing would confine the sandbox's writes, so "
			    "heel-exec refuses even with --best-effort");
	if (abi <= 0 && l->mountns && best_effort) {
		rc = report(rep, LL_LINE_WEAKENING, "Landlock is unavailable: reading and running "
			    "are not confined to the grants (what the user may read or run, the "
			    "sandbox may), except the denied paths that exist, which are covered; "
			    "the read-only view still keeps every write to the writable places, "
			    "where nothing written can be run");
		return rc;
	}
	for (uint32_t bit = 1; bit && bit <= LL_WEAK_LAST; bit <<= 1) {
		if (!(p->dg.weakenings & bit) || bit == LL_WEAK_MOUNTNS)
			continue;
		if (n < sizeof(lost))
			n += (size_t)snprintf(lost + n, sizeof(lost) - n, "%s%s", n ? "; " : "",
					      ll_weakening_text(bit));
		rc = report(rep, LL_LINE_WEAKENING, "%s", ll_weakening_text(bit));
		if (rc)
			return rc;
	}
	if (p->dg.notes & LL_NOTE_NO_REFER) {
		rc = report(rep, LL_LINE_NOTE, "%s", ll_note_text(LL_NOTE_NO_REFER));
		if (rc)
			return rc;
	}
	/* Below the policy's minimum, but every right lost held elsewhere:
	 * the whole policy holds, so it runs. */
	if (abi < (int)t->min_abi && !best_effort && (abi <= 0 || p->dg.weakenings)) {
		if (abi <= 0)
			return rt_error(err, errlen, -EPERM,
				    "Landlock is unavailable and the policy needs ABI %u; "
				    "run with --best-effort to run without it", t->min_abi);
		return rt_error(err, errlen, -EPERM,
			    "this kernel has Landlock ABI %d and the policy needs %u: %s; "
			    "run with --best-effort to accept", abi, t->min_abi,
			    n ? lost : "the policy's minimum is not met");
	}
	return 0;
}

int
ll_plan_build(const struct ll_table_view *t, const struct ll_launch *l, int abi,
	      bool best_effort, struct ll_plan *plan, struct ll_report *rep, char *err,
	      size_t errlen)
{
	/* Carve-outs add the listed entries of a few directories (/etc, the
	 * home directory): about one more rule per table rule. */
	struct builder b = { .t = t, .l = l, .plan = plan, .rep = rep, .err = err,
			     .errlen = errlen, .hint = (size_t)t->rule_count * 2 + 64 };
	/* In the sandbox's own network namespace the namespace is the
	 * network's wall (ll_launch.netns): nothing of it is handled. */
	struct ll_masks req = { t->handled_fs, l->netns ? 0 : t->handled_net, t->scoped };
	struct pair *pairs = NULL;
	size_t np = 0;
	char tmp[512];
	bool view_only;
	int rc;

	memset(plan, 0, sizeof(*plan));
	if (err && errlen)
		err[0] = '\0';
	plan->abi = abi < 0 ? 0 : abi;
	plan->net_unhandled = l->netns;
	/* Without Landlock (best effort only), the plan still decides the
	 * mounts: which places are writable, and a cover for every denied
	 * path that exists. It is planned as for ABI 1; nothing of it is
	 * handed to Landlock (ll_plan_enforce does nothing on ABI 0). */
	view_only = plan->abi == 0 && l->mountns && best_effort;
	ll_downgrade(&req, view_only ? 1 : abi, &plan->dg);
	if (view_only) {
		plan->dg.weakenings = LL_WEAK_NO_LANDLOCK;
		plan->dg.notes = 0;
	}
	if (rep) {
		rep->abi = plan->abi;
		rep->requested = req;
		rep->effective = plan->dg.eff;
	}
	rc = check_abi(t, l, abi, best_effort, plan, rep, err, errlen);
	if (rc)
		goto out;
	if ((t->flags & LL_TF_NET_PROXY) && !l->proxy_port) {
		rc = rt_error(err, errlen, -EINVAL, "the policy's network goes through heel-proxy, "
			  "but no proxy port was given");
		goto out;
	}
	if (!(t->flags & LL_TF_NET_PROXY) && l->proxy_port) {
		rc = rt_error(err, errlen, -EINVAL, "the policy's network is deny, "
			  "yet a proxy port was given");
		goto out;
	}
	if (plan->abi == 0 && !view_only)
		goto out;  /* not reached: check_abi refused */
	if (plan->dg.eff.net & LL_NET_CONNECT_TCP)
		plan->proxy_port = l->proxy_port;

	rc = expand_table(&b);
	if (rc)
		goto out;
	if (l->workdir) {
		rc = add_grant(&b, l->workdir, WORKDIR_RIGHTS, false, LL_PK_WORKDIR, -1,
			       "the working directory");
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < l->nextra; i++) {
		rc = add_grant(&b, l->extra[i].path, l->extra[i].access, l->extra[i].optional,
			       LL_PK_EXTRA, -1, l->extra[i].why);
		if (rc)
			goto out;
	}
	rc = merge_ents(&b);
	if (rc)
		goto out;
	rc = find_pairs(&b, &pairs, &np);
	if (rc)
		goto out;
	rc = decide_writable(&b, pairs, np, best_effort);
	if (!rc)
		rc = decide_read_covers(&b, pairs, np);
	/* No Landlock: every denied path that exists is covered, whether a
	 * grant holds it or not (nothing else keeps it from being read). */
	for (size_t i = 0; !rc && view_only && i < b.ne; i++)
		if (!b.e[i].access && b.e[i].exists && !b.e[i].covered) {
			b.e[i].covered = true;
			rc = add_mount_request(&b, &b.e[i], NULL);
		}
	if (rc)
		goto out;
	rc = split_grants(&b, pairs, np);
	if (rc)
		goto out;
	for (size_t i = 0; i < b.ne; i++) {
		struct ent *e = &b.e[i];

		if (!e->access || e->split)
			continue;
		rc = plan_push(&b, e->path, e->fd, 0, e->access, e->pk, e->is_dir, e->is_reg);
		if (rc)
			goto out;
		e->fd = -1;
	}
	rc = merge_plan(plan);
	if (rc)
		goto out;
	/* The denies, for ll_plan_add_workdir: one beneath a working
	 * directory added later needs the plan built again. */
	for (size_t i = 0; i < b.ne; i++)
		plan->ndenies += !b.e[i].access;
	plan->denies = plan->ndenies ? calloc(plan->ndenies, sizeof(*plan->denies)) : NULL;
	if (plan->ndenies && !plan->denies) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0, k = 0; i < b.ne; i++)
		if (!b.e[i].access) {
			plan->denies[k++] = b.e[i].path;
			b.e[i].path = NULL;
		}
	for (size_t i = 0; rep && rep->want_applied && i < plan->nrules; i++) {
		ll_format_mask('f', plan->rules[i].access, tmp, sizeof(tmp));
		rc = report(rep, LL_LINE_APPLIED, "%s %s: %s", plan_kind_name(plan->rules[i].kind),
			    plan->rules[i].path, tmp);
		if (rc)
			goto out;
	}
	if (plan->proxy_port) {
		rc = report(rep, LL_LINE_APPLIED, "tcp connect to port %u (heel-proxy)",
			    plan->proxy_port);
		if (rc)
			goto out;
	}
	if (rep) {
		rep->nrules = plan->nrules;
		rep->weakenings = plan->dg.weakenings;
		rep->notes = plan->dg.notes;
	}
out:
	for (size_t i = 0; i < b.ne; i++) {
		if (b.e[i].fd >= 0)
			close(b.e[i].fd);
		free(b.e[i].path);
	}
	free(b.e);
	free(pairs);
	if (rc == -ENOMEM && err && errlen && !err[0])
		snprintf(err, errlen, "out of memory while planning the Landlock ruleset");
	if (rc)
		ll_plan_free(plan);
	return rc;
}

/* The working directory, added to a plan built before it existed (the
 * launcher's dry run, reused by the command so that the plan is built
 * once per launch). Only valid when nothing needs carving for it: no
 * rule lies beneath it, and no ancestor grant holds a right it must not
 * have (execute, above all), since Landlock would union that right into
 * it. -EAGAIN then: build the plan again with l->workdir set. */
/* Appends a rule for the directory `dir`, opened now (no link followed),
 * with `access` as far as this kernel knows it. */
static int
add_dir_rule(struct ll_plan *p, const char *dir, uint64_t access, enum ll_plan_kind kind,
	     const char *why, char *err, size_t errlen)
{
	struct ll_plan_rule *grown;
	char *copy;
	int fd;

	fd = open2(AT_FDCWD, dir, O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return rt_error(err, errlen, fd, "%s %s: %s", why, dir, strerror(-fd));
	copy = strdup(dir);
	grown = copy ? grow_array(p->rules, &p->rules_cap, p->nrules + 1, sizeof(*p->rules), 1)
		     : NULL;
	if (!grown) {
		free(copy);
		close(fd);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	p->rules = grown;
	p->rules[p->nrules++] = (struct ll_plan_rule){
		.path = copy,
		.fd = fd,
		.access = access & p->dg.eff.fs,
		.kind = kind,
		.is_dir = true,
	};
	return 0;
}

int
ll_plan_add_workdir(struct ll_plan *p, const char *workdir, char *err, size_t errlen)
{
	/* A deny inside the working directory (a kept one that holds a
	 * .git/config, say) must be planned with it: covered, or refused. */
	for (size_t i = 0; i < p->ndenies; i++)
		if (px_beneath(p->denies[i], workdir) || strcmp(p->denies[i], workdir) == 0)
			return -EAGAIN;
	if (p->abi <= 0)
		return 0;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ll_plan_rule *r = &p->rules[i];

		if (px_beneath(r->path, workdir) || strcmp(r->path, workdir) == 0)
			return -EAGAIN;
		/* IOCTL_DEV from a device grant above (a workdir under
		 * /dev/shm) means nothing there: no device node can be made
		 * in the workdir or linked into it (MAKE_CHAR, MAKE_BLOCK). */
		if (px_beneath(workdir, r->path) &&
		    (r->access & ~(WORKDIR_RIGHTS | LL_FS_IOCTL_DEV)))
			return -EAGAIN;
	}
	return add_dir_rule(p, workdir, WORKDIR_RIGHTS, LL_PK_WORKDIR, "the working directory", err,
			    errlen);
}

int
ll_plan_add_dir(struct ll_plan *p, const char *dir, uint64_t access, const char *why,
		char *err, size_t errlen)
{
	if (p->abi <= 0)
		return 0;
	return add_dir_rule(p, dir, access, LL_PK_EXTRA, why, err, errlen);
}

int
ll_plan_replace_mount(struct ll_plan *p, const char *mountpoint, uint64_t access, const char *why,
		      char *err, size_t errlen)
{
	size_t kept = 0;

	if (p->abi <= 0)
		return 0;
	for (size_t i = 0; i < p->nrules; i++) {
		struct ll_plan_rule *r = &p->rules[i];

		if (strcmp(r->path, mountpoint) == 0 || px_beneath(r->path, mountpoint)) {
			if (r->fd >= 0)
				close(r->fd);
			free(r->path);
			continue;
		}
		p->rules[kept++] = *r;
	}
	p->nrules = kept;
	return add_dir_rule(p, mountpoint, access, LL_PK_EXTRA, why, err, errlen);
}

int
ll_plan_add_fd(struct ll_plan *p, int fd, uint64_t access, const char *why, char *err,
	       size_t errlen)
{
	struct ll_plan_rule *grown;
	struct stat st;
	char *copy;
	int dup;

	/* Directory rights on a file are refused by the kernel (EINVAL). */
	access &= p->dg.eff.fs & (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE |
				  LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
	if (p->abi <= 0 || !access)
		return 0;
	if (fstat(fd, &st) < 0)
		return rt_error(err, errlen, -errno, "%s: %s", why, strerror(errno));
	/* A directory would grant everything beneath it. */
	if (S_ISDIR(st.st_mode))
		return rt_error(err, errlen, -EISDIR, "%s: a directory, not a file", why);
	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return rt_error(err, errlen, -errno, "%s: %s", why, strerror(errno));
	copy = strdup(why);
	grown = copy ? grow_array(p->rules, &p->rules_cap, p->nrules + 1, sizeof(*p->rules), 1)
		     : NULL;
	if (!grown) {
		free(copy);
		close(dup);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	p->rules = grown;
	p->rules[p->nrules++] = (struct ll_plan_rule){
		.path = copy,
		.fd = dup,
		.access = access,
		.kind = LL_PK_INHERITED,
		.is_reg = S_ISREG(st.st_mode),
	};
	return 0;
}

/* Opens again every rule at or beneath `mountpoint`: a rule names an
 * inode, so after a new file system was mounted there (the PID
 * namespace's own /proc, mounted after the launcher planned), the old
 * descriptors would grant the hidden one and the new one would be
 * denied. */
int
ll_plan_reopen_under(struct ll_plan *p, const char *mountpoint, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->nrules; i++) {
		struct ll_plan_rule *r = &p->rules[i];
		int fd;

		if (strcmp(r->path, mountpoint) != 0 && !px_beneath(r->path, mountpoint))
			continue;
		/* A sibling is opened when enforced: by its path, now, not
		 * relative to a directory listed before the mount. */
		if (r->fd < 0) {
			r->anchor = 0;
			continue;
		}
		fd = open2(AT_FDCWD, r->path, O_PATH, RESOLVE_NO_SYMLINKS);
		if (fd < 0)
			return rt_error(err, errlen, fd, "%s: %s", r->path, strerror(-fd));
		if (r->fd >= 0)
			close(r->fd);
		r->fd = fd;
	}
	return 0;
}

/* ------------------------------------------------------------ enforce */

/* Opens a sibling the plan listed but did not open: relative to the
 * directory it was listed in (a rename of a directory above since then
 * cannot redirect it), or by its path where a mount changed what is
 * there (ll_plan_reopen_under). Never through a link: a link put there
 * since is opened as itself, and a rule on it grants nothing (opening
 * follows it to its target, which has rules of its own). -ENOENT: gone
 * since listed: granting nothing there only ever removes access. */
static int
open_sibling(const struct ll_plan *p, const struct ll_plan_rule *r, char *err, size_t errlen)
{
	const char *name = strrchr(r->path, '/') + 1;
	int fd;

	if (r->anchor)
		fd = open2(p->anchors[r->anchor - 1], name, O_PATH | O_NOFOLLOW,
			   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	else
		fd = open2(AT_FDCWD, r->path, O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
	if (fd == -ENOENT || fd == -ELOOP)
		return -ENOENT;
	if (fd < 0)
		return rt_error(err, errlen, fd, "%s: %s", r->path, strerror(-fd));
	return fd;
}

/* A rule refused (EINVAL) on a sibling that was a directory when
 * listed: one that is no longer a directory (directory rights on a file)
 * gets none, which only ever removes access. */
static bool
no_longer_a_directory(int fd, const struct ll_plan_rule *r)
{
	struct stat st;

	return r->is_dir && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode);
}

int
ll_plan_enforce(const struct ll_plan *p, char *err, size_t errlen)
{
	struct ll_ruleset_attr attr;
	int rfd, rc = 0;

	if (p->abi <= 0)
		return 0;
	/* The full 24-byte struct even on older ABIs: the kernel accepts a
	 * larger struct when the bytes it does not know are zero, and the
	 * downgrade zeroed them. */
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = p->dg.eff.fs;
	attr.handled_access_net = p->dg.eff.net;
	attr.scoped = p->dg.eff.scoped;
	rfd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rfd < 0)
		return rt_error(err, errlen, -errno, "landlock_create_ruleset: %s", strerror(errno));
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ll_plan_rule *r = &p->rules[i];
		struct ll_path_beneath_attr pb = {
			.allowed_access = r->access,
			.parent_fd = r->fd,
		};
		int late = -1;

		if (r->fd < 0) {
			late = open_sibling(p, r, err, errlen);
			if (late == -ENOENT)
				continue;
			if (late < 0) {
				rc = late;
				goto out;
			}
			pb.parent_fd = late;
		}
		rc = (int)syscall(__NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb, 0) < 0 ?
		     -errno : 0;
		if (rc == -EINVAL && late >= 0 && no_longer_a_directory(late, r))
			rc = 0;
		/* A pipe's or a socket's inode (a pseudo file system): no
		 * path reaches it, Landlock lets reopening it through /proc
		 * pass, and takes no rule on it (EBADFD). */
		if (rc == -EBADFD && r->kind == LL_PK_INHERITED)
			rc = 0;
		if (late >= 0)
			close(late);
		if (rc) {
			rt_error(err, errlen, rc, "landlock_add_rule %s: %s", r->path, strerror(-rc));
			goto out;
		}
	}
	if (p->proxy_port) {
		struct ll_net_port_attr np = {
			.allowed_access = LL_NET_CONNECT_TCP,
			.port = p->proxy_port,
		};

		if (syscall(__NR_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np, 0) < 0) {
			rc = rt_error(err, errlen, -errno, "landlock_add_rule port %u: %s", p->proxy_port,
				  strerror(errno));
			goto out;
		}
	}
	if (syscall(__NR_landlock_restrict_self, rfd, 0) < 0) {
		rc = -errno;
		rt_error(err, errlen, rc, "landlock_restrict_self: %s%s", strerror(-rc),
		     rc == -EPERM ? " (hint: set PR_SET_NO_NEW_PRIVS first)" : "");
	}
out:
	close(rfd);
	return rc;
}

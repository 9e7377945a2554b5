/* SPDX-License-Identifier: MIT
 * Landlock at launch: probe the kernel's ABI, downgrade the table's
 * rights to what it knows (a pure function), turn the table into a plan
 * (templates expanded, every path opened without following links, denies
 * beneath grants carved out), and enforce the plan with
 * landlock_restrict_self. libc only; never prints or exits: errors are
 * -errno plus one line in the caller's buffer, and what was done goes
 * into a report the launcher prints for -v and --best-effort.
 * docs/landlock.md is the specification. */
#ifndef HEEL_RUNTIME_LANDLOCK_APPLY_H
#define HEEL_RUNTIME_LANDLOCK_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landlock_table.h"

/* ------------------------------------------------------------ probe */

/* The running kernel's Landlock ABI (>= 1), or -ENOSYS (not built into
 * this kernel), -EOPNOTSUPP (built in, disabled at boot), other -errno. */
int ll_probe_abi(void);

/* A one-line message with a hint for a negative ll_probe_abi() result. */
const char *ll_probe_message(int rc);

/* ------------------------------------------------------------ downgrade */

struct ll_masks {
	uint64_t fs;
	uint64_t net;
	uint64_t scoped;
};

/* What a kernel cannot enforce of what the table asks (weakenings)... */
#define LL_WEAK_NO_LANDLOCK 0x01u  /* ABI 0: Landlock unavailable */
#define LL_WEAK_TRUNCATE 0x02u     /* ABI < 3 */
#define LL_WEAK_NET_TCP 0x04u      /* ABI < 4 */
#define LL_WEAK_IOCTL_DEV 0x08u    /* ABI < 5 */
#define LL_WEAK_SCOPE_UNIX 0x10u   /* ABI < 6 */
#define LL_WEAK_SCOPE_SIGNAL 0x20u /* ABI < 6 */
#define LL_WEAK_RESOLVE_UNIX 0x40u /* ABI < 9, when asked */
#define LL_WEAK_MOUNTNS 0x80u      /* set by the planner: a deny in a writable grant
				    * enforced without a mount namespace */
#define LL_WEAK_NET_UDP 0x100u     /* ABI < 10 */
#define LL_WEAK_LAST LL_WEAK_NET_UDP
/* ...and where it is stricter than asked (notes). */
#define LL_NOTE_NO_REFER 0x01u     /* ABI 1: every cross-directory rename/link is EXDEV */

struct ll_downgrade {
	struct ll_masks eff;       /* requested & what `abi` knows */
	uint32_t weakenings;       /* LL_WEAK_*: lost and held by nothing else */
	uint32_t notes;            /* LL_NOTE_* */
	uint32_t held;             /* LL_WEAK_*: lost, but another wall of the
				    * launch holds the same ground
				    * (ll_plan_build; ll_held_text says which) */
};

/* Pure: effective masks for `abi` (0 = no Landlock; above LL_ABI_MAX
 * treated as LL_ABI_MAX) and what was lost. */
void ll_downgrade(const struct ll_masks *req, int abi, struct ll_downgrade *out);

/* One sentence for one LL_WEAK_* / LL_NOTE_* bit. */
const char *ll_weakening_text(uint32_t bit);
/* For a right the kernel lacks that another wall holds (ll_downgrade.held):
 * which wall, and what differs from Landlock's own rule. */
const char *ll_held_text(uint32_t bit);
const char *ll_note_text(uint32_t bit);

/* ------------------------------------------------------------ report */

enum ll_line_kind {
	LL_LINE_APPLIED,   /* a rule handed to the kernel */
	LL_LINE_SKIPPED,   /* an optional rule left out, and why */
	LL_LINE_NOTE,      /* stricter than the policy, or informative */
	LL_LINE_WEAKENING, /* weaker than the policy (only with --best-effort) */
};

/* Why an LL_LINE_SKIPPED rule was left out, so that a launcher can count
 * them in one line instead of printing one each. */
enum ll_skip_reason {
	LL_SKIP_MISSING,  /* its path does not exist on this machine */
	LL_SKIP_LINK,     /* its path is or passes through a symbolic link */
	LL_SKIP_UNSET,    /* it names an unset (or empty) ${NAME} */
	LL_SKIP_OTHER,    /* no right left on this kernel, or out of reach */
	LL_SKIP_COUNT
};

struct ll_report_line {
	enum ll_line_kind kind;
	enum ll_skip_reason skip; /* LL_LINE_SKIPPED only */
	char *text;
};

/* Zero-initialise before use; ll_report_free() releases the lines. */
struct ll_report {
	int abi;
	struct ll_masks requested;
	struct ll_masks effective;
	uint32_t weakenings;
	uint32_t notes;
	size_t nrules;             /* path rules handed to the kernel */
	struct ll_report_line *lines;
	size_t nlines, cap_lines;
	bool want_applied;         /* set by the caller: also list every rule
				    * handed to the kernel (LL_LINE_APPLIED),
				    * which costs a formatted line per rule */
	bool weakenings_only;      /* set by the caller: keep LL_LINE_WEAKENING
				    * lines only (a launch that prints nothing
				    * else need not format the rest) */
};

void ll_report_free(struct ll_report *rep);

/* ------------------------------------------------------------ plan */

/* A rule the launcher adds (IPC socket directory, shims...): absolute
 * path, no template. */
struct ll_extra_rule {
	const char *path;
	uint64_t access;           /* LL_FS_* */
	bool optional;
	const char *why;           /* names it in messages: "the IPC socket directory" */
};

/* A protected path inside a writable grant, for a launcher that has a
 * private mount namespace: it binds an empty read-only directory (or
 * file) over `deny`, and binds every directory in `keep` onto itself so
 * that none of them can be renamed or removed (EBUSY) to move the
 * protection away. Landlock then keeps `grant` whole. */
struct ll_mount_request {
	char *deny;                /* resolved, absolute */
	bool is_dir;
	char *grant;               /* the outermost writable grant above it */
	char **keep;               /* directories strictly between grant and deny, outermost first */
	size_t nkeep;
};

struct ll_launch {
	/* ${NAME} lookup: the launcher's environment; NULL = unset. */
	const char *(*getenv)(const char *name, void *ctx);
	void *getenv_ctx;
	const char *cwd;           /* absolute launch directory: relative paths, ${CWD} */
	const char *workdir;       /* absolute: ${WORKDIR} and the implicit rule
				    * (read + write, never execute); NULL: none */
	const struct ll_extra_rule *extra;
	size_t nextra;
	uint16_t proxy_port;       /* LL_TF_NET_PROXY: CONNECT_TCP to this port */
	/* The launcher runs the child in a private mount namespace of its
	 * own, where it mounts the plan's mount requests after planning and
	 * before restricting (Landlock forbids mount changes once enforced):
	 * a deny may then be a cover instead of a carve-out. false: no
	 * namespace, so a deny inside a writable grant is refused unless
	 * best_effort. */
	bool mountns;
	/* The command has a network namespace of its own, loopback only:
	 * that is the wall for the network, and Landlock's network rights
	 * are not handled at all, so that the sandbox may serve and reach
	 * itself on any port of its own loopback (test servers, dev
	 * servers); the namespace keeps everything else out of reach,
	 * heel-proxy's socket in it aside. false: the host's network, where
	 * the table's port rules hold. */
	bool netns;
	/* The launch's seccomp programs refuse inet sockets (heel-exec asks
	 * the artifact's program itself, and knows whether it stacks its
	 * own refusal): TCP and UDP need no Landlock rule then. */
	bool inet_refused;
	/* It refuses UDP sockets (through heel-proxy only TCP is let
	 * through): UDP needs no Landlock rule. */
	bool udp_refused;
};

enum ll_plan_kind {
	LL_PK_GRANT,    /* a table grant as written */
	LL_PK_SPINE,    /* a grant narrowed to READ_DIR because something beneath it is carved out */
	LL_PK_SIBLING,  /* an entry granted in place of its carved-out ancestor */
	LL_PK_WORKDIR,  /* the working directory */
	LL_PK_EXTRA,    /* from ll_launch.extra */
	LL_PK_INHERITED, /* a descriptor the command inherits (ll_plan_add_fd) */
};

struct ll_plan_rule {
	char *path;                /* absolute, expanded */
	int fd;                    /* O_PATH, opened without following any link;
				    * -1 for a sibling, opened when enforced */
	size_t anchor;             /* a sibling: 1 + the index in ll_plan.anchors of
				    * the directory it was listed in; 0: none */
	uint64_t access;           /* effective: downgraded, masked for non-directories */
	enum ll_plan_kind kind;
	bool is_dir;
	bool is_reg;               /* a regular file */
};

struct ll_plan {
	int abi;                   /* 0: Landlock unavailable (best effort): enforce does nothing */
	struct ll_downgrade dg;
	uint16_t proxy_port;       /* 0: no port rule */
	bool net_unhandled;        /* planned with ll_launch.netns: no network
				    * right handled (only a launch with a
				    * network namespace may use the plan) */
	struct ll_plan_rule *rules; /* sorted by path */
	size_t nrules;
	size_t rules_cap;          /* allocated elements of rules */
	/* The directories a carve-out listed, open: a sibling is opened
	 * relative to its own when the ruleset is enforced, not held open
	 * from planning (a directory of thousands of entries would hold
	 * thousands of descriptors, past a login's open-files limit). */
	int *anchors;
	size_t nanchors;
	size_t anchors_cap;
	struct ll_mount_request *mounts;
	size_t nmounts;
	char **denies;             /* every deny, resolved (ll_plan_add_workdir) */
	size_t ndenies;
};

/* Builds the plan for `t` on a kernel with ABI `abi`: fails closed (-EPERM)
 * when abi < t->min_abi unless best_effort; -EINVAL/-ENOENT/-ELOOP naming
 * the rule for a template that does not expand, a required path that is
 * missing or is (or passes through) a symbolic link. Opens file
 * descriptors (O_CLOEXEC) that ll_plan_free() closes. `rep` may be NULL.
 * Does not restrict the caller. */
int ll_plan_build(const struct ll_table_view *t, const struct ll_launch *l, int abi,
		  bool best_effort, struct ll_plan *plan, struct ll_report *rep, char *err,
		  size_t errlen);
void ll_plan_free(struct ll_plan *plan);

/* Adds the working directory to a plan built without it, when that needs
 * no carving; 0, -EAGAIN (rebuild the plan with ll_launch.workdir), or
 * -errno with a message. */
int ll_plan_reopen_under(struct ll_plan *plan, const char *mountpoint, char *err,
			 size_t errlen);
int ll_plan_add_workdir(struct ll_plan *plan, const char *workdir, char *err, size_t errlen);

/* Adds a rule for a directory the launcher mounted itself after the plan
 * was built (the host commands' directory, LL_PK_EXTRA): `access` (LL_FS_*,
 * masked to what the kernel knows) beneath `dir`, opened now. Nothing of
 * the policy lies beneath such a directory, so nothing is carved. 0 (also
 * without Landlock), or -errno with a message naming `why`. */
int ll_plan_add_dir(struct ll_plan *plan, const char *dir, uint64_t access, const char *why,
		    char *err, size_t errlen);

/* A file system the launcher mounted over a path of the host's, the
 * sandbox's own (its private /dev/shm): every rule of the plan at or
 * beneath `mountpoint` named the host's inodes, hidden now, and is
 * dropped; the new mount gets `access` (masked to what the kernel knows),
 * opened now. 0 (also without Landlock), or -errno with a message naming
 * `why`. */
int ll_plan_replace_mount(struct ll_plan *plan, const char *mountpoint, uint64_t access,
			  const char *why, char *err, size_t errlen);

/* A rule on the very inode behind descriptor `fd` (a regular file, a
 * device, a named FIFO), not on a path: reopening it (/dev/stdout,
 * /proc/self/fd/N, the controlling terminal through /dev/tty) then works
 * with `access` (masked to what the kernel knows and to a file's
 * rights), and nothing else is granted. The descriptor is duplicated
 * (close-on-exec); an inode no path can reach (a pipe, a socket: opening
 * those again needs no rule) is left out when enforced. `why` names it
 * in messages. 0 (also without Landlock), or -errno with a message. */
int ll_plan_add_fd(struct ll_plan *plan, int fd, uint64_t access, const char *why, char *err,
		   size_t errlen);

/* Creates the ruleset, adds every rule, restricts the calling thread (the
 * launcher is single-threaded when it gets here, so TSYNC is not needed).
 * The caller must have set PR_SET_NO_NEW_PRIVS first (the kernel refuses
 * restrict_self without it unless the caller has CAP_SYS_ADMIN), and
 * seccomp comes after (it may forbid the calls used here). Irreversible. */
int ll_plan_enforce(const struct ll_plan *plan, char *err, size_t errlen);

/* openat2(2) with RESOLVE_NO_SYMLINKS and O_CLOEXEC added to `flags`: a
 * path that is, or passes through, a symbolic link fails with -ELOOP
 * instead of being followed, as every rule of a plan is opened. The one
 * openat2 wrapper of the launcher. A descriptor, or -errno. */
int ll_open_nofollow(int dirfd, const char *path, uint64_t flags);

#endif

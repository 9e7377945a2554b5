/* SPDX-License-Identifier: MIT
 * Why a sandboxed action is refused: from the policy as an artifact
 * holds it (artifact_load, the reader `heelc explain` uses) and one
 * denial (runtime/denial.h), the wall that refuses it, the rule or
 * protection set behind it with its file:line (or the `heel run` option
 * that made it), and the smallest change that allows it. The rule that
 * governs a path is heel(5) PRECEDENCE: the rule with the longest
 * matching path decides. System calls are judged by the seccomp model
 * (seccomp_policy.h) the filter is built from. Never prints. */
#ifndef HEEL_COMPILER_WHY_H
#define HEEL_COMPILER_WHY_H

#include <stdbool.h>
#include <stddef.h>

#include "denial.h"
#include "ir.h"
#include "pathexpand.h"

/* The wall that refuses, in the order a call meets them. */
enum why_wall {
	WHY_WALL_LANDLOCK,	 /* a Landlock right the governing rule does not give */
	WHY_WALL_READONLY_MOUNT, /* the view is read-only outside the writable places (EROFS) */
	WHY_WALL_READONLY_COVER, /* `readonly` inside a writable place (host-run) */
	WHY_WALL_NOEXEC,	 /* writable places and shared temp are mounted noexec */
	WHY_WALL_SECCOMP,	 /* the seccomp filter */
	WHY_WALL_NETNS,		 /* the sandbox's own network namespace: loopback only */
	WHY_WALL_PROXY,		 /* heel-proxy refused the destination */
	WHY_WALL_COUNT
};

/* What a launch expanded the policy's paths with. */
struct why_launch {
	px_lookup_fn lookup; /* ${NAME} and CWD (the launch directory) */
	void *ctx;
	const char *workdir; /* the sandbox's working directory: writable,
			      * never executable; NULL: none */
};

struct why_answer {
	enum why_wall wall;
	const char *set;  /* the protection set that denies, or NULL */
	char rule[512];	  /* "policy.heel:12", "--grant /x=r", "<default>:40",
			   * or "no rule" */
	char reason[512]; /* one clause: what the rule says of the path */
	char option[512]; /* the heel run option that allows it; "" when none */
	char line[512];	  /* the policy line that allows it; "" when none */
	bool covered;	  /* a deny decides the path: the view may show it
			   * missing, or refuse the walk to it */
};

struct why_policy;

/* Expands the Linux path rules of `policy` as the launch did (rules
 * whose variables are unset are skipped, as the launch skipped them) and
 * builds its seccomp model. Borrows `policy` and `l` (with what they
 * point at) for the life of the result. 0 with *out (why_policy_free),
 * -ENOMEM, or -EINVAL when the policy has no Linux part. */
int why_policy_new(const struct ir_policy *policy, const struct why_launch *l,
		   struct why_policy **out);
void why_policy_free(struct why_policy *w);

/* Judges `ev` against the policy: 1 with *a filled when a wall of the
 * sandbox refuses it, 0 when the policy allows it (a refusal then is the
 * host's: a file's mode, a missing file), -EINVAL for an event it cannot
 * read (unknown version or op). ev->err, when set, tells two walls apart
 * (EROFS: the mount; EACCES: Landlock). */
int why_explain(const struct why_policy *w, const struct denial_event *ev, struct why_answer *a);

const char *why_op_name(unsigned op);	  /* "open-read"; "?" */
const char *why_wall_name(unsigned wall); /* "landlock", "read-only mount"; "?" */

/* One line for the exit summary, without a newline: "heel: refused
 * open-read /home/u/.ssh/id_rsa (cat, 3 times): landlock, protection set
 * credentials, <protect/credentials>:12: the protection set credentials
 * denies /home/u/.ssh; allow: heel run --readable /home/u/.ssh/id_rsa (a
 * policy: grant ...)". What the sandbox named goes to a terminal: control
 * characters are shown as \xNN. Truncated to len; returns its length. */
int why_line(const struct denial_event *ev, const struct why_answer *a, unsigned count, char *buf,
	     size_t len);

/* The audit sink's line (heel(5), IPC), without a newline:
 * "type" "denial/1", "timestamp" as the other lines have it, and the
 * event and answer as fields. Made with jansson. Caller frees; NULL on
 * out-of-memory. */
char *why_json(const struct denial_event *ev, const struct why_answer *a, unsigned count,
	       const char *timestamp);

/* The "type" of the audit line, versioned: a change of meaning is a new
 * number. */
#define WHY_JSON_TYPE "denial/1"

#endif

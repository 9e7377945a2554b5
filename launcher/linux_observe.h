/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-observe, the privileged denial observer
 * (docs/observe.md). Where heel-exec may load BPF (root, or CAP_BPF and
 * CAP_PERFMON) and heel-observe is installed beside it, heel-exec starts
 * it early, so that loading its BPF program overlaps the sandbox's
 * set-up; once the sandbox's init exists (waiting for its go) tells it
 * the sandbox's PID namespace and waits for "ready"; and at exit stops
 * it and reads the JSON lines it wrote to a memfd. The observer only
 * watches: where it cannot run (no BTF, not privileged, the kernel
 * refuses the program) the launch goes on without it, saying so under -v.
 * libc only: libbpf lives in heel-observe. */
#ifndef HEEL_LAUNCHER_LINUX_OBSERVE_H
#define HEEL_LAUNCHER_LINUX_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hostcheck.h"
#include "linux_helper.h"

struct linux_observe {
	bool on;            /* started, and not given up on */
	struct helper h;    /* heel-observe's process and control socket */
	int out;            /* memfd heel-observe writes its lines to; -1 */
	char what[512];     /* its "ready" line: which programs it loaded */
	unsigned long denials, lost; /* counted by linux_observe_stop */
	bool died;	    /* linux_observe_stop found it dead */
};

/* Starts heel-observe where it can run; else leaves o off and says why
 * in why (one line; "" when it was never meant to run). Never refuses a
 * launch: heel-observe a sandbox could have rewritten is not run, and
 * that is said in why with warn set (heel-exec says it without -v). */
void linux_observe_start(struct linux_observe *o, const struct hc_places *ps, bool *warn,
			 char *why, size_t whylen);

/* In the launcher, after the clone and before the go: aims heel-observe
 * at the sandbox whose init is `child` (its PID namespace) and waits for
 * it to be attached. 0, or -errno with why (o is then off and stopped:
 * the launch goes on without it). */
int linux_observe_aim(struct linux_observe *o, pid_t child, char *why, size_t whylen);

/* After the command: stops heel-observe (it drains its ring buffer
 * first) and counts the lines it wrote into o->denials and o->lost. */
void linux_observe_stop(struct linux_observe *o);

/* The lines heel-observe wrote (malloc'd, NUL-terminated; caller frees),
 * or NULL. Valid after linux_observe_stop. */
char *linux_observe_lines(const struct linux_observe *o);

void linux_observe_free(struct linux_observe *o);

#endif

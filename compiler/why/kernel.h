/* SPDX-License-Identifier: MIT
 * heel-why: one line of heel-observe (the kernel-side observer,
 * runtime/observe) turned into the denial event (runtime/denial.h) the
 * explainer judges. heel-observe saw the kernel's own outcome, so the
 * event carries the errno the call got (source DENIAL_SRC_KERNEL).
 * Never prints. */
#ifndef HEEL_WHY_KERNEL_H
#define HEEL_WHY_KERNEL_H

#include <stddef.h>

#include "denial.h"

/* Fills *ev from one line of heel-observe's output (NUL-terminated,
 * without its newline): 1, 0 for a line that is no refusal to judge (the
 * count of lost records, a path the observer could not make absolute),
 * or -EINVAL for a line that is not heel-observe's (version 1). */
int wk_decode(const char *line, struct denial_event *ev);

/* Fills *ev from one line heel-proxy wrote for a refused destination
 * (its audit line: "host", "port", "allowed" false, "reason"): 1 for a
 * host the allow-list does not hold (the explainer names the rule and
 * the fix), 2 for one a wall of heel-proxy refused otherwise (a private
 * or the host's own address, the decider): its reason, which says how
 * to allow it where anything can, is copied into reason. 0 for what is
 * no refusal of the policy (an allowed one, a name that does not
 * resolve, a host that does not answer, a malformed request), -EINVAL
 * for a line that is not one. */
int wk_decode_proxy(const char *line, struct denial_event *ev, char *reason, size_t cap);

#endif

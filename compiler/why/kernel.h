/* SPDX-License-Identifier: MIT
 * heel-why: one line of heel-observe (the kernel-side observer,
 * runtime/observe) turned into the denial event (runtime/denial.h) the
 * explainer judges. heel-observe saw the kernel's own outcome, so the
 * event carries the errno the call got (source DENIAL_SRC_KERNEL).
 * Never prints. */
#ifndef HEEL_WHY_KERNEL_H
#define HEEL_WHY_KERNEL_H

#include "denial.h"

/* Fills *ev from one line of heel-observe's output (NUL-terminated,
 * without its newline): 1, 0 for a line that is no refusal to judge (the
 * count of lost records, a path the observer could not make absolute),
 * or -EINVAL for a line that is not heel-observe's (version 1). */
int wk_decode(const char *line, struct denial_event *ev);

#endif

/* SPDX-License-Identifier: MIT
 * heel-why: one seccomp user notification turned into the denial events
 * (runtime/denial.h) the explainer judges: which operation, on which
 * path (resolved in the target's own root, as the kernel will resolve
 * it) or address. The target's memory is read with process_vm_readv, and
 * what was read is used only when the notification is still valid
 * afterwards (SECCOMP_IOCTL_NOTIF_ID_VALID: the process may have died
 * and its PID been reused). Linux; never prints. */
#ifndef HEEL_WHY_NOTIFY_H
#define HEEL_WHY_NOTIFY_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "denial.h"

/* A call names at most two paths (rename, link): up to two events. */
#define WN_MAX_EVENTS 2

/* Fills ev[0..n) for notification `n` received on `listener`: returns n
 * (0: nothing to judge: a call on a descriptor, a path that does not
 * exist, an abstract socket), or -errno (-ENOENT: the notification is no
 * longer valid). unresolved[i]: the path could not be walked in the
 * target's root (missing there, or a cover refused the walk) and is the
 * one the call named, made absolute and cleaned of "." and "..": it
 * decides only when a deny of the policy holds it (why_answer.covered),
 * else the kernel's answer is its own (ENOENT). */
int wn_decode(int listener, const struct seccomp_notif *n, struct denial_event ev[WN_MAX_EVENTS],
	      bool unresolved[WN_MAX_EVENTS]);

#endif

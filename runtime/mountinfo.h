/* SPDX-License-Identifier: MIT
 * /proc/self/mountinfo's one quirk, shared by its readers (the cgroup
 * finder, the host diagnosis): paths there escape space, tab, newline and
 * backslash as \ooo (proc(5)). libc only. */
#ifndef HEEL_RUNTIME_MOUNTINFO_H
#define HEEL_RUNTIME_MOUNTINFO_H

/* Undoes the \ooo escapes of one mountinfo field, in place. */
void mountinfo_unescape(char *s);

#endif

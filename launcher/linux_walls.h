/* SPDX-License-Identifier: MIT
 * `heel-exec check` without a policy: which walls this machine gives
 * this user, each probed as a launch would meet it (Landlock, seccomp,
 * each namespace, a /proc of the sandbox's own, a cgroup, BPF), the
 * host facts that decide them, and for each missing wall what raises
 * it. The probes are the launcher's own (linux_probe, hostenv, the
 * cgroup's): they run in heel-exec because what the kernel allows can
 * depend on the program asking (an AppArmor profile attaches to
 * heel-exec, not to heel). `heel doctor` reads this report; its format
 * is stable (heel-exec(1), CHECKING A MACHINE). Linux. */
#ifndef HEEL_LAUNCHER_LINUX_WALLS_H
#define HEEL_LAUNCHER_LINUX_WALLS_H

/* Prints the report to stdout. 0 when every wall a launch by this user
 * can use is available, else 1. */
int linux_walls_report(void);

#endif

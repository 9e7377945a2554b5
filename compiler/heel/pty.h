/* SPDX-License-Identifier: MIT
 * `heel shell`'s terminal of its own: the shell (heel-exec and the
 * sandbox) runs on a new pseudo-terminal whose master heel relays to the
 * user's terminal, so job control and window size work inside, nothing
 * inside holds the user's real terminal, and the terminal's modes are
 * restored however the shell ends. */
#ifndef HEEL_FRONT_PTY_H
#define HEEL_FRONT_PTY_H

/* Runs argv[0] (an absolute path) with argv on a new pty, relaying
 * standard input and output until it exits. Returns its exit status as a
 * shell reports it (128+N for signal N), or -errno before it started. */
int pty_run(char *const argv[]);

#endif

/* SPDX-License-Identifier: MIT
 * Running the sandboxed command: execve with a PATH search of our own
 * (execvpe would fall back to /bin/sh for a file without #! and reads the
 * launcher's PATH, not the sandbox's), and the shell's 126/127 rule for
 * what a failure means. Linux/POSIX, libc only, no allocation: it runs in
 * the child between fork and exec. */
#ifndef HEEL_RUNTIME_EXECPATH_H
#define HEEL_RUNTIME_EXECPATH_H

#include <limits.h>

#define EXECPATH_NOT_EXECUTABLE 126
#define EXECPATH_NOT_FOUND 127

/* Where a failed search stopped, for the message that explains it. */
struct execpath_miss {
	char tried[PATH_MAX]; /* the file whose execve failed ("" when none) */
	char later[PATH_MAX]; /* a later match on PATH, not run in its place
			       * ("" when none) */
};

/* Executes `file`: as given when it holds a '/', else searched in `path`
 * (colon-separated; an empty element is the working directory, as POSIX
 * says; NULL or "" searches nothing). The search runs the first match the
 * host's own search would run, or nothing: a match the host would run
 * and the sandbox may not (EACCES, ENOEXEC, ...) ends it, so that a later
 * program of that name never runs instead, unannounced. Matches the host
 * passes over too are skipped: a directory of that name, a file with no
 * execute bit at all, one in a directory the user may not search (but a
 * protected directory's cover, which hides what the host would find,
 * ends the search). Returns only on failure, with -errno (-ENOENT when
 * nothing matched); `miss` (may be NULL) says where it stopped. */
int execpath_exec(const char *file, char *const argv[], char *const envp[],
		  const char *path, struct execpath_miss *miss);

/* 127 when err (negative or positive errno) means "no such command"
 * (ENOENT, ENOTDIR), else 126: it exists but cannot be run. */
int execpath_status(int err);

#endif

/* SPDX-License-Identifier: MIT
 * Running the sandboxed command: execve with a PATH search of our own
 * (execvpe would fall back to /bin/sh for a file without #! and reads the
 * launcher's PATH, not the sandbox's), and the shell's 126/127 rule for
 * what a failure means. Linux/POSIX, libc only, no allocation: it runs in
 * the child between fork and exec. */
#ifndef HEEL_RUNTIME_EXECPATH_H
#define HEEL_RUNTIME_EXECPATH_H

#define EXECPATH_NOT_EXECUTABLE 126
#define EXECPATH_NOT_FOUND 127

/* Executes `file`: as given when it holds a '/', else searched in `path`
 * (colon-separated; an empty element is the working directory, as POSIX
 * says; NULL or "" searches nothing). Returns only on failure, with
 * -errno: the first "found but cannot run" failure of the search
 * (EACCES, ENOEXEC, ...) if there was one, else -ENOENT. */
int execpath_exec(const char *file, char *const argv[], char *const envp[],
		  const char *path);

/* 127 when err (negative or positive errno) means "no such command"
 * (ENOENT, ENOTDIR), else 126: it exists but cannot be run. */
int execpath_status(int err);

#endif

/* SPDX-License-Identifier: MIT
 * PATH search and execve for the sandboxed command; see execpath.h. */
#include "execpath.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Errors that mean "not here, try the next PATH element", as execvp. */
static int
keep_searching(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ESTALE ||
	       err == ENODEV || err == ETIMEDOUT || err == ENAMETOOLONG;
}

/* One PATH candidate. A failure other than "not here" means the file was
 * found but cannot be run: remember the first such reason and go on, as a
 * later element may hold a runnable file of the same name. EACCES is
 * either: a directory we may not search hides nothing we could run, so
 * it only counts when the file itself is there. */
static void
try_exec(const char *path, char *const argv[], char *const envp[], int *found_err)
{
	struct stat st;
	int err;

	execve(path, argv, envp);
	err = errno;
	if (keep_searching(err) || *found_err)
		return;
	if (err == EACCES && stat(path, &st) < 0)
		return;
	*found_err = err;
}

int
execpath_exec(const char *file, char *const argv[], char *const envp[],
	      const char *path)
{
	char buf[PATH_MAX];
	const char *p, *end;
	size_t flen, dlen;
	int found_err = 0;

	if (file[0] == '\0')
		return -ENOENT;
	if (strchr(file, '/')) {
		execve(file, argv, envp);
		return -errno;
	}
	flen = strlen(file);
	for (p = path; p && *p != '\0'; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		if (dlen == 0) {
			/* POSIX: an empty element is the current directory. */
			buf[0] = '.';
			dlen = 1;
		} else {
			if (dlen >= sizeof(buf))
				continue;
			memcpy(buf, p, dlen);
		}
		if (dlen + 1 + flen + 1 > sizeof(buf))
			continue;
		buf[dlen] = '/';
		memcpy(buf + dlen + 1, file, flen + 1);
		try_exec(buf, argv, envp, &found_err);
		/* "a:" ends with an empty element that the loop would
		 * skip: search it too. */
		if (*end == ':' && end[1] == '\0') {
			memcpy(buf, "./", 2);
			memcpy(buf + 2, file, flen + 1);
			try_exec(buf, argv, envp, &found_err);
			break;
		}
	}
	return found_err ? -found_err : -ENOENT;
}

int
execpath_status(int err)
{
	if (err < 0)
		err = -err;
	if (err == ENOENT || err == ENOTDIR)
		return EXECPATH_NOT_FOUND;
	return EXECPATH_NOT_EXECUTABLE;
}

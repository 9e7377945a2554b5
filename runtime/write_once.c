/* SPDX-License-Identifier: MIT
 * One write to a kernel file; see write_once.h. */
#include "write_once.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int
write_once(const char *path, const char *text)
{
	ssize_t n, len = (ssize_t)strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, text, (size_t)len);
	n = n == len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return (int)n;
}

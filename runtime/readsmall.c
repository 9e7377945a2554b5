/* SPDX-License-Identifier: MIT
 * Reading a small regular file whole (readsmall.h). */
#include "readsmall.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int
rt_read_small(int fd, size_t max, char **out, size_t *len, struct stat *stp)
{
	struct stat st;
	size_t got = 0;
	char *buf = NULL;
	int r = 0;

	*out = NULL;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max)
		r = -EINVAL;
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		r = -ENOMEM;
	if (r < 0) {
		close(fd);
		return r;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		free(buf);
		return -EIO;
	}
	buf[got] = '\0';
	*out = buf;
	if (len)
		*len = got;
	if (stp)
		*stp = st;
	return 0;
}

/* SPDX-License-Identifier: MIT
 * Whole-file reads for heelc's inputs. open(2) of a FIFO without
 * O_NONBLOCK waits for a writer, and read(2) of a FIFO or terminal waits
 * for data: the file type is checked on the opened descriptor (no race
 * with a rename) before a single byte is read. */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact.h"

static int
read_fd(int fd, const struct stat *st, char **out, size_t *outlen)
{
	size_t want = (size_t)st->st_size, len = 0;
	char *buf = malloc(want + 1);

	if (!buf)
		return -ENOMEM;
	/* One byte more than the size said, to see a file that grew. */
	while (len <= want) {
		ssize_t n = read(fd, buf + len, want + 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* The file grew while being read: take what its size said. */
	if (len > want)
		len = want;
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int
rf_read_regular(const char *path, char **out, size_t *len, struct stat *st)
{
	struct stat local;
	int fd, rc;

	if (!st)
		st = &local;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		rc = -errno;
	else if (S_ISDIR(st->st_mode))
		rc = -EISDIR;
	else if (!S_ISREG(st->st_mode))
		rc = -EFTYPE_RF;
	else if ((uintmax_t)st->st_size > RF_MAX_BYTES)
		rc = -EFBIG;
	else
		rc = read_fd(fd, st, out, len);
	close(fd);
	return rc;
}

const char *
rf_strerror(int rc, const struct stat *st)
{
	if (rc != -EFTYPE_RF)
		return strerror(-rc);
	if (!st)
		return "not a regular file";
	switch (st->st_mode & S_IFMT) {
	case S_IFIFO:
		return "not a regular file (a FIFO)";
	case S_IFCHR:
		return "not a regular file (a character device)";
	case S_IFBLK:
		return "not a regular file (a block device)";
	case S_IFSOCK:
		return "not a regular file (a socket)";
	default:
		return "not a regular file";
	}
}

enum rf_content
rf_content_kind(const char *buf, size_t len)
{
	if (len >= ART_MAGIC_LEN && memcmp(buf, ART_MAGIC, ART_MAGIC_LEN) == 0)
		return RF_ARTIFACT;
	return memchr(buf, '\0', len) ? RF_BINARY : RF_TEXT;
}

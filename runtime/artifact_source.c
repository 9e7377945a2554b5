/* SPDX-License-Identifier: MIT
 * Whether the policy source an artifact was compiled from, found beside
 * it, has changed since; see artifact_source.h. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "artifact_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"

int
art_source_path(const char *artifact, const char *name, char *out, size_t outlen)
{
	const char *slash = strrchr(artifact, '/');
	int n;

	/* As the user named the artifact: "p.hpol" gives "p.heel", and
	 * "../q/p.hpol" gives "../q/p.heel". */
	if (slash)
		n = snprintf(out, outlen, "%.*s/%s", (int)(slash - artifact), artifact, name);
	else
		n = snprintf(out, outlen, "%s", name);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

int
art_source_changed(const char *source, const struct art_meta *meta)
{
	uint8_t chunk[16384];
	struct stat st;
	uint64_t left;
	uint32_t crc = 0;
	int fd, rc = 0;

	if (!meta->source_name)
		return -ENOENT;
	/* Opened like the artifact: no final link (one planted beside it
	 * must not make us read another file), no FIFO to hang on, no
	 * terminal to acquire. */
	fd = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out;
	}
	/* A size of its own says enough, without reading a byte; so no more
	 * than the recorded size (at most ART_MAX_SOURCE_SIZE) is read. */
	if ((uint64_t)st.st_size != meta->source_size) {
		rc = 1;
		goto out;
	}
	for (left = meta->source_size; left > 0;) {
		ssize_t n = read(fd, chunk, left < sizeof(chunk) ? (size_t)left : sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0) {
			/* Shorter than fstat said: it is being rewritten. */
			rc = 1;
			goto out;
		}
		crc = crc32c_update(crc, chunk, (size_t)n);
		left -= (uint64_t)n;
	}
	rc = crc != meta->source_crc;
out:
	close(fd);
	return rc;
}

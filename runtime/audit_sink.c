/* SPDX-License-Identifier: MIT
 * The audit sink's files (audit_sink.h): opened once, appended to one
 * line a write. */
#include "audit_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "hostcheck.h"

#define SECONDS_PER_DAY 86400

struct audit_sink {
	enum audit_sink_kind kind;
	int fd;        /* the file, or the day's file; -1 while none is open */
	int dirfd;     /* daily: the directory, O_PATH; -1 for a file sink */
	long long day; /* daily: the open file's day, counted from the epoch */
	bool torn;     /* a short write left a partial line at fd's end */
};

static long long
day_of(time_t sec)
{
	long long s = (long long)sec;

	return s / SECONDS_PER_DAY - (s % SECONDS_PER_DAY < 0);
}

/* Makes the day of sec the open file; on failure the sink keeps what it
 * had, and the next line tries again. */
static int
open_day(struct audit_sink *s, time_t sec)
{
	char name[64];
	struct tm tm;
	int fd;

	if (!gmtime_r(&sec, &tm))
		return -EOVERFLOW;
	snprintf(name, sizeof(name), AUDIT_SINK_DAILY_PREFIX "%04d-%02d-%02d" AUDIT_SINK_DAILY_SUFFIX,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	/* O_NOFOLLOW: whoever else may write to a shared audit directory
	 * must not redirect our lines with a link planted under
	 * tomorrow's name. */
	fd = openat(s->dirfd, name,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return -errno;
	/* Nor a second name for another file (a hard link to ~/.bashrc), a
	 * FIFO, or a file of another user's. */
	if (hc_sink_fd_problem(fd)) {
		close(fd);
		return -EPERM;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = fd;
	s->day = day_of(sec);
	s->torn = false;
	return 0;
}

int
audit_sink_adopt(struct audit_sink **out, enum audit_sink_kind kind, int fd, char *err,
		 size_t errlen)
{
	struct audit_sink *s = malloc(sizeof(*s));
	struct timespec now;
	const char *problem;
	int rc = 0;

	*out = NULL;
	if (!s) {
		close(fd);
		return rt_error(err, errlen, -ENOMEM, "out of memory for the audit sink");
	}
	s->kind = kind;
	s->fd = -1;
	s->dirfd = -1;
	s->day = 0;
	s->torn = false;
	if (kind == AUDIT_SINK_FILE) {
		s->fd = fd;
		if ((problem = hc_sink_fd_problem(fd)))
			rc = rt_error(err, errlen, -EPERM, "the audit file %s", problem);
	} else if (kind == AUDIT_SINK_DAILY) {
		/* O_PATH: the sink only ever opens files beneath the
		 * directory, and this descriptor is what a Landlock rule may
		 * name. Today's file now, while the program may still open
		 * anything: a directory it cannot write to is an error at
		 * start, not a refusal of the first line. */
		s->dirfd = fd;
		clock_gettime(CLOCK_REALTIME, &now);
		rc = open_day(s, now.tv_sec);
		if (rc < 0)
			rc = rt_error(err, errlen, rc, "cannot open today's audit file: %s",
				      rc == -EPERM ? "it is not a file of this user's with one name"
				      : rc == -ELOOP ? "a symbolic link is there"
						     : strerror(-rc));
	} else {
		close(fd);
		rc = rt_error(err, errlen, -EINVAL, "unknown audit sink kind %d", (int)kind);
	}
	if (rc < 0) {
		audit_sink_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int
audit_sink_dir_fd(const struct audit_sink *s)
{
	return s ? s->dirfd : -1;
}

int
audit_sink_append(struct audit_sink *s, time_t when, const char *line, size_t len)
{
	ssize_t w;
	int rc;

	if (s->kind == AUDIT_SINK_DAILY && (s->fd < 0 || day_of(when) != s->day)) {
		rc = open_day(s, when);
		if (rc < 0)
			return rc;
	}
	if (s->torn)
		return -EIO;
	/* One write of the whole line: with O_APPEND the kernel moves to the
	 * end and writes under the file's lock, so lines of other writers
	 * appending to the same file never interleave with ours (write(2),
	 * "O_APPEND"). Not so on NFS, which appends in two steps (open(2),
	 * O_APPEND): a shared sink belongs on a local file system. */
	do
		w = write(s->fd, line, len);
	while (w < 0 && errno == EINTR);
	if (w >= 0 && (size_t)w == len)
		return 0;
	if (w < 0)
		return -errno;
	s->torn = true;
	return -EIO;
}

void
audit_sink_close(struct audit_sink *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s);
}

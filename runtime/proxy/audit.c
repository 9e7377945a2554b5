/* SPDX-License-Identifier: MIT
 * The audit sink: decisions as JSON lines, one write(2) each; see
 * audit.h. */
#include "audit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"

#define SECONDS_PER_DAY 86400

struct proxy_audit {
	enum proxy_audit_kind kind;
	int fd;         /* the file, or the day's file; -1 while none is open */
	int dirfd;      /* daily: the directory, O_PATH; -1 for a file sink */
	long long day;  /* daily: the open file's day, counted from the epoch */
	bool torn;      /* a short write left a partial line at fd's end */
	char line[PROXY_AUDIT_LINE_MAX];
};

/* The length of the well-formed UTF-8 sequence at s (n bytes left), or
 * 0: overlong forms, surrogates and code points past U+10FFFF are not
 * UTF-8 (RFC 3629 section 3), and jansson refuses them. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp, min;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Text the sink can always write: UTF-8 (each stray byte a U+FFFD) and at
 * most PROXY_AUDIT_FIELD_MAX bytes, cut on a character boundary with
 * "..." where it was longer. out holds PROXY_AUDIT_FIELD_MAX + 1. */
static void
clean_text(const char *in, char *out)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const size_t room = PROXY_AUDIT_FIELD_MAX - 3;
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), o = 0, cut = 0;

	while (n) {
		size_t len = utf8_len(s, n);
		const void *piece = len ? (const void *)s : replacement;
		size_t plen = len ? len : 3;

		if (o + plen > PROXY_AUDIT_FIELD_MAX) {
			memcpy(out + cut, "...", 3);
			o = cut + 3;
			break;
		}
		memcpy(out + o, piece, plen);
		o += plen;
		if (o <= room)
			cut = o;
		len = len ? len : 1;
		s += len;
		n -= len;
	}
	out[o] = '\0';
}

int
proxy_audit_format(const struct proxy_decision *d, char *out, size_t cap)
{
	char ts[80], host[PROXY_AUDIT_FIELD_MAX + 1], reason[PROXY_AUDIT_FIELD_MAX + 1],
		method[PROXY_AUDIT_FIELD_MAX + 1];
	struct tm tm;
	json_t *line;
	size_t n;

	if (!d->host || !d->method)
		return -EINVAL;
	/* RFC 3339 has four digits for the year. */
	if (d->when.tv_nsec < 0 || d->when.tv_nsec >= 1000000000L ||
	    !gmtime_r(&d->when.tv_sec, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return -EINVAL;
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(d->when.tv_nsec / 1000000L));
	clean_text(d->host, host);
	clean_text(d->reason ? d->reason : "", reason);
	clean_text(d->method, method);
	line = json_pack("{s:s, s:s, s:i, s:b, s:s, s:s}", "timestamp", ts, "host", host, "port",
			 (int)d->port, "allowed", (int)d->allowed, "reason", reason, "method",
			 method);
	if (!line)
		return -ENOMEM;
	n = json_dumpb(line, out, cap, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(line);
	if (n == 0)
		return -ENOMEM;
	if (n + 2 > cap)
		return -ENOSPC;
	out[n++] = '\n';
	out[n] = '\0';
	return (int)n;
}

static long long
day_of(time_t sec)
{
	long long s = (long long)sec;

	return s / SECONDS_PER_DAY - (s % SECONDS_PER_DAY < 0);
}

/* Makes the day of sec the open file; on failure the sink keeps what it
 * had, and the next record tries again. */
static int
open_day(struct proxy_audit *a, time_t sec)
{
	char name[64];
	struct tm tm;
	int fd;

	if (!gmtime_r(&sec, &tm))
		return -EOVERFLOW;
	snprintf(name, sizeof(name), PROXY_AUDIT_DAILY_PREFIX "%04d-%02d-%02d" PROXY_AUDIT_DAILY_SUFFIX,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	/* O_NOFOLLOW: whoever else may write to a shared audit directory
	 * must not redirect our lines with a link planted under
	 * tomorrow's name. */
	fd = openat(a->dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
		    0600);
	if (fd < 0)
		return -errno;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = fd;
	a->day = day_of(sec);
	a->torn = false;
	return 0;
}

/* Why dir cannot hold the sink's files, or NULL when it is a directory. */
static const char *
not_a_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return "does not exist (heel-proxy creates no directories)";
	return S_ISDIR(st.st_mode) ? NULL : "is not a directory";
}

static int
open_file(struct proxy_audit *a, const char *path, char *err, size_t errlen)
{
	char dir[4096];
	const char *slash;
	int rc;

	a->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
	if (a->fd >= 0)
		return 0;
	rc = -errno;
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if ((rc == -ENOENT || rc == -ENOTDIR) && not_a_dir(dir))
		return rt_error(err, errlen, rc, "the audit file's directory %s %s", dir,
				not_a_dir(dir));
	return rt_error(err, errlen, rc, "cannot open the audit file %s: %s", path, strerror(-rc));
}

static int
open_daily(struct proxy_audit *a, const char *path, char *err, size_t errlen)
{
	struct timespec now;
	int rc;

	/* O_PATH: the sink only ever opens files beneath the directory,
	 * and this descriptor is what the proxy's Landlock rule names. */
	a->dirfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (a->dirfd < 0) {
		rc = -errno;
		if ((rc == -ENOENT || rc == -ENOTDIR) && not_a_dir(path))
			return rt_error(err, errlen, rc, "the audit directory %s %s", path,
					not_a_dir(path));
		return rt_error(err, errlen, rc, "cannot open the audit directory %s: %s", path,
				strerror(-rc));
	}
	/* Today's file now, while the proxy may still open anything: a
	 * directory it cannot write to is an error at start, not a
	 * refusal of the first connection. */
	clock_gettime(CLOCK_REALTIME, &now);
	rc = open_day(a, now.tv_sec);
	if (rc < 0)
		return rt_error(err, errlen, rc, "cannot open today's audit file in %s: %s", path,
				strerror(-rc));
	return 0;
}

int
proxy_audit_open(struct proxy_audit **out, enum proxy_audit_kind kind, const char *path,
		 char *err, size_t errlen)
{
	struct proxy_audit *a = malloc(sizeof(*a));
	int rc;

	*out = NULL;
	if (!a)
		return rt_error(err, errlen, -ENOMEM, "out of memory for the audit sink");
	a->kind = kind;
	a->fd = -1;
	a->dirfd = -1;
	a->day = 0;
	a->torn = false;
	if (kind == PROXY_AUDIT_FILE)
		rc = open_file(a, path, err, errlen);
	else if (kind == PROXY_AUDIT_DAILY)
		rc = open_daily(a, path, err, errlen);
	else
		rc = rt_error(err, errlen, -EINVAL, "unknown audit sink kind %d", (int)kind);
	if (rc < 0) {
		proxy_audit_close(a);
		return rc;
	}
	*out = a;
	return 0;
}

int
proxy_audit_dir_fd(const struct proxy_audit *a)
{
	return a ? a->dirfd : -1;
}

int
proxy_audit_record(struct proxy_audit *a, const struct proxy_decision *d)
{
	ssize_t w;
	int n, rc;

	if (!a)
		return 0;
	n = proxy_audit_format(d, a->line, sizeof(a->line));
	if (n < 0)
		return n;
	if (a->kind == PROXY_AUDIT_DAILY && (a->fd < 0 || day_of(d->when.tv_sec) != a->day)) {
		rc = open_day(a, d->when.tv_sec);
		if (rc < 0)
			return rc;
	}
	if (a->torn)
		return -EIO;
	/* One write of the whole line: with O_APPEND the kernel moves to the
	 * end and writes under the file's lock, so lines of other proxies
	 * appending to the same file never interleave with ours (write(2),
	 * "O_APPEND"). Not so on NFS, which appends in two steps (open(2),
	 * O_APPEND): a shared sink belongs on a local file system. */
	do
		w = write(a->fd, a->line, (size_t)n);
	while (w < 0 && errno == EINTR);
	if (w == n)
		return 0;
	if (w < 0)
		return -errno;
	a->torn = true;
	return -EIO;
}

void
proxy_audit_close(struct proxy_audit *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	if (a->dirfd >= 0)
		close(a->dirfd);
	free(a);
}

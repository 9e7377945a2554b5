/* SPDX-License-Identifier: MIT
 * The proxy's audit lines: decisions as JSON, appended by the shared
 * sink (audit_sink.h); see audit.h. */
#include "audit.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_sink.h"
#include "errmsg.h"

struct proxy_audit {
	struct audit_sink *sink;
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

int
proxy_audit_open(struct proxy_audit **out, enum proxy_audit_kind kind, int fd, char *err,
		 size_t errlen)
{
	struct proxy_audit *a = malloc(sizeof(*a));
	int rc;

	*out = NULL;
	if (!a) {
		close(fd);
		return rt_error(err, errlen, -ENOMEM, "out of memory for the audit sink");
	}
	if (kind != PROXY_AUDIT_FILE && kind != PROXY_AUDIT_DAILY) {
		close(fd);
		rc = rt_error(err, errlen, -EINVAL, "unknown audit sink kind %d", (int)kind);
	} else {
		rc = audit_sink_adopt(&a->sink,
				      kind == PROXY_AUDIT_FILE ? AUDIT_SINK_FILE : AUDIT_SINK_DAILY,
				      fd, err, errlen);
	}
	if (rc < 0) {
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int
proxy_audit_dir_fd(const struct proxy_audit *a)
{
	return a ? audit_sink_dir_fd(a->sink) : -1;
}

int
proxy_audit_record(struct proxy_audit *a, const struct proxy_decision *d)
{
	int n;

	if (!a)
		return 0;
	n = proxy_audit_format(d, a->line, sizeof(a->line));
	if (n < 0)
		return n;
	return audit_sink_append(a->sink, d->when.tv_sec, a->line, (size_t)n);
}

void
proxy_audit_close(struct proxy_audit *a)
{
	if (!a)
		return;
	audit_sink_close(a->sink);
	free(a);
}

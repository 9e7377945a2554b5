/* SPDX-License-Identifier: MIT
 * heel-proxy's audit sink: one JSON line for every decision the proxy
 * makes, appended to one file or to one file a day, each line in a
 * single write(2) so that the proxies of several sandboxes may share a
 * file. A decision that cannot be recorded is a refusal: the caller
 * refuses the connection when proxy_audit_record() fails. Never prints. */
#ifndef HEEL_PROXY_AUDIT_H
#define HEEL_PROXY_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "audit_sink.h"

/* What the proxy decided about one destination. */
struct proxy_decision {
	struct timespec when; /* CLOCK_REALTIME; also picks the daily file */
	const char *host;     /* canonical host text */
	uint16_t port;
	bool allowed;
	const char *reason; /* NULL: "" */
	const char *method; /* "CONNECT", "GET", ..., "SOCKS5" */
};

/* Host, reason and method are cut to this many bytes of text, "..."
 * included where it marks a cut: a client chooses the host it asks for,
 * and every line must fit one buffer of PROXY_AUDIT_LINE_MAX. */
#define PROXY_AUDIT_FIELD_MAX 1024
/* Each byte of text is at most six bytes of JSON (\u00XX), so every
 * line fits: three fields, the timestamp, port, keys and punctuation. */
#define PROXY_AUDIT_LINE_MAX (3 * 6 * PROXY_AUDIT_FIELD_MAX + 256)

/* The line for d, newline included, NUL-terminated, in out:
 *   {"timestamp":"2026-12-01T21:35:00.123Z","host":"example.org",
 *    "port":443,"allowed":true,"reason":"...","method":"CONNECT"}
 * keys in that order, the time in UTC, milliseconds truncated (never
 * rounded up into the next second, or the next day's file). Text is
 * escaped down to ASCII (JSON_ENSURE_ASCII): the host is the client's
 * choice, and a C1 control or a bidirectional override must not reach
 * the terminal of whoever reads the log; bytes that are not UTF-8 become
 * U+FFFD. Returns the length without the NUL, -ENOSPC when cap is too
 * small, -EINVAL for a NULL host or method or a time out of range. */
int proxy_audit_format(const struct proxy_decision *d, char *out, size_t cap);

enum proxy_audit_kind {
	PROXY_AUDIT_FILE,  /* `network audit FILE` */
	PROXY_AUDIT_DAILY, /* `network audit daily DIR` */
};

/* Daily files in the directory: network-audit.YYYY-MM-DD.jsonl, the
 * decision's date in UTC. */
#define PROXY_AUDIT_DAILY_PREFIX AUDIT_SINK_DAILY_PREFIX
#define PROXY_AUDIT_DAILY_SUFFIX AUDIT_SINK_DAILY_SUFFIX

struct proxy_audit;

/* Takes the sink heel-exec opened and checked (audit_sink_adopt), before
 * the proxy confines itself: the file, or the directory of a daily sink
 * (whose today's file is opened now). Takes fd. 0 with *out (caller
 * closes), or -errno with a message in err. */
int proxy_audit_open(struct proxy_audit **out, enum proxy_audit_kind kind, int fd, char *err,
		     size_t errlen);

/* The directory the daily sink opens its files in (an O_PATH descriptor
 * the sink keeps open), or -1 for a file sink. After Landlock, the only
 * open the sink still makes is the next day's file, with openat() on this
 * descriptor: the proxy's ruleset must allow LANDLOCK_ACCESS_FS_MAKE_REG
 * and LANDLOCK_ACCESS_FS_WRITE_FILE beneath it (a path_beneath rule may
 * take this very descriptor as its parent_fd), and nothing at all for a
 * file sink, whose file is open already. */
int proxy_audit_dir_fd(const struct proxy_audit *a);

/* Appends d's line in one write(2): once it returns, the line is in the
 * file for every reader (no buffer of ours holds it; there is no fsync,
 * so a crash of the host may lose the last lines, never mix them). NULL a
 * (no sink): 0. 0, or -errno:
 * the write failed or was short (-EIO; the file may end with a torn line,
 * and this sink's later records to that file fail too, so nothing of ours
 * is glued to it), the day's file could not be opened, or d cannot be
 * formatted. The caller refuses the connection on any error. */
int proxy_audit_record(struct proxy_audit *a, const struct proxy_decision *d);

/* Closes what the sink holds and frees it; NULL is fine. */
void proxy_audit_close(struct proxy_audit *a);

#endif

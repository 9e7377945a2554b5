/* SPDX-License-Identifier: MIT
 * An audit sink: one file, or one file a day in a directory, to which
 * preformatted lines are appended, each in a single write(2) so that the
 * programs of several sandboxes (heel-proxy's decisions, heel-broker's
 * host command calls) may share it. The lines' format is each program's
 * own. Linux, libc only; never prints. */
#ifndef HEEL_RUNTIME_AUDIT_SINK_H
#define HEEL_RUNTIME_AUDIT_SINK_H

#include <stddef.h>
#include <time.h>

enum audit_sink_kind {
	AUDIT_SINK_FILE,  /* `network audit FILE` */
	AUDIT_SINK_DAILY, /* `network audit daily DIR` */
};

/* Daily files in the directory: network-audit.YYYY-MM-DD.jsonl, the
 * line's date in UTC. */
#define AUDIT_SINK_DAILY_PREFIX "network-audit."
#define AUDIT_SINK_DAILY_SUFFIX ".jsonl"

struct audit_sink;

/* Takes the sink heel-exec opened and checked (hostcheck.h,
 * hc_open_append): for AUDIT_SINK_FILE, fd is the file, open for
 * appending; for AUDIT_SINK_DAILY, the directory (O_PATH), in which
 * today's file is opened now. A helper never opens a sink by name: a
 * name is what a sandbox could have redirected. Takes fd (closed on
 * failure too). 0 with *out (caller closes), or -errno with a message in
 * err. */
int audit_sink_adopt(struct audit_sink **out, enum audit_sink_kind kind, int fd, char *err,
		     size_t errlen);

/* The daily sink's directory (O_PATH, kept open: after Landlock the only
 * open the sink makes is the next day's file, with openat() on it), or
 * -1 for a file sink. */
int audit_sink_dir_fd(const struct audit_sink *s);

/* Appends line (len bytes, its newline included) in one write(2), to the
 * file of `when`'s day for a daily sink. 0, or -errno: the day's file
 * could not be opened, or the write failed or was short (-EIO; the file
 * may end with a torn line, and this sink's later lines to that file fail
 * too, so nothing of ours is glued to it). */
int audit_sink_append(struct audit_sink *s, time_t when, const char *line, size_t len);

/* Closes what the sink holds and frees it; NULL is fine. */
void audit_sink_close(struct audit_sink *s);

#endif

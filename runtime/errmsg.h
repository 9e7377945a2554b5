/* SPDX-License-Identifier: MIT
 * How runtime code reports an error: the text for the caller's message
 * buffer and the negative errno, in one return. Library code never prints
 * and never exits: stderr may already be the command's, and only the
 * launcher knows whether a failure ends the launch or is a note. */
#ifndef HEEL_ERRMSG_H
#define HEEL_ERRMSG_H

#include <stddef.h>

/* Formats into err (when err is not NULL and errlen > 0, truncating to
 * fit) and returns rc, so that `return rt_error(err, errlen, -ENOENT,
 * "...")` fails and explains in one statement. */
int rt_error(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

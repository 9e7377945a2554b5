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
/* mingw-w64 (heel-exec.exe): its C99 printf, whose format checks know
 * %zu, is gnu_printf there; plain `printf` would mean msvcrt's. */
#ifdef __MINGW_PRINTF_FORMAT
#define RT_PRINTF_FORMAT __MINGW_PRINTF_FORMAT
#else
#define RT_PRINTF_FORMAT printf
#endif
int rt_error(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(RT_PRINTF_FORMAT, 4, 5)));

/* Where a rule came from, for a message: "FILE:LINE", or FILE alone when
 * line is 0 (a rule `heel run` made from an option, whose origin is the
 * option as written: "--writable ./out"); "" without a file. Returns buf. */
const char *rt_origin(char *buf, size_t len, const char *file, unsigned line);

#endif

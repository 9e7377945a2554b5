/* SPDX-License-Identifier: MIT
 * See errmsg.h. */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int
rt_error(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

const char *
rt_origin(char *buf, size_t len, const char *file, unsigned line)
{
	if (!file)
		snprintf(buf, len, "%s", "");
	else if (!line)
		snprintf(buf, len, "%s", file);
	else
		snprintf(buf, len, "%s:%u", file, line);
	return buf;
}

/* SPDX-License-Identifier: MIT
 * libheel's error reporting: a negative errno value and a message in the
 * caller's heel_error, never a print. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "libheel_int.h"
#include "version.h"

int
lh_fail(heel_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	n = vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	if (n < 0) {
		snprintf(err->message, sizeof(err->message), "%s", strerror(-code));
	} else if ((size_t)n >= sizeof(err->message)) {
		/* Said so, rather than cut mid-word without a sign. */
		memcpy(err->message + sizeof(err->message) - 5, " ...", 5);
	}
	n = (int)strlen(err->message);
	while (n > 0 && err->message[n - 1] == '\n')
		err->message[--n] = '\0';
	return code;
}

void
lh_ok(heel_error *err)
{
	if (err) {
		err->code = 0;
		err->message[0] = '\0';
	}
}

char *
lh_render(const struct diag_ctx *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!diag_count(ctx))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	diag_render(ctx, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return buf;
}

HEEL_API const char *
heel_version(void)
{
	return HEEL_VERSION;
}

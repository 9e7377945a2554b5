/* SPDX-License-Identifier: MIT
 * heel is linked statically against musl (see the Makefile), with
 * Debian's libnettle.a for SHA-256. That archive was built against glibc
 * with _FORTIFY_SOURCE, and its CPU-feature detection (a constructor of
 * the "fat" build) reports through glibc's checked fprintf, which musl
 * does not have. This is that function's contract without the check:
 * the checks guard the format against writable memory (%n), and nettle's
 * formats are literals. Linked into the musl build of heel only. */
#include <stdarg.h>
#include <stdio.h>

int __fprintf_chk(FILE *stream, int flag, const char *fmt, ...);

int
__fprintf_chk(FILE *stream, int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vfprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

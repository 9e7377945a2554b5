/* SPDX-License-Identifier: MIT
 * heel and heel-ipc are linked statically against musl (see the
 * Makefile) with Debian's libnettle.a (heel: SHA-256) and libjansson.a
 * (heel-ipc: its messages). Those archives were built against glibc with
 * _FORTIFY_SOURCE, so they call glibc's checked printf family and strncpy,
 * which musl does not have. These are those functions' contracts without the
 * checks: the checks guard a format against writable memory (%n) and a
 * buffer against its stated size, and both libraries pass literal formats
 * and the true sizes of their buffers. Linked into those musl builds only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

int __fprintf_chk(FILE *stream, int flag, const char *fmt, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap);
char *__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen);

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

int
__vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap)
{
	(void)flag;
	(void)slen;
	return vsnprintf(s, n, fmt, ap);
}

int
__snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __vsnprintf_chk(s, n, flag, slen, fmt, ap);
	va_end(ap);
	return r;
}

char *
__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen)
{
	(void)dstlen;
	return strncpy(dst, src, n);
}

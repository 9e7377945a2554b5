/* SPDX-License-Identifier: MIT
 * UTF-8 <-> UTF-16 for heel-exec.exe: heel's code and artifacts speak
 * UTF-8, the W functions of Windows UTF-16. Invalid input is refused
 * (MB_ERR_INVALID_CHARS), never replaced: a path that changed on the way
 * would be another path. */
#ifdef _WIN32
#include "winexec.h"

#include <stdio.h>
#include <stdlib.h>

wchar_t *
winx_wide(const char *utf8)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = malloc((size_t)n * sizeof(wchar_t));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

char *
winx_utf8(const wchar_t *wide)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return NULL;
	s = malloc((size_t)n);
	if (s && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, -1, s, n, NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	return s;
}

const char *
winx_strerror(DWORD code, char *buf, size_t len)
{
	char msg[256];
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
				 0, msg, sizeof(msg), NULL);

	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	snprintf(buf, len, "%s (error %lu)", n ? msg : "unknown error", (unsigned long)code);
	return buf;
}
#endif

/* SPDX-License-Identifier: MIT
 * heel-exec.exe's fresh working directory (winexec.h): %TEMP%\heel-XXXXXXXX
 * with a "tmp" inside it for the command's TEMP and TMP, made with a
 * protected DACL (nothing inherited from %TEMP%: the user and SYSTEM
 * only, until the run adds the container's own ACEs), removed at exit. */
#ifdef _WIN32
#define _CRT_RAND_S
#include "winexec.h"

#include <errno.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "errmsg.h"

/* "D:P(A;OICI;FA;;;USER)(A;OICI;FA;;;SY)": protected, the user's and
 * SYSTEM's only. */
static int
owner_only(SECURITY_ATTRIBUTES *sa, char *err, size_t errlen)
{
	HANDLE tok = NULL;
	union {
		TOKEN_USER tu;
		char buf[256];
	} u;
	DWORD n = 0;
	wchar_t *sid = NULL, sddl[256];
	PSECURITY_DESCRIPTOR sd = NULL;
	char why[128];

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok) ||
	    !GetTokenInformation(tok, TokenUser, &u, sizeof(u), &n) ||
	    !ConvertSidToStringSidW(u.tu.User.Sid, &sid)) {
		DWORD e = GetLastError();

		if (tok)
			CloseHandle(tok);
		return rt_error(err, errlen, -EIO, "cannot read this user's SID: %s",
				winx_strerror(e, why, sizeof(why)));
	}
	CloseHandle(tok);
	_snwprintf(sddl, 256, L"D:P(A;OICI;FA;;;%ls)(A;OICI;FA;;;SY)", sid);
	sddl[255] = L'\0';
	LocalFree(sid);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
		return rt_error(err, errlen, -EIO, "cannot build the working directory's DACL: %s",
				winx_strerror(GetLastError(), why, sizeof(why)));
	sa->nLength = sizeof(*sa);
	sa->lpSecurityDescriptor = sd;
	sa->bInheritHandle = FALSE;
	return 0;
}

int
winx_fresh_create(struct winx_fresh *f, char *err, size_t errlen)
{
	wchar_t base[MAX_PATH + 1], path[MAX_PATH + 32], tmp[MAX_PATH + 40];
	SECURITY_ATTRIBUTES sa;
	DWORD n = GetTempPathW(MAX_PATH + 1, base);
	char why[128];
	int rc, made = 0;

	memset(f, 0, sizeof(*f));
	if (n == 0 || n > MAX_PATH)
		return rt_error(err, errlen, -EIO, "no temporary directory (GetTempPath): %s",
				winx_strerror(GetLastError(), why, sizeof(why)));
	if ((rc = owner_only(&sa, err, errlen)) < 0)
		return rc;
	/* A name nobody can have taken first: CreateDirectory fails on one
	 * that exists (a directory, a file or a link someone planted), and
	 * the next random name is tried. */
	for (int tries = 0; tries < 16 && !made; tries++) {
		unsigned int r;

		if (rand_s(&r) != 0)
			break;
		_snwprintf(path, MAX_PATH + 32, L"%lsheel-%08x", base, r);
		path[MAX_PATH + 31] = L'\0';
		if (CreateDirectoryW(path, &sa))
			made = 1;
		else if (GetLastError() != ERROR_ALREADY_EXISTS)
			break;
	}
	if (!made) {
		LocalFree(sa.lpSecurityDescriptor);
		return rt_error(err, errlen, -EIO, "cannot make a working directory in %ls: %s",
				base, winx_strerror(GetLastError(), why, sizeof(why)));
	}
	_snwprintf(tmp, MAX_PATH + 40, L"%ls\\tmp", path);
	tmp[MAX_PATH + 39] = L'\0';
	if (!CreateDirectoryW(tmp, &sa)) {
		DWORD e = GetLastError();

		RemoveDirectoryW(path);
		LocalFree(sa.lpSecurityDescriptor);
		return rt_error(err, errlen, -EIO, "cannot make %ls: %s", tmp,
				winx_strerror(e, why, sizeof(why)));
	}
	LocalFree(sa.lpSecurityDescriptor);
	f->wpath = _wcsdup(path);
	f->wtmp = _wcsdup(tmp);
	f->path = winx_utf8(path);
	f->tmp = winx_utf8(tmp);
	if (!f->wpath || !f->wtmp || !f->path || !f->tmp) {
		winx_fresh_remove(f, err, errlen);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Removes dir and what is in it. A reparse point (junction, symbolic
 * link) is removed itself, never followed: the sandbox could have made
 * one pointing anywhere. 0, or the first failure's GetLastError. */
static DWORD
remove_tree(const wchar_t *dir)
{
	size_t len = wcslen(dir);
	wchar_t *pat = malloc((len + 3) * sizeof(wchar_t));
	WIN32_FIND_DATAW fd;
	HANDLE h;
	DWORD first = 0;

	if (!pat)
		return ERROR_NOT_ENOUGH_MEMORY;
	wcscpy(pat, dir);
	wcscat(pat, L"\\*");
	h = FindFirstFileW(pat, &fd);
	free(pat);
	if (h != INVALID_HANDLE_VALUE) {
		do {
			wchar_t *child;
			DWORD e = 0;

			if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
				continue;
			child = malloc((len + wcslen(fd.cFileName) + 2) * sizeof(wchar_t));
			if (!child) {
				first = first ? first : ERROR_NOT_ENOUGH_MEMORY;
				continue;
			}
			wcscpy(child, dir);
			wcscat(child, L"\\");
			wcscat(child, fd.cFileName);
			/* A read-only file cannot be deleted until the flag goes. */
			if (fd.dwFileAttributes & FILE_ATTRIBUTE_READONLY)
				SetFileAttributesW(child,
						   fd.dwFileAttributes & ~FILE_ATTRIBUTE_READONLY);
			if ((fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
			    !(fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
				e = remove_tree(child);
			else if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
				e = RemoveDirectoryW(child) ? 0 : GetLastError();
			else
				e = DeleteFileW(child) ? 0 : GetLastError();
			if (e && !first)
				first = e;
			free(child);
		} while (FindNextFileW(h, &fd));
		FindClose(h);
	}
	if (!RemoveDirectoryW(dir) && !first)
		first = GetLastError();
	return first;
}

int
winx_fresh_remove(struct winx_fresh *f, char *err, size_t errlen)
{
	char why[128];
	DWORD e = f->wpath ? remove_tree(f->wpath) : 0;
	int rc = 0;

	if (e)
		rc = rt_error(err, errlen, -EIO, "cannot remove the working directory %s: %s",
			      f->path ? f->path : "?", winx_strerror(e, why, sizeof(why)));
	free(f->wpath);
	free(f->wtmp);
	free(f->path);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
	return rc;
}
#endif

/* SPDX-License-Identifier: MIT
 * Reading the artifact on Windows: the same promises as the POSIX reader
 * of runtime/artifact_read.c (no link followed, a regular file of a sane
 * size, owned by someone who may decide the sandbox, read once) in
 * Windows terms. The bytes then go through the same art_validate(). */
#ifdef _WIN32
#include "winexec.h"

#include <aclapi.h>
#include <errno.h>
#include <stdlib.h>

#include "artifact.h"
#include "errmsg.h"

/* Whether owner is the user running heel-exec.exe, LocalSystem or the
 * Administrators group: the checksums only catch accidents, so whoever
 * owns the file decides the sandbox. */
static bool
trusted_owner(PSID owner)
{
	HANDLE tok;
	BYTE buf[256];
	DWORD got;
	bool ok = false;
	BYTE sid[SECURITY_MAX_SID_SIZE];
	DWORD sz;

	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) {
		if (GetTokenInformation(tok, TokenUser, buf, sizeof(buf), &got))
			ok = EqualSid(owner, ((TOKEN_USER *)buf)->User.Sid);
		CloseHandle(tok);
	}
	sz = sizeof(sid);
	if (!ok && CreateWellKnownSid(WinLocalSystemSid, NULL, sid, &sz))
		ok = EqualSid(owner, sid);
	sz = sizeof(sid);
	if (!ok && CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, sid, &sz))
		ok = EqualSid(owner, sid);
	return ok;
}

int
winx_read_artifact(const wchar_t *path, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	char name[512], why[300];
	BY_HANDLE_FILE_INFORMATION info;
	PSID owner = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	LARGE_INTEGER size;
	uint8_t *data = NULL;
	size_t got = 0;
	HANDLE h;
	int rc;

	*buf = NULL;
	*len = 0;
	if (!WideCharToMultiByte(CP_UTF8, 0, path, -1, name, sizeof(name), NULL, NULL))
		snprintf(name, sizeof(name), "the artifact");
	/* OPEN_REPARSE_POINT: a link or junction planted in place of the
	 * policy is opened itself, and refused below, never followed.
	 * FILE_SHARE_READ only: nobody writes it while it is read. */
	h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_SEQUENTIAL_SCAN, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return rt_error(err, errlen, -ENOENT, "%s: cannot open: %s", name,
				winx_strerror(GetLastError(), why, sizeof(why)));
	if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
	    (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE))) {
		rc = rt_error(err, errlen, -EINVAL, "%s: not a regular file", name);
		goto out;
	}
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
		rc = rt_error(err, errlen, -ELOOP,
			      "%s: is a link or junction (refused: links are not followed)", name);
		goto out;
	}
	size.LowPart = info.nFileSizeLow;
	size.HighPart = (LONG)info.nFileSizeHigh;
	if (size.QuadPart < ART_MIN_FILE_SIZE || size.QuadPart > (LONGLONG)ART_MAX_FILE_SIZE) {
		rc = rt_error(err, errlen, -EINVAL,
			      "%s: %lld bytes is not the size of an artifact (%d to %u)", name,
			      (long long)size.QuadPart, ART_MIN_FILE_SIZE, ART_MAX_FILE_SIZE);
		goto out;
	}
	if (GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, NULL, NULL, NULL,
			    &sd) != ERROR_SUCCESS ||
	    !owner || !trusted_owner(owner)) {
		rc = rt_error(err, errlen, -EPERM,
			      "%s: owned by neither the invoking user, SYSTEM nor Administrators", name);
		goto out;
	}
	data = malloc((size_t)size.QuadPart);
	if (!data) {
		rc = rt_error(err, errlen, -ENOMEM, "%s: out of memory", name);
		goto out;
	}
	while (got < (size_t)size.QuadPart) {
		DWORD n = 0;

		if (!ReadFile(h, data + got, (DWORD)((size_t)size.QuadPart - got), &n, NULL)) {
			rc = rt_error(err, errlen, -EIO, "%s: read failed: %s", name,
				      winx_strerror(GetLastError(), why, sizeof(why)));
			goto out;
		}
		if (n == 0)
			break;
		got += n;
	}
	if (got != (size_t)size.QuadPart) {
		rc = rt_error(err, errlen, -EIO, "%s: changed size while being read", name);
		goto out;
	}
	*buf = data;
	*len = got;
	data = NULL;
	rc = 0;
out:
	free(data);
	if (sd)
		LocalFree(sd);
	CloseHandle(h);
	return rc;
}
#endif

/* SPDX-License-Identifier: MIT
 * The AppContainer: its functions are looked up at run time, never
 * imported, so that a Windows (or Wine) without them gets a refusal that
 * names what is missing instead of a loader error, or worse, a process
 * started with no container at all. */
#ifdef _WIN32
#include "winexec.h"

#include <errno.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "errmsg.h"

typedef HRESULT(WINAPI *create_profile_fn)(PCWSTR, PCWSTR, PCWSTR, PSID_AND_ATTRIBUTES, DWORD,
					   PSID *);
typedef HRESULT(WINAPI *derive_sid_fn)(PCWSTR, PSID *);
typedef HRESULT(WINAPI *folder_path_fn)(PCWSTR, PWSTR *);
typedef BOOL(WINAPI *derive_caps_fn)(LPCWSTR, PSID **, DWORD *, PSID **, DWORD *);

static create_profile_fn create_profile;
static derive_sid_fn derive_sid;
static folder_path_fn folder_path;
static derive_caps_fn derive_caps;

static FARPROC
lookup(HMODULE dll, const char *name)
{
	return dll ? GetProcAddress(dll, name) : NULL;
}

int
winx_container_load(const struct win_manifest *m, char *err, size_t errlen)
{
	/* System32 only: a userenv.dll beside the command or in the current
	 * directory must not stand in for Windows' own. */
	HMODULE userenv = LoadLibraryExW(L"userenv.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	HMODULE kernelbase = LoadLibraryExW(L"kernelbase.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	static const char *const names[] = {"CreateAppContainerProfile",
					    "DeriveAppContainerSidFromAppContainerName",
					    "GetAppContainerFolderPath"};
	FARPROC f[3];

	for (int i = 0; i < 3; i++) {
		f[i] = lookup(userenv, names[i]);
		if (!f[i])
			return rt_error(err, errlen, -ENOSYS,
					"this system has no AppContainers (userenv.dll lacks %s; Windows 8 "
					"or later has it, Wine does not): the command is not run without "
					"its sandbox",
					names[i]);
	}
	create_profile = (create_profile_fn)(void (*)(void))f[0];
	derive_sid = (derive_sid_fn)(void (*)(void))f[1];
	folder_path = (folder_path_fn)(void (*)(void))f[2];
	for (size_t i = 0; i < m->ncapabilities; i++) {
		if (strncmp(m->capabilities[i], "S-1-15-3-", 9) == 0)
			continue;
		/* A named capability: only Windows knows its SID for sure. */
		derive_caps = (derive_caps_fn)(void (*)(void))lookup(kernelbase,
								     "DeriveCapabilitySidsFromName");
		if (!derive_caps)
			return rt_error(err, errlen, -ENOSYS,
					"capability \"%s\": kernelbase.dll lacks DeriveCapabilitySidsFromName "
					"(Windows 10 has it)",
					m->capabilities[i]);
		break;
	}
	return 0;
}

static int
sid_string(PSID sid, char *out, size_t len)
{
	LPWSTR w = NULL;
	char *s;
	int rc = -EINVAL;

	if (!ConvertSidToStringSidW(sid, &w))
		return -EINVAL;
	s = winx_utf8(w);
	if (s && strlen(s) < len) {
		memcpy(out, s, strlen(s) + 1);
		rc = 0;
	}
	free(s);
	LocalFree(w);
	return rc;
}

static int
capabilities(const struct win_manifest *m, struct winx_container *c, char *err, size_t errlen)
{
	char why[300];

	c->caps = calloc(m->ncapabilities ? m->ncapabilities : 1, sizeof(*c->caps));
	if (!c->caps)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < m->ncapabilities; i++) {
		wchar_t *w = winx_wide(m->capabilities[i]);
		PSID sid = NULL;

		if (!w)
			return rt_error(err, errlen, -ENOMEM, "out of memory");
		if (strncmp(m->capabilities[i], "S-1-15-3-", 9) == 0) {
			/* Not CreateWellKnownSid: it fails for these on some
			 * systems (Wine 8: error 87), the string form does not. */
			if (!ConvertStringSidToSidW(w, &sid)) {
				free(w);
				return rt_error(err, errlen, -EINVAL, "capability %s: %s",
						m->capabilities[i],
						winx_strerror(GetLastError(), why, sizeof(why)));
			}
		} else {
			PSID *groups = NULL, *sids = NULL;
			DWORD ngroups = 0, nsids = 0;

			if (!derive_caps(w, &groups, &ngroups, &sids, &nsids) || nsids < 1) {
				free(w);
				return rt_error(err, errlen, -EINVAL, "capability \"%s\": %s",
						m->capabilities[i],
						winx_strerror(GetLastError(), why, sizeof(why)));
			}
			sid = sids[0];
			/* The rest is Windows' to free with LocalFree; kept
			 * until exit, like the process that uses them. */
		}
		free(w);
		c->caps[c->ncaps].Sid = sid;
		c->caps[c->ncaps].Attributes = SE_GROUP_ENABLED;
		c->ncaps++;
	}
	return 0;
}

int
winx_container_prepare(const struct win_manifest *m, struct winx_container *c, char *err,
		       size_t errlen)
{
	wchar_t *name = winx_wide(m->name), *sidw = NULL;
	PWSTR folder = NULL;
	char got[WIN_SID_MAX] = "?";
	HRESULT hr;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!name)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	hr = create_profile(name, name, L"heel sandbox", NULL, 0, &c->sid);
	if (hr == HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS))
		hr = derive_sid(name, &c->sid);
	free(name);
	if (FAILED(hr))
		return rt_error(err, errlen, -EIO, "AppContainer profile %s: HRESULT 0x%08lx", m->name,
				(unsigned long)hr);
	/* heelc computed the SID from the name; Windows must agree, or the
	 * ACEs the manifest lists would be for another principal. */
	if (sid_string(c->sid, got, sizeof(got)) < 0 || strcmp(got, m->sid) != 0)
		return rt_error(err, errlen, -EINVAL,
				"AppContainer %s: Windows derives SID %s, the artifact says %s; refusing",
				m->name, got, m->sid);
	if ((rc = capabilities(m, c, err, errlen)) < 0)
		return rc;
	sidw = winx_wide(m->sid);
	if (!sidw)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	hr = folder_path(sidw, &folder);
	free(sidw);
	if (FAILED(hr) || !folder)
		return rt_error(err, errlen, -EIO, "AppContainer %s: no folder (HRESULT 0x%08lx)",
				m->name, (unsigned long)hr);
	/* Windows points the container's TEMP at AC\Temp but does not make
	 * it. The folder string is CoTaskMem's; it is left to process exit
	 * rather than linking ole32 for one free. */
	c->temp = malloc((wcslen(folder) + 6) * sizeof(wchar_t));
	if (!c->temp)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	wcscpy(c->temp, folder);
	wcscat(c->temp, L"\\Temp");
	if (!CreateDirectoryW(c->temp, NULL) && GetLastError() != ERROR_ALREADY_EXISTS) {
		char why[300];

		return rt_error(err, errlen, -EIO, "AppContainer %s: cannot make AC\\Temp: %s", m->name,
				winx_strerror(GetLastError(), why, sizeof(why)));
	}
	return 0;
}

void
winx_container_free(struct winx_container *c)
{
	if (c->sid)
		FreeSid(c->sid);
	free(c->temp);
	free(c->caps);
	memset(c, 0, sizeof(*c));
}
#endif

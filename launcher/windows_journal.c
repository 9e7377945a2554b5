/* SPDX-License-Identifier: MIT
 * The journal files (format: runtime/win_journal.h) in
 * %LOCALAPPDATA%\heel\journal, one per run, and `--recover`. The
 * directory's DACL is protected and names only the user (as owner),
 * SYSTEM and Administrators: a policy that grants %LOCALAPPDATA% must not
 * hand the sandbox the record of what to undo. */
#ifdef _WIN32
#include "winexec.h"

#include <errno.h>
#include <ntsecapi.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "errmsg.h"

int
winx_journal_dir(wchar_t **dir, char *err, size_t errlen)
{
	wchar_t base[WIN_PATH_MAX], *d;
	SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, FALSE};
	DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", base, WIN_PATH_MAX);
	char why[300];

	*dir = NULL;
	if (n == 0 || n >= WIN_PATH_MAX - 32)
		return rt_error(err, errlen, -ENOENT, "LOCALAPPDATA is not set: nowhere to keep the journal");
	d = malloc((wcslen(base) + 32) * sizeof(wchar_t));
	if (!d)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	wcscpy(d, base);
	wcscat(d, L"\\heel");
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		L"D:P(A;OICI;FA;;;OW)(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", SDDL_REVISION_1,
		&sa.lpSecurityDescriptor, NULL)) {
		free(d);
		return rt_error(err, errlen, -EIO, "journal directory: %s",
				winx_strerror(GetLastError(), why, sizeof(why)));
	}
	for (int step = 0; step < 2; step++) {
		if (step == 1)
			wcscat(d, L"\\journal");
		if (!CreateDirectoryW(d, &sa) && GetLastError() != ERROR_ALREADY_EXISTS) {
			LocalFree(sa.lpSecurityDescriptor);
			free(d);
			return rt_error(err, errlen, -EIO, "cannot make the journal directory: %s",
					winx_strerror(GetLastError(), why, sizeof(why)));
		}
	}
	LocalFree(sa.lpSecurityDescriptor);
	*dir = d;
	return 0;
}

uint64_t
winx_self_created(void)
{
	FILETIME c, e, k, u;

	if (!GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u))
		return 0;
	return (uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime;
}

bool
winx_process_alive(uint32_t pid, uint64_t created)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	FILETIME c, e, k, u;
	DWORD code;
	bool alive;

	if (!h)
		/* No such process, or one we may not look at: only the first
		 * is proof of death; a live run is never reverted under it. */
		return GetLastError() != ERROR_INVALID_PARAMETER;
	/* A PID is reused: the creation time tells the launcher from a
	 * stranger that got its number. */
	alive = GetProcessTimes(h, &c, &e, &k, &u) &&
		((uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime) == created &&
		GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	CloseHandle(h);
	return alive;
}

int
winx_lock(struct winx_run *r, const char *sid, char *err, size_t errlen)
{
	wchar_t name[WIN_SID_MAX + 32], *wsid = winx_wide(sid);
	char why[300];
	DWORD w;

	if (!wsid || wcslen(wsid) >= WIN_SID_MAX) {
		free(wsid);
		return rt_error(err, errlen, -EINVAL, "%s: not a SID", sid);
	}
	/* Local\: this session's namespace, where a container cannot make
	 * objects (its own live under AppContainerNamedObjects\<SID>). */
	wcscpy(name, L"Local\\heel-exec.");
	wcscat(name, wsid);
	free(wsid);
	r->mutex = CreateMutexW(NULL, FALSE, name);
	if (!r->mutex)
		return rt_error(err, errlen, -EIO, "cannot create the lock of %s: %s", sid,
				winx_strerror(GetLastError(), why, sizeof(why)));
	/* Abandoned: its holder died mid-edit; its journal says what to
	 * undo, and the lock is ours now. */
	w = WaitForSingleObject(r->mutex, 120000);
	if (w != WAIT_OBJECT_0 && w != WAIT_ABANDONED) {
		CloseHandle(r->mutex);
		r->mutex = NULL;
		return rt_error(err, errlen, -ETIMEDOUT,
				"another heel-exec.exe of this policy has held its lock for 2 minutes");
	}
	return 0;
}

void
winx_unlock(struct winx_run *r)
{
	if (r->mutex) {
		ReleaseMutex(r->mutex);
		CloseHandle(r->mutex);
		r->mutex = NULL;
	}
}

int
winx_journal_append(struct winx_run *r, const char *line, char *err, size_t errlen)
{
	DWORD n = 0, len = (DWORD)strlen(line);
	char why[300];

	/* Write-ahead means on disk before the change it announces. */
	if (!WriteFile(r->file, line, len, &n, NULL) || n != len || !FlushFileBuffers(r->file))
		return rt_error(err, errlen, -EIO, "cannot write the journal: %s",
				winx_strerror(GetLastError(), why, sizeof(why)));
	return 0;
}

int
winx_journal_begin(struct winx_run *r, const struct win_manifest *m, char *err, size_t errlen)
{
	unsigned char rnd[WIN_JOURNAL_RUNID_LEN / 2];
	wchar_t *dir;
	char line[1024];
	int rc;

	memset(&r->j, 0, sizeof(r->j));
	if (!RtlGenRandom(rnd, sizeof(rnd)))
		return rt_error(err, errlen, -EIO, "no random run id");
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(r->j.run_id + 2 * i, 3, "%02x", rnd[i]);
	r->j.pid = (uint32_t)GetCurrentProcessId();
	r->j.created = winx_self_created();
	snprintf(r->j.sid, sizeof(r->j.sid), "%s", m->sid);
	snprintf(r->j.name, sizeof(r->j.name), "%s", m->name);
	if ((rc = winx_journal_dir(&dir, err, errlen)) < 0)
		return rc;
	r->path = malloc((wcslen(dir) + WIN_JOURNAL_RUNID_LEN + 16) * sizeof(wchar_t));
	if (!r->path) {
		free(dir);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	wcscpy(r->path, dir);
	wcscat(r->path, L"\\");
	for (size_t i = 0; i < WIN_JOURNAL_RUNID_LEN; i++)
		wcsncat(r->path, (wchar_t[]){(wchar_t)r->j.run_id[i], 0}, 1);
	wcscat(r->path, L".journal");
	free(dir);
	r->file = CreateFileW(r->path, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW,
			      FILE_ATTRIBUTE_NORMAL, NULL);
	if (r->file == INVALID_HANDLE_VALUE) {
		char why[300];

		return rt_error(err, errlen, -EIO, "cannot create the journal: %s",
				winx_strerror(GetLastError(), why, sizeof(why)));
	}
	if ((rc = win_journal_line_header(line, sizeof(line))) < 0 ||
	    (rc = winx_journal_append(r, line, err, errlen)) < 0)
		return rc < 0 && err && !*err ? rt_error(err, errlen, rc, "journal header") : rc;
	if ((rc = win_journal_line_run(line, sizeof(line), &r->j)) < 0)
		return rt_error(err, errlen, rc, "journal: the run line does not fit");
	return winx_journal_append(r, line, err, errlen);
}

void
winx_journal_end(struct winx_run *r)
{
	bool done = true;

	for (size_t i = 0; i < r->j.n; i++)
		done = done && r->j.entries[i].status == WIN_J_REVERTED;
	if (r->file && r->file != INVALID_HANDLE_VALUE)
		CloseHandle(r->file);
	r->file = NULL;
	/* What is not reverted stays on record for --recover. */
	if (done && r->path)
		DeleteFileW(r->path);
	free(r->path);
	r->path = NULL;
	win_journal_free(&r->j);
}

/* ------------------------------------------------------------ reading */

static int
read_journal(const wchar_t *path, struct win_journal *j, char *err, size_t errlen)
{
	HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			       NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	LARGE_INTEGER size;
	char *buf;
	DWORD n = 0;
	int rc;

	memset(j, 0, sizeof(*j));
	if (h == INVALID_HANDLE_VALUE)
		return rt_error(err, errlen, -ENOENT, "cannot open");
	if (!GetFileSizeEx(h, &size) || size.QuadPart > (1 << 24)) {
		CloseHandle(h);
		return rt_error(err, errlen, -EFBIG, "too large to be a journal");
	}
	buf = malloc((size_t)size.QuadPart + 1);
	if (!buf || !ReadFile(h, buf, (DWORD)size.QuadPart, &n, NULL)) {
		free(buf);
		CloseHandle(h);
		return rt_error(err, errlen, -EIO, "cannot read");
	}
	CloseHandle(h);
	rc = win_journal_parse(buf, n, j, err, errlen);
	free(buf);
	return rc;
}

/* Calls fn for each journal in the directory. */
static int
each_journal(int (*fn)(void *ctx, const wchar_t *path, const char *name), void *ctx, char *err,
	     size_t errlen)
{
	wchar_t *dir, *pattern, *path;
	WIN32_FIND_DATAW fd;
	HANDLE f;
	int rc;

	if ((rc = winx_journal_dir(&dir, err, errlen)) < 0)
		return rc;
	pattern = malloc((wcslen(dir) + 16) * sizeof(wchar_t));
	path = malloc((wcslen(dir) + MAX_PATH + 2) * sizeof(wchar_t));
	if (!pattern || !path) {
		free(dir);
		free(pattern);
		free(path);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	wcscpy(pattern, dir);
	wcscat(pattern, L"\\*.journal");
	f = FindFirstFileW(pattern, &fd);
	if (f != INVALID_HANDLE_VALUE) {
		do {
			char *name = winx_utf8(fd.cFileName);

			if (fd.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) {
				free(name);
				continue;
			}
			wcscpy(path, dir);
			wcscat(path, L"\\");
			wcscat(path, fd.cFileName);
			rc = fn(ctx, path, name ? name : "?");
			free(name);
		} while (rc == 0 && FindNextFileW(f, &fd));
		FindClose(f);
	}
	free(dir);
	free(pattern);
	free(path);
	return rc;
}

struct live_ctx {
	const struct winx_run *self;
	struct win_journal **runs;
	size_t n;
};

static int
collect_live(void *ctx, const wchar_t *path, const char *name)
{
	struct live_ctx *c = ctx;
	struct win_journal *j = malloc(sizeof(*j)), **grown;
	char why[256];

	if (!j)
		return -ENOMEM;
	/* A journal that cannot be read holds nothing heel can count on:
	 * --recover reports it. */
	if (read_journal(path, j, why, sizeof(why)) < 0 ||
	    (c->self && strcmp(j->run_id, c->self->j.run_id) == 0) || !winx_process_alive(j->pid, j->created)) {
		win_journal_free(j);
		free(j);
		return 0;
	}
	grown = realloc(c->runs, (c->n + 1) * sizeof(*grown));
	if (!grown) {
		win_journal_free(j);
		free(j);
		return -ENOMEM;
	}
	c->runs = grown;
	c->runs[c->n++] = j;
	return 0;
}

void
winx_journal_list_free(struct win_journal **runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		win_journal_free(runs[i]);
		free(runs[i]);
	}
	free(runs);
}

int
winx_journal_live(const struct winx_run *r, struct win_journal ***runs, size_t *n, char *err,
		  size_t errlen)
{
	struct live_ctx c = {r, NULL, 0};
	int rc = each_journal(collect_live, &c, err, errlen);

	if (rc == -ENOMEM)
		rt_error(err, errlen, rc, "out of memory");
	if (rc < 0) {
		winx_journal_list_free(c.runs, c.n);
		return rc;
	}
	*runs = c.runs;
	*n = c.n;
	return 0;
}

/* ------------------------------------------------------------ --recover */

struct recover_ctx {
	FILE *log;
	size_t runs, reverted, failed;
};

static int
recover_one(void *ctx, const wchar_t *path, const char *name)
{
	struct recover_ctx *c = ctx;
	struct winx_run lock = {0};
	struct win_journal j, **live = NULL;
	size_t nlive = 0, *idx, k, failed = 0;
	char why[512];

	if (read_journal(path, &j, why, sizeof(why)) < 0) {
		fprintf(c->log, "heel-exec: journal %s: %s; left in place, revert by hand\n", name, why);
		c->failed++;
		win_journal_free(&j);
		return 0;
	}
	if (winx_process_alive(j.pid, j.created)) {
		win_journal_free(&j);
		return 0;
	}
	if (winx_lock(&lock, j.sid, why, sizeof(why)) < 0) {
		fprintf(c->log, "heel-exec: journal %s: %s\n", name, why);
		c->failed++;
		win_journal_free(&j);
		return 0;
	}
	idx = malloc((j.n ? j.n : 1) * sizeof(*idx));
	if (!idx || winx_journal_live(NULL, &live, &nlive, why, sizeof(why)) < 0) {
		free(idx);
		winx_unlock(&lock);
		win_journal_free(&j);
		return -ENOMEM;
	}
	k = win_journal_replay(&j, idx);
	for (size_t i = 0; i < k; i++) {
		const struct win_jentry *e = &j.entries[idx[i]];
		int rc;

		if (win_journal_holders((const struct win_journal *const *)live, nlive, &j, j.sid, e->path,
					NULL)) {
			fprintf(c->log, "heel-exec: %s: still held by a running sandbox of %s; left to it\n",
				e->path, j.name);
			continue;
		}
		rc = winx_acl_revert_entry(j.sid, e, why, sizeof(why));
		if (rc < 0) {
			fprintf(c->log, "heel-exec: %s: %s\n", e->path, why);
			failed++;
		} else if (rc == 1) {
			fprintf(c->log, "heel-exec: %s: gone or replaced since run %s; nothing to revert\n",
				e->path, j.run_id);
		} else {
			fprintf(c->log, "heel-exec: %s: reverted (run %s of %s, pid %lu)\n", e->path, j.run_id,
				j.name, (unsigned long)j.pid);
			c->reverted++;
		}
	}
	c->runs++;
	if (failed == 0)
		DeleteFileW(path);
	c->failed += failed;
	free(idx);
	winx_journal_list_free(live, nlive);
	winx_unlock(&lock);
	win_journal_free(&j);
	return 0;
}

int
winx_recover(size_t *runs, size_t *reverted, FILE *log, char *err, size_t errlen)
{
	struct recover_ctx c = {log, 0, 0, 0};
	int rc = each_journal(recover_one, &c, err, errlen);

	*runs = c.runs;
	*reverted = c.reverted;
	if (rc < 0)
		return rc == -ENOMEM ? rt_error(err, errlen, rc, "out of memory") : rc;
	if (c.failed)
		return rt_error(err, errlen, -EIO, "%zu journal entr%s could not be reverted (see above)",
				c.failed, c.failed == 1 ? "y" : "ies");
	return 0;
}
#endif

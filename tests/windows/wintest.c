/* SPDX-License-Identifier: MIT
 * Test-only helper for tests/windows/smoke.sh (built by mingw, never
 * shipped): runs heel-exec.exe's own job and journal code where Wine can
 * show what it does.
 *
 *   wintest job [nokill]     a child that starts a grandchild, both in a
 *                            job made by winx_job_create; closes the job
 *                            handle and checks that both are gone (nokill:
 *                            a job without KILL_ON_JOB_CLOSE, the control:
 *                            both must survive)
 *   wintest fresh            heel-exec.exe's fresh working directory: made
 *                            in %TEMP% with tmp inside, removed with what
 *                            was left in it
 *   wintest journal-dead SID PATH...  writes a journal of a run that has
 *                            died (a finished child's PID and creation
 *                            time) with an applied entry per PATH; prints
 *                            the journal's path
 *   wintest journal-live SID PATH     the same for this live process,
 *                            then runs `HEEL-EXEC --recover` (argv after
 *                            PATH) and checks the journal is still there
 * Exit 0 when the check holds, 1 when it does not, 2 on a setup error. */
#ifdef _WIN32
#include "winexec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int wmain(int argc, wchar_t **argv);

static wchar_t self[MAX_PATH];

static HANDLE
start(const wchar_t *args, HANDLE job, bool suspended, DWORD *pid)
{
	wchar_t line[2 * MAX_PATH];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	swprintf(line, sizeof(line) / sizeof(line[0]), L"\"%ls\" %ls", self, args);
	if (!CreateProcessW(self, line, NULL, NULL, FALSE, suspended ? CREATE_SUSPENDED : 0, NULL, NULL,
			    &si, &pi))
		return NULL;
	if (job && !AssignProcessToJobObject(job, pi.hProcess)) {
		TerminateProcess(pi.hProcess, 2);
		return NULL;
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	if (pid)
		*pid = pi.dwProcessId;
	return pi.hProcess;
}

static bool
gone(HANDLE h, DWORD ms)
{
	return WaitForSingleObject(h, ms) == WAIT_OBJECT_0;
}

static int
job_test(bool kill)
{
	char err[256];
	HANDLE job, child, grandchild = NULL;
	wchar_t tmp[MAX_PATH], file[MAX_PATH], args[MAX_PATH + 16];
	DWORD gpid = 0;
	int rc;

	if (kill) {
		job = winx_job_create(NULL, err, sizeof(err));
	} else {
		/* The control: the same job without KILL_ON_JOB_CLOSE. */
		job = CreateJobObjectW(NULL, NULL);
	}
	if (!job) {
		fprintf(stderr, "wintest: %s\n", err);
		return 2;
	}
	GetTempPathW(MAX_PATH, tmp);
	GetTempFileNameW(tmp, L"hj", 0, file);
	swprintf(args, sizeof(args) / sizeof(args[0]), L"child \"%ls\"", file);
	child = start(args, job, true, NULL);
	if (!child) {
		fprintf(stderr, "wintest: cannot start the child\n");
		return 2;
	}
	/* The child writes its grandchild's PID once that runs. */
	for (int i = 0; i < 200 && !gpid; i++) {
		FILE *f = _wfopen(file, L"r");
		unsigned long v = 0;

		if (f && fscanf(f, "%lu", &v) == 1)
			gpid = (DWORD)v;
		if (f)
			fclose(f);
		if (!gpid)
			Sleep(50);
	}
	DeleteFileW(file);
	if (gpid)
		grandchild = OpenProcess(SYNCHRONIZE | PROCESS_TERMINATE, FALSE, gpid);
	if (!grandchild) {
		fprintf(stderr, "wintest: no grandchild\n");
		TerminateJobObject(job, 2);
		return 2;
	}
	if (gone(child, 0) || gone(grandchild, 0)) {
		fprintf(stderr, "wintest: child or grandchild ended early\n");
		return 2;
	}
	CloseHandle(job);
	rc = gone(child, 5000) && gone(grandchild, 5000) ? 0 : 1;
	printf("job %s: child %s, grandchild %s\n", kill ? "kill-on-close" : "without kill-on-close",
	       gone(child, 0) ? "gone" : "running", gone(grandchild, 0) ? "gone" : "running");
	if (!kill) {
		/* The control passes when both are still there. */
		rc = rc == 0 ? 1 : 0;
		TerminateProcess(child, 0);
		TerminateProcess(grandchild, 0);
	}
	return rc;
}

static int
child(const wchar_t *file)
{
	DWORD pid = 0;
	HANDLE g = start(L"grandchild", NULL, false, &pid);
	FILE *f;

	if (!g)
		return 2;
	f = _wfopen(file, L"w");
	if (!f)
		return 2;
	fprintf(f, "%lu\n", (unsigned long)pid);
	fclose(f);
	Sleep(60000);
	return 0;
}

/* Writes a journal for (pid, created) with one applied entry per path. */
static int
write_journal(const char *sid, uint32_t pid, uint64_t created, wchar_t **paths, int n,
	      wchar_t *out, size_t outlen)
{
	struct win_manifest m = {.name = "heel.p.00000000deadbeef", .sid = sid};
	struct winx_run r = {0};
	char err[512], line[4096];

	if (winx_journal_begin(&r, &m, err, sizeof(err)) < 0) {
		fprintf(stderr, "wintest: %s\n", err);
		return 2;
	}
	/* The run line says who ran: rewrite it for the process given. */
	r.j.pid = pid;
	r.j.created = created;
	SetFilePointer(r.file, 0, NULL, FILE_BEGIN);
	SetEndOfFile(r.file);
	win_journal_line_header(line, sizeof(line));
	winx_journal_append(&r, line, NULL, 0);
	win_journal_line_run(line, sizeof(line), &r.j);
	winx_journal_append(&r, line, NULL, 0);
	for (int i = 0; i < n; i++) {
		char *p = winx_utf8(paths[i]), final[WIN_PATH_MAX], id[80], aces[512];
		bool is_dir;
		struct win_jentry e;

		if (!p || winx_identify(p, final, sizeof(final), id, sizeof(id), &is_dir, err, sizeof(err)) < 0) {
			fprintf(stderr, "wintest: %s\n", err);
			return 2;
		}
		snprintf(aces, sizeof(aces), "D:(A;OICI;0x1200a9;;;%s)", sid);
		e = (struct win_jentry){final, id, false, "-", aces, WIN_J_PENDING};
		win_journal_line_pending(line, sizeof(line), (size_t)i, &e);
		winx_journal_append(&r, line, NULL, 0);
		win_journal_line_status(line, sizeof(line), (size_t)i, WIN_J_APPLIED);
		winx_journal_append(&r, line, NULL, 0);
		free(p);
	}
	CloseHandle(r.file);
	wcsncpy(out, r.path, outlen - 1);
	out[outlen - 1] = 0;
	free(r.path);
	win_journal_free(&r.j);
	return 0;
}

static int
journal_dead(wchar_t **argv, int argc)
{
	char *sid = winx_utf8(argv[0]);
	wchar_t path[WIN_PATH_MAX];
	FILETIME c, e, k, u;
	DWORD pid = 0;
	HANDLE h = start(L"exit", NULL, false, &pid);
	int rc;

	if (!h || !gone(h, 10000) || !GetProcessTimes(h, &c, &e, &k, &u))
		return 2;
	/* Kept open, its PID could not be reused; closed, the run is dead
	 * either way (the creation time would not match). */
	CloseHandle(h);
	rc = write_journal(sid, pid, (uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime, argv + 1,
			   argc - 1, path, WIN_PATH_MAX);
	if (rc == 0)
		printf("%ls\n", path);
	free(sid);
	return rc;
}

static int
journal_live(wchar_t **argv, int argc)
{
	char *sid = winx_utf8(argv[0]);
	wchar_t path[WIN_PATH_MAX], line[WIN_PATH_MAX * 2] = L"";
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	int rc;

	if (argc < 3)
		return 2;
	rc = write_journal(sid, GetCurrentProcessId(), winx_self_created(), argv + 1, 1, path,
			   WIN_PATH_MAX);
	free(sid);
	if (rc)
		return rc;
	for (int i = 2; i < argc; i++) {
		wcscat(line, L"\"");
		wcscat(line, argv[i]);
		wcscat(line, L"\" ");
	}
	if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return 2;
	WaitForSingleObject(pi.hProcess, 30000);
	rc = GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES ? 0 : 1;
	printf("live run's journal %s\n", rc == 0 ? "left in place" : "removed");
	DeleteFileW(path);
	return rc;
}

/* wintest fresh: heel-exec.exe's fresh working directory, made and
 * removed by its own code (windows_fresh.c): named heel-XXXXXXXX in
 * %TEMP%, with "tmp" inside; what a command leaves there (a file, a
 * read-only file, a nested directory) goes with it; two are never one.
 * Prints the directory's path. */
static int
fresh_test(void)
{
	struct winx_fresh a, b;
	wchar_t base[MAX_PATH + 1], file[MAX_PATH + 64], keep[MAX_PATH + 32];
	char err[512];
	HANDLE h;
	DWORD n = GetTempPathW(MAX_PATH + 1, base);

	if (winx_fresh_create(&a, err, sizeof(err)) < 0) {
		fprintf(stderr, "wintest: %s\n", err);
		return 2;
	}
	printf("fresh %s tmp %s\n", a.path, a.tmp);
	if (n == 0 || wcsncmp(a.wpath, base, n) != 0 || wcsncmp(a.wpath + n, L"heel-", 5) != 0 ||
	    wcslen(a.wpath + n) != 13) {
		fprintf(stderr, "wintest: not %%TEMP%%\\heel-XXXXXXXX\n");
		return 1;
	}
	if (!(GetFileAttributesW(a.wtmp) & FILE_ATTRIBUTE_DIRECTORY) ||
	    GetFileAttributesW(a.wtmp) == INVALID_FILE_ATTRIBUTES) {
		fprintf(stderr, "wintest: no tmp inside\n");
		return 1;
	}
	if (winx_fresh_create(&b, err, sizeof(err)) < 0 || wcscmp(a.wpath, b.wpath) == 0) {
		fprintf(stderr, "wintest: a second fresh directory: %s\n", err);
		return 1;
	}
	winx_fresh_remove(&b, err, sizeof(err));
	_snwprintf(file, MAX_PATH + 64, L"%ls\\left.txt", a.wtmp);
	h = CreateFileW(file, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_READONLY, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 2;
	CloseHandle(h);
	_snwprintf(file, MAX_PATH + 64, L"%ls\\deep", a.wpath);
	CreateDirectoryW(file, NULL);
	_snwprintf(file, MAX_PATH + 64, L"%ls\\deep\\more.txt", a.wpath);
	h = CreateFileW(file, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 2;
	CloseHandle(h);
	wcscpy(keep, a.wpath);
	if (winx_fresh_remove(&a, err, sizeof(err)) < 0) {
		fprintf(stderr, "wintest: %s\n", err);
		return 1;
	}
	if (GetFileAttributesW(keep) != INVALID_FILE_ATTRIBUTES) {
		fprintf(stderr, "wintest: the fresh directory is still there\n");
		return 1;
	}
	printf("fresh directory removed with what was left in it\n");
	return 0;
}

int
wmain(int argc, wchar_t **argv)
{
	GetModuleFileNameW(NULL, self, MAX_PATH);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 2 && wcscmp(argv[1], L"job") == 0)
		return job_test(!(argc >= 3 && wcscmp(argv[2], L"nokill") == 0));
	if (argc == 3 && wcscmp(argv[1], L"child") == 0)
		return child(argv[2]);
	if (argc == 2 && wcscmp(argv[1], L"grandchild") == 0) {
		Sleep(60000);
		return 0;
	}
	if (argc == 2 && wcscmp(argv[1], L"exit") == 0)
		return 0;
	if (argc == 2 && wcscmp(argv[1], L"fresh") == 0)
		return fresh_test();
	if (argc >= 4 && wcscmp(argv[1], L"journal-dead") == 0)
		return journal_dead(argv + 2, argc - 2);
	if (argc >= 5 && wcscmp(argv[1], L"journal-live") == 0)
		return journal_live(argv + 2, argc - 2);
	fprintf(stderr, "usage: wintest job [nokill] | journal-dead SID PATH... | journal-live SID PATH HEEL-EXEC --recover\n");
	return 2;
}
#endif

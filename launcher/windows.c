/* SPDX-License-Identifier: MIT
 * heel-exec.exe: runs a command under a compiled heel policy on Windows,
 * in an AppContainer (a lowbox token: it reaches only what carries an ACE
 * for its SID), inside a job object with the policy's limits. The launch
 * is the sequence in run() below; each step's reason is beside it, and
 * its Windows calls are in launcher/windows_*.c. Built by mingw-w64 only
 * (`make windows`). Exit status as heel-exec(1): the command's own, 125
 * for heel-exec.exe's failures, 126 and 127 for a command that cannot
 * run or is not found. */
#ifdef _WIN32
#include "winexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "artifact_read.h"
#include "errmsg.h"
#include "heel_version.h"
#include "win_cmdline.h"

#define EXIT_FAIL 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

static const char usage[] =
    "usage: heel-exec.exe [--workdir DIR] [-v] POLICY.hpol -- CMD [ARG...]\n"
    "       heel-exec.exe check POLICY.hpol\n"
    "       heel-exec.exe --recover\n"
    "       heel-exec.exe --help | --version\n";

static int verbose;

static void
die_msg(const char *what, const char *msg)
{
	fprintf(stderr, "heel-exec: %s%s%s\n", what ? what : "", what ? ": " : "", msg);
}

/* ------------------------------------------------------------ the policy */

struct policy {
	uint8_t *buf;
	size_t len;
	struct art_view view;
	struct win_manifest m;
};

static int
load_policy(const char *path, struct policy *p)
{
	wchar_t *w = winx_wide(path);
	char err[512];
	int rc;

	memset(p, 0, sizeof(*p));
	if (!w) {
		die_msg(path, "not a valid UTF-8 path");
		return -EINVAL;
	}
	rc = winx_read_artifact(w, &p->buf, &p->len, err, sizeof(err));
	free(w);
	if (rc < 0) {
		die_msg(NULL, err); /* it names the file */
		return rc;
	}
	rc = art_validate(p->buf, p->len, &p->view, err, sizeof(err));
	if (rc == 0)
		rc = win_manifest_from_view(&p->view, &p->m, err, sizeof(err));
	if (rc == -ENOENT) {
		/* heelc left Windows out on purpose: say what it could not
		 * enforce, as its warning did. */
		for (size_t i = 0; i < art_extra_count(&p->view); i++) {
			struct art_extra x;

			if (art_extra_at(&p->view, i, &x) == 0 && x.kind == ART_EXTRA_EXCLUDED &&
			    (x.platforms & ART_PLAT_BIT(ART_WINDOWS)) && x.value) {
				snprintf(err, sizeof(err), "heelc left Windows out: %s", x.value);
				break;
			}
		}
	}
	if (rc < 0)
		die_msg(path, err);
	return rc;
}

static void
free_policy(struct policy *p)
{
	win_manifest_free(&p->m);
	free(p->buf);
}

/* What this launcher cannot enforce yet, refused by name (never run
 * weaker than the policy says). */
static const char *
unenforceable(const struct win_manifest *m)
{
	if (m->loopback_required)
		return "the policy's network goes through heel-proxy, which does not run on Windows yet "
		       "(and the container could reach it on 127.0.0.1 only with the machine-wide "
		       "loopback exemption, CheckNetIsolation LoopbackExempt): refused";
	return NULL;
}

static int current_dir(char *out, size_t len);

/* ${NAME} in a policy path: the launcher's environment, except ${CWD},
 * which heelc writes for a relative path ("./data") and which is the
 * directory heel-exec.exe was started in, whatever a variable says. */
static const char *
env_lookup(void *ctx, const char *name)
{
	static char *last;
	static char cwd[WIN_PATH_MAX];
	wchar_t *w, buf[WIN_PATH_MAX];
	DWORD n;

	(void)ctx;
	free(last);
	last = NULL;
	if (strcmp(name, "CWD") == 0)
		return current_dir(cwd, sizeof(cwd)) == 0 ? cwd : NULL;
	w = winx_wide(name);
	if (!w)
		return NULL;
	n = GetEnvironmentVariableW(w, buf, WIN_PATH_MAX);
	free(w);
	if (n == 0 || n >= WIN_PATH_MAX)
		return NULL;
	last = winx_utf8(buf);
	return last;
}

static int
current_dir(char *out, size_t len)
{
	wchar_t buf[WIN_PATH_MAX];
	DWORD n = GetCurrentDirectoryW(WIN_PATH_MAX, buf);
	char *u;
	int rc = -EINVAL;

	if (n == 0 || n >= WIN_PATH_MAX)
		return -EINVAL;
	u = winx_utf8(buf);
	if (u && strlen(u) < len) {
		memcpy(out, u, strlen(u) + 1);
		rc = 0;
	}
	free(u);
	return rc;
}

/* The policy's `workdir` for Windows, expanded and normalised into out,
 * or "" when it has none. 0, or -errno and a message naming it. */
static int
policy_workdir(const struct policy *p, char *out, size_t len, char *err, size_t errlen)
{
	struct art_scalar sc;
	char why[400];
	int rc;

	out[0] = '\0';
	if (art_scalar(&p->view, ART_WINDOWS, ART_SC_WORKDIR, &sc) < 0 || !sc.set || !sc.str)
		return 0;
	rc = win_path_expand(sc.str, env_lookup, NULL, "", out, len, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "the policy's workdir %s: %s", sc.str, why);
		out[0] = '\0';
	}
	return rc;
}

static const char *
mask_mode(uint32_t mask)
{
	switch (mask) {
	case 0x120089: return "r";
	case 0x1200a9: return "rx";
	case 0x1301df: return "rw";
	case 0x1301ff: return "rwx";
	case 0x1017f: return "deny";
	case 0x10156: return "deny-write";
	case 0x40: return "deny-delete-child";
	default: return "custom";
	}
}

static const char *const prio_names[] = {"normal", "below_normal", "idle"};

/* ------------------------------------------------------------ check */

static int
cmd_check(const char *path)
{
	struct policy p;
	struct win_plan plan;
	char workdir[WIN_PATH_MAX], err[512];
	const char *why;
	int rc;

	if (load_policy(path, &p) < 0)
		return EXIT_FAIL;
	/* The working directory a run would have: the policy's `workdir`,
	 * else (a fresh one is only made by a run) the current one. */
	if (policy_workdir(&p, workdir, sizeof(workdir), err, sizeof(err)) < 0) {
		die_msg(path, err);
		free_policy(&p);
		return EXIT_FAIL;
	}
	if (!workdir[0] && current_dir(workdir, sizeof(workdir)) < 0)
		snprintf(workdir, sizeof(workdir), "C:\\");
	printf("container %s\n", p.m.name);
	printf("sid %s\n", p.m.sid);
	for (size_t i = 0; i < p.m.ncapabilities; i++)
		printf("capability %s\n", p.m.capabilities[i]);
	printf("job kill-on-close die-on-unhandled-exception priority=%s memory=%llu "
	       "process-memory=%llu processes=%lu cpu-rate=%lu%s\n",
	       prio_names[p.m.priority_class < 3 ? p.m.priority_class : 0],
	       (unsigned long long)p.m.job_memory_bytes, (unsigned long long)p.m.process_memory_bytes,
	       (unsigned long)p.m.active_processes, (unsigned long)p.m.cpu_rate_percent,
	       p.m.lpac ? " lpac" : "");
	rc = win_plan_build(&p.m, env_lookup, NULL, workdir, &plan, err, sizeof(err));
	if (rc < 0) {
		die_msg(path, err);
		win_plan_free(&plan);
		free_policy(&p);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < plan.nops; i++) {
		const struct win_op *o = &plan.ops[i];

		for (size_t k = 0; k < o->nwant; k++)
			printf("entry %s 0x%x %s%s%s %s\n", o->want[k].type == WIN_ACL_ALLOW ? "allow" : "deny",
			       (unsigned)o->want[k].mask, mask_mode(o->want[k].mask),
			       o->label == WIN_LABEL_LOW && o->want[k].type == WIN_ACL_ALLOW ? " low" : "",
			       o->skip_missing ? " if-present" : "", o->path);
	}
	for (size_t i = 0; i < plan.nunreached; i++) {
		const struct win_entry *e = &p.m.entries[plan.unreached[i].entry];

		printf("unreachable %s %s (%s:%lu): no grant reaches it, nothing to deny\n",
		       plan.unreached[i].parent ? "deny-delete-child" : mask_mode(e->mask),
		       plan.unreached[i].path, e->origin_file ? e->origin_file : "built-in",
		       (unsigned long)e->origin_line);
	}
	win_plan_free(&plan);
	why = unenforceable(&p.m);
	free_policy(&p);
	if (why) {
		die_msg(path, why);
		return EXIT_FAIL;
	}
	return 0;
}

/* ------------------------------------------------------------ recover */

static int
cmd_recover(void)
{
	size_t runs = 0, reverted = 0;
	char err[512];
	int rc = winx_recover(&runs, &reverted, stderr, err, sizeof(err));

	printf("heel-exec: %zu dead run%s recovered, %zu entr%s reverted\n", runs, runs == 1 ? "" : "s",
	       reverted, reverted == 1 ? "y" : "ies");
	if (rc < 0) {
		die_msg("--recover", err);
		return EXIT_FAIL;
	}
	return 0;
}

/* ------------------------------------------------------------ run */

/* The sandbox's environment as a CreateProcessW block (free()). */
static wchar_t *
env_block(const struct policy *p, const wchar_t *temp)
{
	wchar_t *host = GetEnvironmentStringsW(), *block = NULL;
	char **vars = NULL, *tempu = winx_utf8(temp);
	size_t n = 0, total = 1, at = 0;
	struct win_env e;

	win_env_init(&e);
	for (wchar_t *s = host; s && *s; s += wcslen(s) + 1)
		n++;
	vars = calloc(n + 1, sizeof(*vars));
	n = 0;
	for (wchar_t *s = host; vars && s && *s; s += wcslen(s) + 1)
		if ((vars[n] = winx_utf8(s)))
			n++;
	if (!vars || !tempu || win_env_build(&e, vars, n, &p->view, tempu, NULL) < 0)
		goto out;
	win_env_sort(&e);
	for (size_t i = 0; i < e.n; i++) {
		wchar_t *w = winx_wide(e.vars[i]);

		if (!w)
			goto out;
		total += wcslen(w) + 1;
		free(w);
	}
	block = calloc(total + 1, sizeof(wchar_t));
	for (size_t i = 0; block && i < e.n; i++) {
		wchar_t *w = winx_wide(e.vars[i]);

		wcscpy(block + at, w);
		at += wcslen(w) + 1;
		free(w);
	}
out:
	for (size_t i = 0; vars && i < n; i++)
		free(vars[i]);
	free(vars);
	free(tempu);
	win_env_free(&e);
	if (host)
		FreeEnvironmentStringsW(host);
	return block;
}

/* The image to run: a name without a directory is looked up on the
 * sandbox's PATH, never in heel-exec.exe's own directory or the current
 * one first, as CreateProcessW's own search would. */
static wchar_t *
resolve(const char *cmd, const wchar_t *envblock)
{
	const wchar_t *path = NULL;
	wchar_t *w = winx_wide(cmd), *out;
	DWORD n;

	if (!w)
		return NULL;
	if (wcschr(w, L'\\') || wcschr(w, L'/') || wcschr(w, L':'))
		return GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES ? (free(w), NULL) : w;
	for (const wchar_t *s = envblock; *s; s += wcslen(s) + 1)
		if (_wcsnicmp(s, L"PATH=", 5) == 0)
			path = s + 5;
	out = malloc(WIN_PATH_MAX * sizeof(wchar_t));
	n = out && path ? SearchPathW(path, w, L".exe", WIN_PATH_MAX, out, NULL) : 0;
	free(w);
	if (n == 0 || n >= WIN_PATH_MAX) {
		free(out);
		return NULL;
	}
	return out;
}

/* Starts the command suspended in the container, puts it in the job and
 * lets it go. The handle list keeps every inheritable handle of
 * heel-exec.exe but the three standard ones out of the sandbox. */
static int
spawn(const wchar_t *image, wchar_t *cmdline, wchar_t *envblock, const wchar_t *cwd,
      struct winx_container *c, const struct win_manifest *m, HANDLE job, PROCESS_INFORMATION *pi,
      char *err, size_t errlen)
{
	SECURITY_CAPABILITIES caps = {c->sid, c->caps, c->ncaps, 0};
	DWORD lpac = PROCESS_CREATION_ALL_APPLICATION_PACKAGES_OPT_OUT;
	STARTUPINFOEXW si;
	HANDLE handles[3];
	DWORD nh = 0, e;
	SIZE_T size = 0;
	char why[300];
	int rc = 0;

	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	for (DWORD std = STD_INPUT_HANDLE, i = 0; i < 3; i++, std--) {
		HANDLE h = GetStdHandle(std);

		(&si.StartupInfo.hStdInput)[i] = h;
		if (!h || h == INVALID_HANDLE_VALUE)
			continue;
		SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
		bool dup = false;
		for (DWORD k = 0; k < nh; k++)
			dup = dup || handles[k] == h;
		if (!dup)
			handles[nh++] = h;
	}
	InitializeProcThreadAttributeList(NULL, 3, 0, &size);
	si.lpAttributeList = malloc(size);
	if (!si.lpAttributeList || !InitializeProcThreadAttributeList(si.lpAttributeList, 3, 0, &size))
		return rt_error(err, errlen, -ENOMEM, "cannot make the process attributes");
	/* The size must be exactly sizeof: anything else is
	 * ERROR_INVALID_PARAMETER. */
	if (!UpdateProcThreadAttribute(si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES,
				       &caps, sizeof(caps), NULL, NULL) ||
	    (m->lpac && !UpdateProcThreadAttribute(si.lpAttributeList, 0,
						   PROC_THREAD_ATTRIBUTE_ALL_APPLICATION_PACKAGES_POLICY,
						   &lpac, sizeof(lpac), NULL, NULL)) ||
	    (nh && !UpdateProcThreadAttribute(si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
					      handles, nh * sizeof(HANDLE), NULL, NULL))) {
		rc = rt_error(err, errlen, -ENOSYS, "cannot ask for an AppContainer process: %s",
			      winx_strerror(GetLastError(), why, sizeof(why)));
		goto out;
	}
	if (!CreateProcessW(image, cmdline, NULL, NULL, nh > 0,
			    EXTENDED_STARTUPINFO_PRESENT | CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT,
			    envblock, cwd, &si.StartupInfo, pi)) {
		e = GetLastError();
		rc = rt_error(err, errlen,
			      e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? -ENOENT
			      : e == ERROR_ACCESS_DENIED || e == ERROR_BAD_EXE_FORMAT ? -EACCES
										    : -EIO,
			      "cannot start the command: %s", winx_strerror(e, why, sizeof(why)));
		goto out;
	}
	/* Before it runs a single instruction: whatever it starts is born
	 * in the job too. */
	if (!AssignProcessToJobObject(job, pi->hProcess)) {
		rc = rt_error(err, errlen, -EIO, "cannot put the command in its job: %s",
			      winx_strerror(GetLastError(), why, sizeof(why)));
		TerminateProcess(pi->hProcess, EXIT_FAIL);
		CloseHandle(pi->hThread);
		CloseHandle(pi->hProcess);
		goto out;
	}
	ResumeThread(pi->hThread);
	CloseHandle(pi->hThread);
out:
	DeleteProcThreadAttributeList(si.lpAttributeList);
	free(si.lpAttributeList);
	return rc;
}

/* The child shares the console and gets Ctrl-C itself; heel-exec.exe
 * stays to put the ACLs back after it. */
static BOOL WINAPI
on_console(DWORD ev)
{
	return ev == CTRL_C_EVENT || ev == CTRL_BREAK_EVENT;
}

/* Ends what is left in the job and waits for it to be gone, so that no
 * process holds a path while its ACEs are removed. */
static void
empty_job(HANDLE job)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct;

	TerminateJobObject(job, 1);
	for (int i = 0; i < 100; i++) {
		if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &acct,
					       sizeof(acct), NULL) ||
		    acct.ActiveProcesses == 0)
			return;
		Sleep(50);
	}
}

static int
cmd_run(const char *artifact, const char *workdir_opt, int argc, char **argv)
{
	struct policy p;
	struct win_plan plan = {0};
	struct winx_container c = {0};
	struct winx_run r = {0};
	struct winx_fresh fresh = {0};
	PROCESS_INFORMATION pi = {0};
	char workdir[WIN_PATH_MAX], err[1024];
	wchar_t *envblock = NULL, *image = NULL, *cmdline = NULL, *wwork = NULL;
	char *line = NULL;
	const char *why;
	HANDLE job = NULL;
	DWORD code = EXIT_FAIL;
	int status = EXIT_FAIL, rc;
	size_t runs, reverted;

	/* 1. The artifact: read once, every byte validated, its Windows
	 * part decoded. Nothing has been changed yet, and nothing will be
	 * if a later check here refuses. */
	if (load_policy(artifact, &p) < 0)
		return EXIT_FAIL;
	if ((why = unenforceable(&p.m))) {
		die_msg(artifact, why);
		goto out;
	}
	/* 2. The AppContainer functions, looked up by name: Wine and old
	 * Windows lack them, and the command never runs unsandboxed. Before
	 * anything is made: a refusal leaves nothing behind. */
	if (winx_container_load(&p.m, err, sizeof(err)) < 0) {
		die_msg(NULL, err);
		goto out;
	}
	/* 3. The working directory: --workdir, else the policy's `workdir`
	 * (kept, as on Linux), else a fresh private one with a private
	 * TEMP and TMP inside it, removed at exit. Never the directory
	 * heel-exec.exe was started in: the sandbox would write wherever
	 * that happened to be. */
	if (workdir_opt) {
		rc = win_path_normalize(workdir_opt, workdir, sizeof(workdir), err, sizeof(err));
		if (rc < 0) {
			die_msg("--workdir", err);
			goto out;
		}
	} else if (policy_workdir(&p, workdir, sizeof(workdir), err, sizeof(err)) < 0) {
		die_msg(artifact, err);
		goto out;
	} else if (workdir[0]) {
		wchar_t *w = winx_wide(workdir);
		DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;

		free(w);
		if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_DIRECTORY) ||
		    (a & FILE_ATTRIBUTE_REPARSE_POINT)) {
			fprintf(stderr,
				"heel-exec: %s: the policy's workdir %s is not a directory (or is a "
				"link): make it, or give --workdir DIR\n",
				artifact, workdir);
			goto out;
		}
	} else {
		if (winx_fresh_create(&fresh, err, sizeof(err)) < 0) {
			die_msg(NULL, err);
			goto out;
		}
		snprintf(workdir, sizeof(workdir), "%s", fresh.path);
		if (verbose)
			fprintf(stderr, "heel-exec: working directory %s (removed at exit)\n",
				fresh.path);
	}
	/* 4. The plan: every path expanded and checked before any ACL is
	 * touched. */
	if (win_plan_build(&p.m, env_lookup, NULL, workdir, &plan, err, sizeof(err)) < 0) {
		die_msg(artifact, err);
		goto out;
	}
	/* 5. The profile, its SID checked against heelc's, AC\Temp. */
	if (winx_container_prepare(&p.m, &c, err, sizeof(err)) < 0) {
		die_msg(NULL, err);
		goto out;
	}
	/* 6. Runs that died left ACEs behind: put them back first. */
	if (winx_recover(&runs, &reverted, stderr, err, sizeof(err)) < 0)
		die_msg("recovering earlier runs", err);
	/* 7. The ACEs, journalled before each change, under the lock of
	 * this policy's SID (its other runs share the ACEs). */
	if (winx_lock(&r, p.m.sid, err, sizeof(err)) < 0) {
		die_msg(NULL, err);
		goto out;
	}
	rc = winx_journal_begin(&r, &p.m, err, sizeof(err));
	if (rc == 0)
		rc = winx_acl_apply(&r, &p.m, &plan, err, sizeof(err));
	winx_unlock(&r);
	if (rc < 0) {
		die_msg(NULL, err);
		goto revert;
	}
	/* 8. What the command gets: environment (TEMP and TMP: the fresh
	 * directory's own, else the container's AC\Temp),
	 * image, command line, working directory. */
	envblock = env_block(&p, fresh.wtmp ? fresh.wtmp : c.temp);
	line = win_cmdline_join(argc, argv);
	cmdline = line ? winx_wide(line) : NULL;
	wwork = winx_wide(workdir);
	if (!envblock || !cmdline || !wwork) {
		die_msg(argv[0], line ? "cannot build the environment" : "cannot be quoted (a '\"' in the program name)");
		goto revert;
	}
	image = resolve(argv[0], envblock);
	if (!image) {
		die_msg(argv[0], "command not found");
		status = EXIT_NOTFOUND;
		goto revert;
	}
	/* 9. The job, then the process in the container inside it. */
	job = winx_job_create(&p.m, err, sizeof(err));
	if (!job) {
		die_msg(NULL, err);
		goto revert;
	}
	SetConsoleCtrlHandler(on_console, TRUE);
	rc = spawn(image, cmdline, envblock, wwork, &c, &p.m, job, &pi, err, sizeof(err));
	if (rc < 0) {
		die_msg(argv[0], err);
		status = rc == -ENOENT ? EXIT_NOTFOUND : rc == -EACCES ? EXIT_NOEXEC : EXIT_FAIL;
		goto revert;
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	if (GetExitCodeProcess(pi.hProcess, &code))
		status = (int)code;
	CloseHandle(pi.hProcess);
revert:
	/* 10. Nothing of the command outlives it, then its ACEs go. */
	if (job) {
		empty_job(job);
		CloseHandle(job);
	}
	if (r.file) {
		if (winx_lock(&r, p.m.sid, err, sizeof(err)) == 0) {
			if (winx_acl_revert(&r, err, sizeof(err)) < 0) {
				die_msg("revert", err);
				fprintf(stderr, "heel-exec: the journal keeps the rest; run heel-exec.exe --recover\n");
			}
			winx_unlock(&r);
		}
		winx_journal_end(&r);
	}
out:
	/* 11. A fresh working directory goes, after its ACEs (and on every
	 * refusal after it was made). */
	if (fresh.wpath && winx_fresh_remove(&fresh, err, sizeof(err)) < 0)
		die_msg(NULL, err);
	free(envblock);
	free(image);
	free(cmdline);
	free(line);
	free(wwork);
	winx_container_free(&c);
	win_plan_free(&plan);
	free_policy(&p);
	return status;
}

/* ------------------------------------------------------------ main */

/* The entry point -municode asks for: arguments in UTF-16, as given. */
int wmain(int argc, wchar_t **wargv);

int
wmain(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof(char *));
	const char *workdir = NULL;
	int i;

	if (!argv)
		return EXIT_FAIL;
	for (i = 0; i < argc; i++)
		if (!(argv[i] = winx_utf8(wargv[i]))) {
			die_msg(NULL, "an argument is not valid UTF-16");
			return EXIT_FAIL;
		}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("heel-exec.exe %s (windows)\n", HEEL_VERSION);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--recover") == 0)
		return cmd_recover();
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return cmd_check(argv[2]);
	for (i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--workdir") == 0 && i + 1 < argc)
			workdir = argv[++i];
		else if (strcmp(argv[i], "-v") == 0)
			verbose++;
		else {
			fprintf(stderr, "heel-exec: unknown option %s\n%s", argv[i], usage);
			return EXIT_FAIL;
		}
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0) {
		fputs(usage, stderr);
		return EXIT_FAIL;
	}
	return cmd_run(argv[i], workdir, argc - i - 2, argv + i + 2);
}
#endif

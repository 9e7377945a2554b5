/* SPDX-License-Identifier: MIT
 * heel-exec.exe's steps, one file each (launcher/windows_*.c): reading
 * the artifact, the AppContainer, the ACL edits with their journal, the
 * job object. Windows only (mingw-w64); the rules they follow are the
 * portable runtime/win_*.c. Every function returns 0 or -errno with a
 * one-line message in err, as the runtime does; only windows.c prints. */
#ifndef HEEL_LAUNCHER_WINEXEC_H
#define HEEL_LAUNCHER_WINEXEC_H

#ifdef _WIN32

#include <windows.h>

#include <stdio.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "win_journal.h"
#include "win_manifest.h"
#include "win_plan.h"

/* ---- text (windows_text.c): UTF-8 inside heel, UTF-16 at the API.
 * Both return malloc'd strings (caller frees) or NULL. */
wchar_t *winx_wide(const char *utf8);
char *winx_utf8(const wchar_t *wide);
/* GetLastError() as "text (code N)" into buf. */
const char *winx_strerror(DWORD code, char *buf, size_t len);

/* ---- the artifact (windows_read.c) */
/* Reads the artifact at path whole: a regular file (not a reparse point,
 * not a device) of the sizes docs/artifact.md allows, owned by the user
 * who runs heel-exec.exe, SYSTEM or Administrators. *buf: caller frees. */
int winx_read_artifact(const wchar_t *path, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* ---- the AppContainer (windows_container.c) */
struct winx_container {
	PSID sid;	    /* the profile's SID (FreeSid) */
	wchar_t *temp;	    /* the container's AC\Temp, created */
	SID_AND_ATTRIBUTES *caps;
	DWORD ncaps;
};
/* Loads the AppContainer functions (userenv, kernelbase) with
 * GetProcAddress: a Windows without them (Wine, Windows 7) is refused
 * here, before anything is changed. */
int winx_container_load(const struct win_manifest *m, char *err, size_t errlen);
/* Creates the profile or finds it, checks that Windows derives the SID
 * heelc computed, resolves the capabilities and makes AC\Temp. */
int winx_container_prepare(const struct win_manifest *m, struct winx_container *c, char *err,
			   size_t errlen);
void winx_container_free(struct winx_container *c);

/* ---- the fresh working directory (windows_fresh.c) */
struct winx_fresh {
	char *path, *tmp;     /* UTF-8: the directory, its "tmp" (TEMP, TMP) */
	wchar_t *wpath, *wtmp;
};
/* Makes %TEMP%\heel-XXXXXXXX (a random name no one made first) and its
 * "tmp", with a protected DACL: this user and SYSTEM, nothing inherited.
 * The run adds the container's ACEs as for any working directory. */
int winx_fresh_create(struct winx_fresh *f, char *err, size_t errlen);
/* Removes it and everything in it, reparse points not followed; frees f.
 * 0, or -EIO and a message (f is freed either way). */
int winx_fresh_remove(struct winx_fresh *f, char *err, size_t errlen);

/* ---- the job (windows_job.c) */
/* A job that kills everything in it when its last handle closes and lets
 * no process in it show an error dialog, with the manifest's limits
 * (m NULL: those two flags only). NULL and a message on failure. */
HANDLE winx_job_create(const struct win_manifest *m, char *err, size_t errlen);

/* ---- ACLs and the journal (windows_acl.c, windows_journal.c) */
struct winx_run {
	struct win_journal j; /* this run: entries as applied */
	HANDLE file;	      /* its journal, appended to */
	wchar_t *path;
	HANDLE mutex;	      /* per SID: one run at a time edits its ACLs */
};
/* The journal directory, %LOCALAPPDATA%\heel\journal, created. */
int winx_journal_dir(wchar_t **dir, char *err, size_t errlen);
/* Starts this run's journal (run line written and flushed). */
int winx_journal_begin(struct winx_run *r, const struct win_manifest *m, char *err, size_t errlen);
int winx_journal_append(struct winx_run *r, const char *line, char *err, size_t errlen);
/* Removes the journal of a run that reverted everything. */
void winx_journal_end(struct winx_run *r);
/* The journals of live runs in the directory (other than r), for holder
 * counts. *runs and each journal: free with winx_journal_list_free. */
int winx_journal_live(const struct winx_run *r, struct win_journal ***runs, size_t *n, char *err,
		      size_t errlen);
void winx_journal_list_free(struct win_journal **runs, size_t n);
/* `heel-exec --recover`: reverts every journal whose launcher (PID and
 * creation time) is gone, then removes it. *reverted: entries reverted. */
int winx_recover(size_t *runs, size_t *reverted, FILE *log, char *err, size_t errlen);

/* Applies each op of plan under r's journal (pending, change, applied),
 * grants first, leaving out what win_plan_needed finds unneeded. */
int winx_acl_apply(struct winx_run *r, const struct win_manifest *m, const struct win_plan *plan,
		   char *err, size_t errlen);
/* Reverts r's entries, last first, except paths another live run of the
 * same SID still holds; marks each reverted in the journal. */
int winx_acl_revert(struct winx_run *r, char *err, size_t errlen);
/* Reverts one journal entry: drops sid's explicit ACEs and restores the
 * label recorded before. 0, or 1 when the path is gone or is another
 * object now (its file ID changed: nothing of heel's is on it). */
int winx_acl_revert_entry(const char *sid, const struct win_jentry *e, char *err, size_t errlen);
/* The path as Windows resolves it (links in its ancestors followed; the
 * path itself must not be one), its file ID and kind. -ENOENT if absent. */
int winx_identify(const char *path, char *final, size_t finallen, char *file_id, size_t idlen,
		  bool *is_dir, char *err, size_t errlen);
/* The per-SID mutex that serialises ACL edits of one policy's runs. */
int winx_lock(struct winx_run *r, const char *sid, char *err, size_t errlen);
void winx_unlock(struct winx_run *r);
/* Whether the process pid, created at `created` (FILETIME), still runs. */
bool winx_process_alive(uint32_t pid, uint64_t created);
/* This process's creation time (FILETIME). */
uint64_t winx_self_created(void);

#endif /* _WIN32 */
#endif

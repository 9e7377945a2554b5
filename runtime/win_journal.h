/* SPDX-License-Identifier: MIT
 * heel-exec.exe's write-ahead journal: before it changes a path's ACL it
 * appends what it is about to do and what was there, so that a run that
 * dies half way (killed, power lost) is reverted by the next launch or
 * by `heel-exec.exe --recover`. Portable C17, libc only: the launcher
 * writes and reads the file; the text is made and parsed here.
 *
 * One file per run, appended to and flushed line by line:
 *
 *   heel-journal/1
 *   <crc> run <run-id> <pid> <created> <sid> <container-name>
 *   <crc> pending <n> <file-id> <prev-protected> <prev-label> <aces> <path>
 *   <crc> applied <n>
 *   <crc> reverted <n>
 *
 * <crc> is the CRC-32C of the rest of the line in 8 lower-case hex
 * digits. run-id: 32 hex digits, random; pid and created (the process's
 * creation time, FILETIME) identify the launcher, since a PID alone is
 * reused. Entry n (0, 1, ...) is announced by its `pending` line, always
 * before the change: file-id is the volume serial and 128-bit file ID
 * (a replaced directory has another), "-" if the path did not exist;
 * prev-protected 0 or 1; prev-label the SDDL of the label there before
 * ("S:(ML;OICI;NW;;;S-1-16-4096)"), "-" for none; aces the SDDL of the
 * ACEs the run adds for its SID ("D:(A;OICI;0x1301df;;;S-1-15-2-...)");
 * the path last, since it may hold spaces (never a newline: NTFS names
 * cannot). A last line without its newline or with a wrong checksum is
 * torn (the run died writing it) and ignored; a wrong line before the
 * last is corruption, and the journal is refused rather than guessed at.
 *
 * Runs of one policy share the container's SID and so its ACEs: a path is
 * reverted only by the last live run holding it, and a run that finds
 * the path already held records the holder's "before" state, not the
 * state the holder made (and writes the union of both runs' ACEs there).
 * `aces` is the SDDL of the DACL ACEs added, followed by the label set,
 * if any: "D:(A;OICI;0x1301df;;;S-1-15-2-...)S:(ML;OICI;NW;;;S-1-16-4096)". */
#ifndef HEEL_RUNTIME_WIN_JOURNAL_H
#define HEEL_RUNTIME_WIN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "win_acl.h"

#define WIN_JOURNAL_MAGIC "heel-journal/1"
#define WIN_JOURNAL_RUNID_LEN 32

enum win_jstatus { WIN_J_PENDING = 0, WIN_J_APPLIED = 1, WIN_J_REVERTED = 2 };

struct win_jentry {
	char *path;
	char *file_id;	  /* "-" when the path did not exist */
	bool prev_protected;
	char *prev_label; /* SDDL, "-" for none */
	char *aces;	  /* SDDL of the ACEs added */
	uint8_t status;	  /* enum win_jstatus */
};

struct win_journal {
	char run_id[WIN_JOURNAL_RUNID_LEN + 1];
	uint32_t pid;
	uint64_t created;
	char sid[WIN_SID_MAX];
	char name[64];
	struct win_jentry *entries;
	size_t n;
	bool torn; /* a torn last line was ignored */
};

/* Line makers: each writes one whole line (with checksum and newline)
 * into out and returns 0, or -ENOSPC / -EINVAL (a field that would break
 * the format: a space in an id, a newline in a path). */
int win_journal_line_header(char *out, size_t outlen);
int win_journal_line_run(char *out, size_t outlen, const struct win_journal *j);
int win_journal_line_pending(char *out, size_t outlen, size_t n, const struct win_jentry *e);
int win_journal_line_status(char *out, size_t outlen, size_t n, enum win_jstatus status);

/* Parses a journal file's text (len bytes, need not be NUL-terminated)
 * into *j (initialised here; free with win_journal_free, also on
 * failure). 0, or -EINVAL with a message (no header, a corrupt line, an
 * entry number out of order, a status for an unknown entry). */
int win_journal_parse(const char *text, size_t len, struct win_journal *j, char *err,
		      size_t errlen);
void win_journal_free(struct win_journal *j);

/* What a dead run left: the numbers of its entries still pending or
 * applied, last first (the reverse of how they were made), into idx
 * (room for j->n). Returns how many. */
size_t win_journal_replay(const struct win_journal *j, size_t *idx);

/* Among the journals of live runs `runs` (other than `self`, which may be
 * NULL), those of container `sid` that hold `path` (pending or applied,
 * compared without ASCII case). Returns the count and, when holder is
 * not NULL, the first such entry (its prev-* fields are the state before
 * any run of the policy touched the path). */
size_t win_journal_holders(const struct win_journal *const *runs, size_t nruns,
			   const struct win_journal *self, const char *sid, const char *path,
			   const struct win_jentry **holder);

#endif

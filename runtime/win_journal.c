/* SPDX-License-Identifier: MIT
 * The journal's text (win_journal.h). Checksummed lines, so that a torn
 * append is told from a file someone edited: the first is expected after
 * a crash and skipped, the second stops recovery with a message. */
#include "win_journal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "errmsg.h"

static int line(char *out, size_t outlen, const char *fmt, ...)
	__attribute__((format(RT_PRINTF_FORMAT, 3, 4)));

/* "<crc> <text>\n" into out. */
static int
line(char *out, size_t outlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (outlen < 10)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(out + 9, outlen - 9, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 11 > outlen)
		return -ENOSPC;
	if (memchr(out + 9, '\n', (size_t)n))
		return -EINVAL;
	snprintf(out, 10, "%08" PRIx32, crc32c_buf(out + 9, (size_t)n));
	out[8] = ' ';
	out[9 + n] = '\n';
	out[10 + n] = '\0';
	return 0;
}

static bool
word_ok(const char *s)
{
	return *s && !strpbrk(s, " \n\r\t");
}

int
win_journal_line_header(char *out, size_t outlen)
{
	if (snprintf(out, outlen, "%s\n", WIN_JOURNAL_MAGIC) >= (int)outlen)
		return -ENOSPC;
	return 0;
}

int
win_journal_line_run(char *out, size_t outlen, const struct win_journal *j)
{
	if (!word_ok(j->run_id) || !word_ok(j->sid) || !word_ok(j->name))
		return -EINVAL;
	return line(out, outlen, "run %s %" PRIu32 " %" PRIu64 " %s %s", j->run_id, j->pid, j->created,
		    j->sid, j->name);
}

int
win_journal_line_pending(char *out, size_t outlen, size_t n, const struct win_jentry *e)
{
	if (!word_ok(e->file_id) || !word_ok(e->prev_label) || !word_ok(e->aces) || !*e->path ||
	    strpbrk(e->path, "\n\r"))
		return -EINVAL;
	return line(out, outlen, "pending %zu %s %d %s %s %s", n, e->file_id, e->prev_protected ? 1 : 0,
		    e->prev_label, e->aces, e->path);
}

int
win_journal_line_status(char *out, size_t outlen, size_t n, enum win_jstatus status)
{
	if (status == WIN_J_PENDING)
		return -EINVAL;
	return line(out, outlen, "%s %zu", status == WIN_J_APPLIED ? "applied" : "reverted", n);
}

/* ------------------------------------------------------------ parsing */

void
win_journal_free(struct win_journal *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->entries[i].path);
		free(j->entries[i].file_id);
		free(j->entries[i].prev_label);
		free(j->entries[i].aces);
	}
	free(j->entries);
	memset(j, 0, sizeof(*j));
}

/* The next space-separated word of *p into a fresh string (NULL: none or
 * out of memory; the caller's check of the line catches both). */
static char *
word(const char **p, bool rest)
{
	const char *s = *p, *e;
	char *w;

	if (!*s)
		return NULL;
	e = rest ? s + strlen(s) : strchr(s, ' ');
	if (!e)
		e = s + strlen(s);
	if (e == s)
		return NULL;
	w = malloc((size_t)(e - s) + 1);
	if (!w)
		return NULL;
	memcpy(w, s, (size_t)(e - s));
	w[e - s] = '\0';
	*p = *e ? e + 1 : e;
	return w;
}

static bool
number(const char **p, uint64_t max, uint64_t *v)
{
	char *w = word(p, false), *end;
	unsigned long long x;
	bool ok;

	if (!w)
		return false;
	errno = 0;
	x = strtoull(w, &end, 10);
	ok = w[0] >= '0' && w[0] <= '9' && *end == '\0' && errno == 0 && x <= max &&
	     !(w[0] == '0' && w[1]);
	free(w);
	*v = x;
	return ok;
}

static bool
copy_word(const char **p, char *out, size_t outlen)
{
	char *w = word(p, false);
	bool ok = w && strlen(w) < outlen;

	if (ok)
		memcpy(out, w, strlen(w) + 1);
	free(w);
	return ok;
}

/* One line's record (after the checksum). 0, or -EINVAL. */
static int
record(struct win_journal *j, const char *rec, bool *have_run)
{
	const char *p = rec;
	char *kind = word(&p, false);
	uint64_t v, n;
	int rc = -EINVAL;

	if (!kind)
		return -EINVAL;
	if (strcmp(kind, "run") == 0 && !*have_run) {
		if (copy_word(&p, j->run_id, sizeof(j->run_id)) &&
		    strlen(j->run_id) == WIN_JOURNAL_RUNID_LEN && number(&p, UINT32_MAX, &v) &&
		    (j->pid = (uint32_t)v, number(&p, UINT64_MAX, &j->created)) &&
		    copy_word(&p, j->sid, sizeof(j->sid)) && win_sid_valid(j->sid) &&
		    copy_word(&p, j->name, sizeof(j->name)) && !*p) {
			*have_run = true;
			rc = 0;
		}
	} else if (strcmp(kind, "pending") == 0 && *have_run) {
		struct win_jentry e = {0};
		struct win_jentry *grown;
		char *prot = NULL;

		if (number(&p, SIZE_MAX, &n) && n == j->n && (e.file_id = word(&p, false)) &&
		    (prot = word(&p, false)) && (strcmp(prot, "0") == 0 || strcmp(prot, "1") == 0) &&
		    (e.prev_label = word(&p, false)) && (e.aces = word(&p, false)) &&
		    (e.path = word(&p, true)) &&
		    (grown = realloc(j->entries, (j->n + 1) * sizeof(*grown)))) {
			e.prev_protected = prot[0] == '1';
			e.status = WIN_J_PENDING;
			j->entries = grown;
			j->entries[j->n++] = e;
			rc = 0;
		} else {
			free(e.file_id);
			free(e.prev_label);
			free(e.aces);
			free(e.path);
		}
		free(prot);
	} else if ((strcmp(kind, "applied") == 0 || strcmp(kind, "reverted") == 0) && *have_run) {
		if (number(&p, SIZE_MAX, &n) && n < j->n && !*p) {
			j->entries[n].status = kind[0] == 'a' ? WIN_J_APPLIED : WIN_J_REVERTED;
			rc = 0;
		}
	}
	free(kind);
	return rc;
}

/* Whether [s, s+len) is "<8 hex> text" with the right checksum. */
static bool
checked(const char *s, size_t len)
{
	uint32_t want = 0;

	if (len < 10 || s[8] != ' ')
		return false;
	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return false;
		want = want << 4 | (uint32_t)d;
	}
	return crc32c_buf(s + 9, len - 9) == want;
}

int
win_journal_parse(const char *text, size_t len, struct win_journal *j, char *err, size_t errlen)
{
	size_t mlen = strlen(WIN_JOURNAL_MAGIC), at, lineno = 1;
	bool have_run = false;

	memset(j, 0, sizeof(*j));
	if (len < mlen + 1 || memcmp(text, WIN_JOURNAL_MAGIC, mlen) != 0 || text[mlen] != '\n')
		return rt_error(err, errlen, -EINVAL, "not a heel journal (no \"%s\" line)",
				WIN_JOURNAL_MAGIC);
	at = mlen + 1;
	while (at < len) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t l = nl ? (size_t)(nl - s) : len - at;
		bool last = !nl || at + l + 1 == len;
		char *rec;
		int rc;

		lineno++;
		if (!nl || !checked(s, l)) {
			if (last) {
				j->torn = true;
				break;
			}
			return rt_error(err, errlen, -EINVAL, "line %zu: checksum does not match (edited or damaged)",
					lineno);
		}
		if (memchr(s, '\0', l))
			return rt_error(err, errlen, -EINVAL, "line %zu: holds a NUL byte", lineno);
		rec = malloc(l - 9 + 1);
		if (!rec)
			return rt_error(err, errlen, -ENOMEM, "out of memory");
		memcpy(rec, s + 9, l - 9);
		rec[l - 9] = '\0';
		rc = record(j, rec, &have_run);
		free(rec);
		if (rc < 0)
			return rt_error(err, errlen, -EINVAL, "line %zu: not a record heel wrote", lineno);
		at += l + 1;
	}
	if (!have_run)
		return rt_error(err, errlen, -EINVAL, "no run line");
	return 0;
}

/* ------------------------------------------------------------ replay */

size_t
win_journal_replay(const struct win_journal *j, size_t *idx)
{
	size_t k = 0;

	for (size_t i = j->n; i-- > 0;)
		if (j->entries[i].status != WIN_J_REVERTED)
			idx[k++] = i;
	return k;
}

static bool
same_path(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 32) : *a;
		char y = *b >= 'a' && *b <= 'z' ? (char)(*b - 32) : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

size_t
win_journal_holders(const struct win_journal *const *runs, size_t nruns,
		    const struct win_journal *self, const char *sid, const char *path,
		    const struct win_jentry **holder)
{
	size_t count = 0;

	if (holder)
		*holder = NULL;
	for (size_t r = 0; r < nruns; r++) {
		const struct win_journal *j = runs[r];

		if (j == self || (self && strcmp(j->run_id, self->run_id) == 0) ||
		    strcmp(j->sid, sid) != 0)
			continue;
		for (size_t i = 0; i < j->n; i++)
			if (j->entries[i].status != WIN_J_REVERTED && same_path(j->entries[i].path, path)) {
				if (holder && !*holder)
					*holder = &j->entries[i];
				count++;
				break;
			}
	}
	return count;
}

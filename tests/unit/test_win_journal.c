/* SPDX-License-Identifier: MIT
 * heel-exec.exe's write-ahead journal (runtime/win_journal.c): what is
 * written parses back, a torn last line is dropped and a damaged earlier
 * one refuses the file, replay names exactly the entries a dead run left
 * applied or pending (last first), and holder counts keep one run from
 * reverting a path another live run of the same policy still uses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_journal.h"

#define SID "S-1-15-2-1-2-3-4-5-6-7"
#define RUNID "0123456789abcdef0123456789abcdef"

struct text {
	char buf[8192];
	size_t len;
};

static void
add(struct text *t, const char *line)
{
	size_t n = strlen(line);

	cr_assert_lt(t->len + n, sizeof(t->buf));
	memcpy(t->buf + t->len, line, n);
	t->len += n;
}

static struct win_jentry
jentry(const char *path, const char *aces)
{
	struct win_jentry e = {
		.path = (char *)path,
		.file_id = "0x1234abcd:00000000000000000001000000000042",
		.prev_protected = false,
		.prev_label = "-",
		.aces = (char *)aces,
	};
	return e;
}

/* A run that applied entry 0, reverted entry 1 and died while entry 2
 * was pending. */
static void
three_entries(struct text *t, uint32_t pid)
{
	struct win_journal j = {.run_id = RUNID, .pid = pid, .created = 133476543210000000ull,
				.sid = SID, .name = "heel.p.0123456789abcdef"};
	struct win_jentry e0 = jentry("C:\\work", "D:(A;OICI;0x1301df;;;" SID ")");
	struct win_jentry e1 = jentry("C:\\Users\\me\\.cargo", "D:(A;OICI;0x1200a9;;;" SID ")");
	struct win_jentry e2 = jentry("C:\\Program Files\\My Tool", "D:(A;OICI;0x1200a9;;;" SID ")");
	char line[2048];

	e1.prev_protected = true;
	e1.prev_label = "S:(ML;OICI;NW;;;S-1-16-8192)";
	t->len = 0;
	cr_assert_eq(win_journal_line_header(line, sizeof(line)), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_run(line, sizeof(line), &j), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_pending(line, sizeof(line), 0, &e0), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_status(line, sizeof(line), 0, WIN_J_APPLIED), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_pending(line, sizeof(line), 1, &e1), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_status(line, sizeof(line), 1, WIN_J_APPLIED), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_status(line, sizeof(line), 1, WIN_J_REVERTED), 0);
	add(t, line);
	cr_assert_eq(win_journal_line_pending(line, sizeof(line), 2, &e2), 0);
	add(t, line);
}

Test(win_journal, write_then_parse)
{
	struct text t;
	struct win_journal j;
	char err[256] = "";

	three_entries(&t, 4242);
	cr_assert_eq(win_journal_parse(t.buf, t.len, &j, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(j.torn);
	cr_assert_str_eq(j.run_id, RUNID);
	cr_assert_eq(j.pid, 4242);
	cr_assert_eq(j.created, 133476543210000000ull);
	cr_assert_str_eq(j.sid, SID);
	cr_assert_str_eq(j.name, "heel.p.0123456789abcdef");
	cr_assert_eq(j.n, 3);
	cr_assert_str_eq(j.entries[0].path, "C:\\work");
	cr_assert_eq(j.entries[0].status, WIN_J_APPLIED);
	cr_assert_eq(j.entries[1].status, WIN_J_REVERTED);
	cr_assert(j.entries[1].prev_protected);
	cr_assert_str_eq(j.entries[1].prev_label, "S:(ML;OICI;NW;;;S-1-16-8192)");
	cr_assert_str_eq(j.entries[2].path, "C:\\Program Files\\My Tool");
	cr_assert_eq(j.entries[2].status, WIN_J_PENDING);
	cr_assert_str_eq(j.entries[2].aces, "D:(A;OICI;0x1200a9;;;" SID ")");
	cr_assert_str_eq(j.entries[0].file_id, "0x1234abcd:00000000000000000001000000000042");
	win_journal_free(&j);
}

Test(win_journal, replay_reverts_pending_and_applied_last_first)
{
	struct text t;
	struct win_journal j;
	size_t idx[3];
	char err[256];

	three_entries(&t, 1);
	cr_assert_eq(win_journal_parse(t.buf, t.len, &j, err, sizeof(err)), 0);
	cr_assert_eq(win_journal_replay(&j, idx), 2);
	cr_assert_eq(idx[0], 2);
	cr_assert_eq(idx[1], 0);
	win_journal_free(&j);
}

Test(win_journal, a_torn_last_line_is_ignored)
{
	struct text t;
	struct win_journal j;
	char err[256];
	size_t idx[3];

	three_entries(&t, 1);
	/* Cut inside the last line: no newline, the checksum fails. */
	for (size_t cut = 1; cut < 40; cut += 7) {
		cr_assert_eq(win_journal_parse(t.buf, t.len - cut, &j, err, sizeof(err)), 0, "cut %zu: %s",
			     cut, err);
		cr_assert(j.torn);
		/* The torn `pending 2`: entry 2 never announced, so never
		 * reverted (its change was not made: the line comes first). */
		cr_assert_eq(j.n, 2);
		cr_assert_eq(win_journal_replay(&j, idx), 1);
		cr_assert_eq(idx[0], 0);
		win_journal_free(&j);
	}
}

Test(win_journal, a_damaged_earlier_line_refuses_the_file)
{
	struct text t;
	struct win_journal j;
	char err[256] = "";
	char *applied;

	three_entries(&t, 1);
	/* "C:\work" -> "C:\werk" in the first pending line. */
	applied = strstr(t.buf, "C:\\work");
	cr_assert(applied);
	applied[4] = 'e';
	cr_assert_eq(win_journal_parse(t.buf, t.len, &j, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "checksum"), "%s", err);
	win_journal_free(&j);
}

Test(win_journal, refusals)
{
	static const char *const bad[] = {
		"",
		"heel-journal/2\n",
		"heel-journal/1\n", /* no run line */
	};
	struct win_journal j;
	char err[256], line[512];
	struct text t = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(win_journal_parse(bad[i], strlen(bad[i]), &j, err, sizeof(err)), -EINVAL, "%zu",
			     i);
		win_journal_free(&j);
	}
	/* A status for an entry never announced, with a good checksum. */
	three_entries(&t, 1);
	cr_assert_eq(win_journal_line_status(line, sizeof(line), 7, WIN_J_APPLIED), 0);
	add(&t, line);
	add(&t, line); /* twice, so the bad one is not the last line */
	cr_assert_eq(win_journal_parse(t.buf, t.len, &j, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not a record"), "%s", err);
	win_journal_free(&j);
}

Test(win_journal, line_makers_refuse_what_would_break_the_format)
{
	struct win_jentry e = jentry("C:\\a\nb", "D:");
	struct win_journal j = {.run_id = "has space", .sid = SID, .name = "n"};
	char line[512];

	cr_assert_eq(win_journal_line_pending(line, sizeof(line), 0, &e), -EINVAL);
	e = jentry("C:\\a", "D: x");
	cr_assert_eq(win_journal_line_pending(line, sizeof(line), 0, &e), -EINVAL);
	cr_assert_eq(win_journal_line_run(line, sizeof(line), &j), -EINVAL);
	cr_assert_eq(win_journal_line_status(line, sizeof(line), 0, WIN_J_PENDING), -EINVAL);
	e = jentry("C:\\a", "D:");
	cr_assert_eq(win_journal_line_pending(line, 20, 0, &e), -ENOSPC);
}

Test(win_journal, holders_of_one_sid_share_a_path)
{
	struct text t;
	struct win_journal a, b, c;
	const struct win_journal *runs[3];
	const struct win_jentry *h;
	char err[256];

	three_entries(&t, 1);
	cr_assert_eq(win_journal_parse(t.buf, t.len, &a, err, sizeof(err)), 0);
	three_entries(&t, 2);
	cr_assert_eq(win_journal_parse(t.buf, t.len, &b, err, sizeof(err)), 0);
	b.run_id[0] = 'f';
	three_entries(&t, 3);
	cr_assert_eq(win_journal_parse(t.buf, t.len, &c, err, sizeof(err)), 0);
	c.run_id[0] = 'e';
	snprintf(c.sid, sizeof(c.sid), "S-1-15-2-9");
	runs[0] = &a;
	runs[1] = &b;
	runs[2] = &c;
	/* a asks: b holds C:\work (applied), c is another policy. */
	cr_assert_eq(win_journal_holders(runs, 3, &a, SID, "c:\\WORK", &h), 1);
	cr_assert_eq(h, &b.entries[0]);
	/* Pending counts as held; reverted does not. */
	cr_assert_eq(win_journal_holders(runs, 3, &a, SID, "C:\\Program Files\\My Tool", NULL), 1);
	cr_assert_eq(win_journal_holders(runs, 3, &a, SID, "C:\\Users\\me\\.cargo", &h), 0);
	cr_assert_null(h);
	/* Nobody excluded: both runs of the SID. */
	cr_assert_eq(win_journal_holders(runs, 3, NULL, SID, "C:\\work", NULL), 2);
	win_journal_free(&a);
	win_journal_free(&b);
	win_journal_free(&c);
}

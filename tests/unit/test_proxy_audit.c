/* SPDX-License-Identifier: MIT
 * heel-proxy's audit sink (runtime/proxy/audit.c): the exact line for a
 * decision, keys in order, time in UTC to the millisecond, odd host text
 * escaped to ASCII; lines of two writers never mixed; the daily file
 * named by the decision's UTC date; no directory ever created; and every
 * write that fails reported, since the proxy refuses what it cannot
 * record. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "hostcheck.h"

static char root[64];

static void
make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/heel-audit-test-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

/* The sink as heel-exec hands it over: opened and checked by the host
 * side's one primitive (hostcheck.h), with no writable place of a
 * launch (and no ledger: the test's HOME does not exist), then adopted. */
static int
sink_open(struct proxy_audit **a, enum proxy_audit_kind kind, const char *path, char *err,
	  size_t errlen)
{
	char *env[] = { "HOME=/nonexistent-heel-test", NULL };
	struct hc_places ps;
	int fd, rc;

	*a = NULL;
	if ((rc = hc_places_init(&ps, env)) < 0)
		return rc;
	rc = hc_open_append(&ps, "the audit sink", path, kind == PROXY_AUDIT_DAILY, &fd, err, errlen);
	hc_places_free(&ps);
	if (rc < 0)
		return rc;
	return proxy_audit_open(a, kind, fd, err, errlen);
}

/* A moment in UTC. */
static struct timespec
at(int year, int mon, int day, int h, int m, int s, long nsec)
{
	struct tm tm = { .tm_year = year - 1900, .tm_mon = mon - 1, .tm_mday = day,
			 .tm_hour = h, .tm_min = m, .tm_sec = s };

	return (struct timespec){ timegm(&tm), nsec };
}

static struct proxy_decision
decision(struct timespec when, const char *host)
{
	return (struct proxy_decision){ when, host, 443, true, "in the allow-list", "CONNECT" };
}

static char *
slurp(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(proxy_audit, the_exact_line_keys_in_order)
{
	struct proxy_decision d = decision(at(2026, 12, 1, 21, 35, 0, 123456789), "example.org");
	char out[PROXY_AUDIT_LINE_MAX];
	const char *want = "{\"timestamp\":\"2026-12-01T21:35:00.123Z\",\"host\":\"example.org\","
			   "\"port\":443,\"allowed\":true,\"reason\":\"in the allow-list\","
			   "\"method\":\"CONNECT\"}\n";

	cr_assert_eq(proxy_audit_format(&d, out, sizeof(out)), (int)strlen(want));
	cr_assert_str_eq(out, want);

	d = (struct proxy_decision){ at(2026, 1, 2, 3, 4, 5, 6000000), "2001:db8::1", 80, false,
				     "heel: 2001:db8::1 is not in this sandbox's network allow-list",
				     "GET" };
	cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "{\"timestamp\":\"2026-01-02T03:04:05.006Z\",\"host\":\"2001:db8::1\","
			      "\"port\":80,\"allowed\":false,\"reason\":\"heel: 2001:db8::1 is not "
			      "in this sandbox's network allow-list\",\"method\":\"GET\"}\n");
}

/* Truncated, never rounded: 23:59:59.9999999 stays in its second, its
 * day and its year (and so in its daily file). */
Test(proxy_audit, milliseconds_truncate_at_999)
{
	static const struct {
		long nsec;
		const char *ms;
	} cases[] = {
		{ 0, "00.000Z" },	  { 999999, "00.000Z" },   { 1000000, "00.001Z" },
		{ 9999999, "00.009Z" },	  { 99999999, "00.099Z" }, { 998999999, "00.998Z" },
		{ 999000000, "00.999Z" }, { 999999999, "00.999Z" },
	};
	char out[PROXY_AUDIT_LINE_MAX], want[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proxy_decision d = decision(at(2026, 12, 1, 21, 35, 0, cases[i].nsec), "a");

		cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
		snprintf(want, sizeof(want), "\"2026-12-01T21:35:%s\"", cases[i].ms);
		cr_assert_not_null(strstr(out, want), "%ld ns: %s", cases[i].nsec, out);
	}
	{
		struct proxy_decision d = decision(at(2026, 12, 31, 23, 59, 59, 999999999), "a");

		cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
		cr_assert_not_null(strstr(out, "\"2026-12-31T23:59:59.999Z\""), "%s", out);
	}
}

/* UTC whatever the zone: 21:35Z is already tomorrow at UTC+14. */
Test(proxy_audit, utc_whatever_the_time_zone)
{
	struct proxy_decision d = decision(at(2026, 12, 1, 21, 35, 0, 0), "a");
	char out[PROXY_AUDIT_LINE_MAX];

	setenv("TZ", "<+14>-14", 1);
	tzset();
	cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
	cr_assert_not_null(strstr(out, "\"2026-12-01T21:35:00.000Z\""), "%s", out);
}

/* The host is whatever a client sent: quotes and backslashes escaped,
 * controls (C0, C1) and everything past ASCII as \u escapes, so a line
 * stays one line and shows nothing but itself in a terminal; bytes that
 * are not UTF-8 become U+FFFD instead of failing the record. */
Test(proxy_audit, odd_host_text_is_escaped)
{
	static const struct {
		const char *host;
		const char *json;
	} cases[] = {
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "a\nb\r\tc", "a\\nb\\r\\tc" },
		{ "\x01\x1b[31m", "\\u0001\\u001B[31m" },
		{ "\xc3\xa9x", "\\u00E9x" },		     /* é */
		{ "\xe2\x80\xae" "gro.elpmaxe", "\\u202Egro.elpmaxe" }, /* RLO */
		{ "\xc2\x9b" "2J", "\\u009B2J" },	     /* C1 CSI */
		{ "\xf0\x9f\x98\x80", "\\uD83D\\uDE00" },    /* outside the BMP */
		{ "a\xff" "b", "a\\uFFFDb" },		     /* not UTF-8 */
		{ "\xc0\xaf", "\\uFFFD\\uFFFD" },	     /* overlong '/' */
		{ "\xed\xa0\x80", "\\uFFFD\\uFFFD\\uFFFD" }, /* a surrogate */
		{ "\xe2\x80", "\\uFFFD\\uFFFD" },	     /* cut short */
		{ "", "" },
	};
	char out[PROXY_AUDIT_LINE_MAX], want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), cases[i].host);
		json_t *v;

		cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0, "case %zu", i);
		snprintf(want, sizeof(want), ",\"host\":\"%s\",", cases[i].json);
		cr_assert_not_null(strstr(out, want), "case %zu: %s", i, out);
		cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "case %zu: one line", i);
		for (const char *p = out; *p; p++)
			cr_assert((unsigned char)*p < 0x80 && ((unsigned char)*p >= 0x20 || *p == '\n'),
				  "case %zu: byte %02x", i, (unsigned char)*p);
		v = json_loads(out, 0, NULL);
		cr_assert_not_null(v, "case %zu: not JSON: %s", i, out);
		json_decref(v);
	}
}

/* A client may send a host of any length: the field is cut (marked), and
 * the record still fits its one write. The reason and method too. */
Test(proxy_audit, long_text_is_cut_and_marked)
{
	static char host[5000], reason[3000], out[PROXY_AUDIT_LINE_MAX];
	struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), host);
	json_t *v;
	const char *h;
	int n;

	memset(host, 'a', sizeof(host) - 1);
	memset(reason, '\x01', sizeof(reason) - 1);
	d.reason = reason;
	n = proxy_audit_format(&d, out, sizeof(out));
	cr_assert_gt(n, 0);
	v = json_loads(out, 0, NULL);
	cr_assert_not_null(v);
	h = json_string_value(json_object_get(v, "host"));
	cr_assert_eq(strlen(h), PROXY_AUDIT_FIELD_MAX);
	cr_assert_eq(strspn(h, "a"), PROXY_AUDIT_FIELD_MAX - 3);
	cr_assert_str_eq(h + PROXY_AUDIT_FIELD_MAX - 3, "...");
	cr_assert_eq(strlen(json_string_value(json_object_get(v, "reason"))), PROXY_AUDIT_FIELD_MAX);
	json_decref(v);

	/* A cut never splits a character: 'é' is two bytes. */
	for (size_t i = 0; i + 2 < sizeof(host); i += 2)
		memcpy(host + i, "\xc3\xa9", 2);
	host[sizeof(host) - 1] = '\0';
	cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
	v = json_loads(out, 0, NULL);
	cr_assert_not_null(v, "%s", out);
	h = json_string_value(json_object_get(v, "host"));
	cr_assert_str_eq(h + strlen(h) - 5, "\xc3\xa9...");
	json_decref(v);
}

Test(proxy_audit, format_refusals)
{
	struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), "example.org");
	char out[PROXY_AUDIT_LINE_MAX];
	int n = proxy_audit_format(&d, out, sizeof(out));

	/* The line, its newline and the NUL, exactly. */
	cr_assert_eq(proxy_audit_format(&d, out, (size_t)n + 1), n);
	cr_assert_eq(proxy_audit_format(&d, out, (size_t)n), -ENOSPC);
	cr_assert_eq(proxy_audit_format(&d, out, 10), -ENOSPC);
	d.reason = NULL;
	cr_assert_gt(proxy_audit_format(&d, out, sizeof(out)), 0);
	cr_assert_not_null(strstr(out, ",\"reason\":\"\","));
	d.host = NULL;
	cr_assert_eq(proxy_audit_format(&d, out, sizeof(out)), -EINVAL);
	d = decision(at(2026, 12, 1, 0, 0, 0, 1000000000L), "a");
	cr_assert_eq(proxy_audit_format(&d, out, sizeof(out)), -EINVAL);
	d = decision(at(2026, 12, 1, 0, 0, 0, 0), "a");
	d.method = NULL;
	cr_assert_eq(proxy_audit_format(&d, out, sizeof(out)), -EINVAL);
	d = decision((struct timespec){ 253402300800LL, 0 }, "a"); /* year 10000 */
	cr_assert_eq(proxy_audit_format(&d, out, sizeof(out)), -EINVAL);
}

Test(proxy_audit, no_sink_records_nothing)
{
	struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), "a");

	cr_assert_eq(proxy_audit_record(NULL, &d), 0);
	cr_assert_eq(proxy_audit_dir_fd(NULL), -1);
	proxy_audit_close(NULL);
}

/* Appended, never truncated: a sink reopened keeps what was there; the
 * file is the owner's alone (it lists every host the sandbox reached). */
Test(proxy_audit, file_appends_mode_0600, .init = make_root, .fini = remove_root)
{
	struct proxy_decision d = decision(at(2026, 12, 1, 21, 35, 0, 0), "example.org");
	struct proxy_audit *a;
	char path[PATH_MAX], err[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	for (int round = 0; round < 2; round++) {
		cr_assert_eq(sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)), 0, "%s",
			     err);
		cr_assert_eq(proxy_audit_dir_fd(a), -1);
		cr_assert_eq(proxy_audit_record(a, &d), 0);
		cr_assert_eq(proxy_audit_record(a, &d), 0);
		proxy_audit_close(a);
	}
	cr_assert_eq(count_lines(slurp(path)), 4);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
}

/* The proxies of several sandboxes share one file: long lines from two
 * processes at once, each a whole line of the file. */
Test(proxy_audit, two_writers_never_interleave, .init = make_root, .fini = remove_root,
     .timeout = 60)
{
	enum { LINES = 400 };
	static char reason[2][6000];
	char path[PATH_MAX], err[256], *text, *line, *save;
	size_t seen[2] = { 0, 0 };
	pid_t pid[2];

	snprintf(path, sizeof(path), "%s/shared.jsonl", root);
	for (int w = 0; w < 2; w++) {
		memset(reason[w], w ? 'y' : 'x', sizeof(reason[w]) - 1);
		pid[w] = fork();
		cr_assert_geq(pid[w], 0);
		if (pid[w] == 0) {
			struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), "a");
			struct proxy_audit *a;

			d.reason = reason[w];
			if (sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)) < 0)
				_exit(2);
			for (int i = 0; i < LINES; i++)
				if (proxy_audit_record(a, &d) < 0)
					_exit(3);
			proxy_audit_close(a);
			_exit(0);
		}
	}
	for (int w = 0; w < 2; w++) {
		int status;

		cr_assert_eq(waitpid(pid[w], &status, 0), pid[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: %#x", w, status);
	}
	text = slurp(path);
	cr_assert_eq(count_lines(text), 2 * LINES);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *v = json_loads(line, 0, NULL);
		const char *r;

		cr_assert_not_null(v, "a line that is not JSON: %.80s...", line);
		r = json_string_value(json_object_get(v, "reason"));
		cr_assert_eq(strlen(r), PROXY_AUDIT_FIELD_MAX);
		cr_assert(r[0] == 'x' || r[0] == 'y');
		cr_assert_eq(strspn(r, r[0] == 'x' ? "x" : "y"), PROXY_AUDIT_FIELD_MAX - 3);
		seen[r[0] == 'y']++;
		json_decref(v);
	}
	cr_assert_eq(seen[0], LINES);
	cr_assert_eq(seen[1], LINES);
}

static char *
daily_path(char *buf, size_t len, const char *date)
{
	snprintf(buf, len, "%s/" PROXY_AUDIT_DAILY_PREFIX "%s" PROXY_AUDIT_DAILY_SUFFIX, root, date);
	return buf;
}

/* Each line in the file of its decision's UTC date; the date changes
 * between two records, and the second goes to the next day's file. */
Test(proxy_audit, daily_file_by_utc_date, .init = make_root, .fini = remove_root)
{
	struct proxy_decision late = decision(at(2026, 12, 1, 23, 59, 59, 999999999), "late.example");
	struct proxy_decision early = decision(at(2026, 12, 2, 0, 0, 0, 0), "early.example");
	char path[PATH_MAX], err[256], today[16];
	struct proxy_audit *a;
	struct timespec now;
	struct stat st;
	struct tm tm;
	char *text;

	setenv("TZ", "<-10>10", 1); /* local midnight is elsewhere */
	tzset();
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, root, err, sizeof(err)), 0, "%s", err);
	cr_assert_geq(proxy_audit_dir_fd(a), 0);
	/* Today's file is opened at once, before the proxy confines itself. */
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(today, sizeof(today), "%Y-%m-%d", &tm);
	cr_assert_eq(stat(daily_path(path, sizeof(path), today), &st), 0, "%s", path);
	cr_assert_eq(st.st_mode & 07777, 0600);

	cr_assert_eq(proxy_audit_record(a, &late), 0);
	cr_assert_eq(proxy_audit_record(a, &early), 0);
	cr_assert_eq(proxy_audit_record(a, &early), 0);
	proxy_audit_close(a);

	text = slurp(daily_path(path, sizeof(path), "2026-12-01"));
	cr_assert_eq(count_lines(text), 1);
	cr_assert_not_null(strstr(text, "\"late.example\""));
	text = slurp(daily_path(path, sizeof(path), "2026-12-02"));
	cr_assert_eq(count_lines(text), 2);
	cr_assert_not_null(strstr(text, "\"early.example\""));
	cr_assert_null(strstr(text, "\"late.example\""));
}

/* Later days are opened through the directory descriptor the sink kept,
 * not by name: what Landlock is told to allow is that very directory,
 * wherever it is now. */
Test(proxy_audit, daily_opens_through_the_kept_directory, .init = make_root, .fini = remove_root)
{
	struct proxy_decision d = decision(at(2030, 6, 15, 12, 0, 0, 0), "example.org");
	char dir[256], moved[256], path[PATH_MAX], err[256];
	struct proxy_audit *a;

	snprintf(dir, sizeof(dir), "%s/net", root);
	snprintf(moved, sizeof(moved), "%s/moved", root);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rename(dir, moved), 0);
	cr_assert_eq(proxy_audit_record(a, &d), 0);
	proxy_audit_close(a);
	snprintf(path, sizeof(path), "%s/network-audit.2030-06-15.jsonl", moved);
	cr_assert_eq(count_lines(slurp(path)), 1);
	snprintf(path, sizeof(path), "%s/network-audit.2030-06-15.jsonl", dir);
	cr_assert_eq(access(path, F_OK), -1);
}

/* A link planted under a coming day's name is not followed: the record
 * fails (and so the connection is refused) instead of writing elsewhere. */
Test(proxy_audit, daily_refuses_a_planted_link, .init = make_root, .fini = remove_root)
{
	struct proxy_decision d = decision(at(2030, 6, 15, 12, 0, 0, 0), "example.org");
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct proxy_audit *a;

	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, root, err, sizeof(err)), 0, "%s", err);
	snprintf(target, sizeof(target), "%s/elsewhere", root);
	cr_assert_eq(symlink(target, daily_path(path, sizeof(path), "2030-06-15")), 0);
	cr_assert_eq(proxy_audit_record(a, &d), -ELOOP);
	cr_assert_eq(access(target, F_OK), -1);
	proxy_audit_close(a);
}

/* heel-proxy creates no directories: a missing one is an error that names
 * it, and is still missing afterwards. */
Test(proxy_audit, missing_directory_is_named, .init = make_root, .fini = remove_root)
{
	char path[PATH_MAX], dir[256], err[512];
	struct proxy_audit *a = (struct proxy_audit *)1;

	snprintf(dir, sizeof(dir), "%s/no/such", root);
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)), -ENOENT);
	cr_assert_null(a);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "does not exist"), "%s", err);

	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, dir, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "does not exist"), "%s", err);
	snprintf(dir, sizeof(dir), "%s/no", root);
	cr_assert_eq(access(dir, F_OK), -1);

	/* A file where the directory should be. */
	snprintf(dir, sizeof(dir), "%s/file", root);
	cr_assert_eq(close(open(dir, O_CREAT | O_WRONLY, 0600)), 0);
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)), -ENOTDIR);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "is not a directory"), "%s", err);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, dir, err, sizeof(err)), -ENOTDIR);
	cr_assert_not_null(strstr(err, "is not a directory"), "%s", err);
}

/* A path that names a directory is not a file sink. */
Test(proxy_audit, a_directory_is_no_audit_file, .init = make_root, .fini = remove_root)
{
	char err[512];
	struct proxy_audit *a;

	cr_assert_eq(sink_open(&a, PROXY_AUDIT_FILE, root, err, sizeof(err)), -EISDIR);
	cr_assert_not_null(strstr(err, root), "%s", err);
}

/* A decision that cannot be recorded is a refusal: the write's error
 * reaches the caller (here the file size limit, EFBIG). */
Test(proxy_audit, write_failure_is_an_error, .init = make_root, .fini = remove_root)
{
	char path[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/full.jsonl", root);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), "example.org");
		struct rlimit rl = { 0, 0 };
		struct proxy_audit *a;
		char err[512];
		int rc[2];

		signal(SIGXFSZ, SIG_IGN);
		if (sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)) < 0 ||
		    setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		rc[0] = proxy_audit_record(a, &d);
		rc[1] = proxy_audit_record(a, &d);
		proxy_audit_close(a);
		_exit(rc[0] == -EFBIG && rc[1] == -EFBIG ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* A hard link planted under the file's name (a second name for
 * ~/.bashrc) and a link under a coming day's name are never written. */
Test(proxy_audit, second_names_refused, .init = make_root, .fini = remove_root)
{
	char path[PATH_MAX], target[PATH_MAX], err[1024];
	struct proxy_audit *a;

	snprintf(target, sizeof(target), "%s/bashrc", root);
	cr_assert_eq(close(open(target, O_CREAT | O_WRONLY, 0600)), 0);
	snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	cr_assert_eq(link(target, path), 0);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)), -EPERM);
	cr_assert_not_null(strstr(err, "more than one name"), "%s", err);
	cr_assert_eq(sink_open(&a, PROXY_AUDIT_DAILY, root, err, sizeof(err)), 0, "%s", err);
	{
		struct proxy_decision d = decision(at(2031, 1, 2, 12, 0, 0, 0), "example.org");
		char day[PATH_MAX];

		snprintf(day, sizeof(day), "%s/network-audit.2031-01-02.jsonl", root);
		cr_assert_eq(link(target, day), 0);
		cr_assert_eq(proxy_audit_record(a, &d), -EPERM);
	}
	proxy_audit_close(a);
	cr_assert_eq(strlen(slurp(target)), 0);
}

/* A short write (the file size limit reached mid-line) is an error, and
 * the sink writes nothing more to that file: a next line would be glued
 * to the torn one. */
Test(proxy_audit, short_write_is_an_error_and_sticks, .init = make_root, .fini = remove_root)
{
	char path[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/small.jsonl", root);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct proxy_decision d = decision(at(2026, 12, 1, 0, 0, 0, 0), "example.org");
		struct rlimit rl = { 200, 200 };
		struct proxy_audit *a;
		char err[256];
		int rc[3];

		signal(SIGXFSZ, SIG_IGN);
		if (sink_open(&a, PROXY_AUDIT_FILE, path, err, sizeof(err)) < 0 ||
		    setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		rc[0] = proxy_audit_record(a, &d); /* fits */
		rc[1] = proxy_audit_record(a, &d); /* torn at 200 bytes */
		rc[2] = proxy_audit_record(a, &d);
		proxy_audit_close(a);
		_exit(rc[0] == 0 && rc[1] == -EIO && rc[2] == -EIO ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	cr_assert_eq(strlen(slurp(path)), 200);
}

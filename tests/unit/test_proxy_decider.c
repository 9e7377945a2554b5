/* SPDX-License-Identifier: MIT
 * The network decider's client (runtime/proxy/decider.c) against real
 * decider programs, small shell scripts each test writes: answers in the
 * order of the questions, and every way a decider can fail (silence, a
 * crash, garbage, an oversized line, a closed output) a refusal of that
 * question and of every later one, with a reason that says why; and no
 * process of the decider's left after it died or was stopped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decider.h"

static char root[64];

static void
setup(void)
{
	/* As heel-proxy does: a write to a decider that is gone fails with
	 * EPIPE instead of killing the process. */
	signal(SIGPIPE, SIG_IGN);
	snprintf(root, sizeof(root), "/tmp/heel-decider-test-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(proxy_decider, .init = setup, .fini = teardown, .timeout = 30);

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the callback was told, in order. */
enum { MAX_ANSWERS = 300 };
static struct {
	size_t n;
	uint64_t token[MAX_ANSWERS];
	bool allow[MAX_ANSWERS];
	char reason[MAX_ANSWERS][PROXY_DECIDER_LINE_MAX + 1];
} got;

static void
on_answer(void *ctx, uint64_t token, bool allow, const char *reason)
{
	cr_assert_eq(ctx, &got);
	cr_assert_lt(got.n, MAX_ANSWERS);
	cr_assert_not_null(reason);
	got.token[got.n] = token;
	got.allow[got.n] = allow;
	snprintf(got.reason[got.n], sizeof(got.reason[0]), "%s", reason);
	got.n++;
}

/* The proxy's event loop, in small: until `want` answers came or
 * limit_ms passed. Returns how often the decider was found dead. */
static int
pump(struct proxy_decider *d, size_t want, long long limit_ms)
{
	long long end = now_ms() + limit_ms;
	int deaths = 0;

	while (got.n < want && now_ms() < end) {
		long long now = now_ms(), wait = end - now, deadline = proxy_decider_next_deadline(d);
		struct pollfd p[2];
		nfds_t np = 0;

		if (deadline >= 0)
			wait = deadline > now ? (deadline - now < wait ? deadline - now : wait) : 0;
		if (proxy_decider_read_fd(d) >= 0)
			p[np++] = (struct pollfd){ proxy_decider_read_fd(d), POLLIN, 0 };
		if (proxy_decider_wants_write(d))
			p[np++] = (struct pollfd){ proxy_decider_write_fd(d), POLLOUT, 0 };
		cr_assert_geq(poll(p, np, (int)wait), 0);
		for (nfds_t i = 0; i < np; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == proxy_decider_read_fd(d))
				deaths += proxy_decider_readable(d, on_answer, &got);
			else if (p[i].fd == proxy_decider_write_fd(d))
				deaths += proxy_decider_writable(d, on_answer, &got);
		}
		deaths += proxy_decider_expire(d, now_ms(), on_answer, &got);
	}
	return deaths;
}

static void
write_script(char *path, size_t len, const char *name, const char *body)
{
	FILE *f;

	snprintf(path, len, "%s/%s", root, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(path, 0755), 0);
}

static struct proxy_decider *
start(const char *name, const char *body, const char *arg)
{
	char path[PATH_MAX], err[256];
	char *argv[] = { path, (char *)arg, NULL };
	struct proxy_decider *d;

	write_script(path, sizeof(path), name, body);
	cr_assert_eq(proxy_decider_start(&d, argv, err, sizeof(err)), 0, "%s", err);
	return d;
}

static void
ask(struct proxy_decider *d, uint64_t token, const char *host, bool allowed_by_list)
{
	const char *why = NULL;
	int rc = proxy_decider_ask(d, token, host, 443, "CONNECT", allowed_by_list, now_ms(), &why);

	cr_assert_eq(rc, 0, "ask %s: %d %s", host, rc, why ? why : "");
}

/* Gone: reaped, so not even a zombie (kill(2) finds zombies). */
static void
assert_gone(pid_t pid)
{
	cr_assert_eq(kill(pid, 0), -1, "process %d is still there", pid);
	cr_assert_eq(errno, ESRCH);
	cr_assert_eq(waitpid(pid, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);
}

/* After a death: the question in flight and every later one refused with
 * the same reason, the decider's descriptors closed and its process
 * reaped. */
static void
assert_dead(struct proxy_decider *d, pid_t pid, const char *reason)
{
	const char *why = NULL;

	cr_assert_str_eq(proxy_decider_dead_reason(d), reason);
	cr_assert_eq(proxy_decider_ask(d, 99, "later.example", 443, "CONNECT", true, now_ms(), &why),
		     -EPIPE);
	cr_assert_str_eq(why, reason);
	cr_assert_eq(proxy_decider_read_fd(d), -1);
	cr_assert_eq(proxy_decider_write_fd(d), -1);
	cr_assert_eq(proxy_decider_next_deadline(d), -1);
	assert_gone(pid);
}

#define ANSWER_LOOP(line) "while IFS= read -r q; do echo '" line "'; done"

Test(proxy_decider, allows)
{
	struct proxy_decider *d = start("allow", ANSWER_LOOP("{\"allow\":true}"), NULL);
	pid_t pid = proxy_decider_pid(d);

	ask(d, 7, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert_eq(got.token[0], 7);
	cr_assert(got.allow[0]);
	cr_assert_str_eq(got.reason[0], "allowed by the network decider");
	cr_assert_null(proxy_decider_dead_reason(d));
	cr_assert_eq(proxy_decider_next_deadline(d), -1);
	proxy_decider_stop(d);
	assert_gone(pid);
}

Test(proxy_decider, refuses_with_a_reason)
{
	struct proxy_decider *d =
		start("refuse", ANSWER_LOOP("{\"allow\":false,\"reason\":\"not on a weekday\"}"), NULL);

	ask(d, 1, "example.org", true);
	ask(d, 2, "example.net", true);
	pump(d, 2, 5000);
	cr_assert_eq(got.n, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(got.token[i], (uint64_t)i + 1);
		cr_assert_not(got.allow[i]);
		cr_assert_str_eq(got.reason[i], "not on a weekday");
	}
	proxy_decider_stop(d);
}

/* The question as the decider reads it, byte for byte, and an answer
 * made from it: the allow-list's verdict passed along. */
Test(proxy_decider, the_question_and_allowed_by_list)
{
	char log[PATH_MAX], line[512];
	struct proxy_decider *d;
	const char *why;
	FILE *f;

	snprintf(log, sizeof(log), "%s/questions", root);
	d = start("list",
		  "while IFS= read -r q; do\n"
		  "  printf '%s\\n' \"$q\" >>\"$1\"\n"
		  "  case \"$q\" in\n"
		  "  *'\"allowed_by_list\":true}') echo '{\"allow\":true,\"reason\":\"the list said "
		  "yes\"}' ;;\n"
		  "  *) echo '{\"allow\":false,\"reason\":\"the list said no\"}' ;;\n"
		  "  esac\n"
		  "done",
		  log);
	cr_assert_eq(proxy_decider_ask(d, 1, "example.org", 443, "CONNECT", true, now_ms(), &why), 0);
	cr_assert_eq(proxy_decider_ask(d, 2, "2001:db8::1", 80, "GET", false, now_ms(), &why), 0);
	cr_assert_eq(proxy_decider_ask(d, 3, "a\"b", 1080, "SOCKS5", true, now_ms(), &why), 0);
	pump(d, 3, 5000);
	cr_assert_eq(got.n, 3);
	cr_assert(got.allow[0]);
	cr_assert_str_eq(got.reason[0], "the list said yes");
	cr_assert_not(got.allow[1]);
	cr_assert_str_eq(got.reason[1], "the list said no");
	cr_assert(got.allow[2]);
	proxy_decider_stop(d);

	f = fopen(log, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "{\"host\":\"example.org\",\"port\":443,\"method\":\"CONNECT\","
			       "\"allowed_by_list\":true}\n");
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "{\"host\":\"2001:db8::1\",\"port\":80,\"method\":\"GET\","
			       "\"allowed_by_list\":false}\n");
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "{\"host\":\"a\\\"b\",\"port\":1080,\"method\":\"SOCKS5\","
			       "\"allowed_by_list\":true}\n");
	cr_assert_null(fgets(line, sizeof(line), f));
	fclose(f);
}

/* Five questions pending at once, answered in the order they were asked:
 * the decider reads all five before it answers one. */
Test(proxy_decider, answers_in_question_order)
{
	struct proxy_decider *d =
		start("batch",
		      "i=0; while [ $i -lt 5 ]; do IFS= read -r q; i=$((i + 1)); done\n"
		      "i=1; while [ $i -le 5 ]; do\n"
		      "  if [ $((i % 2)) = 1 ]; then a=true; else a=false; fi\n"
		      "  printf '{\"allow\":%s,\"reason\":\"answer %d\"}\\n' $a $i\n"
		      "  i=$((i + 1))\n"
		      "done\n"
		      "exec cat >/dev/null",
		      NULL);
	char want[32];

	for (uint64_t t = 0; t < 5; t++)
		ask(d, 100 + t, "example.org", false);
	pump(d, 5, 5000);
	cr_assert_eq(got.n, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_assert_eq(got.token[i], 100 + i);
		cr_assert_eq(got.allow[i], i % 2 == 0);
		snprintf(want, sizeof(want), "answer %zu", i + 1);
		cr_assert_str_eq(got.reason[i], want);
	}
	proxy_decider_stop(d);
}

/* A decider that never answers: the question is refused when the timeout
 * passes, not before, and every later one at once. */
Test(proxy_decider, a_hung_decider_times_out)
{
	struct proxy_decider *d = start("hang", "exec sleep 1000", NULL);
	pid_t pid = proxy_decider_pid(d);
	const char *reason = "the network decider timed out (no answer within 200 ms)";
	long long t0 = now_ms();
	int deaths;

	proxy_decider_set_timeout(d, 200);
	ask(d, 1, "example.org", true);
	ask(d, 2, "example.net", true);
	cr_assert_geq(proxy_decider_next_deadline(d), t0 + 200);
	cr_assert_leq(proxy_decider_next_deadline(d), now_ms() + 200);
	cr_assert_eq(proxy_decider_expire(d, now_ms(), on_answer, &got), 0);
	deaths = pump(d, 2, 5000);
	cr_assert_geq(now_ms() - t0, 200);
	cr_assert_eq(deaths, 1);
	cr_assert_eq(got.n, 2);
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(got.token[i], i + 1);
		cr_assert_not(got.allow[i]);
		cr_assert_str_eq(got.reason[i], reason);
	}
	assert_dead(d, pid, reason);
	proxy_decider_stop(d);
}

/* Exit mid-run: the first question answered, the second refused with
 * the exit status. */
Test(proxy_decider, an_exit_mid_run_names_the_status)
{
	struct proxy_decider *d = start("crash",
					"IFS= read -r q; echo '{\"allow\":true}'\n"
					"IFS= read -r q; exit 3",
					NULL);
	pid_t pid = proxy_decider_pid(d);
	const char *reason = "the network decider exited with status 3";

	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert(got.allow[0]);
	ask(d, 2, "example.net", false);
	pump(d, 2, 5000);
	cr_assert_eq(got.n, 2);
	cr_assert_eq(got.token[1], 2);
	cr_assert_not(got.allow[1]);
	cr_assert_str_eq(got.reason[1], reason);
	assert_dead(d, pid, reason);
	proxy_decider_stop(d);
}

Test(proxy_decider, a_crash_names_the_signal)
{
	struct proxy_decider *d = start("segv",
					"IFS= read -r q; echo '{\"allow\":true}'\n"
					"IFS= read -r q; kill -SEGV $$",
					NULL);
	pid_t pid = proxy_decider_pid(d);

	ask(d, 1, "example.org", false);
	ask(d, 2, "example.net", false);
	pump(d, 2, 5000);
	cr_assert_eq(got.n, 2);
	cr_assert(got.allow[0]);
	cr_assert_not(got.allow[1]);
	cr_assert_str_eq(got.reason[1],
			 "the network decider was killed by signal 11 (Segmentation fault)");
	assert_dead(d, pid, got.reason[1]);
	proxy_decider_stop(d);
}

Test(proxy_decider, garbage_is_a_refusal)
{
	struct proxy_decider *d = start("garbage", ANSWER_LOOP("yes, go ahead"), NULL);
	pid_t pid = proxy_decider_pid(d);
	const char *reason =
		"the network decider answered something that is not {allow, reason} (not JSON)";

	ask(d, 1, "example.org", true);
	ask(d, 2, "example.net", true);
	cr_assert_eq(pump(d, 2, 5000), 1);
	cr_assert_eq(got.n, 2);
	cr_assert_not(got.allow[0]);
	cr_assert_not(got.allow[1]);
	cr_assert_str_eq(got.reason[0], reason);
	cr_assert_str_eq(got.reason[1], reason);
	assert_dead(d, pid, reason);
	proxy_decider_stop(d);
}

/* Every way an answer can be wrong, each the death of the decider. */
Test(proxy_decider, bad_answers)
{
	static const struct {
		const char *answer;
		const char *detail;
	} cases[] = {
		{ "", "not JSON" },
		{ "{\"allow\":true", "not JSON" },
		{ "{\"allow\":true} {\"allow\":true}", "not JSON" },
		{ "{\"allow\":true,\"reason\":\"a\\u0000b\"}", "not JSON" },
		{ "true", "not an object" },
		{ "[{\"allow\":true}]", "not an object" },
		{ "\"allow\"", "not an object" },
		{ "{}", "no \"allow\" of true or false" },
		{ "{\"reason\":\"fine\"}", "no \"allow\" of true or false" },
		{ "{\"allow\":\"yes\"}", "no \"allow\" of true or false" },
		{ "{\"allow\":1}", "no \"allow\" of true or false" },
		{ "{\"allow\":null}", "no \"allow\" of true or false" },
		{ "{\"Allow\":true}", "no \"allow\" of true or false" },
		{ "{\"allow\":true,\"allow\":false}", "a key twice" },
		{ "{\"allow\":false,\"reason\":7}", "a \"reason\" that is not a string" },
		{ "{\"allow\":false,\"reason\":[\"x\"]}", "a \"reason\" that is not a string" },
	};
	char want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proxy_decider *d =
			start("say", "while IFS= read -r q; do printf '%s\\n' \"$1\"; done",
			      cases[i].answer);
		pid_t pid = proxy_decider_pid(d);

		got.n = 0;
		ask(d, 1, "example.org", true);
		pump(d, 1, 5000);
		snprintf(want, sizeof(want),
			 "the network decider answered something that is not {allow, reason} (%s)",
			 cases[i].detail);
		cr_assert_eq(got.n, 1, "case %zu", i);
		cr_assert_not(got.allow[0], "case %zu", i);
		cr_assert_str_eq(got.reason[0], want, "case %zu: %s", i, cases[i].answer);
		assert_dead(d, pid, want);
		proxy_decider_stop(d);
	}
}

/* What a good answer may also be: other keys, spaces, a null or empty
 * reason (the default text then), non-ASCII; control characters in the
 * reason become spaces, so it cannot end the proxy's 403 line. */
Test(proxy_decider, good_answers)
{
	static const struct {
		const char *answer;
		bool allow;
		const char *reason;
	} cases[] = {
		{ "{\"allow\":true,\"extra\":[1,{\"a\":2}],\"reason\":\"ok\"}", true, "ok" },
		{ "  { \"reason\" : \"spaced\" , \"allow\" : false }  ", false, "spaced" },
		{ "{\"allow\":false,\"reason\":null}", false, "refused by the network decider" },
		{ "{\"allow\":true,\"reason\":\"\"}", true, "allowed by the network decider" },
		{ "{\"allow\":true,\"reason\":\"caf\\u00e9 \xe2\x9c\x93\"}", true,
		  "caf\xc3\xa9 \xe2\x9c\x93" },
		{ "{\"allow\":false,\"reason\":\"a\\u0007b\\r\\nc\\u0085d\\u007fe\"}", false,
		  "a b  c d e" },
		{ "{\"allow\":true}\r", true, "allowed by the network decider" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proxy_decider *d =
			start("say", "while IFS= read -r q; do printf '%s\\n' \"$1\"; done",
			      cases[i].answer);

		got.n = 0;
		ask(d, 1, "example.org", true);
		ask(d, 2, "example.org", true);
		pump(d, 2, 5000);
		cr_assert_eq(got.n, 2, "case %zu", i);
		for (int j = 0; j < 2; j++) {
			cr_assert_eq(got.allow[j], cases[i].allow, "case %zu", i);
			cr_assert_str_eq(got.reason[j], cases[i].reason, "case %zu", i);
		}
		cr_assert_null(proxy_decider_dead_reason(d));
		proxy_decider_stop(d);
	}
}

/* A line of PROXY_DECIDER_LINE_MAX bytes is an answer; one byte more is
 * not. {"allow":true,"reason":"..."} is 26 bytes around the reason. */
Test(proxy_decider, a_line_over_4096_bytes)
{
	static const char *body = "pad=$(head -c \"$1\" /dev/zero | tr '\\0' x)\n"
				  "while IFS= read -r q; do\n"
				  "  printf '{\"allow\":true,\"reason\":\"%s\"}\\n' \"$pad\"\n"
				  "done";
	char n[16];
	struct proxy_decider *d;
	pid_t pid;

	snprintf(n, sizeof(n), "%d", PROXY_DECIDER_LINE_MAX - 26);
	d = start("long", body, n);
	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert(got.allow[0]);
	cr_assert_eq(strlen(got.reason[0]), PROXY_DECIDER_LINE_MAX - 26);
	proxy_decider_stop(d);

	got.n = 0;
	snprintf(n, sizeof(n), "%d", PROXY_DECIDER_LINE_MAX - 25);
	d = start("long", body, n);
	pid = proxy_decider_pid(d);
	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert_not(got.allow[0]);
	cr_assert_str_eq(got.reason[0], "the network decider answered something that is not "
					"{allow, reason} (a line over 4096 bytes)");
	assert_dead(d, pid, got.reason[0]);
	proxy_decider_stop(d);

	/* Far over, with no newline at all. */
	got.n = 0;
	d = start("flood", "head -c 100000 /dev/zero | tr '\\0' x; exec sleep 1000", NULL);
	pid = proxy_decider_pid(d);
	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert_not(got.allow[0]);
	cr_assert_not_null(strstr(got.reason[0], "(a line over 4096 bytes)"));
	assert_dead(d, pid, got.reason[0]);
	proxy_decider_stop(d);
}

/* A decider that closes its stdout and lives on is dead to the proxy,
 * and killed: nothing of it is left to hang. */
Test(proxy_decider, a_closed_output_is_a_refusal)
{
	struct proxy_decider *d = start("closeout", "exec >&-; exec sleep 1000", NULL);
	pid_t pid = proxy_decider_pid(d);
	const char *reason = "the network decider closed its output";

	ask(d, 1, "example.org", true);
	cr_assert_eq(pump(d, 1, 5000), 1);
	cr_assert_eq(got.n, 1);
	cr_assert_not(got.allow[0]);
	cr_assert_str_eq(got.reason[0], reason);
	assert_dead(d, pid, reason);
	proxy_decider_stop(d);
}

/* An answer before any question answers nothing: a decider out of step
 * with its questions cannot be trusted with the next one. */
Test(proxy_decider, an_answer_nobody_asked_for)
{
	struct proxy_decider *d = start("early", "echo '{\"allow\":true}'; exec cat >/dev/null", NULL);
	pid_t pid = proxy_decider_pid(d);
	const char *reason = "the network decider answered a question that was not asked";
	struct pollfd p = { proxy_decider_read_fd(d), POLLIN, 0 };

	cr_assert_eq(poll(&p, 1, 5000), 1);
	cr_assert_eq(proxy_decider_readable(d, on_answer, &got), 1);
	cr_assert_eq(got.n, 0);
	assert_dead(d, pid, reason);
	proxy_decider_stop(d);
}

/* Beyond PROXY_DECIDER_PENDING_MAX questions the next is refused at
 * once, without killing the decider. */
Test(proxy_decider, too_many_pending)
{
	struct proxy_decider *d = start("slow", "exec sleep 1000", NULL);
	const char *why = NULL;

	for (uint64_t t = 0; t < PROXY_DECIDER_PENDING_MAX; t++)
		ask(d, t, "example.org", false);
	cr_assert_eq(proxy_decider_ask(d, 1000, "example.org", 443, "CONNECT", false, now_ms(),
				       &why),
		     -EBUSY);
	cr_assert_str_eq(why, "the network decider has too many questions pending");
	cr_assert_null(proxy_decider_dead_reason(d));
	cr_assert_eq(got.n, 0);
	proxy_decider_stop(d);
}

/* More questions than the pipe holds: they wait in the buffer and go out
 * as the decider reads, and every one is answered. */
Test(proxy_decider, questions_wait_for_a_full_pipe)
{
	struct proxy_decider *d = start("sleepy",
					"sleep 0.3\n" ANSWER_LOOP("{\"allow\":true}"), NULL);
	char host[254];
	bool waited = false;

	/* 253 bytes, the longest name: 256 questions are some 80 KiB, more
	 * than a pipe's 64 KiB. */
	memset(host, 'a', sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	for (size_t i = 63; i < sizeof(host) - 1; i += 64)
		host[i] = '.';
	for (uint64_t t = 0; t < PROXY_DECIDER_PENDING_MAX; t++) {
		ask(d, t, host, false);
		waited |= proxy_decider_wants_write(d);
	}
	cr_assert(waited, "the pipe never filled");
	pump(d, PROXY_DECIDER_PENDING_MAX, 10000);
	cr_assert_eq(got.n, PROXY_DECIDER_PENDING_MAX);
	for (size_t i = 0; i < got.n; i++) {
		cr_assert_eq(got.token[i], i);
		cr_assert(got.allow[i]);
	}
	cr_assert_not(proxy_decider_wants_write(d));
	proxy_decider_stop(d);
}

/* Text that cannot become a question is refused at once. */
Test(proxy_decider, unfit_questions)
{
	struct proxy_decider *d = start("allow", ANSWER_LOOP("{\"allow\":true}"), NULL);
	static char long_host[2000];
	const char *why = NULL;

	cr_assert_eq(proxy_decider_ask(d, 1, "a\xff", 443, "CONNECT", false, now_ms(), &why),
		     -EINVAL);
	cr_assert_not_null(why);
	memset(long_host, 'a', sizeof(long_host) - 1);
	cr_assert_eq(proxy_decider_ask(d, 2, long_host, 443, "CONNECT", false, now_ms(), &why),
		     -EINVAL);
	cr_assert_eq(proxy_decider_ask(d, 3, NULL, 443, "CONNECT", false, now_ms(), &why), -EINVAL);
	cr_assert_null(proxy_decider_dead_reason(d));
	cr_assert_eq(proxy_decider_next_deadline(d), -1);
	proxy_decider_stop(d);
}

/* What the decider gets from the proxy: the fixed environment (never a
 * variable of the launcher's), no descriptor but its three, no blocked
 * or ignored signal, a process group of its own. */
Test(proxy_decider, what_the_decider_inherits)
{
	struct proxy_decider *d;
	char fd[16];
	const char *ign;
	sigset_t usr1;
	int leak;
	pid_t pid;

	setenv("HOME", "/home/heel-test", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("HEEL_TEST_SECRET", "hunter2", 1);
	leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC */
	cr_assert_geq(leak, 3);
	snprintf(fd, sizeof(fd), "%d", leak);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	d = start("inherit",
		  "IFS= read -r q\n"
		  "leak=no; [ -e /proc/$$/fd/$1 ] && leak=yes\n"
		  "blk=$(grep SigBlk /proc/$$/status | tr -d '\\t ')\n"
		  "ign=$(grep SigIgn /proc/$$/status | tr -d '\\t ')\n"
		  "env=$(env | sort | tr '\\n' ' ')\n"
		  "printf '{\"allow\":true,\"reason\":\"leak=%s %s %s env=%s\"}\\n' "
		  "\"$leak\" \"$blk\" \"$ign\" \"$env\"\n"
		  "exec cat >/dev/null",
		  fd);
	pid = proxy_decider_pid(d);
	close(leak);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	cr_assert_eq(getpgid(pid), pid);

	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert_not_null(strstr(got.reason[0], "leak=no "), "%s", got.reason[0]);
	cr_assert_not_null(strstr(got.reason[0], "SigBlk:0000000000000000"), "%s", got.reason[0]);
	/* Signals 1..31 (SIGPIPE among them); glibc keeps 32 and 33 for
	 * itself, and its sigaction() cannot reset them. */
	ign = strstr(got.reason[0], "SigIgn:");
	cr_assert_not_null(ign);
	cr_assert_eq(strtoull(ign + 7, NULL, 16) & 0x7fffffffULL, 0, "%s", got.reason[0]);
	cr_assert_not_null(strstr(got.reason[0], " PATH=/usr/bin:/bin "), "%s", got.reason[0]);
	cr_assert_not_null(strstr(got.reason[0], "env=HOME=/home/heel-test "), "%s", got.reason[0]);
	cr_assert_not_null(strstr(got.reason[0], " LANG=C.UTF-8 "), "%s", got.reason[0]);
	cr_assert_null(strstr(got.reason[0], "HEEL_TEST_SECRET"), "%s", got.reason[0]);
	proxy_decider_stop(d);
}

/* A program given by name is looked up in the decider's PATH; its
 * arguments are passed as they are. */
Test(proxy_decider, a_name_and_arguments)
{
	char *argv[] = { "sh", "-c", "while IFS= read -r q; do echo \"$0\"; done",
			 "{\"allow\":false,\"reason\":\"from sh -c\"}", NULL };
	struct proxy_decider *d;
	char err[256];

	cr_assert_eq(proxy_decider_start(&d, argv, err, sizeof(err)), 0, "%s", err);
	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	cr_assert_str_eq(got.reason[0], "from sh -c");
	proxy_decider_stop(d);
}

/* A program that cannot be executed is an error at start, naming it. */
Test(proxy_decider, a_program_that_cannot_run)
{
	char path[PATH_MAX], err[512];
	char *argv[] = { path, NULL };
	struct proxy_decider *d = (struct proxy_decider *)1;

	snprintf(path, sizeof(path), "%s/missing", root);
	cr_assert_eq(proxy_decider_start(&d, argv, err, sizeof(err)), -ENOENT);
	cr_assert_null(d);
	cr_assert_not_null(strstr(err, path), "%s", err);
	/* Not executable: execve(2) wants an execute bit, from root too. */
	write_script(path, sizeof(path), "noexec", "exit 0");
	cr_assert_eq(chmod(path, 0644), 0);
	cr_assert_eq(proxy_decider_start(&d, argv, err, sizeof(err)), -EACCES);
	cr_assert_not_null(strstr(err, path), "%s", err);
	cr_assert_eq(proxy_decider_start(&d, (char *[]){ NULL }, err, sizeof(err)), -EINVAL);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child left behind");
	cr_assert_eq(errno, ECHILD);
}

/* Stopping a decider that ignores SIGTERM, and a child it started: the
 * group is killed after the grace, and nothing is left. */
Test(proxy_decider, stop_leaves_nothing)
{
	char pidfile[PATH_MAX];
	struct proxy_decider *d;
	long long t0;
	pid_t pid, child = 0;
	int status;
	FILE *f;

	snprintf(pidfile, sizeof(pidfile), "%s/child", root);
	d = start("stubborn",
		  "trap '' TERM\n"
		  "sleep 1000 </dev/null >/dev/null &\n"
		  "echo $! >\"$1\"\n"
		  ANSWER_LOOP("{\"allow\":true}") "\n"
		  "while :; do sleep 1; done",
		  pidfile);
	pid = proxy_decider_pid(d);
	ask(d, 1, "example.org", false);
	pump(d, 1, 5000);
	cr_assert_eq(got.n, 1);
	f = fopen(pidfile, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%d", &child), 1);
	fclose(f);
	cr_assert_eq(getpgid(child), pid);

	t0 = now_ms();
	status = proxy_decider_stop(d);
	cr_assert_geq(now_ms() - t0, PROXY_DECIDER_STOP_GRACE_MS);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
	assert_gone(pid);
	/* The child is not ours to reap: wait until whoever reaps orphans
	 * did, or it is at least a zombie. */
	for (int i = 0; i < 500 && kill(child, 0) == 0; i++) {
		char path[64], state = 0;

		snprintf(path, sizeof(path), "/proc/%d/stat", child);
		f = fopen(path, "r");
		if (f && fscanf(f, "%*d (%*[^)]) %c", &state) == 1 && state == 'Z') {
			fclose(f);
			break;
		}
		if (f)
			fclose(f);
		usleep(10000);
	}
	{
		char path[64], state = 0;

		snprintf(path, sizeof(path), "/proc/%d/stat", child);
		f = fopen(path, "r");
		if (f) {
			cr_assert_eq(fscanf(f, "%*d (%*[^)]) %c", &state), 1);
			fclose(f);
			cr_assert_eq(state, 'Z', "the decider's child is still running");
		}
	}
}

/* A decider that reads its stdin ends at its end: stop returns quickly. */
Test(proxy_decider, stop_of_a_polite_decider)
{
	struct proxy_decider *d = start("allow", ANSWER_LOOP("{\"allow\":true}"), NULL);
	pid_t pid = proxy_decider_pid(d);
	long long t0 = now_ms();

	proxy_decider_stop(d);
	cr_assert_lt(now_ms() - t0, PROXY_DECIDER_STOP_GRACE_MS);
	assert_gone(pid);
	cr_assert_eq(proxy_decider_stop(NULL), 0);
}

/* The decider dies with the proxy (PR_SET_PDEATHSIG), even when the
 * proxy had no time to stop it. */
Test(proxy_decider, dies_with_the_proxy)
{
	char path[PATH_MAX];
	int p[2], status;
	pid_t proxy, pid = 0;
	char state = 0;

	cr_assert_eq(pipe(p), 0);
	proxy = fork();
	cr_assert_geq(proxy, 0);
	if (proxy == 0) {
		char script[PATH_MAX], err[256];
		char *argv[] = { script, NULL };
		struct proxy_decider *d;

		write_script(script, sizeof(script), "orphan", "exec sleep 1000");
		if (proxy_decider_start(&d, argv, err, sizeof(err)) < 0)
			_exit(2);
		pid = proxy_decider_pid(d);
		if (write(p[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	close(p[0]);
	cr_assert_eq(waitpid(proxy, &status, 0), proxy);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");

		if (!f)
			return; /* reaped by whoever reaps orphans */
		state = 0;
		cr_assert_eq(fscanf(f, "%*d (%*[^)]) %c", &state), 1);
		fclose(f);
		if (state == 'Z')
			return;
		usleep(10000);
	}
	cr_assert_fail("the decider outlived its proxy (state %c)", state);
}

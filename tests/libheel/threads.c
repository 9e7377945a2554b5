/* SPDX-License-Identifier: MIT
 * libheel on many threads at once, without a test framework so that it
 * also runs under ThreadSanitizer (make check-libheel-tsan): every thread
 * compiles policies whose diagnostics go through the compiler's formerly
 * static buffers and lazily built tables (a platform list in a warning,
 * the syscall names a "did you mean" searches, the CRC-32C of each
 * artifact), builds a policy of its own and runs a command under it, and
 * all of them spawn one shared policy. Exit 0 when every thread saw its
 * own results. Usage: threads HEEL_EXEC [ROUNDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heel.h"

#define NTHREADS 8

static const char *launcher;
static const heel_policy *shared;
static int rounds = 2;

struct job {
	int n;
	char failure[512];
};

static int
failed(struct job *j, const char *what, const char *msg)
{
	snprintf(j->failure, sizeof(j->failure), "thread %d: %s: %.400s", j->n, what, msg);
	return -1;
}

/* Diagnostics that go through the compiler's shared tables. */
static int
diagnose(struct job *j)
{
	heel_error e;
	heel_policy *p;
	char *w = NULL;
	int rc = 0;

	p = heel_policy_from_string("heel 1\non linux {\n    seccomp deny \"pesonality\"\n}\n",
				    "syscall.heel", &e);
	if (p || !strstr(e.message, "did you mean `personality`"))
		return failed(j, "unknown syscall", e.message);
	/* A warning that names the platforms it holds on. */
	p = heel_policy_from_string("heel 1\nnetwork allow {\n    \"10.1.2.3\"\n}\n"
				    "on linux {\n    network allow-private\n}\n",
				    "private.heel", &e);
	if (!p)
		return failed(j, "private address", e.message);
	if (heel_policy_check(p, NULL, &w, &e))
		rc = failed(j, "private address", e.message);
	else if (!w || !strstr(w, "`10.1.2.3` is refused on macos and windows"))
		rc = failed(j, "platform list", w ? w : "no warning");
	free(w);
	heel_policy_free(p);
	return rc;
}

static int
capture(struct job *j, const heel_policy *p, const char *want)
{
	const char *argv[] = {"sh", "-c", "printf '%s-%s' \"$N\" \"$ADD\"", NULL};
	struct heel_spawn_opts o;
	struct heel_capture c;
	char add[32];
	const char *env[] = {add, NULL};
	heel_error e;
	int bad;

	heel_spawn_opts_init(&o);
	o.launcher = launcher;
	snprintf(add, sizeof(add), "ADD=%d", j->n * 10);
	o.env = env;
	if (heel_run_capture(p, argv, &o, 64, 60000, &c, &e))
		return failed(j, "heel_run_capture", e.message);
	bad = c.status != 0 || strcmp(c.out, want) != 0;
	if (bad) {
		char msg[300];

		snprintf(msg, sizeof(msg), "status %d, out `%.60s` (want `%s`), err %.150s",
			 c.status, c.out, want, c.err);
		failed(j, "output", msg);
	}
	heel_capture_free(&c);
	return bad ? -1 : 0;
}

static void *
job_run(void *arg)
{
	struct job *j = arg;
	char value[16], want[64];
	heel_error e;
	heel_policy *own;

	for (int r = 0; r < rounds; r++) {
		if (diagnose(j))
			return NULL;
		snprintf(value, sizeof(value), "%d", j->n);
		own = heel_policy_new(&e);
		if (!own || heel_policy_env_set(own, "N", value, &e) ||
		    heel_policy_grant(own, "/usr/share", "r", &e) ||
		    heel_policy_limit(own, "open-files", "256", &e)) {
			failed(j, "builder", e.message);
			heel_policy_free(own);
			return NULL;
		}
		snprintf(want, sizeof(want), "%d-%d", j->n, j->n * 10);
		if (capture(j, own, want)) {
			heel_policy_free(own);
			return NULL;
		}
		heel_policy_free(own);
		snprintf(want, sizeof(want), "shared-%d", j->n * 10);
		if (capture(j, shared, want))
			return NULL;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	struct job jobs[NTHREADS];
	heel_error e;
	heel_policy *p;
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: threads HEEL_EXEC [ROUNDS]\n");
		return 2;
	}
	launcher = argv[1];
	if (argc > 2)
		rounds = atoi(argv[2]);
	p = heel_policy_from_string("heel 1\nenv set \"N\" \"shared\"\n", "shared.heel", &e);
	if (!p) {
		fprintf(stderr, "threads: %s\n", e.message);
		return 1;
	}
	shared = p;
	for (int i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct job){.n = i + 1};
		if (pthread_create(&t[i], NULL, job_run, &jobs[i]) != 0)
			return 1;
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++) {
		if (jobs[i].failure[0]) {
			fprintf(stderr, "%s\n", jobs[i].failure);
			bad = 1;
		}
	}
	heel_policy_free(p);
	printf("%d threads, %d rounds each: %s\n", NTHREADS, rounds, bad ? "FAILED" : "ok");
	return bad;
}

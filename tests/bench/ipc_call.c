/* SPDX-License-Identifier: MIT
 * ipc_call ROUNDS CMD [ARG...]: runs CMD ROUNDS times (fork, exec,
 * wait), one after another, and prints the median and the mean time of
 * one run in microseconds. Run on the host with a host command's program,
 * and inside a sandbox with the command's name: the ratio is what a host
 * command call costs against running the same program directly. Static,
 * so it runs from any directory a policy makes executable. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char *argv[])
{
	int rounds = argc > 2 ? atoi(argv[1]) : 0, status;
	double *us, sum = 0;
	struct timespec a, b;
	pid_t pid;

	if (rounds <= 0) {
		fprintf(stderr, "usage: ipc_call ROUNDS CMD [ARG...]\n");
		return 2;
	}
	if (!(us = calloc((size_t)rounds, sizeof(*us))))
		return 1;
	for (int i = 0; i < rounds; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		pid = fork();
		if (pid == 0) {
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "ipc_call: %s failed in round %d\n", argv[2], i);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		us[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
		sum += us[i];
	}
	qsort(us, (size_t)rounds, sizeof(*us), cmp);
	printf("median %.1f us, mean %.1f us, %d rounds\n", us[rounds / 2], sum / rounds, rounds);
	free(us);
	return 0;
}

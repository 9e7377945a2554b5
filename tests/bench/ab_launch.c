/* SPDX-License-Identifier: MIT
 * A/B launch timer for changes smaller than this VM's phase noise: runs
 * two or more commands round-robin (A B C A B C ...), so a slow phase of
 * the machine hits every command alike, and prints each command's median
 * and mean wall time and its median against the first command's.
 * hyperfine runs one command's batch after another, which is right for
 * the published tables but lets a 0.1 ms change vanish in a phase shift.
 * Usage: ab_launch ROUNDS CMD_A... ::: CMD_B... [::: CMD_C...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CMDS = 8 };

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Wall time of one run of argv, output discarded; -1 when it fails. */
static double
run_once(char **argv)
{
	double t0 = now_us();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return now_us() - t0;
}

int
main(int argc, char **argv)
{
	char **cmd[MAX_CMDS];
	int ncmd = 0, rounds;
	double *t[MAX_CMDS], median0 = 0;

	if (argc < 3 || (rounds = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: ab_launch ROUNDS CMD_A... ::: CMD_B...\n");
		return 2;
	}
	cmd[ncmd++] = &argv[2];
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], ":::") != 0)
			continue;
		argv[i] = NULL;
		if (ncmd == MAX_CMDS || i + 1 >= argc) {
			fprintf(stderr, "ab_launch: at most %d commands, none empty\n", MAX_CMDS);
			return 2;
		}
		cmd[ncmd++] = &argv[i + 1];
	}
	for (int c = 0; c < ncmd; c++)
		if (!(t[c] = calloc((size_t)rounds, sizeof(double))))
			return 1;
	for (int r = -rounds / 10 - 1; r < rounds; r++) /* the first tenth warms up */
		for (int c = 0; c < ncmd; c++) {
			double us = run_once(cmd[c]);

			if (us < 0) {
				fprintf(stderr, "ab_launch: %s failed\n", cmd[c][0]);
				return 1;
			}
			if (r >= 0)
				t[c][r] = us;
		}
	for (int c = 0; c < ncmd; c++) {
		double sum = 0, median;

		for (int r = 0; r < rounds; r++)
			sum += t[c][r];
		qsort(t[c], (size_t)rounds, sizeof(double), cmp_double);
		median = t[c][rounds / 2];
		if (c == 0)
			median0 = median;
		printf("%c  median %7.0f us  mean %7.0f us  median/A %.3f  %s\n", 'A' + c, median,
		       sum / rounds, median / median0, cmd[c][0]);
	}
	return 0;
}

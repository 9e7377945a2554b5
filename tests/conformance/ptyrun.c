/* SPDX-License-Identifier: MIT
 * ptyrun: runs CMD with a fresh pseudo-terminal as its controlling
 * terminal and stdin (stdout and stderr stay ours), for the TIOCSTI case
 * (escape 27: pushing input into the parent's terminal, CVE-2017-5226). After CMD ends, any byte the terminal echoed means a
 * character was pushed into its input queue: ptyrun then prints
 * "INJECTED" on stdout. Exits with CMD's status (128+N for signal N).
 * `ptyrun -s CMD...`: the pty is only the controlling terminal, stdin
 * stays ours (reaching the terminal through /dev/tty alone). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	char buf[256];
	int master, slave, status, injected = 0, ctty_only = 0;
	pid_t pid;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == 's' && !argv[1][2]) {
		ctty_only = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fputs("usage: ptyrun [-s] CMD [ARG...]\n", stderr);
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		perror("ptyrun: posix_openpt");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("ptyrun: fork");
		return 2;
	}
	if (pid == 0) {
		setsid();
		slave = open(ptsname(master), O_RDWR);
		if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
			perror("ptyrun: slave");
			_exit(2);
		}
		if (!ctty_only)
			dup2(slave, 0);
		if (slave > 2)
			close(slave);
		execvp(argv[1], argv + 1);
		perror("ptyrun: exec");
		_exit(127);
	}
	/* Keep a slave open so the master stays readable after CMD ends. */
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	waitpid(pid, &status, 0);
	fcntl(master, F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			break;
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			break;
		injected = 1;
	}
	if (slave >= 0)
		close(slave);
	if (injected)
		puts("INJECTED");
	fflush(stdout);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

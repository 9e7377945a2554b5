/* SPDX-License-Identifier: MIT
 * The floor for any supervising launcher: fork, exec, wait, nothing else.
 * Built static, like heel-exec-static, so the comparison is launcher work
 * against launcher work. Usage: trampoline CMD [ARG...] */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	pid_t pid;
	int status;

	if (argc < 2)
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* SPDX-License-Identifier: MIT
 * A pseudo-terminal relay for `heel shell` (see pty.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "pty.h"

static volatile sig_atomic_t winch_seen;

static void
on_winch(int sig)
{
	(void)sig;
	winch_seen = 1;
}

static void
copy_winsize(int from, int to)
{
	struct winsize ws;

	if (ioctl(from, TIOCGWINSZ, &ws) == 0)
		ioctl(to, TIOCSWINSZ, &ws);
}

static bool
write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static void __attribute__((noreturn))
child(int master, const char *slave_name, char *const argv[])
{
	int slave;

	close(master);
	if (setsid() < 0)
		_exit(125);
	slave = open(slave_name, O_RDWR);
	if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
		_exit(125);
	for (int fd = 0; fd < 3; fd++)
		if (dup2(slave, fd) < 0)
			_exit(125);
	if (slave > 2)
		close(slave);
	signal(SIGWINCH, SIG_DFL);
	execv(argv[0], argv);
	_exit(errno == ENOENT ? 127 : 126);
}

/* Moves bytes from the user's terminal to the master and back until the
 * shell side closes. */
static void
relay(int master)
{
	char buf[8192];
	bool in_open = true;

	for (;;) {
		struct pollfd p[2] = { { master, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
		int n = poll(p, in_open ? 2 : 1, -1);

		if (winch_seen) {
			winch_seen = 0;
			copy_winsize(STDIN_FILENO, master);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = read(master, buf, sizeof(buf));

			/* EIO: every slave descriptor is closed, the shell is gone. */
			if (r <= 0 && !(r < 0 && errno == EINTR))
				return;
			if (r > 0 && !write_all(STDOUT_FILENO, buf, (size_t)r))
				return;
		}
		if (in_open && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

			if (r <= 0 && !(r < 0 && errno == EINTR))
				in_open = false;
			else if (r > 0 && !write_all(master, buf, (size_t)r))
				return;
		}
	}
}

int
pty_run(char *const argv[])
{
	struct termios saved, raw;
	struct sigaction sa = { .sa_handler = on_winch }, old_winch;
	char *name;
	int master, status = 0, err;
	pid_t pid;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return -errno;
	if (grantpt(master) < 0 || unlockpt(master) < 0 || !(name = ptsname(master))) {
		err = -errno;
		close(master);
		return err;
	}
	if (tcgetattr(STDIN_FILENO, &saved) < 0) {
		err = -errno;
		close(master);
		return err;
	}
	/* The pty starts with the user's modes and size: what the shell
	 * sees is what the user's terminal is. */
	tcsetattr(master, TCSANOW, &saved);
	copy_winsize(STDIN_FILENO, master);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(master);
		return err;
	}
	if (pid == 0)
		child(master, name, argv);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, &old_winch);
	raw = saved;
	cfmakeraw(&raw);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	relay(master);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	sigaction(SIGWINCH, &old_winch, NULL);
	close(master);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

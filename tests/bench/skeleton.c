/* SPDX-License-Identifier: MIT
 * The floor of a heel-exec launch: its process structure and its walls,
 * nothing else. A launcher cloned into new PID, mount, IPC and network
 * namespaces (and a user namespace when not root) as the sandbox's init,
 * which forks the command; the command brings loopback up, remounts the
 * tree read-only, mounts a tmpfs working directory and shared temp
 * noexec, and execs. No artifact, no Landlock, no seccomp, no cgroup, no
 * environment: what heel-exec adds over this is its own work, what this
 * adds over the trampoline is the walls' and the init's. Run it under
 * ab_launch next to the trampoline and heel-exec.
 * Usage: skeleton CMD [ARG...] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

struct attr {
	uint64_t set, clr, prop, userns;
};

static void
loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memcpy(ifr.ifr_name, "lo", 3);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		_exit(120);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		_exit(120);
	close(s);
}

static void
command(const char *wd, char **argv)
{
	static const char *const temp[] = { "/tmp", "/var/tmp", "/dev/shm" };
	struct attr ro = { .set = 1 }, nx = { .set = 0x8 | 0x2 | 0x4 };

	loopback_up();
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    syscall(__NR_mount_setattr, AT_FDCWD, "/", 0x8000, &ro, sizeof(ro)) < 0 ||
	    mount("tmpfs", wd, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0)
		_exit(121);
	for (int i = 0; i < 3; i++)
		if (mount(temp[i], temp[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
		    syscall(__NR_mount_setattr, AT_FDCWD, temp[i], 0x8000, &nx, sizeof(nx)) < 0)
			_exit(122);
	if (chdir(wd) < 0)
		_exit(123);
	execvp(argv[0], argv);
	_exit(127);
}

static int
write_map(pid_t pid, const char *file, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

int
main(int argc, char **argv)
{
	char wd[] = "/tmp/heel-skeleton-XXXXXX", map[64];
	int go[2], status, flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET;
	pid_t init, cmd;
	char c;

	if (argc < 2 || !mkdtemp(wd) || pipe2(go, O_CLOEXEC) < 0)
		return 125;
	if (geteuid() != 0)
		flags |= CLONE_NEWUSER;
	init = (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (init == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(125);
		if ((cmd = fork()) == 0)
			command(wd, argv + 1);
		if (cmd < 0 || waitpid(cmd, &status, 0) < 0)
			_exit(125);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	close(go[0]);
	if (init < 0)
		return 125;
	if (flags & CLONE_NEWUSER) {
		snprintf(map, sizeof(map), "%d %d 1\n", (int)geteuid(), (int)geteuid());
		if (write_map(init, "setgroups", "deny") < 0 || write_map(init, "uid_map", map) < 0)
			return 125;
		snprintf(map, sizeof(map), "%d %d 1\n", (int)getegid(), (int)getegid());
		if (write_map(init, "gid_map", map) < 0)
			return 125;
	}
	if (write(go[1], "g", 1) != 1 || waitpid(init, &status, 0) < 0)
		return 125;
	rmdir(wd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

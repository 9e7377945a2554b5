/* SPDX-License-Identifier: MIT
 * What each wall of a launch costs on its own, round-robin (a phase of
 * the VM slows every variant alike): a child cloned into the namespaces
 * a sandbox gets, with each one added in turn, and in the full set the
 * mount steps of the sandbox's view (recursive read-only remount, a
 * tmpfs working directory, shared temp noexec). Prints the median of
 * each variant and its cost over the previous one. Root only (as a user
 * the same clones need a user namespace, which heel-exec adds).
 * Usage: walls ROUNDS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

enum { V_FORK, V_PIDNS, V_IPC, V_NET, V_RO, V_TMPFS, V_SHM, V_COUNT };
static const char *const names[V_COUNT] = {
	"fork+wait",
	"+ PID and mount namespaces",
	"+ IPC namespace",
	"+ network namespace, loopback up",
	"+ recursive read-only remount",
	"+ tmpfs working directory",
	"+ shared temp noexec (3 binds)",
};

struct attr {
	uint64_t set, clr, prop, userns;
};

static char mnt_dir[] = "/tmp/heel-walls-XXXXXX";

static void
child(int v)
{
	struct attr ro = { .set = 1 }, nx = { .set = 0x8 | 0x2 | 0x4 };
	static const char *const temp[] = { "/tmp", "/var/tmp", "/dev/shm" };

	if (v >= V_RO) {
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		if (syscall(__NR_mount_setattr, AT_FDCWD, "/", 0x8000, &ro, sizeof(ro)) < 0)
			_exit(1);
	}
	if (v >= V_TMPFS && mount("tmpfs", mnt_dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
				  "mode=0700") < 0)
		_exit(2);
	for (int i = 0; v >= V_SHM && i < 3; i++)
		if (mount(temp[i], temp[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
		    syscall(__NR_mount_setattr, AT_FDCWD, temp[i], 0x8000, &nx, sizeof(nx)) < 0)
			_exit(3);
	_exit(0);
}

/* As heel-exec does in the sandbox's network namespace. */
static void
loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	memcpy(ifr.ifr_name, "lo", 3);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		_exit(4);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		_exit(4);
	close(s);
}

static int
flags_of(int v)
{
	int f = 0;

	if (v >= V_PIDNS)
		f |= CLONE_NEWPID | CLONE_NEWNS;
	if (v >= V_IPC)
		f |= CLONE_NEWIPC;
	if (v >= V_NET)
		f |= CLONE_NEWNET;
	return f;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300, status;
	double *t[V_COUNT], med[V_COUNT];

	if (geteuid() != 0 || !mkdtemp(mnt_dir)) {
		fprintf(stderr, "walls: run as root\n");
		return 2;
	}
	for (int v = 0; v < V_COUNT; v++)
		t[v] = calloc((size_t)rounds, sizeof(double));
	for (int r = 0; r < rounds; r++)
		for (int v = 0; v < V_COUNT; v++) {
			double s = now_us();
			pid_t p = (pid_t)syscall(SYS_clone, (unsigned long)flags_of(v) | SIGCHLD, NULL,
						 NULL, NULL, NULL);

			if (p == 0) {
				if (v >= V_NET)
					loopback_up();
				child(v);
			}
			if (p < 0 || waitpid(p, &status, 0) < 0 || status != 0) {
				fprintf(stderr, "walls: variant %d failed (status %d)\n", v, status);
				return 1;
			}
			t[v][r] = now_us() - s;
		}
	rmdir(mnt_dir);
	for (int v = 0; v < V_COUNT; v++) {
		qsort(t[v], (size_t)rounds, sizeof(double), cmp);
		med[v] = t[v][rounds / 2];
		printf("%-36s median %7.0f us   %+6.0f us\n", names[v], med[v],
		       v ? med[v] - med[v - 1] : 0.0);
	}
	return 0;
}

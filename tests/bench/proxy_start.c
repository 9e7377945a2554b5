/* SPDX-License-Identifier: MIT
 * What heel-proxy's start costs a launch, step by step, for `make bench`
 * (tests/bench/proxy.sh). Round-robin, ROUNDS times:
 *   - heel-proxy executed and started over its control protocol until it
 *     says "ready", then stopped as heel-exec stops it (SIGKILL, reaped);
 *   - the steps of its main() that do more than parse, each timed in a
 *     fresh child process linked with the same modules: its own addresses
 *     (getifaddrs), the server with c-ares (resolv.conf), and confinement
 *     (Landlock, capabilities, seccomp);
 *   - fork+exec+wait of /bin/true, the floor of any exec.
 * Prints each one's median and mean in µs as a markdown table.
 * Usage: proxy_start ROUNDS HEEL_PROXY */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "policy.h"
#include "proxy_spawn.h"
#include "server.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

enum { EXEC_READY, KILL_REAP, OWN_ADDRS, SERVER_OPEN, CONFINE, TRUE_EXEC, NSTEPS };

static const char *const step_name[NSTEPS] = {
	[EXEC_READY] = "heel-proxy: fork, exec, settings, listening socket, until \"ready\"",
	[KILL_REAP] = "heel-proxy: SIGKILL and reaped (as heel-exec stops it)",
	[OWN_ADDRS] = "step: its own addresses (getifaddrs)",
	[SERVER_OPEN] = "step: epoll set and c-ares (ares_library_init, ares_init_options)",
	[CONFINE] = "step: confinement (no_new_privs, Landlock, capabilities, seccomp)",
	[TRUE_EXEC] = "for reference: fork, exec and wait of /bin/true",
};

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

static int
loopback_listener(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0) {
		fprintf(stderr, "proxy_start: a listening socket: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

/* heel-proxy from exec to "ready", and its stop. */
static int
time_exec(const char *exe, double *ready, double *stop)
{
	struct spawned_proxy p;
	char err[512];
	int lfd = loopback_listener();
	double t0 = now_us();

	if (spawn_heel_proxy(&p, exe, TOKEN, lfd, err, sizeof(err)) < 0) {
		fprintf(stderr, "proxy_start: %s\n", err);
		return -1;
	}
	*ready = now_us() - t0;
	close(lfd);
	t0 = now_us();
	kill(p.pid, SIGKILL);
	waitpid(p.pid, NULL, 0);
	*stop = now_us() - t0;
	close(p.ctl);
	return 0;
}

/* The three steps in a fresh child, as main() runs them; their times
 * come back on a pipe. */
static int
time_steps(double *own, double *open, double *confine)
{
	double t[3];
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct proxy_policy pol;
		struct proxy_server_config cfg = { .refusals_fd = -1 };
		struct proxy_server *srv;
		struct proxy_confinement got;
		char err[512];
		double t0 = now_us();

		proxy_policy_init(&pol);
		pol.allow_all = true;
		if (proxy_policy_load_own(&pol) < 0)
			_exit(1);
		t[0] = now_us() - t0;
		cfg.token = TOKEN;
		cfg.policy = &pol;
		cfg.stop_fd = -1;
		proxy_limits_default(&cfg.limits);
		t0 = now_us();
		if (proxy_server_open(&srv, &cfg, err, sizeof(err)) < 0 ||
		    proxy_server_listen(srv, loopback_listener(), err, sizeof(err)) < 0)
			_exit(1);
		t[1] = now_us() - t0;
		t0 = now_us();
		if (proxy_confine(-1, &got, err, sizeof(err)) < 0)
			_exit(1);
		t[2] = now_us() - t0;
		_exit(write(pfd[1], t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], t, sizeof(t)) != sizeof(t)) {
		close(pfd[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return -1;
	}
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0 || status != 0)
		return -1;
	*own = t[0];
	*open = t[1];
	*confine = t[2];
	return 0;
}

static double
time_true(void)
{
	double t0 = now_us();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status != 0)
		return -1;
	return now_us() - t0;
}

int
main(int argc, char **argv)
{
	double *t[NSTEPS];
	int rounds;

	if (argc != 3 || (rounds = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: proxy_start ROUNDS HEEL_PROXY\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	for (int s = 0; s < NSTEPS; s++)
		if (!(t[s] = calloc((size_t)rounds, sizeof(double))))
			return 1;
	for (int r = -rounds / 10 - 1; r < rounds; r++) { /* the first tenth warms up */
		double v[NSTEPS];

		if (time_exec(argv[2], &v[EXEC_READY], &v[KILL_REAP]) < 0 ||
		    time_steps(&v[OWN_ADDRS], &v[SERVER_OPEN], &v[CONFINE]) < 0 ||
		    (v[TRUE_EXEC] = time_true()) < 0) {
			fprintf(stderr, "proxy_start: a round failed\n");
			return 1;
		}
		for (int s = 0; r >= 0 && s < NSTEPS; s++)
			t[s][r] = v[s];
	}
	printf("| heel-proxy's start (%d rounds, round-robin) | median µs | mean µs |\n", rounds);
	printf("|:---|---:|---:|\n");
	for (int s = 0; s < NSTEPS; s++) {
		double sum = 0;

		for (int r = 0; r < rounds; r++)
			sum += t[s][r];
		qsort(t[s], (size_t)rounds, sizeof(double), cmp_double);
		printf("| %s | %.0f | %.0f |\n", step_name[s], t[s][rounds / 2], sum / rounds);
	}
	return 0;
}

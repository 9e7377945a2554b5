/* SPDX-License-Identifier: MIT
 * The proxy benchmarks of `make bench` (tests/bench/proxy.sh runs this in
 * the client network namespace, blast_server in the server's): heel-proxy
 * alone, started over its control protocol, against a direct connection
 * and tinyproxy, each with the same client code:
 *   1. throughput of one large transfer through a CONNECT tunnel;
 *   2. time from connect() to the first byte of a small answer, CONNECT
 *      included, on a new connection each time; and a request written
 *      in two parts on one tunnel, answered when whole;
 *   3. many tunnels open at once, then bytes echoed through each.
 * 1 and 2 run the contenders round-robin, so a slow phase of the machine
 * hits each alike. Prints markdown tables; exits 1 when a proxy lost,
 * changed or refused anything, leaked descriptors or did not stop.
 * -O: the throughput test only (for a second run over a shaped link).
 * -s SERVER_PID: the server's process, to show the CPU time it spends.
 * -x OTHER_HEEL_PROXY adds another build of heel-proxy to every test, to
 * weigh a change to it against the built one in the same run.
 * Usage: proxy_bench [-O] [-b BYTES] [-r ROUNDS] [-l CONNECTIONS] [-p REQUESTS]
 *        [-s SERVER_PID] [-t TUNNELS] [-x OTHER_HEEL_PROXY]
 *        SERVER_ADDR SERVER_PORT HEEL_PROXY TINYPROXY WORKDIR */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blast.h"
#include "proxy_spawn.h"
#include "proxyctl.h"

enum kind { DIRECT, HEEL, TINY };

/* direct, heel-proxy, tinyproxy, and another heel-proxy build (-x). */
enum { MAX_CONTENDERS = 4 };

struct contender {
	const char *name;
	enum kind kind;
	struct sockaddr_in via; /* the proxy's address, for HEEL and TINY */
	pid_t pid;
	int fds_ready; /* the proxy's descriptors before any client came */
	unsigned failures;
	char first_failure[256];
};

static struct sockaddr_in server;
static pid_t server_pid; /* -s: for its CPU time */
static char connect_head[512];
static size_t connect_head_len;
static uint8_t pattern[BLAST_BLOCK];
static bool failed;

/* ---------------------------------------------------------------- helpers */

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void
sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted values. */
static double
quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static void __attribute__((format(printf, 2, 3)))
fail(struct contender *c, const char *fmt, ...)
{
	va_list ap;

	c->failures++;
	failed = true;
	if (c->first_failure[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->first_failure, sizeof(c->first_failure), fmt, ap);
	va_end(ap);
	fprintf(stderr, "proxy_bench: %s: %s\n", c->name, c->first_failure);
}

static int
write_full(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, (const char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

static int
read_full(int fd, void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = read(fd, (char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

static void
base64(const uint8_t *in, size_t len, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = i + 1 < len ? a[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? a[v & 63] : '=';
	}
	out[o] = '\0';
}

/* ---------------------------------------------------------------- /proc */

/* A field of /proc/PID/status in kB (VmRSS, VmHWM), -1 when absent. */
static long
status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t fl = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':') {
			v = strtol(line + fl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The field summed over pid and its child processes (a proxy that forks
 * workers is measured whole; threads share their process's figures). */
static long
tree_kb(pid_t pid, const char *field)
{
	long sum = status_kb(pid, field);
	struct dirent *e;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d))) {
		char path[300], line[256];
		FILE *f;
		long pp = -1;
		pid_t child = (pid_t)atoi(e->d_name);

		if (child <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "PPid:", 5)) {
				pp = strtol(line + 5, NULL, 10);
				break;
			}
		fclose(f);
		if (pp == pid)
			sum += status_kb(child, field);
	}
	if (d)
		closedir(d);
	return sum;
}

/* heel-proxy keeps up to 64 empty pipes for the next tunnels that move
 * bytes: those are no leak while they stay within that bound. */
#define SPARE_PIPE_FDS (2 * 64)

/* The process's descriptors, less the pipes among them up to
 * SPARE_PIPE_FDS (pipes beyond it count, so a leak still shows). */
static int
count_fds(pid_t pid)
{
	char path[64], link[96], target[64];
	struct dirent *e;
	DIR *d;
	int n = 0, pipes = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		ssize_t l;

		if (e->d_name[0] == '.')
			continue;
		n++;
		snprintf(link, sizeof(link), "%s/%.20s", path, e->d_name);
		l = readlink(link, target, sizeof(target) - 1);
		if (l > 5 && !strncmp(target, "pipe:", 5))
			pipes++;
	}
	closedir(d);
	return n - (pipes < SPARE_PIPE_FDS ? pipes : SPARE_PIPE_FDS);
}

/* User plus system CPU seconds of the process, all its threads. */
static double
cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(buf, sizeof(buf), f) || !(p = strrchr(buf, ')'))) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* After the name: state is field 3; utime and stime are 14 and 15. */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ---------------------------------------------------------------- tunnels */

/* Reads the proxy's answer to CONNECT: 200 and nothing after its head
 * (the server speaks only when spoken to). 0, or -1 with c's failure
 * noted and fd closed. */
static int
tunnel_answer(struct contender *c, int fd)
{
	char head[1024];
	size_t len = 0;

	for (;;) {
		ssize_t n = read(fd, head + len, sizeof(head) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail(c, "the answer to CONNECT: %s",
			     n == 0 ? "connection closed" : strerror(errno));
			break;
		}
		len += (size_t)n;
		head[len] = '\0';
		if (strstr(head, "\r\n\r\n")) {
			if (strncmp(head, "HTTP/1.", 7) != 0 || strncmp(head + 8, " 200", 4) != 0) {
				fail(c, "CONNECT answered: %.*s", (int)strcspn(head, "\r\n"), head);
				break;
			}
			if (strstr(head, "\r\n\r\n") + 4 != head + len) {
				fail(c, "bytes after the answer to CONNECT");
				break;
			}
			return 0;
		}
		if (len == sizeof(head) - 1) {
			fail(c, "the answer to CONNECT is longer than %zu bytes", len);
			break;
		}
	}
	close(fd);
	return -1;
}

/* Connects to the server, through c's proxy unless c is DIRECT, with a
 * 10 s receive timeout so a stuck proxy is a failure, not a hang. With
 * answer unset the CONNECT is only sent: tunnel_answer() reads its
 * answer later. The descriptor, or -1 with c's failure noted. */
static int
tunnel_start(struct contender *c, bool answer)
{
	const struct sockaddr_in *to = c->kind == DIRECT ? &server : &c->via;
	struct timeval tmo = { 10, 0 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0) {
		fail(c, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)) < 0) {
		fail(c, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (c->kind == DIRECT)
		return fd;
	if (write_full(fd, connect_head, connect_head_len) < 0) {
		fail(c, "sending CONNECT: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (answer && tunnel_answer(c, fd) < 0)
		return -1;
	return fd;
}

/* ---------------------------------------------------------------- 1. throughput */

/* CPU seconds of this process (the client), all threads. */
static double
self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

enum { CPU_SERVER, CPU_PROXY, CPU_CLIENT, NCPU };

/* Seconds for `bytes` from the server, every byte checked; -1 on failure.
 * cpu: the CPU seconds the server, the proxy and the client spent
 * meanwhile. */
static double
transfer(struct contender *c, uint64_t bytes, double cpu[NCPU])
{
	static uint8_t buf[256 * 1024];
	uint8_t req[9] = { 'S' };
	uint64_t off = 0;
	double t0, cpu0[NCPU];
	int fd = tunnel_start(c, true);

	if (fd < 0)
		return -1;
	for (int i = 0; i < 8; i++)
		req[1 + i] = (uint8_t)(bytes >> (8 * i));
	cpu0[CPU_SERVER] = server_pid > 0 ? cpu_s(server_pid) : 0;
	cpu0[CPU_PROXY] = c->pid > 0 ? cpu_s(c->pid) : 0;
	cpu0[CPU_CLIENT] = self_cpu_s();
	t0 = now_s();
	if (write_full(fd, req, sizeof(req)) < 0) {
		fail(c, "sending the request: %s", strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(c, "after %llu bytes: %s", (unsigned long long)off, strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		for (size_t done = 0; done < (size_t)n;) {
			size_t at = (size_t)((off + done) % BLAST_BLOCK);
			size_t k = BLAST_BLOCK - at;

			if (k > (size_t)n - done)
				k = (size_t)n - done;

			if (memcmp(buf + done, pattern + at, k) != 0) {
				fail(c, "wrong bytes within %zu bytes of offset %llu", k,
				     (unsigned long long)(off + done));
				close(fd);
				return -1;
			}
			done += k;
		}
		off += (size_t)n;
	}
	t0 = now_s() - t0;
	cpu[CPU_SERVER] = server_pid > 0 ? cpu_s(server_pid) - cpu0[CPU_SERVER] : 0;
	cpu[CPU_PROXY] = c->pid > 0 ? cpu_s(c->pid) - cpu0[CPU_PROXY] : 0;
	cpu[CPU_CLIENT] = self_cpu_s() - cpu0[CPU_CLIENT];
	close(fd);
	if (off != bytes) {
		fail(c, "%llu of %llu bytes came", (unsigned long long)off,
		     (unsigned long long)bytes);
		return -1;
	}
	return t0;
}

static void
bench_throughput(struct contender *cs, int n, uint64_t bytes, int rounds)
{
	static double mbs[MAX_CONTENDERS][64], cpu[MAX_CONTENDERS][NCPU][64];
	double direct_med = 0, gib = (double)bytes / (double)(1ull << 30);

	if (rounds > 64)
		rounds = 64;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			double v[NCPU] = { 0 }, s = transfer(&cs[i], bytes, v);

			mbs[i][r] = s > 0 ? (double)bytes / s / 1e6 : 0;
			for (int k = 0; k < NCPU; k++)
				cpu[i][k][r] = v[k] / gib;
		}
	printf("\n### 1. Throughput: %llu bytes from the server, %d rounds round-robin\n\n",
	       (unsigned long long)bytes, rounds);
	printf("| path | median MB/s | min | max | × direct | CPU s per GiB: server | proxy "
	       "| client |\n");
	printf("|:---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		double med, c[NCPU];

		qsort(mbs[i], (size_t)rounds, sizeof(double), cmp_double);
		for (int k = 0; k < NCPU; k++) {
			qsort(cpu[i][k], (size_t)rounds, sizeof(double), cmp_double);
			c[k] = quantile(cpu[i][k], (size_t)rounds, 0.5);
		}
		med = quantile(mbs[i], (size_t)rounds, 0.5);
		if (i == 0)
			direct_med = med;
		printf("| %s | %.0f | %.0f | %.0f | %.2f | %.2f | ", cs[i].name, med, mbs[i][0],
		       mbs[i][rounds - 1], direct_med > 0 ? med / direct_med : 0, c[CPU_SERVER]);
		if (cs[i].kind == DIRECT)
			printf("– | %.2f |\n", c[CPU_CLIENT]);
		else
			printf("%.2f | %.2f |\n", c[CPU_PROXY], c[CPU_CLIENT]);
	}
	fflush(stdout);
}

/* ---------------------------------------------------------------- 2. latency */

/* Seconds from connect() to the first byte of the echo of a 63-byte
 * request on a new connection; -1 on failure. */
static double
first_byte(struct contender *c)
{
	char req[64] = "E", got[64];
	double t0 = now_s(), t;
	int fd;

	memset(req + 1, 'q', sizeof(req) - 1);
	if ((fd = tunnel_start(c, true)) < 0)
		return -1;
	if (write_full(fd, req, sizeof(req)) < 0 || read_full(fd, got, 1) < 0) {
		fail(c, "the small request: %s", strerror(errno));
		close(fd);
		return -1;
	}
	t = now_s() - t0;
	if (read_full(fd, got + 1, sizeof(req) - 2) < 0 || memcmp(got, req + 1, sizeof(req) - 1)) {
		fail(c, "the small answer came wrong");
		t = -1;
	}
	close(fd);
	return t;
}

static void
bench_latency(struct contender *cs, int n, int iters)
{
	double *t[MAX_CONTENDERS], *pair = calloc((size_t)iters, sizeof(double));
	double med[MAX_CONTENDERS], p99[MAX_CONTENDERS], paired[MAX_CONTENDERS];

	for (int i = 0; i < n; i++)
		if (!(t[i] = calloc((size_t)iters, sizeof(double))) || !pair)
			exit(1);
	for (int k = -iters / 10; k < iters; k++) /* the first tenth warms up */
		for (int i = 0; i < n; i++) {
			double s = first_byte(&cs[i]);

			if (k >= 0)
				t[i][k] = s < 0 ? 1e9 : s * 1e6;
		}
	printf("\n### 2. New connection to first byte: %d connections each, round-robin\n\n",
	       iters);
	printf("| path | median µs | p99 µs | median − direct µs | p99 − direct µs "
	       "| median of the round's differences µs |\n");
	printf("|:---|---:|---:|---:|---:|---:|\n");
	/* The same round's direct connection is the nearest in time: the
	 * median of those differences is the figure phase noise moves
	 * least. Last to first, so t[0] is still in round order. */
	for (int i = n - 1; i >= 0; i--) {
		for (int k = 0; k < iters; k++)
			pair[k] = t[i][k] - t[0][k];
		qsort(pair, (size_t)iters, sizeof(double), cmp_double);
		paired[i] = quantile(pair, (size_t)iters, 0.5);
		qsort(t[i], (size_t)iters, sizeof(double), cmp_double);
		med[i] = quantile(t[i], (size_t)iters, 0.5);
		p99[i] = quantile(t[i], (size_t)iters, 0.99);
		free(t[i]);
	}
	for (int i = 0; i < n; i++) {
		printf("| %s | %.0f | %.0f | %+.0f | %+.0f | ", cs[i].name, med[i], p99[i],
		       med[i] - med[0], p99[i] - p99[0]);
		if (i == 0)
			printf("– |\n");
		else
			printf("%+.0f |\n", paired[i]);
	}
	free(pair);
	fflush(stdout);
}

/* ---------------------------------------------------------------- 2b. two writes */

/* Microseconds for one request written in two halves on tunnel fd and
 * its answer; -1 on failure. */
static double
pair_round(struct contender *c, int fd, int round)
{
	const struct timespec pause = { 0, 200 * 1000 };
	char req[32], got[BLAST_PAIR];
	double t0;

	/* Exactly BLAST_PAIR bytes. */
	snprintf(req, sizeof(req), "round %08u, both", (unsigned)round % 100000000u);
	t0 = now_s();
	/* The pause between the parts, as a client's between a head and a
	 * body it is still making, lets the first part travel alone. */
	if (write_full(fd, req, BLAST_PAIR / 2) < 0 || nanosleep(&pause, NULL) < 0 ||
	    write_full(fd, req + BLAST_PAIR / 2, BLAST_PAIR / 2) < 0 ||
	    read_full(fd, got, BLAST_PAIR) < 0) {
		fail(c, "two-part request, round %d: %s", round, strerror(errno));
		return -1;
	}
	t0 = (now_s() - t0) * 1e6;
	if (memcmp(got, req, BLAST_PAIR) != 0) {
		fail(c, "two-part request, round %d: the answer came wrong", round);
		return -1;
	}
	return t0;
}

/* A request written in two parts (a head, then 200 µs later a body),
 * answered when whole, many times on one tunnel per contender,
 * round-robin. The client sends each part at once (TCP_NODELAY); a proxy
 * that holds the second part back until the server acknowledges the
 * first (Nagle's algorithm on its upstream socket) waits for the
 * server's delayed ACK, tens of milliseconds. */
static void
bench_pairs(struct contender *cs, int n, int rounds)
{
	double *t[MAX_CONTENDERS];
	int fd[MAX_CONTENDERS];

	for (int i = 0; i < n; i++) {
		if (!(t[i] = calloc((size_t)rounds, sizeof(double))))
			exit(1);
		if ((fd[i] = tunnel_start(&cs[i], true)) >= 0 && write_full(fd[i], "P", 1) < 0) {
			fail(&cs[i], "two-part requests: %s", strerror(errno));
			close(fd[i]);
			fd[i] = -1;
		}
	}
	for (int r = -rounds / 10; r < rounds; r++) /* the first tenth warms up */
		for (int i = 0; i < n; i++) {
			double us = fd[i] < 0 ? -1 : pair_round(&cs[i], fd[i], r);

			if (us < 0 && fd[i] >= 0) {
				close(fd[i]);
				fd[i] = -1;
			}
			if (r >= 0)
				t[i][r] = us < 0 ? 1e9 : us;
		}
	printf("\n### 2b. A request in two writes 200 µs apart, answered when whole: %d on one "
	       "tunnel each, round-robin\n\n",
	       rounds);
	printf("| path | median µs | p90 µs | p99 µs | max µs | answers after ≥ 10 ms |\n");
	printf("|:---|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		int slow = 0;

		for (int r = 0; r < rounds; r++)
			slow += t[i][r] >= 10000;
		qsort(t[i], (size_t)rounds, sizeof(double), cmp_double);
		printf("| %s | %.0f | %.0f | %.0f | %.0f | %d |\n", cs[i].name,
		       quantile(t[i], (size_t)rounds, 0.5), quantile(t[i], (size_t)rounds, 0.9),
		       quantile(t[i], (size_t)rounds, 0.99), t[i][rounds - 1], slow);
		free(t[i]);
		if (fd[i] >= 0)
			close(fd[i]);
	}
	fflush(stdout);
}

/* ---------------------------------------------------------------- 3. tunnels */

/* Waits up to 5 s for pid to hold `want` descriptors; the count seen. */
static int
settle_fds(pid_t pid, int want)
{
	int n = count_fds(pid);

	for (int i = 0; i < 100 && n != want; i++) {
		sleep_ms(50);
		n = count_fds(pid);
	}
	return n;
}

/* The 32 bytes sent into tunnel i: the echo mode, then 31 bytes naming it. */
static void
tunnel_msg(char msg[40], int i)
{
	snprintf(msg, 40, "E tunnel %06d held, and alive.", i % 1000000);
}

/* The descriptors pid holds once the count stays put for 100 ms (the
 * connection that found tinyproxy listening may still be open). */
static int
stable_fds(pid_t pid)
{
	int n = count_fds(pid), same = 0;

	for (int i = 0; i < 100 && same < 2; i++) {
		int m;

		sleep_ms(50);
		m = count_fds(pid);
		same = m == n ? same + 1 : 0;
		n = m;
	}
	return n;
}

/* After a test, each proxy must be back to the descriptors it had when
 * it started: a connection's sockets and pipes go with the connection. */
static void
check_fds(struct contender *cs, int n, const char *test)
{
	for (int i = 0; i < n; i++) {
		int got;

		if (cs[i].kind == DIRECT)
			continue;
		got = settle_fds(cs[i].pid, cs[i].fds_ready);
		if (got != cs[i].fds_ready)
			fail(&cs[i], "%d descriptors when ready, %d 5 s after the %s test",
			     cs[i].fds_ready, got, test);
	}
}

static void
bench_tunnels(struct contender *c, int n, bool header)
{
	int *fd = calloc((size_t)n, sizeof(int)), opened = 0, answered = 0, echoed = 0;
	int fds0 = settle_fds(c->pid, c->fds_ready), fds_peak, fds_after;
	long rss0 = tree_kb(c->pid, "VmRSS"), rss, hwm;
	double t0 = now_s(), t_open;

	if (!fd)
		exit(1);
	/* All the CONNECTs first, their answers after: the proxy has n
	 * requests in flight at once. */
	for (int i = 0; i < n; i++, opened++)
		if ((fd[i] = tunnel_start(c, false)) < 0)
			break;
	for (int i = 0; i < opened; i++) {
		if (tunnel_answer(c, fd[i]) < 0) {
			fd[i] = -1;
			continue;
		}
		answered++;
	}
	t_open = now_s() - t0;
	/* Every tunnel still alive: a message out and back through each,
	 * all sent before any is read. */
	for (int i = 0; i < opened; i++) {
		char msg[40];

		tunnel_msg(msg, i);
		if (fd[i] >= 0 && write_full(fd[i], msg, 32) < 0) {
			fail(c, "tunnel %d: sending: %s", i, strerror(errno));
			close(fd[i]);
			fd[i] = -1;
		}
	}
	for (int i = 0; i < opened; i++) {
		char msg[40], got[31];

		if (fd[i] < 0)
			continue;
		tunnel_msg(msg, i);
		if (read_full(fd[i], got, 31) < 0 || memcmp(got, msg + 1, 31) != 0) {
			fail(c, "tunnel %d: the echo did not come back", i);
			continue;
		}
		echoed++;
	}
	fds_peak = count_fds(c->pid);
	rss = tree_kb(c->pid, "VmRSS");
	hwm = tree_kb(c->pid, "VmHWM");
	for (int i = 0; i < opened; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	fds_after = settle_fds(c->pid, fds0);
	if (fds_after != fds0)
		fail(c, "%d descriptors before the tunnels, %d after all closed", fds0, fds_after);
	if (header) {
		printf("\n### 3. %d tunnels held at once, then a message echoed through each\n\n",
		       n);
		printf("| proxy | opened | echoed | time to open all s | VmRSS idle kB "
		       "| VmRSS at %d kB | VmHWM kB | per tunnel kB "
		       "| descriptors idle / at %d / after |\n",
		       n, n);
		printf("|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	}
	printf("| %s | %d | %d | %.2f | %ld | %ld | %ld | %.1f | %d / %d / %d |\n", c->name,
	       answered, echoed, t_open, rss0, rss, hwm, (double)(rss - rss0) / n, fds0, fds_peak,
	       fds_after);
	fflush(stdout);
	free(fd);
}

/* ---------------------------------------------------------------- proxies */

static int
listener(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
		fprintf(stderr, "proxy_bench: 127.0.0.1:%u: %s\n", port, strerror(errno));
		exit(1);
	}
	return fd;
}

/* tinyproxy in the foreground on 127.0.0.1:port, with the same
 * credentials as heel-proxy and no logging below critical. */
static pid_t
start_tinyproxy(const char *exe, const char *dir, uint16_t port, const char *token)
{
	char conf[4096], log[4096];
	FILE *f;
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/tinyproxy.conf", dir);
	snprintf(log, sizeof(log), "%s/tinyproxy.log", dir);
	if (!(f = fopen(conf, "w"))) {
		fprintf(stderr, "proxy_bench: %s: %s\n", conf, strerror(errno));
		exit(1);
	}
	fprintf(f,
		"Port %u\nListen 127.0.0.1\nTimeout 600\nMaxClients 4096\n"
		"LogFile \"%s\"\nLogLevel Critical\nDisableViaHeader Yes\n"
		"ConnectPort %u\nBasicAuth %s %s\n",
		port, log, ntohs(server.sin_port), PROXYCTL_USER, token);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		/* Gone with us, however we end (it runs as root: no setuid
		 * clears this). */
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		dup2(null, 0);
		dup2(null, 1);
		execl(exe, "tinyproxy", "-d", "-c", conf, (char *)NULL);
		_exit(127);
	}
	/* Ready once it accepts. */
	for (int i = 0; i < 100; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r = connect(fd, (struct sockaddr *)&a, sizeof(a));

		close(fd);
		if (r == 0)
			return pid;
		sleep_ms(50);
	}
	fprintf(stderr, "proxy_bench: tinyproxy did not listen on 127.0.0.1:%u\n", port);
	kill(pid, SIGKILL);
	exit(1);
}

/* ---------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	uint64_t bytes = 1ull << 30;
	int rounds = 5, iters = 2000, pairs = 100, tunnels = 1000, opt;
	/* Raised as far as this process may: without CAP_SYS_RESOURCE, to
	 * the hard limit. */
	struct rlimit nofile = { 1 << 16, 1 << 16 };
	char token[2 * PROXYCTL_TOKEN_BYTES + 1], cred[64], cred64[96], err[512];
	struct spawned_proxy heel[2];
	struct contender cs[MAX_CONTENDERS] = {
		{ .name = "direct", .kind = DIRECT },
		{ .name = "heel-proxy (CONNECT)", .kind = HEEL },
		{ .name = "tinyproxy (CONNECT)", .kind = TINY },
		{ .name = "other heel-proxy (-x)", .kind = HEEL },
	};
	const char *other = NULL;
	bool only_throughput = false;
	int ncs = 3;
	double t0 = now_s(), t;
	int lfd, status;

	while ((opt = getopt(argc, argv, "Ob:r:l:p:s:t:x:")) != -1) {
		switch (opt) {
		case 'O': only_throughput = true; break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'l': iters = atoi(optarg); break;
		case 'p': pairs = atoi(optarg); break;
		case 's': server_pid = (pid_t)atoi(optarg); break;
		case 't': tunnels = atoi(optarg); break;
		case 'x': other = optarg; ncs = 4; break;
		default: return 2;
		}
	}
	if (argc - optind != 5 || rounds <= 0 || iters <= 0 || pairs <= 0 || tunnels <= 0 ||
	    !bytes) {
		fprintf(stderr, "usage: proxy_bench [-O] [-b BYTES] [-r ROUNDS] [-l CONNECTIONS] "
				"[-p REQUESTS] [-s SERVER_PID] [-t TUNNELS] [-x OTHER_HEEL_PROXY]\n"
				"       SERVER_ADDR SERVER_PORT HEEL_PROXY TINYPROXY WORKDIR\n");
		return 2;
	}
	server.sin_family = AF_INET;
	server.sin_port = htons((uint16_t)atoi(argv[optind + 1]));
	if (inet_pton(AF_INET, argv[optind], &server.sin_addr) != 1) {
		fprintf(stderr, "proxy_bench: %s: not an IPv4 address\n", argv[optind]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The client's, heel-proxy's (two sockets and two pipes a tunnel) and
	 * tinyproxy's descriptors for the held tunnels. */
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0 &&
	    (getrlimit(RLIMIT_NOFILE, &nofile) < 0 || (nofile.rlim_cur = nofile.rlim_max,
						     setrlimit(RLIMIT_NOFILE, &nofile) < 0))) {
		fprintf(stderr, "proxy_bench: RLIMIT_NOFILE: %s\n", strerror(errno));
		return 1;
	}
	if (nofile.rlim_cur < (rlim_t)tunnels * 6 + 64) {
		fprintf(stderr, "proxy_bench: RLIMIT_NOFILE is %lu, and %d tunnels need %d "
				"descriptors in heel-proxy\n",
			(unsigned long)nofile.rlim_cur, tunnels, tunnels * 6 + 64);
		return 1;
	}
	blast_pattern(pattern);
	if (proxyctl_token(token, sizeof(token)) < 0)
		return 1;
	snprintf(cred, sizeof(cred), "%s:%s", PROXYCTL_USER, token);
	base64((const uint8_t *)cred, strlen(cred), cred64);
	connect_head_len = (size_t)snprintf(connect_head, sizeof(connect_head),
					    "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n"
					    "Proxy-Authorization: Basic %s\r\n\r\n",
					    argv[optind], argv[optind + 1], argv[optind],
					    argv[optind + 1], cred64);

	for (int h = 0; h < ncs - 2; h++) {
		struct contender *c = &cs[h ? 3 : 1];
		uint16_t port = (uint16_t)(3128 + h);

		lfd = listener(port);
		if (spawn_heel_proxy(&heel[h], h ? other : argv[optind + 2], token, lfd, err,
				     sizeof(err)) < 0) {
			fprintf(stderr, "proxy_bench: %s\n", err);
			return 1;
		}
		close(lfd);
		c->pid = heel[h].pid;
		c->via = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port),
					       .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	}
	cs[TINY].pid = start_tinyproxy(argv[optind + 3], argv[optind + 4], 8888, token);
	cs[TINY].via = cs[HEEL].via;
	cs[TINY].via.sin_port = htons(8888);

	for (int i = 1; i < ncs; i++)
		cs[i].fds_ready = stable_fds(cs[i].pid);
	printf("heel-proxy: %d descriptors and VmRSS %ld kB when ready; tinyproxy: %d and %ld kB\n",
	       cs[HEEL].fds_ready, status_kb(cs[HEEL].pid, "VmRSS"), cs[TINY].fds_ready,
	       tree_kb(cs[TINY].pid, "VmRSS"));
	t = now_s();
	bench_throughput(cs, ncs, bytes, rounds);
	check_fds(cs, ncs, "throughput");
	fprintf(stderr, "proxy_bench: throughput took %.0f s\n", now_s() - t);
	if (only_throughput)
		goto out;
	t = now_s();
	bench_latency(cs, ncs, iters);
	check_fds(cs, ncs, "latency");
	t = now_s();
	bench_pairs(cs, ncs, pairs);
	fprintf(stderr, "proxy_bench: two-part requests took %.0f s\n", now_s() - t);
	check_fds(cs, ncs, "two-part request");
	fprintf(stderr, "proxy_bench: latency took %.0f s\n", now_s() - t);
	t = now_s();
	bench_tunnels(&cs[HEEL], tunnels, true);
	bench_tunnels(&cs[TINY], tunnels, false);
	if (other)
		bench_tunnels(&cs[3], tunnels, false);
	fprintf(stderr, "proxy_bench: tunnels took %.0f s\n", now_s() - t);
out:
	printf("\n");
	for (int i = 0; i < ncs; i++)
		printf("%s: %u failures%s%s\n", cs[i].name, cs[i].failures,
		       cs[i].failures ? "; first: " : "", cs[i].first_failure);
	for (int h = 0; h < ncs - 2; h++)
		if (stop_heel_proxy(&heel[h], err, sizeof(err)) < 0) {
			printf("%s: %s\n", cs[h ? 3 : 1].name, err);
			failed = true;
		}
	kill(cs[TINY].pid, SIGTERM);
	waitpid(cs[TINY].pid, &status, 0);
	fprintf(stderr, "proxy_bench: %.0f s in all\n", now_s() - t0);
	return failed ? 1 : 0;
}

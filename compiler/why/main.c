/* SPDX-License-Identifier: MIT
 * heel-why: the --why observer (launcher/linux_why.h). Started by
 * heel-exec with its control socket as descriptor 3; told the artifact
 * (a sealed memfd), the variables and directories the launch expanded
 * its paths with, and the audit sink; then handed the listener of the
 * command's watching filter. Each notification is read, answered
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE at once (it only watches: the
 * sandbox's walls decide), and judged against the policy by why.h. When
 * heel-exec closes the control socket (the tree is gone), the distinct
 * refusals are printed, one line each, at most SHOWN_MAX, and written to
 * the audit sink as JSON lines. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "artifact_load.h"
#include "audit_sink.h"
#include "ir.h"
#include "kernel.h"
#include "notify.h"
#include "proxyctl.h"
#include "why.h"

#define SHOWN_MAX 20
/* Distinct refusals kept; past it they are counted, not kept. */
#define KEPT_MAX 4096
#define ARTIFACT_MAX (64u << 20)

struct rec {
	struct denial_event ev;
	struct why_answer a;
	unsigned count;
};

struct state {
	char **env; /* "NAME=VALUE" */
	size_t nenv;
	char cwd[4096], workdir[4096];
	uint8_t *artifact;
	size_t artifact_len;
	struct audit_sink *sink;
	struct rec *recs;
	size_t nrecs;
	unsigned long dropped;
	bool kernel; /* the refusals come from heel-observe, not a listener */
	int denials; /* --why-fd: every refusal as a JSON line; -1 */
	int proxy;   /* heel-proxy's refusals, a line each; -1 */
};

static const char *
lookup(const char *name, void *ctx)
{
	const struct state *s = ctx;
	size_t n = strlen(name);

	if (strcmp(name, "CWD") == 0)
		return s->cwd[0] ? s->cwd : NULL;
	if (strcmp(name, "WORKDIR") == 0)
		return s->workdir[0] ? s->workdir : NULL;
	for (size_t i = 0; i < s->nenv; i++)
		if (strncmp(s->env[i], name, n) == 0 && s->env[i][n] == '=')
			return s->env[i] + n + 1;
	return NULL;
}

static void __attribute__((noreturn)) die(const char *line)
{
	proxyctl_report_error(PROXYCTL_FD, "heel-why", line);
	exit(1);
}

static void
read_artifact(struct state *s, int fd)
{
	struct stat st;
	ssize_t n;
	size_t done = 0;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > ARTIFACT_MAX)
		die("the artifact cannot be read");
	s->artifact_len = (size_t)st.st_size;
	if (!(s->artifact = malloc(s->artifact_len)))
		die("out of memory");
	while (done < s->artifact_len) {
		n = pread(fd, s->artifact + done, s->artifact_len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("the artifact cannot be read");
		done += (size_t)n;
	}
	close(fd);
}

/* The settings, up to "end"; then the listener. */
static int
settle(struct state *s)
{
	char msg[PROXYCTL_MSG_MAX], err[256];
	const char *v;
	int fd;
	long n;

	for (;;) {
		n = proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &fd);
		if (n <= 0)
			exit(0); /* heel-exec is gone, or refused the launch */
		if (strcmp(msg, "artifact") == 0 && fd >= 0) {
			read_artifact(s, fd);
		} else if ((v = proxyctl_value(msg, "env"))) {
			char **e = realloc(s->env, (s->nenv + 1) * sizeof(*e));

			if (!e || !(e[s->nenv] = strdup(v)))
				die("out of memory");
			s->env = e;
			s->nenv++;
		} else if ((v = proxyctl_value(msg, "cwd"))) {
			snprintf(s->cwd, sizeof(s->cwd), "%s", v);
		} else if ((v = proxyctl_value(msg, "workdir"))) {
			snprintf(s->workdir, sizeof(s->workdir), "%s", v);
		} else if ((v = proxyctl_value(msg, "audit")) && fd >= 0) {
			if (audit_sink_adopt(&s->sink,
					     strcmp(v, "daily") == 0 ? AUDIT_SINK_DAILY
								     : AUDIT_SINK_FILE,
					     fd, err, sizeof(err)) < 0)
				die(err);
		} else if (strcmp(msg, "listen") == 0 && fd >= 0) {
			return fd;
		} else if (strcmp(msg, "proxy") == 0 && fd >= 0) {
			s->proxy = fd;
		} else if (strcmp(msg, "denials") == 0 && fd >= 0) {
			s->denials = fd;
		} else if (strcmp(msg, "kernel") == 0) {
			s->kernel = true;
		} else if (strcmp(msg, "end") == 0) {
			if (s->kernel)
				return -1; /* no listener: heel-observe's lines come at the end */
		} else {
			if (fd >= 0)
				close(fd);
			snprintf(err, sizeof(err), "unknown setting: %.64s", msg);
			die(err);
		}
	}
}

static bool
same(const struct rec *r, const struct denial_event *ev, const struct why_answer *a)
{
	return r->ev.op == ev->op && r->ev.family == ev->family && r->ev.port == ev->port &&
	       r->ev.nr == (ev->op == DENIAL_SYSCALL ? ev->nr : r->ev.nr) &&
	       memcmp(r->ev.addr, ev->addr, sizeof(ev->addr)) == 0 &&
	       strcmp(r->ev.path, ev->path) == 0 && r->a.wall == a->wall &&
	       strcmp(r->a.rule, a->rule) == 0;
}

static void
record(struct state *s, const struct denial_event *ev, const struct why_answer *a)
{
	struct rec *n;

	for (size_t i = 0; i < s->nrecs; i++)
		if (same(&s->recs[i], ev, a)) {
			s->recs[i].count++;
			return;
		}
	if (s->nrecs >= KEPT_MAX || !(n = realloc(s->recs, (s->nrecs + 1) * sizeof(*n)))) {
		s->dropped++;
		return;
	}
	s->recs = n;
	n[s->nrecs++] = (struct rec){.ev = *ev, .a = *a, .count = 1};
}

static void
timestamp(struct timespec *now, char *ts, size_t len)
{
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, now);
	if (!gmtime_r(&now->tv_sec, &tm)) {
		snprintf(ts, len, "?");
		return;
	}
	snprintf(ts, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(now->tv_nsec / 1000000L));
}

static void
write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* The command has ended: nothing is mixed into its output any more. */
static void
summarise(struct state *s)
{
	char line[DENIAL_PATH_MAX + 4096], ts[96];
	struct timespec now;

	timestamp(&now, ts, sizeof(ts));
	for (size_t i = 0; i < s->nrecs; i++) {
		const struct rec *r = &s->recs[i];

		if (i < SHOWN_MAX) {
			why_line(&r->ev, &r->a, r->count, line, sizeof(line));
			fprintf(stderr, "%s\n", line);
		}
		if (s->sink || s->denials >= 0) {
			char *json = why_json(&r->ev, &r->a, r->count, ts);

			if (json) {
				size_t len = strlen(json);
				char *withnl = realloc(json, len + 2);

				if (withnl) {
					withnl[len] = '\n';
					withnl[len + 1] = '\0';
					/* A line that cannot be written has no one
					 * to stop: the command has ended. */
					if (s->sink)
						(void)audit_sink_append(s->sink, now.tv_sec,
									withnl, len + 1);
					if (s->denials >= 0)
						write_all(s->denials, withnl, len + 1);
					json = withnl;
				}
				free(json);
			}
		}
	}
	if (s->nrecs > SHOWN_MAX || s->dropped)
		fprintf(stderr, "heel: and %zu more refused actions%s\n",
			s->nrecs - (s->nrecs > SHOWN_MAX ? SHOWN_MAX : s->nrecs) + s->dropped,
			s->sink ? " (each in the audit sink)" : "");
	fflush(stderr);
}

#if defined(__x86_64__)
#define SELF_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SELF_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* heel-why reads what sandboxed programs name, on the host: should that
 * ever be subverted, it can start nothing, trace or change nothing of
 * other processes, make no namespace, mount or socket. What it needs
 * (process_vm_readv, O_PATH opens, readlink, its listener and sink) stays. */
static void
confine_self(void)
{
	static const int denied[] = {
		__NR_execve,	     __NR_execveat,	 __NR_clone,	    __NR_clone3,
		__NR_ptrace,	     __NR_process_vm_writev, __NR_mount,	    __NR_umount2,
		__NR_unshare,	     __NR_setns,	 __NR_socket,	    __NR_bpf,
		__NR_io_uring_setup, __NR_perf_event_open, __NR_pivot_root, __NR_chroot,
		__NR_keyctl,	     __NR_add_key,	 __NR_init_module, __NR_finit_module,
		__NR_kexec_load,
#ifdef __NR_fork
		__NR_fork,	     __NR_vfork,
#endif
	};
	enum { N = sizeof(denied) / sizeof(denied[0]) };
	struct sock_filter prog[4 + N + 2];
	struct sock_fprog fprog = { .len = 4 + N + 2, .filter = prog };
	size_t n = 0;

	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SELF_AUDIT_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < N; i++)
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)denied[i],
							 (unsigned char)(N - i), 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0)
		die("cannot confine itself (no_new_privs, seccomp)");
}

/* One notification: read, let it continue, judge. */
static void
serve_one(struct state *s, const struct why_policy *w, int listener, struct seccomp_notif *n,
	  struct seccomp_notif_resp *resp, size_t nsize, size_t rsize)
{
	struct denial_event ev[WN_MAX_EVENTS];
	bool unresolved[WN_MAX_EVENTS];
	struct why_answer a;
	int k;

	memset(n, 0, nsize);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) < 0)
		return; /* the caller died, or was interrupted */
	k = wn_decode(listener, n, ev, unresolved);
	memset(resp, 0, rsize);
	resp->id = n->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* Always: an observer that forgot to answer would hang the call. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
	/* A path the target's root does not show is the kernel's ENOENT,
	 * unless a deny holds it: the view covers what it denies. The
	 * command's own exec (made by heel-exec's process) is heel-exec's to
	 * explain: it does, with exit status 126 (and that process is not
	 * dumpable, so only root could read it here anyway). */
	for (int i = 0; i < k; i++) {
		if (ev[i].op == DENIAL_EXEC && strcmp(ev[i].comm, "heel-exec") == 0)
			continue;
		if (why_explain(w, &ev[i], &a) == 1 && (!unresolved[i] || a.covered))
			record(s, &ev[i], &a);
	}
}

/* heel-observe's lines, each a refusal the kernel made: judged like a
 * notification, but the outcome is known (a refusal the policy does not
 * explain is the host's own: a file's mode, a missing file). */
static void
read_observed(struct state *s, const struct why_policy *w, int fd, bool proxy)
{
	FILE *f = fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		close(fd);
		return;
	}
	rewind(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		struct denial_event ev;
		struct why_answer a;
		char reason[sizeof(a.reason)];
		int k;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		k = proxy ? wk_decode_proxy(line, &ev, reason, sizeof(reason)) : wk_decode(line, &ev);
		if (k != 1 && k != 2)
			continue;
		/* The command's own exec is heel-exec's to explain (exit 126). */
		if (ev.op == DENIAL_EXEC && strcmp(ev.comm, "heel-exec") == 0)
			continue;
		if (why_explain(w, &ev, &a) != 1)
			continue;
		/* Not the list: heel-proxy's own words say what and how. */
		if (k == 2) {
			snprintf(a.reason, sizeof(a.reason), "%s", reason);
			a.option[0] = a.line[0] = '\0';
		}
		record(s, &ev, &a);
	}
	free(line);
	fclose(f);
}

int
main(void)
{
	static struct state s;
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *n;
	struct seccomp_notif_resp *resp;
	struct ir_policy *ir = NULL;
	struct why_policy *w = NULL;
	struct why_launch l;
	char err[256] = "";
	int listener;

	s.denials = -1;
	s.proxy = -1;
	listener = settle(&s);
	if (!s.artifact)
		die("no artifact was sent");
	if (artifact_load(s.artifact, s.artifact_len, &ir, err, sizeof(err)) < 0)
		die(err[0] ? err : "the artifact does not load");
	l = (struct why_launch){
	    .lookup = lookup, .ctx = &s, .workdir = s.workdir[0] ? s.workdir : NULL};
	if (why_policy_new(ir, &l, &w) < 0)
		die("the policy cannot be judged (no Linux part, or out of memory)");
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		die("SECCOMP_GET_NOTIF_SIZES failed");
	n = calloc(1, sizes.seccomp_notif > sizeof(*n) ? sizes.seccomp_notif : sizeof(*n));
	resp = calloc(1, sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp
								  : sizeof(*resp));
	if (!n || !resp)
		die("out of memory");
	confine_self();
	if (listener >= 0 && proxyctl_send(PROXYCTL_FD, "ready", NULL, -1) < 0)
		return 1;
	for (;;) {
		struct pollfd p[2] = {{.fd = PROXYCTL_FD, .events = POLLIN},
				      {.fd = listener, .events = POLLIN}};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* The control socket hangs up when heel-exec is done; before
		 * that, with heel-observe, it hands over what it saw. */
		if (p[0].revents) {
			char msg[PROXYCTL_MSG_MAX];
			int fd = -1;

			if (!(p[0].revents & POLLIN) ||
			    proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &fd) <= 0)
				break;
			if (strcmp(msg, "observed") == 0 && fd >= 0)
				read_observed(&s, w, fd, false);
			else if (fd >= 0)
				close(fd);
			continue;
		}
		if (p[1].revents & POLLIN)
			serve_one(&s, w, listener, n, resp, sizes.seccomp_notif,
				  sizes.seccomp_notif_resp);
		/* Every process under the filter is gone: wait for heel-exec. */
		if (p[1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			close(listener);
			listener = -1;
		}
	}
	/* heel-proxy wrote each refusal before it answered it: all are in. */
	if (s.proxy >= 0)
		read_observed(&s, w, s.proxy, true);
	summarise(&s);
	return 0;
}

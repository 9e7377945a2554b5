/* SPDX-License-Identifier: MIT
 * heel-exec: runs a command under a compiled heel policy (.hpol). Reads
 * and checks the artifact, makes sure this kernel can enforce it, makes
 * the working directory and the environment, and hands over to the
 * platform launch; everything it creates is gone when it exits. The man
 * page (docs/heel-exec.1) is the specification. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include "artifact_read.h"
#include "artifact_source.h"
#include "heel_version.h"
#include "env.h"
#include "errmsg.h"
#include "hostcheck.h"
#include "launch_timing.h"
#include "linux.h"
#include "linux_hostenv.h"
#include "linux_walls.h"
#include "linux_hostrun.h"
#include "linux_idmap.h"
#include "linux_cgroup.h"
#include "linux_broker.h"
#include "linux_why.h"
#include "linux_proxy.h"
#include "linux_observe.h"
#include "pathexpand.h"
#include "rlimits.h"
#include "venv.h"
#include "userdirs.h"
#include "workdir.h"

/* heel-exec's own failures: the command's statuses are its own. */
#define EXIT_HEEL 125

extern char **environ;

static const char usage_text[] =
	"usage: heel-exec [OPTIONS] POLICY.hpol -- CMD [ARG...]\n"
	"       heel-exec [OPTIONS] --artifact-fd N -- CMD [ARG...]\n"
	"       heel-exec check [-v | -vv] POLICY.hpol\n"
	"       heel-exec check          (the walls this machine gives this user)\n"
	"       heel-exec --help | --version (-V)\n";

static const char help_text[] =
	"\n"
	"Runs CMD under a policy compiled by heelc (heel-exec(1), heel(5)): in a fresh\n"
	"private working directory, with an environment built from scratch, under\n"
	"Landlock, seccomp and namespaces of its own. Nothing it starts outlives it.\n"
	"\n"
	"options:\n"
	"      --workdir DIR       run in DIR (made if missing, and kept) instead of a\n"
	"                          fresh working directory removed at exit\n"
	"      --cwd DIR           start CMD in DIR (absolute) instead of the working\n"
	"                          directory, which stays TMPDIR\n"
	"      --artifact-fd N     read the artifact from the inherited descriptor N\n"
	"                          (a memfd or a regular file) instead of POLICY.hpol\n"
	"      --best-effort       run where this machine cannot enforce all of the\n"
	"                          policy, printing each weakening, instead of refusing\n"
	"      --no-namespaces     with --best-effort: make no namespaces\n"
	"      --accept WEAKENING  accept this one weakening (per-process-limits)\n"
	"      --why               watch the file, exec and socket calls (heel-why) and\n"
	"                          say at exit which were refused, by which rule, and\n"
	"                          what allows each\n"
	"      --why-fd N          --why, and also write each refusal as a JSON line\n"
	"                          (heel(5), the denial/1 lines) to the inherited\n"
	"                          descriptor N\n"
	"  -v, --verbose           say what is done; -vv also lists each optional rule\n"
	"                          skipped because its path is missing here\n"
	"  -h, --help              this text\n"
	"  -V, --version           the version, and the artifact format it reads\n"
	"\n"
	"check POLICY.hpol says what this machine can enforce of the policy (-vv: and\n"
	"lists each optional rule skipped), without running anything.\n"
	"\n"
	"exit status: CMD's own; 128+N when CMD died of signal N; 125 when heel-exec\n"
	"refused or failed; 126 CMD cannot be run; 127 CMD not found.\n";

/* A mistake on heel-exec's own command line: what was wrong, then how it
 * is used. */
static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("heel-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage_text, stderr);
	exit(EXIT_HEEL);
}

static void
vnote(const char *fmt, va_list ap)
{
	fputs("heel-exec: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(EXIT_HEEL);
}

/* A refusal about the policy: named by its file; a policy handed over
 * on a descriptor (heel run's, libheel's) has no name its user gave,
 * and "--artifact-fd 3" would only be noise before the reason. */
static void __attribute__((noreturn))
fail_in(const char *policy, const char *err)
{
	if (strncmp(policy, "--artifact-fd ", 14) == 0)
		fail("%s", err);
	fail("%s: %s", policy, err);
}

/* With 0, 1 or 2 closed, the artifact or a pipe could land there and the
 * command would read or write it as stdin or stdout. */
static void
ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			exit(EXIT_HEEL);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What heelc names the artifact of `source` when no -o is given. */
static void
default_artifact(const char *source, char *out, size_t len)
{
	size_t n = strlen(source);

	if (ends_with(source, ".heel"))
		n -= 5;
	snprintf(out, len, "%.*s.hpol", (int)n, source);
}

/* Whether `path` is policy text rather than an artifact: it does not
 * start with the artifact's magic, and it is named .heel or its first
 * statement (after blank lines and comments) is `heel N`. Asked only
 * once reading it as an artifact has failed, so a launch pays nothing. */
static bool
is_policy_source(const char *path)
{
	char head[1024];
	struct stat st;
	ssize_t n;
	size_t i = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	/* Only a regular file: reading a device may do something. */
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : -1;
	close(fd);
	if (n < 0 || memchr(head, '\0', (size_t)n))
		return false;
	if ((size_t)n >= ART_MAGIC_LEN && memcmp(head, ART_MAGIC, ART_MAGIC_LEN) == 0)
		return false;
	if (ends_with(path, ".heel"))
		return true;
	while (i < (size_t)n) {
		if (strchr(" \t\r\n", head[i])) {
			i++;
		} else if (head[i] == '#') {
			while (i < (size_t)n && head[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	return (size_t)n - i >= 6 && memcmp(head + i, "heel", 4) == 0 &&
	       (head[i + 4] == ' ' || head[i + 4] == '\t') &&
	       strchr("0123456789 \t", head[i + 5]) != NULL;
}

/* A policy source given where its artifact belongs: say how to make it. */
static void __attribute__((noreturn))
refuse_source(const char *path)
{
	char hpol[PATH_MAX];

	default_artifact(path, hpol, sizeof(hpol));
	note("%s is a policy source; compile it first: heelc %s", path, path);
	note("then run the artifact: heel-exec %s -- CMD [ARG...]", hpol);
	exit(EXIT_HEEL);
}

/* Warns when the source the artifact was compiled from, beside it, has
 * changed since (META, format 1.2): a warning, not a refusal, since the
 * artifact is what was reviewed and what is enforced; and only a
 * CRC-32C, which catches an edit, not a forgery. */
static void
warn_if_stale(const char *path, const struct art_view *view)
{
	char src[PATH_MAX], hpol[PATH_MAX];
	struct art_meta m;

	if (!art_meta(view, &m) || !m.source_name ||
	    art_source_path(path, m.source_name, src, sizeof(src)) < 0 || strcmp(src, path) == 0 ||
	    art_source_changed(src, &m) != 1)
		return;
	default_artifact(src, hpol, sizeof(hpol));
	note("warning: %s is older than its source %s, which has changed since it was compiled; "
	     "run heelc %s%s%s",
	     path, src, src, strcmp(hpol, path) ? " -o " : "", strcmp(hpol, path) ? path : "");
}

/* Reads and validates the artifact: the file `path`, or the descriptor
 * fd (>= 0, --artifact-fd; path then names it in messages), which is
 * closed once read so that nothing started later inherits it. Exits 125
 * at the first failure. */
static void
load_policy(const char *path, int fd, uint8_t **buf, struct art_view *view)
{
	char err[256];
	size_t len;
	int r;

	if (fd >= 0) {
		r = art_read_fd(fd, path, buf, &len, err, sizeof(err));
		close(fd);
	} else {
		r = art_read_file(path, buf, &len, err, sizeof(err));
	}
	if (r < 0 && fd < 0 && is_policy_source(path))
		refuse_source(path);
	if (r < 0)
		fail("%s", err);
	r = art_validate(*buf, len, view, err, sizeof(err));
	if (r < 0 && fd < 0 && is_policy_source(path))
		refuse_source(path);
	if (r < 0)
		fail("%s: %s", path, err);
	if (!art_platform_enabled(view, ART_LINUX))
		fail("%s: the policy was not compiled for linux", path);
	if (fd < 0)
		warn_if_stale(path, view);
}

/* Edit distance (insertions, deletions, substitutions, transpositions)
 * between two short words, for "did you mean `check`?"; 99 when either
 * is too long to be a misspelling of a subcommand. */
static int
word_distance(const char *a, const char *b)
{
	int d[17][17];
	size_t n = strlen(a), m = strlen(b);

	if (n > 16 || m > 16)
		return 99;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

/* The policy argument must name a file: one that does not exist is a
 * usage error, and a bare word that is not a file, before anything but
 * `--`, is a subcommand heel-exec does not have. */
static void
check_policy_arg(const char *policy, const char *next)
{
	struct stat st;
	bool word = !strchr(policy, '/') && !strchr(policy, '.');
	bool near = word_distance(policy, "check") <= 2;

	if (lstat(policy, &st) == 0 || errno != ENOENT)
		return;
	if (word && (!next || strcmp(next, "--") != 0))
		usage_error("%s: unknown subcommand%s", policy,
			    near ? " (did you mean `check`?)"
				 : " (heel-exec's one subcommand is `check`)");
	usage_error("%s: no such file%s", policy, near && word ? " (did you mean `check`?)" : "");
}

/* The policy's `workdir`, expanded into dir (PATH_MAX), or "" when it
 * has none. 0, or -errno and a message naming it. */
static int
policy_workdir(const struct art_view *view, const char *cwd, char *dir, char *err, size_t errlen)
{
	struct art_scalar s;
	char why[400];
	int r;

	dir[0] = '\0';
	if (art_scalar(view, ART_LINUX, ART_SC_WORKDIR, &s) < 0 || !s.set || !s.str)
		return 0;
	r = wd_expand(s.str, environ, cwd, dir, PATH_MAX, why, sizeof(why));
	if (r < 0)
		snprintf(err, errlen, "workdir %s", why);
	return r;
}

/* The kept working directory a launch will have, absolute, into out
 * (PATH_MAX): --workdir, else the policy's; NULL for a fresh one. */
static const char *
kept_workdir(const struct art_view *view, const char *arg, const char *cwd, char *out)
{
	char err[512];

	if (arg && arg[0] != '/')
		return snprintf(out, PATH_MAX, "%s/%s", cwd, arg) < PATH_MAX ? out : NULL;
	if (arg)
		return arg;
	return policy_workdir(view, cwd, out, err, sizeof(err)) == 0 && out[0] ? out : NULL;
}

/* Every place a sandbox could have written: this launch's writable
 * grants, expanded as the launch expands them, its kept working
 * directory, and every place an earlier run recorded. What the host side
 * runs, opens or grants is checked against it (hostcheck.h). 0, or
 * -errno with one line in err. */
static int
build_places(struct hc_places *ps, const struct art_view *view, const char *cwd,
	     const char *kept_wd, char *err, size_t errlen)
{
	struct envb_launch vars = { .env = environ, .cwd = cwd };
	int r;

	if ((r = hc_places_init(ps, environ)) < 0)
		return rt_error(err, errlen, r, "out of memory");
	if ((r = hc_places_add_policy(ps, view, &vars, err, errlen)) < 0)
		return r;
	if (kept_wd && (r = hc_places_add(ps, kept_wd, "the kept working directory", false)) < 0)
		return rt_error(err, errlen, r, "out of memory");
	return 0;
}

/* HOME crossing a symbolic link (env.h, envb_home_resolved): from here
 * on the real place, for every ${HOME} of the launch and for the
 * sandbox's HOME. Its spelling goes into `spelled` ("" when HOME crosses
 * no link), for check_home once the places are known. */
static void
resolve_home(char *spelled, size_t len)
{
	char real[PATH_MAX];
	int r = envb_home_resolved(environ, real, sizeof(real));

	spelled[0] = '\0';
	if (r < 0)
		fail("HOME: %s", strerror(-r));
	if (r == 0)
		return;
	snprintf(spelled, len, "%s", getenv("HOME"));
	if (setenv("HOME", real, 1) < 0)
		fail("HOME: %s", strerror(errno));
}

/* The links HOME's spelling crosses: none may lie where a sandbox of
 * this launch or an earlier run could have made it (then `${HOME}` would
 * be a place the sandbox chose). */
static void
check_home(const struct hc_places *ps, const char *spelled, bool verbose)
{
	char err[2 * PATH_MAX + 1024];

	if (!spelled[0])
		return;
	if (hc_check(ps, HC_GRANT, "HOME", spelled, err, sizeof(err)) < 0)
		fail("%s", err);
	if (verbose)
		note("HOME %s is %s: ${HOME} names that", spelled, getenv("HOME"));
}

static void
silent(const char *fmt, ...)
{
	(void)fmt;
}

/* Everything a launch can tell before it makes anything, for a launch
 * about to run python3 and pip on the host: heel-proxy, the decider and
 * the audit sink; heel-broker and each host command's program; the
 * Landlock plan (a missing grant, a link) and the seccomp program; the
 * policy's working directory; the tree's cgroup (made and removed).
 * Quiet: the launch itself says what it weakens. */
static int
precheck(const struct linux_launch *l, const struct art_view *view, const struct hc_places *ps,
	 const struct envb_launch *vars, char *err, size_t errlen)
{
	struct linux_launch q = *l;
	struct linux_broker b = { .h = { .pidfd = -1, .ctl = -1 } };
	/* The port a launch gives the Landlock rule: the proxy itself is
	 * only looked for here. */
	struct linux_proxy proxy = { .on = true, .port = PROXYCTL_PORT, .h = { .pidfd = -1, .ctl = -1 },
				     .listen_fd = -1 };
	struct linux_cgroup cg;
	char dir[PATH_MAX];
	int r = 0;

	q.note = silent;
	q.verbose = false;
	q.landlock_state = NULL;
	if (linux_proxy_wanted(view)) {
		r = linux_proxy_check(view, ps, vars, dir, sizeof(dir), err, errlen);
		q.proxy = &proxy;
	}
	if (r == 0 && linux_broker_wanted(view)) {
		r = linux_broker_check(&b, view, ps, err, errlen);
		free(b.names);
	}
	if (r == 0)
		r = linux_check_landlock(&q, err, errlen);
	linux_forget_landlock(&q);
	if (r == 0)
		r = linux_check_seccomp(&q, err, errlen);
	if (r == 0 && (r = policy_workdir(view, l->launch_dir, dir, err, errlen)) == 0 && dir[0])
		r = wd_check(dir, dir, sizeof(dir), err, errlen);
	if (r == 0 && linux_cgroup_make(&q, &cg, "", err, errlen) < 0)
		r = -EPERM;
	else if (r == 0)
		linux_cgroup_remove(&q, &cg);
	return r;
}

/* Root whose sandbox may write the system itself (isolation permissive,
 * a grant of /usr): what it leaves there runs on the host whatever heel
 * does, and every later check as root refuses it. Said once, never only
 * under -v. */
static void
warn_system_writable(const struct hc_places *ps)
{
	if (geteuid() != 0)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		const char *p = ps->v[i].path;

		if (ps->v[i].earlier || !ps->v[i].exists || !px_is_system(p))
			continue;
		note("warning: as root, this sandbox may change %s%s: what it leaves there runs on "
		     "the host later, whatever heel does, and until you remove %s from %s, heel "
		     "will refuse to run anything there that root can change, its own helpers "
		     "included (heel(5), WHAT PERSISTS BETWEEN RUNS)",
		     p, strcmp(p, "/") ? "" : " (the whole system)", p,
		     ps->lg.file[0] ? ps->lg.file : "the record of writable places");
		return;
	}
}

/* The policy's venv, looked at and checked; nothing is made. A venv the
 * sandbox could write although the policy says allow-pip-install no is
 * refused: the host runs its python and pip at the next launch. */
static void
plan_venv(const char *policy, const struct art_view *view, const char *cwd, const char *workdir,
	  struct venv_plan *vp)
{
	char err[PATH_MAX + 1024], wd[PATH_MAX];

	if (venv_plan(vp, view, ART_LINUX, environ, cwd, err, sizeof(err)) < 0)
		fail_in(policy, err);
	/* Most policies have none: nothing more on the launch's path. */
	if (vp->state == VENV_NONE)
		return;
	if (venv_check_places(vp, view, environ, cwd, kept_workdir(view, workdir, cwd, wd), err,
			      sizeof(err)) < 0)
		fail_in(policy, err);
}

/* Whether the venv is to be made or completed before the launch. */
static bool
venv_pending(const struct venv_plan *vp)
{
	return vp->state == VENV_MISSING || vp->state == VENV_PARTIAL;
}

/* Makes or completes the venv on the host (pip needs the network the
 * sandbox does not have), after everything a launch can know up front
 * was checked: a refused launch has run no pip and made no venv. One
 * line on stderr, since that takes a while. */
static void
prepare_venv(const char *policy, struct venv_plan *vp, const struct hc_places *ps)
{
	char err[PATH_MAX + 2048], line[PATH_MAX + 1024];

	if (!venv_pending(vp))
		return;
	venv_describe(vp, line, sizeof(line));
	note("%s", line);
	if (venv_prepare(vp, environ, ps, err, sizeof(err)) < 0)
		fail_in(policy, err);
}

/* `heel-exec check` prints on stdout what a launch would note. */
static void
note_stdout(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* What a launch finds only once it makes its namespaces (the probe's
 * trial), with the host's cause and the way out: into nserr ("" when
 * they work). *fatal when --best-effort would not get past it either: a
 * launch falls back from a refused clone and keeps the host's /proc, but
 * refuses whatever else fails (id maps, the first mount). */
static void
namespace_verdict(const struct linux_probe *p, const struct hostenv *host, char *nserr, size_t len,
		  bool *fatal)
{
	nserr[0] = '\0';
	*fatal = (p->userns < 0 && p->ns_step == HE_STEP_IDMAP) ||
		 (p->userns == 0 && p->proc < 0 && p->ns_step == HE_STEP_MOUNT);
	if (p->userns < 0 && p->ns_step == HE_STEP_IDMAP)
		snprintf(nserr, len,
			 "cannot write the id maps of the sandbox's user namespace (%s)",
			 strerror(-p->userns));
	else if (p->userns < 0)
		snprintf(nserr, len, "cannot create the sandbox's namespaces (%s)",
			 strerror(-p->userns));
	else if (p->proc < 0 && p->ns_step == HE_STEP_MOUNT)
		snprintf(nserr, len, "cannot mount in the sandbox's mount namespace (%s)",
			 strerror(-p->proc));
	else if (p->proc < 0)
		snprintf(nserr, len,
			 "no /proc of the sandbox's own (%s): the host's processes would stay "
			 "visible in /proc",
			 strerror(-p->proc));
	else if (p->userns == 0 && p->view < 0) {
		/* A kernel before 5.12: the launch would refuse in the child,
		 * best effort or not (nothing else holds metadata writes). */
		*fatal = true;
		snprintf(nserr, len,
			 "cannot make the file system read-only outside the writable places (%s%s)",
			 strerror(-p->view),
			 p->view == -ENOSYS ? ": no mount_setattr, which Linux 5.12 added" : "");
		return;
	} else
		return;
	if (p->ns_step >= 0)
		hostenv_explain(host, (enum he_step)p->ns_step,
				p->userns < 0 ? -p->userns : -p->proc, nserr, len);
}

/* What this machine can enforce of the policy: the same dry run a launch
 * makes, once strictly (the verdict) and once with --best-effort to list
 * every weakening and every rule that would be skipped. Exit 0 when a
 * launch would run, 125 when it would refuse. */
static int
policy_verdict(const struct art_view *view, const struct hc_places *ps, struct linux_probe *p,
	       const struct lim_plan *plan, const char *nserr, bool ns_fatal, bool list_skipped)
{
	struct linux_launch l = {
		.view = view,
		.probe = p,
		.host_env = environ,
		.note = note_stdout,
		.namespaces = true,
		.limits = plan,
		.list_skipped = list_skipped,
	};
	char cwd[PATH_MAX], dir[PATH_MAX], err[4096] = "", cgerr[512] = "", pxerr[4096] = "";
	char bkerr[4096] = "";
	struct envb_launch vars = { .env = environ };
	struct linux_proxy proxy = { .on = true, .port = PROXYCTL_PORT, .h = { .pidfd = -1, .ctl = -1 },
				     .listen_fd = -1 };
	struct linux_broker broker = { .h = { .pidfd = -1, .ctl = -1 } };
	int r, cg, px = 0, bk = 0;

	l.launch_dir = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
	vars.cwd = l.launch_dir;
	/* As a launch plans: under the hard open-files limit. */
	linux_raise_nofile(&l);
	/* The port a launch gives the Landlock rule; the proxy itself is
	 * only looked for. */
	if (linux_proxy_wanted(view)) {
		l.proxy = &proxy;
		px = linux_proxy_check(view, ps, &vars, dir, sizeof(dir), pxerr, sizeof(pxerr));
		if (px == 0)
			printf("network: through %s, at 127.0.0.1:%u inside the sandbox's own network "
			       "namespace (nothing else is reachable)\n",
			       dir, PROXYCTL_PORT);
	} else {
		printf("network: deny (no proxy; the sandbox's network namespace has loopback "
		       "only)\n");
	}
	/* The host commands: heel-broker, the client, and each program. */
	if (linux_broker_wanted(view)) {
		l.broker = &broker;
		bk = linux_broker_check(&broker, view, ps, bkerr, sizeof(bkerr));
		if (bk == 0) {
			printf("host commands:");
			for (size_t i = 0; i < broker.nnames; i++)
				printf("%s %s", i ? "," : "", broker.names[i]);
			printf(" (run on the host by heel-broker; the sandbox reaches it only "
			       "through its seccomp filter)\n");
		}
	}
	/* The policy's working directory is refused before anything else a
	 * launch does (nothing is weakened for it, --best-effort or not). */
	if (policy_workdir(view, l.launch_dir, dir, err, sizeof(err)) < 0 ||
	    (dir[0] && wd_check(dir, dir, sizeof(dir), err, sizeof(err)) < 0)) {
		printf("verdict: heel-exec would refuse to run: %s\n", err);
		printf("with --best-effort: still refused: %s\n", err);
		return EXIT_HEEL;
	}
	/* The cgroup is the one wall --best-effort alone gives up: it
	 * weakens the limits, not the confinement checked below. */
	cg = linux_cgroup_check(&l, cgerr, sizeof(cgerr));
	r = linux_check_landlock(&l, err, sizeof(err));
	if (r == 0)
		r = linux_check_seccomp(&l, err, sizeof(err));
	if (r == 0 && nserr[0]) {
		snprintf(err, sizeof(err), "%s", nserr);
		r = -EOPNOTSUPP;
	}
	if (r == 0 && cg < 0) {
		snprintf(err, sizeof(err), "%s", cgerr);
		r = cg;
	}
	if (r == 0 && px < 0) {
		snprintf(err, sizeof(err), "%s", pxerr);
		r = px;
	}
	if (r == 0 && bk < 0) {
		snprintf(err, sizeof(err), "%s", bkerr);
		r = bk;
	}
	if (r == 0) {
		l.verbose = true;
		linux_check_landlock(&l, err, sizeof(err));
		linux_check_seccomp(&l, err, sizeof(err));
		printf("verdict: this machine enforces the whole policy\n");
		return 0;
	}
	printf("verdict: heel-exec would refuse to run: %s\n", err);
	l.best_effort = true;
	l.verbose = true;
	/* A launch falls back to no namespaces only before it has made
	 * them; --no-namespaces never makes them. */
	if (ns_fatal)
		printf("with --best-effort: still refused: %s\n", nserr);
	else if (nserr[0])
		printf("weakened: %s\n", nserr);
	err[0] = '\0';
	/* Nothing is weakened for a missing host command: still refused. */
	if (bk < 0)
		printf("with --best-effort: still refused: %s\n", bkerr);
	else if (linux_check_landlock(&l, err, sizeof(err)) == 0 &&
		 linux_check_seccomp(&l, err, sizeof(err)) == 0)
		printf("with --best-effort%s: it would run, weakened as listed above%s\n",
		       ns_fatal ? " --no-namespaces" : "",
		       ns_fatal ? " and without the sandbox's namespaces" : "");
	else
		printf("with --best-effort: still refused: %s\n", err);
	return EXIT_HEEL;
}

/* An option getopt_long did not know, or one that lacks its value, named
 * as it was written (argv[at]), with the nearest option heel-exec has. */
static void __attribute__((noreturn))
bad_option(char *argv[], int at, int ch, const struct option *longopts)
{
	const char *arg = argv[at < optind ? at : optind - 1], *near = NULL;
	size_t n = strcspn(arg, "=");
	int best = 3;

	if (ch == ':')
		usage_error("%s needs a value", arg);
	if (optopt && strncmp(arg, "--", 2) != 0)
		usage_error("-%c: unknown option", optopt);
	for (const struct option *o = longopts; o->name && n > 2; o++) {
		char word[17];
		int d;

		snprintf(word, sizeof(word), "%.*s", (int)(n - 2), arg + 2);
		if ((d = word_distance(word, o->name)) < best ||
		    (n - 2 >= 3 && strncmp(o->name, arg + 2, n - 2) == 0 && best > 2)) {
			best = d < best ? d : 2;
			near = o->name;
		}
	}
	if (near)
		usage_error("%.*s: unknown option (did you mean --%s?)", (int)n, arg, near);
	usage_error("%s: unknown option", arg);
}

/* getopt_long takes any unique prefix of a long option (`--best` for
 * --best-effort): an option that weakens the sandbox is asked for by its
 * name, and a later option sharing the prefix would change what an old
 * script means. Exits 125 unless argv[at] is the option in full. */
static void
check_spelled_in_full(char *argv[], int at, int idx, const struct option *longopts)
{
	const char *arg = argv[at];
	size_t n = strcspn(arg, "=");

	if (idx < 0 || (n == strlen(longopts[idx].name) + 2 &&
			strncmp(arg + 2, longopts[idx].name, n - 2) == 0))
		return;
	usage_error("%.*s: write the option in full, --%s (heel-exec takes no abbreviations)",
		    (int)n, arg, longopts[idx].name);
}

/* What `readonly` (the host-run set) keeps read-only here: the writable
 * places the launch directory and the policy's own working directory
 * give (a --workdir adds its own). */
static void
check_readonly(const struct art_view *view, bool mountns)
{
	char cwd[PATH_MAX], dir[PATH_MAX], line[1024];
	struct hr_launch hl = { .env = environ };
	struct hr_plan hp;

	if (!art_readonly_count(view))
		return;
	hl.cwd = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
	if (policy_workdir(view, hl.cwd, dir, line, sizeof(line)) == 0 && dir[0])
		hl.workdir = dir;
	if (hr_plan_build(&hp, view, &hl, line, sizeof(line)) == 0) {
		hr_describe(&hp, mountns, line, sizeof(line));
		hr_plan_free(&hp);
	}
	printf("%s: %s\n", hr_label(view), line);
}

/* What a launch would do with the policy's venv, made nothing of; -1
 * (after the verdict lines) when it would refuse. */
static int
check_venv(const struct art_view *view, const struct hc_places *ps)
{
	char cwd[PATH_MAX], wd[PATH_MAX], err[PATH_MAX + 1024], line[PATH_MAX + 1024];
	const char *dir = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
	struct venv_plan vp;
	int r;

	r = venv_plan(&vp, view, ART_LINUX, environ, dir, err, sizeof(err));
	if (r == 0)
		r = venv_check_places(&vp, view, environ, dir, kept_workdir(view, NULL, dir, wd),
				      err, sizeof(err));
	if (r == 0)
		r = venv_check_host(&vp, ps, err, sizeof(err));
	if (r == 0 && vp.state != VENV_NONE) {
		venv_describe(&vp, line, sizeof(line));
		printf("python: %s%s\n", line,
		       vp.state == VENV_READY ? "" : " (before the sandbox starts)");
	}
	venv_plan_free(&vp);
	if (r == 0)
		return 0;
	printf("verdict: heel-exec would refuse to run: %s\n", err);
	printf("with --best-effort: still refused: %s\n", err);
	return -1;
}

/* heel-exec check [-v | -vv] POLICY.hpol; argv[0] is "check". */
static int
check_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct he_diag diag = { .cause = HE_CAUSE_UNKNOWN, .brief = "" };
	char line[PATH_MAX + 1200], nserr[2048], err[4096], wd[PATH_MAX], home[PATH_MAX];
	struct hc_places places;
	const char *cwd;
	struct hostenv host;
	struct linux_probe p;
	struct art_view view;
	struct lim_plan plan;
	uint8_t *buf;
	bool ns_fatal;
	int rc, ch, verbosity = 0;
	const char *policy;

	opterr = 0;
	for (int at = optind, idx = -1; (ch = getopt_long(argc, argv, "+:vh", longopts, &idx)) != -1;
	     at = optind, idx = -1) {
		check_spelled_in_full(argv, at, idx, longopts);
		switch (ch) {
		case 'v':
			verbosity++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			exit(0);
		default:
			bad_option(argv, at, ch, longopts);
		}
	}
	/* Without a policy: the walls of this machine for this user. */
	if (optind >= argc)
		exit(linux_walls_report());
	if (optind + 1 < argc)
		usage_error("check: one POLICY.hpol, and nothing after it (%s)", argv[optind + 1]);
	policy = argv[optind];
	check_policy_arg(policy, "--");
	load_policy(policy, -1, &buf, &view);
	/* As a launch would name ${HOME}; nothing is granted here. */
	resolve_home(home, sizeof(home));
	if ((rc = lim_plan(&plan, &view, ART_LINUX)) < 0)
		fail("%s: limits: %s", policy, strerror(-rc));
	linux_probe(&p, true);
	if (p.landlock_abi > 0)
		printf("landlock: ABI %d\n", p.landlock_abi);
	else
		printf("landlock: not available (%s)\n", strerror(-p.landlock_abi));
	if (p.seccomp < 0)
		printf("seccomp: not available (%s)\n", strerror(-p.seccomp));
	else
		printf("seccomp: available%s\n",
		       p.seccomp_mode == 2 ? " (already filtered: filters stack)" : "");
	/* What kind of host this is, and what it refused of the trial. */
	hostenv_observe(&host, "");
	if (p.ns_step >= 0)
		hostenv_diagnose(&host, (enum he_step)p.ns_step, p.userns < 0 ? -p.userns : -p.proc,
				 &diag);
	if (p.userns == 0)
		printf("user namespaces: available\n");
	else
		printf("user namespaces: not available (%s)%s%s\n", strerror(-p.userns),
		       diag.brief[0] ? ": " : "", diag.brief);
	if (p.userns == 0 && p.proc == 0)
		printf("private /proc: available\n");
	else if (p.userns == 0)
		printf("private /proc: not available (%s)%s%s\n", strerror(-p.proc),
		       diag.brief[0] ? ": " : "", diag.brief);
	hostenv_container_line(&host, &diag, line, sizeof(line));
	printf("container: %s\n", line);
	/* Root owns the host's secrets under /etc (see linux_run). */
	if (geteuid() == 0 && p.userns == 0) {
		char why[256];
		int tree = idmap_unowned_tree("/etc", why, sizeof(why));

		if (tree >= 0) {
			printf("root-only files under /etc: kept from a sandbox run as root by "
			       "their modes (an idmapped /etc that no user owns)\n");
			close(tree);
		} else {
			printf("root-only files under /etc: covered at launch after a scan (%s); "
			       "one the host creates during a run is not\n", why);
		}
	}
	namespace_verdict(&p, &host, nserr, sizeof(nserr), &ns_fatal);
	check_readonly(&view, p.userns == 0 && p.proc == 0);
	/* What the host side would refuse to run, open or grant. */
	cwd = getcwd(line, sizeof(line)) ? line : "/";
	if (build_places(&places, &view, cwd, kept_workdir(&view, NULL, cwd, wd), err,
			 sizeof(err)) < 0) {
		printf("verdict: heel-exec would refuse to run: %s\n", err);
		printf("with --best-effort: still refused: %s\n", err);
		rc = EXIT_HEEL;
	} else {
		rc = check_venv(&view, &places) < 0
			 ? EXIT_HEEL
			 : policy_verdict(&view, &places, &p, &plan, nserr, ns_fatal,
					  verbosity >= 2);
	}
	hc_places_free(&places);
	free(buf);
	return rc;
}

/* Notes each limit the policy asked above what we may set. */
static void
note_capped(const struct lim_plan *plan)
{
	char asked[64], kept[64];

	for (int i = 0; i < ART_LIMIT_COUNT; i++)
		if (plan->rl[i].set && plan->rl[i].capped)
			note("%s: above the hard limit; kept at %s",
			     lim_text(i, plan->rl[i].asked, asked, sizeof(asked)),
			     lim_text(i, (uint64_t)plan->rl[i].value, kept, sizeof(kept)) +
				     strlen("limit ") + strlen(lim_step_name(i)) + 1);
}

/* --artifact-fd N: a descriptor above the standard streams (0, 1 and 2
 * are the command's), written in decimal. -1 when it is not one. */
static int
parse_fd(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' || v < 3 || v > INT_MAX)
		return -1;
	return (int)v;
}

/* --cwd DIR, before anything is made: an absolute directory. Whether the
 * sandbox can enter it is known only inside (linux.c). */
static void
check_cwd_arg(const char *dir)
{
	struct stat st;

	if (dir[0] != '/')
		usage_error("--cwd %s: must be an absolute path", dir);
	if (stat(dir, &st) < 0)
		fail("--cwd %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		fail("--cwd %s: not a directory", dir);
}

/* Under network deny, what the sandbox tried to reach beyond itself and
 * failed, said once at the end (netrefused.h says how it is counted),
 * with the way to allow a host in the words the user wrote the policy
 * in: heel run's options (a policy handed over on a descriptor by heel
 * run, whose network is the default or an option's) or a policy file. */
static void
note_network_refused(const struct linux_launch *l, const struct art_view *view, bool from_fd)
{
	unsigned long long v4 = l->net_refused[0], v6 = l->net_refused[1], n = v4 + v6;
	struct art_scalar net;
	char at[PATH_MAX] = "", way[PATH_MAX + 128];
	bool options = from_fd;

	if (!n)
		return;
	if (art_scalar(view, ART_LINUX, ART_SC_NETWORK, &net) == 0 && net.set && net.origin.file &&
	    net.origin.file[0] != '<') {
		rt_origin(at, sizeof(at), net.origin.file, net.origin.line);
		options = net.origin.file[0] == '-' || strstr(net.origin.file, ".toml");
	}
	if (options)
		snprintf(way, sizeof(way), "heel run --network allow-list --allow-domain HOST");
	else
		snprintf(way, sizeof(way), "`network allow { \"HOST\" }` in the policy%s%s%s",
			 at[0] ? " (network deny is at " : "", at, at[0] ? ")" : "");
	note("the command tried %llu time%s to reach an address outside the sandbox (%s%s%s), "
	     "which network deny refuses: the sandbox has its own loopback and nothing else; "
	     "to let it reach a host: %s",
	     n, n == 1 ? "" : "s", v4 ? "IPv4" : "", v4 && v6 ? " and " : "", v6 ? "IPv6" : "", way);
}

/* What the command line asks beyond struct linux_launch. */
struct cli {
	const char *policy;	/* POLICY.hpol, or fdname */
	const char *workdir;	/* --workdir, or NULL */
	int artifact_fd;	/* --artifact-fd, or -1 */
	bool why;		/* --why (or --why-fd) */
	int why_fd;		/* --why-fd, or -1 */
	char fdname[40];	/* "--artifact-fd N", for messages */
};

/* heel-exec [OPTIONS] (POLICY.hpol | --artifact-fd N) -- CMD [ARG...]:
 * into *l and *c; --help and --version exit 0 here, a mistake 125. */
static void
parse_command_line(int argc, char *argv[], struct linux_launch *l, struct cli *c)
{
	static const struct option longopts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "artifact-fd", required_argument, NULL, 'f' },
		{ "best-effort", no_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-namespaces", no_argument, NULL, 'n' },
		{ "accept", required_argument, NULL, 'a' },
		{ "why", no_argument, NULL, 'y' },
		{ "why-fd", required_argument, NULL, 'Y' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, verbosity = 0, at = 0;

	c->artifact_fd = -1;
	c->why_fd = -1;
	opterr = 0;
	for (int was = optind, idx = -1;
	     (ch = getopt_long(argc, argv, "+:vhV", longopts, &idx)) != -1; was = optind, idx = -1) {
		check_spelled_in_full(argv, was, idx, longopts);
		switch (ch) {
		case 'w':
			c->workdir = optarg;
			break;
		case 'C':
			check_cwd_arg(optarg);
			l->start_dir = optarg;
			break;
		case 'f':
			if ((c->artifact_fd = parse_fd(optarg)) < 0)
				usage_error("--artifact-fd %s: not a descriptor number of 3 or above "
					    "(0, 1 and 2 are the command's)", optarg);
			break;
		case 'b':
			l->best_effort = true;
			break;
		case 'v':
			verbosity++;
			break;
		case 'n':
			l->namespaces = false;
			break;
		case 'y':
			c->why = true;
			break;
		case 'Y':
			if ((c->why_fd = parse_fd(optarg)) < 0)
				usage_error("--why-fd %s: not a descriptor number of 3 or above "
					    "(0, 1 and 2 are the command's)", optarg);
			c->why = true;
			break;
		case 'a':
			if (!linux_accept_bit(optarg))
				fail("--accept %s: not a weakening heel-exec knows "
				     "(it knows per-process-limits)", optarg);
			l->accept |= linux_accept_bit(optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			exit(0);
		case 'V':
			printf("heel-exec %s (reads heel artifacts, format %d.x; newest known "
			       "%d.%d)\n",
			       HEEL_VERSION, ART_FMT_MAJOR, ART_FMT_MAJOR, ART_FMT_MINOR);
			exit(0);
		default:
			bad_option(argv, was, ch, longopts);
		}
	}
	l->verbose = verbosity >= 1;
	l->list_skipped = verbosity >= 2;
	/* getopt takes a `--` right after the options as its own end mark:
	 * with --artifact-fd, where no POLICY.hpol stands between, that is
	 * the `--` before the command. */
	if (c->artifact_fd >= 0 && optind > 1 && strcmp(argv[optind - 1], "--") == 0)
		optind--;
	argc -= optind;
	argv += optind;
	if (c->artifact_fd >= 0) {
		if (argc > 1 && strcmp(argv[0], "--") != 0 && strcmp(argv[1], "--") == 0)
			usage_error("%s: --artifact-fd takes the place of POLICY.hpol; give one or "
				    "the other", argv[0]);
		snprintf(c->fdname, sizeof(c->fdname), "--artifact-fd %d", c->artifact_fd);
		c->policy = c->fdname;
	} else {
		if (argc == 0)
			usage_error("missing POLICY.hpol");
		if (strcmp(argv[0], "--") == 0)
			usage_error("missing POLICY.hpol before `--`");
		c->policy = argv[0];
		check_policy_arg(c->policy, argc > 1 ? argv[1] : NULL);
		at = 1;
	}
	if (argc <= at)
		usage_error("missing `--` and the command after %s", c->policy);
	if (strcmp(argv[at], "--") != 0) {
		if (at)
			usage_error("missing `--` between %s and the command (%s)", c->policy,
				    argv[at]);
		usage_error("missing `--` before the command (%s)", argv[at]);
	}
	if (argc <= at + 1)
		usage_error("nothing to run after `--`");
	l->argv = argv + at + 1;
}

/* Each line heel-observe wrote, as a note. */
static void
note_observed(const struct linux_observe *o)
{
	char *lines = linux_observe_lines(o), *p, *nl;

	for (p = lines; p && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		note("denial: %s", p);
	}
	free(lines);
}

int
main(int argc, char *argv[])
{
	struct linux_launch l = { .namespaces = true, .note = note };
	struct cli c = { 0 };
	const char *policy, *workdir_arg;
	char cwd[PATH_MAX], path[PATH_MAX], file[PATH_MAX], wdpath[PATH_MAX], err[4096], msg[4096];
	char cachedir[PATH_MAX], stamp[PATH_MAX], home[PATH_MAX];
	struct linux_cgroup cgroup = { 0 };
	struct linux_probe probe;
	struct art_view view;
	struct lim_plan plan;
	struct envb env;
	struct linux_proxy proxy = { .h = { .pidfd = -1, .ctl = -1 }, .listen_fd = -1,
				     .refusals_fd = -1 };
	struct linux_broker broker = { .h = { .pidfd = -1, .ctl = -1 } };
	struct linux_observe observe = { .h = { .pidfd = -1, .ctl = -1 }, .out = -1 };
	struct linux_why why = { .h = { .pidfd = -1, .ctl = -1 } };
	struct venv_plan venv;
	struct hc_places places;
	struct envb_launch vars;
	struct wd wd;
	uint8_t *buf;
	bool started = false;
	struct art_scalar iso;
	int r, status;

	ensure_std_fds();
	launch_mark("start");
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return check_main(argc - 1, argv + 1);
	parse_command_line(argc, argv, &l, &c);
	policy = c.policy;
	workdir_arg = c.workdir;
#ifdef HEEL_TEST_NO_ENFORCE
	/* Test build only: exercise the fallback without namespaces. */
	if (getenv("HEEL_TEST_NO_NAMESPACES")) {
		l.namespaces = false;
		l.best_effort = true;
	}
#endif
	/* Without a private mount namespace nothing stops a written file
	 * from being run through the dynamic loader: that is a weakening,
	 * so it is only ever chosen together with --best-effort. */
	if (!l.namespaces && !l.best_effort)
		fail("--no-namespaces gives up the noexec mounts and the PID namespace; "
		     "it needs --best-effort");

	linux_block_signals(&l);

	/* 1. The artifact, and whether this kernel can enforce it. Nothing
	 * has been created yet, so a refusal leaves nothing behind. */
	load_policy(policy, c.artifact_fd, &buf, &view);
	launch_mark("artifact read and validated");
	/* Before anything expands ${HOME}, or reads the environment. */
	resolve_home(home, sizeof(home));
	l.view = &view;
	linux_probe(&probe, false);
	l.probe = &probe;
	l.host_env = environ;
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd: %s", strerror(errno));
	l.launch_dir = cwd;
	vars = (struct envb_launch){ .env = environ, .cwd = cwd };
	/* What the host side may run, open or grant: nothing a sandbox of
	 * this launch or an earlier run could have written. */
	if (build_places(&places, &view, cwd, kept_workdir(&view, workdir_arg, cwd, path), err,
			 sizeof(err)) < 0)
		fail_in(policy, err);
	check_home(&places, home, l.verbose);
	l.heel_state = places.lg.dir[0] ? places.lg.dir : NULL;
	l.heel_cache = ud_compile_cache(environ, cachedir, sizeof(cachedir)) == 0 ? cachedir : NULL;
	plan_venv(policy, &view, cwd, workdir_arg, &venv);
	/* The command runs in the working directory, but "./build.sh" on
	 * our command line means the one beside the user. */
	l.file = l.argv[0];
	if (strchr(l.argv[0], '/') && l.argv[0][0] != '/') {
		if (snprintf(file, sizeof(file), "%s/%s", cwd, l.argv[0]) >= (int)sizeof(file))
			fail("%s: path too long", l.argv[0]);
		l.file = file;
	}
	if ((r = lim_plan(&plan, &view, ART_LINUX)) < 0)
		fail("%s: limits: %s", policy, strerror(-r));
	l.limits = &plan;
	if (l.verbose)
		note_capped(&plan);
	launch_mark("kernel probed, limits planned");
	/* A venv to make runs python3 and pip on the host, which takes a
	 * while and leaves the venv behind: first everything a launch can
	 * know, so that a launch that would be refused has run nothing. */
	if (venv_pending(&venv)) {
		if (precheck(&l, &view, &places, &vars, err, sizeof(err)) < 0)
			fail_in(policy, err);
		prepare_venv(policy, &venv, &places);
	}
	/* heel-proxy first, so that its start overlaps the sandbox's: the
	 * sandbox's init waits for it only at the end. A refusal below ends
	 * us, and the proxy with us (its control socket hangs up). */
	if (linux_proxy_wanted(&view)) {
		/* --why: what heel-proxy refuses, for heel-why to explain. */
		if (c.why && (proxy.refusals_fd = memfd_create("heel-proxy-refusals",
							       MFD_CLOEXEC)) < 0)
			fail("--why: memfd_create: %s", strerror(errno));
		if (linux_proxy_start(&proxy, &view, &places, &vars, l.namespaces, err,
				      sizeof(err)) < 0)
			fail_in(policy, err);
		l.proxy = &proxy;
		/* Never silent: the weaker of the two ways to the proxy. */
		if (!l.namespaces)
			note("weakened: without a network namespace the sandbox reaches heel-proxy "
			     "on the host's loopback, port %u, and Landlock can hold it to that port "
			     "only (of any address), not to the proxy itself",
			     proxy.port);
		launch_mark("heel-proxy started");
	}
	/* heel-broker too, for the policy's host commands. */
	if (linux_broker_wanted(&view)) {
		if (!l.namespaces)
			fail("%s: the policy's host commands need the sandbox's mount namespace, "
			     "which --no-namespaces gives up",
			     policy);
		if (linux_broker_check(&broker, &view, &places, err, sizeof(err)) < 0 ||
		    linux_broker_start(&broker, &view, &places, &vars, err, sizeof(err)) < 0)
			fail_in(policy, err);
		l.broker = &broker;
		launch_mark("heel-broker started");
	}
	/* --why: heel-why explains what was refused. What it is told comes
	 * from heel-observe where heel-exec may load BPF (the kernel's own
	 * outcomes, seccomp's refusals among them, and nothing to pay per
	 * call), else from a seccomp listener that watches the command's
	 * calls (docs/observe.md says what each sees). heel-observe's BPF
	 * program loads while the sandbox is set up. */
	if (c.why) {
		bool warn = false;

		linux_observe_start(&observe, &places, &warn, msg, sizeof(msg));
		if (observe.on) {
			l.observe = &observe;
			why.kernel = true;
		} else if (msg[0] && (warn || l.verbose))
			note("--why: the kernel-side observer is off (%s); the calls are "
			     "watched with a seccomp listener instead", msg);
		msg[0] = '\0';
		if (linux_why_check(&why, &view, &places, err, sizeof(err)) < 0 ||
		    linux_why_start(&why, &view, &places, &vars, err, sizeof(err)) < 0)
			fail_in(policy, err);
		if (proxy.refusals_fd >= 0) {
			if (linux_why_proxy(&why, proxy.refusals_fd, err, sizeof(err)) < 0)
				fail_in(policy, err);
			close(proxy.refusals_fd);
			proxy.refusals_fd = -1;
		}
		/* heel-why alone writes there: the sandbox never holds it. */
		if (c.why_fd >= 0) {
			if (fcntl(c.why_fd, F_GETFD) < 0)
				fail("--why-fd %d: not an open descriptor", c.why_fd);
			if (linux_why_denials(&why, c.why_fd, err, sizeof(err)) < 0)
				fail_in(policy, err);
			close(c.why_fd);
		}
		l.why = &why;
		launch_mark("heel-why started");
	}
	/* Before planning, which holds a descriptor per grant; the command
	 * gets the caller's limit back. */
	linux_raise_nofile(&l);
	if (linux_check_landlock(&l, err, sizeof(err)) < 0 ||
	    linux_check_seccomp(&l, err, sizeof(err)) < 0)
		fail("%s", err);

	launch_mark("Landlock plan built (launcher)");
	/* 2. The working directory: --workdir, the policy's, or a fresh one
	 * that is removed at exit. wd_use refuses a system directory before
	 * it makes anything. */
	if (!workdir_arg) {
		if (policy_workdir(&view, cwd, path, err, sizeof(err)) < 0)
			fail("%s", err);
		if (path[0])
			workdir_arg = path;
	}
	/* What launches killed with SIGKILL left: their empty mount points
	 * (at most once a minute, by a stamp beside the ledger). */
	wd_sweep(environ, places.lg.dir[0] && snprintf(stamp, sizeof(stamp), "%s/swept",
							places.lg.dir) < (int)sizeof(stamp)
				  ? stamp
				  : NULL);
	/* wd_use follows the links the name crosses: one a sandbox could
	 * have planted would hand it another directory (~/.ssh) to write. */
	if (workdir_arg && (r = hc_check(&places, HC_GRANT, "the working directory",
					 kept_workdir(&view, workdir_arg, cwd, wdpath), err, sizeof(err))) < 0)
		fail("%s", err);
	r = workdir_arg ? wd_use(&wd, workdir_arg, err, sizeof(err))
			: wd_create(&wd, environ, err, sizeof(err));
	if (r < 0)
		fail("working directory: %s", err);
	if (l.verbose)
		note("working directory %s (%s)", wd.path, wd.remove ? "removed at exit" : "kept");
	l.workdir = wd.path;
	/* A fresh working directory is a private tmpfs in the sandbox's
	 * mount namespace: no other process of the user, no other sandbox
	 * sees its files, and a killed launch leaves nothing but the empty
	 * mount point. Bounded like the tree's memory, where the policy
	 * bounds it (its pages are the tree's memory). */
	l.fresh_workdir = wd.remove;
	/* Root owns the host's secrets under /etc, so their modes do not keep
	 * a sandbox run as root out: under strict and default what a mode
	 * keeps from other users is covered (permissive reads what root
	 * reads). */
	l.hide_root_only = geteuid() == 0 &&
			   !(art_scalar(&view, ART_LINUX, ART_SC_ISOLATION, &iso) == 0 && iso.set &&
			     iso.value == 2);
	if (plan.rl[0].set)
		l.workdir_bytes = (uint64_t)plan.rl[0].value;

	launch_mark("working directory made");
	/* The environment, from scratch. */
	envb_init(&env);
	if ((r = envb_build(&env, environ, &view, ART_LINUX, wd.tmp)) < 0) {
		snprintf(msg, sizeof(msg), "environment: %s", strerror(-r));
		status = EXIT_HEEL;
		started = false;
		goto out;
	}
	if (l.proxy && (r = linux_proxy_env(l.proxy, &env)) < 0) {
		snprintf(msg, sizeof(msg), "environment: %s", strerror(-r));
		status = EXIT_HEEL;
		started = false;
		goto out;
	}
	/* The venv's python3 before the system's. */
	if ((r = venv_env(&venv, &env)) < 0) {
		snprintf(msg, sizeof(msg), "environment: %s", strerror(-r));
		status = EXIT_HEEL;
		goto out;
	}
	/* The host commands' names, first on PATH. */
	if (l.broker && linux_broker_prepare(l.broker, &view, wd.path, environ, &env, msg,
					     sizeof(msg)) < 0) {
		status = EXIT_HEEL;
		goto out;
	}
	if (l.why && linux_why_prepare(l.why, wd.path, msg, sizeof(msg)) < 0) {
		status = EXIT_HEEL;
		goto out;
	}
	l.envp = env.vars;

	/* The tree's cgroup: without one, `limit processes`, `memory` and
	 * `cpu` would hold per process only. */
	if (linux_cgroup_make(&l, &cgroup, "", msg, sizeof(msg)) < 0) {
		status = EXIT_HEEL;
		goto out;
	}
	l.cgroup = &cgroup;
	launch_mark("cgroup made");

	/* Last before the sandbox starts: where it may write, for the host
	 * side of every later run. Never silent when it cannot be kept. */
	if ((r = hc_record(&places, msg, sizeof(msg))) < 0) {
		note("warning: this run's writable places are not recorded (%s): heel's host side "
		     "in a later run cannot tell what this sandbox leaves there (heel(5), WHAT "
		     "PERSISTS BETWEEN RUNS)",
		     msg);
		msg[0] = '\0';
	}
	warn_system_writable(&places);

	/* 3.-5. Fork, set up, exec, wait, kill what is left. */
	launch_mark("environment built");
	status = linux_run(&l, msg, sizeof(msg));
	/* A message with 125, 126 or 127 means the command never started:
	 * heel-exec refused in the child, or the exec failed. */
	started = !(msg[0] && status >= EXIT_HEEL && status <= 127);
out:
	if (msg[0])
		note("%s", msg);
	if (l.proxy_died)
		note("heel-proxy died while the command ran; from then on the sandbox had no "
		     "network at all");
	note_network_refused(&l, &view, c.artifact_fd >= 0);
	if (l.observe) {
		/* linux_run stopped it before its sweep; not when it failed
		 * before the command ran. */
		linux_observe_stop(l.observe);
		if (l.verbose && observe.what[0])
			note("denial observer: %lu refusal%s seen", observe.denials,
			     observe.denials == 1 ? "" : "s");
		if (l.verbose && observe.lost)
			note("denial observer: %lu more lost: its buffer was full", observe.lost);
		/* -vv: the raw lines themselves (docs/observe.md), until the
		 * explanations of each take their place. */
		if (l.list_skipped && observe.what[0])
			note_observed(&observe);
	}
	linux_observe_free(&observe);
	if (l.proxy)
		linux_proxy_stop(l.proxy);
	/* heel-broker kills the calls still running as it stops. */
	if (l.broker && (r = linux_broker_stop(l.broker)) < 0)
		note("could not remove %s: %s", broker.dir, strerror(-r));
	/* heel-why printed what was refused when the tree ended
	 * (linux_run); a launch that failed before stops it here. */
	if (l.why)
		linux_why_stop(l.why);
	if (observe.died)
		note("heel-observe died while the command ran; what the sandbox was refused from "
		     "then on was not seen (no wall depends on it)");
	if (l.why_died)
		note("heel-why died while the command ran; from then on the calls it watched "
		     "failed (ENOSYS) rather than run unwatched");
	/* The tree is dead: linux_run swept it before returning. */
	linux_cgroup_remove(&l, &cgroup);
	/* A launch that did not run the command leaves nothing behind: not
	 * even the kept working directory (or its tmp/) if it made them. */
	if ((r = started ? wd_remove(&wd) : wd_abandon(&wd)) < 0)
		note("could not remove the working directory %s: %s", wd.path, strerror(-r));
	launch_mark("working directory removed");
	envb_free(&env);
	venv_plan_free(&venv);
	hc_places_free(&places);
	free(buf);
	return status;
}

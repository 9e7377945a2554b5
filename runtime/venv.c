/* SPDX-License-Identifier: MIT
 * A policy's virtual environment, made and filled on the host before a
 * sandbox uses it (runtime/venv.h). The children are python3 and the
 * venv's own pip, started with fork and execve (never a shell), with an
 * environment of the caller's that carries pip's settings and nothing a
 * policy sets for the sandbox. */
#include "venv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "landlock_abi.h"
#include "landlock_table.h"
#include "pathexpand.h"
#include "readsmall.h"

/* close_range(2) (Linux 5.9) has one number on every architecture;
 * older C libraries do not name it. Where the kernel lacks it, the
 * launcher's descriptors are close-on-exec anyway. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* A record longer than this is not one heel wrote. */
#define RECORD_MAX (1u << 20)

struct vars {
	char *const *env;
	const char *cwd;
};

static const char *
lookup(const char *name, void *ctx)
{
	const struct vars *v = ctx;

	if (strcmp(name, "CWD") == 0)
		return v->cwd;
	if (strcmp(name, "WORKDIR") == 0)
		return NULL; /* heelc refuses it in a venv */
	return envb_lookup(v->env, name);
}

void
venv_plan_free(struct venv_plan *vp)
{
	free(vp->packages);
	free(vp->missing);
	vp->packages = vp->missing = NULL;
	vp->npackages = vp->nmissing = 0;
}

/* Refuses a symbolic link anywhere on the way to `path` (the part that
 * exists): the Landlock grant of the venv is made on the path as
 * written and refuses a link there, and pip, following it, would fill a
 * place the policy does not name. *exists: the whole path is there. */
static int
check_links(const char *path, bool *exists, char *err, size_t errlen)
{
	char part[PATH_MAX];
	size_t n = strlen(path);
	struct stat st;

	*exists = false;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		if (lstat(part, &st) < 0) {
			if (errno == ENOENT)
				return 0;
			return rt_error(err, errlen, -errno, "venv %s: %s: %s", path, part,
					strerror(errno));
		}
		if (S_ISLNK(st.st_mode))
			return rt_error(err, errlen, -ELOOP,
					"venv %s: %s is a symbolic link; name the real place in the "
					"policy",
					path, part);
		if (i < n && !S_ISDIR(st.st_mode))
			return rt_error(err, errlen, -ENOTDIR, "venv %s: %s is not a directory",
					path, part);
	}
	if (!S_ISDIR(st.st_mode))
		return rt_error(err, errlen, -ENOTDIR, "venv %s: not a directory", path);
	*exists = true;
	return 0;
}

static bool
dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* VENV/name as a regular file (never through a link): its bytes,
 * NUL-terminated, in *out (caller frees); -ENOENT when absent. */
static int
read_small(const char *venv, const char *name, char **out)
{
	char path[PATH_MAX];
	int fd;

	*out = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", venv, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return rt_read_small(fd, RECORD_MAX, out, NULL, NULL);
}

/* Whether `pkg` is a line of the record. */
static bool
recorded(const char *record, const char *pkg)
{
	size_t n = strlen(pkg);

	for (const char *l = record; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, pkg, n) == 0 && (l[n] == '\n' || l[n] == '\0'))
			return true;
	return false;
}

/* python3 on the caller's PATH: the first executable one, as a shell
 * would find it. "" when there is none. */
static void
find_python(char *const *env, char *out, size_t len)
{
	const char *path = envb_lookup(env, "PATH");
	char dir[PATH_MAX];

	out[0] = '\0';
	if (!path)
		path = ENVB_DEFAULT_PATH;
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && n < sizeof(dir) && path[0] == '/') {
			memcpy(dir, path, n);
			dir[n] = '\0';
			if ((size_t)snprintf(out, len, "%s/python3", dir) < len &&
			    access(out, X_OK) == 0)
				return;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	out[0] = '\0';
}

int
venv_plan(struct venv_plan *vp, const struct art_view *view, unsigned platform,
	  char *const *env, const char *cwd, char *err, size_t errlen)
{
	struct vars v = { env, cwd };
	struct art_python py;
	struct px_info info;
	char why[PATH_MAX + 256], *cfg = NULL, *record = NULL;
	bool exists;
	int r;

	memset(vp, 0, sizeof(*vp));
	if (art_python(view, platform, &py) < 0 || !py.set || !py.venv)
		return 0;
	vp->writable = py.allow_pip_install;
	r = px_expand(py.venv, lookup, &v, vp->path, sizeof(vp->path), &info);
	if (r == 0)
		r = px_refuse_system(vp->path, &info);
	if (r < 0)
		return rt_error(err, errlen, r, "venv \"%s\": %s", py.venv,
				px_describe(&info, why, sizeof(why)));
	vp->packages = calloc(py.npackages + 1, sizeof(*vp->packages));
	vp->missing = calloc(py.npackages + 1, sizeof(*vp->missing));
	if (!vp->packages || !vp->missing)
		return rt_error(err, errlen, -ENOMEM, "venv %s: out of memory", vp->path);
	for (uint32_t i = 0; i < py.npackages; i++)
		vp->packages[vp->npackages++] = art_python_package(view, &py, i);
	find_python(env, vp->python, sizeof(vp->python));

	if ((r = check_links(vp->path, &exists, err, errlen)) < 0)
		return r;
	vp->state = VENV_MISSING;
	if (exists) {
		r = read_small(vp->path, "pyvenv.cfg", &cfg);
		free(cfg);
		if (r == 0)
			vp->state = VENV_PARTIAL;
		else if (!dir_is_empty(vp->path))
			return rt_error(err, errlen, -EEXIST,
					"venv %s: the directory is there and is not a virtual "
					"environment (no pyvenv.cfg); heel makes a venv only where "
					"nothing is, or in an empty directory",
					vp->path);
	}
	if (vp->state == VENV_PARTIAL && (r = read_small(vp->path, VENV_RECORD, &record)) < 0 &&
	    r != -ENOENT)
		return rt_error(err, errlen, r, "venv %s: %s: %s", vp->path, VENV_RECORD,
				strerror(-r));
	for (size_t i = 0; i < vp->npackages; i++)
		if (!recorded(record, vp->packages[i]))
			vp->missing[vp->nmissing++] = vp->packages[i];
	free(record);
	if (vp->state == VENV_PARTIAL && !vp->nmissing)
		vp->state = VENV_READY;
	return 0;
}

/* ------------------------------------------------------------ places */

int
venv_check_places(const struct venv_plan *vp, const struct art_view *view, char *const *env,
		  const char *cwd, const char *workdir, char *err, size_t errlen)
{
	struct vars v = { env, cwd };
	struct ll_table_view t;
	const uint8_t *payload;
	size_t len;

	if (vp->state == VENV_NONE || vp->writable)
		return 0;
	/* The working directory is writable and never executable, whatever
	 * a grant says: a venv in it could be neither read-only nor run. */
	if (workdir && (px_at_or_beneath(vp->path, workdir) || px_beneath(workdir, vp->path)))
		return rt_error(err, errlen, -EPERM,
				"venv %s: the working directory %s, which the sandbox writes, "
				"%s it; with allow-pip-install no the sandbox must not write the "
				"venv (the host runs its python and pip when it is prepared): put "
				"it elsewhere, or say allow-pip-install yes",
				vp->path, workdir, px_beneath(workdir, vp->path) ? "lies in" : "holds");
	if (art_landlock(view, &payload, &len) < 0 || ll_table_parse(payload, len, &t, NULL, 0) < 0)
		return 0;
	/* A writable grant above the venv is narrowed around it (the longest
	 * path decides, docs/landlock.md): the venv stays read-only. One at
	 * the venv itself or beneath it writes into it. */
	for (uint32_t i = 0; i < t.rule_count; i++) {
		struct ll_rule_view rv;
		struct px_info info;
		char path[PATH_MAX], at[PATH_MAX];

		ll_table_rule(&t, i, &rv);
		if (rv.kind != LL_KIND_GRANT || !(rv.access & LL_FS_WRITE_RIGHTS) ||
		    px_expand(rv.path, lookup, &v, path, sizeof(path), &info) < 0 ||
		    !px_at_or_beneath(path, vp->path))
			continue;
		return rt_error(err, errlen, -EPERM,
				"venv %s: the policy lets the sandbox write %s (grant \"%s\"%s%s); "
				"with allow-pip-install no the sandbox must not write the venv (the "
				"host runs its python and pip when it is prepared): drop the grant, "
				"or say allow-pip-install yes",
				vp->path, path, rv.path, rv.origin ? ", " : "",
				rt_origin(at, sizeof(at), rv.origin, rv.origin_line));
	}
	return 0;
}

void
venv_describe(const struct venv_plan *vp, char *buf, size_t len)
{
	size_t o = 0;
	int n = -1;

	switch (vp->state) {
	case VENV_NONE:
		snprintf(buf, len, "no virtual environment");
		return;
	case VENV_READY:
		snprintf(buf, len, "venv %s: there, with the policy's %zu package%s (%s); reused",
			 vp->path, vp->npackages, vp->npackages == 1 ? "" : "s", VENV_RECORD);
		return;
	case VENV_MISSING:
		n = snprintf(buf, len, "venv %s: missing; made with %s -m venv%s", vp->path,
			     vp->python[0] ? vp->python : "python3 (none on PATH)",
			     vp->nmissing ? ", then its pip installs" : "");
		break;
	case VENV_PARTIAL:
		n = snprintf(buf, len, "venv %s: there; %s", vp->path,
			     vp->writable ? "the sandbox may write it, so it is refused rather "
					    "than run on the host to install"
					  : "its pip installs");
		break;
	}
	if (n < 0)
		return;
	o = (size_t)n;
	for (size_t i = 0; i < vp->nmissing && o < len; i++) {
		n = snprintf(buf + o, len - o, " %s", vp->missing[i]);
		if (n < 0)
			return;
		o += (size_t)n;
	}
}

/* ------------------------------------------------------------ children */

/* What the children see of the caller's environment: where to find
 * programs and the user's files (pip.conf, its cache), the locale, and
 * how the user reaches a package index (PIP_*, proxies, certificates).
 * Not VIRTUAL_ENV or PYTHON*, which would change which code runs, and
 * nothing the policy sets for the sandbox. */
static bool
passed(const char *var)
{
	static const char *const names[] = {
		"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TMPDIR", "XDG_CONFIG_HOME",
		"XDG_CACHE_HOME", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY",
		"HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "all_proxy", "SSL_CERT_FILE",
		"SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
	};
	size_t n = strcspn(var, "=");

	if (!var[n])
		return false;
	if (strncmp(var, "PIP_", 4) == 0 || strncmp(var, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(var, names[i], n) == 0)
			return true;
	return false;
}

/* Runs argv[0] with envp, stdin from /dev/null and stdout onto stderr
 * (the launcher's stdout is the command's), and waits for it. */
static int
run(char *const argv[], char *const envp[], char *err, size_t errlen)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return rt_error(err, errlen, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		sigset_t none;
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* The launcher blocks and catches signals for its own
		 * waiting; a child must stop on Ctrl-C like any program. */
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* A neutral directory: `python -m` puts the current one first
		 * on sys.path unless -I, and what runs here must not find a
		 * pip.py or venv.py a sandbox left in the launch directory. */
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(2, 1) < 0 || chdir("/") < 0)
			_exit(126);
		syscall(SYS_close_range, 3u, ~0u, 0u);
		execve(argv[0], argv, envp);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rt_error(err, errlen, -errno, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return rt_error(err, errlen, -ECHILD, "%s was killed by signal %d", argv[0],
				WTERMSIG(status));
	return rt_error(err, errlen, -ECHILD, "%s exited with status %d%s", argv[0],
			WEXITSTATUS(status),
			WEXITSTATUS(status) == 127 ? " (not found)" : "");
}

/* Writes the record: what it held and the newly installed packages,
 * into a new file renamed over the old one. */
static int
write_record(const struct venv_plan *vp, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX], *old = NULL;
	size_t olen;
	FILE *f;
	int fd, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", vp->path, VENV_RECORD) >= sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return rt_error(err, errlen, -ENAMETOOLONG, "venv %s: path too long", vp->path);
	r = read_small(vp->path, VENV_RECORD, &old);
	if (r < 0 && r != -ENOENT)
		return rt_error(err, errlen, r, "%s: %s", path, strerror(-r));
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		free(old);
		return rt_error(err, errlen, r, "%s: %s", tmp, strerror(-r));
	}
	fchmod(fd, 0644);
	olen = old ? strlen(old) : 0;
	if (olen)
		fprintf(f, "%s%s", old, old[olen - 1] == '\n' ? "" : "\n");
	for (size_t i = 0; i < vp->nmissing; i++)
		fprintf(f, "%s\n", vp->missing[i]);
	free(old);
	r = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		return rt_error(err, errlen, r, "%s: %s", path, strerror(-r));
	}
	return 0;
}

int
venv_check_host(const struct venv_plan *vp, const struct hc_places *ps, char *err, size_t errlen)
{
	char what[PATH_MAX + 64];
	int r;

	if (vp->state == VENV_NONE || vp->state == VENV_READY)
		return 0;
	/* Once a sandbox could write it, nothing of the venv runs on the
	 * host again: its python or pip could be anything. */
	if (vp->state == VENV_PARTIAL && vp->writable)
		return rt_error(err, errlen, -EPERM,
				"venv %s lacks packages of the policy, and with allow-pip-install "
				"yes a sandbox may have written it, so heel will not run its pip on "
				"the host: remove the venv to have it made afresh, or install them "
				"from inside",
				vp->path);
	if (vp->state == VENV_MISSING && !vp->python[0])
		return rt_error(err, errlen, -ENOENT,
				"venv %s: no python3 on PATH to make it with", vp->path);
	if (vp->state == VENV_MISSING) {
		snprintf(what, sizeof(what), "venv %s: python3, which would make it,", vp->path);
		return hc_check(ps, HC_START, what, vp->python, err, errlen);
	}
	r = hc_check(ps, HC_RUN_TREE, "venv", vp->path, err, errlen);
	if (r == -EPERM) {
		size_t n = strlen(err);

		snprintf(err + n, errlen > n ? errlen - n : 0,
			 " (its pip would run to install what it lacks; remove the venv to have "
			 "it made afresh)");
	}
	return r;
}

int
venv_prepare(struct venv_plan *vp, char *const *env, const struct hc_places *ps, char *err,
	     size_t errlen)
{
	char pybin[PATH_MAX + 16], **envp, **argv;
	size_t n = 0, k = 0;
	int r;

	if (vp->state == VENV_NONE || vp->state == VENV_READY)
		return 0;
	if ((r = venv_check_host(vp, ps, err, errlen)) < 0)
		return r;
	for (char *const *e = env; e && *e; e++)
		n++;
	envp = calloc(n + 1, sizeof(*envp));
	argv = calloc(vp->nmissing + 16, sizeof(*argv));
	if (!envp || !argv) {
		free(envp);
		free(argv);
		return rt_error(err, errlen, -ENOMEM, "venv %s: out of memory", vp->path);
	}
	for (char *const *e = env; e && *e; e++)
		if (passed(*e))
			envp[k++] = *e;
	if (vp->state == VENV_MISSING) {
		char *mk[] = { vp->python, "-I", "-m", "venv", "--", vp->path, NULL };

		r = run(mk, envp, err, errlen);
	}
	if (r == 0 && vp->nmissing) {
		size_t a = 0;

		snprintf(pybin, sizeof(pybin), "%s/bin/python", vp->path);
		argv[a++] = pybin;
		argv[a++] = "-I";
		argv[a++] = "-m";
		argv[a++] = "pip";
		argv[a++] = "install";
		argv[a++] = "--disable-pip-version-check";
		argv[a++] = "--no-input";
		argv[a++] = "--quiet";
		argv[a++] = "--";
		for (size_t i = 0; i < vp->nmissing; i++)
			argv[a++] = (char *)vp->missing[i];
		argv[a] = NULL;
		r = run(argv, envp, err, errlen);
	}
	free(envp);
	free(argv);
	if (r < 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		return rt_error(err, errlen, r, "venv %s: %s", vp->path, why);
	}
	if ((r = write_record(vp, err, errlen)) < 0)
		return r;
	vp->nmissing = 0;
	vp->state = VENV_READY;
	return 0;
}

int
venv_env(const struct venv_plan *vp, struct envb *b)
{
	const char *path = envb_get(b, "PATH");
	char *value;
	int r;

	if (vp->state == VENV_NONE)
		return 0;
	if (asprintf(&value, "%s/bin%s%s", vp->path, path && path[0] ? ":" : "",
		     path ? path : "") < 0)
		return -ENOMEM;
	r = envb_set(b, "PATH", value);
	free(value);
	return r ? r : envb_set(b, "VIRTUAL_ENV", vp->path);
}

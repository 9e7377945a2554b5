/* SPDX-License-Identifier: MIT
 * The argument rules of host commands (ipcargs.h): the call syntax,
 * the four types, `-` for stdin, and `path` kept beneath the working
 * directory, lexically here and by the kernel in ipcargs_resolve(). */
#include "ipcargs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errmsg.h"

#define PATH_CAP 4096

static const char *const type_names[] = {
	[IPC_ARG_STRING] = "string",
	[IPC_ARG_INT] = "int",
	[IPC_ARG_BOOL] = "bool",
	[IPC_ARG_PATH] = "path",
};

bool
ipcargs_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > IPCARGS_NAME_MAX || name[0] == '-' || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
			return false;
	}
	return true;
}

int
ipcargs_command_init(struct ipc_command *c, const char *name, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->timeout_ms = HEEL_IPC_TIMEOUT_DEFAULT_MS;
	if (!ipcargs_name_ok(name))
		return rt_error(err, errlen, -EINVAL, "command name `%.80s` is not a valid name", name);
	if (!(c->name = strdup(name)))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

static bool
seen(const struct ipc_command *c, const char *name, bool positional)
{
	if (positional) {
		for (size_t i = 0; i < c->npositionals_seen; i++)
			if (!strcmp(c->positionals[i], name))
				return true;
		return false;
	}
	for (size_t i = 0; i < c->nargs; i++)
		if (!strcmp(c->args[i].name, name))
			return true;
	return false;
}

int
ipcargs_command_add_positional(struct ipc_command *c, const char *name, char *err, size_t errlen)
{
	if (!ipcargs_name_ok(name))
		return rt_error(err, errlen, -EINVAL, "%s: positional `%.80s` is not a valid name",
				c->name, name);
	if (seen(c, name, true))
		return rt_error(err, errlen, -EINVAL, "%s: positional %s twice", c->name, name);
	if (c->npositionals_seen >= IPCARGS_PARAMS_MAX)
		return rt_error(err, errlen, -EINVAL, "%s: more than %d positionals", c->name,
				IPCARGS_PARAMS_MAX);
	if (!(c->positionals[c->npositionals_seen] = strdup(name)))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	c->npositionals_seen++;
	return 0;
}

int
ipcargs_command_add_arg(struct ipc_command *c, const char *spec, char *err, size_t errlen)
{
	const char *sp = strchr(spec, ' ');
	size_t tlen = sp ? (size_t)(sp - spec) : 0;
	int type = -1;

	for (size_t t = 0; sp && t < sizeof(type_names) / sizeof(type_names[0]); t++)
		if (strlen(type_names[t]) == tlen && !strncmp(spec, type_names[t], tlen))
			type = (int)t;
	if (type < 0)
		return rt_error(err, errlen, -EINVAL,
				"%s: arg `%.80s` is not TYPE NAME (string, int, bool or path)",
				c->name, spec);
	if (!ipcargs_name_ok(sp + 1))
		return rt_error(err, errlen, -EINVAL, "%s: arg `%.80s` is not a valid name",
				c->name, sp + 1);
	if (seen(c, sp + 1, false))
		return rt_error(err, errlen, -EINVAL, "%s: arg %s twice", c->name, sp + 1);
	if (c->nargs >= IPCARGS_PARAMS_MAX)
		return rt_error(err, errlen, -EINVAL, "%s: more than %d args", c->name,
				IPCARGS_PARAMS_MAX);
	if (!(c->args[c->nargs].name = strdup(sp + 1)))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	c->args[c->nargs++].type = (enum ipc_arg_type)type;
	return 0;
}

/* The positionals first, typed by their `arg` line (string without
 * one), then the `arg` lines that are no positional: the order of the
 * host command's argv. The names move from args/positionals to params. */
int
ipcargs_command_finish(struct ipc_command *c, char *err, size_t errlen)
{
	bool used[IPCARGS_PARAMS_MAX] = { false };
	size_t total = c->npositionals_seen;

	for (size_t i = 0; i < c->npositionals_seen; i++) {
		struct ipc_param *p = &c->params[c->nparams++];

		p->name = c->positionals[i];
		p->type = IPC_ARG_STRING;
		p->positional = true;
		c->positionals[i] = NULL;
		for (size_t j = 0; j < c->nargs; j++) {
			if (strcmp(c->args[j].name, p->name) != 0)
				continue;
			p->type = c->args[j].type;
			used[j] = true;
		}
		if (p->type == IPC_ARG_BOOL)
			return rt_error(err, errlen, -EINVAL,
					"%s: a bool (%s) cannot be positional", c->name, p->name);
	}
	c->npositional = c->nparams;
	c->npositionals_seen = 0;
	for (size_t j = 0; j < c->nargs; j++)
		if (!used[j] && ++total > IPCARGS_PARAMS_MAX)
			return rt_error(err, errlen, -EINVAL, "%s: more than %d arguments", c->name,
					IPCARGS_PARAMS_MAX);
	for (size_t j = 0; j < c->nargs; j++) {
		if (used[j])
			free(c->args[j].name);
		else
			c->params[c->nparams++] = c->args[j];
		c->args[j].name = NULL;
	}
	c->nargs = 0;
	return 0;
}

void
ipcargs_command_free(struct ipc_command *c)
{
	free(c->name);
	free(c->exec);
	for (size_t i = 0; i < c->nparams; i++)
		free(c->params[i].name);
	for (size_t i = 0; i < c->nargs; i++)
		free(c->args[i].name);
	for (size_t i = 0; i < c->npositionals_seen; i++)
		free(c->positionals[i]);
	memset(c, 0, sizeof(*c));
}

/* ---------------------------------------------------------------- paths */

/* Appends the components of path (absolute or not) to out, which holds an
 * absolute normalised path: "." and "" vanish, ".." drops the last one
 * (and stays at "/"). */
static int
append_components(char *out, size_t cap, const char *path)
{
	size_t len = strlen(out);

	while (*path) {
		const char *end = strchrnul(path, '/');
		size_t n = (size_t)(end - path);

		if (n == 0 || (n == 1 && path[0] == '.')) {
			/* nothing */
		} else if (n == 2 && path[0] == '.' && path[1] == '.') {
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			out[len] = '\0';
		} else {
			size_t need = len + (len > 1) + n;

			if (need + 1 > cap)
				return -ENAMETOOLONG;
			if (len > 1)
				out[len++] = '/';
			memcpy(out + len, path, n);
			len += n;
			out[len] = '\0';
		}
		path = *end ? end + 1 : end;
	}
	return 0;
}

static int
normalise(const char *base, const char *path, char *out, size_t cap)
{
	int rc;

	if (cap < 2)
		return -ENAMETOOLONG;
	strcpy(out, "/");
	if (path[0] != '/') {
		if (!base || base[0] != '/')
			return -EINVAL;
		if ((rc = append_components(out, cap, base)) < 0)
			return rc;
	}
	return append_components(out, cap, path);
}

int
ipcargs_beneath(const char *workdir, const char *cwd, const char *path, char *out, size_t cap)
{
	char w[PATH_CAP], p[PATH_CAP];
	size_t wl;
	int rc;

	if ((rc = normalise(NULL, workdir, w, sizeof(w))) < 0)
		return rc;
	if ((rc = normalise(cwd, path, p, sizeof(p))) < 0)
		return rc;
	wl = strlen(w);
	if (!strcmp(w, p)) {
		rc = snprintf(out, cap, ".");
	} else if (wl == 1) {
		rc = snprintf(out, cap, "%s", p + 1);
	} else if (!strncmp(w, p, wl) && p[wl] == '/') {
		rc = snprintf(out, cap, "%s", p + wl + 1);
	} else {
		return -EXDEV;
	}
	return rc < 0 || (size_t)rc >= cap ? -ENAMETOOLONG : 0;
}

/* The length of the next component of s, "." counting as none. */
static size_t
component(const char *s)
{
	return strchrnul(s, '/') - s;
}

int
ipcargs_relative(const char *from, const char *to, char *out, size_t cap)
{
	size_t o = 0;

	if (!strcmp(from, "."))
		from = "";
	if (!strcmp(to, "."))
		to = "";
	/* The shared leading components drop out. */
	while (*from && *to) {
		size_t a = component(from), b = component(to);

		if (a != b || strncmp(from, to, a) != 0)
			break;
		from += a + (from[a] == '/');
		to += b + (to[b] == '/');
	}
	while (*from) {
		size_t a = component(from);

		if (o + 3 >= cap)
			return -ENAMETOOLONG;
		memcpy(out + o, "../", 3);
		o += 3;
		from += a + (from[a] == '/');
	}
	if (*to) {
		size_t n = strlen(to);

		if (o + n >= cap)
			return -ENAMETOOLONG;
		memcpy(out + o, to, n);
		o += n;
	} else if (o) {
		o--; /* "../.." rather than "../../" */
	} else {
		if (cap < 2)
			return -ENAMETOOLONG;
		out[o++] = '.';
	}
	out[o] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- parsing */

static const struct ipc_param *
find_param(const struct ipc_command *c, const char *name, size_t len, size_t *idx)
{
	for (size_t i = 0; i < c->nparams; i++) {
		if (strlen(c->params[i].name) == len && !strncmp(c->params[i].name, name, len)) {
			*idx = i;
			return &c->params[i];
		}
	}
	return NULL;
}

/* "a, b, c" or "none", cut to fit. */
static void
list_names(const struct ipc_command *c, bool positionals_only, char *out, size_t cap)
{
	size_t o = 0, n = positionals_only ? c->npositional : c->nparams;

	snprintf(out, cap, "none");
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + o, cap - o, "%s%s", i ? ", " : "", c->params[i].name);

		if (w < 0 || (size_t)w >= cap - o)
			break;
		o += (size_t)w;
	}
}

static int
bad_value(char *err, size_t errlen, const char *name, const char *value, const char *what)
{
	return rt_error(err, errlen, -EINVAL, "--%s: \"%.200s\" %s", name, value, what);
}

/* Checks value against p's type; stores the host command's text. */
static int
set_value(const struct ipc_param *p, struct ipc_value *v, const char *value, const char *workdir,
	  const char *cwd, char *err, size_t errlen)
{
	char buf[PATH_CAP];
	const char *text = value;
	int rc;

	v->given = true;
	switch (p->type) {
	case IPC_ARG_STRING:
		if (!strcmp(value, "-")) {
			v->from_stdin = true;
			return 0;
		}
		break;
	case IPC_ARG_INT: {
		const char *d = value + (value[0] == '+' || value[0] == '-');
		char *end;
		long long n;

		if (!*d || strspn(d, "0123456789") != strlen(d))
			return bad_value(err, errlen, p->name, value, "is not an integer");
		errno = 0;
		n = strtoll(value, &end, 10);
		if (errno == ERANGE)
			return bad_value(err, errlen, p->name, value,
					 "is out of range (a 64-bit integer)");
		/* One spelling for the host command: "+07" is 7, never octal. */
		snprintf(buf, sizeof(buf), "%lld", n);
		text = buf;
		break;
	}
	case IPC_ARG_BOOL:
		if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1"))
			text = "true";
		else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
			text = "false";
		else
			return bad_value(err, errlen, p->name, value,
					 "is not a bool (true, false, yes, no, 1 or 0)");
		break;
	case IPC_ARG_PATH:
		if (!*value)
			return rt_error(err, errlen, -EINVAL, "--%s: an empty path", p->name);
		rc = ipcargs_beneath(workdir, cwd, value, buf, sizeof(buf));
		if (rc == -EXDEV)
			return rt_error(err, errlen, rc,
					"--%s: \"%.200s\" is outside the working directory %.200s",
					p->name, value, workdir);
		if (rc == -EINVAL)
			return rt_error(err, errlen, rc,
					"--%s: \"%.200s\" is relative and the caller's directory is "
					"unknown",
					p->name, value);
		if (rc < 0)
			return bad_value(err, errlen, p->name, value, "is too long");
		text = buf;
		break;
	}
	if (!(v->text = strdup(text)))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

static bool
declares(const struct ipc_command *c, const char *name)
{
	size_t idx;

	return find_param(c, name, strlen(name), &idx) != NULL;
}

/* One word starting with "--" (not "--" itself) at argv[*i]. */
static int
parse_option(const struct ipc_command *c, size_t argc, char *const *argv, size_t *i,
	     const char *workdir, const char *cwd, struct ipc_parsed *p, char *err, size_t errlen)
{
	const char *w = argv[*i] + 2, *eq = strchr(w, '='), *value;
	size_t len = eq ? (size_t)(eq - w) : strlen(w), idx;
	const struct ipc_param *par = find_param(c, w, len, &idx);
	char names[512];

	if (!par) {
		list_names(c, false, names, sizeof(names));
		return rt_error(err, errlen, -EINVAL, "unknown argument --%.*s (arguments: %s)",
				(int)(len > 200 ? 200 : len), w, names);
	}
	if (p->v[idx].given)
		return rt_error(err, errlen, -EINVAL, "--%s given twice", par->name);
	if (eq) {
		value = eq + 1;
	} else if (*i + 1 < argc && (argv[*i + 1][0] != '-' || !strcmp(argv[*i + 1], "-"))) {
		value = argv[++*i];
	} else if (par->type == IPC_ARG_BOOL) {
		value = "true";
	} else {
		return rt_error(err, errlen, -EINVAL, "--%s: a value is missing (--%s=VALUE)",
				par->name, par->name);
	}
	return set_value(par, &p->v[idx], value, workdir, cwd, err, errlen);
}

static int
take_stdin(const struct ipc_command *c, struct ipc_parsed *p, const char *stdin_text,
	   size_t stdin_len, char *err, size_t errlen)
{
	size_t taker = c->nparams;

	for (size_t i = 0; i < c->nparams; i++) {
		if (!p->v[i].from_stdin)
			continue;
		if (taker < c->nparams)
			return rt_error(err, errlen, -EINVAL,
					"--%s and --%s both read standard input (at most one may)",
					c->params[taker].name, c->params[i].name);
		taker = i;
	}
	if (taker == c->nparams)
		return 0;
	if (!stdin_text)
		return rt_error(err, errlen, -EINVAL,
				"--%s: \"-\" reads standard input, which was not sent",
				c->params[taker].name);
	if (stdin_len > HEEL_IPC_STDIN_MAX)
		return rt_error(err, errlen, -EINVAL, "--%s: standard input is larger than %d MiB",
				c->params[taker].name, HEEL_IPC_STDIN_MAX >> 20);
	if (memchr(stdin_text, '\0', stdin_len))
		return rt_error(err, errlen, -EINVAL, "--%s: standard input holds a NUL byte",
				c->params[taker].name);
	if (!(p->v[taker].text = strndup(stdin_text, stdin_len)))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

int
ipcargs_parse(const struct ipc_command *c, size_t argc, char *const *argv,
	      const char *stdin_text, size_t stdin_len, const char *workdir, const char *cwd,
	      struct ipc_parsed *p, char *err, size_t errlen)
{
	bool dashdash = false, options = false;
	char names[512];
	int rc;

	memset(p, 0, sizeof(*p));
	if (argc > IPCARGS_ARGV_MAX)
		return rt_error(err, errlen, -EINVAL, "more than %d arguments", IPCARGS_ARGV_MAX);
	for (size_t i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!dashdash && !strcmp(w, "--")) {
			dashdash = true;
		} else if (!dashdash && (!strcmp(w, "-h") || !strcmp(w, "--help")) &&
			   !declares(c, "help")) {
			p->help = true;
			return 0;
		} else if (!dashdash && w[0] == '-' && w[1] == '-') {
			rc = parse_option(c, argc, argv, &i, workdir, cwd, p, err, errlen);
			if (rc < 0)
				return rc;
			options = true;
		} else if (!dashdash && w[0] == '-' && w[1]) {
			list_names(c, false, names, sizeof(names));
			return rt_error(err, errlen, -EINVAL, "unknown argument %.200s (arguments: %s)",
					w, names);
		} else {
			size_t k = 0;

			if (options && !dashdash)
				return rt_error(err, errlen, -EINVAL,
						"\"%.200s\": a bare word after an option (put -- "
						"before it)",
						w);
			while (k < c->npositional && p->v[k].given)
				k++;
			if (k == c->npositional) {
				list_names(c, true, names, sizeof(names));
				return rt_error(err, errlen, -EINVAL,
						"too many arguments: \"%.200s\" (positionals: %s)", w,
						names);
			}
			rc = set_value(&c->params[k], &p->v[k], w, workdir, cwd, err, errlen);
			if (rc < 0)
				return rc;
		}
	}
	return take_stdin(c, p, stdin_text, stdin_len, err, errlen);
}

void
ipcargs_parsed_free(struct ipc_parsed *p)
{
	for (size_t i = 0; i < IPCARGS_PARAMS_MAX; i++)
		free(p->v[i].text);
	memset(p, 0, sizeof(*p));
}

int
ipcargs_usage(const struct ipc_command *c, char *out, size_t cap)
{
	static const char *const meta[] = {
		[IPC_ARG_STRING] = "TEXT",
		[IPC_ARG_INT] = "INT",
		[IPC_ARG_BOOL] = "BOOL",
		[IPC_ARG_PATH] = "PATH",
	};
	size_t o;
	int w;

	w = snprintf(out, cap, "usage: %s", c->name);
	if (w < 0 || (size_t)w >= cap)
		return -ENOSPC;
	o = (size_t)w;
	for (size_t i = 0; i < c->nparams; i++) {
		const struct ipc_param *par = &c->params[i];

		if (par->positional)
			w = snprintf(out + o, cap - o, " [%s]", par->name);
		else if (par->type == IPC_ARG_BOOL)
			w = snprintf(out + o, cap - o, " [--%s[=BOOL]]", par->name);
		else
			w = snprintf(out + o, cap - o, " [--%s=%s]", par->name, meta[par->type]);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	if (o + 2 > cap)
		return -ENOSPC;
	out[o++] = '\n';
	out[o] = '\0';
	return (int)o;
}

/* ---------------------------------------------------------------- resolution */

static int
open_beneath(int dirfd, const char *rel, unsigned long long flags, unsigned long long resolve)
{
	struct open_how how = { .flags = flags | O_PATH | O_CLOEXEC, .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Whether rel (relative to the working directory) resolves beneath it, or
 * is missing and its parent does (and it is no dangling link, through
 * which a host command would create a file anywhere). */
static int
check_path(int workdir_fd, const char *rel)
{
	char parent[PATH_CAP];
	const char *slash;
	int fd = open_beneath(workdir_fd, rel, 0, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd != -ENOENT)
		return fd;
	fd = open_beneath(workdir_fd, rel, O_NOFOLLOW, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	if (fd >= 0) {
		close(fd);
		return -ELOOP;
	}
	slash = strrchr(rel, '/');
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 1,
		 slash ? rel : ".");
	fd = open_beneath(workdir_fd, parent, O_DIRECTORY, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int
ipcargs_resolve(const struct ipc_command *c, struct ipc_parsed *p, int workdir_fd,
		const char *workdir, const char *cwd, int *dirfd, char *err, size_t errlen)
{
	char dir[PATH_CAP], rel[PATH_CAP];
	int rc;

	*dirfd = -1;
	/* The caller's directory when it is beneath the working directory,
	 * without symbolic links (getcwd() never gives one): the `path`
	 * values are made relative to it lexically, so its name must be
	 * where it is. */
	if (ipcargs_beneath(workdir, "/", cwd ? cwd : "", dir, sizeof(dir)) < 0 ||
	    (*dirfd = open_beneath(workdir_fd, dir, O_DIRECTORY,
				   RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)) < 0) {
		strcpy(dir, ".");
		*dirfd = open_beneath(workdir_fd, ".", O_DIRECTORY, RESOLVE_BENEATH);
		if (*dirfd < 0)
			return rt_error(err, errlen, *dirfd, "the working directory %s: %s", workdir,
					strerror(-*dirfd));
	}
	for (size_t i = 0; i < c->nparams; i++) {
		struct ipc_value *v = &p->v[i];
		char *copy;

		if (c->params[i].type != IPC_ARG_PATH || !v->given)
			continue;
		rc = check_path(workdir_fd, v->text);
		if (rc < 0) {
			close(*dirfd);
			*dirfd = -1;
			return rt_error(err, errlen, rc,
					"--%s: \"%.200s\" does not resolve beneath the working "
					"directory (%s)",
					c->params[i].name, v->text,
					rc == -ELOOP ? "a symbolic link" : strerror(-rc));
		}
		if (ipcargs_relative(dir, v->text, rel, sizeof(rel)) < 0 || !(copy = strdup(rel))) {
			close(*dirfd);
			*dirfd = -1;
			return rt_error(err, errlen, -ENOMEM, "--%s: cannot be given",
					c->params[i].name);
		}
		free(v->text);
		v->text = copy;
	}
	return 0;
}

char **
ipcargs_argv(const struct ipc_command *c, const struct ipc_parsed *p)
{
	char **argv = calloc(c->nparams + 2, sizeof(*argv));
	size_t n = 0;

	if (!argv || !(argv[n++] = strdup(c->exec ? c->exec : "")))
		goto fail;
	for (size_t i = 0; i < c->nparams; i++) {
		const struct ipc_value *v = &p->v[i];

		if (!v->given)
			continue;
		if (asprintf(&argv[n], "--%s=%s", c->params[i].name, v->text ? v->text : "") < 0) {
			argv[n] = NULL;
			goto fail;
		}
		n++;
	}
	return argv;
fail:
	ipcargs_argv_free(argv);
	return NULL;
}

void
ipcargs_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

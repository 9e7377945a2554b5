/* SPDX-License-Identifier: MIT
 * Explaining a refused exec; see linux_execwhy.h. */
#include "linux_execwhy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "env.h"
#include "pathexpand.h"

/* The executable grants of policies/{python,node,rust}.heel on Linux
 * (<git> has none). Kept equal to the presets by test_execwhy.c. */
const struct xw_preset_grant xw_preset_grants[] = {
	{ "node", "${HOME}/.nvm/versions/node" },
	{ "python", "${HOME}/.local/share/uv/python" },
	{ "python", "${HOME}/.pyenv" },
	{ "rust", "${CARGO_HOME}/bin" },
	{ "rust", "${HOME}/.cargo/bin" },
	{ "rust", "${HOME}/.rustup" },
	{ "rust", "${RUSTUP_HOME}" },
	{ "rust", "./target" },
};
const size_t xw_npreset_grants = sizeof(xw_preset_grants) / sizeof(xw_preset_grants[0]);

/* Shared temp: never executable, whatever grants it (linux_view.c),
 * except beneath a grant of a directory in it, which is a mount of its
 * own. */

/* A path rule of the policy, expanded as the launch expanded it. */
struct rule {
	char *path;
	const char *tmpl; /* as written; NULL: the working directory */
	uint8_t mode;	  /* ART_READ | ART_WRITE | ART_EXEC; 0: deny */
	uint8_t set;
	uint8_t source;
	struct art_origin origin;
};

struct rules {
	struct rule *r;
	size_t n;
};

/* Adds each ${NAME} of `tmpl` that env has to out. */
static int
keep_names(const char *tmpl, char *const *env, struct envb *out)
{
	for (const char *p = strstr(tmpl, "${"); p; p = strstr(p + 2, "${")) {
		const char *end = strchr(p + 2, '}'), *v;
		char name[PX_NAME_MAX];
		int r;

		if (!end || (size_t)(end - p - 2) >= sizeof(name))
			continue;
		memcpy(name, p + 2, (size_t)(end - p - 2));
		name[end - p - 2] = '\0';
		if ((v = envb_lookup(env, name)) && !envb_get(out, name) &&
		    (r = envb_set(out, name, v)) < 0)
			return r;
	}
	return 0;
}

int
xw_keep_env(const struct art_view *view, char *const *env, struct envb *out)
{
	int r = 0;

	envb_init(out);
	for (size_t i = 0; r == 0 && i < art_path_count(view); i++) {
		struct art_path p;

		if (art_path_at(view, i, &p) == 0 && (p.platforms & ART_PLAT_BIT(ART_LINUX)))
			r = keep_names(p.path, env, out);
	}
	for (size_t i = 0; r == 0 && i < xw_npreset_grants; i++)
		r = keep_names(xw_preset_grants[i].path, env, out);
	return r;
}

static const char *
lookup(const char *name, void *ctx)
{
	const struct xw_launch *xl = ctx;

	if (strcmp(name, "CWD") == 0)
		return xl->cwd;
	if (strcmp(name, "WORKDIR") == 0)
		return xl->workdir;
	return envb_lookup(xl->env, name);
}

/* `in` made absolute against `dir` and, as far as it exists, with every
 * link resolved on the host's side (what Landlock judged is the file a
 * link leads to). Words only: nothing is opened. */
static void
resolve(const char *in, const char *dir, char *out, size_t len)
{
	char abs[PATH_MAX], parent[PATH_MAX], real[PATH_MAX];
	char *slash;

	while (in[0] == '.' && in[1] == '/')
		in += 2;
	if (in[0] == '/' || !dir)
		snprintf(abs, sizeof(abs), "%s", in);
	else
		snprintf(abs, sizeof(abs), "%s/%s", strcmp(dir, "/") ? dir : "", in);
	if (realpath(abs, real)) {
		snprintf(out, len, "%s", real);
		return;
	}
	/* A file not there on the host (the fresh working directory is a
	 * tmpfs of the sandbox's own): its directory, resolved. */
	snprintf(parent, sizeof(parent), "%s", abs);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		/* Too long a name for out: the path as spelled, below. */
		if (realpath(parent, real) &&
		    (size_t)snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", slash + 1) < len)
			return;
	}
	snprintf(out, len, "%s", abs);
}

static void
rules_free(struct rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->r[i].path);
	free(rs->r);
	rs->r = NULL;
	rs->n = 0;
}

static int
rules_load(const struct xw_launch *xl, struct rules *rs)
{
	size_t n = art_path_count(xl->view);

	rs->n = 0;
	rs->r = calloc(n + 1, sizeof(*rs->r));
	if (!rs->r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct art_path p;
		struct px_info info;
		char path[PATH_MAX], real[PATH_MAX];

		if (art_path_at(xl->view, i, &p) < 0 || !(p.platforms & ART_PLAT_BIT(ART_LINUX)) ||
		    px_expand(p.path, lookup, (void *)xl, path, sizeof(path), &info) < 0)
			continue;
		/* A deny holds what its name leads to (heel-exec follows it);
		 * a grant holds only a path free of links. */
		if (p.mode == 0 && realpath(path, real))
			snprintf(path, sizeof(path), "%s", real);
		rs->r[rs->n] = (struct rule){ .tmpl = p.path, .mode = p.mode, .set = p.set,
					      .source = p.source, .origin = p.origin };
		if (!(rs->r[rs->n].path = strdup(path)))
			return -ENOMEM;
		rs->n++;
	}
	if (xl->workdir) {
		rs->r[rs->n] = (struct rule){ .mode = ART_READ | ART_WRITE, .set = ART_SET_NONE };
		if (!(rs->r[rs->n].path = strdup(xl->workdir)))
			return -ENOMEM;
		rs->n++;
	}
	return 0;
}

/* The rule that decides `path`: the longest at or above it; on one path
 * a grant beats a deny, except that a grant of the isolation base loses
 * to a deny someone else made (heel(5) PRECEDENCE); grants keep the
 * union. NULL: nothing decides it. */
static const struct rule *
deciding(const struct rules *rs, const char *path, uint8_t *mode)
{
	const struct rule *best = NULL;
	size_t blen = 0;

	*mode = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];
		size_t len = strlen(r->path);

		if (!px_at_or_beneath(path, r->path) || (best && len < blen))
			continue;
		if (!best || len > blen) {
			best = r;
			blen = len;
			*mode = r->mode;
			continue;
		}
		if (r->mode && best->mode) {
			*mode |= r->mode;
		} else if (r->mode ? !(r->source == ART_SRC_BASE && best->source != ART_SRC_BASE)
				   : (best->source == ART_SRC_BASE && r->source != ART_SRC_BASE)) {
			best = r;
			*mode = r->mode;
		}
	}
	return best;
}

static const char *
mode_name(uint8_t m)
{
	switch (m & (ART_WRITE | ART_EXEC)) {
	case ART_WRITE | ART_EXEC: return "rwx";
	case ART_WRITE: return "rw";
	case ART_EXEC: return "rx";
	default: return "r";
	}
}

/* The rule as written, and where: `grant "${HOME}" r at <default>:83`. */
static void
rule_words(const struct rule *r, uint8_t mode, char *buf, size_t len)
{
	char at[PATH_MAX + 32];

	if (r->origin.file)
		snprintf(at, sizeof(at), " at %s:%u", r->origin.file, (unsigned)r->origin.line);
	else
		snprintf(at, sizeof(at), " (built in)");
	if (mode)
		snprintf(buf, len, "grant \"%s\" %s%s", r->tmpl, mode_name(mode), at);
	else
		snprintf(buf, len, "deny \"%s\"%s", r->tmpl, at);
}

/* The protection set's name, from the file the deny was written in
 * (the compiler records a set's rules as <protect/NAME>). */
static bool
set_name(const struct rule *r, char *buf, size_t len)
{
	const char *f = r->origin.file;
	size_t n;

	if (r->set == ART_SET_NONE || !f || strncmp(f, "<protect/", 9) != 0)
		return false;
	n = strlen(f + 9);
	if (n < 2 || f[9 + n - 1] != '>' || n > len)
		return false;
	memcpy(buf, f + 9, n - 1);
	buf[n - 1] = '\0';
	return true;
}

static void __attribute__((format(printf, 3, 4)))
add(char *out, size_t len, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
}

/* ", or the preset <rust> (include <rust>; heel run --preset rust)" for
 * each stock preset that lets `path` run. */
static void
preset_hint(const struct xw_launch *xl, const char *path, char *out, size_t len)
{
	const char *said = NULL;

	for (size_t i = 0; i < xw_npreset_grants; i++) {
		const struct xw_preset_grant *g = &xw_preset_grants[i];
		char p[PATH_MAX];
		struct px_info info;

		if ((said && strcmp(said, g->preset) == 0) ||
		    px_expand(g->path, lookup, (void *)xl, p, sizeof(p), &info) < 0 ||
		    !px_at_or_beneath(path, p))
			continue;
		add(out, len, "; or the stock preset <%s>, which grants \"%s\" (include <%s>; heel run "
			      "--preset %s)", g->preset, g->path, g->preset, g->preset);
		said = g->preset;
	}
}

/* The interpreter a #! script names, or false. Read as data: a
 * regular file only, never through a link, never blocking. */
static bool
interpreter(const char *path, char *out, size_t len)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t i = 2, j;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (n = read(fd, buf, sizeof(buf) - 1)) < 3) {
		close(fd);
		return false;
	}
	close(fd);
	buf[n] = '\0';
	if (buf[0] != '#' || buf[1] != '!')
		return false;
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	for (j = i; buf[j] && buf[j] != ' ' && buf[j] != '\t' && buf[j] != '\n'; j++)
		;
	if (j == i || buf[i] != '/' || j - i >= len)
		return false;
	memcpy(out, buf + i, j - i);
	out[j - i] = '\0';
	return true;
}

/* One file: the why line and the way-out line; depth 0 may look at a
 * script's interpreter once. */
static void
explain_file(const struct xw_launch *xl, const struct rules *rs, const char *file, int depth,
	     char *out, size_t len)
{
	char dir[PATH_MAX], words[2 * PATH_MAX], set[64], interp[PATH_MAX], ipath[PATH_MAX];
	const char *g, *what; /* what a grant that lets it run names */
	const struct rule *r;
	const char *tmp = NULL;
	struct stat st;
	uint8_t mode;

	px_dir_of(file, dir, sizeof(dir));
	r = deciding(rs, file, &mode);
	if (r && !r->tmpl) {
		add(out, len, "\n  why: %s lies in the working directory (%s), which is writable and "
			      "never runs anything (heel(5))", file, r->path);
		add(out, len, "\n  to run it: build or copy it into a directory granted rwx (a policy: "
			      "grant \"DIR\" rwx; heel run --grant DIR=rwx), which gives up "
			      "write-then-exec there");
		return;
	}
	/* Shared temp never runs, unless a rule of a directory beneath it
	 * decides (it is a mount of its own then, as its mode says). */
	if ((tmp = px_in_shared_temp(file)) && !(r && px_beneath(r->path, tmp))) {
		add(out, len, "\n  why: %s lies in shared temp (%s), which never runs anything: any "
			      "program of the machine can put files there", file, tmp);
		/* A grant of shared temp itself never runs either. */
		if (strcmp(dir, tmp) == 0)
			add(out, len, "\n  to run it: move it into a directory of its own, and grant "
				      "that rx (a policy: grant \"DIR\" rx; heel run --executable DIR)");
		else
			add(out, len, "\n  to run it: grant its directory rx (a policy: grant \"%s\" rx; "
				      "heel run --executable %s)", dir, dir);
		return;
	}
	if (!r) {
		add(out, len, "\n  why: no rule of the policy lets the sandbox read or run %s", file);
		add(out, len, "\n  to run it: grant its directory rx (a policy: grant \"%s\" rx; heel "
			      "run --executable %s)", dir, dir);
		preset_hint(xl, file, out, len);
		return;
	}
	rule_words(r, mode, words, sizeof(words));
	/* Its directory, unless the rule names the file itself: a grant
	 * must be at least as long as the rule to decide. */
	g = strcmp(r->path, file) == 0 ? file : dir;
	what = g == file ? "it" : "its directory";
	if (!mode) {
		if (set_name(r, set, sizeof(set)))
			add(out, len, "\n  why: the protection set `%s` denies %s (%s)", set, file, words);
		else
			add(out, len, "\n  why: %s is denied (%s)", file, words);
		add(out, len, "\n  to run it: grant %s rx, which beats the deny (a policy: "
			      "grant \"%s\" rx; heel run --executable %s)", what, g, g);
		if (set_name(r, set, sizeof(set)))
			add(out, len, "; or turn the set off (unprotect %s; heel run "
				      "--protect-%s=false)", set, set);
		preset_hint(xl, file, out, len);
		return;
	}
	if (mode & ART_WRITE && !(mode & ART_EXEC)) {
		add(out, len, "\n  why: %s lies in %s, which the sandbox may write (%s), and nothing "
			      "writable runs", file, r->path, words);
		add(out, len, "\n  to run it: grant %s rwx (a policy: grant \"%s\" rwx; heel "
			      "run --grant %s=rwx), which gives up write-then-exec there", what, g, g);
		return;
	}
	if (!(mode & ART_EXEC)) {
		add(out, len, "\n  why: the policy lets the sandbox read %s, not run it (%s)", file, words);
		add(out, len, "\n  to run it: grant %s rx (a policy: grant \"%s\" rx; heel "
			      "run --executable %s)", what, g, g);
		preset_hint(xl, file, out, len);
		return;
	}
	/* The policy lets it run: the refusal is the file's own, or its
	 * interpreter's. */
	if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
		add(out, len, "\n  why: %s is a directory", file);
		return;
	}
	if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 0111)) {
		add(out, len, "\n  why: its mode (%04o) lets no one run it; the policy would (%s)",
		    (unsigned)(st.st_mode & 07777), words);
		return;
	}
	if (depth == 0 && interpreter(file, interp, sizeof(interp))) {
		resolve(interp, NULL, ipath, sizeof(ipath));
		add(out, len, "\n  the policy lets %s run (%s); its interpreter, %s, is what is refused:",
		    file, words, interp);
		explain_file(xl, rs, ipath, depth + 1, out, len);
		return;
	}
	add(out, len, "\n  why: the policy lets it run (%s); what refuses it is the host's (its "
		      "owner and mode, or a noexec mount)", words);
}

void
xw_explain(const struct xw_launch *xl, const char *tried, const char *later, int err, char *out,
	   size_t outlen)
{
	const char *start = xl->start_dir ? xl->start_dir : xl->workdir;
	char file[PATH_MAX];
	struct rules rs = { 0 };

	if ((err == EACCES || err == EPERM) && tried[0] && xl->view) {
		resolve(tried, start, file, sizeof(file));
		if (rules_load(xl, &rs) == 0)
			explain_file(xl, &rs, file, 0, out, outlen);
		rules_free(&rs);
	}
	if (later && later[0])
		add(out, outlen, "\n  PATH also holds %s: heel never runs a later program of that name "
				 "in place of the one the host would run", later);
}

/* SPDX-License-Identifier: MIT
 * The git repositories of the writable places, after the run; see
 * linux_gitscan.h. */
#include "linux_gitscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "grow.h"
#include "linux_hostrun.h"
#include "readsmall.h"

/* ------------------------------------------------------------ the variables */

/* Whether a variable's subsection matters: git names it
 * section.key (NONE), section.<sub>.key (SOME), or either. */
enum gs_sub { SUB_NONE, SUB_SOME, SUB_EITHER };

/* Which values run a program. */
enum gs_when {
	ANY,       /* whatever it is set to */
	BANG,      /* a value that starts with `!`: a shell command */
	NOT_BOOL,  /* a value that is not a boolean: a command (a boolean
		    * only turns git's own behaviour on or off) */
	NOT_NEVER, /* protocol.*.allow: anything but "never" lets a remote
		    * URL of the ext:: transport run its command */
	EXT_VALUE, /* a URL of the ext:: transport, which git runs */
	EXT_SUB,   /* url.<base>.insteadOf with an ext:: base */
};

struct gs_var {
	const char *section;
	enum gs_sub sub;
	const char *key; /* "*": every key of the section */
	enum gs_when when;
	const char *why;
};

/* Every variable that makes git run a program, a shell command or the
 * hooks of another directory, or read more config from another file.
 * Made complete from git-config(1) of git 2.39.5 (Debian 12's, the git
 * this launcher is tested with), read variable by variable for each
 * whose value is a command, a program's path, a hook directory or an
 * include; with the variables other manuals define (tar.<format>.command
 * in git-archive(1), trailer.<token>.command in
 * git-interpret-trailers(1), filter.<driver>.process in gitattributes(5),
 * git-lfs's custom transfers and extensions in git-lfs-config(5)).
 * Variables that name a built-in tool (diff.tool, merge.tool, man.viewer)
 * run nothing of the repository's unless a variable here says how.
 * A new git may add one: the list is checked against git-config(1) of
 * the git the project is tested with, not of every git. */
static const struct gs_var gs_vars[] = {
	{ "core", SUB_NONE, "fsmonitor", NOT_BOOL, "git status runs the program it names" },
	{ "core", SUB_NONE, "hookspath", ANY, "git runs the hooks of the directory it names" },
	{ "core", SUB_NONE, "sshcommand", ANY, "git fetch and push run it" },
	{ "core", SUB_NONE, "gitproxy", ANY, "git fetch runs it" },
	{ "core", SUB_NONE, "askpass", ANY, "git runs it to ask for a password" },
	{ "core", SUB_NONE, "editor", ANY, "git commit, tag and rebase run it" },
	{ "core", SUB_NONE, "pager", ANY, "git log, diff and show run it" },
	{ "core", SUB_NONE, "alternaterefscommand", ANY, "git fetch and push run it" },
	{ "sequence", SUB_NONE, "editor", ANY, "git rebase -i runs it" },
	{ "pager", SUB_EITHER, "*", NOT_BOOL, "git runs it as that command's pager" },
	{ "interactive", SUB_NONE, "difffilter", ANY, "git add -p runs it" },
	{ "alias", SUB_EITHER, "*", BANG, "git runs the alias as a shell command" },
	{ "diff", SUB_NONE, "external", ANY, "git diff runs it" },
	{ "diff", SUB_SOME, "command", ANY, "git diff runs it" },
	{ "diff", SUB_SOME, "textconv", ANY, "git diff, log and blame run it" },
	{ "difftool", SUB_SOME, "cmd", ANY, "git difftool runs it" },
	{ "difftool", SUB_SOME, "path", ANY, "git difftool runs it" },
	{ "merge", SUB_SOME, "driver", ANY, "git merge, rebase and pull run it" },
	{ "mergetool", SUB_SOME, "cmd", ANY, "git mergetool runs it" },
	{ "mergetool", SUB_SOME, "path", ANY, "git mergetool runs it" },
	{ "filter", SUB_SOME, "clean", ANY, "git add, status and diff run it" },
	{ "filter", SUB_SOME, "smudge", ANY, "git checkout, switch and pull run it" },
	{ "filter", SUB_SOME, "process", ANY, "git add, status and checkout run it" },
	{ "credential", SUB_EITHER, "helper", ANY, "git fetch and push run it" },
	{ "gpg", SUB_NONE, "program", ANY, "git commit, tag and log --show-signature run it" },
	{ "gpg", SUB_SOME, "program", ANY, "git commit, tag and log --show-signature run it" },
	{ "gpg", SUB_SOME, "defaultkeycommand", ANY, "git commit and tag run it to sign" },
	{ "include", SUB_NONE, "path", ANY, "git reads the file it names as more config" },
	{ "includeif", SUB_SOME, "path", ANY, "git reads the file it names as more config" },
	{ "remote", SUB_SOME, "uploadpack", ANY, "git fetch runs it, on this machine for a local remote" },
	{ "remote", SUB_SOME, "receivepack", ANY, "git push runs it, on this machine for a local remote" },
	{ "remote", SUB_SOME, "vcs", ANY, "git fetch and push run git-remote-<vcs> from PATH" },
	{ "remote", SUB_SOME, "url", EXT_VALUE, "git fetch runs the command of an ext:: URL" },
	{ "remote", SUB_SOME, "pushurl", EXT_VALUE, "git push runs the command of an ext:: URL" },
	{ "url", SUB_SOME, "insteadof", EXT_SUB, "git fetch runs the command of the ext:: URL" },
	{ "url", SUB_SOME, "pushinsteadof", EXT_SUB, "git push runs the command of the ext:: URL" },
	{ "protocol", SUB_NONE, "allow", NOT_NEVER, "it lets git run the command of an ext:: URL" },
	{ "protocol", SUB_SOME, "allow", NOT_NEVER, "it lets git run the command of an ext:: URL" },
	{ "submodule", SUB_SOME, "update", BANG, "git submodule update runs it" },
	{ "uploadpack", SUB_NONE, "packobjectshook", ANY, "git upload-pack runs it" },
	{ "web", SUB_NONE, "browser", ANY, "git help --web and git instaweb run it" },
	{ "browser", SUB_SOME, "cmd", ANY, "git help --web and git instaweb run it" },
	{ "browser", SUB_SOME, "path", ANY, "git help --web and git instaweb run it" },
	{ "man", SUB_SOME, "cmd", ANY, "git help runs it" },
	{ "man", SUB_SOME, "path", ANY, "git help runs it" },
	{ "instaweb", SUB_NONE, "httpd", ANY, "git instaweb runs it" },
	{ "instaweb", SUB_NONE, "browser", ANY, "git instaweb runs it" },
	{ "imap", SUB_NONE, "tunnel", ANY, "git imap-send runs it" },
	{ "sendemail", SUB_EITHER, "*", ANY,
	  "git send-email runs the programs it names (sendmailCmd, toCmd, ccCmd, smtpServer)" },
	{ "guitool", SUB_SOME, "cmd", ANY, "git gui runs it" },
	{ "tar", SUB_SOME, "command", ANY, "git archive runs it" },
	{ "trailer", SUB_SOME, "command", ANY, "git commit --trailer and interpret-trailers run it" },
	{ "trailer", SUB_SOME, "cmd", ANY, "git commit --trailer and interpret-trailers run it" },
	{ "lfs", SUB_SOME, "path", ANY, "git-lfs runs it as a custom transfer agent" },
	{ "lfs", SUB_SOME, "clean", ANY, "git-lfs runs it as an extension" },
	{ "lfs", SUB_SOME, "smudge", ANY, "git-lfs runs it as an extension" },
};

/* git's boolean or integer (git_parse_maybe_bool: true/yes/on,
 * false/no/off, empty, or an integer with an optional k/m/g unit). */
static bool
is_git_bool(const char *v)
{
	static const char *const words[] = { "true", "yes", "on", "false", "no", "off" };
	char *end;

	if (!v || !*v)
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	errno = 0;
	(void)strtoll(v, &end, 0);
	if (errno || end == v)
		return false;
	if (*end && strchr("kKmMgG", *end))
		end++;
	return !*end;
}

static bool
runs(const struct gs_var *g, const char *sub, const char *value)
{
	switch (g->when) {
	case ANY:
		return true;
	case BANG:
		return value && value[0] == '!';
	case NOT_BOOL:
		return !is_git_bool(value);
	case NOT_NEVER:
		return !value || strcasecmp(value, "never") != 0;
	case EXT_VALUE:
		return value && strncasecmp(value, "ext::", 5) == 0;
	case EXT_SUB:
		return sub && strncasecmp(sub, "ext::", 5) == 0;
	}
	return true;
}

/* The entry of gs_vars that `var` (section[.sub].key, as git builds it)
 * with `value` matches, or NULL. */
static const struct gs_var *
lookup_var(const char *var, const char *value)
{
	const char *dot1 = strchr(var, '.'), *dot2 = strrchr(var, '.');
	size_t seclen;
	char sub[PATH_MAX + 1];
	bool has_sub;

	if (!dot1)
		return NULL; /* no section: git uses it for nothing */
	seclen = (size_t)(dot1 - var);
	has_sub = dot2 != dot1;
	if (has_sub)
		snprintf(sub, sizeof(sub), "%.*s", (int)(dot2 - dot1 - 1), dot1 + 1);
	for (size_t i = 0; i < sizeof(gs_vars) / sizeof(*gs_vars); i++) {
		const struct gs_var *g = &gs_vars[i];

		if (strlen(g->section) != seclen || strncasecmp(var, g->section, seclen) != 0)
			continue;
		if ((g->sub == SUB_NONE && has_sub) || (g->sub == SUB_SOME && !has_sub))
			continue;
		if (strcmp(g->key, "*") != 0 && strcasecmp(dot2 + 1, g->key) != 0)
			continue;
		if (runs(g, has_sub ? sub : NULL, value))
			return g;
	}
	return NULL;
}

/* ------------------------------------------------------------ git's syntax */

/* The reader: git's config syntax (git-config(1), CONFIGURATION FILE),
 * with its reading of bytes: CR LF is a newline, the end of the file is
 * one more newline, white space is space, tab, CR and LF only, letters
 * and digits are ASCII. A NUL anywhere is refused (git would cut the
 * value there; heel does not guess). */
struct cfgp {
	const unsigned char *s;
	size_t len, pos;
	bool eof;
	unsigned line;
};

static int
next_char(struct cfgp *p)
{
	int c;

	if (p->pos >= p->len) {
		p->eof = true;
		return '\n';
	}
	c = p->s[p->pos++];
	if (c == '\r' && p->pos < p->len && p->s[p->pos] == '\n') {
		p->pos++;
		c = '\n';
	}
	if (c == '\n')
		p->line++;
	return c;
}

static bool
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_keychar(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c;
}

/* A bounded string: too long is an error (fail closed), never a cut. */
struct sbuf {
	char *b;
	size_t len, cap;
};

static int
sb_add(struct sbuf *s, int c)
{
	if (c == '\0' || s->len + 1 >= s->cap)
		return -1;
	s->b[s->len++] = (char)c;
	s->b[s->len] = '\0';
	return 0;
}

/* After `[`: the section, lower-cased, and `.sub` for `[section "sub"]`
 * (the subsection verbatim, `\` escaping the next character). The old
 * `[section.sub]` stays as written, lower-cased, which is how git
 * names its variables too. */
static int
parse_section(struct cfgp *p, struct sbuf *var)
{
	int c;

	var->len = 0;
	var->b[0] = '\0';
	for (;;) {
		c = next_char(p);
		if (p->eof)
			return -1;
		if (c == ']')
			return var->len ? 0 : -1;
		if (is_space(c))
			break;
		if ((!is_keychar(c) && c != '.') || sb_add(var, lower(c)) < 0)
			return -1;
	}
	while (is_space(c)) {
		if (c == '\n')
			return -1;
		c = next_char(p);
	}
	if (c != '"' || sb_add(var, '.') < 0)
		return -1;
	for (;;) {
		c = next_char(p);
		if (c == '\n')
			return -1;
		if (c == '"')
			break;
		if (c == '\\' && (c = next_char(p)) == '\n')
			return -1;
		if (sb_add(var, c) < 0)
			return -1;
	}
	return next_char(p) == ']' ? 0 : -1;
}

/* After `=`: the value, unquoted and unescaped, inner white space runs
 * kept as spaces, leading and trailing white space and a comment
 * dropped, `\` at the end of a line joining the next. */
static int
parse_value(struct cfgp *p, struct sbuf *val)
{
	bool quote = false, comment = false;
	size_t space = 0;
	int c;

	val->len = 0;
	val->b[0] = '\0';
	for (;;) {
		c = next_char(p);
		if (c == '\n')
			return quote ? -1 : 0;
		if (comment)
			continue;
		if (is_space(c) && !quote) {
			space += val->len > 0;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if (sb_add(val, ' ') < 0)
				return -1;
		if (c == '\\') {
			c = next_char(p);
			if (c == '\n')
				continue;
			if (c == 't')
				c = '\t';
			else if (c == 'b')
				c = '\b';
			else if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return -1;
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (sb_add(val, c) < 0)
			return -1;
	}
}

static void
found(struct gs_finding *f, const char *var, const struct gs_var *g, unsigned line)
{
	if (f->count++)
		return;
	if (strlen(var) < sizeof(f->var))
		strcpy(f->var, var);
	else
		snprintf(f->var, sizeof(f->var), "%.*s...", (int)sizeof(f->var) - 4, var);
	f->why = g->why;
	f->line = line;
}

int
gs_config_scan(const char *text, size_t len, struct gs_finding *f)
{
	struct cfgp p = { .s = (const unsigned char *)text, .len = len, .line = 1 };
	/* A section, a subsection up to a path's length, a key. */
	char secbuf[PATH_MAX + 512];
	struct sbuf var = { secbuf, 0, sizeof(secbuf) };
	struct sbuf val = { NULL, 0, len + 2 };
	size_t base = 0;
	bool comment = false;
	int r = -EINVAL;

	memset(f, 0, sizeof(*f));
	var.b[0] = '\0';
	if (!(val.b = malloc(val.cap)))
		return -ENOMEM;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.pos = 3;
	for (;;) {
		unsigned line = p.line;
		const struct gs_var *g;
		bool has_value = false;
		int c = next_char(&p);

		if (c == '\n') {
			if (p.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || (is_space(c)))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			if (parse_section(&p, &var) < 0 || sb_add(&var, '.') < 0)
				goto bad;
			base = var.len;
			continue;
		}
		if (!is_alpha(c))
			goto bad;
		/* A key, on its own line or after its section's `]`. */
		var.len = base;
		var.b[base] = '\0';
		if (sb_add(&var, lower(c)) < 0)
			goto bad;
		for (;;) {
			c = next_char(&p);
			if (p.eof || !is_keychar(c))
				break;
			if (sb_add(&var, lower(c)) < 0)
				goto bad;
		}
		while (c == ' ' || c == '\t')
			c = next_char(&p);
		if (c != '\n') {
			if (c != '=' || parse_value(&p, &val) < 0)
				goto bad;
			has_value = true;
		}
		if ((g = lookup_var(var.b, has_value ? val.b : NULL)))
			found(f, var.b, g, line);
		if (p.eof)
			break;
	}
	r = f->count ? 1 : 0;
	goto out;
bad:
	f->line = p.line;
out:
	free(val.b);
	return r;
}

/* ------------------------------------------------------------ the walk */

/* A directory the walk has been through: a later place skips it. */
struct seen {
	dev_t dev;
	ino_t ino;
};

/* One place not fully checked, and why (the first path of each kind). */
struct partial {
	bool budget;
	size_t deep, unreadable;
	char deep_at[PATH_MAX], unreadable_at[PATH_MAX], unreadable_why[64];
};

struct walk {
	const struct gs_scope *sc;
	struct timespec since;
	struct gs_stats st;
	void (*warn)(const char *fmt, ...);
	struct seen *seen;
	size_t nseen, cap_seen;
	struct partial part;
	bool out_of_budget;
	size_t moved;
	char buf[32768] __attribute__((aligned(8))); /* getdents64 */
};

static bool
after(const struct timespec *t, const struct timespec *since)
{
	return t->tv_sec > since->tv_sec ||
	       (t->tv_sec == since->tv_sec && t->tv_nsec >= since->tv_nsec);
}

/* Whether `name` in `dfd` changed at or after the launch: its inode's
 * change time, which creating, writing, renaming, chmod and utimensat
 * all set to the present and nothing lets a sandbox set back. A link
 * counts as changed when its target did. */
static bool
changed_at(struct walk *w, int dfd, const char *name, struct stat *out)
{
	struct stat st, tgt;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (out)
		*out = st;
	if (after(&st.st_ctim, &w->since))
		return true;
	return S_ISLNK(st.st_mode) && fstatat(dfd, name, &tgt, 0) == 0 &&
	       after(&tgt.st_ctim, &w->since);
}

static bool
granted(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->sc->ngranted; i++)
		if (strcmp(w->sc->granted[i], path) == 0)
			return true;
	return false;
}

/* Moves `name` in `dfd` (at `path`) aside, and says why; unless the
 * policy grants the very path writable. */
static void
block(struct walk *w, int dfd, const char *path, const char *name, const char *what)
{
	char aside[NAME_MAX + 32];
	int r;

	if (granted(w, path))
		return;
	r = hr_move_aside(dfd, name, aside, sizeof(aside));
	w->moved++;
	if (r < 0) {
		w->warn("WARNING: the sandbox made or changed %s, %s; host-run could not move it "
			"aside (%s): remove it before git runs there",
			path, what, strerror(-r));
		return;
	}
	w->warn("WARNING: the sandbox made or changed %s, %s; host-run moved it aside to "
		"%.*s/%s: review it before you use it",
		path, what, (int)(strrchr(path, '/') - path), path, aside);
}

/* A path for messages (the walk itself goes by descriptors): one too
 * long for PATH_MAX ends in "...". */
static void
join(char *out, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", name) >= len && len > 4)
		strcpy(out + len - 4, "...");
}

/* A config file of a git directory, changed during the run: read as git
 * reads it, moved aside when it sets what runs a program or cannot be
 * read. A link is not followed to be read (another run's sandbox could
 * swap its target for a device between a look and an open): one that
 * changed, or whose target did, is moved aside as it is. */
static void
check_config(struct walk *w, int gfd, const char *gpath, const char *name)
{
	char path[PATH_MAX], what[GS_VAR_MAX + 256];
	struct gs_finding f;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int fd, r;

	if (!changed_at(w, gfd, name, &st))
		return;
	join(path, sizeof(path), gpath, name);
	if (S_ISLNK(st.st_mode)) {
		block(w, gfd, path, name,
		      "a git config that is a link (git reads the file it points to)");
		return;
	}
	/* Never a FIFO (git would hang on it, or read what a later writer
	 * sends) or a device (some act on open). */
	if (!S_ISREG(st.st_mode)) {
		block(w, gfd, path, name, "a git config that is not a regular file");
		return;
	}
	fd = openat(gfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return;
	r = fd < 0 ? -errno : rt_read_small(fd, 1 << 20, &text, &len, NULL);
	if (r == -EINVAL) {
		block(w, gfd, path, name,
		      "a git config larger than heel reads (1 MiB), or no longer a regular file");
		return;
	}
	if (r < 0) {
		w->moved++;
		w->warn("WARNING: could not check %s, a git config the sandbox made or changed "
			"(%s): review it before git runs there",
			path, strerror(-r));
		return;
	}
	r = gs_config_scan(text, len, &f);
	free(text);
	if (r == 0)
		return;
	if (r == -ENOMEM) {
		w->moved++;
		w->warn("WARNING: could not check %s, a git config the sandbox made or changed "
			"(%s): review it before git runs there",
			path, strerror(ENOMEM));
		return;
	}
	if (r < 0)
		snprintf(what, sizeof(what),
			 "a git config heel cannot read as git does (line %u), which could set "
			 "programs git runs",
			 f.line);
	else if (f.count > 1)
		snprintf(what, sizeof(what),
			 "a git config that sets %s at line %u (%s) and %zu more variables that "
			 "run programs",
			 f.var, f.line, f.why, f.count - 1);
	else
		snprintf(what, sizeof(what), "a git config that sets %s at line %u (%s)", f.var,
			 f.line, f.why);
	block(w, gfd, path, name, what);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The hooks of a git directory: every entry changed during the run
 * but git's own *.sample (git runs a hook by its exact name only), or
 * the hooks entry itself when it is not a directory. */
static void
check_hooks(struct walk *w, int gfd, const char *gpath)
{
	char path[PATH_MAX], hpath[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int hfd;

	join(hpath, sizeof(hpath), gpath, "hooks");
	if (granted(w, hpath) || fstatat(gfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		if (changed_at(w, gfd, "hooks", NULL))
			block(w, gfd, hpath, "hooks",
			      "a git hooks directory that is not a directory (git runs the hooks "
			      "of what it leads to)");
		return;
	}
	hfd = openat(gfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (hfd < 0 || !(d = fdopendir(hfd))) {
		if (hfd >= 0)
			close(hfd);
		if (after(&st.st_ctim, &w->since)) {
			w->moved++;
			w->warn("WARNING: could not check %s, git hooks the sandbox made or changed "
				"(%s): review them before git runs there",
				hpath, strerror(errno));
		}
		return;
	}
	while ((errno = 0, e = readdir(d))) {
		/* git runs neither its samples nor what was moved aside. */
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    ends_with(e->d_name, ".sample") || strstr(e->d_name, ".heel-blocked.") ||
		    !changed_at(w, hfd, e->d_name, NULL))
			continue;
		join(path, sizeof(path), hpath, e->d_name);
		block(w, hfd, path, e->d_name, "a git hook (git runs it)");
	}
	closedir(d);
}

/* A git directory found: what git would run from it. Each file counts
 * by its own change time, not its directory's: git itself changes the
 * directory at every commit (index.lock, ORIG_HEAD), and a config the
 * user set is not the sandbox's because the sandbox committed there. */
static void
check_gitdir(struct walk *w, int gfd, const char *gpath, bool commondir)
{
	char path[PATH_MAX];

	w->st.repos++;
	w->st.changed += changed_at(w, gfd, ".", NULL) || changed_at(w, gfd, "config", NULL) ||
			 changed_at(w, gfd, "config.worktree", NULL) ||
			 changed_at(w, gfd, "hooks", NULL);
	check_config(w, gfd, gpath, "config");
	check_config(w, gfd, gpath, "config.worktree");
	check_hooks(w, gfd, gpath);
	if (commondir && changed_at(w, gfd, "commondir", NULL)) {
		join(path, sizeof(path), gpath, "commondir");
		block(w, gfd, path, "commondir",
		      "which points git at another directory, whose hooks and config git runs");
	}
}

/* File systems that hold no one's files: not walked (proc and sysfs
 * would be endless, autofs would mount what it names). */
static bool
no_files(int fd)
{
	static const long magic[] = {
		PROC_SUPER_MAGIC,    SYSFS_MAGIC,	    CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		DEVPTS_SUPER_MAGIC,  DEBUGFS_MAGIC,	    TRACEFS_MAGIC,      SECURITYFS_MAGIC,
		BPF_FS_MAGIC,	     PSTOREFS_MAGIC,	    EFIVARFS_MAGIC,     AUTOFS_SUPER_MAGIC,
		NSFS_MAGIC,	     BINFMTFS_MAGIC,	    SELINUX_MAGIC,      SMACK_MAGIC,
		0x62656570 /* configfs */, 0x65735543 /* fusectl */, 0x19800202 /* mqueue */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(*magic); i++)
		if ((long)sf.f_type == magic[i])
			return true;
	return false;
}

static bool
was_seen(const struct walk *w, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].dev == dev && w->seen[i].ino == ino)
			return true;
	return false;
}

/* One directory's entries, read whole before any is acted on (moving
 * one aside while reading would make the listing skip or repeat). */
struct entries {
	char *names; /* NUL-separated */
	size_t len, cap;
	struct ent {
		ino_t ino;
		unsigned char type;
	} *e;
	size_t n, cap_e;
};

/* getdents64(2)'s record; libc's readdir would cost a descriptor check,
 * a stat and an allocation per directory (a third of the walk). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int
read_entries(struct walk *w, int fd, struct entries *es)
{
	for (;;) {
		long n = syscall(SYS_getdents64, fd, w->buf, sizeof(w->buf));

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(w->buf + off);
			size_t k = strlen(d->d_name) + 1;
			char *b;
			struct ent *t;

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			if (w->st.entries >= w->sc->max_entries) {
				w->out_of_budget = true;
				return 0;
			}
			w->st.entries++;
			if (!(b = grow_array(es->names, &es->cap, es->len + k, 1, 4096)) ||
			    !(t = grow_array(es->e, &es->cap_e, es->n + 1, sizeof(*t), 256)))
				return -ENOMEM;
			es->names = b;
			es->e = t;
			memcpy(es->names + es->len, d->d_name, k);
			es->len += k;
			es->e[es->n++] = (struct ent){ (ino_t)d->d_ino, d->d_type };
		}
	}
}

static bool
is_dir_entry(int dfd, const char *name, unsigned char type)
{
	struct stat st;

	if (type != DT_UNKNOWN)
		return type == DT_DIR;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static void
note_unreadable(struct walk *w, const char *path, int e)
{
	if (w->part.unreadable++)
		return;
	snprintf(w->part.unreadable_at, sizeof(w->part.unreadable_at), "%s", path);
	snprintf(w->part.unreadable_why, sizeof(w->part.unreadable_why), "%s", strerror(e));
}

static int
open_dir(int dfd, const char *name, uint64_t resolve)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | resolve };
	long fd = syscall(SYS_openat2, dfd, name, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static int walk_dir(struct walk *w, int dfd, const char *path, dev_t dev, unsigned depth);

/* The subdirectory `name` (inode `ino`) of dfd, on device `dev`, unless
 * it is where the walk must not go. */
static int
descend(struct walk *w, int dfd, const char *dpath, dev_t dev, const char *name, ino_t ino,
	unsigned depth)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", strcmp(dpath, "/") ? dpath : "", name) >=
		    sizeof(path) ||
	    depth >= w->sc->max_depth) {
		if (!w->part.deep++)
			snprintf(w->part.deep_at, sizeof(w->part.deep_at), "%s/%s", dpath, name);
		return 0;
	}
	/* RESOLVE_NO_XDEV: a mount point says so (EXDEV) instead of costing
	 * every directory a stat. */
	fd = open_dir(dfd, name, RESOLVE_NO_XDEV);
	if (fd == -EXDEV) {
		fd = open_dir(dfd, name, 0);
		if (fd >= 0) {
			if (fstat(fd, &st) < 0 || no_files(fd)) {
				close(fd);
				return 0;
			}
			dev = st.st_dev;
			ino = st.st_ino;
		}
	}
	if (fd < 0) {
		/* Gone, or replaced by a link since it was listed: nothing
		 * to walk. Unreadable and unchanged: the sandbox, as this
		 * user, could not have entered it either. */
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
			return 0;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    after(&st.st_ctim, &w->since))
			note_unreadable(w, path, -fd);
		return 0;
	}
	if (was_seen(w, dev, ino)) {
		close(fd);
		return 0;
	}
	return walk_dir(w, fd, path, dev, depth + 1);
}

/* Walks the directory open on dfd (closed here). */
static int
walk_dir(struct walk *w, int dfd, const char *path, dev_t dev, unsigned depth)
{
	struct entries es = { 0 };
	bool head = false, objects = false, refs = false, commondir = false;
	size_t off = 0;
	int r;

	w->st.dirs++;
	r = read_entries(w, dfd, &es);
	if (r < 0) {
		struct stat st;

		if (r != -ENOMEM) {
			if (fstat(dfd, &st) < 0 || after(&st.st_ctim, &w->since))
				note_unreadable(w, path, -r);
			r = 0;
		}
		goto out;
	}
	for (size_t i = 0; i < es.n; off += strlen(es.names + off) + 1, i++) {
		const char *n = es.names + off;

		head |= strcmp(n, "HEAD") == 0;
		objects |= strcmp(n, "objects") == 0;
		refs |= strcmp(n, "refs") == 0;
		commondir |= strcmp(n, "commondir") == 0;
		/* A .git that is not a directory: a gitdir file (or a
		 * link) that points git at a directory anywhere. */
		if (strcmp(n, ".git") == 0 && !is_dir_entry(dfd, n, es.e[i].type) &&
		    changed_at(w, dfd, n, NULL)) {
			char p[PATH_MAX];

			join(p, sizeof(p), path, n);
			block(w, dfd, p, n,
			      "a .git file that points git at another directory, whose hooks and "
			      "config git runs");
		}
	}
	/* git takes a directory as a repository when it holds HEAD and
	 * objects/ and refs/, or HEAD and commondir (git's
	 * is_git_directory; safe.bareRepository is "all" by default, so a
	 * shell entering a bare repository runs its config too). */
	if (head && ((objects && refs) || commondir))
		check_gitdir(w, dfd, path, commondir);
	off = 0;
	for (size_t i = 0; i < es.n && r == 0 && !w->out_of_budget;
	     off += strlen(es.names + off) + 1, i++) {
		const char *n = es.names + off;

		if (is_dir_entry(dfd, n, es.e[i].type))
			r = descend(w, dfd, path, dev, n, es.e[i].ino, depth);
	}
out:
	free(es.names);
	free(es.e);
	close(dfd);
	return r;
}

static void
report_partial(struct walk *w, const char *root)
{
	struct partial *p = &w->part;

	if (p->budget)
		w->warn("WARNING: host-run did not check every git repository in %s: the walk "
			"stops after %zu entries a run; a repository the sandbox made or changed "
			"there may run code at the host's next git command in it: review before "
			"you run git there",
			root, w->sc->max_entries);
	if (p->deep)
		w->warn("WARNING: host-run did not check the git repositories in %zu director%s "
			"of %s more than %u levels down (the first: %s): review before you run git "
			"there",
			p->deep, p->deep == 1 ? "y" : "ies", root, w->sc->max_depth, p->deep_at);
	if (p->unreadable)
		w->warn("WARNING: host-run could not check %zu director%s of %s that changed during "
			"the run (the first: %s: %s): review before you run git there",
			p->unreadable, p->unreadable == 1 ? "y" : "ies", root, p->unreadable_at,
			p->unreadable_why);
	w->st.partial += p->budget || p->deep || p->unreadable;
}

size_t
gs_check_after(const struct gs_scope *sc, struct gs_stats *st, void (*warn)(const char *fmt, ...))
{
	struct walk w = { .sc = sc, .since = sc->since, .warn = warn };
	char *const *roots = sc->roots;
	size_t nroots = sc->nroots;

	for (size_t i = 0; i < nroots; i++) {
		struct stat rst;
		struct seen *s;
		int fd, r;

		memset(&w.part, 0, sizeof(w.part));
		if (w.out_of_budget) {
			w.part.budget = true;
			report_partial(&w, roots[i]);
			continue;
		}
		/* No link followed, as the policy's rules are opened: a
		 * place that is gone or became a link holds nothing git
		 * would find through the place. */
		fd = open_dir(AT_FDCWD, roots[i], 0);
		if (fd < 0) {
			if (fd != -ENOENT && fd != -ENOTDIR && fd != -ELOOP) {
				note_unreadable(&w, roots[i], -fd);
				report_partial(&w, roots[i]);
			}
			continue;
		}
		if (fstat(fd, &rst) < 0 || was_seen(&w, rst.st_dev, rst.st_ino) || no_files(fd)) {
			close(fd);
			continue;
		}
		s = grow_array(w.seen, &w.cap_seen, w.nseen + 1, sizeof(*s), 8);
		if (s) {
			w.seen = s;
			w.seen[w.nseen++] = (struct seen){ rst.st_dev, rst.st_ino };
		}
		r = walk_dir(&w, fd, roots[i], rst.st_dev, 0);
		if (r < 0)
			note_unreadable(&w, roots[i], -r);
		w.part.budget = w.out_of_budget;
		report_partial(&w, roots[i]);
	}
	free(w.seen);
	w.st.moved = w.moved;
	if (st)
		*st = w.st;
	return w.moved;
}

/* SPDX-License-Identifier: MIT
 * `readonly` at launch and after the run; see linux_hostrun.h. */
#include "linux_hostrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "errmsg.h"
#include "grow.h"
#include "landlock_abi.h"
#include "landlock_table.h"
#include "pathexpand.h"

/* Shared temp is the host's, not a project: a path relative to it would
 * blame the sandbox for what other programs put there. */
static const char *const not_a_project[] = { "/", "/tmp", "/var/tmp", "/dev/shm" };

/* A link in a link's target, and so on: past this many, give up on the
 * target (the link itself is still checked after the run). */
#define HR_MAX_LINKS 8


/* ------------------------------------------------------------ the rules */

/* A path rule of the policy, expanded: what decides whether a path is
 * writable (the longest rule at or above it, as heel(5) PRECEDENCE says). */
struct rule {
	char *path;
	bool grant;
	bool write;
	bool exec; /* a read-only mount beneath keeps it: readonly takes
		    * away writing, not what the policy lets run */
};

struct rules {
	struct rule *r;
	size_t n, cap;
};

struct ctx {
	const struct hr_launch *hl;
	struct hr_plan *hp;
	struct rules rules;
	char *err;
	size_t errlen;
};

static const char *
lookup(const char *name, void *arg)
{
	const struct hr_launch *hl = arg;

	if (strcmp(name, "CWD") == 0)
		return hl->cwd;
	if (strcmp(name, "WORKDIR") == 0)
		return NULL; /* heelc refuses it in a path */
	return envb_lookup(hl->env, name);
}

static int
add_rule(struct rules *rs, const char *path, bool grant, bool write, bool exec)
{
	struct rule *r = grow_array(rs->r, &rs->cap, rs->n + 1, sizeof(*r), 64);

	if (!r)
		return -ENOMEM;
	rs->r = r;
	r[rs->n].path = strdup(path);
	if (!r[rs->n].path)
		return -ENOMEM;
	r[rs->n].grant = grant;
	r[rs->n].write = write;
	r[rs->n].exec = exec;
	rs->n++;
	return 0;
}

/* The table's grants and denies, expanded; one that does not expand was
 * refused or skipped by the Landlock plan already, and is left out. */
static int
load_rules(struct ctx *c, const struct art_view *view)
{
	const uint8_t *payload;
	struct ll_table_view t;
	char path[PATH_MAX];
	size_t len;
	int r;

	if (art_landlock(view, &payload, &len) < 0 || ll_table_parse(payload, len, &t, NULL, 0) < 0)
		return 0;
	for (uint32_t i = 0; i < t.rule_count; i++) {
		struct ll_rule_view rv;
		struct px_info info;

		ll_table_rule(&t, i, &rv);
		if (px_expand(rv.path, lookup, (void *)c->hl, path, sizeof(path), &info) < 0)
			continue;
		r = add_rule(&c->rules, path, rv.kind == LL_KIND_GRANT,
			     rv.kind == LL_KIND_GRANT && (rv.access & LL_FS_WRITE_RIGHTS),
			     rv.kind == LL_KIND_GRANT && (rv.access & LL_FS_EXECUTE));
		if (r < 0)
			return r;
	}
	/* The working directory is never executable (heel(5)). */
	if (c->hl->workdir)
		return add_rule(&c->rules, c->hl->workdir, true, true, false);
	return 0;
}

/* The rule that decides `path`: the longest at or above it; on one path
 * a grant beats a deny and grants keep the union. NULL: none (nothing
 * grants it, so it is not writable). *write: whether it lets the
 * sandbox write there; *exec (may be NULL): run what is there. */
static const struct rule *
deciding_rule(const struct rules *rs, const char *path, bool *write, bool *exec)
{
	const struct rule *best = NULL;
	bool x = false;
	size_t blen = 0;

	*write = false;
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];
		size_t len = strlen(r->path);

		if (strcmp(r->path, path) != 0 && !px_beneath(path, r->path))
			continue;
		if (best && len < blen)
			continue;
		if (!best || len > blen) {
			best = r;
			blen = len;
			*write = r->grant && r->write;
			x = r->grant && r->exec;
			continue;
		}
		/* The same path again. */
		if (r->grant && !best->grant)
			best = r;
		if (r->grant) {
			*write |= r->write;
			x |= r->exec;
		}
	}
	if (exec)
		*exec = x;
	return best;
}

/* ------------------------------------------------------------ guards */

static struct hr_guard *
new_guard(struct ctx *c, const char *path, const char *place, enum hr_kind kind,
	  const struct art_readonly *ro)
{
	struct hr_plan *hp = c->hp;
	struct hr_guard *g;

	for (size_t i = 0; i < hp->n; i++)
		if (strcmp(hp->g[i].path, path) == 0)
			return &hp->g[i]; /* two entries, one path: the first says why */
	g = grow_array(hp->g, &hp->cap, hp->n + 1, sizeof(*g), 16);
	if (!g)
		return NULL;
	hp->g = g;
	g = &hp->g[hp->n];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	g->place = strdup(place);
	if (!g->path || !g->place) {
		free(g->path);
		free(g->place);
		return NULL;
	}
	g->kind = kind;
	g->entry = ro->path;
	g->because = ro->because;
	g->set = ro->set;
	g->origin = ro->origin;
	hp->n++;
	return g;
}

static int
add_pin(struct hr_plan *hp, const char *dir, size_t len)
{
	char **p;

	for (size_t i = 0; i < hp->npins; i++)
		if (strlen(hp->pins[i]) == len && strncmp(hp->pins[i], dir, len) == 0)
			return 0;
	p = grow_array(hp->pins, &hp->cap_pins, hp->npins + 1, sizeof(*p), 16);
	if (!p)
		return -ENOMEM;
	hp->pins = p;
	p[hp->npins] = strndup(dir, len);
	if (!p[hp->npins])
		return -ENOMEM;
	hp->npins++;
	return 0;
}

/* Every directory strictly between the place and the guard: a mount
 * point cannot be renamed or removed (EBUSY), so `mv .git .git.old;
 * mkdir .git` cannot carry the read-only .git/hooks away and put a
 * writable one in its place. */
static int
pin_between(struct hr_plan *hp, const char *place, const char *path)
{
	size_t plen = strlen(place);
	int r;

	for (size_t i = plen == 1 ? 1 : plen + 1; path[i]; i++)
		if (path[i] == '/' && (r = add_pin(hp, path, i)) < 0)
			return r;
	return 0;
}

/* The path `path` would name once every link in it is followed: realpath
 * of its longest existing prefix, with the rest as written. */
static int
resolve(const char *path, char *out)
{
	char prefix[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(prefix))
		return -ENAMETOOLONG;
	memcpy(prefix, path, len + 1);
	for (;;) {
		char *slash;

		if (realpath(prefix, real)) {
			size_t rl = strlen(real);
			const char *rest = path + strlen(prefix);

			if (rl + strlen(rest) >= PATH_MAX)
				return -ENAMETOOLONG;
			memcpy(out, real, rl);
			strcpy(out + (rl == 1 && rest[0] ? 0 : rl), rest);
			return 0;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		slash = strrchr(prefix, '/');
		if (!slash || slash == prefix)
			return -ENOENT;
		*slash = '\0';
	}
}

static int consider(struct ctx *c, const char *path, const struct art_readonly *ro, int depth);

/* A link at `link` on the way to `path` (or `path` itself): the link is
 * checked after the run; what it leads to is a guard of its own where
 * it is writable. */
static int
guard_link(struct ctx *c, const char *link, const char *place, const char *path,
	   const struct art_readonly *ro, int depth)
{
	char text[PATH_MAX], target[PATH_MAX];
	struct hr_guard *g;
	ssize_t n = readlink(link, text, sizeof(text) - 1);

	if (n < 0)
		return 0; /* gone since: nothing to guard */
	text[n] = '\0';
	g = new_guard(c, link, place, HR_LINK, ro);
	if (!g)
		return -ENOMEM;
	if (g->kind == HR_LINK && !g->link && !(g->link = strdup(text)))
		return -ENOMEM;
	if (depth >= HR_MAX_LINKS || resolve(path, target) < 0 || strcmp(target, path) == 0)
		return 0;
	return consider(c, target, ro, depth + 1);
}

/* Sorts `path`, which a writable place `place` holds, into a guard. */
static int
classify(struct ctx *c, const char *path, const char *place, bool exec,
	 const struct art_readonly *ro, int depth)
{
	struct hr_guard *g;
	struct stat st;
	char comp[PATH_MAX];
	size_t plen = strlen(place), ndirs = 0;
	int fd = ll_open_nofollow(AT_FDCWD, path, O_PATH | O_NOFOLLOW);

	if (fd >= 0) {
		int r = fstat(fd, &st);

		close(fd);
		if (r < 0)
			return 0;
		if (S_ISLNK(st.st_mode))
			return guard_link(c, path, place, path, ro, depth);
		g = new_guard(c, path, place, HR_MOUNT, ro);
		if (!g)
			return -ENOMEM;
		g->is_dir = S_ISDIR(st.st_mode);
		g->exec = exec;
		return g->kind == HR_MOUNT ? pin_between(c->hp, place, path) : 0;
	}
	if (fd != -ENOENT && fd != -ENOTDIR && fd != -ELOOP)
		return 0; /* not ours to read (EACCES): the sandbox, as we, cannot either */
	/* Missing, or a link on the way: walk down from the place, each
	 * component a real directory so far, to the first that is not. */
	for (size_t i = plen == 1 ? 1 : plen + 1;; i++) {
		if (path[i] != '/' && path[i])
			continue;
		memcpy(comp, path, i);
		comp[i] = '\0';
		if (lstat(comp, &st) < 0) {
			g = new_guard(c, path, place, HR_MISSING, ro);
			if (!g)
				return -ENOMEM;
			if (g->kind == HR_MISSING)
				g->ndirs = ndirs;
			return 0;
		}
		if (S_ISLNK(st.st_mode))
			return guard_link(c, comp, place, path, ro, depth);
		if (!S_ISDIR(st.st_mode) || !path[i]) {
			/* A file where a directory would be (a linked
			 * worktree's .git file): the path cannot exist while
			 * it stays; recorded, so that a change is seen. */
			g = new_guard(c, path, place, HR_MISSING, ro);
			if (!g)
				return -ENOMEM;
			if (g->kind == HR_MISSING) {
				g->ndirs = ndirs;
				g->dev = st.st_dev;
				g->ino = st.st_ino;
			}
			return 0;
		}
		ndirs++;
	}
}

/* One path a `readonly` names: a guard if the longest rule above it
 * lets the sandbox write there, and it is not itself granted writable
 * (an explicit grant of the very path wins). */
static int
consider(struct ctx *c, const char *path, const struct art_readonly *ro, int depth)
{
	bool write;
	bool exec;
	const struct rule *r = deciding_rule(&c->rules, path, &write, &exec);

	if (!r || !write || strcmp(r->path, path) == 0)
		return 0;
	return classify(c, path, r->path, exec, ro, depth);
}

/* ------------------------------------------------------------ places */

struct places {
	char **p;
	size_t n, cap;
	char project[PATH_MAX]; /* the launch directory's place where it is
				 * writable: the top of its git work tree, or
				 * itself; "" when it is not writable */
};

static int
add_place(struct places *ps, const char *path)
{
	char **p;

	for (size_t i = 0; i < sizeof(not_a_project) / sizeof(*not_a_project); i++)
		if (strcmp(path, not_a_project[i]) == 0)
			return 0;
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i], path) == 0)
			return 0;
	p = grow_array(ps->p, &ps->cap, ps->n + 1, sizeof(*p), 8);
	if (!p)
		return -ENOMEM;
	ps->p = p;
	if (!(p[ps->n] = strdup(path)))
		return -ENOMEM;
	ps->n++;
	return 0;
}

static bool
is_dir_nofollow(const char *path)
{
	int fd = ll_open_nofollow(AT_FDCWD, path, O_PATH | O_DIRECTORY);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Where each-writable paths are looked for: every writable grant that is
 * a directory, the kept working directory, and the launch directory
 * where it is writable, with the top of the git work tree it is in (the
 * agent that runs in a repository's subdirectory still commits there). */
static int
collect_places(struct ctx *c, struct places *ps)
{
	char dir[PATH_MAX];
	bool write;
	int r;

	for (size_t i = 0; i < c->rules.n; i++) {
		const struct rule *ru = &c->rules.r[i];

		/* On its own path a grant beats a deny: a writable grant is
		 * a writable place (add_place keeps each path once). */
		if (!ru->grant || !ru->write || !is_dir_nofollow(ru->path))
			continue;
		if ((r = add_place(ps, ru->path)) < 0)
			return r;
	}
	if (!c->hl->cwd || !deciding_rule(&c->rules, c->hl->cwd, &write, NULL) || !write ||
	    !is_dir_nofollow(c->hl->cwd))
		return 0;
	if ((r = add_place(ps, c->hl->cwd)) < 0)
		return r;
	if (strlen(c->hl->cwd) >= sizeof(dir))
		return 0;
	strcpy(dir, c->hl->cwd);
	strcpy(ps->project, dir);
	for (;;) {
		char git[PATH_MAX + 8];
		struct stat st;
		char *slash;

		if (snprintf(git, sizeof(git), "%s/.git", strcmp(dir, "/") ? dir : "") <
			(int)sizeof(git) &&
		    lstat(git, &st) == 0) {
			strcpy(ps->project, dir);
			return add_place(ps, dir);
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = '\0';
		if (!deciding_rule(&c->rules, dir, &write, NULL) || !write)
			return 0;
	}
}

/* ------------------------------------------------------------ git */

/* Where a policy keeps each writable place's .git/hooks read-only, the
 * places git would really run hooks from are guarded too: the directory
 * core.hooksPath names, and, for a linked worktree or a submodule, whose
 * .git is a file naming the git directory, that file and the hooks and
 * config of the directory it names. */
static const char why_gitfile[] = "git follows it to the repository's directory, whose hooks "
				  "and config it runs";
static const char why_hookspath[] = "git runs the hooks in the directory core.hooksPath names";

/* Reads at most len - 1 bytes of a small file; 0 when it cannot. */
static size_t
read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return (size_t)n;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* core.hooksPath in the git config file `path` (the last one wins, as
 * git reads it), into out; false when it sets none. Enough of git's
 * format for this one key: [core] sections (a key may follow the header
 * on its line: `[core] hooksPath = x`), `key = value`, a quoted value,
 * comments, also after an unquoted value; include directives are not
 * followed. */
static bool
git_hooks_path(const char *path, char *out, size_t len)
{
	static char text[65536];
	bool core = false, found = false;
	char *line, *save = NULL;

	if (!read_small(path, text, sizeof(text)))
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line), *eq, *v;

		if (*l == '[') {
			char *end = strchr(l, ']');

			core = strncasecmp(l + 1, "core", 4) == 0 && (l[5] == ']' || l[5] == ' ');
			if (!end)
				continue;
			l = trim(end + 1);
		}
		if (*l == '#' || *l == ';' || !core || !(eq = strchr(l, '=')))
			continue;
		*eq = '\0';
		if (strcasecmp(trim(l), "hookspath") != 0)
			continue;
		v = trim(eq + 1);
		if (*v == '"' && strchr(v + 1, '"')) {
			*strchr(v + 1, '"') = '\0';
			v++;
		} else {
			v[strcspn(v, "#;")] = '\0';
			v = trim(v);
		}
		if (*v && strlen(v) < len) {
			strcpy(out, v);
			found = true;
		}
	}
	return found;
}

/* consider() for `dir`/`name` (name may be a path of its own). */
static int
consider_at(struct ctx *c, const char *dir, const char *name, const struct art_readonly *ro)
{
	char path[PATH_MAX], real[PATH_MAX];

	if (!ro || snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", name) >=
			   (int)sizeof(path))
		return 0;
	/* A path git reads may hold `..` or links: guard where it leads. */
	if (resolve(path, real) < 0)
		return 0;
	return consider(c, real, ro, 0);
}

static int
guard_git(struct ctx *c, const char *base, const struct art_readonly *hooks,
	  const struct art_readonly *config)
{
	char git[PATH_MAX], text[PATH_MAX + 16], gitdir[PATH_MAX], common[PATH_MAX * 2],
	    value[PATH_MAX];
	const char *home = lookup("HOME", (void *)c->hl);
	struct art_readonly x = *hooks;
	const char *cfg_dir = git;
	struct stat st;
	int r;

	if (snprintf(git, sizeof(git), "%s/.git", strcmp(base, "/") ? base : "") >= (int)sizeof(git) ||
	    lstat(git, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		char *g = text;

		x.path = ".git";
		x.because = why_gitfile;
		if ((r = consider(c, git, &x, 0)) < 0)
			return r;
		if (!read_small(git, text, sizeof(text)) || strncmp(g, "gitdir:", 7) != 0)
			return 0;
		g = trim(g + 7);
		if (snprintf(gitdir, sizeof(gitdir), "%s%s%s", *g == '/' ? "" : base,
			     *g == '/' ? "" : "/", g) >= (int)sizeof(gitdir))
			return 0;
		/* A linked worktree's hooks and config are its common dir's. */
		if (snprintf(common, sizeof(common), "%s/commondir", gitdir) < (int)sizeof(common) &&
		    read_small(common, text, sizeof(text))) {
			g = trim(text);
			if (snprintf(common, sizeof(common), "%s%s%s", *g == '/' ? "" : gitdir,
				     *g == '/' ? "" : "/", g) >= PATH_MAX)
				return 0;
		} else {
			strcpy(common, gitdir);
		}
		if ((r = consider_at(c, common, "hooks", hooks)) < 0 ||
		    (r = consider_at(c, common, "config", config)) < 0)
			return r;
		cfg_dir = common;
	} else if (!S_ISDIR(st.st_mode)) {
		return 0;
	}
	/* core.hooksPath: the repository's, else the user's (relative to
	 * the work tree, `~/` to the home, as git reads it). */
	if (snprintf(text, sizeof(text), "%s/config", cfg_dir) >= (int)sizeof(text))
		return 0;
	if (!git_hooks_path(text, value, sizeof(value))) {
		bool found = false;

		if (home && snprintf(text, sizeof(text), "%s/.gitconfig", home) < (int)sizeof(text))
			found = git_hooks_path(text, value, sizeof(value));
		if (!found && home &&
		    snprintf(text, sizeof(text), "%s/.config/git/config", home) < (int)sizeof(text))
			found = git_hooks_path(text, value, sizeof(value));
		if (!found)
			return 0;
	}
	x.path = "core.hooksPath";
	x.because = why_hookspath;
	if (value[0] == '~' && value[1] == '/')
		return home ? consider_at(c, home, value + 2, &x) : 0;
	return consider_at(c, value[0] == '/' ? "/" : base, value + (value[0] == '/'), &x);
}

/* ------------------------------------------------------------ roots */

static int
add_root(struct hr_plan *hp, const char *path)
{
	char **p;

	/* Beneath an earlier root: that walk goes through it. (An earlier
	 * root beneath this one is skipped by this one's walk.) */
	for (size_t i = 0; i < hp->nroots; i++)
		if (strcmp(hp->roots[i], path) == 0 || px_beneath(path, hp->roots[i]))
			return 0;
	p = grow_array(hp->roots, &hp->cap_roots, hp->nroots + 1, sizeof(*p), 8);
	if (!p)
		return -ENOMEM;
	hp->roots = p;
	if (!(p[hp->nroots] = strdup(path)))
		return -ENOMEM;
	hp->nroots++;
	return 0;
}

static int
by_depth(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return x < y ? 1 : x > y ? -1 : strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every persistent writable place, where a repository the sandbox made
 * or changed could be, in the order the bounded walk spends its budget:
 * the project first (the launch directory's place: the top of its git
 * work tree), the kept working directory, the home, then each writable
 * grant that is a directory, deeper first (under `isolation permissive`
 * "/" comes last). A fresh working directory is a tmpfs gone at exit. */
static int
collect_roots(struct ctx *c, const struct places *ps)
{
	const char *home = lookup("HOME", (void *)c->hl);
	char **grants = NULL;
	size_t ng = 0, cap = 0;
	bool write;
	int r = 0;

	if (ps->project[0])
		r = add_root(c->hp, ps->project);
	if (r == 0 && c->hl->workdir)
		r = add_root(c->hp, c->hl->workdir);
	if (r == 0 && home && home[0] == '/' && deciding_rule(&c->rules, home, &write, NULL) && write &&
	    is_dir_nofollow(home))
		r = add_root(c->hp, home);
	for (size_t i = 0; i < c->rules.n && r == 0; i++) {
		const struct rule *ru = &c->rules.r[i];
		char **g;

		if (!ru->grant || !ru->write)
			continue;
		if (!(g = grow_array(c->hp->granted, &c->hp->cap_granted, c->hp->ngranted + 1,
				     sizeof(*g), 16)) ||
		    !(g[c->hp->ngranted] = strdup(ru->path))) {
			if (g)
				c->hp->granted = g;
			r = -ENOMEM;
			break;
		}
		c->hp->granted = g;
		c->hp->ngranted++;
		if (!is_dir_nofollow(ru->path))
			continue;
		if (!(g = grow_array(grants, &cap, ng + 1, sizeof(*g), 16))) {
			r = -ENOMEM;
			break;
		}
		grants = g;
		grants[ng++] = ru->path;
	}
	if (ng)
		qsort(grants, ng, sizeof(*grants), by_depth);
	for (size_t i = 0; i < ng && r == 0; i++)
		r = add_root(c->hp, grants[i]);
	free(grants);
	return r;
}

/* ------------------------------------------------------------ plan */

int
hr_plan_build(struct hr_plan *hp, const struct art_view *view, const struct hr_launch *hl,
	      char *err, size_t errlen)
{
	struct ctx c = { .hl = hl, .hp = hp, .err = err, .errlen = errlen };
	struct art_readonly git_hooks, git_config;
	bool have_hooks = false, have_config = false;
	struct places ps = { 0 };
	size_t n = art_readonly_count(view);
	int r = 0;

	memset(hp, 0, sizeof(*hp));
	if (err && errlen)
		err[0] = '\0';
	if (!n && !hl->heel_state && !hl->heel_cache)
		return 0;
	if ((r = load_rules(&c, view)) < 0 || (r = collect_places(&c, &ps)) < 0)
		goto out;
	hp->nplaces = ps.n;
	/* The statements that keep .git/hooks and .git/config read-only
	 * in each place: git's other ways to those files follow them. */
	for (size_t i = 0; i < n; i++) {
		struct art_readonly ro;

		if (art_readonly_at(view, i, &ro) < 0 || !ro.each_writable ||
		    !(ro.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		if (strcmp(ro.path, ".git/hooks") == 0)
			git_hooks = ro, have_hooks = true;
		else if (strcmp(ro.path, ".git/config") == 0)
			git_config = ro, have_config = true;
	}
	for (size_t k = 0; have_hooks && k < ps.n && r == 0; k++)
		r = guard_git(&c, ps.p[k], &git_hooks, have_config ? &git_config : NULL);
	/* The repositories below the tops: found after the run. */
	if (r == 0 && (have_hooks || have_config)) {
		clock_gettime(CLOCK_REALTIME_COARSE, &hp->since);
		r = collect_roots(&c, &ps);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		struct art_readonly ro;
		char path[PATH_MAX + 1], why[PATH_MAX + 256];
		struct px_info info;

		if (art_readonly_at(view, i, &ro) < 0 || !(ro.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		if (ro.each_writable) {
			for (size_t k = 0; k < ps.n && r == 0; k++) {
				if (snprintf(path, sizeof(path), "%s/%s", strcmp(ps.p[k], "/") ? ps.p[k] : "",
					     ro.path) >= PATH_MAX)
					continue;
				r = consider(&c, path, &ro, 0);
			}
			continue;
		}
		r = px_expand(ro.path, lookup, (void *)hl, path, PATH_MAX, &info);
		/* Like a deny: an unset variable lets it go, a value that
		 * is not a path is an error in the launcher's environment. */
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0) {
			rt_error(err, errlen, r, "readonly \"%s\" (%s:%u): %s", ro.path,
				 ro.origin.file ? ro.origin.file : "?", ro.origin.line,
				 px_describe(&info, why, sizeof(why)));
			break;
		}
		r = consider(&c, path, &ro, 0);
	}
	/* heel's own record of what sandboxes could write: a sandbox that
	 * could change it would hide what it left from every later run. No
	 * protection set turns this off (only a grant of that very
	 * directory, as for any read-only path). */
	if (r == 0 && hl->heel_state) {
		const struct art_readonly state = {
			.path = hl->heel_state,
			.because = "heel's host side trusts it to know what earlier sandboxes could "
				   "write",
			.platforms = ART_PLAT_BIT(ART_LINUX),
			.set = ART_SET_NONE,
		};

		r = consider(&c, hl->heel_state, &state, 0);
	}
	/* heel run's compile cache: an artifact planted there would be the
	 * sandbox of a later `heel run` (a permissive one, with the
	 * network). Wherever the cache is (XDG_CACHE_HOME, a home only
	 * /etc/passwd names), and whatever the policy's protection sets. */
	if (r == 0 && hl->heel_cache) {
		const struct art_readonly cache = {
			.path = hl->heel_cache,
			.because = "heel run launches the artifacts compiled into it",
			.platforms = ART_PLAT_BIT(ART_LINUX),
			.set = ART_SET_NONE,
		};

		r = consider(&c, hl->heel_cache, &cache, 0);
	}
out:
	if (r == -ENOMEM && err && errlen && !err[0])
		snprintf(err, errlen, "host-run: out of memory");
	for (size_t i = 0; i < c.rules.n; i++)
		free(c.rules.r[i].path);
	free(c.rules.r);
	for (size_t i = 0; i < ps.n; i++)
		free(ps.p[i]);
	free(ps.p);
	if (r < 0)
		hr_plan_free(hp);
	return r;
}

void
hr_plan_free(struct hr_plan *hp)
{
	for (size_t i = 0; i < hp->n; i++) {
		free(hp->g[i].path);
		free(hp->g[i].place);
		free(hp->g[i].link);
	}
	free(hp->g);
	for (size_t i = 0; i < hp->npins; i++)
		free(hp->pins[i]);
	free(hp->pins);
	for (size_t i = 0; i < hp->nextra; i++)
		free((char *)hp->extra[i].why);
	free(hp->extra);
	for (size_t i = 0; i < hp->nroots; i++)
		free(hp->roots[i]);
	free(hp->roots);
	for (size_t i = 0; i < hp->ngranted; i++)
		free(hp->granted[i]);
	free(hp->granted);
	memset(hp, 0, sizeof(*hp));
}

size_t
hr_count(const struct hr_plan *hp, enum hr_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < hp->n; i++)
		n += hp->g[i].kind == k;
	return n;
}

const char *
hr_label(const struct art_view *view)
{
	struct art_scalar prot;

	return art_scalar(view, ART_LINUX, ART_SC_PROTECTIONS, &prot) == 0 && prot.set &&
			       (prot.value & (1u << ART_SET_HOST_RUN))
		       ? "host-run"
		       : "readonly";
}

void
hr_describe(const struct hr_plan *hp, bool mountns, char *buf, size_t len)
{
	size_t m = hr_count(hp, HR_MOUNT), x = hr_count(hp, HR_MISSING), k = hr_count(hp, HR_LINK);

	char repos[96] = "";
	size_t used;

	if (hp->nroots)
		snprintf(repos, sizeof(repos),
			 "; the git repositories below %zu place%s checked after the run",
			 hp->nroots, hp->nroots == 1 ? "" : "s");
	if (!hp->n) {
		snprintf(buf, len, "no path the policy keeps read-only lies in a writable place%s",
			 repos);
		return;
	}
	snprintf(buf, len,
		 "%zu path%s kept read-only inside writable places: %zu %s%s, %zu missing (moved "
		 "aside after the run if the sandbox makes them), %zu link%s (put back after the "
		 "run if the sandbox changes them)",
		 hp->n, hp->n == 1 ? "" : "s", m, mountns ? "read-only mount" : "held by Landlock",
		 mountns ? (m == 1 ? "" : "s")
			 : " alone (no mount namespace: their places lose creating, removing and "
			   "renaming entries)",
		 x, k, k == 1 ? "" : "s");
	used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, "%s", repos);
}

int
hr_landlock_extras(struct hr_plan *hp)
{
	size_t n = hr_count(hp, HR_MOUNT), k = 0;

	if (hp->extra || !n)
		return 0;
	hp->extra = calloc(n, sizeof(*hp->extra));
	if (!hp->extra)
		return -ENOMEM;
	for (size_t i = 0; i < hp->n; i++) {
		const struct hr_guard *g = &hp->g[i];
		char *why;

		if (g->kind != HR_MOUNT)
			continue;
		if (asprintf(&why, "readonly \"%s\"", g->entry) < 0)
			return -ENOMEM;
		/* Read and list only, never write; run only where the
		 * place lets the sandbox run, as the read-only mount has it. */
		hp->extra[k++] = (struct ll_extra_rule){
			.path = g->path,
			.access = (g->is_dir ? LL_FS_READ_FILE | LL_FS_READ_DIR : LL_FS_READ_FILE) |
				  (g->exec ? LL_FS_EXECUTE : 0),
			.optional = true,
			.why = why,
		};
		hp->nextra = k;
	}
	return 0;
}

/* ------------------------------------------------------------ after the run */

int
hr_move_aside(int dfd, const char *name, char *aside, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (int tries = 0; tries < 16; tries++) {
		unsigned char rnd[3];
		char suffix[7];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		for (int i = 0; i < 3; i++) {
			suffix[2 * i] = hex[rnd[i] >> 4];
			suffix[2 * i + 1] = hex[rnd[i] & 15];
		}
		suffix[6] = '\0';
		if (snprintf(aside, len, "%s.heel-blocked.%s", name, suffix) >= (int)len)
			return -ENAMETOOLONG;
		/* RENAME_NOREPLACE: whatever may already bear the name
		 * stays as it is. */
		if (syscall(SYS_renameat2, dfd, name, dfd, aside, 1 /* RENAME_NOREPLACE */) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static const char *
who(const struct hr_guard *g, char *buf, size_t len)
{
	if (g->set == ART_SET_HOST_RUN)
		snprintf(buf, len, "host-run");
	else
		snprintf(buf, len, "the policy's readonly \"%s\" (%s:%u)", g->entry,
			 g->origin.file ? g->origin.file : "?", g->origin.line);
	return buf;
}

/* What the sandbox left at a guard: the directory the walk stopped in
 * (the place's descriptor, or one beneath it), the name there, and the
 * full path for messages. */
struct found {
	int dfd;
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
};

/* Walks from the guard's place down its path, each directory opened
 * without following links, to the first component that is not what it
 * was at launch: a link, a file where a directory was, the path itself
 * where it was missing, or (links) the link changed. 1 with *f set when
 * something was found, 0 when the path is as it was, -errno. */
static int
walk(const struct hr_guard *g, struct found *f)
{
	size_t plen = strlen(g->place), i = plen == 1 ? 1 : plen + 1, k = 0;
	int dfd = ll_open_nofollow(AT_FDCWD, g->place, O_PATH | O_DIRECTORY);

	if (dfd < 0)
		return dfd;
	while (g->path[i]) {
		size_t n = strcspn(g->path + i, "/");
		bool last = !g->path[i + n];
		struct stat st;
		int sub;

		if (n > NAME_MAX) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(f->name, g->path + i, n);
		f->name[n] = '\0';
		snprintf(f->path, sizeof(f->path), "%.*s", (int)(i + n), g->path);
		if (fstatat(dfd, f->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			int e = errno;

			/* A link the user had, removed: put back. */
			if (e == ENOENT && g->kind == HR_LINK && last) {
				f->dfd = dfd;
				return 1;
			}
			close(dfd);
			return e == ENOENT ? 0 : -e;
		}
		if (g->kind == HR_LINK && last) {
			char text[PATH_MAX];
			ssize_t tl = S_ISLNK(st.st_mode)
					     ? readlinkat(dfd, f->name, text, sizeof(text) - 1)
					     : -1;

			if (tl >= 0 && (text[tl] = '\0', strcmp(text, g->link) == 0)) {
				close(dfd);
				return 0;
			}
			f->dfd = dfd;
			return 1;
		}
		/* The first component that was not a directory at launch, still
		 * the same file: the path cannot have been made beneath it. */
		if (!last && k == g->ndirs && g->ino && st.st_dev == g->dev && st.st_ino == g->ino) {
			close(dfd);
			return 0;
		}
		if (last || !S_ISDIR(st.st_mode)) {
			f->dfd = dfd;
			return 1;
		}
		sub = ll_open_nofollow(dfd, f->name, O_PATH | O_DIRECTORY);
		close(dfd);
		if (sub < 0)
			return sub;
		dfd = sub;
		i += n + 1;
		k++;
	}
	close(dfd);
	return 0;
}

size_t
hr_check_after(const struct hr_plan *hp, void (*warn)(const char *fmt, ...))
{
	size_t changed = 0;

	for (size_t i = 0; i < hp->n; i++) {
		const struct hr_guard *g = &hp->g[i];
		const char *why = g->because ? g->because : "the host runs it";
		char aside[NAME_MAX + 32], by[PATH_MAX + 64], dir[PATH_MAX];
		bool relink, present;
		struct found f;
		int r;

		if (g->kind == HR_MOUNT)
			continue;
		r = walk(g, &f);
		if (r < 0)
			warn("WARNING: could not check %s, which %s keeps read-only (%s): %s; "
			     "review it before anything on the host runs it",
			     g->path, who(g, by, sizeof(by)), why, strerror(-r));
		if (r <= 0)
			continue;
		changed++;
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(f.path, '/') - f.path), f.path);
		relink = g->kind == HR_LINK && strcmp(f.path, g->path) == 0;
		present = faccessat(f.dfd, f.name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
		if (present && (r = hr_move_aside(f.dfd, f.name, aside, sizeof(aside))) < 0) {
			warn("WARNING: the sandbox made %s, at or on the way to %s, which %s keeps "
			     "read-only (%s), and it could not be moved aside (%s): remove it before "
			     "anything on the host runs it",
			     f.path, g->path, who(g, by, sizeof(by)), why, strerror(-r));
		} else if (relink) {
			/* The link was the user's: it is put back as it was. */
			int e = symlinkat(g->link, f.dfd, f.name) == 0 ? 0 : errno;

			warn("WARNING: the sandbox %s the link %s -> %s, which %s keeps read-only "
			     "(%s)%s%s%s%s; %s%s",
			     present ? "replaced" : "removed", g->path, g->link, who(g, by, sizeof(by)),
			     why, present ? "; what it put there is moved aside to " : "",
			     present ? dir : "", present ? "/" : "", present ? aside : "",
			     e ? "the link could not be put back: " : "the link is put back",
			     e ? strerror(e) : "");
		} else if (strcmp(f.path, g->path) == 0) {
			warn("WARNING: the sandbox made %s, which %s keeps read-only (%s): moved "
			     "aside to %s/%s; review it before you use it",
			     f.path, who(g, by, sizeof(by)), why, dir, aside);
		} else {
			warn("WARNING: the sandbox made %s, on the way to %s, which %s keeps "
			     "read-only (%s): moved aside to %s/%s; review it before you use it",
			     f.path, g->path, who(g, by, sizeof(by)), why, dir, aside);
		}
		close(f.dfd);
	}
	return changed;
}

size_t
hr_check_repos(const struct hr_plan *hp, struct gs_stats *st, void (*warn)(const char *fmt, ...))
{
	const struct gs_scope sc = {
		.roots = hp->roots,
		.nroots = hp->nroots,
		.granted = hp->granted,
		.ngranted = hp->ngranted,
		.since = hp->since,
		.max_entries = GS_MAX_ENTRIES,
		.max_depth = GS_MAX_DEPTH,
	};

	if (st)
		memset(st, 0, sizeof(*st));
	if (!hp->nroots)
		return 0;
	return gs_check_after(&sc, st, warn);
}

void
hr_watch_start(const struct hr_plan *hp, struct hr_watch *w)
{
	*w = (struct hr_watch){ .fd = -1 };
	for (size_t i = 0; i < hp->n; i++) {
		const struct hr_guard *g = &hp->g[i];
		char dir[PATH_MAX];
		const char *slash = strrchr(g->path, '/');

		if (g->kind != HR_MOUNT || g->is_dir || !slash || slash == g->path)
			continue;
		if (w->fd < 0) {
			if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
			    !(w->wd = malloc(hp->n * sizeof(*w->wd)))) {
				if (w->fd >= 0)
					close(w->fd);
				*w = (struct hr_watch){ .fd = -1 };
				return;
			}
			w->n = hp->n;
			for (size_t k = 0; k < w->n; k++)
				w->wd[k] = -1;
		}
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - g->path), g->path);
		w->wd[i] = inotify_add_watch(w->fd, dir, IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW);
	}
}

void
hr_watch_report(const struct hr_plan *hp, struct hr_watch *w,
		void (*warn)(const char *fmt, ...))
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool *said;
	ssize_t n;

	if (w->fd < 0)
		return;
	said = calloc(w->n ? w->n : 1, sizeof(*said));
	while (said && (n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;

			p += sizeof(*e) + e->len;
			for (size_t i = 0; e->len && i < w->n; i++) {
				const struct hr_guard *g = &hp->g[i];
				const char *base = strrchr(g->path, '/') + 1;
				size_t bl = strlen(base);
				char by[PATH_MAX + 64];

				if (w->wd[i] != e->wd || said[i] || strncmp(e->name, base, bl) != 0 ||
				    strcmp(e->name + bl, ".lock") != 0)
					continue;
				said[i] = true;
				warn("%s: something in the sandbox tried to change it (it made %s.lock, "
				     "as git does to rewrite a config) and could not (renaming over it "
				     "fails: \"Device or resource busy\"): %s keeps it read-only, %s; "
				     "change it outside the sandbox%s",
				     g->path, base, who(g, by, sizeof(by)),
				     g->because ? g->because : "the host runs what it says",
				     g->set == ART_SET_HOST_RUN
					 ? ", or give --protect-host-run=false (`unprotect host-run` in "
					   "a policy) to let the sandbox change what the host runs"
					 : "");
			}
		}
	}
	free(said);
	free(w->wd);
	close(w->fd);
	*w = (struct hr_watch){ .fd = -1 };
}

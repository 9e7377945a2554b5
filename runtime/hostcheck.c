/* SPDX-License-Identifier: MIT
 * What a sandbox could have written, checked by identity before the host
 * side runs, appends to or grants a path (hostcheck.h). */
#include "hostcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "grow.h"
#include "landlock_abi.h"
#include "landlock_table.h"
#include "pathexpand.h"

/* Linux's own limit on links followed in one lookup (path_resolution(7)). */
#define HC_MAX_LINKS 40
/* Directories deep: a path of PATH_MAX bytes has at most half as many. */
#define HC_MAX_DEPTH (PATH_MAX / 2)

/* ------------------------------------------------------------- places */

int
hc_places_add(struct hc_places *ps, const char *path, const char *why, bool earlier)
{
	struct hc_place *p = grow_array(ps->v, &ps->cap, ps->n + 1, sizeof(*p), 16);
	struct stat st;

	if (!p)
		return -ENOMEM;
	ps->v = p;
	p = &ps->v[ps->n];
	memset(p, 0, sizeof(*p));
	p->path = strdup(path);
	p->why = strdup(why);
	if (!p->path || !p->why) {
		free(p->path);
		free(p->why);
		return -ENOMEM;
	}
	p->earlier = earlier;
	/* Its identity now, following links as the sandbox's grant would be
	 * made (a grant that is a link at launch is refused there). */
	if (stat(path, &st) == 0) {
		p->exists = true;
		p->dev = st.st_dev;
		p->ino = st.st_ino;
	}
	ps->n++;
	return 0;
}

int
hc_places_init(struct hc_places *ps, char *const *env)
{
	char err[sizeof(ps->no_ledger_why)];
	char why[PATH_MAX + 32];
	int r;

	memset(ps, 0, sizeof(*ps));
	r = ledger_locate(&ps->lg, env);
	if (r == 0)
		r = ledger_load(&ps->lg, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "%.*s", (int)sizeof(ps->lg.none), ps->lg.none);
	if (r < 0) {
		/* Never skip a check that cannot be made: with nothing to say
		 * what earlier sandboxes could write, count everything this
		 * user can change. */
		ps->no_ledger = true;
		snprintf(ps->no_ledger_why, sizeof(ps->no_ledger_why), "%s", err);
		return hc_places_add(ps, "/", "no record of earlier runs", true);
	}
	for (size_t i = 0; i < ps->lg.n; i++) {
		snprintf(why, sizeof(why), "recorded in %s", ps->lg.file);
		if ((r = hc_places_add(ps, ps->lg.paths[i], why, true)) < 0)
			return r;
	}
	return 0;
}

int
hc_places_add_policy(struct hc_places *ps, const struct art_view *view,
		     const struct envb_launch *vars, char *err, size_t errlen)
{
	const uint8_t *payload;
	struct ll_table_view t;
	size_t len;

	if (art_landlock(view, &payload, &len) < 0 || ll_table_parse(payload, len, &t, NULL, 0) < 0)
		return 0;
	for (uint32_t i = 0; i < t.rule_count; i++) {
		struct ll_rule_view rv;
		struct px_info info;
		char path[PATH_MAX], why[PATH_MAX + 256], desc[256];
		int r;

		ll_table_rule(&t, i, &rv);
		if (rv.kind != LL_KIND_GRANT || !(rv.access & LL_FS_WRITE_RIGHTS))
			continue;
		r = px_expand(rv.path, envb_launch_lookup, (void *)vars, path, sizeof(path), &info);
		if (r == -ENOENT && (rv.flags & LL_RF_OPTIONAL))
			continue; /* the launch skips it: no sandbox of this run writes there */
		if (r < 0)
			return rt_error(
			    err, errlen, r,
			    "grant \"%s\" (writable): %s; heel cannot tell what the sandbox "
			    "may write, so it runs and opens nothing on the host",
			    rv.path, px_describe(&info, desc, sizeof(desc)));
		if (rv.origin) {
			char at[PATH_MAX];

			snprintf(why, sizeof(why), "grant \"%s\" %s at %s", rv.path,
				 (rv.access & LL_FS_EXECUTE) ? "rwx" : "rw",
				 rt_origin(at, sizeof(at), rv.origin, rv.origin_line));
		} else
			snprintf(why, sizeof(why), "grant \"%s\" %s", rv.path,
				 (rv.access & LL_FS_EXECUTE) ? "rwx" : "rw");
		if ((r = hc_places_add(ps, path, why, false)) < 0)
			return rt_error(err, errlen, r, "out of memory");
	}
	return 0;
}

void
hc_places_free(struct hc_places *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].path);
		free(ps->v[i].why);
	}
	free(ps->v);
	ledger_free(&ps->lg);
	memset(ps, 0, sizeof(*ps));
}

int
hc_record(struct hc_places *ps, char *err, size_t errlen)
{
	const char **paths = calloc(ps->n + 1, sizeof(*paths));
	size_t k = 0;
	int r;

	if (!paths)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	/* What is there now (a kept working directory made since the set
	 * was built included), and only what can hold something: a device
	 * granted rw (/dev/null) keeps nothing a sandbox writes to it. */
	for (size_t i = 0; i < ps->n; i++) {
		struct stat st;

		if (!ps->v[i].earlier && stat(ps->v[i].path, &st) == 0 &&
		    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			paths[k++] = ps->v[i].path;
	}
	r = k ? ledger_record(&ps->lg, paths, k, err, errlen) : 0;
	free(paths);
	return r;
}

/* --------------------------------------------------------------- walk */

struct level {
	int fd; /* O_PATH */
	struct stat st;
	int now, before; /* the place of this launch / of an earlier run it
			  * lies in (itself or an ancestor), or -1 */
	size_t len;	 /* of done at this level */
};

struct walk {
	const struct hc_places *ps;
	enum hc_use use;
	const char *what, *path;
	char done[PATH_MAX];
	struct level *lv;
	size_t top;   /* lv[0] is "/" */
	size_t cap;   /* of lv */
	bool missing; /* the walk stopped at a component that is not there */
	char *err;
	size_t errlen;
};

/* The place of this launch (earlier false) or an earlier run that is
 * the very object st, or -1. */
static int
place_is(const struct hc_places *ps, const struct stat *st, bool earlier)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].exists && ps->v[i].earlier == earlier && ps->v[i].dev == st->st_dev &&
		    ps->v[i].ino == st->st_ino)
			return (int)i;
	return -1;
}

/* Whether this user (a sandbox writes as its user) could change the
 * object open on fd: write it, or, for a directory, replace the entry
 * `child` in it. The owner may chmod what it owns, so owning counts; a
 * read-only mount or an immutable file does not. In a sticky directory
 * (/tmp) only the child's or the directory's owner replaces an entry. */
static bool
user_may_change(int fd, const struct stat *st, const struct stat *child)
{
	char proc[40];
	uid_t me = geteuid();

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (faccessat(AT_FDCWD, proc, W_OK, AT_EACCESS) < 0) {
		if (errno == EROFS || errno == EPERM || errno == ETXTBSY)
			return false;
		/* EACCES: the owner may still chmod it. Without /proc
		 * (ENOENT) nothing can be asked: it counts as changeable. */
		if (errno == EACCES && st->st_uid != me)
			return false;
	}
	if (child && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && me != 0)
		return st->st_uid == me || child->st_uid == me;
	return true;
}

static const char *
use_fix(enum hc_use use)
{
	switch (use) {
	case HC_RUN:
	case HC_START:
	case HC_RUN_TREE:
		return "heel runs nothing on the host that a sandbox could have changed";
	case HC_APPEND:
		return "the sandbox could replace the file with a link to one the host runs (such "
		       "as "
		       "~/.bashrc) or rewrite its own record: put it where the sandbox cannot "
		       "write";
	case HC_GRANT:
		return "a sandbox could have made it; name the place it points to instead";
	}
	return "";
}

/* Where the walk found what a sandbox could change. */
enum at_kind {
	AT_END,	 /* the object the path names */
	AT_DIR,	 /* a directory it passes through, or will be made in */
	AT_LINK, /* a symbolic link it crosses */
};

/* The refusal: `what path`, where `at` is, which place holds it and
 * why that place is writable, and what to do. */
static int
refuse(struct walk *w, int place, const char *at, enum at_kind kind)
{
	const struct hc_place *p = &w->ps->v[place];
	char where[2 * PATH_MAX + 64], who[PATH_MAX + 400];
	bool is_place = strcmp(at, p->path) == 0;

	if (kind == AT_LINK)
		snprintf(where, sizeof(where), "crosses the symbolic link %s, which lies in %s", at,
			 p->path);
	else if (kind == AT_END)
		snprintf(where, sizeof(where), "%s%s", is_place ? "is " : "lies in ", p->path);
	else if (is_place)
		snprintf(where, sizeof(where), "is in %s", at);
	else
		snprintf(where, sizeof(where), "is in %s, which lies in %s", at, p->path);
	if (!p->earlier)
		snprintf(who, sizeof(who), "which this launch's sandbox may write (%s)", p->why);
	else if (w->ps->no_ledger)
		snprintf(
		    who, sizeof(who),
		    "which this user can change, and heel has no record of what earlier "
		    "sandboxes could write (%s), so it counts every such place as written by one",
		    w->ps->no_ledger_why);
	else
		snprintf(who, sizeof(who),
			 "which a sandbox of an earlier run could write (%s; once you have checked "
			 "what is there, remove that line)",
			 p->why);
	return rt_error(w->err, w->errlen, -EPERM, "%s %s %s, %s: %s", w->what, w->path, where, who,
			use_fix(w->use));
}

/* Whether the place lv holds counts for this use and kind of object. */
static int
counting_place(const struct walk *w, const struct level *l, bool link)
{
	switch (w->use) {
	case HC_RUN:
	case HC_RUN_TREE:
		return l->now >= 0 ? l->now : l->before;
	case HC_START:
		return l->before;
	case HC_APPEND:
		/* A plain directory an earlier sandbox made changes nothing of
		 * what the host writes; a link it planted would. */
		return link ? (l->now >= 0 ? l->now : l->before) : l->now;
	case HC_GRANT:
		return link ? (l->now >= 0 ? l->now : l->before) : -1;
	}
	return -1;
}

static void
close_levels(struct walk *w)
{
	for (size_t i = 0; i <= w->top; i++)
		if (w->lv[i].fd >= 0)
			close(w->lv[i].fd);
	w->top = 0;
	w->lv[0].fd = -1;
}

static int
push(struct walk *w, int fd, const struct stat *st)
{
	struct level *parent, *l;

	/* Grown as the path goes deeper: most are a few levels, and a check
	 * per path named must not cost a mapping of the deepest possible. */
	if (w->top + 2 > w->cap) {
		l = grow_array(w->lv, &w->cap, w->top + 2, sizeof(*l), 16);
		if (!l) {
			close(fd);
			return rt_error(w->err, w->errlen, -ENOMEM, "out of memory");
		}
		w->lv = l;
	}
	parent = &w->lv[w->top];
	if (w->top + 1 >= HC_MAX_DEPTH) {
		close(fd);
		return rt_error(w->err, w->errlen, -ENAMETOOLONG, "%s %s: too deep", w->what,
				w->path);
	}
	l = &w->lv[++w->top];
	l->fd = fd;
	l->st = *st;
	l->now = parent->now >= 0 ? parent->now : place_is(w->ps, st, false);
	l->before = parent->before >= 0 ? parent->before : place_is(w->ps, st, true);
	l->len = strlen(w->done);
	return 0;
}

static void
pop(struct walk *w)
{
	if (w->top == 0)
		return;
	close(w->lv[w->top].fd);
	w->top--;
	w->done[w->top ? w->lv[w->top].len : 1] = '\0';
}

static int
add_component(struct walk *w, const char *comp)
{
	size_t n = strlen(w->done);

	if (n + 1 + strlen(comp) >= sizeof(w->done))
		return rt_error(w->err, w->errlen, -ENAMETOOLONG, "%s %s: too long once resolved",
				w->what, w->path);
	snprintf(w->done + n, sizeof(w->done) - n, "%s%s", n > 1 ? "/" : "", comp);
	return 0;
}

/* Walks w->path from "/", one component at a time, never following a
 * link the kernel would follow for us: each is judged, then followed by
 * hand. Leaves the levels open (close_levels). */
static int
walk(struct walk *w)
{
	char *rest = strdup(w->path), *p;
	size_t links = 0;
	struct stat st;
	int fd, r = 0;

	if (!rest)
		return rt_error(w->err, w->errlen, -ENOMEM, "out of memory");
	strcpy(w->done, "/");
	w->top = 0;
	w->lv[0].fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->lv[0].fd < 0 || fstat(w->lv[0].fd, &w->lv[0].st) < 0) {
		r = rt_error(w->err, w->errlen, -errno, "%s %s: /: %s", w->what, w->path,
			     strerror(errno));
		goto out;
	}
	w->lv[0].now = place_is(w->ps, &w->lv[0].st, false);
	w->lv[0].before = place_is(w->ps, &w->lv[0].st, true);
	w->lv[0].len = 1;
	for (p = rest; *p;) {
		char comp[NAME_MAX + 1];
		size_t n;
		bool last;
		int place;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			r = rt_error(w->err, w->errlen, -ENAMETOOLONG, "%s %s: a name is too long",
				     w->what, w->path);
			goto out;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		last = !p[strspn(p, "/")];
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			pop(w);
			continue;
		}
		fd = openat(w->lv[w->top].fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			w->missing = true;
			if ((r = add_component(w, comp)) == 0 &&
			    (w->use == HC_RUN || w->use == HC_START || w->use == HC_RUN_TREE ||
			     (w->use == HC_APPEND && !last)))
				r = rt_error(w->err, w->errlen, -ENOENT, "%s %s: %s does not exist",
					     w->what, w->path, w->done);
			goto out;
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			int e = errno;
			char at[PATH_MAX];

			/* The component that failed, unless it is the path itself. */
			snprintf(at, sizeof(at), "%s/%s", w->top ? w->done : "", comp);
			if (strcmp(at, w->path) == 0)
				r = rt_error(w->err, w->errlen, -e, "%s %s: %s", w->what, w->path,
					     strerror(e));
			else
				r = rt_error(w->err, w->errlen, -e, "%s %s: %s: %s", w->what, w->path,
					     at, strerror(e));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if ((r = add_component(w, comp)) < 0) {
			close(fd);
			goto out;
		}
		/* The entry can be replaced where the directory holding it
		 * lies in a place a sandbox writes, and its user may change
		 * the directory: whatever was checked could be swapped. */
		place = counting_place(w, &w->lv[w->top], S_ISLNK(st.st_mode));
		if (place >= 0 && user_may_change(w->lv[w->top].fd, &w->lv[w->top].st, &st)) {
			r = refuse(w, place, w->done,
				   S_ISLNK(st.st_mode) ? AT_LINK
				   : last	       ? AT_END
						       : AT_DIR);
			close(fd);
			goto out;
		}
		/* A sink's own name is never followed (O_NOFOLLOW): a link
		 * there is one reason the check exists. */
		if (S_ISLNK(st.st_mode) && last && w->use == HC_APPEND) {
			close(fd);
			r = rt_error(
			    w->err, w->errlen, -ELOOP,
			    "%s %s is a symbolic link; heel appends only to a file of its own",
			    w->what, w->path);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], *joined;
			ssize_t len = readlinkat(fd, "", target, sizeof(target) - 1);

			close(fd);
			if (len < 0 || ++links > HC_MAX_LINKS) {
				r = rt_error(w->err, w->errlen, len < 0 ? -errno : -ELOOP,
					     "%s %s: the link %s: %s", w->what, w->path, w->done,
					     len < 0 ? strerror(errno)
						     : "too many levels of links");
				goto out;
			}
			target[len] = '\0';
			if (asprintf(&joined, "%s/%s", target, p) < 0) {
				r = rt_error(w->err, w->errlen, -ENOMEM, "out of memory");
				goto out;
			}
			free(rest);
			rest = p = joined;
			/* The link's own name goes; an absolute target starts
			 * again at the root. */
			w->done[w->top ? w->lv[w->top].len : 1] = '\0';
			if (target[0] == '/')
				while (w->top)
					pop(w);
			continue;
		}
		if (!last && !S_ISDIR(st.st_mode)) {
			close(fd);
			r = rt_error(w->err, w->errlen, -ENOTDIR, "%s %s: %s is not a directory",
				     w->what, w->path, w->done);
			goto out;
		}
		if ((r = push(w, fd, &st)) < 0)
			goto out;
	}
out:
	free(rest);
	return r;
}

/* Whether a place (of any run) lies beneath the directory at lv: its
 * ancestors, by identity, include it. */
static int
place_beneath(const struct walk *w, const struct level *l)
{
	for (size_t i = 0; i < w->ps->n; i++) {
		const struct hc_place *p = &w->ps->v[i];
		struct stat st;
		int fd;

		if (!p->exists || (p->dev == l->st.st_dev && p->ino == l->st.st_ino))
			continue;
		fd = open(p->path, O_PATH | O_CLOEXEC);
		for (int depth = 0; fd >= 0 && depth < HC_MAX_DEPTH; depth++) {
			int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			close(fd);
			fd = up;
			if (fd < 0 || fstat(fd, &st) < 0)
				break;
			if (st.st_dev == l->st.st_dev && st.st_ino == l->st.st_ino) {
				close(fd);
				return (int)i;
			}
			if (st.st_dev == w->lv[0].st.st_dev && st.st_ino == w->lv[0].st.st_ino)
				break;
		}
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

/* The object the walk ended at, for its use. */
static int
judge_end(struct walk *w)
{
	struct level *l = &w->lv[w->top];
	int place, below;

	switch (w->use) {
	case HC_RUN:
	case HC_START:
		if (!S_ISREG(l->st.st_mode))
			return rt_error(w->err, w->errlen, -EACCES,
					"%s %s: %s is not a regular file", w->what, w->path,
					w->done);
		break;
	case HC_RUN_TREE:
		if (!S_ISDIR(l->st.st_mode))
			return rt_error(w->err, w->errlen, -ENOTDIR, "%s %s: not a directory",
					w->what, w->path);
		if ((below = place_beneath(w, l)) >= 0) {
			const struct hc_place *p = &w->ps->v[below];

			return rt_error(w->err, w->errlen, -EPERM,
					"%s %s holds %s, which %s (%s): %s", w->what, w->path,
					p->path,
					p->earlier ? "a sandbox of an earlier run could write"
						   : "this launch's sandbox may write",
					p->why, use_fix(w->use));
		}
		break;
	case HC_APPEND:
		/* A missing file: whoever may write the directory may make
		 * it, a link included. */
		break;
	case HC_GRANT:
		return 0;
	}
	place = counting_place(w, l, false);
	if (place < 0 || !user_may_change(l->fd, &l->st, NULL))
		return 0;
	if (w->missing) {
		/* The file would be made in l: name the directory. */
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", (int)l->len, w->done);
		return refuse(w, place, dir, AT_DIR);
	}
	return refuse(w, place, w->done, AT_END);
}

static int
run_walk(struct walk *w)
{
	int r;

	if (!w->path || w->path[0] != '/')
		return rt_error(w->err, w->errlen, -EINVAL, "%s %s: not an absolute path", w->what,
				w->path ? w->path : "(none)");
	w->lv = grow_array(NULL, &w->cap, 1, sizeof(*w->lv), 16);
	if (!w->lv)
		return rt_error(w->err, w->errlen, -ENOMEM, "out of memory");
	w->lv[0].fd = -1;
	r = walk(w);
	if (r == 0 && (!w->missing || w->use == HC_APPEND))
		r = judge_end(w);
	return r;
}

/* The interpreter a script names on its `#!` line (execve(2),
 * "Interpreter scripts"), into out; false when the file open on fd (an
 * O_PATH descriptor) is no such script, cannot be read, or names one that
 * is not an absolute path (the kernel would look a relative one up from
 * wherever its caller stands: such a script is not checked further). */
static bool
interpreter_of(int fd, char *out, size_t len)
{
	char proc[40], head[256];
	ssize_t n;
	size_t i = 2, s;
	int rd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rd < 0)
		return false;
	n = read(rd, head, sizeof(head) - 1);
	close(rd);
	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	head[n] = '\0';
	while (head[i] == ' ' || head[i] == '\t')
		i++;
	s = i;
	while (head[i] && !strchr(" \t\r\n", head[i]))
		i++;
	if (head[s] != '/' || i - s >= len)
		return false;
	memcpy(out, head + s, i - s);
	out[i - s] = '\0';
	return true;
}

/* How many `#!` interpreters in a row are followed (Linux follows four,
 * BINPRM_MAX_RECURSION). */
#define HC_MAX_INTERPRETERS 4

static int
check_depth(const struct hc_places *ps, enum hc_use use, const char *what, const char *path,
	    int depth, char *err, size_t errlen)
{
	struct walk w = {
	    .ps = ps, .use = use, .what = what, .path = path, .err = err, .errlen = errlen};
	char interp[PATH_MAX], *iwhat = NULL;
	bool script = false;
	int r = run_walk(&w);

	/* A script runs its interpreter: that too is what the host runs. */
	if (r == 0 && (use == HC_RUN || use == HC_START) && depth < HC_MAX_INTERPRETERS)
		script = interpreter_of(w.lv[w.top].fd, interp, sizeof(interp));
	if (w.lv)
		close_levels(&w);
	free(w.lv);
	if (!script)
		return r;
	if (asprintf(&iwhat, "%s %s names on its #! line the interpreter", what, path) < 0)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	r = check_depth(ps, use, iwhat, interp, depth + 1, err, errlen);
	free(iwhat);
	return r;
}

int
hc_check(const struct hc_places *ps, enum hc_use use, const char *what, const char *path, char *err,
	 size_t errlen)
{
	return check_depth(ps, use, what, path, 0, err, errlen);
}

const char *
hc_sink_fd_problem(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return "cannot be looked at";
	if (!S_ISREG(st.st_mode))
		return "is not a regular file";
	if (st.st_uid != geteuid())
		return "belongs to another user";
	if (st.st_nlink != 1)
		return "has more than one name (a hard link to another file)";
	return NULL;
}

int
hc_open_append(const struct hc_places *ps, const char *what, const char *path, bool dir, int *fd,
	       char *err, size_t errlen)
{
	struct walk w = {
	    .ps = ps, .use = HC_APPEND, .what = what, .path = path, .err = err, .errlen = errlen};
	char name[NAME_MAX + 1];
	const char *problem;
	int r = run_walk(&w);

	*fd = -1;
	if (r < 0)
		goto out;
	if (dir) {
		if (w.missing || !S_ISDIR(w.lv[w.top].st.st_mode)) {
			r = rt_error(err, errlen, w.missing ? -ENOENT : -ENOTDIR,
				     "%s %s %s (heel makes no directories for it)", what, path,
				     w.missing ? "does not exist" : "is not a directory");
			goto out;
		}
		*fd = w.lv[w.top].fd;
		w.lv[w.top].fd = -1;
		goto out;
	}
	/* The file itself: opened from the directory the walk holds. */
	if (!w.missing && !S_ISREG(w.lv[w.top].st.st_mode)) {
		bool is_dir = S_ISDIR(w.lv[w.top].st.st_mode);

		r = rt_error(err, errlen, is_dir ? -EISDIR : -EINVAL, "%s %s is %s", what, path,
			     is_dir ? "a directory" : "not a regular file");
		goto out;
	}
	snprintf(name, sizeof(name), "%s", strrchr(w.done, '/') + 1);
	if (!w.missing)
		pop(&w);
	*fd = openat(w.lv[w.top].fd, name,
		     O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		     0600);
	if (*fd < 0) {
		r = rt_error(err, errlen, -errno, "%s %s: %s", what, path,
			     errno == ELOOP ? "a symbolic link" : strerror(errno));
		goto out;
	}
	if ((problem = hc_sink_fd_problem(*fd))) {
		close(*fd);
		*fd = -1;
		r = rt_error(err, errlen, -EPERM,
			     "%s %s %s; heel appends only to a file of its own", what, path,
			     problem);
	}
out:
	if (w.lv)
		close_levels(&w);
	free(w.lv);
	return r;
}

/* SPDX-License-Identifier: MIT
 * The sandbox's own caches for package tools (see toolcache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "grow.h"
#include "ir.h"
#include "toolcache.h"
#include "userdirs.h"
#include "workdir.h"

/* Each tool's variable, and where in the project's cache it points. A
 * variable that names more than a cache is not here: CARGO_HOME also
 * holds cargo's configuration, installed programs and the crates the
 * host fetched (which the <rust> preset reads), so it is set only where
 * the user has none (see cargo_home_missing). pnpm's store is not here
 * either: npm warns about every npm_config_ name it does not know. */
static const struct {
	const char *name;
	const char *sub;
	const char *format; /* of the value, %s the directory; NULL: "%s" */
} tools[] = {
	{ "npm_config_cache", "npm", NULL },
	{ "YARN_CACHE_FOLDER", "yarn", NULL },
	{ "PIP_CACHE_DIR", "pip", NULL },
	{ "UV_CACHE_DIR", "uv", NULL },
	{ "GOCACHE", "go-build", NULL },
	{ "GOMODCACHE", "go-mod", NULL },
	{ "GRADLE_USER_HOME", "gradle", NULL },
	/* Maven reads its local repository from this property; MAVEN_OPTS
	 * is the JVM's options, which no default policy passes. */
	{ "MAVEN_OPTS", "maven", "-Dmaven.repo.local=%s" },
	{ "CARGO_HOME", "cargo", NULL },
};

bool
tc_policy_decides(const struct art_view *view, const char *name, char *const *env)
{
	struct art_env e;

	for (size_t i = 0; i < art_env_count(view); i++) {
		if (art_env_at(view, i, &e) < 0 || !(e.platforms & ART_PLAT_BIT(ART_LINUX)) ||
		    strcmp(e.name, name) != 0)
			continue;
		if (e.kind == ART_ENV_SET || envb_lookup(env, name))
			return true;
	}
	return false;
}

/* cargo's own home, where the user has one: then it stays the host's,
 * read-only (the crates fetched on the host build offline). */
static bool
cargo_home_missing(char *const *env)
{
	char home[PATH_MAX], path[PATH_MAX + 8];
	const char *ch = envb_lookup(env, "CARGO_HOME");
	struct stat st;

	if (ch && ch[0])
		return false;
	if (ud_home(env, home, sizeof(home)) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/.cargo", home);
	return lstat(path, &st) < 0 && errno == ENOENT;
}

/* The project's name in the cache: the last component of its path (as
 * much as is plain), and 16 hex digits of the SHA-256 of the whole path,
 * so that two projects never share a cache. */
static void
project_name(const char *cwd, char *out, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const char *base = strrchr(cwd, '/');
	uint8_t d[SHA256_DIGEST_SIZE];
	struct sha256_ctx h;
	char plain[33];
	size_t n = 0;

	base = base && base[1] ? base + 1 : "root";
	for (; *base && n < sizeof(plain) - 1; base++)
		plain[n++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
				     (*base >= '0' && *base <= '9') || *base == '.' || *base == '_' ||
				     *base == '-'
			     ? *base
			     : '_';
	plain[n] = '\0';
	if (plain[0] == '.')
		plain[0] = '_'; /* never a hidden name: those are heel's own */
	sha256_init(&h);
	sha256_update(&h, strlen(cwd), (const uint8_t *)cwd);
	sha256_digest(&h, sizeof(d), d);
	n = (size_t)snprintf(out, len, "%s-", plain);
	for (size_t i = 0; i < 8 && n + 2 < len; i++) {
		out[n++] = digits[d[i] >> 4];
		out[n++] = digits[d[i] & 15];
	}
	out[n < len ? n : len - 1] = '\0';
}

/* A directory of ours, no link, writable by no one else. */
static const char *
not_ours(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "is not a directory";
	if (st.st_uid != geteuid())
		return "is owned by another user";
	if (st.st_mode & 022)
		return "is writable by others";
	return NULL;
}

/* Opens `name` in dfd, made 0700 when missing, never through a link. */
static int
open_made(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
			return -1;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/* The base of every project's cache, opened: the cache home as the user
 * spells it (made 0700 when missing), then heel-sandbox beneath it. A
 * descriptor, or -1 with why. */
static int
open_base(char *const *env, char *path, size_t len, char *why, size_t whylen)
{
	char home[PATH_MAX];
	const char *bad;
	int r, hfd, fd;

	if ((r = ud_cache_home(env, home, sizeof(home))) < 0) {
		snprintf(why, whylen, "no cache home (%s)",
			 r == -ENOENT ? "HOME is not set, and /etc/passwd gives no home"
				      : "HOME is not an absolute path");
		return -1;
	}
	if ((size_t)snprintf(path, len, "%s/" TC_BASE_NAME, strcmp(home, "/") ? home : "") >= len) {
		snprintf(why, whylen, "%s: path too long", home);
		return -1;
	}
	if (mkdir(home, 0700) < 0 && errno != EEXIST) {
		snprintf(why, whylen, "%s: %s", home, strerror(errno));
		return -1;
	}
	hfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (hfd < 0) {
		snprintf(why, whylen, "%s: %s", home, strerror(errno));
		return -1;
	}
	fd = open_made(hfd, TC_BASE_NAME);
	if (fd < 0)
		snprintf(why, whylen, "%s: %s", path,
			 errno == ENOTDIR || errno == ELOOP ? "is not a directory (a link?)" : strerror(errno));
	close(hfd);
	if (fd >= 0 && (bad = not_ours(fd))) {
		snprintf(why, whylen, "%s %s", path, bad);
		close(fd);
		return -1;
	}
	return fd;
}

int
tc_plan(struct tc_plan *tp, const struct art_view *view, const char *cwd, char *const *env,
	enum settings_tri want)
{
	char base[PATH_MAX], name[64], sub[PATH_MAX + 16];
	struct art_scalar iso;
	const char *bad;
	int bfd, fd;

	memset(tp, 0, sizeof(*tp));
	if (want == TRI_OFF) {
		snprintf(tp->why, sizeof(tp->why), "--tool-caches=false");
		return 0;
	}
	/* strict keeps nothing of the user's, and nothing from one run to
	 * the next unless asked. permissive writes the home, the tools' own
	 * caches with it: a cache of the sandbox's would protect nothing,
	 * and its writable grant inside the rwx home would leave the
	 * directories on its way unable to run what is made in them. */
	if (want == TRI_UNSET && art_scalar(view, ART_LINUX, ART_SC_ISOLATION, &iso) == 0 &&
	    iso.set && (iso.value == IR_ISO_STRICT || iso.value == IR_ISO_PERMISSIVE)) {
		snprintf(tp->why, sizeof(tp->why), "isolation %s (--tool-caches adds them)",
			 iso.value == IR_ISO_STRICT ? "strict" : "permissive");
		return 0;
	}
	/* Inside a heel sandbox (heel run in heel run): the tools' variables
	 * already name the outer sandbox's caches, which are this one's
	 * too; a second grant of them would only put the outer policy's
	 * denies (${CARGO_HOME}/credentials) inside a writable place. */
	if (want == TRI_UNSET && (bad = envb_lookup(env, "HEEL_SANDBOX")) && strcmp(bad, "1") == 0) {
		snprintf(tp->why, sizeof(tp->why),
			 "inside a heel sandbox, whose caches stay as they are (--tool-caches adds them)");
		return 0;
	}
	if ((bfd = open_base(env, base, sizeof(base), tp->why, sizeof(tp->why))) < 0) {
		tp->warn = 1;
		return 0;
	}
	project_name(cwd, name, sizeof(name));
	fd = open_made(bfd, name);
	if (fd < 0 || (bad = not_ours(fd))) {
		snprintf(tp->why, sizeof(tp->why), "%s/%s %s", base, name,
			 fd < 0 ? strerror(errno) : bad);
		tp->warn = 1;
		if (fd >= 0)
			close(fd);
		close(bfd);
		return 0;
	}
	/* Used now: the last to be pruned. */
	futimens(fd, NULL);
	close(fd);
	close(bfd);
	if ((size_t)snprintf(tp->dir, sizeof(tp->dir), "%s/%s", base, name) >= sizeof(tp->dir)) {
		snprintf(tp->why, sizeof(tp->why), "%s: path too long", base);
		tp->dir[0] = '\0';
		tp->warn = 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]) && tp->nvars < TC_MAX_VARS; i++) {
		struct tc_var *v = &tp->vars[tp->nvars];

		if (tc_policy_decides(view, tools[i].name, env))
			continue;
		if (strcmp(tools[i].name, "CARGO_HOME") == 0 && !cargo_home_missing(env))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", tp->dir, tools[i].sub);
		/* A JVM option is split at blanks: a path with one cannot be
		 * said in MAVEN_OPTS. */
		if (tools[i].format && strpbrk(sub, " \t"))
			continue;
		v->name = tools[i].name;
		snprintf(v->value, sizeof(v->value), tools[i].format ? tools[i].format : "%s", sub);
		tp->nvars++;
	}
	return 0;
}

/* -------------------------------------------------------------- pruning */

struct project {
	char name[NAME_MAX + 1];
	time_t used;
};

static int
oldest_first(const void *a, const void *b)
{
	time_t x = ((const struct project *)a)->used, y = ((const struct project *)b)->used;

	return x < y ? -1 : x > y;
}

/* Out of the way first (a launch that starts now makes a fresh one),
 * then removed. */
static void
remove_project(int bfd, const char *name)
{
	char trash[NAME_MAX + 16];

	snprintf(trash, sizeof(trash), ".trash-%.200s", name);
	if (renameat(bfd, name, bfd, trash) == 0)
		wd_remove_tree_at(bfd, trash);
}

void
tc_prune(char *const *env)
{
	char base[PATH_MAX], why[PATH_MAX + 64];
	struct project *v = NULL, *g;
	size_t n = 0, cap = 0, excess;
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	int bfd, dfd, sfd;
	DIR *d;

	if ((bfd = open_base(env, base, sizeof(base), why, sizeof(why))) < 0)
		return;
	if (fstatat(bfd, ".pruned", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    now - st.st_mtime < 24 * 3600 && st.st_mtime <= now) {
		close(bfd);
		return;
	}
	sfd = openat(bfd, ".pruned", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (sfd >= 0) {
		futimens(sfd, NULL);
		close(sfd);
	}
	if ((dfd = dup(bfd)) < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		close(bfd);
		return;
	}
	while ((e = readdir(d))) {
		if (fstatat(bfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* What an earlier prune could not finish. */
		if (strncmp(e->d_name, ".trash-", 7) == 0) {
			wd_remove_tree_at(bfd, e->d_name);
			continue;
		}
		if (e->d_name[0] == '.' || !(g = grow_array(v, &cap, n + 1, sizeof(*v), 64)))
			continue;
		v = g;
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n++].used = st.st_mtime;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), oldest_first);
	excess = n > TC_MAX_PROJECTS ? n - TC_MAX_PROJECTS : 0;
	for (size_t i = 0; i < n; i++)
		if (i < excess || now - v[i].used > (time_t)TC_MAX_AGE_DAYS * 24 * 3600)
			remove_project(bfd, v[i].name);
	free(v);
	close(bfd);
}

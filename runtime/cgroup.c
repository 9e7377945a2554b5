/* SPDX-License-Identifier: MIT
 * The sandbox's cgroup, v2 or v1; see cgroup.h. */
#include "cgroup.h"
#include "write_once.h"
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* v1 hierarchies are named by their controller; under v2 CG_CPU needs
 * none to be enabled (cpu.stat's usage_usec is the core's). */
static const char *const v1_names[CG_CTL_COUNT] = { "pids", "memory", "cpuacct" };
static const char *const v2_names[CG_CTL_COUNT] = { "pids", "memory", NULL };
static const char *const policy_names[CG_CTL_COUNT] = { "processes", "memory", "cpu" };

const char *
cg_dir_name(const struct cg *cg)
{
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (cg->dir[c][0])
			return cg->dir[c];
	return "";
}

const char *
cg_ctl_name(int ctl)
{
	return ctl >= 0 && ctl < CG_CTL_COUNT ? policy_names[ctl] : "?";
}

static void
say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Reads a small file whole; the cgroup and proc files we read are. */
static ssize_t
read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	n = n < 0 ? -errno : got;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* One write, as cgroupfs wants it: a value is parsed from a single
 * write() and an error comes back from that write. */
static int
write_str(const char *dir, const char *file, const char *text)
{
	char path[CG_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_once(path, text);
}

static bool
file_exists(const char *dir, const char *file)
{
	char path[CG_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Whether word is one of the tokens of list (separated by sep chars). */
static bool
has_word(const char *list, const char *word, const char *sep)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, sep);

		if (n == wl && strncmp(p, word, wl) == 0)
			return true;
		p += n;
		p += strspn(p, sep);
	}
	return false;
}

struct mnt {
	char point[CG_PATH_MAX]; /* "" when not mounted */
	char root[CG_PATH_MAX];  /* the part of the hierarchy the mount shows */
};

/* The cgroup2 mount and the v1 mount of each controller. */
static int
read_mounts(const char *root, struct mnt *v2, struct mnt v1[CG_CTL_COUNT])
{
	char path[CG_PATH_MAX + 32], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mroot[CG_PATH_MAX], point[CG_PATH_MAX], type[32], super[1024];
		char *sep = strstr(line, " - ");

		/* "id parent maj:min root point opts [optional...] - type src super" */
		if (!sep || sscanf(line, "%*s %*s %*s %511s %511s", mroot, point) != 2 ||
		    sscanf(sep + 3, "%31s %*s %1023s", type, super) != 2)
			continue;
		mountinfo_unescape(mroot);
		mountinfo_unescape(point);
		if (strcmp(type, "cgroup2") == 0 && !v2->point[0]) {
			snprintf(v2->point, sizeof(v2->point), "%s", point);
			snprintf(v2->root, sizeof(v2->root), "%s", mroot);
		} else if (strcmp(type, "cgroup") == 0) {
			for (int c = 0; c < CG_CTL_COUNT; c++)
				if (!v1[c].point[0] && has_word(super, v1_names[c], ",")) {
					snprintf(v1[c].point, sizeof(v1[c].point), "%s", point);
					snprintf(v1[c].root, sizeof(v1[c].root), "%s", mroot);
				}
		}
	}
	fclose(f);
	return 0;
}

/* Our cgroup: under v2 (v1_name NULL) the "0::" line, else the line of
 * the hierarchy that has v1_name. */
static int
own_cgroup(const char *root, const char *v1_name, char *out, size_t outlen)
{
	char path[CG_PATH_MAX + 32], line[4096];
	int r = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (r < 0 && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (v1_name ? (strcmp(line, "0") != 0 && has_word(c1 + 1, v1_name, ","))
			    : (strcmp(line, "0") == 0 && c1[1] == '\0')) {
			snprintf(out, outlen, "%s", c2 + 1);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* The directory of cgroup `cg` (a path in the hierarchy) under mount m:
 * a mount may show part of the hierarchy only (a bind mount, a cgroup
 * namespace), and a cgroup outside that part is out of reach. */
static int
cgroup_dir(const char *root, const struct mnt *m, const char *cgpath, char *out, size_t outlen)
{
	size_t rl = strlen(m->root);
	const char *rel = cgpath;

	if (strcmp(m->root, "/") != 0) {
		if (strncmp(cgpath, m->root, rl) != 0 || (cgpath[rl] && cgpath[rl] != '/'))
			return -ENOENT;
		rel = cgpath + rl;
	}
	while (*rel == '/')
		rel++;
	if ((size_t)snprintf(out, outlen, "%s%s%s%s", root, m->point, *rel ? "/" : "", rel) >=
	    outlen)
		return -ENAMETOOLONG;
	return 0;
}

static int
locate_v2(struct cg *cg, const struct mnt *m, unsigned want, unsigned *offer, char *err,
	  size_t errlen)
{
	char own[CG_PATH_MAX], dir[CG_PATH_MAX], path[CG_PATH_MAX + 32], ctrls[256];
	char *slash;
	int r;

	*offer = 0;
	if (!m->point[0])
		return -ENOENT;
	snprintf(cg->v2_point, sizeof(cg->v2_point), "%s", m->point);
	if ((r = own_cgroup(cg->root, NULL, own, sizeof(own))) < 0 ||
	    (r = cgroup_dir(cg->root, m, own, dir, sizeof(dir))) < 0) {
		say(err, errlen, "our cgroup v2 is not under %s", m->point);
		return r;
	}
	/* Beside ours, unless ours is the root of what we see: a cgroup
	 * with processes cannot give its children controllers (cgroup v2's
	 * "no internal processes" rule), so `heel` goes into our parent,
	 * which may be the root (ours is then one level down: /init.scope). */
	if (strcmp(own, "/") != 0 && (slash = strrchr(dir, '/')) &&
	    (size_t)(slash - dir) >= strlen(cg->root) + strlen(m->point))
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (read_small(path, ctrls, sizeof(ctrls)) < 0)
		ctrls[0] = '\0';
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if ((want ? want : CG_BIT(CG_PIDS)) & CG_BIT(c)) {
			if (!v2_names[c] || has_word(ctrls, v2_names[c], " \n"))
				*offer |= CG_BIT(c);
			if ((size_t)snprintf(cg->base[c], sizeof(cg->base[c]), "%s/heel", dir) >=
			    sizeof(cg->base[c]))
				return -ENAMETOOLONG;
		}
	return 0;
}

static int
locate_v1(struct cg *cg, const struct mnt m[CG_CTL_COUNT], unsigned want, unsigned *offer,
	  char *err, size_t errlen)
{
	char own[CG_PATH_MAX], dir[CG_PATH_MAX];

	*offer = 0;
	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!((want ? want : CG_BIT(CG_PIDS)) & CG_BIT(c)) || !m[c].point[0])
			continue;
		if (own_cgroup(cg->root, v1_names[c], own, sizeof(own)) < 0 ||
		    cgroup_dir(cg->root, &m[c], own, dir, sizeof(dir)) < 0) {
			say(err, errlen, "our %s cgroup is not under %s", v1_names[c], m[c].point);
			continue;
		}
		if ((size_t)snprintf(cg->base[c], sizeof(cg->base[c]), "%s/heel", dir) >=
		    sizeof(cg->base[c]))
			continue;
		*offer |= CG_BIT(c);
	}
	return *offer ? 0 : -ENOENT;
}

static int
popcount(unsigned x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

int
cg_locate(struct cg *cg, const char *root, unsigned want, char *err, size_t errlen)
{
	struct mnt v2 = { 0 }, v1[CG_CTL_COUNT] = { 0 };
	struct cg c1, c2;
	unsigned o1 = 0, o2 = 0;
	char e1[256] = "", e2[256] = "";
	int r, r1, r2;

	*cg = (struct cg){ 0 };
	snprintf(cg->root, sizeof(cg->root), "%s", root);
	if ((r = read_mounts(root, &v2, v1)) < 0) {
		say(err, errlen, "%s/proc/self/mountinfo: %s", root, strerror(-r));
		return r;
	}
	c1 = c2 = *cg;
	r2 = locate_v2(&c2, &v2, want, &o2, e2, sizeof(e2));
	r1 = locate_v1(&c1, v1, want, &o1, e1, sizeof(e1));
	if (r2 < 0 && r1 < 0) {
		if (e2[0] || e1[0])
			say(err, errlen, "%s", e2[0] ? e2 : e1);
		else
			say(err, errlen, "no cgroup file system is mounted");
		return -ENOENT;
	}
	/* A hybrid host mounts cgroup2 for process tracking only and keeps
	 * the controllers in v1: there v1 offers more. */
	if (r2 == 0 && (r1 < 0 || popcount(o2) > popcount(o1))) {
		*cg = c2;
		cg->version = 2;
		cg->ctls = want ? o2 : 0;
	} else {
		*cg = c1;
		cg->version = 1;
		cg->ctls = want ? o1 : 0;
	}
	/* Only what we were asked for has a place. */
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (want && !(cg->ctls & CG_BIT(c)))
			cg->base[c][0] = '\0';
	return 0;
}

/* The hierarchies are distinct directories; v1 may mount several
 * controllers together (cpu,cpuacct) and v2 has one for all. */
static bool
first_of_dir(int c, const char (*paths)[CG_PATH_MAX])
{
	if (!paths[c][0])
		return false;
	for (int i = 0; i < c; i++)
		if (strcmp(paths[i], paths[c]) == 0)
			return false;
	return true;
}

/* v2: `heel`'s children get the controllers only if its parent has them
 * enabled for it, and `heel` enables them for its children. */
/* Whether `dir` is the root of the cgroup v2 mount we use. */
static bool
is_mount_root(const struct cg *cg, const char *dir)
{
	size_t n = strlen(cg->root);

	return strncmp(dir, cg->root, n) == 0 && strcmp(dir + n, cg->v2_point) == 0;
}

/* Whether processes are members of `dir` itself (not of descendants). */
static bool
has_procs(const char *dir)
{
	char path[CG_PATH_MAX + 32], buf[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return read_small(path, buf, sizeof(buf)) > 0;
}

static int
enable_v2(const struct cg *cg, const char *dir, char *err, size_t errlen)
{
	char path[CG_PATH_MAX + 32], cur[256], add[64] = "";
	int r;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if ((r = (int)read_small(path, cur, sizeof(cur))) < 0) {
		say(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if ((cg->ctls & CG_BIT(c)) && v2_names[c] && !has_word(cur, v2_names[c], " \n")) {
			strcat(add, add[0] ? " +" : "+");
			strcat(add, v2_names[c]);
		}
	/* Never in a cgroup that holds processes (the root excepted): the
	 * kernel refuses the domain controllers there, but takes a threaded
	 * one such as pids, which turns the cgroup, and whatever runs in it,
	 * into a threaded subtree for good. */
	if (add[0] && !is_mount_root(cg, dir) && has_procs(dir)) {
		say(err, errlen, "%s has processes of its own, so cgroup v2 lets it give its "
			    "children no %s controller", dir, add + 1);
		return -EBUSY;
	}
	if (add[0] && (r = write_str(dir, "cgroup.subtree_control", add)) < 0) {
		say(err, errlen, "%s: enabling %s: %s", path, add, strerror(-r));
		return r;
	}
	return 0;
}

static void
random_name(char *out, size_t len)
{
	uint32_t rnd = 0;

	if (syscall(SYS_getrandom, &rnd, sizeof(rnd), 0) != (long)sizeof(rnd)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		rnd = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec;
	}
	snprintf(out, len, "heel-%d-%08" PRIx32, (int)getpid(), rnd);
}

/* Removes what cg_create made so far: the cgroups, then `heel` where
 * it is empty (another launch's cgroup in it keeps it: ENOTEMPTY or
 * EBUSY, which is fine). */
static int
undo(struct cg *cg)
{
	int r = 0;

	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!first_of_dir(c, cg->dir))
			continue;
		/* Tasks that have exited but are not yet released stay
		 * listed for a moment (EBUSY). */
		for (int tries = 0; rmdir(cg->dir[c]) < 0; tries++) {
			if (errno == ENOENT)
				break;
			if (errno != EBUSY || tries >= 1000) {
				r = -errno;
				break;
			}
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		}
	}
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (first_of_dir(c, cg->base))
			rmdir(cg->base[c]);
	for (int c = 0; c < CG_CTL_COUNT; c++)
		cg->dir[c][0] = '\0';
	cg->made = false;
	return r;
}

int
cg_create(struct cg *cg, char *err, size_t errlen)
{
	char name[64];
	int r = 0;

	random_name(name, sizeof(name));
	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!cg->base[c][0])
			continue;
		if ((size_t)snprintf(cg->dir[c], sizeof(cg->dir[c]), "%s/%s", cg->base[c], name) >=
		    sizeof(cg->dir[c])) {
			say(err, errlen, "%s: path too long", cg->base[c]);
			r = -ENAMETOOLONG;
			goto fail;
		}
	}
	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!first_of_dir(c, cg->base))
			continue;
		/* Another launch may remove an empty `heel` between our
		 * mkdir of it and of ours in it: then make it again. */
		for (int tries = 0;; tries++) {
			if (mkdir(cg->base[c], 0755) < 0 && errno != EEXIST) {
				r = -errno;
				say(err, errlen, "mkdir %s: %s", cg->base[c], strerror(errno));
				goto fail;
			}
			if (cg->version == 2) {
				char parent[CG_PATH_MAX];

				snprintf(parent, sizeof(parent), "%s", cg->base[c]);
				*strrchr(parent, '/') = '\0';
				if ((r = enable_v2(cg, parent, err, errlen)) < 0 ||
				    (r = enable_v2(cg, cg->base[c], err, errlen)) < 0)
					goto fail;
			}
			if (mkdir(cg->dir[c], 0755) == 0)
				break;
			r = -errno;
			if (errno != ENOENT || tries >= 3) {
				say(err, errlen, "mkdir %s: %s", cg->dir[c], strerror(errno));
				goto fail;
			}
		}
		cg->made = true;
	}
	return 0;
fail:
	undo(cg);
	return r;
}

int
cg_set_limits(const struct cg *cg, uint64_t pids, uint64_t mem, char *err, size_t errlen)
{
	char v[32];
	const char *dir = cg->dir[CG_PIDS], *file = "";
	int r = 0;

	if (pids && dir[0]) {
		snprintf(v, sizeof(v), "%" PRIu64, pids);
		if ((r = write_str(dir, file = "pids.max", v)) < 0)
			goto fail;
	}
	dir = cg->dir[CG_MEMORY];
	if (mem && dir[0]) {
		snprintf(v, sizeof(v), "%" PRIu64, mem);
		if (cg->version == 2) {
			if ((r = write_str(dir, file = "memory.max", v)) < 0)
				goto fail;
			/* Without swap accounting (swapaccount=0, no
			 * CONFIG_MEMCG_SWAP) the file is absent, and the
			 * kernel charges no swap to the cgroup either:
			 * memory.max is then the whole wall. */
			if (file_exists(dir, "memory.swap.max") &&
			    (r = write_str(dir, file = "memory.swap.max", "0")) < 0)
				goto fail;
		} else {
			/* memsw counts memory plus swap and may never be below
			 * the memory limit: the memory limit goes first. */
			if ((r = write_str(dir, file = "memory.limit_in_bytes", v)) < 0)
				goto fail;
			if (file_exists(dir, "memory.memsw.limit_in_bytes") &&
			    (r = write_str(dir, file = "memory.memsw.limit_in_bytes", v)) < 0)
				goto fail;
		}
	}
	return 0;
fail:
	say(err, errlen, "%s/%s: %s", dir, file, strerror(-r));
	return r;
}

int
cg_enter(const struct cg *cg, pid_t pid)
{
	char v[24];
	int r;

	snprintf(v, sizeof(v), "%d", (int)pid);
	for (int c = 0; c < CG_CTL_COUNT; c++)
		if (first_of_dir(c, cg->dir) && (r = write_str(cg->dir[c], "cgroup.procs", v)) < 0)
			return r;
	return 0;
}

int
cg_cpu_usec(const struct cg *cg, uint64_t *usec)
{
	char path[CG_PATH_MAX + 32], buf[1024], *p;
	const char *dir = cg->dir[CG_CPU];
	ssize_t n;

	if (!dir[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dir, cg->version == 2 ? "cpu.stat" : "cpuacct.usage");
	if ((n = read_small(path, buf, sizeof(buf))) < 0)
		return (int)n;
	if (cg->version == 1) {
		/* Nanoseconds. */
		*usec = strtoull(buf, NULL, 10) / 1000;
		return 0;
	}
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "usage_usec ", 11) == 0) {
			*usec = strtoull(p + 11, NULL, 10);
			return 0;
		}
	return -EIO;
}

int
cg_oom_kills(const struct cg *cg, uint64_t *n)
{
	char path[CG_PATH_MAX + 32], buf[1024], *p;
	const char *dir = cg->dir[CG_MEMORY];
	ssize_t r;

	if (!dir[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dir,
		 cg->version == 2 ? "memory.events" : "memory.oom_control");
	if ((r = read_small(path, buf, sizeof(buf))) < 0)
		return (int)r;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "oom_kill ", 9) == 0) {
			*n = strtoull(p + 9, NULL, 10);
			return 0;
		}
	return -ENOENT;
}

int
cg_pids_refused(const struct cg *cg, uint64_t *n)
{
	char path[CG_PATH_MAX + 32], buf[256], *p;
	const char *dir = cg->dir[CG_PIDS];
	ssize_t r;

	if (!dir[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/pids.events", dir);
	if ((r = read_small(path, buf, sizeof(buf))) < 0)
		return (int)r;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "max ", 4) == 0) {
			*n = strtoull(p + 4, NULL, 10);
			return 0;
		}
	return -ENOENT;
}

/* Kills each pid the cgroup lists. */
static void
kill_listed(const char *dir)
{
	char path[CG_PATH_MAX + 32], buf[8192], *p, *end, *nl;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((n = read_small(path, buf, sizeof(buf))) <= 0)
		return;
	/* A full buffer may end inside a number: never kill a cut one. */
	if ((size_t)n == sizeof(buf) - 1)
		*((nl = strrchr(buf, '\n')) ? nl : buf) = '\0';
	for (p = buf;; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

void
cg_kill(const struct cg *cg)
{
	for (int c = 0; c < CG_CTL_COUNT; c++) {
		if (!first_of_dir(c, cg->dir))
			continue;
		/* cgroup.kill (5.14) kills atomically, forks in flight too. */
		if (cg->version == 2 && write_str(cg->dir[c], "cgroup.kill", "1") == 0)
			continue;
		kill_listed(cg->dir[c]);
	}
}

int
cg_remove(struct cg *cg)
{
	if (!cg->made)
		return 0;
	return undo(cg);
}

/* SPDX-License-Identifier: MIT
 * The sandbox's view of the file system; see linux_view.h. */
#include "linux_view.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "grow.h"
#include "landlock_abi.h"
#include "landlock_apply.h"
#include "pathexpand.h"

/* <linux/mount.h> clashes with glibc's <sys/mount.h> (glibc 2.36), and
 * musl's headers may lack mount_setattr: the ABI is fixed, so say it here. */
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442 /* the same on every architecture */
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#define VIEW_FSOPEN_CLOEXEC 1u
#define VIEW_FSCONFIG_CMD_CREATE 6u
#define VIEW_FSMOUNT_CLOEXEC 1u
#define VIEW_MOVE_MOUNT_T_SYMLINKS 0x10u
#define VIEW_OPEN_TREE_CLONE 1u
#define VIEW_MOVE_MOUNT_F_EMPTY_PATH 0x4u
#define VIEW_MOVE_MOUNT_T_EMPTY_PATH 0x40u
#define VIEW_ATTR_RDONLY 0x1ull
#define VIEW_ATTR_NOSUID 0x2ull
#define VIEW_ATTR_NODEV 0x4ull
#define VIEW_ATTR_NOEXEC 0x8ull
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

struct view_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

/* The client's name in the host commands' directory: hidden from ls. */
#define VIEW_CLIENT_NAME ".heel-ipc"

/* Shared temp: other programs of the host put files there, so mapping
 * one executable (the dynamic loader run on it) must fail however the
 * policy grants it. */

/* One line in err; returns -e. */
static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

static int
setattr(const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
	struct view_mount_attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(__NR_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a));
}

/* The same on the mount `fd` refers to. */
static int
setattr_fd(int fd, unsigned flags, uint64_t set, uint64_t clr)
{
	struct view_mount_attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(__NR_mount_setattr, fd, "", flags | AT_EMPTY_PATH, &a, sizeof(a));
}

int
view_make_private(char *err, size_t errlen)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return 0;
	if (errno == EINVAL)
		return fail(err, errlen, EINVAL,
			    "making mounts private: the root directory is not a mount point (a "
			    "chroot of a plain directory?): bind-mount the chroot's directory onto "
			    "itself before entering it, or use --best-effort --no-namespaces");
	return fail(err, errlen, errno, "making mounts private: %s", strerror(errno));
}

int
view_mount_proc(bool readonly, char *err, size_t errlen)
{
	if (mount("proc", "/proc", "proc",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC | (readonly ? MS_RDONLY : 0), NULL) == 0)
		return 0;
	return fail(err, errlen, errno,
		    "no /proc of the sandbox's own (%s): the host's processes stay visible in "
		    "/proc (a container's /proc with over-mounts refuses a new one to a user "
		    "namespace)",
		    strerror(errno));
}

int
view_mount_mqueue(char *err, size_t errlen)
{
	struct stat st;

	if (stat("/dev/mqueue", &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return fail(err, errlen, errno, "mount mqueue on /dev/mqueue: %s", strerror(errno));
	return 0;
}

static int
cmp_place(const void *a, const void *b)
{
	const struct view_place *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int
add_place(struct view *v, const char *path, bool writable, bool exec, bool fresh, bool listed)
{
	struct view_place *p;
	struct statvfs sv;

	for (size_t i = 0; i < v->nplaces; i++)
		if (strcmp(v->places[i].path, path) == 0) {
			/* A grant of shared temp itself: writable as granted,
			 * never executable. */
			v->places[i].writable |= writable;
			v->places[i].exec = false;
			v->places[i].fresh_workdir |= fresh;
			/* Named by a rule that is not a listed entry: it must
			 * be there. */
			v->places[i].listed &= listed;
			return 0;
		}
	p = grow_array(v->places, &v->cap, v->nplaces + 1, sizeof(*p), 8);
	if (!p)
		return -ENOMEM;
	v->places = p;
	v->places[v->nplaces++] = (struct view_place){
		.path = path,
		.host = statvfs(path, &sv) == 0 ? sv.f_flag : 0,
		.writable = writable,
		.exec = exec,
		.fresh_workdir = fresh,
		.listed = listed,
	};
	return 0;
}

bool
view_private_shm(const struct ll_plan *plan, const char *workdir)
{
	struct stat st;

	if (lstat(VIEW_SHM, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	if (workdir && px_beneath(workdir, VIEW_SHM))
		return false;
	for (size_t i = 0; plan && i < plan->nrules; i++)
		if ((plan->rules[i].access & LL_FS_WRITE_RIGHTS) &&
		    px_beneath(plan->rules[i].path, VIEW_SHM))
			return false;
	return true;
}

static bool
is_shared_temp(const char *path)
{
	for (size_t i = 0; i < sizeof(px_shared_temp) / sizeof(*px_shared_temp); i++)
		if (strcmp(path, px_shared_temp[i]) == 0)
			return true;
	return false;
}

int
view_plan(struct view *v, const struct ll_plan *plan, const char *workdir,
	  bool fresh_workdir, uint64_t tmpfs_bytes, char *err, size_t errlen)
{
	struct stat st;
	int r;

	memset(v, 0, sizeof(*v));
	v->tmpfs_bytes = tmpfs_bytes;
	v->private_shm = view_private_shm(plan, workdir);
	if (v->private_shm) {
		if ((r = add_place(v, VIEW_SHM, true, false, false, false)) < 0)
			goto nomem;
		v->places[v->nplaces - 1].private_shm = true;
	}
	for (size_t i = 0; i < sizeof(px_shared_temp) / sizeof(*px_shared_temp); i++)
		if (lstat(px_shared_temp[i], &st) == 0 && S_ISDIR(st.st_mode) &&
		    !(v->private_shm && strcmp(px_shared_temp[i], VIEW_SHM) == 0) &&
		    (r = add_place(v, px_shared_temp[i], false, false, false, false)) < 0)
			goto nomem;
	for (size_t i = 0; plan && i < plan->nrules; i++) {
		const struct ll_plan_rule *pr = &plan->rules[i];

		if (!(pr->access & LL_FS_WRITE_RIGHTS) || pr->kind == LL_PK_WORKDIR)
			continue;
		/* The host's /dev/shm, hidden by the sandbox's own: a grant
		 * of it grants the sandbox's. */
		if (v->private_shm && px_at_or_beneath(pr->path, VIEW_SHM))
			continue;
		/* Device nodes stay writable on a read-only mount; only
		 * directories and regular files need a place of their own. */
		if (!pr->is_dir && !pr->is_reg)
			continue;
		r = add_place(v, pr->path, true,
			      (pr->access & LL_FS_EXECUTE) && !is_shared_temp(pr->path), false,
			      pr->kind == LL_PK_SIBLING);
		if (r < 0)
			goto nomem;
	}
	if (workdir && (r = add_place(v, workdir, true, false, fresh_workdir, false)) < 0)
		goto nomem;
	/* A narrower grant inside a writable place (`grant "./target" rx`
	 * in a kept working directory) gets a place of its own: read-only
	 * unless it is writable itself, and executable when granted so; so
	 * does an executable grant beneath shared temp (the policy names
	 * that directory, not shared temp as a whole). */
	for (size_t i = 0, nw = v->nplaces; plan && i < plan->nrules; i++) {
		const struct ll_plan_rule *pr = &plan->rules[i];
		bool exec = pr->access & LL_FS_EXECUTE;

		if ((pr->access & LL_FS_WRITE_RIGHTS) ||
		    (!pr->is_dir && !pr->is_reg) ||
		    (v->private_shm && px_at_or_beneath(pr->path, VIEW_SHM)))
			continue;
		for (size_t j = 0; j < nw; j++)
			if ((v->places[j].writable || exec) &&
			    px_beneath(pr->path, v->places[j].path)) {
				r = add_place(v, pr->path, false, exec, false,
					      pr->kind == LL_PK_SIBLING);
				if (r < 0)
					goto nomem;
				break;
			}
	}
	qsort(v->places, v->nplaces, sizeof(*v->places), cmp_place);
	return 0;
nomem:
	snprintf(err, errlen, "planning the mounts: %s", strerror(-r));
	return r;
}

int
view_add_readonly(struct view *v, const struct hr_plan *hp, char *err, size_t errlen)
{
	size_t n = v->nplaces;
	int r = 0;

	for (size_t i = 0; i < hp->n && r == 0; i++) {
		const struct hr_guard *g = &hp->g[i];
		bool merged = false;

		if (g->kind != HR_MOUNT)
			continue;
		/* Already a place (a narrower grant): it is read-only now.
		 * What may run there stays what the policy says (on macOS
		 * and Windows `readonly` denies writing only, too). */
		for (size_t j = 0; j < n; j++)
			if (strcmp(v->places[j].path, g->path) == 0) {
				v->places[j].writable = false;
				v->places[j].exec &= g->exec;
				merged = true;
			}
		if (!merged)
			r = add_place(v, g->path, false, g->exec, false, false);
	}
	for (size_t i = 0; i < hp->npins && r == 0; i++) {
		bool there = false;

		/* A place is a mount point already. */
		for (size_t j = 0; j < v->nplaces; j++)
			there |= strcmp(v->places[j].path, hp->pins[i]) == 0;
		if (!there && (r = add_place(v, hp->pins[i], false, false, false, false)) == 0)
			v->places[v->nplaces - 1].pin = true;
	}
	if (r < 0)
		return fail(err, errlen, -r, "planning the read-only paths: %s", strerror(-r));
	qsort(v->places, v->nplaces, sizeof(*v->places), cmp_place);
	return 0;
}

bool
view_places_touch(const struct view *v, const char *path)
{
	for (size_t i = 0; i < v->nplaces; i++) {
		const struct view_place *p = &v->places[i];

		if (strcmp(p->path, path) == 0 || px_beneath(p->path, path) ||
		    (p->writable && px_beneath(path, p->path)))
			return true;
	}
	return false;
}

int
view_make_readonly(char *err, size_t errlen)
{
	if (setattr("/", AT_RECURSIVE, VIEW_ATTR_RDONLY, 0) == 0)
		return 0;
	if (errno == ENOSYS)
		return fail(err, errlen, ENOSYS,
			    "cannot make the file system read-only outside the writable places: "
			    "this kernel has no mount_setattr (Linux 5.12 added it), and Landlock "
			    "does not govern chmod, chown, utimes or xattrs");
	return fail(err, errlen, errno, "read-only remount of /: %s", strerror(errno));
}

/* A recursive bind of the place onto itself, made through a descriptor
 * opened without following any link (open_tree(2) and move_mount(2),
 * Linux 5.2): between planning and mounting another program may remove
 * an entry of shared temp, or put a link in its place, and a bind by
 * name (mount(2) follows links in both its paths) would then fail the
 * launch or bind the link's target, which the place's flags would then
 * make writable. The new mount's descriptor, or -ENOENT (gone, or now a
 * link: nothing to mount on) or another -errno with err set. */
static int
bind_itself(const struct view_place *p, char *err, size_t errlen)
{
	int fd = ll_open_nofollow(AT_FDCWD, p->path, O_PATH), tree, e;

	if (fd == -ENOENT || fd == -ELOOP) {
		fail(err, errlen, ENOENT, "bind %s: %s", p->path,
		     fd == -ELOOP ? "it is a symbolic link now" : strerror(ENOENT));
		return -ENOENT;
	}
	if (fd < 0)
		return fail(err, errlen, -fd, "bind %s: %s", p->path, strerror(-fd));
	tree = (int)syscall(__NR_open_tree, fd, "",
			    VIEW_OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
	if (tree >= 0 && syscall(__NR_move_mount, tree, "", fd, "",
				 VIEW_MOVE_MOUNT_F_EMPTY_PATH | VIEW_MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		e = errno;
		close(tree);
		tree = -1;
		errno = e;
	}
	e = errno;
	close(fd);
	if (tree < 0)
		return fail(err, errlen, e, "bind %s: %s", p->path, strerror(e));
	return tree;
}

int
view_mount_resolv(const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	int fs, mnt = -1, f, tree = -1, r = 0;
	struct stat st;

	if (stat("/etc/resolv.conf", &st) < 0)
		return errno == ENOENT ? 0 : fail(err, errlen, errno, "/etc/resolv.conf: %s",
						  strerror(errno));
	/* A detached tmpfs: nothing of the host's is written, no name of
	 * the view is taken for a moment. */
	fs = (int)syscall(__NR_fsopen, "tmpfs", VIEW_FSOPEN_CLOEXEC);
	if (fs < 0 || syscall(__NR_fsconfig, fs, VIEW_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = (int)syscall(__NR_fsmount, fs, VIEW_FSMOUNT_CLOEXEC,
				VIEW_ATTR_NOSUID | VIEW_ATTR_NODEV | VIEW_ATTR_NOEXEC)) < 0) {
		r = fail(err, errlen, errno, "capture's resolv.conf: a tmpfs: %s", strerror(errno));
		goto out;
	}
	f = openat(mnt, "resolv.conf", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (f < 0 || write(f, text, len) != (ssize_t)len) {
		r = fail(err, errlen, errno, "capture's resolv.conf: %s", strerror(errno));
		if (f >= 0)
			close(f);
		goto out;
	}
	close(f);
	tree = (int)syscall(__NR_open_tree, mnt, "resolv.conf", VIEW_OPEN_TREE_CLONE | O_CLOEXEC);
	if (tree < 0 && errno == EINVAL) {
		/* Before Linux 6.15 nothing is bound from a detached mount:
		 * the tmpfs goes on /proc for the bind (the sandbox's own
		 * /proc is mounted over it later) and is detached again. */
		if (syscall(__NR_move_mount, mnt, "", AT_FDCWD, "/proc",
			    VIEW_MOVE_MOUNT_F_EMPTY_PATH) < 0) {
			r = fail(err, errlen, errno, "capture's resolv.conf: a tmpfs on /proc: %s",
				 strerror(errno));
			goto out;
		}
		if (mount("/proc/resolv.conf", "/etc/resolv.conf", NULL, MS_BIND, NULL) < 0)
			r = fail(err, errlen, errno,
				 "capture's resolv.conf: a bind onto /etc/resolv.conf: %s",
				 strerror(errno));
		umount2("/proc", MNT_DETACH);
		if (r < 0)
			goto out;
	} else if (tree < 0 ||
		   syscall(__NR_move_mount, tree, "", AT_FDCWD, "/etc/resolv.conf",
			   VIEW_MOVE_MOUNT_F_EMPTY_PATH | VIEW_MOVE_MOUNT_T_SYMLINKS) < 0) {
		r = fail(err, errlen, errno, "capture's resolv.conf: a bind onto /etc/resolv.conf: %s",
			 strerror(errno));
		goto out;
	}
	if (setattr("/etc/resolv.conf", 0, VIEW_ATTR_RDONLY, 0) < 0)
		r = fail(err, errlen, errno, "capture's resolv.conf: read-only: %s", strerror(errno));
out:
	if (tree >= 0)
		close(tree);
	if (mnt >= 0)
		close(mnt);
	if (fs >= 0)
		close(fs);
	return r;
}

/* One place: its own mount, then the attributes. A flag the host's mount
 * has is never cleared (in a user namespace it is locked, and a host
 * read-only or noexec place stays so). */
static int
mount_place(const struct view *v, const struct view_place *p, char *err, size_t errlen)
{
	uint64_t set = VIEW_ATTR_NOSUID | VIEW_ATTR_NODEV, clr = 0;
	int tree, r, e;

	/* Sticky and open to all, as the host's: programs of any uid the
	 * sandbox runs as share it, none removes another's files. */
	if (p->private_shm) {
		char opts[64] = "mode=1777";

		if (v->tmpfs_bytes)
			snprintf(opts, sizeof(opts), "mode=1777,size=%llu",
				 (unsigned long long)v->tmpfs_bytes);
		if (mount("tmpfs", p->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
			return fail(err, errlen, errno, "the sandbox's %s: %s", p->path,
				    strerror(errno));
		return 0;
	}
	if (p->fresh_workdir) {
		char opts[64] = "mode=0700";

		if (v->tmpfs_bytes)
			snprintf(opts, sizeof(opts), "mode=0700,size=%llu",
				 (unsigned long long)v->tmpfs_bytes);
		if (mount("tmpfs", p->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
			return fail(err, errlen, errno, "tmpfs working directory %s: %s", p->path, strerror(errno));
		return 0;
	}
	if ((tree = bind_itself(p, err, errlen)) < 0)
		return tree == -ENOENT && p->listed ? 0 : tree;
	if (p->pin) {
		close(tree);
		return 0;
	}
	if (p->exec && !(p->host & ST_NOEXEC))
		clr |= VIEW_ATTR_NOEXEC;
	else
		set |= VIEW_ATTR_NOEXEC;
	if (!p->writable)
		set |= VIEW_ATTR_RDONLY;
	else if (!(p->host & ST_RDONLY))
		clr |= VIEW_ATTR_RDONLY;
	/* Through the new mount's descriptor: by name, a link put in the
	 * place's stead since (a host process is not stopped by the mount,
	 * which is a mount point in our namespace only) would be followed
	 * to another mount, which would then be made writable. */
	r = setattr_fd(tree, AT_RECURSIVE, set, clr);
	/* A mount beneath the place whose flags the host locked (read-only,
	 * noexec: firejail's /run/firejail mounts, say): leave it as strict
	 * as the host has it, and clear the flags on the place itself only.
	 * Setting flags is never refused. */
	if (r < 0 && errno == EPERM && clr && setattr_fd(tree, AT_RECURSIVE, set, 0) == 0)
		r = setattr_fd(tree, 0, 0, clr);
	e = errno;
	close(tree);
	if (r == 0)
		return 0;
	return fail(err, errlen, e, "remount %s: %s", p->path, strerror(e));
}

int
view_mount_places(const struct view *v, char *err, size_t errlen)
{
	int r;

	for (size_t i = 0; i < v->nplaces; i++)
		if ((r = mount_place(v, &v->places[i], err, errlen)) < 0)
			return r;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Binds each directory between a writable place and a protected path in
 * it onto itself (a mount point cannot be renamed or removed: EBUSY),
 * each once, outer before inner. Recursively: a plain bind holds only
 * the directory's own file system, so the places mounted beneath it (a
 * narrower grant's read-only place, a read-only path) would be hidden
 * under it, and in a user namespace the kernel refuses a plain bind of
 * a directory with locked mounts beneath it (EINVAL). */
static int
pin_parents(const struct ll_plan *plan, const bool *nested, bool private_shm, char *err,
	    size_t errlen)
{
	const char **pins;
	size_t npins = 0;
	int r = 0;

	for (size_t m = 0; m < plan->nmounts; m++)
		npins += nested[m] ? 0 : plan->mounts[m].nkeep;
	if (!npins)
		return 0;
	pins = calloc(npins, sizeof(*pins));
	if (!pins)
		return fail(err, errlen, ENOMEM, "planning the covers: %s", strerror(ENOMEM));
	npins = 0;
	for (size_t m = 0; m < plan->nmounts; m++)
		for (size_t k = 0; !nested[m] && k < plan->mounts[m].nkeep; k++)
			if (!(private_shm && px_at_or_beneath(plan->mounts[m].keep[k], VIEW_SHM)))
				pins[npins++] = plan->mounts[m].keep[k];
	qsort(pins, npins, sizeof(*pins), cmp_str);
	for (size_t i = 0; i < npins && r == 0; i++) {
		if (i && strcmp(pins[i], pins[i - 1]) == 0)
			continue;
		if (mount(pins[i], pins[i], NULL, MS_BIND | MS_REC, NULL) < 0)
			r = fail(err, errlen, errno, "pin %s: %s", pins[i], strerror(errno));
	}
	free(pins);
	return r;
}

/* What a cover hides: a path and whether it is a directory. */
struct cover {
	char *path;
	bool is_dir;
};

struct covers {
	struct cover *c;
	size_t n, cap;
};

static int
add_cover(struct covers *cv, const char *path, bool is_dir, bool owned)
{
	struct cover *c = grow_array(cv->c, &cv->cap, cv->n + 1, sizeof(*c), 32);

	if (!c)
		return -ENOMEM;
	cv->c = c;
	cv->c[cv->n].path = owned ? strdup(path) : (char *)path;
	cv->c[cv->n].is_dir = is_dir;
	if (!cv->c[cv->n].path)
		return -ENOMEM;
	cv->n++;
	return 0;
}

/* Whether a cover of the policy's hides `path` already (the policy's
 * denies of /etc/shadow and the like come first): a second bind would
 * only stack on the first. */
static bool
covered_already(const struct covers *cv, const char *path)
{
	for (size_t i = 0; i < cv->n; i++)
		if (strcmp(path, cv->c[i].path) == 0 || px_beneath(path, cv->c[i].path))
			return true;
	return false;
}

/* Covers every entry under directory `dfd` (named `path`) that its mode
 * keeps from other users: a file without o+r, a directory without o+x
 * (nothing in it is reachable then; one cover for all of it). Links are
 * not followed: their targets are governed where they are. */
static int
scan_not_world_readable(struct covers *cv, int dfd, char *path, size_t len, int depth)
{
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (depth > 32 || !(d = fdopendir(dfd))) {
		close(dfd);
		return depth > 32 ? -ELOOP : -errno;
	}
	while (r == 0 && (e = readdir(d))) {
		struct stat st;
		size_t n = strlen(e->d_name);

		if (e->d_type == DT_LNK || (e->d_name[0] == '.' && (!e->d_name[1] ||
		    (e->d_name[1] == '.' && !e->d_name[2]))))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    S_ISLNK(st.st_mode) || len + 1 + n >= PATH_MAX - 1)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) {
			if (!covered_already(cv, path))
				r = add_cover(cv, path, true, true);
		} else if (S_ISDIR(st.st_mode)) {
			int c = openat(dirfd(d), e->d_name,
				       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (c >= 0)
				r = scan_not_world_readable(cv, c, path, len + 1 + n, depth + 1);
		} else if (S_ISREG(st.st_mode) && !(st.st_mode & S_IROTH) &&
			   !covered_already(cv, path)) {
			r = add_cover(cv, path, false, true);
		}
		path[len] = '\0';
	}
	closedir(d);
	return r;
}

/* Covers what the mode of an entry under /etc keeps from other users:
 * the fallback where /etc cannot be idmapped (view_hide_root_only). */
static int
cover_root_only(struct covers *cv, char *err, size_t errlen)
{
	char path[PATH_MAX] = "/etc";
	int d = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;

	/* No /etc at all: nothing to hide, and that is the whole answer. */
	if (d < 0 && errno == ENOENT)
		return 0;
	if (d < 0)
		return fail(err, errlen, errno, "the scan of /etc: %s", strerror(errno));
	/* Fail closed: a scan that stopped half-way hides only half. */
	if ((r = scan_not_world_readable(cv, d, path, strlen(path), 0)) < 0)
		return fail(err, errlen, -r,
			    "the scan of /etc for files only root may read did not complete: %s",
			    strerror(-r));
	return 0;
}

/* Copies the file at `from` into a new file `to`, mode 0755. */
static int
copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, r = 0;
	struct stat st;
	ssize_t n;

	if (in < 0 || fstat(in, &st) < 0 ||
	    (out = open(to, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0755)) < 0)
		r = -errno;
	for (off_t left = st.st_size; r == 0 && left > 0; left -= n)
		if ((n = sendfile(out, in, NULL, (size_t)left)) <= 0)
			r = n < 0 ? -errno : -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	return r;
}

int
view_mount_commands(const char *dir, const char *client, const char *const *names,
		    size_t nnames, char *err, size_t errlen)
{
	char target[PATH_MAX], opts[64];
	struct stat st;
	int dfd, r = 0;

	if (stat(client, &st) < 0)
		return fail(err, errlen, errno, "host commands: %s: %s", client, strerror(errno));
	/* A copy, not a bind: a bind would keep the flags of the mount the
	 * client comes from, noexec when heel-exec runs from shared temp. */
	snprintf(opts, sizeof(opts), "size=%llu,mode=0755",
		 (unsigned long long)st.st_size + 65536);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return fail(err, errlen, errno, "host commands: tmpfs on %s: %s", dir,
			    strerror(errno));
	if (snprintf(target, sizeof(target), "%s/" VIEW_CLIENT_NAME, dir) >= (int)sizeof(target))
		return fail(err, errlen, ENAMETOOLONG, "host commands: %s: path too long", dir);
	if ((r = copy_file(client, target)) < 0)
		return fail(err, errlen, -r, "host commands: copying %s: %s", client, strerror(-r));
	if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return fail(err, errlen, errno, "host commands: %s: %s", dir, strerror(errno));
	for (size_t i = 0; r == 0 && i < nnames; i++)
		if (symlinkat(VIEW_CLIENT_NAME, dfd, names[i]) < 0)
			r = fail(err, errlen, errno, "host commands: %s/%s: %s", dir, names[i],
				 strerror(errno));
	close(dfd);
	if (r == 0 && setattr(dir, 0, VIEW_ATTR_RDONLY, 0) < 0)
		r = fail(err, errlen, errno, "host commands: read-only %s: %s", dir,
			 strerror(errno));
	return r;
}

/* The covers: an empty mode 000 directory or regular file on a read-only
 * mount, bound over each protected path. Opening one fails (EACCES: the
 * command has no capability left to override the mode, and the mount
 * refuses a chmod), listing a directory shows nothing, and a write fails
 * instead of vanishing as it would into /dev/null. Both objects live on
 * one scratch tmpfs mounted over /proc, where the sandbox's own /proc is
 * mounted next, on top of it: out of reach, and nothing to unmount (a
 * detach waits for an RCU grace period). One tmpfs for all covers, and a
 * bind each, rather than a tmpfs each. Returns 1 when the scratch is
 * mounted. */
static int
bind_covers(const struct covers *cv, char *err, size_t errlen)
{
	static const char dir[] = "/proc/heel-cover-dir", file[] = "/proc/heel-cover-file";
	int fd, r = 0;

	if (!cv->n)
		return 0;
	if (mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0700") < 0)
		return fail(err, errlen, errno, "covers: scratch tmpfs: %s", strerror(errno));
	if (mkdir(dir, 0) < 0)
		r = fail(err, errlen, errno, "covers: %s: %s", dir, strerror(errno));
	else if ((fd = open(file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0)) < 0)
		r = fail(err, errlen, errno, "covers: %s: %s", file, strerror(errno));
	else if (close(fd), setattr("/proc", 0, VIEW_ATTR_RDONLY, 0) < 0)
		r = fail(err, errlen, errno, "covers: read-only scratch: %s", strerror(errno));
	for (size_t i = 0; r == 0 && i < cv->n; i++)
		if (mount(cv->c[i].is_dir ? dir : file, cv->c[i].path, NULL, MS_BIND, NULL) < 0)
			r = fail(err, errlen, errno, "cover %s: %s", cv->c[i].path, strerror(errno));
	return r < 0 ? r : 1;
}

void
view_unmount_scratch(void)
{
	umount2("/proc", MNT_DETACH);
}

int
view_mount_covers(const struct ll_plan *plan, bool root_only, bool private_shm, char *err,
		  size_t errlen)
{
	struct covers cv = { 0 };
	bool *nested = plan && plan->nmounts ? calloc(plan->nmounts, sizeof(*nested)) : NULL;
	int r = plan && plan->nmounts && !nested ? -ENOMEM : 0;

	/* A deny beneath a denied directory (~/.docker/config.json under
	 * ~/.docker, as two protection sets say, both covers without
	 * Landlock) is hidden by that directory's cover already, and once
	 * that cover is bound the path no longer exists to bind onto. */
	for (size_t m = 0; plan && r == 0 && m < plan->nmounts; m++)
		for (size_t o = 0; o < plan->nmounts && !nested[m]; o++)
			nested[m] = o != m && plan->mounts[o].is_dir &&
				    px_beneath(plan->mounts[m].deny, plan->mounts[o].deny);
	for (size_t m = 0; plan && r == 0 && m < plan->nmounts; m++)
		if (!nested[m] && !(private_shm && px_at_or_beneath(plan->mounts[m].deny, VIEW_SHM)))
			r = add_cover(&cv, plan->mounts[m].deny, plan->mounts[m].is_dir, false);
	if (r < 0)
		r = fail(err, errlen, -r, "planning the covers: %s", strerror(-r));
	if (r == 0 && root_only)
		r = cover_root_only(&cv, err, errlen);
	if (r == 0 && plan)
		r = pin_parents(plan, nested, private_shm, err, errlen);
	if (r == 0)
		r = bind_covers(&cv, err, errlen);
	/* The paths of the scan are the process's until it execs. */
	free(cv.c);
	free(nested);
	return r;
}

/* SPDX-License-Identifier: MIT
 * The sandbox's view of the file system, made in its private mount
 * namespace before Landlock: what Landlock has no right for is held by
 * mounts. Everything is read-only except the writable places (writable
 * grants and the working directory), which are nosuid,nodev and, unless
 * granted execute, noexec; shared temp is never executable; a fresh
 * working directory is a private tmpfs; protected paths inside writable
 * places are covered. Once Landlock is enforced the command cannot
 * change any of it (landlock_restrict_self forbids a restricted process
 * to change its mount topology, and seccomp denies the mount calls).
 * Every function runs in the command's process; none prints: errors are
 * -errno with one line in err. */
#ifndef HEEL_LAUNCHER_LINUX_VIEW_H
#define HEEL_LAUNCHER_LINUX_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landlock_apply.h"
#include "linux_hostrun.h"

/* Makes every mount private, so nothing mounted below reaches the host. */
int view_make_private(char *err, size_t errlen);

/* Mounts a /proc of the PID namespace (read-only with `readonly`): the
 * host's processes drop out of sight. Called last, over the covers'
 * scratch. -EPERM and friends when the host's /proc has over-mounts that
 * a user namespace may not see past (containers). */
int view_mount_proc(bool readonly, char *err, size_t errlen);

/* Detaches the covers' scratch from /proc, where view_mount_proc could
 * not mount the sandbox's own (--best-effort keeps the host's). */
void view_unmount_scratch(void);

/* An mqueue file system of the IPC namespace at /dev/mqueue, where that
 * directory exists: the host's queues drop out of sight there too
 * (mq_open reaches the namespace's own queues whatever is mounted). */
int view_mount_mqueue(char *err, size_t errlen);

/* The places the view changes, in path order (outer before inner). */
struct view_place {
	const char *path;
	unsigned long host;  /* ST_* flags of the host's mount there */
	bool writable;       /* the policy lets the sandbox write there */
	bool exec;           /* ... and execute (never for shared temp) */
	bool fresh_workdir;  /* a private tmpfs is mounted here */
	bool private_shm;    /* the sandbox's own /dev/shm is mounted here */
	bool pin;            /* only made a mount point (a bind of itself, its
			      * flags kept), so that it cannot be renamed or
			      * removed: it holds a read-only path below */
	bool listed;         /* an entry a carve-out listed (LL_PK_SIBLING): of
			      * a directory other programs share, so it may be
			      * gone, or be a link, by the time it is mounted */
};

struct view {
	struct view_place *places;
	size_t nplaces, cap;
	uint64_t tmpfs_bytes; /* size of a fresh working directory and of the
			       * sandbox's /dev/shm; 0: the tmpfs default */
	bool private_shm;     /* /dev/shm is the sandbox's own (view_private_shm) */
};

/* The sandbox's own /dev/shm: POSIX shared memory and semaphores
 * (shm_open, sem_open; Python's multiprocessing) need a writable one,
 * and the host's is shared with every program of the machine. */
#define VIEW_SHM "/dev/shm"

/* Whether the launch gives the sandbox a /dev/shm of its own: a private
 * tmpfs (mode 1777, nosuid, nodev, noexec, sized as a fresh working
 * directory), unless the host has no /dev/shm directory, or a writable
 * place lies beneath the host's (a writable grant of /dev/shm/NAME, a
 * working directory there), which the tmpfs would hide: then the host's
 * stays, as the policy grants it. `plan` may be NULL (no Landlock). */
bool view_private_shm(const struct ll_plan *plan, const char *workdir);

/* Collects the places from the plan (writable rules), the working
 * directory (fresh: a tmpfs; kept: writable), the sandbox's /dev/shm
 * (view_private_shm: a tmpfs in place of the host's, whose rules then
 * name nothing the sandbox sees) and the other shared temp directories
 * that exist, with the flags the host mounts them with (read before
 * anything is remounted). */
int view_plan(struct view *v, const struct ll_plan *plan, const char *workdir,
	      bool fresh_workdir, uint64_t tmpfs_bytes, char *err, size_t errlen);

/* Adds the paths `readonly` keeps inside writable places (hr_plan_build,
 * the HR_MOUNT guards): each a place of its own, read-only, nosuid,
 * nodev, noexec, mounted after the writable place above it (path
 * order: the longest path decides), and each directory between that
 * place and it pinned. */
int view_add_readonly(struct view *v, const struct hr_plan *hp, char *err, size_t errlen);

/* Whether a place of the view is `path`, lies beneath it, or is
 * writable and holds it: then a mount over `path` would hide the place or
 * take its writes away. */
bool view_places_touch(const struct view *v, const char *path);

/* Remounts the whole tree read-only, recursively (mount_setattr(2),
 * Linux 5.12): chmod, chown, utimes, xattrs, ACLs and inode flags, which
 * Landlock does not govern, fail with EROFS outside the writable places.
 * Device nodes, FIFOs and sockets stay usable on a read-only mount. */
int view_make_readonly(char *err, size_t errlen);

/* Mounts each place, outer before inner: a tmpfs for a fresh working
 * directory, a bind of the place onto itself otherwise, then writable
 * where the policy says so, and nosuid,nodev,noexec (no noexec where
 * execute is granted, never for shared temp); a pin is the bind alone.
 * A place is opened without following any link and bound and flagged
 * through that descriptor, never by its name again, so a link put
 * there since it was planned is never followed; a listed entry that is
 * gone or became a link gets no place (Landlock grants it nothing
 * either: ll_plan_enforce). */
int view_mount_places(const struct view *v, char *err, size_t errlen);

/* Capture's name server (heel(5), THE PROXY, Capture): `text` as the
 * sandbox's /etc/resolv.conf (where the link there leads, when it is
 * one), a file of a tmpfs of its own, read-only, nosuid, nodev, noexec.
 * A host without /etc/resolv.conf gets none (0): the C library's default
 * is then the sandbox's loopback, where no name server answers. */
int view_mount_resolv(const char *text, char *err, size_t errlen);

/* The host commands' directory at `dir` (a mount point heel-exec made):
 * a tmpfs holding a copy of `client` as ".heel-ipc" and one link to it
 * per name, then read-only, nosuid and nodev, but executable: the
 * sandbox runs the names and can change none of them. */
int view_mount_commands(const char *dir, const char *client, const char *const *names,
			size_t nnames, char *err, size_t errlen);

/* Hides each denied path of the plan under an empty read-only object,
 * and pins the directories between a writable place and a denied path in
 * it so none can be renamed aside (a mount point cannot be: EBUSY). Every
 * pin first, then every cover: a pin bound after a cover of the same
 * directory would stack on top of it. A pin is a recursive bind: a plain
 * one would leave out, and so hide, the places mounted beneath it. root_only: also cover
 * every entry under /etc that its mode keeps from other users (a file
 * without o+r, a directory without o+x), found by a scan: a sandbox run
 * as root owns them, so the mode does not keep it out (the fallback of
 * idmap_unowned_tree(), which makes the kernel apply the modes).
 * private_shm: denies at or beneath /dev/shm name the host's, which the
 * sandbox's own hides already, and get no cover (one would hide the
 * sandbox's). 
 * Returns 1 when it left its scratch file system on /proc, 0 when there
 * was nothing to cover, or -errno. */
int view_mount_covers(const struct ll_plan *plan, bool root_only, bool private_shm, char *err,
		      size_t errlen);

#endif

/* SPDX-License-Identifier: MIT
 * The sandbox's working directory: a fresh private one (mode 0700, under
 * $XDG_RUNTIME_DIR, $TMPDIR or /tmp) that is removed at exit, or one the
 * user names, which is created if missing and kept. Removal never follows
 * a link and never leaves the tree, whatever the sandbox planted in it.
 * TMPDIR for the sandbox is the fresh directory itself, or the kept
 * one's subdirectory "tmp". Linux/POSIX; never
 * prints: failures come back as -errno with a one-line message. */
#ifndef HEEL_RUNTIME_WORKDIR_H
#define HEEL_RUNTIME_WORKDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct wd {
	char path[PATH_MAX]; /* absolute, without symbolic links */
	char tmp[PATH_MAX];  /* TMPDIR: path (fresh) or path + "/tmp" (kept) */
	bool remove;         /* fresh: wd_remove() deletes it */
	dev_t dev;           /* identity of what we created, so removal */
	ino_t ino;           /* refuses a directory put in its place */
	size_t made_from;    /* kept: path[0..made_from) existed before this
			      * launch, the directories after it it made;
			      * 0: it made none */
	bool tmp_made;       /* kept: this launch made tmp */
	int lock;            /* fresh: the directory open, with a shared flock
			      * held as long as the launch lives (wd_sweep);
			      * -1 for a kept one */
};

/* Expands the policy's `workdir` by the rules of pathexpand.h: ${NAME}
 * from env, ${CWD} = cwd, a relative path against cwd. -ENOENT for an
 * unset or empty name, -EINVAL for ${WORKDIR}, a malformed reference, a
 * "." or ".." the expansion made or a relative result, -ENAMETOOLONG;
 * each with a message in err. */
int wd_expand(const char *tmpl, char *const *env, const char *cwd, char *out,
	      size_t outlen, char *err, size_t errlen);

/* Creates a fresh working directory named heel-XXXXXXXX (8 random
 * characters) under the first usable of: $XDG_RUNTIME_DIR (absolute, a
 * directory owned by us with no group/other access), $TMPDIR (absolute
 * directory), /tmp; env is the launcher's environment. Mode 0700; it is
 * also TMPDIR. Sets wd->remove and wd->lock. */
int wd_create(struct wd *wd, char *const *env, char *err, size_t errlen);

/* A fresh empty directory, mode 0700, PREFIX-XXXXXXXX where wd_create
 * makes its own, for a mount point that exists only in the sandbox's
 * view (the caller removes it with rmdir, then closes *lock). It is
 * made under a hidden name, locked (a shared flock on *lock, a
 * descriptor of it) and only then renamed, so that wd_sweep never takes
 * it for one a killed launch left. 0 with its path in out, or -errno and
 * a message. */
int wd_mount_point(char *out, size_t cap, const char *prefix, char *const *env, int *lock,
		   char *err, size_t errlen);

/* SIGKILL leaves a launch no time to remove its mount points; with the
 * sandbox's namespaces they are empty directories (the files were on
 * the sandbox's tmpfs). This removes, in the directory wd_mount_point
 * uses, every empty heel-XXXXXXXX and heel-ipc-XXXXXXXX of this user
 * that wd_mount_point marked (mode 01700: one an older heel-exec made
 * holds no lock, and is left alone) and whose launch is gone (its lock
 * can be taken), and returns how many.
 * At most once a minute when `stamp` names a file whose modification
 * time records the last sweep (made 0600, no link followed); every call
 * when NULL. A directory that holds files (a launch without namespaces)
 * is left alone. Quiet. */
int wd_sweep(char *const *env, const char *stamp);

/* Uses `dir` as the working directory, creating it (and missing parents,
 * mode 0700) when needed, and its "tmp" subdirectory; kept at exit. The
 * place is checked (wd_refuse_place) before anything is made; a failure
 * after that removes what this call made. */
int wd_use(struct wd *wd, const char *dir, char *err, size_t errlen);

/* What wd_use() would use, without creating anything: `dir` resolved
 * (realpath of the part that exists, the rest as written) into out, or
 * -errno and a message when it would refuse. For `heel-exec check`. */
int wd_check(const char *dir, char *out, size_t outlen, char *err, size_t errlen);

/* -EPERM and a message when `path` (absolute, resolved) may not be a
 * working directory for `uid`: it is the root, a system directory
 * (pathexpand.h) or inside one, except where users keep their own
 * things: /var/tmp/..., /dev/shm/..., /home/NAME/..., /root/... for
 * root, /run/user/UID/..., /srv/..., /opt/..., /mnt/..., /media/... (each
 * strictly beneath). Else 0. */
int wd_refuse_place(const char *path, unsigned uid, char *err, size_t errlen);

/* The launch was refused after the working directory was set up: a
 * fresh one is deleted (wd_remove), a kept one loses the directories
 * this launch made (its "tmp", the missing parents wd_use created), each
 * only if it is still empty; a directory that existed is never touched.
 * 0 or -errno. */
int wd_abandon(struct wd *wd);

/* Deletes a fresh working directory and everything in it: each directory
 * opened with O_NOFOLLOW, symbolic links unlinked and never followed,
 * permissions the sandbox took away restored (u+rwx) before descending,
 * other file systems not entered, constant stack and two descriptors
 * however deep the tree. Does nothing for a kept one. 0 or -errno. Call
 * it only when nothing runs in the tree any more. */
int wd_remove(struct wd *wd);

/* Deletes the directory `name` in dirfd and everything in it, where
 * something may still run in the tree (a cache a sandbox can write):
 * one descriptor a level and never "..", so a directory moved away
 * during the walk takes the walk nowhere a sandbox could not delete
 * itself; links unlinked, never followed; permissions taken away given
 * back (u+rwx); other file systems not entered; no deeper than
 * WD_TREE_MAX_DEPTH (-ELOOP). 0, or -errno with what is left still
 * there (a later call finishes it). */
#define WD_TREE_MAX_DEPTH 256
int wd_remove_tree_at(int dirfd, const char *name);

#endif

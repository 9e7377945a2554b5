/* SPDX-License-Identifier: MIT
 * An idmapped copy of a mount tree that no host user owns: what a
 * sandbox run as root reads of /etc through it is what any other user
 * could read (mount_setattr(2), MOUNT_ATTR_IDMAP, Linux 5.12). */
#ifndef HEEL_LINUX_IDMAP_H
#define HEEL_LINUX_IDMAP_H

#include <stddef.h>

/* A detached, recursive copy of the mount tree at `path` (open_tree(2),
 * OPEN_TREE_CLONE), read-only and idmapped through a user namespace that
 * maps one unused id and nothing else: every file in it shows owner and
 * group 65534, so the owner and group bits of its mode apply to nobody
 * and a process without CAP_DAC_* reads only what the "other" bits
 * allow. The caller attaches it with idmap_attach() in its own mount
 * namespace. Needs CAP_SYS_ADMIN over the file systems' user namespace
 * (real root) and file systems that support idmapped mounts (ext4, xfs,
 * btrfs, overlayfs, tmpfs since 6.3...). Returns the tree's descriptor
 * (close-on-exec), or -errno with a one-line reason in err. */
int idmap_unowned_tree(const char *path, char *err, size_t errlen);

/* Mounts the tree of idmap_unowned_tree() on `path`, over what is there.
 * 0, or -errno with a one-line reason in err. */
int idmap_attach(int tree, const char *path, char *err, size_t errlen);

#endif

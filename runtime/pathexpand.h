/* SPDX-License-Identifier: MIT
 * The one ${NAME} expander for policy paths at launch (grants, denies,
 * the policy's working directory), and the list of system directories
 * that no expansion may hand to the sandbox. Portable C17; never prints:
 * px_describe() turns an outcome into the words of a message. */
#ifndef HEEL_RUNTIME_PATHEXPAND_H
#define HEEL_RUNTIME_PATHEXPAND_H

#include <stdbool.h>
#include <stddef.h>

#define PX_NAME_MAX 128

/* The value of ${NAME}, or NULL when unset. A relative template is taken
 * as "${CWD}/template", so the lookup is asked for CWD too. */
typedef const char *(*px_lookup_fn)(const char *name, void *ctx);

enum px_status {
	PX_OK,
	PX_UNSET,      /* -ENOENT: ${name} is unset or empty */
	PX_MALFORMED,  /* -EINVAL: "${" without "}", an empty or overlong name */
	PX_DOTS,       /* -EINVAL: a "." or ".." component (from ${name} when named) */
	PX_RELATIVE,   /* -EINVAL: not absolute after expansion */
	PX_TOOLONG,    /* -ENAMETOOLONG */
	PX_SYSTEM,     /* -EPERM (px_refuse_system): the root or a system directory */
};

/* What an expansion met. On success, name and value are the first
 * variable used (name[0] == '\0': none, the template was a literal
 * absolute path); on failure, the variable at fault when there is one.
 * value points into the lookup's storage; path into px_expand's `out`. */
struct px_info {
	enum px_status status;
	char name[PX_NAME_MAX];
	const char *value;
	const char *path;
};

/* Expands `tmpl` into `out`: ${NAME} from lookup, a relative template
 * against ${CWD} (a leading "./" dropped), repeated and trailing '/'
 * folded. One rule for every caller: an empty value is unset, and the
 * result must be absolute with no "." or ".." component (a policy that
 * says "${X}/sub" means a place beneath X, never one that climbs out of
 * it). 0, -ENOENT (unset: an optional statement may be skipped), -EINVAL
 * or -ENAMETOOLONG; info says which and names the variable. */
int px_expand(const char *tmpl, px_lookup_fn lookup, void *ctx, char *out, size_t outlen,
	      struct px_info *info);

/* Whether `path` (absolute, normalised) is the root or a top-level system
 * directory: /usr, /etc, /var, /bin, /sbin, /lib*, /boot, /proc, /sys,
 * /dev, /run, /home, /opt, /srv, /snap, /mnt, /media. Not /root: it is
 * root's home, and closed to other users by its mode. */
bool px_is_system(const char *path);

/* Whether absolute, normalised `child` lies strictly beneath directory
 * `parent` ("/" is above every other path). */
bool px_beneath(const char *child, const char *parent);
/* px_beneath, or the path itself. */
bool px_at_or_beneath(const char *path, const char *dir);
/* The directory `path` lies in ("/" for a name at the top), into out. */
void px_dir_of(const char *path, char *out, size_t len);

/* Linux's shared temp: every user may write it, so heel never lets
 * anything run from it. */
extern const char *const px_shared_temp[3];
/* The shared temp directory at or above `path`, or NULL. */
const char *px_in_shared_temp(const char *path);

/* The top-level system directory `path` is in or beneath ("/usr" for
 * "/usr/local/x"), or NULL; "/" for the root itself. */
const char *px_system_top(const char *path);

/* After a successful px_expand(): when a variable chose the path (info
 * names one) and the path is a system directory (px_is_system), sets
 * info->status to PX_SYSTEM and returns -EPERM; else 0. A literal "/usr"
 * in a policy is a reviewed choice, a ${HOME} that turned out to be "/"
 * is not. */
int px_refuse_system(const char *path, struct px_info *info);

/* One line for a failed expansion, e.g. `${PROJECT} is not set` or
 * `HOME is "/", a system directory; refusing`. Returns buf. */
const char *px_describe(const struct px_info *info, char *buf, size_t len);

#endif

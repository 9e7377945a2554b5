/* SPDX-License-Identifier: MIT
 * Reading a small regular file whole: a record or a cache entry that a
 * caller opened itself (so it chose how: no link followed, relative to
 * which directory). Libc only; returns errors, never prints. */
#ifndef HEEL_RUNTIME_READSMALL_H
#define HEEL_RUNTIME_READSMALL_H

#include <stddef.h>
#include <sys/stat.h>

/* The bytes of the regular file open on fd, NUL-terminated, in *out
 * (caller frees), their number in *len (may be NULL), and its stat in
 * *st (may be NULL). Closes fd. 0; -EINVAL for a file that is not
 * regular or larger than max; -EIO when it changed size while read;
 * -errno. */
int rt_read_small(int fd, size_t max, char **out, size_t *len, struct stat *st);

#endif

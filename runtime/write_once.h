/* SPDX-License-Identifier: MIT
 * Writes a short text to a kernel file (cgroupfs, /proc/PID/uid_map...)
 * in one write(2): such files parse a value from a single write and
 * report an error from that write. libc only; never prints. */
#ifndef HEEL_RUNTIME_WRITE_ONCE_H
#define HEEL_RUNTIME_WRITE_ONCE_H

/* 0, or -errno (-EIO for a short write). */
int write_once(const char *path, const char *text);

#endif

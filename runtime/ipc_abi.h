/* SPDX-License-Identifier: MIT
 * The ABI between a heel sandbox and its host command broker: shared by
 * heelc (the seccomp rule that turns a call into a user notification),
 * heel-exec, the broker and the client inside the sandbox. */
#ifndef HEEL_RUNTIME_IPC_ABI_H
#define HEEL_RUNTIME_IPC_ABI_H

/* The ioctl request a host command call makes, on descriptor -1: no
 * driver answers it ("HEL" and 1), and no real descriptor is -1, so the
 * seccomp filter can tell a call from any other ioctl by these two
 * words alone. The filter compares the low 32 bits of both arguments,
 * as the kernel reads them (unsigned int fd, unsigned int cmd). */
#define HEEL_IPC_IOCTL 0x48454c01u

#endif

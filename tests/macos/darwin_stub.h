/* SPDX-License-Identifier: MIT
 * The Darwin declarations launcher/macos.c and the runtime's __APPLE__
 * branches use that glibc does not have, with the values of the macOS
 * SDK's <sys/resource.h>. Force-included by tests/macos/check-syntax.sh
 * so that the macOS code is at least compiled on Linux: a misspelt
 * name or a wrong argument count fails the build here, not first on a
 * user's Mac. It proves nothing about behaviour. */
#ifndef HEEL_TESTS_DARWIN_STUB_H
#define HEEL_TESTS_DARWIN_STUB_H

#define IOPOL_TYPE_DISK 0
#define IOPOL_SCOPE_PROCESS 0
#define IOPOL_THROTTLE 3
#define IOPOL_UTILITY 4
int setiopolicy_np(int iotype, int scope, int policy);

#endif

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

/* <sys/sysctl.h>: the process table (struct kinfo_proc, cut down to the
 * fields heel-exec reads; p_starttime is a macro for a union member
 * there). */
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#define CTL_KERN 1
#define KERN_PROC 14
#define KERN_PROC_ALL 0
#define KERN_PROC_PID 1
struct extern_proc {
	struct timeval p_starttime;
	pid_t p_pid;
};
struct eproc {
	pid_t e_ppid;
};
struct kinfo_proc {
	struct extern_proc kp_proc;
	struct eproc kp_eproc;
};
int sysctl(int *name, unsigned int namelen, void *oldp, size_t *oldlenp, void *newp,
	   size_t newlen);

/* <sys/event.h>: kqueue's process filter. */
#include <time.h>
struct kevent {
	uintptr_t ident;
	int16_t filter;
	uint16_t flags;
	uint32_t fflags;
	intptr_t data;
	void *udata;
};
#define EVFILT_PROC (-5)
#define EV_ADD 0x0001
#define NOTE_EXIT 0x80000000u
#define NOTE_FORK 0x40000000u
#define NOTE_TRACK 0x00000001u
#define EV_SET(kevp, a, b, c, d, e, f)                                                             \
	do {                                                                                       \
		struct kevent *__kevp__ = (kevp);                                                  \
		__kevp__->ident = (a);                                                             \
		__kevp__->filter = (b);                                                            \
		__kevp__->flags = (c);                                                             \
		__kevp__->fflags = (d);                                                            \
		__kevp__->data = (e);                                                              \
		__kevp__->udata = (f);                                                             \
	} while (0)
int kqueue(void);
int kevent(int kq, const struct kevent *changelist, int nchanges, struct kevent *eventlist,
	   int nevents, const struct timespec *timeout);

#endif

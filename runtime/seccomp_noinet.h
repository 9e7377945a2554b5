/* SPDX-License-Identifier: MIT
 * The one seccomp program heel-exec makes itself: a refusal of inet
 * sockets, stacked on the artifact's program for a `network deny` launch
 * that has no network namespace of its own. The artifact's program lets
 * TCP through in every network mode, for the sandbox's own loopback;
 * without the namespace that loopback is the host's, and this refusal
 * keeps it out of reach (seccomp filters stack: the strictest answer
 * wins). Portable C17, libc only, no allocation. */
#ifndef HEEL_RUNTIME_SECCOMP_NOINET_H
#define HEEL_RUNTIME_SECCOMP_NOINET_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_sim.h"

/* Enough for either architecture's program. */
#define NOINET_MAX_INSNS 16

/* Writes into `out` (NOINET_MAX_INSNS long) the program for `audit_arch`
 * (x86_64 or aarch64), in heel's shape (bpf_verify's arch check and x32
 * guard first): socket(AF_INET or AF_INET6, ...) answers EPERM, as the
 * artifact's program answers every refused socket; every other call is
 * allowed (the artifact's program below decides it). Returns its length,
 * or 0 for another architecture. */
size_t noinet_program(uint32_t audit_arch, struct bpf_sim_insn *out);

#endif

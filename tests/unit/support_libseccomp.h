/* SPDX-License-Identifier: MIT
 * Test and benchmark only: heel's seccomp model built by libseccomp, the
 * independent generator heel's own BPF is cross-checked and measured
 * against. Kept out of libheelc so heelc does not link libseccomp. */
#ifndef HEEL_TESTS_SUPPORT_LIBSECCOMP_H
#define HEEL_TESTS_SUPPORT_LIBSECCOMP_H

#include <stddef.h>

#include "seccomp_bpf.h"
#include "seccomp_policy.h"

/* The same model through libseccomp 2.5 (seccomp_export_bpf into a memfd):
 * optimize 1 = libseccomp's default (priority-ordered linear chain),
 * 2 = its binary tree. Syscalls are passed by name-resolved native number
 * so libseccomp translates them for a foreign arch itself (libseccomp
 * 2.5.4 re-maps a number already resolved for the target arch). Argument
 * checks are rewritten as libseccomp deny rules (masked equality only,
 * one comparison per argument), exact for 32-bit conditions. Numbers
 * heel's table lacks get libseccomp's default (ALLOW) rather than ENOSYS:
 * on a kernel without the call the effect is the same ENOSYS.
 * *nskipped (may be NULL) counts names libseccomp does not know.
 * Returns 0, -ENOMEM, -ENOTSUP (a condition it cannot express) or the
 * negative errno libseccomp returned. */
int bpf_generate_libseccomp(const struct scp_model *model, int optimize,
			    struct bpf_prog *out, size_t *nskipped);

#endif

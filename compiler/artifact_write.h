/* SPDX-License-Identifier: MIT
 * The artifact writer: serialises an IR policy into the .hpol bytes that
 * heel-exec reads (layout in runtime/artifact.h, docs/artifact.md). */
#ifndef HEEL_COMPILER_ARTIFACT_WRITE_H
#define HEEL_COMPILER_ARTIFACT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "artifact.h"
#include "ir.h"
#include "version.h"

/* Recorded in the META section. */
#define ARTIFACT_COMPILER_VERSION "heelc " HEEL_VERSION

/* The format version this compiler writes (heelc --version prints it). */
#define HEEL_ARTIFACT_MAJOR ART_FMT_MAJOR
#define HEEL_ARTIFACT_MINOR ART_FMT_MINOR

/* Serialises `policy`: the common sections, then, when its platforms
 * include linux, the LINUX_LANDLOCK section (ll_lower + ll_table_encode)
 * and one SECCOMP_BPF section per architecture (bpf_build). Those are
 * derived from the IR alone, so writing what artifact_load() read gives
 * the same bytes. Reproducible: the same IR gives the same bytes (no
 * time stamps or pointers, zeroed padding, strings deduplicated in order
 * of first use, sections in a fixed order). The result is checked with
 * art_validate() before it is returned, so heelc never emits an artifact
 * the launcher would refuse.
 * On success *out (caller frees with free()) and *len are set and 0 is
 * returned. -ENOMEM; -EINVAL when the IR holds what the format cannot
 * (a NULL required string, an enumeration out of range, a count over
 * 2^31); -EFBIG when the artifact would exceed ART_MAX_FILE_SIZE; from
 * the Linux backend -EPERM (`seccomp allow` of a never-allowable call),
 * -ENOENT (a syscall no architecture knows), -E2BIG (a seccomp program
 * over 4096 instructions). sema reports all of these with locations
 * first; here they are the backstop. */
int artifact_write(const struct ir_policy *policy, uint8_t **out, size_t *len);

/* What an artifact_write() failure other than -ENOMEM says about the
 * policy, as one line for an error about its file (no line to point at):
 * the artifact's size limit for -EFBIG; for the rest, that heelc itself
 * is at fault, since sema refuses what a backend cannot hold, at its
 * statement, before any backend runs. Returns buf. */
const char *artifact_write_strerror(int rc, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT
 * A stale artifact: heelc records the top source file's base name, size
 * and CRC-32C in META (format 1.2), and a launcher compares them with the
 * file of that name beside the artifact, to warn that what it runs is not
 * what the source now says. Advisory only: CRC-32C catches an edit, not
 * an adversary who makes a source with the same checksum; what the
 * launcher enforces is the artifact, whatever the source holds. Libc
 * only; never prints. */
#ifndef HEEL_RUNTIME_ARTIFACT_SOURCE_H
#define HEEL_RUNTIME_ARTIFACT_SOURCE_H

#include <stddef.h>

#include "artifact_read.h"

/* The path of the source `name` beside the artifact path `artifact`, in
 * the same directory and spelled as the artifact was: into out. 0, or
 * -ENAMETOOLONG. */
int art_source_path(const char *artifact, const char *name, char *out, size_t outlen);

/* Compares the file `source` (from art_source_path) with what `meta`
 * recorded: 1 when its size or CRC-32C differs, 0 when they agree,
 * -errno when there is nothing to compare (no source recorded: -ENOENT;
 * absent, a symbolic link, not a regular file, unreadable). Reads at most
 * the recorded size. */
int art_source_changed(const char *source, const struct art_meta *meta);

#endif

/* SPDX-License-Identifier: MIT
 * Reading a policy or artifact whole: regular files only, so a FIFO, a
 * terminal or a device given as input (or named by an include) is refused
 * at once instead of blocking heelc forever. */
#ifndef HEEL_COMPILER_READFILE_H
#define HEEL_COMPILER_READFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* Largest input accepted: a policy is a page or two and an artifact a few
 * kilobytes; anything this big is a mistake and reading it whole would
 * only waste memory. */
#define RF_MAX_BYTES (16u << 20)

/* Reads the regular file `path` into a NUL-terminated buffer the caller
 * frees (*out, *len bytes before the NUL); fills *st when st is not NULL.
 * Returns 0 or -errno: -EISDIR for a directory, -EFTYPE_RF for anything
 * else that is not a regular file, -EFBIG above RF_MAX_BYTES. */
int rf_read_regular(const char *path, char **out, size_t *len, struct stat *st);

/* A distinct code for "not a regular file" (no errno says it). */
#define EFTYPE_RF 4095

/* The reason rf_read_regular() failed, in words: for -EFTYPE_RF it names
 * what the file is ("a FIFO", "a character device", ...) from `st`. */
const char *rf_strerror(int rc, const struct stat *st);

/* Why `buf` cannot be policy text, before a lexer reports each of its
 * bytes: RF_ARTIFACT when it starts with the artifact magic, RF_BINARY
 * when it holds a NUL byte (no text editor writes one, and the lexer
 * would echo every line of the file), else RF_TEXT. */
enum rf_content { RF_TEXT, RF_ARTIFACT, RF_BINARY };
enum rf_content rf_content_kind(const char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT
 * The artifacts `heel run` compiled before, kept so that the same options
 * in the same place do not compile again: most of heel's own time on a
 * launch is the compile. An entry is keyed by the digest of the policy
 * text and of the heel program that compiles it, and records every file
 * the compile read (included policies) with the digest of its bytes; it
 * is used only when each still matches. Entries live in an owner-only
 * directory, are read like an artifact (no link followed, owned by the
 * user, writable by nobody else) and are validated by heel-exec like any
 * other artifact. */
#ifndef HEEL_FRONT_CACHE_H
#define HEEL_FRONT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define CACHE_KEY_BYTES 32

/* The directory: $XDG_CACHE_HOME/heel, else ~/.cache/heel, where the
 * home is HOME or, when HOME is unset, the one /etc/passwd gives
 * (userdirs.h: heel-exec keeps that very directory read-only in every
 * sandbox); made (0700) when missing. 0, or -errno (no usable directory:
 * run without a cache). */
int cache_dir(char *out, size_t len);

/* The key of a policy text as compiled by the program at `self` (its
 * identity: device, inode, size, modification time). */
int cache_key(const char *self, const char *text, uint8_t key[CACHE_KEY_BYTES]);

/* The artifact cached under `key` in `dir`, when its entry is sound and
 * every file it depends on is unchanged: 0 with *bytes (malloc'ed) and
 * *len; -ENOENT when there is none or it is stale; another -errno when
 * an entry is there but not trustworthy (wrong owner or mode). */
int cache_lookup(const char *dir, const uint8_t key[CACHE_KEY_BYTES], uint8_t **bytes, size_t *len);

/* Stores an artifact whose compile read the sources registered in `ctx`
 * (the included files among them are its dependencies). Written to a
 * temporary file and renamed, 0600. Then the cache is bounded: past 256
 * entries the least recently used (a hit renews an entry's modification
 * time) are removed down to 192. 0 or -errno. */
int cache_store(const char *dir, const uint8_t key[CACHE_KEY_BYTES], const struct diag_ctx *ctx,
		const uint8_t *bytes, size_t len);

#endif

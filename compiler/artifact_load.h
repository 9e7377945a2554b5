/* SPDX-License-Identifier: MIT
 * The artifact loader: turns .hpol bytes back into an IR policy, so that
 * `heelc explain` renders an artifact with the code it uses for a source,
 * and so that IR -> bytes -> IR -> bytes can be tested to be the identity. */
#ifndef HEEL_COMPILER_ARTIFACT_LOAD_H
#define HEEL_COMPILER_ARTIFACT_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* Validates buf[0..len) with art_validate() and rebuilds the policy it
 * holds (origin file names interned with ir_intern()). The compiler
 * version in META is not part of the IR and is not kept; unknown
 * non-critical sections are skipped. The Linux sections are derived, not
 * loaded: for a policy built for linux they are rebuilt from the loaded
 * IR and must equal the artifact's byte for byte (so what `explain` shows
 * is what heel-exec enforces, and artifact_write() of the result gives
 * the same sections back). An artifact from a heelc whose backend emits
 * different bytes is refused for that reason too.
 * Returns 0 and *out (caller frees with ir_policy_free()); -EINVAL with
 * the validator's message (or "... does not match the policy the artifact
 * carries", "... cannot be built for linux: ...") in err, or -ENOMEM.
 * err may be NULL. */
int artifact_load(const uint8_t *buf, size_t len, struct ir_policy **out, char *err, size_t errlen);

#endif

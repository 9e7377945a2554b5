/* SPDX-License-Identifier: MIT
 * Names and SIDs of the Windows backend, computed offline exactly as
 * Windows computes them, so that the artifact carries them and
 * heel-exec.exe only has to check that Windows agrees (docs/acl-manifest.md,
 * "The container and its SID"). */
#ifndef HEEL_COMPILER_ACL_SID_H
#define HEEL_COMPILER_ACL_SID_H

#include <stddef.h>
#include <stdint.h>

#define ACL_NAME_SIZE 24 /* "heel.p." + 16 hex digits + NUL */
#define ACL_SID_SIZE 128 /* the longest SID written here is under 110 bytes */

/* The AppContainer profile name of a policy: `heel.p.` and the first 8
 * bytes of its source digest in lower-case hex. */
void acl_container_name(const uint8_t digest[32], char out[ACL_NAME_SIZE]);

/* DeriveAppContainerSidFromAppContainerName: `S-1-15-2-` and the first
 * seven little-endian 32-bit words of SHA-256 over the UTF-16LE of the
 * lower-cased name. Only ASCII names (Windows lower-cases the rest with
 * its own tables): 0, or -EINVAL for another byte, -ENOSPC when out is
 * too small. */
int acl_appcontainer_sid(const char *name, char *out, size_t outlen);

/* The SID of capability `name`: a well-known capability's
 * (`internetClient` S-1-15-3-1 .. `contacts` S-1-15-3-12), else what
 * DeriveCapabilitySidsFromName returns as the capability SID:
 * `S-1-15-3-1024-` and the eight little-endian 32-bit words of SHA-256
 * over the UTF-16LE of the upper-cased name. ASCII only, as above. */
int acl_capability_sid(const char *name, char *out, size_t outlen);

/* The well-known capability's number (1..12), or 0 for another name. */
unsigned acl_capability_well_known(const char *name);

#endif

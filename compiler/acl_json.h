/* SPDX-License-Identifier: MIT
 * `heelc emit acl`: the Windows part of a policy as the JSON manifest of
 * docs/acl-manifest.md (schema `heel-acl-manifest/1`), for reviewers and
 * tools; heel-exec.exe reads the artifact's binary form instead. */
#ifndef HEEL_COMPILER_ACL_JSON_H
#define HEEL_COMPILER_ACL_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "win_manifest.h"

#define ACL_JSON_SCHEMA "heel-acl-manifest/1"

/* Writes m as JSON to out. policy_name is the top source file's base
 * name (NULL: not known), digest its 32-byte source digest. 0, -ENOMEM,
 * or -EIO when out fails. */
int acl_json_render(const struct win_manifest *m, const char *policy_name,
		    const uint8_t digest[32], FILE *out);

#endif

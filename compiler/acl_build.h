/* SPDX-License-Identifier: MIT
 * IR -> the Windows part of a policy (runtime/win_manifest.h): the
 * AppContainer, the job's limits and one ACE entry per grant, deny and
 * read-only path, as docs/acl-manifest.md specifies. The artifact writer
 * stores it (WIN_CONTAINER, WIN_ACES) and `heelc emit acl` renders it. */
#ifndef HEEL_COMPILER_ACL_BUILD_H
#define HEEL_COMPILER_ACL_BUILD_H

#include "acl_sid.h"
#include "ir.h"
#include "win_manifest.h"

/* Masks (docs/acl-manifest.md, "Masks"). */
#define ACL_MASK_R 0x120089u	   /* FILE_GENERIC_READ */
#define ACL_MASK_RX 0x1200a9u	   /* FILE_GENERIC_READ | FILE_EXECUTE */
#define ACL_MASK_RW 0x1301dfu	   /* modify without FILE_EXECUTE, with DELETE_CHILD */
#define ACL_MASK_RWX 0x1301ffu	   /* the same with FILE_EXECUTE */
#define ACL_MASK_DENY 0x1017fu	   /* everything but SYNCHRONIZE, READ_CONTROL, READ_ATTRIBUTES */
#define ACL_MASK_DENY_WRITE 0x10156u /* what changes the object, or its names */

struct acl_manifest {
	struct win_manifest m; /* the model; its strings and arrays are owned below */
	char name[ACL_NAME_SIZE];
	char sid[ACL_SID_SIZE];
	char **caps;	       /* m.capabilities */
	struct win_entry *entries; /* m.entries; each path allocated */
};

/* Builds the Windows part of `ir`. Origins point into the IR, which must
 * outlive the result. 0 and *out (caller frees with acl_manifest_free),
 * -ENOENT when the policy is not built for windows, -EINVAL when the IR
 * holds what the manifest cannot (sema refuses it first), -ENOMEM. */
int acl_build(const struct ir_policy *ir, struct acl_manifest **out);
void acl_manifest_free(struct acl_manifest *a);

/* The mask an allow entry of mode `mode` (IR_MODE_*) gets; 0 for a deny. */
uint32_t acl_mask_for_mode(unsigned mode);

#endif

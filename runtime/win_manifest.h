/* SPDX-License-Identifier: MIT
 * The Windows part of a compiled policy as heel-exec.exe uses it: the
 * AppContainer (name, SID computed at compile time, capabilities), the job
 * object's limits and one ACE entry per path. heelc stores it in the
 * artifact's WIN_CONTAINER and WIN_ACES sections (docs/artifact.md);
 * `heelc emit acl` renders the same data as the JSON manifest of
 * docs/acl-manifest.md. Portable C17, libc only: it is decoded and
 * unit-tested on Linux and linked into heel-exec.exe. */
#ifndef HEEL_RUNTIME_WIN_MANIFEST_H
#define HEEL_RUNTIME_WIN_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct art_view;

/* NTFS access masks (winnt.h values; the manifest stores them numerically). */
#define WIN_FILE_READ_DATA 0x0001u	 /* directory: list */
#define WIN_FILE_WRITE_DATA 0x0002u	 /* directory: add file */
#define WIN_FILE_APPEND_DATA 0x0004u	 /* directory: add subdirectory */
#define WIN_FILE_READ_EA 0x0008u
#define WIN_FILE_WRITE_EA 0x0010u
#define WIN_FILE_EXECUTE 0x0020u	 /* directory: traverse */
#define WIN_FILE_DELETE_CHILD 0x0040u
#define WIN_FILE_READ_ATTRIBUTES 0x0080u
#define WIN_FILE_WRITE_ATTRIBUTES 0x0100u
#define WIN_DELETE 0x00010000u
#define WIN_READ_CONTROL 0x00020000u
#define WIN_WRITE_DAC 0x00040000u
#define WIN_WRITE_OWNER 0x00080000u
#define WIN_SYNCHRONIZE 0x00100000u

/* ACE inheritance flags, as in the ACE header. */
#define WIN_INHERIT_OBJECT 0x1u	   /* OI: files below inherit it */
#define WIN_INHERIT_CONTAINER 0x2u /* CI: directories below inherit it */
#define WIN_INHERIT_NO_PROPAGATE 0x4u
#define WIN_INHERIT_ONLY 0x8u	   /* IO: not on the object itself */
#define WIN_INHERIT_KNOWN 0xfu

enum win_ace_type { WIN_ACE_ALLOW = 0, WIN_ACE_DENY = 1 };

/* What the path must be. AUTO: decided at apply time from what is there
 * (an entry written for a grant, whose path heelc cannot stat). */
enum win_path_kind { WIN_KIND_AUTO = 0, WIN_KIND_DIRECTORY = 1, WIN_KIND_FILE = 2 };

/* Mandatory integrity label set with the ACE (writable paths: Low, since a
 * Low-integrity token may not write up to an unlabelled, i.e. Medium,
 * object). */
enum win_label { WIN_LABEL_NONE = 0, WIN_LABEL_LOW = 1 };

/* A path that does not exist at launch: refuse the launch, or skip it. */
enum win_missing { WIN_MISSING_ERROR = 0, WIN_MISSING_SKIP = 1 };

/* The job's priority class, from the policy's `nice`. */
enum win_priority { WIN_PRIO_NORMAL = 0, WIN_PRIO_BELOW_NORMAL = 1, WIN_PRIO_IDLE = 2 };

struct win_entry {
	/* Template, as in the policy: `C:/...` or `C:\...`, `${NAME}/...`
	 * (expanded from the caller's environment at launch), or
	 * `${WORKDIR}` for the run's working directory. Never relative. */
	const char *path;
	uint32_t mask;		/* WIN_* access bits, never 0 */
	uint8_t ace;		/* enum win_ace_type */
	uint8_t kind;		/* enum win_path_kind */
	uint8_t inherit;	/* WIN_INHERIT_* */
	uint8_t label;		/* enum win_label */
	uint8_t missing;	/* enum win_missing */
	bool parent_deny_delete_child; /* also deny DELETE_CHILD on the parent */
	/* The policy line that caused it (file NULL: built in). */
	const char *origin_file;
	uint32_t origin_line;
	uint32_t origin_col;
};

struct win_manifest {
	const char *name;	  /* AppContainer profile name: heel.p.<16 hex> */
	const char *sid;	  /* S-1-15-2-... derived from name at compile time */
	const char *const *capabilities; /* capability SID strings (S-1-15-3-...) */
	size_t ncapabilities;
	bool lpac;		  /* less privileged AppContainer */
	bool loopback_required;	  /* a proxy on 127.0.0.1: needs the loopback exemption */
	/* The job object. kill-on-close and die-on-unhandled-exception are
	 * always set; 0 means "no limit". */
	uint8_t priority_class;	  /* enum win_priority */
	uint64_t job_memory_bytes;
	uint64_t process_memory_bytes;
	uint32_t active_processes;
	uint32_t cpu_rate_percent;
	const struct win_entry *entries; /* in application order */
	size_t nentries;
};

/* Fills *out from a validated artifact's Windows sections. Strings point
 * into the artifact buffer; the two arrays are allocated (free with
 * win_manifest_free). Returns 0, -ENOENT when the artifact has no Windows
 * part, or -errno with a one-line message in err. */
int win_manifest_from_view(const struct art_view *view, struct win_manifest *out, char *err,
			   size_t errlen);
void win_manifest_free(struct win_manifest *m);

#endif

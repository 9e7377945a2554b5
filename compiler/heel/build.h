/* SPDX-License-Identifier: MIT
 * From what `heel run` (or a libheel caller) asked for to an artifact in
 * memory: the configuration file read, the options merged over it, the
 * paths resolved, the policy text written and compiled by the compiler
 * library. Nothing is written to disk. */
#ifndef HEEL_FRONT_BUILD_H
#define HEEL_FRONT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "settings.h"

/* A path a user named (an option, a TOML key, a builder call), kept as
 * spelled so that, once the policy and so every place a sandbox may
 * write are known, the links it crosses are checked (hostcheck.h):
 * build_text resolves them to the real place for the policy text. */
struct build_named {
	char *path;   /* absolute (the caller's directory in front), links
		       * not followed */
	char *origin; /* "--writable", "heel.toml:4" */
	bool sink;    /* the audit log (appended to), else a grant */
};

struct build_named_list {
	struct build_named *v;
	size_t n, cap;
};

void build_named_free(struct build_named_list *l);
/* Adds a path as spelled (relative: to cwd), for build_check_named;
 * `origin` names where it came from ("--writable", "HOME"). 0 or
 * -ENOMEM; a NULL list keeps nothing. */
int build_named_add(struct build_named_list *l, const char *cwd, const char *spelled,
		    const char *origin, bool sink);

/* The platform heel builds for: the one it runs on (enum ir_platform,
 * numbered as the artifact's platforms are). */
#if defined(__APPLE__)
#define BUILD_HOST_PLATFORM IR_MACOS
#elif defined(_WIN32)
#define BUILD_HOST_PLATFORM IR_WINDOWS
#else
#define BUILD_HOST_PLATFORM IR_LINUX
#endif

struct build_in {
	const struct settings *options; /* the command line; paths as spelled */
	const char *config;		/* --config FILE.heel|FILE.toml, or NULL */
	const char *policy;		/* --policy FILE.heel, or NULL */
	const char *cwd;		/* the caller's directory, absolute */
	bool read_start_dir;		/* the command starts in cwd (its read grant is
					 * not written here: startdir.h decides it) */
	const char *script;		/* heel python SCRIPT: readable too, or NULL */
	bool python;			/* heel python: include <python> */
	struct build_named_list *named;	/* out: the paths named, for
					 * build_check_named; NULL: not kept */
	enum settings_tri *tool_caches;	/* out: tool-caches, the option's over
					 * the file's (toolcache.h); NULL: not kept */
};

/* Writes the policy text into *text (malloc'ed). Problems in files go to
 * `ctx` as FILE:LINE:COL diagnostics; problems with options to err.
 * Returns 0, -EINVAL, -EIO (a file cannot be read), -ENOMEM. */
int build_text(struct diag_ctx *ctx, const struct build_in *in, char **text, char *err,
	       size_t errlen);

/* The host side's check of what build_text resolved, once the artifact
 * is compiled: every place its sandbox may write and every place an
 * earlier run recorded (hostcheck.h), against each path named: no link
 * crossed that a sandbox could have planted (a grant through it would
 * grant what it points to), no audit log where the sandbox writes.
 * Also `exe`, when not NULL: the heel-exec about to be run. 0, or -errno
 * with one line in err. */
int build_check_named(const struct build_named_list *l, const uint8_t *bytes, size_t len,
		      const char *cwd, char *const *env, const char *exe, char *err,
		      size_t errlen);

/* Compiles policy text (named `name` in diagnostics, relative includes
 * taken from the current directory) into an artifact, or only checks it
 * when `bytes` is NULL. With `quiet_top` the text's own scalars replace
 * what it includes without warnings (they are options). Returns 0,
 * -EINVAL (diagnostics in ctx), -EIO, -ENOMEM. */
int build_compile(struct diag_ctx *ctx, const char *name, const char *text, bool quiet_top,
		  uint8_t **bytes, size_t *len);

/* The same for the text build_text rendered (options over the policy
 * they add to), with each rule's origin moved to the option or the TOML
 * line its comment names, as heel-exec will show it. */
int build_compile_options(struct diag_ctx *ctx, const char *name, const char *text,
			  uint8_t **bytes, size_t *len);

/* The text in `heelc fmt` form (*out malloc'ed). -EINVAL when it does not
 * parse (diagnostics in ctx). */
int build_format(struct diag_ctx *ctx, const char *name, const char *text, char **out);

#endif

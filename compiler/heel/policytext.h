/* SPDX-License-Identifier: MIT
 * Settings -> policy text: what `heel run` was asked for, written in the
 * policy language, so that one compiler checks it and `--print-policy`
 * can show it for review. Each statement carries a comment naming the
 * option or configuration line it came from. */
#ifndef HEEL_FRONT_POLICYTEXT_H
#define HEEL_FRONT_POLICYTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

struct policytext_in {
	const struct settings *settings;
	const char *const *includes; /* absolute paths of .heel files, in order */
	size_t nincludes;
};

/* Renders the policy into a malloc'ed NUL-terminated *out. Returns 0,
 * -ENOMEM, or -EINVAL with the reason in err when a value cannot be
 * written in the language (a path holding `${` or a control character). */
int policytext_render(const struct policytext_in *in, char **out, char *err, size_t errlen);

/* `text` with the grant of the directory the command starts in
 * appended: `grant "${CWD}" MODE`, or of `path` (absolute) when the start
 * directory is not the launcher's own; MODE "r" or "rx", as startdir.h
 * decides. Added only when startdir.h says so. Returns 0 with *out
 * malloc'ed, -ENOMEM, or -EINVAL (a path the language cannot name) with
 * the reason in err. */
int policytext_add_start_grant(const char *text, const char *path, const char *mode, char **out,
			       char *err, size_t errlen);

/* The origin the comment of line `line` (1-based) of a text this module
 * rendered names ("--writable ./out", "/x/heel.toml:4:12"), into buf:
 * 0, or -ENOENT for a line without one. */
int policytext_origin_at(const char *text, unsigned line, char *buf, size_t len);

/* A statement `heel run` adds after the policy it was given. */
struct policytext_add {
	bool env;	     /* `env set NAME VALUE`; else `grant PATH rw` */
	const char *name;    /* the variable's name, or the path (absolute) */
	const char *value;   /* env: the value */
	const char *comment; /* why, said after it */
};

/* `text` with `adds` appended, in *out (malloc'ed). 0, -ENOMEM, or
 * -EINVAL (a value the language cannot hold) with the reason in err. */
int policytext_append(const char *text, const struct policytext_add *adds, size_t n, char **out,
		      char *err, size_t errlen);

#endif

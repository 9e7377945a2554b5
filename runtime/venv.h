/* SPDX-License-Identifier: MIT
 * A policy's Python virtual environment (`python { venv ...; packages
 * ...; allow-pip-install ... }`), made on the host, outside any sandbox:
 * where it is after ${NAME} expansion, whether it is there with the
 * policy's packages (recorded in VENV/.heel-packages), making it with
 * `python3 -m venv` and installing with its own pip, run as the caller
 * with the caller's pip settings and nothing of the sandbox's. Inside
 * the sandbox the venv is a Landlock grant of its own (heelc lowers it,
 * docs/landlock.md); this module also refuses a venv the sandbox could
 * write when the policy says it may not (the host runs the venv's pip
 * and python at the next preparation). Linux, libc only: fork and
 * execve, no shell. Never prints: errors come back in err, and what the
 * children (python3, pip) print goes to stderr. heel(5), PYTHON. */
#ifndef HEEL_RUNTIME_VENV_H
#define HEEL_RUNTIME_VENV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "artifact_read.h"
#include "env.h"
#include "hostcheck.h"

/* The record of what heel installed, one requirement a line. */
#define VENV_RECORD ".heel-packages"

enum venv_state {
	VENV_NONE,    /* the policy has no python block */
	VENV_MISSING, /* no venv there: it will be made */
	VENV_PARTIAL, /* a venv, lacking some of the policy's packages */
	VENV_READY,   /* a venv whose record lists every package: reused */
};

struct venv_plan {
	enum venv_state state;
	char path[PATH_MAX];      /* expanded, absolute */
	bool writable;            /* allow-pip-install yes */
	const char **packages;    /* the policy's, into the artifact; npackages */
	size_t npackages;
	const char **missing;     /* not in the record (VENV_PARTIAL, VENV_MISSING) */
	size_t nmissing;
	char python[PATH_MAX];    /* python3: the first on the caller's PATH, or "" */
};

/* Reads the policy's python block for `platform`, expands the venv path
 * (${NAME} from env, relative and ${CWD} against cwd) and looks at what
 * is there. 0 (state VENV_NONE without a block), or -errno with one line
 * in err: a path that does not expand, a symbolic link on the way, a
 * directory there that is not a virtual environment. venv_plan_free()
 * frees it, after success or failure. */
int venv_plan(struct venv_plan *vp, const struct art_view *view, unsigned platform,
	      char *const *env, const char *cwd, char *err, size_t errlen);
void venv_plan_free(struct venv_plan *vp);

/* Refuses (-EPERM, one line in err) a venv without allow-pip-install
 * that the sandbox could write anyway: in or above the kept working
 * directory `workdir` (NULL: a fresh one, which is nowhere on disk), or
 * at, above or beneath a grant of the Landlock table that lets it
 * write. The host would run what the sandbox wrote there. */
int venv_check_places(const struct venv_plan *vp, const struct art_view *view, char *const *env,
		      const char *cwd, const char *workdir, char *err, size_t errlen);

/* What venv_prepare() checks before it runs anything on the host, for a
 * venv to make or complete (nothing for one that is ready): python3,
 * which makes it, is nothing a sandbox could have written; a venv that
 * is there, whose python and pip would run, holds nothing a sandbox
 * could have written (hostcheck.h: this launch's places and every
 * earlier run's) and is not one the policy lets the sandbox write. 0, or
 * -errno with one line in err. */
int venv_check_host(const struct venv_plan *vp, const struct hc_places *ps, char *err,
		    size_t errlen);

/* One line: what venv_prepare() would do, or that it would do nothing. */
void venv_describe(const struct venv_plan *vp, char *buf, size_t len);

/* After venv_check_host: makes the venv when it is missing (python3 -m
 * venv, then its pip installs the packages) and installs what the record
 * lacks, then writes the record. A venv the sandbox may write
 * (allow-pip-install yes) is never run on the host once made: one that
 * lacks packages is refused (-EPERM) rather than handed to its own pip.
 * Python runs isolated (-I: no PYTHON* variable, no user site directory,
 * no script or current directory on sys.path) in "/", so nothing a
 * sandbox left beside the venv or in the launch directory (a pip.py, a
 * .pth) is imported; the children get only the caller's PATH, HOME,
 * user, locale, TMPDIR, proxy, certificate and PIP_* variables from env;
 * their stdout goes to stderr. 0 (state VENV_READY), or -errno with one
 * line in err. */
int venv_prepare(struct venv_plan *vp, char *const *env, const struct hc_places *ps, char *err,
		 size_t errlen);

/* The sandbox's environment for the venv: VIRTUAL_ENV, and its bin/
 * first on PATH. 0 or -ENOMEM. */
int venv_env(const struct venv_plan *vp, struct envb *b);

#endif

/* SPDX-License-Identifier: MIT
 * The names SBPL knows: operations, filters, modifiers and the symbolic
 * constants some filters take, as static tables (sbpl_names.c), for the
 * SBPL checker. */
#ifndef HEEL_COMPILER_SBPL_NAMES_H
#define HEEL_COMPILER_SBPL_NAMES_H

/* Where a name comes from: the base table is macOS 10.15's; a NEWER name
 * appears in current public profiles but its first macOS version is not
 * known (the checker warns: it may fail on an older Mac), an OLDER one
 * was dropped or made a no-op by 10.15 (warned too), an ALIAS is defined
 * by libsandbox's prelude in terms of a base name. */
enum sbpl_name_status {
	SBPL_NAME_BASE,
	SBPL_NAME_ALIAS,
	SBPL_NAME_NEWER,
	SBPL_NAME_OLDER,
};

/* What a filter takes, which decides how the checker reads its arguments. */
enum sbpl_filter_class {
	SBPL_F_PATH,        /* one absolute path: literal, subpath, ... */
	SBPL_F_PATH_PREFIX, /* one absolute path, matched as a raw string prefix */
	SBPL_F_PATH_REGEX,  /* one regex over paths: compiles, anchored with ^ */
	SBPL_F_RELPATH,     /* one path relative to a mount point */
	SBPL_F_NAME,        /* one string: a service, sysctl, class name, ... */
	SBPL_F_NAME_REGEX,  /* one regex over names */
	SBPL_F_INT,         /* one integer or symbolic constant (AF_INET, SIGKILL, ...) */
	SBPL_F_BOOL,        /* nothing, #t or #f */
	SBPL_F_VNODE,       /* vnode-type constants */
	SBPL_F_TARGET,      /* target constants */
	SBPL_F_NETWORK,     /* local/remote: protocol, then an address or a path filter */
	SBPL_F_ALL,         /* require-all: filters */
	SBPL_F_ANY,         /* require-any: filters */
	SBPL_F_NOT,         /* require-not: one filter */
	SBPL_F_ENTITLEMENT, /* require-entitlement: a name, then filters */
	SBPL_F_ENT_VALUE,   /* entitlement-value: #t/#f or a string */
};

struct sbpl_operation_info {
	const char *name;
	enum sbpl_name_status status;
};

struct sbpl_filter_info {
	const char *name;
	enum sbpl_filter_class cls;
	enum sbpl_name_status status;
};

enum sbpl_modifier_arg {
	SBPL_MOD_NONE,   /* no argument */
	SBPL_MOD_STRING, /* one string (message) */
	SBPL_MOD_SIGNAL, /* one signal: SIGKILL, ... or a number */
};

struct sbpl_modifier_info {
	const char *name;
	enum sbpl_modifier_arg arg;
	int rare; /* known, but nothing heel writes uses it: warned */
};

/* NULL when `name` is not in the table. */
const struct sbpl_operation_info *sbpl_operation_lookup(const char *name);
const struct sbpl_filter_info *sbpl_filter_lookup(const char *name);
const struct sbpl_modifier_info *sbpl_modifier_lookup(const char *name);

/* NULL-terminated lists of every name, for "did you mean". */
extern const char *const sbpl_operation_names[];
extern const char *const sbpl_filter_names[];
extern const char *const sbpl_modifier_names[];
extern const char *const sbpl_vnode_types[];
extern const char *const sbpl_targets[];
/* The protocols local/remote take; "unix-socket" takes a path filter. */
extern const char *const sbpl_net_protocols[];

/* 1 when `word` is in the NULL-terminated `list`. */
int sbpl_name_in(const char *word, const char *const *list);

#endif

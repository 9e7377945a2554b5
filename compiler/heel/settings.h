/* SPDX-License-Identifier: MIT
 * What `heel run` (and libheel's builder) is asked for: the original
 * heel's options, from the command line or a configuration file, kept
 * with where each came from. settings_merge() applies the original's
 * precedence; policytext.h turns the result into policy text. */
#ifndef HEEL_FRONT_SETTINGS_H
#define HEEL_FRONT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

/* The protection sets of heel(5), in the order options list them. */
enum settings_set {
	SET_USER_HOME,
	SET_CREDENTIALS,
	SET_CLOUD_CONFIG,
	SET_BROWSER_DATA,
	SET_KEYCHAINS,
	SET_SHELL_HISTORY,
	SET_PACKAGE_CREDENTIALS,
	SET_SHARED_TEMP,
	SET_HOST_RUN,
	SET_COUNT
};

/* The limits of heel(5), in the same order as the language lists them. */
enum settings_limit {
	LIM_MEMORY,
	LIM_CPU,
	LIM_PROCESSES,
	LIM_OPEN_FILES,
	LIM_FILE_SIZE,
	LIM_STACK,
	LIM_CORE,
	LIM_COUNT
};

enum settings_tri { TRI_UNSET, TRI_ON, TRI_OFF };

/* A scalar setting: its value in policy-language form, and where it was
 * given ("--nice 5", "heel.toml:3:1"), for comments and messages. */
struct settings_scalar {
	char *value; /* NULL when not given */
	char *origin;
};

struct settings_flag {
	enum settings_tri on;
	char *origin;
};

struct settings_grant {
	char *path; /* absolute, links resolved (see pathres.h) */
	char *mode; /* r, rw, rx or rwx */
	char *origin;
};

struct settings_env {
	char *name;
	char *value; /* NULL: pass the launcher's value through */
	char *origin;
};

struct settings_domain {
	char *pattern;
	char *origin;
};

/* A stock preset to include (`--preset python`): its name, as checked
 * by values_preset. */
struct settings_preset {
	char *name;
	char *origin;
};

struct settings {
	struct settings_scalar isolation;
	struct settings_scalar network; /* deny, allow-all, allow-list */
	struct settings_domain *domains;
	size_t ndomains;
	struct settings_flag allow_private; /* network allow-private */
	struct settings_preset *presets;    /* included first, in order */
	size_t npresets;
	struct settings_scalar audit_log;   /* a file, absolute */
	struct settings_grant *grants;
	size_t ngrants;
	struct settings_flag protect[SET_COUNT];
	struct settings_flag gpu;
	struct settings_scalar nice;
	struct settings_scalar io_priority;
	struct settings_scalar limits[LIM_COUNT];
	struct settings_scalar working_dir; /* absolute */
	struct settings_flag keep_working_dir;
	struct settings_flag tool_caches; /* heel run's, not the policy's (toolcache.h) */
	struct settings_env *env;
	size_t nenv;
};

const char *settings_set_name(enum settings_set set);
const char *settings_limit_name(enum settings_limit lim);
/* -1 when `name` is not a set (or limit) name. */
int settings_set_from_name(const char *name);
int settings_limit_from_name(const char *name);

/* Setters copy their strings. 0, or -ENOMEM. A later call for a scalar
 * replaces the value; lists append. */
int settings_set_scalar(struct settings_scalar *s, const char *value, const char *origin);
int settings_set_flag(struct settings_flag *f, bool on, const char *origin);
int settings_add_grant(struct settings *s, const char *path, const char *mode, const char *origin);
int settings_add_env(struct settings *s, const char *name, const char *value, const char *origin);
int settings_add_domain(struct settings *s, const char *pattern, const char *origin);
int settings_add_preset(struct settings *s, const char *name, const char *origin);

/* `top` on top of `base` (the command line over a configuration file):
 * a scalar given in `top` wins, lists are `base`'s then `top`'s, grants
 * of one path are both kept (the compiler unions their modes and
 * refuses rw with rx, as in the language). Result in *out (caller frees
 * with settings_free). 0 or -ENOMEM. */
int settings_merge(const struct settings *base, const struct settings *top, struct settings *out);

void settings_free(struct settings *s);

/* Canonical mode for what the original accepts: the letters r, w, x in
 * any order, each once, r required ("wr" -> "rw"). NULL when invalid,
 * with the reason in *why. */
const char *settings_mode_canonical(const char *letters, const char **why);

#endif

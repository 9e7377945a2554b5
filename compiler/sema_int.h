/* SPDX-License-Identifier: MIT
 * Internals shared by the semantic analysis modules: the loaded files
 * (load.c), the state statements accumulate while they are evaluated
 * (sema.c), path and network checks (sema_paths.c, sema_network.c).
 * Not part of the compiler library's API: only sema.h is. */
#ifndef HEEL_COMPILER_SEMA_INT_H
#define HEEL_COMPILER_SEMA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ast.h"
#include "diag.h"
#include "ir.h"
#include "sema.h"

/* ------------------------------------------------------------ files */

enum sema_inc_status {
	SEMA_INC_OK,	    /* target loaded: evaluate it in place */
	SEMA_INC_DUPLICATE, /* loaded earlier (a diamond): a silent no-op */
	SEMA_INC_ERROR,	    /* message/hint pushed when evaluation reaches it */
};

/* The outcome of one `include`, decided while loading and reported when
 * evaluation reaches the statement, so diagnostics come in source order. */
struct sema_include {
	const struct ast_stmt *stmt;
	enum sema_inc_status status;
	struct sema_file *target;
	struct diag_loc loc;
	char *message;
	char *hint;
};

struct sema_file {
	const struct diag_source *src;
	struct ast_file *ast; /* NULL when parsing ran out of memory */
	bool parse_failed;
	bool embedded;	    /* from presets_find() */
	uint8_t source;	    /* enum ir_rule_source of its statements */
	const char *origin; /* interned in the IR's pool */
	char *dir;	    /* where its "file.heel" includes are opened ("" = cwd) */
	char *origin_dir;   /* the same relative to the top file's dir ("" = that dir) */
	bool has_id;	    /* dev/ino known: diamonds and cycles */
	dev_t dev;
	ino_t ino;
	char *preset; /* embedded: its name under policies/ */
	struct sema_file *includer;
	struct sema_include *incs;
	size_t nincs, cap_incs;
	bool entered; /* evaluation reached it (digest order) */
};

/* ------------------------------------------------------------ state */

/* Scalars whose re-setting warns ("set again"). */
enum sema_slot {
	SEMA_SLOT_ISOLATION,
	SEMA_SLOT_NETWORK,
	SEMA_SLOT_AUDIT,
	SEMA_SLOT_DECIDE,
	SEMA_SLOT_NICE,
	SEMA_SLOT_IO_PRIORITY,
	SEMA_SLOT_WORKDIR,
	SEMA_SLOT_GPU,
	SEMA_SLOT_PYTHON,
	SEMA_SLOT_LIMIT0, /* + enum ir_limit */
	SEMA_SLOT_COUNT = SEMA_SLOT_LIMIT0 + IR_LIMIT_COUNT
};

struct sema_slot_state {
	bool set;
	bool stock; /* set by a base or protection set: overriding it is silent */
	struct diag_loc loc;
};

/* How one statement is being evaluated. */
struct sema_ectx {
	struct sema_file *file;
	unsigned mask;	/* platforms its rules apply to */
	int platform;	/* inside `on P { }`: P; else -1 */
	uint8_t source; /* enum ir_rule_source */
	uint8_t set;	/* protection set being evaluated, or IR_SET_NONE */
};

/* One path on one platform, as the statements so far leave it. */
struct sema_cell {
	bool present;
	uint8_t mode;
	bool optional;
	uint8_t set;
	uint8_t source;
	struct ir_origin origin;
	struct diag_loc loc;
};

struct sema_path {
	char *path;
	struct sema_cell cell[IR_PLATFORM_COUNT];
};

/* One `readonly` path on one platform, as the statements so far leave it. */
struct sema_ro_cell {
	bool present;
	char *because;
	uint8_t set;
	uint8_t source;
	struct ir_origin origin;
	struct diag_loc loc;
};

struct sema_readonly {
	char *path;
	bool each_writable;
	struct sema_ro_cell cell[IR_PLATFORM_COUNT];
};

struct sema_pattern {
	char *host;
	uint16_t port;
	uint8_t platforms;
	size_t seq; /* evaluation order: the first origin wins */
	struct ir_origin origin;
	struct diag_loc loc; /* the pattern's string, for warnings */
};

struct sema_env_cell {
	bool present;
	char *value;
	struct ir_origin origin;
	struct diag_loc loc;
};

struct sema_env {
	char *name;
	uint8_t pass_mask;
	struct ir_origin pass_origin;
	struct sema_env_cell set[IR_PLATFORM_COUNT];
};

struct sema_seccomp {
	struct ir_seccomp_rule rule;
	struct diag_loc loc;
};

struct sema_named {
	char *value;
	struct ir_origin origin;
	struct diag_loc loc;
	size_t seq; /* statement order: the first of equal names wins */
};

struct sema_ipc {
	struct ir_ipc ipc;
	struct diag_loc loc;
};

/* String -> index, open addressing. Keys are borrowed: they must outlive
 * the map (they point into the entries the index refers to). */
struct sema_map {
	const char **keys;
	size_t *values;
	size_t cap, n;
};

struct sema {
	struct diag_ctx *ctx;
	const struct sema_options *opts;
	struct ir_policy *ir;
	bool oom;

	struct sema_file **files; /* every loaded file, owned */
	size_t nfiles, cap_files;
	struct sema_file **order; /* files in evaluation order (digest) */
	size_t norder, cap_order;

	struct sema_slot_state slots[SEMA_SLOT_COUNT][IR_PLATFORM_COUNT];
	uint16_t protections[IR_PLATFORM_COUNT]; /* bit per enum ir_protect_set */
	struct ir_origin protections_origin[IR_PLATFORM_COUNT];
	bool unix_sockets_set;

	struct sema_path *paths;
	size_t npaths, cap_paths;
	struct sema_map path_index;

	struct sema_readonly *readonly;
	size_t nreadonly, cap_readonly;

	struct sema_pattern *patterns;
	size_t npatterns, cap_patterns;
	unsigned bad_patterns; /* platforms where a pattern was refused */
	struct diag_loc decider_loc[IR_PLATFORM_COUNT]; /* the program string in force */
	struct diag_loc audit_loc[IR_PLATFORM_COUNT];	/* the audit sink string in force */

	struct sema_env *env;
	size_t nenv, cap_env;
	struct sema_map env_index;

	struct sema_seccomp *seccomp;
	size_t nseccomp, cap_seccomp;
	struct sema_map seccomp_index;

	struct sema_ipc *ipc;
	size_t nipc, cap_ipc;

	struct sema_named *mach, *sbpl, *caps;
	size_t nmach, cap_mach, nsbpl, cap_sbpl, ncaps, cap_caps;
};

/* ------------------------------------------------------------ helpers */

/* grow_array() so index n fits, in sema's terms: 0, or -ENOMEM with
 * s->oom set. */
int sema_grow(struct sema *s, void **arr, size_t *cap, size_t n, size_t elem);
char *sema_strdup(struct sema *s, const char *str);
char *sema_strndup(struct sema *s, const char *str, size_t len);

int sema_map_get(const struct sema_map *m, const char *key, size_t *value);
int sema_map_put(struct sema *s, struct sema_map *m, const char *key, size_t value);
void sema_map_free(struct sema_map *m);

struct ir_origin sema_origin(const struct sema_ectx *e, const struct diag_loc *loc);

/* Pushes "unknown WHAT `word`" with "did you mean" over `cands`, or a hint
 * listing them when they are few and none is close. */
void sema_unknown_word(struct sema *s, const struct diag_loc *loc, const char *what,
		       const char *word, const char *const *cands);

/* The platforms named in `mask`, e.g. "macos and windows", written into
 * buf, which is returned (no static buffer: libheel compiles policies on
 * many threads at once). */
#define SEMA_PLATFORM_LIST_MAX 64
const char *sema_platform_list(unsigned mask, char buf[static SEMA_PLATFORM_LIST_MAX]);

/* ------------------------------------------------------------ loading (load.c) */

/* Reads and parses the top file and, recursively, what it includes.
 * 0, -EIO (top file unreadable, diagnostic pushed), -ENOMEM. */
int load_top(struct sema *s);

/* Loads the embedded policy `name` (a base or a protection set) as a file
 * of its own. NULL when heelc was built without it (no diagnostic) or on
 * out-of-memory (s->oom). */
struct sema_file *load_embedded(struct sema *s, const char *name, uint8_t source);

/* The language version line of a file: 1 = `heel 1`, 0 = missing,
 * -1 = another version. */
int load_version(const struct sema_file *f);

void load_free(struct sema *s);

/* ------------------------------------------------------------ paths (sema_paths.c) */

enum sema_path_use {
	SEMA_PATH_GRANT,
	SEMA_PATH_DENY,
	SEMA_PATH_READONLY,
	SEMA_PATH_WORKDIR,
	SEMA_PATH_AUDIT,
	SEMA_PATH_VENV,
	SEMA_PATH_EXEC,
	SEMA_PATH_DECIDER,
};

/* Checks a path string against the spelling rules (no `.`/`..` other
 * than a leading `./`, no `//`, no trailing `/`, `${NAME}` well formed,
 * only characters that show) and the platform of its block. On success *mask holds the platforms it
 * applies to and *norm the form kept in the IR (caller frees). Returns 0,
 * or -EINVAL after pushing one error pointing at the offending character. */
int sema_check_path(struct sema *s, const struct ast_arg *a, const struct sema_ectx *e,
		    enum sema_path_use use, unsigned *mask, char **norm);

/* Parses a grant mode word: IR_MODE_* or -1 after pushing an error. */
int sema_parse_mode(struct sema *s, const struct ast_arg *a);

/* Adds a grant (mode != 0) or deny of `path` on the platforms of `mask`. */
void sema_add_path_rule(struct sema *s, const char *path, uint8_t mode, bool optional,
			unsigned mask, const struct sema_ectx *e, const struct diag_loc *loc);

/* Adds a `readonly` of `path` (each_writable: relative to every
 * writable place) on the platforms of `mask`; `because` may be NULL. */
void sema_add_readonly(struct sema *s, const char *path, bool each_writable, const char *because,
		       unsigned mask, const struct sema_ectx *e, const struct diag_loc *loc);

/* Moves the accumulated rules into the IR, sorted and merged. */
int sema_build_paths(struct sema *s);

/* Settles each `readonly` of a path against a grant or deny of the very
 * same path (an explicit grant wins, a deny makes it moot, a grant the
 * isolation base made loses its write), then moves them into the IR.
 * Before sema_build_paths: it may narrow a base grant. */
int sema_build_readonly(struct sema *s);

/* Frees the accumulated readonly statements. */
void sema_free_readonly(struct sema *s);

/* ------------------------------------------------------------ network (sema_network.c) */

/* Checks and normalises one allow-list pattern; adds it for `mask`. */
void sema_add_pattern(struct sema *s, const struct ast_arg *a, const struct sema_ectx *e,
		      unsigned mask);

/* Warns about allow-list entries that can never be reached (loopback
 * names and addresses, private ranges without allow-private, ...), once
 * the final network settings are known. */
void sema_warn_patterns(struct sema *s);

/* Refuses a `network decide` program the same policy lets the sandbox
 * write: beneath a writable grant, or inside its working directory. */
void sema_check_decider(struct sema *s);

/* Refuses a `network audit` sink the same policy lets the sandbox write:
 * the sink or its directory at or beneath a writable grant or the working
 * directory, or for a daily sink a writable place beneath its directory
 * (in every spelling that can be compared before launch). */
void sema_check_audit(struct sema *s);

/* Sorts and merges the patterns, keeps those of platforms whose final
 * network kind is the allow-list, and moves them into the IR. */
int sema_build_patterns(struct sema *s);

/* ------------------------------------------------------------ limits (sema_limits.c) */

/* What the artifact's macOS and Windows parts can hold (SBPL parameters,
 * ACE entries): past a limit, an error at the path statement that passes
 * it. After build, on a policy without errors. */
void sema_check_limits(struct sema *s);

/* ------------------------------------------------------------ windows (sema_windows.c) */

/* What a Windows AppContainer cannot honour (docs/acl-manifest.md): an
 * error each when windows was asked for with --target, else a warning
 * each and the Windows part left out. Also refuses a network capability
 * under any network mode. After the settings are final, before build. */
void sema_check_windows(struct sema *s);

/* `capability NAME` of a name that is not a well-known capability:
 * true when it is a capability name heelc derives the SID of; false
 * (with a diagnostic) for a misspelt well-known name or a malformed one.
 * `known` is the well-known names, NULL-terminated. */
bool sema_capability_other(struct sema *s, const struct ast_arg *a, const char *const *known);

#endif

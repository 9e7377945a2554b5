/* SPDX-License-Identifier: MIT
 * The syntax tree the grammar builds: one node per statement, keywords
 * folded into the node kind and flags, everything the user wrote after
 * them kept as arguments with their exact positions. Nothing here is
 * checked for meaning; that is sema's job. */
#ifndef HEEL_COMPILER_AST_H
#define HEEL_COMPILER_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum ast_arg_kind {
	AST_ARG_WORD,   /* lower-case bare word: r, rwx, strict, memory, yes, linux */
	AST_ARG_UPPER,  /* upper-case bare word: errno names (EPERM) */
	AST_ARG_NUMBER, /* digits with an optional attached unit: 1, 2GiB, 60s */
	AST_ARG_STRING, /* "..." with escapes decoded */
	AST_ARG_ANGLE,  /* <name> of include */
};

struct ast_arg {
	enum ast_arg_kind kind;
	char *text;   /* WORD/UPPER/NUMBER: spelling; ANGLE: the name inside <>;
		       * STRING: decoded value, NUL-terminated (may hold an
		       * embedded NUL from \x00: use len) */
	size_t len;   /* length of text in bytes */
	char *raw;    /* STRING: the source between the quotes, undecoded;
		       * NULL for other kinds */
	struct diag_loc loc; /* first character (the opening quote of a string) */
};

enum ast_kind {
	AST_HEEL,                 /* heel NUMBER */
	AST_ISOLATION,            /* isolation WORD */
	AST_INCLUDE,              /* include ANGLE|STRING */
	AST_GRANT,                /* grant STRING WORD [optional] */
	AST_DENY,                 /* deny STRING */
	AST_PROTECT,              /* protect WORD... */
	AST_UNPROTECT,            /* unprotect WORD... */
	AST_ALLOW_GPU,            /* allow gpu */
	AST_DENY_GPU,             /* deny gpu */
	AST_NETWORK_DENY,         /* network deny */
	AST_NETWORK_ALLOW_ALL,    /* network allow-all */
	AST_NETWORK_ALLOW,        /* network allow { children: AST_PATTERN } */
	AST_PATTERN,              /* STRING inside network allow { } */
	AST_NETWORK_ALLOW_PRIVATE,/* network allow-private */
	AST_NETWORK_AUDIT,        /* network audit [daily] STRING  (flag AST_F_DAILY) */
	AST_NETWORK_DECIDE,       /* network decide STRING STRING... (program, arguments) */
	AST_LIMIT,                /* limit WORD NUMBER */
	AST_NICE,                 /* nice NUMBER */
	AST_IO_PRIORITY,          /* io-priority WORD */
	AST_ENV_PASS,             /* env pass STRING... */
	AST_ENV_SET,              /* env set STRING STRING */
	AST_WORKDIR,              /* workdir STRING */
	AST_IPC,                  /* ipc STRING { children: AST_IPC_* } */
	AST_IPC_EXEC,             /* exec STRING */
	AST_IPC_POSITIONAL,       /* positional STRING... */
	AST_IPC_TIMEOUT,          /* timeout NUMBER */
	AST_IPC_ARG,              /* arg STRING WORD (name, type) */
	AST_PYTHON,               /* python { children: AST_PY_* } */
	AST_PY_VENV,              /* venv STRING */
	AST_PY_PACKAGES,          /* packages STRING... */
	AST_PY_ALLOW_PIP,         /* allow-pip-install WORD (yes|no) */
	AST_ON,                   /* on WORD { children: statements } */
	AST_SECCOMP,              /* seccomp deny|allow STRING [errno UPPER] (flag AST_F_ALLOW for allow) */
	AST_ALLOW_UNIX_SOCKETS,   /* allow unix-sockets */
	AST_ALLOW_MACH_LOOKUP,    /* allow mach-lookup STRING */
	AST_SBPL,                 /* sbpl STRING */
	AST_CAPABILITY,           /* capability STRING */
	AST_READONLY,             /* readonly [each-writable] STRING [because STRING]
				   * (flags AST_F_EACH_WRITABLE, AST_F_BECAUSE: last arg is the reason) */
	AST_KIND_COUNT
};

enum ast_flag {
	AST_F_OPTIONAL = 1 << 0, /* grant ... optional */
	AST_F_DAILY = 1 << 1,    /* network audit daily */
	AST_F_ALLOW = 1 << 2,    /* seccomp allow (absent: seccomp deny) */
	AST_F_ERRNO = 1 << 3,    /* seccomp deny NAME errno ENAME: last arg is the errno */
	AST_F_EACH_WRITABLE = 1 << 4, /* readonly each-writable "PATH" */
	AST_F_BECAUSE = 1 << 5,  /* readonly ... because "WHY": last arg is the reason */
};

struct ast_stmt {
	enum ast_kind kind;
	unsigned flags;
	struct diag_loc loc;       /* the statement's first keyword */
	uint32_t last_line;        /* line of the statement's last token (closing brace for blocks) */
	struct ast_arg *args;
	size_t nargs, cap_args;
	struct diag_loc flag_loc;  /* position of `optional`/`daily`/`errno`/`because` when flagged */
	struct ast_stmt *children; /* block contents, in order; NULL when none */
	struct ast_stmt *next;     /* next sibling */
};

/* A comment, kept for fmt. `trailing` when code precedes it on its line. */
struct ast_comment {
	struct diag_loc loc;
	char *text;                /* from '#' to end of line, without the newline */
	bool trailing;
};

/* One parsed file. Caller frees with ast_file_free(). */
struct ast_file {
	const struct diag_source *src;
	struct ast_stmt *stmts;
	struct ast_comment *comments;
	size_t ncomments;
	/* Lines that were blank in the source, for fmt to keep one blank line
	 * between groups: blank[i] is true when line i+1 holds only spaces. */
	bool *blank;
	uint32_t nlines;
};

/* Constructors used by the grammar actions. Each returns NULL on
 * out-of-memory; the *_append functions take ownership of their argument. */
struct ast_stmt *ast_stmt_new(enum ast_kind kind, struct diag_loc loc);
int ast_stmt_add_arg(struct ast_stmt *stmt, struct ast_arg *arg); /* takes ownership of *arg's strings, copies the struct */
struct ast_stmt *ast_stmt_append(struct ast_stmt *list, struct ast_stmt *stmt);
void ast_stmt_free(struct ast_stmt *stmt); /* frees the whole sibling chain and children */
void ast_arg_clear(struct ast_arg *arg);
void ast_file_free(struct ast_file *file);

/* The keyword spelling of a kind, e.g. "grant", "network allow-all". */
const char *ast_kind_name(enum ast_kind kind);

/* Location of the byte at offset `byte` of a STRING argument's decoded
 * value, mapped back through escapes to the source column. */
struct diag_loc ast_string_loc(const struct ast_arg *arg, size_t byte);

#endif

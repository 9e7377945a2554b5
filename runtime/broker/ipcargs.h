/* SPDX-License-Identifier: MIT
 * A host command's declaration and the one parser of its calls: from the
 * caller's argv (and stdin, when an argument is `-`) to the host
 * command's argv, or a message naming the argument that is wrong. Every
 * step is pure except ipcargs_resolve(), which asks the kernel whether
 * the `path` arguments and the caller's directory resolve beneath the
 * working directory. Messages never start with the command's name: the
 * client prints "NAME: message". Never prints. */
#ifndef HEEL_BROKER_IPCARGS_H
#define HEEL_BROKER_IPCARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "ipc_abi.h"

/* A name is 1 to IPCARGS_NAME_MAX bytes of [A-Za-z0-9_.-], not starting
 * with '-' or '.'; a command has at most IPCARGS_PARAMS_MAX of them. */
#define IPCARGS_NAME_MAX 64
#define IPCARGS_PARAMS_MAX 64
/* The caller's argv: words, and bytes of words together. */
#define IPCARGS_ARGV_MAX 4096

struct ipc_param {
	char *name;
	enum ipc_arg_type type;
	bool positional;
};

/* One `ipc` block. params: the positionals in order, then the other
 * `arg` lines in order (the host command's argv follows it). */
struct ipc_command {
	char *name;
	char *exec;
	long timeout_ms;
	struct ipc_param params[IPCARGS_PARAMS_MAX];
	size_t nparams;
	size_t npositional;
	/* While the declaration is read: the `arg` lines, and the
	 * positionals, before ipcargs_command_finish() orders them. */
	struct ipc_param args[IPCARGS_PARAMS_MAX];
	size_t nargs;
	char *positionals[IPCARGS_PARAMS_MAX];
	size_t npositionals_seen;
};

/* Declaration, one line at a time (the control messages' order), then
 * finish: a duplicate or badly formed name, a bool positional, too many
 * names are -EINVAL with a message. Strings are copied. */
int ipcargs_command_init(struct ipc_command *c, const char *name, char *err, size_t errlen);
int ipcargs_command_add_positional(struct ipc_command *c, const char *name, char *err,
				   size_t errlen);
/* spec: "TYPE NAME", TYPE string|int|bool|path. */
int ipcargs_command_add_arg(struct ipc_command *c, const char *spec, char *err, size_t errlen);
int ipcargs_command_finish(struct ipc_command *c, char *err, size_t errlen);
void ipcargs_command_free(struct ipc_command *c);

/* Whether name is a valid command or argument name. */
bool ipcargs_name_ok(const char *name);

/* One argument's value after parsing. */
struct ipc_value {
	bool given;
	bool from_stdin;
	char *text; /* owned: the value as the host command gets it */
};

struct ipc_parsed {
	struct ipc_value v[IPCARGS_PARAMS_MAX]; /* as c->params */
	bool help;			       /* -h/--help: print the usage, run nothing */
};

/* The pure step. argv: the caller's words (argv[0] excluded); stdin_text
 * (NULL: none sent, else stdin_len bytes); workdir: the working directory
 * as the sandbox sees it (absolute); cwd: the caller's directory (as the
 * sandbox sees it). `path` values come out relative to the working
 * directory ("." for itself), for ipcargs_resolve(). 0, or -EINVAL with
 * the message in err. p is filled either way: ipcargs_parsed_free(). */
int ipcargs_parse(const struct ipc_command *c, size_t argc, char *const *argv,
		  const char *stdin_text, size_t stdin_len, const char *workdir, const char *cwd,
		  struct ipc_parsed *p, char *err, size_t errlen);

void ipcargs_parsed_free(struct ipc_parsed *p);

/* Lexical normalisation of path (relative to cwd, when not absolute),
 * relative to workdir: "." for workdir itself, else "a/b"; -EXDEV when it
 * is outside, -EINVAL when neither path nor cwd is absolute. out holds
 * cap bytes (-ENAMETOOLONG). */
int ipcargs_beneath(const char *workdir, const char *cwd, const char *path, char *out,
		    size_t cap);

/* The path `to` (relative to the working directory, as above) relative to
 * the directory `from` (likewise): "../x", "x/y" or ".". -ENAMETOOLONG. */
int ipcargs_relative(const char *from, const char *to, char *out, size_t cap);

/* The usage line (with its newline) for -h/--help. */
int ipcargs_usage(const struct ipc_command *c, char *out, size_t cap);

/* The resolution step, with the working directory's descriptor: the
 * caller's directory cwd (as in ipcargs_parse) becomes *dirfd (O_PATH,
 * the host command's directory: cwd when it resolves beneath the working
 * directory, else the working directory itself); each `path` value must
 * resolve beneath it (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS; a missing
 * last component is fine when its parent resolves and it is no dangling
 * link) and is rewritten relative to *dirfd's directory. 0, or -errno
 * with a message naming the argument. */
int ipcargs_resolve(const struct ipc_command *c, struct ipc_parsed *p, int workdir_fd,
		    const char *workdir, const char *cwd, int *dirfd, char *err, size_t errlen);

/* The host command's argv: exec, then "--name=value" for each argument
 * given, in params order; NULL-terminated; caller frees with
 * ipcargs_argv_free(). NULL when out of memory. */
char **ipcargs_argv(const struct ipc_command *c, const struct ipc_parsed *p);
void ipcargs_argv_free(char **argv);

#endif

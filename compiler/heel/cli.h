/* SPDX-License-Identifier: MIT
 * The command line of `heel run|shell|python`: the original heel's
 * options, checked as they are read, into settings plus what the launch
 * itself needs. */
#ifndef HEEL_FRONT_CLI_H
#define HEEL_FRONT_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

enum cli_command { CLI_RUN, CLI_SHELL, CLI_PYTHON };

#define CLI_MAX_ACCEPT 16

struct cli {
	enum cli_command command;
	struct settings opts;	 /* paths as spelled; resolved later */
	const char *policy;	 /* --policy FILE.heel|FILE.hpol */
	const char *config;	 /* --config FILE.heel|FILE.toml */
	bool print_policy;
	bool prepare;		 /* heel python --prepare: the venv only */
	bool best_effort;
	bool no_namespaces;
	bool why;		 /* --why: heel-exec --why (heel-why watches) */
	int verbose;
	const char *accept[CLI_MAX_ACCEPT];
	size_t naccept;
	const char *shell;	 /* heel shell --shell PATH */
	const char *python_code; /* heel python -c CODE */
	char **args;		 /* run: CMD ARGS; python: SCRIPT ARGS or ARGS after -c CODE */
	int nargs;
	/* The first option that changes the policy, as spelled: a compiled
	 * artifact (--policy FILE.hpol) cannot take it. */
	char policy_option[512];
};

enum cli_result { CLI_OK, CLI_HELP, CLI_VERSION, CLI_ERROR };

/* Parses argv (argv[0] is the program). On CLI_ERROR the reason is in
 * err. The strings in *out point into argv or are owned by out->opts
 * (free with cli_free). */
enum cli_result cli_parse(int argc, char **argv, struct cli *out, char *err, size_t errlen);
void cli_free(struct cli *c);

/* The usage text (short) and the help text (every option). */
extern const char cli_usage[];
extern const char cli_help[];

#endif

/* SPDX-License-Identifier: MIT
 * `heel`'s command line (see cli.h). Every value is checked here, so a
 * mistake is reported against the option that holds it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"
#include "values.h"

const char cli_usage[] =
	"usage: heel run [OPTIONS] [--] CMD [ARG...]\n"
	"       heel shell [OPTIONS] [--shell PATH]\n"
	"       heel python [OPTIONS] SCRIPT|-c CODE [ARG...]\n"
	"       heel python [OPTIONS] --prepare\n"
	"       heel doctor [--json]\n"
	"       heel --help | --version\n";

const char cli_help[] =
	"\n"
	"Runs a command in a heel sandbox built from these options (and a\n"
	"configuration file), compiled in memory and applied by heel-exec.\n"
	"The command starts in the current directory, which it can read; the\n"
	"only places it can write are a fresh working directory (also TMPDIR),\n"
	"removed afterwards, and its tools' caches (npm, pip, ...; one per\n"
	"project, never the host's), unless a grant says otherwise.\n"
	"\n"
	"policy:\n"
	"  --isolation strict|default|permissive   the base (default: default)\n"
	"  --policy FILE.heel|FILE.hpol             start from this policy\n"
	"  --config FILE.heel|FILE.toml             settings from a file; options beat it\n"
	"  --preset NAME                            include a stock preset: python, node,\n"
	"        rust, git (repeatable; heel python includes python itself)\n"
	"  --grant PATH=MODE                        MODE r, rw, rx or rwx\n"
	"  --readable PATH, --writable PATH, --executable PATH   =r, =rw, =rx\n"
	"  --protect-SET[=true|false]               SET: user-home, credentials,\n"
	"        cloud-config, browser-data, keychains, shell-history,\n"
	"        package-credentials, shared-temp, host-run\n"
	"  --allow-gpu[=true|false]\n"
	"  --network deny|allow-all|allow-list      (default: deny)\n"
	"  --allow-domain PATTERN                   repeatable; implies allow-list\n"
	"  --allow-private[=true|false]             also private ranges (RFC 1918, CGNAT, ULA)\n"
	"  --audit-log FILE                         JSON lines of every network decision\n"
	"  --max-memory SIZE, --max-cpu-time SECS, --max-file-size SIZE,\n"
	"  --max-processes N, --max-open-files N, --limit NAME=VALUE\n"
	"  --nice 1..19, --io-priority utility|background\n"
	"  --env NAME[=VALUE]                       pass NAME through, or set it\n"
	"  --working-dir DIR                        a kept working directory\n"
	"  --keep-working-dir                       keep the fresh one (its path is printed)\n"
	"  --tool-caches[=true|false]               npm, pip, Go, ... caches of the sandbox's\n"
	"                                           own (default: on, off under strict)\n"
	"  --print-policy                           print the policy as .heel text, run nothing\n"
	"\n"
	"launch:\n"
	"  --best-effort [--no-namespaces]          accept what this machine cannot enforce,\n"
	"                                           printing each weakening\n"
	"  --accept WEAKENING                       accept one weakening by name\n"
	"  --why                                    at exit, say which actions the walls\n"
	"                                           refused, the rule and what allows each\n"
	"  -v                                       say what is enforced\n"
	"  --shell PATH                             heel shell: the shell (default $SHELL)\n"
	"  -c CODE                                  heel python: code instead of a script\n"
	"  --prepare                                heel python: make the policy's venv\n"
	"                                           and install its packages, run nothing\n"
	"\n"
	"Exit status: the command's own; 128+N when it died of signal N; 125 when\n"
	"heel or heel-exec failed; 126/127 when the command could not be run.\n"
	"See heel(1), heel(5), heel-exec(1).\n";

enum {
	OPT_ISOLATION = 256,
	OPT_NETWORK,
	OPT_ALLOW_DOMAIN,
	OPT_AUDIT_LOG,
	OPT_GRANT,
	OPT_READABLE,
	OPT_WRITABLE,
	OPT_EXECUTABLE,
	OPT_ALLOW_GPU,
	OPT_NICE,
	OPT_IO_PRIORITY,
	OPT_LIMIT,
	OPT_WORKING_DIR,
	OPT_KEEP_WORKING_DIR,
	OPT_TOOL_CACHES,
	OPT_ENV,
	OPT_BEST_EFFORT,
	OPT_NO_NAMESPACES,
	OPT_WHY,
	OPT_ACCEPT,
	OPT_POLICY,
	OPT_CONFIG,
	OPT_PRINT_POLICY,
	OPT_PREPARE,
	OPT_SHELL,
	OPT_VERSION,
	OPT_PRESET,
	OPT_ALLOW_PRIVATE,
	OPT_PROTECT_HOME,     /* the original's spelling of user-home */
	OPT_PROTECT_KEYCHAIN, /* the original's spelling of keychains */
	OPT_PROTECT = 512,    /* + enum settings_set */
	OPT_MAX = 640,	      /* + enum settings_limit */
};

static const struct option base_options[] = {
	{ "isolation", required_argument, NULL, OPT_ISOLATION },
	{ "network", required_argument, NULL, OPT_NETWORK },
	{ "allow-domain", required_argument, NULL, OPT_ALLOW_DOMAIN },
	{ "allow-private", optional_argument, NULL, OPT_ALLOW_PRIVATE },
	{ "preset", required_argument, NULL, OPT_PRESET },
	{ "audit-log", required_argument, NULL, OPT_AUDIT_LOG },
	{ "grant", required_argument, NULL, OPT_GRANT },
	{ "readable", required_argument, NULL, OPT_READABLE },
	{ "writable", required_argument, NULL, OPT_WRITABLE },
	{ "executable", required_argument, NULL, OPT_EXECUTABLE },
	{ "allow-gpu", optional_argument, NULL, OPT_ALLOW_GPU },
	{ "nice", required_argument, NULL, OPT_NICE },
	{ "io-priority", required_argument, NULL, OPT_IO_PRIORITY },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "max-memory", required_argument, NULL, OPT_MAX + LIM_MEMORY },
	{ "max-cpu-time", required_argument, NULL, OPT_MAX + LIM_CPU },
	{ "max-processes", required_argument, NULL, OPT_MAX + LIM_PROCESSES },
	{ "max-open-files", required_argument, NULL, OPT_MAX + LIM_OPEN_FILES },
	{ "max-file-size", required_argument, NULL, OPT_MAX + LIM_FILE_SIZE },
	{ "max-stack", required_argument, NULL, OPT_MAX + LIM_STACK },
	{ "max-core", required_argument, NULL, OPT_MAX + LIM_CORE },
	{ "working-dir", required_argument, NULL, OPT_WORKING_DIR },
	{ "keep-working-dir", no_argument, NULL, OPT_KEEP_WORKING_DIR },
	{ "tool-caches", optional_argument, NULL, OPT_TOOL_CACHES },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "best-effort", no_argument, NULL, OPT_BEST_EFFORT },
	{ "why", no_argument, NULL, OPT_WHY },
	{ "no-namespaces", no_argument, NULL, OPT_NO_NAMESPACES },
	{ "accept", required_argument, NULL, OPT_ACCEPT },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "print-policy", no_argument, NULL, OPT_PRINT_POLICY },
	{ "prepare", no_argument, NULL, OPT_PREPARE },
	{ "shell", required_argument, NULL, OPT_SHELL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "protect-home", optional_argument, NULL, OPT_PROTECT_HOME },
	{ "protect-keychain", optional_argument, NULL, OPT_PROTECT_KEYCHAIN },
};

#define NBASE (sizeof(base_options) / sizeof(base_options[0]))

/* The table getopt reads: the fixed options, one --protect-SET per set,
 * and the terminator. The names of the protect options live in `names`. */
struct optable {
	struct option o[NBASE + SET_COUNT + 1];
	char names[SET_COUNT][40];
};

static void
build_options(struct optable *t)
{
	size_t n = 0;

	for (size_t i = 0; i < NBASE; i++)
		t->o[n++] = base_options[i];
	for (int s = 0; s < SET_COUNT; s++) {
		snprintf(t->names[s], sizeof(t->names[s]), "protect-%s",
			 settings_set_name((enum settings_set)s));
		t->o[n++] = (struct option){ t->names[s], optional_argument, NULL, OPT_PROTECT + s };
	}
	t->o[n] = (struct option){ 0 };
}

static const char *
subcommand_name(enum cli_command c)
{
	return c == CLI_SHELL ? "shell" : c == CLI_PYTHON ? "python" : "run";
}

/* The option just read, as the user wrote it ("--grant ./x=rw"). */
static void
spelling(char *buf, size_t len, const char *name, const char *arg, bool optional)
{
	if (arg)
		snprintf(buf, len, "--%s%s%s", name, optional ? "=" : " ", arg);
	else
		snprintf(buf, len, "--%s", name);
}

static void
note_policy_option(struct cli *c, const char *spelled)
{
	if (!c->policy_option[0])
		snprintf(c->policy_option, sizeof(c->policy_option), "%s", spelled);
}

static int
checked_scalar(struct settings_scalar *slot, const char *arg, const char *origin,
	       int (*fn)(const char *, char *, size_t, char *, size_t), char *err, size_t errlen)
{
	char out[256], why[400];

	if (fn(arg, out, sizeof(out), why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s", origin, why);
		return -EINVAL;
	}
	return settings_set_scalar(slot, out, origin);
}

static int
limit_option(struct cli *c, int lim, const char *arg, const char *origin, char *err, size_t errlen)
{
	char out[96], why[400];

	if (values_limit((enum settings_limit)lim, arg, out, sizeof(out), why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s", origin, why);
		return -EINVAL;
	}
	return settings_set_scalar(&c->opts.limits[lim], out, origin);
}

static int
flag_option(struct settings_flag *f, const char *arg, const char *origin, char *err, size_t errlen)
{
	char why[200];
	bool on = true;

	if (arg && values_bool(arg, &on, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s", origin, why);
		return -EINVAL;
	}
	return settings_set_flag(f, on, origin);
}

static int
grant_option(struct cli *c, const char *path, const char *mode, const char *origin, char *err,
	     size_t errlen)
{
	const char *why = NULL, *canon;

	if (!path[0]) {
		snprintf(err, errlen, "%s: the path is empty", origin);
		return -EINVAL;
	}
	canon = settings_mode_canonical(mode, &why);
	if (!canon) {
		snprintf(err, errlen, "%s: `%s`: %s", origin, mode, why);
		return -EINVAL;
	}
	return settings_add_grant(&c->opts, path, canon, origin);
}

static int
env_option(struct cli *c, const char *arg, const char *origin, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	char name[256];

	if (n >= sizeof(name)) {
		snprintf(err, errlen, "%s: the name is too long", origin);
		return -EINVAL;
	}
	memcpy(name, arg, n);
	name[n] = '\0';
	if (!values_env_name(name)) {
		snprintf(err, errlen, "%s: `%s` is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", origin,
			 name);
		return -EINVAL;
	}
	return settings_add_env(&c->opts, name, eq ? eq + 1 : NULL, origin);
}

/* One option with its argument. 0, -EINVAL with err, or -ENOMEM. */
static int
take_option(struct cli *c, const struct option *o, const char *arg, char *err, size_t errlen)
{
	char origin[512];
	const char *eq;
	int opt = o->val;

	spelling(origin, sizeof(origin), o->name, arg, o->has_arg == optional_argument);
	if (opt >= OPT_PROTECT && opt < OPT_PROTECT + SET_COUNT) {
		note_policy_option(c, origin);
		return flag_option(&c->opts.protect[opt - OPT_PROTECT], arg, origin, err, errlen);
	}
	if (opt >= OPT_MAX && opt < OPT_MAX + LIM_COUNT) {
		note_policy_option(c, origin);
		return limit_option(c, opt - OPT_MAX, arg, origin, err, errlen);
	}
	switch (opt) {
	case OPT_BEST_EFFORT:
		c->best_effort = true;
		return 0;
	case OPT_NO_NAMESPACES:
		c->no_namespaces = true;
		return 0;
	case OPT_WHY:
		c->why = true;
		return 0;
	case OPT_ACCEPT:
		if (c->naccept == CLI_MAX_ACCEPT) {
			snprintf(err, errlen, "%s: too many --accept options", origin);
			return -EINVAL;
		}
		c->accept[c->naccept++] = arg;
		return 0;
	case OPT_POLICY:
		if (c->policy) {
			snprintf(err, errlen, "--policy given twice (%s, %s): give one policy; add to it "
				 "with options or --config", c->policy, arg);
			return -EINVAL;
		}
		c->policy = arg;
		return 0;
	case OPT_CONFIG:
		if (c->config) {
			snprintf(err, errlen, "--config given twice (%s, %s)", c->config, arg);
			return -EINVAL;
		}
		c->config = arg;
		return 0;
	case OPT_PRINT_POLICY:
		c->print_policy = true;
		return 0;
	case OPT_PREPARE:
		if (c->command != CLI_PYTHON) {
			snprintf(err, errlen, "--prepare is an option of `heel python`, not `heel %s`",
				 subcommand_name(c->command));
			return -EINVAL;
		}
		c->prepare = true;
		return 0;
	case OPT_SHELL:
		if (c->command != CLI_SHELL) {
			snprintf(err, errlen, "--shell is an option of `heel shell`, not `heel %s`",
				 subcommand_name(c->command));
			return -EINVAL;
		}
		c->shell = arg;
		return 0;
	case OPT_KEEP_WORKING_DIR:
		return settings_set_flag(&c->opts.keep_working_dir, true, origin);
	case OPT_WORKING_DIR:
		if (!arg[0]) {
			snprintf(err, errlen, "%s: the path is empty", origin);
			return -EINVAL;
		}
		note_policy_option(c, origin);
		return settings_set_scalar(&c->opts.working_dir, arg, origin);
	default:
		break;
	}
	note_policy_option(c, origin);
	switch (opt) {
	case OPT_ISOLATION:
		return checked_scalar(&c->opts.isolation, arg, origin, values_isolation, err, errlen);
	case OPT_NETWORK:
		return checked_scalar(&c->opts.network, arg, origin, values_network, err, errlen);
	case OPT_ALLOW_DOMAIN:
		if (!arg[0]) {
			snprintf(err, errlen, "%s: the pattern is empty", origin);
			return -EINVAL;
		}
		return settings_add_domain(&c->opts, arg, origin);
	case OPT_ALLOW_PRIVATE:
		return flag_option(&c->opts.allow_private, arg, origin, err, errlen);
	case OPT_PRESET: {
		char why[400];

		if (values_preset(arg, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s: %s", origin, why);
			return -EINVAL;
		}
		return settings_add_preset(&c->opts, arg, origin);
	}
	case OPT_AUDIT_LOG:
		if (!arg[0]) {
			snprintf(err, errlen, "%s: the path is empty", origin);
			return -EINVAL;
		}
		return settings_set_scalar(&c->opts.audit_log, arg, origin);
	case OPT_GRANT: {
		/* Split at the last `=`: a path may hold one, a mode never. */
		char *path;
		int r;

		eq = strrchr(arg, '=');
		if (!eq) {
			snprintf(err, errlen, "%s: write PATH=MODE, e.g. --grant ./target=rwx", origin);
			return -EINVAL;
		}
		path = strndup(arg, (size_t)(eq - arg));
		if (!path)
			return -ENOMEM;
		r = grant_option(c, path, eq + 1, origin, err, errlen);
		free(path);
		return r;
	}
	case OPT_READABLE:
		return grant_option(c, arg, "r", origin, err, errlen);
	case OPT_WRITABLE:
		return grant_option(c, arg, "rw", origin, err, errlen);
	case OPT_EXECUTABLE:
		return grant_option(c, arg, "rx", origin, err, errlen);
	case OPT_ALLOW_GPU:
		return flag_option(&c->opts.gpu, arg, origin, err, errlen);
	case OPT_TOOL_CACHES:
		return flag_option(&c->opts.tool_caches, arg, origin, err, errlen);
	case OPT_PROTECT_HOME:
		return flag_option(&c->opts.protect[SET_USER_HOME], arg, origin, err, errlen);
	case OPT_PROTECT_KEYCHAIN:
		return flag_option(&c->opts.protect[SET_KEYCHAINS], arg, origin, err, errlen);
	case OPT_NICE:
		return checked_scalar(&c->opts.nice, arg, origin, values_nice, err, errlen);
	case OPT_IO_PRIORITY:
		return checked_scalar(&c->opts.io_priority, arg, origin, values_io_priority, err,
				      errlen);
	case OPT_LIMIT: {
		char lname[32];
		int lim;

		eq = strchr(arg, '=');
		if (!eq || (size_t)(eq - arg) >= sizeof(lname)) {
			snprintf(err, errlen, "%s: write NAME=VALUE, e.g. --limit memory=2GiB", origin);
			return -EINVAL;
		}
		memcpy(lname, arg, (size_t)(eq - arg));
		lname[eq - arg] = '\0';
		lim = settings_limit_from_name(lname);
		if (lim < 0) {
			snprintf(err, errlen, "%s: `%s` is not a limit (memory, cpu, processes, "
				 "open-files, file-size, stack, core)", origin, lname);
			return -EINVAL;
		}
		return limit_option(c, lim, eq + 1, origin, err, errlen);
	}
	case OPT_ENV:
		return env_option(c, arg, origin, err, errlen);
	}
	snprintf(err, errlen, "%s: not handled", origin);
	return -EINVAL;
}

/* An option getopt_long did not know: its name, and the nearest one
 * heel has ("did you mean"), as err. */
static void
unknown_option(const struct option *tab, const char *arg, int optopt_, char *err, size_t errlen)
{
	const char *names[NBASE + SET_COUNT + 1], *near;
	char word[64];
	size_t n = 0, len;

	if (optopt_ && optopt_ < 256) {
		snprintf(err, errlen, "unknown option -%c", optopt_);
		return;
	}
	for (const struct option *o = tab; o->name && n < NBASE + SET_COUNT; o++)
		names[n++] = o->name;
	names[n] = NULL;
	len = strcspn(arg + 2, "=");
	snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1),
		 arg + 2);
	near = strncmp(arg, "--", 2) == 0 ? suggest_word(word, names) : NULL;
	if (near)
		snprintf(err, errlen, "unknown option --%s (did you mean --%s?)", word, near);
	else
		snprintf(err, errlen, "unknown option %s", arg);
}

/* getopt_long takes any unique prefix of a long option (`--protect-cred`
 * for --protect-credentials, `--net` for --network): a setting that
 * weakens the sandbox must be asked for by its name, and a later option
 * that shares the prefix would silently change what an old script means.
 * Every long option is written in full. */
static bool
written_in_full(const char *arg, const char *name)
{
	size_t n = strcspn(arg, "=");

	return n == strlen(name) + 2 && strncmp(arg + 2, name, n - 2) == 0;
}

static const struct option *
option_of(const struct option *tab, int val)
{
	for (const struct option *o = tab; o->name; o++)
		if (o->val == val)
			return o;
	return tab;
}

enum cli_result
cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	struct optable t;
	const char *sub;
	int opt, idx;

	*c = (struct cli){ 0 };
	err[0] = '\0';
	if (argc < 2) {
		snprintf(err, errlen, "say what to do: heel run CMD, heel shell or heel python SCRIPT");
		return CLI_ERROR;
	}
	sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0)
		return CLI_HELP;
	if (strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0)
		return CLI_VERSION;
	if (strcmp(sub, "run") == 0) {
		c->command = CLI_RUN;
	} else if (strcmp(sub, "shell") == 0) {
		c->command = CLI_SHELL;
	} else if (strcmp(sub, "python") == 0) {
		c->command = CLI_PYTHON;
	} else if (sub[0] == '-') {
		snprintf(err, errlen, "options come after the subcommand: heel run %s ...", sub);
		return CLI_ERROR;
	} else {
		snprintf(err, errlen, "unknown subcommand `%s` (run, shell, python or doctor)%s", sub,
			 strcmp(sub, "exec") == 0 || strcmp(sub, "r") == 0 ? "; did you mean run?" : "");
		return CLI_ERROR;
	}
	build_options(&t);
	opterr = 0;
	optind = 2;
	for (;;) {
		int r, at = optind;

		idx = -1;
		opt = getopt_long(argc, argv, c->command == CLI_PYTHON ? "+:hvc:" : "+:hv", t.o, &idx);
		if (opt == -1)
			break;
		if (idx >= 0 && !written_in_full(argv[at], t.o[idx].name)) {
			snprintf(err, errlen, "%.*s: write the option in full, --%s (heel takes no "
				 "abbreviations)", (int)strcspn(argv[at], "="), argv[at], t.o[idx].name);
			return CLI_ERROR;
		}
		if (opt == 'h')
			return CLI_HELP;
		if (opt == 'v') {
			c->verbose++;
			continue;
		}
		if (opt == OPT_VERSION)
			return CLI_VERSION;
		if (opt == 'c') {
			c->python_code = optarg;
			break;
		}
		if (opt == '?') {
			unknown_option(t.o, argv[at], optopt, err, errlen);
			return CLI_ERROR;
		}
		if (opt == ':') {
			snprintf(err, errlen, "%s needs a value", argv[optind - 1]);
			return CLI_ERROR;
		}
		r = take_option(c, option_of(t.o, opt), optarg, err, errlen);
		if (r == -ENOMEM) {
			snprintf(err, errlen, "out of memory");
			return CLI_ERROR;
		}
		if (r)
			return CLI_ERROR;
	}
	c->args = argv + optind;
	c->nargs = argc - optind;
	if (c->no_namespaces && !c->best_effort) {
		snprintf(err, errlen, "--no-namespaces goes with --best-effort: it gives up walls");
		return CLI_ERROR;
	}
	if (c->print_policy)
		return CLI_OK;
	switch (c->command) {
	case CLI_RUN:
		if (c->nargs == 0) {
			snprintf(err, errlen, "heel run needs a command: heel run [OPTIONS] [--] CMD [ARG...]");
			return CLI_ERROR;
		}
		break;
	case CLI_SHELL:
		if (c->nargs) {
			snprintf(err, errlen, "heel shell takes no command (`%s`): use heel run for one, "
				 "or --shell PATH to choose the shell", c->args[0]);
			return CLI_ERROR;
		}
		break;
	case CLI_PYTHON:
		if (c->prepare && (c->nargs || c->python_code)) {
			snprintf(err, errlen, "heel python --prepare runs nothing (`%s`): prepare "
				 "first, then run", c->python_code ? "-c" : c->args[0]);
			return CLI_ERROR;
		}
		break;
	}
	return CLI_OK;
}

void
cli_free(struct cli *c)
{
	settings_free(&c->opts);
}

/* SPDX-License-Identifier: MIT
 * Runs the scanner and parser over one source (see parse.h), and words
 * syntax errors from the statement being read, so a reader is told what
 * was expected in the language's own terms rather than in token names. */
#include "parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "parse_actions.h"
#include "parser.h"
#include "lexer.h"
#include "suggest.h"

static const struct {
	const char *word;
	int tok;
} keywords[] = {
	{ "allow", K_ALLOW },
	{ "allow-all", K_ALLOW_ALL },
	{ "allow-pip-install", K_ALLOW_PIP },
	{ "allow-private", K_ALLOW_PRIVATE },
	{ "arg", K_ARG },
	{ "audit", K_AUDIT },
	{ "because", K_BECAUSE },
	{ "capability", K_CAPABILITY },
	{ "daily", K_DAILY },
	{ "decide", K_DECIDE },
	{ "deny", K_DENY },
	{ "each-writable", K_EACH_WRITABLE },
	{ "env", K_ENV },
	{ "errno", K_ERRNO },
	{ "exec", K_EXEC },
	{ "gpu", K_GPU },
	{ "grant", K_GRANT },
	{ "heel", K_HEEL },
	{ "include", K_INCLUDE },
	{ "io-priority", K_IO_PRIORITY },
	{ "ipc", K_IPC },
	{ "isolation", K_ISOLATION },
	{ "limit", K_LIMIT },
	{ "mach-lookup", K_MACH_LOOKUP },
	{ "network", K_NETWORK },
	{ "nice", K_NICE },
	{ "on", K_ON },
	{ "optional", K_OPTIONAL },
	{ "packages", K_PACKAGES },
	{ "pass", K_PASS },
	{ "positional", K_POSITIONAL },
	{ "protect", K_PROTECT },
	{ "python", K_PYTHON },
	{ "readonly", K_READONLY },
	{ "sbpl", K_SBPL },
	{ "seccomp", K_SECCOMP },
	{ "set", K_SET },
	{ "timeout", K_TIMEOUT },
	{ "unix-sockets", K_UNIX_SOCKETS },
	{ "unprotect", K_UNPROTECT },
	{ "venv", K_VENV },
	{ "workdir", K_WORKDIR },
};

#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))

int
parse_keyword(const char *s, size_t len)
{
	size_t lo = 0, hi = NKEYWORDS;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *w = keywords[mid].word;
		size_t wl = strlen(w);
		int c = memcmp(s, w, len < wl ? len : wl);

		if (c == 0)
			c = len < wl ? -1 : len > wl ? 1 : 0;
		if (c == 0)
			return keywords[mid].tok;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

const char *
parse_token_spelling(int tok)
{
	for (size_t i = 0; i < NKEYWORDS; i++)
		if (keywords[i].tok == tok)
			return keywords[i].word;
	switch (tok) {
	case T_LBRACE:
		return "{";
	case T_RBRACE:
		return "}";
	case T_EOS:
		return ";";
	default:
		return "?";
	}
}

static const char *const stmt_words[] = {
	"heel", "isolation", "include", "grant", "deny", "protect",
	"unprotect", "allow", "network", "limit", "nice", "io-priority",
	"env", "workdir", "ipc", "python", "on", "seccomp", "sbpl",
	"capability", "readonly", NULL
};
static const char *const ipc_words[] = { "exec", "positional", "arg", "timeout", NULL };
static const char *const argtype_words[] = { "string", "int", "bool", "path", NULL };
static const char *const py_words[] = { "venv", "packages", "allow-pip-install", NULL };
static const char *const mode_words[] = { "r", "rw", "rx", "rwx", NULL };
static const char *const set_words[] = {
	"user-home", "credentials", "cloud-config", "browser-data",
	"keychains", "shell-history", "package-credentials", "shared-temp",
	"host-run", NULL
};
static const char *const limit_words[] = {
	"memory", "cpu", "processes", "open-files", "file-size", "stack",
	"core", NULL
};
static const char *const iop_words[] = { "utility", "background", NULL };
static const char *const plat_words[] = { "linux", "macos", "windows", NULL };
static const char *const yesno_words[] = { "yes", "no", NULL };
static const char *const allow_words[] = { "gpu", "unix-sockets", "mach-lookup", NULL };
static const char *const net_words[] = {
	"deny", "allow-all", "allow", "allow-private", "audit", "decide", NULL
};
static const char *const env_words[] = { "pass", "set", NULL };
static const char *const sec_words[] = { "deny", "allow", NULL };
static const char *const deny_words[] = { "gpu", NULL };
static const char *const optional_words[] = { "optional", NULL };
static const char *const daily_words[] = { "daily", NULL };
static const char *const errno_words[] = { "errno", NULL };
static const char *const readonly_words[] = { "each-writable", NULL };
static const char *const because_words[] = { "because", NULL };

/* Words a newcomer reaches for, from shells, container files and other
 * sandboxes, and the statement that says it in heel. */
#define HINT_GRANT "access to a path is given with `grant \"PATH\" r` (or rw, rx, rwx)"
#define HINT_DENY "access beneath a path is taken away with `deny \"PATH\"`"
#define HINT_NET "write `network deny`, `network allow-all` or `network allow { \"HOST\" }`"
#define HINT_ENV "write `env set \"NAME\" \"VALUE\"`, or `env pass \"NAME\"` to pass it through"
#define HINT_CWD \
	"the working directory is set with `workdir \"PATH\"`; the launch directory is \"${CWD}\""
#define HINT_LIMIT "limits are set with `limit NAME VALUE`, e.g. `limit memory 2GiB`"
#define HINT_INCLUDE "write `include <preset>` or `include \"FILE.heel\"`"
#define HINT_BASE "the base is chosen with `isolation strict|default|permissive`"
#define HINT_ON "statements for one platform go in `on linux|macos|windows { ... }`"
static const struct {
	const char *word;
	const char *hint;
} stmt_aliases[] = {
	{ "read", HINT_GRANT },
	{ "write", "access to a path is given with `grant \"PATH\" rw` (or r, rx, rwx)" },
	{ "readwrite", "access to a path is given with `grant \"PATH\" rw` (or r, rx, rwx)" },
	{ "access", HINT_GRANT },
	{ "mount", HINT_GRANT },
	{ "bind", HINT_GRANT },
	{ "path", HINT_GRANT },
	{ "permit", HINT_GRANT },
	{ "block", HINT_DENY },
	{ "forbid", HINT_DENY },
	{ "disallow", HINT_DENY },
	{ "hide", HINT_DENY },
	{ "internet", HINT_NET },
	{ "proxy", "write `network allow-all` or `network allow { \"HOST\" }`: heel runs the proxy" },
	{ "setenv", HINT_ENV },
	{ "export", HINT_ENV },
	{ "environment", HINT_ENV },
	{ "cwd", HINT_CWD },
	{ "cd", HINT_CWD },
	{ "chdir", HINT_CWD },
	{ "ulimit", HINT_LIMIT },
	{ "rlimit", HINT_LIMIT },
	{ "version", "the first line of a policy is `heel 1`" },
	{ "import", HINT_INCLUDE },
	{ "use", HINT_INCLUDE },
	{ "source", HINT_INCLUDE },
	{ "profile", HINT_BASE },
	{ "base", HINT_BASE },
	{ "syscall", "inside `on linux { }`: `seccomp deny \"NAME\"` or `seccomp allow \"NAME\"`" },
	{ "if", HINT_ON },
	{ "platform", HINT_ON },
};

static bool
alias_exact(const char *word)
{
	for (size_t i = 0; i < sizeof(stmt_aliases) / sizeof(stmt_aliases[0]); i++)
		if (strcmp(word, stmt_aliases[i].word) == 0)
			return true;
	return false;
}

/* The hint for an unknown statement that is not a typo of one. */
static const char *
alias_hint(const char *word, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(stmt_aliases) / sizeof(stmt_aliases[0]); i++)
		if (strcmp(word, stmt_aliases[i].word) == 0)
			return stmt_aliases[i].hint;
	/* `memory 2GiB`: a limit's name without `limit`. */
	for (size_t i = 0; limit_words[i]; i++)
		if (strcmp(word, limit_words[i]) == 0) {
			snprintf(buf, size, "write `limit %s VALUE`", word);
			return buf;
		}
	return NULL;
}

bool
parse_is_statement_keyword(int tok)
{
	switch (tok) {
	case K_HEEL: case K_ISOLATION: case K_INCLUDE: case K_GRANT:
	case K_DENY: case K_PROTECT: case K_UNPROTECT: case K_ALLOW:
	case K_NETWORK: case K_LIMIT: case K_NICE: case K_IO_PRIORITY:
	case K_ENV: case K_WORKDIR: case K_IPC: case K_PYTHON: case K_ON:
	case K_SECCOMP: case K_SBPL: case K_CAPABILITY: case K_READONLY:
		return true;
	default:
		return false;
	}
}

/* The K_ tokens are declared in one run in parser.y, K_HEEL first and
 * K_OPTIONAL last. */
static bool
is_keyword_tok(int tok)
{
	return tok >= K_HEEL && tok <= K_OPTIONAL;
}

/* What a statement takes at its next position. */
enum shape {
	SH_STRING,  /* a quoted string */
	SH_INCLUDE, /* <name> or a quoted string */
	SH_WORD,    /* a bare word out of an open set (checked by sema) */
	SH_KEYWORD, /* one of a few keywords */
	SH_NUMBER,
	SH_UPPER,
	SH_BRACE,
};

struct expect {
	const char *what;
	const char *const *cands;
	enum shape shape;
};

static const char *
usage_of(const struct parse_st *st, enum parse_block_kind blk)
{
	if (blk == PARSE_B_NETALLOW)
		return "write one quoted pattern per line, or separate them with `;`";
	switch (st->tok[0]) {
	case K_HEEL:
		return "the first statement of every file is `heel 1`";
	case K_ISOLATION:
		return "usage: isolation strict|default|permissive";
	case K_INCLUDE:
		return "usage: include <preset> or include \"FILE.heel\"";
	case K_GRANT:
		return "usage: grant \"PATH\" r|rw|rx|rwx [optional]";
	case K_DENY:
		return "usage: deny \"PATH\" or deny gpu";
	case K_PROTECT:
		return "usage: protect SET... with SET one of user-home, credentials, "
		       "cloud-config, browser-data, keychains, shell-history, "
		       "package-credentials, shared-temp, host-run";
	case K_UNPROTECT:
		return "usage: unprotect SET... with SET one of user-home, credentials, "
		       "cloud-config, browser-data, keychains, shell-history, "
		       "package-credentials, shared-temp, host-run";
	case K_READONLY:
		return "usage: readonly \"PATH\" [because \"WHY\"] or "
		       "readonly each-writable \"PATH\" [because \"WHY\"]";
	case K_ALLOW:
		return "usage: allow gpu, allow unix-sockets or allow mach-lookup \"NAME\"";
	case K_NETWORK:
		if (st->n >= 2 && st->tok[1] == K_DECIDE)
			return "usage: network decide \"PROGRAM\" [\"ARG\"...]";
		return "usage: network deny|allow-all|allow-private, "
		       "network allow { \"HOST\" ... }, network audit [daily] \"PATH\" "
		       "or network decide \"PROGRAM\" [\"ARG\"...]";
	case K_LIMIT:
		return "usage: limit memory|cpu|processes|open-files|file-size|stack|core VALUE";
	case K_NICE:
		return "usage: nice N, with N from 1 to 19";
	case K_IO_PRIORITY:
		return "usage: io-priority utility|background";
	case K_ENV:
		return "usage: env pass \"NAME\"... or env set \"NAME\" \"VALUE\"";
	case K_WORKDIR:
		return "usage: workdir \"PATH\"";
	case K_IPC:
		return "usage: ipc \"NAME\" { exec \"PATH\"; positional \"ARG\"...; "
		       "arg \"ARG\" string|int|bool|path; timeout DURATION }";
	case K_PYTHON:
		return "usage: python { venv \"PATH\"; packages \"NAME\"...; allow-pip-install yes|no }";
	case K_ON:
		return "usage: on linux|macos|windows { ... }";
	case K_SECCOMP:
		return "usage: seccomp deny \"SYSCALL\" [errno ENAME] or seccomp allow \"SYSCALL\"";
	case K_SBPL:
		return "usage: sbpl \"RULE\"";
	case K_CAPABILITY:
		return "usage: capability \"NAME\"";
	case K_EXEC:
		return "usage: exec \"PATH\"";
	case K_POSITIONAL:
		return "usage: positional \"ARG\"...";
	case K_TIMEOUT:
		return "usage: timeout DURATION, e.g. timeout 30s";
	case K_ARG:
		return "usage: arg \"ARG\" string|int|bool|path";
	case K_VENV:
		return "usage: venv \"PATH\"";
	case K_PACKAGES:
		return "usage: packages \"NAME\"...";
	case K_ALLOW_PIP:
		return "usage: allow-pip-install yes|no";
	default:
		return NULL;
	}
}

#define EXPECT(w, c, s) (*e = (struct expect){ (w), (c), (s) }, true)

/* What the statement in `st` takes after its st->n tokens; false when it
 * is complete and only its end may follow. */
static bool
expect_of(const struct parse_st *st, enum parse_block_kind blk, struct expect *e)
{
	unsigned n = st->n;
	int t1 = st->tok[1], t2 = st->tok[2];

	if (blk == PARSE_B_NETALLOW)
		return false;
	switch (st->tok[0]) {
	case K_HEEL:
		return n == 1 && EXPECT("the language version after `heel`", NULL, SH_NUMBER);
	case K_ISOLATION:
		return n == 1 && EXPECT("an isolation base (strict, default or permissive) after `isolation`",
					ir_isolation_names, SH_WORD);
	case K_INCLUDE:
		return n == 1 && EXPECT("a preset name in angle brackets or a quoted file name after `include`",
					NULL, SH_INCLUDE);
	case K_GRANT:
		if (n == 1)
			return EXPECT("a quoted path after `grant`", NULL, SH_STRING);
		if (n == 2)
			return EXPECT("a mode (r, rw, rx or rwx) after the path", mode_words, SH_WORD);
		return n == 3 && EXPECT("`optional` or the end of the statement after the mode",
					optional_words, SH_KEYWORD);
	case K_DENY:
		return n == 1 && EXPECT("a quoted path or `gpu` after `deny`", deny_words, SH_STRING);
	case K_PROTECT:
	case K_UNPROTECT:
		if (n == 1)
			return EXPECT(st->tok[0] == K_PROTECT
					      ? "a protection set name after `protect`"
					      : "a protection set name after `unprotect`",
				      set_words, SH_WORD);
		return EXPECT("another set name or the end of the statement", set_words, SH_WORD);
	case K_ALLOW:
		if (n == 1)
			return EXPECT("gpu, unix-sockets or mach-lookup after `allow`", allow_words,
				      SH_KEYWORD);
		return n == 2 && t1 == K_MACH_LOOKUP &&
		       EXPECT("a quoted service name after `allow mach-lookup`", NULL, SH_STRING);
	case K_NETWORK:
		if (n == 1)
			return EXPECT("deny, allow-all, allow, allow-private, audit or decide "
				      "after `network`",
				      net_words, SH_KEYWORD);
		if (t1 == K_DECIDE)
			return EXPECT(n == 2 ? "a quoted program path after `network decide`"
					     : "another quoted argument or the end of the "
					       "statement",
				      NULL, SH_STRING);
		if (t1 == K_ALLOW)
			return n == 2 && EXPECT("`{` after `network allow`", NULL, SH_BRACE);
		if (t1 == K_AUDIT && n == 2)
			return EXPECT("a quoted file name or `daily` after `network audit`", daily_words,
				      SH_STRING);
		return t1 == K_AUDIT && n == 3 && t2 == K_DAILY &&
		       EXPECT("a quoted directory after `network audit daily`", NULL, SH_STRING);
	case K_LIMIT:
		if (n == 1)
			return EXPECT("a limit name (memory, cpu, processes, open-files, file-size, "
				      "stack or core) after `limit`",
				      limit_words, SH_WORD);
		return n == 2 && EXPECT("a value after the limit name, e.g. 2GiB, 60s or 256", NULL,
					SH_NUMBER);
	case K_NICE:
		return n == 1 && EXPECT("a number from 1 to 19 after `nice`", NULL, SH_NUMBER);
	case K_IO_PRIORITY:
		return n == 1 && EXPECT("utility or background after `io-priority`", iop_words, SH_WORD);
	case K_ENV:
		if (n == 1)
			return EXPECT("pass or set after `env`", env_words, SH_KEYWORD);
		if (t1 == K_PASS)
			return EXPECT(n == 2 ? "a quoted variable name after `env pass`"
					     : "another quoted variable name or the end of the statement",
				      NULL, SH_STRING);
		if (n == 2)
			return EXPECT("a quoted variable name after `env set`", NULL, SH_STRING);
		return n == 3 && EXPECT("a quoted value after the variable name", NULL, SH_STRING);
	case K_WORKDIR:
		return n == 1 && EXPECT("a quoted path after `workdir`", NULL, SH_STRING);
	case K_IPC:
		if (n == 1)
			return EXPECT("a quoted command name after `ipc`", NULL, SH_STRING);
		return n == 2 && EXPECT("`{` after the ipc name", NULL, SH_BRACE);
	case K_PYTHON:
		return n == 1 && EXPECT("`{` after `python`", NULL, SH_BRACE);
	case K_ON:
		if (n == 1)
			return EXPECT("a platform (linux, macos or windows) after `on`", plat_words,
				      SH_WORD);
		return n == 2 && EXPECT("`{` after the platform name", NULL, SH_BRACE);
	case K_SECCOMP:
		if (n == 1)
			return EXPECT("deny or allow after `seccomp`", sec_words, SH_KEYWORD);
		if (n == 2)
			return EXPECT(t1 == K_DENY ? "a quoted system call name after `seccomp deny`"
						   : "a quoted system call name after `seccomp allow`",
				      NULL, SH_STRING);
		if (t1 != K_DENY)
			return false;
		if (n == 3)
			return EXPECT("`errno` or the end of the statement after the system call",
				      errno_words, SH_KEYWORD);
		return n == 4 && EXPECT("an errno name such as EPERM after `errno`", NULL, SH_UPPER);
	case K_READONLY:
		if (n == 1)
			return EXPECT("a quoted path or `each-writable` after `readonly`",
				      readonly_words, SH_STRING);
		/* readonly each-writable "PATH" [because "WHY"] */
		if (t1 == K_EACH_WRITABLE) {
			if (n == 2)
				return EXPECT("a quoted path, relative to each writable place, "
					      "after `each-writable`",
					      NULL, SH_STRING);
			if (n == 3)
				return EXPECT("`because` or the end of the statement after the "
					      "path",
					      because_words, SH_KEYWORD);
			return n == 4 &&
			       EXPECT("a quoted reason after `because`", NULL, SH_STRING);
		}
		/* readonly "PATH" [because "WHY"] */
		if (n == 2)
			return EXPECT("`because` or the end of the statement after the path",
				      because_words, SH_KEYWORD);
		return n == 3 && t2 == K_BECAUSE &&
		       EXPECT("a quoted reason after `because`", NULL, SH_STRING);
	case K_SBPL:
		return n == 1 && EXPECT("a quoted SBPL rule after `sbpl`", NULL, SH_STRING);
	case K_CAPABILITY:
		return n == 1 && EXPECT("a quoted capability name after `capability`", NULL, SH_STRING);
	case K_EXEC:
		return n == 1 && EXPECT("a quoted path after `exec`", NULL, SH_STRING);
	case K_POSITIONAL:
		return EXPECT(n == 1 ? "a quoted argument after `positional`"
				     : "another quoted argument or the end of the statement",
			      NULL, SH_STRING);
	case K_TIMEOUT:
		return n == 1 && EXPECT("a duration after `timeout`, e.g. 30s", NULL, SH_NUMBER);
	case K_ARG:
		if (n == 1)
			return EXPECT("a quoted argument name after `arg`", NULL, SH_STRING);
		return n == 2 && EXPECT("a type (string, int, bool or path) after the argument name",
					argtype_words, SH_WORD);
	case K_VENV:
		return n == 1 && EXPECT("a quoted path after `venv`", NULL, SH_STRING);
	case K_PACKAGES:
		return EXPECT(n == 1 ? "a quoted package name after `packages`"
				     : "another quoted package name or the end of the statement",
			      NULL, SH_STRING);
	case K_ALLOW_PIP:
		return n == 1 && EXPECT("yes or no after `allow-pip-install`", yesno_words, SH_WORD);
	default:
		return false;
	}
}

/* The statement's name as a reader knows it: `network audit`, `grant`. */
static void
stmt_name(const struct parse_st *st, char *buf, size_t size)
{
	int t0 = st->tok[0], t1 = st->tok[1];

	if (st->n >= 2 && is_keyword_tok(t1) &&
	    (t0 == K_NETWORK || t0 == K_ENV || t0 == K_SECCOMP || t0 == K_ALLOW ||
	     t0 == K_DENY))
		snprintf(buf, size, "%s %s", parse_token_spelling(t0),
			 parse_token_spelling(t1));
	else
		snprintf(buf, size, "%s", parse_token_spelling(t0));
}

static bool
la_at_line_end(const struct parse_ctx *ctx)
{
	return ctx->la_tok == HEEL_YYEOF ||
	       (ctx->la_tok == T_EOS && ctx->la_text[0] != ';');
}

/* The lookahead as a noun: "a string" after "found", "string" after
 * "unexpected". */
static void
describe_la(const struct parse_ctx *ctx, char *buf, size_t size, bool article)
{
	const char *a = article ? "the " : "";

	switch (ctx->la_tok) {
	case T_EOS:
		if (ctx->la_text[0] == ';')
			snprintf(buf, size, "`;`");
		else
			snprintf(buf, size, "%send of %s", a,
				 ctx->la_text[0] == '\n' ? "the line" : "the file");
		break;
	case HEEL_YYEOF:
		snprintf(buf, size, "%send of the file", a);
		break;
	case T_STRING:
		snprintf(buf, size, "%sstring", article ? "a " : "");
		break;
	default:
		snprintf(buf, size, "`%s`", ctx->la_text);
		break;
	}
}

static void
lower(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a')
			 : s[i] == '_'		       ? '-'
						       : s[i];
	buf[i] = '\0';
}

static void
report(struct parse_ctx *ctx, const struct diag_loc *loc, const char *hint,
       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
report(struct parse_ctx *ctx, const struct diag_loc *loc, const char *hint,
       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vpush(ctx->diag, DIAG_ERROR, loc, hint, fmt, ap);
	va_end(ap);
	ctx->any_err = true;
	ctx->err_seq = ctx->stmt_seq + 1; /* 0: no error yet */
	/* The scanner keeps reading the rest of the statement while the
	 * parser skips it: a stray character there is the same mistake. */
	if (ctx->la_tok != T_EOS && ctx->la_tok != T_LBRACE &&
	    ctx->la_tok != T_RBRACE)
		ctx->st.lex_error = true;
}

/* A token that cannot start a statement where it stands. */
static void
start_error(struct parse_ctx *ctx)
{
	const char *la = ctx->la_text;
	const struct diag_loc *loc = &ctx->la_loc;
	int t = ctx->la_tok;
	char found[PARSE_LA_TEXT + 16], hint[PARSE_LA_TEXT + 192];
	const char *s;

	describe_la(ctx, found, sizeof(found), true);
	if (t == T_LBRACE) {
		/* `network allow` + newline + `{`: the error was already said
		 * on the line above; the block is skipped without a word. */
		if (ctx->err_seq && ctx->stmt_seq + 1 - ctx->err_seq <= 1)
			return;
		report(ctx, loc, "a block's `{` goes on the same line as its statement",
		       "unexpected `{`");
		return;
	}
	switch (ctx->la_block) {
	case PARSE_B_NETALLOW:
		if (parse_is_statement_keyword(t)) {
			report(ctx, loc, "is a `}` missing above?",
			       "expected a quoted host pattern, found %s", found);
		} else if (t == T_WORD || t == T_NUMBER || t == T_UPPER || is_keyword_tok(t)) {
			snprintf(hint, sizeof(hint), "quote it: \"%s\"", la);
			report(ctx, loc, hint, "expected a quoted host pattern, found %s", found);
		} else {
			report(ctx, loc, usage_of(&ctx->la_st, PARSE_B_NETALLOW),
			       "expected a quoted host pattern, found %s", found);
		}
		return;
	case PARSE_B_IPC:
	case PARSE_B_PYTHON: {
		bool ipc = ctx->la_block == PARSE_B_IPC;
		const char *holds = ipc ? "an `ipc` block holds exec, positional, arg and timeout"
					: "a `python` block holds venv, packages and allow-pip-install";

		if (t == T_WORD) {
			s = suggest_word(la, ipc ? ipc_words : py_words);
			if (s)
				snprintf(hint, sizeof(hint), "did you mean `%s`?", s);
			report(ctx, loc, s ? hint : holds, "unknown statement `%s` in %s block", la,
			       ipc ? "an `ipc`" : "a `python`");
		} else if (is_keyword_tok(t)) {
			snprintf(hint, sizeof(hint), "%s%s", holds,
				 parse_is_statement_keyword(t) ? "; is a `}` missing above?" : "");
			report(ctx, loc, hint, "`%s` cannot appear inside %s block", la,
			       ipc ? "an `ipc`" : "a `python`");
		} else {
			report(ctx, loc, holds, "expected %s, found %s",
			       ipc ? "exec, positional, arg or timeout"
				   : "venv, packages or allow-pip-install",
			       found);
		}
		return;
	}
	default:
		break;
	}
	switch (t) {
	case T_WORD:
		/* Another tool's word for a statement (`read`) says what heel
		 * writes, even when it is also a few letters from a keyword. */
		s = alias_exact(la) ? NULL : suggest_word(la, stmt_words);
		if (s)
			snprintf(hint, sizeof(hint), "did you mean `%s`?", s);
		report(ctx, loc, s ? hint : alias_hint(la, hint, sizeof(hint)),
		       "unknown statement `%s`", la);
		return;
	case T_UPPER: {
		char low[PARSE_LA_TEXT];

		lower(la, low, sizeof(low));
		s = suggest_word(low, stmt_words);
		if (s)
			snprintf(hint, sizeof(hint), "keywords are lower-case: did you mean `%s`?", s);
		report(ctx, loc, s ? hint : NULL, "unknown statement `%s`", la);
		return;
	}
	case T_RBRACE:
		report(ctx, loc, "no block is open here", "unmatched `}`");
		return;
	case K_EXEC:
	case K_POSITIONAL:
	case K_ARG:
	case K_TIMEOUT:
		/* A time limit on the command is the likelier wish; heel has
		 * CPU time, not wall-clock time. */
		snprintf(hint, sizeof(hint), "%s%s",
			 usage_of(&(struct parse_st){ .tok = { K_IPC } }, PARSE_B_TOP),
			 t == K_TIMEOUT ? "\nto limit the command's CPU time: `limit cpu 30s`"
			 : t == K_EXEC	? "\nto let the sandbox run programs from a path: "
					  "`grant \"PATH\" rx`"
					: "");
		report(ctx, loc, hint, "`%s` belongs inside an `ipc` block", la);
		return;
	case K_VENV:
	case K_PACKAGES:
	case K_ALLOW_PIP:
		report(ctx, loc, usage_of(&(struct parse_st){ .tok = { K_PYTHON } }, PARSE_B_TOP),
		       "`%s` belongs inside a `python` block", la);
		return;
	case K_GPU:
		s = "write `allow gpu` or `deny gpu`";
		break;
	case K_UNIX_SOCKETS:
		s = "write `allow unix-sockets`";
		break;
	case K_MACH_LOOKUP:
		s = "write `allow mach-lookup \"NAME\"`";
		break;
	case K_ALLOW_ALL:
	case K_ALLOW_PRIVATE:
	case K_AUDIT:
	case K_DECIDE:
		snprintf(hint, sizeof(hint), "write `network %s ...`", la);
		s = hint;
		break;
	case K_DAILY:
		s = "write `network audit daily \"DIR\"`";
		break;
	case K_PASS:
	case K_SET:
		snprintf(hint, sizeof(hint), "write `env %s ...`", la);
		s = hint;
		break;
	case K_ERRNO:
		s = "`errno` goes after `seccomp deny \"SYSCALL\"`";
		break;
	case K_OPTIONAL:
		s = "`optional` goes after the mode of a `grant`";
		break;
	case K_EACH_WRITABLE:
		s = "write `readonly each-writable \"PATH\"`";
		break;
	case K_BECAUSE:
		s = "`because \"WHY\"` goes at the end of a `readonly` statement";
		break;
	default:
		report(ctx, loc, "a statement starts with a keyword such as `grant` or `network`",
		       "expected a statement, found %s", found);
		return;
	}
	report(ctx, loc, s, "`%s` cannot start a statement", la);
}

/* Statements begun the way another tool writes them: `allow "/usr"`,
 * `env LANG`, `network allow "example.com"`, `allow network`. NULL when
 * the general wording fits. */
static const char *
newcomer_hint(const struct parse_st *st, int t, const char *la, char *buf, size_t size)
{
	bool name = t == T_UPPER || t == T_WORD;

	if (st->n == 1 && st->tok[0] == K_ALLOW) {
		if (t == T_STRING)
			return "a path is opened with `grant \"PATH\" r` (or rw, rx, rwx), a host "
			       "with `network allow { \"HOST\" }`; `allow` takes gpu, unix-sockets "
			       "or mach-lookup";
		if (t == K_NETWORK || (t == T_WORD && (strcmp(la, "internet") == 0 ||
						       strcmp(la, "net") == 0)))
			return "the network is opened with `network allow-all` or "
			       "`network allow { \"HOST\" }`";
	}
	if (st->n == 1 && st->tok[0] == K_DENY &&
	    (t == K_NETWORK || (t == T_WORD && strcmp(la, "internet") == 0)))
		return "the network is denied unless allowed: `network deny` says so";
	/* A lower-case word is likelier a misspelt `pass` or `set`. */
	if (st->n == 1 && st->tok[0] == K_ENV && (t == T_UPPER || t == T_STRING)) {
		snprintf(buf, size,
			 "write `env pass \"%s\"` to pass it from the launcher's environment, or "
			 "`env set \"%s\" \"VALUE\"`",
			 t == T_UPPER ? la : "NAME", t == T_UPPER ? la : "NAME");
		return buf;
	}
	if (st->n == 1 && st->tok[0] == K_NETWORK && (t == K_ON || name)) {
		static const char *const on[] = { "on", "yes", "true", "enable", "enabled", "open",
						  NULL };
		static const char *const off[] = { "off", "no", "false", "disable", "disabled",
						   "none", NULL };

		for (size_t i = 0; on[i]; i++)
			if (strcmp(la, on[i]) == 0)
				return "write `network allow-all` (any host, through heel-proxy) or "
				       "`network allow { \"HOST\" }`";
		for (size_t i = 0; off[i]; i++)
			if (strcmp(la, off[i]) == 0)
				return "write `network deny` (the default: nothing can be reached)";
	}
	if (st->n == 2 && st->tok[0] == K_NETWORK && st->tok[1] == K_ALLOW &&
	    (t == T_STRING || name))
		return "the hosts go in a block: `network allow { \"HOST\" }`, one a line";
	return NULL;
}

/* A token that does not fit the statement it appears in. */
static void
arg_error(struct parse_ctx *ctx)
{
	const struct parse_st *st = &ctx->la_st;
	const char *la = ctx->la_text;
	int t = ctx->la_tok;
	bool at_end = la_at_line_end(ctx);
	struct diag_loc loc = ctx->la_loc;
	char found[PARSE_LA_TEXT + 16], hint[2 * PARSE_LA_TEXT + 160], name[64];
	const char *h = NULL, *s;
	struct expect e;

	/* A missing word is shown just after what precedes it, not at the
	 * end of a trailing comment. */
	if (at_end && ctx->la_prev_end.src)
		loc = ctx->la_prev_end;
	describe_la(ctx, found, sizeof(found), true);
	if (!expect_of(st, ctx->la_block, &e)) {
		describe_la(ctx, found, sizeof(found), false);
		if (ctx->la_block == PARSE_B_NETALLOW) {
			report(ctx, &loc, usage_of(st, PARSE_B_NETALLOW),
			       "unexpected %s after the pattern", found);
			return;
		}
		stmt_name(st, name, sizeof(name));
		if (st->tok[0] == K_SECCOMP && st->tok[1] == K_ALLOW && t == K_ERRNO)
			h = "`errno` goes with `seccomp deny` only";
		else
			h = "statements end at a newline or `;`";
		report(ctx, &loc, h, "unexpected %s after a complete `%s` statement", found, name);
		return;
	}
	if ((h = newcomer_hint(st, t, la, hint, sizeof(hint)))) {
		;
	} else if ((t == T_WORD || is_keyword_tok(t)) && e.cands &&
	    (s = suggest_word(la, e.cands)) && strcmp(s, la) != 0) {
		snprintf(hint, sizeof(hint), "did you mean `%s`?", s);
		h = hint;
	} else if (t == T_UPPER && (e.shape == SH_WORD || e.shape == SH_KEYWORD)) {
		char low[PARSE_LA_TEXT];

		lower(la, low, sizeof(low));
		snprintf(hint, sizeof(hint), "words are lower-case: `%s`", low);
		h = hint;
	} else if (e.shape == SH_INCLUDE && (t == T_WORD || is_keyword_tok(t))) {
		snprintf(hint, sizeof(hint), "did you mean `<%s>`?", la);
		h = hint;
	} else if ((e.shape == SH_STRING || e.shape == SH_INCLUDE) &&
		   (t == T_WORD || t == T_NUMBER || t == T_UPPER || is_keyword_tok(t))) {
		snprintf(hint, sizeof(hint), "quote it: \"%s\"", la);
		h = hint;
	} else if ((e.shape == SH_WORD || e.shape == SH_KEYWORD || e.shape == SH_NUMBER) &&
		   t == T_STRING) {
		h = "write it without quotes";
	} else if (e.shape == SH_UPPER && t == T_WORD) {
		char up[PARSE_LA_TEXT];
		size_t i;

		for (i = 0; la[i] && i + 1 < sizeof(up); i++)
			up[i] = (la[i] >= 'a' && la[i] <= 'z') ? (char)(la[i] - 'a' + 'A')
				: la[i] == '-'		       ? '_'
							       : la[i];
		up[i] = '\0';
		snprintf(hint, sizeof(hint), "errno names are upper-case: `%s`", up);
		h = hint;
	} else if (e.shape == SH_BRACE && at_end) {
		h = "a block's `{` goes on the same line as its statement";
	} else {
		h = usage_of(st, ctx->la_block);
	}
	if (at_end)
		report(ctx, &loc, h, "expected %s", e.what);
	else
		report(ctx, &loc, h, "expected %s, found %s", e.what, found);
}

void
parse_syntax_error(struct parse_ctx *ctx)
{
	/* The scanner has already said what is wrong with this statement. */
	if (ctx->la_st.lex_error)
		return;
	if (ctx->la_tok == HEEL_YYEOF) {
		if (ctx->depth) {
			size_t i = ctx->depth <= PARSE_MAX_BLOCKS ? ctx->depth - 1
								  : PARSE_MAX_BLOCKS - 1;

			report(ctx, &ctx->blocks[i].loc, NULL,
			       "unterminated block: `{` has no matching `}`");
		} else {
			report(ctx, &ctx->la_loc, NULL, "unexpected end of file");
		}
		return;
	}
	if (ctx->la_st.after_block) {
		char found[PARSE_LA_TEXT + 16];

		describe_la(ctx, found, sizeof(found), true);
		report(ctx, &ctx->la_loc, "statements end at a newline or `;`",
		       "expected the end of the line after `}`, found %s", found);
		return;
	}
	if (ctx->la_st.n == 0)
		start_error(ctx);
	else
		arg_error(ctx);
}

void
parse_fatal_error(struct parse_ctx *ctx, const HEEL_YYLTYPE *loc, const char *msg)
{
	struct diag_loc at = { ctx->src, (uint32_t)loc->first_line,
			       (uint32_t)loc->first_column };

	(void)msg;
	/* Bison says "memory exhausted" both when malloc fails and when its
	 * stack outgrows YYMAXDEPTH, which only blocks nested thousands deep
	 * can do; the depth of open blocks tells which. */
	if (ctx->oom || ctx->depth < 100) {
		ctx->oom = true;
		return;
	}
	report(ctx, &at, NULL, "blocks are nested too deeply");
}

/* fmt keeps one blank line where the source had some: record which. */
static int
mark_blank_lines(struct ast_file *file, const char *text, size_t len)
{
	uint32_t n = 0, ln = 0;
	size_t i, start;

	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	if (len && text[len - 1] != '\n')
		n++;
	file->blank = calloc(n ? n : 1, sizeof(bool));
	if (!file->blank)
		return -ENOMEM;
	file->nlines = n;
	for (start = 0, i = 0; i <= len && ln < n; i++) {
		if (i == len || text[i] == '\n') {
			bool blank = true;

			for (size_t j = start; j < i; j++)
				if (text[j] != ' ' && text[j] != '\t' && text[j] != '\r')
					blank = false;
			file->blank[ln++] = blank;
			start = i + 1;
		}
	}
	return 0;
}

/* flex reports allocation failure through YY_FATAL_ERROR, which lands
 * here instead of exiting; it can only happen while the buffer is set up,
 * since the whole text is then scanned in place. */
static int
run(struct parse_ctx *ctx, yyscan_t scanner)
{
	if (setjmp(ctx->fatal) != 0)
		return -ENOMEM;
	heel_yy_scan_bytes(ctx->src->text, (int)ctx->src->len, scanner);
	return heel_yyparse(scanner, ctx);
}

int
parse_source(struct diag_ctx *dctx, const struct diag_source *src,
	     struct ast_file **out)
{
	struct parse_ctx *ctx;
	struct ast_file *file;
	yyscan_t scanner = NULL;
	int rc = 0;

	*out = NULL;
	if (src->len > (size_t)INT32_MAX - 2) { /* flex takes an int length */
		struct diag_loc at = { src, 0, 0 };

		diag_push(dctx, DIAG_ERROR, &at, NULL, "the policy file is too large");
		return -EINVAL;
	}
	file = calloc(1, sizeof(*file));
	ctx = calloc(1, sizeof(*ctx));
	if (!file || !ctx || mark_blank_lines(file, src->text, src->len) < 0) {
		free(ctx);
		ast_file_free(file);
		return -ENOMEM;
	}
	file->src = src;
	ctx->diag = dctx;
	ctx->src = src;
	ctx->file = file;
	ctx->line = 1;
	ctx->col = 1;
	if (heel_yylex_init_extra(ctx, &scanner) != 0) {
		free(ctx);
		ast_file_free(file);
		return -ENOMEM;
	}
	rc = run(ctx, scanner);
	heel_yylex_destroy(scanner);
	if (ctx->oom) {
		free(ctx);
		ast_file_free(file);
		return -ENOMEM;
	}
	*out = file;
	rc = (rc != 0 || ctx->any_err) ? -EINVAL : 0;
	free(ctx);
	return rc;
}

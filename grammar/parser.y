/* SPDX-License-Identifier: MIT
 * Grammar of the heel policy language (heel(5)). Actions only build
 * ast.h nodes; syntax errors are worded by parse.c and recovered at the
 * end of the statement (or block), so one run reports every error. */

%require "3.8"
%define api.pure full
%define api.prefix {heel_yy}
%define parse.error custom
%locations
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {struct parse_ctx *ctx}

%code requires {
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "diag.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* A statement list under construction: appending stays O(1) however long
 * a block grows. */
struct parse_list {
	struct ast_stmt *head, *tail;
};

/* What kind of block a `{` opened, judged from the statement before it;
 * used only to word syntax errors. */
enum parse_block_kind {
	PARSE_B_TOP,      /* the file itself */
	PARSE_B_ON,       /* on PLATFORM { statements } */
	PARSE_B_IPC,      /* ipc "NAME" { exec, positional, arg, timeout } */
	PARSE_B_PYTHON,   /* python { venv, packages, allow-pip-install } */
	PARSE_B_NETALLOW, /* network allow { patterns } */
	PARSE_B_OTHER,    /* a `{` where none belongs (skipped by recovery) */
};

/* The tokens of the statement being scanned, as far as an error message
 * needs them: its first three token kinds and how many tokens it has. */
struct parse_st {
	int tok[3];
	unsigned n;
	bool after_block; /* a block's `}` ended it: only an end may follow */
	bool lex_error;   /* the scanner already reported an error in it */
};

#define PARSE_MAX_BLOCKS 64
#define PARSE_LA_TEXT 48

/* Shared by the scanner (as yyextra), the parser and parse.c. */
struct parse_ctx {
	struct diag_ctx *diag;
	const struct diag_source *src;
	struct ast_file *file;
	struct ast_stmt *tail;  /* last top-level statement of file */
	bool oom;
	size_t ncomments_cap;
	jmp_buf fatal;          /* flex's fatal errors land here, never exit() */

	/* scanner position */
	uint32_t line, col;
	size_t off;             /* bytes consumed */
	/* a string or comment being scanned in pieces (so that a NUL byte
	 * in it does not make flex rescan it from its start) */
	size_t tok_off;
	uint32_t tok_line, tok_col;
	bool line_has_code;     /* a token precedes on this line: comment is trailing */
	bool eof_sent;
	unsigned long stmt_seq; /* statement ends seen so far */

	/* open blocks; deeper ones than PARSE_MAX_BLOCKS are only counted */
	struct { enum parse_block_kind kind; struct diag_loc loc; } blocks[PARSE_MAX_BLOCKS];
	size_t depth;

	/* the statement so far, and the lookahead token with the statement
	 * context it was read in: what a syntax error is reported about */
	struct parse_st st;
	struct parse_st la_st;
	enum parse_block_kind la_block;
	int la_tok;
	char la_text[PARSE_LA_TEXT];
	struct diag_loc la_loc;
	struct diag_loc la_prev_end; /* just after the token before the lookahead */
	struct diag_loc prev_end;
	unsigned long err_seq;       /* stmt_seq when the last syntax error was reported */
	bool any_err;
};
}

%code provides {
/* flex's generated header (lexer.h) speaks of the unprefixed names. */
#ifndef YYSTYPE
#define YYSTYPE HEEL_YYSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE HEEL_YYLTYPE
#endif

int heel_yylex(HEEL_YYSTYPE *lval, HEEL_YYLTYPE *lloc, yyscan_t scanner);

}

%union {
	struct ast_arg arg;
	struct ast_stmt *stmt;
	struct parse_list list;
}

%code {
#include <stdlib.h>
#include <string.h>

#include "parse_actions.h"

static void
heel_yyerror(const HEEL_YYLTYPE *loc, yyscan_t scanner, struct parse_ctx *ctx,
	     const char *msg)
{
	(void)scanner;
	/* Only reached for "memory exhausted": the parser stack outgrew its
	 * limit (blocks nested absurdly deep) or malloc failed. */
	parse_fatal_error(ctx, loc, msg);
}

static struct diag_loc
loc_of(const struct parse_ctx *ctx, const HEEL_YYLTYPE *l)
{
	struct diag_loc d = { ctx->src, (uint32_t)l->first_line,
			      (uint32_t)l->first_column };

	return d;
}

static struct ast_stmt *
mk(struct parse_ctx *ctx, enum ast_kind kind, const HEEL_YYLTYPE *l)
{
	struct ast_stmt *s = ast_stmt_new(kind, loc_of(ctx, l));

	if (!s)
		ctx->oom = true;
	return s;
}

/* Always takes ownership of *arg, even when there is no statement to put
 * it in (an earlier allocation failed). */
static void
put(struct parse_ctx *ctx, struct ast_stmt *s, struct ast_arg *arg)
{
	if (!s) {
		ast_arg_clear(arg);
		return;
	}
	if (ast_stmt_add_arg(s, arg) < 0)
		ctx->oom = true;
}

static struct ast_stmt *
mk1(struct parse_ctx *ctx, enum ast_kind kind, const HEEL_YYLTYPE *l,
    struct ast_arg *a)
{
	struct ast_stmt *s = mk(ctx, kind, l);

	put(ctx, s, a);
	return s;
}

static struct ast_stmt *
mk2(struct parse_ctx *ctx, enum ast_kind kind, const HEEL_YYLTYPE *l,
    struct ast_arg *a, struct ast_arg *b)
{
	struct ast_stmt *s = mk1(ctx, kind, l, a);

	put(ctx, s, b);
	return s;
}

static struct ast_stmt *
flag(struct parse_ctx *ctx, struct ast_stmt *s, unsigned f,
     const HEEL_YYLTYPE *l)
{
	if (s) {
		s->flags |= f;
		if (l)
			s->flag_loc = loc_of(ctx, l);
	}
	return s;
}

static struct ast_stmt *
with_children(struct ast_stmt *s, struct parse_list *l)
{
	if (!s) {
		ast_stmt_free(l->head);
		return NULL;
	}
	s->children = l->head;
	return s;
}

static struct ast_stmt *
ended(struct ast_stmt *s, const HEEL_YYLTYPE *l)
{
	if (s)
		s->last_line = (uint32_t)l->last_line;
	return s;
}

static struct parse_list
list_add(struct parse_list l, struct ast_stmt *s)
{
	if (!s)
		return l;
	if (l.head)
		l.tail->next = s;
	else
		l.head = s;
	l.tail = s;
	return l;
}

/* Top-level statements go straight into the file, so what parsed before
 * an unrecoverable error (end of file inside a block) is kept. */
static void
file_add(struct parse_ctx *ctx, struct ast_stmt *s)
{
	if (!s)
		return;
	if (ctx->tail)
		ctx->tail->next = s;
	else
		ctx->file->stmts = s;
	ctx->tail = s;
}

/* A keyword where a bare word is expected (`limit nice 1`): kept as the
 * word it is spelt as, so sema can say what is wrong with it. */
static struct ast_arg
kw(struct parse_ctx *ctx, const char *spelling, const HEEL_YYLTYPE *l)
{
	struct ast_arg a = { .kind = AST_ARG_WORD, .loc = loc_of(ctx, l) };

	a.text = strdup(spelling);
	if (!a.text)
		ctx->oom = true;
	else
		a.len = strlen(spelling);
	return a;
}
}

%token <arg> T_WORD T_UPPER T_NUMBER T_STRING T_ANGLE
%token T_EOS T_LBRACE T_RBRACE
%token K_HEEL K_ISOLATION K_INCLUDE K_GRANT K_DENY K_PROTECT K_UNPROTECT
%token K_ALLOW K_GPU K_NETWORK K_ALLOW_ALL K_ALLOW_PRIVATE K_AUDIT K_DAILY K_DECIDE
%token K_LIMIT K_NICE K_IO_PRIORITY K_ENV K_PASS K_SET K_WORKDIR K_IPC
%token K_EXEC K_POSITIONAL K_TIMEOUT K_ARG K_PYTHON K_VENV K_PACKAGES K_ALLOW_PIP
%token K_ON K_SECCOMP K_ERRNO K_UNIX_SOCKETS K_MACH_LOOKUP K_SBPL
%token K_CAPABILITY K_READONLY K_EACH_WRITABLE K_BECAUSE K_OPTIONAL

%type <arg> word
%type <stmt> stmt stmt_body protect unprotect env_pass decide
%type <stmt> ipc_item ipc_body positional py_item py_body packages pattern
%type <list> on_block stmt_list ipc_block ipc_list py_block py_list
%type <list> pat_block pat_list

%destructor { ast_arg_clear(&$$); } <arg>
%destructor { ast_stmt_free($$); } <stmt>
%destructor { ast_stmt_free($$.head); } <list>

%start file

%%

file:
	  top
	;

top:
	  %empty
	| top T_EOS
	| top stmt T_EOS		{ file_add(ctx, $2); }
	| top error T_EOS		{ yyerrok; }
	| top error braced T_EOS	{ yyerrok; }
	;

/* A block after an error is skipped whole, so its contents are not
 * mistaken for statements of the enclosing list. */
braced:
	  T_LBRACE soup T_RBRACE
	;

soup:
	  %empty
	| soup junk
	| soup braced
	;

junk:
	  T_EOS
	| word			{ ast_arg_clear(&$1); }
	| T_UPPER		{ ast_arg_clear(&$1); }
	| T_NUMBER		{ ast_arg_clear(&$1); }
	| T_STRING		{ ast_arg_clear(&$1); }
	| T_ANGLE		{ ast_arg_clear(&$1); }
	;

stmt:
	  stmt_body		{ $$ = ended($1, &@1); }
	;

stmt_body:
	  K_HEEL T_NUMBER	{ $$ = mk1(ctx, AST_HEEL, &@1, &$2); }
	| K_ISOLATION word	{ $$ = mk1(ctx, AST_ISOLATION, &@1, &$2); }
	| K_INCLUDE T_ANGLE	{ $$ = mk1(ctx, AST_INCLUDE, &@1, &$2); }
	| K_INCLUDE T_STRING	{ $$ = mk1(ctx, AST_INCLUDE, &@1, &$2); }
	| K_GRANT T_STRING word	{ $$ = mk2(ctx, AST_GRANT, &@1, &$2, &$3); }
	| K_GRANT T_STRING word K_OPTIONAL
		{ $$ = flag(ctx, mk2(ctx, AST_GRANT, &@1, &$2, &$3), AST_F_OPTIONAL, &@4); }
	| K_DENY T_STRING	{ $$ = mk1(ctx, AST_DENY, &@1, &$2); }
	| K_DENY K_GPU		{ $$ = mk(ctx, AST_DENY_GPU, &@1); }
	| protect		{ $$ = $1; }
	| unprotect		{ $$ = $1; }
	| K_ALLOW K_GPU		{ $$ = mk(ctx, AST_ALLOW_GPU, &@1); }
	| K_ALLOW K_UNIX_SOCKETS
		{ $$ = mk(ctx, AST_ALLOW_UNIX_SOCKETS, &@1); }
	| K_ALLOW K_MACH_LOOKUP T_STRING
		{ $$ = mk1(ctx, AST_ALLOW_MACH_LOOKUP, &@1, &$3); }
	| K_NETWORK K_DENY	{ $$ = mk(ctx, AST_NETWORK_DENY, &@1); }
	| K_NETWORK K_ALLOW_ALL	{ $$ = mk(ctx, AST_NETWORK_ALLOW_ALL, &@1); }
	| K_NETWORK K_ALLOW_PRIVATE
		{ $$ = mk(ctx, AST_NETWORK_ALLOW_PRIVATE, &@1); }
	| K_NETWORK K_ALLOW pat_block
		{ $$ = with_children(mk(ctx, AST_NETWORK_ALLOW, &@1), &$3); }
	| K_NETWORK K_AUDIT T_STRING
		{ $$ = mk1(ctx, AST_NETWORK_AUDIT, &@1, &$3); }
	| K_NETWORK K_AUDIT K_DAILY T_STRING
		{ $$ = flag(ctx, mk1(ctx, AST_NETWORK_AUDIT, &@1, &$4), AST_F_DAILY, &@3); }
	| decide		{ $$ = $1; }
	| K_LIMIT word T_NUMBER	{ $$ = mk2(ctx, AST_LIMIT, &@1, &$2, &$3); }
	| K_NICE T_NUMBER	{ $$ = mk1(ctx, AST_NICE, &@1, &$2); }
	| K_IO_PRIORITY word	{ $$ = mk1(ctx, AST_IO_PRIORITY, &@1, &$2); }
	| env_pass		{ $$ = $1; }
	| K_ENV K_SET T_STRING T_STRING
		{ $$ = mk2(ctx, AST_ENV_SET, &@1, &$3, &$4); }
	| K_WORKDIR T_STRING	{ $$ = mk1(ctx, AST_WORKDIR, &@1, &$2); }
	| K_IPC T_STRING ipc_block
		{ $$ = with_children(mk1(ctx, AST_IPC, &@1, &$2), &$3); }
	| K_PYTHON py_block	{ $$ = with_children(mk(ctx, AST_PYTHON, &@1), &$2); }
	| K_ON word on_block	{ $$ = with_children(mk1(ctx, AST_ON, &@1, &$2), &$3); }
	| K_SECCOMP K_DENY T_STRING
		{ $$ = mk1(ctx, AST_SECCOMP, &@1, &$3); }
	| K_SECCOMP K_DENY T_STRING K_ERRNO T_UPPER
		{ $$ = flag(ctx, mk2(ctx, AST_SECCOMP, &@1, &$3, &$5), AST_F_ERRNO, &@4); }
	| K_SECCOMP K_ALLOW T_STRING
		{ $$ = flag(ctx, mk1(ctx, AST_SECCOMP, &@1, &$3), AST_F_ALLOW, NULL); }
	| K_SBPL T_STRING	{ $$ = mk1(ctx, AST_SBPL, &@1, &$2); }
	| K_CAPABILITY T_STRING	{ $$ = mk1(ctx, AST_CAPABILITY, &@1, &$2); }
	| K_READONLY T_STRING	{ $$ = mk1(ctx, AST_READONLY, &@1, &$2); }
	| K_READONLY T_STRING K_BECAUSE T_STRING
		{ $$ = flag(ctx, mk2(ctx, AST_READONLY, &@1, &$2, &$4), AST_F_BECAUSE, &@3); }
	| K_READONLY K_EACH_WRITABLE T_STRING
		{ $$ = flag(ctx, mk1(ctx, AST_READONLY, &@1, &$3), AST_F_EACH_WRITABLE, &@2); }
	| K_READONLY K_EACH_WRITABLE T_STRING K_BECAUSE T_STRING
		{ $$ = flag(ctx, flag(ctx, mk2(ctx, AST_READONLY, &@1, &$3, &$5),
				      AST_F_EACH_WRITABLE, &@2), AST_F_BECAUSE, &@4); }
	;

protect:
	  K_PROTECT word	{ $$ = mk1(ctx, AST_PROTECT, &@1, &$2); }
	| protect word		{ $$ = $1; put(ctx, $$, &$2); }
	;

unprotect:
	  K_UNPROTECT word	{ $$ = mk1(ctx, AST_UNPROTECT, &@1, &$2); }
	| unprotect word	{ $$ = $1; put(ctx, $$, &$2); }
	;

env_pass:
	  K_ENV K_PASS T_STRING	{ $$ = mk1(ctx, AST_ENV_PASS, &@1, &$3); }
	| env_pass T_STRING	{ $$ = $1; put(ctx, $$, &$2); }
	;

/* network decide "PROGRAM" "ARG"...: the program, then its arguments. */
decide:
	  K_NETWORK K_DECIDE T_STRING
		{ $$ = mk1(ctx, AST_NETWORK_DECIDE, &@1, &$3); }
	| decide T_STRING	{ $$ = $1; put(ctx, $$, &$2); }
	;

/* on PLATFORM { ... }: any statement parses here; sema says which ones
 * are not allowed inside a platform block. */
on_block:
	  T_LBRACE stmt_list T_RBRACE		{ $$ = $2; }
	| T_LBRACE stmt_list stmt T_RBRACE	{ $$ = list_add($2, $3); }
	| T_LBRACE stmt_list error T_RBRACE	{ $$ = $2; yyerrok; }
	| T_LBRACE stmt_list error braced T_RBRACE
						{ $$ = $2; yyerrok; }
	;

stmt_list:
	  %empty			{ $$ = (struct parse_list){ NULL, NULL }; }
	| stmt_list T_EOS		{ $$ = $1; }
	| stmt_list stmt T_EOS		{ $$ = list_add($1, $2); }
	| stmt_list error T_EOS		{ $$ = $1; yyerrok; }
	| stmt_list error braced T_EOS	{ $$ = $1; yyerrok; }
	;

ipc_block:
	  T_LBRACE ipc_list T_RBRACE		{ $$ = $2; }
	| T_LBRACE ipc_list ipc_item T_RBRACE	{ $$ = list_add($2, $3); }
	| T_LBRACE ipc_list error T_RBRACE	{ $$ = $2; yyerrok; }
	| T_LBRACE ipc_list error braced T_RBRACE
						{ $$ = $2; yyerrok; }
	;

ipc_list:
	  %empty			{ $$ = (struct parse_list){ NULL, NULL }; }
	| ipc_list T_EOS		{ $$ = $1; }
	| ipc_list ipc_item T_EOS	{ $$ = list_add($1, $2); }
	| ipc_list error T_EOS		{ $$ = $1; yyerrok; }
	| ipc_list error braced T_EOS	{ $$ = $1; yyerrok; }
	;

ipc_item:
	  ipc_body		{ $$ = ended($1, &@1); }
	;

ipc_body:
	  K_EXEC T_STRING	{ $$ = mk1(ctx, AST_IPC_EXEC, &@1, &$2); }
	| positional		{ $$ = $1; }
	| K_TIMEOUT T_NUMBER	{ $$ = mk1(ctx, AST_IPC_TIMEOUT, &@1, &$2); }
	| K_ARG T_STRING word	{ $$ = mk1(ctx, AST_IPC_ARG, &@1, &$2); put(ctx, $$, &$3); }
	;

positional:
	  K_POSITIONAL T_STRING	{ $$ = mk1(ctx, AST_IPC_POSITIONAL, &@1, &$2); }
	| positional T_STRING	{ $$ = $1; put(ctx, $$, &$2); }
	;

py_block:
	  T_LBRACE py_list T_RBRACE		{ $$ = $2; }
	| T_LBRACE py_list py_item T_RBRACE	{ $$ = list_add($2, $3); }
	| T_LBRACE py_list error T_RBRACE	{ $$ = $2; yyerrok; }
	| T_LBRACE py_list error braced T_RBRACE
						{ $$ = $2; yyerrok; }
	;

py_list:
	  %empty			{ $$ = (struct parse_list){ NULL, NULL }; }
	| py_list T_EOS			{ $$ = $1; }
	| py_list py_item T_EOS		{ $$ = list_add($1, $2); }
	| py_list error T_EOS		{ $$ = $1; yyerrok; }
	| py_list error braced T_EOS	{ $$ = $1; yyerrok; }
	;

py_item:
	  py_body		{ $$ = ended($1, &@1); }
	;

py_body:
	  K_VENV T_STRING	{ $$ = mk1(ctx, AST_PY_VENV, &@1, &$2); }
	| packages		{ $$ = $1; }
	| K_ALLOW_PIP word	{ $$ = mk1(ctx, AST_PY_ALLOW_PIP, &@1, &$2); }
	;

packages:
	  K_PACKAGES T_STRING	{ $$ = mk1(ctx, AST_PY_PACKAGES, &@1, &$2); }
	| packages T_STRING	{ $$ = $1; put(ctx, $$, &$2); }
	;

pat_block:
	  T_LBRACE pat_list T_RBRACE		{ $$ = $2; }
	| T_LBRACE pat_list pattern T_RBRACE	{ $$ = list_add($2, $3); }
	| T_LBRACE pat_list error T_RBRACE	{ $$ = $2; yyerrok; }
	| T_LBRACE pat_list error braced T_RBRACE
						{ $$ = $2; yyerrok; }
	;

pat_list:
	  %empty			{ $$ = (struct parse_list){ NULL, NULL }; }
	| pat_list T_EOS		{ $$ = $1; }
	| pat_list pattern T_EOS	{ $$ = list_add($1, $2); }
	| pat_list error T_EOS		{ $$ = $1; yyerrok; }
	| pat_list error braced T_EOS	{ $$ = $1; yyerrok; }
	;

pattern:
	  T_STRING		{ $$ = ended(mk1(ctx, AST_PATTERN, &@1, &$1), &@1); }
	;

/* Keywords double as bare words where a word is expected. */
word:
	  T_WORD		{ $$ = $1; }
	| K_HEEL		{ $$ = kw(ctx, "heel", &@1); }
	| K_ISOLATION		{ $$ = kw(ctx, "isolation", &@1); }
	| K_INCLUDE		{ $$ = kw(ctx, "include", &@1); }
	| K_GRANT		{ $$ = kw(ctx, "grant", &@1); }
	| K_DENY		{ $$ = kw(ctx, "deny", &@1); }
	| K_PROTECT		{ $$ = kw(ctx, "protect", &@1); }
	| K_UNPROTECT		{ $$ = kw(ctx, "unprotect", &@1); }
	| K_ALLOW		{ $$ = kw(ctx, "allow", &@1); }
	| K_GPU			{ $$ = kw(ctx, "gpu", &@1); }
	| K_NETWORK		{ $$ = kw(ctx, "network", &@1); }
	| K_ALLOW_ALL		{ $$ = kw(ctx, "allow-all", &@1); }
	| K_ALLOW_PRIVATE	{ $$ = kw(ctx, "allow-private", &@1); }
	| K_AUDIT		{ $$ = kw(ctx, "audit", &@1); }
	| K_DAILY		{ $$ = kw(ctx, "daily", &@1); }
	| K_DECIDE		{ $$ = kw(ctx, "decide", &@1); }
	| K_LIMIT		{ $$ = kw(ctx, "limit", &@1); }
	| K_NICE		{ $$ = kw(ctx, "nice", &@1); }
	| K_IO_PRIORITY		{ $$ = kw(ctx, "io-priority", &@1); }
	| K_ENV			{ $$ = kw(ctx, "env", &@1); }
	| K_PASS		{ $$ = kw(ctx, "pass", &@1); }
	| K_SET			{ $$ = kw(ctx, "set", &@1); }
	| K_WORKDIR		{ $$ = kw(ctx, "workdir", &@1); }
	| K_IPC			{ $$ = kw(ctx, "ipc", &@1); }
	| K_EXEC		{ $$ = kw(ctx, "exec", &@1); }
	| K_POSITIONAL		{ $$ = kw(ctx, "positional", &@1); }
	| K_TIMEOUT		{ $$ = kw(ctx, "timeout", &@1); }
	| K_ARG			{ $$ = kw(ctx, "arg", &@1); }
	| K_PYTHON		{ $$ = kw(ctx, "python", &@1); }
	| K_VENV		{ $$ = kw(ctx, "venv", &@1); }
	| K_PACKAGES		{ $$ = kw(ctx, "packages", &@1); }
	| K_ALLOW_PIP		{ $$ = kw(ctx, "allow-pip-install", &@1); }
	| K_ON			{ $$ = kw(ctx, "on", &@1); }
	| K_SECCOMP		{ $$ = kw(ctx, "seccomp", &@1); }
	| K_ERRNO		{ $$ = kw(ctx, "errno", &@1); }
	| K_UNIX_SOCKETS	{ $$ = kw(ctx, "unix-sockets", &@1); }
	| K_MACH_LOOKUP		{ $$ = kw(ctx, "mach-lookup", &@1); }
	| K_SBPL		{ $$ = kw(ctx, "sbpl", &@1); }
	| K_CAPABILITY		{ $$ = kw(ctx, "capability", &@1); }
	| K_READONLY		{ $$ = kw(ctx, "readonly", &@1); }
	| K_EACH_WRITABLE	{ $$ = kw(ctx, "each-writable", &@1); }
	| K_BECAUSE		{ $$ = kw(ctx, "because", &@1); }
	| K_OPTIONAL		{ $$ = kw(ctx, "optional", &@1); }
	;

%%

/* The wording lives in parse.c: it is chosen from the statement being
 * read, which reads better than bison's list of expected tokens. */
static int
yyreport_syntax_error(const yypcontext_t *yyctx, yyscan_t scanner,
		      struct parse_ctx *ctx)
{
	(void)yyctx;
	(void)scanner;
	parse_syntax_error(ctx);
	return 0;
}

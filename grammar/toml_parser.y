/* SPDX-License-Identifier: MIT
 * Grammar of the TOML subset `heel --config` reads. Actions only build
 * toml.h values (compiler/heel/toml.c); a syntax error is reported once
 * and the parser resumes at the next line, so one run reports every
 * broken line. */

%require "3.8"
%define api.pure full
%define api.prefix {toml_yy}
%define parse.error detailed
%locations
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {struct toml_scan *sc}

%code requires {
#include "toml_scan.h"
}

%code provides {
#ifndef YYSTYPE
#define YYSTYPE TOML_YYSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE TOML_YYLTYPE
#endif
int toml_yylex(TOML_YYSTYPE *lval, TOML_YYLTYPE *lloc, yyscan_t scanner);
}

%union {
	struct toml_tok tok;
	struct toml_value *val;
	struct toml_list list;
}

%code {
static void
toml_yyerror(const TOML_YYLTYPE *loc, yyscan_t scanner, struct toml_scan *sc, const char *msg)
{
	(void)scanner;
	toml_scan_syntax_error(sc, (uint32_t)loc->first_line, (uint32_t)loc->first_column, msg);
}
}

%token <tok> TOML_WORD "bare word" TOML_STRING "string"
%token TOML_NEWLINE "end of line" TOML_ARRAY_OPEN "`[`" TOML_ARRAY_CLOSE "`]`" TOML_BAD "bad token"
%type <tok> key
%type <val> value
%type <list> items

%destructor { free($$.text); } <tok>
%destructor { toml_value_free($$); } <val>
%destructor { toml_list_free(&$$); } <list>

%%

doc
	: %empty
	| doc line
	;

line
	: TOML_NEWLINE
	| '[' key ']' TOML_NEWLINE      { toml_act_table(sc, &$2, (uint32_t)@2.first_line, (uint32_t)@2.first_column); }
	| key '=' value TOML_NEWLINE    { toml_act_keyval(sc, &$1, (uint32_t)@1.first_line, (uint32_t)@1.first_column, $3); }
	| error TOML_NEWLINE            { yyerrok; }
	;

key
	: TOML_WORD                     { $$ = $1; }
	| TOML_STRING                   { $$ = $1; }
	;

value
	: TOML_STRING                   { $$ = toml_act_string(sc, &$1, (uint32_t)@1.first_line, (uint32_t)@1.first_column); }
	| TOML_WORD                     { $$ = toml_act_word(sc, &$1, (uint32_t)@1.first_line, (uint32_t)@1.first_column); }
	| TOML_ARRAY_OPEN TOML_ARRAY_CLOSE
					{ $$ = toml_act_array(sc, NULL, (uint32_t)@1.first_line, (uint32_t)@1.first_column); }
	| TOML_ARRAY_OPEN items TOML_ARRAY_CLOSE
					{ $$ = toml_act_array(sc, &$2, (uint32_t)@1.first_line, (uint32_t)@1.first_column); }
	| TOML_ARRAY_OPEN items ',' TOML_ARRAY_CLOSE
					{ $$ = toml_act_array(sc, &$2, (uint32_t)@1.first_line, (uint32_t)@1.first_column); }
	;

items
	: value                         { $$ = (struct toml_list){ 0 }; toml_list_add(sc, &$$, $1); }
	| items ',' value               { $$ = $1; toml_list_add(sc, &$$, $3); }
	;

%%

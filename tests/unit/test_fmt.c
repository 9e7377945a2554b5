/* SPDX-License-Identifier: MIT
 * heelc fmt: the canonical layout on hand-written cases and on the golden
 * files in tests/golden/fmt, and its three promises over every golden
 * input and every policy in policies/: idempotent, no comment lost or
 * duplicated or reordered, and the meaning (the statement tree) unchanged.
 * The source digest is taken over fmt's output, so a regression here
 * would silently change artifacts. Runs from the repository root. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ast.h"
#include "diag.h"
#include "fmt.h"
#include "parse.h"

#define GOLDEN_DIR "tests/golden/fmt"
#define POLICIES_DIR "policies"

struct parsed {
	struct diag_ctx *ctx;
	struct ast_file *file;
};

static void
parsed_free(struct parsed *p)
{
	ast_file_free(p->file);
	diag_free(p->ctx);
	p->file = NULL;
	p->ctx = NULL;
}

/* Returns 0 when `text` parsed cleanly; otherwise the diagnostics go to
 * stderr (so a failing test shows why) and the parse result. */
static int
try_parse(const char *name, const char *text, size_t len, struct parsed *p)
{
	const struct diag_source *src;
	int rc;

	p->file = NULL;
	p->ctx = diag_new();
	cr_assert_not_null(p->ctx);
	src = diag_add_source(p->ctx, name, name, text, len);
	cr_assert_not_null(src);
	rc = parse_source(p->ctx, src, &p->file);
	if (rc == 0 && diag_error_count(p->ctx) != 0)
		rc = -EINVAL;
	return rc;
}

static void
must_parse(const char *name, const char *text, size_t len, struct parsed *p)
{
	int rc = try_parse(name, text, len, p);

	if (rc != 0)
		diag_render(p->ctx, stderr);
	cr_assert_eq(rc, 0, "%s: does not parse (%d):\n%s", name, rc, text);
	cr_assert_not_null(p->file);
}

static char *
render(const char *name, const struct ast_file *file)
{
	char *out = NULL;
	size_t len = 0;
	int rc = fmt_render(file, &out, &len);

	cr_assert_eq(rc, 0, "%s: fmt_render returned %d", name, rc);
	cr_assert_not_null(out);
	cr_assert_eq(strlen(out), len, "%s: length disagrees with NUL", name);
	return out;
}

/* Formats `text`, which must parse. Caller frees. */
static char *
fmt_text(const char *name, const char *text, size_t len)
{
	struct parsed p;
	char *out;

	must_parse(name, text, len, &p);
	out = render(name, p.file);
	parsed_free(&p);
	return out;
}

static char *
read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			cr_assert_not_null(buf);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	cr_assert(!ferror(f), "read error on %s", path);
	fclose(f);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

struct paths {
	char **v;
	size_t n;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Every *.heel under `dir`, recursively; a missing dir gives none. */
static void
collect(const char *dir, bool recurse, struct paths *ps)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		cr_assert(asprintf(&path, "%s/%s", dir, e->d_name) >= 0);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (recurse)
				collect(path, true, ps);
			free(path);
		} else if (has_suffix(path, ".heel")) {
			ps->v = realloc(ps->v, (ps->n + 1) * sizeof(*ps->v));
			cr_assert_not_null(ps->v);
			ps->v[ps->n++] = path;
		} else {
			free(path);
		}
	}
	closedir(d);
	if (ps->n)
		qsort(ps->v, ps->n, sizeof(*ps->v), cmp_str);
}

static void
paths_free(struct paths *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i]);
	free(ps->v);
	ps->v = NULL;
	ps->n = 0;
}

/* ------------------------------------------------ the three promises */

static size_t
rtrim_len(const char *s)
{
	size_t n = strlen(s);

	while (n && strchr(" \t\r\f\v", s[n - 1]))
		n--;
	return n;
}

/* Same comments, same order, each once: fmt may only strip trailing
 * whitespace from them. */
static void
expect_same_comments(const char *name, const struct ast_file *in,
		     const struct ast_file *out)
{
	cr_expect_eq(in->ncomments, out->ncomments,
		     "%s: %zu comments in, %zu out", name, in->ncomments,
		     out->ncomments);
	for (size_t i = 0; i < in->ncomments && i < out->ncomments; i++) {
		const char *a = in->comments[i].text, *b = out->comments[i].text;
		size_t na = rtrim_len(a), nb = rtrim_len(b);

		cr_expect(na == nb && memcmp(a, b, na) == 0,
			  "%s: comment %zu was '%s', became '%s'", name, i, a, b);
	}
}

static bool
same_stmts(const char *name, const struct ast_stmt *a, const struct ast_stmt *b)
{
	for (; a && b; a = a->next, b = b->next) {
		if (a->kind != b->kind || a->flags != b->flags ||
		    a->nargs != b->nargs) {
			cr_log_error("%s: line %u (%s) became line %u (%s): kind, flags or argument count differ",
				     name, a->loc.line, ast_kind_name(a->kind),
				     b->loc.line, ast_kind_name(b->kind));
			return false;
		}
		for (size_t i = 0; i < a->nargs; i++) {
			const struct ast_arg *x = &a->args[i], *y = &b->args[i];

			if (x->kind != y->kind || x->len != y->len ||
			    memcmp(x->text, y->text, x->len) != 0) {
				cr_log_error("%s: line %u argument %zu changed", name,
					     a->loc.line, i + 1);
				return false;
			}
		}
		if ((a->children == NULL) != (b->children == NULL) ||
		    !same_stmts(name, a->children, b->children))
			return false;
	}
	if (a || b) {
		cr_log_error("%s: statement count differs", name);
		return false;
	}
	return true;
}

/* Checks every promise on one input that parses; returns its rendering.
 * `want`, when not NULL, is the exact expected output. */
static char *
check_all(const char *name, const char *text, size_t len, const char *want)
{
	struct parsed in, out;
	char *once, *twice;
	size_t n;

	must_parse(name, text, len, &in);
	once = render(name, in.file);
	if (want)
		cr_expect_str_eq(once, want, "%s: got\n%s---\nwant\n%s---", name,
				 once, want);

	n = strlen(once);
	cr_expect(n == 0 || (once[n - 1] == '\n' && (n < 2 || once[n - 2] != '\n')),
		  "%s: output must end with exactly one newline", name);
	cr_expect(n == 0 || once[0] != '\n', "%s: leading blank line", name);
	for (const char *l = once; *l;) {
		const char *e = strchr(l, '\n');

		if (!e)
			break;
		cr_expect(e == l || (e[-1] != ' ' && e[-1] != '\t'),
			  "%s: trailing whitespace in output line '%.*s'", name,
			  (int)(e - l), l);
		cr_expect(*l != '\t', "%s: tab indentation in '%.*s'", name,
			  (int)(e - l), l);
		cr_expect(!(e[1] == '\n' && e[2] == '\n'),
			  "%s: two blank lines in a row", name);
		l = e + 1;
	}

	must_parse(name, once, n, &out);
	twice = render(name, out.file);
	cr_expect_str_eq(twice, once, "%s: not idempotent:\n%s---\nthen\n%s---",
			 name, once, twice);
	expect_same_comments(name, in.file, out.file);
	cr_expect(same_stmts(name, in.file->stmts, out.file->stmts),
		  "%s: meaning changed:\n%s---\nbecame\n%s---", name, text, once);
	free(twice);
	parsed_free(&out);
	parsed_free(&in);
	return once;
}

static void
check_case(const char *name, const char *in, const char *want)
{
	free(check_all(name, in, strlen(in), want));
}

/* --------------------------------------------------- hand-written cases */

Test(fmt, minimal)
{
	check_case("minimal", "heel 1\n", "heel 1\n");
	check_case("no newline", "heel 1", "heel 1\n");
	check_case("spaces", "   heel    1   \n\n\n", "heel 1\n");
}

Test(fmt, statement_spelling)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "isolation   strict", "isolation strict" },
		{ "include   <python>", "include <python>" },
		{ "include  \"a.heel\"", "include \"a.heel\"" },
		{ "grant \"/a\"  rw   optional", "grant \"/a\" rw optional" },
		{ "grant \"/a\" rx", "grant \"/a\" rx" },
		{ "deny   \"/a\"", "deny \"/a\"" },
		{ "protect  credentials   keychains", "protect credentials keychains" },
		{ "unprotect user-home", "unprotect user-home" },
		{ "allow  gpu", "allow gpu" },
		{ "deny  gpu", "deny gpu" },
		{ "network  deny", "network deny" },
		{ "network  allow-all", "network allow-all" },
		{ "network  allow-private", "network allow-private" },
		{ "network  audit \"/f\"", "network audit \"/f\"" },
		{ "network  audit  daily \"/d\"", "network audit daily \"/d\"" },
		{ "network  decide   \"/d\"", "network decide \"/d\"" },
		{ "network decide \"/d\"  \"-x\"   \"\"", "network decide \"/d\" \"-x\" \"\"" },
		{ "network allow {\n\"a.b\"\n}", "network allow {\n    \"a.b\"\n}" },
		{ "limit  memory  2GiB", "limit memory 2GiB" },
		{ "nice  10", "nice 10" },
		{ "io-priority  background", "io-priority background" },
		{ "env  pass \"A\"  \"B\"", "env pass \"A\" \"B\"" },
		{ "env  set \"A\"  \"\"", "env set \"A\" \"\"" },
		{ "workdir  \"/w\"", "workdir \"/w\"" },
		{ "ipc \"n\" {\nexec \"/x\"\npositional \"a\" \"b\"\ntimeout 5s\n}",
		  "ipc \"n\" {\n    exec \"/x\"\n    positional \"a\" \"b\"\n    timeout 5s\n}" },
		{ "python {\nvenv \"./v\"\npackages \"a\" \"b\"\nallow-pip-install yes\n}",
		  "python {\n    venv \"./v\"\n    packages \"a\" \"b\"\n    allow-pip-install yes\n}" },
		{ "on linux {\nseccomp  deny \"x\"\n}", "on linux {\n    seccomp deny \"x\"\n}" },
		{ "on linux {\nseccomp  deny \"x\"  errno  ENOSYS\n}",
		  "on linux {\n    seccomp deny \"x\" errno ENOSYS\n}" },
		{ "on linux {\nseccomp  allow \"x\"\n}", "on linux {\n    seccomp allow \"x\"\n}" },
		{ "on linux {\nallow  unix-sockets\n}", "on linux {\n    allow unix-sockets\n}" },
		{ "on macos {\nallow  mach-lookup \"m\"\nsbpl  \"(deny default)\"\n}",
		  "on macos {\n    allow mach-lookup \"m\"\n    sbpl \"(deny default)\"\n}" },
		{ "on windows {\ncapability   \"internetClient\"\n}",
		  "on windows {\n    capability \"internetClient\"\n}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *in, *want;

		cr_assert(asprintf(&in, "heel 1\n%s\n", cases[i].in) >= 0);
		cr_assert(asprintf(&want, "heel 1\n%s\n", cases[i].want) >= 0);
		check_case(cases[i].in, in, want);
		free(in);
		free(want);
	}
}

Test(fmt, string_escapes)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "\"\"", "\"\"" },
		{ "\"a\\\"b\"", "\"a\\\"b\"" },
		{ "\"a\\\\b\"", "\"a\\\\b\"" },
		{ "\"\\n\\t\"", "\"\\n\\t\"" },
		{ "\"\\x0a\\x09\"", "\"\\n\\t\"" },
		{ "\"\\x22\\x5c\"", "\"\\\"\\\\\"" },
		{ "\"\\x00\\x01\\x1F\\x7f\"", "\"\\x00\\x01\\x1f\\x7f\"" },
		{ "\"\\x0d\"", "\"\\x0d\"" },
		{ "\"\\x41\\x7e\\x20\"", "\"A~ \"" },
		{ "\"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e\"",
		  "\"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9d\x84\x9e\"" },
		{ "\"\\xc3\\xa9\"", "\"\xc3\xa9\"" },
		/* Not UTF-8 once decoded: stays escaped so the output lexes. */
		{ "\"\\xff\"", "\"\\xff\"" },
		{ "\"\\xc3\"", "\"\\xc3\"" },
		{ "\"\\xc3x\"", "\"\\xc3x\"" },
		{ "\"\\xc0\\xaf\"", "\"\\xc0\\xaf\"" },           /* overlong '/' */
		{ "\"\\xed\\xa0\\x80\"", "\"\\xed\\xa0\\x80\"" }, /* surrogate */
		{ "\"\\xf4\\x90\\x80\\x80\"", "\"\\xf4\\x90\\x80\\x80\"" }, /* > U+10FFFF */
		{ "\"${HOME}#x$y\"", "\"${HOME}#x$y\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *in, *want;

		cr_assert(asprintf(&in, "heel 1\nenv set \"V\" %s\n", cases[i].in) >= 0);
		cr_assert(asprintf(&want, "heel 1\nenv set \"V\" %s\n", cases[i].want) >= 0);
		check_case(cases[i].in, in, want);
		free(in);
		free(want);
	}
}

Test(fmt, comments_everywhere_kept_once)
{
	static const char in[] =
		"# 1 before heel\n"
		"heel 1 # 2 heel\n"
		"# 3 own line\n"
		"grant \"/a\" r; grant \"/b\" r # 4 after b\n"
		"network allow { # 5 opener\n"
		"    # 6 first in block\n"
		"    \"a.example\" # 7 pattern\n"
		"    # 8 last in block\n"
		"} # 9 closer\n"
		"on linux { seccomp deny \"x\" } # 10 one-line block\n"
		"network allow { } # 11 empty block\n"
		"network allow {\n"
		"    # 12 only thing in an empty block\n"
		"}\n"
		"; # 13 after an empty statement\n"
		"# 14 last line";
	static const char want[] =
		"# 1 before heel\n"
		"heel 1  # 2 heel\n"
		"# 3 own line\n"
		"grant \"/a\" r\n"
		"grant \"/b\" r  # 4 after b\n"
		"network allow {  # 5 opener\n"
		"    # 6 first in block\n"
		"    \"a.example\"  # 7 pattern\n"
		"    # 8 last in block\n"
		"}  # 9 closer\n"
		"on linux {\n"
		"    seccomp deny \"x\"\n"
		"}  # 10 one-line block\n"
		"network allow { }  # 11 empty block\n"
		"network allow {\n"
		"    # 12 only thing in an empty block\n"
		"}\n"
		"# 13 after an empty statement\n"
		"# 14 last line\n";

	check_case("comments everywhere", in, want);
}

Test(fmt, blank_lines)
{
	check_case("blank runs collapse",
		   "\n\n# c\n\n\n\nheel 1\n\n\n\ngrant \"/a\" r\n\n\n",
		   "# c\n\nheel 1\n\ngrant \"/a\" r\n");
	check_case("whitespace-only lines are blank",
		   "heel 1\n \t \ngrant \"/a\" r\n",
		   "heel 1\n\ngrant \"/a\" r\n");
	check_case("none inside braces' edges",
		   "heel 1\non linux {\n\n\n    allow unix-sockets\n\n\n    seccomp deny \"x\"\n\n}\n",
		   "heel 1\non linux {\n    allow unix-sockets\n\n    seccomp deny \"x\"\n}\n");
	check_case("empty expanded block",
		   "heel 1\nnetwork allow {  # a\n\n\n}  # b\n",
		   "heel 1\nnetwork allow {  # a\n}  # b\n");
	check_case("between comment and statement",
		   "heel 1\n# about a\n\ngrant \"/a\" r\n\n# about b\ngrant \"/b\" r\n",
		   "heel 1\n# about a\n\ngrant \"/a\" r\n\n# about b\ngrant \"/b\" r\n");
}

/* Which line a trailing comment belongs to must come out the same after
 * fmt, or a second run would move it again. */
Test(fmt, empty_block_followed_on_its_closing_line)
{
	check_case("comment after the next statement",
		   "heel 1\nnetwork allow {  # a\n}; grant \"/a\" r  # b\n",
		   "heel 1\nnetwork allow { }  # a\ngrant \"/a\" r  # b\n");
	check_case("one comment, after the next statement",
		   "heel 1\nnetwork allow { }; grant \"/a\" r  # b\n",
		   "heel 1\nnetwork allow { }\ngrant \"/a\" r  # b\n");
	check_case("both braces",
		   "heel 1\nnetwork allow {  # a\n}  # b\ngrant \"/a\" r\n",
		   "heel 1\nnetwork allow {  # a\n}  # b\ngrant \"/a\" r\n");
}

Test(fmt, indentation_of_nested_comment_before_close)
{
	check_case("comment before } on same line as content",
		   "heel 1\nipc \"x\" { exec \"/x\"\n# tail\n}\n",
		   "heel 1\nipc \"x\" {\n    exec \"/x\"\n    # tail\n}\n");
}

/* --------------------------------------------------------- golden files */

Test(fmt, golden)
{
	struct paths ps = { 0 };

	collect(GOLDEN_DIR, false, &ps);
	cr_assert_geq(ps.n, 15, "expected at least 15 cases in " GOLDEN_DIR);
	for (size_t i = 0; i < ps.n; i++) {
		char *want_path, *in, *want, *got;
		size_t in_len, want_len;

		cr_assert(asprintf(&want_path, "%.*s.out",
				   (int)(strlen(ps.v[i]) - strlen(".heel")),
				   ps.v[i]) >= 0);
		in = read_file(ps.v[i], &in_len);
		want = read_file(want_path, &want_len);
		got = check_all(ps.v[i], in, in_len, want);
		/* The expected output is itself canonical. */
		free(check_all(want_path, want, want_len, want));
		free(got);
		free(in);
		free(want);
		free(want_path);
	}
	paths_free(&ps);
}

/* Layout changes that must not change the canonical form, and one that
 * may (blank lines everywhere) but must still keep every promise. A
 * variant that does not parse (say the lexer refuses CR) is skipped. */
static char *
variant(const char *text, size_t len, const char *before, const char *after,
	size_t *outlen)
{
	size_t cap = len * (1 + strlen(before) + strlen(after)) + strlen(before) + 1;
	char *v = malloc(cap), *w = v;
	bool bol = true;

	cr_assert_not_null(v);
	for (size_t i = 0; i < len; i++) {
		if (bol) {
			w = stpcpy(w, before);
			bol = false;
		}
		if (text[i] == '\n') {
			w = stpcpy(w, after);
			bol = true;
		}
		*w++ = text[i];
	}
	*w = '\0';
	*outlen = (size_t)(w - v);
	return v;
}

Test(fmt, whitespace_variants)
{
	static const struct {
		const char *before, *after;
		bool same;
	} vs[] = {
		{ " \t ", "", true },   /* indentation */
		{ "", " \t", true },    /* trailing blanks (stripped from comments) */
		{ "", "\r", false },    /* CRLF, if the lexer takes it */
		{ "", "\n", false },    /* a blank line after every line */
	};
	struct paths ps = { 0 };
	size_t checked = 0;

	collect(GOLDEN_DIR, false, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		size_t len;
		char *text = read_file(ps.v[i], &len);
		char *base = fmt_text(ps.v[i], text, len);

		for (size_t k = 0; k < sizeof(vs) / sizeof(vs[0]); k++) {
			struct parsed p;
			size_t vlen;
			char *v = variant(text, len, vs[k].before, vs[k].after, &vlen);
			char *name;

			cr_assert(asprintf(&name, "%s (variant %zu)", ps.v[i], k) >= 0);
			if (try_parse(name, v, vlen, &p) == 0) {
				parsed_free(&p);
				free(check_all(name, v, vlen, vs[k].same ? base : NULL));
				checked++;
			} else {
				cr_expect(!vs[k].same, "%s: does not parse", name);
				parsed_free(&p);
			}
			free(name);
			free(v);
		}
		free(base);
		free(text);
	}
	cr_expect_geq(checked, ps.n * 2);
	paths_free(&ps);
}

Test(fmt, every_policy)
{
	struct paths ps = { 0 };

	collect(POLICIES_DIR, true, &ps);
	cr_log_info("fmt: %zu policies under " POLICIES_DIR, ps.n);
	for (size_t i = 0; i < ps.n; i++) {
		size_t len;
		char *text = read_file(ps.v[i], &len);

		free(check_all(ps.v[i], text, len, NULL));
		free(text);
	}
	paths_free(&ps);
}

/* ------------------------------------------------ generated layouts */

struct gen {
	char *buf;
	size_t len, cap;
	uint32_t seed;
	unsigned ncomments;
};

static unsigned
gen_rand(struct gen *g, unsigned n)
{
	/* xorshift32: deterministic, so a failure reproduces. */
	g->seed ^= g->seed << 13;
	g->seed ^= g->seed >> 17;
	g->seed ^= g->seed << 5;
	return g->seed % n;
}

static void
gen_put(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->cap - g->len < n + 1) {
		g->cap = (g->cap + n + 1) * 2;
		g->buf = realloc(g->buf, g->cap);
		cr_assert_not_null(g->buf);
	}
	memcpy(g->buf + g->len, s, n + 1);
	g->len += n;
}

static void
gen_space(struct gen *g)
{
	static const char *const ws[] = { " ", " ", "  ", "\t", " \t " };

	gen_put(g, ws[gen_rand(g, 5)]);
}

static void
gen_comment(struct gen *g)
{
	char c[48];

	snprintf(c, sizeof(c), "#%s c%u%s", gen_rand(g, 4) ? "" : "#",
		 g->ncomments++, gen_rand(g, 4) ? "" : " \t");
	gen_put(g, c);
}

/* The end of a line: maybe a trailing comment, maybe blank lines. */
static void
gen_eol(struct gen *g)
{
	if (!gen_rand(g, 3)) {
		gen_space(g);
		gen_comment(g);
	}
	gen_put(g, "\n");
	while (!gen_rand(g, 4)) {
		if (gen_rand(g, 2))
			gen_space(g);
		gen_put(g, "\n");
	}
	while (!gen_rand(g, 5)) {
		if (gen_rand(g, 2))
			gen_space(g);
		gen_comment(g);
		gen_put(g, "\n");
	}
}

static void
gen_one(struct gen *g, const char *const *pick, unsigned n)
{
	gen_put(g, pick[gen_rand(g, n)]);
}

/* Statements on one line, `;`-separated. */
static void
gen_line(struct gen *g, const char *const *pick, unsigned n)
{
	if (gen_rand(g, 2))
		gen_space(g);
	gen_one(g, pick, n);
	while (!gen_rand(g, 4)) {
		gen_put(g, gen_rand(g, 2) ? ";" : " ; ");
		gen_one(g, pick, n);
	}
	if (!gen_rand(g, 8))
		gen_put(g, ";");
}

static void
gen_block(struct gen *g)
{
	static const char *const top[] = {
		"grant \"/a\" r", "grant \"${HOME}/x\" rw optional", "deny \"/b\"",
		"limit memory 1GiB", "nice 3", "env pass \"A\" \"B\"",
		"network audit daily \"/d\"", "protect credentials keychains",
		"network decide \"/d\" \"--x\"",
	};
	static const char *const pat[] = { "\"a.example\"", "\"*.b.example:443\"", "\"10.0.0.1\"" };
	static const char *const ipc[] = { "exec \"/x\"", "positional \"q\" \"r\"", "timeout 3s" };
	static const char *const py[] = { "venv \"./v\"", "packages \"p\"", "allow-pip-install no" };
	static const char *const lin[] = {
		"seccomp deny \"x\" errno EPERM", "seccomp allow \"y\"", "allow unix-sockets",
		"grant \"/dev/shm\" rw",
	};
	static const char *const open[] = { "network allow {", "ipc \"t\" {", "python {", "on linux {" };
	const char *const *kids[] = { pat, ipc, py, lin };
	const unsigned nkids[] = { 3, 3, 3, 4 };
	unsigned k = gen_rand(g, 4), n = gen_rand(g, 4);

	if (gen_rand(g, 3)) {
		gen_line(g, top, 9);
		gen_eol(g);
		return;
	}
	gen_put(g, open[k]);
	for (unsigned i = 0; i < n; i++) {
		if (i == 0 && gen_rand(g, 2))
			gen_space(g);
		else
			gen_eol(g);
		gen_line(g, kids[k], nkids[k]);
	}
	if (gen_rand(g, 2))
		gen_space(g);
	else
		gen_eol(g);
	gen_put(g, "}");
	if (!gen_rand(g, 4)) {
		gen_put(g, "; ");
		gen_line(g, top, 9);
	}
	gen_eol(g);
}

Test(fmt, generated_layouts)
{
	struct gen g = { 0 };

	for (unsigned iter = 0; iter < 2000; iter++) {
		char name[32];

		g.len = 0;
		g.ncomments = 0;
		g.seed = 2463534242u + iter;
		gen_put(&g, "");
		while (!gen_rand(&g, 3))
			gen_put(&g, gen_rand(&g, 2) ? "\n" : "# top\n");
		gen_put(&g, "heel 1");
		gen_eol(&g);
		for (unsigned n = gen_rand(&g, 8); n; n--)
			gen_block(&g);
		if (gen_rand(&g, 2) && g.len && g.buf[g.len - 1] == '\n')
			g.buf[--g.len] = '\0';
		snprintf(name, sizeof(name), "generated #%u", iter);
		free(check_all(name, g.buf, g.len, NULL));
	}
	free(g.buf);
}

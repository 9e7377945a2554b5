/* SPDX-License-Identifier: MIT
 * Paths in policies: the spelling rules (checked, never normalised away,
 * so what a reviewer reads is what is enforced), which platforms a path applies
 * to, grant modes, and the precedence of grants and denies of one path. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sema_int.h"
#include "suggest.h"
#include "unicode.h"

static void
path_error(struct sema *s, const struct ast_arg *a, size_t byte, const char *hint, const char *msg)
{
	struct diag_loc at = byte < a->len ? ast_string_loc(a, byte) : a->loc;

	diag_push(s->ctx, DIAG_ERROR, &at, hint, "%s", msg);
}

/* One character of a path at *i, which it steps past. A path is read by
 * a reviewer before it is enforced, so every character has to be one that
 * shows: NUL would cut the path short at launch; newlines and other
 * controls make it read differently in review than it acts; a zero-width
 * space, a soft hyphen, a bidi control, a no-break space or a combining
 * accent makes `deny "/x/secret"` display exactly like a path it is not,
 * so the deny protects nothing. Returns -EINVAL after a diagnostic at the
 * character. */
static int
check_path_char(struct sema *s, const struct ast_arg *a, const unsigned char *t, size_t len,
		size_t *i)
{
	const char *name, *hint = NULL;
	char msg[256];
	enum uc_kind kind;
	uint32_t cp;
	size_t n = uc_utf8_decode(t + *i, len - *i, &cp);

	if (!n) {
		path_error(s, a, *i, NULL, "a path must be valid UTF-8");
		return -EINVAL;
	}
	kind = uc_kind(cp);
	if (kind == UC_PLAIN) {
		*i += n;
		return 0;
	}
	name = uc_name(cp);
	if (kind == UC_CONTROL) {
		snprintf(msg, sizeof(msg), "a path cannot hold a control character (U+%04X)", cp);
	} else {
		snprintf(msg, sizeof(msg), "a path cannot hold U+%04X%s%s, %s", cp,
			 name ? " " : "", name ? name : "", uc_kind_words(kind));
		hint = kind == UC_MARK
			       ? "write the letter precomposed (NFC): U+00E9, not `e` and U+0301"
			       : "it would make the path display like another path";
	}
	path_error(s, a, *i, hint, msg);
	return -EINVAL;
}

static bool
is_sep(char c, bool win)
{
	return c == '/' || (win && c == '\\');
}

static const char *
use_name(enum sema_path_use use)
{
	switch (use) {
	case SEMA_PATH_WORKDIR:
		return "`workdir`";
	case SEMA_PATH_AUDIT:
		return "the audit sink";
	case SEMA_PATH_VENV:
		return "the venv";
	case SEMA_PATH_EXEC:
		return "an ipc program";
	case SEMA_PATH_DECIDER:
		return "the network decider";
	default:
		return "a path";
	}
}

/* `n` bytes of a path as they are written inside a policy string: `"`
 * and `\` escaped, so a hint can be copied back into the file. */
static const char *
quoted(const char *t, size_t n, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 3 < size; i++) {
		if (t[i] == '"' || t[i] == '\\')
			buf[o++] = '\\';
		buf[o++] = t[i];
	}
	buf[o] = '\0';
	return buf;
}

static void
path_warning(struct sema *s, const struct ast_arg *a, size_t byte, const char *hint,
	     const char *msg)
{
	struct diag_loc at = byte < a->len ? ast_string_loc(a, byte) : a->loc;

	diag_push(s->ctx, DIAG_WARNING, &at, hint, "%s", msg);
}

/* Spellings a shell would expand but heel does not, so the path would
 * silently mean another place: `.` for the current directory and `~` for
 * the home directory. A program run on the host (ipc, decider) is named
 * by its absolute path, and the checks below say so. Returns -EINVAL after
 * a diagnostic. */
static int
check_shell_spellings(struct sema *s, const struct ast_arg *a, enum sema_path_use use)
{
	const char *t = a->text;
	char msg[96], hint[512], q[320];

	if (use == SEMA_PATH_EXEC || use == SEMA_PATH_DECIDER)
		return 0;
	if (strcmp(t, ".") == 0 || strcmp(t, "./") == 0) {
		snprintf(msg, sizeof(msg), "a path cannot be `%s`", t);
		snprintf(hint, sizeof(hint), "%s%s",
			 "the launch directory (where heel-exec is started) is written \"${CWD}\"",
			 use != SEMA_PATH_GRANT
				 ? ""
				 : "\nto work in it: `workdir \"${CWD}\"` runs the command there, "
				   "writable and kept; `heel run` starts the command in your "
				   "directory and lets it read it");
		path_error(s, a, 0, hint, msg);
		return -EINVAL;
	}
	/* A leading `~` is a shell's; heel takes it as a file name, so
	 * `deny "~/.ssh"` would deny a directory named `~` in the launch
	 * directory and nothing in the home directory. */
	if (t[0] == '~') {
		if (t[1] == '\0' || t[1] == '/' || t[1] == '\\')
			snprintf(hint, sizeof(hint), "write \"${HOME}%s\"",
				 quoted(t + 1, a->len - 1, q, sizeof(q)));
		else
			snprintf(hint, sizeof(hint),
				 "write the absolute path (your own home is \"${HOME}\"); a name "
				 "in the launch directory that starts with `~` is written \"./%s\"",
				 quoted(t, a->len, q, sizeof(q)));
		path_error(s, a, 0, hint, "`~` is not expanded in a path");
		return -EINVAL;
	}
	return 0;
}

/* `$HOME/x` is literal (a `$` not followed by `{` may be part of a file
 * name), which is rarely what its writer meant: a warning names the
 * `${NAME}` spelling. Only an upper-case name that fills a component is
 * taken for a variable, so `C:\$Recycle.Bin` or `/opt/$price` pass. */
static void
warn_bare_variable(struct sema *s, const struct ast_arg *a, enum sema_path_use use)
{
	const char *t = a->text;
	size_t len = a->len;
	char msg[160], hint[600], q1[200], q2[200];

	if (use == SEMA_PATH_EXEC || use == SEMA_PATH_DECIDER)
		return;
	for (size_t i = 0; i + 1 < len; i++) {
		size_t j = i + 1;

		if (t[i] != '$' || !(t[j] == '_' || (t[j] >= 'A' && t[j] <= 'Z')))
			continue;
		while (j < len && (t[j] == '_' || (t[j] >= 'A' && t[j] <= 'Z') ||
				   (t[j] >= '0' && t[j] <= '9')))
			j++;
		if (j < len && t[j] != '/' && t[j] != '\\')
			continue;
		snprintf(msg, sizeof(msg), "`%.*s` is not expanded: a variable is written `${%.*s}`",
			 (int)(j - i > 64 ? 64 : j - i), t + i, (int)(j - i - 1 > 64 ? 64 : j - i - 1),
			 t + i + 1);
		snprintf(hint, sizeof(hint),
			 "write \"%s${%.*s}%s\"; as written, `$` is part of a file name",
			 quoted(t, i, q1, sizeof(q1)), (int)(j - i - 1 > 64 ? 64 : j - i - 1), t + i + 1,
			 quoted(t + j, len - j, q2, sizeof(q2)));
		path_warning(s, a, i, hint, msg);
		return;
	}
}

/* `*` has no meaning in a path: heel has no wildcards, and a rule
 * already covers everything beneath the directory it names. */
static void
warn_wildcard(struct sema *s, const struct ast_arg *a)
{
	const char *t = a->text, *star = memchr(t, '*', a->len);
	char hint[400], q[320];

	if (!star)
		return;
	if (star > t && (star[-1] == '/' || star[-1] == '\\') && (size_t)(star - t) + 1 == a->len &&
	    star - t > 1)
		snprintf(hint, sizeof(hint),
			 "a rule covers everything beneath the directory it names: write \"%s\"",
			 quoted(t, (size_t)(star - t - 1), q, sizeof(q)));
	else
		snprintf(hint, sizeof(hint),
			 "a rule covers everything beneath the directory it names; give each "
			 "path a rule of its own");
	path_warning(s, a, (size_t)(star - t), hint,
		     "`*` is taken literally: paths have no wildcards");
}

int
sema_check_path(struct sema *s, const struct ast_arg *a, const struct sema_ectx *e,
		enum sema_path_use use, unsigned *mask, char **norm)
{
	const unsigned char *t = (const unsigned char *)a->text;
	size_t len = a->len, i, root_end = 0, begin;
	bool drive, posix_abs, var, win;
	unsigned pm;
	char msg[160];
	char *out;

	if (!len) {
		path_error(s, a, 0, NULL, "a path cannot be empty");
		return -EINVAL;
	}
	for (i = 0; i < len;) {
		if (check_path_char(s, a, t, len, &i))
			return -EINVAL;
	}
	if (check_shell_spellings(s, a, use))
		return -EINVAL;
	warn_bare_variable(s, a, use);
	warn_wildcard(s, a);
	for (i = 0; i < len; i++) {
		size_t j;

		/* `$` not followed by `{` is literal: file names may hold it. */
		if (t[i] != '$' || i + 1 >= len || t[i + 1] != '{')
			continue;
		for (j = i + 2; j < len && t[j] != '}'; j++)
			;
		if (j >= len) {
			path_error(s, a, i, "write `${NAME}`, e.g. `${HOME}`",
				   "unterminated `${` in path");
			return -EINVAL;
		}
		if (j == i + 2) {
			path_error(s, a, i, "write `${NAME}`, e.g. `${HOME}`",
				   "empty variable name `${}`");
			return -EINVAL;
		}
		for (size_t k = i + 2; k < j; k++) {
			unsigned char c = t[k];

			if (c == '_' || (c >= 'A' && c <= 'Z') ||
			    (k > i + 2 && c >= '0' && c <= '9'))
				continue;
			snprintf(msg, sizeof(msg), "invalid variable name `%.*s`", (int)(j + 1 - i),
				 (const char *)t + i);
			path_error(s, a, k,
				   "names are upper-case letters, digits and `_`, not starting "
				   "with a digit: `${HOME}`",
				   msg);
			return -EINVAL;
		}
		i = j;
	}

	drive = len >= 2 && isalpha(t[0]) && t[1] == ':';
	posix_abs = t[0] == '/' || t[0] == '\\';
	var = len >= 2 && t[0] == '$' && t[1] == '{';
	if (drive) {
		if (e->platform != IR_WINDOWS) {
			path_error(s, a, 0, "put Windows paths inside `on windows { }`",
				   "a Windows path is only allowed inside `on windows { }`");
			return -EINVAL;
		}
		if (len < 3 || (t[2] != '\\' && t[2] != '/')) {
			path_error(s, a, 2, "write `C:\\...`",
				   "a Windows path needs a separator after the drive letter");
			return -EINVAL;
		}
		pm = IR_PLAT_BIT(IR_WINDOWS);
	} else if (posix_abs) {
		/* No drive means "the current drive" on Windows: a path
		 * whose meaning depends on where heel-exec happens to run. */
		if (e->platform == IR_WINDOWS) {
			path_error(
			    s, a, 0, "write `C:\\...`, or move the path out of `on windows { }`",
			    "inside `on windows { }` an absolute path starts with a drive letter");
			return -EINVAL;
		}
		if (t[0] == '\\') {
			path_error(s, a, 0, "write the path with `/`",
				   "a path cannot start with `\\`");
			return -EINVAL;
		}
		pm = IR_PLAT_BIT(IR_LINUX) | IR_PLAT_BIT(IR_MACOS);
	} else {
		pm = IR_PLAT_ALL;
	}
	/* A backslash separates components wherever the path can reach
	 * Windows, so `a\..\b` is refused there like `a/../b`. */
	win = (pm & IR_PLAT_BIT(IR_WINDOWS)) && (e->platform < 0 || e->platform == IR_WINDOWS);
	/* Inside `on windows` the path can only be a Windows path: a name
	 * Windows cannot hold would pass heelc and fail every launch, and a
	 * `:` after the drive names an alternate data stream, not a file. */
	if (e->platform == IR_WINDOWS) {
		for (size_t k = 0; k < len; k++) {
			if ((t[k] && strchr("\"<>|?*", t[k])) || (t[k] == ':' && !(drive && k == 1))) {
				path_error(s, a, k,
					   "Windows names cannot hold `\"`, `<`, `>`, `|`, `?` or `*`, "
					   "and `:` only after the drive letter",
					   "a character Windows does not allow in a path");
				return -EINVAL;
			}
		}
	}

	/* heel(5): an ipc program is named literally, like the decider: it
	 * runs on the host with the launcher's user, so no variable of the
	 * launcher's environment may choose which program that is. */
	if (use == SEMA_PATH_EXEC) {
		const unsigned char *v = memmem(t, len, "${", 2);

		if (v) {
			path_error(s, a, (size_t)(v - t),
				   "ipc commands run on the host: no variable of the launcher's "
				   "environment may choose which program runs there",
				   "`exec` takes a literal path, without `${NAME}`");
			return -EINVAL;
		}
	}
	if (use == SEMA_PATH_EXEC && !drive && !posix_abs) {
		path_error(s, a, 0,
			   "ipc commands run on the host: name the program by its absolute path",
			   "`exec` must be an absolute path");
		return -EINVAL;
	}
	/* The decider runs on the host with the launcher's user and judges
	 * every destination: like an ipc program, it is named literally, so
	 * neither the directory heel-exec starts in nor a variable of its
	 * environment chooses which program that is. */
	if (use == SEMA_PATH_DECIDER) {
		const unsigned char *v = memmem(t, len, "${", 2);

		if (v) {
			path_error(s, a, (size_t)(v - t),
				   "the decider runs on the host: no variable of the launcher's "
				   "environment may choose which program judges the network",
				   "`network decide` takes a literal path, without `${NAME}`");
			return -EINVAL;
		}
		if (!drive && !posix_abs) {
			path_error(s, a, 0,
				   "the decider runs on the host: write its absolute path, e.g. "
				   "`/usr/local/bin/net-decider`",
				   "`network decide` needs an absolute path");
			return -EINVAL;
		}
	}

	if (var) {
		root_end = (size_t)((const unsigned char *)memchr(t, '}', len) - t) + 1;
		if (root_end < len && !is_sep((char)t[root_end], win)) {
			snprintf(msg, sizeof(msg), "`%.*s` must be followed by `/` or end the path",
				 (int)root_end, (const char *)t);
			path_error(s, a, root_end, NULL, msg);
			return -EINVAL;
		}
		if (root_end == strlen("${WORKDIR}") && memcmp(t, "${WORKDIR}", root_end) == 0) {
			/* The working directory's rights are
			 * fixed (writable, never executable). Anything else
			 * under it is written by the sandbox and removed at
			 * exit: no place for a sink, a venv or a host program. */
			if (use == SEMA_PATH_GRANT || use == SEMA_PATH_DENY ||
			    use == SEMA_PATH_READONLY) {
				path_error(
				    s, a, 0,
				    "the working directory is always writable and never executable",
				    use == SEMA_PATH_READONLY
					? "`${WORKDIR}` cannot be made read-only"
					: "`${WORKDIR}` cannot be granted or denied");
			} else {
				snprintf(msg, sizeof(msg), "%s cannot be under `${WORKDIR}`",
					 use_name(use));
				path_error(s, a, 0,
					   "the sandbox writes the working directory and it is "
					   "removed at exit",
					   msg);
			}
			return -EINVAL;
		}
		begin = root_end < len ? root_end + 1 : len;
	} else if (drive) {
		begin = 3;
	} else if (posix_abs) {
		begin = 1;
	} else if (len >= 2 && t[0] == '.' && is_sep((char)t[1], win)) {
		begin = 2; /* the one `.` allowed: a leading "./", as shells write it */
		if (len == 2) {
			path_error(s, a, 1, "write the path without the trailing `/`",
				   "a path cannot end with `/`");
			return -EINVAL;
		}
	} else {
		begin = 0;
	}
	if (begin < len || (var && root_end < len)) {
		/* Root-only paths ("/", "C:\", "${HOME}") have no components. */
		for (i = begin;;) {
			size_t j = i;

			while (j < len && !is_sep((char)t[j], win))
				j++;
			if (j == i) {
				if (j == len)
					path_error(s, a, len - 1,
						   "write the path without the trailing `/`",
						   "a path cannot end with `/`");
				else
					path_error(s, a, j, "remove the doubled `/`",
						   "empty path component");
				return -EINVAL;
			}
			if ((j - i == 1 && t[i] == '.') ||
			    (j - i == 2 && t[i] == '.' && t[i + 1] == '.')) {
				snprintf(msg, sizeof(msg), "`%.*s` is not allowed in a path",
					 (int)(j - i), (const char *)t + i);
				path_error(s, a, i,
					   "heelc never normalises paths: write it without `.` and "
					   "`..` components",
					   msg);
				return -EINVAL;
			}
			if (j == len)
				break;
			i = j + 1;
		}
	}

	*mask = e->mask & pm;
	/* Kept as written except what cannot change its meaning: a leading
	 * "./" goes, so "./x" and "x" are one path for precedence; inside
	 * `on windows` separators become `\` and the drive letter upper
	 * case, so `C:/x` and `c:\x` are one path too. */
	if (!drive && !posix_abs && !var && begin == 2)
		out = sema_strndup(s, a->text + 2, len - 2);
	else
		out = sema_strndup(s, a->text, len);
	if (!out)
		return -ENOMEM;
	if (e->platform == IR_WINDOWS) {
		for (char *c = out; *c; c++)
			if (*c == '/')
				*c = '\\';
		if (drive)
			out[0] = (char)toupper((unsigned char)out[0]);
	}
	*norm = out;
	return 0;
}

int
sema_parse_mode(struct sema *s, const struct ast_arg *a)
{
	static const char *const modes[] = {"r", "rw", "rx", "rwx", NULL};
	static const uint8_t values[] = {IR_MODE_R, IR_MODE_RW, IR_MODE_RX, IR_MODE_RWX};
	static const struct {
		const char *word, *mode;
	} spelt[] = {
	    {"read", "r"},	   {"ro", "r"},	      {"readonly", "r"},    {"read-only", "r"},
	    {"write", "rw"},	   {"readwrite", "rw"}, {"read-write", "rw"}, {"exec", "rx"},
	    {"execute", "rx"}, {"run", "rx"},
	};
	unsigned bits = 0;
	bool letters = a->len > 0;
	char hint[96];

	for (int i = 0; modes[i]; i++)
		if (strcmp(a->text, modes[i]) == 0)
			return values[i];
	/* The same letters in another order, or without the `r` every mode
	 * implies ("wr", "xr", "w"): name the canonical spelling. */
	for (size_t i = 0; i < a->len; i++) {
		unsigned bit = a->text[i] == 'r'   ? IR_READ
			       : a->text[i] == 'w' ? IR_WRITE
			       : a->text[i] == 'x' ? IR_EXEC
						   : 0;

		if (!bit || (bits & bit))
			letters = false;
		bits |= bit;
	}
	if (letters) {
		snprintf(hint, sizeof(hint), "did you mean `%s`?", ir_mode_name(bits | IR_READ));
		diag_push(s->ctx, DIAG_ERROR, &a->loc, hint, "unknown mode `%s`", a->text);
		return -1;
	}
	/* Modes spelt out, as other tools write them. */
	for (size_t i = 0; i < sizeof(spelt) / sizeof(spelt[0]); i++) {
		if (strcmp(a->text, spelt[i].word) != 0)
			continue;
		snprintf(hint, sizeof(hint), "did you mean `%s`?", spelt[i].mode);
		diag_push(s->ctx, DIAG_ERROR, &a->loc, hint, "unknown mode `%s`", a->text);
		return -1;
	}
	sema_unknown_word(s, &a->loc, "mode", a->text, modes);
	return -1;
}

static struct sema_path *
path_entry(struct sema *s, const char *path)
{
	struct sema_path *p;
	size_t i;

	if (sema_map_get(&s->path_index, path, &i))
		return &s->paths[i];
	if (sema_grow(s, (void **)&s->paths, &s->cap_paths, s->npaths, sizeof(*s->paths)))
		return NULL;
	p = &s->paths[s->npaths];
	p->path = sema_strdup(s, path);
	if (!p->path || sema_map_put(s, &s->path_index, p->path, s->npaths)) {
		free(p->path);
		p->path = NULL;
		return NULL;
	}
	s->npaths++;
	return p;
}

/* An explicit deny that a grant of the same path overrides is worth a
 * warning when someone wrote both (not when a grant beats the base's or a
 * protection set's default deny: that is what grants are for). */
static bool
explicit_deny(uint8_t source)
{
	return source == IR_SRC_USER || source == IR_SRC_PRESET;
}

/* The rule for one path and platform now comes from this statement. */
static void
cell_take(struct sema_cell *c, uint8_t mode, bool optional, const struct sema_ectx *e,
	  const struct diag_loc *loc)
{
	c->mode = mode;
	c->optional = optional;
	c->set = e->set;
	c->source = e->source;
	c->origin = sema_origin(e, loc);
	c->loc = *loc;
}

void
sema_add_path_rule(struct sema *s, const char *path, uint8_t mode, bool optional, unsigned mask,
		   const struct sema_ectx *e, const struct diag_loc *loc)
{
	struct sema_path *p;
	bool rwx_error = false, warned = false;

	if (!mask || !(p = path_entry(s, path)))
		return;
	for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++) {
		struct sema_cell *c = &p->cell[pl];

		if (!(mask & IR_PLAT_BIT(pl)))
			continue;
		if (!c->present) {
			c->present = true;
			cell_take(c, mode, optional, e, loc);
			continue;
		}
		if (mode == IR_MODE_DENY) {
			/* A grant the isolation base made is a default, not
			 * an explicit grant: a protection set or the policy's
			 * own deny of the very same path beats it, or
			 * `protect user-home` would do nothing under
			 * `default`, which grants ${HOME} read. */
			if (c->mode != IR_MODE_DENY && c->source == IR_SRC_BASE &&
			    e->source != IR_SRC_BASE) {
				cell_take(c, IR_MODE_DENY, optional, e, loc);
				continue;
			}
			/* Between a grant and a deny of one path the grant
			 * wins: the deny is usually a default protection the
			 * grant means to open; a second deny adds nothing. */
			if (c->mode != IR_MODE_DENY && explicit_deny(e->source) && !warned) {
				diag_push(s->ctx, DIAG_WARNING, loc,
					  "an explicit grant beats a deny of the same path",
					  "this `deny` has no effect: the same path is granted");
				diag_push(s->ctx, DIAG_NOTE, &c->loc, NULL, "granted here");
				warned = true;
			}
			continue;
		}
		if (c->mode == IR_MODE_DENY) {
			/* A base grant (the device grants of `allow gpu` are
			 * evaluated last) never undoes a deny the policy or a
			 * protection set made: it is a default, as above. */
			if (e->source == IR_SRC_BASE && c->source != IR_SRC_BASE)
				continue;
			if (explicit_deny(c->source) && !warned) {
				diag_push(
				    s->ctx, DIAG_WARNING, loc,
				    "an explicit grant beats a deny of the same path",
				    "this `grant` overrides the earlier `deny` of the same path");
				diag_push(s->ctx, DIAG_NOTE, &c->loc, NULL, "denied here");
				warned = true;
			}
			cell_take(c, mode, optional, e, loc);
			continue;
		}
		/* Two grants keep the union of their modes, but
		 * a union never makes a path writable and executable unless
		 * someone wrote `rwx`. A grant the isolation base made is a
		 * default: where the union would be that, the explicit grant
		 * alone decides (`--writable ~` under `default`, which grants
		 * ${HOME} rx, makes the home writable and not executable). */
		if ((c->mode | mode) == IR_MODE_RWX && c->mode != IR_MODE_RWX &&
		    mode != IR_MODE_RWX && (c->source == IR_SRC_BASE) != (e->source == IR_SRC_BASE)) {
			if (c->source == IR_SRC_BASE)
				cell_take(c, mode, optional, e, loc);
			continue;
		}
		if ((c->mode | mode) == IR_MODE_RWX && c->mode != IR_MODE_RWX &&
		    mode != IR_MODE_RWX) {
			if (!rwx_error) {
				diag_push(s->ctx, DIAG_ERROR, loc, "write `rwx` if you mean it",
					  "`%s` and `%s` on the same path would make it writable "
					  "and executable",
					  ir_mode_name(c->mode), ir_mode_name(mode));
				diag_push(s->ctx, DIAG_NOTE, &c->loc, NULL, "`%s` granted here",
					  ir_mode_name(c->mode));
				rwx_error = true;
			}
			continue;
		}
		c->mode |= mode;
		/* An explicit grant of a path the base also grants owns
		 * the rule from now on: a later protection does not undo it. */
		if (c->source == IR_SRC_BASE && e->source != IR_SRC_BASE) {
			c->set = e->set;
			c->source = e->source;
			c->origin = sema_origin(e, loc);
			c->loc = *loc;
		}
		/* Optional only when every grant says so: one grant that
		 * needs the path makes its absence an error at launch. */
		c->optional = c->optional && optional;
	}
}

static int
cmp_rule(const void *a, const void *b)
{
	const struct ir_path_rule *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (int)x->platforms - (int)y->platforms;
}

static bool
same_cell(const struct sema_cell *a, const struct sema_cell *b)
{
	return a->mode == b->mode && a->optional == b->optional && a->set == b->set &&
	       a->source == b->source && a->origin.file == b->origin.file &&
	       a->origin.line == b->origin.line && a->origin.col == b->origin.col;
}

int
sema_build_paths(struct sema *s)
{
	struct ir_policy *ir = s->ir;
	size_t n = 0;

	if (!s->npaths)
		return 0;
	ir->paths = calloc(s->npaths * IR_PLATFORM_COUNT, sizeof(*ir->paths));
	if (!ir->paths) {
		s->oom = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->npaths; i++) {
		struct sema_path *p = &s->paths[i];
		bool done[IR_PLATFORM_COUNT] = {false};

		/* One rule per distinct state of the path; platforms that
		 * agree share it. */
		for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++) {
			struct ir_path_rule *r;

			if (!p->cell[pl].present || done[pl])
				continue;
			r = &ir->paths[n];
			r->path = sema_strdup(s, p->path);
			if (!r->path)
				return -ENOMEM;
			r->mode = p->cell[pl].mode;
			r->optional = p->cell[pl].optional;
			r->set = p->cell[pl].set;
			r->source = p->cell[pl].source;
			r->origin = p->cell[pl].origin;
			for (int q = pl; q < IR_PLATFORM_COUNT; q++)
				if (p->cell[q].present && !done[q] &&
				    same_cell(&p->cell[q], &p->cell[pl])) {
					r->platforms |= (uint8_t)IR_PLAT_BIT(q);
					done[q] = true;
				}
			n++;
			ir->npaths = n;
		}
	}
	qsort(ir->paths, ir->npaths, sizeof(*ir->paths), cmp_rule);
	return 0;
}

/* ------------------------------------------------------------ readonly */

static struct sema_readonly *
readonly_entry(struct sema *s, const char *path, bool each_writable)
{
	struct sema_readonly *r;

	/* Few statements (a protection set's dozens): a scan is enough. */
	for (size_t i = 0; i < s->nreadonly; i++)
		if (s->readonly[i].each_writable == each_writable &&
		    strcmp(s->readonly[i].path, path) == 0)
			return &s->readonly[i];
	if (sema_grow(s, (void **)&s->readonly, &s->cap_readonly, s->nreadonly,
		      sizeof(*s->readonly)))
		return NULL;
	r = &s->readonly[s->nreadonly];
	memset(r, 0, sizeof(*r));
	r->path = sema_strdup(s, path);
	if (!r->path)
		return NULL;
	r->each_writable = each_writable;
	s->nreadonly++;
	return r;
}

void
sema_add_readonly(struct sema *s, const char *path, bool each_writable, const char *because,
		  unsigned mask, const struct sema_ectx *e, const struct diag_loc *loc)
{
	struct sema_readonly *r;

	if (!mask || !(r = readonly_entry(s, path, each_writable)))
		return;
	for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++) {
		struct sema_ro_cell *c = &r->cell[pl];

		/* Saying it twice adds nothing: the first statement stays
		 * the one a reviewer is pointed at. */
		if (!(mask & IR_PLAT_BIT(pl)) || c->present)
			continue;
		c->present = true;
		c->because = because ? sema_strdup(s, because) : NULL;
		c->set = e->set;
		c->source = e->source;
		c->origin = sema_origin(e, loc);
		c->loc = *loc;
	}
}

/* A `readonly` of a path that is also granted or denied, on one
 * platform: whether it stays. Only paths written the same way meet
 * here; `each-writable` paths are known only at launch, where heel-exec
 * lets a writable grant of the very path win. */
static bool
readonly_stays(struct sema *s, struct sema_ro_cell *ro, struct sema_cell *c, bool *warned)
{
	bool explicit_ro = explicit_deny(ro->source) && !*warned;

	if (!c->present)
		return true;
	if (c->mode == IR_MODE_DENY) {
		if (explicit_ro && explicit_deny(c->source)) {
			diag_push(s->ctx, DIAG_WARNING, &ro->loc, NULL,
				  "this `readonly` has no effect: the same path is denied");
			diag_push(s->ctx, DIAG_NOTE, &c->loc, NULL, "denied here");
			*warned = true;
		}
		return false;
	}
	if (!(c->mode & IR_WRITE))
		return true;
	/* A grant the isolation base made is a default, and loses its
	 * write to the protection (as it loses to a deny): permissive's
	 * `grant "/tmp" rw` under `readonly "/tmp"`. */
	if (c->source == IR_SRC_BASE) {
		c->mode &= (uint8_t)~IR_WRITE;
		return true;
	}
	if (explicit_ro) {
		diag_push(s->ctx, DIAG_WARNING, &ro->loc,
			  "an explicit grant beats a protection of the same path",
			  "this `readonly` has no effect: the same path is granted writable");
		diag_push(s->ctx, DIAG_NOTE, &c->loc, NULL, "granted here");
		*warned = true;
	}
	return false;
}

static int
cmp_readonly(const void *a, const void *b)
{
	const struct ir_readonly *x = a, *y = b;
	int c = (int)x->each_writable - (int)y->each_writable;

	if (!c)
		c = strcmp(x->path, y->path);
	return c ? c : (int)x->platforms - (int)y->platforms;
}

static bool
same_ro_cell(const struct sema_ro_cell *a, const struct sema_ro_cell *b)
{
	return a->set == b->set && a->source == b->source && a->origin.file == b->origin.file &&
	       a->origin.line == b->origin.line && a->origin.col == b->origin.col;
}

int
sema_build_readonly(struct sema *s)
{
	struct ir_policy *ir = s->ir;

	if (!s->nreadonly)
		return 0;
	ir->readonly = calloc(s->nreadonly * IR_PLATFORM_COUNT, sizeof(*ir->readonly));
	if (!ir->readonly) {
		s->oom = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nreadonly; i++) {
		struct sema_readonly *r = &s->readonly[i];
		bool done[IR_PLATFORM_COUNT] = {false};
		size_t pi;

		if (!r->each_writable && sema_map_get(&s->path_index, r->path, &pi)) {
			bool warned = false; /* once a statement, not once a platform */

			for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++)
				if (r->cell[pl].present &&
				    !readonly_stays(s, &r->cell[pl], &s->paths[pi].cell[pl], &warned))
					r->cell[pl].present = false;
		}
		/* One IR rule per distinct statement; platforms that agree
		 * share it. */
		for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++) {
			struct ir_readonly *o = &ir->readonly[ir->nreadonly];

			if (!r->cell[pl].present || done[pl])
				continue;
			o->path = sema_strdup(s, r->path);
			if (r->cell[pl].because)
				o->because = sema_strdup(s, r->cell[pl].because);
			if (!o->path || (r->cell[pl].because && !o->because)) {
				free(o->path);
				o->path = NULL;
				return -ENOMEM;
			}
			o->each_writable = r->each_writable;
			o->set = r->cell[pl].set;
			o->source = r->cell[pl].source;
			o->origin = r->cell[pl].origin;
			for (int q = pl; q < IR_PLATFORM_COUNT; q++)
				if (r->cell[q].present && !done[q] &&
				    same_ro_cell(&r->cell[q], &r->cell[pl])) {
					o->platforms |= (uint8_t)IR_PLAT_BIT(q);
					done[q] = true;
				}
			ir->nreadonly++;
		}
	}
	if (ir->nreadonly)
		qsort(ir->readonly, ir->nreadonly, sizeof(*ir->readonly), cmp_readonly);
	return 0;
}

void
sema_free_readonly(struct sema *s)
{
	for (size_t i = 0; i < s->nreadonly; i++) {
		free(s->readonly[i].path);
		for (int pl = 0; pl < IR_PLATFORM_COUNT; pl++)
			free(s->readonly[i].cell[pl].because);
	}
	free(s->readonly);
	s->readonly = NULL;
	s->nreadonly = s->cap_readonly = 0;
}

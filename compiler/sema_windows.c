/* SPDX-License-Identifier: MIT
 * What a Windows AppContainer cannot honour. heel never builds a weaker
 * sandbox than the policy says: a setting Windows has no way to enforce
 * is an error when windows is asked for (--target windows), and leaves
 * the artifact's Windows part out otherwise, with a warning naming it
 * (heel-exec.exe then refuses the artifact and says why). The table is
 * docs/acl-manifest.md's, "What Windows cannot honour". */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "artifact.h"
#include "diag.h"
#include "sema_int.h"
#include "suggest.h"

#define WIN IR_PLAT_BIT(IR_WINDOWS)

/* Why each limit is refused; NULL: enforced (by the job object). */
static const char *const limit_reason[IR_LIMIT_COUNT] = {
    [IR_LIMIT_CPU] = "a job object counts user time only, not the kernel time "
		     "the limit also bounds",
    [IR_LIMIT_OPEN_FILES] = "Windows has no limit on a process's handles",
    [IR_LIMIT_FILE_SIZE] = "Windows has no limit on the size of a file a process writes",
    [IR_LIMIT_STACK] = "on Windows a program's own image chooses its stack size",
    [IR_LIMIT_CORE] = "Windows has no core-file limit; crash dumps are WER's",
};

struct refusal {
	struct sema *s;
	bool explicit_target;
	bool any;
};

/* The fix for a setting written for every platform; `fix` for one
 * written for Windows alone. */
#define HINT_ELSEWHERE                                                                             \
	"put it inside `on linux { }` or `on macos { }`, or compile without --target windows"

static void
refuse(struct refusal *r, const struct diag_loc *loc, const char *what, const char *why,
       const char *fix)
{
	struct sema *s = r->s;
	char reason[256];

	if (r->explicit_target) {
		diag_push(s->ctx, DIAG_ERROR, loc, fix,
			  "%s cannot be enforced by a Windows AppContainer: %s", what, why);
		return;
	}
	diag_push(s->ctx, DIAG_WARNING, loc,
		  "the artifact has no Windows part; heel-exec.exe will refuse it",
		  "%s cannot be enforced by a Windows AppContainer (%s); leaving Windows out",
		  what, why);
	if (!r->any) {
		snprintf(reason, sizeof(reason), "%s cannot be enforced by a Windows AppContainer",
			 what);
		s->ir->excluded_reason[IR_WINDOWS] = sema_strdup(s, reason);
	}
	r->any = true;
}

static const struct diag_loc *
slot_loc(struct sema *s, int slot)
{
	const struct sema_slot_state *st = &s->slots[slot][IR_WINDOWS];

	return st->set ? &st->loc : NULL;
}

static void
check_scalars(struct refusal *r)
{
	struct sema *s = r->s;
	const struct ir_scalars *sc = &s->ir->scalar[IR_WINDOWS];
	char what[64];

	for (int i = 0; i < IR_LIMIT_COUNT; i++) {
		if (!sc->limits[i].set || !limit_reason[i])
			continue;
		snprintf(what, sizeof(what), "`limit %s`", ir_limit_name((enum ir_limit)i));
		refuse(r, slot_loc(s, SEMA_SLOT_LIMIT0 + i), what, limit_reason[i], HINT_ELSEWHERE);
	}
	if (sc->io_priority.set && sc->io_priority.value != IR_IO_NONE)
		refuse(r, slot_loc(s, SEMA_SLOT_IO_PRIORITY), "`io-priority`",
		       "a job object sets no I/O priority; a process sets its own", HINT_ELSEWHERE);
	if (sc->limits[IR_LIMIT_PROCESSES].set &&
	    sc->limits[IR_LIMIT_PROCESSES].value > UINT32_MAX)
		refuse(r, slot_loc(s, SEMA_SLOT_LIMIT0 + IR_LIMIT_PROCESSES), "`limit processes`",
		       "a job object counts at most 4294967295 processes", HINT_ELSEWHERE);
	if (s->ir->python[IR_WINDOWS].set)
		refuse(r, slot_loc(s, SEMA_SLOT_PYTHON), "`python`",
		       "heel-exec.exe does not set up a venv", HINT_ELSEWHERE);
}

static void
check_statements(struct refusal *r)
{
	struct sema *s = r->s;

	for (size_t i = 0; i < s->nipc; i++)
		if (s->ipc[i].ipc.platforms & WIN) {
			refuse(r, &s->ipc[i].loc, "a host command (`ipc`)",
			       "heel-broker does not run on Windows",
			       "keep host commands out of `on windows { }`, or compile without "
			       "--target windows");
			break;
		}
	/* An ACE on a drive's root is inherited by every file on it: a
	 * change to the whole disk that needs an administrator and cannot
	 * be undone reliably. */
	for (size_t i = 0; i < s->npaths; i++) {
		const struct sema_path *p = &s->paths[i];
		const struct sema_cell *c = &p->cell[IR_WINDOWS];

		if (!c->present || c->mode == IR_MODE_DENY || strlen(p->path) != 3 ||
		    p->path[1] != ':')
			continue;
		refuse(r, &c->loc, "a grant of a whole drive",
		       "its ACE would be inherited by every file on the drive",
		       "grant the directories the sandbox needs");
	}
}

/* A network capability lets the container connect directly: around
 * `network deny`, and around the proxy that enforces an allow-list and
 * the audit. heel's network on Windows is the proxy alone. */
static void
check_capabilities(struct sema *s)
{
	static const char *const network[] = {"internetClient", "internetClientServer",
					      "privateNetworkClientServer", NULL};
	bool deny = s->ir->scalar[IR_WINDOWS].network.value == IR_NET_DENY;

	for (size_t i = 0; i < s->ncaps; i++) {
		bool net = false;

		for (int k = 0; network[k]; k++)
			net |= strcmp(s->caps[i].value, network[k]) == 0;
		if (!net || deny)
			continue; /* the deny case is sema.c's check_network */
		diag_push(s->ctx, DIAG_ERROR, &s->caps[i].loc,
			  "the sandbox reaches the network through heel's proxy, which needs no "
			  "capability",
			  "capability `%s` would let the sandbox bypass the proxy",
			  s->caps[i].value);
	}
}

/* The artifact carries at most ART_WIN_MAX_CAPABILITIES capability SIDs
 * (a bound of the format: an AppContainer takes a handful). Names that
 * differ in case only are one SID (heelc upper-cases before hashing). */
static void
check_capability_count(struct sema *s)
{
	size_t distinct = 0;

	for (size_t i = 0; i < s->ncaps; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcasecmp(s->caps[j].value, s->caps[i].value) == 0;
		if (seen || ++distinct <= ART_WIN_MAX_CAPABILITIES)
			continue;
		diag_push(s->ctx, DIAG_ERROR, &s->caps[i].loc,
			  "an AppContainer needs a handful; name only those the program uses",
			  "the Windows part holds at most %u capabilities; `%s` is the %zuth",
			  ART_WIN_MAX_CAPABILITIES, s->caps[i].value, distinct);
		return;
	}
}

void
sema_check_windows(struct sema *s)
{
	struct refusal r = {.s = s, .explicit_target = s->opts->target_explicit};

	check_capabilities(s);
	check_scalars(&r);
	check_statements(&r);
	if (r.any)
		s->ir->platforms &= (uint8_t)~WIN;
	if (s->ir->platforms & WIN)
		check_capability_count(s);
}

/* Capability names as Windows' own manifests write them: letters,
 * digits, `.`, `_`, `-`, starting with a letter. ASCII only, since the
 * SID is a hash of the upper-cased name and heelc upper-cases ASCII
 * alone. */
#define CAPABILITY_NAME_MAX 128

bool
sema_capability_other(struct sema *s, const struct ast_arg *a, const char *const *known)
{
	const char *t = a->text;
	size_t n = strlen(t);

	/* A near miss of a well-known name is a typo, not a capability of
	 * its own: its derived SID would grant nothing, silently. */
	for (int i = 0; known[i]; i++)
		if (strcasecmp(t, known[i]) == 0) {
			sema_unknown_word(s, &a->loc, "capability", t, known);
			return false;
		}
	if (suggest_word(t, known)) {
		sema_unknown_word(s, &a->loc, "capability", t, known);
		return false;
	}
	if (n == 0 || n > CAPABILITY_NAME_MAX ||
	    !((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z'))) {
		diag_push(s->ctx, DIAG_ERROR, &a->loc,
			  "a capability name starts with a letter and has at most 128 characters",
			  "`%s` is not a capability name", t);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = t[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-')
			continue;
		diag_push(s->ctx, DIAG_ERROR, &a->loc,
			  "a capability name holds ASCII letters, digits, `.`, `_` and `-`",
			  "`%s` is not a capability name", t);
		return false;
	}
	return true;
}

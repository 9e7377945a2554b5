/* SPDX-License-Identifier: MIT
 * "Did you mean": which typos find their word, and which words are too
 * far from every candidate to suggest anything. */
#include <criterion/criterion.h>

#include <string.h>

#include "suggest.h"

static const char *const stmts[] = {
	"heel", "isolation", "include", "grant", "deny", "protect",
	"unprotect", "allow", "network", "limit", "nice", "io-priority",
	"env", "workdir", "ipc", "python", "on", "seccomp", "sbpl",
	"capability", NULL
};
static const char *const modes[] = { "r", "rw", "rx", "rwx", NULL };

static void
expect(const char *word, const char *const *cands, const char *want)
{
	const char *got = suggest_word(word, cands);

	if (!want)
		cr_expect_null(got, "%s -> %s, want nothing", word, got);
	else
		cr_expect(got && strcmp(got, want) == 0, "%s -> %s, want %s", word,
			  got ? got : "(null)", want);
}

Test(suggest, substitution)
{
	expect("gramt", stmts, "grant");
	expect("netwirk", stmts, "network");
}

Test(suggest, insertion_and_deletion)
{
	expect("grnt", stmts, "grant");
	expect("granta", stmts, "grant");
	expect("isolaton", stmts, "isolation");
	expect("includee", stmts, "include");
}

Test(suggest, transposition_costs_one)
{
	expect("gnart", stmts, "grant"); /* two substitutions */
	expect("tnarg", stmts, NULL);
	expect("rgant", stmts, "grant");
	expect("nEtwork", stmts, "network");
	expect("ntework", stmts, "network");
	expect("pyhton", stmts, "python");
	expect("wxr", modes, NULL);
	expect("rxw", modes, "rw"); /* as close as rwx: the first wins */
}

Test(suggest, two_edits_for_long_words)
{
	expect("netwrk", stmts, "network");
	expect("seccmop", stmts, "seccomp");
	expect("capabilty", stmts, "capability");
	expect("unprotec", stmts, "unprotect");
	expect("wrkdr", stmts, "workdir");
}

Test(suggest, one_edit_for_short_words)
{
	expect("hel", stmts, "heel");
	expect("nic", stmts, "nice");
	expect("nc", stmts, NULL);
	expect("ev", stmts, "env");
	expect("rwxx", modes, "rwx");
	expect("wx", modes, "rx");
}

Test(suggest, nothing_close)
{
	expect("frobnicate", stmts, NULL);
	expect("xyzzy", stmts, NULL);
	expect("granted-all", stmts, NULL);
}

Test(suggest, exact_match_is_returned)
{
	expect("grant", stmts, "grant");
}

Test(suggest, first_of_equally_close_candidates)
{
	static const char *const c[] = { "ab", "ac", NULL };

	expect("aa", c, "ab");
}

Test(suggest, degenerate_inputs)
{
	static const char *const none[] = { NULL };
	char long_word[200];

	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	expect("", stmts, NULL);
	expect("grant", none, NULL);
	cr_expect_null(suggest_word(NULL, stmts));
	cr_expect_null(suggest_word("grant", NULL));
	expect(long_word, stmts, NULL);
}

Test(suggest, case_matters)
{
	/* Each case change is an edit: GRANT is five away from grant. */
	expect("GRANT", stmts, NULL);
	expect("Grant", stmts, "grant");
}

Test(suggest, a_word_cut_short_names_the_one_it_begins)
{
	static const char *const limits[] = { "memory", "cpu", "processes", "open-files",
					      "file-size", "stack", "core", NULL };
	static const char *const sets[] = { "user-home", "credentials", "cloud-config", NULL };

	expect("mem", limits, "memory");
	expect("proc", limits, "processes");
	expect("cred", sets, "credentials");
	expect("net", stmts, "network");
	/* Two candidates begin with it: no guess. */
	expect("pro", (const char *const[]){ "protect", "processes", NULL }, NULL);
	/* Two letters are too few to stand for a word. */
	expect("st", limits, NULL);
	/* Edit distance still comes first: `nic` is one edit from `nice`. */
	expect("nic", stmts, "nice");
}

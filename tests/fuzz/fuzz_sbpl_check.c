/* SPDX-License-Identifier: MIT
 * libFuzzer target for the SBPL reader and checker: any bytes must be
 * checked (or refused) without a crash, a leak or an undefined operation;
 * every diagnostic must point inside the text, the return value must
 * agree with the errors found, and whatever the reader gives must respect
 * its own limits (no string over 255 bytes or holding a NUL). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_check.h"
#include "sbpl_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct sbpl_param_def defs[] = {
	{ "P0", SBPL_PARAM_PATH },
	{ "WORKDIR", SBPL_PARAM_WORKDIR },
	{ "PROXY", SBPL_PARAM_PROXY },
	{ "FLAG", SBPL_PARAM_STRING },
};

static void
check_node(const struct sbpl_node *n, uint32_t nlines)
{
	if (n->line < 1 || n->line > nlines || n->col < 1)
		abort();
	if (n->kind == SBPL_NODE_STRING &&
	    (n->len > SBPL_STRING_MAX || memchr(n->text, '\0', n->len) || n->text[n->len] != '\0'))
		abort();
	for (size_t i = 0; i < n->nkids; i++)
		check_node(n->kids[i], nlines);
}

static void
check_result(int rc, const struct sbpl_check_result *r, uint32_t nlines)
{
	size_t e = 0, w = 0;

	if (rc == -ENOMEM)
		return;
	if ((rc == 0) != (r->nerrors == 0) || (rc != 0 && rc != -EINVAL))
		abort();
	for (size_t i = 0; i < r->ndiags; i++) {
		if (!r->diags[i].message || r->diags[i].line > nlines)
			abort();
		if (r->diags[i].severity == SBPL_SEV_ERROR)
			e++;
		else
			w++;
	}
	if (e != r->nerrors || w != r->nwarnings)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct sbpl_check_params p = { defs, 4, 0 };
	struct sbpl_check_result r;
	struct sbpl_read_error e;
	struct sbpl_doc doc;
	uint32_t nlines = 1;

	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n')
			nlines++;
	if (sbpl_read(text, size, &doc, &e) == 0) {
		for (size_t i = 0; i < doc.nforms; i++)
			check_node(doc.forms[i], nlines);
		sbpl_doc_free(&doc);
	} else if (doc.nforms || doc.forms || e.line < 1 || e.line > nlines || !e.message[0]) {
		abort();
	}
	p.flags = size % 2 ? SBPL_CHECK_ALL_PARAMS_USED : SBPL_CHECK_ALLOW_NO_SANDBOX;
	check_result(sbpl_check(text, size, &p, &r), &r, nlines);
	sbpl_check_result_free(&r);
	check_result(sbpl_check_rule(text, size, &p, &r), &r, nlines);
	sbpl_check_result_free(&r);
	return 0;
}

/* SPDX-License-Identifier: MIT
 * sbpl-check FILE...: runs the SBPL checker (compiler/sbpl_check.h) over
 * profiles as `heelc emit sbpl` prints them: the parameter table first, as
 * comment lines `;; param NAME KIND VALUE` before the first form, then the
 * profile. Prints FILE:LINE:COL: error|warning: MESSAGE per problem and
 * exits 1 when any file has an error, 2 on a usage or read failure.
 *   --allow-no-sandbox     accept (with no-sandbox)
 *   --allow-unused-params  do not require every parameter to be used
 *   --rule                 each file is a raw rule (sbpl_check_rule) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"
#include "sbpl_check.h"

#define MAX_PARAMS 512

struct table {
	struct sbpl_param_def defs[MAX_PARAMS];
	char *names[MAX_PARAMS];
	size_t n;
};

/* Reads the `;; param NAME KIND VALUE` lines that come before the first
 * form (blank and other comment lines may be among them). */
static int
read_params(const char *path, const char *text, size_t len, struct table *t)
{
	size_t pos = 0;
	unsigned line = 0;

	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		char name[256], kind[64];
		int k;

		line++;
		pos += ll + (nl ? 1 : 0);
		while (ll > 0 && (*l == ' ' || *l == '\t'))
			l++, ll--;
		if (ll == 0)
			continue;
		if (*l != ';')
			break; /* the first form */
		if (ll < 9 || strncmp(l, ";; param ", 9) != 0)
			continue;
		if (sscanf(l + 9, "%255s %63s", name, kind) != 2) {
			fprintf(stderr, "%s:%u: malformed parameter line (;; param NAME KIND VALUE)\n", path, line);
			return -1;
		}
		if ((k = sbpl_param_kind_from_name(kind)) < 0) {
			fprintf(stderr, "%s:%u: unknown parameter kind '%s' (path, workdir, proxy, string)\n",
				path, line, kind);
			return -1;
		}
		for (size_t i = 0; i < t->n; i++) {
			if (strcmp(t->names[i], name) == 0) {
				fprintf(stderr, "%s:%u: parameter '%s' defined twice\n", path, line, name);
				return -1;
			}
		}
		if (t->n == MAX_PARAMS) {
			fprintf(stderr, "%s:%u: more than %d parameters\n", path, line, MAX_PARAMS);
			return -1;
		}
		if (!(t->names[t->n] = strdup(name))) {
			fprintf(stderr, "sbpl-check: out of memory\n");
			return -1;
		}
		t->defs[t->n].name = t->names[t->n];
		t->defs[t->n].kind = (enum sbpl_param_kind)k;
		t->n++;
	}
	return 0;
}

static int
check_file(const char *path, unsigned flags, int rule)
{
	struct table t = { .n = 0 };
	struct sbpl_check_params p;
	struct sbpl_check_result r;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int rc, status = 0;

	if ((rc = rf_read_regular(path, &text, &len, &st)) < 0) {
		fprintf(stderr, "sbpl-check: %s: %s\n", path, rf_strerror(rc, &st));
		return 2;
	}
	if (read_params(path, text, len, &t) < 0) {
		status = 2;
		goto out;
	}
	p = (struct sbpl_check_params){ .params = t.defs, .nparams = t.n, .flags = flags };
	rc = rule ? sbpl_check_rule(text, len, &p, &r) : sbpl_check(text, len, &p, &r);
	for (size_t i = 0; i < r.ndiags; i++) {
		const struct sbpl_diag *d = &r.diags[i];
		const char *sev = d->severity == SBPL_SEV_ERROR ? "error" : "warning";

		if (d->line)
			printf("%s:%u:%u: %s: %s\n", path, d->line, d->col, sev, d->message);
		else
			printf("%s: %s: %s\n", path, sev, d->message);
	}
	if (rc == -ENOMEM) {
		fprintf(stderr, "sbpl-check: out of memory\n");
		status = 2;
	} else if (rc < 0) {
		status = 1;
	}
	sbpl_check_result_free(&r);
out:
	for (size_t i = 0; i < t.n; i++)
		free(t.names[i]);
	free(text);
	return status;
}

int
main(int argc, char **argv)
{
	unsigned flags = SBPL_CHECK_ALL_PARAMS_USED;
	int rule = 0, status = 0, nfiles = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--allow-no-sandbox") == 0) {
			flags |= SBPL_CHECK_ALLOW_NO_SANDBOX;
		} else if (strcmp(argv[i], "--allow-unused-params") == 0) {
			flags &= ~(unsigned)SBPL_CHECK_ALL_PARAMS_USED;
		} else if (strcmp(argv[i], "--rule") == 0) {
			rule = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: sbpl-check [--allow-no-sandbox] [--allow-unused-params] [--rule] FILE...\n");
			return 2;
		}
	}
	for (int i = 1; i < argc; i++) {
		int s;

		if (argv[i][0] == '-' && argv[i][1])
			continue;
		nfiles++;
		s = check_file(argv[i], flags, rule);
		if (s > status)
			status = s;
	}
	if (!nfiles) {
		fprintf(stderr, "usage: sbpl-check [--allow-no-sandbox] [--allow-unused-params] [--rule] FILE...\n");
		return 2;
	}
	return status;
}

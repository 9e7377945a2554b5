/* SPDX-License-Identifier: MIT
 * The SBPL backend's structural promises (docs/sbpl.md), checked on the
 * profiles it emits for real policies: no network rule under `network
 * deny` and only the proxy rule otherwise; every writable, non-executable
 * place loses both exec rights; a rule never comes before a shallower rule
 * that contains it (protections after the grants around them); no path in
 * the profile text; parameters and `(param ...)` uses agree. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "artifact_write.h"
#include "diag.h"
#include "ir.h"
#include "sbpl_emit.h"
#include "sema.h"

static struct ir_policy *
compile(const char *text)
{
	struct sema_options o = {.path = "t.heel", .text = text, .len = strlen(text)};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;
	int rc;

	cr_assert_not_null(ctx);
	rc = sema_compile(ctx, &o, &ir);
	if (rc || diag_error_count(ctx)) {
		diag_render(ctx, stderr);
		cr_assert_fail("policy did not compile: %d", rc);
	}
	diag_free(ctx);
	return ir;
}

static struct sbpl_profile
emit(const char *text)
{
	struct ir_policy *ir = compile(text);
	struct sbpl_profile p;
	char err[256] = "";
	int rc = sbpl_emit(ir, &p, err, sizeof(err));

	cr_assert_eq(rc, 0, "sbpl_emit: %d %s", rc, err);
	ir_policy_free(ir);
	return p;
}

static const struct sbpl_param *
param(const struct sbpl_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (strcmp(p->params[i].name, name) == 0)
			return &p->params[i];
	return NULL;
}

static const struct sbpl_param *
param_by_value(const struct sbpl_profile *p, const char *value)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (strcmp(p->params[i].value, value) == 0)
			return &p->params[i];
	return NULL;
}

static bool
has_line(const struct sbpl_profile *p, const char *fmt, const char *name)
{
	char line[512];

	snprintf(line, sizeof(line), fmt, name);
	return strstr(p->text, line) != NULL;
}

/* The profile without its comment lines: what the sandbox evaluates. */
static char *
code_only(const struct sbpl_profile *p)
{
	char *out = calloc(1, p->len + 1), *o = out;
	const char *s = p->text;

	cr_assert_not_null(out);
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s + 1) : strlen(s);

		if (strncmp(s, ";;", 2) != 0) {
			memcpy(o, s, n);
			o += n;
		}
		s += n;
	}
	return out;
}

static const char *const bases[] = {"strict", "default", "permissive"};

Test(sbpl_emit, no_network_rule_under_deny)
{
	for (size_t b = 0; b < 3; b++) {
		char text[256];
		struct sbpl_profile p;
		char *code;

		snprintf(text, sizeof(text),
			 "heel 1\nisolation %s\nnetwork deny\ndeny \"/opt/x\"\ngrant \"/opt/y\" rw\n",
			 bases[b]);
		p = emit(text);
		code = code_only(&p);
		cr_assert_null(strstr(code, "network"), "%s: a network rule under deny", bases[b]);
		cr_assert_null(strstr(code, "PROXY"));
		cr_assert_null(param(&p, "PROXY"));
		free(code);
		sbpl_profile_free(&p);
	}
}

Test(sbpl_emit, proxy_rule_only_under_proxy_modes)
{
	static const char *const modes[] = {
	    "network allow-all\n",
	    "network allow {\n  \"pypi.org\"\n  \"*.example.com:443\"\n}\n",
	    "on macos {\n  network allow-all\n}\n",
	};

	for (size_t m = 0; m < 3; m++) {
		char text[256];
		struct sbpl_profile p;
		const struct sbpl_param *q;
		char *code, *at;

		snprintf(text, sizeof(text), "heel 1\nisolation strict\n%s", modes[m]);
		p = emit(text);
		code = code_only(&p);
		at = strstr(code, "(allow network-outbound (remote tcp (param \"PROXY\")))\n");
		cr_assert_not_null(at, "case %zu: no proxy rule", m);
		/* The only network rule: no second one, no local filter (it
		 * would allow every connection), no DNS port. */
		cr_assert_null(strstr(at + 1 + strlen("(allow network-outbound"), "network"));
		cr_assert_eq(strstr(code, "network"), at + strlen("(allow "));
		cr_assert_null(strstr(code, "(local"));
		cr_assert_null(strstr(code, ":53"));
		q = param(&p, "PROXY");
		cr_assert_not_null(q);
		cr_assert_eq(q->kind, ART_SBPL_KIND_PROXY);
		cr_assert_str_eq(q->value, "localhost:PORT");
		cr_assert_eq(q->rank, 0);
		free(code);
		sbpl_profile_free(&p);
	}
	/* Network on for linux only: the macOS profile stays without. */
	{
		struct sbpl_profile p =
		    emit("heel 1\nisolation strict\non linux {\n  network allow-all\n}\n");
		char *code = code_only(&p);

		cr_assert_null(strstr(code, "network"));
		free(code);
		sbpl_profile_free(&p);
	}
}

Test(sbpl_emit, writable_without_x_loses_both_exec_rights)
{
	for (size_t b = 0; b < 3; b++) {
		char text[512];
		struct sbpl_profile p;
		size_t writable = 0;

		snprintf(text, sizeof(text),
			 "heel 1\nisolation %s\ngrant \"/opt/w\" rw\ngrant \"/opt/x\" rwx\n"
			 "grant \"${HOME}/out\" rw optional\nworkdir \"${CWD}\"\n",
			 bases[b]);
		p = emit(text);
		for (size_t i = 0; i < p.nparams; i++) {
			const struct sbpl_param *q = &p.params[i];
			bool w = (q->mode <= IR_MODE_RWX && (q->mode & IR_WRITE)) ||
				 q->mode == ART_SBPL_MODE_WORKDIR;
			bool x = q->mode <= IR_MODE_RWX && (q->mode & IR_EXEC);
			bool denied = has_line(
			    &p, "(deny process-exec file-map-executable (subpath (param \"%s\"))",
			    q->name);

			if (q->kind == ART_SBPL_KIND_PROXY)
				continue;
			if (w && !x) {
				writable++;
				cr_assert(denied, "%s: %s writable without exec denies", bases[b],
					  q->value);
			}
			if (x)
				cr_assert_not(denied, "%s: %s is rx/rwx", bases[b], q->value);
		}
		cr_assert_geq(writable, 3, "%s", bases[b]);
		/* Shared temp is never executable, in every base. */
		{
			size_t n = 0;

			for (size_t i = 0; i < p.nparams; i++)
				if (p.params[i].mode == ART_SBPL_MODE_NOEXEC) {
					n++;
					cr_assert(has_line(&p,
							   "(deny process-exec file-map-executable "
							   "(subpath (param \"%s\"))",
							   p.params[i].name));
				}
			cr_assert_eq(n, 2, "%s", bases[b]);
		}
		sbpl_profile_free(&p);
	}
}

/* a lies strictly beneath b, both literal or both under the same
 * leading variable (what can be compared before expansion). */
static bool
tmpl_beneath(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return a[0] == '/' && a[1] != '\0';
	return n && strncmp(a, b, n) == 0 && a[n] == '/';
}

Test(sbpl_emit, deeper_rules_come_after_the_rules_that_contain_them)
{
	for (size_t b = 0; b < 3; b++) {
		char text[512];
		struct sbpl_profile p;
		size_t pairs = 0;

		snprintf(text, sizeof(text),
			 "heel 1\nisolation %s\nprotect credentials shell-history\n"
			 "grant \"${HOME}\" rw\ngrant \"${HOME}/.ssh/known_hosts\" r\n"
			 "grant \"/opt/a\" rw\ndeny \"/opt/a/b\"\ngrant \"/opt/a/b/c\" rwx\n",
			 bases[b]);
		p = emit(text);
		for (size_t i = 0; i < p.nparams; i++)
			for (size_t j = 0; j < p.nparams; j++) {
				const struct sbpl_param *in = &p.params[i], *out = &p.params[j];

				if (in->kind != ART_SBPL_KIND_PATH || out->kind != ART_SBPL_KIND_PATH ||
				    !tmpl_beneath(in->value, out->value))
					continue;
				pairs++;
				cr_assert_lt(out->rank, in->rank, "%s: %s (rank %u) before %s (rank %u)",
					     bases[b], in->value, in->rank, out->value, out->rank);
			}
		cr_assert_gt(pairs, 10);
		/* A protection after the grant that holds it, the grant inside
		 * it after the protection. */
		cr_assert_lt(param_by_value(&p, "${HOME}")->rank,
			     param_by_value(&p, "${HOME}/.ssh")->rank);
		cr_assert_lt(param_by_value(&p, "${HOME}/.ssh")->rank,
			     param_by_value(&p, "${HOME}/.ssh/known_hosts")->rank);
		sbpl_profile_free(&p);
	}
}

Test(sbpl_emit, ranks_follow_the_profile_and_params_match_uses)
{
	struct sbpl_profile p = emit("heel 1\nisolation default\nnetwork allow-all\n"
				     "grant \"./build\" rw\nworkdir \"${CWD}\"\n");
	const char *last = p.text;
	uint32_t expect = 1;
	char *code;

	for (size_t i = 0; i < p.nparams; i++) {
		char use[64];
		const char *at;

		snprintf(use, sizeof(use), "(param \"%s\")", p.params[i].name);
		at = strstr(p.text, use);
		cr_assert_not_null(at, "%s is never used", p.params[i].name);
		if (p.params[i].kind == ART_SBPL_KIND_PROXY)
			continue;
		/* Table order is profile order, and rank counts it. */
		cr_assert_gt(at, last, "%s out of order", p.params[i].name);
		last = at;
		cr_assert_eq(p.params[i].rank, expect++);
	}
	/* Every use names a parameter of the table. */
	code = code_only(&p);
	for (const char *s = code; (s = strstr(s, "(param \"")) != NULL;) {
		char name[64];
		const char *e;

		s += strlen("(param \"");
		e = strchr(s, '"');
		cr_assert_not_null(e);
		cr_assert_lt((size_t)(e - s), sizeof(name));
		memcpy(name, s, (size_t)(e - s));
		name[e - s] = '\0';
		cr_assert_not_null(param(&p, name), "(param \"%s\") has no entry", name);
	}
	cr_assert_not_null(param(&p, "WORKDIR"));
	cr_assert_eq(param(&p, "WORKDIR")->kind, ART_SBPL_KIND_WORKDIR);
	cr_assert_eq(param(&p, "WORKDIR")->mode, ART_SBPL_MODE_WORKDIR);
	/* ./build (one launch directory deeper) comes after the working
	 * directory ${CWD}, so a grant beneath it wins there. */
	cr_assert_lt(param(&p, "WORKDIR")->rank, param_by_value(&p, "build")->rank);
	free(code);
	sbpl_profile_free(&p);
}

Test(sbpl_emit, no_path_text_in_the_profile)
{
	struct sbpl_profile p = emit(
	    "heel 1\nisolation strict\ngrant \"/Volumes/My Disk/\\\"q\\\"\" r\n"
	    "grant \"/opt/back\\\\slash\" rw\ngrant \"/Users/Shared/Ünïcødé\" r\n"
	    "deny \"/opt/semi;colon (paren)\"\ngrant \"${HOME}/work dir\" rw\n"
	    "grant \"/tmp/t\" rw\n");

	for (size_t i = 0; i < p.nparams; i++) {
		const char *v = p.params[i].value;
		char quoted[1024];

		if (p.params[i].kind != ART_SBPL_KIND_PATH)
			continue;
		snprintf(quoted, sizeof(quoted), "\"%s\"", v);
		cr_assert_null(strstr(p.text, quoted), "path %s spliced into the profile", v);
		/* The odd ones nowhere, not even in a comment. */
		if (strpbrk(v, "\\\" ;(") || strstr(v, "Ün") || strstr(v, "work dir"))
			cr_assert_null(strstr(p.text, v), "%s appears in the profile", v);
	}
	cr_assert_not_null(param_by_value(&p, "/Volumes/My Disk/\"q\""));
	cr_assert_not_null(param_by_value(&p, "/opt/back\\slash"));
	sbpl_profile_free(&p);
}

Test(sbpl_emit, links_canonicalised_at_compile_time)
{
	struct sbpl_profile p = emit("heel 1\nisolation strict\ngrant \"/tmp/a\" rw\n"
				     "grant \"/var/log\" r\ngrant \"/etc/hosts\" r\n"
				     "grant \"/private/tmp/a\" r\ndeny \"/tmpx\"\n");
	const struct sbpl_param *a = param_by_value(&p, "/private/tmp/a");

	cr_assert_not_null(a);
	/* /tmp/a and /private/tmp/a are one path: one rule, the union. */
	cr_assert_eq(a->mode, IR_MODE_RW);
	cr_assert_not_null(param_by_value(&p, "/private/var/log"));
	cr_assert_not_null(param_by_value(&p, "/private/etc/hosts"));
	cr_assert_not_null(param_by_value(&p, "/tmpx"));
	cr_assert_null(param_by_value(&p, "/tmp/a"));
	sbpl_profile_free(&p);

	{
		char *s;

		s = sbpl_canonical_literal("/tmp");
		cr_assert_str_eq(s, "/private/tmp");
		free(s);
		s = sbpl_canonical_literal("/etc/x/y");
		cr_assert_str_eq(s, "/private/etc/x/y");
		free(s);
		s = sbpl_canonical_literal("/variable");
		cr_assert_str_eq(s, "/variable");
		free(s);
		s = sbpl_canonical_literal("${HOME}/tmp");
		cr_assert_str_eq(s, "${HOME}/tmp");
		free(s);
		s = sbpl_canonical_literal("tmp/x");
		cr_assert_str_eq(s, "tmp/x");
		free(s);
	}
}

/* /System/Volumes/Data/Users/a and /Users/a are one place on macOS: a
 * rule spelt either way is one parameter, and a rule whose place may be
 * firmlinked matches both spellings (a deny is not got round through the
 * data volume); a rule elsewhere only its own. */
Test(sbpl_emit, firmlinked_places_match_both_spellings)
{
	struct sbpl_profile p = emit("heel 1\nisolation strict\n"
				     "grant \"/System/Volumes/Data/Users/a\" rw\n"
				     "deny \"/Users/a/secret\"\n"
				     "deny \"${HOME}/.aws\"\n"
				     "grant \"/System/Volumes/Data/private/tmp/b\" r\n"
				     "grant \"/usr/lib/tool\" r\n"
				     "grant \"/System/Volumes/Data/elsewhere\" r\n");
	const struct sbpl_param *a = param_by_value(&p, "/Users/a");
	const struct sbpl_param *secret = param_by_value(&p, "/Users/a/secret");
	const struct sbpl_param *aws = param_by_value(&p, "${HOME}/.aws");
	const struct sbpl_param *tool = param_by_value(&p, "/usr/lib/tool");
	char *code = code_only(&p);
	char line[256];

	cr_assert_not_null(a);
	cr_assert_not_null(secret);
	cr_assert_not_null(aws);
	cr_assert_not_null(tool);
	cr_assert_not_null(param_by_value(&p, "/private/tmp/b"));
	/* Not beneath a firmlink: kept as written. */
	cr_assert_not_null(param_by_value(&p, "/System/Volumes/Data/elsewhere"));
	cr_assert_null(param_by_value(&p, "/System/Volumes/Data/Users/a"));
	snprintf(line, sizeof(line),
		 "(deny file-read* file-write* process-exec file-map-executable (subpath (param "
		 "\"%s\")) (subpath (string-append \"/System/Volumes/Data\" (param \"%s\"))))\n",
		 secret->name, secret->name);
	cr_assert_not_null(strstr(code, line), "%s", line);
	snprintf(line, sizeof(line),
		 "(deny file-write-unlink (path-ancestors (param \"%s\")) (path-ancestors "
		 "(string-append \"/System/Volumes/Data\" (param \"%s\"))))\n",
		 aws->name, aws->name);
	cr_assert_not_null(strstr(code, line), "%s", line);
	snprintf(line, sizeof(line), "(allow file-read* file-write* (subpath (param \"%s\")) "
		 "(subpath (string-append \"/System/Volumes/Data\" (param \"%s\"))))\n",
		 a->name, a->name);
	cr_assert_not_null(strstr(code, line), "%s", line);
	snprintf(line, sizeof(line), "(allow file-read* (subpath (param \"%s\")))\n", tool->name);
	cr_assert_not_null(strstr(code, line), "%s", line);
	free(code);
	sbpl_profile_free(&p);
}

Test(sbpl_emit, estimated_depths)
{
	cr_assert_eq(sbpl_estimated_depth("/"), 0);
	cr_assert_eq(sbpl_estimated_depth("/Users"), 1);
	cr_assert_eq(sbpl_estimated_depth("${HOME}"), 2);
	cr_assert_eq(sbpl_estimated_depth("${HOME}/.ssh"), 3);
	cr_assert_eq(sbpl_estimated_depth("${TMPDIR}/x"), 7);
	cr_assert_eq(sbpl_estimated_depth("${PROJECT}/build"), 5);
	cr_assert_eq(sbpl_estimated_depth("./build"), 5);
	cr_assert_eq(sbpl_estimated_depth("build/x"), 6);
	cr_assert_eq(sbpl_estimated_depth("/a//b/"), 2);
}

Test(sbpl_emit, protections_deny_everything_and_pin_their_ancestors)
{
	struct sbpl_profile p =
	    emit("heel 1\nisolation permissive\nunprotect host-run\nprotect credentials\n");
	const struct sbpl_param *ssh = param_by_value(&p, "${HOME}/.ssh");

	cr_assert_not_null(ssh);
	cr_assert_eq(ssh->mode, IR_MODE_DENY);
	{
		char want[512];

		snprintf(want, sizeof(want),
			 "(deny file-read* file-write* process-exec file-map-executable (subpath "
			 "(param \"%s\")) (subpath (string-append \"/System/Volumes/Data\" (param "
			 "\"%s\"))))\n(deny file-write-unlink (path-ancestors (param \"%s\")) "
			 "(path-ancestors (string-append \"/System/Volumes/Data\" (param \"%s\"))))\n",
			 ssh->name, ssh->name, ssh->name, ssh->name);
		cr_assert_not_null(strstr(p.text, want));
	}
	sbpl_profile_free(&p);
}

Test(sbpl_emit, gpu_mach_lookup_and_raw_sbpl)
{
	struct sbpl_profile on = emit("heel 1\nisolation strict\nallow gpu\non macos {\n"
				      "  allow mach-lookup \"com.example.x\"\n"
				      "  sbpl \"(allow sysctl-read)\"\n}\n");
	struct sbpl_profile off = emit("heel 1\nisolation default\ndeny gpu\n");
	const char *raw;

	cr_assert_not_null(strstr(on.text, "(iokit-user-client-class \"AGXDeviceUserClient\")"));
	cr_assert_not_null(strstr(on.text, "(global-name \"com.apple.MTLCompilerService\")"));
	cr_assert_null(strstr(off.text, "AGXDeviceUserClient"));
	cr_assert_null(strstr(off.text, "MTLCompilerService"));
	cr_assert_not_null(strstr(on.text, "(allow mach-lookup (global-name \"com.example.x\"))\n"));
	/* Raw SBPL is last: nothing heelc writes can come after it. */
	raw = strstr(on.text, "\n(allow sysctl-read)\n");
	cr_assert_not_null(raw);
	cr_assert_eq(raw + strlen("\n(allow sysctl-read)\n"), on.text + on.len);
	cr_assert_not_null(strstr(on.text, ";; raw sbpl  t.heel:"));
	sbpl_profile_free(&on);
	sbpl_profile_free(&off);
}

Test(sbpl_emit, header_and_base)
{
	struct sbpl_profile p = emit("heel 1\n");

	cr_assert_eq(strncmp(p.text, "(version 1)\n", 12), 0);
	cr_assert_not_null(strstr(p.text, "\n(deny default)\n"));
	/* Baseline allows come before every path rule. */
	cr_assert_lt(strstr(p.text, "(allow process-fork)"), strstr(p.text, "(param \"P0\")"));
	cr_assert_null(strstr(p.text, "dnssd"));
	cr_assert_null(strstr(p.text, "launchservicesd"));
	sbpl_profile_free(&p);
}

Test(sbpl_emit, reproducible)
{
	const char *text = "heel 1\nisolation default\nnetwork allow-all\ngrant \"${HOME}/x\" rw\n";
	struct sbpl_profile a = emit(text), b = emit(text);

	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.text, b.text, a.len), 0);
	cr_assert_eq(a.nparams, b.nparams);
	for (size_t i = 0; i < a.nparams; i++) {
		cr_assert_str_eq(a.params[i].name, b.params[i].name);
		cr_assert_str_eq(a.params[i].value, b.params[i].value);
	}
	sbpl_profile_free(&a);
	sbpl_profile_free(&b);
}

Test(sbpl_emit, readonly_each_writable_regex)
{
	struct ir_policy *ir =
	    compile("heel 1\nisolation strict\nunprotect host-run\n"
		    "readonly each-writable \".git/hooks\"\n");
	struct sbpl_profile p;
	char err[256] = "";

	cr_assert_eq(sbpl_emit(ir, &p, err, sizeof(err)), 0);
	cr_assert_not_null(
	    strstr(p.text, "(deny file-write* (regex \"^.*/[.][Gg][Ii][Tt]/[Hh][Oo][Oo][Kk][Ss](/.*)?$\"))"));
	sbpl_profile_free(&p);
	/* A name a regex bracket cannot carry is refused, naming it. */
	free(ir->readonly[0].path);
	ir->readonly[0].path = strdup("a]b");
	cr_assert_eq(sbpl_emit(ir, &p, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "a]b"), "%s", err);
	cr_assert_null(p.text);
	ir_policy_free(ir);
}

Test(sbpl_emit, print_header_format)
{
	struct sbpl_profile p = emit("heel 1\nisolation strict\nnetwork allow-all\n");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(sbpl_print(&p, f), 0);
	fclose(f);
	cr_assert_eq(strncmp(buf, ";; param P0 path /\n", 19), 0);
	cr_assert_not_null(strstr(buf, ";; param WORKDIR workdir \n"));
	cr_assert_not_null(strstr(buf, ";; param PROXY proxy localhost:PORT\n(version 1)\n"));
	free(buf);
	sbpl_profile_free(&p);
}

Test(sbpl_emit, each_writable_check_points_at_what_a_regex_cannot_carry)
{
	char err[256] = "", long_name[200];
	size_t at = 99;

	cr_assert_eq(sbpl_check_each_writable(".git/hooks", &at, err, sizeof(err)), 0);
	cr_assert_eq(sbpl_check_each_writable("ab/c]d", &at, err, sizeof(err)), -EINVAL);
	cr_assert_eq(at, 4, "the offset of `]`, not %zu", at);
	cr_assert_not_null(strstr(err, "`]` cannot be matched in an SBPL regex"), "%s", err);
	/* Every letter becomes a bracket of four bytes ("[Aa]"): 70 of them
	 * are past the 255 bytes an SBPL reader takes; the whole name is
	 * blamed. */
	memset(long_name, 'a', 70);
	long_name[70] = '\0';
	cr_assert_eq(sbpl_check_each_writable(long_name, &at, err, sizeof(err)), -EINVAL);
	cr_assert_eq(at, 70);
	cr_assert_not_null(strstr(err, "too long for an SBPL regex"), "%s", err);
}

/* A policy of `heel 1`, `isolation default` and n grants of distinct
 * paths, one a line from line 3 (caller frees). */
static char *
many_grants(size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	fputs("heel 1\nisolation default\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "grant \"/opt/tree%05zu/sub\" r optional\n", i);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/* sema_compile of text for the platforms of mask: its return, the
 * artifact's bytes written when it succeeds, the first error's line. */
static int
compile_for(const char *text, unsigned mask, uint32_t *err_line, char *msg, size_t msglen)
{
	struct sema_options o = {.path = "t.heel", .text = text, .len = strlen(text),
				 .platforms = mask, .target_explicit = mask != 0};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	cr_assert_not_null(ctx);
	rc = sema_compile(ctx, &o, &ir);
	*err_line = 0;
	for (size_t i = 0; i < diag_count(ctx); i++) {
		const struct diag *d = diag_get(ctx, i);

		if (d->severity == DIAG_ERROR) {
			*err_line = d->loc.line;
			snprintf(msg, msglen, "%s", d->message);
			break;
		}
	}
	diag_free(ctx);
	if (rc == 0) {
		/* What sema accepts, the writer writes and the reader takes. */
		cr_assert_eq(artifact_write(ir, &bytes, &len), 0);
		free(bytes);
	}
	ir_policy_free(ir);
	return rc;
}

/* The macOS part holds ART_SBPL_MAX_PARAMS parameters: a policy at the
 * limit compiles for every platform, one grant more is refused at that
 * grant (not by the writer with a bare errno), and compiles without
 * macos. The policy is generated, thousands of lines long. */
Test(sbpl_emit, parameter_limit_refused_at_the_grant_that_passes_it, .timeout = 60)
{
	struct sbpl_profile p = emit("heel 1\nisolation default\n");
	size_t fixed = p.nparams, fit = ART_SBPL_MAX_PARAMS - fixed;
	char *at_limit = many_grants(fit), *past = many_grants(fit + 1), *far = many_grants(5000);
	char msg[512] = "", want[64];
	uint32_t line;

	sbpl_profile_free(&p);
	cr_assert_eq(compile_for(at_limit, 0, &line, msg, sizeof(msg)), 0, "%u: %s", line, msg);
	cr_assert_eq(compile_for(past, 0, &line, msg, sizeof(msg)), -EINVAL);
	/* Line 3 is the first grant: the last one is the one past. */
	cr_assert_eq(line, fit + 3, "error at line %u, the grant past the limit is on %zu", line,
		     fit + 3);
	snprintf(want, sizeof(want), "needs %u SBPL path parameters", ART_SBPL_MAX_PARAMS + 1);
	cr_assert_not_null(strstr(msg, want), "%s", msg);
	cr_assert_not_null(strstr(msg, "more than the 4096 heel-exec takes on macOS"), "%s", msg);
	cr_assert_eq(compile_for(far, 0, &line, msg, sizeof(msg)), -EINVAL);
	cr_assert_eq(line, fit + 3, "the same grant passes it in a longer policy: %u", line);
	cr_assert_eq(compile_for(far, IR_PLAT_BIT(IR_LINUX), &line, msg, sizeof(msg)), 0,
		     "without macos: %u: %s", line, msg);
	cr_assert_eq(compile_for(far, IR_PLAT_BIT(IR_LINUX) | IR_PLAT_BIT(IR_WINDOWS), &line, msg,
				 sizeof(msg)),
		     0, "linux and windows: %u: %s", line, msg);
	free(at_limit);
	free(past);
	free(far);
}

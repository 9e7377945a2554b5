/* SPDX-License-Identifier: MIT
 * heelc: the command line of the policy compiler. The only place in the
 * compiler that prints diagnostics or exits; everything else is library
 * code that returns errors. Exit: 0 ok, 1 policy errors, 2 usage, 3 I/O. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "artifact_load.h"
#include "artifact_read.h"
#include "artifact_write.h"
#include "ast.h"
#include "diag.h"
#include "explain.h"
#include "fmt.h"
#include "ir.h"
#include "landlock_lower.h"
#include "parse.h"
#include "readfile.h"
#include "sbpl_emit.h"
#include "sbpl_params.h"
#include "seccomp_emit.h"
#include "acl_build.h"
#include "acl_json.h"
#include "sema.h"
#include "suggest.h"
#include "version.h"

enum exit_code { EXIT_OK = 0, EXIT_POLICY = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

/* The platform `explain` shows unless told otherwise: the one heelc runs
 * on, which is the one its user is most likely to launch on. */
#if defined(__APPLE__)
#define HOST_PLATFORM IR_MACOS
#elif defined(_WIN32)
#define HOST_PLATFORM IR_WINDOWS
#else
#define HOST_PLATFORM IR_LINUX
#endif

static const char usage_text[] =
	"usage: heelc POLICY.heel [-o OUT.hpol] [--target linux|macos|windows]...\n"
	"       heelc check POLICY.heel [--target ...]\n"
	"       heelc explain [--json] [--target NAME|all]... POLICY.heel|ARTIFACT.hpol\n"
	"       heelc fmt [--check | -i] POLICY.heel\n"
	"       heelc emit landlock|seccomp|sbpl|acl POLICY.heel|ARTIFACT.hpol\n"
	"       heelc --help | --version\n";

static const char help_text[] =
	"\n"
	"Compiles a heel sandbox policy (heel(5)) into one .hpol artifact that\n"
	"heel-exec applies before it runs a command.\n"
	"\n"
	"commands:\n"
	"  (none)    compile POLICY.heel; output beside it unless -o is given\n"
	"  check     report diagnostics only\n"
	"  explain   say what a policy or artifact allows, for a reviewer\n"
	"  fmt       print the canonical layout (-i: rewrite in place;\n"
	"            --check: exit 1 when the file is not canonical)\n"
	"  emit      print one platform's part as text (landlock, seccomp, sbpl, acl)\n"
	"\n"
	"options:\n"
	"  -o, --output FILE    where to write the artifact\n"
	"  -t, --target NAME    build only for linux, macos or windows (repeatable);\n"
	"                       explain: show only that platform (default: this\n"
	"                       machine's), or every one with --target all\n"
	"      --json           explain: machine-readable output\n"
	"  -h, --help           this text\n"
	"  -V, --version        the compiler and language versions\n"
	"\n"
	"exit status: 0 ok, 1 the policy (or artifact) is invalid, 2 usage error,\n"
	"3 a file could not be read or written.\n";

static int
usage_error(const char *fmt, const char *arg)
{
	fputs("heelc: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

/* `heelc compile x.heel`, `heelc chek x.heel`, `heelc run ...`: a word
 * that is no command and no file, where a command would stand. */
static int
unknown_command(const char *word)
{
	static const char *const commands[] = { "check", "explain", "fmt", "emit", NULL };
	const char *near = suggest_word(word, commands);

	if (near)
		fprintf(stderr, "heelc: unknown command `%s`; did you mean `heelc %s`?\n", word, near);
	else if (strcmp(word, "compile") == 0 || strcmp(word, "build") == 0)
		fprintf(stderr, "heelc: unknown command `%s`: to compile, give the policy alone: "
				"heelc POLICY.heel [-o OUT.hpol]\n",
			word);
	else if (strcmp(word, "run") == 0 || strcmp(word, "exec") == 0)
		fprintf(stderr, "heelc: unknown command `%s`: heelc compiles policies; a command "
				"is run by `heel run` or `heel-exec POLICY.hpol -- CMD [ARG...]`\n",
			word);
	else
		fprintf(stderr, "heelc: unknown command `%s` (check, explain, fmt or emit)\n", word);
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

/* Writes `len` bytes to `path` through a temporary file and rename(), so a
 * failure never leaves a half-written artifact or policy behind. */
static int
write_atomically(const char *path, const void *data, size_t len, mode_t mode)
{
	char *tmp = NULL;
	int fd, err = 0;
	const char *p = data;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* POLICY.heel -> POLICY.hpol; any other name gets .hpol appended. */
static char *
default_output(const char *in)
{
	size_t n = strlen(in);
	char *out = malloc(n + 6);

	if (!out)
		return NULL;
	memcpy(out, in, n + 1);
	if (ends_with(out, ".heel"))
		out[n - 5] = '\0';
	strcat(out, ".hpol");
	return out;
}

/* `all` is explain's: compiling without --target builds every platform. */
static int
parse_target(const char *name, unsigned *mask, bool *all)
{
	if (strcmp(name, "all") == 0) {
		*all = true;
		return 0;
	}
	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		if (strcmp(name, ir_platform_name(p)) == 0) {
			*mask |= IR_PLAT_BIT(p);
			return 0;
		}
	}
	return -EINVAL;
}

/* Compiles a policy file to IR, rendering its diagnostics. Returns an exit
 * code. */
static int
compile_policy(const char *path, unsigned targets, struct ir_policy **out)
{
	struct diag_ctx *ctx = diag_new();
	struct sema_options opts = {
		.path = path,
		.platforms = targets,
		.target_explicit = targets != 0,
	};
	int rc;

	if (!ctx) {
		fputs("heelc: out of memory\n", stderr);
		return EXIT_IO;
	}
	rc = sema_compile(ctx, &opts, out);
	diag_render(ctx, stderr);
	diag_free(ctx);
	if (rc == -EIO)
		return EXIT_IO;
	if (rc == -ENOMEM) {
		fputs("heelc: out of memory\n", stderr);
		return EXIT_IO;
	}
	return rc ? EXIT_POLICY : EXIT_OK;
}

/* The artifact of a policy sema accepted. A failure is the policy's
 * (exit 1), said about its file, except running out of memory. */
static int
build_artifact(const char *path, const struct ir_policy *ir, uint8_t **bytes, size_t *len)
{
	char msg[256];
	int err = artifact_write(ir, bytes, len);

	if (!err)
		return EXIT_OK;
	if (err == -ENOMEM) {
		fputs("heelc: out of memory\n", stderr);
		return EXIT_IO;
	}
	fprintf(stderr, "%s: error: %s\n", path, artifact_write_strerror(err, msg, sizeof(msg)));
	return EXIT_POLICY;
}

static int
cmd_compile(const char *path, const char *output, unsigned targets)
{
	struct ir_policy *ir = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	char *out_path = NULL;
	int rc, err;

	rc = compile_policy(path, targets, &ir);
	if (rc)
		return rc;
	rc = build_artifact(path, ir, &bytes, &len);
	ir_policy_free(ir);
	if (rc)
		return rc;
	out_path = output ? strdup(output) : default_output(path);
	if (!out_path) {
		free(bytes);
		fputs("heelc: out of memory\n", stderr);
		return EXIT_IO;
	}
	err = write_atomically(out_path, bytes, len, 0644);
	if (err) {
		fprintf(stderr, "heelc: %s: cannot write: %s\n", out_path, strerror(-err));
		rc = EXIT_IO;
	}
	free(bytes);
	free(out_path);
	return rc;
}

static int
cmd_check(const char *path, unsigned targets)
{
	struct ir_policy *ir = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc = compile_policy(path, targets, &ir);

	/* Built and dropped: a policy that checks also compiles. */
	if (!rc)
		rc = build_artifact(path, ir, &bytes, &len);
	free(bytes);
	ir_policy_free(ir);
	return rc;
}

/* An artifact is recognised by its magic, whatever its name. */
static bool
looks_like_artifact(const char *buf, size_t len)
{
	return len >= ART_MAGIC_LEN && memcmp(buf, ART_MAGIC, ART_MAGIC_LEN) == 0;
}

/* Explaining for platforms the policy is not built for would print an
 * empty policy: say so instead, and what it is built for. */
static int
explain_unbuilt(const char *path, const struct ir_policy *ir, unsigned shown, bool explicit)
{
	char built[64] = "", want[64] = "";
	const char *reason = NULL;

	for (int p = 0; p < IR_PLATFORM_COUNT; p++) {
		if (ir->platforms & IR_PLAT_BIT(p))
			snprintf(built + strlen(built), sizeof(built) - strlen(built), "%s%s",
				 built[0] ? ", " : "", ir_platform_name(p));
		if (shown & IR_PLAT_BIT(p)) {
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				 want[0] ? " or " : "", ir_platform_name(p));
			if (ir->excluded_reason[p])
				reason = ir->excluded_reason[p];
		}
	}
	fprintf(stderr, "heelc: explain: %s is not built for %s%s%s%s\n", path, want,
		explicit ? "" : " (the platform heelc runs on)", reason ? ": " : "",
		reason ? reason : "");
	fprintf(stderr, "heelc: it is built for %s: name one with --target, or give --target all\n",
		built);
	return EXIT_POLICY;
}

static int
cmd_explain(const char *path, bool json, unsigned shown, bool explicit)
{
	struct ir_policy *ir = NULL, *reloaded = NULL;
	char *buf = NULL;
	size_t len = 0;
	uint8_t *bytes = NULL;
	size_t nbytes = 0;
	char err[256] = "";
	struct stat st;
	int rc, e;

	e = rf_read_regular(path, &buf, &len, &st);
	if (e) {
		fprintf(stderr, "heelc: %s: cannot read: %s\n", path, rf_strerror(e, &st));
		return EXIT_IO;
	}
	if (looks_like_artifact(buf, len)) {
		e = artifact_load((const uint8_t *)buf, len, &reloaded, err, sizeof(err));
		free(buf);
		if (e) {
			fprintf(stderr, "heelc: %s: %s\n", path, err);
			return EXIT_POLICY;
		}
	} else {
		free(buf);
		rc = compile_policy(path, 0, &ir);
		if (rc)
			return rc;
		/* Explain what the artifact will say, not what the source
		 * seemed to say: render the policy after a trip through the
		 * artifact, so explaining a .heel and its .hpol agree. */
		rc = build_artifact(path, ir, &bytes, &nbytes);
		ir_policy_free(ir);
		if (rc)
			return rc;
		e = artifact_load(bytes, nbytes, &reloaded, err, sizeof(err));
		free(bytes);
		if (e) {
			fprintf(stderr, "heelc: internal error: the artifact does not reload: %s\n",
				err[0] ? err : strerror(-e));
			return EXIT_POLICY;
		}
	}
	if (!(reloaded->platforms & shown)) {
		rc = explain_unbuilt(path, reloaded, shown, explicit);
		ir_policy_free(reloaded);
		return rc;
	}
	e = json ? explain_json(reloaded, path, shown, stdout)
		 : explain_text(reloaded, path, shown, stdout);
	ir_policy_free(reloaded);
	if (e || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: explain: %s\n", strerror(e ? -e : errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static int
cmd_fmt(const char *path, bool check, bool in_place)
{
	struct diag_ctx *ctx = diag_new();
	const struct diag_source *src;
	struct ast_file *file = NULL;
	char *text = NULL, *out = NULL;
	size_t len = 0, outlen = 0;
	struct stat st;
	int rc = EXIT_OK, e;

	if (!ctx)
		return EXIT_IO;
	e = rf_read_regular(path, &text, &len, &st);
	if (e) {
		fprintf(stderr, "heelc: %s: cannot read: %s\n", path, rf_strerror(e, &st));
		diag_free(ctx);
		return EXIT_IO;
	}
	if (rf_content_kind(text, len) != RF_TEXT) {
		fprintf(stderr, "%s: error: %s, not a policy source\n", path,
			rf_content_kind(text, len) == RF_ARTIFACT ? "this is a compiled artifact"
								  : "this is a binary file");
		rc = EXIT_POLICY;
		goto out;
	}
	src = diag_add_source(ctx, path, path, text, len);
	if (!src) {
		rc = EXIT_IO;
		goto out;
	}
	e = parse_source(ctx, src, &file);
	if (e || diag_error_count(ctx)) {
		diag_render(ctx, stderr);
		fprintf(stderr, "heelc: %s: not formatted: the file does not parse\n", path);
		rc = e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
		goto out;
	}
	e = fmt_render(file, &out, &outlen);
	if (e) {
		fputs("heelc: out of memory\n", stderr);
		rc = EXIT_IO;
		goto out;
	}
	if (check) {
		if (outlen != len || memcmp(out, text, len) != 0) {
			fprintf(stderr, "heelc: %s: not in canonical form (run heelc fmt -i)\n", path);
			rc = EXIT_POLICY;
		}
	} else if (in_place) {
		/* The mode of the file as it was read. */
		mode_t mode = st.st_mode & 07777;

		if (outlen != len || memcmp(out, text, len) != 0) {
			e = write_atomically(path, out, outlen, mode);
			if (e) {
				fprintf(stderr, "heelc: %s: cannot write: %s\n", path, strerror(-e));
				rc = EXIT_IO;
			}
		}
	} else if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout) == EOF) {
		rc = EXIT_IO;
	}
out:
	ast_file_free(file);
	free(text);
	free(out);
	diag_free(ctx);
	return rc;
}

/* The seccomp programs an artifact holds, annotated with the model of the
 * policy it carries: the disassembly is of the bytes heel-exec would load,
 * not of a program rebuilt from them. */
static int
emit_seccomp_view(const struct art_view *view, const struct ir_policy *ir, FILE *out)
{
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct bpf_prog prog = {.audit_arch = scp_audit_arch((enum scp_arch)a)};
		struct scp_model *m = NULL;
		struct art_bpf bpf;
		int e;

		if (art_seccomp(view, prog.audit_arch, &bpf) != 0)
			return -ENOENT; /* validation guarantees both for linux */
		prog.len = bpf.len;
		prog.insns = calloc(bpf.len, sizeof(*prog.insns));
		if (!prog.insns)
			return -ENOMEM;
		art_bpf_decode(&bpf, prog.insns);
		e = scp_build(ir, (enum scp_arch)a, &m);
		if (!e) {
			if (a > 0)
				fputc('\n', out);
			e = seccomp_emit_prog(m, &prog, out);
		}
		scp_free(m);
		bpf_prog_free(&prog);
		if (e)
			return e;
	}
	return 0;
}

/* `emit landlock|seccomp` of an artifact: from its own Linux sections. */
static int
emit_artifact(const char *what, const char *path, const uint8_t *buf, size_t len)
{
	struct ir_policy *ir = NULL;
	struct art_view view;
	struct ll_table_view table;
	const uint8_t *payload;
	size_t plen;
	char err[256] = "";
	int e;

	e = artifact_load(buf, len, &ir, err, sizeof(err));
	if (!e)
		e = art_validate(buf, len, &view, err, sizeof(err));
	if (e) {
		fprintf(stderr, "heelc: %s: %s\n", path, err[0] ? err : strerror(-e));
		ir_policy_free(ir);
		return e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
	}
	if (art_landlock(&view, &payload, &plen) != 0) {
		fprintf(stderr, "heelc: emit %s: %s is not built for linux\n", what, path);
		ir_policy_free(ir);
		return EXIT_POLICY;
	}
	if (strcmp(what, "landlock") == 0) {
		/* Parsed already by art_validate(); this cannot fail. */
		e = ll_table_parse(payload, plen, &table, NULL, 0);
		if (!e)
			e = ll_emit_view(&table, stdout);
	} else {
		e = emit_seccomp_view(&view, ir, stdout);
	}
	ir_policy_free(ir);
	if (e || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: emit %s: %s\n", what, strerror(e ? -e : errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static int
emit_source(const char *what, const char *path)
{
	struct ir_policy *ir = NULL;
	int rc = compile_policy(path, 0, &ir), e;

	if (rc)
		return rc;
	if (!(ir->platforms & IR_PLAT_BIT(IR_LINUX))) {
		fprintf(stderr, "heelc: emit %s: %s is not built for linux%s%s\n", what, path,
			ir->excluded_reason[IR_LINUX] ? ": " : "",
			ir->excluded_reason[IR_LINUX] ? ir->excluded_reason[IR_LINUX] : "");
		ir_policy_free(ir);
		return EXIT_POLICY;
	}
	e = strcmp(what, "landlock") == 0 ? landlock_emit_text(ir, stdout)
					  : seccomp_emit_text(ir, stdout);
	ir_policy_free(ir);
	if (e || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: emit %s: %s\n", what, strerror(e ? -e : errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* `emit sbpl` of a source: the parameter table, then the profile. */
static int
emit_sbpl_source(const char *path)
{
	struct ir_policy *ir = NULL;
	struct sbpl_profile prof;
	char err[256] = "";
	int rc = compile_policy(path, 0, &ir), e;

	if (rc)
		return rc;
	if (!(ir->platforms & IR_PLAT_BIT(IR_MACOS))) {
		fprintf(stderr, "heelc: emit sbpl: %s is not built for macos%s%s\n", path,
			ir->excluded_reason[IR_MACOS] ? ": " : "",
			ir->excluded_reason[IR_MACOS] ? ir->excluded_reason[IR_MACOS] : "");
		ir_policy_free(ir);
		return EXIT_POLICY;
	}
	e = sbpl_emit(ir, &prof, err, sizeof(err));
	ir_policy_free(ir);
	if (e) {
		fprintf(stderr, "heelc: emit sbpl: %s: %s\n", path, err[0] ? err : strerror(-e));
		return e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
	}
	e = sbpl_print(&prof, stdout);
	sbpl_profile_free(&prof);
	if (e || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: emit sbpl: %s\n", strerror(EIO));
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* `emit sbpl` of an artifact: its own SBPL_TEXT and SBPL_PARAMS, the
 * bytes heel-exec would hand to the sandbox, not a profile rebuilt. */
static int
emit_sbpl_artifact(const char *path, const uint8_t *buf, size_t len)
{
	struct ir_policy *ir = NULL;
	struct art_view view;
	const char *text;
	size_t tlen;
	char err[256] = "";
	int e;

	e = artifact_load(buf, len, &ir, err, sizeof(err));
	if (!e)
		e = art_validate(buf, len, &view, err, sizeof(err));
	ir_policy_free(ir);
	if (e) {
		fprintf(stderr, "heelc: %s: %s\n", path, err[0] ? err : strerror(-e));
		return e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
	}
	if (sbpl_text(&view, &text, &tlen) != 0) {
		fprintf(stderr, "heelc: emit sbpl: %s is not built for macos\n", path);
		return EXIT_POLICY;
	}
	for (size_t i = 0; i < sbpl_param_count(&view) && !e; i++) {
		struct sbpl_param_rec q;

		sbpl_param_at(&view, i, &q);
		e = sbpl_print_param(stdout, q.name, q.kind, q.value);
	}
	if (e || fwrite(text, 1, tlen, stdout) != tlen || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: emit sbpl: %s\n", strerror(EIO));
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* `emit acl`: the Windows part as the JSON manifest, from an artifact's
 * own WIN_CONTAINER and WIN_ACES sections or from a source compiled for
 * every platform (as `heelc POLICY` would). */
static int
emit_acl(const char *path, const char *buf, size_t len)
{
	struct ir_policy *ir = NULL;
	struct acl_manifest *a = NULL;
	struct win_manifest wm;
	struct art_view view;
	struct art_meta meta;
	static const uint8_t no_digest[32];
	char err[256] = "";
	int e, rc;

	if (looks_like_artifact(buf, len)) {
		/* The loader checks that the sections are what the policy in
		 * the artifact compiles to, as for the Linux parts. */
		e = artifact_load((const uint8_t *)buf, len, &ir, err, sizeof(err));
		ir_policy_free(ir);
		if (!e)
			e = art_validate((const uint8_t *)buf, len, &view, err, sizeof(err));
		if (e) {
			fprintf(stderr, "heelc: %s: %s\n", path, err);
			return e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
		}
		e = win_manifest_from_view(&view, &wm, err, sizeof(err));
		if (e) {
			fprintf(stderr, "heelc: emit acl: %s: %s\n", path, err);
			return e == -ENOMEM ? EXIT_IO : EXIT_POLICY;
		}
		if (!art_meta(&view, &meta))
			meta = (struct art_meta){.source_digest = no_digest};
		e = acl_json_render(&wm, meta.source_name, meta.source_digest, stdout);
		win_manifest_free(&wm);
	} else {
		rc = compile_policy(path, 0, &ir);
		if (rc)
			return rc;
		e = acl_build(ir, &a);
		if (e == -ENOENT) {
			fprintf(stderr, "heelc: emit acl: %s is not built for windows%s%s\n", path,
				ir->excluded_reason[IR_WINDOWS] ? ": " : "",
				ir->excluded_reason[IR_WINDOWS] ? ir->excluded_reason[IR_WINDOWS]
								: "");
			ir_policy_free(ir);
			return EXIT_POLICY;
		}
		if (!e)
			e = acl_json_render(&a->m, ir->source_name, ir->source_digest, stdout);
		acl_manifest_free(a);
		ir_policy_free(ir);
	}
	if (e || fflush(stdout) == EOF) {
		fprintf(stderr, "heelc: emit acl: %s\n", strerror(e ? -e : errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static int
cmd_emit(const char *what, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int e, rc;

	if (strcmp(what, "landlock") != 0 && strcmp(what, "seccomp") != 0 &&
	    strcmp(what, "sbpl") != 0 && strcmp(what, "acl") != 0)
		return usage_error("emit: unknown part `%s` (landlock, seccomp, sbpl or acl)",
				   what);
	e = rf_read_regular(path, &buf, &len, &st);
	if (e) {
		fprintf(stderr, "heelc: %s: cannot read: %s\n", path, rf_strerror(e, &st));
		return EXIT_IO;
	}
	if (strcmp(what, "sbpl") == 0)
		rc = looks_like_artifact(buf, len)
			 ? emit_sbpl_artifact(path, (const uint8_t *)buf, len)
			 : emit_sbpl_source(path);
	else if (strcmp(what, "acl") == 0)
		rc = emit_acl(path, buf, len);
	else if (looks_like_artifact(buf, len))
		rc = emit_artifact(what, path, (const uint8_t *)buf, len);
	else
		rc = emit_source(what, path);
	free(buf);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "check", no_argument, NULL, 'c' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *command = NULL;
	unsigned targets = 0;
	bool json = false, check = false, in_place = false, all_targets = false;
	int c, first = 1;

	/* The subcommand comes first when present, so its own flags (fmt's
	 * --check) are not taken for compile flags. */
	if (argc > 1 && (strcmp(argv[1], "check") == 0 || strcmp(argv[1], "explain") == 0 ||
			 strcmp(argv[1], "fmt") == 0 || strcmp(argv[1], "emit") == 0)) {
		command = argv[1];
		first = 2;
	}
	optind = first;
	while ((c = getopt_long(argc, argv, "o:t:ihV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 't':
			if (parse_target(optarg, &targets, &all_targets))
				return usage_error("unknown target `%s` (linux, macos, windows or all)",
						   optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			check = true;
			break;
		case 'i':
			in_place = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("heelc %s (policy language %d, artifact format %d.%d)\n",
			       HEEL_VERSION, HEEL_LANGUAGE_VERSION, HEEL_ARTIFACT_MAJOR,
			       HEEL_ARTIFACT_MINOR);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	argv += optind;
	argc -= optind;

	if (!command) {
		if (argc == 2 && access(argv[0], F_OK) != 0 && !strpbrk(argv[0], "./"))
			return unknown_command(argv[0]);
		if (argc != 1)
			return usage_error("%s", argc ? "expected one policy file" : "no policy file given");
		if (json || check || in_place)
			return usage_error("%s", "--json, --check and -i belong to explain and fmt");
		if (all_targets)
			return usage_error("%s", "--target all belongs to explain: without --target "
						 "every platform is built");
		return cmd_compile(argv[0], output, targets);
	}
	if (strcmp(command, "emit") == 0) {
		if (argc != 2)
			return usage_error("%s", "emit takes a part and a policy file");
		/* The part names the platform; an option would be ignored. */
		if (output || targets || all_targets || json || check || in_place)
			return usage_error("%s", "emit takes no options (-o, --target, --json, --check, -i)");
		return cmd_emit(argv[0], argv[1]);
	}
	if (argc != 1)
		return usage_error("%s", argc ? "expected one file" : "no file given");
	if (output)
		return usage_error("%s", "-o belongs to compiling, not to a subcommand");
	if (strcmp(command, "check") == 0) {
		if (json || check || in_place)
			return usage_error("%s", "check takes no --json, --check or -i");
		if (all_targets)
			return usage_error("%s", "--target all belongs to explain: without --target "
						 "every platform is checked");
		return cmd_check(argv[0], targets);
	}
	if (strcmp(command, "explain") == 0) {
		bool explicit = targets || all_targets;

		if (check || in_place)
			return usage_error("%s", "explain takes no --check or -i");
		if (all_targets)
			targets = IR_PLAT_ALL;
		else if (!targets)
			targets = IR_PLAT_BIT(HOST_PLATFORM);
		return cmd_explain(argv[0], json, targets, explicit);
	}
	if (targets || all_targets)
		return usage_error("%s", "--target belongs to compiling, check and explain");
	if (json)
		return usage_error("%s", "fmt takes no --json");
	if (check && in_place)
		return usage_error("%s", "fmt: choose --check or -i, not both");
	return cmd_fmt(argv[0], check, in_place);
}

/* SPDX-License-Identifier: MIT
 * heel: the original heel's command line on top of the compiler and the
 * launcher. `heel run|shell|python [OPTIONS]` turns the options (and a
 * configuration file) into one policy, compiles it in memory and execs
 * heel-exec, beside this program, with the artifact on a descriptor:
 * heel-exec stays the only code that applies a policy. Exit status: the
 * command's (heel-exec's); 125 when heel itself fails. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_read.h"
#include "build.h"
#include "cache.h"
#include "cli.h"
#include "diag.h"
#include "doctor.h"
#include "policytext.h"
#include "pty.h"
#include "readfile.h"
#include "hostcheck.h"
#include "startdir.h"
#include "toolcache.h"
#include "venv.h"
#include "version.h"

#define EXIT_HEEL 125

static int
failure(const char *fmt, const char *a, const char *b)
{
	fputs("heel: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return EXIT_HEEL;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A compiled artifact, by name or by its first bytes. */
static bool
is_artifact(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	bool art;

	if (ends_with(path, ".hpol"))
		return true;
	if (ends_with(path, ".heel") || rf_read_regular(path, &text, &len, NULL) != 0)
		return false;
	art = rf_content_kind(text, len) == RF_ARTIFACT;
	free(text);
	return art;
}

/* heel-exec beside this program: never from PATH, which the caller's
 * environment (or a repository's tooling) decides. */
static int
find_launcher(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(out, len, "%s/heel-exec", self) >= len)
		return -ENAMETOOLONG;
	return access(out, X_OK) == 0 ? 0 : -errno;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* Linux 6.3 */
#endif

/* The artifact in a sealed memfd the launcher reads it from. Never
 * executable (MFD_NOEXEC_SEAL where the kernel has it, which is also
 * the only memfd a heel sandbox's filter lets through: `heel run` inside
 * one then gets as far as heel-exec, which says why it cannot nest). */
static int
artifact_fd(const uint8_t *bytes, size_t len)
{
	int fd = memfd_create("heel-policy", MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
	size_t off = 0;

	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("heel-policy", MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, bytes + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -errno;
		}
		off += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* heel-exec's command line: launch options, the artifact, `--`, argv. */
struct launch {
	char *argv[64 + CLI_MAX_ACCEPT * 2];
	int argc;
	char fdbuf[16];
};

static void
push(struct launch *l, const char *s)
{
	l->argv[l->argc++] = (char *)s;
}

static void
launch_options(struct launch *l, const struct cli *c, const char *launcher, const char *cwd,
	       const char *workdir)
{
	static const char *const vs[] = { NULL, "-v", "-vv", "-vvv" };

	push(l, launcher);
	if (c->best_effort)
		push(l, "--best-effort");
	if (c->no_namespaces)
		push(l, "--no-namespaces");
	if (c->why)
		push(l, "--why");
	for (size_t i = 0; i < c->naccept; i++) {
		push(l, "--accept");
		push(l, c->accept[i]);
	}
	if (c->verbose)
		push(l, vs[c->verbose > 3 ? 3 : c->verbose]);
	if (workdir) {
		push(l, "--workdir");
		push(l, workdir);
	}
	/* NULL: the command starts in its working directory, as
	 * heel-exec's own commands do (launch_policy says when). */
	if (cwd) {
		push(l, "--cwd");
		push(l, cwd);
	}
}

/* What runs inside: argv for heel-exec after `--`. */
static int
command_argv(const struct cli *c, struct launch *l, char **extra, int nextra)
{
	switch (c->command) {
	case CLI_RUN:
		break;
	case CLI_SHELL: {
		const char *sh = c->shell ? c->shell : getenv("SHELL");

		push(l, sh && sh[0] == '/' ? sh : "/bin/sh");
		break;
	}
	case CLI_PYTHON:
		push(l, "python3");
		if (c->python_code) {
			push(l, "-c");
			push(l, c->python_code);
		}
		break;
	}
	if (l->argc + nextra + 1 > (int)(sizeof(l->argv) / sizeof(l->argv[0])))
		return -E2BIG;
	for (int i = 0; i < nextra; i++)
		push(l, extra[i]);
	l->argv[l->argc] = NULL;
	return 0;
}

/* The fresh working directory heel-exec would remove, made on disk
 * instead, for --keep-working-dir. */
static int
kept_workdir(char *out, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(out, len, "%s/heel-XXXXXX", tmp) >= len)
		return -ENAMETOOLONG;
	return mkdtemp(out) ? 0 : -errno;
}

static int
run_launcher(const struct cli *c, struct launch *l)
{
	if (c->command == CLI_SHELL && isatty(STDIN_FILENO)) {
		int status = pty_run(l->argv);

		if (status < 0)
			return failure("cannot give the shell a terminal of its own: %s%s", strerror(-status), "");
		return status;
	}
	execv(l->argv[0], l->argv);
	return failure("cannot run %s: %s", l->argv[0], strerror(errno));
}

/* The artifact for `text`: from the compile cache when an entry for it is
 * there and sound, else compiled (and then stored, when the compile had
 * nothing to say: a warning must show on every run). HEEL_NO_CACHE set
 * to anything turns the cache off. */
static int
compile_cached(struct diag_ctx *ctx, const char *text, uint8_t **bytes, size_t *len)
{
	const char *off = getenv("HEEL_NO_CACHE");
	uint8_t key[CACHE_KEY_BYTES];
	char dir[PATH_MAX];
	bool cached = !(off && off[0]) && cache_dir(dir, sizeof(dir)) == 0 &&
		      cache_key("/proc/self/exe", text, key) == 0;
	int rc;

	if (cached && cache_lookup(dir, key, bytes, len) == 0) {
		struct art_view view;
		char why[256];

		/* A damaged entry is a miss, never a launch that fails. */
		if (art_validate(*bytes, *len, &view, why, sizeof(why)) == 0)
			return 0;
		free(*bytes);
		*bytes = NULL;
	}
	rc = build_compile_options(ctx, "<heel run>", text, bytes, len);
	if (!rc && cached && diag_count(ctx) == 0)
		cache_store(dir, key, ctx, *bytes, *len);
	return rc;
}

/* ${NAME} as heel-exec will expand it: its environment is ours, and
 * ${CWD} is the directory it is started in, which is ours too. */
static const char *
launch_lookup(const char *name, void *ctx)
{
	if (strcmp(name, "CWD") == 0)
		return ctx;
	if (strcmp(name, "WORKDIR") == 0)
		return NULL; /* heelc refuses it in a path */
	return getenv(name);
}

/* What heel adds to the policy it compiled, for the launch and not the
 * policy's reviewer to write: the tool caches (toolcache.h), and for
 * `heel shell` a prompt that says where the shell runs (PS1, which sh
 * and a shell without a prompt of its own in its rc files show, and
 * PROMPT_COMMAND, with which bash puts the mark back in front of the
 * prompt its ~/.bashrc set; the user's files are not touched). Each only
 * where the policy does not decide the variable itself. Returns how many
 * of `adds` (room for TC_MAX_VARS + 3) it filled. */
static size_t
front_additions(const struct cli *c, enum settings_tri caches, const uint8_t *bytes, size_t len,
		const char *cwd, struct tc_plan *tp, struct policytext_add *adds)
{
	static const char prompt_command[] =
		"case $PS1 in \"(heel) \"*) ;; *) PS1=\"(heel) $PS1\" ;; esac";
	struct art_view view;
	char why[256];
	size_t n = 0;

	memset(tp, 0, sizeof(*tp));
	if (c->prepare || art_validate(bytes, len, &view, why, sizeof(why)) < 0)
		return 0;
	tc_plan(tp, &view, cwd, environ, caches);
	if (tp->warn)
		fprintf(stderr, "heel: warning: the sandbox gets no tool caches: %s (heel(1), TOOL "
			"CACHES)\n", tp->why);
	else if (c->verbose && !tp->dir[0])
		fprintf(stderr, "heel: no tool caches: %s\n", tp->why);
	if (tp->dir[0]) {
		/* Once a day, the caches of projects long unused go. */
		if (!c->print_policy)
			tc_prune(environ);
		adds[n++] = (struct policytext_add){ .name = tp->dir,
						     .comment = "the tool caches of sandboxes started "
								"here (heel(1), TOOL CACHES)" };
		for (size_t i = 0; i < tp->nvars; i++)
			adds[n++] = (struct policytext_add){ .env = true,
							     .name = tp->vars[i].name,
							     .value = tp->vars[i].value,
							     .comment = "tool cache" };
	}
	if (c->command == CLI_SHELL) {
		if (!tc_policy_decides(&view, "PS1", environ))
			adds[n++] = (struct policytext_add){ .env = true,
							     .name = "PS1",
							     .value = geteuid() == 0 ? "(heel) # " : "(heel) $ ",
							     .comment = "heel shell: the prompt" };
		if (!tc_policy_decides(&view, "PROMPT_COMMAND", environ))
			adds[n++] = (struct policytext_add){ .env = true,
							     .name = "PROMPT_COMMAND",
							     .value = prompt_command,
							     .comment = "heel shell: the prompt, after ~/.bashrc" };
	}
	return n;
}

/* The policy heel runs, and where the command starts (*start_here: in
 * `cwd`, else in its working directory). The text is compiled without
 * the read grant of `cwd` first; that policy says whether the grant is
 * added (nothing decides the directory), left out (a grant decides it
 * already, and a read grant beneath a writable one would narrow it),
 * or whether the command may not start there (a deny or a protection
 * decides it: refused; strict, or a system directory: the working
 * directory, said on stderr). It also says what heel adds for the launch
 * (front_additions). On a refusal the reason is in err. */
static int
launch_policy(struct diag_ctx **ctx, char **text, const struct cli *c, enum settings_tri caches,
	      const char *cwd, bool *start_here, uint8_t **bytes, size_t *len, char *err,
	      size_t errlen)
{
	struct policytext_add adds[TC_MAX_VARS + 3];
	struct startdir sd;
	struct tc_plan tp;
	char *with = NULL, *more = NULL, line[3 * PATH_MAX];
	bool grant_start = false;
	size_t nadds;
	int rc;

	*start_here = false;
	rc = compile_cached(*ctx, *text, bytes, len);
	if (rc)
		return rc;
	/* Started in `/`, which is no project, the command starts in its
	 * working directory, as heel-exec's own commands do. */
	if (strcmp(cwd, "/") != 0) {
		if (startdir_decide(*bytes, *len, cwd, launch_lookup, (void *)cwd, &sd) < 0) {
			snprintf(err, errlen, "the compiled policy does not validate");
			return -EINVAL;
		}
		switch (sd.verdict) {
		case STARTDIR_READABLE:
			*start_here = true;
			break;
		case STARTDIR_DENIED:
			startdir_message(&sd, cwd, STARTDIR_WORDS_OPTIONS, err, errlen);
			return -EACCES;
		case STARTDIR_STRICT:
		case STARTDIR_SYSTEM:
			startdir_message(&sd, cwd, STARTDIR_WORDS_OPTIONS, line, sizeof(line));
			fprintf(stderr, "heel: %s\n", line);
			break;
		case STARTDIR_GRANT:
			grant_start = true;
			break;
		}
	}
	nadds = front_additions(c, caches, *bytes, *len, cwd, &tp, adds);
	if (!grant_start && !nadds)
		return 0;
	if (grant_start && (rc = policytext_add_start_grant(*text, NULL, sd.grant_mode, &with, err, errlen)))
		return rc;
	if (nadds) {
		rc = policytext_append(with ? with : *text, adds, nadds, &more, err, errlen);
		free(with);
		if (rc)
			return rc;
		with = more;
	}
	free(*text);
	*text = with;
	free(*bytes);
	*bytes = NULL;
	/* The first compile's diagnostics are the second's again. */
	diag_free(*ctx);
	*ctx = diag_new();
	if (!*ctx)
		return -ENOMEM;
	rc = compile_cached(*ctx, *text, bytes, len);
	if (grant_start)
		*start_here = rc == 0;
	return rc;
}

/* heel python --prepare: the policy's venv made (or completed) on the
 * host as a launch would make it, by the same module heel-exec calls,
 * and nothing run. The artifact is validated first, as heel-exec would. */
static int
prepare_venv(const uint8_t *bytes, size_t len, const char *cwd, const char *name)
{
	char err[PATH_MAX + 4096], line[PATH_MAX + 1024];
	extern char **environ;
	struct envb_launch vars = { .env = environ, .cwd = cwd };
	struct hc_places places;
	struct art_view view;
	struct venv_plan vp;
	int rc;

	if (art_validate(bytes, len, &view, err, sizeof(err)) < 0)
		return failure("%s: %s", name, err);
	/* What python and pip may be: nothing a sandbox of this policy or
	 * an earlier run could have written (hostcheck.h). */
	if ((rc = hc_places_init(&places, environ)) == 0)
		rc = hc_places_add_policy(&places, &view, &vars, err, sizeof(err));
	if (rc < 0) {
		hc_places_free(&places);
		return failure("%s: %s", name, rc == -ENOMEM ? "out of memory" : err);
	}
	rc = venv_plan(&vp, &view, ART_LINUX, environ, cwd, err, sizeof(err));
	if (rc == 0 && vp.state == VENV_NONE) {
		venv_plan_free(&vp);
		return failure("%s has no `python { venv ... }` block: nothing to prepare%s", name, "");
	}
	if (rc == 0)
		rc = venv_check_places(&vp, &view, environ, cwd, NULL, err, sizeof(err));
	if (rc == 0) {
		venv_describe(&vp, line, sizeof(line));
		fprintf(stderr, "heel: %s\n", line);
		rc = venv_prepare(&vp, environ, &places, err, sizeof(err));
	}
	venv_plan_free(&vp);
	hc_places_free(&places);
	return rc < 0 ? failure("%s: %s", name, err) : 0;
}

/* The current directory. The kernel reports one that is not reachable
 * from the process's root (a process that entered another mount
 * namespace keeps its old root: `nsenter --mount --wd`, some container
 * runtimes) as "(unreachable)/...", and musl's getcwd(3), which heel is
 * linked with, then fails with ENOENT where glibc's walks up through "..".
 * /proc/self/cwd names it from the mount namespace's own root; it is
 * taken only if it is the very directory we are in. */
static int
current_dir(char *buf, size_t len)
{
	struct stat here, there;
	ssize_t n;

	if (getcwd(buf, len))
		return 0;
	if (errno != ENOENT)
		return -1;
	n = readlink("/proc/self/cwd", buf, len - 1);
	if (n <= 0 || buf[0] != '/') {
		errno = ENOENT;
		return -1;
	}
	buf[n] = '\0';
	if (stat(".", &here) < 0 || stat(buf, &there) < 0 || here.st_dev != there.st_dev ||
	    here.st_ino != there.st_ino) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct cli c;
	char err[3 * PATH_MAX], cwd[PATH_MAX], launcher[PATH_MAX], workdir[PATH_MAX];
	char home[PATH_MAX];
	struct build_named_list named = { 0 };
	struct launch l = { .argc = 0 };
	const char *wd = NULL;
	enum cli_result res;
	int rc;

	/* heel doctor compiles no policy of the caller's: only heel-exec
	 * beside us is needed. */
	if (argc >= 2 && strcmp(argv[1], "doctor") == 0) {
		rc = find_launcher(launcher, sizeof(launcher));
		if (rc)
			return failure("heel-exec is not beside heel (%s): %s", launcher, strerror(-rc));
		return doctor_main(argc - 1, argv + 1, launcher);
	}
	res = cli_parse(argc, argv, &c, err, sizeof(err));
	if (res == CLI_HELP) {
		fputs(cli_usage, stdout);
		fputs(cli_help, stdout);
		cli_free(&c);
		return 0;
	}
	if (res == CLI_VERSION) {
		printf("heel %s (policy language %d)\n", HEEL_VERSION, HEEL_LANGUAGE_VERSION);
		cli_free(&c);
		return 0;
	}
	if (res == CLI_ERROR) {
		fprintf(stderr, "heel: %s\n(heel --help lists the options)\n", err);
		cli_free(&c);
		return EXIT_HEEL;
	}
	if (current_dir(cwd, sizeof(cwd)) < 0)
		return failure("cannot tell the current directory: %s%s", strerror(errno), "");
	/* HOME through a link: the real place for every ${HOME} from here
	 * on, heel-exec's too (env.h); its spelling is checked with the
	 * paths the user named, once the policy is known. */
	rc = envb_home_resolved(environ, home, sizeof(home));
	if (rc < 0)
		return failure("HOME: %s%s", strerror(-rc), "");
	if (rc > 0) {
		if (build_named_add(&named, "/", getenv("HOME"), "HOME", false) < 0 ||
		    setenv("HOME", home, 1) < 0)
			return failure("out of memory%s%s", "", "");
	}
	rc = find_launcher(launcher, sizeof(launcher));
	if (rc && !c.print_policy)
		return failure("heel-exec is not beside heel (%s): %s", launcher, strerror(-rc));
	if (c.opts.keep_working_dir.on == TRI_ON && !c.opts.working_dir.value && !c.print_policy) {
		rc = kept_workdir(workdir, sizeof(workdir));
		if (rc)
			return failure("cannot make a working directory to keep: %s%s", strerror(-rc), "");
		wd = workdir;
		fprintf(stderr, "heel: the working directory is %s; it is kept after the run\n", wd);
	}
	if (c.policy && is_artifact(c.policy)) {
		/* A compiled policy is applied as it was reviewed: nothing
		 * is added for the start directory, and heel-exec refuses to
		 * start in one the policy does not let the command read. */
		launch_options(&l, &c, launcher, strcmp(cwd, "/") != 0 ? cwd : NULL, wd);
		if (c.policy_option[0])
			return failure("%s cannot change the compiled policy %s; give its .heel source "
				       "with --policy to add to it", c.policy_option, c.policy);
		if (c.config)
			return failure("--config %s cannot change the compiled policy %s", c.config, c.policy);
		if (c.print_policy)
			return failure("%s is compiled; `heelc explain %s` says what it allows", c.policy, c.policy);
		if (c.prepare) {
			char *text = NULL;
			size_t len = 0;

			rc = rf_read_regular(c.policy, &text, &len, NULL);
			if (rc)
				return failure("%s: %s", c.policy, strerror(rc < 0 ? -rc : rc));
			rc = prepare_venv((const uint8_t *)text, len, cwd, c.policy);
			free(text);
			cli_free(&c);
			return rc;
		}
		/* heel-exec is what runs next, on the host: nothing a sandbox
		 * of this policy or an earlier run could have written. */
		{
			char *text = NULL;
			size_t len = 0;

			rc = rf_read_regular(c.policy, &text, &len, NULL);
			if (rc)
				return failure("%s: %s", c.policy, strerror(rc < 0 ? -rc : rc));
			rc = build_check_named(&named, (const uint8_t *)text, len, cwd, environ,
					       launcher, err, sizeof(err));
			build_named_free(&named);
			free(text);
			if (rc)
				return failure("%s%s", err, "");
		}
		push(&l, c.policy);
	} else {
		struct diag_ctx *ctx = diag_new();
		enum settings_tri want_caches = TRI_UNSET;
		struct build_in in = {
			.options = &c.opts,
			.config = c.config,
			.policy = c.policy,
			.cwd = cwd,
			.read_start_dir = true,
			.script = c.command == CLI_PYTHON && !c.python_code && c.nargs ? c.args[0] : NULL,
			.python = c.command == CLI_PYTHON,
			.named = &named,
			.tool_caches = &want_caches,
		};
		char *text = NULL;
		uint8_t *bytes = NULL;
		size_t len = 0;
		bool start_here = false;
		int fd;

		if (!ctx)
			return failure("out of memory%s%s", "", "");
		rc = build_text(ctx, &in, &text, err, sizeof(err));
		if (!rc)
			rc = launch_policy(&ctx, &text, &c, want_caches, cwd, &start_here, &bytes, &len, err,
					   sizeof(err));
		/* The paths named, once the policy says where its sandbox may
		 * write: a link crossed that a sandbox could have planted is
		 * refused (--print-policy too: the text would name its target). */
		if (!rc)
			rc = build_check_named(&named, bytes, len, cwd, environ,
					       c.print_policy || c.prepare ? NULL : launcher, err,
					       sizeof(err));
		build_named_free(&named);
		if (!rc && c.print_policy) {
			char *formatted = NULL;

			rc = build_format(ctx, "<heel run>", text, &formatted);
			if (!rc)
				fputs(formatted, stdout);
			free(formatted);
		}
		if (ctx) {
			diag_render_as(ctx, "heel", stderr);
			diag_free(ctx);
		}
		free(text);
		if (rc && err[0])
			fprintf(stderr, "heel: %s\n", err);
		else if (rc == -ENOMEM)
			fprintf(stderr, "heel: out of memory\n");
		if (rc || c.print_policy) {
			free(bytes);
			cli_free(&c);
			return rc ? EXIT_HEEL : 0;
		}
		launch_options(&l, &c, launcher, start_here ? cwd : NULL, wd);
		if (c.prepare) {
			rc = prepare_venv(bytes, len, cwd, c.policy ? c.policy : c.config ? c.config : "the policy");
			free(bytes);
			cli_free(&c);
			return rc;
		}
		fd = artifact_fd(bytes, len);
		free(bytes);
		if (fd < 0)
			return failure("cannot hand the policy over: %s%s", strerror(-fd), "");
		snprintf(l.fdbuf, sizeof(l.fdbuf), "%d", fd);
		push(&l, "--artifact-fd");
		push(&l, l.fdbuf);
	}
	push(&l, "--");
	if (command_argv(&c, &l, c.args, c.nargs) < 0)
		return failure("too many arguments%s%s", "", "");
	return run_launcher(&c, &l);
}

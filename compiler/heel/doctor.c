/* SPDX-License-Identifier: MIT
 * heel doctor: the walls of this machine for this user, which stock
 * policy runs fully, and what raises each missing wall; see doctor.h.
 * Nothing is probed here: heel-exec probes (`heel-exec check`), heel
 * compiles the stock policies as `heel run` would and reads the
 * launcher's verdict on each. */
#include "doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"
#include "diag.h"
#include "hostcheck.h"

#define EXIT_HEEL 125
#define MAX_WALLS 16
#define MAX_FACTS 16

/* The stock policies, as `heel run` names them: the isolation levels and
 * the presets over the default one (policies/). */
static const struct stock {
	const char *name;
	const char *opt, *value;
} stocks[] = {
	{ "isolation strict", "--isolation", "strict" },
	{ "isolation default", "--isolation", "default" },
	{ "isolation permissive", "--isolation", "permissive" },
	{ "preset python", "--preset", "python" },
	{ "preset node", "--preset", "node" },
	{ "preset rust", "--preset", "rust" },
	{ "preset git", "--preset", "git" },
};
#define NSTOCK (sizeof(stocks) / sizeof(stocks[0]))

struct wall {
	char name[32], state[16], detail[1024], raise[1024];
};
struct fact {
	char name[48], value[1024];
};
struct verdict {
	bool fully;
	char verdict[1200];	/* heel-exec's verdict line, without "verdict: " */
	char best_effort[1200]; /* its "with --best-effort..." line, "" none */
};

struct report {
	char uid[16];
	struct wall walls[MAX_WALLS];
	int nwalls;
	struct fact facts[MAX_FACTS];
	int nfacts;
	struct verdict pol[NSTOCK];
};

/* Runs argv with stdout and stderr into *out (malloc'ed, NUL-ended).
 * The exit status, or -errno. */
static int
capture(char *const argv[], char **out)
{
	size_t len = 0, cap = 4096;
	int p[2], status;
	pid_t pid;
	ssize_t n;

	*out = malloc(cap);
	if (!*out)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], *out + len, cap - len - 1)) != 0) {
		char *more;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		if (cap - len < 512 && (more = realloc(*out, cap *= 2)))
			*out = more;
		else if (cap - len < 2)
			break;
	}
	(*out)[len] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void
copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The walls report of `heel-exec check` (heel-exec(1), CHECKING A
 * MACHINE): "wall NAME: STATE[: DETAIL]", "\traise: ...", "host NAME:
 * VALUE"; other lines are not ours. */
static void
parse_walls(struct report *r, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon;

		if (strncmp(line, "wall ", 5) == 0 && r->nwalls < MAX_WALLS &&
		    (colon = strstr(line, ": "))) {
			struct wall *w = &r->walls[r->nwalls++];
			char *state = colon + 2, *more = strstr(state, ": ");

			copy(w->name, sizeof(w->name), line + 5, (size_t)(colon - line - 5));
			copy(w->state, sizeof(w->state), state, more ? (size_t)(more - state) : strlen(state));
			copy(w->detail, sizeof(w->detail), more ? more + 2 : "", more ? strlen(more + 2) : 0);
		} else if (strncmp(line, "\traise: ", 8) == 0 && r->nwalls) {
			copy(r->walls[r->nwalls - 1].raise, sizeof(r->walls[0].raise), line + 8,
			     strlen(line + 8));
		} else if (strncmp(line, "host ", 5) == 0 && r->nfacts < MAX_FACTS &&
			   (colon = strstr(line, ": "))) {
			struct fact *f = &r->facts[r->nfacts++];

			copy(f->name, sizeof(f->name), line + 5, (size_t)(colon - line - 5));
			copy(f->value, sizeof(f->value), colon + 2, strlen(colon + 2));
			if (strcmp(f->name, "uid") == 0)
				copy(r->uid, sizeof(r->uid), f->value, strlen(f->value));
		}
	}
}

/* The stock policy compiled as `heel run OPT VALUE -- true` would
 * compile it (started in /, so no start directory is added), into a
 * file of a private directory for heel-exec check. */
static int
compile_stock(const struct stock *s, const char *path, char *err, size_t errlen)
{
	char *argv[] = { "heel", "run", (char *)s->opt, (char *)s->value, "--", "true", NULL };
	struct build_named_list named = { 0 };
	enum settings_tri caches = TRI_UNSET;
	struct diag_ctx *ctx = diag_new();
	struct cli c;
	char *text = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc, fd;

	if (!ctx)
		return -ENOMEM;
	if (cli_parse(6, argv, &c, err, errlen) != CLI_OK) {
		diag_free(ctx);
		return -EINVAL;
	}
	{
		struct build_in in = {
			.options = &c.opts, .cwd = "/", .named = &named, .tool_caches = &caches,
		};

		rc = build_text(ctx, &in, &text, err, errlen);
	}
	if (!rc)
		rc = build_compile_options(ctx, "<heel doctor>", text, &bytes, &len);
	if (rc && !err[0])
		snprintf(err, errlen, "%s does not compile (%s)", s->name, strerror(-rc));
	if (!rc) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, bytes, len) != (ssize_t)len)
			rc = -errno;
		if (fd >= 0)
			close(fd);
	}
	build_named_free(&named);
	free(bytes);
	free(text);
	cli_free(&c);
	diag_free(ctx);
	return rc;
}

static void
check_stock(const char *launcher, const char *dir, size_t i, struct verdict *v)
{
	char path[PATH_MAX + 32], err[1024] = "", *out = NULL, *save = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%zu.hpol", dir, i);
	if ((rc = compile_stock(&stocks[i], path, err, sizeof(err))) < 0) {
		snprintf(v->verdict, sizeof(v->verdict), "heel cannot compile it: %s", err);
		return;
	}
	{
		char *argv[] = { (char *)launcher, "check", path, NULL };

		rc = capture(argv, &out);
	}
	unlink(path);
	if (rc < 0) {
		snprintf(v->verdict, sizeof(v->verdict), "cannot run heel-exec check: %s",
			 strerror(-rc));
		free(out);
		return;
	}
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "verdict: ", 9) == 0)
			copy(v->verdict, sizeof(v->verdict), line + 9, strlen(line + 9));
		else if (strncmp(line, "with --best-effort", 18) == 0 && !v->best_effort[0]) {
			/* "as listed above" points into heel-exec's report,
			 * which is not shown here. */
			char *above = strstr(line, " as listed above");

			copy(v->best_effort, sizeof(v->best_effort), line,
			     above ? (size_t)(above - line) : strlen(line));
			if (above)
				snprintf(v->best_effort + strlen(v->best_effort),
					 sizeof(v->best_effort) - strlen(v->best_effort),
					 " (`heel run --best-effort` says how)%s",
					 above + strlen(" as listed above"));
		}
	}
	free(out);
	v->fully = rc == 0 && strcmp(v->verdict, "this machine enforces the whole policy") == 0;
	if (!v->verdict[0])
		snprintf(v->verdict, sizeof(v->verdict), "heel-exec check gave no verdict (exit %d)",
			 rc);
}

static int
count_missing(const struct report *r)
{
	int n = 0;

	for (int i = 0; i < r->nwalls; i++)
		n += strcmp(r->walls[i].state, "missing") == 0;
	return n;
}

static size_t
count_fully(const struct report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < NSTOCK; i++)
		n += r->pol[i].fully;
	return n;
}

/* The closing sentence, the same in both forms. */
static void
summary(const struct report *r, char *buf, size_t len)
{
	size_t fully = count_fully(r);

	if (fully == NSTOCK)
		snprintf(buf, len, "every stock policy runs fully here");
	else if (fully)
		snprintf(buf, len, "%zu of %zu stock policies run fully here", fully, NSTOCK);
	else
		snprintf(buf, len, "nothing can run fully here");
}

static void
print_text(const struct report *r)
{
	char line[64];

	printf("heel doctor: uid %s\n", r->uid[0] ? r->uid : "?");
	printf("walls:\n");
	for (int i = 0; i < r->nwalls; i++) {
		const struct wall *w = &r->walls[i];

		printf("  %-18s %s%s%s\n", w->name, w->state, w->detail[0] ? ": " : "", w->detail);
		if (w->raise[0])
			printf("  %-18s raise: %s\n", "", w->raise);
	}
	printf("host:\n");
	for (int i = 0; i < r->nfacts; i++)
		if (strcmp(r->facts[i].name, "uid") != 0)
			printf("  %s: %s\n", r->facts[i].name, r->facts[i].value);
	printf("stock policies (heel run --isolation LEVEL, heel run --preset NAME):\n");
	for (size_t i = 0; i < NSTOCK; i++) {
		const struct verdict *v = &r->pol[i];

		size_t same = 0;

		/* One wall usually refuses them all: its words once. */
		while (same < i && (r->pol[same].fully || strcmp(r->pol[same].verdict, v->verdict) ||
				    strcmp(r->pol[same].best_effort, v->best_effort)))
			same++;
		if (v->fully)
			printf("  %-21s runs fully\n", stocks[i].name);
		else if (same < i)
			printf("  %-21s does not run fully: as %s\n", stocks[i].name, stocks[same].name);
		else
			printf("  %-21s does not run fully: %s\n", stocks[i].name, v->verdict);
		if (!v->fully && same == i && v->best_effort[0])
			printf("  %-21s %s\n", "", v->best_effort);
	}
	summary(r, line, sizeof(line));
	printf("verdict: %s", line);
	if (!count_fully(r)) {
		/* Why: the launcher's reason for the first stock policy (the
		 * same wall refuses the others), and every missing wall. */
		printf(": %s", r->pol[1].verdict);
		for (int i = 0; i < r->nwalls; i++)
			if (strcmp(r->walls[i].state, "missing") == 0)
				printf("\n  missing %s: raise it: %s", r->walls[i].name,
				       r->walls[i].raise);
	}
	printf("\n");
}

static int
print_json(const struct report *r)
{
	json_t *root = json_object(), *walls = json_array(), *host = json_object(),
	       *pols = json_array();
	char line[64];
	int rc;

	if (!root || !walls || !host || !pols)
		return -ENOMEM;
	json_object_set_new(root, "uid", json_integer(atoll(r->uid)));
	for (int i = 0; i < r->nwalls; i++) {
		const struct wall *w = &r->walls[i];

		json_array_append_new(
		    walls, json_pack("{s:s, s:s, s:s?, s:s?}", "name", w->name, "state", w->state,
				     "detail", w->detail[0] ? w->detail : NULL, "raise",
				     w->raise[0] ? w->raise : NULL));
	}
	json_object_set_new(root, "walls", walls);
	for (int i = 0; i < r->nfacts; i++)
		if (strcmp(r->facts[i].name, "uid") != 0)
			json_object_set_new(host, r->facts[i].name, json_string(r->facts[i].value));
	json_object_set_new(root, "host", host);
	for (size_t i = 0; i < NSTOCK; i++) {
		const struct verdict *v = &r->pol[i];
		char option[64];

		snprintf(option, sizeof(option), "%s %s", stocks[i].opt, stocks[i].value);
		json_array_append_new(
		    pols, json_pack("{s:s, s:s, s:b, s:s, s:s?}", "name", stocks[i].name, "option",
				    option, "runs_fully", v->fully, "verdict", v->verdict,
				    "best_effort", v->best_effort[0] ? v->best_effort : NULL));
	}
	json_object_set_new(root, "policies", pols);
	json_object_set_new(root, "missing", json_integer(count_missing(r)));
	json_object_set_new(root, "runs_fully", json_integer((json_int_t)count_fully(r)));
	summary(r, line, sizeof(line));
	json_object_set_new(root, "verdict", json_string(line));
	if (!count_fully(r))
		json_object_set_new(root, "why", json_string(r->pol[1].verdict));
	rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	return rc < 0 ? -EIO : 0;
}

int
doctor_main(int argc, char **argv, const char *launcher)
{
	struct report *r = calloc(1, sizeof(*r));
	char dir[PATH_MAX], *out = NULL;
	const char *tmp = getenv("TMPDIR");
	bool json = false;
	int rc;

	if (!r) {
		fprintf(stderr, "heel: out of memory\n");
		return EXIT_HEEL;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: heel doctor [--json]\n"
			       "The walls this machine gives this user, which stock policy runs "
			       "fully, and what raises each missing wall (heel(1), DOCTOR).\n");
			free(r);
			return 0;
		} else {
			fprintf(stderr, "heel: doctor: unknown argument `%s` (heel doctor [--json])\n",
				argv[i]);
			free(r);
			return EXIT_HEEL;
		}
	}
	/* heel-exec runs on the host: nothing an earlier sandbox could
	 * have changed, as for heel run (hostcheck.h). */
	{
		extern char **environ;
		char *cargv[] = { (char *)launcher, "check", NULL };
		char err[1024];
		struct hc_places ps;

		rc = hc_places_init(&ps, environ);
		if (rc == 0)
			rc = hc_check(&ps, HC_START, "heel-exec:", launcher, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "out of memory");
		hc_places_free(&ps);
		if (rc < 0) {
			fprintf(stderr, "heel: doctor: %s\n", err);
			free(r);
			return EXIT_HEEL;
		}
		rc = capture(cargv, &out);
	}
	if (rc < 0 || rc > 1 || !strstr(out, "\nwalls: ")) {
		fprintf(stderr, "heel: doctor: %s check gave no walls report (exit %d): %s\n",
			launcher, rc, out ? out : "");
		free(out);
		free(r);
		return EXIT_HEEL;
	}
	parse_walls(r, out);
	free(out);
	/* The compiled policies go to a directory of our own: heel-exec
	 * follows no link to a policy, so not a /proc/self/fd path. */
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/heel-doctor-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "heel: doctor: cannot make a directory in %s: %s\n", tmp,
			strerror(errno));
		free(r);
		return EXIT_HEEL;
	}
	for (size_t i = 0; i < NSTOCK; i++)
		check_stock(launcher, dir, i, &r->pol[i]);
	rmdir(dir);
	if (json) {
		if (print_json(r) < 0) {
			fprintf(stderr, "heel: doctor: cannot write the JSON report\n");
			free(r);
			return EXIT_HEEL;
		}
	} else {
		print_text(r);
	}
	rc = count_missing(r) == 0 && count_fully(r) == NSTOCK ? 0 : 1;
	free(r);
	return rc;
}

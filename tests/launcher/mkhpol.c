/* SPDX-License-Identifier: MIT
 * Test helper for tests/launcher: compiles the few statements the launcher
 * tests use (limit, nice, io-priority, env pass/set, workdir) into an
 * artifact through the real artifact writer, for when heelc itself is not
 * built. Not a compiler: anything else is refused, nothing is checked the
 * way sema checks it. Usage: mkhpol IN.heel OUT.hpol */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_write.h"
#include "ir.h"

static const char *const limit_names[IR_LIMIT_COUNT] = {
	"memory", "cpu", "processes", "open-files", "file-size", "stack", "core",
};

static void __attribute__((noreturn))
die(const char *what, int line)
{
	fprintf(stderr, "mkhpol: line %d: %s\n", line, what);
	exit(1);
}

/* Next double-quoted string (no escapes needed by the tests), or NULL. */
static char *
next_string(char **p)
{
	char *s = strchr(*p, '"'), *e;

	if (!s || !(e = strchr(s + 1, '"')))
		return NULL;
	*e = '\0';
	*p = e + 1;
	return strdup(s + 1);
}

static uint64_t
number(const char *v, int line)
{
	static const struct {
		const char *unit;
		uint64_t mul;
	} units[] = {
		{ "B", 1 }, { "KiB", 1024 }, { "MiB", 1024 * 1024 },
		{ "GiB", 1024ull * 1024 * 1024 }, { "s", 1 }, { "m", 60 }, { "", 1 },
	};
	char *end;
	uint64_t n = strtoull(v, &end, 10);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0)
			return n * units[i].mul;
	die("bad number", line);
}

int
main(int argc, char *argv[])
{
	struct ir_policy *p;
	char buf[1024], kw[64], a[256], b[256];
	uint8_t *out;
	size_t len;
	FILE *in, *o;
	int line = 0;

	if (argc != 3)
		return fprintf(stderr, "usage: mkhpol IN.heel OUT.hpol\n"), 2;
	if (!(in = fopen(argv[1], "r")) || !(p = ir_policy_new()))
		return perror(argv[1]), 3;
	while (fgets(buf, sizeof(buf), in)) {
		struct ir_origin origin = { ir_intern(p, "test.heel"), (uint32_t)++line, 1 };
		char *rest = buf;

		buf[strcspn(buf, "#\n")] = '\0';
		if (sscanf(buf, "%63s", kw) != 1 || strcmp(kw, "heel") == 0 ||
		    strcmp(kw, "isolation") == 0)
			continue;
		for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
			struct ir_scalars *sc = &p->scalar[i];

			if (strcmp(kw, "limit") == 0 && sscanf(buf, "%*s %255s %255s", a, b) == 2) {
				int k;

				for (k = 0; k < IR_LIMIT_COUNT && strcmp(a, limit_names[k]); k++)
					;
				if (k == IR_LIMIT_COUNT)
					die("unknown limit", line);
				sc->limits[k] = (struct ir_u64){ true, number(b, line), origin };
			} else if (strcmp(kw, "nice") == 0 && sscanf(buf, "%*s %255s", a) == 1) {
				sc->nice = (struct ir_u64){ true, number(a, line), origin };
			} else if (strcmp(kw, "io-priority") == 0 && sscanf(buf, "%*s %255s", a) == 1) {
				uint64_t v = strcmp(a, "utility") == 0 ? IR_IO_UTILITY : IR_IO_BACKGROUND;

				sc->io_priority = (struct ir_u64){ true, v, origin };
			} else if (strcmp(kw, "workdir") == 0) {
				char *q = strchr(buf, '"'), *e = q ? strchr(q + 1, '"') : NULL;

				if (!e)
					die("workdir needs a string", line);
				sc->workdir = (struct ir_str){ strndup(q + 1, (size_t)(e - q - 1)), origin };
			} else if (strcmp(kw, "env") != 0) {
				die("statement not supported by mkhpol", line);
			}
		}
		if (strcmp(kw, "env") == 0) {
			char *s;

			rest = buf + strspn(buf, " \t") + 3;
			if (sscanf(rest, "%63s", kw) != 1)
				die("env what?", line);
			if (strcmp(kw, "pass") == 0) {
				while ((s = next_string(&rest))) {
					p->env_pass = realloc(p->env_pass, (p->nenv_pass + 1) *
										 sizeof(*p->env_pass));
					p->env_pass[p->nenv_pass++] =
						(struct ir_env_pass){ s, IR_PLAT_ALL, origin };
				}
			} else {
				char *name = next_string(&rest), *value = next_string(&rest);

				if (!name || !value)
					die("env set NAME VALUE", line);
				p->env_set = realloc(p->env_set, (p->nenv_set + 1) * sizeof(*p->env_set));
				p->env_set[p->nenv_set++] =
					(struct ir_env_set){ name, value, IR_PLAT_ALL, origin };
			}
		}
	}
	fclose(in);
	if (artifact_write(p, &out, &len) < 0)
		return fprintf(stderr, "mkhpol: artifact_write failed\n"), 1;
	if (!(o = fopen(argv[2], "wb")) || fwrite(out, 1, len, o) != len || fclose(o) != 0)
		return perror(argv[2]), 3;
	free(out);
	ir_policy_free(p);
	return 0;
}

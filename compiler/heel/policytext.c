/* SPDX-License-Identifier: MIT
 * Writes the settings of `heel run` as policy text (see policytext.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policytext.h"

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

/* A string literal of the language: `"` and `\` escaped. A control
 * character has no place in a path or name, and `${` would be read as a
 * variable: both refused rather than changed. */
static int
put_string(FILE *f, const char *s, const char *what, bool is_path, char *err, size_t errlen)
{
	if (is_path && strstr(s, "${")) {
		snprintf(err, errlen, "%s `%s` holds `${`, which a policy reads as a variable", what, s);
		return -EINVAL;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "%s holds a control character, which a policy cannot name", what);
			return -EINVAL;
		}
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputc('"', f);
	return 0;
}

/* "  # ORIGIN\n", control characters of the origin (it may quote argv)
 * shown as `?` so the comment stays one line. */
static void
put_origin(FILE *f, const char *origin)
{
	if (origin && origin[0]) {
		fputs("  # ", f);
		for (const unsigned char *p = (const unsigned char *)origin; *p; p++)
			fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
	}
	fputc('\n', f);
}

static void
put_scalar(FILE *f, const char *keyword, const struct settings_scalar *s)
{
	if (!s->value)
		return;
	fprintf(f, "%s %s", keyword, s->value);
	put_origin(f, s->origin);
}

static int
put_network(FILE *f, const struct settings *s, char *err, size_t errlen)
{
	const char *kind = s->network.value;
	int r;

	if (!kind)
		return 0;
	if (strcmp(kind, "allow-list") != 0) {
		fprintf(f, "network %s", kind);
		put_origin(f, s->network.origin);
		return 0;
	}
	fputs("network allow {", f);
	put_origin(f, s->network.origin);
	for (size_t i = 0; i < s->ndomains; i++) {
		fputs("    ", f);
		r = put_string(f, s->domains[i].pattern, "the domain", false, err, errlen);
		if (r)
			return r;
		put_origin(f, s->domains[i].origin);
	}
	fputs("}\n", f);
	return 0;
}

static int
render(FILE *f, const struct policytext_in *in, char *err, size_t errlen)
{
	const struct settings *s = in->settings;
	int r;

	fputs("heel 1\n", f);
	for (size_t i = 0; i < in->nincludes; i++) {
		fputs("include ", f);
		r = put_string(f, in->includes[i], "the policy file", true, err, errlen);
		if (r)
			return r;
		fputc('\n', f);
	}
	/* Presets after the files: what they add is the same wherever it
	 * stands (grants, env), and a preset a file includes already is a
	 * second include, which does nothing. */
	for (size_t i = 0; i < s->npresets; i++) {
		fprintf(f, "include <%s>", s->presets[i].name);
		put_origin(f, s->presets[i].origin);
	}
	/* After the includes: an option beats the file it adds to. */
	put_scalar(f, "isolation", &s->isolation);
	for (int i = 0; i < SET_COUNT; i++) {
		if (s->protect[i].on == TRI_UNSET)
			continue;
		fprintf(f, "%s %s", s->protect[i].on == TRI_ON ? "protect" : "unprotect",
			settings_set_name((enum settings_set)i));
		put_origin(f, s->protect[i].origin);
	}
	if (s->gpu.on != TRI_UNSET) {
		fprintf(f, "%s gpu", s->gpu.on == TRI_ON ? "allow" : "deny");
		put_origin(f, s->gpu.origin);
	}
	for (size_t i = 0; i < s->ngrants; i++) {
		fputs("grant ", f);
		r = put_string(f, s->grants[i].path, "the path", true, err, errlen);
		if (r)
			return r;
		fprintf(f, " %s", s->grants[i].mode);
		put_origin(f, s->grants[i].origin);
	}
	r = put_network(f, s, err, errlen);
	if (r)
		return r;
	if (s->allow_private.on == TRI_ON) {
		fputs("network allow-private", f);
		put_origin(f, s->allow_private.origin);
	}
	if (s->audit_log.value) {
		fputs("network audit ", f);
		r = put_string(f, s->audit_log.value, "the audit log", true, err, errlen);
		if (r)
			return r;
		put_origin(f, s->audit_log.origin);
	}
	for (int i = 0; i < LIM_COUNT; i++) {
		if (!s->limits[i].value)
			continue;
		fprintf(f, "limit %s %s", settings_limit_name((enum settings_limit)i), s->limits[i].value);
		put_origin(f, s->limits[i].origin);
	}
	put_scalar(f, "nice", &s->nice);
	put_scalar(f, "io-priority", &s->io_priority);
	for (size_t i = 0; i < s->nenv; i++) {
		const struct settings_env *e = &s->env[i];

		fputs(e->value ? "env set " : "env pass ", f);
		r = put_string(f, e->name, "the variable name", false, err, errlen);
		if (!r && e->value) {
			fputc(' ', f);
			r = put_string(f, e->value, "the value", false, err, errlen);
		}
		if (r)
			return r;
		put_origin(f, e->origin);
	}
	if (s->working_dir.value) {
		fputs("workdir ", f);
		r = put_string(f, s->working_dir.value, "the working directory", true, err, errlen);
		if (r)
			return r;
		put_origin(f, s->working_dir.origin);
	}
	return 0;
}

int
policytext_render(const struct policytext_in *in, char **out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	r = render(f, in, err, errlen);
	if (fclose(f) != 0 && !r)
		r = -ENOMEM;
	if (r) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

int
policytext_add_start_grant(const char *text, const char *path, const char *mode, char **out,
			   char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, n = strlen(text);
	FILE *f = open_memstream(&buf, &len);
	int r = 0;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	fputs(text, f);
	if (n && text[n - 1] != '\n')
		fputc('\n', f);
	fputs("grant ", f);
	if (path)
		r = put_string(f, path, "the start directory", true, err, errlen);
	else
		fputs("\"${CWD}\"", f);
	fprintf(f, " %s  # the command starts here, in the caller's directory\n",
		strcmp(mode, "rx") == 0 ? "rx" : "r");
	if (fclose(f) != 0 && !r)
		r = -ENOMEM;
	if (r) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

int
policytext_origin_at(const char *text, unsigned line, char *buf, size_t len)
{
	const char *p = text, *end;
	bool quoted = false;

	for (unsigned l = 1; l < line && p; l++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !line)
		return -ENOENT;
	end = p + strcspn(p, "\n");
	/* The comment starts at the first "  # " outside a string literal
	 * (put_string escapes `"` and `\`; put_origin writes the comment). */
	for (; p + 4 <= end; p++) {
		if (quoted && *p == '\\') {
			p++;
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && strncmp(p, "  # ", 4) == 0)
			break;
	}
	if (p + 4 > end || (size_t)(end - p - 4) >= len)
		return -ENOENT;
	memcpy(buf, p + 4, (size_t)(end - p - 4));
	buf[end - p - 4] = '\0';
	return 0;
}

int
policytext_append(const char *text, const struct policytext_add *adds, size_t n, char **out,
		  char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, tl = strlen(text);
	FILE *f = open_memstream(&buf, &len);
	int r = 0;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	fputs(text, f);
	if (tl && text[tl - 1] != '\n')
		fputc('\n', f);
	for (size_t i = 0; i < n && !r; i++) {
		const struct policytext_add *a = &adds[i];

		if (a->env) {
			fprintf(f, "env set \"%s\" ", a->name);
			r = put_string(f, a->value, a->name, false, err, errlen);
		} else {
			fputs("grant ", f);
			r = put_string(f, a->name, "the path", true, err, errlen);
			fputs(" rw", f);
		}
		put_origin(f, a->comment);
	}
	if (fclose(f) != 0 && !r)
		r = -ENOMEM;
	if (r) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

/* SPDX-License-Identifier: MIT
 * libFuzzer target for `heel --config FILE.toml`: the TOML scanner and
 * parser and the mapping of the original heel's keys. On any bytes it
 * must stay inside the buffer and end with either settings or at least
 * one error; every error points at a line and column inside the text;
 * and whatever settings it made must render as policy text without a
 * crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_toml.h"
#include "diag.h"
#include "policytext.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_ctx *ctx = diag_new();
	struct settings s;
	char *text = NULL, err[600];
	uint32_t lines = 1;
	int rc;

	if (!ctx)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = config_toml_parse(ctx, "fuzz.toml", (const char *)data, size, &s);
	if (rc == 0 && diag_error_count(ctx) != 0)
		abort();
	if (rc == -22 /* -EINVAL */ && diag_error_count(ctx) == 0)
		abort();
	for (size_t i = 0; i < diag_count(ctx); i++) {
		const struct diag *d = diag_get(ctx, i);

		if (d->loc.src && (d->loc.line < 1 || d->loc.line > lines + 1 || d->loc.col < 1))
			abort();
	}
	if (rc == 0) {
		struct policytext_in in = { .settings = &s };

		if (policytext_render(&in, &text, err, sizeof(err)) == 0 &&
		    strncmp(text, "heel 1\n", 7) != 0)
			abort();
		free(text);
	}
	settings_free(&s);
	diag_free(ctx);
	return 0;
}

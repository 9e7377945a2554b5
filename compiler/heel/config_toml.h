/* SPDX-License-Identifier: MIT
 * `heel --config FILE.toml`: the original heel's configuration keys,
 * read into settings. Unknown keys and wrong types are errors, pushed as
 * FILE:LINE:COL like the policy language's. */
#ifndef HEEL_FRONT_CONFIG_TOML_H
#define HEEL_FRONT_CONFIG_TOML_H

#include "diag.h"
#include "settings.h"

/* Reads `path` into *out (zeroed first; caller frees with settings_free).
 * Paths stay as written: the caller resolves them (pathres.h). Returns 0;
 * -EINVAL when an error was pushed; -EIO when the file cannot be read (a
 * diagnostic says why); -ENOMEM. */
int config_toml_read(struct diag_ctx *ctx, const char *path, struct settings *out);

/* The same from text already in memory (`path` names it in messages). */
int config_toml_parse(struct diag_ctx *ctx, const char *path, const char *text, size_t len,
		      struct settings *out);

#endif

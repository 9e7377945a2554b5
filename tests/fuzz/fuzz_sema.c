/* SPDX-License-Identifier: MIT
 * libFuzzer target for the whole compiler behind the parser: semantic
 * analysis into the IR, the artifact writer (with its Landlock and seccomp
 * backends) and the artifact loader. Whatever compiles must write an
 * artifact that loads back and writes to the same bytes, and explain must
 * render it. An `include` of a file reads the real file system, which is
 * harmless here. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_load.h"
#include "artifact_write.h"
#include "diag.h"
#include "explain.h"
#include "ir.h"
#include "sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_ctx *ctx = diag_new();
	struct sema_options o = { .path = "fuzz.heel", .text = (const char *)data, .len = size };
	struct ir_policy *ir = NULL, *back = NULL;
	uint8_t *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	char err[256];
	int rc;

	if (!ctx)
		abort();
	/* A text with a NUL cannot come from a file heelc reads as text;
	 * sema takes the length, so let it see them anyway. */
	rc = sema_compile(ctx, &o, &ir);
	if (rc == 0) {
		if (!ir || diag_error_count(ctx))
			abort();
		rc = artifact_write(ir, &a, &alen);
		if (rc == 0) {
			if (artifact_load(a, alen, &back, err, sizeof(err)) != 0) {
				fprintf(stderr, "written artifact does not load: %s\n", err);
				abort();
			}
			if (artifact_write(back, &b, &blen) != 0 || blen != alen ||
			    memcmp(a, b, alen) != 0)
				abort();
			{
				FILE *null = fopen("/dev/null", "w");

				if (null) {
					explain_text(back, "fuzz", IR_PLAT_ALL, null);
					explain_json(back, "fuzz", IR_PLAT_BIT(IR_LINUX), null);
					fclose(null);
				}
			}
		} else if (rc != -E2BIG && rc != -ENOMEM && rc != -EINVAL) {
			abort();
		}
	} else if (rc != -EINVAL && rc != -EIO && rc != -ENOMEM) {
		abort();
	} else if (rc == -EINVAL && !diag_error_count(ctx)) {
		fprintf(stderr, "refused without an error diagnostic\n");
		abort();
	}
	free(a);
	free(b);
	ir_policy_free(ir);
	ir_policy_free(back);
	diag_free(ctx);
	return 0;
}

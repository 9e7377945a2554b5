/* SPDX-License-Identifier: MIT
 * `heelc emit landlock`: the Landlock table as text for review and golden
 * files. It renders the encoded-then-parsed table, so what it prints is
 * exactly what heel-exec will read from the artifact. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "landlock_abi.h"
#include "landlock_lower.h"
#include "landlock_table.h"

static void
put_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
put_mask(FILE *out, const char *label, char which, uint64_t mask)
{
	char buf[512];

	ll_format_mask(which, mask, buf, sizeof(buf));
	fprintf(out, "%-12s %s\n", label, buf);
}

int
ll_emit_view(const struct ll_table_view *t, FILE *out)
{
	char buf[512];

	fprintf(out, "# heel Landlock table, format %u\n", t->version);
	fprintf(out, "%-12s %u\n", "min-abi", t->min_abi);
	put_mask(out, "handled-fs", 'f', t->handled_fs);
	put_mask(out, "handled-net", 'n', t->handled_net);
	put_mask(out, "scoped", 's', t->scoped);
	if (t->flags & LL_TF_NET_PROXY)
		fprintf(out, "%-12s proxy: heel-exec adds connect-tcp to the proxy port\n", "network");
	else
		fprintf(out, "%-12s deny: no port rule, every TCP and UDP bind and connect is refused\n",
			"network");
	ll_format_mask('f', LL_WORKDIR_RIGHTS & t->handled_fs, buf, sizeof(buf));
	fprintf(out, "# added at launch, not in the table: the working directory, %s\n", buf);
	for (uint32_t i = 0; i < t->rule_count; i++) {
		struct ll_rule_view r;

		ll_table_rule(t, i, &r);
		fprintf(out, "%-5s ", ll_kind_name(r.kind));
		put_quoted(out, r.path);
		fprintf(out, " abi=%u", r.min_abi);
		if (r.flags & LL_RF_OPTIONAL)
			fputs(" optional", out);
		if (r.flags & LL_RF_DEVICE)
			fputs(" device", out);
		if (r.flags & LL_RF_NEEDS_MOUNTNS)
			fputs(" needs-mountns", out);
		if (r.kind == LL_KIND_GRANT) {
			ll_format_mask('f', r.access, buf, sizeof(buf));
			fprintf(out, ": %s", buf);
		}
		if (r.origin)
			fprintf(out, "  # %s:%u", r.origin, r.origin_line);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int
landlock_emit_text(const struct ir_policy *policy, FILE *out)
{
	struct ll_table *t = NULL;
	struct ll_table_view v;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	rc = ll_lower(policy, &t);
	if (rc == 0)
		rc = ll_table_encode(t, &bytes, &len);
	if (rc == 0)
		rc = ll_table_parse(bytes, len, &v, NULL, 0);
	if (rc == 0)
		rc = ll_emit_view(&v, out);
	free(bytes);
	ll_table_free(t);
	return rc;
}

/* SPDX-License-Identifier: MIT
 * The macOS sections of an artifact (format 1.4): SBPL_TEXT and
 * SBPL_PARAMS are written for a policy built for macos, non-critical, and
 * art_validate() checks their structure like every other known section:
 * each tampering below, re-sealed behind valid checksums, is refused with
 * a message; what the validator cannot judge (the profile's words, a
 * parameter's value) the loader's rebuild refuses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "artifact_load.h"
#include "artifact_read.h"
#include "artifact_write.h"
#include "crc32c.h"
#include "diag.h"
#include "ir.h"
#include "le.h"
#include "sbpl_params.h"
#include "sema.h"

struct blob {
	uint8_t *data;
	size_t len;
};

static struct blob
build(const char *text, unsigned platforms)
{
	struct sema_options o = {.path = "t.heel", .text = text, .len = strlen(text),
				 .platforms = platforms, .target_explicit = platforms != 0};
	struct diag_ctx *ctx = diag_new();
	struct ir_policy *ir = NULL;
	struct blob b = {0};

	cr_assert_eq(sema_compile(ctx, &o, &ir), 0);
	cr_assert_eq(diag_error_count(ctx), 0);
	diag_free(ctx);
	cr_assert_eq(artifact_write(ir, &b.data, &b.len), 0);
	ir_policy_free(ir);
	return b;
}

static const char policy[] = "heel 1\nisolation strict\nunprotect host-run\nnetwork allow-all\n"
			     "workdir \"${CWD}\"\ngrant \"/opt/a\" rw\ndeny \"/opt/a/b\"\n";

static struct blob
rich(void)
{
	return build(policy, 0);
}

#define ENTRY(b, i) ((b).data + ART_HEADER_SIZE + (size_t)(i)*ART_SECTION_ENTRY_SIZE)

static unsigned
nsec(struct blob b)
{
	return le_get16(b.data + offsetof(struct art_file_header, section_count));
}

static unsigned
find(struct blob b, uint32_t type)
{
	for (unsigned i = 0; i < nsec(b); i++)
		if (le_get32(ENTRY(b, i)) == type)
			return i;
	cr_assert_fail("no section %u", type);
	return 0;
}

static uint8_t *
payload(struct blob b, uint32_t type, size_t *size)
{
	unsigned i = find(b, type);

	if (size)
		*size = (size_t)le_get64(ENTRY(b, i) + offsetof(struct art_file_section, size));
	return b.data + le_get64(ENTRY(b, i) + offsetof(struct art_file_section, offset));
}

/* Record k of SBPL_PARAMS. */
static uint8_t *
param(struct blob b, size_t k)
{
	return payload(b, ART_SEC_SBPL_PARAMS, NULL) + sizeof(struct art_rec_table) +
	       k * sizeof(struct art_rec_sbpl_param);
}

static uint32_t
count(struct blob b)
{
	return le_get32(payload(b, ART_SEC_SBPL_PARAMS, NULL));
}

/* The first record of `kind`. */
static size_t
of_kind(struct blob b, unsigned kind)
{
	for (size_t k = 0; k < count(b); k++)
		if (param(b, k)[offsetof(struct art_rec_sbpl_param, kind)] == kind)
			return k;
	cr_assert_fail("no parameter of kind %u", kind);
	return 0;
}

static void
reseal(struct blob b)
{
	for (unsigned i = 0; i < nsec(b); i++) {
		uint64_t off = le_get64(ENTRY(b, i) + offsetof(struct art_file_section, offset));
		uint64_t size = le_get64(ENTRY(b, i) + offsetof(struct art_file_section, size));

		le_put32(ENTRY(b, i) + offsetof(struct art_file_section, crc),
			 crc32c_buf(b.data + off, (size_t)size));
	}
	le_put32(b.data + offsetof(struct art_file_header, body_crc),
		 crc32c_buf(b.data + ART_HEADER_SIZE, b.len - ART_HEADER_SIZE));
	le_put32(b.data + offsetof(struct art_file_header, header_crc),
		 art_header_crc(b.data, ART_HEADER_SIZE));
}

static void
expect_refused(struct blob b, const char *msg)
{
	struct art_view v;
	struct ir_policy *p = NULL;
	char err[256] = "";

	reseal(b);
	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), -EINVAL,
		     "accepted, expected \"%s\"", msg);
	cr_assert_not_null(strstr(err, msg), "expected \"%s\" in \"%s\"", msg, err);
	err[0] = '\0';
	cr_assert_neq(artifact_load(b.data, b.len, &p, err, sizeof(err)), 0);
	cr_assert_null(p);
	cr_assert_not_null(strstr(err, msg), "loader: expected \"%s\" in \"%s\"", msg, err);
	free(b.data);
}

/* Accepted by the validator, refused by the loader's rebuild. */
static void
expect_load_refused(struct blob b, const char *msg)
{
	struct art_view v;
	struct ir_policy *p = NULL;
	char err[256] = "";

	reseal(b);
	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(artifact_load(b.data, b.len, &p, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, msg), "expected \"%s\" in \"%s\"", msg, err);
	free(b.data);
}

#define P(b, k, field) (param(b, k) + offsetof(struct art_rec_sbpl_param, field))

Test(artifact_sbpl, written_for_macos_non_critical_and_valid)
{
	struct blob b = rich();
	struct art_view v;
	struct ir_policy *p = NULL;
	char err[256] = "";
	unsigned t = find(b, ART_SEC_SBPL_TEXT), q = find(b, ART_SEC_SBPL_PARAMS);

	cr_assert_eq(le_get16(b.data + offsetof(struct art_file_header, fmt_minor)), 4);
	cr_assert_eq(q, t + 1);
	cr_assert_eq(le_get32(ENTRY(b, t) + 4), 0, "SBPL_TEXT is not critical");
	cr_assert_eq(le_get32(ENTRY(b, q) + 4), 0, "SBPL_PARAMS is not critical");
	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.nskipped, 0);
	cr_assert_eq(artifact_load(b.data, b.len, &p, err, sizeof(err)), 0, "%s", err);
	ir_policy_free(p);
	/* Same input, same bytes. */
	{
		struct blob c = rich();

		cr_assert_eq(c.len, b.len);
		cr_assert_eq(memcmp(c.data, b.data, b.len), 0);
		free(c.data);
	}
	free(b.data);
}

Test(artifact_sbpl, a_linux_only_artifact_has_none)
{
	struct blob b = build(policy, IR_PLAT_BIT(IR_LINUX));
	struct art_view v;
	char err[256] = "";

	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	for (unsigned i = 0; i < nsec(b); i++)
		cr_assert_lt(le_get32(ENTRY(b, i)), ART_SEC_SBPL_TEXT);
	free(b.data);
}

Test(artifact_sbpl, names)
{
	struct blob b = rich();

	/* A name pointing at a path string: not [A-Z][A-Z0-9_]*. */
	le_put32(P(b, 0, name), le_get32(P(b, 0, value)));
	expect_refused(b, "SBPL_PARAMS record 0: invalid parameter name");
	b = rich();
	le_put32(P(b, 1, name), le_get32(P(b, 0, name)));
	expect_refused(b, "SBPL_PARAMS record 1: duplicate parameter name");
	b = rich();
	le_put32(P(b, 2, name), ART_STR_NONE);
	expect_refused(b, "SBPL_PARAMS record 2: name string is missing");
	b = rich();
	le_put32(P(b, 2, value), 0x7fffff00u);
	expect_refused(b, "SBPL_PARAMS record 2: value string offset");
	b = rich();
	le_put32(P(b, 3, origin), 0x7fffff00u);
	expect_refused(b, "SBPL_PARAMS record 3: origin file string offset");
}

Test(artifact_sbpl, enumerations_and_reserved_fields)
{
	struct blob b = rich();
	size_t wd;

	*P(b, 0, kind) = ART_SBPL_KIND_COUNT;
	expect_refused(b, "SBPL_PARAMS record 0: unknown kind 3");
	b = rich();
	*P(b, 0, mode) = 2; /* write without read */
	expect_refused(b, "SBPL_PARAMS record 0: invalid mode 0x2");
	b = rich();
	*P(b, 0, mode) = ART_SBPL_MODE_WORKDIR; /* a PATH with the workdir's mode */
	expect_refused(b, "SBPL_PARAMS record 0: invalid mode 0x40");
	b = rich();
	wd = of_kind(b, ART_SBPL_KIND_WORKDIR);
	*P(b, wd, mode) = 3;
	expect_refused(b, "invalid mode 0x3 for its kind");
	b = rich();
	*P(b, of_kind(b, ART_SBPL_KIND_PROXY), mode) = 1;
	expect_refused(b, "invalid mode 0x1 for its kind");
	b = rich();
	*P(b, 1, optional) = 2;
	expect_refused(b, "SBPL_PARAMS record 1: optional is 2");
	b = rich();
	*P(b, 1, reserved0) = 1;
	expect_refused(b, "SBPL_PARAMS record 1: reserved field is not zero");
	b = rich();
	le_put32(P(b, 1, reserved1), 1);
	expect_refused(b, "SBPL_PARAMS record 1: reserved field is not zero");
	b = rich();
	/* A second working directory. */
	*P(b, 0, kind) = ART_SBPL_KIND_WORKDIR;
	*P(b, 0, mode) = ART_SBPL_MODE_WORKDIR;
	expect_refused(b, "a second WORKDIR parameter");
}

Test(artifact_sbpl, ranks)
{
	struct blob b = rich();
	size_t px;

	le_put32(P(b, 0, rank), 0);
	expect_refused(b, "SBPL_PARAMS record 0: rank 0 is outside 1..");
	b = rich();
	le_put32(P(b, 0, rank), count(b)); /* PROXY has none: count is one past */
	expect_refused(b, "is outside 1..");
	b = rich();
	le_put32(P(b, 1, rank), le_get32(P(b, 0, rank)));
	expect_refused(b, "SBPL_PARAMS record 1: duplicate rank 1");
	b = rich();
	px = of_kind(b, ART_SBPL_KIND_PROXY);
	le_put32(P(b, px, rank), 1);
	expect_refused(b, "a PROXY parameter has no rank");
	/* Two proxies. */
	b = rich();
	px = of_kind(b, ART_SBPL_KIND_PROXY);
	*P(b, 0, kind) = ART_SBPL_KIND_PROXY;
	*P(b, 0, mode) = 0;
	le_put32(P(b, 0, rank), 0);
	expect_refused(b, "PROXY parameter");
}

Test(artifact_sbpl, table_and_text_structure)
{
	struct blob b = rich();
	uint8_t *t = payload(b, ART_SEC_SBPL_PARAMS, NULL);
	size_t tsize;
	char *text;

	le_put32(t, le_get32(t) + 1);
	expect_refused(b, "SBPL_PARAMS: size");
	b = rich();
	t = payload(b, ART_SEC_SBPL_PARAMS, NULL);
	le_put32(t + 4, 16);
	expect_refused(b, "SBPL_PARAMS: record size 16 is smaller than 32");
	b = rich();
	t = payload(b, ART_SEC_SBPL_PARAMS, NULL);
	le_put32(t + 8, 1);
	expect_refused(b, "SBPL_PARAMS: nitems 1 is not 0");
	b = rich();
	t = payload(b, ART_SEC_SBPL_PARAMS, NULL);
	le_put32(t + 12, 1);
	expect_refused(b, "SBPL_PARAMS: reserved table field is not zero");
	b = rich();
	text = (char *)payload(b, ART_SEC_SBPL_TEXT, &tsize);
	text[tsize / 2] = '\0';
	expect_refused(b, "SBPL_TEXT: the profile holds a NUL byte");
	b = rich();
	le_put64(ENTRY(b, find(b, ART_SEC_SBPL_TEXT)) + offsetof(struct art_file_section, size), 0);
	expect_refused(b, "SBPL_TEXT: empty");
	b = rich();
	le_put32(ENTRY(b, find(b, ART_SEC_SBPL_PARAMS)) + 4, ART_SECF_CRITICAL);
	expect_refused(b, "wrong flags");
}

Test(artifact_sbpl, every_truncation_of_the_table_is_refused)
{
	struct blob b = rich();
	size_t full;

	payload(b, ART_SEC_SBPL_PARAMS, &full);
	free(b.data);
	for (size_t n = 0; n < full; n++) {
		struct art_view v;
		char err[256] = "";

		b = rich();
		le_put64(ENTRY(b, find(b, ART_SEC_SBPL_PARAMS)) + offsetof(struct art_file_section, size),
			 n);
		reseal(b);
		cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), -EINVAL,
			     "SBPL_PARAMS cut to %zu accepted", n);
		cr_assert(err[0]);
		free(b.data);
	}
}

Test(artifact_sbpl, presence)
{
	struct blob b = rich();
	unsigned t;
	struct art_view v;
	char err[256] = "";

	/* One without the other (the other retyped to an unknown,
	 * skippable type). */
	le_put32(ENTRY(b, find(b, ART_SEC_SBPL_PARAMS)), 1000);
	expect_refused(b, "section SBPL_TEXT is present without SBPL_PARAMS");
	b = rich();
	le_put32(ENTRY(b, find(b, ART_SEC_SBPL_TEXT)), 1000);
	expect_refused(b, "section SBPL_PARAMS is present without SBPL_TEXT");
	/* Both stripped from a 1.4 artifact built for macos. */
	b = rich();
	t = find(b, ART_SEC_SBPL_TEXT);
	le_put32(ENTRY(b, t), 1000);
	le_put32(ENTRY(b, t + 1), 1001);
	expect_refused(b, "missing section SBPL_TEXT (the policy is built for macos)");
	/* An artifact of format 1.3 predates them: valid, and the decoder
	 * says there is no macOS part (the macOS launcher refuses it). */
	b = rich();
	t = find(b, ART_SEC_SBPL_TEXT);
	le_put32(ENTRY(b, t), 1000);
	le_put32(ENTRY(b, t + 1), 1001);
	le_put16(b.data + offsetof(struct art_file_header, fmt_minor), 3);
	reseal(b);
	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.nskipped, 2);
	cr_assert_eq(sbpl_param_count(&v), 0);
	{
		struct sbpl_launch in = {0};
		struct sbpl_launch_params out;

		cr_assert_eq(sbpl_prepare(&v, &in, &out, err, sizeof(err)), -ENOENT);
	}
	free(b.data);
}

Test(artifact_sbpl, present_without_macos)
{
	struct blob b = rich();
	const uint8_t *sc = payload(b, ART_SEC_SCALARS, NULL);
	uint32_t rsize = le_get32(sc + 4);

	/* SCALARS record 1 is macOS's: mark it not built. */
	cr_assert_eq(le_get32(sc + sizeof(struct art_rec_table) + rsize), ART_MACOS);
	le_put32((uint8_t *)sc + sizeof(struct art_rec_table) + rsize + 4, 0);
	expect_refused(b, "SBPL_TEXT is present, but the policy is not built for macos");
}

Test(artifact_sbpl, the_loader_compares_with_a_rebuild)
{
	struct blob b = rich();
	size_t tsize;
	char *text = (char *)payload(b, ART_SEC_SBPL_TEXT, &tsize), *at;

	/* A rule's words changed: structurally fine, not what the policy
	 * makes. */
	at = strstr(text, "(deny default)");
	cr_assert_not_null(at);
	memcpy(at, "(allow defaul)", 14);
	expect_load_refused(b, "SBPL_TEXT does not match the policy the artifact carries");
	/* A parameter's path swapped for another's. */
	b = rich();
	le_put32(P(b, 0, value), le_get32(P(b, 1, value)));
	expect_load_refused(b, "SBPL_PARAMS does not match the policy the artifact carries");
	/* A rule made optional. */
	b = rich();
	*P(b, 0, optional) ^= 1;
	expect_load_refused(b, "SBPL_PARAMS does not match");
	/* Truncated text (a prefix is still a well-formed payload). */
	b = rich();
	le_put64(ENTRY(b, find(b, ART_SEC_SBPL_TEXT)) + offsetof(struct art_file_section, size),
		 tsize / 2);
	expect_load_refused(b, "SBPL_TEXT does not match");
}

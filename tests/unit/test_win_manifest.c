/* SPDX-License-Identifier: MIT
 * The Windows part of an artifact: heelc's writer, art_validate()'s
 * checks of WIN_CONTAINER and WIN_ACES, and win_manifest_from_view(),
 * the decoder heel-exec.exe links. Artifacts are compiled in-process from
 * policy text; each tampering case changes one field of a real artifact,
 * re-seals every checksum (so only the field's own check can catch it)
 * and expects the validator's message for that field. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl_build.h"
#include "acl_sid.h"
#include "artifact.h"
#include "artifact_load.h"
#include "artifact_read.h"
#include "artifact_write.h"
#include "crc32c.h"
#include "diag.h"
#include "sema.h"
#include "win_manifest.h"

struct blob {
	uint8_t *data;
	size_t len;
};

static struct ir_policy *
compile(const char *text, unsigned targets)
{
	struct diag_ctx *ctx = diag_new();
	struct sema_options o = {.path = "t.heel", .text = text, .len = strlen(text),
				 .platforms = targets, .target_explicit = targets != 0};
	struct ir_policy *ir = NULL;
	int rc = sema_compile(ctx, &o, &ir);

	if (rc)
		diag_render(ctx, stderr);
	diag_free(ctx);
	cr_assert_eq(rc, 0, "the policy does not compile");
	return ir;
}

static struct blob
build(const char *text, unsigned targets)
{
	struct ir_policy *ir = compile(text, targets);
	struct blob b;

	cr_assert_eq(artifact_write(ir, &b.data, &b.len), 0);
	ir_policy_free(ir);
	return b;
}

static const char rich[] = "heel 1\n"
			   "grant \"./build\" rw\n"
			   "nice 12\n"
			   "limit memory 512MiB\n"
			   "limit processes 64\n"
			   "network allow {\n    \"pypi.org\"\n}\n"
			   "on windows {\n"
			   "    grant \"C:/Tools/bin\" rx\n"
			   "    grant \"${USERPROFILE}/My Project\" rwx\n"
			   "    deny \"${USERPROFILE}/My Project/secret\"\n"
			   "    capability \"picturesLibrary\"\n"
			   "    capability \"lpacCom\"\n"
			   "}\n";

static const struct win_entry *
find(const struct win_manifest *m, const char *path, uint8_t ace)
{
	for (size_t i = 0; i < m->nentries; i++)
		if (strcmp(m->entries[i].path, path) == 0 && m->entries[i].ace == ace)
			return &m->entries[i];
	return NULL;
}

Test(win_manifest, decodes_what_heelc_wrote)
{
	struct blob b = build(rich, 0);
	struct art_view v;
	struct win_manifest m;
	const struct win_entry *e;
	char err[256] = "", sid[ACL_SID_SIZE];

	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.fmt_minor, 4);
	cr_assert_eq(win_manifest_from_view(&v, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(strncmp(m.name, "heel.p.", 7), 0);
	cr_assert_eq(strlen(m.name), 23);
	cr_assert_eq(acl_appcontainer_sid(m.name, sid, sizeof(sid)), 0);
	cr_assert_str_eq(m.sid, sid);
	cr_assert_eq(m.ncapabilities, 2);
	/* Sorted by name: lpacCom's derived SID, then picturesLibrary's. */
	cr_assert_eq(acl_capability_sid("lpacCom", sid, sizeof(sid)), 0);
	cr_assert_str_eq(m.capabilities[0], sid);
	cr_assert_str_eq(m.capabilities[1], "S-1-15-3-4");
	cr_assert(m.loopback_required);
	cr_assert_not(m.lpac);
	cr_assert_eq(m.priority_class, WIN_PRIO_IDLE);
	cr_assert_eq(m.job_memory_bytes, 512ull << 20);
	cr_assert_eq(m.process_memory_bytes, 0);
	cr_assert_eq(m.active_processes, 64);
	cr_assert_eq(m.cpu_rate_percent, 0);

	e = find(&m, "${WORKDIR}", WIN_ACE_ALLOW);
	cr_assert_not_null(e);
	cr_assert_eq(e->mask, 0x1301dfu);
	cr_assert_eq(e->label, WIN_LABEL_LOW);
	cr_assert_eq(e->kind, WIN_KIND_DIRECTORY);
	e = find(&m, "${CWD}\\build", WIN_ACE_ALLOW);
	cr_assert_not_null(e, "a relative grant is one under ${CWD}");
	cr_assert_eq(e->mask, 0x1301dfu);
	cr_assert_str_eq(e->origin_file, "t.heel");
	cr_assert_eq(e->origin_line, 2);
	e = find(&m, "C:\\Tools\\bin", WIN_ACE_ALLOW);
	cr_assert_not_null(e);
	cr_assert_eq(e->mask, 0x1200a9u);
	cr_assert_eq(e->label, WIN_LABEL_NONE);
	cr_assert_eq(e->inherit, WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER);
	cr_assert_eq(e->missing, WIN_MISSING_ERROR);
	cr_assert_not(e->parent_deny_delete_child);
	e = find(&m, "${USERPROFILE}\\My Project", WIN_ACE_ALLOW);
	cr_assert_not_null(e);
	cr_assert_eq(e->mask, 0x1301ffu);
	e = find(&m, "${USERPROFILE}\\My Project\\secret", WIN_ACE_DENY);
	cr_assert_not_null(e);
	cr_assert_eq(e->mask, 0x1017fu);
	cr_assert_eq(e->missing, WIN_MISSING_SKIP);
	cr_assert(e->parent_deny_delete_child);
	/* Protection sets are listed, e.g. credentials' ~/.ssh. */
	cr_assert_not_null(find(&m, "${USERPROFILE}\\.ssh", WIN_ACE_DENY));
	/* In application order: sorted by path, so a parent comes first. */
	for (size_t i = 1; i < m.nentries; i++)
		cr_assert_leq(strcmp(m.entries[i - 1].path, m.entries[i].path), 0);
	win_manifest_free(&m);
	cr_assert_null(m.entries);
	free(b.data);
}

/* The decoder gives back exactly the model heelc stored, for every stock
 * policy that builds for windows. */
Test(win_manifest, equals_the_model_for_stock_policies)
{
	static const char *const texts[] = {
	    "heel 1\nisolation strict\n",
	    "heel 1\nisolation default\ninclude <python>\ninclude <node>\ninclude <git>\n"
	    "include <rust>\n",
	    "heel 1\nunprotect host-run\nnetwork deny\n",
	    rich,
	};

	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		struct ir_policy *ir = compile(texts[t], 0);
		struct acl_manifest *a = NULL;
		struct blob b;
		struct art_view v;
		struct win_manifest m;
		char err[256] = "";

		cr_assert_eq(acl_build(ir, &a), 0);
		cr_assert_eq(artifact_write(ir, &b.data, &b.len), 0);
		cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(win_manifest_from_view(&v, &m, err, sizeof(err)), 0, "%s", err);
		cr_assert_str_eq(m.name, a->m.name);
		cr_assert_str_eq(m.sid, a->m.sid);
		cr_assert_eq(m.ncapabilities, a->m.ncapabilities);
		for (size_t i = 0; i < m.ncapabilities; i++)
			cr_assert_str_eq(m.capabilities[i], a->m.capabilities[i]);
		cr_assert_eq(m.loopback_required, a->m.loopback_required);
		cr_assert_eq(m.priority_class, a->m.priority_class);
		cr_assert_eq(m.job_memory_bytes, a->m.job_memory_bytes);
		cr_assert_eq(m.active_processes, a->m.active_processes);
		cr_assert_eq(m.nentries, a->m.nentries);
		for (size_t i = 0; i < m.nentries; i++) {
			const struct win_entry *x = &m.entries[i], *y = &a->m.entries[i];

			cr_assert_str_eq(x->path, y->path);
			cr_assert_eq(x->mask, y->mask);
			cr_assert_neq(x->mask, 0);
			cr_assert_eq(x->ace, y->ace);
			cr_assert_eq(x->kind, y->kind);
			cr_assert_eq(x->inherit, y->inherit);
			cr_assert_eq(x->label, y->label);
			cr_assert_eq(x->missing, y->missing);
			cr_assert_eq(x->parent_deny_delete_child, y->parent_deny_delete_child);
			cr_assert_eq(x->origin_line, y->origin_line);
			if (y->origin_file)
				cr_assert_str_eq(x->origin_file, y->origin_file);
			/* Only writable allows carry the Low label. */
			cr_assert_eq(x->label == WIN_LABEL_LOW,
				     x->ace == WIN_ACE_ALLOW && (x->mask & WIN_FILE_WRITE_DATA));
		}
		win_manifest_free(&m);
		acl_manifest_free(a);
		ir_policy_free(ir);
		free(b.data);
	}
}

Test(win_manifest, absent_without_windows)
{
	struct blob b = build(rich, IR_PLAT_BIT(IR_LINUX));
	struct art_view v;
	struct win_manifest m;
	char err[256] = "";

	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_null(v.sec[ART_SEC_WIN_CONTAINER].data);
	cr_assert_eq(win_manifest_from_view(&v, &m, err, sizeof(err)), -ENOENT);
	cr_assert_str_eq(err, "the policy is not built for windows");
	free(b.data);
}

/* ---------------------------------------------------------------- tampering */

static uint8_t *
entry_of(struct blob *b, uint32_t type)
{
	unsigned n = le_get16(b->data + offsetof(struct art_file_header, section_count));
	uint64_t toff = le_get64(b->data + offsetof(struct art_file_header, section_table_off));

	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = b->data + toff + (size_t)i * ART_SECTION_ENTRY_SIZE;

		if (le_get32(e) == type)
			return e;
	}
	cr_assert_fail("no section of type %u", type);
	return NULL;
}

static uint8_t *
payload(struct blob *b, uint32_t type)
{
	return b->data + le_get64(entry_of(b, type) + offsetof(struct art_file_section, offset));
}

/* Every checksum again, so that only the field's own check can refuse. */
static void
reseal(struct blob *b)
{
	unsigned n = le_get16(b->data + offsetof(struct art_file_header, section_count));
	uint64_t toff = le_get64(b->data + offsetof(struct art_file_header, section_table_off));

	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = b->data + toff + (size_t)i * ART_SECTION_ENTRY_SIZE;
		uint64_t off = le_get64(e + offsetof(struct art_file_section, offset));
		uint64_t size = le_get64(e + offsetof(struct art_file_section, size));

		le_put32(e + offsetof(struct art_file_section, crc),
			 crc32c_buf(b->data + off, (size_t)size));
	}
	le_put32(b->data + offsetof(struct art_file_header, body_crc),
		 crc32c_buf(b->data + ART_HEADER_SIZE, b->len - ART_HEADER_SIZE));
	le_put32(b->data + offsetof(struct art_file_header, header_crc),
		 art_header_crc(b->data, ART_HEADER_SIZE));
}

/* The container record and the first and the workdir/deny ACE records. */
#define BOX(b) (payload(&(b), ART_SEC_WIN_CONTAINER) + sizeof(struct art_rec_table))
#define CAPS(b) (BOX(b) + sizeof(struct art_rec_win_container))
#define ACE(b, i)                                                                                  \
	(payload(&(b), ART_SEC_WIN_ACES) + sizeof(struct art_rec_table) +                          \
	 (size_t)(i) * sizeof(struct art_rec_win_ace))

/* Index of the first ACE entry of type `ace`. */
static size_t
first_ace(struct blob *b, uint8_t ace)
{
	uint32_t n = le_get32(payload(b, ART_SEC_WIN_ACES));

	for (size_t i = 0; i < n; i++)
		if (ACE(*b, i)[offsetof(struct art_rec_win_ace, ace)] == ace)
			return i;
	cr_assert_fail("no entry of type %u", ace);
	return 0;
}

/* The offset in STRTAB of string s (it must be there). */
static uint32_t
strtab_off(struct blob *b, const char *s)
{
	const uint8_t *t = payload(b, ART_SEC_STRTAB);
	uint64_t size = le_get64(entry_of(b, ART_SEC_STRTAB) + offsetof(struct art_file_section, size));

	for (uint32_t o = 0; o < size; o += (uint32_t)strlen((const char *)t + o) + 1)
		if (strcmp((const char *)t + o, s) == 0)
			return o;
	cr_assert_fail("no string %s", s);
	return 0;
}

#define TAMPER(want, ...)                                                                          \
	do {                                                                                       \
		struct blob b = build(rich, 0);                                                    \
		struct art_view v;                                                                 \
		char err[256] = "";                                                                \
		size_t allow = first_ace(&b, WIN_ACE_ALLOW), deny = first_ace(&b, WIN_ACE_DENY);    \
		(void)allow;                                                                       \
		(void)deny;                                                                        \
		cr_assert_eq(art_validate(b.data, b.len, &v, NULL, 0), 0);                         \
		__VA_ARGS__;                                                                       \
		reseal(&b);                                                                        \
		cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), -EINVAL,           \
			     "accepted: %s", want);                                                \
		cr_assert(strstr(err, want), "expected \"%s\", got \"%s\"", want, err);            \
		free(b.data);                                                                      \
	} while (0)

#define BOXF(f) (BOX(b) + offsetof(struct art_rec_win_container, f))
#define ACEF(i, f) (ACE(b, i) + offsetof(struct art_rec_win_ace, f))

Test(win_manifest_refuse, container_fields)
{
	TAMPER("WIN_CONTAINER record 0: name string offset", le_put32(BOXF(name), 0x7fffff));
	TAMPER("WIN_CONTAINER record 0: name string is missing", le_put32(BOXF(name), ART_STR_NONE));
	TAMPER("is not a container name", le_put32(BOXF(name), strtab_off(&b, "t.heel")));
	TAMPER("WIN_CONTAINER record 0: SID string is missing", le_put32(BOXF(sid), ART_STR_NONE));
	TAMPER("is not an AppContainer SID", le_put32(BOXF(sid), le_get32(BOXF(name))));
	TAMPER("is not an AppContainer SID", le_put32(BOXF(sid), strtab_off(&b, "S-1-15-3-4")));
	TAMPER("unknown flags 0x6", le_put32(BOXF(flags), 0x6));
	TAMPER("invalid priority class 3", *BOXF(priority_class) = 3);
	TAMPER("WIN_CONTAINER: reserved field is not zero", BOXF(reserved)[2] = 1);
	TAMPER("CPU rate 101% is more than 100%", le_put32(BOXF(cpu_rate_percent), 101));
	TAMPER("WIN_CONTAINER record 1: capability string offset", le_put32(CAPS(b) + 4, 0x7fffff));
	TAMPER("is not a capability SID", le_put32(CAPS(b), le_get32(BOXF(sid))));
	TAMPER("is not a capability SID", le_put32(CAPS(b), strtab_off(&b, "t.heel")));
	TAMPER("listed twice", le_put32(CAPS(b) + 4, le_get32(CAPS(b))));
	/* No record: the 40 bytes read as ten more items. */
	TAMPER("WIN_CONTAINER: 0 records, expected 1",
	       le_put32(payload(&b, ART_SEC_WIN_CONTAINER), 0);
	       le_put32(payload(&b, ART_SEC_WIN_CONTAINER) + 8, 12));
	TAMPER("WIN_CONTAINER: reserved table field is not zero",
	       le_put32(payload(&b, ART_SEC_WIN_CONTAINER) + 12, 1));
}

/* SID text tampered in place: each shape rule. */
Test(win_manifest_refuse, sid_text)
{
	static const struct {
		size_t at;
		char c;
	} cases[] = {
	    {0, 's'},  /* lower-case S */
	    {8, '3'},  /* S-1-15-3-: a capability, not a container */
	    {9, '0'},  /* a leading zero */
	    {9, 'x'},  /* not a digit */
	    {9, '-'},  /* an empty number */
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		TAMPER("is not an AppContainer SID", {
			char *s = (char *)payload(&b, ART_SEC_STRTAB) + le_get32(BOXF(sid));

			cr_assert_eq(strncmp(s, "S-1-15-2-", 9), 0);
			if (cases[k].at == 9 && cases[k].c == '0' && s[9] == '0')
				s[10] = '1';
			s[cases[k].at] = cases[k].c;
		});
	}
	/* A number above 2^32-1, and a missing eighth one. */
	TAMPER("is not an AppContainer SID", {
		char *s = (char *)payload(&b, ART_SEC_STRTAB) + le_get32(BOXF(sid));
		char *longest = NULL;
		size_t most = 0;

		/* The longest of the eight numbers: all nines is above 2^32-1
		 * only with ten digits (one that is shorter stays in range). */
		for (char *p = s + 9; p; p = strchr(p, '-') ? strchr(p, '-') + 1 : NULL)
			if (strcspn(p, "-") > most) {
				longest = p;
				most = strcspn(p, "-");
			}
		cr_assert_eq(most, 10, "no ten-digit number in %s", s);
		memset(longest, '9', most);
	});
	TAMPER("is not an AppContainer SID", {
		char *s = (char *)payload(&b, ART_SEC_STRTAB) + le_get32(BOXF(sid));

		*strrchr(s, '-') = '\0';
	});
}

Test(win_manifest_refuse, ace_fields)
{
	TAMPER("WIN_ACES record 0: path string is missing", le_put32(ACEF(0, path), ART_STR_NONE));
	TAMPER("WIN_ACES record 0: path string offset", le_put32(ACEF(0, path), 0x7fffff));
	TAMPER("is not an absolute path template", le_put32(ACEF(0, path), strtab_off(&b, "t.heel")));
	TAMPER("is not an absolute path template", le_put32(ACEF(0, path), strtab_off(&b, "")));
	TAMPER("access mask is 0", le_put32(ACEF(allow, mask), 0));
	TAMPER("has bits outside", le_put32(ACEF(allow, mask), 0x1301ffu | WIN_WRITE_DAC));
	TAMPER("has bits outside", le_put32(ACEF(allow, mask), 0x1301ffu | WIN_WRITE_OWNER));
	TAMPER("has bits outside", le_put32(ACEF(allow, mask), 0x10000000u));
	TAMPER("invalid ACE type 2", *ACEF(allow, ace) = 2);
	TAMPER("invalid path kind 3", *ACEF(allow, kind) = 3);
	TAMPER("unknown inheritance flags 0x13", *ACEF(allow, inherit) = 0x13);
	TAMPER("inherit nothing", *ACEF(allow, inherit) = WIN_INHERIT_ONLY);
	TAMPER("inherit nothing", *ACEF(allow, inherit) = WIN_INHERIT_NO_PROPAGATE);
	TAMPER("invalid label 2", *ACEF(allow, label) = 2);
	TAMPER("invalid missing action 2", *ACEF(allow, missing) = 2);
	TAMPER("parent_deny_delete_child is 2", *ACEF(deny, parent_deny_delete_child) = 2);
	TAMPER("an allow denies DELETE_CHILD on its parent",
	       *ACEF(allow, parent_deny_delete_child) = 1);
	TAMPER("a deny takes SYNCHRONIZE", le_put32(ACEF(deny, mask), 0x1017fu | WIN_SYNCHRONIZE));
	TAMPER("a deny takes SYNCHRONIZE", le_put32(ACEF(deny, mask), 0x1017fu | WIN_READ_CONTROL));
	TAMPER("a deny carries a label", *ACEF(deny, label) = WIN_LABEL_LOW);
	TAMPER("WIN_ACES record 0: reserved field is not zero", ACEF(0, reserved)[1] = 1);
	TAMPER("WIN_ACES record 0: reserved field is not zero", le_put32(ACEF(0, reserved2), 1));
	TAMPER("WIN_ACES record 0: origin file string offset",
	       le_put32(ACEF(0, origin) + offsetof(struct art_rec_origin, file), 0x7fffff));
	TAMPER("WIN_ACES: unexpected trailing items",
	       le_put32(payload(&b, ART_SEC_WIN_ACES) + 8, 1));
	TAMPER("WIN_ACES: record size 8 is smaller than 32",
	       le_put32(payload(&b, ART_SEC_WIN_ACES) + 4, 8));
}

/* Path templates, tampered in STRTAB: each rule of win_path_shape. */
Test(win_manifest_refuse, path_text)
{
	static const char *const bad[] = {"C:", "C:x", "1:\\x", "${}\\x", "${home}\\x",
					  "${HOME", "${HOME}x", "C:\\a\\..\\b", "C:\\a\\.\\b",
					  "C:\\a\\\\b", "C:\\a\\", "\\\\server\\share", "/usr"};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		TAMPER("is not an absolute path template", {
			/* Overwrite the longest path's text (room for every case). */
			uint32_t n = le_get32(payload(&b, ART_SEC_WIN_ACES));
			size_t best = 0;
			char *s;

			for (size_t i = 1; i < n; i++)
				if (strlen((char *)payload(&b, ART_SEC_STRTAB) +
					   le_get32(ACEF(i, path))) >
				    strlen((char *)payload(&b, ART_SEC_STRTAB) +
					   le_get32(ACEF(best, path))))
					best = i;
			s = (char *)payload(&b, ART_SEC_STRTAB) + le_get32(ACEF(best, path));
			cr_assert_geq(strlen(s), strlen(bad[k]));
			memset(s, 'a', strlen(s));
			memcpy(s, bad[k], strlen(bad[k]));
			s[strlen(bad[k])] = '\0';
		});
	}
}

Test(win_manifest_refuse, presence_and_flags)
{
	TAMPER("section WIN_CONTAINER without WIN_ACES", le_put32(entry_of(&b, ART_SEC_WIN_ACES), 4242));
	TAMPER("section WIN_ACES without WIN_CONTAINER",
	       le_put32(entry_of(&b, ART_SEC_WIN_CONTAINER), 4242));
	TAMPER("missing section WIN_CONTAINER (the policy is built for windows)", {
		le_put32(entry_of(&b, ART_SEC_WIN_ACES), 4242);
		le_put32(entry_of(&b, ART_SEC_WIN_CONTAINER), 4243);
	});
	TAMPER("(WIN_ACES): wrong flags 0x1",
	       le_put32(entry_of(&b, ART_SEC_WIN_ACES) + offsetof(struct art_file_section, flags),
			ART_SECF_CRITICAL));
	TAMPER("(WIN_CONTAINER): wrong flags 0x2",
	       le_put32(entry_of(&b, ART_SEC_WIN_CONTAINER) +
			    offsetof(struct art_file_section, flags),
			ART_SECF_PER_ARCH));
	/* The scalars say windows is not built: the Windows part must go. */
	TAMPER("section WIN_CONTAINER is present, but the policy is not built for windows", {
		uint8_t *sc = payload(&b, ART_SEC_SCALARS);
		uint32_t rsize = le_get32(sc + 4);

		le_put32(sc + sizeof(struct art_rec_table) + 2 * rsize +
			     offsetof(struct art_rec_scalars, enabled),
			 0);
	});
}

/* A 1.3 artifact (an older heelc) has no Windows part: still valid, and
 * the decoder says why heel-exec.exe cannot use it. */
Test(win_manifest, older_artifact_has_no_windows_part)
{
	struct blob b = build(rich, 0);
	struct art_view v;
	struct win_manifest m;
	char err[256] = "";

	le_put32(entry_of(&b, ART_SEC_WIN_ACES), 4242);
	le_put32(entry_of(&b, ART_SEC_WIN_CONTAINER), 4243);
	le_put16(b.data + offsetof(struct art_file_header, fmt_minor), 3);
	reseal(&b);
	cr_assert_eq(art_validate(b.data, b.len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.nskipped, 2);
	cr_assert_eq(win_manifest_from_view(&v, &m, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "older than format 1.4"), "%s", err);
	free(b.data);
}

/* A Linux launcher of 1.3 skips the Windows part: both sections are
 * non-critical, so heelc's artifact stays readable there. */
Test(win_manifest, sections_are_not_critical)
{
	struct blob b = build(rich, 0);

	cr_assert_eq(le_get32(entry_of(&b, ART_SEC_WIN_CONTAINER) +
			      offsetof(struct art_file_section, flags)),
		     0);
	cr_assert_eq(le_get32(entry_of(&b, ART_SEC_WIN_ACES) +
			      offsetof(struct art_file_section, flags)),
		     0);
	free(b.data);
}

/* A Windows part that validates but is not what the policy compiles to
 * (an rx grant turned into rwx, re-sealed): heel-exec.exe would apply it,
 * so heelc's loader refuses it rather than explain another policy. */
Test(win_manifest, loader_refuses_a_part_the_policy_does_not_make)
{
	struct blob b = build(rich, 0);
	struct ir_policy *ir = NULL;
	char err[256] = "";
	size_t i = first_ace(&b, WIN_ACE_ALLOW);

	cr_assert_eq(artifact_load(b.data, b.len, &ir, err, sizeof(err)), 0, "%s", err);
	ir_policy_free(ir);
	le_put32(ACE(b, i) + offsetof(struct art_rec_win_ace, mask), 0x1301ffu);
	*(ACE(b, i) + offsetof(struct art_rec_win_ace, label)) = WIN_LABEL_LOW;
	reseal(&b);
	cr_assert_eq(art_validate(b.data, b.len, &(struct art_view){0}, NULL, 0), 0);
	cr_assert_eq(artifact_load(b.data, b.len, &ir, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "the Windows part (WIN_CONTAINER, WIN_ACES) does not match the "
			      "policy the artifact carries");
	free(b.data);
}

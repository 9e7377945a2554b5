/* SPDX-License-Identifier: MIT
 * Tests of the .hpol artifact: writer, reader/validator, accessors, IR
 * reload, the Linux sections (Landlock table, seccomp programs) and the
 * file checks. Every refusal asserts its own message, so a
 * check that silently moves behind another one is caught. Self-contained:
 * `make check-asan` builds it again under ASan+UBSan, where every buffer
 * handed to the validator is a heap copy of exactly its length. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "artifact_load.h"
#include "artifact_read.h"
#include "artifact_source.h"
#include "artifact_write.h"
#include "crc32c.h"
#include "ir.h"
#include "landlock_lower.h"
#include "landlock_table.h"
#include "seccomp_bpf.h"

/* ------------------------------------------------------------ building IR */

static char *
xs(const char *s)
{
	char *d = strdup(s);

	cr_assert_not_null(d);
	return d;
}

static struct ir_origin
org(struct ir_policy *p, const char *file, uint32_t line, uint32_t col)
{
	struct ir_origin o = {.file = file ? ir_intern(p, file) : NULL, .line = line, .col = col};

	return o;
}

static char **
strv(size_t n, const char *const *v)
{
	char **out = calloc(n, sizeof(*out));

	cr_assert_not_null(out);
	for (size_t i = 0; i < n; i++)
		out[i] = xs(v[i]);
	return out;
}

/* A policy that uses every field of the IR, with values on every platform
 * that differ, so a field written into the wrong slot is noticed. */
static struct ir_policy *
rich_policy(void)
{
	struct ir_policy *p = ir_policy_new();
	static const char *const args[] = {"query", "q", "json-out"};
	static const char *const pkgs[] = {"numpy", "requests==2.31"};

	cr_assert_not_null(p);
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		struct ir_scalars *sc = &p->scalar[i];

		sc->isolation.value = i; /* strict, default, permissive */
		sc->isolation.origin = org(p, "policy.heel", 1, 1);
		sc->network.value = i == IR_LINUX ? IR_NET_ALLOW_LIST : IR_NET_DENY;
		sc->network.origin = org(p, "policy.heel", 5, 3);
		sc->limits[IR_LIMIT_MEMORY] =
		    (struct ir_u64){true, 1ull << 30, org(p, "policy.heel", 9, 5)};
		sc->limits[IR_LIMIT_CPU] = (struct ir_u64){true, 60 + i, org(p, "<default>", 2, 1)};
		sc->limits[IR_LIMIT_CORE] = (struct ir_u64){true, 0, org(p, "policy.heel", 10, 5)};
		sc->limits[IR_LIMIT_OPEN_FILES] =
		    (struct ir_u64){true, UINT64_MAX, org(p, NULL, 0, 0)};
		sc->protections = (struct ir_u64){true, 0xff >> i, org(p, "<default>", 3, 1)};
	}
	p->scalar[IR_LINUX].allow_private = (struct ir_u64){true, 1, org(p, "policy.heel", 6, 3)};
	p->scalar[IR_LINUX].audit_kind =
	    (struct ir_u64){true, IR_AUDIT_DAILY, org(p, "policy.heel", 7, 3)};
	p->scalar[IR_LINUX].audit_path.value = xs("${HOME}/.cache/heel/audit");
	p->scalar[IR_LINUX].audit_path.origin = org(p, "policy.heel", 7, 9);
	p->scalar[IR_LINUX].unix_sockets = (struct ir_u64){true, 1, org(p, "policy.heel", 20, 5)};
	p->scalar[IR_MACOS].nice = (struct ir_u64){true, 10, org(p, "policy.heel", 11, 1)};
	p->scalar[IR_MACOS].io_priority =
	    (struct ir_u64){true, IR_IO_BACKGROUND, org(p, "policy.heel", 12, 1)};
	p->scalar[IR_MACOS].gpu = (struct ir_u64){true, 1, org(p, "policy.heel", 13, 1)};
	p->scalar[IR_WINDOWS].workdir.value = xs("C:/work/tmp");
	p->scalar[IR_WINDOWS].workdir.origin = org(p, "policy.heel", 14, 1);

	p->platforms = IR_PLAT_BIT(IR_LINUX) | IR_PLAT_BIT(IR_MACOS);
	p->excluded_reason[IR_WINDOWS] = xs("permissive isolation has no windows equivalent");

	p->npaths = 5;
	p->paths = calloc(p->npaths, sizeof(*p->paths));
	cr_assert_not_null(p->paths);
	p->paths[0] = (struct ir_path_rule){xs("${HOME}/.ssh"),
					    IR_MODE_DENY,
					    IR_PLAT_ALL,
					    true,
					    IR_SET_CREDENTIALS,
					    IR_SRC_PROTECTION,
					    org(p, "<default>", 30, 3)};
	p->paths[1] = (struct ir_path_rule){xs("/tmp/shared-dedup"),
					    IR_MODE_RW,
					    IR_PLAT_BIT(IR_LINUX),
					    false,
					    IR_SET_NONE,
					    IR_SRC_USER,
					    org(p, "policy.heel", 15, 1)};
	p->paths[2] = (struct ir_path_rule){xs("/tmp/shared-dedup"),
					    IR_MODE_R,
					    IR_PLAT_BIT(IR_MACOS),
					    true,
					    IR_SET_NONE,
					    IR_SRC_USER,
					    org(p, "policy.heel", 16, 1)};
	p->paths[3] = (struct ir_path_rule){xs("/usr"),
					    IR_MODE_RX,
					    IR_PLAT_ALL,
					    false,
					    IR_SET_NONE,
					    IR_SRC_BASE,
					    org(p, "<default>", 4, 1)};
	p->paths[4] = (struct ir_path_rule){xs("venv"),
					    IR_MODE_RWX,
					    IR_PLAT_ALL,
					    false,
					    IR_SET_NONE,
					    IR_SRC_PRESET,
					    org(p, "<python>", 8, 2)};

	p->npatterns = 2;
	p->patterns = calloc(2, sizeof(*p->patterns));
	cr_assert_not_null(p->patterns);
	p->patterns[0] =
	    (struct ir_net_pattern){xs("*.pypi.org"), 443, IR_PLAT_ALL, org(p, "<python>", 12, 1)};
	p->patterns[1] = (struct ir_net_pattern){xs("::1"), 0, IR_PLAT_BIT(IR_LINUX),
						 org(p, "policy.heel", 17, 1)};

	p->nenv_pass = 2;
	p->env_pass = calloc(2, sizeof(*p->env_pass));
	cr_assert_not_null(p->env_pass);
	p->env_pass[0] = (struct ir_env_pass){xs("PATH"), IR_PLAT_ALL, org(p, "<default>", 5, 1)};
	p->env_pass[1] =
	    (struct ir_env_pass){xs("TERM"), IR_PLAT_BIT(IR_MACOS), org(p, "policy.heel", 18, 1)};
	p->nenv_set = 2;
	p->env_set = calloc(2, sizeof(*p->env_set));
	cr_assert_not_null(p->env_set);
	p->env_set[0] = (struct ir_env_set){xs("PYTHONDONTWRITEBYTECODE"), xs("1"), IR_PLAT_ALL,
					    org(p, "<python>", 3, 1)};
	p->env_set[1] = (struct ir_env_set){xs("EMPTY"), xs(""), IR_PLAT_BIT(IR_WINDOWS),
					    org(p, "policy.heel", 19, 1)};

	p->nipc = 2;
	p->ipc = calloc(2, sizeof(*p->ipc));
	cr_assert_not_null(p->ipc);
	p->ipc[0] =
	    (struct ir_ipc){xs("web_search"), xs("/usr/local/bin/search"), strv(3, args), 3, 30000,
			    IR_PLAT_ALL,      org(p, "policy.heel", 21, 1), NULL, 0};
	p->ipc[1] = (struct ir_ipc){
	    xs("notify"), NULL, NULL, 0, 0, IR_PLAT_BIT(IR_LINUX), org(p, "policy.heel", 25, 1),
	    NULL, 0};


	p->python[IR_LINUX] = (struct ir_python){true, xs(".venv"), strv(2, pkgs),
						 2,    true,	    org(p, "policy.heel", 27, 1)};
	p->python[IR_MACOS] =
	    (struct ir_python){true, NULL, NULL, 0, false, org(p, "policy.heel", 28, 1)};

	p->nseccomp = 2;
	p->seccomp = calloc(2, sizeof(*p->seccomp));
	cr_assert_not_null(p->seccomp);
	p->seccomp[0] = (struct ir_seccomp_rule){xs("ptrace"), IR_SECCOMP_DENY, 1,
						 org(p, "policy.heel", 31, 3)};
	p->seccomp[1] = (struct ir_seccomp_rule){xs("personality"), IR_SECCOMP_ALLOW, 0,
						 org(p, "policy.heel", 32, 3)};
	p->nmach_lookups = 1;
	p->mach_lookups = calloc(1, sizeof(*p->mach_lookups));
	cr_assert_not_null(p->mach_lookups);
	p->mach_lookups[0] = (struct ir_named){xs("com.apple.coreservices.launchservicesd"),
					       org(p, "policy.heel", 34, 3)};
	p->nsbpl = 1;
	p->sbpl = calloc(1, sizeof(*p->sbpl));
	cr_assert_not_null(p->sbpl);
	p->sbpl[0] = (struct ir_named){xs("(allow iokit-open)"), org(p, "policy.heel", 35, 3)};
	p->ncapabilities = 2;
	p->capabilities = calloc(2, sizeof(*p->capabilities));
	cr_assert_not_null(p->capabilities);
	p->capabilities[0] = (struct ir_named){xs("internetClient"), org(p, "policy.heel", 37, 3)};
	p->capabilities[1] =
	    (struct ir_named){xs("privateNetworkClientServer"), org(p, "policy.heel", 38, 3)};

	for (int i = 0; i < 32; i++)
		p->source_digest[i] = (uint8_t)(0xa0 + i);
	p->source_name = "policy.heel";
	p->source_size = 1234;
	p->source_crc = 0xdeadbeef;
	return p;
}

/* rich_policy() with a `network decide` program on linux (two arguments,
 * one of them empty) and one on macos (none), whose network is opened
 * for it; windows has none. */
static struct ir_policy *
decider_policy(void)
{
	struct ir_policy *p = rich_policy();
	static const char *const args[] = {"--verdicts", ""};

	p->scalar[IR_MACOS].network =
	    (struct ir_u64){true, IR_NET_ALLOW_ALL, org(p, "policy.heel", 40, 3)};
	p->decider[IR_LINUX] = (struct ir_decider){xs("${HOME}/bin/net-decider"), strv(2, args), 2,
						   org(p, "policy.heel", 41, 1)};
	p->decider[IR_MACOS] =
	    (struct ir_decider){xs("/usr/local/bin/decide"), NULL, 0, org(p, "<python>", 44, 5)};
	return p;
}

/* ------------------------------------------------------------ helpers */

struct blob {
	uint8_t *data;
	size_t len;
};

static struct blob
write_policy(const struct ir_policy *p)
{
	struct blob b;
	int rc = artifact_write(p, &b.data, &b.len);

	cr_assert_eq(rc, 0, "artifact_write: %d", rc);
	cr_assert_not_null(b.data);
	return b;
}

static struct blob
write_rich(void)
{
	struct ir_policy *p = rich_policy();
	struct blob b = write_policy(p);

	ir_policy_free(p);
	return b;
}

static uint8_t *
copy_exact(const uint8_t *buf, size_t len)
{
	/* Exactly len bytes, so ASan reports the validator reading one byte
	 * past the end. malloc(0) may return NULL: give one byte then. */
	uint8_t *c = malloc(len ? len : 1);

	cr_assert_not_null(c);
	if (len)
		memcpy(c, buf, len);
	return c;
}

static void
expect_valid(const uint8_t *buf, size_t len, struct art_view *view)
{
	char err[256] = "";
	int rc = art_validate(buf, len, view, err, sizeof(err));

	cr_assert_eq(rc, 0, "art_validate refused: %s", err);
}

/* Both the validator and the loader must refuse, with `msg` in the text. */
static void
expect_refused(const uint8_t *buf, size_t len, const char *msg)
{
	uint8_t *c = copy_exact(buf, len);
	struct ir_policy *p = (struct ir_policy *)1;
	struct art_view view;
	char err[256] = "";
	int rc;

	rc = art_validate(c, len, &view, err, sizeof(err));
	cr_assert_eq(rc, -EINVAL, "expected a refusal (\"%s\"), got %d", msg, rc);
	cr_assert_not_null(strstr(err, msg), "expected \"%s\" in \"%s\"", msg, err);
	cr_assert_null(view.buf, "a refused view must be empty");
	err[0] = 0;
	rc = artifact_load(c, len, &p, err, sizeof(err));
	cr_assert_eq(rc, -EINVAL);
	cr_assert_null(p);
	cr_assert_not_null(strstr(err, msg), "loader: expected \"%s\" in \"%s\"", msg, err);
	free(c);
}

#define ENTRY(b, i) ((b) + ART_HEADER_SIZE + (size_t)(i)*ART_SECTION_ENTRY_SIZE)
/* Section indexes in the writer's table: the common sections (I_COUNT of
 * them), then, for a policy built for linux, the Linux ones (I_ALL). */
enum {
	I_STRTAB,
	I_SCALARS,
	I_PATHS,
	I_ENV,
	I_NETWORK,
	I_IPC,
	I_PYTHON,
	I_EXTRAS,
	I_META,
	I_COUNT,
	I_LANDLOCK = I_COUNT,
	I_BPF_X86_64,
	I_BPF_AARCH64,
	I_ALL
};

/* Recomputes the body and header checksums after a deliberate change, so
 * the check under test is reached rather than the checksum in front. */
static void
reseal(uint8_t *b, size_t len)
{
	le_put32(b + offsetof(struct art_file_header, body_crc),
		  crc32c_buf(b + ART_HEADER_SIZE, len - ART_HEADER_SIZE));
	le_put32(b + offsetof(struct art_file_header, header_crc),
		  art_header_crc(b, ART_HEADER_SIZE));
}

/* An artifact taken apart into sections, to be changed and put together
 * again with correct layout and checksums. */
struct tsec {
	uint32_t type, flags;
	uint8_t *data;
	size_t size;
};
struct tart {
	struct tsec s[ART_MAX_SECTIONS + 8];
	size_t n;
	uint16_t minor, hsize;
	uint32_t min_abi; /* header min_landlock_abi */
};

static void
explode(const struct blob *b, struct tart *t)
{
	memset(t, 0, sizeof(*t));
	t->minor = le_get16(b->data + offsetof(struct art_file_header, fmt_minor));
	t->hsize = le_get16(b->data + offsetof(struct art_file_header, header_size));
	t->min_abi = le_get32(b->data + offsetof(struct art_file_header, min_landlock_abi));
	t->n = le_get16(b->data + offsetof(struct art_file_header, section_count));
	for (size_t i = 0; i < t->n; i++) {
		const uint8_t *e = ENTRY(b->data, i);
		size_t off = le_get64(e + offsetof(struct art_file_section, offset));

		t->s[i].type = le_get32(e);
		t->s[i].flags = le_get32(e + offsetof(struct art_file_section, flags));
		t->s[i].size = le_get64(e + offsetof(struct art_file_section, size));
		t->s[i].data = copy_exact(b->data + off, t->s[i].size);
	}
}

static void
tart_add(struct tart *t, uint32_t type, uint32_t flags, const void *data, size_t size)
{
	cr_assert_lt(t->n, sizeof(t->s) / sizeof(t->s[0]));
	t->s[t->n] = (struct tsec){type, flags, copy_exact(data, size), size};
	t->n++;
}

static void
tart_remove(struct tart *t, size_t i)
{
	free(t->s[i].data);
	memmove(&t->s[i], &t->s[i + 1], (t->n - i - 1) * sizeof(t->s[0]));
	t->n--;
}

static void
tart_resize(struct tart *t, size_t i, size_t size)
{
	uint8_t *d = calloc(1, size ? size : 1);

	cr_assert_not_null(d);
	memcpy(d, t->s[i].data, size < t->s[i].size ? size : t->s[i].size);
	free(t->s[i].data);
	t->s[i].data = d;
	t->s[i].size = size;
}

static struct blob
assemble(const struct tart *t)
{
	size_t pos = t->hsize + t->n * ART_SECTION_ENTRY_SIZE, off[ART_MAX_SECTIONS + 8];
	struct blob b;

	for (size_t i = 0; i < t->n; i++) {
		off[i] = pos;
		pos = (pos + t->s[i].size + 7) & ~(size_t)7;
	}
	b.len = pos;
	b.data = calloc(1, pos);
	cr_assert_not_null(b.data);
	memcpy(b.data, ART_MAGIC, ART_MAGIC_LEN);
	le_put16(b.data + offsetof(struct art_file_header, fmt_major), 1);
	le_put16(b.data + offsetof(struct art_file_header, fmt_minor), t->minor);
	le_put16(b.data + offsetof(struct art_file_header, header_size), t->hsize);
	le_put16(b.data + offsetof(struct art_file_header, section_count), (uint16_t)t->n);
	le_put32(b.data + offsetof(struct art_file_header, min_landlock_abi), t->min_abi);
	le_put64(b.data + offsetof(struct art_file_header, file_size), pos);
	le_put64(b.data + offsetof(struct art_file_header, section_table_off), t->hsize);
	for (size_t i = 0; i < t->n; i++) {
		uint8_t *e = b.data + t->hsize + i * ART_SECTION_ENTRY_SIZE;

		le_put32(e, t->s[i].type);
		le_put32(e + offsetof(struct art_file_section, flags), t->s[i].flags);
		le_put64(e + offsetof(struct art_file_section, offset), off[i]);
		le_put64(e + offsetof(struct art_file_section, size), t->s[i].size);
		le_put32(e + offsetof(struct art_file_section, crc),
			  crc32c_buf(t->s[i].data, t->s[i].size));
		memcpy(b.data + off[i], t->s[i].data, t->s[i].size);
	}
	le_put32(b.data + offsetof(struct art_file_header, body_crc),
		  crc32c_buf(b.data + t->hsize, pos - t->hsize));
	le_put32(b.data + offsetof(struct art_file_header, header_crc),
		  art_header_crc(b.data, t->hsize));
	return b;
}

static void
tart_free(struct tart *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i].data);
	t->n = 0;
}

static size_t
find_sec(const struct tart *t, uint32_t type)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].type == type)
			return i;
	cr_assert_fail("section %u not found", type);
	return 0;
}

/* Record i of a table section of the exploded artifact. */
static uint8_t *
rec(struct tart *t, uint32_t type, size_t i)
{
	struct tsec *s = &t->s[find_sec(t, type)];
	uint32_t rsize = le_get32(s->data + offsetof(struct art_rec_table, record_size));

	return s->data + sizeof(struct art_rec_table) + i * rsize;
}

static uint8_t *
table(struct tart *t, uint32_t type)
{
	return t->s[find_sec(t, type)].data;
}

/* Offset of `s` in the string table of an exploded artifact. */
static uint32_t
strtab_find(struct tart *t, const char *s)
{
	struct tsec *st = &t->s[find_sec(t, ART_SEC_STRTAB)];

	for (size_t off = 0; off < st->size; off += strlen((char *)st->data + off) + 1)
		if (strcmp((char *)st->data + off, s) == 0)
			return (uint32_t)off;
	cr_assert_fail("string %s not in STRTAB", s);
	return 0;
}

/* Rich artifact, exploded, changed by the caller, reassembled: refused. */
#define MUTATE_AND_EXPECT(msg, ...)                                                                \
	do {                                                                                       \
		struct blob b_ = write_rich();                                                     \
		struct tart t_;                                                                    \
		struct blob m_;                                                                    \
		explode(&b_, &t_);                                                                 \
		{                                                                                  \
			struct tart *t = &t_;                                                      \
			(void)t;                                                                   \
			__VA_ARGS__;                                                               \
		}                                                                                  \
		m_ = assemble(&t_);                                                                \
		expect_refused(m_.data, m_.len, msg);                                              \
		free(m_.data);                                                                     \
		free(b_.data);                                                                     \
		tart_free(&t_);                                                                    \
	} while (0)

static void
assert_origin_eq(const struct ir_origin *a, const struct ir_origin *b)
{
	if (a->file || b->file) {
		cr_assert(a->file && b->file, "origin file %s vs %s", a->file ? a->file : "(null)",
			  b->file ? b->file : "(null)");
		cr_assert_str_eq(a->file, b->file);
	}
	cr_assert_eq(a->line, b->line);
	cr_assert_eq(a->col, b->col);
}

static void
assert_str_eq_null(const char *a, const char *b)
{
	if (!a || !b)
		cr_assert(a == b, "string %s vs %s", a ? a : "(null)", b ? b : "(null)");
	else
		cr_assert_str_eq(a, b);
}

static void
assert_u64_eq(const struct ir_u64 *a, const struct ir_u64 *b)
{
	cr_assert_eq(a->set, b->set);
	cr_assert_eq(a->value, b->value);
	assert_origin_eq(&a->origin, &b->origin);
}

static void
assert_named_eq(const struct ir_named *a, size_t na, const struct ir_named *b, size_t nb)
{
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_assert_str_eq(a[i].value, b[i].value);
		assert_origin_eq(&a[i].origin, &b[i].origin);
	}
}

/* Field by field: the loader must give back exactly what was written. */
static void
assert_policy_eq(const struct ir_policy *a, const struct ir_policy *b)
{
	cr_assert_eq(a->platforms, b->platforms);
	for (unsigned i = 0; i < IR_PLATFORM_COUNT; i++) {
		const struct ir_scalars *x = &a->scalar[i], *y = &b->scalar[i];

		assert_u64_eq(&x->isolation, &y->isolation);
		assert_u64_eq(&x->network, &y->network);
		assert_u64_eq(&x->allow_private, &y->allow_private);
		assert_u64_eq(&x->audit_kind, &y->audit_kind);
		assert_str_eq_null(x->audit_path.value, y->audit_path.value);
		assert_origin_eq(&x->audit_path.origin, &y->audit_path.origin);
		for (unsigned l = 0; l < IR_LIMIT_COUNT; l++)
			assert_u64_eq(&x->limits[l], &y->limits[l]);
		assert_u64_eq(&x->nice, &y->nice);
		assert_u64_eq(&x->io_priority, &y->io_priority);
		assert_u64_eq(&x->gpu, &y->gpu);
		assert_str_eq_null(x->workdir.value, y->workdir.value);
		assert_origin_eq(&x->workdir.origin, &y->workdir.origin);
		assert_u64_eq(&x->protections, &y->protections);
		assert_u64_eq(&x->unix_sockets, &y->unix_sockets);
		assert_str_eq_null(a->excluded_reason[i], b->excluded_reason[i]);

		cr_assert_eq(a->python[i].set, b->python[i].set);
		assert_str_eq_null(a->python[i].venv, b->python[i].venv);
		cr_assert_eq(a->python[i].allow_pip_install, b->python[i].allow_pip_install);
		cr_assert_eq(a->python[i].npackages, b->python[i].npackages);
		for (size_t j = 0; j < a->python[i].npackages; j++)
			cr_assert_str_eq(a->python[i].packages[j], b->python[i].packages[j]);
		assert_origin_eq(&a->python[i].origin, &b->python[i].origin);

		assert_str_eq_null(a->decider[i].program, b->decider[i].program);
		cr_assert_eq(a->decider[i].nargs, b->decider[i].nargs);
		for (size_t j = 0; j < a->decider[i].nargs; j++)
			cr_assert_str_eq(a->decider[i].args[j], b->decider[i].args[j]);
		assert_origin_eq(&a->decider[i].origin, &b->decider[i].origin);
	}
	cr_assert_eq(a->npaths, b->npaths);
	for (size_t i = 0; i < a->npaths; i++) {
		cr_assert_str_eq(a->paths[i].path, b->paths[i].path);
		cr_assert_eq(a->paths[i].mode, b->paths[i].mode);
		cr_assert_eq(a->paths[i].platforms, b->paths[i].platforms);
		cr_assert_eq(a->paths[i].optional, b->paths[i].optional);
		cr_assert_eq(a->paths[i].set, b->paths[i].set);
		cr_assert_eq(a->paths[i].source, b->paths[i].source);
		assert_origin_eq(&a->paths[i].origin, &b->paths[i].origin);
	}
	cr_assert_eq(a->nreadonly, b->nreadonly);
	for (size_t i = 0; i < a->nreadonly; i++) {
		cr_assert_str_eq(a->readonly[i].path, b->readonly[i].path);
		assert_str_eq_null(a->readonly[i].because, b->readonly[i].because);
		cr_assert_eq(a->readonly[i].each_writable, b->readonly[i].each_writable);
		cr_assert_eq(a->readonly[i].platforms, b->readonly[i].platforms);
		cr_assert_eq(a->readonly[i].set, b->readonly[i].set);
		cr_assert_eq(a->readonly[i].source, b->readonly[i].source);
		assert_origin_eq(&a->readonly[i].origin, &b->readonly[i].origin);
	}
	cr_assert_eq(a->npatterns, b->npatterns);
	for (size_t i = 0; i < a->npatterns; i++) {
		cr_assert_str_eq(a->patterns[i].host, b->patterns[i].host);
		cr_assert_eq(a->patterns[i].port, b->patterns[i].port);
		cr_assert_eq(a->patterns[i].platforms, b->patterns[i].platforms);
		assert_origin_eq(&a->patterns[i].origin, &b->patterns[i].origin);
	}
	cr_assert_eq(a->nenv_pass, b->nenv_pass);
	for (size_t i = 0; i < a->nenv_pass; i++) {
		cr_assert_str_eq(a->env_pass[i].name, b->env_pass[i].name);
		cr_assert_eq(a->env_pass[i].platforms, b->env_pass[i].platforms);
		assert_origin_eq(&a->env_pass[i].origin, &b->env_pass[i].origin);
	}
	cr_assert_eq(a->nenv_set, b->nenv_set);
	for (size_t i = 0; i < a->nenv_set; i++) {
		cr_assert_str_eq(a->env_set[i].name, b->env_set[i].name);
		cr_assert_str_eq(a->env_set[i].value, b->env_set[i].value);
		cr_assert_eq(a->env_set[i].platforms, b->env_set[i].platforms);
		assert_origin_eq(&a->env_set[i].origin, &b->env_set[i].origin);
	}
	cr_assert_eq(a->nipc, b->nipc);
	for (size_t i = 0; i < a->nipc; i++) {
		cr_assert_str_eq(a->ipc[i].name, b->ipc[i].name);
		assert_str_eq_null(a->ipc[i].exec, b->ipc[i].exec);
		cr_assert_eq(a->ipc[i].npositionals, b->ipc[i].npositionals);
		for (size_t j = 0; j < a->ipc[i].npositionals; j++)
			cr_assert_str_eq(a->ipc[i].positionals[j], b->ipc[i].positionals[j]);
		cr_assert_eq(a->ipc[i].nargs, b->ipc[i].nargs);
		for (size_t j = 0; j < a->ipc[i].nargs; j++) {
			cr_assert_str_eq(a->ipc[i].args[j].name, b->ipc[i].args[j].name);
			cr_assert_eq(a->ipc[i].args[j].type, b->ipc[i].args[j].type);
		}
		cr_assert_eq(a->ipc[i].timeout_ms, b->ipc[i].timeout_ms);
		cr_assert_eq(a->ipc[i].platforms, b->ipc[i].platforms);
		assert_origin_eq(&a->ipc[i].origin, &b->ipc[i].origin);
	}
	cr_assert_eq(a->nseccomp, b->nseccomp);
	for (size_t i = 0; i < a->nseccomp; i++) {
		cr_assert_str_eq(a->seccomp[i].syscall, b->seccomp[i].syscall);
		cr_assert_eq(a->seccomp[i].action, b->seccomp[i].action);
		cr_assert_eq(a->seccomp[i].errno_value, b->seccomp[i].errno_value);
		assert_origin_eq(&a->seccomp[i].origin, &b->seccomp[i].origin);
	}
	assert_named_eq(a->mach_lookups, a->nmach_lookups, b->mach_lookups, b->nmach_lookups);
	assert_named_eq(a->sbpl, a->nsbpl, b->sbpl, b->nsbpl);
	assert_named_eq(a->capabilities, a->ncapabilities, b->capabilities, b->ncapabilities);
	cr_assert_arr_eq(a->source_digest, b->source_digest, 32);
	assert_str_eq_null(a->source_name, b->source_name);
	cr_assert_eq(a->source_size, b->source_size);
	cr_assert_eq(a->source_crc, b->source_crc);
}

static struct ir_policy *
load_ok(const struct blob *b)
{
	struct ir_policy *p = NULL;
	char err[256] = "";
	int rc = artifact_load(b->data, b->len, &p, err, sizeof(err));

	cr_assert_eq(rc, 0, "artifact_load: %s", err);
	cr_assert_not_null(p);
	return p;
}

/* ------------------------------------------------------------ layout, CRC */

Test(artifact_crc, known_vectors)
{
	cr_assert_eq(crc32c_buf("123456789", 9), 0xe3069283u);
	cr_assert_eq(crc32c_buf("", 0), 0);
	cr_assert_eq(crc32c_update(crc32c_update(0, "1234", 4), "56789", 5), 0xe3069283u);
	{
		uint8_t zeros[32] = {0};

		cr_assert_eq(crc32c_buf(zeros, 32), 0x8a9136aau); /* RFC 3720 B.4 */
	}
}

/* The CPU's crc32 instruction (where crc32c_update uses it) and the
 * portable tables agree on every length, alignment and split. */
Test(artifact_crc, fast_path_equals_portable)
{
	static uint8_t buf[4096 + 16];
	uint32_t state = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		state = state * 1103515245u + 12345u;
		buf[i] = (uint8_t)(state >> 16);
	}
	cr_assert_eq(crc32c_update_portable(0, "123456789", 9), 0xe3069283u);
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len <= 300; len++)
			cr_assert_eq(crc32c_update(0, buf + off, len),
				     crc32c_update_portable(0, buf + off, len), "off %zu len %zu", off,
				     len);
	for (size_t cut = 0; cut <= 4096; cut += 97)
		cr_assert_eq(crc32c_update(crc32c_update(0, buf, cut), buf + cut, 4096 - cut),
			     crc32c_update_portable(0, buf, 4096), "split at %zu", cut);
	cr_assert_eq(crc32c_update(0x12345678u, buf, 4096),
		     crc32c_update_portable(0x12345678u, buf, 4096));
}

Test(artifact_layout, sizes_and_helpers)
{
	uint8_t b[8];

	cr_assert_eq(sizeof(struct art_file_header), 64);
	cr_assert_eq(sizeof(struct art_file_section), 32);
	cr_assert_eq(strlen(ART_MAGIC), 8);
	le_put64(b, 0x0102030405060708ull);
	cr_assert_eq(b[0], 0x08);
	cr_assert_eq(b[7], 0x01);
	cr_assert_eq(le_get64(b), 0x0102030405060708ull);
	cr_assert_eq(le_get32(b + 4), 0x01020304u);
	cr_assert_eq(le_get16(b), 0x0708);
	cr_assert_str_eq(art_section_name(ART_SEC_PATHS), "PATHS");
	cr_assert_str_eq(art_section_name(ART_SEC_LINUX_LANDLOCK), "LINUX_LANDLOCK");
	cr_assert_str_eq(art_section_name(ART_SEC_SECCOMP_BPF), "SECCOMP_BPF");
	cr_assert_str_eq(art_section_name(ART_SEC_DECIDER), "DECIDER");
	cr_assert_str_eq(art_section_name(ART_SEC_READONLY), "READONLY");
	cr_assert_str_eq(art_section_name(ART_SEC_IPC_ARGS), "IPC_ARGS");
	cr_assert_null(art_section_name(ART_SEC_IPC_ARGS + 1));
	cr_assert_null(art_section_name(ART_SEC_SBPL));
	cr_assert_str_eq(art_section_name(ART_SEC_WIN_ACES), "WIN_ACES");
	cr_assert_null(art_section_name(ART_SEC_WIN_ACES + 1));
	cr_assert_null(art_section_name(0));
}

Test(artifact_layout, writer_header_fields)
{
	struct blob b = write_rich();

	cr_assert_eq(memcmp(b.data, ART_MAGIC, 8), 0);
	cr_assert_eq(le_get16(b.data + 8), ART_FMT_MAJOR);
	cr_assert_eq(le_get16(b.data + 10), ART_FMT_MINOR);
	cr_assert_eq(le_get16(b.data + 12), 64);
	cr_assert_eq(le_get16(b.data + 14), I_ALL);
	cr_assert_eq(le_get32(b.data + 16), ART_FILE_PLATFORM_NEUTRAL);
	cr_assert_eq(le_get64(b.data + 32), b.len);
	cr_assert_eq(le_get64(b.data + 40), 64);
	cr_assert_eq(b.len % 8, 0);
	for (unsigned i = 0; i < I_ALL; i++) {
		uint64_t off = le_get64(ENTRY(b.data, i) + 8);
		uint32_t want = i == I_META	  ? 0u
				: i >= I_BPF_X86_64 ? ART_SECF_CRITICAL | ART_SECF_PER_ARCH
						    : ART_SECF_CRITICAL;

		cr_assert_eq(off % 8, 0);
		cr_assert_eq(le_get32(ENTRY(b.data, i) + 4), want, "section %u", i);
	}
	cr_assert_eq(le_get32(ENTRY(b.data, I_LANDLOCK)), ART_SEC_LINUX_LANDLOCK);
	cr_assert_eq(le_get32(ENTRY(b.data, I_BPF_X86_64)), ART_SEC_SECCOMP_BPF);
	cr_assert_eq(le_get32(ENTRY(b.data, I_BPF_AARCH64)), ART_SEC_SECCOMP_BPF);
	/* docs/landlock.md: every table handles rights up to ABI 10. */
	cr_assert_eq(le_get32(b.data + 28), 10, "min_landlock_abi");
	cr_assert_eq(le_get32(ENTRY(b.data, I_STRTAB)), ART_SEC_STRTAB);
	cr_assert_eq(le_get32(ENTRY(b.data, I_META)), ART_SEC_META);
	free(b.data);
}

/* ------------------------------------------------------------ write, read */

Test(artifact_write, empty_policy_validates)
{
	struct ir_policy *p = ir_policy_new();
	struct blob b = write_policy(p);
	struct art_view v;
	struct art_scalar s;
	struct art_python py;

	expect_valid(b.data, b.len, &v);
	cr_assert_eq(art_path_count(&v), 0);
	cr_assert_eq(art_env_count(&v), 0);
	cr_assert_eq(art_net_count(&v), 0);
	cr_assert_eq(art_ipc_count(&v), 0);
	cr_assert_eq(art_extra_count(&v), 0);
	for (unsigned i = 0; i < ART_PLATFORM_COUNT; i++) {
		cr_assert(art_platform_enabled(&v, i));
		cr_assert_eq(art_scalar(&v, i, ART_SC_ISOLATION, &s), 0);
		cr_assert(s.set);
		cr_assert_eq(s.value, IR_ISO_DEFAULT);
		cr_assert_eq(art_scalar(&v, i, ART_SC_NETWORK, &s), 0);
		cr_assert_eq(s.value, IR_NET_DENY);
		cr_assert_eq(art_scalar(&v, i, ART_SC_WORKDIR, &s), 0);
		cr_assert_not(s.set);
		cr_assert_null(s.str);
		cr_assert_eq(art_python(&v, i, &py), 0);
		cr_assert_not(py.set);
	}
	ir_policy_free(p);
	free(b.data);
}

Test(artifact_read, accessors_return_what_was_written)
{
	struct blob b = write_rich();
	struct art_view v;
	struct art_scalar s;
	struct art_path pr;
	struct art_env e;
	struct art_net n;
	struct art_ipc c;
	struct art_python py;
	struct art_extra x;
	struct art_meta m;

	expect_valid(b.data, b.len, &v);
	cr_assert_eq(v.fmt_major, 1);
	cr_assert_eq(v.nsections, I_ALL);
	cr_assert_eq(v.nskipped, 0);
	cr_assert(art_platform_enabled(&v, ART_LINUX));
	cr_assert(art_platform_enabled(&v, ART_MACOS));
	cr_assert_not(art_platform_enabled(&v, ART_WINDOWS));
	cr_assert_not(art_platform_enabled(&v, 3));

	cr_assert_eq(art_scalar(&v, ART_LINUX, ART_SC_NETWORK, &s), 0);
	cr_assert_eq(s.value, IR_NET_ALLOW_LIST);
	cr_assert_str_eq(s.origin.file, "policy.heel");
	cr_assert_eq(s.origin.line, 5);
	cr_assert_eq(s.origin.col, 3);
	cr_assert_eq(art_scalar(&v, ART_LINUX, ART_SC_AUDIT_PATH, &s), 0);
	cr_assert(s.set);
	cr_assert_str_eq(s.str, "${HOME}/.cache/heel/audit");
	cr_assert_eq(art_scalar(&v, ART_MACOS, ART_SC_NICE, &s), 0);
	cr_assert_eq(s.value, 10);
	cr_assert_eq(art_scalar(&v, ART_WINDOWS, ART_SC_LIMIT_FIRST + IR_LIMIT_CPU, &s), 0);
	cr_assert_eq(s.value, 62);
	cr_assert_eq(art_scalar(&v, ART_WINDOWS, ART_SC_LIMIT_FIRST + IR_LIMIT_OPEN_FILES, &s), 0);
	cr_assert_eq(s.value, UINT64_MAX);
	cr_assert_null(s.origin.file);
	cr_assert_eq(art_scalar(&v, ART_WINDOWS, ART_SC_WORKDIR, &s), 0);
	cr_assert_str_eq(s.str, "C:/work/tmp");
	cr_assert_eq(art_scalar(&v, ART_WINDOWS, ART_SC_COUNT, &s), -ERANGE);
	cr_assert_eq(art_scalar(&v, 3, ART_SC_NICE, &s), -ERANGE);

	cr_assert_eq(art_path_count(&v), 5);
	cr_assert_eq(art_path_at(&v, 0, &pr), 0);
	cr_assert_str_eq(pr.path, "${HOME}/.ssh");
	cr_assert_eq(pr.mode, 0);
	cr_assert(pr.optional);
	cr_assert_eq(pr.set, IR_SET_CREDENTIALS);
	cr_assert_eq(pr.source, IR_SRC_PROTECTION);
	cr_assert_str_eq(pr.origin.file, "<default>");
	cr_assert_eq(art_path_at(&v, 4, &pr), 0);
	cr_assert_eq(pr.mode, ART_READ | ART_WRITE | ART_EXEC);
	cr_assert_eq(art_path_at(&v, 5, &pr), -ERANGE);

	cr_assert_eq(art_env_count(&v), 4);
	cr_assert_eq(art_env_at(&v, 0, &e), 0);
	cr_assert_eq(e.kind, ART_ENV_PASS);
	cr_assert_str_eq(e.name, "PATH");
	cr_assert_null(e.value);
	cr_assert_eq(art_env_at(&v, 3, &e), 0);
	cr_assert_eq(e.kind, ART_ENV_SET);
	cr_assert_str_eq(e.name, "EMPTY");
	cr_assert_str_eq(e.value, "");
	cr_assert_eq(e.platforms, ART_PLAT_BIT(ART_WINDOWS));

	cr_assert_eq(art_net_count(&v), 2);
	cr_assert_eq(art_net_at(&v, 0, &n), 0);
	cr_assert_str_eq(n.host, "*.pypi.org");
	cr_assert_eq(n.port, 443);
	cr_assert_eq(art_net_at(&v, 2, &n), -ERANGE);

	cr_assert_eq(art_ipc_count(&v), 2);
	cr_assert_eq(art_ipc_at(&v, 0, &c), 0);
	cr_assert_str_eq(c.name, "web_search");
	cr_assert_eq(c.nargs, 3);
	cr_assert_str_eq(art_ipc_arg(&v, &c, 0), "query");
	cr_assert_str_eq(art_ipc_arg(&v, &c, 2), "json-out");
	cr_assert_null(art_ipc_arg(&v, &c, 3));
	cr_assert_eq(c.timeout_ms, 30000);
	cr_assert_eq(art_ipc_typed_count(&v, &c), 0);
	cr_assert_eq(art_ipc_at(&v, 1, &c), 0);
	cr_assert_null(c.exec);
	cr_assert_eq(c.nargs, 0);
	cr_assert_null(art_ipc_arg(&v, &c, 0));
	cr_assert_eq(art_ipc_typed_count(&v, &c), 0);
	{
		const char *name = NULL;
		unsigned type = 0;

		cr_assert_eq(art_ipc_typed_at(&v, &c, 0, &name, &type), -ENOENT);
	}

	cr_assert_eq(art_python(&v, ART_LINUX, &py), 0);
	cr_assert(py.set);
	cr_assert(py.allow_pip_install);
	cr_assert_str_eq(py.venv, ".venv");
	cr_assert_eq(py.npackages, 2);
	cr_assert_str_eq(art_python_package(&v, &py, 1), "requests==2.31");
	cr_assert_null(art_python_package(&v, &py, 2));
	cr_assert_eq(art_python(&v, ART_WINDOWS, &py), 0);
	cr_assert_not(py.set);
	cr_assert_eq(art_python(&v, 3, &py), -ERANGE);

	cr_assert_eq(art_extra_count(&v), 7);
	cr_assert_eq(art_extra_at(&v, 0, &x), 0);
	cr_assert_eq(x.kind, ART_EXTRA_SECCOMP);
	cr_assert_str_eq(x.value, "ptrace");
	cr_assert_eq(x.errno_value, 1);
	cr_assert_eq(x.platforms, ART_PLAT_BIT(ART_LINUX));
	cr_assert_eq(art_extra_at(&v, 6, &x), 0);
	cr_assert_eq(x.kind, ART_EXTRA_EXCLUDED);
	cr_assert_eq(x.platforms, ART_PLAT_BIT(ART_WINDOWS));
	cr_assert_eq(art_extra_at(&v, 7, &x), -ERANGE);

	cr_assert(art_meta(&v, &m));
	cr_assert_str_eq(m.compiler_version, ARTIFACT_COMPILER_VERSION);
	cr_assert_eq(m.source_digest[0], 0xa0);
	cr_assert_eq(m.source_digest[31], 0xa0 + 31);
	cr_assert_str_eq(m.source_name, "policy.heel");
	cr_assert_eq(m.source_size, 1234);
	cr_assert_eq(m.source_crc, 0xdeadbeef);
	free(b.data);
}

Test(artifact_write, reproducible)
{
	struct ir_policy *p = rich_policy(), *q = rich_policy();
	struct blob a = write_policy(p), b = write_policy(p), c = write_policy(q);

	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.data, b.data, a.len), 0, "same IR, different bytes");
	cr_assert_eq(a.len, c.len);
	cr_assert_eq(memcmp(a.data, c.data, a.len), 0, "equal IRs, different bytes");
	ir_policy_free(p);
	ir_policy_free(q);
	free(a.data);
	free(b.data);
	free(c.data);
}

/* Occurrences of `needle` in the string table (the Landlock payload keeps
 * its own strings, so the whole file is the wrong place to count). */
static size_t
strtab_hits(const struct blob *b, const char *needle)
{
	const uint8_t *e = ENTRY(b->data, I_STRTAB);
	const uint8_t *st = b->data + le_get64(e + 8);
	size_t size = le_get64(e + 16), n = strlen(needle), hits = 0;

	cr_assert_eq(le_get32(e), ART_SEC_STRTAB);
	for (size_t i = 0; i + n <= size; i++)
		if (memcmp(st + i, needle, n) == 0)
			hits++;
	return hits;
}

Test(artifact_write, strings_deduplicated)
{
	struct blob b = write_rich();

	cr_assert_eq(strtab_hits(&b, "/tmp/shared-dedup"), 1);
	cr_assert_eq(strtab_hits(&b, "policy.heel"), 1);
	free(b.data);
}

Test(artifact_write, refuses_ir_it_cannot_store)
{
	struct ir_policy *p = rich_policy();
	uint8_t *out = (uint8_t *)1;
	size_t len = 1;

	p->paths[1].mode = IR_WRITE; /* write without read */
	cr_assert_eq(artifact_write(p, &out, &len), -EINVAL);
	cr_assert_null(out);
	cr_assert_eq(len, 0);
	p->paths[1].mode = IR_MODE_RW;
	p->patterns[0].platforms = 0;
	cr_assert_eq(artifact_write(p, &out, &len), -EINVAL);
	p->patterns[0].platforms = IR_PLAT_ALL;
	free(p->env_pass[0].name);
	p->env_pass[0].name = NULL;
	cr_assert_eq(artifact_write(p, &out, &len), -EINVAL);
	p->env_pass[0].name = xs("PATH");
	p->scalar[IR_MACOS].network.value = 7;
	cr_assert_eq(artifact_write(p, &out, &len), -EINVAL);
	p->scalar[IR_MACOS].network.value = IR_NET_DENY;
	p->seccomp[0].action = 9;
	cr_assert_eq(artifact_write(p, &out, &len), -EINVAL);
	p->seccomp[0].action = IR_SECCOMP_DENY;
	cr_assert_eq(artifact_write(p, &out, &len), 0);
	free(out);
	ir_policy_free(p);
}

/* ------------------------------------------------------------ round trips */

Test(artifact_load, round_trip_rich_is_byte_identical)
{
	struct ir_policy *p = rich_policy(), *q;
	struct blob a = write_policy(p), b;

	q = load_ok(&a);
	assert_policy_eq(p, q);
	b = write_policy(q);
	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.data, b.data, a.len), 0, "IR -> bytes -> IR -> bytes changed");
	ir_policy_free(p);
	ir_policy_free(q);
	free(a.data);
	free(b.data);
}

Test(artifact_load, round_trip_empty_is_byte_identical)
{
	struct ir_policy *p = ir_policy_new(), *q;
	struct blob a = write_policy(p), b;

	q = load_ok(&a);
	assert_policy_eq(p, q);
	b = write_policy(q);
	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.data, b.data, a.len), 0);
	ir_policy_free(p);
	ir_policy_free(q);
	free(a.data);
	free(b.data);
}

Test(artifact_load, origins_are_interned)
{
	struct blob a = write_rich();
	struct ir_policy *q = load_ok(&a);

	cr_assert_not_null(q->paths[1].origin.file);
	cr_assert_eq(q->paths[1].origin.file, q->paths[2].origin.file,
		     "one file name, one pooled string");
	cr_assert_eq(q->paths[1].origin.file, ir_intern(q, "policy.heel"));
	cr_assert_null(q->scalar[IR_LINUX].limits[IR_LIMIT_OPEN_FILES].origin.file);
	ir_policy_free(q);
	free(a.data);
}

Test(artifact_load, null_err_buffer_is_fine)
{
	struct ir_policy *q = NULL;
	uint8_t junk[100] = {0};

	cr_assert_eq(artifact_load(junk, sizeof(junk), &q, NULL, 0), -EINVAL);
	cr_assert_null(q);
	cr_assert_eq(art_validate(NULL, 0, &(struct art_view){0}, NULL, 0), -EINVAL);
}

/* ------------------------------------------------------------ header refusals */

Test(artifact_refuse, too_short)
{
	struct blob b = write_rich();

	for (size_t n = 0; n < ART_HEADER_SIZE; n++)
		expect_refused(b.data, n, "too short");
	free(b.data);
}

Test(artifact_refuse, truncated_at_every_length)
{
	struct blob b = write_rich();
	struct art_view v;
	char err[256];

	for (size_t n = 0; n < b.len; n++) {
		uint8_t *c = copy_exact(b.data, n);

		err[0] = 0;
		cr_assert_eq(art_validate(c, n, &v, err, sizeof(err)), -EINVAL,
			     "truncated to %zu bytes: accepted", n);
		cr_assert(strstr(err, n < 64 ? "too short" : "file size mismatch"),
			  "truncated to %zu: %s", n, err);
		free(c);
	}
	free(b.data);
}

Test(artifact_refuse, extended)
{
	struct blob b = write_rich();
	uint8_t *c = calloc(1, b.len + 8);

	cr_assert_not_null(c);
	memcpy(c, b.data, b.len);
	expect_refused(c, b.len + 1, "file size mismatch");
	expect_refused(c, b.len + 8, "file size mismatch");
	free(c);
	free(b.data);
}

Test(artifact_refuse, every_flipped_byte)
{
	static const uint8_t masks[] = {0x01, 0x80, 0xff};
	struct blob b = write_rich();
	struct art_view v;

	for (size_t i = 0; i < b.len; i++)
		for (size_t m = 0; m < sizeof(masks); m++) {
			b.data[i] ^= masks[m];
			cr_assert_eq(art_validate(b.data, b.len, &v, NULL, 0), -EINVAL,
				     "byte %zu ^ 0x%02x accepted", i, masks[m]);
			b.data[i] ^= masks[m];
		}
	expect_valid(b.data, b.len, &v);
	free(b.data);
}

Test(artifact_refuse, wrong_magic)
{
	struct blob b = write_rich();

	memcpy(b.data, "HEEL\r\n\x1a\n", 8);
	expect_refused(b.data, b.len, "wrong magic");
	free(b.data);
	b = write_rich();
	b.data[4] = '\n'; /* CR LF -> LF damage */
	expect_refused(b.data, b.len, "wrong magic");
	free(b.data);
}

Test(artifact_refuse, wrong_major_version)
{
	struct blob b = write_rich();

	le_put16(b.data + 8, 2);
	reseal(b.data, b.len);
	le_put16(b.data + 10, 0);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "unsupported format version 2.0");
	le_put16(b.data + 8, 0);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "unsupported format version 0.0");
	free(b.data);
}

Test(artifact_compat, higher_minor_accepted)
{
	struct blob b = write_rich();
	struct art_view v;

	le_put16(b.data + 10, 7);
	reseal(b.data, b.len);
	expect_valid(b.data, b.len, &v);
	cr_assert_eq(v.fmt_minor, 7);
	free(b.data);
}

Test(artifact_refuse, bad_header_size)
{
	struct blob b = write_rich();

	le_put16(b.data + 12, 32);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "bad header size 32");
	le_put16(b.data + 12, 68);
	expect_refused(b.data, b.len, "bad header size 68");
	le_put16(b.data + 12, 0xfff8);
	expect_refused(b.data, b.len, "bad header size 65528");
	free(b.data);
}

Test(artifact_compat, larger_header_accepted)
{
	struct blob b = write_rich(), m;
	struct tart t;
	struct art_view v;

	explode(&b, &t);
	t.hsize = 128;
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_eq(art_path_count(&v), 5);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

Test(artifact_refuse, file_size_field)
{
	struct blob b = write_rich();

	le_put64(b.data + 32, b.len - 8);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "file size mismatch");
	le_put64(b.data + 32, UINT64_MAX);
	expect_refused(b.data, b.len, "file size mismatch");
	free(b.data);
}

Test(artifact_refuse, header_checksum)
{
	struct blob b = write_rich();

	b.data[20] ^= 1; /* arch: covered only by the header checksum */
	expect_refused(b.data, b.len, "header checksum mismatch");
	b.data[20] ^= 1;
	b.data[48] ^= 0x40; /* the checksum itself */
	expect_refused(b.data, b.len, "header checksum mismatch");
	b.data[48] ^= 0x40;
	b.data[52] ^= 1; /* the body checksum is part of the header */
	expect_refused(b.data, b.len, "header checksum mismatch");
	free(b.data);
}

Test(artifact_refuse, body_checksum)
{
	struct blob b = write_rich();

	b.data[b.len - 1] ^= 1; /* padding or payload: covered by the body CRC */
	expect_refused(b.data, b.len, "body checksum mismatch");
	b.data[b.len - 1] ^= 1;
	b.data[ART_HEADER_SIZE] ^= 1; /* section table */
	expect_refused(b.data, b.len, "body checksum mismatch");
	free(b.data);
}

Test(artifact_refuse, header_platform_flags_reserved)
{
	struct blob b = write_rich();

	le_put32(b.data + 16, 4);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "unknown target platform 4");
	le_put32(b.data + 16, 0);
	le_put32(b.data + 24, 1);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "unknown header flags 0x1");
	le_put32(b.data + 24, 0);
	b.data[60] = 1;
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "reserved header field is not zero");
	free(b.data);
}

Test(artifact_compat, single_platform_header_accepted)
{
	struct blob b = write_rich();
	struct art_view v;

	le_put32(b.data + 16, ART_FILE_PLATFORM_LINUX);
	reseal(b.data, b.len);
	expect_valid(b.data, b.len, &v);
	cr_assert_eq(v.platform, ART_FILE_PLATFORM_LINUX);
	free(b.data);
}

/* ------------------------------------------------------------ section table */

Test(artifact_refuse, too_many_sections)
{
	struct blob b = write_rich(), m;
	struct tart t;
	struct art_view v;

	explode(&b, &t);
	while (t.n < ART_MAX_SECTIONS)
		tart_add(&t, 1000 + (uint32_t)t.n, 0, "", 0);
	m = assemble(&t);
	expect_valid(m.data, m.len, &v); /* exactly 64 is fine */
	cr_assert_eq(v.nskipped, ART_MAX_SECTIONS - I_ALL);
	free(m.data);
	tart_add(&t, 2000, 0, "", 0);
	m = assemble(&t);
	expect_refused(m.data, m.len, "too many sections: 65");
	free(m.data);
	le_put16(b.data + 14, 0xffff);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "too many sections: 65535");
	free(b.data);
	tart_free(&t);
}

Test(artifact_refuse, section_table_out_of_range)
{
	struct blob b = write_rich();

	le_put64(b.data + 40, b.len);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section table out of range");
	le_put64(b.data + 40, b.len - 8); /* starts inside, ends outside */
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section table out of range");
	le_put64(b.data + 40, UINT64_MAX - 7);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section table out of range");
	le_put64(b.data + 40, 0); /* on top of the header */
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section table out of range");
	le_put64(b.data + 40, 68);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section table offset 68 is not 8-aligned");
	free(b.data);
}

Test(artifact_refuse, section_misaligned)
{
	struct blob b = write_rich();
	uint8_t *e = ENTRY(b.data, I_PATHS);

	le_put64(e + 8, le_get64(e + 8) + 4);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS): offset");
	expect_refused(b.data, b.len, "not 8-aligned");
	free(b.data);
}

Test(artifact_refuse, section_out_of_range)
{
	struct blob b = write_rich();
	uint8_t *e = ENTRY(b.data, I_PATHS);
	uint64_t off = le_get64(e + 8), size = le_get64(e + 16);

	le_put64(e + 8, b.len + 8);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS) out of range");
	/* off + size would wrap to a small number: must still be refused. */
	le_put64(e + 8, off);
	le_put64(e + 16, UINT64_MAX - off + 9);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS) out of range");
	le_put64(e + 16, b.len - off + 1);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS) out of range");
	le_put64(e + 8, UINT64_MAX & ~7ull);
	le_put64(e + 16, size);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS) out of range");
	free(b.data);
}

Test(artifact_refuse, overlapping_sections)
{
	struct blob b = write_rich();
	uint64_t paths = le_get64(ENTRY(b.data, I_PATHS) + 8);

	le_put64(ENTRY(b.data, I_ENV) + 8, paths);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "sections 2 (PATHS) and 3 (ENV) overlap");
	/* partial overlap: ENV starts 8 bytes before the end of PATHS */
	le_put64(ENTRY(b.data, I_ENV) + 8,
		  ((paths + le_get64(ENTRY(b.data, I_PATHS) + 16)) & ~7ull) - 8);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "sections 2 (PATHS) and 3 (ENV) overlap");
	free(b.data);
}

Test(artifact_refuse, section_over_header_or_table)
{
	struct blob b = write_rich();

	le_put64(ENTRY(b.data, I_PATHS) + 8, 0);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS) overlaps the header or the section table");
	le_put64(ENTRY(b.data, I_PATHS) + 8, ART_HEADER_SIZE + 32);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "overlaps the header or the section table");
	free(b.data);
}

Test(artifact_refuse, section_entry_reserved)
{
	struct blob b = write_rich();

	le_put32(ENTRY(b.data, I_ENV) + 28, 5);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 3 (ENV): reserved field is not zero");
	free(b.data);
}

Test(artifact_refuse, section_checksum)
{
	struct blob b = write_rich();
	uint64_t off = le_get64(ENTRY(b.data, I_PATHS) + 8);

	b.data[off + 20] ^= 1;
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 2 (PATHS): checksum mismatch");
	free(b.data);
	b = write_rich();
	le_put32(ENTRY(b.data, I_META) + 24, 0);
	reseal(b.data, b.len);
	expect_refused(b.data, b.len, "section 8 (META): checksum mismatch");
	free(b.data);
}

Test(artifact_refuse, unknown_critical_section)
{
	MUTATE_AND_EXPECT("unknown critical section type 1000",
			  tart_add(t, 1000, ART_SECF_CRITICAL, "\x01\x02\x03", 3));
	/* The macOS and Windows parts are reserved, not yet readable:
	 * refused too, as are the holes in the known range. */
	MUTATE_AND_EXPECT("unknown critical section type 32",
			  tart_add(t, ART_SEC_SBPL, ART_SECF_CRITICAL, "", 0));
	MUTATE_AND_EXPECT("unknown critical section type 50",
			  tart_add(t, ART_SEC_WIN_ACES + 1, ART_SECF_CRITICAL, "\0\0\0\0", 4));
	MUTATE_AND_EXPECT("unknown critical section type 13",
			  tart_add(t, 13, ART_SECF_CRITICAL, "", 0));
}

Test(artifact_compat, unknown_noncritical_section_skipped)
{
	struct blob b = write_rich(), m, w;
	struct tart t;
	struct art_view v;
	struct ir_policy *q;

	explode(&b, &t);
	tart_add(&t, 4242, 0, "future metadata", 15);
	tart_add(&t, 4243, ART_SECF_PER_ARCH, "", 0);
	/* In the middle too, not only at the end. */
	t.s[t.n++] = t.s[0];
	t.s[0] = (struct tsec){99, 0, copy_exact((const uint8_t *)"x", 1), 1};
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_eq(v.nskipped, 3);
	cr_assert_eq(art_path_count(&v), 5);
	q = load_ok(&m);
	w = write_policy(q);
	cr_assert_eq(w.len, b.len);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0, "skipped sections must not change the IR");
	ir_policy_free(q);
	free(w.data);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

Test(artifact_compat, meta_is_optional)
{
	struct blob b = write_rich(), m;
	struct tart t;
	struct art_view v;
	struct art_meta meta;
	struct ir_policy *q;

	explode(&b, &t);
	tart_remove(&t, find_sec(&t, ART_SEC_META));
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_not(art_meta(&v, &meta));
	q = load_ok(&m);
	for (int i = 0; i < 32; i++)
		cr_assert_eq(q->source_digest[i], 0);
	ir_policy_free(q);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

Test(artifact_refuse, duplicate_section)
{
	MUTATE_AND_EXPECT("duplicate section PATHS", {
		size_t i = find_sec(t, ART_SEC_PATHS);
		tart_add(t, ART_SEC_PATHS, ART_SECF_CRITICAL, t->s[i].data, t->s[i].size);
	});
	MUTATE_AND_EXPECT("duplicate section META",
			  tart_add(t, ART_SEC_META, 0, t->s[find_sec(t, ART_SEC_META)].data, 40));
}

Test(artifact_refuse, missing_section)
{
	MUTATE_AND_EXPECT("missing section NETWORK", tart_remove(t, find_sec(t, ART_SEC_NETWORK)));
	MUTATE_AND_EXPECT("missing section STRTAB", tart_remove(t, find_sec(t, ART_SEC_STRTAB)));
	/* Retyping a critical section as an unknown optional one must not
	 * make it disappear quietly. */
	MUTATE_AND_EXPECT("missing section PATHS", {
		size_t i = find_sec(t, ART_SEC_PATHS);
		t->s[i].type = 777;
		t->s[i].flags = 0;
	});
}

Test(artifact_refuse, known_section_wrong_flags)
{
	MUTATE_AND_EXPECT("(STRTAB): wrong flags 0x0", t->s[find_sec(t, ART_SEC_STRTAB)].flags = 0);
	MUTATE_AND_EXPECT("(META): wrong flags 0x1",
			  t->s[find_sec(t, ART_SEC_META)].flags = ART_SECF_CRITICAL);
	MUTATE_AND_EXPECT("(ENV): wrong flags 0x3", t->s[find_sec(t, ART_SEC_ENV)].flags = 3);
}

/* ------------------------------------------------------------ STRTAB */

Test(artifact_strtab, not_terminated_or_empty)
{
	MUTATE_AND_EXPECT("STRTAB: last string is not NUL-terminated", {
		struct tsec *s = &t->s[find_sec(t, ART_SEC_STRTAB)];
		s->data[s->size - 1] = 'x';
	});
	MUTATE_AND_EXPECT("STRTAB: empty", tart_resize(t, find_sec(t, ART_SEC_STRTAB), 0));
}

Test(artifact_strtab, offset_not_on_string_start)
{
	MUTATE_AND_EXPECT("PATHS record 1: path string offset", {
		uint8_t *r = rec(t, ART_SEC_PATHS, 1);
		le_put32(r, strtab_find(t, "/tmp/shared-dedup") + 1);
	});
	MUTATE_AND_EXPECT("is not on a string start", {
		uint8_t *r = rec(t, ART_SEC_PATHS, 1);
		le_put32(r, strtab_find(t, "/tmp/shared-dedup") + 5);
	});
}

Test(artifact_strtab, offset_outside_table)
{
	MUTATE_AND_EXPECT("PATHS record 0: path string offset", {
		uint8_t *r = rec(t, ART_SEC_PATHS, 0);
		le_put32(r, (uint32_t)t->s[find_sec(t, ART_SEC_STRTAB)].size);
	});
	MUTATE_AND_EXPECT("is outside the string table", {
		uint8_t *r = rec(t, ART_SEC_NETWORK, 1);
		le_put32(r, 0xfffffffe);
	});
}

Test(artifact_strtab, required_string_missing)
{
	MUTATE_AND_EXPECT("PATHS record 2: path string is missing",
			  le_put32(rec(t, ART_SEC_PATHS, 2), ART_STR_NONE));
	MUTATE_AND_EXPECT("NETWORK record 0: host string is missing",
			  le_put32(rec(t, ART_SEC_NETWORK, 0), ART_STR_NONE));
	MUTATE_AND_EXPECT("META record 0: compiler version string is missing",
			  le_put32(table(t, ART_SEC_META), ART_STR_NONE));
}

Test(artifact_strtab, origin_file_checked)
{
	MUTATE_AND_EXPECT("ENV record 0: origin file string offset", {
		uint8_t *r = rec(t, ART_SEC_ENV, 0);
		le_put32(r + offsetof(struct art_rec_env, origin), 0x7fffffff);
	});
	MUTATE_AND_EXPECT("SCALARS record 2: origin file string offset", {
		uint8_t *r = rec(t, ART_SEC_SCALARS, 2);
		le_put32(r + 8 + offsetof(struct art_rec_scalar, origin),
			  strtab_find(t, "policy.heel") + 3);
	});
}

/* ------------------------------------------------------------ tables */

Test(artifact_table, count_does_not_match_size)
{
	MUTATE_AND_EXPECT("PATHS: size 136 does not match 6 records of 24 bytes",
			  le_put32(table(t, ART_SEC_PATHS), 6));
	MUTATE_AND_EXPECT("NETWORK: size", le_put32(table(t, ART_SEC_NETWORK), 0xffffffff));
	MUTATE_AND_EXPECT("IPC: size", le_put32(table(t, ART_SEC_IPC) + 8, 4));
	MUTATE_AND_EXPECT("does not match", tart_resize(t, find_sec(t, ART_SEC_ENV),
							t->s[find_sec(t, ART_SEC_ENV)].size + 4));
}

Test(artifact_table, record_size_too_small)
{
	MUTATE_AND_EXPECT("PATHS: record size 16 is smaller than 24",
			  le_put32(table(t, ART_SEC_PATHS) + 4, 16));
	MUTATE_AND_EXPECT("EXTRAS: record size 0 is smaller than 24",
			  le_put32(table(t, ART_SEC_EXTRAS) + 4, 0));
}

Test(artifact_table, header_short_or_reserved)
{
	MUTATE_AND_EXPECT("ENV: shorter than its 16-byte table header",
			  tart_resize(t, find_sec(t, ART_SEC_ENV), 12));
	MUTATE_AND_EXPECT("PYTHON: reserved table field is not zero",
			  le_put32(table(t, ART_SEC_PYTHON) + 12, 1));
}

Test(artifact_table, unexpected_items)
{
	MUTATE_AND_EXPECT("PATHS: unexpected trailing items",
			  le_put32(table(t, ART_SEC_PATHS) + 8, 1));
	MUTATE_AND_EXPECT("EXTRAS: unexpected trailing items",
			  le_put32(table(t, ART_SEC_EXTRAS) + 8, 3));
}

Test(artifact_compat, larger_records_accepted)
{
	struct ir_policy *p = rich_policy(), *q;
	struct blob b = write_policy(p), m, w;
	struct tart t;
	struct art_view v;
	struct art_net n;
	size_t i;
	uint8_t *d;

	explode(&b, &t);
	/* A later minor appends 4 bytes to each NETWORK record. */
	i = find_sec(&t, ART_SEC_NETWORK);
	d = calloc(1, 16 + 2 * 24);
	cr_assert_not_null(d);
	memcpy(d, t.s[i].data, 16);
	le_put32(d + 4, 24);
	memcpy(d + 16, t.s[i].data + 16, 20);
	memcpy(d + 16 + 24, t.s[i].data + 16 + 20, 20);
	d[16 + 20] = 0xee; /* unknown trailing field: ignored */
	free(t.s[i].data);
	t.s[i].data = d;
	t.s[i].size = 16 + 2 * 24;
	t.minor = 1;
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_eq(art_net_at(&v, 1, &n), 0);
	cr_assert_str_eq(n.host, "::1");
	q = load_ok(&m);
	assert_policy_eq(p, q);
	w = write_policy(q);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0);
	ir_policy_free(p);
	ir_policy_free(q);
	free(w.data);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

Test(artifact_compat, more_scalars_accepted)
{
	struct blob b = write_rich(), m;
	struct tart t;
	struct art_view v;
	struct art_scalar s;
	size_t i, rs = 8 + 32 * (ART_SC_COUNT + 1);
	uint8_t *d;

	explode(&b, &t);
	i = find_sec(&t, ART_SEC_SCALARS);
	d = calloc(1, 16 + 3 * rs);
	cr_assert_not_null(d);
	memcpy(d, t.s[i].data, 16);
	le_put32(d + 4, (uint32_t)rs);
	le_put32(d + 8, ART_SC_COUNT + 1);
	for (size_t k = 0; k < 3; k++) {
		memcpy(d + 16 + k * rs, t.s[i].data + 16 + k * (rs - 32), rs - 32);
		memset(d + 16 + k * rs + rs - 32, 0x5a, 32); /* a future scalar */
	}
	free(t.s[i].data);
	t.s[i].data = d;
	t.s[i].size = 16 + 3 * rs;
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_eq(art_scalar(&v, ART_MACOS, ART_SC_NICE, &s), 0);
	cr_assert_eq(s.value, 10);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

/* ------------------------------------------------------------ SCALARS */

#define SCALAR(t, plat, id) (rec(t, ART_SEC_SCALARS, plat) + 8 + (size_t)(id)*32)

Test(artifact_scalars, structure)
{
	MUTATE_AND_EXPECT("SCALARS: 17 items do not fit",
			  le_put32(table(t, ART_SEC_SCALARS) + 8, ART_SC_COUNT - 1));
	MUTATE_AND_EXPECT("SCALARS record 1: platform 0 given twice",
			  le_put32(rec(t, ART_SEC_SCALARS, 1), 0));
	MUTATE_AND_EXPECT("SCALARS record 2: unknown platform 3",
			  le_put32(rec(t, ART_SEC_SCALARS, 2), 3));
	MUTATE_AND_EXPECT("SCALARS record 0: invalid enabled flag",
			  le_put32(rec(t, ART_SEC_SCALARS, 0) + 4, 2));
}

Test(artifact_scalars, platform_count)
{
	MUTATE_AND_EXPECT("SCALARS: 2 platform records, expected 3", {
		size_t i = find_sec(t, ART_SEC_SCALARS);
		uint32_t rs = le_get32(t->s[i].data + 4);
		le_put32(t->s[i].data, 2);
		tart_resize(t, i, 16 + 2 * (size_t)rs);
	});
}

Test(artifact_scalars, values_in_range)
{
	MUTATE_AND_EXPECT("SCALARS record 0: scalar 1 (network) value 3 out of range",
			  le_put64(SCALAR(t, 0, ART_SC_NETWORK), 3));
	MUTATE_AND_EXPECT("SCALARS record 1: scalar 12 (nice) value 20 out of range",
			  le_put64(SCALAR(t, 1, ART_SC_NICE), 20));
	MUTATE_AND_EXPECT("SCALARS record 2: scalar 16 (protections) value 512 out of range",
			  le_put64(SCALAR(t, 2, ART_SC_PROTECTIONS), 512));
	MUTATE_AND_EXPECT("SCALARS record 0: scalar 2 (allow-private) value 2 out of range",
			  le_put64(SCALAR(t, 0, ART_SC_ALLOW_PRIVATE), 2));
}

Test(artifact_scalars, unset_value_not_range_checked)
{
	struct blob b = write_rich(), m;
	struct tart t;
	struct art_view v;

	explode(&b, &t);
	/* windows nice is unset: its value is not a setting. */
	le_put64(SCALAR(&t, 2, ART_SC_NICE), 99);
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

Test(artifact_scalars, flags_and_strings)
{
	MUTATE_AND_EXPECT("SCALARS record 0: scalar 0 (isolation) has invalid flags",
			  le_put32(SCALAR(t, 0, ART_SC_ISOLATION) + 12, 2));
	MUTATE_AND_EXPECT("SCALARS record 1: scalar 5 (memory) has invalid flags",
			  le_put32(SCALAR(t, 1, ART_SC_LIMIT_MEMORY) + 28, 1));
	MUTATE_AND_EXPECT("SCALARS record 1: string scalar 15 (workdir) is inconsistent",
			  le_put32(SCALAR(t, 1, ART_SC_WORKDIR) + 12, 1));
	MUTATE_AND_EXPECT("SCALARS record 0: string scalar 4 (audit-path) is inconsistent",
			  le_put64(SCALAR(t, 0, ART_SC_AUDIT_PATH), 1));
	MUTATE_AND_EXPECT("SCALARS record 0: numeric scalar 6 (cpu) has a string",
			  le_put32(SCALAR(t, 0, ART_SC_LIMIT_CPU) + 8, 0));
	MUTATE_AND_EXPECT("SCALARS record 0: scalar string offset", {
		le_put32(SCALAR(t, 0, ART_SC_AUDIT_PATH) + 8, strtab_find(t, "${HOME}/.ssh") + 2);
	});
}

/* ------------------------------------------------------------ PATHS */

Test(artifact_paths, enumerations)
{
	MUTATE_AND_EXPECT("PATHS record 1: invalid mode 2", rec(t, ART_SEC_PATHS, 1)[4] = 2);
	MUTATE_AND_EXPECT("PATHS record 1: invalid mode 6", rec(t, ART_SEC_PATHS, 1)[4] = 6);
	MUTATE_AND_EXPECT("PATHS record 1: invalid mode 8", rec(t, ART_SEC_PATHS, 1)[4] = 8);
	MUTATE_AND_EXPECT("PATHS record 0: invalid platform mask 0x0",
			  rec(t, ART_SEC_PATHS, 0)[5] = 0);
	MUTATE_AND_EXPECT("PATHS record 0: invalid platform mask 0x8",
			  rec(t, ART_SEC_PATHS, 0)[5] = 8);
	MUTATE_AND_EXPECT("PATHS record 3: invalid optional flag", rec(t, ART_SEC_PATHS, 3)[6] = 2);
	MUTATE_AND_EXPECT("PATHS record 3: invalid protection set 9",
			  rec(t, ART_SEC_PATHS, 3)[7] = 9);
	MUTATE_AND_EXPECT("PATHS record 4: invalid rule source 4", rec(t, ART_SEC_PATHS, 4)[8] = 4);
	MUTATE_AND_EXPECT("PATHS record 4: reserved field is not zero",
			  rec(t, ART_SEC_PATHS, 4)[11] = 1);
}

/* ------------------------------------------------------------ ENV, NETWORK */

Test(artifact_env, records)
{
	MUTATE_AND_EXPECT("ENV record 0: invalid kind 3", rec(t, ART_SEC_ENV, 0)[8] = 3);
	MUTATE_AND_EXPECT("ENV record 0: invalid kind 0", rec(t, ART_SEC_ENV, 0)[8] = 0);
	MUTATE_AND_EXPECT("ENV record 1: env pass carries a value",
			  le_put32(rec(t, ART_SEC_ENV, 1) + 4, 0));
	MUTATE_AND_EXPECT("ENV record 2: value string is missing",
			  le_put32(rec(t, ART_SEC_ENV, 2) + 4, ART_STR_NONE));
	MUTATE_AND_EXPECT("ENV record 3: invalid platform mask 0xf",
			  rec(t, ART_SEC_ENV, 3)[9] = 0xf);
	MUTATE_AND_EXPECT("ENV record 3: reserved field is not zero",
			  rec(t, ART_SEC_ENV, 3)[11] = 1);
}

Test(artifact_network, records)
{
	MUTATE_AND_EXPECT("NETWORK record 1: invalid platform mask 0x10",
			  rec(t, ART_SEC_NETWORK, 1)[6] = 0x10);
	MUTATE_AND_EXPECT("NETWORK record 0: reserved field is not zero",
			  rec(t, ART_SEC_NETWORK, 0)[7] = 1);
}

/* ------------------------------------------------------------ IPC, PYTHON */

Test(artifact_ipc, positionals)
{
	MUTATE_AND_EXPECT("IPC record 0: positionals [1, +3) out of order or out of range",
			  le_put32(rec(t, ART_SEC_IPC, 0) + 8, 1));
	MUTATE_AND_EXPECT("IPC record 0: positionals [0, +4) out of order or out of range",
			  le_put32(rec(t, ART_SEC_IPC, 0) + 12, 4));
	MUTATE_AND_EXPECT("IPC record 0: positionals [0, +4294967295)",
			  le_put32(rec(t, ART_SEC_IPC, 0) + 12, 0xffffffff));
	MUTATE_AND_EXPECT("IPC: 3 positionals stored, 2 used", {
		le_put32(rec(t, ART_SEC_IPC, 0) + 12, 2);
		le_put32(rec(t, ART_SEC_IPC, 1) + 8, 2);
	});
	MUTATE_AND_EXPECT("IPC record 2: item string is missing", {
		size_t i = find_sec(t, ART_SEC_IPC);
		le_put32(t->s[i].data + t->s[i].size - 4, ART_STR_NONE);
	});
}

Test(artifact_ipc, records)
{
	MUTATE_AND_EXPECT("IPC record 1: name string is missing",
			  le_put32(rec(t, ART_SEC_IPC, 1), ART_STR_NONE));
	MUTATE_AND_EXPECT(
	    "IPC record 0: exec string offset",
	    le_put32(rec(t, ART_SEC_IPC, 0) + 4, strtab_find(t, "/usr/local/bin/search") + 1));
	MUTATE_AND_EXPECT("IPC record 1: invalid platform mask 0x0",
			  rec(t, ART_SEC_IPC, 1)[24] = 0);
	MUTATE_AND_EXPECT("IPC record 1: reserved field is not zero",
			  rec(t, ART_SEC_IPC, 1)[27] = 1);
}

Test(artifact_python, records)
{
	MUTATE_AND_EXPECT("PYTHON record 1: platform 0 given twice",
			  le_put32(rec(t, ART_SEC_PYTHON, 1), 0));
	MUTATE_AND_EXPECT("PYTHON record 2: unknown platform 9",
			  le_put32(rec(t, ART_SEC_PYTHON, 2), 9));
	MUTATE_AND_EXPECT("PYTHON record 0: invalid flags",
			  le_put32(rec(t, ART_SEC_PYTHON, 0) + 4, 2));
	MUTATE_AND_EXPECT("PYTHON record 0: invalid flags",
			  le_put32(rec(t, ART_SEC_PYTHON, 0) + 12, 3));
	MUTATE_AND_EXPECT("PYTHON record 1: packages [1, +0) out of order",
			  le_put32(rec(t, ART_SEC_PYTHON, 1) + 16, 1));
	MUTATE_AND_EXPECT("PYTHON: 2 packages stored, 1 used", {
		le_put32(rec(t, ART_SEC_PYTHON, 0) + 20, 1);
		le_put32(rec(t, ART_SEC_PYTHON, 1) + 16, 1);
		le_put32(rec(t, ART_SEC_PYTHON, 2) + 16, 1);
	});
	MUTATE_AND_EXPECT("PYTHON record 0: reserved field is not zero",
			  le_put32(rec(t, ART_SEC_PYTHON, 0) + 36, 1));
	MUTATE_AND_EXPECT("PYTHON: 4 platform records, expected 3", {
		size_t i = find_sec(t, ART_SEC_PYTHON);
		uint8_t *d = calloc(1, t->s[i].size + 40);
		cr_assert_not_null(d);
		memcpy(d, t->s[i].data, 16 + 3 * 40);
		memcpy(d + 16 + 4 * 40, t->s[i].data + 16 + 3 * 40, t->s[i].size - 16 - 3 * 40);
		le_put32(d, 4);
		free(t->s[i].data);
		t->s[i].data = d;
		t->s[i].size += 40;
	});
}

/* ------------------------------------------------------------ IPC_ARGS */

/* The rich policy with typed arguments: web_search (positionals query,
 * q, json-out) gets q path (typing a positional), limit int and safe
 * bool; a third command, after one without any, gets one of its own, so
 * the records hold two runs with a gap. */
static struct ir_policy *
ipc_args_policy(void)
{
	struct ir_policy *p = rich_policy();
	struct ir_ipc *c = realloc(p->ipc, 3 * sizeof(*p->ipc));

	cr_assert_not_null(c);
	p->ipc = c;
	p->nipc = 3;
	c[2] = (struct ir_ipc){xs("tag"), xs("/usr/bin/tag"), NULL, 0, 0, IR_PLAT_ALL,
			       org(p, "policy.heel", 26, 1), NULL, 0};
	c[0].nargs = 3;
	c[0].args = calloc(3, sizeof(*c[0].args));
	cr_assert_not_null(c[0].args);
	c[0].args[0] = (struct ir_ipc_arg){xs("q"), IR_IPC_PATH};
	c[0].args[1] = (struct ir_ipc_arg){xs("limit"), IR_IPC_INT};
	c[0].args[2] = (struct ir_ipc_arg){xs("safe"), IR_IPC_BOOL};
	c[2].nargs = 1;
	c[2].args = calloc(1, sizeof(*c[2].args));
	cr_assert_not_null(c[2].args);
	c[2].args[0] = (struct ir_ipc_arg){xs("file"), IR_IPC_STRING};
	return p;
}

static struct blob
write_ipc_args(void)
{
	struct ir_policy *p = ipc_args_policy();
	struct blob b = write_policy(p);

	ir_policy_free(p);
	return b;
}

/* Like MUTATE_AND_EXPECT, from the artifact with typed arguments. */
#define MUTATE_IPC_ARGS_AND_EXPECT(msg, ...)                                                       \
	do {                                                                                       \
		struct blob b_ = write_ipc_args();                                                 \
		struct tart t_;                                                                    \
		struct blob m_;                                                                    \
		explode(&b_, &t_);                                                                 \
		{                                                                                  \
			struct tart *t = &t_;                                                      \
			(void)t;                                                                   \
			__VA_ARGS__;                                                               \
		}                                                                                  \
		m_ = assemble(&t_);                                                                \
		expect_refused(m_.data, m_.len, msg);                                              \
		free(m_.data);                                                                     \
		free(b_.data);                                                                     \
		tart_free(&t_);                                                                    \
	} while (0)

/* Without an `arg` line the section is not written (a 1.2 launcher reads
 * the artifact), and every command has no typed argument. */
Test(artifact_ipc_args, absent_without_an_arg_line)
{
	struct blob b = write_rich();
	struct art_view v;
	struct art_ipc c;
	const char *name = NULL;
	unsigned type = 0;

	expect_valid(b.data, b.len, &v);
	cr_assert_null(v.sec[ART_SEC_IPC_ARGS].data);
	for (size_t i = 0; i < art_ipc_count(&v); i++) {
		cr_assert_eq(art_ipc_at(&v, i, &c), 0);
		cr_assert_eq(art_ipc_typed_count(&v, &c), 0);
		cr_assert_eq(art_ipc_typed_at(&v, &c, 0, &name, &type), -ENOENT);
	}
	free(b.data);
}

Test(artifact_ipc_args, accessors_and_round_trip)
{
	struct ir_policy *p = ipc_args_policy(), *q;
	struct blob b = write_policy(p), w;
	static const struct {
		size_t cmd, n;
		const char *names[3];
		unsigned types[3];
	} want[] = {
		{0, 3, {"q", "limit", "safe"}, {3, 1, 2}},
		{1, 0, {NULL}, {0}},
		{2, 1, {"file"}, {0}},
	};
	struct art_view v;

	expect_valid(b.data, b.len, &v);
	cr_assert_not_null(v.sec[ART_SEC_IPC_ARGS].data);
	cr_assert_eq(v.sec[ART_SEC_IPC_ARGS].count, 4);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct art_ipc c;
		const char *name = NULL;
		unsigned type = 99;

		cr_assert_eq(art_ipc_at(&v, want[i].cmd, &c), 0);
		cr_assert_eq(art_ipc_typed_count(&v, &c), want[i].n, "command %zu", i);
		for (size_t j = 0; j < want[i].n; j++) {
			cr_assert_eq(art_ipc_typed_at(&v, &c, j, &name, &type), 0);
			cr_assert_str_eq(name, want[i].names[j]);
			cr_assert_eq(type, want[i].types[j]);
		}
		cr_assert_eq(art_ipc_typed_at(&v, &c, want[i].n, &name, &type), -ENOENT);
		cr_assert_eq(art_ipc_typed_at(&v, &c, (size_t)-1, &name, &type), -ENOENT);
	}
	{
		/* The positionals stay where they were. */
		struct art_ipc c;

		cr_assert_eq(art_ipc_at(&v, 0, &c), 0);
		cr_assert_eq(c.nargs, 3);
		cr_assert_str_eq(art_ipc_arg(&v, &c, 1), "q");
	}
	q = load_ok(&b);
	assert_policy_eq(p, q);
	w = write_policy(q);
	cr_assert_eq(w.len, b.len);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0, "write(load(x)) differs");
	ir_policy_free(p);
	ir_policy_free(q);
	free(w.data);
	free(b.data);
}

/* A 1.2 reader refuses the section (critical, a type it does not know)
 * rather than pass a path argument unchecked; no arguments anywhere is
 * said by leaving it out. */
Test(artifact_ipc_args, critical_and_optional)
{
	MUTATE_IPC_ARGS_AND_EXPECT("(IPC_ARGS): wrong flags 0x0",
				   t->s[find_sec(t, ART_SEC_IPC_ARGS)].flags = 0);
	MUTATE_IPC_ARGS_AND_EXPECT("duplicate section IPC_ARGS", {
		size_t i = find_sec(t, ART_SEC_IPC_ARGS);
		tart_add(t, ART_SEC_IPC_ARGS, ART_SECF_CRITICAL, t->s[i].data, t->s[i].size);
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS: no record", {
		size_t i = find_sec(t, ART_SEC_IPC_ARGS);
		le_put32(t->s[i].data, 0);
		tart_resize(t, i, 16);
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS: unexpected trailing items", {
		size_t i = find_sec(t, ART_SEC_IPC_ARGS);
		le_put32(t->s[i].data + 8, 4);
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS: record size 8 is smaller than 16",
				   le_put32(table(t, ART_SEC_IPC_ARGS) + 4, 8));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS: size", {
		size_t i = find_sec(t, ART_SEC_IPC_ARGS);
		tart_resize(t, i, t->s[i].size - 4);
	});
}

/* Everything the broker will trust, tampered one at a time behind valid
 * checksums: refused before anything is applied. */
Test(artifact_ipc_args, tampered_records)
{
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 3: command 3 out of range (3 commands)",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 3), 3));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 3: command 4294967295 out of range",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 3), 0xffffffffu));
	/* web_search's first two moved behind tag's: one command in two runs. */
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 2: command 0 out of order", {
		le_put32(rec(t, ART_SEC_IPC_ARGS, 0), 2);
		le_put32(rec(t, ART_SEC_IPC_ARGS, 1), 2);
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 3: command 1 out of order", {
		le_put32(rec(t, ART_SEC_IPC_ARGS, 2), 2);
		le_put32(rec(t, ART_SEC_IPC_ARGS, 3), 1);
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: name string is missing",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, ART_STR_NONE));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: name string offset",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, strtab_find(t, "limit") + 1));
	MUTATE_IPC_ARGS_AND_EXPECT("is not on a string start",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, strtab_find(t, "limit") + 1));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: name string offset 4294967294 is outside",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, 0xfffffffeu));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: \"\" is not an argument name",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, 0));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: \"/usr/bin/tag\" is not an argument name",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4,
					    strtab_find(t, "/usr/bin/tag")));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: \"PATH\" is not an argument name",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4, strtab_find(t, "PATH")));
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: invalid type 4",
				   rec(t, ART_SEC_IPC_ARGS, 1)[8] = 4);
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: invalid type 255",
				   rec(t, ART_SEC_IPC_ARGS, 1)[8] = 255);
	for (unsigned k = 9; k < 16; k++)
		MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 0: reserved field is not zero",
					   rec(t, ART_SEC_IPC_ARGS, 0)[k] = 1);
	/* limit renamed to q: q declared twice for web_search. */
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 1: argument \"q\" declared twice",
				   le_put32(rec(t, ART_SEC_IPC_ARGS, 1) + 4,
					    le_get32(rec(t, ART_SEC_IPC_ARGS, 0) + 4)));
	/* The same name under another command is fine: file moved to web_search
	 * would be too, but q moved to tag is a duplicate nowhere. */
	/* q (a positional) made bool. */
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 0: bool argument \"q\" is a positional",
				   rec(t, ART_SEC_IPC_ARGS, 0)[8] = ART_IPC_ARG_BOOL);
	/* tag's file moved to web_search, behind safe: a fourth name, fine;
	 * then named like web_search's positional json-out, as a bool. */
	MUTATE_IPC_ARGS_AND_EXPECT("IPC_ARGS record 3: bool argument \"json-out\" is a positional", {
		le_put32(rec(t, ART_SEC_IPC_ARGS, 3), 0);
		le_put32(rec(t, ART_SEC_IPC_ARGS, 3) + 4, strtab_find(t, "json-out"));
		rec(t, ART_SEC_IPC_ARGS, 3)[8] = ART_IPC_ARG_BOOL;
	});
	/* The positionals the broker parses against are checked as well. */
	MUTATE_IPC_ARGS_AND_EXPECT("IPC record 0: positional \"q\" given twice", {
		size_t i = find_sec(t, ART_SEC_IPC);
		uint8_t *items = t->s[i].data + t->s[i].size - 3 * 4;
		le_put32(items + 8, le_get32(items + 4));
	});
	MUTATE_IPC_ARGS_AND_EXPECT("IPC record 0: positional \"/usr/bin/tag\" is not an argument name", {
		size_t i = find_sec(t, ART_SEC_IPC);
		le_put32(t->s[i].data + t->s[i].size - 4, strtab_find(t, "/usr/bin/tag"));
	});
}

/* A record moved to another command that is otherwise valid is read
 * there: the accessors follow the records, not a cached count. */
Test(artifact_ipc_args, record_moved_to_another_command)
{
	struct blob b = write_ipc_args(), m;
	struct tart t;
	struct art_view v;
	struct art_ipc c;
	const char *name = NULL;
	unsigned type = 0;
	uint8_t *x;

	explode(&b, &t);
	le_put32(rec(&t, ART_SEC_IPC_ARGS, 2), 1); /* safe: web_search -> notify */
	m = assemble(&t);
	x = copy_exact(m.data, m.len);
	expect_valid(x, m.len, &v);
	cr_assert_eq(art_ipc_at(&v, 0, &c), 0);
	cr_assert_eq(art_ipc_typed_count(&v, &c), 2);
	cr_assert_eq(art_ipc_at(&v, 1, &c), 0);
	cr_assert_eq(art_ipc_typed_count(&v, &c), 1);
	cr_assert_eq(art_ipc_typed_at(&v, &c, 0, &name, &type), 0);
	cr_assert_str_eq(name, "safe");
	cr_assert_eq(type, ART_IPC_ARG_BOOL);
	free(x);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

/* ------------------------------------------------------------ DECIDER */

static struct blob
write_decider(void)
{
	struct ir_policy *p = decider_policy();
	struct blob b = write_policy(p);

	ir_policy_free(p);
	return b;
}

/* Like MUTATE_AND_EXPECT, from the artifact with deciders. */
#define MUTATE_DECIDER_AND_EXPECT(msg, ...)                                                        \
	do {                                                                                       \
		struct blob b_ = write_decider();                                                  \
		struct tart t_;                                                                    \
		struct blob m_;                                                                    \
		explode(&b_, &t_);                                                                 \
		{                                                                                  \
			struct tart *t = &t_;                                                      \
			(void)t;                                                                   \
			__VA_ARGS__;                                                               \
		}                                                                                  \
		m_ = assemble(&t_);                                                                \
		expect_refused(m_.data, m_.len, msg);                                              \
		free(m_.data);                                                                     \
		free(b_.data);                                                                     \
		tart_free(&t_);                                                                    \
	} while (0)

/* Without a decider the section is not written, so the artifact stays
 * readable by a 1.0 launcher, and the accessor says "none". */
Test(artifact_decider, absent_without_a_decider)
{
	struct blob b = write_rich();
	struct art_view v;
	struct art_decider d;

	expect_valid(b.data, b.len, &v);
	cr_assert_eq(v.fmt_minor, ART_FMT_MINOR);
	cr_assert_null(v.sec[ART_SEC_DECIDER].data);
	for (unsigned p = 0; p < ART_PLATFORM_COUNT; p++) {
		cr_assert_eq(art_network_decider(&v, p, &d), 0);
		cr_assert_null(d.program);
		cr_assert_eq(d.nargs, 0);
		cr_assert_null(art_decider_arg(&v, &d, 0));
	}
	cr_assert_eq(art_network_decider(&v, ART_PLATFORM_COUNT, &d), -ERANGE);
	free(b.data);
}

Test(artifact_decider, accessors_and_round_trip)
{
	struct ir_policy *p = decider_policy(), *q;
	struct blob b = write_policy(p), w;
	struct art_view v;
	struct art_decider d;

	expect_valid(b.data, b.len, &v);
	cr_assert_not_null(v.sec[ART_SEC_DECIDER].data);
	cr_assert_eq(art_network_decider(&v, ART_LINUX, &d), 0);
	cr_assert_str_eq(d.program, "${HOME}/bin/net-decider");
	cr_assert_eq(d.nargs, 2);
	cr_assert_str_eq(art_decider_arg(&v, &d, 0), "--verdicts");
	cr_assert_str_eq(art_decider_arg(&v, &d, 1), "");
	cr_assert_null(art_decider_arg(&v, &d, 2));
	cr_assert_str_eq(d.origin.file, "policy.heel");
	cr_assert_eq(d.origin.line, 41);
	cr_assert_eq(art_network_decider(&v, ART_MACOS, &d), 0);
	cr_assert_str_eq(d.program, "/usr/local/bin/decide");
	cr_assert_eq(d.nargs, 0);
	cr_assert_null(art_decider_arg(&v, &d, 0));
	cr_assert_str_eq(d.origin.file, "<python>");
	cr_assert_eq(art_network_decider(&v, ART_WINDOWS, &d), 0);
	cr_assert_null(d.program);

	q = load_ok(&b);
	assert_policy_eq(p, q);
	w = write_policy(q);
	cr_assert_eq(w.len, b.len);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0, "write(load(x)) differs");
	ir_policy_free(p);
	ir_policy_free(q);
	free(w.data);
	free(b.data);
}

/* An old (1.0) reader must refuse the section rather than run without the
 * decider: it is critical, and its type is one 1.0 did not know. */
Test(artifact_decider, critical_and_optional)
{
	MUTATE_DECIDER_AND_EXPECT("section 9 (DECIDER): wrong flags 0x0",
				  t->s[find_sec(t, ART_SEC_DECIDER)].flags = 0);
	MUTATE_DECIDER_AND_EXPECT("duplicate section DECIDER", {
		size_t i = find_sec(t, ART_SEC_DECIDER);
		tart_add(t, ART_SEC_DECIDER, ART_SECF_CRITICAL, t->s[i].data, t->s[i].size);
	});
	/* No decider anywhere is said by leaving the section out, never by
	 * an empty one. */
	MUTATE_DECIDER_AND_EXPECT("DECIDER: no platform has a decider", {
		size_t i = find_sec(t, ART_SEC_DECIDER);
		for (size_t r = 0; r < 3; r++) {
			uint8_t *x = rec(t, ART_SEC_DECIDER, r);
			le_put32(x + 4, ART_STR_NONE);
			le_put32(x + 8, 0);
			le_put32(x + 12, 0);
			le_put32(x + 16, ART_STR_NONE);
			le_put32(x + 20, 0);
			le_put32(x + 24, 0);
		}
		le_put32(t->s[i].data + 8, 0);
		tart_resize(t, i, 16 + 3 * 32);
	});
}

Test(artifact_decider, records)
{
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 1: platform 0 given twice",
				  le_put32(rec(t, ART_SEC_DECIDER, 1), 0));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 2: unknown platform 3",
				  le_put32(rec(t, ART_SEC_DECIDER, 2), 3));
	MUTATE_DECIDER_AND_EXPECT(
	    "DECIDER record 0: program string offset",
	    le_put32(rec(t, ART_SEC_DECIDER, 0) + 4, strtab_find(t, "${HOME}/bin/net-decider") + 2));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 1: program string offset 4096 is outside",
				  le_put32(rec(t, ART_SEC_DECIDER, 1) + 4, 4096));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 2: arguments without a program",
				  le_put32(rec(t, ART_SEC_DECIDER, 2) + 12, 1));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 2: origin without a program",
				  le_put32(rec(t, ART_SEC_DECIDER, 2) + 20, 7));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 2: origin without a program",
				  le_put32(rec(t, ART_SEC_DECIDER, 2) + 16, 0));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 0: reserved field is not zero",
				  le_put32(rec(t, ART_SEC_DECIDER, 0) + 28, 1));
	MUTATE_DECIDER_AND_EXPECT(
	    "DECIDER record 1: origin file string offset",
	    le_put32(rec(t, ART_SEC_DECIDER, 1) + 16, strtab_find(t, "<python>") + 1));
}

/* ------------------------------------------------------------ READONLY */

/* rich_policy() with three `readonly` paths: one of the host-run set in
 * a home directory, one of the policy's own without a reason, and one of
 * the set inside every writable place. The second reason looks like a
 * path that climbs: the refusals below point a path at it. */
static struct ir_policy *
readonly_policy(void)
{
	struct ir_policy *p = rich_policy();

	p->nreadonly = 3;
	p->readonly = calloc(3, sizeof(*p->readonly));
	cr_assert_not_null(p->readonly);
	p->readonly[0] = (struct ir_readonly){xs("${HOME}/.bashrc"), xs("bash runs it"), false,
					      IR_PLAT_BIT(IR_LINUX), IR_SET_HOST_RUN,
					      IR_SRC_PROTECTION, org(p, "<protect/host-run>", 40, 5)};
	p->readonly[1] = (struct ir_readonly){xs("notes/run.sh"), xs("../up"), false, IR_PLAT_ALL,
					      IR_SET_NONE, IR_SRC_USER, org(p, "policy.heel", 45, 1)};
	p->readonly[2] = (struct ir_readonly){xs(".git/hooks"), NULL, true, IR_PLAT_ALL,
					      IR_SET_HOST_RUN, IR_SRC_PROTECTION,
					      org(p, "<protect/host-run>", 20, 1)};
	return p;
}

static struct blob
write_readonly(void)
{
	struct ir_policy *p = readonly_policy();
	struct blob b = write_policy(p);

	ir_policy_free(p);
	return b;
}

#define MUTATE_READONLY_AND_EXPECT(msg, ...)                                                       \
	do {                                                                                       \
		struct blob b_ = write_readonly();                                                 \
		struct tart t_;                                                                    \
		struct blob m_;                                                                    \
		explode(&b_, &t_);                                                                 \
		{                                                                                  \
			struct tart *t = &t_;                                                      \
			(void)t;                                                                   \
			__VA_ARGS__;                                                               \
		}                                                                                  \
		m_ = assemble(&t_);                                                                \
		expect_refused(m_.data, m_.len, msg);                                              \
		free(m_.data);                                                                     \
		free(b_.data);                                                                     \
		tart_free(&t_);                                                                    \
	} while (0)

/* No readonly path, no section: what `unprotect host-run` compiles to
 * stays readable by a 1.1 launcher. */
Test(artifact_readonly, absent_without_one)
{
	struct blob b = write_rich();
	struct art_view v;
	struct art_readonly r;

	expect_valid(b.data, b.len, &v);
	cr_assert_null(v.sec[ART_SEC_READONLY].data);
	cr_assert_eq(art_readonly_count(&v), 0);
	cr_assert_eq(art_readonly_at(&v, 0, &r), -ERANGE);
	free(b.data);
}

Test(artifact_readonly, accessors_and_round_trip)
{
	struct ir_policy *p = readonly_policy(), *q;
	struct blob b = write_policy(p), w;
	struct art_view v;
	struct art_readonly r;

	expect_valid(b.data, b.len, &v);
	cr_assert_not_null(v.sec[ART_SEC_READONLY].data);
	cr_assert_eq(art_readonly_count(&v), 3);
	cr_assert_eq(art_readonly_at(&v, 0, &r), 0);
	cr_assert_str_eq(r.path, "${HOME}/.bashrc");
	cr_assert_str_eq(r.because, "bash runs it");
	cr_assert_not(r.each_writable);
	cr_assert_eq(r.platforms, ART_PLAT_BIT(ART_LINUX));
	cr_assert_eq(r.set, ART_SET_HOST_RUN);
	cr_assert_eq(r.source, ART_SRC_PROTECTION);
	cr_assert_str_eq(r.origin.file, "<protect/host-run>");
	cr_assert_eq(r.origin.line, 40);
	cr_assert_eq(art_readonly_at(&v, 2, &r), 0);
	cr_assert_str_eq(r.path, ".git/hooks");
	cr_assert_null(r.because);
	cr_assert(r.each_writable);
	cr_assert_eq(art_readonly_at(&v, 3, &r), -ERANGE);

	q = load_ok(&b);
	assert_policy_eq(p, q);
	w = write_policy(q);
	cr_assert_eq(w.len, b.len);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0, "write(load(x)) differs");
	ir_policy_free(p);
	ir_policy_free(q);
	free(w.data);
	free(b.data);
}

/* A 1.1 reader does not know type 11 and, the section being critical,
 * refuses the artifact rather than run with the host's hooks writable. */
Test(artifact_readonly, critical_and_one_encoding)
{
	MUTATE_READONLY_AND_EXPECT("section 9 (READONLY): wrong flags 0x0",
				   t->s[find_sec(t, ART_SEC_READONLY)].flags = 0);
	MUTATE_READONLY_AND_EXPECT("duplicate section READONLY", {
		size_t i = find_sec(t, ART_SEC_READONLY);
		tart_add(t, ART_SEC_READONLY, ART_SECF_CRITICAL, t->s[i].data, t->s[i].size);
	});
	MUTATE_READONLY_AND_EXPECT("READONLY: no record", {
		size_t i = find_sec(t, ART_SEC_READONLY);
		le_put32(t->s[i].data, 0);
		tart_resize(t, i, 16);
	});
	MUTATE_READONLY_AND_EXPECT("READONLY: unexpected trailing items",
				   le_put32(table(t, ART_SEC_READONLY) + 8, 1));
}

Test(artifact_readonly, records)
{
	MUTATE_READONLY_AND_EXPECT("READONLY record 0: path string is missing",
				   le_put32(rec(t, ART_SEC_READONLY, 0), ART_STR_NONE));
	MUTATE_READONLY_AND_EXPECT("READONLY record 1: empty path",
				   le_put32(rec(t, ART_SEC_READONLY, 1), 0));
	MUTATE_READONLY_AND_EXPECT(
	    "READONLY record 0: because string offset",
	    le_put32(rec(t, ART_SEC_READONLY, 0) + 4, strtab_find(t, "bash runs it") + 1));
	MUTATE_READONLY_AND_EXPECT("READONLY record 1: invalid form 2",
				   rec(t, ART_SEC_READONLY, 1)[8] = 2);
	MUTATE_READONLY_AND_EXPECT("READONLY record 2: invalid platform mask 0x0",
				   rec(t, ART_SEC_READONLY, 2)[9] = 0);
	MUTATE_READONLY_AND_EXPECT("READONLY record 2: invalid protection set 9",
				   rec(t, ART_SEC_READONLY, 2)[10] = 9);
	MUTATE_READONLY_AND_EXPECT("READONLY record 0: invalid rule source 4",
				   rec(t, ART_SEC_READONLY, 0)[11] = 4);
	MUTATE_READONLY_AND_EXPECT("READONLY record 1: reserved field is not zero",
				   rec(t, ART_SEC_READONLY, 1)[31] = 1);
}

/* An each-writable path is looked up inside every writable place: one
 * that names a place of its own, or climbs out, is refused. */
Test(artifact_readonly, each_writable_stays_inside)
{
	MUTATE_READONLY_AND_EXPECT(
	    "READONLY record 2: an each-writable path must be relative and literal",
	    le_put32(rec(t, ART_SEC_READONLY, 2), strtab_find(t, "${HOME}/.bashrc")));
	MUTATE_READONLY_AND_EXPECT(
	    "READONLY record 2: an each-writable path must be relative and literal",
	    le_put32(rec(t, ART_SEC_READONLY, 2), strtab_find(t, "/usr")));
	MUTATE_READONLY_AND_EXPECT(
	    "READONLY record 2: an each-writable path must stay inside its place",
	    le_put32(rec(t, ART_SEC_READONLY, 2), strtab_find(t, "../up")));
	/* The same path as a place of its own is fine. */
	{
		struct blob b = write_readonly(), m;
		struct art_view v;
		struct tart t;

		explode(&b, &t);
		rec(&t, ART_SEC_READONLY, 2)[8] = ART_RO_PATH;
		m = assemble(&t);
		expect_valid(m.data, m.len, &v);
		free(m.data);
		free(b.data);
		tart_free(&t);
	}
}

Test(artifact_decider, arguments)
{
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 0: arguments [1, +2) out of order or out of range",
				  le_put32(rec(t, ART_SEC_DECIDER, 0) + 8, 1));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 0: arguments [0, +3) out of order or out of range",
				  le_put32(rec(t, ART_SEC_DECIDER, 0) + 12, 3));
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 0: arguments [0, +4294967295)",
				  le_put32(rec(t, ART_SEC_DECIDER, 0) + 12, 0xffffffff));
	MUTATE_DECIDER_AND_EXPECT("DECIDER: 2 arguments stored, 1 used", {
		le_put32(rec(t, ART_SEC_DECIDER, 0) + 12, 1);
		le_put32(rec(t, ART_SEC_DECIDER, 1) + 8, 1);
		le_put32(rec(t, ART_SEC_DECIDER, 2) + 8, 1);
	});
	MUTATE_DECIDER_AND_EXPECT("DECIDER record 1: item string is missing", {
		size_t i = find_sec(t, ART_SEC_DECIDER);
		le_put32(t->s[i].data + t->s[i].size - 4, ART_STR_NONE);
	});
	MUTATE_DECIDER_AND_EXPECT("DECIDER: 4 platform records, expected 3", {
		size_t i = find_sec(t, ART_SEC_DECIDER);
		uint8_t *d = calloc(1, t->s[i].size + 32);
		cr_assert_not_null(d);
		memcpy(d, t->s[i].data, 16 + 3 * 32);
		memcpy(d + 16 + 4 * 32, t->s[i].data + 16 + 3 * 32, t->s[i].size - 16 - 3 * 32);
		le_put32(d, 4);
		free(t->s[i].data);
		t->s[i].data = d;
		t->s[i].size += 32;
	});
}

/* A decider where SCALARS deny the network: no proxy would ask it, and
 * explain would show a reviewer a decision that is never made. */
Test(artifact_decider, refused_where_the_network_is_denied)
{
	MUTATE_DECIDER_AND_EXPECT(
	    "DECIDER record 1: a decider on platform 1, whose network is denied",
	    le_put64(rec(t, ART_SEC_SCALARS, 1) + 8 + ART_SC_NETWORK * 32, 0));
	MUTATE_DECIDER_AND_EXPECT(
	    "DECIDER record 0: a decider on platform 0, whose network is denied",
	    le_put64(rec(t, ART_SEC_SCALARS, 0) + 8 + ART_SC_NETWORK * 32, 0));
}

/* ------------------------------------------------------------ EXTRAS, META */

Test(artifact_extras, records)
{
	MUTATE_AND_EXPECT("EXTRAS record 0: invalid kind 0",
			  le_put32(rec(t, ART_SEC_EXTRAS, 0), 0));
	MUTATE_AND_EXPECT("EXTRAS record 3: invalid kind 6",
			  le_put32(rec(t, ART_SEC_EXTRAS, 3), 6));
	/* seccomp is linux-only, capabilities windows-only */
	MUTATE_AND_EXPECT("EXTRAS record 0: invalid platform mask 0x2",
			  rec(t, ART_SEC_EXTRAS, 0)[8] = 2);
	MUTATE_AND_EXPECT("EXTRAS record 4: invalid platform mask 0x7",
			  rec(t, ART_SEC_EXTRAS, 4)[8] = 7);
	MUTATE_AND_EXPECT("EXTRAS record 6: invalid platform mask 0x3",
			  rec(t, ART_SEC_EXTRAS, 6)[8] = 3);
	MUTATE_AND_EXPECT("EXTRAS record 6: invalid platform mask 0x0",
			  rec(t, ART_SEC_EXTRAS, 6)[8] = 0);
	MUTATE_AND_EXPECT("EXTRAS record 1: invalid action", rec(t, ART_SEC_EXTRAS, 1)[9] = 2);
	MUTATE_AND_EXPECT("EXTRAS record 2: invalid action", rec(t, ART_SEC_EXTRAS, 2)[9] = 1);
	MUTATE_AND_EXPECT("EXTRAS record 3: invalid action",
			  le_put16(rec(t, ART_SEC_EXTRAS, 3) + 10, 13));
	MUTATE_AND_EXPECT("EXTRAS record 5: value string is missing",
			  le_put32(rec(t, ART_SEC_EXTRAS, 5) + 4, ART_STR_NONE));
}

Test(artifact_extras, excluded_once_per_platform)
{
	MUTATE_AND_EXPECT("EXTRAS record 7: platform excluded twice", {
		size_t i = find_sec(t, ART_SEC_EXTRAS);
		uint8_t *d = calloc(1, t->s[i].size + 24);
		cr_assert_not_null(d);
		memcpy(d, t->s[i].data, t->s[i].size);
		memcpy(d + t->s[i].size, d + t->s[i].size - 24, 24);
		le_put32(d, 8);
		free(t->s[i].data);
		t->s[i].data = d;
		t->s[i].size += 24;
	});
}

Test(artifact_meta, records)
{
	MUTATE_AND_EXPECT("META: 8 bytes, shorter than 40",
			  tart_resize(t, find_sec(t, ART_SEC_META), 8));
	MUTATE_AND_EXPECT("META: reserved field is not zero",
			  le_put32(table(t, ART_SEC_META) + 4, 1));
}

/* 1.2: the top source is a name beside the artifact, never a path, and
 * NONE has one encoding. */
Test(artifact_meta, source)
{
	MUTATE_AND_EXPECT("META: source name \"/usr\" is not a file name",
			  le_put32(table(t, ART_SEC_META) + 40, strtab_find(t, "/usr")));
	MUTATE_AND_EXPECT("META: source name \"\" is not a file name",
			  le_put32(table(t, ART_SEC_META) + 40, 0));
	MUTATE_AND_EXPECT("META record 0: source name string offset 4096000 is outside",
			  le_put32(table(t, ART_SEC_META) + 40, 4096000));
	MUTATE_AND_EXPECT("META: a source size or checksum without a source name",
			  le_put32(table(t, ART_SEC_META) + 40, ART_STR_NONE));
	MUTATE_AND_EXPECT("META: source size 16777217 is larger than heelc reads",
			  le_put64(table(t, ART_SEC_META) + 48, 16777217));
}

/* A policy compiled from memory names no source: NONE, 0, 0. */
Test(artifact_meta, no_source)
{
	struct ir_policy *p = rich_policy(), *q;
	struct blob b;
	struct art_view v;
	struct art_meta m;

	p->source_name = NULL;
	b = write_policy(p);
	expect_valid(b.data, b.len, &v);
	cr_assert(art_meta(&v, &m));
	cr_assert_null(m.source_name);
	cr_assert_eq(m.source_size, 0);
	cr_assert_eq(m.source_crc, 0);
	q = load_ok(&b);
	cr_assert_null(q->source_name);
	ir_policy_free(q);
	ir_policy_free(p);
	free(b.data);
}

/* An artifact of format 1.1 (META of 40 bytes, no source) still loads. */
Test(artifact_compat, meta_of_1_1_still_loads)
{
	struct blob b = write_rich(), m, w;
	struct tart t;
	struct art_view v;
	struct art_meta meta;
	struct ir_policy *q;

	explode(&b, &t);
	t.minor = 1;
	tart_resize(&t, find_sec(&t, ART_SEC_META), 40);
	m = assemble(&t);
	expect_valid(m.data, m.len, &v);
	cr_assert_eq(v.fmt_minor, 1);
	cr_assert(art_meta(&v, &meta));
	cr_assert_str_eq(meta.compiler_version, ARTIFACT_COMPILER_VERSION);
	cr_assert_null(meta.source_name);
	q = load_ok(&m);
	cr_assert_null(q->source_name);
	cr_assert_eq(q->source_digest[0], 0xa0);
	w = write_policy(q);
	expect_valid(w.data, w.len, &v);
	ir_policy_free(q);
	free(w.data);
	free(m.data);
	free(b.data);
	tart_free(&t);
}

/* ------------------------------------------------------------ Linux sections */

/* Index in the exploded artifact of its k-th SECCOMP_BPF section. */
static size_t
bpf_sec(struct tart *t, unsigned k)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].type == ART_SEC_SECCOMP_BPF && k-- == 0)
			return i;
	cr_assert_fail("no SECCOMP_BPF section %u", k);
	return 0;
}

static uint32_t
bpf_count(struct tart *t, unsigned k)
{
	return le_get32(t->s[bpf_sec(t, k)].data + offsetof(struct art_bpf_header, insn_count));
}

/* Instruction i of the k-th program (0 x86_64, 1 aarch64 in heelc's order). */
static uint8_t *
bpf_insn(struct tart *t, unsigned k, size_t i)
{
	cr_assert_lt(i, bpf_count(t, k));
	return t->s[bpf_sec(t, k)].data + sizeof(struct art_bpf_header) + i * ART_BPF_INSN_SIZE;
}

static struct ir_policy *
rich_macos_only(void)
{
	struct ir_policy *p = rich_policy();

	p->platforms = IR_PLAT_BIT(IR_MACOS);
	return p;
}

/* The validator accepts buf, the loader refuses it with `msg`: damage the
 * structure allows, caught by rebuilding the Linux sections from the IR. */
static void
expect_load_refused(const uint8_t *buf, size_t len, const char *msg)
{
	uint8_t *c = copy_exact(buf, len);
	struct ir_policy *p = (struct ir_policy *)1;
	struct art_view v;
	char err[256] = "";

	expect_valid(c, len, &v);
	cr_assert_eq(artifact_load(c, len, &p, err, sizeof(err)), -EINVAL);
	cr_assert_null(p);
	cr_assert_not_null(strstr(err, msg), "loader: expected \"%s\" in \"%s\"", msg, err);
	free(c);
}

#define MUTATE_AND_EXPECT_LOAD(msg, ...)                                                           \
	do {                                                                                       \
		struct blob b_ = write_rich();                                                     \
		struct tart t_;                                                                    \
		struct blob m_;                                                                    \
		explode(&b_, &t_);                                                                 \
		{                                                                                  \
			struct tart *t = &t_;                                                      \
			(void)t;                                                                   \
			__VA_ARGS__;                                                               \
		}                                                                                  \
		m_ = assemble(&t_);                                                                \
		expect_load_refused(m_.data, m_.len, msg);                                         \
		free(m_.data);                                                                     \
		free(b_.data);                                                                     \
		tart_free(&t_);                                                                    \
	} while (0)

Test(artifact_linux, sections_hold_what_the_backend_builds)
{
	struct ir_policy *p = rich_policy();
	struct blob b = write_policy(p);
	struct art_view v;
	struct ll_table *lt = NULL;
	struct ll_table_view tv;
	const uint8_t *payload;
	uint8_t *enc = NULL;
	size_t plen, enclen = 0;
	struct art_bpf x;

	expect_valid(b.data, b.len, &v);
	cr_assert_eq(art_landlock(&v, &payload, &plen), 0);
	cr_assert_eq(ll_lower(p, &lt), 0);
	cr_assert_eq(ll_table_encode(lt, &enc, &enclen), 0);
	cr_assert_eq(plen, enclen);
	cr_assert_eq(memcmp(payload, enc, plen), 0, "LINUX_LANDLOCK is not ll_table_encode()");
	cr_assert_eq(ll_table_parse(payload, plen, &tv, NULL, 0), 0);
	cr_assert_eq(v.min_landlock_abi, tv.min_abi);
	cr_assert_eq(le_get32(b.data + offsetof(struct art_file_header, min_landlock_abi)),
		     lt->min_abi);
	cr_assert_eq(v.nbpf, 2);
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct bpf_prog prog;
		struct bpf_sim_insn *got;

		cr_assert_eq(bpf_build(p, (enum scp_arch)a, &prog), 0);
		cr_assert_eq(art_seccomp(&v, prog.audit_arch, &x), 0);
		cr_assert_eq(x.audit_arch, prog.audit_arch);
		cr_assert_eq(x.len, prog.len);
		got = calloc(x.len, sizeof(*got));
		cr_assert_not_null(got);
		art_bpf_decode(&x, got);
		cr_assert_eq(memcmp(got, prog.insns, x.len * sizeof(*got)), 0,
			     "%s program differs from bpf_build()", scp_arch_name((enum scp_arch)a));
		cr_assert_eq(bpf_verify(got, x.len, x.audit_arch, NULL, 0), 0);
		/* Little-endian on disk whatever the host: the first
		 * instruction is ld [4] = code 0x0020, k 4. */
		cr_assert_eq(x.insns[0], 0x20);
		cr_assert_eq(x.insns[1], 0x00);
		cr_assert_eq(le_get32(x.insns + 4), 4);
		free(got);
		bpf_prog_free(&prog);
	}
	cr_assert_eq(art_seccomp(&v, 0x40000003u /* i386 */, &x), -ENOENT);
	free(enc);
	ll_table_free(lt);
	ir_policy_free(p);
	free(b.data);
}

Test(artifact_linux, absent_when_not_built_for_linux)
{
	struct ir_policy *p = rich_macos_only(), *q;
	struct blob b = write_policy(p), w;
	struct art_view v;
	const uint8_t *payload;
	size_t plen;
	struct art_bpf x;

	expect_valid(b.data, b.len, &v);
	cr_assert_eq(v.nsections, I_COUNT);
	cr_assert_eq(le_get32(b.data + offsetof(struct art_file_header, min_landlock_abi)), 0);
	cr_assert_eq(art_landlock(&v, &payload, &plen), -ENOENT);
	cr_assert_eq(art_seccomp(&v, ART_AUDIT_ARCH_X86_64, &x), -ENOENT);
	cr_assert_eq(art_seccomp(&v, ART_AUDIT_ARCH_AARCH64, &x), -ENOENT);
	cr_assert_eq(v.nbpf, 0);
	q = load_ok(&b);
	w = write_policy(q);
	cr_assert_eq(w.len, b.len);
	cr_assert_eq(memcmp(w.data, b.data, b.len), 0, "macOS-only round trip changed");
	ir_policy_free(p);
	ir_policy_free(q);
	free(w.data);
	free(b.data);
}

/* Section count of the artifact heelc writes for `args`. */
static unsigned
heelc_sections(const char *heelc, const char *dir, const char *args)
{
	char cmd[1024], path[512];
	uint8_t hdr[ART_HEADER_SIZE];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' %s '%s/p.heel' -o '%s/p.hpol'", heelc, args, dir, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(path, sizeof(path), "%s/p.hpol", dir);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	cr_assert_eq(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	fclose(f);
	return le_get16(hdr + offsetof(struct art_file_header, section_count));
}

Test(artifact_linux, heelc_target_decides)
{
	const char *heelc = getenv("HEELC");
	char dir[] = "/tmp/heel-art-linux-XXXXXX", path[64], cmd[128];
	FILE *f;

	if (!heelc || access(heelc, X_OK) != 0)
		cr_skip_test("HEELC is not set (make check-unit sets it)");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.heel", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	/* Without the host-run set, whose READONLY section would count. */
	fputs("heel 1\nunprotect host-run\ngrant \"/srv/data\" rw\non linux {\n"
	      "    seccomp deny \"open_tree_attr\"\n}\n",
	      f);
	fclose(f);
	/* Windows adds WIN_CONTAINER and WIN_ACES (1.4). */
	cr_assert_eq(heelc_sections(heelc, dir, ""), I_ALL + 2);
	cr_assert_eq(heelc_sections(heelc, dir, "--target linux"), I_ALL);
	cr_assert_eq(heelc_sections(heelc, dir, "--target macos"), I_COUNT);
	cr_assert_eq(heelc_sections(heelc, dir, "--target macos --target windows"), I_COUNT + 2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(artifact_linux, bpf_refused_with_the_verifiers_message)
{
	char msg[256];

	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): instruction 9: opcode 0x0030 is not allowed "
			  "in a seccomp filter",
			  le_put16(bpf_insn(t, 0, 9), BPF_LD | BPF_B | BPF_ABS));
	{
		struct blob b = write_rich();
		struct tart t;

		explode(&b, &t);
		cr_assert_lt(bpf_count(&t, 1), 257);
		snprintf(msg, sizeof(msg),
			 "SECCOMP_BPF (aarch64): instruction 1: jump to 257 goes past the end of "
			 "the %u-instruction program",
			 bpf_count(&t, 1));
		tart_free(&t);
		free(b.data);
	}
	MUTATE_AND_EXPECT(msg, bpf_insn(t, 1, 1)[2] = 255);
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): instruction 0: jump by 4096 goes past the end", {
		le_put16(bpf_insn(t, 0, 0), BPF_JMP | BPF_JA);
		le_put32(bpf_insn(t, 0, 0) + 4, 4096);
	});
	/* The last instruction no longer returns. */
	MUTATE_AND_EXPECT(msg, {
		uint32_t n = bpf_count(t, 0);
		snprintf(msg, sizeof(msg),
			 "SECCOMP_BPF (x86_64): the last instruction (%u) is not a RET", n - 1);
		le_put16(bpf_insn(t, 0, n - 1), BPF_LD | BPF_W | BPF_IMM);
	});
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): instructions 1-2: not the architecture check "
			  "(jeq #0xc000003e, 1, 0; ret KILL_PROCESS)",
			  le_put32(bpf_insn(t, 0, 1) + 4, ART_AUDIT_ARCH_AARCH64));
	MUTATE_AND_EXPECT("SECCOMP_BPF (aarch64): instructions 1-2: not the architecture check",
			  le_put32(bpf_insn(t, 1, 2) + 4, SECCOMP_RET_ALLOW));
	/* Each program labelled with the other's arch: its check does not
	 * match the label. */
	MUTATE_AND_EXPECT("SECCOMP_BPF (aarch64): instructions 1-2: not the architecture check "
			  "(jeq #0xc00000b7",
			  {
				  le_put32(t->s[bpf_sec(t, 0)].data, ART_AUDIT_ARCH_AARCH64);
				  le_put32(t->s[bpf_sec(t, 1)].data, ART_AUDIT_ARCH_X86_64);
			  });
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): instruction 4: the x32 guard (jge #0x40000000) "
			  "is missing",
			  le_put32(bpf_insn(t, 0, 4) + 4, 0x40000001u));
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): instruction 5: load offset 6 is not 4-byte aligned",
			  {
				  le_put16(bpf_insn(t, 0, 5), BPF_LD | BPF_W | BPF_ABS);
				  le_put32(bpf_insn(t, 0, 5) + 4, 6);
			  });
}

Test(artifact_linux, bpf_section_structure)
{
	MUTATE_AND_EXPECT("section 10 (SECCOMP_BPF): unknown architecture 0x40000003",
			  le_put32(t->s[bpf_sec(t, 0)].data, 0x40000003u));
	MUTATE_AND_EXPECT("SECCOMP_BPF: two programs for x86_64",
			  le_put32(t->s[bpf_sec(t, 1)].data, ART_AUDIT_ARCH_X86_64));
	MUTATE_AND_EXPECT("too many SECCOMP_BPF sections (at most 2", {
		struct tsec *s = &t->s[bpf_sec(t, 0)];
		tart_add(t, ART_SEC_SECCOMP_BPF, s->flags, s->data, s->size);
	});
	MUTATE_AND_EXPECT("SECCOMP_BPF (aarch64): reserved field is not zero",
			  t->s[bpf_sec(t, 1)].data[12] = 1);
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): size", {
		le_put32(t->s[bpf_sec(t, 0)].data + 4, bpf_count(t, 0) + 1);
	});
	MUTATE_AND_EXPECT("does not match 4294967295 instructions of 8 bytes",
			  le_put32(t->s[bpf_sec(t, 0)].data + 4, UINT32_MAX));
	MUTATE_AND_EXPECT("section 11 (SECCOMP_BPF): 15 bytes, shorter than its 16-byte header",
			  tart_resize(t, bpf_sec(t, 1), 15));
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): 4097 instructions, more than the kernel's limit "
			  "of 4096",
			  {
				  size_t i = bpf_sec(t, 0);
				  tart_resize(t, i, 16 + 8 * 4097);
				  le_put32(t->s[i].data + 4, 4097);
			  });
	MUTATE_AND_EXPECT("SECCOMP_BPF (x86_64): empty seccomp program", {
		size_t i = bpf_sec(t, 0);
		tart_resize(t, i, 16);
		le_put32(t->s[i].data + 4, 0);
	});
	MUTATE_AND_EXPECT("section 10 (SECCOMP_BPF): wrong flags 0x1",
			  t->s[bpf_sec(t, 0)].flags = ART_SECF_CRITICAL);
	MUTATE_AND_EXPECT("section 9 (LINUX_LANDLOCK): wrong flags 0x3",
			  t->s[find_sec(t, ART_SEC_LINUX_LANDLOCK)].flags = 3);
	MUTATE_AND_EXPECT("section 2 (PATHS): wrong flags 0x3",
			  t->s[find_sec(t, ART_SEC_PATHS)].flags = 3);
}

Test(artifact_linux, landlock_payload_refused)
{
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: version 2, this heel-exec reads 1",
			  le_put32(table(t, ART_SEC_LINUX_LANDLOCK), 2));
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: 40 bytes, shorter than its header",
			  tart_resize(t, find_sec(t, ART_SEC_LINUX_LANDLOCK), 40));
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: 0 bytes, shorter than its header",
			  tart_resize(t, find_sec(t, ART_SEC_LINUX_LANDLOCK), 0));
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: landlock rule 0: unknown kind 9",
			  le_put32(table(t, ART_SEC_LINUX_LANDLOCK) + LL_TABLE_HEADER_SIZE, 9));
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: unknown flags 0x80",
			  le_put32(table(t, ART_SEC_LINUX_LANDLOCK) + LL_HDR_FLAGS, 0x80));
	MUTATE_AND_EXPECT("LINUX_LANDLOCK: ", {
		size_t i = find_sec(t, ART_SEC_LINUX_LANDLOCK);
		tart_resize(t, i, t->s[i].size - 8);
	});
	/* The header's minimum and the table's must agree. */
	MUTATE_AND_EXPECT("header min_landlock_abi 10 does not match the Landlock table's 11",
			  le_put32(table(t, ART_SEC_LINUX_LANDLOCK) + LL_HDR_MIN_ABI, 11));
	MUTATE_AND_EXPECT("header min_landlock_abi 0 does not match the Landlock table's 10",
			  t->min_abi = 0);
	MUTATE_AND_EXPECT("header min_landlock_abi 9 does not match the Landlock table's 10",
			  t->min_abi = 9);
	MUTATE_AND_EXPECT("duplicate section LINUX_LANDLOCK", {
		struct tsec *s = &t->s[find_sec(t, ART_SEC_LINUX_LANDLOCK)];
		tart_add(t, ART_SEC_LINUX_LANDLOCK, ART_SECF_CRITICAL, s->data, s->size);
	});
}

Test(artifact_linux, presence_follows_the_platforms)
{
	MUTATE_AND_EXPECT("missing section LINUX_LANDLOCK (the policy is built for linux)", {
		tart_remove(t, find_sec(t, ART_SEC_LINUX_LANDLOCK));
		t->min_abi = 0;
	});
	MUTATE_AND_EXPECT("missing section SECCOMP_BPF for aarch64 (the policy is built for linux)",
			  tart_remove(t, bpf_sec(t, 1)));
	MUTATE_AND_EXPECT("missing section SECCOMP_BPF for x86_64", {
		tart_remove(t, bpf_sec(t, 1));
		tart_remove(t, bpf_sec(t, 0));
	});
	/* SCALARS record 0 is linux: switch it off. */
	MUTATE_AND_EXPECT("section SECCOMP_BPF is present, but the policy is not built for linux",
			  le_put32(rec(t, ART_SEC_SCALARS, 0) + 4, 0));
	MUTATE_AND_EXPECT("section LINUX_LANDLOCK is present, but the policy is not built for linux",
			  {
				  le_put32(rec(t, ART_SEC_SCALARS, 0) + 4, 0);
				  tart_remove(t, bpf_sec(t, 1));
				  tart_remove(t, bpf_sec(t, 0));
			  });
	{
		struct ir_policy *p = rich_macos_only();
		struct blob mac = write_policy(p), lin = write_rich(), m;
		struct tart t, tl;

		explode(&mac, &t);
		t.min_abi = 10;
		m = assemble(&t);
		expect_refused(m.data, m.len, "header min_landlock_abi 10 without a Landlock table");
		free(m.data);
		/* A Landlock table spliced into an artifact for macOS only. */
		explode(&lin, &tl);
		{
			struct tsec *s = &tl.s[find_sec(&tl, ART_SEC_LINUX_LANDLOCK)];
			tart_add(&t, ART_SEC_LINUX_LANDLOCK, ART_SECF_CRITICAL, s->data, s->size);
		}
		m = assemble(&t);
		expect_refused(m.data, m.len,
			       "section LINUX_LANDLOCK is present, but the policy is not built for "
			       "linux");
		free(m.data);
		tart_free(&t);
		tart_free(&tl);
		free(mac.data);
		free(lin.data);
		ir_policy_free(p);
	}
}

/* Damage the validator cannot see (every field still in range) that makes
 * the IR and its Linux sections disagree: the loader rebuilds and refuses,
 * so `explain` never describes another policy than the one enforced. */
Test(artifact_linux, loader_refuses_sections_that_do_not_match)
{
	/* EXTRAS record 0: seccomp deny ptrace errno 1 -> errno 13. */
	MUTATE_AND_EXPECT_LOAD("SECCOMP_BPF (x86_64) does not match the policy the artifact carries",
			       le_put16(rec(t, ART_SEC_EXTRAS, 0) + 10, 13));
	/* PATHS record 3: /usr rx -> r. */
	MUTATE_AND_EXPECT_LOAD("LINUX_LANDLOCK does not match the policy the artifact carries",
			       rec(t, ART_SEC_PATHS, 3)[4] = ART_READ);
	/* The Landlock rule's origin line. */
	MUTATE_AND_EXPECT_LOAD("LINUX_LANDLOCK does not match", {
		uint8_t *r = table(t, ART_SEC_LINUX_LANDLOCK) + LL_TABLE_HEADER_SIZE;
		le_put32(r + LL_RULE_ORIGIN_LINE, le_get32(r + LL_RULE_ORIGIN_LINE) + 1);
	});
	/* A comparison constant inside the aarch64 program. */
	MUTATE_AND_EXPECT_LOAD("SECCOMP_BPF (aarch64) does not match", {
		uint32_t n = bpf_count(t, 1);
		for (uint32_t i = 4; i < n; i++) {
			uint8_t *in = bpf_insn(t, 1, i);
			if (le_get16(in) == (BPF_JMP | BPF_JGE | BPF_K)) {
				le_put32(in + 4, le_get32(in + 4) + 1);
				break;
			}
		}
	});
	/* EXTRAS record 1 (allow personality) renamed to ptrace. */
	MUTATE_AND_EXPECT_LOAD("cannot be built for linux: it allows a syscall heel always denies",
			       le_put32(rec(t, ART_SEC_EXTRAS, 1) + 4, strtab_find(t, "ptrace")));
	/* ... or to a string that is no syscall. */
	MUTATE_AND_EXPECT_LOAD("cannot be built for linux: a seccomp rule names an unknown syscall",
			       le_put32(rec(t, ART_SEC_EXTRAS, 1) + 4, strtab_find(t, "PATH")));
}

Test(artifact_linux, truncation_and_flips_of_the_linux_sections)
{
	struct blob b = write_rich();
	struct art_view v;
	struct tart t;

	/* Every prefix of each Linux payload, re-sealed: refused, never read
	 * past (ASan), always with a message. */
	explode(&b, &t);
	for (size_t k = I_LANDLOCK; k < I_ALL; k++) {
		size_t full = t.s[k].size;

		for (size_t n = 0; n < full; n += (n < 64 ? 1 : 7)) {
			struct tart c;
			struct blob m;
			char err[256] = "";

			explode(&b, &c);
			tart_resize(&c, k, n);
			m = assemble(&c);
			{
				uint8_t *x = copy_exact(m.data, m.len);

				cr_assert_eq(art_validate(x, m.len, &v, err, sizeof(err)), -EINVAL,
					     "section %zu cut to %zu accepted", k, n);
				cr_assert(err[0]);
				free(x);
			}
			free(m.data);
			tart_free(&c);
		}
	}
	tart_free(&t);
	/* Every third bit of the Linux payloads flipped behind valid
	 * checksums: what the validator lets through (origin lines, jump
	 * constants, ...) the loader's rebuild refuses. */
	explode(&b, &t);
	for (size_t k = I_LANDLOCK; k < I_ALL; k++)
		for (size_t i = 0; i < t.s[k].size; i++)
			for (unsigned bit = 0; bit < 8; bit += 3) {
				struct blob m;
				struct ir_policy *q = NULL;

				t.s[k].data[i] ^= (uint8_t)(1u << bit);
				m = assemble(&t);
				{
					uint8_t *x = copy_exact(m.data, m.len);

					if (art_validate(x, m.len, &v, NULL, 0) == 0)
						cr_assert_eq(artifact_load(x, m.len, &q, NULL, 0),
							     -EINVAL,
							     "section %zu byte %zu bit %u: loaded", k,
							     i, bit);
					free(x);
				}
				free(m.data);
				t.s[k].data[i] ^= (uint8_t)(1u << bit);
			}
	tart_free(&t);
	free(b.data);
}

/* ------------------------------------------------------------ mutation sweep */

static uint64_t
rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random damage behind valid checksums, so it reaches the structural
 * checks: whatever is accepted must load, and re-writing what loaded must
 * be a fixed point. Under ASan this is a small in-tree fuzzer. */
static void
sweep(struct blob b, int iterations)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t accepted = 0, derived = 0;

	for (int iter = 0; iter < iterations; iter++) {
		struct tart t;
		struct blob m;
		struct art_view v;
		struct ir_policy *q = NULL;
		int nmut = 1 + (int)(rng(&seed) % 3);

		explode(&b, &t);
		for (int k = 0; k < nmut; k++) {
			struct tsec *s = &t.s[rng(&seed) % t.n];

			if (s->size == 0)
				continue;
			switch (rng(&seed) % 3) {
			case 0:
				s->data[rng(&seed) % s->size] ^= (uint8_t)(1u << (rng(&seed) % 8));
				break;
			case 1:
				s->data[rng(&seed) % s->size] = (uint8_t)rng(&seed);
				break;
			default: {
				size_t at = (rng(&seed) % s->size) & ~(size_t)3;

				if (at + 4 <= s->size)
					le_put32(s->data + at, (uint32_t)rng(&seed) % 64);
			}
			}
		}
		m = assemble(&t);
		{
			uint8_t *c = copy_exact(m.data, m.len);

			if (art_validate(c, m.len, &v, NULL, 0) == 0) {
				struct blob w1, w2;
				struct ir_policy *q2;
				char err[256] = "";

				/* Damage to the Linux sections (or to the IR
				 * they derive from) that the structure allows
				 * is caught by the loader's rebuild. */
				if (artifact_load(c, m.len, &q, err, sizeof(err)) != 0) {
					cr_assert(strstr(err, "does not match the policy") ||
						      strstr(err, "cannot be built for linux"),
						  "iteration %d: %s", iter, err);
					derived++;
					free(c);
					free(m.data);
					tart_free(&t);
					continue;
				}
				accepted++;
				w1 = write_policy(q);
				q2 = load_ok(&w1);
				w2 = write_policy(q2);
				cr_assert_eq(w1.len, w2.len);
				cr_assert_eq(memcmp(w1.data, w2.data, w1.len), 0,
					     "iteration %d: write(load(x)) is not a fixed point",
					     iter);
				ir_policy_free(q);
				ir_policy_free(q2);
				free(w1.data);
				free(w2.data);
			}
			free(c);
		}
		free(m.data);
		tart_free(&t);
	}
	cr_log_info("resealed mutations: %zu of %d accepted, %zu refused by the loader only",
		    accepted, iterations, derived);
	cr_assert_gt(accepted, 0); /* some damage hits fields with no constraint */
	cr_assert_gt(derived, 0);  /* and some the rebuild of the Linux sections */
	free(b.data);
}

Test(artifact_sweep, resealed_mutations, .timeout = 120)
{
	sweep(write_rich(), 20000);
}

/* The same with a DECIDER section among the ones damaged. */
Test(artifact_sweep, resealed_mutations_with_deciders, .timeout = 120)
{
	sweep(write_decider(), 5000);
}

/* ------------------------------------------------------------ art_read_file */

static char tmpdir[64];

static void
mk_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/heel-art-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void
rm_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

static void
put_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void
expect_read_refused(const char *path, int rc_want, const char *msg)
{
	uint8_t *buf = (uint8_t *)1;
	size_t len = 1;
	char err[512] = "";
	int rc = art_read_file(path, &buf, &len, err, sizeof(err));

	cr_assert_eq(rc, rc_want, "%s: rc %d, wanted %d (%s)", path, rc, rc_want, err);
	cr_assert_null(buf);
	cr_assert_eq(len, 0);
	cr_assert_not_null(strstr(err, msg), "expected \"%s\" in \"%s\"", msg, err);
	cr_assert_not_null(strstr(err, path), "the message names the file: %s", err);
}

Test(artifact_file, reads_a_good_file, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct blob b = write_rich();
	char path[128];
	uint8_t *buf;
	size_t len;
	char err[256] = "";
	struct art_view v;

	snprintf(path, sizeof(path), "%s/p.hpol", tmpdir);
	put_file(path, b.data, b.len, 0644);
	cr_assert_eq(art_read_file(path, &buf, &len, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(len, b.len);
	cr_assert_eq(memcmp(buf, b.data, len), 0);
	expect_valid(buf, len, &v);
	free(buf);
	free(b.data);
}

Test(artifact_file, refuses_symlink, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct blob b = write_rich();
	char path[128], link[128];

	snprintf(path, sizeof(path), "%s/p.hpol", tmpdir);
	snprintf(link, sizeof(link), "%s/link.hpol", tmpdir);
	put_file(path, b.data, b.len, 0644);
	cr_assert_eq(symlink(path, link), 0);
	expect_read_refused(link, -ELOOP, "is a symbolic link");
	free(b.data);
}

Test(artifact_file, refuses_group_or_other_writable, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct blob b = write_rich();
	char path[128];

	snprintf(path, sizeof(path), "%s/g.hpol", tmpdir);
	put_file(path, b.data, b.len, 0664);
	expect_read_refused(path, -EPERM, "writable by group or others (mode 0664)");
	snprintf(path, sizeof(path), "%s/o.hpol", tmpdir);
	put_file(path, b.data, b.len, 0646);
	expect_read_refused(path, -EPERM, "writable by group or others (mode 0646)");
	free(b.data);
}

Test(artifact_file, refuses_directory_fifo_missing, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	char path[128];

	expect_read_refused(tmpdir, -EINVAL, "not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	expect_read_refused(path, -EINVAL, "not a regular file"); /* and does not hang */
	snprintf(path, sizeof(path), "%s/absent.hpol", tmpdir);
	expect_read_refused(path, -ENOENT, "cannot open");
}

Test(artifact_file, refuses_bad_sizes, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	char path[128];
	uint8_t small[63] = {0};
	int fd;

	snprintf(path, sizeof(path), "%s/small.hpol", tmpdir);
	put_file(path, small, sizeof(small), 0600);
	expect_read_refused(path, -EINVAL, "too small to be an artifact (63 bytes");
	put_file(path, "", 0, 0600);
	expect_read_refused(path, -EINVAL, "too small to be an artifact (0 bytes");
	snprintf(path, sizeof(path), "%s/big.hpol", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)ART_MAX_FILE_SIZE + 1), 0); /* sparse */
	close(fd);
	expect_read_refused(path, -EFBIG, "too large to be an artifact");
}

Test(artifact_file, refuses_foreign_owner, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct blob b = write_rich();
	char path[128];

	if (geteuid() != 0) {
		free(b.data);
		cr_skip_test("needs root to give a file away");
	}
	snprintf(path, sizeof(path), "%s/theirs.hpol", tmpdir);
	put_file(path, b.data, b.len, 0644);
	cr_assert_eq(chown(path, 54321, 54321), 0);
	if (getuid() == 54321) {
		free(b.data);
		cr_skip_test("running as uid 54321");
	}
	expect_read_refused(path, -EPERM, "owned by uid 54321, neither root nor the invoking user");
	free(b.data);
}

Test(artifact_file, null_err_is_fine, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	uint8_t *buf;
	size_t len;

	cr_assert_eq(art_read_file(tmpdir, &buf, &len, NULL, 0), -EINVAL);
}

/* ------------------------------------------------------------ art_read_fd */

static void
expect_fd_refused(int fd, int rc_want, const char *msg)
{
	uint8_t *buf = (uint8_t *)1;
	size_t len = 1;
	char err[512] = "";
	int rc = art_read_fd(fd, "--artifact-fd 9", &buf, &len, err, sizeof(err));

	cr_assert_eq(rc, rc_want, "rc %d, wanted %d (%s)", rc, rc_want, err);
	cr_assert_null(buf);
	cr_assert_not_null(strstr(err, msg), "expected \"%s\" in \"%s\"", msg, err);
	cr_assert_not_null(strstr(err, "--artifact-fd 9"), "the message names it: %s", err);
}

/* A memfd (mode 0777, no name) whose offset stands at its end: read whole
 * from the start. */
Test(artifact_fd, reads_a_memfd_from_the_start)
{
	struct blob b = write_rich();
	int fd = memfd_create("hpol", MFD_CLOEXEC);
	uint8_t *buf;
	size_t len;
	char err[256] = "";
	struct art_view v;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, b.data, b.len), (ssize_t)b.len);
	cr_assert_eq(art_read_fd(fd, "memfd", &buf, &len, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(len, b.len);
	cr_assert_eq(memcmp(buf, b.data, len), 0);
	expect_valid(buf, len, &v);
	cr_assert_eq(lseek(fd, 0, SEEK_CUR), (off_t)b.len, "the offset is not ours to move");
	free(buf);
	close(fd);
	free(b.data);
}

/* A named file keeps the file rules; one no name reaches does not need
 * them (nobody can open it to write). */
Test(artifact_fd, named_files_keep_the_mode_rule, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	struct blob b = write_rich();
	char path[128];
	uint8_t *buf;
	size_t len;
	char err[256] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/w.hpol", tmpdir);
	put_file(path, b.data, b.len, 0666);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	expect_fd_refused(fd, -EPERM, "writable by group or others (mode 0666)");
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(art_read_fd(fd, "unlinked", &buf, &len, err, sizeof(err)), 0, "%s", err);
	free(buf);
	close(fd);
	free(b.data);
}

Test(artifact_fd, refuses_what_is_no_regular_file)
{
	int p[2], wr;

	expect_fd_refused(987, -EBADF, "not an open descriptor");
	cr_assert_eq(pipe(p), 0);
	expect_fd_refused(p[0], -EINVAL, "not a regular file");
	close(p[0]);
	close(p[1]);
	wr = memfd_create("w", MFD_CLOEXEC);
	cr_assert_geq(wr, 0);
	cr_assert_eq(ftruncate(wr, 128), 0);
	{
		char self[64];
		int w;

		snprintf(self, sizeof(self), "/proc/self/fd/%d", wr);
		w = open(self, O_WRONLY | O_CLOEXEC);
		cr_assert_geq(w, 0);
		expect_fd_refused(w, -EBADF, "opened for writing only");
		close(w);
		w = open(self, O_PATH | O_CLOEXEC);
		cr_assert_geq(w, 0);
		expect_fd_refused(w, -EBADF, "O_PATH");
		close(w);
	}
	close(wr);
}

/* ------------------------------------------------------------ the source beside */

Test(artifact_source, path_beside_the_artifact)
{
	char out[64];

	cr_assert_eq(art_source_path("p.hpol", "p.heel", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "p.heel");
	cr_assert_eq(art_source_path("../q/p.hpol", "x.heel", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "../q/x.heel");
	cr_assert_eq(art_source_path("/p.hpol", "p.heel", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/p.heel");
	cr_assert_eq(art_source_path("/a/very/long/directory/p.hpol", "a-long-source-name.heel", out,
				     16),
		     -ENAMETOOLONG);
}

Test(artifact_source, changed_by_size_or_checksum, .init = mk_tmpdir, .fini = rm_tmpdir)
{
	static const char text[] = "heel 1\ngrant \"/data\" r\n";
	struct art_meta m = { .source_name = "p.heel", .source_size = sizeof(text) - 1,
			      .source_crc = crc32c_buf(text, sizeof(text) - 1) };
	char path[128], link[128];

	snprintf(path, sizeof(path), "%s/p.heel", tmpdir);
	cr_assert_eq(art_source_changed(path, &m), -ENOENT, "absent: nothing to compare");
	put_file(path, text, sizeof(text) - 1, 0644);
	cr_assert_eq(art_source_changed(path, &m), 0);
	put_file(path, "heel 1\ngrant \"/Data\" r\n", sizeof(text) - 1, 0644);
	cr_assert_eq(art_source_changed(path, &m), 1, "same size, other bytes");
	put_file(path, "heel 1\n", 7, 0644);
	cr_assert_eq(art_source_changed(path, &m), 1, "another size");
	put_file(path, text, sizeof(text) - 1, 0644);
	snprintf(link, sizeof(link), "%s/l.heel", tmpdir);
	cr_assert_eq(symlink(path, link), 0);
	cr_assert_eq(art_source_changed(link, &m), -ELOOP, "a link is not followed");
	cr_assert_eq(art_source_changed(tmpdir, &m), -EINVAL, "a directory");
	m.source_name = NULL;
	cr_assert_eq(art_source_changed(path, &m), -ENOENT, "no source recorded");
}

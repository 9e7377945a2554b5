/* SPDX-License-Identifier: MIT
 * The Landlock backend of heelc: mode -> rights on every ABI, the minimum
 * ABI of each right, device grants, deny classification (inert, carve,
 * needs-mountns), the encoder's determinism, and the runtime decoder
 * refusing every truncation, unknown bit, version and bad offset. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "landlock_abi.h"
#include "landlock_apply.h"
#include "landlock_lower.h"
#include "landlock_table.h"

static void
add_rule(struct ir_policy *p, const char *path, unsigned mode, bool optional, uint8_t platforms,
	 uint32_t line)
{
	struct ir_path_rule *g = realloc(p->paths, (p->npaths + 1) * sizeof(*g));

	cr_assert_not_null(g);
	p->paths = g;
	memset(&p->paths[p->npaths], 0, sizeof(p->paths[0]));
	p->paths[p->npaths].path = strdup(path);
	p->paths[p->npaths].mode = (uint8_t)mode;
	p->paths[p->npaths].platforms = platforms;
	p->paths[p->npaths].optional = optional || mode == IR_MODE_DENY;
	p->paths[p->npaths].set = IR_SET_NONE;
	p->paths[p->npaths].source = IR_SRC_USER;
	p->paths[p->npaths].origin.file = ir_intern(p, "test.heel");
	p->paths[p->npaths].origin.line = line;
	p->paths[p->npaths].origin.col = 1;
	p->npaths++;
}

static const struct ll_rule *
find(const struct ll_table *t, const char *path)
{
	for (size_t i = 0; i < t->nrules; i++)
		if (strcmp(t->rules[i].path, path) == 0)
			return &t->rules[i];
	return NULL;
}

#define R (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define W_ABI1 (LL_FS_WRITE_FILE | LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR | LL_FS_MAKE_REG | \
		LL_FS_MAKE_DIR | LL_FS_MAKE_SYM | LL_FS_MAKE_FIFO | LL_FS_MAKE_SOCK)

Test(landlock_lower, mode_rights_exact)
{
	cr_assert_eq(ll_mode_access(IR_MODE_DENY, false), 0);
	cr_assert_eq(ll_mode_access(IR_MODE_R, false), 0xCull);
	cr_assert_eq(ll_mode_access(IR_MODE_RX, false), 0xDull);
	cr_assert_eq(ll_mode_access(IR_MODE_RW, false), 0x177BEull);
	cr_assert_eq(ll_mode_access(IR_MODE_RWX, false), 0x177BFull);
	cr_assert_eq(ll_mode_access(IR_MODE_RW, false),
		     R | W_ABI1 | LL_FS_TRUNCATE | LL_FS_REFER | LL_FS_RESOLVE_UNIX);
	cr_assert_eq(ll_mode_access(IR_MODE_R, true), 0x800Cull);
	cr_assert_eq(ll_mode_access(IR_MODE_DENY, true), 0);
}

Test(landlock_lower, read_and_write_never_execute_nor_device_nodes)
{
	for (unsigned mode = 0; mode <= IR_MODE_RWX; mode++) {
		for (int dev = 0; dev < 2; dev++) {
			uint64_t a = ll_mode_access(mode, dev);

			if (!(mode & IR_EXEC))
				cr_assert_eq(a & LL_FS_EXECUTE, 0, "mode %s has execute",
					     ir_mode_name(mode));
			cr_assert_eq(a & (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK), 0);
			/* A host's unix socket: reachable only through write. */
			if (!(mode & IR_WRITE))
				cr_assert_eq(a & (W_ABI1 | LL_FS_TRUNCATE | LL_FS_REFER |
						  LL_FS_RESOLVE_UNIX), 0);
			else
				cr_assert(a & LL_FS_RESOLVE_UNIX);
			if (mode)
				cr_assert_eq(!!(a & LL_FS_IOCTL_DEV), dev);
		}
	}
}

/* What each mode is on each ABI after the runtime's downgrade: written
 * out, not recomputed. */
Test(landlock_lower, mode_rights_on_every_abi)
{
	static const struct {
		unsigned mode;
		bool dev;
		uint64_t by_abi[LL_ABI_MAX + 1];
	} cases[] = {
		{ IR_MODE_R, false, { 0, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC, 0xC } },
		{ IR_MODE_RX, false, { 0, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD, 0xD } },
		{ IR_MODE_RW, false, { 0, 0x17BE, 0x37BE, 0x77BE, 0x77BE, 0x77BE, 0x77BE, 0x77BE,
				       0x77BE, 0x177BE, 0x177BE, 0x177BE } },
		{ IR_MODE_RWX, false, { 0, 0x17BF, 0x37BF, 0x77BF, 0x77BF, 0x77BF, 0x77BF, 0x77BF,
					0x77BF, 0x177BF, 0x177BF, 0x177BF } },
		{ IR_MODE_R, true, { 0, 0xC, 0xC, 0xC, 0xC, 0x800C, 0x800C, 0x800C, 0x800C,
				     0x800C, 0x800C, 0x800C } },
		{ IR_MODE_RW, true, { 0, 0x17BE, 0x37BE, 0x77BE, 0x77BE, 0xF7BE, 0xF7BE, 0xF7BE,
				      0xF7BE, 0x1F7BE, 0x1F7BE, 0x1F7BE } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int abi = 0; abi <= LL_ABI_MAX; abi++) {
			struct ll_masks req = { LL_HANDLED_FS, LL_HANDLED_NET, LL_HANDLED_SCOPES };
			struct ll_downgrade dg;
			uint64_t a = ll_mode_access(cases[i].mode, cases[i].dev);

			ll_downgrade(&req, abi, &dg);
			cr_assert_eq(a & dg.eff.fs, cases[i].by_abi[abi], "mode %s dev %d abi %d: 0x%llx",
				     ir_mode_name(cases[i].mode), cases[i].dev, abi,
				     (unsigned long long)(a & dg.eff.fs));
		}
	}
}

Test(landlock_lower, min_abi_of_each_right)
{
	for (unsigned b = 0; b < LL_FS_RIGHT_COUNT; b++) {
		uint32_t want = b <= 12 ? 1 : b == 13 ? 2 : b == 14 ? 3 : b == 15 ? 5 : 9;

		cr_assert_eq(ll_fs_min_abi(1ull << b), want, "bit %u", b);
		cr_assert_not_null(ll_fs_right_name(1ull << b));
	}
	cr_assert_eq(ll_fs_min_abi(0), 1);
	cr_assert_eq(ll_masks_min_abi(0, LL_NET_CONNECT_TCP, 0), 4);
	cr_assert_eq(ll_masks_min_abi(0, LL_NET_BIND_UDP, 0), 10);
	cr_assert_eq(ll_masks_min_abi(0, LL_NET_CONNECT_SEND_UDP, 0), 10);
	cr_assert_eq(ll_masks_min_abi(0, 0, LL_SCOPE_SIGNAL), 6);
	cr_assert_eq(ll_masks_min_abi(1ull << 17, 0, 0), -1);
}

Test(landlock_lower, header_handles_everything_heel_governs)
{
	struct ir_policy *p = ir_policy_new();
	struct ll_table *t;

	add_rule(p, "/usr", IR_MODE_RX, false, IR_PLAT_ALL, 1);
	cr_assert_eq(ll_lower(p, &t), 0);
	cr_assert_eq(t->handled_fs, 0x1FFFF);
	cr_assert(t->handled_fs & LL_FS_MAKE_CHAR);
	cr_assert(t->handled_fs & LL_FS_MAKE_BLOCK);
	cr_assert_eq(t->handled_net, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP | LL_NET_BIND_UDP |
		     LL_NET_CONNECT_SEND_UDP);
	cr_assert_eq(t->scoped, LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL);
	cr_assert_eq(t->min_abi, 10);
	cr_assert_eq(t->flags, 0, "network deny: no proxy");
	ll_table_free(t);

	p->scalar[IR_LINUX].network.value = IR_NET_ALLOW_LIST;
	cr_assert_eq(ll_lower(p, &t), 0);
	cr_assert_eq(t->flags, LL_TF_NET_PROXY);
	ll_table_free(t);
	ir_policy_free(p);
}

Test(landlock_lower, rules_min_abi_devices_platforms_optional)
{
	struct ir_policy *p = ir_policy_new();
	const struct ll_rule *r;
	struct ll_table *t;

	add_rule(p, "/dev", IR_MODE_R, false, IR_PLAT_ALL, 1);
	add_rule(p, "/dev/null", IR_MODE_RW, false, IR_PLAT_ALL, 2);
	add_rule(p, "/devices", IR_MODE_R, false, IR_PLAT_ALL, 3);
	add_rule(p, "/etc", IR_MODE_R, false, IR_PLAT_ALL, 4);
	add_rule(p, "/lib64", IR_MODE_RX, true, IR_PLAT_ALL, 5);
	add_rule(p, "/mac-only", IR_MODE_RW, false, IR_PLAT_BIT(IR_MACOS), 6);
	add_rule(p, "/work", IR_MODE_RW, false, IR_PLAT_BIT(IR_LINUX) | IR_PLAT_BIT(IR_WINDOWS), 7);
	cr_assert_eq(ll_lower(p, &t), 0);
	cr_assert_eq(t->nrules, 6);
	cr_assert_null(find(t, "/mac-only"));

	r = find(t, "/dev");
	cr_assert_eq(r->access, R | LL_FS_IOCTL_DEV);
	cr_assert_eq(r->flags, LL_RF_DEVICE);
	cr_assert_eq(r->min_abi, 5);
	r = find(t, "/dev/null");
	cr_assert_eq(r->access, ll_mode_access(IR_MODE_RW, true));
	cr_assert_eq(r->min_abi, 9, "write carries RESOLVE_UNIX (ABI 9)");
	r = find(t, "/devices");
	cr_assert_eq(r->access, R, "not under /dev: no IOCTL_DEV");
	cr_assert_eq(r->min_abi, 1);
	r = find(t, "/etc");
	cr_assert_eq(r->min_abi, 1);
	cr_assert_eq(r->origin_line, 4);
	cr_assert_str_eq(r->origin_file, "test.heel");
	r = find(t, "/lib64");
	cr_assert_eq(r->flags, LL_RF_OPTIONAL);
	r = find(t, "/work");
	cr_assert_eq(r->min_abi, 9, "rw carries RESOLVE_UNIX");
	cr_assert_eq(r->kind, LL_KIND_GRANT);
	ll_table_free(t);
	ir_policy_free(p);
}

Test(landlock_lower, deny_classification)
{
	struct ir_policy *p = ir_policy_new();
	const struct ll_rule *r;
	struct ll_table *t;

	add_rule(p, "/usr", IR_MODE_R, false, IR_PLAT_ALL, 1);
	add_rule(p, "/usr/share/secret", IR_MODE_DENY, false, IR_PLAT_ALL, 2);
	add_rule(p, "/etc/shadow", IR_MODE_DENY, false, IR_PLAT_ALL, 3);
	add_rule(p, "${HOME}/proj", IR_MODE_RW, false, IR_PLAT_ALL, 4);
	add_rule(p, "${HOME}/proj/.env", IR_MODE_DENY, false, IR_PLAT_ALL, 5);
	add_rule(p, "${HOME}/.ssh", IR_MODE_DENY, false, IR_PLAT_ALL, 6);
	add_rule(p, "/srv", IR_MODE_RW, false, IR_PLAT_ALL, 7);
	add_rule(p, "/srv/a", IR_MODE_DENY, false, IR_PLAT_ALL, 8);
	add_rule(p, "/srv/a/b", IR_MODE_DENY, false, IR_PLAT_ALL, 9);
	add_rule(p, "/opt", IR_MODE_RW, false, IR_PLAT_ALL, 10);
	add_rule(p, "/opt/ro", IR_MODE_R, false, IR_PLAT_ALL, 11);
	add_rule(p, "/opt/ro/x", IR_MODE_DENY, false, IR_PLAT_ALL, 12);
	add_rule(p, "/tie", IR_MODE_DENY, false, IR_PLAT_ALL, 13);
	add_rule(p, "/tie", IR_MODE_R, false, IR_PLAT_BIT(IR_LINUX), 14);
	add_rule(p, "/u", IR_MODE_R, false, IR_PLAT_ALL, 15);
	add_rule(p, "/u", IR_MODE_RX, true, IR_PLAT_BIT(IR_LINUX), 16);
	add_rule(p, "./build", IR_MODE_RW, false, IR_PLAT_ALL, 17);
	add_rule(p, "build/out", IR_MODE_DENY, false, IR_PLAT_ALL, 18);
	add_rule(p, "/", IR_MODE_R, false, IR_PLAT_BIT(IR_MACOS), 19);
	cr_assert_eq(ll_lower(p, &t), 0);

	r = find(t, "/usr/share/secret");
	cr_assert_eq(r->kind, LL_KIND_CARVE);
	cr_assert_eq(r->flags, LL_RF_OPTIONAL, "inside a read grant: no namespace needed");
	cr_assert_eq(r->access, 0);
	cr_assert_eq(r->min_abi, 1);
	r = find(t, "/etc/shadow");
	cr_assert_eq(r->kind, LL_KIND_INERT, "no grant above it; / is macos only");
	r = find(t, "${HOME}/proj/.env");
	cr_assert_eq(r->kind, LL_KIND_CARVE);
	cr_assert_eq(r->flags, LL_RF_OPTIONAL | LL_RF_NEEDS_MOUNTNS);
	r = find(t, "${HOME}/.ssh");
	cr_assert_eq(r->kind, LL_KIND_INERT);
	r = find(t, "/srv/a");
	cr_assert_eq(r->kind, LL_KIND_CARVE);
	cr_assert(r->flags & LL_RF_NEEDS_MOUNTNS);
	r = find(t, "/srv/a/b");
	cr_assert_eq(r->kind, LL_KIND_INERT, "covered by the deny of /srv/a");
	r = find(t, "/opt/ro/x");
	cr_assert_eq(r->kind, LL_KIND_CARVE);
	cr_assert_eq(r->flags & LL_RF_NEEDS_MOUNTNS, 0, "/opt/ro narrows /opt already");
	r = find(t, "/tie");
	cr_assert_eq(r->kind, LL_KIND_GRANT, "a grant wins the tie");
	cr_assert_eq(r->access, R);
	cr_assert_eq(r->flags, 0);
	r = find(t, "/u");
	cr_assert_eq(r->access, R | LL_FS_EXECUTE, "two grants: union");
	cr_assert_eq(r->flags, 0, "one required grant makes the merge required");
	cr_assert_eq(r->origin_line, 15);
	r = find(t, "build/out");
	cr_assert_eq(r->kind, LL_KIND_CARVE, "./build and build are one directory");
	cr_assert(r->flags & LL_RF_NEEDS_MOUNTNS);
	ll_table_free(t);
	ir_policy_free(p);
}

static struct ir_policy *
sample_policy(void)
{
	struct ir_policy *p = ir_policy_new();

	add_rule(p, "/", IR_MODE_R, false, IR_PLAT_ALL, 1);
	add_rule(p, "/usr", IR_MODE_RX, false, IR_PLAT_ALL, 2);
	add_rule(p, "/dev/null", IR_MODE_RW, false, IR_PLAT_ALL, 3);
	add_rule(p, "${HOME}/.ssh", IR_MODE_DENY, false, IR_PLAT_ALL, 4);
	add_rule(p, "${HOME}/.cache/pip", IR_MODE_RW, true, IR_PLAT_ALL, 5);
	add_rule(p, "./target", IR_MODE_RWX, false, IR_PLAT_ALL, 6);
	add_rule(p, "./target/.secret", IR_MODE_DENY, false, IR_PLAT_ALL, 7);
	add_rule(p, "/lib64", IR_MODE_RX, true, IR_PLAT_ALL, 8);
	return p;
}

static void
encode_policy(struct ir_policy *p, uint8_t **buf, size_t *len)
{
	struct ll_table *t;

	cr_assert_eq(ll_lower(p, &t), 0);
	cr_assert_eq(ll_table_encode(t, buf, len), 0);
	ll_table_free(t);
}

Test(landlock_lower, encoder_is_deterministic_and_canonical)
{
	struct ir_policy *p = sample_policy();
	struct ll_table *t;
	uint8_t *a, *b;
	size_t alen, blen;

	encode_policy(p, &a, &alen);
	encode_policy(p, &b, &blen);
	cr_assert_eq(alen, blen);
	cr_assert_eq(memcmp(a, b, alen), 0);
	cr_assert_eq(alen % 8, 0);
	free(b);

	/* Rules in another order in memory: the same bytes. */
	cr_assert_eq(ll_lower(p, &t), 0);
	for (size_t i = 0; i < t->nrules / 2; i++) {
		struct ll_rule tmp = t->rules[i];

		t->rules[i] = t->rules[t->nrules - 1 - i];
		t->rules[t->nrules - 1 - i] = tmp;
	}
	cr_assert_eq(ll_table_encode(t, &b, &blen), 0);
	cr_assert_eq(alen, blen);
	cr_assert_eq(memcmp(a, b, alen), 0);
	free(b);

	/* A duplicate (path, kind) cannot be encoded. */
	free(t->rules[1].path);
	t->rules[1].path = strdup(t->rules[0].path);
	t->rules[1].kind = t->rules[0].kind;
	t->rules[1].access = t->rules[0].access;
	t->rules[1].min_abi = t->rules[0].min_abi;
	t->rules[1].flags = t->rules[0].flags;
	cr_assert_eq(ll_table_encode(t, &b, &blen), -EINVAL);
	ll_table_free(t);
	free(a);
	ir_policy_free(p);
}

Test(landlock_lower, layout_and_round_trip)
{
	struct ir_policy *p = sample_policy();
	struct ll_table_view v;
	struct ll_rule_view r;
	char err[256];
	uint8_t *buf;
	size_t len;

	encode_policy(p, &buf, &len);
	cr_assert_eq(le_get32(buf + 0), LL_TABLE_VERSION);
	cr_assert_eq(le_get32(buf + 4), 10);
	cr_assert_eq(le_get64(buf + 8), 0x1FFFF);
	cr_assert_eq(le_get64(buf + 16), 0xF);
	cr_assert_eq(le_get64(buf + 24), 3);
	cr_assert_eq(le_get32(buf + 32), 8);
	cr_assert_eq(len, 48 + 8 * 32 + ((le_get32(buf + 36) + 7u) & ~7u));
	cr_assert_eq(ll_table_parse(buf, len, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.rule_count, 8);
	ll_table_rule(&v, 0, &r);
	cr_assert_str_eq(r.path, "${HOME}/.cache/pip");
	cr_assert_eq(r.flags, LL_RF_OPTIONAL);
	cr_assert_str_eq(r.origin, "test.heel");
	cr_assert_eq(r.origin_line, 5);
	ll_table_rule(&v, 1, &r);
	cr_assert_str_eq(r.path, "${HOME}/.ssh");
	cr_assert_eq(r.kind, LL_KIND_CARVE, "/ is granted");
	cr_assert_eq(r.flags, LL_RF_OPTIONAL);
	ll_table_rule(&v, 7, &r);
	cr_assert_str_eq(r.path, "/usr");
	cr_assert_eq(r.access, 0xD);
	/* The origin file name is stored once. */
	cr_assert_eq(le_get32(buf + 48 + 24), le_get32(buf + 48 + 32 + 24));
	free(buf);
	ir_policy_free(p);
}

Test(landlock_lower, decoder_refuses_every_truncation_and_extension)
{
	struct ir_policy *p = sample_policy();
	struct ll_table_view v;
	char err[256];
	uint8_t *buf, *copy;
	size_t len;

	encode_policy(p, &buf, &len);
	for (size_t n = 0; n < len; n++) {
		/* An exact-size copy, so ASan sees any read past the end. */
		copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		cr_assert_neq(ll_table_parse(copy, n, &v, err, sizeof(err)), 0, "accepted %zu of %zu",
			      n, len);
		free(copy);
	}
	copy = calloc(1, len + 8);
	memcpy(copy, buf, len);
	cr_assert_neq(ll_table_parse(copy, len + 8, &v, err, sizeof(err)), 0);
	cr_assert_neq(ll_table_parse(NULL, 0, &v, err, sizeof(err)), 0);
	free(copy);
	free(buf);
	ir_policy_free(p);
}

/* Parses a modified copy and expects refusal with `needle` in the message. */
static void
expect_refused(const uint8_t *buf, size_t len, size_t off, uint32_t value, bool wide,
	       const char *needle)
{
	uint8_t *copy = malloc(len);
	struct ll_table_view v;
	char err[256] = "";

	memcpy(copy, buf, len);
	if (wide)
		le_put64(copy + off, value);
	else
		le_put32(copy + off, value);
	cr_assert_eq(ll_table_parse(copy, len, &v, err, sizeof(err)), -EINVAL,
		     "offset %zu = 0x%x accepted", off, value);
	cr_assert(strstr(err, needle), "offset %zu: \"%s\" lacks \"%s\"", off, err, needle);
	free(copy);
}

Test(landlock_lower, decoder_refuses_bad_fields)
{
	struct ir_policy *p = sample_policy();
	uint8_t *buf;
	size_t len, r0 = LL_TABLE_HEADER_SIZE, ssz;

	encode_policy(p, &buf, &len);
	ssz = le_get32(buf + LL_HDR_STRINGS_SIZE);
	expect_refused(buf, len, LL_HDR_VERSION, 2, false, "version");
	expect_refused(buf, len, LL_HDR_VERSION, 0, false, "version");
	expect_refused(buf, len, LL_HDR_FLAGS, 0x2, false, "unknown flags");
	expect_refused(buf, len, LL_HDR_RESERVED, 1, false, "reserved");
	expect_refused(buf, len, LL_HDR_MIN_ABI, 9, false, "minimum ABI");
	expect_refused(buf, len, LL_HDR_MIN_ABI, LL_ABI_MAX + 1, false, "minimum ABI");
	expect_refused(buf, len, LL_HDR_HANDLED_FS, 0x20000, true, "unknown filesystem");
	expect_refused(buf, len, LL_HDR_HANDLED_FS, 0, true, "no filesystem");
	expect_refused(buf, len, LL_HDR_HANDLED_NET, 0x10, true, "unknown network");
	expect_refused(buf, len, LL_HDR_SCOPED, 4, true, "unknown scopes");
	expect_refused(buf, len, LL_HDR_RULE_COUNT, 9, false, "");
	expect_refused(buf, len, LL_HDR_RULE_COUNT, 0xffffffffu, false, "do not fit");
	expect_refused(buf, len, LL_HDR_STRINGS_SIZE, 0xffffffffu, false, "overruns");
	expect_refused(buf, len, LL_HDR_STRINGS_SIZE, (uint32_t)ssz - 1, false, "");
	expect_refused(buf, len, r0 + LL_RULE_KIND, 0, false, "unknown kind");
	expect_refused(buf, len, r0 + LL_RULE_KIND, 4, false, "unknown kind");
	expect_refused(buf, len, r0 + LL_RULE_FLAGS, 0x8, false, "unknown flags");
	expect_refused(buf, len, r0 + LL_RULE_STR, (uint32_t)ssz, false, "path string");
	expect_refused(buf, len, r0 + LL_RULE_STR, 1, false, "path string");  /* mid-string */
	expect_refused(buf, len, r0 + LL_RULE_STR, 0xffffffffu, false, "path string");
	expect_refused(buf, len, r0 + LL_RULE_ORIGIN_STR, (uint32_t)ssz + 8, false, "origin");
	expect_refused(buf, len, r0 + LL_RULE_ORIGIN_STR, 2, false, "origin");
	expect_refused(buf, len, r0 + LL_RULE_ACCESS, 0x20000, true, "outside the handled");
	expect_refused(buf, len, r0 + LL_RULE_ACCESS, 0, true, "without rights");
	expect_refused(buf, len, r0 + LL_RULE_MIN_ABI, 1, false, "minimum ABI");
	/* Rule 1 is the carve-out of ${HOME}/.ssh. */
	expect_refused(buf, len, r0 + 32 + LL_RULE_ACCESS, 0xC, true, "deny with rights");
	expect_refused(buf, len, r0 + 32 + LL_RULE_FLAGS, LL_RF_DEVICE, false, "device");
	/* Rule 1 pointing at rule 0's path: a duplicate, so unsorted. */
	expect_refused(buf, len, r0 + 32 + LL_RULE_STR, le_get32(buf + r0 + LL_RULE_STR), false,
		       "sorted");
	free(buf);
	ir_policy_free(p);
}

Test(landlock_lower, decoder_refuses_bad_strings)
{
	struct ir_policy *p = ir_policy_new();
	struct ll_table_view v;
	size_t len, soff;
	uint8_t *buf;
	char err[256];

	add_rule(p, "/a/b", IR_MODE_R, false, IR_PLAT_ALL, 1);
	encode_policy(p, &buf, &len);
	soff = LL_TABLE_HEADER_SIZE + LL_TABLE_RULE_SIZE;
	cr_assert_eq(ll_table_parse(buf, len, &v, err, sizeof(err)), 0, "%s", err);

	static const struct {
		const char *bytes;
		const char *needle;
	} bad[] = {
		{ "/a//", "malformed" },  /* empty component */
		{ "/a/.", "malformed" },
		{ "/../", "malformed" },
		{ "/a/\x01", "malformed" },
		{ "/${b", "malformed" },
		{ "/${}", "malformed" },
		{ "/${1}", "malformed" },
		{ "/a/", "malformed" },   /* trailing slash */
		{ "./", "malformed" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *copy = malloc(len);

		memcpy(copy, buf, len);
		memset(copy + soff, 0, 4);
		memcpy(copy + soff, bad[i].bytes, strlen(bad[i].bytes) < 4 ? strlen(bad[i].bytes) : 4);
		cr_assert_neq(ll_table_parse(copy, len, &v, err, sizeof(err)), 0, "case %zu", i);
		free(copy);
	}
	/* The area must end in NUL; padding must be zero. */
	{
		uint8_t *copy = malloc(len);
		uint32_t ssz = le_get32(buf + LL_HDR_STRINGS_SIZE);

		memcpy(copy, buf, len);
		copy[soff + ssz - 1] = 'x';
		cr_assert_neq(ll_table_parse(copy, len, &v, err, sizeof(err)), 0);
		cr_assert(strstr(err, "NUL"), "%s", err);
		memcpy(copy, buf, len);
		if (soff + ssz < len) {
			copy[len - 1] = 1;
			cr_assert_neq(ll_table_parse(copy, len, &v, err, sizeof(err)), 0);
			cr_assert(strstr(err, "padding"), "%s", err);
		}
		free(copy);
	}
	free(buf);
	ir_policy_free(p);
}

/* Every single-bit flip: the parser either accepts or refuses, and never
 * reads outside the buffer (ASan checks that in check-asan). Accepted
 * flips must still describe a consistent table. */
Test(landlock_lower, decoder_survives_every_bit_flip)
{
	struct ir_policy *p = sample_policy();
	struct ll_table_view v;
	char err[256];
	uint8_t *buf, *copy;
	size_t len, accepted = 0;

	encode_policy(p, &buf, &len);
	copy = malloc(len);
	for (size_t i = 0; i < len * 8; i++) {
		memcpy(copy, buf, len);
		copy[i / 8] ^= (uint8_t)(1u << (i % 8));
		if (ll_table_parse(copy, len, &v, err, sizeof(err)) == 0) {
			accepted++;
			for (uint32_t k = 0; k < v.rule_count; k++) {
				struct ll_rule_view r;

				ll_table_rule(&v, k, &r);
				cr_assert_eq(r.access & ~v.handled_fs, 0);
				cr_assert(strlen(r.path) < v.strings_size);
			}
		}
	}
	/* Only flips inside path text or origin lines can survive. */
	cr_assert_lt(accepted, len * 8 / 2);
	free(copy);
	free(buf);
	ir_policy_free(p);
}

Test(landlock_lower, emit_text)
{
	struct ir_policy *p = sample_policy();
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	cr_assert_eq(landlock_emit_text(p, f), 0);
	fclose(f);
	cr_assert(strstr(text, "min-abi      10\n"), "%s", text);
	cr_assert(strstr(text, "handled-fs   execute write-file read-file read-dir remove-dir "
			       "remove-file make-char make-dir make-reg make-sock make-fifo "
			       "make-block make-sym refer truncate ioctl-dev resolve-unix\n"),
		  "%s", text);
	cr_assert(strstr(text, "scoped       abstract-unix-socket signal\n"), "%s", text);
	cr_assert(strstr(text, "network      deny"), "%s", text);
	cr_assert(strstr(text, "working directory"), "%s", text);
	cr_assert(strstr(text, "carve \"${HOME}/.ssh\" abi=1 optional  # test.heel:4\n"), "%s",
		  text);
	cr_assert(strstr(text, "carve \"./target/.secret\" abi=1 optional needs-mountns"), "%s",
		  text);
	cr_assert(strstr(text, "grant \"/dev/null\" abi=9 device: "), "%s", text);
	cr_assert(strstr(text, "grant \"/usr\" abi=1: execute read-file read-dir  # test.heel:2\n"),
		  "%s", text);
	free(text);
	ir_policy_free(p);
}

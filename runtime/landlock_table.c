/* SPDX-License-Identifier: MIT
 * Decoder and validator of the Landlock table (see landlock_table.h and
 * docs/landlock.md). Runs in heel-exec on bytes that passed the artifact
 * checksums but are still treated as hostile: every offset is checked
 * against the buffer before it is used, and every bit must be known. */
#include "landlock_table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "landlock_abi.h"

uint32_t
ll_fs_min_abi(uint64_t fs)
{
	int abi = ll_masks_min_abi(fs, 0, 0);

	/* An empty mask (a deny) is expressible on every ABI. */
	return abi <= 0 ? 1u : (uint32_t)abi;
}

/* A string reference must land on the first byte of a string: offset 0
 * or just after a NUL. Strings are NUL-terminated inside the area because
 * the parser checked that the area's last byte is NUL. */
static bool
str_ok(const struct ll_table_view *t, uint32_t off)
{
	if (off >= t->strings_size)
		return false;
	return off == 0 || t->strings[off - 1] == '\0';
}

static bool
is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/* The path rules of heel(5) (PATHS), re-checked on the template: no control
 * characters, no empty, `.` or `..` component (a leading `./` excepted),
 * no trailing `/`, every `${` a well-formed name. heelc never writes
 * anything else, so anything else is damage or forgery. */
static bool
template_ok(const char *p)
{
	const char *c = p;

	if (!*p)
		return false;
	if (p[0] == '.' && p[1] == '/')
		c = p + 2;
	else if (p[0] == '/')
		c = p + 1;
	if (!*c)
		return p[0] == '/';  /* "/" alone; "./" is not a path */
	for (;;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)c[i];

			if (ch < 0x20 || ch == 0x7f)
				return false;
			if (ch == '$' && i + 1 < n && c[i + 1] == '{') {
				size_t j = i + 2;

				if (j >= n || !is_name_start(c[j]))
					return false;
				while (j < n && is_name_char(c[j]))
					j++;
				if (j >= n || c[j] != '}')
					return false;
				i = j;
			}
		}
		if (!end)
			return true;
		c = end + 1;
	}
}

void
ll_table_rule(const struct ll_table_view *t, uint32_t i, struct ll_rule_view *out)
{
	const uint8_t *r = t->rules + (size_t)i * LL_TABLE_RULE_SIZE;
	uint32_t origin = le_get32(r + LL_RULE_ORIGIN_STR);

	out->kind = le_get32(r + LL_RULE_KIND);
	out->flags = le_get32(r + LL_RULE_FLAGS);
	out->path = t->strings + le_get32(r + LL_RULE_STR);
	out->min_abi = le_get32(r + LL_RULE_MIN_ABI);
	out->access = le_get64(r + LL_RULE_ACCESS);
	out->origin = origin == LL_STR_NONE ? NULL : t->strings + origin;
	out->origin_line = le_get32(r + LL_RULE_ORIGIN_LINE);
}

static int
check_rule(const struct ll_table_view *t, uint32_t i, char *err, size_t errlen)
{
	const uint8_t *r = t->rules + (size_t)i * LL_TABLE_RULE_SIZE;
	uint32_t kind = le_get32(r + LL_RULE_KIND);
	uint32_t flags = le_get32(r + LL_RULE_FLAGS);
	uint32_t str = le_get32(r + LL_RULE_STR);
	uint32_t min_abi = le_get32(r + LL_RULE_MIN_ABI);
	uint64_t access = le_get64(r + LL_RULE_ACCESS);
	uint32_t origin = le_get32(r + LL_RULE_ORIGIN_STR);

	if (kind < LL_KIND_GRANT || kind > LL_KIND_INERT)
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: unknown kind %u", i, kind);
	if (flags & ~LL_RF_KNOWN)
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: unknown flags 0x%x", i,
			    flags & ~LL_RF_KNOWN);
	if (!str_ok(t, str))
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: bad path string offset %u", i, str);
	if (origin != LL_STR_NONE && !str_ok(t, origin))
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: bad origin string offset %u", i, origin);
	if (!template_ok(t->strings + str))
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: malformed path", i);
	if (access & ~t->handled_fs)
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: access 0x%llx outside the handled rights", i,
			    (unsigned long long)access);
	if (kind == LL_KIND_GRANT) {
		if (!access)
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: grant without rights", i);
		if (flags & LL_RF_NEEDS_MOUNTNS)
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: needs-mountns on a grant", i);
	} else {
		if (access)
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: deny with rights", i);
		if (flags & LL_RF_DEVICE)
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: device flag on a deny", i);
		if (kind == LL_KIND_INERT && (flags & LL_RF_NEEDS_MOUNTNS))
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: needs-mountns on an inert deny", i);
	}
	if (min_abi != ll_fs_min_abi(access))
		return rt_error(err, errlen, -EINVAL, "landlock rule %u: minimum ABI %u does not match its rights", i,
			    min_abi);
	if (i > 0) {
		const uint8_t *prev = r - LL_TABLE_RULE_SIZE;
		int c = strcmp(t->strings + le_get32(prev + LL_RULE_STR), t->strings + str);

		/* Sorted, one rule per path: the encoder's output is canonical
		 * (the lowering merged grants and let a grant beat a deny). */
		if (c >= 0)
			return rt_error(err, errlen, -EINVAL, "landlock rule %u: rules not sorted", i);
	}
	return 0;
}

int
ll_table_parse(const uint8_t *buf, size_t len, struct ll_table_view *out, char *err,
	       size_t errlen)
{
	struct ll_table_view t;
	size_t rules_bytes, padded, need;
	int abi, rc;

	memset(out, 0, sizeof(*out));
	if (!buf || len < LL_TABLE_HEADER_SIZE)
		return rt_error(err, errlen, -EINVAL, "landlock table: %zu bytes, shorter than its header", len);
	memset(&t, 0, sizeof(t));
	t.version = le_get32(buf + LL_HDR_VERSION);
	t.min_abi = le_get32(buf + LL_HDR_MIN_ABI);
	t.handled_fs = le_get64(buf + LL_HDR_HANDLED_FS);
	t.handled_net = le_get64(buf + LL_HDR_HANDLED_NET);
	t.scoped = le_get64(buf + LL_HDR_SCOPED);
	t.rule_count = le_get32(buf + LL_HDR_RULE_COUNT);
	t.strings_size = le_get32(buf + LL_HDR_STRINGS_SIZE);
	t.flags = le_get32(buf + LL_HDR_FLAGS);

	if (t.version != LL_TABLE_VERSION)
		return rt_error(err, errlen, -EINVAL, "landlock table: version %u, this heel-exec reads %u",
			    t.version, LL_TABLE_VERSION);
	if (t.flags & ~LL_TF_KNOWN)
		return rt_error(err, errlen, -EINVAL, "landlock table: unknown flags 0x%x", t.flags & ~LL_TF_KNOWN);
	if (le_get32(buf + LL_HDR_RESERVED))
		return rt_error(err, errlen, -EINVAL, "landlock table: reserved header field is not zero");
	if (t.handled_fs & ~ll_abi_fs_mask(LL_ABI_MAX))
		return rt_error(err, errlen, -EINVAL, "landlock table: unknown filesystem rights 0x%llx",
			    (unsigned long long)(t.handled_fs & ~ll_abi_fs_mask(LL_ABI_MAX)));
	if (t.handled_net & ~ll_abi_net_mask(LL_ABI_MAX))
		return rt_error(err, errlen, -EINVAL, "landlock table: unknown network rights 0x%llx",
			    (unsigned long long)(t.handled_net & ~ll_abi_net_mask(LL_ABI_MAX)));
	if (t.scoped & ~ll_abi_scope_mask(LL_ABI_MAX))
		return rt_error(err, errlen, -EINVAL, "landlock table: unknown scopes 0x%llx",
			    (unsigned long long)(t.scoped & ~ll_abi_scope_mask(LL_ABI_MAX)));
	if (!t.handled_fs)
		return rt_error(err, errlen, -EINVAL, "landlock table: handles no filesystem right");
	abi = ll_masks_min_abi(t.handled_fs, t.handled_net, t.scoped);
	/* A minimum below what the handled rights need would let a kernel
	 * that cannot enforce them pass without --best-effort. */
	if (t.min_abi < (uint32_t)abi || t.min_abi > LL_ABI_MAX)
		return rt_error(err, errlen, -EINVAL, "landlock table: minimum ABI %u, the handled rights need %d",
			    t.min_abi, abi);

	/* Overflow-safe size: rule_count and strings_size are each bounded
	 * by len before they are multiplied or added. */
	if (t.rule_count > (len - LL_TABLE_HEADER_SIZE) / LL_TABLE_RULE_SIZE)
		return rt_error(err, errlen, -EINVAL, "landlock table: %u rules do not fit in %zu bytes",
			    t.rule_count, len);
	rules_bytes = (size_t)t.rule_count * LL_TABLE_RULE_SIZE;
	if (t.strings_size > len - LL_TABLE_HEADER_SIZE - rules_bytes)
		return rt_error(err, errlen, -EINVAL, "landlock table: string area overruns the payload");
	padded = ((size_t)t.strings_size + 7u) & ~(size_t)7u;
	need = LL_TABLE_HEADER_SIZE + rules_bytes + padded;
	if (need != len)
		return rt_error(err, errlen, -EINVAL, "landlock table: %zu bytes, its header describes %zu", len,
			    need);
	t.rules = buf + LL_TABLE_HEADER_SIZE;
	t.strings = (const char *)(t.rules + rules_bytes);
	if (t.strings_size && t.strings[t.strings_size - 1] != '\0')
		return rt_error(err, errlen, -EINVAL, "landlock table: string area does not end in NUL");
	for (size_t i = t.strings_size; i < padded; i++)
		if (t.strings[i])
			return rt_error(err, errlen, -EINVAL, "landlock table: padding is not zero");
	for (uint32_t i = 0; i < t.rule_count; i++) {
		rc = check_rule(&t, i, err, errlen);
		if (rc)
			return rc;
	}
	*out = t;
	return 0;
}

static const char *const fs_names[LL_FS_RIGHT_COUNT] = {
	"execute", "write-file", "read-file", "read-dir", "remove-dir", "remove-file",
	"make-char", "make-dir", "make-reg", "make-sock", "make-fifo", "make-block",
	"make-sym", "refer", "truncate", "ioctl-dev", "resolve-unix",
};
static const char *const net_names[LL_NET_RIGHT_COUNT] = { "bind-tcp", "connect-tcp", "bind-udp",
							     "connect-send-udp" };
static const char *const scope_names[LL_SCOPE_COUNT] = { "abstract-unix-socket", "signal" };

static const char *
bit_name(const char *const *names, unsigned count, uint64_t bit)
{
	for (unsigned i = 0; i < count; i++)
		if (bit == 1ull << i)
			return names[i];
	return NULL;
}

const char *
ll_fs_right_name(uint64_t bit)
{
	return bit_name(fs_names, LL_FS_RIGHT_COUNT, bit);
}

const char *
ll_net_right_name(uint64_t bit)
{
	return bit_name(net_names, LL_NET_RIGHT_COUNT, bit);
}

const char *
ll_scope_name(uint64_t bit)
{
	return bit_name(scope_names, LL_SCOPE_COUNT, bit);
}

const char *
ll_kind_name(uint32_t kind)
{
	switch (kind) {
	case LL_KIND_GRANT: return "grant";
	case LL_KIND_CARVE: return "carve";
	case LL_KIND_INERT: return "inert";
	}
	return "?";
}

size_t
ll_format_mask(char which, uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!mask)
		return (size_t)snprintf(buf, len, "-");
	for (unsigned i = 0; i < 64; i++) {
		uint64_t bit = 1ull << i;
		const char *name;
		char tmp[24];
		int w;

		if (!(mask & bit))
			continue;
		name = which == 'f' ? ll_fs_right_name(bit) :
		       which == 'n' ? ll_net_right_name(bit) : ll_scope_name(bit);
		if (!name) {
			snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)bit);
			name = tmp;
		}
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
			     n ? " " : "", name);
		n += (size_t)w;
	}
	return n;
}

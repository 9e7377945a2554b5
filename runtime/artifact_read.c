/* SPDX-License-Identifier: MIT
 * The .hpol reader: art_read_file() gets the bytes without trusting the
 * file system more than needed, art_validate() proves that every offset,
 * count and enumeration in them is sound before anything is used, and the
 * accessors then decode records with no further checks. This is the code
 * that parses untrusted input in heel-exec, so it is written to be read:
 * one check, one message, in the order docs/artifact.md lists them. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, O_NOFOLLOW under plain -std=c17 */
#endif
#include "artifact_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "bpf_verify.h"
#include "crc32c.h"
#include "errmsg.h"
#include "landlock_table.h"
#include "win_manifest.h"

/* The artifact's constants restate the kernel ABI values bpf_sim.h uses. */
static_assert(ART_AUDIT_ARCH_X86_64 == BPF_SIM_AUDIT_ARCH_X86_64, "audit arch");
static_assert(ART_AUDIT_ARCH_AARCH64 == BPF_SIM_AUDIT_ARCH_AARCH64, "audit arch");
static_assert(ART_BPF_MAX_INSNS == BPF_SIM_MAXINSNS, "program limit");
static_assert(sizeof(struct art_bpf_insn) == sizeof(struct bpf_sim_insn), "sock_filter");

/* ------------------------------------------------------------ the file */

/* heel-exec.exe reads the file with its own reader (launcher/windows_read.c:
 * owners and modes are POSIX ideas); the rest of this file is plain C. */
#ifndef _WIN32

/* Checks the open artifact `fd` and reads it whole from offset 0 (pread:
 * where the descriptor's offset stands does not matter, and it is not
 * moved for whoever else holds it). `name` names it in messages; `named`
 * is false for a file no path reaches (see art_read_fd). */
static int
read_checked(int fd, const char *name, bool named, uint8_t **buf, size_t *len, char *err,
	     size_t errlen)
{
	struct stat st;
	uint8_t *data = NULL;
	size_t size, got = 0;
	int rc;

	if (fstat(fd, &st) < 0) {
		rc = -errno;
		return rt_error(err, errlen, rc, "%s: cannot stat: %s", name, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode))
		return rt_error(err, errlen, -EINVAL, "%s: not a regular file", name);
	if (st.st_size < ART_MIN_FILE_SIZE)
		return rt_error(err, errlen, -EINVAL,
				"%s: too small to be an artifact (%lld bytes, at least %d)", name,
				(long long)st.st_size, ART_MIN_FILE_SIZE);
	if (st.st_size > (off_t)ART_MAX_FILE_SIZE)
		return rt_error(err, errlen, -EFBIG,
				"%s: too large to be an artifact (%lld bytes, at most %u)", name,
				(long long)st.st_size, ART_MAX_FILE_SIZE);
	/* Authenticity: the checksums only catch accidents, so whoever can
	 * write the file decides the sandbox. Only root and the user who
	 * runs the launcher may. */
	if (st.st_uid != 0 && st.st_uid != getuid())
		return rt_error(err, errlen, -EPERM,
				"%s: owned by uid %lu, neither root nor the invoking user", name,
				(unsigned long)st.st_uid);
	/* A file that no name reaches (a memfd, which is always mode 0777,
	 * or an unlinked file) can only be written through a descriptor
	 * of its own: the mode is no one's way in. */
	if (named && (st.st_mode & (S_IWGRP | S_IWOTH)))
		return rt_error(err, errlen, -EPERM,
				"%s: writable by group or others (mode %04o); chmod go-w it", name,
				(unsigned)(st.st_mode & 07777));
	size = (size_t)st.st_size;
	data = malloc(size);
	if (!data)
		return rt_error(err, errlen, -ENOMEM, "%s: out of memory", name);
	while (got < size) {
		ssize_t n = pread(fd, data + got, size - got, (off_t)got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			free(data);
			return rt_error(err, errlen, rc, "%s: read failed: %s", name,
					strerror(-rc));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* Grown since fstat: the bytes read are not the whole file. */
	if (got != size || fstat(fd, &st) < 0 || (size_t)st.st_size != size) {
		free(data);
		return rt_error(err, errlen, -EIO, "%s: changed size while being read", name);
	}
	*buf = data;
	*len = size;
	return 0;
}

int
art_read_file(const char *path, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	int fd, rc;

	*buf = NULL;
	*len = 0;
	/* O_NOFOLLOW: a link planted in place of the policy must not pick
	 * another file. O_NONBLOCK: opening a FIFO put there would otherwise
	 * hang before fstat() could refuse it; it is a no-op on a regular
	 * file. O_NOCTTY: a terminal device must not become ours. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
#ifdef EMLINK
		/* FreeBSD says EMLINK where Linux and macOS say ELOOP. */
		if (errno == EMLINK)
			rc = -ELOOP;
#endif
		if (rc == -ELOOP)
			return rt_error(err, errlen, rc,
				    "%s: is a symbolic link (refused: links are not followed)",
				    path);
		return rt_error(err, errlen, rc, "%s: cannot open: %s", path, strerror(-rc));
	}
	rc = read_checked(fd, path, true, buf, len, err, errlen);
	close(fd);
	return rc;
}

int
art_read_fd(int fd, const char *name, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fl, rc;

	*buf = NULL;
	*len = 0;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return rt_error(err, errlen, -EBADF, "%s: not an open descriptor", name);
	/* O_PATH cannot be read; say so rather than "Bad file descriptor". */
#ifdef O_PATH
	if (fl & O_PATH)
		return rt_error(err, errlen, -EBADF, "%s: opened with O_PATH, which cannot be read",
				name);
#endif
	if ((fl & O_ACCMODE) == O_WRONLY)
		return rt_error(err, errlen, -EBADF, "%s: opened for writing only", name);
	/* Whether a name reaches the file: a memfd has none (st_nlink 0). */
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		return rt_error(err, errlen, rc, "%s: cannot stat: %s", name, strerror(-rc));
	}
	return read_checked(fd, name, st.st_nlink > 0, buf, len, err, errlen);
}

#endif /* _WIN32 */

/* ------------------------------------------------------------ validation */

struct vctx {
	const uint8_t *buf;
	size_t len;
	char *err;
	size_t errlen;
	const uint8_t *strtab;
	size_t strtab_size;
};

/* Known types; the holes (13..15, 18..47, 50..) are unknown types. */
static const char *const section_names[ART_SEC_KNOWN_MAX + 1] = {
    [ART_SEC_STRTAB] = "STRTAB",
    [ART_SEC_SCALARS] = "SCALARS",
    [ART_SEC_PATHS] = "PATHS",
    [ART_SEC_ENV] = "ENV",
    [ART_SEC_NETWORK] = "NETWORK",
    [ART_SEC_IPC] = "IPC",
    [ART_SEC_PYTHON] = "PYTHON",
    [ART_SEC_EXTRAS] = "EXTRAS",
    [ART_SEC_META] = "META",
    [ART_SEC_DECIDER] = "DECIDER",
    [ART_SEC_READONLY] = "READONLY",
    [ART_SEC_IPC_ARGS] = "IPC_ARGS",
    [ART_SEC_LINUX_LANDLOCK] = "LINUX_LANDLOCK",
    [ART_SEC_SECCOMP_BPF] = "SECCOMP_BPF",
    [ART_SEC_SBPL_TEXT] = "SBPL_TEXT",
    [ART_SEC_SBPL_PARAMS] = "SBPL_PARAMS",
    [ART_SEC_WIN_CONTAINER] = "WIN_CONTAINER",
    [ART_SEC_WIN_ACES] = "WIN_ACES",
};

const char *
art_section_name(uint32_t type)
{
	return type >= 1 && type <= ART_SEC_KNOWN_MAX ? section_names[type] : NULL;
}

/* The flags each known type is written with. Every known section is
 * critical but META and the Windows part: dropping any other would
 * silently change what the sandbox allows, while a launcher of another
 * platform may skip the Windows part and heel-exec.exe refuses an
 * artifact without it. */
static uint32_t
section_flags(uint32_t type)
{
	if (type == ART_SEC_META || type == ART_SEC_SBPL_TEXT || type == ART_SEC_SBPL_PARAMS ||
	    type == ART_SEC_WIN_CONTAINER || type == ART_SEC_WIN_ACES)
		return 0;
	if (type == ART_SEC_SECCOMP_BPF)
		return ART_SECF_CRITICAL | ART_SECF_PER_ARCH;
	return ART_SECF_CRITICAL;
}

static const char *
type_label(uint32_t type, char tmp[24])
{
	const char *name = art_section_name(type);

	if (name)
		return name;
	snprintf(tmp, 24, "type %lu", (unsigned long)type);
	return tmp;
}

#define VFAIL(c, ...) rt_error((c)->err, (c)->errlen, -EINVAL, __VA_ARGS__)

static int
check_str(struct vctx *c, const char *sec, size_t rec, const char *field, uint32_t off,
	  bool required)
{
	if (off == ART_STR_NONE) {
		if (required)
			return VFAIL(c, "%s record %zu: %s string is missing", sec, rec, field);
		return 0;
	}
	if (off >= c->strtab_size)
		return VFAIL(
		    c,
		    "%s record %zu: %s string offset %lu is outside the string table (%zu bytes)",
		    sec, rec, field, (unsigned long)off, c->strtab_size);
	/* Pointing into the middle of a string would alias a suffix of it:
	 * harmless for memory safety, but no writer does it, so it is
	 * corruption or a crafted file. */
	if (off > 0 && c->strtab[off - 1] != 0)
		return VFAIL(c, "%s record %zu: %s string offset %lu is not on a string start", sec,
			     rec, field, (unsigned long)off);
	return 0;
}

static int
check_origin(struct vctx *c, const char *sec, size_t rec, const uint8_t *o)
{
	return check_str(c, sec, rec, "origin file",
			 le_get32(o + offsetof(struct art_rec_origin, file)), false);
}

static int
check_platforms(struct vctx *c, const char *sec, size_t rec, unsigned mask)
{
	if (mask == 0 || (mask & ~ART_PLAT_ALL))
		return VFAIL(c, "%s record %zu: invalid platform mask 0x%x", sec, rec, mask);
	return 0;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Reads a table header and proves that count records of record_size bytes
 * and nitems items of ART_ITEM_SIZE bytes fill the payload exactly. With
 * item_size 0 there are no trailing items (nitems means something else or
 * must be 0, as the caller says). */
static int
check_table(struct vctx *c, uint32_t type, struct art_span *sp, size_t min_record, bool has_items)
{
	const char *name = section_names[type];
	size_t body, rest, items;

	if (sp->size < sizeof(struct art_rec_table))
		return VFAIL(c, "%s: shorter than its %zu-byte table header", name,
			     sizeof(struct art_rec_table));
	sp->count = le_get32(sp->data + offsetof(struct art_rec_table, count));
	sp->record_size = le_get32(sp->data + offsetof(struct art_rec_table, record_size));
	sp->nitems = le_get32(sp->data + offsetof(struct art_rec_table, nitems));
	if (le_get32(sp->data + offsetof(struct art_rec_table, reserved)))
		return VFAIL(c, "%s: reserved table field is not zero", name);
	if (sp->record_size < min_record)
		return VFAIL(c, "%s: record size %lu is smaller than %zu", name,
			     (unsigned long)sp->record_size, min_record);
	body = sp->size - sizeof(struct art_rec_table);
	items = has_items ? sp->nitems : 0;
	/* Division first: count * record_size may not fit in a size_t on a
	 * 32-bit launcher. */
	if (sp->count > body / sp->record_size)
		goto mismatch;
	rest = body - (size_t)sp->count * sp->record_size;
	if (items > rest / ART_ITEM_SIZE || rest != items * ART_ITEM_SIZE)
		goto mismatch;
	sp->items = sp->data + sizeof(struct art_rec_table) + (size_t)sp->count * sp->record_size;
	return 0;
mismatch:
	return VFAIL(c, "%s: size %zu does not match %lu records of %lu bytes and %lu items", name,
		     sp->size, (unsigned long)sp->count, (unsigned long)sp->record_size,
		     (unsigned long)items);
}

static const uint8_t *
record(const struct art_span *sp, size_t i)
{
	return sp->data + sizeof(struct art_rec_table) + i * sp->record_size;
}

static int
check_items(struct vctx *c, const char *name, const struct art_span *sp)
{
	for (size_t j = 0; j < sp->nitems; j++) {
		int rc =
		    check_str(c, name, j, "item", le_get32(sp->items + j * ART_ITEM_SIZE), true);
		if (rc)
			return rc;
	}
	return 0;
}

static int
check_strtab(struct vctx *c, const struct art_span *sp)
{
	if (sp->size == 0)
		return VFAIL(c, "STRTAB: empty");
	/* The last byte NUL bounds every string, so no strlen() can run off
	 * the table whatever offset a record holds. */
	if (sp->data[sp->size - 1] != 0)
		return VFAIL(c, "STRTAB: last string is not NUL-terminated");
	c->strtab = sp->data;
	c->strtab_size = sp->size;
	return 0;
}

/* The largest value each numeric scalar may hold when set. */
static uint64_t
scalar_max(unsigned id)
{
	switch (id) {
	case ART_SC_ISOLATION:
	case ART_SC_NETWORK:
	case ART_SC_AUDIT_KIND:
	case ART_SC_IO_PRIORITY:
		return 2;
	case ART_SC_ALLOW_PRIVATE:
	case ART_SC_GPU:
	case ART_SC_UNIX_SOCKETS:
		return 1;
	case ART_SC_NICE:
		return 19;
	case ART_SC_PROTECTIONS:
		return (1u << ART_SET_COUNT) - 1;
	default:
		return UINT64_MAX; /* limits */
	}
}

static const char *const scalar_names[ART_SC_COUNT] = {
    [ART_SC_ISOLATION] = "isolation",
    [ART_SC_NETWORK] = "network",
    [ART_SC_ALLOW_PRIVATE] = "allow-private",
    [ART_SC_AUDIT_KIND] = "audit",
    [ART_SC_AUDIT_PATH] = "audit-path",
    [ART_SC_LIMIT_MEMORY] = "memory",
    [ART_SC_LIMIT_CPU] = "cpu",
    [ART_SC_LIMIT_PROCESSES] = "processes",
    [ART_SC_LIMIT_OPEN_FILES] = "open-files",
    [ART_SC_LIMIT_FILE_SIZE] = "file-size",
    [ART_SC_LIMIT_STACK] = "stack",
    [ART_SC_LIMIT_CORE] = "core",
    [ART_SC_NICE] = "nice",
    [ART_SC_IO_PRIORITY] = "io-priority",
    [ART_SC_GPU] = "gpu",
    [ART_SC_WORKDIR] = "workdir",
    [ART_SC_PROTECTIONS] = "protections",
    [ART_SC_UNIX_SOCKETS] = "unix-sockets",
};

static bool
scalar_is_string(unsigned id)
{
	return id == ART_SC_AUDIT_PATH || id == ART_SC_WORKDIR;
}

static int
check_scalars(struct vctx *c, struct art_span *sp, struct art_view *view)
{
	const size_t item = sizeof(struct art_rec_scalar);
	int rc;

	rc = check_table(c, ART_SEC_SCALARS, sp, sizeof(struct art_rec_scalars), false);
	if (rc)
		return rc;
	/* nitems is the scalar items per record here: a later minor may add
	 * scalars at the end, which this reader ignores. */
	if (sp->nitems < ART_SC_COUNT ||
	    sp->record_size != sizeof(struct art_rec_scalars) + (uint64_t)sp->nitems * item)
		return VFAIL(c, "SCALARS: %lu items do not fit a %lu-byte record (at least %d)",
			     (unsigned long)sp->nitems, (unsigned long)sp->record_size,
			     ART_SC_COUNT);
	if (sp->count != ART_PLATFORM_COUNT)
		return VFAIL(c, "SCALARS: %lu platform records, expected %d",
			     (unsigned long)sp->count, ART_PLATFORM_COUNT);
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t plat = le_get32(r + offsetof(struct art_rec_scalars, platform));
		uint32_t enabled = le_get32(r + offsetof(struct art_rec_scalars, enabled));

		if (plat >= ART_PLATFORM_COUNT)
			return VFAIL(c, "SCALARS record %zu: unknown platform %lu", i,
				     (unsigned long)plat);
		if (view->scalars[plat])
			return VFAIL(c, "SCALARS record %zu: platform %lu given twice", i,
				     (unsigned long)plat);
		if (enabled > 1)
			return VFAIL(c, "SCALARS record %zu: invalid enabled flag", i);
		view->scalars[plat] = r;
		for (unsigned id = 0; id < ART_SC_COUNT; id++) {
			const uint8_t *s = r + sizeof(struct art_rec_scalars) + id * item;
			uint64_t value = le_get64(s + offsetof(struct art_rec_scalar, value));
			uint32_t str = le_get32(s + offsetof(struct art_rec_scalar, str));
			uint32_t set = le_get32(s + offsetof(struct art_rec_scalar, set));

			if (set > 1 || le_get32(s + offsetof(struct art_rec_scalar, reserved)))
				return VFAIL(c,
					     "SCALARS record %zu: scalar %u (%s) has invalid flags",
					     i, id, scalar_names[id]);
			if (scalar_is_string(id)) {
				if (value != 0 || set != (str != ART_STR_NONE))
					return VFAIL(c,
						     "SCALARS record %zu: string scalar %u (%s) is "
						     "inconsistent",
						     i, id, scalar_names[id]);
				rc = check_str(c, "SCALARS", i, "scalar", str, false);
				if (rc)
					return rc;
			} else {
				if (str != ART_STR_NONE)
					return VFAIL(c,
						     "SCALARS record %zu: numeric scalar %u (%s) "
						     "has a string",
						     i, id, scalar_names[id]);
				if (set && value > scalar_max(id))
					return VFAIL(c,
						     "SCALARS record %zu: scalar %u (%s) value "
						     "%llu out of range",
						     i, id, scalar_names[id],
						     (unsigned long long)value);
			}
			rc = check_origin(c, "SCALARS", i,
					  s + offsetof(struct art_rec_scalar, origin));
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int
check_paths(struct vctx *c, struct art_span *sp)
{
	int rc = check_table(c, ART_SEC_PATHS, sp, sizeof(struct art_rec_path), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "PATHS: unexpected trailing items");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		unsigned mode = r[offsetof(struct art_rec_path, mode)];
		unsigned set = r[offsetof(struct art_rec_path, set)];

		rc = check_str(c, "PATHS", i, "path",
			       le_get32(r + offsetof(struct art_rec_path, path)), true);
		if (rc)
			return rc;
		/* write and exec imply read: 2, 4 and 6 cannot be written. */
		if (mode != 0 && mode != ART_READ && mode != (ART_READ | ART_WRITE) &&
		    mode != (ART_READ | ART_EXEC) && mode != (ART_READ | ART_WRITE | ART_EXEC))
			return VFAIL(c, "PATHS record %zu: invalid mode %u", i, mode);
		rc = check_platforms(c, "PATHS", i, r[offsetof(struct art_rec_path, platforms)]);
		if (rc)
			return rc;
		if (r[offsetof(struct art_rec_path, optional)] > 1)
			return VFAIL(c, "PATHS record %zu: invalid optional flag", i);
		if (set >= ART_SET_COUNT && set != ART_SET_NONE)
			return VFAIL(c, "PATHS record %zu: invalid protection set %u", i, set);
		if (r[offsetof(struct art_rec_path, source)] > ART_SRC_USER)
			return VFAIL(c, "PATHS record %zu: invalid rule source %u", i,
				     r[offsetof(struct art_rec_path, source)]);
		if (!all_zero(r + offsetof(struct art_rec_path, reserved), 3))
			return VFAIL(c, "PATHS record %zu: reserved field is not zero", i);
		rc = check_origin(c, "PATHS", i, r + offsetof(struct art_rec_path, origin));
		if (rc)
			return rc;
	}
	return 0;
}

static int
check_env(struct vctx *c, struct art_span *sp)
{
	int rc = check_table(c, ART_SEC_ENV, sp, sizeof(struct art_rec_env), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "ENV: unexpected trailing items");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		unsigned kind = r[offsetof(struct art_rec_env, kind)];
		uint32_t value = le_get32(r + offsetof(struct art_rec_env, value));

		rc = check_str(c, "ENV", i, "name",
			       le_get32(r + offsetof(struct art_rec_env, name)), true);
		if (rc)
			return rc;
		if (kind != ART_ENV_PASS && kind != ART_ENV_SET)
			return VFAIL(c, "ENV record %zu: invalid kind %u", i, kind);
		if (kind == ART_ENV_PASS && value != ART_STR_NONE)
			return VFAIL(c, "ENV record %zu: env pass carries a value", i);
		rc = check_str(c, "ENV", i, "value", value, kind == ART_ENV_SET);
		if (rc)
			return rc;
		rc = check_platforms(c, "ENV", i, r[offsetof(struct art_rec_env, platforms)]);
		if (rc)
			return rc;
		if (le_get16(r + offsetof(struct art_rec_env, reserved)))
			return VFAIL(c, "ENV record %zu: reserved field is not zero", i);
		rc = check_origin(c, "ENV", i, r + offsetof(struct art_rec_env, origin));
		if (rc)
			return rc;
	}
	return 0;
}

static int
check_network(struct vctx *c, struct art_span *sp)
{
	int rc = check_table(c, ART_SEC_NETWORK, sp, sizeof(struct art_rec_net), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "NETWORK: unexpected trailing items");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);

		rc = check_str(c, "NETWORK", i, "host",
			       le_get32(r + offsetof(struct art_rec_net, host)), true);
		if (rc)
			return rc;
		rc = check_platforms(c, "NETWORK", i, r[offsetof(struct art_rec_net, platforms)]);
		if (rc)
			return rc;
		if (r[offsetof(struct art_rec_net, reserved)])
			return VFAIL(c, "NETWORK record %zu: reserved field is not zero", i);
		rc = check_origin(c, "NETWORK", i, r + offsetof(struct art_rec_net, origin));
		if (rc)
			return rc;
	}
	return 0;
}

/* An argument name as heelc writes it: [a-z][a-z0-9_-]*, so the broker's
 * `--NAME=VALUE` can neither start with a digit or dash nor hold `=`. */
static bool
arg_name_ok(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-'))
			return false;
	return true;
}

static const char *
vstr(const struct vctx *c, uint32_t off)
{
	return (const char *)c->strtab + off;
}

/* Positional j of IPC record r (validated: in range, a string start). */
static const char *
ipc_positional(const struct vctx *c, const struct art_span *ipc, const uint8_t *r, size_t j)
{
	size_t first = le_get32(r + offsetof(struct art_rec_ipc, first_arg));

	return vstr(c, le_get32(ipc->items + (first + j) * ART_ITEM_SIZE));
}

static int
check_ipc(struct vctx *c, struct art_span *sp)
{
	uint32_t next = 0;
	int rc = check_table(c, ART_SEC_IPC, sp, sizeof(struct art_rec_ipc), true);

	if (rc)
		return rc;
	rc = check_items(c, "IPC", sp);
	if (rc)
		return rc;
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t first = le_get32(r + offsetof(struct art_rec_ipc, first_arg));
		uint32_t n = le_get32(r + offsetof(struct art_rec_ipc, nargs));

		rc = check_str(c, "IPC", i, "name",
			       le_get32(r + offsetof(struct art_rec_ipc, name)), true);
		if (!rc)
			rc = check_str(c, "IPC", i, "exec",
				       le_get32(r + offsetof(struct art_rec_ipc, exec)), false);
		if (rc)
			return rc;
		/* Positionals are owned back to back, so no two commands can
		 * share or skip one. */
		if (first != next || n > sp->nitems - next)
			return VFAIL(
			    c,
			    "IPC record %zu: positionals [%lu, +%lu) out of order or out of range",
			    i, (unsigned long)first, (unsigned long)n);
		next += n;
		if (n > ART_IPC_MAX_ARGS)
			return VFAIL(c, "IPC record %zu: %lu positionals, more than %u", i,
				     (unsigned long)n, ART_IPC_MAX_ARGS);
		/* The names the broker parses a call against: well formed and
		 * each once, as heelc writes them. */
		for (size_t j = 0; j < n; j++) {
			const char *name = ipc_positional(c, sp, r, j);

			if (!arg_name_ok(name))
				return VFAIL(c, "IPC record %zu: positional \"%.64s\" is not an "
						"argument name",
					     i, name);
			for (size_t k = 0; k < j; k++)
				if (strcmp(ipc_positional(c, sp, r, k), name) == 0)
					return VFAIL(c, "IPC record %zu: positional \"%s\" given twice",
						     i, name);
		}
		rc = check_platforms(c, "IPC", i, r[offsetof(struct art_rec_ipc, platforms)]);
		if (rc)
			return rc;
		if (!all_zero(r + offsetof(struct art_rec_ipc, reserved), 3))
			return VFAIL(c, "IPC record %zu: reserved field is not zero", i);
		rc = check_origin(c, "IPC", i, r + offsetof(struct art_rec_ipc, origin));
		if (rc)
			return rc;
	}
	if (next != sp->nitems)
		return VFAIL(c, "IPC: %lu positionals stored, %lu used", (unsigned long)sp->nitems,
			     (unsigned long)next);
	return 0;
}

static int
check_python(struct vctx *c, struct art_span *sp, struct art_view *view)
{
	uint32_t next = 0;
	int rc = check_table(c, ART_SEC_PYTHON, sp, sizeof(struct art_rec_python), true);

	if (rc)
		return rc;
	rc = check_items(c, "PYTHON", sp);
	if (rc)
		return rc;
	if (sp->count != ART_PLATFORM_COUNT)
		return VFAIL(c, "PYTHON: %lu platform records, expected %d",
			     (unsigned long)sp->count, ART_PLATFORM_COUNT);
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t plat = le_get32(r + offsetof(struct art_rec_python, platform));
		uint32_t first = le_get32(r + offsetof(struct art_rec_python, first_package));
		uint32_t n = le_get32(r + offsetof(struct art_rec_python, npackages));

		if (plat >= ART_PLATFORM_COUNT)
			return VFAIL(c, "PYTHON record %zu: unknown platform %lu", i,
				     (unsigned long)plat);
		if (view->python[plat])
			return VFAIL(c, "PYTHON record %zu: platform %lu given twice", i,
				     (unsigned long)plat);
		view->python[plat] = r;
		if (le_get32(r + offsetof(struct art_rec_python, set)) > 1 ||
		    le_get32(r + offsetof(struct art_rec_python, allow_pip_install)) > 1)
			return VFAIL(c, "PYTHON record %zu: invalid flags", i);
		rc = check_str(c, "PYTHON", i, "venv",
			       le_get32(r + offsetof(struct art_rec_python, venv)), false);
		if (rc)
			return rc;
		if (first != next || n > sp->nitems - next)
			return VFAIL(
			    c,
			    "PYTHON record %zu: packages [%lu, +%lu) out of order or out of range",
			    i, (unsigned long)first, (unsigned long)n);
		next += n;
		if (le_get32(r + offsetof(struct art_rec_python, reserved)))
			return VFAIL(c, "PYTHON record %zu: reserved field is not zero", i);
		rc = check_origin(c, "PYTHON", i, r + offsetof(struct art_rec_python, origin));
		if (rc)
			return rc;
	}
	if (next != sp->nitems)
		return VFAIL(c, "PYTHON: %lu packages stored, %lu used", (unsigned long)sp->nitems,
			     (unsigned long)next);
	return 0;
}

static int
check_extras(struct vctx *c, struct art_span *sp)
{
	/* The one platform each kind belongs to; EXCLUDED may name any. */
	static const uint8_t kind_platform[ART_EXTRA_KIND_MAX + 1] = {
	    [ART_EXTRA_SECCOMP] = ART_PLAT_BIT(ART_LINUX),
	    [ART_EXTRA_MACH_LOOKUP] = ART_PLAT_BIT(ART_MACOS),
	    [ART_EXTRA_SBPL] = ART_PLAT_BIT(ART_MACOS),
	    [ART_EXTRA_CAPABILITY] = ART_PLAT_BIT(ART_WINDOWS),
	};
	unsigned excluded = 0;
	int rc = check_table(c, ART_SEC_EXTRAS, sp, sizeof(struct art_rec_extra), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "EXTRAS: unexpected trailing items");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t kind = le_get32(r + offsetof(struct art_rec_extra, kind));
		unsigned plat = r[offsetof(struct art_rec_extra, platforms)];
		unsigned action = r[offsetof(struct art_rec_extra, action)];
		unsigned errno_value = le_get16(r + offsetof(struct art_rec_extra, errno_value));

		if (kind < 1 || kind > ART_EXTRA_KIND_MAX)
			return VFAIL(c, "EXTRAS record %zu: invalid kind %lu", i,
				     (unsigned long)kind);
		rc = check_str(c, "EXTRAS", i, "value",
			       le_get32(r + offsetof(struct art_rec_extra, value)), true);
		if (rc)
			return rc;
		if (kind == ART_EXTRA_EXCLUDED) {
			if (plat == 0 || (plat & (plat - 1)) || (plat & ~ART_PLAT_ALL))
				return VFAIL(c, "EXTRAS record %zu: invalid platform mask 0x%x", i,
					     plat);
			if (excluded & plat)
				return VFAIL(c, "EXTRAS record %zu: platform excluded twice", i);
			excluded |= plat;
		} else if (plat != kind_platform[kind]) {
			return VFAIL(c, "EXTRAS record %zu: invalid platform mask 0x%x", i, plat);
		}
		if (kind == ART_EXTRA_SECCOMP ? action > ART_SECCOMP_ALLOW
					      : (action || errno_value))
			return VFAIL(c, "EXTRAS record %zu: invalid action", i);
		rc = check_origin(c, "EXTRAS", i, r + offsetof(struct art_rec_extra, origin));
		if (rc)
			return rc;
	}
	return 0;
}

/* DECIDER: like PYTHON, one record per platform and arguments owned back
 * to back; present only when a platform has a decider, and never where
 * SCALARS says the network is denied (no proxy would run to ask it: a
 * crafted file must not make a reviewer's explain show a decider that
 * does nothing). */
static int
check_decider(struct vctx *c, struct art_span *sp, struct art_view *view)
{
	uint32_t next = 0;
	bool any = false;
	int rc = check_table(c, ART_SEC_DECIDER, sp, sizeof(struct art_rec_decider), true);

	if (rc)
		return rc;
	rc = check_items(c, "DECIDER", sp);
	if (rc)
		return rc;
	if (sp->count != ART_PLATFORM_COUNT)
		return VFAIL(c, "DECIDER: %lu platform records, expected %d",
			     (unsigned long)sp->count, ART_PLATFORM_COUNT);
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t plat = le_get32(r + offsetof(struct art_rec_decider, platform));
		uint32_t program = le_get32(r + offsetof(struct art_rec_decider, program));
		uint32_t first = le_get32(r + offsetof(struct art_rec_decider, first_arg));
		uint32_t n = le_get32(r + offsetof(struct art_rec_decider, nargs));
		const uint8_t *net;

		if (plat >= ART_PLATFORM_COUNT)
			return VFAIL(c, "DECIDER record %zu: unknown platform %lu", i,
				     (unsigned long)plat);
		if (view->decider[plat])
			return VFAIL(c, "DECIDER record %zu: platform %lu given twice", i,
				     (unsigned long)plat);
		view->decider[plat] = r;
		rc = check_str(c, "DECIDER", i, "program", program, false);
		if (rc)
			return rc;
		if (program == ART_STR_NONE && n)
			return VFAIL(c, "DECIDER record %zu: arguments without a program", i);
		if (program == ART_STR_NONE &&
		    (le_get32(r + offsetof(struct art_rec_decider, origin) +
			      offsetof(struct art_rec_origin, file)) != ART_STR_NONE ||
		     !all_zero(r + offsetof(struct art_rec_decider, origin) +
				   offsetof(struct art_rec_origin, line),
			       8)))
			return VFAIL(c, "DECIDER record %zu: origin without a program", i);
		if (first != next || n > sp->nitems - next)
			return VFAIL(
			    c,
			    "DECIDER record %zu: arguments [%lu, +%lu) out of order or out of "
			    "range",
			    i, (unsigned long)first, (unsigned long)n);
		next += n;
		if (le_get32(r + offsetof(struct art_rec_decider, reserved)))
			return VFAIL(c, "DECIDER record %zu: reserved field is not zero", i);
		rc = check_origin(c, "DECIDER", i, r + offsetof(struct art_rec_decider, origin));
		if (rc)
			return rc;
		if (program == ART_STR_NONE)
			continue;
		any = true;
		net = view->scalars[plat] + sizeof(struct art_rec_scalars) +
		      ART_SC_NETWORK * sizeof(struct art_rec_scalar);
		if (le_get64(net + offsetof(struct art_rec_scalar, value)) == 0) /* deny */
			return VFAIL(c,
				     "DECIDER record %zu: a decider on platform %lu, whose network "
				     "is denied",
				     i, (unsigned long)plat);
	}
	if (next != sp->nitems)
		return VFAIL(c, "DECIDER: %lu arguments stored, %lu used",
			     (unsigned long)sp->nitems, (unsigned long)next);
	/* One encoding per policy: no decider anywhere means no section. */
	if (!any)
		return VFAIL(c, "DECIDER: no platform has a decider");
	return 0;
}

/* The 1.2 tail names the top source file: a base name, so that a
 * launcher looks for it beside the artifact and nowhere else. */
static int
check_meta_source(struct vctx *c, const uint8_t *m)
{
	uint32_t name = le_get32(m + offsetof(struct art_rec_meta, source_name));
	uint32_t crc = le_get32(m + offsetof(struct art_rec_meta, source_crc));
	uint64_t size = le_get64(m + offsetof(struct art_rec_meta, source_size));
	const char *s;
	int rc;

	if ((rc = check_str(c, "META", 0, "source name", name, false)))
		return rc;
	if (name == ART_STR_NONE) {
		if (crc || size)
			return VFAIL(c, "META: a source size or checksum without a source name");
		return 0;
	}
	s = (const char *)c->strtab + name;
	if (!s[0] || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return VFAIL(c, "META: source name \"%.64s\" is not a file name", s);
	if (size > ART_MAX_SOURCE_SIZE)
		return VFAIL(c, "META: source size %llu is larger than heelc reads (%u)",
			     (unsigned long long)size, ART_MAX_SOURCE_SIZE);
	return 0;
}

/* IPC_ARGS: the typed `arg` lines, grouped by command in IPC order.
 * Everything the broker will trust is checked here: the command each
 * belongs to, the name (well formed, once per command), the type, and
 * that no bool is a positional (a bare word cannot say false). Present
 * only when a command has one (one encoding per policy). */
static int
check_ipc_args(struct vctx *c, struct art_span *sp, const struct art_span *ipc)
{
	uint32_t prev = 0;
	size_t run = 0; /* records of command `prev` so far */
	int rc = check_table(c, ART_SEC_IPC_ARGS, sp, sizeof(struct art_rec_ipc_arg), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "IPC_ARGS: unexpected trailing items");
	if (!sp->count)
		return VFAIL(c, "IPC_ARGS: no record");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t cmd = le_get32(r + offsetof(struct art_rec_ipc_arg, command));
		uint32_t name = le_get32(r + offsetof(struct art_rec_ipc_arg, name));
		unsigned type = r[offsetof(struct art_rec_ipc_arg, type)];
		const uint8_t *owner;
		uint32_t npos;

		if (cmd >= ipc->count)
			return VFAIL(c, "IPC_ARGS record %zu: command %lu out of range (%lu commands)",
				     i, (unsigned long)cmd, (unsigned long)ipc->count);
		if (i && cmd < prev)
			return VFAIL(c, "IPC_ARGS record %zu: command %lu out of order", i,
				     (unsigned long)cmd);
		run = i && cmd == prev ? run + 1 : 1;
		prev = cmd;
		if (run > ART_IPC_MAX_ARGS)
			return VFAIL(c, "IPC_ARGS: command %lu has more than %u arguments",
				     (unsigned long)cmd, ART_IPC_MAX_ARGS);
		rc = check_str(c, "IPC_ARGS", i, "name", name, true);
		if (rc)
			return rc;
		if (!arg_name_ok(vstr(c, name)))
			return VFAIL(c, "IPC_ARGS record %zu: \"%.64s\" is not an argument name", i,
				     vstr(c, name));
		if (type >= ART_IPC_ARG_TYPE_COUNT)
			return VFAIL(c, "IPC_ARGS record %zu: invalid type %u", i, type);
		if (!all_zero(r + offsetof(struct art_rec_ipc_arg, reserved), 7))
			return VFAIL(c, "IPC_ARGS record %zu: reserved field is not zero", i);
		for (size_t k = i - (run - 1); k < i; k++)
			if (strcmp(vstr(c, le_get32(record(sp, k) +
						    offsetof(struct art_rec_ipc_arg, name))),
				   vstr(c, name)) == 0)
				return VFAIL(c, "IPC_ARGS record %zu: argument \"%s\" declared twice",
					     i, vstr(c, name));
		if (type != ART_IPC_ARG_BOOL)
			continue;
		owner = record(ipc, cmd);
		npos = le_get32(owner + offsetof(struct art_rec_ipc, nargs));
		for (size_t j = 0; j < npos; j++)
			if (strcmp(ipc_positional(c, ipc, owner, j), vstr(c, name)) == 0)
				return VFAIL(c, "IPC_ARGS record %zu: bool argument \"%s\" is a "
						"positional",
					     i, vstr(c, name));
	}
	return 0;
}

/* READONLY: one record per path kept read-only inside writable places.
 * An each-writable path is looked up inside every writable place at
 * launch, so it must be relative and literal: one that could name a
 * single place of its own (absolute, a drive, a ${NAME}) is refused, and
 * so is one that climbs out of the place (a `.` or `..` component). */
static int
check_readonly(struct vctx *c, struct art_span *sp)
{
	int rc = check_table(c, ART_SEC_READONLY, sp, sizeof(struct art_rec_readonly), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "READONLY: unexpected trailing items");
	/* One encoding per policy: nothing read-only means no section. */
	if (!sp->count)
		return VFAIL(c, "READONLY: no record");
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t path = le_get32(r + offsetof(struct art_rec_readonly, path));
		unsigned form = r[offsetof(struct art_rec_readonly, form)];
		unsigned set = r[offsetof(struct art_rec_readonly, set)];
		const char *text;

		rc = check_str(c, "READONLY", i, "path", path, true);
		if (!rc)
			rc = check_str(c, "READONLY", i, "because",
				       le_get32(r + offsetof(struct art_rec_readonly, because)), false);
		if (rc)
			return rc;
		text = (const char *)c->strtab + path;
		if (form > ART_RO_EACH_WRITABLE)
			return VFAIL(c, "READONLY record %zu: invalid form %u", i, form);
		if (!text[0])
			return VFAIL(c, "READONLY record %zu: empty path", i);
		if (form == ART_RO_EACH_WRITABLE) {
			const char *p = text;

			if (text[0] == '/' || text[0] == '\\' || strstr(text, "${") ||
			    (text[1] == ':' && ((text[0] | 0x20) >= 'a' && (text[0] | 0x20) <= 'z')))
				return VFAIL(c, "READONLY record %zu: an each-writable path must be "
					     "relative and literal", i);
			while (*p) {
				size_t n = strcspn(p, "/\\");

				if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
					return VFAIL(c, "READONLY record %zu: an each-writable path "
						     "must stay inside its place", i);
				p += n;
				if (*p && !*++p)
					return VFAIL(c, "READONLY record %zu: an each-writable path "
						     "must stay inside its place", i);
			}
		}
		rc = check_platforms(c, "READONLY", i, r[offsetof(struct art_rec_readonly, platforms)]);
		if (rc)
			return rc;
		if (set >= ART_SET_COUNT && set != ART_SET_NONE)
			return VFAIL(c, "READONLY record %zu: invalid protection set %u", i, set);
		if (r[offsetof(struct art_rec_readonly, source)] > ART_SRC_USER)
			return VFAIL(c, "READONLY record %zu: invalid rule source %u", i,
				     r[offsetof(struct art_rec_readonly, source)]);
		if (!all_zero(r + offsetof(struct art_rec_readonly, reserved), 8))
			return VFAIL(c, "READONLY record %zu: reserved field is not zero", i);
		rc = check_origin(c, "READONLY", i, r + offsetof(struct art_rec_readonly, origin));
		if (rc)
			return rc;
	}
	return 0;
}

static int
check_meta(struct vctx *c, const struct art_span *sp)
{
	int rc;

	if (sp->size < ART_META_SIZE_1_0)
		return VFAIL(c, "META: %zu bytes, shorter than %u", sp->size, ART_META_SIZE_1_0);
	if (le_get32(sp->data + offsetof(struct art_rec_meta, reserved)))
		return VFAIL(c, "META: reserved field is not zero");
	rc = check_str(c, "META", 0, "compiler version",
		       le_get32(sp->data + offsetof(struct art_rec_meta, compiler_version)), true);
	/* A 1.0 or 1.1 META ends before the source; a shorter tail is no
	 * field a reader knows. */
	if (rc == 0 && sp->size >= sizeof(struct art_rec_meta))
		rc = check_meta_source(c, sp->data);
	return rc;
}

static int
check_landlock(struct vctx *c, const struct art_span *sp, uint32_t header_abi)
{
	static const char prefix[] = "landlock table: ";
	struct ll_table_view t;
	char msg[192];
	const char *why = msg;

	if (ll_table_parse(sp->data, sp->size, &t, msg, sizeof(msg)) != 0) {
		/* The section name already says what the table is. */
		if (strncmp(msg, prefix, sizeof(prefix) - 1) == 0)
			why += sizeof(prefix) - 1;
		return VFAIL(c, "LINUX_LANDLOCK: %s", why);
	}
	/* heel-exec probes the kernel against the header before it parses
	 * anything else; a header that understates the table would let an
	 * older kernel through. */
	if (header_abi != t.min_abi)
		return VFAIL(c, "header min_landlock_abi %lu does not match the Landlock table's %lu",
			     (unsigned long)header_abi, (unsigned long)t.min_abi);
	return 0;
}

static const char *
arch_name(uint32_t audit_arch)
{
	switch (audit_arch) {
	case ART_AUDIT_ARCH_X86_64:
		return "x86_64";
	case ART_AUDIT_ARCH_AARCH64:
		return "aarch64";
	}
	return NULL;
}

/* One SECCOMP_BPF section (table index `index`): its header, its size, no
 * second program for the same arch, and the verifier heelc itself runs,
 * so a bad program is refused here with a message rather than by the
 * kernel with a bare EINVAL. */
static int
check_bpf(struct vctx *c, unsigned index, const uint8_t *data, size_t size,
	  struct art_view *view)
{
	/* 32 KiB: the largest program the kernel takes, decoded. */
	struct bpf_sim_insn insns[ART_BPF_MAX_INSNS];
	char msg[BPF_VERIFY_MSG_MAX];
	struct art_bpf *prog;
	uint32_t arch, count;
	const char *name;

	if (size < sizeof(struct art_bpf_header))
		return VFAIL(c, "section %u (SECCOMP_BPF): %zu bytes, shorter than its %zu-byte header",
			     index, size, sizeof(struct art_bpf_header));
	arch = le_get32(data + offsetof(struct art_bpf_header, audit_arch));
	count = le_get32(data + offsetof(struct art_bpf_header, insn_count));
	name = arch_name(arch);
	if (!name)
		return VFAIL(c, "section %u (SECCOMP_BPF): unknown architecture 0x%08lx", index,
			     (unsigned long)arch);
	for (uint32_t i = 0; i < view->nbpf; i++)
		if (view->bpf[i].audit_arch == arch)
			return VFAIL(c, "SECCOMP_BPF: two programs for %s", name);
	if (!all_zero(data + offsetof(struct art_bpf_header, reserved), 8))
		return VFAIL(c, "SECCOMP_BPF (%s): reserved field is not zero", name);
	if (count > (size - sizeof(struct art_bpf_header)) / ART_BPF_INSN_SIZE ||
	    size != sizeof(struct art_bpf_header) + (size_t)count * ART_BPF_INSN_SIZE)
		return VFAIL(c, "SECCOMP_BPF (%s): size %zu does not match %lu instructions of %d bytes",
			     name, size, (unsigned long)count, ART_BPF_INSN_SIZE);
	if (count > ART_BPF_MAX_INSNS)
		return VFAIL(c, "SECCOMP_BPF (%s): %lu instructions, more than the kernel's limit of %u",
			     name, (unsigned long)count, ART_BPF_MAX_INSNS);
	prog = &view->bpf[view->nbpf];
	prog->audit_arch = arch;
	prog->len = count;
	prog->insns = data + sizeof(struct art_bpf_header);
	art_bpf_decode(prog, insns);
	if (bpf_verify(insns, count, arch, msg, sizeof(msg)) != 0)
		return VFAIL(c, "SECCOMP_BPF (%s): %s", name, msg);
	view->nbpf++;
	return 0;
}

/* SBPL_TEXT (1.4): the profile, handed to the sandbox as a C string, so
 * it may hold no NUL; it is never empty (it starts with `(version 1)`). */
static int
check_sbpl_text(struct vctx *c, const struct art_span *sp)
{
	if (sp->size == 0)
		return VFAIL(c, "SBPL_TEXT: empty");
	if (memchr(sp->data, 0, sp->size))
		return VFAIL(c, "SBPL_TEXT: the profile holds a NUL byte");
	return 0;
}

static bool
sbpl_name_ok(const char *s)
{
	size_t n = 0;

	if (!(s[0] >= 'A' && s[0] <= 'Z'))
		return false;
	for (; s[n]; n++)
		if (!((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
			return false;
	return n < ART_SBPL_NAME_MAX;
}

static bool
sbpl_mode_ok(unsigned kind, unsigned mode)
{
	switch (kind) {
	case ART_SBPL_KIND_PATH:
		return mode == 0 || mode == ART_READ || mode == (ART_READ | ART_WRITE) ||
		       mode == (ART_READ | ART_EXEC) || mode == (ART_READ | ART_WRITE | ART_EXEC) ||
		       mode == ART_SBPL_MODE_NOEXEC || mode == ART_SBPL_MODE_READONLY;
	case ART_SBPL_KIND_WORKDIR:
		return mode == ART_SBPL_MODE_WORKDIR;
	default:
		return mode == 0;
	}
}

/* SBPL_PARAMS (1.4): names unique and well formed, enumerations in
 * range, ranks a permutation of 1..(PATH + WORKDIR records), at most one
 * WORKDIR and one PROXY. */
static int
check_sbpl_params(struct vctx *c, struct art_span *sp)
{
	static const char sec[] = "SBPL_PARAMS";
	int rc = check_table(c, ART_SEC_SBPL_PARAMS, sp, sizeof(struct art_rec_sbpl_param), false);
	size_t nranked = 0, nworkdir = 0, nproxy = 0;

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "%s: nitems %lu is not 0", sec, (unsigned long)sp->nitems);
	if (sp->count > ART_SBPL_MAX_PARAMS)
		return VFAIL(c, "%s: %lu parameters, more than %u", sec, (unsigned long)sp->count,
			     ART_SBPL_MAX_PARAMS);
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t name = le_get32(r + offsetof(struct art_rec_sbpl_param, name));
		unsigned kind = r[offsetof(struct art_rec_sbpl_param, kind)];
		unsigned mode = r[offsetof(struct art_rec_sbpl_param, mode)];
		unsigned opt = r[offsetof(struct art_rec_sbpl_param, optional)];

		if ((rc = check_str(c, sec, i, "name", name, true)) ||
		    (rc = check_str(c, sec, i, "value",
				    le_get32(r + offsetof(struct art_rec_sbpl_param, value)), true)) ||
		    (rc = check_origin(c, sec, i, r + offsetof(struct art_rec_sbpl_param, origin))))
			return rc;
		if (!sbpl_name_ok(vstr(c, name)))
			return VFAIL(c, "%s record %zu: invalid parameter name", sec, i);
		if (kind >= ART_SBPL_KIND_COUNT)
			return VFAIL(c, "%s record %zu: unknown kind %u", sec, i, kind);
		if (!sbpl_mode_ok(kind, mode))
			return VFAIL(c, "%s record %zu: invalid mode 0x%x for its kind", sec, i, mode);
		if (opt > 1)
			return VFAIL(c, "%s record %zu: optional is %u, not 0 or 1", sec, i, opt);
		if (r[offsetof(struct art_rec_sbpl_param, reserved0)] ||
		    le_get32(r + offsetof(struct art_rec_sbpl_param, reserved1)))
			return VFAIL(c, "%s record %zu: reserved field is not zero", sec, i);
		if (kind == ART_SBPL_KIND_PROXY) {
			if (++nproxy > 1)
				return VFAIL(c, "%s record %zu: a second PROXY parameter", sec, i);
			if (le_get32(r + offsetof(struct art_rec_sbpl_param, rank)))
				return VFAIL(c, "%s record %zu: a PROXY parameter has no rank", sec, i);
		} else {
			nranked++;
			if (kind == ART_SBPL_KIND_WORKDIR && ++nworkdir > 1)
				return VFAIL(c, "%s record %zu: a second WORKDIR parameter", sec, i);
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(vstr(c, le_get32(record(sp, j) +
						    offsetof(struct art_rec_sbpl_param, name))),
				   vstr(c, name)) == 0)
				return VFAIL(c, "%s record %zu: duplicate parameter name", sec, i);
	}
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t rank = le_get32(r + offsetof(struct art_rec_sbpl_param, rank));

		if (r[offsetof(struct art_rec_sbpl_param, kind)] == ART_SBPL_KIND_PROXY)
			continue;
		if (rank < 1 || rank > nranked)
			return VFAIL(c, "%s record %zu: rank %lu is outside 1..%zu", sec, i,
				     (unsigned long)rank, nranked);
		for (size_t j = 0; j < i; j++)
			if (record(sp, j)[offsetof(struct art_rec_sbpl_param, kind)] !=
				ART_SBPL_KIND_PROXY &&
			    le_get32(record(sp, j) + offsetof(struct art_rec_sbpl_param, rank)) == rank)
				return VFAIL(c, "%s record %zu: duplicate rank %lu", sec, i,
					     (unsigned long)rank);
	}
	return 0;
}

/* The macOS sections come together, and only with a policy built for
 * macos; from 1.4 on, a policy built for macos has them (an older heelc
 * did not write them, and the macOS launcher refuses such an artifact). */
static int
check_macos_presence(struct vctx *c, const struct art_view *view, unsigned minor)
{
	bool text = view->sec[ART_SEC_SBPL_TEXT].data != NULL;
	bool params = view->sec[ART_SEC_SBPL_PARAMS].data != NULL;

	if (text != params)
		return VFAIL(c, "section %s is present without %s", text ? "SBPL_TEXT" : "SBPL_PARAMS",
			     text ? "SBPL_PARAMS" : "SBPL_TEXT");
	if (text && !art_platform_enabled(view, ART_MACOS))
		return VFAIL(c, "section SBPL_TEXT is present, but the policy is not built for macos");
	if (!text && minor >= 4 && art_platform_enabled(view, ART_MACOS))
		return VFAIL(c, "missing section SBPL_TEXT (the policy is built for macos)");
	return 0;
}

/* The Linux sections are there exactly when the policy is built for
 * linux: stripping them from a linux policy (and re-sealing the
 * checksums) must not leave heel-exec with nothing to enforce. */
static int
check_linux_presence(struct vctx *c, const struct art_view *view)
{
	static const uint32_t arches[ART_BPF_ARCH_COUNT] = {ART_AUDIT_ARCH_X86_64,
							    ART_AUDIT_ARCH_AARCH64};
	bool linux_on = art_platform_enabled(view, ART_LINUX);

	if (!linux_on) {
		if (view->sec[ART_SEC_LINUX_LANDLOCK].data || view->nbpf)
			return VFAIL(c, "section %s is present, but the policy is not built for linux",
				     view->nbpf ? "SECCOMP_BPF" : "LINUX_LANDLOCK");
		if (view->min_landlock_abi)
			return VFAIL(c, "header min_landlock_abi %lu without a Landlock table",
				     (unsigned long)view->min_landlock_abi);
		return 0;
	}
	if (!view->sec[ART_SEC_LINUX_LANDLOCK].data)
		return VFAIL(c, "missing section LINUX_LANDLOCK (the policy is built for linux)");
	for (size_t a = 0; a < ART_BPF_ARCH_COUNT; a++) {
		bool found = false;

		for (uint32_t i = 0; i < view->nbpf; i++)
			found |= view->bpf[i].audit_arch == arches[a];
		if (!found)
			return VFAIL(c,
				     "missing section SECCOMP_BPF for %s (the policy is built for "
				     "linux)",
				     arch_name(arches[a]));
	}
	return 0;
}

/* ------------------------------------------------------------ the Windows part */

/* `S-1-15-...`: prefix, then n dash-separated decimal 32-bit numbers in
 * Windows' own spelling (no sign, no leading zero), nmin <= n <= nmax. */
static bool
sid_shape(const char *s, const char *prefix, unsigned nmin, unsigned nmax, uint32_t *first)
{
	size_t plen = strlen(prefix);
	unsigned n = 0;

	if (strncmp(s, prefix, plen) != 0)
		return false;
	s += plen;
	for (;;) {
		uint64_t v = 0;
		size_t digits = 0;

		while (s[digits] >= '0' && s[digits] <= '9') {
			v = v * 10 + (uint64_t)(s[digits] - '0');
			if (++digits > 10)
				return false;
		}
		if (!digits || (digits > 1 && s[0] == '0') || v > UINT32_MAX)
			return false;
		if (n == 0 && first)
			*first = (uint32_t)v;
		n++;
		s += digits;
		if (*s == '\0')
			break;
		if (*s != '-')
			return false;
		s++;
	}
	return n >= nmin && n <= nmax;
}

static bool
win_sep(char ch)
{
	return ch == '\\' || ch == '/';
}

/* An absolute path template as heelc writes it: `X:\...` (or `X:/`), or
 * `${NAME}` alone or followed by a separator; no empty, `.` or `..`
 * component. A relative path would be resolved against whatever
 * directory heel-exec.exe happens to run in. */
static bool
win_path_shape(const char *p)
{
	size_t i;

	if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	    win_sep(p[2])) {
		i = 3;
		if (p[i] == '\0')
			return true; /* the drive's root */
	} else if (p[0] == '$' && p[1] == '{') {
		for (i = 2; (p[i] >= 'A' && p[i] <= 'Z') || p[i] == '_' ||
			    (i > 2 && p[i] >= '0' && p[i] <= '9');
		     i++)
			;
		if (i == 2 || p[i] != '}')
			return false;
		i++;
		if (p[i] == '\0')
			return true;
		if (!win_sep(p[i]))
			return false;
		i++;
	} else {
		return false;
	}
	for (;;) {
		size_t j = i;

		while (p[j] && !win_sep(p[j]))
			j++;
		if (j == i || (j - i == 1 && p[i] == '.') ||
		    (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
			return false;
		if (!p[j])
			return true;
		i = j + 1;
	}
}

static bool
container_name_shape(const char *s)
{
	static const char prefix[] = "heel.p.";

	if (strncmp(s, prefix, sizeof(prefix) - 1) != 0)
		return false;
	s += sizeof(prefix) - 1;
	for (int i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[16] == '\0';
}

/* A capability SID: a well-known one (S-1-15-3-N) or one derived from a
 * name (S-1-15-3-1024- and the eight words of a SHA-256). */
static bool
capability_sid_shape(const char *s)
{
	uint32_t first = 0;

	if (sid_shape(s, "S-1-15-3-", 1, 1, &first))
		return first != 0 && first != 1024;
	return sid_shape(s, "S-1-15-3-", 9, 9, &first) && first == 1024;
}

static int
check_win_container(struct vctx *c, struct art_span *sp)
{
	const uint8_t *r;
	uint32_t name, sid, flags, cpu;
	unsigned prio;
	int rc = check_table(c, ART_SEC_WIN_CONTAINER, sp, sizeof(struct art_rec_win_container),
			     true);

	if (rc)
		return rc;
	if (sp->count != 1)
		return VFAIL(c, "WIN_CONTAINER: %lu records, expected 1", (unsigned long)sp->count);
	if (sp->nitems > ART_WIN_MAX_CAPABILITIES)
		return VFAIL(c, "WIN_CONTAINER: %lu capabilities, at most %u",
			     (unsigned long)sp->nitems, ART_WIN_MAX_CAPABILITIES);
	r = record(sp, 0);
	name = le_get32(r + offsetof(struct art_rec_win_container, name));
	sid = le_get32(r + offsetof(struct art_rec_win_container, sid));
	flags = le_get32(r + offsetof(struct art_rec_win_container, flags));
	prio = r[offsetof(struct art_rec_win_container, priority_class)];
	cpu = le_get32(r + offsetof(struct art_rec_win_container, cpu_rate_percent));
	if ((rc = check_str(c, "WIN_CONTAINER", 0, "name", name, true)) ||
	    (rc = check_str(c, "WIN_CONTAINER", 0, "SID", sid, true)))
		return rc;
	if (!container_name_shape(vstr(c, name)))
		return VFAIL(c, "WIN_CONTAINER: \"%.64s\" is not a container name (heel.p.<16 hex>)",
			     vstr(c, name));
	if (!sid_shape(vstr(c, sid), "S-1-15-2-", 7, 7, NULL))
		return VFAIL(c, "WIN_CONTAINER: \"%.96s\" is not an AppContainer SID (S-1-15-2- and "
				"7 numbers)",
			     vstr(c, sid));
	if (flags & ~ART_WIN_CF_KNOWN)
		return VFAIL(c, "WIN_CONTAINER: unknown flags 0x%lx", (unsigned long)flags);
	if (prio > ART_WIN_PRIO_MAX)
		return VFAIL(c, "WIN_CONTAINER: invalid priority class %u", prio);
	if (!all_zero(r + offsetof(struct art_rec_win_container, reserved), 3))
		return VFAIL(c, "WIN_CONTAINER: reserved field is not zero");
	if (cpu > 100)
		return VFAIL(c, "WIN_CONTAINER: CPU rate %lu%% is more than 100%%",
			     (unsigned long)cpu);
	for (size_t j = 0; j < sp->nitems; j++) {
		uint32_t off = le_get32(sp->items + j * ART_ITEM_SIZE);

		if ((rc = check_str(c, "WIN_CONTAINER", j, "capability", off, true)))
			return rc;
		if (!capability_sid_shape(vstr(c, off)))
			return VFAIL(c, "WIN_CONTAINER: capability \"%.96s\" is not a capability SID",
				     vstr(c, off));
		for (size_t k = 0; k < j; k++)
			if (strcmp(vstr(c, le_get32(sp->items + k * ART_ITEM_SIZE)),
				   vstr(c, off)) == 0)
				return VFAIL(c, "WIN_CONTAINER: capability %s listed twice",
					     vstr(c, off));
	}
	return 0;
}

/* The bits an entry may hold. Never WRITE_DAC or WRITE_OWNER: a
 * container that may rewrite an ACL or take ownership grants itself
 * anything. A deny never holds SYNCHRONIZE or READ_CONTROL, which every
 * open needs, so a denied file still opens for what an outer grant
 * gives (its attributes, say) instead of failing in a confusing way. */
#define WIN_MASK_ALLOWED                                                                           \
	(0x1ffu | WIN_DELETE | WIN_READ_CONTROL | WIN_SYNCHRONIZE)

static int
check_win_aces(struct vctx *c, struct art_span *sp)
{
	int rc = check_table(c, ART_SEC_WIN_ACES, sp, sizeof(struct art_rec_win_ace), false);

	if (rc)
		return rc;
	if (sp->nitems)
		return VFAIL(c, "WIN_ACES: unexpected trailing items");
	if (sp->count > ART_WIN_MAX_ACES)
		return VFAIL(c, "WIN_ACES: %lu entries, at most %u", (unsigned long)sp->count,
			     ART_WIN_MAX_ACES);
	for (size_t i = 0; i < sp->count; i++) {
		const uint8_t *r = record(sp, i);
		uint32_t path = le_get32(r + offsetof(struct art_rec_win_ace, path));
		uint32_t mask = le_get32(r + offsetof(struct art_rec_win_ace, mask));
		unsigned ace = r[offsetof(struct art_rec_win_ace, ace)];
		unsigned kind = r[offsetof(struct art_rec_win_ace, kind)];
		unsigned inherit = r[offsetof(struct art_rec_win_ace, inherit)];
		unsigned label = r[offsetof(struct art_rec_win_ace, label)];
		unsigned missing = r[offsetof(struct art_rec_win_ace, missing)];
		unsigned pddc = r[offsetof(struct art_rec_win_ace, parent_deny_delete_child)];

		if ((rc = check_str(c, "WIN_ACES", i, "path", path, true)))
			return rc;
		if (!win_path_shape(vstr(c, path)))
			return VFAIL(c, "WIN_ACES record %zu: \"%.96s\" is not an absolute path template",
				     i, vstr(c, path));
		if (mask == 0)
			return VFAIL(c, "WIN_ACES record %zu: access mask is 0", i);
		if (mask & ~WIN_MASK_ALLOWED)
			return VFAIL(c, "WIN_ACES record %zu: access mask 0x%lx has bits outside 0x%lx",
				     i, (unsigned long)mask, (unsigned long)WIN_MASK_ALLOWED);
		if (ace > WIN_ACE_DENY)
			return VFAIL(c, "WIN_ACES record %zu: invalid ACE type %u", i, ace);
		if (kind > WIN_KIND_FILE)
			return VFAIL(c, "WIN_ACES record %zu: invalid path kind %u", i, kind);
		if (inherit & ~WIN_INHERIT_KNOWN)
			return VFAIL(c, "WIN_ACES record %zu: unknown inheritance flags 0x%x", i,
				     inherit);
		if ((inherit & (WIN_INHERIT_ONLY | WIN_INHERIT_NO_PROPAGATE)) &&
		    !(inherit & (WIN_INHERIT_OBJECT | WIN_INHERIT_CONTAINER)))
			return VFAIL(c, "WIN_ACES record %zu: inheritance flags 0x%x inherit nothing",
				     i, inherit);
		if (label > WIN_LABEL_LOW)
			return VFAIL(c, "WIN_ACES record %zu: invalid label %u", i, label);
		if (missing > WIN_MISSING_SKIP)
			return VFAIL(c, "WIN_ACES record %zu: invalid missing action %u", i, missing);
		if (pddc > 1)
			return VFAIL(c, "WIN_ACES record %zu: parent_deny_delete_child is %u", i, pddc);
		if (ace == WIN_ACE_DENY) {
			if (mask & (WIN_SYNCHRONIZE | WIN_READ_CONTROL))
				return VFAIL(c, "WIN_ACES record %zu: a deny takes SYNCHRONIZE or "
						"READ_CONTROL (mask 0x%lx)",
					     i, (unsigned long)mask);
			if (label != WIN_LABEL_NONE)
				return VFAIL(c, "WIN_ACES record %zu: a deny carries a label", i);
		} else if (pddc) {
			return VFAIL(c, "WIN_ACES record %zu: an allow denies DELETE_CHILD on its parent",
				     i);
		}
		if (!all_zero(r + offsetof(struct art_rec_win_ace, reserved), 2) ||
		    le_get32(r + offsetof(struct art_rec_win_ace, reserved2)))
			return VFAIL(c, "WIN_ACES record %zu: reserved field is not zero", i);
		if ((rc = check_origin(c, "WIN_ACES", i, r + offsetof(struct art_rec_win_ace, origin))))
			return rc;
	}
	return 0;
}

/* The Windows sections come together, and exactly when the policy is
 * built for windows; from 1.4 on, a windows policy without them has been
 * stripped. An older artifact has none, and heel-exec.exe refuses it. */
static int
check_windows_presence(struct vctx *c, const struct art_view *view, unsigned minor)
{
	bool on = art_platform_enabled(view, ART_WINDOWS);
	bool box = view->sec[ART_SEC_WIN_CONTAINER].data != NULL;
	bool aces = view->sec[ART_SEC_WIN_ACES].data != NULL;

	if (box != aces)
		return VFAIL(c, "section %s without %s", box ? "WIN_CONTAINER" : "WIN_ACES",
			     box ? "WIN_ACES" : "WIN_CONTAINER");
	if (box && !on)
		return VFAIL(c, "section WIN_CONTAINER is present, but the policy is not built for "
				"windows");
	if (!box && on && minor >= 4)
		return VFAIL(c, "missing section WIN_CONTAINER (the policy is built for windows)");
	return 0;
}

static bool
overlaps(uint64_t a_off, uint64_t a_size, uint64_t b_off, uint64_t b_size)
{
	/* Half-open ranges already known to lie inside the buffer, so the
	 * sums cannot overflow. An empty section overlaps nothing. */
	return a_size && b_size && a_off < b_off + b_size && b_off < a_off + a_size;
}

static uint32_t
header_crc(const uint8_t *buf, size_t header_size)
{
	static const uint8_t zero[4];
	const size_t at = offsetof(struct art_file_header, header_crc);
	uint32_t crc;

	crc = crc32c_update(0, buf, at);
	crc = crc32c_update(crc, zero, sizeof(zero));
	return crc32c_update(crc, buf + at + 4, header_size - at - 4);
}

uint32_t
art_header_crc(const uint8_t *buf, size_t header_size)
{
	return header_crc(buf, header_size);
}

int
art_validate(const uint8_t *buf, size_t len, struct art_view *view, char *err, size_t errlen)
{
	struct vctx ctx = {.buf = buf, .len = len, .err = err, .errlen = errlen};
	struct vctx *c = &ctx;
	const uint8_t *h = buf;
	const uint8_t *tab;
	uint64_t file_size, toff;
	unsigned major, minor, hsize, nsec;
	char t1[24], t2[24];
	unsigned bpf_index[ART_BPF_ARCH_COUNT], nbpf = 0;
	int rc;

	memset(view, 0, sizeof(*view));
	if (!buf)
		len = 0;
	if (len < ART_HEADER_SIZE)
		return VFAIL(c, "artifact too short: %zu bytes, the header alone is %d", len,
			     ART_HEADER_SIZE);
	if (memcmp(h, ART_MAGIC, ART_MAGIC_LEN) != 0)
		return VFAIL(c, "wrong magic: not a heel policy artifact (.hpol)");
	major = le_get16(h + offsetof(struct art_file_header, fmt_major));
	minor = le_get16(h + offsetof(struct art_file_header, fmt_minor));
	if (major != ART_FMT_MAJOR)
		return VFAIL(c, "unsupported format version %u.%u (this reader understands %d.x)",
			     major, minor, ART_FMT_MAJOR);
	hsize = le_get16(h + offsetof(struct art_file_header, header_size));
	if (hsize < ART_HEADER_SIZE || hsize % ART_ALIGN || hsize > len)
		return VFAIL(c,
			     "bad header size %u (at least %d, a multiple of %d, inside the file)",
			     hsize, ART_HEADER_SIZE, ART_ALIGN);
	file_size = le_get64(h + offsetof(struct art_file_header, file_size));
	if (file_size != len)
		return VFAIL(c,
			     "file size mismatch: the header says %llu bytes, there are %zu "
			     "(truncated or extended)",
			     (unsigned long long)file_size, len);
	if (header_crc(h, hsize) != le_get32(h + offsetof(struct art_file_header, header_crc)))
		return VFAIL(c, "header checksum mismatch: the header is corrupt");
	if (crc32c_buf(buf + hsize, len - hsize) !=
	    le_get32(h + offsetof(struct art_file_header, body_crc)))
		return VFAIL(c, "body checksum mismatch: the artifact is corrupt");
	view->platform = le_get32(h + offsetof(struct art_file_header, platform));
	if (view->platform > ART_FILE_PLATFORM_WINDOWS)
		return VFAIL(c, "unknown target platform %lu", (unsigned long)view->platform);
	if (le_get32(h + offsetof(struct art_file_header, flags)) & ~ART_HDR_FLAGS_KNOWN)
		return VFAIL(c, "unknown header flags 0x%lx",
			     (unsigned long)le_get32(h + offsetof(struct art_file_header, flags)));
	if (le_get64(h + offsetof(struct art_file_header, reserved)))
		return VFAIL(c, "reserved header field is not zero");

	nsec = le_get16(h + offsetof(struct art_file_header, section_count));
	if (nsec > ART_MAX_SECTIONS)
		return VFAIL(c, "too many sections: %u (at most %d)", nsec, ART_MAX_SECTIONS);
	toff = le_get64(h + offsetof(struct art_file_header, section_table_off));
	if (toff % ART_ALIGN)
		return VFAIL(c, "section table offset %llu is not %d-aligned",
			     (unsigned long long)toff, ART_ALIGN);
	if (toff < hsize || toff > len || (uint64_t)nsec * ART_SECTION_ENTRY_SIZE > len - toff)
		return VFAIL(c, "section table out of range (offset %llu, %u entries, %zu bytes)",
			     (unsigned long long)toff, nsec, len);
	tab = buf + toff;

#define ENTRY(i, field)                                                                            \
	(tab + (size_t)(i)*ART_SECTION_ENTRY_SIZE + offsetof(struct art_file_section, field))
	for (unsigned i = 0; i < nsec; i++) {
		uint32_t type = le_get32(ENTRY(i, type));
		uint64_t off = le_get64(ENTRY(i, offset));
		uint64_t size = le_get64(ENTRY(i, size));

		if (off % ART_ALIGN)
			return VFAIL(c, "section %u (%s): offset %llu is not %d-aligned", i,
				     type_label(type, t1), (unsigned long long)off, ART_ALIGN);
		/* Written so that nothing can wrap: off + size may not fit. */
		if (off > len || size > len - off)
			return VFAIL(
			    c,
			    "section %u (%s) out of range (offset %llu, size %llu, file %zu bytes)",
			    i, type_label(type, t1), (unsigned long long)off,
			    (unsigned long long)size, len);
		if (overlaps(off, size, 0, hsize) ||
		    overlaps(off, size, toff, (uint64_t)nsec * ART_SECTION_ENTRY_SIZE))
			return VFAIL(c, "section %u (%s) overlaps the header or the section table",
				     i, type_label(type, t1));
		if (le_get32(ENTRY(i, reserved)))
			return VFAIL(c, "section %u (%s): reserved field is not zero", i,
				     type_label(type, t1));
	}
	for (unsigned i = 0; i < nsec; i++)
		for (unsigned j = i + 1; j < nsec; j++)
			if (overlaps(le_get64(ENTRY(i, offset)), le_get64(ENTRY(i, size)),
				     le_get64(ENTRY(j, offset)), le_get64(ENTRY(j, size))))
				return VFAIL(c, "sections %u (%s) and %u (%s) overlap", i,
					     type_label(le_get32(ENTRY(i, type)), t1), j,
					     type_label(le_get32(ENTRY(j, type)), t2));
	for (unsigned i = 0; i < nsec; i++) {
		uint64_t off = le_get64(ENTRY(i, offset));
		uint64_t size = le_get64(ENTRY(i, size));

		if (crc32c_buf(buf + off, (size_t)size) != le_get32(ENTRY(i, crc)))
			return VFAIL(c, "section %u (%s): checksum mismatch", i,
				     type_label(le_get32(ENTRY(i, type)), t1));
	}
	for (unsigned i = 0; i < nsec; i++) {
		uint32_t type = le_get32(ENTRY(i, type));
		uint32_t flags = le_get32(ENTRY(i, flags));
		struct art_span *sp;

		if (!art_section_name(type)) {
			if (flags & ART_SECF_CRITICAL)
				return VFAIL(c,
					     "unknown critical section type %lu (written by a "
					     "newer heelc?): refusing",
					     (unsigned long)type);
			view->nskipped++;
			continue;
		}
		if (flags != section_flags(type))
			return VFAIL(c, "section %u (%s): wrong flags 0x%lx", i,
				     section_names[type], (unsigned long)flags);
		if (type == ART_SEC_SECCOMP_BPF) {
			/* One per architecture: which one is in the payload,
			 * checked with the structure below. */
			if (nbpf == ART_BPF_ARCH_COUNT)
				return VFAIL(c,
					     "too many SECCOMP_BPF sections (at most %d, one per "
					     "architecture)",
					     ART_BPF_ARCH_COUNT);
			bpf_index[nbpf++] = i;
			continue;
		}
		sp = &view->sec[type];
		if (sp->data)
			return VFAIL(c, "duplicate section %s", section_names[type]);
		sp->data = buf + le_get64(ENTRY(i, offset));
		sp->size = (size_t)le_get64(ENTRY(i, size));
	}
	for (uint32_t t = 1; t <= ART_SEC_COMMON_MAX; t++)
		if ((section_flags(t) & ART_SECF_CRITICAL) && t != ART_SEC_DECIDER &&
		    t != ART_SEC_READONLY && t != ART_SEC_IPC_ARGS && !view->sec[t].data)
			return VFAIL(c, "missing section %s", section_names[t]);

	if ((rc = check_strtab(c, &view->sec[ART_SEC_STRTAB])) ||
	    (rc = check_scalars(c, &view->sec[ART_SEC_SCALARS], view)) ||
	    (rc = check_paths(c, &view->sec[ART_SEC_PATHS])) ||
	    (rc = check_env(c, &view->sec[ART_SEC_ENV])) ||
	    (rc = check_network(c, &view->sec[ART_SEC_NETWORK])) ||
	    (rc = check_ipc(c, &view->sec[ART_SEC_IPC])) ||
	    (rc = check_python(c, &view->sec[ART_SEC_PYTHON], view)) ||
	    (rc = check_extras(c, &view->sec[ART_SEC_EXTRAS])))
		goto bad;
	if (view->sec[ART_SEC_META].data && (rc = check_meta(c, &view->sec[ART_SEC_META])))
		goto bad;
	if (view->sec[ART_SEC_DECIDER].data &&
	    (rc = check_decider(c, &view->sec[ART_SEC_DECIDER], view)))
		goto bad;
	if (view->sec[ART_SEC_READONLY].data &&
	    (rc = check_readonly(c, &view->sec[ART_SEC_READONLY])))
		goto bad;
	if (view->sec[ART_SEC_IPC_ARGS].data &&
	    (rc = check_ipc_args(c, &view->sec[ART_SEC_IPC_ARGS], &view->sec[ART_SEC_IPC])))
		goto bad;
	view->min_landlock_abi = le_get32(h + offsetof(struct art_file_header, min_landlock_abi));
	if (view->sec[ART_SEC_LINUX_LANDLOCK].data &&
	    (rc = check_landlock(c, &view->sec[ART_SEC_LINUX_LANDLOCK], view->min_landlock_abi)))
		goto bad;
	for (unsigned k = 0; k < nbpf; k++) {
		unsigned i = bpf_index[k];

		rc = check_bpf(c, i, buf + le_get64(ENTRY(i, offset)),
			       (size_t)le_get64(ENTRY(i, size)), view);
		if (rc)
			goto bad;
	}
#undef ENTRY
	if ((rc = check_linux_presence(c, view)))
		goto bad;
	if (view->sec[ART_SEC_SBPL_TEXT].data &&
	    (rc = check_sbpl_text(c, &view->sec[ART_SEC_SBPL_TEXT])))
		goto bad;
	if (view->sec[ART_SEC_SBPL_PARAMS].data &&
	    (rc = check_sbpl_params(c, &view->sec[ART_SEC_SBPL_PARAMS])))
		goto bad;
	if ((rc = check_macos_presence(c, view, minor)))
		goto bad;
	if (view->sec[ART_SEC_WIN_CONTAINER].data &&
	    (rc = check_win_container(c, &view->sec[ART_SEC_WIN_CONTAINER])))
		goto bad;
	if (view->sec[ART_SEC_WIN_ACES].data && (rc = check_win_aces(c, &view->sec[ART_SEC_WIN_ACES])))
		goto bad;
	if ((rc = check_windows_presence(c, view, minor)))
		goto bad;

	view->buf = buf;
	view->len = len;
	view->fmt_major = (uint16_t)major;
	view->fmt_minor = (uint16_t)minor;
	view->nsections = nsec;
	return 0;
bad:
	/* A half-filled view must not be mistaken for a valid one. */
	memset(view, 0, sizeof(*view));
	return rc;
}

/* ------------------------------------------------------------ accessors */

static const char *
str_at(const struct art_view *view, uint32_t off)
{
	if (off == ART_STR_NONE)
		return NULL;
	return (const char *)view->sec[ART_SEC_STRTAB].data + off;
}

static struct art_origin
origin_at(const struct art_view *view, const uint8_t *o)
{
	struct art_origin origin = {
	    .file = str_at(view, le_get32(o + offsetof(struct art_rec_origin, file))),
	    .line = le_get32(o + offsetof(struct art_rec_origin, line)),
	    .col = le_get32(o + offsetof(struct art_rec_origin, col)),
	};

	return origin;
}

bool
art_platform_enabled(const struct art_view *view, unsigned platform)
{
	if (platform >= ART_PLATFORM_COUNT || !view->scalars[platform])
		return false;
	return le_get32(view->scalars[platform] + offsetof(struct art_rec_scalars, enabled)) != 0;
}

int
art_scalar(const struct art_view *view, unsigned platform, unsigned id, struct art_scalar *out)
{
	const uint8_t *s;

	if (platform >= ART_PLATFORM_COUNT || id >= ART_SC_COUNT || !view->scalars[platform])
		return -ERANGE;
	s = view->scalars[platform] + sizeof(struct art_rec_scalars) +
	    id * sizeof(struct art_rec_scalar);
	out->set = le_get32(s + offsetof(struct art_rec_scalar, set)) != 0;
	out->value = le_get64(s + offsetof(struct art_rec_scalar, value));
	out->str = str_at(view, le_get32(s + offsetof(struct art_rec_scalar, str)));
	out->origin = origin_at(view, s + offsetof(struct art_rec_scalar, origin));
	return 0;
}

size_t
art_path_count(const struct art_view *view)
{
	return view->sec[ART_SEC_PATHS].count;
}

int
art_path_at(const struct art_view *view, size_t i, struct art_path *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_PATHS];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->path = str_at(view, le_get32(r + offsetof(struct art_rec_path, path)));
	out->mode = r[offsetof(struct art_rec_path, mode)];
	out->platforms = r[offsetof(struct art_rec_path, platforms)];
	out->optional = r[offsetof(struct art_rec_path, optional)] != 0;
	out->set = r[offsetof(struct art_rec_path, set)];
	out->source = r[offsetof(struct art_rec_path, source)];
	out->origin = origin_at(view, r + offsetof(struct art_rec_path, origin));
	return 0;
}

size_t
art_env_count(const struct art_view *view)
{
	return view->sec[ART_SEC_ENV].count;
}

int
art_env_at(const struct art_view *view, size_t i, struct art_env *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_ENV];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->kind = r[offsetof(struct art_rec_env, kind)];
	out->platforms = r[offsetof(struct art_rec_env, platforms)];
	out->name = str_at(view, le_get32(r + offsetof(struct art_rec_env, name)));
	out->value = str_at(view, le_get32(r + offsetof(struct art_rec_env, value)));
	out->origin = origin_at(view, r + offsetof(struct art_rec_env, origin));
	return 0;
}

size_t
art_net_count(const struct art_view *view)
{
	return view->sec[ART_SEC_NETWORK].count;
}

int
art_net_at(const struct art_view *view, size_t i, struct art_net *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_NETWORK];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->host = str_at(view, le_get32(r + offsetof(struct art_rec_net, host)));
	out->port = le_get16(r + offsetof(struct art_rec_net, port));
	out->platforms = r[offsetof(struct art_rec_net, platforms)];
	out->origin = origin_at(view, r + offsetof(struct art_rec_net, origin));
	return 0;
}

size_t
art_ipc_count(const struct art_view *view)
{
	return view->sec[ART_SEC_IPC].count;
}

int
art_ipc_at(const struct art_view *view, size_t i, struct art_ipc *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_IPC];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->name = str_at(view, le_get32(r + offsetof(struct art_rec_ipc, name)));
	out->exec = str_at(view, le_get32(r + offsetof(struct art_rec_ipc, exec)));
	out->first_arg = le_get32(r + offsetof(struct art_rec_ipc, first_arg));
	out->nargs = le_get32(r + offsetof(struct art_rec_ipc, nargs));
	out->timeout_ms = le_get64(r + offsetof(struct art_rec_ipc, timeout_ms));
	out->platforms = r[offsetof(struct art_rec_ipc, platforms)];
	out->origin = origin_at(view, r + offsetof(struct art_rec_ipc, origin));
	/* Validation proved the records grouped by command: one run. */
	out->first_typed = 0;
	out->ntyped = 0;
	sp = &view->sec[ART_SEC_IPC_ARGS];
	for (uint32_t k = 0; sp->data && k < sp->count; k++) {
		if (le_get32(record(sp, k) + offsetof(struct art_rec_ipc_arg, command)) != i)
			continue;
		if (!out->ntyped)
			out->first_typed = k;
		out->ntyped++;
	}
	return 0;
}

size_t
art_ipc_typed_count(const struct art_view *v, const struct art_ipc *c)
{
	return c->ntyped;
}

int
art_ipc_typed_at(const struct art_view *v, const struct art_ipc *c, size_t j, const char **name,
		 unsigned *type)
{
	const struct art_span *sp = &v->sec[ART_SEC_IPC_ARGS];
	const uint8_t *r;

	if (j >= c->ntyped || !sp->data || (size_t)c->first_typed + j >= sp->count)
		return -ENOENT;
	r = record(sp, (size_t)c->first_typed + j);
	*name = str_at(v, le_get32(r + offsetof(struct art_rec_ipc_arg, name)));
	*type = r[offsetof(struct art_rec_ipc_arg, type)];
	return 0;
}

/* Item j of a [first, first + n) run that validation proved in range. */
static const char *
item_at(const struct art_view *view, const struct art_span *sp, uint32_t first, uint32_t n,
	size_t j)
{
	if (j >= n || (size_t)first + j >= sp->nitems)
		return NULL;
	return str_at(view, le_get32(sp->items + ((size_t)first + j) * ART_ITEM_SIZE));
}

const char *
art_ipc_arg(const struct art_view *view, const struct art_ipc *ipc, size_t j)
{
	return item_at(view, &view->sec[ART_SEC_IPC], ipc->first_arg, ipc->nargs, j);
}

int
art_python(const struct art_view *view, unsigned platform, struct art_python *out)
{
	const uint8_t *r;

	if (platform >= ART_PLATFORM_COUNT || !view->python[platform])
		return -ERANGE;
	r = view->python[platform];
	out->set = le_get32(r + offsetof(struct art_rec_python, set)) != 0;
	out->venv = str_at(view, le_get32(r + offsetof(struct art_rec_python, venv)));
	out->allow_pip_install =
	    le_get32(r + offsetof(struct art_rec_python, allow_pip_install)) != 0;
	out->first_package = le_get32(r + offsetof(struct art_rec_python, first_package));
	out->npackages = le_get32(r + offsetof(struct art_rec_python, npackages));
	out->origin = origin_at(view, r + offsetof(struct art_rec_python, origin));
	return 0;
}

const char *
art_python_package(const struct art_view *view, const struct art_python *py, size_t j)
{
	return item_at(view, &view->sec[ART_SEC_PYTHON], py->first_package, py->npackages, j);
}

int
art_network_decider(const struct art_view *view, unsigned platform, struct art_decider *out)
{
	const uint8_t *r;

	if (platform >= ART_PLATFORM_COUNT)
		return -ERANGE;
	memset(out, 0, sizeof(*out));
	r = view->decider[platform];
	if (!r)
		return 0;
	out->program = str_at(view, le_get32(r + offsetof(struct art_rec_decider, program)));
	out->first_arg = le_get32(r + offsetof(struct art_rec_decider, first_arg));
	out->nargs = le_get32(r + offsetof(struct art_rec_decider, nargs));
	out->origin = origin_at(view, r + offsetof(struct art_rec_decider, origin));
	return 0;
}

const char *
art_decider_arg(const struct art_view *view, const struct art_decider *d, size_t j)
{
	return item_at(view, &view->sec[ART_SEC_DECIDER], d->first_arg, d->nargs, j);
}

size_t
art_readonly_count(const struct art_view *view)
{
	return view->sec[ART_SEC_READONLY].count;
}

int
art_readonly_at(const struct art_view *view, size_t i, struct art_readonly *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_READONLY];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->path = str_at(view, le_get32(r + offsetof(struct art_rec_readonly, path)));
	out->because = str_at(view, le_get32(r + offsetof(struct art_rec_readonly, because)));
	out->each_writable = r[offsetof(struct art_rec_readonly, form)] == ART_RO_EACH_WRITABLE;
	out->platforms = r[offsetof(struct art_rec_readonly, platforms)];
	out->set = r[offsetof(struct art_rec_readonly, set)];
	out->source = r[offsetof(struct art_rec_readonly, source)];
	out->origin = origin_at(view, r + offsetof(struct art_rec_readonly, origin));
	return 0;
}

size_t
art_extra_count(const struct art_view *view)
{
	return view->sec[ART_SEC_EXTRAS].count;
}

int
art_extra_at(const struct art_view *view, size_t i, struct art_extra *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_EXTRAS];
	const uint8_t *r;

	if (i >= sp->count)
		return -ERANGE;
	r = record(sp, i);
	out->kind = le_get32(r + offsetof(struct art_rec_extra, kind));
	out->value = str_at(view, le_get32(r + offsetof(struct art_rec_extra, value)));
	out->platforms = r[offsetof(struct art_rec_extra, platforms)];
	out->action = r[offsetof(struct art_rec_extra, action)];
	out->errno_value = le_get16(r + offsetof(struct art_rec_extra, errno_value));
	out->origin = origin_at(view, r + offsetof(struct art_rec_extra, origin));
	return 0;
}

bool
art_meta(const struct art_view *view, struct art_meta *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_META];

	if (!sp->data)
		return false;
	out->compiler_version =
	    str_at(view, le_get32(sp->data + offsetof(struct art_rec_meta, compiler_version)));
	out->source_digest = sp->data + offsetof(struct art_rec_meta, source_digest);
	out->source_name = NULL;
	out->source_crc = 0;
	out->source_size = 0;
	if (sp->size >= sizeof(struct art_rec_meta)) {
		out->source_name =
		    str_at(view, le_get32(sp->data + offsetof(struct art_rec_meta, source_name)));
		out->source_crc = le_get32(sp->data + offsetof(struct art_rec_meta, source_crc));
		out->source_size = le_get64(sp->data + offsetof(struct art_rec_meta, source_size));
	}
	return true;
}

int
art_landlock(const struct art_view *view, const uint8_t **payload, size_t *len)
{
	const struct art_span *sp = &view->sec[ART_SEC_LINUX_LANDLOCK];

	if (!sp->data)
		return -ENOENT;
	*payload = sp->data;
	*len = sp->size;
	return 0;
}

int
art_seccomp(const struct art_view *view, uint32_t audit_arch, struct art_bpf *out)
{
	for (uint32_t i = 0; i < view->nbpf; i++) {
		if (view->bpf[i].audit_arch == audit_arch) {
			*out = view->bpf[i];
			return 0;
		}
	}
	return -ENOENT;
}

void
art_bpf_decode(const struct art_bpf *prog, struct bpf_sim_insn *out)
{
	for (uint32_t i = 0; i < prog->len; i++) {
		const uint8_t *p = prog->insns + (size_t)i * ART_BPF_INSN_SIZE;

		out[i].code = le_get16(p + offsetof(struct art_bpf_insn, code));
		out[i].jt = p[offsetof(struct art_bpf_insn, jt)];
		out[i].jf = p[offsetof(struct art_bpf_insn, jf)];
		out[i].k = le_get32(p + offsetof(struct art_bpf_insn, k));
	}
}

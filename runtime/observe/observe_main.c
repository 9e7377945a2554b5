/* SPDX-License-Identifier: MIT
 * heel-observe: loads observe.bpf.c (a CO-RE BPF program, through its
 * bpftool skeleton) and writes one JSON line for each refusal the kernel
 * makes to one sandbox's processes. A program of its own, like
 * heel-proxy: libbpf never enters heel-exec. Needs root, or CAP_BPF and
 * CAP_PERFMON; docs/observe.md says what it sees and what it does not.
 *
 * Started by heel-exec (nothing on the command line): descriptor 3 is a
 * SOCK_SEQPACKET control socket (runtime/proxyctl.h's messages).
 *   heel-exec -> observe: "out" carrying the descriptor to write to,
 *                         "end"; later "pidns=INODE" or "cgroup=ID"
 *                         once the sandbox exists;
 *   observe -> heel-exec: "ready" once attached and aimed at it, or
 *                         "error=ONE LINE" (then it exits 1).
 * heel-exec sending "stop" (or closing the socket) tells it to stop: it
 * drains the ring buffer, writes what is left, answers "done", and
 * detaches and exits (which takes a while; heel-exec does not wait).
 *
 * Run by hand (tests, tracing a sandbox started otherwise):
 *   heel-observe --pidns INODE | --pid PID | --cgroup ID [--out-fd N]
 * writes to N (default 1), says "heel-observe: ready" on stderr once
 * attached, and stops when its standard input reaches end of file.
 *
 * Each line (jansson; "version" changes when a field changes meaning):
 *   "type": "denial-raw", "version": 1,
 *   "pid": the process id in the sandbox's PID namespace,
 *   "host_pid": the same on the host,
 *   "comm": the process's name (15 bytes at most),
 *   "op": what was refused: open, create, truncate, mkdir, rmdir,
 *         unlink, rename, link, symlink, chmod, chown, utimes, setattr,
 *         setxattr, removexattr, exec, mmap-exec, connect, bind,
 *         sendmsg, syscall (seccomp; "syscall_name" says which), write
 *         (a read-only mount refused a call not named here),
 *   "access": for open, the file's mode: "read", "write", "read-write",
 *         with "+exec" for an exec's open,
 *   "errno": the value returned (positive), "errno_name": "EACCES",
 *   "path": the path, as the sandbox sees it (absolute) or, with
 *         "path_from": "argument", as the program passed it; "path_from":
 *         "fs-root" when only the file system's own root was known;
 *         "path_cut": true when the walk stopped short (16 names, 63
 *         bytes each),
 *   "mount": for write-readonly-mount, the read-only mount's root,
 *   "addr": for a socket, "HOST:PORT" ("[V6]:PORT"), or a unix path,
 *   "syscall": the x86-64 system call number, where known,
 *   "hook": where it was seen, which tells the wall: a kernel function
 *         ("security_file_open" ..., "may_open" (the file's mode),
 *         "sys_exit" with EROFS (a read-only mount), "path_noexec" (a
 *         noexec mount), "__secure_computing" (seccomp),
 *         "__sys_connect_file" (no route out)), or at the system call
 *         boundary "sys_exit" or "seccomp" (docs/observe.md),
 *   "landlock": {"type": "fs"|"net"|..., "access": ["read_file", ...],
 *         "layer": N} when Landlock itself said it refused.
 * Finally, when records were lost to a full ring buffer, one line
 * {"type": "denial-raw-lost", "version": 1, "count": N}. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/types.h>

#include "observe_event.h"
#include "observe.skel.h"
#include "crc32c.h"
#include "proxyctl.h"
#include "seccomp_policy.h"

struct obs {
	struct observe_bpf *skel;
	struct ring_buffer *rb;
	int out;
	unsigned long long lines;
	char libbpf_said[512]; /* libbpf's last warning: why a load failed */
	char skipped[512];     /* hooks this kernel lacks */
	const char *source;    /* "lsm" or "syscall": the set loaded */
	char fallback[700];    /* why the LSM hooks could not be loaded */
	bool min_btf;          /* relocated with the built-in minimal BTF */
};

static struct obs *obs_current;

/* libbpf's own messages: kept (the last warning names the program the
 * verifier refused), never printed unless asked. */
static int
obs_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (getenv("HEEL_OBSERVE_DEBUG")) {
		va_list aq;

		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level == LIBBPF_DEBUG || !obs_current)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n)
		snprintf(obs_current->libbpf_said, sizeof(obs_current->libbpf_said), "%s", line);
	return 0;
}

static const char *const obs_ops[] = {
	[OBS_OP_OPEN] = "open",
	[OBS_OP_TRUNCATE] = "truncate",
	[OBS_OP_CREATE] = "create",
	[OBS_OP_MKDIR] = "mkdir",
	[OBS_OP_RMDIR] = "rmdir",
	[OBS_OP_UNLINK] = "unlink",
	[OBS_OP_RENAME] = "rename",
	[OBS_OP_LINK] = "link",
	[OBS_OP_SYMLINK] = "symlink",
	[OBS_OP_SETATTR] = "setattr",
	[OBS_OP_SETXATTR] = "setxattr",
	[OBS_OP_EXEC] = "exec",
	[OBS_OP_CONNECT] = "connect",
	[OBS_OP_BIND] = "bind",
	[OBS_OP_SENDMSG] = "sendmsg",
	[OBS_OP_SYSCALL] = "syscall",
	[OBS_OP_WRITE_RO] = "write-readonly-mount",
	[OBS_OP_EXEC_NOEXEC] = "exec-noexec-mount",
	[OBS_OP_MMAP_EXEC] = "mmap-exec-noexec-mount",
};

static const char *const obs_hooks[] = {
	[OBS_HOOK_FILE_OPEN] = "security_file_open",
	[OBS_HOOK_FILE_TRUNCATE] = "security_file_truncate",
	[OBS_HOOK_PATH_MKNOD] = "security_path_mknod",
	[OBS_HOOK_PATH_MKDIR] = "security_path_mkdir",
	[OBS_HOOK_PATH_RMDIR] = "security_path_rmdir",
	[OBS_HOOK_PATH_UNLINK] = "security_path_unlink",
	[OBS_HOOK_PATH_RENAME] = "security_path_rename",
	[OBS_HOOK_PATH_LINK] = "security_path_link",
	[OBS_HOOK_PATH_SYMLINK] = "security_path_symlink",
	[OBS_HOOK_PATH_TRUNCATE] = "security_path_truncate",
	[OBS_HOOK_INODE_SETATTR] = "security_inode_setattr",
	[OBS_HOOK_INODE_SETXATTR] = "security_inode_setxattr",
	[OBS_HOOK_BPRM_CHECK] = "security_bprm_check",
	[OBS_HOOK_SOCKET_CONNECT] = "security_socket_connect",
	[OBS_HOOK_SOCKET_BIND] = "security_socket_bind",
	[OBS_HOOK_SOCKET_SENDMSG] = "security_socket_sendmsg",
	[OBS_HOOK_SECCOMP] = "__secure_computing",
	[OBS_HOOK_MNT_WRITE] = "mnt_get_write_access", /* or __mnt_want_write */
	[OBS_HOOK_PATH_NOEXEC] = "path_noexec",
	[OBS_HOOK_CONNECT_FILE] = "__sys_connect_file",
	[OBS_HOOK_MAY_OPEN] = "may_open",
	[OBS_HOOK_SYS_EXIT] = "sys_exit",
	[OBS_HOOK_SECCOMP_SYSCALL] = "seccomp",
};

/* Landlock's access rights, by bit (include/uapi/linux/landlock.h). */
static const char *const obs_ll_fs[] = {
	"execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
	"make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
	"make_sym",  "refer",      "truncate",  "ioctl_dev",
};
static const char *const obs_ll_net[] = { "bind_tcp", "connect_tcp" };
static const char *const obs_ll_types[] = { "", "ptrace", "fs-topology", "fs", "net",
					    "scope-abstract-unix-socket", "scope-signal" };

#define OBS_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The x86-64 system call's name (heelc's own table), or NULL. */
static const char *
obs_syscall_name(int nr)
{
	for (size_t i = 0; i < scp_table_x86_64_len; i++)
		if (scp_table_x86_64[i].nr == (uint32_t)nr)
			return scp_table_x86_64[i].name;
	return NULL;
}

/* What a refused system call was doing, in the words of the op field. */
static const char *
obs_syscall_op(const char *name, unsigned long long flags)
{
	static const struct {
		const char *prefix, *op;
	} ops[] = {
		{ "openat2", "open" },   { "openat", "open" },     { "open", "open" },
		{ "creat", "create" },   { "execve", "exec" },     { "mkdir", "mkdir" },
		{ "rmdir", "rmdir" },    { "unlink", "unlink" },   { "rename", "rename" },
		{ "linkat", "link" },    { "link", "link" },       { "symlink", "symlink" },
		{ "mknod", "create" },   { "truncate", "truncate" }, { "ftruncate", "truncate" },
		{ "chmod", "chmod" },    { "fchmod", "chmod" },    { "chown", "chown" },
		{ "fchown", "chown" },   { "lchown", "chown" },    { "utime", "utimes" },
		{ "futimesat", "utimes" }, { "setxattr", "setxattr" }, { "lsetxattr", "setxattr" },
		{ "fsetxattr", "setxattr" }, { "removexattr", "removexattr" },
		{ "lremovexattr", "removexattr" }, { "fremovexattr", "removexattr" },
		{ "connect", "connect" }, { "bind", "bind" },      { "sendto", "sendmsg" },
		{ "sendmsg", "sendmsg" }, { "mmap", "mmap-exec" }, { "mprotect", "mmap-exec" },
	};

	if (!strcmp(name, "unlinkat") && (flags & 0x200)) /* AT_REMOVEDIR */
		return "rmdir";
	for (size_t i = 0; i < OBS_LEN(ops); i++)
		if (!strncmp(name, ops[i].prefix, strlen(ops[i].prefix)))
			return ops[i].op;
	return "syscall";
}

static const char *
obs_name(const char *const *v, size_t n, unsigned i)
{
	return i < n && v[i] ? v[i] : "unknown";
}

/* The names walked innermost first, joined from the root down. */
static void
obs_join(const struct obs_event *e, char *buf, size_t cap)
{
	size_t at = 0;
	unsigned n = e->nnames > OBS_NAMES ? OBS_NAMES : e->nnames;

	buf[0] = '\0';
	for (unsigned i = n; i-- > 0 && at + 1 < cap;) {
		int w = snprintf(buf + at, cap - at, "/%.*s", OBS_NAME_LEN, e->names[i]);

		if (w < 0)
			break;
		at += (size_t)w;
	}
	if (!n)
		snprintf(buf, cap, "/");
}

static void
obs_addr(const struct obs_event *e, char *buf, size_t cap)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (e->family == AF_INET) {
		inet_ntop(AF_INET, e->addr, host, sizeof(host));
		snprintf(buf, cap, "%s:%u", host, e->port);
	} else if (e->family == AF_INET6) {
		inet_ntop(AF_INET6, e->addr, host, sizeof(host));
		snprintf(buf, cap, "[%s]:%u", host, e->port);
	} else if (e->family == AF_UNIX) {
		/* An abstract name starts with a NUL: shown as '@'. */
		snprintf(buf, cap, "%s%.*s", e->path[0] ? "" : "@", OBS_PATH_LEN - 1,
			 e->path[0] ? e->path : e->path + 1);
	} else
		snprintf(buf, cap, "family %u", e->family);
}

static json_t *
obs_landlock(const struct obs_event *e)
{
	json_t *o = json_object(), *a = json_array();
	const char *const *names = e->ll_type == 4 ? obs_ll_net : obs_ll_fs;
	size_t n = e->ll_type == 4 ? OBS_LEN(obs_ll_net) : OBS_LEN(obs_ll_fs);

	for (unsigned b = 0; b < 64; b++)
		if (e->ll_access & (1ULL << b))
			json_array_append_new(a, json_string(b < n ? names[b] : "unknown"));
	json_object_set_new(o, "type", json_string(obs_name(obs_ll_types, OBS_LEN(obs_ll_types),
								e->ll_type)));
	json_object_set_new(o, "access", a);
	json_object_set_new(o, "layer", json_integer(e->ll_layer));
	return o;
}

static json_t *
obs_render(const struct obs_event *e)
{
	json_t *o = json_object();
	char buf[OBS_NAMES * (OBS_NAME_LEN + 1) + OBS_PATH_LEN + 16];
	const char *en = strerrorname_np(e->err), *sc, *op;

	json_object_set_new(o, "type", json_string("denial-raw"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "pid", json_integer(e->pid));
	json_object_set_new(o, "host_pid", json_integer(e->host_pid));
	snprintf(buf, sizeof(buf), "%.*s", OBS_COMM_LEN, e->comm);
	json_object_set_new(o, "comm", json_string(buf));
	sc = e->syscall >= 0 ? obs_syscall_name(e->syscall) : NULL;
	if (e->hook == OBS_HOOK_SECCOMP_SYSCALL)
		op = "syscall";
	else if (e->op == OBS_OP_FROM_SYSCALL)
		op = sc ? obs_syscall_op(sc, e->access) : "syscall";
	/* The mount walls say what was refused in the same words as the
	 * rest; the hook says which wall. */
	else if (e->op == OBS_OP_WRITE_RO)
		op = sc ? obs_syscall_op(sc, 0) : "write";
	else if (e->op == OBS_OP_EXEC_NOEXEC)
		op = "exec";
	else if (e->op == OBS_OP_MMAP_EXEC)
		op = "mmap-exec";
	else
		op = obs_name(obs_ops, OBS_LEN(obs_ops), e->op);
	json_object_set_new(o, "op", json_string(op));
	if (e->op == OBS_OP_FROM_SYSCALL && !strcmp(op, "open")) {
		unsigned m = (unsigned)e->access & 3; /* O_ACCMODE */

		snprintf(buf, sizeof(buf), "%s%s", m == 2 ? "read-write" : m == 1 ? "write" : "read",
			 e->access & 0100 ? "+create" : ""); /* O_CREAT */
		json_object_set_new(o, "access", json_string(buf));
	}
	if (e->op == OBS_OP_OPEN) {
		unsigned m = (unsigned)e->access & 3; /* FMODE_READ 1, FMODE_WRITE 2 */

		snprintf(buf, sizeof(buf), "%s%s", m == 3 ? "read-write" : m == 2 ? "write" : "read",
			 e->access & 0x20 ? "+exec" : ""); /* FMODE_EXEC */
		json_object_set_new(o, "access", json_string(buf));
	}
	json_object_set_new(o, "errno", json_integer(e->err));
	if (en)
		json_object_set_new(o, "errno_name", json_string(en));
	if (e->flags & OBS_F_ADDR) {
		obs_addr(e, buf, sizeof(buf));
		json_object_set_new(o, "addr", json_string(buf));
	} else if (e->path_kind == OBS_PATH_FULL || e->path_kind == OBS_PATH_USER) {
		if (e->path_kind == OBS_PATH_USER && (e->flags & OBS_F_DIR) && e->path[0] != '/') {
			/* Relative: taken from the directory walked. */
			size_t n;

			const char *rel = e->path;

			while (rel[0] == '.' && rel[1] == '/')
				rel += 2;
			obs_join(e, buf, sizeof(buf));
			n = strlen(buf);
			if (!strcmp(rel, "."))
				rel = "";
			snprintf(buf + n, sizeof(buf) - n, "%s%.*s", n > 1 && rel[0] ? "/" : "",
				 OBS_PATH_LEN, rel);
			json_object_set_new(o, "path", json_string_nocheck(buf));
		} else if (e->path[0] || e->path_kind == OBS_PATH_FULL) {
			snprintf(buf, sizeof(buf), "%.*s", OBS_PATH_LEN, e->path);
			json_object_set_new(o, "path", json_string_nocheck(buf));
			if (e->path_kind == OBS_PATH_USER && e->path[0] != '/')
				json_object_set_new(o, "path_from", json_string("argument"));
		}
		if (e->path_kind == OBS_PATH_USER && e->op == OBS_OP_WRITE_RO) {
			obs_join(e, buf, sizeof(buf));
			json_object_set_new(o, "mount", json_string_nocheck(buf));
		}
	} else if (e->path_kind == OBS_PATH_NAMES) {
		obs_join(e, buf, sizeof(buf));
		json_object_set_new(o, "path", json_string_nocheck(buf));
		if (e->flags & OBS_F_FS_ROOT)
			json_object_set_new(o, "path_from", json_string("fs-root"));
	}
	if (e->flags & OBS_F_CUT)
		json_object_set_new(o, "path_cut", json_true());
	if (e->syscall >= 0) {
		json_object_set_new(o, "syscall", json_integer(e->syscall));
		if (sc)
			json_object_set_new(o, "syscall_name", json_string(sc));
	}
	json_object_set_new(o, "hook", json_string(obs_name(obs_hooks, OBS_LEN(obs_hooks), e->hook)));
	if (e->flags & OBS_F_LANDLOCK)
		json_object_set_new(o, "landlock", obs_landlock(e));
	return o;
}

static int
obs_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
obs_emit(struct obs *o, json_t *line)
{
	char *s = json_dumps(line, JSON_PRESERVE_ORDER | JSON_COMPACT);
	int r;

	json_decref(line);
	if (!s)
		return -ENOMEM;
	r = obs_write_all(o->out, s, strlen(s));
	if (r == 0)
		r = obs_write_all(o->out, "\n", 1);
	free(s);
	o->lines++;
	return r;
}

static int
obs_on_event(void *ctx, void *data, size_t size)
{
	struct obs *o = ctx;

	if (size < sizeof(struct obs_event))
		return 0;
	/* A reader gone (heel-exec's memfd never is) only loses lines. */
	obs_emit(o, obs_render(data));
	return 0;
}

/* The function a program attaches to: its section name after the '/'. */
static const char *
obs_target(const struct bpf_program *p)
{
	const char *s = bpf_program__section_name(p), *slash = s ? strchr(s, '/') : NULL;

	return slash ? slash + 1 : NULL;
}

/* The kernel's function names with their BTF ids, read straight from
 * /sys/kernel/btf/vmlinux: libbpf parses the same file again to load
 * the program, and a second full parse (btf__load_vmlinux_btf) was a
 * third of the observer's start-up. The layout is the kernel's BTF
 * format (Documentation/bpf/btf.rst): a header, then the types, each a
 * struct btf_type followed by what its kind adds. */
struct obs_btf {
	unsigned char *raw;
	size_t len;
	bool mapped; /* raw is a mapping of the file (6.16+), else malloc'd */
	const struct btf_header *h;
};

static void
obs_btf_free(struct obs_btf *b)
{
	if (b->mapped)
		munmap(b->raw, b->len);
	else
		free(b->raw);
	b->raw = NULL;
}

static int
obs_btf_read(struct obs_btf *b)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC), r = 0;
	size_t cap = 8 << 20;
	struct stat st;
	void *m;

	b->raw = NULL;
	b->len = 0;
	b->mapped = false;
	if (fd < 0)
		return -errno;
	/* Mapped where the kernel allows it: sysfs reads come 4 KiB at a
	 * time, 1,300 of them (35 ms here). */
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		b->raw = m;
		b->len = (size_t)st.st_size;
		b->mapped = true;
		close(fd);
		goto check;
	}
	for (;;) {
		ssize_t n;

		if (b->len == 0 || b->len == cap) {
			unsigned char *p = realloc(b->raw, b->len ? (cap *= 2) : cap);

			if (!p) {
				r = -ENOMEM;
				break;
			}
			b->raw = p;
		}
		n = read(fd, b->raw + b->len, cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	close(fd);
check:
	b->h = (const struct btf_header *)b->raw;
	if (r == 0 && (b->len < sizeof(*b->h) || b->h->magic != BTF_MAGIC ||
		       (size_t)b->h->hdr_len + b->h->str_off + b->h->str_len > b->len ||
		       (size_t)b->h->hdr_len + b->h->type_off + b->h->type_len > b->len))
		r = -EINVAL;
	if (r < 0)
		obs_btf_free(b);
	return r;
}

/* The BTF id of function `name`, or -1. */
static int
obs_btf_func(const struct obs_btf *b, const char *name)
{
	const unsigned char *t = b->raw + b->h->hdr_len + b->h->type_off;
	const unsigned char *end = t + b->h->type_len;
	const char *str = (const char *)b->raw + b->h->hdr_len + b->h->str_off;

	for (int id = 1; t + sizeof(struct btf_type) <= end; id++) {
		const struct btf_type *bt = (const struct btf_type *)t;
		unsigned kind = BTF_INFO_KIND(bt->info), vlen = BTF_INFO_VLEN(bt->info);
		size_t more = 0;

		switch (kind) {
		case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
			more = 4;
			break;
		case BTF_KIND_ARRAY:
			more = 12;
			break;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
		case BTF_KIND_ENUM64:
			more = 12 * (size_t)vlen;
			break;
		case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
			more = 8 * (size_t)vlen;
			break;
		case BTF_KIND_FUNC:
			if (bt->name_off < b->h->str_len && !strcmp(str + bt->name_off, name))
				return id;
			break;
		}
		t += sizeof(*bt) + more;
	}
	return -1;
}

/* The minimal BTF of this program for the kernel it was built on, and
 * that kernel's BTF's size and CRC-32C (Makefile, observe_minbtf.c). */
extern const unsigned long long obs_min_btf_for_size;
extern const uint32_t obs_min_btf_for_crc;
extern const unsigned char obs_min_btf[];
extern const size_t obs_min_btf_len;

/* On that kernel: a memfd holding the minimal BTF, whose path
 * (/proc/self/fd/N) libbpf takes for its CO-RE relocations instead of
 * searching all of the kernel's types; else -1. */
static int
obs_min_btf_fd(const struct obs_btf *vmlinux)
{
	size_t at = 0;
	int fd;

	if (vmlinux->len != obs_min_btf_for_size ||
	    crc32c_buf(vmlinux->raw, vmlinux->len) != obs_min_btf_for_crc)
		return -1;
	fd = (int)memfd_create("heel-observe-btf", MFD_CLOEXEC);
	while (fd >= 0 && at < obs_min_btf_len) {
		ssize_t w = write(fd, obs_min_btf + at, obs_min_btf_len - at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		at += (size_t)w;
	}
	return fd;
}

/* Opens and loads one of the program's two sets: the LSM hooks (fexit,
 * fentry; what this kernel lacks, like landlock_log_denial before 6.15,
 * left out by name) or the system call boundary (the sc_ programs). 0,
 * or -errno with one line in err naming the reason. */
static int
obs_load(struct obs *o, bool lsm, const struct obs_btf *vmlinux, char *err, size_t errlen)
{
	struct bpf_program *p;
	int r;

	char btf_path[64];
	int min = obs_min_btf_fd(vmlinux);
	LIBBPF_OPTS(bpf_object_open_opts, opts);

	o->skipped[0] = '\0';
	o->libbpf_said[0] = '\0';
	if (min >= 0) {
		snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", min);
		opts.btf_custom_path = btf_path;
	}
	o->skel = observe_bpf__open_opts(&opts);
	o->min_btf = min >= 0;
	if (!o->skel) {
		r = -errno;
		if (min >= 0)
			close(min);
		snprintf(err, errlen, "opening the BPF program: %s", strerror(-r));
		return r;
	}
	bpf_object__for_each_program(p, o->skel->obj) {
		const char *t = obs_target(p);
		bool sc = !strncmp(bpf_program__name(p), "sc_", 3);

		if (lsm && !sc && t && obs_btf_func(vmlinux, t) < 0) {
			size_t n = strlen(o->skipped);

			snprintf(o->skipped + n, sizeof(o->skipped) - n, "%s%s", n ? ", " : "", t);
			sc = true;
		}
		/* The hooks use sc_exit too, for EROFS only (observe.bpf.c). */
		bpf_program__set_autoload(p, lsm ? !sc || !strcmp(bpf_program__name(p), "sc_exit")
						 : sc);
	}
	r = observe_bpf__load(o->skel);
	if (r < 0) {
		if (r == -EPERM && lsm)
			snprintf(err, errlen, "refused by this kernel (EPERM before the verifier ran: "
					      "fentry, fexit and lsm programs are not allowed here)");
		else if (r == -EPERM)
			snprintf(err, errlen, "refused (EPERM): %s", o->libbpf_said);
		else
			snprintf(err, errlen, "the kernel refused the BPF program (verifier): %s: %s",
				 strerror(-r), o->libbpf_said);
	} else if ((r = observe_bpf__attach(o->skel)) < 0)
		snprintf(err, errlen, "attaching the BPF program: %s: %s", strerror(-r),
			 o->libbpf_said);
	if (r < 0) {
		observe_bpf__destroy(o->skel);
		o->skel = NULL;
	} else
		o->skel->bss->sc_erofs_only = lsm;
	if (min >= 0)
		close(min);
	return r;
}

/* HEEL_OBSERVE_DEBUG: how long each step of the start took. Always true. */
static bool
obs_mark(const char *what)
{
	static struct timespec t0;
	struct timespec t;

	if (!getenv("HEEL_OBSERVE_DEBUG"))
		return true;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec)
		t0 = t;
	fprintf(stderr, "heel-observe: %7.1f ms %s\n",
		(double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6, what);
	return true;
}

/* Whether the kernel refuses an empty fexit program on a hook with EPERM
 * (trampolines not allowed: some lockdown-hardened kernels). */
static bool
obs_trampolines_refused(const struct obs_btf *vmlinux)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FEXIT);
	int id = obs_btf_func(vmlinux, "security_file_open"), fd;

	if (id < 0)
		return false;
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "heel_probe", "GPL", insns, 2, &opts);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EPERM;
}

/* Loads the LSM hook set, or where the kernel refuses it the system call
 * set (HEEL_OBSERVE_SOURCE=lsm or syscall takes one only: tests and
 * benchmarks), and makes the ring buffer. 0, or -errno with one line in
 * err that names the reason: no BTF, not privileged, the verifier. */
static int
obs_start(struct obs *o, char *err, size_t errlen)
{
	const char *want = getenv("HEEL_OBSERVE_SOURCE");
	char lsm_err[700] = "";
	struct obs_btf vmlinux;
	int r = -ENOENT;

	obs_current = o;
	libbpf_set_print(obs_libbpf_print);
	obs_mark("start");
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		snprintf(err, errlen, "no BTF: /sys/kernel/btf/vmlinux: %s (a kernel built without "
				      "CONFIG_DEBUG_INFO_BTF)", strerror(errno));
		return -ENOENT;
	}
	r = obs_btf_read(&vmlinux);
	obs_mark("kernel BTF read");
	if (r < 0) {
		snprintf(err, errlen, "no BTF: /sys/kernel/btf/vmlinux cannot be read: %s",
			 strerror(-r));
		return r;
	}
	r = -ENOENT;
	if ((!want || strcmp(want, "syscall")) && obs_trampolines_refused(&vmlinux) &&
	    obs_mark("trampolines probed")) {
		/* Known before libbpf parses the kernel's BTF a second time
		 * (the largest part of the start-up) for nothing. */
		r = -EPERM;
		snprintf(lsm_err, sizeof(lsm_err), "refused by this kernel (EPERM before the "
						   "verifier ran: fentry, fexit and lsm programs "
						   "are not allowed here)");
	} else if (!want || strcmp(want, "syscall")) {
		r = obs_load(o, true, &vmlinux, lsm_err, sizeof(lsm_err));
		o->source = "lsm";
	}
	if (r < 0 && (!want || strcmp(want, "lsm"))) {
		r = obs_load(o, false, &vmlinux, err, errlen);
		o->source = "syscall";
		/* Why not the hooks: said once, with the source used. */
		snprintf(o->fallback, sizeof(o->fallback), "%s", lsm_err);
	} else if (r < 0)
		snprintf(err, errlen, "%s", lsm_err);
	obs_btf_free(&vmlinux);
	obs_mark("loaded and attached");
	if (r < 0) {
		if (r == -EPERM && geteuid() != 0)
			snprintf(err, errlen, "not privileged: loading BPF needs root, or CAP_BPF and "
					      "CAP_PERFMON");
		return r;
	}
	o->rb = ring_buffer__new(bpf_map__fd(o->skel->maps.events), obs_on_event, o, NULL);
	if (!o->rb) {
		r = -errno;
		snprintf(err, errlen, "the ring buffer: %s", strerror(-r));
		return r;
	}
	return 0;
}

/* What the ready message and -v say: which set, and why not the other. */
static void
obs_describe(const struct obs *o, char *buf, size_t cap)
{
	if (!strcmp(o->source, "lsm"))
		snprintf(buf, cap, "LSM hooks (fexit; read-only mounts at sys_exit)%s%s", o->skipped[0] ? "; not on this kernel: " : "",
			 o->skipped);
	else
		snprintf(buf, cap, "system call boundary (sys_exit)%s%s",
			 o->fallback[0] ? "; the LSM hooks were " : "", o->fallback);
	if (o->min_btf) {
		size_t n = strlen(buf);

		snprintf(buf + n, cap - n, " (relocated with its built-in BTF)");
	}
}

/* Aims the attached programs at the sandbox: from now on its refusals
 * are recorded. */
static void
obs_aim(struct obs *o, unsigned long long pidns, unsigned long long cgroup)
{
	o->skel->bss->target_cgroup = cgroup;
	o->skel->bss->target_pidns = (__u32)pidns;
}

/* What is left in the ring buffer, and the count of what was lost. */
static void
obs_finish(struct obs *o)
{
	__u32 k = 0;
	__u64 lost = 0;

	if (o->rb)
		ring_buffer__consume(o->rb);
	if (o->skel && bpf_map__lookup_elem(o->skel->maps.dropped, &k, sizeof(k), &lost,
					    sizeof(lost), 0) == 0 && lost) {
		json_t *l = json_object();

		json_object_set_new(l, "type", json_string("denial-raw-lost"));
		json_object_set_new(l, "version", json_integer(1));
		json_object_set_new(l, "count", json_integer((json_int_t)lost));
		obs_emit(o, l);
	}
	ring_buffer__free(o->rb);
	o->rb = NULL;
}

/* Detaching waits for the kernel to be done with the programs (an RCU
 * grace period each): after the lines are out, never before. */
static void
obs_destroy(struct obs *o)
{
	observe_bpf__destroy(o->skel);
	o->skel = NULL;
}

/* Polls the ring buffer until fd (the control socket, or standard
 * input) hangs up or reads end of file; a control message that comes
 * instead is handed to on_msg (its answer: 0 go on, else stop). */
static void
obs_run(struct obs *o, int fd, bool ctl)
{
	struct pollfd pf[2] = { { .fd = fd, .events = POLLIN },
				{ .fd = ring_buffer__epoll_fd(o->rb), .events = POLLIN } };

	for (;;) {
		/* The program wakes no one (OBS_SUBMIT): read on a timer. */
		int n = poll(pf, 2, 100);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		ring_buffer__consume(o->rb);
		if (pf[0].revents & (POLLHUP | POLLERR))
			return;
		if (pf[0].revents & POLLIN) {
			char buf[PROXYCTL_MSG_MAX];
			long m;
			int extra = -1;

			if (ctl) {
				m = proxyctl_recv(fd, buf, sizeof(buf), &extra);
				if (extra >= 0)
					close(extra);
			} else
				m = read(fd, buf, sizeof(buf));
			if (m <= 0 && !(m < 0 && errno == EINTR))
				return;
			if (ctl && m > 0) /* "stop" */
				return;
		}
	}
}

/* Started by heel-exec: settings on descriptor 3. */
static int
obs_helper_main(void)
{
	struct obs o = { .out = -1, .source = "syscall" };
	char msg[PROXYCTL_MSG_MAX], err[1024];
	unsigned long long pidns = 0, cgroup = 0;
	const char *v;
	int fd, r;
	long n;

	for (;;) {
		n = proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &fd);
		if (n <= 0)
			return 1;
		if (proxyctl_value(msg, "out") && fd >= 0) {
			if (o.out >= 0)
				close(o.out);
			o.out = fd;
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (!strcmp(msg, "end"))
			break;
	}
	if (o.out < 0) {
		proxyctl_report_error(PROXYCTL_FD, "heel-observe", "no output descriptor (out)");
		return 1;
	}
	/* Loading overlaps the sandbox's start; the target comes after. */
	if ((r = obs_start(&o, err, sizeof(err))) < 0) {
		proxyctl_report_error(PROXYCTL_FD, "heel-observe", err);
		return 1;
	}
	for (;;) {
		n = proxyctl_recv(PROXYCTL_FD, msg, sizeof(msg), &fd);
		if (fd >= 0)
			close(fd);
		if (n <= 0) {
			obs_finish(&o);
			obs_destroy(&o);
			return 0;
		}
		if ((v = proxyctl_value(msg, "pidns")))
			pidns = strtoull(v, NULL, 10);
		else if ((v = proxyctl_value(msg, "cgroup")))
			cgroup = strtoull(v, NULL, 10);
		else
			continue;
		break;
	}
	obs_aim(&o, pidns, cgroup);
	obs_describe(&o, err, sizeof(err));
	if (proxyctl_send(PROXYCTL_FD, "ready", err, -1) < 0) {
		obs_finish(&o);
		obs_destroy(&o);
		return 1;
	}
	/* Until "stop" (or heel-exec hangs up): then every line is written
	 * before "done", and heel-exec need not wait for the detaching. */
	obs_run(&o, PROXYCTL_FD, true);
	obs_finish(&o);
	proxyctl_send(PROXYCTL_FD, "done", NULL, -1);
	obs_destroy(&o);
	return 0;
}

static void __attribute__((noreturn))
obs_usage(void)
{
	fputs("usage: heel-observe --pidns INODE | --pid PID | --cgroup ID [--out-fd N]\n"
	      "  started by heel-exec with no arguments; by hand it stops at end of its input\n",
	      stderr);
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "pidns", required_argument, NULL, 'n' }, { "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'c' }, { "out-fd", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	struct obs o = { .out = STDOUT_FILENO, .source = "syscall" };
	unsigned long long pidns = 0, cgroup = 0;
	char err[1024], nspath[64];
	struct stat st;
	int c;

	signal(SIGPIPE, SIG_IGN);
	if (argc == 1)
		return obs_helper_main();
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			pidns = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			snprintf(nspath, sizeof(nspath), "/proc/%s/ns/pid", optarg);
			if (stat(nspath, &st) < 0) {
				fprintf(stderr, "heel-observe: %s: %s\n", nspath, strerror(errno));
				return 1;
			}
			pidns = st.st_ino;
			break;
		case 'c':
			cgroup = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			o.out = atoi(optarg);
			break;
		default:
			obs_usage();
		}
	}
	if (optind != argc || (!pidns && !cgroup))
		obs_usage();
	if (obs_start(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, "heel-observe: %s\n", err);
		return 1;
	}
	obs_aim(&o, pidns, cgroup);
	obs_describe(&o, err, sizeof(err));
	fprintf(stderr, "heel-observe: ready: %s\n", err);
	obs_run(&o, STDIN_FILENO, false);
	obs_finish(&o);
	obs_destroy(&o);
	return 0;
}

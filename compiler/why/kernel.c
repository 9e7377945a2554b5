/* SPDX-License-Identifier: MIT
 * heel-why: heel-observe's "denial-raw" lines as denial events
 * (kernel.h). The op words are heel-observe's (observe_main.c's header
 * lists them); the event's ops are named after what a call needs of a
 * path, so several words map to one op. */
#include "kernel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <linux/audit.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#if defined(__x86_64__)
/* heel-observe numbers system calls as x86-64 does. */
#define WK_ARCH AUDIT_ARCH_X86_64
#else
#define WK_ARCH 0
#endif

static const struct {
	const char *word;
	enum denial_op op;
} wk_ops[] = {
    {"create", DENIAL_CREATE},	  {"mknod", DENIAL_CREATE},	 {"symlink", DENIAL_CREATE},
    {"truncate", DENIAL_OPEN_WRITE}, {"write", DENIAL_OPEN_WRITE}, {"mkdir", DENIAL_MKDIR},
    {"rmdir", DENIAL_UNLINK},	  {"unlink", DENIAL_UNLINK},	 {"rename", DENIAL_RENAME},
    {"link", DENIAL_LINK},	  {"chmod", DENIAL_SETATTR},	 {"chown", DENIAL_SETATTR},
    {"utimes", DENIAL_SETATTR},	  {"setattr", DENIAL_SETATTR},	 {"setxattr", DENIAL_SETATTR},
    {"removexattr", DENIAL_SETATTR}, {"exec", DENIAL_EXEC},	 {"mmap-exec", DENIAL_EXEC},
    {"connect", DENIAL_CONNECT},  {"bind", DENIAL_BIND},	 {"sendmsg", DENIAL_SENDTO},
    {"syscall", DENIAL_SYSCALL},
};

/* "open" says what it wanted in "access": "read", "write",
 * "read-write", with "+create" or "+exec". */
static int
open_op(const char *access)
{
	if (!access)
		return -1;
	if (strstr(access, "+exec"))
		return DENIAL_EXEC;
	if (strstr(access, "+create"))
		return DENIAL_CREATE;
	if (strncmp(access, "read-write", 10) == 0 || strncmp(access, "write", 5) == 0)
		return DENIAL_OPEN_WRITE;
	return DENIAL_OPEN_READ;
}

/* "HOST:PORT", "[V6]:PORT", a unix path, or "@abstract". */
static int
decode_addr(const char *addr, struct denial_event *ev)
{
	char host[64];
	const char *colon;
	unsigned long port;
	char *end;
	size_t n;

	if (addr[0] == '[' && (colon = strstr(addr, "]:"))) {
		n = (size_t)(colon - addr - 1);
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, addr + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, ev->addr) != 1)
			return -EINVAL;
		ev->family = AF_INET6;
		colon += 1;
	} else if ((colon = strrchr(addr, ':')) && (n = (size_t)(colon - addr)) < sizeof(host)) {
		memcpy(host, addr, n);
		host[n] = '\0';
		if (inet_pton(AF_INET, host, ev->addr) != 1)
			goto unix_path;
		ev->family = AF_INET;
	} else
		goto unix_path;
	port = strtoul(colon + 1, &end, 10);
	if (*end || port > 65535)
		return -EINVAL;
	ev->port = (uint16_t)port;
	return 0;
unix_path:
	ev->family = AF_UNIX;
	snprintf(ev->path, sizeof(ev->path), "%s", addr);
	return 0;
}

int
wk_decode_proxy(const char *line, struct denial_event *ev, char *reason, size_t cap)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *host, *why;
	json_int_t port;
	int ret = -EINVAL;

	if (!o)
		return -EINVAL;
	host = json_string_value(json_object_get(o, "host"));
	port = json_integer_value(json_object_get(o, "port"));
	if (host && host[0] && json_is_boolean(json_object_get(o, "allowed")) && port >= 0 &&
	    port <= 65535) {
		ret = 0;
		why = json_string_value(json_object_get(o, "reason"));
		if (!why)
			why = "";
		if (strncmp(why, "heel: ", 6) == 0)
			why += 6;
		if (json_is_false(json_object_get(o, "allowed")) &&
		    (strstr(why, "allow-list") || strstr(why, " address") ||
		     strstr(why, "decider"))) {
			memset(ev, 0, sizeof(*ev));
			ev->version = DENIAL_VERSION;
			ev->op = DENIAL_CONNECT;
			ev->source = DENIAL_SRC_PROXY;
			ev->port = (uint16_t)port;
			snprintf(ev->comm, sizeof(ev->comm), "heel-proxy");
			snprintf(ev->path, sizeof(ev->path), "%s", host);
			snprintf(reason, cap, "%s", why);
			ret = strstr(why, "allow-list") ? 1 : 2;
		}
	}
	json_decref(o);
	return ret;
}

int
wk_decode(const char *line, struct denial_event *ev)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *type, *op, *path, *addr, *comm;
	int ret = -EINVAL, code = -1;

	if (!o)
		return -EINVAL;
	type = json_string_value(json_object_get(o, "type"));
	op = json_string_value(json_object_get(o, "op"));
	if (!type || json_integer_value(json_object_get(o, "version")) != 1)
		goto out;
	ret = 0;
	if (strcmp(type, "denial-raw") != 0 || !op)
		goto out; /* "denial-raw-lost": counted by heel-exec */
	if (strcmp(op, "open") == 0)
		code = open_op(json_string_value(json_object_get(o, "access")));
	for (size_t i = 0; code < 0 && i < sizeof(wk_ops) / sizeof(wk_ops[0]); i++)
		if (strcmp(op, wk_ops[i].word) == 0)
			code = (int)wk_ops[i].op;
	if (code < 0)
		goto out; /* a word this heel-why does not know: not guessed at */
	memset(ev, 0, sizeof(*ev));
	ev->version = DENIAL_VERSION;
	ev->op = (uint32_t)code;
	ev->source = DENIAL_SRC_KERNEL;
	ev->pid = (int32_t)json_integer_value(json_object_get(o, "host_pid"));
	ev->err = (int32_t)json_integer_value(json_object_get(o, "errno"));
	ev->arch = WK_ARCH;
	if (json_is_integer(json_object_get(o, "syscall")))
		ev->nr = (uint32_t)json_integer_value(json_object_get(o, "syscall"));
	if ((comm = json_string_value(json_object_get(o, "comm"))))
		snprintf(ev->comm, sizeof(ev->comm), "%s", comm);
	if ((addr = json_string_value(json_object_get(o, "addr")))) {
		if (decode_addr(addr, ev) < 0) {
			ret = -EINVAL;
			goto out;
		}
	} else if ((path = json_string_value(json_object_get(o, "path")))) {
		/* A path as the program passed it, relative to a directory
		 * long gone, or cut short, cannot be judged by its rule. */
		if (path[0] != '/' || json_is_true(json_object_get(o, "path_cut")))
			goto out;
		snprintf(ev->path, sizeof(ev->path), "%s", path);
	} else if (code != DENIAL_SYSCALL)
		goto out;
	ret = 1;
out:
	json_decref(o);
	return ret;
}

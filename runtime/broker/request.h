/* SPDX-License-Identifier: MIT
 * A call's request as it arrives on its channel: REQ frames gathered into
 * at most HEEL_IPC_REQUEST_MAX bytes of JSON until REQ_END, then decoded
 * (jansson) into name, argv, cwd and the optional stdin value. Bounded,
 * duplicate and unknown keys refused. Never prints. */
#ifndef HEEL_BROKER_REQUEST_H
#define HEEL_BROKER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "ipcargs.h"

struct ipc_reqbuf {
	char *buf; /* caller frees with ipc_reqbuf_free() */
	size_t len, cap;
};

/* Takes one frame: n bytes received, truncated when the datagram was
 * longer (MSG_TRUNC) or carried ancillary data (MSG_CTRUNC). Returns 0
 * (more to come), 1 (REQ_END: buf holds the whole request), or -errno
 * with a message: an unknown or unexpected type, an empty frame, a
 * truncated one, a request past HEEL_IPC_REQUEST_MAX. */
int ipc_reqbuf_feed(struct ipc_reqbuf *r, const unsigned char *frame, size_t n, bool truncated,
		    char *err, size_t errlen);
void ipc_reqbuf_free(struct ipc_reqbuf *r);

struct ipc_request {
	char *name;
	char **argv; /* argc words, then NULL */
	size_t argc;
	char *cwd;
	char *stdin_text; /* NULL when the request had none */
	size_t stdin_len;
};

/* {"v":1,"name":"...","argv":[...],"cwd":"...","stdin":"..."}: stdin
 * optional, nothing else. A word, the name or cwd holding NUL is
 * refused; stdin may (the argument that takes it says so). 0 or -EINVAL
 * with a message; *q is to be freed either way. */
int ipc_request_decode(const char *json, size_t len, struct ipc_request *q, char *err,
		       size_t errlen);
void ipc_request_free(struct ipc_request *q);

/* A call's arguments, the pure steps in the broker's order: the request
 * decoded, its command found by name, the caller's argv parsed against
 * it. heel-broker and the fuzzer run this one sequence, so what the
 * fuzzer finds is the broker's. */
struct ipc_call_args {
	struct ipc_request q;
	const struct ipc_command *cmd; /* NULL: no command of the name asked */
	struct ipc_parsed p;	       /* parsed once cmd is found */
	int code;		       /* on failure, the HEEL_IPC_CODE_* to answer with */
};

/* 0: a call to run (or p.help), or -EINVAL / -ENOMEM with a->code
 * (INTERNAL: not a valid request; NOT_SANDBOXED: no command of that name;
 * ARGS: its arguments are wrong) and the message in err. cmds: the
 * declared commands. All of *a is cleared first, whatever it held (a
 * reused one), so ipc_call_args_free() is right after every return. */
int ipc_call_args_parse(struct ipc_call_args *a, const char *json, size_t len,
			const struct ipc_command *cmds, size_t ncmds, const char *workdir,
			char *err, size_t errlen);
void ipc_call_args_free(struct ipc_call_args *a);

#endif

/* SPDX-License-Identifier: MIT
 * A call's request: frames in, JSON decoded (request.h). */
#include "request.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "ipc_abi.h"
#include "ipcargs.h"

int
ipc_reqbuf_feed(struct ipc_reqbuf *r, const unsigned char *frame, size_t n, bool truncated,
		char *err, size_t errlen)
{
	if (truncated)
		return rt_error(err, errlen, -EMSGSIZE,
				"a frame longer than %d bytes",
				HEEL_IPC_FRAME_MAX);
	if (n == 0 || n > HEEL_IPC_FRAME_MAX)
		return rt_error(err, errlen, -EPROTO, "a frame of %zu bytes", n);
	if (frame[0] == IPC_FRAME_REQ_END) {
		if (n != 1)
			return rt_error(err, errlen, -EPROTO, "REQ_END with a payload");
		return 1;
	}
	if (frame[0] != IPC_FRAME_REQ)
		return rt_error(err, errlen, -EPROTO, "an unexpected frame (type %u)",
				(unsigned)frame[0]);
	if (n - 1 > HEEL_IPC_REQUEST_MAX - r->len)
		return rt_error(err, errlen, -EMSGSIZE, "the request is larger than %d MiB",
				HEEL_IPC_REQUEST_MAX >> 20);
	if (r->len + n - 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		char *nb;

		while (cap < r->len + n - 1)
			cap *= 2;
		if (cap > HEEL_IPC_REQUEST_MAX)
			cap = HEEL_IPC_REQUEST_MAX;
		if (!(nb = realloc(r->buf, cap)))
			return rt_error(err, errlen, -ENOMEM, "out of memory");
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, frame + 1, n - 1);
	r->len += n - 1;
	return 0;
}

void
ipc_reqbuf_free(struct ipc_reqbuf *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* A copy of s's text, or NULL (with the message) when it is no string or
 * holds NUL (unless nul_ok). */
static char *
text_of(json_t *s, const char *what, bool nul_ok, size_t *len, char *err, size_t errlen)
{
	char *copy;
	size_t n;

	if (!json_is_string(s)) {
		rt_error(err, errlen, -EINVAL, "the request's %s is not a string", what);
		return NULL;
	}
	n = json_string_length(s);
	if (!nul_ok && memchr(json_string_value(s), '\0', n)) {
		rt_error(err, errlen, -EINVAL, "the request's %s holds a NUL byte", what);
		return NULL;
	}
	if (!(copy = malloc(n + 1))) {
		rt_error(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(copy, json_string_value(s), n);
	copy[n] = '\0';
	if (len)
		*len = n;
	return copy;
}

static int
decode_argv(json_t *a, struct ipc_request *q, char *err, size_t errlen)
{
	size_t n;
	char what[32];

	if (!json_is_array(a))
		return rt_error(err, errlen, -EINVAL, "the request's argv is not an array");
	n = json_array_size(a);
	if (n > IPCARGS_ARGV_MAX)
		return rt_error(err, errlen, -EINVAL, "more than %d arguments", IPCARGS_ARGV_MAX);
	if (!(q->argv = calloc(n + 1, sizeof(*q->argv))))
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "argument %zu", i + 1);
		if (!(q->argv[i] = text_of(json_array_get(a, i), what, false, NULL, err, errlen)))
			return -EINVAL;
		q->argc++;
	}
	return 0;
}

int
ipc_request_decode(const char *json, size_t len, struct ipc_request *q, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root, *v;
	const char *key;
	int rc = -EINVAL;

	memset(q, 0, sizeof(*q));
	if (len > HEEL_IPC_REQUEST_MAX)
		return rt_error(err, errlen, -EMSGSIZE, "the request is too large");
	root = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!root)
		return rt_error(err, errlen, -EINVAL, "the request is not JSON: %.100s", jerr.text);
	if (!json_is_object(root)) {
		rt_error(err, errlen, -EINVAL, "the request is not a JSON object");
		goto out;
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "v") && strcmp(key, "name") && strcmp(key, "argv") &&
		    strcmp(key, "cwd") && strcmp(key, "stdin")) {
			rt_error(err, errlen, -EINVAL, "the request has an unknown key \"%.40s\"",
				 key);
			goto out;
		}
	}
	v = json_object_get(root, "v");
	if (!json_is_integer(v) || json_integer_value(v) != 1) {
		rt_error(err, errlen, -EINVAL, "the request is not version 1");
		goto out;
	}
	if (!json_object_get(root, "name") || !json_object_get(root, "argv") ||
	    !json_object_get(root, "cwd")) {
		rt_error(err, errlen, -EINVAL, "the request lacks name, argv or cwd");
		goto out;
	}
	if (!(q->name = text_of(json_object_get(root, "name"), "name", false, NULL, err, errlen)) ||
	    !(q->cwd = text_of(json_object_get(root, "cwd"), "cwd", false, NULL, err, errlen)) ||
	    decode_argv(json_object_get(root, "argv"), q, err, errlen) < 0)
		goto out;
	if ((v = json_object_get(root, "stdin")) &&
	    !(q->stdin_text = text_of(v, "stdin", true, &q->stdin_len, err, errlen)))
		goto out;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

void
ipc_request_free(struct ipc_request *q)
{
	free(q->name);
	free(q->cwd);
	free(q->stdin_text);
	for (size_t i = 0; q->argv && i < q->argc; i++)
		free(q->argv[i]);
	free(q->argv);
	memset(q, 0, sizeof(*q));
}

int
ipc_call_args_parse(struct ipc_call_args *a, const char *json, size_t len,
		    const struct ipc_command *cmds, size_t ncmds, const char *workdir, char *err,
		    size_t errlen)
{
	int rc;

	/* Both parts, before any step can fail: a request refused before
	 * its argv is parsed leaves nothing in p for the free to take for
	 * a pointer (the fuzzer once freed a stale one there). */
	memset(a, 0, sizeof(*a));
	a->code = HEEL_IPC_CODE_INTERNAL;
	if ((rc = ipc_request_decode(json, len, &a->q, err, errlen)) < 0)
		return rc;
	for (size_t i = 0; i < ncmds && !a->cmd; i++)
		if (!strcmp(cmds[i].name, a->q.name))
			a->cmd = &cmds[i];
	if (!a->cmd) {
		a->code = HEEL_IPC_CODE_NOT_SANDBOXED;
		return rt_error(err, errlen, -EINVAL, "no host command %.100s", a->q.name);
	}
	a->code = HEEL_IPC_CODE_ARGS;
	if ((rc = ipcargs_parse(a->cmd, a->q.argc, a->q.argv, a->q.stdin_text, a->q.stdin_len,
				workdir, a->q.cwd, &a->p, err, errlen)) < 0)
		return rc;
	a->code = 0;
	return 0;
}

void
ipc_call_args_free(struct ipc_call_args *a)
{
	ipcargs_parsed_free(&a->p);
	ipc_request_free(&a->q);
	memset(a, 0, sizeof(*a));
}

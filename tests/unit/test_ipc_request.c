/* SPDX-License-Identifier: MIT
 * A call's request (runtime/broker/request.c): frames gathered within
 * the bounds, the JSON decoded with nothing unknown let through, and the
 * decode-find-parse sequence heel-broker and the fuzzer share. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc_abi.h"
#include "request.h"

static char err[512];

static int
decode(const char *json, struct ipc_request *q)
{
	return ipc_request_decode(json, strlen(json), q, err, sizeof(err));
}

Test(ipc_request, decodes)
{
	struct ipc_request q;

	cr_assert_eq(decode("{\"v\":1,\"name\":\"s\",\"argv\":[\"a\",\"-\"],\"cwd\":\"/w\","
			    "\"stdin\":\"x\\u0000y\"}",
			    &q),
		     0, "%s", err);
	cr_assert_str_eq(q.name, "s");
	cr_assert_eq(q.argc, 2);
	cr_assert_str_eq(q.argv[1], "-");
	cr_assert_null(q.argv[2]);
	cr_assert_eq(q.stdin_len, 3);
	ipc_request_free(&q);
}

Test(ipc_request, refuses)
{
	const struct {
		const char *json, *why;
	} bad[] = {
		{ "{nope", "not JSON" },
		{ "[]", "not a JSON object" },
		{ "{\"v\":2,\"name\":\"s\",\"argv\":[],\"cwd\":\"/\"}", "not version 1" },
		{ "{\"v\":1,\"name\":\"s\",\"argv\":[],\"cwd\":\"/\",\"x\":1}", "unknown key \"x\"" },
		{ "{\"v\":1,\"name\":\"s\",\"argv\":[]}", "lacks" },
		{ "{\"v\":1,\"name\":\"s\",\"argv\":[1],\"cwd\":\"/\"}", "argument 1 is not a string" },
		{ "{\"v\":1,\"name\":\"s\",\"argv\":[\"a\\u0000\"],\"cwd\":\"/\"}",
		  "argument 1 holds a NUL" },
		{ "{\"v\":1,\"name\":\"s\",\"name\":\"t\",\"argv\":[],\"cwd\":\"/\"}", "not JSON" },
		{ "{\"v\":1,\"name\":\"s\",\"argv\":\"a\",\"cwd\":\"/\"}", "not an array" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipc_request q;

		cr_assert_eq(decode(bad[i].json, &q), -EINVAL, "%s", bad[i].json);
		cr_assert(strstr(err, bad[i].why), "%s: %s", bad[i].json, err);
		ipc_request_free(&q);
	}
}

Test(ipc_request, frames)
{
	struct ipc_reqbuf r = { 0 };
	static unsigned char big[HEEL_IPC_FRAME_MAX];

	cr_assert_eq(ipc_reqbuf_feed(&r, (const unsigned char *)"\1{\"a\"", 5, false, err,
				     sizeof(err)),
		     0);
	cr_assert_eq(ipc_reqbuf_feed(&r, (const unsigned char *)"\1:1}", 4, false, err, sizeof(err)),
		     0);
	cr_assert_eq(ipc_reqbuf_feed(&r, (const unsigned char *)"\2", 1, false, err, sizeof(err)),
		     1);
	cr_assert_eq(r.len, 7);
	cr_assert_eq(memcmp(r.buf, "{\"a\":1}", 7), 0);
	cr_assert_lt(ipc_reqbuf_feed(&r, (const unsigned char *)"\2x", 2, false, err, sizeof(err)),
		     0);
	cr_assert_lt(ipc_reqbuf_feed(&r, (const unsigned char *)"\3", 1, false, err, sizeof(err)), 0);
	cr_assert_lt(ipc_reqbuf_feed(&r, (const unsigned char *)"\1", 0, false, err, sizeof(err)), 0);
	cr_assert_lt(ipc_reqbuf_feed(&r, (const unsigned char *)"\1a", 2, true, err, sizeof(err)), 0);
	ipc_reqbuf_free(&r);
	/* 2 MiB of request, then one byte more is refused. */
	memset(big, 'x', sizeof(big));
	big[0] = IPC_FRAME_REQ;
	while (r.len + sizeof(big) - 1 <= HEEL_IPC_REQUEST_MAX)
		cr_assert_eq(ipc_reqbuf_feed(&r, big, sizeof(big), false, err, sizeof(err)), 0);
	cr_assert_eq(ipc_reqbuf_feed(&r, big, HEEL_IPC_REQUEST_MAX - r.len + 1, false, err,
				     sizeof(err)),
		     0);
	cr_assert_eq(r.len, HEEL_IPC_REQUEST_MAX);
	cr_assert_eq(ipc_reqbuf_feed(&r, big, 2, false, err, sizeof(err)), -EMSGSIZE);
	ipc_reqbuf_free(&r);
}

/* The fuzzer's find (issue 20): a call parsed, then a request refused
 * before its argv was parsed (an unknown key, "-wd"), whose free took a
 * stale pointer in the parsed arguments for its own. Each call starts
 * from a struct full of junk, as a reused or uninitialised one is: every
 * refusal must leave nothing for the free to misread. */
Test(ipc_request, call_args_refused_at_any_step_free_nothing_stale)
{
	static const struct {
		const char *json;
		int rc, code;
		const char *why;
	} seq[] = {
		{ "{\"v\":1,\"name\":\"web_search\",\"argv\":[\"a\",\"b\",\"--limit=-"
		  "9223372036854775808\",\"--safe\",\"no\"],\"cwd\":\"/w\"}",
		  0, 0, NULL },
		{ "{\"v\":1,\"name\":\"web_search\",\"argv\":[\"a\",\"b\",\"c\",\"--limit=-"
		  "9223372036854775808\",\"--safe\",\"no\"],\"-wd\":\"/\"}",
		  -EINVAL, HEEL_IPC_CODE_INTERNAL, "unknown key \"-wd\"" },
		{ "{nope", -EINVAL, HEEL_IPC_CODE_INTERNAL, "not JSON" },
		{ "{\"v\":1,\"name\":\"rm\",\"argv\":[],\"cwd\":\"/w\"}", -EINVAL,
		  HEEL_IPC_CODE_NOT_SANDBOXED, "no host command rm" },
		{ "{\"v\":1,\"name\":\"web_search\",\"argv\":[\"--limit=x\"],\"cwd\":\"/w\"}",
		  -EINVAL, HEEL_IPC_CODE_ARGS, "--limit: \"x\" is not an integer" },
		{ "{\"v\":1,\"name\":\"web_search\",\"argv\":[\"-h\"],\"cwd\":\"/w\"}", 0, 0,
		  NULL },
	};
	struct ipc_command cmd;
	struct ipc_call_args a;

	cr_assert_eq(ipcargs_command_init(&cmd, "web_search", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_positional(&cmd, "query", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_positional(&cmd, "file", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "string query", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "int limit", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "bool safe", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_add_arg(&cmd, "path file", err, sizeof(err)), 0);
	cr_assert_eq(ipcargs_command_finish(&cmd, err, sizeof(err)), 0, "%s", err);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
			memset(&a, 0xa5, sizeof(a));
			cr_assert_eq(ipc_call_args_parse(&a, seq[i].json, strlen(seq[i].json), &cmd,
							 1, "/w", err, sizeof(err)),
				     seq[i].rc, "%s: %s", seq[i].json, err);
			cr_assert_eq(a.code, seq[i].code, "%s", seq[i].json);
			if (seq[i].why)
				cr_assert(strstr(err, seq[i].why), "%s: %s", seq[i].json, err);
			else
				cr_assert_eq(a.cmd, &cmd);
			ipc_call_args_free(&a);
		}
	}
	ipcargs_command_free(&cmd);
}

/* SPDX-License-Identifier: MIT
 * libFuzzer target for what a sandboxed caller sends heel-broker: the
 * input is cut into frames (the first byte seeds their sizes, the second
 * their types: mostly REQ, sometimes anything), gathered by
 * ipc_reqbuf_feed(), then decoded and parsed against a fixed declaration
 * by ipc_call_args_parse(), the pure steps heel-broker runs. Nothing may
 * crash or leak; a parsed call must give a host argv whose words all
 * start with "--" after the exec, one per argument given. The call's
 * struct is filled with junk before each call, as a reused one would be:
 * a path that frees what it never set crashes on its first input, not
 * only after the inputs whose stack left a pointer there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcargs.h"
#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ipc_command cmd;

static void
declare(void)
{
	char err[256];

	if (cmd.name)
		return;
	if (ipcargs_command_init(&cmd, "web_search", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_positional(&cmd, "query", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_positional(&cmd, "file", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_arg(&cmd, "string query", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_arg(&cmd, "int limit", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_arg(&cmd, "bool safe", err, sizeof(err)) < 0 ||
	    ipcargs_command_add_arg(&cmd, "path file", err, sizeof(err)) < 0 ||
	    ipcargs_command_finish(&cmd, err, sizeof(err)) < 0)
		abort();
	cmd.exec = strdup("/bin/true");
}

static void
run_request(const char *json, size_t len)
{
	struct ipc_call_args a;
	char err[1024], **argv;
	size_t given = 0, n = 0;

	memset(&a, 0xa5, sizeof(a));
	if (ipc_call_args_parse(&a, json, len, &cmd, 1, "/w", err, sizeof(err)) == 0 && !a.p.help) {
		argv = ipcargs_argv(a.cmd, &a.p);
		if (!argv || strcmp(argv[0], "/bin/true") != 0)
			abort();
		for (size_t i = 0; i < cmd.nparams; i++)
			given += a.p.v[i].given;
		while (argv[n + 1]) {
			if (strncmp(argv[n + 1], "--", 2) != 0)
				abort();
			n++;
		}
		if (n != given)
			abort();
		ipcargs_argv_free(argv);
	}
	ipc_call_args_free(&a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_reqbuf r = { 0 };
	unsigned char frame[4097];
	uint32_t rng;
	size_t pos = 2;
	char err[256];

	declare();
	if (size < 2)
		return 0;
	rng = data[0] | (uint32_t)data[1] << 8;
	for (;;) {
		size_t n = size - pos;
		int rc;

		rng = rng * 1103515245u + 12345u;
		if (data[0] & 1)
			n = n < 1 + (rng >> 16) % 4096 ? n : 1 + (rng >> 16) % 4096;
		else if (n > 4096)
			n = 4096;
		/* Mostly REQ; now and then whatever type the rng says. */
		frame[0] = (rng >> 8) % 16 == 0 ? (uint8_t)(rng >> 24) : 1;
		if (pos >= size)
			frame[0] = 2, n = 0;
		memcpy(frame + 1, data + pos, n);
		pos += n;
		rc = ipc_reqbuf_feed(&r, frame, n + 1, false, err, sizeof(err));
		if (rc < 0)
			break;
		if (rc > 0) {
			if (r.len > HEEL_IPC_REQUEST_MAX)
				abort();
			run_request(r.buf ? r.buf : "", r.len);
			break;
		}
	}
	ipc_reqbuf_free(&r);
	return 0;
}

/* SPDX-License-Identifier: MIT
 * heel-ipc: a host command as the sandbox sees it. Run as NAME (a link
 * to it) or as `heel-ipc NAME ARGS...`, it asks the kernel for a channel
 * to the broker (an ioctl the sandbox's seccomp program hands to the
 * broker outside; no path, no port), sends its argv, its directory and,
 * only when an argument is `-`, its stdin, then relays the host command's
 * output and exits with its status. Parses nothing: the broker does.
 * Static, libc and jansson only. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc_abi.h"

static const char *name = "heel-ipc";

static void __attribute__((noreturn, format(printf, 2, 3)))
fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* Whether a word hands stdin to an argument: `-`, or `--name=-`. */
static bool
takes_stdin(const char *w)
{
	size_t n = strlen(w);

	return !strcmp(w, "-") || (n > 3 && !strncmp(w, "--", 2) && !strcmp(w + n - 2, "=-"));
}

static json_t *
read_stdin(void)
{
	size_t cap = HEEL_IPC_STDIN_MAX + 1, len = 0;
	char *buf = malloc(cap);
	json_t *s;

	if (!buf)
		fail(HEEL_IPC_CODE_INTERNAL, "out of memory");
	for (;;) {
		ssize_t n = read(0, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail(HEEL_IPC_CODE_ARGS, "cannot read standard input: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > HEEL_IPC_STDIN_MAX)
			fail(HEEL_IPC_CODE_ARGS, "standard input is larger than %d MiB",
			     HEEL_IPC_STDIN_MAX >> 20);
	}
	if (!(s = json_stringn(buf, len)))
		fail(HEEL_IPC_CODE_ARGS, "standard input is not UTF-8 text");
	free(buf);
	return s;
}

static char *
request(int argc, char **argv)
{
	json_t *req, *words = json_array(), *in = NULL;
	char cwd[PATH_MAX];
	char *text;

	for (int i = 0; i < argc; i++) {
		json_t *w = json_string(argv[i]);

		if (!w)
			fail(HEEL_IPC_CODE_ARGS, "argument %d is not UTF-8 text", i + 1);
		json_array_append_new(words, w);
		if (takes_stdin(argv[i]) && !in)
			in = read_stdin();
	}
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	req = json_pack("{s:i, s:s, s:o, s:s}", "v", 1, "name", name, "argv", words, "cwd", cwd);
	if (!req)
		fail(HEEL_IPC_CODE_INTERNAL, "the request cannot be built (is the directory UTF-8?)");
	if (in)
		json_object_set_new(req, "stdin", in);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text)
		fail(HEEL_IPC_CODE_INTERNAL, "out of memory");
	if (strlen(text) > HEEL_IPC_REQUEST_MAX)
		fail(HEEL_IPC_CODE_ARGS, "the arguments are larger than %d MiB",
		     HEEL_IPC_REQUEST_MAX >> 20);
	return text;
}

static int
channel(void)
{
	int fd = ioctl(-1, HEEL_IPC_IOCTL, 0);

	if (fd >= 0)
		return fd;
	switch (errno) {
	case EBADF:
	case ENOTTY:
	case EPERM:
		fail(HEEL_IPC_CODE_NOT_SANDBOXED, "not inside a heel sandbox that declares %s",
		     name);
	case ENOSYS:
		fail(HEEL_IPC_CODE_INTERNAL, "the host command broker has stopped");
	case EAGAIN:
		fail(HEEL_IPC_CODE_INTERNAL, "too many host command calls at once");
	default:
		fail(HEEL_IPC_CODE_INTERNAL, "cannot reach the host command broker: %s",
		     strerror(errno));
	}
}

static void
send_frame(int ch, int type, const char *payload, size_t len)
{
	static unsigned char frame[HEEL_IPC_FRAME_MAX];
	ssize_t w;

	frame[0] = (unsigned char)type;
	memcpy(frame + 1, payload, len);
	do
		w = send(ch, frame, len + 1, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		fail(HEEL_IPC_CODE_INTERNAL, "the host command broker has stopped");
}

/* All of it, or the reader is gone (EPIPE, or SIGPIPE ends us first):
 * exiting closes the channel, and the broker kills the call. */
static void
write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(HEEL_IPC_CODE_OUTPUT);
		p += w;
		n -= (size_t)w;
	}
}

static void __attribute__((noreturn))
finish(int type, const unsigned char *payload, size_t len)
{
	json_t *j = json_loadb((const char *)payload, len, 0, NULL), *v;

	if (!j)
		fail(HEEL_IPC_CODE_INTERNAL, "the broker's answer is not JSON");
	if (type == IPC_FRAME_FAIL) {
		v = json_object_get(j, "message");
		fprintf(stderr, "%s: %s\n", name, json_is_string(v) ? json_string_value(v) : "failed");
		v = json_object_get(j, "code");
		exit(json_is_integer(v) ? (int)json_integer_value(v) : HEEL_IPC_CODE_INTERNAL);
	}
	if ((v = json_object_get(j, "signal")) && json_is_integer(v))
		exit(128 + (int)json_integer_value(v));
	v = json_object_get(j, "code");
	exit(json_is_integer(v) ? (int)json_integer_value(v) : HEEL_IPC_CODE_INTERNAL);
}

int
main(int argc, char **argv)
{
	static unsigned char buf[HEEL_IPC_FRAME_MAX + 1];
	char *text, *base = argc > 0 ? basename(argv[0]) : "heel-ipc";
	size_t len;
	int ch;

	name = base;
	argc--, argv++;
	if (!strcmp(base, "heel-ipc") || !strcmp(base, ".heel-ipc")) {
		if (argc < 1) {
			fprintf(stderr, "usage: heel-ipc NAME [ARGS...]\n");
			return HEEL_IPC_CODE_ARGS;
		}
		name = argv[0];
		argc--, argv++;
	}
	/* stdin is read here only when an argument takes it (a `while
	 * read` loop around a call keeps its input). */
	text = request(argc, argv);
	ch = channel();
	len = strlen(text);
	for (size_t off = 0; off < len; off += HEEL_IPC_FRAME_MAX - 1) {
		size_t n = len - off < HEEL_IPC_FRAME_MAX - 1 ? len - off : HEEL_IPC_FRAME_MAX - 1;

		send_frame(ch, IPC_FRAME_REQ, text + off, n);
	}
	send_frame(ch, IPC_FRAME_REQ_END, "", 0);
	free(text);
	for (;;) {
		ssize_t n = recv(ch, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail(HEEL_IPC_CODE_INTERNAL, "the host command broker has stopped");
		switch (buf[0]) {
		case IPC_FRAME_OUT:
			write_all(1, buf + 1, (size_t)n - 1);
			break;
		case IPC_FRAME_ERR:
			write_all(2, buf + 1, (size_t)n - 1);
			break;
		case IPC_FRAME_EXIT:
		case IPC_FRAME_FAIL:
			finish(buf[0], buf + 1, (size_t)n - 1);
		default:
			fail(HEEL_IPC_CODE_INTERNAL, "an unknown frame from the broker");
		}
	}
}

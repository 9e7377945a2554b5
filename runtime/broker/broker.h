/* SPDX-License-Identifier: MIT
 * heel-broker's state: the declared host commands, the working directory,
 * the audit sink, and the open calls, each with its channel to the caller
 * in the sandbox, its host command's process and output pipes, and its
 * deadline. broker.c runs the loop; call.c starts and ends host commands.
 * Never prints. */
#ifndef HEEL_BROKER_BROKER_H
#define HEEL_BROKER_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ipc_abi.h"
#include "ipcargs.h"
#include "request.h"

#define BROKER_COMMANDS_MAX 256
#define BROKER_ENV_MAX 16

struct audit_sink;

enum ep_kind { EP_CTL, EP_LISTENER, EP_SIGNAL, EP_CHAN, EP_OUT, EP_ERR };

struct ep_ref {
	enum ep_kind kind;
	struct call *call;
};

enum call_state {
	CALL_READING, /* the request is coming */
	CALL_RUNNING, /* the host command runs */
	CALL_DRAINING, /* it ended (or was killed): its pipes are read to the end */
	CALL_CLOSING, /* the last frame is on its way */
};

struct call {
	struct broker *b;
	enum call_state state;
	int chan, out, err; /* -1 once closed */
	struct ep_ref ref_chan, ref_out, ref_err;
	bool pipes_paused; /* out/err out of epoll while a frame waits */
	pid_t pid;	   /* the host command; 0 before, -1 once reaped */
	int status;	   /* its wait status, once reaped */
	bool reaped;
	long long started_ms, deadline_ms;
	size_t output;
	struct ipc_reqbuf req;
	const struct ipc_command *cmd;
	char **argv;	      /* the host command's, for the audit line */
	char *name;	      /* as the caller asked */
	char fail_msg[512];   /* a FAIL to send once the pipes are drained */
	int fail_code;	      /* 0: none */
	struct frame *pending; /* frames the channel had no room for yet */
	bool close_after_pending;
	bool dead; /* removed; freed after the current batch of events */
	struct call *next_dead;
};

struct frame {
	struct frame *next;
	size_t len;
	unsigned char data[];
};

struct broker {
	int ctl, listener, sigfd, epfd, workdir_fd;
	char *workdir;
	struct ipc_command cmds[BROKER_COMMANDS_MAX];
	size_t ncmds;
	char *env[BROKER_ENV_MAX + 3]; /* PATH, the sent ones, HEEL_IPC_COMMAND, NULL */
	size_t nenv;
	struct audit_sink *audit;
	struct call *calls[HEEL_IPC_MAX_CALLS];
	size_t ncalls;
	bool addfd_send_unsupported;
	struct call *dead; /* removed calls, freed after each batch */
	struct ep_ref ref_ctl, ref_listener, ref_signal;
};

long long broker_now_ms(void);

/* broker.c: the loop, until the control socket closes (0) or fails. */
int broker_run(struct broker *b);
/* Sends one frame (type, payload) on c's channel, or keeps it pending
 * when the channel is full. 0 or -errno (the channel is gone). */
int broker_send(struct call *c, int type, const void *payload, size_t len);
/* FAIL {"message","code"} then the call closes. */
void broker_fail(struct call *c, int code, const char *message);

/* call.c. Decodes the request, parses the arguments, starts the host
 * command: 0, or the call was answered (FAIL or the usage) and is
 * closing. */
int call_start(struct call *c);
/* SIGKILL to c's process group and every descendant still found. */
void call_kill(struct call *c);
/* Every child of the broker that is no running call's host command and
 * in no running call's session: killed with its descendants. */
void call_sweep_orphans(struct broker *b);
/* The audit line of an ended call (refused: why it was refused, or NULL
 * when it ran to its end). */
void call_audit(struct call *c, const char *refused);
void call_free(struct call *c);

#endif

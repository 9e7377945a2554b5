/* SPDX-License-Identifier: MIT
 * The host command ABI (`ipc` in a policy) shared by heelc (the seccomp
 * rule that answers the client's ioctl), heel-exec (which starts the
 * broker and hands it the listener) and heel-broker/heel-ipc (the call
 * itself). Pure header, libc only.
 *
 * The client inside the sandbox calls ioctl(-1, HEEL_IPC_IOCTL, 0); the
 * sandbox's seccomp program answers it with SECCOMP_RET_USER_NOTIF, and
 * the broker outside installs one end of a SOCK_SEQPACKET pair in the
 * caller (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND), which
 * the ioctl returns: the call's channel. One datagram on it is one frame,
 * a type byte then the payload. */
#ifndef HEEL_IPC_ABI_H
#define HEEL_IPC_ABI_H

/* The ioctl's command, matched on its low 32 bits ("HEL" then 1); the
 * descriptor argument must be -1 (low 32 bits 0xffffffff), which no
 * real ioctl reaches, so the rule never shadows one. */
#define HEEL_IPC_IOCTL 0x48454c01u
#define HEEL_IPC_IOCTL_FD 0xffffffffu

/* Frame types: client -> broker REQ, REQ_END; broker -> client the rest. */
enum ipc_frame_type {
	IPC_FRAME_REQ = 1,     /* a chunk of the request's JSON text */
	IPC_FRAME_REQ_END = 2, /* empty: the request is complete */
	IPC_FRAME_OUT = 3,     /* stdout bytes */
	IPC_FRAME_ERR = 4,     /* stderr bytes */
	IPC_FRAME_EXIT = 5,    /* {"code":N} or {"signal":N} */
	IPC_FRAME_FAIL = 6,    /* {"message":"...","code":N} */
};

/* One datagram, type byte included. */
#define HEEL_IPC_FRAME_MAX 65536
/* The whole request's JSON text: argv plus a stdin value. */
#define HEEL_IPC_REQUEST_MAX (2 * 1024 * 1024)
/* A string argument given as `-` takes the caller's stdin, up to this. */
#define HEEL_IPC_STDIN_MAX (1024 * 1024)
/* Open calls of one sandbox; past it the ioctl fails with EAGAIN. */
#define HEEL_IPC_MAX_CALLS 64
/* Stdout and stderr of one call together; past it the call is killed. */
#define HEEL_IPC_OUTPUT_MAX (16 * 1024 * 1024)
/* A command without `timeout`. */
#define HEEL_IPC_TIMEOUT_DEFAULT_MS 60000
/* A channel must deliver its whole request within this. */
#define HEEL_IPC_REQUEST_TIMEOUT_MS 10000
/* The control socket heel-exec gives heel-broker ("key=value" messages,
 * runtime/proxyctl.h). */
#define HEEL_BROKER_CTL_FD 3

/* FAIL codes. */
#define HEEL_IPC_CODE_ARGS 2
#define HEEL_IPC_CODE_TIMEOUT 124
#define HEEL_IPC_CODE_OUTPUT 1
#define HEEL_IPC_CODE_INTERNAL 125
/* The client's own: not inside a sandbox that declares the command. */
#define HEEL_IPC_CODE_NOT_SANDBOXED 127

enum ipc_arg_type {
	IPC_ARG_STRING,
	IPC_ARG_INT,
	IPC_ARG_BOOL,
	IPC_ARG_PATH,
};

#endif

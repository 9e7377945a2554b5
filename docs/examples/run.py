#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libheel from Python through ctypes: build a policy, run `echo` under
it, print what it said. The structures mirror heel.h (libheel(3)).

    LD_LIBRARY_PATH=build/lib HEEL_EXEC=build/bin/heel-exec python3 docs/examples/run.py

HEEL_EXEC names the heel-exec to run; unset, libheel runs the one
installed with it."""
import ctypes
import os
import sys

HEEL_ERROR_MAX = 4096


class HeelError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * HEEL_ERROR_MAX)]


class SpawnOpts(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("env", ctypes.POINTER(ctypes.c_char_p)),
        ("stdin_fd", ctypes.c_int),
        ("stdout_fd", ctypes.c_int),
        ("stderr_fd", ctypes.c_int),
        ("cwd", ctypes.c_char_p),
        ("launcher", ctypes.c_char_p),
        ("launcher_env", ctypes.POINTER(ctypes.c_char_p)),
        ("flags", ctypes.c_uint),
    ]


class Capture(ctypes.Structure):
    _fields_ = [
        ("out", ctypes.POINTER(ctypes.c_char)),
        ("out_len", ctypes.c_size_t),
        ("err", ctypes.POINTER(ctypes.c_char)),
        ("err_len", ctypes.c_size_t),
        ("out_truncated", ctypes.c_int),
        ("err_truncated", ctypes.c_int),
        ("status", ctypes.c_int),
        ("timed_out", ctypes.c_int),
    ]


lib = ctypes.CDLL("libheel.so.0")
err_p = ctypes.POINTER(HeelError)
lib.heel_policy_new.restype = ctypes.c_void_p
lib.heel_policy_new.argtypes = [err_p]
lib.heel_policy_free.argtypes = [ctypes.c_void_p]
lib.heel_policy_isolation.argtypes = [ctypes.c_void_p, ctypes.c_char_p, err_p]
lib.heel_policy_limit.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, err_p]
lib.heel_spawn_opts_init.argtypes = [ctypes.POINTER(SpawnOpts)]
lib.heel_run_capture.argtypes = [
    ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(SpawnOpts),
    ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(Capture), err_p,
]
lib.heel_capture_free.argtypes = [ctypes.POINTER(Capture)]


def fail(err):
    sys.exit("run.py: " + err.message.decode())


err = HeelError()
# heel run --isolation strict --max-memory 512MiB, as calls.
policy = lib.heel_policy_new(ctypes.byref(err))
if not policy:
    fail(err)
if (lib.heel_policy_isolation(policy, b"strict", ctypes.byref(err))
        or lib.heel_policy_limit(policy, b"memory", b"512MiB", ctypes.byref(err))):
    fail(err)

opts = SpawnOpts()
lib.heel_spawn_opts_init(ctypes.byref(opts))
launcher = os.environ.get("HEEL_EXEC")
opts.launcher = launcher.encode() if launcher else None  # None: the installed heel-exec

words = [b"echo", b"hello", b"from", b"the", b"sandbox"]
argv = (ctypes.c_char_p * (len(words) + 1))(*words, None)
cap = Capture()
# At most 64 KiB of each stream, at most 10 s.
if lib.heel_run_capture(policy, argv, ctypes.byref(opts), 64 * 1024, 10000,
                        ctypes.byref(cap), ctypes.byref(err)):
    fail(err)
out = ctypes.string_at(cap.out, cap.out_len).decode()
if cap.status != 0:
    sys.stderr.write(ctypes.string_at(cap.err, cap.err_len).decode())
print("captured: %s (exit status %d)" % (out.split("\n")[0], cap.status))
lib.heel_capture_free(ctypes.byref(cap))
lib.heel_policy_free(policy)

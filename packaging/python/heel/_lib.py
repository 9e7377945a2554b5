# SPDX-License-Identifier: MIT
"""libheel's C API through ctypes: the structures and prototypes of heel.h
(libheel(3)), loaded from the path setup.py recorded. ctypes releases the
GIL around every call, so a spawn or a capture never holds up other
threads."""
import ctypes

try:
    from ._libpath import LIBHEEL
except ImportError as e:  # pragma: no cover - only outside an installed package
    raise ImportError("heel: the package is not built (pip install .): it records where "
                      "pkg-config finds libheel when it is") from e

HEEL_ERROR_MAX = 4096
HEEL_SPAWN_BEST_EFFORT = 0x1
HEEL_SPAWN_NEW_SESSION = 0x2
HEEL_SPAWN_WHY = 0x4


class Error(ctypes.Structure):
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


lib = ctypes.CDLL(LIBHEEL, use_errno=True)
libc = ctypes.CDLL(None)

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_i = ctypes.c_int
_e = ctypes.POINTER(Error)
_o = ctypes.POINTER(SpawnOpts)


def _proto(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)


_proto("heel_version", _s)
_proto("heel_policy_new", _p, _e)
_proto("heel_policy_from_file", _p, _s, _e)
_proto("heel_policy_from_string", _p, _s, _s, _e)
_proto("heel_policy_free", None, _p)
for _name in ("isolation", "network", "allow_domain", "audit_log", "env_pass", "workdir",
              "io_priority"):
    _proto("heel_policy_" + _name, _i, _p, _s, _e)
_proto("heel_policy_grant", _i, _p, _s, _s, _e)
_proto("heel_policy_protect", _i, _p, _s, _i, _e)
_proto("heel_policy_limit", _i, _p, _s, _s, _e)
_proto("heel_policy_env_set", _i, _p, _s, _s, _e)
_proto("heel_policy_gpu", _i, _p, _i, _e)
_proto("heel_policy_nice", _i, _p, _i, _e)
_proto("heel_spawn_opts_init", None, _o)
# Returned as void pointers, freed with libc's free (heel.h: "caller frees").
_proto("heel_policy_text", _p, _p, _o, _e)
_proto("heel_policy_check", _i, _p, _o, ctypes.POINTER(ctypes.c_void_p), _e)
_proto("heel_spawn", _p, _p, ctypes.POINTER(_s), _o, _e)
_proto("heel_child_pid", _i, _p)
_proto("heel_child_pidfd", _i, _p)
_proto("heel_child_wait", _i, _p, _i, ctypes.POINTER(_i), _e)
_proto("heel_child_kill", _i, _p, _i, _e)
_proto("heel_child_free", None, _p)
_proto("heel_child_denials", _p, _p, _e)
_proto("heel_run_capture", _i, _p, ctypes.POINTER(_s), _o, ctypes.c_size_t, _i,
       ctypes.POINTER(Capture), _e)
_proto("heel_capture_free", None, ctypes.POINTER(Capture))
libc.free.restype = None
libc.free.argtypes = [ctypes.c_void_p]


def take_string(ptr):
    """A malloc'ed C string as str, freed."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        libc.free(ptr)


def strv(items):
    """A NULL-terminated char *[] of items (str or bytes); the array keeps
    the bytes alive as long as it lives."""
    if items is None:
        return None
    enc = [i if isinstance(i, bytes) else str(i).encode() for i in items]
    for b in enc:
        if b"\0" in b:
            raise ValueError("heel: a string holds a NUL character")
    arr = (ctypes.c_char_p * (len(enc) + 1))(*enc, None)
    return arr

# SPDX-License-Identifier: MIT
"""heel for Python: run commands in a heel sandbox through libheel
(libheel(3)). A Policy comes from a file, from policy text or from
builder calls mirroring `heel run`'s options; spawn() starts a command
under it and returns a Child (its output as pipes, wait, kill, close);
run() runs one to its end and captures its output. heel.aio has the same
for asyncio. Errors are HeelError (an OSError) with libheel's message:
a policy with mistakes gives the compiler's FILE:LINE:COL diagnostics."""
import atexit
import ctypes
import errno as _errno
import json
import os
import select
import signal as _signal
import threading
import time
import weakref
from dataclasses import dataclass

from . import _lib
from ._lib import lib as _c

__all__ = ["HeelError", "Policy", "Child", "Result", "spawn", "run", "PIPE", "DEVNULL",
           "version"]

PIPE = -2
DEVNULL = -1

version = _c.heel_version().decode()


class HeelError(OSError):
    """What libheel said: errno (positive, EINVAL for a policy with
    errors) and its message."""

    def __init__(self, code, message):
        super().__init__(abs(code) if code else _errno.EINVAL, message)
        self.message = message

    def __str__(self):
        return self.message


def _raise(err, code=None):
    raise HeelError(code if code is not None else err.code,
                    err.message.decode("utf-8", "replace"))


def _b(s):
    if s is None:
        return None
    b = os.fsencode(s)
    if b"\0" in b:
        raise ValueError("heel: a string holds a NUL character")
    return b


def _env_list(env):
    if env is None:
        return None
    if isinstance(env, dict):
        return [f"{k}={v}" for k, v in env.items()]
    return list(env)


class _Opts:
    """heel_spawn_opts and the buffers it points to, kept alive together."""

    def __init__(self, env=None, cwd=None, launcher=None, launcher_env=None, best_effort=False,
                 new_session=False, stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL, why=False):
        self.o = _lib.SpawnOpts()
        _c.heel_spawn_opts_init(ctypes.byref(self.o))
        self._env = _lib.strv(_env_list(env))
        self._lenv = _lib.strv(_env_list(launcher_env))
        self._cwd = _b(cwd)
        self._launcher = _b(launcher)
        if self._env is not None:
            self.o.env = ctypes.cast(self._env, ctypes.POINTER(ctypes.c_char_p))
        if self._lenv is not None:
            self.o.launcher_env = ctypes.cast(self._lenv, ctypes.POINTER(ctypes.c_char_p))
        self.o.cwd = self._cwd
        self.o.launcher = self._launcher
        self.o.flags = ((_lib.HEEL_SPAWN_BEST_EFFORT if best_effort else 0)
                        | (_lib.HEEL_SPAWN_NEW_SESSION if new_session else 0)
                        | (_lib.HEEL_SPAWN_WHY if why else 0))
        self.o.stdin_fd, self.o.stdout_fd, self.o.stderr_fd = stdin, stdout, stderr

    def ref(self):
        return ctypes.byref(self.o)


class Policy:
    """A policy: Policy() is empty (`heel 1`: isolation default, network
    deny) for the builder calls, which return the policy so that they
    chain; Policy.from_file and Policy.from_string load one (compiled at
    once: a mistake raises HeelError here). Builder calls while a spawn of
    the policy is under way in another thread raise HeelError (EBUSY)."""

    def __init__(self, _handle=None):
        err = _lib.Error()
        self._lock = threading.Lock()
        self._readers = 0
        self._h = _handle if _handle is not None else _c.heel_policy_new(ctypes.byref(err))
        if not self._h:
            _raise(err)

    @classmethod
    def from_file(cls, path):
        """A .heel file (its includes read again at each spawn) or a
        compiled .hpol artifact."""
        err = _lib.Error()
        h = _c.heel_policy_from_file(_b(path), ctypes.byref(err))
        if not h:
            _raise(err)
        return cls(h)

    @classmethod
    def from_string(cls, text, name=None):
        """.heel text; name names it in diagnostics (default "<string>")."""
        err = _lib.Error()
        h = _c.heel_policy_from_string(_b(text), _b(name), ctypes.byref(err))
        if not h:
            _raise(err)
        return cls(h)

    def close(self):
        with self._lock:
            if self._readers:
                raise HeelError(_errno.EBUSY, "heel: the policy is being spawned")
            h, self._h = self._h, None
        if h:
            _c.heel_policy_free(h)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            _c.heel_policy_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise HeelError(_errno.EBADF, "heel: the policy is closed")
        return self._h

    def _call(self, fn, *args):
        err = _lib.Error()
        with self._lock:
            if self._readers:
                raise HeelError(_errno.EBUSY, "heel: the policy is being spawned; change it "
                                "once the spawn has started, or use another policy")
            rc = fn(self._handle(), *args, ctypes.byref(err))
        if rc != 0:
            _raise(err, rc)
        return self

    # Readers: spawns and captures under way (libheel lets many threads
    # read a policy at once, never change it while one reads).
    def _acquire(self):
        with self._lock:
            self._handle()
            self._readers += 1
        return self._h

    def _release(self):
        with self._lock:
            self._readers -= 1

    def isolation(self, base):
        return self._call(_c.heel_policy_isolation, _b(base))

    def grant(self, path, mode="r"):
        return self._call(_c.heel_policy_grant, _b(path), _b(mode))

    def network(self, mode):
        return self._call(_c.heel_policy_network, _b(mode))

    def allow_domain(self, pattern):
        return self._call(_c.heel_policy_allow_domain, _b(pattern))

    def audit_log(self, file):
        return self._call(_c.heel_policy_audit_log, _b(file))

    def protect(self, name):
        return self._call(_c.heel_policy_protect, _b(name), 1)

    def unprotect(self, name):
        return self._call(_c.heel_policy_protect, _b(name), 0)

    def limit(self, name, value):
        return self._call(_c.heel_policy_limit, _b(name), _b(str(value)))

    def env_pass(self, name):
        return self._call(_c.heel_policy_env_pass, _b(name))

    def env_set(self, name, value):
        return self._call(_c.heel_policy_env_set, _b(name), _b(str(value)))

    def workdir(self, path):
        return self._call(_c.heel_policy_workdir, _b(path))

    def gpu(self, allow=True):
        return self._call(_c.heel_policy_gpu, 1 if allow else 0)

    def nice(self, steps):
        return self._call(_c.heel_policy_nice, int(steps))

    def io_priority(self, priority):
        return self._call(_c.heel_policy_io_priority, _b(priority))

    def text(self, **opts):
        """The policy as a spawn with these options would compile it, as
        .heel text."""
        o, err = _Opts(**opts), _lib.Error()
        h = self._acquire()
        try:
            ptr = _c.heel_policy_text(h, o.ref(), ctypes.byref(err))
        finally:
            self._release()
        if not ptr:
            _raise(err)
        return _lib.take_string(ptr)

    def check(self, **opts):
        """Compiles it as a spawn would: the compiler's warnings (None if
        there are none), or HeelError with the diagnostics."""
        o, err, warn = _Opts(**opts), _lib.Error(), ctypes.c_void_p()
        h = self._acquire()
        try:
            rc = _c.heel_policy_check(h, o.ref(), ctypes.byref(warn), ctypes.byref(err))
        finally:
            self._release()
        if rc != 0:
            _raise(err, rc)
        return _lib.take_string(warn.value)


def _stdio(v, i):
    if v is None:
        return DEVNULL
    if v in (PIPE, DEVNULL):
        return v
    if isinstance(v, int) and v >= 0:
        return v
    if hasattr(v, "fileno"):
        return v.fileno()
    raise ValueError(f"heel: {('stdin', 'stdout', 'stderr')[i]} must be PIPE, DEVNULL, None, "
                     "a descriptor or a file")


def _argv(policy, argv):
    if not isinstance(policy, Policy):
        raise TypeError("heel: the first argument must be a Policy")
    if isinstance(argv, (str, bytes)) or not argv:
        raise TypeError("heel: argv must be a non-empty list")
    return _lib.strv(argv)


class Child:
    """A running heel-exec. status is None until it has ended, then the
    command's exit status as heel-exec reports it (its own; 128+N for
    signal N; 125 when heel-exec refused or failed, with why on stderr;
    126/127 when the command could not be run or found). stdin, stdout
    and stderr are binary files for the pipes asked for, else None."""

    def __init__(self, handle, pipes):
        self._h = handle
        self._lock = threading.Lock()
        self.pid = _c.heel_child_pid(handle)
        self.pidfd = _c.heel_child_pidfd(handle)
        self.status = None
        self.stdin = os.fdopen(pipes[0], "wb") if pipes[0] >= 0 else None
        self.stdout = os.fdopen(pipes[1], "rb") if pipes[1] >= 0 else None
        self.stderr = os.fdopen(pipes[2], "rb") if pipes[2] >= 0 else None

    def poll(self):
        """The status if heel-exec has ended (reaping it), else None."""
        with self._lock:
            if self.status is None and self._h:
                st, err = ctypes.c_int(), _lib.Error()
                rc = _c.heel_child_wait(self._h, 0, ctypes.byref(st), ctypes.byref(err))
                if rc == 0:
                    self.status = st.value
                elif rc != -_errno.ETIMEDOUT:
                    _raise(err, rc)
            return self.status

    def wait(self, timeout=None):
        """Waits for heel-exec's end (seconds; None: without limit) and
        returns the status; TimeoutError when it still runs. The wait is
        a poll(2) on the pidfd: kill() from another thread is not held
        up by it."""
        p = select.poll()
        p.register(self.pidfd, select.POLLIN)
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else max(0, deadline - time.monotonic())
            if left == 0:
                raise TimeoutError(f"heel-exec (pid {self.pid}) is still running")
            p.poll(None if left is None else int(left * 1000) + 1)
        return self.status

    def denials(self):
        """After the end of a child spawned with why=True: each distinct
        action the sandbox refused, as a dict (heel(5), the audit sink's
        "denial/1" lines: "op", "path" or "host", "comm", "wall", "rule"
        with its file:line, "option" and "line" that allow it, "count");
        [] when nothing was refused. HeelError: EBUSY before the end,
        EINVAL without why=True."""
        self.poll()
        err = _lib.Error()
        with self._lock:
            if not self._h:
                raise HeelError(_errno.EINVAL, "heel: the child is closed")
            p = _c.heel_child_denials(self._h, ctypes.byref(err))
        if not p:
            _raise(err)
        return [json.loads(line) for line in _lib.take_string(p).splitlines() if line]

    def kill(self, sig=_signal.SIGTERM):
        """Sends sig to heel-exec, which forwards SIGINT, SIGTERM, SIGHUP
        and SIGQUIT to the whole sandbox; HeelError (ESRCH) once it has
        ended."""
        err = _lib.Error()
        with self._lock:
            if not self._h:
                raise HeelError(_errno.ESRCH, "heel: the child is closed")
            rc = _c.heel_child_kill(self._h, int(sig), ctypes.byref(err))
        if rc != 0:
            _raise(err, rc)

    def close(self):
        """Ends the sandbox if it still runs (SIGTERM, then SIGKILL after
        5 s: this may block that long), releases the handle and closes
        the pipes. Returns the status."""
        if self.status is None and self._h:
            # heel_child_free's own sequence, with the status kept.
            try:
                self.kill(_signal.SIGTERM)
                self.kill(_signal.SIGCONT)
                self.wait(5)
            except TimeoutError:
                self.kill(_signal.SIGKILL)
                self.wait()
            except HeelError:
                self.wait()
        with self._lock:
            h, self._h = self._h, None
        if h:
            _c.heel_child_free(h)
        for f in (self.stdin, self.stdout, self.stderr):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        if self.status is None:
            self.status = 128 + _signal.SIGKILL
        return self.status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # Never blocks a collector for 5 s: a child that still runs is
        # left to its heel-exec (the handle stays open with it).
        h = getattr(self, "_h", None)
        if h and self.status is not None:
            _c.heel_child_free(h)


# Children still running when the interpreter exits get SIGTERM:
# heel-exec ends the sandbox and removes its working directory rather
# than run on with no handle to it.
_running = weakref.WeakSet()


@atexit.register
def _end_running():
    for child in list(_running):
        if child.status is None:
            try:
                child.kill(_signal.SIGTERM)
            except HeelError:
                pass


def spawn(policy, argv, *, stdin=None, stdout=PIPE, stderr=PIPE, env=None, cwd=None,
          launcher=None, launcher_env=None, best_effort=False, new_session=False, why=False):
    """Starts argv under the policy. stdin (default /dev/null), stdout and
    stderr (default PIPE) each PIPE, DEVNULL, None, a descriptor or a
    file; env: additions ({NAME: value} or ["NAME=value"]); cwd: where the
    command starts; launcher: heel-exec's path (default the one installed
    with libheel); launcher_env: heel-exec's own environment (default
    this process's); best_effort, new_session: heel_spawn's flags; why:
    heel-exec --why, the refusals explained on stderr at the end and
    returned by Child.denials()."""
    args = _argv(policy, argv)
    fds = [_stdio(stdin, 0), _stdio(stdout, 1), _stdio(stderr, 2)]
    ours, theirs = [-1, -1, -1], []
    try:
        for i in range(3):
            if fds[i] == PIPE:
                r, w = os.pipe()  # close-on-exec: libheel duplicates its end
                ours[i], fds[i] = (w, r) if i == 0 else (r, w)
                theirs.append(fds[i])
        o, err = _Opts(env, cwd, launcher, launcher_env, best_effort, new_session, *fds,
                       why=why), _lib.Error()
        h = policy._acquire()
        try:
            c = _c.heel_spawn(h, args, o.ref(), ctypes.byref(err))
        finally:
            policy._release()
        if not c:
            _raise(err)
    except BaseException:
        for fd in ours:
            if fd >= 0:
                os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    child = Child(c, ours)
    _running.add(child)
    return child


@dataclass
class Result:
    """What run() saw: status as Child.status; stdout and stderr as bytes
    (str with text=True), the first max_bytes of each."""
    status: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    stdout_truncated: bool
    stderr_truncated: bool


def run(policy, argv, *, max_bytes=1 << 20, timeout=None, text=False, stdin=None, env=None,
        cwd=None, launcher=None, launcher_env=None, best_effort=False,
        new_session=False) -> Result:
    """Runs argv under the policy to its end and captures its output
    (libheel's heel_run_capture): at most timeout seconds (None: no
    limit), after which the sandbox is ended and timed_out set. The
    command's failure is in Result.status, not an exception."""
    args = _argv(policy, argv)
    o = _Opts(env, cwd, launcher, launcher_env, best_effort, new_session,
              _stdio(stdin, 0), DEVNULL, DEVNULL)
    if o.o.stdin_fd == PIPE:
        raise ValueError("heel: run() takes no stdin PIPE (use spawn)")
    cap, err = _lib.Capture(), _lib.Error()
    ms = -1 if timeout is None else int(timeout * 1000)
    h = policy._acquire()
    try:
        rc = _c.heel_run_capture(h, args, o.ref(), max_bytes, ms, ctypes.byref(cap),
                                 ctypes.byref(err))
    finally:
        policy._release()
    if rc != 0:
        _raise(err, rc)
    try:
        out = ctypes.string_at(cap.out, cap.out_len)
        errb = ctypes.string_at(cap.err, cap.err_len)
        res = Result(cap.status, out, errb, bool(cap.timed_out), bool(cap.out_truncated),
                     bool(cap.err_truncated))
    finally:
        _c.heel_capture_free(ctypes.byref(cap))
    if text:
        res.stdout = res.stdout.decode("utf-8", "replace")
        res.stderr = res.stderr.decode("utf-8", "replace")
    return res

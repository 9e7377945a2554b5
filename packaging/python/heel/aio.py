# SPDX-License-Identifier: MIT
"""heel for asyncio: the calls of the heel package as coroutines. A
child's end is seen by the event loop watching its pidfd (add_reader),
its pipes are asyncio streams; what blocks in libheel (compiling a policy,
starting heel-exec, a capture, ending a sandbox) runs in the loop's
default executor, never on the loop itself."""
import asyncio
import functools
import signal as _signal

from . import DEVNULL, PIPE, HeelError, Policy, Result  # noqa: F401 (re-exported)
from . import run as _run
from . import spawn as _spawn

__all__ = ["policy_from_file", "policy_from_string", "spawn", "run", "AsyncChild", "PIPE",
           "DEVNULL"]


async def _in_executor(fn, *args, **kwargs):
    return await asyncio.get_running_loop().run_in_executor(
        None, functools.partial(fn, *args, **kwargs))


async def policy_from_file(path):
    """Policy.from_file, compiled off the loop."""
    return await _in_executor(Policy.from_file, path)


async def policy_from_string(text, name=None):
    """Policy.from_string, compiled off the loop."""
    return await _in_executor(Policy.from_string, text, name)


class AsyncChild:
    """A running heel-exec (heel.Child) for asyncio: stdin is a
    StreamWriter, stdout and stderr StreamReaders, for the pipes asked
    for; wait() and close() are coroutines."""

    def __init__(self, child, loop):
        self._child = child
        self._loop = loop
        self._ended = loop.create_future()
        self.pid = child.pid
        self.stdin = self.stdout = self.stderr = None
        loop.add_reader(child.pidfd, self._on_pidfd)
        self._watching = True
        # A child that ended before the reader was added is seen at once.
        self._on_pidfd()

    @property
    def status(self):
        return self._child.status

    def _unwatch(self):
        if self._watching:
            self._loop.remove_reader(self._child.pidfd)
            self._watching = False

    def _on_pidfd(self):
        try:
            st = self._child.poll()
        except HeelError as e:
            self._unwatch()
            if not self._ended.done():
                self._ended.set_exception(e)
            return
        if st is not None:
            self._unwatch()
            if not self._ended.done():
                self._ended.set_result(st)

    async def _streams(self):
        c, loop = self._child, self._loop
        if c.stdout is not None:
            self.stdout = asyncio.StreamReader()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.stdout),
                                         c.stdout)
        if c.stderr is not None:
            self.stderr = asyncio.StreamReader()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.stderr),
                                         c.stderr)
        if c.stdin is not None:
            transport, protocol = await loop.connect_write_pipe(
                lambda: asyncio.streams.FlowControlMixin(), c.stdin)
            self.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        # The transports own the pipes now: Child.close must not close
        # descriptors they still use (or, once reused, someone else's).
        c.stdin = c.stdout = c.stderr = None

    async def wait(self):
        """The exit status, once heel-exec has ended."""
        return await asyncio.shield(self._ended)

    def kill(self, sig=_signal.SIGTERM):
        """As heel.Child.kill."""
        self._child.kill(sig)

    async def close(self):
        """Ends the sandbox if it still runs (SIGTERM, then SIGKILL after
        5 s), off the loop; returns the status."""
        self._unwatch()
        st = await _in_executor(self._child.close)
        if not self._ended.done():
            self._ended.set_result(st)
        return st


async def spawn(policy, argv, **kwargs):
    """heel.spawn's arguments; returns an AsyncChild."""
    loop = asyncio.get_running_loop()
    child = await _in_executor(_spawn, policy, argv, **kwargs)
    ac = AsyncChild(child, loop)
    try:
        await ac._streams()
    except BaseException:
        await ac.close()
        raise
    return ac


async def run(policy, argv, **kwargs) -> Result:
    """heel.run's arguments, off the loop (one executor thread for the
    run's length)."""
    return await _in_executor(_run, policy, argv, **kwargs)

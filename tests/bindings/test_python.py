# SPDX-License-Identifier: MIT
"""The Python package (packaging/python) run for real by
tests/bindings/run.sh, as root and as uid 65534: each API, sync and
asyncio, against the heel-exec named by HEEL_EXEC, asserting on effects
(what the command printed, the file a refused write did not create and a
granted one did, no process left, the event loop kept turning). Prints
"ok NAME" or "FAIL NAME: why".
Usage: HEEL_EXEC=... SCRATCH=DIR python3 test_python.py [NAME]"""
import asyncio
import os
import signal
import sys
import time
import traceback

import heel
import heel.aio

X = os.environ.get("HEEL_EXEC", "")
S = os.environ.get("SCRATCH", "")
FROM = ["sh", "-c", 'printf %s "$FROM"']


def sleeping(arg):
    """Processes whose command line is exactly `sleep ARG`."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                n += f.read() == b"sleep\0" + arg.encode() + b"\0"
        except OSError:
            pass
    return n


def until_sleeping(arg):
    for _ in range(100):
        if sleeping(arg):
            return
        time.sleep(0.05)
    raise AssertionError("the command did not start")


def policy_from_file():
    f = os.path.join(S, "p.heel")
    with open(f, "w") as fh:
        fh.write('heel 1\nenv set "FROM" "file"\n')
    r = heel.run(heel.Policy.from_file(f), FROM, launcher=X, text=True)
    assert r.stdout == "file", r


def policy_from_string():
    p = heel.Policy.from_string('heel 1\nenv set "FROM" "string"\n', "s.heel")
    r = heel.run(p, FROM, launcher=X)
    assert r.stdout == b"string", r


def policy_from_builder_calls():
    p = heel.Policy().isolation("strict").limit("open-files", 256).env_set("FROM", "builder")
    assert 'env set "FROM" "builder"' in p.text(), p.text()
    assert p.check() is None
    # The limit holds inside (and the control: 256 is not the default).
    r = heel.run(p, ["sh", "-c", 'printf "%s " "$FROM"; ulimit -n'], launcher=X)
    assert r.stdout == b"builder 256\n", r
    d = heel.run(heel.Policy(), ["sh", "-c", "ulimit -n"], launcher=X)
    assert d.stdout != b"256\n", d


def bad_policy_string_is_an_exception_with_file_line_col():
    try:
        heel.Policy.from_string("heel 1\nbogus x\n", "bad.heel")
    except heel.HeelError as e:
        assert e.errno == 22, e.errno
        assert str(e).startswith("bad.heel:2:1: error: "), str(e)
    else:
        raise AssertionError("no exception")
    try:
        heel.Policy().limit("memory", "lots")
    except heel.HeelError as e:
        assert e.errno == 22
    else:
        raise AssertionError("no exception for a bad limit")
    # The control: the same text without the mistake loads.
    heel.Policy.from_string("heel 1\n", "good.heel")


def capture():
    r = heel.run(heel.Policy(), ["sh", "-c", "echo out; echo err >&2; exit 3"], launcher=X)
    assert (r.status, r.stdout, r.stderr, r.timed_out) == (3, b"out\n", b"err\n", False), r
    t = heel.run(heel.Policy(), ["sh", "-c", "head -c 5000 /dev/zero"], launcher=X,
                 max_bytes=100)
    assert len(t.stdout) == 100 and t.stdout_truncated, t


def capture_timeout_ends_the_sandbox():
    t0 = time.monotonic()
    r = heel.run(heel.Policy(), ["sleep", "31.25"], launcher=X, timeout=0.5)
    assert r.timed_out, r
    assert time.monotonic() - t0 < 20
    assert sleeping("31.25") == 0


def stream_and_wait():
    c = heel.spawn(heel.Policy(), ["sh", "-c", "echo one; sleep 0.2; echo two >&2; exit 7"],
                   launcher=X)
    assert c.stdout.read() == b"one\n"
    assert c.stderr.read() == b"two\n"
    assert c.wait() == 7 and c.status == 7
    c.close()


def stdin_pipe():
    with heel.spawn(heel.Policy(), ["cat"], stdin=heel.PIPE, launcher=X) as c:
        c.stdin.write(b"ping\n")
        c.stdin.close()
        assert c.stdout.read() == b"ping\n"
        assert c.wait() == 0


def wait_with_timeout():
    with heel.spawn(heel.Policy(), ["sleep", "31.4"], launcher=X) as c:
        try:
            c.wait(0.2)
        except TimeoutError:
            pass
        else:
            raise AssertionError("wait(0.2) returned while sleep 31.4 ran")
    assert c.status == 128 + signal.SIGTERM, c.status


def kill_ends_the_sandbox():
    c = heel.spawn(heel.Policy(), ["sleep", "31.5"], stdout=None, stderr=None, launcher=X)
    until_sleeping("31.5")
    c.kill(signal.SIGTERM)
    assert c.wait(20) == 128 + signal.SIGTERM, c.status
    assert sleeping("31.5") == 0, "the command outlived the kill"
    try:
        c.kill()
    except heel.HeelError as e:
        assert e.errno == 3  # ESRCH
    else:
        raise AssertionError("kill after the end did not fail")
    c.close()


def close_ends_the_sandbox():
    c = heel.spawn(heel.Policy(), ["sleep", "31.75"], launcher=X)
    until_sleeping("31.75")
    assert c.close() == 128 + signal.SIGTERM
    assert sleeping("31.75") == 0


def refused_write_holds_and_granted_write_works():
    target = os.path.join(S, "outside")
    script = ["sh", "-c", f"echo x > {target}"]
    p = heel.Policy()
    r = heel.run(p, script, launcher=X)
    assert r.status != 0, "the write succeeded"
    assert not os.path.exists(target), f"{target} was written"
    # The control: granted, the same write lands.
    p.grant(S, "rw")
    g = heel.run(p, script, launcher=X)
    assert g.status == 0, g
    with open(target) as f:
        assert f.read() == "x\n"
    os.unlink(target)


def refusals_are_returned_with_why():
    target = os.path.join(S, "outside-why")
    c = heel.spawn(heel.Policy(), ["sh", "-c", f"echo x > {target}; echo y > inside"],
                   launcher=X, why=True, stdout=heel.DEVNULL, stderr=heel.DEVNULL)
    c.wait(30)
    assert not os.path.exists(target), f"{target} was written"
    d = c.denials()
    assert [x["path"] for x in d] == [target], d
    assert d[0]["type"] == "denial/1" and d[0]["wall"] == "read-only mount", d
    assert d[0]["option"] == f"--writable {S}" or d[0]["option"].startswith("--writable "), d
    c.close()
    # Without why=True the caller is told, not handed nothing.
    c = heel.spawn(heel.Policy(), ["true"], launcher=X, stdout=heel.DEVNULL, stderr=heel.DEVNULL)
    c.wait(30)
    try:
        c.denials()
        raise AssertionError("denials() without why=True returned")
    except heel.HeelError as e:
        assert e.errno == 22, e
    c.close()


def builder_calls_wait_for_spawns_under_way():
    import threading
    p = heel.Policy()
    results = []
    t = threading.Thread(target=lambda: results.append(
        heel.run(p, ["sh", "-c", "sleep 1; echo a"], launcher=X)))
    t.start()
    for _ in range(200):
        if p._readers:
            break
        time.sleep(0.005)
    try:
        p.grant(S, "rw")
    except heel.HeelError as e:
        assert e.errno == 16, e  # EBUSY
    else:
        raise AssertionError("a builder call went through during a spawn")
    t.join()
    assert results and results[0].stdout == b"a\n", results
    # The control: once it has ended, the policy can change again.
    p.grant(S, "rw")


def exit_ends_running_sandboxes():
    """A Python that spawns and exits: the sandbox ran (the control,
    printed by that Python) and is gone after."""
    import subprocess
    script = (
        "import heel, os, time, test_python as t\n"
        "c = heel.spawn(heel.Policy(), ['sleep', '33.5'], launcher=os.environ['HEEL_EXEC'])\n"
        "t.until_sleeping('33.5')\n"
        "print('running', t.sleeping('33.5'))\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=30, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert r.stdout == "running 1\n", (r.stdout, r.stderr)
    for _ in range(100):
        if not sleeping("33.5"):
            break
        time.sleep(0.05)
    assert sleeping("33.5") == 0, "the sandbox outlived the Python that spawned it"


def missing_launcher_is_an_exception():
    try:
        heel.run(heel.Policy(), ["true"], launcher="/nonexistent/heel-exec")
    except heel.HeelError as e:
        assert e.errno == 2, e
    else:
        raise AssertionError("no exception")


async def _aio_all():
    p = await heel.aio.policy_from_string('heel 1\nenv set "FROM" "aio"\n', "a.heel")
    r = await heel.aio.run(p, FROM, launcher=X, text=True)
    assert r.stdout == "aio", r
    try:
        await heel.aio.policy_from_string("heel 1\nbogus\n", "abad.heel")
    except heel.HeelError as e:
        assert str(e).startswith("abad.heel:2:1: error: "), str(e)
    else:
        raise AssertionError("no exception")
    f = os.path.join(S, "a.heel")
    with open(f, "w") as fh:
        fh.write('heel 1\nenv set "FROM" "afile"\n')
    r = await heel.aio.run(await heel.aio.policy_from_file(f), FROM, launcher=X, text=True)
    assert r.stdout == "afile", r

    # Streams, and the loop turning while the child runs.
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    t = asyncio.create_task(tick())
    c = await heel.aio.spawn(heel.Policy(), ["sh", "-c", "echo one; sleep 1; echo two; exit 5"],
                             launcher=X)
    lines = [await c.stdout.readline(), await c.stdout.readline()]
    assert lines == [b"one\n", b"two\n"], lines
    assert await c.wait() == 5
    t.cancel()
    assert ticks >= 10, f"{ticks} ticks during the run"

    c = await heel.aio.spawn(heel.Policy(), ["cat"], stdin=heel.PIPE, launcher=X)
    c.stdin.write(b"pong\n")
    await c.stdin.drain()
    c.stdin.close()
    assert await c.stdout.read() == b"pong\n"
    assert await c.wait() == 0

    c = await heel.aio.spawn(heel.Policy(), ["sleep", "32.5"], launcher=X)
    await asyncio.get_running_loop().run_in_executor(None, until_sleeping, "32.5")
    c.kill(signal.SIGTERM)
    assert await asyncio.wait_for(c.wait(), 20) == 128 + signal.SIGTERM
    assert sleeping("32.5") == 0

    c = await heel.aio.spawn(heel.Policy(), ["sleep", "32.75"], launcher=X)
    await asyncio.get_running_loop().run_in_executor(None, until_sleeping, "32.75")
    assert await c.close() == 128 + signal.SIGTERM
    assert sleeping("32.75") == 0

    target = os.path.join(S, "aoutside")
    script = ["sh", "-c", f"echo x > {target}"]
    r = await heel.aio.run(heel.Policy(), script, launcher=X)
    assert r.status != 0 and not os.path.exists(target), r
    r = await heel.aio.run(heel.Policy().grant(S, "rw"), script, launcher=X)
    assert r.status == 0 and os.path.exists(target), r


def asyncio_api():
    asyncio.run(_aio_all())


CASES = [policy_from_file, policy_from_string, policy_from_builder_calls,
         bad_policy_string_is_an_exception_with_file_line_col, capture,
         capture_timeout_ends_the_sandbox, stream_and_wait, stdin_pipe, wait_with_timeout,
         kill_ends_the_sandbox, close_ends_the_sandbox,
         refused_write_holds_and_granted_write_works, refusals_are_returned_with_why,
         builder_calls_wait_for_spawns_under_way,
         exit_ends_running_sandboxes, missing_launcher_is_an_exception,
         asyncio_api]

if __name__ == "__main__":
    only = sys.argv[1] if len(sys.argv) > 1 else None
    for case in CASES:
        if only and case.__name__ != only:
            continue
        try:
            case()
            print(f"ok   python {case.__name__}", flush=True)
        except Exception:
            print(f"FAIL python {case.__name__}: {traceback.format_exc()}", flush=True)

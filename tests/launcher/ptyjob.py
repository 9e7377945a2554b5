#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# ptyjob: drives an interactive shell in a fresh pseudo-terminal (its
# controlling terminal, so the shell does job control) through a script
# of steps, for heel-exec's job-control tests (Ctrl-Z, fg, bg). Each step
# is one argument:
#   >TEXT     type TEXT and Enter
#   ^C        type the control character C (^Z: suspend)
#   ?REGEX    wait (at most --timeout s) until the output since the last
#             match matches REGEX (Python re, DOTALL); that output is used
#   !REGEX    the output since the last match must not match REGEX
#   ~SECONDS  wait, reading the output
#   @modes    record the terminal's modes the first time; later, fail
#             unless they are the same
# Usage: ptyjob.py [--timeout S] -- SHELL [ARG...] -- STEP...
# Prints "ok" and exits 0 when every step passed; else the failed step and
# the output since the last match, exit 1.
import os
import pty
import re
import select
import signal
import sys
import termios
import time


def main():
    args = sys.argv[1:]
    timeout = 10.0
    if args[:1] == ["--timeout"]:
        timeout = float(args[1])
        args = args[2:]
    if args[:1] != ["--"] or "--" not in args[1:]:
        sys.exit("usage: ptyjob.py [--timeout S] -- SHELL [ARG...] -- STEP...")
    args = args[1:]
    cut = args.index("--")
    shell, steps = args[:cut], args[cut + 1 :]

    pid, master = pty.fork()
    if pid == 0:
        os.execvp(shell[0], shell)
    out = b""      # everything since the last match
    transcript = b""
    modes = None

    def read_for(seconds):
        nonlocal out, transcript
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([master], [], [], left)
            if not r:
                return
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            out += data
            transcript += data

    def hang_up():
        # As a closed terminal window does: the shell gets SIGHUP and
        # passes it to its jobs (continuing stopped ones), so a failed
        # run leaves nothing stopped behind.
        try:
            os.kill(pid, signal.SIGHUP)
        except ProcessLookupError:
            pass
        os.close(master)
        for _ in range(50):
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    def fail(step, why):
        sys.stdout.write("step %r: %s\n--- output since the last match:\n%s\n---\n"
                         % (step, why, out.decode(errors="replace")))
        hang_up()
        sys.exit(1)

    for step in steps:
        if step.startswith(">"):
            os.write(master, step[1:].encode() + b"\r")
        elif step.startswith("^") and len(step) == 2:
            os.write(master, bytes([ord(step[1].upper()) & 0x1F]))
        elif step.startswith("?"):
            pat = re.compile(step[1:].encode(), re.S)
            end = time.monotonic() + timeout
            while True:
                m = pat.search(out)
                if m:
                    out = out[m.end():]
                    break
                if time.monotonic() >= end:
                    fail(step, "not seen within %gs" % timeout)
                read_for(min(0.1, end - time.monotonic()))
        elif step.startswith("!"):
            read_for(0.05)
            if re.search(step[1:].encode(), out, re.S):
                fail(step, "seen, and must not be")
        elif step.startswith("~"):
            read_for(float(step[1:]))
        elif step == "@modes":
            now = termios.tcgetattr(master)
            if modes is None:
                modes = now
            elif now != modes:
                fail(step, "terminal modes changed: %r, were %r" % (now, modes))
        else:
            sys.exit("ptyjob.py: unknown step %r" % step)
    hang_up()
    print("ok")


main()

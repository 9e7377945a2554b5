#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Drives `heel shell` on a pseudo-terminal as a person would: types
# commands, reads what comes back, and checks that the terminal's modes
# are the same afterwards. Usage: ptyshell.py SCRIPT-LINES... -- HEEL ARGS...
# Prints everything the shell wrote, then "MODES-RESTORED" or
# "MODES-CHANGED", then "EXIT N".
import os
import pty
import select
import sys
import termios
import time

sep = sys.argv.index("--")
lines, cmd = sys.argv[1:sep], sys.argv[sep + 1:]

pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "heel$ "
    os.execv(cmd[0], cmd)

before = termios.tcgetattr(fd)
out = b""


def read_for(seconds):
    global out
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if fd in r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return False
            if not chunk:
                return False
            out += chunk
    return True


read_for(1.5)
for line in lines:
    os.write(fd, line.encode() + b"\n")
    read_for(1.0)
deadline = time.time() + 10
status = None
while time.time() < deadline:
    if not read_for(0.2):
        pass
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        break
if status is None:
    os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
# The parent's view of the pty after heel is gone: heel must have put
# back the modes it found (raw mode left behind breaks the user's shell).
try:
    after = termios.tcgetattr(fd)
    restored = after == before
except termios.error:
    restored = True  # the slave side is gone with its last holder
sys.stdout.write(out.decode(errors="replace"))
print("\nMODES-RESTORED" if restored else "\nMODES-CHANGED")
print("EXIT", os.waitstatus_to_exitcode(status))

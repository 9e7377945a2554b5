#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# fdpass: hands heel-exec an artifact as an inherited descriptor, the way
# the `heel` front end does (--artifact-fd). Opens KIND on SOURCE, then
# execs CMD with every argument "FD" replaced by the descriptor's number.
#   memfd   a memfd holding SOURCE's bytes, its offset left at the end
#   file    SOURCE opened read-only, its offset moved to the middle
#   pipe    a pipe holding SOURCE's bytes (not a regular file)
#   closed  a number that is no open descriptor
# Usage: fdpass.py KIND SOURCE -- CMD [ARG...]
import fcntl
import os
import sys


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: fdpass.py memfd|file|pipe|closed SOURCE -- CMD [ARG...]")
    kind, source, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
    data = open(source, "rb").read()
    if kind == "memfd":
        fd = os.memfd_create("hpol", 0)
        os.write(fd, data)
    elif kind == "file":
        fd = os.open(source, os.O_RDONLY)
        os.lseek(fd, len(data) // 2, os.SEEK_SET)
    elif kind == "pipe":
        r, w = os.pipe()
        # Room for the whole artifact before anyone reads: a write past
        # the default 64 KiB would wait here forever.
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, max(len(data), 65536))
        os.write(w, data)
        os.close(w)
        fd = r
    elif kind == "closed":
        fd = 99
        try:
            os.close(fd)
        except OSError:
            pass
    else:
        sys.exit("fdpass.py: unknown kind " + kind)
    if kind != "closed":
        os.set_inheritable(fd, True)
    os.execvp(cmd[0], [str(fd) if a == "FD" else a for a in cmd])


main()

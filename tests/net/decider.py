#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A `network decide` program for the live network suite. heel-proxy writes
# one JSON line per new destination and reads one JSON line back (`allow`,
# `reason`); this one answers by MODE, and appends every line it was given
# to LOG so a test can see what it was asked.
#   allow    {"allow": true, ...}
#   refuse   {"allow": false, ...}
#   hang     reads, never answers (sleeps 300 s at most, then exits)
#   crash    reads one line, exits 3 without an answer
#   garbage  answers a line that is not JSON
# Usage: decider.py MODE LOG
import json
import os
import sys
import time

mode, log = sys.argv[1], sys.argv[2]


def note(line):
    try:
        with open(log, "a") as f:
            f.write(line if line.endswith("\n") else line + "\n")
    except OSError:
        pass


note("start %s pid %d" % (mode, os.getpid()))
for line in sys.stdin:
    note(line)
    if mode == "hang":
        time.sleep(300)
        sys.exit(0)
    if mode == "crash":
        os._exit(3)
    if mode == "garbage":
        out = "this is not json"
    else:
        ok = mode == "allow"
        out = json.dumps({"allow": ok, "reason": "the test decider %s" % ("allows" if ok else "refuses")})
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
note("eof")

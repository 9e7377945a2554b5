#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Checks a heel-proxy audit file against the decisions a case made: one
# JSON line per decision, in order, each with timestamp (RFC 3339, UTC,
# milliseconds; never going back), host, port, allowed, reason and method
# (non-empty strings). Extra keys are allowed.
# Usage: auditcheck.py FILE HOST:PORT:allowed|refused...
# Prints "OK methods M1,M2,..." or the problems on one line; exit 1 then.
import json
import re
import sys

KEYS = {"timestamp", "host", "port", "allowed", "reason", "method"}
TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def expected(spec):
    host, port, verdict = spec.rsplit(":", 2)
    return host, int(port), verdict == "allowed"


def check(path, want):
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        return ["cannot read %s: %s" % (path, e.strerror)], []
    probs, methods, last = [], [], ""
    if len(lines) != len(want):
        probs.append("%d lines, expected %d (one per decision)" % (len(lines), len(want)))
    for i, (line, (host, port, allowed)) in enumerate(zip(lines, want), 1):
        try:
            d = json.loads(line)
        except ValueError:
            probs.append("line %d is not JSON: %.80s" % (i, line))
            continue
        if not isinstance(d, dict) or not KEYS <= set(d):
            probs.append("line %d lacks %s" % (i, sorted(KEYS - set(d if isinstance(d, dict) else {}))))
            continue
        if (d["host"], d["port"], d["allowed"]) != (host, port, allowed):
            probs.append("line %d is %r %r %r, expected %r %r %r"
                         % (i, d["host"], d["port"], d["allowed"], host, port, allowed))
        ts = d["timestamp"]
        if not (isinstance(ts, str) and TS.fullmatch(ts)):
            probs.append("line %d: timestamp %r is not RFC 3339 UTC with milliseconds" % (i, ts))
        elif ts < last:
            probs.append("line %d: timestamp goes back" % i)
        else:
            last = ts
        for k in ("reason", "method"):
            if not (isinstance(d[k], str) and d[k]):
                probs.append("line %d: %s is %r" % (i, k, d[k]))
        methods.append(str(d["method"]))
    return probs, methods


def main():
    probs, methods = check(sys.argv[1], [expected(s) for s in sys.argv[2:]])
    if probs:
        print("; ".join(probs))
        return 1
    print("OK methods " + ",".join(methods))
    return 0


if __name__ == "__main__":
    sys.exit(main())

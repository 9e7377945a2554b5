#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every place heel's host side runs a program, opens a file or makes or
moves a name, and how each is made safe (heel(5), WHAT PERSISTS BETWEEN
RUNS). The host side's code (launcher/, runtime/, compiler/heel/,
compiler/libheel/; not the other platforms' files) is scanned for those
calls, each found by file, function and call; callers.txt must say, for
every one, how it is safe:

  check FN      the path comes through the one checked primitive: FN
                (or FILE:FN) is the function that checks it, and must call
                hc_check, hc_open_append or a function that does
                (hostcheck.h)
  primitive     the primitive itself (runtime/hostcheck.c)
  fixed WHY     a fixed path of the system's (/proc, /dev/null, cgroupfs)
  own WHY       a place heel makes or keeps itself, opened without
                following a link a sandbox could plant
  inside WHY    runs in the sandbox's own namespaces, after its walls
  data WHY      read as data only, never run or appended to

A call not in the table fails the test (a new helper cannot forget the
check), and so does a line of the table that matches no call (the table
stays true). Prints "N passed, N failed"."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIRS = ["launcher", "runtime", "runtime/proxy", "runtime/broker", "compiler/heel", "compiler/libheel", "compiler/why"]
OTHER_PLATFORMS = re.compile(r"(^|/)(windows|win_|macos|sbpl)")
CALLS = re.compile(r"\b(execve|execv|execvp|execvpe|execl|execlp|execle|fexecve|execveat|posix_spawnp?"
                   r"|system|popen|open|openat|openat2|fopen|freopen|creat|mkstemp|mkostemp|mkdtemp"
                   r"|rename|renameat2?|link|linkat|symlink|symlinkat|mkdir|mkdirat|mkfifo|mknod)\s*\(")
SYSCALLS = re.compile(r"\bsyscall\s*\(\s*(?:SYS|__NR)_(execveat|openat2?|open_tree|renameat2?|linkat|symlinkat|mkdirat|mknodat)\b")
FUNC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(")
CHECKS = re.compile(r"\b(hc_check|hc_open_append)\s*\(")
ROUTES = ("check", "primitive", "fixed", "own", "inside", "data")


def code_lines(path):
    """Lines with comments and string literals blanked, so that neither a
    word in a message nor one in a comment counts as a call."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])'", "' '", text)
    return text.split("\n")


def scan():
    found, bodies = {}, {}
    for d in DIRS:
        for name in sorted(os.listdir(os.path.join(ROOT, d))):
            rel = f"{d}/{name}"
            if not name.endswith(".c") or OTHER_PLATFORMS.search(rel):
                continue
            fn = None
            for n, line in enumerate(code_lines(os.path.join(ROOT, rel)), 1):
                m = FUNC.match(line)
                if m:
                    fn = m.group(1)
                if fn:
                    bodies.setdefault(fn, []).append(line)
                    bodies.setdefault(f"{rel}:{fn}", []).append(line)
                for c in list(CALLS.finditer(line)) + list(SYSCALLS.finditer(line)):
                    found.setdefault((rel, fn or "-", c.group(1)), n)
    return found, {k: "\n".join(v) for k, v in bodies.items()}


def checks(fn, bodies, seen=None):
    """Whether fn calls the primitive, itself or through a function of
    ours that does."""
    seen = seen or set()
    if fn in seen or fn not in bodies:
        return False
    seen.add(fn)
    body = bodies[fn]
    if CHECKS.search(body):
        return True
    return any(checks(g, bodies, seen) for g in re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", body)
               if g in bodies and g != fn)


def main():
    found, bodies = scan()
    table = {}
    for n, line in enumerate(open(os.path.join(os.path.dirname(__file__), "callers.txt")), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 4)
        if len(parts) < 5 or parts[3] not in ROUTES:
            print(f"FAIL callers.txt:{n}: not `FILE FUNCTION CALL ROUTE WHY`: {line}")
            return 1
        table[tuple(parts[:3])] = (parts[3], parts[4], n)
    npass = nfail = 0
    for key, n in sorted(found.items()):
        if key not in table:
            print(f"FAIL {key[0]}:{n}: {key[2]}() in {key[1]} is not in callers.txt: say how "
                  "the host side makes it safe (a path a sandbox could have written must go "
                  "through hostcheck.h)")
            nfail += 1
            continue
        route, why, _ = table[key]
        if route == "check" and not checks(why.split()[0], bodies):
            print(f"FAIL {key[0]}:{n}: {key[2]}() in {key[1]}: {why.split()[0]} does not "
                  "reach hc_check or hc_open_append")
            nfail += 1
            continue
        npass += 1
    for key, (route, why, n) in sorted(table.items(), key=lambda kv: kv[1][2]):
        if key not in found:
            print(f"FAIL callers.txt:{n}: {' '.join(key)} matches no call any more")
            nfail += 1
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())

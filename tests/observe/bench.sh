#!/bin/bash
# SPDX-License-Identifier: MIT
# What heel-observe costs (BENCHMARKS.md, "The denial observer"):
#  1. a launch of `true` under policies/default.heel three ways, round-
#     robin, ROUNDS launches each, median and mean: without --why
#     ("plain"), --why with heel-observe beside heel-exec ("on": the BPF
#     source), --why without it ("off": heel-why's seccomp listener);
#  2. inside the sandbox, the cost of one refused open() (EACCES,
#     reported) and of one allowed open(), observer on against off;
#  3. on the host, outside any sandbox, the cost of an allowed system
#     call while an observer is attached to some sandbox (set 2's
#     tracepoints run for every process).
# As root. Usage: tests/observe/bench.sh BUILD_DIR [ROUNDS]
set -eu
B=$(cd "${1:-build}" && pwd)
ROUNDS=${2:-30}
T=$(mktemp -d /tmp/heel-observe-bench.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/on" "$T/off" "$T/home"
cp "$B/bin/heel-exec" "$B/bin/heel-why" "$B/bin/heel-observe" "$T/on/"
cp "$B/bin/heel-exec" "$B/bin/heel-why" "$T/off/"
chmod 755 "$T/on" "$T/off" "$T/on"/* "$T/off"/*
"$B/bin/heelc" "$(dirname "$0")/../../policies/default.heel" -o "$T/p.hpol"
export HOME=$T/home XDG_STATE_HOME=$T/home/.local/state PATH=/usr/bin:/bin
cd "$T"

"$T/on/heel-exec" -v --why "$T/p.hpol" -- true 2>&1 | grep 'denial observer' || true

stats() { sort -n | awk '{ v[NR] = $1; s += $1 } END { printf "median %.1f ms, mean %.1f ms, min %.1f ms, max %.1f ms (n=%d)\n", v[int((NR + 1) / 2)], s / NR, v[1], v[NR], NR }'; }
: >"$T/t.on"
: >"$T/t.off"
: >"$T/t.plain"
for i in $(seq "$ROUNDS"); do
	for m in on off plain; do
		d=$m why=--why
		[ $m = plain ] && d=off why=
		s=$EPOCHREALTIME
		"$T/$d/heel-exec" $why "$T/p.hpol" -- true
		e=$EPOCHREALTIME
		echo "$s $e" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >>"$T/t.$m"
	done
done
echo "launch, no --why:                $(stats <"$T/t.plain")"
echo "launch, --why from heel-observe: $(stats <"$T/t.on")"
echo "launch, --why from the listener: $(stats <"$T/t.off")"

cat >"$T/loop.py" <<'PY'
import os, sys, time
path, n = sys.argv[1], int(sys.argv[2])
best = None
for rep in range(5):
    t = time.perf_counter_ns()
    for _ in range(n):
        try:
            os.close(os.open(path, os.O_RDONLY))
        except OSError:
            pass
    d = (time.perf_counter_ns() - t) / n
    best = d if best is None or d < best else best
print("%.0f" % best)
PY
chmod 644 "$T/loop.py"
for m in on off off on; do
	den=$("$T/$m/heel-exec" --why "$T/p.hpol" -- python3 - /etc/shadow 2000 <"$T/loop.py" 2>/dev/null)
	ok=$("$T/$m/heel-exec" --why "$T/p.hpol" -- python3 - /etc/hostname 2000 <"$T/loop.py" 2>/dev/null)
	echo "in the sandbox, --why, heel-observe $m: refused open() $den ns, allowed open() $ok ns (python loop, best of 5 x 2000)"
done

hostloop() { python3 - /etc/hostname 20000 <"$T/loop.py"; }
echo "on the host, no observer: allowed open() $(hostloop) ns"
( sleep 8 | "$B/bin/heel-observe" --pidns 1 >/dev/null 2>&1 ) &
sleep 2
echo "on the host, an observer attached to another PID namespace: allowed open() $(hostloop) ns"
wait

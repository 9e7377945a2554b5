#!/bin/bash
# SPDX-License-Identifier: MIT
# What --why costs, measured round-robin (one run of each variant in
# turn, so a machine busy with other work slows both alike): the launch
# of `heel run -- /bin/true` with and without --why, and the cost per
# watched call (20000 opens of one file in one Python process, less
# the same process without the opens). Prints medians in milliseconds.
#
# Usage: tests/why/bench.sh BUILD_DIR [ROUNDS]
set -u
B=$(cd "${1:-build}" && pwd) || exit 2
N=${2:-30}
HEEL=$B/bin/heel
T=$(mktemp -d /tmp/heel-why-bench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
export HOME=$T

ms() { # ms CMD...: wall time of one run, in milliseconds
	local a b
	a=$(date +%s%N)
	"$@" >/dev/null 2>&1
	b=$(date +%s%N)
	echo $(((b - a) / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'; }

OPENS='for i in range(20000): open("/etc/hostname").close()'
NONE='pass'
for _ in $(seq "$N"); do
	ms "$HEEL" run -- /bin/true >>"$T/plain"
	ms "$HEEL" run --why -- /bin/true >>"$T/why"
	ms "$HEEL" run -- /usr/bin/python3 -c "$OPENS" >>"$T/opens-plain"
	ms "$HEEL" run --why -- /usr/bin/python3 -c "$OPENS" >>"$T/opens-why"
	ms "$HEEL" run -- /usr/bin/python3 -c "$NONE" >>"$T/py-plain"
	ms "$HEEL" run --why -- /usr/bin/python3 -c "$NONE" >>"$T/py-why"
done
plain=$(median <"$T/plain") why=$(median <"$T/why")
op=$(median <"$T/opens-plain") ow=$(median <"$T/opens-why")
pp=$(median <"$T/py-plain") pw=$(median <"$T/py-why")
echo "launch, heel run -- /bin/true: $plain ms; with --why: $why ms ($N rounds, medians)"
awk -v op="$op" -v ow="$ow" -v pp="$pp" -v pw="$pw" 'BEGIN {
	printf "per open(2): %.2f us without --why, %.2f us with it (20000 opens, less python3 alone)\n",
		(op - pp) * 1000 / 20000, (ow - pw) * 1000 / 20000 }'

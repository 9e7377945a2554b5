#!/bin/bash
# SPDX-License-Identifier: MIT
# What `heel run` adds to a launch: heel run with a 20-rule policy made
# of options, against heel-exec with the same policy precompiled (the
# issue's target: at most 1.15x), round-robin (ab_launch) so a slow phase
# of the VM hits every command alike. Three ways: the compile cache hit
# (the usual second run), the cache off (HEEL_NO_CACHE, through env(1),
# whose own exec is in that figure), and heel-exec alone.
# Usage: tests/bench/heel_run.sh BIN OUT   (OUT holds ab_launch)
set -eu
bin=$(cd "$1" && pwd) out=$(mkdir -p "$2" && cd "$2" && pwd)
d=$out/heel-run
rm -rf "$d"
mkdir -p "$d"
args=()
for i in $(seq 1 20); do
	mkdir -p "$d/g$i"
	args+=(--readable "$d/g$i")
done
cd "$d"
"$bin/heel" run --print-policy "${args[@]}" /bin/true >p.heel
"$bin/heelc" p.heel -o p.hpol
echo "heel run policy: $(grep -c '^grant' p.heel) grants of its own (plus the default base)"
"$bin/heel" run "${args[@]}" /bin/true # fills the cache
"$out/ab_launch" 300 "$bin/heel-exec" --cwd "$d" p.hpol -- /bin/true \
	::: "$bin/heel" run "${args[@]}" /bin/true \
	::: /usr/bin/env HEEL_NO_CACHE=1 "$bin/heel" run "${args[@]}" /bin/true |
	tee "$out/heel-run.txt"

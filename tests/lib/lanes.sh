#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs independent commands side by side (each a suite on its own
# binary, sharing nothing: own temporary directories, own state), then
# prints each one's output whole, in the order given, so that the log
# reads as if they had run one after the other. A suite is mostly one
# shell waiting on one launch at a time: two at once use the machine's
# two cores, and CI's time budget is wall-clock.
# Usage: tests/lib/lanes.sh 'CMD1' 'CMD2' ...; exits 1 if any failed.
set -u
d=$(mktemp -d /tmp/heel-lanes.XXXXXX) || exit 1
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
trap 'exit 130' INT TERM
i=0
for cmd in "$@"; do
	bash -c "$cmd" >"$d/$i.out" 2>&1 &
	echo $! >"$d/$i.pid"
	i=$((i + 1))
done
rc=0
for ((k = 0; k < i; k++)); do
	wait "$(cat "$d/$k.pid")" || rc=1
	cat "$d/$k.out"
done
exit $rc

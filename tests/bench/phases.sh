#!/bin/bash
# SPDX-License-Identifier: MIT
# Where a launch's time goes: runs build/bench/heel-exec-timing (heel-exec
# with the phase marks of launcher/launch_timing.h) RUNS times and prints
# the mean time from each mark to the next as a markdown table. With more
# than one policy the launches run round-robin (A B A B ...) and each
# policy has a column: a phase of the machine hits every policy alike.
# usage: phases.sh HEEL_EXEC_TIMING POLICY.hpol CMD [RUNS [POLICY.hpol...]]
set -euo pipefail
bin=$1 cmd=$3 runs=${4:-50}
policies=("$2" "${@:5}")
for ((i = 0; i < runs; i++)); do
	for p in "${!policies[@]}"; do
		"$bin" "${policies[p]}" -- "$cmd" 2>&1 >/dev/null | grep '^heel-timing ' |
			sed "s/^/$p /" || true
		echo "$p end"
	done
done | awk -v names="$(for p in "${policies[@]}"; do basename "$p"; done)" '
	BEGIN { np = split(names, name, "\n") }
	$2 == "end" { prev[$1] = 0; last[$1] = ""; next }
	{
		p = $1; t = $3; phase = $0
		sub(/^[0-9]+ heel-timing [0-9]+ [0-9]+ /, "", phase)
		# A mark only one policy has goes after the mark before it.
		if (!(phase in seen)) {
			at = n + 1
			for (i = 1; i <= n; i++) if (order[i] == last[p]) at = i + 1
			for (i = ++n; i > at; i--) order[i] = order[i - 1]
			order[at] = phase; seen[phase] = 1
		}
		if (prev[p]) { sum[p, phase] += t - prev[p]; cnt[p, phase]++ }
		prev[p] = t; last[p] = phase
	}
	END {
		if (np == 1) {
			print "| phase (mark reached) | mean µs |"
			print "|:---|---:|"
		} else {
			printf "| phase (mark reached)"
			for (p = 1; p <= np; p++) printf " | %s mean µs", name[p]
			printf " |\n|:---"
			for (p = 1; p <= np; p++) printf "|---:"
			printf "|\n"
		}
		for (i = 1; i <= n; i++) {
			ph = order[i]; row = ""; any = 0
			for (p = 0; p < np; p++) {
				if (cnt[p, ph]) {
					v = sum[p, ph] / cnt[p, ph]; total[p] += v; any = 1
					row = row sprintf(" | %d", v)
				} else {
					row = row " | –"
				}
			}
			if (any) printf "| %s%s |\n", ph, row
		}
		printf "| **from start to the last mark**"
		for (p = 0; p < np; p++) printf " | **%d**", total[p]
		printf " |\n"
	}'

#!/bin/bash
# SPDX-License-Identifier: MIT
# Where a launch's time goes: runs build/bench/heel-exec-timing (heel-exec
# with the phase marks of launcher/launch_timing.h) RUNS times and prints
# the mean time from each mark to the next as a markdown table.
# usage: phases.sh HEEL_EXEC_TIMING POLICY.hpol CMD [RUNS]
set -euo pipefail
bin=$1 policy=$2 cmd=$3 runs=${4:-50}
for ((i = 0; i < runs; i++)); do
	"$bin" "$policy" -- "$cmd" 2>&1 >/dev/null | grep '^heel-timing ' || true
	echo end
done | awk '
	$1 == "end" { prev = 0; next }
	{
		t = $2; phase = $0
		sub(/^heel-timing [0-9]+ [0-9]+ /, "", phase)
		if (!(phase in seen)) { seen[phase] = ++n; name[n] = phase }
		if (prev) { sum[phase] += t - prev; cnt[phase]++ }
		prev = t
	}
	END {
		print "| phase (mark reached) | mean µs |"
		print "|:---|---:|"
		for (i = 2; i <= n; i++) {
			p = name[i]
			if (cnt[p]) { printf "| %s | %d |\n", p, sum[p] / cnt[p]; total += sum[p] / cnt[p] }
		}
		printf "| **from start to the last mark** | **%d** |\n", total
	}'

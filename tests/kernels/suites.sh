#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs inside a kernel guest (tests/kernels/run.sh boots it): the
# project's suites against the host's build tree, as root; each suite runs
# its own cases as root and as uid 65534. Every suite's output goes to the
# console (the host's log), followed by result lines the host parses:
#   @@heel result suite=S user=U passed=N failed=N skipped=N
#   @@heel suite suite=S rc=N seconds=N total="N passed, N failed, N skipped"
# user is root, 65534, or "-" for checks that belong to no user (run once,
# as root). A suite that crashes or prints no summary line counts one
# failure more, so it cannot pass by saying nothing.
#
# Usage: tests/kernels/suites.sh [-j] BUILD_DIR SUITE...
#   SUITE: launcher | observe | conformance:BINARY (BINARY in BUILD_DIR/bin)
#          | conformance:BINARY:GLOB (only the cases GLOB selects)
#   -j:    the launcher suite beside the conformance runs, not after them
#          (a TCG guest runs one suite on about one vCPU, and these two
#          share no names, ports or processes); each one's output is
#          printed when it is done. Conformance runs stay one after the
#          other: each kills the other's daemons (sleep 7xxxx) on exit.
# Exit: 0 when every suite passed.
set -u

par=
if [ "${1:-}" = -j ]; then par=1; shift; fi
[ $# -ge 2 ] || { echo "usage: $0 [-j] BUILD_DIR SUITE..." >&2; exit 2; }
B=$(realpath "$1") || exit 2
shift
HERE=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d /tmp/heel-kernel-suites.XXXXXX)
status=0

# counts FILE SUITE RC: the result lines of one suite's output.
counts() {
	awk -v suite="$2" -v rc="$3" '
	/^(ok|PASS|FAIL|SKIP) / {
		st = ($1 == "FAIL") ? "failed" : ($1 == "SKIP") ? "skipped" : "passed"
		u = "-"
		# A case'"'"'s user is its first [root...] / [nobody...] / [65534...] tag.
		if (match($0, /\[(root|nobody|65534)[]\/]/)) {
			u = substr($0, RSTART + 1, RLENGTH - 2)
			if (u == "nobody") u = "65534"
		}
		n[u, st]++; seen[u] = 1; tot[st]++
	}
	/^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ { summary = $0; sp = $1; sf = $3; ss = $5 }
	END {
		if (summary == "") {
			n["-", "failed"]++; seen["-"] = 1
			print "no summary line: the suite did not finish" > "/dev/stderr"
		} else if (sp != tot["passed"] + 0 || sf != tot["failed"] + 0 || ss != tot["skipped"] + 0) {
			# Lines the parser missed: the difference goes to "-" so the
			# totals are the suite'"'"'s own.
			n["-", "passed"] += sp - tot["passed"]
			n["-", "failed"] += sf - tot["failed"]
			n["-", "skipped"] += ss - tot["skipped"]
			seen["-"] = 1
		}
		if (rc != 0 && n["root", "failed"] + n["65534", "failed"] + n["-", "failed"] == 0) {
			n["-", "failed"]++; seen["-"] = 1
			print "exit status " rc " with no failure counted: one failure more" > "/dev/stderr"
		}
		split("root 65534 -", order, " ")
		for (i = 1; i <= 3; i++) {
			u = order[i]
			if (!(u in seen)) continue
			printf "@@heel result suite=%s user=%s passed=%d failed=%d skipped=%d\n",
				suite, u, n[u, "passed"], n[u, "failed"], n[u, "skipped"]
		}
	}' "$1"
}

# run_one SUITE: runs it, its output to $OUT/SUITE.out (and the console
# unless -j), its status and time to $OUT/SUITE.rc and .secs.
run_one() {
	local s=$1 t0 rc cmd
	case $s in
	launcher) cmd=(bash "$HERE/launcher/run.sh" "$B") ;;
	observe) cmd=(bash "$HERE/observe/run.sh" "$B") ;;
	conformance:*:*) # conformance:BINARY:GLOB, the cases the glob selects
		local rest=${s#conformance:}
		cmd=(bash "$HERE/conformance/run.sh" "$B/bin/heelc" "$B/bin/${rest%%:*}" "$B/conformance" "${rest#*:}") ;;
	conformance:*) cmd=(bash "$HERE/conformance/run.sh" "$B/bin/heelc" "$B/bin/${s#conformance:}" "$B/conformance") ;;
	*) echo "unknown suite $s" >"$OUT/$s.out"; echo 2 >"$OUT/$s.rc"; echo 0 >"$OUT/$s.secs"; return ;;
	esac
	t0=$(date +%s)
	if [ -n "$par" ]; then
		"${cmd[@]}" </dev/null >"$OUT/$s.out" 2>&1
		rc=$?
	else
		"${cmd[@]}" </dev/null 2>&1 | tee "$OUT/$s.out"
		rc=${PIPESTATUS[0]}
	fi
	echo "$rc" >"$OUT/$s.rc"
	echo $(($(date +%s) - t0)) >"$OUT/$s.secs"
	# Progress for the host (boot.sh shows these lines as they come).
	echo "@@heel done suite=$s rc=$rc seconds=$(cat "$OUT/$s.secs")"
}

report() {
	local s=$1 rc total
	rc=$(cat "$OUT/$s.rc" 2>/dev/null || echo 127)
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$OUT/$s.out" | tail -1)
	counts "$OUT/$s.out" "$s" "$rc"
	echo "@@heel suite suite=$s rc=$rc seconds=$(cat "$OUT/$s.secs" 2>/dev/null || echo 0) total=\"$total\""
}

# stream SUITE...: runs them one after the other, each one's output and
# result lines printed as soon as it ends (so a guest that dies later
# still reports what finished), one suite at a time on the console.
stream() {
	local s
	for s in "$@"; do
		run_one "$s"
		{
			flock 9
			echo "@@heel output suite=$s"
			cat "$OUT/$s.out"
			report "$s"
		} 9>"$OUT/.console"
	done
}

for s in "$@"; do echo "@@heel begin suite=$s"; done
if [ -n "$par" ]; then
	conf=() other=()
	for s in "$@"; do
		case $s in conformance:*) conf+=("$s") ;; *) other+=("$s") ;; esac
	done
	stream "${other[@]}" &
	stream "${conf[@]}" &
	wait
else
	for s in "$@"; do
		run_one "$s"
		report "$s"
	done
fi
for s in "$@"; do
	[ "$(cat "$OUT/$s.rc" 2>/dev/null)" = 0 ] || status=1
done
rm -rf "$OUT"
exit $status

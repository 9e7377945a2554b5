#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel matrix: boots each of Debian's kernels in turn
# (tests/kernels/boot.sh) and runs the launcher and conformance suites in
# it (tests/kernels/suites.sh), then prints a table of kernel x suite x
# user with pass/fail/skip counts and times, also written to
# BUILD_DIR/kernels/matrix.md. Each guest's whole console output is
# BUILD_DIR/kernels/<series>.log.
#
# Usage: tests/kernels/run.sh BUILD_DIR SERIES...   (e.g. build 6.1 6.12)
# Env:   HEEL_KERNEL_SUITES (default "launcher observe conformance:heel-exec"; the
#        conformance suite once per heel-exec binary named),
#        HEEL_KERNEL_PARALLEL (1: the suites at the same time in the guest,
#        the default; 0: one after the other), and those of boot.sh and
#        fetch.sh.
# Exit:  0 when every suite passed on every kernel.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR SERIES..." >&2; exit 2; }
B=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
SUITES=${HEEL_KERNEL_SUITES:-launcher observe conformance:heel-exec}
JOBS=()
[ "${HEEL_KERNEL_PARALLEL:-1}" = 0 ] || JOBS=(-j)
OUT=$B/kernels
mkdir -p "$OUT"
CACHE=${HEEL_KERNEL_CACHE:-${HOME:-/root}/.cache/heel-kernels}
export HEEL_KERNEL_CACHE=$CACHE

# Everything is fetched first, so a missing kernel fails before the first
# long guest run, not after it.
bash "$HERE/fetch.sh" "$@"

fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
field() { sed -n "s/.*[ ]$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

rows=() guests=() failed_any=0
for k in "$@"; do
	log=$OUT/$k.log
	echo "== kernel $k: $(sed -n 's/^package=//p' "$CACHE/kernel-$k/info") $(sed -n 's/^version=//p' "$CACHE/kernel-$k/info") (log: $log)"
	t0=$(date +%s)
	set +e
	# shellcheck disable=SC2086 # SUITES is a list of words
	bash "$HERE/boot.sh" "$k" "$log" -- bash "$HERE/suites.sh" "${JOBS[@]}" "$B" $SUITES
	rc=$?
	set -e
	secs=$(($(date +%s) - t0))
	g=$(grep -m1 '^@@heel guest release=' "$log" || true)
	abi=$(field abi "$g")
	abi=${abi:-?}
	release=$(field release "$g")

	while read -r line; do
		s=$(field suite "$line") u=$(field user "$line")
		st=$(grep -m1 "^@@heel suite suite=$s " "$log" || true)
		ss=$(field seconds "$st")
		rows+=("| $k | $abi | $s | $u | $(field passed "$line") | $(field failed "$line") | $(field skipped "$line") | $(fmt "${ss:-0}") |")
	done < <(grep '^@@heel result ' "$log" || true)
	case $rc in
	0) verdict=passed ;;
	124) verdict="TIMED OUT" ;;
	3) verdict="DIED (no exit status: $(grep -q 'Kernel panic' "$log" && echo panic || echo see log))" ;;
	*) verdict="FAILED (exit $rc)" ;;
	esac
	# A guest that died (hung, panicked) gets a row of its own, as one
	# failure, beside the rows of the suites that ended before it died.
	case $rc in 3 | 124) rows+=("| $k | $abi | (guest died) | - | 0 | 1 | 0 | $(fmt "$secs") |") ;; esac
	[ "$rc" = 0 ] || failed_any=1
	guests+=("| $k | $(sed -n 's/^version=//p' "$CACHE/kernel-$k/info") | ${release:-?} | $abi | $(fmt "$secs") | $verdict |")
	echo "== kernel $k: $verdict in $(fmt "$secs")"
done

{
	echo "| kernel | ABI | suite | user | passed | failed | skipped | time |"
	echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows[@]}"
	echo
	echo "| kernel | package version | release | ABI | guest time | result |"
	echo "| --- | --- | --- | --- | ---: | --- |"
	printf '%s\n' "${guests[@]}"
	echo
	echo "user \"-\": checks that belong to no user (run once, as root). ABI: the Landlock ABI the guest kernel offers."
	echo "QEMU TCG, $(sed -n 's/^version=//p' "$CACHE/virtiofsd/ok"); $(date -u +%Y-%m-%dT%H:%MZ); $(git -C "$HERE" describe --always --dirty 2>/dev/null || echo '?')"
} >"$OUT/matrix.md"
echo
cat "$OUT/matrix.md"
exit $failed_any

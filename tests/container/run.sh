#!/bin/bash
# SPDX-License-Identifier: MIT
# The launcher and escape suites again inside a container-like setting,
# as Docker and Podman give one: a PID namespace of its own (few
# processes, the runner near PID 1), a mount namespace of its own, and
# the host's /proc masked by over-mounts (/proc/keys, /proc/timer_list,
# /proc/kcore where present), which refuses a new /proc to a user
# namespace. Then heel-exec under emulated engine profiles
# (tests/container/engines.sh): Docker's default seccomp profile, its
# AppArmor profile's `deny mount`, a masked /proc. Root only (it makes the
# namespaces).
# Usage: tests/container/run.sh BUILD-DIR
set -u
B=${1:-build}
if [ "$(id -u)" != 0 ]; then
	echo "the container suite makes namespaces and runs as root"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
HERE=$(cd "$(dirname "$0")/../.." && pwd)
inner=$(mktemp /tmp/heel-container.XXXXXX)
cat >"$inner" <<'INNER'
set -u
cd "$1" || exit 1
B=$2
# Mask /proc as Docker does (bind /dev/null over a few files).
for f in /proc/keys /proc/timer_list /proc/kcore /proc/sched_debug; do
	[ -f "$f" ] && mount --bind /dev/null "$f"
done
echo "# in the container: PID $$, $(ls /proc | grep -c '^[0-9]') processes visible"
rc=0
bash tests/launcher/run.sh "$B" >"$3.launcher" 2>&1 || rc=1
tail -1 "$3.launcher"
bash tests/conformance/run.sh "$B/bin/heelc" "$B/bin/heel-exec" "$B/conformance" >"$3.conformance" 2>&1 || rc=1
tail -1 "$3.conformance"
grep -h '^FAIL' "$3.launcher" "$3.conformance" | head -20
exit $rc
INNER
out=$(mktemp /tmp/heel-container-out.XXXXXX)
unshare --pid --fork --mount --propagation private --mount-proc bash "$inner" "$HERE" "$B" "$out"
rc=$?
bash "$HERE/tests/container/engines.sh" "$B" >"$out.engines" 2>&1 || rc=1
grep -B1 '^FAIL' "$out.engines" | grep -v '^ok ' | head -40
echo "# engine profiles: $(tail -1 "$out.engines")"
# One closing line over the three.
p=0 f=0 s=0
for x in launcher conformance engines; do
	read -r a _ b _ c _ < <(tail -1 "$out.$x" | sed 's/,//g')
	p=$((p + ${a:-0})) f=$((f + ${b:-0})) s=$((s + ${c:-0}))
done
[ "$rc" = 0 ] || [ "$f" != 0 ] || f=1
rm -f "$inner" "$out" "$out.launcher" "$out.conformance" "$out.engines"
echo "container: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]

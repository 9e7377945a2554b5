#!/bin/bash
# SPDX-License-Identifier: MIT
# Boots one Debian kernel in QEMU (TCG) on the host's own / and runs one
# command in it as root, from the current directory.
#
# The guest sees the host's / read-only through virtiofs, under an overlay
# whose writes stay in guest memory: it runs the host's bash, coreutils
# and the build tree as they are, and changes nothing on the host. The
# command's output and its exit status come back on the serial console,
# the status between markers ("@@heel guest-exit=N"); a guest that hangs,
# panics or dies before that marker is a failure (timeout bounds it).
#
# Usage: tests/kernels/boot.sh SERIES LOG -- COMMAND [ARG...]
#   SERIES: 6.1, 6.12, 7.3... (fetched by tests/kernels/fetch.sh)
#   LOG:    the guest's whole console output
# Exit: the command's status in the guest; 124 on timeout; 3 when the
# guest ended without reporting one.
# Env: HEEL_KERNEL_TIMEOUT (seconds, default 1800), HEEL_KERNEL_MEM (MiB,
#      default 1024), HEEL_KERNEL_SMP (default 2), HEEL_KERNEL_CACHE,
#      HEEL_KERNEL_APPEND (more kernel command line).
set -euo pipefail

[ $# -ge 4 ] && [ "$3" = -- ] || { echo "usage: $0 SERIES LOG -- COMMAND [ARG...]" >&2; exit 2; }
SERIES=$1 LOG=$2
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${HEEL_KERNEL_CACHE:-${HOME:-/root}/.cache/heel-kernels}
export HEEL_KERNEL_CACHE=$CACHE
TIMEOUT=${HEEL_KERNEL_TIMEOUT:-1800}
MEM=${HEEL_KERNEL_MEM:-1024}
SMP=${HEEL_KERNEL_SMP:-2}
die() { echo "tests/kernels/boot.sh: $*" >&2; exit 2; }

[ "$(id -u)" = 0 ] || die "needs root (virtiofsd shares the host's / with the guest's root)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (make deps-check installs qemu-system-x86)"
bash "$HERE/fetch.sh" "$SERIES"
K=$CACHE/kernel-$SERIES
V=$CACHE/virtiofsd/ok
vfs_ld=$(sed -n 's/^ld=//p' "$V") vfs_lp=$(sed -n 's/^libpath=//p' "$V") vfs_bin=$(sed -n 's/^bin=//p' "$V")

mkdir -p "$(dirname "$LOG")"
LOG=$(realpath "$LOG")
OUTDIR=$(dirname "$LOG")
INITRD=$OUTDIR/initrd-$SERIES.cpio.gz
bash "$HERE/initramfs.sh" "$K" "$INITRD"

# The job: a script on the host's tree, which the guest sees at the same
# path. The kernel command line carries only its path.
JOB=$OUTDIR/job-$SERIES.sh
# Both paths go on the kernel command line, which splits at blanks.
for p in "$HERE" "$JOB"; do
	case $p in *[[:space:]]*) die "$p has a blank: the kernel command line cannot carry it" ;; esac
done
{
	echo "cd $(printf '%q' "$PWD") || exit 126"
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$JOB"

RUN=$(mktemp -d /tmp/heel-kernel.XXXXXX)
VPID=
cleanup() {
	if [ -n "$VPID" ]; then kill "$VPID" 2>/dev/null || true; fi
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# virtiofsd: --sandbox none because the host may not allow it namespaces
# of its own; it is root and shares / read-only with root in the guest.
# Submounts are not announced: the guest sees one tree, which the
# overlay needs for its lower layer. The host's tree does not change
# during a run, so the guest may cache it fully (fewer round trips).
SOCK=$RUN/vfs.sock
"$vfs_ld" --library-path "$vfs_lp" "$vfs_bin" --socket-path="$SOCK" --shared-dir=/ \
	--readonly --sandbox=none --cache=always --no-announce-submounts \
	--log-level=error >"$RUN/virtiofsd.log" 2>&1 &
VPID=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { cat "$RUN/virtiofsd.log" >&2; die "virtiofsd did not start"; }

# TCG only: /dev/kvm may exist but not work. -cpu max without cx16: some
# kernels (6.12) do not boot on TCG's cx16. No network device: the guest
# has only its loopback. mitigations=off: the guest is throw-away and
# TCG pays dearly for the page-table and speculation barriers.
# tsc=reliable: TCG's TSC is the host's, but the clocksource watchdog,
# comparing it with emulated timers that lag on a busy host, may call it
# unstable; the kernel then patches its sched_clock code on the fly, and
# a 6.18 guest died of that (an int3 Oops in sched_clock_cpu: TCG ran the
# half-patched code on the other vCPU).
APPEND="console=ttyS0 panic=-1 loglevel=4 mitigations=off tsc=reliable"
APPEND+=" heel.init=$HERE/guest.sh heel.job=$JOB"
# More of the guest's kernel command line, e.g. an lsm= without landlock.
APPEND+="${HEEL_KERNEL_APPEND:+ $HEEL_KERNEL_APPEND}"
start=$(date +%s)
set +e
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
	-accel tcg -cpu max,-cx16 -smp "$SMP" -m "$MEM" \
	-nodefaults -no-user-config -display none -nic none -no-reboot \
	-serial stdio -monitor none \
	-kernel "$K/vmlinuz" -initrd "$INITRD" -append "$APPEND" \
	-object memory-backend-memfd,id=mem,size="${MEM}M",share=on -numa node,memdev=mem \
	-chardev socket,id=char0,path="$SOCK" \
	-device vhost-user-fs-pci,chardev=char0,tag=hostroot \
	</dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$LOG" |
	{ grep --line-buffered -E '^@@heel (done|guest-exit)' | sed -u 's/^@@heel /   /' || true; }
qrc=${PIPESTATUS[0]}
set -e
secs=$(($(date +%s) - start))

rc=$(sed -n 's/^@@heel guest-exit=\([0-9]*\)$/\1/p' "$LOG" | tail -1)
{
	echo "@@heel host qemu-exit=$qrc seconds=$secs"
	if [ -s "$RUN/virtiofsd.log" ]; then sed 's/^/virtiofsd: /' "$RUN/virtiofsd.log"; fi
} >>"$LOG"
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "tests/kernels/boot.sh: kernel $SERIES: timed out after ${TIMEOUT}s (log: $LOG)" >&2
	exit 124
fi
if [ -z "$rc" ]; then
	why="no exit status reported"
	grep -q 'Kernel panic' "$LOG" && why="kernel panic"
	echo "tests/kernels/boot.sh: kernel $SERIES: $why, qemu exit $qrc (log: $LOG)" >&2
	exit 3
fi
exit "$rc"

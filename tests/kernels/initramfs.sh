#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the initramfs of one cached kernel (tests/kernels/fetch.sh): a
# static busybox, the kernel's modules that are not built in, and an init
# that mounts the host's / (virtiofs, read-only) under an overlay whose
# upper layer is guest memory, then switch_roots into it and hands over
# to tests/kernels/guest.sh, which lives on the host and so needs no
# rebuild of the initramfs when it changes.
#
# Usage: tests/kernels/initramfs.sh KERNEL_CACHE_DIR OUT.cpio.gz
# Rebuilt only when its inputs are newer than OUT.
set -euo pipefail

K=$1 OUT=$2
BUSYBOX=${HEEL_BUSYBOX:-/usr/bin/busybox}
die() { echo "tests/kernels/initramfs.sh: $*" >&2; exit 1; }
[ -s "$K/info" ] || die "$K is not a fetched kernel (run tests/kernels/fetch.sh)"
[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing (install busybox-static)"
# A dynamic busybox would need a libc inside the initramfs.
if command -v readelf >/dev/null && LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP; then
	die "$BUSYBOX is dynamically linked: install busybox-static"
fi

SELF=$(realpath "$0")
if [ -s "$OUT" ] && [ "$OUT" -nt "$K/info" ] && [ "$OUT" -nt "$SELF" ] && [ "$OUT" -nt "$BUSYBOX" ]; then
	exit 0
fi

S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S"/{bin,dev,proc,sys,host,ovl,newroot,modules}
cp "$BUSYBOX" "$S/bin/busybox"
cp "$K"/modules/*.ko "$S/modules/" 2>/dev/null || true
cp "$K/load-order" "$S/load-order"

# The init: busybox sh, every command spelled "busybox X" so no applet
# links are needed. A failure prints why and powers off: the host sees no
# end marker and counts the guest as failed.
cat >"$S/init" <<'EOF'
#!/bin/busybox sh
B=/bin/busybox
$B mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
$B mount -t proc proc /proc
fail() { echo "heel-initramfs: $*"; $B poweroff -f; $B sleep 5; exit 1; }
for m in $($B cat /load-order); do
	$B insmod /modules/$m.ko || fail "insmod $m failed"
done
$B mount -t virtiofs -o ro hostroot /host || fail "cannot mount the host's / (virtiofs tag hostroot)"
# The writable layer is guest memory: nothing the guest writes reaches
# the host. /tmp is part of the overlay (not a tmpfs of its own) so that
# hard links between /tmp and the rest of the tree stay on one fs.
$B mount -t tmpfs -o mode=755 tmpfs /ovl || fail "tmpfs"
$B mkdir -p /ovl/upper /ovl/work
$B mount -t overlay overlay -o lowerdir=/host,upperdir=/ovl/upper,workdir=/ovl/work /newroot ||
	fail "cannot mount the overlay over the host's /"
init=
for a in $($B cat /proc/cmdline); do
	case $a in heel.init=*) init=${a#heel.init=} ;; esac
done
[ -n "$init" ] || fail "no heel.init= on the kernel command line"
[ -f "/newroot$init" ] || fail "$init: not found in the host's tree"
$B mount --move /dev /newroot/dev || fail "cannot move /dev"
$B umount /proc
exec $B switch_root /newroot /bin/bash "$init"
EOF
chmod 755 "$S/init"

tmp=$OUT.tmp.$$
(cd "$S" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0 | gzip -1) >"$tmp"
mv "$tmp" "$OUT"

#!/bin/bash
# SPDX-License-Identifier: MIT
# PID 1 of a kernel guest (tests/kernels/boot.sh), started by the
# initramfs's init on the host's / (read-only, under an overlay whose
# writes stay in guest memory). Sets up what a Debian host has and the
# suites rely on, runs the job named by heel.job= on the kernel command
# line, prints its exit status between markers on the console, and
# powers off. Its output is the serial console, i.e. the host's log.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb USER=root LOGNAME=root SHELL=/bin/bash
# heel-exec's record of writable places (heel(5), WHAT PERSISTS BETWEEN
# RUNS): the guest's own, not the host's root's as the boot found it.
export XDG_STATE_HOME=/tmp/heel-guest-state
# The suites may leave out what a 1 GiB guest cannot carry (they say so).
export HEEL_KERNEL_GUEST=1
B=/usr/bin/busybox

note() { echo "heel-guest: $*"; }
mnt() { mount "$@" || note "mount $* failed"; }

mnt -t proc proc /proc
mnt -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm /dev/mqueue
# ptyrun (conformance) needs ptys of the guest's own.
mnt -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
mnt -t tmpfs -o mode=1777 tmpfs /dev/shm
mnt -t mqueue mqueue /dev/mqueue
# cgroup v2, with the controllers heel's limits use delegated below the
# root, so cgroup limits are exercised for real.
mnt -t cgroup2 cgroup2 /sys/fs/cgroup
for c in pids memory cpu; do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || note "cgroup controller $c not available"
done
chmod 1777 /tmp
# /run as on a Debian host: the guest's own, not the host's pid files.
mnt -t tmpfs -o mode=755,nosuid,nodev tmpfs /run
hostname heel-guest 2>/dev/null || $B hostname heel-guest
# Network tests need a loopback that is up.
$B ip link set lo up || note "cannot bring lo up"
# Debian's newer kernels default to 3, which refuses perf_event_open to
# users; a control in the conformance suite needs it to work outside the
# sandbox, as on a usual host.
echo 2 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null || true
# Keep kernel chatter (audit notices) out of the result lines; errors
# and worse still show.
echo 4 >/proc/sys/kernel/printk 2>/dev/null || true

job=
for a in $(cat /proc/cmdline); do
	case $a in heel.job=*) job=${a#heel.job=} ;; esac
done

# The Landlock ABI the kernel offers: landlock_create_ruleset(NULL, 0,
# LANDLOCK_CREATE_RULESET_VERSION); "none" where there is no Landlock.
abi=$(perl -e 'my $r = syscall(444, 0, 0, 1); print $r > 0 ? $r : "none"' 2>/dev/null || echo "?")
echo "@@heel guest release=$(uname -r) abi=$abi cpus=$(nproc) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"

rc=127
if [ -z "$job" ] || ! [ -f "$job" ]; then
	note "no job (heel.job=$job)"
else
	# A child, not exec: PID 1 must stay to reap orphans (bash reaps
	# whatever it is sent SIGCHLD for while it waits) and to power off.
	bash "$job" </dev/null &
	wait $!
	rc=$?
fi
echo "@@heel guest-exit=$rc"
sync
$B poweroff -f

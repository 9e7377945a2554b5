#!/bin/bash
# SPDX-License-Identifier: MIT
# The privileged denial observer (heel-observe, docs/observe.md) against
# the real launcher: one refused action per wall, each of which must be
# reported once with the right op, path (or address) and errno; the same
# action where it is allowed, reported nothing (the control: the line is
# heel-observe's, not any error's); a whole `make` of a small C project,
# reported nothing; refusals of processes outside the sandbox, made while
# it runs (on the host, or in another sandbox with its own observer),
# never reported. As root only: loading BPF needs it (or
# CAP_BPF and CAP_PERFMON). Where the kernel refuses the program the
# suite says so by name and skips.
#
# Usage: tests/observe/run.sh BUILD_DIR [CASE-GLOB]
# Prints one line per case and "N passed, N failed, N skipped"; exits 1
# on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
npass=0 nfail=0 nskip=0

for f in heelc heel-exec heel-why; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
if [ ! -x "$B/bin/heel-observe" ]; then
	echo "heel-observe is not built here: it needs libbpf, bpftool, clang (make deps-observe) and a kernel with BTF"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "the observer suite runs as root (loading BPF needs it)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

T=$(mktemp -d /tmp/heel-observe.XXXXXX) || exit 1
chmod 755 "$T"
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# heel's programs where no sandbox can change them (the host-side check
# runs heel-observe only from such a place).
mkdir -p "$T/bin"
cp "$B/bin/heelc" "$B/bin/heel-exec" "$B/bin/heel-why" "$B/bin/heel-observe" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
HX=$T/bin/heel-exec
"$T/bin/heelc" "$(dirname "$0")/../../policies/default.heel" -o "$T/default.hpol" || exit 1
cat >"$T/deny-personality.heel" <<'POL'
heel 1
isolation default
on linux {
    seccomp deny "personality"
}
POL
"$T/bin/heelc" "$T/deny-personality.heel" -o "$T/personality.hpol" || exit 1

# Is the observer on here at all? If not, why, by name. (Each launch
# has a home, and so a record of writable places, of its own: a kernel
# guest sets XDG_STATE_HOME for the whole machine.)
mkdir -p "$T/home0"
state=$(cd "$T" && HOME=$T/home0 XDG_STATE_HOME=$T/home0/.local/state PATH=/usr/bin:/bin "$HX" -v --why "$T/default.hpol" -- true 2>&1 |
	grep 'denial observer:' | head -1)
case $state in
*"observer: on"*) echo "# $state" ;;
*)
	echo "# ${state:-heel-exec said nothing of the denial observer}"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
	;;
esac

# ---------------------------------------------------------------- helpers
PROB="" CASE="" OUT="" N=0
begin() { PROB=""; CASE=$1; N=$((N + 1)); }
prob() { PROB="${PROB:+$PROB; }$*"; }
finish() {
	if [ -n "$PROB" ]; then
		echo "FAIL $CASE: $PROB"
		nfail=$((nfail + 1))
	else
		echo "PASS $CASE"
		npass=$((npass + 1))
	fi
}

# run POLICY CMD...: heel-exec -vv in a fresh home and launch directory;
# the command's own output in $OUT, the observer's lines in $T/lines.
run() {
	local pol=$1 d=$T/case$N
	shift
	mkdir -p "$d/home" "$d/launch"
	OUT=$(cd "$d/launch" && HOME=$d/home XDG_STATE_HOME=$d/home/.local/state PATH=/usr/bin:/bin "$HX" -vv --why "$pol" -- "$@" 2>"$d/err")
	RC=$?
	sed -n 's/^heel-exec: denial: //p' "$d/err" >"$T/lines"
	grep -q 'denial observer: on' "$d/err" || prob "the observer was not on: $(grep 'denial observer' "$d/err")"
}

# field NAME LINE: the value of a string or number field of a JSON line.
field() {
	python3 -c 'import json,sys; v=json.loads(sys.argv[2]).get(sys.argv[1]); print("" if v is None else v)' "$1" "$2"
}

# expect OP ERRNO_NAME (path|addr) VALUE: exactly one line has them all.
expect() {
	local op=$1 en=$2 key=$3 val=$4 n=0 line
	while IFS= read -r line; do
		[ "$(field op "$line")" = "$op" ] && [ "$(field errno_name "$line")" = "$en" ] &&
			[ "$(field "$key" "$line")" = "$val" ] && n=$((n + 1))
	done <"$T/lines"
	[ "$n" = 1 ] || prob "expected one $op $en $key=$val, got $n among: $(tr '\n' ' ' <"$T/lines")"
}

none() {
	[ -s "$T/lines" ] && prob "expected no refusal reported, got: $(tr '\n' ' ' <"$T/lines")"
}

want() { case $CASE in $ONLY) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- cases
if want read_denied; then
	begin read_denied
	# The host's own secret, under a grant of /etc (Landlock deny).
	run "$T/default.hpol" sh -c 'cat /etc/shadow >/dev/null 2>&1; echo rc=$?'
	[ "$OUT" = "rc=1" ] || prob "cat /etc/shadow was not refused ($OUT)"
	expect open EACCES path /etc/shadow
	finish
	begin read_allowed
	run "$T/default.hpol" sh -c 'cat /etc/hostname >/dev/null; echo rc=$?'
	[ "$OUT" = "rc=0" ] || prob "cat /etc/hostname failed ($OUT)"
	none
	finish
fi

if want write_outside; then
	begin write_outside
	run "$T/default.hpol" sh -c 'echo x >/opt/heel-observe-x 2>/dev/null; echo rc=$?'
	[ "$OUT" = "rc=2" ] || prob "the write to /opt was not refused ($OUT)"
	[ -e /opt/heel-observe-x ] && prob "/opt/heel-observe-x was written"
	expect open EROFS path /opt/heel-observe-x
	finish
	begin write_inside
	run "$T/default.hpol" sh -c 'echo x >./here && cat ./here'
	[ "$OUT" = "x" ] || prob "the write to the working directory failed ($OUT)"
	none
	finish
fi

if want exec_writable; then
	begin exec_writable
	# The working directory is writable, so nothing there runs.
	run "$T/default.hpol" sh -c 'cp /usr/bin/true ./t && ./t 2>/dev/null; echo rc=$?; pwd'
	wd=$(echo "$OUT" | sed -n 2p)
	[ "$(echo "$OUT" | head -1)" = "rc=126" ] || prob "./t ran ($OUT)"
	expect exec EACCES path "$wd/t"
	finish
	begin exec_system
	run "$T/default.hpol" sh -c '/usr/bin/true; echo rc=$?'
	[ "$OUT" = "rc=0" ] || prob "/usr/bin/true did not run ($OUT)"
	none
	finish
fi

if want chmod_readonly; then
	begin chmod_readonly
	run "$T/default.hpol" sh -c 'chmod 0700 /usr/bin/true 2>/dev/null; echo rc=$?'
	[ "$OUT" = "rc=1" ] || prob "chmod on /usr was not refused ($OUT)"
	[ "$(stat -c %a /usr/bin/true)" = 755 ] || prob "/usr/bin/true changed mode"
	expect chmod EROFS path /usr/bin/true
	finish
	begin chmod_workdir
	run "$T/default.hpol" sh -c 'echo x >f && chmod 0600 f && stat -c %a f'
	[ "$OUT" = "600" ] || prob "chmod in the working directory failed ($OUT)"
	none
	finish
fi

if want connect_deny; then
	begin connect_deny
	# network deny: the sandbox's network namespace has its own loopback
	# and no route, so nothing leaves it (192.0.2.1 is TEST-NET-1).
	run "$T/default.hpol" bash -c 'exec 3<>/dev/tcp/192.0.2.1/80 2>/dev/null; echo rc=$?'
	[ "$OUT" = "rc=1" ] || prob "the connection was not refused ($OUT)"
	expect connect ENETUNREACH addr 192.0.2.1:80
	finish
	begin connect_loopback
	# The sandbox's own loopback, no listener: ECONNREFUSED is an answer,
	# not a wall.
	run "$T/default.hpol" python3 -c 'import socket
try:
    socket.create_connection(("127.0.0.1", 9), timeout=2)
    print("connected")
except ConnectionRefusedError:
    print("refused")'
	[ "$OUT" = "refused" ] || prob "the connection to a closed port was not refused by the port ($OUT)"
	none
	finish
fi

if want seccomp_denied; then
	begin seccomp_denied
	# personality(0xffffffff) only asks; the policy's seccomp rule refuses
	# it (EPERM, heel(5) seccomp deny).
	run "$T/personality.hpol" python3 -c 'import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(135, 0xffffffff)
print("rc=%d errno=%d" % (r, ctypes.get_errno()))'
	[ "$OUT" = "rc=-1 errno=1" ] || prob "personality was not refused ($OUT)"
	n=0
	while IFS= read -r line; do
		[ "$(field op "$line")" = syscall ] && [ "$(field syscall_name "$line")" = personality ] &&
			[ "$(field errno_name "$line")" = EPERM ] && [ "$(field hook "$line")" != sys_exit ] && n=$((n + 1))
	done <"$T/lines"
	[ "$n" = 1 ] || prob "expected one seccomp refusal of personality, got: $(tr '\n' ' ' <"$T/lines")"
	finish
	begin seccomp_allowed
	run "$T/default.hpol" python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("rc=%d" % libc.syscall(135, 0xffffffff))'
	case $OUT in rc=-1) prob "personality was refused under a policy that allows it" ;; esac
	none
	finish
fi

if want make_clean; then
	begin make_clean
	# A whole build: compiler, linker, make's own probing. Nothing refused.
	run "$T/default.hpol" sh -c 'mkdir p && cd p &&
printf "#include <stdio.h>\nint main(void) { puts(\"built\"); return 0; }\n" >hello.c &&
printf "#include <stdio.h>\nvoid f(void) { puts(\"f\"); }\n" >f.c &&
printf "hello: hello.o f.o\n\t\$(CC) -o \$@ hello.o f.o\nclean:\n\trm -f hello *.o\n" >Makefile &&
make -s >/dev/null && make -s clean && make -s >/dev/null && ls hello'
	[ "$OUT" = "hello" ] || prob "the build failed ($OUT)"
	none
	finish
fi

if want outside_not_reported; then
	begin outside_not_reported
	# Refusals made on the host, by root's and nobody's processes, while
	# a sandbox runs: none of them is the sandbox's.
	(
		sleep 0.5
		for i in 1 2 3; do
			setpriv --reuid=65534 --regid=65534 --clear-groups cat /etc/shadow 2>/dev/null
			setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo x >/root/heel-observe-x' 2>/dev/null
		done
	) &
	host=$!
	run "$T/default.hpol" sh -c 'sleep 2; echo done'
	wait "$host"
	[ "$OUT" = "done" ] || prob "the sandbox did not run ($OUT)"
	none
	finish
fi

if want other_sandbox; then
	begin other_sandbox
	# Two sandboxes at once, each with its own observer: each reports its
	# own refusal and not the other's.
	d2=$T/other
	mkdir -p "$d2/home" "$d2/launch"
	(cd "$d2/launch" && HOME=$d2/home XDG_STATE_HOME=$d2/home/.local/state PATH=/usr/bin:/bin \
		"$HX" -vv --why "$T/default.hpol" -- sh -c 'sleep 0.5; cat /etc/gshadow 2>/dev/null; sleep 1' \
		2>"$d2/err") &
	other=$!
	run "$T/default.hpol" sh -c 'sleep 0.5; cat /etc/shadow 2>/dev/null; sleep 1; echo done'
	wait "$other"
	[ "$OUT" = "done" ] || prob "the sandbox did not run ($OUT)"
	expect open EACCES path /etc/shadow
	grep -q '/etc/gshadow' "$T/lines" && prob "the other sandbox's refusal was reported here"
	sed -n 's/^heel-exec: denial: //p' "$d2/err" >"$T/lines"
	expect open EACCES path /etc/gshadow
	grep -q '"/etc/shadow"' "$T/lines" && prob "this sandbox's refusal was reported by the other's observer"
	finish
fi

echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]

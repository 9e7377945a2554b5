#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo`: compile a stock example policy and run a short sandboxed
# session that shows what is allowed and what the kernel refuses. Every
# line it prints is a result of this run (nothing is a verdict written
# in advance), it works as root and as a user on a machine that gives
# the user no cgroup of its own, and whatever it starts is gone when it
# ends, failures included.
set -uo pipefail
bin=$(realpath "$1")
policy=policies/examples/demo.heel
tmp=$(mktemp -d)
net_up=
cleanup() {
	[ -n "$net_up" ] && th_down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Headings in bold only on a terminal: piped into a log they are plain.
if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); else bold='' plain=''; fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
next_steps() {
	say "next"
	echo "   the policy: $policy; the language: man -l docs/heel.5"
	echo "   your own: README.md, \"Five minutes with heel\""
}
# What heelc said on stderr, counted: "no errors, no warnings" only when
# it said nothing.
diagnostics() {
	local w e
	w=$(grep -c ': warning: ' "$1")
	e=$(grep -c ': error: ' "$1")
	if [ "$w" = 0 ] && [ "$e" = 0 ] && [ ! -s "$1" ]; then
		echo "   no errors, no warnings"
	else
		echo "   $e error$([ "$e" = 1 ] || echo s), $w warning$([ "$w" = 1 ] || echo s) (above)"
	fi
}

say "heelc check $policy"
"$bin/heelc" check "$policy" 2>"$tmp/check.err"
rc=$?
cat "$tmp/check.err"
diagnostics "$tmp/check.err"
[ "$rc" = 0 ] || exit 1
say "heelc $policy -o demo.hpol"
"$bin/heelc" "$policy" -o "$tmp/demo.hpol" 2>"$tmp/compile.err" || { cat "$tmp/compile.err"; exit 1; }
if cmp -s "$tmp/check.err" "$tmp/compile.err"; then
	[ -s "$tmp/compile.err" ] && echo "   (the same diagnostics as heelc check)"
else
	cat "$tmp/compile.err"
fi
echo "   $(stat -c %s "$tmp/demo.hpol") bytes: one artifact, every platform's part"

# An excerpt: the heading, what the policy's own lines set (the limits),
# and one protection set with its paths (~/.ssh among them, read below).
say "heelc explain demo.hpol: what the policy allows (excerpt)"
(cd "$tmp" && "$bin/heelc" explain demo.hpol) |
	sed -n -e '2,4p;/^Protections /{s/ (.*//;p;}' -e '/^  credentials /,/^  cloud-config /p' \
		-e '/^Limits /p;/^  memory /p;/^  cpu /p;/^  processes /p' |
	sed -e '/^  cloud-config /d' -e 's/^/   /'
echo "   (all of it: heelc explain demo.hpol; every platform: --target all)"

# The verdict and what holds the limits; the whole report where this
# machine would refuse, since then every line of it matters.
say "heel-exec check demo.hpol: what this machine can enforce"
launch=()
runs=1
if "$bin/heel-exec" check "$tmp/demo.hpol" >"$tmp/check" 2>&1; then
	grep -E '^(landlock: ABI [0-9]+$|seccomp: available|cgroup: limit|verdict:)' "$tmp/check" | sed 's/^/   /'
else
	sed 's/^/   /' "$tmp/check"
	# The one refusal the demo gets past, and says so: a user whose
	# cgroup is not delegated has the limits per process only, which
	# --accept per-process-limits accepts by name. Anything else is a
	# refusal the session below would meet too.
	if grep -q '^verdict: heel-exec would refuse to run: .*per process only here: no cgroup' "$tmp/check" &&
		grep -q '^with --best-effort: it would run' "$tmp/check"; then
		launch=(--accept per-process-limits)
		echo "   -> this machine gives $(id -un) no cgroup of its own, so the policy's limits can hold"
		echo "      per process only: the session below runs with --accept per-process-limits, which says so"
	else
		runs=
	fi
fi

# A home of our own, with a fake SSH key, so the demo touches nothing real.
home=$tmp/home
mkdir -p "$home/.ssh"
echo "-----BEGIN FAKE KEY-----" >"$home/.ssh/id_rsa"
chmod 700 "$home/.ssh"

say "heel-exec ${launch[*]:+${launch[*]} }demo.hpol -- bash: allowed and refused actions"
if [ -z "$runs" ]; then
	echo "   not run: heel-exec would refuse the policy here (the verdict above says why)"
	next_steps
	exit 1
fi
# The host's PID namespace, to tell the sandbox's apart from it.
HOME=$home "$bin/heel-exec" "${launch[@]}" "$tmp/demo.hpol" -- /bin/bash -c '
try() { desc=$1; shift; if out=$("$@" 2>&1); then echo "   allowed: $desc"; else echo "   REFUSED: $desc -> ${out##*: }"; fi; }
try "write a file in the working directory" sh -c "echo hello > notes.txt"
try "read it back" cat notes.txt
try "write into \$HOME" sh -c "echo x > \$HOME/planted"
try "read ~/.ssh/id_rsa" cat "$HOME/.ssh/id_rsa"
try "run a downloaded (written) program" sh -c "cp /bin/true ./payload && chmod +x payload && ./payload"
try "run it through the dynamic loader" /lib64/ld-linux-x86-64.so.2 ./payload
try "connect to 203.0.113.10:80, outside the sandbox" bash -c "exec 3<>/dev/tcp/203.0.113.10/80"
n=$(ls /proc | grep -c "^[0-9]")
if [ "$(readlink /proc/self/ns/pid)" = "$1" ]; then
	echo "   processes visible in /proc: $n (the host'\''s PID namespace)"
else
	echo "   processes visible in /proc: $n (a PID namespace of its own)"
fi
' demo "$(readlink /proc/self/ns/pid)" 2>"$tmp/session.err"
status=$?
# heel-exec's own lines (a weakening accepted, what the sandbox tried).
sed 's/^/   /' "$tmp/session.err"
echo "   exit status $status"
# Said only of a session that ran: its exit status is the command's.
if [ "$status" -lt 125 ]; then
	if [ -e "$home/planted" ]; then
		echo "   afterwards: \$HOME/planted EXISTS: the sandbox wrote into \$HOME"
	else
		echo "   afterwards: \$HOME/planted does not exist"
	fi
else
	echo "   the session did not run: heel-exec refused it (above)"
fi

# The network: heel-proxy lets the sandbox reach what the policy lists and
# refuses the rest, over a stand-in internet made of namespaces of our own
# (tests/net/testhost.sh; root only: it makes network namespaces).
netpolicy=policies/examples/demo-network.heel
say "heel-exec demo-network.hpol: one allowed and one refused request"
missing=
for t in curl ip python3 openssl; do command -v "$t" >/dev/null || missing="$missing $t"; done
if [ "$(id -u)" != 0 ]; then
	echo "   skipped: the stand-in internet is made of network namespaces, which need root"
	next_steps
	exit 0
fi
if [ -n "$missing" ]; then
	echo "   skipped: needs$missing (make demo installs them as root)"
	next_steps
	exit 0
fi
"$bin/heelc" "$netpolicy" -o "$tmp/net.hpol" || exit 1
TH_QUIET=1
# Holders and servers end with us, however we end.
TH_PDEATHSIG=1
. tests/net/testhost.sh
net_up=1
if ! th_up "$tmp/net" >/dev/null 2>"$tmp/net.err"; then
	echo "   could not make the stand-in internet:"
	sed 's/^testhost: /     /' "$tmp/net.err" | head -5
	next_steps
	exit 1
fi
grep -A2 '^network allow' "$netpolicy" | sed 's/^/   /'
th_client "$bin/heel-exec" "$tmp/net.hpol" -- /bin/sh -c '
echo "   \$ curl http://allowed.test/hello"
curl -sS -m 10 http://allowed.test/hello 2>&1 | sed "s/^/     /"
echo "   \$ curl http://also.test/hello      (same server, not in the list)"
curl -sS -m 10 http://also.test/hello 2>&1 | sed "s/^/     /"
echo "   \$ curl --noproxy \"*\" http://203.0.113.10/hello   (around the proxy)"
curl -sS -m 10 --noproxy "*" http://203.0.113.10/hello 2>&1 | sed "s/^/     /"
' 2>&1
next_steps

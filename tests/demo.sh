#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo`: compile a stock example policy and run a short sandboxed
# session that shows what is allowed and what the kernel refuses.
set -uo pipefail
bin=$(realpath "$1")
policy=policies/examples/demo.heel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Headings in bold only on a terminal: piped into a log they are plain.
if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); else bold='' plain=''; fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
next_steps() {
	say "next"
	echo "   the policy: $policy; the language: man -l docs/heel.5"
	echo "   your own: README.md, \"Five minutes with heel\""
}

say "heelc check $policy"
"$bin/heelc" check "$policy" || exit 1
echo "   no errors, no warnings"
say "heelc $policy -o demo.hpol"
"$bin/heelc" "$policy" -o "$tmp/demo.hpol" || exit 1
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
if "$bin/heel-exec" check "$tmp/demo.hpol" >"$tmp/check" 2>&1; then
	grep -E '^(landlock: ABI [0-9]+$|seccomp: available|cgroup: limit|verdict:)' "$tmp/check" | sed 's/^/   /'
else
	sed 's/^/   /' "$tmp/check"
fi

# A home of our own, with a fake SSH key, so the demo touches nothing real.
home=$tmp/home
mkdir -p "$home/.ssh"
echo "-----BEGIN FAKE KEY-----" >"$home/.ssh/id_rsa"
chmod 700 "$home/.ssh"

say "heel-exec demo.hpol -- bash: allowed and refused actions"
HOME=$home "$bin/heel-exec" "$tmp/demo.hpol" -- /bin/bash -c '
try() { desc=$1; shift; if out=$("$@" 2>&1); then echo "   allowed: $desc"; else echo "   REFUSED: $desc -> ${out##*: }"; fi; }
try "write a file in the working directory" sh -c "echo hello > notes.txt"
try "read it back" cat notes.txt
try "write into \$HOME" sh -c "echo x > \$HOME/planted"
try "read ~/.ssh/id_rsa" cat "$HOME/.ssh/id_rsa"
try "run a downloaded (written) program" sh -c "cp /bin/true ./payload && chmod +x payload && ./payload"
try "run it through the dynamic loader" /lib64/ld-linux-x86-64.so.2 ./payload
try "open a network connection" bash -c "exec 3<>/dev/tcp/127.0.0.1/80"
echo "   processes visible in /proc: $(ls /proc | grep -c "^[0-9]") (a PID namespace of its own)"
'
echo "   exit status $?"
test ! -e "$home/planted" && echo "   afterwards: \$HOME/planted does not exist"

# The network: heel-proxy lets the sandbox reach what the policy lists and
# refuses the rest, over a stand-in internet made of namespaces of our own
# (tests/net/testhost.sh; root only: it makes network namespaces).
netpolicy=policies/examples/demo-network.heel
say "heel-exec demo-network.hpol: one allowed and one refused request"
if [ "$(id -u)" != 0 ] || ! command -v curl >/dev/null || ! command -v ip >/dev/null; then
	echo "   skipped: needs root, curl and iproute2 (make demo installs them as root)"
	next_steps
	exit 0
fi
"$bin/heelc" "$netpolicy" -o "$tmp/net.hpol" || exit 1
TH_QUIET=1
. tests/net/testhost.sh
th_up "$tmp/net" >/dev/null || { echo "   skipped: could not make the stand-in internet"; next_steps; exit 0; }
trap 'th_down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
grep -A2 '^network allow' "$netpolicy" | sed 's/^/   /'
th_client "$bin/heel-exec" "$tmp/net.hpol" -- /bin/sh -c '
echo "   \$ curl http://allowed.test/hello"
curl -sS -m 10 http://allowed.test/hello | sed "s/^/     /"
echo "   \$ curl http://also.test/hello      (same server, not in the list)"
curl -sS -m 10 http://also.test/hello | sed "s/^/     /"
echo "   \$ curl --noproxy \"*\" http://203.0.113.10/hello   (around the proxy)"
curl -sS -m 10 --noproxy "*" http://203.0.113.10/hello 2>&1 | sed "s/^/     /"
'
next_steps

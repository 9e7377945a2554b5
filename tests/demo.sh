#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo`: compile a stock example policy and run a short sandboxed
# session that shows what is allowed and what the kernel refuses.
set -uo pipefail
bin=$1
policy=policies/examples/demo.heel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "heelc check $policy"
"$bin/heelc" check "$policy" || exit 1
say "heelc $policy -o demo.hpol"
"$bin/heelc" "$policy" -o "$tmp/demo.hpol" || exit 1
echo "   $(stat -c %s "$tmp/demo.hpol") bytes"
say "heelc explain demo.hpol (first lines)"
"$bin/heelc" explain "$tmp/demo.hpol" | sed -n '1,4p;/^Protections/,/^  credentials/p'

say "heel-exec check demo.hpol: what this machine can enforce"
"$bin/heel-exec" check "$tmp/demo.hpol" | grep -v '^landlock: \(grant\|deny\)'

# A home of our own, with a fake SSH key, so the demo touches nothing real.
home=$tmp/home
mkdir -p "$home/.ssh"
echo "-----BEGIN FAKE KEY-----" >"$home/.ssh/id_rsa"
chmod 700 "$home/.ssh"

say "heel-exec demo.hpol -- bash: allowed and refused actions"
HOME=$home "$bin/heel-exec" "$tmp/demo.hpol" -- /bin/bash -c '
try() { desc=$1; shift; if out=$("$@" 2>&1); then echo "  allowed: $desc"; else echo "  REFUSED: $desc -> ${out##*: }"; fi; }
try "write a file in the working directory" sh -c "echo hello > notes.txt"
try "read it back" cat notes.txt
try "write into \$HOME" sh -c "echo x > \$HOME/planted"
try "read ~/.ssh/id_rsa" cat "$HOME/.ssh/id_rsa"
try "run a downloaded (written) program" sh -c "cp /bin/true ./payload && chmod +x payload && ./payload"
try "run it through the dynamic loader" /lib64/ld-linux-x86-64.so.2 ./payload
try "open a network connection" bash -c "exec 3<>/dev/tcp/127.0.0.1/80"
echo "  processes visible in /proc: $(ls /proc | grep -c "^[0-9]") (a PID namespace of its own)"
'
echo "   exit status $?"
test ! -e "$home/planted" && echo "   afterwards: \$HOME/planted does not exist"

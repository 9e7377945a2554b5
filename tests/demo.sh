#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo`: compile a policy from policies/ and show what it allows.
# (heel-exec, the launcher that enforces it, is not built yet; when it is,
# this demo runs allowed and refused actions under the sandbox.)
set -euo pipefail
bin=$1
policy=policies/examples/agent.heel
out=$(mktemp -d)/agent.hpol
trap 'rm -rf "$(dirname "$out")"' EXIT

echo "== heelc check $policy"
"$bin/heelc" check "$policy"
echo "== heelc $policy -o agent.hpol"
"$bin/heelc" "$policy" -o "$out"
ls -l "$out" | awk '{print "   " $5 " bytes"}'
echo "== heelc explain agent.hpol"
"$bin/heelc" explain "$out"
echo "== a policy with mistakes: heelc reports every one, with the line and a hint"
bad=$(dirname "$out")/bad.heel
printf 'heel 1\ngrant "/usr/share" rxw\nnetwork allow {\n    "*github.com"\n}\nlimit memroy 2GiB\n' >"$bad"
"$bin/heelc" check "$bad" || echo "   (exit $?: the policy was refused, nothing was written)"

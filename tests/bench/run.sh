#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench`: heelc compile time on generated policies of 1k, 10k and
# 100k grants, measured with hyperfine in one run; the ratios show whether
# time grows linearly. Results go to build/bench/ for BENCHMARKS.md.
set -euo pipefail
bin=$1
out=build/bench
mkdir -p "$out"
for n in 1000 10000 100000; do
	sh tests/bench/gen_policy.sh "$n" >"$out/grants-$n.heel"
done
hyperfine -N --warmup 3 --min-runs 10 \
	--export-markdown "$out/heelc.md" --export-json "$out/heelc.json" \
	-n "1k grants" "$bin/heelc $out/grants-1000.heel -o $out/g1k.hpol" \
	-n "10k grants" "$bin/heelc $out/grants-10000.heel -o $out/g10k.hpol" \
	-n "100k grants" "$bin/heelc $out/grants-100000.heel -o $out/g100k.hpol"
cat "$out/heelc.md"

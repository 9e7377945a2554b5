#!/bin/bash
# SPDX-License-Identifier: MIT
# Round trips, so the stock policies never rot and the compiler stays
# deterministic:
#  - every policies/**/*.heel compiles, twice to identical bytes, is in
#    canonical fmt form, and its artifact explains like its source;
#  - fmt keeps meaning: every golden fmt input and its formatted output
#    compile to the same policy (explain --json --target all, every
#    platform, with the line numbers of origins removed, since fmt may move
#    lines) and the same source digest.
set -u
heelc=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

cd "$root" || exit 1
while read -r f; do
	if ! "$heelc" check "$f" 2>"$tmp/err"; then bad "$f: does not compile: $(head -5 "$tmp/err")"; continue; fi
	ok
	if "$heelc" "$f" -o "$tmp/a.hpol" 2>/dev/null && "$heelc" "$f" -o "$tmp/b.hpol" 2>/dev/null &&
		cmp -s "$tmp/a.hpol" "$tmp/b.hpol"; then ok; else bad "$f: two compiles differ"; fi
	if "$heelc" fmt --check "$f" 2>/dev/null; then ok; else bad "$f: not in canonical form (heelc fmt -i $f)"; fi
	if "$heelc" explain --target all "$tmp/a.hpol" >/dev/null 2>"$tmp/err"; then ok; else bad "$f: artifact does not explain: $(head -3 "$tmp/err")"; fi
done < <(find policies -name '*.heel' | LC_ALL=C sort)

# The artifact must not depend on where the sources are: same policy
# copied elsewhere gives the same bytes.
mkdir -p "$tmp/elsewhere/examples"
if [ -e policies/examples/agent.heel ]; then
	cp policies/examples/agent.heel "$tmp/elsewhere/examples/"
	"$heelc" policies/examples/agent.heel -o "$tmp/here.hpol" 2>/dev/null
	(cd "$tmp/elsewhere" && "$heelc" examples/agent.heel -o "$tmp/there.hpol" 2>/dev/null)
	if cmp -s "$tmp/here.hpol" "$tmp/there.hpol"; then ok; else bad "artifact depends on the source location"; fi
fi

strip_lines() { sed -E -e 's/("origin": "[^"]*):[0-9]+"/\1"/' -e '/^  "policy": /d' "$1"; }
for f in tests/golden/fmt/*.heel; do
	[ -e "$f" ] || continue
	n=$(basename "$f")
	mkdir -p "$tmp/before" "$tmp/after"
	cp "$f" "$tmp/before/$n"
	"$heelc" fmt "$f" >"$tmp/after/$n" 2>/dev/null || { bad "$f: fmt failed"; continue; }
	if ! "$heelc" check "$tmp/before/$n" >/dev/null 2>&1; then
		continue # a layout-only case that is not a complete policy
	fi
	"$heelc" explain --json --target all "$tmp/before/$n" >"$tmp/b.json" 2>/dev/null
	"$heelc" explain --json --target all "$tmp/after/$n" >"$tmp/a.json" 2>/dev/null
	if cmp -s <(strip_lines "$tmp/b.json") <(strip_lines "$tmp/a.json"); then ok; else bad "$f: fmt changed the meaning"; fi
	# The digest is over the canonical form, so fmt must not change it.
	if [ "$(grep '"source_digest"' "$tmp/b.json")" = "$(grep '"source_digest"' "$tmp/a.json")" ] &&
		grep -q '"source_digest": "[0-9a-f]\{64\}"' "$tmp/b.json"; then ok; else bad "$f: source digest changed by fmt"; fi
done

echo "roundtrip: $pass passed, $fail failed"
[ "$fail" = 0 ]

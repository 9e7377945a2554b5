#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The SBPL checker's corpus: every profile in good/ must pass sbpl-check
# (warnings allowed), every profile in bad/ must fail with the message its
# first line names (";; expect: SUBSTRING") at the line its second names
# (";; line: N"; 0 for a problem of the whole profile). Given heelc too,
# the profile `heelc emit sbpl` writes for every stock policy (policies/)
# must pass, with every parameter it defines used; so must the golden
# SBPL files.
# Usage: tests/sbpl/run.sh BUILD/tests/bin/sbpl-check [BUILD/bin/heelc]
set -u
bin=${1:?usage: run.sh SBPL_CHECK [HEELC]}
heelc=${2:-}
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in "$dir"/good/*.sb; do
	out=$("$bin" "$f" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q ': error: ' <<<"$out"; then
		ok
	else
		bad "$f: a good profile is refused (exit $rc):"
		echo "$out"
	fi
done

for f in "$dir"/bad/*.sb; do
	want=$(sed -n '1s/^;; expect: //p' "$f")
	line=$(sed -n '2s/^;; line: //p' "$f")
	if [ -z "$want" ] || [ -z "$line" ]; then
		bad "$f: no ';; expect: MESSAGE' first line and ';; line: N' second line"
		continue
	fi
	out=$("$bin" "$f" 2>&1)
	rc=$?
	if [ "$line" = 0 ]; then
		at="$f: error: "
	else
		at="$f:$line:"
	fi
	if [ "$rc" -ne 1 ]; then
		bad "$f: exit $rc, want 1:"
		echo "$out"
	elif ! grep -F -- "$at" <<<"$out" | grep -F ': error: ' | grep -qF -- "$want"; then
		bad "$f: no error '$want' at line $line; got:"
		echo "$out"
	else
		ok
	fi
done

# The options: the escape hatch passes only when allowed, an unused
# parameter only when unused ones are allowed; a raw rule (a policy's sbpl
# statement) is checked without a version form.
t=$(mktemp -d)
printf '(allow sysctl-write (sysctl-name "kern.grade_cputype"))\n' >"$t/rule-good.sb"
printf '(allow network-outbound (remote ip "10.0.0.1:80"))\n' >"$t/rule-bad.sb"
if "$bin" --allow-no-sandbox "$dir/bad/no-sandbox.sb" >/dev/null; then ok; else bad "--allow-no-sandbox refuses no-sandbox.sb"; fi
if "$bin" --allow-unused-params "$dir/bad/unused-param.sb" >/dev/null; then ok; else bad "--allow-unused-params refuses unused-param.sb"; fi
if "$bin" --rule "$t/rule-good.sb" >/dev/null; then ok; else bad "--rule refuses a good raw rule"; fi
if "$bin" "$t/rule-good.sb" 2>&1 | grep -q 'missing (version 1)'; then ok; else bad "a raw rule passes as a whole profile"; fi
if "$bin" --rule "$t/rule-bad.sb" 2>&1 | grep -q "rule-bad.sb:1:36: error: .*host must be"; then ok; else bad "--rule accepts a bad raw rule"; fi
rm -rf "$t"

if [ -n "$heelc" ]; then
	root=$(cd "$dir/../.." && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if ! "$heelc" emit sbpl "$root/policies/default.heel" >/dev/null 2>"$tmp/err" &&
		grep -q 'no sbpl backend' "$tmp/err"; then
		echo "skipped: stock policies (this heelc has no SBPL backend)"
	else
		while IFS= read -r p; do
			out="$tmp/$(basename "$p" .heel).sb"
			if ! "$heelc" emit sbpl "$p" >"$out" 2>"$tmp/err"; then
				bad "$p: heelc emit sbpl failed:"
				cat "$tmp/err"
			elif ! res=$("$bin" "$out" 2>&1) || grep -q ': error: ' <<<"$res"; then
				bad "$p: the profile heelc writes is refused:"
				echo "$res"
			else
				ok
			fi
		done < <(find "$root/policies" -name '*.heel' | sort)
	fi
fi

# heelc's golden SBPL (tests/golden/sbpl/NAME.out, `heelc emit sbpl` of
# NAME.heel) must pass as well, wherever it comes from.
golden="$dir/../golden/sbpl"
if compgen -G "$golden/*.out" >/dev/null; then
	for f in "$golden"/*.out; do
		if res=$("$bin" "$f" 2>&1) && ! grep -q ': error: ' <<<"$res"; then
			ok
		else
			bad "$f: a golden profile is refused:"
			echo "$res"
		fi
	done
else
	echo "skipped: golden SBPL (no tests/golden/sbpl/*.out)"
fi

echo "sbpl corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

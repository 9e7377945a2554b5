#!/bin/bash
# SPDX-License-Identifier: MIT
# Golden tests: each tests/golden/<suite>/NAME.heel is run through heelc and
# its output compared byte for byte with the file beside it.
#   check/    `heelc check NAME.heel`  stderr == NAME.err, exit 1 if it holds
#             an error line, else 0
#   explain/  `heelc explain NAME.heel` stdout == NAME.out
#   fmt/      `heelc fmt NAME.heel` stdout == NAME.out, and fmt of that
#             output is itself (idempotent)
#   sbpl/     `heelc emit sbpl NAME.heel` stdout == NAME.out, and the same
#             from the compiled artifact; stock/ for policies/ and examples
# Commands run inside the suite's directory so diagnostics name short
# relative paths. UPDATE=1 rewrites the expected files (review the diff!).
set -u
heelc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

report_fail() {
	fail=$((fail + 1))
	echo "FAIL: $1"
	[ -n "${2:-}" ] && diff -u "$2" "$3" | head -40
}

compare() { # name expected actual
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$3" "$2"
		pass=$((pass + 1))
	elif cmp -s "$2" "$3"; then
		pass=$((pass + 1))
	else
		report_fail "$1" "$2" "$3"
	fi
}

cd "$here/check" || exit 1
for f in *.heel; do
	[ -e "$f" ] || continue
	n=${f%.heel}
	[ -e "$n.err" ] || [ "${UPDATE:-0}" = 1 ] || { report_fail "check/$n: no $n.err"; continue; }
	"$heelc" check "$f" 2>"$tmp/err" >/dev/null
	rc=$?
	want=0
	grep -q ': error: ' "$n.err" 2>/dev/null && want=1
	[ "${UPDATE:-0}" = 1 ] && { grep -q ': error: ' "$tmp/err" && want=1; }
	if [ "$rc" != "$want" ]; then
		report_fail "check/$n: exit $rc, expected $want"
		continue
	fi
	compare "check/$n" "$n.err" "$tmp/err"
done

# explain: NAME.out is `--target all`, every platform; NAME.PLATFORM.out
# is `--target PLATFORM` (UPDATE=1 writes NAME.linux.out for every policy).
# Without --target explain shows the platform heelc runs on: on Linux that
# is NAME.linux.out again. Each artifact must explain like its source.
cd "$here/explain" || exit 1
explain_case() { # name expected-file explain-args...
	local n=$1 want=$2
	shift 2
	if ! "$heelc" explain "$@" "$n.heel" >"$tmp/out" 2>"$tmp/err"; then
		report_fail "explain/$n $*: heelc failed: $(head -3 "$tmp/err")"
		return
	fi
	compare "explain/$want" "$want" "$tmp/out"
	if "$heelc" "$n.heel" -o "$tmp/a.hpol" 2>/dev/null && "$heelc" explain "$@" "$tmp/a.hpol" >"$tmp/out2" 2>&1; then
		sed "1s|.*|heel policy $n.heel|" "$tmp/out2" >"$tmp/out3"
		if cmp -s "$tmp/out" "$tmp/out3"; then pass=$((pass + 1)); else report_fail "explain/$n $*: artifact explains differently" "$tmp/out" "$tmp/out3"; fi
	else
		report_fail "explain/$n $*: compiling or explaining the artifact failed"
	fi
}
for f in *.heel; do
	[ -e "$f" ] || continue
	n=${f%.heel}
	explain_case "$n" "$n.out" --target all
	[ "${UPDATE:-0}" = 1 ] && [ ! -e "$n.linux.out" ] && touch "$n.linux.out"
	for pl in linux macos windows; do
		[ -e "$n.$pl.out" ] && explain_case "$n" "$n.$pl.out" --target "$pl"
	done
	if [ "$(uname -s)" = Linux ]; then
		"$heelc" explain "$f" >"$tmp/out" 2>/dev/null
		if cmp -s "$tmp/out" "$n.linux.out"; then pass=$((pass + 1)); else report_fail "explain/$n: without --target it does not show linux alone" "$n.linux.out" "$tmp/out"; fi
	fi
done

cd "$here/fmt" || exit 1
for f in *.heel; do
	[ -e "$f" ] || continue
	n=${f%.heel}
	if ! "$heelc" fmt "$f" >"$tmp/out" 2>"$tmp/err"; then
		report_fail "fmt/$n: heelc fmt failed: $(head -3 "$tmp/err")"
		continue
	fi
	compare "fmt/$n" "$n.out" "$tmp/out"
	cp "$tmp/out" "$tmp/again.heel"
	if "$heelc" fmt --check "$tmp/again.heel" 2>/dev/null; then pass=$((pass + 1)); else report_fail "fmt/$n: not idempotent"; fi
done

# sbpl: `heelc emit sbpl NAME.heel` stdout == NAME.out, and the artifact
# compiled from it prints the same (its own SBPL_TEXT and SBPL_PARAMS).
# The stock policies (bases, presets, examples, protection sets, devices)
# are cases too, their expected files in sbpl/stock/ (policies-NAME.out,
# examples-NAME.out, protect-NAME.out, devices-NAME.out).
sbpl_case() { # name policy expected
	if ! "$heelc" emit sbpl "$2" >"$tmp/out" 2>"$tmp/err"; then
		report_fail "sbpl/$1: heelc emit sbpl failed: $(head -3 "$tmp/err")"
		return
	fi
	compare "sbpl/$1" "$3" "$tmp/out"
	if "$heelc" "$2" -o "$tmp/s.hpol" 2>/dev/null && "$heelc" emit sbpl "$tmp/s.hpol" >"$tmp/out2" 2>&1; then
		if cmp -s "$tmp/out" "$tmp/out2"; then pass=$((pass + 1)); else report_fail "sbpl/$1: the artifact emits differently" "$tmp/out" "$tmp/out2"; fi
	else
		report_fail "sbpl/$1: compiling or emitting the artifact failed: $(head -2 "$tmp/out2")"
	fi
}
cd "$here/sbpl" || exit 1
for f in *.heel; do
	[ -e "$f" ] || continue
	sbpl_case "${f%.heel}" "$f" "${f%.heel}.out"
done
for f in "$here"/../../policies/*.heel "$here"/../../policies/*/*.heel; do
	d=$(basename "$(dirname "$f")")
	n=$(basename "$f" .heel)
	sbpl_case "stock/$d-$n" "$f" "stock/$d-$n.out"
done
# A policy not built for macos has no SBPL part: said, exit 1, nothing printed.
printf 'heel 1\non linux {\n  grant "/opt" r\n}\non macos {\n  sbpl "(allow default)"\n}\n' >"$tmp/l.heel"
"$heelc" --target linux "$tmp/l.heel" -o "$tmp/l.hpol" 2>/dev/null
"$heelc" emit sbpl "$tmp/l.hpol" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -qF 'is not built for macos' "$tmp/err"; then
	pass=$((pass + 1))
else
	report_fail "emit sbpl of an artifact built for linux only: exit $rc: $(head -1 "$tmp/err")"
fi

# What SBPL cannot express is refused where macos is built, by compile,
# check and emit alike, naming it; without macos the policy is fine.
printf 'heel 1\nreadonly each-writable "a]b"\n' >"$tmp/ro.heel"
for args in "-o $tmp/ro.hpol" "check" "emit sbpl"; do
	# shellcheck disable=SC2086
	"$heelc" $args "$tmp/ro.heel" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -qF "$tmp/ro.heel:2:26: error: macos: \`readonly each-writable \"a]b\"\`: the character \`]\` cannot be matched in an SBPL regex" "$tmp/err"; then
		pass=$((pass + 1))
	else
		report_fail "heelc $args of an each-writable name SBPL cannot match: exit $rc: $(head -1 "$tmp/err")"
	fi
done
if "$heelc" --target linux "$tmp/ro.heel" -o "$tmp/ro.hpol" 2>"$tmp/err"; then pass=$((pass + 1)); else report_fail "the same name for linux alone: $(head -1 "$tmp/err")"; fi

# What a platform's part can hold (the macOS part's SBPL parameters, the
# Windows part's ACE entries, the artifact's size) is refused at the grant
# that passes it, file:line:col, exit 1 (exit 3 is for files that cannot
# be read or written), by compile and check alike; the policy compiles
# for the platforms it fits. The policies are generated: thousands of
# grants, one a line from line 3.
gen_grants() { # N [windows]
	echo 'heel 1'
	echo 'isolation default'
	if [ "${2:-}" = windows ]; then
		awk -v n="$1" 'BEGIN { print "on windows {"; for (i = 0; i < n; i++) printf "    grant \"C:/opt/tree%05d\" rw optional\n", i; print "}" }'
	else
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "grant \"/opt/tree%05d/sub\" r optional\n", i }'
	fi
}
limit_case() { # name policy expected-regex targets...
	local n=$1 pol=$2 want=$3
	shift 3
	for cmd in compile check; do
		# shellcheck disable=SC2086
		if [ $cmd = compile ]; then
			"$heelc" "$@" "$pol" -o "$tmp/big.hpol" >/dev/null 2>"$tmp/err"
		else
			"$heelc" check "$@" "$pol" >/dev/null 2>"$tmp/err"
		fi
		rc=$?
		if [ -z "$want" ]; then
			if [ "$rc" = 0 ]; then pass=$((pass + 1)); else report_fail "$n ($cmd $*): exit $rc: $(head -1 "$tmp/err")"; fi
		elif [ "$rc" = 1 ] && head -1 "$tmp/err" | grep -qE "$want"; then
			pass=$((pass + 1))
		else
			report_fail "$n ($cmd $*): exit $rc, expected 1 and /$want/: $(head -1 "$tmp/err")"
		fi
	done
}
gen_grants 5000 >"$tmp/big.heel"
limit_case "5000 grants" "$tmp/big.heel" \
	"^$tmp/big.heel:[0-9]+:1: error: the macOS part of this policy needs 5[0-9]{3} SBPL path parameters \(one a path rule\), more than the 4096 heel-exec takes on macOS; \`/opt/tree[0-9]{5}/sub\` is the path rule that passes the limit$"
# The grant named is the one past the limit: the fixed rules (the base,
# the protections, shared temp, the working directory) count first.
line=$(head -1 "$tmp/err" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p')
total=$(head -1 "$tmp/err" | sed -n 's/.* needs \([0-9]*\) SBPL.*/\1/p')
if [ -n "$line" ] && [ "$line" = $((4096 - (total - 5000) + 3)) ] &&
	sed -n "${line}p" "$tmp/big.heel" | grep -q "tree$(printf %05d $((line - 3)))/sub"; then
	pass=$((pass + 1))
else
	report_fail "5000 grants: the error names line $line, not the grant past 4096 parameters ($total in all)"
fi
limit_case "5000 grants without macos" "$tmp/big.heel" "" --target linux
limit_case "5000 grants without macos" "$tmp/big.heel" "" --target linux --target windows
# The bench's generated 10,000-grant policy (grants, denies beneath them
# and an allow-list): located as above, and it compiles without macos.
sh "$here/../bench/gen_policy.sh" 10000 >"$tmp/big.heel"
limit_case "bench 10000 grants" "$tmp/big.heel" \
	"^$tmp/big.heel:[0-9]+:1: error: the macOS part of this policy needs 1[0-9]{4} SBPL path parameters \(one a path rule\), more than the 4096 heel-exec takes on macOS; \`/srv/data/d[0-9]+/f[0-9]+\` is the path rule that passes the limit$"
limit_case "bench 10000 grants without macos" "$tmp/big.heel" "" --target linux --target windows
gen_grants 7000 windows >"$tmp/big.heel"
limit_case "7000 windows grants" "$tmp/big.heel" \
	"^$tmp/big.heel:[0-9]+:5: error: the Windows part of this policy needs [0-9]+ ACE entries, more than the 65536 heel-exec.exe takes; "
limit_case "7000 windows grants without windows" "$tmp/big.heel" "" --target linux --target macos
# One statement past the limit, at that statement: 65 Windows
# capabilities, 257 `arg` lines and 257 positionals of one ipc command.
awk 'BEGIN { print "heel 1\non windows {"; for (i = 0; i < 65; i++) printf "    capability \"cap%02dx\"\n", i; print "}" }' >"$tmp/big.heel"
limit_case "65 capabilities" "$tmp/big.heel" \
	"^$tmp/big.heel:67:5: error: the Windows part holds at most 64 capabilities; \`cap64x\` is the 65th$"
limit_case "65 capabilities without windows" "$tmp/big.heel" "" --target linux
awk 'BEGIN { print "heel 1\nipc \"tool\" {\n    exec \"/usr/bin/true\""; for (i = 0; i < 257; i++) printf "    arg \"a%d\" string\n", i; print "}" }' >"$tmp/big.heel"
limit_case "257 ipc arg lines" "$tmp/big.heel" \
	"^$tmp/big.heel:260:9: error: an ipc command has at most 256 \`arg\` lines; \`a256\` is the 257th$"
awk 'BEGIN { print "heel 1\nipc \"tool\" {\n    exec \"/usr/bin/true\""; for (i = 0; i < 257; i++) printf "    positional \"p%d\"\n", i; print "}" }' >"$tmp/big.heel"
limit_case "257 ipc positionals" "$tmp/big.heel" \
	"^$tmp/big.heel:260:16: error: an ipc command has at most 256 positional arguments; \`p256\` is the 257th$"
gen_grants 180000 >"$tmp/big.heel"
limit_case "180000 grants" "$tmp/big.heel" \
	"^$tmp/big.heel: error: the compiled artifact would be larger than 16 MiB, the most heel-exec reads" --target linux
rm -f "$tmp/big.heel" "$tmp/big.hpol"

# The command line: a misused option is a usage error, exit
# 2 naming it, and nothing is written, never an option quietly ignored.
cd "$here/explain" || exit 1
pol=$(ls *.heel | head -1)
usage_case() { # expected-message-part args...
	local want=$1
	shift
	rm -f "$tmp/never.hpol"
	"$heelc" "$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != 2 ]; then
		report_fail "usage: heelc $*: exit $rc, expected 2"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		report_fail "usage: heelc $*: message lacks '$want': $(head -1 "$tmp/err")"
	elif [ -e "$tmp/never.hpol" ]; then
		report_fail "usage: heelc $*: wrote an artifact"
	else
		pass=$((pass + 1))
	fi
}
usage_case "emit takes no options" emit landlock --target macos "$pol"
usage_case "emit takes no options" emit seccomp -o "$tmp/never.hpol" "$pol"
usage_case "emit takes no options" emit landlock --json "$pol"
usage_case "emit takes a part and a policy file" emit landlock
usage_case "unknown part" emit bogus "$pol"
usage_case "--target belongs to compiling, check and explain" fmt --target linux "$pol"
usage_case "unknown target \`bogus\` (linux, macos, windows or all)" explain --target bogus "$pol"
usage_case "--target all belongs to explain" --target all "$pol" -o "$tmp/never.hpol"
usage_case "--target all belongs to explain" check --target all "$pol"
usage_case "emit takes no options" emit seccomp --target all "$pol"
usage_case "-o belongs to compiling" check -o "$tmp/never.hpol" "$pol"
usage_case "-o belongs to compiling" explain -o "$tmp/never.hpol" "$pol"
usage_case "belong to explain and fmt" --json "$pol" -o "$tmp/never.hpol"
usage_case "no policy file given" -o "$tmp/never.hpol"
# A command heelc does not have, where a command stands, is named as one.
usage_case "unknown command \`compile\`: to compile, give the policy alone" compile "$pol"
usage_case "unknown command \`chek\`; did you mean \`heelc check\`?" chek "$pol"
usage_case "heel-exec POLICY.hpol -- CMD" run "$pol"
usage_case "unknown command \`frob\` (check, explain, fmt or emit)" frob "$pol"

# explain shows what the policy is built for, or says it is not: a policy
# that leaves windows out is refused for --target windows, naming why.
"$heelc" explain --target windows permissive.heel >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
	grep -qF 'permissive.heel is not built for windows: permissive cannot be enforced' "$tmp/err" &&
	grep -qF 'built for linux, macos' "$tmp/err"; then
	pass=$((pass + 1))
else
	report_fail "explain --target windows of a policy without windows: exit $rc: $(head -2 "$tmp/err")"
fi
# --json: the same view. `platforms` is what the policy is built for,
# `shown` what is explained; a rule of another platform is not there.
if command -v python3 >/dev/null 2>&1; then
	for args in "" "--target linux" "--target macos" "--target all" "--target linux --target windows"; do
		# shellcheck disable=SC2086
		"$heelc" explain --json $args platforms.heel >"$tmp/json" 2>/dev/null
		if python3 - "$tmp/json" "$args" <<'PY'; then pass=$((pass + 1)); else report_fail "explain --json $args platforms.heel"; fi
import json, sys
j = json.load(open(sys.argv[1]))
args = sys.argv[2].split()
shown = [args[i + 1] for i in range(len(args)) if args[i] == "--target"] or ["linux"]
if shown == ["all"]:
    shown = ["linux", "macos", "windows"]
assert j["platforms"] == ["linux", "macos", "windows"], j["platforms"]
assert j["shown"] == shown, j["shown"]
assert sorted(j["settings"]) == sorted(shown), list(j["settings"])
sdk = {"linux": "/opt/linux-sdk", "macos": "/opt/macos-sdk", "windows": "C:\\sdk"}
paths = {r["path"] for r in j["reads"]}
for pl, path in sdk.items():
    assert (path in paths) == (pl in shown), (pl, path)
    for r in j["reads"]:
        assert set(r["platforms"]) & set(shown), r
assert bool(j["seccomp"]) == ("linux" in shown)
assert bool(j["mach_lookup"]) == ("macos" in shown)
assert bool(j["capabilities"]) == ("windows" in shown)
assert bool(j["ipc"]) == ("macos" in shown)
hosts = {n["host"] for n in j["network_allow"]}
assert ("developer.apple.com" in hosts) == ("macos" in shown)
assert "pypi.org" in hosts
mem = {pl: s["limits"]["memory"]["value"] for pl, s in j["settings"].items()}
assert mem.get("linux", 2 << 30) == 2 << 30 and mem.get("macos", 4 << 30) == 4 << 30, mem
PY
	done
fi

# Inputs that are not regular files: a FIFO would block open(2) and read(2)
# forever, so each is refused at once, naming the file (bounded by timeout
# so a regression fails instead of hanging the suite).
mkfifo "$tmp/in.fifo"
mkdir -p "$tmp/inc"
printf 'heel 1\ninclude "in.fifo"\n' >"$tmp/inc/top.heel"
mkfifo "$tmp/inc/in.fifo"
fifo_case() { # expected-exit expected-message-part args...
	local want_rc=$1 want=$2
	shift 2
	timeout 10 "$heelc" "$@" >/dev/null 2>"$tmp/err" </dev/null
	local rc=$?
	if [ "$rc" = 124 ]; then
		report_fail "fifo: heelc $*: hangs"
	elif [ "$rc" != "$want_rc" ]; then
		report_fail "fifo: heelc $*: exit $rc, expected $want_rc"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		report_fail "fifo: heelc $*: message lacks '$want': $(head -1 "$tmp/err")"
	else
		pass=$((pass + 1))
	fi
}
fifo_case 3 "$tmp/in.fifo: not a regular file (a FIFO)" "$tmp/in.fifo" -o "$tmp/never.hpol"
fifo_case 3 "$tmp/in.fifo: not a regular file (a FIFO)" check "$tmp/in.fifo"
fifo_case 3 "$tmp/in.fifo: cannot read: not a regular file (a FIFO)" explain "$tmp/in.fifo"
fifo_case 3 "$tmp/in.fifo: cannot read: not a regular file (a FIFO)" fmt "$tmp/in.fifo"
fifo_case 3 "$tmp/in.fifo: cannot read: not a regular file (a FIFO)" emit seccomp "$tmp/in.fifo"
fifo_case 1 "in.fifo\`: not a regular file (a FIFO)" check "$tmp/inc/top.heel"

# Binary input where a policy is expected: one line, exit 1, never a lexer
# error (and an echo of binary) for each line of the file.
mkdir -p "$tmp/bin"
printf 'heel 1\n' >"$tmp/bin/p.heel"
"$heelc" "$tmp/bin/p.heel" -o "$tmp/bin/p.hpol" 2>/dev/null
printf 'heel 1\n\0\n' >"$tmp/bin/nul.heel"
printf 'heel 1\ninclude "p.hpol"\n' >"$tmp/bin/inc.heel"
binary_case() { # expected-message-part args...
	local want=$1
	shift
	(cd "$tmp/bin" && "$heelc" "$@" >/dev/null 2>"$tmp/err")
	local rc=$? lines
	lines=$(grep -c '' "$tmp/err")
	if [ "$rc" != 1 ]; then
		report_fail "binary: heelc $*: exit $rc, expected 1"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		report_fail "binary: heelc $*: message lacks '$want': $(head -c 200 "$tmp/err")"
	elif [ "$lines" -gt 3 ]; then
		report_fail "binary: heelc $*: $lines lines of diagnostics"
	else
		pass=$((pass + 1))
	fi
}
binary_case 'p.hpol: error: this is a compiled artifact; did you mean `heelc explain p.hpol`?' p.hpol -o never.hpol
binary_case 'p.hpol: error: this is a compiled artifact; did you mean `heelc explain p.hpol`?' check p.hpol
binary_case 'p.hpol: error: this is a compiled artifact, not a policy source' fmt p.hpol
binary_case 'nul.heel: error: this is a binary file (it holds a NUL byte), not a policy' check nul.heel
binary_case 'included file `p.hpol` is a compiled artifact, not a policy' check inc.heel
[ -e "$tmp/bin/never.hpol" ] && report_fail "binary: compiling an artifact wrote an output"

# heelc builds its seccomp BPF itself; libseccomp is only the tests'
# comparison generator and must not be a dependency of the shipped binary.
if command -v ldd >/dev/null 2>&1 && ldd "$heelc" 2>/dev/null | grep -q 'libseccomp'; then
	report_fail "heelc links libseccomp"
else
	pass=$((pass + 1))
fi

# The grammar calls into compiler/parse.c through parse_actions.h only:
# a prototype of its own in grammar/ would drift from the definition.
if grep -nE '^(int|void|bool|const char \*)[[:space:]]*parse_[a-z_]+\(' "$here/../../grammar/parser.y" \
	"$here/../../grammar/lexer.l" >"$tmp/protos"; then
	report_fail "grammar declares parse.c functions itself: $(head -1 "$tmp/protos")"
else
	pass=$((pass + 1))
fi

# One implementation per primitive in compiler/: the isolation names live
# in ir.c, the string hash in hash.h; a second copy drifts from the first.
src=$here/../../compiler
n=$(grep -l '"permissive"' "$src"/*.c | grep -vc '/ir\.c$')
[ "$n" = 0 ] && pass=$((pass + 1)) || report_fail "isolation names spelt outside compiler/ir.c ($n files)"
n=$(grep -lE '0x100000001b3|16777619|1099511628211' "$src"/*.[ch] | grep -vc '/hash\.h$')
[ "$n" = 0 ] && pass=$((pass + 1)) || report_fail "FNV-1a implemented outside compiler/hash.h ($n files)"

# Comments state their reason: the design notes are not in the repository.
root=$here/../..
pat='LANGUAGE\.md|DESIGN\.md|STYLE\.md|peers\.md'
if grep -rnE --exclude=run.sh "$pat" "$root/compiler" "$root/grammar" "$root/tests/unit" \
	"$root/tests/golden" "$root/tests/fuzz" >"$tmp/cites"; then
	report_fail "a comment cites a design note: $(head -1 "$tmp/cites")"
else
	pass=$((pass + 1))
fi

# The build prints one short line a target, the full command under V=1,
# and a failing command's own output in either case. One object is built
# into a scratch build directory: bison, flex and one compile. Make's own
# flags from an enclosing make (V=1 among them) are not passed on.
if command -v make >/dev/null 2>&1 && command -v bison >/dev/null 2>&1; then
	b=$tmp/build
	build() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$root" B="$b" "$@" "$b/obj/compiler/units.o" 2>&1; }
	out=$(build V=0)
	want=$(printf '  GEN     %s\n  GEN     %s\n  CC      compiler/units.c' "$b/gen/parser.c" "$b/gen/lexer.c")
	[ "$out" = "$want" ] && pass=$((pass + 1)) || report_fail "make: not one line a target: $(printf '%s' "$out" | head -5)"
	rm -rf "$b"
	out=$(build V=1)
	case $out in
	*"-c -o $b/obj/compiler/units.o compiler/units.c"*) pass=$((pass + 1)) ;;
	*) report_fail "make V=1: the compile command is not shown: $(printf '%s' "$out" | tail -3)" ;;
	esac
	rm -f "$b/obj/compiler/units.o"
	out=$(build V=0 "CFLAGS=-include $tmp/no-such-header.h")
	case $out in
	*"no-such-header.h"*"CC      compiler/units.c"* | *"CC      compiler/units.c"*"no-such-header.h"*) pass=$((pass + 1)) ;;
	*) report_fail "make: a compiler error is not shown: $(printf '%s' "$out" | tail -3)" ;;
	esac
fi

# emit seccomp says what the host command call's clause is for: handed to
# the broker with a Linux ipc command; without one (or with ipc on Windows
# only), EBADF, so the call cannot reach an outer sandbox's broker.
emit_case() { # policy-text expected-part
	printf '%s\n' "$1" >"$tmp/emit.heel"
	if "$heelc" emit seccomp "$tmp/emit.heel" 2>"$tmp/err" >"$tmp/out" && grep -qF -- "$2" "$tmp/out"; then
		pass=$((pass + 1))
	else
		report_fail "emit seccomp: lacks '$2': $(head -1 "$tmp/err")"
	fi
}
emit_case $'heel 1\nipc "s" {\n exec "/usr/bin/s"\n}' \
	'if a0.lo == 0xffffffff && a1.lo == 0x48454c01: USER_NOTIF (host command calls (ipc)); if a1.lo in {0x5412, 0x541c}: ERRNO(1)'
emit_case $'heel 1\nipc "s" {\n exec "/usr/bin/s"\n}' 'jeq #0x48454c01 /* HEEL_IPC_IOCTL */'
emit_case $'heel 1' \
	'if a0.lo == 0xffffffff && a1.lo == 0x48454c01: ERRNO(9) (the host command call of an outer sandbox); if'
emit_case $'heel 1\non windows {\n ipc "s" {\n  exec "C:/s.exe"\n }\n}' 'ERRNO(9) (the host command call of an outer sandbox)'

# acl/: the Windows part as `heelc emit acl` renders it. NAME.heel with
# NAME.json: the manifest, and the artifact's own WIN_CONTAINER/WIN_ACES
# render the same bytes. NAME.heel with NAME.err: refused for Windows,
# `heelc check --target windows` stderr == NAME.err, exit 1. stock/P.json:
# every policies/**/*.heel that builds for windows (P is its path below
# policies/ with `/` as `_`); one that does not must say why.
if [ -d "$here/acl" ]; then
	cd "$here/acl" || exit 1
	for f in *.heel; do
		[ -e "$f" ] || continue
		n=${f%.heel}
		if [ -e "$n.err" ]; then
			"$heelc" check --target windows "$f" 2>"$tmp/err" >/dev/null
			rc=$?
			if [ "$rc" != 1 ]; then report_fail "acl/$n: check --target windows exit $rc, expected 1"; continue; fi
			compare "acl/$n.err" "$n.err" "$tmp/err"
			continue
		fi
		if ! "$heelc" emit acl "$f" >"$tmp/out" 2>"$tmp/err"; then
			report_fail "acl/$n: emit acl failed: $(head -3 "$tmp/err")"
			continue
		fi
		compare "acl/$n" "$n.json" "$tmp/out"
		if "$heelc" "$f" -o "$tmp/a.hpol" 2>/dev/null && "$heelc" emit acl "$tmp/a.hpol" >"$tmp/out2" 2>&1 &&
			cmp -s "$tmp/out" "$tmp/out2"; then
			pass=$((pass + 1))
		else
			report_fail "acl/$n: the artifact renders differently" "$tmp/out" "$tmp/out2"
		fi
		if command -v python3 >/dev/null 2>&1; then
			python3 - "$tmp/out" <<'PY' && pass=$((pass + 1)) || report_fail "acl/$n: manifest breaks a rule of docs/acl-manifest.md"
import json, re, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "heel-acl-manifest/1"
box = j["appcontainer"]
assert re.fullmatch(r"heel\.p\.[0-9a-f]{16}", box["name"])
assert j["policy"]["digest"].startswith("sha256:" + box["name"][7:])
assert re.fullmatch(r"S-1-15-2(-[0-9]+){7}", box["sid"])
assert "S-1-15-3-1" not in box["capabilities"] or not box["loopback_required"]
paths = [e["path"] for e in j["entries"]]
assert paths == sorted(paths, key=lambda p: p.encode()), "not in application order"
assert sum(1 for e in j["entries"] if e["path"] == "${WORKDIR}") == 1
for e in j["entries"]:
    m = int(e["mask"], 16)
    assert m and not m & 0xC0000, e  # never 0, never WRITE_DAC/WRITE_OWNER
    writable = e["ace"] == "allow" and m & 0x2
    assert (e["label"] == "low") == bool(writable), e
    if e["ace"] == "deny":
        assert not m & 0x120000 and e["missing"] == "skip", e
    else:
        assert not e["parent_deny_delete_child"], e
        assert e["access"] in ("r", "rx", "rw", "rwx"), e
    assert e["inherit"] == ["OI", "CI"], e
PY
		fi
	done
	cd "$here/../.." || exit 1
	seen=""
	while read -r f; do
		p=${f#policies/}
		p=${p%.heel}
		g="$here/acl/stock/${p//\//_}.json"
		seen="$seen ${p//\//_}.json"
		if "$heelc" emit acl "$f" >"$tmp/out" 2>"$tmp/err"; then
			[ -e "$g" ] || [ "${UPDATE:-0}" = 1 ] || { report_fail "acl/stock: $f builds for windows but has no $g"; continue; }
			compare "acl/stock/$p" "$g" "$tmp/out"
		elif grep -q 'is not built for windows: ' "$tmp/err" && [ ! -e "$g" ]; then
			pass=$((pass + 1))
		else
			report_fail "acl/stock: $f: $(tail -1 "$tmp/err")"
		fi
	done < <(find policies -name '*.heel' | LC_ALL=C sort)
	for g in "$here"/acl/stock/*.json; do
		[ -e "$g" ] || continue
		case " $seen " in *" ${g##*/} "*) ;; *) report_fail "acl/stock: ${g##*/} has no policy" ;; esac
	done
fi

echo "golden: $pass passed, $fail failed"
[ "$fail" = 0 ]

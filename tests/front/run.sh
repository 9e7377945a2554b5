#!/bin/bash
# SPDX-License-Identifier: MIT
# Live tests of `heel run|shell|python`: the front end compiles its
# options into a policy in memory and execs bin/heel-exec, so every case
# here runs the real launcher and asserts on the effect (the file was not
# written, the output came back, the status passed through), as root and
# as uid 65534. Usage: tests/front/run.sh BUILD_DIR [CASE-GLOB]
# Prints "N passed, N failed, N skipped"; exit 1 on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
NOBODY=65534
pass=0 failed=0 skipped=0

for f in heel heel-exec heel-proxy heelc; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

T=$(mktemp -d /tmp/heel-front-test.XXXXXX)
chmod 755 "$T"
# Places outside /tmp, which the default base reads as a whole: /var/lib
# is granted nothing (the start directory's own grant is needed there),
# /var/tmp is the other shared temp.
OUT=$(mktemp -d /var/lib/heel-front-test.XXXXXX)
VT=$(mktemp -d /var/tmp/heel-front-test.XXXXXX)
chmod 755 "$OUT" "$VT"
cleanup() {
	pkill -KILL -f '^sleep 3321[0-9]$' 2>/dev/null
	rm -rf "$T" "$OUT" "$VT"
}
trap cleanup EXIT
mkdir -p "$T/bin"
cp "$B/bin/heel" "$B/bin/heel-exec" "$B/bin/heel-proxy" "$B/bin/heelc" "$T/bin/"
chmod 755 "$T/bin"/*
H=$T/bin/heel

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }

# as WHO CMD...: runs CMD as root or as uid 65534 (no groups), in the
# current directory, with a small clean environment.
as() {
	local who=$1
	shift
	if [ "$who" = root ]; then
		env -i PATH=/usr/bin:/bin HOME="$HOMEDIR" LANG=C.UTF-8 TMPDIR=/tmp "$@"
	else
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
			env -i PATH=/usr/bin:/bin HOME="$HOMEDIR" LANG=C.UTF-8 TMPDIR=/tmp "$@"
	fi
}

# A project directory and a home per user, owned by that user.
setup_user() {
	local who=$1
	P=$T/$who/proj
	HOMEDIR=$T/$who/home
	rm -rf "$T/$who"
	mkdir -p "$P" "$HOMEDIR/.ssh"
	echo "project file" >"$P/readme.txt"
	echo "SECRET-KEY" >"$HOMEDIR/.ssh/id_rsa"
	echo "print('script says', 6 * 7)" >"$P/script.py"
	if [ "$who" != root ]; then chown -R $NOBODY:$NOBODY "$T/$who"; fi
	chmod 755 "$T/$who"
}

# case NAME: runs the function case_NAME for root and for uid 65534.
run_case() {
	local name=$1 who
	# shellcheck disable=SC2053
	[[ $name == $ONLY ]] || return 0
	for who in root user; do
		setup_user "$who"
		local msg
		if msg=$(cd "$P" && "case_$name" "$who" 2>&1); then
			ok "$name [$who]"
		else
			bad "$name [$who]: $msg"
		fi
	done
}

# expect WHAT ACTUAL-STATUS WANTED-STATUS [OUTPUT]
want_status() {
	[ "$1" = "$2" ] || { echo "status $1, wanted $2; output: ${3:-}"; return 1; }
}

# ------------------------------------------------------------------ cases

# The original README's first example.
case_echo_hello() {
	local out
	out=$(as "$1" "$H" run echo hello 2>&1)
	[ "$out" = hello ] || { echo "got: $out"; return 1; }
}

# The command starts in the caller's directory and can read it; it
# cannot write there, and TMPDIR (the fresh working directory) is the
# writable place.
case_starts_in_the_callers_directory() {
	local out
	out=$(as "$1" "$H" run sh -c 'pwd; cat readme.txt; echo t >"$TMPDIR/t" && cat "$TMPDIR/t"' 2>&1)
	[ "$out" = "$P
project file
t" ] || { echo "got: $out"; return 1; }
	as "$1" "$H" run sh -c 'echo x >new.txt' 2>/dev/null && { echo "wrote into the caller's directory"; return 1; }
	[ ! -e new.txt ] || { echo "new.txt exists"; return 1; }
	# Control: with a grant, the same write lands.
	as "$1" "$H" run --writable . sh -c 'echo x >new.txt' || { echo "the granted write failed"; return 1; }
	[ -s new.txt ] || { echo "new.txt missing after a granted write"; return 1; }
}

# A directory reached through another mount namespace (nsenter --mount
# --wd, as some container tools enter one): the kernel reports it as
# unreachable from the process's root, and heel still starts there.
case_starts_in_a_directory_entered_from_another_mount_namespace() {
	local out holder
	unshare -m sleep 60 </dev/null >/dev/null 2>&1 &
	holder=$!
	for _ in $(seq 50); do
		[ "$(readlink /proc/$holder/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] && break
		sleep 0.1
	done
	out=$(nsenter --mount=/proc/$holder/ns/mnt --wd="$P" -- \
		bash -c "$(declare -f as); NOBODY=$NOBODY HOMEDIR='$HOMEDIR'; as $1 '$H' run sh -c 'pwd; cat readme.txt'" 2>&1)
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	[ "$out" = "$P
project file" ] || { echo "got: $out"; return 1; }
}

case_status_passes_through() {
	local st
	as "$1" "$H" run sh -c 'exit 42'
	st=$?
	want_status $st 42 || return 1
	as "$1" "$H" run sh -c 'kill -TERM $$'
	st=$?
	want_status $st 143 || return 1
	as "$1" "$H" run /nonexistent/cmd 2>/dev/null
	want_status $? 127
}

case_isolation_strict_reads_system_files() {
	local out
	# /etc/passwd: every root has it (a minimal one has no /etc/hosts).
	out=$(as "$1" "$H" run --isolation strict cat /etc/passwd 2>&1) || { echo "$out"; return 1; }
	grep -q '^root:' <<<"$out" || { echo "got: $out"; return 1; }
}

# A credential is unreadable by default; --protect-credentials=false is
# the control that shows the read itself works.
case_protections_take_a_value() {
	local out
	out=$(as "$1" "$H" run cat "$HOMEDIR/.ssh/id_rsa" 2>&1) && { echo "read the key: $out"; return 1; }
	grep -q SECRET <<<"$out" && { echo "key leaked: $out"; return 1; }
	out=$(as "$1" "$H" run --protect-credentials=false cat "$HOMEDIR/.ssh/id_rsa" 2>&1) ||
		{ echo "control failed: $out"; return 1; }
	[ "$out" = SECRET-KEY ] || { echo "got: $out"; return 1; }
}

# Written, then run: only where the grant says rwx.
case_rwx_grant() {
	as "$1" mkdir -p target
	as "$1" "$H" run --writable ./target sh -c 'cp /bin/true target/t && ./target/t' 2>/dev/null &&
		{ echo "ran a program written into an rw grant"; return 1; }
	as "$1" "$H" run --grant ./target=rwx sh -c 'cp /bin/true target/t2 && ./target/t2' ||
		{ echo "rwx grant did not let the program run"; return 1; }
}

case_python_script_and_code() {
	local out
	out=$(as "$1" "$H" python script.py 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "script says 42" ] || { echo "got: $out"; return 1; }
	out=$(as "$1" "$H" python -c 'import sys; print(sys.argv[1:])' a b 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "['a', 'b']" ] || { echo "got: $out"; return 1; }
	# A script outside the caller's directory is made readable too.
	cp script.py "$T/$1/elsewhere.py"
	out=$(cd / && as "$1" "$H" python "$T/$1/elsewhere.py" 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "script says 42" ] || { echo "got: $out"; return 1; }
}

case_env_option() {
	local out
	out=$(FOO=host as "$1" env FOO=host "$H" run --env GREETING=hi --env FOO sh -c 'echo "$GREETING $FOO"' 2>&1)
	[ "$out" = "hi host" ] || { echo "got: $out"; return 1; }
}

case_print_policy_is_canonical_and_compiles() {
	local out
	as "$1" "$H" run --print-policy --isolation strict --writable ./out --max-memory 512MiB \
		--network allow-list --allow-domain example.com --nice 5 -- true >p.heel 2>err || { cat err; return 1; }
	grep -q '^isolation strict' p.heel || { cat p.heel; return 1; }
	grep -q '"example.com"' p.heel || { cat p.heel; return 1; }
	"$T/bin/heelc" fmt --check p.heel || { echo "not in heelc fmt form:"; cat p.heel; return 1; }
	mkdir -p out
	"$T/bin/heelc" check p.heel || return 1
}

case_toml_config() {
	local out
	cat >heel.toml <<'TOML'
# the original's keys
isolation = "strict"
nice = 5
writable = ["./out"]
# strict reads no user data: the project is named to be started in
readable = ["."]
[limits]
open-files = 256
TOML
	as "$1" mkdir -p out
	# nice is steps below the launcher's priority (heel(5)), capped at 19:
	# from the priority this suite was started with, which need not be 0.
	local base
	base=$(as "$1" cut -d" " -f19 /proc/self/stat)
	out=$(as "$1" "$H" run --config heel.toml sh -c 'echo x >out/f && cut -d" " -f19 /proc/self/stat' 2>&1) ||
		{ echo "$out"; return 1; }
	[ "$out" = $((base + 5 > 19 ? 19 : base + 5)) ] || { echo "nice: $out, started at $base"; return 1; }
	[ -s out/f ] || { echo "the config's writable grant did not apply"; return 1; }
	# The command line beats the file.
	out=$(as "$1" "$H" run --config heel.toml --nice 9 cut -d" " -f19 /proc/self/stat 2>&1)
	[ "$out" = $((base + 9 > 19 ? 19 : base + 9)) ] || { echo "nice with --nice 9: $out, started at $base"; return 1; }
	# A mistake is reported as FILE:LINE:COL and nothing runs.
	printf 'nice = 5\nwritable = "./out"\n' >bad.toml
	out=$(as "$1" "$H" run --config bad.toml touch ran 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'bad.toml:2:12: error: `writable` takes an array' <<<"$out" || { echo "got: $out"; return 1; }
	[ ! -e ran ] || { echo "ran despite the error"; return 1; }
}

case_policy_file_heel_and_hpol() {
	local out
	printf 'heel 1\nisolation strict\nenv set "FROM" "policy"\n' >p.heel
	out=$(as "$1" "$H" run --policy p.heel --env EXTRA=1 sh -c 'echo $FROM$EXTRA' 2>err)
	[ "$out" = policy1 ] || { echo "got: $out $(cat err)"; return 1; }
	# strict reads no user data: not the project either, so the command
	# starts in its working directory, and says so.
	grep -q "starting in the working directory, not in $P: isolation strict" err || { echo "stderr: $(cat err)"; return 1; }
	"$T/bin/heelc" p.heel -o p.hpol || return 1
	[ "$1" = root ] || chown $NOBODY:$NOBODY p.hpol
	# A compiled policy is run as reviewed: one that does not let the
	# command read the caller's directory is refused, saying so.
	out=$(as "$1" "$H" run --policy p.hpol sh -c 'echo $FROM' 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'cannot enter it' <<<"$out" || { echo "got: $out"; return 1; }
	printf 'grant "${CWD}" r\n' >>p.heel
	"$T/bin/heelc" p.heel -o p.hpol || return 1
	[ "$1" = root ] || chown $NOBODY:$NOBODY p.hpol
	out=$(as "$1" "$H" run --policy p.hpol sh -c 'echo $FROM' 2>&1)
	[ "$out" = policy ] || { echo "got: $out"; return 1; }
	out=$(as "$1" "$H" run --policy p.hpol --writable . true 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'cannot change the compiled policy' <<<"$out" || { echo "got: $out"; return 1; }
}

# A repository cannot grant itself more: nothing in the current directory
# is read unless named.
case_no_policy_from_the_current_directory() {
	printf 'heel 1\ngrant "${CWD}" rw\n' >heel.heel
	cp heel.heel .heel
	printf 'writable = ["."]\n' >heel.toml
	cp heel.toml .heel.toml
	as "$1" "$H" run sh -c 'echo x >planted' 2>/dev/null
	[ ! -e planted ] || { echo "a policy file in the current directory was used"; return 1; }
}

case_link_inside_a_writable_grant_is_refused() {
	local out
	mkdir -p work secret
	echo s >secret/s
	ln -s ../secret work/out
	# The user's own place: a sandbox of theirs could have made the link
	# (one in a directory only root may change could not be theirs).
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY work
	out=$(as "$1" "$H" run --writable ./work --readable ./work/out cat work/out/s 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'crosses the symbolic link' <<<"$out" || { echo "got: $out"; return 1; }
	# Control: a link outside the writable places is followed.
	ln -s secret plain
	out=$(as "$1" "$H" run --writable ./work --readable ./plain cat plain/s 2>&1) || { echo "$out"; return 1; }
	[ "$out" = s ] || { echo "got: $out"; return 1; }
}

case_keep_working_dir() {
	local out dir
	out=$(as "$1" "$H" run --keep-working-dir sh -c 'echo kept >"$TMPDIR/k"' 2>&1) || { echo "$out"; return 1; }
	dir=$(sed -n 's/^heel: the working directory is \(.*\); it is kept after the run$/\1/p' <<<"$out")
	[ -n "$dir" ] || { echo "no path printed: $out"; return 1; }
	grep -q kept "$dir"/*/k "$dir/k" 2>/dev/null || { echo "nothing kept in $dir: $(ls -la "$dir")"; rm -rf "$dir"; return 1; }
	rm -rf "$dir"
}

case_shell_has_a_terminal_of_its_own() {
	local out
	out=$(as "$1" python3 "$HERE/ptyshell.py" 'echo answer=$((6*7))' 'tty' 'exit 3' -- "$H" shell --shell /bin/sh 2>&1)
	grep -q 'answer=42' <<<"$out" || { echo "no answer: $out"; return 1; }
	grep -q '^/dev/pts/' <<<"$(tr -d '\r' <<<"$out")" || { echo "no tty: $out"; return 1; }
	grep -q MODES-RESTORED <<<"$out" || { echo "terminal modes changed: $out"; return 1; }
	grep -q 'EXIT 3' <<<"$out" || { echo "exit status: $out"; return 1; }
}

case_usage_errors_say_what_was_wrong() {
	local out
	out=$(as "$1" "$H" run 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'heel run needs a command' <<<"$out" || { echo "got: $out"; return 1; }
	out=$(as "$1" "$H" frob 2>&1)
	grep -q 'unknown subcommand `frob`' <<<"$out" || { echo "got: $out"; return 1; }
	out=$(as "$1" "$H" --help 2>&1) || { echo "--help failed: $out"; return 1; }
	grep -q -- '--protect-SET' <<<"$out" || { echo "help: $out"; return 1; }
	out=$(as "$1" "$H" --version 2>&1) || return 1
	grep -q '^heel ' <<<"$out" || { echo "version: $out"; return 1; }
}

case_heel_exec_must_be_beside_heel() {
	local out
	mkdir -p alone
	cp "$H" alone/heel
	out=$(as "$1" ./alone/heel run true 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'heel-exec is not beside heel' <<<"$out" || { echo "got: $out"; return 1; }
}

# The compile cache: a second run with the same options takes the
# artifact compiled by the first; a changed included policy, a damaged
# entry or an entry another user could write is never used.
case_compile_cache() {
	local out c=$HOMEDIR/.cache/heel e
	# One policy text, one entry: without tool caches, whose grant makes
	# a second text (and entry) of every launch (heel(1), TOOL CACHES).
	local nc=--tool-caches=false
	printf 'heel 1\nenv set "FROM" "first"\n' >p.heel
	out=$(as "$1" "$H" run $nc --policy p.heel sh -c 'echo $FROM' 2>&1)
	[ "$out" = first ] || { echo "got: $out"; return 1; }
	e=$(ls "$c" 2>/dev/null)
	[ "$(echo "$e" | wc -w)" = 1 ] || { echo "cache holds: $(ls -la "$c")"; return 1; }
	[ "$(stat -c %a "$c")" = 700 ] && [ "$(stat -c %a "$c/$e")" = 600 ] || { echo "modes: $(ls -la "$c")"; return 1; }
	printf 'heel 1\nenv set "FROM" "second"\n' >p.heel
	out=$(as "$1" "$H" run $nc --policy p.heel sh -c 'echo $FROM' 2>&1)
	[ "$out" = second ] || { echo "a changed included policy was not recompiled: $out"; return 1; }
	# Damage the artifact inside the entry: the run compiles again.
	e=$(ls "$c")
	printf 'XXXX' | dd of="$c/$e" bs=1 seek=400 conv=notrunc 2>/dev/null
	out=$(as "$1" "$H" run $nc --policy p.heel sh -c 'echo $FROM' 2>&1)
	[ "$out" = second ] || { echo "a damaged entry: $out"; return 1; }
	# Writable by the group: not used, replaced.
	chmod 620 "$c/$e"
	out=$(as "$1" "$H" run $nc --policy p.heel sh -c 'echo $FROM' 2>&1)
	[ "$out" = second ] || { echo "a group-writable entry: $out"; return 1; }
	[ "$(stat -c %a "$c/$e")" = 600 ] || { echo "the entry was not replaced: $(ls -la "$c")"; return 1; }
	# HEEL_NO_CACHE: nothing is stored.
	rm -rf "$c"
	out=$(as "$1" env HEEL_NO_CACHE=1 "$H" run $nc --policy p.heel true 2>&1) || { echo "$out"; return 1; }
	[ -z "$(ls -A "$c" 2>/dev/null)" ] || { echo "HEEL_NO_CACHE stored: $(ls "$c")"; return 1; }
}

# The original README's `heel run --grant ./target=rwx cargo test`: a
# build directory written, then its programs run. As written on a fresh
# checkout it is refused naming the missing directory; with the
# directory there it runs the tests; with `rw` instead of `rwx` the test
# binary cannot run (the control).
case_readme_cargo_test() {
	local out
	command -v cargo >/dev/null || { echo "SKIPPED: no cargo"; return 0; }
	mkdir -p crate/src
	printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' >crate/Cargo.toml
	printf 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod t { #[test] fn adds() { assert_eq!(super::add(2, 2), 4); } }\n' >crate/src/lib.rs
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY crate
	cd crate || return 1
	as "$1" cargo generate-lockfile >/dev/null 2>&1 || { echo "cargo generate-lockfile failed"; return 1; }
	out=$(as "$1" "$H" run --grant ./target=rwx cargo test 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q 'target does not exist; create it' <<<"$out" || { echo "got: $out"; return 1; }
	as "$1" mkdir target
	out=$(as "$1" "$H" run --grant ./target=rwx cargo test 2>&1) || { echo "$out"; return 1; }
	grep -q 'test t::adds ... ok' <<<"$out" || { echo "got: $out"; return 1; }
	out=$(as "$1" "$H" run --writable ./target cargo test 2>&1) && { echo "ran a test binary from an rw grant: $out"; return 1; }
	grep -q 'Permission denied' <<<"$out" || { echo "got: $out"; return 1; }
}

# The original README's `heel run --protect-credentials=false ssh-add -l`:
# ssh-add runs (its own status and message, not heel's 125); reaching an
# agent's socket takes a policy that allows unix sockets (heel(5)).
case_readme_ssh_add() {
	local out
	command -v ssh-add >/dev/null || { echo "SKIPPED: no ssh-add"; return 0; }
	out=$(as "$1" "$H" run --protect-credentials=false ssh-add -l 2>&1)
	want_status $? 2 "$out" || return 1
	grep -q 'authentication agent' <<<"$out" || { echo "got: $out"; return 1; }
}

# The compile cache is what later runs launch: a sandbox that may write
# the whole home (permissive) still cannot plant an entry there, unless
# the host-run set is turned off (the control).
case_cache_is_out_of_reach() {
	local c=$HOMEDIR/.cache/heel out
	out=$(as "$1" "$H" run --isolation permissive sh -c "echo planted >'$c/planted'" 2>&1)
	[ ! -e "$c/planted" ] || { echo "a sandbox wrote into the cache: $out"; return 1; }
	# Nor without the host-run set: heel-exec keeps the cache read-only
	# by itself.
	rm -f "$HOMEDIR/.local/state/heel/writable-places"
	out=$(as "$1" "$H" run --isolation permissive --protect-host-run=false \
		sh -c "echo planted >'$c/planted'" 2>&1)
	[ ! -e "$c/planted" ] || { echo "without host-run a sandbox wrote into the cache: $out"; return 1; }
	# As root that run could change heel itself, and the record of it
	# keeps heel from running anything root can change until the user
	# says they have checked: here, by removing the record. The control:
	# a grant of the very directory wins, as for any read-only path.
	rm -f "$HOMEDIR/.local/state/heel/writable-places"
	out=$(as "$1" "$H" run --isolation permissive --writable "$c" \
		sh -c "echo planted >'$c/planted'" 2>&1) || { echo "control: $out"; return 1; }
	[ -e "$c/planted" ] || { echo "control: nothing written: $out"; return 1; }
}

# The README's first commands run as written, in a directory where
# build/bin is this build.
case_readme_first_commands() {
	local line n=0
	mkdir -p build
	ln -s "$T/bin" build/bin
	while IFS= read -r line; do
		n=$((n + 1))
		as "$1" bash -c "$line" >out 2>&1 && continue
		# heel doctor's status is 1 when a wall is missing here (uid
		# 65534 has no cgroup of its own): a report that names each
		# missing wall and what raises it is what the README promises.
		[[ "$line" == "build/bin/heel doctor"* ]] && grep -q 'raise' out && continue
		echo "\`$line\` failed: $(cat out)"
		return 1
	done < <(sed -n '/^```sh$/,/^```$/p' "$HERE/../../README.md" | grep '^build/bin/heel ')
	[ "$n" -ge 3 ] || { echo "found $n heel commands in the README"; return 1; }
	[ -s stamp ] || { echo "the README's write did not land"; return 1; }
	"$T/bin/heelc" check sandbox.heel || { echo "the README's printed policy does not compile"; return 1; }
}

# The read grant of the directory the command starts in never beats a
# protection: started in ~/.ssh, ~/.aws, ~/.gnupg or a directory beneath
# one, heel refuses, names the set and the option that lifts it, and the
# secret is not printed; with that option the same cat reads it.
case_start_directory_never_beats_a_protection() {
	local d sub file set out
	mkdir -p "$HOMEDIR/.ssh/keys" "$HOMEDIR/.aws" "$HOMEDIR/.gnupg"
	echo SECRET-SUBKEY >"$HOMEDIR/.ssh/keys/id"
	echo SECRET-AWS >"$HOMEDIR/.aws/credentials"
	echo SECRET-GPG >"$HOMEDIR/.gnupg/key"
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY "$HOMEDIR"
	for d in .ssh:id_rsa:credentials .ssh/keys:id:credentials .aws:credentials:cloud-config \
		.gnupg:key:credentials; do
		IFS=: read -r sub file set <<<"$d"
		out=$(cd "$HOMEDIR/$sub" && as "$1" "$H" run cat "$file" 2>&1)
		want_status $? 125 "$out" || return 1
		grep -q SECRET <<<"$out" && { echo "$sub: the secret was printed: $out"; return 1; }
		grep -q "^heel: not starting in $HOMEDIR/$sub: the protection set \`$set\` (deny \"\${HOME}/${sub%%/*}\" at <protect/$set>:[0-9]*) denies it" <<<"$out" ||
			{ echo "$sub: $out"; return 1; }
		grep -q -- "--protect-$set=false lifts the protection" <<<"$out" || { echo "$sub: $out"; return 1; }
		out=$(cd "$HOMEDIR/$sub" && as "$1" "$H" run --protect-$set=false cat "$file" 2>&1) ||
			{ echo "$sub, --protect-$set=false: $out"; return 1; }
		grep -q '^SECRET-' <<<"$out" || { echo "$sub, lifted: $out"; return 1; }
	done
	# The home reached through a link: the protection follows it.
	ln -s home "$T/$1/homelink"
	out=$(cd "$HOMEDIR/.ssh" && HOMEDIR=$T/$1/homelink as "$1" "$H" run cat id_rsa 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q SECRET <<<"$out" && { echo "linked home: the secret was printed: $out"; return 1; }
	grep -q 'the protection set `credentials`' <<<"$out" || { echo "linked home: $out"; return 1; }
	# --print-policy agrees with the run: refused alike.
	out=$(cd "$HOMEDIR/.ssh" && as "$1" "$H" run --print-policy cat id_rsa 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q "not starting in $HOMEDIR/.ssh" <<<"$out" || { echo "--print-policy: $out"; return 1; }
}

# Started in the home itself: strict reads no user data, so the command
# starts in its working directory and says so (--readable . the control);
# under --protect-user-home heel refuses (--protect-user-home=false the
# control).
case_start_directory_home_under_strict_and_protect_user_home() {
	local out
	echo SECRET-HOME >"$HOMEDIR/notes"
	[ "$1" = root ] || chown $NOBODY:$NOBODY "$HOMEDIR/notes"
	out=$(cd "$HOMEDIR" && as "$1" "$H" run --isolation strict sh -c "pwd; cat notes; cat '$HOMEDIR/notes'" 2>&1)
	grep -q SECRET <<<"$out" && { echo "strict: the home was read: $out"; return 1; }
	grep -q "^heel: starting in the working directory, not in $HOMEDIR: isolation strict reads no user data" <<<"$out" ||
		{ echo "strict: $out"; return 1; }
	grep -q -- "--readable \. lets the command read the directory" <<<"$out" || { echo "strict: $out"; return 1; }
	grep -q "^/tmp/heel-" <<<"$out" || { echo "strict: not started in the working directory: $out"; return 1; }
	out=$(cd "$HOMEDIR" && as "$1" "$H" run --isolation strict --readable . sh -c 'pwd; cat notes' 2>&1) ||
		{ echo "strict --readable .: $out"; return 1; }
	[ "$out" = "$HOMEDIR
SECRET-HOME" ] || { echo "strict --readable .: $out"; return 1; }
	# Named explicitly, the home is read; its protections still hold.
	out=$(cd "$HOMEDIR" && as "$1" "$H" run --isolation strict --readable . cat .ssh/id_rsa 2>&1) &&
		{ echo "strict --readable .: read the key: $out"; return 1; }
	grep -q SECRET <<<"$out" && { echo "strict --readable .: key leaked: $out"; return 1; }

	out=$(cd "$HOMEDIR" && as "$1" "$H" run --protect-user-home cat notes 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q SECRET <<<"$out" && { echo "--protect-user-home: the home was read: $out"; return 1; }
	grep -q "^heel: not starting in $HOMEDIR: the protection set \`user-home\`" <<<"$out" || { echo "$out"; return 1; }
	grep -q -- "--protect-user-home=false lifts the protection" <<<"$out" || { echo "$out"; return 1; }
	out=$(cd "$HOMEDIR" && as "$1" "$H" run --protect-user-home --protect-user-home=false cat notes 2>&1) ||
		{ echo "--protect-user-home=false: $out"; return 1; }
	[ "$out" = SECRET-HOME ] || { echo "--protect-user-home=false: $out"; return 1; }
}

# A deny in a --policy file, spelled through a link, and a directory
# beneath it: refused, naming the line; --readable . is the control.
case_start_directory_never_beats_a_policy_deny() {
	local sub out
	mkdir -p private/inner
	echo SECRET-PRIVATE >private/s
	echo SECRET-INNER >private/inner/s
	ln -s proj "$T/$1/plink"
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY private
	printf 'heel 1\ndeny "%s/plink/private"\n' "$T/$1" >deny.heel
	for sub in private private/inner; do
		out=$(cd "$sub" && as "$1" "$H" run --policy "$P/deny.heel" cat s 2>&1)
		want_status $? 125 "$out" || return 1
		grep -q SECRET <<<"$out" && { echo "$sub: the secret was printed: $out"; return 1; }
		grep -q "^heel: not starting in $P/$sub: \`deny \"$T/$1/plink/private\"\` at $P/deny.heel:2 denies it" <<<"$out" ||
			{ echo "$sub: $out"; return 1; }
		grep -q -- "--readable \. grants the directory explicitly" <<<"$out" || { echo "$sub: $out"; return 1; }
		out=$(cd "$sub" && as "$1" "$H" run --policy "$P/deny.heel" --readable . cat s 2>/dev/null) ||
			{ echo "$sub, --readable .: $out"; return 1; }
		grep -q '^SECRET-' <<<"$out" || { echo "$sub, --readable .: $out"; return 1; }
	done
	# Control: the project beside the deny starts as always.
	out=$(as "$1" "$H" run --policy "$P/deny.heel" cat readme.txt 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "project file" ] || { echo "got: $out"; return 1; }
}

# Shared temp: /var/tmp is read by default (nothing added), is refused
# under --protect-shared-temp and is not started in under strict.
case_start_directory_in_shared_temp() {
	local d=$VT/$1 out
	rm -rf "$d"
	mkdir -p "$d"
	echo TEMP-FILE >"$d/f"
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY "$d"
	out=$(cd "$d" && as "$1" "$H" run cat f 2>&1) || { echo "default: $out"; return 1; }
	[ "$out" = TEMP-FILE ] || { echo "default: $out"; return 1; }
	out=$(cd "$d" && as "$1" "$H" run --protect-shared-temp cat f 2>&1)
	want_status $? 125 "$out" || return 1
	grep -q TEMP-FILE <<<"$out" && { echo "--protect-shared-temp: read: $out"; return 1; }
	grep -q -- 'the protection set `shared-temp`.*--protect-shared-temp=false lifts' <<<"$out" ||
		{ echo "--protect-shared-temp: $out"; return 1; }
	out=$(cd "$d" && as "$1" "$H" run --isolation strict cat f 2>&1)
	grep -q TEMP-FILE <<<"$out" && { echo "strict: read: $out"; return 1; }
	grep -q "^heel: starting in the working directory, not in $d: isolation strict" <<<"$out" || { echo "strict: $out"; return 1; }
}

# A project no rule of the base covers (/var/lib/...): the start
# directory's own read grant is what lets the command read it, and
# --print-policy shows that grant.
case_start_directory_granted_where_nothing_decides() {
	local d=$OUT/$1 out
	rm -rf "$d"
	mkdir -p "$d/proj"
	echo OUTSIDE >"$d/proj/f"
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY "$d"
	out=$(cd "$d/proj" && as "$1" "$H" run sh -c 'pwd; cat f' 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "$d/proj
OUTSIDE" ] || { echo "got: $out"; return 1; }
	out=$(cd "$d/proj" && as "$1" "$H" run --print-policy cat f 2>&1) || { echo "$out"; return 1; }
	grep -q '^grant "${CWD}" r' <<<"$out" || { echo "--print-policy: $out"; return 1; }
	# Control: elsewhere in /var/lib nothing is read.
	out=$(cd "$d/proj" && as "$1" "$H" run cat "$d/f" 2>&1) && { echo "read beside: $out"; return 1; }
	# Started in /tmp, which the base reads already, nothing is added.
	out=$(as "$1" "$H" run --print-policy cat readme.txt 2>&1) || { echo "$out"; return 1; }
	grep -q 'CWD' <<<"$out" && { echo "--print-policy in /tmp: $out"; return 1; }
	return 0
}

# The start directory's read grant never narrows a writable grant or a
# writable base: a writable parent takes new entries, the start
# directory too, and under permissive the project and the home do.
case_start_directory_never_narrows_a_writable_grant() {
	local where out
	for where in "$P" "$OUT/$1"; do
		rm -rf "$where/w"
		as "$1" mkdir -p "$where/w/src" || { echo "mkdir $where/w/src"; return 1; }
		out=$(cd "$where/w/src" && as "$1" "$H" run --writable .. -- sh -c 'touch ../new && touch here' 2>&1) ||
			{ echo "$where: --writable ..: $out"; return 1; }
		[ -e "$where/w/new" ] && [ -e "$where/w/src/here" ] || { echo "$where: nothing written: $out"; return 1; }
		out=$(cd "$where/w/src" && as "$1" "$H" run --print-policy --writable .. -- true 2>&1)
		grep -q 'CWD' <<<"$out" && { echo "$where: --print-policy: $out"; return 1; }
	done
	as "$1" mkdir -p "$HOMEDIR/proj"
	out=$(cd "$HOMEDIR/proj" && as "$1" "$H" run --isolation permissive sh -c "touch inproj && touch '$HOMEDIR/inhome'" 2>&1) ||
		{ echo "permissive: $out"; return 1; }
	[ -e "$HOMEDIR/proj/inproj" ] && [ -e "$HOMEDIR/inhome" ] || { echo "permissive: nothing written: $out"; return 1; }
	# As root that run could change heel itself: its record refuses the
	# next until the user says they checked (heel(5), WHAT PERSISTS).
	[ "$1" = root ] && rm -f "$HOMEDIR/.local/state/heel/writable-places"
	out=$(as "$1" "$H" run --isolation permissive touch inP 2>&1) || { echo "permissive in $P: $out"; return 1; }
	[ -e inP ] || { echo "permissive: nothing written in $P"; return 1; }
}

# ------------------------------------------------------------ root only
# root_NAME: run once, as root (they install files or mount).
run_root() {
	local name=$1 msg
	# shellcheck disable=SC2053
	[[ $name == $ONLY ]] || return 0
	[ "$(id -u)" = 0 ] || { skip "$name: needs root"; return 0; }
	setup_user root
	if msg=$(cd "$P" && "root_$name" 2>&1); then ok "$name [root]"; else bad "$name [root]: $msg"; fi
}

# make install puts every part in place (with its mode), each part works
# from there, and make uninstall removes exactly what install put.
root_install_uninstall() {
	local d=$T/dest pre=/usr/local f out
	(cd "$HERE/../.." && make --no-print-directory install DESTDIR="$d" >"$T/install.log" 2>&1) ||
		{ cat "$T/install.log"; return 1; }
	for f in bin/heel:755 bin/heelc:755 bin/heel-exec:755 bin/heel-proxy:755 \
		share/man/man1/heel.1:644 share/man/man1/heelc.1:644 share/man/man1/heel-exec.1:644 \
		share/man/man5/heel.5:644 share/heel/policies/python.heel:644 \
		share/heel/policies/protect/credentials.heel:644 share/heel/policies/default.heel:644 \
		share/doc/heel/examples/demo.heel:644 \
		share/bash-completion/completions/heel:644 share/bash-completion/completions/heelc:644 \
		share/bash-completion/completions/heel-exec:644 share/zsh/site-functions/_heel:644 \
		share/vim/vimfiles/syntax/heel.vim:644 share/vim/vimfiles/ftdetect/heel.vim:644; do
		[ -f "$d$pre/${f%:*}" ] || { echo "not installed: ${f%:*}"; return 1; }
		[ "$(stat -c %a "$d$pre/${f%:*}")" = "${f#*:}" ] || { echo "mode of ${f%:*}: $(stat -c %a "$d$pre/${f%:*}")"; return 1; }
	done
	# The installed heel finds the installed heel-exec beside it.
	out=$("$d$pre/bin/heel" run echo from-the-install 2>&1) || { echo "$out"; return 1; }
	[ "$out" = from-the-install ] || { echo "got: $out"; return 1; }
	# Man pages render without warnings.
	for f in man1/heel.1 man1/heelc.1 man1/heel-exec.1 man5/heel.5; do
		out=$(LC_ALL=C.UTF-8 groff -man -ww -z "$d$pre/share/man/$f" 2>&1)
		[ -z "$out" ] || { echo "$f: $out"; return 1; }
	done
	# bash: the completion offers heel's subcommands and options.
	out=$(bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null; . "$1"
		COMP_WORDS=(heel run --isol); COMP_CWORD=2; _heel; echo "${COMPREPLY[*]}"
		COMP_WORDS=(heel ""); COMP_CWORD=1; _heel; echo "${COMPREPLY[*]}"
		COMP_WORDS=(heel run --network ""); COMP_CWORD=3; _heel; echo "${COMPREPLY[*]}"' _ \
		"$d$pre/share/bash-completion/completions/heel" 2>&1)
	[ "$out" = "--isolation
run shell python --help --version
deny allow-all allow-list" ] || { echo "bash completion: $out"; return 1; }
	zsh -n "$d$pre/share/zsh/site-functions/_heel" || { echo "zsh: the completion does not parse"; return 1; }
	# vim: a .heel file gets the heel syntax; `grant` is a statement.
	printf 'heel 1\ngrant "/usr/share" r\n' >"$T/v.heel"
	out=$(HOME=$T vim -Nu NONE -i NONE -es --cmd "set rtp^=$d$pre/share/vim/vimfiles" \
		-c 'filetype on' -c 'syntax on' -c 'edit '"$T"'/v.heel' \
		-c 'redir! > '"$T"'/vim.out' -c 'echo &filetype synIDattr(synID(2, 1, 1), "name")' -c 'redir END' -c 'qa!' 2>&1;
		cat "$T/vim.out")
	grep -q 'heel heelStatement' <<<"$out" || { echo "vim: $out"; return 1; }
	(cd "$HERE/../.." && make --no-print-directory uninstall DESTDIR="$d" >"$T/uninstall.log" 2>&1) ||
		{ cat "$T/uninstall.log"; return 1; }
	out=$(find "$d" -type f)
	[ -z "$out" ] || { echo "left after uninstall: $out"; return 1; }
	[ ! -e "$d$pre/share/heel" ] || { echo "share/heel left after uninstall"; return 1; }
}

# `include <name>` finds a site's preset beside the installed policies,
# and refuses one others could have changed.
root_site_preset() {
	local out
	out=$(unshare -m sh -c '
		mount -t tmpfs site /usr/local/share && mkdir -p /usr/local/share/heel/policies &&
		printf "heel 1\nenv set \"SITE\" \"yes\"\n" >/usr/local/share/heel/policies/site.heel &&
		printf "heel 1\ninclude <site>\n" >p.heel &&
		"$1" run --policy p.heel sh -c "echo SITE=\$SITE" &&
		chmod 666 /usr/local/share/heel/policies/site.heel &&
		echo "# changed by someone else" >>/usr/local/share/heel/policies/site.heel &&
		"$1" run --policy p.heel true' _ "$H" 2>&1)
	grep -q 'SITE=yes' <<<"$out" || { echo "the site preset was not found: $out"; return 1; }
	grep -q 'is not trusted: others can change it' <<<"$out" || { echo "a writable preset was used: $out"; return 1; }
}

# ~/.ssh reached through a bind mount elsewhere is still ~/.ssh: the
# deny counts at every spelling of its place (by identity), so heel
# refuses to start there; the control is a bind mount of the project.
root_start_directory_through_a_bind_mount() {
	local out
	mkdir -p "$T/alias"
	out=$(unshare -m sh -c '
		mount --make-rprivate / && mount --bind "$1/.ssh" "$2" && cd "$2" &&
		env -i PATH=/usr/bin:/bin HOME="$1" "$3" run cat id_rsa' _ "$HOMEDIR" "$T/alias" "$H" 2>&1)
	grep -q SECRET <<<"$out" && { echo "the key was read through the alias: $out"; return 1; }
	grep -q "not starting in $T/alias: the protection set \`credentials\`" <<<"$out" || { echo "got: $out"; return 1; }
	out=$(unshare -m sh -c '
		mount --make-rprivate / && mount --bind "$1" "$2" && cd "$2" &&
		env -i PATH=/usr/bin:/bin HOME="$3" "$4" run cat readme.txt' _ "$P" "$T/alias" "$HOMEDIR" "$H" 2>&1)
	[ "$out" = "project file" ] || { echo "control: $out"; return 1; }
}

for c in $(declare -F | sed -n 's/^declare -f case_//p'); do
	run_case "$c"
done
for c in $(declare -F | sed -n 's/^declare -f root_//p'); do
	run_root "$c"
done
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

#!/bin/bash
# SPDX-License-Identifier: MIT
# Live tests of host commands (`ipc`): heel-exec starts heel-broker, the
# sandbox runs the commands' names from a read-only directory on PATH,
# and heel-broker runs the declared programs on the host. Every case runs
# the real launcher and asserts on effects (what the host program was
# given and where it ran, what came back, what did not run, which process
# is gone), as root and as uid 65534.
# Usage: tests/ipc/run.sh BUILD_DIR [CASE-GLOB]
# Prints "N passed, N failed, N skipped"; exit 1 on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
NOBODY=65534
pass=0 failed=0 skipped=0

for f in heelc heel-exec heel-broker heel-ipc heel-proxy; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

T=$(mktemp -d /tmp/heel-ipc-test.XXXXXX)
chmod 755 "$T"
cleanup() {
	pkill -KILL -f "$T/hostbin/" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# The launchers beside each other, where uid 65534 can run them.
mkdir -p "$T/bin" "$T/hostbin" "$T/log"
cp "$B/bin/heelc" "$B/bin/heel-exec" "$B/bin/heel-broker" "$B/bin/heel-ipc" "$B/bin/heel-proxy" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/* "$T/hostbin"
chmod 1777 "$T/log"
X=$T/bin/heel-exec

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }

# The host programs. echoargs logs its argv and what it finds in its
# directory, prints to both streams, and exits as asked.
cat >"$T/hostbin/echoargs" <<EOF
#!/bin/sh
log=$T/log/echoargs.\$(id -u)
printf '%s\n' "call \$*" >>"\$log"
printf 'cwd-marker=%s\n' "\$(cat marker 2>/dev/null)" >>"\$log"
printf 'env=%s\n' "\$(env | sort | tr '\n' ' ')" >>"\$log"
code=0
for a in "\$@"; do
	case \$a in
	--code=*) code=\${a#--code=} ;;
	--die=true) kill -TERM \$\$ ;;
	esac
done
echo "out: \$*"
echo "err: \$*" >&2
exit \$code
EOF
# sleeper records its pid and sleeps; the broker must kill it.
cat >"$T/hostbin/sleeper" <<EOF
#!/bin/sh
echo \$\$ >$T/log/sleeper.\$(id -u).\$\$
exec sleep 30
EOF
# killbroker: the broker is its parent.
cat >"$T/hostbin/killbroker" <<EOF
#!/bin/sh
kill -KILL \$PPID
EOF
chmod 755 "$T/hostbin"/*

# as WHO CMD...: root or uid 65534 (no groups), small clean environment.
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

uid_of() { [ "$1" = root ] && echo 0 || echo $NOBODY; }

# The policy, compiled for each user into their directory.
write_policy() {
	cat >"$1" <<EOF
heel 1
isolation default
ipc "echoargs" {
    exec "$T/hostbin/echoargs"
    positional "query"
    arg "limit" int
    arg "safe" bool
    arg "code" int
    arg "die" bool
    arg "file" path
    timeout 5s
}
ipc "sleeper" {
    exec "$T/hostbin/sleeper"
    timeout 1s
}
ipc "killbroker" {
    exec "$T/hostbin/killbroker"
}
EOF
}

setup_user() {
	local who=$1
	P=$T/$who/proj
	HOMEDIR=$T/$who/home
	rm -rf "$T/$who"
	mkdir -p "$P" "$HOMEDIR"
	write_policy "$P/p.heel"
	"$T/bin/heelc" "$P/p.heel" -o "$P/p.hpol" >/dev/null 2>&1 || return 1
	rm -f "$T/log/echoargs.$(uid_of "$who")"
	if [ "$who" != root ]; then chown -R $NOBODY:$NOBODY "$T/$who"; fi
	chmod 755 "$T/$who"
}

# sx WHO SCRIPT: runs sh -c SCRIPT in the sandbox; stdout+stderr.
sx() {
	local who=$1
	shift
	(cd "$P" && as "$who" timeout 60 "$X" p.hpol -- sh -c "$1" 2>&1)
}

calls() { cat "$T/log/echoargs.$(uid_of "$1")" 2>/dev/null; }

run_case() {
	local name=$1 who
	# shellcheck disable=SC2053
	[[ $name == $ONLY ]] || return 0
	for who in root user; do
		if ! setup_user "$who"; then
			bad "$name [$who]: the policy does not compile"
			continue
		fi
		local msg
		if msg=$("case_$name" "$who" 2>&1); then
			ok "$name [$who]"
		else
			bad "$name [$who]: $msg"
		fi
	done
}

fail_with() { echo "$*"; return 1; }

# A positional word and the caller's directory reach the host program.
case_positional() {
	local out
	out=$(sx "$1" 'echo from-sandbox > marker; echoargs rust; echo rc=$?')
	grep -qx 'out: --query=rust' <<<"$out" || fail_with "stdout: $out"
	grep -qx 'err: --query=rust' <<<"$out" || fail_with "stderr: $out"
	grep -qx 'rc=0' <<<"$out" || fail_with "status: $out"
	calls "$1" | grep -qx 'call --query=rust' || fail_with "host argv: $(calls "$1")"
	calls "$1" | grep -qx 'cwd-marker=from-sandbox' || fail_with "host cwd: $(calls "$1")"
}

# --name value, --name=value and a bare bool flag, in declaration order.
case_keyed_and_flags() {
	local out
	out=$(sx "$1" 'echoargs q --safe --limit 3 --code=0; echo rc=$?')
	grep -qx 'rc=0' <<<"$out" || fail_with "status: $out"
	calls "$1" | grep -qx 'call --query=q --limit=3 --safe=true --code=0' ||
		fail_with "host argv: $(calls "$1")"
}

# `-` reads the value from stdin; without it stdin is left alone.
case_stdin_argument() {
	local out
	out=$(sx "$1" 'printf "from stdin" | echoargs -; printf "a\nb\n" | { echoargs x >/dev/null; cat; }')
	grep -qx 'out: --query=from stdin' <<<"$out" || fail_with "stdin value: $out"
	grep -qx 'a' <<<"$out" && grep -qx 'b' <<<"$out" || fail_with "stdin consumed: $out"
}

# The host program's status comes back; a signal as 128+N.
case_status() {
	local out
	out=$(sx "$1" 'echoargs x --code 7 >/dev/null 2>&1; echo rc=$?; echoargs x --die >/dev/null 2>&1; echo rc=$?')
	grep -qx 'rc=7' <<<"$out" || fail_with "exit code: $out"
	grep -qx 'rc=143' <<<"$out" || fail_with "signal: $out"
}

# A wrong type and an unknown name fail inside, naming the argument;
# the host program never runs.
case_refused_arguments() {
	local out
	out=$(sx "$1" 'echoargs x --limit ten; echo rc=$?; echoargs x --foo 1; echo rc=$?; echoargs a b; echo rc=$?; echoargs x --safe=maybe; echo rc=$?')
	[ "$(grep -c '^rc=2$' <<<"$out")" = 4 ] || fail_with "statuses: $out"
	grep -q -- '--limit' <<<"$out" || fail_with "no argument named: $out"
	grep -q -- '--foo' <<<"$out" || fail_with "unknown not named: $out"
	[ -z "$(calls "$1")" ] || fail_with "the host program ran: $(calls "$1")"
}

# path arguments: inside the working directory only, given relative to
# the host program's directory; a link out of it is refused.
case_path_argument() {
	local out
	out=$(sx "$1" 'mkdir -p sub && echo x > sub/a.txt && echoargs q --file sub/a.txt >/dev/null; echo rc=$?;
		echoargs q --file /etc/passwd; echo rc=$?; echoargs q --file ../../etc; echo rc=$?;
		ln -s /etc e && echoargs q --file e/passwd; echo rc=$?')
	grep -q '^rc=0$' <<<"$out" || fail_with "inside refused: $out"
	[ "$(grep -c '^rc=2$' <<<"$out")" = 3 ] || fail_with "outside not refused: $out"
	calls "$1" | grep -qx 'call --query=q --file=sub/a.txt' || fail_with "host argv: $(calls "$1")"
	[ "$(calls "$1" | grep -c '^call')" = 1 ] || fail_with "refused calls ran: $(calls "$1")"
}

# Outside the working directory the host program runs in it, not there.
case_cwd_outside_workdir() {
	sx "$1" 'echo wd > marker; cd /usr && echoargs x >/dev/null 2>&1' >/dev/null
	calls "$1" | grep -qx 'cwd-marker=wd' || fail_with "host cwd: $(calls "$1")"
}

# The host program's environment is fresh: nothing of the sandbox's.
case_fresh_environment() {
	sx "$1" 'export SANDBOX_SECRET=leak; echoargs x >/dev/null 2>&1' >/dev/null
	calls "$1" | grep -q '^env=.*HEEL_IPC_COMMAND=echoargs' || fail_with "env: $(calls "$1")"
	! calls "$1" | grep -q 'SANDBOX_SECRET' || fail_with "sandbox variable passed: $(calls "$1")"
}

# Only the declared names exist; the client refuses anything else.
case_undeclared() {
	local out d
	out=$(sx "$1" 'command -v other || echo no-other; d=$(dirname "$(command -v echoargs)");
		"$d/.heel-ipc" other; echo rc=$?; "$d/.heel-ipc" /bin/sh -c id; echo rc=$?')
	grep -qx 'no-other' <<<"$out" || fail_with "an undeclared name exists: $out"
	[ "$(grep -c '^rc=0$' <<<"$out")" = 0 ] || fail_with "undeclared ran: $out"
	! grep -q 'uid=' <<<"$out" || fail_with "ran /bin/sh: $out"
}

# A call that hangs is killed at its timeout, with what it started.
case_timeout() {
	local out start end pidfile
	start=$(date +%s%N)
	out=$(sx "$1" 'sleeper; echo rc=$?')
	end=$(date +%s%N)
	grep -qx 'rc=124' <<<"$out" || fail_with "status: $out"
	[ $(((end - start) / 1000000)) -lt 8000 ] || fail_with "took $(((end - start) / 1000000)) ms"
	for pidfile in "$T/log/sleeper.$(uid_of "$1")".*; do
		[ -e "$pidfile" ] || fail_with "the sleeper never ran"
		! kill -0 "$(cat "$pidfile")" 2>/dev/null || fail_with "sleeper $(cat "$pidfile") alive"
		rm -f "$pidfile"
	done
}

# Ctrl-C (SIGINT to the client) cancels the call on the host.
case_interrupt() {
	local pidfile
	sx "$1" 'timeout -s INT 0.5 sleeper; echo rc=$?' >/dev/null
	sleep 0.3
	for pidfile in "$T/log/sleeper.$(uid_of "$1")".*; do
		[ -e "$pidfile" ] || fail_with "the sleeper never ran"
		! kill -0 "$(cat "$pidfile")" 2>/dev/null || fail_with "sleeper $(cat "$pidfile") alive after SIGINT"
		rm -f "$pidfile"
	done
}

# 50 calls at once all come back right.
case_concurrent() {
	local out
	out=$(sx "$1" 'for i in $(seq 50); do echoargs "q$i" > "o.$i" 2>/dev/null & done; wait;
		n=0; for i in $(seq 50); do grep -qx "out: --query=q$i" "o.$i" && n=$((n+1)); done; echo n=$n')
	grep -qx 'n=50' <<<"$out" || fail_with "$out"
}

# The commands' directory: nothing in it can be written, replaced or
# removed; the working directory beside it can (the control).
case_transport_immutable() {
	local out
	out=$(sx "$1" 'd=$(dirname "$(command -v echoargs)"); ls -A "$d" | tr "\n" " "; echo;
		touch "$d/x" 2>/dev/null && echo wrote; rm -f "$d/echoargs" 2>/dev/null && echo removed;
		ln -sf /bin/sh "$d/echoargs" 2>/dev/null && echo replaced;
		chmod 777 "$d" 2>/dev/null && echo chmodded; cp /bin/sh "$d/.heel-ipc" 2>/dev/null && echo overwrote;
		touch ./control && echo control-ok')
	grep -qx '.heel-ipc echoargs killbroker sleeper ' <<<"$out" || fail_with "listing: $out"
	! grep -qE '^(wrote|removed|replaced|chmodded|overwrote)$' <<<"$out" || fail_with "$out"
	grep -qx 'control-ok' <<<"$out" || fail_with "control: $out"
}

# The client asks the kernel, not a socket: no socket() or connect()
# in the process that makes the call.
case_no_socket_inside() {
	local log cpid
	log=$T/$1/strace.log
	(cd "$P" && as "$1" timeout 60 strace -f -qq -o "$log" -e trace=execve,socket,connect,ioctl \
		"$X" p.hpol -- echoargs x >/dev/null 2>&1)
	# The caller is the process that made the call; what it did after it
	# became the client (its last execve) is what counts.
	cpid=$(grep -E '^[0-9]+ +ioctl\(-1, ' "$log" | head -1 | cut -d' ' -f1)
	[ -n "$cpid" ] || fail_with "no call traced: $(head -5 "$log")"
	grep -E "^$cpid " "$log" | awk '/execve\(/ { n = NR } { line[NR] = $0 } END { for (i = n; i <= NR; i++) print line[i] }' >"$log.client"
	grep -q 'execve(' "$log.client" || fail_with "the client's execve not traced"
	! grep -E "^$cpid +(socket|connect)\(" "$log.client" || fail_with "the client opened a socket"
}

# A killed broker: the next call fails at once with a clear message.
case_broker_killed() {
	local out start end
	start=$(date +%s%N)
	out=$(sx "$1" 'killbroker; echoargs x; echo rc=$?')
	end=$(date +%s%N)
	grep -qx 'rc=125' <<<"$out" || fail_with "status: $out"
	grep -q 'stopped' <<<"$out" || fail_with "message: $out"
	[ $(((end - start) / 1000000)) -lt 5000 ] || fail_with "took $(((end - start) / 1000000)) ms"
}

# Spawners that close every descriptor and clear the environment still
# reach the commands: the client asks the kernel, not an inherited fd.
case_close_fds_and_env() {
	local out
	command -v python3 >/dev/null || { echo "no python3"; return 0; }
	out=$(sx "$1" 'python3 -c "import subprocess; r = subprocess.run([\"echoargs\", \"py\"], capture_output=True, text=True, close_fds=True); print(r.stdout.strip(), r.returncode)";
		env -i "$(command -v echoargs)" clean')
	grep -qx 'out: --query=py 0' <<<"$out" || fail_with "python: $out"
	grep -qx 'out: --query=clean' <<<"$out" || fail_with "env -i: $out"
}

# A program the sandbox could write is refused before anything runs: a
# copy of the user's own, in a directory the policy grants writable. (A
# grant of a directory the user cannot write gives the sandbox nothing:
# the program in root's hostbin/ stays runnable for uid 65534.)
case_writable_program_refused() {
	local out d=$T/$1/ubin
	mkdir -p "$d"
	cp "$T/hostbin/echoargs" "$d/"
	[ "$1" = root ] || chown -R $NOBODY "$d"
	sed -i "s|$T/hostbin/echoargs|$d/echoargs|; s|^isolation default|isolation default\ngrant \"$d\" rw|" "$P/p.heel"
	"$T/bin/heelc" "$P/p.heel" -o "$P/p.hpol" >/dev/null 2>&1 || fail_with "compile"
	[ "$1" = root ] || chown $NOBODY "$P/p.hpol"
	out=$(sx "$1" 'echo ran')
	! grep -qx ran <<<"$out" || fail_with "it ran: $out"
	grep -q 'ipc "echoargs": the host program .* which this launch.s sandbox may write .*heel runs nothing on the host that a sandbox could have changed' <<<"$out" ||
		fail_with "message: $out"
}

# An audit sink under network deny records each call, refused ones too.
case_audit() {
	local log out
	log=$T/$1/audit.jsonl
	sed -i "s|^isolation default|isolation default\nnetwork audit \"$log\"|" "$P/p.heel"
	"$T/bin/heelc" "$P/p.heel" -o "$P/p.hpol" >/dev/null 2>&1 || fail_with "compile"
	[ "$1" = root ] || chown $NOBODY "$P/p.hpol" "$T/$1"
	out=$(sx "$1" 'echoargs a --code 3; echoargs b --limit x; echo done')
	grep -qx done <<<"$out" || fail_with "run: $out"
	[ "$(wc -l <"$log")" = 2 ] || fail_with "lines: $(cat "$log")"
	python3 - "$log" <<'EOF' || fail_with "audit: $(cat "$log")"
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
assert a["ipc"] == "echoargs" and a["args"] == ["--query=a", "--code=3"] and a["exit"] == 3, a
assert "duration_ms" in a and a["timestamp"].endswith("Z"), a
assert b["ipc"] == "echoargs" and "limit" in b["refused"], b
EOF
}

# heel-exec check names the commands; a missing program is refused
# before anything runs, with or without --best-effort.
case_check() {
	local out
	out=$(cd "$P" && as "$1" "$X" check p.hpol 2>&1)
	grep -q '^host commands: echoargs, sleeper, killbroker' <<<"$out" || fail_with "check: $out"
	sed -i "s|$T/hostbin/sleeper|$T/hostbin/missing|" "$P/p.heel"
	"$T/bin/heelc" "$P/p.heel" -o "$P/p.hpol" >/dev/null 2>&1 || fail_with "compile"
	[ "$1" = root ] || chown $NOBODY "$P/p.hpol"
	out=$(cd "$P" && as "$1" "$X" check p.hpol 2>&1)
	grep -q 'verdict: heel-exec would refuse to run: ipc "sleeper"' <<<"$out" || fail_with "check: $out"
	grep -q 'with --best-effort: still refused' <<<"$out" || fail_with "check: $out"
	out=$(sx "$1" 'echo ran')
	! grep -qx ran <<<"$out" || fail_with "it ran: $out"
	grep -q "$T/hostbin/missing" <<<"$out" || fail_with "message: $out"
}

# policies/examples/ipc.heel as written, its programs swapped for
# echoargs: what its comments promise the host tool gets.
case_example() {
	local out root
	root=$(cd "$(dirname "$0")/../.." && pwd)
	sed -e "s|/usr/local/bin/web-search|$T/hostbin/echoargs|" \
		-e "s|/usr/local/bin/agent-ask|$T/hostbin/echoargs|" \
		"$root/policies/examples/ipc.heel" >"$P/p.heel"
	"$T/bin/heelc" "$P/p.heel" -o "$P/p.hpol" >/dev/null 2>&1 || fail_with "the example does not compile"
	[ "$1" = root ] || chown $NOBODY "$P/p.hpol"
	out=$(sx "$1" 'web-search "rust landlock" --limit 3 >/dev/null; echo rc=$?
		printf "why?" | ask_user - maybe >/dev/null; echo rc=$?; mkdir notes; web-search x --safe=false --save-to notes/a >/dev/null; echo rc=$?')
	[ "$(grep -c '^rc=0$' <<<"$out")" = 3 ] || fail_with "$out"
	calls "$1" | grep -qx 'call --query=rust landlock --limit=3' || fail_with "host argv: $(calls "$1")"
	calls "$1" | grep -qx 'call --question=why? --default=maybe' || fail_with "host argv: $(calls "$1")"
	calls "$1" | grep -qx 'call --query=x --safe=false --save-to=notes/a' || fail_with "host argv: $(calls "$1")"
}

run_case positional
run_case keyed_and_flags
run_case stdin_argument
run_case status
run_case refused_arguments
run_case path_argument
run_case cwd_outside_workdir
run_case fresh_environment
run_case undeclared
run_case timeout
run_case interrupt
run_case concurrent
run_case transport_immutable
run_case no_socket_inside
run_case broker_killed
run_case close_fds_and_env
run_case writable_program_refused
run_case audit
run_case check
run_case example

echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

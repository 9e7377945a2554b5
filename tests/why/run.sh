#!/bin/bash
# SPDX-License-Identifier: MIT
# heel run --why and heel-exec --why, run for real: one refused action
# per wall and per protection set, each checked for its effect (the file
# was not read, written or changed, the program did not run) and for the
# summary line heel-why prints at exit: the right wall, the rule with its
# file:line or option, and the change that allows it; with the positive
# control that the change named does allow it. Then no false positives:
# a make of a small C project and a Python unittest run under --why
# report nothing. And the edges: a policy with host commands is refused
# by name, and a killed heel-why fails the watched calls (ENOSYS) rather
# than hang them or let them run unwatched. As root and as uid 65534,
# each case with a fresh HOME.
#
# Usage: tests/why/run.sh BUILD_DIR [CASE-GLOB]
# Prints one line per case and "N passed, N failed"; exits 1 on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
NOBODY=65534
npass=0 nfail=0

for f in heelc heel heel-exec heel-proxy heel-broker heel-ipc heel-why; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed"; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
	echo "the --why suite runs as root (it also runs each case as uid $NOBODY)"
	echo "0 passed, 0 failed"
	exit 0
fi

T=$(mktemp -d /tmp/heel-why.XXXXXX) || exit 1
chmod 755 "$T"
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# heel's programs where both users can run them and neither can change them.
mkdir -p "$T/bin"
for f in heelc heel heel-exec heel-proxy heel-broker heel-ipc heel-why; do cp "$B/bin/$f" "$T/bin/"; done
chmod 755 "$T/bin" "$T/bin"/*
HEELC=$T/bin/heelc HX=$T/bin/heel-exec HEEL=$T/bin/heel
# The lane "bpf": root with heel-observe beside heel-exec, so --why takes
# the kernel's outcomes from it instead of a seccomp listener; where it
# cannot load here, the lane is skipped by name.
BPF=""
if [ -x "$B/bin/heel-observe" ]; then
	mkdir -p "$T/bpf"
	cp "$T/bin"/* "$B/bin/heel-observe" "$T/bpf/"
	chmod 755 "$T/bpf" "$T/bpf"/*
	if out=$(cd / && "$T/bpf/heel" run -v --why -- true 2>&1) && [[ "$out" == *"denial observer: on"* ]]; then
		BPF=bpf
	else
		echo "SKIP lane bpf: heel-observe does not run here: $(grep -m1 'observer' <<<"$out")"
	fi
else
	echo "SKIP lane bpf: heel-observe is not built (make deps-observe, then make all)"
fi

U=root LANE=root PROB="" CASE=""
prob() { PROB="${PROB:+$PROB; }$*"; }
finish() {
	if [ -n "$PROB" ]; then
		echo "FAIL $CASE [$LANE]: $PROB"
		nfail=$((nfail + 1))
	else
		echo "PASS $CASE [$LANE]"
		npass=$((npass + 1))
	fi
}

# Each case: a fresh HOME H and project P (the launch directory), owned
# by the user; `as CMD...` runs CMD as the user there, with a clean
# environment. OUT and ERR hold the last run's output and status RC.
fresh() {
	D=$T/c-$LANE-$CASE
	H=$D/home P=$D/proj
	mkdir -p "$H" "$P"
	[ "$U" = root ] || chown -R $NOBODY:$NOBODY "$D"
	chmod 755 "$D"
}
as() {
	local pre=()
	[ "$U" = root ] || pre=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	(cd "$P" && "${pre[@]}" env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@") \
		>"$D/out" 2>"$D/err" </dev/null
	RC=$?
	OUT=$(cat "$D/out") ERR=$(cat "$D/err")
}
mk() { # mk PATH CONTENT: a file of the user's
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
	[ "$U" = root ] || chown -R $NOBODY:$NOBODY "$D"
}
has() { # has TEXT: the run's stderr holds a line with every word given
	local line
	while IFS= read -r line; do
		local all=1 w
		for w in "$@"; do [[ "$line" == *"$w"* ]] || { all=0; break; }; done
		[ $all = 1 ] && return 0
	done <<<"$ERR"
	return 1
}
expect_line() { has "$@" || prob "no summary line with: $* (stderr: $(tail -c 600 <<<"$ERR"))"; }
expect_quiet() { ! grep -q '^heel: refused' <<<"$ERR" || prob "refusals reported: $(grep '^heel: refused' <<<"$ERR" | head -3)"; }

# ---------------------------------------------------------------- cases
case_ssh_key_read() {
	mk "$H/.ssh/id_rsa" "SECRET-KEY"
	as "$HEEL" run --why -- cat "$H/.ssh/id_rsa"
	[ $RC != 0 ] && [[ "$OUT" != *SECRET-KEY* ]] || prob "the key was read (rc $RC)"
	expect_line "heel: refused open-read $H/.ssh/id_rsa (cat)" "landlock, protection set credentials" \
		"<protect/credentials>:" "allow: heel run --readable $H/.ssh/id_rsa"
	# The change named allows it, and nothing is reported then.
	as "$HEEL" run --why --readable "$H/.ssh/id_rsa" -- cat "$H/.ssh/id_rsa"
	[ $RC = 0 ] && [[ "$OUT" == *SECRET-KEY* ]] || prob "control: --readable did not allow the read (rc $RC: $ERR)"
	expect_quiet
}

case_write_outside_grants() {
	as "$HEEL" run --why -- sh -c "echo x > '$P/out.txt'"
	[ ! -e "$P/out.txt" ] || prob "the file was written"
	expect_line "heel: refused create $P/out.txt (sh)" "read-only mount" "allow: heel run --writable $P "
	as "$HEEL" run --why --writable "$P" -- sh -c "echo x > '$P/out.txt'"
	[ -e "$P/out.txt" ] || prob "control: --writable did not allow the write ($ERR)"
	expect_quiet
}

case_exec_working_directory() {
	as "$HEEL" run --why -- sh -c 'cp /bin/echo "$TMPDIR/e" && "$TMPDIR/e" RAN-FROM-WORKDIR'
	[[ "$OUT" != *RAN-FROM-WORKDIR* ]] || prob "the program in the working directory ran"
	expect_line "heel: refused exec " "noexec mount, the working directory" "allow: heel run --grant DIR=rwx"
	as "$HEEL" run --why -- sh -c 'cp /bin/echo "$TMPDIR/e" && /bin/echo RAN-FROM-USR'
	[[ "$OUT" == *RAN-FROM-USR* ]] || prob "control: /bin/echo did not run"
	expect_quiet
}

case_exec_launch_directory() {
	mk "$P/tool.sh" "#!/bin/sh
echo TOOL-RAN"
	chmod 755 "$P/tool.sh"
	# The command's own exec is heel-exec's to explain (exit 126), once:
	# heel-why leaves it out. A program the command runs is heel-why's.
	as "$HEEL" run --why -- ./tool.sh
	[[ "$OUT" != *TOOL-RAN* ]] && [ $RC = 126 ] || prob "the launch directory's program ran (rc $RC)"
	[[ "$ERR" == *"heel run --executable $P)"* ]] || prob "heel-exec did not explain the exec: $ERR"
	! has "heel: refused exec $P/tool.sh" || prob "the command's own exec was explained twice"
	as "$HEEL" run --why -- sh -c ./tool.sh
	[[ "$OUT" != *TOOL-RAN* ]] || prob "the launch directory's program ran from sh"
	expect_line "heel: refused exec $P/tool.sh (sh)" "allow: heel run --executable $P "
	as "$HEEL" run --why --executable "$P" -- sh -c ./tool.sh
	[[ "$OUT" == *TOOL-RAN* ]] || prob "control: --executable did not allow it ($ERR)"
	expect_quiet
}

case_chmod_read_only() {
	mk "$P/file" "data"
	chmod 644 "$P/file"
	as "$HEEL" run --why -- chmod 600 "$P/file"
	[ "$(stat -c %a "$P/file")" = 644 ] || prob "the mode changed"
	expect_line "heel: refused setattr $P/file (chmod)" "read-only mount" "allow: heel run --writable $P/file"
	as "$HEEL" run --why --writable "$P/file" -- chmod 600 "$P/file"
	[ "$(stat -c %a "$P/file")" = 600 ] || prob "control: --writable did not allow chmod ($ERR)"
	expect_quiet
}

case_git_hooks_write() {
	mkdir -p "$P/.git/hooks"
	mk "$P/.git/HEAD" "ref: refs/heads/main"
	as "$HEEL" run --why --writable "$P" -- sh -c "echo evil > '$P/.git/hooks/pre-commit'; echo ok > '$P/notes.txt'"
	[ ! -e "$P/.git/hooks/pre-commit" ] || prob "the hook was written"
	[ -e "$P/notes.txt" ] || prob "control: the writable project took no file"
	expect_line "heel: refused create $P/.git/hooks/pre-commit (sh)" "read-only cover, protection set host-run" \
		"<protect/host-run>:" "allow: heel run --writable $P/.git/hooks "
}

case_connect_network_deny() {
	as "$HEEL" run --why -- /usr/bin/python3 -c '
import socket
for a in (("127.0.0.1", 9), ("192.0.2.1", 80)):
    try: socket.create_connection(a, timeout=2)
    except OSError as e: print(a[0], e.errno)'
	[[ "$OUT" == *"192.0.2.1 101"* || "$OUT" == *"192.0.2.1 113"* ]] || prob "the connect was not refused: $OUT"
	expect_line "heel: refused connect 192.0.2.1 port 80 (python3)" "network namespace, network deny (the default)" \
		"allow: heel run --allow-domain HOST"
	# The sandbox's own loopback is its own: refused by no one of ours.
	! has "refused connect 127.0.0.1" || prob "a loopback connect was reported"
}

case_denied_domain() {
	as "$HEEL" run --why --allow-domain example.com -- /usr/bin/python3 -c '
import urllib.request
for u in ("http://denied.invalid/", "http://example.com/"):
    try: urllib.request.urlopen(u, timeout=10); print(u, "ok")
    except Exception as e: print(u, e)'
	[[ "$OUT" == *"denied.invalid/ HTTP Error 403"* ]] || prob "the domain was not refused by the proxy: $OUT"
	expect_line "heel: refused connect denied.invalid (heel-proxy)" "proxy, --allow-domain example.com" \
		"allow: heel run --allow-domain denied.invalid"
	# The allowed name is not a refusal, whatever became of it (this
	# machine may have no internet).
	! has "refused connect example.com" || prob "the allowed domain was reported"
}

case_process_limit() {
	# No observer needed: the tree's cgroup counts the forks it refused.
	as "$HEEL" run --max-processes 5 -- sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 1 & done; wait; echo DONE'
	if [ "$U" != root ] && [[ "$ERR" == *"no cgroup could be made"* ]]; then
		# uid 65534 has no delegated cgroup here: heel-exec refuses by
		# name, and the limit cannot be counted.
		[ $RC = 125 ] || prob "the launch without a cgroup was not refused (rc $RC)"
		return
	fi
	[[ "$ERR" == *"Cannot fork"* ]] || prob "no fork was refused (rc $RC: $ERR)"
	[[ "$ERR" == *"limit processes 5 (--max-processes 5): the sandbox was refused "*" at it (fork and clone failed with EAGAIN"* ]] ||
		prob "the refused forks were not named: $ERR"
	# Within the limit: nothing said.
	as "$HEEL" run --max-processes 50 -- sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 0.1 & done; wait; echo DONE'
	[[ "$OUT" == DONE && "$ERR" != *"was refused"* ]] || prob "control: a run within the limit failed or was said to be refused: $OUT $ERR"
}

case_seccomp_denied_call() {
	as "$HEEL" run --why -- /usr/bin/python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(161, b"/")  # chroot
print("chroot", r, ctypes.get_errno())'
	[[ "$OUT" == "chroot -1 "* ]] || prob "chroot was not refused: $OUT"
	if [ "$LANE" = bpf ]; then
		# heel-observe sees the kernel's outcome, the seccomp filter's too.
		expect_line "heel: refused syscall chroot (python3)" "seccomp" "allow: a policy line seccomp allow \"chroot\""
	else
		# A call the policy's filter denies never reaches heel-why: of
		# two filters the kernel runs the more restrictive action (ERRNO
		# beats USER_NOTIF), so the listener cannot see it, and must not
		# invent it.
		! has "refused syscall" || prob "the observer reported a call it cannot see"
	fi
}

case_heel_exec_why() {
	mk "$H/.ssh/id_ed25519" "SECRET-KEY"
	mk "$D/p.heel" 'heel 1
isolation default'
	"$HEELC" -o "$D/p.hpol" "$D/p.heel" >/dev/null 2>&1 || { prob "heelc failed"; return; }
	[ "$U" = root ] || chown $NOBODY:$NOBODY "$D/p.hpol"
	as "$HX" --why "$D/p.hpol" -- cat "$H/.ssh/id_ed25519"
	[[ "$OUT" != *SECRET-KEY* ]] || prob "the key was read"
	expect_line "heel: refused open-read $H/.ssh/id_ed25519 (cat)" "protection set credentials" \
		"<protect/credentials>:"
	as "$HX" --why "$D/p.hpol" -- cat /etc/hostname
	[ $RC = 0 ] || prob "control: heel-exec --why did not run cat (rc $RC: $ERR)"
	expect_quiet
}

case_host_commands_refused() {
	mk "$D/p.heel" 'heel 1
isolation default
on linux {
    ipc "hello" {
        exec "/bin/echo"
    }
}'
	"$HEELC" -o "$D/p.hpol" "$D/p.heel" >/dev/null 2>"$D/heelc.err" || { prob "heelc failed: $(cat "$D/heelc.err")"; return; }
	[ "$U" = root ] || chown $NOBODY:$NOBODY "$D/p.hpol"
	mk "$H/.ssh/id_rsa" "SECRET-KEY"
	as "$HX" --why "$D/p.hpol" -- sh -c 'echo RAN; cat ~/.ssh/id_rsa'
	if [ "$LANE" = bpf ]; then
		# heel-observe holds no seccomp listener: heel-broker keeps its.
		[ $RC != 125 ] && [[ "$OUT" == RAN ]] || prob "the launch did not run as it should (rc $RC: $OUT)"
		expect_line "heel: refused open-read $H/.ssh/id_rsa (cat)" "protection set credentials"
		return
	fi
	[ $RC = 125 ] && [[ "$OUT" != *RAN* ]] || prob "the launch was not refused (rc $RC)"
	[[ "$ERR" == *"--why cannot watch a policy with host commands"* ]] || prob "no refusal by name: $ERR"
	as "$HX" "$D/p.hpol" -- sh -c 'echo RAN'
	[[ "$OUT" == *RAN* ]] || prob "control: the policy does not run without --why: $ERR"
}

case_killed_observer_fails_closed() {
	local pre=() pid=""
	# heel-observe holds no listener: no call of the sandbox waits on it,
	# so its death weakens no wall and fails nothing (heel-exec says it).
	[ "$LANE" = bpf ] && { killed_kernel_observer; return; }
	[ "$U" = root ] || pre=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	(cd "$P" && exec "${pre[@]}" env -i PATH=/usr/bin:/bin HOME="$H" timeout 30 "$HEEL" run --why -- \
		/usr/bin/python3 -c '
import time
print("SLEEPING", flush=True)
time.sleep(2)
try:
    open("/etc/hostname").read(); print("OPENED")
except OSError as e: print("FAILED", e.errno)') >"$D/out" 2>"$D/err" </dev/null &
	local job=$!
	# Once the command is past its start (its own opens watched too).
	for _ in $(seq 100); do
		grep -q SLEEPING "$D/out" 2>/dev/null && break
		sleep 0.05
	done
	pid=$(pgrep -x heel-why -u "$([ "$U" = root ] && echo 0 || echo $NOBODY)" -n)
	# It confines itself before it serves (no exec, ptrace, mounts...).
	[ -n "$pid" ] && { grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status" &&
		grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" || prob "heel-why runs unconfined"; }
	[ -n "$pid" ] && kill -9 "$pid"
	wait $job
	OUT=$(cat "$D/out") ERR=$(cat "$D/err")
	[ -n "$pid" ] || prob "heel-why was not found"
	[[ "$OUT" == "SLEEPING"$'\n'"FAILED 38" ]] || prob "the watched open did not fail with ENOSYS: $OUT"
	[[ "$ERR" == *"heel-why died while the command ran"* ]] || prob "heel-exec did not say heel-why died: $ERR"
}

killed_kernel_observer() {
	(cd "$P" && exec env -i PATH=/usr/bin:/bin HOME="$H" timeout 30 "$HEEL" run --why -- \
		/usr/bin/python3 -c '
import time
print("SLEEPING", flush=True)
time.sleep(2)
try:
    open("/etc/hostname").read(); print("OPENED")
except OSError as e: print("FAILED", e.errno)') >"$D/out" 2>"$D/err" </dev/null &
	local job=$! pid=""
	for _ in $(seq 100); do
		grep -q SLEEPING "$D/out" 2>/dev/null && break
		sleep 0.05
	done
	pid=$(pgrep -x heel-observe -n)
	[ -n "$pid" ] && kill -9 "$pid"
	wait $job
	OUT=$(cat "$D/out") ERR=$(cat "$D/err")
	[ -n "$pid" ] || prob "heel-observe was not found"
	[[ "$OUT" == "SLEEPING"$'\n'"OPENED" ]] || prob "the allowed open did not run: $OUT"
	[[ "$ERR" == *"heel-observe died"* ]] || prob "heel-exec did not say heel-observe died: $ERR"
}

case_no_false_positives_make() {
	mk "$P/main.c" '#include <stdio.h>
#include "util.h"
int main(void) { printf("%d\n", twice(21)); return 0; }'
	mk "$P/util.c" '#include "util.h"
int twice(int x) { return 2 * x; }'
	mk "$P/util.h" 'int twice(int x);'
	mk "$P/Makefile" 'prog: main.o util.o
	$(CC) -o $@ main.o util.o
%.o: %.c util.h
	$(CC) -O2 -c -o $@ $<'
	as "$HEEL" run --why --writable "$P" -- make
	[ $RC = 0 ] && [ -x "$P/prog" ] || prob "make failed (rc $RC: $(tail -c 400 <<<"$ERR"))"
	[ "$("$P/prog")" = 42 ] || prob "the program built is wrong"
	expect_quiet
}

case_no_false_positives_python() {
	mk "$P/test_calc.py" 'import json, os, tempfile, unittest
class T(unittest.TestCase):
    def test_math(self): self.assertEqual(sum(range(5)), 10)
    def test_tmp(self):
        with tempfile.NamedTemporaryFile() as f: f.write(b"x")
    def test_json(self): self.assertEqual(json.loads("[1]"), [1])
    def test_env(self): self.assertTrue(os.getcwd())'
	as "$HEEL" run --why --writable "$P" -- /usr/bin/python3 -m unittest -v
	[ $RC = 0 ] && [[ "$ERR" == *"Ran 4 tests"* ]] || prob "unittest failed (rc $RC: $(tail -c 400 <<<"$ERR"))"
	expect_quiet
}

case_summary_counts_and_caps() {
	local i
	for i in $(seq 25); do mk "$H/.ssh/key$i" "K$i"; done
	# The same refusal three times is one line, counted; 25 distinct ones
	# are 20 lines and the rest counted.
	as "$HEEL" run --why -- sh -c 'for i in 1 2 3; do cat ~/.ssh/key1; done 2>/dev/null; for i in $(seq 25); do cat ~/.ssh/key$i; done 2>/dev/null; echo END'
	[[ "$OUT" == END ]] || prob "the keys were read: $OUT"
	expect_line "heel: refused open-read $H/.ssh/key1 (cat, 4 times)"
	[ "$(grep -c '^heel: refused' <<<"$ERR")" = 20 ] || prob "not 20 lines: $(grep -c '^heel: refused' <<<"$ERR")"
	expect_line "heel: and 5 more refused actions"
	# Nothing of it before the command's own output ended.
	[ "$(tail -n 1 "$D/out")" = END ] || prob "the summary reached standard output"
}

case_audit_sink_lines() {
	mk "$H/.ssh/id_rsa" "SECRET-KEY"
	as "$HEEL" run --why --allow-domain example.com --audit-log "$D/audit.jsonl" -- cat "$H/.ssh/id_rsa"
	[ -s "$D/audit.jsonl" ] || { prob "no audit lines ($ERR)"; return; }
	/usr/bin/python3 - "$D/audit.jsonl" "$H/.ssh/id_rsa" <<'PY' || prob "the audit line is not the denial/1 line expected: $(cat "$D/audit.jsonl")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
d = [l for l in lines if l.get("type") == "denial/1"]
assert len(d) == 1, d
d = d[0]
assert list(d)[:2] == ["type", "timestamp"], d
assert d["op"] == "open-read" and d["path"] == sys.argv[2], d
assert d["wall"] == "landlock" and d["set"] == "credentials", d
assert d["rule"].startswith("<protect/credentials>:"), d
assert d["option"] == "--readable " + sys.argv[2] and d["count"] == 1, d
PY
}

CASES="ssh_key_read write_outside_grants exec_working_directory exec_launch_directory chmod_read_only
git_hooks_write connect_network_deny denied_domain process_limit seccomp_denied_call heel_exec_why host_commands_refused
killed_observer_fails_closed summary_counts_and_caps audit_sink_lines no_false_positives_make
no_false_positives_python"

for LANE in root $NOBODY $BPF; do
	U=$LANE D=$T/bin
	[ "$LANE" = bpf ] && U=root D=$T/bpf
	HEELC=$D/heelc HX=$D/heel-exec HEEL=$D/heel
	for c in $CASES; do
		[[ "$c" == $ONLY ]] || continue
		CASE=$c PROB=""
		fresh
		"case_$c"
		finish
	done
done
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]

# SPDX-License-Identifier: MIT
# Errors that point at heel (issue 21, items 11-13, 17): each message
# says what heel did and the way out, in the words the user wrote; each
# case checks the useful part of the text, that the command really ran
# or did not, and its control (the same thing working where allowed).

# Runs heel (or CMD) as the user, stdout and stderr apart, the status in
# RC: out/err files in the case's own temporary directory.
W=""
run_heel() {
	[ -n "$W" ] || W=$(mktemp -d "$HOMEDIR/.wf-msg.XXXXXX")
	chmod 755 "$W"
	as "$HEEL" "$@" >"$W/out" 2>"$W/err"
	RC=$?
}
run_as() {
	[ -n "$W" ] || W=$(mktemp -d "$HOMEDIR/.wf-msg.XXXXXX")
	chmod 755 "$W"
	as "$@" >"$W/out" 2>"$W/err"
	RC=$?
}
err_has() { grep -qF -- "$1" "$W/err" || prob "$2: stderr lacks '$1': $(head -c 600 "$W/err")"; }
err_lacks() { ! grep -qF -- "$1" "$W/err" || prob "$2: stderr says '$1': $(head -c 600 "$W/err")"; }
ran() { grep -qx ran "$W/out" || prob "$1: the command did not run (rc $RC): $(head -c 400 "$W/err")"; }
not_ran() { ! grep -qx ran "$W/out" || prob "$1: the command ran"; }

# A compiled policy of the user's own (heelc as the user), beside the
# project: heel-exec's own messages name it.
user_policy() {
	printf '%s\n' "$2" >"$PROJ/$1.heel"
	[ "$U" = root ] || chown "$WUSER:" "$PROJ/$1.heel"
	(cd "$PROJ" && as "$HEELC" "$1.heel" -o "$1.hpol") >/dev/null 2>&1 || prob "heelc $1.heel failed"
}

wf_msg_options_in_full() {
	run_heel run --protect-cred=false -- sh -c 'echo ran'
	[ "$RC" = 125 ] || prob "--protect-cred=false: exit $RC, not 125"
	err_has "--protect-cred: write the option in full, --protect-credentials" "--protect-cred=false"
	not_ran "--protect-cred=false"
	run_heel run --net deny -- sh -c 'echo ran'
	err_has "--net: write the option in full, --network" "--net"
	not_ran "--net"
	# Control: written in full, the same options are taken.
	run_heel run --protect-credentials=false --network deny -- sh -c 'echo ran'
	ran "--protect-credentials=false --network deny"
	# heel-exec too: --best is not --best-effort.
	user_policy plain 'heel 1'
	run_as "$HEEL_EXEC" --best "$PROJ/plain.hpol" -- sh -c 'echo ran'
	err_has "--best: write the option in full, --best-effort (heel-exec takes no abbreviations)" "heel-exec --best"
	not_ran "heel-exec --best"
	run_as "$HEEL_EXEC" --verbose "$PROJ/plain.hpol" -- sh -c 'echo ran'
	ran "heel-exec --verbose"
}

wf_msg_did_you_mean() {
	run_heel run --netwrk deny -- sh -c 'echo ran'
	err_has "unknown option --netwrk (did you mean --network?)" "--netwrk"
	not_ran "--netwrk"
	run_heel run --writabel . -- sh -c 'echo ran'
	err_has "(did you mean --writable?)" "--writabel"
	user_policy plain 'heel 1'
	run_as "$HEEL_EXEC" --workdri /tmp "$PROJ/plain.hpol" -- sh -c 'echo ran'
	err_has "--workdri: unknown option (did you mean --workdir?)" "heel-exec --workdri"
	not_ran "heel-exec --workdri"
	# Nothing near: no guess.
	run_heel run --zzzzzz -- sh -c 'echo ran'
	err_has "unknown option --zzzzzz" "--zzzzzz"
	err_lacks "did you mean" "--zzzzzz"
}

wf_msg_heel_exec_version() {
	local v1 v2
	v1=$(as "$HEEL_EXEC" -V 2>&1) || prob "heel-exec -V: exit $?: $v1"
	v2=$(as "$HEEL_EXEC" --version 2>&1)
	[ "$v1" = "$v2" ] || prob "heel-exec -V says '$v1', --version '$v2'"
	grep -q '^heel-exec [0-9]' <<<"$v1" || prob "heel-exec -V: $v1"
	# As heel -V does.
	grep -q '^heel [0-9]' <<<"$(as "$HEEL" -V 2>&1)" || prob "heel -V"
}

wf_msg_heel_speaks_as_heel() {
	run_heel run --config nope.toml -- sh -c 'echo ran'
	err_has "heel: error: cannot read the configuration nope.toml" "--config nope.toml"
	err_lacks "heelc:" "--config nope.toml"
	not_ran "--config nope.toml"
	run_heel run --policy nope.heel -- sh -c 'echo ran'
	err_has "heel: --policy nope.heel: No such file or directory" "--policy nope.heel"
	err_lacks "<heel run>" "--policy nope.heel"
	err_lacks "include" "--policy nope.heel"
	not_ran "--policy nope.heel"
	# Control: a policy that is there is used.
	printf 'heel 1\nenv set "FROM_POLICY" "yes"\n' >"$PROJ/p.heel"
	run_heel run --policy p.heel -- sh -c 'echo ran; echo "from=$FROM_POLICY"'
	ran "--policy p.heel"
	grep -qx 'from=yes' "$W/out" || prob "--policy p.heel: its env set did not reach the command"
}

wf_msg_origins_are_what_the_user_wrote() {
	printf 'isolation = "default"\nwritable = ["./missing-dir"]\n' >"$PROJ/heel.toml"
	run_heel run --config heel.toml -- sh -c 'echo ran'
	# The file as the user named it, and the line.
	err_has "(heel.toml:2)" "a TOML grant of a missing path"
	err_has "remove it from heel.toml:2" "a TOML grant of a missing path"
	err_lacks "<heel run>" "a TOML grant of a missing path"
	not_ran "a TOML grant of a missing path"
	run_heel run --writable ./missing-dir -- sh -c 'echo ran'
	err_has "(--writable ./missing-dir)" "--writable of a missing path"
	err_has "leave out --writable ./missing-dir" "--writable of a missing path"
	err_lacks "<heel run>" "--writable of a missing path"
	not_ran "--writable of a missing path"
	# Control: made, the grant holds, and the command writes there.
	mkdir "$PROJ/missing-dir"
	[ "$U" = root ] || chown "$WUSER:" "$PROJ/missing-dir"
	run_heel run --config heel.toml -- sh -c 'echo ran; echo x >missing-dir/f'
	ran "the TOML grant once its path exists"
	[ -f "$PROJ/missing-dir/f" ] || prob "the TOML grant's place was not written"
}

wf_msg_unwritable_audit_log() {
	# A sink that cannot be opened (its directory is a file): refused
	# before anything starts, in the launch's words; no helper speaks.
	run_heel run --allow-domain example.com --audit-log ./README.md/audit.jsonl -- sh -c 'echo ran'
	[ "$RC" = 125 ] || prob "unwritable --audit-log: exit $RC"
	err_has "audit.jsonl" "unwritable --audit-log"
	err_has "README.md is not a directory" "unwritable --audit-log"
	err_lacks "heel-proxy" "unwritable --audit-log"
	err_lacks "died" "unwritable --audit-log"
	not_ran "unwritable --audit-log"
	# A name the host side lets through (its last part is missing, as a
	# new log's is) that cannot be created: heel-exec's open refuses it,
	# before heel-proxy exists to say anything of its own.
	run_heel run --allow-domain example.com --audit-log /proc/heel-wf-audit.jsonl -- sh -c 'echo ran'
	[ "$RC" = 125 ] || prob "--audit-log in /proc: exit $RC"
	err_has "network audit: /proc/heel-wf-audit.jsonl: No such file or directory" "--audit-log in /proc"
	err_lacks "heel-proxy" "--audit-log in /proc"
	err_lacks "artifact-fd" "--audit-log in /proc"
	not_ran "--audit-log in /proc"
	# heel-exec alone, with a policy of the user's.
	user_policy audited "heel 1
network allow {
    \"example.com\"
}
network audit \"$PROJ/README.md/a.jsonl\""
	run_as "$HEEL_EXEC" "$PROJ/audited.hpol" -- sh -c 'echo ran'
	err_has "network audit" "heel-exec, unwritable audit"
	err_has "README.md is not a directory" "heel-exec, unwritable audit"
	err_lacks "heel-proxy" "heel-exec, unwritable audit"
	err_lacks "control socket" "heel-exec, unwritable audit"
	not_ran "heel-exec, unwritable audit"
	# Control: a sink that can be written gets the decision.
	run_heel run --allow-domain example.com --audit-log ./audit.jsonl -- \
		sh -c 'echo ran; curl -s -m 5 -o /dev/null http://also.test/ || true'
	ran "a writable --audit-log"
	grep -q '"host":"also.test"' "$PROJ/audit.jsonl" 2>/dev/null || prob "the audit log got no line"
}

wf_msg_proxy_refusal_in_the_users_words() {
	command -v curl >/dev/null || { skipr "no curl"; return; }
	# Refused by the allow-list before any lookup: no internet needed.
	run_heel run --allow-domain example.com -- curl -sS -m 10 http://also.test/
	grep -qF "to allow it, add --allow-domain also.test" "$W/out" ||
		prob "options: the refusal does not name --allow-domain: $(cat "$W/out" "$W/err" | head -c 400)"
	printf 'allow-domains = ["example.com"]\n' >"$PROJ/net.toml"
	run_heel run --config net.toml -- curl -sS -m 10 http://also.test/
	grep -qF "add \"also.test\" to allow-domains in net.toml" "$W/out" ||
		prob "TOML: the refusal does not name its file: $(head -c 400 "$W/out")"
	user_policy net 'heel 1
network allow {
    "example.com"
}'
	run_as "$HEEL_EXEC" "$PROJ/net.hpol" -- curl -sS -m 10 http://also.test/
	grep -qF 'add "also.test" to `network allow { }` in net.heel' "$W/out" ||
		prob "policy: the refusal does not name the policy: $(head -c 400 "$W/out")"
	# Private ranges: the option, for options.
	run_heel run --allow-domain 10.1.2.3 -- curl -sS -m 10 http://10.1.2.3/
	grep -qF "only --allow-private lets the sandbox reach private ranges" "$W/out" ||
		prob "options: a private address does not name --allow-private: $(head -c 400 "$W/out")"
}

wf_msg_network_deny_said_at_exit() {
	# Under deny, a connection to an address outside the sandbox fails;
	# heel-exec says so once at exit, with the way to allow a host.
	run_heel run -- python3 -c '
import socket, sys
try:
    s = socket.socket()
except PermissionError:
    print("socket-refused"); sys.exit(0)
try:
    s.connect(("203.0.113.10", 80))
except OSError as e:
    print("connect-failed", e.errno)
print("ran")'
	if grep -qx socket-refused "$W/out"; then
		skipr "this tree's network deny refuses socket() itself, so no attempt reaches the namespace's counters (the mechanism is checked by tests/launcher with the test build)"
		return
	fi
	ran "a failed connect under deny"
	grep -q '^connect-failed' "$W/out" || prob "the connect did not fail: $(cat "$W/out")"
	err_has "the command tried 1 time to reach an address outside the sandbox (IPv4)" "deny"
	err_has "heel run --network allow-list --allow-domain HOST" "deny"
	[ "$(grep -c 'to reach an address outside' "$W/err")" = 1 ] || prob "said more than once"
	# Control: the sandbox's own loopback is no attempt outside.
	run_heel run -- python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.socket(); c.connect(s.getsockname()); print("ran")'
	ran "loopback under deny"
	err_lacks "to reach an address outside" "loopback under deny"
}

wf_msg_git_config_in_a_writable_repository() {
	local before
	before=$(cat "$PROJ/.git/config")
	run_heel run --writable . -- sh -c 'git config user.name sandboxed; echo "git=$?"; echo ran'
	ran "git config under --writable ."
	grep -q '^git=[1-9]' "$W/out" || prob "git config succeeded inside: $(cat "$W/out")"
	[ "$(cat "$PROJ/.git/config")" = "$before" ] || prob ".git/config changed"
	err_has "$PROJ/.git/config: something in the sandbox tried to change it" "git config"
	err_has "host-run keeps it read-only" "git config"
	err_has "--protect-host-run=false" "git config"
	# Control: where the user lets the sandbox change what the host runs.
	run_heel run --writable . --protect-host-run=false -- sh -c 'git config user.name sandboxed && echo ran'
	ran "git config with --protect-host-run=false"
	[ "$(cd "$PROJ" && as git config user.name)" = sandboxed ] || prob "the control did not change .git/config"
	err_lacks "something in the sandbox tried" "the control"
}

wf_msg_nested_heel_run() {
	run_heel run --executable "$T/bin" -- "$HEEL" run -- sh -c 'echo ran'
	[ "$RC" = 125 ] || prob "nested heel run: exit $RC"
	err_lacks "cannot hand the policy over" "nested heel run"
	err_lacks "container" "nested heel run"
	err_has "heel-exec: cannot create user/PID/mount/IPC/network namespaces" "nested heel run"
	err_has "why: heel-exec runs inside a heel sandbox" "nested heel run"
	err_has "way out: run heel outside the sandbox" "nested heel run"
	not_ran "nested heel run"
	# The refusal in lines, none of them a wall of text.
	[ "$(wc -l <"$W/err")" -ge 5 ] || prob "the refusal is $(wc -l <"$W/err") line(s)"
	awk 'length > 240 { bad = 1 } END { exit bad }' "$W/err" || prob "a line of the refusal is over 240 characters"
	# Control: the same heel, outside.
	run_heel run -- sh -c 'echo ran'
	ran "heel run outside"
}

# --accept per-process-limits where this machine has no cgroup for the
# user; its own line is then part of stderr.
accept_args() {
	if as "$HEEL" run --max-cpu-time 5 -- true 2>&1 | grep -q 'per process only here'; then
		echo --accept per-process-limits
	fi
}

wf_msg_limit_kill_named() {
	local acc
	acc=$(accept_args)
	# shellcheck disable=SC2086
	run_heel run $acc --max-cpu-time 1 -- sh -c 'echo ran; while :; do :; done'
	ran "the CPU loop"
	[ "$RC" = 137 ] || [ "$RC" = 152 ] || prob "the CPU loop: exit $RC, not 137 or 152"
	err_has "limit cpu 1s" "the CPU limit"
	grep -qE 'killed it|killed it \(SIG' "$W/err" || prob "the CPU limit: no kill named: $(cat "$W/err")"
	# Control: within the limit, nothing is said.
	# shellcheck disable=SC2086
	run_heel run $acc --max-cpu-time 5 -- sh -c 'echo ran'
	ran "within the CPU limit"
	err_lacks "killed" "within the CPU limit"
	# file-size: the writer is named, the file stops at the limit.
	run_heel run --writable . --max-file-size 1KB -- dd if=/dev/zero of=big bs=4096 count=1
	err_has "limit file-size 1KB (--max-file-size 1KB): dd wrote a file past it and the kernel killed it (SIGXFSZ)" "file-size"
	[ "$(stat -c %s "$PROJ/big" 2>/dev/null || echo 0)" -le 1000 ] || prob "big grew past 1KB"
	run_heel run --writable . --max-file-size 1MB -- dd if=/dev/zero of=big bs=4096 count=1
	[ "$(stat -c %s "$PROJ/big")" = 4096 ] || prob "the control did not write 4096 bytes"
	err_lacks "limit file-size" "the file-size control"
}

wf_msg_memory_as_written() {
	user_policy mem 'heel 1
limit memory 2GB
limit cpu 30s'
	run_as "$HEEL_EXEC" check "$PROJ/mem.hpol"
	grep -q 'limit memory 2GB' "$W/out" || prob "check does not say 2GB: $(grep cgroup "$W/out")"
	! grep -q '1953125KiB' "$W/out" "$W/err" || prob "1953125KiB is still said"
	# The launch says it so too where it refuses or weakens.
	run_heel run --max-memory 2GB -- sh -c 'echo ran'
	! grep -q 'KiB' "$W/err" || prob "heel run --max-memory 2GB: $(cat "$W/err")"
	if grep -q 'per process only' "$W/err"; then
		err_has "limit memory 2GB" "--max-memory 2GB"
		not_ran "--max-memory 2GB without a cgroup"
	else
		ran "--max-memory 2GB"
	fi
}

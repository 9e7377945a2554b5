# SPDX-License-Identifier: MIT
# Facilities inside the sandbox (issue 21, items 6-8): a /dev/shm of its
# own (Python's multiprocessing), the standard descriptors reopened by
# name (echo >/dev/stderr, tee /dev/stdout, a Makefile that warns on
# /dev/stderr, inside `heel shell` too), and TCP on the sandbox's own
# loopback (a Python test that serves and fetches, the project's dev
# server). Each with its control: the host's /dev/shm is not seen and
# gets nothing, a file outside the writable places stays unwritable by
# its path, the host's loopback server is not reached.

# put FILE: stdin into FILE, written as the user.
put() { as tee "$1" >/dev/null; }

# free_port: a TCP port nothing on the host's 127.0.0.1 listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# until_listening PORT: waits (up to 5 s) for a listener on the host's 127.0.0.1:PORT.
until_listening() {
	for _ in $(seq 100); do
		bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

wf_multiprocessing_pool() {
	local mark=heel-wf-shm-$$-$U host=/dev/shm/heel-wf-host-$$-$U out iso
	as sh -c "echo HOST >$host"
	put mp.py <<EOF
import multiprocessing as mp, os
if __name__ == "__main__":
    with mp.Pool(2) as p:
        print("pool", p.map(abs, [-1, -2, -3]))
    q = mp.Queue()
    q.put("queued")
    print(q.get(timeout=10))
    with open("/dev/shm/$mark", "w") as f:
        f.write("sandbox")
    print("host-visible" if os.path.exists("$host") else "host-hidden")
EOF
	for iso in default strict; do
		out=$(heel run --isolation $iso --readable . -- python3 mp.py 2>&1) ||
			prob "multiprocessing under $iso: $out"
		grep -qx 'pool \[1, 2, 3\]' <<<"$out" || prob "Pool.map under $iso: $out"
		grep -qx queued <<<"$out" || prob "Queue under $iso: $out"
		# Controls: the host's /dev/shm is not seen, and gets nothing.
		grep -qx host-hidden <<<"$out" || prob "the host's $host is seen inside ($iso): $out"
		[ -e "/dev/shm/$mark" ] && { prob "the sandbox's /dev/shm/$mark is on the host ($iso)"; rm -f "/dev/shm/$mark"; }
	done
	[ "$(cat "$host")" = HOST ] || prob "the host's $host changed"
	# A grant of /dev/shm grants the sandbox's own, not the host's.
	out=$(heel run --grant /dev/shm=rw -- sh -c "echo sandbox >$host; cat $host" 2>&1)
	[ "$out" = sandbox ] || prob "--grant /dev/shm=rw: the sandbox's own /dev/shm not writable: $out"
	[ "$(cat "$host")" = HOST ] || prob "--grant /dev/shm=rw wrote the host's $host"
	rm -f "$host"
}

# as_pipe 'SHELL TEXT' ARGS...: SHELL TEXT run by sh as the user, so that
# the pipes in it are the user's (a pipe's inode is its maker's, mode
# 0600: the user could not reopen one the suite made as root).
as_pipe() { as sh -c "$@"; }

wf_stdio_reopen() {
	local err=$HOMEDIR/heel-wf-err.log log=$HOMEDIR/heel-wf-out.log out
	as sh -c ": >'$err'; : >'$log'"
	# stderr a file outside every writable place (the home is read-only
	# under default): echo >/dev/stderr.
	heel run -- sh -c 'echo to-stderr >/dev/stderr' 2>"$err" ||
		prob "echo >/dev/stderr, stderr a file outside the writable places: $(cat "$err")"
	grep -qx to-stderr "$err" || prob "nothing reached $err through /dev/stderr: $(cat "$err")"
	# stdout a file outside: tee /dev/stdout.
	heel run -- sh -c 'echo teed | tee -a /dev/stdout' >"$log" 2>"$err" ||
		prob "tee /dev/stdout, stdout a file outside: $(cat "$err")"
	grep -qx teed "$log" || prob "nothing reached $log through tee /dev/stdout: $(cat "$log" "$err")"
	# stdout a pipe.
	out=$(as_pipe '"$0" run -- sh -c "echo piped >/dev/stdout; echo teed | tee /dev/stdout" | cat' "$HEEL" 2>"$err")
	[ "$out" = "$(printf 'piped\nteed\nteed')" ] || prob "/dev/stdout a pipe: '$out' $(cat "$err")"
	# A Makefile that warns on /dev/stderr: stdout a pipe, stderr a file
	# outside; then stdout a file outside, stderr a pipe.
	printf 'warn:\n\t@echo "warning: from make" >/dev/stderr\n\t@echo built | tee -a /dev/stderr\n' | put warn.mk
	out=$(as_pipe '"$0" run -- make -s -f warn.mk warn | cat' "$HEEL" 2>"$err")
	[ "$out" = built ] || prob "make writing to /dev/stderr: stdout '$out', stderr $(cat "$err")"
	grep -qx 'warning: from make' "$err" && grep -qx built "$err" ||
		prob "make's /dev/stderr lines did not reach $err: $(cat "$err")"
	out=$(as_pipe '"$0" run -- make -s -f warn.mk warn 2>&1 >"$1" | cat' "$HEEL" "$log")
	grep -qx 'warning: from make' <<<"$out" && grep -qx built <<<"$out" || prob "make, stderr a pipe: '$out'"
	grep -qx built "$log" || prob "make, stdout a file outside: $(cat "$log")"
	# Controls: the same file by its path stays unwritable; under strict,
	# where the home is not readable, a descriptor open for writing is
	# not reopened for reading (and is for writing).
	as sh -c "echo orig >'$err'"
	heel run -- sh -c "echo by-path >>'$err'" 2>>"$err" && prob "$err written by its path"
	grep -q by-path "$err" && prob "$err took a line written by its path"
	out=$(heel run --isolation strict -- sh -c 'head -c1 /proc/self/fd/2 >/dev/null && echo READ || echo REFUSED
		echo strict-write >/dev/stderr' 2>>"$err")
	[ "$out" = REFUSED ] || prob "stderr, open for writing, was read through /proc/self/fd/2 under strict: '$out'"
	grep -qx strict-write "$err" || prob "/dev/stderr under strict: $(cat "$err")"
	# Inside `heel shell`, on its terminal (a pty of its own).
	out=$(as python3 "$HERE/../front/ptyshell.py" 'echo in-shell-$((6*7)) >/dev/stderr; echo tty-$((2*3)) >/dev/tty; echo rc=$?' 'exit' -- \
		"$HEEL" shell 2>&1)
	grep -q 'in-shell-42' <<<"$out" && grep -q 'tty-6' <<<"$out" && grep -q 'rc=0' <<<"$out" ||
		prob "heel shell: /dev/stderr and /dev/tty on its terminal: $(tr -d '\r' <<<"$out" | tail -5)"
	grep -q 'Permission denied' <<<"$out" && prob "heel shell: $(grep 'Permission denied' <<<"$out" | head -1)"
}

wf_loopback_http() {
	local port out log=$T/wf-http-$U.log spid n mode
	put tests/test_http.py <<'EOF'
import http.server
import threading
import unittest
import urllib.request


class TestOwnServer(unittest.TestCase):
    def test_fetch(self):
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                              http.server.SimpleHTTPRequestHandler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            url = "http://127.0.0.1:%d/README.md" % srv.server_port
            with urllib.request.urlopen(url, timeout=10) as r:
                self.assertIn(b"workflow suite", r.read())
        finally:
            srv.shutdown()


if __name__ == "__main__":
    unittest.main()
EOF
	for mode in "--network deny" "--allow-domain example.com"; do
		# shellcheck disable=SC2086
		out=$(heel run $mode -- python3 -m unittest -q tests.test_http 2>&1) ||
			prob "a Python test serving and fetching on 127.0.0.1 ($mode): $out"
	done
	# The project's dev server on the host (the control: it serves).
	port=$(free_port)
	as python3 server.py "$port" 2>"$log" &
	spid=$!
	until_listening "$port" || prob "the host's dev server did not start: $(cat "$log")"
	python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/README.md', timeout=10)" ||
		prob "control: the host's dev server does not answer"
	for mode in "--network deny" "--allow-domain example.com"; do
		# Not reached from inside: directly (the own loopback, where
		# nothing listens on that port), nor through heel-proxy.
		# shellcheck disable=SC2086
		out=$(heel run $mode -- python3 -c "
import os, urllib.request
for via in ('direct', 'proxy'):
    proxy = os.environ.get('http_proxy')
    if via == 'proxy' and not proxy:
        continue
    h = urllib.request.ProxyHandler({'http': proxy} if via == 'proxy' else {})
    try:
        urllib.request.build_opener(h).open('http://127.0.0.1:$port/README.md', timeout=10)
        print(via, 'REACHED')
    except Exception as e:
        print(via, 'refused', type(e).__name__)
" 2>&1)
		grep -q REACHED <<<"$out" && prob "the host's dev server was reached from inside ($mode): $out"
		grep -q 'direct refused' <<<"$out" || prob "no answer from inside ($mode): $out"
		# The same port is free on the sandbox's own loopback: its own
		# dev server there, fetched from inside.
		# shellcheck disable=SC2086
		out=$(heel run $mode -- sh -c "python3 server.py $port 2>/dev/null & for i in \$(seq 50); do
			python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:$port/README.md\", timeout=5).status)' 2>/dev/null && break
			sleep 0.1; done; kill \$!" 2>&1)
		[ "$(tail -1 <<<"$out")" = 200 ] || prob "the sandbox's own dev server on port $port ($mode): $out"
	done
	n=$(grep -c '"GET /README.md' "$log")
	[ "$n" = 1 ] || prob "the host's dev server logged $n requests, expected the control's 1: $(cat "$log")"
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}

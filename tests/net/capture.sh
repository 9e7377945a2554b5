# SPDX-License-Identifier: MIT
# The live network suite's capture cases (heel(5), THE PROXY, Capture),
# sourced by run.sh: programs that ignore the proxy variables (they are
# unset in every run here) reach what the allow-list allows, by name or
# by a literal address the list names, and nothing else; each refusal
# beside its control, and the audit lines checked.

# cap_audit SPEC...: each HOST:PORT:allowed|refused:METHOD has a line in
# the case's audit file.
cap_audit() {
	local f=$T/u-$U/capture.jsonl o
	o=$(/usr/bin/python3 - "$f" "$@" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
miss = []
for spec in sys.argv[2:]:
    host, port, verdict, method = spec.split(":", 3)
    if not any(l["host"] == host and l["port"] == int(port) and l["allowed"] == (verdict == "allowed")
               and l["method"] == method for l in lines):
        miss.append(spec)
print("missing " + " ".join(miss) if miss else "OK")
PY
) || o="audit file unreadable"
	[ "$o" = OK ] || prob "audit $o"
}

case_capture() { # Capture: socket clients, nc, ssh, Node's fetch, no proxy variables.
	begin capture || return
	rm -f "$T/u-$U/capture.jsonl"
	sbx capture "M=$MK"'
		unset HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy NODE_USE_ENV_PROXY
		env | grep -iE "^(http|https|all)_proxy=" | sed "s/^/env /"
		python3 "'"$T"'/lib/capclient.py" "$M"
		for h in cap.test dns.test; do
			timeout 10 ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 -p 22 "$h" true >/dev/null 2>ssh-$h.err
			echo "s-$h rc=$? $(head -c 60 ssh-$h.err | tr "\n" " ")"
		done
		printf "%s\n" "$M-n1" | timeout 5 nc -q 2 203.0.113.10 7 >n1.out 2>n1.err; echo "n1 rc=$? $(cat n1.out)"
		printf "%s\n" "$M-n2" | timeout 5 nc -q 2 203.0.113.10 8443 >n2.out 2>n2.err; echo "n2 rc=$? $(head -c 40 n2.out)"
		if command -v node >/dev/null; then
			for u in "http://cap.test/hello?$M-f1" "http://capno.test/hello?$M-f2" "http://front.test/hello?$M-f3"; do
				node -e "fetch(process.argv[1]).then(r => r.text()).then(t => console.log(\"OK\", t.trim()), e => console.log(\"ERR\", (e.cause && e.cause.code) || e.message))" "$u"
			done | sed -n "1s/^/f1 /p;2s/^/f2 /p;3s/^/f3 /p"
		fi' || { finish; return; }
	local l
	grep -q '^env ' <<<"$OUT" && prob "proxy variables left: $(grep '^env ' <<<"$OUT" | tr '\n' ' ')"
	# Names: the allowed one gets a capture address, the refused one none.
	[[ $(res r1) =~ ^ok\ (198\.18\.|fd68:6565:6c00:) ]] || prob "r1 (cap.test): $(res r1), want a capture address"
	[[ $(res r2) == err* ]] || prob "r2 (capno.test resolved): $(res r2)"
	# Allowed: by name on 80, the literal on 7, dns.test on its port.
	[[ $(res c1) == "ok HTTP/1.0 200"* ]] || prob "c1 (cap.test:80): $(res c1)"
	[[ $(res c4) == "ok $MK-c4" ]] || prob "c4 (203.0.113.10:7): $(res c4)"
	[[ $(res c6) == "ok $MK-c6" ]] || prob "c6 (dns.test:8443): $(res c6)"
	[[ $(res c8) == ok* ]] || prob "c8 (TLS to cap.test, server_name cap.test): $(res c8)"
	arrived host "$MK-c1"
	arrived host "$MK-c4"
	arrived host "$MK-c6"
	from "$MK-c1" "$C4"
	# Refused: each beside the control above (c13: port 8080, which no
	# entry names, is not even captured: nothing listens there).
	for l in c2 c3 c5 c7 c9 c10 c11 c12 c13; do
		[[ $(res $l) == err* ]] || prob "$l got through: $(res $l)"
		not_arrived host "$MK-$l"
		not_arrived canary "$MK-$l"
	done
	# nc: the literal on its port, and not on another.
	[[ $(res n1) == "rc=0 $MK-n1" ]] || prob "n1 (nc 203.0.113.10 7): $(res n1)"
	[[ $(res n2) != *"$MK-n2"* ]] || prob "n2 (nc 203.0.113.10 8443) got through: $(res n2)"
	not_arrived host "$MK-n2"
	if command -v node >/dev/null; then
		[[ $(res f1) == "OK hello from the heel test host" ]] || prob "f1 (node fetch cap.test): $(res f1)"
		[[ $(res f2) == ERR* ]] || prob "f2 (node fetch capno.test): $(res f2)"
		[[ $(res f3) == ERR* ]] || prob "f3 (node fetch front.test): $(res f3)"
		arrived host "$MK-f1"
		not_arrived host "$MK-f2"
		not_arrived host "$MK-f3"
	else
		NOTE="no node"
	fi
	# ssh to cap.test:22 (the test host's echo answers its banner with
	# the client's own, so the key exchange fails after it arrived);
	# dns.test is listed on 8443 only: its port 22 is refused.
	local n22
	n22=$(since host | grep -c "^echo 22 $C4 b'SSH-2.0-")
	[ "$n22" = 1 ] || prob "ssh: $n22 connections with an ssh banner reached the test host's port 22 from $C4, want 1 (cap.test, not dns.test): $(res s-cap.test) / $(res s-dns.test)"
	# The sandbox's own loopback, 443 and 8080, while capture is on.
	[ "$(res l1)" = "ok self 443" ] || prob "l1 (own 127.0.0.1:443): $(res l1)"
	[ "$(res l2)" = "ok self 8080" ] || prob "l2 (own 127.0.0.1:8080): $(res l2)"
	# Refused names never leave the sandbox: the test DNS server saw none.
	since host | grep -qE '^dns .*(capno|front)\.test' && prob "a refused name reached the test DNS server: $(since host | grep -E '^dns .*(capno|front)\.test' | head -1)"
	cap_audit cap.test:80:allowed:"captured HTTP" 203.0.113.10:7:allowed:"captured TCP" \
		dns.test:8443:allowed:"captured TCP" cap.test:443:allowed:"captured TLS" \
		capno.test:53:refused:DNS front.test:53:refused:DNS cap.test:80:refused:"captured HTTP" \
		203.0.113.10:80:refused:"captured TCP" dns.test:80:refused:"captured HTTP" \
		cap.test:443:refused:"captured TLS" 10.77.0.10:80:refused:"captured TCP" \
		203.0.113.1:80:refused:"captured TCP" cap.test:22:allowed:"captured TCP" \
		dns.test:22:refused:"captured TCP"
	finish
}

CAPTURE_CASES="case_capture"

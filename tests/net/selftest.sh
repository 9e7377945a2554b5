#!/bin/bash
# SPDX-License-Identifier: MIT
# The live network suite's harness, checked without heel: the same client
# commands run.sh runs in the sandbox (tests/net/clients.sh) run straight
# in the client namespace, first with no proxy (every destination the
# suite expects heel-proxy to refuse is reachable and logged, every way
# around the proxy works when nothing blocks it, the DNS count moves), then
# through Debian's tinyproxy (HTTP, CONNECT, Basic credentials, a filter
# answering 403) and a reference SOCKS5 server (socks5d.py), with the
# proxy variables set the way heel-exec sets them. Then the checkers: the
# audit checker on good and bad files, the decider's five modes, the
# leftover detector on a planted process. If this passes and run.sh
# fails, heel is at fault, not the harness.
#
# Usage: tests/net/selftest.sh [CASE-GLOB]   (root; about half a minute)
set -u

ONLY=${1:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
NOBODY=65534
TOKEN=selftest-$$-$RANDOM

. "$HERE/testhost.sh"
. "$HERE/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP everything: the network self-test runs as root (it makes network and mount namespaces)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
missing=""
for t in curl git getent setpriv nsenter unshare ip timeout tinyproxy /usr/bin/python3; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || missing="$missing python3-pip"
if [ -n "$missing" ]; then
	echo "FAIL setup: missing tools:$missing"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

T=$(mktemp -d /tmp/heel-net-self.XXXXXX) || exit 1
chmod 755 "$T"
BG=""
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null
	th_down 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/w" "$T/lib" "$T/px"
cp "$HERE/clients.sh" "$T/lib/"
chmod -R a+rX "$T"
chmod 777 "$T/w"

export TH_PDEATHSIG=1
th_up "$T/th" || { echo "FAIL setup: the test network did not come up"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
cd "$T" || exit 1
C4=203.0.113.1
C6=2001:db8::1

# ------------------------------------------------------------ running
set_user() {
	U=$1
	if [ "$U" = root ]; then PRE=(); else PRE=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups); fi
}

# cli SCRIPT: SCRIPT with clients.sh, in the client namespaces as $U, no
# sandbox, the environment cleared but for PROXYENV; OUT, W, RC.
PROXYENV=()
run_n=0
cli_start() {
	run_n=$((run_n + 1))
	W=$T/w/$run_n
	mkdir -p "$W"
	[ "$U" = nobody ] && chown $NOBODY:$NOBODY "$W"
	(cd "$W" && exec nsenter --net=/proc/"$TH_CPID"/ns/net --mount=/proc/"$TH_CPID"/ns/mnt --wd="$W" -- \
		"${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$W" LANG=C.UTF-8 "${PROXYENV[@]}" \
		timeout -k 5 120 sh -c ". '$T/lib/clients.sh'; $1" >"$W.out" 2>"$W.err" </dev/null) &
	BG=$!
}
cli_wait() {
	wait "$BG"
	RC=$?
	BG=""
	OUT=$(cat "$W.out")
	RUNINFO="exit $RC$(head -c 200 "$W.err" | tr '\n' ' ' | sed 's/^./: &/')"
}
cli() { cli_start "$1"; cli_wait; }

# ================================================================ no proxy
case_direct_reach() { # The test host answers, from the client side's addresses.
	begin direct-reach || return
	cli "M=$MK"'
		net_curl p1 "http://allowed.test/hello?$M-p1"
		net_curl p2 "http://v6.test:8080/hello?$M-p2"
		net_curl p3 "http://203.0.113.10:8080/hello?$M-p3"
		net_echo e1 allowed.test 8443 "$M-e1"
		net_echo e2 v6.test 7 "$M-e2"'
	want p1 rc=0 http=200 && body_has p1 "hello from the heel test host"
	arrived host "$MK-p1" && from "$MK-p1" $C4
	want p2 rc=0 http=200
	arrived host "$MK-p2" && from "$MK-p2" $C6
	want p3 rc=0 http=200
	want e1 rc=0 echo=ok
	arrived host "$MK-e1"
	want e2 rc=0 echo=ok
	not_arrived canary "$MK"
	finish
}

case_direct_refusable() { # What heel-proxy must refuse is there to be reached: a miss would show.
	begin direct-refusable-destinations || return
	cli "M=$MK"'
		k=0
		for h in private.test ula.test meta.test 10.77.0.10 169.254.169.254; do
			k=$((k + 1)); net_curl h$k "http://$h/hello?$M-h$k"
		done
		k=0
		for h in loop.test self.test 127.0.0.1 "[::1]"; do
			k=$((k + 1)); net_curl c$k "http://$h:8080/hello?$M-c$k"
		done'
	local k
	for k in 1 2 3 4 5; do want h$k rc=0 http=200 && arrived host "$MK-h$k"; done
	for k in 1 2 3 4; do want c$k rc=0 http=200 && arrived canary "$MK-c$k"; done
	finish
}

case_direct_clients() { # git, urllib and pip against the test host, no proxy.
	begin direct-clients || return
	cli "M=$MK"'
		net_git g1 http://allowed.test/repo.git
		net_urllib u1 "http://allowed.test/hello?$M-u1"
		net_pip pip1 allowed.test
		net_pip pip2 v6.test'
	want g1 rc=0 readme=ok
	want u1 rc=0 http=200
	want pip1 rc=0 wheel=ok
	want pip2 rc=0 wheel=ok
	arrived host "GET /packages/heeltestpkg-0.1-py3-none-any.whl"
	finish
}

case_direct_bypass() { # run.sh's ways around the proxy all work when nothing blocks them.
	begin direct-bypass-commands || return
	cli "M=$MK"'
		net_curl n1 --noproxy "*" "http://allowed.test/hello?$M-n1"
		net_curl n3 --noproxy "*" "http://[2001:db8::10]/hello?$M-n3"
		net_devtcp n4 203.0.113.10 80 "$M-n4"
		net_udp n6 203.0.113.10 53
		net_udp n7 2001:db8::10 53'
	want n1 rc=0 http=200
	want n3 rc=0 http=200
	want n4 rc=0 && body_has n4 "hello from the heel test host"
	arrived host "$MK-n4"
	want n6 rc=0 reply=yes
	want n7 rc=0 reply=yes
	[ "$(dns_new)" = 2 ] || prob "the DNS server counted $(dns_new) packets for two sendto calls"
	finish
}

case_dns_counting() { # The resolver: /etc/hosts first (no query), then the test DNS server.
	begin dns-counting || return
	# getaddrinfo, not getent hosts: the latter asks AAAA first and a name
	# /etc/hosts knows only for IPv4 goes on to DNS for it.
	cli 'net_pyresolve h1 allowed.test; net_getent h2 v6.test; net_pyresolve h3 meta.test'
	want h1 rc=0
	want h2 rc=0
	want h3 rc=0
	[ "$(cat "$W/h1.out")" = 203.0.113.10 ] || prob "allowed.test resolved to $(cat "$W/h1.out")"
	[ "$(dns_new)" = 0 ] || prob "names in /etc/hosts cost $(dns_new) DNS packets: $(since host | grep '^dns' | tr '\n' ';')"
	cli 'net_getent d1 dns.test; net_pyresolve d2 dns.test; net_getent d3 nosuch.test; net_devtcp d4 203.0.113.10 53 x'
	want d1 rc=0
	want d2 rc=0
	want_not d3 rc=0
	grep -q "2001:db8::10 203.0.113.10\|203.0.113.10 2001:db8::10" "$W/d2.out" || prob "dns.test: $(cat "$W/d2.out")"
	since host | grep -q "^dns tcp $C4 " || prob "no TCP connection to port 53 counted"
	[ "$(dns_new)" -ge 4 ] || prob "only $(dns_new) DNS packets counted"
	NOTE="$(dns_new) DNS packets"
	finish
}

# ================================================================ proxied
# tinyproxy for HTTP and CONNECT, socks5d.py for SOCKS5, both in the
# client namespace on 127.0.0.1 with the same credentials, as uid 65534;
# the variables as heel-exec sets them (ALL_PROXY the SOCKS one).
PX_PIDS=""
proxies_up() {
	cat >"$T/px/tinyproxy.conf" <<EOF
Port 8888
Listen 127.0.0.1
Timeout 30
MaxClients 50
LogFile "$T/px/tinyproxy.log"
LogLevel Info
BasicAuth heel $TOKEN
Filter "$T/px/filter"
FilterDefaultDeny Yes
FilterURLs Off
DisableViaHeader Yes
EOF
	printf '^allowed\\.test$\n^v6\\.test$\n^dns\\.test$\n' >"$T/px/filter"
	chown -R $NOBODY:$NOBODY "$T/px"
	# The suite's proxy exits only with its run; these two are ours to
	# end, by pid (nsenter and setpriv exec them).
	nsenter --net=/proc/"$TH_CPID"/ns/net --mount=/proc/"$TH_CPID"/ns/mnt -- \
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --pdeathsig KILL \
		tinyproxy -d -c "$T/px/tinyproxy.conf" </dev/null >"$T/px/tinyproxy.out" 2>&1 &
	TP_PID=$!
	nsenter --net=/proc/"$TH_CPID"/ns/net --mount=/proc/"$TH_CPID"/ns/mnt -- \
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --pdeathsig KILL \
		/usr/bin/python3 "$HERE/socks5d.py" 127.0.0.1 1080 heel "$TOKEN" "$T/px/socks.ready" \
		allowed.test v6.test dns.test </dev/null >"$T/px/socks.out" 2>&1 &
	PX_PIDS="$TP_PID $!"
	TH_SRV_PIDS="$TH_SRV_PIDS $PX_PIDS"
	th_wait_ready "$T/px/socks.ready" || return 1
	for _ in $(seq 100); do
		th_client bash -c 'exec 3<>/dev/tcp/127.0.0.1/8888' 2>/dev/null && break
		sleep 0.05
	done
	local h=http://heel:$TOKEN@127.0.0.1:8888 s=socks5h://heel:$TOKEN@127.0.0.1:1080
	PROXYENV=(HTTP_PROXY=$h HTTPS_PROXY=$h ALL_PROXY=$s http_proxy=$h https_proxy=$h all_proxy=$s NO_PROXY= no_proxy=)
}

case_px_http() {
	begin proxied-http || return
	cli "M=$MK"'
		net_curl p1 "http://allowed.test/hello?$M-p1"
		net_curl p2 "http://also.test/hello?$M-p2"
		net_curl p3 "http://v6.test/hello?$M-p3"
		net_curl p4 "http://203.0.113.10/hello?$M-p4"'
	want p1 rc=0 http=200 && arrived host "$MK-p1" && from "$MK-p1" $C4
	want p2 rc=0 http=403
	not_arrived host "$MK-p2"
	want p3 rc=0 http=200 && from "$MK-p3" $C6
	want p4 rc=0 http=403
	not_arrived host "$MK-p4"
	finish
}

case_px_connect() {
	begin proxied-connect || return
	cli "M=$MK"'
		net_curl c1 -p "http://allowed.test:8080/hello?$M-c1"
		net_curl c2 -p "http://also.test:8080/hello?$M-c2"
		net_tunnel c3 "$(net_http_proxy)" allowed.test 8443 "$M-c3"
		net_tunnel c4 "$(net_http_proxy)" also.test 8443 "$M-c4"'
	want c1 rc=0 http=200 connect=200
	want c2 rc=56 connect=403
	not_arrived host "$MK-c2"
	want c3 rc=0 connect=200 echo=ok && arrived host "$MK-c3"
	want c4 connect=403 echo=no
	not_arrived host "$MK-c4"
	finish
}

case_px_socks() {
	begin proxied-socks5h || return
	cli "M=$MK"'
		S=$(net_socks_proxy)
		net_curl s1 -x "$S" "http://allowed.test/hello?$M-s1"
		net_curl s2 -x "$S" "http://also.test/hello?$M-s2"
		net_curl s3 -x "$S" "http://v6.test:8080/hello?$M-s3"'
	want s1 rc=0 http=200
	want s2 rc=97 && err_has s2 'SOCKS5.*\(2\)'
	not_arrived host "$MK-s2"
	want s3 rc=0 http=200 && from "$MK-s3" $C6
	finish
}

case_px_clients() {
	begin proxied-clients || return
	cli "M=$MK"'
		net_git g1 http://allowed.test/repo.git
		net_git g2 http://also.test/repo.git
		net_urllib u1 "http://allowed.test/hello?$M-u1"
		net_urllib u2 "http://also.test/hello?$M-u2"
		net_pip pip1 allowed.test
		net_pip pip2 also.test'
	want g1 rc=0 readme=ok
	want_not g2 rc=0 && err_has g2 403
	want u1 rc=0 http=200
	want u2 rc=0 http=403
	want pip1 rc=0 wheel=ok
	want_not pip2 rc=0
	not_arrived host " also.test"
	finish
}

case_px_auth() {
	begin proxied-auth || return
	cli "M=$MK"'
		P=$(net_http_proxy)
		S=$(net_socks_proxy)
		net_curl a1 -x "$(net_nocreds "$P")" "http://allowed.test/hello?$M-a1"
		net_curl a2 -x "$(net_wrongpass "$P")" "http://allowed.test/hello?$M-a2"
		net_curl a3 -p -x "$(net_nocreds "$P")" "http://allowed.test/hello?$M-a3"
		net_curl a5 -x "$(net_nocreds "$S")" "http://allowed.test/hello?$M-a5"
		net_curl a6 -x "$(net_wrongpass "$S")" "http://allowed.test/hello?$M-a6"
		net_tunnel a7 "$(net_nocreds "$P")" allowed.test 8443 "$M-a7"'
	want a1 rc=0 http=407
	# tinyproxy answers a wrong password with 401; heel-proxy must say 407.
	want a2 rc=0 'http=40[17]'
	want a3 rc=56 connect=407
	want a5 rc=97
	want a6 rc=97
	want a7 connect=407 echo=no
	not_arrived host "$MK"
	finish
}

case_px_dns() {
	begin proxied-dns || return
	cli "M=$MK;"'net_curl r1 "http://dns.test/hello?$M-r1"'
	want r1 rc=0 http=200
	since host | grep -q "^dns udp $C4 dns.test " || prob "the proxy asked no DNS query for dns.test"
	finish
}

case_px_killed() { # The proxy killed while a client waits: the next request fails.
	begin proxied-proxy-killed || return
	local go=$T/w/go.$run_n
	cli_start "M=$MK; GO=$go"'
		net_curl k1 "http://allowed.test/hello?$M-k1"
		: >ready
		net_wait_file "$GO"
		net_curl k2 "http://allowed.test/hello?$M-k2"
		net_curl k3 -p "http://allowed.test:8080/hello?$M-k3"'
	for _ in $(seq 300); do
		[ -e "$W/ready" ] && break
		sleep 0.1
	done
	kill -KILL "$TP_PID"
	wait "$TP_PID" 2>/dev/null
	touch "$go"
	cli_wait
	want k1 rc=0 http=200
	want k2 rc=7
	want k3 rc=7
	not_arrived host "$MK-k2"
	finish
}

# ================================================================ checkers
case_auditcheck() { # The audit checker passes a right file and catches wrong ones.
	begin auditcheck || return
	local f=$T/audit.jsonl o spec=(allowed.test:80:allowed also.test:80:refused "[2001:db8::10]:443:refused")
	good() {
		printf '%s\n' \
			'{"timestamp":"2026-01-02T03:04:05.006Z","host":"allowed.test","port":80,"allowed":true,"reason":"allow-list","method":"GET"}' \
			'{"timestamp":"2026-01-02T03:04:05.007Z","host":"also.test","port":80,"allowed":false,"reason":"not in the allow-list","method":"GET"}' \
			'{"timestamp":"2026-01-02T03:04:05.107Z","host":"[2001:db8::10]","port":443,"allowed":false,"reason":"not in the allow-list","method":"CONNECT"}'
	}
	good >"$f"
	o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$f" "${spec[@]}") || prob "a right file: $o"
	local bad
	for bad in 's/"port":80,/"port":"80",/' 's/"allowed":false/"allowed":true/' 's/05.006Z/05Z/' \
		's/,"method":"GET"}/}/' 's/05.107Z/04.000Z/' '2d' '1p' 's/"reason":"allow-list"/"reason":""/'; do
		good | sed "$bad" >"$f"
		/usr/bin/python3 "$HERE/auditcheck.py" "$f" "${spec[@]}" >/dev/null && prob "passed a file changed by sed '$bad'"
	done
	finish
}

case_decider() { # decider.py answers as its mode says.
	begin decider-modes || return
	local log=$T/decider.log q='{"host":"allowed.test","port":80,"method":"GET"}' o m
	for m in allow refuse garbage; do
		o=$(echo "$q" | timeout 10 /usr/bin/python3 "$HERE/decider.py" $m "$log")
		case $m in
		allow) [[ $o == '{"allow": true,'* ]] || prob "allow answered '$o'" ;;
		refuse) [[ $o == '{"allow": false,'* ]] || prob "refuse answered '$o'" ;;
		garbage) /usr/bin/python3 -c 'import json,sys; json.loads(sys.argv[1])' "$o" 2>/dev/null && prob "garbage answered JSON" ;;
		esac
	done
	echo "$q" | timeout 10 /usr/bin/python3 "$HERE/decider.py" crash "$log" >/dev/null
	o=$?
	[ "$o" = 3 ] || prob "crash exited $o, expected 3"
	echo "$q" | timeout 1 /usr/bin/python3 "$HERE/decider.py" hang "$log" >"$T/hang.out"
	o=$?
	[ "$o" = 124 ] || prob "hang exited $o before the timeout"
	[ -s "$T/hang.out" ] && prob "hang answered: $(cat "$T/hang.out")"
	[ "$(grep -c '"allowed.test"' "$log")" = 5 ] || prob "the log has $(grep -c '"allowed.test"' "$log") questions, expected 5"
	finish
}

case_strays() { # The leftover detector sees a process left in the client namespace.
	begin leftover-detector || return
	nsenter --net=/proc/"$TH_CPID"/ns/net -- setpriv --pdeathsig KILL sleep 300 &
	local p=$! left
	sleep 0.2
	left=$(th_strays)
	[[ $left == *"$p sleep"* ]] || prob "a sleep left in the client namespace (pid $p) was not reported: '$left'"
	kill -KILL "$p"
	wait "$p" 2>/dev/null
	for _ in $(seq 20); do
		left=$(th_strays)
		[ -z "$left" ] && break
		sleep 0.05
	done
	[ -z "$left" ] || prob "still reported after it ended: $left"
	finish
}

# ================================================================ main
set_user root
T0=$EPOCHREALTIME
case_direct_reach
case_direct_refusable
case_dns_counting
case_direct_bypass
case_direct_clients
case_auditcheck
case_decider
case_strays
if proxies_up; then
	for u in root nobody; do
		set_user $u
		case_px_http
		case_px_connect
		case_px_socks
		case_px_clients
		case_px_auth
		case_px_dns
	done
	set_user root
	case_px_killed
else
	echo "FAIL proxies: tinyproxy or socks5d.py did not start: $(tail -c 300 "$T/px/"*.out | tr '\n' ' ')"
	nfail=$((nfail + 1))
fi

PROB=""
for p in $PX_PIDS; do kill -TERM "$p" 2>/dev/null; done
for p in $PX_PIDS; do wait "$p" 2>/dev/null; done
left=$(th_strays)
[ -n "$left" ] && prob "left in the test namespaces: $(tr '\n' ';' <<<"$left")"
th_down || prob "the test network did not come down cleanly"
echo "# network up in ${TH_UP_SECONDS}s, cases $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $T0}")s, down in ${TH_DOWN_SECONDS:-?}s"
if [ -n "$PROB" ]; then
	echo "FAIL teardown: $PROB"
	nfail=$((nfail + 1))
fi
totals

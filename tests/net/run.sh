#!/bin/bash
# SPDX-License-Identifier: MIT
# The live network suite: heel-exec and heel-proxy against a little
# internet made of namespaces (tests/net/testhost.sh), with the real
# clients a sandboxed program uses (curl over HTTP, CONNECT and SOCKS5,
# git, python3's urllib, pip), as root and as uid 65534. What must get
# through gets through (and the test host logs it, from the client side's
# address); what the policy refuses gets its refusal (403, 407, a SOCKS
# failure) and never arrives; what tries to go around the proxy (no proxy,
# /dev/tcp, UDP, DNS straight out) reaches nothing and the test host's DNS
# server counts no query. After every run nothing may be left in the
# namespaces: no proxy, no decider, no sandbox.
#
# Usage: tests/net/run.sh BUILD_DIR [CASE-GLOB]
#   BUILD_DIR holds bin/heelc and bin/heel-exec (make check-net builds
#   them). Prints PASS/FAIL/SKIP per case and user, then "N passed, N
#   failed, N skipped"; exit 1 on a failure. Root only (it makes the
#   namespaces). tests/net/selftest.sh checks the harness without heel.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
NOBODY=65534
RUN_TIMEOUT=180 # one heel-exec run, at most (the hanging decider's case is the longest)

. "$HERE/testhost.sh"
. "$HERE/lib.sh"
. "$HERE/capture.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP everything: the network suite runs as root (it makes network and mount namespaces; each case also runs as uid $NOBODY)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for f in heelc heel-exec; do
	[ -x "$B/bin/$f" ] || { echo "FAIL setup: missing $B/bin/$f (make check-net builds it)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
missing=""
for t in curl git getent setpriv nsenter unshare ip timeout /usr/bin/python3; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || missing="$missing python3-pip"
if [ -n "$missing" ]; then
	echo "FAIL setup: missing tools:$missing (make deps-check installs them)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

T=$(mktemp -d /tmp/heel-net-run.XXXXXX) || exit 1
chmod 755 "$T"
BG=""
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null
	th_down 2>/dev/null
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ the files
# heel-exec, the decider and the clients where uid 65534 reaches them;
# heel-proxy, where built, beside heel-exec as in the build directory.
mkdir -p "$T/bin" "$T/lib"
cp "$B/bin/heel-exec" "$T/bin/heel-exec"
[ -x "$B/bin/heel-proxy" ] && cp "$B/bin/heel-proxy" "$T/bin/heel-proxy"
[ -x "$B/bin/heel" ] && cp "$B/bin/heel" "$T/bin/heel"
cp "$HERE/decider.py" "$T/bin/decider.py"
cp "$HERE/clients.sh" "$T/lib/clients.sh"
cp "$HERE/capclient.py" "$T/lib/capclient.py"
chmod 755 "$T/bin" "$T/lib" "$T/bin"/*
chmod 644 "$T/lib/clients.sh" "$T/lib/capclient.py"
HX=$T/bin/heel-exec

# Each user's tree: a home, the working directories (one a run, kept for
# inspection until the end), the audit file and the decider's log.
# Policies: @T@ and @U@ filled in, compiled once per user; a policy that
# does not compile fails the cases that use it, with heelc's message.
declare -A CERR
for u in root nobody; do
	mkdir -p "$T/u-$u/home" "$T/u-$u/w" "$T/pol/$u"
	[ "$u" = nobody ] && chown -R $NOBODY:$NOBODY "$T/u-$u"
	chmod 755 "$T/u-$u" "$T/u-$u/home" "$T/u-$u/w"
	for p in "$HERE"/policies/*.heel; do
		n=$(basename "$p" .heel)
		sed -e "s|@T@|$T|g" -e "s|@U@|$u|g" "$p" >"$T/pol/$u/$n.heel"
		if ! "$B/bin/heelc" "$T/pol/$u/$n.heel" -o "$T/pol/$u/$n.hpol" >"$T/pol/$u/$n.log" 2>&1; then
			CERR[$u/$n]=$(grep -m1 'error' "$T/pol/$u/$n.log" | sed "s|$T/pol/$u/||")
			[ -n "${CERR[$u/$n]}" ] || CERR[$u/$n]="heelc failed"
		fi
		chmod 644 "$T/pol/$u/$n.hpol" 2>/dev/null
	done
done
chmod -R a+rX "$T/pol"

# ------------------------------------------------------------ the network
export TH_PDEATHSIG=1
th_up "$T/th" || { echo "FAIL setup: the test network did not come up"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
cd "$T" || exit 1

# ------------------------------------------------------------ running
set_user() {
	U=$1
	if [ "$U" = root ]; then PRE=(); else PRE=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups); fi
}

# sbx_start POLICY SCRIPT: heel-exec POLICY -- sh -c SCRIPT in the client
# namespaces, as $U, in the background (BG); clients.sh is sourced first.
# The working directory W is fresh; the launcher's stdout and stderr go
# to $W.out and $W.err.
run_n=0
sbx_start() {
	local pol=$1 script=$2
	run_n=$((run_n + 1))
	W=$T/u-$U/w/$run_n
	mkdir -p "$W"
	[ "$U" = nobody ] && chown $NOBODY:$NOBODY "$W"
	chmod 700 "$W"
	OUT="" RC="" RUNINFO="" BG=""
	if [ -n "${CERR[$U/$pol]:-}" ]; then
		RC=126
		return 1
	fi
	th_client "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$T/u-$U/home" LANG=C.UTF-8 \
		timeout -k 5 "$RUN_TIMEOUT" "$HX" ${SBX_FLAGS:-} --workdir "$W" "$T/pol/$U/$pol.hpol" -- \
		sh -c ". '$T/lib/clients.sh'; $script" >"$W.out" 2>"$W.err" </dev/null &
	BG=$!
}

# sbx_wait: waits for the run; RC, OUT. Then nothing of the
# run may be left in the namespaces (what is, is reported and ended).
sbx_wait() {
	[ -n "$BG" ] || return 0
	wait "$BG"
	RC=$?
	BG=""
	OUT=$(cat "$W.out")
	local left p
	for _ in $(seq 60); do
		left=$(th_strays)
		[ -z "$left" ] && break
		sleep 0.05
	done
	if [ -n "$left" ]; then
		prob "left running after heel-exec exited: $(while read -r p _; do tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-80; echo -n ';'; done <<<"$left")"
		for p in $(cut -d' ' -f1 <<<"$left"); do kill -KILL "$p" 2>/dev/null; done
	fi
}

# sbx POLICY SCRIPT: sbx_start, sbx_wait; false when the sandbox did not
# run the script (the case records why and stops).
sbx() {
	sbx_start "$@"
	sbx_wait
	ran "$1"
}

# ran POLICY: the policy compiled and heel-exec ran the script.
declare -A SAID
ran() {
	local e
	if [ "$RC" = 126 ] && [ -n "${CERR[$U/$1]:-}" ]; then
		prob "policy $1 does not compile: ${CERR[$U/$1]}"
		return 1
	fi
	e=$(grep -v '^heel-exec: note' "$W.err" | head -1 | cut -c1-200)
	case $RC in
	125)
		# The first refusal in full, the same one again in short.
		if [ -n "${SAID[$e]:-}" ]; then
			prob "heel-exec refused to start (125), as above"
		else
			SAID[$e]=1
			prob "heel-exec refused to start (125): ${e:-no message}"
		fi
		return 1
		;;
	124 | 137) prob "the run timed out after ${RUN_TIMEOUT}s" ;;
	esac
	RUNINFO="heel-exec exit $RC${e:+: $e}"
	return 0
}

# ================================================================ cases
# Each case runs as $U and names its requests with $MK (case, user,
# pid), so the logs tell this run's requests from any other's.

# The addresses the test host sees the proxy connect from.
C4=203.0.113.1
C6=2001:db8::1

case_harness() { # The network itself, without a sandbox.
	begin harness-preflight || return
	local o
	o=$(th_client curl -sS --max-time 5 "http://allowed.test/hello?$MK-1" 2>&1)
	[ "$o" = "hello from the heel test host" ] || prob "allowed.test from the client namespace: $o"
	o=$(th_client curl -sS --max-time 5 "http://v6.test/hello?$MK-2" 2>&1)
	[ "$o" = "hello from the heel test host" ] || prob "v6.test from the client namespace: $o"
	o=$(th_client curl -sS --max-time 5 "http://loop.test/hello?$MK-3" 2>&1)
	[ "$o" = "hello from the heel test host" ] || prob "the canary on loop.test: $o"
	o=$(th_client getent hosts dns.test 2>&1)
	[[ $o == 2001:db8::10* || $o == 203.0.113.10* ]] || prob "dns.test through the test DNS server: $o"
	arrived host "$MK-1"
	arrived canary "$MK-3"
	finish
}

case_control_deny() { # network deny: no proxy variables, no way out.
	begin control-deny || return
	sbx deny "M=$MK"'
		net_env
		net_curl d1 --noproxy "*" "http://203.0.113.10/hello?$M-d1"
		net_curl d2 "http://allowed.test/hello?$M-d2"
		net_devtcp d3 203.0.113.10 80 "$M-d3"
		net_udp d4 203.0.113.10 53
		net_getent d5 dns.test' || { finish; return; }
	[ "$RC" = 0 ] || prob "heel-exec exited $RC, expected the script's 0 ($(head -c 200 "$W.err"))"
	grep -qi '_proxy=' <<<"$OUT" && prob "proxy variables under network deny: $(grep -i '_proxy=' <<<"$OUT" | tr '\n' ' ')"
	want_not d1 rc=0
	want_not d2 rc=0
	want_not d3 rc=0
	want d4 reply=no
	want_not d5 rc=0
	not_arrived host "$MK"
	not_arrived canary "$MK"
	[ "$(dns_new)" = 0 ] || prob "the DNS server got $(dns_new) packets"
	finish
}

case_proxy_env() { # The proxy variables: set, the same upper and lower, local.
	begin proxy-env || return
	sbx allow 'net_env' || { finish; return; }
	local v val url='^[a-z0-9]+://[^:@/]+:[^@/]+@127\.0\.0\.1:[0-9]+/?$'
	for v in HTTP_PROXY HTTPS_PROXY ALL_PROXY; do
		val=$(sed -n "s/^$v=//p" <<<"$OUT")
		[[ $val =~ $url ]] || prob "$v='$val' is not scheme://user:secret@127.0.0.1:PORT"
		[ "$(sed -n "s/^${v,,}=//p" <<<"$OUT")" = "$val" ] || prob "${v,,} differs from $v"
	done
	for v in HTTP_PROXY HTTPS_PROXY; do
		[[ $(sed -n "s/^$v=//p" <<<"$OUT") == http://* ]] || prob "$v is not an http:// URL"
	done
	val=$(sed -n "s/^ALL_PROXY=//p" <<<"$OUT")
	[[ $val == http://* || $val == socks5h://* || $val == socks5://* ]] || prob "ALL_PROXY has scheme ${val%%://*}"
	# Only the sandbox's own loopback goes around the proxy.
	for v in NO_PROXY no_proxy; do
		[ "$(sed -n "s/^$v=//p" <<<"$OUT")" = "localhost,127.0.0.1,::1" ] ||
			prob "$v is not the loopback names: '$(sed -n "s/^$v=//p" <<<"$OUT")'"
	done
	NOTE="ALL_PROXY ${val%%://*}://"
	finish
}

case_curl_plain() { # curl, absolute-form HTTP through HTTP_PROXY.
	begin curl-http || return
	sbx allow "M=$MK"'
		net_curl p1 "http://allowed.test/hello?$M-p1"
		net_curl p2 "http://also.test/hello?$M-p2"
		net_curl p3 "http://v6.test/hello?$M-p3"
		net_curl p4 "http://allowed.test:8080/hello?$M-p4"' || { finish; return; }
	want p1 rc=0 http=200 && body_has p1 "hello from the heel test host"
	arrived host "$MK-p1" && from "$MK-p1" $C4
	want p2 rc=0 http=403 && body_has p2 also.test
	not_arrived host "$MK-p2"
	want p3 rc=0 http=200
	arrived host "$MK-p3" && from "$MK-p3" $C6
	want p4 rc=0 http=200
	finish
}

case_curl_connect() { # curl --proxytunnel, and a raw CONNECT to the echo port.
	begin curl-connect || return
	sbx allow "M=$MK"'
		net_curl c1 -p "http://allowed.test:8080/hello?$M-c1"
		net_curl c2 -p "http://also.test:8080/hello?$M-c2"
		net_tunnel c3 "$(net_http_proxy)" allowed.test 8443 "$M-c3"
		net_tunnel c4 "$(net_http_proxy)" also.test 8443 "$M-c4"
		net_curl c5 -p "http://v6.test/hello?$M-c5"' || { finish; return; }
	want c1 rc=0 http=200 connect=200
	arrived host "$MK-c1"
	want c2 rc=56 connect=403
	not_arrived host "$MK-c2"
	want c3 rc=0 connect=200 echo=ok
	arrived host "$MK-c3" && from "$MK-c3" $C4
	want c4 connect=403 echo=no
	not_arrived host "$MK-c4"
	want c5 rc=0 http=200 connect=200
	finish
}

case_curl_socks() { # curl through SOCKS5 with names resolved by the proxy.
	begin curl-socks5h || return
	sbx allow "M=$MK"'
		S=$(net_socks_proxy)
		net_curl s1 -x "$S" "http://allowed.test/hello?$M-s1"
		net_curl s2 -x "$S" "http://also.test/hello?$M-s2"
		net_curl s3 -x "$S" "http://v6.test:8080/hello?$M-s3"' || { finish; return; }
	want s1 rc=0 http=200
	arrived host "$MK-s1"
	# 97: CURLE_PROXY; the reply code (2: not allowed by ruleset) is in
	# curl's message.
	want s2 rc=97 && err_has s2 'SOCKS5'
	not_arrived host "$MK-s2"
	want s3 rc=0 http=200
	arrived host "$MK-s3" && from "$MK-s3" $C6
	finish
}

case_ip_literal() { # The address of an allowed name, written as an address, is not allowed.
	begin ip-literal-not-listed || return
	sbx allow "M=$MK"'
		net_curl i1 "http://203.0.113.10/hello?$M-i1"
		net_curl i2 -p "http://203.0.113.10:8080/hello?$M-i2"
		net_curl i3 -x "$(net_socks_proxy)" "http://203.0.113.10/hello?$M-i3"
		net_curl i4 "http://[2001:db8::10]/hello?$M-i4"
		net_curl i5 "http://3405803786/hello?$M-i5"' || { finish; return; }
	want i1 rc=0 http=403
	want i2 rc=56 connect=403
	want i3 rc=97
	want i4 rc=0 http=403
	want_not i5 http=200
	not_arrived host "$MK"
	finish
}

case_git() { # git clone over HTTP (dumb protocol) through the proxy.
	begin git-clone || return
	sbx allow "M=$MK"'
		net_git g1 http://allowed.test/repo.git
		net_git g2 http://also.test/repo.git' || { finish; return; }
	want g1 rc=0 readme=ok
	want_not g2 rc=0 && err_has g2 403
	not_arrived host "GET /repo.git/info/refs?service=git-upload-pack also.test"
	finish
}

case_urllib() { # python3's urllib, proxies from the environment.
	begin python-urllib || return
	sbx allow "M=$MK"'
		net_urllib u1 "http://allowed.test/hello?$M-u1"
		net_urllib u2 "http://also.test/hello?$M-u2"' || { finish; return; }
	want u1 rc=0 http=200 && body_has u1 "hello from the heel test host"
	arrived host "$MK-u1"
	want u2 rc=0 http=403
	not_arrived host "$MK-u2"
	finish
}

case_pip() { # pip download from the test host's index.
	begin pip-download || return
	sbx allow 'HOME=$PWD
		net_pip pip1 allowed.test
		net_pip pip2 also.test' || { finish; return; }
	want pip1 rc=0 wheel=ok
	want_not pip2 rc=0 && want pip2 wheel=no
	not_arrived host "/simple/heeltestpkg/ also.test"
	finish
}

case_pip_venv() { # pip install into the policy's venv through heel-proxy; read-only without allow-pip-install.
	local pip='python3 -m pip install --no-cache-dir --disable-pip-version-check --retries 0 \
		--timeout 15 --trusted-host allowed.test --index-url http://allowed.test/simple heeltestpkg'
	begin pip-into-venv || return
	sbx venvpip "HOME=\$PWD
		$pip >pipw.out 2>pipw.err; echo \"pipw rc=\$?\"
		python3 -c 'import heeltestpkg, sys; assert heeltestpkg.__file__.startswith(sys.prefix)'; echo \"impw rc=\$?\"" ||
		{ finish; return; }
	want pipw rc=0
	want impw rc=0
	arrived host "GET /packages/heeltestpkg-0.1-py3-none-any.whl"
	sbx venvro "HOME=\$PWD
		$pip >pipr.out 2>pipr.err; echo \"pipr rc=\$?\"
		python3 -c 'import heeltestpkg'; echo \"impr rc=\$?\"" || { finish; return; }
	want_not pipr rc=0
	want_not impr rc=0
	[ -z "$(find "$T/u-$U/venv-ro" -name 'heeltestpkg*' | head -1)" ] ||
		prob "the read-only venv holds heeltestpkg"
	finish
}

# Allowed by the list, refused by the address the name resolves to (or
# the literal is): private, ULA, link-local metadata, loopback, the client
# side's own address.
BYADDR=(private.test ula.test meta.test loop.test self.test 10.77.0.10 169.254.169.254 127.0.0.1 "[::1]")
case_by_address() {
	begin refused-by-address || return
	# NO_PROXY sends the loopback literals straight to the sandbox's own
	# loopback: cleared here, so that each destination asks the proxy.
	sbx addr "M=$MK; HOSTS='${BYADDR[*]}'"'
		set -f
		NO_PROXY= no_proxy=; export NO_PROXY no_proxy
		S=$(net_socks_proxy)
		net_curl ok "http://allowed.test/hello?$M-ok"
		k=0
		for h in $HOSTS; do
			k=$((k + 1))
			net_curl a$k "http://$h/hello?$M-a$k"
			net_curl b$k -p "http://$h:8080/hello?$M-b$k"
			net_curl c$k -x "$S" "http://$h/hello?$M-c$k"
		done' || { finish; return; }
	want ok rc=0 http=200
	# One line a destination: what each of the three ways got.
	local k=0 h a b c
	for h in "${BYADDR[@]}"; do
		k=$((k + 1))
		a=$(res a$k) b=$(res b$k) c=$(res c$k)
		if ! [[ " $a " == *" rc=0 http=403 "* && " $b " == *" rc=56 "*" connect=403 "* && " $c " == *" rc=97 "* ]]; then
			prob "$h: HTTP '${a:-no result}', CONNECT '${b:-no result}', SOCKS5 '${c:-no result}' (want 403, 403, rc=97)"
		fi
	done
	not_arrived host "$MK-a"
	not_arrived host "$MK-b"
	not_arrived host "$MK-c"
	not_arrived canary "$MK"
	finish
}

case_bypass() { # Around the proxy: nothing gets out, DNS included.
	begin bypass-straight-out || return
	sbx allow "M=$MK"'
		net_curl n1 --noproxy "*" "http://allowed.test/hello?$M-n1"
		net_curl n2 --noproxy "*" "http://203.0.113.10/hello?$M-n2"
		net_curl n3 --noproxy "*" "http://[2001:db8::10]/hello?$M-n3"
		net_devtcp n4 203.0.113.10 80 "$M-n4"
		net_devtcp n5 203.0.113.10 53 "$M-n5"
		net_udp n6 203.0.113.10 53
		net_udp n7 2001:db8::10 53
		net_getent n8 dns.test
		net_pyresolve n9 dns.test' || { finish; return; }
	local l
	for l in n1 n2 n3 n4 n5; do want_not $l rc=0; done
	want n6 reply=no
	want n7 reply=no
	# A name the list allows resolves, inside the sandbox only, to the
	# address capture gives it (heel(5), THE PROXY, Capture), never to
	# the test host's: the query never leaves (the DNS server's count
	# below).
	for l in n8 n9; do
		want $l rc=0 && { grep -qE '^(198\.18\.|fd68:6565:6c00:)' "$W/$l.out" ||
			prob "$l: dns.test resolved to $(head -c 80 "$W/$l.out"), not a capture address"; }
	done
	not_arrived host "$MK"
	not_arrived canary "$MK"
	[ "$(dns_new)" = 0 ] || prob "the DNS server got $(dns_new) packets: $(since host | grep '^dns ' | head -2 | tr '\n' ';')"
	finish
}

case_own_loopback() { # The sandbox's own loopback: its server reached directly (NO_PROXY), not through the proxy.
	begin own-loopback || return
	sbx allow "M=$MK"'
		python3 -m http.server --bind 127.0.0.1 8099 >/dev/null 2>&1 &
		for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:8099/ && break; sleep 0.05; done
		net_curl o1 "http://127.0.0.1:8099/?$M-o1"
		net_curl o2 --noproxy "" -x "$(net_http_proxy)" "http://127.0.0.1:8099/?$M-o2"
		net_curl o3 "http://localhost:8099/?$M-o3"
		kill $!' || { finish; return; }
	want o1 rc=0 http=200
	want o2 http=403
	want o3 rc=0 http=200
	not_arrived host "$MK"
	not_arrived canary "$MK"
	finish
}

case_empty_list() { # An empty allow-list: every destination refused, nothing arrives.
	begin empty-allow-list || return
	sbx empty "M=$MK"'
		net_curl e1 "http://allowed.test/hello?$M-e1"
		net_curl e2 -p "http://allowed.test/hello?$M-e2"
		net_curl e3 "http://203.0.113.10/hello?$M-e3"' || { finish; return; }
	want e1 http=403
	want e2 connect=403
	want e3 http=403
	not_arrived host "$MK"
	finish
}

case_env_removed() { # The proxy variables unset or edited: no way out, not an open one.
	begin proxy-env-removed || return
	sbx allow "M=$MK"'
		(unset HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy
		 net_curl v1 "http://allowed.test/hello?$M-v1")
		(export NO_PROXY=allowed.test no_proxy=allowed.test
		 net_curl v2 "http://allowed.test/hello?$M-v2")
		(export http_proxy=http://203.0.113.10:80 HTTP_PROXY=http://203.0.113.10:80
		 net_curl v3 "http://allowed.test/hello?$M-v3")' || { finish; return; }
	want_not v1 rc=0
	want_not v2 rc=0
	want_not v3 rc=0
	not_arrived host "$MK"
	not_arrived canary "$MK"
	finish
}

case_upstream_failure() { # An allowed destination that does not answer: 502, not a hang or a 403.
	begin upstream-failure || return
	sbx allow "M=$MK"'
		net_curl u1 "http://allowed.test:9/hello?$M-u1"
		net_curl u2 -p "http://allowed.test:9/hello?$M-u2"' || { finish; return; }
	want u1 http=502
	want u2 connect=502
	finish
}

case_proxy_dns() { # The proxy resolves a name /etc/hosts lacks through DNS.
	begin proxy-resolves-by-dns || return
	sbx allow "M=$MK"'
		net_curl r1 "http://dns.test/hello?$M-r1"' || { finish; return; }
	want r1 rc=0 http=200
	arrived host "$MK-r1"
	since host | grep -q "^dns udp $C4 dns.test \|^dns tcp $C4 dns.test " || prob "no DNS query for dns.test from the client side"
	finish
}

case_auth() { # Without the secret, or with a wrong one: 407 / SOCKS auth failure.
	begin proxy-auth || return
	sbx allow "M=$MK"'
		P=$(net_http_proxy)
		S=$(net_socks_proxy)
		net_curl a0 "http://allowed.test/hello?$M-a0"
		net_curl a1 -x "$(net_nocreds "$P")" "http://allowed.test/hello?$M-a1"
		net_curl a2 -x "$(net_wrongpass "$P")" "http://allowed.test/hello?$M-a2"
		net_curl a3 -p -x "$(net_nocreds "$P")" "http://allowed.test/hello?$M-a3"
		net_curl a4 -p -x "$(net_wrongpass "$P")" "http://allowed.test/hello?$M-a4"
		net_curl a5 -x "$(net_nocreds "$S")" "http://allowed.test/hello?$M-a5"
		net_curl a6 -x "$(net_wrongpass "$S")" "http://allowed.test/hello?$M-a6"
		net_tunnel a7 "$(net_nocreds "$P")" allowed.test 8443 "$M-a7"' || { finish; return; }
	want a0 rc=0 http=200
	want a1 rc=0 http=407
	want a2 rc=0 http=407
	want a3 rc=56 connect=407
	want a4 rc=56 connect=407
	want a5 rc=97
	want a6 rc=97
	want a7 connect=407 echo=no
	local l
	for l in a1 a2 a3 a4 a5 a6 a7; do not_arrived host "$MK-$l"; done
	finish
}

# proxy_pids: heel-proxy processes in the client network namespace (the
# harness's own; nothing else runs there).
proxy_pids() {
	local p
	for p in $(th_strays | cut -d' ' -f1); do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = heel-proxy ] && echo "$p"
	done
}

case_proxy_killed() { # The proxy dies mid-run: later requests fail, heel-exec says so.
	begin proxy-killed || return
	local go=$T/u-$U/go.$((run_n + 1)) pids
	sbx_start allow "M=$MK; GO=$go"'
		net_curl k1 "http://allowed.test/hello?$M-k1"
		: >ready
		net_wait_file "$GO"
		net_curl k2 "http://allowed.test/hello?$M-k2"
		net_curl k3 -p "http://allowed.test:8080/hello?$M-k3"'
	if [ -z "$BG" ]; then ran allow; finish; return; fi
	for _ in $(seq 600); do
		[ -e "$W/ready" ] && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.1
	done
	if [ -e "$W/ready" ]; then
		pids=$(proxy_pids)
		if [ -n "$pids" ]; then
			kill -KILL $pids
		else
			prob "no heel-proxy process in the client namespace while the sandbox ran"
		fi
	fi
	touch "$go"
	sbx_wait
	ran allow || { finish; return; }
	want k1 rc=0 http=200
	want_not k2 http=200
	want_not k3 connect=200
	not_arrived host "$MK-k2"
	not_arrived host "$MK-k3"
	grep -qi 'proxy' "$W.err" || prob "heel-exec said nothing about the proxy (stderr: $(head -c 200 "$W.err" | tr '\n' ' '))"
	NOTE="heel-exec exit $RC: $(grep -i -m1 proxy "$W.err" | cut -c1-120)"
	finish
}

case_proxy_confined() { # heel-proxy serves confined: seccomp, no new privileges, no capabilities.
	begin proxy-confined || return
	local go=$T/u-$U/go.$((run_n + 1)) pids p st
	sbx_start allow "M=$MK; GO=$go"'
		net_curl c1 "http://allowed.test/hello?$M-c1"
		: >ready
		net_wait_file "$GO"'
	if [ -z "$BG" ]; then ran allow; finish; return; fi
	for _ in $(seq 600); do
		[ -e "$W/ready" ] && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.1
	done
	pids=$(proxy_pids)
	[ -n "$pids" ] || prob "no heel-proxy process in the client namespace while the sandbox ran"
	for p in $pids; do
		st=$(cat "/proc/$p/status" 2>/dev/null)
		grep -q '^Seccomp:[[:space:]]*2' <<<"$st" || prob "heel-proxy $p has no seccomp filter"
		grep -q '^NoNewPrivs:[[:space:]]*1' <<<"$st" || prob "heel-proxy $p lacks no_new_privs"
		grep -q '^CapEff:[[:space:]]*0000000000000000' <<<"$st" || prob "heel-proxy $p keeps capabilities: $(grep CapEff <<<"$st")"
		# Dropping the bounding set takes CAP_SETPCAP: root's proxy does;
		# an unprivileged one has nothing in it to use (no_new_privs).
		if [ "$U" = root ]; then
			grep -q '^CapBnd:[[:space:]]*0000000000000000' <<<"$st" || prob "heel-proxy $p keeps a bounding set: $(grep CapBnd <<<"$st")"
		fi
	done
	touch "$go"
	sbx_wait
	ran allow || { finish; return; }
	want c1 rc=0 http=200
	finish
}

case_audit() { # One audit line per decision, in order, with the documented keys.
	begin audit-log || return
	local f=$T/u-$U/audit.jsonl o
	rm -f "$f"
	sbx audit "M=$MK"'
		net_curl l1 "http://allowed.test/hello?$M-l1"
		net_curl l2 "http://also.test/hello?$M-l2"
		net_curl l3 -p "http://allowed.test:8080/hello?$M-l3"
		net_curl l4 -x "$(net_socks_proxy)" "http://allowed.test/hello?$M-l4"
		net_curl l5 "http://203.0.113.10/hello?$M-l5"' || { finish; return; }
	want l1 rc=0 http=200
	want l2 rc=0 http=403
	want l3 rc=0 connect=200
	want l4 rc=0 http=200
	want l5 rc=0 http=403
	if [ ! -f "$f" ]; then
		prob "no audit file $f"
	else
		o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$f" allowed.test:80:allowed also.test:80:refused \
			allowed.test:8080:allowed allowed.test:80:allowed 203.0.113.10:80:refused)
		case $o in
		OK*) NOTE=${o#OK } ;;
		*) prob "audit: $o" ;;
		esac
	fi
	finish
}

# Two absolute-form requests written at once on one connection, as a
# pipelining client (or one that thinks the connection kept alive) sends
# them, each with the run's credentials, after a first request with no
# body, a Content-Length body and a chunked one: the first is forwarded
# without Proxy-Authorization and with its body; the second never
# reaches anything (heel-proxy forwards one request a connection and
# closes after its response), and no Proxy-Authorization reaches the
# test host in any request or after one. A request sent again on a
# connection of its own goes through, or is refused, and is audited on
# its own: one audit line for each connection, none for what was never
# forwarded.
case_pipelined() { # Pipelined requests: the first forwarded without the credentials, the second never.
	begin http-pipelined || return
	local f=$T/u-$U/audit.jsonl o
	rm -f "$f"
	sbx audit "M=$MK"'
		P=$(net_http_proxy)
		net_pipeline q1 "$P" get "http://allowed.test/hello?$M-q1a" "http://allowed.test/hello?$M-q1b"
		net_pipeline q2 "$P" length "http://allowed.test/hello?$M-q2a" "http://also.test/hello?$M-q2b"
		net_pipeline q3 "$P" chunked "http://allowed.test/hello?$M-q3a" "http://allowed.test/hello?$M-q3b"
		net_curl q4 "http://allowed.test/hello?$M-q4"
		net_curl q5 "http://also.test/hello?$M-q5"' || { finish; return; }
	want q1 rc=0 first=200 responses=1 eof=yes && body_has q1 "hello from the heel test host"
	# The test host answers POST 501, having logged the request.
	want q2 rc=0 first=501 responses=1 eof=yes
	want q3 rc=0 first=501 responses=1 eof=yes
	want q4 rc=0 http=200
	want q5 rc=0 http=403
	arrived host "$MK-q1a"
	arrived host "$MK-q2a"
	arrived host "$MK-q3a"
	arrived host "$MK-q4"
	not_arrived host "$MK-q1b"
	not_arrived host "$MK-q2b"
	not_arrived host "$MK-q3b"
	not_arrived host "$MK-q5"
	o=$(since host | grep -i -m1 'proxy-authorization')
	[ -z "$o" ] && o=$(since host | grep -i -m1 'proxy-connection')
	[ -n "$o" ] && prob "a hop-by-hop header reached the test host: $(cut -c1-200 <<<"$o")"
	# The bodies did arrive after their heads (the http-after lines can
	# see what a connection carries past its request).
	[ "$(since host | grep '^http-after ' | grep -c 'hello')" -ge 2 ] ||
		prob "the POST bodies did not reach the test host: $(since host | grep '^http-after ' | cut -c1-200 | tr '\n' ';')"
	if [ ! -f "$f" ]; then
		prob "no audit file $f"
	else
		o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$f" allowed.test:80:allowed allowed.test:80:allowed \
			allowed.test:80:allowed allowed.test:80:allowed also.test:80:refused)
		case $o in
		OK*) ;;
		*) prob "audit: $o" ;;
		esac
	fi
	finish
}

case_audit_daily() { # The daily sink: today's file (UTC) in the directory, one line per decision.
	begin audit-daily || return
	local d=$T/u-$U/auditdir f o
	rm -rf "$d"
	mkdir -p "$d"
	[ "$U" = nobody ] && chown $NOBODY:$NOBODY "$d"
	f=$d/network-audit.$(date -u +%Y-%m-%d).jsonl
	sbx audit-daily "M=$MK"'
		net_curl y1 "http://allowed.test/hello?$M-y1"
		net_curl y2 "http://also.test/hello?$M-y2"' || { finish; return; }
	want y1 rc=0 http=200
	want y2 rc=0 http=403
	if [ ! -f "$f" ]; then
		prob "no daily audit file $f (the directory holds: $(ls "$d" | tr '\n' ' '))"
	else
		o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$f" allowed.test:80:allowed also.test:80:refused)
		case $o in
		OK*) NOTE=${o#OK } ;;
		*) prob "audit: $o" ;;
		esac
	fi
	finish
}

case_no_namespaces() { # --best-effort --no-namespaces: the proxy on the host's loopback, Landlock's port rule.
	begin no-namespaces-best-effort || return
	SBX_FLAGS="--best-effort --no-namespaces" sbx allow "M=$MK"'
		net_curl b1 "http://allowed.test/hello?$M-b1"
		net_curl b2 "http://also.test/hello?$M-b2"
		net_curl b3 --noproxy "*" "http://203.0.113.10/hello?$M-b3"
		net_udp b4 203.0.113.10 53' || { finish; return; }
	want b1 rc=0 http=200
	want b2 rc=0 http=403
	want_not b3 rc=0
	want b4 reply=no
	not_arrived host "$MK-b2"
	not_arrived host "$MK-b3"
	grep -q "weakened: without a network namespace" "$W.err" || prob "the weakening was not named: $(head -c 300 "$W.err")"
	finish
}

# case_decide MODE: a decider that allows, refuses, hangs, crashes or
# answers garbage; all but the first are refusals.
case_readme_curl() { # The original README's curl example, as written, through `heel run`.
	begin readme-curl || return
	local d=$T/u-$U/readme o rc
	rm -rf "$d"
	mkdir -p "$d"
	[ "$U" = nobody ] && chown $NOBODY:$NOBODY "$d"
	[ -x "$T/bin/heel" ] || { prob "no heel in $B/bin"; finish; return; }
	o=$(cd "$d" && th_client "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$T/u-$U/home" LANG=C.UTF-8 \
		timeout -k 5 "$RUN_TIMEOUT" "$T/bin/heel" run --network allow-list --allow-domain example.com \
		--audit-log ./run.jsonl curl https://example.com 2>&1)
	rc=$?
	[ "$rc" = 0 ] || prob "heel run exited $rc: $(head -c 300 <<<"$o")"
	grep -q "Example Domain" <<<"$o" || prob "no page: $(head -c 300 <<<"$o")"
	arrived host "http 443"
	if [ -f "$d/run.jsonl" ]; then
		o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$d/run.jsonl" example.com:443:allowed)
		case $o in OK*) ;; *) prob "audit: $o" ;; esac
	else
		prob "no audit file run.jsonl"
	fi
	# The same with example.com not in the list: refused, recorded, nothing arrives.
	rm -f "$d/run.jsonl"
	local before
	before=$(grep -c '^http 443' "$TH_DIR/log/host.log")
	o=$(cd "$d" && th_client "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$T/u-$U/home" LANG=C.UTF-8 \
		timeout -k 5 "$RUN_TIMEOUT" "$T/bin/heel" run --network allow-list --allow-domain other.example \
		--audit-log ./run.jsonl curl -sS https://example.com 2>&1)
	rc=$?
	[ "$rc" != 0 ] || prob "curl reached example.com though it is not in the list"
	[ "$(grep -c '^http 443' "$TH_DIR/log/host.log")" = "$before" ] || prob "a request reached example.com"
	grep -q 403 <<<"$o" || prob "no 403 in: $(head -c 300 <<<"$o")"
	o=$(/usr/bin/python3 "$HERE/auditcheck.py" "$d/run.jsonl" example.com:443:refused 2>&1)
	case $o in OK*) ;; *) prob "audit of the refusal: $o" ;; esac
	finish
}

case_readme_cargo() { # The original README's `cargo fetch` example.
	begin readme-cargo || return
	local d=$T/u-$U/crate o rc h=$T/u-$U/home
	command -v cargo >/dev/null || { skipr "no cargo (make deps-check installs it)"; finish; return; }
	rm -rf "$d"
	mkdir -p "$d/src"
	printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' >"$d/Cargo.toml"
	echo 'fn main() {}' >"$d/src/main.rs"
	[ "$U" = nobody ] && chown -R $NOBODY:$NOBODY "$d"
	heel_run() {
		(cd "$d" && th_client "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$h" LANG=C.UTF-8 \
			timeout -k 5 "$RUN_TIMEOUT" "$T/bin/heel" run "$@" 2>&1)
	}
	# As written: the project is read-only unless granted, and cargo
	# writes Cargo.lock there; refused by the kernel, and cargo says so.
	o=$(heel_run --network allow-list --allow-domain '*.crates.io' cargo fetch)
	rc=$?
	[ "$rc" != 0 ] || prob "cargo fetch wrote Cargo.lock into a read-only project"
	grep -q 'Read-only file system' <<<"$o" || prob "not a clear refusal: $(head -c 300 <<<"$o")"
	[ ! -e "$d/Cargo.lock" ] || prob "Cargo.lock was written"
	# With the project writable and cargo's home in it, it works. (A
	# writable ~/.cargo is refused: the package-credentials protection
	# covers ~/.cargo/credentials, which no mount can cover while it is
	# missing.)
	o=$(heel_run --network allow-list --allow-domain '*.crates.io' --writable . --env CARGO_HOME="$d/.cargo" cargo fetch)
	rc=$?
	[ "$rc" = 0 ] || prob "cargo fetch with --writable . and ~/.cargo exited $rc: $(head -c 300 <<<"$o")"
	[ -s "$d/Cargo.lock" ] || prob "no Cargo.lock"
	# A dependency: this cargo's registry index is not under *.crates.io
	# (Debian 12's cargo reads it from github.com), so the proxy refuses it.
	printf '[dependencies]\nlibc = "0.2"\n' >>"$d/Cargo.toml"
	o=$(heel_run --network allow-list --allow-domain '*.crates.io' --writable . --env CARGO_HOME="$d/.cargo" cargo fetch)
	rc=$?
	[ "$rc" != 0 ] || prob "cargo fetch with a dependency succeeded offline?"
	grep -qE "403|allow-list" <<<"$o" || prob "the refusal does not say why: $(tail -c 400 <<<"$o")"
	NOTE="with a dependency: $(grep -m1 -E "403|allow-list" <<<"$o" | cut -c1-160)"
	finish
}

case_decide() {
	local mode=$1 log=$T/u-$U/decider.log
	begin "decider-$mode" || return
	rm -f "$log"
	if [ "$mode" = hang ]; then
		# One request: the proxy's timeout is waited out once.
		sbx "decide-$mode" "M=$MK"'
			NET_MAXTIME=120 net_curl e1 "http://allowed.test/hello?$M-e1"' || { finish; return; }
	else
		sbx "decide-$mode" "M=$MK"'
			net_curl e1 "http://allowed.test/hello?$M-e1"
			net_curl e2 -p "http://allowed.test:8080/hello?$M-e2"' || { finish; return; }
	fi
	if [ "$mode" = allow ]; then
		want e1 rc=0 http=200
		want e2 rc=0 connect=200
		arrived host "$MK-e1"
	else
		want e1 rc=0 http=403
		[ "$mode" = hang ] || want e2 rc=56 connect=403
		not_arrived host "$MK-e"
	fi
	# The decider was asked, with a JSON line naming the host.
	if ! grep -v '^start \|^eof' "$log" 2>/dev/null | grep -q '"allowed.test"'; then
		prob "the decider was not asked about allowed.test (its log: $(head -c 200 "$log" 2>/dev/null | tr '\n' ' '))"
	fi
	finish
}

case_decider_writable() { # A decider in a place the sandbox may write: refused before anything runs.
	begin decider-writable || return
	printf '#!/bin/sh\n' >"$T/u-$U/home/decider.py"
	chmod 755 "$T/u-$U/home/decider.py"
	[ "$U" = root ] || chown "$U" "$T/u-$U/home/decider.py"
	sbx_start decide-writable "M=$MK"'
		net_curl w1 "http://allowed.test/hello?$M-w1"'
	sbx_wait
	[ "$RC" = 125 ] || prob "heel-exec exit $RC, not 125"
	grep -q "network decide: .* which this launch's sandbox may write .*heel runs nothing on the host that a sandbox could have changed" "$W.err" ||
		prob "no reason given: $(head -c 300 "$W.err")"
	not_arrived host "$MK"
	finish
}

# ================================================================ main
ALL_CASES="case_control_deny case_proxy_env case_curl_plain case_curl_connect case_curl_socks
	case_ip_literal case_git case_urllib case_pip case_pip_venv case_by_address case_bypass case_own_loopback case_empty_list
	case_pipelined
	case_env_removed case_proxy_dns case_auth case_proxy_killed case_audit case_audit_daily
	case_no_namespaces case_decider_writable case_proxy_confined case_upstream_failure
	case_readme_curl case_readme_cargo $CAPTURE_CASES"
DECIDERS="allow refuse hang crash garbage"

U=root
case_harness
for u in root nobody; do
	set_user $u
	for c in $ALL_CASES; do $c; done
	for m in $DECIDERS; do case_decide "$m"; done
done

# ------------------------------------------------------------ teardown
# Nothing of any case left in the namespaces, then the namespaces gone
# and the machine's own network as it was.
PROB=""
left=$(th_strays)
[ -n "$left" ] && prob "left in the test namespaces after the cases: $(tr '\n' ';' <<<"$left")"
th_down || prob "the test network did not come down cleanly (see above)"
echo "# network up in ${TH_UP_SECONDS}s, down in ${TH_DOWN_SECONDS:-?}s"
if [ -n "$PROB" ]; then
	echo "FAIL teardown: $PROB"
	nfail=$((nfail + 1))
fi
totals

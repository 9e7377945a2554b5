#!/bin/bash
# SPDX-License-Identifier: MIT
# The live network suite's little internet, made entirely of namespaces
# this script creates (the machine's own interfaces, addresses and mount
# table are never touched): a "client" network+mount namespace where the
# sandbox and its proxy run, and a "host" network namespace acting as the
# internet, joined by a veth pair. Each namespace is held by a sleeping
# process (`unshare`), so killing it is the whole teardown: nothing is
# named in /run/netns (`ip netns add` would make /run/netns a shared
# mount on the machine and leave it there).
#
#   client 203.0.113.1/24, 2001:db8::1/64 (no default route: nothing
#          leaves the pair); its mount namespace has its own /etc/hosts
#          and /etc/resolv.conf (bind mounts), which heel-proxy and the
#          C library read there
#   host   203.0.113.10/24, 2001:db8::10/64 (documentation ranges: public
#          to the proxy), plus 10.77.0.10/24 (private), fd77::10/64 (ULA)
#          and 169.254.169.254/32 (link-local, "cloud metadata"), routed
#          from the client through 203.0.113.10 / 2001:db8::10
#
# Servers (hostd.py): on the host, HTTP on 80 and 8080 over www/ (/hello,
# repo.git over git's dumb protocol, a PEP 503 index at /simple), TCP echo
# on 7 and 8443, DNS on 53 (UDP and TCP, answers dns.test); in the client
# namespace, a canary on 80, 8080, 7 and 8443 of every local address, so a
# proxy that connects to loopback or to its own host is caught in the act.
# Logs: log/host.log and log/canary.log, one line per request, connection
# or DNS packet.
#
# Sourced (tests/net/run.sh, selftest.sh): th_up [DIR], th_down, th_client
# CMD..., th_host CMD..., th_log_has, th_dns_count. As a command, for a
# look by hand:
#   testhost.sh up [DIR]          prints the state directory
#   testhost.sh client DIR CMD... runs CMD in the client namespaces
#   testhost.sh host DIR CMD...   runs CMD in the host namespace
#   testhost.sh down DIR          tears it all down, checks nothing is left
# Root only for now (unshare of net and mount namespaces, veth).

TH_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TH_PY=/usr/bin/python3

# The names the client side resolves through its /etc/hosts. dns.test is
# not among them: only the test host's DNS server knows it.
th_hosts_file() {
	cat <<'EOF'
127.0.0.1	localhost
::1	localhost
203.0.113.10	allowed.test also.test
2001:db8::10	v6.test
10.77.0.10	private.test
fd77::10	ula.test
169.254.169.254	meta.test
127.0.0.1	loop.test
203.0.113.1	self.test
203.0.113.10	example.com
EOF
	# The machine's own name, as its /etc/hosts has it: without it some
	# clients (pip) ask DNS for it, and the query count must stay theirs.
	printf '127.0.0.1\t%s\n' "$(hostname)"
}

th_say() { [ -n "${TH_QUIET:-}" ] || echo "# testhost: $*" >&2; }
th_err() { echo "testhost: $*" >&2; }

# nsenter --mount would start in the namespace's root directory: --wd
# keeps the caller's (the same path in the copy of the mount table).
th_client() { nsenter --net=/proc/"$TH_CPID"/ns/net --mount=/proc/"$TH_CPID"/ns/mnt --wd="$PWD" -- "$@"; }
th_host() { nsenter --net=/proc/"$TH_HPID"/ns/net -- "$@"; }

# th_log_has FILE STRING: the log has a line containing STRING.
th_log_has() { grep -qF -- "$2" "$TH_DIR/log/$1"; }
# th_dns_count: DNS packets (UDP or TCP) the test host has received.
th_dns_count() { grep -c '^dns ' "$TH_DIR/log/host.log"; }

# The machine's own network, to prove it unchanged at the end.
th_root_net() { { ip -o link show; ip -o addr show; ip route show; ip -6 route show; } 2>&1 | sed 's/ \+/ /g' | sort; }

# th_hold PIDVAR UNSHARE-ARGS... -- SETUP: a namespace holder in the
# background; waits until it sleeps (its setup done).
th_hold() {
	local var=$1 pid setup
	shift
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	setup=$2
	# The parent-death signal ends a holder with the shell that made it
	# if that shell is killed before its trap could run (sourced mode).
	local sleeper=(sleep infinity)
	[ -n "${TH_PDEATHSIG:-}" ] && sleeper=(setpriv --pdeathsig KILL sleep infinity)
	unshare "${args[@]}" -- sh -c "$setup"' && exec "$@"' sh "${sleeper[@]}" </dev/null >/dev/null &
	pid=$!
	for _ in $(seq 100); do
		[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	if [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ]; then
		th_err "namespace holder ($*) did not start"
		kill -KILL "$pid" 2>/dev/null
		return 1
	fi
	printf -v "$var" %s "$pid"
}

# th_content: www/ for the test host's HTTP servers.
th_content() {
	local www=$TH_DIR/www g=(git -c user.name=heel-test -c user.email=heel-test@example.invalid -c init.defaultBranch=main)
	mkdir -p "$www" "$TH_DIR/repo-src"
	echo "hello from the heel test host" >"$www/hello"
	(
		cd "$TH_DIR/repo-src" &&
			"${g[@]}" init -q &&
			echo "heel network test repository" >README &&
			"${g[@]}" add README &&
			GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' \
				"${g[@]}" commit -q -m "the test host's repository" &&
			"${g[@]}" clone -q --bare "$TH_DIR/repo-src" "$www/repo.git" &&
			cd "$www/repo.git" && git update-server-info
	) || { th_err "cannot build the git repository"; return 1; }
	rm -rf "$TH_DIR/repo-src"
	"$TH_PY" "$TH_HERE/mkwheel.py" "$www" || { th_err "cannot build the package index"; return 1; }
	printf '<html><body><h1>Example Domain</h1><p>the heel test host</p></body></html>\n' >"$www/index.html"
	chmod -R a+rX "$www"
	th_tls || return 1
}

# th_tls: a test CA and a certificate for example.com signed by it, and
# the system's CA bundle plus that CA, which the client side's mount
# namespace sees in place of the real bundle: `curl https://example.com`
# then works as written, with no option to trust the test host.
th_tls() {
	local d=$TH_DIR/tls
	mkdir -p "$d"
	{
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=heel test CA" \
			-keyout "$d/ca.key" -out "$d/ca.pem" &&
			openssl req -newkey rsa:2048 -nodes -subj "/CN=example.com" \
				-keyout "$d/site.key" -out "$d/site.csr" &&
			printf 'subjectAltName=DNS:example.com\nbasicConstraints=CA:FALSE\n' >"$d/ext" &&
			openssl x509 -req -in "$d/site.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
				-days 2 -extfile "$d/ext" -out "$d/site.pem"
	} >"$d/openssl.log" 2>&1 || { th_err "cannot make the test certificates"; cat "$d/openssl.log" >&2; return 1; }
	cat /etc/ssl/certs/ca-certificates.crt "$d/ca.pem" >"$TH_DIR/etc/ca-certificates.crt" 2>/dev/null ||
		cp "$d/ca.pem" "$TH_DIR/etc/ca-certificates.crt"
	chmod 644 "$TH_DIR/etc/ca-certificates.crt"
}

# th_wait_ready FILE: hostd wrote its ready file (every socket listening).
th_wait_ready() {
	for _ in $(seq 200); do
		[ -s "$1" ] && return 0
		sleep 0.025
	done
	th_err "server not ready: no $1 (log: $(tail -3 "${1%.ready}.err" 2>/dev/null))"
	return 1
}

th_save() {
	{
		echo "TH_DIR=$TH_DIR"
		echo "TH_CPID=$TH_CPID"
		echo "TH_HPID=$TH_HPID"
		echo "TH_CNS='$TH_CNS'"
		echo "TH_HNS='$TH_HNS'"
		echo "TH_SRV_PIDS='$TH_SRV_PIDS'"
	} >"$TH_DIR/state"
}

th_up() {
	local t0=$EPOCHREALTIME
	TH_CPID="" TH_HPID="" TH_SRV_PIDS=""
	if [ -n "${1:-}" ]; then TH_DIR=$1; mkdir -p "$TH_DIR" || return 1; else TH_DIR=$(mktemp -d /tmp/heel-net.XXXXXX) || return 1; fi
	chmod 755 "$TH_DIR"
	mkdir -p "$TH_DIR/log" "$TH_DIR/etc"
	th_root_net >"$TH_DIR/root-net.before"
	th_hosts_file >"$TH_DIR/etc/hosts"
	printf 'nameserver 203.0.113.10\noptions timeout:1 attempts:1\n' >"$TH_DIR/etc/resolv.conf"
	chmod 644 "$TH_DIR/etc/hosts" "$TH_DIR/etc/resolv.conf"
	: >"$TH_DIR/log/host.log"
	: >"$TH_DIR/log/canary.log"
	chmod 644 "$TH_DIR/log"/*.log
	th_content || return 1

	th_hold TH_HPID --net -- "true" || return 1
	# A minimal root (debootstrap's minbase) has no /etc/hosts, and may
	# have no /etc/resolv.conf: nothing to bind onto. An overlay of /etc
	# in the client's mount namespace gives them a place, seen there only
	# (its upper directory is ours, below TH_DIR).
	local etc_over=:
	if [ ! -f /etc/hosts ] || [ ! -f /etc/resolv.conf ]; then
		mkdir -p "$TH_DIR/etc-upper" "$TH_DIR/etc-work"
		etc_over="mount -t overlay heel-testhost-etc -o lowerdir=/etc,upperdir='$TH_DIR/etc-upper',workdir='$TH_DIR/etc-work' /etc &&
			touch /etc/hosts /etc/resolv.conf"
	fi
	th_hold TH_CPID --net --mount --propagation private -- \
		"$etc_over && mount --bind '$TH_DIR/etc/hosts' /etc/hosts && mount --bind '$TH_DIR/etc/resolv.conf' /etc/resolv.conf &&
		 { [ ! -f /etc/ssl/certs/ca-certificates.crt ] ||
		   mount --bind '$TH_DIR/etc/ca-certificates.crt' /etc/ssl/certs/ca-certificates.crt; }" || return 1
	TH_HNS=$(readlink /proc/"$TH_HPID"/ns/net)
	TH_CNS=$(readlink /proc/"$TH_CPID"/ns/net)

	th_host ip link add veth-host type veth peer name veth-client netns "$TH_CPID" || return 1
	th_host sh -e -c '
		ip link set lo up
		ip link set veth-host up
		ip addr add 203.0.113.10/24 dev veth-host
		ip addr add 10.77.0.10/24 dev veth-host
		ip addr add 169.254.169.254/32 dev veth-host
		ip addr add 2001:db8::10/64 dev veth-host nodad
		ip addr add fd77::10/64 dev veth-host nodad' || { th_err "host addresses"; return 1; }
	th_client sh -e -c '
		ip link set lo up
		ip link set veth-client up
		ip addr add 203.0.113.1/24 dev veth-client
		ip addr add 2001:db8::1/64 dev veth-client nodad
		ip route add 10.77.0.0/24 via 203.0.113.10
		ip route add 169.254.169.254/32 via 203.0.113.10
		ip -6 route add fd77::/64 via 2001:db8::10' || { th_err "client addresses"; return 1; }

	local pd=()
	[ -n "${TH_PDEATHSIG:-}" ] && pd=(setpriv --pdeathsig KILL)
	local p a all=()
	for p in 80 8080; do all+=(--http "0.0.0.0:$p" --http "[::]:$p"); done
	for p in 7 8443 22; do all+=(--echo "0.0.0.0:$p" --echo "[::]:$p"); done
	local tls=(--https 0.0.0.0:443 --cert "$TH_DIR/tls/site.pem" --key "$TH_DIR/tls/site.key")
	# nsenter execs the server, so $! is the server itself.
	nsenter --net=/proc/"$TH_HPID"/ns/net -- "${pd[@]}" "$TH_PY" "$TH_HERE/hostd.py" --root "$TH_DIR/www" --log "$TH_DIR/log/host.log" \
		--ready "$TH_DIR/log/host.ready" "${all[@]}" "${tls[@]}" --dns 0.0.0.0:53 --dns '[::]:53' \
		</dev/null >"$TH_DIR/log/host.err" 2>&1 &
	TH_SRV_PIDS="$!"
	nsenter --net=/proc/"$TH_CPID"/ns/net --mount=/proc/"$TH_CPID"/ns/mnt -- "${pd[@]}" "$TH_PY" "$TH_HERE/hostd.py" --root "$TH_DIR/www" --log "$TH_DIR/log/canary.log" \
		--ready "$TH_DIR/log/canary.ready" "${all[@]}" </dev/null >"$TH_DIR/log/canary.err" 2>&1 &
	TH_SRV_PIDS="$TH_SRV_PIDS $!"
	th_save
	for a in host canary; do th_wait_ready "$TH_DIR/log/$a.ready" || return 1; done
	TH_UP_SECONDS=$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $t0}")
	th_say "up in ${TH_UP_SECONDS}s: $TH_DIR (client $TH_CNS, host $TH_HNS)"
}

# th_leftovers: processes still in either namespace, or naming the state
# directory on their command line (one "pid comm" a line). One find and
# one grep over /proc, the rest builtins: a fork costs tens of
# milliseconds on a loaded machine, and this runs after every sandbox.
th_leftovers() {
	local pc ph p how s ppid comm
	local -A seen=()
	pc=${TH_CNS//[/\\[} ph=${TH_HNS//[/\\[}
	pc=${pc//]/\\]} ph=${ph//]/\\]}
	while IFS=/ read -r _ _ p how; do
		[ -n "${seen[$p]:-}" ] && continue
		seen[$p]=1
		[ "$p" = $$ ] && continue
		read -r s 2>/dev/null <"/proc/$p/stat" || continue
		read -r _ ppid _ <<<"${s##*) }"
		# This shell's subshells have its command line: not leftovers.
		[ "$how" = cmdline ] && [ "$ppid" = $$ ] && continue
		read -r comm 2>/dev/null <"/proc/$p/comm"
		echo "$p $comm"
	done < <(
		find /proc/[0-9]*/ns/net -maxdepth 0 \( -lname "$pc" -o -lname "$ph" \) 2>/dev/null
		# "[/]": the pattern must not match grep's own command line.
		grep -alE -- "${TH_DIR}[/]" /proc/[0-9]*/cmdline 2>/dev/null
	)
}

# th_strays: th_leftovers less the harness's own holders and servers:
# what a test ran and did not end (a sandbox, a proxy, a decider).
th_strays() {
	local p c
	th_leftovers | while read -r p c; do
		[[ " $TH_CPID $TH_HPID $TH_SRV_PIDS " == *" $p "* ]] || echo "$p $c"
	done
}

# th_alive PID: running, not a zombie (a server the standalone `up` left
# is reaped by whatever init the machine has, whenever it gets to it).
th_alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

# th_down: stops the servers and the holders, then checks that no process
# is left in the namespaces (so they are gone) and that the machine's own
# interfaces, addresses and routes are what they were. Returns 1, with the
# reasons on stderr, when something is left.
th_down() {
	local t0=$EPOCHREALTIME p left rc=0
	[ -n "${TH_DIR:-}" ] || return 0
	for p in $TH_SRV_PIDS; do kill -TERM "$p" 2>/dev/null; done
	for _ in $(seq 50); do
		left=""
		for p in $TH_SRV_PIDS; do th_alive "$p" && left=1; done
		[ -z "$left" ] && break
		sleep 0.02
	done
	for p in $TH_SRV_PIDS; do kill -KILL "$p" 2>/dev/null; done
	# Whatever else is still in the namespaces (a sandbox a failed case
	# left behind): ours by construction, ended by id.
	left=$(th_strays)
	[ -n "$left" ] && th_say "ending what was left in the namespaces: $(echo "$left" | tr '\n' ';')"
	for p in $(cut -d' ' -f1 <<<"$left"); do kill -KILL "$p" 2>/dev/null; done
	for p in $TH_CPID $TH_HPID; do kill -KILL "$p" 2>/dev/null; done
	for p in $TH_SRV_PIDS $TH_CPID $TH_HPID; do wait "$p" 2>/dev/null; done
	for _ in $(seq 100); do
		left=$(th_leftovers)
		[ -z "$left" ] && break
		sleep 0.02
	done
	if [ -n "$left" ]; then
		th_err "left behind in the test namespaces: $(echo "$left" | tr '\n' ';')"
		rc=1
	fi
	th_root_net >"$TH_DIR/root-net.after"
	if ! cmp -s "$TH_DIR/root-net.before" "$TH_DIR/root-net.after"; then
		th_err "the machine's own network changed: $(diff "$TH_DIR/root-net.before" "$TH_DIR/root-net.after" | head -5 | tr '\n' ';')"
		rc=1
	fi
	if [ -z "${TH_KEEP:-}" ] && [ "$rc" = 0 ]; then
		chmod -R u+rwx "$TH_DIR" 2>/dev/null
		rm -rf "$TH_DIR"
	fi
	TH_DOWN_SECONDS=$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $t0}")
	th_say "down in ${TH_DOWN_SECONDS}s"
	TH_DIR=""
	return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	if [ "$(id -u)" != 0 ]; then
		th_err "runs as root (it makes network and mount namespaces)"
		exit 2
	fi
	cmd=${1:-}
	shift
	case $cmd in
	up)
		th_up "${1:-}" || { th_down; exit 1; }
		echo "$TH_DIR"
		;;
	down | client | host)
		[ -f "${1:-}/state" ] || { th_err "usage: $0 $cmd DIR ..."; exit 2; }
		# shellcheck disable=SC1091
		. "$1/state"
		shift
		case $cmd in
		down) th_down ;;
		client) th_client "$@" ;;
		host) th_host "$@" ;;
		esac
		;;
	*)
		echo "usage: $0 up [DIR] | down DIR | client DIR CMD... | host DIR CMD..." >&2
		exit 2
		;;
	esac
fi

#!/bin/bash
# SPDX-License-Identifier: MIT
# The proxy benchmarks of `make bench`: heel-proxy alone against a direct
# connection and tinyproxy (tests/bench/proxy_bench.c), then a launch
# with a proxy against one under `network deny`. The "remote" server
# (tests/bench/blast_server.c) is in a network namespace of its own on a
# documentation address, 203.0.113.10, which heel-proxy counts as public;
# the client, heel-proxy and tinyproxy are in another, reached over a veth
# pair. Both namespaces go when the script ends, however it ends.
# usage: proxy.sh BIN_DIR OUT_DIR
set -euo pipefail
bin=$1 out=$2
start=$SECONDS
if [ "$(id -u)" != 0 ]; then
	echo "proxy.sh: the network namespaces need root; skipped" >&2
	exit 0
fi
mkdir -p "$out"
cflags=(-std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Iruntime)
cc "${cflags[@]}" -o "$out/blast_server" tests/bench/blast_server.c
lib=$(dirname "$bin")/lib
cc "${cflags[@]}" -o "$out/proxy_bench" tests/bench/proxy_bench.c tests/bench/proxy_spawn.c \
	"$lib/libheelrt.a"
read -ra proxy_libs <<<"$(pkg-config --libs libcares jansson)"
cc "${cflags[@]}" -Iruntime/proxy -o "$out/proxy_start" tests/bench/proxy_start.c \
	tests/bench/proxy_spawn.c "$lib/libheelproxy.a" "$lib/libheelrt.a" "${proxy_libs[@]}"
cc -O2 -o "$out/ab_launch" tests/bench/ab_launch.c

# Unique names (a veth name has at most 15 characters), cleaned up on
# any exit.
tag=hb$$
cns=$tag-c sns=$tag-s
work=$(mktemp -d)
# What still runs in the namespaces (the server; tinyproxy, should the
# script be interrupted) is ours: it goes first, or a namespace would
# outlive its name. Its veth pair goes with the namespaces.
netns_down() {
	local ns

	for ns in "$cns" "$sns"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}
trap 'netns_down; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
ip netns add "$cns"
ip netns add "$sns"
ip link add "$tag-a" netns "$cns" type veth peer name "$tag-b" netns "$sns"
ip -n "$cns" link set lo up
ip -n "$sns" link set lo up
ip -n "$cns" addr add 203.0.113.1/24 dev "$tag-a"
ip -n "$sns" addr add 203.0.113.10/24 dev "$tag-b"
ip -n "$cns" link set "$tag-a" up
ip -n "$sns" link set "$tag-b" up

ip netns exec "$sns" "$out/blast_server" 203.0.113.10 5001 &
server=$!
# Killed by netns_down, without a word from this shell about it.
disown "$server"
for _ in $(seq 100); do
	ip netns exec "$cns" bash -c 'exec 3<>/dev/tcp/203.0.113.10/5001' 2>/dev/null && break
	sleep 0.1
done

# ---------------------------------------------------------------- 1-3
# A proxy that lost, changed or refused anything fails the script, after
# the rest has run.
failed=0
ip netns exec "$cns" "$out/proxy_bench" -s "$server" 203.0.113.10 5001 "$bin/heel-proxy" \
	"$(command -v tinyproxy)" "$work" | tee "$out/proxy.md" || failed=1

# 1 again where the link, not the machine's CPU, is the limit: the
# server's side of the veth pair shaped to 4 Gbit/s (500 MB/s).
if ip netns exec "$sns" tc qdisc add dev "$tag-b" root tbf rate 4gbit burst 4mb latency 50ms; then
	echo "### 1b. Throughput over a link shaped to 4 Gbit/s (tbf)" | tee "$out/proxy-shaped.md"
	ip netns exec "$cns" "$out/proxy_bench" -O -b $((512 << 20)) -r 3 -s "$server" \
		203.0.113.10 5001 "$bin/heel-proxy" "$(command -v tinyproxy)" "$work" |
		tee -a "$out/proxy-shaped.md" || failed=1
else
	echo "proxy.sh: no tbf qdisc here; the shaped link's throughput is skipped" >&2
fi
netns_down
echo "proxy.sh: tests 1-3 took $((SECONDS - start)) s" >&2

# ---------------------------------------------------------------- 4
# A launch whose policy has a network (heel-exec starts heel-proxy, found
# beside itself) against the same policy under `network deny`, round-
# robin; the ratio of each launcher's pair is the overhead.
printf 'heel 1\nisolation default\n' >"$out/net-deny.heel"
printf 'heel 1\nisolation default\nnetwork allow-all\n' >"$out/net-proxy.heel"
"$bin/heelc" "$out/net-deny.heel" -o "$out/net-deny.hpol"
"$bin/heelc" "$out/net-proxy.heel" -o "$out/net-proxy.hpol"
ab=()
for x in heel-exec heel-exec-static heel-exec-musl; do
	ab+=("$bin/$x" "$out/net-deny.hpol" -- /bin/true :::
		"$bin/$x" "$out/net-proxy.hpol" -- /bin/true :::)
done
"$out/ab_launch" 500 "${ab[@]:0:${#ab[@]}-1}" | tee "$out/proxy-launch.txt"
awk '{ m[NR] = $3 } END {
	n = split("heel-exec heel-exec-static heel-exec-musl", x, " ")
	for (i = 1; i <= n; i++)
		printf "%s: network allow-all / deny, medians: %.3f\n", x[i], m[2 * i] / m[2 * i - 1]
}' "$out/proxy-launch.txt" | tee -a "$out/proxy-launch.txt"

# Where the difference goes: heel-exec's phase marks for both policies,
# round-robin (heel-exec-timing looks for heel-proxy beside itself), and
# heel-proxy's own start, step by step.
timing=$(dirname "$bin")/bench/heel-exec-timing
ln -sf "$(realpath "$bin/heel-proxy")" "$(dirname "$timing")/heel-proxy"
bash tests/bench/phases.sh "$timing" "$out/net-deny.hpol" /bin/true 200 \
	"$out/net-proxy.hpol" | tee "$out/proxy-phases.md"
"$out/proxy_start" 300 "$bin/heel-proxy" | tee "$out/proxy-start.md"
echo "proxy.sh: the proxy benchmarks took $((SECONDS - start)) s" >&2
exit $failed

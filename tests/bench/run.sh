#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench`: heelc compile time on generated policies of 1k, 10k and
# 100k grants, measured with hyperfine in one run; the ratios show whether
# time grows linearly; heel-exec's launch; heel-proxy (proxy.sh). Results
# go to build/bench/ for BENCHMARKS.md.
set -euo pipefail
bin=$1
build=$(dirname "$bin")
out=$build/bench
mkdir -p "$out"
for n in 1000 10000 100000; do
	sh tests/bench/gen_policy.sh "$n" >"$out/grants-$n.heel"
done
# The Linux and Windows parts: past 4096 path parameters heelc refuses
# the macOS part (libsandbox's own limit, heelc(1)), and the three sizes
# must build the same parts for their times to compare.
parts="--target linux --target windows"
hyperfine -N --warmup 3 --min-runs 10 \
	--export-markdown "$out/heelc.md" --export-json "$out/heelc.json" \
	-n "1k grants" "$bin/heelc $parts $out/grants-1000.heel -o $out/g1k.hpol" \
	-n "10k grants" "$bin/heelc $parts $out/grants-10000.heel -o $out/g10k.hpol" \
	-n "100k grants" "$bin/heelc $parts $out/grants-100000.heel -o $out/g100k.hpol"
cat "$out/heelc.md"

# ---------------------------------------------------------------- launch
# heel-exec against bare exec, the fork+exec+wait floor (a static
# trampoline built here), bubblewrap and firejail, in one hyperfine run.
cc -O2 -static -o "$out/trampoline" tests/bench/trampoline.c
# The same trampoline on musl: shows what glibc's start-up (CPU feature
# probing, slow in a VM) costs each of the two processes above.
musl-gcc -O2 -static -o "$out/trampoline-musl" tests/bench/trampoline.c
printf 'heel 1\nisolation default\n' >"$out/default.heel"
"$bin/heelc" "$out/default.heel" -o "$out/default.hpol"
cmds=(
	-n "bare /bin/true" "/bin/true"
	-n "trampoline (static fork+exec+wait)" "$out/trampoline /bin/true"
	-n "trampoline on musl (for reference)" "$out/trampoline-musl /bin/true"
	-n "heel-exec-static default.hpol" "$bin/heel-exec-static $out/default.hpol -- /bin/true"
	-n "heel-exec-musl default.hpol" "$bin/heel-exec-musl $out/default.hpol -- /bin/true"
	-n "heel-exec default.hpol" "$bin/heel-exec $out/default.hpol -- /bin/true"
	-n "heel-exec --best-effort --no-namespaces" "$bin/heel-exec --best-effort --no-namespaces $out/default.hpol -- /bin/true"
)
if command -v bwrap >/dev/null; then
	cmds+=(-n "bwrap" "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net /bin/true")
fi
if command -v firejail >/dev/null; then
	cmds+=(-n "firejail" "firejail --quiet --noprofile /bin/true")
fi
hyperfine -N --warmup 10 --min-runs 100 --export-markdown "$out/launch.md" \
	--export-json "$out/launch.json" "${cmds[@]}" 2>/dev/null
cat "$out/launch.md"
echo "heel-exec-static (glibc): $(stat -c %s "$bin/heel-exec-static") bytes; heel-exec-musl: $(stat -c %s "$bin/heel-exec-musl") bytes; dynamic: $(stat -c %s "$bin/heel-exec") bytes"

# The same ratios with the commands run round-robin (ab_launch): a phase
# of this VM slows every command alike instead of one hyperfine batch.
cc -O2 -o "$out/ab_launch" tests/bench/ab_launch.c
# The floor the walls set: heel-exec's processes and namespaces and the
# view's mounts, without its own work (tests/bench/skeleton.c).
cc -O2 -static -o "$out/skeleton" tests/bench/skeleton.c
ab=("$out/trampoline" /bin/true
	::: "$out/skeleton" /bin/true
	::: "$bin/heel-exec-musl" "$out/default.hpol" -- /bin/true
	::: "$bin/heel-exec-static" "$out/default.hpol" -- /bin/true
	::: "$bin/heel-exec" "$out/default.hpol" -- /bin/true)
if command -v bwrap >/dev/null; then
	ab+=(::: "$(command -v bwrap)" --ro-bind / / --dev /dev --proc /proc --unshare-net /bin/true)
fi
"$out/ab_launch" 500 "${ab[@]}" | tee "$out/launch-interleaved.txt"

# What each wall of a launch costs on its own (namespaces, the read-only
# view, the tmpfs working directory, shared temp noexec), round-robin.
cc -O2 -o "$out/walls" tests/bench/walls.c
"$out/walls" 500 | tee "$out/walls.txt"

# What the design's choices cost: the same launch without the carve-out of
# the /etc secrets, then also without a home directory to carve (HOME
# unset for every command of that run, the trampoline included), and
# without namespaces. Round-robin, musl build.
"$bin/heelc" tests/bench/default-nocarve.heel -o "$out/default-nocarve.hpol"
"$out/ab_launch" 500 "$out/trampoline" /bin/true \
	::: "$bin/heel-exec-musl" "$out/default.hpol" -- /bin/true \
	::: "$bin/heel-exec-musl" "$out/default-nocarve.hpol" -- /bin/true \
	::: "$bin/heel-exec-musl" --best-effort --no-namespaces "$out/default.hpol" -- /bin/true \
	2>&1 | tee "$out/launch-choices.txt"
env -u HOME "$out/ab_launch" 500 "$out/trampoline" /bin/true \
	::: "$bin/heel-exec-musl" "$out/default-nocarve.hpol" -- /bin/true \
	2>&1 | tee -a "$out/launch-choices.txt"
# The same as uid 65534: a user namespace, no idmapped /etc.
chmod 755 "$out"
setpriv --reuid=65534 --regid=65534 --clear-groups env -u HOME "$out/ab_launch" 500 \
	"$out/trampoline" /bin/true ::: "$out/skeleton" /bin/true \
	::: "$bin/heel-exec-musl" "$out/default.hpol" -- /bin/true \
	::: "$bin/heel-exec-musl" "$out/default-nocarve.hpol" -- /bin/true \
	2>&1 | tee -a "$out/launch-choices.txt"

# ---------------------------------------------------------------- heel run
# What the front end adds: heel run against heel-exec with the same policy
# precompiled (tests/bench/heel_run.sh).
bash tests/bench/heel_run.sh "$bin" "$out"

# ---------------------------------------------------------------- user session
# The working directory goes under $XDG_RUNTIME_DIR when that is private:
# a tmpfs in a user session, where making and removing it is cheap. Same
# comparison with a tmpfs there, mounted in a mount namespace of this
# script's own (nothing changes on the host).
mkdir -p "$out/xdg"
unshare -m --propagation private sh -c '
	mount -t tmpfs -o mode=700,size=64m tmpfs "$1/xdg" || exit 1
	XDG_RUNTIME_DIR="$1/xdg" hyperfine -N --warmup 10 --min-runs 100 \
		--export-markdown "$1/launch-xdg.md" \
		-n "trampoline (static fork+exec+wait)" "$1/trampoline /bin/true" \
		-n "heel-exec-musl, XDG_RUNTIME_DIR on tmpfs" "$2/heel-exec-musl $1/default.hpol -- /bin/true" \
		-n "heel-exec-static, XDG_RUNTIME_DIR on tmpfs" "$2/heel-exec-static $1/default.hpol -- /bin/true" \
		>/dev/null 2>&1' sh "$out" "$bin"
cat "$out/launch-xdg.md"

# ---------------------------------------------------------------- phases
# Where heel-exec's own time goes, from the phase marks of
# build/bench/heel-exec-timing (launcher/launch_timing.h).
bash tests/bench/phases.sh "$build/bench/heel-exec-timing" "$out/default.hpol" /bin/true 200 |
	tee "$out/phases.md"

# ---------------------------------------------------------------- seccomp cost
cc -std=c17 -D_GNU_SOURCE -O2 -Icompiler -Iruntime -Itests/unit -I"$build/gen" -o "$out/seccomp_cost" \
	tests/bench/seccomp_cost.c "$build/lib/libheeltest.a" "$build/lib/libheelc.a" "$build/lib/libheelrt.a" \
	$(pkg-config --libs jansson nettle libseccomp)
"$out/seccomp_cost" | tee "$out/seccomp.md"

# ---------------------------------------------------------------- heel-proxy
# heel-proxy against a direct connection and tinyproxy (throughput, added
# latency, 1,000 tunnels), and what a proxy adds to a launch.
bash tests/bench/proxy.sh "$bin" "$out"

# ---------------------------------------------------------------- host commands
# A host command call against running the same static no-op directly.
cc -O2 -static -o "$out/ipc_call" tests/bench/ipc_call.c
printf 'int main(void) { return 0; }\n' | musl-gcc -O2 -static -x c -o "$out/noop" -
bash tests/bench/ipc.sh "$bin" "$out/ipc_call" "$out/noop" 500 | tee "$out/ipc.md"

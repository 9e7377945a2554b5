#!/bin/bash
# SPDX-License-Identifier: MIT
# The latency of a host command call: the same program (a static no-op)
# run directly on the host, and called by its name inside a sandbox
# (heel-ipc -> seccomp notification -> heel-broker -> fork+exec -> back),
# each ROUNDS times in a row, alternating the two a few times. Usage:
# tests/bench/ipc.sh BIN_DIR IPC_CALL TRAMPOLINE [ROUNDS]
set -eu
BIN=$(cd "$1" && pwd) CALL=$2 NOOP=$3 ROUNDS=${4:-500}
T=$(mktemp -d /tmp/heel-bench-ipc.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
cp "$CALL" "$NOOP" "$T/bin/"
chmod 755 "$T" "$T/bin" "$T/bin"/*
cat >"$T/p.heel" <<POLICY
heel 1
isolation default
grant "$T/bin" rx
ipc "noop" {
    exec "$T/bin/$(basename "$NOOP")"
}
POLICY
"$BIN/heelc" "$T/p.heel" -o "$T/p.hpol" >/dev/null
for i in 1 2 3; do
	printf 'direct on the host:  '
	"$T/bin/ipc_call" "$ROUNDS" "$T/bin/$(basename "$NOOP")"
	printf 'host command call:   '
	(cd "$T" && "$BIN/heel-exec" p.hpol -- "$T/bin/ipc_call" "$ROUNDS" noop)
done

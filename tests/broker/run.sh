#!/bin/bash
# SPDX-License-Identifier: MIT
# heel-broker's live suite: broker_live (in heel-exec's place) as root and
# as uid 65534, each under `timeout` so that a hang is a failure.
# Usage: run.sh BUILDDIR
set -u
b=$1
bins=$(mktemp -d /tmp/heel-broker-bins-XXXXXX)
trap 'rm -rf "$bins"' EXIT
cp "$b/bin/heel-broker" "$b/bin/heel-ipc" "$b/tests/broker_live" "$bins/"
chmod 755 "$bins" "$bins"/*
rc=0
echo "== broker_live as root"
timeout 120 "$bins/broker_live" "$bins" || rc=1
echo "== broker_live as uid 65534"
timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups "$bins/broker_live" "$bins" || rc=1
exit $rc

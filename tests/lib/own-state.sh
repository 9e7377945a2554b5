#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs a test suite with a state directory of its own: heel-exec records
# every writable place of a launch in $XDG_STATE_HOME/heel (heel(5), WHAT
# PERSISTS BETWEEN RUNS), and later launches refuse what those places
# could have changed. A suite that runs as root with the caller's HOME
# would otherwise write into the developer's own record (and one
# `isolation permissive` run there makes every later launch as root
# refuse heel's helpers), and suites would see each other's runs.
# Suites that give each user a home of their own (env -i HOME=...) are
# not affected: the variable does not reach them.
# Usage: tests/lib/own-state.sh CMD [ARG...]; exits with CMD's status.
set -u
d=$(mktemp -d /tmp/heel-test-state.XXXXXX) || exit 1
chmod 700 "$d"
XDG_STATE_HOME=$d "$@"
rc=$?
rm -rf "$d"
exit $rc

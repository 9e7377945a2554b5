#!/bin/bash
# SPDX-License-Identifier: MIT
# The Node and Python packages over libheel (packaging/node,
# packaging/python; make check-bindings): each built once, with its own
# standard command (npm install of the packed package, pip install .),
# against a staged `make install` found through `pkg-config heel`; then
# their tests (test_node.js, test_python.py) and the examples of
# docs/examples as written, as root and as uid 65534, from a copy that
# user can read, against the staged heel-exec.
# Usage: tests/bindings/run.sh BUILD_DIR STAGE_DIR   (STAGE_DIR: make
# install DESTDIR=STAGE_DIR was run; prints "N passed, N failed, N skipped")
set -u

B=$(cd "${1:-build}" && pwd) || exit 2
STAGE_IN=$(cd "${2:?the staged install (make install DESTDIR=...)}" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NOBODY=65534
PY=/usr/bin/python3
PREFIX=$(cat "$B/prefix" 2>/dev/null || echo /usr/local)
pass=0 failed=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }

T=$(mktemp -d /tmp/heel-bindings.XXXXXX) || exit 1
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
cp -a "$STAGE_IN" "$T/stage"
chmod -R a+rX "$T/stage"
X=$T/stage$PREFIX/bin/heel-exec
LIBDIR=$T/stage$PREFIX/lib
[ -x "$X" ] && [ -e "$LIBDIR/libheel.so.0" ] && [ -e "$LIBDIR/pkgconfig/heel.pc" ] || {
	echo "the staged install lacks heel-exec, libheel.so.0 or heel.pc under $T/stage$PREFIX"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
# The staged heel.pc names PREFIX; the sysroot puts the stage before it,
# as for any DESTDIR install (pkg-config(1), PKG_CONFIG_SYSROOT_DIR).
PC=(env PKG_CONFIG_PATH="$LIBDIR/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/stage")
# No pkg-config directory at all: a package must refuse to build.
PC_NONE=(env PKG_CONFIG_LIBDIR="$T/no-pkgconfig" PKG_CONFIG_PATH= )

# One scratch directory, HOME and heel state per user and language: the
# refused write's target lives there, so it may be written when granted.
user_env() { # WHO NAME -> prints the directory
	local d=$T/run-$1-$2
	mkdir -p "$d/scratch" "$d/home" "$d/state"
	chmod 700 "$d/state"
	chmod 755 "$d" "$d/home"
	chmod 777 "$d/scratch"
	[ "$1" = root ] || chown -R $NOBODY:$NOBODY "$d/home" "$d/state"
	echo "$d"
}
as_user() { # WHO CMD... : CMD as that user, with its own HOME and state
	local who=$1; shift
	if [ "$who" = root ]; then
		"$@"
	else
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
	fi
}
# Runs a test program's cases as WHO; counts its ok and FAIL lines.
cases() { # WHO LANG CMD...
	local who=$1 lang=$2; shift 2
	local d out n_ok n_bad
	d=$(user_env "$who" "$lang")
	out=$(cd "$d" && as_user "$who" env -i PATH=/usr/bin:/bin HOME="$d/home" XDG_STATE_HOME="$d/state" \
		HEEL_EXEC="$X" SCRATCH="$d/scratch" "$@" 2>&1)
	n_ok=$(grep -c '^ok ' <<<"$out")
	n_bad=$(grep -c '^FAIL ' <<<"$out")
	if [ "$n_bad" = 0 ] && [ "$n_ok" -gt 0 ]; then
		ok "$lang as $who: $n_ok cases"
	else
		bad "$lang as $who: $n_ok passed, $n_bad failed"
		echo "$out" | grep -v '^ok ' | head -60
	fi
	# Each case's lines in the log, for whoever reads it.
	grep '^ok ' <<<"$out" | sed 's/^/    /'
}
USERS=(root)
if [ "$(id -u)" = 0 ]; then
	USERS+=("$NOBODY")
else
	skip "everything as uid $NOBODY: not root"
fi

# An example's output as written, and /etc/heel-example not created by
# its refused write (the control is the example's own captured echo).
example() { # WHO NAME WANT CMD...
	local who=$1 name=$2 want=$3; shift 3
	local d got
	d=$(user_env "$who" "ex-$name")
	got=$(cd "$d" && as_user "$who" env -i PATH=/usr/bin:/bin HOME="$d/home" XDG_STATE_HOME="$d/state" \
		HEEL_EXEC="$X" "$@" 2>&1)
	if [ "$got" = "$want" ] && [ ! -e /etc/heel-example ]; then
		ok "docs/examples/$name as $who"
	else
		bad "docs/examples/$name as $who said:"
		echo "$got" | head -20
		[ -e /etc/heel-example ] && echo "and /etc/heel-example was written"
	fi
}
WANT_EXAMPLE='captured: hello from the sandbox (exit status 0)
streamed: one
streamed: two
exit status 0
refused: exit status 2'

# ---------------------------------------------------------------- python
python_suite() {
	if ! [ -x $PY ] || ! $PY -c 'import venv, ensurepip, setuptools, wheel' 2>/dev/null; then
		skip "python: $PY with venv, setuptools and wheel is needed (Debian: python3-venv python3-setuptools python3-wheel; make deps-check)"
		return
	fi
	# The system's setuptools and wheel, no index: pip builds offline.
	$PY -m venv --system-site-packages "$T/py" >/dev/null 2>&1 || { bad "python: cannot make a venv"; return; }
	cp -r "$ROOT/packaging/python" "$T/py-src"
	local log
	if log=$(cd "$T/py-src" && "${PC_NONE[@]}" "$T/py/bin/pip" install --no-build-isolation --no-index . 2>&1); then
		bad "python: pip install built without a libheel to find"
	elif grep -q 'pkg-config finds no libheel' <<<"$log"; then
		ok "python: pip install refuses, saying so, when pkg-config finds no libheel"
	else
		bad "python: pip install without libheel failed otherwise:"
		echo "$log" | tail -15
	fi
	rm -rf "$T/py-src"
	cp -r "$ROOT/packaging/python" "$T/py-src"
	if ! log=$(cd "$T/py-src" && "${PC[@]}" "$T/py/bin/pip" install --no-build-isolation --no-index . 2>&1); then
		bad "python: pip install . failed:"
		echo "$log" | tail -20
		return
	fi
	local recorded
	recorded=$("$T/py/bin/python" -c 'import heel._libpath as l; print(l.LIBHEEL)' 2>&1)
	if [ "$recorded" = "$LIBDIR/libheel.so.0" ]; then
		ok "python: pip install . records the libheel pkg-config found ($recorded)"
	else
		bad "python: the package records '$recorded', not $LIBDIR/libheel.so.0"
	fi
	chmod -R a+rX "$T/py"
	cp "$HERE/test_python.py" "$T/test_python.py"
	chmod 644 "$T/test_python.py"
	local who
	for who in "${USERS[@]}"; do
		cases "$who" python "$T/py/bin/python" "$T/test_python.py"
		example "$who" bindings.py "$WANT_EXAMPLE" "$T/py/bin/python" "$ROOT/docs/examples/bindings.py"
	done
}

# ---------------------------------------------------------------- node
node_suite() {
	local node npm
	node=$(command -v node || command -v nodejs)
	npm=$(command -v npm)
	if [ -z "$node" ] || [ -z "$npm" ]; then
		skip "node: node and npm are needed (Debian: nodejs npm libnode-dev; make deps-check)"
		return
	fi
	cp -r "$ROOT/packaging/node" "$T/node-src"
	rm -rf "$T/node-src/build"
	local log tgz
	# npm's cache in the test's directory, never the caller's home.
	local NPM=(env npm_config_cache="$T/npm-cache" npm_config_update_notifier=false "$npm")
	if ! log=$(cd "$T/node-src" && "${NPM[@]}" pack --pack-destination "$T" 2>&1); then
		bad "node: npm pack failed:"
		echo "$log" | tail -10
		return
	fi
	tgz=$(ls "$T"/heel-*.tgz)
	mkdir -p "$T/node-none" "$T/node"
	echo '{"private": true}' >"$T/node-none/package.json"
	echo '{"private": true}' >"$T/node/package.json"
	if log=$(cd "$T/node-none" && "${PC_NONE[@]}" "${NPM[@]}" install --offline --no-audit --no-fund "$tgz" 2>&1); then
		bad "node: npm install built without a libheel to find"
	elif grep -q 'pkg-config finds no libheel' <<<"$log"; then
		ok "node: npm install refuses, saying so, when pkg-config finds no libheel"
	else
		bad "node: npm install without libheel failed otherwise:"
		echo "$log" | tail -15
	fi
	if ! log=$(cd "$T/node" && "${PC[@]}" "${NPM[@]}" install --offline --no-audit --no-fund "$tgz" 2>&1); then
		bad "node: npm install of the package failed:"
		echo "$log" | tail -20
		return
	fi
	local addon=$T/node/node_modules/heel/build/heel.node
	if [ -f "$addon" ] && readelf -d "$addon" | grep -q "RUNPATH.*\[$LIBDIR\]" &&
		readelf -d "$addon" | grep -q 'NEEDED.*\[libheel.so.0\]'; then
		ok "node: npm install built the addon against the libheel pkg-config found"
	else
		bad "node: the addon is missing or not linked to $LIBDIR/libheel.so.0"
		[ -f "$addon" ] && readelf -d "$addon" | grep -E 'NEEDED|RUNPATH'
	fi
	chmod -R a+rX "$T/node"
	cp "$HERE/test_node.js" "$T/node/test_node.js"
	chmod 644 "$T/node/test_node.js"
	local who
	for who in "${USERS[@]}"; do
		cases "$who" node "$node" "$T/node/test_node.js"
		# The example as written, require('heel') found as an installed
		# package is: through NODE_PATH.
		example "$who" bindings.js "$WANT_EXAMPLE" NODE_PATH="$T/node/node_modules" "$node" \
			"$ROOT/docs/examples/bindings.js"
	done
}

python_suite
node_suite

echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

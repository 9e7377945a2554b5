#!/bin/bash
# SPDX-License-Identifier: MIT
# libheel run for real (make check-libheel): its exports, the live tests
# (tests/libheel/live.c) and the threads driver (threads.c) as root and
# as uid 65534 against bin/heel-exec, the driver again under
# ThreadSanitizer, and the examples of docs/examples as written, in C
# and in Python.
# Usage: tests/libheel/run.sh BUILD_DIR    (prints "N passed, N failed, N skipped")
set -u

B=$(cd "${1:-build}" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NOBODY=65534
pass=0 failed=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }

for f in "$B/lib/libheel.so.0" "$B/lib/libheel.a" "$B/tests/libheel_live" "$B/tests/libheel_threads" "$B/examples/run" \
	"$B/bin/heel-exec" "$B/bin/heelc"; do
	[ -e "$f" ] || { echo "missing $f: make check-libheel builds it"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

# ---------------------------------------------------------------- exports
# Only heel_* leaves the library, from the .so and from the .a alike: the
# compiler's own names (diag_new, sema_compile...) would clash with a
# program's.
others=$(nm -D --defined-only "$B/lib/libheel.so.0" | awk '$3 != "" && $3 !~ /^heel_/ && $3 !~ /^LIBHEEL_/')
if [ -z "$others" ] && nm -D --defined-only "$B/lib/libheel.so.0" | grep -q ' T heel_spawn@@LIBHEEL_0$'; then
	ok "libheel.so exports heel_* only"
else
	bad "libheel.so exports more than heel_*: $others"
fi
others=$(nm -g --defined-only "$B/lib/libheel.a" | awk 'NF == 3 && $3 !~ /^heel_/')
if [ -z "$others" ] && nm -g --defined-only "$B/lib/libheel.a" | grep -q ' T heel_spawn$'; then
	ok "libheel.a defines heel_* only as global symbols"
else
	bad "libheel.a has other global symbols: $others"
fi
if readelf -d "$B/lib/libheel.so.0" | grep -q 'SONAME.*\[libheel.so.0\]'; then
	ok "libheel.so's soname is libheel.so.0"
else
	bad "libheel.so's soname"
fi

want=$(sed -n 's/.*define HEEL_VERSION "\(.*\)".*/\1/p' "$ROOT/runtime/heel_version.h")
if command -v pkg-config >/dev/null; then
	got=$(PKG_CONFIG_PATH="$B/lib" pkg-config --modversion heel 2>&1)
	libs=$(PKG_CONFIG_PATH="$B/lib" pkg-config --static --libs heel 2>&1)
	if [ -n "$want" ] && [ "$got" = "$want" ] && [[ "$libs" == *-lheel*-lnettle* ]]; then
		ok "heel.pc: version $got, $libs"
	else
		bad "heel.pc: version '$got' (want '$want'), libs '$libs'"
	fi
else
	skip "heel.pc: no pkg-config"
fi

# ---------------------------------------------------------------- live
live() {
	local who=$1; shift
	local log
	log=$(mktemp /tmp/libheel-live-log.XXXXXX)
	chmod 644 "$log"
	if "$@" env HEEL_EXEC="$B/bin/heel-exec" HEELC="$B/bin/heelc" "$B/tests/libheel_live" \
		--jobs 1 >"$log" 2>&1; then
		ok "live tests as $who: $(grep -a 'Synthesis' "$log" | sed 's/.*Synthesis: //')"
	else
		bad "live tests as $who:"
		grep -av '^\[----\] *$' "$log" | tail -40
	fi
	rm -f "$log"
}
live "uid $(id -u)"
if [ "$(id -u)" = 0 ]; then
	live "uid $NOBODY" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups
else
	skip "live tests as uid $NOBODY: not root"
fi

# ---------------------------------------------------------------- threads
# Eight threads compiling, building and spawning at once, twice over, as
# each user; then under ThreadSanitizer, which reports any data race in
# libheel or the compiler beneath it (exit 66).
threads() {
	local who=$1 bin=$2; shift 2
	local out
	if out=$("$@" env TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$bin" "$B/bin/heel-exec" 2 2>&1); then
		ok "$who: $out"
	else
		bad "$who:"
		echo "$out" | head -60
	fi
}
threads "threads as uid $(id -u)" "$B/tests/libheel_threads"
if [ "$(id -u)" = 0 ]; then
	threads "threads as uid $NOBODY" "$B/tests/libheel_threads" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups
fi
if [ -x "$B/tsan/libheel_threads" ]; then
	threads "threads under ThreadSanitizer" "$B/tsan/libheel_threads"
else
	skip "threads under ThreadSanitizer: $B/tsan/libheel_threads is not built"
fi

# ---------------------------------------------------------------- examples
# As written, from the build tree: the C one found through its rpath, the
# Python one through LD_LIBRARY_PATH; heel-exec named by HEEL_EXEC.
out=$(cd "$ROOT" && HEEL_EXEC="$B/bin/heel-exec" "$B/examples/run" 2>&1)
if [ "$out" = "captured: hello from the sandbox (exit status 0)" ]; then
	ok "docs/examples/run.c"
else
	bad "docs/examples/run.c said: $out"
fi
if command -v python3 >/dev/null; then
	out=$(cd "$ROOT" && LD_LIBRARY_PATH="$B/lib" HEEL_EXEC="$B/bin/heel-exec" python3 docs/examples/run.py 2>&1)
	if [ "$out" = "captured: hello from the sandbox (exit status 0)" ]; then
		ok "docs/examples/run.py"
	else
		bad "docs/examples/run.py said: $out"
	fi
else
	skip "docs/examples/run.py: no python3"
fi

echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

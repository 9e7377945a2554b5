#!/bin/bash
# SPDX-License-Identifier: MIT
# Live tests of a policy's Python virtual environment (`python { venv;
# packages; allow-pip-install }`, heel(5) PYTHON): heel-exec and `heel
# python --prepare` make the venv on the host with /usr/bin/python3 and
# its pip, from a package index served here on 127.0.0.1 (two wheels the
# test builds with zipfile: never the internet); inside the sandbox the
# venv is read and run only, or writable with allow-pip-install yes. Every
# case runs the real binaries and asserts on effects (what is installed,
# what pip was run for, what the files hold), as root and as uid 65534.
# Usage: tests/python/run.sh BUILD_DIR [CASE-GLOB]
# Prints "N passed, N failed, N skipped"; exit 1 on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
NOBODY=65534
PY=/usr/bin/python3
pass=0 failed=0 skipped=0

for f in heelc heel-exec heel; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
if ! [ -x $PY ] || ! $PY -c 'import venv, ensurepip' 2>/dev/null; then
	echo "SKIP everything: $PY with venv and ensurepip (Debian: python3-venv) is needed (make deps-check)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

T=$(mktemp -d /tmp/heel-python-test.XXXXXX)
chmod 755 "$T"
SERVER=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/bin" "$T/wheels" "$T/index/simple"
cp "$B/bin/heelc" "$B/bin/heel-exec" "$B/bin/heel" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
X=$T/bin/heel-exec
H=$T/bin/heel

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

# Two wheels (a zip with the package, METADATA, WHEEL and RECORD), and a
# PEP 503 simple index of them: simple/<name>/index.html beside the file.
$PY - "$T/wheels" pkgone pkgtwo <<'EOF' || { echo "cannot build the wheels"; exit 1; }
import base64, hashlib, os, sys, zipfile
out = sys.argv[1]
for name in sys.argv[2:]:
    files = {
        f"{name}/__init__.py": f"VALUE = {name + '-value'!r}\n",
        f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: heel-test\n"
                                      "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{name}-1.0.dist-info/RECORD,,")
    files[f"{name}-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(os.path.join(out, f"{name}-1.0-py3-none-any.whl"), "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
EOF
for n in pkgone pkgtwo; do
	mkdir -p "$T/index/simple/$n"
	cp "$T/wheels/$n-1.0-py3-none-any.whl" "$T/index/simple/$n/"
	printf '<html><body><a href="%s">%s</a></body></html>\n' "$n-1.0-py3-none-any.whl" \
		"$n-1.0-py3-none-any.whl" >"$T/index/simple/$n/index.html"
done
chmod -R a+rX "$T/wheels" "$T/index"
# The index on a free loopback port; each request is a line of its log.
$PY -u -m http.server --bind 127.0.0.1 --directory "$T/index" 0 >"$T/http.out" 2>"$T/http.log" &
SERVER=$!
PORT=
for _ in $(seq 50); do
	PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$T/http.out" | head -1)
	[ -n "$PORT" ] && break
	sleep 0.1
done
[ -n "$PORT" ] || { echo "the index server did not start: $(cat "$T/http.log")"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
INDEX=http://127.0.0.1:$PORT/simple/

# as WHO CMD...: root or uid 65534 (no groups), a small clean
# environment: python3 is /usr/bin's, pip finds the index through
# PIP_INDEX_URL and appends a line of every run to PIP_LOG.
as() {
	local who=$1
	shift
	set -- env -i PATH=/usr/bin:/bin HOME="$HOMEDIR" LANG=C.UTF-8 TMPDIR=/tmp \
		PIP_INDEX_URL="$INDEX" PIP_LOG="$PIPLOG" "$@"
	if [ "$who" = root ]; then
		"$@"
	else
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
	fi
}

die() { echo "$*"; exit 1; }

# compile WHO NAME: $P/NAME.heel (written by the case) into $P/NAME.hpol.
compile() {
	(cd "$P" && as "$1" "$T/bin/heelc" "$2.heel" -o "$2.hpol") >"$T/compile.out" 2>&1 ||
		die "$2.heel does not compile: $(cat "$T/compile.out")"
}

# hx WHO POLICY CMD: heel-exec POLICY -- sh -c CMD in $P; stdout into
# $OUT, stderr into $ERR; its status.
hx() {
	(cd "$P" && as "$1" timeout 300 "$X" "$2" -- sh -c "$3") >"$OUT" 2>"$ERR"
}

# The venv's every entry (path, mode, size, time) and every file's
# SHA-256: equal lists, an unchanged venv.
sums() {
	(cd "$1" && find . -printf '%p %m %s %T@\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

gets() { grep -c "GET /simple/$1/" "$T/http.log"; }
piplines() { [ -e "$PIPLOG" ] && wc -l <"$PIPLOG" || echo 0; }

policy_a() {
	cat >"$P/a.heel" <<EOF
heel 1
grant "$T/wheels" r
python {
    venv "./venv"
    packages "pkgone"
}
EOF
}

setup_user() {
	local who=$1
	P=$T/$who/proj
	HOMEDIR=$T/$who/home
	PIPLOG=$T/$who/pip.log
	OUT=$T/$who/out
	ERR=$T/$who/err
	rm -rf "${T:?}/$who"
	mkdir -p "$P" "$HOMEDIR"
	[ "$who" = root ] || chown -R $NOBODY:$NOBODY "$T/$who"
	chmod 755 "$T/$who"
}

# Each case runs for root, then for uid 65534; the cases of one user
# build on each other (one venv, made in the first).
CASES=(made import_inside read_only_inside reuse check_reused changed_list
	under_writable_grant workdir_refused writable_grant_inside_refused
	pip_allowed pip_allowed_not_rerun front_prepare)
run_all() {
	local who name msg
	for who in root user; do
		setup_user "$who"
		for name in "${CASES[@]}"; do
			# shellcheck disable=SC2053
			[[ $name == $ONLY ]] || continue
			if msg=$("case_$name" "$who" 2>&1); then
				ok "$name [$who]"
			else
				bad "$name [$who]: $msg"
			fi
		done
	done
}

owner() { [ "$1" = root ] && echo 0 || echo $NOBODY; }

# The venv is made on the host before the launch, with the policy's
# package from the index, by /usr/bin/python3, owned by the caller; one
# line on stderr says so; `check` said beforehand that it would.
case_made() {
	policy_a
	compile "$1" a
	(cd "$P" && as "$1" "$X" check a.hpol) >"$OUT" 2>&1
	grep -qx "python: venv $P/venv: missing; made with $PY -m venv, then its pip installs pkgone (before the sandbox starts)" "$OUT" ||
		die "check before: $(grep -i 'python\|verdict' "$OUT")"
	[ ! -e "$P/venv" ] || die "check made the venv"
	hx "$1" a.hpol 'echo "$VIRTUAL_ENV"; command -v python3' || die "status $?: $(cat "$ERR")"
	grep -qx "heel-exec: venv $P/venv: missing; made with $PY -m venv, then its pip installs pkgone" "$ERR" ||
		die "stderr: $(cat "$ERR")"
	[ "$(grep -c . "$ERR")" = 1 ] || die "more than one line on stderr: $(cat "$ERR")"
	[ "$(cat "$OUT")" = "$P/venv
$P/venv/bin/python3" ] || die "VIRTUAL_ENV and python3 inside: $(cat "$OUT")"
	[ "$(cat "$P/venv/.heel-packages")" = pkgone ] || die "record: $(cat "$P/venv/.heel-packages")"
	ls "$P"/venv/lib/python3*/site-packages/pkgone/__init__.py >/dev/null || die "pkgone not installed"
	[ "$(stat -c %u "$P/venv/pyvenv.cfg")" = "$(owner "$1")" ] || die "owner: $(stat -c %u "$P/venv/pyvenv.cfg")"
	[ "$(gets pkgone)" -ge 1 ] || die "the index was not asked for pkgone"
	[ "$(stat -c %s "$PIPLOG")" -gt 0 ] || die "no pip run logged"
}

# `import pkgone` inside the sandbox takes it from the venv.
case_import_inside() {
	hx "$1" a.hpol 'python3 -c "import pkgone, sys; print(pkgone.VALUE); print(pkgone.__file__); print(sys.prefix)"' ||
		die "status $?: $(cat "$ERR")"
	sed -n 1p "$OUT" | grep -qx pkgone-value || die "value: $(cat "$OUT")"
	sed -n 2p "$OUT" | grep -q "^$P/venv/lib/python3[^/]*/site-packages/pkgone/__init__.py$" || die "file: $(cat "$OUT")"
	sed -n 3p "$OUT" | grep -qx "$P/venv" || die "prefix: $(cat "$OUT")"
}

# Without allow-pip-install nothing in the venv can be written from
# inside: pip install fails, so do a new file in site-packages, a change
# of bin/python3, removing and renaming; afterwards the venv is byte for
# byte what it was. Control: the same writes into the working directory
# succeed, and pkgtwo's wheel is readable inside.
case_read_only_inside() {
	local before after
	before=$(sums "$P/venv")
	hx "$1" a.hpol "
		python3 -m pip install --no-index --find-links $T/wheels pkgtwo >pip.out 2>&1; echo pip=\$?
		grep -q 'Read-only file system\|Permission denied' pip.out && echo pip-said-read-only
		test -r $T/wheels/pkgtwo-1.0-py3-none-any.whl && echo wheel-readable
		sp=\$(echo $P/venv/lib/python3*/site-packages)
		echo 'x = 1' >\"\$sp/evil.py\" 2>/dev/null && echo site-written || echo site-refused
		echo '#' >>$P/venv/bin/activate 2>/dev/null && echo bin-written || echo bin-refused
		rm -f $P/venv/pyvenv.cfg 2>/dev/null; echo rm=\$?
		mv $P/venv/lib $P/venv/lib2 2>/dev/null; echo mv=\$?
		echo 'x = 1' >evil.py; echo control=\$?
		python3 -c 'import evil; print(evil.x)'" || die "status $?: $(cat "$ERR")"
	for want in pip=1 pip-said-read-only wheel-readable site-refused bin-refused rm=1 mv=1 control=0 1; do
		grep -qx "$want" "$OUT" || die "no $want: $(cat "$OUT")"
	done
	after=$(sums "$P/venv")
	[ "$before" = "$after" ] || die "the venv changed: $(diff <(echo "$before") <(echo "$after") | head -5)"
	! ls "$P"/venv/lib/python3*/site-packages/pkgtwo >/dev/null 2>&1 || die "pkgtwo got installed"
}

# A second launch finds the venv with its packages recorded: pip is not
# run again (its log gains no line), the index is not asked, nothing is
# said, and the record is not rewritten.
case_reuse() {
	local n g m
	n=$(piplines) g=$(gets pkgone) m=$(stat -c %Y.%Z "$P/venv/.heel-packages")
	hx "$1" a.hpol 'python3 -c "import pkgone"' || die "status $?: $(cat "$ERR")"
	[ ! -s "$ERR" ] || die "stderr: $(cat "$ERR")"
	[ "$(piplines)" = "$n" ] || die "pip ran again: $(tail -3 "$PIPLOG")"
	[ "$(gets pkgone)" = "$g" ] || die "the index was asked again"
	[ "$(stat -c %Y.%Z "$P/venv/.heel-packages")" = "$m" ] || die "the record was rewritten"
}

case_check_reused() {
	(cd "$P" && as "$1" "$X" check a.hpol) >"$OUT" 2>&1 || die "check: $(cat "$OUT")"
	grep -qx "python: venv $P/venv: there, with the policy's 1 package (.heel-packages); reused" "$OUT" ||
		die "check: $(grep -i 'python\|verdict' "$OUT")"
}

# A package added to the policy is installed into the venv at the next
# launch (pkgone is not fetched again) and recorded; check said so.
case_changed_list() {
	local g
	sed 's/packages "pkgone"/packages "pkgone" "pkgtwo"/' "$P/a.heel" >"$P/b.heel"
	compile "$1" b
	(cd "$P" && as "$1" "$X" check b.hpol) >"$OUT" 2>&1
	grep -qx "python: venv $P/venv: there; its pip installs pkgtwo (before the sandbox starts)" "$OUT" ||
		die "check: $(grep -i 'python\|verdict' "$OUT")"
	g=$(gets pkgone)
	hx "$1" b.hpol 'python3 -c "import pkgone, pkgtwo; print(pkgtwo.VALUE)"' || die "status $?: $(cat "$ERR")"
	grep -qx pkgtwo-value "$OUT" || die "stdout: $(cat "$OUT")"
	grep -qx "heel-exec: venv $P/venv: there; its pip installs pkgtwo" "$ERR" || die "stderr: $(cat "$ERR")"
	[ "$(gets pkgone)" = "$g" ] || die "pkgone was fetched again"
	[ "$(gets pkgtwo)" -ge 1 ] || die "the index was not asked for pkgtwo"
	[ "$(cat "$P/venv/.heel-packages")" = "pkgone
pkgtwo" ] || die "record: $(cat "$P/venv/.heel-packages")"
}

# A venv beneath a writable grant: the grant is narrowed around it (the
# longest path decides), so the venv stays read-only while the rest of
# the grant is written (control).
case_under_writable_grant() {
	local before after
	mkdir -p "$P/data"
	[ "$1" = root ] || chown $NOBODY "$P/data"
	cat >"$P/c.heel" <<EOF
heel 1
grant "$P" rw
python {
    venv "$P/venv"
    packages "pkgone"
}
EOF
	compile "$1" c
	before=$(sums "$P/venv")
	hx "$1" c.hpol "echo ok >$P/data/written; echo data=\$?
		echo 'x = 1' >\$(echo $P/venv/lib/python3*/site-packages)/evil.py 2>/dev/null && echo site-written || echo site-refused
		python3 -c 'import pkgone; print(pkgone.VALUE)'" || die "status $?: $(cat "$ERR")"
	for want in data=0 site-refused pkgone-value; do
		grep -qx "$want" "$OUT" || die "no $want: $(cat "$OUT") $(cat "$ERR")"
	done
	[ "$(cat "$P/data/written")" = ok ] || die "the control write did not land"
	after=$(sums "$P/venv")
	[ "$before" = "$after" ] || die "the venv changed"
}

# A venv in the working directory, which the sandbox writes and which is
# never executable, without allow-pip-install: refused before anything
# is made or run. Control: with allow-pip-install yes, check finds no
# contradiction.
case_workdir_refused() {
	local rc
	cat >"$P/d.heel" <<EOF
heel 1
workdir "\${CWD}"
python {
    venv "./venv-wd"
    packages "pkgone"
}
EOF
	compile "$1" d
	hx "$1" d.hpol 'echo ran'
	rc=$?
	[ "$rc" = 125 ] || die "status $rc: $(cat "$OUT") $(cat "$ERR")"
	! grep -q ran "$OUT" || die "the command ran"
	grep -q "venv $P/venv-wd: the working directory $P, which the sandbox writes, holds it" "$ERR" ||
		die "message: $(cat "$ERR")"
	[ ! -e "$P/venv-wd" ] || die "the venv was made"
	(cd "$P" && as "$1" "$X" check d.hpol) >"$OUT" 2>&1
	grep -q "verdict: heel-exec would refuse to run: venv $P/venv-wd: the working directory" "$OUT" ||
		die "check: $(grep verdict "$OUT")"
	sed 's/packages "pkgone"/packages "pkgone"; allow-pip-install yes/' "$P/d.heel" >"$P/d2.heel"
	compile "$1" d2
	(cd "$P" && as "$1" "$X" check d2.hpol) >"$OUT" 2>&1
	grep -qx "python: venv $P/venv-wd: missing; made with $PY -m venv, then its pip installs pkgone (before the sandbox starts)" "$OUT" ||
		die "control: $(grep -i 'python\|verdict' "$OUT")"
}

# A writable grant inside the venv (or of the venv itself) without
# allow-pip-install: refused, the command not run, the venv untouched.
case_writable_grant_inside_refused() {
	local before rc
	before=$(sums "$P/venv")
	cat >"$P/e.heel" <<EOF
heel 1
grant "./venv/lib" rw
python {
    venv "./venv"
    packages "pkgone"
}
EOF
	compile "$1" e
	hx "$1" e.hpol 'echo ran'
	rc=$?
	[ "$rc" = 125 ] || die "status $rc: $(cat "$OUT") $(cat "$ERR")"
	! grep -q ran "$OUT" || die "the command ran"
	grep -q "venv $P/venv: the policy lets the sandbox write $P/venv/lib (grant \"venv/lib\", e.heel:2)" "$ERR" ||
		die "message: $(cat "$ERR")"
	[ "$before" = "$(sums "$P/venv")" ] || die "the venv changed"
}

# allow-pip-install yes: the venv is writable inside (and listed rwx by
# explain); pip installs from a wheel directory granted read (the
# sandbox has no network to reach the index).
case_pip_allowed() {
	cat >"$P/f.heel" <<EOF
heel 1
grant "$T/wheels" r
python {
    venv "./venv-rw"
    packages "pkgone"
    allow-pip-install yes
}
EOF
	compile "$1" f
	(cd "$P" && as "$1" "$T/bin/heelc" explain f.hpol) >"$OUT" 2>&1
	grep -A3 'Writable and executable (rwx)' "$OUT" | grep -q '\./venv-rw .*(the venv: allow-pip-install yes)' ||
		die "explain: $(cat "$OUT")"
	hx "$1" f.hpol "python3 -m pip install -q --disable-pip-version-check --no-index --find-links $T/wheels pkgtwo; echo pip=\$?
		python3 -c 'import pkgtwo; print(pkgtwo.VALUE)'" || die "status $?: $(cat "$OUT") $(cat "$ERR")"
	grep -qx pip=0 "$OUT" || die "pip: $(cat "$OUT") $(cat "$ERR")"
	grep -qx pkgtwo-value "$OUT" || die "import: $(cat "$OUT")"
	ls "$P"/venv-rw/lib/python3*/site-packages/pkgtwo/__init__.py >/dev/null || die "not on the host"
}

# A venv a sandbox may write is never run on the host again: a policy
# that now lists a package its record lacks is refused (check says so,
# and a launch runs no pip), rather than handing it to its own pip.
case_pip_allowed_not_rerun() {
	local n rc
	sed 's/packages "pkgone"/packages "pkgone" "pkgtwo"/' "$P/f.heel" >"$P/g.heel"
	compile "$1" g
	n=$(piplines)
	hx "$1" g.hpol 'echo ran'
	rc=$?
	[ "$rc" = 125 ] || die "status $rc: $(cat "$OUT") $(cat "$ERR")"
	! grep -q ran "$OUT" || die "the command ran"
	grep -q "a sandbox may have written it, so heel will not run its pip on the host" "$ERR" ||
		die "message: $(cat "$ERR")"
	[ "$(piplines)" = "$n" ] || die "pip ran"
	(cd "$P" && as "$1" "$X" check g.hpol) >"$OUT" 2>&1
	grep -q "verdict: heel-exec would refuse to run: venv $P/venv-rw lacks packages" "$OUT" ||
		die "check: $(grep verdict "$OUT")"
}

# heel python --prepare makes the venv and runs nothing; heel python
# script.py then uses it without running pip.
case_front_prepare() {
	local n
	mkdir -p "$P/fe"
	[ "$1" = root ] || chown $NOBODY "$P/fe"
	cat >"$P/fe/p.heel" <<EOF
heel 1
python {
    venv "./venv"
    packages "pkgone"
}
EOF
	echo 'import pkgone, sys; print(pkgone.VALUE, sys.prefix)' >"$P/fe/script.py"
	(cd "$P/fe" && as "$1" "$H" python --policy p.heel --prepare) >"$OUT" 2>"$ERR" ||
		die "prepare: $(cat "$ERR")"
	[ ! -s "$OUT" ] || die "prepare printed: $(cat "$OUT")"
	grep -qx "heel: venv $P/fe/venv: missing; made with $PY -m venv, then its pip installs pkgone" "$ERR" ||
		die "prepare said: $(cat "$ERR")"
	[ "$(cat "$P/fe/venv/.heel-packages")" = pkgone ] || die "record"
	n=$(piplines)
	(cd "$P/fe" && as "$1" "$H" python --policy p.heel script.py) >"$OUT" 2>"$ERR" ||
		die "run: $(cat "$ERR")"
	grep -qx "pkgone-value $P/fe/venv" "$OUT" || die "run: $(cat "$OUT") $(cat "$ERR")"
	[ "$(piplines)" = "$n" ] || die "pip ran again"
	(cd "$P/fe" && as "$1" "$H" python --policy p.heel --prepare) >"$OUT" 2>"$ERR" ||
		die "prepare again: $(cat "$ERR")"
	grep -q "reused" "$ERR" || die "prepare again said: $(cat "$ERR")"
}

run_all
echo "$pass passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]

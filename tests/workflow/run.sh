#!/bin/bash
# SPDX-License-Identifier: MIT
# An agent's ordinary day under the default sandbox, as a real user: a
# normal account with a real home under /home (made by this suite and
# removed after it), a git project with Python tests, a Makefile and a C
# file, node where the machine has it, a local server. Every case runs
# `heel run` (or heel-exec) for real and asserts on the effect, each with
# its control, as that user and again as root (whose home is the suite's
# too: HOME points at a copy, so root's own files are never touched).
#
# The cases live in tests/workflow/cases/*.sh, one file per topic: each
# defines functions named wf_NAME, run once per user in a fresh copy of
# the project (cwd: the project). A case reports with `prob "..."` (a
# failure), `skipr "..."` (a skip, with its reason) and otherwise passes.
# Helpers for cases: as CMD... (as the user, with their login
# environment), heel ARGS... (as the user, heel run's binary), PROJ, HOMEDIR,
# WUSER (the account), U (heel-wf or root).
#
# Usage: tests/workflow/run.sh BUILD_DIR [CASE-GLOB]
# Prints one line per case and "N passed, N failed, N skipped".
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
WUSER=heel-wf
npass=0 nfail=0 nskip=0

if [ "$(id -u)" != 0 ]; then
	echo "the workflow suite runs as root (it makes the user it runs as)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for f in heelc heel heel-exec heel-proxy heel-broker heel-ipc; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

T=$(mktemp -d /tmp/heel-workflow.XXXXXX) || exit 1
chmod 755 "$T"
MADE_USER=0
cleanup() {
	pkill -KILL -u "$WUSER" 2>/dev/null
	[ "$MADE_USER" = 1 ] && userdel -r "$WUSER" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# heel where every user can run it, and no user can change it.
mkdir -p "$T/bin"
cp "$B/bin/heelc" "$B/bin/heel" "$B/bin/heel-exec" "$B/bin/heel-proxy" "$B/bin/heel-broker" \
	"$B/bin/heel-ipc" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
HEEL=$T/bin/heel
HEEL_EXEC=$T/bin/heel-exec
HEELC=$T/bin/heelc

# The account: a real one, with a home under /home and a login shell.
if ! id "$WUSER" >/dev/null 2>&1; then
	useradd --create-home --shell /bin/bash "$WUSER" || { echo "cannot make the user $WUSER"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
	MADE_USER=1
fi
WHOME=$(getent passwd "$WUSER" | cut -d: -f6)
WUID=$(id -u "$WUSER")

# ---------------------------------------------------------------- output
U="" CASE="" PROB="" SKIPR=""
# A case runs in a subshell: what it reports goes through files.
prob() { printf '%s\n' "$*" >>"$T/prob"; }
skipr() { printf '%s\n' "$*" >>"$T/skip"; }
finish() {
	if [ -n "$PROB" ]; then
		echo "FAIL $CASE [$U]: $PROB"
		nfail=$((nfail + 1))
	elif [ -n "$SKIPR" ]; then
		echo "SKIP $CASE [$U]: $SKIPR"
		nskip=$((nskip + 1))
	else
		echo "PASS $CASE [$U]"
		npass=$((npass + 1))
	fi
}

# --------------------------------------------------------------- the user
# as CMD...: as the current case's user, in the current directory, with
# the environment a login would give (HOME, USER, LOGNAME, SHELL, PATH
# with the user's own bin directories first, LANG).
as() {
	local path=/usr/local/bin:/usr/bin:/bin
	path=$HOMEDIR/.local/bin:$HOMEDIR/bin:$path
	if [ "$U" = root ]; then
		env -i HOME="$HOMEDIR" USER=root LOGNAME=root SHELL=/bin/bash PATH="$path" LANG=C.UTF-8 \
			TERM="${TERM:-dumb}" "$@"
	else
		setpriv --reuid="$WUID" --regid="$(id -g "$WUSER")" --init-groups \
			env -i HOME="$HOMEDIR" USER="$WUSER" LOGNAME="$WUSER" SHELL=/bin/bash PATH="$path" \
			LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"
	fi
}
heel() { as "$HEEL" "$@"; }

# A fresh home and project for each case: the real home for the account
# (emptied of what earlier cases left), a copy under T for root.
fresh() {
	if [ "$U" = root ]; then
		HOMEDIR=$T/root-home
		rm -rf "$HOMEDIR"
		mkdir -p "$HOMEDIR"
	else
		HOMEDIR=$WHOME
		find "$HOMEDIR" -mindepth 1 -maxdepth 1 -exec rm -rf {} + 2>/dev/null
		cp -a /etc/skel/. "$HOMEDIR/" 2>/dev/null
	fi
	PROJ=$HOMEDIR/proj
	mkdir -p "$PROJ"
	cp -a "$HERE/project/." "$PROJ/"
	if [ "$U" != root ]; then chown -R "$WUSER:" "$HOMEDIR"; fi
	(cd "$PROJ" && as git init -q && as git add -A && as git -c user.name=t -c user.email=t@t commit -qm init) >/dev/null 2>&1
}

# ----------------------------------------------------------------- main
for f in "$HERE"/cases/*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done
CASES=$(declare -F | awk '{print $3}' | grep '^wf_' | sort)
for U in "$WUSER" root; do
	for c in $CASES; do
		CASE=${c#wf_}
		# shellcheck disable=SC2053
		[[ $CASE == $ONLY ]] || continue
		PROB="" SKIPR=""
		fresh
		(cd "$PROJ" && "$c") >"$T/case.out" 2>&1
		# A case reports through files, since it runs in a subshell.
		[ -s "$T/prob" ] && PROB=$(paste -sd';' "$T/prob")
		[ -s "$T/skip" ] && SKIPR=$(paste -sd';' "$T/skip")
		rm -f "$T/prob" "$T/skip"
		finish
	done
done
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]

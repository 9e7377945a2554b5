#!/bin/bash
# SPDX-License-Identifier: MIT
# heel-exec in the settings container engines give, emulated (there is no
# Docker engine on the test machines): each case runs in a PID and mount
# namespace of its own with a /proc of its own, masked as Docker masks it
# or not, and under build/container/dockerlike, which loads Docker's
# default seccomp profile for the namespace and mount calls (or the EACCES
# that docker-default's `deny mount,` gives) and drops CAP_SYS_ADMIN from
# the bounding set. heel-exec runs for real, as root and as uid 65534, and
# must refuse (125) naming the cause and the way out, run weakened with
# --best-effort where a launch can fall back, and say the same in
# `heel-exec check`; without the filter and the masks the same launch
# runs (the control). Root only.
# Usage: tests/container/engines.sh BUILD-DIR   ("N passed, N failed, N skipped")
set -u
B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
NOBODY=65534
pass=0 failed=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

if [ "$(id -u)" != 0 ]; then
	echo "the engine cases load seccomp filters without no_new_privs and make namespaces: root only"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for f in bin/heelc bin/heel-exec bin/heel-exec-static bin/heel-exec-musl container/dockerlike; do
	[ -x "$B/$f" ] || { echo "missing $B/$f (make check-container builds it)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

T=$(mktemp -d /tmp/heel-engines.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/tmp-root" "$T/tmp-nobody" "$T/home-root" "$T/home-nobody"
chown "$NOBODY:$NOBODY" "$T/tmp-nobody" "$T/home-nobody"
cp "$B/bin/heel-exec" "$B/bin/heel-exec-static" "$B/bin/heel-exec-musl" "$B/container/dockerlike" "$T/bin/"
chmod 755 "$T/bin"/*
printf 'heel 1\n' >"$T/plain.heel"
"$B/bin/heelc" "$T/plain.heel" -o "$T/plain.hpol" >"$T/heelc.log" 2>&1 || { cat "$T/heelc.log"; exit 1; }
chmod 644 "$T/plain.hpol"
P=$T/plain.hpol

# The container: a PID namespace, a mount namespace, a /proc of its own,
# Docker's marker /.dockerenv, and with `masked` that /proc masked by
# binds of /dev/null over files Docker masks. The marker is made here, in
# a root of the container's own (a tmpfs holding binds of the host's
# top-level entries, made the root by pivot_root, as an engine makes
# one), never taken from the machine: the wording under test names the
# engine, and whether the machine's own root has the marker depends on
# how that root was made (a Docker container's has, a VM's has not). Not
# chroot: the kernel refuses a user namespace to a chrooted process.
CONTAINER='
set -e
r=$(mktemp -d /tmp/heel-engine-root.XXXXXX)
mount -t tmpfs -o mode=755 heel-engine-root "$r"
for e in /* /.[!.]*; do
	[ -e "$e" ] || [ -L "$e" ] || continue
	n=${e#/}
	[ "$n" != .dockerenv ] || continue
	if [ -L "$e" ]; then cp -P "$e" "$r/$n"
	elif [ -d "$e" ]; then mkdir "$r/$n"; mount --rbind "$e" "$r/$n"
	else : >"$r/$n"; mount --bind "$e" "$r/$n"; fi
done
: >"$r/.dockerenv"
mkdir "$r/.old"
cd "$r"
pivot_root . .old
cd /
umount -l /.old
rmdir /.old
# The copy of the new root that its own /tmp holds (bound before it was
# complete), with a /proc beside the one masked below: a user namespace
# may mount a /proc while any fully visible one is in its mount namespace.
umount -l "$r"
rmdir "$r" 2>/dev/null || :
set +e
if [ "$1" = masked ]; then
	for f in /proc/keys /proc/timer_list /proc/kcore /proc/sched_debug; do
		[ -f "$f" ] && mount --bind /dev/null "$f"
	done
fi
shift
exec "$@"'

# hx USER PROC PROFILE [HEEL-EXEC] ARGS...: heel-exec ARGS as USER (root,
# nobody) in a container with PROC (masked, plain) under PROFILE (none;
# docker: Docker's default profile; apparmor: --cap-add SYS_ADMIN under
# docker-default). stdout, stderr in $T/out, $T/err; rc.
hx() {
	local u=$1 proc=$2 profile=$3 x=heel-exec pre=() who=()
	shift 3
	case ${1:-} in heel-exec*) x=$1; shift ;; esac
	case $profile in
	docker) pre=("$T/bin/dockerlike") ;;
	apparmor) pre=("$T/bin/dockerlike" --apparmor-deny-mount) ;;
	esac
	[ "$u" = nobody ] && who=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	unshare --pid --fork --mount --propagation private --mount-proc \
		sh -c "$CONTAINER" sh "$proc" "${pre[@]}" "${who[@]}" \
		env -i PATH=/usr/bin:/bin HOME="$T/home-$u" TMPDIR="$T/tmp-$u" "$T/bin/$x" "$@" \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

rc_is() { [ "$rc" = "$1" ] || { echo "     exit status $rc, expected $1; stderr: $(head -c 400 "$T/err")"; return 1; }; }
# err_has TEXT / out_has TEXT: a fixed string somewhere in stderr / stdout.
err_has() { grep -qF -- "$1" "$T/err" || { echo "     no '$1' in stderr: $(head -c 600 "$T/err")"; return 1; }; }
out_has() { grep -qF -- "$1" "$T/out" || { echo "     no '$1' in stdout: $(grep -E '^(user|private|container|verdict|with)' "$T/out" | head -c 900)"; return 1; }; }
out_line() { grep -qE -- "$1" "$T/out" || { echo "     no line matching '$1' in: $(grep -E '^(user|private|container|verdict|with)' "$T/out" | head -c 900)"; return 1; }; }
one_line() { [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^heel-exec: ' "$T/err" || { echo "     stderr: $(cat "$T/err")"; return 1; }; }
# The refusal of the namespaces: what failed on the first line, then the
# cause, the way out and what --best-effort gives up, each a line of its
# own, none of them a wall of text.
short_lines() { grep -q '^heel-exec: cannot create' "$T/err" && [ "$(wc -l <"$T/err")" -ge 4 ] &&
	awk 'length > 260 { bad = 1 } END { exit bad }' "$T/err" || { echo "     stderr: $(cat "$T/err")"; return 1; }; }
never_ran() { ! grep -q '^ran$' "$T/out"; }
ran() { grep -qx 'ran' "$T/out" || { echo "     stdout: $(head -c 300 "$T/out"); stderr: $(head -c 300 "$T/err")"; return 1; }; }
no_workdir_left() { [ -z "$(ls -A "$T/tmp-$1")" ] || { echo "     left: $(ls -A "$T/tmp-$1")"; return 1; }; }

DOCKER_USER='docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined'
DOCKER_ROOT='docker run --cap-add SYS_ADMIN --security-opt apparmor=unconfined --security-opt systempaths=unconfined'

for u in root nobody; do
	if [ $u = root ]; then way=$DOCKER_ROOT; else way=$DOCKER_USER; fi

	# ------------------------------------------------------- the control
	hx $u plain none "$P" -- echo ran
	check "[$u] control: no filter, no masks: the launch runs" rc_is 0
	check "[$u] control: the command ran" ran
	hx $u plain none check "$P"
	check "[$u] control: check: exit 0" rc_is 0
	check "[$u] control: check: no cause named" out_line '^container: [^:]*$'

	# ----------------------------------------- Docker's default profile
	for x in heel-exec heel-exec-static heel-exec-musl; do
		hx $u masked docker $x "$P" -- echo ran
		check "[$u] docker: $x refuses (125)" rc_is 125
		check "[$u] docker: $x: the command never ran" never_ran
		check "[$u] docker: $x: short lines" short_lines
		check "[$u] docker: $x: names the seccomp filter" \
			err_has "inside a container whose seccomp filter refuses new namespaces (Docker's default profile"
		check "[$u] docker: $x: names the way out" err_has "start the container with \`$way\`"
		check "[$u] docker: $x: ... or --privileged" err_has "or with \`docker run --privileged\`"
		check "[$u] docker: $x: says what going without them costs" err_has "the host's processes are visible in /proc"
		check "[$u] docker: $x: --best-effort, and what it gives up" err_has "--best-effort runs without them, and then:"
		check "[$u] docker: $x: no working directory left" no_workdir_left $u
	done
	if [ $u = root ]; then
		check "[root] docker: root is told it lacks CAP_SYS_ADMIN" err_has "heel-exec runs as root without CAP_SYS_ADMIN inside a container"
	fi

	# --best-effort runs without the namespaces, saying so; Landlock and
	# seccomp still hold: a write beside the working directory, in a
	# directory the user owns, fails.
	hx $u masked docker --best-effort "$P" -- sh -c "echo ran; touch '$T/tmp-$u/outside'"
	check "[$u] docker --best-effort: runs; the write outside is refused (sh exits 1)" rc_is 1
	check "[$u] docker --best-effort: the command ran" ran
	check "[$u] docker --best-effort: the write outside did not happen" test ! -e "$T/tmp-$u/outside"
	check "[$u] docker --best-effort: prints the weakening" err_has "heel-exec: weakened: no namespaces (Operation not permitted); "
	check "[$u] docker --best-effort: ... with the cause" err_has "seccomp filter refuses new namespaces"
	check "[$u] docker --best-effort: ... and what it gives up" err_has "the host's processes are visible in /proc"

	hx $u masked docker check "$P"
	check "[$u] docker: check: exit 125" rc_is 125
	check "[$u] docker: check: user namespaces line" \
		out_has "user namespaces: not available (Operation not permitted): seccomp filter refuses namespaces"
	check "[$u] docker: check: container line with the way out" \
		out_line "^container: [a-z ]+ \(seccomp filter refuses namespaces\): start the container with \`$way\`"
	check "[$u] docker: check: the verdict names the cause" \
		out_line '^verdict: heel-exec would refuse to run: cannot create the sandbox.s namespaces \(Operation not permitted\); .*seccomp filter refuses new namespaces'
	check "[$u] docker: check: --best-effort would run" out_has "with --best-effort: it would run, weakened as listed above"

	# ------------------------ --cap-add SYS_ADMIN under docker-default
	# The clone passes, the first mount is refused with EACCES; a launch
	# cannot fall back once its namespaces exist, so --best-effort is
	# refused too, and check says so.
	for be in "" --best-effort; do
		hx $u masked apparmor $be "$P" -- echo ran
		check "[$u] apparmor deny mount ${be:-strict}: refused (125)" rc_is 125
		check "[$u] apparmor deny mount ${be:-strict}: the command never ran" never_ran
		check "[$u] apparmor deny mount ${be:-strict}: names the cause" \
			err_has "making mounts private: Permission denied; a mount refused with EACCES (an AppArmor profile such as docker-default denies mount)"
		check "[$u] apparmor deny mount ${be:-strict}: names the way out" err_has "apparmor=unconfined"
		check "[$u] apparmor deny mount ${be:-strict}: ... and the weakened one" err_has "; or run weakened, without the sandbox's namespaces: --best-effort --no-namespaces"
		check "[$u] apparmor deny mount ${be:-strict}: no working directory left" no_workdir_left $u
	done
	hx $u masked apparmor check "$P"
	check "[$u] apparmor deny mount: check: exit 125" rc_is 125
	check "[$u] apparmor deny mount: check: private /proc line" \
		out_has "private /proc: not available (Permission denied): mount refused with EACCES"
	check "[$u] apparmor deny mount: check: container line" \
		out_line '^container: [a-z ]+ \(mount refused with EACCES\): start the container with .*apparmor=unconfined'
	check "[$u] apparmor deny mount: check: --best-effort still refused" \
		out_line '^with --best-effort: still refused: cannot mount in the sandbox.s mount namespace \(Permission denied\); a mount refused with EACCES'
	check "[$u] apparmor deny mount: check: --best-effort --no-namespaces would run" \
		out_has "with --best-effort --no-namespaces: it would run, weakened as listed above and without the sandbox's namespaces"
	hx $u masked apparmor --best-effort --no-namespaces "$P" -- echo ran
	check "[$u] apparmor deny mount --best-effort --no-namespaces: runs" rc_is 0
	check "[$u] apparmor deny mount --best-effort --no-namespaces: the command ran" ran
	check "[$u] apparmor deny mount --best-effort --no-namespaces: prints the weakening" err_has "weakened: --no-namespaces"
done

# ------------------------------------------------------- a masked /proc
# Root may mount a /proc over the masks (its mount namespace belongs to
# the initial user namespace); a user namespace may not.
hx root masked none "$P" -- echo ran
check "[root] masked /proc: root runs" rc_is 0
hx nobody masked none "$P" -- echo ran
check "[nobody] masked /proc: refused (125)" rc_is 125
check "[nobody] masked /proc: the command never ran" never_ran
check "[nobody] masked /proc: one line" one_line
check "[nobody] masked /proc: names the masked paths" err_has "inside a container whose /proc has masked paths (/proc/"
check "[nobody] masked /proc: names systempaths=unconfined" err_has "--security-opt systempaths=unconfined"
check "[nobody] masked /proc: --best-effort accepts that" err_has "; --best-effort accepts that"
check "[nobody] masked /proc: no working directory left" no_workdir_left nobody
hx nobody masked none --best-effort "$P" -- sh -c 'echo ran'
check "[nobody] masked /proc --best-effort: runs" rc_is 0
check "[nobody] masked /proc --best-effort: the command ran" ran
check "[nobody] masked /proc --best-effort: prints the weakening with the cause" \
	err_has "heel-exec: weakened: no /proc of the sandbox's own (Operation not permitted): the host's processes stay visible in /proc"
check "[nobody] masked /proc --best-effort: ... and the masked paths" err_has "whose /proc has masked paths"
hx nobody masked none check "$P"
check "[nobody] masked /proc: check: exit 125" rc_is 125
check "[nobody] masked /proc: check: private /proc line" \
	out_has "private /proc: not available (Operation not permitted): /proc has masked paths"
check "[nobody] masked /proc: check: container line" \
	out_line '^container: [a-z ]+ \(/proc has masked paths\): start the container with .*systempaths=unconfined'
check "[nobody] masked /proc: check: --best-effort would run" out_has "with --best-effort: it would run, weakened as listed above"

echo "$pass passed, $failed failed, $skipped skipped"
[ $failed = 0 ]

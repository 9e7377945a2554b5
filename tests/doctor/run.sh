#!/bin/bash
# SPDX-License-Identifier: MIT
# `heel doctor` (and the walls report of `heel-exec check` it reads), for
# real, as root and as uid 65534: on this machine as it is, and in
# environments made here the way tests/container makes them: a /proc
# masked as Docker masks it (binds over files, /proc/sys read-only, in a
# PID and mount namespace of its own), no namespaces for the sandbox
# (Docker's default seccomp profile, build/container/dockerlike), and no
# Landlock (a seccomp filter answering ENOSYS for the landlock calls,
# dockerlike --no-landlock), the last two where nothing can run fully.
# Every environment is asserted on the text and on the JSON, and what the
# report says is checked against what happens: a stock policy it says
# runs fully runs under `heel run`, one it says does not is refused (125).
# Root only (it makes the namespaces and loads the filters).
# Usage: tests/doctor/run.sh BUILD-DIR   ("N passed, N failed, N skipped")
set -u
B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
NOBODY=65534
pass=0 failed=0 skipped=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

if [ "$(id -u)" != 0 ]; then
	echo "the doctor suite makes namespaces and loads seccomp filters: root only"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for f in bin/heel bin/heel-exec bin/heelc bin/heel-proxy container/dockerlike; do
	[ -x "$B/$f" ] || { echo "missing $B/$f (make check-doctor builds it)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
command -v python3 >/dev/null || { echo "python3 is missing (make deps-check)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

T=$(mktemp -d /tmp/heel-doctor.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/home-root" "$T/home-nobody" "$T/tmp-root" "$T/tmp-nobody"
chown "$NOBODY:$NOBODY" "$T/home-nobody" "$T/tmp-nobody"
cp "$B/bin/heel" "$B/bin/heel-exec" "$B/bin/heelc" "$B/bin/heel-proxy" "$B/container/dockerlike" "$T/bin/"
chmod 755 "$T/bin"/*

# The environments. masked: a PID and mount namespace with a /proc of
# its own, masked by binds of /dev/null over files and a read-only bind
# of /proc/sys, as Docker masks it.
ENVS='
env=$1; shift
case $env in
masked)
	for f in /proc/keys /proc/timer_list /proc/kcore /proc/sched_debug; do
		[ -f "$f" ] && mount --bind /dev/null "$f"
	done
	mount --bind -o ro /proc/sys /proc/sys ;;
esac
exec "$@"'

# inenv ENV USER CMD...: CMD as USER (root, nobody) in ENV (plain, masked,
# docker, nolandlock), in /, with a small clean environment; stdout in
# $T/out, stderr in $T/err, the status in rc.
inenv() {
	local env=$1 u=$2 pre=() who=()
	shift 2
	case $env in
	docker) pre=("$T/bin/dockerlike") ;;
	nolandlock) pre=("$T/bin/dockerlike" --no-landlock) ;;
	esac
	[ "$u" = nobody ] && who=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	(cd / && unshare --pid --fork --mount --propagation private --mount-proc \
		sh -c "$ENVS" sh "$env" "${pre[@]}" "${who[@]}" \
		env -i PATH=/usr/bin:/bin HOME="$T/home-$u" TMPDIR="$T/tmp-$u" LANG=C.UTF-8 "$@") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# doctor ENV USER: heel doctor there, the text in $T/ENV-USER.txt (status
# in $T/ENV-USER.rc) and the JSON in $T/ENV-USER.json.
doctor() {
	rm -rf "$T/home-$2/.local/state"
	inenv "$1" "$2" "$T/bin/heel" doctor
	cp "$T/out" "$T/$1-$2.txt"
	echo "$rc" >"$T/$1-$2.rc"
	[ -s "$T/err" ] && cp "$T/err" "$T/$1-$2.err"
	inenv "$1" "$2" "$T/bin/heel" doctor --json
	cp "$T/out" "$T/$1-$2.json"
	echo "$rc" >"$T/$1-$2.json.rc"
	flatten "$T/$1-$2.json"
}

# The JSON flattened once per report (a Python start costs seconds on a
# loaded machine): KEY=VALUE lines in FILE.flat, the fields as they are
# (uid, walls.NAME.FIELD, host.NAME, policies.I.FIELD, missing,
# runs_fully, verdict, why) and what the checks compare them with
# (computed.*). "None" for null, "PARSE ERROR" when it does not parse.
flatten() {
	python3 - "$1" >"$1.flat" 2>&1 <<'PY' || echo "PARSE ERROR" >"$1.flat"
import json, sys
d = json.load(open(sys.argv[1]))
out = {"uid": d["uid"], "missing": d["missing"], "runs_fully": d["runs_fully"],
       "verdict": d["verdict"], "why": d.get("why")}
for w in d["walls"]:
    for k in ("state", "detail", "raise"):
        out["walls.%s.%s" % (w["name"], k)] = w[k]
for k, v in d["host"].items():
    out["host." + k] = v
for i, p in enumerate(d["policies"]):
    for k in ("name", "option", "runs_fully", "verdict", "best_effort"):
        out["policies.%d.%s" % (i, k)] = p[k]
W = d["walls"]
out["computed.wall_names"] = ",".join(w["name"] for w in W)
out["computed.states_ok"] = all(w["state"] in ("available", "missing", "unneeded") for w in W)
out["computed.raise_ok"] = all((w["state"] == "missing") == bool(w["raise"]) for w in W)
out["computed.missing"] = sum(w["state"] == "missing" for w in W)
out["computed.missing_names"] = ",".join(w["name"] for w in W if w["state"] == "missing")
out["computed.policy_names"] = ",".join(p["name"] for p in d["policies"])
out["computed.runs_fully"] = sum(p["runs_fully"] for p in d["policies"])
out["computed.fully_names"] = ",".join(p["name"] for p in d["policies"] if p["runs_fully"])
out["computed.host_names"] = ",".join(sorted(d["host"]))
out["computed.rc"] = 0 if d["missing"] == 0 and d["runs_fully"] == 7 else 1
for k, v in out.items():
    print("%s=%s" % (k, str(v).replace("\n", " ")))
PY
}
# j FILE KEY: a field of FILE's flattened JSON.
j() { sed -n "s/^$(sed 's/[.[\*^$/]/\\&/g' <<<"$2")=//p" "$1.flat" | head -1; }
# wall FILE NAME FIELD: a field of a wall.
wall() { j "$1" "walls.$2.$3"; }
is() { [ "$1" = "$2" ] || { echo "     got '$1', expected '$2'"; return 1; }; }
has() { grep -qF -- "$2" <<<"$1" || { echo "     no '$2' in: $(head -c 600 <<<"$1")"; return 1; }; }
txt_has() { grep -qF -- "$2" "$1" || { echo "     no '$2' in $1: $(head -c 900 "$1")"; return 1; }; }
txt_line() { grep -qE -- "$2" "$1" || { echo "     no line matching '$2' in $1: $(head -c 900 "$1")"; return 1; }; }

WALLS=landlock,seccomp,user-namespace,pid-namespace,mount-namespace,network-namespace,private-proc,cgroup,bpf

# What holds in every environment: the two forms agree, and the report is
# complete and consistent.
common() {
	local e=$1 u=$2 t=$T/$1-$2.txt js=$T/$1-$2.json uid=0 n
	[ "$u" = nobody ] && uid=$NOBODY
	check "[$e $u] JSON parses" bash -c "! grep -q 'PARSE ERROR' '$js.flat' || { head -c 600 '$js'; false; }"
	check "[$e $u] text: names the user" txt_line "$t" "^heel doctor: uid $uid\$"
	check "[$e $u] JSON: uid" is "$(j "$js" uid)" "$uid"
	check "[$e $u] JSON: every wall, in order" is "$(j "$js" computed.wall_names)" "$WALLS"
	check "[$e $u] JSON: states are available, missing or unneeded" \
		is "$(j "$js" computed.states_ok)" True
	check "[$e $u] JSON: a raise for each missing wall, none for the others" \
		is "$(j "$js" computed.raise_ok)" True
	n=$(j "$js" missing)
	check "[$e $u] JSON: missing counts the missing walls" \
		is "$n" "$(j "$js" computed.missing)"
	check "[$e $u] text: one raise line per missing wall" is "$(grep -c '^  *raise: ' "$t")" "$n"
	check "[$e $u] text and JSON: the same walls missing" \
		is "$(grep -E '^  [a-z-]+ +missing' "$t" | awk '{print $1}' | paste -sd,)" \
		"$(j "$js" computed.missing_names)"
	check "[$e $u] JSON: the seven stock policies" \
		is "$(j "$js" computed.policy_names)" \
		"isolation strict,isolation default,isolation permissive,preset python,preset node,preset rust,preset git"
	check "[$e $u] JSON: runs_fully counts them" \
		is "$(j "$js" runs_fully)" "$(j "$js" computed.runs_fully)"
	check "[$e $u] text and JSON: the same policies run fully" \
		is "$(grep -E '^  (isolation|preset) [a-z]+ +runs fully$' "$t" | awk '{print $1" "$2}' | paste -sd,)" \
		"$(j "$js" computed.fully_names)"
	check "[$e $u] text and JSON: the same verdict" \
		txt_line "$t" "^verdict: $(j "$js" verdict)"
	check "[$e $u] exit status: 0 only with nothing missing, 1 otherwise" \
		is "$(cat "$T/$1-$2.rc")" "$(j "$js" computed.rc)"
	check "[$e $u] --json: the same status" is "$(cat "$T/$1-$2.json.rc")" "$(cat "$T/$1-$2.rc")"
	check "[$e $u] nothing on stderr" bash -c "[ ! -s '$T/$1-$2.err' ] || { cat '$T/$1-$2.err'; false; }"
}

# What the report says about the stock policies is what heel run does:
# one that runs fully runs; one that does not is refused. Each run with
# no record of earlier ones (a permissive run records / as written, and
# later launches then refuse the heel-exec in /tmp). POLICIES: the
# indexes to try (all seven on this machine, two elsewhere).
ran_as_said() {
	[ "$rc" = 0 ] && grep -qx ran "$T/out" || { echo "     rc $rc: $(head -c 300 "$T/err")"; return 1; }
}
refused_as_said() {
	[ "$rc" = 125 ] && ! grep -qx ran "$T/out" || { echo "     rc $rc: $(head -c 300 "$T/err")"; return 1; }
}
effects() {
	local e=$1 u=$2 js=$T/$1-$2.json i opt fully
	shift 2
	for i in "$@"; do
		opt=$(j "$js" "policies.$i.option")
		fully=$(j "$js" "policies.$i.runs_fully")
		rm -rf "$T/home-$u/.local/state"
		# shellcheck disable=SC2086
		inenv "$e" "$u" "$T/bin/heel" run $opt -- sh -c 'echo ran'
		if [ "$fully" = True ]; then
			check "[$e $u] heel run $opt: runs, as the report says" ran_as_said
		else
			check "[$e $u] heel run $opt: refused (125), as the report says" refused_as_said
		fi
	done
	rm -rf "$T/home-$u/.local/state"
}

# ------------------------------------------------ this machine, as it is
for u in root nobody; do
	doctor plain $u
	common plain $u
	effects plain $u 0 1 2 3 4 5 6
	js=$T/plain-$u.json
	# The Landlock ABI is the one heel-exec check of a policy reports.
	printf 'heel 1\n' >"$T/p.heel"
	"$T/bin/heelc" "$T/p.heel" -o "$T/p.hpol" 2>/dev/null && chmod 644 "$T/p.hpol"
	inenv plain $u "$T/bin/heel-exec" check "$T/p.hpol"
	abi=$(sed -n 's/^landlock: ABI \([0-9]*\)$/\1/p' "$T/out" | head -1)
	if [ -n "$abi" ]; then
		check "[plain $u] landlock: available, ABI $abi" is "$(wall "$js" landlock state) $(wall "$js" landlock detail)" "available ABI $abi"
	else
		check "[plain $u] landlock: missing, as heel-exec check says" is "$(wall "$js" landlock state)" missing
	fi
	# The user namespace against unshare(1) as that user.
	if [ $u = root ]; then
		check "[plain root] user-namespace: unneeded" is "$(wall "$js" user-namespace state)" unneeded
	else
		if setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups unshare -U true 2>/dev/null; then want=available; else want=missing; fi
		check "[plain nobody] user-namespace: $want, as unshare -U says" is "$(wall "$js" user-namespace state)" "$want"
		# No user has CAP_BPF and CAP_PERFMON here.
		check "[plain nobody] bpf: missing" is "$(wall "$js" bpf state)" missing
		check "[plain nobody] bpf: the raise names the capabilities" has "$(wall "$js" bpf raise)" "CAP_BPF and CAP_PERFMON"
	fi
	# The cgroup against a launch with a tree-wide limit.
	inenv plain $u "$T/bin/heel" run --max-processes 50 -- sh -c 'echo ran'
	if [ "$(wall "$js" cgroup state)" = available ]; then
		check "[plain $u] cgroup available: a tree-wide limit runs" is "$rc" 0
	else
		check "[plain $u] cgroup missing: a tree-wide limit is refused (125)" is "$rc" 125
		check "[plain $u] ... naming per-process limits" txt_has "$T/err" "per process only"
		check "[plain $u] cgroup: the raise names delegation or root" has "$(wall "$js" cgroup raise)" "Delegate=yes"
	fi
	check "[plain $u] host: the facts" is "$(j "$js" computed.host_names)" \
		"apparmor-userns-restriction,container,no-new-privs,proc-masks,seccomp-filter"
	check "[plain $u] host: no filter stacked" is "$(j "$js" host.seccomp-filter)" none
done

# ------------------------------------------------------ a masked /proc
# A user namespace may not mount a /proc over the masks; root may.
doctor masked nobody
common masked nobody
effects masked nobody 1 3
t=$T/masked-nobody.txt js=$T/masked-nobody.json
check "[masked nobody] private-proc: missing" is "$(wall "$js" private-proc state)" missing
check "[masked nobody] ... because of the masked paths" has "$(wall "$js" private-proc detail)" "/proc has masked paths"
check "[masked nobody] ... raised by systempaths=unconfined" has "$(wall "$js" private-proc raise)" "--security-opt systempaths=unconfined"
check "[masked nobody] host: the masks listed" has "$(j "$js" host.proc-masks)" "/proc/sys"
check "[masked nobody] JSON: nothing runs fully" is "$(j "$js" runs_fully)" 0
check "[masked nobody] JSON: verdict" is "$(j "$js" verdict)" "nothing can run fully here"
check "[masked nobody] JSON: why names the masks" has "$(j "$js" why)" "whose /proc has masked paths"
check "[masked nobody] text: nothing can run fully, and why" txt_line "$t" '^verdict: nothing can run fully here: .*masked paths'
check "[masked nobody] text: the way out" txt_line "$t" '^  missing private-proc: raise it: .*systempaths=unconfined'
doctor masked root
common masked root
effects masked root 1 3
js=$T/masked-root.json
check "[masked root] control: private-proc available" is "$(wall "$js" private-proc state)" available
check "[masked root] control: the default policy runs fully" is "$(j "$js" policies.1.runs_fully)" True

# ------------------------------ no namespaces: Docker's default profile
for u in nobody root; do
	doctor docker $u
	common docker $u
	effects docker $u 1 3
	t=$T/docker-$u.txt js=$T/docker-$u.json
	for w in pid-namespace mount-namespace network-namespace private-proc; do
		check "[docker $u] $w: missing" is "$(wall "$js" $w state)" missing
	done
	if [ $u = nobody ]; then
		check "[docker nobody] user-namespace: missing" is "$(wall "$js" user-namespace state)" missing
		check "[docker nobody] ... the seccomp filter named" has "$(wall "$js" user-namespace detail)" "seccomp filter refuses namespaces"
		check "[docker nobody] ... raised by seccomp=unconfined" has "$(wall "$js" user-namespace raise)" "--security-opt seccomp=unconfined"
	else
		check "[docker root] user-namespace: unneeded" is "$(wall "$js" user-namespace state)" unneeded
		check "[docker root] pid-namespace: raised by --cap-add SYS_ADMIN" has "$(wall "$js" pid-namespace raise)" "--cap-add SYS_ADMIN"
	fi
	check "[docker $u] host: a filter stacked" has "$(j "$js" host.seccomp-filter)" stacked
	check "[docker $u] JSON: nothing runs fully" is "$(j "$js" runs_fully)" 0
	check "[docker $u] JSON: why" has "$(j "$js" why)" "cannot create the sandbox's namespaces"
	check "[docker $u] JSON: --best-effort would run" has "$(j "$js" policies.1.best_effort)" "with --best-effort: it would run"
	check "[docker $u] text: nothing can run fully, and why" \
		txt_line "$t" "^verdict: nothing can run fully here: .*seccomp filter refuses new namespaces"
	check "[docker $u] text: each missing namespace's way out" txt_line "$t" '^  missing pid-namespace: raise it: start the container with'
	check "[docker $u] text: the other policies refer to the first" txt_line "$t" '^  preset git +does not run fully: as isolation strict$'
done

# --------------------------------------------------------- no Landlock
for u in nobody root; do
	doctor nolandlock $u
	common nolandlock $u
	effects nolandlock $u 1 3
	t=$T/nolandlock-$u.txt js=$T/nolandlock-$u.json
	check "[nolandlock $u] landlock: missing" is "$(wall "$js" landlock state)" missing
	check "[nolandlock $u] ... not supported (ENOSYS)" has "$(wall "$js" landlock detail)" "Landlock is not supported by the running kernel (Function not implemented)"
	check "[nolandlock $u] ... raised by a kernel with Landlock" has "$(wall "$js" landlock raise)" "CONFIG_SECURITY_LANDLOCK=y"
	check "[nolandlock $u] the namespaces stay available" is "$(wall "$js" pid-namespace state)" available
	check "[nolandlock $u] JSON: nothing runs fully" is "$(j "$js" runs_fully)" 0
	check "[nolandlock $u] JSON: why" has "$(j "$js" why)" "Landlock is not supported"
	check "[nolandlock $u] text: nothing can run fully, and why" txt_line "$t" '^verdict: nothing can run fully here: .*Landlock is not supported'
	check "[nolandlock $u] text: the way out" txt_line "$t" '^  missing landlock: raise it: boot Linux 5.13 or later'
done

# ------------------------------------------------- heel-exec check alone
inenv plain root "$T/bin/heel-exec" check
check "[heel-exec] check without a policy: a walls report" txt_line "$T/out" '^walls: '
check "[heel-exec] ... every wall a line" is "$(grep -c '^wall [a-z-]*: ' "$T/out")" 9
inenv plain root "$T/bin/heel" doctor --bogus
check "[heel doctor] an unknown argument: 125, named" bash -c "[ $rc = 125 ] && grep -q 'unknown argument .--bogus.' '$T/err'"

# heel-exec runs on the host only where no sandbox could have changed
# it: without a record of earlier runs (a HOME that does not exist) every
# place the user can change counts as written, and heel doctor refuses,
# as heel run does; the runs above, with a record, are the control.
(cd / && env -i PATH=/usr/bin:/bin HOME="$T/absent" "$T/bin/heel" doctor) >"$T/out" 2>"$T/err"
rc=$?
check "[heel doctor] heel-exec where a sandbox could have changed it: refused (125)" is "$rc" 125
check "[heel doctor] ... saying why" txt_has "$T/err" "heel runs nothing on the host that a sandbox could have changed"
check "[heel doctor] ... and no report" is "$(wc -c <"$T/out")" 0

echo "$pass passed, $failed failed, $skipped skipped"
[ $failed = 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke test of heel-exec.exe under Wine (make check-windows), in a Wine
# prefix of its own under build/.
#
# What Wine exercises: the mingw build runs; the artifact is read and
# validated by the same reader as on Linux, and a tampered one refused;
# the Windows part is decoded, paths expanded, denies judged reachable or
# not (`check`); a policy is refused, with exit 125 and a message, when
# the system has no AppContainer functions (Wine 8 exports none), so the
# command never runs unsandboxed (and, without --workdir, before a fresh
# working directory is made); the fresh working directory is made and
# removed by heel-exec.exe's own code (wintest fresh); the policy's
# workdir is the working directory `check` plans; the same policy
# compiled elsewhere gets the same container; a proxied policy is refused by name;
# the job's kill-on-close ends a child and its grandchild; the journal of
# a dead run is reverted by --recover and a live run's is left alone.
#
# What Wine does NOT exercise: AppContainer itself (no lowbox token, no
# isolation: Wine has neither the functions nor the token), ACLs (Wine
# keeps no DACL it is given: SetNamedSecurityInfoW reports success and
# the file's ACL stays synthesised from its mode bits, so the reverts
# --recover does here change nothing), mandatory labels, the job's memory
# and process limits and its priority class (accepted, not enforced),
# the CPU rate (refused by Wine). Those rules are unit-tested on Linux
# (tests/unit/test_win_acl.c, test_win_plan.c, test_win_journal.c) and
# need a real Windows to be seen working.
set -u

: "${HEELC:?}" "${HEEL_EXEC_EXE:?}" "${WINTEST:?}" "${WINEPREFIX:?}"
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="winemenubuilder.exe,mscoree,mshtml="
# Debian's wine64 package installs the loader outside PATH.
WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver)
[ -x "$WINE" ] || { echo "smoke: wine64 not found (apt-get install wine64)" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
HEEL_EXEC_EXE=$(readlink -f "$HEEL_EXEC_EXE")
WINTEST=$(readlink -f "$WINTEST")
WORK=$(dirname "$WINEPREFIX")/smoke
rm -rf "$WORK"
mkdir -p "$WORK"
trap '"$WINESERVER" -k >/dev/null 2>&1' EXIT

pass=0
fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
# A Linux path as Wine's Z: drive sees it.
winpath() { local p; p=$(readlink -f "$1"); echo "Z:${p//\//\\}"; }
# wine with a time limit: nothing here may hang the suite.
w() { timeout 90 "$WINE" "$@"; }

if [ ! -f "$WINEPREFIX/system.reg" ]; then
	echo "smoke: making the Wine prefix $WINEPREFIX"
	mkdir -p "$WINEPREFIX"
	timeout 300 "$WINE" wineboot -i >"$WORK/wineboot.log" 2>&1 ||
		{ cat "$WORK/wineboot.log"; echo "smoke: wineboot failed" >&2; exit 1; }
fi
C="$WINEPREFIX/drive_c"
rm -rf "$C/heeltest"
mkdir -p "$C/heeltest/tools" "$C/heeltest/data/secret" 
EXE=$(winpath "$HEEL_EXEC_EXE")

# 1. --version
out=$(w "$HEEL_EXEC_EXE" --version 2>&1 | tr -d '\r')
[ "$out" = "heel-exec.exe 0.1.0 (windows)" ] && ok "--version" || bad "--version printed: $out"

# 2. check: the container name comes from the policy's digest, the SID
# from the name (derived here independently of heelc: SHA-256 over the
# UTF-16LE of the lower-cased name, the first seven little-endian words).
"$HEELC" "$HERE/smoke.heel" --target windows -o "$WORK/smoke.hpol" || { bad "heelc smoke.heel"; exit 1; }
digest=$("$HEELC" explain --json --target windows "$WORK/smoke.hpol" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["source_digest"])')
name="heel.p.${digest:0:16}"
sid=$(python3 -c '
import hashlib, struct, sys
h = hashlib.sha256(sys.argv[1].lower().encode("utf-16-le")).digest()
print("S-1-15-2-" + "-".join(str(x) for x in struct.unpack("<7I", h[:28])))' "$name")
# The vector the derivation is known by (Edge's SID): the check of the
# check.
edge=$(python3 -c '
import hashlib, struct
h = hashlib.sha256("microsoft.microsoftedge_8wekyb3d8bbwe".encode("utf-16-le")).digest()
print("S-1-15-2-" + "-".join(str(x) for x in struct.unpack("<7I", h[:28])))')
[ "$edge" = "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-737981194" ] ||
	bad "SID derivation vector: $edge"
(cd "$C/heeltest" && w "$HEEL_EXEC_EXE" check "$(winpath "$WORK/smoke.hpol")") >"$WORK/check.raw" 2>"$WORK/check.err"
rc=$?
tr -d '\r' <"$WORK/check.raw" >"$WORK/check.out"
[ $rc -eq 0 ] && ok "check exits 0" || { bad "check exit $rc"; cat "$WORK/check.err"; }
grep -qx "container $name" "$WORK/check.out" && ok "check: container $name" || bad "check: no 'container $name'"
grep -qx "sid $sid" "$WORK/check.out" && ok "check: SID $sid" || bad "check: no 'sid $sid'"
for want in \
	'entry allow 0x1200a9 rx C:\heeltest\tools' \
	'entry allow 0x120089 r C:\heeltest\data' \
	'entry deny 0x40 deny-delete-child C:\heeltest\data' \
	'entry deny 0x1017f deny if-present C:\heeltest\data\secret'; do
	grep -qxF "$want" "$WORK/check.out" && ok "check: $want" || bad "check: no '$want'"
done
grep -qF 'unreachable deny C:\outside\elsewhere (smoke.heel:11)' "$WORK/check.out" &&
	ok "check: a deny outside every grant is reported unreachable" || bad "check: elsewhere not unreachable"
# ${CWD} (a relative path or the working directory) is where check ran.
grep -qxF 'entry allow 0x1301df rw low C:\heeltest' "$WORK/check.out" &&
	ok "check: the working directory is the current one, rw with a Low label" ||
	bad "check: no rw entry for C:\\heeltest"
# The same entries as heelc's own rendering of the manifest.
if "$HEELC" emit acl "$WORK/smoke.hpol" >"$WORK/acl.json" 2>/dev/null; then
	if python3 - "$WORK/acl.json" "$name" "$sid" "$WORK/check.out" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
box = m.get("appcontainer", {})
if box.get("name") != sys.argv[2] or box.get("sid") != sys.argv[3]:
    sys.exit("emit acl: container %s %s" % (box.get("name"), box.get("sid")))
# Every entry of the policy's own on C:/heeltest is in check's output
# with the same kind and mask, its path normalised.
lines = open(sys.argv[4]).read().splitlines()
n = 0
for e in m["entries"]:
    path = e["path"].replace("/", "\\")
    if not path.startswith("C:\\heeltest"):
        continue
    want = "entry %s 0x%x " % (e["ace"], int(e["mask"], 16))
    if not any(l.startswith(want) and l.endswith(" " + path) for l in lines):
        sys.exit("check lacks %s... %s" % (want, path))
    n += 1
sys.exit(0 if n == 3 else "emit acl: %d entries on C:/heeltest, expected 3" % n)
EOF
	then ok "check agrees with heelc emit acl"; else bad "check and heelc emit acl disagree"; fi
else
	bad "heelc emit acl failed"
fi

# 2b. The container belongs to the policy, not to where or by whom it was
# compiled: the same source under another name in another directory (a
# second user's checkout) gets the same container; one changed line
# another.
container_of() { "$HEELC" emit acl "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["appcontainer"]["name"])'; }
mkdir -p "$WORK/other/user"
cp "$HERE/smoke.heel" "$WORK/other/user/renamed.heel"
heelc_abs=$(readlink -f "$HEELC")
(cd "$WORK/other" && "$heelc_abs" user/renamed.heel --target windows -o "$WORK/renamed.hpol") &&
	[ "$(container_of "$WORK/renamed.hpol")" = "$name" ] &&
	ok "the same policy elsewhere, under another name: the same container $name" ||
	bad "the same policy elsewhere got container $(container_of "$WORK/renamed.hpol"), not $name"
{ cat "$HERE/smoke.heel"; printf 'on windows {\n    grant "C:/heeltest/more" r\n}\n'; } >"$WORK/other/user/changed.heel"
"$HEELC" "$WORK/other/user/changed.heel" --target windows -o "$WORK/changed.hpol" &&
	other=$(container_of "$WORK/changed.hpol") && [ -n "$other" ] && [ "$other" != "$name" ] &&
	ok "a changed policy: another container ($other)" || bad "a changed policy kept container $name"

# 3. A tampered artifact is refused (one byte flipped past the header).
cp "$WORK/smoke.hpol" "$WORK/tampered.hpol"
python3 - "$WORK/tampered.hpol" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xff
open(p, "wb").write(b)
EOF
w "$HEEL_EXEC_EXE" check "$(winpath "$WORK/tampered.hpol")" >/dev/null 2>"$WORK/tampered.err"
rc=$?
[ $rc -eq 125 ] && grep -q '^heel-exec: ' "$WORK/tampered.err" && ok "tampered artifact refused (125: $(head -c 120 "$WORK/tampered.err"))" ||
	bad "tampered artifact: exit $rc, $(cat "$WORK/tampered.err")"

# 4. Fail closed: no AppContainer functions, no run. The command would
# make a directory; the control shows it does when run without heel.
rm -rf "$C/heeltest/ran"
# Without --workdir a run gets a fresh working directory, but only once
# the AppContainer functions are there: under Wine it is refused before
# anything is made (no heel-XXXXXXXX left in the user's temp).
fresh_dirs() { ls -d "$C"/users/*/AppData/Local/Temp/heel-* "$C"/users/*/Temp/heel-* 2>/dev/null | wc -l; }
before=$(fresh_dirs)
w "$HEEL_EXEC_EXE" "$(winpath "$WORK/smoke.hpol")" -- cmd /c mkdir 'C:\heeltest\ran' >/dev/null 2>"$WORK/nowd.err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'no AppContainers' "$WORK/nowd.err" &&
	! grep -q -- '--workdir' "$WORK/nowd.err" && [ ! -e "$C/heeltest/ran" ] &&
	[ "$(fresh_dirs)" = "$before" ]; then
	ok "run without --workdir: no longer asks for it; refused for want of AppContainers (125) before a fresh directory was made"
else
	bad "run without --workdir: exit $rc, $(cat "$WORK/nowd.err"), fresh dirs $before -> $(fresh_dirs)"
fi
# The fresh directory itself, by heel-exec.exe's own code: made in
# %TEMP% with tmp (TEMP, TMP) inside, removed with what was left in it.
if w "$WINTEST" fresh >"$WORK/fresh.out" 2>&1 && grep -q 'removed with what was left' "$WORK/fresh.out" &&
	[ "$(fresh_dirs)" = "$before" ]; then
	ok "fresh working directory made in %TEMP% with tmp inside, removed at the end ($(head -1 "$WORK/fresh.out" | tr -d '\r'))"
else
	bad "fresh working directory: $(tr -d '\r' <"$WORK/fresh.out")"
fi
# The policy's workdir is the working directory (check shows its entry),
# not the current one.
printf 'heel 1\nisolation strict\non windows {\n    workdir "C:/heeltest/pwd"\n}\n' >"$WORK/pwd.heel"
mkdir -p "$C/heeltest/pwd"
if "$HEELC" "$WORK/pwd.heel" --target windows -o "$WORK/pwd.hpol" &&
	(cd "$C/heeltest" && w "$HEEL_EXEC_EXE" check "$(winpath "$WORK/pwd.hpol")") 2>&1 | tr -d '\r' >"$WORK/pwd.out" &&
	grep -qxF 'entry allow 0x1301df rw low C:\heeltest\pwd' "$WORK/pwd.out" &&
	! grep -qxF 'entry allow 0x1301df rw low C:\heeltest' "$WORK/pwd.out"; then
	ok "the policy's workdir is the working directory (rw, Low), not the current one"
else
	bad "policy workdir: $(cat "$WORK/pwd.out")"
fi
mkdir -p "$C/heeltest/work"
w "$HEEL_EXEC_EXE" --workdir 'C:\heeltest\work' "$(winpath "$WORK/smoke.hpol")" -- cmd /c mkdir 'C:\heeltest\ran' >/dev/null 2>"$WORK/run.err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'no AppContainers (userenv.dll lacks CreateAppContainerProfile' "$WORK/run.err" &&
	[ ! -e "$C/heeltest/ran" ]; then
	ok "run without AppContainer functions refused (125), the command never ran"
else
	bad "run under Wine: exit $rc, $(cat "$WORK/run.err"), ran=$([ -e "$C/heeltest/ran" ] && echo yes || echo no)"
fi
w cmd /c mkdir 'C:\heeltest\ran' >/dev/null 2>&1
[ -d "$C/heeltest/ran" ] && ok "control: the same command makes its directory when run directly" ||
	bad "control: cmd /c mkdir did nothing"
# Nothing was journalled or changed for the refused run.
ls "$C"/users/*/AppData/Local/heel/journal/*.journal >/dev/null 2>&1 &&
	bad "a refused run left a journal" || ok "a refused run left no journal"

# 5. A proxied policy is refused by name.
"$HEELC" "$HERE/proxied.heel" --target windows -o "$WORK/proxied.hpol" || bad "heelc proxied.heel"
w "$HEEL_EXEC_EXE" "$(winpath "$WORK/proxied.hpol")" -- cmd /c echo hi >/dev/null 2>"$WORK/proxied.err"
rc=$?
[ $rc -eq 125 ] && grep -q 'heel-proxy, which does not run on Windows yet' "$WORK/proxied.err" &&
	grep -q 'loopback exemption' "$WORK/proxied.err" && ok "proxied policy refused naming heel-proxy and the loopback exemption" ||
	bad "proxied policy: exit $rc, $(cat "$WORK/proxied.err")"

# 5b. An artifact without a Windows part is refused, saying why heelc
# left it out.
printf 'heel 1\nisolation permissive\n' >"$WORK/permissive.heel"
"$HEELC" "$WORK/permissive.heel" -o "$WORK/permissive.hpol" 2>/dev/null || bad "heelc permissive.heel"
w "$HEEL_EXEC_EXE" "$(winpath "$WORK/permissive.hpol")" -- cmd /c echo hi >/dev/null 2>"$WORK/permissive.err"
rc=$?
[ $rc -eq 125 ] && grep -q 'heelc left Windows out: permissive cannot be enforced' "$WORK/permissive.err" &&
	ok "an artifact heelc left Windows out of is refused with heelc's reason" ||
	bad "permissive artifact: exit $rc, $(cat "$WORK/permissive.err")"
"$HEELC" "$HERE/smoke.heel" --target linux -o "$WORK/linux.hpol" || bad "heelc --target linux"
w "$HEEL_EXEC_EXE" check "$(winpath "$WORK/linux.hpol")" >/dev/null 2>"$WORK/linux.err"
rc=$?
[ $rc -eq 125 ] && grep -q 'not built for windows' "$WORK/linux.err" &&
	ok "an artifact built for linux only is refused" || bad "linux-only artifact: exit $rc, $(cat "$WORK/linux.err")"

# 6. The job: closing its handle ends child and grandchild; the control,
# a job without KILL_ON_JOB_CLOSE, leaves both running.
out=$(w "$WINTEST" job 2>&1)
rc=$?
[ $rc -eq 0 ] && ok "kill-on-close: $out" || bad "kill-on-close: exit $rc, $out"
out=$(w "$WINTEST" job nokill 2>&1)
rc=$?
[ $rc -eq 0 ] && ok "control: $out" || bad "control without kill-on-close: exit $rc, $out"

# 7. --recover: a dead run's journal is reverted and removed; a live
# run's is left alone.
jdir=$(ls -d "$C"/users/*/AppData/Local 2>/dev/null | head -1)/heel/journal
mkdir -p "$C/heeltest/data"
jwin=$(w "$WINTEST" journal-dead S-1-15-2-1-2-3-4-5-6-7 'C:\heeltest\data' 'C:\heeltest\tools' 2>"$WORK/jd.err" | tr -d '\r')
jfile="$jdir/$(basename "${jwin//\\//}")"
if [ -f "$jfile" ] && grep -q '^[0-9a-f]\{8\} applied 1$' "$jfile"; then
	ok "a dead run's journal is on disk with two applied entries"
else
	bad "journal-dead: $jwin $(cat "$WORK/jd.err")"
fi
out=$(w "$HEEL_EXEC_EXE" --recover 2>&1 | tr -d '\r')
rc=$?
if [ $rc -eq 0 ] && grep -q '1 dead run recovered, 2 entries reverted' <<<"$out" && [ ! -e "$jfile" ]; then
	ok "--recover reverted the dead run's entries and removed its journal"
else
	bad "--recover: exit $rc, $out"
fi
out=$(w "$WINTEST" journal-live S-1-15-2-1-2-3-4-5-6-7 'C:\heeltest\data' "$EXE" --recover 2>&1 | tr -d '\r')
rc=$?
[ $rc -eq 0 ] && ok "control: --recover leaves a live run's journal ($out)" || bad "journal-live: exit $rc, $out"

"$WINESERVER" -k >/dev/null 2>&1
echo "windows smoke as uid $(id -u):"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

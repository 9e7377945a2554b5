#!/bin/bash
# SPDX-License-Identifier: MIT
# The host side's escape suite: nothing a sandbox can write steers the
# host, across runs, through heel's helpers and conveniences (heel(5),
# WHAT PERSISTS BETWEEN RUNS). Each case makes the attack for real in one
# run (the sandbox rewrites a program, plants a link, leaves a pip.py)
# and checks its effect on the host in the next: the planted code never
# ran (its marker file is absent), the file it aimed at is unchanged, the
# launch was refused with a message that says why. Every spelling of the
# writable place is tried (absolute, ${CWD}, relative, through a link,
# through `isolation permissive`), and the run after is made both with
# the same policy and with another one that grants nothing (so only the
# record of earlier runs can know). Each case has its controls: the
# attack really took place (the rewritten file is there), the planted
# code does run when the host runs it by hand (so the test can fail),
# and the same feature works where nothing was planted. As root and as
# uid 65534, each with a home of its own.
#
# Usage: tests/hostside/run.sh BUILD_DIR [CASE-GLOB]
# Prints one line per case and "N passed, N failed, N skipped"; exits 1
# on a failure.
set -u

B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
ONLY=${2:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
NOBODY=65534
npass=0 nfail=0 nskip=0

for f in heelc heel heel-exec heel-proxy heel-broker heel-ipc; do
	[ -x "$B/bin/$f" ] || { echo "missing $B/bin/$f: build it first (make all)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
	echo "the host-side suite runs as root (it also runs each case as uid $NOBODY)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

T=$(mktemp -d /tmp/heel-hostside.XXXXXX) || exit 1
chmod 755 "$T"
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# heel's programs where both users can run them and neither can change
# them (root's directory, mode 755).
mkdir -p "$T/bin"
cp "$B/bin/heelc" "$B/bin/heel" "$B/bin/heel-exec" "$B/bin/heel-proxy" "$B/bin/heel-broker" \
	"$B/bin/heel-ipc" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
HEELC=$T/bin/heelc
HX=$T/bin/heel-exec
HEEL=$T/bin/heel

# ---------------------------------------------------------------- output
U=root PROB="" SKIPR="" CASE=""
begin() { PROB=""; SKIPR=""; CASE=$1; }
prob() { PROB="${PROB:+$PROB; }$*"; }
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

# --------------------------------------------------------------- running
# Each user's tree: D (owned by the user), its home H, the project P
# (the launch directory), marks M (where planted code leaves its mark).
set_user() {
	U=$1
	if [ "$U" = root ]; then PRE=(); else PRE=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups); fi
	D=$T/u-$U
	H=$D/home
	P=$D/proj
	M=$D/marks
	LEDGER=$H/.local/state/heel/writable-places
}
fresh_tree() {
	rm -rf "$D"
	mkdir -p "$H" "$P/tools" "$M" "$D/pol" "$D/logs" "$D/outside"
	echo 'echo my-own-rc' >"$H/.bashrc"
	[ "$U" = root ] || chown -R $NOBODY:$NOBODY "$D"
	chmod 755 "$D"
}
# The record of earlier runs, gone: the user says they checked.
forget() { rm -f "$LEDGER"; }

# as CMD...: as the user, in the project, with a small clean environment;
# as_in DIR CMD...: the same, started in DIR.
as_in() {
	local dir=$1
	shift
	(cd "$dir" && "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}
as() { as_in "$P" "$@"; }
# pol NAME TEXT: compiles $D/pol/NAME.hpol (the heel 1 line added).
pol() {
	printf 'heel 1\n%s\n' "$2" >"$D/pol/$1.heel"
	if ! "$HEELC" "$D/pol/$1.heel" -o "$D/pol/$1.hpol" >"$D/pol/$1.log" 2>&1; then
		return 1
	fi
	[ "$U" = root ] || chown $NOBODY "$D/pol/$1.hpol"
	return 0
}
# run NAME CMD...: heel-exec NAME.hpol -- CMD as the user. OUT (both
# streams), RC.
run() {
	local name=$1
	shift
	OUT=$(as timeout 60 "$HX" "$D/pol/$name.hpol" -- "$@" 2>&1 </dev/null)
	RC=$?
}
refused() { # WHAT: the last run was refused by the host side's check.
	[ "$RC" = 125 ] || { prob "$1: exit $RC, expected 125 (refused): $(head -c 400 <<<"$OUT")"; return 1; }
	grep -q "${2:-heel runs nothing on the host that a sandbox could have changed}" <<<"$OUT" ||
		{ prob "$1: refused, but not saying why: $(head -c 400 <<<"$OUT")"; return 1; }
	return 0
}
no_mark() { [ ! -e "$M/$1" ] || { prob "$2: the planted code ran on the host ($M/$1)"; rm -f "$M/$1"; }; }
owned() { [ "$U" = root ] || chown -R $NOBODY:$NOBODY "$@"; }
selected() { [[ $1 == $ONLY ]]; }

# A program that leaves mark $1 when the host runs it; file $2.
plant_prog() { printf '#!/bin/sh\ntouch %s/%s\necho ran-%s\n' "$M" "$1" "$1" >"$2"; chmod 755 "$2"; }
clean_prog() { printf '#!/bin/sh\necho clean\n' >"$1"; chmod 755 "$1"; }

# The spellings of one writable place, $P/tools, and the program path
# the policy then names. permissive: the isolation base makes it writable.
spell_grant() {
	case $1 in
	abs) echo "grant \"$P/tools\" rw" ;;
	cwd) echo 'grant "${CWD}/tools" rw' ;;
	rel) echo 'grant "tools" rw' ;;
	link) echo "grant \"$P/tools\" rw" ;;
	permissive) echo "isolation permissive" ;;
	esac
}
spell_prog() { # the path the policy names for the program in $P/tools
	if [ "$1" = link ]; then echo "$D/linked/$2"; else echo "$P/tools/$2"; fi
}
setup_link() { mkdir -p "$D/linked"; ln -sfn "$P/tools/$1" "$D/linked/$1"; owned "$D/linked"; }
SPELLINGS="abs cwd rel link permissive"

# --------------------------------------------------------------- cases
# 1, 3. A host command's program in a place the sandbox writes: run 1
# rewrites it; run 2 with the same policy and run 3 with a policy that
# grants nothing must not run it.
case_ipc_program() {
	local s prog
	for s in $SPELLINGS; do
		fresh_tree
		clean_prog "$P/tools/tool"
		owned "$P/tools"
		setup_link tool
		prog=$(spell_prog "$s" tool)
		pol attack "$(spell_grant "$s")" || { prob "$s: attack policy: $(cat "$D/pol/attack.log")"; continue; }
		plant_prog hostran "$D/evil"
		run attack sh -c "cat $D/evil >$P/tools/tool"
		grep -q hostran "$P/tools/tool" || { prob "$s: the attack did not land (exit $RC): $OUT"; continue; }
		if pol same "$(spell_grant "$s")
ipc \"tool\" { exec \"$prog\" }"; then
			run same sh -c 'tool; echo after'
			refused "$s, same policy"
			OUT=$(as "$HEEL" run --policy "$D/pol/same.heel" -- sh -c 'tool; echo after' 2>&1) RC=$?
			refused "$s, heel run --policy"
		elif ! grep -q "could replace\|sandbox could" "$D/pol/same.log"; then
			prob "$s: heelc refused the policy for another reason: $(cat "$D/pol/same.log")"
		fi
		pol other "ipc \"tool\" { exec \"$prog\" }" || { prob "$s: $(cat "$D/pol/other.log")"; continue; }
		run other sh -c 'tool; echo after'
		refused "$s, another policy after the attack" "an earlier run"
		no_mark hostran "$s"
		# Controls: the planted program does leave its mark when the
		# host runs it; the command works once nothing was planted.
		as "$P/tools/tool" >/dev/null 2>&1
		[ -e "$M/hostran" ] || prob "$s: control: the planted program leaves no mark by hand"
		rm -f "$M/hostran"
		forget
		clean_prog "$P/tools/tool"
		run other sh -c 'tool'
		[ "$RC" = 0 ] && grep -qx clean <<<"$OUT" || prob "$s: control: the command on a clean program: exit $RC: $OUT"
	done
}

# 2. The network decider, the same way: run 1 rewrites it to allow
# everything; the proxy of a later run must not start it.
case_decider() {
	local s prog
	for s in $SPELLINGS; do
		fresh_tree
		printf '#!/bin/sh\ntouch %s/decider-clean\nexec cat >/dev/null\n' "$M" >"$P/tools/decide"
		chmod 755 "$P/tools/decide"
		owned "$P/tools"
		setup_link decide
		prog=$(spell_prog "$s" decide)
		pol attack "$(spell_grant "$s")" || { prob "$s: attack policy: $(cat "$D/pol/attack.log")"; continue; }
		printf '#!/bin/sh\ntouch %s/decider-evil\nwhile read l; do echo '"'"'{"allow":true}'"'"'; done\n' "$M" >"$D/evil"
		run attack sh -c "cat $D/evil >$P/tools/decide"
		grep -q decider-evil "$P/tools/decide" || { prob "$s: the attack did not land (exit $RC): $OUT"; continue; }
		if pol same "$(spell_grant "$s")
network allow { \"example.com\" }
network decide \"$prog\""; then
			run same true
			refused "$s, same policy"
		elif ! grep -q "could replace the program that decides" "$D/pol/same.log"; then
			prob "$s: heelc refused the policy for another reason: $(cat "$D/pol/same.log")"
		fi
		pol other "network allow { \"example.com\" }
network decide \"$prog\"" || { prob "$s: $(cat "$D/pol/other.log")"; continue; }
		run other true
		refused "$s, another policy after the attack" "an earlier run"
		no_mark decider-evil "$s"
		# Control: a clean decider is started by the proxy of a run.
		forget
		printf '#!/bin/sh\ntouch %s/decider-clean\nexec cat >/dev/null\n' "$M" >"$P/tools/decide"
		# (It starts with the proxy; the sandbox waits to see its mark.)
		run other sh -c "for i in \$(seq 100); do [ -e $M/decider-clean ] && exit 0; sleep 0.1; done; exit 3"
		[ "$RC" = 0 ] || prob "$s: control: a clean decider: exit $RC: $OUT"
		[ -e "$M/decider-clean" ] || prob "$s: control: the proxy did not start the clean decider"
		rm -f "$M/decider-clean"
	done
}

# 4, 5. The audit sink: run 1, which may write the sink's directory,
# replaces the file with a link (or a second name) to ~/.bashrc; the
# proxy of run 2 must not append to it. The sink where the sandbox of
# the same run writes is refused (the sandbox would rewrite its own
# record), through heel run too.
case_audit_sink() {
	local s sink before
	for s in abs cwd rel link; do
		fresh_tree
		case $s in
		abs) sink="$D/logs/audit.jsonl" ;;
		cwd) sink='${CWD}/logs/audit.jsonl' ;;
		rel) sink='logs/audit.jsonl' ;;
		link) sink="$D/loglink/audit.jsonl"; ln -s "$D/logs" "$D/loglink" ;;
		esac
		mkdir -p "$P/logs"
		owned "$P/logs"
		local dir=$D/logs
		[ "$s" = abs ] || [ "$s" = link ] || dir=$P/logs
		pol attack "grant \"$dir\" rw" || { prob "$s: $(cat "$D/pol/attack.log")"; continue; }
		run attack sh -c "ln -s $H/.bashrc $dir/audit.jsonl"
		[ -L "$dir/audit.jsonl" ] || { prob "$s: the attack did not land (exit $RC): $OUT"; continue; }
		before=$(cat "$H/.bashrc")
		pol sink "network allow { \"example.com\" }
network audit \"$sink\"" || { prob "$s: $(cat "$D/pol/sink.log")"; continue; }
		run sink true
		[ "$RC" = 125 ] && grep -q "symbolic link" <<<"$OUT" || prob "$s: a planted link: exit $RC: $OUT"
		[ "$(cat "$H/.bashrc")" = "$before" ] || prob "$s: ~/.bashrc changed"
		# The same run may not write the sink: refused at compile time
		# where heelc can tell, at launch always.
		rm -f "$dir/audit.jsonl"
		if pol selfsink "grant \"$dir\" rw
network allow { \"example.com\" }
network audit \"$sink\""; then
			run selfsink true
			refused "$s, a sink the sandbox writes" "put it where the sandbox cannot write"
		fi
		[ ! -e "$dir/audit.jsonl" ] || prob "$s: the refused launch made the sink"
		# Control: nothing planted, the run works and the sink is made.
		forget
		run sink true
		[ "$RC" = 0 ] || prob "$s: control: exit $RC: $OUT"
		[ -f "$dir/audit.jsonl" ] && [ ! -L "$dir/audit.jsonl" ] || prob "$s: control: no audit file made"
	done
	# A second name: a sandbox cannot link a file of another directory
	# (Landlock refuses a link that would gain rights: EXDEV), but it can
	# give a file of its own writable place a second name there: the
	# audit file is then any file's other name.
	fresh_tree
	pol attack "grant \"$D/logs\" rw" || { prob "hard link: $(cat "$D/pol/attack.log")"; return; }
	run attack sh -c "echo mine >$D/logs/keep && ln $D/logs/keep $D/logs/audit.jsonl"
	if [ "$(stat -c %h "$D/logs/keep" 2>/dev/null)" = 2 ]; then
		pol sink "network allow { \"example.com\" }
network audit \"$D/logs/audit.jsonl\"" || prob "hard link: $(cat "$D/pol/sink.log")"
		forget
		run sink true
		[ "$RC" = 125 ] && grep -q "more than one name" <<<"$OUT" || prob "hard link: exit $RC: $OUT"
		[ "$(cat "$D/logs/keep")" = mine ] || prob "hard link: the file it names changed"
	else
		prob "hard link: the attack did not land (exit $RC): $OUT"
	fi
	# heel run: the sandbox's own writable directory, and permissive.
	fresh_tree
	# (heelc refuses it where it can tell, heel-exec at launch always.)
	local sink_msg="put it where the sandbox cannot write\|which the sandbox can write"
	OUT=$(as "$HEEL" run --writable . --network allow-all --audit-log ./run.jsonl -- true 2>&1) RC=$?
	refused "heel run --writable . --audit-log ./run.jsonl" "$sink_msg"
	[ ! -e "$P/run.jsonl" ] || prob "heel run --writable .: the refused run made the sink"
	OUT=$(as "$HEEL" run --isolation permissive --network allow-all --audit-log "$D/logs/p.jsonl" -- true 2>&1) RC=$?
	refused "heel run --isolation permissive --audit-log" "$sink_msg"
	forget
	OUT=$(as "$HEEL" run --writable ./tools --network allow-all --audit-log ./run.jsonl -- true 2>&1) RC=$?
	[ "$RC" = 0 ] && [ -f "$P/run.jsonl" ] || prob "control: heel run --audit-log outside the writable place: exit $RC: $OUT"
}

# 8. A path named to heel run through a link an earlier run planted:
# run 1 (--writable ./build) leaves build/cache -> ~/.ssh; run 2 must not
# grant ~/.ssh by naming ./build/cache (or a path beneath it).
case_named_link() {
	local spelled
	fresh_tree
	mkdir -p "$H/.ssh" "$P/build" "$D/real"
	echo KEY >"$H/.ssh/id_rsa"
	echo original >"$H/.ssh/authorized_keys"
	owned "$H/.ssh" "$P/build" "$D/real"
	OUT=$(as "$HEEL" run --writable ./build -- ln -s "$H/.ssh" build/cache 2>&1) RC=$?
	[ -L "$P/build/cache" ] || { prob "the attack did not land (exit $RC): $OUT"; return; }
	for spelled in ./build/cache build/cache "$P/build/cache" ./build/cache/sub ./build/../build/cache; do
		OUT=$(as "$HEEL" run --writable "$spelled" -- sh -c "cat build/cache/id_rsa; echo evil >>build/cache/authorized_keys" 2>&1) RC=$?
		refused "--writable $spelled" "crosses the symbolic link"
		OUT=$(as "$HEEL" run --readable "$spelled" -- cat build/cache/id_rsa 2>&1) RC=$?
		refused "--readable $spelled" "crosses the symbolic link"
		grep -q KEY <<<"$OUT" && prob "--readable $spelled: the key was printed"
	done
	[ "$(cat "$H/.ssh/authorized_keys")" = original ] || prob "authorized_keys changed"
	# Through permissive: a link planted anywhere the user can write.
	# (Started outside the project: the command's read grant of the
	# launch directory would keep it from writing there.)
	forget
	OUT=$(as_in "$D/outside" "$HEEL" run --isolation permissive -- ln -s "$H/.ssh" "$P/lnk" 2>&1) RC=$?
	[ -L "$P/lnk" ] || prob "permissive: the attack did not land (exit $RC): $OUT"
	OUT=$(as "$HEEL" run --writable ./lnk -- true 2>&1) RC=$?
	# As root, that run could change heel itself, which is refused first.
	if [ "$U" = root ]; then
		refused "permissive, then --writable ./lnk" "an earlier run"
	else
		refused "permissive, then --writable ./lnk" "crosses the symbolic link"
	fi
	# Control: a link the user made where no sandbox ever wrote.
	forget
	mkdir -p "$P/mine"
	ln -s "$D/real" "$P/mine/lnk"
	owned "$P/mine"
	OUT=$(as "$HEEL" run --writable ./mine/lnk -- sh -c 'echo ok >mine/lnk/f' 2>&1) RC=$?
	[ "$RC" = 0 ] && [ "$(cat "$D/real/f" 2>/dev/null)" = ok ] || prob "control: a link of the user's own: exit $RC: $OUT"
}

# The same for a kept working directory: run 1 plants proj/out ->
# ~/.ssh; run 2 names proj/out as its working directory (--workdir, or
# the policy's `workdir`), which heel-exec would follow and make writable.
case_workdir_link() {
	fresh_tree
	mkdir -p "$H/.ssh"
	echo original >"$H/.ssh/authorized_keys"
	owned "$H/.ssh"
	pol attack 'grant "${CWD}" rw' || { prob "$(cat "$D/pol/attack.log")"; return; }
	run attack ln -s "$H/.ssh" "$P/out"
	[ -L "$P/out" ] || { prob "the attack did not land (exit $RC): $OUT"; return; }
	pol plain 'isolation default' || { prob "$(cat "$D/pol/plain.log")"; return; }
	OUT=$(as "$HX" --workdir "$P/out" "$D/pol/plain.hpol" -- sh -c 'echo evil >>authorized_keys' 2>&1) RC=$?
	refused "--workdir through the link" "crosses the symbolic link"
	pol wd 'workdir "out"' || { prob "$(cat "$D/pol/wd.log")"; return; }
	run wd sh -c 'echo evil >>authorized_keys'
	refused "workdir \"out\" through the link" "crosses the symbolic link"
	[ "$(cat "$H/.ssh/authorized_keys")" = original ] || prob "authorized_keys changed"
	# Control: a kept working directory of the user's own is used.
	forget
	rm "$P/out"
	OUT=$(as "$HX" --workdir "$P/out" "$D/pol/plain.hpol" -- sh -c 'echo kept >k' 2>&1) RC=$?
	[ "$RC" = 0 ] && [ "$(cat "$P/out/k" 2>/dev/null)" = kept ] || prob "control: exit $RC: $OUT"
}

# 6. venv preparation: a venv.py or pip.py an earlier run left in the
# launch directory, PYTHONPATH and PYTHONSTARTUP in heel-exec's
# environment, a .pth in the user site directory: none runs when heel
# makes or completes a venv on the host.
case_venv_python() {
	local sp py=/usr/bin/python3 v
	[ -x $py ] && $py -c 'import venv, ensurepip' 2>/dev/null || { SKIPR="python3 with venv and ensurepip is needed"; return; }
	fresh_tree
	v=$D/venvs/v
	mkdir -p "$D/venvs"
	owned "$D/venvs"
	pol attack 'grant "${CWD}" rw' || { prob "$(cat "$D/pol/attack.log")"; return; }
	run attack sh -c "for m in venv pip ensurepip; do echo 'import os; open(\"$M/'\$m'\", \"w\")' >$P/\$m.py; done"
	[ -f "$P/venv.py" ] || { prob "the attack did not land (exit $RC): $OUT"; return; }
	sp=$(as $py -c 'import site; print(site.getusersitepackages())')
	mkdir -p "$sp"
	echo "import os; open('$M/pth', 'w')" >"$sp/evil.pth"
	owned "$H/.local"
	echo "import os; open('$M/startup', 'w')" >"$D/startup.py"
	pol venv "python { venv \"$v\"; }" || { prob "$(cat "$D/pol/venv.log")"; return; }
	forget
	OUT=$(cd "$P" && "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
		PYTHONPATH="$P" PYTHONSTARTUP="$D/startup.py" PYTHONUSERBASE="$H/.local" \
		timeout 120 "$HX" "$D/pol/venv.hpol" -- true 2>&1) RC=$?
	[ "$RC" = 0 ] || prob "the venv's launch: exit $RC: $OUT"
	[ -f "$v/pyvenv.cfg" ] || prob "no venv made"
	for m in venv pip ensurepip pth startup; do no_mark $m "python3 -m venv"; done
	# pip: the venv lacks a package, so its pip runs (and fails: there
	# is no index); a planted pip.py must not be what runs.
	pol venvpkg "python { venv \"$v\"; packages \"nothere\"; }" || { prob "$(cat "$D/pol/venvpkg.log")"; return; }
	OUT=$(cd "$P" && "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 PYTHONPATH="$P" \
		PIP_NO_INDEX=1 timeout 120 "$HX" "$D/pol/venvpkg.hpol" -- true 2>&1) RC=$?
	[ "$RC" = 125 ] || prob "pip without an index: exit $RC, expected 125: $OUT"
	for m in venv pip ensurepip pth startup; do no_mark $m "the venv's pip"; done
	# Controls: without isolation each of them does run.
	(cd "$P" && "${PRE[@]}" env -i PATH=/usr/bin:/bin HOME="$H" $py -m venv "$D/ctl" >/dev/null 2>&1)
	[ -e "$M/venv" ] || prob "control: a planted venv.py is not imported by python3 -m venv by hand"
	as $py -c pass
	[ -e "$M/pth" ] || prob "control: the planted .pth does not run at python3's start"
	rm -f "$M"/*
}

# The same venv, written by an earlier run that was allowed to: its pip
# is not run to complete it under a policy that forbids pip install.
case_venv_earlier() {
	local v pipmain py=/usr/bin/python3
	[ -x $py ] && $py -c 'import venv, ensurepip' 2>/dev/null || { SKIPR="python3 with venv and ensurepip is needed"; return; }
	fresh_tree
	v=$D/venvs/v
	mkdir -p "$D/venvs"
	owned "$D/venvs"
	pol yes "python { venv \"$v\"; allow-pip-install yes; }" || { prob "$(cat "$D/pol/yes.log")"; return; }
	run yes sh -c "f=\$(echo $v/lib/python3*/site-packages/pip/__main__.py); echo 'import os; open(\"$M/pip-main\", \"w\")' >\$f"
	pipmain=$(echo "$v"/lib/python3*/site-packages/pip/__main__.py)
	grep -q pip-main "$pipmain" 2>/dev/null || { prob "the attack did not land (exit $RC): $OUT"; return; }
	pol no "python { venv \"$v\"; packages \"nothere\"; }" || { prob "$(cat "$D/pol/no.log")"; return; }
	run no true
	refused "allow-pip-install yes, then no" "an earlier run"
	no_mark pip-main "the venv's pip"
	# Control: with the record removed, heel runs the venv's pip, and
	# the planted code with it.
	forget
	run no true
	[ -e "$M/pip-main" ] || prob "control: the planted pip did not run once the record was removed: exit $RC: $OUT"
	rm -f "$M"/*
}

# heel's own helpers beside heel-exec, in a place the sandbox writes.
case_helpers_beside() {
	local x
	fresh_tree
	mkdir -p "$D/hxw"
	cp "$HX" "$T/bin/heel-proxy" "$T/bin/heel-broker" "$T/bin/heel-ipc" "$D/hxw/"
	owned "$D/hxw"
	x=$D/hxw/heel-exec
	pol net "grant \"$D/hxw\" rw
network allow { \"example.com\" }" || { prob "$(cat "$D/pol/net.log")"; return; }
	OUT=$(as "$x" "$D/pol/net.hpol" -- true 2>&1) RC=$?
	refused "heel-proxy beside heel-exec"
	grep -q "heel-proxy:" <<<"$OUT" || prob "the refusal does not name heel-proxy: $OUT"
	pol ipc "grant \"$D/hxw\" rw
ipc \"t\" { exec \"/bin/true\" }" || { prob "$(cat "$D/pol/ipc.log")"; return; }
	OUT=$(as "$x" "$D/pol/ipc.hpol" -- true 2>&1) RC=$?
	refused "heel-broker beside heel-exec"
	# Control: the same copies, no grant, no record.
	forget
	pol plain 'network allow { "example.com" }' || { prob "$(cat "$D/pol/plain.log")"; return; }
	OUT=$(as "$x" "$D/pol/plain.hpol" -- true 2>&1) RC=$?
	[ "$RC" = 0 ] || prob "control: exit $RC: $OUT"
}

# `network audit "audit.jsonl"`: relative to the launch directory, as
# heel(5) PATHS says (it once failed with "${CWD} is not set").
case_audit_relative() {
	fresh_tree
	pol rel 'network allow { "example.com" }
network audit "audit.jsonl"' || { prob "$(cat "$D/pol/rel.log")"; return; }
	run rel true
	[ "$RC" = 0 ] || prob "exit $RC: $OUT"
	[ -f "$P/audit.jsonl" ] || prob "no $P/audit.jsonl"
}

# A launch refused for a reason it can know up front has run no pip and
# made no venv.
case_venv_refused_first() {
	local v=$D/venvs/v
	fresh_tree
	mkdir -p "$D/venvs"
	owned "$D/venvs"
	pol missing "grant \"$D/nothere\" r
python { venv \"$v\"; }" || { prob "$(cat "$D/pol/missing.log")"; return; }
	run missing true
	[ "$RC" = 125 ] || prob "a missing grant: exit $RC: $OUT"
	[ ! -e "$v" ] || prob "a refused launch made the venv"
	grep -q "missing; made with" <<<"$OUT" && prob "it said it was making the venv: $OUT"
	# A process limit where no cgroup can be made (uid 65534 has no
	# delegated cgroup here): refused as well, before the venv.
	if [ "$U" != root ]; then
		pol limit "limit processes 20
python { venv \"$v\"; }" || { prob "$(cat "$D/pol/limit.log")"; return; }
		run limit true
		if [ "$RC" = 125 ] && grep -q "no cgroup could be made" <<<"$OUT"; then
			[ ! -e "$v" ] || prob "a launch refused for its limit made the venv"
			grep -q "missing; made with" <<<"$OUT" && prob "it said it was making the venv: $OUT"
		else
			skipr "uid 65534 has a cgroup of its own here: the limit is held"
		fi
	fi
	# Control: the same policy without the missing grant makes it.
	pol fine "python { venv \"$v\"; }" || { prob "$(cat "$D/pol/fine.log")"; return; }
	run fine true
	[ "$RC" = 0 ] && [ -f "$v/pyvenv.cfg" ] || prob "control: exit $RC: $OUT"
}

# The record itself: no sandbox can change it, however its policy
# spells the home.
case_ledger_read_only() {
	local before
	fresh_tree
	pol home 'isolation permissive'
	run home true
	[ -f "$LEDGER" ] || { prob "no record after a permissive run: $OUT"; return; }
	before=$(cat "$LEDGER")
	run home sh -c "echo >$LEDGER; echo /x >>$LEDGER; rm -f $LEDGER; mv $H/.local $H/moved; mv $H/.local/state/heel $H/h2; true"
	[ "$(cat "$LEDGER" 2>/dev/null)" = "$before" ] || prob "the record changed: $(cat "$LEDGER" 2>&1)"
	# (mv copies what it cannot rename: a copy elsewhere is no harm.)
	[ ! -e "$H/moved" ] && [ -d "$H/.local/state/heel" ] || prob "the record's directory was moved"
	# Control: the same writes from the host land (the file is the user's).
	as sh -c "echo '/x' >>$LEDGER" || prob "control: the user cannot append to the record"
	grep -qx /x "$LEDGER" || prob "control: the user's line is not there"
}

# ----------------------------------------------------------------- main
CASES=(ipc_program decider audit_sink named_link workdir_link venv_python venv_earlier
	helpers_beside audit_relative venv_refused_first ledger_read_only)
for u in root $NOBODY; do
	set_user "$([ $u = root ] && echo root || echo 65534)"
	[ "$u" = root ] || U=65534
	for c in "${CASES[@]}"; do
		selected "case_$c" || continue
		begin "$c"
		"case_$c"
		finish
	done
done
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]

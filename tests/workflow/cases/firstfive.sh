# SPDX-License-Identifier: MIT
# The first five minutes, again (issue 21, items 14-16): `make demo` as
# the user, every line it prints checked against what this machine does;
# the demo on a minimal root (no /etc/hosts) returns and leaves nothing;
# the README's --print-policy route runs the command where heel run did;
# `make install PREFIX=$HOME/.local` as the user writes nothing outside.

REPO=$(cd "$HERE/../.." && pwd)

# The demo's sources (it reads policies/ and tests/net/ relative to the
# top of the repository), as the user's own copy.
demo_tree() {
	local d=$HOMEDIR/heel-demo
	mkdir -p "$d"
	cp -a "$REPO/tests" "$REPO/policies" "$d/"
	[ "$U" = root ] || chown -R "$WUSER:" "$d"
	echo "$d"
}

# The demo, as the user, through a pipe (a process left holding it would
# keep the pipe open: the timeout would then fire), into $1.
run_demo() {
	local d=$1 out=$2
	(cd "$d" && as timeout -k 10 300 bash -c 'bash tests/demo.sh "$1" | cat' _ "$T/bin") >"$out" 2>&1
}

# What the demo in tree $1 left running: its servers name the tree.
demo_leftovers() { pgrep -af "$1/tests/net" | grep -v pgrep; }

wf_demo_every_line_true() {
	local d out w e size check_rc home_planted
	d=$(demo_tree)
	out=$HOMEDIR/demo.out
	run_demo "$d" "$out"
	[ $? = 124 ] && { prob "the demo did not return within 300 s: $(tail -3 "$out")"; return; }
	# heelc's verdict, counted as heelc gives it.
	(cd "$d" && as "$HEELC" check policies/examples/demo.heel) 2>"$HOMEDIR/heelc.err" >/dev/null
	w=$(grep -c ': warning: ' "$HOMEDIR/heelc.err")
	e=$(grep -c ': error: ' "$HOMEDIR/heelc.err")
	if [ "$w$e" = 00 ]; then
		grep -qx '   no errors, no warnings' "$out" || prob "heelc said nothing, the demo says otherwise"
	else
		! grep -q 'no errors, no warnings' "$out" || prob "the demo says 'no errors, no warnings' after $w warning(s)"
		grep -qx "   $e errors, $w warning$([ "$w" = 1 ] || echo s) (above)" "$out" ||
			prob "the demo does not count heelc's $e errors and $w warnings: $(grep -n 'error\|warning' "$out" | head -3)"
	fi
	# The artifact's size, as heelc makes it (the same bytes every time).
	(cd "$d" && as "$HEELC" policies/examples/demo.heel -o "$HOMEDIR/demo.hpol") 2>/dev/null
	size=$(stat -c %s "$HOMEDIR/demo.hpol")
	grep -qx "   $size bytes: one artifact, every platform's part" "$out" || prob "the size is not $size"
	# The machine's verdict: the launch options follow it.
	as "$HEEL_EXEC" check "$HOMEDIR/demo.hpol" >"$HOMEDIR/check.out" 2>&1
	check_rc=$?
	if [ "$check_rc" = 0 ]; then
		grep -q '^== heel-exec demo.hpol -- bash' "$out" || prob "check passes, yet the session is not plain"
		! grep -q 'accept per-process-limits' "$out" || prob "--accept said where check passes"
	elif grep -q 'per process only here: no cgroup' "$HOMEDIR/check.out"; then
		grep -q '^== heel-exec --accept per-process-limits demo.hpol -- bash' "$out" ||
			prob "no cgroup for $U, yet the session does not accept per-process limits"
		grep -q 'weakened: limit processes 64, limit memory 1GiB and limit cpu 30s hold per process only' "$out" ||
			prob "the weakening is not said in the session"
	fi
	# The session ran, and its lines are what the sandbox did.
	grep -qx '   exit status 0' "$out" || prob "the session did not run: $(grep -A3 'allowed and refused' "$out" | tail -3)"
	grep -qx '   allowed: write a file in the working directory' "$out" || prob "the working directory was not writable"
	grep -qx '   REFUSED: write into $HOME -> Read-only file system' "$out" || prob "writing into HOME was not refused"
	grep -qx '   REFUSED: read ~/.ssh/id_rsa -> Permission denied' "$out" || prob "~/.ssh was readable"
	grep -q '^   REFUSED: run a downloaded (written) program' "$out" || prob "a written program ran"
	grep -q '^   REFUSED: connect to 203.0.113.10:80, outside the sandbox' "$out" || prob "an outside connection was made"
	grep -qE '^   processes visible in /proc: [1-9] \(a PID namespace of its own\)$' "$out" ||
		prob "the PID namespace line: $(grep 'processes visible' "$out")"
	grep -qx '   afterwards: $HOME/planted does not exist' "$out" || prob "afterwards: $(grep afterwards "$out")"
	# The network part: root only, and then the stand-in internet answers.
	if [ "$U" = root ]; then
		grep -qx '     hello from the heel test host' "$out" || prob "the allowed request got no answer"
		grep -qF 'heel: also.test is not in this sandbox'"'"'s network allow-list; to allow it, add "also.test" to `network allow { }` in demo-network.heel' "$out" ||
			prob "the refusal: $(grep also.test "$out" | tail -1)"
	else
		grep -qx '   skipped: the stand-in internet is made of network namespaces, which need root' "$out" ||
			prob "the network part as a user: $(grep -A1 'demo-network' "$out" | tail -1)"
	fi
	home_planted=$(find "$HOMEDIR" -name planted 2>/dev/null | head -1)
	[ -z "$home_planted" ] || prob "a planted file exists: $home_planted"
	[ -z "$(demo_leftovers "$d")" ] || prob "left running: $(demo_leftovers "$d")"
}

wf_demo_without_etc_hosts() {
	[ "$U" = root ] || { skipr "the demo's stand-in internet needs root; the minimal root is made by root"; return; }
	local d out over
	d=$(demo_tree)
	out=$HOMEDIR/demo.out
	over=$(mktemp -d "$HOMEDIR/etc-over.XXXXXX")
	mkdir -p "$over/u" "$over/w"
	# A minimal Debian root has no /etc/hosts: hidden here, in a mount
	# namespace of the test's own (an overlay of /etc, the file removed).
	(cd "$d" && timeout 300 unshare -m --propagation private bash -c '
		mount -t overlay wf-no-hosts -o lowerdir=/etc,upperdir="$1/u",workdir="$1/w" /etc &&
		rm /etc/hosts && [ ! -e /etc/hosts ] || exit 3
		shift
		"$@" | cat' _ "$over" env HOME="$HOMEDIR" timeout -k 10 280 bash tests/demo.sh "$T/bin") >"$out" 2>&1
	case $? in
	124) prob "the demo did not return within 300 s: $(tail -3 "$out")"; return ;;
	3) skipr "cannot hide /etc/hosts here (no overlay in a mount namespace)"; return ;;
	esac
	grep -qx '     hello from the heel test host' "$out" || prob "without /etc/hosts: $(grep -A4 'demo-network' "$out" | tail -4)"
	! grep -q 'could not make the stand-in internet' "$out" || prob "the stand-in internet failed"
	[ -z "$(demo_leftovers "$d")" ] || prob "left running: $(demo_leftovers "$d")"
}

wf_print_policy_route_runs_where_heel_run_did() {
	# The README's route, with --cwd "$PWD": stamp lands in the project.
	as "$HEEL" run --print-policy --writable . -- sh -c 'date >stamp' >"$PROJ/sandbox.heel" || prob "--print-policy"
	as "$HEELC" sandbox.heel >/dev/null 2>&1 || prob "heelc sandbox.heel"
	as "$HEEL_EXEC" --cwd "$PROJ" sandbox.hpol -- sh -c 'date >stamp' || prob "heel-exec --cwd"
	[ -s "$PROJ/stamp" ] || prob "stamp was not written where heel run writes it"
	# The README says what happens without --cwd: the file is gone.
	rm -f "$PROJ/stamp"
	as "$HEEL_EXEC" sandbox.hpol -- sh -c 'date >stamp' || prob "heel-exec without --cwd"
	[ ! -e "$PROJ/stamp" ] || prob "without --cwd, stamp landed in the project"
	grep -q -- '--cwd "$PWD"' "$REPO/README.md" || prob "the README does not show --cwd"
}

wf_make_install_into_home() {
	local src=$HOMEDIR/heel-src pre=$HOMEDIR/.local etc_before out
	command -v make >/dev/null || { skipr "no make"; return; }
	# The checkout with its build, mtimes kept: only what PREFIX changes
	# is built again.
	mkdir -p "$src"
	(cd "$REPO" && tar --exclude=./.git --exclude=./build/tests --exclude=./build/bench -cf - .) |
		(cd "$src" && tar -xf -) || { prob "cannot copy the checkout"; return; }
	[ "$U" = root ] || chown -R "$WUSER:" "$src"
	etc_before=$(ls -l --time-style=full-iso /etc/apparmor.d/heel-exec 2>&1)
	(cd "$src" && as make -s install PREFIX="$pre") >"$HOMEDIR/install.log" 2>&1 ||
		{ prob "make install PREFIX=$pre: $(tail -5 "$HOMEDIR/install.log")"; return; }
	for f in bin/heel bin/heelc bin/heel-exec bin/heel-proxy share/man/man1/heel.1 \
		share/heel/policies/default.heel share/heel/apparmor/heel-exec; do
		[ -e "$pre/$f" ] || prob "not installed: $f"
	done
	grep -qx "@{HEEL_PREFIX}=$pre" "$pre/share/heel/apparmor/heel-exec" || prob "the profile's prefix"
	[ "$(ls -l --time-style=full-iso /etc/apparmor.d/heel-exec 2>&1)" = "$etc_before" ] ||
		prob "/etc/apparmor.d/heel-exec was written"
	grep -q 'Permission denied' "$HOMEDIR/install.log" && prob "install: $(grep 'Permission denied' "$HOMEDIR/install.log")"
	# The installed heel runs, finding its heel-exec beside it.
	out=$(as "$pre/bin/heel" run echo from-the-install 2>&1)
	[ "$out" = from-the-install ] || prob "the installed heel: $out"
	(cd "$src" && as make -s uninstall PREFIX="$pre") >>"$HOMEDIR/install.log" 2>&1 || prob "make uninstall"
	out=$(find "$pre" -type f ! -path "$pre/state/*" 2>/dev/null)
	[ -z "$out" ] || prob "left after uninstall: $out"
	[ ! -e "$pre/share/heel" ] || prob "share/heel left after uninstall: $(find "$pre/share/heel" | head -3)"
}

# SPDX-License-Identifier: MIT
# Small things of an agent's day (issue 21, item 19): a shell that says
# it is a sandbox, no mount point left by a killed launch, a build of
# heel that is current the second time, an absolute TMPDIR in a kept
# working directory named relatively, no false warning beside a
# network decider.

# heel shell on a terminal (script(1) gives it one): the prompt starts
# with (heel) and HEEL_SANDBOX=1, with bash's ~/.bashrc setting its own
# prompt and with sh; the rc file is not touched. The control: the same
# bash outside heel has no (heel) in its prompt.
wf_shell_says_it_is_a_sandbox() {
	local out sum
	command -v script >/dev/null || { skipr "no script(1)"; return; }
	as sh -c "echo 'PS1=\"mine\\\$ \"' >>'$HOMEDIR/.bashrc'"
	sum=$(md5sum <"$HOMEDIR/.bashrc")
	out=$( (sleep 2; echo 'echo "inside=$HEEL_SANDBOX"'; sleep 1; echo exit) |
		as timeout 30 script -qec "$HEEL shell --shell /bin/bash" /dev/null 2>&1 | tr -d '\r')
	grep -q '(heel) mine\$ ' <<<"$out" || prob "bash: no (heel) before the rc's prompt: $(head -c 300 <<<"$out")"
	grep -q 'inside=1' <<<"$out" || prob "bash: HEEL_SANDBOX is not 1: $(head -c 300 <<<"$out")"
	out=$( (sleep 2; echo 'echo "inside=$HEEL_SANDBOX"'; sleep 1; echo exit) |
		as timeout 30 script -qec "$HEEL shell --shell /bin/sh" /dev/null 2>&1 | tr -d '\r')
	grep -q '(heel) [$#] ' <<<"$out" || prob "sh: no (heel) prompt: $(head -c 300 <<<"$out")"
	grep -q 'inside=1' <<<"$out" || prob "sh: HEEL_SANDBOX is not 1"
	[ "$(md5sum <"$HOMEDIR/.bashrc")" = "$sum" ] || prob "~/.bashrc was changed"
	out=$( (sleep 1; echo exit) | as timeout 30 script -qec "bash -i" /dev/null 2>&1 | tr -d '\r')
	grep -q 'mine\$ ' <<<"$out" || prob "control: bash outside shows no prompt: $(head -c 300 <<<"$out")"
	grep -q '(heel)' <<<"$out" && prob "control: (heel) outside heel"
}

# A launch killed with SIGKILL leaves its mount point (the fresh working
# directory, empty on the host); a later launch removes it once it looks
# (at most once a minute: the stamp is made old here). One an older
# heel-exec made (no sticky bit, no lock) is left alone.
wf_killed_launch_leaves_no_mount_point() {
	local out pid wd old stamp=$HOMEDIR/.local/state/heel/swept
	out=$HOMEDIR/killed.out
	# $$ of this sh becomes heel, then heel-exec (each execs the next).
	as sh -c "echo \$\$ >'$out.pid'; exec '$HEEL' run -- sh -c 'echo \$TMPDIR; exec sleep 60' >'$out' 2>&1" &
	for _ in $(seq 50); do [ -s "$out" ] && break; sleep 0.2; done
	pid=$(cat "$out.pid")
	wd=$(head -1 "$out")
	case $wd in /tmp/heel-????????) ;; *) prob "no working directory named: $(cat "$out")"; kill -KILL "$pid"; return ;; esac
	grep -q heel-exec "/proc/$pid/cmdline" || prob "$pid is not heel-exec"
	kill -KILL "$pid"
	wait 2>/dev/null
	sleep 0.5
	[ -d "$wd" ] || prob "control: the killed launch left nothing to remove ($wd)"
	old=/tmp/heel-$(printf '%s' "$U" | md5sum | cut -c1-8)
	as mkdir -p "$old"
	as touch -d '1 hour ago' "$stamp"
	heel run -- true >/dev/null 2>&1
	[ ! -e "$wd" ] || prob "the killed launch's $wd is still there after a later run"
	[ -d "$old" ] || prob "an unmarked directory (an older heel-exec's) was removed"
	rmdir "$old" 2>/dev/null
	return 0
}

# `make` twice does nothing the second time: the built tree is current
# for make -n. The control shows make -n would say so if it were not.
wf_make_twice_does_nothing_the_second_time() {
	local root out
	root=$(cd "$HERE/../.." && pwd)
	[ "$U" = root ] || { skipr "the build tree is root's"; return; }
	[ "$(cd "$root/build" 2>/dev/null && pwd)" = "$B" ] || { skipr "the suite's build is not $root/build"; return; }
	out=$(make -n -C "$root" --no-print-directory all 2>&1)
	[ "$out" = ":" ] || prob "make -n all would run: $(head -c 400 <<<"$out")"
	out=$(make -n -C "$root" --no-print-directory -W runtime/env.c all 2>&1)
	grep -q "heel-exec" <<<"$out" || prob "control: make -n -W runtime/env.c relinks nothing: $(head -c 300 <<<"$out")"
}

# --working-dir ./out: TMPDIR is absolute, so a command that leaves the
# directory it started in still finds it; from the TOML file too.
wf_working_dir_relative_gives_an_absolute_tmpdir() {
	local out
	out=$(heel run --working-dir ./out -- sh -c 'cd / && echo "$TMPDIR" && mktemp' 2>&1) || prob "mktemp after cd /: $out"
	[ "$(head -1 <<<"$out")" = "$PROJ/out/tmp" ] || prob "TMPDIR is $(head -1 <<<"$out")"
	case $(tail -1 <<<"$out") in "$PROJ"/out/tmp/tmp.*) ;; *) prob "mktemp made $(tail -1 <<<"$out")" ;; esac
	as sh -c "echo 'working-dir = \"./out2\"' >'$HOMEDIR/wd.toml'"
	out=$(heel run --config "$HOMEDIR/wd.toml" -- sh -c 'echo "$TMPDIR"' 2>&1)
	[ "$out" = "$PROJ/out2/tmp" ] || prob "TOML working-dir: TMPDIR is $out"
	# The control: the fresh working directory's TMPDIR, absolute too.
	out=$(heel run -- sh -c 'echo "$TMPDIR"' 2>&1)
	case $out in /*) ;; *) prob "control: TMPDIR is $out" ;; esac
}

# An allow-list with nothing in it is warned about, unless a network
# decider is asked too: then the list being empty is no unfinished edit.
# (A POSIX path names no decider on Windows, which is still warned
# about: `on windows`.)
wf_no_empty_allow_list_warning_beside_a_decider() {
	local out
	as sh -c "printf 'heel 1\nnetwork allow { }\nnetwork decide \"/usr/bin/true\"\n' >'$HOMEDIR/decide.heel'"
	out=$(heel run --policy "$HOMEDIR/decide.heel" --print-policy -- true 2>&1 >/dev/null)
	grep -qE 'empty allow-list(:| on [a-z, ]*(linux|macos))' <<<"$out" && prob "warned beside a decider: $out"
	as sh -c "printf 'heel 1\nnetwork allow { }\n' >'$HOMEDIR/empty.heel'"
	out=$(heel run --policy "$HOMEDIR/empty.heel" --print-policy -- true 2>&1 >/dev/null)
	grep -q 'empty allow-list: the sandbox can reach nothing' <<<"$out" ||
		prob "control: no warning for an empty list alone: $out"
}

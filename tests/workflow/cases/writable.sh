# SPDX-License-Identifier: MIT
# Writable places that work (issue 21, item 5): the read grant heel run
# gives the directory it starts in never narrows a writable grant that
# holds it, nor a writable isolation base, and never widens a denial.

wf_writable_parent_of_the_start_directory() {
	local out
	as mkdir -p src/sub
	# `--writable ..` from inside the project: the parent takes new
	# entries, the start directory too.
	out=$(cd src && heel run --writable .. -- sh -c 'touch ../new-in-parent && touch here && mkdir ../made' 2>&1) ||
		prob "--writable .. from src: $out"
	[ -e new-in-parent ] && [ -e src/here ] && [ -d made ] ||
		prob "--writable ..: nothing written: $out"
	# Control: without it the parent stays read-only, and so does the
	# start directory.
	(cd src && heel run sh -c 'touch ../refused-in-parent; touch refused-here') >/dev/null 2>&1
	[ ! -e refused-in-parent ] && [ ! -e src/refused-here ] ||
		prob "without --writable the project was written"
	# A writable grant of a directory beneath the start directory: the
	# start directory itself stays read-only.
	out=$(heel run --writable src/sub -- sh -c 'touch src/sub/in-sub; touch outside-sub' 2>&1)
	[ -e src/sub/in-sub ] || prob "--writable src/sub: nothing written: $out"
	[ ! -e outside-sub ] || prob "--writable src/sub also wrote the project"
}

# As root a permissive run could change heel itself (it lies in /): its
# record refuses the next launch until the user says they checked
# (heel(5), WHAT PERSISTS BETWEEN RUNS). The suite's heel is root's,
# unchangeable by the account, whose record therefore refuses nothing.
forget_permissive() { [ "$U" != root ] || rm -f "$HOMEDIR/.local/state/heel/writable-places"; }

wf_writable_permissive_in_the_project() {
	local out
	# permissive started in the project: the project and the home take
	# new files, as that base promises; also beside a narrower writable
	# grant (--writable ./out is rw, never x, inside the rwx home), and
	# with the sandbox's own tool caches asked for.
	as mkdir -p out
	for args in "" "--writable ./out" "--tool-caches"; do
		rm -f in-project "$HOMEDIR/in-home"
		forget_permissive
		# shellcheck disable=SC2086
		out=$(heel run --isolation permissive $args -- sh -c "touch in-project && touch '$HOMEDIR/in-home'" 2>&1) ||
			prob "permissive $args in the project: $out"
		[ -e in-project ] && [ -e "$HOMEDIR/in-home" ] || prob "permissive $args: nothing written: $out"
	done
	# What the home then holds still runs under permissive (no tool
	# cache of the sandbox's narrows it by default). Root's home here is
	# in /tmp, which permissive never lets run anything: the account's.
	if [ "$U" != root ]; then
		out=$(heel run --isolation permissive -- sh -c "cp /bin/echo '$HOMEDIR/my-echo' && '$HOMEDIR/my-echo' ran" 2>/dev/null)
		[ "$out" = ran ] || prob "permissive: a program made in the home did not run: $out"
	fi
	# Control: the host-run protection still holds under permissive (the
	# start directory's grant widens nothing): ~/.bashrc stays unwritable.
	[ -e "$HOMEDIR/.bashrc" ] || as touch "$HOMEDIR/.bashrc"
	forget_permissive
	heel run --isolation permissive sh -c "echo planted >>'$HOMEDIR/.bashrc'" >/dev/null 2>&1
	grep -q planted "$HOMEDIR/.bashrc" && prob "permissive wrote ~/.bashrc"
	# Nor does starting in a denied place widen it: under default heel
	# refuses to start in ~/.ssh, and says why.
	as mkdir -p "$HOMEDIR/.ssh"
	forget_permissive
	out=$(cd "$HOMEDIR/.ssh" && heel run true 2>&1) && prob "started in ~/.ssh: $out"
	grep -q "not starting in $HOMEDIR/.ssh" <<<"$out" || prob "the refusal in ~/.ssh does not say why: $out"
	return 0
}

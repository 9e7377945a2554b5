# SPDX-License-Identifier: MIT
# Running the project's own tools under `default` (issue 21, items 1-4
# and 10): what the user has installed or the project holds runs where
# the sandbox may read it and not write it; what the sandbox writes,
# shared temp and (under strict) user data never run, and a refusal
# names the file, why and the way out; a later program of the same name
# on PATH never runs instead; presets from the command line; a home
# reached through a symbolic link.

# The PATH `as` gives, for cases that put something before it.
user_path() { echo "$HOMEDIR/.local/bin:$HOMEDIR/bin:/usr/local/bin:/usr/bin:/bin"; }

# own PATH...: the case's user owns what the suite made for them.
own() { [ "$U" = root ] || chown -R "$WUSER:" "$@"; }

# prog FILE WORDS: a #! script that prints WORDS.
prog() {
	# The directories too as the user's (a ~/.local made by root would
	# leave the user unable to make ~/.local/state, heel's record).
	as mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\necho %s\n' "$2" >"$1"
	chmod 755 "$1"
	own "$1"
}

# refused OUT RC WHAT...: exit 126 and each WHAT in the message.
refused() {
	local out=$1 rc=$2 w
	shift 2
	[ "$rc" = 126 ] || prob "expected 126, got $rc: $out"
	for w in "$@"; do
		grep -qF -- "$w" <<<"$out" || prob "the refusal does not say \`$w\`: $out"
	done
}

wf_tools_project_script() {
	local out rc
	# The project's own runner: it runs (what its tests then say is the
	# project's business, not the sandbox's: no 126).
	out=$(heel run ./run_tests.sh 2>&1)
	rc=$?
	[ "$rc" != 126 ] && grep -q unittest <<<"$out$(cat run_tests.sh)" ||
		prob "./run_tests.sh under default: exit $rc: $out"
	grep -q "Permission denied" <<<"$out" && prob "./run_tests.sh: $out"
	prog ./wf-check.sh "project script ran"
	out=$(heel run ./wf-check.sh 2>&1)
	[ "$out" = "project script ran" ] || prob "./wf-check.sh under default: $out"
	# Control: strict keeps user data out, and says why and the way out.
	out=$(heel run --isolation strict ./wf-check.sh 2>&1)
	rc=$?
	refused "$out" "$rc" "protection set \`user-home\`" "--protect-user-home=false" \
		"--executable $PROJ"
	grep -q "project script ran" <<<"$out" && prob "strict ran the project's script"
	# Control: a writable place never runs, even what the host put
	# there; what the sandbox writes there neither.
	out=$(heel run --writable . -- ./wf-check.sh 2>&1)
	rc=$?
	refused "$out" "$rc" "which the sandbox may write" "--grant $PROJ=rwx"
	heel run --writable . -- sh -c 'cp wf-check.sh planted.sh && ./planted.sh' >/dev/null 2>&1 &&
		prob "a script the sandbox wrote ran"
	[ -e planted.sh ] || prob "control: the sandbox could not write planted.sh"
	out=$(heel run --writable . -- ./planted.sh 2>&1)
	rc=$?
	refused "$out" "$rc" "which the sandbox may write"
	# ...unless a grant says rwx, deliberately.
	out=$(heel run --grant .=rwx -- ./planted.sh 2>&1)
	[ "$out" = "project script ran" ] || prob "--grant .=rwx: $out"
}

wf_tools_venv_console_script() {
	local out rc
	as python3 -m venv --without-pip .venv >/dev/null 2>&1 ||
		{ skipr "python3 -m venv failed here (python3-venv missing?)"; return; }
	# A console script as pip writes one: #! the venv's python.
	printf '#!%s/.venv/bin/python3\nimport sys\nprint("console-script", sys.prefix)\n' "$PROJ" \
		>.venv/bin/wf-tool
	chmod 755 .venv/bin/wf-tool
	own .venv
	out=$(heel run .venv/bin/wf-tool 2>&1) || prob ".venv/bin/wf-tool: $out"
	[ "$out" = "console-script $PROJ/.venv" ] || prob "the console script printed: $out"
	# On PATH, as an activated venv has it.
	out=$(as env PATH="$PROJ/.venv/bin:$(user_path)" "$HEEL" run wf-tool 2>&1) ||
		prob "wf-tool on PATH: $out"
	# Control: not under strict, with the way out.
	out=$(heel run --isolation strict "$PROJ/.venv/bin/wf-tool" 2>&1)
	rc=$?
	refused "$out" "$rc" "user-home" "--executable $PROJ/.venv/bin"
}

wf_tools_node_modules_bin() {
	local out rc
	command -v node >/dev/null || { skipr "no node here"; return; }
	# A tiny local package with a bin, linked as npm links it.
	mkdir -p node_modules/wf-hello/bin node_modules/.bin
	printf '{"name":"wf-hello","version":"1.0.0","bin":{"wf-hello":"bin/hello.js"}}\n' \
		>node_modules/wf-hello/package.json
	printf '#!/usr/bin/env node\nconsole.log("hello from node_modules")\n' \
		>node_modules/wf-hello/bin/hello.js
	chmod 755 node_modules/wf-hello/bin/hello.js
	ln -s ../wf-hello/bin/hello.js node_modules/.bin/wf-hello
	own node_modules
	out=$(heel run ./node_modules/.bin/wf-hello 2>&1) || prob "node_modules/.bin/wf-hello: $out"
	[ "$out" = "hello from node_modules" ] || prob "node_modules/.bin/wf-hello printed: $out"
	if command -v npx >/dev/null; then
		out=$(heel run npx --no-install wf-hello 2>&1) || prob "npx --no-install wf-hello: $out"
		grep -qx "hello from node_modules" <<<"$out" || prob "npx printed: $out"
	fi
	# Control: not under strict.
	out=$(heel run --isolation strict "$PROJ/node_modules/.bin/wf-hello" 2>&1)
	rc=$?
	refused "$out" "$rc" "user-home"
}

wf_tools_local_bin() {
	local out rc
	prog "$HOMEDIR/.local/bin/wf-local" "local tool ran"
	out=$(heel run wf-local 2>&1) || prob "~/.local/bin/wf-local: $out"
	[ "$out" = "local tool ran" ] || prob "wf-local printed: $out"
	prog "$HOMEDIR/.cargo/bin/wf-cargo-tool" "cargo tool ran"
	out=$(heel run "$HOMEDIR/.cargo/bin/wf-cargo-tool" 2>&1) || prob "~/.cargo/bin: $out"
	# Control: strict names the file, the set and --preset rust for
	# ~/.cargo/bin.
	out=$(heel run --isolation strict wf-local 2>&1)
	rc=$?
	refused "$out" "$rc" "$HOMEDIR/.local/bin/wf-local" "user-home"
	out=$(heel run --isolation strict "$HOMEDIR/.cargo/bin/wf-cargo-tool" 2>&1)
	rc=$?
	refused "$out" "$rc" "--preset rust"
	out=$(heel run --isolation strict --preset rust "$HOMEDIR/.cargo/bin/wf-cargo-tool" 2>&1) ||
		prob "strict with --preset rust: $out"
}

# A version manager's shims first on PATH (pyenv's): heel run and heel
# python run the shim, as the user's shell would; where it may not run,
# the system's python3 behind it does not run instead.
wf_tools_shim_first_on_path() {
	local out rc shims=$HOMEDIR/.pyenv/shims
	command -v python3 >/dev/null || { skipr "no python3 here"; return; }
	mkdir -p "$shims"
	printf '#!/bin/sh\necho via-shim\nexec /usr/bin/python3 "$@"\n' >"$shims/python3"
	chmod 755 "$shims/python3"
	own "$HOMEDIR/.pyenv"
	out=$(as env PATH="$shims:$(user_path)" "$HEEL" run python3 -c 'print("py-ran")' 2>&1) ||
		prob "python3 through the shim: $out"
	[ "$out" = $'via-shim\npy-ran' ] || prob "heel run python3 did not run the shim: $out"
	out=$(as env PATH="$shims:$(user_path)" "$HEEL" python -c 'print("py-ran")' 2>&1) ||
		prob "heel python through the shim: $out"
	[ "$out" = $'via-shim\npy-ran' ] || prob "heel python did not run the shim: $out"
	# Refused under strict, and the system's python3 does not run in
	# its place.
	out=$(as env PATH="$shims:$(user_path)" "$HEEL" run --isolation strict python3 -c 'print("py-ran")' 2>&1)
	rc=$?
	refused "$out" "$rc" "$shims/python3" "PATH also holds /usr/bin/python3" "--preset python"
	grep -q py-ran <<<"$out" && prob "a later python3 on PATH ran instead of the shim"
	# heel python includes <python>, which grants ~/.pyenv: the shim runs.
	out=$(as env PATH="$shims:$(user_path)" "$HEEL" python --isolation strict -c 'print("py-ran")' 2>/dev/null) ||
		prob "heel python under strict: $out"
	[ "$out" = $'via-shim\npy-ran' ] || prob "heel python under strict: $out"
}

# Two programs of one name; the first on PATH may not run.
wf_tools_path_fall_through() {
	local out rc path="$PROJ/ta:$HOMEDIR/tb:$(user_path)"
	prog "$PROJ/ta/wf-pick" first
	prog "$HOMEDIR/tb/wf-pick" second
	out=$(as env PATH="$path" "$HEEL" run wf-pick 2>&1) || prob "wf-pick: $out"
	[ "$out" = first ] || prob "the first wf-pick on PATH did not run: $out"
	out=$(as env PATH="$path" "$HEEL" run --writable ta -- wf-pick 2>&1)
	rc=$?
	refused "$out" "$rc" "$PROJ/ta/wf-pick" "which the sandbox may write" \
		"PATH also holds $HOMEDIR/tb/wf-pick" "--grant $PROJ/ta=rwx"
	grep -qx second <<<"$out" && prob "the second wf-pick ran in place of the first"
	# Run when allowed, as the message says.
	out=$(as env PATH="$path" "$HEEL" run --grant ta=rwx -- wf-pick 2>&1)
	[ "$out" = first ] || prob "--grant ta=rwx: $out"
}

wf_tools_presets() {
	local out rc
	out=$(heel run --preset git --preset node --print-policy true 2>&1)
	grep -qx 'include <git>  # --preset git' <<<"$out" || prob "--preset git: $out"
	grep -qx 'include <node>  # --preset node' <<<"$out" || prob "--preset node: $out"
	out=$(heel python --print-policy -c 1 2>&1)
	grep -qx 'include <python>  # heel python' <<<"$out" || prob "heel python: $out"
	printf 'presets = ["rust"]\nnetwork = "allow-all"\nallow-private = true\n' >wf.toml
	out=$(heel run --config wf.toml --print-policy true 2>&1)
	grep -q '^include <rust>  # .*wf.toml:1' <<<"$out" || prob "TOML presets: $out"
	grep -q '^network allow-private  # .*wf.toml:3' <<<"$out" || prob "TOML allow-private: $out"
	out=$(heel run --network allow-all --allow-private --print-policy true 2>&1)
	grep -qx 'network allow-private  # --allow-private' <<<"$out" || prob "--allow-private: $out"
	out=$(heel run --allow-private true 2>&1)
	rc=$?
	[ "$rc" = 125 ] && grep -qF -- "--network allow-all" <<<"$out" ||
		prob "--allow-private under network deny: exit $rc: $out"
	out=$(heel run --preset pyhton true 2>&1)
	rc=$?
	[ "$rc" = 125 ] && grep -qF 'did you mean `<python>`' <<<"$out" || prob "--preset pyhton: exit $rc: $out"
	out=$(heel run --preset strict true 2>&1)
	grep -qF -- "--isolation strict" <<<"$out" || prob "--preset strict: $out"
	# What a preset does: <git> reads the user's git configuration, which
	# strict keeps out without it.
	printf '[user]\n\tname = wf-preset-name\n' >"$HOMEDIR/.gitconfig"
	own "$HOMEDIR/.gitconfig"
	out=$(heel run --isolation strict --preset git -- git config --global user.name 2>/dev/null)
	[ "$out" = wf-preset-name ] || prob "strict --preset git: git config: $out"
	out=$(heel run --isolation strict -- git config --global user.name 2>/dev/null)
	[ "$out" = wf-preset-name ] && prob "control: strict read ~/.gitconfig without the preset"
}

# Shared temp never runs, whatever the base; the same program in the
# home does.
wf_tools_shared_temp() {
	local out rc d
	d=$(mktemp -d /tmp/heel-wf-shared.XXXXXX) || { prob "mktemp"; return; }
	chmod 755 "$d"
	prog "$d/wf-st" "ran from shared temp"
	out=$(heel run "$d/wf-st" 2>&1)
	rc=$?
	refused "$out" "$rc" "lies in shared temp (/tmp)"
	grep -q "ran from shared temp" <<<"$out" && prob "a program in shared temp ran"
	rm -rf "$d"
	prog "$HOMEDIR/bin/wf-st" "ran from the home"
	out=$(heel run "$HOMEDIR/bin/wf-st" 2>&1)
	[ "$out" = "ran from the home" ] || prob "control: the same program in the home: $out"
}

# A home reached through a symbolic link (/home/bob -> /data/bob): the
# user's files are readable, the project's tools run, git commits.
wf_tools_symlinked_home() {
	local out rc d=/data-heel-wf/$U l=/home/heel-wf-link-$U n
	# The case runs in a subshell of its own: this runs when it ends
	# (expanded now: the locals are gone by then).
	# shellcheck disable=SC2064
	trap "rm -rf '$d' '$l'; rmdir /data-heel-wf 2>/dev/null" EXIT
	rm -rf "$d" "$l"
	mkdir -p "$d"
	cp -a "$PROJ" "$d/proj"
	echo "notes in the real home" >"$d/notes"
	printf '[user]\n\tname = wf\n\temail = wf@example.com\n' >"$d/.gitconfig"
	own "$d"
	chmod 755 /data-heel-wf "$d"
	ln -s "$d" "$l"
	lh() { as env HOME="$l" sh -c 'cd "$1" && shift && exec "$@"' _ "$l/proj" "$HEEL" "$@"; }
	out=$(lh run cat "$l/notes" 2>&1)
	[ "$out" = "notes in the real home" ] || prob "cat ~/notes through the link: $out"
	out=$(lh run sh -c 'cat ~/notes; echo "$HOME"' 2>&1)
	[ "$out" = $'notes in the real home\n'"$d" ] || prob "HOME in the sandbox: $out"
	prog "$d/proj/wf-check.sh" "project script ran"
	out=$(lh run ./wf-check.sh 2>&1)
	[ "$out" = "project script ran" ] || prob "./wf-check.sh in the linked home: $out"
	out=$(lh run --writable . -- git commit -q --allow-empty -m "from the sandbox" 2>&1) ||
		prob "git commit in the linked home: $out"
	n=$(cd "$d/proj" && as git log --oneline 2>/dev/null | wc -l)
	[ "$n" = 2 ] || prob "git log has $n commits after the sandbox's commit"
	# Control: a link a sandbox could have made (in a place this launch
	# makes writable) is refused, never followed.
	mkdir -p "$d/w"
	ln -s "$d" "$d/w/h"
	own "$d/w"
	out=$(as env HOME="$d/w/h" "$HEEL" run --writable "$d/w" -- cat "$d/notes" 2>&1)
	rc=$?
	[ "$rc" = 125 ] && grep -qF "crosses the symbolic link $d/w/h" <<<"$out" ||
		prob "HOME through a link in a writable place: exit $rc: $out"
}

# SPDX-License-Identifier: MIT
# Caches (issue 21, items 9 and 18). The package tools' caches are the
# sandbox's own, one per project beneath ~/.cache/heel-sandbox (heel(1),
# TOOL CACHES): npm install and pip install work, a second run finds
# what the first cached, the host's ~/.npm and ~/.cache/pip are never
# made or written, the cache is recorded as a writable place, never
# executable and never shared with another project. heel run's compile
# cache is bounded, is found without HOME, and no sandbox writes it.

# The project's cache for the current directory, as the user sees it.
caches_dir() {
	ls -d "$HOMEDIR"/.cache/heel-sandbox/"$(basename "$PWD")"-* 2>/dev/null | head -1
}

# An npm package as a tarball, made without npm (npm pack would use the
# host's ~/.npm, which the cases check stays untouched).
caches_npm_tarball() {
	local d=$HOMEDIR/pkgsrc
	as mkdir -p "$d/package"
	as sh -c "printf '{\"name\":\"heel-wf-pkg\",\"version\":\"1.0.0\",\"main\":\"index.js\"}\n' >'$d/package/package.json'"
	as sh -c "echo 'module.exports = 42;' >'$d/package/index.js'"
	as tar -C "$d" -czf "$HOMEDIR/heel-wf-pkg-1.0.0.tgz" package
}

# A wheel, made by hand (no build tools needed): a module and its
# metadata, zipped with its RECORD.
caches_wheel() {
	as python3 - "$HOMEDIR" <<'EOF'
import base64, hashlib, sys, zipfile
name, ver = "heel_wf_pkg", "1.0"
files = {f"{name}/__init__.py": b"VALUE = 42\n",
         f"{name}-{ver}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: heel-wf-pkg\nVersion: {ver}\n".encode(),
         f"{name}-{ver}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: heel-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{k},sha256={base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b'=').decode()},{len(v)}"
       for k, v in files.items()]
rec.append(f"{name}-{ver}.dist-info/RECORD,,")
files[f"{name}-{ver}.dist-info/RECORD"] = ("\n".join(rec) + "\n").encode()
with zipfile.ZipFile(f"{sys.argv[1]}/{name}-{ver}-py3-none-any.whl", "w") as z:
    for k, v in files.items():
        z.writestr(k, v)
EOF
}

wf_npm_install_from_a_tarball_uses_the_sandbox_cache() {
	local out c
	command -v npm >/dev/null || { skipr "no npm"; return; }
	caches_npm_tarball
	# Control: without a cache of its own npm fails on the host's ~/.npm.
	out=$(heel run --tool-caches=false --writable . -- npm install --no-audit --no-fund \
		"$HOMEDIR/heel-wf-pkg-1.0.0.tgz" 2>&1) && prob "control: npm install worked without a tool cache: $out"
	grep -qi 'enoent\|erofs\|eacces' <<<"$out" || prob "control: npm failed otherwise: $out"
	[ ! -e node_modules/heel-wf-pkg ] || prob "control: the package was installed"
	out=$(heel run --writable . -- npm install --no-audit --no-fund "$HOMEDIR/heel-wf-pkg-1.0.0.tgz" 2>&1) ||
		prob "npm install: $out"
	[ "$(as node -e 'console.log(require("heel-wf-pkg"))' 2>&1)" = 42 ] || prob "the package is not installed: $out"
	c=$(caches_dir)
	[ -n "$c" ] && [ -d "$c/npm/_cacache" ] || prob "no npm cache in heel-sandbox: $(ls -R "$HOMEDIR/.cache" 2>&1 | head -5)"
	[ ! -e "$HOMEDIR/.npm" ] || prob "the host's ~/.npm was made"
	# A second run finds what the first cached.
	out=$(heel run -- npm cache ls 2>&1)
	grep -q 'heel-wf-pkg-1.0.0.tgz' <<<"$out" || prob "a second run does not see the cached tarball: $out"
	# The cache is a writable place like any: in the ledger.
	grep -qxF "$c" "$HOMEDIR/.local/state/heel/writable-places" 2>/dev/null ||
		prob "the cache is not recorded: $(cat "$HOMEDIR/.local/state/heel/writable-places" 2>&1)"
}

wf_pip_install_without_the_cache_warning() {
	local out
	as python3 -m pip --version >/dev/null 2>&1 || { skipr "no pip for python3"; return; }
	caches_wheel
	out=$(heel run --writable . -- python3 -m pip install --no-index --target ./t \
		"$HOMEDIR/heel_wf_pkg-1.0-py3-none-any.whl" 2>&1) || prob "pip install: $out"
	[ -e t/heel_wf_pkg/__init__.py ] || prob "not installed: $out"
	grep -qi 'cache has been disabled\|not writable' <<<"$out" && prob "pip still warns: $out"
	out=$(heel run -- python3 -m pip cache dir 2>&1)
	case $out in "$HOMEDIR"/.cache/heel-sandbox/proj-*/pip) ;; *) prob "pip's cache is $out" ;; esac
	[ ! -e "$HOMEDIR/.cache/pip" ] || prob "the host's ~/.cache/pip was made"
	# Control: without a cache of its own, pip's is the host's, which it
	# may not write (a user is warned on every run; root is not told).
	rm -rf t
	out=$(heel run --tool-caches=false --writable . -- python3 -m pip install --no-index --target ./t \
		"$HOMEDIR/heel_wf_pkg-1.0-py3-none-any.whl" 2>&1)
	if [ "$U" != root ]; then
		grep -qi 'cache has been disabled' <<<"$out" || prob "control: no warning without a cache: $out"
	fi
	out=$(heel run --tool-caches=false -- python3 -m pip cache dir 2>&1)
	grep -qF "$HOMEDIR/.cache/pip" <<<"$out" || prob "control: pip's cache without tool caches is not the host's: $out"
	[ ! -e "$HOMEDIR/.cache/pip" ] || prob "control: the host's ~/.cache/pip was made"
}

wf_tool_cache_is_kept_per_project_and_never_run() {
	local out
	heel run -- sh -c 'mkdir -p "$PIP_CACHE_DIR" && echo kept >"$PIP_CACHE_DIR/marker"' >/dev/null 2>&1
	out=$(heel run -- sh -c 'cat "$PIP_CACHE_DIR/marker"' 2>&1)
	[ "$out" = kept ] || prob "a second run does not find the first's: $out"
	# Another project has a cache of its own.
	as mkdir -p "$HOMEDIR/other"
	out=$(cd "$HOMEDIR/other" && heel run -- sh -c 'cat "$PIP_CACHE_DIR/marker"' 2>&1) &&
		prob "another project sees this one's cache: $out"
	# Nothing written there runs, in a later run either; the control runs
	# the same program from where the system keeps it.
	heel run -- sh -c 'mkdir -p "$npm_config_cache" && cp /bin/true "$npm_config_cache/t" && chmod +x "$npm_config_cache/t"' >/dev/null 2>&1
	[ -x "$(caches_dir)/npm/t" ] || prob "could not write a program into the cache"
	out=$(heel run -- sh -c '"$npm_config_cache/t"' 2>&1) && prob "a program written into the cache ran"
	heel run -- /bin/true || prob "control: /bin/true does not run"
}

wf_the_policy_decides_its_own_cache_variables() {
	local out
	out=$(heel run --env PIP_CACHE_DIR="$PROJ/.pipc" -- sh -c 'echo "$PIP_CACHE_DIR"' 2>&1)
	[ "$out" = "$PROJ/.pipc" ] || prob "--env PIP_CACHE_DIR was overridden: $out"
	out=$(heel run -- sh -c 'echo "$PIP_CACHE_DIR"' 2>&1)
	case $out in "$HOMEDIR"/.cache/heel-sandbox/proj-*/pip) ;; *) prob "control: PIP_CACHE_DIR is $out" ;; esac
	# strict keeps none unless asked.
	out=$(heel run --isolation strict -- sh -c 'echo "${npm_config_cache:-none}"' 2>&1)
	[ "$(tail -1 <<<"$out")" = none ] || prob "strict has a tool cache: $out"
	out=$(heel run --isolation strict --tool-caches -- sh -c 'echo "${npm_config_cache:-none}"' 2>&1)
	case $(tail -1 <<<"$out") in */heel-sandbox/*/npm) ;; *) prob "strict --tool-caches: $out" ;; esac
	# Maven and Go are pointed there too; the host's ~/.m2 is not made.
	out=$(heel run -- sh -c 'echo "$MAVEN_OPTS|$GOMODCACHE"' 2>&1)
	case $out in -Dmaven.repo.local=*/heel-sandbox/*/maven\|*/heel-sandbox/*/go-mod) ;; *) prob "MAVEN_OPTS|GOMODCACHE: $out" ;; esac
	[ ! -e "$HOMEDIR/.m2" ] || prob "~/.m2 was made"
}

# cargo: a home of the user's (~/.cargo) stays the host's, read-only;
# without one, the sandbox's cache stands in for it.
wf_cargo_home_is_the_sandbox_cache_only_without_one() {
	local out
	command -v cargo >/dev/null || { skipr "no cargo"; return; }
	out=$(heel run -- sh -c 'echo "${CARGO_HOME:-unset}"' 2>&1)
	case $out in */heel-sandbox/*/cargo) ;; *) prob "no ~/.cargo: CARGO_HOME is $out" ;; esac
	as mkdir -p "$HOMEDIR/.cargo"
	out=$(heel run -- sh -c 'echo "${CARGO_HOME:-unset}"' 2>&1)
	[ "$out" = unset ] || prob "with ~/.cargo: CARGO_HOME is $out"
	as rmdir "$HOMEDIR/.cargo"
	# A crate builds (cargo makes its home's files: here, the cache).
	as mkdir -p crate/src target
	as sh -c 'printf "[package]\nname = \"wfc\"\nversion = \"0.1.0\"\nedition = \"2018\"\n" >crate/Cargo.toml; echo "fn main() { println!(\"built\"); }" >crate/src/main.rs'
	out=$(cd crate && heel run --writable . -- cargo build --offline -q 2>&1) || prob "cargo build: $out"
	[ -e crate/target/debug/wfc ] || prob "nothing built: $out"
	[ ! -e "$HOMEDIR/.cargo" ] || prob "the host's ~/.cargo was made"
}

# ---------------------------------------------------------- compile cache

# Without HOME, heel run's cache is in the home /etc/passwd gives (here
# the suite's own account: root's is the machine's), and no sandbox
# writes it, even one that may write the rest of ~/.cache.
wf_compile_cache_without_home() {
	local c=$HOMEDIR/.cache/heel out n1 n2
	[ "$U" = root ] && { skipr "root's /etc/passwd home is this machine's /root"; return; }
	rm -rf "$c"
	out=$(as env -u HOME "$HEEL" run -- true 2>&1) || prob "heel run without HOME: $out"
	n1=$(ls "$c" 2>/dev/null | wc -l)
	[ "$n1" -ge 1 ] || prob "no compile cache without HOME: $(ls -la "$HOMEDIR/.cache" 2>&1)"
	as env -u HOME "$HEEL" run -- true >/dev/null 2>&1
	n2=$(ls "$c" 2>/dev/null | wc -l)
	[ "$n1" = "$n2" ] || prob "the second run compiled again ($n1, then $n2 entries)"
	out=$(as env -u HOME "$HEEL" run --writable "$HOMEDIR/.cache" -- \
		sh -c "echo x >'$c/planted'; echo y >'$HOMEDIR/.cache/other'" 2>&1)
	[ ! -e "$c/planted" ] || prob "a sandbox wrote into the compile cache: $out"
	[ -e "$HOMEDIR/.cache/other" ] || prob "control: the rest of ~/.cache was not writable: $out"
}

# The compile cache is bounded: past 256 entries a store removes the
# least recently used down to 192, and keeps the one just used (a launch
# with tool caches stores two: the policy, then with its caches).
wf_compile_cache_is_bounded() {
	local c=$HOMEDIR/.cache/heel e n out
	heel run -- true >/dev/null 2>&1
	e=$(ls "$c" | head -1)
	[ -n "$e" ] || { prob "no cache entry"; return; }
	as sh -c "for i in \$(seq 1 300); do k=\$(printf '%064x' \$i); cp '$c/$e' '$c/'\$k; touch -d \"\$((400 - i)) minutes ago\" '$c/'\$k; done"
	n=$(ls "$c" | wc -l)
	[ "$n" -gt 256 ] || prob "control: the cache holds $n entries"
	heel run --env WF_NEW=1 -- true >/dev/null 2>&1
	n=$(ls "$c" | wc -l)
	[ "$n" -le 194 ] || prob "the cache still holds $n entries"
	[ ! -e "$c/$(printf '%064x' 1)" ] || prob "the oldest entry was kept"
	[ -e "$c/$(printf '%064x' 300)" ] || prob "the newest old entry went"
	out=$(heel run -- sh -c 'echo still-runs' 2>&1)
	[ "$out" = still-runs ] || prob "a run after pruning: $out"
}

# heel prunes the projects' caches once a day: unused for 30 days, and
# beyond 32 projects the least recently used; a cache a sandbox left
# read-only directories and links in goes without following them. The
# control: the day's prune done, nothing goes.
wf_tool_caches_are_pruned() {
	local base=$HOMEDIR/.cache/heel-sandbox n
	heel run -- true >/dev/null 2>&1
	[ -d "$base" ] || { prob "no heel-sandbox"; return; }
	as sh -c "
		for i in \$(seq 1 40); do mkdir -p '$base'/p\$i-0000000000000000; touch -d \"\$((i + 2)) days ago\" '$base'/p\$i-0000000000000000; done
		mkdir -p '$base'/old-0000000000000000/go-mod/m '$HOMEDIR/outside' && echo keep >'$HOMEDIR/outside/f'
		ln -s '$HOMEDIR/outside' '$base'/old-0000000000000000/link
		chmod 555 '$base'/old-0000000000000000/go-mod/m '$base'/old-0000000000000000/go-mod
		touch -d '40 days ago' '$base'/old-0000000000000000"
	heel run -- true >/dev/null 2>&1
	n=$(ls "$base" | wc -l)
	[ "$n" = 42 ] || prob "control: the day's prune is done, yet $n of 42 caches are left"
	as touch -d '2 days ago' "$base/.pruned"
	heel run -- true >/dev/null 2>&1
	n=$(ls "$base" | wc -l)
	[ "$n" -le 32 ] || prob "$n caches are left"
	ls -d "$base"/proj-* >/dev/null 2>&1 || prob "the project's own cache went"
	[ ! -e "$base/old-0000000000000000" ] || prob "a cache unused for 40 days is left"
	[ "$(cat "$HOMEDIR/outside/f" 2>&1)" = keep ] || prob "pruning followed a link out of the cache"
	[ -d "$base/p1-0000000000000000" ] || prob "the most recently used of the others went"
	[ ! -e "$base/p40-0000000000000000" ] || prob "the least recently used stayed"
}

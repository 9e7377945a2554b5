#!/bin/bash
# SPDX-License-Identifier: MIT
# heel on a real Mac: the escape ideas of the conformance suite, run for
# real against the SBPL profiles heelc emits. No Mac is available to the
# project, so this script is for anyone who has one; everything else
# about macOS is checked on Linux (golden profiles, the SBPL checker, a
# compile of launcher/macos.c against Darwin's prototypes).
#
# It needs heelc (built on the Mac, or the profiles emitted elsewhere:
# see SMOKE_PROFILES) and /usr/bin/sandbox-exec, which applies a profile
# exactly as heel-exec does (sandbox_init_with_parameters): heel-exec
# itself is optional (HEEL_EXEC=path also runs each case through it).
#
#   tests/macos/smoke.sh                  # HEELC=build/bin/heelc
#   HEELC=/path/heelc tests/macos/smoke.sh
#   SMOKE_DRY_RUN=1 tests/macos/smoke.sh  # any OS: print the sandbox-exec
#                                         # command lines, run nothing
#
# Each case is a blocked action plus a control that shows the same kind
# of action works where the policy allows it. It prints `N passed, N
# failed` and exits 1 on any failure. Files it makes live in a scratch
# directory and, for the protected-path cases, a canary under ~/.ssh that
# it removes again.
set -u
cd "$(dirname "$0")/../.."
HEELC=${HEELC:-build/bin/heelc}
DRY=${SMOKE_DRY_RUN:-}
pass=0 fail=0

die() { echo "smoke: $*" >&2; exit 2; }
if [ -z "$DRY" ]; then
	[ "$(uname -s)" = Darwin ] || die "run it on macOS (or set SMOKE_DRY_RUN=1)"
	[ -x /usr/bin/sandbox-exec ] || die "/usr/bin/sandbox-exec is missing"
fi
[ -x "$HEELC" ] || die "no heelc at $HEELC (set HEELC)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/heel-smoke.XXXXXX") || die "mktemp"
trap 'rm -rf "$scratch"; rm -f "$HOME/.ssh/heel-smoke-canary"' EXIT
workdir=$scratch/work
mkdir -p "$workdir"
# Canonical, as the launcher makes it: /tmp and /var are links on macOS.
canon() { (cd "$1" 2>/dev/null && pwd -P) || printf '%s' "$1"; }
workdir=$(canon "$workdir")

# A parameter's value for this launch: ${NAME} from the environment,
# relative to the current directory, canonicalised where it exists; an
# unset variable gives a path that can never exist (heel-exec does the
# same for an optional rule).
expand() {
	local v=$1 name
	while [[ $v =~ \$\{([A-Z_][A-Z0-9_]*)\} ]]; do
		name=${BASH_REMATCH[1]}
		if [ -z "${!name+x}" ]; then printf '/dev/null/heel-unset'; return; fi
		v=${v//\$\{$name\}/${!name}}
	done
	case $v in /*) ;; *) v=$PWD/${v#./} ;; esac
	if [ -e "$v" ]; then
		if [ -d "$v" ]; then canon "$v"; else printf '%s/%s' "$(canon "$(dirname "$v")")" "$(basename "$v")"; fi
	else
		printf '%s' "$v"
	fi
}

# Compiles POLICY and writes its profile to $scratch/NAME.sb and the
# sandbox-exec -D arguments, one per line, to $scratch/NAME.args.
emit() {
	local policy=$1 name=$2 line kind key val
	"$HEELC" emit sbpl "$policy" >"$scratch/$name.sb" || die "heelc emit sbpl $policy failed"
	: >"$scratch/$name.args"
	while IFS= read -r line; do
		case $line in ';; param '*) ;; *) continue ;; esac
		read -r _ _ key kind val <<<"$line"
		case $kind in
		workdir) val=$workdir ;;
		proxy) val=localhost:9 ;; # nothing listens: the proxy cases only check the rule
		*) val=$(expand "$val") ;;
		esac
		printf -- '-D\n%s=%s\n' "$key" "$val" >>"$scratch/$name.args"
	done <"$scratch/$name.sb"
}

# run NAME CMD...: the command under profile NAME, in the working directory.
run() {
	local name=$1; shift
	local -a args=()
	mapfile -t args <"$scratch/$name.args"
	if [ -n "$DRY" ]; then
		printf 'sandbox-exec -f %s' "$scratch/$name.sb"; printf ' %q' "${args[@]}" -- "$@"; echo
		return 0
	fi
	(cd "$workdir" && /usr/bin/sandbox-exec -f "$scratch/$name.sb" "${args[@]}" -- "$@")
}

expect() { # expect ok|denied DESCRIPTION NAME CMD...
	local want=$1 what=$2; shift 2
	if [ -n "$DRY" ]; then
		# Every parameter the profile names must have a -D value.
		local p missing=
		for p in $(grep -v '^[[:space:]]*;' "$scratch/$1.sb" | grep -o '(param "[A-Z0-9_]*")' | sort -u | cut -d'"' -f2); do
			grep -qx "$p=.*" "$scratch/$1.args" || missing="$missing $p"
		done
		if [ -z "$missing" ] && run "$@" | grep -q '^sandbox-exec -f '; then
			echo "ok   $what (planned)"; pass=$((pass + 1))
		else
			echo "FAIL $what: no value for$missing"; fail=$((fail + 1))
		fi
		return
	fi
	run "$@" >/dev/null 2>&1; local rc=$?
	if { [ "$want" = ok ] && [ $rc = 0 ]; } || { [ "$want" = denied ] && [ $rc != 0 ]; }; then
		echo "ok   $what"; pass=$((pass + 1))
	else
		echo "FAIL $what (exit $rc, wanted $want)"; fail=$((fail + 1))
	fi
}

cat >"$scratch/smoke.heel" <<'POLICY'
heel 1
isolation default
POLICY
emit "$scratch/smoke.heel" default
printf 'heel 1\nisolation strict\n' >"$scratch/strict.heel"
emit "$scratch/strict.heel" strict
# Where the checker is at hand (make check-macos), every profile must pass it.
if [ -n "${SBPL_CHECK:-}" ]; then
	for n in default strict; do
		if "$SBPL_CHECK" "$scratch/$n.sb" >/dev/null; then
			echo "ok   the $n profile passes the SBPL checker"; pass=$((pass + 1))
		else
			echo "FAIL the $n profile fails the SBPL checker"; fail=$((fail + 1))
		fi
	done
fi

mkdir -p "$HOME/.ssh" && echo canary >"$HOME/.ssh/heel-smoke-canary"
echo readable >"$scratch/readable"

# 1. Programs start at all (dyld needs its reads; a too-tight profile
#    kills every program with SIGABRT before main).
expect ok "a system program runs" default /bin/echo hi
expect ok "a shell runs a pipeline" default /bin/sh -c 'echo a | /usr/bin/wc -c'
# 2. Writes: the working directory yes, elsewhere no.
expect ok "write in the working directory" default /bin/sh -c 'echo x > f && test -s f'
expect denied "write in the home" default /usr/bin/touch "$HOME/heel-smoke-written"
expect denied "write in shared temp" default /usr/bin/touch /private/tmp/heel-smoke-written
# 3. Protected paths: not read, not moved away; an unprotected file is read.
expect ok "read an unprotected file" default /bin/cat "$scratch/readable"
expect denied "read ~/.ssh" default /bin/cat "$HOME/.ssh/heel-smoke-canary"
expect denied "list ~/.ssh" default /bin/ls "$HOME/.ssh"
expect denied "rename ~/.ssh away" default /bin/mv "$HOME/.ssh" "$workdir/ssh"
# 4. Nothing written can be run: not in the working directory, not in temp.
expect ok "run a system binary by path" default /bin/sh -c '/bin/cp /bin/echo ./e && /bin/echo ran'
expect denied "exec a binary copied into the working directory" default /bin/sh -c '/bin/cp /bin/echo ./e && ./e hi'
expect denied "exec a script written in the working directory" default /bin/sh -c 'printf "#!/bin/sh\necho hi\n" > s && chmod +x s && ./s'
# 5. Network under deny: nothing, not even DNS.
expect denied "connect out under network deny" default /usr/bin/curl -sS -m 5 -o /dev/null http://example.com/
expect denied "resolve a name under network deny" default /usr/bin/dscacheutil -q host -a name example.com
# 6. strict: the home is not read at all.
expect denied "strict: read the home" strict /bin/ls "$HOME"

if [ -n "${HEEL_EXEC:-}" ]; then
	"$HEELC" "$scratch/smoke.heel" -o "$scratch/smoke.hpol" || die "heelc failed"
	if "$HEEL_EXEC" "$scratch/smoke.hpol" -- /bin/sh -c 'echo x > f && cat f' >/dev/null; then
		echo "ok   heel-exec runs a command"; pass=$((pass + 1))
	else
		echo "FAIL heel-exec runs a command"; fail=$((fail + 1))
	fi
	if "$HEEL_EXEC" "$scratch/smoke.hpol" -- /bin/cat "$HOME/.ssh/heel-smoke-canary" >/dev/null 2>&1; then
		echo "FAIL heel-exec: ~/.ssh was read"; fail=$((fail + 1))
	else
		echo "ok   heel-exec: ~/.ssh not read"; pass=$((pass + 1))
	fi
	# The tree: a child that left the command's session (setsid, via
	# perl's POSIX::setsid: macOS has no setsid(1)) and its own child are
	# killed when the command ends; the control, the same sleeper
	# without setsid, is killed too (it always was, by process group).
	for how in setsid plain; do
		marker="heel-smoke-tree-$how-$$"
		"$HEEL_EXEC" "$scratch/smoke.hpol" -- /usr/bin/perl -e '
			use POSIX; my $how = shift; my $m = shift;
			defined(my $p = fork) or die; if ($p == 0) {
				POSIX::setsid() if $how eq "setsid";
				if (fork == 0) { exec {"/bin/sleep"} "sleep-$m", "300"; }
				exec {"/bin/sleep"} "sleep-$m", "301"; }
			sleep 1; exit 0' "$how" "$marker" >/dev/null 2>&1
		sleep 1
		if pgrep -f "$marker" >/dev/null; then
			echo "FAIL heel-exec: a $how child outlived the sandbox"; fail=$((fail + 1))
			pkill -f "$marker"
		else
			echo "ok   heel-exec: a $how child and its child ended with the command"; pass=$((pass + 1))
		fi
	done
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

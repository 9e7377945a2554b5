#!/bin/bash
# SPDX-License-Identifier: MIT
# heel-exec's AppArmor profile (packaging/apparmor/heel-exec) and its
# installation, checked with the parser of AppArmor 4: Debian 12's 3.0.8
# knows neither `abi <abi/4.0>` nor the `userns` rule, so trixie's
# apparmor_parser is run with trixie's own loader, libraries,
# parser.conf, features, abi and tunables, from a tree `make deps-check`
# fetched (tests/apparmor/run.sh --fetch, through tests/lib/debian-suite.sh,
# into its cache). The suite itself never fetches: without that tree it
# skips by name. Nothing is loaded into the kernel (-Q), nothing is
# written outside a temporary directory. A copy broken on purpose must be
# rejected, so the check can fail.
# Usage: tests/apparmor/run.sh [-v]   (from the top of the repository,
# after make all; prints each failure and "apparmor: N passed, N failed,
# N skipped"; -v each check)
#        tests/apparmor/run.sh --fetch   (make deps-check: fetch the tree)
set -u
HERE=$(cd "$(dirname "$0")/../.." && pwd)
cd "$HERE" || exit 2
# The packages of trixie's parser and what it loads.
TRIXIE_PKGS=(apparmor libapparmor1 libc6 libgcc-s1 libstdc++6)
. tests/lib/debian-suite.sh
if [ "${1:-}" = --fetch ]; then
	ds_root trixie apparmor "${TRIXIE_PKGS[@]}" >/dev/null
	exit
fi
VERBOSE=; [ "${1:-}" = -v ] && VERBOSE=1
PROFILE=packaging/apparmor/heel-exec
pass=0 failed=0 skipped=0
T=$(mktemp -d /tmp/heel-apparmor.XXXXXX)
trap 'rm -rf "$T"' EXIT
LOG=$T/log

ok() { pass=$((pass + 1)); echo "ok   $*" >>"$LOG"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
# check DESC COMMAND...: passes when COMMAND succeeds; its output is
# shown only when it fails.
check() {
	local d=$1; shift
	if "$@" >"$T/why" 2>&1; then ok "$d"; else bad "$d"; sed 's/^/     /' "$T/why" | head -8; fi
}
summary() {
	[ "$VERBOSE" ] && cat "$LOG"
	echo "apparmor: $pass passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

# ------------------------------------------------ trixie's apparmor_parser
if ! R=$(HEEL_DEBIAN_OFFLINE=1 ds_root trixie apparmor "${TRIXIE_PKGS[@]}" 2>/dev/null); then
	skip "every case: trixie's apparmor_parser is not in $DS_CACHE (make deps-check fetches it; the suite fetches nothing)"
	summary
	exit 0
fi
if [ ! -f "$R/usr/share/apparmor-features/features" ]; then
	skip "every case: trixie's apparmor in $DS_CACHE ($(tr '\n' ' ' <"${R%/root}/packages")) has no usr/share/apparmor-features/features to parse against (HEEL_DEBIAN_REFRESH=1 make deps-check fetches it again)"
	summary
	exit 0
fi
LOADER=$R/lib64/ld-linux-x86-64.so.2
[ -e "$LOADER" ] || LOADER=$R/usr/lib64/ld-linux-x86-64.so.2
LIBS=$R/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu
BIN=$R/usr/sbin/apparmor_parser
[ -e "$BIN" ] || BIN=$R/sbin/apparmor_parser
FEATURES=$R/usr/share/apparmor-features/features
# One command for the parser, so install.sh can be given it too.
PARSER=$T/apparmor_parser
# trixie's parser.conf names /usr/share/apparmor-features/features, which
# AppArmor 4.1 reads after the command line: a copy without it, so the
# features below are the ones used.
grep -v '^policy-features' "$R/etc/apparmor/parser.conf" >"$T/parser.conf"
cat >"$PARSER" <<EOF
#!/bin/sh
exec "$LOADER" --library-path "$LIBS" "$BIN" --config-file "$T/parser.conf" \\
	--base "$R/etc/apparmor.d" -I "$R/etc/apparmor.d" \\
	--policy-features "$FEATURES" --kernel-features "$FEATURES" "\$@"
EOF
chmod 755 "$PARSER"
# parse FILE [OPTION...]: parse and compile, never load.
parse() { local f=$1; shift; "$PARSER" -Q -K "$@" "$f"; }

check "trixie's apparmor_parser runs and is AppArmor 4" \
	bash -c "'$PARSER' --version | grep -E 'AppArmor parser version 4\.'"
check "every library it loads comes from trixie's tree" \
	bash -c "out=\$('$LOADER' --library-path '$LIBS' --list '$BIN') || exit 1; echo \"\$out\";
		! echo \"\$out\" | grep -v 'linux-vdso' | grep -v '=> $R/' | grep -q ."

# ------------------------------------------------------------- the profile
check "$PROFILE parses (abi 4.0, userns), no warning (--Werror)" parse "$PROFILE" --Werror
check "$PROFILE holds one profile, heel-exec" bash -c "[ \"\$('$PARSER' -Q -K -N '$PROFILE')\" = heel-exec ]"
check "$PROFILE is unconfined and allows userns" \
	bash -c "out=\$('$PARSER' -Q -K -d '$PROFILE' 2>&1); echo \"\$out\";
		echo \"\$out\" | grep -qx 'Mode: unconfined' && echo \"\$out\" | grep -qx 'userns,'"
check "$PROFILE attaches to the default PREFIX's heel-exec (/usr/local)" \
	bash -c "'$PARSER' -Q -K -D expanded-variables '$PROFILE' 2>&1 | grep -x '@HEEL_PREFIX = \"/usr/local\"'"
# Broken on purpose: each must be rejected.
sed 's/^  userns,$/  userns/' "$PROFILE" >"$T/broken-comma"
sed 's/^  userns,$/  usernamespace,/' "$PROFILE" >"$T/broken-rule"
sed 's/^abi <abi\/4.0>,$/abi <abi\/9.9>,/' "$PROFILE" >"$T/broken-abi"
for b in comma rule abi; do
	check "a copy broken on purpose ($b) differs from the profile" bash -c "! cmp -s '$PROFILE' '$T/broken-$b'"
	check "a copy broken on purpose ($b) is rejected" bash -c "! '$PARSER' -Q -K '$T/broken-$b'"
done
if [ -x /sbin/apparmor_parser ] && /sbin/apparmor_parser --version 2>/dev/null | grep -q 'version [23]\.'; then
	check "this host's older parser rejects it (why trixie's is used): $(/sbin/apparmor_parser --version | head -1)" \
		bash -c "! /sbin/apparmor_parser -Q -K '$PROFILE'"
else
	skip "no AppArmor 2.x/3.x parser on this host to show that an older one rejects the profile"
fi

# ----------------------------------------------------------- make install
D=$T/destdir
if ${MAKE:-make} --no-print-directory -s install DESTDIR="$D" PREFIX=/opt/heel-check >"$T/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/opt/heel-check"
	check "make install: heel-exec at PREFIX/bin" test -x "$D/opt/heel-check/bin/heel-exec"
	check "make install: the profile at DESTDIR/etc/apparmor.d/heel-exec" test -f "$D/etc/apparmor.d/heel-exec"
	check "make install: and a copy in PREFIX/share/heel/apparmor" \
		cmp "$D/etc/apparmor.d/heel-exec" "$D/opt/heel-check/share/heel/apparmor/heel-exec"
	check "make install: the installed profile parses" parse "$D/etc/apparmor.d/heel-exec" --Werror
	check "make install: it attaches to the installed heel-exec (@{HEEL_PREFIX} = /opt/heel-check)" \
		bash -c "'$PARSER' -Q -K -D expanded-variables '$D/etc/apparmor.d/heel-exec' 2>&1 | grep -x '@HEEL_PREFIX = \"/opt/heel-check\"'"
	# What install.sh says when it loads or leaves out the profile (the
	# build's own lines may name this directory, which says apparmor).
	check "make install: nothing loaded, nothing said, with DESTDIR" bash -c "! grep -qiE 'AppArmor profile|apparmor_parser' '$T/install.log'"
else
	bad "make install DESTDIR=... PREFIX=/opt/heel-check"
	sed 's/^/     /' "$T/install.log" | tail -8
fi

# ---------------------------------------- install.sh on a live system
# Emulated below $T: HEEL_APPARMOR_D for /etc/apparmor.d, HEEL_APPARMOR_FS
# for AppArmor's securityfs, APPARMOR_PARSER for the parser.
live() { # live NAME FS PARSER: install.sh without DESTDIR
	HEEL_APPARMOR_D=$T/$1 HEEL_APPARMOR_FS=$2 APPARMOR_PARSER=$3 \
		sh packaging/apparmor/install.sh "$PROFILE" /usr/local >"$T/$1.out" 2>&1
}
# A parser older than 4.0: this host's, or one that answers as 3.0.8 does.
OLD=/sbin/apparmor_parser
if ! { [ -x "$OLD" ] && "$OLD" --version 2>/dev/null | grep -q 'version [23]\.'; }; then
	OLD=$T/old_parser
	printf '#!/bin/sh\n[ "$1" = --version ] && { echo "AppArmor parser version 3.0.8"; exit 0; }\necho "AppArmor parser error for $3 in profile $3 at line 16: Could not open '"'"'abi/4.0'"'"'" >&2\nexit 1\n' >"$OLD"
	chmod 755 "$OLD"
fi
live old "$T/no-fs" "$OLD"
check "live, older parser: exit 0" test $? = 0
check "live, older parser: the profile is left out" test ! -e "$T/old/heel-exec"
check "live, older parser: one line says so" bash -c "[ \$(wc -l <'$T/old.out') = 1 ] && grep -q 'not installed: .*needs AppArmor 4.0' '$T/old.out'"

live disabled "$T/no-fs" "$PARSER"
check "live, AppArmor not enabled: exit 0" test $? = 0
check "live, AppArmor not enabled: installed, quietly" bash -c "[ -f '$T/disabled/heel-exec' ] && [ ! -s '$T/disabled.out' ]"
check "live, AppArmor not enabled: the installed file parses" parse "$T/disabled/heel-exec"

# Enabled: the parser is asked to load it (-r); this one records that and
# parses instead, since the test machines run no AppArmor.
mkdir -p "$T/fs"
cat >"$T/recording_parser" <<EOF
#!/bin/sh
echo "\$*" >>"$T/parser-calls"
[ "\$1" = -r ] && exec "$PARSER" -Q -K "\$2"
exec "$PARSER" "\$@"
EOF
chmod 755 "$T/recording_parser"
if [ "$(id -u)" = 0 ]; then
	live enabled "$T/fs" "$T/recording_parser"
	check "live, AppArmor enabled: exit 0" test $? = 0
	check "live, AppArmor enabled: loaded with apparmor_parser -r" grep -qx -- "-r $T/enabled/heel-exec" "$T/parser-calls"
	check "live, AppArmor enabled: says so" grep -q "profile loaded: $T/enabled/heel-exec" "$T/enabled.out"
else
	skip "live, AppArmor enabled: loading is only tried as root"
fi

# ------------------------- make install without DESTDIR: PREFIX only
# What make install runs (--staged), for a PREFIX of a user's own, on a
# system where AppArmor is enabled: the profile stays in PREFIX, one line
# says how to put it into /etc/apparmor.d, and nothing is written there.
etc_before=$(ls -l --time-style=full-iso /etc/apparmor.d/heel-exec 2>&1)
rm -f "$T/parser-calls"
HEEL_APPARMOR_FS=$T/fs APPARMOR_PARSER=$T/recording_parser \
	sh packaging/apparmor/install.sh --staged "$PROFILE" "$T/pfx" >"$T/staged.out" 2>&1
check "make install, no DESTDIR: exit 0" test $? = 0
check "make install, no DESTDIR: the profile in PREFIX/share/heel/apparmor" \
	grep -qx "@{HEEL_PREFIX}=$T/pfx" "$T/pfx/share/heel/apparmor/heel-exec"
check "make install, no DESTDIR: /etc/apparmor.d/heel-exec untouched" \
	test "$(ls -l --time-style=full-iso /etc/apparmor.d/heel-exec 2>&1)" = "$etc_before"
check "make install, no DESTDIR: nothing loaded" bash -c "! grep -q -- '^-r' '$T/parser-calls' 2>/dev/null"
check "make install, no DESTDIR: one line names make install-apparmor" \
	bash -c "[ \$(wc -l <'$T/staged.out') = 1 ] && grep -q 'sudo make install-apparmor PREFIX=$T/pfx' '$T/staged.out'"
HEEL_APPARMOR_FS=$T/no-fs sh packaging/apparmor/install.sh --staged "$PROFILE" "$T/pfx2" >"$T/staged2.out" 2>&1
check "make install, no DESTDIR, AppArmor not enabled: quiet" test ! -s "$T/staged2.out"
sh packaging/apparmor/install.sh --remove --staged "$PROFILE" "$T/pfx" >"$T/unstaged.out" 2>&1
check "make uninstall, no DESTDIR: the copy in PREFIX removed" test ! -e "$T/pfx/share/heel/apparmor"

# ------------------- install-apparmor over a profile already in place
# The same PREFIX's (an older version): replaced, and said. Another
# PREFIX's, or a file not heel's: left as it is, the install fails,
# naming APPARMOR_REPLACE=1, which replaces it (and says what it was).
over() { # over NAME PREFIX [ENV...]
	local n=$1 p=$2; shift 2
	env HEEL_APPARMOR_D="$T/over" HEEL_APPARMOR_FS="$T/no-fs" APPARMOR_PARSER="$PARSER" "$@" \
		sh packaging/apparmor/install.sh "$PROFILE" "$p" >"$T/over-$n.out" 2>&1
}
over first /usr/local
check "install-apparmor: a first install" grep -qx '@{HEEL_PREFIX}=/usr/local' "$T/over/heel-exec"
over same /usr/local
check "install-apparmor again, the same file: exit 0, quiet" bash -c "[ $? = 0 ] && [ ! -s '$T/over-same.out' ]"
echo "# an older version of it" >>"$T/over/heel-exec"
over older /usr/local
check "install-apparmor over an older profile of the same PREFIX: replaced" \
	bash -c "[ $? = 0 ] && ! grep -q 'older version' '$T/over/heel-exec'"
check "... and said" grep -q "replaces heel's profile for /usr/local" "$T/over-older.out"
over other /opt/other
check "install-apparmor for another PREFIX: refused" test $? != 0
check "... the profile there is left as it is" grep -qx '@{HEEL_PREFIX}=/usr/local' "$T/over/heel-exec"
check "... and the refusal names both and APPARMOR_REPLACE=1" \
	grep -q "heel-exec's profile for /usr/local, not the one for /opt/other.*APPARMOR_REPLACE=1" "$T/over-other.out"
over replace /opt/other APPARMOR_REPLACE=1
check "APPARMOR_REPLACE=1 replaces it, and says what it replaced" \
	bash -c "grep -qx '@{HEEL_PREFIX}=/opt/other' '$T/over/heel-exec' && grep -q 'replaces heel.s profile for /usr/local' '$T/over-replace.out'"
echo "profile someone-else {}" >"$T/over/heel-exec"
over foreign /opt/other
check "install-apparmor over a file that is not heel's: refused, left as it is" \
	bash -c "[ $? != 0 ] && grep -qx 'profile someone-else {}' '$T/over/heel-exec' && grep -q 'not heel.s profile' '$T/over-foreign.out'"

HEEL_APPARMOR_D=$T/space APPARMOR_PARSER=$PARSER sh packaging/apparmor/install.sh "$PROFILE" "/opt/my heel" >"$T/space.out" 2>&1
check "a PREFIX an AppArmor variable cannot hold is refused" test $? != 0
check "... and nothing is installed" test ! -e "$T/space/heel-exec"

summary

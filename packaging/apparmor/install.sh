#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs heel-exec's AppArmor profile (packaging/apparmor/heel-exec) for
# the heel-exec `make install` installs: PREFIX/bin/heel-exec.
#
# Nothing outside PREFIX or DESTDIR is written unless asked for by name,
# and a profile already in place is never replaced without a word:
#
#   --staged (make install): the profile goes to
#     DESTDIR/PREFIX/share/heel/apparmor/heel-exec; with DESTDIR (a staged
#     install, a package) also to DESTDIR/etc/apparmor.d/heel-exec, which
#     the package installs; nothing is loaded: that is the target
#     system's business. Without DESTDIR, where AppArmor is enabled, one
#     line says how to install it into /etc/apparmor.d.
#   (no flag: make install-apparmor) into /etc/apparmor.d/heel-exec on
#     this system:
#   - where an apparmor_parser exists it must accept the profile first: a
#     parser older than AppArmor 4.0 knows neither `abi <abi/4.0>` nor
#     the `userns` rule, and a file it rejects in /etc/apparmor.d would
#     break the loading of every profile at boot; such a system has no
#     user-namespace restriction to lift (the kernels that restrict come
#     with a parser that knows the rule), so the profile is left out,
#     with one line saying so;
#   - a file already there is replaced only when it is heel's profile for
#     the same PREFIX (an older version), saying so; heel's profile for
#     another PREFIX, or a file that is not heel's, is left alone and the
#     install fails, naming APPARMOR_REPLACE=1, which replaces it;
#   - where AppArmor is enabled (/sys/kernel/security/apparmor) and we
#     are root, apparmor_parser -r loads (or replaces) it.
#
# Usage: packaging/apparmor/install.sh [--remove] [--staged] PROFILE PREFIX [DESTDIR]
#   --remove (make uninstall, make uninstall-apparmor): removes the
#   profile it installed for this PREFIX (and unloads it where it loaded
#   it); another file of that name is left alone.
# Env (for tests/apparmor): APPARMOR_PARSER (the parser, default
# apparmor_parser from PATH, /sbin or /usr/sbin), HEEL_APPARMOR_D (default
# DESTDIR/etc/apparmor.d), HEEL_APPARMOR_FS (default
# /sys/kernel/security/apparmor), APPARMOR_REPLACE=1 (replace a profile
# that is not this PREFIX's).
set -eu

remove= staged=
while :; do
	case ${1:-} in
	--remove) remove=1; shift ;;
	--staged) staged=1; shift ;;
	*) break ;;
	esac
done
src=$1 prefix=$2 destdir=${3:-}
dir=${HEEL_APPARMOR_D:-$destdir/etc/apparmor.d}
fs=${HEEL_APPARMOR_FS:-/sys/kernel/security/apparmor}
share=$destdir$prefix/share/heel/apparmor

# The prefix becomes part of a profile: an AppArmor variable's value must
# be a plain absolute path (no spaces, quotes, globs or commas).
case $prefix in
/*) ;;
*) echo "install.sh: PREFIX must be an absolute path: '$prefix'" >&2; exit 1 ;;
esac
if printf '%s' "$prefix" | LC_ALL=C grep -q '[^A-Za-z0-9._/+-]'; then
	echo "install.sh: PREFIX '$prefix' has characters an AppArmor profile cannot hold as they are" >&2
	exit 1
fi
prefix=$(printf '%s' "$prefix" | sed 's|//*|/|g; s|\(.\)/$|\1|')

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
sed "s|^@{HEEL_PREFIX}=.*|@{HEEL_PREFIX}=$prefix|" "$src" >"$tmp"
grep -qx "@{HEEL_PREFIX}=$prefix" "$tmp" || { echo "install.sh: $src has no @{HEEL_PREFIX}= line" >&2; exit 1; }

# The system's directory is written to only when asked for by name
# (install-apparmor), or inside DESTDIR.
system=1
[ -n "$staged" ] && [ -z "$destdir" ] && [ -z "${HEEL_APPARMOR_D:-}" ] && system=

if [ -n "$remove" ]; then
	if [ -n "$staged" ]; then
		rm -f "$share/heel-exec"
		rmdir "$share" 2>/dev/null || true
	fi
	f=$dir/heel-exec
	if [ -z "$system" ]; then
		if [ -f "$f" ] && grep -qx "@{HEEL_PREFIX}=$prefix" "$f"; then
			echo "heel-exec's AppArmor profile for $prefix stays in $f (outside PREFIX):" \
				"\`sudo make uninstall-apparmor PREFIX=$prefix\` removes it"
		fi
		exit 0
	fi
	[ -f "$f" ] || exit 0
	if ! grep -qx "@{HEEL_PREFIX}=$prefix" "$f"; then
		echo "install.sh: $f is not the profile for $prefix; left alone" >&2
		exit 0
	fi
	p=${APPARMOR_PARSER:-$(command -v apparmor_parser 2>/dev/null || true)}
	if [ -z "$destdir" ] && [ -n "$p" ] && [ -d "$fs" ] && [ "$(id -u)" = 0 ]; then
		"$p" -R "$f" 2>/dev/null || true
	fi
	rm -f "$f"
	rmdir "$dir" 2>/dev/null || true
	exit 0
fi

if [ -n "$staged" ]; then
	install -d "$share"
	install -m 0644 "$tmp" "$share/heel-exec"
	if [ -z "$system" ]; then
		# Said only where it matters: AppArmor is enabled here.
		if [ -d "$fs" ] && ! cmp -s "$tmp" "$dir/heel-exec" 2>/dev/null; then
			echo "heel-exec's AppArmor profile (it lets $prefix/bin/heel-exec make user" \
				"namespaces where AppArmor restricts them) is in $share/heel-exec, not in" \
				"$dir (outside PREFIX): \`sudo make install-apparmor PREFIX=$prefix\` installs" \
				"and loads it"
		fi
		exit 0
	fi
fi

parser=${APPARMOR_PARSER:-}
if [ -z "$parser" ]; then
	for p in "$(command -v apparmor_parser 2>/dev/null || true)" /sbin/apparmor_parser /usr/sbin/apparmor_parser; do
		if [ -n "$p" ] && [ -x "$p" ]; then parser=$p; break; fi
	done
fi

if [ -z "$destdir" ] && [ -n "$parser" ]; then
	if ! out=$("$parser" -Q -K "$tmp" 2>&1); then
		ver=$("$parser" --version 2>/dev/null | head -1 || true)
		echo "heel-exec's AppArmor profile not installed: ${ver:-this apparmor_parser} rejects it" \
			"(the \`userns\` rule needs AppArmor 4.0, and AppArmor without it does not restrict" \
			"user namespaces): $(printf '%s' "$out" | grep -v 'Cache read/write disabled' | tail -1)"
		exit 0
	fi
fi
# What is there already: the same file (nothing to do but load it),
# heel's profile for this PREFIX (an older one: replaced, said), or
# anything else (left alone unless APPARMOR_REPLACE=1).
f=$dir/heel-exec
replaced=
if [ -e "$f" ] || [ -L "$f" ]; then
	if cmp -s "$tmp" "$f"; then
		:
	elif [ -f "$f" ] && [ ! -L "$f" ] && grep -qx "@{HEEL_PREFIX}=$prefix" "$f"; then
		replaced="heel's profile for $prefix that was there"
	elif [ "${APPARMOR_REPLACE:-}" = 1 ]; then
		replaced="$(grep -m1 '^@{HEEL_PREFIX}=' "$f" 2>/dev/null | sed 's/^@{HEEL_PREFIX}=/heel'"'"'s profile for /' || true)"
		replaced=${replaced:-"a file that is not heel's profile"}
	else
		other=$(grep -m1 '^@{HEEL_PREFIX}=' "$f" 2>/dev/null | sed 's/^@{HEEL_PREFIX}=//' || true)
		if [ -n "$other" ]; then what="heel-exec's profile for $other"; else what="not heel's profile"; fi
		echo "install.sh: $f is already there and is $what, not the one for $prefix:" \
			"left as it is; APPARMOR_REPLACE=1 replaces it" >&2
		exit 1
	fi
fi
install -d "$dir"
install -m 0644 "$tmp" "$f"
[ -n "$replaced" ] && echo "heel-exec's AppArmor profile: $f replaces $replaced"
if [ -z "$destdir" ] && [ -n "$parser" ] && [ -d "$fs" ] && [ "$(id -u)" = 0 ]; then
	"$parser" -r "$f"
	echo "heel-exec's AppArmor profile loaded: $f (allows user namespaces to $prefix/bin/heel-exec)"
fi
exit 0

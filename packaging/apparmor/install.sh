#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs heel-exec's AppArmor profile (packaging/apparmor/heel-exec) for
# the heel-exec `make install` installs: PREFIX/bin/heel-exec.
#
# With DESTDIR (a staged install, a package) the file goes to
# DESTDIR/etc/apparmor.d/heel-exec and nothing is loaded: that is the
# target system's business. Without it, on this system:
#   - where an apparmor_parser exists it must accept the profile first: a
#     parser older than AppArmor 4.0 knows neither `abi <abi/4.0>` nor
#     the `userns` rule, and a file it rejects in /etc/apparmor.d would
#     break the loading of every profile at boot; such a system has no
#     user-namespace restriction to lift (the kernels that restrict come
#     with a parser that knows the rule), so the profile is left out,
#     with one line saying so;
#   - the file goes to /etc/apparmor.d/heel-exec;
#   - where AppArmor is enabled (/sys/kernel/security/apparmor) and we
#     are root, apparmor_parser -r loads (or replaces) it;
#   - otherwise it is only installed, quietly.
#
# Usage: packaging/apparmor/install.sh [--remove] PROFILE PREFIX [DESTDIR]
#   --remove (make uninstall): removes the profile it installed for this
#   PREFIX (and unloads it where it loaded it); another file of that name
#   is left alone.
# Env (for tests/apparmor): APPARMOR_PARSER (the parser, default
# apparmor_parser from PATH, /sbin or /usr/sbin), HEEL_APPARMOR_D (default
# DESTDIR/etc/apparmor.d), HEEL_APPARMOR_FS (default
# /sys/kernel/security/apparmor).
set -eu

remove=
if [ "${1:-}" = --remove ]; then remove=1; shift; fi
src=$1 prefix=$2 destdir=${3:-}
dir=${HEEL_APPARMOR_D:-$destdir/etc/apparmor.d}
fs=${HEEL_APPARMOR_FS:-/sys/kernel/security/apparmor}

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

if [ -n "$remove" ]; then
	f=$dir/heel-exec
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
install -d "$dir"
install -m 0644 "$tmp" "$dir/heel-exec"
if [ -z "$destdir" ] && [ -n "$parser" ] && [ -d "$fs" ] && [ "$(id -u)" = 0 ]; then
	"$parser" -r "$dir/heel-exec"
	echo "heel-exec's AppArmor profile loaded: $dir/heel-exec (allows user namespaces to $prefix/bin/heel-exec)"
fi

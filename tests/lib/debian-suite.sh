#!/bin/bash
# SPDX-License-Identifier: MIT
# Packages of a Debian suite unpacked into a tree of their own, never
# installed: to run a newer tool than the host has (trixie's
# apparmor_parser on Debian 12) with that suite's own loader and
# libraries beside it:
#     ROOT/lib64/ld-linux-x86-64.so.2 \
#         --library-path ROOT/lib/x86_64-linux-gnu:ROOT/usr/lib/x86_64-linux-gnu \
#         ROOT/usr/sbin/TOOL ...
# APT runs under a private APT_CONFIG (its own sources.list, lists, cache
# and status below the cache directory), so the host's APT sources and
# state are never read or changed. The archive is checked against
# Debian's keyring (debian-archive-keyring).
#
# Sourced (. tests/lib/debian-suite.sh), it defines:
#   ds_root SUITE NAME PKG...   the tree NAME of SUITE holding PKG...:
#                               fetched and unpacked once, then reused;
#                               prints its path
#   ds_fetch SUITE DIR PKG...   downloads the .debs of PKG... into DIR
#   ds_unpack DIR ROOT          unpacks every .deb in DIR into ROOT
# Run as a command: tests/lib/debian-suite.sh SUITE NAME PKG...  (ds_root)
#
# Cache (HEEL_DEBIAN_CACHE, default ~/.cache/heel-debian):
#   apt/SUITE/           the private APT state; its package lists are
#                        dropped after each fetch (only trees are kept)
#   SUITE/NAME/root/     the unpacked packages
#   SUITE/NAME/packages  "package version" of each, written last: a tree
#                        without it is incomplete and made again
# Env: HEEL_DEBIAN_MIRROR (default http://deb.debian.org),
#      HEEL_DEBIAN_REFRESH=1 (fetch and unpack again),
#      HEEL_DEBIAN_OFFLINE=1 (never fetch: a tree not in the cache is an
#      error; what test suites use, whose trees make deps-check fetched).
# Quiet when cached; what it says goes to stderr, the path to stdout.

DS_CACHE=${HEEL_DEBIAN_CACHE:-${HOME:-/root}/.cache/heel-debian}
DS_MIRROR=${HEEL_DEBIAN_MIRROR:-http://deb.debian.org}
DS_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

ds_die() { echo "debian-suite: $*" >&2; return 1; }

# ds_apt SUITE: writes the private APT configuration of SUITE and prints
# its path (for APT_CONFIG).
ds_apt() {
	local suite=$1 a
	a=$DS_CACHE/apt/$suite
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/apt.conf.d" \
		"$a/etc/preferences.d" "$a/etc/sources.list.d" "$a/etc/trusted.gpg.d" || return 1
	touch "$a/status"
	echo "deb [signed-by=$DS_KEYRING] $DS_MIRROR/debian $suite main" >"$a/sources.list"
	cat >"$a/apt.conf" <<EOF
Dir::State "$a";
Dir::State::Lists "$a/lists";
Dir::State::status "$a/status";
Dir::Cache "$a/cache";
Dir::Cache::srcpkgcache "";
Dir::Etc "$a/etc";
Dir::Etc::main "$a/etc/apt.conf";
Dir::Etc::SourceList "$a/sources.list";
Dir::Etc::SourceParts "$a/etc/sources.list.d";
Dir::Etc::Preferences "$a/etc/preferences";
Dir::Etc::PreferencesParts "$a/etc/preferences.d";
Dir::Etc::Parts "$a/etc/apt.conf.d";
Dir::Etc::trusted "$DS_KEYRING";
Dir::Etc::TrustedParts "$a/etc/trusted.gpg.d";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::Retries "2";
EOF
	echo "$a/apt.conf"
}

ds_fetch() {
	local suite=$1 dir=$2 conf log rc=0
	shift 2
	[ -r "$DS_KEYRING" ] || { ds_die "$DS_KEYRING is missing (install debian-archive-keyring)"; return 1; }
	conf=$(ds_apt "$suite") || return 1
	log=$(mktemp) || return 1
	mkdir -p "$dir"
	echo "debian-suite: fetching $* from $suite ($DS_MIRROR)" >&2
	if ! APT_CONFIG=$conf apt-get update -q >"$log" 2>&1; then
		grep -E '^(E:|Err:|W:)' "$log" | head -5 >&2
		ds_die "cannot read the package lists of $suite from $DS_MIRROR"
		rc=1
	elif ! (cd "$dir" && APT_CONFIG=$conf apt-get download -q "$@") >"$log" 2>&1; then
		cat "$log" >&2
		ds_die "apt-get download $* ($suite) failed"
		rc=1
	fi
	# The lists are only needed to resolve this download.
	rm -rf "$log" "${conf%/apt.conf}/lists" "${conf%/apt.conf}/cache"
	return $rc
}

ds_unpack() {
	local dir=$1 root=$2 deb
	mkdir -p "$root"
	for deb in "$dir"/*.deb; do
		[ -e "$deb" ] || { ds_die "no packages in $dir"; return 1; }
		dpkg-deb -x "$deb" "$root" || { ds_die "cannot unpack $deb"; return 1; }
	done
}

ds_root() {
	local suite=$1 name=$2 d tmp deb
	shift 2
	[ $# -gt 0 ] || { ds_die "usage: ds_root SUITE NAME PKG..."; return 1; }
	d=$DS_CACHE/$suite/$name
	if [ -s "$d/packages" ] && [ "${HEEL_DEBIAN_REFRESH:-}" != 1 ]; then
		echo "$d/root"
		return 0
	fi
	if [ "${HEEL_DEBIAN_OFFLINE:-}" = 1 ]; then
		ds_die "$suite/$name is not in $DS_CACHE (HEEL_DEBIAN_OFFLINE=1: nothing is fetched)"
		return 1
	fi
	mkdir -p "$DS_CACHE/$suite" || return 1
	# Made aside and moved in whole: an interrupted run leaves no half
	# tree that looks complete.
	tmp=$(mktemp -d "$DS_CACHE/$suite/.$name.XXXXXX") || return 1
	if ! ds_fetch "$suite" "$tmp/debs" "$@" || ! ds_unpack "$tmp/debs" "$tmp/root"; then
		rm -rf "$tmp"
		return 1
	fi
	for deb in "$tmp/debs"/*.deb; do
		dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb"
	done >"$tmp/packages"
	rm -rf "$tmp/debs" "$d"
	mv "$tmp" "$d" || return 1
	echo "$d/root"
}

# Run, not sourced: ds_root with the arguments.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	ds_root "$@"
fi

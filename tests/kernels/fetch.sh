#!/bin/bash
# SPDX-License-Identifier: MIT
# Fetches what the kernel guests need from Debian's archive into a cache,
# so that a second run needs no network:
#   <cache>/kernel-<series>/vmlinuz       the kernel
#   <cache>/kernel-<series>/modules/      the .ko files the initramfs loads
#                                         (decompressed here: busybox's
#                                         insmod may not read .ko.xz)
#   <cache>/kernel-<series>/load-order    those modules, dependencies first
#   <cache>/kernel-<series>/info          package, version, kernel release
#   <cache>/virtiofsd/                    trixie's virtiofsd with trixie's
#                                         loader and libraries beside it
# A series is "6.1", "6.12", "7.3"...: the newest cloud-amd64 kernel of
# that series in the package lists at fetch time; the version used is
# recorded in info and stays until the cache entry is removed (or
# HEEL_KERNEL_REFRESH=1), so runs are reproducible.
#
# APT runs under a private APT_CONFIG (its own sources, lists, cache and
# status), so the host's APT state is never read or changed.
#
# Usage: tests/kernels/fetch.sh SERIES...      (quiet when all is cached)
# Env:   HEEL_KERNEL_CACHE (default ~/.cache/heel-kernels),
#        HEEL_DEBIAN_MIRROR (default http://deb.debian.org),
#        HEEL_KERNEL_REFRESH=1 (resolve and fetch again)
set -euo pipefail

CACHE=${HEEL_KERNEL_CACHE:-${HOME:-/root}/.cache/heel-kernels}
MIRROR=${HEEL_DEBIAN_MIRROR:-http://deb.debian.org}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# The modules the initramfs needs when they are not built in: the virtio
# PCI transport, virtiofs (the host's / ) and overlay (a writable root);
# and veth, which heel-exec's capture of an allow-list's connections
# links the sandbox with (a real system loads it on demand; the guest's
# init has no modprobe). Their own dependencies (fuse, virtio_ring...) are
# found from the modules. A cache entry fetched for another list is
# fetched again.
WANT_MODULES=(virtio_pci virtiofs overlay veth)

die() { echo "tests/kernels/fetch.sh: $*" >&2; exit 1; }
[ $# -gt 0 ] || die "usage: fetch.sh SERIES... (e.g. 6.1 6.12 7.3)"
for s in "$@"; do
	[[ $s =~ ^[0-9]+\.[0-9]+$ ]] || die "'$s' is not a kernel series (like 6.1 or 7.3)"
done
mkdir -p "$CACHE"

# ------------------------------------------------------------- what's missing
need=()
for s in "$@"; do
	if [ "${HEEL_KERNEL_REFRESH:-}" = 1 ] || ! [ -s "$CACHE/kernel-$s/info" ] ||
		! grep -qxF "modules=${WANT_MODULES[*]}" "$CACHE/kernel-$s/info"; then need+=("$s"); fi
done
VFS=$CACHE/virtiofsd
need_vfs=
[ -s "$VFS/ok" ] || need_vfs=1
[ ${#need[@]} -gt 0 ] || [ -n "$need_vfs" ] || exit 0

# ------------------------------------------------------------- private APT
A=$CACHE/apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/etc/apt.conf.d" \
	"$A/etc/preferences.d" "$A/etc/sources.list.d" "$A/etc/trusted.gpg.d"
touch "$A/status"
[ -r "$KEYRING" ] || die "$KEYRING is missing (install debian-archive-keyring)"
# Every suite a series may come from: 5.10 (bullseye), 6.1 (bookworm),
# 6.12 (bookworm-backports, trixie), newer ones (trixie-backports), and
# trixie for virtiofsd (bookworm has none).
{
	for suite in bullseye bullseye-updates bookworm bookworm-updates bookworm-backports \
		trixie trixie-updates trixie-backports; do
		echo "deb [signed-by=$KEYRING] $MIRROR/debian $suite main"
	done
	for suite in bullseye-security bookworm-security trixie-security; do
		echo "deb [signed-by=$KEYRING] $MIRROR/debian-security $suite main"
	done
} >"$A/sources.list"
cat >"$A/apt.conf" <<EOF
Dir::State "$A";
Dir::State::Lists "$A/lists";
Dir::State::status "$A/status";
Dir::Cache "$A/cache";
Dir::Etc "$A/etc";
Dir::Etc::main "$A/etc/apt.conf";
Dir::Etc::SourceList "$A/sources.list";
Dir::Etc::SourceParts "$A/etc/sources.list.d";
Dir::Etc::Preferences "$A/etc/preferences";
Dir::Etc::PreferencesParts "$A/etc/preferences.d";
Dir::Etc::Parts "$A/etc/apt.conf.d";
Dir::Etc::trusted "$KEYRING";
Dir::Etc::TrustedParts "$A/etc/trusted.gpg.d";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::Retries "2";
Dir::Cache::srcpkgcache "";
EOF
export APT_CONFIG=$A/apt.conf

# One update per run: the lists are what "newest at fetch time" means.
# They (~250 MB) are dropped afterwards, as are half-unpacked trees of an
# interrupted run: the cache keeps only what the guests use.
log=$(mktemp)
trap 'rm -rf "$log" "$CACHE"/.k* "$CACHE"/.vfs.* "$A/lists" "$A/cache"' EXIT
mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
echo "tests/kernels: fetching package lists from $MIRROR (cache: $CACHE)" >&2
# A suite that is gone (an old release moved off the mirror) is not an
# error as long as the ones needed are there: resolving names says so.
apt-get update -q >"$log" 2>&1 || true
if ! ls "$A/lists/"*_Packages >/dev/null 2>&1; then
	grep -E '^(E:|Err:|W:)' "$log" | head -5 >&2
	die "cannot reach the Debian archive at $MIRROR, and $CACHE lacks: ${need[*]} ${need_vfs:+virtiofsd}"
fi

# newest PKG...: of the given packages, the one with the highest version
# in any suite, printed as "package version".
newest() {
	local best= bestv= p v
	for p in "$@"; do
		while read -r v; do
			if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then best=$p bestv=$v; fi
		done < <(apt-cache madison "$p" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}')
	done
	[ -n "$best" ] && echo "$best $bestv"
}

download() { # download DIR PKG=VERSION...
	local d=$1; shift
	(cd "$d" && apt-get download -q "$@" >"$log" 2>&1) || { cat "$log" >&2; die "apt-get download $* failed"; }
}

# ------------------------------------------------------------- kernels
fetch_kernel() {
	local s=$1 re cands pick pkg ver deps tmp k rel vmlinuz mdir m
	re="^linux-image-${s//./\\.}[.-][^ ]*-cloud-amd64$"
	mapfile -t cands < <(apt-cache pkgnames linux-image- | grep -E "$re" || true)
	[ ${#cands[@]} -gt 0 ] || die "no linux-image-$s*-cloud-amd64 package in the archive's lists"
	pick=$(newest "${cands[@]}") || die "no installable version of linux-image-$s*-cloud-amd64"
	read -r pkg ver <<<"$pick"
	echo "tests/kernels: kernel $s: $pkg $ver" >&2
	# Since 7.0 linux-image-* is a stub: the kernel and its modules are in
	# the linux-binary-* and linux-modules-* packages it depends on.
	deps=$(apt-cache show "$pkg=$ver" | sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
		sed -E 's/^ *//; s/ .*//' | grep -E '^linux-(binary|modules)-' || true)
	tmp=$(mktemp -d "$CACHE/.k$s.XXXXXX")
	mkdir "$tmp/deb" "$tmp/root"
	local args=("$pkg=$ver") dp
	for dp in $deps; do args+=("$dp=$ver"); done
	download "$tmp/deb" "${args[@]}"
	for k in "$tmp/deb"/*.deb; do dpkg-deb -x "$k" "$tmp/root"; done
	vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-* "$tmp"/root/usr/lib/modules/*/vmlinuz "$tmp"/root/lib/modules/*/vmlinuz 2>/dev/null | head -1 || true)
	[ -n "$vmlinuz" ] || die "$pkg $ver: no vmlinuz in ${args[*]}"
	mdir=$(ls -d "$tmp"/root/usr/lib/modules/*/kernel "$tmp"/root/lib/modules/*/kernel 2>/dev/null | head -1 || true)
	[ -n "$mdir" ] || die "$pkg $ver: no modules in ${args[*]}"
	mdir=${mdir%/kernel}
	rel=$(basename "$mdir")
	k=$tmp/out
	mkdir -p "$k/modules"
	cp "$vmlinuz" "$k/vmlinuz"
	# Load order: each module after its dependencies. modules.dep is made
	# by depmod at install time (not shipped, and kmod may not be on the
	# host), so the dependencies come from each module's own .modinfo
	# "depends=" entry.
	local -A done_=()
	order=()
	add() {
		local name=$1 pat path dep
		[ -z "${done_[$name]:-}" ] || return 0
		done_[$name]=1
		pat=${name//_/[_-]}
		if grep -qE "/$pat\.ko$" "$mdir/modules.builtin" 2>/dev/null; then return 0; fi
		path=$(find "$mdir/kernel" -regextype egrep -regex ".*/$pat\.ko(\.xz|\.zst|\.gz)?" | head -1)
		# Since 7.0 modules.builtin is not in the packages fetched: a module
		# that is not shipped is taken as built in (the guest's init says
		# so plainly if virtiofs or overlay then cannot be mounted).
		[ -n "$path" ] || return 0
		case $path in
		*.ko.xz) xz -dc "$path" >"$k/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$path" >"$k/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$path" >"$k/modules/$name.ko" ;;
		*) cp "$path" "$k/modules/$name.ko" ;;
		esac
		for dep in $(tr '\0' '\n' <"$k/modules/$name.ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' '); do
			add "${dep//-/_}"
		done
		order+=("$name")
	}
	for m in "${WANT_MODULES[@]}"; do add "$m"; done
	printf '%s\n' "${order[@]}" >"$k/load-order"
	{
		echo "series=$s"
		echo "package=$pkg"
		echo "version=$ver"
		echo "release=$rel"
		echo "fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "modules=${WANT_MODULES[*]}"
	} >"$k/info"
	rm -rf "$CACHE/kernel-$s"
	mv "$k" "$CACHE/kernel-$s"
	rm -rf "$tmp"
}
for s in "${need[@]}"; do fetch_kernel "$s"; done

# ------------------------------------------------------------- virtiofsd
# bookworm has no virtiofsd; trixie's needs glibc 2.39, so it runs with
# trixie's own loader and libraries (ld.so --library-path), never the
# host's.
if [ -n "$need_vfs" ]; then
	echo "tests/kernels: virtiofsd from trixie" >&2
	tmp=$(mktemp -d "$CACHE/.vfs.XXXXXX")
	mkdir "$tmp/deb" "$tmp/root"
	download "$tmp/deb" virtiofsd/trixie libc6/trixie libgcc-s1/trixie libseccomp2/trixie libcap-ng0/trixie
	for k in "$tmp/deb"/*.deb; do dpkg-deb -x "$k" "$tmp/root"; done
	r=$tmp/root
	ld=$(ls "$r"/usr/lib64/ld-linux-x86-64.so.2 "$r"/lib64/ld-linux-x86-64.so.2 2>/dev/null | head -1 || true)
	[ -n "$ld" ] || die "no ld-linux-x86-64.so.2 in trixie's libc6"
	lp=$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu
	if "$ld" --library-path "$lp" --list "$r/usr/libexec/virtiofsd" 2>&1 | grep -q 'not found'; then
		"$ld" --library-path "$lp" --list "$r/usr/libexec/virtiofsd" >&2
		die "virtiofsd needs a library not fetched (see above)"
	fi
	"$ld" --library-path "$lp" "$r/usr/libexec/virtiofsd" --version >"$log" 2>&1 ||
		{ cat "$log" >&2; die "trixie's virtiofsd does not run here"; }
	rm -rf "$tmp/deb" "$VFS"
	mv "$tmp" "$VFS"
	# Paths are fixed only now that the tree is in place.
	{
		echo "ld=${ld/#$tmp/$VFS}"
		echo "libpath=$VFS/root/usr/lib/x86_64-linux-gnu:$VFS/root/lib/x86_64-linux-gnu"
		echo "bin=$VFS/root/usr/libexec/virtiofsd"
		echo "version=$(head -1 "$log")"
	} >"$VFS/ok"
fi

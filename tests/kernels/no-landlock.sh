#!/bin/bash
# SPDX-License-Identifier: MIT
# In a guest booted without Landlock (lsm= leaving it out): heel-exec
# refuses; with --best-effort it runs on the namespaces and seccomp, and
# what heel(5) says still holds: writes outside the writable places fail,
# denied paths that exist are covered, nothing written can be run; reads
# of ungranted places are the printed weakening.
# Usage (as root, from the source tree, build/ built):
#   HEEL_KERNEL_APPEND=lsm=lockdown,yama,integrity,apparmor \
#     tests/kernels/boot.sh 6.1 build/kernels/no-landlock.log -- bash tests/kernels/no-landlock.sh build
set -uo pipefail
B=${1:-build}
HX=$(realpath "$B/bin/heel-exec") HEELC=$(realpath "$B/bin/heelc")
T=$(mktemp -d /tmp/heel-nl.XXXXXX)
chmod 755 "$T"
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

printf 'heel 1\nisolation default\n' >"$T/p.heel"
"$HEELC" "$T/p.heel" -o "$T/p.hpol" && chmod 644 "$T/p.hpol"
mkdir -p "$T/home/.ssh" "$T/home/.docker" "$T/srv"
echo PRIVATE >"$T/home/.ssh/id_rsa"
# Denied by two protection sets, the directory and the file in it: two
# covers without Landlock, the second beneath the first.
echo DOCKER-SECRET >"$T/home/.docker/config.json"
echo open >"$T/srv/file"
chmod -R a+rX "$T"
cp /usr/bin/true "$T/home/true"

for u in root nobody; do
	pre=()
	[ $u = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	run() { "${pre[@]}" env -i PATH=/usr/bin:/bin HOME="$T/home" "$HX" "$@" 2>"$T/err"; }

	out=$(run "$T/p.hpol" -- true); rc=$?
	if [ $rc = 125 ] && grep -q "Landlock" "$T/err"; then ok "[$u] refused without --best-effort: $(head -c 160 "$T/err")"
	else bad "[$u] without --best-effort: exit $rc: $(head -c 300 "$T/err")"; fi

	out=$(run --best-effort "$T/p.hpol" -- sh -c 'echo x > /etc/heel-nl 2>/dev/null && echo WROTE; echo y > "$HOME/w" 2>/dev/null && echo WROTE-HOME; cat "$HOME/.ssh/id_rsa" "$HOME/.docker/config.json" 2>/dev/null; cat '"$T"'/srv/file; echo y > ./mine && echo MINE')
	rc=$?
	grep -q "weakened: Landlock is unavailable" "$T/err" && ok "[$u] the weakening is printed" || bad "[$u] no weakening printed: $(head -c 300 "$T/err")"
	[ $rc = 0 ] && ok "[$u] ran with --best-effort" || bad "[$u] --best-effort exit $rc: $(head -c 300 "$T/err")"
	[[ $out == *WROTE* ]] && bad "[$u] wrote outside the writable places: $out" || ok "[$u] no write outside the writable places"
	[ -e /etc/heel-nl ] && { bad "[$u] /etc/heel-nl exists"; rm -f /etc/heel-nl; }
	[[ $out == *PRIVATE* ]] && bad "[$u] read the denied ~/.ssh/id_rsa" || ok "[$u] the denied ~/.ssh/id_rsa stays covered"
	[[ $out == *DOCKER-SECRET* ]] && bad "[$u] read ~/.docker/config.json" ||
		ok "[$u] ~/.docker/config.json, beneath the covered ~/.docker, stays hidden"
	[[ $out == *open* ]] && ok "[$u] an ungranted place is readable (the printed weakening)" || bad "[$u] ungranted read: $out"
	[[ $out == *MINE* ]] && ok "[$u] the working directory is writable" || bad "[$u] working directory: $out"
	out=$(run --best-effort "$T/p.hpol" -- sh -c 'cp /usr/bin/true ./t && ./t && echo RAN'); 
	[[ $out == *RAN* ]] && bad "[$u] ran a file it wrote" || ok "[$u] a file it wrote does not run (noexec)"
done
rm -rf "$T"
echo "$pass passed, $fail failed"
[ $fail = 0 ]

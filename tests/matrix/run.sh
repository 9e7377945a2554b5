#!/bin/bash
# SPDX-License-Identifier: MIT
# The isolation-base matrix, live: each stock base (a policy that is only
# `heel 1` + `isolation BASE`) run under the enforcing bin/heel-exec, as
# root and as uid 65534, against every kind of place a program touches:
#
#   usr     a system binary directory (/usr/bin)
#   etc     a system configuration directory (/etc; /etc/shadow too)
#   home    the user's home (HOME = a fake home the test makes)
#   prot    protected paths in that home (~/.ssh/id_rsa, ~/.aws/credentials;
#           and one file each of shell-history, package-credentials,
#           browser-data and keychains, read only)
#   tmp     shared temp: /tmp, and /var/tmp where present
#   shmhost the host's /dev/shm, where present: out of sight, the sandbox
#           has a /dev/shm of its own
#   shm     that /dev/shm of the sandbox's own: writable, never executable,
#           nothing of it on the host
#   wd      the sandbox's own working directory
#   homewd  the same, made inside the home (TMPDIR there): a writable
#           place beneath a home `default` lets run
#
# with the actions read, write and exec (direct, a #! script, and the
# dynamic-loader trick `ld.so ./bin` where the place is writable). The
# expected outcome is the base's promise (heel(5), ISOLATION BASES),
# limited by what the user may do on the host anyway (uid 65534 cannot
# write /usr/bin with or without a sandbox; such cells say "host denies").
#
# A denied cell checks the effect: the file is absent afterwards, its
# content is unchanged, the program left no marker (and the exit status is
# 126). An allowed cell is the control: the same action works, so a
# sandbox that refuses everything fails the matrix. Writes only ever land
# in directories the test made; on system paths the write cells of
# `permissive` open an existing file for appending and write nothing.
#
# The fake home and TMPDIR live in a test directory under /var/lib (set
# HEEL_MATRIX_ROOT to change that), not under /tmp, so that the `${HOME}`
# grant and the working-directory rule are what decide those cells rather
# than the shared-temp rules.
#
# Also, per base and user: the working directory is under TMPDIR and gone
# after every run; exit statuses 0, 42, 128+9, 126, 127 and 125 (a
# corrupt artifact, and the command then does not run) pass through.
#
# Usage: tests/matrix/run.sh BUILD_DIR [LAUNCHER]   (uses BUILD_DIR/bin/heelc
# and BUILD_DIR/bin/LAUNCHER, heel-exec unless named: heel-exec-static,
# heel-exec-musl). Prints one line per check and finishes with
# "N passed, N failed, N skipped"; exits 1 when a check failed.
set -u

B=${1:-build}
B=$(cd "$B" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
X=${2:-heel-exec}
NOBODY=65534
npass=0 nfail=0 nskip=0

ok() { npass=$((npass + 1)); echo "ok   $*"; }
bad() { nfail=$((nfail + 1)); echo "FAIL $*"; }
skip() { nskip=$((nskip + 1)); echo "SKIP $*"; }
summary() { echo "$npass passed, $nfail failed, $nskip skipped"; }

for f in "$B/bin/heelc" "$B/bin/$X"; do
	[ -x "$f" ] || { echo "missing $f: build it first (make check-matrix)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
	echo "SKIP the matrix runs as root (it also runs every cell as uid $NOBODY)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

# ------------------------------------------------------------- test trees
ROOT_PARENT=${HEEL_MATRIX_ROOT:-/var/lib}
R=$(mktemp -d "$ROOT_PARENT/heel-matrix.XXXXXX" 2>/dev/null) || R=$(mktemp -d /tmp/heel-matrix.XXXXXX) || exit 1
chmod 755 "$R"
case $R in
/tmp/*) echo "# note: $ROOT_PARENT is not writable; the fake home is under /tmp, so shared-temp rules also decide the home cells" ;;
esac
# Shared temp directories of the test, one per place that exists.
SHARED=()
SHARED_DIRS=()
for s in /tmp /var/tmp /dev/shm; do
	if [ -d "$s" ] && [ ! -L "$s" ] && d=$(mktemp -d "$s/heel-matrix.XXXXXX" 2>/dev/null); then
		chmod 755 "$d"
		SHARED+=("$s")
		SHARED_DIRS+=("$d")
	else
		SHARED+=("$s")
		SHARED_DIRS+=("")
	fi
done
TAG=heel-matrix-$$
cleanup() {
	local d
	chmod -R u+rwx "$R" 2>/dev/null
	rm -rf "$R"
	for d in "${SHARED_DIRS[@]}"; do [ -n "$d" ] && rm -rf "$d"; done
	# Files a broken sandbox could have created on system paths.
	rm -f /usr/bin/"$TAG"-* /etc/"$TAG"-* 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$R/hx" "$R/pol" "$R/bin"
cp "$B/bin/$X" "$R/hx/heel-exec"
chmod 755 "$R/hx" "$R/pol" "$R/bin" "$R/hx/heel-exec"
HX=$R/hx/heel-exec
echo "not a program" >"$R/bin/not-exec"
chmod 644 "$R/bin/not-exec"

BASES=(strict default permissive)
for base in "${BASES[@]}"; do
	printf 'heel 1\nisolation %s\n' "$base" >"$R/pol/$base.heel"
	if ! "$B/bin/heelc" "$R/pol/$base.heel" -o "$R/pol/$base.hpol" >"$R/pol/$base.log" 2>&1; then
		echo "FAIL heelc: cannot compile isolation $base: $(grep error "$R/pol/$base.log" | head -2 | tr '\n' ' ')"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	chmod 644 "$R/pol/$base.hpol"
done
# A corrupt artifact: one byte in the middle flipped.
cp "$R/pol/default.hpol" "$R/pol/corrupt.hpol"
size=$(stat -c %s "$R/pol/corrupt.hpol")
off=$((size / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$R/pol/corrupt.hpol" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 0xff)))" | dd of="$R/pol/corrupt.hpol" bs=1 seek="$off" conv=notrunc status=none
chmod 644 "$R/pol/corrupt.hpol"

# What this machine can enforce: without it there is nothing to test.
CHECK=$("$HX" check "$R/pol/strict.hpol" 2>&1)
check_rc=$?
echo "# heel-exec check: $(echo "$CHECK" | grep -E '^(landlock: (ABI [0-9]+$|not)|seccomp: [a-z]|user namespaces|verdict)' | tr '\n' ';')"
if [ $check_rc != 0 ]; then
	echo "SKIP every cell: this machine cannot enforce the strict base: $(echo "$CHECK" | grep verdict)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

# The dynamic loader, named as programs name it (PT_INTERP of /usr/bin/true).
LDSO=$(grep -a -o -m1 '/lib[^[:space:][:cntrl:]]*/ld-linux[^[:space:][:cntrl:]]*' /usr/bin/true | head -1)
[ -n "$LDSO" ] && [ -x "$LDSO" ] || LDSO=""
# A system file to read, and one in /usr/bin to open for appending.
ETC_FILE=/etc/hostname
[ -r "$ETC_FILE" ] && [ -s "$ETC_FILE" ] || ETC_FILE=/etc/passwd
USR_FILE=/usr/bin/true

# A #! script that creates the file named by its argument.
MKSCRIPT='#!/bin/sh
: > "$1"
'

# make_tree U: the user's fake home, TMPDIR and shared-temp dirs.
make_tree() {
	local u=$1 i d
	D=$R/u-$u
	H=$D/home
	TB=$D/tmpdir
	rm -rf "$D"
	mkdir -p "$H/bin" "$H/.ssh" "$H/.aws" "$TB" "$H/tmpdir" "$H/.mozilla/firefox" "$H/.local/share/keyrings"
	# One file of each other protection set that `default` keeps on.
	for f in .bash_history .netrc .mozilla/firefox/profiles.ini .local/share/keyrings/login.keyring; do
		echo "secret-$TAG" >"$H/$f"
		chmod 600 "$H/$f"
	done
	echo "plain-$TAG" >"$H/plain.txt"
	echo "PRIVATE-KEY-$TAG" >"$H/.ssh/id_rsa"
	printf '[default]\naws_secret_access_key = SECRET-%s\n' "$TAG" >"$H/.aws/credentials"
	cp /usr/bin/touch "$H/bin/mk"
	printf '%s' "$MKSCRIPT" >"$H/bin/mk.sh"
	chmod 755 "$H/bin/mk" "$H/bin/mk.sh"
	chmod 700 "$H/.ssh" "$H/.aws" "$TB" "$H/tmpdir"
	chmod 600 "$H/.ssh/id_rsa" "$H/.aws/credentials"
	for i in "${!SHARED[@]}"; do
		d=${SHARED_DIRS[$i]}
		[ -n "$d" ] || continue
		rm -rf "$d/u-$u"
		mkdir -p "$d/u-$u"
		echo "shared-$TAG" >"$d/u-$u/data.txt"
		cp /usr/bin/touch "$d/u-$u/mk"
		printf '%s' "$MKSCRIPT" >"$d/u-$u/mk.sh"
		chmod 755 "$d/u-$u" "$d/u-$u/mk" "$d/u-$u/mk.sh"
		[ "$u" = root ] || chown -R $NOBODY:$NOBODY "$d/u-$u"
	done
	[ "$u" = root ] || chown -R $NOBODY:$NOBODY "$D"
	chmod 755 "$D" "$H"
}

# ------------------------------------------------------------- running
# as_u CMD...: CMD as $U (root, or uid 65534 with no groups).
as_u() {
	if [ "$U" = root ]; then "$@"; else setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; fi
}

# hx POLICY CMD...: the enforcing heel-exec as $U, with a clean environment
# (HOME = the fake home, TMPDIR = the user's test dir). OUT, ERR, RC.
# Counts working directories left in TMPDIR afterwards.
RUNS=0 LEFT=0 LEFT_WHAT=""
hx() {
	local pol=$1
	shift
	OUT=$(cd / && as_u env -i PATH=/usr/bin:/bin HOME="$H" TMPDIR="$TB" \
		timeout -k 5 20 "$HX" "$R/pol/$pol.hpol" -- "$@" 2>"$R/err" </dev/null)
	RC=$?
	ERR=$(head -c 300 "$R/err" | tr '\n' '|')
	RUNS=$((RUNS + 1))
	local w
	w=$(ls -A "$TB" 2>/dev/null)
	if [ -n "$w" ]; then
		LEFT=$((LEFT + 1))
		LEFT_WHAT="$LEFT_WHAT $w"
		chmod -R u+rwx "$TB"/* 2>/dev/null
		rm -rf "${TB:?}"/* "$TB"/.[!.]* 2>/dev/null
	fi
}

# host ACCESS PATH: the user may ACCESS (r|w|x) PATH on the host, by
# access(2) as that user; nothing is opened.
host() { as_u test "-$1" "$2"; }

# The base's promise: allowed BASE LOC ACTION (LOC/ACTION as in the cells).
allowed() {
	local base=$1 loc=$2 act=$3
	case $base/$loc/$act in
	# Every base: /dev/shm is the sandbox's own, the host's out of sight.
	*/shm/write*) return 0 ;;
	*/shm/* | */shmhost/*) return 1 ;;
	*/usr/read | */usr/exec* | */etc/read) return 0 ;;
	permissive/*/read* | permissive/*/write*) return 0 ;;
	*/wd/write*) return 0 ;;
	*/wd/*) return 1 ;;
	permissive/tmp/*) return 1 ;;
	permissive/*/exec* | permissive/*/ldso*) return 0 ;;
	default/home/read | default/tmp/read) return 0 ;;
	# default runs what it reads and cannot write (heel(5), ISOLATION
	# BASES): the home's own programs run; shared temp never does.
	default/home/exec*) return 0 ;;
	*) return 1 ;;
	esac
}

# result CELL EXPECT-ALLOWED HOST-ALLOWS GOT-ALLOWED DETAIL
# EXPECT-ALLOWED: 1 when the base allows the action; the cell is expected
# allowed only when the host allows it too. GOT-ALLOWED: 1 allowed,
# 0 denied with no effect, anything else: inconsistent (FAIL).
result() {
	local cell=$1 base_allows=$2 host_allows=$3 got=$4 detail=$5 want note=""
	if [ "$base_allows" = 1 ] && [ "$host_allows" = 1 ]; then want=1; else want=0; fi
	[ "$base_allows" = 1 ] && [ "$host_allows" = 0 ] && note=" (the host denies it to $U: no sandbox needed)"
	[ "$base_allows" = 0 ] && [ "$host_allows" = 0 ] && note=" (the host denies it to $U too)"
	local wtxt=denied gtxt
	[ $want = 1 ] && wtxt=allowed
	case $got in 1) gtxt=allowed ;; 0) gtxt=denied ;; *) gtxt="inconsistent" ;; esac
	if [ "$got" = "$want" ]; then
		ok "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$cell" "$gtxt: $detail$note")"
	else
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$cell" "expected $wtxt, got $gtxt: $detail$note${ERR:+; stderr: $ERR}")"
	fi
}

# A cell's RC 125 means heel-exec did not run the command at all: a
# failure whatever was expected.
refused() {
	if [ "$RC" = 125 ] || [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$1" "heel-exec did not run the command (exit $RC): $ERR")"
		return 0
	fi
	return 1
}

sum_of() { cksum <"$1" 2>/dev/null; }

# cell_read CELL LOC FILE [quiet]: read FILE (its checksum only is printed).
cell_read() {
	local cell=$1 loc=$2 f=$3 a=0 h=0 want got
	allowed "$BASE" "$loc" read && a=1
	host r "$f" && h=1
	want=$(sum_of "$f")
	hx "$BASE" sh -c 'cksum < "$1"' sh "$f"
	refused "$cell" && return
	if [ "$RC" = 0 ] && [ "$OUT" = "$want" ]; then got=1
	elif [ "$RC" != 0 ] && [ -z "$OUT" ]; then got=0
	else got=x; fi
	result "$cell" $a $h $got "read $f (exit $RC)"
}

# cell_create CELL LOC DIR: create a new file in DIR; absent afterwards
# when denied.
NCELL=0
cell_create() {
	local cell=$1 loc=$2 dir=$3 a=0 h=0 got f
	NCELL=$((NCELL + 1))
	f=$dir/$TAG-$BASE-$U-$NCELL
	allowed "$BASE" "$loc" write && a=1
	host w "$dir" && h=1
	hx "$BASE" sh -c 'echo "$2" > "$1"' sh "$f" "$TAG"
	refused "$cell" && { rm -f "$f"; return; }
	if [ "$RC" = 0 ] && [ "$(cat "$f" 2>/dev/null)" = "$TAG" ]; then got=1
	elif [ "$RC" != 0 ] && [ ! -e "$f" ]; then got=0
	else got="x"; fi
	result "$cell" $a $h $got "create $f (exit $RC, file $([ -e "$f" ] && echo exists || echo absent) afterwards)"
	rm -f "$f"
}

# cell_append CELL LOC FILE: append a line to FILE; unchanged when denied.
cell_append() {
	local cell=$1 loc=$2 f=$3 a=0 h=0 got before after
	allowed "$BASE" "$loc" write && a=1
	host w "$f" && h=1
	before=$(sum_of "$f")
	hx "$BASE" sh -c 'echo "$2" >> "$1"' sh "$f" "$TAG"
	refused "$cell" && return
	after=$(sum_of "$f")
	if [ "$RC" = 0 ] && [ "$before" != "$after" ] && [ "$(tail -n1 "$f")" = "$TAG" ]; then got=1
	elif [ "$RC" != 0 ] && [ "$before" = "$after" ]; then got=0
	else got=x; fi
	result "$cell" $a $h $got "append to $f (exit $RC, content $([ "$before" = "$after" ] && echo unchanged || echo changed))"
}

# cell_openw CELL LOC FILE: open FILE for appending and write nothing
# (the non-destructive write probe on system files); unchanged always.
cell_openw() {
	local cell=$1 loc=$2 f=$3 a=0 h=0 got before after
	allowed "$BASE" "$loc" write && a=1
	host w "$f" && h=1
	before=$(sum_of "$f")
	hx "$BASE" sh -c ': >> "$1"' sh "$f"
	refused "$cell" && return
	after=$(sum_of "$f")
	if [ "$before" != "$after" ]; then got=x
	elif [ "$RC" = 0 ]; then got=1
	else got=0; fi
	result "$cell" $a $h $got "open $f for writing, no bytes (exit $RC)"
}

# cell_exec CELL LOC ACTION PROGRAM: run PROGRAM (directly, or through the
# dynamic loader for ACTION ldso) with a marker file name in the working
# directory; denied = exit 126 (127 from the loader) and no marker.
cell_exec() {
	local cell=$1 loc=$2 act=$3 prog=$4 a=0 h=0 got
	allowed "$BASE" "$loc" "$act" && a=1
	host x "$prog" && h=1
	if [ "$act" = ldso ]; then
		hx "$BASE" sh -c '"$1" "$2" mk; r=$?; [ -e mk ] && echo "rc=$r marker=yes" || echo "rc=$r marker=no"' sh "$LDSO" "$prog"
	else
		hx "$BASE" sh -c '"$1" mk; r=$?; [ -e mk ] && echo "rc=$r marker=yes" || echo "rc=$r marker=no"' sh "$prog"
	fi
	refused "$cell" && return
	case $act/$OUT in
	*/"rc=0 marker=yes") got=1 ;;
	exec*/"rc=126 marker=no") got=0 ;;
	ldso/rc=[1-9]*" marker=no") got=0 ;;
	# Out of sight (the host's /dev/shm): not found, nothing ran.
	exec*/"rc=127 marker=no") [ "$loc" = shmhost ] && got=0 || got=x ;;
	*) got=x ;;
	esac
	result "$cell" $a $h $got "$([ "$act" = ldso ] && echo "$LDSO ")$prog: ${OUT:-no output} (exit $RC)"
}

# cell_wd CELL ACTION: the working directory, inside one run (it is gone
# afterwards, so the sandbox reports what happened).
cell_wd() {
	local cell=$1 act=$2 a=0 got script
	allowed "$BASE" wd "$act" && a=1
	case $act in
	write)
		hx "$BASE" sh -c 'echo "$1" > f && cat f && echo "$1" > "$TMPDIR/g" && cat "$TMPDIR/g"' sh "$TAG"
		refused "$cell" && return
		if [ "$RC" = 0 ] && [ "$OUT" = "$TAG"$'\n'"$TAG" ]; then got=1; else got=0; fi
		result "$cell" $a 1 $got "write f and \$TMPDIR/g, read them back (exit $RC)"
		return
		;;
	exec) script='cp /usr/bin/touch ./mk && chmod 755 ./mk || exit 9; ./mk m' ;;
	exec-sh) script='printf "%s" "$1" > ./mk.sh && chmod 755 ./mk.sh || exit 9; ./mk.sh m' ;;
	ldso) script='cp /usr/bin/touch ./mk && chmod 755 ./mk || exit 9; "$2" ./mk m' ;;
	esac
	hx "$BASE" sh -c "$script"'; r=$?; [ -e m ] && echo "rc=$r marker=yes" || echo "rc=$r marker=no"' sh "$MKSCRIPT" "$LDSO"
	refused "$cell" && return
	case $act/$OUT in
	*/"rc=0 marker=yes") got=1 ;;
	exec*/"rc=126 marker=no") got=0 ;;
	ldso/rc=9*) got=x ;;
	ldso/rc=[1-9]*" marker=no") got=0 ;;
	*) got=x ;;
	esac
	result "$cell" $a 1 $got "copy into the working directory and run: ${OUT:-no output} (exit $RC)"
}

# cell_shm CELL ACTION: the sandbox's own /dev/shm, inside one run (it is
# gone afterwards): written and read back, and nothing of it on the
# host; a program copied there never runs (a noexec mount).
cell_shm() {
	local cell=$1 act=$2 a=0 got script f=/dev/shm/$TAG-own
	allowed "$BASE" shm "$act" && a=1
	rm -f "$f"
	case $act in
	write)
		hx "$BASE" sh -c 'echo "$1" > "$2" && cat "$2"' sh "$TAG" "$f"
		refused "$cell" && return
		if [ -e "$f" ]; then got=x
		elif [ "$RC" = 0 ] && [ "$OUT" = "$TAG" ]; then got=1
		else got=0; fi
		result "$cell" $a 1 $got "write $f and read it back (exit $RC; $([ -e "$f" ] && echo "on the host" || echo "not on the host"))"
		rm -f "$f"
		return
		;;
	exec) script='cp /usr/bin/touch "$3" && chmod 755 "$3" || exit 9; "$3" m' ;;
	exec-sh) script='printf "%s" "$1" > "$3" && chmod 755 "$3" || exit 9; "$3" m' ;;
	ldso) script='cp /usr/bin/touch "$3" && chmod 755 "$3" || exit 9; "$2" "$3" m' ;;
	esac
	hx "$BASE" sh -c "$script"'; r=$?; [ -e m ] && echo "rc=$r marker=yes" || echo "rc=$r marker=no"' sh "$MKSCRIPT" "$LDSO" "$f"
	refused "$cell" && return
	case $act/$OUT in
	*/"rc=0 marker=yes") got=1 ;;
	exec*/"rc=126 marker=no") got=0 ;;
	ldso/rc=9*) got=x ;;
	ldso/rc=[1-9]*" marker=no") got=0 ;;
	*) got=x ;;
	esac
	[ -e "$f" ] && got=x
	result "$cell" $a 1 $got "copy into the sandbox's /dev/shm and run: ${OUT:-no output} (exit $RC)"
	rm -f "$f"
}

# status CELL WANT POLICY CMD...: heel-exec passes the exit status through.
status() {
	local cell=$1 want=$2 pol=$3
	shift 3
	hx "$pol" "$@"
	if [ "$RC" = "$want" ]; then
		ok "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$cell" "exit $RC: $*")"
	else
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$cell" "exit $RC, expected $want: $*; stderr: $ERR")"
	fi
}

# ------------------------------------------------------------- the matrix
run_base() {
	local i s d n loc
	RUNS=0 LEFT=0 LEFT_WHAT=""

	# system binary dir
	cell_read usr-read usr "$USR_FILE"
	if [ "$BASE" = permissive ]; then
		cell_openw usr-write usr "$USR_FILE"
	else
		cell_create usr-write usr /usr/bin
	fi
	cell_exec usr-exec usr exec /usr/bin/touch

	# system config dir
	cell_read etc-read etc "$ETC_FILE"
	if [ -e /etc/shadow ]; then
		if [ "$BASE" = permissive ]; then
			cell_read etc-shadow etc /etc/shadow
		else
			cell_read etc-shadow secret /etc/shadow
		fi
	else
		skip "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" etc-shadow "no /etc/shadow on this machine")"
	fi
	if [ "$BASE" = permissive ]; then
		cell_openw etc-write etc "$ETC_FILE"
	else
		cell_create etc-write etc /etc
		cell_openw etc-openw etc "$ETC_FILE"
	fi

	# the user's home
	cell_read home-read home "$H/plain.txt"
	cell_create home-create home "$H"
	cell_append home-append home "$H/plain.txt"
	cell_exec home-exec home exec "$H/bin/mk"
	cell_exec home-exec-sh home exec-sh "$H/bin/mk.sh"
	# The loader trick only where the base lets the program write: ld.so
	# maps the file with mmap(PROT_EXEC), which Landlock's EXECUTE right
	# does not govern, so what it can run is bounded by what the command
	# could have written there; a read-only place is not "writable" and
	# its files were the host's to begin with.
	if [ "$BASE" = permissive ] && [ -n "$LDSO" ]; then
		cell_exec home-ldso home ldso "$H/bin/mk"
	fi

	# protected paths in the home
	cell_read prot-ssh-r prot "$H/.ssh/id_rsa"
	cell_read prot-aws-r prot "$H/.aws/credentials"
	cell_read prot-hist-r prot "$H/.bash_history"
	cell_read prot-netrc-r prot "$H/.netrc"
	cell_read prot-browser prot "$H/.mozilla/firefox/profiles.ini"
	cell_read prot-keyring prot "$H/.local/share/keyrings/login.keyring"
	cell_append prot-ssh-w prot "$H/.ssh/id_rsa"
	cell_create prot-aws-w prot "$H/.aws"

	# shared temp
	for i in "${!SHARED[@]}"; do
		s=${SHARED[$i]}
		d=${SHARED_DIRS[$i]}
		n=${s#/}
		n=${n//\//}
		if [ -z "$d" ]; then
			skip "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" "$n" "$s is missing or not a directory here")"
			continue
		fi
		d=$d/u-$U
		loc=tmp
		[ "$s" = /dev/shm ] && loc=shmhost
		cell_read "$n-read" $loc "$d/data.txt"
		cell_create "$n-create" $loc "$d"
		cell_exec "$n-exec" $loc exec "$d/mk"
		cell_exec "$n-exec-sh" $loc exec-sh "$d/mk.sh"
		if [ "$BASE" = permissive ] && [ -n "$LDSO" ]; then
			cell_exec "$n-ldso" $loc ldso "$d/mk"
		fi
	done
	# The sandbox's own /dev/shm.
	if [ -d /dev/shm ] && [ ! -L /dev/shm ]; then
		cell_shm shm-write write
		cell_shm shm-exec exec
		cell_shm shm-exec-sh exec-sh
		[ -n "$LDSO" ] && cell_shm shm-ldso ldso
	fi

	# the working directory
	cell_wd wd-write write
	cell_wd wd-exec exec
	cell_wd wd-exec-sh exec-sh
	if [ -n "$LDSO" ]; then
		cell_wd wd-ldso ldso
	else
		skip "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" wd-ldso "no dynamic loader found in /usr/bin/true")"
	fi
	# The working directory inside the home (TMPDIR there): `default`
	# runs the home's files, and a writable place beneath it still runs
	# nothing (Landlock takes the home's EXECUTE back around it, and its
	# mount is noexec).
	local tb=$TB
	TB=$H/tmpdir
	cell_wd homewd-write write
	cell_wd homewd-exec exec
	cell_wd homewd-exec-sh exec-sh
	[ -n "$LDSO" ] && cell_wd homewd-ldso ldso
	TB=$tb
	hx "$BASE" sh -c 'pwd; echo "$TMPDIR"'
	local wd want_tmp
	wd=$(echo "$OUT" | sed -n 1p)
	want_tmp=$(echo "$OUT" | sed -n 2p)
	if [ "$RC" = 0 ] && [[ $wd == "$TB"/heel-* ]] && [ "$want_tmp" = "$wd" ]; then
		ok "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" wd-where "working directory $wd under TMPDIR, TMPDIR=$want_tmp")"
	else
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" wd-where "working directory '${wd}' TMPDIR '${want_tmp}' (exit $RC), expected $TB/heel-*/ as both; $ERR")"
	fi

	# exit statuses
	status exit-0 0 "$BASE" /usr/bin/true
	status exit-42 42 "$BASE" sh -c 'exit 42'
	status exit-kill 137 "$BASE" sh -c 'kill -9 $$'
	status exit-126 126 "$BASE" "$R/bin/not-exec"
	status exit-127 127 "$BASE" "$TAG-no-such-command"
	status exit-125 125 corrupt sh -c 'echo ran'
	if [ -n "$OUT" ]; then
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" corrupt-ran "the command ran under a corrupt artifact: $OUT")"
	fi

	if [ "$LEFT" = 0 ]; then
		ok "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" wd-removed "no working directory left in TMPDIR after any of $RUNS runs")"
	else
		bad "$(printf '%-10s %-6s %-12s %s' "$BASE" "$U" wd-removed "$LEFT of $RUNS runs left entries in $TB:$LEFT_WHAT")"
	fi
}

# /etc/shadow: denied by strict and default even to root (their secrets
# deny), readable by permissive to whoever the host lets read it.
for U in root nobody; do
	if [ "$U" = nobody ] && ! command -v setpriv >/dev/null; then
		skip "every cell as uid $NOBODY: setpriv is not installed"
		continue
	fi
	make_tree "$U"
	for BASE in "${BASES[@]}"; do
		echo "# isolation $BASE, as $U (HOME=$H, TMPDIR=$TB)"
		run_base
	done
done

summary
[ "$nfail" = 0 ]

#!/bin/bash
# SPDX-License-Identifier: MIT
# The escape suite (the escape catalogue's items that apply to Linux and
# do not need heel-proxy; README.md lists each escape and what blocks it): every case runs its action once OUTSIDE the sandbox
# (the control: it must work, else the test machinery is wrong and the
# case fails), then under heel-exec (it must be refused, and the effect
# must be absent: the file not written, the process gone), then a
# positive control under the same policy (the same kind of action, where
# allowed, works: a sandbox that refuses everything fails the suite).
# Every case runs as root and as uid 65534. heel-exec exiting 125 on an
# escape case is a failure: the sandbox did not run.
#
# Usage: tests/conformance/run.sh HEELC HEEL_EXEC HELPER_DIR [CASE-GLOB]
#   HELPER_DIR holds try, ptyrun, serve, payload, hpolpatch (make
#   check-conformance builds them into $(B)/conformance/). Prints one line
#   per case and "N passed, N failed, N skipped"; exits 1 on a failure.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 HEELC HEEL_EXEC HELPER_DIR [CASE-GLOB]" >&2
	exit 2
fi
HEELC=$(realpath "$1") || exit 2
HX_SRC=$(realpath "$2") || exit 2
HD=$(realpath "$3") || exit 2
ONLY=${4:-*}
HERE=$(cd "$(dirname "$0")" && pwd)
NOBODY=65534
npass=0 nfail=0 nskip=0

if [ "$(id -u)" != 0 ]; then
	echo "the conformance suite runs as root (it also runs each case as uid $NOBODY)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for f in try ptyrun serve payload hpolpatch; do
	[ -x "$HD/$f" ] || { echo "missing helper $HD/$f (make check-conformance builds it)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done

T=$(mktemp -d /tmp/heel-conf.XXXXXX) || exit 1
chmod 755 "$T"
BG_PIDS=()
cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	# Daemons a failed orphan case left behind: exact command lines of ours.
	for p in $(pgrep -x -f 'sleep 7[0-9]{4}' 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	chattr -R -i "$T" 2>/dev/null
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
	[ -n "${OTHER_HOME:-}" ] && rm -rf "$OTHER_HOME"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Helpers and heel-exec where uid 65534 can reach them; the helper
# directory is the one every test policy grants rx (${CONF_BIN}).
mkdir -p "$T/bin" "$T/hx" "$T/pol"
cp "$HD/try" "$HD/ptyrun" "$HD/serve" "$HD/payload" "$T/bin/"
cp "$HX_SRC" "$T/hx/heel-exec"
chmod 755 "$T/bin" "$T/hx" "$T/pol" "$T/bin"/* "$T/hx/heel-exec"
TRY=$T/bin/try
HX=$T/hx/heel-exec
# A setuid-root copy of try in an executable directory: only
# NO_NEW_PRIVS (and the user namespace) keep it from making uid 0.
cp "$HD/try" "$T/bin/suid-try"
chmod 4755 "$T/bin/suid-try"

# ------------------------------------------------------------- policies
for p in "$HERE"/policies/*.heel; do
	n=$(basename "$p" .heel)
	if ! "$HEELC" "$p" -o "$T/pol/$n.hpol" >"$T/pol/$n.log" 2>&1; then
		echo "FAIL heelc $n: cannot compile the test policy: $(head -3 "$T/pol/$n.log" | tr '\n' ' ')"
		nfail=$((nfail + 1))
	fi
	chmod 644 "$T/pol/$n.hpol" 2>/dev/null
done


# Host commands (cases 93-96): heel-broker and heel-ipc beside heel-exec,
# a host program that leaves a mark per user, and a policy naming it
# literally (an ipc program is never a template).
HX_DIR=$(dirname "$HX_SRC")
if [ -x "$HX_DIR/heel-broker" ] && [ -x "$HX_DIR/heel-ipc" ]; then
	cp "$HX_DIR/heel-broker" "$HX_DIR/heel-ipc" "$T/hx/"
	chmod 755 "$T/hx/heel-broker" "$T/hx/heel-ipc"
fi
# heel-proxy beside heel-exec: the loopback cases (100-103) under an
# allow-list and allow-all as well as deny.
if [ -x "$HX_DIR/heel-proxy" ]; then
	cp "$HX_DIR/heel-proxy" "$T/hx/"
	chmod 755 "$T/hx/heel-proxy"
fi
mkdir -p "$T/marks"
chmod 1777 "$T/marks"
printf '#!/bin/sh\ntouch %s/ran.$(id -u)\n' "$T/marks" >"$T/bin/mark"
chmod 755 "$T/bin/mark"
cat >"$T/pol/ipc.heel" <<POLICY
heel 1
isolation strict
grant "\${CONF_BIN}" rx
grant "$T/hx" rx
grant "$T/pol" r
ipc "mark" {
    exec "$T/bin/mark"
}
POLICY
if ! "$HEELC" "$T/pol/ipc.heel" -o "$T/pol/ipc.hpol" >"$T/pol/ipc.log" 2>&1; then
	echo "FAIL heelc ipc: cannot compile the test policy: $(head -3 "$T/pol/ipc.log" | tr '\n' ' ')"
	nfail=$((nfail + 1))
fi
chmod 644 "$T/pol/ipc.hpol" 2>/dev/null

# ---------------------------------------------------------------- output
U=root     # the user a case runs as: root or 65534
PROB=""    # why the current case fails, accumulated
SKIPR=""   # why it is skipped (only for a control that cannot work as $U)

begin() { PROB=""; SKIPR=""; CASE=$1; }
prob() { PROB="${PROB:+$PROB; }$*"; }
skipr() { SKIPR="${SKIPR:+$SKIPR; }$*"; }
finish() {
	if [ -n "$PROB" ]; then
		echo "FAIL $CASE [$U]: $PROB"
		nfail=$((nfail + 1))
	elif [ -n "$SKIPR" ]; then
		echo "SKIP $CASE [$U]: $SKIPR"
		nskip=$((nskip + 1))
	else
		echo "PASS $CASE [$U]"
		npass=$((npass + 1))
	fi
}
selected() { [[ $1 == $ONLY ]]; }

# ------------------------------------------------------------- running
# PRE: the command prefix that makes $U (empty for root).
set_user() {
	U=$1
	if [ "$U" = root ]; then PRE=(); else PRE=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups); fi
	D=$T/u-$U     # this user's test tree (owned by $U)
	W=$D/wd       # the sandbox's working directory (--workdir: kept, inspectable)
	H=$D/home     # HOME, a fake one
}

SECRET=heel-conf-secret-$$
ETCRW=/etc/heel-conf-$$-rw  # a writable grant beneath /etc (case 84)
# try takes environ markers reversed (so no command line holds them).
RSECRET=$(echo "$SECRET" | rev)
# The launcher's environment: a secret the sandbox must never see, and
# the variables the test policies use.
ENVV() {
	echo PATH=/usr/bin:/bin HOME="$H" CONF_BIN="$T/bin" CONF_DATA="$D" CONF_ETCRW="$ETCRW" \
		HEEL_CONF_SECRET="$SECRET" AWS_SECRET_ACCESS_KEY="$SECRET"
}

# What this machine can enforce (for the record, and for SKIP reasons).
CHECK=$(H=$T/u-root/home D=$T/u-root; env -i $(ENVV) "$HX" check "$T/pol/home.hpol" 2>&1)
echo "# heel-exec check: $(echo "$CHECK" | grep -E "^(landlock: (ABI|not)|seccomp|user namespaces|verdict)" | tr "\n" ";")"
LL_ABI=$(echo "$CHECK" | sed -n 's/^landlock: ABI \([0-9]*\).*/\1/p' | head -1)

# ctl CMD...: the control, outside the sandbox, as $U. OUT, RC.
ctl() {
	OUT=$("${PRE[@]}" env -i $(ENVV) "$@" 2>"$T/ctl.err" </dev/null)
	RC=$?
}

# sbx POLICY [HEEL-EXEC OPTIONS] -- CMD...: under heel-exec, as $U, in
# the working directory $W. OUT, ERR (first stderr line), RC.
sbx() {
	local pol=$1 opts=()
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" ${SBX_OPTS:-} "${opts[@]}" "$T/pol/$pol.hpol" -- "$@" \
		2>"$T/sbx.err" <"${SBX_STDIN:-/dev/null}")
	RC=$?
	ERR=$(grep -v '^heel-exec: .*weaken\|^heel-exec: note' "$T/sbx.err" | head -1)
}

# ran: false (and a problem recorded) when heel-exec refused to start.
ran() {
	if [ "$RC" = 125 ]; then
		# The message once per case: every later refusal repeats it.
		if [[ $PROB == *"${ERR:-no message}"* ]]; then
			prob "$1: refused (125), as above"
		else
			prob "$1: heel-exec refused to start (125): ${ERR:-no message}"
		fi
		return 1
	fi
	return 0
}

# Control expectations: OUT must be OK.
ctl_ok() {
	local what=$1
	shift
	ctl "$TRY" "$@"
	[ "$OUT" = OK ] || prob "control ($what) outside the sandbox gave '${OUT:-nothing}' (rc $RC): test machinery broken"
}

# Escape expectations: the action under the sandbox is refused. $1 = a
# regex of acceptable answers (default: any errno name).
sbx_denied() {
	local what=$1 want=$2 pol=$3
	shift 3
	sbx "$pol" -- "$TRY" "$@"
	ran "$what" || return 1
	if [ -z "$OUT" ]; then
		prob "$what: no answer from try (rc $RC): ${ERR}"
		return 1
	fi
	if ! [[ $OUT =~ ^($want)$ ]]; then
		prob "$what: sandbox answered '$OUT', expected $want"
		return 1
	fi
	return 0
}

# Positive control under the sandbox: the allowed action works.
sbx_ok() {
	local what=$1 pol=$2
	shift 2
	sbx "$pol" -- "$TRY" "$@"
	ran "$what (positive)" || return 1
	[ "$OUT" = OK ] || { prob "positive control $what under the sandbox gave '${OUT:-nothing}' (rc $RC) ${ERR}"; return 1; }
	return 0
}

ERRNO='E[A-Z0-9]+'

# -------------------------------------------------------- the test trees
# Built fresh for each user: owned by that user, so the unprivileged
# control succeeds by ordinary permissions.
make_tree() {
	rm -rf "$D"
	mkdir -p "$D"/{outside,ro,secret,mnt,wd,home} "$D/proj"/{.cfg,.ro,sub/.secret,vault,decoy}
	echo orig >"$D/ro/file"
	for f in ctl-w ctl-t ctl-u; do echo orig >"$D/ro/$f"; done
	echo SECRET-KEY >"$D/secret/key"
	chmod 600 "$D/secret/key"
	echo orig >"$D/outside/victim"
	echo orig >"$D/outside/ctl-victim"
	echo orig >"$D/proj/.cfg/config"
	echo orig >"$D/proj/.ro/config"
	echo orig >"$D/proj/sub/.secret/config"
	echo SECRET-KEY >"$D/proj/vault/key"
	echo notes >"$D/proj/notes"
	echo f1 >"$D/proj/decoy/f1"
	echo notes >"$D/proj/sub/notes"
	# Credentials in a fake home: the protection sets use ${HOME}.
	mkdir -p "$H"/{.ssh,.aws,.gnupg,.kube,project}
	echo PRIVATE-KEY >"$H/.ssh/id_rsa"
	printf '[default]\naws_secret_access_key = SECRET\n' >"$H/.aws/credentials"
	echo GPG-SECRET >"$H/.gnupg/secring.gpg"
	echo KUBE-TOKEN >"$H/.kube/config"
	echo notes >"$H/notes.txt"
	echo notes >"$H/project/notes.txt"
	chmod 700 "$H/.ssh" "$H/.gnupg"
	chmod 600 "$H/.ssh/id_rsa" "$H/.gnupg/secring.gpg"
	# Programs to run from the working directory and from outside.
	cp /usr/bin/true "$W/elf"
	cp /usr/bin/true "$D/outside/elf"
	printf '#!/bin/sh\necho pwned\n' >"$W/script.sh"
	printf '#!/bin/sh\necho pwned\n' >"$D/outside/script.sh"
	cp "$HD/payload" "$W/payload"
	cp "$HD/payload" "$D/outside/payload"
	chmod 755 "$W/elf" "$W/script.sh" "$W/payload" "$D/outside"/{elf,script.sh,payload}
	ln -s "$D/outside/victim" "$W/link-out"
	ln -s "$D/outside/ctl-victim" "$D/outside/ctl-link"
	echo inside >"$W/target-in"
	ln -s target-in "$W/link-in"
	if [ "$U" != root ]; then chown -R $NOBODY:$NOBODY "$D"; fi
	chmod 755 "$D"
	chmod 700 "$W"
	# Setuid-root copies, owned by root (after the chown).
	cp "$HD/try" "$W/suid-try"
	cp "$HD/try" "$D/outside/suid-try"
	chmod 4755 "$W/suid-try" "$D/outside/suid-try"
}

content() { cat "$1" 2>/dev/null || echo "<missing>"; }

# ================================================================ cases
# Named after the escape catalogue's items: NN-name, the name saying what
# the escape is.

case_01() { # Write outside the writable roots.
	begin 01-write-outside-roots
	ctl_ok "create in an ungranted dir" create "$D/outside/ctl-new"
	sbx_denied "create $D/outside/new" "$ERRNO" base create "$D/outside/new"
	[ -e "$D/outside/new" ] && prob "$D/outside/new exists after the run"
	sbx_denied "create in the launcher's cwd parent /tmp" "$ERRNO" base create "/tmp/heel-conf-escape-$$"
	[ -e "/tmp/heel-conf-escape-$$" ] && { prob "/tmp/heel-conf-escape-$$ was written"; rm -f "/tmp/heel-conf-escape-$$"; }
	sbx_ok "create in the working directory" base create "$W/new"
	[ -f "$W/new" ] || prob "positive: $W/new missing after a reported success"
	finish
}

case_02() { # Write through a symbolic link that points outside.
	begin 02-write-through-symlink
	ctl_ok "write through a link" symlink-write "$D/outside/ctl-link"
	sbx_denied "write through $W/link-out" "$ERRNO" base symlink-write "$W/link-out"
	[ "$(content "$D/outside/victim")" = orig ] || prob "the link's target outside was changed: $(content "$D/outside/victim")"
	sbx_ok "write through a link inside the working directory" base symlink-write "$W/link-in"
	finish
}

case_03() { # Replace a protected dir by a symlink to a decoy, write its config.
	begin 03-symlink-replacement
	ctl mkdir -p "$D/outside/c3/.cfg" && ctl "$TRY" rename "$D/outside/c3/.cfg" "$D/outside/c3/old"
	[ "$OUT" = OK ] || prob "control rename of a directory gave '$OUT'"
	P=$D/proj
	sbx_ok "write an existing file beside it" proj open-write "$P/notes"
	sbx proj -- /bin/sh -c "cd $P && $TRY rename .cfg old; $TRY rmdir .cfg; $TRY symlink decoy .cfg; $TRY create .cfg/config; $TRY symlink-write .cfg/config"
	if ran "attack"; then
		echo "$OUT" | grep -q . || prob "attack produced no answer: $ERR"
		[ -d "$P/.cfg" ] && [ ! -L "$P/.cfg" ] || prob "$P/.cfg is no longer the protected directory"
		[ "$(content "$P/.cfg/config")" = orig ] || prob ".cfg/config changed: $(content "$P/.cfg/config")"
		[ -e "$P/decoy/config" ] && prob "the decoy received the config"
		[ -e "$P/old" ] && prob "the protected directory was renamed to $P/old"
	fi
	finish
}

case_04() { # Hard link a secret into a writable dir, then read it.
	begin 04-hardlink-secret
	ctl_ok "link the secret outside the sandbox" link "$D/secret/key" "$D/outside/ctl-key"
	sbx_denied "link $D/secret/key into the working directory" "$ERRNO" base link "$D/secret/key" "$W/key"
	[ -e "$W/key" ] && prob "$W/key exists: the secret was linked in"
	sbx_denied "read the link" "$ERRNO" base open-read "$W/key"
	if [ "$U" = root ]; then
		ctl_ok "link /etc/shadow" link /etc/shadow "$D/outside/ctl-shadow"
		rm -f "$D/outside/ctl-shadow"
		sbx_denied "link /etc/shadow into the working directory" "$ERRNO" base link /etc/shadow "$W/shadow"
		[ -e "$W/shadow" ] && { prob "/etc/shadow was linked into the working directory"; rm -f "$W/shadow"; }
	fi
	echo x >"$W/own" && chown --reference="$W" "$W/own"
	sbx_ok "hard link within the working directory" base link "$W/own" "$W/own2"
	finish
}

case_05() { # mknod a device; a FIFO stays allowed.
	begin 05-mknod-device
	if [ "$U" = root ]; then
		ctl_ok "mknod a char device" mknod-char "$D/outside/ctl-null"
	else
		skipr "uid $NOBODY cannot mknod a device outside the sandbox either (CAP_MKNOD), so there is no escape to test"
	fi
	sbx_denied "mknod $W/null" "$ERRNO" base mknod-char "$W/null"
	[ -e "$W/null" ] && prob "$W/null exists"
	sbx_ok "mkfifo in the working directory" base mkfifo "$W/fifo"
	[ -p "$W/fifo" ] || prob "positive: no FIFO after a reported success"
	finish
}

case_06() { # A setuid-root binary cannot gain root (NO_NEW_PRIVS, noexec).
	begin 06-setuid
	ctl "$TRY" setuid-exec "$D/outside/suid-try"
	# no_new_privs already on the suite itself (bubblewrap always sets it,
	# as do Docker's no-new-privileges and systemd's NoNewPrivileges=):
	# the setuid copy cannot elevate outside either, so the control that
	# shows the wall cannot pass.
	if [ "$OUT" != "EUID=0" ] && grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status; then
		skipr "no_new_privs is already set on the test process (NoNewPrivs: 1 in /proc/self/status, as bubblewrap, Docker's no-new-privileges and systemd's NoNewPrivileges= set it): a setuid-root copy does not elevate even outside, so the control cannot show the wall"
		finish
		return
	fi
	[ "$OUT" = "EUID=0" ] || prob "control: setuid-root copy outside gave '$OUT', expected EUID=0"
	sbx base -- "$TRY" setuid-exec "$T/bin/suid-try"
	if ran "setuid-root binary in an executable dir"; then
		if [ "$U" = root ]; then
			[ "$OUT" = "EUID=0" ] || prob "root: the setuid copy did not run: '$OUT'"
		else
			[[ $OUT =~ ^EUID=$NOBODY$ ]] || prob "setuid-root binary in the sandbox gave '$OUT', expected EUID=$NOBODY"
		fi
	fi
	sbx base -- "$TRY" nnp
	ran "no_new_privs" && { [ "$OUT" = "NNP=1" ] || prob "NO_NEW_PRIVS not set in the sandbox: '$OUT'"; }
	sbx_denied "run the setuid copy from the working directory" "$ERRNO" base setuid-exec "$W/suid-try"
	sbx_ok "run a program from a granted rx dir" base exec "$T/bin/payload"
	finish
}

case_07() { # Rename a write-denied dir aside, write, rename back.
	begin 07-rename-denied-dir-aside
	P=$D/proj
	sbx_ok "write a sibling file" proj open-write "$P/sub/notes"
	sbx_ok "read the read-only dir's file" proj open-read "$P/.ro/config"
	ctl mkdir -p "$D/outside/c7/d" && ctl "$TRY" rename "$D/outside/c7/d" "$D/outside/c7/aside"
	[ "$OUT" = OK ] || prob "control rename gave '$OUT'"
	sbx proj -- /bin/sh -c "cd $P && $TRY rename .ro aside; $TRY create aside/config2; $TRY open-write aside/config; $TRY rename aside .ro; $TRY open-write .ro/config"
	if ran "attack"; then
		[ -d "$P/.ro" ] && [ ! -L "$P/.ro" ] || prob "$P/.ro was moved"
		[ "$(content "$P/.ro/config")" = orig ] || prob ".ro/config changed: $(content "$P/.ro/config")"
		[ -e "$P/.ro/config2" ] && prob ".ro/config2 was created"
		[ -e "$P/aside" ] && prob "$P/aside exists"
	fi
	finish
}

case_08() { # Rename an ancestor of a deny target and recreate it.
	begin 08-rename-ancestor-of-deny
	P=$D/proj
	sbx_ok "write a file beside the deny" proj open-write "$P/sub/notes"
	sbx proj -- /bin/sh -c "cd $P && $TRY rename sub sub2; $TRY mkdir sub; $TRY mkdir sub/.secret; $TRY create sub/.secret/config; $TRY open-write sub/.secret/config"
	if ran "attack"; then
		[ -d "$P/sub/.secret" ] && [ ! -e "$P/sub2" ] || prob "the ancestor of the deny was renamed"
		[ "$(content "$P/sub/.secret/config")" = orig ] || prob "sub/.secret/config changed: $(content "$P/sub/.secret/config")"
	fi
	finish
}

case_09() { # Create a protected path that does not exist yet.
	begin 09-create-protected-missing-path
	rm -rf "$H/.ssh"
	ctl_ok "mkdir ~/.ssh" mkdir "$H/.ssh-ctl"
	# A missing deny inside a writable grant cannot be covered by a mount:
	# heel-exec must refuse without --best-effort, or run with the deny
	# holding.
	sbx homerw -- "$TRY" mkdir "$H/.ssh"
	if [ "$RC" != 125 ] && [ "$OUT" = OK ]; then
		prob "without --best-effort: the sandbox created ~/.ssh"
	fi
	rm -rf "$H/.ssh"
	sbx homerw --best-effort -- /bin/sh -c "$TRY mkdir $H/.ssh; $TRY create $H/.ssh/authorized_keys; $TRY symlink $D/outside $H/.ssh"
	if ran "--best-effort run"; then
		[ -e "$H/.ssh" ] || [ -L "$H/.ssh" ] && prob "~/.ssh was created in the sandbox: $(ls -la "$H/.ssh" 2>&1 | head -2 | tr '\n' ' ')"
		echo "$OUT" | grep -qx OK && prob "one step succeeded: $(echo "$OUT" | tr '\n' ' ')"
	fi
	SBX_OPTS=--best-effort sbx_ok "write an existing file in a writable home" homerw open-write "$H/project/notes.txt"
	mkdir -p "$H/.ssh" && echo PRIVATE-KEY >"$H/.ssh/id_rsa"
	[ "$U" = root ] || chown -R $NOBODY:$NOBODY "$H/.ssh"
	finish
}

case_13() { # Overwrite, truncate, delete a read-only file.
	begin 13-modify-read-only-file
	sbx_ok "read it" base open-read "$D/ro/file"
	ctl_ok "overwrite" open-write "$D/ro/ctl-w"
	ctl_ok "truncate" truncate "$D/ro/ctl-t"
	ctl_ok "delete" unlink "$D/ro/ctl-u"
	sbx_denied "overwrite" "$ERRNO" base open-write "$D/ro/file"
	sbx_denied "truncate" "$ERRNO" base truncate "$D/ro/file"
	sbx_denied "delete" "$ERRNO" base unlink "$D/ro/file"
	sbx_denied "rename away" "$ERRNO" base rename "$D/ro/file" "$D/ro/moved"
	[ "$(content "$D/ro/file")" = orig ] || prob "the read-only file changed: $(content "$D/ro/file")"
	finish
}

case_15() { # Credentials in the home (default base, protections on).
	begin 15-credentials-read
	local f
	for f in .ssh/id_rsa .aws/credentials .gnupg/secring.gpg .kube/config; do
		ctl_ok "read ~/$f" open-read "$H/$f"
		sbx_denied "read ~/$f" "$ERRNO" home open-read "$H/$f"
	done
	sbx_ok "read ~/notes.txt" home open-read "$H/notes.txt"
	finish
}

case_15o() { # Another user's credentials under /home (default base).
	# The protection sets name ${HOME}; the base must not open the other
	# homes at all (it granted /home once: as root, every user's ~/.ssh
	# was readable). The key is world-readable so that the control works
	# for uid 65534 too: what stops the sandbox is heel, not file modes.
	begin 15-other-users-credentials
	if [ -z "${OTHER_HOME:-}" ]; then
		OTHER_HOME=$(mktemp -d /home/heel-conformance-other.XXXXXX) || { prob "cannot make a home under /home"; finish; return; }
		mkdir -p "$OTHER_HOME/.ssh"
		echo OTHER-SECRET >"$OTHER_HOME/.ssh/id_rsa"
		echo public >"$OTHER_HOME/notes.txt"
		chmod 755 "$OTHER_HOME" "$OTHER_HOME/.ssh"
		chmod 644 "$OTHER_HOME/.ssh/id_rsa" "$OTHER_HOME/notes.txt"
	fi
	ctl_ok "read another user's ~/.ssh/id_rsa" open-read "$OTHER_HOME/.ssh/id_rsa"
	sbx_denied "read another user's ~/.ssh/id_rsa" "$ERRNO" home open-read "$OTHER_HOME/.ssh/id_rsa"
	sbx_denied "read another user's plain file" "$ERRNO" home open-read "$OTHER_HOME/notes.txt"
	sbx_ok "read a plain file in one's own home" home open-read "$H/notes.txt"
	finish
}

case_16() { # Move a read-denied file (or its parent) somewhere readable.
	begin 16-move-read-denied-file-out
	P=$D/proj
	# In decoy/, a sibling of every protected entry: writable with or
	# without a mount namespace.
	sbx_ok "rename a file of the writable tree" proj rename "$P/decoy/f1" "$P/decoy/f2"
	ctl_ok "rename a file" rename "$D/outside/ctl-victim" "$D/outside/ctl-victim2"
	sbx proj -- /bin/sh -c "cd $P && $TRY rename vault/key key; $TRY rename vault v2; $TRY link vault/key key2; $TRY open-read key; $TRY open-read v2/key; $TRY open-read key2"
	if ran "attack"; then
		echo "$OUT" | grep -qx OK && prob "a step succeeded: $(echo "$OUT" | tr '\n' ' ')"
		[ -e "$P/key" ] || [ -e "$P/v2" ] || [ -e "$P/key2" ] && prob "the secret was moved or linked out"
		[ "$(content "$P/vault/key")" = SECRET-KEY ] || prob "vault/key changed"
	fi
	sbx_denied "move ~/.ssh/id_rsa into the working directory" "$ERRNO" home rename "$H/.ssh/id_rsa" "$W/id_rsa"
	[ -e "$W/id_rsa" ] && prob "~/.ssh/id_rsa was moved into the working directory"
	finish
}

case_18() { # /etc/shadow.
	begin 18-etc-shadow
	ctl "$TRY" open-read /etc/shadow
	if [ "$OUT" != OK ]; then
		[ "$U" = root ] && prob "control: root cannot read /etc/shadow: $OUT"
		skipr "uid $NOBODY cannot read /etc/shadow outside the sandbox either ($OUT)"
	fi
	sbx_denied "read /etc/shadow (strict base)" "$ERRNO" base open-read /etc/shadow
	sbx_denied "read /etc/shadow (default base)" "$ERRNO" home open-read /etc/shadow
	sbx_ok "read /etc/passwd" base open-read /etc/passwd
	finish
}

case_19() { # /proc/<parent>/environ: the launcher's secret.
	begin 19-proc-environ
	ctl "$TRY" read-environ self "$RSECRET"
	[ "$OUT" = OK ] || prob "control: own environ lacks the secret: '$OUT'"
	# $$ of this sh is heel-exec's PID once exec'd.
	OUT=$("${PRE[@]}" /bin/sh -c "exec env -i $(ENVV) $HX --workdir $W $T/pol/base.hpol -- $TRY read-environ \$\$ $RSECRET" 2>"$T/sbx.err" </dev/null)
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "heel-exec's environ" && { [ "$OUT" != OK ] && [ -n "$OUT" ] || prob "read heel-exec's environ by host PID: '$OUT'"; }
	sbx_denied "PID 1's environ" "$ERRNO|NOMATCH" base read-environ 1 "$RSECRET"
	sbx_denied "any /proc/*/environ or cmdline" "NOMATCH|$ERRNO" base scan-environ "$RSECRET"
	sbx_denied "the sandbox's own environment" "NOMATCH" base read-environ self "$RSECRET"
	sbx base -- "$TRY" read-environ self "$(echo "HOME=$H" | rev)"
	ran "positive" && { [ "$OUT" = OK ] || prob "positive: HOME not passed to the sandbox: '$OUT'"; }
	finish
}

case_20() { # Exec a file written into a writable dir.
	begin 20-exec-written-file
	ctl_ok "exec an ELF outside" exec "$D/outside/elf"
	ctl_ok "exec a script outside" exec "$D/outside/script.sh"
	sbx_denied "exec ELF from the working directory" "$ERRNO" base exec "$W/elf"
	sbx_denied "exec script from the working directory" "$ERRNO" base exec "$W/script.sh"
	sbx_denied "execveat of the ELF's fd" "$ERRNO" base execveat "$W/elf"
	sbx_ok "exec a dynamic system binary (22: ld.so and libraries executable)" base exec /usr/bin/true
	finish
}

case_21m() { # memfd_create + fexecve.
	begin 21-memfd-exec
	ctl_ok "memfd exec" memfd-exec
	sbx_denied "memfd_create without MFD_NOEXEC_SEAL + fexecve" EPERM base memfd-exec
	sbx_denied "execveat(AT_EMPTY_PATH) of a granted binary" EPERM base execveat /usr/bin/true
	# Linux 6.3 added MFD_NOEXEC_SEAL; before it the sandbox has no
	# memfd_create at all (heel(5), SECCOMP).
	ctl "$TRY" memfd-noexec
	if [ "$OUT" = EINVAL ]; then
		sbx_denied "memfd_create(MFD_NOEXEC_SEAL) on a kernel without the flag" EINVAL base memfd-noexec
	else
		sbx_ok "memfd_create(MFD_NOEXEC_SEAL)" base memfd-noexec
	fi
	finish
}

case_21l() { # ld.so running a payload from a no-exec place.
	begin 21-ldso-exec
	ctl_ok "ld.so payload outside" ldso-exec "$D/outside/payload"
	sbx_denied "ld.so ./payload in the working directory" "$ERRNO|FAILED.*" base ldso-exec "$W/payload"
	[ "$OUT" = OK ] && prob "(only a noexec mount of the working directory closes this)"
	sbx_ok "ld.so on a payload in a granted rx dir" base ldso-exec "$T/bin/payload"
	finish
}

case_23() { # Host PIDs invisible.
	begin 23-host-pids-invisible
	ctl "$TRY" proc-count
	local host=${OUT#COUNT=}
	ctl_ok "see the runner's PID" pid-visible $$
	sbx base -- "$TRY" proc-count
	if ran "count /proc"; then
		local n=${OUT#COUNT=}
		if ! [[ $n =~ ^[0-9]+$ ]]; then prob "proc-count gave '$OUT'"
		elif [ "$n" -gt 5 ]; then prob "the sandbox sees $n processes (host: $host)"
		fi
	fi
	sbx_denied "see the runner's PID $$" ENOENT base pid-visible $$
	sbx_ok "see itself" base pid-visible self
	finish
}

case_24() { # ptrace / process_vm / /proc/PID/mem on the launcher and PID 1.
	begin 24-ptrace-parent-and-pid1
	ctl_ok "ptrace a child" ptrace-attach child
	ctl_ok "process_vm_readv a child" process-vm-readv child
	ctl_ok "process_vm_writev a child" process-vm-writev child
	ctl_ok "open /proc/child/mem" proc-mem child
	ctl_ok "PTRACE_TRACEME" ptrace-traceme
	sbx_denied "ptrace PID 1" EPERM base ptrace-attach 1
	sbx_denied "ptrace a child" EPERM base ptrace-attach child
	sbx_denied "PTRACE_TRACEME" EPERM base ptrace-traceme
	sbx_denied "process_vm_readv PID 1" EPERM base process-vm-readv 1
	sbx_denied "process_vm_writev a child" EPERM base process-vm-writev child
	sbx_denied "open /proc/1/mem" "$ERRNO" base proc-mem 1
	sbx_denied "open /proc/1/mem rw" "$ERRNO" base proc-mem-rw 1
	# The launcher by its host PID (exec keeps the sh's PID).
	OUT=$("${PRE[@]}" /bin/sh -c "exec env -i $(ENVV) $HX --workdir $W $T/pol/base.hpol -- $TRY ptrace-attach \$\$" 2>"$T/sbx.err" </dev/null)
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "ptrace heel-exec" && { [ "$OUT" = EPERM ] || prob "ptrace heel-exec by host PID: '$OUT'"; }
	sbx_ok "open its own /proc/self/mem" base proc-mem self
	finish
}

case_25() { # umount2 /proc to reveal the outer /proc.
	begin 25-umount-proc
	ctl_ok "mount+umount a tmpfs in a private namespace" mount-umount "$D/mnt"
	sbx_denied "umount2 /proc" EPERM base umount /proc
	# Unmounting /proc would reveal the outer one; with no effective
	# capabilities at all the command cannot try anything of the kind.
	sbx base -- "$TRY" capeff
	ran "CapEff" && { [ "$OUT" = CAPEFF=0000000000000000 ] || prob "the sandboxed command has capabilities: $OUT"; }
	sbx_ok "read /proc/self/mountinfo" base open-read /proc/self/mountinfo
	finish
}

# wait_gone TAG: the daemon `sleep TAG` is gone within 3 s.
wait_gone() {
	local i
	for i in $(seq 30); do
		pgrep -x -f "sleep $1" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}
wait_seen() {
	local i
	for i in $(seq 50); do
		pgrep -x -f "sleep $1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}
kill_tag() { local p; for p in $(pgrep -x -f "sleep $1"); do kill -KILL "$p" 2>/dev/null; done; }

case_26() { # Orphans do not survive the sandbox.
	begin 26-orphan-survives
	local base sig tag pid
	[ "$U" = root ] && base=71000 || base=72000
	tag=$((base + 1))
	ctl "$TRY" orphan $tag
	if wait_seen $tag; then kill_tag $tag; else prob "control: the double-forked daemon did not survive outside"; fi
	tag=$((base + 2))
	sbx base -- "$TRY" orphan $tag
	if ran "orphan, command exits"; then
		[ "$OUT" = OK ] || prob "orphan: '$OUT'"
		wait_gone $tag || { prob "daemon survived the command's exit"; kill_tag $tag; }
	fi
	for sig in TERM KILL; do
		tag=$((tag + 1))
		"${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- \
			/bin/sh -c "$TRY orphan $tag; exec sleep $((tag + 100))" >/dev/null 2>"$T/sbx.err" </dev/null &
		pid=$!
		BG_PIDS+=("$pid")
		if ! wait_seen $tag; then
			prob "SIG$sig variant: the daemon never started ($(head -1 "$T/sbx.err"))"
			kill -KILL $pid 2>/dev/null
			wait $pid 2>/dev/null
			continue
		fi
		kill -$sig $pid
		wait $pid 2>/dev/null
		wait_gone $tag || { prob "daemon survived SIG$sig of heel-exec"; kill_tag $tag; }
		wait_gone $((tag + 100)) || { prob "the command survived SIG$sig of heel-exec"; kill_tag $((tag + 100)); }
	done
	sbx_ok "fork a child and signal it" base kill child 15
	finish
}

case_27() { # TIOCSTI into the terminal, and the high-bits variant.
	begin 27-tiocsti
	local v
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 0 ]; then
		skipr "dev.tty.legacy_tiocsti=0: the kernel refuses TIOCSTI to everyone"
	fi
	for v in tiocsti tiocsti-highbits; do
		OUT=$("$HD/ptyrun" "${PRE[@]}" env -i $(ENVV) "$TRY" $v 0 2>/dev/null)
		[ "$(echo "$OUT" | head -1)" = OK ] && echo "$OUT" | grep -q INJECTED ||
			[ -n "$SKIPR" ] || prob "control $v on a pty outside: '$(echo $OUT)'"
		OUT=$("$HD/ptyrun" "${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" $v 0 2>"$T/sbx.err")
		RC=$? ERR=$(head -1 "$T/sbx.err")
		if ran "$v"; then
			[ "$(echo "$OUT" | head -1)" = EPERM ] || prob "$v in the sandbox: '$(echo $OUT)', expected EPERM"
			echo "$OUT" | grep -q INJECTED && prob "$v: a character reached the terminal's input"
		fi
	done
	OUT=$("$HD/ptyrun" "${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" tcgets 0 2>"$T/sbx.err")
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "tcgets (positive)" && { [ "$OUT" = OK ] || prob "positive: TCGETS on the terminal: '$OUT'"; }
	finish
}

case_30() { # Connect to a host unix socket.
	begin 30-connect-host-unix-socket
	local sock=$D/outside/host.sock
	rm -f "$T/serve30"
	"$HD/serve" unix "$sock" >"$T/serve30" 2>&1 &
	BG_PIDS+=($!)
	local spid=$!
	for _ in $(seq 50); do grep -qs READY "$T/serve30" && break; sleep 0.05; done
	chmod 777 "$sock"
	ctl_ok "connect outside" connect-unix "$sock"
	sbx_denied "connect (default policy)" EPERM base connect-unix "$sock"
	if [ "${LL_ABI:-0}" -ge 9 ]; then
		# RESOLVE_UNIX (Landlock ABI 9): a socket the sandbox did not
		# create is reachable only through a grant with write.
		sbx_denied "connect (allow unix-sockets, RESOLVE_UNIX)" EACCES unix connect-unix "$sock"
		local own=$W/own.sock
		rm -f "$T/serve30w" "$own"
		"$HD/serve" unix "$own" >"$T/serve30w" 2>&1 &
		BG_PIDS+=($!)
		local wpid=$!
		for _ in $(seq 50); do grep -qs READY "$T/serve30w" && break; sleep 0.05; done
		chmod 777 "$own"
		sbx_ok "connect to a socket in the writable working directory" unix connect-unix "$own"
		kill "$wpid" 2>/dev/null
		rm -f "$own"
	else
		sbx unix -- "$TRY" connect-unix "$sock"
		if ran "connect (allow unix-sockets)" && [ "$OUT" = OK ]; then
			[ -z "$PROB" ] && skipr "documented: with \`allow unix-sockets\`, Landlock ABI ${LL_ABI:-?} (< 9) does not govern connect(2) to a pathname socket; ABI 9 (Linux 7.1) does"
		fi
	fi
	sbx_ok "socketpair(AF_UNIX, STREAM)" base socketpair-stream
	kill "$spid" 2>/dev/null
	finish
}

case_31() { # Abstract unix socket on the host.
	begin 31-abstract-unix-socket
	local name=heel-conf-$$-$U
	rm -f "$T/serve31"
	"$HD/serve" abstract "$name" >"$T/serve31" 2>&1 &
	BG_PIDS+=($!)
	local spid=$!
	for _ in $(seq 50); do grep -qs READY "$T/serve31" && break; sleep 0.05; done
	ctl_ok "connect outside" connect-abstract "$name"
	sbx_denied "connect (default policy: socket refused)" EPERM base connect-abstract "$name"
	sbx_denied "connect (allow unix-sockets: Landlock scope)" "$ERRNO" unix connect-abstract "$name"
	sbx_ok "socket(AF_UNIX) with allow unix-sockets" unix socket-unix
	kill "$spid" 2>/dev/null
	finish
}

case_32() { # Signal a host process.
	begin 32-signal-host-process
	if [ "$U" = root ]; then "${PRE[@]}" sleep 73100 & else "${PRE[@]}" sleep 73200 & fi
	local victim=$! i
	BG_PIDS+=($victim)
	# setpriv is still root until it has changed ids and exec'd sleep:
	# wait for that, or the control races it (EPERM as uid 65534).
	for ((i = 0; i < 200; i++)); do
		[ "$(cat /proc/$victim/comm 2>/dev/null)" = sleep ] && break
		sleep 0.01
	done
	ctl_ok "signal 0 to the victim outside" kill $victim 0
	sbx_denied "SIGTERM to a host process" "$ERRNO" base kill $victim 15
	sleep 0.1
	kill -0 $victim 2>/dev/null || prob "the host process was killed"
	sbx_ok "signal its own child" base kill child 15
	kill -KILL $victim 2>/dev/null
	wait $victim 2>/dev/null
	finish
}

case_36() { # Inherited descriptors above 2 are closed.
	begin 36-inherited-fd
	OUT=$("${PRE[@]}" env -i "$TRY" inherited-fd 7 7<"$D/secret/key" 2>/dev/null)
	[ "$OUT" = OK ] || prob "control: fd 7 unreadable outside: '$OUT'"
	OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" inherited-fd 7 7<"$D/secret/key" 2>"$T/sbx.err" </dev/null)
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "read fd 7" && { [ "$OUT" = EBADF ] || prob "fd 7 in the sandbox: '$OUT', expected EBADF"; }
	SBX_STDIN=$D/ro/file sbx_ok "read stdin" base inherited-fd 0
	finish
}

case_40() { # Network off: TCP to the host's loopback listener, UDP.
	begin 40-network-off
	rm -f "$T/serve40"
	"$HD/serve" tcp 0 >"$T/serve40" 2>&1 &
	BG_PIDS+=($!)
	local spid=$! port
	for _ in $(seq 50); do grep -qs READY "$T/serve40" && break; sleep 0.05; done
	port=$(sed -n 's/^READY //p' "$T/serve40")
	ctl_ok "TCP connect to 127.0.0.1:$port" connect-tcp 127.0.0.1 "$port"
	ctl_ok "UDP send to 127.0.0.1:$port" send-udp 127.0.0.1 "$port"
	# The sandbox's loopback is its own (case 100): nothing listens on
	# that port there.
	sbx_denied "TCP connect to 127.0.0.1:$port" "ECONNREFUSED" base connect-tcp 127.0.0.1 "$port"
	sbx_denied "UDP send" EPERM base send-udp 127.0.0.1 "$port"
	sbx_ok "socketpair(AF_UNIX, STREAM)" base socketpair-stream
	sleep 0.1
	[ "$(grep -c ACCEPT "$T/serve40")" = 1 ] || prob "the host's listener was reached from the sandbox"
	kill "$spid" 2>/dev/null
	finish
}

case_60() { # Fail closed: tampered or unenforceable artifacts never run.
	begin 60-not-applied-must-refuse
	local pol=$T/pol/base.hpol t=$T/pol/t-$U.hpol size i what
	size=$(stat -c %s "$pol")
	sbx base -- "$TRY" create "$W/marker-ok"
	ran "untampered artifact" && { [ -f "$W/marker-ok" ] || prob "untampered artifact: the command did not run ($OUT)"; }
	# refused WHAT: the artifact at $t is refused and its command never ran.
	refused() {
		rm -f "$W/marker"
		chmod 644 "$t" 2>/dev/null
		OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "${@:2}" "$t" -- "$TRY" create "$W/marker" 2>"$T/sbx.err" </dev/null)
		RC=$?
		[ "$RC" = 125 ] || prob "$1: exit $RC, expected 125"
		[ -e "$W/marker" ] && prob "$1: the command ran"
	}
	# Every header field, then a byte every 97 through the whole file (the
	# validator's own unit test flips every byte; this proves the launcher
	# refuses before anything runs, wherever the damage is).
	for i in 0 9 16 24 33 41 49 53 60 64 $(seq 71 97 $((size - 1))) $((size - 1)); do
		local byte
		byte=$(od -An -tu1 -j "$i" -N1 "$pol" | tr -d ' ')
		cp "$pol" "$t"
		printf "\\$(printf %03o $((byte ^ 0x40)))" |
			dd of="$t" bs=1 seek="$i" conv=notrunc status=none
		cmp -s "$pol" "$t" && prob "byte $i: the copy was not changed (test machinery)"
		refused "byte $i flipped"
	done
	for what in half minus8 plus1; do
		cp "$pol" "$t"
		case $what in
		half) truncate -s $((size / 2)) "$t" ;;
		minus8) truncate -s $((size - 8)) "$t" ;;
		plus1) printf x >>"$t" ;;
		esac
		refused "truncated/extended ($what)"
	done
	cp "$pol" "$t"; chmod 666 "$t"
	OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$t" -- "$TRY" create "$W/marker" 2>/dev/null </dev/null)
	RC=$?; [ "$RC" = 125 ] && [ ! -e "$W/marker" ] || prob "world-writable artifact: exit $RC"
	rm -f "$W/marker"
	cp "$pol" "$t"; chown 12345 "$t"
	refused "artifact owned by another user"
	chown 0 "$t"
	# A well-formed artifact that asks for a Landlock ABI the kernel lacks.
	if "$HD/hpolpatch" "$pol" "$t" landlock-min-abi 9; then
		if [ "${LL_ABI:-0}" -lt 9 ]; then
			refused "Landlock min ABI 9 on a kernel with ABI ${LL_ABI:-none}"
			grep -qi landlock "$T/sbx.err" || prob "the refusal does not name Landlock: $(head -1 "$T/sbx.err")"
		fi
	else
		prob "hpolpatch: the artifact has no LINUX_LANDLOCK section (heelc does not emit it): cannot build the unenforceable-artifact test"
	fi
	# A required grant that is missing, an unset variable.
	cp "$T/pol/nopath.hpol" "$t"; refused "required grant missing"
	cp "$T/pol/unsetvar.hpol" "$t"; refused "required grant with an unset variable"
	finish
}

# ------------------------------------------- walls that are not Landlock
# Metadata, IPC, what /proc shows, shared temp, the fresh working
# directory: mounts and namespaces hold these, so each case also runs
# the attack where Landlock alone would have let it through.

mode_of() { stat -c %a "$1" 2>/dev/null; }
mtime_of() { stat -c %Y "$1" 2>/dev/null; }

case_70() { # Metadata writes outside the writable places.
	begin 70-metadata-writes
	local f=$D/ro/meta c=$D/ro/meta-ctl op
	echo orig >"$f"; echo orig >"$c"
	chown --reference="$D/ro/file" "$f" "$c"
	touch -d @1000000000 "$f"
	for op in "chmod $c 600" "fchmod-ro $c 640" "chown-self $c" "utimes $c" \
		"setxattr $c" "setacl $c" "setflags $c"; do
		ctl "$TRY" $op
		case $OUT in
		OK) ;;
		EOPNOTSUPP|ENOTTY) skipr "control $op: the file system lacks it ($OUT)"; continue ;;
		*) prob "control ($op) outside the sandbox gave '${OUT:-nothing}' (rc $RC)"; continue ;;
		esac
		sbx_denied "${op%% *} on a read-granted file" "$ERRNO" base ${op/$c/$f}
	done
	[ "$(mode_of "$f")" = 644 ] || prob "the read-granted file's mode changed: $(mode_of "$f")"
	[ "$(mtime_of "$f")" = 1000000000 ] || prob "the read-granted file's mtime changed"
	# A denied file the sandbox's user owns (default base, credentials on).
	ctl_ok "chmod ~/.ssh/id_rsa outside" chmod "$H/.ssh/id_rsa" 600
	sbx_denied "chmod ~/.ssh/id_rsa" "$ERRNO" home chmod "$H/.ssh/id_rsa" 644
	sbx_denied "setxattr ~/.ssh/id_rsa" "$ERRNO" home setxattr "$H/.ssh/id_rsa"
	[ "$(mode_of "$H/.ssh/id_rsa")" = 600 ] || prob "~/.ssh/id_rsa's mode changed"
	# The setuid bit on a root-owned program in an rx grant: root's sandbox
	# would hand every local user root.
	cp /usr/bin/true "$T/bin/victim-$U"; chmod 755 "$T/bin/victim-$U"
	if [ "$U" = root ]; then
		cp /usr/bin/true "$T/bin/ctl-victim"
		ctl_ok "chmod 4755 a root-owned program outside" chmod "$T/bin/ctl-victim" 4755
		rm -f "$T/bin/ctl-victim"
	fi
	sbx_denied "chmod 4755 a root-owned program in an rx grant" "$ERRNO" base chmod "$T/bin/victim-$U" 4755
	[ "$(mode_of "$T/bin/victim-$U")" = 755 ] || prob "the rx-granted program is now mode $(mode_of "$T/bin/victim-$U")"
	rm -f "$T/bin/victim-$U"
	# A read-only grant inside a writable one (proj/.ro under proj rw).
	sbx_denied "chmod inside a read-only grant within a writable one" "$ERRNO" proj chmod "$D/proj/.ro/config" 600
	[ "$(mode_of "$D/proj/.ro/config")" = 644 ] || prob "proj/.ro/config's mode changed"
	echo x >"$W/own" && chown --reference="$W" "$W/own"
	sbx_ok "chmod in the working directory" base chmod "$W/own" 600
	[ "$(mode_of "$W/own")" = 600 ] || prob "positive: the working directory's file was not chmodded"
	# A file system without user xattrs (tmpfs before Linux 6.6, as in
	# the kernel guests' overlay) refuses them outside too.
	ctl "$TRY" setxattr "$D/proj/notes"
	if [ "$OUT" = EOPNOTSUPP ]; then
		sbx_denied "setxattr in a writable grant (no user xattrs on this file system)" EOPNOTSUPP proj setxattr "$D/proj/notes"
	else
		sbx_ok "setxattr in a writable grant" proj setxattr "$D/proj/notes"
	fi
	finish
}

case_71() { # SysV IPC and POSIX message queues of the host.
	begin 71-ipc-namespace
	local k=$((0x48450000 + $$ % 65536)) k2=$((0x48460000 + $$ % 65536)) q=/heel-conf-$$
	ctl "$TRY" shm make $k; ctl "$TRY" msgq make $k; ctl "$TRY" mq make $q
	ctl_ok "attach the host's segment" shm get $k
	ctl_ok "find the host's queue" msgq get $k
	ctl_ok "open the host's POSIX queue" mq open $q
	sbx_denied "attach the host's shared memory" ENOENT base shm get $k
	sbx_denied "remove the host's segment" ENOENT base shm remove $k
	sbx_denied "find the host's message queue" ENOENT base msgq get $k
	sbx_denied "open the host's POSIX queue" ENOENT base mq open $q
	ctl_ok "the host's segment is intact" shm get $k
	sbx_ok "make a segment of its own" base shm make $k2
	sbx_ok "make a message queue of its own" base msgq make $k2
	# Landlock refuses creating a POSIX queue (mq_open creates a file on
	# the namespace's mqueue file system, which no rule grants).
	sbx_denied "make a POSIX queue" "$ERRNO" base mq make $q-in
	ctl "$TRY" shm get $k2; [ "$OUT" = ENOENT ] || prob "the sandbox's segment survived the run ($OUT)"
	ctl "$TRY" msgq get $k2; [ "$OUT" = ENOENT ] || prob "the sandbox's message queue survived ($OUT)"
	ctl "$TRY" mq open $q-in; [ "$OUT" = ENOENT ] || prob "a POSIX queue of the sandbox's is on the host ($OUT)"
	ctl "$TRY" shm remove $k; ctl "$TRY" msgq remove $k; ctl "$TRY" mq remove $q
	finish
}

case_72() { # What /proc/net shows of the host's sockets.
	begin 72-proc-net
	local sock=$D/outside/listen72.sock port hex
	rm -f "$T/serve72u" "$T/serve72t"
	"$HD/serve" unix "$sock" >"$T/serve72u" 2>&1 &
	BG_PIDS+=($!)
	"$HD/serve" tcp 0 >"$T/serve72t" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 50); do grep -qs READY "$T/serve72u" && grep -qs READY "$T/serve72t" && break; sleep 0.05; done
	port=$(sed -n 's/^READY \([0-9]*\).*/\1/p' "$T/serve72t")
	hex=$(printf ':%04X' "$port")
	ctl_ok "the host's unix listener in /proc/net/unix" holds /proc/net/unix "$sock"
	ctl_ok "the host's TCP listener in /proc/net/tcp" holds /proc/net/tcp "$hex"
	sbx_denied "the host's unix socket path in /proc/net/unix" "EBADMSG" base holds /proc/net/unix "$sock"
	sbx_denied "the host's TCP port in /proc/net/tcp" "EBADMSG" base holds /proc/net/tcp "$hex"
	sbx_ok "/proc/net/dev lists loopback only, up" base holds /proc/net/dev "lo:"
	kill "${BG_PIDS[@]: -2}" 2>/dev/null
	finish
}

case_73() { # Shared temp is never executable, through the loader either.
	begin 73-shared-temp-noexec
	local p=/dev/shm/heel-conf-payload-$U-$$
	cp "$HD/payload" "$p" && chmod 755 "$p"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$p"
	ctl_ok "ld.so on a payload in /dev/shm outside" ldso-exec "$p"
	sbx_denied "ld.so on a payload in /dev/shm (default base)" "$ERRNO|FAILED.*" home ldso-exec "$p"
	[ "$OUT" = OK ] && prob "the payload in shared temp ran"
	sbx_ok "ld.so on a payload in a granted rx dir" home ldso-exec "$T/bin/payload"
	rm -f "$p"
	finish
}

case_74() { # A fresh working directory is private to its sandbox.
	begin 74-fresh-workdir-private
	local a=$T/a74 wd i
	rm -f "$a"
	# Sandbox A: writes a secret into its fresh working directory, says
	# where it is, and stays a while.
	("${PRE[@]}" env -i $(ENVV) "$HX" "$T/pol/home.hpol" -- /bin/sh -c \
		'echo WD-SECRET >secret; pwd; cat secret; sleep 3' >"$a" 2>&1 &)
	for i in $(seq 60); do [ "$(cat "$a" 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
	wd=$(head -1 "$a")
	[ "$(sed -n 2p "$a")" = WD-SECRET ] || prob "positive: sandbox A could not read its own file: $(cat "$a")"
	if [ -z "$wd" ] || [ "${wd#/}" = "$wd" ]; then
		prob "sandbox A did not report its working directory: $(cat "$a")"
	else
		ctl "$TRY" open-read "$wd/secret"
		[ "$OUT" = OK ] && prob "the host (same user) reads sandbox A's file at $wd/secret"
		sbx_denied "sandbox B reads sandbox A's file" "ENOENT|EACCES" home open-read "$wd/secret"
		[ -n "$(ls -A "$wd" 2>/dev/null)" ] && prob "the host sees files in $wd: $(ls -A "$wd")"
	fi
	# SIGKILL the launcher: nothing readable stays behind.
	rm -f "$a"
	("${PRE[@]}" env -i $(ENVV) "$HX" "$T/pol/home.hpol" -- /bin/sh -c \
		'echo x >left; pwd; sleep 30' >"$a" 2>&1 & echo $! >"$T/a74.pid")
	for i in $(seq 60); do [ -s "$a" ] && break; sleep 0.05; done
	wd=$(head -1 "$a")
	pkill -KILL -f "heel-exec $T/pol/home.hpol -- /bin/sh -c echo x >left" 2>/dev/null
	sleep 0.3
	[ -n "$wd" ] && [ -e "$wd/left" ] && prob "a SIGKILLed launch left $wd/left on disk"
	[ -n "$wd" ] && rmdir "$wd" 2>/dev/null
	ctl_ok "read a file of the same user outside" open-read "$D/outside/victim"
	finish
}

case_75() { # An rwx grant inside the kept working directory is executable.
	begin 75-rwx-in-workdir
	mkdir -p "$W/target"
	cp /usr/bin/true "$W/target/elf"; chmod 755 "$W/target/elf"
	[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$W/target"
	sbx_ok "exec a program in the rwx grant" wdexec exec "$W/target/elf"
	sbx_ok "write in the rwx grant" wdexec create "$W/target/new"
	sbx_denied "exec a program elsewhere in the working directory" "$ERRNO" wdexec exec "$W/elf"
	sbx_denied "ld.so on a payload elsewhere in the working directory" "$ERRNO|FAILED.*" wdexec ldso-exec "$W/payload"
	finish
}

case_76() { # A file deny beside a directory deny, inside a writable grant.
	begin 76-file-and-dir-deny-same-parent
	mkdir -p "$D/proj/two/hooks"
	echo orig >"$D/proj/two/config"; echo orig >"$D/proj/two/hooks/pre-commit"; echo n >"$D/proj/two/notes"
	[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$D/proj/two"
	ctl_ok "write the config outside" open-write "$D/proj/two/notes"
	sbx_denied "write the denied file" "$ERRNO" projdeny open-write "$D/proj/two/config"
	sbx_denied "read the denied file" "$ERRNO|EBADMSG" projdeny holds "$D/proj/two/config" orig
	sbx_denied "write in the denied directory" "$ERRNO" projdeny create "$D/proj/two/hooks/x"
	[ "$(content "$D/proj/two/config")" = orig ] || prob "the denied file changed: $(content "$D/proj/two/config")"
	[ -e "$D/proj/two/hooks/x" ] && prob "a file was created in the denied directory"
	sbx_ok "write a file beside them" projdeny open-write "$D/proj/two/notes"
	finish
}

case_77() { # limit open-files below the number of Landlock rules.
	begin 77-open-files-limit
	sbx lim64 -- /bin/sh -c 'ulimit -n'
	if ran "limit open-files 64"; then
		[ "$OUT" = 64 ] || prob "ulimit -n in the sandbox is '$OUT', expected 64"
	fi
	sbx_ok "a command runs under it" lim64 getpid
	finish
}

case_78() { # A /proc with over-mounts, as in containers.
	begin 78-proc-overmount
	if [ "$U" = root ]; then
		skipr "root may mount a /proc over any over-mounts; the refusal concerns a user namespace"
		finish
		return
	fi
	# A mount namespace of the test's own where /proc/kcore (or another
	# file Docker masks) is hidden by a
	# bind mount, as Docker hides it: a user namespace may then not mount
	# a new /proc (the kernel would reveal what the over-mount hides).
	local f
	for f in /proc/kcore /proc/keys /proc/timer_list; do [ -f "$f" ] && break; done
	local run="mount --bind /dev/null $f && exec \"\$@\""
	OUT=$(unshare -m --propagation private sh -c "$run" sh "${PRE[@]}" env -i $(ENVV) \
		"$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" getpid 2>"$T/sbx.err")
	RC=$?
	if [ "$RC" != 125 ]; then
		prob "no private /proc possible: heel-exec ran (rc $RC, '$OUT') instead of refusing"
	elif ! grep -q '/proc' "$T/sbx.err"; then
		prob "the refusal does not name /proc: $(head -1 "$T/sbx.err")"
	fi
	OUT=$(unshare -m --propagation private sh -c "$run" sh "${PRE[@]}" env -i $(ENVV) \
		"$HX" --workdir "$W" --best-effort "$T/pol/base.hpol" -- "$TRY" getpid 2>"$T/sbx.err")
	RC=$?
	[ "$OUT" = OK ] || prob "with --best-effort the command did not run (rc $RC): $(head -1 "$T/sbx.err")"
	grep -q 'weakened: .*/proc' "$T/sbx.err" || prob "with --best-effort no weakening names /proc: $(cat "$T/sbx.err")"
	# The positive control needs a host whose /proc a user may remount.
	[ -z "${noproc:-}" ] && sbx_ok "a private /proc where nothing is over-mounted" base getpid
	finish
}

case_79() { # inotify on a denied directory reports the host's activity there.
	begin 79-inotify-denied-dir
	ctl_ok "watch ~/.ssh outside" inotify-watch "$H/.ssh"
	sbx_denied "watch ~/.ssh under strict" EPERM base inotify-watch "$H/.ssh"
	sbx_ok "watch the working directory under default" home inotify-watch "$W"
	finish
}

case_84() { # Root-only files under /etc that no deny names.
	begin 84-root-only-etc
	local f=/etc/heel-conf-$$-key dir=/etc/heel-conf-$$-dir pub=/etc/heel-conf-$$-pub
	echo CA-PRIVATE-KEY >"$f"; chmod 600 "$f"
	mkdir -p "$dir"; echo INNER >"$dir/file"; chmod 644 "$dir/file"; chmod 700 "$dir"
	echo public >"$pub"; chmod 644 "$pub"
	if [ "$U" = root ]; then
		ctl_ok "root reads a mode 600 file under /etc outside" open-read "$f"
		ctl_ok "root reads into a mode 700 directory under /etc outside" open-read "$dir/file"
	else
		skipr "uid $NOBODY cannot read them outside either (EACCES): the mode keeps it out"
	fi
	sbx_denied "read a mode 600 file under /etc (strict)" "$ERRNO" base open-read "$f"
	sbx_denied "read a mode 600 file under /etc (default)" "$ERRNO" home open-read "$f"
	sbx_denied "read into a mode 700 directory under /etc (default)" "$ERRNO" home open-read "$dir/file"
	sbx_ok "read a world-readable file under /etc" home open-read "$pub"
	sbx_ok "read /etc/passwd" base open-read /etc/passwd
	if [ "$U" = root ]; then
		# A writable place beneath /etc: the idmapped copy of /etc
		# would take its writes away, so heel-exec scans /etc and
		# covers what it finds instead; the same files stay hidden.
		mkdir -p "$ETCRW"
		sbx_denied "read a mode 600 file under /etc (scan and covers)" "$ERRNO" etcrw open-read "$f"
		sbx_denied "read into a mode 700 directory (scan and covers)" "$ERRNO" etcrw open-read "$dir/file"
		sbx_ok "write the writable place beneath /etc" etcrw create "$ETCRW/new"
		sbx_ok "read a world-readable file (scan and covers)" etcrw open-read "$pub"
		rm -rf "$ETCRW"
		# A secret the host writes while the sandbox runs: the
		# kernel applies its mode (an idmapped /etc); a scan at
		# launch could not have seen it.
		if grep -q "idmapped /etc" <<<"$CHECK"; then
			# In a directory that exists at launch: a new entry of
			# /etc itself would also be outside every Landlock rule
			# of a carved /etc.
			local late=/etc/heel-conf-$$-late.d/key go=$T/late-go
			rm -f "$go"; mkdir -p "${late%/*}"; chmod 755 "${late%/*}"
			( sleep 0.3; echo LATE-KEY >"$late"; chmod 600 "$late"; touch "$go"; chmod 644 "$go" ) &
			sbx home -- /bin/sh -c "i=0; while [ ! -e $go ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i+1)); done; $TRY open-read $late"
			wait
			if ran "read a root-only file created during the run"; then
				[[ $OUT =~ ^E[A-Z]+$ ]] || prob "read a mode 600 file created under /etc during the run: '$OUT' (rc $RC), expected refused"
			fi
			ctl_ok "root reads the late file outside" open-read "$late"
			rm -rf "${late%/*}" "$go"
		else
			skipr "/etc cannot be idmapped here: a root-only file created during a run is readable (documented)"
		fi
	fi
	rm -rf "$f" "$dir" "$pub"
	finish
}

# ------------------------------------------- files the host runs (host-run)
# A real repository owned by $U at $D/repo, and git run on the host as
# $U: what the host does after the sandbox is gone is the proof.
R=""
RG() {
	"${PRE[@]}" env -i $(ENVV) GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@t git -C "$R" "$@" </dev/null
}
make_repo() {
	R=$D/repo
	rm -rf "$R"
	mkdir -p "$R"
	echo one >"$R/tracked"
	[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$R"
	RG init -q && RG add tracked && RG commit -q -m one || prob "cannot make a git repository as $U"
}
# host_commit: a commit on the host, as $U, that runs the pre-commit hook.
host_commit() { RG commit -q --allow-empty -m "host $1" >/dev/null 2>&1; }
# The hook a sandbox plants: it marks $1 when the host runs it.
plant_hook() {
	echo "cd $R && printf '#!/bin/sh\\ntouch $1\\n' >.git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit && echo planted"
}

case_10() { # Plant a git hook in a writable repository: the host's next commit runs it.
	begin 10-host-run-git-hook
	local M=$D/marker10
	R=$D/repo
	# Control: without host-run the sandbox plants the hook and the
	# host's commit runs it, so this case can fail.
	make_repo; rm -f "$M"
	sbx gitrepo-off -- /bin/sh -c "$(plant_hook "$M")"
	if ran "control: plant without host-run"; then
		[ "$OUT" = planted ] || prob "control: the hook was not planted without host-run: '$OUT' $ERR"
		host_commit c
		[ -e "$M" ] || prob "control: the host's git commit did not run the hook planted without host-run"
	fi
	# An explicit grant of the very path beats the set.
	make_repo; rm -f "$M"
	sbx gitrepo-grant -- /bin/sh -c "$(plant_hook "$M")"
	if ran "explicit grant of .git/hooks"; then
		[ "$OUT" = planted ] || prob "an explicit grant of .git/hooks did not let the hook be planted: '$OUT'"
		host_commit g
		[ -e "$M" ] || prob "the host did not run the hook an explicit grant let the sandbox plant"
	fi
	# Under host-run: refused, and the host's commit runs nothing.
	make_repo; rm -f "$M"
	sbx gitrepo -- /bin/sh -c "$(plant_hook "$M")"
	if ran "plant a hook"; then
		[ "$OUT" = planted ] && prob "the sandbox planted .git/hooks/pre-commit under host-run"
		[ -e "$R/.git/hooks/pre-commit" ] && prob "$R/.git/hooks/pre-commit exists after the run"
		host_commit h
		[ -e "$M" ] && prob "the host's git commit ran a hook the sandbox planted"
	fi
	# Metadata of the hooks directory (chmod), unlinking a sample hook.
	ctl_ok "chmod a directory of the repository" chmod "$R/.git/refs" 755
	sbx_denied "chmod .git/hooks" "$ERRNO" gitrepo chmod "$R/.git/hooks" 777
	sbx_denied "unlink a sample hook" "$ERRNO" gitrepo unlink "$R/.git/hooks/pre-commit.sample"
	[ -e "$R/.git/hooks/pre-commit.sample" ] || prob "a sample hook was removed"
	# heel-exec check says what the set keeps here.
	"${PRE[@]}" env -i $(ENVV) "$HX" check "$T/pol/gitrepo.hpol" >"$T/check.out" 2>&1
	grep -q '^host-run: [0-9]* paths kept read-only inside writable places: [1-9][0-9]* read-only mounts' \
		"$T/check.out" || prob "heel-exec check does not count the read-only paths: $(grep -i host-run "$T/check.out")"
	# Ordinary work still works: edit a tracked file, git add and commit.
	sbx gitrepo -- /bin/sh -c "cd $R && echo two >tracked && git add tracked && git -c user.name=t -c user.email=t@t commit -q -m two && echo committed"
	if ran "commit inside the sandbox (positive)"; then
		[ "$OUT" = committed ] || prob "positive: git commit inside the sandbox failed: '$OUT' $(head -3 "$T/sbx.err" | tr '\n' ' ')"
		[ "$(RG log -1 --format=%s 2>/dev/null)" = two ] || prob "positive: the sandbox's commit is not in the repository"
	fi
	finish
}

case_11() { # Rename .git away and build a new one with hooks and config.
	begin 11-host-run-rename-git-away
	local M=$D/marker11 attack
	R=$D/repo
	attack="cd $R && mv .git .git.old && mkdir -p .git && cp -r .git.old/. .git/ && printf '#!/bin/sh\\ntouch $M\\n' >.git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit && echo replaced"
	# Control: without host-run the rename works and the new hook runs.
	make_repo; rm -f "$M"
	sbx gitrepo-off -- /bin/sh -c "$attack"
	if ran "control: rename without host-run"; then
		[ "$OUT" = replaced ] || prob "control: .git could not be replaced without host-run: '$OUT' $ERR"
		host_commit c
		[ -e "$M" ] || prob "control: the host did not run the hook of the replaced .git"
	fi
	make_repo; rm -f "$M"
	sbx gitrepo -- /bin/sh -c "$attack"
	if ran "rename .git away"; then
		[ "$OUT" = replaced ] && prob "the sandbox replaced .git under host-run"
		[ -e "$R/.git.old" ] && prob ".git was renamed to .git.old"
		host_commit h
		[ -e "$M" ] && prob "the host's git commit ran a hook of a .git the sandbox replaced"
	fi
	sbx_denied "rename .git/hooks" "$ERRNO" gitrepo rename "$R/.git/hooks" "$R/.git/hooks.old"
	sbx_denied "rmdir .git" "$ERRNO" gitrepo rename "$R/.git" "$R/git-old"
	finish
}

case_12() { # core.fsmonitor and core.hooksPath in .git/config: git status and commit run them.
	begin 12-host-run-git-config
	local M=$D/marker12 H2=$D/hooks12 set
	R=$D/repo
	set="cd $R && git config core.fsmonitor 'touch $M' && git config core.hooksPath $H2 && echo configured"
	mkdir -p "$H2" && printf '#!/bin/sh\ntouch %s\n' "$M" >"$H2/pre-commit" && chmod 755 "$H2/pre-commit"
	[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$H2"
	make_repo; rm -f "$M"
	sbx gitrepo-off -- /bin/sh -c "$set"
	if ran "control: git config without host-run"; then
		[ "$OUT" = configured ] || prob "control: git config failed without host-run: '$OUT' $ERR"
		RG status >/dev/null 2>&1
		[ -e "$M" ] || prob "control: the host's git status did not run core.fsmonitor"
	fi
	make_repo; rm -f "$M"
	sbx gitrepo -- /bin/sh -c "$set"
	if ran "git config"; then
		[ "$OUT" = configured ] && prob "the sandbox set core.fsmonitor and core.hooksPath under host-run"
		RG status >/dev/null 2>&1
		host_commit h
		[ -e "$M" ] && prob "the host's git status or commit ran what the sandbox configured"
		[ -z "$(RG config --get core.fsmonitor)" ] || prob ".git/config holds core.fsmonitor"
	fi
	sbx_denied "append to .git/config" "$ERRNO" gitrepo open-write "$R/.git/config"
	sbx_denied "replace .git/config" "$ERRNO" gitrepo rename "$R/tracked" "$R/.git/config"
	# core.hooksPath set by the user to a directory of the repository:
	# git runs the hooks there, so it is kept read-only too.
	set="cd $R && printf '#!/bin/sh\\ntouch $M\\n' >.githooks/pre-commit && chmod 755 .githooks/pre-commit && echo planted"
	# Also as one line after the section header, which git reads too.
	for pol in gitrepo-off gitrepo gitrepo-oneline; do
		make_repo; rm -f "$M"
		mkdir "$R/.githooks"
		[ "$U" != root ] && chown $NOBODY:$NOBODY "$R/.githooks"
		if [ $pol = gitrepo-oneline ]; then
			printf '[core] hooksPath = .githooks ; the project'"'"'s hooks\n' >>"$R/.git/config"
			pol=gitrepo
			[ "$(RG config --get core.hooksPath)" = .githooks ] || prob "git does not read the one-line form"
		else
			RG config core.hooksPath .githooks
		fi
		sbx $pol -- /bin/sh -c "$set"
		ran "plant in core.hooksPath ($pol)" || continue
		host_commit $pol
		if [ $pol = gitrepo-off ]; then
			[ "$OUT" = planted ] && [ -e "$M" ] || prob "control: a hook planted in core.hooksPath without host-run did not run on the host ('$OUT')"
		else
			[ "$OUT" = planted ] && prob "the sandbox planted a hook in the directory core.hooksPath names"
			[ -e "$M" ] && prob "the host's git commit ran a hook planted in core.hooksPath"
		fi
	done
	# A linked worktree: its .git is a file that names the git directory.
	for pol in gitwt-off gitwt; do
		make_repo
		rm -rf "$D/wt"
		RG worktree add -q "$D/wt" >/dev/null 2>&1 || prob "cannot add a worktree as $U"
		if [ $pol = gitwt-off ]; then
			sbx_ok "control: rewrite a worktree's .git without host-run" $pol open-write "$D/wt/.git"
		else
			sbx_denied "rewrite a worktree's .git to name another git directory" "$ERRNO" $pol \
				open-write "$D/wt/.git"
		fi
	done
	grep -q '^gitdir: ' "$D/wt/.git" || prob "the worktree's .git file changed: $(head -c 80 "$D/wt/.git")"
	finish
}

case_87() { # Files the host runs that did not exist: made by the sandbox, moved aside after it.
	begin 87-host-run-created-files
	local M=$D/marker87 make
	R=$D/repo
	make="cd $R && echo 'touch $M' >.envrc && mkdir -p .vscode && echo '{}' >.vscode/tasks.json && echo made"
	make_repo
	sbx gitrepo-off -- /bin/sh -c "$make"
	if ran "control: make them without host-run"; then
		[ "$OUT" = made ] || prob "control: '$OUT' $ERR"
		[ -f "$R/.envrc" ] && [ -f "$R/.vscode/tasks.json" ] || prob "control: without host-run the files are not left in place"
	fi
	make_repo
	sbx gitrepo -- /bin/sh -c "$make"
	if ran "make .envrc and .vscode/tasks.json"; then
		[ "$OUT" = made ] || prob "the sandbox could not make them (they are moved aside after the run, not refused): '$OUT'"
		[ -e "$R/.envrc" ] && prob ".envrc is still in place after the run"
		[ -e "$R/.vscode/tasks.json" ] && prob ".vscode/tasks.json is still in place after the run"
		[ "$(cat "$R"/.envrc.heel-blocked.* 2>/dev/null)" = "touch $M" ] ||
			prob ".envrc was not moved aside with its content: $(ls -a "$R" | tr '\n' ' ')"
		ls "$R"/.vscode/tasks.json.heel-blocked.* >/dev/null 2>&1 || prob ".vscode/tasks.json was not moved aside"
		grep -q "WARNING: the sandbox made $R/.envrc, which host-run keeps read-only (direnv" "$T/sbx.err" ||
			prob "no warning names .envrc and what runs it: $(grep WARNING "$T/sbx.err" | head -1)"
	fi
	# A writable home: .bashrc exists (a read-only mount), .gitconfig does
	# not (moved aside); the host's bash and git are what would run them.
	echo '# rc' >"$H/.bashrc"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$H/.bashrc"
	make="echo 'touch $M' >>$H/.bashrc; printf '[core]\\n\\tfsmonitor = touch $M\\n' >$H/.gitconfig && echo done"
	rm -f "$M"
	sbx homerun-off -- /bin/sh -c "$make"
	if ran "control: home rc without host-run"; then
		"${PRE[@]}" env -i $(ENVV) bash -ic true </dev/null >/dev/null 2>&1
		[ -e "$M" ] || prob "control: the host's bash did not run the .bashrc the sandbox wrote"
		rm -f "$M"
		RG status >/dev/null 2>&1
		[ -e "$M" ] || prob "control: the host's git status did not run the ~/.gitconfig the sandbox wrote"
	fi
	echo '# rc' >"$H/.bashrc"; rm -f "$H/.gitconfig" "$M"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$H/.bashrc"
	sbx homerun -- /bin/sh -c "$make"
	if ran "home rc"; then
		[ "$(cat "$H/.bashrc")" = '# rc' ] || prob "~/.bashrc changed: $(cat "$H/.bashrc")"
		[ -e "$H/.gitconfig" ] && prob "~/.gitconfig is still in place after the run"
		"${PRE[@]}" env -i $(ENVV) bash -ic true </dev/null >/dev/null 2>&1
		RG status >/dev/null 2>&1
		[ -e "$M" ] && prob "the host's bash or git ran what the sandbox wrote in the home"
	fi
	rm -f "$H/.bashrc" "$H"/.gitconfig*
	finish
}

case_88() { # host-run without a mount namespace: Landlock carves the paths out.
	begin 88-host-run-without-namespaces
	local M=$D/marker88
	R=$D/repo
	make_repo; rm -f "$M"
	sbx gitrepo-off --best-effort --no-namespaces -- /bin/sh -c "$(plant_hook "$M")"
	if ran "control: plant without namespaces or host-run"; then
		[ "$OUT" = planted ] || prob "control: the hook was not planted: '$OUT' $ERR"
		host_commit c
		[ -e "$M" ] || prob "control: the host's git commit did not run the planted hook"
	fi
	make_repo; rm -f "$M"
	sbx gitrepo --best-effort --no-namespaces -- /bin/sh -c "$(plant_hook "$M")"
	if ran "plant a hook without namespaces"; then
		[ "$OUT" = planted ] && prob "the hook was planted without namespaces"
		grep -q 'weakened: without a mount namespace the .* read-only paths' "$T/sbx.err" ||
			prob "the weakening is not named: $(grep weakened "$T/sbx.err" | tail -1)"
		host_commit h
		[ -e "$M" ] && prob "the host's git commit ran a hook planted without namespaces"
	fi
	SBX_OPTS="--best-effort --no-namespaces" sbx_denied "write .git/config" "$ERRNO" gitrepo open-write "$R/.git/config"
	SBX_OPTS="--best-effort --no-namespaces" sbx_ok "write a tracked file" gitrepo open-write "$R/tracked"
	finish
}

case_89() { # A read-only path beneath a pinned directory; a dotfile that is a link.
	begin 89-host-run-pins-and-links
	mkdir -p "$H/.config/git" "$H/.config/secret" "$H/dotfiles"
	echo orig >"$H/.config/git/config"
	echo orig >"$H/dotfiles/profile"
	ln -s dotfiles/profile "$H/.profile"
	[ "$U" != root ] && chown -R -h $NOBODY:$NOBODY "$H"
	sbx_ok "control: write ~/.config/git/config without host-run" homecfg-off open-write "$H/.config/git/config"
	sbx_ok "control: write through ~/.profile without host-run" homecfg-off open-write "$H/.profile"
	echo orig >"$H/.config/git/config"
	echo orig >"$H/dotfiles/profile"
	sbx_denied "write ~/.config/git/config (beneath the pinned ~/.config)" "$ERRNO" homecfg \
		open-write "$H/.config/git/config"
	[ "$(content "$H/.config/git/config")" = orig ] || prob "~/.config/git/config changed"
	sbx_denied "write through the link ~/.profile" "$ERRNO" homecfg open-write "$H/.profile"
	[ "$(content "$H/dotfiles/profile")" = orig ] || prob "the link's target changed"
	sbx_denied "read the denied ~/.config/secret" "$ERRNO" homecfg open-read "$H/.config/secret"
	# Replace the link: put back after the run, the replacement aside.
	sbx homecfg -- /bin/sh -c "rm $H/.profile && echo 'touch $D/marker89' >$H/.profile && echo replaced"
	if ran "replace the link ~/.profile"; then
		[ "$OUT" = replaced ] || prob "the link could not be replaced inside (it is put back after the run): '$OUT'"
		[ "$(readlink "$H/.profile")" = dotfiles/profile ] || prob "~/.profile was not put back: $(ls -l "$H/.profile")"
		[ "$(cat "$H"/.profile.heel-blocked.* 2>/dev/null)" = "touch $D/marker89" ] ||
			prob "the replacement was not moved aside: $(ls -a "$H" | tr '\n' ' ')"
		grep -q "WARNING: the sandbox replaced the link $H/.profile -> dotfiles/profile" "$T/sbx.err" ||
			prob "no warning names the link: $(grep WARNING "$T/sbx.err" | head -1)"
	fi
	sbx_ok "write a file beside them" homecfg create "$H/.config/new"
	finish
}

# Repositories below the top of a writable place (escape 10 of issue 20):
# made, cloned or changed by the sandbox, checked after the run.
# host_git DIR ARGS: git on the host, as $U, in $R/DIR (its output dropped).
host_git() { local d=$1; shift; RG -C "$d" "$@" >/dev/null 2>&1; }
# as_host SCRIPT: the same commands outside the sandbox, as $U (the
# controls that show the host's git runs what they set).
as_host() { "${PRE[@]}" env -i $(ENVV) /bin/sh -c "$1" </dev/null >/dev/null 2>&1; }
# blocked DIR NAME: NAME was moved aside in DIR.
blocked() { ls "$1/$2".heel-blocked.* >/dev/null 2>&1; }

case_97() { # A repository the sandbox makes or changes below a writable place's top: the host's git runs its config and hooks.
	begin 97-host-run-nested-repositories
	local M=$D/marker97 make pos pol m
	R=$D/repo
	# In one run: a new repository with core.fsmonitor (the host's git
	# status runs it), another with a pre-commit hook (the host's git
	# commit runs it), and core.fsmonitor added to a nested repository the
	# user made before the run.
	make="cd $R && git init -q new && cd new && echo x >f && git add f && git -c user.name=t -c user.email=t@t commit -qm x && git config core.fsmonitor 'touch $M.new' && cd $R && git init -q hook && printf '#!/bin/sh\\ntouch $M.hook\\n' >hook/.git/hooks/pre-commit && chmod 755 hook/.git/hooks/pre-commit && git -C old config core.fsmonitor 'touch $M.old' && echo made"
	for pol in host gitrepo-off gitrepo; do
		make_repo
		host_git . init -q old && host_git old commit -q --allow-empty -m old || prob "cannot make the nested repository as $U"
		rm -f "$M".*
		sleep 0.05 # a change in the clock tick of the launch counts as the run's
		if [ $pol = host ]; then
			as_host "$make"
		else
			sbx $pol -- /bin/sh -c "$make"
			ran "make nested repositories ($pol)" || continue
			[ "$OUT" = made ] || prob "$pol: the sandbox could not make and change the repositories (they are moved aside after the run, not refused): '$OUT' $(head -2 "$T/sbx.err" | tr '\n' ' ')"
		fi
		host_git new status
		host_git old status
		host_git hook commit -q --allow-empty -m h
		if [ $pol = gitrepo ]; then
			for m in new old hook; do
				[ -e "$M.$m" ] && prob "the host's git ran what the sandbox set in the nested repository '$m'"
			done
			blocked "$R/new/.git" config || prob "new/.git/config was not moved aside: $(ls -a "$R/new/.git" | tr '\n' ' ')"
			blocked "$R/old/.git" config || prob "old/.git/config (changed during the run) was not moved aside"
			blocked "$R/hook/.git/hooks" pre-commit || prob "the planted hook was not moved aside"
			[ -e "$R/hook/.git/hooks/pre-commit.sample" ] || prob "git's sample hooks were moved too"
			grep -q "WARNING: the sandbox made or changed $R/new/.git/config, a git config that sets core.fsmonitor at line [0-9]* (git status runs the program it names); host-run moved it aside to $R/new/.git/config.heel-blocked." "$T/sbx.err" ||
				prob "no warning names new/.git/config and what runs it: $(grep WARNING "$T/sbx.err" | head -1)"
			grep -q "WARNING: the sandbox made or changed $R/hook/.git/hooks/pre-commit, a git hook" "$T/sbx.err" ||
				prob "no warning names the hook: $(grep WARNING "$T/sbx.err" | tr '\n' ' ')"
			# What is left works: git status in the repositories.
			host_git new status || prob "git status fails in new after its config was moved aside"
		else
			for m in new old hook; do
				[ -e "$M.$m" ] || prob "control ($pol): the host's git did not run what was set in '$m' (the test cannot fail)"
			done
		fi
	done
	# Positive: a plain clone of a local repository, an init and a commit
	# inside the writable place are left alone; so is a nested
	# repository's config the user set before the run.
	make_repo
	host_git . init -q old && host_git old config core.editor true
	sleep 0.05
	pos="cd $R && git clone -q $R clone && git init -q fresh && cd fresh && echo y >g && git add g && git -c user.name=t -c user.email=t@t commit -qm y && git -C $R/clone log -1 --format=%s && echo ok"
	sbx gitrepo -- /bin/sh -c "$pos"
	if ran "clone and init (positive)"; then
		[ "$OUT" = "one
ok" ] || prob "positive: clone, init and commit inside the sandbox failed: '$OUT' $(head -3 "$T/sbx.err" | tr '\n' ' ')"
		[ -z "$(find "$R" -name '*.heel-blocked.*' 2>/dev/null)" ] || prob "positive: moved aside: $(find "$R" -name '*.heel-blocked.*' | tr '\n' ' ')"
		grep -q WARNING "$T/sbx.err" && prob "positive: a warning: $(grep WARNING "$T/sbx.err" | head -1)"
		[ "$(RG -C clone config --get remote.origin.url 2>/dev/null)" = "$R" ] || prob "positive: the clone's config is not in place"
		[ "$(RG -C fresh log -1 --format=%s 2>/dev/null)" = y ] || prob "positive: the new repository's commit is not there"
		[ "$(RG -C old config --get core.editor 2>/dev/null)" = true ] || prob "positive: the user's own nested config was touched"
	fi
	finish
}

case_98() { # git's other repositories: bare ones, a submodule's git directory inside the top .git, its .git file.
	begin 98-host-run-bare-and-submodule
	local M=$D/marker98 make pol m
	R=$D/repo
	# A bare repository whose remote runs a command at the host's git
	# fetch (remote.origin.uploadpack, run on this machine for a local
	# remote); another whose post-receive hook the host's git push runs;
	# a submodule-like git directory under the top repository's .git
	# (whose .git/config is a read-only mount) with core.fsmonitor, and
	# the .git file that points m at it.
	make="cd $R && git init -q --bare bare.git && git -C bare.git remote add origin $R && git -C bare.git config remote.origin.uploadpack 'touch $M.bare; git-upload-pack' && git init -q --bare push.git && printf '#!/bin/sh\\ntouch $M.push\\n' >push.git/hooks/post-receive && chmod 755 push.git/hooks/post-receive && mkdir -p $R/.git/modules && git init -q --separate-git-dir=$R/.git/modules/m $R/m && cd $R/m && echo x >f && git add f && git -c user.name=t -c user.email=t@t commit -qm x && git config core.fsmonitor 'touch $M.sub' && echo made"
	for pol in host gitrepo-off gitrepo; do
		make_repo; rm -f "$M".*
		if [ $pol = host ]; then
			as_host "$make"
		else
			sbx $pol -- /bin/sh -c "$make"
			ran "make bare repositories and a submodule ($pol)" || continue
			[ "$OUT" = made ] || prob "$pol: the sandbox could not make them: '$OUT' $(head -2 "$T/sbx.err" | tr '\n' ' ')"
		fi
		host_git bare.git fetch -q origin
		host_git . push -q "$R/push.git" HEAD:refs/heads/x
		host_git m status
		if [ $pol = gitrepo ]; then
			for m in bare push sub; do
				[ -e "$M.$m" ] && prob "the host's git ran what the sandbox set in '$m'"
			done
			blocked "$R/bare.git" config || prob "bare.git/config was not moved aside"
			blocked "$R/push.git/hooks" post-receive || prob "the bare repository's hook was not moved aside"
			blocked "$R/.git/modules/m" config || prob ".git/modules/m/config was not moved aside"
			blocked "$R/m" .git || prob "the .git file the sandbox made in m was not moved aside"
			grep -q "WARNING: the sandbox made or changed $R/m/.git, a .git file that points git at another directory" "$T/sbx.err" ||
				prob "no warning names m/.git: $(grep WARNING "$T/sbx.err" | tr '\n' ' ')"
			grep -q "bare.git/config, a git config that sets remote.origin.uploadpack" "$T/sbx.err" ||
				prob "no warning names remote.origin.uploadpack"
		else
			for m in bare push sub; do
				[ -e "$M.$m" ] || prob "control ($pol): the host's git did not run what was set in '$m' (the test cannot fail)"
			done
		fi
	done
	finish
}

case_99() { # Python's user site directory and the PATH directories in a writable home.
	begin 99-host-run-python-and-path
	local M=$D/marker99 pyv site plant pol state m
	pyv=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null) || { skipr "no python3"; finish; return; }
	site=$H/.local/lib/$pyv/site-packages
	# What a sandbox plants: a .pth file's import line, usercustomize.py
	# and sitecustomize.py (the site module runs them at every start),
	# and an `ls` in ~/.local/bin and ~/bin (first on PATH for the
	# user's next shell). Each step on its own: what exists at launch
	# is a read-only mount, and the rest goes on.
	cat >"$T/bin/plant99" <<-EOF
	#!/bin/sh
	mkdir -p "$site" "$H/.local/bin" "$H/bin"
	echo 'import os; os.close(os.open("$M.pth", os.O_CREAT | os.O_WRONLY))' >"$site/evil.pth" && echo pth
	echo 'open("$M.usercustomize", "w")' >"$site/usercustomize.py" && echo usercustomize
	echo 'open("$M.sitecustomize", "w")' >"$site/sitecustomize.py" && echo sitecustomize
	printf '#!/bin/sh\ntouch $M.localbin\n' >"$H/.local/bin/ls" && chmod 755 "$H/.local/bin/ls" && echo localbin
	printf '#!/bin/sh\ntouch $M.bin\n' >"$H/bin/ls" && chmod 755 "$H/bin/ls" && echo bin
	true
	EOF
	chmod 755 "$T/bin/plant99"
	# The host's next Python start and next shell with ~/.profile's PATH.
	host_effects() {
		"${PRE[@]}" env -i $(ENVV) python3 -c pass </dev/null >/dev/null 2>&1
		"${PRE[@]}" env -i $(ENVV) PATH="$H/.local/bin:/usr/bin:/bin" sh -c 'ls' </dev/null >/dev/null 2>&1
		"${PRE[@]}" env -i $(ENVV) PATH="$H/bin:/usr/bin:/bin" sh -c 'ls' </dev/null >/dev/null 2>&1
	}
	reset_home() {
		rm -rf "$H/.local" "$H/bin" "$H"/bin.heel-blocked.* "$M".*
		if [ "$1" = existing ]; then
			mkdir -p "$site" "$H/.local/bin" "$H/bin"
			[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$H/.local" "$H/bin"
		fi
	}
	# Control: planted by the host itself, each runs.
	reset_home missing
	"${PRE[@]}" env -i $(ENVV) "$T/bin/plant99" >/dev/null 2>&1
	host_effects
	local works=""
	for m in pth usercustomize sitecustomize localbin bin; do
		[ -e "$M.$m" ] && works="$works $m"
	done
	# Debian's python has a sitecustomize.py of its own, ahead of the
	# user's on sys.path: that one cannot be shown to run here.
	for m in pth usercustomize localbin bin; do
		[[ " $works " == *" $m "* ]] || prob "control: the host did not run the $m it planted itself (the test cannot fail)"
	done
	for state in missing existing; do
		for pol in homerun-off homerun; do
			reset_home $state
			sbx $pol -- "$T/bin/plant99"
			ran "plant ($pol, $state at launch)" || continue
			host_effects
			for m in $works; do
				if [ $pol = homerun-off ]; then
					[ -e "$M.$m" ] || prob "control ($pol, $state): the host did not run the $m the sandbox planted"
				else
					[ -e "$M.$m" ] && prob "the host ran the $m the sandbox planted ($state at launch)"
				fi
			done
			[ $pol = homerun ] || continue
			if [ $state = existing ]; then
				[ -z "$OUT" ] || prob "the sandbox wrote into the read-only ~/.local/lib, ~/.local/bin or ~/bin: $(echo $OUT)"
			else
				[ "$(echo $OUT)" = "pth usercustomize sitecustomize localbin bin" ] ||
					prob "the sandbox could not make them (they are moved aside after the run, not refused): $(echo $OUT)"
				blocked "$H/.local" lib || prob "~/.local/lib was not moved aside: $(ls -a "$H/.local" | tr '\n' ' ')"
				blocked "$H/.local" bin || prob "~/.local/bin was not moved aside"
				blocked "$H" bin || prob "~/bin was not moved aside"
				grep -q "WARNING: the sandbox made $H/.local/lib, which host-run keeps read-only (Python runs the .pth files" "$T/sbx.err" ||
					prob "no warning names ~/.local/lib and what runs it: $(grep WARNING "$T/sbx.err" | tr '\n' ' ')"
			fi
		done
	done
	# Positive: the rest of the home stays writable, Python runs inside,
	# and under an rwx grant of the home what ~/.local/bin holds still runs
	# (a read-only mount takes writing away, not running).
	reset_home existing
	cp /bin/true "$H/.local/bin/tool"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$H/.local/bin/tool"
	sbx homerun -- /bin/sh -c "echo kept >$H/notes99 && python3 -c 'print(\"py\")' && echo ok"
	if ran "write in the home, run python (positive)"; then
		[ "$OUT" = "py
ok" ] || prob "positive: '$OUT' $(head -2 "$T/sbx.err" | tr '\n' ' ')"
		[ "$(content "$H/notes99")" = kept ] || prob "positive: a file written in the home is not kept"
	fi
	sbx_ok "run a program in ~/.local/bin under an rwx grant of the home" homerunx exec "$H/.local/bin/tool"
	sbx_denied "write into ~/.local/bin under an rwx grant" "$ERRNO" homerunx create "$H/.local/bin/new"
	rm -f "$H/notes99"
	reset_home missing
	finish
}

case_85() { # Denies inside the kept working directory.
	begin 85-deny-in-kept-workdir
	mkdir -p "$W/.git/hooks"
	echo orig >"$W/.git/config"; echo orig >"$W/.git/hooks/pre-commit"; echo n >"$W/.git/HEAD"
	[ "$U" != root ] && chown -R $NOBODY:$NOBODY "$W/.git"
	ctl_ok "write .git/config outside" open-write "$W/.git/HEAD"
	sbx_denied "write .git/config" "$ERRNO" wddeny open-write "$W/.git/config"
	sbx_denied "write a hook" "$ERRNO" wddeny open-write "$W/.git/hooks/pre-commit"
	sbx_denied "rename .git aside" "$ERRNO" wddeny rename "$W/.git" "$W/git-old"
	[ "$(content "$W/.git/config")" = orig ] || prob ".git/config changed: $(content "$W/.git/config")"
	[ "$(content "$W/.git/hooks/pre-commit")" = orig ] || prob "the hook changed"
	sbx_ok "write .git/HEAD beside them" wddeny open-write "$W/.git/HEAD"
	# Missing: refused, and nothing is created.
	rm -rf "$W/.ssh"
	sbx wddenymissing -- "$TRY" mkdir "$W/.ssh"
	[ "$RC" = 125 ] || prob "a missing deny inside the working directory: exit $RC (${OUT}), expected a refusal"
	grep -q 'does not exist' "$T/sbx.err" || prob "the refusal does not say why: $(head -1 "$T/sbx.err")"
	[ -e "$W/.ssh" ] && prob "$W/.ssh was created"
	sbx wddenymissing --best-effort -- "$TRY" mkdir "$W/.ssh"
	ran "--best-effort" && { [ "$OUT" = OK ] && prob "with --best-effort the denied .ssh was created"; }
	grep -q 'weakened: .*\.ssh' "$T/sbx.err" || prob "--best-effort does not name the weakening: $(head -2 "$T/sbx.err" | tr '\n' ' ')"
	finish
}

case_86() { # Raising the I/O priority back from idle.
	begin 86-ioprio-raise
	ctl ionice -c3 /bin/sh -c 'ionice -c2 -n0 -p $$ && ionice -p $$'
	[ "$OUT" = "best-effort: prio 0" ] || prob "control: from idle back to best-effort 0 outside gave '$OUT' (rc $RC)"
	sbx ioidle -- /bin/sh -c 'ionice -c2 -n0 -p $$; ionice -p $$'
	if ran "raise to best-effort 0"; then
		[ "$OUT" = idle ] || prob "the sandbox's I/O class after the attempt: '$OUT', expected idle"
	fi
	sbx ioidle -- /bin/sh -c 'ionice -c3 -p $$ && echo OK'
	ran "stay idle (positive)" && { [ "$OUT" = OK ] || prob "positive: setting idle again failed: '$OUT'"; }
	finish
}

# ------------------------------------------------------ tree-wide limits
# `limit processes|memory|cpu` hold for the whole process tree through a
# cgroup; where none can be made (uid 65534 with nothing delegated) the
# launch refuses unless the weakening is accepted, and then says so.

# cg_here POLICY: whether heel-exec check, as $U, can make a cgroup.
cg_here() {
	"${PRE[@]}" env -i $(ENVV) "$HX" check "$T/pol/$1.hpol" 2>/dev/null | grep -q '^cgroup: v'
}

# no_cgroup POLICY TRY-ARGS...: refused (125, naming why) without the
# acceptance; with --accept per-process-limits it runs, printing the
# weakening by name, and the action completes.
no_cgroup() {
	local pol=$1
	shift
	rm -f "$W/marker"
	sbx "$pol" -- "$TRY" create "$W/marker"
	[ "$RC" = 125 ] || prob "without a cgroup and unaccepted: exit $RC, expected 125"
	[ -e "$W/marker" ] && prob "without a cgroup and unaccepted: the command ran"
	grep -q 'per process only here: no cgroup could be made' "$T/sbx.err" ||
		prob "the refusal does not say why: $(head -1 "$T/sbx.err")"
	sbx "$pol" --accept per-process-limits -- "$TRY" "$@"
	ran "--accept per-process-limits" || return
	[ "$OUT" = OK ] || [[ $OUT == FORKED=* ]] || prob "accepted weakening: the action gave '$OUT' (rc $RC)"
	grep -q '^heel-exec: weakened: limit .* per process only' "$T/sbx.err" ||
		prob "the accepted weakening is not printed: $(head -1 "$T/sbx.err")"
}

case_90() { # A fork bomb under `limit processes 20`, which RLIMIT_NPROC spares root.
	begin 90-limit-processes-tree
	local n
	ctl "$TRY" forkn 60
	[ "$OUT" = FORKED=60 ] || prob "control: 60 forks outside gave '$OUT'"
	if cg_here limits-procs; then
		sbx limits-procs -- "$TRY" forkn 60
		if ran "fork bomb"; then
			n=${OUT#FORKED=}
			if [[ $OUT != FORKED=* ]] || [ "$n" -gt 20 ] || [ "$n" -lt 1 ]; then
				prob "under limit processes 20: '$OUT' (rc $RC)"
			else
				echo "# 90 [$U]: $n of 60 forks under limit processes 20"
			fi
		fi
		sbx limits-high -- "$TRY" forkn 60
		ran "control under limit processes 200" && { [ "$OUT" = FORKED=60 ] || prob "control under limit processes 200: '$OUT'"; }
	else
		no_cgroup limits-procs forkn 5
	fi
	finish
}

case_91() { # Five busy children under `limit cpu 2s`: the total, not each one's.
	begin 91-limit-cpu-tree
	local used
	ctl "$TRY" burn-children 5 0.25
	[ "$OUT" = OK ] || prob "control: burning outside gave '$OUT'"
	if cg_here limits-cpu; then
		# 1.25 s in all: under the limit, the watch must not kill.
		sbx limits-cpu -- "$TRY" burn-children 5 0.25
		ran "control under the limit" && { [ "$OUT" = OK ] || prob "1.25 s of CPU under limit cpu 2s: '$OUT' (rc $RC)"; }
		# 1.5 s each is below RLIMIT_CPU; 7.5 s in all is not.
		sbx limits-cpu -- "$TRY" burn-children 5 1.5
		if ran "busy children"; then
			[ "$RC" = 152 ] || prob "busy children: exit $RC, expected 152 (128+SIGXCPU)"
			[ "$OUT" = OK ] && prob "busy children: all completed under limit cpu 2s"
			used=$(sed -n 's/.*the process tree used \([0-9.]*\) s of CPU.*/\1/p' "$T/sbx.err")
			if [ -z "$used" ]; then
				prob "no message says the CPU total was spent: $(head -1 "$T/sbx.err")"
			elif ! awk -v u="$used" 'BEGIN { exit !(u >= 2 && u < 2.5) }'; then
				prob "killed at $used s of CPU, expected about 2"
			else
				echo "# 91 [$U]: killed at $used s of CPU under limit cpu 2s"
			fi
		fi
	else
		no_cgroup limits-cpu burn-children 2 0.1
	fi
	finish
}

case_92() { # Four children of 100 MiB each under `limit memory 256MiB` (RLIMIT_AS is per process).
	begin 92-limit-memory-tree
	ctl "$TRY" alloc-children 4 100
	[ "$OUT" = OK ] || prob "control: allocating outside gave '$OUT'"
	if cg_here limits-memory; then
		sbx limits-memory -- "$TRY" alloc-children 4 100
		if ran "four times 100 MiB"; then
			if [ "$OUT" = OK ]; then
				prob "4 x 100 MiB all completed under limit memory 256MiB"
			else
				echo "# 92 [$U]: under limit memory 256MiB: ${OUT:-try itself killed} (rc $RC)"
			fi
		fi
		sbx limits-high -- "$TRY" alloc-children 4 100
		ran "control under limit memory 1GiB" && { [ "$OUT" = OK ] || prob "control under limit memory 1GiB: '$OUT' (rc $RC)"; }
	else
		no_cgroup limits-memory alloc-children 2 10
	fi
	finish
}

# ------------------------------------------------------ table-driven cases
# NAME | OP [ARGS] | WHO (both: the control works for any user; root:
# only root can do it outside) | EXPECT in the sandbox | POLICY | POSITIVE OP
TABLE='
28-io-uring-setup|io-uring-setup|both|EPERM|base|getpid
28-io-uring-enter|io-uring-enter|both|EPERM|base|getpid
29-socket-unix|socket-unix|both|EPERM|base|socketpair-stream
29-socket-unix-dgram|socket-unix-dgram|both|EPERM|base|socketpair-stream
29-socketpair-dgram|socketpair-dgram|both|EPERM|base|socketpair-stream
33-socket-highbits|socket-highbits|both|EPERM|base|socketpair-stream
34-x32-syscall|x32-syscall|both|SIGSYS|base|getpid
34-i386-int80|int80-syscall|both|SIGSYS|base|getpid
37-socket-vsock|socket-vsock|both|EPERM|base|socketpair-stream
40-socket-netlink-route|socket-netlink|both|EPERM|base|socketpair-stream
40-socket-netlink-diag|socket-netlink-diag|both|EPERM|base|socketpair-stream
55-socket-udp|socket-udp|both|EPERM|base|socketpair-stream
55-socket-udp6|socket-udp6|both|EPERM|base|socketpair-stream
55-socket-icmp-raw|socket-raw|root|EPERM|base|socketpair-stream
55-socket-packet|socket-packet|root|EPERM|base|socketpair-stream
56-socket-mptcp|socket-mptcp|both|EPERM|base|socketpair-stream
deny-bpf|bpf|root|EPERM|base|getpid
deny-perf-event-open|perf-event-open|both|EPERM|base|getpid
deny-userfaultfd|userfaultfd|both|EPERM|base|getpid
deny-keyctl|keyctl|both|EPERM|base|getpid
deny-add-key|add-key|both|EPERM|base|getpid
deny-mount|mount MNT|both|EPERM|base|getpid
deny-fsopen|fsopen|both|EPERM|base|getpid
deny-open-tree|open-tree|both|EPERM|base|getpid
deny-unshare-user|unshare-user|both|EPERM|base|clone-plain
deny-unshare-net|unshare-net|both|EPERM|base|clone-plain
deny-unshare-mount|unshare-mount|both|EPERM|base|clone-plain
deny-setns|setns|both|EPERM|base|clone-plain
deny-clone-newuser|clone-newuser|both|EPERM|base|clone-plain
deny-clone-newuser-highbits|clone-newuser-highbits|both|EPERM|base|clone-plain
deny-clone3|clone3|both|ENOSYS|base|clone-plain
deny-chroot|chroot|both|EPERM|base|getpid
deny-pivot-root|pivot-root|both|EPERM|base|getpid
deny-kexec|kexec|root|EPERM|base|getpid
deny-init-module|init-module|root|EPERM|base|getpid
deny-finit-module|finit-module|root|EPERM|base|getpid
deny-delete-module|delete-module|root|EPERM|base|getpid
deny-reboot|reboot|root|EPERM|base|getpid
deny-swapon|swapon|root|EPERM|base|getpid
deny-swapoff|swapoff|root|EPERM|base|getpid
deny-acct|acct|root|EPERM|base|getpid
deny-quotactl|quotactl|both|EPERM|base|getpid
deny-settimeofday|settimeofday|root|EPERM|base|getpid
deny-adjtimex|adjtimex|both|EPERM|base|getpid
deny-personality|personality|both|EPERM|base|personality-query
'

table_case() {
	local name=$1 op=$2 who=$3 want=$4 pol=$5 pos=$6 args
	begin "$name"
	args=${op//MNT/$D/mnt}
	ctl "$TRY" $args
	local no_ia32=
	if [ "$OUT" != OK ]; then
		if [ "$op" = int80-syscall ] && [ "$RC" = $((128 + 11)) ] && [ -z "$OUT" ]; then
			# ia32_emulation=off: int $0x80 faults (SIGSEGV) before any
			# system call, outside and inside alike.
			no_ia32=1
			skipr "this kernel has no i386 entry point (int \$0x80 faults: ia32 emulation off)"
		elif [ "$op" = x32-syscall ] && [ "$OUT" = ENOSYS ]; then
			# No x32 ABI in this kernel: the call still returns outside,
			# and heel's filter must kill it before the kernel looks.
			:
		elif [[ $OUT =~ ^(ENOSYS|EAFNOSUPPORT|EPROTONOSUPPORT|EOPNOTSUPP|ENODEV)$ ]]; then
			skipr "this kernel lacks it (control: $OUT)"
		elif [ "$who" = root ] && [ "$U" != root ]; then
			skipr "uid $NOBODY is refused outside the sandbox too ($OUT: needs a capability)"
		else
			prob "control outside the sandbox gave '${OUT:-nothing}' (rc $RC)"
		fi
	fi
	sbx "$pol" -- "$TRY" $args
	if ran "$op"; then
		if [ -n "$no_ia32" ]; then
			[ "$RC" = $((128 + 11)) ] && [ -z "$OUT" ] ||
				prob "no i386 entry: expected the same fault as outside, got exit $RC and '$OUT'"
		elif [ "$want" = SIGSYS ]; then
			[ "$RC" = $((128 + 31)) ] && [ -z "$OUT" ] ||
				prob "expected death by SIGSYS (exit 159), got exit $RC and '$OUT'"
		elif [ "$OUT" != "$want" ]; then
			prob "sandbox answered '${OUT:-nothing}' (rc $RC), expected $want"
		elif [ -n "$SKIPR" ]; then
			SKIPR="$SKIPR; the sandbox answers $OUT"
		fi
	fi
	sbx_ok "$pos" "$pol" $pos
	finish
}

# ------------------------------------------------- host commands (93-96)
MARK() { echo "$T/marks/ran.$([ "$U" = root ] && echo 0 || echo $NOBODY)"; }

# The positive control of every host command case: a well-formed call of
# the declared command runs the host program.
ipc_positive() {
	rm -f "$(MARK)"
	sbx ipc -- "$TRY" ipc-raw good mark
	ran "a declared command" || return 1
	[ "$OUT" = OK ] || prob "positive control: a well-formed call of a declared command gave '$OUT'"
	[ -e "$(MARK)" ] || prob "positive control: the host program left no mark"
	rm -f "$(MARK)"
}

case_93() { # The host commands' directory: nothing in it can be written, replaced or removed.
	local act
	begin 93-ipc-commands-dir
	for act in 'create $d/x' 'unlink $d/mark' 'open-write $d/.heel-ipc' 'chmod $d 777' \
		'symlink /bin/sh $d/new' 'rename $d/mark $d/moved'; do
		sbx ipc -- sh -c "d=\$(dirname \"\$(command -v mark)\"); exec $TRY $act"
		ran "$act" || break
		[ "$OUT" != OK ] || prob "'$act' in the commands' directory: OK"
	done
	sbx ipc -- sh -c 'd=$(dirname "$(command -v mark)"); ls -A "$d" | tr "\n" " "'
	[ "$OUT" = ".heel-ipc mark " ] || prob "the directory holds '$OUT'"
	sbx ipc -- "$TRY" create "$W/x"
	[ "$OUT" = OK ] || prob "positive control: writing the working directory gave '$OUT'"
	ipc_positive
	finish
}

case_94() { # The broker runs only what the policy declares, whatever name a caller sends.
	local name
	begin 94-ipc-undeclared
	for name in other /bin/sh ../../bin/sh "$T/bin/mark" "mark/../mark" ""; do
		rm -f "$(MARK)"
		sbx ipc -- "$TRY" ipc-raw name "$name"
		ran "name '$name'" || break
		[ "$OUT" = REFUSED ] || prob "name '$name': '$OUT'"
		[ ! -e "$(MARK)" ] || prob "name '$name': the host program ran"
	done
	ipc_positive
	finish
}

case_95() { # Malformed, oversized and descriptor-carrying messages are refused; nothing runs.
	local mode
	begin 95-ipc-malformed
	for mode in garbage oversized toolong badtype "fds mark"; do
		rm -f "$(MARK)"
		sbx ipc -- "$TRY" ipc-raw $mode
		ran "$mode" || break
		case $OUT in REFUSED | CLOSED) ;; *) prob "$mode: '$OUT'" ;; esac
		[ ! -e "$(MARK)" ] || prob "$mode: the host program ran"
	done
	ipc_positive
	finish
}

case_96() { # A sandbox inside one with host commands, whose policy has none, cannot reach the outer broker.
	begin 96-ipc-nested
	rm -f "$(MARK)"
	"${PRE[@]}" mkdir -p "$W/inner"
	sbx ipc -- env CONF_BIN="$T/bin" CONF_DATA="$D" \
		"$T/hx/heel-exec" --best-effort --no-namespaces --workdir "$W/inner" \
		"$T/pol/base.hpol" -- "$TRY" ipc-raw good mark
	if ran "the outer sandbox"; then
		case $OUT in
		OK | REFUSED | CLOSED | EXITED-NONZERO)
			prob "the inner sandbox reached the outer broker: '$OUT'" ;;
		EBADF) ;;
		*) skipr "no heel-exec inside the sandbox here: ${ERR:-rc $RC}" ;;
		esac
		[ ! -e "$(MARK)" ] || prob "the host program ran for the inner sandbox"
	fi
	ipc_positive
	finish
}

# ------------------------------------------------- facilities (100-105)
# The sandbox's own loopback, /dev/shm and standard descriptors: each
# works inside (the positive control), and the host's stays out of reach.

# net_modes: the policies of every network mode this run can start
# (deny always; allow-list and allow-all need heel-proxy beside heel-exec).
net_modes() {
	echo base
	[ -x "$T/hx/heel-proxy" ] && echo netlist netall
}

# serve_bg FILE KIND PORT VAR: a host listener, as root, outside any
# sandbox: starts serve in the background, its pid
# kept for the cleanup, and sets VAR to the port it listens on ("" when
# it did not start). Not in a $(...): the pid would be kept in a subshell
# and the server outlive the suite.
serve_bg() {
	rm -f "$1"
	"$HD/serve" "$2" "$3" >"$1" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 60); do grep -qs READY "$1" && break; sleep 0.05; done
	printf -v "$4" '%s' "$(sed -n 's/^READY //p' "$1")"
}

# ipv6_lo: whether this kernel gives loopback an IPv6 address (::1).
ipv6_lo() {
	ctl "$TRY" loopback-self ::1
	[ "$OUT" = OK ]
}

case_100() { # The sandbox's own loopback: a TCP server inside is reached from inside, under every network mode.
	begin 100-loopback-own
	local pol v6=
	ctl_ok "a TCP server and its client on 127.0.0.1" loopback-self 127.0.0.1
	ipv6_lo && v6=1
	[ -x "$T/hx/heel-proxy" ] || skipr "no heel-proxy beside heel-exec: network deny only"
	for pol in $(net_modes); do
		sbx_ok "a TCP server and its client on 127.0.0.1 ($pol)" "$pol" loopback-self 127.0.0.1
		[ -n "$v6" ] && sbx_ok "a TCP server and its client on ::1 ($pol)" "$pol" loopback-self ::1
		# UDP stays refused, loopback or not (seccomp, every mode).
		sbx_denied "UDP to the own loopback ($pol)" EPERM "$pol" send-udp 127.0.0.1 9
	done
	finish
}

case_101() { # The host's loopback stays out of reach from inside, under every network mode.
	begin 101-loopback-host-unreachable
	local pol p4 p6= n
	serve_bg "$T/serve101" tcp 0 p4
	[ -n "$p4" ] || { prob "the host listener did not start: $(cat "$T/serve101")"; finish; return; }
	ipv6_lo && serve_bg "$T/serve101-6" tcp6 0 p6
	ctl_ok "TCP connect to the host's 127.0.0.1:$p4" connect-tcp 127.0.0.1 "$p4"
	[ -n "$p6" ] && ctl_ok "TCP connect to the host's [::1]:$p6" connect-tcp ::1 "$p6"
	sleep 0.1
	n=$(grep -c ACCEPT "$T/serve101")
	[ "$n" = 1 ] || prob "control: the host listener counted $n connections, expected 1"
	for pol in $(net_modes); do
		sbx_denied "connect to the host's 127.0.0.1:$p4 ($pol)" ECONNREFUSED "$pol" connect-tcp 127.0.0.1 "$p4"
		[ -n "$p6" ] && sbx_denied "connect to the host's [::1]:$p6 ($pol)" ECONNREFUSED "$pol" connect-tcp ::1 "$p6"
		# The port the host holds is free on the sandbox's own loopback.
		sbx_ok "bind 127.0.0.1:$p4 on the own loopback ($pol)" "$pol" bind-tcp 127.0.0.1 "$p4"
	done
	sleep 0.1
	n=$(grep -c ACCEPT "$T/serve101")
	[ "$n" = 1 ] || prob "the host's 127.0.0.1 listener was reached from a sandbox ($n connections)"
	[ -n "$p6" ] && { n=$(grep -c ACCEPT "$T/serve101-6"); [ "$n" = 1 ] ||
		prob "the host's ::1 listener was reached from a sandbox ($n connections)"; }
	kill "${BG_PIDS[@]: -2}" 2>/dev/null
	finish
}

case_102() { # Another sandbox's loopback server stays out of reach, from a sandbox and from the host.
	begin 102-loopback-other-sandbox
	local a=$T/a102 s=$W/serve102 port= pol n i
	rm -f "$a" "$s"
	# Sandbox A: a server on its own loopback, one connection to it from
	# inside (its positive control), then it stays a while.
	("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- /bin/sh -c \
		"$T/bin/serve tcp 0 >$s 2>&1 & i=0; while ! grep -q READY $s && [ \$i -lt 300 ]; do sleep 0.05; i=\$((i+1)); done
		 $TRY connect-tcp 127.0.0.1 \$(sed -n 's/^READY //p' $s); sleep 4" >"$a" 2>&1 &)
	# (generous: a loaded machine, a kernel guest beside, starts slowly)
	for i in $(seq 400); do grep -qs '^\(OK\|E[A-Z]*\)$' "$a" && break; sleep 0.05; done
	port=$(sed -n 's/^READY //p' "$s" 2>/dev/null)
	[ "$(cat "$a" 2>/dev/null)" = OK ] || prob "positive: sandbox A could not reach its own server: $(cat "$a" "$s" 2>&1 | tr '\n' ' ')"
	if [ -z "$port" ]; then
		prob "sandbox A's server did not start: $(cat "$a" "$s" 2>&1 | tr '\n' ' ')"
	else
		for pol in $(net_modes); do
			sbx_denied "sandbox B ($pol) connects to A's 127.0.0.1:$port" ECONNREFUSED "$pol" connect-tcp 127.0.0.1 "$port"
		done
		ctl "$TRY" connect-tcp 127.0.0.1 "$port"
		[ "$OUT" = OK ] && prob "the host reached sandbox A's server on 127.0.0.1:$port"
		n=$(grep -c ACCEPT "$s")
		[ "$n" = 1 ] || prob "sandbox A's server counted $n connections, expected its own 1"
	fi
	pkill -KILL -f "heel-exec --workdir $W $T/pol/base.hpol -- /bin/sh -c $T/bin/serve" 2>/dev/null
	finish
}

case_103() { # Without namespaces loopback is the host's: the old refusals hold.
	begin 103-loopback-without-namespaces
	local port n
	serve_bg "$T/serve103" tcp 0 port
	[ -n "$port" ] || { prob "the host listener did not start"; finish; return; }
	ctl_ok "TCP connect to the host's 127.0.0.1:$port" connect-tcp 127.0.0.1 "$port"
	SBX_OPTS="--best-effort --no-namespaces"
	# network deny: heel-exec's own seccomp refusal of inet sockets.
	sbx_denied "socket(AF_INET, STREAM) (deny)" EPERM base socket-inet-tcp
	sbx_denied "socket(AF_INET6, STREAM) (deny)" EPERM base socket-inet6-tcp
	sbx_denied "connect to the host's 127.0.0.1:$port (deny)" EPERM base connect-tcp 127.0.0.1 "$port"
	grep -q 'no loopback of the sandbox.s own: inet sockets are refused' "$T/sbx.err" ||
		prob "the launch does not say there is no loopback of the sandbox's own: $(head -c 300 "$T/sbx.err")"
	sbx_ok "socketpair(AF_UNIX, STREAM) (deny)" base socketpair-stream
	# Through heel-proxy: Landlock's port rule, the proxy's port only.
	if [ ! -x "$T/hx/heel-proxy" ]; then
		skipr "no heel-proxy beside heel-exec: the allow-list half"
	elif [ "${LL_ABI:-0}" -lt 4 ]; then
		skipr "Landlock ABI ${LL_ABI:-0} has no TCP rules: the allow-list half"
	else
		sbx_denied "connect to the host's 127.0.0.1:$port (allow-list)" EACCES netlist connect-tcp 127.0.0.1 "$port"
		sbx_denied "bind 127.0.0.1 (allow-list)" EACCES netlist bind-tcp 127.0.0.1 0
	fi
	SBX_OPTS=""
	sleep 0.1
	n=$(grep -c ACCEPT "$T/serve103")
	[ "$n" = 1 ] || prob "the host listener counted $n connections, expected the control's 1"
	kill "${BG_PIDS[@]: -1}" 2>/dev/null
	finish
}

case_104() { # /dev/shm is the sandbox's own: the host's files out of sight, its own invisible to the host and to other sandboxes, never executable.
	begin 104-private-dev-shm
	local h=/dev/shm/heel-conf-104-$U-$$ mine=/dev/shm/heel-conf-104-new-$U-$$ a=$T/a104 pol i
	echo HOST >"$h"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$h"
	ctl_ok "read the host's $h" open-read "$h"
	for pol in base home; do
		sbx_denied "read the host's $h ($pol)" ENOENT "$pol" open-read "$h"
		sbx_ok "create a file in /dev/shm ($pol)" "$pol" create "$mine"
		[ -e "$mine" ] && { prob "the sandbox's $mine is on the host ($pol)"; rm -f "$mine"; }
	done
	[ "$(cat "$h")" = HOST ] || prob "the host's $h changed"
	# Nothing else under /dev: the rule is the tmpfs's alone.
	sbx_denied "create /dev/heel-conf-104" "EACCES|EROFS" base create /dev/heel-conf-104
	[ -e /dev/heel-conf-104 ] && { prob "/dev/heel-conf-104 was created"; rm -f /dev/heel-conf-104; }
	# Written there, never run (a noexec mount): the loader on a payload.
	sbx base -- /bin/sh -c "cat $T/bin/payload >/dev/shm/p && chmod 755 /dev/shm/p && $TRY ldso-exec /dev/shm/p"
	if ran "ld.so on a payload written into /dev/shm"; then
		[ -n "$OUT" ] && [ "$OUT" != OK ] || prob "a payload written into /dev/shm ran through the loader: '$OUT' ${ERR}"
	fi
	# Sandbox B does not see sandbox A's file.
	rm -f "$a"
	("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- /bin/sh -c \
		"echo A >/dev/shm/heel-conf-104-a && $TRY open-read /dev/shm/heel-conf-104-a; sleep 3" >"$a" 2>&1 &)
	for i in $(seq 60); do [ -s "$a" ] && break; sleep 0.05; done
	[ "$(cat "$a")" = OK ] || prob "positive: sandbox A could not read its own /dev/shm file: $(cat "$a")"
	sbx_denied "sandbox B reads sandbox A's /dev/shm file" ENOENT base open-read /dev/shm/heel-conf-104-a
	[ -e /dev/shm/heel-conf-104-a ] && { prob "sandbox A's /dev/shm file is on the host"; rm -f /dev/shm/heel-conf-104-a; }
	pkill -KILL -f "heel-exec --workdir $W $T/pol/base.hpol -- /bin/sh -c echo A >/dev/shm" 2>/dev/null
	# Bounded like a fresh working directory: the policy's memory limit.
	if cg_here limits-memory; then
		sbx limits-memory -- /bin/sh -c "grep ' /dev/shm ' /proc/self/mounts | tail -1"
	else
		sbx limits-memory --accept per-process-limits -- /bin/sh -c "grep ' /dev/shm ' /proc/self/mounts | tail -1"
	fi
	ran "/dev/shm's size" && { [[ $OUT == *rw,nosuid,nodev,noexec*size=262144k* ]] ||
		prob "the sandbox's /dev/shm is not a 256 MiB nosuid,nodev,noexec tmpfs: '$OUT'"; }
	rm -f "$h"
	finish
}

case_105() { # Reopening the inherited standard descriptors: as far as each descriptor goes, and nothing else.
	begin 105-reopen-stdio
	local f=$D/outside/log105 g=$D/outside/log105b v=$D/outside/victim
	: >"$f"; : >"$g"
	[ "$U" != root ] && chown $NOBODY:$NOBODY "$f" "$g"
	OUT=$("${PRE[@]}" env -i $(ENVV) "$TRY" open-write /dev/stderr 2>>"$f")
	if [ "$OUT" = ENOENT ] && ! [ -e /dev/stderr ]; then
		skipr "this machine has no /dev/stderr (udev makes it; a bare devtmpfs does not), so the sandbox, whose /dev is the host's, has none either"
		finish
		return
	fi
	[ "$OUT" = OK ] || prob "control: /dev/stderr reopened outside gave '$OUT'"
	: >"$f"
	# stderr a file outside every writable place, opened for appending.
	rx105() { OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" "$@" 2>>"$f" </dev/null); RC=$?; ERR=; }
	rx105 open-write /dev/stderr
	ran "/dev/stderr" && { [ "$OUT" = OK ] || prob "positive: /dev/stderr (a file outside) reopened: '$OUT'"; }
	grep -q PWNED "$f" || prob "positive: nothing reached $f through /dev/stderr"
	rx105 open-write /proc/self/fd/2
	ran "/proc/self/fd/2" && { [ "$OUT" = OK ] || prob "positive: /proc/self/fd/2 reopened: '$OUT'"; }
	rx105 open-read /dev/stderr
	ran "/dev/stderr for reading" && { [ "$OUT" = EACCES ] ||
		prob "a write-only descriptor reopened for reading: '$OUT', expected EACCES"; }
	rx105 open-write "$g"
	ran "another file outside" && { [[ $OUT =~ ^(EACCES|EROFS)$ ]] || prob "another file outside written: '$OUT'"; }
	[ -s "$g" ] && prob "$g was written"
	# The same file by its path: still not writable (a read-only mount).
	rx105 open-write "$f"
	ran "$f by its path" && { [[ $OUT =~ ^(EACCES|EROFS)$ ]] || prob "the stderr file written by its path: '$OUT'"; }
	rx105 truncate "$f"
	ran "truncate $f by its path" && { [[ $OUT =~ ^(EACCES|EROFS)$ ]] || prob "the stderr file truncated by its path: '$OUT'"; }
	[ -s "$f" ] || prob "$f was emptied"
	# stdin a file outside, opened read-only: reopened for reading only.
	OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" open-read /dev/stdin 2>"$T/sbx.err" <"$v"); RC=$?
	ran "/dev/stdin" && { [ "$OUT" = OK ] || prob "positive: /dev/stdin (a file outside) reopened: '$OUT'"; }
	OUT=$("${PRE[@]}" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" open-write /dev/stdin 2>"$T/sbx.err" <"$v"); RC=$?
	ran "/dev/stdin for writing" && { [ "$OUT" = EACCES ] || prob "a read-only descriptor reopened for writing: '$OUT'"; }
	[ "$(content "$v")" = orig ] || prob "$v changed: $(content "$v")"
	# stdout a pipe (made by $U: a pipe's inode is its maker's, mode 0600).
	OUT=$("${PRE[@]}" env -i $(ENVV) /bin/sh -c '"$1" --workdir "$2" "$3" -- "$4" open-write /dev/stdout | cat' \
		sh "$HX" "$W" "$T/pol/base.hpol" "$TRY" 2>"$T/sbx.err" </dev/null)
	[ "$OUT" = "$(printf 'PWNED\nOK')" ] || prob "positive: /dev/stdout (a pipe) reopened: '$(echo $OUT)'"
	# The terminal (made by $U, whose it then is): the controlling one,
	# which is also stdin.
	OUT=$("${PRE[@]}" "$T/bin/ptyrun" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" open-write /dev/tty 2>"$T/sbx.err")
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "/dev/tty" && { [ "$(echo "$OUT" | head -1)" = OK ] || prob "positive: /dev/tty (stdin is the terminal): '$(echo $OUT)'"; }
	OUT=$("${PRE[@]}" "$T/bin/ptyrun" env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" open-write /proc/self/fd/0 2>"$T/sbx.err")
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "/proc/self/fd/0 (the terminal)" && { [ "$(echo "$OUT" | head -1)" = OK ] || prob "positive: the terminal through /proc/self/fd/0: '$(echo $OUT)'"; }
	# The controlling terminal that no descriptor is: /dev/tty stays refused.
	OUT=$("${PRE[@]}" "$T/bin/ptyrun" -s env -i $(ENVV) "$TRY" open-write /dev/tty 2>/dev/null </dev/null)
	[ "$(echo "$OUT" | head -1)" = OK ] || prob "control: /dev/tty outside with no descriptor on it: '$(echo $OUT)'"
	OUT=$("${PRE[@]}" "$T/bin/ptyrun" -s env -i $(ENVV) "$HX" --workdir "$W" "$T/pol/base.hpol" -- "$TRY" open-write /dev/tty 2>"$T/sbx.err" </dev/null)
	RC=$? ERR=$(head -1 "$T/sbx.err")
	ran "/dev/tty (no descriptor on the terminal)" && { [ "$(echo "$OUT" | head -1)" = EACCES ] ||
		prob "/dev/tty opened though no descriptor is the terminal: '$(echo $OUT)'"; }
	echo "$OUT" | grep -q INJECTED && prob "bytes reached the terminal no descriptor names"
	finish
}

# ================================================================ main
CASES=(case_01 case_02 case_03 case_04 case_05 case_06 case_07 case_08 case_09
	case_10 case_11 case_12 case_13 case_15 case_15o case_16 case_18 case_19 case_20 case_21m case_21l case_23
	case_24 case_25 case_26 case_27 case_30 case_31 case_32 case_36 case_40 case_60
	case_70 case_71 case_72 case_73 case_74 case_75 case_76 case_77 case_78 case_79
	case_84 case_85 case_86 case_87 case_88 case_89
	case_90 case_91 case_92 case_93 case_94 case_95 case_96 case_97 case_98 case_99
	case_100 case_101 case_102 case_103 case_104 case_105)

# ---------------------------------------------- paths, working directory,
# environment (cases 81-83): what the launcher's environment may choose.

# c8_hx [NAME=VALUE...] -- HEEL-EXEC-ARGS...: heel-exec as $U with the
# suite's environment and these assignments on top (the later one wins).
# OUT (stdout), RC, ERR (the first stderr line).
c8_hx() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	OUT=$("${PRE[@]}" env -i $(ENVV) "${envs[@]}" "$HX" "$@" 2>"$T/sbx.err" </dev/null)
	RC=$?
	ERR=$(head -1 "$T/sbx.err")
}

case_81() { # HOME=/ made the default base's grant "${HOME}" r a grant of /.
	begin 81-home-is-a-system-dir
	local h
	ctl_ok "read a file outside the home" open-read "$D/outside/victim"
	for h in / // /usr/ /usr/../; do
		rm -f "$W/marker81"
		c8_hx HOME="$h" -- --workdir "$W" "$T/pol/home.hpol" -- "$TRY" create "$W/marker81"
		[ "$RC" = 125 ] || prob "HOME=$h: exit $RC, expected a refusal (125); the sandbox answered '${OUT:-nothing}'"
		[ -e "$W/marker81" ] && prob "HOME=$h: the command ran"
		[[ $ERR == *'grant "${HOME}"'*"HOME is \"$h\""*refusing ]] ||
			prob "HOME=$h: the message does not name HOME and its value: ${ERR:-none}"
	done
	c8_hx HOME=/ -- --workdir "$W" "$T/pol/home.hpol" -- "$TRY" getpid
	[[ $ERR == *'HOME is "/", a system directory; refusing' ]] || prob "HOME=/: message '$ERR'"
	c8_hx HOME=/ -- check "$T/pol/home.hpol"
	[ "$RC" = 125 ] || prob "heel-exec check with HOME=/: exit $RC, expected 125"
	echo "$OUT" | grep -q '^verdict: heel-exec would refuse to run: .*HOME is "/", a system directory; refusing$' ||
		prob "heel-exec check with HOME=/ does not report the refusal: $(echo "$OUT" | grep verdict)"
	echo "$OUT" | grep -q 'enforces the whole policy' && prob "heel-exec check with HOME=/ says it enforces the whole policy"
	sbx_ok "read a file in a real home" home open-read "$H/notes.txt"
	finish
}

case_82() { # A refused launch leaves nothing behind: not a kept working directory it made.
	begin 82-refused-launch-leaves-no-workdir
	local K=$D/new-wd/sub E=$D/existing-wd S=/usr/local/heel-conf-$$
	ctl mkdir -p "$D/ctl-wd/sub"
	[ -d "$D/ctl-wd/sub" ] || prob "control: mkdir -p as $U failed (rc $RC): test machinery broken"
	c8_hx -- --workdir "$K" "$T/pol/unsetvar.hpol" -- "$TRY" getpid
	[ "$RC" = 125 ] || prob "unset variable: exit $RC, expected 125"
	[ -e "$D/new-wd" ] && prob "unset variable: $D/new-wd was left behind"
	c8_hx HOME=/ -- --workdir "$K" "$T/pol/home.hpol" -- "$TRY" getpid
	[ "$RC" = 125 ] || prob "HOME=/: exit $RC, expected 125"
	[ -e "$D/new-wd" ] && prob "HOME=/: $D/new-wd was left behind"
	c8_hx -- --workdir "$K" "$T/pol/base.hpol" -- "$T/bin/no-such-command-$$"
	[ "$RC" = 127 ] || prob "a command that does not exist: exit $RC, expected 127"
	[ -e "$D/new-wd" ] && prob "the command never started, yet $D/new-wd was left behind"
	rm -rf "$D/new-wd"
	c8_hx -- --workdir "$S/x" "$T/pol/base.hpol" -- "$TRY" getpid
	[ "$RC" = 125 ] || prob "--workdir $S/x: exit $RC, expected 125"
	[[ $ERR == *"inside the system directory /usr"* ]] || prob "--workdir $S/x: message '$ERR'"
	[ -e "$S" ] && { prob "--workdir $S/x: $S was made"; rm -rf "$S"; }
	mkdir -p "$E"
	[ "$U" = root ] || chown $NOBODY:$NOBODY "$E"
	c8_hx -- --workdir "$E" "$T/pol/unsetvar.hpol" -- "$TRY" getpid
	[ "$RC" = 125 ] || prob "existing directory, unset variable: exit $RC, expected 125"
	[ -d "$E" ] || prob "a refused launch removed the existing directory $E"
	c8_hx -- --workdir "$K" "$T/pol/base.hpol" -- "$TRY" getpid
	[ "$OUT" = OK ] && [ -d "$K" ] || prob "positive: a launch that ran did not keep $K (rc $RC, '$OUT', $ERR)"
	finish
}

case_83() { # LC_* passed by prefix: LC_SECRET_TOKEN reached the command.
	begin 83-locale-prefix-secret
	local rtok rall
	rtok=$(echo "LC_SECRET_TOKEN=$SECRET" | rev)
	rall=$(echo "LC_ALL=C.UTF-8" | rev)
	ctl env LC_SECRET_TOKEN="$SECRET" "$TRY" read-environ self "$rtok"
	[ "$OUT" = OK ] || prob "control: the token is not in a plain environment: '$OUT'"
	c8_hx LC_SECRET_TOKEN="$SECRET" LC_ALL=C.UTF-8 -- --workdir "$W" "$T/pol/base.hpol" -- \
		"$TRY" read-environ self "$rtok"
	if ran "LC_SECRET_TOKEN"; then
		[ "$OUT" = NOMATCH ] || prob "LC_SECRET_TOKEN in the sandbox's environment: '$OUT'"
	fi
	c8_hx LC_SECRET_TOKEN="$SECRET" LC_ALL=C.UTF-8 -- --workdir "$W" "$T/pol/base.hpol" -- \
		"$TRY" read-environ self "$rall"
	ran "LC_ALL (positive)" && { [ "$OUT" = OK ] || prob "positive: LC_ALL did not reach the sandbox: '$OUT'"; }
	finish
}

CASES+=(case_81 case_82 case_83)

for user in root $NOBODY; do
	set_user $user
	make_tree
	# In a container whose /proc is masked (Docker's), a user namespace
	# may not mount a /proc of its own and heel-exec refuses every
	# launch of this user: case 78 checks that refusal; the rest cannot
	# run as this user here.
	noproc=
	if [ "$U" != root ] && "${PRE[@]}" env -i $(ENVV) "$HX" check "$T/pol/base.hpol" 2>/dev/null |
		grep -q '^private /proc: not available'; then
		noproc=1
		echo "SKIP every case but 78 [$U]: no /proc of the sandbox's own can be mounted by a user here (a masked /proc, as in containers); heel-exec refuses, as case 78 checks"
		nskip=$((nskip + 1))
	fi
	for c in "${CASES[@]}"; do
		# The selection glob matches the case's function name or number.
		selected "$c" || selected "${c#case_}" || continue
		[ -n "$noproc" ] && [ "$c" != case_78 ] && continue
		make_tree
		$c
	done
	[ -n "$noproc" ] && continue
	while IFS='|' read -r name op who want pol pos; do
		[ -n "$name" ] || continue
		selected "$name" || continue
		table_case "$name" "$op" "$who" "$want" "$pol" "$pos"
	done <<<"$TABLE"
done

echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]

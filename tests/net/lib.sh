# SPDX-License-Identifier: MIT
# The live network suite's bookkeeping, shared by run.sh and selftest.sh:
# a case collects problems (prob) and skip reasons, finish prints
#     PASS name [user] | FAIL name [user]: why | SKIP name [user]: why
# and the result lines clients.sh prints are read with want/want_not.

npass=0 nfail=0 nskip=0
U=root
PROB="" SKIPR="" CASE=""

# begin NAME: a new case (false when the case glob ONLY leaves it out);
# the logs' current lengths, so arrived and not_arrived look only at what
# came after.
begin() {
	[[ $1 == ${ONLY:-*} ]] || return 1
	PROB="" SKIPR="" CASE=$1 NOTE="" CASE_T0=$EPOCHREALTIME
	MK="$CASE-$U-$$"
	BASE_host=$(wc -l <"$TH_DIR/log/host.log")
	BASE_canary=$(wc -l <"$TH_DIR/log/canary.log")
	BASE_dns=$(th_dns_count)
	return 0
}
prob() { PROB="${PROB:+$PROB; }$*"; }
skipr() { SKIPR="${SKIPR:+$SKIPR; }$*"; }
finish() {
	local secs
	secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $CASE_T0}")
	NOTE="${NOTE:+$NOTE, }${secs}s"
	if [ -n "$PROB" ]; then
		echo "FAIL $CASE [$U]: $PROB (${secs}s)"
		nfail=$((nfail + 1))
	elif [ -n "$SKIPR" ]; then
		echo "SKIP $CASE [$U]: $SKIPR"
		nskip=$((nskip + 1))
	else
		echo "PASS $CASE [$U]${NOTE:+ ($NOTE)}"
		npass=$((npass + 1))
	fi
	NOTE=""
}

# OUT holds the clients' result lines of the last run; W its working
# directory (bodies, stderr files).
OUT=""
W=""
# res LABEL: LABEL's result line, without the label.
res() { sed -n "s/^$1 //p" <<<"$OUT" | head -1; }
# want LABEL FIELD=VALUE...: LABEL's line has each field with that value
# (a value may be an extended regex: rc=[1-9][0-9]*).
want() {
	local l=$1 line f
	shift
	line=$(res "$l")
	if [ -z "$line" ]; then
		prob "$l: no result line${RUNINFO:+ ($RUNINFO)}"
		return 1
	fi
	for f; do
		if ! [[ " $line " =~ \ ${f}\  ]]; then
			prob "$l: got '$line', want $f$(why "$l")"
			return 1
		fi
	done
	return 0
}
# want_not LABEL FIELD=VALUE: LABEL's line exists and lacks that value.
want_not() {
	local l=$1 line
	line=$(res "$l")
	if [ -z "$line" ]; then
		prob "$l: no result line${RUNINFO:+ ($RUNINFO)}"
		return 1
	fi
	if [[ " $line " =~ \ ${2}\  ]]; then
		prob "$l: got '$line', must not be $2$(why "$l")"
		return 1
	fi
	return 0
}
# why LABEL: the start of what the client said (stderr, else its body),
# for a failure message.
why() {
	local f
	for f in "$W/$1.err" "$W/$1.body" "$W/$1.head"; do
		if [ -s "$f" ]; then
			printf '; it said: %s' "$(head -c 400 "$f" | tr -s '[:space:]' ' ' | sed 's/<[^>]*>//g' | tr -s ' ' | cut -c1-120)"
			return
		fi
	done
}
body_has() { grep -qF -- "$2" "$W/$1.body" 2>/dev/null || { prob "$1: body lacks '$2'$(why "$1")"; return 1; }; }
err_has() { grep -qiE -- "$2" "$W/$1.err" 2>/dev/null || { prob "$1: stderr lacks /$2/$(why "$1")"; return 1; }; }

# since host|canary: the log's lines since the case began.
since() {
	local b=BASE_$1
	tail -n +$((${!b} + 1)) "$TH_DIR/log/$1.log"
}
# arrived host|canary TEXT / not_arrived host|canary TEXT: the test host
# (host) or the client namespace's canary (canary) logged a request,
# connection or DNS packet containing TEXT since the case began.
arrived() { since "$1" | grep -qF -- "$2" || { prob "$2 did not arrive at the $1"; return 1; }; }
not_arrived() {
	local line
	line=$(since "$1" | grep -F -- "$2" | head -1)
	[ -z "$line" ] && return 0
	prob "$2 ARRIVED at the $1: $line"
	return 1
}
# from TEXT ADDR: the test host's line containing TEXT came from ADDR.
from() {
	local peer
	peer=$(since host | grep -F -- "$1" | head -1 | cut -d' ' -f3)
	[ "$peer" = "$2" ] || prob "$1 came from '${peer:-nowhere}', expected $2"
}
# dns_new: DNS packets the test host received since the case began.
dns_new() { echo $(($(th_dns_count) - BASE_dns)); }

# totals: the closing line; exit status 1 on a failure.
totals() {
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
}

#!/usr/bin/env bash
# killloop.sh: kill -9 cordon at spread moments of its start-up, many times,
# and count what those runs left (issue 19 item 5).  Not part of make check:
# 500 kills take minutes; tests/integration/t_killstart.sh is the lean test.
#
#   scripts/killloop.sh [-n KILLS] [-m watch|mount] [-s MAX_MS] [-l BUSY]
#
# Each run is `cordon -w WS -C WS -- sleep 300` in a workspace of this batch
# with a registry of its own (XDG_STATE_HOME), killed after a random
# 0..MAX_MS ms (default 40: a start takes about 25 ms here).  -l BUSY starts
# BUSY busy loops for the batch (load raises the odds of the narrow windows).
# Every process of the batch carries KILLLOOP_MARK in its environment (bwrap,
# its children and the guardian inherit cordon's), so only this batch's
# processes are counted: other runs of cordon on the machine are not.
#
# 2 s after the last kill it prints the processes still alive (pid, comm,
# state, wchan), the records left in the batch's registry and the names left
# in its workspace; and for every guardian still alive, its CPU time and the
# bytes it wrote over one more second (/proc/PID/stat utime+stime,
# /proc/PID/io write_bytes and wchar).  Then it kills what is left.  Exit
# status: 0 when nothing was left, 1 otherwise.
set -u
CORDON=${CORDON:-$(dirname "$0")/../build/cordon}
KILLS=500
MODE=watch
MAX_MS=40
BUSY=0
while getopts "n:m:s:l:" o; do
	case $o in
	n) KILLS=$OPTARG ;;
	m) MODE=$OPTARG ;;
	s) MAX_MS=$OPTARG ;;
	l) BUSY=$OPTARG ;;
	*) echo "usage: $0 [-n KILLS] [-m watch|mount] [-s MAX_MS] [-l BUSY]" >&2; exit 2 ;;
	esac
done
BASE=$(mktemp -d /var/tmp/cordon-killloop.XXXXXX) || exit 2
chmod 755 "$BASE"
WS=$BASE/ws
STATE=$BASE/state
mkdir -p "$WS" "$STATE"
MARK="kl$$x$RANDOM"
TICK=$(getconf CLK_TCK)
busy=()
cleanup() {
	[ ${#busy[@]} -gt 0 ] && kill "${busy[@]}" 2>/dev/null
	rm -rf "$BASE"
}
trap cleanup EXIT
for _ in $(seq "$BUSY"); do
	(while :; do :; done) &
	busy+=($!)
done

# The pids of this batch's processes still alive.
batch_pids() {
	local f p
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}
		p=${p%/environ}
		[ "$p" = $$ ] && continue
		tr "\0" "\n" 2>/dev/null <"$f" | grep -qx "KILLLOOP_MARK=$MARK" && echo "$p"
	done
}

# utime+stime (ticks) and write_bytes, wchar of one process.
cpu_io() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	# shellcheck disable=SC2086
	set -- $st
	echo "$(( ${12} + ${13} )) $(awk '/^write_bytes/ {w=$2} /^wchar/ {c=$2} END {print w+0, c+0}' "/proc/$1/io" 2>/dev/null || echo "0 0")"
}

flags=()
[ "$MODE" = mount ] && flags=(--protect-missing mount)
failed=0
why=""
t0=$(date +%s.%N)
for i in $(seq "$KILLS"); do
	env KILLLOOP_MARK="$MARK" XDG_STATE_HOME="$STATE" "$CORDON" "${flags[@]}" -w "$WS" -C "$WS" \
		-- sleep 300 </dev/null >/dev/null 2>"$BASE/err" &
	p=$!
	sleep "$(printf '0.%03d' $((RANDOM % (MAX_MS + 1))))"
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	st=$?
	# Not killed: it ended by itself before the kill (a failed start).
	if [ "$st" -ne 137 ]; then
		failed=$((failed + 1))
		[ -s "$BASE/err" ] && why=$(head -c 300 "$BASE/err")
	fi
done
t1=$(date +%s.%N)
sleep 2
left=$(batch_pids)
nleft=0
guardians=()
for p in $left; do
	comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
	nleft=$((nleft + 1))
	echo "left: pid $p $comm ppid $(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) state $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
	[ "$comm" = cordon-guardian ] && guardians+=("$p")
done
for g in "${guardians[@]}"; do
	a=$(cpu_io "$g") || continue
	sleep 1
	b=$(cpu_io "$g") || continue
	read -r c0 w0 x0 <<<"$a"
	read -r c1 w1 x1 <<<"$b"
	echo "guardian $g over 1 s: cpu $(( (c1 - c0) * 1000 / TICK )) ms, write_bytes $((w1 - w0)), wchar $((x1 - x0))"
done
records=$(find "$STATE" -name 'run-*' 2>/dev/null | wc -l)
names=$(find "$WS" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
echo "$(id -un) $MODE busy=$BUSY: $KILLS kills in $(echo "$t1 - $t0" | bc) s (0..$MAX_MS ms each);" \
	"2 s after the last: $nleft processes, $records records, $names names left"
[ "$failed" -gt 0 ] && echo "$failed runs ended by themselves before their kill; one said: $why"
[ "$names" -gt 0 ] && ls -A "$WS" | tr '\n' ' ' && echo
for p in $left; do kill -9 "$p" 2>/dev/null; done
[ "$nleft" -eq 0 ] && [ "$records" -eq 0 ] && [ "$names" -eq 0 ]

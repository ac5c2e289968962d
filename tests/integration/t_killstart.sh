#!/usr/bin/env bash
# t_killstart.sh: kill -9 of cordon at spread moments of its start-up, in
# watch and in mount mode (issue 19 item 5): nothing of those runs is left
# (no process, no record, no name in the workspace), and a guardian held up
# by a directory another process still locks waits without spinning and
# cleans up once it is free.  The 500-kill count of the issue is
# scripts/killloop.sh; this is its lean form.  Other runs of cordon on the
# machine are not counted: only processes carrying this file's marks.
. "$(dirname "$0")/lib.sh"

KILLS=${KILLS:-24}

# marked MARK: pids of the live processes whose environment holds
# KILL_MARK=MARK (cordon's; bwrap, its children and the guardian inherit it).
marked() {
	local f p
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}
		p=${p%/environ}
		tr '\0' '\n' 2>/dev/null <"$f" | grep -qx "KILL_MARK=$1" && echo "$p"
	done
	return 0
}
# records DIR: the run records in the registry under state directory DIR.
records() { ls "$1/cordon/registry" 2>/dev/null | grep '^run-'; }
# nothing_left MARK DIR: no process, record or name of those runs is left.
nothing_left() {
	[ -z "$(marked "$1")" ] && [ -z "$(records "$2/state")" ] && [ -z "$(ls -A "$2/ws")" ]
}
# cpu_ticks PID: its utime + stime.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
# wchar PID: the bytes it has written so far.
wchar() { awk '/^wchar/ { print $2 }' "/proc/$1/io" 2>/dev/null; }
describe() {
	local p
	for p in "$@"; do
		printf '%s(%s %s) ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)" \
			"$(cat "/proc/$p/wchan" 2>/dev/null)"
	done
}

# --- kill -9 at spread moments of the start ----------------------------------------
# A start takes about 25 ms on an idle machine: the kills land from the
# first millisecond to past the command's start, spread evenly, with jitter.
kill_pass() { # MODE FLAGS...
	local mode=$1 d="$W/$1" mark="killstart-$$-$1" i p
	shift
	mkdir -p "$d/ws" "$d/state"
	for i in $(seq "$KILLS"); do
		env KILL_MARK="$mark" XDG_STATE_HOME="$d/state" "$CORDON" "$@" -w "$d/ws" -C "$d/ws" \
			-- sleep 300 </dev/null >/dev/null 2>&1 &
		p=$!
		sleep "$(printf '0.%03d' $((i * 60 / KILLS + RANDOM % 5)))"
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	# A loaded machine is slow, not stuck: 10 s for the guardians to end.
	if wait_for 100 nothing_left "$mark" "$d"; then
		ok "$mode: $KILLS kills of cordon during its start: no process, record or name left"
		return
	fi
	local left
	left=$(marked "$mark")
	bad "$mode: $KILLS kills of cordon during its start left: processes $(describe $left)" \
		"records [$(records "$d/state" | tr '\n' ' ')] names [$(ls -A "$d/ws" | tr '\n' ' ')]"
	for p in $left; do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = cordon-guardian ]; then
			local c0 c1
			c0=$(cpu_ticks "$p")
			sleep 1
			c1=$(cpu_ticks "$p")
			echo "         | guardian $p: $((c1 - c0)) ticks of CPU in 1 s"
		fi
	done
	for p in $left; do kill -9 "$p" 2>/dev/null; done
}
kill_pass watch
kill_pass mount --protect-missing mount

# --- a guardian held up by a lock -------------------------------------------------------
# Run P makes the placeholders, run A shares them (its record says
# "referenced"), P is killed.  A process with no record (a sandbox an
# earlier kill leaked) holds a shared lock on .git, and A is
# killed: A's guardian must remove .git, which that lock forbids while it
# is held (here the test's shell holds it).  It waited only for created entries, found nothing to wait for,
# and swept again at once: a fifth of a CPU and the record rewritten
# hundreds of times a second, for as long as the lock was held.
d="$W/held"
mark="killstart-held-$$"
mkdir -p "$d/ws" "$d/state"
start_run() { # NAME
	env KILL_MARK="$mark-$1" XDG_STATE_HOME="$d/state" "$CORDON" --protect-missing mount \
		-w "$d/ws" -C "$d/ws" -- sleep 300 </dev/null >/dev/null 2>&1 &
}
start_run P
P=$!
wait_for 100 test -d "$d/ws/.git"
start_run A
A=$!
shared() { grep -qs "^referenced .*/ws/\.git\$" "$d/state/cordon/registry/"run-*-"$A"-*; }
if ! wait_for 100 shared; then
	bad "the second run did not share the first one's placeholders"
	kill -9 "$P" "$A" 2>/dev/null
else
	kill -9 "$P"
	wait "$P" 2>/dev/null
	wait_for 100 sh -c "! ls '$d/state/cordon/registry' | grep -q -- '-$P-'"
	# The test's shell holds it (fd 8): nothing to end but the descriptor.
	exec 8<"$d/ws/.git" && flock -s 8
	kill -9 "$A"
	wait "$A" 2>/dev/null
	rec=$(ls "$d/state/cordon/registry/"run-*-"$A"-* 2>/dev/null)
	G=$(marked "$mark-A" | while read -r q; do
		[ "$(cat "/proc/$q/comm" 2>/dev/null)" = cordon-guardian ] && echo "$q"; done)
	# Until its sandbox is gone and its first sweep is done.
	wait_for 50 sh -c "[ -n '$rec' ] && ! [ -d '$d/ws/.codex' ]"
	m0=$(stat -c %y "$rec" 2>/dev/null)
	c0=$(cpu_ticks "$G")
	w0=$(wchar "$G")
	sleep 1
	m1=$(stat -c %y "$rec" 2>/dev/null)
	c1=$(cpu_ticks "$G")
	w1=$(wchar "$G")
	if [ -n "$G" ] && [ -d "/proc/$G" ] && [ -d "$d/ws/.git" ] && [ -n "$m1" ]; then
		ok "held up by the lock, the guardian waits, and keeps .git and its record"
		if [ "$m0" = "$m1" ] && [ $((w1 - w0)) -lt 4096 ] && [ $((c1 - c0)) -le 5 ]; then
			ok "and does not spin: record unchanged, $((w1 - w0)) bytes written, $((c1 - c0)) ticks of CPU in 1 s"
		else
			bad "the guardian spins: record $m0 -> $m1, $((w1 - w0)) bytes written, $((c1 - c0)) ticks of CPU in 1 s"
		fi
	else
		bad "the guardian did not wait for the lock: guardian [$G] .git [$(ls -d "$d/ws/.git" 2>/dev/null)] record [$m1]"
	fi
	exec 8<&-
	# Its naps double up to 5 s while it waits.
	if wait_for 150 nothing_left "$mark-A" "$d"; then
		ok "once the lock is gone, the guardian cleans up and ends"
	else
		bad "the lock is gone, and still left: processes $(describe $(marked "$mark-A")) records [$(records "$d/state" | tr '\n' ' ')] names [$(ls -A "$d/ws" | tr '\n' ' ')]"
	fi
fi
for q in $(marked "$mark-P") $(marked "$mark-A"); do kill -9 "$q" 2>/dev/null; done

finish

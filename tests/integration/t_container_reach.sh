#!/usr/bin/env bash
# t_container_reach.sh: nothing the command does reaches a process outside
# its sandbox, cordon's own included, when it shares the caller's PID
# namespace (--pid-ns inherit, what a container engine's masked /proc makes
# auto choose; issue 30): another process's resource limits (prlimit), and
# the end of a run that a protected name stopped, which must take every
# process of the sandbox with it before cordon says so.  And in every mode,
# a SIGTERM to any of cordon's processes (bwrap included), as an agent
# sends to every process it started when it stops a command, gives the
# command's TERM trap its time, as one to cordon alone does (issue 32).
# And a cordon that can no longer watch its sandbox kills it and ends as
# after any run, never with 125 ("nothing ran").  Runs as the caller in
# each pass; without Landlock inherit mode refuses.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
NOLL=${CORDON_NO_LANDLOCK:-0}
C=("$CORDON" -w "$ws" -C "$ws")
# A sleep of a name of this run's own, to look for.
cp "$(command -v sleep)" "$ws/stopme.$$"
chmod 755 "$ws/stopme.$$"
I=("${C[@]}" --pid-ns inherit)

# --- signals to cordon's processes: the command's trap runs ---------------
# The trap cleans up for a while, then exits 7: its status, and its file.
cat >"$ws/trap.sh" <<'EOF'
trap 'sleep 0.3; echo cleaned >cleaned; exit 7' TERM
echo ready >ready
while :; do sleep 0.05; done
EOF
# descendants PID: every process below PID.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
# trapped MODE HOW: start the trap script under cordon in a session of its
# own, send SIGTERM as HOW says, and check the status and the cleanup.
trapped() {
	local mode=$1 how=$2 pid st pids bw
	rm -f "$ws/ready" "$ws/cleaned"
	setsid "${C[@]}" --pid-ns "$mode" -- sh trap.sh >"$OUT" 2>"$ERR" </dev/null &
	pid=$!
	if ! wait_for 100 test -e "$ws/ready"; then
		bad "$mode, $how: the command did not start"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	bw=$(pgrep -P "$pid" -x bwrap)
	case $how in
	bwrap)
		kill -TERM "$bw"
		# bwrap ignores it: the command goes on; then cordon's own.
		assert "$mode: SIGTERM to bwrap ($bw) alone ends nothing" -- kill -0 "$bw"
		kill -TERM "$pid" ;;
	group) kill -TERM -- "-$pid" ;;
	every)
		pids="$pid $(descendants "$pid")"
		# shellcheck disable=SC2086 # a list of pids
		kill -TERM $pids 2>/dev/null ;;
	esac
	wait "$pid"
	st=$?
	if [ "$st" -eq 7 ] && [ -e "$ws/cleaned" ]; then
		ok "$mode, SIGTERM to $how: the command's trap cleaned up, status 7"
	else
		bad "$mode, SIGTERM to $how: status $st, wanted the trap's 7; cleaned: $(cat "$ws/cleaned" 2>&1)"
		sed 's/^/         | /' "$ERR" | head -5
	fi
}
modes=(isolate)
[ "$NOLL" = 1 ] || modes+=(inherit)
for m in "${modes[@]}"; do
	for how in bwrap group every; do
		trapped "$m" "$how"
	done
done

# --- cordon failing mid-run: the sandbox is killed, never status 125 --------
# Its open file limit lowered from outside (what prlimit did from inside
# before): its next poll fails.  SIGWINCH, forwarded, wakes it.
# In the sanitizer build LeakSanitizer itself cannot run at cordon's exit
# with 3 descriptors (it reads /proc/PID/task) and would exit 23: the leak
# check is off for this run alone, ASan and UBSan stay on.
nolsan=()
[ -n "${CORDON_SANITIZED-}" ] && nolsan=(env "ASAN_OPTIONS=${ASAN_OPTIONS-}:detect_leaks=0")
for m in "${modes[@]}"; do
	rm -f "$ws/ready"
	"${nolsan[@]}" "${C[@]}" --pid-ns "$m" -- sh -c "touch ready; exec \"$ws/stopme.$$\" 33" \
		>"$OUT" 2>"$ERR" </dev/null &
	pid=$!
	wait_for 100 test -e "$ws/ready"
	prlimit --pid "$pid" --nofile=3:3
	kill -WINCH "$pid"
	wait "$pid"
	st=$?
	if [ "$st" -eq 137 ] && grep -q 'watching the sandbox failed (poll).*the sandbox was killed' "$ERR"; then
		ok "$m: cordon's poll failing kills the sandbox and says so (137, not 125)"
	else
		bad "$m: cordon's poll failing: status $st, wanted 137"
		sed 's/^/         | /' "$ERR" | head -5
	fi
	assert "$m: nothing of the command is left" -- sh -c "! pgrep -f '$ws/[s]topme.$$' >/dev/null"
done

if [ "$NOLL" = 1 ]; then
	expect_err 125 'Landlock ABI 6' "no Landlock: --pid-ns inherit is refused" -- \
		"${I[@]}" -- true
	finish
	exit
fi

# --- prlimit: another process's limits are out of reach ---------------------
sleep 60 &
T=$!
expect_err 1 'not permitted' "the command cannot set a host process's CPU limit ($T)" -- \
	"${I[@]}" -- prlimit --pid "$T" --cpu=1:1
expect_err 1 'not permitted' "nor its open file limit" -- \
	"${I[@]}" -- prlimit --pid "$T" --nofile=3:3
assert "the host process's limits are unchanged" -- \
	test "$(prlimit --pid "$T" --cpu --nofile -o SOFT --noheadings | tr -d ' \n')" = \
	"unlimited$(ulimit -Sn)"
assert "the host process is still there" -- kill -0 "$T"
expect_out 0 '^[0-9]+$' "control: the command reads the host process's limit" -- \
	"${I[@]}" -- prlimit --pid "$T" --nofile -o SOFT --noheadings
expect_out 0 '^64$' "control: the command sets its own (ulimit)" -- \
	"${I[@]}" -- sh -c 'ulimit -n 64 && ulimit -n'
kill "$T"
wait "$T" 2>/dev/null
# cordon is the parent of bwrap, the parent of cordon-inner, the command's.
# With its open file limit at 3 its poll failed, and it exited 125 ("nothing
# ran") without its checks while the command went on.
expect_err 1 'not permitted' "the command cannot set cordon's own limits" -- \
	"${I[@]}" -- sh -c 'b=$(ps -o ppid= -p $PPID) && c=$(ps -o ppid= -p $b) &&
		test "$(ps -o comm= -p $c)" = cordon && prlimit --pid $c --nofile=3:3'

# --- a stopped run leaves nothing running -----------------------------------
expect_err 1 'the sandbox was stopped' "creating .git stops the run" -- \
	"${I[@]}" -- sh -c "mkdir .git; \"$ws/stopme.$$\" 30; echo on >after"
# cordon waited for the sandbox's end: nothing of it may be left now.
assert "no process of the stopped command outlives cordon" -- \
	sh -c "! pgrep -f '$ws/[s]topme.$$' >/dev/null"
assert "it was moved aside" -- sh -c "test ! -e '$ws/.git' && ls -d '$ws'/.git.cordon-quarantine-* >/dev/null"
assert "the command did not go on" -- test ! -e "$ws/after"

# --- cordon-inner killed: what it leaves is still ended ---------------------
# Its orphans reparent to cordon (a child subreaper there), which kills
# every process of the sandbox's user namespace among its children.
rm -f "$ws/ready"
"${I[@]}" -- sh -c "\"$ws/stopme.$$\" 31 & \"$ws/stopme.$$\" 32 & touch ready; wait" \
	>"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait_for 100 test -e "$ws/ready"
inner=$(pgrep -P "$(pgrep -P "$pid" -x bwrap)")
kill -KILL "$inner"
wait "$pid"
assert "cordon-inner killed ($inner): cordon ends, nothing of the command left behind" -- \
	sh -c "! pgrep -f '$ws/[s]topme.$$' >/dev/null"
pkill -f "$ws/[s]topme.$$"
finish

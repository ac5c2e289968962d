#!/usr/bin/env bash
# t_term.sh: terminal and signals (issue 11, DESIGN section 5): on a terminal
# the command runs in its own session on a pty cordon relays, so Ctrl-C,
# Ctrl-Z and job control reach only its jobs; the user's terminal mode comes
# back on every exit; signals the caller ignored stay ignored; --kill-after
# gives a command time to clean up after SIGTERM.  The terminal is tmux's.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
C=("$CORDON" -w "$ws" -C "$ws")

if ! command -v tmux >/dev/null; then
	bad "tmux is missing (scripts/deps.sh installs it)"
	finish
	exit
fi
# The server's socket in the test's scratch directory, not tmux's default
# /tmp/tmux-UID/, which would keep one socket per run after the test.
T=(tmux -S "$W/tmux.sock" -f /dev/null)
cleanup_tmux() { "${T[@]}" kill-server 2>/dev/null; rm -rf "${cleanup_dirs[@]}"; }
trap cleanup_tmux EXIT

# term COMMAND: run a shell command line in a fresh tmux session (the one
# before goes once the new one keeps the server alive).
N=0
term() {
	N=$((N + 1))
	"${T[@]}" new-session -d -s "t$N" -x 100 -y 30 "cd '$ws'; $1; sleep 60"
	[ $N -gt 1 ] && "${T[@]}" kill-session -t "t$((N - 1))" 2>/dev/null
	return 0
}
keys() { "${T[@]}" send-keys -t "t$N" "$@"; }
screen() { "${T[@]}" capture-pane -p -t "t$N"; }
prompts() { screen | grep -c '^>>>'; }
# screen_wait REGEX: until the screen shows it (at most 10 s).  Named apart
# from lib.sh's wait_for N CMD (polling a condition), which this file uses too.
screen_wait() {
	local i
	for i in $(seq 100); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	screen | sed 's/^/         ~ /' | grep -v '^         ~ $' | tail -8
	return 1
}
# run_term DESC CMDLINE: the shell records its stty -g before and after
# cordon, and cordon's status.
# stty.after appears whole (a rename) once the shell wrote it: STATUS= on
# the screen comes before it, so mode_same waits for the file.
run_term() {
	rm -f "$W/stty.after"
	term "stty -g >'$W/stty.before'; $1; echo STATUS=\$?; stty -g >'$W/stty.tmp'; mv '$W/stty.tmp' '$W/stty.after'"
}
mode_same() {
	for i in $(seq 100); do [ -e "$W/stty.after" ] && break; sleep 0.1; done
	cmp -s "$W/stty.before" "$W/stty.after"
}

# The pane's terminal, and whether it is raw: cfmakeraw's mode, no signals
# from keys, no output processing (readline's mode at bash's prompt keeps both).
pane_tty() { "${T[@]}" display -p -t "t$N" '#{pane_tty}'; }
is_raw() {
	local m
	m=$(stty -a -F "$(pane_tty)") && [[ $m == *-isig* && $m == *-opost* ]]
}
not_raw() { ! is_raw; }
# sandbox_fg ARGS: a process whose command line is ARGS holds the foreground
# of its own terminal (the sandbox's pty): its process group is the
# terminal's (/proc/PID/stat fields 5 and 8, in this namespace's numbers).
# Until then a Ctrl-Z typed reaches nobody's job (cordon is raw already).
sandbox_fg() {
	local p
	for p in $(pgrep -x -f -- "$1"); do
		awk '{ exit !($5 == $8) }' "/proc/$p/stat" 2>/dev/null && return 0
	done
	return 1
}

if in_landlock_pass "the REPL, Ctrl-C and job control cases" "the pty relay and job control are cordon's and cordon-inner's own code, which Landlock does not touch"; then
	# --- a Python REPL survives Ctrl-C ------------------------------------------
	run_term "${C[*]} -- python3 -q"
	screen_wait '^>>>' >/dev/null
	keys 'x = 6' Enter
	for i in $(seq 100); do [ "$(prompts)" -ge 2 ] && break; sleep 0.1; done
	keys 'x = 1 +' C-c
	screen_wait KeyboardInterrupt >/dev/null
	keys 'print(x*7)' Enter
	assert "Python REPL: Ctrl-C interrupts the line, the REPL goes on (42)" -- screen_wait '^42$'
	keys C-d
	assert "and it ends normally afterwards (status 0)" -- screen_wait 'STATUS=0$'
	assert "the terminal's mode is restored" -- mode_same

	# Control: Ctrl-C ends a command that does not catch it.
	run_term "${C[*]} -- sleep 100"
	sleep 0.5
	keys C-c
	assert "control: Ctrl-C ends sleep inside (status 130)" -- screen_wait 'STATUS=130$'
	assert "and the terminal's mode is restored" -- mode_same

	# --- Ctrl-C with only stdout a terminal ----------------------------------------
	# No keys to read, so no raw mode: the terminal itself sends SIGINT to its
	# foreground group.  That is cordon alone (bwrap has a group of its own):
	# it passes the signal on and the command's INT trap runs.  Before, bwrap
	# died of it with the whole sandbox.
	rm -f "$ws/started" "$ws/trapped"
	run_term "${C[*]} -- sh -c 'trap \"echo yes > trapped; exit 7\" INT; touch started; while :; do sleep 0.1; done' </dev/null"
	for i in $(seq 100); do [ -e "$ws/started" ] && break; sleep 0.1; done
	keys C-c
	assert "stdin not a terminal: Ctrl-C reaches the command's trap (status 7)" -- screen_wait 'STATUS=7$'
	assert "and the trap ran inside the sandbox" -- grep -qx yes "$ws/trapped"
	rm -f "$ws/started" "$ws/trapped"
	run_term "${C[*]} -- sh -c 'touch started; exec sleep 100' </dev/null"
	for i in $(seq 100); do [ -e "$ws/started" ] && break; sleep 0.1; done
	keys C-c
	assert "control: stdin not a terminal, Ctrl-C still ends a command that does not catch it (130)" -- \
		screen_wait 'STATUS=130$'

	# --- job control in bash -i ----------------------------------------------------
	run_term "${C[*]} -- bash --norc --noprofile -i"
	screen_wait '[$#]$' >/dev/null
	keys 'sleep 100 &' Enter
	keys 'jobs' Enter
	assert "bash -i: a background job is listed" -- screen_wait 'Running +sleep 100 &'
	keys 'fg' Enter
	sleep 0.5
	keys C-z
	assert "Ctrl-Z stops the foreground job, not the sandbox" -- screen_wait 'Stopped +sleep 100'
	keys 'bg; echo BG-$?' Enter
	assert "bg resumes it" -- screen_wait '^BG-0$'
	keys 'kill %1; wait; exit 3' Enter
	assert "the shell ends with its own status (3)" -- screen_wait 'STATUS=3$'
	assert "the terminal's mode is restored" -- mode_same

	# --- cordon as a background job of an interactive shell ------------------------
	run_term "bash --norc --noprofile -i"
	screen_wait '[$#]$' >/dev/null
	keys "${C[*]} -- sh -c 'read x </dev/null; echo BG-RAN' & wait \$!; echo BGST=\$?" Enter
	assert "a background cordon is not stopped for the terminal (SIGTTOU/SIGTTIN)" -- screen_wait '^BGST=0$'
	assert "and its command ran" -- screen_wait '^BG-RAN$'
	keys "${C[*]} -- sh -c 'echo FG-RAN'; echo FGST=\$?" Enter
	assert "control: in the foreground it runs too" -- screen_wait '^FGST=0$'
	keys 'exit' Enter

fi
# --- the mode is restored on the other exits -------------------------------------
run_term "${C[*]} -- no-such-command-here"
assert "a command not found gives 127" -- screen_wait 'STATUS=127$'
assert "and the terminal's mode is restored" -- mode_same
if [ -n "${FAKE_BWRAP-}" ]; then
	run_term "CORDON_BWRAP=$FAKE_BWRAP ${C[*]} -- true"
	assert "a failing bwrap gives 125" -- screen_wait 'STATUS=125$'
	assert "and the terminal's mode is restored" -- mode_same
fi
run_term "sh -c 'echo \$\$ >\"$W/pid\"; exec ${C[*]} -- sleep 100'"
for i in $(seq 50); do [ -s "$W/pid" ] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$(cat "$W/pid")"
assert "SIGTERM to cordon on a terminal ends the run (143)" -- screen_wait 'STATUS=143$'
assert "and the terminal's mode is restored" -- mode_same

if in_landlock_pass "the paste, Ctrl-Z, fg and bg cases" "the pty relay and job control are cordon's and cordon-inner's own code, which Landlock does not touch"; then
	# --- a paste larger than the pty holds ---------------------------------------------
	# Keys a command does not read wait in cordon's relay, which then stops
	# reading the terminal: cordon's supervision (--timeout, forwarded signals)
	# goes on.  The paste is lines of base64 (a terminal's line editing holds
	# lines of at most 4095 bytes; tmux pastes newlines as CR, which the
	# command's terminal turns back into NL).
	head -c 120000 /dev/urandom | base64 -w 76 >"$W/paste"
	paste_in() {
		"${T[@]}" load-buffer -b big "$W/paste" && "${T[@]}" paste-buffer -b big -t "t$N"
	}
	run_term "${C[*]} --timeout 2 -- sleep 100"
	sleep 0.5
	paste_in
	assert "--timeout ends a command that reads nothing while $(wc -c <"$W/paste") bytes are pasted (124)" -- \
		screen_wait 'STATUS=124$'
	assert "and the terminal's mode is restored" -- mode_same
	rm -f "$W/pid"
	run_term "sh -c 'echo \$\$ >\"$W/pid\"; exec ${C[*]} -- sleep 100'"
	for i in $(seq 50); do [ -s "$W/pid" ] && break; sleep 0.1; done
	sleep 0.5
	paste_in
	sleep 0.5
	kill -TERM "$(cat "$W/pid")"
	assert "a forwarded SIGTERM ends it in the same state (143)" -- screen_wait 'STATUS=143$'
	rm -f "$ws/pasted"
	run_term "${C[*]} -- sh -c 'cat >pasted'"
	sleep 0.5
	paste_in
	keys C-d
	assert "control: a command that reads gets the whole paste (status 0)" -- screen_wait 'STATUS=0$'
	assert "intact: $(wc -c <"$ws/pasted" 2>/dev/null) of $(wc -c <"$W/paste") bytes, the same sha256" -- \
		test "$(sha256sum <"$ws/pasted" 2>/dev/null)" = "$(sha256sum <"$W/paste")"

	# --- Ctrl-Z stops cordon's job; fg and bg resume it (issue 21) --------------------
	# The shell's own terminal: raw while cordon relays, its mode back while
	# cordon is stopped or in the background.  Each command typed alone: a
	# stopped job lets the shell go on with the rest of a line.
	run_term "bash --norc --noprofile -i"
	screen_wait '[$#]$' >/dev/null
	keys "${C[*]} -- sleep 100" Enter
	wait_for 50 is_raw
	wait_for 100 sandbox_fg "sleep 100"
	keys C-z
	assert "Ctrl-Z: cordon -- sleep 100 stops and the shell says so" -- screen_wait '^\[1\]\+ +Stopped +.*cordon'
	assert "and the shell has the terminal back in its own mode" -- not_raw
	keys clear Enter
	keys 'jobs' Enter
	assert "jobs lists it as stopped" -- screen_wait '^\[1\]\+ +Stopped +.*cordon'
	keys 'fg; echo ST=$?' Enter
	assert "fg: the relay has the terminal raw again" -- wait_for 50 is_raw
	keys C-c
	assert "and Ctrl-C reaches the command (130)" -- screen_wait 'ST=130$'
	# A loop writing lines: bg lets it run and write, fg brings it back (bash's
	# fg sends no SIGCONT to a running job: cordon notices by itself).
	keys clear Enter
	keys "${C[*]} -- bash -c 'for i in \$(seq 300); do echo LINE-\$i; sleep 0.2; done'" Enter
	screen_wait '^LINE-3$' >/dev/null
	keys C-z
	assert "a loop: Ctrl-Z stops it" -- screen_wait '^\[1\]\+ +Stopped +.*cordon'
	last=$(screen | grep -o 'LINE-[0-9]*' | tail -1)
	sleep 0.6
	assert "and it writes nothing while stopped" -- test "$(screen | grep -o 'LINE-[0-9]*' | tail -1)" = "$last"
	keys 'bg' Enter
	assert "bg: it runs on and writes in the background" -- screen_wait "^LINE-$((${last#LINE-} + 3))$"
	assert "and the terminal stays the shell's" -- not_raw
	keys 'fg; echo ST=$?' Enter
	assert "fg: the terminal is raw again" -- wait_for 50 is_raw
	keys C-c
	assert "and Ctrl-C ends the loop (130)" -- screen_wait 'ST=130$'
	# After bg, a read of the terminal stops the job with SIGTTIN (jobs -l:
	# Stopped (tty input)) and fg lets the read go on; with tostop, a write
	# stops it with SIGTTOU: each outside first, then under cordon.
	# jobs_listed REGEX: jobs -l lists it (the job stops once its sleep is over).
	jobs_listed() {
		keys clear Enter
		keys 'jobs -l' Enter
		sleep 0.3
		screen | grep -Eq -- "$1"
	}
	# job_foreground NAME: a process of the pane's terminal whose command line
	# starts with NAME is in its foreground process group and not stopped.
	job_foreground() {
		ps -t "$(pane_tty)" -o stat=,args= | grep -Eq -- "^[^T ]*\+ +([^ ]*/)?$1"
	}
	# bg_stop HOW WHY CMDLINE TYPED WANT: the job runs in the background after
	# Ctrl-Z and bg, stops with "Stopped (WHY)", and after fg shows WANT.
	bg_stop() {
		local how=$1 why=$2 line=$3 typed=$4 name='bash -c'
		[ "$how" = cordon ] && line="${C[*]} -- $3" && name=cordon
		keys clear Enter
		keys "$line" Enter
		[ "$how" = cordon ] && wait_for 50 is_raw
		sleep 0.5 # the command started, still in its sleep
		keys C-z
		screen_wait "^\[1\]\+ +Stopped +.*$name" >/dev/null
		keys clear Enter
		keys 'bg' Enter
		assert "$how: after bg the job stops: Stopped ($why)" -- \
			wait_for 30 jobs_listed "^\[1\]\+ +[0-9]+ +Stopped \($why\) +.*$name"
		keys clear Enter
		keys 'fg; echo ST=$?' Enter
		[ "$how" = cordon ] && wait_for 50 is_raw
		# Type only once the job is running in the foreground: keys sent
		# while the shell is still between its prompt and fg were seen
		# lost under load (CI, the outside case).
		wait_for 50 job_foreground "$name"
		[ -n "$typed" ] && keys "$typed" Enter
		assert "$how: fg, and it goes on ($5)" -- screen_wait "$5"
		assert "$how: and it ends with status 0" -- screen_wait '^ST=0$'
		keys clear Enter
		keys 'jobs; echo JOBS-END' Enter
		screen_wait '^JOBS-END$' >/dev/null
		assert "$how: and no job is left" -- test -z "$(screen | grep -E '^\[[0-9]+\]')"
	}
	for how in outside cordon; do
		bg_stop $how 'tty input' "bash -c 'sleep 2; read x; echo got-\$x'" typed '^got-typed$'
	done
	keys 'stty tostop' Enter
	for how in outside cordon; do
		bg_stop $how 'tty output' "bash -c 'sleep 2; echo wrote-1'" '' '^wrote-1$'
	done
	keys 'stty -tostop' Enter
	# The shell says Done when the job's leader is reaped; what is left of a
	# sandbox is torn down just after: polled, and a leftover still fails.
	left() { test -z "$(pgrep -f 'echo (got|wrote)-')"; }
	wait_for 50 left
	assert "and nothing of either command is left" -- left
	if command -v vim >/dev/null; then
		rm -f "$ws/v.txt"
		keys clear Enter
		keys "${C[*]} -- vim -u NONE -N v.txt" Enter
		screen_wait '^~' >/dev/null
		keys i hello
		sleep 0.3
		keys Escape
		sleep 1.2 # vim's wait for the rest of an escape sequence
		keys C-z
		assert "vim: Ctrl-Z (vim's own kill(0, SIGTSTP)) stops cordon's job" -- \
			screen_wait '^\[1\]\+ +Stopped +.*cordon'
		keys 'fg; echo ST=$?' Enter
		screen_wait '^hello' >/dev/null
		keys ':wq' Enter
		assert "fg: vim goes on and writes its file (status 0)" -- screen_wait '^ST=0$'
		assert "with what was typed before Ctrl-Z" -- grep -qx hello "$ws/v.txt"
	else
		echo "  skip [$WHO] vim is not installed: Ctrl-Z in vim not tried"
	fi
	keys 'exit' Enter
fi

# --- the terminal after kill -9 of cordon (issue 19 item 7) ----------------------
# A shell that does not restore the terminal itself (sh, unlike bash -i):
# the guardian, which survives cordon, does.
rm -f "$W/pid"
term "stty -g >'$W/stty.before'; sh -c 'echo \$\$ >\"$W/pid\"; exec ${C[*]} -- sleep 100'"
for i in $(seq 50); do [ -s "$W/pid" ] && break; sleep 0.1; done
wait_for 50 is_raw
kill -KILL "$(cat "$W/pid")"
assert "kill -9 of cordon: the terminal's mode is restored (stty -g the same)" -- \
	wait_for 50 sh -c "test \"\$(stty -g -F '$(pane_tty)')\" = '$(cat "$W/stty.before")'"

# --- a lost terminal ends the run (issue 26) ----------------------------------
# Each case twice, inside cordon and as is, each in a tmux session of its
# own whose interactive shell runs it (as root also through runuser, which
# stays up and keeps the kernel's SIGHUP from cordon).  Once every command
# is up, all the sessions are killed at once, as a closed window or a
# dropped ssh connection does.  2 s later: inside as outside, the command
# ended (nohup: it lives on and writes where nohup sent it), and nothing of
# the run is left, neither a process nor a record or name on disk.
# hup_tree PID: PID and every process under it.
hup_tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do hup_tree "$c"; done
}
# hup_start CASE LEAF CMDLINE: CMDLINE typed into the interactive shell of
# session h-CASE, in $W/hup/CASE/ws; the case is up once a process named
# LEAF runs under that shell.
hup_cases=()
hup_start() {
	local d="$W/hup/$1"
	mkdir -p "$d/ws" "$d/state"
	is_root && chown -R "$TESTUSER_HUP" "$d"
	echo "$2" >"$d/leaf"
	hup_cases+=("$1")
	if [ -n "${hup_leader-}" ]; then
		"${T[@]}" new-session -d -s "h-$1" -x 100 -y 30 "cd '$d/ws'; exec $hup_leader '$3'"
		return
	fi
	"${T[@]}" new-session -d -s "h-$1" -x 100 -y 30 "cd '$d/ws'; exec bash --norc --noprofile -i"
	"${T[@]}" send-keys -t "h-$1" "$3" Enter
}
# hup_up CASE: wait until its LEAF runs, then note every process of it.
hup_up() {
	local d="$W/hup/$1" pane i
	pane=$("${T[@]}" display -p -t "h-$1" '#{pane_pid}')
	for i in $(seq 300); do
		hup_tree "$pane" >"$d/pids"
		ps -o comm= -p "$(paste -sd, "$d/pids")" | grep -qx "$(cat "$d/leaf")" && return 0
		sleep 0.1
	done
	return 1
}
hup_alive() { local p; for p in $(cat "$W/hup/$1/pids"); do kill -0 "$p" 2>/dev/null && echo "$p"; done; }
hup_gone_now() { test -z "$(hup_alive "$1")"; }
# 2 s after the hangup (the caller's sleep); a sanitized cordon (make
# check-asan) runs several times slower, and gets 4 s more.
hup_gone() {
	local tries=1
	[ "${CORDON_SANITIZED:-0}" = 1 ] && tries=40
	wait_for "$tries" hup_gone_now "$1"
}
# hup_clean CASE FILE...: the workspace holds FILE... and nothing else, and
# the run's registry no record.
hup_clean() {
	local name=$1 d="$W/hup/$1" have want
	shift
	have="$(ls -A "$d/ws" "$d/state/cordon/registry" 2>/dev/null | grep -v -e '^$' -e ':$' -e '^lock$' |
		sort | tr '\n' ' ')"
	want="$(for f in "$@"; do echo "$f"; done | sort | tr '\n' ' ')"
	[ "$have" = "$want" ] || echo "         | $name: [$have], wanted [$want]"
	[ "$have" = "$want" ]
}
hup_status() { sed -n 's/.*"status": *\([0-9]*\).*/\1/p' "$W/hup/$1/report.json" 2>/dev/null; }
hup_loop='trap "echo hup >trapped; exit 3" HUP; while :; do sleep 30; done'
# sleep 0.5: hup_up must find the leaf (sleep) running; a 0.1 s one is
# mostly between its runs under load.
hup_nohup='while [ ! -e go ]; do sleep 0.5; done; echo survived'
# hup_round PREFIX RUN: the four cases inside (RUN cordon) and outside (RUN).
hup_round() {
	local p=$1 run=$2 i k
	hup_cases=()
	for i in in out; do
		local cmd="" st=""
		if [ $i = in ]; then
			cmd="env XDG_STATE_HOME=$W/hup/$p-@/state ${C[0]} --kill-after 1 --report $W/hup/$p-@/report.json -w $W/hup/$p-@/ws -C $W/hup/$p-@/ws --"
		fi
		hup_start "$p-$i-repl" python3 "$run ${cmd//@/$i-repl} python3 -q"
		hup_start "$p-$i-sleep" sleep "$run ${cmd//@/$i-sleep} sleep 1000"
		hup_start "$p-$i-trap" sleep "$run ${cmd//@/$i-trap} bash -c '$hup_loop'"
		hup_start "$p-$i-nohup" sleep "$run nohup ${cmd//@/$i-nohup} sh -c '$hup_nohup'"
	done
	for k in "${hup_cases[@]}"; do
		hup_up "$k" || bad "$k: the command never came up"
	done
	for k in "${hup_cases[@]}"; do "${T[@]}" kill-session -t "h-$k"; done
	sleep 2
	for i in in out; do
		local w="outside"
		[ $i = in ] && w="cordon"
		assert "$p $w: the REPL ends with its terminal, nothing of it left 2 s later" -- hup_gone "$p-$i-repl"
		assert "$p $w: sleep 1000 ends with its terminal, nothing of it left" -- hup_gone "$p-$i-sleep"
		assert "$p $w: a shell's HUP trap runs, nothing of it left" -- hup_gone "$p-$i-trap"
		assert "$p $w: the trap wrote its file" -- test -s "$W/hup/$p-$i-trap/ws/trapped"
		assert "$p $w: nohup: the command lives on" -- test -n "$(hup_alive "$p-$i-nohup")"
	done
	assert "$p: cordon ends the REPL with its status (129: SIGHUP)" -- test "$(hup_status "$p-in-repl")" = 129
	assert "$p: cordon ends sleep with 129" -- test "$(hup_status "$p-in-sleep")" = 129
	assert "$p: cordon ends the trapping shell with the trap's status (3)" -- \
		test "$(hup_status "$p-in-trap")" = 3
	assert "$p cordon: the workspaces hold what the commands wrote, the registry no record" -- \
		eval 'hup_clean "$p-in-repl" && hup_clean "$p-in-sleep" && hup_clean "$p-in-trap" trapped'
	: >"$W/hup/$p-in-nohup/ws/go"
	: >"$W/hup/$p-out-nohup/ws/go"
	for i in $(seq 40); do hup_gone "$p-in-nohup" && hup_gone "$p-out-nohup" && break; sleep 0.1; done
	for i in in out; do
		assert "$p $i: nohup: the command finished and wrote where nohup sent it" -- \
			grep -qx survived "$W/hup/$p-$i-nohup/ws/nohup.out"
	done
	assert "$p cordon: nohup: nothing of the run left once it ended" -- hup_gone "$p-in-nohup"
	assert "$p cordon: nohup: a clean workspace, no record" -- hup_clean "$p-in-nohup" nohup.out go
}
TESTUSER_HUP=$(id -un)
hup_round direct ""
if is_root && id "${CORDON_TEST_USER:-cordontest}" >/dev/null 2>&1; then
	TESTUSER_HUP=${CORDON_TEST_USER:-cordontest}
	hup_round runuser "$(command -v runuser || echo /usr/sbin/runuser) -u $TESTUSER_HUP --"
fi
TESTUSER_HUP=$(id -un)
# The issue's case: the session's leader stays up and passes no SIGHUP on
# (runuser waiting for its child, here a shell ignoring it), so nothing but
# the terminal itself tells: the REPL outside reads end of file and ends;
# cordon (SIGHUP back to the default for it) must see the same.
hup_cases=()
hup_leader="bash -c 'trap \"\" HUP; env --default-signal=HUP \$0; sleep 60'"
hup_start stay-in python3 "env XDG_STATE_HOME=$W/hup/stay-in/state ${C[0]} --kill-after 1 --report $W/hup/stay-in/report.json -w $W/hup/stay-in/ws -C $W/hup/stay-in/ws -- python3 -q"
hup_start stay-out python3 "python3 -q"
unset hup_leader
stay_leaders=()
for k in stay-in stay-out; do
	hup_up "$k" || bad "$k: the command never came up"
	# The leader that stays is the caller's, not the run's.
	stay_leaders+=("$(head -1 "$W/hup/$k/pids")")
	sed -i 1d "$W/hup/$k/pids"
done
for k in stay-in stay-out; do "${T[@]}" kill-session -t "h-$k"; done
sleep 2
for k in "${stay_leaders[@]}"; do pkill -KILL -P "$k"; kill -KILL "$k"; done 2>/dev/null
assert "no SIGHUP from the caller, outside: the REPL ends with its terminal" -- hup_gone stay-out
assert "no SIGHUP from the caller, cordon: the REPL ends too, nothing of the run left 2 s later" -- \
	hup_gone stay-in
assert "and the run ends with the command's status (129)" -- test "$(hup_status stay-in)" = 129
assert "a clean workspace, no record" -- hup_clean stay-in

# --- kill(0) inside reaches only the command's process group ---------------------
expect 0 "kill(0, SIGTERM) inside does not reach cordon (no terminal)" -- \
	"${C[@]}" --kill-after 1 -- sh -c 'trap "" TERM; kill -TERM 0; sleep 1.5; exit 0'
run_term "${C[*]} --kill-after 1 -- sh -c 'trap \"\" TERM; kill -TERM 0; sleep 1.5; exit 0'"
assert "kill(0, SIGTERM) inside does not reach cordon (on a terminal)" -- screen_wait 'STATUS=0$'
# Control: the same command with cordon itself sent SIGTERM is ended.
"${C[@]}" --kill-after 1 -- sh -c 'trap "" TERM; sleep 5; exit 0' </dev/null &
cpid=$!
sleep 0.5
kill -TERM $cpid
wait $cpid
st=$?
assert "control: SIGTERM to cordon ends it after --kill-after (status $st)" -- test "$st" -eq 143

# --- a signal the caller ignored stays ignored (nohup) ---------------------------
rm -f "$ws/finished"
nohup "${C[@]}" -- sh -c 'sleep 1.5; echo yes > finished' </dev/null >/dev/null 2>&1 &
cpid=$!
sleep 0.5
kill -HUP $cpid
wait $cpid
st=$?
assert "nohup: SIGHUP to cordon leaves the command running to its end (status $st)" -- test "$st" -eq 0
assert "and the command finished its work" -- test -f "$ws/finished"
expect_out 0 '^1$' "the command starts with SIGHUP ignored" -- \
	nohup "${C[@]}" -- sh -c 'echo $(( 0x$(sed -n "s/^SigIgn:\t//p" /proc/self/status) & 1 ))'
rm -f "$ws/finished"
env --default-signal=HUP "${C[@]}" -- sh -c 'sleep 1.5; echo yes > finished' </dev/null &
cpid=$!
sleep 0.5
kill -HUP $cpid
wait $cpid
st=$?
assert "control: without nohup SIGHUP ends the command (status $st)" -- test "$st" -eq 129
assert "and it did not finish" -- test ! -e "$ws/finished"

# --- --kill-after ------------------------------------------------------------------
cleanup_cmd='trap "sleep 1; echo done > cleaned; exit 0" TERM; sleep 100 & wait'
rm -f "$ws/cleaned"
"${C[@]}" --kill-after 3 -- sh -c "$cleanup_cmd" </dev/null &
cpid=$!
sleep 0.5
kill -TERM $cpid
wait $cpid
st=$?
assert "--kill-after 3: a trapping command cleans up after SIGTERM (status $st)" -- test "$st" -eq 0
assert "and its trap wrote its file" -- test -f "$ws/cleaned"
rm -f "$ws/cleaned"
"${C[@]}" --kill-after 1 -- sh -c "${cleanup_cmd/sleep 1/sleep 4}" </dev/null &
cpid=$!
sleep 0.5
kill -TERM $cpid
wait $cpid
st=$?
assert "control: --kill-after 1 kills a trap that takes 4 s before it is done (status $st)" -- test "$st" -eq 143
assert "and its file was never written" -- test ! -e "$ws/cleaned"
marker="cordon-killafter-$$-$RANDOM"
"${C[@]}" --kill-after 2 -- bash -c "trap '' TERM; exec -a $marker sleep 60" </dev/null &
cpid=$!
sleep 0.5
kill -TERM $cpid
wait $cpid
st=$?
assert "--kill-after 2: a command ignoring SIGTERM is killed (status $st)" -- test "$st" -eq 143
# Every process with the marker in its command line (the guardian names
# itself cordon-guardian, t_core checks that it is gone too).
assert "and nothing of it survives" -- test -z "$(pgrep -f "$marker")"

finish

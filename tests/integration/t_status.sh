#!/usr/bin/env bash
# t_status.sh: the command's status and the report's reason, from its own
# wait status: an ordinary `exit 130` is "exited" 130, a death by SIGINT is
# "signaled" 2 (both are 130 to a shell).  A sample of exit codes and of
# signals, each compared against the same command run outside (every code
# 0-255 and signal 1-31 are the unit tests' test_wstatus and test_outcome).
# Then --timeout: SIGTERM first, SIGKILL after --kill-after, 124 both ways.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
R="$W/r.json"
C=("$CORDON" -w "$ws" -C "$ws")
PY=/usr/bin/python3

# What the same command gives outside: "STATUS REASON SIGNAL".
outside() {
	"$@" >/dev/null 2>&1 </dev/null
	local st=$?
	if [ "$st" -gt 128 ] && [ "$DIE" = 1 ]; then
		echo "$st signaled $((st - 128))"
	else
		echo "$st exited null"
	fi
}

# inside DESC -- COMMAND...: cordon's status and the report, against outside.
inside() {
	local desc=$1
	shift 2
	local want got st
	want=$(outside "$@")
	rm -f "$R"
	"${C[@]}" --report "$R" -- "$@" >/dev/null 2>"$ERR" </dev/null
	st=$?
	got="$st $(jq -r '.reason' "$R" 2>/dev/null) $(jq -c '.signal' "$R" 2>/dev/null)"
	if [ "$got" = "$want" ]; then
		ok "$desc: $got, as outside"
	else
		bad "$desc: inside '$got', outside '$want'"
		sed 's/^/         | /' "$ERR" | head -3
	fi
}

DIE=0
for code in 0 1 2 125 126 127 128 129 130 143 159 160 255; do
	inside "exit $code" -- sh -c "exit $code"
done
# SIGINT/SIGHUP may be ignored by whoever started the test: the child
# restores the default first, and dumps no core.
DIE=1
for sig in 1 2 9 15 31; do
	inside "killed by signal $sig" -- "$PY" -c "import os, resource, signal
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if $sig != 9: signal.signal($sig, signal.SIG_DFL)
os.kill(os.getpid(), $sig)"
done

# --timeout: the command gets SIGTERM and may print its summary; the
# sandbox ends with 124 and the report says SIGTERM ended it.
rm -f "$R"
expect_out 124 '^summary$' "--timeout: a TERM trap runs, status 124" -- \
	"${C[@]}" --report "$R" --timeout 1 --kill-after 30 -- \
	bash -c 'trap "echo summary; exit 3" TERM; sleep 60 & wait'
assert "--timeout: the report says timeout, ended by SIGTERM" -- \
	test "$(jq -c '[.reason, .timeout_ended_by]' "$R" 2>/dev/null)" = '["timeout","term"]'

# A command that ignores SIGTERM is killed --kill-after seconds later.
rm -f "$R"
expect 124 "--timeout: a command ignoring SIGTERM is killed after --kill-after, status 124" -- \
	"${C[@]}" --report "$R" --timeout 1 --kill-after 1 -- \
	bash -c 'trap "" TERM; while :; do sleep 0.1; done'
assert "--timeout: the report says timeout, ended by SIGKILL" -- \
	test "$(jq -c '[.reason, .timeout_ended_by]' "$R" 2>/dev/null)" = '["timeout","kill"]'
if grep -q 'kill-after' "$ERR"; then ok "--timeout: the message names --kill-after"; else
	bad "--timeout: the message does not name --kill-after"; sed 's/^/         | /' "$ERR" | head -3; fi

finish

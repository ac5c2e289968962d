#!/usr/bin/env bash
# t_limits.sh: resource limits (issue 9 "Denial of service", issue 13
# "Resource limits"): every run counts its processes, and --limit-pids,
# --limit-memory and --limit-cpu end what passes them, each with a control
# that stays under the limit.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
C=("$CORDON" -w "$ws" -C "$ws")
F="$HELPERS/forkloop"

# root counts by the sandbox's own pid_max, which needs Linux 6.14.
kernel_pidns() {
	local r major minor
	r=$(uname -r)
	major=${r%%.*}
	minor=${r#*.}
	minor=${minor%%[!0-9]*}
	[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 14 ]; }
}
# Where the caller may make a cgroup with the pids controller, pids.max
# counts instead (t_limits_tree.sh), for root too, at any value.
pids_cgroup() {
	"$CORDON" explain -w "$ws" -- true | grep -q '^limits: processes [0-9]* (cgroup'
}
counted=1
tree=0
if pids_cgroup; then tree=1; fi
if is_root && ! kernel_pidns && [ $tree = 0 ]; then counted=0; fi

# --- processes ----------------------------------------------------------------
if [ $counted = 1 ]; then
	expect_out 1 '^failed EAGAIN$' "a 5000-fork loop hits the default process cap" -- \
		"${C[@]}" -- "$F" 5000
	assert "the default cap stopped it below 4096 forks" -- \
		test "$(sed -n 's/^forked //p' "$OUT")" -lt 4096
	expect_out 1 '^failed EAGAIN$' "a fork loop hits --limit-pids 300" -- \
		"${C[@]}" --limit-pids 300 -- "$F" 1000
	assert "it stopped below 300 forks" -- test "$(sed -n 's/^forked //p' "$OUT")" -lt 300
	expect 0 "control: the host can still fork" -- sh -c 'true & wait'
	expect_out 0 '^forked 200$' "control: 200 forks under --limit-pids 300 work" -- \
		"${C[@]}" --limit-pids 300 -- "$F" 200
	expect_out 0 '^a-b$' "control: a pipeline works under --limit-pids" -- \
		"${C[@]}" --limit-pids 300 -- sh -c 'echo a b | tr " " -'
else
	echo "  skip [$WHO] root's processes are not counted on Linux $(uname -r) (6.14+ needed)"
	expect_err 125 "limit-pids" "--limit-pids is refused where it cannot be enforced" -- \
		"${C[@]}" --limit-pids 1000 -- true
fi
if [ $tree = 1 ]; then
	expect_out 1 '^failed EAGAIN$' "with a cgroup a small --limit-pids holds, for root too" -- \
		"${C[@]}" --limit-pids 20 -- "$F" 100
elif is_root; then
	expect_err 125 "limit-pids 100" "as root a limit below the smallest pid_max is refused" -- \
		"${C[@]}" --limit-pids 100 -- true
else
	expect_out 1 '^failed EAGAIN$' "as a user a small --limit-pids holds too" -- \
		"${C[@]}" --limit-pids 20 -- "$F" 100
fi
assert "no forked process outlived its sandbox" -- sh -c "! pgrep -u '$(id -u)' -x forkloop >/dev/null"

# --- memory --------------------------------------------------------------------
expect_err 1 'MemoryError' "a 300 MiB allocation fails under --limit-memory 100M" -- \
	"${C[@]}" --limit-memory 100M -- python3 -c 'b = bytearray(300 << 20); b[-1] = 1'
expect_out 0 '^ok$' "control: 10 MiB under --limit-memory 100M works" -- \
	"${C[@]}" --limit-memory 100M -- python3 -c 'b = bytearray(10 << 20); b[-1] = 1; print("ok")'
expect_out 0 '^ok$' "control: 300 MiB without a limit works" -- \
	"${C[@]}" -- python3 -c 'b = bytearray(300 << 20); b[-1] = 1; print("ok")'

# --- CPU -----------------------------------------------------------------------
# --timeout only bounds the test should the limit not hold (124 then fails).
expect 152 "a busy loop ends with SIGXCPU under --limit-cpu 1" -- \
	"${C[@]}" --timeout 30 --limit-cpu 1 -- sh -c 'while :; do :; done'
# A process that ignores SIGXCPU: RLIMIT_CPU's SIGKILL a second later, or
# first cordon's count of the tree's CPU time where a cgroup counts it
# (t_limits_tree.sh), which ends the run as 152.
ignored=137
"$CORDON" explain -w "$ws" -C "$ws" --limit-cpu 1 -- true | grep -q '^limits:.*CPU 1 s (cgroup' && ignored=152
expect $ignored "a loop that ignores SIGXCPU is killed ($ignored)" -- \
	"${C[@]}" --timeout 30 --limit-cpu 1 -- python3 -c 'import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True: pass'
expect 0 "control: a short computation under --limit-cpu 5 finishes" -- \
	"${C[@]}" --limit-cpu 5 -- sh -c 'i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done'

# --- --die-with-parent ------------------------------------------------------------
# A parent shell starts cordon and is killed; the sandboxed sleep, marked by
# its argument, must be gone within a bounded wait.  Without the flag the
# same sleep outlives its parent (then the test ends it).
running() { pgrep -u "$(id -u)" -f "^sleep $1\$" >/dev/null; }
gone() { ! running "$1"; }
parent_test() { # MARK FLAG...: start cordon under a shell, kill the shell
	local mark=$1
	shift
	sh -c "$PARENT_PRE"'"$@"; true' sh "${C[@]}" "$@" -- sleep "$mark" </dev/null >/dev/null 2>&1 &
	local shell=$!
	wait_for 100 running "$mark" || { bad "the sandboxed sleep $mark never started"; return 1; }
	kill -9 "$shell"
	wait "$shell" 2>/dev/null
	return 0
}
PARENT_PRE=
mark=$((9000000 + $$))
if parent_test "$mark" --die-with-parent; then
	assert "--die-with-parent: the sandbox ends when cordon's parent is killed" -- wait_for 150 gone "$mark"
	assert "--die-with-parent: no cordon of that run is left" -- \
		wait_for 50 sh -c "! pgrep -u '$(id -u)' -f -- '[-]-die-with-parent -- sleep $mark' >/dev/null"
fi
# A caller that ignores SIGTERM (as some agents' process managers do) still
# gets the end it asked for.
PARENT_PRE="trap '' TERM; "
mark=$((mark + 1))
if parent_test "$mark" --die-with-parent; then
	assert "--die-with-parent: holds when the parent ignored SIGTERM" -- wait_for 150 gone "$mark"
fi
PARENT_PRE=
mark=$((mark + 1))
if parent_test "$mark"; then
	sleep 1
	assert "control: without --die-with-parent the sandbox outlives its parent" -- running "$mark"
	pkill -TERM -u "$(id -u)" -f -- "-w $ws -C $ws -- sleep $mark"
	assert "control: cordon ends it on SIGTERM" -- wait_for 150 gone "$mark"
fi

finish

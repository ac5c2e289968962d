#!/usr/bin/env bash
# t_core.sh: the core sandbox (issue "Core"): filesystem view, escapes that
# must fail with their controls, exit statuses, stdio, environment, cwd,
# descriptors, process lifecycle and signals.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws/.git" "$ws/sub" "$W/outside" "$W/ro-inside"
echo "[core]" > "$ws/.git/config"
mkdir -p "$ws/vendor"
C=("$CORDON" -w "$ws" -C "$ws")

# --- filesystem ------------------------------------------------------------
expect 0 "write inside a writable root works" -- "${C[@]}" -- sh -c 'echo hi > f && cat f'
assert "the write is visible on the host" -- test "$(cat "$ws/f" 2>/dev/null)" = hi
refuse "write outside every root fails" -- "${C[@]}" -- sh -c "echo x > '$W/outside/x'"
assert "nothing was written outside" -- test ! -e "$W/outside/x"
refuse "write to the root filesystem fails" -- "${C[@]}" -- sh -c 'echo x > /etc/cordon-escape'
refuse "write into .git/config fails" -- "${C[@]}" -- sh -c 'echo evil >> .git/config'
assert ".git/config is unchanged" -- test "$(cat "$ws/.git/config")" = "[core]"
refuse "creating .git/hooks/pre-commit fails" -- "${C[@]}" -- sh -c 'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit'
refuse "renaming .git away fails" -- "${C[@]}" -- mv .git git-moved
assert ".git is still there" -- test -d "$ws/.git" -a ! -e "$ws/git-moved"
expect 0 "a sibling of .git stays writable" -- "${C[@]}" -- sh -c 'echo ok > sub/file'
ln -s "$W/outside" "$ws/escape-link"
refuse "writing through a symlink out of the root fails" -- "${C[@]}" -- sh -c 'echo x > escape-link/y'
assert "nothing arrived through the symlink" -- test ! -e "$W/outside/y"
refuse "--read-only carve-out inside a root is read-only" -- \
	"${C[@]}" --read-only "$ws/vendor" -- sh -c 'echo x > vendor/x'
expect 0 "a nested writable root inside a carve-out is writable" -- \
	"$CORDON" -w "$ws" --read-only "$ws/vendor" -w "$ws/sub" -C "$ws" -- sh -c 'echo x > sub/y'
expect 0 "private /tmp is writable" -- "${C[@]}" -- sh -c 'echo x > /tmp/x && test -s /tmp/x'
refuse "private /tmp hides the host's /tmp" -- "${C[@]}" -- test -e "$W/outside"
expect 0 "TMPDIR names a writable directory (mktemp works)" -- "${C[@]}" -- sh -c 'd=$(mktemp -d) && touch "$d/x"'
expect 0 "--tmp host makes the host /tmp writable" -- "$CORDON" --tmp host -C "$ws" -- sh -c "echo x > '$W/outside/tmphost'"
assert "the --tmp host write is on the host" -- test -e "$W/outside/tmphost"

# Hundreds of checks (a root and four protected names each) outgrow the
# control socket's buffer: cordon must wait for room, not give up or hang.
many=()
for i in $(seq 100); do mkdir -p "$W/many/r$i"; many+=(-w "$W/many/r$i"); done
expect 0 "100 writable roots work" -- timeout 20 "$CORDON" "${many[@]}" -C "$W/many/r1" -- sh -c 'echo x > /tmp/y && echo ok > ok'
assert "the last root is writable" -- test -f "$W/many/r1/ok"
assert "and nothing is left in the roots" -- test -z "$(ls -A "$W/many/r100")"

# --- processes ---------------------------------------------------------------
sleep 300 &
hostpid=$!
cleanup_pids=$hostpid
refuse "kill of a host pid fails" -- "${C[@]}" -- sh -c "kill $hostpid"
assert "the host process survived" -- kill -0 $hostpid
expect 0 "control: killing the sandbox's own child works" -- "${C[@]}" -- sh -c 'sleep 30 & kill $!'
refuse "another process's /proc/PID/root is out of reach" -- "${C[@]}" -- ls "/proc/$hostpid/root/"
expect 0 "control: /proc/self/root is readable" -- "${C[@]}" -- ls /proc/self/root/
kill $hostpid 2>/dev/null
expect_out 0 '^1$' "cordon-inner is PID 1, the command is not" -- "${C[@]}" -- sh -c 'echo $(( $$ > 1 )); cat /proc/1/comm >/dev/null'
expect_out 0 '^0000000000000000$' "the command has no effective capabilities" -- "${C[@]}" -- sh -c "awk '/CapEff/{print \$2}' /proc/self/status"
expect_out 0 '^0000000000000000$' "the command's bounding set is empty" -- "${C[@]}" -- sh -c "awk '/CapBnd/{print \$2}' /proc/self/status"
# cordon maps the user namespace itself (bwrap --userns-block-fd): one line
# for the caller's own uid, one for its gid, setgroups denied.
me_u=$(id -u) me_g=$(id -g)
expect_out 0 "^$me_u $me_g $me_u $me_u 1 $me_g $me_g 1 deny\$" \
	"the command runs as the caller, in a namespace that maps only the caller's ids" -- \
	"${C[@]}" -- sh -c 'echo $(id -u) $(id -g) $(cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups)'
if ! is_root; then
	refuse "an unmapped id (root) cannot be taken inside" -- "${C[@]}" -- \
		python3 -c 'import os; os.setuid(0)'
	expect 0 "control: the caller's own id can be set again" -- "${C[@]}" -- \
		python3 -c "import os; os.setuid($me_u)"
fi
expect_out 0 '^lo$' "the network namespace has only lo" -- "${C[@]}" -- sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"

# --- exit statuses ---------------------------------------------------------
expect 3 "the command's exit status passes through" -- "${C[@]}" -- sh -c 'exit 3'
expect 143 "a command that signals itself reports 128+N" -- "${C[@]}" -- sh -c 'kill -TERM $$; sleep 5'
expect_err 127 "command not found" "missing command gives 127 and names it" -- "${C[@]}" -- cordon-no-such-command
printf 'echo hi\n' > "$ws/noexec.sh"
chmod 644 "$ws/noexec.sh"
expect_err 126 "cannot execute" "a non-executable file gives 126" -- "${C[@]}" -- ./noexec.sh
expect_err 125 "^cordon: unknown option --bogus" "an unknown flag gives 125" -- "$CORDON" --bogus -- true
expect_err 125 "^cordon: --write needs a value" "a missing value gives 125" -- "$CORDON" --write
expect_err 125 "^cordon: --write $W/nope" "a nonexistent writable root gives 125" -- "$CORDON" -w "$W/nope" -- true
expect_err 125 "hidden by the private /tmp" "a cwd the sandbox hides gives 125" -- "$CORDON" -C "$W/outside" -- true
expect_err 125 "no command given" "no command gives 125" -- "$CORDON" -w "$ws"
expect_err 125 "tmp bogus" "a bad --tmp value gives 125" -- "$CORDON" --tmp bogus -- true

# --- stdio, environment, cwd, descriptors ------------------------------------
head -c 65536 /dev/urandom > "$W/blob"
"${C[@]}" -- cat < "$W/blob" > "$W/blob.out" 2>/dev/null
assert "stdin to stdout passes byte for byte" -- cmp -s "$W/blob" "$W/blob.out"
"${C[@]}" -- sh -c 'cat >&2' < "$W/blob" 2> "$W/blob.err" >/dev/null
assert "stderr passes byte for byte" -- cmp -s "$W/blob" "$W/blob.err"
expect_out 0 '^bar$' "the environment passes through" -- env FOO=bar "${C[@]}" -- sh -c 'echo $FOO'
expect_out 0 '^baz$' "--setenv sets a variable" -- "${C[@]}" --setenv FOO=baz -- sh -c 'echo $FOO'
expect_out 0 '^unset$' "--unsetenv removes a variable" -- env FOO=bar "${C[@]}" --unsetenv FOO -- sh -c 'echo ${FOO-unset}'
expect_out 0 '^clear$' "--clear-env empties the environment" -- env FOO=bar "${C[@]}" --clear-env -- /bin/sh -c 'echo ${FOO-clear}'
expect_out 0 "^$ws/sub\$" "the cwd is the requested one" -- "$CORDON" -w "$ws" -C "$ws/sub" -- pwd
expect_out 0 "^$ws\$" "the default cwd is the current directory" -- sh -c "cd '$ws' && '$CORDON' -w '$ws' -- pwd"
expect_out 0 '^0 1 2 $' "no descriptor of cordon's reaches the command" -- "${C[@]}" -- sh -c "'$HELPERS/probe' fds | sort -n | tr '\n' ' '"

# --- lifecycle -------------------------------------------------------------
marker="cordon-orphan-$$-$RANDOM"
expect 0 "a command that leaves a background job exits" -- env RUN_MARK="$marker" "${C[@]}" -- bash -c "(exec -a $marker sleep 300) & true"
sleep 0.2
assert "the background job left behind is killed" -- test -z "$(pgrep -f "$marker")"
assert "and the run's guardian is gone" -- no_guardian_left "$marker"

marker="cordon-term-$$-$RANDOM"
env RUN_MARK="$marker" "${C[@]}" --kill-after 1 -- bash -c "trap '' TERM; exec -a $marker sleep 60" &
cpid=$!
sleep 0.5
assert "control: the run's guardian is found by its mark while it runs" -- test -n "$(guardians_of "$marker")"
start=$(date +%s%N)
kill -TERM $cpid
wait $cpid
st=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
assert "SIGTERM to cordon ends a TERM-ignoring sandbox within 2 s (${elapsed} ms)" -- test "$elapsed" -lt 2000
# Every process with the marker in its command line: the command, its
# shell, cordon-inner, bwrap (the guardian names itself cordon-guardian).
assert "and nothing of it survives" -- test -z "$(pgrep -f "$marker")"
assert "nor does its guardian, once cordon has exited" -- no_guardian_left "$marker"
assert "and cordon reports 143 (status $st)" -- test "$st" -eq 143

"${C[@]}" -- sh -c 'trap "echo got-usr1; exit 7" USR1; sleep 30 & wait' > "$W/sig.out" 2>&1 &
cpid=$!
sleep 0.5
kill -USR1 $cpid
wait $cpid
st=$?
assert "SIGUSR1 reaches the command (status $st)" -- test "$st" -eq 7
assert "and the command's handler ran" -- grep -q got-usr1 "$W/sig.out"

# A background job of this (non-interactive) shell starts with SIGINT
# ignored, which cordon would keep ignored (nohup semantics): restore it.
env --default-signal=INT "${C[@]}" -- sh -c 'sleep 30' &
cpid=$!
sleep 0.5
kill -INT $cpid
wait $cpid
st=$?
assert "SIGINT is forwarded and the command dies of it (status $st)" -- test "$st" -eq 130

# --- root gets no more than a user -------------------------------------------
refuse "/proc/sys tunables are not writable" -- "${C[@]}" -- sh -c 'echo 1 > /proc/sys/kernel/sysrq'
refuse "/proc/sysrq-trigger is not writable" -- "${C[@]}" -- sh -c 'echo h > /proc/sysrq-trigger'
expect 0 "no file under /proc (outside processes) opens for writing" -- "${C[@]}" -- "$HELPERS/probe" procwrite
refuse "/sys is read-only" -- "${C[@]}" -- sh -c 'echo 1 > /sys/kernel/profiling'

# --- bwrap discovery ---------------------------------------------------------
cp /usr/bin/bwrap "$ws/bwrap"
expect_err 125 "inside the writable root" "a bwrap inside a writable root is refused" -- \
	env CORDON_BWRAP="$ws/bwrap" "${C[@]}" -- true
expect_err 125 "not owned by root|writable by others|directory above" "a bwrap the user could replace is refused" -- \
	env CORDON_BWRAP="$ws/bwrap" "$CORDON" -C / -- true
expect 0 "control: CORDON_BWRAP=/usr/bin/bwrap is accepted" -- env CORDON_BWRAP=/usr/bin/bwrap "${C[@]}" -- true
if [ -n "${FAKE_BWRAP-}" ]; then
	expect_err 125 "^cordon: bwrap could not build the sandbox" "a bwrap that fails gives 125 and says so" -- \
		env CORDON_BWRAP="$FAKE_BWRAP" "${C[@]}" -- true
	assert "with bwrap's own message first and nothing else" -- \
		sh -c "test \$(wc -l < '$ERR') -eq 2 && head -n1 '$ERR' | grep -q '^bwrap: No permissions'"
	assert "and nothing of the run is left in the workspace" -- test ! -e "$ws/.codex"
else
	echo "  skip [$WHO] failing-bwrap test: only the root run of run.sh can plant a root-owned fake bwrap"
fi

# --- doctor's own children ---------------------------------------------------
# bwrap --version read through a pipe (launch/child.h), and a whole run of
# `true` in a forked copy of cordon (launch/forkcall.h).
"$CORDON" doctor >"$W/doctor" 2>&1 </dev/null
assert "doctor reads bwrap's version from bwrap --version" -- \
	grep -Eq '^bwrap: ok, /.*bwrap \(bubblewrap [0-9]' "$W/doctor"
assert "doctor's trial run of true in a real sandbox succeeds" -- \
	grep -q '^sandbox: ok, a trial run of `true` succeeded in [0-9]* ms$' "$W/doctor"

# --- leaks (sanitizer builds) -------------------------------------------------
if [ -n "${CORDON_SANITIZED-}" ]; then
	expect 0 "a full run of cordon leaks nothing (LeakSanitizer)" -- "${C[@]}" -- sh -c 'echo x > f'
	assert "and LeakSanitizer reported nothing" -- sh -c "! grep -q Sanitizer '$ERR'"
	expect 3 "a failing command leaks nothing either" -- "${C[@]}" -- sh -c 'exit 3'
	expect 125 "a refused run leaks nothing either" -- "$CORDON" -w "$W/nope" -- true
	assert "and LeakSanitizer reported nothing" -- sh -c "! grep -q Sanitizer '$ERR'"
else
	echo "  skip [$WHO] leak checks: not a sanitizer build (make check-asan runs them)"
fi

finish

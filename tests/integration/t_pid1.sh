#!/usr/bin/env bash
# t_pid1.sh: cordon-inner (PID 1) out of the command's reach, and the root
# caller on a host without Landlock.  run.sh runs this file with Landlock and
# again without it (CORDON_NO_LANDLOCK=1), where only PID 1's own protection
# (non-dumpable, its own seccomp filter) stands between the command and it.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
P="$HELPERS/pid1probe"
C=("$CORDON" -w "$ws" -C "$ws")
: "${CORDON_BIN:?CORDON_BIN must name the cordon binary itself}"

# --- PID 1 -----------------------------------------------------------------
# --full-write gives Landlock's write access everywhere, so that the control
# (the same write into the command's own child) works in both passes.
for how in mem attach seize vmwrite; do
	expect_out 1 '^(EACCES|EPERM)$' "$how into PID 1 (cordon-inner) fails" -- \
		"${C[@]}" --full-write -- "$P" "$how" 1
done
expect_out 0 '^ok$' "control: writing a child's memory through /proc/PID/mem works in the sandbox" -- \
	"${C[@]}" --full-write -- "$P" mem child
for how in attach seize vmwrite; do
	expect_out 0 '^ok$' "control: $how into a child of the probe works outside the sandbox" -- \
		"$P" "$how" child
done
for f in environ fd/0 fd/1 maps; do
	expect_out 1 '^(EACCES|EPERM)$' "/proc/1/$f is unreadable from the command" -- \
		"${C[@]}" -- "$P" open "/proc/1/$f"
done
# PID 1's descriptors (the control socket to cordon among them) stay its own:
# not one of its /proc/1/fd links resolves for the command.
expect_out 0 '^0$' "no descriptor of PID 1 resolves through /proc/1/fd" -- \
	"${C[@]}" -- sh -c 'n=0; for f in /proc/1/fd/*; do readlink "$f" >/dev/null 2>&1 && n=$((n+1)); done; echo $n'
expect_out 0 '^[1-9]' "control: the command's own /proc/self/fd links resolve" -- \
	"${C[@]}" -- sh -c 'n=0; for f in /proc/self/fd/*; do readlink "$f" >/dev/null 2>&1 && n=$((n+1)); done; echo $n'
expect_out 0 '^ok$' "control: the command reads its own /proc/self/environ" -- \
	"${C[@]}" -- "$P" open /proc/self/environ
expect_out 0 '^ok$' "PID 1 runs under a seccomp filter with no_new_privs" -- \
	"${C[@]}" -- sh -c 'grep -q "^Seccomp:[[:space:]]*2" /proc/1/status &&
		grep -q "^NoNewPrivs:[[:space:]]*1" /proc/1/status && echo ok'
# The command's descriptors are its own: none of PID 1's (the control socket
# to cordon, its signalfd) crossed into it.
expect_out 0 '^0 1 2 $' "the command holds only descriptors 0-2" -- \
	"${C[@]}" -- sh -c 'for f in /proc/self/fd/*; do n=${f##*/}; [ -e "$f" ] && printf "%s " "$n"; done; echo'
expect_out 0 '^ok$' "control: under PID 1's filter, the command's processes still signal and reap" -- \
	"${C[@]}" -- sh -c 'sleep 5 & kill -TERM $!; wait $!; [ $? -eq 143 ] && echo ok'
expect 7 "control: PID 1 passes on the command's exit status" -- "${C[@]}" -- sh -c 'exit 7'
# PID 1 ends the sandbox on signal 40 (WIRE_END_SIGNAL) from cordon only:
# the command's own (delivered without Landlock; refused with its signal
# scope) changes nothing.  The control is cordon's, through --timeout.
expect_out 0 '^alive$' "the command cannot make PID 1 end the sandbox (kill -40 1)" -- \
	"${C[@]}" -- sh -c 'kill -40 1 2>/dev/null; kill -40 -1 2>/dev/null; sleep 0.3; echo alive'
expect 124 "control: cordon ends it so (--timeout, past --kill-after)" -- \
	"${C[@]}" --timeout 1 --kill-after 1 -- sh -c 'trap "" TERM; sleep 30'

# --- a root caller without Landlock -----------------------------------------
NL=("$HELPERS/nolandlock" "$CORDON_BIN" -w "$ws" -C "$ws")
if is_root; then
	expect_err 125 'allow-no-landlock' "root without Landlock is refused by default" -- "${NL[@]}" -- true
	assert "and the message says what is lost" -- grep -q 'read-only mounts alone' "$ERR"
	expect 0 "root with --allow-no-landlock runs without Landlock" -- \
		"$HELPERS/nolandlock" "$CORDON_BIN" --allow-no-landlock -w "$ws" -C "$ws" -- true
else
	expect 0 "a user without Landlock runs by default" -- "${NL[@]}" -- true
fi
expect_err 125 'require-landlock' "--require-landlock refuses without Landlock" -- \
	"${NL[@]}" --require-landlock -- true
expect_err 125 'contradict' "--require-landlock and --allow-no-landlock together are refused" -- \
	"$CORDON_BIN" --require-landlock --allow-no-landlock -- true
if [ -z "${CORDON_NO_LANDLOCK-}" ]; then
	expect 0 "control: with Landlock the same caller runs by default" -- "$CORDON_BIN" -w "$ws" -C "$ws" -- true
fi
"$HELPERS/nolandlock" "$CORDON_BIN" doctor > "$W/doctor.out" 2>&1
assert "doctor without Landlock lists what is lost and what still holds" -- \
	sh -c "grep -q 'ABI 0' '$W/doctor.out' && grep -q 'lost:' '$W/doctor.out' &&
	       grep -q 'still enforced:' '$W/doctor.out' && ! grep -q 'mounts alone confine writes;' '$W/doctor.out'"

finish

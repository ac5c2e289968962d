#!/usr/bin/env bash
# t_review.sh: escapes an attacker's review of the installed cordon found
# after issue 9, each tried as a prompt-injected command would, with the
# control that shows the same action works where it is allowed.  Runs as
# root and as a user, with and without Landlock (run.sh); the assertions
# look at the host, so they hold whichever layer stops the attempt.
. "$(dirname "$0")/lib.sh"

# --- a read-only path deeper than a root's top level stays where it is ----------
# The git directory a .git file names, the core.hooksPath directory and a
# --read-only path were read-only, but the command could rename a directory
# above them (the mount goes along), recreate the path and plant a hook the
# host's git then ran.
g="$W/g"
mkdir -p "$g/sub/dir/real.git/hooks" "$g/tools/hooks" "$g/conf/deep/keep"
printf 'gitdir: sub/dir/real.git\n' > "$g/.git"
printf '[core]\n\thooksPath = tools/hooks\n' > "$g/sub/dir/real.git/config"
G=("$CORDON" -w "$g" -C "$g")
refuse "the directory above a .git file's git directory cannot be renamed" -- \
	"${G[@]}" -- sh -c 'mv sub sub2 && mkdir -p sub/dir/real.git/hooks && echo "#!/bin/sh" > sub/dir/real.git/hooks/pre-commit'
assert "the git directory is still where the .git file says, without a hook" -- \
	test -f "$g/sub/dir/real.git/config" -a ! -e "$g/sub/dir/real.git/hooks/pre-commit" -a ! -e "$g/sub2"
refuse "nor the one two levels up" -- \
	"${G[@]}" -- sh -c 'mv sub/dir sub/dir2 && mkdir -p sub/dir/real.git/hooks && echo "#!/bin/sh" > sub/dir/real.git/hooks/pre-commit'
assert "the git directory's parent is still in place" -- test ! -e "$g/sub/dir2" -a -f "$g/sub/dir/real.git/config"
refuse "the directory above core.hooksPath cannot be renamed" -- \
	"${G[@]}" -- sh -c 'mv tools tools2 && mkdir -p tools/hooks && echo "#!/bin/sh" > tools/hooks/pre-commit'
assert "no hook arrived at the core.hooksPath path" -- test ! -e "$g/tools/hooks/pre-commit" -a ! -e "$g/tools2"
refuse "nor removed with what is in it" -- "${G[@]}" -- sh -c 'rmdir tools/hooks; rm -rf tools; mkdir -p tools/hooks && echo x > tools/hooks/pre-commit'
assert "core.hooksPath is untouched" -- test -d "$g/tools/hooks" -a ! -e "$g/tools/hooks/pre-commit"
refuse "the directory above a --read-only path cannot be renamed" -- \
	"${G[@]}" --read-only "$g/conf/deep/keep" -- sh -c 'mv conf conf2 && mkdir -p conf/deep/keep && echo x > conf/deep/keep/f'
assert "the --read-only path holds no planted file" -- test ! -e "$g/conf/deep/keep/f" -a ! -e "$g/conf2"
# With --full-write the directories up to / are kept in place: outside /tmp,
# which stays private.
fwd=$(mktemp -d "$HOME/cordon-review.XXXXXX")
cleanup_dirs+=("$fwd")
mkdir -p "$fwd/conf/deep/keep"
refuse "with --full-write too" -- \
	"$CORDON" --full-write --read-only "$fwd/conf/deep/keep" -C "$fwd" -- sh -c 'mv conf/deep conf/deep2 && mkdir -p conf/deep/keep && echo x > conf/deep/keep/f'
assert "the --read-only path under --full-write holds no planted file" -- test ! -e "$fwd/conf/deep/keep/f" -a ! -e "$fwd/conf/deep2"
expect 0 "control: under --full-write the rest stays writable" -- \
	"$CORDON" --full-write --read-only "$fwd/conf/deep/keep" -C "$fwd" -- sh -c 'echo x > conf/deep/note'
expect 0 "control: the directories kept in place stay writable inside" -- \
	"${G[@]}" -- sh -c 'echo x > sub/note && echo x > tools/note && mkdir sub/other && mv sub/other sub/other2'
assert "control: the writes landed" -- test -f "$g/sub/note" -a -f "$g/tools/note" -a -d "$g/sub/other2"
expect 0 "control: other directories of the root can still be renamed" -- \
	"${G[@]}" -- sh -c 'mkdir -p free/x && mv free free2'
assert "control: the rename landed" -- test -d "$g/free2/x"

# --- a git path reached through a link inside a writable root ------------------
# The host's git follows the name in the .git file or the config; a link on
# the way lies in the writable root, so the command could point it at a
# directory of its own (as root even a root-owned link).  Refused at start.
l="$W/l"
mkdir -p "$l/sub/real.git/hooks" "$l/t/hooks"
ln -s sub "$l/link"
ln -s t "$l/hl"
printf 'gitdir: link/real.git\n' > "$l/.git"
L=("$CORDON" -w "$l" -C "$l")
expect 125 "a .git file whose gitdir goes through a link in the root is refused" -- \
	"${L[@]}" -- sh -c 'rm link && mkdir -p evil/real.git/hooks && ln -s evil link && echo x > evil/real.git/hooks/pre-commit'
assert "the link still leads to the real git directory" -- test "$(readlink "$l/link")" = sub -a ! -e "$l/evil"
printf 'gitdir: %s/real.git\n' "$W/l-alias/sub" > "$l/.git"
ln -s "$l" "$W/l-alias"
expect 125 "a gitdir led into the root by a link outside it is refused too" -- "${L[@]}" -- true
printf 'gitdir: sub/real.git\n' > "$l/.git"
printf '[core]\n\thooksPath = hl/hooks\n' > "$l/sub/real.git/config"
expect 125 "a core.hooksPath that goes through a link in the root is refused" -- \
	"${L[@]}" -- sh -c 'rm hl && mkdir -p h2/hooks && ln -s h2 hl && echo x > h2/hooks/pre-commit'
assert "the hooks link is untouched" -- test "$(readlink "$l/hl")" = t -a ! -e "$l/h2"
printf '[core]\n\thooksPath = t/hooks\n' > "$l/sub/real.git/config"
expect 0 "control: the same repository named without links runs" -- \
	"${L[@]}" -- sh -c 'echo x > note'
refuse "control: and its hooks stay read-only" -- "${L[@]}" -- sh -c 'echo x > t/hooks/pre-commit'

# --- named pipes on the host ------------------------------------------------
# A read-only mount does not stop a write to a FIFO (as root, systemd's
# /run/initctl takes runlevel requests): Landlock does, and without it
# cordon doctor says so.  A reader on the host waits on a FIFO outside every
# root; the host end is released by a write of nothing afterwards.
f="$W/hostfifo"
mkfifo -m 600 "$f"
mkdir -p "$W/fw"
mkfifo -m 600 "$W/fw/fifo"
read_fifo() { timeout 20 cat "$1" > "$1.got" & }
if [ -z "${CORDON_NO_LANDLOCK:-}" ]; then
	read_fifo "$f"
	refuse "writing to a host FIFO outside the writable roots fails" -- \
		"$CORDON" -- sh -c "echo planted > '$f'"
	: > "$f"
	wait
	assert "the host's reader got nothing" -- test ! -s "$f.got"
else
	# doctor exits 1 for root here: it would refuse to run without --allow-no-landlock.
	want=0
	is_root && want=1
	expect_out "$want" 'named pipes' "without Landlock, cordon doctor says host FIFOs stay writable" -- \
		"$CORDON" doctor
fi
read_fifo "$W/fw/fifo"
expect 0 "control: a FIFO inside a writable root can be written" -- \
	"$CORDON" -w "$W/fw" -- sh -c "echo sent > '$W/fw/fifo'"
wait
assert "control: the host's reader got it" -- grep -qx sent "$W/fw/fifo.got"

# --- the caller's inotify instances ---------------------------------------------
# The per-user inotify counts are charged up to the caller's own user
# namespace: a command that opened them all left none to the caller's other
# processes (an editor's watcher, a concurrent cordon run's watch) while it
# ran.  The command takes what it can and holds it until the host has looked.
iw="$W/iw"
mkdir -p "$iw"
mkfifo "$iw/go"
cat > "$iw/hold.py" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < 1000000 and libc.inotify_init1(0) >= 0:
    n += 1
open(sys.argv[1] + "/count.tmp", "w").write(str(n))
import os
os.rename(sys.argv[1] + "/count.tmp", sys.argv[1] + "/count")
open(sys.argv[1] + "/go").read()
PY
"$CORDON" -w "$iw" -- python3 "$iw/hold.py" "$iw" >"$W/iw.out" 2>&1 &
ipid=$!
for _ in $(seq 1 500); do [ -e "$iw/count" ] && break; kill -0 "$ipid" 2>/dev/null || break; sleep 0.02; done
limit=$(cat /proc/sys/user/max_inotify_instances)
got=$(cat "$iw/count" 2>/dev/null || echo 0)
assert "the caller can still open an inotify instance while the command holds all it can" -- \
	python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).inotify_init1(0) < 0)'
echo > "$iw/go"
wait "$ipid"
assert "the command got at most its budget, an eighth of the caller's limit ($got of $limit)" -- \
	test "$got" -le $((limit / 8))
assert "control: the command can open inotify instances ($got)" -- test "$got" -ge 1

# fanotify needs no privilege since Linux 5.13 and is counted the same way.
if [ -e /proc/sys/user/max_fanotify_groups ]; then
	fg="$W/fan-groups"
	mkdir -p "$fg"
	mkfifo "$fg/go"
	sed -e 's/libc.inotify_init1(0)/libc.fanotify_init(0x200, 0)/' "$iw/hold.py" > "$fg/hold.py"
	"$CORDON" -w "$fg" -- python3 "$fg/hold.py" "$fg" >"$W/fg.out" 2>&1 &
	gpid=$!
	for _ in $(seq 1 500); do [ -e "$fg/count" ] && break; kill -0 "$gpid" 2>/dev/null || break; sleep 0.02; done
	limit=$(cat /proc/sys/user/max_fanotify_groups)
	got=$(cat "$fg/count" 2>/dev/null || echo 0)
	assert "the caller can still make a fanotify group while the command holds all it can" -- \
		python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).fanotify_init(0x200, 0) < 0)'
	echo > "$fg/go"
	wait "$gpid"
	assert "the command got at most an eighth of the caller's fanotify groups ($got of $limit)" -- \
		test "$got" -le $((limit / 8))
	assert "control: the command can make fanotify groups ($got)" -- test "$got" -ge 1
fi

# --- the caller's pending signals and message queue bytes ---------------------
# Counted per user up to the caller's own user namespace like inotify's: a
# command that queued signals (or made message queues) until refused left
# the caller's other processes none (sigqueue: EAGAIN) while it ran.  The
# sandbox gets a budget of each: an eighth of the caller's limit, at most
# 1024 signals and 100 KiB of queues (plan/shared_counts.h).
hold_share() {  # hold_share KIND CHECK DESCRIPTION...: the command takes all it can of KIND
	local kind=$1 check=$2 what=$3 d="$W/share-$1"
	mkdir -p "$d"
	mkfifo "$d/go"
	"$CORDON" -w "$d" -- "$HELPERS/probe" "${kind}fill" "$d" >"$W/share-$kind.out" 2>&1 &
	local pid=$!
	for _ in $(seq 1 500); do [ -e "$d/count" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	got=$(cat "$d/count" 2>/dev/null || echo 0)
	assert "the caller can still $what while the command holds all it can" -- $check
	echo > "$d/go"
	wait "$pid"
}
limit=$(bash -c 'ulimit -i')
hold_share sig "$HELPERS/probe sigq" "queue a real-time signal"
assert "the command queued at most its budget of pending signals ($got of $limit)" -- \
	test "$got" -le $((limit / 8)) -a "$got" -le 1024
assert "control: the command can queue signals ($got)" -- test "$got" -ge 1
# Landlock refuses opening a queue (its internal mount lies beneath no
# allowed path), so the queues are the layer-alone case: the no-Landlock pass.
limit=$(bash -c 'ulimit -q')
hold_share mq "$HELPERS/probe mqone cordon-review-$$" "create a message queue"
assert "the command's queues took at most its budget of message queue bytes ($got of $limit)" -- \
	test "$got" -le $((limit / 8)) -a "$got" -le 102400
if [ "${CORDON_NO_LANDLOCK:-0}" = 1 ]; then
	assert "control: the command can create message queues ($got bytes)" -- test "$got" -ge 1
else
	assert "with Landlock the command cannot open a message queue at all ($got bytes)" -- test "$got" -eq 0
fi

finish

#!/usr/bin/env bash
# t_registry.sh: protected names missing from a writable root (issue 3):
# they cannot be created from inside the sandbox, and the empty directories
# cordon mounts over them never outlive the run: clean exit, kill -9 of
# cordon (its guardian cleans up), kill -9 of cordon and guardian (the next
# run or `cordon reclaim` does), concurrent runs, planted objects that must
# never be touched, git discovery around them, and --tmp host.
. "$(dirname "$0")/lib.sh"

# These tests are about mount mode: every run passes --protect-missing mount
# (watch mode, the default, is t_watch.sh's).

NAMES=(.git .codex .agents .aws)
REG="${XDG_STATE_HOME:-$HOME/.local/state}/cordon/registry"
mkdir -p "$W/xdg"
ISO="$W/xdg/state"                  # an isolated registry for the leak tests
ISOREG="$ISO/cordon/registry"
GIT=(git -c user.name=cordon -c user.email=cordon@example.invalid -c init.defaultBranch=main)

skip() { echo "  skip [$WHO] $*"; }

# none_left DIR: no protected name in DIR.
none_left() {
	local n
	for n in "${NAMES[@]}"; do
		if [ -e "$1/$n" ] || [ -L "$1/$n" ]; then return 1; fi
	done
	return 0
}
# all_there DIR: every protected name in DIR, as a directory.
all_there() {
	local n
	for n in "${NAMES[@]}"; do [ -d "$1/$n" ] || return 1; done
	return 0
}
snap() { ls -A "$1" | sort | tr '\n' ' '; }

# within MS COMMAND...: retry COMMAND every 20 ms for up to MS ms; sets ELAPSED.
within() {
	local ms=$1 t0
	shift
	t0=$(date +%s%N)
	while :; do
		if "$@"; then
			ELAPSED=$(( ($(date +%s%N) - t0) / 1000000 ))
			return 0
		fi
		ELAPSED=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ "$ELAPSED" -ge "$ms" ] && return 1
		sleep 0.02
	done
}

# A sandboxed command that can be found from the host: its argv[0] is MARK.
running() { pgrep -f "^$1 300\$" >/dev/null; }
not_running() { ! running "$1"; }

# start_run MARK CORDON-ARGS...: cordon in the background running a command
# named MARK; waits until that command runs.  Sets CPID.
start_run() {
	local mark=$1
	shift
	"$CORDON" --protect-missing mount "$@" -- bash -c "exec -a $mark sleep 300" </dev/null >/dev/null 2>&1 &
	CPID=$!
	within 5000 running "$mark"
}

# guardian_of PID [REGISTRY]: the guardian pid in cordon PID's record.
guardian_of() {
	local f
	for f in "${2:-$REG}"/run-*-"$1"-*; do
		[ -f "$f" ] && awk '$1 == "guardian" { print $2 }' "$f"
	done
}

# leak WS [CORDON-ARGS...]: a run over WS whose cordon and guardian are both
# killed -9 (in the isolated registry), so its mount points stay behind.
leak() {
	local ws=$1 mark="cordon-leak-$$-$RANDOM" g
	shift
	XDG_STATE_HOME="$ISO" start_run "$mark" -w "$ws" -C "$ws" "$@" || return 1
	g=$(guardian_of "$CPID" "$ISOREG")
	[ -n "$g" ] || return 1
	kill -9 "$g" "$CPID"
	wait "$CPID" 2>/dev/null
	within 3000 not_running "$mark"
}

# --- the names cannot be created from inside ------------------------------
ws="$W/ops"
mkdir -p "$ws"
C=("$CORDON" --protect-missing mount -w "$ws" -C "$ws")
for n in "${NAMES[@]}"; do
	refuse "mkdir $n fails" -- "${C[@]}" -- mkdir "$n"
	refuse "open(O_CREAT) of $n fails" -- "${C[@]}" -- sh -c "echo x > $n"
	refuse "symlink onto $n fails" -- "${C[@]}" -- ln -sT /etc "$n"
	refuse "rename of a directory onto $n fails" -- "${C[@]}" -- sh -c "mkdir d$n && mv -T d$n $n"
	refuse "rename of a file onto $n fails" -- "${C[@]}" -- sh -c "touch f$n && mv -T f$n $n"
	refuse "hard link onto $n fails" -- "${C[@]}" -- sh -c "touch h$n && ln -T h$n $n"
	refuse "creating a file inside $n fails" -- "${C[@]}" -- sh -c "echo x > $n/config"
	refuse "removing $n (to create it afresh) fails" -- "${C[@]}" -- sh -c "rmdir $n || mv $n gone$n"
	rm -rf "$ws/d$n" "$ws/f$n" "$ws/h$n"
done
expect 0 "control: mkdir of a sibling name works" -- "${C[@]}" -- mkdir sib1
expect 0 "control: open(O_CREAT) of a sibling name works" -- "${C[@]}" -- sh -c 'echo x > sib2'
expect 0 "control: a symlink at a sibling name works" -- "${C[@]}" -- ln -sT /etc sib3
expect 0 "control: renaming a directory onto an empty sibling directory works" -- \
	"${C[@]}" -- sh -c 'mkdir d sib4 && mv -T d sib4'
expect 0 "control: a hard link at a sibling name works" -- "${C[@]}" -- sh -c 'touch h && ln -T h sib5'
expect 0 "control: a file inside a sibling directory works, and removing it" -- \
	"${C[@]}" -- sh -c 'echo x > sib1/config && mkdir gone && rmdir gone'
assert "the siblings are on the host" -- \
	test -f "$ws/sib1/config" -a -f "$ws/sib2" -a -L "$ws/sib3" -a -d "$ws/sib4" -a ! -e "$ws/d" -a -f "$ws/sib5"
assert "no protected name was created on the host" -- none_left "$ws"
assert "no stray directory either" -- test ! -e "$ws/gone.git" -a ! -e "$ws/d.git"
rm -rf "$ws"/sib* "$ws/h"
expect 0 "control: --no-default-protect leaves the names creatable" -- \
	"${C[@]}" --no-default-protect -- sh -c 'mkdir .git && rmdir .git'

# --- the record, and a clean exit ------------------------------------------------
ws="$W/clean/ws"
mkdir -p "$ws"
before_ws=$(snap "$ws")
before_parent=$(snap "$W/clean")
mark="cordon-clean-$$-$RANDOM"
start_run "$mark" -w "$ws" -C "$ws"
assert "the names exist on the host during the run" -- all_there "$ws"
rec=$(ls "$REG"/run-*-"$CPID"-* 2>/dev/null | head -n 1)
assert "the run has a record in the registry" -- test -f "$rec"
assert "the registry is mode 0700 and the user's" -- test "$(stat -c '%a %u' "$REG")" = "700 $(id -u)"
assert "the record names this boot" -- grep -qx "boot $(cat /proc/sys/kernel/random/boot_id)" "$rec"
assert "the record names cordon's pid and start time" -- \
	grep -qx "owner $CPID $(awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[20] }' /proc/$CPID/stat)" "$rec"
ok_ids=1
for n in "${NAMES[@]}"; do
	grep -qx "created $(stat -c '%d %i' "$ws/$n") $ws/$n" "$rec" || ok_ids=0
done
assert "the record holds each created path with its (dev, ino)" -- test "$ok_ids" -eq 1
g=$(guardian_of "$CPID")
assert "the guardian is named cordon-guardian" -- test "$(cat /proc/"$g"/comm 2>/dev/null)" = cordon-guardian
assert "and so is its command line (not cordon's, which names the command)" -- \
	test "$(tr -s '\0' ' ' </proc/"$g"/cmdline 2>/dev/null)" = "cordon-guardian "
assert "the guardian is in a session of its own" -- \
	test "$(ps -o sid= -p "$g" | tr -d ' ')" = "$(ps -o pgid= -p "$g" | tr -d ' ')" -a \
	     "$(ps -o sid= -p "$g" | tr -d ' ')" != "$(ps -o sid= -p "$CPID" | tr -d ' ')"
assert "the guardian holds no descriptor of the workspace or the agent" -- \
	test -z "$(ls -l /proc/"$g"/fd 2>/dev/null | grep -E "$W|pipe:|pts|tty")"
pkill -f "^$mark 300\$"
wait "$CPID"
assert "after a clean exit nothing is left in the workspace" -- test "$(snap "$ws")" = "$before_ws"
assert "nor in its parent" -- test "$(snap "$W/clean")" = "$before_parent"
assert "the record is gone" -- test ! -e "$rec"
assert "the guardian is gone" -- within 2000 sh -c "! kill -0 $g 2>/dev/null || grep -q '^State:.*Z' /proc/$g/status"
expect 0 "a run with nothing to materialize works" -- env XDG_STATE_HOME="$W/xdg/quiet" "$CORDON" --protect-missing mount -C / -- true
assert "and writes no record" -- test "$(ls "$W/xdg/quiet/cordon/registry")" = lock

# A mount point that cannot be created fails the run after bwrap has its
# plan (it waits, unreleased): bwrap is ended, nothing ran, nothing is left.
if ! is_root; then
	mkdir -p "$W/ro-root" "$W/ro-out" && chmod 555 "$W/ro-root"
	marker="cordon-unbuilt-$$"
	expect_err 125 "cannot create $W/ro-root/\\.git" \
		"a writable root the user cannot create the mount points in is refused" -- \
		env XDG_STATE_HOME="$W/xdg/ro" RUN_MARK="$marker" "$CORDON" --protect-missing mount -w "$W/ro-root" -w "$W/ro-out" -C / -- \
		sh -c "touch $W/ro-out/ran; sleep 30 # $marker"
	assert "and the command never ran" -- test ! -e "$W/ro-out/ran"
	assert "nor is any process of the run left" -- test -z "$(pgrep -f "$marker")"
	assert "nor its guardian" -- no_guardian_left "$marker"
	assert "and no record is left" -- test "$(ls "$W/xdg/ro/cordon/registry")" = lock
	chmod 755 "$W/ro-root"
	assert "and nothing was created" -- none_left "$W/ro-root"
fi

# --- the registry is never writable inside ------------------------------------
mkdir -p "$W/carve/ws"
XC=(env XDG_STATE_HOME="$W/carve/state" "$CORDON" --protect-missing mount -w "$W/carve" -C "$W/carve/ws")
expect 0 "a run with its registry inside the writable root works" -- "${XC[@]}" -- true
creg="$W/carve/state/cordon/registry"
refuse "the registry is read-only inside even under a writable root" -- "${XC[@]}" -- touch "$creg/planted"
refuse "its lock file cannot be removed" -- "${XC[@]}" -- rm -f "$creg/lock"
refuse "the registry cannot be renamed away" -- "${XC[@]}" -- mv "$creg" "$creg.away"
expect 0 "control: its parent is writable" -- "${XC[@]}" -- sh -c "touch '$W/carve/state/cordon/x' && rm '$W/carve/state/cordon/x'"
assert "nothing was planted" -- test ! -e "$creg/planted" -a -e "$creg/lock" -a -d "$creg"
home_names() { local n; for n in "${NAMES[@]}"; do [ -e "$HOME/$n" ] && printf '%s ' "$n"; done; }
home_before=$(home_names)
refuse "with -w HOME the default registry is read-only too" -- "$CORDON" --protect-missing mount -w "$HOME" -C / -- touch "$REG/planted"
assert "nothing was planted in the default registry" -- test ! -e "$REG/planted"
assert "HOME holds the same protected names as before the run" -- test "$(home_names)" = "$home_before"
ln -s "$W/carve/state" "$W/carve/link"
expect_err 125 "symbolic link" "a registry reached through a symbolic link is refused" -- \
	env XDG_STATE_HOME="$W/carve/link" "$CORDON" --protect-missing mount -w "$W/carve/ws" -C "$W/carve/ws" -- true
expect_err 125 "symbolic link" "and cordon reclaim refuses it too" -- \
	env XDG_STATE_HOME="$W/carve/link" "$CORDON" reclaim
chmod 777 "$W/carve"
expect_err 125 "writable by everyone" "a registry below a directory anyone can change is refused" -- \
	env XDG_STATE_HOME="$W/carve/state" "$CORDON" --protect-missing mount -C / -- true
chmod 755 "$W/carve"
# A registry that exists but cannot be used fails every run, even one with
# nothing to materialize: its sweep and carve-out would be skipped.
mkdir -p "$W/badlock/cordon/registry/lock"
expect_err 125 "lock file" "a registry whose lock cannot be opened is refused, even with nothing to materialize" -- \
	env XDG_STATE_HOME="$W/badlock" "$CORDON" --protect-missing mount -C / -- true
expect 0 "control: a registry that does not exist (and cannot be created) is no obstacle then" -- \
	env XDG_STATE_HOME="/nonexistent-$$/state" "$CORDON" --protect-missing mount -C / -- true
expect_err 125 "does not exist" "but it is, as soon as a name must be materialized" -- \
	env XDG_STATE_HOME="/nonexistent-$$/state" "$CORDON" --protect-missing mount -w "$W/carve/ws" -C / -- true

# --- kill -9 of cordon -------------------------------------------------------------
kill9_case() { # DESC KILL-TARGET-KIND
	local desc=$1 how=$2
	local ws="$W/k-$how/ws" mark="cordon-k9-$$-$RANDOM"
	mkdir -p "$ws"
	local bws bparent
	bws=$(snap "$ws")
	bparent=$(snap "$W/k-$how")
	if [ "$how" = group ]; then
		# setsid: cordon leads a process group of its own, as under a shell
		# with job control; the whole group is killed.
		setsid "$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- bash -c "exec -a $mark sleep 300" </dev/null >/dev/null 2>&1 &
		CPID=$!
		within 5000 running "$mark"
	else
		start_run "$mark" -w "$ws" -C "$ws"
	fi
	assert "$desc: the names exist during the run" -- all_there "$ws"
	if [ "$how" = group ]; then
		local pg
		pg=$(ps -o pgid= -p "$CPID" | tr -d ' ')
		if [ "$pg" != "$CPID" ] || [ "$pg" = "$(ps -o pgid= -p $$ | tr -d ' ')" ]; then
			bad "$desc: cordon did not get a process group of its own (pgid $pg)"
			kill -9 "$CPID"
		else
			kill -9 -- "-$pg"
		fi
	else
		kill -9 "$CPID"
	fi
	wait "$CPID" 2>/dev/null
	gone() { [ "$(snap "$ws")" = "$bws" ] && [ "$(snap "$W/k-$how")" = "$bparent" ]; }
	if within 2000 gone; then
		ok "$desc: nothing new in the workspace or its parent within 2 s ($ELAPSED ms)"
	else
		bad "$desc: after 2 s the workspace holds: $(snap "$ws")"
	fi
	assert "$desc: the sandbox is gone" -- within 2000 not_running "$mark"
}
kill9_case "kill -9 of cordon" pid
kill9_case "kill -9 of cordon's process group" group

# --- kill -9 of cordon and its guardian, then the next run or reclaim -------------
ws="$W/leak1/ws"
mkdir -p "$ws"
assert "a run whose cordon and guardian are killed -9 ends" -- leak "$ws"
assert "its mount points stay behind (the case to reclaim)" -- all_there "$ws"
expect 0 "the next run, over no writable root at all, works" -- env XDG_STATE_HOME="$ISO" "$CORDON" --protect-missing mount -C / -- true
assert "and has reclaimed them" -- none_left "$ws"
assert "and the dead run's record" -- test -z "$(ls "$ISOREG" | grep '^run-')"

assert "another leaked run" -- leak "$ws"
assert "left its mount points" -- all_there "$ws"
expect_out 0 "^removed $ws/.git\$" "cordon reclaim removes them and says so" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
for n in "${NAMES[@]}"; do grep -qx "removed $ws/$n" "$OUT" || bad "reclaim did not report $ws/$n"; done
assert "nothing is left" -- none_left "$ws"
expect 0 "a second reclaim succeeds" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
assert "and has nothing to report" -- test ! -s "$OUT"

# --- planted objects are never touched ------------------------------------------
ws="$W/plant/ws"
mkdir -p "$ws"
assert "a leaked run to plant over" -- leak "$ws"
rmdir "$ws/.git" && "${GIT[@]}" init -q "$ws" && "${GIT[@]}" -C "$ws" commit -q --allow-empty -m planted
echo 'x = 1' > "$ws/.codex/config.toml"
mkdir "$ws/aws2" && rmdir "$ws/.aws" && mv "$ws/aws2" "$ws/.aws"
expect 0 "cordon reclaim over planted objects succeeds" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
# The new .git may even reuse the freed inode number: then it is kept
# because it is not empty.
assert "it reports the real repository as kept" -- \
	grep -Eqx "kept $ws/\.git: (not cordon's: it was replaced since|not empty)" "$OUT"
assert "it reports the non-empty directory as kept" -- grep -qx "kept $ws/.codex: not empty" "$OUT"
assert "it reports the recreated directory as kept" -- grep -qx "kept $ws/.aws: not cordon's: it was replaced since" "$OUT"
assert "it removed the untouched one" -- grep -qx "removed $ws/.agents" "$OUT"
assert "the repository is intact" -- "${GIT[@]}" -C "$ws" log -q --oneline -1 -- >/dev/null
assert "the planted file is intact" -- test "$(cat "$ws/.codex/config.toml")" = 'x = 1'
assert "the recreated directory is still there" -- test -d "$ws/.aws"
rm -rf "$ws/.git" "$ws/.codex" "$ws/.aws"

assert "a leaked run to plant a worktree .git file over" -- leak "$ws"
rmdir "$ws/.git" && echo "gitdir: $W/elsewhere/.git/worktrees/ws" > "$ws/.git"
expect 0 "the next run over the same workspace works" -- \
	env XDG_STATE_HOME="$ISO" "$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- true
assert "the worktree .git file is intact" -- test "$(cat "$ws/.git")" = "gitdir: $W/elsewhere/.git/worktrees/ws"
assert "the other leaked names are gone" -- test ! -e "$ws/.codex" -a ! -e "$ws/.agents" -a ! -e "$ws/.aws"
rm -f "$ws/.git"

mark="cordon-live-$$-$RANDOM"
XDG_STATE_HOME="$ISO" start_run "$mark" -w "$ws" -C "$ws"
expect 0 "cordon reclaim during a live run" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
assert "reports the live run's paths as kept" -- grep -qx "kept $ws/.git: its run is still alive" "$OUT"
assert "and does not touch them" -- all_there "$ws"
expect 0 "another run over another root during it" -- env XDG_STATE_HOME="$ISO" "$CORDON" --protect-missing mount -C / -- true
assert "does not touch them either" -- all_there "$ws"
pkill -f "^$mark 300\$"
wait "$CPID"
assert "the live run, once over, leaves nothing" -- none_left "$ws"

# --- concurrent runs over the same workspace ----------------------------------------
concurrent() { # N
	local n=$1 ws="$W/conc$1/ws" i fails=0 pids=()
	mkdir -p "$ws"
	local bws bparent
	bws=$(snap "$ws")
	bparent=$(snap "$W/conc$n")
	for i in $(seq "$n"); do
		# Each run checks, after a random delay (others start and end
		# meanwhile), that .git is still a read-only mount point.
		"$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- sh -c "
			sleep 0.\$(( (\$\$ + $i * 7) % 6 ))
			mkdir .git 2>/dev/null && exit 9
			touch .git/x 2>/dev/null && exit 9
			[ -d .git ] || exit 8
			exit 0" </dev/null >/dev/null 2>&1 &
		pids+=($!)
		[ $((i % 5)) -eq 0 ] && sleep 0.05
	done
	for i in "${pids[@]}"; do wait "$i" || fails=$((fails + 1)); done
	assert "$n concurrent runs all kept .git protected to their end ($fails failed)" -- test "$fails" -eq 0
	# A run whose mount point another sandbox still held at its end (that
	# sandbox's bwrap still exiting) leaves the removal to its guardian,
	# which waits for that sandbox: allow it a bounded moment.
	same_snap() { test "$(snap "$1")" = "$2"; }
	assert "$n concurrent runs leave nothing in the workspace" -- within 3000 same_snap "$ws" "$bws"
	assert "$n concurrent runs leave nothing in its parent" -- test "$(snap "$W/conc$n")" = "$bparent"
}
concurrent 2
concurrent 20

# Another live run's mount points beneath this run's root cannot be removed.
outer="$W/nest"
mkdir -p "$outer/sub"
mark="cordon-nest-$$-$RANDOM"
start_run "$mark" -w "$outer/sub" -C "$outer/sub"
refuse "a run cannot remove another live run's mount point under its root" -- \
	"$CORDON" --protect-missing mount -w "$outer" -C "$outer" -- rmdir sub/.git
expect 0 "control: it can remove a directory of its own there" -- \
	"$CORDON" --protect-missing mount -w "$outer" -C "$outer" -- sh -c 'mkdir sub/mine && rmdir sub/mine'
assert "the other run's mount point is still there" -- test -d "$outer/sub/.git"
pkill -f "^$mark 300\$"
wait "$CPID"
assert "once both are over nothing is left" -- none_left "$outer/sub" 
assert "in either root" -- none_left "$outer"

# --- git discovery around a missing .git ------------------------------------------
# Outside /tmp: the sandbox's private /tmp would hide the parent repository.
vt=$(mktemp -d /var/tmp/cordon-it-git.XXXXXX)
cleanup_dirs+=("$vt")
repo="$vt/parent"
mkdir -p "$repo/sub"
"${GIT[@]}" init -q "$repo" && "${GIT[@]}" -C "$repo" commit -q --allow-empty -m init
expect_out 0 "^$repo\$" "inside: git finds the parent repository past the empty .git" -- \
	"$CORDON" --protect-missing mount -w "$repo/sub" -C "$repo/sub" -- git rev-parse --show-toplevel
mark="cordon-git-$$-$RANDOM"
start_run "$mark" -w "$repo/sub" -C "$repo/sub"
assert "during the run the empty .git is there on the host" -- test -d "$repo/sub/.git"
expect_out 0 "^$repo\$" "outside, during the run, git still finds the parent repository" -- \
	git -C "$repo/sub" rev-parse --show-toplevel
expect 0 "outside, git status in the subdirectory works" -- git -C "$repo/sub" status --short
pkill -f "^$mark 300\$"
wait "$CPID"
assert "afterwards nothing is left" -- none_left "$repo/sub"

# --- --tmp host: nothing of cordon's left in /tmp -------------------------------------
pre=""
for n in "${NAMES[@]}"; do [ -e "/tmp/$n" ] || [ -L "/tmp/$n" ] && pre="$pre /tmp/$n"; done
if [ -n "$pre" ]; then
	skip "--tmp host tests: these exist in /tmp before the test, so nothing can be said about them:$pre"
else
	repo="$W/tr"
	wt="$W/wt"
	mkdir -p "$repo" "$W/plain"
	"${GIT[@]}" init -q "$repo" && "${GIT[@]}" -C "$repo" commit -q --allow-empty -m init &&
		"${GIT[@]}" -C "$repo" worktree add -q "$wt" 2>/dev/null
	expect 0 "--tmp host: git status in a worktree under /tmp works inside" -- \
		"$CORDON" --protect-missing mount --tmp host -C "$wt" -- git status --short
	assert "--tmp host, clean exit: nothing of cordon's in /tmp" -- none_left /tmp
	expect 0 "the worktree works on the host afterwards" -- git -C "$wt" status --short
	expect_err 128 "not a git repository" "a plain directory under /tmp is no repository" -- \
		git -C "$W/plain" rev-parse --git-dir

	mark="cordon-tmp-$$-$RANDOM"
	start_run "$mark" --tmp host -C "$wt"
	assert "--tmp host: during the run /tmp/.git is cordon's mount point" -- test -d /tmp/.git
	expect 0 "the worktree works on the host during the run" -- git -C "$wt" status --short
	kill -9 "$CPID"
	wait "$CPID" 2>/dev/null
	if within 2000 none_left /tmp; then
		ok "--tmp host, kill -9 of cordon: nothing of cordon's in /tmp within 2 s ($ELAPSED ms)"
	else
		bad "--tmp host, kill -9 of cordon: /tmp still holds:$(for n in "${NAMES[@]}"; do [ -e /tmp/$n ] && printf ' %s' $n; done)"
	fi
	expect 0 "the worktree works on the host after the kill" -- git -C "$wt" status --short

	leak "$wt" --tmp host
	assert "--tmp host, cordon and guardian killed: /tmp/.git stays behind" -- test -d /tmp/.git
	expect 0 "the next run reclaims it" -- env XDG_STATE_HOME="$ISO" "$CORDON" --protect-missing mount -C / -- true
	assert "--tmp host: nothing of cordon's is left in /tmp" -- none_left /tmp
	expect 0 "the worktree works on the host" -- git -C "$wt" status --short
	git -C "$repo" worktree remove --force "$wt" 2>/dev/null
fi

# --- records are untrusted, and the registry cannot be moved away -------------------
# A rename works on the parent's entry: every ancestor of the registry below
# a writable root is a mount point inside (EBUSY), so the command can
# neither move the registry away nor plant one of its own in its place.
mkdir -p "$W/carve/sib"
refuse "the registry's parent cannot be renamed away (to plant another registry)" -- "${XC[@]}" -- perl -e 'rename($ARGV[0], $ARGV[1]) or exit 1' "$W/carve/state" "$W/carve/state.away"
refuse "nor its grandparent's child, cordon/" -- "${XC[@]}" -- perl -e 'rename($ARGV[0], $ARGV[1]) or exit 1' "$W/carve/state/cordon" "$W/carve/state/cordon.away"
refuse "nor can they be removed and recreated" -- "${XC[@]}" -- rmdir "$W/carve/state/cordon"
expect 0 "control: a sibling directory in the same root can be renamed" -- "${XC[@]}" -- perl -e 'rename($ARGV[0], $ARGV[1]) or exit 1' "$W/carve/sib" "$W/carve/sib2"
expect 0 "control: the registry's parent stays writable inside" -- "${XC[@]}" -- sh -c "touch '$W/carve/state/x' && rm '$W/carve/state/x'"
assert "the registry is where it was" -- test -d "$creg" -a ! -e "$W/carve/state.away"

# forge_record REGISTRY LINE...: a record of a dead run with these entry lines.
forge_record() {
	local reg=$1 boot pidns pid
	shift
	boot=$(cat /proc/sys/kernel/random/boot_id)
	pidns=$(stat -L -c %i /proc/self/ns/pid)
	true & pid=$!
	wait $pid
	{
		printf 'cordon-record 1\nboot %s\npidns %s\nowner %s 1\n' "$boot" "$pidns" "$pid"
		printf '%s\n' "$@"
		printf 'end\n'
	} > "$reg/run-$boot-$pid-1"
	echo "$reg/run-$boot-$pid-1"
}
di() { stat -c '%d %i' "$1"; }
fw="$W/forge"
mkdir -p "$fw/ws/sub" "$fw/real/.git" "$fw/keep" "$fw/ws/.aws" "$fw/ws/.codex" "$fw/ws/ctl/.agents"
ln -s "$fw/real" "$fw/ws/link"
mkdir -p "$ISOREG"
# From inside: a command with the registry's root writable tries to write a
# record; the registry is read-only (and cannot be replaced, above).
refuse "a sandboxed command cannot write a record" -- env XDG_STATE_HOME="$ISO" "$CORDON" -w "$W/xdg" -C / -- sh -c "echo forged > '$ISOREG/run-forged'"
forged=$(forge_record "$ISOREG" \
	"created $(di "$fw/keep") $fw/keep" \
	"created $(di "$fw/real/.git") $fw/ws/link/.git" \
	"created $(di "$fw/ws/.aws" | awk '{print $1, $2 + 100000}') $fw/ws/.aws" \
	"created $(di "$fw/ws/.codex") $fw/ws/sub/../.codex")
expect 0 "a run after a forged record works" -- env XDG_STATE_HOME="$ISO" "$CORDON" -C / -- true
assert "an empty directory with a name cordon never protects survives" -- test -d "$fw/keep"
assert "a protected empty directory reached through a symbolic link survives" -- test -d "$fw/real/.git"
assert "a protected empty directory with another (dev, ino) survives" -- test -d "$fw/ws/.aws"
assert "a path with .. in it survives" -- test -d "$fw/ws/.codex"
forged=$(forge_record "$ISOREG" \
	"created $(di "$fw/keep") $fw/keep" \
	"created $(di "$fw/real/.git") $fw/ws/link/.git" \
	"created $(di "$fw/ws/.aws" | awk '{print $1, $2 + 100000}') $fw/ws/.aws")
expect_out 0 "^kept $fw/keep: not a protected name" "cordon reclaim keeps them and says why" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
grep -q "^kept $fw/ws/link/.git: reached through a symbolic link" "$OUT" || bad "reclaim did not report the path through a link"
grep -q "^kept $fw/ws/.aws: not cordon's" "$OUT" || bad "reclaim did not report the replaced directory"
assert "all of them survive cordon reclaim" -- test -d "$fw/keep" -a -d "$fw/real/.git" -a -d "$fw/ws/.aws"
forge_record "$ISOREG" "created $(di "$fw/ws/ctl/.agents") $fw/ws/ctl/.agents" >/dev/null
expect_out 0 "^removed $fw/ws/ctl/.agents\$" "control: a forged record with the real identity of a protected empty directory removes just that" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim

# An intent whose directory was born after it (a kill between the two
# record writes) is reclaimed; one older than the intent is not.
mkdir -p "$fw/int/.codex"
sleep 0.05
forge_record "$ISOREG" "intent 0 0 $fw/int/.aws" "intent 0 0 $fw/int/.codex" >/dev/null
mkdir "$fw/int/.aws"
if [ -z "$(stat -c %W "$fw/int/.aws" | grep -v '^0$')" ]; then
	skip "this filesystem keeps no birth time"
else
	expect_out 0 "^removed $fw/int/.aws\$" "an intent's empty directory born after it is reclaimed" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
	grep -q "^kept $fw/int/.codex: it existed before" "$OUT" || bad "reclaim did not keep the older directory"
	assert "the older one stays" -- test -d "$fw/int/.codex"
	# Killed while making them: .git made, .aws not; a sandbox started
	# meanwhile binds .git (a shared lock).  The sweep drops .aws and
	# rewrites the record; the next sweep must still take .git for the
	# run's (it left it to no one when the rewrite moved the record's time).
	mkdir -p "$fw/held"
	forge_record "$ISOREG" "intent 0 0 $fw/held/.git" "intent 0 0 $fw/held/.aws" >/dev/null
	mkdir "$fw/held/.git"
	exec 8<"$fw/held/.git" && flock -s 8
	sleep 0.02
	expect_out 0 "^kept $fw/held/.git: in use by another sandbox" "an intent's directory another sandbox binds is kept" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
	exec 8<&-
	expect_out 0 "^removed $fw/held/.git\$" "and reclaimed once that sandbox is gone, after the record was rewritten" -- env XDG_STATE_HOME="$ISO" "$CORDON" reclaim
fi
assert "no record is left of the dead forged runs" -- test -z "$(ls "$ISOREG" | grep '^run-')"

# --- kill -9 of cordon at random moments of its start-up -------------------------
# bwrap's child waits on an event counter its parent writes once cordon
# releases it; bwrap dies with cordon (--die-with-parent), and before the
# release nothing else ends that child: the guardian (forked before bwrap
# has its arguments) kills whoever holds the sandbox's control socket, and
# cordon-inner does not start the command once cordon is gone.
kl="$W/killloop"
mkdir -p "$kl/ws" "$kl/state"
mark="cordon-kl-$$-$RANDOM"
KILLS=${KILLS:-100}
for i in $(seq "$KILLS"); do
	env XDG_STATE_HOME="$kl/state" RUN_MARK="$mark" "$CORDON" -w "$kl/ws" -C "$kl/ws" -- bash -c "exec -a $mark sleep 300" </dev/null >/dev/null 2>&1 &
	p=$!
	sleep "0.0$(printf %02d $((RANDOM % 20)))"
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
sleep 2
left=$(pgrep -f "$mark" | tr '\n' ' ')
if [ -z "$left" ]; then
	ok "$KILLS kills of cordon in its first 20 ms: 2 s later nothing of those runs is alive"
else
	bad "$KILLS kills of cordon: alive 2 s later: $(for q in $left; do ps -o pid=,ppid=,stat=,wchan:20=,args= -p "$q"; done | cut -c1-160 | tr "\n" ";")"
	# Slow (a loaded machine) or never? Say which, then end them.
	if within 10000 sh -c "! pgrep -f '$mark' >/dev/null"; then
		echo "         | all gone $ELAPSED ms later: slow, not stuck"
	else
		echo "         | still there 10 s later"
		for q in $(pgrep -f "$mark"); do kill -9 "$q" 2>/dev/null; done
	fi
fi
# The guardians of those runs end once their sandboxes are gone (they name
# themselves cordon-guardian: the pgrep above does not see them).
assert "and no guardian of those runs is left" -- no_guardian_left "$mark"
assert "no record of those runs is left" -- test -z "$(ls "$kl/state/cordon/registry" | grep '^run-')"
assert "and the workspace is clean" -- test -z "$(ls -A "$kl/ws")"

finish

#!/usr/bin/env bash
# t_quarantine.sh: nothing the command controls refuses the quarantine
# (issue 30 item 3).  The command runs as the caller, so it may chmod (or
# setfacl) its writable root: a root at 0555 refused the move aside with
# EACCES, one at 0600 hid the name from cordon's look, and .git (with a
# core.fsmonitor payload) stayed for the next host `git status` to run.
# Each attack is made during the run (threads toggling the mode while the
# name appears) and at its end (the mode set while cordon is stopped, then
# cordon resumed, or killed so that its guardian acts); every time .git is
# moved aside, the root's mode is put back as the command left it, and the
# host git runs nothing.  A root caller ignores modes; it runs the same.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
pwned="$W/pwned"
quarantined() { ls -A "$ws" | grep -Ec '^\.git\.cordon-quarantine-[0-9a-f]{16}$'; }
# A repository prepared as g/ in the root, whose core.fsmonitor runs
# $ws/p.sh on the next `git status`: made on the host before the run, so
# the command has only to rename it onto .git.
fresh() {
	chmod -R u+rwx "$ws" 2>/dev/null
	rm -rf "$ws" "$pwned"
	mkdir -p "$ws"
	git init -q "$ws/g.tmp" && mv "$ws/g.tmp/.git" "$ws/g" && rmdir "$ws/g.tmp"
	git config -f "$ws/g/config" core.fsmonitor "$ws/p.sh"
	printf '#!/bin/sh\ntouch %s\n' "$pwned" >"$ws/p.sh"
	chmod 755 "$ws/p.sh"
}
# host_git_runs_nothing: a host `git status` in the root runs no payload
# (there is no repository there any more: git says so, runs nothing).
host_git_runs_nothing() {
	git -C "$ws" status >/dev/null 2>&1
	test ! -e "$pwned"
}
moved_aside() { # DESCRIPTION
	assert "$1: .git is not on the host any more" -- test ! -e "$ws/.git" -a ! -L "$ws/.git"
	assert "$1: it was moved aside, whole (its config kept)" -- \
		sh -c "test $(quarantined) -eq 1 && grep -q fsmonitor '$ws'/.git.cordon-quarantine-*/config"
	assert "$1: a host git status runs nothing" -- host_git_runs_nothing
}

# --- control: the payload runs when .git stays --------------------------------
# --no-default-protect allows .git: the same race leaves it, and a host git
# status runs the payload, which is what every case below must prevent.
fresh
expect 124 "control: with .git allowed the race runs to --timeout" -- \
	"$CORDON" --no-default-protect --timeout 1 -w "$ws" -C "$ws" -- \
	python3 "$HELPERS/chmodrace.py" g 555
chmod 755 "$ws"
assert "control: .git stays" -- test -d "$ws/.git"
git -C "$ws" status >/dev/null 2>&1
assert "control: and a host git status runs the payload" -- test -e "$pwned"

# --- during the run: threads toggle the root's mode as .git appears --------------
for mode in 555 600; do
	fresh
	expect_err 1 "protected name" "mode $mode toggled as .git appears: the run stops (status 1)" -- \
		"$CORDON" -w "$ws" -C "$ws" -- python3 "$HELPERS/chmodrace.py" g "$mode"
	got=$(stat -c %a "$ws")
	assert "mode $mode toggled: the root's mode is the command's last ($got)" -- \
		test "$got" = "$mode" -o "$got" = 755
	chmod 755 "$ws"
	moved_aside "mode $mode toggled"
	assert "mode $mode toggled: stderr names where .git went" -- \
		grep -q "moved aside, not deleted, to $ws/.git.cordon-quarantine-" "$ERR"
done

# --- at the end: the mode set while cordon could not act ------------------------------
# cordon is stopped (SIGSTOP) before the command makes .git and sets the
# mode; resumed, it finds both: the kill, then the move, meet the mode.
# HOW is what the command does to its root once .git is there; WANT is the
# mode (or ACL) it leaves, which must be put back.  END: cont (cordon
# resumes) or kill (kill -9: its guardian moves .git aside).
at_end() { # DESCRIPTION HOW WANT END
	local desc=$1 how=$2 want=$3 end=$4 cpid st mark="cordon-quar-$$-$RANDOM"
	fresh
	# The mode is set only once .git is there: seeing it, the test knows both.
	env RUN_MARK="$mark" "$CORDON" -w "$ws" -C "$ws" -- sh -c \
		"touch ready; while [ ! -e go ]; do sleep 0.02; done; mv -T g .git && $how; exec sleep 30" \
		</dev/null >/dev/null 2>"$W/end.err" &
	cpid=$!
	wait_for 50 test -e "$ws/ready"
	kill -STOP "$cpid"
	touch "$ws/go"
	wait_for 50 sh -c "test \"\$(stat -c %a '$ws')\" = ${want%%:*}"
	assert "$desc: the command made .git and set the mode while cordon was stopped" -- \
		test "$(stat -c %a "$ws")" = "${want%%:*}"
	if [ "$end" = kill ]; then
		kill -9 "$cpid"
		wait "$cpid" 2>/dev/null
		assert "$desc: the guardian is done" -- no_guardian_left "$mark"
	else
		kill -CONT "$cpid"
		wait "$cpid"
		st=$?
		assert "$desc: the run stops with status 1" -- test "$st" -eq 1
		assert "$desc: stderr says .git was moved aside" -- \
			grep -q "moved aside, not deleted, to $ws/.git.cordon-quarantine-" "$W/end.err"
	fi
	assert "$desc: the root's mode is put back as the command left it" -- \
		test "$(stat -c %a "$ws")" = "${want%%:*}"
	case $want in *:*) assert "$desc: and its ACL" -- \
		sh -c "getfacl -cp '$ws' 2>/dev/null | grep -qx '${want#*:}'" ;; esac
	chmod 755 "$ws"
	moved_aside "$desc"
}
at_end "chmod 555 ., cordon resumed" "chmod 555 ." 555 cont
at_end "chmod 600 . (no search), cordon resumed" "chmod 600 ." 600 cont
at_end "chmod 000 ., cordon resumed" "chmod 000 ." 0 cont
at_end "chmod 555 ., cordon killed: the guardian" "chmod 555 ." 555 kill
at_end "chmod 600 ., cordon killed: the guardian" "chmod 600 ." 600 kill
if command -v setfacl >/dev/null && setfacl -m u::rwx "$W" 2>/dev/null; then
	# The owner's entry of an ACL is its mode's owner bits; named entries
	# and the mask never restrict the owner.  The ACL is kept as it was.
	# (The sandbox maps the caller's uid alone: the named entry is its.)
	me=$(id -u)
	at_end "setfacl u::r-x (a named entry, a mask), cordon resumed" \
		"setfacl -m u::r-x,u:$me:rwx,m::rwx ." "575:user:$WHO:rwx" cont
	at_end "setfacl u::r-x, cordon killed: the guardian" "setfacl -m u::r-x ." 555 kill
else
	echo "  skip [$WHO] no setfacl (package acl) or no ACLs on $W"
fi

# --- --git commit: a missing .git/hooks is watched in the git dir, same attack ------
# The git dir is the caller's and writable (git's data): the command makes
# hooks/pre-commit, then takes write permission from .git.  HOW: what it
# does to .git (and its root: ROOT, the mode it leaves there); END as above.
hooks_at_end() { # DESCRIPTION HOW END [ROOT]
	local desc=$1 how=$2 end=$3 root=${4:-755} cpid st mark="cordon-quar-$$-$RANDOM"
	fresh
	rm -rf "$ws/g"
	git init -q "$ws" && rm -rf "$ws/.git/hooks"
	env RUN_MARK="$mark" "$CORDON" --git commit -w "$ws" -C "$ws" -- sh -c \
		"touch ready; while [ ! -e go ]; do sleep 0.02; done; mkdir .git/hooks &&
		 printf '#!/bin/sh\ntouch $pwned\n' > .git/hooks/pre-commit &&
		 chmod 755 .git/hooks/pre-commit && $how && touch done; exec sleep 30" \
		</dev/null >/dev/null 2>"$W/end.err" &
	cpid=$!
	wait_for 50 test -e "$ws/ready"
	kill -STOP "$cpid"
	touch "$ws/go"
	# The root's mode first: with no search permission left, the
	# test (as the user) cannot look inside it.
	wait_for 50 sh -c "test \"\$(stat -c %a '$ws')\" = $root && { test $root != 755 || test -e '$ws/done'; }"
	assert "$desc: the command made hooks and set the modes while cordon was stopped" -- \
		test "$(stat -c %a "$ws")" = "$root"
	if [ "$end" = kill ]; then
		kill -9 "$cpid"
		wait "$cpid" 2>/dev/null
		assert "$desc: the guardian is done" -- no_guardian_left "$mark"
	else
		kill -CONT "$cpid"
		wait "$cpid"
		st=$?
		assert "$desc: the run stops with status 1" -- test "$st" -eq 1
	fi
	assert "$desc: the root's mode is put back as the command left it" -- \
		test "$(stat -c %a "$ws")" = "$root"
	chmod 755 "$ws"
	assert "$desc: .git's mode is put back as the command left it" -- \
		test "$(stat -c %a "$ws/.git")" = 555
	chmod 755 "$ws/.git"
	assert "$desc: hooks is not in the git dir any more" -- test ! -e "$ws/.git/hooks"
	assert "$desc: it was moved aside, whole" -- \
		sh -c "test -x \"\$(ls -d '$ws'/.git/hooks.cordon-quarantine-*)/pre-commit\""
	git -C "$ws" -c user.name=t -c user.email=t@t.invalid commit -q --allow-empty -m probe \
		>/dev/null 2>&1
	assert "$desc: a host git commit runs no hook" -- test ! -e "$pwned"
}
hooks_at_end "--git commit: hooks made, chmod 555 .git, cordon resumed" "chmod 555 .git" cont
hooks_at_end "--git commit: hooks made, chmod 555 .git, cordon killed" "chmod 555 .git" kill
# The guardian opens the git dir by its path: the root above it, made
# unsearchable, must not keep it out.
hooks_at_end "--git commit: hooks made, chmod 555 .git and 600 ., cordon resumed" \
	"chmod 555 .git && chmod 600 ." cont 600
hooks_at_end "--git commit: hooks made, chmod 555 .git and 600 ., cordon killed" \
	"chmod 555 .git && chmod 600 ." kill 600

# --- --git commit: an exec line in a todo list behind an unsearchable directory ------
# The todo list a stopped rebase leaves is moved aside when it holds an
# exec line; the command then took every permission from rebase-merge, so
# that cordon's look failed and the todo stayed: a later host `git rebase
# --continue` (root's, or the user's once the mode is back) ran the line.
# (Root looks through modes: its run reads the exec line itself.)
fresh
rm -rf "$ws/g"
G() { git -c user.name=t -c user.email=t@t.invalid "$@"; }
G init -q "$ws" && G -C "$ws" commit -q --allow-empty -m one && G -C "$ws" commit -q --allow-empty -m two
expect 0 "--git commit: a rebase --exec stopped inside, then rebase-merge made mode 000" -- \
	"$CORDON" --git commit -w "$ws" -C "$ws" -- sh -c \
	"GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git -c user.name=t -c user.email=t@t.invalid \
	 rebase -q -i --exec 'touch $pwned' HEAD~1 && chmod 000 .git/rebase-merge"
assert "rebase-merge 000: stderr says the todo was moved aside" -- \
	grep -Eq "git-rebase-todo was written during the run and it (cannot be looked at|holds an exec line).*: moved aside" "$ERR"
assert "rebase-merge 000: its mode is put back as the command left it" -- \
	test "$(stat -c %a "$ws/.git/rebase-merge")" = 0
chmod 755 "$ws/.git/rebase-merge"
(cd "$ws" && G rebase --continue) >/dev/null 2>&1 </dev/null
assert "rebase-merge 000: a host git rebase --continue afterwards runs no exec line" -- test ! -e "$pwned"

# --- the last resort: a full directory on a full filesystem --------------------------
# ext4 without directory index, 1 KiB blocks, no blocks reserved for root:
# the command fills the disk (a large file, then 1 KiB ones for what is
# left), then the directory with names of 32 bytes until none fits, frees
# one such slot and makes .git (empty: no block needed) in it (true, not
# the special built-in :, whose failed redirection would end sh).  Every
# quarantine name needs a longer entry, which finds no room (ENOSPC): the
# entry stays under its name, made mode 000 (never deleted), stderr and the
# report say it was NOT moved aside, and the status is not 0.  Root mounts
# it and runs cordon as itself and as the test user.
TU=${CORDON_TEST_USER:-cordontest}
MKFS=$(PATH=$PATH:/usr/sbin:/sbin command -v mkfs.ext4)
if ! is_root; then
	echo "  skip [$WHO] a full ext4 needs a mount (the root pass runs it as root and as $TU)"
elif ! id "$TU" >/dev/null 2>&1 || ! command -v setpriv >/dev/null || [ -z "$MKFS" ]; then
	echo "  skip [$WHO] a full ext4: no test user $TU, setpriv or mkfs.ext4"
else
	e4="$W/e4"
	mkdir "$e4" "$W/rep" && chmod 777 "$W/rep"
	if truncate -s 2M "$W/e4.img" &&
	   "$MKFS" -q -F -b 1024 -m 0 -N 2048 -O ^dir_index,^has_journal "$W/e4.img" &&
	   mount -o loop "$W/e4.img" "$e4"; then
		trap 'umount "$e4" 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT
		fill='cat /dev/zero > fill 2>/dev/null; i=0
		      while head -c 1024 /dev/zero 2>/dev/null > "f$i"; do i=$((i + 1)); done
		      i=0; while true 2>/dev/null > "$(printf "n%031d" $i)"; do i=$((i + 1)); done
		      rm "$(printf "n%031d" 0)" && true > .git; exec sleep 5'
		for who in root "$TU"; do
			rm -rf "${e4:?}"/* "$e4"/.[!.]* 2>/dev/null
			chown "$who:" "$e4"
			run=("$CORDON")
			[ "$who" = root ] || run=(setpriv --reuid="$TU" --regid="$TU" --init-groups \
				env HOME="$(getent passwd "$TU" | cut -d: -f6)" "$CORDON")
			expect_err 1 "\.git was created during the run.*could NOT be moved aside \(No space left on device\), so cordon made it mode 000" \
				"$who: .git in a full directory on a full disk: status 1, stderr says it was NOT moved" -- \
				"${run[@]}" --cache none --report "$W/rep/$who.json" -w "$e4" -C "$e4" -- sh -c "$fill"
			assert "$who: .git is left where it was, at mode 000" -- \
				test "$(stat -c %a "$e4/.git")" = 0 -a -f "$e4/.git"
			assert "$who: the report says NOT moved aside" -- \
				grep -q "NOT moved aside: left in place, made mode 000" "$W/rep/$who.json"
		done
		umount "$e4"
	else
		bad "cannot make and mount a small ext4 at $e4"
	fi
fi

# --- a lost event: the rescan looks through the mode too ---------------------------
# With cordon stopped, the command floods the root's inotify queue (every
# event after the limit is lost: .git's too), then hides .git behind mode
# 600 and, a second later, opens the root again (by its path: chmod of "."
# needs the search permission it took) and goes on.  cordon,
# resumed, rescans after the overflow: a name it cannot look at counts as
# there, and the run stops before the command goes on.
fresh
flood=$(( $(cat /proc/sys/fs/inotify/max_queued_events) + 100 ))
"$CORDON" --timeout 20 -w "$ws" -C "$ws" -- sh -c \
	"touch ready; while [ ! -e go ]; do sleep 0.02; done; i=0
	 while [ \$i -lt $flood ]; do true > f\$i; i=\$((i + 1)); done
	 mv -T g .git && chmod 600 . && sleep 1 && chmod 755 $ws && touch after; exec sleep 30" \
	</dev/null >/dev/null 2>"$W/flood.err" &
cpid=$!
wait_for 50 test -e "$ws/ready"
kill -STOP "$cpid"
touch "$ws/go"
wait_for 200 sh -c "test \"\$(stat -c %a '$ws')\" = 600"
kill -CONT "$cpid"
wait "$cpid"
st=$?
assert "a lost .git event behind mode 600: the run stops (status 1)" -- test "$st" -eq 1
chmod 755 "$ws"
assert "a lost .git event behind mode 600: before the command went on" -- test ! -e "$ws/after"
assert "a lost .git event behind mode 600: .git was moved aside" -- \
	test ! -e "$ws/.git" -a "$(quarantined)" -eq 1
rm -rf "$ws"

# --- the caller's PID namespace: nothing of the command outlives the stop ------------
# With --pid-ns inherit and no cgroup, SIGKILL to cordon-inner left the
# command's processes running: one could take the root's permissions away
# again, or make .git once nobody watched.  (Needs Landlock ABI 6.)
gone_or_zombie() { case $(ps -o stat= -p "$1" 2>/dev/null) in "" | Z*) return 0 ;; esac; return 1; }
if "$CORDON" --pid-ns inherit -- true >/dev/null 2>&1; then
	fresh
	expect_err 1 "protected name" "--pid-ns inherit: .git stops the run" -- \
		"$CORDON" --pid-ns inherit -w "$ws" -C "$ws" -- bash -c \
		'setsid sh -c "sleep 30; mkdir .git" & echo $! > pid; sleep 0.3; mv -T g .git; sleep 5'
	assert "--pid-ns inherit: .git was moved aside" -- test ! -e "$ws/.git" -a "$(quarantined)" -eq 1
	orphan=$(cat "$ws/pid")
	assert "--pid-ns inherit: the command's orphan (setsid) was ended with it" -- \
		wait_for 10 gone_or_zombie "$orphan"
	gone_or_zombie "$orphan" || kill -9 "$orphan"
else
	echo "  skip [$WHO] --pid-ns inherit is not available here (Landlock ABI 6)"
fi

# --- control: a name the command may make is left alone, whatever the mode ---------
fresh
expect 0 "control: a sibling name made with the root at 0555 is left alone" -- \
	"$CORDON" -w "$ws" -C "$ws" -- sh -c 'mv -T g notgit && chmod 555 .'
assert "control: the root keeps the command's mode, the entry its name" -- \
	test "$(stat -c %a "$ws")" = 555 -a -d "$ws/notgit" -a "$(quarantined)" -eq 0
chmod 755 "$ws"
finish

#!/usr/bin/env bash
# t_gitkill.sh: --git commit, kill -9 of cordon at each step of a run
# (issue 31): before the observers start, once the sandbox is up, while the
# command plants a rebase todo with an exec line and a merge strategy,
# after the command exited, and in the middle of the end checks.  Each
# time the guardian redoes the end (observe/observer.h: the git observer's
# guardian entry), and the host git commands a user runs next (status,
# rebase, merge, cherry-pick and am --continue, commit) run nothing of the
# command's.  A control: the same plant made outside cordon does run.
# cordon is stopped at a step with gdb (as scripts/killintent.sh does).
. "$(dirname "$0")/lib.sh"

skip_all() {
	echo "  skip [$WHO] $*"
	finish
	exit 0
}
command -v gdb >/dev/null || skip_all "needs gdb"
export GIT_AUTHOR_NAME=cordon GIT_AUTHOR_EMAIL=cordon@example.invalid
export GIT_COMMITTER_NAME=cordon GIT_COMMITTER_EMAIL=cordon@example.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE
G() { git -c init.defaultBranch=main "$@"; }
MARK="$W/MARK"
tpl="$W/tpl"
G init -q "$tpl/repo" && (
	cd "$tpl/repo" && echo a > a && G add a && G commit -qm one &&
	echo b > b && G add b && G commit -qm two
) >/dev/null 2>&1 || { echo "t_gitkill: cannot build the template" >&2; exit 1; }
ws="$W/ws"
fresh() { rm -rf "$ws" "$MARK"; mkdir -p "$ws" && cp -a "$tpl/repo" "$ws/"; }
# The plant: a rebase stopped at an edit, its todo running `touch MARK`
# on --continue, and a strategy git would run as git-merge-NAME.
plant="GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -q -i --exec 'touch $MARK' HEAD~1 &&
	echo cordonevil > .git/rebase-merge/strategy"
# What a user runs on the host afterwards.
host_git() {
	local c
	for c in "status" "rebase --continue" "merge --continue" "cherry-pick --continue" \
		 "am --continue" "commit -q --allow-empty -m host"; do
		(cd "$ws/repo" && timeout 10 git $c) </dev/null >/dev/null 2>&1
	done
}

# --- control: the plant outside cordon runs on the host's next --continue -----
fresh
(cd "$ws/repo" && GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' \
	git rebase -q -i --exec "touch $MARK" HEAD~1) </dev/null >/dev/null 2>&1
host_git
assert "control: outside, the planted todo runs on the host" -- test -e "$MARK"

# killed_at STEP BREAK DESC: cordon stopped by gdb at the function BREAK
# ("" : no gdb, killed once the command planted and waits), then killed.
killed_at() {
	local step=$1 brk=$2 desc=$3 mark="cordon-gitkill-$$-$RANDOM" cmd pid
	fresh
	cmd="$plant; touch planted"
	[ "$step" = running ] && cmd="$cmd; exec sleep 30"
	if [ -n "$brk" ] && [ "${CORDON_NO_LANDLOCK:-0}" = 1 ]; then
		# $CORDON is run.sh's wrapper script here, which gdb cannot run;
		# Landlock plays no part in the guardian's end.
		echo "  skip [$WHO] $desc: the no-Landlock pass has no gdb steps"
		return
	elif [ -n "$brk" ]; then
		printf '%s\n' "set pagination off" "set confirm off" "break $brk" "run" \
			"shell touch $W/hit" "kill" "quit" >"$W/gdb"
		rm -f "$W/hit"
		env RUN_MARK="$mark" gdb -q -batch -x "$W/gdb" --args "$CORDON" --git commit \
			-w "$ws/repo" -C "$ws/repo" -- sh -c "$cmd" </dev/null >"$W/gdb.out" 2>&1
		if [ ! -e "$W/hit" ]; then
			bad "$desc: cordon reached $brk"
			sed 's/^/         | /' "$W/gdb.out" | tail -5
			return
		fi
	else
		env RUN_MARK="$mark" "$CORDON" --git commit -w "$ws/repo" -C "$ws/repo" -- \
			sh -c "$cmd" </dev/null >/dev/null 2>&1 &
		pid=$!
		wait_for 100 test -e "$ws/repo/planted"
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
	fi
	assert "$desc: the guardian finished" -- no_guardian_left "$mark"
	if [ -e "$ws/repo/planted" ]; then
		assert "$desc: the todo and the strategy were moved aside" -- \
			test ! -e "$ws/repo/.git/rebase-merge/git-rebase-todo" -a \
			     ! -e "$ws/repo/.git/rebase-merge/strategy"
	fi
	host_git
	assert "$desc: the host git commands run nothing of the command's" -- test ! -e "$MARK"
}

killed_at start observe_start "before the observers start"
killed_at up inner_link_send_checks "the sandbox is up, the command not started"
killed_at running "" "while the command runs, its plant made"
killed_at exited observe_settle "after the command exited"
killed_at settling gitaudit_walk "in the middle of the end checks"

finish

#!/usr/bin/env bash
# t_gitaudit.sh: --git commit, the end of the run audits the git dir
# (hostpaths/gitstate.h, issues 30 and 31).  Each escape an attacker's
# review found is planted inside; afterwards the host git commands a user
# runs write nothing through a planted link, block on nothing and run
# nothing of the command's.  Each has a control: the same plant made
# outside cordon does what the review said.  A normal workflow is left
# alone.  And after a kill -9 of cordon, its guardian does the same end.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_NAME=cordon GIT_AUTHOR_EMAIL=cordon@example.invalid
export GIT_COMMITTER_NAME=cordon GIT_COMMITTER_EMAIL=cordon@example.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE
G() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }
MARK="$W/MARK"
RC="$W/bashrc"        # stands for ~/.bashrc: outside every writable root
FSM="$W/fsm"
printf '[core]\n\tfsmonitor = touch %s\n' "$MARK" >"$FSM"
# The same, written from inside (where the private /tmp hides $W).
fsm="printf '[core]\\n\\tfsmonitor = touch %s\\n' $MARK"

tpl="$W/tpl"
G init -q "$tpl/repo" && (
	cd "$tpl/repo" && echo a > a && G add a && G commit -qm one &&
	echo b > b && G add b && G commit -qm two && G branch side &&
	G init -q lib/emb && G -C lib/emb commit -q --allow-empty -m e && G add lib/emb &&
	G commit -qm emb && G init -q lib/evilrepo && cat "$FSM" >> lib/evilrepo/.git/config &&
	G checkout -q -b ry && echo Y > a && G commit -qam y &&
	G checkout -q -b rx HEAD~1 && echo X > a && G commit -qam x && G checkout -q main
) >/dev/null 2>&1 || { echo "t_gitaudit: cannot build the template" >&2; exit 1; }
# The conflict of merging rx into ry, as rerere names it (from a scratch copy).
cp -a "$tpl/repo" "$W/rrscratch" && (cd "$W/rrscratch" && G checkout -q ry &&
	G -c rerere.enabled=true merge rx) >/dev/null 2>&1
RRH=$(ls "$W/rrscratch/.git/rr-cache" 2>/dev/null | head -1)
rm -rf "$W/rrscratch"
[ -n "$RRH" ] || { echo "t_gitaudit: git made no rerere record" >&2; exit 1; }

ws="$W/ws"
# fresh [REPO]: a copy of the template's REPO (default repo) in $ws.
fresh() { rm -rf "$ws" "$MARK"; mkdir -p "$ws" && cp -a "$tpl/${1:-repo}" "$ws/"; echo "# rc" > "$RC"; }
C() { "$CORDON" --git commit -w "$ws/repo" -C "$ws/repo" "$@"; }
H() { (cd "$ws/repo" && "$@") </dev/null >/dev/null 2>&1; }
rc_clean="test \"\$(cat $RC)\" = '# rc'"

# --- a normal workflow is not touched -------------------------------------------
fresh
expect 0 "control: commit, branch, checkout, rebase, repack, a commit in the embedded repository" -- \
	C -- sh -c 'set -e; echo c > c; git add c; git commit -qm three; git checkout -q -b t
		git checkout -q main; git rebase -q side; git repack -q -a -d -n; git pack-refs --all
		echo d > d; git add d; git commit -qm four; git commit -q --amend -m four2
		git -C lib/emb commit -q --allow-empty -m e2; git add lib/emb; git commit -qm emb2
		git status >/dev/null'
if grep -q 'moved aside\|could not be moved' "$ERR"; then
	bad "control: nothing moved aside"
	sed 's/^/         | /' "$ERR" | head -8
else
	ok "control: nothing moved aside"
fi
assert "control: and no quarantine name in the git dir" -- \
	test -z "$(find "$ws/repo/.git" -name '*cordon-quarantine*')"
assert "control: the host git sees the commits" -- \
	test "$(G -C "$ws/repo" log -2 --format=%s | tr '\n' ' ')" = "emb2 four2 "

# plant DESC SCRIPT PROBE CHECK: SCRIPT inside, PROBE on the host, CHECK holds;
# then the same SCRIPT outside, PROBE, and CHECK fails (the control).
plant() {
	local desc=$1 script=$2 probe=$3 check=$4
	fresh
	C -- sh -c "$script" >/dev/null 2>"$W/plant.err"
	assert "$desc: said on stderr" -- grep -q "was made or changed during the run and" "$W/plant.err"
	grep -q "was made or changed during the run and" "$W/plant.err" || sed 's/^/         | /' "$W/plant.err"
	H sh -c "$probe"
	assert "$desc: the host git afterwards is safe" -- sh -c "$check"
	fresh
	(cd "$ws/repo" && sh -c "$script") >/dev/null 2>&1
	H sh -c "$probe"
	assert "$desc: control: outside, the same plant is not" -- sh -c "! { $check; }"
}

# Item 2: git writes through a symbolic link the command left.
plant "logs/HEAD -> ~/.bashrc, then git checkout" \
	"rm -f .git/logs/HEAD && ln -s $RC .git/logs/HEAD && git branch '\$(touch\${IFS}$MARK)'" \
	"git checkout -q side; git checkout -q main" "$rc_clean"
plant "COMMIT_EDITMSG -> ~/.bashrc, then git commit --amend" \
	"ln -sf $RC .git/COMMIT_EDITMSG" \
	"git commit -q --amend -m host-message" "$rc_clean"
# A hard link between the git dir and the worktree fails inside (EXDEV: two
# mounts); within the git dir it is made, and host git writes through it.
plant "a hard-linked COMMIT_EDITMSG, then git commit --amend" \
	"echo x > .git/mine && ln -f .git/mine .git/COMMIT_EDITMSG" \
	"git commit -q --amend -m host-message" \
	"! grep -qs host-message $ws/repo/.git/mine $ws/repo/.git/.cordon-quarantine-*"
fresh
expect 0 "a planted link: the run's status is the command's" -- \
	C --report "$W/rep.json" -- sh -c "ln -sf $RC .git/COMMIT_EDITMSG"
assert "and --report lists it as git_state, with where it went" -- \
	grep -q '"kind": *"git_state".*"name": *"COMMIT_EDITMSG".*"quarantined": *"[^"]*/\.cordon-quarantine-' \
	<(tr -d '\n' < "$W/rep.json")
# Item 9: HEAD's branch as a FIFO blocks every later git status.
plant "HEAD's branch as a FIFO, then git status" \
	"rm -f .git/refs/heads/main && mkfifo .git/refs/heads/main" \
	"timeout 1 git status; echo \$? > $W/status.rc" "test \"\$(cat $W/status.rc)\" != 124"

# Item 5: submodule checks.  An embedded repository below the top of the
# root (its .git is the command's to write, README "Outside the boundary"),
# whose config is rewritten in place.
plant "an embedded repository's config rewritten in place" \
	"$fsm >> lib/emb/.git/config" "git status" "test ! -e $MARK"
# A repository with a planted config, made before the run (its config's
# timestamps are old), renamed into an embedded repository's place.
plant "an old repository renamed into a gitlink's place" \
	"rm -rf lib/emb && mv lib/evilrepo lib/emb" "git status" "test ! -e $MARK"
# A gitlink kept in the shared part of a split index.
plant "a gitlink in a split index's shared part" \
	"git init -q nested && git -C nested commit -q --allow-empty -m n &&
	 git -c splitIndex.maxPercentChange=0 update-index --split-index --add \
		--cacheinfo 160000,\$(git -C nested rev-parse HEAD),nested &&
	 $fsm >> nested/.git/config" \
	"git status" "test ! -e $MARK"

# A linked worktree's submodule git dirs (git keeps them in
# .git/worktrees/NAME/modules/) are split like the main one's: their config
# and hooks read-only.
G init -q "$tpl/lw" && (cd "$tpl/lw" && G commit -q --allow-empty -m one && G worktree add -q wt &&
	G init -q --bare .git/worktrees/wt/modules/sub) >/dev/null 2>&1 ||
	{ echo "t_gitaudit: cannot build the linked worktree template" >&2; exit 1; }
fresh lw
refuse "a linked worktree's submodule config stays read-only" -- \
	"$CORDON" --git commit -w "$ws/lw" -C "$ws/lw" -- sh -c "$fsm >> .git/worktrees/wt/modules/sub/config"
refuse "and its hooks" -- "$CORDON" --git commit -w "$ws/lw" -C "$ws/lw" -- \
	sh -c "echo 'touch $MARK' > .git/worktrees/wt/modules/sub/hooks/pre-commit"
expect 0 "control: its data is writable" -- "$CORDON" --git commit -w "$ws/lw" -C "$ws/lw" -- \
	sh -c "git -C .git/worktrees/wt/modules/sub update-ref refs/x \$(git rev-parse HEAD) 2>/dev/null ||
	       echo x > .git/worktrees/wt/modules/sub/description"

# Item 7: an index entry named "." with mode 160000 must not make cordon
# move the repository's own .git aside.
dot_entry='/usr/bin/python3 -c "
import hashlib, struct
import subprocess
ix = subprocess.check_output([\"git\", \"rev-parse\", \"--git-path\", \"index\"]).decode().strip()
b = open(ix, \"rb\").read()
n = struct.unpack(\">I\", b[8:12])[0]
p = 12
for _ in range(n):
    p += (62 + (struct.unpack(\">H\", b[p+60:p+62])[0] & 0xfff) + 8) & ~7
oid = bytes(20)
ent = bytes(24) + struct.pack(\">I\", 0o160000) + bytes(12) + oid + struct.pack(\">H\", 1) + b\".\"
ent += bytes(8 - (len(ent) % 8))
body = b[:8] + struct.pack(\">I\", n + 1) + ent + b[12:p]
open(ix, \"wb\").write(body + hashlib.sha1(body).digest())
"'
fresh
C -- sh -c "git commit -q --allow-empty -m x && $dot_entry" >/dev/null 2>"$W/dot.err"
assert "an index entry named '.': the repository's .git stays" -- \
	test -d "$ws/repo/.git" -a -z "$(find "$ws/repo" -maxdepth 1 -name '.git.cordon-quarantine*')"
assert "an index entry named '.': and cordon did not try to move it" -- \
	sh -c "! grep -q 'repo/./.git\|repo/.git was made' '$W/dot.err'"

# The same with -w on a linked worktree whose main repository lies outside
# every root (in /var/tmp: the private /tmp would hide it inside): "." there
# named the MAIN repository's .git, outside every writable root.
LW=$(mktemp -d /var/tmp/cordon-it-ga.XXXXXX) && chmod 755 "$LW" && cleanup_dirs+=("$LW")
G init -q "$LW/main" && (cd "$LW/main" && echo a > a && G add a && G commit -qm one &&
	G worktree add -q ../wt -b feat) >/dev/null 2>&1 ||
	{ echo "t_gitaudit: cannot build the linked worktree" >&2; exit 1; }
"$CORDON" --git commit -w "$LW/wt" -C "$LW/wt" -- sh -c "git commit -q --allow-empty -m x && $dot_entry" \
	>/dev/null 2>"$W/dot.err"
assert "linked: an index entry named '.': the main repository's .git stays" -- \
	test -d "$LW/main/.git" -a -z "$(find "$LW/main" "$LW/wt" -maxdepth 1 -name '.git.cordon-quarantine*')"
assert "linked: and the worktree's commit is there" -- \
	test "$(G -C "$LW/main" log -1 --format=%s feat)" = x

# --- item 11: hooks that reach into the worktree --------------------------------------
# A hook that is a link to a worktree file (the default, read-only mode),
# and husky's core.hooksPath=.husky/_ whose scripts run .husky/HOOK.
G init -q "$tpl/hk" && (cd "$tpl/hk" && mkdir tools && printf '#!/bin/sh\ntrue\n' > tools/pre-commit &&
	chmod +x tools/pre-commit && ln -s ../../tools/pre-commit .git/hooks/pre-commit &&
	G add tools && G commit -qm hk) >/dev/null 2>&1 &&
G init -q "$tpl/hu" && (cd "$tpl/hu" && mkdir -p .husky/_ && printf 'true\n' > .husky/pre-commit &&
	printf '#!/bin/sh\n. "$(dirname "$0")/h"\n' > .husky/_/pre-commit &&
	printf '#!/bin/sh\ns="$(dirname "$(dirname "$0")")/$(basename "$0")"\n[ -f "$s" ] && sh -e "$s"\n' > .husky/_/h &&
	chmod +x .husky/_/pre-commit .husky/_/h && G config core.hooksPath .husky/_ &&
	G add .husky && G commit -qm hu) >/dev/null 2>&1 ||
	{ echo "t_gitaudit: cannot build the hook templates" >&2; exit 1; }
# hook_escape DESC REPO FILE [CORDON FLAGS]: FILE (a script the next host
# commit runs) cannot be written inside; outside, the same write makes the
# host commit touch the marker.
hook_escape() {
	local desc=$1 repo=$2 file=$3; shift 3
	fresh "$repo"
	refuse "$desc: cannot be written inside" -- \
		"$CORDON" "$@" -w "$ws/$repo" -C "$ws/$repo" -- sh -c "echo 'touch $MARK' >> $file"
	(cd "$ws/$repo" && G commit -q --allow-empty -m probe) </dev/null >/dev/null 2>&1
	assert "$desc: the next host commit runs nothing of the command's" -- test ! -e "$MARK"
	fresh "$repo"
	(cd "$ws/$repo" && echo "touch $MARK" >> "$file" && G commit -q --allow-empty -m probe) \
		</dev/null >/dev/null 2>&1
	assert "$desc: control: outside, the next host commit runs it" -- test -e "$MARK"
}
hook_escape "a hook linked to tools/pre-commit (read-only mode)" hk tools/pre-commit
hook_escape "a hook linked to tools/pre-commit (--git commit)" hk tools/pre-commit --git commit
hook_escape "husky: .husky/pre-commit, run by core.hooksPath .husky/_" hu .husky/pre-commit
fresh hk
expect 0 "control: the rest of a repository with a linked hook stays writable" -- \
	"$CORDON" -w "$ws/hk" -C "$ws/hk" -- sh -c 'echo x > tools/other && echo y > new'
expect_err 0 "hook .*/hooks/pre-commit runs .*/tools/pre-commit, inside a writable root: read-only" \
	"the note names the hook and its target" -- "$CORDON" -w "$ws/hk" -C "$ws/hk" -- true

# --- rerere: a resolution the command records is applied by a later host merge ------
# (issue 30: "keep looking past the list").  rr-cache/HASH/postimage is
# written into the worktree by the user's next `git merge` whose conflict
# hashes to HASH, and rr-cache's existence alone turns rerere on.
rr_plant="mkdir -p .git/rr-cache/$RRH && printf '<<<<<<<\\nX\\n=======\\nY\\n>>>>>>>\\n' > .git/rr-cache/$RRH/preimage &&
	echo INJECTED > .git/rr-cache/$RRH/postimage"
rr_merge() { H sh -c 'git checkout -q ry && git merge -q rx'; }
fresh
expect 0 "rerere: a planted resolution, the run's status is the command's" -- C -- sh -c "$rr_plant"
assert "rerere: said on stderr" -- grep -q "rr-cache/$RRH was written during the run and it is a merge resolution" "$ERR"
rr_merge
assert "rerere: the host merge afterwards is not resolved by it" -- \
	sh -c "! grep -q INJECTED '$ws/repo/a' && grep -q '^<<<<<<<' '$ws/repo/a'"
fresh
(cd "$ws/repo" && sh -c "$rr_plant")
rr_merge
assert "rerere: control: outside, the same plant resolves the host merge" -- grep -qx INJECTED "$ws/repo/a"
# The user's own resolution, recorded before the run, stays and is applied;
# rewritten in place during the run (its directory unchanged), it goes.
fresh
(cd "$ws/repo" && sh -c "$rr_plant")
expect 0 "rerere: control: a run that leaves the user's resolution alone" -- C -- git status
assert "rerere: control: nothing said" -- sh -c "! grep -q rr-cache '$ERR'"
rr_merge
assert "rerere: control: the user's resolution still resolves the host merge" -- grep -qx INJECTED "$ws/repo/a"
fresh
(cd "$ws/repo" && sh -c "$rr_plant")
C -- sh -c "echo REWRITTEN > .git/rr-cache/$RRH/postimage" >/dev/null 2>&1
rr_merge
assert "rerere: the user's resolution rewritten in place during the run is not applied" -- \
	sh -c "! grep -q REWRITTEN '$ws/repo/a'"

# --- issue 31: kill -9 of cordon; its guardian does the same end -----------------------
fresh
mark="cordon-gitaudit-$$-$RANDOM"
todo="GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -q -i --exec 'touch $MARK' HEAD~1;
	ln -s $RC .git/logs/refs/heads/side.new; rm -f .git/logs/HEAD; ln -s $RC .git/logs/HEAD
	mkdir -p .git/sequencer && echo 'exec touch $MARK' > .git/sequencer/todo
	rm -f .git/refs/heads/side && mkfifo .git/refs/heads/side"
env RUN_MARK="$mark" "$CORDON" --git commit -w "$ws/repo" -C "$ws/repo" -- \
	bash -c "$todo; touch ready; exec -a $mark sleep 30" </dev/null >/dev/null 2>&1 &
cpid=$!
wait_for 100 test -e "$ws/repo/ready"
assert "killed: the command planted its todo" -- grep -q "^exec touch" "$ws/repo/.git/rebase-merge/git-rebase-todo"
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
assert "killed: the guardian finished" -- no_guardian_left "$mark"
assert "killed: the todo with an exec line was moved aside" -- \
	test ! -e "$ws/repo/.git/rebase-merge/git-rebase-todo"
assert "killed: the planted link was moved aside" -- test ! -L "$ws/repo/.git/logs/HEAD"
assert "killed: the cherry-pick todo with an exec line was moved aside" -- \
	test ! -e "$ws/repo/.git/sequencer/todo"
assert "killed: the FIFO was moved aside" -- test ! -p "$ws/repo/.git/refs/heads/side"
for c in "status" "rebase --continue" "merge --continue" "cherry-pick --continue" \
	 "am --continue" "commit -q --allow-empty -m host" "checkout -q side"; do
	H timeout 10 git $c
done
assert "killed: the host git commands a user runs next run nothing of the command's" -- \
	test ! -e "$MARK"
assert "killed: and write nothing through its links" -- sh -c "$rc_clean"

# cordon stopped while the command plants and exits, then killed: the
# sandbox is gone before cordon dies, and the guardian still does the end.
fresh
mark="cordon-gitaudit-$$-$RANDOM"
env RUN_MARK="$mark" "$CORDON" --git commit -w "$ws/repo" -C "$ws/repo" -- \
	sh -c "touch ready; while [ ! -e go ]; do sleep 0.02; done
	       mkdir -p .git/rebase-merge && echo 'exec touch $MARK' > .git/rebase-merge/git-rebase-todo
	       ln -sf $RC .git/COMMIT_EDITMSG; $rr_plant; touch done" </dev/null >/dev/null 2>&1 &
cpid=$!
wait_for 100 test -e "$ws/repo/ready"
kill -STOP "$cpid"
touch "$ws/repo/go"
wait_for 100 test -e "$ws/repo/done"
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
assert "stopped, then killed: the guardian finished" -- no_guardian_left "$mark"
assert "stopped, then killed: the todo and the link were moved aside" -- \
	test ! -e "$ws/repo/.git/rebase-merge/git-rebase-todo" -a ! -L "$ws/repo/.git/COMMIT_EDITMSG"
assert "stopped, then killed: the planted resolution was moved aside" -- test ! -e "$ws/repo/.git/rr-cache/$RRH"
H timeout 10 git rebase --continue
H timeout 10 git commit -q --amend -m host
assert "stopped, then killed: the host git runs and writes nothing of the command's" -- \
	sh -c "test ! -e $MARK && $rc_clean"

finish

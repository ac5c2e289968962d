#!/usr/bin/env bash
# t_gitcommit.sh: --git commit (DESIGN.md section 5, plan/gitdir.h).  Git's
# own data in a protected .git is writable: real workflows give the same
# refs inside as outside.  Everything that makes git run a program or read
# configuration stays read-only or watched: each escape fails inside, and
# works outside as a control, and after it a host git runs no planted
# program.  An interactive rebase's todo with exec lines is moved aside at
# the end.  The default (read-only) mode is unchanged.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_NAME=cordon GIT_AUTHOR_EMAIL=cordon@example.invalid
export GIT_COMMITTER_NAME=cordon GIT_COMMITTER_EMAIL=cordon@example.invalid
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE
G() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }
MARK="$W/MARK"

# The template: a repository with a submodule, a worktree config switched
# on, a filter driver defined (unused until an attributes line selects it),
# and a bare repository to fetch from and push to.
tpl="$W/tpl"
mkdir -p "$tpl"
G init -q "$W/subsrc" && echo s > "$W/subsrc/s" && G -C "$W/subsrc" add s &&
	G -C "$W/subsrc" commit -qm sub
G init -q "$tpl/repo" && (
	cd "$tpl/repo" &&
	G config extensions.worktreeConfig true && G config core.repositoryformatversion 1 &&
	G config filter.evil.clean "touch $MARK; cat" &&
	echo a > a && G add a && G commit -qm one &&
	G submodule add -q "$W/subsrc" sub >/dev/null 2>&1 && G commit -qm sub &&
	G clone -q --bare . "$tpl/bare.git"
) || { echo "t_gitcommit: cannot build the template" >&2; exit 1; }
# An evil git dir for the redirections: its config runs the marker.  The
# plants lie in it too (a writable root: the private /tmp hides $W inside).
cp -a "$tpl/repo/.git" "$tpl/evil" && printf '[core]\n\tfsmonitor = touch %s\n' "$MARK" >"$tpl/evil/fsm" &&
	cat "$tpl/evil/fsm" >>"$tpl/evil/config" && printf '#!/bin/sh\ntouch %s\n' "$MARK" >"$tpl/evil/hook" &&
	chmod +x "$tpl/evil/hook"
# A last plain commit, so that a rebase of HEAD~1 leaves .gitmodules alone
# (a protected dotfile at the top of the root, read-only in every mode).
(cd "$tpl/repo" && echo z > z && G add z && G commit -qm plain)

ws="$W/ws"
fresh() { rm -rf "$ws" "$MARK"; cp -a "$tpl" "$ws"; }
C() { "$CORDON" --git commit -w "$ws/repo" -w "$ws/bare.git" -w "$ws/evil" -C "$ws/repo" "$@"; }
refs() { G -C "$1" for-each-ref --format='%(refname) %(objectname)'; G -C "$1" rev-parse HEAD; }

# --- real workflows: the same refs inside as outside ------------------------------
flow='set -e
G() { git -c protocol.file.allow=always "$@"; }
echo b > b; G add b; G commit -qm two
G commit -q --amend -m two-amended
G branch b1
G checkout -q -b feat
echo c > c; G add c; G commit -qm three
G switch -q main
echo d > d; G add d; G commit -qm four
G merge -q --no-edit feat
G checkout -q -b side HEAD~1
echo e > e; G add e; G commit -qm five
G rebase -q main
GIT_SEQUENCE_EDITOR="sed -i 2s/^pick/squash/" GIT_EDITOR=true G rebase -q -i HEAD~2
G switch -q main
G cherry-pick side >/dev/null
G revert --no-edit HEAD >/dev/null
echo f > a; G stash push -q; G stash pop -q; G commit -qam six
G tag -a -m v1 v1; G tag v2 HEAD~1
G reset -q --hard HEAD~1
G gc -q; G repack -qad; G prune
G push -q ../bare.git main side v1
G fetch -q ../bare.git main:fetched
G worktree add -q wt-in -b wtb
(cd wt-in && echo w > w && G add w && G commit -qm in-worktree)
G worktree remove wt-in
(cd sub && echo t > t && G add t && G commit -qm in-submodule)
G status --porcelain >/dev/null
G rev-parse HEAD'
G() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }
fresh
rm -rf "$W/out" && cp -a "$tpl" "$W/out"
(cd "$W/out/repo" && sh -c "$flow" >"$W/flow.out" 2>"$W/flow.err")
flow_rc=$?
assert "control: the workflow runs outside" -- test "$flow_rc" -eq 0
expect 0 "the workflow runs inside with --git commit" -- C -- sh -c "$flow"
assert "and prints the same" -- cmp -s "$OUT" "$W/flow.out"
assert "the refs inside equal the refs outside" -- \
	test "$(refs "$ws/repo")" = "$(refs "$W/out/repo")"
assert "the submodule's refs too" -- \
	test "$(refs "$ws/repo/sub")" = "$(refs "$W/out/repo/sub")"
assert "the bare repository got the same push" -- \
	test "$(refs "$ws/bare.git")" = "$(refs "$W/out/bare.git")"
assert "no worktree and nothing quarantined is left" -- \
	test -z "$(ls "$ws/repo/.git/worktrees" 2>/dev/null)" -a -z "$(find "$ws" -name '*cordon-quarantine*')"

# --- the default mode is unchanged: .git is read-only as a whole ------------------
fresh
expect_err 128 "index.lock" "default: git commit fails (the index cannot be written)" -- \
	"$CORDON" -w "$ws/repo" -C "$ws/repo" -- git commit -q --allow-empty -m x

# --- explain prints the table; a symbolic link cordon cannot pin is refused ----------
fresh
expect_out 0 "objects/info/alternates +ro/watched" "explain --git commit prints the rule's table" -- \
	"$CORDON" explain --git commit -w "$ws/repo" -- true
assert "and the split of this .git, row by row" -- \
	grep -Eq "^  $ws/repo/.git/hooks +protected +--git commit: hooks run" "$OUT"
echo '{"write": ["repo"], "git": "commit"}' > "$ws/p.json"
expect_out 0 "gitdir_rules" "the policy key git: commit is the flag's" -- "$CORDON" explain --json --policy "$ws/p.json" -- true
echo '{"git": "always"}' > "$ws/bad.json"
expect_err 125 "git.*expected read-only or commit" "a bad git value in a policy is refused" -- \
	"$CORDON" --policy "$ws/bad.json" -- true
mv "$ws/repo/.git/hooks" "$ws/repo/hooks-real" && ln -s ../hooks-real "$ws/repo/.git/hooks"
expect_err 125 "hooks is a symbolic link.*--git read-only" "a .git/hooks that is a symbolic link is refused" -- \
	C -- true
expect 0 "control: the default mode binds that .git read-only as a whole" -- \
	"$CORDON" -w "$ws/repo" -C "$ws/repo" -- git status --short

# --- a linked worktree whose git dir is inside the root -------------------------------
fresh
G -C "$ws/repo" worktree add -q wt >/dev/null 2>&1
expect 0 "a commit in an existing linked worktree inside the root works" -- \
	C -- sh -c 'cd wt && git commit -q --allow-empty -m in-wt'
refuse "its worktrees/wt/commondir cannot be redirected" -- \
	C -- sh -c "echo $ws/evil > .git/worktrees/wt/commondir"

# --- escapes: each fails inside; works outside (control); host git runs nothing -----
# probe: a host git in the repository (and its submodule) after the run.
probe() {
	(cd "$ws/repo" && G status >/dev/null 2>&1; G -C sub status >/dev/null 2>&1
	 G add -A >/dev/null 2>&1; G commit -q --allow-empty -m probe >/dev/null 2>&1) </dev/null
}
# escape DESCRIPTION SCRIPT: SCRIPT plants something a host git would run.
escape() {
	local desc=$1 script=$2
	fresh
	refuse "$desc: fails inside" -- C -- sh -c "$script"
	probe
	assert "$desc: a host git afterwards runs no planted program" -- test ! -e "$MARK"
	fresh
	(cd "$ws/repo" && sh -c "$script") >/dev/null 2>&1
	probe
	assert "$desc: control: outside, the same plants a program the host git runs" -- test -e "$MARK"
}
fsm="cat $ws/evil/fsm"
hook="cat $ws/evil/hook"
escape "write .git/config" "$fsm >> .git/config"
escape "replace .git/config by rename" "cp .git/config c2 && $fsm >> c2 && mv c2 .git/config"
escape "unlink and recreate .git/config" "cp .git/config c2 && $fsm >> c2 && rm -f .git/config && mv c2 .git/config"
escape "create .git/config.worktree (extensions.worktreeConfig)" "$fsm > .git/config.worktree; sleep 2"
escape "create a hook" "$hook > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
escape "write info/attributes" "echo '* filter=evil' >> .git/info/attributes"
escape "replace info by a renamed directory" "mv .git/info .git/info.old && mkdir .git/info && echo '* filter=evil' > .git/info/attributes"
escape "replace hooks by a symlink" "mkdir h && $hook > h/pre-commit && chmod +x h/pre-commit && mv .git/hooks .git/hooks.old && ln -s \$PWD/h .git/hooks"
escape "replace hooks by a renamed directory" "mkdir h && $hook > h/pre-commit && chmod +x h/pre-commit && mv .git/hooks .git/hooks.old && mv h .git/hooks"
escape "redirect commondir" "echo $ws/evil > .git/commondir; sleep 2"
escape "replace .git itself" "cp -a .git g2 && $fsm >> g2/config && mv .git g.old && mv g2 .git"
escape "write the submodule's config (modules/sub)" "$fsm >> .git/modules/sub/config"
escape "a hook in the submodule's git dir" "$hook > .git/modules/sub/hooks/pre-commit && chmod +x .git/modules/sub/hooks/pre-commit && cd sub && git commit -q --allow-empty -m x"
escape "replace the submodule's git dir" "cp -a .git/modules/sub s2 && $fsm >> s2/config && mv .git/modules/sub s.old && mv s2 .git/modules/sub"

# A submodule entry staged for a repository the command made: host git
# status would run git in it, and so its config.
gitlink="git init -q nested && git -C nested commit -q --allow-empty -m n &&
	git update-index --add --cacheinfo 160000,\$(git -C nested rev-parse HEAD),nested &&
	$fsm >> nested/.git/config"
fresh
expect_err 0 "nested/.git was made or changed during the run and the index holds a submodule entry" \
	"a gitlink staged for a new nested repository: its .git is moved aside at the end" -- \
	C -- sh -c "$gitlink"
probe
assert "and a host git status afterwards runs no planted program" -- test ! -e "$MARK"
assert "the staged entry itself stays (the index is the user's)" -- \
	test "$(G -C "$ws/repo" ls-files -s nested | cut -c1-6)" = 160000
fresh
(cd "$ws/repo" && sh -c "$gitlink") >/dev/null 2>&1
probe
assert "control: outside, the same makes host git status run the planted program" -- test -e "$MARK"

fresh
expect_err 1 "alternates" "creating objects/info/alternates stops the run" -- \
	C -- sh -c "echo $ws/evil/objects > .git/objects/info/alternates; sleep 2; touch after"
assert "and it was moved aside" -- test ! -e "$ws/repo/.git/objects/info/alternates" -a ! -e "$ws/repo/after"

# --- an exec line in a todo list does not outlive the run -------------------------------
fresh
expect 0 "an interactive rebase with --exec that stops inside" -- \
	C -- sh -c "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -q -i --exec 'touch $MARK' HEAD~1"
assert "stderr says the todo was moved aside" -- grep -q "git-rebase-todo was written during the run and it holds an exec line" "$ERR"
(cd "$ws/repo" && G rebase --continue) >/dev/null 2>&1 </dev/null
assert "a host git rebase --continue afterwards runs no exec line" -- test ! -e "$MARK"
fresh
expect 0 "control: a rebase without exec that stops inside" -- \
	C -- sh -c "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -q -i HEAD~1"
assert "control: its todo stays" -- test -f "$ws/repo/.git/rebase-merge/git-rebase-todo"
(cd "$ws/repo" && G rebase --continue) >/dev/null 2>&1 </dev/null
assert "control: and the host can finish it" -- test ! -e "$ws/repo/.git/rebase-merge"

# --- the refs that moved: --report and one line on stderr ------------------------------
fresh
old=$(G -C "$ws/repo" rev-parse main)
expect 0 "a commit and a new branch inside" -- \
	C --report "$ws/repo/rep.json" -- sh -c 'git commit -q --allow-empty -m r && git branch nb'
new=$(G -C "$ws/repo" rev-parse main)
assert "one stderr line names both refs, old and new ids, new commits" -- \
	test "$(grep -c "^cordon: refs changed (--git commit): $ws/repo/.git refs/heads/main ${old:0:12}..${new:0:12} (+1 commit), $ws/repo/.git refs/heads/nb (new)..${new:0:12} (+1 commit)$" "$ERR")" -eq 1
assert "the report lists them" -- python3 -c "
import json, sys
r = json.load(open('$ws/repo/rep.json'))['git_refs']
want = [{'repo': '$ws/repo/.git', 'ref': 'refs/heads/main', 'old': '$old', 'new': '$new', 'commits': 1},
        {'repo': '$ws/repo/.git', 'ref': 'refs/heads/nb', 'old': None, 'new': '$new', 'commits': 1}]
sys.exit(0 if sorted(r, key=str) == sorted(want, key=str) else 1)"
# The count is git's, run on the host: never a git the command could write.
# A git planted in a PATH directory inside the root is not what counts.
fresh
mkdir -p "$ws/repo/bin" && printf '#!/bin/sh\ntouch %s\necho 99\n' "$MARK" > "$ws/repo/bin/git" &&
	chmod +x "$ws/repo/bin/git"
old=$(G -C "$ws/repo" rev-parse main)
expect 0 "three commits inside, a planted git first in PATH" -- env PATH="$ws/repo/bin:$PATH" \
	"$CORDON" --git commit -w "$ws/repo" -C "$ws/repo" -- \
	sh -c 'for i in 1 2 3; do /usr/bin/git commit -q --allow-empty -m n$i; done'
assert "the count is git's: +3 commits" -- grep -q "refs/heads/main ${old:0:12}\.\.[0-9a-f]* (+3 commits)$" "$ERR"
assert "the planted git never ran on the host" -- test ! -e "$MARK"
expect 0 "control: a run that commits nothing" -- C -- git status --short
assert "control: says nothing of refs" -- test "$(grep -c 'refs changed' "$ERR")" -eq 0

# --- no ref change hidden from the refs line (issue 30, item 8) -----------------------
# In one run: a branch 17 directories deep; a loose ref that is a symbolic
# link (git reads through it: the end audit moves it aside, so that no host
# git follows it, and says so); a loose ref whose name holds
# terminal control sequences and a byte that is not UTF-8 (a file git
# itself would not make): escaped on stderr, raw and valid in the report.
fresh
deep=refs/heads/$(seq -f 'd%g' -s/ 17)
expect 0 "a deep branch, a branch whose loose ref is a link, a ref named with escape sequences" -- \
	C --report "$ws/repo/rep.json" -- sh -c "git commit -q --allow-empty -m deep && git update-ref $deep HEAD &&
	git commit -q --allow-empty -m hidden && git rev-parse HEAD > hidden-id && git reset -q --hard HEAD~2 &&
	ln -s ../../../hidden-id .git/refs/heads/hidden &&
	git rev-parse HEAD > \".git/refs/heads/\$(printf 'x\033[2K\rcordon: all clean\377')\""
assert "the refs line names the deep branch" -- grep -q "$ws/repo/.git $deep (new)\.\.[0-9a-f]* (+1 commit)" "$ERR"
assert "the loose ref that is a link is moved aside at the end, and said" -- \
	grep -q "$ws/repo/.git/refs/heads/hidden was made or changed during the run and it is a symbolic link" "$ERR"
assert "so a host git does not see that branch" -- sh -c "! git -C '$ws/repo' rev-parse -q --verify refs/heads/hidden"
assert "and the refs line does not list it" -- sh -c "! grep -q 'refs/heads/hidden (new)' '$ERR'"
assert "stderr carries no escape character, no CR and no invalid byte" -- \
	test "$(grep -c "$(printf '\033')" "$ERR")" -eq 0 -a "$(tr -d '\n' < "$ERR" | grep -c "$(printf '\r')")" -eq 0 -a \
	"$(LC_ALL=C grep -c "$(printf '\377')" "$ERR")" -eq 0
assert "the name is shown escaped" -- grep -qF 'refs/heads/x\x1b[2K\x0dcordon: all clean\xff (new)' "$ERR"
assert "the report is valid JSON and holds the raw name" -- python3 -c "
import json, sys
r = json.load(open('$ws/repo/rep.json'))
sys.exit(0 if 'refs/heads/x\x1b[2K\rcordon: all clean\u00ff' in [g['ref'] for g in r['git_refs']] and len(r['git_refs']) == 2 and r['git_refs_incomplete'] == [] else 1)"
# 20,001 refs before the run (one packed-refs file): a commit is still listed.
fresh
id=$(G -C "$ws/repo" rev-parse HEAD)
seq 20001 | awk -v id="$id" '{ print id " refs/tags/many" $1 }' >> "$ws/repo/.git/packed-refs"
expect 0 "a commit in a repository with 20,001 refs" -- C -- git commit -q --allow-empty -m many
assert "the refs line names main" -- grep -q "$ws/repo/.git refs/heads/main ${id:0:12}\.\.[0-9a-f]* (+1 commit)" "$ERR"
# A ref git reads that cordon cannot (a link to a directory, the user's
# own from before the run: one the run makes is moved aside by the end
# audit) is never a silent gap: the run says the list may be incomplete.
fresh
ln -s /usr "$ws/repo/.git/refs/heads/dirlink"
expect_err 0 "may be more than listed: cordon could not read them all" \
	"a loose ref that is a link to a directory: said" -- \
	C --report "$ws/repo/rep.json" -- git commit -q --allow-empty -m gap
assert "and the report lists the gap" -- python3 -c "
import json, sys
r = json.load(open('$ws/repo/rep.json'))
sys.exit(0 if [g['repo'] for g in r['git_refs_incomplete']] == ['$ws/repo/.git'] else 1)"

# --- the counting git never fetches (issue 30, item 10) ------------------------------
# A partial clone whose promisor remote runs a marker on contact: the
# command points a ref at a commit only the remote has.
fresh
PC="$W/pc"
rm -rf "$PC" && mkdir -p "$PC" && G init -q "$PC/srv" && G -C "$PC/srv" commit -q --allow-empty -m c1 &&
	G clone -q "$PC/srv" "$ws/pc" && G -C "$PC/srv" commit -q --allow-empty -m c2 &&
	printf '#!/bin/sh\ntouch %s\nexec git upload-pack "$@"\n' "$PC/CONTACTED" > "$PC/up.sh" && chmod +x "$PC/up.sh" &&
	G -C "$ws/pc" config core.repositoryformatversion 1 && G -C "$ws/pc" config extensions.partialClone origin &&
	G -C "$ws/pc" config remote.origin.promisor true && G -C "$ws/pc" config remote.origin.uploadpack "$PC/up.sh" &&
	G -C "$ws/pc" config remote.origin.url "file://$PC/srv" ||
	{ echo "t_gitcommit: cannot build the partial clone" >&2; exit 1; }
c2=$(G -C "$PC/srv" rev-parse HEAD)
expect 0 "a ref pointed at a commit only the promisor remote has" -- \
	"$CORDON" --git commit -w "$ws/pc" -C "$ws/pc" -- sh -c "echo $c2 > .git/refs/heads/x"
assert "the refs line names it, its count unknown" -- grep -q "$ws/pc/.git refs/heads/x (new)\.\.${c2:0:12}\$" "$ERR"
assert "the host git did not contact the remote" -- test ! -e "$PC/CONTACTED"
# (not asked of git: in a partial clone, asking fetches)
assert "and fetched nothing" -- test ! -e "$ws/pc/.git/objects/${c2:0:2}/${c2:2}" -a \
	-z "$(ls "$ws/pc/.git/objects/pack/" | grep promisor)"
(cd "$ws/pc" && G cat-file -t "$c2") >/dev/null 2>&1
assert "control: a host git in the partial clone does contact it" -- test -e "$PC/CONTACTED"

# --- writes to a read-only part fail with git's error ----------------------------------
fresh
for op in "git config foo.bar 1" "git remote add o /x" "git checkout -q -b x && git branch -u main"; do
	# git branch -u says "could not write config file" and exits 0
	C -- sh -c "$op" >"$OUT" 2>"$ERR" </dev/null
	assert "$op: git's own error" -- grep -q "could not \(write\|lock\) config file" "$ERR"
	assert "$op: one cordon line at the end names the read-only part" -- \
		test "$(grep -c '^cordon: git tried to write' "$ERR")" -eq 1 -a \
		"$(tail -n 1 "$ERR" | grep -c "^cordon: git tried to write $ws/repo/.git/config,")" -eq 1
done
assert "the host's config is unchanged" -- cmp -s "$ws/repo/.git/config" "$tpl/repo/.git/config"

# --- a linked worktree whose main repository lies outside the roots ------------------
# In /var/tmp: the private /tmp would hide the main checkout inside.  The
# common dir is split by the same rule: its data writable, the rest not.
LW=$(mktemp -d /var/tmp/cordon-it-gl.XXXXXX) && chmod 755 "$LW" && cleanup_dirs+=("$LW")
G init -q "$LW/tpl" && (cd "$LW/tpl" && G config extensions.worktreeConfig true &&
	G config core.repositoryformatversion 1 && G config filter.evil.clean "touch $MARK; cat" &&
	echo a > a && G add a && G commit -qm one && G branch old && G pack-refs --all) &&
	cp -a "$LW/tpl/.git" "$LW/evil" && cp "$tpl/evil/fsm" "$tpl/evil/hook" "$LW/" &&
	cat "$LW/fsm" >> "$LW/evil/config" ||
	{ echo "t_gitcommit: cannot build the linked worktree template" >&2; exit 1; }
m="$LW/main/.git" g="$LW/main/.git/worktrees/wt"
# lfresh DIR: DIR/main, and DIR/wt its linked worktree on branch feat.
lfresh() { rm -rf "$1/main" "$1/wt" "$MARK"; cp -a "$LW/tpl" "$1/main" &&
	G -C "$1/main" worktree add -q ../wt -b feat >/dev/null 2>&1; }
LC() { "$CORDON" --git commit -w "$LW/wt" -C "$LW/wt" "$@"; }
lflow='set -e
echo x > f; git add f; git commit -qm x
git update-ref -d refs/heads/old
git tag t1; git pack-refs --all
echo y > f; git commit -qam y
git rev-parse HEAD'
mkdir -p "$LW/o" && lfresh "$LW/o" && (cd "$LW/o/wt" && sh -c "$lflow" >"$W/lflow.out" 2>&1)
assert "linked: control: the workflow runs outside" -- test $? -eq 0
lfresh "$LW"
expect 0 "linked: a commit in a linked worktree whose main repository is outside the roots" -- \
	LC -- sh -c "$lflow"
assert "linked: prints the same" -- cmp -s "$OUT" "$W/lflow.out"
assert "linked: the main repository's refs inside equal those outside" -- \
	test "$(refs "$LW/main")" = "$(refs "$LW/o/main")" -a -n "$(G -C "$LW/main" rev-parse -q --verify t1)"
assert "linked: the refs line names the common dir's feat" -- grep -q "refs changed (--git commit): .*$m refs/heads/feat" "$ERR"
refuse "linked: the main repository's working files stay read-only" -- LC -- sh -c "echo x > $LW/main/a"
assert "linked: and its config is unchanged" -- cmp -s "$m/config" "$LW/tpl/.git/config"
expect_out 0 "^  $m +rw +--git commit: git's data writable; pinned in place \(the common dir of a linked" \
	"linked: explain shows the common dir writable and why" -- "$CORDON" explain --git commit -w "$LW/wt" -- true
expect_err 128 "index.lock" "linked: default mode: the commit fails" -- \
	"$CORDON" -w "$LW/wt" -C "$LW/wt" -- git commit -q --allow-empty -m x
# lescape DESCRIPTION SCRIPT: as escape, against the main repository.
lprobe() {
	(cd "$LW/main" && G status >/dev/null 2>&1; cd "$LW/wt" && G status >/dev/null 2>&1
	 echo p > probe && G add -A >/dev/null 2>&1; G commit -q -m probe >/dev/null 2>&1) </dev/null
}
lescape() {
	lfresh "$LW"
	refuse "linked: $1: fails inside" -- LC -- sh -c "$2"
	lprobe
	assert "linked: $1: a host git afterwards runs no planted program" -- test ! -e "$MARK"
	lfresh "$LW"
	(cd "$LW/wt" && sh -c "$2") >/dev/null 2>&1
	lprobe
	assert "linked: $1: control: outside, a host git runs the planted program" -- test -e "$MARK"
}
lescape "write its config" "cat $LW/fsm >> $m/config"
lescape "replace its config by rename" "cp $m/config c2 && cat $LW/fsm >> c2 && mv c2 $m/config"
lescape "unlink and recreate its config" "cp $m/config c2 && cat $LW/fsm >> c2 && rm -f $m/config && mv c2 $m/config"
lescape "create its config.worktree" "cat $LW/fsm > $m/config.worktree; sleep 2"
lescape "create the worktree's config.worktree" "cat $LW/fsm > $g/config.worktree; sleep 2"
lescape "create a hook" "cat $LW/hook > $m/hooks/pre-commit && chmod +x $m/hooks/pre-commit"
lescape "write info/attributes" "echo '* filter=evil' >> $m/info/attributes"
lescape "redirect the worktree's commondir" "echo $LW/evil > $g/commondir"
lescape "replace hooks by a symlink" "mkdir h && cat $LW/hook > h/pre-commit && chmod +x h/pre-commit && mv $m/hooks $m/hooks.old && ln -s \$PWD/h $m/hooks"
lescape "replace hooks by a renamed directory" "mkdir h && cat $LW/hook > h/pre-commit && chmod +x h/pre-commit && mv $m/hooks $m/hooks.old && mv h $m/hooks"
lfresh "$LW"
refuse "linked: the worktree's gitdir cannot be rewritten" -- LC -- sh -c "echo $LW/x/.git > $g/gitdir"
expect 0 "linked: control: outside it can" -- sh -c "echo $LW/x/.git > $g/gitdir"
lfresh "$LW"
expect_err 1 "alternates" "linked: creating objects/info/alternates stops the run" -- \
	LC -- sh -c "echo $LW/evil/objects > $m/objects/info/alternates; sleep 2; touch after"
assert "linked: and it was moved aside" -- test ! -e "$m/objects/info/alternates" -a ! -e "$LW/wt/after"
lfresh "$LW"
expect_err 0 "nested/.git was made or changed during the run" "linked: a gitlink staged in the worktree's index: its .git is moved aside" -- \
	LC -- sh -c "${gitlink//$fsm/cat $LW/fsm}"
lprobe
assert "linked: and a host git status afterwards runs no planted program" -- test ! -e "$MARK"
# A .git file pointing at a git dir that is not this worktree's: nothing writable.
lfresh "$LW"
before=$(refs "$LW/main")
mkdir -p "$LW/r2" "$LW/r3" && echo "gitdir: $g" > "$LW/r2/.git" && echo "gitdir: /etc" > "$LW/r3/.git"
expect_err 128 "does not name this .git file back" "linked: a .git file naming another worktree's git dir makes nothing writable" -- \
	"$CORDON" --git commit -w "$LW/r2" -C "$LW/r2" -- git commit -q --allow-empty -m x
expect_err 1 "no commondir file" "linked: a .git file naming /etc makes nothing writable" -- \
	"$CORDON" --git commit -w "$LW/r3" -C "$LW/r3" -- sh -c "touch /etc/cordon-h20 || exit 1"
expect_err 128 "a writable root lies inside its common dir" "linked: a writable root inside the common dir: it stays read-only" -- \
	LC -w "$m/refs" -- git commit -q --allow-empty -m x
assert "linked: none of those moved a ref" -- test "$(refs "$LW/main")" = "$before"

# --- seventy submodule git dirs (issue 30, items 13 and 14) ----------------------------
# Each git dir costs cordon a few descriptors and the guardian two watched
# directories.  Built once, with plain git: a bare repository copied.
MS="$W/ms"
mkdir -p "$MS" && G init -q "$MS/tpl" && G -C "$MS/tpl" commit -q --allow-empty -m one &&
	G init -q --bare "$MS/m0.git" && mkdir "$MS/tpl/.git/modules" &&
	for i in $(seq 70); do cp -a "$MS/m0.git" "$MS/tpl/.git/modules/m$i" || exit 1; done ||
	{ echo "t_gitcommit: cannot build the submodules template" >&2; exit 1; }
msfresh() { rm -rf "$MS/repo" && cp -a "$MS/tpl" "$MS/repo"; }
# no_bwrap MARK: no bwrap (nor its child, which keeps its command line) of a
# run whose command line ends in MARK is left.
no_bwrap() { ! pgrep -f "^bwrap .* $1\$" >/dev/null; }
# with_nofile SPEC COMMAND...: COMMAND under `ulimit SPEC`.
with_nofile() { local spec=$1; shift; bash -c 'ulimit '"$spec"' && exec "$@"' sh "$@"; }
msfresh
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ]; then
	expect_out 0 "^1024$" "70 submodule git dirs with the usual soft limit of 1024: the run starts, and the command's limit is still 1024" -- \
		with_nofile "-Sn 1024" "$CORDON" --git commit -w "$MS/repo" -C "$MS/repo" -- sh -c 'ulimit -n'
else
	echo "  skip [$WHO] a hard RLIMIT_NOFILE below 4096: cordon cannot take more than 1024"
fi
mark="cordon-ms-$$-$RANDOM"
expect_err 125 "No file descriptors available|Too many open files" \
	"with a hard limit of 1024 the start runs out of descriptors: 125, said so" -- \
	with_nofile "-n 1024" "$CORDON" --git commit -w "$MS/repo" -C "$MS/repo" -- true "$mark"
assert "and no bwrap of that run is left behind" -- wait_for 30 no_bwrap "$mark"
expect_err 125 "cannot check that the writable root $MS/repo still leads" \
	"out of descriptors earlier (hard limit 400): the root check fails as an error" -- \
	with_nofile "-n 400" "$CORDON" --git commit -w "$MS/repo" -C "$MS/repo" -- true "$mark"
assert "and never says that a root moved" -- test "$(grep -c 'no longer leads' "$ERR")" -eq 0
assert "and no bwrap of that run is left behind" -- wait_for 30 no_bwrap "$mark"
# kill -9 of cordon after the command made a commondir in each of the 70
# (cordon stopped first, so that it cannot react): the guardian moves
# every one aside, past its old cap of 128 watched directories.
msfresh
mark="cordon-ms-$$-$RANDOM"
"$CORDON" --git commit -w "$MS/repo" -C "$MS/repo" -- bash -c "touch ready; while [ ! -e go ]; do sleep 0.02; done
	for d in .git/modules/m*; do echo $W/evil > \$d/commondir; done; touch made; exec -a $mark sleep 30" \
	</dev/null >/dev/null 2>&1 &
cpid=$!
wait_for 100 test -e "$MS/repo/ready"
kill -STOP "$cpid"
touch "$MS/repo/go"
wait_for 100 test -e "$MS/repo/made"
assert "with cordon stopped, the command made 70 commondir files" -- \
	test "$(ls "$MS"/repo/.git/modules/m*/commondir | wc -l)" -eq 70
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
mscommondirs() { ls "$MS"/repo/.git/modules/m*/commondir 2>/dev/null | wc -l; }
no_commondir() { [ "$(mscommondirs)" -eq 0 ]; }
wait_for 100 no_commondir
assert "kill -9 of cordon: the guardian moved all 70 aside" -- test "$(mscommondirs)" -eq 0 -a \
	"$(ls -d "$MS"/repo/.git/modules/m*/commondir.cordon-quarantine-* | wc -l)" -eq 70
assert "and the sandbox is gone" -- wait_for 50 sh -c "! pgrep -f '^$mark 30\$' >/dev/null"

finish

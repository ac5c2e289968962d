#!/usr/bin/env bash
# t_nested.sh: a writable root nested in another keeps its protection (issue
# 19, item 2).  A root is a mount point, but renaming a directory above it
# inside the outer root moved the mount away: the inner root's path became
# an ordinary, unwatched directory of the outer root, where the command
# planted a .git the host's git would run.  The directories between nested
# roots are pinned (cannot be renamed or removed inside), and at the end
# cordon checks that each root's path still leads to the directory it
# started with.  Runs as root and as a user, with and without Landlock
# (run.sh); the assertions look at the host.
. "$(dirname "$0")/lib.sh"

PLANT='mkdir -p a/R/.git && printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" > a/R/.git/config'

# --- -w P -w P/a/R: the directory between them stays in place ---------------------
p="$W/p"
mkdir -p "$p/a/R"
N=("$CORDON" -w "$p" -w "$p/a/R" -C "$p")
refuse "renaming the directory between two roots fails (no .git in the inner root)" -- \
	"${N[@]}" -- sh -c "mv a b && $PLANT"
assert "no repository was planted at the inner root's path" -- test ! -e "$p/a/R/.git"
assert "the directory is still where it was" -- test -d "$p/a/R" -a ! -e "$p/b"
refuse "nor removed with what is in it" -- "${N[@]}" -- sh -c "rm -rf a; $PLANT"
assert "the inner root is untouched" -- test -d "$p/a/R" -a ! -e "$p/a/R/.git"
refuse "a protected name created in the inner root still stops the run" -- \
	"${N[@]}" -- sh -c 'mkdir a/R/.git'
assert "and it was moved aside" -- test ! -e "$p/a/R/.git"
rm -rf "$p"/a/R/.git.cordon-quarantine-*

# --- the same when the inner root has a real .git (explain lists it protected) -----
q="$W/q"
mkdir -p "$q/a/R/.git"
printf '[core]\n\tbare = false\n' > "$q/a/R/.git/config"
Q=("$CORDON" -w "$q" -w "$q/a/R" -C "$q")
expect_out 0 "$q/a/R/.git +protected +.*exists, read-only" \
	"explain lists the inner root's .git as protected" -- \
	"$CORDON" explain -w "$q" -w "$q/a/R" -C "$q" -- true
refuse "renaming the directory above a real .git's root fails" -- \
	"${Q[@]}" -- sh -c "mv a b && $PLANT"
assert "the real .git/config is unchanged" -- grep -q 'bare = false' "$q/a/R/.git/config"
assert "and nothing was renamed" -- test ! -e "$q/b" -a ! -e "$q/a/R/.git/config.lock"

# --- three levels ------------------------------------------------------------------
t="$W/t"
fresh3() { rm -rf "$t"; mkdir -p "$t/a/b/R1/c/d/R2"; }
T=("$CORDON" -w "$t" -w "$t/a/b/R1" -w "$t/a/b/R1/c/d/R2" -C "$t")
untouched3() {
	test -d "$t/a/b/R1/c/d/R2" -a ! -e "$t/x" -a ! -e "$t/a/x" -a ! -e "$t/a/b/R1/x" \
		-a ! -e "$t/a/b/R1/c/x" -a ! -e "$t/a/b/R1/.git" -a ! -e "$t/a/b/R1/c/d/R2/.git"
}
# try3 DESCRIPTION SCRIPT: from a fresh tree, the script renames and plants.
try3() {
	fresh3
	refuse "three levels: $1" -- "${T[@]}" -- sh -c "$2"
	assert "three levels: $1: nothing moved, nothing planted" -- untouched3
}
try3 "the outer root's child above both inner roots" 'mv a x && mkdir -p a/b/R1/c/d/R2/.git'
try3 "the directory just above the middle root" 'mv a/b a/x && mkdir -p a/b/R1/.git'
try3 "a directory between the middle and the innermost root" \
	'mv a/b/R1/c a/b/R1/x && mkdir -p a/b/R1/c/d/R2/.git'
try3 "the one just above the innermost root" 'cd a/b/R1/c && mv d x && mkdir -p d/R2/.git'

# --- mount mode: the placeholders of the inner root stay where they are -------------
m="$W/m"
mkdir -p "$m/a/R"
refuse "--protect-missing mount: renaming the directory between two roots fails" -- \
	"$CORDON" --protect-missing mount -w "$m" -w "$m/a/R" -C "$m" -- sh -c "mv a b && $PLANT"
assert "--protect-missing mount: nothing planted, nothing left" -- \
	test ! -e "$m/a/R/.git" -a ! -e "$m/b"

# --- cordon killed while the command tries (the guardian's end of the run) ---------
# cordon stopped, the command renames and plants, cordon killed: the pins
# are the sandbox's own mounts and hold without cordon.
k="$W/k"
mkdir -p "$k/a/R"
env RUN_MARK="nested-$$" "$CORDON" -w "$k" -w "$k/a/R" -C "$k" -- sh -c \
	"touch started; while [ ! -e go ]; do sleep 0.05; done; mv a b; $PLANT; touch done; sleep 30" \
	>/dev/null 2>&1 </dev/null &
cpid=$!
wait_for 100 test -e "$k/started"
kill -STOP "$cpid"
touch "$k/go"
wait_for 100 test -e "$k/done"
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
assert "cordon killed: its guardian ended the run and left" -- no_guardian_left "nested-$$"
assert "cordon killed: the command got to its end" -- test -e "$k/done"
# The .git then went into the inner root itself, watched by cordon (stopped)
# and rechecked by its guardian once the sandbox was gone.
assert "cordon killed: the rename failed and nothing stayed planted" -- \
	test -d "$k/a/R" -a ! -e "$k/b" -a ! -e "$k/a/R/.git"

# --- the end check: a root moved from outside the sandbox --------------------------
# The pins stop the command; a host process can still move a directory.
# The run then ends with a violation: the protected names were watched in
# the directory that moved, not at the path the user will look at.
e="$W/e"
mkdir -p "$e/a/R"
R="$W/e.json"
"$CORDON" -w "$e" -w "$e/a/R" -C "$e" --report "$R" -- sh -c \
	'touch started; while [ ! -e go ]; do sleep 0.05; done' >"$OUT" 2>"$ERR" </dev/null &
cpid=$!
wait_for 100 test -e "$e/started"
mv "$e/a" "$e/b" && mkdir -p "$e/a/R" && touch "$e/go"
wait "$cpid"
st=$?
assert "a root moved during the run ends it with status 1 ($st)" -- test "$st" -eq 1
assert "stderr names the root and says it no longer leads there" -- \
	grep -q "$e/a/R.*no longer leads to the directory" "$ERR"
assert "the report lists the violation" -- grep -q '"kind": *"root_moved"' "$R"

# --- --full-write: pins never bring the host's /tmp over the private one --------------
# "/" is the writable root above a path outside every root, but the private
# /tmp hides the host's: a pin of a directory there (a bind of the host's
# directory onto itself) made the host's /tmp writable inside.
f="$W/fw"
mkdir -p "$f/y/z"
"$CORDON" --full-write --read-only "$f/y/z" -C / -- sh -c "touch '$f/y/planted'" >/dev/null 2>&1 </dev/null
assert "--full-write, a --read-only path under the private /tmp: nothing lands in the host's /tmp" -- \
	test ! -e "$f/y/planted"
expect 0 "control: with --full-write the private /tmp is writable" -- \
	"$CORDON" --full-write -C / -- sh -c 'touch /tmp/x && test -e /tmp/x'

# --- controls ------------------------------------------------------------------------
c="$W/c"
mkdir -p "$c/a/R/sub" "$c/free/x"
CC=("$CORDON" -w "$c" -w "$c/a/R" -C "$c")
expect 0 "control: a child of the outer root that holds no inner root can be renamed" -- \
	"${CC[@]}" -- sh -c 'mv free free2 && mkdir -p free/y'
assert "control: the rename landed on the host" -- test -d "$c/free2/x" -a -d "$c/free/y"
expect 0 "control: inside the inner root a directory can be renamed" -- \
	"${CC[@]}" -- sh -c 'mv a/R/sub a/R/sub2'
assert "control: that rename landed too" -- test -d "$c/a/R/sub2"
expect 0 "control: the pinned directory stays writable" -- \
	"${CC[@]}" -- sh -c 'echo x > a/note && mkdir a/other && mv a/other a/other2'
assert "control: the writes in it landed" -- test -f "$c/a/note" -a -d "$c/a/other2"
expect 0 "control: a run that moves nothing ends 0" -- "${CC[@]}" -- true

finish

#!/usr/bin/env bash
# t_watch.sh: --protect-missing watch, the default (DESIGN.md section 5): a
# missing protected name stays absent inside, exactly as on the host, and
# nothing is created on the host for it; creating one, in any way, stops
# the run, moves the new entry aside (NAME.cordon-quarantine-RANDOM, never
# deleted, under a name the command cannot make in advance), says so and ends with status 1; a name made in a subdirectory
# is fine; nothing of the run is left on disk after any end.
. "$(dirname "$0")/lib.sh"

GIT=(git -c user.name=cordon -c user.email=cordon@example.invalid -c init.defaultBranch=main)
ws="$W/ws"
fresh() { rm -rf "$ws"; mkdir -p "$ws"; }
snap() { ls -A "$1" | sort | tr '\n' ' '; }
# The source repository is a second writable root: the private /tmp would
# hide it otherwise.
C() { "$CORDON" -w "$ws" -w "$src" -C "$ws" "$@"; }
quarantined() { ls -A "$ws" | grep -Ec "^$(printf %s "$1" | sed 's/\./\\./g')\\.cordon-quarantine-[0-9a-f]{16}\$"; }

# A local repository to clone from, outside the workspace.
src="$W/src"
mkdir -p "$src"
"${GIT[@]}" -C "$src" init -q && echo hi > "$src/f" && "${GIT[@]}" -C "$src" add f &&
	"${GIT[@]}" -C "$src" commit -qm one

# --- absent inside, as on the host --------------------------------------------
fresh
expect 0 "a missing .git is absent inside (test -e .git is false)" -- \
	C -- sh -c '! test -e .git && ! test -e .codex && ! test -e .agents && ! test -e .aws'
expect 0 "ls -A in an empty workspace works" -- C -- ls -A
assert "and lists nothing (no placeholders)" -- test ! -s "$OUT"
assert "and nothing was created on the host" -- test -z "$(snap "$ws")"
expect 0 "git finds no repository in a non-repository workspace" -- \
	C -- sh -c '! git rev-parse --git-dir 2>/dev/null'

# --- each way of creating a protected name stops the run -------------------------
# try DESCRIPTION NAME SCRIPT: the script creates NAME at the top of the
# root, then would go on (touch after); the run must stop at the creation.
try() {
	local desc=$1 name=$2 script=$3
	fresh
	expect_err 1 "protected name" "$desc: the run stops with status 1" -- \
		C -- sh -c "$script; sleep 2; touch after"
	assert "$desc: the command was stopped before it went on" -- test ! -e "$ws/after"
	assert "$desc: $name is not on the host any more" -- test ! -e "$ws/$name" -a ! -L "$ws/$name"
	# Moved aside at the kill; a process of the sandbox not dead yet may
	# make it again before bwrap is gone, and that one is moved aside too,
	# or remove what it made (git clone cleans up the directory it cloned
	# into when it fails): then stderr says so.
	assert "$desc: it was moved aside, not deleted by cordon" -- \
		sh -c "test $(quarantined "$name") -ge 1 || grep -q 'where the command removed it before it died' '$ERR'"
	assert "$desc: stderr says what was created and where it went" -- \
		grep -q "$ws/$name was created during the run.*moved aside, not deleted, to $ws/$name.cordon-quarantine-" "$ERR"
	# Once per entry it reports: a dying git may make a second .git after
	# the first was moved aside at the kill, which is then reported too.
	assert "$desc: stderr names the flag that would allow it, once per entry" -- \
		test "$(grep -o -- "--unprotect $name" "$ERR" | wc -l)" -eq "$(grep -c "was created during the run" "$ERR")"
	[ "$name" != .git ] || assert "$desc: stderr says how not to make a repository there" -- \
		grep -Eq "subdirectory|--vcs none" "$ERR"
}
try "mkdir .git" .git 'mkdir .git'
try "open(O_CREAT) of .git" .git 'echo x > .git'
try "rename of a directory onto .git" .git 'mkdir d && mv -T d .git'
try "rename of a file onto .git" .git 'touch f && mv -T f .git'
try "hard link onto .git" .git 'touch h && ln -T h .git'
try "symlink onto .git" .git 'ln -sT /etc .git'
try "mkdir .codex" .codex 'mkdir .codex'
try "mkdir .agents" .agents 'mkdir .agents'
try "open(O_CREAT) of .aws" .aws 'echo x > .aws'
try "git init at the top of the root" .git "${GIT[*]} init -q ."
try "git clone of a local repository into ." .git "${GIT[*]} clone -q $src ."
assert "git clone: stderr says how to clone into a subdirectory" -- grep -q "git clone URL SUBDIR" "$ERR"
assert "the quarantined .git of the clone is kept as it was made (a directory), unless git removed it" -- \
	sh -c "test -d \"\$(ls -d '$ws'/.git.cordon-quarantine-* 2>/dev/null | head -n 1)\" || grep -q 'where the command removed it' '$ERR'"
try "git init at the top of the root" .git "${GIT[*]} init -q ."
assert "git init: stderr says git init SUBDIR" -- grep -q "git init SUBDIR creates" "$ERR"
# cargo init makes a repository of its own (a stand-in named cargo that
# does what it does, so that the test needs no Rust toolchain): the
# message names cargo's own way out.
mkdir -p "$W/bin"
printf '#!/bin/sh\nmkdir .git && touch Cargo.toml\n' >"$W/bin/cargo"
chmod 755 "$W/bin/cargo"
try "cargo init at the top of the root" .git "PATH=$W/bin:\$PATH cargo init"
assert "cargo init: stderr says cargo init --vcs none" -- grep -q "cargo init --vcs none creates no repository" "$ERR"

# --- controls --------------------------------------------------------------------------
fresh
expect 0 "control: git init in a subdirectory works" -- C -- "${GIT[@]}" init -q sub
assert "control: sub/.git is on the host, nothing quarantined" -- \
	test -d "$ws/sub/.git" -a "$(snap "$ws")" = "sub "
fresh
expect 0 "control: git clone into a subdirectory works" -- C -- "${GIT[@]}" clone -q "$src" sub
assert "control: the clone is on the host" -- test -f "$ws/sub/f" -a -d "$ws/sub/.git"
fresh
expect 0 "control: --no-default-protect lets the command create .git" -- \
	C --no-default-protect -- mkdir .git
assert "control: .git stays" -- test -d "$ws/.git" -a "$(snap "$ws")" = ".git "
fresh
expect 0 "--unprotect .codex lets the command create .codex" -- C --unprotect .codex -- mkdir .codex
assert "and .codex stays" -- test -d "$ws/.codex" -a "$(snap "$ws")" = ".codex "
fresh
expect_err 1 "was created during the run" "--unprotect .codex: .git stays protected" -- \
	C --unprotect .codex -- sh -c 'mkdir .git; sleep 5'
fresh
expect_err 125 "--unprotect .hg: not one of the names cordon protects by default" \
	"--unprotect of a name that is not a default one is refused" -- C --unprotect .hg -- true
fresh
expect 0 "control: a sibling name is created normally" -- C -- sh -c 'mkdir .gitx && echo x > .git2'
assert "control: the siblings are on the host" -- test "$(snap "$ws")" = ".git2 .gitx "

# An existing name is still bound read-only.
fresh
mkdir "$ws/.git"
refuse "an existing .git stays read-only" -- C -- sh -c 'echo x > .git/config'
assert "and it is left as it was" -- test -z "$(ls -A "$ws/.git")"

# With a cgroup of the run's own (--limit-cpu: a v2 one where the caller may
# make it, killed through cgroup.kill), the same.
fresh
expect_err 1 "protected name" "with --limit-cpu, mkdir .git stops the run" -- \
	C --limit-cpu 100 -- sh -c 'sleep 100 & mkdir .git; sleep 2; touch after'
assert "with --limit-cpu: the command was stopped, .git moved aside" -- \
	test ! -e "$ws/after" -a ! -e "$ws/.git" -a "$(quarantined .git)" -ge 1

# --protect NAME is watched too, and the message names the flag.
fresh
expect_err 1 "no --protect \\.secret" "a --protect name is watched, and the message says how to allow it" -- \
	C --protect .secret -- mkdir .secret
assert "it was moved aside" -- test "$(quarantined .secret)" -eq 1

# --- nothing of the run is left on disk -----------------------------------------
fresh
expect 0 "a normal run over an empty workspace" -- C -- true
assert "leaves nothing in it" -- test -z "$(snap "$ws")"
expect 124 "a run that times out" -- C --timeout 1 -- sleep 30
assert "leaves nothing in it" -- test -z "$(snap "$ws")"
# cordon itself, not a subshell running C, so that $! is cordon.
mark="cordon-watch-$$-$RANDOM"
"$CORDON" -w "$ws" -w "$src" -C "$ws" -- bash -c "touch ready; exec -a $mark sleep 30" </dev/null >/dev/null 2>&1 &
cpid=$!
for _ in $(seq 250); do [ -e "$ws/ready" ] && break; sleep 0.02; done
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
gone() { ! pgrep -f "^$mark 30\$" >/dev/null; }
for _ in $(seq 150); do gone && break; sleep 0.02; done
assert "kill -9 of cordon ends the sandbox" -- gone
assert "kill -9 of cordon leaves nothing but what the command made" -- test "$(snap "$ws")" = "ready "

# cordon killed after the command created a name (cordon stopped first, so
# that it cannot react): its guardian moves the name aside once the sandbox
# is gone.  The same when the command makes the name by renaming a
# directory that existed before the run (or by linking an old file): the
# entry keeps its old birth time, but the name was missing when the run
# started, so the guardian moves it aside all the same.
killed_in_window() { # NAME HOW
	fresh
	mkdir "$ws/olddir" && echo old >"$ws/olddir/data" && echo old >"$ws/oldfile"
	sleep 0.05
	mark="cordon-watch-$$-$RANDOM"
	"$CORDON" -w "$ws" -C "$ws" -- bash -c \
		"touch ready; while [ ! -e go ]; do sleep 0.02; done; $2; exec -a $mark sleep 30" \
		</dev/null >/dev/null 2>&1 &
	cpid=$!
	for _ in $(seq 250); do [ -e "$ws/ready" ] && break; sleep 0.02; done
	kill -STOP "$cpid"
	touch "$ws/go"
	for _ in $(seq 250); do [ -e "$ws/$1" ] && break; sleep 0.02; done
	assert "$2 while cordon was stopped: $1 is there" -- test -e "$ws/$1"
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	for _ in $(seq 250); do [ ! -e "$ws/$1" ] && break; sleep 0.02; done
	assert "kill -9 of cordon after $2: the guardian moved $1 aside" -- \
		test ! -e "$ws/$1" -a "$(quarantined "$1")" -eq 1
	assert "kill -9 of cordon after $2: and the sandbox is gone" -- gone
}
killed_in_window .git "mkdir .git"
killed_in_window .git "mv -T olddir .git"
assert "the renamed directory is kept whole, moved aside" -- \
	grep -qx old "$ws"/.git.cordon-quarantine-*/data
killed_in_window .gitconfig "ln oldfile .gitconfig"
assert "the linked file is kept, and its other name too" -- \
	test "$(cat "$ws"/.gitconfig.cordon-quarantine-*)" = old -a -f "$ws/oldfile"
# Control: an old entry under a name that is not watched stays where it is.
killed_in_window .git "mv oldfile notes; mv -T olddir .git"
assert "control: a rename to an unprotected name is left alone" -- test -f "$ws/notes"

# --- the quarantine cannot be blocked (issue 19 item 1) -----------------------------
# The old scheme moved .git to .git.cordon-quarantine-PID (then -PID-2 ...
# -PID-99), cordon's pid being one the command could learn: with all of
# them made in advance the move failed and .git stayed on the host.
fresh
"$CORDON" -w "$ws" -C "$ws" -- sh -c \
	'touch ready; while [ ! -e go ]; do sleep 0.02; done; mkdir .git; echo x > .git/config; sleep 30' \
	</dev/null >/dev/null 2>"$W/col.err" &
cpid=$!
for _ in $(seq 250); do [ -e "$ws/ready" ] && break; sleep 0.02; done
mkdir "$ws/.git.cordon-quarantine-$cpid"
for i in $(seq 2 99); do mkdir "$ws/.git.cordon-quarantine-$cpid-$i"; done
touch "$ws/go"
wait "$cpid"
st=$?
assert "every predictable name taken: the run still stops (status 1)" -- test "$st" -eq 1
assert "every predictable name taken: .git is not on the host" -- test ! -e "$ws/.git" -a ! -L "$ws/.git"
assert "every predictable name taken: .git moved aside under a random name" -- test "$(quarantined .git)" -eq 1
assert "every predictable name taken: the directory the command made is what moved" -- \
	test -d "$(ls -d "$ws"/.git.cordon-quarantine-* | grep -E -- '-[0-9a-f]{16}$')"
assert "every predictable name taken: those 99 names are left as they were" -- \
	test "$(find "$ws" -maxdepth 1 -name ".git.cordon-quarantine-$cpid*" -empty | wc -l)" -eq 99
assert "every predictable name taken: stderr names where .git went" -- \
	grep -q "moved aside, not deleted, to $ws/.git.cordon-quarantine-" "$W/col.err"

# A 250-byte --protect name leaves no room for the suffix (NAME_MAX 255):
# it is moved aside under the short form.
fresh
long=$(head -c 250 /dev/zero | tr '\0' p)
expect_err 1 "protected name" "a 250-byte --protect name created inside stops the run" -- \
	C --protect "$long" -- sh -c "mkdir $long; sleep 2; touch after"
assert "the 250-byte name is not on the host any more" -- test ! -e "$ws/$long"
assert "it was moved aside as .cordon-quarantine-RANDOM (the directory made)" -- \
	test "$(ls -A "$ws" | grep -Ec '^\.cordon-quarantine-[0-9a-f]{16}$')" -eq 1 -a -d "$ws"/.cordon-quarantine-*
assert "and the command was stopped" -- test ! -e "$ws/after"
expect_err 1 "protected name" "control: --protect .secret2" -- C --protect .secret2 -- mkdir .secret2
assert "control: moved to .secret2.cordon-quarantine-RANDOM" -- test "$(quarantined .secret2)" -eq 1

# A full filesystem: the rename needs no space.  Root mounts a small tmpfs
# as the writable root and runs cordon as itself and as the test user.
TU=${CORDON_TEST_USER:-cordontest}
if ! is_root; then
	echo "  skip [$WHO] a full filesystem needs a mount (the root pass runs it as root and as $TU)"
elif ! id "$TU" >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	echo "  skip [$WHO] a full filesystem: no test user $TU or no setpriv"
else
	full="$W/full"
	mkdir "$full"
	if mount -t tmpfs -o size=256k tmpfs "$full"; then
		trap 'umount "$full" 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT
		for who in root "$TU"; do
			rm -rf "${full:?}"/* "$full"/.[!.]* 2>/dev/null
			chown "$who:" "$full"
			run=("$CORDON")
			[ "$who" = root ] || run=(setpriv --reuid="$TU" --regid="$TU" --init-groups \
				env HOME="$(getent passwd "$TU" | cut -d: -f6)" "$CORDON")
			expect_err 1 "protected name" "$who: .git made on a full filesystem stops the run" -- \
				"${run[@]}" -w "$full" -C "$full" -- sh -c \
				'cat /dev/zero > fill 2>/dev/null; df -k . | tail -n 1; mkdir .git; sleep 5; touch after'
			assert "$who: the filesystem was full" -- test "$(awk '{ print $4 }' "$OUT")" = 0
			assert "$who: .git is not on the full filesystem any more" -- test ! -e "$full/.git"
			assert "$who: it was moved aside, and the filler is kept" -- \
				test "$(ls -A "$full" | grep -Ec '^\.git\.cordon-quarantine-[0-9a-f]{16}$')" -eq 1 -a -s "$full/fill"
		done
		umount "$full"
	else
		bad "cannot mount a small tmpfs at $full"
	fi
fi

# --- a host process creating the name concurrently loses nothing -------------------
fresh
C -- sh -c 'touch ready; exec sleep 30' </dev/null >/dev/null 2>"$ERR" &
cpid=$!
for _ in $(seq 250); do [ -e "$ws/ready" ] && break; sleep 0.02; done
# Made elsewhere and renamed into place, as a tool that writes atomically
# does: cordon may move the name aside at any moment after it appears.
mkdir "$W/hostgit" && echo precious > "$W/hostgit/data" && mv -T "$W/hostgit" "$ws/.git"
wait "$cpid"
st=$?
assert "a .git made on the host during the run stops it (status 1)" -- test "$st" -eq 1
assert "its content is kept, moved aside" -- \
	grep -qx precious "$ws"/.git.cordon-quarantine-*/data
assert "stderr says so" -- grep -q "$ws/.git was created during the run" "$ERR"

# --- protected dotfiles (issue 13): watched when missing, read-only when present ------
DOTS=(.bashrc .bash_profile .profile .zshrc .zprofile .gitconfig .gitmodules .ripgreprc
      .mcp.json .vscode .idea .claude .cursor)
for d in "${DOTS[@]}"; do
	fresh
	expect_err 1 "$d .* protected name" "creating $d stops the run" -- C -- sh -c "echo x > $d"
	assert "$d was moved aside, and nothing else is left" -- \
		test "$(quarantined "$d")" -eq 1 -a "$(ls -A "$ws" | wc -l)" -eq 1
done
try "mkdir .vscode" .vscode 'mkdir .vscode'
try "rename a file onto .bashrc" .bashrc 'touch f && mv -T f .bashrc'
try "hard link onto .gitconfig" .gitconfig 'touch h && ln -T h .gitconfig'
try "symlink at .mcp.json" .mcp.json 'ln -sT /etc/passwd .mcp.json'
try "git submodule's .gitmodules" .gitmodules 'printf "[submodule \"x\"]\n" > .gitmodules'
fresh
echo 'echo hi' > "$ws/.bashrc"
mkdir "$ws/.vscode"
refuse "an existing .bashrc is read-only" -- C -- sh -c 'echo evil >> .bashrc'
refuse "an existing .vscode is read-only" -- C -- sh -c 'echo {} > .vscode/tasks.json'
assert "both are left as they were" -- \
	test "$(cat "$ws/.bashrc")" = "echo hi" -a -z "$(ls -A "$ws/.vscode")"
expect 0 "control: a dotfile in a subdirectory is created normally" -- \
	C -- sh -c 'mkdir sub && echo x > sub/.bashrc && mkdir sub/.vscode'
fresh
expect 0 "control: --no-default-protect lets the command create .bashrc" -- \
	C --no-default-protect -- sh -c 'echo x > .bashrc'
assert "control: .bashrc stays" -- test -f "$ws/.bashrc"
fresh
refuse "--protect-missing mount: a missing dotfile is watched, not mounted" -- \
	C --protect-missing mount -- sh -c 'test ! -e .bashrc && echo x > .bashrc'
assert "--protect-missing mount: .bashrc moved aside, no placeholder left" -- \
	test "$(quarantined .bashrc)" -eq 1 -a "$(ls -A "$ws" | wc -l)" -eq 1
fresh
expect_out 0 "$ws/\.claude +watched +default protected dotfile: missing" "cordon explain lists the dotfiles" -- \
	"$CORDON" explain -w "$ws" -C "$ws" -- true
assert "cordon explain lists every default name" -- \
	test "$(grep -c "^  $ws/\." "$OUT")" -eq $((4 + ${#DOTS[@]}))

# --- mount mode still exists ----------------------------------------------------------
fresh
refuse "--protect-missing mount: mkdir .git fails inside" -- C --protect-missing mount -- mkdir .git
assert "--protect-missing mount: nothing left after it" -- test -z "$(snap "$ws")"
finish

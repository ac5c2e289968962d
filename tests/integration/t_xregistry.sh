#!/usr/bin/env bash
# t_xregistry.sh: two runs over one workspace that keep their records in
# different registries (issue 9): as root, root's run and the user
# cordontest's at once; as a user, two XDG_STATE_HOMEs.  The first run's end
# must not remove the mount point the second sandbox still binds (rmdir on
# the host would detach it there, and the second command could then plant
# .git/hooks/pre-commit); it goes once the second sandbox ends, and nothing
# of either run is left behind.
. "$(dirname "$0")/lib.sh"

OTHER=${CORDON_TEST_USER:-cordontest}
ws="$W/ws"
mkdir -p "$ws" "$W/xa" "$W/xb"
# B's side: as root, the user's run; as a user, the same user again.
if is_root && id "$OTHER" >/dev/null 2>&1; then
	chown "$OTHER" "$ws" "$W/xb"
	B=("$(PATH=$PATH:/usr/sbin:/sbin command -v runuser)" -u "$OTHER" -- env XDG_STATE_HOME="$W/xb" HOME="$(getent passwd "$OTHER" | cut -d: -f6)")
	side="root and $OTHER"
else
	B=(env XDG_STATE_HOME="$W/xb")
	side="two XDG_STATE_HOMEs"
fi
A=(env XDG_STATE_HOME="$W/xa")
RA="$W/xa/cordon/registry"

# within MS COMMAND...: retry every 20 ms for up to MS ms.
within() {
	local ms=$1 i
	shift
	for ((i = 0; i < ms / 20; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	"$@"
}
records() { ls "$1" 2>/dev/null | grep -c '^run-'; }
no_records() { [ "$(records "$RA")" -eq 0 ]; }
gone() { [ ! -e "$1" ]; }
guardian_gone() { ! kill -0 "$GPID" 2>/dev/null; }

# A: the first run, in mount mode (it creates .git as its mount point),
# until the file stopA appears.
"${A[@]}" "$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- \
	sh -c 'while [ ! -e stopA ]; do sleep 0.02; done' </dev/null >/dev/null 2>"$W/a.err" &
APID=$!
within 5000 test -d "$ws/.git"
assert "[$side] the first run created its mount point .git" -- test -d "$ws/.git"
GPID=$(awk '$1 == "guardian" { print $2 }' "$RA"/run-* 2>/dev/null | head -n 1)
assert "[$side] the first run has a guardian" -- test -n "$GPID"

# B: the second run, in the other registry, binds the .git it found; after
# `go` it tries to plant a hook, and writes what happened to result.
"${B[@]}" "$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- sh -c '
	touch readyB
	while [ ! -e go ]; do sleep 0.02; done
	if mkdir -p .git/hooks 2>/dev/null && echo "echo pwned" > .git/hooks/pre-commit 2>/dev/null
	then echo planted > result; else echo refused > result; fi
	mkdir -p sub/.git/hooks && echo "echo ok" > sub/.git/hooks/pre-commit && echo control >> result
	while [ ! -e stopB ]; do sleep 0.02; done' </dev/null >/dev/null 2>"$W/b.err" &
BPID=$!
within 5000 test -e "$ws/readyB"
assert "[$side] the second run started" -- test -e "$ws/readyB"

# The first run ends while the second sandbox still binds its .git.
touch "$ws/stopA"
wait "$APID"
assert "[$side] the first run ended cleanly" -- test $? -eq 0
assert "[$side] its end left .git in place: another sandbox binds it" -- test -d "$ws/.git"
assert "[$side] ...and kept its record for its guardian" -- test "$(records "$RA")" -eq 1

touch "$ws/go"
within 5000 grep -qs control "$ws/result"
assert "[$side] the second sandbox could not plant .git/hooks/pre-commit" -- \
	grep -qx refused "$ws/result"
assert "[$side] no hook on the host" -- test ! -e "$ws/.git/hooks/pre-commit" -a ! -e "$ws/.git/hooks"
assert "[$side] control: a hook in a subdirectory's .git is written" -- \
	test -f "$ws/sub/.git/hooks/pre-commit"

# The second run ends: the first run's guardian removes .git and its record.
touch "$ws/stopB"
wait "$BPID"
assert "[$side] the second run ended cleanly" -- test $? -eq 0

within 5000 gone "$ws/.git"
assert "[$side] once the second sandbox is gone, .git is removed" -- gone "$ws/.git"
within 5000 no_records
assert "[$side] ...and the first run's record" -- no_records
within 5000 guardian_gone
assert "[$side] ...and its guardian has exited" -- guardian_gone
assert "[$side] nothing else of either run is left in the workspace" -- \
	test "$(ls -A "$ws" | sort | tr '\n' ' ')" = "go readyB result stopA stopB sub "
assert "[$side] no other registry record" -- test "$(records "$W/xb/cordon/registry")" -eq 0

# Control: alone, the first run removes its .git at its end.
rm -rf "${ws:?}"/*
expect 0 "[$side] control: a run alone removes its mount point at its end" -- \
	"${A[@]}" "$CORDON" --protect-missing mount -w "$ws" -C "$ws" -- test -d .git
assert "[$side] control: .git is gone right after" -- gone "$ws/.git"
finish

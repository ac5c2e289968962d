#!/usr/bin/env bash
# t_many.sh: many sandboxes of one user at once (issue "Many at once").
# - When the caller has no inotify instance left, a run never refuses and
#   never watches less: every missing protected name gets an empty read-only
#   placeholder (as --protect-missing mount), removed at the run's end, and
#   the run says so (stderr, report).  Control: with instances left, the
#   names are absent inside and watched.
# - Each sandbox gets a small fixed budget of the per-user counts it shares
#   with its caller: four hostile sandboxes that take all they may leave the
#   caller inotify instances, queued signals, and room for a new run.
# - 200 concurrent runs (watch mode, beyond the 128 instances a user has by
#   default), 200 in mount mode and 100 in proxy mode, each with its own
#   bridge, all exit with their command's status and leave no process, name,
#   record or guardian.
# run.sh: alone
. "$(dirname "$0")/lib.sh"

UC="$HELPERS/ucounts.py"
MARK="many-$$-$RANDOM"
REG="${XDG_STATE_HOME:-$HOME/.local/state}/cordon/registry"
limit=$(cat /proc/sys/fs/inotify/max_user_instances)
ws="$W/ws"
mkdir -p "$ws"

# hog_start FILE: a host process of ours that holds every inotify instance
# this user has left; FILE gets its count once it holds them.
hog_pid=
hog_start() {
	python3 "$UC" inotify 60 >"$1" &
	hog_pid=$!
	wait_for 100 test -s "$1"
}
hog_stop() { [ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null; hog_pid=; }
trap 'hog_stop; rm -rf "${cleanup_dirs[@]}"' EXIT

# --- control: with instances left, missing names are watched ---------------------
expect 0 "control: with inotify instances left, a missing .git is absent inside" -- \
	"$CORDON" -w "$ws" -C "$ws" -- sh -c '! test -e .git && ! test -e .bashrc'
assert "control: no note about placeholders" -- sh -c "! grep -q placeholders '$ERR'"

# --- no instance left: placeholders, never a refusal ----------------------------
hog_start "$W/hog"
assert "the host process holds the rest of this user's inotify instances" -- \
	test "$(cat "$W/hog")" -ge 1
expect_err 7 "placeholders" "without an inotify instance the run still runs (status 7) and says so" -- \
	"$CORDON" --report "$W/r.json" -w "$ws" -C "$ws" -- sh -c 'test -d .git && test -d .bashrc || exit 3; exit 7'
assert "the note names the limit that ran out" -- grep -q "fs.inotify.max_user_instances" "$ERR"
assert "the report says why it fell back" -- \
	sh -c "jq -e '.watch_fallback | test(\"max_user_instances\")' '$W/r.json' >/dev/null"
assert "no placeholder is left on the host after the run" -- test -z "$(ls -A "$ws")"
# The escape: with placeholders, the names cannot be planted either.
for script in 'mkdir .git/hooks' 'rmdir .git' 'mv .git x' 'echo x > .bashrc' 'rm -rf .codex' \
	      'mkdir d && mv -T d .git'; do
	refuse "without a watch, '$script' fails inside" -- \
		"$CORDON" -w "$ws" -C "$ws" -- sh -c "$script"
done
assert "and no protected name was planted on the host (only d: $(ls -A "$ws" | paste -sd' '))" -- \
	test "$(ls -A "$ws")" = d
rm -rf "$ws/d"
expect 0 "control: other files can be written meanwhile" -- \
	"$CORDON" -w "$ws" -C "$ws" -- sh -c 'echo ok > file && mkdir sub && mkdir sub/.git'
assert "control: they are on the host" -- test -f "$ws/file" -a -d "$ws/sub/.git"
rm -rf "$ws/file" "$ws/sub"
# cordon killed while it holds placeholders: its guardian removes them.
env RUN_MARK="$MARK-k" "$CORDON" -w "$ws" -C "$ws" -- sleep 30 2>/dev/null &
kpid=$!
wait_for 100 test -d "$ws/.git"
kill -9 "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
assert "after kill -9 of cordon its guardian removes the placeholders" -- \
	wait_for 100 sh -c "test -z \"\$(ls -A '$ws')\""
hog_stop

# --- four hostile sandboxes cannot starve the caller --------------------------
for i in 1 2 3 4; do
	"$CORDON" -- sh -c "python3 '$UC' inotify 20 & python3 '$UC' sigqueue 20; wait" \
		>"$W/hostile$i" 2>&1 &
done
for i in 1 2 3 4; do wait_for 150 sh -c "test \$(wc -l <'$W/hostile$i') -ge 2"; done
took_i=$(for i in 1 2 3 4; do head -2 "$W/hostile$i"; done | sort -n | head -4 | paste -sd' ')
most_i=$(cat "$W"/hostile? | sort -n | awk 'NR==1 || $1 < 1000' | tail -1)
assert "each hostile sandbox got at most 8 inotify instances ($took_i ...)" -- \
	sh -c "for f in '$W'/hostile?; do n=\$(sort -n \"\$f\" | head -1); [ \"\$n\" -ge 1 ] && [ \"\$n\" -le 8 ] || exit 1; done"
assert "each hostile sandbox queued at most 1024 signals" -- \
	sh -c "for f in '$W'/hostile?; do n=\$(sort -n \"\$f\" | tail -1); [ \"\$n\" -ge 9 ] && [ \"\$n\" -le 1024 ] || exit 1; done"
n=$(python3 "$UC" inotify 0)
assert "meanwhile the host user can still open inotify instances ($n)" -- test "$n" -ge $((limit / 4))
n=$(python3 "$UC" sigqueue 0)
assert "and queue signals ($n)" -- test "$n" -ge 1024
expect 0 "and start a new cordon run that watches" -- \
	"$CORDON" -w "$ws" -C "$ws" -- sh -c '! test -e .git'
assert "(watching, not falling back)" -- sh -c "! grep -q placeholders '$ERR'"
pkill -f "$UC" 2>/dev/null
wait

# --- many at once ---------------------------------------------------------
# pgrep from a function: an `sh -c "pgrep -f MARK"` would find itself.
no_process_of_runs() { ! pgrep -f -- "$MARK" >/dev/null; }

# many N TAG ARGS...: N runs at once, run i with workspace ws-TAG-i and exit
# status i % 7; every status must come back, nothing may stay.
many() {
	local n=$1 tag=$2 i
	shift 2
	for i in $(seq "$n"); do
		mkdir -p "$W/m/$tag-$i"
		( env RUN_MARK="$MARK" "$CORDON" "$@" -w "$W/m/$tag-$i" -C "$W/m/$tag-$i" -- \
			sh -c 'test ! -e .git/hooks || exit 99; exit $1' "$MARK" $((i % 7)) \
			>/dev/null 2>"$W/m/$tag-$i.err"
		  echo $? >"$W/m/$tag-$i.rc" ) &
	done
	wait
	local good=0 leftovers=0
	for i in $(seq "$n"); do
		[ "$(cat "$W/m/$tag-$i.rc")" = $((i % 7)) ] && good=$((good + 1))
		[ -z "$(ls -A "$W/m/$tag-$i")" ] || leftovers=$((leftovers + 1))
	done
	assert "$tag: $good of $n concurrent runs exited with their command's status" -- test "$good" -eq "$n"
	[ "$good" -eq "$n" ] || { grep -h cordon "$W"/m/"$tag"-*.err | sort | uniq -c | head -3; }
	assert "$tag: no name left in any of the $n workspaces ($leftovers)" -- test "$leftovers" -eq 0
	assert "$tag: no process of the runs left" -- wait_for 50 no_process_of_runs
	assert "$tag: no guardian of the runs left" -- no_guardian_left "$MARK"
	assert "$tag: no registry record names their workspaces" -- \
		sh -c "! grep -qs '$W/m/$tag-' '$REG'/run-*"
}
many 200 watch
many 200 mount --protect-missing mount
many 100 proxy --net proxy --allow-domain example.invalid

finish

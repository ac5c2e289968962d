#!/usr/bin/env bash
# t_tmphost.sh: --tmp host and the other users of the machine (issue 19,
# item 8).  Any local user blocked every --tmp host run by planting
# /tmp/.codex -> /etc (a protected name that is a symbolic link: exit 125).
# Another user's link at a protected name, in a directory others can write,
# is now left as it is and watched: the run goes on, the link is untouched,
# and any other entry under the name still stops the run.  Where it leads is
# kept from the command (plan/linkwalk.h): a missing name there is watched,
# a link or directory on the way the command could swap is watched as found,
# the end is read-only.  The caller's own link stays refused (an earlier
# sandboxed command may have planted it).
# Two users need root: the root pass plants as one and runs as the other,
# both ways; the user pass checks the refusal of its own link.
. "$(dirname "$0")/lib.sh"

TU=${CORDON_TEST_USER:-cordontest}
# A directory others can write, like /tmp: root's, sticky, 1777.
s="$W/shared"
mkdir -p "$s" && chmod 1777 "$s"

if is_root && id "$TU" >/dev/null 2>&1; then
	tuhome=$(getent passwd "$TU" | cut -d: -f6)
	AS_TU="setpriv --reuid=$TU --regid=$TU --init-groups env HOME=$tuhome"
	# --- planted by the user, run by root -------------------------------------
	$AS_TU ln -s /etc "$s/.codex"
	assert "the user planted .codex -> /etc" -- test "$(stat -c %U "$s/.codex")" = "$TU"
	S=("$CORDON" -w "$s" -C "$s")
	expect 0 "another user's .codex -> /etc in a sticky directory does not stop root's run" -- \
		"${S[@]}" -- sh -c 'echo x > note'
	assert "the run wrote and left the link as it was" -- \
		test -f "$s/note" -a "$(readlink "$s/.codex")" = /etc
	expect_out 0 "$s/.codex +watched +.*another user's symbolic link" \
		"explain says the link is left as it is and watched" -- \
		"$CORDON" explain -w "$s" -C "$s" -- true
	# root owns the sticky directory, so its command may remove the link:
	# then the name is free, and making it stops the run.
	expect_err 1 "protected name" "replacing the link with a .codex of the command's stops the run" -- \
		"${S[@]}" -- sh -c 'rm .codex && mkdir .codex && echo "[x]" > .codex/config.toml; sleep 2; touch after'
	assert "no .codex of the command's stayed, and it went no further" -- \
		test ! -d "$s/.codex" -a ! -e "$s/after"
	assert "it was moved aside, not deleted" -- test -d "$(echo "$s"/.codex.cordon-quarantine-*)"
	rm -rf "$s"/.codex.cordon-quarantine-* "$s/note"
	# A link of the command's in its place may get the old link's inode
	# number; cordon holds the old link open, so it is still a new entry.
	$AS_TU ln -sfn /etc "$s/.codex"
	expect_err 1 "protected name" "replacing the link with a link of the command's stops the run" -- \
		"${S[@]}" -- sh -c 'rm .codex && ln -s /root .codex; sleep 2'
	assert "and the command's link was moved aside" -- \
		test ! -L "$s/.codex" -a -L "$(echo "$s"/.codex.cordon-quarantine-*)"
	rm -f "$s"/.codex.cordon-quarantine-*
	$AS_TU ln -sfn /etc "$s/.codex"
	expect 0 "--protect-missing mount: the same link does not stop the run" -- \
		"${S[@]}" --protect-missing mount -- true
	assert "and nothing was made in its place" -- test "$(readlink "$s/.codex")" = /etc
	$AS_TU rm -f "$s/.codex"

	# --- where the link leads, kept from the command --------------------------
	# /tmp/.codex -> /tmp/x: refusing let any user stop every run; now the
	# run goes on, and the command cannot make x (watched: the run stops and
	# x is moved aside), so the host's tools never find its content there.
	q() { echo "$s"/*.cordon-quarantine-*; }
	$AS_TU ln -s x "$s/.codex"
	expect 0 "another user's .codex -> x (missing) does not stop the run" -- \
		"${S[@]}" -- sh -c 'echo y > note'
	expect_out 0 "$s/x +watched +.*link $s/.codex leads there" \
		"explain shows x watched for the link" -- "$CORDON" explain -w "$s" -C "$s" -- true
	expect_err 1 "another user's symbolic link $s/.codex.*leads there" \
		"the command making x (with a config) through the link is stopped" -- \
		"${S[@]}" -- sh -c 'mkdir x && echo "[x]" > x/config.toml; sleep 2; touch after'
	assert "nothing is reachable through the link, and it went no further" -- \
		test ! -e "$s/.codex/config.toml" -a ! -e "$s/x" -a ! -e "$s/after"
	assert "x was moved aside, the link left as it was" -- \
		test -d "$(q)" -a "$(readlink "$s/.codex")" = x
	rm -rf "$(q)"
	expect_err 1 "leads there" "so is x made as a link to the command's own directory" -- \
		"${S[@]}" -- sh -c 'mkdir y && echo "[x]" > y/config.toml && ln -s y x; sleep 2'
	assert "and nothing is reachable through the link" -- test ! -e "$s/.codex/config.toml"
	rm -rf "$(q)" "$s/y"
	$AS_TU ln -sfn "$s/x/y/z" "$s/.codex"
	expect_err 1 "$s/x was created" "a nested missing target: making its first component stops the run" -- \
		"${S[@]}" -- sh -c 'mkdir -p x/y/z && echo "[x]" > x/y/z/config.toml; sleep 2'
	assert "and nothing is reachable through the link" -- test ! -e "$s/.codex/config.toml"
	rm -rf "$(q)"
	# A chain: .codex -> a -> b, b missing.  root owns the sticky directory,
	# so its command could also swap the user's a: that stops the run too.
	$AS_TU ln -s b "$s/a"
	$AS_TU ln -sfn a "$s/.codex"
	expect 0 "a chain to a missing name does not stop the run" -- "${S[@]}" -- true
	expect_err 1 "$s/b was created" "making the chain's missing end stops the run" -- \
		"${S[@]}" -- sh -c 'mkdir b && echo "[x]" > b/config.toml; sleep 2'
	rm -rf "$(q)"
	expect_err 1 "$s/a was created" "swapping a link of the chain stops the run" -- \
		"${S[@]}" -- sh -c 'mkdir y && echo "[x]" > y/config.toml && ln -sfn y a.new && mv -T a.new a; sleep 2'
	assert "and nothing is reachable through the link" -- test ! -e "$s/.codex/config.toml"
	rm -rf "$(q)" "$s/y" "$s/a"
	$AS_TU ln -s l "$s/l"
	$AS_TU ln -sfn l "$s/.codex"
	expect 0 "a loop of the user's links does not stop the run" -- "${S[@]}" -- true
	rm -f "$s/l"
	# x exists and is the caller's (an earlier run could have made it): bound
	# read-only for the run, which goes on.
	mkdir "$s/x"
	$AS_TU ln -sfn x "$s/.codex"
	expect_out 0 "$s/x +protected +.*link $s/.codex leads there" \
		"explain shows the caller's x read-only for the link" -- \
		"$CORDON" explain -w "$s" -C "$s" -- true
	expect 0 "the caller's x: the run starts, and x cannot be written, renamed or removed" -- \
		"${S[@]}" -- sh -c '! (echo "[x]" > x/config.toml) 2>/dev/null && ! mv x x2 2>/dev/null &&
			! rmdir x 2>/dev/null && echo y > note'
	assert "x is as it was" -- test -d "$s/x" -a ! -e "$s/x/config.toml" -a -f "$s/note"
	rmdir "$s/x"
	# x exists and is the other user's: nothing the command can do to it.
	$AS_TU mkdir "$s/x"
	expect 0 "the user's x: the run starts, and x cannot be written, renamed or removed" -- \
		"${S[@]}" -- sh -c '! (echo "[x]" > x/config.toml) 2>/dev/null && ! mv x x2 2>/dev/null &&
			! rmdir x 2>/dev/null'
	assert "x is as it was" -- test -d "$s/x" -a ! -e "$s/x/config.toml"
	rmdir "$s/x"
	# The directory itself (`.`): all of it is what the link leads to, so
	# all of it is read-only for the run; above it (`..`) nothing is.
	$AS_TU ln -sfn . "$s/.codex"
	expect_err 0 "$s is read-only for this run" \
		"a link to the writable root itself: the run starts, the root is read-only, and cordon says why" -- \
		"${S[@]}" -- sh -c '! (echo "[x]" > config.toml) 2>/dev/null'
	assert "and nothing was written" -- test ! -e "$s/config.toml"
	$AS_TU ln -sfn .. "$s/.codex"
	expect 0 "a link above the writable root: the run starts and writes" -- \
		"${S[@]}" -- sh -c 'echo y > note2'
	assert "it wrote" -- test -f "$s/note2"
	rm -f "$s/note2"
	$AS_TU ln -sfn /nonexistent/cordon-h19 "$s/.codex"
	expect 0 "a dangling link to where nothing can be created does not stop the run" -- \
		"${S[@]}" -- sh -c 'mkdir -p /nonexistent/cordon-h19 2>/dev/null; true'
	assert "and its target still does not exist" -- test ! -e /nonexistent/cordon-h19
	$AS_TU ln -sfn x "$s/.codex"
	expect 0 "--full-write: the link does not stop the run" -- \
		"$CORDON" --full-write -w "$s" -C "$s" -- true
	expect_err 1 "$s/x was created" "--full-write: making x through the link still stops the run" -- \
		"$CORDON" --full-write -w "$s" -C "$s" -- sh -c 'mkdir x && echo "[x]" > x/config.toml; sleep 2'
	assert "and nothing is reachable through the link" -- test ! -e "$s/.codex/config.toml"
	rm -rf "$(q)" "$s/note"
	$AS_TU rm -f "$s/.codex"

	# --- the host's own /tmp, with --tmp host (a private mount namespace and
	# tmpfs of this test's own: the machine's /tmp is never touched) ----------
	intmp() { unshare -m --propagation private -- sh -c \
		'mount -t tmpfs -o mode=1777 cordon-test /tmp && "$@"' sh "$@"; }
	expect 0 "--tmp host: the user's /tmp/.codex -> /etc does not stop root's run" -- \
		intmp sh -c "$AS_TU ln -s /etc /tmp/.codex && \
			\"$CORDON\" --tmp host --cache none -C / -- sh -c 'echo x > /tmp/f' && \
			test -f /tmp/f && test \"\$(readlink /tmp/.codex)\" = /etc"
	expect 0 "--tmp host: root's /tmp/.git -> /etc does not stop the user's run" -- \
		intmp sh -c "ln -s /etc /tmp/.git && \
			$AS_TU \"$CORDON\" --tmp host --cache none -C / -- sh -c 'echo x > /tmp/f' && \
			test -f /tmp/f && test \"\$(readlink /tmp/.git)\" = /etc"
	# root's /tmp/.git -> /tmp/x: the user's command cannot make x.
	expect 0 "--tmp host: the user's command making x through root's link is stopped" -- \
		intmp sh -c "ln -s /tmp/x /tmp/.git && \
			! $AS_TU \"$CORDON\" --tmp host --cache none -C / -- \
				sh -c 'mkdir /tmp/x && echo \"[x]\" > /tmp/x/config; sleep 2; touch /tmp/after' && \
			test ! -e /tmp/.git/config -a ! -e /tmp/x -a ! -e /tmp/after"
	expect 0 "--tmp host: control: the same run writing elsewhere works" -- \
		intmp sh -c "ln -s /tmp/x /tmp/.git && \
			$AS_TU \"$CORDON\" --tmp host --cache none -C / -- sh -c 'echo y > /tmp/f' && \
			test -f /tmp/f"
	# root's link to a directory of the user's: read-only for its run.
	expect 0 "--tmp host: root's link to the user's own directory: its run cannot write there" -- \
		intmp sh -c "$AS_TU mkdir /tmp/ux && ln -s /tmp/ux /tmp/.codex && \
			$AS_TU \"$CORDON\" --tmp host --cache none -C / -- \
				sh -c '! (echo x > /tmp/ux/config.toml) 2>/dev/null && echo y > /tmp/f' && \
			test -f /tmp/f -a ! -e /tmp/ux/config.toml"
	# root's link through a link of the user's (which the user could swap):
	# swapping it stops the run.
	expect 0 "--tmp host: swapping the user's own link on the way stops the run" -- \
		intmp sh -c "$AS_TU ln -s /etc /tmp/ua && ln -s /tmp/ua /tmp/.codex && \
			! $AS_TU \"$CORDON\" --tmp host --cache none -C / -- \
				sh -c 'mkdir /tmp/ub && echo x > /tmp/ub/config.toml && ln -sfn /tmp/ub /tmp/ua.n && mv -T /tmp/ua.n /tmp/ua; sleep 2' && \
			test ! -e /tmp/.codex/config.toml"
	# The user's command cannot remove root's link (sticky /tmp) nor make
	# the name: it fails and the link stays.
	expect 0 "--tmp host: the user's command cannot replace root's link" -- \
		intmp sh -c "ln -s /etc /tmp/.git && \
			! $AS_TU \"$CORDON\" --tmp host --cache none -C / -- \
				sh -c 'rm -f /tmp/.git || mv /tmp/.git /tmp/g; mkdir /tmp/.git' && \
			test \"\$(readlink /tmp/.git)\" = /etc"
fi

# --- control: a link of the caller's own stays refused ------------------------------
o="$W/own"
mkdir -p "$o" && chmod 1777 "$o"
ln -s /etc "$o/.codex"
expect_err 125 "symbolic link" "the caller's own .codex link is still refused, even in a sticky directory" -- \
	"$CORDON" -w "$o" -C "$o" -- true
rm -f "$o/.codex"
expect 0 "control: without the link the same run works" -- "$CORDON" -w "$o" -C "$o" -- true

finish

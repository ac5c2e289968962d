#!/usr/bin/env bash
# t_tmphost.sh: --tmp host and the other users of the machine (issue 19,
# item 8).  Any local user blocked every --tmp host run by planting
# /tmp/.codex -> /etc (a protected name that is a symbolic link: exit 125).
# Another user's link at a protected name, in a directory others can write,
# is now left as it is and watched: the run goes on, the link is untouched,
# and any other entry under the name still stops the run.  The caller's own
# link stays refused (an earlier sandboxed command may have planted it).
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
	$AS_TU ln -sfn /etc "$s/.codex"
	expect 0 "--protect-missing mount: the same link does not stop the run" -- \
		"${S[@]}" --protect-missing mount -- true
	assert "and nothing was made in its place" -- test "$(readlink "$s/.codex")" = /etc
	$AS_TU rm -f "$s/.codex"

	# --- a link whose target the command could make or change stays refused ----
	# /tmp/.codex -> /tmp/x: the command would create x and fill it, and the
	# host's tools would read it through the protected name.
	$AS_TU ln -s x "$s/.codex"
	expect_err 125 "another user's symbolic link.*writable root" \
		"another user's link into the writable root itself is refused" -- \
		"${S[@]}" -- sh -c 'mkdir x && echo "[x]" > x/config.toml'
	assert "and nothing ran" -- test ! -e "$s/x"
	$AS_TU ln -s /etc "$s/l1"
	$AS_TU ln -sfn l1 "$s/.codex"
	expect 125 "so is one through another link in the writable root (which could be swapped)" -- \
		"${S[@]}" -- true
	$AS_TU ln -sfn /nonexistent/cordon-h19 "$s/.codex"
	expect 0 "a dangling link to where nothing can be created does not stop the run" -- \
		"${S[@]}" -- sh -c 'mkdir -p /nonexistent/cordon-h19 2>/dev/null; true'
	assert "and its target still does not exist" -- test ! -e /nonexistent/cordon-h19
	expect_err 125 "full-write" "with --full-write the command could make it: refused" -- \
		"$CORDON" --full-write -w "$s" -C "$s" -- true
	$AS_TU rm -f "$s/.codex" "$s/l1"

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

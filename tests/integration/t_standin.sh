#!/usr/bin/env bash
# t_standin.sh: the stand-in for cordon's parent (inner/standin.h).  An
# editor tells its language server its own PID (LSP's processId) and the
# server polls kill(PID, 0), exiting at the first error: inside the
# sandbox's PID namespace the PID was nobody's.  The parent's PID is alive
# inside, for the command and its children, with and without Landlock (its
# signal scope admits only the command's own domain); the stand-in holds no
# capability and no descriptor; a PID that is not the parent is still
# nobody's; and real language servers (typescript-language-server, pyright)
# stay up as they do without cordon, while the same servers given a dead
# PID exit (the poll is real).
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
# `; true` keeps bash from exec'ing cordon in its own place: bash, $$, is
# cordon's parent.
expect 0 "the parent's PID is alive inside (kill -0)" -- \
	bash -c '"$0" -w "$1" -C "$1" -- sh -c "kill -0 $$"; true' "$CORDON" "$ws"
bash -c '"$0" -w "$1" -C "$1" -- sh -c "kill -0 $$"; echo $? > "$1/../st"' "$CORDON" "$ws" >/dev/null 2>&1
assert "and the run's status is the command's" -- test "$(cat "$W/st")" = 0
expect 0 "a child of a child of the command sees it too" -- \
	bash -c '"$0" -w "$1" -C "$1" -- sh -c "sh -c \"sh -c \\\"kill -0 $$\\\"\""; e=$?; exit $e' "$CORDON" "$ws"
expect 1 "control: another host PID (cordon's grandparent) is nobody's inside" -- \
	bash -c '"$0" -w "$1" -C "$1" -- sh -c "kill -0 $PPID 2>/dev/null"; e=$?; exit $e' "$CORDON" "$ws"
expect 0 "control: outside, the parent's PID is alive" -- bash -c 'sh -c "kill -0 $$"; e=$?; exit $e'

# What the command can learn of it and do to it.
probe='for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = cordon-standin ] && s=${p#/proc/}; done
	[ -n "$s" ] || { echo none; exit 2; }
	echo "pid=$s"; grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/$s/status | awk "{print \$2}" | sort -u | tr "\n" " "
	echo; ls /proc/$s/fd 2>/dev/null | wc -l'
bash -c '"$0" -w "$1" -C "$1" -- sh -c "$2"; echo "parent=$$"' "$CORDON" "$ws" "$probe" >"$W/probe" 2>&1
assert "the stand-in has the parent's PID" -- \
	test "$(sed -n 's/^pid=//p' "$W/probe")" = "$(sed -n 's/^parent=//p' "$W/probe")"
assert "it holds no capability" -- test "$(sed -n 2p "$W/probe")" = "0000000000000000 "
assert "and no descriptor" -- test "$(sed -n 3p "$W/probe")" = 0
assert "the command holds no capability either" -- bash -c \
	'"$0" -w "$1" -C "$1" -- sh -c "grep -E ^Cap /proc/self/status | grep -v 0000000000000000$ | grep -q . && exit 1; exit 0"; e=$?; exit $e' "$CORDON" "$ws"
expect 0 "the command may kill it (it is the command's to end)" -- \
	bash -c '"$0" -w "$1" -C "$1" -- sh -c "kill -9 $$ && ! kill -0 $$ 2>/dev/null || { sleep 0.2; ! kill -0 $$; }"; e=$?; exit $e' "$CORDON" "$ws"
expect 0 "a shell's wait does not wait for it" -- \
	timeout 10 bash -c '"$0" -w "$1" -C "$1" -- sh -c "sleep 0.1 & wait"; e=$?; exit $e' "$CORDON" "$ws"
in_landlock_pass "--pid-ns inherit" "it needs Landlock's signal scope" &&
# (Other runs' stand-ins are visible there: ask cordon-inner, the command's
# parent, whether it was told to make one.)
expect 0 "with --pid-ns inherit there is none (the parent is visible as it is)" -- \
	bash -c '"$0" --pid-ns inherit -w "$1" -C "$1" -- sh -c "grep -q cordon-inner /proc/\$PPID/comm && ! tr \"\\\\0\" \"\\\\n\" < /proc/\$PPID/cmdline | sed /^--\\\$/q | grep -qx -- --standin"; e=$?; exit $e' "$CORDON" "$ws"

# Real language servers, with an editor-style client: side by side, one wait.
tsls=$("$HELPERS/agents-setup.sh" --find tsls) || tsls=
pyright=$("$HELPERS/agents-setup.sh" --find pyright) || pyright=
if [ -z "$tsls" ] || [ -z "$pyright" ]; then
	echo "  skip [$WHO] language servers: not installed (scripts/agents-setup.sh installs them; it needs the npm registry once)"
elif ! command -v node >/dev/null; then
	echo "  skip [$WHO] language servers: no node"
else
	C="$CORDON -w $ws -C $ws --"
	(cd "$ws" && HOME="$ws" python3 "$HELPERS/lspclient.py" 4.5 \
		"ts:self:$C $tsls --stdio" \
		"pyright:self:$C ${pyright%/*}/pyright-langserver --stdio" \
		"ts-direct:self:$tsls --stdio" \
		"ts-dead:999999:$C $tsls --stdio") >"$W/lsp" 2>&1
	assert "typescript-language-server stays up under cordon (processId: the editor's)" -- grep -qx "ts alive" "$W/lsp"
	assert "pyright stays up under cordon" -- grep -qx "pyright alive" "$W/lsp"
	assert "control: typescript-language-server stays up run directly" -- grep -qx "ts-direct alive" "$W/lsp"
	assert "control: given a dead processId it exits (the poll is real)" -- grep -q "^ts-dead exited" "$W/lsp"
	grep -q "alive" "$W/lsp" || sed 's/^/         | /' "$W/lsp"
fi
finish

#!/usr/bin/env bash
# killintent.sh: the kill window scripts/killloop.sh hits about once in
# thousands of kills on a loaded machine, made to happen every time (gdb).
# Not part of make check (it needs gdb).
#
#   scripts/killintent.sh
#
# Run M (--protect-missing mount) is stopped at the mkdirat of .aws, its last
# placeholder: .git .codex .agents exist, its record names all four as
# intents.  Its guardian is stopped (as load may delay it), M is killed, and
# run N starts: it binds the three it finds (a shared lock, held by its
# bwrap) and creates .aws.  M's guardian goes on: its first sweep keeps the
# three (locked) and drops .aws (N's), which rewrites M's record.  N is
# killed; once its bwrap is gone M's guardian sweeps again.  Exit status 0
# when nothing was left (no process, record or name), 1 otherwise.
set -u
CORDON=${CORDON:-$(dirname "$0")/../build/cordon}
command -v gdb >/dev/null || { echo "killintent.sh: needs gdb" >&2; exit 2; }
B=$(mktemp -d /var/tmp/cordon-killintent.XXXXXX) || exit 2
chmod 755 "$B"
ws=$B/ws
st=$B/state
mkdir -p "$ws" "$st"
mark="ki$$x$RANDOM"
trap 'rm -rf "$B"' EXIT
# marked [COMM]: pids of this script's processes (of that name).
marked() {
	local f p
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}
		p=${p%/environ}
		tr '\0' '\n' 2>/dev/null <"$f" | grep -q "^KILLINTENT_MARK=$mark" || continue
		[ -z "${1:-}" ] || [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] && echo "$p"
	done
	return 0
}
wait_dir() { for _ in $(seq 200); do [ -d "$1" ] && return 0; sleep 0.05; done; return 1; }
# ".aws" as the int at the name's start, and its NUL.
cat >"$B/gdb" <<G
set pagination off
set confirm off
break mkdirat if *(int *)\$rsi == 0x7377612e && *((char *)\$rsi + 4) == 0
run
shell while [ ! -e $B/go ]; do sleep 0.05; done
kill
quit
G
env KILLINTENT_MARK="$mark" XDG_STATE_HOME="$st" gdb -q -batch -x "$B/gdb" --args "$CORDON" \
	--protect-missing mount -w "$ws" -C "$ws" -- sleep 300 >"$B/gdb.out" 2>&1 &
gdbpid=$!
wait_dir "$ws/.agents" || { echo "M did not reach its last mkdirat"; cat "$B/gdb.out"; exit 2; }
sleep 0.5
G=$(marked cordon-guardian)
[ -n "$G" ] && kill -STOP "$G"
touch "$B/go"
wait "$gdbpid"
names() { find "$ws" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null; }
echo "M killed: names [$(names)], guardian $G stopped"
env KILLINTENT_MARK="${mark}N" XDG_STATE_HOME="$st" "$CORDON" --protect-missing mount \
	-w "$ws" -C "$ws" -- sleep 300 </dev/null >/dev/null 2>&1 &
N=$!
wait_dir "$ws/.aws"
sleep 1
[ -n "$G" ] && kill -CONT "$G"
sleep 1
kill -9 "$N"
wait "$N" 2>/dev/null
for _ in $(seq 100); do [ -z "$(marked)" ] && break; sleep 0.1; done
left=$(marked)
records=$(find "$st" -name 'run-*' 2>/dev/null | wc -l)
names=$(names)
echo "left: processes [$left] records $records names [$names]"
for p in $left; do kill -9 "$p" 2>/dev/null; done
[ -z "$left" ] && [ "$records" -eq 0 ] && [ -z "$names" ]
